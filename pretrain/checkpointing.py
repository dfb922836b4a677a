"""Checkpoints of the train state with orbax: async, keep N, atomic, preemption-aware.

Layout: ``<workdir>/checkpoints/<step>/`` with four items:

* ``params``: the model parameters (an ``nnx.State`` of float32 arrays),
* ``opt_state``: the optax state (Adam moments, counters),
* ``train``: ``{"step", "rng"}``, the step counter and the raw PRNG key,
* ``meta``: JSON: the model config, objective, tokenizer folder and the
  experiment config, so `load_for_export` needs nothing but the workdir.

Atomicity is orbax's: a checkpoint is written under a temporary name and
renamed to ``<step>`` only once every item (and, on several hosts, every
process) has finished, so a process killed mid-save leaves a temporary folder
that `CheckpointManager` never lists and deletes on the next start
(``cleanup_tmp_directories``). `latest_step` therefore only ever names a
complete checkpoint.

Retention: the newest ``max_to_keep`` checkpoints, plus every checkpoint whose step is a
multiple of ``keep_every_steps`` (permanent milestones, never deleted; orbax's
``keep_period``). When to save (steps, minutes, preemption) is the train loop's decision,
taken jointly by all hosts (`pretrain.supervision`).
"""

from __future__ import annotations

import dataclasses
import json
import logging
from pathlib import Path
from typing import Any

import jax
import orbax.checkpoint as ocp
from etils import epath

from pretrain import storage

CHECKPOINT_SUBDIR = "checkpoints"


def checkpoint_dir(workdir: str | Path) -> epath.Path:
    """``<workdir>/checkpoints``: a local folder or a ``gs://`` prefix (`pretrain.storage`)."""
    return storage.path(workdir) / CHECKPOINT_SUBDIR


class Checkpointer:
    """A thin wrapper around `ocp.CheckpointManager` for our four items."""

    def __init__(
        self,
        directory: str | Path,
        *,
        max_to_keep: int = 3,
        keep_every_steps: int = 0,
        async_save: bool = True,
        read_only: bool = False,
    ) -> None:
        self.directory = storage.path(directory)
        options = ocp.CheckpointManagerOptions(
            max_to_keep=None if read_only else max_to_keep,
            keep_period=int(keep_every_steps) or None,
            save_interval_steps=0 if read_only else 1,
            enable_async_checkpointing=async_save,
            cleanup_tmp_directories=not read_only,
            create=not read_only,
            read_only=read_only,
        )
        self.manager = ocp.CheckpointManager(
            self.directory,
            options=options,
            item_names=("params", "opt_state", "train", "meta"),
        )

    def latest_step(self) -> int | None:
        return self.manager.latest_step()

    def all_steps(self) -> list[int]:
        return list(self.manager.all_steps())

    def save(self, step: int, state: Any, meta: dict[str, Any]) -> None:
        """Starts an (async) save of ``state`` (a `train.TrainState`) at ``step``.

        Returns once the arrays are copied off the device, so the caller may
        donate or overwrite them; the files are written in the background.
        """
        self.manager.save(
            step,
            args=ocp.args.Composite(
                params=ocp.args.StandardSave(state.params),
                opt_state=ocp.args.StandardSave(state.opt_state),
                train=ocp.args.StandardSave({"step": state.step, "rng": state.rng}),
                meta=ocp.args.JsonSave(meta),
            ),
            force=True,
        )

    def restore(self, step: int, abstract_state: Any) -> Any:
        """Restores a full `train.TrainState` shaped (and sharded) like ``abstract_state``."""
        out = self.manager.restore(
            step,
            args=ocp.args.Composite(
                params=ocp.args.StandardRestore(abstract_state.params),
                opt_state=ocp.args.StandardRestore(abstract_state.opt_state),
                train=ocp.args.StandardRestore(
                    {"step": abstract_state.step, "rng": abstract_state.rng}
                ),
            ),
        )
        return abstract_state.replace(
            params=out["params"],
            opt_state=out["opt_state"],
            step=out["train"]["step"],
            rng=out["train"]["rng"],
        )

    def restore_params(self, step: int, abstract_params: Any) -> Any:
        """Restores only the parameters (for ``init_from`` and export)."""
        out = self.manager.restore(
            step, args=ocp.args.Composite(params=ocp.args.StandardRestore(abstract_params))
        )
        return out["params"]

    def restore_meta(self, step: int) -> dict[str, Any]:
        out = self.manager.restore(step, args=ocp.args.Composite(meta=ocp.args.JsonRestore()))
        return out["meta"]

    def wait(self) -> None:
        self.manager.wait_until_finished()

    def close(self) -> None:
        self.manager.close()


def model_config_to_dict(model_config: Any) -> dict[str, Any]:
    return dataclasses.asdict(model_config)


def model_config_from_dict(data: dict[str, Any]) -> Any:
    from pretrain import models

    fields = {f.name for f in dataclasses.fields(models.ModelConfig)}
    return models.ModelConfig(**{k: v for k, v in data.items() if k in fields})


def load_for_export(workdir: str | Path, step: int | None = None) -> tuple[Any, Any, str | None]:
    """Loads the newest (or the given) checkpoint of a workdir for export.

    Returns ``(ModelConfig, PretrainingModel with the trained parameters,
    tokenizer_dir or None)``. Runs on CPU with no accelerator and ignores the
    optimiser state, so it is cheap even for large checkpoints.
    """
    from flax import nnx

    from pretrain import models

    directory = checkpoint_dir(workdir)
    if not directory.is_dir():
        raise FileNotFoundError(f"no checkpoints under {directory}: train with pretrain.main first")
    ckpt = Checkpointer(directory, read_only=True, async_save=False)
    try:
        step = ckpt.latest_step() if step is None else step
        if step is None:
            raise FileNotFoundError(f"no complete checkpoint in {directory}")
        meta = ckpt.restore_meta(step)
        model_config = model_config_from_dict(meta["model_config"])
        abstract = nnx.eval_shape(lambda: models.PretrainingModel(model_config, rngs=nnx.Rngs(0)))
        graphdef, abstract_params, rest = nnx.split(abstract, nnx.Param, ...)
        cpu = jax.sharding.SingleDeviceSharding(jax.local_devices(backend="cpu")[0])
        abstract_params = jax.tree.map(
            lambda s: jax.ShapeDtypeStruct(s.shape, s.dtype, sharding=cpu), abstract_params
        )
        params = ckpt.restore_params(step, abstract_params)
    finally:
        ckpt.close()
    model = nnx.merge(graphdef, params, models.concrete_rest(rest))
    logging.info("loaded step %d from %s", step, directory)
    return model_config, model, meta.get("tokenizer_dir")


def export_info(workdir: str | Path, step: int | None = None) -> dict[str, Any]:
    """Training facts for the model card: steps, batch, sequence length, last losses."""
    directory = checkpoint_dir(workdir)
    ckpt = Checkpointer(directory, read_only=True, async_save=False)
    try:
        step = ckpt.latest_step() if step is None else step
        if step is None:
            raise FileNotFoundError(f"no complete checkpoint in {directory}")
        meta = ckpt.restore_meta(step)
    finally:
        ckpt.close()
    cfg = meta.get("config", {})
    info: dict[str, Any] = {
        "steps": step,
        "objective": meta.get("objective"),
        "global batch size": cfg.get("global_batch_size"),
        "gradient accumulation steps": cfg.get("grad_accum_steps"),
        "max sequence length": meta.get("max_seq_length"),
        "max predictions per sequence": meta.get("max_predictions_per_seq"),
        "peak learning rate": cfg.get("learning_rate"),
        "warmup steps": cfg.get("warmup_steps"),
        "scheduled steps": cfg.get("num_train_steps"),
    }
    source = meta.get("init_from")
    if source:  # continued pretraining of a Hugging Face checkpoint (pretrain.hf_init)
        info["continued from"] = f"{source['name']} (weights sha256 {source['weights_sha256']})"
        if source.get("added_tokens"):
            info["added tokens"] = f"{source['added_tokens']} (rows initialised as piece means)"
        if source.get("fresh_weights"):
            info["freshly initialised"] = ", ".join(source["fresh_weights"])
    if meta.get("examples_dir"):
        info["pretraining examples"] = _examples_summary(meta["examples_dir"])
    metrics_path = storage.path(workdir) / "metrics.jsonl"
    if metrics_path.is_file():
        last: dict[str, Any] = {}
        for line in metrics_path.read_text().splitlines():
            row = json.loads(line) if line.strip() else {}
            if row.get("step", step + 1) <= step:
                last.update({k: v for k, v in row.items() if "loss" in k or "accuracy" in k})
        info.update({k: round(v, 4) for k, v in sorted(last.items())})
    return {k: v for k, v in info.items() if v is not None}


def _examples_summary(examples_dir: str) -> str:
    """ "N examples of L tokens from K files (names)" from an examples manifest, or its path."""
    path = storage.path(examples_dir) / "manifest.json"
    if not path.is_file():
        return str(examples_dir)
    manifest = json.loads(path.read_text())
    names = [Path(i["path"]).name for i in manifest.get("inputs", [])]
    shown = ", ".join(names[:5]) + (f", ... ({len(names)} files)" if len(names) > 5 else "")
    return (
        f"{manifest.get('examples')} {manifest.get('objective')} examples of "
        f"{manifest.get('max_seq_length')} tokens built from {shown}"
    )
