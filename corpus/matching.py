"""Is a corpus sentence a copy of a benchmark sentence? Eight signals, one decision.

BM25 similarity alone (`corpus.bm25`, ``bm25(q, d) / max(self(q), self(d))``)
removed short generic phrases (``정말 훌륭한 영화다`` matched ``정말 재미없는
영화다``: the shared morphemes are most of two short sentences) and missed
benchmark sentences quoted inside a longer one (the added text halves the
similarity). Real near-copies have signals look-alikes lack, checked in order:

1. ``exact``: the same sentence after normalisation (`match_key`: NFKC, case,
   spacing, punctuation, symbols removed), of ``exact_min_chars`` characters or more.
2. ``near_exact``: for a sentence shorter than ``short_chars``, a benchmark key
   within ``near_exact_edits`` (0 or 1) character edit, the edit being a
   particle or ending syllable (``지루했다``/``지루했어``, not ``재미있는``/
   ``재미없는``). Lookups use the one-character deletions of every short
   benchmark key.
3. ``near_copy``: for a sentence shorter than ``short_chars``, a benchmark key
   sharing a common *prefix* of at least ``short_share`` of the longer of the
   two keys (and `NEAR_MIN_CHARS` characters), carrying at least
   ``short_weight`` of BM25 self-weight (see ``short_quote``): a short title
   or turn with its last word cut or a word added (``여야 대표 회동``/``여야
   대표 회동 싸늘``), which one function-syllable edit does not cover. With
   ``short_weight`` set, not a stock phrase one ending away (``너무
   멋있다``/``너무 멋있음``). Found from the first `SHORT_GRAM` characters.
4. ``overlap``: at any length, the longest common substring of the two keys is
   at least ``overlap_chars`` characters and ``overlap_share`` of the benchmark
   key: quotes (share 1), cut ends (0.8 for a 20% cut), added clauses (1).
   Found by seed and extend: every benchmark key is indexed under every
   ``step``-th `OVERLAP_GRAM`-gram, which any long enough common substring must
   contain (exact, tested against brute force).
5. ``short_quote``: a whole benchmark key of `QUOTE_MIN_CHARS` to
   `NEAR_MAX_CHARS` characters (shorter than ``overlap`` reaches) inside the
   corpus key, when the benchmark sentence carries at least ``quote_weight``
   of BM25 self-weight (the sum of its morphemes' weights: rare words count,
   so ``사이타마현 출신`` qualifies and the stock phrase ``라고 덧붙였다`` does
   not; about 1% of unrelated corpus sentences contain some benchmark sentence
   of 5-9 characters verbatim). With ``quoted_span`` on, also a whole
   benchmark sentence (`QUOTE_MIN_CHARS` or more) standing alone between
   quotation marks (``… "재밌다고 생각함"라고 …``), whatever its weight: a
   quotation of it, not a stock phrase running on in the text.
6. ``rare_quote``: a whole benchmark key of `QUOTE_MIN_CHARS` to `NEAR_MAX_CHARS` characters
   inside the corpus key, when at most ``quote_max_per_million`` of every million sentences
   of the whole corpus being decontaminated contain it (this one included): a phrase the
   corpus does not otherwise use (``소녀는 가출했다``, ``집이 따스했어요``), where a stock
   phrase (``라고 주장했다``: 309 of the 871,356 sentences of the calibration corpus) is
   left. The counts come from a first pass over the corpus (`count_phrases`, run by
   `corpus.dedup`): the per-sentence signals above cannot know how common a phrase is. A
   rate, not a count, so that what was calibrated holds at another corpus size; a corpus too
   small to show a phrase rarer than that (under one sentence at the rate) gets no
   ``rare_quote`` at all: on the 63,677 NSMC sentences, an absolute count of 3 removed 30
   stock review phrases (``1점 드립니다``, ``찾았습니다``) and no copy.
7. ``bm25``: for sentences of ``short_chars`` or more, the BM25 similarity
   ``bm25(q, d) / max(self(q), self(d))`` to the best benchmark sentence
   reaches ``threshold`` (a changed particle mid-sentence, reordered words).
   Shorter sentences share most of their morphemes with some benchmark
   sentence by chance, so BM25 is not used for them.
8. ``containment``: for sentences of ``short_chars`` or more, a benchmark
   sentence of at least ``containment_chars`` characters has ``containment`` of
   its BM25 weight (rare morphemes count most) on morphemes the corpus
   sentence also has.

Thresholds: `corpus.calibrate` (and `corpus.calibrate_exact`), docs/corpus.md.

Speed: `BM25Index.best_above` finds the best BM25 match only where it reaches the threshold,
with candidates from the query's rarest morphemes and bounds that drop pairs before scoring
(exact for the decision; `bench.dedup` checks the removals against exhaustive scoring). For
containment every benchmark sentence is listed under its two rarest morphemes, and only
those lists are read. Overlap looks a batch's n-grams up at once by integer code
(`corpus.match_tables.OverlapSeeds`). The tables that depend only on the index (bounds,
signatures, seeds, the keys, the near-copy heads and near-exact deletions) are saved beside
it and memory-mapped or read in C by each worker (`corpus.match_tables`); sentences shorter
than ``short_chars`` are not tokenised (`Matcher.match_texts`: no signal reads their
morphemes).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

import numpy as np
import scipy.sparse as sp

from corpus.bm25 import BM25Index, tokenize
from corpus.match_tables import HeadTable, OverlapSeeds, deletion_table, index_tables
from corpus.normalize import match_key
from corpus.quotes import (  # noqa: F401  (re-exported: corpus.matching is their usual name)
    NEAR_MAX_CHARS,
    NEAR_MIN_CHARS,
    QUOTE_MIN_CHARS,
    SHORT_GRAM,
    contained_best,
    count_array,
    count_phrases,
    phrase_limit,
    short_key_table,
)
from corpus.sparse_rows import row_argmax

#: Queries scored together by `Matcher.bm25_best` (bounds the candidate pairs in memory).
BM25_CHUNK = 64
#: Signals in the order they are checked; ``removed/`` records say which one fired.
SIGNALS = (
    "exact", "near_exact", "near_copy", "overlap", "short_quote", "rare_quote", "bm25",
    "containment",
)  # fmt: skip
#: The `MatchConfig` fields each signal's decision reads (`Matcher.fires`).
SIGNAL_PARAMS = {
    "exact": ("exact_min_chars",),
    "near_exact": ("short_chars", "near_exact_edits", "exact_min_chars"),
    "near_copy": ("short_chars", "short_share", "short_weight", "exact_min_chars"),
    "overlap": ("overlap_chars", "overlap_share"),
    "short_quote": ("quote_weight", "quoted_span"),
    "rare_quote": ("quote_max_per_million",),
    "bm25": ("short_chars", "threshold"),
    "containment": ("short_chars", "containment", "containment_chars"),
}
#: Syllables of particles and endings: the only characters a near-exact match may change.
FUNCTION_SYLLABLES = frozenset(
    "은는이가을를에서의와과도만로으랑하고며다요어아여야지죠네게께한해했였았었겠습니까까요"
)
#: Length of the character n-grams (of `match_key`s) that seed the ``overlap`` signal; its
#: minimum overlap length (``overlap_chars``) must be at least this.
OVERLAP_GRAM = 8
#: Text between a pair of quotation marks (straight, curly, corner brackets).
_QUOTED = re.compile(r'"([^"]+)"|“([^”]+)”|\'([^\']+)\'|‘([^’]+)’|「([^」]+)」|『([^』]+)』')


@dataclass(frozen=True)
class MatchConfig:
    """The decision thresholds (defaults chosen by `corpus.calibrate`, see docs/corpus.md)."""

    threshold: float = 0.7
    exact_min_chars: int = 6  # exact/near_exact/near_copy key length: corpus.calibrate_exact
    short_chars: int = 12
    near_exact_edits: int = 1
    containment: float = 0.85
    containment_chars: int = 30
    overlap_chars: int = 12
    overlap_share: float = 0.7
    short_share: float = 0.75  # near_copy (0: off)
    short_weight: float = 0.0  # near_copy needs this BM25 self-weight of the benchmark sentence
    quote_weight: float = 0.0  # short_quote by weight (0: off; quotation marks still count)
    quoted_span: bool = True  # short_quote also fires on a benchmark sentence between quotes
    quote_max_per_million: float = 2.5  # rare_quote: corpus sentences per million holding it

    def __post_init__(self) -> None:
        if self.overlap_chars < OVERLAP_GRAM:
            raise ValueError(f"overlap_chars must be at least {OVERLAP_GRAM}")
        if not 0.0 < self.overlap_share <= 1.0:
            raise ValueError("overlap_share must be in (0, 1]")
        if not 0.0 <= self.short_share <= 1.0:
            raise ValueError("short_share must be in [0, 1] (0: near_copy off)")
        if not self.quote_weight >= 0 or not self.short_weight >= 0:
            raise ValueError("quote_weight and short_weight must be >= 0")
        if not self.quote_max_per_million >= 0:
            raise ValueError("quote_max_per_million must be >= 0 (0: rare_quote off)")

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Matches:
    """Per query: matched benchmark sentence (-1: none), signal ("" if none) and score."""

    doc: np.ndarray
    signal: list[str]
    score: np.ndarray
    features: dict[str, np.ndarray] | None = None


class Matcher:
    """Decides, for batches of corpus sentences, which copy a benchmark sentence."""

    def __init__(
        self,
        index: BM25Index,
        keys: list[str],
        config: MatchConfig | None = None,
        phrase_counts: np.ndarray | None = None,
        phrase_total: int = 0,
        tables: dict | None = None,
        near_chars: int = NEAR_MAX_CHARS,
    ):
        """`phrase_counts`: per benchmark sentence, how many of the `phrase_total` corpus
        sentences contain its key whole (`count_phrases` over the whole corpus);
        ``rare_quote`` needs them and stays off without them. `tables`: the saved
        tables of `corpus.match_tables.load_tables` (built here when None).
        `near_chars`: the longest benchmark key the near-exact lookups index (a decision
        needs ``short_chars``; `all_features`, for calibration, `NEAR_MAX_CHARS`)."""
        if len(keys) != index.num_docs:
            raise ValueError(f"{len(keys)} keys for an index of {index.num_docs} sentences")
        self.index = index
        self.keys = keys
        self.config = config or MatchConfig()
        # each key -> its first sentence (built from the end: the first one is set last)
        last = range(len(keys) - 1, -1, -1)
        self.exact: dict[str, int] = dict(zip(reversed(keys), last, strict=True))
        self.exact.pop("", None)
        self._seeds: dict[tuple[int, float], OverlapSeeds] = {}
        self._short_heads: HeadTable | None = None  # built on first use when not saved
        deletions = None
        if tables is None:
            self._key_len = np.fromiter(map(len, keys), dtype=np.int64, count=len(keys))
            index.prepare_bounds()
            tables = index_tables(index, keys)
        else:
            self._key_len = tables["key_len"]
            index.set_bounds(tables)
            self._seeds[(self.config.overlap_chars, self.config.overlap_share)] = tables["seeds"]
            self._short_heads = tables["heads"]
            deletions = tables["deletions"].get(near_chars)
        self._by_doc = index._by_doc  # (N, V), shared with the index's bounds
        self._doc_weight = tables["doc_weight"]
        ones = np.ones(len(tables["sig_indices"]))
        self._signatures = sp.csr_matrix(
            (ones, tables["sig_indices"], tables["sig_indptr"]), shape=index.weights.shape
        )
        self._long_signatures: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._overlap_seeds(self.config.overlap_chars, self.config.overlap_share)
        # one-character deletions of every key up to near_chars -> the first sentence
        self.near_chars = near_chars
        if deletions is None:
            deletions = deletion_table(keys, self._key_len, near_chars)
        self._deletions: dict[str, int] = deletions
        self._tables: dict[tuple, dict[str, list]] = {}  # short_key_table per (rank, cut, chars)
        self.set_phrase_counts(phrase_counts, phrase_total)

    # ------------------------------------------------------- short sentences
    def quoted_span(self, texts: list[str]) -> np.ndarray:
        """Per text: a benchmark sentence (`QUOTE_MIN_CHARS` or more) that one of its
        quotation-mark spans equals after normalisation (-1: none)."""
        out = np.full(len(texts), -1, dtype=np.int64)
        for r, t in enumerate(texts):
            for m in _QUOTED.finditer(t):
                key = match_key(next(g for g in m.groups() if g is not None))
                d = self.exact.get(key, -1) if len(key) >= QUOTE_MIN_CHARS else -1
                if d >= 0:
                    out[r] = d
                    break
        return out

    def near_copy_best(self, keys: list[str], max_chars: int) -> tuple[np.ndarray, np.ndarray]:
        """Per query key shorter than `max_chars` (and at least `NEAR_MIN_CHARS`): the
        benchmark key (up to `NEAR_MAX_CHARS`) with the longest common *prefix* as a share
        of the longer of the two, and that share (-1 and 0: none).

        A prefix, not any common run: a short title or turn edited lightly keeps its
        start (a cut end, an added word, another ending); short sentences sharing only
        their end are other sentences (``좋았습니다``/``찾았습니다``, ``인생
        드라마입니다``/``역사 드라마입니다``, both removed by a common-run rule on NSMC
        reviews). Candidates share the first `SHORT_GRAM` characters."""
        if self._short_heads is None:
            self._short_heads = HeadTable.build(self.keys, self._key_len)
        heads, bkeys = self._short_heads, self.keys
        best = np.full(len(keys), -1, dtype=np.int64)
        share = np.zeros(len(keys))
        for r, c in enumerate(keys):
            lc = len(c)
            if not NEAR_MIN_CHARS <= lc < max_chars:
                continue
            bs, bd = 0.0, -1
            for d in heads.get(c[:SHORT_GRAM]):
                b = bkeys[d]
                n = SHORT_GRAM
                while n < lc and n < len(b) and c[n] == b[n]:
                    n += 1
                v = n / max(lc, len(b))
                if v > bs:  # candidates in index order: the first of equal shares wins
                    bs, bd = v, d
            best[r], share[r] = bd, bs
        return best, share

    def short_quote_best(
        self, keys: list[str], min_weight: float = 0.0, max_chars: int = NEAR_MAX_CHARS
    ) -> tuple[np.ndarray, np.ndarray]:
        """Per query key: the benchmark key of `QUOTE_MIN_CHARS`..`max_chars` characters
        (and more than 0 and at least `min_weight` of BM25 self-weight) found whole inside
        it with the largest self-weight, and that weight (-1 and 0: none; the first in
        index order among equal weights)."""
        table = self._tables.get(("weight", min_weight, max_chars))
        if table is None:
            w = self._doc_weight
            rank = np.where(w > 0, -w, np.inf)  # heaviest first
            table = short_key_table(self.keys, rank, -min_weight, max_chars, self._key_len)
            self._tables[("weight", min_weight, max_chars)] = table
        best, rank = contained_best(keys, table)
        return best, -rank

    def set_phrase_counts(self, counts: np.ndarray | None, total: int = 0) -> None:
        """Sets ``rare_quote``'s per-sentence corpus counts over `total` corpus sentences
        (None: the signal stays off)."""
        if counts is not None and len(counts) != len(self.keys):
            raise ValueError(f"{len(counts)} phrase counts for {len(self.keys)} sentences")
        if counts is not None and total < int(np.max(counts, initial=0)):
            raise ValueError(f"phrase counts above the {total} corpus sentences counted")
        self.phrase_counts = None if counts is None else np.asarray(counts, dtype=np.int64)
        self.phrase_total = total
        # the count-ranked tables were built from the old counts; the weight-ranked ones
        # (``short_quote``'s) do not depend on them and stay
        self._tables = {k: v for k, v in self._tables.items() if k[0] != "count"}

    def prepare_lookups(self) -> None:
        """Builds now every table a decision under the config reads that is not saved
        beside the index (the ``near_copy`` heads when none were given, the ``short_quote``
        and ``rare_quote`` tables: the latter depends on the phrase counts), so that a
        worker's start holds all its one-time work and its first batch costs what the
        others do. Each is built by looking an empty batch up."""
        cfg = self.config
        if cfg.short_share > 0:
            self.near_copy_best([], cfg.short_chars)
        if cfg.quote_weight > 0:
            self.short_quote_best([], cfg.quote_weight, cfg.overlap_chars - 1)
        limit = self.phrase_limit(cfg)
        if limit >= 1:
            self.rare_quote_best([], limit, cfg.overlap_chars - 1)

    def phrase_limit(self, cfg: MatchConfig) -> int:
        """`phrase_limit` of `cfg`'s rate over the corpus counted; -1 without counts."""
        if self.phrase_counts is None:
            return -1
        return phrase_limit(cfg.quote_max_per_million, self.phrase_total)

    def rare_quote_best(
        self, keys: list[str], max_count: int | None = None, max_chars: int = NEAR_MAX_CHARS
    ) -> tuple[np.ndarray, np.ndarray]:
        """Per query key: the benchmark key of `QUOTE_MIN_CHARS`..`max_chars` characters
        found whole inside it that the fewest corpus sentences contain (`phrase_counts`;
        at most `max_count`, None: any), and that count (-1 and 0: none; the first in
        index order among equal counts)."""
        if self.phrase_counts is None:
            return np.full(len(keys), -1, dtype=np.int64), np.zeros(len(keys), dtype=np.int64)
        table = self._tables.get(("count", max_count, max_chars))
        if table is None:
            table = short_key_table(
                self.keys, self.phrase_counts, max_count, max_chars, self._key_len
            )
            self._tables[("count", max_count, max_chars)] = table
        best, count = contained_best(keys, table)
        return best, count.astype(np.int64)

    def near_exact(self, key: str) -> int:
        """A benchmark sentence whose key is one character edit from `key`, or -1."""
        if not NEAR_MIN_CHARS <= len(key) <= NEAR_MAX_CHARS + 1:
            return -1
        d = self._deletions.get(key, -1)  # key is a benchmark key with one character removed
        if d >= 0 and _one_edit(key, self.keys[d]):
            return d
        for j in range(len(key)):
            v = key[:j] + key[j + 1 :]
            d = self.exact.get(v, -1)  # a benchmark key is key with one character removed
            if d < 0:
                d = self._deletions.get(v, -1)  # the same deletion: maybe one substitution
            if d >= 0 and len(self.keys[d]) >= NEAR_MIN_CHARS and _one_edit(key, self.keys[d]):
                return d
        return -1

    # -------------------------------------------------------------- overlap
    def _overlap_seeds(self, min_chars: int, min_share: float) -> OverlapSeeds:
        """`OverlapSeeds` of the benchmark keys for these thresholds (saved, or built once)."""
        cached = self._seeds.get((min_chars, min_share))
        if cached is None:
            cached = OverlapSeeds.build(self.keys, OVERLAP_GRAM, min_chars, min_share)
            self._seeds[(min_chars, min_share)] = cached
        return cached

    def overlap_pairs(
        self, keys: list[str], min_chars: int, min_share: float
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(query row, benchmark sentence, overlap length) for every pair whose longest
        common substring of keys is at least `min_chars` long and `min_share` of the
        benchmark key: quotes (share 1), cut ends and added clauses (seed and extend).

        The batch's `OVERLAP_GRAM`-grams are looked up in the seeds at once; each seed hit
        is extended both ways character by character."""
        seeds = self._overlap_seeds(min_chars, min_share)
        n, bkeys = OVERLAP_GRAM, self.keys
        found = seeds.find([c if len(c) >= min_chars else "" for c in keys], n, bkeys)
        rows: list[int] = []
        docs: list[int] = []
        lens: list[int] = []
        start, all_hits = seeds.start, seeds.hits
        j = 0
        while j < len(found):
            r = found[j][0]
            c = keys[r]
            lc = len(c)
            done: dict[int, int] = {}  # doc -> best overlap found
            seen: set[tuple[int, int]] = set()
            while j < len(found) and found[j][0] == r:
                _, i, g = found[j]
                j += 1
                for h in all_hits[start[g] : start[g + 1]].tolist():
                    d, p = h >> 20, h & 0xFFFFF
                    b = bkeys[d]
                    if (d, i - p) in seen or min_share * len(b) > lc:
                        continue
                    seen.add((d, i - p))
                    lo = 0
                    while lo < i and lo < p and c[i - lo - 1] == b[p - lo - 1]:
                        lo += 1
                    hi = n
                    while i + hi < lc and p + hi < len(b) and c[i + hi] == b[p + hi]:
                        hi += 1
                    if lo + hi > done.get(d, 0):
                        done[d] = lo + hi
            for d, ln in done.items():
                if ln >= min_chars and ln >= min_share * len(bkeys[d]):
                    rows.append(r)
                    docs.append(d)
                    lens.append(ln)
        return np.asarray(rows, np.int64), np.asarray(docs, np.int64), np.asarray(lens, np.int64)

    def overlap_best(
        self, keys: list[str], min_chars: int, min_share: float
    ) -> tuple[np.ndarray, np.ndarray]:
        """Per query: the benchmark sentence with the largest overlap share (-1: none), share."""
        best = np.full(len(keys), -1, dtype=np.int64)
        share = np.zeros(len(keys))
        r, d, ln = self.overlap_pairs(keys, min_chars, min_share)
        row_argmax(r, d, ln / np.maximum(self._key_len[d], 1), best, share)
        return best, share

    # ----------------------------------------------------------------- BM25
    def bm25_best(
        self,
        tokens: list[list[str]],
        threshold: float | np.ndarray,
        matrix: tuple[sp.csr_matrix, np.ndarray, np.ndarray] | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Best benchmark sentence by BM25 similarity, for queries whose best reaches
        `threshold` (per query; ``inf`` skips one): `BM25Index.best_above`, exact for
        the decision (tested against exhaustive scoring).

        Scored `BM25_CHUNK` live queries at a time (each query's answer is its own): the
        candidate pairs of a whole batch peaked at about 100 MB per worker."""
        q, lengths, oov = matrix if matrix is not None else self.index.query_matrix(tokens)
        n = q.shape[0]
        thr = np.broadcast_to(np.asarray(threshold, dtype=np.float64), (n,))
        best, sim = np.full(n, -1, dtype=np.int64), np.zeros(n)
        live = np.flatnonzero(np.isfinite(thr))
        for s in range(0, len(live), BM25_CHUNK):
            r = live[s : s + BM25_CHUNK]
            best[r], sim[r] = self.index.best_above(None, thr[r], matrix=(q[r], lengths[r], oov[r]))
        return best, sim

    # ---------------------------------------------------------- containment
    def containment_best(
        self, q: sp.csr_matrix, qlen: np.ndarray, min_chars: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """Best coverage of a benchmark sentence (>= `min_chars`) by each query's morphemes.

        The candidates are the benchmark sentences listed under one of a query's morphemes
        (`_signatures`: each sentence under its two rarest); a candidate's covered weight
        sums its row of `_by_doc` over the morphemes the query has
        (``_by_doc[d].multiply(present).sum()`` before, with the same bits), gathered
        from the arrays with no sparse matrix built per batch."""
        nq = q.shape[0]
        best = np.full(nq, -1, dtype=np.int64)
        best_cov = np.zeros(nq)
        rows = np.repeat(np.arange(nq, dtype=np.int64), np.diff(q.indptr))
        on = np.flatnonzero(qlen[rows] >= min_chars)
        sig_indptr, sig_indices = self._signatures_of(min_chars)
        pos, owner = _row_positions(sig_indptr, q.indices[on])
        pr, pd = rows[on][owner], sig_indices[pos].astype(np.int64)
        ok = self._key_len[pd] <= qlen[pr]
        if not ok.any():
            return best, best_cov
        n_docs = np.int64(self.index.num_docs)
        pair = np.unique(pr[ok] * n_docs + pd[ok])
        pr, pd = pair // n_docs, pair % n_docs
        by_doc, v = self._by_doc, np.int64(q.shape[1])
        pos, per_pair = _row_positions(by_doc.indptr, pd)
        qkey = rows * v + q.indices
        dkey = pr[per_pair] * v + by_doc.indices[pos]
        hit = qkey[np.minimum(np.searchsorted(qkey, dkey), len(qkey) - 1)] == dkey
        # each pair's weights added by `np.add.reduceat` from its largest morpheme id down:
        # the order (and so the bits) of the sum this replaces, whose `present` rows had
        # come out of a sparse product in descending order
        hit = np.flatnonzero(hit)[::-1]
        covered = _segment_sums(by_doc.data[pos[hit]], per_pair[hit], len(pd))
        cov = covered / np.maximum(self._doc_weight[pd], 1e-12)
        row_argmax(pr, pd, cov, best, best_cov)
        return best, best_cov

    def _signatures_of(self, min_chars: int) -> tuple[np.ndarray, np.ndarray]:
        """`_signatures` (indptr, indices) without the sentences shorter than `min_chars`,
        which containment never takes (most of the pairs: built once, a few ms)."""
        if min_chars not in self._long_signatures:
            sig = self._signatures
            keep = self._key_len[sig.indices] >= min_chars
            rows = np.repeat(np.arange(sig.shape[0]), np.diff(sig.indptr))
            indptr = np.r_[0, np.cumsum(np.bincount(rows[keep], minlength=sig.shape[0]))]
            self._long_signatures[min_chars] = (indptr, sig.indices[keep])
        return self._long_signatures[min_chars]

    # ------------------------------------------------------------- decision
    def features(
        self,
        tokens: list[list[str]],
        texts: list[str],
        floor: float | None = None,
        short_chars: int | None = None,
        all_features: bool = False,
        keys: list[str] | None = None,
    ) -> dict[str, np.ndarray]:
        """Every signal's raw value per query (for calibration and for `match`).

        BM25 values are exact from `floor` up (default: the config's threshold)
        for sentences of `short_chars` or more (default: the config's); shorter
        ones get only the exact and near-exact lookups. The ``near_copy`` and
        ``short_quote`` values are computed when the config uses them, or for
        every query (`all_features`, for calibration). `keys`: the texts'
        `match_key`s, when the caller has them.
        """
        cfg = self.config
        floor = cfg.threshold if floor is None else floor
        short_chars = cfg.short_chars if short_chars is None else short_chars
        if all_features and self.near_chars < NEAR_MAX_CHARS:
            raise ValueError(
                f"all_features needs near-exact lookups up to {NEAR_MAX_CHARS} characters; "
                f"this matcher indexes {self.near_chars} (Matcher(near_chars=NEAR_MAX_CHARS))"
            )
        if not all_features and cfg.near_exact_edits and cfg.short_chars > self.near_chars:
            raise ValueError(f"short_chars {cfg.short_chars} > near_chars {self.near_chars}")
        keys = [match_key(t) for t in texts] if keys is None else keys
        qlen = np.fromiter((len(k) for k in keys), dtype=np.int64, count=len(keys))
        exact = np.fromiter((self.exact.get(k, -1) if k else -1 for k in keys), np.int64)
        near = np.full(len(keys), -1, dtype=np.int64)
        if cfg.near_exact_edits:
            most = NEAR_MAX_CHARS if all_features else cfg.short_chars - 1  # the rule's reach
            for i in np.flatnonzero((exact < 0) & (qlen <= most)):
                near[i] = self.near_exact(keys[i])
        qm = self.index.query_matrix(tokens)
        q = qm[0]
        floors = np.where(qlen < short_chars, np.inf, floor)
        b_doc, b_sim = self.bm25_best(tokens, floors, matrix=qm)
        c_doc, c_cov = self.containment_best(q, qlen, cfg.containment_chars)
        o_doc, o_share = self.overlap_best(keys, cfg.overlap_chars, cfg.overlap_share)
        n_doc, n_share = np.full(len(keys), -1, np.int64), np.zeros(len(keys))
        if cfg.short_share > 0 or all_features:
            n_doc, n_share = self.near_copy_best(
                keys, NEAR_MAX_CHARS + 1 if all_features else cfg.short_chars
            )
        s_doc, s_weight = np.full(len(keys), -1, np.int64), np.zeros(len(keys))
        if cfg.quote_weight > 0 or all_features:
            # in a decision, a key of overlap_chars or more found whole is an overlap already
            # (share 1, checked first), so only shorter ones need looking up
            s_doc, s_weight = (
                self.short_quote_best(keys)
                if all_features
                else self.short_quote_best(keys, cfg.quote_weight, cfg.overlap_chars - 1)
            )
        r_doc, r_count = np.full(len(keys), -1, np.int64), np.zeros(len(keys), np.int64)
        limit = self.phrase_limit(cfg)
        if all_features:
            r_doc, r_count = self.rare_quote_best(keys)
        elif limit >= 1:  # as for short_quote, a longer key found whole is an overlap already
            r_doc, r_count = self.rare_quote_best(keys, limit, cfg.overlap_chars - 1)
        span_doc = np.full(len(keys), -1, np.int64)
        if cfg.quoted_span or all_features:
            span_doc = self.quoted_span(texts)
        return {
            "qlen": qlen,
            "exact": exact,
            "near": near,
            "near_copy_doc": n_doc,
            "near_copy": n_share,
            "quote_doc": s_doc,
            "quote_weight": s_weight,
            "span_doc": span_doc,
            "rare_doc": r_doc,
            "rare_count": r_count,
            "bm25_doc": b_doc,
            "bm25": b_sim,
            "contain_doc": c_doc,
            "contain": c_cov,
            "overlap_doc": o_doc,
            "overlap": o_share,
        }

    def fires(self, f: dict[str, np.ndarray], cfg: MatchConfig) -> dict[str, tuple]:
        """Per signal: (fires per query, benchmark sentence, score) under `cfg`'s thresholds.

        Each signal reads only its own thresholds (`SIGNAL_PARAMS`), which lets
        `corpus.calibrate` combine the signals of a grid without deciding every
        configuration from scratch."""
        n = len(f["qlen"])
        short, long_enough = f["qlen"] < cfg.short_chars, f["qlen"] >= cfg.exact_min_chars
        by_weight = (f["quote_doc"] >= 0) & (f["quote_weight"] >= cfg.quote_weight)
        quote_doc = np.where(by_weight & (cfg.quote_weight > 0), f["quote_doc"], f["span_doc"])
        return {
            "exact": (long_enough & (f["exact"] >= 0), f["exact"], np.ones(n)),
            "near_exact": (
                long_enough & short & (f["near"] >= 0) & (cfg.near_exact_edits >= 1),
                f["near"],
                1.0 - 1.0 / np.maximum(f["qlen"], 1),
            ),
            "near_copy": (
                long_enough & short & (f["near_copy_doc"] >= 0) & (cfg.short_share > 0)
                & (f["near_copy"] >= cfg.short_share)
                & (self._doc_weight[np.maximum(f["near_copy_doc"], 0)] >= cfg.short_weight),
                f["near_copy_doc"],
                f["near_copy"],
            ),
            "overlap": (
                (f["overlap_doc"] >= 0) & (f["overlap"] >= cfg.overlap_share),
                f["overlap_doc"],
                f["overlap"],
            ),
            "short_quote": (
                (by_weight & (cfg.quote_weight > 0)) | ((f["span_doc"] >= 0) & cfg.quoted_span),
                quote_doc,
                self._doc_weight[np.maximum(quote_doc, 0)],  # the benchmark sentence's weight
            ),
            "rare_quote": (
                (f["rare_doc"] >= 0) & (f["rare_count"] <= self.phrase_limit(cfg)),
                f["rare_doc"],
                f["rare_count"].astype(np.float64),  # corpus sentences holding the phrase
            ),
            "bm25": (
                ~short & (f["bm25_doc"] >= 0) & (f["bm25"] >= cfg.threshold),
                f["bm25_doc"],
                f["bm25"],
            ),
            "containment": (
                ~short & (f["contain_doc"] >= 0) & (f["contain"] >= cfg.containment)
                & (self._key_len[np.maximum(f["contain_doc"], 0)] >= cfg.containment_chars),
                f["contain_doc"],
                f["contain"],
            ),
        }  # fmt: skip

    def decide(self, f: dict[str, np.ndarray], cfg: MatchConfig | None = None) -> Matches:
        """Applies the thresholds of `cfg` to precomputed `features`: the first signal
        (in `SIGNALS` order) that fires names the match."""
        cfg = cfg or self.config
        n = len(f["qlen"])
        doc = np.full(n, -1, dtype=np.int64)
        score = np.zeros(n)
        signal = np.full(n, "", dtype=object)
        fired = self.fires(f, cfg)
        for name in SIGNALS:
            fire, d, s = fired[name]
            take = fire & (doc < 0)
            doc[take] = d[take]
            score[take] = s[take]
            signal[take] = name
        return Matches(doc=doc, signal=list(signal), score=score, features=f)

    def match(self, tokens: list[list[str]], texts: list[str]) -> Matches:
        """Which benchmark sentence (if any) each corpus sentence copies, and by which signal."""
        return self.decide(self.features(tokens, texts))

    def match_texts(self, texts: list[str]) -> Matches:
        """`match` from the raw texts: each `match_key` computed once, and only sentences
        of ``short_chars`` or more tokenised (shorter ones reach no signal that reads
        morphemes: BM25 and containment are for longer sentences), so the decisions
        are `match`'s with every text tokenised (tested)."""
        keys = [match_key(t) for t in texts]
        short, kind = self.config.short_chars, self.index.tokenizer
        tokens = [
            tokenize(t, kind) if len(k) >= short else [] for t, k in zip(texts, keys, strict=True)
        ]
        return self.decide(self.features(tokens, texts, keys=keys))


def _one_edit(a: str, b: str) -> bool:
    """True when `a` and `b` differ by one substitution, insertion or deletion of a
    particle or ending syllable (`FUNCTION_SYLLABLES`): ``지루했다``/``지루했어`` but not
    ``재미있는``/``재미없는`` (one syllable too, and the opposite meaning)."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    if len(a) == len(b):
        return a[i + 1 :] == b[i + 1 :] and {a[i], b[i]} <= FUNCTION_SYLLABLES
    if len(a) < len(b):
        return a[i:] == b[i + 1 :] and b[i] in FUNCTION_SYLLABLES
    return a[i + 1 :] == b[i:] and a[i] in FUNCTION_SYLLABLES


def _row_positions(indptr: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where the entries of the CSR rows `rows` lie in its data (row by row, each in its
    stored order) and, for each entry, the index in `rows` of its row."""
    starts = indptr[rows].astype(np.int64)
    sizes = indptr[rows + 1] - starts
    owner = np.repeat(np.arange(len(rows)), sizes)
    return np.arange(len(owner)) + np.repeat(starts - (np.cumsum(sizes) - sizes), sizes), owner


def _segment_sums(values: np.ndarray, owner: np.ndarray, n: int) -> np.ndarray:
    """Per owner in ``range(n)``, the sum of its `values` (each owner's contiguous) by
    ``np.add.reduceat``, as scipy's sparse row sums add them (pairwise summation)."""
    out = np.zeros(n)
    if len(values):
        first = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
        out[owner[first]] = np.add.reduceat(values, first)
    return out
