"""The shard executor every corpus stage runs on.

A stage is a top-level function ``process(job: ShardJob) -> dict`` that turns
one input file (a shard) into output files and returns integer counts. The
executor owns everything around it, so every stage gets the same guarantees:

* one shard per input file, named by its position in the sorted list of shards;
  a large file is split into several shards (`plan_shards`, ``--shard-bytes``):
  a plain file into byte ranges (each shard reads the lines that start in its
  range, numbered as in the whole file), a compressed one (gzip, zstd, xz,
  bzip2 cannot be entered mid-stream) into line-aligned chunks written by one
  streaming decompression pass, so the shards land on different workers and
  the concatenated output is byte-identical to a one-shard run;
* outputs written through `RecordWriter` (temporary name, atomic rename) and a
  completion marker per shard written last, so a run killed at any moment and
  started again redoes only unfinished shards, with byte-identical results;
* counts summed over shards into ``stats.json``, bad lines quarantined per
  shard under ``quarantine/`` and counted;
* ``manifest.json`` (stage, version, command, config, input sizes and
  modification times, or SHA-256 with ``--hash-inputs``, the shard plan,
  counts, times) written when all shards are done; a later run with the same
  stage, config and inputs finds it and skips the work;
* ``--max-quarantine-rate``: a shard (or run) whose bad-line share exceeds it
  stops with an error instead of "succeeding" on a mostly unreadable input;
* a binary file among the inputs (an image, a PDF: `corpus.textio.binary_kind`)
  stops the run naming it, or with ``--on-error skip`` is left out and counted
  (``skipped_files`` in ``stats.json``, listed in the manifest); ``--exclude``
  globs leave files out before that;
* progress (`corpus.progress`): a bar with records/s and an ETA on a terminal,
  a line every ``--progress-seconds`` otherwise;
* Ctrl-C (or SIGTERM through `corpus.cli.run`) stops the workers at once and
  ends with one line: how many shards are done and kept, and that the same
  command resumes (`Interrupted`, exit 130); the next run says
  "resuming: 12 of 40 shards done";
* a local process pool by default, or Ray tasks on a cluster (``--executor
  ray``): the shard function and its guarantees are the same.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import multiprocessing
import os
import shutil
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from corpus import progress, sharding
from corpus.cli import signals_at_safe_points, spawning_deaf_to_ctrl_c, start_worker
from corpus.readers import ReadOptions, expand_inputs, iter_records, reader_versions
from corpus.records import CorpusRecord
from corpus.sharding import Shard
from corpus.textio import UNPACK_HINT, InputError, Quarantine, binary_kind, handle

log = logging.getLogger(__name__)

DONE_DIR = ".done"
QUARANTINE_DIR = "quarantine"
RUN_FILE = ".run.json"
CHUNKS_DIR = ".chunks"
VERSION = "2"
#: Default share of bad lines above which a run stops (``--max-quarantine-rate``).
DEFAULT_MAX_QUARANTINE_RATE = 0.5


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during a stage: says how many shards are done and kept, and how to go on."""

    def __init__(self, stage: str, done: int, total: int, output_dir: str):
        self.stage, self.done, self.total, self.output_dir = stage, done, total, output_dir
        super().__init__(
            f"{stage}: interrupted; {done} of {total} shards done and kept in {output_dir}; "
            "rerun the same command to resume"
        )


class ShardFailed(RuntimeError):
    """A shard's stage function raised; carries the worker's traceback as text.

    Built from strings only, so it always crosses a process boundary: an
    exception the parent cannot unpickle would hang a process pool.
    """

    def __init__(self, shard: str, input_path: str, details: str):
        self.shard, self.input_path, self.details = shard, input_path, details
        super().__init__(f"shard {shard} ({input_path}) failed:\n{details}")

    def __reduce__(self):
        return (type(self), (self.shard, self.input_path, self.details))


@dataclass
class ShardJob:
    """One unit of work: one input file or part of one, its output names, config and state.

    `input_path` is always the original input file (errors and ids name it);
    `shard` says which part of it this job reads.
    """

    index: int
    input_path: str
    output_dir: str
    config: dict[str, Any]
    state: Any = None
    quarantine: Quarantine = field(default_factory=Quarantine)
    shard: Shard | None = None

    @property
    def name(self) -> str:
        return f"shard-{self.index:05d}"

    def records(
        self, options: ReadOptions | None = None, **overrides: Any
    ) -> Iterator[CorpusRecord]:
        """Streams the shard's input with the reader options of the stage config.

        The config keys are those `corpus.readers.reader_config` writes (format,
        text_field, column, on_error, encoding); bad lines go to this shard's quarantine.
        A part of a large file is read as that part (range or chunk) with the
        line numbers of the whole file.
        """
        cfg = self.config
        opts = options or ReadOptions()
        fmt = cfg.get("format", "auto")
        sh = self.shard
        if sh is not None:
            opts.byte_range, opts.physical_path, opts.first_line = sh.read_options()
            fmt = sh.format or fmt
        kwargs = {
            "fmt": fmt,
            "text_field": cfg.get("text_field"),
            "column": cfg.get("column"),
            "on_error": cfg.get("on_error", "raise"),
            "encoding": cfg.get("encoding", "utf-8"),
            "json_items": cfg.get("json_items", "item"),
            **overrides,
        }
        records = iter_records(self.input_path, quarantine=self.quarantine, options=opts, **kwargs)
        yield from progress.heartbeat(records, self.progress_path())
        if sh is not None and sh.truncated is not None:
            # the chunking pass met a truncated archive in skip mode: the rest of the file
            # is quarantined here, in the shard that holds the last readable lines
            err = InputError(self.input_path, sh.truncated["line"], sh.truncated["reason"])
            handle(err, kwargs["on_error"], self.quarantine)

    def progress_path(self) -> str:
        """The shard's heartbeat file (records read so far), polled by the parent."""
        return os.path.join(self.output_dir, progress.PROGRESS_DIR, self.name + ".json")

    def output_path(self, name: str | None = None, suffix: str = ".jsonl.gz") -> str:
        """Main output ``DIR/<shard>.jsonl.gz``; a side output ``DIR/<name>/<shard>.jsonl.gz``."""
        folder = self.output_dir if name is None else os.path.join(self.output_dir, name)
        return os.path.join(folder, self.name + suffix)


def merge_counts(total: dict, part: Mapping) -> dict:
    """Adds nested integer counts of `part` into `total` (in place) and returns it."""
    for key, value in part.items():
        if isinstance(value, Mapping):
            merge_counts(total.setdefault(key, {}), value)
        elif isinstance(value, bool) or not isinstance(value, int | float):
            raise TypeError(f"count {key!r} must be a number or a dict, got {value!r}")
        else:
            total[key] = total.get(key, 0) + value
    return total


def _sorted(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _sorted(obj[k]) for k in sorted(obj)}
    return obj


def file_digest(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def input_fingerprints(files: list[str], content: bool = False) -> list[dict]:
    """Per input: path, size and modification time; with `content`, its SHA-256 too.

    Size and mtime cost one ``stat`` and identify a changed input in practice;
    hashing every byte before any work starts cost minutes on a large corpus, so
    it is on demand (``--hash-inputs``), computed by threads (hashlib releases the
    GIL on large buffers) so several files hash at once.
    """
    info = []
    for p in files:
        st = os.stat(p)
        info.append({"path": p, "bytes": st.st_size, "mtime_ns": st.st_mtime_ns})
    if content:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 1)) as pool:
            for row, digest in zip(info, pool.map(file_digest, files), strict=True):
                row["sha256"] = digest
    return info


def _write_json(path: str, obj: Any) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(obj, fh, ensure_ascii=False, indent=2, sort_keys=True)
        fh.write("\n")
    os.replace(tmp, path)


# Per-worker state: the result of `init(*init_args)`, computed once per process.
_STATE: dict[str, Any] = {}


def _worker_state(init: Callable | None, init_args: tuple) -> Any:
    if init is None:
        return None
    digest = hashlib.sha256(repr(init_args).encode()).hexdigest()
    key = f"{init.__module__}.{init.__qualname__}:{digest}"
    if key not in _STATE:
        _STATE.clear()
        _STATE[key] = init(*init_args)
    return _STATE[key]


def run_shard(
    process: Callable[[ShardJob], dict],
    job: ShardJob,
    init: Callable | None = None,
    init_args: tuple = (),
) -> dict:
    """Runs one shard and writes its completion marker; the unit a worker or Ray task runs."""
    job.state = _worker_state(init, init_args)
    qdir = os.path.join(job.output_dir, QUARANTINE_DIR)
    qpath = os.path.join(qdir, job.name + ".jsonl")
    if os.path.exists(qpath + ".tmp"):  # left by a killed attempt
        os.remove(qpath + ".tmp")
    max_rate = job.config.get("max_quarantine_rate", DEFAULT_MAX_QUARANTINE_RATE)
    job.quarantine = Quarantine(qpath + ".tmp", max_rate=max_rate)
    try:
        counts = process(job)
        # a small shard never reaches the in-stream check's minimum: check it whole
        job.quarantine.check_rate(job.input_path)
    except InputError:
        raise  # picklable, and its file:line message is what the user needs
    except Exception as e:
        import traceback

        raise ShardFailed(job.name, job.input_path, traceback.format_exc()) from e
    finally:
        job.quarantine.close()
    if job.quarantine.total:
        os.replace(qpath + ".tmp", qpath)
        counts = merge_counts(dict(counts), {"quarantined": dict(job.quarantine.counts)})
    elif os.path.exists(qpath + ".tmp"):
        os.remove(qpath + ".tmp")
    marker = {
        "shard": job.name,
        "input": job.input_path,
        "lines": job.quarantine.lines,
        "counts": _sorted(counts),
    }
    _write_json(os.path.join(job.output_dir, DONE_DIR, job.name + ".json"), marker)
    return counts


def add_executor_arguments(parser: argparse.ArgumentParser) -> None:
    """The execution options every corpus CLI shares."""
    g = parser.add_argument_group("execution")
    g.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="worker processes")
    g.add_argument(
        "--executor",
        choices=("local", "ray"),
        default="local",
        help="local process pool (default) or Ray tasks on a cluster (pip install '.[cluster]')",
    )
    g.add_argument("--ray-address", default=None, help="Ray cluster address (default: auto)")
    g.add_argument(
        "--on-error",
        choices=("raise", "skip"),
        default="raise",
        help="bad input lines: stop with file:line (raise) or quarantine and count them (skip)",
    )
    g.add_argument(
        "--max-quarantine-rate",
        type=float,
        default=DEFAULT_MAX_QUARANTINE_RATE,
        help="stop when more than this share of a shard's lines is bad, even in skip mode "
        f"(default {DEFAULT_MAX_QUARANTINE_RATE}; 1 disables)",
    )
    g.add_argument(
        "--shard-bytes",
        type=int,
        default=sharding.DEFAULT_SHARD_BYTES,
        help="split input files larger than this into several shards (plain files by byte "
        "range, compressed ones into chunks; default %(default)s)",
    )
    g.add_argument(
        "--hash-inputs",
        action="store_true",
        help="fingerprint inputs by SHA-256 of their content (default: size and mtime)",
    )
    g.add_argument(
        "--force",
        action="store_true",
        help="redo the stage even if OUTPUT holds a finished or different run",
    )
    g.add_argument(
        "--progress-seconds",
        type=float,
        action=_ProgressSeconds,
        default=None,
        help="when stderr is not a terminal, a progress line every this many seconds "
        f"(default {progress.DEFAULT_LOG_SECONDS:g}; a terminal gets a bar)",
    )


class _ProgressSeconds(argparse.Action):
    """Sets ``$CORPUS_PROGRESS_SECONDS``: the progress reporter reads it, outside the stage
    config (it changes no output, so it must not change the run's fingerprint)."""

    def __call__(self, parser, namespace, values, option_string=None):
        if values < 0:
            parser.error(f"{option_string} must be >= 0")
        os.environ[progress.LOG_SECONDS_ENV] = str(values)
        setattr(namespace, self.dest, values)


def _selected_inputs(stage: str, inputs: list[str], exclude) -> tuple[list[str], list[str]]:
    """The input files, and those ``--exclude`` left out: named in the log and the manifest,
    so a file that is not read is never just absent (a too-wide glob shows at once)."""
    files = expand_inputs(inputs, exclude=exclude)
    if not exclude:
        return files, []
    kept = set(files)
    left_out = [p for p in expand_inputs(inputs) if p not in kept]
    if left_out:
        more = f" and {len(left_out) - 3} more" if len(left_out) > 3 else ""
        shown = ", ".join(left_out[:3]) + more
        log.info("%s: --exclude leaves out %d input files: %s", stage, len(left_out), shown)
    if not files:
        raise FileNotFoundError(
            f"{stage}: --exclude {' '.join(exclude)} leaves out every input file of {inputs}"
        )
    return files, left_out


def screen_binary(files: list[str], on_error: str) -> tuple[list[str], list[dict]]:
    """Splits `files` into text files and skipped binary ones (``{"path", "reason"}``).

    A binary input is an error naming it unless `on_error` is ``skip``: one image
    in a folder of text must not stop a run that was told to skip bad input, nor
    reach the readers, whose per-line quarantine would call the whole run garbage.
    """
    kept, skipped = [], []
    for path in files:
        kind = binary_kind(path)
        if kind is None:
            kept.append(path)
        elif on_error == "skip":
            log.warning("skipping %s: %s, not text", path, kind)
            skipped.append({"path": path, "reason": kind})
        else:
            ext = os.path.splitext(path)[1]
            hint = f"--exclude '*{ext}'" if ext else f"--exclude '{os.path.basename(path)}'"
            unpack = f"{UNPACK_HINT[kind]}; or " if kind in UNPACK_HINT else ""
            raise InputError(
                path,
                None,
                f"{kind}, not text: {unpack}leave it out with {hint}, or pass "
                "--on-error skip to skip and count it",
            )
    return kept, skipped


def _fingerprint(stage: str, config: dict, inputs: list[dict], readers: dict) -> str:
    """The run's identity; `readers` (`corpus.readers.reader_versions`) only when not empty,
    so that runs reading unchanged formats keep the fingerprints they had."""
    run = {"stage": stage, "version": VERSION, "config": config, "inputs": inputs}
    blob = json.dumps(run | ({"readers": readers} if readers else {}), sort_keys=True,
                      ensure_ascii=False)  # fmt: skip
    return hashlib.sha256(blob.encode()).hexdigest()


def _clear(output_dir: str) -> None:
    for entry in os.listdir(output_dir):
        path = os.path.join(output_dir, entry)
        shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)


def run_stage(
    stage: str,
    inputs: list[str],
    output_dir: str,
    process: Callable[[ShardJob], dict],
    config: dict[str, Any],
    *,
    workers: int | None = None,
    executor: str = "local",
    init: Callable | None = None,
    init_args: tuple = (),
    argv: list[str] | None = None,
    ray_address: str | None = None,
    force: bool = False,
    chunk_dir: str | None = None,
    manifest_extra: dict[str, Any] | None = None,
) -> dict:
    """Runs `process` over every input shard, resumably; returns the merged counts.

    `config` must be JSON-serialisable: it is part of the run's fingerprint
    (with the stage name and the inputs' sizes and mtimes, or content hashes
    with ``hash_inputs``), and a finished run with the same fingerprint is not
    redone. ``shard_bytes`` and ``max_quarantine_rate`` in `config` set the
    splitting of large files and the bad-line limit. Chunks of large compressed
    inputs go to `chunk_dir` (default ``OUTPUT/.chunks``, removed when the run
    finishes; a caller passing its own folder removes it itself). `manifest_extra` adds
    entries to ``manifest.json`` that describe the run without changing its fingerprint
    (they must follow from the config: dedup's benchmark coverage).
    """
    files, left_out = _selected_inputs(stage, inputs, config.get("exclude", ()))
    files, skipped = screen_binary(files, config.get("on_error", "raise"))
    if not files:
        raise FileNotFoundError(f"{stage}: no input files in {inputs}")
    os.makedirs(output_dir, exist_ok=True)
    input_info = input_fingerprints(files, content=bool(config.get("hash_inputs")))
    readers = reader_versions(files, config.get("format", "auto"), config.get("encoding", "utf-8"))
    fingerprint = _fingerprint(stage, config, input_info, readers)
    manifest_path = os.path.join(output_dir, "manifest.json")
    run_path = os.path.join(output_dir, RUN_FILE)

    if os.path.exists(manifest_path) and not force:
        with open(manifest_path, encoding="utf-8") as fh:
            manifest = json.load(fh)
        if manifest.get("fingerprint") == fingerprint:
            log.info("%s: %s is up to date (manifest matches); nothing to do", stage, output_dir)
            return manifest["counts"]
        raise FileExistsError(
            f"{output_dir} holds a finished run with other inputs or config; "
            "choose another --output or pass --force"
        )
    if os.path.exists(run_path):
        with open(run_path, encoding="utf-8") as fh:
            previous = json.load(fh).get("fingerprint")
        if previous != fingerprint and not force:
            raise FileExistsError(
                f"{output_dir} holds an unfinished run with other inputs or config; "
                "choose another --output or pass --force"
            )
        if previous != fingerprint:
            _clear(output_dir)
    elif os.listdir(output_dir) and force:
        _clear(output_dir)
    elif os.listdir(output_dir):
        raise FileExistsError(
            f"{output_dir} is not empty and holds no run of ours; refusing to mix"
        )
    _write_json(run_path, {"fingerprint": fingerprint, "stage": stage})
    os.makedirs(os.path.join(output_dir, DONE_DIR), exist_ok=True)

    started = time.time()
    own_chunks = chunk_dir is None
    chunk_dir = chunk_dir or os.path.join(output_dir, CHUNKS_DIR)
    plan = sharding.plan_shards(
        files,
        shard_bytes=config.get("shard_bytes") or sharding.DEFAULT_SHARD_BYTES,
        fmt=config.get("format", "auto"),
        on_error=config.get("on_error", "raise"),
        encoding=config.get("encoding", "utf-8"),
        chunk_dir=chunk_dir,
        workers=workers or 1,
    )
    if len(plan) > len(files):
        log.info("%s: %d input files in %d shards", stage, len(files), len(plan))
    jobs = [ShardJob(i, sh.path, output_dir, config, shard=sh) for i, sh in enumerate(plan)]
    todo = [j for j in jobs if not os.path.exists(_marker(j))]
    if len(todo) < len(jobs):
        log.info("%s: resuming: %d of %d shards done", stage, len(jobs) - len(todo), len(jobs))
    report = progress.StageProgress(
        stage, output_dir, {j.name: _shard_size(j) for j in todo}, done_before=len(jobs) - len(todo)
    )
    _execute(process, todo, workers or 1, executor, init, init_args, ray_address, report)

    counts: dict = {}
    lines = 0
    for job in jobs:  # shard order, so stats.json is the same however shards were scheduled
        with open(_marker(job), encoding="utf-8") as fh:
            marker = json.load(fh)
        merge_counts(counts, marker["counts"])
        lines += marker.get("lines", 0)
    if skipped:
        counts["skipped_files"] = {"binary": len(skipped)}
    counts = _sorted(counts)
    _write_json(os.path.join(output_dir, "stats.json"), counts)
    manifest = {
        "stage": stage,
        "version": VERSION,
        "fingerprint": fingerprint,
        "argv": list(sys.argv if argv is None else argv),
        "config": config,
        **({"readers": readers} if readers else {}),
        "inputs": input_info,
        "shards": len(jobs),
        "input_lines": lines,
        "counts": counts,
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
        "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    if len(plan) > len(files):
        manifest["shard_plan"] = [sh.describe() for sh in plan]
    if skipped:
        manifest["skipped_files"] = skipped
    if left_out:
        manifest["excluded_files"] = left_out
    manifest.update(manifest_extra or {})
    _write_json(manifest_path, manifest)
    os.remove(run_path)
    shutil.rmtree(os.path.join(output_dir, progress.PROGRESS_DIR), ignore_errors=True)
    if own_chunks and os.path.isdir(chunk_dir):
        shutil.rmtree(chunk_dir)
    return counts


def _marker(job: ShardJob) -> str:
    return os.path.join(job.output_dir, DONE_DIR, job.name + ".json")


def _shard_size(job: ShardJob) -> tuple[int, int | None]:
    """(input bytes, expected records or None) of a shard, for the progress ETA."""
    sh = job.shard
    if sh is not None and sh.byte_range is not None:
        end = sh.byte_range.end if sh.byte_range.end is not None else os.path.getsize(sh.path)
        return end - sh.byte_range.start, None
    if sh is not None and sh.chunk is not None:
        return os.path.getsize(sh.chunk), None
    return os.path.getsize(job.input_path), progress.expected_records(job.input_path)


def _execute(process, jobs, workers, executor, init, init_args, ray_address, report) -> None:
    if not jobs:
        return

    def tick(job: ShardJob) -> None:
        report.shard_done(job.name, _records_read(job))

    try:
        if executor == "ray":
            _execute_ray(process, jobs, init, init_args, ray_address, tick, report)
        elif executor != "local":
            raise ValueError(f"unknown executor {executor!r}")
        elif workers <= 1 or len(jobs) == 1:
            with report.polling():  # the shard runs here: a thread reads its heartbeats
                for job in jobs:
                    run_shard(process, job, init, init_args)
                    tick(job)
        else:
            _execute_pool(process, jobs, workers, init, init_args, tick, report)
    except KeyboardInterrupt as e:
        report.close()
        # counted on disk: a shard whose marker landed just before Ctrl-C is done and kept
        done = report.done_before + sum(os.path.exists(_marker(j)) for j in jobs)
        total = report.done_before + len(jobs)
        raise Interrupted(report.stage, done, total, jobs[0].output_dir) from e
    report.close()


def _records_read(job: ShardJob) -> int:
    """Records the shard read: its last heartbeat (stages reading through `ShardJob.records`)."""
    try:
        with open(job.progress_path(), encoding="utf-8") as fh:
            return int(json.load(fh).get("records", 0))
    except (OSError, ValueError):
        return 0


def _execute_pool(process, jobs, workers, init, init_args, tick, report) -> None:
    # spawn: workers start clean (no inherited locks or threads), so the same
    # code is safe whatever the parent imported. ProcessPoolExecutor rather than
    # multiprocessing.Pool: a worker that dies is reported (BrokenProcessPool) instead of
    # `get()` waiting forever, and leaving the pool after a failed shard does not hang in
    # Pool.terminate() (seen once in tests/test_executor.py under heavy load).
    from concurrent.futures import FIRST_COMPLETED, wait

    ctx = multiprocessing.get_context("spawn")
    with spawning_deaf_to_ctrl_c():
        size = min(workers, len(jobs))
        pool = ProcessPoolExecutor(size, mp_context=ctx, initializer=start_worker)
        futures = {pool.submit(run_shard, process, job, init, init_args): job for job in jobs}
    # Ctrl-C and SIGTERM are raised only between waits (`signals_at_safe_points`): raised
    # inside `wait` they could leave a future's lock taken and `shutdown` hung.
    with signals_at_safe_points() as signals:
        try:
            pending = set(futures)
            while pending:
                signals.check()
                finished, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
                for fut in sorted(finished, key=lambda f: futures[f].index):
                    fut.result()
                    tick(futures[fut])
                report.poll()
        except KeyboardInterrupt:
            # stop now: the running shards' outputs are temporary files until their marker
            # is written, so a killed shard is simply redone by the next run
            for proc in list(getattr(pool, "_processes", {}).values()):
                proc.terminate()
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        except BaseException:
            # Shards not started are dropped; running ones finish (each shard writes its
            # output atomically, so a rerun resumes from them) before the error surfaces.
            pool.shutdown(wait=True, cancel_futures=True)
            raise
    pool.shutdown(wait=True)


def _execute_ray(process, jobs, init, init_args, address, tick, report) -> None:
    try:
        import ray
    except ImportError as e:  # pragma: no cover - depends on the optional extra
        raise SystemExit("--executor ray needs Ray: pip install '.[cluster]'") from e
    if not ray.is_initialized():
        ray.init(address=address, ignore_reinit_error=True, log_to_driver=False)
    remote = ray.remote(run_shard)
    refs = {remote.remote(process, job, init, init_args): job for job in jobs}
    pending = list(refs)
    try:
        while pending:
            ready, pending = ray.wait(pending, num_returns=1, timeout=1.0)
            for ref in ready:
                ray.get(ref)
                tick(refs[ref])
            report.poll()
    except KeyboardInterrupt:
        for ref in pending:
            ray.cancel(ref, force=True)
        raise
