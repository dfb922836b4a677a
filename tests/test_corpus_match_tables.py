"""corpus.match_tables: the matcher's tables saved beside the index equal the ones it builds."""

from __future__ import annotations

import json
import mmap

import numpy as np
import pytest
import scipy.sparse as sp

from corpus import dedup
from corpus.bm25 import BM25Index, tokenize
from corpus.index_files import DocMeta, load_strings, save_strings
from corpus.match_tables import (
    TABLES_DIR,
    TABLES_VERSION,
    HeadTable,
    OverlapSeeds,
    load_tables,
    save_tables,
    signatures,
    window_codes,
)
from corpus.matching import (
    NEAR_MAX_CHARS,
    OVERLAP_GRAM,
    SHORT_GRAM,
    MatchConfig,
    Matcher,
    match_key,
    short_key_table,
)

BENCH = [
    "정말 재미없는 영화다.",
    "네 감사합니다.",
    "서울시는 내년부터 모든 공공 도서관의 운영 시간을 밤 10시까지 늘리기로 했다.",
    "이 숙소는 지하철역에서 걸어서 5분 거리라 위치가 정말 좋았습니다.",
    "정부는 미세먼지 저감을 위해 노후 경유차의 운행을 제한하는 방안을 검토하고 있다.",
    "영화 보는 내내 지루했다.",
    "숙소 주차장은 지하 2층에 있어요.",
    "여야 대표 회동",
] + [f"{i}번 버스는 시청 앞에서 {i + 3}분마다 출발한다." for i in range(30)]
TEXTS = [
    "네, 감사합니다!!",  # exact, short: never tokenised by match_texts
    "영화 보는 내내 지루했어",  # near_exact
    "여야 대표 회동 싸늘",  # near_copy
    "그는 '서울시는 내년부터 모든 공공 도서관의 운영 시간을 밤 10시까지 늘리기로 했다'고 말했다.",
    "서울시는 내년부터 모든 공공 도서관 운영 시간을 밤 10시까지 늘리기로 하였다.",  # bm25
    "정부는 미세먼지를 줄이려고 노후 경유차 운행 제한 방안을 검토 중이다.",
    "7번 버스는 시청 앞에서 10분마다 출발한다고 한다.",
    "오늘은 날씨가 맑고 바람이 시원해서 산책하기 좋은 날이었다.",
    "좋아요",
    "",
]


def _mapped(a: np.ndarray) -> bool:
    """Whether `a` is a view of a memory-mapped file (not a copy in this process)."""
    while a is not None:
        if isinstance(a, np.memmap | mmap.mmap):
            return True
        a = getattr(a, "base", None)
    return False


def _build() -> tuple[BM25Index, list[str]]:
    return BM25Index.build([tokenize(s) for s in BENCH]), [match_key(s) for s in BENCH]


def _signatures_by_loop(by_doc: sp.csr_matrix, idf: np.ndarray, per_doc: int) -> np.ndarray:
    """The definition, one sentence at a time (the loop every worker used to run)."""
    out = np.zeros((by_doc.shape[1], by_doc.shape[0]))
    for j in range(by_doc.shape[0]):
        terms = by_doc.indices[by_doc.indptr[j] : by_doc.indptr[j + 1]]
        out[terms[np.argsort(-idf[terms], kind="stable")[:per_doc]], j] = 1
    return out


def test_signatures_equal_the_per_sentence_definition_with_ties():
    rng = np.random.default_rng(0)
    m = sp.random(300, 50, density=0.08, random_state=1, format="lil")
    m[5, :] = 0  # an empty sentence
    m = m.tocsr()
    m.eliminate_zeros()
    idf = rng.integers(0, 4, 50).astype(np.float64)  # many ties
    for per_doc in (1, 2, 3):
        got = signatures(m, idf, per_doc).toarray()
        assert np.array_equal(got, _signatures_by_loop(m, idf, per_doc))


def test_overlap_seeds_equal_a_dictionary_of_the_same_seeds():
    keys = [match_key(s) for s in BENCH]
    seeds = OverlapSeeds.build(keys, OVERLAP_GRAM, 12, 0.7)
    ref: dict[str, list[int]] = {}
    for d, k in enumerate(keys):
        need = max(12, -int(-0.7 * len(k) // 1))
        if len(k) >= 12:
            for p in range(0, len(k) - OVERLAP_GRAM + 1, need - OVERLAP_GRAM + 1):
                ref.setdefault(k[p : p + OVERLAP_GRAM], []).append(d << 20 | p)
    assert sorted(seeds.grams.tolist()) == sorted(ref)
    for g, row in zip(seeds.grams.tolist(), range(len(seeds.grams)), strict=True):
        assert seeds.hits[seeds.start[row] : seeds.start[row + 1]].tolist() == ref[g]
    # windows of queries (in and across keys, none, short) found exactly where a dict finds them
    queries = [keys[2], "없는" + keys[3][2:15] + "문자열", "", "짧다", keys[4] + keys[5]]
    want = [(r, i, seeds.grams.tolist().index(q[i : i + OVERLAP_GRAM]))
            for r, q in enumerate(queries) for i in range(len(q) - OVERLAP_GRAM + 1)
            if q[i : i + OVERLAP_GRAM] in ref]  # fmt: skip
    assert seeds.find(queries, OVERLAP_GRAM, keys) == want and len(want) > 3
    # a code shared by two grams costs a comparison, not a wrong hit (each hit's gram is read
    # from its benchmark key: sentence 0 at 3, sentence 1 at 0)
    bench = ["xyz가나다라마바사아", "하하하하하하하하"]
    code = window_codes("하하하하하하하하", OVERLAP_GRAM)[0]
    clash = OverlapSeeds(grams=np.asarray(["가나다라마바사아", "하하하하하하하하"]),
                         codes=np.full(2, code, np.uint64), start=np.asarray([0, 1, 2]),
                         hits=np.asarray([0 << 20 | 3, 1 << 20 | 0]))  # fmt: skip
    assert clash.find(["xx하하하하하하하하"], OVERLAP_GRAM, bench) == [(0, 2, 1)]


def test_saved_tables_are_mapped_and_give_the_same_features(tmp_path):
    index, keys = _build()
    cfg = MatchConfig()
    near = cfg.short_chars
    built = Matcher(index, keys, cfg, near_chars=near)
    index.save(tmp_path)
    seeds = [(OVERLAP_GRAM, cfg.overlap_chars, cfg.overlap_share)]
    save_tables(str(tmp_path), index, keys, seeds, [near])
    tables = load_tables(str(tmp_path), cfg.overlap_chars, cfg.overlap_share, near)
    assert tables is not None and _mapped(tables["wkey"]) and _mapped(tables["seeds"].hits)
    assert tables["keys"] == keys and _mapped(tables["key_len"]) and near in tables["deletions"]
    loaded = Matcher(BM25Index.load(tmp_path), keys, cfg, tables=tables, near_chars=near)
    assert _mapped(loaded.index.weights.data) and _mapped(loaded._by_doc.indices)  # shared
    assert not _mapped(built.index.weights.data)  # (the check can fail)
    # the tables a worker no longer builds are the ones the matcher builds for itself
    assert loaded._deletions == built._deletions and loaded.exact == built.exact
    assert built._short_heads is None and loaded._short_heads is tables["heads"]
    built.near_copy_best([], cfg.short_chars)
    assert loaded._short_heads == built._short_heads and len(built._short_heads.docs) > 5
    toks = [tokenize(t) for t in TEXTS]
    a, b = built.features(toks, TEXTS), loaded.features(toks, TEXTS)
    assert a.keys() == b.keys()
    for k in a:
        assert np.array_equal(a[k], b[k]), k
    assert (a["exact"] >= 0).any() and (a["bm25_doc"] >= 0).any() and (a["overlap_doc"] >= 0).any()
    # other overlap thresholds have no saved seeds: the matcher then builds its own; another
    # reach has no saved deletions: the matcher builds those alone
    assert load_tables(str(tmp_path), 16, 0.7) is None
    assert load_tables(str(tmp_path), cfg.overlap_chars, cfg.overlap_share, 20)["deletions"] == {}
    # an older version's folder is rebuilt once, by the parent's prepare_tables
    (tmp_path / dedup.KEYS_FILE).write_text(json.dumps(keys, ensure_ascii=False))
    (tmp_path / TABLES_DIR / "version.txt").write_text(f"{TABLES_VERSION - 1}\n")
    assert load_tables(str(tmp_path), cfg.overlap_chars, cfg.overlap_share) is None
    dedup.prepare_tables(str(tmp_path), cfg.to_dict())
    again = load_tables(str(tmp_path), cfg.overlap_chars, cfg.overlap_share, near)
    assert again is not None and again["deletions"] == tables["deletions"]
    # the first pass's table from the saved short keys alone is the one from every key
    for most in (cfg.overlap_chars - 1, NEAR_MAX_CHARS):
        assert dedup.load_phrase_table(str(tmp_path), most) == short_key_table(keys, max_chars=most)


def test_exact_keeps_the_first_sentence_of_a_key_and_no_empty_key():
    bench = BENCH + ["정말, 재미없는 영화다!!", "!!", "네 감사합니다"]  # two repeated keys, one ""
    index = BM25Index.build([tokenize(s) for s in bench])
    keys = [match_key(s) for s in bench]
    want: dict[str, int] = {}
    for i, k in enumerate(keys):
        if k:
            want.setdefault(k, i)
    assert Matcher(index, keys).exact == want and len(want) == len(bench) - 3


def test_head_table_lists_each_short_key_under_its_head_in_index_order():
    keys = [match_key(s) for s in BENCH] + ["여야대표", "여야대표회동함", "여야", "여야대표" * 7]
    lengths = np.fromiter(map(len, keys), dtype=np.int64)
    want: dict[str, list[int]] = {}
    for d, k in enumerate(keys):
        if 4 <= len(k) <= NEAR_MAX_CHARS:
            want.setdefault(k[:SHORT_GRAM], []).append(d)
    table = HeadTable.build(keys, lengths)
    assert {h: table.get(h) for h in want} == want and len(want["여야대표"]) == 3
    assert table.get("없는머리") == [] and len(table.rows) == len(want)


def test_prepared_lookups_leave_nothing_for_the_first_batch():
    index, keys = _build()
    cfg = MatchConfig(quote_weight=1.0)
    m = Matcher(index, keys, cfg, near_chars=cfg.short_chars)
    counts = np.zeros(len(keys), dtype=np.int64)
    m.set_phrase_counts(counts, 2_000_000)  # a limit of 5: rare_quote on
    m.prepare_lookups()
    tables, heads = dict(m._tables), m._short_heads
    assert len(tables) == 2 and heads is not None
    m.match_texts(TEXTS)
    assert m._tables == tables and m._short_heads is heads


def test_strings_round_trip_with_newlines_and_wide_characters(tmp_path):
    for strings in ([], [""], ["\n"], ["가나", "", "a\nb", "끝😀"], ["하나", "둘", ""]):
        save_strings(tmp_path, "s", strings)
        got, lengths = load_strings(tmp_path, "s")
        assert got == strings and lengths.tolist() == [len(x) for x in strings]


def test_match_texts_equals_match_with_every_text_tokenised():
    index, keys = _build()
    for cfg in (MatchConfig(), MatchConfig(short_chars=20, containment_chars=10)):
        m = Matcher(index, keys, cfg, near_chars=cfg.short_chars)
        full = Matcher(index, keys, cfg).match([tokenize(t) for t in TEXTS], TEXTS)
        fast = m.match_texts(TEXTS)
        assert fast.signal == full.signal and np.array_equal(fast.doc, full.doc)
        assert np.array_equal(fast.score, full.score)
        assert {"exact", "near_exact", "near_copy", "overlap", "bm25"} <= set(full.signal)


def test_a_decision_matcher_refuses_calibration_features():
    index, keys = _build()
    m = Matcher(index, keys, MatchConfig(), near_chars=MatchConfig().short_chars)
    with pytest.raises(ValueError, match="all_features"):
        m.features([[]], ["가나다라"], all_features=True)
    with pytest.raises(ValueError, match="short_chars"):
        Matcher(index, keys, MatchConfig(short_chars=20), near_chars=12).match_texts(["가나다라"])
    assert Matcher(index, keys).near_chars == NEAR_MAX_CHARS


def test_doc_meta_columns_give_back_every_dict(tmp_path):
    docs = [{"guid": "a", "task": "ynat"}, {"guid": "b"}, {}, {"guid": "c", "task": "ynat"}]
    meta = DocMeta.from_dicts(docs)
    meta.save(str(tmp_path))
    again = DocMeta.load(str(tmp_path))
    assert again._path is not None and len(again) == 4  # the values not read yet
    assert list(again) == docs and again[-1] == docs[-1] and again[1:3] == docs[1:3]
    assert again._path is None and _mapped(again.codes[0])
    with pytest.raises(IndexError):
        again[4]
    fewer = [{"task": "ynat"}, {}, {"task": "nli"}]  # a column file of the first save stays
    DocMeta.from_dicts(fewer).save(str(tmp_path))
    assert list(DocMeta.load(str(tmp_path))) == fewer
    empty = tmp_path / "empty"
    DocMeta.from_dicts([{}, {}]).save(str(empty))
    assert list(DocMeta.load(str(empty))) == [{}, {}]


def test_overlap_seed_filter_keeps_every_seed_and_drops_most_other_codes():
    """`OverlapSeeds.find` searches ``codes`` only for windows its bitmap lets through: it
    must pass every seed's code (or a seed would be missed) and few others."""
    from corpus.match_tables import SEED_FILTER_BITS

    rng = np.random.default_rng(0)
    keys = ["".join(rng.choice(list("가나다라마바사아자차"), 20)) for _ in range(3000)]
    seeds = OverlapSeeds.build(keys, OVERLAP_GRAM, 12, 0.7)
    assert len(seeds.codes) > 5000 and seeds._may_hold(np.asarray(seeds.codes)).all()
    other = rng.integers(0, 2**63, 100_000, dtype=np.uint64)
    assert seeds._may_hold(other).mean() < 2 / SEED_FILTER_BITS
