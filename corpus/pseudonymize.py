"""Find 16 types of Korean personal information and replace them with same-shape pseudonyms.

    python -m corpus.pseudonymize keygen --output ~/.secrets/klue-pseudonym.key   # once
    python -m corpus.pseudonymize --input records/ --output clean/ \\
        --key-file ~/.secrets/klue-pseudonym.key \\
        [--fields text title] [--types mobile email ...] [--report spans.jsonl] [--workers 4]

Input: corpus-record JSON Lines (``id``, ``text``, ``source``, any other
field), plain ``.txt`` (one record per line, id ``<folder>/<file>:<line>``) or
any raw format `corpus.readers` knows; compressed inputs allowed. Output: one
``shard-NNNNN.jsonl.gz`` per input shard with every field kept and the chosen
string fields pseudonymised (``--fields``; default ``text`` and the other
top-level string fields that carry writing, such as a petition's ``title``, but
not provenance: ``id``, ``source``, ``url``, dates, ``status``, ``*_id``), plus
``stats.json`` (records read and changed, spans per type and per field, public
service numbers kept, share of records touched) and ``manifest.json`` from the shard executor,
which also gives resume, quarantine and accounting.

The key (`corpus.pseudonym_key`): a secret of at least 128 random bits read
from ``--key-file`` or the file named by ``$KLUE_PSEUDONYM_KEY_FILE``; there is
no default. Whoever holds the key can reverse pseudonyms of small-space values
(a phone number) by trying every value, so keep it apart from the released
corpus. ``--insecure-demo-key`` uses a public key for demos and tests and
records ``"insecure_demo_key": true`` in the manifest.

Nothing written by this stage holds an original value or the key: the optional
span report has the record id, field, type, offsets and a keyed hash only;
``manifest.json`` holds an HMAC fingerprint of the key (not invertible without
searching a >= 128-bit key space).
"""

from __future__ import annotations

import argparse
import gzip
import json
import logging
import os
import re
import sys

from corpus import pseudonym_key
from corpus.executor import ShardJob, add_executor_arguments, run_stage
from corpus.pii.detectors import REGISTRY, TYPES
from corpus.pii.generate import Pseudonymizer
from corpus.readers import ReadOptions, add_reader_arguments, reader_config
from corpus.records import RecordWriter

STAGE = "pseudonymize"
SPANS_DIR = "spans"
#: Fields not scanned by default: the record's identity and provenance (where it came from,
#: when, how it is filed). A public page address is not personal information, and
#: rewriting it would break the link back to the source. Matched on the whole field name.
PROVENANCE_FIELD = re.compile(
    r"(?:id|idx|source|url|uri|link|href|path|file|status|category|label|lang|language|license"
    r"|split|begin|end|date|time|timestamp|created|updated|published|modified"
    r"|.+_(?:id|idx|url|uri|date|at|time))",
    re.IGNORECASE,
)
log = logging.getLogger(__name__)


def make_pseudonymizer(key: bytes, types: tuple[str, ...]) -> Pseudonymizer:
    """Per-worker state: one pseudonymizer whose cache serves every shard of the worker."""
    return Pseudonymizer(key, types)


def fields_to_scan(rec_fields: dict, wanted: list[str] | None) -> list[str]:
    """The names of `rec_fields` to pseudonymise: `wanted`, or the fields that carry writing.

    By default: ``text`` and every other top-level string field whose name is not a
    provenance field (`PROVENANCE_FIELD`: ``id``, ``source``, ``url``, dates, ``status``,
    ``category``, ``*_id`` …), so a petition's ``title`` is scanned and a Wikipedia
    article's ``url`` is not. Numbers, lists and objects pass through.
    """
    if wanted is None:
        return [
            k
            for k, v in rec_fields.items()
            if isinstance(v, str) and (k == "text" or not PROVENANCE_FIELD.fullmatch(k))
        ]
    return [k for k in wanted if isinstance(rec_fields.get(k), str)]


def process_shard(job: ShardJob) -> dict:
    """Pseudonymises one input shard; returns its counts (no original values)."""
    cfg = job.config
    pz: Pseudonymizer = job.state  # made by the executor from init_args, never from the config
    opts = ReadOptions()
    read = changed = 0
    spans_per_type = dict.fromkeys(pz.types, 0)
    spans_per_field: dict[str, int] = {}
    kept: dict[str, int] = {}
    changed_per_field: dict[str, int] = {}
    by_source: dict[str, dict[str, int]] = {}
    report = RecordWriter(job.output_path(SPANS_DIR)) if cfg["report"] else None
    try:
        with RecordWriter(job.output_path()) as out:
            for rec in job.records(opts):
                read += 1
                src = by_source.setdefault(rec.source, {"read": 0, "changed": 0})
                src["read"] += 1
                data = rec.to_dict()
                touched = False
                for name in fields_to_scan(data, cfg["fields"]):
                    original = data[name]
                    new_value, spans, public = pz.apply_counted(original)
                    for label, n in public.items():
                        kept[label] = kept.get(label, 0) + n
                    if not spans:
                        continue
                    touched = True
                    data[name] = new_value
                    spans_per_field[name] = spans_per_field.get(name, 0) + len(spans)
                    changed_per_field[name] = changed_per_field.get(name, 0) + 1
                    for sp in spans:
                        spans_per_type[sp.type] += 1
                        if report is not None:
                            report.write(
                                {
                                    "id": rec.id,
                                    "field": name,
                                    "type": sp.type,
                                    "start": sp.start,
                                    "end": sp.end,
                                    "hash": pz.salted_hash(original[sp.start : sp.end]),
                                }
                            )
                if touched:
                    changed += 1
                    src["changed"] += 1
                    out.write(data)
                else:
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
        "spans_by_field": spans_per_field,
        "changed_by_field": changed_per_field,
        "kept_public": kept,
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
    # the headline per field: the share of records whose text (or title …) was changed
    summary["share_changed_by_field"] = {
        name: round(n / read, 6) for name, n in sorted(counts.get("changed_by_field", {}).items())
    }
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
        description="Replace 16 types of Korean personal information with same-shape pseudonyms. "
        "Make a key first: python -m corpus.pseudonymize keygen --output FILE",
        epilog="types: " + "; ".join(f"{t} ({REGISTRY[t].description})" for t in TYPES),
    )
    p.add_argument("--input", nargs="+", required=True, help="files, folders or globs")
    p.add_argument("--output", required=True, help="output folder (shards, stats.json, manifest)")
    key = p.add_argument_group("key (required: one of)")
    key.add_argument(
        "--key-file",
        default=None,
        help=f"secret key file made by `keygen` (default: ${pseudonym_key.KEY_FILE_ENV})",
    )
    key.add_argument(
        "--insecure-demo-key",
        action="store_true",
        help="use the PUBLIC demo key (demos and tests only: anyone can reverse the "
        "pseudonyms); the manifest records it",
    )
    p.add_argument(
        "--fields",
        nargs="+",
        default=None,
        metavar="FIELD",
        help="string fields to pseudonymise (default: text and the other string fields that "
        "carry writing, e.g. title; not id, source, url, dates, status, *_id; comma lists "
        "allowed)",
    )
    p.add_argument(
        "--types",
        nargs="+",
        default=None,
        metavar="TYPE",
        help="types to pseudonymise (default: all 16; comma lists allowed)",
    )
    p.add_argument(
        "--report", default=None, help="write a span report (id, field, type, offsets, hash)"
    )
    add_reader_arguments(p)
    add_executor_arguments(p)
    return p


def build_keygen_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m corpus.pseudonymize keygen",
        description="Write a new secret pseudonym key (256 random bits, hex) to a file with "
        "mode 0600. An existing file is never overwritten.",
    )
    p.add_argument("--output", required=True, help="key file to create")
    return p


def keygen(argv: list[str]) -> int:
    """``keygen --output FILE``: a fresh key, mode 0600; prints only its fingerprint."""
    args = build_keygen_parser().parse_args(argv)
    if os.path.exists(args.output):
        raise FileExistsError(
            f"{args.output} exists; refusing to replace a key (pseudonyms made with it would "
            "no longer match new ones). Choose another path or delete it yourself."
        )
    key = pseudonym_key.write_key_file(args.output)
    print(f"wrote {args.output} (mode 0600), fingerprint {pseudonym_key.fingerprint(key)}")
    print("keep it secret and apart from the corpus; pass it with --key-file", file=sys.stderr)
    return 0


def _split_list(items: list[str] | None) -> list[str] | None:
    if items is None:
        return None
    return [x for item in items for x in item.split(",") if x]


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["keygen"]:
        return keygen(argv[1:])
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    types = TYPES
    if args.types:
        wanted = _split_list(args.types)
        unknown = sorted(set(wanted) - set(TYPES))
        if unknown:
            build_parser().error(f"unknown type(s) {', '.join(unknown)}; known: {', '.join(TYPES)}")
        types = tuple(t for t in TYPES if t in wanted)
    key, origin = pseudonym_key.resolve_key(args.key_file, args.insecure_demo_key)
    if args.insecure_demo_key:
        log.warning(
            "--insecure-demo-key: the key is public, anyone can reverse the pseudonyms of "
            "small-space values (phone numbers). Never release this output."
        )
    elif args.key_file is None or os.path.exists(args.key_file):
        path = args.key_file or os.environ[pseudonym_key.KEY_FILE_ENV]
        if not pseudonym_key.key_file_is_private(path):
            log.warning("key file %s is readable by group or others: chmod 600 it", path)
    log.info("%s: key from %s, fingerprint %s", STAGE, origin, pseudonym_key.fingerprint(key))
    config = {
        # Identifies the key (and changes the run fingerprint with it) without revealing it.
        "key_fingerprint": pseudonym_key.fingerprint(key),
        "insecure_demo_key": bool(args.insecure_demo_key),
        "fields": _split_list(args.fields),
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
        init_args=(key, types),
        argv=[sys.executable, "-m", "corpus.pseudonymize", *argv],
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
