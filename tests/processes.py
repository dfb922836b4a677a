"""The process table as tests of worker pools read it (Linux /proc): who is a child of whom,
which children are spawned workers, and whether workers outlive a parent killed with SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path


def alive(pid: int) -> bool:
    """True while `pid` runs (a zombie, exited but not reaped, counts as gone)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def children_of(parent: int) -> list[int]:
    """Pids whose parent is `parent`."""
    pids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        if ppid == parent:
            pids.append(int(stat.parent.name))
    return pids


def spawned_workers(parent: int) -> list[int]:
    """`parent`'s multiprocessing workers started with spawn (not its resource tracker, not a
    reaped zombie, whose command line is empty)."""
    out = []
    for pid in children_of(parent):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"spawn_main" in cmdline and b"resource_tracker" not in cmdline:
            out.append(pid)
    return out


def survivors_of_sigkill(
    proc: subprocess.Popen, workers: list[int], wait_s: float = 30
) -> list[int]:
    """SIGKILL `proc`, wait up to `wait_s` for its `workers` to go, and return those still
    running (killed afterwards, so a failing test leaves no process behind)."""
    try:
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline and any(alive(p) for p in workers):
            time.sleep(0.1)
        left = [p for p in workers if alive(p)]
    finally:
        proc.kill()
        proc.wait()
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    return left
