"""The optimiser of pretraining and the run settings the compiled step depends on.

BERT's recipe as the KLUE paper uses it: gradients clipped to a global norm, then AdamW with
linear warmup from 0 to the peak learning rate and linear decay to ``end_learning_rate``
(0); weight decay on dense kernels and embedding tables only (`models.decay_mask`).

`TrainSettings` is the explicit list of run-config values that change the compiled train
step (besides the model config and the mesh); `pretrain.train.ProgramKey` holds one, so the
compiled-program cache cannot miss a field.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import optax

from pretrain import models, sharding


@dataclasses.dataclass(frozen=True)
class TrainSettings:
    """The run-config values the compiled step depends on (optimiser, accumulation, seed)."""

    learning_rate: float
    end_learning_rate: float
    warmup_steps: int
    num_train_steps: int
    weight_decay: float
    adam_b1: float
    adam_b2: float
    adam_eps: float
    max_grad_norm: float
    grad_accum_steps: int
    seed: int
    fsdp_min_size: int = sharding.FSDP_MIN_SIZE

    @classmethod
    def from_config(cls, cfg: Mapping[str, Any] | TrainSettings) -> TrainSettings:
        if isinstance(cfg, TrainSettings):
            return cfg
        values: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            if f.name == "fsdp_min_size":
                raw = cfg.get("mesh", {}).get("fsdp_min_size", f.default)
            elif f.name == "end_learning_rate":
                raw = cfg.get(f.name, 0.0)
            else:
                raw = cfg[f.name]
            values[f.name] = int(raw) if f.type == "int" else float(raw)
        return cls(**values)


def make_schedule(cfg: Mapping[str, Any] | TrainSettings) -> optax.Schedule:
    """Linear warmup from 0 to ``learning_rate`` over ``warmup_steps``, then linear decay to 0."""
    s = TrainSettings.from_config(cfg)
    peak, warmup, end = s.learning_rate, s.warmup_steps, s.end_learning_rate
    total = max(s.num_train_steps, warmup + 1)
    return optax.join_schedules(
        [
            optax.linear_schedule(0.0, peak, max(warmup, 1)),
            optax.linear_schedule(peak, end, total - warmup),
        ],
        [warmup],
    )


def make_optimizer(
    cfg: Mapping[str, Any] | TrainSettings, params: Any
) -> optax.GradientTransformation:
    """clip_by_global_norm -> AdamW (no decay on biases and LayerNorm, via `models.decay_mask`)."""
    s = TrainSettings.from_config(cfg)
    return optax.chain(
        optax.clip_by_global_norm(s.max_grad_norm),
        optax.adamw(
            make_schedule(s),
            b1=s.adam_b1,
            b2=s.adam_b2,
            eps=s.adam_eps,
            weight_decay=s.weight_decay,
            mask=models.decay_mask(params),
        ),
    )
