"""The matcher's per-index tables, built once beside the index and memory-mapped by workers.

`corpus.matching.Matcher` reads, besides the BM25 index, tables that depend only on
the benchmark sentences (and for the overlap seeds on two thresholds): each benchmark
sentence's two rarest morphemes (containment candidates), the ``overlap`` seeds, the
pruning bounds of `corpus.bm25.BM25Index.best_above` and each sentence's BM25
self-weight. Built in every worker they cost 3-4 CPU seconds and about half a GB per
process (measured in docs/corpus.md). `save_tables` writes them as ``.npy`` files into
``<index>/tables/`` once (`corpus.dedup` does it in the parent, before the workers
start); `load_tables` maps them read-only, so the workers of a node share one copy in
the page cache and start in a fraction of a second. The overlap seeds are kept per
(``overlap_chars``, ``overlap_share``) in their own folder, since a non-default
configuration needs other seeds.

Nothing here changes a decision: the tables are the same numbers the matcher built
for itself before (tests/test_corpus_matching.py compares both, and `bench.dedup`'s
agreement check runs on the saved ones).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from corpus.bm25 import BM25Index
from corpus.index_files import load_arrays, save_arrays

TABLES_DIR = "tables"
#: Bump when a table's definition changes: older saved tables are then rebuilt.
TABLES_VERSION = 3
BOUNDS = ("level_self", "level_max", "doc_factor", "wkey", "by_doc_data", "by_doc_indices",
          "by_doc_indptr")  # fmt: skip
SIGNATURE = ("sig_indices", "sig_indptr", "doc_weight")
SEEDS = ("grams", "codes", "start", "hits")
#: Positions in a seed hit are the low 20 bits (``doc << 20 | position``).
POS_BITS = 20


def signatures(by_doc: sp.csr_matrix, idf: np.ndarray, per_doc: int) -> sp.csr_matrix:
    """(V, N) 0/1: each benchmark sentence under its `per_doc` highest-idf morphemes (ties:
    the first in the sentence's postings, as a stable sort gives)."""
    n_docs, n_terms = by_doc.shape
    counts = np.diff(by_doc.indptr)
    rows = np.repeat(np.arange(n_docs), counts)
    terms = by_doc.indices
    order = np.lexsort((np.arange(len(terms)), -idf[terms], rows))  # per document, rarest first
    rank = np.arange(len(order)) - np.repeat(by_doc.indptr[:-1], counts)
    keep = order[rank < per_doc]  # `order` keeps the documents contiguous and in order
    data = np.ones(len(keep))
    return sp.csr_matrix((data, (terms[keep], rows[keep])), shape=(n_terms, n_docs))


#: Odd 64-bit multipliers of a gram's code points: its `gram_codes` (any fixed choice works;
#: a collision only costs a string comparison).
_MULT = np.asarray([(0x9E3779B97F4A7C15 * (2 * j + 1) + j) % 2**64 | 1 for j in range(32)],
                   dtype=np.uint64)  # fmt: skip


def window_codes(text: str, gram: int) -> np.ndarray:
    """The 64-bit code of every `gram`-character window of `text`, in order (vectorised:
    ``sum_j ord(text[i + j]) * _MULT[j] mod 2**64``)."""
    cp = np.frombuffer(text.encode("utf-32-le"), dtype="<u4").astype(np.uint64)
    if len(cp) < gram:
        return np.zeros(0, dtype=np.uint64)
    win = np.lib.stride_tricks.sliding_window_view(cp, gram)
    with np.errstate(over="ignore"):
        return (win * _MULT[:gram]).sum(axis=1, dtype=np.uint64)


@dataclass
class OverlapSeeds:
    """`OVERLAP_GRAM`-grams of benchmark keys -> seed hits ``doc << 20 | position``.

    ``grams`` is sorted by (`window_codes` code, gram), ``codes`` their codes; the hits of
    ``grams[g]`` are ``hits[start[g]:start[g + 1]]``, in the order the sentences and
    positions were visited (document, then position). A corpus sentence's windows are
    looked up by code (integers: a sorted search, no string comparisons) and each code hit
    is confirmed on the gram itself."""

    grams: np.ndarray  # (G,) str
    codes: np.ndarray  # (G,) uint64, non-decreasing
    start: np.ndarray  # (G + 1,) int64
    hits: np.ndarray  # (H,) int64

    @classmethod
    def build(
        cls, keys: Sequence[str], gram: int, min_chars: int, min_share: float
    ) -> OverlapSeeds:
        """Every ``step``-th gram start of each key of `min_chars` or more characters,
        ``step = need - gram + 1`` with ``need = max(min_chars, ceil(min_share * m))``: a
        common substring of ``need`` characters holds ``step`` consecutive gram starts, so
        one of them is a seed (exact for the decision)."""
        table: dict[str, list[int]] = {}
        for d, k in enumerate(keys):
            m = len(k)
            if m < min_chars or m >= 1 << POS_BITS:
                continue
            need = max(min_chars, -int(-min_share * m // 1))
            for p in range(0, m - gram + 1, need - gram + 1):
                table.setdefault(k[p : p + gram], []).append(d << POS_BITS | p)
        names = list(table)
        codes = window_codes("".join(names), gram)[::gram] if names else np.zeros(0, np.uint64)
        order = sorted(range(len(names)), key=lambda i: (int(codes[i]), names[i]))
        grams = [names[i] for i in order]
        sizes = np.fromiter((len(table[g]) for g in grams), dtype=np.int64, count=len(grams))
        hits = [h for g in grams for h in table[g]]
        return cls(
            grams=np.asarray(grams, dtype=f"<U{gram}"),
            codes=codes[np.asarray(order, dtype=np.int64)],
            start=np.r_[0, np.cumsum(sizes)].astype(np.int64),
            hits=np.asarray(hits, dtype=np.int64),
        )

    def find(
        self, keys: Sequence[str], gram: int, bench_keys: Sequence[str]
    ) -> list[tuple[int, int, int]]:
        """(key row, position, seed row) of every `gram`-window of `keys` that is a seed, in
        order of row then position. A code hit is confirmed on the gram of its first seed
        hit, read from `bench_keys` (the keys the seeds were built from): the ``grams``
        table (8 MB for KLUE) is then never read by a worker, nor resident."""
        if not len(self.codes):
            return []
        rows = [r for r, k in enumerate(keys) if len(k) >= gram]
        if not rows:
            return []
        text = "".join(keys[r] for r in rows)
        lens = np.fromiter((len(keys[r]) for r in rows), dtype=np.int64, count=len(rows))
        first = np.r_[0, np.cumsum(lens)]
        codes = window_codes(text, gram)
        at = np.minimum(np.searchsorted(self.codes, codes), len(self.codes) - 1)
        cand = np.flatnonzero(self.codes[at] == codes)
        k = np.searchsorted(first, cand, side="right") - 1
        cand_ok = cand + gram <= first[k + 1]  # windows inside one key
        out = []
        start, hits, mask = self.start, self.hits, (1 << POS_BITS) - 1

        def gram_of(g: int) -> str:
            h = int(hits[start[g]])
            p = h & mask
            return bench_keys[h >> POS_BITS][p : p + gram]

        for w, kk in zip(cand[cand_ok].tolist(), k[cand_ok].tolist(), strict=True):
            g, piece = int(at[w]), text[w : w + gram]
            while g < len(self.codes) and self.codes[g] == codes[w] and gram_of(g) != piece:
                g += 1  # a code shared by another gram
            if g < len(self.codes) and self.codes[g] == codes[w]:
                out.append((rows[kk], w - int(first[kk]), g))
        return out

    def arrays(self) -> dict[str, np.ndarray]:
        return {"grams": self.grams, "codes": self.codes, "start": self.start, "hits": self.hits}


def seeds_dir(index_dir: str, min_chars: int, min_share: float) -> str:
    return os.path.join(index_dir, TABLES_DIR, f"seeds-{min_chars}-{min_share!r}")


def index_tables(index: BM25Index, keys: Sequence[str]) -> dict[str, np.ndarray]:
    """The tables that depend only on the index: bounds, signatures, self-weights."""
    bounds = index.bound_arrays()
    by_doc = index._by_doc
    sig = signatures(by_doc, index.idf, 2)
    doc_weight = np.add.reduceat(by_doc.data, by_doc.indptr[:-1]) if by_doc.nnz else None
    if doc_weight is not None:
        doc_weight[np.diff(by_doc.indptr) == 0] = 0.0  # reduceat repeats at an empty row
    else:
        doc_weight = np.zeros(index.num_docs)
    return {**bounds, "sig_indices": sig.indices, "sig_indptr": sig.indptr,
            "doc_weight": doc_weight}  # fmt: skip


def save_tables(
    index_dir: str, index: BM25Index, keys: Sequence[str], seed_configs: Sequence[tuple]
) -> None:
    """Writes `index_tables` and the overlap seeds of each (gram, min_chars, min_share) of
    `seed_configs` that is not saved yet into ``<index_dir>/tables/``."""
    root = os.path.join(index_dir, TABLES_DIR)
    if _version(root) != TABLES_VERSION:
        if os.path.isdir(root):
            shutil.rmtree(root)  # another version's tables, seeds included
        save_arrays(root, index_tables(index, keys), prefix="")
        with open(os.path.join(root, "version.txt.tmp"), "w", encoding="ascii") as fh:
            fh.write(f"{TABLES_VERSION}\n")
        os.replace(os.path.join(root, "version.txt.tmp"), os.path.join(root, "version.txt"))
    for gram, min_chars, min_share in seed_configs:
        folder = seeds_dir(index_dir, min_chars, min_share)
        if not os.path.exists(os.path.join(folder, "hits.npy")):
            seeds = OverlapSeeds.build(keys, gram, min_chars, min_share)
            save_arrays(folder, seeds.arrays(), prefix="")  # hits last: written means whole


def _version(root: str) -> int | None:
    try:
        with open(os.path.join(root, "version.txt"), encoding="ascii") as fh:
            return int(fh.read().strip())
    except (OSError, ValueError):
        return None


def load_tables(index_dir: str, min_chars: int, min_share: float) -> dict | None:
    """`save_tables`' tables for these overlap thresholds, memory-mapped; None when they
    are not all saved (or of another version): the matcher then builds its own."""
    root = os.path.join(index_dir, TABLES_DIR)
    if _version(root) != TABLES_VERSION:
        return None
    try:
        out = load_arrays(root, BOUNDS + SIGNATURE, prefix="")
        seeds = load_arrays(seeds_dir(index_dir, min_chars, min_share), SEEDS, prefix="")
    except FileNotFoundError:
        return None
    out["seeds"] = OverlapSeeds(**seeds)
    return out
