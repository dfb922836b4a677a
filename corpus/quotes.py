"""Short benchmark sentences found whole inside corpus sentences: the tables and lookups.

``short_quote`` and ``rare_quote`` (`corpus.matching`) ask, for each corpus
sentence, which short benchmark key (`QUOTE_MIN_CHARS` to `NEAR_MAX_CHARS`
characters) it contains whole; the first pass of `corpus.dedup` counts, over
the whole corpus, how many sentences contain each (`count_phrases`). Both read
one table (`short_key_table`): the keys under their first `SHORT_GRAM`
characters, so a corpus sentence only tries the keys starting at one of its own
`SHORT_GRAM`-grams.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import islice

import numpy as np

#: Benchmark sentences up to this length are indexed for near-exact lookups (by their
#: one-character deletions); --short-chars must not exceed it. Also the longest key
#: ``short_quote`` and ``rare_quote`` look for.
NEAR_MAX_CHARS = 24
#: A near-exact match needs at least this many characters (one edit of a 3-character phrase
#: is another phrase); re-exported by `corpus.matching`.
NEAR_MIN_CHARS = 4
#: Length of the n-grams that seed ``near_copy`` and ``short_quote`` (= `NEAR_MIN_CHARS`:
#: every run they accept has at least this many characters).
SHORT_GRAM = NEAR_MIN_CHARS
#: The shortest benchmark key ``short_quote`` looks for inside a corpus sentence.
QUOTE_MIN_CHARS = 5
#: Corpus keys whose grams `count_phrases` codes and filters at once.
COUNT_BATCH = 1024


def phrase_limit(per_million: float, total: int) -> int:
    """The most corpus sentences a phrase may be in for ``rare_quote``: `per_million` of
    the `total` corpus sentences, rounded down; -1: off (rate 0, or a corpus too small to
    show a phrase that rare)."""
    limit = int(per_million * total / 1e6 + 1e-9) if per_million > 0 else 0
    return limit if limit >= 1 else -1


def short_key_table(
    keys: list[str],
    rank: np.ndarray | None = None,
    max_rank: float | None = None,
    max_chars: int = NEAR_MAX_CHARS,
    lengths: np.ndarray | None = None,
    docs: np.ndarray | None = None,
) -> dict[str, list[tuple[float, int, str]]]:
    """Benchmark keys of `QUOTE_MIN_CHARS` to `max_chars` characters by their first
    `SHORT_GRAM` characters, as (rank, sentence, key) in order of rank then sentence;
    only those ranked at most `max_rank` (None: all; `rank` None: every rank 0). Ranks
    are corpus counts for ``rare_quote`` and negated BM25 self-weights for
    ``short_quote``. `lengths`: the keys' lengths, when the caller has them (a worker
    then visits only the short keys). `docs`: the sentence of each of `keys`, when they
    are only some of the benchmark's (default: its position; `rank` is by sentence)."""
    heads: dict[str, list[tuple[float, int, str]]] = {}
    if lengths is None:
        lengths = np.fromiter(map(len, keys), dtype=np.int64, count=len(keys))
    for i in np.flatnonzero((lengths >= QUOTE_MIN_CHARS) & (lengths <= max_chars)).tolist():
        d = i if docs is None else int(docs[i])
        n = rank[d].item() if rank is not None else 0
        if max_rank is None or n <= max_rank:
            heads.setdefault(keys[i][:SHORT_GRAM], []).append((n, d, keys[i]))
    for v in heads.values():
        v.sort()
    return heads


def _heads(key: str) -> set[str]:
    """The `SHORT_GRAM`-character starts a benchmark key found inside `key` could have."""
    return {key[i : i + SHORT_GRAM] for i in range(len(key) - QUOTE_MIN_CHARS + 1)}


def contained_best(keys: list[str], table: dict[str, list]) -> tuple[np.ndarray, np.ndarray]:
    """Per query key: the entry of `table` (`short_key_table`) with the least (rank,
    sentence) whose key it contains whole: that sentence and rank (-1 and 0: none)."""
    best = np.full(len(keys), -1, dtype=np.int64)
    ranks = np.zeros(len(keys))
    for r, c in enumerate(keys):
        bn, bd = 0.0, -1
        for g in table.keys() & _heads(c):
            for n, d, k in table[g]:  # least rank first
                if bd >= 0 and (n, d) > (bn, bd):
                    break
                if k in c:
                    bn, bd = n, d
                    break
        best[r], ranks[r] = bd, bn
    return best, ranks


def count_phrases(table: dict[str, list], keys: Iterable[str], counts: dict[int, int]) -> int:
    """Adds to `counts` (benchmark sentence -> corpus sentences) every benchmark key of
    `table` (`short_key_table`) that each of `keys` (`match_key`s of corpus sentences)
    contains whole, once per sentence; returns how many keys were read. Summed over every
    shard of the corpus, these are ``rare_quote``'s `Matcher.phrase_counts`.

    Which of a key's `SHORT_GRAM`-grams start a benchmark key is asked `COUNT_BATCH` keys
    at a time by integer code (`_HeadFilter`); only the few that pass are cut out and
    looked up, instead of every gram of every key as a string (on kowiki, 41 grams per
    sentence, about one of them a head of the 24-character table, 0.16 of the 11-character one)."""
    heads = _HeadFilter(table)
    n = 0
    it = iter(keys)
    while batch := list(islice(it, COUNT_BATCH)):
        n += len(batch)
        for r, g in heads.found(batch):
            c = batch[r]
            for _, d, k in table[g]:
                if k in c:
                    counts[d] = counts.get(d, 0) + 1
    return n


class _HeadFilter:
    """The heads of a `short_key_table` as a bitmap of hashed integer codes, which tells,
    for a batch of keys at once, the grams that may be heads (one in 64 of the others).

    A gram of four characters below U+10000 is coded exactly in 64 bits (16 each); a gram
    with a wider character is always looked up."""

    def __init__(self, table: dict[str, list]):
        self.table = table
        narrow = [g for g in table if len(g) == SHORT_GRAM and max(g) <= "\uffff"]
        self.bits = np.zeros(1 << max(10, (64 * len(narrow)).bit_length()), dtype=bool)
        codes, _ = self._codes("".join(narrow), np.arange(len(narrow)) * SHORT_GRAM)
        self.bits[self._slot(codes)] = True

    def _slot(self, codes: np.ndarray) -> np.ndarray:
        """Each code's bit: the top bits of a Fibonacci hash."""
        shift = np.uint64(64 - (len(self.bits).bit_length() - 1))
        return (codes * np.uint64(0x9E3779B97F4A7C15)) >> shift

    @staticmethod
    def _codes(text: str, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The codes of the `SHORT_GRAM`-grams of `text` starting at `pos`, and whether
        each has a character of U+10000 or above (its code then means nothing)."""
        a = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), np.uint32).astype(np.uint64)
        code, wide = np.zeros(len(pos), np.uint64), np.zeros(len(pos), bool)
        for j in range(SHORT_GRAM):
            code = (code << np.uint64(16)) | a[pos + j]
            wide |= a[pos + j] > 0xFFFF
        return code, wide

    def found(self, batch: list[str]) -> list[tuple[int, str]]:
        """(row, head) for each head of `table` that `_heads` of a key of `batch` holds,
        once per row, rows in order."""
        lens = np.fromiter(map(len, batch), np.int64, len(batch))
        m = np.maximum(lens - (QUOTE_MIN_CHARS - 1), 0)  # the grams `_heads` takes per key
        if not m.any():
            return []
        text = "".join(batch)
        rows = np.repeat(np.arange(len(batch)), m)
        pos = np.arange(int(m.sum())) + np.repeat(np.cumsum(lens) - lens - (np.cumsum(m) - m), m)
        code, wide = self._codes(text, pos)
        maybe = np.flatnonzero(self.bits[self._slot(code)] | wide)
        out, seen = [], set()
        for r, p in zip(rows[maybe].tolist(), pos[maybe].tolist(), strict=True):
            g = text[p : p + SHORT_GRAM]
            if g in self.table and (r, g) not in seen:
                seen.add((r, g))
                out.append((r, g))
        return out


def count_array(counts: dict, n: int) -> np.ndarray:
    """`count_phrases`' counts (keys: positions, ints or JSON strings) as an array of `n`."""
    out = np.zeros(n, dtype=np.int64)
    for d, c in counts.items():
        out[int(d)] = c
    return out
