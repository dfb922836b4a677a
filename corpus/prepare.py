"""Raw sources -> normalised, filtered, exactly deduplicated sentence records.

    python -m corpus.prepare --input kowiki/ petitions/ --output records/ \\
        [--source NAME] [--min-chars N] [--workers N] [--hash-dir DIR]

Per input shard (a file, or a part of a large one: `corpus.sharding`; through
`corpus.executor`):

1. read documents with `corpus.readers.iter_records` (any raw format, or our
   corpus records; ``.gz``/``.zst``);
2. normalise (`corpus.normalize.normalize_document`: NFC, control characters,
   odd whitespace) and split into sentences (`corpus.sentences`);
3. filter (`corpus.filters`): minimum length per source (the paper's 200
   characters for CC-100 and NEWSCRAWL, 0 elsewhere, ``--min-chars`` to
   override) and exact duplicates by normalised hash.

Output records: ``{"id": "<document id>-s<k>", "text", "source", "doc_id", ...}``
with every other field of the document kept; ``k`` is the sentence's position
in its document before filtering, so ids never depend on what was removed.

Exact dedup across shards, deterministically and in bounded memory:
the first occurrence in (shard order, position) order wins. Pass 1 (stage
``prepare-hashes``, in ``--hash-dir``, default ``<output>.hashes``) runs steps
1-3 with per-shard dedup and writes the 64-bit hash of each surviving sentence.
A global pass reads those hashes shard by shard, spills them into hash
partitions, and in each partition (a fraction of the corpus in memory) marks
every later occurrence of a hash; the result is one sorted drop list per shard.
Pass 2 (stage ``prepare``, in ``--output``) repeats steps 1-3 and also drops
the listed positions. Both passes resume through the executor; the global pass
is a pure function of pass 1's files and is simply recomputed.

``stats.json`` accounts for every sentence: ``sentences = kept + removed``,
with removals per reason (``too_short``, ``duplicate``,
``duplicate_cross_shard``) overall and per source; documents that yield no
sentence are counted as ``documents_empty``.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Iterator

import numpy as np

from corpus.executor import DONE_DIR, ShardJob, add_executor_arguments, run_stage
from corpus.filters import build_filters
from corpus.normalize import normalize_document
from corpus.readers import ReadOptions, add_reader_arguments, reader_config
from corpus.records import CorpusRecord, RecordWriter
from corpus.sentences import split_sentences

STAGE = "prepare"
HASH_STAGE = "prepare-hashes"
HASHES = "hashes"
#: Hashes held in memory at once by the global pass (24 bytes each).
PARTITION_ROWS = 4_000_000
log = logging.getLogger(__name__)


def iter_sentences(job: ShardJob, counts: dict) -> Iterator[tuple[CorpusRecord, int | None, str]]:
    """Yields ``(sentence record, hash or None, removal reason or "")`` for one shard.

    The hash is given for every sentence that passes the filters (reason "").
    Updates ``counts`` with documents read/empty and benign reader skips.
    """
    cfg = job.config
    opts = ReadOptions()
    filters_by_source: dict = {}
    for doc in job.records(opts, source=cfg.get("source")):
        counts["documents"] += 1
        sents = split_sentences(normalize_document(doc.text))
        if not sents:
            counts["documents_empty"] += 1
            continue
        source = cfg.get("source") or doc.source  # --source overrides even a record's own
        flt = filters_by_source.get(source)
        if flt is None:
            flt = filters_by_source[source] = build_filters(source, cfg.get("min_chars"))
        min_len, dup = flt
        extra = dict(doc.extra)
        extra.setdefault("doc_id", doc.id)
        for k, text in enumerate(sents):
            rec = CorpusRecord(id=f"{doc.id}-s{k}", text=text, source=source, extra=extra)
            reason = min_len(text)
            h = None
            if reason is None:
                h = dup.measure(text)
                reason = dup.act(h)
            yield rec, (h if reason is None else None), reason or ""
    if opts.skipped:
        counts["reader_skipped"] = dict(opts.skipped)


def _new_counts() -> dict:
    return {"documents": 0, "documents_empty": 0}


def _account(counts: dict, rec: CorpusRecord, reason: str) -> None:
    src = counts["by_source"].setdefault(rec.source, {"sentences": 0, "kept": 0, "removed": {}})
    counts["sentences"] += 1
    src["sentences"] += 1
    if reason:
        counts["removed"][reason] = counts["removed"].get(reason, 0) + 1
        src["removed"][reason] = src["removed"].get(reason, 0) + 1
    else:
        counts["kept"] += 1
        src["kept"] += 1


def hash_shard(job: ShardJob) -> dict:
    """Pass 1: the hashes of the sentences that survive the per-shard filters, in order."""
    counts = _new_counts()
    kept = 0
    with RecordWriter(job.output_path(HASHES)) as out:
        for _, h, reason in iter_sentences(job, counts):
            if not reason:
                out.write({"h": format(h, "016x")})
                kept += 1
    counts["kept"] = kept
    return counts


def prepare_shard(job: ShardJob) -> dict:
    """Pass 2: writes the shard's kept sentence records, dropping cross-shard duplicates."""
    counts = _new_counts()
    counts.update({"sentences": 0, "kept": 0, "removed": {}, "by_source": {}})
    drop_path = os.path.join(job.config["drop_dir"], job.name + ".npy")
    # rows (position, same file): a repeat of an earlier part of the same input file counts as
    # "duplicate", as it would were the file one shard
    drop = np.load(drop_path) if os.path.exists(drop_path) else np.zeros((0, 2), dtype=np.int64)
    drop_i = 0
    pos = -1  # position among sentences that passed the per-shard filters
    with RecordWriter(job.output_path()) as out:
        for rec, _, reason in iter_sentences(job, counts):
            if not reason:
                pos += 1
                if drop_i < len(drop) and drop[drop_i, 0] == pos:
                    reason = "duplicate" if drop[drop_i, 1] else "duplicate_cross_shard"
                    drop_i += 1
            _account(counts, rec, reason)
            if not reason:
                out.write(rec)
    if drop_i != len(drop):
        raise RuntimeError(
            f"{job.input_path}: drop list does not match the shard (input changed since pass 1?)"
        )
    return counts


def global_duplicates(hash_dir: str, drop_dir: str, partition_rows: int = PARTITION_ROWS) -> int:
    """Writes ``drop_dir/<shard>.npy``: (position, same file) of hashes seen earlier.

    Memory: one partition of at most about `partition_rows` hashes at a time.
    Returns the number of positions dropped. Deterministic: first occurrence
    in (shard, position) order is kept.
    """
    import gzip

    folder = os.path.join(hash_dir, HASHES)
    shards = sorted(n for n in os.listdir(folder) if n.endswith(".jsonl.gz"))
    # which input file each shard reads (several shards may be parts of one large file)
    file_ids: dict[str, int] = {}
    file_of_shard = []
    for name in shards:
        marker = os.path.join(hash_dir, DONE_DIR, name.removesuffix(".jsonl.gz") + ".json")
        with open(marker, encoding="utf-8") as fh:
            file_of_shard.append(file_ids.setdefault(json.load(fh)["input"], len(file_ids)))
    file_of_shard = np.asarray(file_of_shard, dtype=np.int64)
    total = 0
    for name in shards:
        with gzip.open(os.path.join(folder, name), "rb") as fh:
            total += sum(1 for _ in fh)
    parts = max(1, -(-total // partition_rows))
    spill = os.path.join(drop_dir, ".spill")
    os.makedirs(spill, exist_ok=True)
    # Spill (hash, shard, position) rows into `parts` files by hash value.
    handles = [open(os.path.join(spill, f"{p:05d}.bin"), "wb") for p in range(parts)]
    row = np.dtype([("h", "<u8"), ("shard", "<i8"), ("pos", "<i8")])
    try:
        for s, name in enumerate(shards):
            with gzip.open(os.path.join(folder, name), "rb") as fh:
                hs = np.fromiter((int(json.loads(line)["h"], 16) for line in fh), dtype=np.uint64)
            rows = np.empty(len(hs), dtype=row)
            rows["h"], rows["shard"], rows["pos"] = hs, s, np.arange(len(hs))
            which = hs % np.uint64(parts)
            for p in range(parts):
                handles[p].write(rows[which == p].tobytes())
    finally:
        for fh in handles:
            fh.close()
    drops: list[list[np.ndarray]] = [[] for _ in shards]
    for p in range(parts):
        path = os.path.join(spill, f"{p:05d}.bin")
        rows = np.fromfile(path, dtype=row)
        os.remove(path)
        if not len(rows):
            continue
        order = np.lexsort((rows["pos"], rows["shard"], rows["h"]))
        rows = rows[order]
        later = np.r_[False, rows["h"][1:] == rows["h"][:-1]]
        files = file_of_shard[rows["shard"]]
        same_file = later & np.r_[False, files[1:] == files[:-1]]
        for s in np.unique(rows["shard"][later]):
            sel = later & (rows["shard"] == s)
            drops[int(s)].append(np.stack([rows["pos"][sel], same_file[sel]], axis=1))
    os.rmdir(spill)
    dropped = 0
    for name, parts_s in zip(shards, drops, strict=True):
        arr = np.concatenate(parts_s) if parts_s else np.zeros((0, 2), dtype=np.int64)
        arr = arr[np.argsort(arr[:, 0], kind="stable")]
        dropped += len(arr)
        out = os.path.join(drop_dir, name.removesuffix(".jsonl.gz") + ".npy")
        with open(out + ".tmp", "wb") as fh:
            np.save(fh, arr.astype(np.int64))
        os.replace(out + ".tmp", out)
    return dropped


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m corpus.prepare",
        description="Raw corpus files -> normalised, filtered, deduplicated sentence records.",
    )
    p.add_argument("--input", nargs="+", required=True, help="files, folders or globs")
    p.add_argument("--output", required=True, help="output folder (shards, stats.json, manifest)")
    p.add_argument("--source", default=None, help="source name (default: each file's folder)")
    p.add_argument(
        "--min-chars",
        type=int,
        default=None,
        help="minimum sentence length in characters (default: 200 for cc-100/newscrawl, else 0)",
    )
    p.add_argument(
        "--hash-dir",
        default=None,
        help="working folder of the cross-shard dedup pass (default: OUTPUT.hashes)",
    )
    add_reader_arguments(p)
    add_executor_arguments(p)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    if args.min_chars is not None and args.min_chars < 0:
        build_parser().error("--min-chars must be >= 0")
    out = os.path.normpath(args.output)
    hash_dir = args.hash_dir or out + ".hashes"
    config = {
        "source": args.source,
        "min_chars": args.min_chars,
        **reader_config(args),
    }
    common = {
        "workers": args.workers,
        "executor": args.executor,
        "ray_address": args.ray_address,
        "force": args.force,
        "argv": [sys.executable, "-m", "corpus.prepare", *(argv or sys.argv[1:])],
    }
    inputs = args.input
    # both passes read the same shards: chunks of large compressed inputs are made once
    common["chunk_dir"] = os.path.join(hash_dir, "chunks")
    run_stage(HASH_STAGE, inputs, hash_dir, hash_shard, config, **common)
    drop_dir = os.path.join(hash_dir, "drop")
    os.makedirs(drop_dir, exist_ok=True)
    dropped = global_duplicates(hash_dir, drop_dir)
    log.info("%s: %d cross-shard duplicates", STAGE, dropped)
    counts = run_stage(
        STAGE, inputs, out, prepare_shard, {**config, "drop_dir": drop_dir}, **common
    )
    if os.path.isdir(common["chunk_dir"]):
        import shutil

        shutil.rmtree(common["chunk_dir"])
    removed = sum(counts.get("removed", {}).values())
    if counts.get("sentences", 0) != counts.get("kept", 0) + removed:
        raise RuntimeError(f"accounting mismatch in {out}/stats.json: {counts}")
    log.info(
        "%s: %d documents (%d empty) -> %d sentences: %d kept, removed %s",
        STAGE,
        counts.get("documents", 0),
        counts.get("documents_empty", 0),
        counts.get("sentences", 0),
        counts.get("kept", 0),
        json.dumps(counts.get("removed", {}), sort_keys=True),
    )
    return 0


if __name__ == "__main__":
    from corpus.cli import run

    run(main)
