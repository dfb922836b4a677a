"""Whole-word masking for masked-language-model pretraining, in pure NumPy.

A *whole word* is an eojeol as the vocabulary sees it: for WordPiece a piece plus
every following piece that starts with ``##``; for SentencePiece a piece starting with ``▁``
plus the pieces without it that follow (`pretrain.tokenizer_kinds`). KLUE-BERT (static) and
KLUE-RoBERTa (dynamic) both mask whole words: every piece of a chosen word is
a prediction, and no chosen group ever spans two words.

The algorithm follows google-research/bert ``create_masked_lm_predictions``
with ``do_whole_word_mask``:

1. Special tokens ([PAD] [UNK] [CLS] [SEP] [MASK] by default) are never
   chosen. The target count is ``round(masked_lm_prob * n)`` with at least one,
   where ``n`` is the number of maskable (non-special) tokens, capped at
   ``max_predictions``. (google-research/bert counts [CLS]/[SEP] in ``n``;
   counting only maskable tokens makes the rate 15% of the tokens that can
   actually be predicted.)
2. Words are visited in a random order; a word is added when all its pieces
   still fit under the target, skipped when it would overshoot (a later,
   shorter word may still fit), and the loop stops once the target is reached.
3. Each chosen position independently becomes [MASK] with probability 0.8,
   a random non-special token with 0.1, and stays unchanged with 0.1.

Randomness is counter-based: every example has a 64-bit *key* (`example_key`
of integers such as seed, epoch and example index), and its random numbers
are SplitMix64 outputs at fixed counters of that key (`random_bits`): word
``j``'s sort key for the random visiting order is stream 0, counter ``j``; the
``j``-th chosen position (from the left) uses uniform stream 1 and
replacement stream 2 at counter ``j``. So an example's mask is a pure function
of its tokens and key -- never of iteration order, batch layout or the number
of hosts -- and `whole_word_mask_batch` does all the work vectorised over the
batch (no Python loop per example), which is what lets the loader mask
RoBERTa batches on the fly.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

# The one list of special tokens is the tokenizer's (the stage that creates them).
from tokenizer.wordpiece import SPECIAL_TOKENS

#: klue/bert-base special ids; `MaskingSpec.from_vocab` reads the real ones.
PAD_ID, UNK_ID, CLS_ID, SEP_ID, MASK_ID = 0, 1, 2, 3, 4


def default_max_predictions(max_seq_length: int, masked_lm_prob: float = 0.15) -> int:
    """ceil(masked_lm_prob * L): 20 for L=128 and 77 for L=512 at 15%."""
    # Integer arithmetic in basis points avoids 0.15 * 512 = 76.80000000000001 surprises.
    bp = round(masked_lm_prob * 10_000)
    return (bp * max_seq_length + 9_999) // 10_000


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_STREAM = np.uint64(1 << 40)


def mix64(x: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser on uint64 arrays (arithmetic wraps): a fast 64-bit mixer."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def example_key(*parts: int | np.ndarray) -> np.ndarray:
    """A 64-bit key per example from integer parts (scalars or equal-shape arrays).

    ``example_key(seed, epoch, index)`` hashes the parts in order, so any part
    changing gives an unrelated key. Returns a uint64 array (0-d for scalars).
    """
    shape = np.broadcast(*[np.asarray(p) for p in parts]).shape
    h = np.zeros(max(1, int(np.prod(shape))), dtype=np.uint64)  # 1-d: array ops wrap silently
    for part in parts:
        part = np.broadcast_to(np.asarray(part), shape).reshape(-1).astype(np.int64)
        h = mix64(h ^ mix64(part.astype(np.uint64) + _GOLDEN))
    return h.reshape(shape)


def random_bits(keys: np.ndarray, stream: int, n: int) -> np.ndarray:
    """uint64 [B, n]: SplitMix64 outputs of each row's key at counters 0..n-1 of `stream`."""
    keys = np.asarray(keys, dtype=np.uint64).reshape(-1, 1)
    counters = np.uint64(stream) * _STREAM + np.arange(n, dtype=np.uint64)
    return mix64(keys + (counters + np.uint64(1)) * _GOLDEN)


def uniforms(bits: np.ndarray) -> np.ndarray:
    """Floats in [0, 1) from the top 53 bits."""
    return (bits >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))


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
    replacement_ids: np.ndarray = field(init=False, repr=False, compare=False)

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
        # Cached: recomputing it per sequence costs more than the masking itself.
        object.__setattr__(
            self, "replacement_ids", np.flatnonzero(~self.is_special).astype(np.int32)
        )

    @property
    def vocab_size(self) -> int:
        return int(self.is_special.shape[0])

    @classmethod
    def from_vocab(
        cls,
        vocab: Sequence[str] | Mapping[str, int],
        *,
        max_predictions: int,
        special_tokens: Iterable[str] = SPECIAL_TOKENS,
        mask_token: str = "[MASK]",
        word_rule: str = "wordpiece",
        **probs: float,
    ) -> MaskingSpec:
        """Builds the tables from tokens in id order (a list) or a token -> id mapping.

        ``word_rule`` says which pieces continue a word (`pretrain.tokenizer_kinds`):
        ``"wordpiece"`` (``##`` pieces) or ``"sentencepiece"`` (pieces without ``▁``).
        """
        from pretrain.tokenizer_kinds import continuation_table

        if isinstance(vocab, Mapping):
            tokens: list[str | None] = [None] * (max(vocab.values()) + 1)
            for tok, i in vocab.items():
                tokens[i] = tok
        else:
            tokens = list(vocab)
        size = len(tokens)
        cont = continuation_table(tokens, word_rule)
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

    A ``##`` piece continues the word before it, unless the previous position
    is a special token (then the piece starts a word of its own).
    """
    tokens = np.asarray(tokens)
    special = spec.is_special[tokens]
    cont = spec.is_continuation[tokens]
    prev_maskable = np.concatenate([[False], ~special[:-1]])
    starts = ~special & ~(cont & prev_maskable)
    ids = np.cumsum(starts) - 1
    return np.where(special, -1, ids).astype(np.int64)


def choose_words(
    lengths: np.ndarray, valid: np.ndarray, targets: np.ndarray, keys: np.ndarray
) -> np.ndarray:
    """bool [B, W]: the words chosen in each row (``lengths``/``valid`` are [B, W]).

    Row ``b`` visits its valid words in the order of their sort keys
    (``random_bits(keys, 0, W)``) and runs google-research/bert's greedy loop:
    add a word if all its pieces fit under ``targets[b]``, skip it otherwise,
    stop when the target is reached. Vectorised: the longest fitting prefix of
    the order is taken at once; then each round adds, in every row with room
    left, the first later word that fits. A word skipped once never fits later
    (the room only shrinks), so this is the same set as the loop, and there are
    at most ``max(room)`` (< one word's length) rounds.
    """
    n_rows, width = lengths.shape
    if width == 0:
        return np.zeros((n_rows, 0), dtype=bool)
    sort_keys = np.where(valid, random_bits(keys, 0, width), np.iinfo(np.uint64).max)
    # Valid keys are distinct 64-bit hashes, so any sort gives the same order (quicksort is
    # ~2x faster than a stable sort here); ties among the invalid slots do not matter.
    order = np.argsort(sort_keys, axis=1)
    slen = np.take_along_axis(lengths, order, axis=1)
    svalid = np.take_along_axis(valid, order, axis=1)
    cum = np.cumsum(slen, axis=1)
    taken = svalid & (cum <= targets[:, None])
    room = targets - (slen * taken).sum(axis=1)
    ptr = taken.sum(axis=1)
    cols = np.arange(width)
    while True:
        cand = (
            svalid & ~taken & (slen <= room[:, None]) & (cols >= ptr[:, None]) & (room[:, None] > 0)
        )
        rows = np.flatnonzero(cand.any(axis=1))
        if len(rows) == 0:
            break
        j = np.argmax(cand[rows], axis=1)
        taken[rows, j] = True
        room[rows] -= slen[rows, j]
        ptr[rows] = j + 1
    chosen = np.zeros_like(taken)
    np.put_along_axis(chosen, order, taken, axis=1)
    return chosen


def whole_word_mask(tokens: np.ndarray, spec: MaskingSpec, key: int | np.ndarray) -> MaskedExample:
    """Masks whole words of one sequence (no padding) and returns fixed-shape arrays."""
    tokens = np.asarray(tokens, dtype=np.int32)
    if tokens.ndim != 1:
        raise ValueError(f"tokens must be 1-D, got shape {tokens.shape}")
    out = whole_word_mask_batch(tokens[None], spec, np.asarray([key], dtype=np.uint64))
    return MaskedExample(*(out[k][0] for k in _BATCH_FIELDS))


_BATCH_FIELDS = ("input_ids", "masked_positions", "masked_ids", "masked_weights")


def whole_word_mask_batch(
    tokens: np.ndarray, spec: MaskingSpec, keys: np.ndarray
) -> dict[str, np.ndarray]:
    """Masks each row of ``tokens`` [B, L] with its own key ``keys[b]`` (see the module doc).

    Padding must be a special id ([PAD]) so it is never chosen. Returns
    ``input_ids`` int32 [B, L] and ``masked_positions``/``masked_ids`` int32,
    ``masked_weights`` float32 [B, P]. Row ``b`` depends only on ``tokens[b]``
    and ``keys[b]``.
    """
    tokens = np.asarray(tokens, dtype=np.int32)
    keys = np.asarray(keys, dtype=np.uint64).reshape(-1)
    if tokens.ndim != 2:
        raise ValueError(f"tokens must be 2-D [batch, length], got shape {tokens.shape}")
    n_rows, length = tokens.shape
    if len(keys) != n_rows:
        raise ValueError(f"{len(keys)} keys for {n_rows} rows")
    if tokens.size and (tokens.min() < 0 or tokens.max() >= spec.vocab_size):
        raise ValueError(f"token id out of range [0, {spec.vocab_size})")
    p = spec.max_predictions
    maskable = ~spec.is_special[tokens]
    prev_maskable = np.zeros_like(maskable)
    prev_maskable[:, 1:] = maskable[:, :-1]
    starts = maskable & ~(spec.is_continuation[tokens] & prev_maskable)
    wid = np.cumsum(starts, axis=1) - 1
    n_words = starts.sum(axis=1)
    width = int(n_words.max()) if n_rows else 0
    rows_of = np.broadcast_to(np.arange(n_rows)[:, None], tokens.shape)
    flat_word = (rows_of * width + wid)[maskable]
    lengths = np.bincount(flat_word, minlength=n_rows * width).reshape(n_rows, width)
    valid = np.arange(width) < n_words[:, None]
    n_maskable = maskable.sum(axis=1)
    targets = np.where(
        n_maskable > 0,
        np.minimum(p, np.maximum(1, np.round(n_maskable * spec.masked_lm_prob))),
        0,
    ).astype(np.int64)
    chosen = choose_words(lengths, valid, targets, keys)
    selected = np.zeros_like(maskable)
    selected[maskable] = chosen.reshape(-1)[flat_word]
    rows, cols = np.nonzero(selected)  # row-major: positions ascend within a row
    counts = selected.sum(axis=1)
    slots = np.arange(len(rows)) - np.repeat(np.cumsum(counts) - counts, counts)
    originals = tokens[rows, cols]
    u = uniforms(random_bits(keys, 1, p))[rows, slots]
    repl = spec.replacement_ids
    draws = (random_bits(keys, 2, p) % np.uint64(len(repl))).astype(np.int64)[rows, slots]
    new = np.where(
        u < spec.mask_token_prob,
        spec.mask_id,
        np.where(u >= 1.0 - spec.random_token_prob, repl[draws], originals),
    )
    out_ids = tokens.copy()
    out_ids[rows, cols] = new
    positions = np.zeros((n_rows, p), np.int32)
    ids = np.zeros((n_rows, p), np.int32)
    weights = np.zeros((n_rows, p), np.float32)
    positions[rows, slots] = cols
    ids[rows, slots] = originals
    weights[rows, slots] = 1.0
    return {
        "input_ids": out_ids,
        "masked_positions": positions,
        "masked_ids": ids,
        "masked_weights": weights,
    }
