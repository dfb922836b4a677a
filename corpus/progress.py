"""Progress of a sharded stage: records/s, shards done and an ETA, on a terminal or in a log.

Workers cannot print to the user's terminal in order, so each running shard
writes a tiny heartbeat file (``OUTPUT/.progress/<shard>.json``: records read
so far) every `HEARTBEAT_SECONDS`; the parent polls those files while it waits
for shards and reports:

* on a terminal, one tqdm bar over shards with ``records``, ``records/s`` and
  the ETA in its postfix, refreshed about once a second;
* otherwise (a log file, a batch job), one line every ``--progress-seconds``
  (default `DEFAULT_LOG_SECONDS`) and one per finished shard at most that
  often, so a log of a long run has a line per interval instead of thousands.

The ETA weighs shards by their input bytes: finished shards count whole; a
running shard counts by records read over the records it is expected to hold,
when that is known (an upstream stage folder's completion marker records how
many records each of its shards wrote), else not at all until it finishes.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sys
import threading
import time
from collections.abc import Iterable, Iterator

PROGRESS_DIR = ".progress"
#: How often a worker rewrites its heartbeat file.
HEARTBEAT_SECONDS = 2.0
#: Default seconds between progress lines when stderr is not a terminal.
DEFAULT_LOG_SECONDS = 60.0
#: The environment variable that overrides it (``--progress-seconds`` sets it for a CLI).
LOG_SECONDS_ENV = "CORPUS_PROGRESS_SECONDS"
log = logging.getLogger("corpus.executor")


def heartbeat(records: Iterable, path: str, every: float = HEARTBEAT_SECONDS) -> Iterator:
    """Yields `records` unchanged, writing ``{"records": n}`` to `path` every `every` seconds."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    n = 0
    last = time.monotonic()
    for rec in records:
        n += 1
        if n % 256 == 0 and time.monotonic() - last >= every:
            _write(path, n)
            last = time.monotonic()
        yield rec
    _write(path, n)


def _write(path: str, n: int) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump({"records": n}, fh)
    os.replace(tmp, path)


def _read(path: str) -> int:
    try:
        with open(path, encoding="utf-8") as fh:
            return int(json.load(fh).get("records", 0))
    except (OSError, ValueError):
        return 0  # not written yet, or being replaced


def expected_records(path: str) -> int | None:
    """Records an upstream stage wrote to shard file `path` (its ``.done`` marker), if known:
    ``kept`` (prepare, dedup), or ``read`` for a stage that writes every record it reads
    (pseudonymize counts ``changed``/``unchanged``, and its ``clean/`` is what the tokenizer
    and build_data read)."""
    folder, name = os.path.split(path)
    for suffix in (".jsonl.gz", ".jsonl.zst", ".jsonl"):
        if name.endswith(suffix):
            marker = os.path.join(folder, ".done", name.removesuffix(suffix) + ".json")
            try:
                with open(marker, encoding="utf-8") as fh:
                    counts = json.load(fh).get("counts", {})
                kept = counts.get("kept", counts.get("read") if "unchanged" in counts else None)
            except (OSError, ValueError):
                return None
            return kept if isinstance(kept, int) and kept > 0 else None
    return None


def format_duration(seconds: float) -> str:
    """``42 s``, ``7 min 5 s``, ``2 h 3 min``."""
    s = int(round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60} s"
    return f"{s // 3600} h {s % 3600 // 60} min"


def log_seconds() -> float:
    """Seconds between progress lines off a terminal (``$CORPUS_PROGRESS_SECONDS``)."""
    try:
        return max(0.0, float(os.environ.get(LOG_SECONDS_ENV, DEFAULT_LOG_SECONDS)))
    except ValueError:
        return DEFAULT_LOG_SECONDS


class StageProgress:
    """The parent's view of a stage's shards: heartbeats in, one bar or throttled lines out.

    `shards` maps shard name -> (input bytes, expected records or None) for the
    shards still to run; `done_before` is how many shards an earlier run finished.
    """

    def __init__(
        self,
        stage: str,
        output_dir: str,
        shards: dict[str, tuple[int, int | None]],
        done_before: int = 0,
        tty: bool | None = None,
        interval: float | None = None,
    ):
        self.stage, self.shards, self.done_before = stage, shards, done_before
        self.folder = os.path.join(output_dir, PROGRESS_DIR)
        self.total_bytes = max(1, sum(b for b, _ in shards.values()))
        self.finished: dict[str, int] = {}  # shard -> records it read
        self.started = time.monotonic()
        self.interval = log_seconds() if interval is None else interval
        self.last_line = self.started
        self.lock = threading.Lock()
        tty = sys.stderr.isatty() if tty is None else tty
        self.bar = None
        if tty:
            from tqdm import tqdm

            total = done_before + len(shards)
            self.bar = tqdm(total=total, initial=done_before, desc=stage, unit="shard")

    def snapshot(self) -> tuple[int, float, float | None]:
        """(records read, records/s, ETA seconds or None) from finished shards and heartbeats."""
        records = sum(self.finished.values())
        done_bytes = 0.0
        for name, (size, expected) in self.shards.items():
            if name in self.finished:
                done_bytes += size
                continue
            n = _read(os.path.join(self.folder, name + ".json"))
            records += n
            if expected:
                done_bytes += size * min(n / expected, 0.99)
        elapsed = max(time.monotonic() - self.started, 1e-9)
        frac = done_bytes / self.total_bytes
        eta = elapsed * (1 - frac) / frac if frac > 0 else None
        return records, records / elapsed, eta

    def describe(self) -> str:
        records, rate, eta = self.snapshot()
        done = self.done_before + len(self.finished)
        total = self.done_before + len(self.shards)
        when = "ETA after the first shard" if eta is None else f"ETA {format_duration(eta)}"
        return f"{done}/{total} shards, {records:,} records, {rate:,.0f} records/s, {when}"

    def poll(self) -> None:
        """Refreshes the bar, or logs a line when `interval` seconds have passed."""
        now = time.monotonic()
        if self.bar is not None:
            records, rate, eta = self.snapshot()
            left = "?" if eta is None else format_duration(eta)
            self.bar.set_postfix_str(f"{records:,} records, {rate:,.0f}/s, ETA {left}")
        elif now - self.last_line >= self.interval:
            self.last_line = now
            log.info("%s: %s", self.stage, self.describe())

    @contextlib.contextmanager
    def polling(self, every: float = 1.0) -> Iterator[None]:
        """Polls from a thread while the caller runs shards in this process."""
        stop = threading.Event()

        def loop() -> None:
            while not stop.wait(every):
                with self.lock:
                    self.poll()

        thread = threading.Thread(target=loop, daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join()

    def shard_done(self, name: str, records: int) -> None:
        with self.lock:
            self.finished[name] = records
            path = os.path.join(self.folder, name + ".json")
            if os.path.exists(path):
                os.remove(path)
            if self.bar is not None:
                self.bar.update(1)
            self.poll()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        elif self.finished:
            elapsed = format_duration(time.monotonic() - self.started)
            log.info("%s: %s; took %s", self.stage, self.describe(), elapsed)


class AmountProgress:
    """Progress of one long pass over a known amount (bytes of text, examples): a tqdm bar on
    a terminal, else a line every ``--progress-seconds``; with a rate of `unit` (lines,
    sentences) and an ETA from the share of `total` done.

    For the stages that are one pass rather than shards (tokenizer.train's counting,
    pretrain.build_data): ``update(done, count)`` with the amount done so far and the
    items counted so far.
    """

    def __init__(
        self,
        label: str,
        total: float,
        unit: str,
        tty: bool | None = None,
        logger: logging.Logger | None = None,
    ):
        self.label, self.total, self.unit = label, max(float(total), 1.0), unit
        self.log = logger or log
        self.started = self.last_line = time.monotonic()
        self.interval = log_seconds()
        self.done = 0.0
        self.count = 0
        tty = sys.stderr.isatty() if tty is None else tty
        self.bar = None
        if tty:
            from tqdm import tqdm

            self.bar = tqdm(total=100, desc=label, unit="%", bar_format="{l_bar}{bar}{postfix}")

    def describe(self) -> str:
        elapsed = max(time.monotonic() - self.started, 1e-9)
        frac = min(self.done / self.total, 1.0)
        eta = format_duration(elapsed * (1 - frac) / frac) if frac > 0 else "?"
        rate = self.count / elapsed
        return f"{self.count:,} {self.unit} ({rate:,.0f}/s), {frac:.0%}, ETA {eta}"

    def update(self, done: float, count: int) -> None:
        self.done, self.count = done, count
        now = time.monotonic()
        if self.bar is not None:
            self.bar.n = min(100.0, round(100 * done / self.total, 1))
            self.bar.set_postfix_str(self.describe(), refresh=True)
        elif now - self.last_line >= self.interval:
            self.last_line = now
            self.log.info("%s: %s", self.label, self.describe())

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        took = format_duration(time.monotonic() - self.started)
        self.log.info("%s: %s %s in %s", self.label, f"{self.count:,}", self.unit, took)
