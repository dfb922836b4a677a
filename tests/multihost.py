"""Several local processes as the hosts of one ``jax.distributed`` job, for the tests.

Both training CLIs (``python -m pretrain.main`` and ``python -m finetune``) read the same
``--config.distributed.*`` fields (`pretrain.sharding.maybe_initialize_distributed`); these
helpers start one command per process on 127.0.0.1 with a free coordinator port and gloo CPU
collectives, pump each process's stderr, and wait with a timeout (killing the lot when it
runs out, so a deadlock fails the test instead of hanging it).
"""

from __future__ import annotations

import socket
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def distributed_flags(port: int, process_id: int, num_processes: int = 2) -> list[str]:
    """The ``--config.distributed.*`` flags of process ``process_id`` of a local job."""
    return [
        "--config.distributed.initialize=yes",
        f"--config.distributed.coordinator_address=127.0.0.1:{port}",
        f"--config.distributed.num_processes={num_processes}",
        f"--config.distributed.process_id={process_id}",
        "--config.distributed.cpu_collectives=gloo",
    ]


def start(
    command: Callable[[int, int], Sequence[str]],
    cwd: Path,
    env: dict[str, str],
    n: int = 2,
    pipe_stderr: bool = True,
) -> list[subprocess.Popen]:
    """``n`` processes, ``command(process_id, port)`` each; stdout discarded, stderr piped
    (or, with ``pipe_stderr=False`` for commands that write their own log file, inherited)."""
    port = free_port()
    return [
        subprocess.Popen(
            list(command(pid, port)),
            cwd=cwd,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE if pipe_stderr else None,
            text=True,
        )
        for pid in range(n)
    ]


def collect(
    proc: subprocess.Popen, sink: list[str], on_line=None, log_file: Path | None = None
) -> threading.Thread:
    """A thread appending ``proc``'s log lines to ``sink`` (and calling ``on_line``): its
    stderr, or the ``log_file`` it writes, followed until the process exits."""

    def lines():
        if log_file is None:
            assert proc.stderr is not None
            yield from proc.stderr
            return
        pos, rest = 0, ""
        while True:
            exited = proc.poll() is not None
            if log_file.exists():
                with open(log_file, encoding="utf-8", errors="replace") as f:
                    f.seek(pos)
                    rest += f.read()
                    pos = f.tell()
                *complete, rest = rest.split("\n")
                yield from (line + "\n" for line in complete)
            if exited:
                return
            time.sleep(0.05)

    def pump() -> None:
        for line in lines():
            sink.append(line)
            if on_line is not None:
                on_line(line)

    thread = threading.Thread(target=pump, daemon=True)
    thread.start()
    return thread


def finish(
    procs: list[subprocess.Popen], threads: list[threading.Thread], timeout: float
) -> list[int]:
    """Exit codes of ``procs``; all are killed (and the wait fails) after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    try:
        for p in procs:
            p.wait(timeout=max(deadline - time.monotonic(), 1))
    except subprocess.TimeoutExpired:
        for p in procs:
            if p.poll() is None:
                p.kill()
        for p in procs:
            p.wait(timeout=30)
        raise
    finally:
        for t in threads:
            t.join(timeout=10)
    return [p.returncode for p in procs]


def run(
    command: Callable[[int, int], Sequence[str]],
    cwd: Path,
    env: dict[str, str],
    timeout: float,
    n: int = 2,
) -> tuple[list[int], list[str]]:
    """Starts ``n`` processes and waits for them: (exit codes, stderr of each)."""
    procs = start(command, cwd, env, n)
    logs: list[list[str]] = [[] for _ in procs]
    threads = [collect(p, log) for p, log in zip(procs, logs, strict=True)]
    codes = finish(procs, threads, timeout)
    return codes, ["".join(log) for log in logs]
