"""BM25 scoring parity with rank_bm25, the fast best-match path, and threshold behaviour."""

from __future__ import annotations

import gzip
import json
import random

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from corpus.bm25 import BM25Index, tokenize
from corpus.datadir import resolve_data_dir

FIXTURE_TEXTS = [
    "서울시는 내년부터 모든 공공 도서관의 운영 시간을 밤 10시까지 늘리기로 했다.",
    "서울시가 공공 도서관 운영 시간을 밤 10시로 연장한다.",
    "이 숙소는 지하철역에서 걸어서 5분 거리라 위치가 정말 좋았습니다.",
    "숙소 위치가 역과 가까워서 좋았어요.",
    "정부는 미세먼지 저감을 위해 노후 경유차의 운행을 제한하는 방안을 검토하고 있다.",
    "노후 경유차 운행 제한이 검토되고 있다.",
    "주말마다 한강 공원에서 자전거를 타는 사람들이 크게 늘었다.",
    "회의실 예약은 하루 전까지 온라인으로 신청해야 합니다.",
]


def _real_klue_texts(n: int) -> list[str]:
    try:
        root = resolve_data_dir()
    except FileNotFoundError:
        pytest.skip("real data (../shared/data) not present")
    path = root / "klue" / "klue-re-v1.1" / "klue-re-v1.1_dev.json.gz"
    if not path.exists():
        pytest.skip(f"{path} not present")
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        data = json.load(fh)
    return [d["sentence"] for d in data[:n]]


def _check_parity(texts: list[str], queries: list[str], kind: str) -> None:
    docs = [tokenize(t, kind) for t in texts]
    ref = BM25Okapi(docs)  # k1=1.5, b=0.75, epsilon=0.25
    ours = BM25Index.build(docs, tokenizer=kind)
    assert np.allclose(ours.idf[[ours.vocab[t] for t in ref.idf]], list(ref.idf.values()))
    for q in queries:
        qt = tokenize(q, kind)
        np.testing.assert_allclose(ours.get_scores(qt), ref.get_scores(qt), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kind", ["morph", "eojeol", "char2"])
def test_parity_with_rank_bm25_on_fixture(kind):
    queries = FIXTURE_TEXTS[:3] + ["도서관 도서관 운영", "전혀 관계없는 문장", ""]
    _check_parity(FIXTURE_TEXTS, queries, kind)


def test_parity_with_rank_bm25_on_real_klue():
    texts = _real_klue_texts(400)
    # Queries: index members, edited members (repeated tokens), and unseen sentences.
    queries = texts[:10] + [t + " " + t[:20] for t in texts[10:15]] + _real_klue_texts(420)[400:]
    _check_parity(texts, queries, "morph")
    # Negative idf floor: a term in more than half the documents gets epsilon * mean idf.
    docs = [tokenize(t) for t in texts]
    ours = BM25Index.build(docs)
    ref = BM25Okapi(docs)
    floored = [t for t, v in ref.idf.items() if np.isclose(v, 0.25 * ref.average_idf)]
    assert floored, "expected some very common morphemes (idf floored to epsilon * average)"
    assert all(np.isclose(ours.idf[ours.vocab[t]], 0.25 * ref.average_idf) for t in floored)


def _full_best(index: BM25Index, queries, norm):
    q, lengths, oov = index.query_matrix(queries)
    return index._best(q, lengths, q @ index.weights, norm, oov)


def test_best_matches_fast_path_agrees_with_full_scoring_on_real_text():
    texts = _real_klue_texts(3000)
    index = BM25Index.build([tokenize(t) for t in texts])
    index.common_df = 20  # force a real common/rare split on this small index
    rng = random.Random(0)
    queries = [tokenize(t) for t in rng.sample(texts, 40)]
    queries += [tokenize(t[: len(t) // 2]) for t in rng.sample(texts, 40)]
    queries += [tokenize("그리고 그는 다음 날 다시 돌아왔다."), tokenize("감사합니다.")]
    fb, fs, fr = _full_best(index, queries, "max")
    b, s, r = index.best_matches(queries, norm="max")  # exact=True
    assert np.array_equal(b, fb)
    np.testing.assert_allclose(s, fs, rtol=1e-9)
    np.testing.assert_allclose(r, fr, rtol=1e-9)
    # Fast path: same decision at the threshold for every query.
    b2, s2, _ = index.best_matches(queries, norm="max", threshold=0.55, exact=False)
    assert np.array_equal(s2 >= 0.55, fs >= 0.55)


def test_threshold_behaviour_and_normalisation():
    index = BM25Index.build([tokenize(t) for t in FIXTURE_TEXTS])
    exact = tokenize(FIXTURE_TEXTS[0])
    edited = tokenize("서울시는 내년부터 모든 공공 도서관 운영 시간을 밤 10시까지 늘리기로 했어요")
    longer = tokenize(
        FIXTURE_TEXTS[6] + " 특히 젊은 층에서 인기가 많고 주말에는 자리가 부족하다고 한다."
    )
    unrelated = tokenize("고양이가 창가에서 낮잠을 잤다.")
    best, sim, raw = index.best_matches([exact, edited, longer, unrelated], norm="max")
    assert best[0] == 0 and sim[0] == pytest.approx(1.0)
    assert raw[0] == pytest.approx(index.self_score[0])
    assert best[1] == 0 and 0.55 <= sim[1] < 1.0
    assert best[2] == 6 and sim[2] >= 0.55  # added clause: still a copy
    assert sim[3] < 0.2
    # A short benchmark sentence inside a long unrelated one: high under "doc", low under "max".
    short = BM25Index.build([tokenize(t) for t in [*FIXTURE_TEXTS, "감사합니다."]])
    q = [
        tokenize("오늘 회의에 와 주셔서 정말 감사합니다. 다음 주 일정은 메일로 알려 드리겠습니다.")
    ]
    assert short.best_matches(q, norm="doc")[1][0] > 0.9
    assert short.best_matches(q, norm="max")[1][0] < 0.5
    with pytest.raises(ValueError):
        index.best_matches([exact], norm="cosine")


def test_save_load_roundtrip(tmp_path):
    index = BM25Index.build(
        [tokenize(t) for t in FIXTURE_TEXTS], meta=[{"guid": str(i)} for i in range(8)]
    )
    index.save(tmp_path)
    again = BM25Index.load(tmp_path)
    q = [tokenize(t) for t in FIXTURE_TEXTS]
    for a, b in zip(index.best_matches(q), again.best_matches(q), strict=True):
        np.testing.assert_array_equal(a, b)
    assert again.meta[3] == {"guid": "3"} and again.tokenizer == "morph"


def test_empty_index_is_an_error():
    with pytest.raises(ValueError):
        BM25Index.build([])


def _reference_query_matrix(index: BM25Index, queries: list[list[str]]):
    """Per query: dense term counts, length and OOV self-score part, token by token."""
    counts = np.zeros((len(queries), len(index.vocab)))
    oov = np.zeros(len(queries))
    idf0 = np.log((index.num_docs + 0.5) / 0.5)
    for r, toks in enumerate(queries):
        unknown: dict[str, int] = {}
        for t in toks:
            if t in index.vocab:
                counts[r, index.vocab[t]] += 1
            else:
                unknown[t] = unknown.get(t, 0) + 1
        norm = index.k1 * (1.0 - index.b + index.b * len(toks) / index.avgdl)
        for f in map(float, unknown.values()):  # first appearance first, as the sums add
            oov[r] += f * idf0 * f * (index.k1 + 1.0) / (f + norm)
    return counts, np.array([len(t) for t in queries], dtype=np.float64), oov


def test_query_matrix_counts_each_query_token_by_token():
    """The counts, lengths and OOV parts of `query_matrix` (one sort of the batch's
    known tokens) equal a token-by-token count, for repeated, unknown and empty queries,
    from a list or a generator; the matrix is canonical (sorted, summed)."""
    index = BM25Index.build([tokenize(t) for t in FIXTURE_TEXTS])
    rng = random.Random(3)
    words = list(index.vocab)[:40] + ["없는말", "또없는말", "zz"]
    queries = [tokenize(t) for t in FIXTURE_TEXTS] + [[], ["zz", "zz", "zz"], []]
    queries += [[rng.choice(words) for _ in range(rng.randrange(0, 25))] for _ in range(60)]
    ref_counts, ref_len, ref_oov = _reference_query_matrix(index, queries)
    for given in (queries, (q for q in queries)):
        q, lengths, oov = index.query_matrix(given)
        assert q.shape == ref_counts.shape and np.array_equal(q.toarray(), ref_counts)
        assert np.array_equal(lengths, ref_len) and np.array_equal(oov, ref_oov)
        assert q.has_sorted_indices and np.all(q.data > 0)
        summed = q.copy()
        summed.has_canonical_format = False
        summed.sum_duplicates()
        assert summed.nnz == q.nnz
    assert index.query_matrix([])[0].shape == (0, len(index.vocab))


def test_csr_product_equals_scipys_product(monkeypatch):
    """`csr_product` (SciPy's routine without its counting pass) returns the arrays of
    ``(q @ w).tocsr()`` bit for bit, empty products included, and so does its fallback."""
    import scipy.sparse as sp

    from corpus import sparse_rows

    routine = sparse_rows._CSR_MATMAT
    assert routine is not None  # (SciPy 1.17 here)
    rng = np.random.default_rng(7)
    w = sp.random(300, 900, density=0.02, format="csr", random_state=rng)
    w.indices, w.indptr = w.indices.astype(np.int32), w.indptr.astype(np.int32)
    for density in (0.0, 0.01, 0.05, 0.3):
        q = sp.random(70, 300, density=density, format="csr", random_state=rng)
        q.data = np.round(q.data * 4) + 1.0  # counts
        ref = (q @ w).tocsr()
        for fn in (routine, None):
            monkeypatch.setattr(sparse_rows, "_CSR_MATMAT", fn)
            indptr, indices, data = sparse_rows.csr_product(q.indptr, q.indices, q.data, w)
            assert np.array_equal(indptr, ref.indptr) and np.array_equal(indices, ref.indices)
            assert np.array_equal(data, ref.data) and indices.dtype == ref.indices.dtype
