"""Find 16 types of Korean personal information and replace them with same-shape pseudonyms.

    python -m corpus.pseudonymize --input records/ --output clean/ --seed 1234 \\
        [--types mobile email ...] [--report spans.jsonl] [--workers 4]

Input: corpus-record JSON Lines (``id``, ``text``, ``source``, any other
field), plain ``.txt`` (one record per line, id ``<folder>/<file>:<line>``) or
any raw format `corpus.readers` knows; ``.gz``/``.zst`` allowed. Output: one
``shard-NNNNN.jsonl.gz`` per input file with every field kept and ``text``
pseudonymised, plus ``stats.json`` (records read and changed, spans per type,
share of records touched) and ``manifest.json`` from the shard executor, which
also gives resume, quarantine and accounting.

Nothing written by this stage holds an original value: the optional span
report has the record id, type, offsets and a keyed (salted) hash only.
The ``--seed`` is the key of both the pseudonyms and the hashes; keep it secret
for a public release: with the key, the pseudonym of a value from a small space
(a phone number) can be reversed by trying every value. So the key itself is
never written either: ``manifest.json`` holds a hash of it and the recorded
command line shows ``--seed <redacted>``.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import logging
import os
import sys

from corpus.executor import ShardJob, add_executor_arguments, run_stage
from corpus.pii.detectors import REGISTRY, TYPES
from corpus.pii.generate import Pseudonymizer
from corpus.readers import ReadOptions, add_reader_arguments, reader_config
from corpus.records import RecordWriter

STAGE = "pseudonymize"
SPANS_DIR = "spans"
log = logging.getLogger(__name__)


def redact_seed(argv: list[str]) -> list[str]:
    """The command line with the value of ``--seed`` hidden, for the manifest."""
    out, hide = [], False
    for arg in argv:
        if hide:
            out.append("<redacted>")
            hide = False
        elif arg == "--seed":
            out.append(arg)
            hide = True
        elif arg.startswith("--seed="):
            out.append("--seed=<redacted>")
        else:
            out.append(arg)
    return out


def make_pseudonymizer(seed: int, types: tuple[str, ...]) -> Pseudonymizer:
    """Per-worker state: one pseudonymizer whose cache serves every shard of the worker."""
    return Pseudonymizer(seed, types)


def process_shard(job: ShardJob) -> dict:
    """Pseudonymises one input file; returns its counts (no original values)."""
    cfg = job.config
    pz: Pseudonymizer = job.state  # made by the executor from init_args, never from the config
    opts = ReadOptions()
    read = changed = 0
    spans_per_type = dict.fromkeys(pz.types, 0)
    by_source: dict[str, dict[str, int]] = {}
    report = RecordWriter(job.output_path(SPANS_DIR)) if cfg["report"] else None
    try:
        with RecordWriter(job.output_path()) as out:
            for rec in job.records(opts):
                read += 1
                src = by_source.setdefault(rec.source, {"read": 0, "changed": 0})
                src["read"] += 1
                new_text, spans = pz.apply(rec.text)
                if spans:
                    changed += 1
                    src["changed"] += 1
                    for sp in spans:
                        spans_per_type[sp.type] += 1
                        if report is not None:
                            report.write(
                                {
                                    "id": rec.id,
                                    "type": sp.type,
                                    "start": sp.start,
                                    "end": sp.end,
                                    "hash": pz.salted_hash(rec.text[sp.start : sp.end]),
                                }
                            )
                    rec = rec.replace(text=new_text)
                out.write(rec)
    except BaseException:
        if report is not None:
            report.abort()
        raise
    if report is not None:
        report.close()
    counts = {
        "read": read,
        "changed": changed,
        "unchanged": read - changed,
        "spans": spans_per_type,
        "by_source": by_source,
    }
    if opts.skipped:
        counts["skipped"] = dict(opts.skipped)
    return counts


def merge_report(output_dir: str, report_path: str) -> int:
    """Concatenates the per-shard span reports, in shard order, into `report_path`."""
    folder = os.path.join(output_dir, SPANS_DIR)
    names = (
        sorted(n for n in os.listdir(folder) if n.endswith(".jsonl.gz"))
        if os.path.isdir(folder)
        else []
    )
    tmp = report_path + ".tmp"
    n = 0
    os.makedirs(os.path.dirname(os.path.abspath(report_path)), exist_ok=True)
    with open(tmp, "wb") as out:
        for name in names:
            with gzip.open(os.path.join(folder, name), "rb") as fh:
                for line in fh:
                    out.write(line)
                    n += 1
    os.replace(tmp, report_path)
    return n


def add_summary(output_dir: str, counts: dict) -> dict:
    """Adds the share of records touched to ``stats.json`` (the executor sums only counts)."""
    read = counts.get("read", 0)
    summary = dict(counts)
    summary["share_changed"] = round(counts.get("changed", 0) / read, 6) if read else 0.0
    path = os.path.join(output_dir, "stats.json")
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(summary, fh, ensure_ascii=False, indent=2, sort_keys=True)
        fh.write("\n")
    os.replace(tmp, path)
    return summary


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m corpus.pseudonymize",
        description="Replace 16 types of Korean personal information with same-shape pseudonyms.",
        epilog="types: " + "; ".join(f"{t} ({REGISTRY[t].description})" for t in TYPES),
    )
    p.add_argument("--input", nargs="+", required=True, help="files, folders or globs")
    p.add_argument("--output", required=True, help="output folder (shards, stats.json, manifest)")
    p.add_argument("--seed", type=int, default=0, help="key of the pseudonyms (keep it secret)")
    p.add_argument(
        "--types",
        nargs="+",
        default=None,
        metavar="TYPE",
        help="types to pseudonymise (default: all 16; comma lists allowed)",
    )
    p.add_argument("--report", default=None, help="write a span report (id, type, offsets, hash)")
    add_reader_arguments(p)
    add_executor_arguments(p)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    types = TYPES
    if args.types:
        wanted = [t for item in args.types for t in item.split(",") if t]
        unknown = sorted(set(wanted) - set(TYPES))
        if unknown:
            build_parser().error(f"unknown type(s) {', '.join(unknown)}; known: {', '.join(TYPES)}")
        types = tuple(t for t in TYPES if t in wanted)
    if args.seed == 0:
        log.warning(
            "--seed 0 is the public default key: pseudonyms of small-space values (phone "
            "numbers) can be reversed by anyone; pass a secret --seed for real data"
        )
    config = {
        # The fingerprint must change with the key, but the key must not be written.
        "seed_blake2b": hashlib.blake2b(f"seed:{args.seed}".encode(), digest_size=16).hexdigest(),
        "types": list(types),
        "report": bool(args.report),
        **reader_config(args),
    }
    counts = run_stage(
        STAGE,
        args.input,
        args.output,
        process_shard,
        config,
        workers=args.workers,
        executor=args.executor,
        init=make_pseudonymizer,
        init_args=(args.seed, types),
        argv=[sys.executable, "-m", "corpus.pseudonymize", *redact_seed(argv or sys.argv[1:])],
        ray_address=args.ray_address,
        force=args.force,
    )
    summary = add_summary(args.output, counts)
    if args.report:
        n = merge_report(args.output, args.report)
        log.info("span report: %d spans in %s", n, args.report)
    log.info(
        "%s: %d records read, %d changed (%.3f%%)",
        STAGE,
        summary.get("read", 0),
        summary.get("changed", 0),
        100 * summary["share_changed"],
    )
    return 0


if __name__ == "__main__":
    from corpus.cli import run

    run(main)
