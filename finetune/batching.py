"""The fine-tuning trainer's batches: training order, filled last batches, length buckets.

Every task encodes its rows padded to ``max_seq_length``. Most real rows are far shorter (a
YNAT title is a few dozen tokens, an NLI pair under a hundred), so padding every batch to
``max_seq_length`` spends most of the encoder's work on padding. Length bucketing cuts each
batch on the token axis to the smallest of a few static lengths (``bucket_lengths``, default
64, 128, 256, 512, and always ``max_seq_length``) that holds its longest row: XLA compiles one
program per length used, at most a handful, and every batch does the work of its own rows.

What does not change:

* which rows a batch holds and in what order (``(seed, epoch)`` permutation, a fixed slice of
  it per step, the last batch filled with weight-0 rows): a resumed run is still bit-for-bit
  the uninterrupted one, and no example is dropped;
* the results, up to float noise: positions beyond a row's last ``attention_mask`` position
  are padding, which attention and every task's loss mask out (tested: the loss of one batch
  padded to 32 or 128 agrees to 1e-5).

Evaluation batches are bucketed too, after a stable sort of the rows by length (so that short
rows share short batches); the outputs are put back in feature order and padded back to
``max_seq_length`` on the token axis, so ``task.predict`` sees what it always saw.

A task takes part by declaring ``sequence_columns`` (its feature columns whose axis 1 is the
token axis; ``finetune.tasks.base.INPUT_KEYS`` plus e.g. NER's ``labels``) and
``sequence_outputs`` (head outputs whose axis 1 is the token axis, with the value that fills
the positions cut off, e.g. MRC's very low logit). A task that declares no
``sequence_columns`` is always padded to ``max_seq_length``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from finetune.tasks.base import Features

#: Lengths a batch may be padded to below ``max_seq_length`` (config ``bucket_lengths``):
#: powers of two from 64, so a task padded to 128 compiles 2 shapes and one padded to 512, 4.
DEFAULT_BUCKETS = (64, 128, 256, 512)


@dataclasses.dataclass(frozen=True)
class Padding:
    """How one task's batches are padded on the token axis.

    ``lengths``: the allowed lengths, ascending, the last ``max_seq_length`` (just that one:
    bucketing off); ``columns``: the feature columns cut on axis 1; ``outputs``: head outputs
    with a token axis, and the fill value of the positions restored to ``max_seq_length``.
    """

    lengths: tuple[int, ...]
    columns: tuple[str, ...] = ()
    outputs: Mapping[str, float] = dataclasses.field(default_factory=dict)

    @property
    def full(self) -> int:
        return self.lengths[-1]

    @property
    def bucketed(self) -> bool:
        return len(self.lengths) > 1

    def length_of(self, attention_mask: np.ndarray) -> int:
        """The smallest allowed length that holds every row's last attended position."""
        attended = np.flatnonzero(np.asarray(attention_mask).any(axis=0))
        need = int(attended[-1]) + 1 if attended.size else 1
        return next(n for n in self.lengths if n >= need)

    def trim(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """``batch`` with its sequence columns cut to `length_of` its attention mask."""
        if not self.bucketed:
            return batch
        n = self.length_of(batch["attention_mask"])
        if n == self.full:
            return batch
        return {
            k: np.ascontiguousarray(v[:, :n]) if k in self.columns else v for k, v in batch.items()
        }

    def restore(self, outputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Head outputs with their token axis padded back to ``max_seq_length``."""
        out = {}
        for k, v in outputs.items():
            v = np.asarray(v)
            if k in self.outputs and v.shape[1] < self.full:
                pad = [(0, 0)] * v.ndim
                pad[1] = (0, self.full - v.shape[1])
                v = np.pad(v, pad, constant_values=np.asarray(self.outputs[k], v.dtype))
            out[k] = v
        return out


def bucket_lengths(requested: Sequence[int], max_seq_length: int) -> tuple[int, ...]:
    """The allowed lengths: the requested ones below ``max_seq_length``, then it.

    ``()`` turns bucketing off (every batch padded to ``max_seq_length``, as before)."""
    bad = [n for n in requested if int(n) < 1]
    if bad:
        raise ValueError(f"bucket_lengths must be positive, got {list(requested)}")
    below = sorted({int(n) for n in requested if int(n) < max_seq_length})
    return (*below, int(max_seq_length))


def padding_for(task: Any, max_seq_length: int, requested: Sequence[int] = ()) -> Padding:
    """The `Padding` of ``task``: bucketed when it declares ``sequence_columns``."""
    columns = tuple(getattr(task, "sequence_columns", ()))
    if not columns:
        return Padding((int(max_seq_length),))
    outputs = dict(getattr(task, "sequence_outputs", {}))
    return Padding(bucket_lengths(requested, max_seq_length), columns, outputs)


# ---------------------------------------------------------------------------------------------
# Training batches


def epoch_order(seed: int, epoch: int, n: int) -> np.ndarray:
    """The training order of epoch ``epoch``: a permutation drawn from ``(seed, epoch)`` only."""
    return np.random.default_rng([seed, epoch]).permutation(n)


def take_batch(features: Features, rows: np.ndarray, size: int) -> dict[str, np.ndarray]:
    """Rows ``rows`` of the features, filled up to ``size`` with weight-0 copies of row 0."""
    real = len(rows)
    if real < size:
        rows = np.concatenate([rows, np.full(size - real, rows[0] if real else 0)])
    batch = {k: v[rows] for k, v in features.arrays.items()}
    weight = np.zeros(size, np.float32)
    weight[:real] = 1.0
    batch["weight"] = weight
    return batch


def train_batch(
    features: Features,
    seed: int,
    step: int,
    batch_size: int,
    per_epoch: int,
    padding: Padding | None = None,
) -> dict[str, np.ndarray]:
    """The global batch of optimiser step ``step`` (0-based), a pure function of its inputs,
    cut to its length bucket when ``padding`` buckets (the same rows either way)."""
    epoch, k = divmod(step, per_epoch)
    order = epoch_order(seed, epoch, len(features))
    batch = take_batch(features, order[k * batch_size : (k + 1) * batch_size], batch_size)
    return padding.trim(batch) if padding is not None else batch


# ---------------------------------------------------------------------------------------------
# Evaluation batches


def row_lengths(attention_mask: np.ndarray) -> np.ndarray:
    """Each row's last attended position + 1 (0 for a row with no attended position)."""
    mask = np.asarray(attention_mask) != 0
    last = mask.shape[1] - np.argmax(mask[:, ::-1], axis=1)
    return np.where(mask.any(axis=1), last, 0)


def eval_batches(
    features: Features, batch_size: int, padding: Padding | None = None
) -> Iterator[tuple[np.ndarray, dict[str, np.ndarray]]]:
    """``(rows, batch)`` covering every feature row once: in feature order, or, when
    ``padding`` buckets, in a stable order of length (each batch then cut to its bucket).
    Each batch is filled to ``batch_size`` with weight-0 rows (`take_batch`)."""
    n = len(features)
    if padding is not None and padding.bucketed:
        order = np.argsort(row_lengths(features.arrays["attention_mask"]), kind="stable")
    else:
        order = np.arange(n)
    for start in range(0, n, batch_size):
        rows = order[start : start + batch_size]
        batch = take_batch(features, rows, batch_size)
        yield rows, (padding.trim(batch) if padding is not None else batch)


def gather_outputs(
    chunks: Sequence[tuple[np.ndarray, Mapping[str, np.ndarray]]],
    n: int,
    padding: Padding | None = None,
) -> dict[str, np.ndarray]:
    """Every row's outputs in feature order from ``(rows, outputs of those rows)`` chunks,
    token axes padded back to ``max_seq_length`` (`Padding.restore`)."""
    out: dict[str, np.ndarray] = {}
    for rows, chunk in chunks:
        full = padding.restore(chunk) if padding is not None else dict(chunk)
        for k, v in full.items():
            if k not in out:
                out[k] = np.zeros((n, *v.shape[1:]), v.dtype)
            out[k][rows] = v
    return out
