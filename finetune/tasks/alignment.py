"""Characters <-> subword tokens: the offset mapping shared by the span tasks (RE, NER, MRC).

KLUE labels characters (NER tags, MRC answer offsets, RE entity offsets) while the encoder
sees subword tokens. Every span task therefore needs the same two facts about a tokenised
text: which characters each token covers (``offsets``, half-open ``[start, end)`` in the
ORIGINAL string, as `tokenizers` reports them after normalisation), and, inversely, which
token covers a character (`char_to_token`, -1 for a character no token covers: spaces,
characters the normaliser removed, or text cut off by truncation).

Only the tokenizer's own offsets are used, never a re-tokenisation of words or a string
search on decoded tokens, so the mapping is exact for any BERT/RoBERTa WordPiece tokenizer
(ours, or a Hugging Face folder's ``tokenizer.json``) including ``[UNK]`` tokens, whose offsets
cover the characters they replaced.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class TokenizedText:
    """Token ids of a text (no special tokens) and each token's ``[start, end)`` characters."""

    ids: tuple[int, ...]
    offsets: tuple[tuple[int, int], ...]

    def __len__(self) -> int:
        return len(self.ids)


def backend(tokenizer: Any) -> Any:
    """The `tokenizers.Tokenizer` behind `tokenizer` (itself, or a HF fast tokenizer's)."""
    return getattr(tokenizer, "backend_tokenizer", tokenizer)


def tokenize(tokenizer: Any, text: str) -> TokenizedText:
    """Tokenises `text` without special tokens, keeping character offsets into `text`."""
    enc = backend(tokenizer).encode(text, add_special_tokens=False)
    return TokenizedText(tuple(enc.ids), tuple((int(s), int(e)) for s, e in enc.offsets))


def tokenize_batch(tokenizer: Any, texts: Sequence[str]) -> list[TokenizedText]:
    """`tokenize` for many texts at once (the Rust tokenizer runs them in parallel)."""
    encs = backend(tokenizer).encode_batch(list(texts), add_special_tokens=False)
    return [
        TokenizedText(tuple(e.ids), tuple((int(s), int(t)) for s, t in e.offsets)) for e in encs
    ]


def char_to_token(offsets: Sequence[tuple[int, int]], n_chars: int) -> np.ndarray:
    """``out[c]`` = index of the token covering character ``c``, or -1 when none does.

    If tokens overlap (never with a WordPiece tokenizer), the earliest token wins.
    """
    out = np.full(n_chars, -1, dtype=np.int64)
    for t in range(len(offsets) - 1, -1, -1):
        s, e = offsets[t]
        out[max(s, 0) : min(e, n_chars)] = t
    return out


def char_span_to_tokens(
    offsets: Sequence[tuple[int, int]], start: int, end: int
) -> tuple[int, int] | None:
    """Tokens ``(first, last)`` (inclusive) that cover characters ``[start, end)``.

    The first token is the one whose characters reach past `start` (so an answer that begins
    inside a token starts at that token, as SQuAD feature builders do), the last is the last
    token that starts before `end`. None when no token lies in the span (for example a span
    of spaces only, or one that truncation cut off).
    """
    first = last = None
    for t, (s, e) in enumerate(offsets):
        if e <= s:  # zero-width tokens cover nothing
            continue
        if first is None and e > start and s < end:
            first = t
        if s < end and e > start:
            last = t
    if first is None or last is None:
        return None
    return first, last
