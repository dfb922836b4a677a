"""Streaming, checked access to text files: compression, line limits, bad-input policy.

Every reader in the project goes through `iter_lines`, so a malformed file is
reported the same way everywhere: an `InputError` that names the file, the
1-based line number and what is wrong. In ``skip`` mode the bad line is
counted and recorded in a `Quarantine` side file instead.

The quarantine file never holds the bad line's content (it may carry personal
data); it holds the location, the reason, the byte length and a SHA-256 so a
user can find and inspect the line in the original file.
"""

from __future__ import annotations

import collections
import gzip
import hashlib
import io
import json
import os
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import BinaryIO, Literal

OnError = Literal["raise", "skip"]

#: Lines longer than this are bad input (a missing newline in a dump, a binary
#: file); 8 MiB is far above any real sentence or document line.
DEFAULT_MAX_LINE_BYTES = 8 * 1024 * 1024
_CHUNK = 1 << 16


class InputError(ValueError):
    """Malformed input, located as ``path:line: reason``."""

    def __init__(self, path: str | os.PathLike, line: int | None, reason: str):
        self.path = str(path)
        self.line = line
        self.reason = reason
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {reason}")

    def __reduce__(self):
        # picklable with its three arguments: an error raised in a worker process must reach
        # the parent (multiprocessing's pool hangs on an exception it cannot unpickle)
        return (type(self), (self.path, self.line, self.reason))


@dataclass
class Quarantine:
    """Counts bad lines by reason and, if `path` is set, appends one JSON line per bad record.

    Usable as a context manager; `counts` survives closing so callers can put it
    into their `stats.json`.
    """

    path: str | os.PathLike | None = None
    counts: collections.Counter = field(default_factory=collections.Counter)
    _fh: io.TextIOBase | None = field(default=None, init=False, repr=False)

    def add(self, error: InputError, raw: bytes | None = None) -> None:
        kind = error.reason.split(":", 1)[0]
        self.counts[kind] += 1
        if self.path is None:
            return
        if self._fh is None:
            os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
            self._fh = open(self.path, "a", encoding="utf-8")
        entry = {"file": error.path, "line": error.line, "reason": error.reason}
        if raw is not None:
            entry["bytes"] = len(raw)
            entry["sha256"] = hashlib.sha256(raw).hexdigest()
        self._fh.write(json.dumps(entry, ensure_ascii=False, sort_keys=True) + "\n")

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def __enter__(self) -> Quarantine:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def open_binary(path: str | os.PathLike) -> BinaryIO:
    """Opens `path` for reading bytes, decompressing ``.gz`` and ``.zst`` by suffix."""
    name = os.fspath(path)
    if name.endswith(".gz"):
        return gzip.open(name, "rb")
    if name.endswith(".zst"):
        import zstandard

        raw = open(name, "rb")
        return zstandard.ZstdDecompressor().stream_reader(raw, closefd=True)
    return open(name, "rb")


def handle(error: InputError, on_error: OnError, quarantine: Quarantine | None, raw=None) -> None:
    """Raises `error` in ``raise`` mode, records it in ``skip`` mode."""
    if on_error == "raise":
        raise error
    if quarantine is not None:
        quarantine.add(error, raw)


def _raw_lines(fh: BinaryIO, path: str, max_bytes: int) -> Iterator[tuple[bytes, bool]]:
    """Yields (line bytes without newline, too_long) in bounded memory.

    An over-long line is consumed to its end but only its first `max_bytes`
    bytes are kept, so a 20 MB line never sits in memory.
    """
    buf = bytearray()
    too_long = False
    while True:
        try:
            chunk = fh.read(_CHUNK)
        except (EOFError, OSError, zlib.error) as e:  # truncated or corrupt archive
            raise InputError(path, None, f"corrupt or truncated compressed file: {e}") from e
        except Exception as e:  # zstandard raises its own ZstdError
            if type(e).__name__ == "ZstdError":
                raise InputError(path, None, f"corrupt or truncated compressed file: {e}") from e
            raise
        if not chunk:
            break
        start = 0
        while True:
            nl = chunk.find(b"\n", start)
            piece = chunk[start:] if nl < 0 else chunk[start:nl]
            if not too_long:
                buf += piece
                if len(buf) > max_bytes:
                    too_long = True
                    del buf[max_bytes:]
            if nl < 0:
                break
            yield bytes(buf), too_long
            buf.clear()
            too_long = False
            start = nl + 1
    if buf or too_long:
        yield bytes(buf), too_long


def iter_lines(
    path: str | os.PathLike,
    *,
    on_error: OnError = "raise",
    quarantine: Quarantine | None = None,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    keep_ends: bool = False,
) -> Iterator[tuple[int, str]]:
    """Yields ``(line_number, text)`` for each good line of a text file, 1-based.

    Checks each line for invalid UTF-8, NUL bytes and length; strips a UTF-8
    BOM on line 1 and a trailing ``\\r`` (CRLF files) unless `keep_ends`.
    Bad lines raise `InputError` or, with ``on_error="skip"``, go to
    `quarantine` and are not yielded. A truncated or corrupt compressed file
    always raises: the rest of the file cannot be trusted.
    """
    name = os.fspath(path)
    with open_binary(name) as fh:
        yield from iter_stream_lines(
            fh,
            name,
            on_error=on_error,
            quarantine=quarantine,
            max_line_bytes=max_line_bytes,
            keep_ends=keep_ends,
        )


def iter_stream_lines(
    fh: BinaryIO,
    name: str,
    *,
    on_error: OnError = "raise",
    quarantine: Quarantine | None = None,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    keep_ends: bool = False,
) -> Iterator[tuple[int, str]]:
    """`iter_lines` over an already open binary stream (an archive member, say).

    `name` is what errors call the stream, e.g. ``archive.tar.gz:member``.
    """
    lineno = 0
    for raw, too_long in _raw_lines(fh, name, max_line_bytes):
        lineno += 1
        if too_long:
            err = InputError(name, lineno, f"line too long: over {max_line_bytes} bytes")
            handle(err, on_error, quarantine, raw)
            continue
        if b"\x00" in raw:
            handle(InputError(name, lineno, "NUL byte in line"), on_error, quarantine, raw)
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            err = InputError(name, lineno, f"invalid UTF-8: byte {e.start} of the line")
            handle(err, on_error, quarantine, raw)
            continue
        if lineno == 1 and text.startswith("\ufeff"):
            text = text[1:]
        if not keep_ends and text.endswith("\r"):
            text = text[:-1]
        yield lineno, text


def decode_text(data: bytes, name: str) -> str:
    """Decodes a whole file's bytes as UTF-8, naming the line of a NUL or bad byte."""
    nul = data.find(b"\x00")
    if nul >= 0:
        raise InputError(name, data.count(b"\n", 0, nul) + 1, "NUL byte in file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(name, data.count(b"\n", 0, e.start) + 1, "invalid UTF-8") from e
    return text.removeprefix("\ufeff")


def read_text(path: str | os.PathLike, *, max_bytes: int = 1 << 31) -> str:
    """Reads a whole (possibly compressed) UTF-8 file, for small JSON files such as KLUE splits.

    Raises `InputError` naming the file (and the line of the first bad byte)
    for invalid UTF-8, NUL bytes or truncated archives.
    """
    name = os.fspath(path)
    try:
        with open_binary(name) as fh:
            data = fh.read(max_bytes + 1)
    except (EOFError, OSError, zlib.error) as e:
        raise InputError(name, None, f"corrupt or truncated compressed file: {e}") from e
    if len(data) > max_bytes:
        raise InputError(name, None, f"file too large: over {max_bytes} bytes")
    return decode_text(data, name)


def load_json(path: str | os.PathLike) -> object:
    """Parses a whole JSON file; a syntax error names the file, line and column."""
    text = read_text(path)
    if not text.strip():
        raise InputError(path, None, "empty file: expected JSON")
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(path, e.lineno, f"malformed JSON: {e.msg} (column {e.colno})") from e
