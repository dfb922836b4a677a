"""Training input: fixed-shape host-local batches from an examples folder, resumable by step.

    loader = make_loader("examples/", global_batch_size=256, seed=0,
                         process_index=jax.process_index(), process_count=jax.process_count())
    for batch in loader:          # or loader.batch(step) for any step
        ...

Order. The examples are read through grain's `ArrayRecordDataSource`. The
stream is the concatenation of epochs; epoch ``e`` visits every example once,
in the order of `shuffled_index`: a keyed Feistel permutation (cycle-walking,
like grain's ``index_shuffle``) with a key derived from ``(seed, e)``. It
costs O(1) memory and is vectorised over a batch (grain's per-index
`MapDataset.shuffle` lookup measured ~0.2 ms per index here, more than reading
the record). Global batch ``k`` is stream positions ``[k*G, (k+1)*G)``; host
``p`` of ``n`` takes the contiguous slice ``[k*G + p*G/n, k*G + (p+1)*G/n)``
and reads only those records. So batch ``k`` on host ``p`` is a pure function
of (seed, k, p) (and the examples folder): resuming at step ``k`` needs
nothing but ``k``, and the hosts' slices are disjoint and together are the
global batch. A batch may straddle two epochs; nothing is dropped.

Storage. A ``gs://`` examples folder is copied once per host to ``remote/<hash>/`` under the
pretraining cache (``KLUE_PRETRAIN_CACHE``, else ``~/.cache/klue-pretrain``; the loader's
``cache_dir`` overrides it) with every file's size checked, and read from there
(`pretrain.storage.local_copy`): the ArrayRecord reader needs local files.

Parallelism. Because a batch is a pure function of its step, ``num_workers``
worker processes build future batches independently (each opens its own
readers); ``prefetch`` batches are kept in flight. ``num_workers=0`` builds
them in one background thread.

Masking. ``bert`` examples were masked when built (static masking; the
duplication factor gives several maskings of each pair). ``roberta`` examples
are masked here with `pretrain.masking.whole_word_mask_batch`, with the key
``example_key(tag, seed, epoch, example index)``: a fresh mask every epoch, the
same on every host count and on resume.

Batch layout (see /tmp/pretrain_api.md): ``input_ids``, ``token_type_ids``,
``attention_mask`` int32 [B, L]; ``masked_positions``, ``masked_ids`` int32
[B, P]; ``masked_weights`` float32 [B, P]; ``nsp_labels`` int32 [B]
(0 IsNext, 1 NotNext; zeros for roberta).
"""

from __future__ import annotations

import collections
import json
import os
import struct
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import (
    BrokenExecutor,
    Executor,
    ProcessPoolExecutor,
    ThreadPoolExecutor,
)
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from corpus.cli import spawning_deaf_to_ctrl_c, start_worker
from pretrain import example_store, storage
from pretrain.masking import (
    MASK_ID,
    SPECIAL_TOKENS,
    MaskingSpec,
    default_max_predictions,
    example_key,
    mix64,
    whole_word_mask_batch,
)

Batch = dict[str, np.ndarray]
#: The record header of `pretrain.example_store` (4 little-endian int32), parsed without NumPy.
_HEADER = struct.Struct("<4i")
#: Stream domain tag mixed into loader seeds so they never equal build-time seeds.
_SHUFFLE_TAG, _MASK_TAG = 0x5348, 0x4D41


def examples_manifest(examples_dir: str | os.PathLike) -> dict[str, Any]:
    """The examples folder's manifest (objective, max_seq_length, vocab_size, counts, shards)."""
    path = storage.path(examples_dir) / "manifest.json"
    if not path.is_file():
        raise FileNotFoundError(
            f"{path} not found: build the examples with `python -m pretrain.build_data`"
        )
    return json.loads(path.read_text(encoding="utf-8"))


def _empty_batch(b: int, length: int, p: int) -> Batch:
    return {
        "input_ids": np.zeros((b, length), np.int32),
        "token_type_ids": np.zeros((b, length), np.int32),
        "attention_mask": np.zeros((b, length), np.int32),
        "masked_positions": np.zeros((b, p), np.int32),
        "masked_ids": np.zeros((b, p), np.int32),
        "masked_weights": np.zeros((b, p), np.float32),
        "nsp_labels": np.zeros((b,), np.int32),
    }


def shuffled_index(index: np.ndarray, n: int, key: int, rounds: int = 6) -> np.ndarray:
    """A keyed pseudo-random permutation of ``[0, n)``, evaluated at `index` (vectorised).

    A balanced Feistel network on ``2b`` bits (``4^b >= n``) is a bijection of
    ``[0, 4^b)``; re-applying it to values ``>= n`` (cycle walking) restricts it
    to a bijection of ``[0, n)``. Pure function of (index, n, key).
    """
    index = np.asarray(index, dtype=np.uint64)
    if n <= 1:
        return np.zeros_like(index, dtype=np.int64)
    half = max(1, ((n - 1).bit_length() + 1) // 2)
    mask = np.uint64((1 << half) - 1)
    round_ids = mix64(np.arange(1, rounds + 1, dtype=np.uint64))
    keys = mix64(np.full(rounds, key % (1 << 64), dtype=np.uint64) ^ round_ids)

    def permute(x: np.ndarray) -> np.ndarray:
        left, right = x >> np.uint64(half), x & mask
        for k in keys:
            left, right = right, left ^ (mix64(right ^ k) & mask)
        return (left << np.uint64(half)) | right

    out = permute(index)
    todo = out >= np.uint64(n)
    while todo.any():
        out[todo] = permute(out[todo])
        todo = out >= np.uint64(n)
    return out.astype(np.int64)


class PretrainLoader:
    """Host-local batches of an examples folder; see the module docstring."""

    def __init__(
        self,
        examples_dir: str | os.PathLike,
        *,
        global_batch_size: int,
        seed: int,
        process_index: int = 0,
        process_count: int = 1,
        max_predictions_per_seq: int | None = None,
        start_step: int = 0,
        prefetch: int = 2,
        num_workers: int = 0,
        cache_dir: str = "",
    ):
        import grain.python as grain_python

        from pretrain.bootstrap import local_folder

        if global_batch_size < 1:
            raise ValueError(f"global_batch_size must be >= 1, got {global_batch_size}")
        if process_count < 1 or not 0 <= process_index < process_count:
            raise ValueError(f"bad process_index {process_index} of {process_count}")
        if global_batch_size % process_count:
            raise ValueError(
                f"global_batch_size {global_batch_size} is not divisible by "
                f"process_count {process_count}"
            )
        # A gs:// folder is read from a checked local copy (the ArrayRecord reader needs files).
        examples_dir = local_folder(examples_dir, cache_dir)
        self.examples_dir = Path(examples_dir)
        self.manifest = examples_manifest(examples_dir)
        self.objective = self.manifest["objective"]
        self.max_seq_length = int(self.manifest["max_seq_length"])
        stored_p = int(self.manifest["max_predictions_per_seq"])
        if max_predictions_per_seq is None:
            max_predictions_per_seq = (
                stored_p
                if self.objective == "bert"
                else default_max_predictions(self.max_seq_length, self.manifest["masked_lm_prob"])
            )
        if self.objective == "bert" and max_predictions_per_seq < stored_p:
            raise ValueError(
                f"max_predictions_per_seq {max_predictions_per_seq} is smaller than the "
                f"{stored_p} the bert examples were masked with"
            )
        self.max_predictions = int(max_predictions_per_seq)
        self.seed = int(seed)
        self.global_batch_size = global_batch_size
        self.process_index = process_index
        self.process_count = process_count
        self.local_batch_size = global_batch_size // process_count
        self.start_step = start_step
        self.prefetch = prefetch
        self.num_workers = num_workers
        self._args = dict(
            examples_dir=os.fspath(examples_dir),
            global_batch_size=global_batch_size,
            seed=seed,
            process_index=process_index,
            process_count=process_count,
            max_predictions_per_seq=max_predictions_per_seq,
        )
        self.dtype = np.dtype(self.manifest["token_dtype"])
        paths = [str(self.examples_dir / s["file"]) for s in self.manifest["shards"]]
        self.source = grain_python.ArrayRecordDataSource(paths)
        self.num_examples = len(self.source)
        if self.num_examples != self.manifest["examples"]:
            raise ValueError(
                f"{self.examples_dir}: {self.num_examples} records on disk but the manifest "
                f"says {self.manifest['examples']}"
            )
        self.pad_id = int(self.manifest["special_ids"]["[PAD]"])
        self.spec: MaskingSpec | None = None
        if self.objective == "roberta":
            self.spec = examples_masking_spec(
                self.examples_dir,
                self.manifest,
                max_predictions=self.max_predictions,
                masked_lm_prob=self.manifest["masked_lm_prob"],
            )

    @property
    def steps_per_epoch(self) -> float:
        return self.num_examples / self.global_batch_size

    def example_indices(self, step: int) -> tuple[np.ndarray, np.ndarray]:
        """(epoch, example index) of each row of this host's slice of global batch `step`."""
        if step < 0:
            raise ValueError(f"step must be >= 0, got {step}")
        start = step * self.global_batch_size + self.process_index * self.local_batch_size
        positions = np.arange(start, start + self.local_batch_size, dtype=np.int64)
        epochs, within = np.divmod(positions, self.num_examples)
        indices = np.empty_like(positions)
        for epoch in np.unique(epochs):
            key = int(
                np.random.SeedSequence([_SHUFFLE_TAG, self.seed, int(epoch)]).generate_state(
                    2, np.uint64
                )[0]
            )
            rows = epochs == epoch
            indices[rows] = shuffled_index(within[rows], self.num_examples, key)
        return epochs, indices

    def batch(self, step: int) -> Batch:
        """This host's slice of global batch `step` (pure function of seed, step, process)."""
        epochs, indices = self.example_indices(step)
        # Single reads: the data source's batched __getitems__ starts threads per call and
        # measured ~8x slower for a batch of 64 small records.
        records = [self.source[int(i)] for i in indices]
        out = _empty_batch(self.local_batch_size, self.max_seq_length, self.max_predictions)
        ids = out["input_ids"]
        mask = out["attention_mask"]
        dt = self.dtype
        for row, rec in enumerate(records):
            n, b_start, k, nsp = _HEADER.unpack_from(rec)
            ids[row, :n] = np.frombuffer(rec, dt, n, _HEADER.size)
            mask[row, :n] = 1
            if self.spec is None:
                off = _HEADER.size + n * dt.itemsize
                out["token_type_ids"][row, b_start:n] = 1
                out["masked_positions"][row, :k] = np.frombuffer(
                    rec, example_store.POSITION, k, off
                )
                off += k * example_store.POSITION.itemsize
                out["masked_ids"][row, :k] = np.frombuffer(rec, dt, k, off)
                out["masked_weights"][row, :k] = 1.0
                out["nsp_labels"][row] = nsp
        if self.spec is not None:
            ids[out["attention_mask"] == 0] = self.pad_id  # padding is special: never chosen
            keys = example_key(_MASK_TAG, self.seed, epochs, indices)
            masked = whole_word_mask_batch(ids, self.spec, keys)
            out.update(masked)
            out["input_ids"][out["attention_mask"] == 0] = self.pad_id
        return out

    def iter_from(self, start_step: int) -> Iterator[Batch]:
        """Batches start_step, start_step+1, ... forever, `prefetch` of them built ahead.

        If the worker processes die (a scheduler's SIGTERM sent to the whole process group,
        an out-of-memory kill), the batches from the first lost one on are built in this
        process instead, with one line on stderr: a batch is a pure function of its step, so
        the stream is the same, and training reaches its next step boundary, where a
        preemption notice is acted on (the checkpoint is saved), instead of stopping on a
        BrokenProcessPool."""
        if self.prefetch <= 0 and self.num_workers <= 0:
            step = start_step
            while True:
                yield self.batch(step)
                step += 1
        pool, submit, depth = self._pool()
        pending: collections.deque = collections.deque()
        step = start_step

        def fill() -> None:
            while len(pending) < depth:
                pending.append(submit(step + len(pending)))

        try:
            try:
                with spawning_deaf_to_ctrl_c():  # a process pool starts its workers in submit
                    fill()
            except BrokenExecutor:
                pass  # met again in the loop, where the batches are then built here
            while True:
                try:
                    fill()  # submit raises too once the pool is broken
                    batch = pending.popleft().result()
                except BrokenExecutor as err:
                    if not isinstance(pool, ProcessPoolExecutor):
                        raise
                    _stop(pool, pending)
                    print(
                        f"pretrain loader: worker processes stopped ({type(err).__name__}); "
                        f"building batches in this process from step {step} on",
                        file=sys.stderr,
                        flush=True,
                    )
                    pool, submit, depth = self._pool(processes=False)
                    batch = self.batch(step)
                yield batch
                step += 1
        finally:
            _stop(pool, pending)

    def _pool(self, processes: bool = True) -> tuple[Executor, Callable, int]:
        """The executor that builds batches ahead, its submit(step), and how many to keep
        in flight: `num_workers` processes (spawned, not forked: the parent usually has JAX
        and its threads loaded), else one thread."""
        if processes and self.num_workers > 0:
            from multiprocessing import get_context

            pool = ProcessPoolExecutor(
                self.num_workers,
                mp_context=get_context("spawn"),
                initializer=_init_worker,
                initargs=(self._args,),
            )
            return (
                pool,
                partial(pool.submit, _worker_batch),
                max(self.prefetch, 1) + self.num_workers,
            )
        pool = ThreadPoolExecutor(1, thread_name_prefix="pretrain-loader")
        return pool, partial(pool.submit, self.batch), max(self.prefetch, 1)

    def __iter__(self) -> Iterator[Batch]:
        return self.iter_from(self.start_step)


_WORKER_LOADER: PretrainLoader | None = None


def _stop(pool: Executor, pending: collections.deque) -> None:
    """Cancel the batches not yet built and let the pool go without waiting for it."""
    for fut in pending:
        fut.cancel()
    pending.clear()
    pool.shutdown(wait=False, cancel_futures=True)


def _init_worker(args: dict[str, Any]) -> None:
    """Loader worker start: Ctrl-C is the parent's (pretrain.main checkpoints on it), and the
    worker exits when its parent is gone (`corpus.cli.start_worker`)."""
    global _WORKER_LOADER
    start_worker()
    _WORKER_LOADER = PretrainLoader(**args, prefetch=0, num_workers=0)


def _worker_batch(step: int) -> Batch:
    assert _WORKER_LOADER is not None
    return _WORKER_LOADER.batch(step)


def make_loader(
    examples_dir: str | os.PathLike,
    *,
    global_batch_size: int,
    seed: int,
    process_index: int = 0,
    process_count: int = 1,
    max_predictions_per_seq: int | None = None,
    start_step: int = 0,
    prefetch: int = 2,
    num_workers: int = 0,
) -> PretrainLoader:
    """The loader for one host (see `PretrainLoader` and the module docstring)."""
    return PretrainLoader(
        examples_dir,
        global_batch_size=global_batch_size,
        seed=seed,
        process_index=process_index,
        process_count=process_count,
        max_predictions_per_seq=max_predictions_per_seq,
        start_step=start_step,
        prefetch=prefetch,
        num_workers=num_workers,
    )


def synthetic_batch(
    rng_seed: int,
    batch_size: int,
    seq_len: int,
    max_predictions: int,
    vocab_size: int,
    objective: str = "bert",
) -> Batch:
    """A random batch with the real layout, for tests and benchmarks without data.

    Rows are ``[CLS] A [SEP] B [SEP]`` (bert; NSP labels random) or
    ``[CLS] ... [SEP]`` (roberta) of random length in [L/2, L], padded with 0;
    ``min(max_predictions, round(0.15 * n))`` random non-special positions are
    masked with [MASK] and their original ids are the targets.
    """
    if objective not in ("bert", "roberta"):
        raise ValueError(f"objective must be bert or roberta, got {objective!r}")
    if seq_len < 5 or vocab_size <= len(SPECIAL_TOKENS):
        raise ValueError("seq_len must be >= 5 and vocab_size > 5")
    rng = np.random.default_rng(rng_seed)
    out = _empty_batch(batch_size, seq_len, max_predictions)
    cls_id, sep_id = SPECIAL_TOKENS.index("[CLS]"), SPECIAL_TOKENS.index("[SEP]")
    for row in range(batch_size):
        n = int(rng.integers(max(5, seq_len // 2), seq_len + 1))
        ids = rng.integers(len(SPECIAL_TOKENS), vocab_size, n).astype(np.int32)
        ids[0], ids[-1] = cls_id, sep_id
        body = np.arange(1, n - 1)
        if objective == "bert":
            b_start = int(rng.integers(2, n - 1))
            ids[b_start - 1] = sep_id
            out["token_type_ids"][row, b_start:n] = 1
            out["nsp_labels"][row] = rng.integers(0, 2)
            body = body[body != b_start - 1]
        k = min(max_predictions, max(1, round(0.15 * len(body))))
        pos = np.sort(rng.choice(body, k, replace=False)).astype(np.int32)
        out["masked_positions"][row, :k] = pos
        out["masked_ids"][row, :k] = ids[pos]
        out["masked_weights"][row, :k] = 1.0
        ids[pos] = MASK_ID
        out["input_ids"][row, :n] = ids
        out["attention_mask"][row, :n] = 1
    return out


def examples_masking_spec(
    examples_dir: Any, manifest: dict[str, Any], **kwargs: Any
) -> MaskingSpec:
    """The `MaskingSpec` of an examples folder: its ``vocab.txt`` with the special tokens and
    whole-word rule its manifest records (folders built before they were recorded: the BERT
    names and the ``##`` rule, which is what they were built with)."""
    vocab = (examples_dir / "vocab.txt").read_text(encoding="utf-8").split("\n")[:-1]
    names = dict(manifest.get("special_tokens") or {role: role for role in SPECIAL_TOKENS})
    return MaskingSpec.from_vocab(
        vocab,
        special_tokens=names.values(),
        mask_token=names["[MASK]"],
        word_rule=manifest.get("word_rule", "wordpiece"),
        **kwargs,
    )


def batch_statistics(loader: PretrainLoader, steps: int, start_step: int = 0) -> dict[str, Any]:
    """Masking and packing statistics over `steps` batches (for checks and the docs).

    ``mask_rate`` is predictions over maskable tokens (real, non-special);
    ``mask_token_share`` / ``kept_share`` / ``random_share`` split the
    predictions into [MASK], unchanged and replaced (a random draw equal to
    the original counts as unchanged); ``split_words`` counts words only partly
    chosen (0 by construction).
    """
    spec = examples_masking_spec(
        loader.examples_dir, loader.manifest, max_predictions=loader.max_predictions
    )
    totals = collections.Counter()
    for step in range(start_step, start_step + steps):
        b = loader.batch(step)
        real = b["attention_mask"].astype(bool)
        orig = b["input_ids"].copy()
        rows = np.arange(orig.shape[0])[:, None]
        w = b["masked_weights"] > 0
        orig[np.broadcast_to(rows, w.shape)[w], b["masked_positions"][w]] = b["masked_ids"][w]
        maskable = real & ~spec.is_special[orig]
        chosen = np.zeros_like(real)
        chosen[np.broadcast_to(rows, w.shape)[w], b["masked_positions"][w]] = True
        now = b["input_ids"]
        totals["sequences"] += orig.shape[0]
        totals["real_tokens"] += int(real.sum())
        totals["slots"] += real.size
        totals["maskable"] += int(maskable.sum())
        totals["predictions"] += int(w.sum())
        totals["as_mask"] += int((chosen & (now == spec.mask_id)).sum())
        totals["kept"] += int((chosen & (now == orig)).sum())
        totals["nsp_not_next"] += int(b["nsp_labels"].sum())
        starts = maskable.copy()
        starts[:, 1:] &= ~(spec.is_continuation[orig[:, 1:]] & maskable[:, :-1])
        # Word ids unique over the batch; a word is split if only some of its pieces are chosen.
        word = (np.cumsum(starts, axis=1) + rows * (orig.shape[1] + 1))[maskable]
        size = orig.shape[0] * (orig.shape[1] + 1)
        pieces = np.bincount(word, minlength=size)
        picked = np.bincount(word, weights=chosen[maskable], minlength=size)
        totals["split_words"] += int(((picked > 0) & (picked != pieces)).sum())
    p = max(totals["predictions"], 1)
    return {
        "sequences": totals["sequences"],
        "real_token_share": totals["real_tokens"] / max(totals["slots"], 1),
        "mask_rate": totals["predictions"] / max(totals["maskable"], 1),
        "mask_token_share": totals["as_mask"] / p,
        "kept_share": totals["kept"] / p,
        "random_share": (p - totals["as_mask"] - totals["kept"]) / p,
        "predictions_per_sequence": totals["predictions"] / max(totals["sequences"], 1),
        "nsp_not_next_share": totals["nsp_not_next"] / max(totals["sequences"], 1),
        "split_words": totals["split_words"],
    }


def main(argv: list[str] | None = None) -> int:
    """``python -m pretrain.input_pipeline --examples DIR``: manifest summary + batch statistics."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m pretrain.input_pipeline", description=__doc__)
    parser.add_argument("--examples", required=True, help="examples folder (pretrain.build_data)")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--steps", type=int, default=50, help="batches to measure")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    loader = make_loader(
        args.examples, global_batch_size=args.batch_size, seed=args.seed, prefetch=0
    )
    m = loader.manifest
    summary = {
        k: m[k]
        for k in ("objective", "max_seq_length", "max_predictions_per_seq", "vocab_size", "seed")
    }
    summary["examples"] = loader.num_examples
    summary["counts"] = m["counts"]
    summary["batches"] = batch_statistics(loader, args.steps)
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
