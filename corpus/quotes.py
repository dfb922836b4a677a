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
    shard of the corpus, these are ``rare_quote``'s `Matcher.phrase_counts`."""
    n = 0
    for c in keys:
        n += 1
        for g in table.keys() & _heads(c):
            for _, d, k in table[g]:
                if k in c:
                    counts[d] = counts.get(d, 0) + 1
    return n


def count_array(counts: dict, n: int) -> np.ndarray:
    """`count_phrases`' counts (keys: positions, ints or JSON strings) as an array of `n`."""
    out = np.zeros(n, dtype=np.int64)
    for d, c in counts.items():
        out[int(d)] = c
    return out
