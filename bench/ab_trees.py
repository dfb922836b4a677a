"""Two commits timed side by side: what `bench.pii_ab` and `bench.dedup_ab` share.

Each commit is unpacked with ``git archive`` into a folder of its own (`unpack`), so the old
code runs as it was, imports and all. A round starts one timing process per commit at once,
each pinned to its own core, and the cores are swapped every other round (`pinned_round`):
both commits see the same phase of a shared host, which on the 2-core development machine
moved single runs by 10-25% (docs/pii.md, docs/corpus.md). Where fewer than two cores are
ours the two run one after the other.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def unpack(commit: str, into: Path, bench_files: Sequence[str] = ()) -> Path:
    """`commit`'s tree in `into`, with today's copies of `bench_files` (names under bench/)
    so that both commits read their input the same way."""
    into.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", commit], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    for name in bench_files:
        shutil.copy(ROOT / "bench" / name, into / "bench" / name)
    return into


def full_commit(commit: str) -> str:
    """The full hash of `commit` (a name such as ``HEAD`` or a short hash)."""
    return subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--verify", commit + "^{commit}"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip


def start(cmd: list[str], tree: Path, core: int | None) -> subprocess.Popen:
    """`cmd` run in `tree` with `tree` first on the import path, pinned to `core` if given;
    its stdout is read by `result`."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    pin = None if core is None else (lambda: os.sched_setaffinity(0, {core}))
    return subprocess.Popen(
        cmd, cwd=tree, env=env, stdout=subprocess.PIPE, text=True, preexec_fn=pin
    )


def result(proc: subprocess.Popen) -> dict:
    """The JSON object a timing process printed last, or an error naming its exit status."""
    out, _ = proc.communicate()
    if proc.returncode:
        raise RuntimeError(f"a timing process failed (exit {proc.returncode})")
    return json.loads(out.strip().splitlines()[-1])


def pinned_round(cmds: dict[str, tuple[list[str], Path]], swap: bool) -> dict[str, dict]:
    """One round: each role's command (``role -> (cmd, tree)``) at once on its own core,
    the cores swapped when `swap`; one after the other where fewer than two cores are ours."""
    cores = sorted(os.sched_getaffinity(0))[:2]
    if len(cores) < 2:
        return {role: result(start(cmd, tree, None)) for role, (cmd, tree) in cmds.items()}
    if swap:
        cores.reverse()
    runs = {
        role: start(cmd, tree, core)
        for (role, (cmd, tree)), core in zip(cmds.items(), cores, strict=True)
    }
    return {role: result(p) for role, p in runs.items()}


def share(values: list[float], q: float) -> float:
    """The value below which a share `q` of `values` lies (the lower one)."""
    return sorted(values)[int(len(values) * q)]
