"""Run supervision and memory levers: time-based saves, milestones, the hang watchdog, honest
throughput accounting, remat policies / scan over layers / fused attention numerics, and the
tokenizer checks at train start. In-process and small (tiny model, synthetic batches)."""

from __future__ import annotations

import dataclasses
import functools
import itertools
import logging
import subprocess
import sys
import textwrap
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from pretrain import bootstrap, checkpointing, metric_log, models, supervision, train
from pretrain.configs import default
from tests.pretrain_fixtures import L, P, synthetic_tiny_config

REPO = Path(__file__).resolve().parent.parent


def _cfg(**changes):
    """The shared tiny synthetic config (the same program as tests/test_pretrain_train.py),
    without periodic evaluation."""
    return synthetic_tiny_config(**{"eval_every_steps": 1000, **changes})


def test_time_based_saves_and_milestones_under_a_fake_clock(tmp_path, caplog):
    # The save clock reads this fake clock once when created, once per step and once per save:
    # every read is 10 minutes later. With saves every 30 minutes, milestones every 4 steps
    # and only the newest checkpoint kept otherwise: time-based saves at 3 and 7, milestones 4
    # and 8, the end at 10; kept: 4, 8 (milestones, for good) and 10 (newest).
    ticks = itertools.count(0, 600)
    cfg = _cfg(
        checkpoint_every_steps=1000,
        checkpoint_every_minutes=30.0,
        keep_checkpoints=1,
        keep_every_steps=4,
        stop_at_step=10,
        async_checkpointing=False,
    )
    with caplog.at_level(logging.INFO):
        out = train.train_and_evaluate(cfg, tmp_path, clock=lambda: float(next(ticks)))
    assert out["step"] == 10
    saved = [
        int(r.getMessage().split()[-1])
        for r in caplog.records
        if r.getMessage().startswith("checkpoint: saving step")
    ]
    assert saved == [3, 4, 7, 8, 10]
    ckpt = checkpointing.Checkpointer(checkpointing.checkpoint_dir(tmp_path), read_only=True)
    assert ckpt.all_steps() == [4, 8, 10]
    ckpt.close()


def test_save_clock_off_and_reset():
    now = [0.0]
    clock = supervision.SaveClock(0.0, clock=lambda: now[0])
    now[0] = 1e9
    assert not clock.due()  # 0 minutes: never
    clock = supervision.SaveClock(1.0, clock=lambda: now[0])
    now[0] += 59.0
    assert not clock.due()
    now[0] += 1.0
    assert clock.due()
    clock.reset()
    assert not clock.due()


def test_watchdog_fires_after_multiple_of_median_and_not_while_paused():
    now = [0.0]
    fired: list[str] = []
    dog = supervision.Watchdog(5.0, 2.0, clock=lambda: now[0], on_hang=fired.append)
    dog.beat()  # the first (compiling) step only starts the clock
    now[0] = 100.0
    assert dog.limit() is None and not dog.check()  # no timed step yet: a long compile is fine
    for _ in range(4):
        dog.beat()
        now[0] += 1.0
    # Steps of 0 s (100 -> 100) then 1 s: median 1 s, limit max(5 x 1, 2) = 5 s.
    dog.beat()
    assert dog.limit() == 5.0
    with dog.paused():  # a checkpoint save or an eval longer than the limit
        now[0] += 50.0
        assert not dog.check()
    now[0] += 4.9
    assert not dog.check()
    now[0] += 0.2
    assert dog.check() and len(fired) == 1 and "no train step finished for 5 s" in fired[0]
    assert not dog.check()  # fires once


def test_watchdog_dumps_every_stack_and_exits_nonzero_on_an_injected_stall():
    script = textwrap.dedent(
        """
        import threading, time
        from pretrain.supervision import Watchdog

        dog = Watchdog(3.0, 0.2, poll_seconds=0.02).start()

        def injected_stall():
            threading.Event().wait(60)  # a step that never finishes

        for _ in range(6):
            dog.beat()
            time.sleep(0.02)
        injected_stall()
        print("not reached")
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == supervision.HANG_EXIT_CODE, proc.stderr[-2000:]
    assert "not reached" not in proc.stdout
    assert "watchdog: no train step finished" in proc.stderr
    assert "injected_stall" in proc.stderr  # the main thread's stack
    assert "thread pretrain-watchdog" in proc.stderr  # and every other thread's


def test_interval_meter_excludes_compile_and_pauses():
    now = [0.0]
    mc = models.PRESETS["tiny"]
    meter = metric_log.IntervalMeter(1000, mc, L, P, peak_override=1e12, clock=lambda: now[0])
    now[0] = 120.0  # the first step finished after 2 minutes of compilation
    meter.add({"loss": 4.0, "learning_rate": 0.1})
    for i, loss in enumerate((3.0, 2.0)):
        if i == 1:
            with meter.excluded():  # a checkpoint save of 30 s
                now[0] += 30.0
        meter.add_data_wait(0.25)
        now[0] += 2.0
        meter.add({"loss": loss, "learning_rate": 0.2 + i})
    out = meter.summary()
    assert out["loss"] == 3.0  # the mean over the interval, not the last step
    assert out["learning_rate"] == 1.2  # the last value
    assert out["perf/step_time_s"] == 2.0  # neither compile nor the save in it
    assert out["perf/tokens_per_s"] == 500.0
    assert out["perf/tokens_per_s_per_device"] == 500.0 / jax.device_count()
    assert out["perf/data_wait_s"] == pytest.approx(0.5 / 3)
    flops = models.flops_per_token(mc, L, P)
    assert out["perf/mfu"] == pytest.approx(flops * 500.0 / (jax.device_count() * 1e12))
    now[0] += 1.0
    meter.add({"loss": 1.0})
    assert meter.summary()["perf/step_time_s"] == 1.0  # next interval starts at the last log


def test_logged_losses_are_interval_means(tmp_path):
    every = train.train_and_evaluate(_cfg(stop_at_step=6), tmp_path / "a")
    assert every["step"] == 6
    per_step = [r["loss"] for r in metric_log.read_metrics(tmp_path / "a") if "loss" in r]
    train.train_and_evaluate(_cfg(stop_at_step=6, log_every_steps=3), tmp_path / "b")
    rows = [r for r in metric_log.read_metrics(tmp_path / "b") if "loss" in r]
    assert [r["step"] for r in rows] == [3, 6]
    for row, chunk in zip(rows, (per_step[:3], per_step[3:]), strict=True):
        assert row["loss"] == pytest.approx(sum(chunk) / 3, rel=1e-12)
    assert "perf/step_time_s" not in rows[0] or rows[0]["perf/step_time_s"] > 0
    assert all(k in rows[1] for k in ("perf/tokens_per_s_per_device", "perf/data_wait_s"))


# ---------------------------------------------------------------------------------------------
# Memory levers and attention numerics


def _tiny(**changes) -> models.ModelConfig:
    return models.PRESETS["tiny"].replace(dtype="float32", **changes)


def _batch(seed: int = 0):
    from pretrain.input_pipeline import synthetic_batch

    return synthetic_batch(seed, 4, L, P, models.PRESETS["tiny"].vocab_size, "bert")


@functools.cache
def _baseline():
    return _loss_and_grads(_tiny())


def _loss_and_grads(config: models.ModelConfig, dropout: bool = False):
    model = models.build_model(config, seed=5)
    batch = _batch()

    def loss(model):
        rngs = nnx.Rngs(dropout=jax.random.key(1)) if dropout else None
        out = model(
            batch["input_ids"],
            batch["token_type_ids"],
            batch["attention_mask"],
            batch["masked_positions"],
            deterministic=not dropout,
            rngs=rngs,
        )
        sums = train.loss_sums(out, batch, "bert")
        return sums["mlm_loss"] / sums["mlm_weight"] + sums["nsp_loss"] / sums["nsp_count"]

    value, grads = nnx.jit(nnx.value_and_grad(loss))(model)
    return float(value), jax.tree.leaves(grads)


@pytest.mark.parametrize(
    "changes",
    [
        {"remat": True},
        {"remat": True, "remat_policy": "dots_saveable"},
        {"scan_layers": True},
        {"scan_layers": True, "remat": True},
    ],
    ids=["remat", "remat-dots", "scan", "scan-remat"],
)
def test_memory_levers_keep_the_loss_in_float32(changes):
    base_loss, base_grads = _baseline()
    loss, grads = _loss_and_grads(_tiny(**changes))
    assert abs(loss - base_loss) <= 1e-6
    for a, b in zip(base_grads, grads, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)


def test_memory_levers_from_a_locked_config():
    # What --config.model_overrides.remat=True does: set a field of a locked ConfigDict
    # (an AttributeError before the fields existed).
    c = default.get_config()
    c.lock()
    c.model_overrides.remat = True
    c.model_overrides.remat_policy = "dots_saveable"
    c.model_overrides.scan_layers = True
    c.attention = "fused"
    c.model_overrides.attention_dropout = 0.0
    c.model = "tiny"
    spec = bootstrap.DataSpec("bert", 32, 5, 1000, synthetic=True)
    mc = train.build_model_config(c, spec)
    assert (mc.remat, mc.remat_policy, mc.scan_layers, mc.attention) == (
        True,
        "dots_saveable",
        True,
        "fused",
    )
    with pytest.raises(ValueError, match="remat_policy"):
        _tiny(remat=True, remat_policy="everything")


@pytest.mark.parametrize("dtype,tol", [("float32", 2e-5), ("bfloat16", 5e-2)])
def test_fused_attention_matches_xla(dtype, tol):
    batch = _batch()
    outs = []
    for attention in ("xla", "fused"):
        config = models.PRESETS["tiny"].replace(
            dtype=dtype, attention=attention, attention_dropout=0.0
        )
        model = models.build_model(config, seed=2)
        out = model(
            batch["input_ids"],
            batch["token_type_ids"],
            batch["attention_mask"],
            batch["masked_positions"],
        )
        outs.append(np.asarray(out["mlm_logits"], np.float32))
    np.testing.assert_allclose(outs[0], outs[1], atol=tol, rtol=tol)
    assert float(jnp.abs(outs[0]).max()) > 0.1  # not trivially equal


def test_fused_attention_needs_no_attention_dropout():
    with pytest.raises(ValueError, match="attention_dropout=0"):
        models.PRESETS["tiny"].replace(attention="fused")


# ---------------------------------------------------------------------------------------------
# The tokenizer decides pad id and position table; mismatches stop the run before it starts


def _spec(objective: str, pad: int, tokenizer_dir: str | None = None) -> bootstrap.DataSpec:
    names = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
    ids = [pad] + [i for i in range(6) if i != pad][:4]
    return bootstrap.DataSpec(
        objective,
        128,
        20,
        1000,
        examples_dir="/examples",
        tokenizer_dir=tokenizer_dir,
        special_ids=tuple(zip(names, ids, strict=True)),
    )


def test_pad_id_and_positions_come_from_the_tokenizer():
    cfg = _cfg(model="tiny-roberta", objective="roberta")
    mc = train.build_model_config(cfg, _spec("roberta", pad=1))
    # klue/roberta's layout: [PAD] = 1, positions from 2, table of L + 2.
    assert mc.pad_token_id == 1 and mc.max_position_embeddings == 130 and mc.max_seq_length == 128
    bert = train.build_model_config(_cfg(), _spec("bert", pad=1))
    assert bert.pad_token_id == 1 and bert.max_position_embeddings == 128


def test_a_tokenizer_folder_that_is_not_the_examples_one_is_an_error(tmp_path):
    tok = tmp_path / "tok"
    tok.mkdir()
    # [PAD] at 0 in the folder, but the examples were built with [PAD] = 1.
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + [f"t{i}" for i in range(50)]
    (tok / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match="pad_token_id|not the one"):
        train.build_model_config(_cfg(), _spec("bert", pad=1, tokenizer_dir=str(tok)))
    missing = bootstrap.DataSpec(
        "bert", 128, 20, 1000, special_ids=(("[PAD]", 0), ("[MASK]", None))
    )
    with pytest.raises(ValueError, match="no .*MASK"):
        train.build_model_config(_cfg(), missing)


# ---------------------------------------------------------------------------------------------
# One source for each constant; the program cache keyed by an explicit object


def test_one_source_for_shared_constants():
    from pretrain import build_data, flops, hf_export, masking
    from tokenizer import wordpiece

    assert masking.SPECIAL_TOKENS is wordpiece.SPECIAL_TOKENS
    assert hf_export.SPECIAL_TOKENS is wordpiece.SPECIAL_TOKENS
    assert build_data.SPECIAL_TOKENS is wordpiece.SPECIAL_TOKENS
    assert models.default_max_predictions is masking.default_max_predictions
    assert metric_log.peak_flops_per_device is flops.peak_flops_per_device
    assert flops.PEAK_FLOPS["tpu-v3-8"] == 8 * flops.peak_for_kind("TPU v3")
    assert flops.PEAK_FLOPS["h200"] == flops.peak_for_kind("NVIDIA H200")
    assert not hasattr(checkpointing, "_concrete_rest") and not hasattr(train, "_concrete_rest")


def test_program_cache_is_keyed_by_every_setting():
    from pretrain import sharding
    from pretrain.optimizer import TrainSettings

    mesh = sharding.make_mesh(1)
    spec = bootstrap.DataSpec("bert", L, P, 1000, synthetic=True)
    cfg = _cfg()
    mc = train.build_model_config(cfg, spec)
    program = train.build_program(mc, cfg, "bert", mesh)
    # Fields outside TrainSettings (logging, saving) share the compiled program ...
    same = train.build_program(
        mc, _cfg(log_every_steps=7, checkpoint_every_minutes=5.0), "bert", mesh
    )
    assert same is program
    # ... and every TrainSettings field is part of the key.
    for field, value in (("learning_rate", 1e-4), ("grad_accum_steps", 2), ("seed", 9)):
        assert train.build_program(mc, _cfg(**{field: value}), "bert", mesh) is not program
    names = {f.name for f in dataclasses.fields(TrainSettings)}
    assert names - {"fsdp_min_size"} <= set(default.get_config().keys())


def test_the_last_line_names_a_ctrl_c_as_such_not_as_a_preemption():
    """A Ctrl-C ended `pretrain.main` with "finished: {... 'stopped': 'preempted'}" and
    `finetune` with "ynat stopped (preempted)", though the exit status was 130."""
    from pretrain.supervision import PreemptionWatcher

    watcher = PreemptionWatcher()
    assert watcher.stop_reason("done") == "done"
    assert watcher.stop_reason("preempted") == "preempted"  # SIGTERM: exit 75
    watcher.interrupted = True  # what the SIGINT handler sets
    assert watcher.stop_reason("preempted") == "stopped by Ctrl-C"
    assert watcher.exit_code("preempted") == 130
