"""Unit tests of the pretraining train step, optimiser, sharding rules and checkpoints (CPU).

In-process and fast: the tiny model on short synthetic batches. The end-to-end runs
(kill and resume, 8 devices, 2 processes, the real corpus) are in
tests/test_pretrain_train_runs.py.
"""

from __future__ import annotations

import math
import shutil

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest
from flax import nnx

from pretrain import bootstrap, checkpointing, metric_log, models, sharding, train
from pretrain.configs import tiny
from tests.pretrain_fixtures import B, L, P, synthetic_tiny_config


def _cfg(**changes):
    """The shared tiny synthetic config, evaluated on one batch."""
    return synthetic_tiny_config(**{"eval_steps": 1, **changes})


def _batch(seed: int = 0, batch_size: int = B) -> dict[str, np.ndarray]:
    from pretrain.input_pipeline import synthetic_batch

    return synthetic_batch(seed, batch_size, L, P, models.PRESETS["tiny"].vocab_size, "bert")


def _setup(cfg, mesh=None):
    mesh = mesh or sharding.make_mesh(1)
    data = bootstrap.resolve_data(cfg, "/nonexistent")
    mc = train.build_model_config(cfg, data)
    program, state = train.create_train_state(mc, cfg, "bert", mesh)
    return mesh, program.model_def, state, program.train_step, program.eval_step


def test_loss_sums_match_numpy():
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(2, 3, 7)).astype(np.float32)
    nsp_logits = rng.normal(size=(2, 2)).astype(np.float32)
    batch = {
        "masked_ids": np.array([[1, 2, 0], [3, 4, 5]], np.int32),
        "masked_weights": np.array([[1, 1, 0], [1, 1, 1]], np.float32),
        "nsp_labels": np.array([0, 1], np.int32),
    }
    sums = train.loss_sums({"mlm_logits": logits, "nsp_logits": nsp_logits}, batch, "bert")
    logp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    nll = -np.take_along_axis(logp, batch["masked_ids"][..., None], -1)[..., 0]
    expect_mlm = (nll * batch["masked_weights"]).sum() / 5
    nsp_logp = nsp_logits - np.log(np.exp(nsp_logits).sum(-1, keepdims=True))
    expect_nsp = -(nsp_logp[0, 0] + nsp_logp[1, 1]) / 2
    m = train.metrics_from_sums(sums)
    assert float(m["mlm_loss"]) == pytest.approx(expect_mlm, rel=1e-6)
    assert float(m["nsp_loss"]) == pytest.approx(expect_nsp, rel=1e-6)
    assert float(m["loss"]) == pytest.approx(expect_mlm + expect_nsp, rel=1e-6)
    correct = (logits.argmax(-1) == batch["masked_ids"]) * batch["masked_weights"]
    assert float(m["mlm_accuracy"]) == pytest.approx(correct.sum() / 5)
    # roberta: the NSP head is ignored
    r = train.metrics_from_sums(train.loss_sums({"mlm_logits": logits}, batch, "roberta"))
    assert float(r["loss"]) == pytest.approx(expect_mlm, rel=1e-6)


def test_schedule_warmup_then_linear_decay():
    cfg = _cfg(num_train_steps=100, warmup_steps=10, learning_rate=1e-3)
    s = train.make_schedule(cfg)
    assert float(s(0)) == 0.0
    assert float(s(5)) == pytest.approx(5e-4)
    assert float(s(10)) == pytest.approx(1e-3)
    assert float(s(55)) == pytest.approx(5e-4)
    assert float(s(100)) == pytest.approx(0.0, abs=1e-12)


def test_weight_decay_skips_biases_and_layer_norm():
    cfg = _cfg(learning_rate=1.0, warmup_steps=0, weight_decay=0.5)
    ones = np.ones((2, 2), np.float32)
    params = {
        "encoder": {
            "embeddings": {
                "word_embeddings": {"embedding": ones},
                "layer_norm": {"scale": ones[0], "bias": ones[0]},
            },
            "dense": {"kernel": ones, "bias": ones[0]},
        },
        "mlm_output_bias": ones[0],
    }
    tx = train.make_optimizer(cfg, params)
    zero = jax.tree.map(np.zeros_like, params)
    updates, _ = tx.update(zero, tx.init(params), params)
    enc = updates["encoder"]
    # The gradient is 0, so only decay moves a parameter: lr * wd * p = 0.5.
    np.testing.assert_allclose(enc["embeddings"]["word_embeddings"]["embedding"], -0.5)
    np.testing.assert_allclose(enc["dense"]["kernel"], -0.5)
    for leaf in (
        enc["embeddings"]["layer_norm"]["scale"],
        enc["embeddings"]["layer_norm"]["bias"],
        enc["dense"]["bias"],
        updates["mlm_output_bias"],
    ):
        np.testing.assert_array_equal(leaf, 0.0)


def test_clipping_bounds_the_update_norm():
    cfg = _cfg(max_grad_norm=1.0)
    params = {"w": jnp.zeros((3,))}
    tx = optax.chain(optax.clip_by_global_norm(cfg.max_grad_norm))
    out, _ = tx.update({"w": jnp.array([30.0, 40.0, 0.0])}, tx.init(params))
    assert float(optax.tree.norm(out)) == pytest.approx(1.0)


def test_train_step_learns_and_is_deterministic():
    cfg = _cfg()
    mesh, _, state, step, _ = _setup(cfg)
    batch = sharding.global_batch(_batch(0), mesh)
    losses = []
    for _ in range(8):
        state, m = step(state, batch)
        losses.append(float(m["loss"]))
    assert int(state.step) == 8
    assert losses[-1] < losses[0] - 0.1, losses
    _, _, state2, step2, _ = _setup(cfg)
    for _ in range(8):
        state2, m2 = step2(state2, batch)
    assert float(m2["loss"]) == losses[-1]  # bitwise: same seed, same steps


def test_grad_accumulation_equals_full_batch():
    # Without dropout (and in float32), 4 micro-batches give the full batch's gradient.
    results = {}
    for accum in (1, 4):
        cfg = _cfg(grad_accum_steps=accum)
        mesh, _, state, step, _ = _setup(cfg)
        for s in range(2):
            state, m = step(state, sharding.global_batch(_batch(s), mesh))
        results[accum] = (jax.device_get(state.params), float(m["loss"]), float(m["grad_norm"]))
    p1, loss1, g1 = results[1]
    p4, loss4, g4 = results[4]
    assert loss4 == pytest.approx(loss1, abs=1e-5)
    assert g4 == pytest.approx(g1, rel=1e-4)
    for a, b in zip(jax.tree.leaves(p1), jax.tree.leaves(p4), strict=True):
        np.testing.assert_allclose(a, b, atol=2e-5)


def test_non_finite_step_leaves_state_unchanged():
    cfg = _cfg()
    mesh, _, state, step, _ = _setup(cfg)
    bad = _batch(0)
    bad["masked_weights"] = bad["masked_weights"] * np.float32("nan")
    before = jax.device_get(state.params)
    state, m = step(state, sharding.global_batch(bad, mesh))
    assert int(m["finite"]) == 0 and not math.isfinite(float(m["loss"]))
    assert int(state.step) == 0
    after = jax.tree.leaves(jax.device_get(state.params))
    for a, b in zip(jax.tree.leaves(before), after, strict=True):
        np.testing.assert_array_equal(a, b)


def test_nan_loss_stops_run_and_keeps_last_good_checkpoint(tmp_path, monkeypatch):
    original = bootstrap.SyntheticLoader.batch

    def poisoned(self, step):
        out = original(self, step)
        if step == 5:  # the 6th update
            out["masked_weights"] = out["masked_weights"] * np.float32("nan")
        return out

    monkeypatch.setattr(bootstrap.SyntheticLoader, "batch", poisoned)
    cfg = _cfg(checkpoint_every_steps=2, stop_at_step=10)
    with pytest.raises(train.NonFiniteLossError, match="non-finite loss at step 6.*step 4"):
        train.train_and_evaluate(cfg, tmp_path)
    ckpt = checkpointing.Checkpointer(checkpointing.checkpoint_dir(tmp_path), read_only=True)
    assert ckpt.all_steps() == [2, 4]
    ckpt.close()
    logged = [r["step"] for r in metric_log.read_metrics(tmp_path) if "loss" in r]
    assert logged == [1, 2, 3, 4, 5]


def test_resume_is_exact_and_ignores_half_written_checkpoints(tmp_path):
    cfg = _cfg(checkpoint_every_steps=3, stop_at_step=6)
    out = train.train_and_evaluate(cfg, tmp_path)
    assert out["step"] == 6 and out["stopped"] == "done"
    first = {r["step"]: r["loss"] for r in metric_log.read_metrics(tmp_path) if "loss" in r}
    assert sorted(first) == [1, 2, 3, 4, 5, 6]
    ckdir = checkpointing.checkpoint_dir(tmp_path)
    # A death after step 3's checkpoint: step 6 never finished (what a kill during orbax's
    # save leaves is a temporary folder, items partly written), metrics went on to step 7.
    shutil.copytree(ckdir / "6", ckdir / "6.orbax-checkpoint-tmp")
    shutil.rmtree(ckdir / "6.orbax-checkpoint-tmp" / "opt_state")
    shutil.rmtree(ckdir / "6")
    with open(tmp_path / "metrics.jsonl", "a") as f:
        f.write('{"step": 7, "loss": 1.0}\n')
    ckpt = checkpointing.Checkpointer(ckdir, read_only=True)
    assert ckpt.latest_step() == 3
    ckpt.close()
    train.train_and_evaluate(cfg, tmp_path)
    again = {r["step"]: r["loss"] for r in metric_log.read_metrics(tmp_path) if "loss" in r}
    assert again == first  # steps 4-6 recomputed bit for bit; the stray step 7 line is gone


def test_init_from_takes_params_with_fresh_optimizer(tmp_path):
    cfg = _cfg(checkpoint_every_steps=3, stop_at_step=3)
    train.train_and_evaluate(cfg, tmp_path / "a")
    _, src, _ = checkpointing.load_for_export(tmp_path / "a")
    # Step 1 of the new run has learning rate 0 (warmup starts at 0): params stay as loaded.
    cfg2 = _cfg(stop_at_step=1, init_from=str(tmp_path / "a"))
    out = train.train_and_evaluate(cfg2, tmp_path / "b")
    assert out["step"] == 1
    _, dst, _ = checkpointing.load_for_export(tmp_path / "b")
    a = jax.tree.leaves(nnx.state(src, nnx.Param))
    b = jax.tree.leaves(nnx.state(dst, nnx.Param))
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


def test_fsdp_rule_shards_big_arrays_only():
    spec = sharding._leaf_spec((32000, 768), 8)
    assert spec == jax.sharding.PartitionSpec("fsdp", None)
    assert sharding._leaf_spec((768,), 8) == jax.sharding.PartitionSpec()
    assert sharding._leaf_spec((1000, 64), 1) == jax.sharding.PartitionSpec()


def test_bad_batch_size_is_a_clear_error():
    mesh = sharding.make_mesh(1)
    with pytest.raises(ValueError, match="not divisible"):
        sharding.check_batch_size(10, mesh, grad_accum_steps=4)


def test_no_data_is_a_clear_error(tmp_path):
    cfg = _cfg()
    cfg.data.synthetic = False
    cfg.data.bootstrap.enabled = False
    with pytest.raises(FileNotFoundError, match="examples_dir"):
        bootstrap.resolve_data(cfg, tmp_path)


def test_peak_table():
    class Dev:
        device_kind = "TPU v3"

    assert metric_log.peak_flops_per_device(Dev()) == 61.5e12
    assert metric_log.peak_flops_per_device(Dev(), override=1e12) == 1e12


def test_sigterm_saves_a_checkpoint_and_stops(tmp_path, monkeypatch):
    import os
    import signal

    original = bootstrap.SyntheticLoader.batch

    def preempt_at_step_3(self, step):
        if step == 3:
            os.kill(os.getpid(), signal.SIGTERM)  # what a TPU/Kubernetes preemption sends
        return original(self, step)

    monkeypatch.setattr(bootstrap.SyntheticLoader, "batch", preempt_at_step_3)
    # The handler in place before the run (SIG_DFL, or one another library installed: Ray's,
    # when its test ran first in this process) must be back after it.
    before = signal.getsignal(signal.SIGTERM)
    cfg = _cfg(checkpoint_every_steps=100, stop_at_step=6)
    out = train.train_and_evaluate(cfg, tmp_path)
    assert out["stopped"] == "preempted" and out["step"] == 4
    ckpt = checkpointing.Checkpointer(checkpointing.checkpoint_dir(tmp_path), read_only=True)
    assert ckpt.latest_step() == 4
    ckpt.close()
    assert signal.getsignal(signal.SIGTERM) is before
    monkeypatch.setattr(bootstrap.SyntheticLoader, "batch", original)
    out = train.train_and_evaluate(cfg, tmp_path)
    assert out["stopped"] == "done" and out["step"] == 6


def test_bootstrap_without_shared_data_uses_the_repo_corpus(tmp_path, monkeypatch):
    empty = tmp_path / "no-data"
    empty.mkdir()
    monkeypatch.setenv("KLUE_DATA_DIR", str(empty))
    monkeypatch.setenv("KLUE_PRETRAIN_CACHE", str(tmp_path / "cache"))
    cfg = tiny.get_config()
    cfg.data.max_seq_length = 64
    spec = bootstrap.resolve_data(cfg, tmp_path / "w")
    assert spec.objective == "bert" and spec.max_seq_length == 64 and spec.has_eval
    assert spec.examples_dir != spec.eval_examples_dir
    built = sorted((tmp_path / "cache").iterdir())
    assert len(built) == 1 and built[0].name.startswith("bootstrap-")  # no temporary left
    again = bootstrap.resolve_data(cfg, tmp_path / "w")  # cached: same folders, no rebuild
    assert again == spec
    mc = train.build_model_config(cfg, spec)
    assert mc.vocab_size == spec.vocab_size <= 1500


def test_roberta_objective_trains_without_nsp(tmp_path):
    cfg = _cfg(model="tiny-roberta", objective="roberta", stop_at_step=2, eval_every_steps=2)
    out = train.train_and_evaluate(cfg, tmp_path)
    assert out["step"] == 2
    rows = metric_log.read_metrics(tmp_path)
    train_rows = [r for r in rows if "loss" in r]
    assert train_rows and all("nsp_loss" not in r for r in train_rows)
    assert all(r["loss"] == r["mlm_loss"] for r in train_rows)
    evals = [r for r in rows if "eval/loss" in r]
    assert evals and "eval/nsp_loss" not in evals[-1]
    meta = checkpointing.Checkpointer(checkpointing.checkpoint_dir(tmp_path), read_only=True)
    assert meta.restore_meta(2)["model_config"]["arch"] == "roberta"
    meta.close()
