"""Remove corpus sentences that copy a KLUE benchmark sentence.

    python -m corpus.dedup --input records/ --output decontaminated/ \\
        [--data-dir ../shared/data | --benchmark-dir ../shared/data/klue] \\
        [--threshold T] [--short-chars N] [--exact-min-chars N] [--workers N]

The benchmark index holds every text field of every KLUE task and split found
under ``--benchmark-dir`` (`corpus.klue.benchmark_texts`: titles, sentence
pairs, premises/hypotheses, NER/DP/RE sentences, MRC contexts and questions,
WoS utterances). Each text is normalised and split into sentences with the
same splitter as `corpus.prepare` (so an MRC context becomes its sentences),
identical sentences are indexed once, and the index is tokenised into Mecab
morphemes (`corpus.bm25`). It is built once in the parent process, saved to
``--index-dir`` (default ``<output>.index``; reused when the benchmark files
and settings are unchanged) and loaded once per worker process.

The manifest's ``benchmark`` entry lists the tasks and splits indexed with
their sentence counts; a task of the paper's eight with no split found is
named in a warning (and in ``benchmark.missing``), never skipped silently.

Each corpus record is checked by `corpus.matching`: removed on an exact match
after normalisation (of ``--exact-min-chars`` characters or more: ``네.``,
``감사합니다.`` are formulas, no evidence of a copy); if shorter than
``--short-chars``, only on an exact or near-exact match, or a near copy of an
informative short benchmark sentence (``--short-share``, ``--short-weight``);
otherwise on a BM25 similarity ``bm25(q, d) / max(self(q), self(d))`` of at
least ``--threshold``, or when a benchmark sentence of at least
``--containment-chars`` characters is covered inside it (``--containment``); at
any length, when at least ``--overlap-share`` of a benchmark sentence (and
``--overlap-chars`` characters) appears verbatim in it after normalisation
(quotes, cut ends, added clauses), or a short benchmark sentence appears whole
in it (``--quote-weight``; ``--quoted-span``: between quotation marks), or a
short benchmark sentence found whole that at most ``--quote-max-per-million``
of the corpus sentences contain (``rare_quote``). For that signal a first pass,
the stage ``dedup-phrases`` (same shards, resumable), counts over the whole
corpus how many sentences contain each short benchmark sentence into
``--phrases-dir`` (default ``<output>.phrases``); a sentence's decision then
knows whether a phrase is a stock phrase of the corpus. The defaults come from
`corpus.calibrate` (held-out figures per length bucket in docs/corpus.md); the
two weights are BM25 self-weights of the KLUE index: recalibrate them with the
threshold for another benchmark or tokenizer.

Outputs (through `corpus.executor`: sharded, resumable): kept records in
``OUTPUT/shard-NNNNN.jsonl.gz``, removed ones in ``OUTPUT/removed/`` with
``benchmark_guid``, ``benchmark_task``, ``benchmark_field``, ``signal``
(`corpus.matching.SIGNALS`) and ``score`` (that signal's value)
added; ``stats.json`` with ``read = kept + removed`` overall, per source, per
matched task and per signal. Both folders still hold raw personal
information: see docs/corpus.md.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import shutil
import sys
from collections.abc import Iterable

from corpus.bm25 import TOKENIZERS, BM25Index, tokenize
from corpus.datadir import add_data_dir_argument
from corpus.datadir import klue_dir as data_klue_dir
from corpus.executor import ShardJob, add_executor_arguments, file_digest, run_stage
from corpus.match_tables import TABLES_DIR, load_keys, load_tables, save_tables
from corpus.matching import (
    NEAR_MAX_CHARS,
    OVERLAP_GRAM,
    QUOTE_MIN_CHARS,
    MatchConfig,
    Matcher,
    count_array,
    count_phrases,
    phrase_limit,
    short_key_table,
)
from corpus.normalize import dedup_key, match_key, normalize_document, normalize_text
from corpus.progress import AmountProgress
from corpus.readers import ReadOptions, add_reader_arguments, reader_config
from corpus.records import RecordWriter
from corpus.sentences import split_sentences

STAGE = "dedup"
#: The first pass, counting the corpus sentences that hold each short benchmark sentence.
PHRASES_STAGE = "dedup-phrases"
REMOVED = "removed"
#: Chosen with `python -m corpus.calibrate` (see docs/corpus.md); one source: MatchConfig.
DEFAULTS = MatchConfig()
DEFAULT_THRESHOLD = DEFAULTS.threshold
DEFAULT_TOKENIZER = "morph"
KEYS_FILE = "keys.json"
BATCH = 256
#: Ctrl-C while the index is built: nothing of it is saved, so say that the rerun starts it over.
INDEX_INTERRUPTED = (
    STAGE + ": interrupted while building the benchmark index; no corpus shard was started "
    "and the index is built only whole, so the same command starts it again (it is then "
    "saved to {index_dir} and reused)"
)
log = logging.getLogger(__name__)


def benchmark_sentences(texts: Iterable) -> tuple[list[str], list[dict]]:
    """Benchmark texts -> distinct normalised sentences and their provenance.

    `texts` yields objects with ``guid, task, split, field, text``
    (`corpus.klue.BenchmarkText`). The first occurrence of a sentence (by
    `corpus.normalize.dedup_key`) names it.
    """
    seen: set[str] = set()
    sents: list[str] = []
    meta: list[dict] = []
    current = None
    for bt in texts:
        if (bt.task, bt.split) != current:  # reading and splitting is a silent minute too
            current = (bt.task, bt.split)
            log.info("%s-index: reading %s %s (%d sentences so far)", STAGE, *current, len(sents))
        for s in split_sentences(normalize_document(bt.text)):
            s = normalize_text(s)
            key = dedup_key(s)
            if key in seen or not any(c.isalnum() for c in key):
                continue  # repeated, or punctuation only (".." split off a sentence)
            seen.add(key)
            sents.append(s)
            meta.append({"guid": bt.guid, "task": bt.task, "split": bt.split, "field": bt.field})
    return sents, meta


def coverage(meta: list[dict], present: dict[str, list[str]] | None = None) -> dict:
    """``{"tasks": {task: {split: sentences}}, "missing": [task, ...]}`` of an index's
    provenance: which benchmark tasks and splits the decontamination covers. `present`
    (`corpus.klue.available_splits`) names tasks found with no text too."""
    from corpus.klue import TASKS

    tasks: dict[str, dict[str, int]] = {}
    for m in meta:
        split = tasks.setdefault(m["task"], {})
        split[m["split"]] = split.get(m["split"], 0) + 1
    return {"tasks": tasks, "missing": [t for t in TASKS if t not in tasks]}


def warn_missing(cov: dict, klue_dir: str) -> None:
    """One warning naming the paper's tasks that have no split under `klue_dir`."""
    if cov["missing"]:
        log.warning(
            "%s: no %s data under %s: sentences copied from %s are not looked for "
            "(python -m finetune.data download fetches the official archives)",
            STAGE,
            "/".join(t.upper() for t in cov["missing"]),
            klue_dir,
            "it" if len(cov["missing"]) == 1 else "them",
        )


def build_index(texts: Iterable, tokenizer: str = DEFAULT_TOKENIZER) -> tuple[BM25Index, list]:
    """The BM25 index of the benchmark sentences and their `match_key`s."""
    sents, meta = benchmark_sentences(texts)
    if not sents:
        raise ValueError("no benchmark text found: nothing to decontaminate against")
    index = BM25Index.build(_tokenized(sents, tokenizer), tokenizer=tokenizer, meta=meta)
    return index, [match_key(s) for s in sents]


def _tokenized(sents: list[str], tokenizer: str) -> list[list[str]]:
    """`sents` tokenised, with a progress bar or line: Mecab over the ~140,000 KLUE sentences
    is the minutes-long part of building the index, and a silent minute looks like a hang."""
    report = AmountProgress(f"{STAGE}-index", len(sents), "benchmark sentences", logger=log)
    out = []
    for i, s in enumerate(sents, 1):
        out.append(tokenize(s, tokenizer))
        if i % 512 == 0:
            report.update(i, i)
    report.update(len(sents), len(sents))
    report.close()
    return out


def _benchmark_files(klue_dir: str) -> list[dict]:
    """Path and SHA-256 of every file under `klue_dir`, through symlinked folders and files
    (as the KLUE readers see them: a folder of links to the real task folders is common),
    each real folder once (a link cycle ends there)."""
    out = []
    seen: set[str] = set()
    for root, dirs, files in os.walk(klue_dir, followlinks=True):
        real = os.path.realpath(root)
        if real in seen:
            dirs[:] = []
            continue
        seen.add(real)
        dirs.sort()
        for f in sorted(files):
            p = os.path.join(root, f)
            if os.path.isfile(p):  # a dangling link is no benchmark file
                out.append({"path": os.path.relpath(p, klue_dir), "sha256": file_digest(p)})
    return out


def load_or_build_index(
    klue_dir: str, index_dir: str, tokenizer: str, load: bool = True
) -> tuple[BM25Index | None, str, dict]:
    """The benchmark index for `klue_dir`, its fingerprint and `coverage`, rebuilt only when
    its files or settings changed. With ``load=False`` a valid saved index is not read (None
    is returned): the parent of `corpus.dedup` needs only the fingerprint, the workers load
    it."""
    from corpus.klue import benchmark_texts

    fp = hashlib.sha256(
        json.dumps({"files": _benchmark_files(klue_dir), "tokenizer": tokenizer, "v": 8}).encode()
    ).hexdigest()
    stamp = os.path.join(index_dir, "fingerprint.json")
    if os.path.exists(stamp):
        with open(stamp, encoding="utf-8") as fh:
            saved = json.load(fh)
        if saved.get("fingerprint") == fp:
            log.info("%s: reusing benchmark index %s", STAGE, index_dir)
            return (BM25Index.load(index_dir) if load else None), fp, saved["coverage"]
    log.info("%s: building the benchmark index from %s", STAGE, klue_dir)
    try:
        index, keys = build_index(benchmark_texts(klue_dir), tokenizer)
    except KeyboardInterrupt:
        raise KeyboardInterrupt(INDEX_INTERRUPTED.format(index_dir=index_dir)) from None
    if os.path.isdir(os.path.join(index_dir, TABLES_DIR)):
        shutil.rmtree(os.path.join(index_dir, TABLES_DIR))  # another index's tables
    index.save(index_dir)
    with open(os.path.join(index_dir, KEYS_FILE), "w", encoding="utf-8") as fh:
        json.dump(keys, fh, ensure_ascii=False)
    save_tables(index_dir, index, keys, [_seed_config(DEFAULTS)], [DEFAULTS.short_chars])
    cov = coverage(index.meta)
    with open(stamp + ".tmp", "w", encoding="utf-8") as fh:
        json.dump({"fingerprint": fp, "documents": index.num_docs, "coverage": cov}, fh)
    os.replace(stamp + ".tmp", stamp)
    log.info("%s: index of %d benchmark sentences saved to %s", STAGE, index.num_docs, index_dir)
    return index, fp, cov


def _seed_config(cfg: MatchConfig) -> tuple[int, int, float]:
    return (OVERLAP_GRAM, cfg.overlap_chars, cfg.overlap_share)


def prepare_tables(index_dir: str, match: dict) -> None:
    """Saves the matcher's tables for `match` beside the index if they are not there yet
    (a non-default ``--overlap-chars``/``--overlap-share`` needs its own seeds), in the
    parent, once, before the workers map them."""
    cfg = MatchConfig(**match)
    tables = load_tables(index_dir, cfg.overlap_chars, cfg.overlap_share, cfg.short_chars)
    if tables is not None and cfg.short_chars in tables["deletions"]:
        return
    log.info("%s: saving the matcher's tables beside the index %s", STAGE, index_dir)
    keys = _load_keys(index_dir)
    index = BM25Index.load(index_dir)
    save_tables(index_dir, index, keys, [_seed_config(cfg)], [cfg.short_chars])


def _load_keys(index_dir: str) -> list[str]:
    saved = load_keys(index_dir)  # the tables' copy: split, not parsed (0.1-0.3 CPU s less)
    if saved is not None:
        return saved[0]
    with open(os.path.join(index_dir, KEYS_FILE), encoding="utf-8") as fh:
        return json.load(fh)


def load_matcher(
    index_dir: str,
    config: dict | None = None,
    phrases: str | None = None,
    near_chars: int | None = None,
) -> Matcher:
    """Per-worker state: the saved index, keys and tables (`corpus.match_tables`,
    memory-mapped: the workers of a node share them) as a `Matcher`, loaded once per
    process, with the phrase counts of the first pass (`phrases`: its ``stats.json``) if
    given. `near_chars`: the near-exact lookups' reach (default: the config's
    ``short_chars``, all a decision reads; calibration asks for `NEAR_MAX_CHARS`). Every
    table a decision reads is there when it returns (`Matcher.prepare_lookups`): this is
    the worker's whole start."""
    cfg = MatchConfig(**config) if config else MatchConfig()
    near = cfg.short_chars if near_chars is None else near_chars
    tables = load_tables(index_dir, cfg.overlap_chars, cfg.overlap_share, near)
    keys = tables["keys"] if tables is not None else _load_keys(index_dir)
    matcher = Matcher(BM25Index.load(index_dir), keys, cfg, tables=tables, near_chars=near)
    if phrases is not None:
        matcher.set_phrase_counts(*load_phrase_counts(phrases, len(keys)))
    matcher.prepare_lookups()
    return matcher


def load_phrase_counts(stats_path: str, n: int) -> tuple:
    """The first pass's ``stats.json`` -> (corpus sentences per benchmark sentence as an
    array, corpus sentences counted)."""
    with open(stats_path, encoding="utf-8") as fh:
        stats = json.load(fh)
    return count_array(stats.get("phrases", {}), n), int(stats.get("read", 0))


def load_phrase_table(index_dir: str, max_chars: int) -> dict:
    """Per-worker state of the first pass: the benchmark keys of `QUOTE_MIN_CHARS` to
    `max_chars` characters (`short_key_table`; longer ones found whole are overlaps)."""
    saved = load_keys(index_dir, short=True)
    if saved is None or max_chars > NEAR_MAX_CHARS:
        return short_key_table(_load_keys(index_dir), max_chars=max_chars)
    return short_key_table(saved[0], max_chars=max_chars, docs=saved[1])


def count_shard(job: ShardJob) -> dict:
    """First pass: for each short benchmark sentence, how many of the shard's sentences
    contain it whole (``rare_quote`` needs the count over the whole corpus)."""
    cfg = job.config
    table = job.state or load_phrase_table(cfg["index_dir"], cfg["max_chars"])
    opts = ReadOptions()
    counts: dict[int, int] = {}
    n = count_phrases(table, (match_key(r.text) for r in job.records(opts)), counts)
    out: dict = {"read": n, "phrases": {str(d): c for d, c in counts.items()}}
    if opts.skipped:
        out["reader_skipped"] = dict(opts.skipped)
    return out


def process_shard(job: ShardJob) -> dict:
    """Checks one shard's records against the benchmark; writes kept and removed records."""
    cfg = job.config
    matcher: Matcher = job.state or load_matcher(cfg["index_dir"], cfg["match"], cfg["phrases"])
    opts = ReadOptions()
    counts: dict = {"read": 0, "kept": 0, "removed": {"benchmark_match": 0}, "by_source": {}}
    by_task: dict[str, int] = {}
    by_signal: dict[str, int] = {}

    def flush(batch, out, removed_out) -> None:
        res = matcher.match_texts([r.text for r in batch])
        for rec, d, sig, score in zip(batch, res.doc, res.signal, res.score, strict=True):
            src = counts["by_source"].setdefault(rec.source, {"read": 0, "kept": 0, "removed": 0})
            src["read"] += 1
            if d >= 0:
                m = matcher.index.meta[d]
                extra = dict(rec.extra)
                extra.update(
                    benchmark_guid=m["guid"],
                    benchmark_task=m["task"],
                    benchmark_field=m["field"],
                    signal=sig,
                    score=round(float(score), 6),
                )
                removed_out.write(rec.replace(extra=extra))
                counts["removed"]["benchmark_match"] += 1
                src["removed"] += 1
                by_task[m["task"]] = by_task.get(m["task"], 0) + 1
                by_signal[sig] = by_signal.get(sig, 0) + 1
            else:
                out.write(rec)
                counts["kept"] += 1
                src["kept"] += 1

    with RecordWriter(job.output_path()) as out, RecordWriter(job.output_path(REMOVED)) as rm:
        batch = []
        for rec in job.records(opts):
            counts["read"] += 1
            batch.append(rec)
            if len(batch) >= cfg["batch_size"]:
                flush(batch, out, rm)
                batch = []
        if batch:
            flush(batch, out, rm)
    if by_task:
        counts["removed_by_task"] = by_task
        counts["removed_by_signal"] = by_signal
    if opts.skipped:
        counts["reader_skipped"] = dict(opts.skipped)
    return counts


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m corpus.dedup",
        description="Remove corpus sentences that match KLUE benchmark sentences (BM25).",
    )
    p.add_argument("--input", nargs="+", required=True, help="files, folders or globs")
    p.add_argument("--output", required=True, help="output folder (kept shards, removed/, stats)")
    p.add_argument(
        "--benchmark-dir",
        default=None,
        help="the KLUE folder itself (default: DATA_DIR/klue, see --data-dir)",
    )
    add_data_dir_argument(p)
    g = p.add_argument_group("decision (defaults calibrated: docs/corpus.md)")
    g.add_argument(
        "--threshold",
        type=float,
        default=DEFAULTS.threshold,
        help="BM25 similarity that removes a sentence of --short-chars or more "
        "(default %(default)s)",
    )
    g.add_argument(
        "--short-chars",
        type=int,
        default=DEFAULTS.short_chars,
        help="shorter sentences (normalised characters) are removed only on an exact or "
        "near-exact match (default %(default)s)",
    )
    g.add_argument(
        "--exact-min-chars",
        type=int,
        default=DEFAULTS.exact_min_chars,
        help="an exact, near-exact or near-copy match removes a sentence only from this many "
        "characters (no spaces or punctuation): '네.', '1.', '감사합니다.' are formulas "
        "(default %(default)s)",
    )
    g.add_argument(
        "--near-exact-edits",
        type=int,
        choices=(0, 1),
        default=DEFAULTS.near_exact_edits,
        help="character edits a near-exact short match may have (default %(default)s)",
    )
    g.add_argument(
        "--containment",
        type=float,
        default=DEFAULTS.containment,
        help="share of a benchmark sentence's BM25 weight covered inside a longer sentence "
        "that removes it (default %(default)s)",
    )
    g.add_argument(
        "--containment-chars",
        type=int,
        default=DEFAULTS.containment_chars,
        help="shortest benchmark sentence the containment signal uses (default %(default)s)",
    )
    g.add_argument(
        "--overlap-chars",
        type=int,
        default=DEFAULTS.overlap_chars,
        help="shortest verbatim overlap (normalised characters, at least "
        f"{OVERLAP_GRAM}) the overlap signal uses (default %(default)s)",
    )
    g.add_argument(
        "--overlap-share",
        type=float,
        default=DEFAULTS.overlap_share,
        help="share of a benchmark sentence found verbatim (after normalisation) in a corpus "
        "sentence that removes it: quotes, cut ends, added clauses (default %(default)s)",
    )
    g.add_argument(
        "--short-share",
        type=float,
        default=DEFAULTS.short_share,
        help="near_copy: a sentence under --short-chars whose common prefix with a benchmark "
        "sentence is this share of the longer key (0: off; default %(default)s)",
    )
    g.add_argument(
        "--short-weight",
        type=float,
        default=DEFAULTS.short_weight,
        help="near_copy: least BM25 self-weight of the benchmark sentence (stock phrases "
        "weigh less; default %(default)s)",
    )
    g.add_argument(
        "--quote-weight",
        type=float,
        default=DEFAULTS.quote_weight,
        help="short_quote: least BM25 self-weight of a short benchmark sentence found whole "
        "inside a corpus sentence (0: off; default %(default)s)",
    )
    g.add_argument(
        "--quoted-span",
        action=argparse.BooleanOptionalAction,
        default=DEFAULTS.quoted_span,
        help="short_quote: also a benchmark sentence standing alone between quotation marks "
        "(default %(default)s)",
    )
    g.add_argument(
        "--quote-max-per-million",
        type=float,
        default=DEFAULTS.quote_max_per_million,
        help="rare_quote: a short benchmark sentence found whole inside a corpus sentence "
        "removes it when at most this many of every million corpus sentences contain it (a "
        "first pass counts them; 0: off, no first pass; default %(default)s)",
    )
    p.add_argument("--tokenizer", choices=TOKENIZERS, default=DEFAULT_TOKENIZER, help="BM25 tokens")
    p.add_argument("--index-dir", default=None, help="index cache (default: OUTPUT.index)")
    p.add_argument(
        "--phrases-dir",
        default=None,
        help="the first pass's output, phrase counts (default: OUTPUT.phrases)",
    )
    p.add_argument("--batch-size", type=int, default=BATCH, help="sentences checked per batch")
    add_reader_arguments(p)
    add_executor_arguments(p)
    return p


def count_pass(
    args, out: str, index_dir: str, fingerprint: str, executor: dict, argv: list[str]
) -> str:
    """Runs the first pass (`count_shard` over every input shard, resumable like any
    stage) into ``--phrases-dir`` and returns the path of its ``stats.json``, which holds
    ``phrases``: benchmark sentence -> corpus sentences containing it."""
    phrases_dir = os.path.normpath(args.phrases_dir or out + ".phrases")
    config = {
        "index_dir": index_dir,
        "index_fingerprint": fingerprint,
        "max_chars": args.overlap_chars - 1,
        **reader_config(args),
    }
    counts = run_stage(
        PHRASES_STAGE,
        args.input,
        phrases_dir,
        count_shard,
        config,
        init=load_phrase_table,
        init_args=(index_dir, args.overlap_chars - 1),
        argv=argv,
        **executor,
    )
    limit = phrase_limit(args.quote_max_per_million, counts.get("read", 0))
    log.info(
        "%s: %d of the %d benchmark sentences of %d-%d characters occur in the %d corpus "
        "sentences; rare_quote takes those in at most %s (%s per million)%s",
        PHRASES_STAGE,
        len(counts.get("phrases", {})),
        sum(QUOTE_MIN_CHARS <= len(k) < args.overlap_chars for k in _load_keys(index_dir)),
        QUOTE_MIN_CHARS,
        args.overlap_chars - 1,
        counts.get("read", 0),
        max(limit, 0),
        args.quote_max_per_million,
        "" if limit >= 1 else ": the corpus is too small to show one that rare, rare_quote off",
    )
    return os.path.abspath(os.path.join(phrases_dir, "stats.json"))


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    if not 0.0 < args.threshold <= 1.0 or not 0.0 < args.containment <= 1.0:
        build_parser().error("--threshold and --containment must be in (0, 1]")
    if not 0.0 <= args.short_share <= 1.0 or args.short_weight < 0 or args.quote_weight < 0:
        build_parser().error("--short-share must be in [0, 1]; the weights must be >= 0")
    if not args.quote_max_per_million >= 0:
        build_parser().error("--quote-max-per-million must be >= 0 (0: off)")
    if not 0 <= args.short_chars <= NEAR_MAX_CHARS:
        build_parser().error(f"--short-chars must be in [0, {NEAR_MAX_CHARS}]")
    if args.overlap_chars < OVERLAP_GRAM or not 0.0 < args.overlap_share <= 1.0:
        build_parser().error(
            f"--overlap-chars must be at least {OVERLAP_GRAM} and --overlap-share in (0, 1]"
        )
    from corpus.klue import resolve_klue_dir
    from corpus.readers import expand_inputs

    expand_inputs(args.input)  # fail on a missing input now, not after building the index
    if args.benchmark_dir is not None:
        klue_dir = str(resolve_klue_dir(args.benchmark_dir))
    else:
        klue_dir = str(data_klue_dir(args.data_dir))
    out = os.path.normpath(args.output)
    index_dir = args.index_dir or out + ".index"
    _, fp, cov = load_or_build_index(klue_dir, index_dir, args.tokenizer, load=False)
    warn_missing(cov, klue_dir)
    match = MatchConfig(
        threshold=args.threshold,
        exact_min_chars=args.exact_min_chars,
        short_chars=args.short_chars,
        near_exact_edits=args.near_exact_edits,
        containment=args.containment,
        containment_chars=args.containment_chars,
        overlap_chars=args.overlap_chars,
        overlap_share=args.overlap_share,
        short_share=args.short_share,
        short_weight=args.short_weight,
        quote_weight=args.quote_weight,
        quoted_span=args.quoted_span,
        quote_max_per_million=args.quote_max_per_million,
    ).to_dict()
    prepare_tables(os.path.abspath(index_dir), match)
    executor = {
        "workers": args.workers,
        "executor": args.executor,
        "ray_address": args.ray_address,
        "force": args.force,
    }
    command = [sys.executable, "-m", "corpus.dedup", *(argv or sys.argv[1:])]
    phrases = None
    if match["quote_max_per_million"] > 0:
        phrases = count_pass(args, out, os.path.abspath(index_dir), fp, executor, command)
    config = {
        "match": match,
        "phrases": phrases,
        "phrases_sha256": file_digest(phrases) if phrases else None,
        "batch_size": args.batch_size,
        "index_dir": os.path.abspath(index_dir),
        "index_fingerprint": fp,
        **reader_config(args),
    }
    counts = run_stage(
        STAGE,
        args.input,
        out,
        process_shard,
        config,
        init=load_matcher,
        init_args=(os.path.abspath(index_dir), match, phrases),
        argv=command,
        manifest_extra={"benchmark": {"dir": klue_dir, **cov}},
        **executor,
    )
    removed = sum(counts.get("removed", {}).values())
    if counts.get("read", 0) != counts.get("kept", 0) + removed:
        raise RuntimeError(f"accounting mismatch in {out}/stats.json: {counts}")
    log.info(
        "%s: %d records read, %d kept, %d removed (by task %s, by signal %s)",
        STAGE,
        counts.get("read", 0),
        counts.get("kept", 0),
        removed,
        json.dumps(counts.get("removed_by_task", {}), sort_keys=True),
        json.dumps(counts.get("removed_by_signal", {}), sort_keys=True),
    )
    return 0


if __name__ == "__main__":
    from corpus.cli import run

    run(main)
