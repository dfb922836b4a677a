"""Turning tokenized documents into pretraining sequences, in pure NumPy.

A *document* is a list of *segments* (sentences), each a 1-D int array of
token ids without special tokens.

BERT (`create_nsp_instances`): google-research/bert's
``create_instances_from_document``. Segments are accumulated up to a target
length (``max_seq_length - 3``, or with probability ``short_seq_prob`` a random
length in [2, max]); the chunk is split at a random segment boundary into A
and B; with probability 0.5 (always when the chunk has one segment) B is
replaced by text from a random *other* document and the unused segments are
put back; the pair is truncated by `truncate_seq_pair`. Label 0 = IsNext,
1 = NotNext (random). One deliberate difference: the random document is drawn
uniformly among the *other* documents (google-research/bert retries ten times
and may still pick the same one), so a NotNext pair never comes from its own
document.

RoBERTa FULL-SENTENCES (`pack_full_sentences`): whole segments are packed
contiguously into ``[CLS] ... [SEP]`` sequences of at most ``max_seq_length``
tokens; a sequence may cross a document boundary, marked with an extra
[SEP]; a segment that does not fit ends the sequence (it starts the next one).
A segment longer than a whole sequence is cut into full-length pieces.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

Document = Sequence[np.ndarray]


@dataclass(frozen=True)
class PairInstance:
    """One BERT example before masking."""

    tokens_a: np.ndarray
    tokens_b: np.ndarray
    is_random_next: bool
    truncated: int = 0  # tokens removed by truncate_seq_pair

    def to_ids(self, cls_id: int, sep_id: int) -> tuple[np.ndarray, np.ndarray]:
        """``[CLS] A [SEP] B [SEP]`` ids and their segment (token type) ids."""
        a, b = self.tokens_a, self.tokens_b
        ids = np.concatenate([[cls_id], a, [sep_id], b, [sep_id]]).astype(np.int32)
        types = np.zeros(len(ids), np.int32)
        types[len(a) + 2 :] = 1
        return ids, types


def truncate_seq_pair(
    tokens_a: list[int], tokens_b: list[int], max_num_tokens: int, rng: np.random.Generator
) -> int:
    """Truncates in place, one token at a time from the longer sequence, at a random end.

    Returns the number of tokens removed. As google-research/bert: removing
    from the front or the back avoids always cutting the same side.
    """
    removed = 0
    while len(tokens_a) + len(tokens_b) > max_num_tokens:
        trunc = tokens_a if len(tokens_a) > len(tokens_b) else tokens_b
        if rng.random() < 0.5:
            del trunc[0]
        else:
            trunc.pop()
        removed += 1
    return removed


def create_nsp_instances(
    documents: Sequence[Document],
    doc_index: int,
    *,
    max_seq_length: int,
    rng: np.random.Generator,
    short_seq_prob: float = 0.1,
    random_next_prob: float = 0.5,
) -> list[PairInstance]:
    """The segment pairs of ``documents[doc_index]`` (google-research/bert algorithm)."""
    if len(documents) < 2:
        raise ValueError("next-sentence prediction needs at least 2 documents")
    if max_seq_length < 5:
        raise ValueError(f"max_seq_length must be >= 5 for a segment pair, got {max_seq_length}")
    document = documents[doc_index]
    max_num_tokens = max_seq_length - 3
    target_seq_length = max_num_tokens
    if rng.random() < short_seq_prob:
        target_seq_length = int(rng.integers(2, max_num_tokens + 1))

    instances: list[PairInstance] = []
    chunk: list[np.ndarray] = []
    chunk_len = 0
    i = 0
    while i < len(document):
        segment = document[i]
        chunk.append(segment)
        chunk_len += len(segment)
        if i == len(document) - 1 or chunk_len >= target_seq_length:
            if chunk:
                a_end = 1
                if len(chunk) >= 2:
                    a_end = int(rng.integers(1, len(chunk)))
                tokens_a = [int(t) for seg in chunk[:a_end] for t in seg]
                tokens_b: list[int] = []
                is_random_next = len(chunk) == 1 or rng.random() < random_next_prob
                if is_random_next:
                    target_b_length = target_seq_length - len(tokens_a)
                    other = int(rng.integers(0, len(documents) - 1))
                    if other >= doc_index:
                        other += 1
                    random_document = documents[other]
                    start = int(rng.integers(0, len(random_document)))
                    for j in range(start, len(random_document)):
                        tokens_b.extend(int(t) for t in random_document[j])
                        if len(tokens_b) >= target_b_length:
                            break
                    # The segments not used for B go back to the document.
                    i -= len(chunk) - a_end
                else:
                    for seg in chunk[a_end:]:
                        tokens_b.extend(int(t) for t in seg)
                removed = truncate_seq_pair(tokens_a, tokens_b, max_num_tokens, rng)
                if tokens_a and tokens_b:
                    instances.append(
                        PairInstance(
                            np.asarray(tokens_a, np.int32),
                            np.asarray(tokens_b, np.int32),
                            bool(is_random_next),
                            removed,
                        )
                    )
            chunk = []
            chunk_len = 0
        i += 1
    return instances


@dataclass
class PackStats:
    """What `pack_full_sentences` did, for the build manifest."""

    sequences: int = 0
    segments: int = 0
    split_segments: int = 0  # segments longer than a sequence, cut into pieces
    document_boundaries: int = 0  # [SEP]s inserted between documents inside a sequence
    content_tokens: int = 0


def pack_full_sentences(
    documents: Sequence[Document],
    *,
    max_seq_length: int,
    cls_id: int,
    sep_id: int,
    stats: PackStats | None = None,
) -> Iterator[np.ndarray]:
    """Yields ``[CLS] s1 s2 ... [SEP] t1 ... [SEP]`` int32 sequences of length <= max_seq_length.

    ``[SEP]`` both ends a sequence and separates two documents inside it. The
    last sequence of the input may be short; every other sequence is as full as
    whole segments allow.
    """
    capacity = max_seq_length - 2
    if capacity < 1:
        raise ValueError(f"max_seq_length must be >= 3, got {max_seq_length}")
    stats = stats if stats is not None else PackStats()
    buf: list[np.ndarray] = []
    used = 0

    def flush() -> np.ndarray:
        nonlocal buf, used
        seq = np.concatenate([[cls_id], *buf, [sep_id]]).astype(np.int32)
        buf, used = [], 0
        stats.sequences += 1
        return seq

    sep = np.asarray([sep_id], np.int32)
    for document in documents:
        first = True
        for segment in document:
            segment = np.asarray(segment, np.int32)
            if len(segment) == 0:
                continue
            stats.segments += 1
            stats.content_tokens += len(segment)
            pieces = [segment]
            if len(segment) > capacity:
                stats.split_segments += 1
                pieces = [segment[k : k + capacity] for k in range(0, len(segment), capacity)]
            for piece in pieces:
                boundary = first and used > 0
                need = len(piece) + (1 if boundary else 0)
                if used + need > capacity:
                    yield flush()
                    boundary = False
                    need = len(piece)
                if boundary:
                    buf.append(sep)
                    stats.document_boundaries += 1
                buf.append(piece)
                used += need
                first = False
    if used:
        yield flush()
