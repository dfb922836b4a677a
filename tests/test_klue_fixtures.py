"""The KLUE readers on our own fixtures (tests/fixtures/klue), in the official v1.1 formats.

The fixtures stand in for the splits that are missing from the shared data
(MRC, WoS, YNAT/STS/NER/DP train) and hold the tricky cases: unanswerable MRC
questions, several gold answers, an RE entity at the sentence end, WoS
dontcare/yes/no values, NER sentences with leading and double spaces, CRLF.
"""

from __future__ import annotations

import collections
import gzip
import inspect
import json
import shutil
import tarfile
from pathlib import Path

import pytest

from corpus import klue
from corpus.klue import ynat
from corpus.textio import Quarantine

FIXTURES = Path(__file__).parent / "fixtures" / "klue"


def pack(src: Path, dest_dir: Path, folders: list[str]) -> None:
    """Packs fixture task folders into official-style ``<folder>.tar.gz`` archives."""
    dest_dir.mkdir(parents=True, exist_ok=True)
    for folder in folders:
        with tarfile.open(dest_dir / f"{folder}.tar.gz", "w:gz") as tar:
            tar.add(src / folder, arcname=folder)


def test_available_splits():
    assert klue.available_splits(FIXTURES) == {
        "ynat": ["train"],
        "sts": ["train"],
        "nli": ["dev", "train"],
        "ner": ["train"],
        "re": ["train"],
        "dp": ["train"],
        "mrc": ["dev", "train"],
        "wos": ["dev", "train"],
    }


def test_unknown_task_and_missing_split():
    with pytest.raises(ValueError, match="unknown KLUE task"):
        klue.load("pos", "train", FIXTURES)
    with pytest.raises(FileNotFoundError, match="klue-sts-v1.1_dev.json"):
        klue.load("sts", "dev", FIXTURES)
    assert klue.locate("sts", "dev", FIXTURES) is None


def test_iter_examples_streams():
    it = klue.iter_examples("ner", "train", FIXTURES)
    assert inspect.isgenerator(it) or iter(it) is it
    assert next(it).guid == "klue-ner-v1_train_00000_wikitree"


def test_ynat_official_train():
    train = klue.load("ynat", "train", FIXTURES)
    assert [x.label for x in train] == ["생활문화", "IT과학", "스포츠", "정치"]
    assert train[1].predefined_news_category == "경제"  # the gold label can differ from it
    assert train[1].label_id == ynat.LABELS.index("IT과학") == 0
    assert train[3].title.startswith('"')
    assert klue.locate("ynat", "train", FIXTURES).endswith("ynat-v1.1_train.json")


def test_sts_train_with_crlf():
    path = FIXTURES / "klue-sts-v1.1" / "klue-sts-v1.1_train.json"
    assert b"\r\n" in path.read_bytes()
    train = klue.load("sts", "train", FIXTURES)
    assert [x.binary_label for x in train] == [1, 0, 1]  # 3.0 is the threshold, inclusive
    assert train[0].real_label == pytest.approx(4.333333333333333)
    assert train[0].label == 4.3


def test_nli_genre_in_train_source_in_dev():
    train = klue.load("nli", "train", FIXTURES)
    dev = klue.load("nli", "dev", FIXTURES)
    assert [x.source for x in train] == ["NSMC", "wikipedia", "airbnb"]
    assert [x.source for x in dev] == ["policy", "wikinews"]
    assert train[1].annotator_labels.count("neutral") == 1
    assert [x.label_id for x in train] == [2, 0, 1]


def test_ner_one_tag_per_character_including_spaces():
    path = FIXTURES / "klue-ner-v1.1" / "klue-ner-v1.1_train.tsv"
    assert b"\r\n" in path.read_bytes()  # CRLF file: the \r must not become a character
    sentences = klue.load("ner", "train", FIXTURES)
    assert len(sentences) == 3
    for s in sentences:
        assert len(s.tags) == len(s.sentence)
        assert "\r" not in s.sentence
    first = sentences[0]
    assert first.sentence == "서울에서 3일 오후 2시에 김민수 씨를 만났다."
    assert first.tags[4] == "O" and first.sentence[4] == " "
    spans = [(first.sentence[a:b], t) for a, b, t in first.entities()]
    assert spans == [("서울", "LC"), ("3일", "DT"), ("2시", "TI"), ("김민수", "PS")]
    second = sentences[1]
    assert "#명작  " in second.sentence  # a '#' row and a double space
    assert second.entities()[-1] == (len(second.sentence) - 8, len(second.sentence), "OG")
    assert sentences[2].sentence.startswith("  두")  # leading spaces are characters too


def test_re_entity_at_sentence_end_and_label_ids():
    relations = klue.relations(FIXTURES)
    assert len(relations) == 30 and relations.index("no_relation") == 0
    train = klue.load("re", "train", FIXTURES)
    end = train[1]
    assert end.object_entity.end_idx == len(end.sentence) - 1
    a, b = end.object_entity.span
    assert end.sentence[a:b] == end.object_entity.word == "이도윤"
    assert train[2].subject_entity.word == "박 의원"  # an entity with a space
    assert [relations.index(x.label) for x in train] == [14, 10, 0]


def test_dp_lemma_pos_mismatch_does_not_crash():
    sentences = klue.load("dp", "train", FIXTURES)
    words = sentences[0].words
    assert [w.word_form for w in words] == ["물가가", "작년보다", "50%", "올랐다."]
    assert words[2].morphemes() is None  # LEMMA "50%" (1) vs POS "SN+SW" (2)
    assert words[0].morphemes() == [("물가", "NNG"), ("가", "JKS")]
    assert sentences[0].heads == [4, 4, 4, 0]
    assert sentences[1].deprels == ["NP_SBJ", "VP"]


def test_mrc_unanswerable_and_plausible_answers():
    train = klue.load("mrc", "train", FIXTURES)
    assert [x.question_type for x in train] == [1, 2, 3, 1, 3]
    impossible = [x for x in train if x.is_impossible]
    assert [x.guid for x in impossible] == ["klue-mrc-v1_train_00002", "klue-mrc-v1_train_00004"]
    assert all(x.answers == () for x in impossible)
    assert impossible[0].plausible_answers[0].text == "약 1만 2천 명"
    assert impossible[1].plausible_answers == ()  # field absent
    assert train[3].news_category is None and train[3].title == "장마 일주일 길어져"
    assert all(x.misaligned_answers() == [] for x in train)
    assert train[0].context == train[2].context and train[0].paragraph_index == 0
    assert train[3].paragraph_index == 1


def test_mrc_dev_multiple_answers():
    dev = klue.load("mrc", "dev", FIXTURES)
    first = dev[0]
    assert [a.text for a in first.answers] == ["1446년", "1446", "1446년에"]
    assert first.misaligned_answers() == []
    assert dev[2].is_impossible and dev[2].plausible_answers == ()


def test_wos_states_and_ontology():
    train = klue.load("wos", "train", FIXTURES)
    first = train[0]
    users = first.user_turns()
    assert len(users) == 3 and all(t.state is not None for t in users)
    assert all(t.state is None for t in first.turns if t.role == "sys")
    assert set(users[0].state) <= set(users[1].state)  # cumulative
    values = {klue.split_state(s)[2] for d in train for t in d.user_turns() for s in t.state}
    assert {"dontcare", "yes", "no"} <= values
    assert klue.split_state("식당-예약 시간-18:30") == ("식당", "예약 시간", "18:30")
    assert klue.split_state("숙소-이름-A-B 호텔") == ("숙소", "이름", "A-B 호텔")
    with pytest.raises(ValueError):
        klue.split_state("식당-가격대")
    onto = klue.ontology(FIXTURES)
    assert onto.contains("식당-가격대-dontcare") and not onto.contains("식당-가격대-공짜")
    assert onto.domains() == ["관광", "숙소", "식당"]
    dev = klue.load("wos", "dev", FIXTURES)
    assert dev[0].user_turns()[0].state == ()  # an empty state is a state


def test_official_archives_read_in_place(tmp_path):
    folders = ["klue-nli-v1.1", "wos-v1.1", "klue-ner-v1.1", "klue-mrc-v1.1", "klue-re-v1.1"]
    pack(FIXTURES, tmp_path, folders)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f + ".tar.gz" for f in folders)
    for task, split in [("nli", "train"), ("nli", "dev"), ("wos", "dev"), ("ner", "train")]:
        assert klue.load(task, split, tmp_path) == klue.load(task, split, FIXTURES)
        assert ".tar.gz:" in klue.locate(task, split, tmp_path)
    assert klue.load("mrc", "train", tmp_path) == klue.load("mrc", "train", FIXTURES)
    assert klue.ontology(tmp_path) == klue.ontology(FIXTURES)
    assert klue.relations(tmp_path) == klue.relations(FIXTURES)
    assert klue.available_splits(tmp_path)["nli"] == ["dev", "train"]


def test_unpacked_folder_wins_over_archive(tmp_path):
    pack(FIXTURES, tmp_path, ["klue-nli-v1.1"])
    shutil.copytree(FIXTURES / "klue-nli-v1.1", tmp_path / "klue-nli-v1.1")
    assert not klue.locate("nli", "train", tmp_path).count(".tar.gz")


def test_gzip_copies_and_flat_layout(tmp_path):
    src = FIXTURES / "klue-ner-v1.1" / "klue-ner-v1.1_train.tsv"
    (tmp_path / "klue-ner-v1.1").mkdir()
    with gzip.open(tmp_path / "klue-ner-v1.1" / (src.name + ".gz"), "wb") as fh:
        fh.write(src.read_bytes())
    shutil.copy(FIXTURES / "klue-dp-v1.1" / "klue-dp-v1.1_train.tsv", tmp_path)  # flat
    assert klue.load("ner", "train", tmp_path) == klue.load("ner", "train", FIXTURES)
    assert klue.load("dp", "train", tmp_path) == klue.load("dp", "train", FIXTURES)
    assert klue.available_splits(tmp_path)["ner"] == ["train"]


def _write_dacon(root: Path, n_rows: int) -> None:
    d = root / "ynat-v1.1-dacon"
    d.mkdir(parents=True)
    names = "IT과학 경제 사회 생활문화 세계 스포츠 정치".split()
    (d / "topic_dict.csv").write_text(
        "topic,topic_idx\n" + "".join(f"{n},{i}\n" for i, n in enumerate(names)), encoding="utf-8"
    )
    rows = "".join(f'{i},"제목 {i}, 쉼표 포함",{i % 7}\n' for i in range(n_rows))
    (d / "train_data.csv").write_text("index,title,topic_idx\n" + rows, encoding="utf-8")
    (d / "test_data.csv").write_text(
        "index,title\n" + "".join(f"{n_rows + k},무표지 제목 {k}\n" for k in range(3)),
        encoding="utf-8",
    )


def test_dacon_rows_from_36547_are_dev_not_train(tmp_path):
    _write_dacon(tmp_path, ynat.DACON_DEV_START + 3)
    train = klue.load("ynat", "train", tmp_path)
    dev = klue.load("ynat", "dev", tmp_path)
    assert len(train) == ynat.DACON_DEV_START == 36547
    assert train[-1].guid == "ynat-dacon_train_36546"
    assert [x.guid for x in dev] == ["ynat-v1_dev_00000", "ynat-v1_dev_00001", "ynat-v1_dev_00002"]
    assert dev[0].title == "제목 36547, 쉼표 포함"  # quoted CSV field with a comma
    assert dev[0].label == ynat.LABELS[36547 % 7]
    fields = collections.Counter(
        (b.split, b.guid.rsplit("_", 1)[0]) for b in klue.benchmark_texts(tmp_path)
    )
    assert fields[("train", "ynat-dacon_test")] == 3  # the unlabelled train titles too
    assert fields[("dev", "ynat-v1_dev")] == 3


def test_dacon_out_of_order_index_is_an_error(tmp_path):
    _write_dacon(tmp_path, 5)
    path = tmp_path / "ynat-v1.1-dacon" / "train_data.csv"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[2], lines[3] = lines[3], lines[2]
    path.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(klue.files.InputError, match=r"train_data.csv:3: bad value: index 2"):
        klue.load("ynat", "train", tmp_path)


def test_benchmark_texts_fields_and_determinism():
    texts = list(klue.benchmark_texts(FIXTURES))
    assert texts == list(klue.benchmark_texts(FIXTURES))
    fields = collections.Counter((b.task, b.field) for b in texts)
    assert fields[("mrc", "context")] == 3  # once per paragraph, not per question
    assert fields[("mrc", "question")] == 8
    assert fields[("wos", "text")] == 11
    assert fields[("sts", "sentence2")] == 3
    assert {f for t, f in fields if t == "nli"} == {"premise", "hypothesis"}
    ctx = next(b for b in texts if b.field == "context")
    assert ctx.text.startswith("세종대왕은") and ctx.guid == "klue-mrc-v1_dev_00000"
    only = list(klue.benchmark_texts(FIXTURES, tasks=("re",)))
    assert [b.text for b in only][1] == "한빛전자의 대표이사는 이도윤"


def test_skip_mode_on_good_files_quarantines_nothing():
    q = Quarantine()
    for task, splits in klue.available_splits(FIXTURES).items():
        for split in splits:
            klue.load(task, split, FIXTURES, on_error="skip", quarantine=q)
    assert q.total == 0


def test_cli_lists_and_checks_splits(capsys, tmp_path):
    from corpus.klue.__main__ import main

    assert main(["--klue-dir", str(FIXTURES), "--json", "--benchmark"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["splits"]["dp/train"]["words"] == 6
    assert report["splits"]["mrc/train"]["unanswerable"] == 2
    assert report["splits"]["wos/train"]["user_turns"] == 5
    assert report["benchmark_texts"]["mrc/train/context"] == 2
    bad = tmp_path / "klue-sts-v1.1"
    bad.mkdir()
    (bad / "klue-sts-v1.1_dev.json").write_text("[{]", encoding="utf-8")
    assert main(["--klue-dir", str(tmp_path)]) == 1
    assert "klue-sts-v1.1_dev.json:1: malformed JSON" in capsys.readouterr().err
    assert main(["--klue-dir", str(tmp_path / "nowhere")]) == 1
