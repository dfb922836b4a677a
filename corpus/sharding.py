"""Split large input files into shards that several workers can read at once.

A corpus like CC-100 Korean is one 50 GB file; one shard per file would give
it one worker. `plan_shards` turns the sorted input files into an ordered list
of `Shard`s whose outputs, concatenated in shard order, are byte-identical to
reading each file whole (tested on a 200 MB file):

* **Plain files** larger than ``shard_bytes`` are cut into byte ranges of
  about that size. A shard reads the lines that *start* in its range (the line
  crossing the end is read whole by the shard it starts in; the partial line
  at the start is left to the previous one), so no line is lost or doubled.
  Ids carry line numbers of the whole file, so each range needs the number of
  newlines before it: counted once per range when planning (in a process pool
  with ``workers > 1``, memory-bandwidth speed) and kept in the plan.
* **Compressed files** (gzip, zstd, xz, bzip2 by magic bytes) cannot be
  entered mid-stream: a single-block ``.xz`` has no seek points. A compressed
  file whose decompressed size (estimated from its first 8 MiB,
  `corpus.textio.uncompressed_size_estimate`) exceeds ``shard_bytes`` is decompressed once,
  streaming, into line-aligned zstd chunks of about ``shard_bytes``
  uncompressed bytes (``CHUNKS`` folder of the stage, deleted when the stage
  finishes), each knowing the number of its first line; the chunks are then
  the shards. The decompression pass is sequential (xz decodes at roughly
  50-100 MB/s on one core); what follows it (sentence splitting, BM25, PII
  scanning, all far slower per byte) runs on every worker. A truncated archive
  met while chunking raises in ``raise`` mode; in ``skip`` mode the chunks hold
  every complete line read and the last one reports the rest as quarantined.
* Only line-oriented formats are split (plain text, JSON Lines, corpus
  records, petitions); WikiExtractor ``<doc>`` blocks and CSV rows can span
  lines, so those files stay one shard each (WikiExtractor dumps come as many
  small files anyway). The one exception is the NamuWiki dump, one line of
  several GB: a plain one is cut between its elements (`corpus.array_shards`),
  each range numbering its elements as the whole file does.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

from corpus.array_shards import element_ranges
from corpus.textio import (
    DEFAULT_MAX_LINE_BYTES,
    ByteRange,
    InputError,
    _raw_lines,
    compression,
    open_binary,
    uncompressed_size_estimate,
)

#: Default size of a shard of a large file (``--shard-bytes``), uncompressed bytes.
DEFAULT_SHARD_BYTES = 256 * 1024 * 1024
#: Formats whose records are one line each, so a file can be cut at any newline.
SPLITTABLE_FORMATS = ("text", "jsonl", "records", "petitions")
_COUNT_BLOCK = 1 << 22


@dataclass(frozen=True)
class Shard:
    """One part of one input file: a byte range, a chunk file, or (both None) all of it."""

    path: str
    byte_range: ByteRange | None = None
    chunk: str | None = None
    first_line: int = 1
    format: str | None = None  # the format detected on the whole file, when it was split
    truncated: dict | None = None  # skip mode: where the archive broke (last chunk only)

    def read_options(self) -> tuple[ByteRange | None, str | None, int]:
        """(byte range, physical file, first line number) for `ReadOptions`."""
        return self.byte_range, self.chunk, self.first_line

    def describe(self) -> dict:
        """A JSON description for the manifest's shard plan."""
        out: dict = {"input": self.path}
        if self.byte_range is not None and self.format == "namuwiki":  # cut between articles
            out["bytes"] = [self.byte_range.start, self.byte_range.end]
            out["first_element"] = self.first_line
        elif self.byte_range is not None:
            out["bytes"] = [self.byte_range.start, self.byte_range.end]
            out["newlines_before"] = self.byte_range.newlines_before
        if self.chunk is not None:
            out["chunk"] = os.path.basename(self.chunk)
            out["first_line"] = self.first_line
        return out


def count_newlines(path: str, start: int, end: int) -> int:
    """Number of ``\\n`` bytes in ``[start, end)`` of `path`."""
    n = 0
    with open(path, "rb") as fh:
        fh.seek(start)
        left = end - start
        while left > 0:
            block = fh.read(min(_COUNT_BLOCK, left))
            if not block:
                break
            n += block.count(b"\n")
            left -= len(block)
    return n


def _count_task(args: tuple[str, int, int]) -> int:
    return count_newlines(*args)


def _range_shards(path: str, size: int, shard_bytes: int, fmt: str, workers: int) -> list[Shard]:
    k = -(-size // shard_bytes)
    bounds = [size * i // k for i in range(k + 1)]
    tasks = [(path, bounds[i], bounds[i + 1]) for i in range(k - 1)]  # the last is not needed
    if workers > 1 and len(tasks) > 1:
        import multiprocessing

        from corpus.cli import spawning_deaf_to_ctrl_c, start_worker

        ctx = multiprocessing.get_context("spawn")
        with spawning_deaf_to_ctrl_c():
            pool = ctx.Pool(min(workers, len(tasks)), initializer=start_worker)
        with pool:
            counts = pool.map(_count_task, tasks)
    else:
        counts = [count_newlines(*t) for t in tasks]
    before = [0]
    for c in counts:
        before.append(before[-1] + c)
    return [
        Shard(
            path,
            byte_range=ByteRange(bounds[i], bounds[i + 1] if i < k - 1 else None, before[i]),
            format=fmt,
        )
        for i in range(k)
    ]


def _chunk_shards(
    path: str, chunk_dir: str, shard_bytes: int, fmt: str, on_error: str
) -> list[Shard]:
    """Decompresses `path` once into line-aligned zstd chunks (reused when already complete)."""
    import zstandard

    st = os.stat(path)
    index_path = os.path.join(chunk_dir, "chunks.json")
    ident = {"path": path, "bytes": st.st_size, "mtime_ns": st.st_mtime_ns, "shard": shard_bytes}
    if os.path.exists(index_path):
        with open(index_path, encoding="utf-8") as fh:
            index = json.load(fh)
        if index.get("source") == ident:
            return _shards_from_index(path, chunk_dir, index, fmt)
    os.makedirs(chunk_dir, exist_ok=True)
    for name in os.listdir(chunk_dir):  # a partial earlier attempt
        os.remove(os.path.join(chunk_dir, name))
    chunks: list[dict] = []
    truncated = None
    cctx = zstandard.ZstdCompressor(level=1)
    state = {"fh": None, "writer": None, "bytes": 0, "first": 1, "lines": 0}

    def close_chunk() -> None:
        if state["writer"] is None:
            return
        state["writer"].close()
        name = f"chunk-{len(chunks):05d}.zst"
        os.replace(os.path.join(chunk_dir, name + ".tmp"), os.path.join(chunk_dir, name))
        chunks.append({"file": name, "first_line": state["first"], "lines": state["lines"]})
        state.update(writer=None, bytes=0, first=state["first"] + state["lines"], lines=0)

    lineno = 0
    with open_binary(path) as src:
        lines = _raw_lines(src, path, DEFAULT_MAX_LINE_BYTES)
        while True:
            try:
                item = next(lines, None)
            except InputError as e:
                reason = (
                    f"{e.reason}; the rest of the file after line {lineno} is unreadable "
                    f"({lineno} lines read)"
                )
                if on_error == "raise":
                    raise InputError(path, lineno + 1, reason) from e
                truncated = {"line": lineno + 1, "reason": "truncated archive: " + reason}
                break
            if item is None:
                break
            raw, too_long, _ = item
            lineno += 1
            if state["writer"] is None:
                tmp = os.path.join(chunk_dir, f"chunk-{len(chunks):05d}.zst.tmp")
                state["writer"] = cctx.stream_writer(open(tmp, "wb"), closefd=True)
            # an over-long line keeps one byte more than the limit, so the worker sees it
            # as over-long too (and quarantines the same first bytes)
            state["writer"].write(raw + (b"+" if too_long else b"") + b"\n")
            state["bytes"] += len(raw) + 1
            state["lines"] += 1
            if state["bytes"] >= shard_bytes:
                close_chunk()
    close_chunk()
    index = {"source": ident, "chunks": chunks, "truncated": truncated}
    with open(index_path + ".tmp", "w", encoding="utf-8") as fh:
        json.dump(index, fh)
    os.replace(index_path + ".tmp", index_path)
    return _shards_from_index(path, chunk_dir, index, fmt)


def _shards_from_index(path: str, chunk_dir: str, index: dict, fmt: str) -> list[Shard]:
    chunks = index["chunks"]
    if not chunks:  # empty (or broken at its first line): one shard over the file itself
        return [Shard(path, format=fmt)]
    out = []
    for i, c in enumerate(chunks):
        last = i == len(chunks) - 1
        out.append(
            Shard(
                path,
                chunk=os.path.join(chunk_dir, c["file"]),
                first_line=c["first_line"],
                format=fmt,
                truncated=index.get("truncated") if last else None,
            )
        )
    return out


def plan_shards(
    files: list[str],
    *,
    shard_bytes: int = DEFAULT_SHARD_BYTES,
    fmt: str = "auto",
    on_error: str = "raise",
    chunk_dir: str | None = None,
    workers: int = 1,
    encoding: str = "utf-8",
) -> list[Shard]:
    """The shards of `files`, in order; a file is split only when large and line-oriented."""
    from corpus.readers import detect_format

    if shard_bytes <= 0:
        raise ValueError("--shard-bytes must be positive")
    shards: list[Shard] = []
    for i, path in enumerate(files):
        size = os.path.getsize(path)
        kind = compression(path)
        big = (size if kind is None else uncompressed_size_estimate(path)) > shard_bytes
        if not big:
            shards.append(Shard(path))
            continue
        real_fmt = detect_format(path, encoding) if fmt == "auto" else fmt
        if real_fmt == "namuwiki" and kind is None:  # one line of GB: cut between elements
            shards.extend(
                Shard(path, byte_range=r, first_line=first, format=real_fmt)
                for r, first in element_ranges(path, size, shard_bytes)
            )
        elif real_fmt not in SPLITTABLE_FORMATS:
            shards.append(Shard(path))
        elif kind is None:
            shards.extend(_range_shards(path, size, shard_bytes, real_fmt, workers))
        else:
            if chunk_dir is None:
                raise ValueError(f"{path}: a large compressed input needs a chunk folder")
            sub = os.path.join(chunk_dir, f"{i:05d}-{os.path.basename(path)}")
            shards.extend(_chunk_shards(path, sub, shard_bytes, real_fmt, on_error))
    return shards
