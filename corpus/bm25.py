"""Okapi BM25 over scipy.sparse: the benchmark index and the vectorised scorer.

Scoring matches `rank_bm25.BM25Okapi` exactly (tested): with ``N`` documents, document
frequency ``n(t)``, term frequency ``f(t, d)``, document length ``|d|`` and mean length
``avgdl``,

    idf(t)      = ln(N - n(t) + 0.5) - ln(n(t) + 0.5)      (the ATIRE/Robertson form
                  rank_bm25 uses; negative values, for terms in more than half
                  the documents, are floored to epsilon * mean(idf), epsilon=0.25,
                  mean taken over every vocabulary term before flooring)
    score(q, d) = sum over query tokens t (with repetition) of
                  idf(t) * f(t,d) * (k1 + 1) / (f(t,d) + k1 * (1 - b + b * |d| / avgdl))

with k1 = 1.5 and b = 0.75. Tokens absent from the index score 0.

Vectorisation: the per-(term, document) weight ``idf * f * (k1+1) / (f + k1 * norm_d)`` does
not depend on the query, so it is precomputed once into a sparse term-by-document matrix
``W``. A batch of queries becomes a sparse count matrix ``Q`` (queries x terms) and all
scores are one sparse product ``Q @ W``; the best match per query is a row-wise max over the
non-zeros. No Python loop runs over documents or over query tokens.

Normalisation (chosen by measurement, see docs/corpus.md and `corpus.calibrate`):
``sim(q, d) = score(q, d) / max(self(q), self(d))`` where ``self(x)`` is the BM25 score of
``x`` against itself under the index's statistics. An exact copy scores 1; a sentence that
merely contains a short benchmark title scores low because its own self-score is large;
``doc`` (score / self(d)) and ``query`` (score / self(q)) are also available.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import repeat

import numpy as np
import scipy.sparse as sp

from corpus.index_files import DocMeta, load_arrays, save_arrays
from corpus.mecab_surfaces import mecab_surfaces
from corpus.normalize import NON_WORD
from corpus.sparse_rows import csr_product, row_argmax

NORMALISATIONS = ("max", "doc", "query", "raw")
#: Self-score levels of the per-term weight maxima that bound `BM25Index.best_above`.
BOUND_LEVELS = 32
TOKENIZERS = ("morph", "eojeol", "char2")
#: The arrays of a saved index (``bm25_<name>.npy``).
BM25_ARRAYS = ("idf", "data", "indices", "indptr", "shape", "doc_len", "self_score")


def tokenize(text: str, kind: str = "morph") -> list[str]:
    """Splits `text` into BM25 tokens.

    - ``morph``: Mecab-ko morphemes (surface forms): robust to spacing differences and to
      a changed particle (only the particle token changes).
    - ``eojeol``: whitespace-separated words: cheap, but one changed particle or space
      changes the whole word.
    - ``char2``: character bigrams of the text with spaces removed: robust to everything,
      but many more tokens per sentence (slower, denser index).

    ``morph`` and ``eojeol`` tokens without a letter or digit (punctuation, symbols, wiki
    markup such as ``[[``) are dropped: they carry no content, and repeated ones made
    wiki-markup lines about unrelated subjects score 0.77 against each other. Exact and
    verbatim copies are found by the ``exact`` and ``overlap`` signals (`corpus.matching`),
    not by BM25.
    """
    if kind == "morph":
        return [t for t in mecab_surfaces(text) if t.isalnum() or not NON_WORD.fullmatch(t)]
    if kind == "eojeol":
        return [t for t in text.split() if not NON_WORD.fullmatch(t)]
    if kind == "char2":
        s = "".join(text.split())
        return [s[i : i + 2] for i in range(len(s) - 1)] or ([s] if s else [])
    raise ValueError(f"unknown tokenizer {kind!r}; choose from {TOKENIZERS}")


@dataclass
class BM25Index:
    """A BM25 index over benchmark sentences, plus per-document metadata."""

    vocab: dict[str, int]
    idf: np.ndarray  # (V,) float64, floored as in rank_bm25
    weights: sp.csr_matrix  # (V, N) query-independent term weights
    doc_len: np.ndarray  # (N,)
    avgdl: float
    self_score: np.ndarray  # (N,) score(d, d)
    k1: float = 1.5
    b: float = 0.75
    epsilon: float = 0.25
    tokenizer: str = "morph"
    meta: list[dict] = field(default_factory=list)  # per document: guid, task, split, field, text
    common_df: int | None = None  # df above which a term is "common" (default max(64, N/128))
    #: Count tokens unknown to the index in a query's self-score (at the idf of df=0).
    #: Without it a sentence of unknown words plus ``는 말했다.`` is "a copy" of any
    #: benchmark sentence ending that way (seen in the real run, docs/corpus.md).
    oov_in_self_score: bool = True
    #: Weight of the query's self-score in the ``max`` denominator,
    #: ``max(self(d), alpha * self(q))``: 1 is the symmetric form; smaller values
    #: forgive a copy with an added clause. Chosen by `corpus.calibrate`.
    alpha: float = 1.0
    _rare_weights: sp.csr_matrix | None = field(default=None, repr=False)

    @property
    def num_docs(self) -> int:
        return int(self.weights.shape[1])

    # ------------------------------------------------------------------ build
    @classmethod
    def build(
        cls,
        docs: Sequence[Sequence[str]],
        *,
        k1: float = 1.5,
        b: float = 0.75,
        epsilon: float = 0.25,
        tokenizer: str = "morph",
        meta: list[dict] | None = None,
    ) -> BM25Index:
        """Indexes tokenised documents (same statistics as ``BM25Okapi(docs)``)."""
        if not docs:
            raise ValueError("cannot build a BM25 index over zero documents")
        vocab: dict[str, int] = {}
        rows: list[int] = []
        cols: list[int] = []
        for j, toks in enumerate(docs):
            for t in toks:
                rows.append(vocab.setdefault(t, len(vocab)))
                cols.append(j)
        n = len(docs)
        tf = sp.csr_matrix(
            (np.ones(len(rows), dtype=np.float64), (np.asarray(rows), np.asarray(cols))),
            shape=(len(vocab), n),
        )
        tf.sum_duplicates()
        doc_len = np.fromiter((len(d) for d in docs), dtype=np.float64, count=n)
        avgdl = float(doc_len.sum() / n)
        df = np.diff(tf.indptr).astype(np.float64)  # docs per term (rows are terms)
        idf = np.log(n - df + 0.5) - np.log(df + 0.5)
        average_idf = float(idf.sum() / len(idf)) if len(idf) else 0.0
        idf = np.where(idf < 0, epsilon * average_idf, idf)
        norm = k1 * (1.0 - b + b * doc_len / avgdl)
        w = tf.copy()
        f = w.data
        term_of = np.repeat(np.arange(len(vocab)), np.diff(w.indptr))
        w.data = idf[term_of] * f * (k1 + 1.0) / (f + norm[w.indices])
        self_score = np.asarray(tf.multiply(w).sum(axis=0)).ravel()
        return cls(
            vocab=vocab,
            idf=idf,
            weights=w.tocsr(),
            doc_len=doc_len,
            avgdl=avgdl,
            self_score=self_score,
            k1=k1,
            b=b,
            epsilon=epsilon,
            tokenizer=tokenizer,
            meta=list(meta) if meta is not None else [{} for _ in range(n)],
        )

    # ---------------------------------------------------------------- scoring
    def query_matrix(
        self, queries: Iterable[Sequence[str]]
    ) -> tuple[sp.csr_matrix, np.ndarray, np.ndarray]:
        """Token lists -> (sparse counts over the vocabulary, query lengths, OOV self-score).

        The last array is the part of each query's self-score due to tokens
        the index does not know, scored with the idf of a term of document
        frequency 0 (``ln((N + 0.5) / 0.5)``), used when `oov_in_self_score`
        is set (the default).

        Every token is looked up in one pass and the counts come from one sort of
        ``row * V + term`` (the canonical matrix `sum_duplicates` made before, with no
        per-token Python loop); unknown tokens are counted per query in the order
        they first appear, as before, so the OOV sums add in the same order.
        """
        queries = queries if isinstance(queries, list) else list(queries)
        n, v = len(queries), len(self.vocab)
        lengths = np.fromiter(map(len, queries), dtype=np.int64, count=n)
        flat = [t for toks in queries for t in toks]
        ids = np.fromiter(map(self.vocab.get, flat, repeat(-1)), dtype=np.int64, count=len(flat))
        rows = np.repeat(np.arange(n, dtype=np.int64), lengths)
        known = ids >= 0
        keys, counts = np.unique(rows[known] * v + ids[known], return_counts=True)
        indptr = np.searchsorted(keys, np.arange(n + 1, dtype=np.int64) * v)
        q = sp.csr_matrix((counts.astype(np.float64), keys % v, indptr), shape=(n, v))
        q.has_canonical_format = True  # sorted and summed by `np.unique`
        oov_rows: list[int] = []
        oov_tf: list[int] = []
        unknown: dict[tuple[int, str], int] = {}
        for p in np.flatnonzero(~known).tolist():
            k = (int(rows[p]), flat[p])
            unknown[k] = unknown.get(k, 0) + 1
        for (r, _), c in unknown.items():  # rows ascending, first appearance within a row
            oov_rows.append(r)
            oov_tf.append(c)
        lens = lengths.astype(np.float64)
        f = np.asarray(oov_tf, dtype=np.float64)
        rows = np.asarray(oov_rows, dtype=np.int64)
        idf0 = np.log((self.num_docs + 0.5) / 0.5)
        norm = self.k1 * (1.0 - self.b + self.b * lens[rows] / self.avgdl)
        contrib = f * idf0 * f * (self.k1 + 1.0) / (f + norm)
        oov_self = np.bincount(rows, weights=contrib, minlength=n)
        return q, lens, oov_self

    def score_matrix(self, queries: Iterable[Sequence[str]]) -> sp.csr_matrix:
        """Raw BM25 scores, queries x documents, as a sparse matrix (zeros omitted)."""
        q = self.query_matrix(queries)[0]
        return (q @ self.weights).tocsr()

    def get_scores(self, query: Sequence[str]) -> np.ndarray:
        """Dense raw scores of one query against every document (rank_bm25's get_scores)."""
        return self.score_matrix([query]).toarray().ravel()

    def query_self_scores(
        self, q: sp.csr_matrix, lengths: np.ndarray, oov_self: np.ndarray | None = None
    ) -> np.ndarray:
        """BM25 score of each query against itself as if it were a document of the index."""
        f = q.data
        rows = np.repeat(np.arange(q.shape[0]), np.diff(q.indptr))
        norm = self.k1 * (1.0 - self.b + self.b * lengths / self.avgdl)
        contrib = f * self.idf[q.indices] * f * (self.k1 + 1.0) / (f + norm[rows])
        out = np.bincount(rows, weights=contrib, minlength=q.shape[0])
        return out + oov_self if oov_self is not None and self.oov_in_self_score else out

    def _split_common(self) -> None:
        """Splits the vocabulary into common terms (df > `common_df`) and the rest, once."""
        if self._rare_weights is not None:
            return
        df = np.diff(self.weights.indptr)
        limit = self.common_df if self.common_df is not None else max(64, self.num_docs // 128)
        common = df > limit
        keep_rare = sp.diags((~common).astype(np.float64))
        self._rare_weights = (keep_rare @ self.weights).tocsr()
        self._rare_weights.eliminate_zeros()
        self._common_ids = np.flatnonzero(common)
        self._common_pos = np.full(len(df), -1, dtype=np.int64)
        self._common_pos[self._common_ids] = np.arange(len(self._common_ids))
        # Documents x common terms, for exact per-pair lookups of the common part.
        self._common_by_doc = self.weights[self._common_ids].T.tocsr()
        self._common_max = np.asarray(self.weights[self._common_ids].max(axis=1).todense()).ravel()
        self._common_weight = np.asarray(self._common_by_doc.sum(axis=1)).ravel()

    def best_matches(
        self,
        queries: Sequence[Sequence[str]],
        norm: str = "max",
        threshold: float | None = None,
        exact: bool = True,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For each query: (best document index or -1, normalised similarity, raw score).

        The best document is the one with the highest *normalised* similarity
        (ties: lowest index). With `threshold`, the answer is exact for every
        query whose best similarity reaches it, and a reported similarity below
        `threshold` means the true one is below it too (enough to decide
        removal; much faster). Without it every answer is exact. For ``max``
        and ``query`` normalisation the result is computed in two steps, because a full ``Q @ W`` is
        slow when queries share very common morphemes (particles, ``다``, ``.``)
        with most of the index:

        1. candidates = documents sharing at least one non-common term with the
           query (sparse product over the rare part of ``W``), with their exact
           score (rare part + common part looked up per pair);
        2. any other document can only score through common terms, at most
           ``sum qtf * max W[t, :]`` over the query's common terms; when that
           bound, normalised by the query's self-score (a lower bound of the
           denominator), could beat the best candidate, the query is rescored
           against the full index.

        With ``exact=False`` step 2 only rescues queries that have no candidate
        at all (sentences made only of common morphemes, e.g. ``감사합니다.``):
        a benchmark sentence sharing no uncommon morpheme with the query is
        not looked at. `corpus.calibrate` measures how often that changes a
        removal decision (it is the fast path `corpus.dedup` uses by default).
        """
        if norm not in NORMALISATIONS:
            raise ValueError(f"unknown normalisation {norm!r}; choose from {NORMALISATIONS}")
        q, lengths, oov = self.query_matrix(queries)
        if norm not in ("max", "query") and exact:
            return self._best(q, lengths, q @ self.weights, norm, oov)
        self._split_common()
        cand = (q @ self._rare_weights).tocsr()
        cand.sum_duplicates()
        nq = q.shape[0]
        pair_rows = np.repeat(np.arange(nq), np.diff(cand.indptr))
        qc = q[:, self._common_ids].toarray()  # (nq, |C|) query counts of common terms
        if threshold is not None and norm == "max" and cand.nnz:
            # Drop pairs that cannot reach the threshold before the costly common-term
            # lookups: the common part is at most min(sum qtf * max W[t, :] over the query's
            # common terms, max common qtf * the document's common weight).
            q_bound = qc @ self._common_max
            qtf_max = qc.max(axis=1) if qc.shape[1] else np.zeros(nq)
            upper = cand.data + np.minimum(
                q_bound[pair_rows], qtf_max[pair_rows] * self._common_weight[cand.indices]
            )
            self_q0 = self.query_self_scores(q, lengths, oov) * self.alpha
            denom = np.maximum(self.self_score[cand.indices], self_q0[pair_rows])
            keep = upper >= threshold * denom
            if not keep.all():
                cand = sp.csr_matrix(
                    (cand.data[keep], cand.indices[keep], np.r_[0, np.cumsum(
                        np.bincount(pair_rows[keep], minlength=nq))]),
                    shape=cand.shape,
                )  # fmt: skip
                pair_rows = pair_rows[keep]
        # Exact common-term part of each candidate pair.
        sub = self._common_by_doc[cand.indices]
        per_pair = np.repeat(np.arange(len(cand.indices)), np.diff(sub.indptr))
        vals = sub.data * qc[pair_rows[per_pair], sub.indices]
        cand.data = cand.data + np.bincount(per_pair, weights=vals, minlength=len(cand.data))
        best, best_sim, best_raw = self._best(q, lengths, cand, norm, oov)
        if norm not in ("max", "query"):  # no useful bound: candidates only (exact=False)
            return best, best_sim, best_raw
        bound = qc @ self._common_max
        self_q = self.query_self_scores(q, lengths, oov) * (self.alpha if norm == "max" else 1.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            bound_sim = np.where(self_q > 0, bound / np.where(self_q > 0, self_q, 1.0), 0.0)
        need = (bound > 0) & (bound_sim >= best_sim)
        if not exact:
            need &= best < 0
        if threshold is not None:
            need &= bound_sim >= threshold
        redo = np.flatnonzero(need)
        if len(redo):
            sub_q = q[redo]
            b2, s2, r2 = self._best(sub_q, lengths[redo], sub_q @ self.weights, norm, oov[redo])
            best[redo], best_sim[redo], best_raw[redo] = b2, s2, r2
        return best, best_sim, best_raw

    def prepare_bounds(self) -> None:
        """Per-term maxima of ``W`` over documents of large self-score (`best_above`), once.

        Documents are cut at `BOUND_LEVELS` quantiles of their self-score;
        ``_level_max[t, k]`` is the largest ``W[t, d]`` over documents whose
        self-score is at least ``_level_self[k]`` (as float32, rounded up). Long
        benchmark sentences have small weights for common morphemes, so for a long
        query (which can only match long sentences) the bounds are tight.
        """
        if getattr(self, "_level_max", None) is not None:
            return
        by_doc = self.weights.T.tocsr()  # (N, V)
        order = np.argsort(-self.self_score, kind="stable")
        cuts = np.unique(np.linspace(0, self.num_docs, BOUND_LEVELS + 1).astype(np.int64)[1:] - 1)
        level_self, cols, running = [], [], np.zeros(by_doc.shape[1])
        start = 0
        for c in cuts:
            block = by_doc[order[start : c + 1]]
            if block.nnz:
                running = np.maximum(running, block.max(axis=0).toarray().ravel())
            level_self.append(self.self_score[order[c]])
            cols.append(running.copy())
            start = c + 1
        self._level_self = np.asarray(level_self)  # decreasing
        # (V, levels), increasing along levels; float32 rounded up (still upper bounds, so no
        # decision changes): half the resident memory of the table a worker reads most widely
        level_max = np.stack(cols, axis=1)
        up = level_max.astype(np.float32)
        self._level_max = np.where(up < level_max, np.nextafter(up, np.float32(np.inf)), up)
        self._by_doc = by_doc
        self._df = np.diff(self.weights.indptr)
        # W[t, d] = idf(t) * (k1 + 1) * tf / (tf + norm(d)) <= idf(t) * g(d): one factor per
        # document (small for long ones), a per-pair bound on unseen terms' weights
        # The bounds assume non-negative weights: a tiny index whose floored idfs are not all
        # positive (mean idf <= 0) is scored exhaustively by `best_above` instead.
        self._prunable = bool((self.idf > 0).all())
        idf = self.idf[by_doc.indices]
        ratio = np.divide(by_doc.data, idf, out=np.zeros_like(by_doc.data), where=idf > 0)
        self._doc_factor = np.zeros(self.num_docs)
        np.maximum.at(self._doc_factor, np.repeat(np.arange(self.num_docs), np.diff(by_doc.indptr)),
                      ratio)  # fmt: skip
        self.weights.sort_indices()
        term_of = np.repeat(np.arange(self.weights.shape[0], dtype=np.int64), self._df)
        self._wkey = term_of * self.num_docs + self.weights.indices  # sorted: (term, doc)

    def best_above(
        self,
        queries: Sequence[Sequence[str]] | None,
        threshold: float | np.ndarray,
        matrix: tuple[sp.csr_matrix, np.ndarray, np.ndarray] | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Best document by ``max`` similarity for each query whose best reaches `threshold`.

        Returns (document or -1, similarity). Exact for the decision: every query with a
        document at ``sim >= threshold`` gets its best document and exact similarity (ties:
        lowest index); every other query gets -1 and 0. A per-query `threshold` of ``inf``
        skips that query. Three bounds prune before any score is computed
        (``S = alpha * self(q)``, ``need = threshold * S``):

        - length: ``bm25(q, d) <= max qtf * self(d)``, so documents with ``self(d) < need /
          max qtf`` cannot reach the threshold;
        - prefix: a document sharing none of the query's rarest morphemes scores at most the
          sum of ``qtf * max W[t, :]`` (over eligible documents) of its other morphemes; the
          rare "prefix" is taken just long enough for that sum to stay below ``need``, and
          only documents on the prefix morphemes' postings are candidates;
        - the other morphemes' exact parts are added one at a time (largest bound first),
          dropping pairs that can no longer reach the threshold, and the few pairs left are
          scored exactly.

        `matrix` is `query_matrix(queries)` when the caller already has it.
        """
        self.prepare_bounds()
        q, lengths, oov = matrix if matrix is not None else self.query_matrix(queries)
        nq = q.shape[0]
        thr = np.broadcast_to(np.asarray(threshold, dtype=np.float64), (nq,))
        best = np.full(nq, -1, dtype=np.int64)
        best_sim = np.zeros(nq)
        s_q = self.query_self_scores(q, lengths, oov) * self.alpha
        rows = np.repeat(np.arange(nq), np.diff(q.indptr))
        qtf_max = np.zeros(nq)
        np.maximum.at(qtf_max, rows, q.data)
        live = np.isfinite(thr) & (qtf_max > 0) & (s_q > 0)
        if not live.any():
            return best, best_sim
        if not self._prunable:
            b, sim, _ = self._best(q, lengths, q @ self.weights, "max", oov)
            hit = live & (sim >= np.where(live, thr, 0.0)) & (b >= 0)
            best[hit], best_sim[hit] = b[hit], sim[hit]
            return best, best_sim
        need = np.full(nq, np.inf)
        need[live] = thr[live] * s_q[live]
        # bm25(q, d) <= self(d) + sum over repeated query terms of (qtf - 1) * max W[t, :]
        # (each shared term adds at most its own self-score part once), and <= max qtf * self(d)
        extra = np.bincount(
            rows, weights=(q.data - 1.0) * self._level_max[q.indices, -1], minlength=nq
        )
        min_self = np.maximum(need / np.maximum(qtf_max, 1e-12), need - extra)
        # bound level per query: the smallest set of documents holding every eligible one
        # (strictly below min_self, so that documents tied at a cut are inside the level)
        level = np.searchsorted(-self._level_self, -min_self, side="right")
        level = np.minimum(level, len(self._level_self) - 1)
        terms, qtf = q.indices, q.data
        ub = qtf * self._level_max[terms, level[rows]]
        # per query, most common terms first; the suffix of common terms whose bounds
        # sum below `need` is not needed for candidates
        order = np.lexsort((-self._df[terms], rows))
        cum = np.cumsum(ub[order])
        row_start = np.r_[0, np.cumsum(np.bincount(rows, minlength=nq))][:-1]
        offset = np.r_[0, cum][row_start[rows[order]]]
        in_suffix = (cum - offset) < need[rows[order]]
        prefix = np.zeros(len(terms), dtype=bool)
        prefix[order] = ~in_suffix
        prefix &= live[rows]
        # the exact prefix part of each candidate's score: (prefix counts) @ weights
        qp_indptr = np.r_[0, np.cumsum(np.bincount(rows[prefix], minlength=nq))]
        c_indptr, pd, c_data = csr_product(qp_indptr, terms[prefix], qtf[prefix], self.weights)
        per_row = np.diff(c_indptr)
        # the suffix adds at most its bound sum; the pair also needs thr * self(d)
        suffix_ub = np.bincount(rows, weights=np.where(prefix, 0.0, ub), minlength=nq)
        q_idf = qtf * self.idf[terms]
        suffix_idf = np.bincount(rows, weights=np.where(prefix, 0.0, q_idf), minlength=nq)
        # `upper >= need` drops most (98%) of the pairs: first over every pair, then the
        # length bound and `upper >= thr * self(d)` only on those left (the refine loop's
        # first check then keeps all that are left)
        # (in place: one array of the pairs' size instead of five; the same operations, so
        # the same bits; the kept pairs' rows found in `c_indptr`, the rest per row;
        # `np.take` gathers about 1.5x faster than indexing with the int32 `pd`)
        factor = np.take(self._doc_factor, pd)
        upper = np.repeat(suffix_idf, per_row)
        upper *= factor
        np.minimum(np.repeat(suffix_ub, per_row), upper, out=upper)
        upper += c_data
        upper *= 1.0 + 1e-9
        ok = np.flatnonzero(upper >= np.repeat(need, per_row))
        pr = np.searchsorted(c_indptr, ok, side="right") - 1
        pd, partial, factor = pd[ok], c_data[ok], factor[ok]
        rem, rem_idf = suffix_ub[pr], suffix_idf[pr]
        self_d = self.self_score[pd]
        thr_self = thr[pr] * self_d
        ok = np.flatnonzero((self_d >= min_self[pr]) & (upper[ok] >= thr_self))
        pr, pd, partial, rem = pr[ok], pd[ok], partial[ok], rem[ok]
        rem_idf, factor = rem_idf[ok], factor[ok]
        # what each pair's bound must reach: `need` and `thr * self(d)` (one array, kept
        # along with the pairs instead of gathered again at each step)
        floor = np.maximum(need[pr], thr_self[ok])
        # refine: add the suffix terms' exact parts one at a time (largest bound first),
        # dropping pairs whose bound falls below what they need, until few are left
        suffix = np.flatnonzero(~prefix & live[rows])
        suffix = suffix[np.lexsort((-ub[suffix], rows[suffix]))]
        counts = np.bincount(rows[suffix], minlength=nq)
        width = int(counts.max()) if len(suffix) else 0
        table = np.full((nq, max(width, 1)), -1, dtype=np.int64)
        rank = np.arange(len(suffix)) - np.repeat(np.cumsum(counts) - counts, counts)
        table[rows[suffix], rank] = suffix
        n_docs, wkey, wdata = self.num_docs, self._wkey, self.weights.data
        for k in range(width + 1):
            upper = (partial + np.minimum(rem, factor * rem_idf)) * (1.0 + 1e-9)
            ok = upper >= floor
            pr, pd, partial, rem = pr[ok], pd[ok], partial[ok], rem[ok]
            rem_idf, factor, floor = rem_idf[ok], factor[ok], floor[ok]
            if k == width or len(pr) <= nq:
                break
            e = table[pr, k]
            sel = np.flatnonzero(e >= 0)
            if len(sel) == 0:
                break
            e = e[sel]
            key = terms[e].astype(np.int64) * n_docs + pd[sel]
            at = np.minimum(np.searchsorted(wkey, key), len(wkey) - 1)
            partial[sel] += np.where(wkey[at] == key, qtf[e] * wdata[at], 0.0)
            rem[sel] -= ub[e]
            rem_idf[sel] -= q_idf[e]
        if len(pr) == 0:
            return best, best_sim
        # exact scores: the terms of each candidate document, looked up in its query
        v = q.shape[1]
        qkey = rows.astype(np.int64) * v + terms
        starts = self._by_doc.indptr[pd]
        sizes = self._by_doc.indptr[pd + 1] - starts
        per_pair = np.repeat(np.arange(len(pd)), sizes)
        pos = np.arange(len(per_pair)) + np.repeat(starts - (np.cumsum(sizes) - sizes), sizes)
        dkey = pr[per_pair] * v + self._by_doc.indices[pos]
        at = np.minimum(np.searchsorted(qkey, dkey), len(qkey) - 1)
        hit = qkey[at] == dkey
        contrib = np.where(hit, qtf[at] * self._by_doc.data[pos], 0.0)
        score = np.bincount(per_pair, weights=contrib, minlength=len(pd))
        sim = score / np.maximum(self.self_score[pd], s_q[pr])
        keep = sim >= thr[pr]
        if keep.any():
            row_argmax(pr[keep], pd[keep], sim[keep], best, best_sim)
        return best, best_sim

    def _best(
        self,
        q: sp.csr_matrix,
        lengths: np.ndarray,
        scores: sp.spmatrix,
        norm: str,
        oov: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        s = scores.tocsr()
        s.sum_duplicates()
        nq = s.shape[0]
        rows = np.repeat(np.arange(nq), np.diff(s.indptr))
        raw = s.data
        if norm == "raw":
            sim = raw
        else:
            denom = None
            if norm in ("doc", "max"):
                denom = self.self_score[s.indices]
            if norm in ("query", "max"):
                sq = self.query_self_scores(q, lengths, oov)[rows]
                if norm == "max":
                    sq = sq * self.alpha
                denom = sq if denom is None else np.maximum(denom, sq)
            with np.errstate(divide="ignore", invalid="ignore"):
                sim = np.where(denom > 0, raw / np.where(denom > 0, denom, 1.0), 0.0)
        best = np.full(nq, -1, dtype=np.int64)
        best_sim = np.zeros(nq)
        best_raw = np.zeros(nq)
        keep = raw > 0
        if not keep.all():
            rows, sim, raw, cols = rows[keep], sim[keep], raw[keep], s.indices[keep]
        else:
            cols = s.indices
        if len(sim):
            # Row-wise argmax over the non-zeros in O(nnz): rows are contiguous,
            # so reduceat gives each row's max; ties go to the lowest document.
            starts = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]])
            r = rows[starts]
            row_max = np.maximum.reduceat(sim, starts)
            seg = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, len(sim)]))
            big = np.iinfo(np.int64).max
            cand_col = np.where(sim == row_max[seg], cols.astype(np.int64), big)
            best_col = np.minimum.reduceat(cand_col, starts)
            pos = np.flatnonzero((sim == row_max[seg]) & (cols == best_col[seg]))
            pos = pos[np.r_[True, seg[pos][1:] != seg[pos][:-1]]]
            best[r] = best_col
            best_sim[r] = sim[pos]
            best_raw[r] = raw[pos]
        return best, best_sim, best_raw

    def bound_arrays(self) -> dict[str, np.ndarray]:
        """The tables of `prepare_bounds` as arrays, to save beside the index (`set_bounds`
        loads them memory-mapped: every worker of a node shares one copy)."""
        self.prepare_bounds()
        return {
            "level_self": self._level_self,
            "level_max": self._level_max,
            "doc_factor": self._doc_factor,
            "wkey": self._wkey,
            "by_doc_data": self._by_doc.data,
            "by_doc_indices": self._by_doc.indices,
            "by_doc_indptr": self._by_doc.indptr,
        }

    def set_bounds(self, arrays: dict[str, np.ndarray]) -> None:
        """Installs `bound_arrays` (saved by an earlier `prepare_bounds` of this index)."""
        self._level_self = arrays["level_self"]
        self._level_max = arrays["level_max"]
        self._doc_factor = arrays["doc_factor"]
        self._wkey = arrays["wkey"]
        self._by_doc = sp.csr_matrix(
            (arrays["by_doc_data"], arrays["by_doc_indices"], arrays["by_doc_indptr"]),
            shape=(self.num_docs, self.weights.shape[0]),
        )
        self._df = np.diff(self.weights.indptr)
        self._prunable = bool((self.idf > 0).all())

    # ------------------------------------------------------------- persistence
    def save(self, directory: str | os.PathLike) -> None:
        """Writes the arrays (``bm25_<name>.npy``, memory-mappable) and ``bm25_meta.json``
        to `directory`, each file atomically."""
        os.makedirs(directory, exist_ok=True)
        w = self.weights
        w.sort_indices()  # `best_above` needs sorted postings; a mapped copy cannot be sorted
        arrays = {
            "idf": self.idf,
            "data": w.data,
            "indices": w.indices,
            "indptr": w.indptr,
            "shape": np.asarray(w.shape),
            "doc_len": self.doc_len,
            "self_score": self.self_score,
        }
        save_arrays(directory, arrays, prefix="bm25_")
        meta_path = os.path.join(directory, "bm25_meta.json")
        terms = [None] * len(self.vocab)
        for t, i in self.vocab.items():
            terms[i] = t
        info = {
            "k1": self.k1,
            "b": self.b,
            "epsilon": self.epsilon,
            "avgdl": self.avgdl,
            "tokenizer": self.tokenizer,
            "terms": terms,
        }
        meta = self.meta if isinstance(self.meta, DocMeta) else DocMeta.from_dicts(self.meta)
        meta.save(str(directory))
        with open(meta_path + ".tmp", "w", encoding="utf-8") as fh:
            json.dump(info, fh, ensure_ascii=False)
        os.replace(meta_path + ".tmp", meta_path)

    @classmethod
    def load(cls, directory: str | os.PathLike) -> BM25Index:
        """The index `save` wrote, its arrays memory-mapped read-only (shared between the
        processes of a node, nothing copied)."""
        arrays = load_arrays(directory, BM25_ARRAYS, prefix="bm25_")
        with open(os.path.join(directory, "bm25_meta.json"), encoding="utf-8") as fh:
            info = json.load(fh)
        weights = sp.csr_matrix(
            (arrays["data"], arrays["indices"], arrays["indptr"]), shape=tuple(arrays["shape"])
        )
        return cls(
            vocab=dict(zip(info["terms"], range(len(info["terms"])), strict=True)),
            idf=arrays["idf"],
            weights=weights,
            doc_len=arrays["doc_len"],
            avgdl=info["avgdl"],
            self_score=arrays["self_score"],
            k1=info["k1"],
            b=info["b"],
            epsilon=info["epsilon"],
            tokenizer=info["tokenizer"],
            meta=DocMeta.load(str(directory)),  # type: ignore[arg-type]
        )
