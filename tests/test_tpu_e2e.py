"""The launchers end to end, on a local stand-in for the cloud and for Slurm (`fake_cloud`).

TPU: tpu/README.md's path with a 2-worker slice (v4-16: 2 hosts), every step through
``python -m tpu.launch``: create -> setup (uv Python, pinned JAX/libtpu, preflight) -> stage
(tokenizer, examples, held-out examples) -> train (2 ``jax.distributed`` processes on
127.0.0.1, gloo) -> a preemption of worker 1 (SIGTERM to it, as Cloud TPU sends; the VM is then
PREEMPTED) -> status shows it -> resume (delete, create, setup, train) -> finish -> logs ->
delete. The final checkpoint must equal, bit for bit, that of the same two processes run
straight through with ``python -m pretrain.main``.

Slurm: the script `tpu.gpu slurm` writes, submitted to the fake ``sbatch`` with 2 nodes: the
job's tasks get SIGTERM (what ``--signal=TERM@300`` sends before the time limit), save, exit 75,
the script requeues the job, the rerun resumes and finishes; the job is COMPLETED only then,
and its final checkpoint equals the same reference.

The trainer reads synthetic batches (the real-data reader is tested elsewhere); the staged
folders are small stand-ins whose arrival on every worker is checked. Model: the tiny config
(2 layers, hidden 64; a config field cannot drop a layer from the command line); programs are
compiled without optimisations and shared through one compilation cache.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import fake_cloud
import jax
import multihost
import numpy as np
import pytest
from compiler_flags import subprocess_xla_flags
from flax import nnx

from pretrain import checkpointing, supervision

ROOT = Path(__file__).resolve().parents[1]
TOTAL = 24  # steps of every run; the signal is sent once step 2 is logged
OVERRIDES = [
    "--config.data.synthetic=True",
    "--config.data.tokenizer_dir=",  # the staged tokenizer is a stand-in (synthetic batches)
    "--config.data.max_seq_length=32",
    "--config.data.max_predictions_per_seq=5",
    "--config.global_batch_size=8",
    f"--config.num_train_steps={TOTAL}",
    "--config.warmup_steps=2",
    "--config.log_every_steps=1",
    "--config.checkpoint_every_steps=1000",
    "--config.checkpoint_every_minutes=0",
    "--config.eval_every_steps=1000",
    "--config.eval_steps=1",
    "--config.progress_bar=False",
    "--config.model_overrides.dtype=float32",
    "--config.distributed.cpu_collectives=gloo",
]
TIMEOUT = 300
STEP = re.compile(r"\] step (\d+) ")


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """The fake tools on PATH, a compilation cache, and the reference run's parameters."""
    tmp = tmp_path_factory.mktemp("e2e")
    root = tmp / "cloud"
    env = {**os.environ, "XLA_FLAGS": subprocess_xla_flags()}
    env.update(fake_cloud.install(tmp / "bin", root))
    env.update(JAX_PLATFORMS="cpu", JAX_DISABLE_MOST_OPTIMIZATIONS="1", PYTHONPATH=str(ROOT))
    cache = f"--config.compilation_cache_dir={tmp / 'xla-cache'}"

    def command(pid: int, port: int) -> list[str]:
        return [
            sys.executable, "-m", "pretrain.main",
            "--config", "pretrain/configs/tiny.py", "--workdir", str(tmp / "reference"),
            *OVERRIDES, cache, *multihost.distributed_flags(port, pid),
        ]  # fmt: skip

    codes, logs = multihost.run(command, ROOT, env, TIMEOUT)
    assert codes == [0, 0], "\n".join(log[-3000:] for log in logs)
    return {"tmp": tmp, "root": root, "env": env, "cache": cache, "ref": _params(tmp / "reference")}


def _params(workdir: Path) -> list[np.ndarray]:
    ckpt = checkpointing.Checkpointer(checkpointing.checkpoint_dir(workdir), read_only=True)
    assert ckpt.latest_step() == TOTAL, ckpt.all_steps()
    ckpt.close()
    _, model, _ = checkpointing.load_for_export(workdir)
    return [np.asarray(x) for x in jax.tree.leaves(nnx.state(model, nnx.Param))]


def _assert_same(params: list[np.ndarray], ref: list[np.ndarray]) -> None:
    assert len(params) == len(ref)
    for x, y in zip(params, ref, strict=True):
        np.testing.assert_array_equal(x, y)


def _folders(base: Path) -> dict[str, Path]:
    """Small stand-ins for the tokenizer, examples and held-out examples folders."""
    out = {}
    for name in ("tokenizer", "examples", "eval_examples"):
        d = base / name
        d.mkdir(parents=True)
        (d / "manifest.json").write_text(f'{{"stand_in": "{name}"}}')
        (d / "part-0.bin").write_bytes(os.urandom(64))
        out[name] = d
    return out


def _launch(world, *args: str, check: bool = True) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "tpu.launch", *args],
        cwd=ROOT,
        env=world["env"],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    out = proc.stdout + proc.stderr
    assert not check or proc.returncode == 0, f"tpu.launch {args[0]}: exit {proc.returncode}\n{out}"
    return out


def _worker_log(root: Path, name: str, worker: int) -> str:
    log = fake_cloud.worker_home(name, worker, root) / "klue" / "logs" / "train.log"
    return log.read_text(errors="replace") if log.is_file() else ""


def _last_step(root: Path, name: str) -> int:
    steps = [int(m) for m in STEP.findall(_worker_log(root, name, 0))]
    return max(steps, default=0)


def _training_ended(root: Path, name: str) -> bool:
    return not any(fake_cloud.alive(fake_cloud.train_pid(name, i, root)) for i in range(2))


def test_tpu_launch_readme_path_with_two_workers(world):
    tmp, root, name = world["tmp"], world["root"], "klue-e2e"
    local = _folders(tmp / "local")
    bucket = tmp / "bucket"
    env_file = tmp / "tpu.env"
    env_file.write_text(
        f"PROJECT=proj\nZONE=europe-west4-a\nNAME={name}\nACCELERATOR=v4-16\nSPOT=true\n"
        f"BUCKET={bucket}\nCONFIG=pretrain/configs/tiny.py\nTOKENIZER={local['tokenizer']}\n"
        f"EXAMPLES={local['examples']}\nEVAL_EXAMPLES={local['eval_examples']}\n"
        "DEVICE_CHECK=false\n"  # CPU processes stand in for the TPU hosts
    )
    base = ["--env-file", str(env_file)]
    train = [*base, "--", *OVERRIDES, world["cache"]]

    _launch(world, "create", *base)
    out = _launch(world, "setup", *base, "--allow-dirty")
    assert out.count("preflight: ok for v4-16") == 2, out
    for i in range(2):
        venv = fake_cloud.worker_home(name, i, root) / "klue" / "venv"
        assert (venv / "python-request.txt").read_text() == "3.11"
        installed = (venv / "installed.txt").read_text()
        assert "jax==0.10.2" in installed and "libtpu==0.0.42.*" in installed, installed
    out = _launch(world, "stage", *base)
    assert out.count("verified: every file of") == 3, out
    _launch(world, "train", *train)
    fake_cloud.wait_for(lambda: _last_step(root, name) >= 2, TIMEOUT, "step 2 on worker 0")
    for i in range(2):  # the examples and held-out examples reached every worker's disk
        data = fake_cloud.worker_home(name, i, root) / "klue" / "data"
        for sub in ("examples", "eval_examples"):
            assert (data / sub / "part-0.bin").read_bytes() == (
                local[sub] / "part-0.bin"
            ).read_bytes()

    # worker 1 gets SIGTERM (a maintenance event or preemption reaching one host first): both
    # save the same step and stop, which status shows; then the VM is reclaimed (PREEMPTED)
    os.kill(fake_cloud.train_pid(name, 1, root), signal.SIGTERM)
    fake_cloud.wait_for(lambda: _training_ended(root, name), TIMEOUT, "both workers to stop")
    out = _launch(world, "status", *base)
    assert "READY" in out and f"{name}-w-1: not running" in out, out
    assert f"{name}-w-0: not running" in out, out
    fake_cloud.set_state(name, "PREEMPTED", root)
    logs = [_worker_log(root, name, i) for i in range(2)]
    code = supervision.PREEMPTED_EXIT_CODE
    assert all(log.rstrip().endswith(f"exit {code}") for log in logs), logs
    saved = checkpointing.Checkpointer(
        checkpointing.checkpoint_dir(bucket / name / "workdir"), read_only=True
    )
    (stop,) = saved.all_steps()
    saved.close()
    assert 2 <= stop < TOTAL
    out = _launch(world, "status", *base)
    assert "PREEMPTED" in out and f"checkpoints/{stop}/" in out, out

    out = _launch(world, "resume", *train[:2], "--allow-dirty", *train[2:])
    assert "recreating" in out, out
    fake_cloud.wait_for(lambda: _training_ended(root, name), TIMEOUT, "the resumed run to end")
    out = _launch(world, "logs", *base, "--worker=1")
    assert "exit 0" in out and f"step {stop}" in out, out  # resumed from the saved step
    assert f"{name}-w-0: not running" in _launch(world, "status", *base)
    _assert_same(_params(bucket / name / "workdir"), world["ref"])
    (copy,) = (bucket / name / "logs").glob("*.log")  # the log copy the wrapper uploads
    assert copy.read_text().rstrip().endswith("exit 0")

    _launch(world, "delete", *base)
    assert "NOT_FOUND" in _launch(world, "status", *base)


def test_slurm_job_requeues_after_term_and_completes_only_when_done(world):
    tmp, root = world["tmp"], world["root"]
    workdir, logs = tmp / "slurm-run", tmp / "slurm-logs"
    sbatch = tmp / "job.sbatch"
    out = subprocess.run(
        [
            sys.executable, "-m", "tpu.gpu", "slurm", "--nodes", "2", "--gpus-per-node", "1",
            "--config", "pretrain/configs/tiny.py", "--workdir", str(workdir),
            "--log-dir", str(logs), "--repo", str(ROOT), "--python", sys.executable,
            "--sbatch-file", str(sbatch), "--submit", "--", *OVERRIDES, world["cache"],
        ],
        cwd=ROOT, env=world["env"], capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert out.returncode == 0, out.stdout + out.stderr
    job = re.search(r"Submitted batch job (\d+)", out.stdout).group(1)
    node_log = logs / "train-node0.log"

    def step() -> int:
        text = node_log.read_text(errors="replace") if node_log.is_file() else ""
        return max((int(m) for m in STEP.findall(text)), default=0)

    fake_cloud.wait_for(lambda: step() >= 2, TIMEOUT, "step 2 of the Slurm job")
    fake_cloud.signal_job_tasks(job, root)  # --signal=TERM@300: the time limit is near
    done = ("COMPLETED", "FAILED")
    fake_cloud.wait_for(
        lambda: any(s in done for s in fake_cloud.job_states(job, root)), TIMEOUT, "the job's end"
    )
    batch_out = (logs / f"slurm-{job}.out").read_text()
    assert fake_cloud.job_states(job, root) == ["RUNNING", "REQUEUED", "RUNNING", "COMPLETED"], (
        batch_out
    )
    assert "saved, not finished (exit 75): requeueing job" in batch_out, batch_out
    assert "training finished" in batch_out, batch_out
    assert (logs / "train-node1.log").is_file()  # one log per node, named by each task
    _assert_same(_params(workdir), world["ref"])
