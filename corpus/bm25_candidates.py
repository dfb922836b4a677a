"""The candidate loop of `corpus.bm25.BM25Index.best_above`, compiled with Numba.

`best_above` decides, per query, which benchmark sentences could reach the BM25
threshold (bounds computed in NumPy for a whole chunk of queries) and scores the few
that can. The part left per candidate pair (about 3,000 pairs built per kowiki sentence
to keep about 40) was a chain of NumPy passes over every pair: a sparse product, a
bound, a sorted lookup per refinement step, an exact score by ``bincount``. Each pass
allocates arrays the size of all pairs; together they were 43-46% of a decontamination
worker's time (docs/corpus.md, "The worker"). Here one compiled loop per query visits
each posting once: it accumulates the prefix morphemes' part of the score in a dense
per-document array, drops pairs by the same first bound, and scores what is left
exactly, adding the same products in the same order as the NumPy code did (the
document's morphemes in index order), so similarities are bit-identical and decisions
are unchanged (tests/test_corpus_matching.py, `bench.dedup`'s agreement check).

Why Numba: the loop is data-dependent (postings of varying length, early exits) and
NumPy can only run it as passes over all pairs; Numba compiles the plain loop to
machine code with no build step (a wheel on PyPI for every platform the project
supports), and ``cache=True`` writes the machine code beside this file (or to
``$NUMBA_CACHE_DIR``), so a worker loads it instead of compiling: `warm_up`, called by
`corpus.dedup.load_matcher`, counts that load in the worker's start.
"""

from __future__ import annotations

import numba
import numpy as np

#: Relative slack on every upper bound: the bound and the exact score add the same terms
#: in different orders, so a pair exactly at its bound must not be dropped by rounding.
SLACK = 1e-9


@numba.njit(cache=True, nogil=True)
def _find(terms: np.ndarray, lo: int, hi: int, t: int) -> int:
    """Position of term `t` in the sorted ``terms[lo:hi]``, or -1."""
    a, b = lo, hi
    while a < b:
        mid = (a + b) >> 1
        if terms[mid] < t:
            a = mid + 1
        else:
            b = mid
    return a if a < hi and terms[a] == t else -1


@numba.njit(cache=True, nogil=True)
def _exact_score(d, qmap, bd_indptr, bd_indices, bd_data) -> float:
    """``bm25(q, d)``: document `d`'s morphemes in index order times their query counts
    (`qmap`: dense over the vocabulary, 0 off the query), the sum `best_above` always
    formed (a morpheme the query lacks adds 0.0, which changes no sum)."""
    s = 0.0
    for p in range(bd_indptr[d], bd_indptr[d + 1]):
        s += qmap[bd_indices[p]] * bd_data[p]
    return s


@numba.njit(cache=True, nogil=True)
def _weight(d, t, bd_indptr, bd_indices, bd_data) -> float:
    """``W[t, d]`` from document `d`'s sorted morphemes (0 when it lacks `t`)."""
    at = _find(bd_indices, bd_indptr[d], bd_indptr[d + 1], t)
    return bd_data[at] if at >= 0 else 0.0


#: Columns of the per-document scratch rows (`doc_rows`): one cache line serves a pair.
ACC, SELF, FACTOR = 0, 1, 2


def doc_rows(self_score: np.ndarray, doc_factor: np.ndarray) -> np.ndarray:
    """(N, 3) rows of (prefix score, ``self(d)``, ``g(d)``) for `best_candidates`. Built
    once per process (3.3 MB for KLUE): the loop reads the three together, and one row
    is one memory access where three arrays cost three (most of the loop's time was
    waiting for them)."""
    rows = np.zeros((len(self_score), 3))
    rows[:, SELF] = self_score
    rows[:, FACTOR] = doc_factor
    return rows


@numba.njit(cache=True, nogil=True)
def _accumulate(a, b, pfx, terms, qtf, ub, rest, need, w_indptr, w_indices, w_data, rows,
                seen, touched) -> int:  # fmt: skip
    """The prefix morphemes' part of the score, into ``rows[d, ACC]``, of every document
    on their postings that could still reach `need`; those are listed in `touched` (and
    set in the bit set `seen`); returns how many.

    The prefix morphemes (positions ``pfx[a:b]`` into `terms`) come rarest first; `rest`
    is the bound of all of them plus the suffix's. A document first met on morpheme ``k``
    scores at most its weight there plus the bounds of the morphemes after ``k``: below
    `need`, it cannot reach the threshold, and it is not listed (whether it was met
    before is one bit of `seen`, which stays in cache where the rows do not)."""
    n = 0
    for j in range(a, b):
        e = pfx[j]
        f, t = qtf[e], terms[e]
        rest -= ub[e]  # the bound of every morpheme after this one
        cut = need / (1.0 + SLACK) - rest
        for p in range(w_indptr[t], w_indptr[t + 1]):
            d = w_indices[p]
            v = f * w_data[p]
            word, bit = d >> 6, np.uint64(1) << np.uint64(d & 63)
            if seen[word] & bit:
                rows[d, ACC] += v
            elif v >= cut:
                seen[word] |= bit
                rows[d, ACC] = v
                touched[n] = d
                n += 1
    return n


@numba.njit(cache=True, nogil=True)
def best_candidates(
    q_indptr, terms, qtf, pfx, pfx_ptr, live, need, thr, min_self, s_q, suffix_ub,
    suffix_idf, sfx, sfx_ptr, ub, q_idf, w_indptr, w_indices, w_data, rows, bd_indptr,
    bd_indices, bd_data, best, best_sim,
):  # fmt: skip
    """Per live query ``r``: the best document with ``sim >= thr[r]`` written to ``best[r]``
    and ``best_sim[r]`` (ties: the lowest document); others are left as they are.

    Candidates are the documents on the postings of the query's prefix morphemes
    (positions ``pfx[pfx_ptr[r]:pfx_ptr[r + 1]]`` into `terms`, rarest first; ``w_*``: the
    (V, N) weights by term) that `_accumulate` keeps. A pair's bound is its prefix part plus the
    least of the remaining bound sum (``suffix_ub[r]``) and ``g(d)`` times the
    remaining ``qtf * idf`` (``suffix_idf[r]``); the suffix morphemes (positions
    ``sfx[sfx_ptr[r]:sfx_ptr[r + 1]]`` into `terms`, largest bound `ub` first) are added
    one at a time from the document's own weights (``bd_*``: (N, V) by document), and a
    pair is dropped as soon as its bound falls below ``need[r]`` or ``thr[r] * self(d)``
    (or ``self(d) < min_self[r]``). What is left is scored exactly and normalised by
    ``max(self(d), s_q[r])``. `rows`: `doc_rows` (its first column is scratch)."""
    touched = np.empty(len(rows), np.int64)
    seen = np.zeros(len(rows) // 64 + 1, np.uint64)
    qmap = np.zeros(len(w_indptr) - 1)
    for r in range(len(q_indptr) - 1):
        if not live[r]:
            continue
        lo, hi = q_indptr[r], q_indptr[r + 1]
        a, b = pfx_ptr[r], pfx_ptr[r + 1]
        rest = suffix_ub[r]
        for j in range(a, b):
            rest += ub[pfx[j]]
        n = _accumulate(a, b, pfx, terms, qtf, ub, rest, need[r], w_indptr, w_indices, w_data,
                        rows, seen, touched)  # fmt: skip
        for k in range(lo, hi):
            qmap[terms[k]] = qtf[k]
        bd, bs = -1, 0.0
        for i in range(n):
            d = touched[i]
            seen[d >> 6] = 0
            partial, sd, g = rows[d, ACC], rows[d, SELF], rows[d, FACTOR]
            if sd < min_self[r]:
                continue
            rem, rem_idf = suffix_ub[r], suffix_idf[r]
            j = sfx_ptr[r]
            while True:
                upper = (partial + min(rem, g * rem_idf)) * (1.0 + SLACK)
                if upper < need[r] or upper < thr[r] * sd or j == sfx_ptr[r + 1]:
                    break
                e = sfx[j]
                partial += qtf[e] * _weight(d, terms[e], bd_indptr, bd_indices, bd_data)
                rem -= ub[e]
                rem_idf -= q_idf[e]
                j += 1
            if upper < need[r] or upper < thr[r] * sd:
                continue
            sim = _exact_score(d, qmap, bd_indptr, bd_indices, bd_data) / max(sd, s_q[r])
            if sim >= thr[r] and (bd < 0 or sim > bs or (sim == bs and d < bd)):
                bd, bs = d, sim
        for k in range(lo, hi):
            qmap[terms[k]] = 0.0
        if bd >= 0:
            best[r] = bd
            best_sim[r] = bs
