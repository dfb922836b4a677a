"""Which code a benchmark measured: the commit and whether the work tree was clean.

A figure is only worth quoting with the code that produced it. `provenance` reads
``git rev-parse`` and ``git status --porcelain`` (untracked files count: a new module
changes what runs) once; `python -m bench` passes its reading to every benchmark it
starts through the ``BENCH_PROVENANCE`` environment variable, so the table and every
JSON agree even if the tree changes while the benchmarks run. The benchmark outputs
themselves (`OUTPUTS`) do not make the tree dirty: rerunning ``make bench`` rewrites them.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
ENV = "BENCH_PROVENANCE"
#: Files the benchmarks write into the tree: not a change to the code measured.
OUTPUTS = ("bench/RESULTS.md", "bench/RESULTS.json")
#: How many changed paths a record lists (the count is always complete).
MAX_LISTED = 20


def _git(root: Path, *args: str) -> str | None:
    try:
        out = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout if out.returncode == 0 else None


def read_provenance(root: Path = REPO_ROOT) -> dict:
    """{commit, commit_full, clean, changed, changed_paths} of the tree at `root` now.

    ``commit`` is None (and ``clean`` None) outside a git checkout, e.g. an unpacked
    archive: the record then says so rather than naming a commit it cannot know."""
    full = _git(root, "rev-parse", "HEAD")
    status = _git(root, "status", "--porcelain", "--untracked-files=all")
    if full is None or status is None:
        return {"commit": None, "commit_full": None, "clean": None, "changed": None,
                "changed_paths": [], "note": "not a git checkout: commit unknown"}  # fmt: skip
    paths = [line[3:] for line in status.splitlines() if line.strip()]
    paths = [p for p in paths if p.split(" -> ")[-1] not in OUTPUTS]
    return {
        "commit": full.strip()[:7],
        "commit_full": full.strip(),
        "clean": not paths,
        "changed": len(paths),
        "changed_paths": paths[:MAX_LISTED],
    }


def provenance() -> dict:
    """The reading `python -m bench` passed down (`ENV`), else one taken now."""
    given = os.environ.get(ENV)
    if given:
        try:
            return json.loads(given)
        except ValueError:
            pass
    return read_provenance()


def stamp(result: dict | list) -> dict:
    """`result` with its ``provenance``; a list becomes ``{"rows": result, ...}``."""
    out = {"rows": result} if isinstance(result, list) else dict(result)
    out["provenance"] = provenance()
    return out


def describe(p: dict) -> str:
    """One line for a markdown header: ``commit abc1234 (clean tree)`` or what changed."""
    if p.get("commit") is None:
        return "commit unknown (not a git checkout)"
    if p["clean"]:
        return f"commit {p['commit']} (clean tree)"
    listed = ", ".join(p["changed_paths"][:5])
    more = f" and {p['changed'] - 5} more" if p["changed"] > 5 else ""
    return (f"commit {p['commit']} **with {p['changed']} uncommitted change(s)** "
            f"({listed}{more}): the figures are not those of the commit")  # fmt: skip
