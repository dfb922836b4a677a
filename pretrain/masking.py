"""Whole-word masking for masked-language-model pretraining, in pure NumPy.

A *whole word* is an eojeol as the WordPiece vocabulary sees it: a piece plus
every following piece that starts with ``##``. KLUE-BERT (static) and
KLUE-RoBERTa (dynamic) both mask whole words: every piece of a chosen word is
a prediction, and no chosen group ever spans two words.

The algorithm follows google-research/bert ``create_masked_lm_predictions``
with ``do_whole_word_mask``:

1. Special tokens ([PAD] [UNK] [CLS] [SEP] [MASK] by default) are never
   chosen. The target count is ``round(masked_lm_prob * n)`` with at least one,
   where ``n`` is the number of maskable (non-special) tokens, capped at
   ``max_predictions``. (google-research/bert counts [CLS]/[SEP] in ``n``;
   counting only maskable tokens makes the 15% rate exact on every sequence.)
2. Words are visited in a random order; a word is added when all its pieces
   still fit under the target, skipped when it would overshoot (a later,
   shorter word may still fit), and the loop stops once the target is reached.
3. Each chosen position independently becomes [MASK] with probability 0.8,
   a random non-special token with 0.1, and stays unchanged with 0.1.

Randomness comes only from the `numpy.random.Generator` passed in. Callers
derive it with `example_rng` from integers (seed, epoch, example index, ...),
so an example's mask never depends on iteration order, batch layout or the
number of hosts. The draw sequence per example is fixed: one permutation of
the words, then ``n_predictions`` uniforms, then ``n_predictions`` random ids.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

#: klue/bert-base special ids; `MaskingSpec.from_vocab` reads the real ones.
PAD_ID, UNK_ID, CLS_ID, SEP_ID, MASK_ID = 0, 1, 2, 3, 4
SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")


def default_max_predictions(max_seq_length: int, masked_lm_prob: float = 0.15) -> int:
    """ceil(masked_lm_prob * L): 20 for L=128 and 77 for L=512 at 15%."""
    # Integer arithmetic in basis points avoids 0.15 * 512 = 76.80000000000001 surprises.
    bp = round(masked_lm_prob * 10_000)
    return (bp * max_seq_length + 9_999) // 10_000


def example_rng(*keys: int) -> np.random.Generator:
    """A generator that is a pure function of the integer keys (e.g. seed, epoch, index)."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence([int(k) for k in keys])))


@dataclass(frozen=True)
class MaskingSpec:
    """Static, vocabulary-derived tables and the masking probabilities.

    `is_continuation[i]` is True for a ``##`` piece; `is_special[i]` for ids
    that are never chosen; `replacement_ids` are the ids a random replacement
    is drawn from (every non-special id).
    """

    is_continuation: np.ndarray
    is_special: np.ndarray
    mask_id: int
    max_predictions: int
    masked_lm_prob: float = 0.15
    mask_token_prob: float = 0.8
    random_token_prob: float = 0.1

    def __post_init__(self) -> None:
        if self.is_continuation.shape != self.is_special.shape:
            raise ValueError("is_continuation and is_special must have the vocabulary's shape")
        if not 0.0 <= self.masked_lm_prob <= 1.0:
            raise ValueError(f"masked_lm_prob must be in [0, 1], got {self.masked_lm_prob}")
        if self.mask_token_prob < 0 or self.random_token_prob < 0:
            raise ValueError("mask_token_prob and random_token_prob must be >= 0")
        if self.mask_token_prob + self.random_token_prob > 1.0 + 1e-12:
            raise ValueError("mask_token_prob + random_token_prob must be <= 1")
        if self.max_predictions < 1:
            raise ValueError(f"max_predictions must be >= 1, got {self.max_predictions}")
        if not self.is_special[self.mask_id]:
            raise ValueError(f"mask id {self.mask_id} must be a special token")

    @property
    def vocab_size(self) -> int:
        return int(self.is_special.shape[0])

    @property
    def replacement_ids(self) -> np.ndarray:
        return np.flatnonzero(~self.is_special).astype(np.int32)

    @classmethod
    def from_vocab(
        cls,
        vocab: Sequence[str] | Mapping[str, int],
        *,
        max_predictions: int,
        special_tokens: Iterable[str] = SPECIAL_TOKENS,
        mask_token: str = "[MASK]",
        **probs: float,
    ) -> MaskingSpec:
        """Builds the tables from tokens in id order (a list) or a token -> id mapping."""
        if isinstance(vocab, Mapping):
            tokens: list[str | None] = [None] * (max(vocab.values()) + 1)
            for tok, i in vocab.items():
                tokens[i] = tok
        else:
            tokens = list(vocab)
        size = len(tokens)
        cont = np.array([t is not None and len(t) > 2 and t.startswith("##") for t in tokens])
        special = np.zeros(size, dtype=bool)
        index = {t: i for i, t in enumerate(tokens) if t is not None}
        for tok in special_tokens:
            if tok in index:
                special[index[tok]] = True
        if mask_token not in index:
            raise ValueError(f"vocabulary has no {mask_token} token")
        # Unused ids (holes in a mapping) must never be drawn as replacements.
        special |= np.array([t is None for t in tokens], dtype=bool)
        return cls(
            is_continuation=cont & ~special,
            is_special=special,
            mask_id=index[mask_token],
            max_predictions=max_predictions,
            **probs,
        )


@dataclass(frozen=True)
class MaskedExample:
    """Fixed-shape masking output: ``input_ids`` has the input's length, the rest ``[P]``."""

    input_ids: np.ndarray  # int32 [L], chosen positions replaced
    masked_positions: np.ndarray  # int32 [P], ascending, padded with 0
    masked_ids: np.ndarray  # int32 [P], the original ids, padded with 0
    masked_weights: np.ndarray  # float32 [P], 1.0 real, 0.0 padding

    @property
    def num_predictions(self) -> int:
        return int(self.masked_weights.sum())


def word_ids(tokens: np.ndarray, spec: MaskingSpec) -> np.ndarray:
    """Word index of every position (0, 1, ...), -1 for special tokens.

    A ``##`` piece continues the word before it unless that position is a
    special token (then it starts a word of its own).
    """
    tokens = np.asarray(tokens)
    special = spec.is_special[tokens]
    cont = spec.is_continuation[tokens]
    prev_maskable = np.concatenate([[False], ~special[:-1]])
    starts = ~special & ~(cont & prev_maskable)
    ids = np.cumsum(starts) - 1
    return np.where(special, -1, ids).astype(np.int64)


def choose_words(lengths: np.ndarray, target: int, rng: np.random.Generator) -> np.ndarray:
    """Indices of the words chosen, greedily in a random order, without overshooting `target`.

    Equivalent to google-research/bert's loop: the longest prefix of the
    shuffled order that fits is taken at once, then the rest is scanned for
    words small enough to fill the remainder.
    """
    order = rng.permutation(len(lengths))
    if target <= 0 or len(lengths) == 0:
        return order[:0]
    cum = np.cumsum(lengths[order])
    k = int(np.searchsorted(cum, target, side="right"))
    chosen = list(order[:k])
    count = int(cum[k - 1]) if k else 0
    for w in order[k:]:
        if count >= target:
            break
        if count + lengths[w] <= target:
            chosen.append(w)
            count += int(lengths[w])
    return np.asarray(chosen, dtype=np.int64)


def whole_word_mask(
    tokens: np.ndarray, spec: MaskingSpec, rng: np.random.Generator
) -> MaskedExample:
    """Masks whole words of one sequence (no padding) and returns fixed-shape arrays."""
    tokens = np.asarray(tokens, dtype=np.int32)
    if tokens.ndim != 1:
        raise ValueError(f"tokens must be 1-D, got shape {tokens.shape}")
    if tokens.size and (tokens.min() < 0 or tokens.max() >= spec.vocab_size):
        raise ValueError(f"token id out of range [0, {spec.vocab_size})")
    wid = word_ids(tokens, spec)
    maskable = wid >= 0
    n_maskable = int(maskable.sum())
    n_words = int(wid.max()) + 1 if n_maskable else 0
    lengths = np.bincount(wid[maskable], minlength=n_words)
    target = 0
    if n_maskable:
        target = min(spec.max_predictions, max(1, int(round(n_maskable * spec.masked_lm_prob))))
    chosen = np.zeros(n_words + 1, dtype=bool)  # slot n_words: specials, never chosen
    chosen[choose_words(lengths, target, rng)] = True
    positions = np.flatnonzero(chosen[np.where(maskable, wid, n_words)]).astype(np.int32)
    n = len(positions)
    u = rng.random(n)
    repl = spec.replacement_ids
    random_ids = repl[rng.integers(0, len(repl), n)] if n else repl[:0]
    originals = tokens[positions]
    new = np.where(
        u < spec.mask_token_prob,
        spec.mask_id,
        np.where(u >= 1.0 - spec.random_token_prob, random_ids, originals),
    )
    out = tokens.copy()
    out[positions] = new
    p = spec.max_predictions
    masked_positions = np.zeros(p, np.int32)
    masked_ids = np.zeros(p, np.int32)
    weights = np.zeros(p, np.float32)
    masked_positions[:n] = positions
    masked_ids[:n] = originals
    weights[:n] = 1.0
    return MaskedExample(out, masked_positions, masked_ids, weights)
