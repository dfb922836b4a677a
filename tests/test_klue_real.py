"""The KLUE readers on every real KLUE file in the shared data (skipped when it is absent).

Counts are the published KLUE v1.1 sizes (see ../shared/data/klue/README.md);
the YNAT train count is the labelled part of the DACON copy (rows 0..36546),
which must not include the dev rows that follow it.
"""

from __future__ import annotations

import collections
from pathlib import Path

import pytest

from corpus import klue
from corpus.datadir import resolve_data_dir


def _real_klue_dir() -> Path | None:
    try:
        root = resolve_data_dir()
    except FileNotFoundError:
        return None
    path = root / "klue"
    return path if (path / "klue-nli-v1.1.tar.gz").is_file() else None


REAL = _real_klue_dir()
pytestmark = pytest.mark.skipif(
    REAL is None,
    reason="real KLUE data not found (needs <data-dir>/klue/klue-nli-v1.1.tar.gz; "
    "set KLUE_DATA_DIR or place ../shared/data beside the repo)",
)


@pytest.fixture(scope="module")
def cache():
    """Loads each real split once for the whole module."""
    loaded: dict[tuple[str, str], list] = {}

    def get(task: str, split: str) -> list:
        if (task, split) not in loaded:
            loaded[(task, split)] = klue.load(task, split, REAL)
        return loaded[(task, split)]

    return get


def test_available_splits():
    splits = klue.available_splits(REAL)
    assert splits["nli"] == ["dev", "dev_sample_10", "train"]
    assert splits["re"] == ["dev", "train"]
    assert splits["ynat"] == ["dev", "train"]  # train from the DACON copy
    assert splits["sts"] == ["dev"] and splits["ner"] == ["dev"] and splits["dp"] == ["dev"]
    assert splits["wos"] == ["dev_sample_10"]
    assert splits["mrc"] == []


def test_nli_counts_from_the_official_archive(cache):
    assert klue.locate("nli", "train", REAL).endswith(
        "klue-nli-v1.1.tar.gz:klue-nli-v1.1/klue-nli-v1.1_train.json"
    )
    train, dev = cache("nli", "train"), cache("nli", "dev")
    assert (len(train), len(dev)) == (24998, 3000)
    assert all(isinstance(x, klue.NliExample) for x in train[:10])
    assert {x.gold_label for x in train} == {"entailment", "neutral", "contradiction"}
    # the source key is "genre" in train and "source" in dev: both are read
    assert all(x.source for x in train) and all(x.source for x in dev)
    assert klue.load("nli", "dev_sample_10", REAL) == dev[:10]
    assert len({x.guid for x in train}) == len(train)


def test_re_counts_offsets_and_relations(cache):
    relations = klue.relations(REAL)
    assert len(relations) == 30 and relations[0] == "no_relation"
    train, dev = cache("re", "train"), cache("re", "dev")
    assert (len(train), len(dev)) == (32470, 7765)
    for ex in train + dev:  # end_idx is inclusive (the reader also checks this)
        for ent in (ex.subject_entity, ex.object_entity):
            assert ex.sentence[ent.start_idx : ent.end_idx + 1] == ent.word
    assert {x.label for x in train} <= set(relations)
    assert sum(x.label == "no_relation" for x in train) == 9534  # from klue-re-v1.1/README.md
    assert sum(x.label == "no_relation" for x in dev) == 4631


def test_ynat_dev_and_dacon_train(cache):
    dev = cache("ynat", "dev")
    assert len(dev) == 9107
    assert dev[0].guid == "ynat-v1_dev_00000" and dev[0].url
    train = cache("ynat", "train")
    assert len(train) == 36547
    assert klue.locate("ynat", "train", REAL).startswith("dacon:")
    # none of the DACON train rows is a dev title: the dev rows (index >= 36547) are excluded
    assert not {x.title for x in train} & {x.title for x in dev}
    assert all(x.guid.startswith("ynat-dacon_train_") for x in train)
    counts = collections.Counter(x.label for x in train)  # from ynat-v1.1-dacon/README.md
    assert counts["세계"] == 6794 and counts["사회"] == 3661


def test_ynat_dacon_dev_rows_are_the_official_dev():
    dacon = klue.ynat.find_dacon(REAL)
    dacon_dev = list(klue.ynat.read_dacon(dacon, "dev"))
    official = klue.load("ynat", "dev", REAL)
    assert [(x.guid, x.title, x.label) for x in dacon_dev] == [
        (x.guid, x.title, x.label) for x in official
    ]


def test_sts_dev_crlf(cache):
    dev = cache("sts", "dev")
    assert len(dev) == 519
    for x in dev:
        assert 0.0 <= x.real_label <= 5.0
        assert x.binary_label == int(x.real_label >= 3.0)
        assert abs(x.label - x.real_label) <= 0.05 + 1e-9


def test_ner_dev_one_tag_per_character(cache):
    dev = cache("ner", "dev")
    assert len(dev) == 5000
    assert all(len(x.tags) == len(x.sentence) for x in dev)
    spaces = sum(x.sentence.count(" ") for x in dev)
    assert spaces > 0  # space characters are rows of the file and are kept
    tags = collections.Counter(t for x in dev for t in x.tags)
    assert set(tags) <= set(klue.ner.TAGS)
    assert sum(len(x.entities()) for x in dev) == sum(v for t, v in tags.items() if t[0] == "B")


def test_dp_dev_words_and_mismatched_morphemes(cache):
    dev = cache("dp", "dev")
    assert len(dev) == 2000
    assert sum(len(x.words) for x in dev) == 22496
    mismatched = [w for x in dev for w in x.words if w.morphemes() is None]
    assert mismatched  # e.g. "3%" with LEMMA "0" and POS "SN+SW": kept, not a crash
    assert all(sum(w.head == 0 for w in x.words) >= 1 for x in dev)


def test_wos_ontology_and_dev_sample():
    onto = klue.ontology(REAL)
    assert len(onto) == 45
    dialogues = klue.load("wos", "dev_sample_10", REAL)
    assert len(dialogues) == 10
    assert sum(len(d.turns) for d in dialogues) == 152
    states = [s for d in dialogues for t in d.user_turns() for s in t.state]
    assert "식당-가격대-dontcare" in states
    # every slot is an ontology slot (values of open slots such as names and times are not listed)
    assert all("-".join(klue.split_state(s)[:2]) in onto.slots for s in states)
    assert any(onto.contains(s) for s in states)


def test_benchmark_texts_cover_every_field():
    counts = collections.Counter((b.task, b.split, b.field) for b in klue.benchmark_texts(REAL))
    assert counts[("nli", "train", "premise")] == 24998
    assert counts[("nli", "dev", "hypothesis")] == 3000
    assert ("nli", "dev_sample_10", "premise") not in counts  # a subset of dev
    assert counts[("re", "train", "sentence")] == 32470
    assert counts[("ynat", "dev", "title")] == 9107
    # DACON labelled train titles + the unlabelled rest of YNAT train = 45,678
    assert counts[("ynat", "train", "title")] == 45678
    assert counts[("sts", "dev", "sentence1")] == counts[("sts", "dev", "sentence2")] == 519
    assert counts[("ner", "dev", "sentence")] == 5000
    assert counts[("dp", "dev", "sentence")] == 2000
    assert counts[("wos", "dev_sample_10", "text")] == 152
