"""The matcher's per-index tables, built once beside the index and memory-mapped by workers.

`corpus.matching.Matcher` reads, besides the BM25 index, tables that depend only on
the benchmark sentences (and for the overlap seeds on two thresholds): each benchmark
sentence's two rarest morphemes (containment candidates), the ``overlap`` seeds, the
pruning bounds of `corpus.bm25.BM25Index.best_above`, each sentence's BM25
self-weight, the keys themselves with their lengths, the ``near_copy`` candidates by
their first characters (`HeadTable`) and the ``near_exact`` one-character deletions
(`deletion_table`). Built in every worker they cost 3-4 CPU seconds and about half a
GB per process (measured in docs/corpus.md). `save_tables` writes them as ``.npy`` (and
for strings ``.txt``) files into ``<index>/tables/`` once (`corpus.dedup` does it in the
parent, before the workers start); `load_tables` maps them read-only, so the workers of
a node share one copy in the page cache and start in a fraction of a second (the two
string tables become dictionaries again, by C-level ``dict(zip(...))``). The overlap
seeds are kept per (``overlap_chars``, ``overlap_share``) in their own folder, and the
deletions per reach (``short_chars``), since a non-default configuration needs others.

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
from corpus.index_files import load_arrays, load_strings, save_arrays, save_strings
from corpus.quotes import NEAR_MAX_CHARS, NEAR_MIN_CHARS, QUOTE_MIN_CHARS, SHORT_GRAM

TABLES_DIR = "tables"
#: Bump when a table's definition changes: older saved tables are then rebuilt.
TABLES_VERSION = 4
BOUNDS = ("level_self", "level_max", "doc_factor", "wkey", "by_doc_data", "by_doc_indices",
          "by_doc_indptr")  # fmt: skip
SIGNATURE = ("sig_indices", "sig_indptr", "doc_weight")
SEEDS = ("grams", "codes", "start", "hits")
HEADS = ("head_start", "head_docs")
#: Positions in a seed hit are the low 20 bits (``doc << 20 | position``).
POS_BITS = 20
#: Bits per overlap seed code in the bitmap that `OverlapSeeds.find` asks before the
#: sorted search of ``codes`` (a window that is no seed passes it with odds 1 in this).
SEED_FILTER_BITS = 32


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

    def __post_init__(self) -> None:
        """`_may_hold`'s bitmap: `SEED_FILTER_BITS` bits per code, one set per code (1 MB
        for KLUE's 249,346 codes, built in 5 ms, so not saved). Derived from ``codes``
        here: the arrays are not changed after."""
        size = max(1 << 10, 1 << (SEED_FILTER_BITS * len(self.codes)).bit_length())
        self._shift = np.uint64(64 - (size.bit_length() - 1))
        bits = np.zeros(size, dtype=bool)
        bits[self._slot(np.asarray(self.codes))] = True
        self._bits = np.packbits(bits, bitorder="little")

    def _slot(self, codes: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore"):
            return (codes * np.uint64(0x9E3779B97F4A7C15)) >> self._shift

    def _may_hold(self, codes: np.ndarray) -> np.ndarray:
        """Per code, False where it is surely not in ``codes`` (True for one in about
        `SEED_FILTER_BITS` of the others)."""
        slot = self._slot(codes)
        return (self._bits[slot >> np.uint64(3)] >> (slot & np.uint64(7)).astype(np.uint8)) & 1 > 0

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
        cand = np.flatnonzero(self._may_hold(codes))  # the sorted search only for these
        at = np.minimum(np.searchsorted(self.codes, codes[cand]), len(self.codes) - 1)
        found = self.codes[at] == codes[cand]
        cand, at = cand[found], at[found]
        k = np.searchsorted(first, cand, side="right") - 1
        cand_ok = cand + gram <= first[k + 1]  # windows inside one key
        out = []
        start, hits, mask = self.start, self.hits, (1 << POS_BITS) - 1

        def gram_of(g: int) -> str:
            h = int(hits[start[g]])
            p = h & mask
            return bench_keys[h >> POS_BITS][p : p + gram]

        pairs = zip(cand[cand_ok].tolist(), k[cand_ok].tolist(), at[cand_ok].tolist(), strict=True)
        for w, kk, g in pairs:
            piece = text[w : w + gram]
            while g < len(self.codes) and self.codes[g] == codes[w] and gram_of(g) != piece:
                g += 1  # a code shared by another gram
            if g < len(self.codes) and self.codes[g] == codes[w]:
                out.append((rows[kk], w - int(first[kk]), g))
        return out

    def arrays(self) -> dict[str, np.ndarray]:
        return {"grams": self.grams, "codes": self.codes, "start": self.start, "hits": self.hits}


@dataclass
class HeadTable:
    """``near_copy``'s candidates: every benchmark key of `NEAR_MIN_CHARS` to
    `NEAR_MAX_CHARS` characters under its first `SHORT_GRAM` characters, in index order
    (the first of equal shares wins). The keys under head ``h`` are the sentences
    ``docs[start[rows[h]]:start[rows[h] + 1]]``: one dictionary of ints and two lists
    load in milliseconds, where 48,738 lists (or tuples) took a worker 0.05-0.1 CPU s."""

    rows: dict[str, int]
    start: list[int]
    docs: list[int]

    @classmethod
    def build(cls, keys: Sequence[str], lengths: np.ndarray) -> HeadTable:
        table: dict[str, list[int]] = {}
        near = (lengths >= NEAR_MIN_CHARS) & (lengths <= NEAR_MAX_CHARS)
        for d in np.flatnonzero(near).tolist():
            table.setdefault(keys[d][:SHORT_GRAM], []).append(d)
        start = np.r_[0, np.cumsum([len(v) for v in table.values()], dtype=np.int64)]
        docs = [d for v in table.values() for d in v]
        return cls(dict(zip(table, range(len(table)), strict=True)), start.tolist(), docs)

    def get(self, head: str) -> list[int]:
        """The sentences under `head`, in index order (none: empty)."""
        h = self.rows.get(head)
        return [] if h is None else self.docs[self.start[h] : self.start[h + 1]]


def deletion_table(keys: Sequence[str], lengths: np.ndarray, near_chars: int) -> dict[str, int]:
    """``near_exact``'s lookups: every one-character deletion of every benchmark key of
    ``NEAR_MIN_CHARS - 1`` to `near_chars` characters -> the first sentence that has it."""
    table: dict[str, int] = {}
    short = (lengths >= NEAR_MIN_CHARS - 1) & (lengths <= near_chars)
    for i in np.flatnonzero(short).tolist():
        k = keys[i]
        for j in range(len(k)):
            table.setdefault(k[:j] + k[j + 1 :], i)
    return table


def seeds_dir(index_dir: str, min_chars: int, min_share: float) -> str:
    return os.path.join(index_dir, TABLES_DIR, f"seeds-{min_chars}-{min_share!r}")


def deletions_dir(index_dir: str, near_chars: int) -> str:
    return os.path.join(index_dir, TABLES_DIR, f"deletions-{near_chars}")


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
    index_dir: str,
    index: BM25Index,
    keys: Sequence[str],
    seed_configs: Sequence[tuple],
    near_reaches: Sequence[int] = (),
) -> None:
    """Writes `index_tables`, the keys and the ``near_copy`` heads, then the overlap seeds of
    each (gram, min_chars, min_share) of `seed_configs` and the deletions of each reach
    (``near_chars``) of `near_reaches` that are not saved yet, into ``<index_dir>/tables/``."""
    root = os.path.join(index_dir, TABLES_DIR)
    lengths = np.fromiter(map(len, keys), dtype=np.int64, count=len(keys))
    if _version(root) != TABLES_VERSION:
        if os.path.isdir(root):
            shutil.rmtree(root)  # another version's tables, seeds included
        save_arrays(root, index_tables(index, keys), prefix="")
        save_strings(root, "keys", keys)
        short = np.flatnonzero((lengths >= QUOTE_MIN_CHARS) & (lengths <= NEAR_MAX_CHARS))
        save_strings(root, "short_keys", [keys[d] for d in short.tolist()])
        save_arrays(root, {"short_docs": short}, prefix="")
        heads = HeadTable.build(keys, lengths)
        save_strings(root, "heads", list(heads.rows))  # in row order
        arrays = {"head_start": np.asarray(heads.start, np.int64),
                  "head_docs": np.asarray(heads.docs, np.int64)}  # fmt: skip
        save_arrays(root, arrays, prefix="")
        with open(os.path.join(root, "version.txt.tmp"), "w", encoding="ascii") as fh:
            fh.write(f"{TABLES_VERSION}\n")
        os.replace(os.path.join(root, "version.txt.tmp"), os.path.join(root, "version.txt"))
    for gram, min_chars, min_share in seed_configs:
        folder = seeds_dir(index_dir, min_chars, min_share)
        if not os.path.exists(os.path.join(folder, "hits.npy")):
            seeds = OverlapSeeds.build(keys, gram, min_chars, min_share)
            save_arrays(folder, seeds.arrays(), prefix="")  # hits last: written means whole
    for near_chars in near_reaches:
        folder = deletions_dir(index_dir, near_chars)
        if not os.path.exists(os.path.join(folder, "docs.npy")):
            table = deletion_table(keys, lengths, near_chars)
            save_strings(folder, "strings", list(table))
            docs = np.fromiter(table.values(), dtype=np.int64, count=len(table))
            save_arrays(folder, {"docs": docs}, prefix="")  # last: written means whole


def _version(root: str) -> int | None:
    try:
        with open(os.path.join(root, "version.txt"), encoding="ascii") as fh:
            return int(fh.read().strip())
    except (OSError, ValueError):
        return None


def load_keys(index_dir: str, short: bool = False) -> tuple[list[str], np.ndarray] | None:
    """The saved benchmark keys and their lengths (None: no tables of this version). With
    `short`, only those of `QUOTE_MIN_CHARS` to `NEAR_MAX_CHARS` characters (what
    ``rare_quote``'s first pass reads: 78,078 of KLUE's 138,579, a tenth of the text) and
    the sentence of each, instead of the lengths."""
    root = os.path.join(index_dir, TABLES_DIR)
    if _version(root) != TABLES_VERSION:
        return None
    try:
        if short:
            keys, _ = load_strings(root, "short_keys")
            return keys, load_arrays(root, ["short_docs"], prefix="")["short_docs"]
        return load_strings(root, "keys")
    except FileNotFoundError:
        return None


def load_tables(
    index_dir: str, min_chars: int, min_share: float, near_chars: int | None = None
) -> dict | None:
    """`save_tables`' tables for these overlap thresholds, memory-mapped, with ``keys``,
    ``key_len``, ``heads`` (`HeadTable`) and, when saved for `near_chars`, ``deletions``
    (reach -> `deletion_table`; not saved: the matcher builds it); None when the others are not
    all saved (or of another version): the matcher then builds its own."""
    root = os.path.join(index_dir, TABLES_DIR)
    if _version(root) != TABLES_VERSION:
        return None
    try:
        out = load_arrays(root, BOUNDS + SIGNATURE + HEADS, prefix="")
        seeds = load_arrays(seeds_dir(index_dir, min_chars, min_share), SEEDS, prefix="")
        out["keys"], out["key_len"] = load_strings(root, "keys")
        heads, _ = load_strings(root, "heads")
    except FileNotFoundError:
        return None
    out["seeds"] = OverlapSeeds(**seeds)
    at, docs = out.pop("head_start").tolist(), out.pop("head_docs").tolist()  # lists: per-query
    out["heads"] = HeadTable(dict(zip(heads, range(len(heads)), strict=True)), at, docs)
    out["deletions"] = {}  # reach -> table
    folder = deletions_dir(index_dir, near_chars) if near_chars is not None else ""
    if near_chars is not None and os.path.exists(os.path.join(folder, "docs.npy")):
        strings, _ = load_strings(folder, "strings")
        docs = load_arrays(folder, ["docs"], prefix="")["docs"].tolist()
        out["deletions"][near_chars] = dict(zip(strings, docs, strict=True))
    return out
