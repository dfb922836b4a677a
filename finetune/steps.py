"""The functional core of fine-tuning: step plan, optimiser settings, pure steps, programs.

* `plan_steps`: steps per epoch (the last batch may be partial), total and warmup steps;
* `optimizer_config`: the fields `pretrain.train.make_optimizer` reads (the same optimiser as
  pretraining: clipping, AdamW without decay on biases and LayerNorm, linear warmup and decay);
* `train_step` / `eval_step`: pure functions of ``(state, batch)`` / ``(params, batch)``; the
  train state is pretraining's `pretrain.train.TrainState` and dropout keys come from
  ``(rng, step)``, so a resumed run recomputes exactly what the uninterrupted one did;
  ``grad_accum_steps`` > 1 accumulates micro-batch gradients inside the step
  (`pretrain.accumulation`, shared with pretraining);
* `build_program`: the jitted initialisers and steps for one (task, model, optimiser, mesh),
  with the shardings of `pretrain.sharding`, cached per process.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import optax
from flax import nnx

from finetune import modeling
from finetune.tasks.base import Task
from pretrain import accumulation, sharding
from pretrain import train as pretrain_train
from pretrain.train import ModelDef, TrainState

# ---------------------------------------------------------------------------------------------
# Schedule and optimiser (pretraining's, with the step counts of fine-tuning)


def plan_steps(cfg: Mapping[str, Any], num_train: int) -> dict[str, int]:
    """Steps per epoch (the last batch may be partial), total, warmup and run steps, and the
    dev evaluation interval within an epoch.

    Warmup is the baseline's ``ceil(ratio x examples / batch x epochs)`` (``num_warmup_steps``
    of KLUE-baseline's lightning_base.py). The evaluation interval is Lightning's
    ``val_check_batch = int(steps per epoch x val_check_interval)`` (at least 1), counted from
    the start of each epoch; ``eval_every_steps`` > 0 replaces it (counted from step 0)."""
    batch = int(cfg["global_batch_size"])
    epochs = int(cfg["num_train_epochs"])
    per_epoch = math.ceil(num_train / batch)
    total = per_epoch * epochs
    warmup = min(total, math.ceil(float(cfg["warmup_ratio"]) * num_train / batch * epochs))
    run = min(total, int(cfg["max_train_steps"])) if int(cfg["max_train_steps"]) > 0 else total
    fraction = float(cfg.get("eval_every_epochs", 1.0)) or 1.0
    return {
        "steps_per_epoch": per_epoch,
        "total_steps": total,
        "warmup_steps": warmup,
        "run_steps": run,
        "eval_every_steps": int(cfg.get("eval_every_steps", 0)),
        "eval_interval_in_epoch": max(1, int(per_epoch * fraction)),
    }


def eval_due(done_steps: int, plan: Mapping[str, int]) -> bool:
    """Whether dev is evaluated after ``done_steps`` optimiser steps (`plan_steps`): every
    ``eval_every_steps`` when set, else every ``eval_interval_in_epoch`` steps of each epoch;
    always after the last step."""
    if done_steps == plan["run_steps"]:
        return True
    if plan["eval_every_steps"] > 0:
        return done_steps % plan["eval_every_steps"] == 0
    in_epoch = (done_steps - 1) % plan["steps_per_epoch"] + 1
    return in_epoch % plan["eval_interval_in_epoch"] == 0


def optimizer_config(cfg: Mapping[str, Any], steps: Mapping[str, int]) -> dict[str, Any]:
    """The fields `pretrain.train.make_optimizer` reads."""
    return {
        "learning_rate": float(cfg["learning_rate"]),
        "end_learning_rate": 0.0,
        "warmup_steps": int(steps["warmup_steps"]),
        "num_train_steps": int(steps["total_steps"]),
        "weight_decay": float(cfg["weight_decay"]),
        "adam_b1": float(cfg["adam_b1"]),
        "adam_b2": float(cfg["adam_b2"]),
        "adam_eps": float(cfg["adam_eps"]),
        "max_grad_norm": float(cfg["max_grad_norm"]),
        # The rest of pretrain.optimizer.TrainSettings; the optimiser does not depend on the seed
        # (kept constant so seeds share compiled programs).
        "grad_accum_steps": int(cfg.get("grad_accum_steps", 1)),
        "seed": 0,
    }


# ---------------------------------------------------------------------------------------------
# Pure steps


def _forward(model_def: ModelDef, params: Any, batch: Mapping[str, jax.Array], key) -> Any:
    model = pretrain_train.merge_model(model_def, params)
    rngs = nnx.Rngs(dropout=key) if key is not None else None
    return model(batch, deterministic=key is None, rngs=rngs)


def train_step(
    state: TrainState,
    batch: Mapping[str, jax.Array],
    *,
    model_def: ModelDef,
    tx: optax.GradientTransformation,
    schedule: optax.Schedule,
    task: Task,
    grad_accum_steps: int = 1,
    mesh: jax.sharding.Mesh | None = None,
) -> tuple[TrainState, dict[str, jax.Array]]:
    """One optimiser update: mean task loss over the real rows of ``batch``.

    With ``grad_accum_steps`` A > 1 the batch is cut into A micro-batches
    (`pretrain.accumulation`, the helper pretraining uses); the summed task losses are
    differentiated micro-batch by micro-batch and the summed gradient divided by the summed
    count, which is the full-batch gradient. Micro-batch ``a`` draws its dropout from
    ``fold_in(key, a)``. ``state.step`` and the schedule count optimiser updates.
    """
    key = jax.random.fold_in(jax.random.wrap_key_data(state.rng), state.step)

    if grad_accum_steps == 1:

        def loss_fn(params):
            total, count = task.loss(_forward(model_def, params, batch, key), batch)
            return total / jnp.maximum(count, 1.0), count

        (loss, count), grads = jax.value_and_grad(loss_fn, has_aux=True)(state.params)
    else:

        def sum_fn(params, micro, micro_key):
            total, count = task.loss(_forward(model_def, params, micro, micro_key), micro)
            total = total.astype(jnp.float32)
            return total, (total, jnp.asarray(count, jnp.float32))

        keys = accumulation.micro_keys(key, grad_accum_steps)
        grad_fn = jax.value_and_grad(sum_fn, has_aux=True)
        (total, count), grads = accumulation.accumulate_gradients(
            grad_fn, state.params, batch, keys, mesh
        )
        denominator = jnp.maximum(count, 1.0)
        loss = total / denominator
        grads = jax.tree.map(lambda g: g / denominator.astype(g.dtype), grads)
    grad_norm = optax.tree.norm(grads)
    updates, opt_state = tx.update(grads, state.opt_state, state.params)
    finite = jnp.isfinite(loss) & jnp.isfinite(grad_norm)

    def keep(new, old):
        return jax.tree.map(lambda n, o: jnp.where(finite, n, o), new, old)

    new_state = state.replace(
        step=state.step + 1,
        params=keep(optax.apply_updates(state.params, updates), state.params),
        opt_state=keep(opt_state, state.opt_state),
    )
    metrics = {
        "loss": loss,
        "grad_norm": grad_norm,
        "learning_rate": schedule(state.step),
        "examples": count,
        "finite": finite.astype(jnp.int32),
    }
    return new_state, metrics


def eval_step(params: Any, batch: Mapping[str, jax.Array], *, model_def: ModelDef) -> Any:
    """The head's outputs without dropout."""
    return _forward(model_def, params, batch, None)


# ---------------------------------------------------------------------------------------------
# Compiled programs


@dataclasses.dataclass(frozen=True)
class Program:
    """What is compiled for one (task, model shape, optimiser, mesh, feature columns).

    ``init_params(loaded, seed)``: the model's parameters, the encoder's from ``loaded`` and the
    head's freshly drawn from ``seed``; ``init_state(params, seed)``: a `TrainState` at step 0
    in its shardings; ``train_step(state, batch)`` and ``eval_step(params, batch)`` jitted.
    Built once per process for each key (`build_program`), so several seeds, a resumed run or
    a second task of the same shape compile nothing again.
    """

    model_def: ModelDef
    tx: optax.GradientTransformation
    abstract_state: Any
    shardings: Any
    init_params: Callable
    init_state: Callable
    train_step: Callable
    eval_step: Callable


def build_program(
    task: Task,
    loaded: modeling.LoadedModel,
    opt_cfg: Mapping[str, Any],
    mesh,
    fsdp_min_size: int,
    train_keys: tuple[str, ...],
    eval_keys: tuple[str, ...],
) -> Program:
    """The (cached) `Program`; the cache key holds only hashable descriptions of its inputs."""
    add_pooler = loaded.encoder.pooler is not None
    program_key = getattr(task, "program_key", None)
    key = (
        type(task),
        task.name,
        # The task's options and data-derived head sizes; without a key, the instance itself
        # (the program holds the task, so its id stays unique while cached).
        program_key() if program_key is not None else ("instance", id(task)),
        loaded.config,
        add_pooler,
        tuple(sorted(opt_cfg.items())),
        mesh,
        fsdp_min_size,
        train_keys,
        eval_keys,
    )
    if key not in _PROGRAMS:
        if len(_PROGRAMS) >= _MAX_PROGRAMS:
            _PROGRAMS.pop(next(iter(_PROGRAMS)))
        _PROGRAMS[key] = _build_program(
            task,
            loaded.config,
            add_pooler,
            dict(opt_cfg),
            mesh,
            fsdp_min_size,
            train_keys,
            eval_keys,
        )
    return _PROGRAMS[key]


_PROGRAMS: dict[tuple, Program] = {}
_MAX_PROGRAMS = 8


def _build_program(
    task, config, add_pooler, opt_cfg, mesh, fsdp_min_size, train_keys, eval_keys
) -> Program:

    def fresh(seed):
        # Keys, not ints: the same streams as nnx.Rngs(params=seed, dropout=seed + 1), traceable.
        rngs = nnx.Rngs(params=jax.random.key(seed), dropout=jax.random.key(seed + 1))
        return modeling.FinetuneModel(config, task, add_pooler=add_pooler, rngs=rngs)

    graphdef, abstract_params, rest = nnx.split(nnx.eval_shape(lambda: fresh(0)), nnx.Param, ...)
    model_def = ModelDef(graphdef, rest)
    tx = pretrain_train.make_optimizer(opt_cfg, abstract_params)
    schedule = pretrain_train.make_schedule(opt_cfg)

    def init(params, seed):
        return TrainState(
            step=jnp.zeros((), jnp.int32),
            params=params,
            opt_state=tx.init(params),
            rng=jax.random.key_data(jax.random.key(seed + 2)),
        )

    abstract_state = jax.eval_shape(init, abstract_params, 0)
    shardings = sharding.state_shardings(abstract_state, mesh, fsdp_min_size)
    # One compiled initialiser instead of one small program per parameter shape.
    jit_fresh = jax.jit(lambda seed: nnx.state(fresh(seed), nnx.Param))

    def init_params(loaded: modeling.LoadedModel, seed: int) -> Any:
        model = pretrain_train.merge_model(model_def, jit_fresh(seed))
        want = {p: x.shape for p, x in nnx.to_flat_state(nnx.state(model.encoder, nnx.Param))}
        got = {p: x.shape for p, x in nnx.to_flat_state(loaded.params)}
        if want != got:
            diff = sorted(set(want.items()) ^ set(got.items()), key=str)[:6]
            raise modeling.ModelLoadError(f"{loaded.path}: encoder parameters differ: {diff}")
        nnx.update(model.encoder, loaded.params)
        return nnx.state(model, nnx.Param)

    batch = sharding.batch_sharding(mesh)
    p_train = jax.jit(
        partial(
            train_step,
            model_def=model_def,
            tx=tx,
            schedule=schedule,
            task=task,
            grad_accum_steps=int(opt_cfg["grad_accum_steps"]),
            mesh=mesh,
        ),
        in_shardings=(shardings, dict.fromkeys((*train_keys, "weight"), batch)),
        out_shardings=(shardings, sharding.replicated(mesh)),
        donate_argnums=0,
    )
    p_eval = jax.jit(
        partial(eval_step, model_def=model_def),
        in_shardings=(shardings.params, dict.fromkeys((*eval_keys, "weight"), batch)),
        out_shardings=sharding.replicated(mesh),
    )
    return Program(
        model_def=model_def,
        tx=tx,
        abstract_state=abstract_state,
        shardings=shardings,
        init_params=init_params,
        init_state=jax.jit(init, in_shardings=(shardings.params, None), out_shardings=shardings),
        train_step=p_train,
        eval_step=p_eval,
    )
