"""PII pseudonymisation throughput and recall, side by side with references, one process each.

    python -m bench.pii [--data-dir DIR] [--mb 8] [--repeat 1] \\
        [--ko-pii-guard-python /tmp/benchvenv/bin/python]

Measures, on the same Korean Wikipedia records (the first ``--mb`` MB of the
kowiki sample, read with `corpus.readers`):

* ``corpus.pii`` (ours): detection + replacement of all 16 types in one pass;
  detection only; and detection with the straightforward reference scan
  (``Scanner(fast=False)``: same spans, no candidate gates);
* a naive baseline: the same 16 detectors run as 16 separate regex passes
  (what "one pass" is compared against);
* ko-pii-guard (Microsoft Presidio with its Korean recognizers; 9 of our 16
  types), masking, when a Python with it installed is given. Install it in a
  separate environment, never the project's:
  ``python3 -m venv /tmp/benchvenv && /tmp/benchvenv/bin/pip install ko-pii-guard``.

Throughput is MB of UTF-8 input per CPU second of the process (per core; the
machine may be shared, so CPU time is steadier than wall time), with wall
time and peak memory. ``--repeat N`` times the two corpus.pii rows N times each
(detect + replace with a new pseudonymiser each time, so its cache starts empty) and
keeps the run with the least CPU time: on a shared machine that is the figure least
disturbed by the other processes. Recall is on the labelled positives of the held-out
seed (`corpus.pii.testset`): the share of gold values entirely covered by some
detected span, over all 16 types and over the 9 types ko-pii-guard covers.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

from bench.provenance import stamp

# types ko-pii-guard claims to cover, in our names
KO_PII_GUARD_TYPES = ("rrn", "frn", "brn", "driver_license", "passport", "mobile", "phone",
                      "email", "card", "bank_account")  # fmt: skip


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _timed(fn, texts: list[str]) -> dict:
    t0, c0 = time.perf_counter(), time.process_time()
    n = 0
    for text in texts:
        n += fn(text)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    mb = sum(len(t.encode("utf-8")) for t in texts) / 1e6
    return {
        "mb": round(mb, 3),
        "cpu_s": round(cpu, 3),
        "wall_s": round(wall, 3),
        "mb_per_cpu_s": round(mb / cpu, 2),
        "spans": n,
        "peak_rss_mb": round(_peak_rss_mb(), 1),
    }


def _covered(spans: list[tuple[int, int]], s: int, e: int) -> bool:
    return all(any(a <= i < b for a, b in spans) for i in range(s, e))


# --- ko-pii-guard worker (runs inside the bench environment; stdlib + ko_pii_guard only) ---


def kopii_worker(texts_path: str, labelled_path: str) -> None:
    from ko_pii_guard import KoreanPIIGuard

    guard = KoreanPIIGuard()
    with open(texts_path, encoding="utf-8") as fh:
        texts = json.load(fh)
    with open(labelled_path, encoding="utf-8") as fh:
        labelled = json.load(fh)
    guard.mask("warm-up 010-1234-5678")
    result = _timed(lambda t: len(guard.analyze(t)), texts)
    masked = _timed(lambda t: len(guard.mask(t)) * 0, texts)
    result["mask"] = masked
    hits = {}
    for text, s, e, kind in labelled:
        found = [(f.start, f.end) for f in guard.analyze(text)]
        c = hits.setdefault(kind, [0, 0])
        c[0] += 1
        c[1] += _covered(found, s, e)
    result["recall_by_type"] = hits
    print(json.dumps(result))


# --- ours and the naive baseline ------------------------------------------------------------


def _load_texts(data_dir: str | None, mb: float) -> list[str]:
    from corpus.datadir import resolve_data_dir
    from corpus.readers import iter_records

    root = resolve_data_dir(data_dir) / "corpus" / "kowiki" / "AA"
    texts, size = [], 0
    for name in sorted(os.listdir(root)):
        for rec in iter_records(root / name):
            texts.append(rec.text)
            size += len(rec.text.encode("utf-8"))
            if size >= mb * 1e6:
                return texts
    return texts


_PREFIXED: dict = {}


def _naive_count(text: str) -> int:
    """16 passes: each detector's regex over the whole text, then its validator.

    Each pattern gets the same first-character lookahead the combined scan uses,
    so the comparison isolates one pass against sixteen.
    """
    import re

    from corpus.pii.detectors import REGISTRY

    if not _PREFIXED:
        for det in REGISTRY.values():
            _PREFIXED[det.name] = (det, re.compile(f"(?=[{det.first}])(?:{det.pattern})"))
    n = 0
    for det, rx in _PREFIXED.values():
        if det.gate and not any(g in text for g in det.gate):
            continue
        for m in rx.finditer(text):
            n += det.accept(text, det.regex.match(text, m.start()), 0) is not None
    return n


def _recall(labelled: list[tuple[str, int, int, str]], find) -> dict[str, list[int]]:
    hits: dict[str, list[int]] = {}
    for text, s, e, kind in labelled:
        c = hits.setdefault(kind, [0, 0])
        c[0] += 1
        c[1] += _covered(find(text), s, e)
    return hits


def _total_recall(hits: dict[str, list[int]], kinds) -> str:
    gold = sum(hits[k][0] for k in kinds if k in hits)
    found = sum(hits[k][1] for k in kinds if k in hits)
    return f"{found / gold:.3f}" if gold else "n/a"


def _warm_pseudonymizer():
    """A new `Pseudonymizer` (empty pseudonym cache) whose patterns are compiled."""
    from corpus.pii.generate import Pseudonymizer

    pz = Pseudonymizer(seed=1)
    pz.apply("warm-up 010-1234-5678")
    return pz


def _replacer():
    """One pass of detection + replacement, by a new pseudonymiser."""
    pz = _warm_pseudonymizer()
    return lambda text: len(pz.apply(text)[1])


def _best(repeat: int, make, texts: list[str]) -> dict:
    """`_timed` of `make()` `repeat` times, the run with the least CPU time (with the count).

    Each run gets a fresh function from `make` (a fresh pseudonymiser: its cache starts
    empty, as in one pass), so the repeats differ only in what the shared machine did.
    """
    runs = [_timed(make(), texts) for _ in range(repeat)]
    best = min(runs, key=lambda r: r["cpu_s"])
    return dict(best, runs=repeat) if repeat > 1 else best


def run(args: argparse.Namespace) -> dict:
    from corpus.pii.detectors import TYPES
    from corpus.pii.scan import Scanner
    from corpus.pii.testset import HELD_OUT_SEED, positives

    texts = _load_texts(args.data_dir, args.mb)
    labelled = [(ex.text, *ex.spans[0][:2], ex.spans[0][2]) for ex in positives(HELD_OUT_SEED, 60)]
    pz = _warm_pseudonymizer()
    reference = Scanner(fast=False)
    reference.find("warm-up 010-1234-5678")
    rows = {
        "corpus.pii (16 types, detect + replace)": _best(args.repeat, _replacer, texts),
        "corpus.pii (16 types, detect only)": _best(
            args.repeat, lambda: lambda t: len(pz.scanner.find(t)), texts
        ),
        "corpus.pii reference scan (detect only, Scanner(fast=False))": _timed(
            lambda t: len(reference.find(t)), texts
        ),
        "16 passes, one per detector (same regexes)": _timed(_naive_count, texts),
    }
    scanner = Scanner()
    ours = _recall(labelled, lambda t: [(s.start, s.end) for s in scanner.find(t)])
    rows["corpus.pii (16 types, detect + replace)"]["recall_all"] = _total_recall(ours, TYPES)
    rows["corpus.pii (16 types, detect + replace)"]["recall_kopii_types"] = _total_recall(
        ours, KO_PII_GUARD_TYPES
    )
    if args.ko_pii_guard_python:
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            tp, lp = os.path.join(tmp, "texts.json"), os.path.join(tmp, "labelled.json")
            with open(tp, "w", encoding="utf-8") as fh:
                json.dump(texts, fh, ensure_ascii=False)
            with open(lp, "w", encoding="utf-8") as fh:
                json.dump(labelled, fh, ensure_ascii=False)
            res = subprocess.run(
                [args.ko_pii_guard_python, os.path.abspath(__file__), "--worker", tp, lp],
                capture_output=True, text=True, check=False,
            )  # fmt: skip
        if res.returncode != 0:
            rows["ko-pii-guard"] = {"error": res.stderr.strip().splitlines()[-1:]}
        else:
            kop = json.loads(res.stdout.strip().splitlines()[-1])
            hits = kop.pop("recall_by_type")
            rows["ko-pii-guard 0.2.0 (Presidio, mask)"] = kop.pop("mask")
            rows["ko-pii-guard 0.2.0 (Presidio, mask)"]["recall_all"] = _total_recall(hits, TYPES)
            rows["ko-pii-guard 0.2.0 (Presidio, mask)"]["recall_kopii_types"] = _total_recall(
                hits, KO_PII_GUARD_TYPES
            )
            rows["ko-pii-guard 0.2.0 (Presidio, analyze only)"] = kop
    return rows


def markdown(rows: dict) -> str:
    lines = [
        "| tool | MB | MB/s per core (CPU) | wall s | peak RSS MB | recall, 16 types | "
        "recall, ko-pii-guard's types |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, r in rows.items():
        if "error" in r:
            lines.append(f"| {name} | error: {r['error']} | | | | | |")
            continue
        lines.append(
            f"| {name} | {r['mb']} | {r['mb_per_cpu_s']} | {r['wall_s']} | {r['peak_rss_mb']} | "
            f"{r.get('recall_all', '')} | {r.get('recall_kopii_types', '')} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--worker"]:
        kopii_worker(argv[1], argv[2])
        return 0
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from corpus.datadir import add_data_dir_argument

    p = argparse.ArgumentParser(prog="python -m bench.pii", description=__doc__.split("\n")[0])
    p.add_argument("--mb", type=float, default=8.0, help="MB of kowiki text to process")
    p.add_argument("--ko-pii-guard-python", default=None, help="a Python with ko-pii-guard")
    p.add_argument(
        "--repeat", type=int, default=1,
        help="time each corpus.pii row this many times and keep the least CPU time "
        "(a loaded machine: the best run is the steadiest figure)",
    )  # fmt: skip
    p.add_argument("--json", action="store_true")
    add_data_dir_argument(p)
    args = p.parse_args(argv)
    rows = run(args)
    print(json.dumps(stamp(rows), indent=1) if args.json else markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
