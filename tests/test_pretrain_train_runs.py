"""End-to-end runs of ``python -m pretrain.main`` in subprocesses (CPU, tiny model).

* SIGKILL at a random step, then again right after a checkpoint save started (while orbax
  writes it in the background), restart: final parameters and every logged loss are
  bitwise identical to an uninterrupted run.
* 8 simulated devices (data parallel, and data x FSDP) give the 1-device losses to 1e-5.
* Two processes on 127.0.0.1 with ``jax.distributed`` (gloo collectives) train together.
* The tiny config on the real shared corpus (bootstrap tokenizer + examples) lowers the
  loss in 50 steps, and ``python -m pretrain.export`` writes the Hugging Face folder.

Set ``PRETRAIN_KILL_SEED`` to replay a given kill step.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
from pathlib import Path

import jax
import multihost
import numpy as np
import pytest
from compiler_flags import subprocess_xla_flags
from flax import nnx

from pretrain import checkpointing, metric_log

REPO = Path(__file__).resolve().parent.parent
STEPS = 9
BASE = [
    "--config.data.synthetic=True",
    "--config.data.max_seq_length=32",
    "--config.data.max_predictions_per_seq=5",
    "--config.global_batch_size=8",
    f"--config.num_train_steps={STEPS}",
    "--config.warmup_steps=3",
    "--config.log_every_steps=1",
    "--config.checkpoint_every_steps=3",
    "--config.eval_every_steps=1000",
    "--config.eval_steps=1",
    "--config.progress_bar=False",
    # float32 compute: a 1e-5 comparison across device counts is meaningless in bfloat16
    # (8-bit mantissa; XLA tiles matmuls differently per shard shape).
    "--config.model_overrides.dtype=float32",
]
COMPARED = ("loss", "mlm_loss", "nsp_loss", "mlm_accuracy", "nsp_accuracy", "grad_norm")


def _env(devices: int | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env["JAX_PLATFORMS"] = "cpu"
    env["XLA_FLAGS"] = subprocess_xla_flags(devices)
    return env


#: The persistent compilation cache of this module's runs (`--config.compilation_cache_dir`, as a
#: user's restarts use it): the reference run compiles; every restart after a kill, and every run
#: of the same program, loads it instead of compiling again. Set by `_compilation_cache`.
_CACHE: list[Path] = []


@pytest.fixture(scope="module", autouse=True)
def _compilation_cache(tmp_path_factory):
    _CACHE.append(tmp_path_factory.mktemp("xla-cache"))
    yield
    _CACHE.clear()


def _cmd(workdir: Path, *extra: str, base: list[str] = BASE) -> list[str]:
    config = str(REPO / "pretrain" / "configs" / "tiny.py")
    cache = [f"--config.compilation_cache_dir={d}" for d in _CACHE]
    return [
        sys.executable,
        "-m",
        "pretrain.main",
        "--config",
        config,
        "--workdir",
        str(workdir),
    ] + [
        *base,
        *cache,
        *extra,
    ]


def _run(workdir: Path, *extra: str, devices: int | None = None, timeout: int = 400) -> str:
    proc = subprocess.run(
        _cmd(workdir, *extra),
        cwd=REPO,
        env=_env(devices),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    return proc.stderr


def _finished_steps(workdir: Path) -> list[int]:
    ckdir = checkpointing.checkpoint_dir(workdir)
    return (
        sorted(int(p.name) for p in ckdir.iterdir() if p.name.isdigit()) if ckdir.is_dir() else []
    )


def _run_and_kill(workdir: Path, pattern: str, *extra: str, when=lambda: True) -> tuple[str, bool]:
    """Runs main until a stderr line matches ``pattern`` and ``when()``, then SIGKILLs it."""
    proc = subprocess.Popen(
        _cmd(workdir, *extra),
        cwd=REPO,
        env=_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    seen, killed = [], False
    assert proc.stderr is not None
    for line in proc.stderr:
        seen.append(line)
        if re.search(pattern, line) and when():
            os.kill(proc.pid, signal.SIGKILL)
            killed = True
            break
    proc.stderr.close()
    proc.wait(timeout=60)
    return "".join(seen), killed


def _losses(workdir: Path) -> dict[int, dict[str, float]]:
    rows = metric_log.read_metrics(workdir)
    steps = [r["step"] for r in rows if "loss" in r]
    assert steps == sorted(set(steps)), f"duplicated or unordered steps: {steps}"
    return {r["step"]: {k: r[k] for k in COMPARED} for r in rows if "loss" in r}


def _params(workdir: Path) -> list[np.ndarray]:
    _, model, _ = checkpointing.load_for_export(workdir)
    return [np.asarray(x) for x in jax.tree.leaves(nnx.state(model, nnx.Param))]


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    """One uninterrupted 1-device run, the baseline of every comparison here."""
    workdir = tmp_path_factory.mktemp("reference")
    _run(workdir)
    assert sorted(_losses(workdir)) == list(range(1, STEPS + 1))
    return workdir


def test_sigkill_anywhere_then_resume_is_bitwise_identical(reference, tmp_path):
    seed = int(os.environ.get("PRETRAIN_KILL_SEED", random.randrange(10**6)))
    kill_step = random.Random(seed).randint(2, STEPS - 1)
    note = f"(PRETRAIN_KILL_SEED={seed}, killed at step {kill_step})"
    workdir = tmp_path / "run"

    # 1. Killed right after logging a step: somewhere between checkpoints.
    _, killed = _run_and_kill(workdir, rf"\] step {kill_step} ")
    assert killed, note
    # 2. Restarted, then killed as soon as a save is under way (async write), at the first
    #    save that starts once an earlier checkpoint is complete, so step 3 must resume.
    err, killed = _run_and_kill(
        workdir,
        r"checkpoint: step \d+ copied off the device",
        when=lambda: bool(_finished_steps(workdir)),
    )
    assert killed, f"{note}: the run ended before a save could be interrupted"
    ckdir = checkpointing.checkpoint_dir(workdir)
    left = sorted(p.name for p in ckdir.iterdir())
    print(f"{note}; checkpoint folder right after the kill during a save: {left}")
    # 3. Restarted to the end: it resumes from the newest complete checkpoint.
    err = _run(workdir)
    assert re.search(r"resumed from .* step \d+", err), note

    assert _losses(workdir) == _losses(reference), note  # every logged value, bitwise
    for a, b in zip(_params(workdir), _params(reference), strict=True):
        np.testing.assert_array_equal(a, b, err_msg=note)


def _assert_close_losses(workdir: Path, reference: Path, steps: int) -> None:
    got, want = _losses(workdir), _losses(reference)
    assert sorted(got) == list(range(1, steps + 1))
    for step in got:
        for key in ("loss", "mlm_loss", "nsp_loss"):
            assert abs(got[step][key] - want[step][key]) <= 1e-5, (step, key, got, want)


@pytest.mark.parametrize(
    "mesh",
    [
        # data parallel alone is also inside data4xfsdp2 (4-way data axis): ~40 s, long only
        pytest.param([], id="data8", marks=pytest.mark.long),
        pytest.param(
            ["--config.mesh.fsdp=2", "--config.mesh.fsdp_min_size=1024"], id="data4xfsdp2"
        ),
    ],
)
def test_eight_devices_match_one(reference, tmp_path, mesh):
    steps = 6
    err = _run(tmp_path, f"--config.stop_at_step={steps}", *mesh, devices=8)
    assert "8 devices on 1 hosts" in err
    if mesh:
        sharded = re.search(r"fsdp: (\d+) of (\d+) parameter arrays sharded", err)
        assert sharded and int(sharded.group(1)) > 0, err[-2000:]
    _assert_close_losses(tmp_path, reference, steps)


def test_two_processes_with_jax_distributed(reference, tmp_path):
    steps = 2

    def command(pid: int, port: int) -> list[str]:
        return _cmd(
            tmp_path, f"--config.stop_at_step={steps}", *multihost.distributed_flags(port, pid)
        )

    codes, errs = multihost.run(command, REPO, _env(), timeout=400)
    for code, err in zip(codes, errs, strict=True):
        assert code == 0, err[-4000:]
    assert "2 devices on 2 hosts" in errs[0]
    _assert_close_losses(tmp_path, reference, steps)
    ckpt = checkpointing.Checkpointer(checkpointing.checkpoint_dir(tmp_path), read_only=True)
    assert ckpt.latest_step() == steps
    ckpt.close()


@pytest.mark.slow
def test_tiny_on_the_shared_corpus_learns_and_exports(tmp_path):
    from corpus.datadir import resolve_data_dir

    try:
        kowiki = resolve_data_dir() / "corpus" / "kowiki"
    except FileNotFoundError:
        pytest.skip("no shared data directory (../shared/data or $KLUE_DATA_DIR)")
    if not kowiki.is_dir():
        pytest.skip(f"{kowiki} is absent")
    env_cache = {"KLUE_PRETRAIN_CACHE": str(tmp_path / "cache")}
    workdir = tmp_path / "run"
    proc = subprocess.run(
        _cmd(
            workdir,
            "--config.num_train_steps=50",
            "--config.warmup_steps=10",
            "--config.global_batch_size=16",
            "--config.data.max_seq_length=64",
            "--config.data.bootstrap.num_files=1",
            "--config.log_every_steps=1",
            "--config.eval_every_steps=50",
            "--config.progress_bar=False",
            base=[],
        ),
        cwd=REPO,
        env={**_env(), **env_cache},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "bootstrap data: building" in proc.stderr
    rows = metric_log.read_metrics(workdir)
    losses = [r["mlm_loss"] for r in rows if "mlm_loss" in r]
    assert len(losses) == 50
    first, last = np.mean(losses[:5]), np.mean(losses[-5:])
    assert last < first - 0.5, (first, last)
    evals = [r for r in rows if "eval/loss" in r]
    assert evals and np.isfinite(evals[-1]["eval/loss"])
    assert list((workdir / "tensorboard").glob("events.out.tfevents.*"))

    out = tmp_path / "hf"
    export = subprocess.run(
        [sys.executable, "-m", "pretrain.export", "--workdir", str(workdir), "--output", str(out)],
        cwd=REPO,
        env={**_env(), **env_cache},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert export.returncode == 0, export.stderr[-4000:]
    for name in ("config.json", "model.safetensors", "vocab.txt", "README.md"):
        assert (out / name).is_file(), name
    config = json.loads((out / "config.json").read_text())
    assert config["vocab_size"] == len((out / "vocab.txt").read_text().splitlines())
