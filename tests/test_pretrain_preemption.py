"""Preemption of a two-host run: hosts signalled at different moments save the same step.

Two processes of ``python -m pretrain.main`` on 127.0.0.1 (``jax.distributed``, gloo CPU
collectives) train the tiny model together. SIGTERM goes to one process at a random step and
to the other a random moment later (which may fall before, during or after the save), in
both orders. Each time: both processes exit 75 (preempted: saved, not finished), both report
the same step, that step is the newest complete checkpoint, and a rerun of the same command
continues from it. The two orders stop at different steps; both reruns go on to the same
final step and must log the same losses and end with the same parameters, bit for bit (what
each computed after its resume, the other computed without one).

Order B starts each process the way `python -m tpu.launch train` does on every TPU worker
(and `tpu.gpu` on every GPU host): ``python -m tpu.worker --log-file ... --log-uri ... --
PRETRAIN_FLAGS``, so the signal reaches the wrapper, which forwards it to `pretrain.main`, and
each host's log is copied to the ``--log-uri`` folder. Order A starts `pretrain.main` directly.
Both must stop cleanly and end bit for bit the same after their reruns.

This is the failure a spot-TPU preemption produced before: one host began saving at step 17
while the other ran step 18, and both hung with no checkpoint. Every wait here has a timeout.
Set ``PRETRAIN_PREEMPT_SEED`` to replay given signal steps and delays.
"""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import jax
import multihost
import numpy as np
import pytest
from compiler_flags import subprocess_xla_flags
from flax import nnx

from pretrain import checkpointing, metric_log, supervision

REPO = Path(__file__).resolve().parent.parent
TOTAL = 80  # the schedule's length; the first launches are preempted long before it
BASE = [
    "--config.data.synthetic=True",
    "--config.data.max_seq_length=32",
    "--config.data.max_predictions_per_seq=5",
    "--config.global_batch_size=8",
    f"--config.num_train_steps={TOTAL}",
    "--config.warmup_steps=3",
    "--config.log_every_steps=1",
    "--config.checkpoint_every_steps=1000",
    "--config.checkpoint_every_minutes=0",
    "--config.eval_every_steps=1000",
    "--config.progress_bar=False",
    "--config.model_overrides.dtype=float32",
]
TIMEOUT = 400  # seconds for one launch of both processes (a loaded CI machine is slow)
STOPPED = re.compile(r"(SIGTERM|preemption requested by another host) at step (\d+): checkpoint")


def _start(
    workdir: Path, cache: Path, *extra: str, launch: str = "main"
) -> tuple[list[subprocess.Popen], list[Path | None]]:
    """Both processes, as ``python -m pretrain.main`` (launch="main") or through the launcher's
    per-host wrapper ``python -m tpu.worker`` (launch="worker"). Returns the processes and,
    for the wrapper, the log file each writes (None: the log is the process's stderr)."""
    env = {**os.environ, "XLA_FLAGS": subprocess_xla_flags()}
    env["JAX_PLATFORMS"] = "cpu"
    # No expensive XLA optimisation passes (LLVM -O0): the first launch's compilation is a
    # large share of this test, which is about the hosts' agreement, not the code XLA emits.
    # Both histories run programs compiled the same way, so "bit for bit" still holds them to
    # each other (bitwise resume at the default level is test_pretrain_train_runs' SIGKILL test).
    env["JAX_DISABLE_MOST_OPTIMIZATIONS"] = "1"
    runs = len(list(workdir.parent.glob(f"{workdir.name}-logs/launch*-p0.log")))
    log_files: list[Path | None] = [
        workdir.parent / f"{workdir.name}-logs" / f"launch{runs}-p{pid}.log"
        if launch == "worker"
        else None
        for pid in range(2)
    ]

    def command(pid: int, port: int) -> list[str]:
        wrapper = ["-m", "pretrain.main"]
        if launch == "worker":
            bucket = workdir.parent / f"{workdir.name}-bucket" / f"p{pid}"  # one host each
            wrapper = [
                "-m",
                "tpu.worker",
                f"--log-file={log_files[pid]}",
                f"--log-uri={bucket}",
                "--",
            ]
        return [
            sys.executable,
            *wrapper,
            "--config",
            str(REPO / "pretrain" / "configs" / "tiny.py"),
            "--workdir",
            str(workdir),
            *BASE,
            f"--config.compilation_cache_dir={cache}",
            *multihost.distributed_flags(port, pid),
            *extra,
        ]

    procs = multihost.start(command, REPO, env, pipe_stderr=launch == "main")
    return procs, log_files


def _preempted_run(
    workdir: Path, cache: Path, first: int, at_step: int, delay: float, launch: str
) -> int:
    """Both processes; SIGTERM to ``first`` once process 0 logs ``at_step``, to the other
    ``delay`` seconds later. Returns the step both saved."""
    procs, log_files = _start(workdir, cache, launch=launch)
    logs: list[list[str]] = [[], []]
    fired = threading.Event()

    def signal_both() -> None:
        os.kill(procs[first].pid, signal.SIGTERM)
        time.sleep(delay)
        if procs[1 - first].poll() is None:
            os.kill(procs[1 - first].pid, signal.SIGTERM)

    def watch(line: str) -> None:
        m = re.search(r"\] step (\d+) ", line)
        if m and int(m.group(1)) >= at_step and not fired.is_set():
            fired.set()
            threading.Thread(target=signal_both, daemon=True).start()

    threads = [
        multihost.collect(procs[0], logs[0], watch, log_files[0]),
        multihost.collect(procs[1], logs[1], log_file=log_files[1]),
    ]
    codes = multihost.finish(procs, threads, TIMEOUT)
    note = f"{launch}: first={first} at_step={at_step} delay={delay:.2f}"
    tails = "\n".join("".join(log[-30:]) for log in logs)
    assert fired.is_set(), f"{note}: process 0 never logged step {at_step}\n{tails}"
    preempted = supervision.PREEMPTED_EXIT_CODE
    assert codes == [preempted, preempted], f"{note}: exit codes {codes}\n{tails}"
    stops = []
    for log in logs:
        found = [STOPPED.search(line) for line in log]
        stops += [int(m.group(2)) for m in found if m]
    assert len(stops) == 2 and stops[0] == stops[1], f"{note}: stops {stops}\n{tails}"
    assert TOTAL > stops[0] >= at_step, note
    ckpt = checkpointing.Checkpointer(checkpointing.checkpoint_dir(workdir), read_only=True)
    assert ckpt.all_steps() == [stops[0]], note  # the agreed step, complete; nothing else
    ckpt.close()
    return stops[0]


def _rerun(workdir: Path, cache: Path, stop_at: int, launch: str) -> str:
    procs, log_files = _start(workdir, cache, f"--config.stop_at_step={stop_at}", launch=launch)
    logs: list[list[str]] = [[], []]
    threads = [
        multihost.collect(p, log, log_file=f)
        for p, log, f in zip(procs, logs, log_files, strict=True)
    ]
    codes = multihost.finish(procs, threads, TIMEOUT)
    assert codes == [0, 0], "\n".join("".join(log[-30:]) for log in logs)
    return "".join(logs[0])


def _params(workdir: Path) -> list[np.ndarray]:
    _, model, _ = checkpointing.load_for_export(workdir)
    return [np.asarray(x) for x in jax.tree.leaves(nnx.state(model, nnx.Param))]


def _losses(workdir: Path) -> dict[int, float]:
    rows = [r for r in metric_log.read_metrics(workdir) if "loss" in r]
    steps = [r["step"] for r in rows]
    assert steps == sorted(set(steps)), steps
    return {r["step"]: (r["loss"], r["mlm_loss"], r["grad_norm"]) for r in rows}


def test_two_hosts_signalled_at_different_moments_save_the_same_step(tmp_path):
    seed = int(os.environ.get("PRETRAIN_PREEMPT_SEED", random.randrange(10**6)))
    rng = random.Random(seed)
    cache = tmp_path / "xla-cache"
    # Order A: process 1 first (the reported deadlock), then process 0; order B: the reverse,
    # signalled a few steps after A's stop, so the two runs resume from different steps
    # however late the signals land on a loaded machine.
    # A starts pretrain.main directly, B through the launcher's wrapper (tpu.worker).
    launch = {"a": "main", "b": "worker"}
    plan = {"a": (1, rng.randint(2, 5), rng.uniform(0.0, 1.5))}
    stops = {"a": _preempted_run(tmp_path / "a", cache, *plan["a"], launch["a"])}
    plan["b"] = (0, stops["a"] + rng.randint(2, 6), rng.uniform(0.0, 1.5))
    stops["b"] = _preempted_run(tmp_path / "b", cache, *plan["b"], launch["b"])
    note = f"PRETRAIN_PREEMPT_SEED={seed}: plan {plan}, stopped at {stops}"
    print(note)

    final = stops["b"] + 2
    for name in plan:
        err = _rerun(tmp_path / name, cache, final, launch[name])
        assert (
            f"resumed from {checkpointing.checkpoint_dir(tmp_path / name)} step {stops[name]}"
            in (err)
        ), note
    a, b = _losses(tmp_path / "a"), _losses(tmp_path / "b")
    assert sorted(a) == list(range(1, final + 1)), note
    assert a == b, note  # every logged value, bitwise
    for x, y in zip(_params(tmp_path / "a"), _params(tmp_path / "b"), strict=True):
        np.testing.assert_array_equal(x, y, err_msg=note)
    # each wrapper copied its host's log (the last launch's: one log file per launch here) to
    # its --log-uri folder
    for pid in range(2):
        (copy,) = (tmp_path / "b-bucket" / f"p{pid}").glob("*.log")
        text = copy.read_text()
        # the rerun's log (each launch writes its own log file): it ends "done"
        assert "-m', 'pretrain.main'" in text and text.rstrip().endswith("exit 0"), note


@pytest.mark.parametrize("flags", [(1, 0), (0, 1), (1, 1), (0, 0)])
def test_one_host_agreement_is_immediate(flags):
    from pretrain import supervision

    agreement = supervision.HostAgreement(mesh=None)
    assert list(agreement.poll(7, flags)) == list(flags)


SECOND_CTRL_C = """
import os, signal, sys, time
from pretrain import supervision
w = supervision.PreemptionWatcher().install()
os.kill(os.getpid(), signal.SIGINT)
assert w.requested and w.interrupted and w.signal_name == "SIGINT"
assert w.exit_code("preempted") == supervision.INTERRUPTED_EXIT_CODE
assert w.exit_code("done") == 0
print("first Ctrl-C kept", flush=True)
os.kill(os.getpid(), signal.SIGINT)
time.sleep(10)
print("not reached", flush=True)
"""


def test_watcher_first_ctrl_c_asks_for_a_save_second_exits_at_once():
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run(
        [sys.executable, "-c", SECOND_CTRL_C], env=env, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == supervision.INTERRUPTED_EXIT_CODE, proc.stderr
    assert proc.stdout == "first Ctrl-C kept\n"
    lines = proc.stderr.splitlines()
    assert lines[0].startswith("Ctrl-C: saving a checkpoint at the next step all hosts agree on")
    assert lines[1] == "second Ctrl-C: exiting now, without a checkpoint" and len(lines) == 2
    term = supervision.PreemptionWatcher(signals=())
    term.request("SIGTERM")
    assert term.exit_code("preempted") == supervision.PREEMPTED_EXIT_CODE


def test_ctrl_c_in_pretrain_main_saves_and_exits_130(tmp_path):
    """One process: SIGINT at a step -> one line, a checkpoint at that step, exit 130, no
    traceback. (Resuming from such a checkpoint is the SIGTERM path, tested above.)"""
    env = {**os.environ, "XLA_FLAGS": subprocess_xla_flags()}
    env.update(JAX_PLATFORMS="cpu", JAX_DISABLE_MOST_OPTIMIZATIONS="1")
    cmd = [
        sys.executable, "-m", "pretrain.main", "--config", "pretrain/configs/tiny.py",
        "--workdir", str(tmp_path / "w"), *BASE,
        f"--config.compilation_cache_dir={tmp_path / 'cache'}",
    ]  # fmt: skip
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, stderr=subprocess.PIPE, text=True)
    log: list[str] = []

    def watch(line: str) -> None:
        if re.search(r"\] step 2 ", line):
            proc.send_signal(signal.SIGINT)

    threads = [multihost.collect(proc, log, watch)]
    (code,) = multihost.finish([proc], threads, TIMEOUT)
    text = "".join(log)
    assert code == supervision.INTERRUPTED_EXIT_CODE, text[-3000:]
    assert text.count("Ctrl-C: saving a checkpoint") == 1
    assert "Traceback" not in text and "KeyboardInterrupt" not in text, text[-3000:]
    (stop,) = [int(m) for m in re.findall(r"SIGINT at step (\d+): checkpoint saved", text)]
    ckpt = checkpointing.Checkpointer(checkpointing.checkpoint_dir(tmp_path / "w"), read_only=True)
    assert ckpt.all_steps() == [stop] and 2 <= stop < TOTAL
    ckpt.close()
