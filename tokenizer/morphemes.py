"""Mecab-ko pre-tokenisation: text -> words -> morpheme pieces, for vocabulary training.

KLUE's "morpheme-based subword" tokenizer learns its vocabulary on text that
Mecab-ko has split into morphemes: every word keeps its first morpheme as a
word-initial piece and marks the others as continuation pieces, so that BPE
merges never cross a morpheme boundary. At inference only WordPiece runs.

Words here are exactly what the inference tokenizer sees: the text after
`BertNormalizer` and `BertPreTokenizer` (whitespace and punctuation split), so
the training units and the inference units agree (``밥을.`` -> ``밥을`` and ``.``).

Mecab's output is not trusted to reproduce the text: python-mecab-ko's spans
drift when a line starts with whitespace, and a surface may differ from the
input (normalised characters). So morpheme surfaces are aligned to the text
with a cursor, and a morpheme is only used where its surface is found at the
cursor (after whitespace, or after a short gap of unaligned characters). The
word is then cut at the aligned boundaries, which guarantees by construction
that the pieces of a word concatenate back to the word exactly; an unaligned
morpheme simply leaves its characters joined to a neighbour (counted as
``unaligned`` in the statistics). If Mecab fails on a line, its words stay
whole.

Splitting is the slow step (about 1 MB/s per core), so `count_units` spreads
chunks of lines over worker processes and merges their unit counts in input
order, making the output independent of the number of workers.
"""

from __future__ import annotations

import bisect
import collections
import multiprocessing
import re
from collections.abc import Callable, Iterable, Iterator
from itertools import islice

from corpus.cli import spawning_deaf_to_ctrl_c, start_worker
from corpus.mecab_surfaces import mecab_surfaces
from tokenizer.wordpiece import bert_normalizer, bert_pre_tokenizer, training_unit

#: Longest run of unaligned characters skipped to re-synchronise with Mecab.
MAX_GAP = 8

#: sentencepiece's space mark: always its own piece in training, so no learned
#: token ever contains it next to other characters.
SPACE_MARK = "\u2581"


class MorphemeSplitter:
    """Mecab-ko morpheme boundaries of a text, aligned to its characters."""

    def __init__(self) -> None:
        self.counts: collections.Counter = collections.Counter()

    def surfaces(self, text: str) -> list[str]:
        """Mecab's morpheme surfaces for `text`, in order (`corpus.mecab_surfaces`: a
        tagger that prints only the surfaces, 35-40% cheaper per kowiki sentence than reading
        them from the lattice's nodes, and the same surfaces)."""
        return mecab_surfaces(text)

    def boundaries(self, text: str) -> set[int]:
        """Character offsets in `text` where an aligned morpheme starts or ends."""
        try:
            surfaces = self.surfaces(text)
        except Exception:  # noqa: BLE001 - a failed analysis leaves the words whole
            self.counts["mecab_failed_lines"] += 1
            return set()
        return align(text, surfaces, self.counts)

    @staticmethod
    def split_word(word: str, start: int, cuts: list[int]) -> list[str]:
        """`word` (at offset `start`) cut at the sorted boundaries `cuts` strictly inside it."""
        end = start + len(word)
        lo = bisect.bisect_right(cuts, start)
        hi = bisect.bisect_left(cuts, end, lo)
        if lo >= hi:
            return [word]
        edges = [0, *(c - start for c in cuts[lo:hi]), len(word)]
        return [word[a:b] for a, b in zip(edges, edges[1:], strict=False)]


def align(text: str, surfaces: list[str], counts: collections.Counter | None = None) -> set[int]:
    """Aligns morpheme `surfaces` to `text`; returns the aligned start/end offsets.

    A surface is accepted where it occurs at the cursor after whitespace, or
    after at most `MAX_GAP` other characters (those belong to a morpheme whose
    surface Mecab altered). Anything else is skipped without moving the cursor.
    """
    cuts: set[int] = set()
    cursor = 0
    for surface in surfaces:
        if not surface:
            continue
        pos = text.find(surface, cursor)
        if pos < 0:
            if counts is not None:
                counts["unaligned_morphemes"] += 1
            continue
        gap = text[cursor:pos]
        if gap.strip():
            if len(gap.strip()) > MAX_GAP:
                if counts is not None:
                    counts["unaligned_morphemes"] += 1
                continue
            if counts is not None:
                counts["unaligned_morphemes"] += 1
        cuts.add(pos)
        cursor = pos + len(surface)
        cuts.add(cursor)
    if counts is not None:
        counts["morphemes"] += len(surfaces)
    return cuts


class Segmenter:
    """Turns lines of raw text into training units, one list per line.

    A unit is a piece as `tokenizer.wordpiece.training_unit` writes it
    (continuation characters shadowed). With ``morphemes=False`` (plain BPE)
    every word is one unit.
    """

    def __init__(self, morphemes: bool) -> None:
        self.normalizer = bert_normalizer()
        self.pre_tokenizer = bert_pre_tokenizer()
        self.splitter = MorphemeSplitter() if morphemes else None
        self.counts: collections.Counter = collections.Counter()

    def words(self, text: str) -> tuple[str, list[tuple[str, tuple[int, int]]]]:
        """The normalised text and its words with offsets, as the inference tokenizer sees them."""
        norm = self.normalizer.normalize_str(text)
        return norm, self.pre_tokenizer.pre_tokenize_str(norm)

    def pieces(self, text: str) -> list[list[str]]:
        """For each word of `text`, its pieces (one piece per word without morphemes)."""
        norm, words = self.words(text)
        if self.splitter is None or not words:
            return [[w] for w, _ in words]
        cuts = sorted(self.splitter.boundaries(norm))
        return [self.splitter.split_word(w, s, cuts) for w, (s, _) in words]

    def units(self, text: str) -> list[str]:
        """Training units of `text` (see `tokenizer.wordpiece`): shadowed continuation pieces."""
        out: list[str] = []
        for pieces in self.pieces(text):
            if SPACE_MARK in "".join(pieces):
                pieces = _isolate_space_mark(pieces)
            self.counts["words"] += 1
            self.counts["pieces"] += len(pieces)
            for i, piece in enumerate(pieces):
                unit = training_unit(piece, continuation=i > 0)
                if unit is None:
                    self.counts["untrainable_pieces"] += 1
                else:
                    out.append(unit)
        self.counts["lines"] += 1
        return out

    def all_counts(self) -> dict[str, int]:
        merged = collections.Counter(self.counts)
        if self.splitter is not None:
            merged.update(self.splitter.counts)
        return dict(merged)


def _isolate_space_mark(pieces: list[str]) -> list[str]:
    out: list[str] = []
    for piece in pieces:
        out.extend(p for p in re.split(f"({SPACE_MARK})", piece) if p)
    return out


_WORKER: Segmenter | None = None


def _init_worker(morphemes: bool) -> None:
    global _WORKER
    _WORKER = Segmenter(morphemes)


def _count_chunk(lines: list[str]) -> tuple[dict[str, int], dict[str, int], dict[str, int]]:
    """Worker: one chunk of lines -> (unit counts, segmentation counts, character counts)."""
    seg = _WORKER
    assert seg is not None
    seg.counts.clear()
    if seg.splitter is not None:
        seg.splitter.counts.clear()
    units: collections.Counter = collections.Counter()
    for line in lines:
        units.update(seg.units(line))
    chars: collections.Counter = collections.Counter()
    for unit, n in units.items():
        for ch in unit:
            chars[ch] += n
    return dict(units), seg.all_counts(), dict(chars)


def _chunks(lines: Iterable[str], size: int) -> Iterator[list[str]]:
    it = iter(lines)
    while chunk := list(islice(it, size)):
        yield chunk


def count_units(
    lines: Iterable[str],
    *,
    morphemes: bool,
    workers: int = 1,
    chunk_lines: int = 1000,
    counts: collections.Counter | None = None,
    char_counts: collections.Counter | None = None,
    max_distinct: int | None = None,
    progress: Callable[[], None] | None = None,
) -> collections.Counter:
    """Counts the training units of `lines` (see `Segmenter.units`), segmenting in parallel.

    `progress` (if given) is called after each chunk is merged (the caller reads how far
    its `lines` have got).

    Only the counts are kept, never the units in order: that is all the BPE
    trainer needs, and it needs no temporary file. `counts` (if given)
    accumulates lines, words, pieces, morphemes and unaligned morphemes;
    `char_counts` the characters of all units (the alphabet's input).

    `max_distinct` bounds memory: whenever more distinct units are held, those
    seen only once so far are dropped (then twice, ... until at most half the
    bound is left), and `counts["units_pruned_early"]` counts the occurrences
    dropped. Chunks are merged in input order, so the result does not depend
    on `workers`.
    """
    total: collections.Counter = collections.Counter()
    if workers <= 1:
        _init_worker(morphemes)
        results: Iterable = map(_count_chunk, _chunks(lines, chunk_lines))
        _merge(results, total, counts, char_counts, max_distinct, progress)
        return total
    # spawn, never fork: the caller may already run threads (the tokenizers Rust pool of an
    # earlier training, JAX in pretrain's bootstrap), and a forked child of a threaded
    # process can deadlock on a lock held by a thread that does not exist in the child.
    ctx = multiprocessing.get_context("spawn")
    with spawning_deaf_to_ctrl_c():
        pool = ctx.Pool(workers, initializer=_init_pool_worker, initargs=(morphemes,))
    with pool:
        results = pool.imap(_count_chunk, _chunks(lines, chunk_lines), 1)
        _merge(results, total, counts, char_counts, max_distinct, progress)
    return total


def _init_pool_worker(morphemes: bool) -> None:
    """Pool worker start: Ctrl-C reaches the whole process group, and only the parent acts on
    it (leaving the pool terminates the workers), so no worker prints a traceback; a worker
    exits when its parent dies (`corpus.cli.start_worker`)."""
    start_worker()
    _init_worker(morphemes)


def _merge(results, total, counts, char_counts, max_distinct, progress=None) -> None:
    for units, chunk_counts, chunk_chars in results:
        if progress is not None:
            progress()
        total.update(units)
        if counts is not None:
            counts.update(chunk_counts)
        if char_counts is not None:
            char_counts.update(chunk_chars)
        if max_distinct is not None and len(total) > max_distinct:
            floor = 1
            while len(total) > max_distinct // 2:
                rare = [u for u, n in total.items() if n <= floor]
                for u in rare:
                    if counts is not None:
                        counts["units_pruned_early"] += total[u]
                    del total[u]
                floor += 1


def split_text(text: str) -> list[list[str]]:
    """The Mecab morpheme pieces of each word of `text` (for tests and inspection)."""
    return Segmenter(morphemes=True).pieces(text)
