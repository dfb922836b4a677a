"""``python -m corpus.klue``: which KLUE splits are present, where, and how many examples.

Reads every split it finds (checking it completely, as `corpus.klue.load`
does), so it doubles as a validation of a downloaded or copied KLUE folder.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys

from corpus import klue
from corpus.datadir import add_data_dir_argument, klue_dir
from corpus.textio import InputError


def _units(task: str, examples: list) -> dict[str, int]:
    out = {"examples": len(examples)}
    if task == "dp":
        out["words"] = sum(len(x.words) for x in examples)
    elif task == "wos":
        out["turns"] = sum(len(x.turns) for x in examples)
        out["user_turns"] = sum(len(x.user_turns()) for x in examples)
    elif task == "ner":
        out["characters"] = sum(len(x.sentence) for x in examples)
    elif task == "mrc":
        out["unanswerable"] = sum(x.is_impossible for x in examples)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m corpus.klue",
        description="List and check the KLUE v1.1 splits under the data directory.",
    )
    add_data_dir_argument(parser)
    parser.add_argument("--klue-dir", default=None, help="the KLUE folder itself (overrides)")
    parser.add_argument("--tasks", nargs="+", default=list(klue.TASKS), choices=klue.TASKS)
    parser.add_argument(
        "--benchmark", action="store_true", help="also count benchmark_texts by task/split/field"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    report: dict = {"splits": {}}
    try:
        root = klue.resolve_klue_dir(args.klue_dir) if args.klue_dir else klue_dir(args.data_dir)
        report["klue_dir"] = str(root)
        present = klue.available_splits(root)
        for task in args.tasks:
            for split in present[task]:
                examples = klue.load(task, split, root)
                entry = _units(task, examples)
                entry["file"] = klue.locate(task, split, root)
                report["splits"][f"{task}/{split}"] = entry
        if args.benchmark:
            counts = collections.Counter(
                f"{b.task}/{b.split}/{b.field}"
                for b in klue.benchmark_texts(root, tasks=tuple(args.tasks))
            )
            report["benchmark_texts"] = dict(sorted(counts.items()))
    except (InputError, FileNotFoundError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
        return 0
    print(f"KLUE folder: {root}")
    for name, entry in report["splits"].items():
        units = ", ".join(f"{k} {v:,}" for k, v in entry.items() if k != "file")
        print(f"{name:22s} {units:45s} {entry['file']}")
    for name, n in report.get("benchmark_texts", {}).items():
        print(f"benchmark {name:34s} {n:,}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
