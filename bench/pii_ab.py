"""PII throughput of two commits side by side: the ratio issue #24 bounds, measured steadily.

    python -m bench.pii_ab c36ded4 HEAD --rounds 4 --passes 15 --data-dir ../shared/data

Each commit is unpacked with ``git archive`` into a temporary folder (today's `bench/pii.py`
and `bench/provenance.py` copied in, so both read the same text the same way). Each round
runs one process per commit that makes `--passes` passes of detect + replace and of detect
alone over the first `--mb` MB of kowiki, a fresh pseudonymiser each pass; the two run at
once, each pinned to its own core, and the cores are swapped every round, so both see the
same phase of a shared host (on one core they alternate). The ratio is old / new CPU time
of the median pass, of the lower quartile and of the fastest. On the shared 2-core
development host, best-of-5 runs of `python -m bench.pii` spread 0.73-0.89 for the same two
trees, and sequential alternation of these passes 0.72-0.92 by the phase of the host; run
together, the median ratios of two runs agreed within 0.01.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from bench.ab_trees import pinned_round, share, unpack
from bench.provenance import stamp

#: What each process runs: ``python -c _PASSES tree data_dir mb passes``.
_PASSES = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
from bench.pii import _load_texts, _warm_pseudonymizer
texts = _load_texts(sys.argv[2], float(sys.argv[3]))
out = {"detect + replace": [], "detect only": []}
for _ in range(int(sys.argv[4])):
    pz = _warm_pseudonymizer()
    t = time.process_time()
    for x in texts:
        pz.apply(x)
    out["detect + replace"].append(time.process_time() - t)
    t = time.process_time()
    for x in texts:
        pz.scanner.find(x)
    out["detect only"].append(time.process_time() - t)
print(json.dumps(out))
"""


def _round(trees: dict[str, Path], args: argparse.Namespace, swap: bool) -> dict[str, dict]:
    """One round: both commits' passes at once, each on its own core (`ab_trees`)."""
    cmd = [sys.executable, "-c", _PASSES]
    args_of = [args.data_dir, str(args.mb), str(args.passes)]
    return pinned_round({r: ([*cmd, str(t), *args_of], t) for r, t in trees.items()}, swap)


def run(args: argparse.Namespace) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        # by role, not by commit: a commit compared with itself gets two trees
        trees = {
            role: unpack(getattr(args, role), Path(tmp) / role, ("pii.py", "provenance.py"))
            for role in ("old", "new")
        }
        times: dict[str, dict[str, list[float]]] = {role: {} for role in trees}
        start = time.time()
        for r in range(args.rounds):
            for role, rows in _round(trees, args, swap=bool(r % 2)).items():
                for row, values in rows.items():
                    times[role].setdefault(row, []).extend(values)
    out: dict = {"old": args.old, "new": args.new, "mb": args.mb, "wall_s": time.time() - start}
    for row in times["old"]:
        old, new = times["old"][row], times["new"][row]
        out[row] = {
            "passes": len(new),
            "old_min_s": round(min(old), 4),
            "new_min_s": round(min(new), 4),
            "old_median_s": round(share(old, 0.5), 4),
            "new_median_s": round(share(new, 0.5), 4),
            "ratio_median": round(share(old, 0.5) / share(new, 0.5), 3),
            "ratio_q25": round(share(old, 0.25) / share(new, 0.25), 3),
            "ratio_min": round(min(old) / min(new), 3),
        }
    return stamp(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("old", help="the commit to compare with (issue #24: c36ded4)")
    p.add_argument("new", nargs="?", default="HEAD")
    p.add_argument("--rounds", type=int, default=4, help="rounds of the two processes")
    p.add_argument("--passes", type=int, default=15, help="passes per process")
    p.add_argument("--mb", type=float, default=16.0, help="MB of kowiki text")
    p.add_argument("--data-dir", default=os.environ.get("KLUE_DATA_DIR", "../shared/data"))
    print(json.dumps(run(p.parse_args(argv)), indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
