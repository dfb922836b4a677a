"""`corpus.calibrate.choose` on a tiny labelled set: the caps per length bucket and per
source hold, and recall beyond the targets is never bought with unrelated removals."""

from __future__ import annotations

import numpy as np
import pytest

from corpus import calibrate
from corpus.bm25 import BM25Index, tokenize
from corpus.matching import Matcher
from corpus.normalize import match_key

BENCH = [
    "정부는 미세먼지 저감을 위해 노후 경유차의 운행을 제한하는 방안을 검토하고 있다.",
    "서울시는 내년부터 모든 공공 도서관의 운영 시간을 밤 10시까지 늘리기로 했다.",
    "영화 보는 내내 지루했다.",
] + [f"{i}번 버스는 시청 앞에서 {i + 3}분마다 출발한다." for i in range(30)]

# a paraphrase (BM25 only, about 0.65) and an unrelated sentence of the same register
PARAPHRASE = "정부는 미세먼지를 줄이려고 노후 경유차 운행을 제한하는 방안을 검토하고 있다고 밝혔다."
UNRELATED = "정부는 노후 경유차의 운행을 제한하는 방안을 두고 업계와 협의하고 있다고 밝혔다."
CLOSER = "정부는 미세먼지 저감을 위해 노후 경유차의 운행을 제한하는 방안을 검토하고 있다고 밝혔다."


def _items(texts_labels_sources):
    items = []
    for text, label, source in texts_labels_sources:
        it = {"text": text, "label": label, "kind": "edited" if label else "random", "doc": -1}
        if source:
            it["source"] = source
        it["half"] = "calibration"
        it["bucket"] = calibrate.bucket_of(len(match_key(text)))
        items.append(it)
    return items


@pytest.fixture
def small_grid(monkeypatch):
    grid = {k: [v[0]] for k, v in calibrate.GRID.items()}
    grid.update(
        threshold=[0.3, 0.6, 0.95],
        short_chars=[20],
        near_exact_edits=[0],
        containment=[0.99],
        containment_chars=[10_000],  # containment off
        overlap_chars=[10_000],  # overlap off: BM25 decides
        overlap_share=[1.0],
        short_share=[0.0],
        quote_weight=[0.0],
        quoted_span=[False],
    )
    monkeypatch.setattr(calibrate, "GRID", grid)
    monkeypatch.setattr(calibrate, "MIN_BUCKET_ITEMS", 1)


def _choose(items, max_fp=1.0, max_fp_source=1.0, phrase_counts=None):
    index = BM25Index.build([tokenize(s) for s in BENCH])
    keys = [match_key(s) for s in BENCH]
    matcher = Matcher(index, keys, phrase_counts=phrase_counts, phrase_total=1_000_000)
    feats, contain, overlap = calibrate.grid_features(matcher, [it["text"] for it in items])
    sims = dict(zip([it["text"] for it in items], feats["bm25"], strict=True))
    mask = np.ones(len(items), dtype=bool)
    cfg, info = calibrate.choose(
        matcher, feats, contain, overlap, items, mask, max_fp, max_fp_source
    )
    return cfg, info, sims


def test_recall_beyond_the_target_is_not_bought(small_grid):
    items = _items([(BENCH[1][:-1], 1, None), (UNRELATED, 0, "kowiki")])
    cfg, info, sims = _choose(items)
    assert sims[UNRELATED] < sims[BENCH[1][:-1]]  # the copy scores higher
    # every threshold up to the copy's similarity removes it; the lowest also removes
    # the unrelated sentence: the choice is the loosest that does not
    assert sims[UNRELATED] < cfg.threshold <= sims[BENCH[1][:-1]]
    assert info["meets_fp_cap"]


def test_caps_per_bucket_and_per_source(small_grid):
    # the copy can only be recalled at a threshold that also removes a negative scoring
    # above it (labelled unrelated here, whatever it is: the test is of the choice)
    items = _items([(PARAPHRASE, 1, None), (CLOSER, 0, "nsmc")])
    _, _, sims = _choose(items)
    assert 0.3 <= sims[PARAPHRASE] < sims[CLOSER] < 0.95
    loose, info, _ = _choose(items)  # no caps: the targets first
    assert loose.threshold <= sims[PARAPHRASE] and info["meets_fp_cap"]
    for caps in ({"max_fp": 0.0}, {"max_fp_source": 0.0}):  # one bucket, one source
        strict, info, _ = _choose(items, **caps)
        assert strict.threshold > sims[CLOSER] and info["meets_fp_cap"]  # the cap wins


def test_rare_quote_count_is_chosen_like_any_threshold(small_grid):
    # a benchmark sentence the corpus holds once, quoted; one it holds 3 times, in an
    # unrelated sentence: the count that recalls the quote and keeps the other wins
    calibrate.GRID.update(threshold=[0.95], quote_max_per_million=[0.0, 1.0, 3.0, 5.0])
    quote = "그는 영화 보는 내내 지루했다고 말했다"
    common = "어제 0번 버스는 시청 앞에서 3분마다 출발한다고 들었다"
    items = _items([(quote, 1, None), (common, 0, "nsmc")])
    counts = np.zeros(len(BENCH), dtype=np.int64)
    counts[2], counts[3] = 1, 3
    cfg, info, _ = _choose(items, phrase_counts=counts)
    assert cfg.quote_max_per_million == 1.0 and info["meets_fp_cap"]
    assert info["objective"][1] == 1.0  # the quote's bucket meets its target


def test_a_cap_no_configuration_meets_does_not_free_the_others(small_grid):
    # a labelled-unrelated sentence every configuration removes (here an exact copy)
    # puts its bucket and source over any cap; the other groups keep theirs
    items = _items([(BENCH[2], 0, "kowiki"), (PARAPHRASE, 1, None), (CLOSER, 0, "nsmc")])
    _, _, sims = _choose(items)
    cfg, info, _ = _choose(items, max_fp=0.0, max_fp_source=0.0)
    assert not info["meets_fp_cap"] and info["meets_relaxed_caps"]
    assert set(info["caps_raised_to_lowest_reachable"]) == {"10-19", "kowiki"}
    assert cfg.threshold > sims[CLOSER]  # nsmc's cap holds although recall is lost
