"""Gradient accumulation in the fine-tuning step (`pretrain.accumulation`, shared with pretraining).

With dropout 0, ``grad_accum_steps=k`` on a global batch of ``k*b`` rows must give the
parameters of the plain step on the same ``k*b`` rows (float32, <= 1e-5), including a batch
whose real rows (weight 1) are spread unevenly over the micro-batches; the learning rate and
the step counter follow optimiser updates, not micro-batches.
"""

from __future__ import annotations

import dataclasses

import jax
import numpy as np
import pytest
from finetune_fixtures import write_klue_data, write_tiny_model, write_tokenizer

from finetune import modeling, steps, trainer
from finetune.tasks.base import get_task
from pretrain import sharding

CFG = {
    "global_batch_size": 16,
    "num_train_epochs": 2,
    "warmup_ratio": 0.15,
    "max_train_steps": 0,
    "learning_rate": 1e-3,
    "weight_decay": 0.01,
    "max_grad_norm": 1.0,
    "adam_b1": 0.9,
    "adam_b2": 0.999,
    "adam_eps": 1e-8,
    "dev_fraction": 0.2,
    "max_train_examples": 0,
    "max_eval_examples": 0,
    "max_seq_length": 32,
}


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    root = tmp_path_factory.mktemp("accum")
    tok = write_tokenizer(root / "tok")
    folder = write_tiny_model(root / "bert", tok, "bert", num_layers=1)
    data = write_klue_data(root / "klue")
    pre = modeling.load_pretrained(folder)
    config = pre.config.replace(hidden_dropout=0.0, attention_dropout=0.0)
    pre = dataclasses.replace(pre, config=config)
    task = get_task("ynat")
    _, train_f, _ = trainer.prepare_data(task, CFG, pre, str(data))
    return task, pre, train_f


def _train(setup, accum: int, batches: list[dict[str, np.ndarray]]):
    task, pre, train_f = setup
    plan = steps.plan_steps(CFG, len(train_f))
    opt_cfg = steps.optimizer_config({**CFG, "grad_accum_steps": accum}, plan)
    mesh = sharding.make_mesh(1)
    keys = tuple(train_f.arrays)
    program = steps.build_program(task, pre, opt_cfg, mesh, 2**16, keys, keys)
    state = program.init_state(program.init_params(pre, 0), 0)
    logged = []
    for host in batches:
        state, metrics = program.train_step(state, sharding.global_batch(host, mesh))
        logged.append({k: float(v) for k, v in jax.device_get(metrics).items()})
    return state, logged, plan


def test_accumulated_micro_batches_equal_one_full_batch(setup):
    _, _, train_f = setup
    # Three steps: two full batches and one with 10 real rows of 16 (micro-batches of 4 rows
    # then hold 3, 3, 2 and 2 real rows), the shape of an epoch's last batch.
    order = np.random.default_rng(0).permutation(len(train_f))
    batches = [
        trainer.take_batch(train_f, order[:16], 16),
        trainer.take_batch(train_f, order[16:32], 16),
        trainer.take_batch(train_f, order[32:42], 16),
    ]
    ref, ref_log, plan = _train(setup, 1, batches)
    for accum in (4,):
        got, log, plan_k = _train(setup, accum, batches)
        assert plan_k == plan  # the step plan does not depend on accumulation
        assert int(got.step) == int(ref.step) == 3  # one optimiser update per step
        diffs = jax.tree.map(
            lambda a, b: float(np.max(np.abs(np.asarray(a) - np.asarray(b)))),
            got.params,
            ref.params,
        )
        assert max(jax.tree.leaves(diffs)) <= 1e-5, accum
        for a, b in zip(log, ref_log, strict=True):
            assert a["learning_rate"] == b["learning_rate"]  # schedule of optimiser steps
            assert a["examples"] == b["examples"]
            np.testing.assert_allclose(a["loss"], b["loss"], rtol=1e-5)
            np.testing.assert_allclose(a["grad_norm"], b["grad_norm"], rtol=1e-4)
    init, _, _ = _train(setup, 1, [])
    moved = jax.tree.map(
        lambda a, b: float(np.max(np.abs(np.asarray(a) - np.asarray(b)))), ref.params, init.params
    )
    assert max(jax.tree.leaves(moved)) > 1e-3  # the steps did change the parameters
    assert [r["examples"] for r in ref_log] == [16, 16, 10]
    # 48 examples, batch 16, 2 epochs: 6 optimiser steps, 1 of warmup, then linear decay.
    assert (plan["total_steps"], plan["warmup_steps"]) == (6, 1)
    peak = CFG["learning_rate"]
    np.testing.assert_allclose(
        [r["learning_rate"] for r in ref_log], [0.0, peak, peak * 4 / 5], rtol=1e-6
    )


def test_batch_must_divide_into_micro_batches(setup):
    mesh = sharding.make_mesh(1)
    with pytest.raises(ValueError, match="gradient accumulation"):
        sharding.check_batch_size(16, mesh, grad_accum_steps=3)
