"""The one fine-tuning trainer of every KLUE task: pure train step, dev selection, resume.

`run_task(cfg, task, pretrained, output_dir, data_dir)` fine-tunes one task with one seed:

* model: `finetune.modeling.FinetuneModel` (pretrained encoder + the task's head);
* optimiser: `pretrain.train.make_optimizer` (the same as pretraining: gradient clipping, AdamW
  without decay on biases and LayerNorm, linear warmup over ``warmup_ratio`` of the steps, then
  linear decay to 0);
* data parallel over every device through `pretrain.sharding` (mesh, batch and state
  shardings; ``mesh.fsdp > 1`` also shards parameters);
* `finetune.steps.train_step` is pure: dropout keys come from ``(seed, step)`` and batch ``k``
  of epoch ``e`` is a fixed slice of the permutation drawn from ``(seed, e)``, so a run resumed
  from the checkpoint at step ``k`` computes bit-for-bit what the uninterrupted run computed;
  the host reads a step's metrics while the device runs the next one. The last batch of an
  epoch is filled with rows of weight 0 (every example is trained on). Each batch is cut on
  the token axis to the smallest of the config's ``bucket_lengths`` (and ``max_seq_length``)
  that holds its longest row (`finetune.batching`): a handful of static shapes, the same rows;
* evaluation on dev at the end of every epoch (or every ``eval_every_steps``): predictions in
  the format of ``../shared/docs/klue-formats.md``, scored by
  `finetune.prediction_files.score_predictions` (what ``python -m finetune.evaluate`` prints
  on the written file). The best value of the task's ``metric_key`` keeps its parameters in
  ``best/`` (orbax), its predictions in ``predictions.jsonl`` and its scores in ``metrics.json``;
* a resume checkpoint (``checkpoints/``, orbax, atomic) at every evaluation; a killed run
  restarts from it, SIGTERM saves and stops; ``manifest.json`` marks a finished task, which a
  rerun skips;
* TensorBoard events and ``metrics.jsonl`` (`pretrain.metric_log.MetricLog`), a progress bar
  (or log lines) with examples/s.

Output folder (one task, one seed): ``best/``, ``checkpoints/`` (removed when done unless
``keep_resume_checkpoint``), ``predictions.jsonl``, ``metrics.json``, ``manifest.json``,
``metrics.jsonl``, ``tensorboard/``, ``config.json``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import shutil
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import jax
import numpy as np

from finetune import batching, modeling
from finetune.batching import take_batch, train_batch  # noqa: F401 (their old home)
from finetune.steps import build_program, eval_due, optimizer_config, plan_steps
from finetune.tasks.base import Features, Splits, Task, context_for
from pretrain import checkpointing, sharding, storage, supervision
from pretrain import train as pretrain_train
from pretrain.metric_log import MetricLog

MANIFEST = "manifest.json"
PREDICTIONS = "predictions.jsonl"
METRICS = "metrics.json"
BEST_DIR = "best"


# ---------------------------------------------------------------------------------------------
# Batches (`finetune.batching`: order, filled last batch, length buckets)


def _local_rows(batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """This process's contiguous slice of a global host batch (all of it on one host)."""
    n, p = jax.process_count(), jax.process_index()
    if n == 1:
        return batch
    size = len(batch["weight"]) // n
    return {k: v[p * size : (p + 1) * size] for k, v in batch.items()}


# ---------------------------------------------------------------------------------------------
# Evaluation


def predict_outputs(
    eval_fn: Callable,
    params: Any,
    features: Features,
    batch_size: int,
    mesh,
    padding: batching.Padding | None = None,
) -> dict[str, np.ndarray]:
    """The head's outputs for every feature row, in order (padding rows dropped); with a
    bucketing ``padding``, rows are evaluated sorted by length in bucketed batches
    (`finetune.batching.eval_batches`) and put back in order."""
    chunks = []
    for rows, host in batching.eval_batches(features, batch_size, padding):
        out = jax.device_get(eval_fn(params, sharding.global_batch(_local_rows(host), mesh)))
        chunks.append((rows, {k: np.asarray(v)[: len(rows)] for k, v in out.items()}))
    return batching.gather_outputs(chunks, len(features), padding)


def score(task: Task, predictions: list[dict], gold: Sequence[Any]) -> dict[str, float]:
    """`finetune.prediction_files.score_predictions`: the numbers finetune.evaluate prints."""
    from finetune import prediction_files

    scores = prediction_files.score_predictions(
        task.name, predictions, gold, relations=getattr(task, "relations", None)
    )
    return {k: float(v) for k, v in scores.items()}


def write_predictions(task: Task, predictions: list[dict], path: Path) -> None:
    """The prediction file (atomic, checked by `finetune.prediction_files`)."""
    from finetune import prediction_files

    prediction_files.write_predictions(
        task.name, predictions, path, relations=getattr(task, "relations", None)
    )


def evaluations_since_best(history: Sequence[Mapping[str, Any]], metric_key: str) -> int:
    """How many evaluations in ``history`` came after the last one that improved
    ``metric_key`` (`is_better`): Lightning's EarlyStopping wait count, which stops the
    baseline when it reaches the patience."""
    best, since = None, 0
    for entry in history:
        if is_better(float(entry[metric_key]), best):
            best, since = float(entry[metric_key]), 0
        else:
            since += 1
    return since


def is_better(value: float, best: float | None) -> bool:
    """Higher is better; the first evaluation always counts, NaN (e.g. Pearson r of constant
    predictions) never beats anything else."""
    if best is None:
        return True
    if not math.isfinite(value):
        return False
    return not math.isfinite(best) or value > best


# ---------------------------------------------------------------------------------------------
# Run folder helpers


def config_hash(cfg_json: Mapping[str, Any], model_path: str) -> str:
    """Identity of a run for the manifest (everything that changes its result)."""
    fields = {k: v for k, v in cfg_json.items() if k not in ("progress_bar", "log_every_steps")}
    blob = json.dumps({"config": fields, "model": str(Path(model_path).absolute())}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def read_manifest(out: Path) -> dict[str, Any] | None:
    path = out / MANIFEST
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def finished(out: Path, run_id: str) -> dict[str, Any] | None:
    """The metrics of a finished run with the same identity, else None."""
    manifest = read_manifest(out)
    if manifest and manifest.get("status") == "done" and manifest.get("run_id") == run_id:
        return json.loads((out / METRICS).read_text(encoding="utf-8"))
    return None


def _cfg_json(cfg: Any) -> dict[str, Any]:
    if hasattr(cfg, "to_json"):
        return json.loads(cfg.to_json())
    return json.loads(json.dumps(dict(cfg), default=str))


class _Throughput:
    """Examples/s over the last logging window, a tqdm bar on a terminal."""

    def __init__(self, start: int, total: int, enabled: bool) -> None:
        import sys

        self.t, self.examples = time.perf_counter(), 0.0
        self.bar = None
        if enabled and sys.stderr.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=total, initial=start, unit="step", dynamic_ncols=True)

    def add(self, examples: float) -> None:
        self.examples += examples
        if self.bar is not None:
            self.bar.update(1)

    def rate(self) -> float | None:
        """Examples/s since the last call (None when no example was counted)."""
        now = time.perf_counter()
        rate = self.examples / max(now - self.t, 1e-9) if self.examples else None
        self.t, self.examples = now, 0.0
        return rate

    def show(self, step: int, values: Mapping[str, float]) -> None:
        text = " ".join(f"{k}={v:.4g}" for k, v in values.items())
        if self.bar is not None:
            self.bar.set_postfix_str(text, refresh=False)
        else:
            logging.info("step %d %s", step, text)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


# ---------------------------------------------------------------------------------------------
# The loop


def prepare_data(
    task: Task,
    cfg: Mapping[str, Any],
    pre: modeling.LoadedModel,
    data_dir: str | None,
    splits: Splits | None = None,
) -> tuple[Splits, Features, Features]:
    """The task's splits (limited for smoke runs) encoded with the model's tokenizer."""
    if splits is None:
        splits = task.load_splits(data_dir, float(cfg["dev_fraction"]))
    train, dev = splits.train, splits.dev
    notes = [splits.note] if splits.note else []
    if 0 < int(cfg["max_train_examples"]) < len(train):
        train = train[: int(cfg["max_train_examples"])]
        notes.append(f"smoke run: trained on the first {len(train)} train examples only")
    if 0 < int(cfg["max_eval_examples"]) < len(dev):
        dev = dev[: int(cfg["max_eval_examples"])]
        notes.append(f"smoke run: scored on the first {len(dev)} dev examples only")
    comparable = splits.comparable and len(notes) == (1 if splits.note else 0)
    splits = Splits(
        train, dev, comparable, "; ".join(notes), splits.train_source, splits.dev_source
    )
    ctx = context_for(pre.tokenizer, pre.special_ids, pre.use_token_types)
    length = int(cfg["max_seq_length"])
    if length > pre.config.max_seq_length:
        raise ValueError(
            f"max_seq_length {length} exceeds what the model supports "
            f"({pre.config.max_seq_length}); lower --config.max_seq_length"
        )
    train_f = task.encode(train, ctx, length, True)
    dev_f = task.encode(dev, ctx, length, False)
    return splits, train_f, dev_f


def run_task(
    cfg: Any,
    task: Task,
    pre: modeling.LoadedModel,
    output_dir: str | Path,
    data_dir: str | None = None,
    splits: Splits | None = None,
) -> dict[str, Any]:
    """Fine-tunes ``task`` with ``cfg`` (one seed); returns the contents of ``metrics.json``.

    Skips the run when ``manifest.json`` says the same run finished; resumes from
    ``checkpoints/`` when a previous attempt was killed. ``splits`` (from
    ``task.load_splits``) saves reading the data again when the caller already has it.
    """
    out = Path(output_dir).absolute()
    is_main = jax.process_index() == 0
    cfg_json = _cfg_json(cfg)
    run_id = config_hash(cfg_json, str(pre.path))
    done = finished(out, run_id)
    if done is not None:
        logging.info("%s: finished before (%s), skipped", task.name, out / MANIFEST)
        return done

    seed = int(cfg["seed"])
    pre = modeling.with_tokens(pre, tuple(task.extra_tokens), seed)
    if getattr(task, "needs_pooler", False):  # WoS: the GRU starts from the pooler output
        pre = modeling.with_pooler(pre, seed)
    pre = modeling.with_dtype(pre, str(cfg["dtype"]))
    splits, train_f, dev_f = prepare_data(task, cfg, pre, data_dir, splits)
    out.mkdir(parents=True, exist_ok=True)
    steps = plan_steps(cfg, len(train_f))
    mesh = sharding.make_mesh(int(cfg["mesh"]["fsdp"]))
    batch_size, eval_batch = int(cfg["global_batch_size"]), int(cfg["eval_batch_size"])
    sharding.check_batch_size(batch_size, mesh, int(cfg.get("grad_accum_steps", 1)))
    sharding.check_batch_size(eval_batch, mesh)
    padding = batching.padding_for(
        task, int(cfg["max_seq_length"]), tuple(cfg.get("bucket_lengths", ()))
    )

    opt_cfg = optimizer_config(cfg, steps)
    program = build_program(
        task,
        pre,
        opt_cfg,
        mesh,
        int(cfg["mesh"]["fsdp_min_size"]),
        tuple(train_f.arrays),
        tuple(dev_f.arrays),
    )
    shardings, p_train, p_eval = program.shardings, program.train_step, program.eval_step

    resume = checkpointing.Checkpointer(
        out / checkpointing.CHECKPOINT_SUBDIR, max_to_keep=1, async_save=False
    )
    target = pretrain_train.abstract_with_shardings(program.abstract_state, shardings)
    latest = resume.latest_step()
    history: list[dict[str, Any]] = []
    best: dict[str, Any] = {"value": None, "step": None, "scores": None}
    if latest is not None:
        state = resume.restore(latest, target)
        meta = resume.restore_meta(latest)
        history, best = meta["history"], meta["best"]
        logging.info("%s: resumed from %s step %d", task.name, resume.directory, latest)
    else:
        state = program.init_state(program.init_params(pre, seed), seed)
    start = int(jax.device_get(state.step))

    info = {
        "task": task.name,
        "model": str(pre.path),
        "model_source": pre.source,
        "model_config": pre.config.to_dict(),
        "seed": seed,
        "num_train_examples": len(splits.train),
        "num_dev_examples": len(splits.dev),
        "num_train_features": len(train_f),
        "num_dev_features": len(dev_f),
        "train_source": splits.train_source,
        "dev_source": splits.dev_source,
        "comparable_to_paper": splits.comparable,
        "note": splits.note,
        "devices": jax.device_count(),
        "batch_lengths": list(padding.lengths),
        **steps,
        "config": cfg_json,
    }
    if is_main:
        storage.write_json(out / "config.json", info)
    logging.info(
        "%s: %d train / %d dev examples, %d steps (%d per epoch, warmup %d), %d devices%s",
        task.name,
        len(splits.train),
        len(splits.dev),
        steps["run_steps"],
        steps["steps_per_epoch"],
        steps["warmup_steps"],
        jax.device_count(),
        f"; {splits.note}" if splits.note else "",
    )

    metric_key = str(cfg.get("metric_key") or "") or task.metric_key
    patience = int(cfg.get("early_stopping_patience", 0))
    early_stop: int | None = None
    ckpt_every = int(cfg["checkpoint_every_steps"])
    log_every = int(cfg["log_every_steps"])
    run_steps = steps["run_steps"]
    log = MetricLog(out, start, enabled=is_main)
    # SIGTERM or Ctrl-C -> a flag; several processes act on it at the same step
    # (`HostAgreement`, as pretraining does), so every host saves the same step and stops.
    watcher = supervision.PreemptionWatcher().install()
    agreement = supervision.HostAgreement(mesh, every=1, size=1)
    meter = _Throughput(start, run_steps, enabled=is_main and bool(cfg["progress_bar"]))

    def handle(done_steps: int, metrics: Any) -> None:
        """One step's metrics to the host: stop on a non-finite loss, count, log."""
        host = {k: float(v) for k, v in jax.device_get(metrics).items()}
        if not (host["finite"] and math.isfinite(host["loss"])):
            raise pretrain_train.NonFiniteLossError(
                pretrain_train.nonfinite_message(done_steps, host, latest)
            )
        meter.add(host["examples"])
        if done_steps == start + 1:
            meter.rate()  # the first step includes compilation: not a throughput figure
        if done_steps % log_every == 0 or done_steps == run_steps:
            shown = {k: host[k] for k in ("loss", "grad_norm", "learning_rate")}
            rate = meter.rate()
            if rate is not None:
                shown["examples_per_s"] = rate
            shown["epoch"] = done_steps / steps["steps_per_epoch"]
            log.write(done_steps, {f"train/{k}": v for k, v in shown.items()})
            meter.show(done_steps, shown)

    def evaluate(done_steps: int) -> None:
        """Scores dev; a new best replaces ``best/`` and the predictions file."""
        nonlocal best
        scores, preds = _evaluate(
            task, p_eval, state.params, dev_f, splits.dev, eval_batch, mesh, padding
        )
        if metric_key not in scores:
            raise ValueError(
                f"--config.metric_key={metric_key!r} is not a {task.name} metric "
                f"(one of {', '.join(scores)})"
            )
        history.append({"step": done_steps, **scores})
        log.write(done_steps, {f"dev/{k}": v for k, v in scores.items()})
        text = " ".join(f"{k}={v:.4f}" for k, v in scores.items())
        logging.info("%s: dev at step %d: %s", task.name, done_steps, text)
        if is_better(scores[metric_key], best["value"]):
            best = {"value": scores[metric_key], "step": done_steps, "scores": scores}
            _save_best(out, state.params, pre, task, done_steps, scores, preds)

    stopped = "done"
    pending: tuple[int, Any] | None = None
    try:
        for step in range(start, run_steps):
            host_batch = train_batch(
                train_f, seed, step, batch_size, steps["steps_per_epoch"], padding
            )
            state, metrics = p_train(state, sharding.global_batch(_local_rows(host_batch), mesh))
            if pending is not None:
                handle(*pending)  # the previous step's: the device is already busy with this one
            done_steps = step + 1
            pending = (done_steps, metrics)
            want_eval = eval_due(done_steps, steps)
            want_save = want_eval or (ckpt_every > 0 and done_steps % ckpt_every == 0)
            preempted = bool(agreement.poll(done_steps, (watcher.requested,))[0])
            if want_eval or want_save or preempted or done_steps == run_steps:
                handle(*pending)
                pending = None
            if want_eval:
                evaluate(done_steps)
                if patience > 0 and evaluations_since_best(history, metric_key) >= patience:
                    early_stop = done_steps
                    logging.info(
                        "%s: early stop at step %d: %d evaluations without a better %s",
                        task.name,
                        done_steps,
                        patience,
                        metric_key,
                    )
                    break
            if (want_save or preempted) and done_steps < run_steps:
                resume.save(done_steps, state, {"history": history, "best": best})
                resume.wait()
                latest = done_steps
            if preempted:
                stopped = "preempted"
                logging.warning(
                    "%s at step %d: checkpoint saved; rerun the same command to resume",
                    watcher.signal_name or "a preemption signal on another host",
                    done_steps,
                )
                break
    finally:
        watcher.uninstall()
        meter.close()
        log.close()
        resume.close()
    if stopped != "done":
        return {
            "task": task.name,
            "stopped": watcher.stop_reason(stopped),
            "exit_code": watcher.exit_code(stopped),
        }

    result = {
        **{k: v for k, v in info.items() if k != "config"},
        "metric_key": metric_key,
        "best_step": best["step"],
        "early_stopped_at_step": early_stop,
        "scores": best["scores"],
        "history": history,
    }
    if is_main:
        storage.write_json(out / METRICS, result)
        storage.write_json(out / MANIFEST, {"status": "done", "run_id": run_id, "task": task.name})
        if not bool(cfg["keep_resume_checkpoint"]):
            shutil.rmtree(out / checkpointing.CHECKPOINT_SUBDIR, ignore_errors=True)
    return result


def _evaluate(
    task: Task,
    p_eval: Callable,
    params: Any,
    features: Features,
    examples: Sequence[Any],
    batch_size: int,
    mesh,
    padding: batching.Padding | None = None,
) -> tuple[dict[str, float], list[dict[str, Any]]]:
    """(scores, predictions) of the current parameters on dev."""
    outputs = predict_outputs(p_eval, params, features, batch_size, mesh, padding)
    predictions = task.predict(outputs, features, examples)
    return score(task, predictions, examples), predictions


def _save_best(
    out: Path,
    params: Any,
    pre: modeling.LoadedModel,
    task: Task,
    step: int,
    scores: dict[str, float],
    predictions: list[dict[str, Any]],
) -> None:
    """The new best: parameters (orbax, replacing the previous best), tokenizer, model config,
    predictions and scores. Each file is written atomically; every process joins the orbax
    save, process 0 writes the rest."""
    import orbax.checkpoint as ocp

    best = out / BEST_DIR
    best.mkdir(exist_ok=True)
    with ocp.StandardCheckpointer() as ckptr:
        ckptr.save(best / "params", params, force=True)
        ckptr.wait_until_finished()
    if jax.process_index() != 0:
        return
    tok_tmp = best / "tokenizer.json.tmp"
    pre.tokenizer.save(str(tok_tmp))
    tok_tmp.replace(best / "tokenizer.json")
    storage.write_json(
        best / "model.json",
        {
            "task": task.name,
            # The task's constructor options (flat scalars), so best/ alone rebuilds the task.
            "task_options": dict(getattr(task, "options", ())),
            "step": step,
            "model_config": pre.config.to_dict(),
            # Whether the encoder carries a pooler (BERT; RoBERTa when the checkpoint has one
            # or the task added one), so `finetune.finetuned` rebuilds the same structure.
            "pooler": pre.encoder.pooler is not None,
            "special_ids": pre.special_ids,
            "pretrained": str(pre.path),
            "scores": scores,
        },
    )
    write_predictions(task, predictions, out / PREDICTIONS)
