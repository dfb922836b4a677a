"""Streaming, checked access to text files: compression, line limits, bad-input policy.

Every reader in the project goes through `iter_lines`, so a malformed file is
reported the same way everywhere: an `InputError` that names the file, the
1-based line number and what is wrong. In ``skip`` mode the bad line is
counted and recorded in a `Quarantine` side file instead.

The quarantine file never holds the bad line's content (it may carry personal
data); it holds the location, the reason, the byte length and a SHA-256 so a
user can find and inspect the line in the original file.

Compression is recognised by the file's first bytes (gzip, zstd, xz, bzip2), so
a ``.txt`` that is really gzip, or CC-100's ``ko.txt.xz``, reads as text. A
truncated or corrupt archive raises in ``raise`` mode; in ``skip`` mode the
rest of that file is quarantined as one entry that says how many lines were
read, and the lines before it are kept. A `Quarantine` with ``max_rate`` stops
a run whose input is mostly bad lines (the wrong ``--format``, a binary file).

`iter_lines` can read one byte range of a plain file (`ByteRange`): the lines
that *start* inside the range, numbered as in the whole file, which is how the
shard executor splits one large file over several workers.
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
#: `Quarantine.max_rate` is checked while reading only after this many lines (a file
#: whose 3rd line is bad is not "mostly garbage"); the executor checks whole shards at the end.
MIN_LINES_FOR_RATE = 1000
_CHUNK = 1 << 16
#: Encodings the readers decode (``--encoding``). CP949 (Windows' Korean code page, a
#: superset of EUC-KR) is how Korean text saved by older Windows tools and many public
#: Korean datasets come; like UTF-8 it never has a ``\n`` byte inside a character, so
#: lines, byte ranges and chunks split the same way.
ENCODINGS = ("utf-8", "cp949")
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_UTF8_BOM = b"\xef\xbb\xbf"

#: First bytes of each compressed format we read, and its name.
MAGIC = (
    (b"\x1f\x8b", "gzip"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"BZh", "bzip2"),  # and a block size digit and a block or end-of-stream magic (below)
)
_BZ2_BLOCK_MAGICS = (b"1AY&SY", b"\x17rE8P\x90")
#: File-name suffixes of compressed files (ids and formats are named without them).
COMPRESSED_SUFFIXES = (".gz", ".zst", ".xz", ".bz2")


@dataclass(frozen=True)
class ByteRange:
    """Part of a plain file: the lines starting at byte offsets in ``[start, end)``.

    ``newlines_before`` is the number of ``\\n`` bytes in ``[0, start)``, so
    line numbers are those of the whole file. ``end=None`` reads to the end.
    """

    start: int
    end: int | None
    newlines_before: int


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
    #: Stop (raise) once more than this share of the lines read is bad; None: never.
    max_rate: float | None = None
    #: Lines read (good and bad) by `iter_stream_lines` through this quarantine.
    lines: int = 0
    _fh: io.TextIOBase | None = field(default=None, init=False, repr=False)
    #: The first error of each kind, where (file and line) and why: what the rate's error
    #: quotes so that it says what to change (reasons never hold the line's text).
    _first: dict[str, InputError] = field(default_factory=dict, init=False, repr=False)

    def add(self, error: InputError, raw: bytes | None = None) -> None:
        kind = error.reason.split(":", 1)[0]
        self.counts[kind] += 1
        self._first.setdefault(kind, error)
        self._write(error, raw)
        if self.max_rate is not None and self.lines >= MIN_LINES_FOR_RATE:
            self.check_rate(error.path, error.line)

    def check_rate(self, path: str, line: int | None = None) -> None:
        """Raises `InputError` when the bad share of the lines read exceeds `max_rate`."""
        if self.max_rate is None or not self.total:
            return
        rate = self.total / max(self.lines, 1)
        if rate > self.max_rate:
            raise InputError(
                path,
                line,
                f"quarantine rate {rate:.1%} ({self.total} bad of {self.lines} lines) is above "
                f"--max-quarantine-rate {self.max_rate:g}: the input looks like garbage "
                f"(wrong --format or --encoding? a binary file?); bad lines by reason: "
                f"{dict(self.counts)}{self._first_of_most()}",
            )

    def _first_of_most(self) -> str:
        """``; the first: <error>`` for the commonest reason, or nothing."""
        kind = max(self.counts, key=lambda k: (self.counts[k], k), default=None)
        first = self._first.get(kind) if kind is not None else None
        return f"; the first: {first}" if first is not None else ""

    def _write(self, error: InputError, raw: bytes | None) -> None:
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


def compression(path: str | os.PathLike) -> str | None:
    """A file's compression by its first bytes (not its name): gzip, zstd, xz, bzip2 or None."""
    with open(path, "rb") as fh:
        head = fh.read(10)
    for magic, kind in MAGIC:
        if head.startswith(magic):
            if kind == "bzip2" and not (head[3:4].isdigit() and head[4:10] in _BZ2_BLOCK_MAGICS):
                return None  # a text file that happens to start with "BZh"
            return kind
    return None


#: First bytes of common binary files that land in corpus folders, and their names.
BINARY_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "PNG image"),
    (b"\xff\xd8\xff", "JPEG image"),
    (b"GIF87a", "GIF image"),
    (b"GIF89a", "GIF image"),
    (b"%PDF-", "PDF document"),
    (b"PK\x03\x04", "ZIP archive (zip, docx)"),
    (b"7z\xbc\xaf\x27\x1c", "7z archive"),
    (b"\x7fELF", "executable"),
    (b"SQLite format 3\x00", "SQLite database"),
)
TAR_ARCHIVE = "tar archive"
#: The first bytes of a Parquet file.
PARQUET_MAGIC = b"PAR1"
#: The first bytes of an Arrow IPC file, and of an Arrow IPC stream (what Hugging Face
#: datasets keep in their cache and `save_to_disk` folders as ``*.arrow``; taken as one only
#: with that suffix, the four bytes being common).
ARROW_FILE_MAGIC = b"ARROW1"
ARROW_STREAM_MAGIC = b"\xff\xff\xff\xff"


def table_kind(path: str | os.PathLike) -> str | None:
    """``"parquet"`` or ``"arrow"`` for a table file the readers read
    (`corpus.readers.parquet`), ``"xlsx"`` for an Excel workbook (a ZIP file named
    ``.xlsx``/``.xlsm``: `corpus.readers.spreadsheet`), by its first bytes; None otherwise."""
    with open(path, "rb") as fh:
        head = fh.read(8)
    if head.startswith(PARQUET_MAGIC):
        return "parquet"
    if head.startswith(b"PK\x03\x04") and os.fspath(path).lower().endswith((".xlsx", ".xlsm")):
        return "xlsx"
    if head.startswith(ARROW_FILE_MAGIC) or (
        head.startswith(ARROW_STREAM_MAGIC) and os.fspath(path).endswith(".arrow")
    ):
        return "arrow"
    return None


#: What to do with an archive of files (the stages read files of text, each plain or
#: compressed, not archives of several): NIKL and AI Hub ship their corpora as ZIP files,
#: NamuWiki its dump as a .7z.
UNPACK_HINT = {
    "ZIP archive (zip, docx)": "a .zip: unzip it and give the folder",
    "7z archive": "a .7z: unpack it (7z x) and give the file or folder",
    TAR_ARCHIVE: "unpack it (tar -xf) and give the folder",
}
#: Share of a file's first bytes that are NUL or control bytes (no text has them; random
#: bytes are 10% so) above which it is a binary file rather than text with a few bad lines.
#: Invalid UTF-8 does not count: a Korean file in EUC-KR/CP949 is text in the wrong
#: encoding, for the readers to report (the quarantine rate stops it), never to be skipped.
BINARY_SHARE = 0.05
_BINARY_HEAD = 8192
_TEXT_CONTROLS = set(b"\t\n\r\f\v\x1b")


def binary_kind(path: str | os.PathLike) -> str | None:
    """What binary file `path` is (``"PNG image"``, ``"binary data"``), or None for text.

    Looks at the first 8 KiB after decompression: a known binary signature, or
    more than `BINARY_SHARE` of control bytes. Text stays text, whatever is wrong
    with it: a stray NUL byte, invalid UTF-8, another encoding (EUC-KR, or UTF-16
    with its byte-order mark): its bad lines are the readers' to report.
    """
    try:
        if table_kind(path) is not None:
            return None  # not text, but a table the readers read (`corpus.readers.parquet`)
        with open_binary(path) as fh:
            head = fh.read(_BINARY_HEAD)
    except (OSError, EOFError, ValueError):
        return None  # a broken archive: the readers report it with its line
    for magic, name in BINARY_MAGIC:
        if head.startswith(magic):
            return name
    if head[257:262] == b"ustar":
        return TAR_ARCHIVE
    if not head or head.startswith(_UTF16_BOMS):
        return None  # empty, or UTF-16 text
    controls = sum(1 for b in head if b < 0x20 and b not in _TEXT_CONTROLS)
    return "binary data" if controls / len(head) > BINARY_SHARE else None


def _decompress(kind: str | None, raw: BinaryIO) -> BinaryIO:
    """A reader of the decompressed bytes of the open file `raw` (closing it closes `raw`)."""
    if kind == "gzip":
        return gzip.GzipFile(fileobj=raw, mode="rb")
    if kind == "zstd":
        import zstandard

        return zstandard.ZstdDecompressor().stream_reader(raw, closefd=True)
    if kind == "xz":
        import lzma

        return lzma.LZMAFile(raw, "rb")
    if kind == "bzip2":
        import bz2

        return bz2.BZ2File(raw, "rb")
    return raw


class _Owning:
    """Closes the underlying file too (GzipFile/LZMAFile/BZ2File leave a passed file open)."""

    def __init__(self, inner: BinaryIO, raw: BinaryIO):
        self._inner, self._raw = inner, raw

    def read(self, n: int = -1) -> bytes:
        return self._inner.read(n)

    def read1(self, n: int = -1) -> bytes:
        return getattr(self._inner, "read1", self._inner.read)(n)

    def close(self) -> None:
        try:
            self._inner.close()
        finally:
            self._raw.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class WithoutBom:
    """A binary stream less a leading UTF-8 byte-order mark, for the JSON parser that reads
    whole-file JSON (`corpus.readers.modu`, `corpus.readers.json_array`), which refuses it."""

    def __init__(self, fh: BinaryIO):
        self._fh = fh
        head = fh.read(len(_UTF8_BOM))
        self._head = b"" if head == _UTF8_BOM else head

    def read(self, n: int = -1) -> bytes:
        if not self._head:
            return self._fh.read(n)
        head, self._head = self._head, b""
        if n is not None and 0 <= n <= len(head):
            self._head = head[n:]
            return head[:n]
        return head + self._fh.read(-1 if n is None or n < 0 else n - len(head))


def open_binary(path: str | os.PathLike) -> BinaryIO:
    """Opens `path` for reading bytes, decompressing gzip, zstd, xz and bzip2 by magic bytes."""
    name = os.fspath(path)
    kind = compression(name)
    raw = open(name, "rb")
    if kind is None:
        return raw
    return _Owning(_decompress(kind, raw), raw)


def uncompressed_size_estimate(path: str | os.PathLike, sample: int = 8 << 20) -> int:
    """The file's size after decompression: exact if it is plain or small, else estimated.

    Decompresses up to `sample` bytes and scales the file size by the ratio
    seen (compressed bytes consumed are read from the file position, which
    runs a little ahead: the estimate errs low). A file that breaks within the
    sample gives what was readable (at least its compressed size).
    """
    name = os.fspath(path)
    size = os.path.getsize(name)
    kind = compression(name)
    if kind is None:
        return size
    with open(name, "rb") as raw:
        fh = _decompress(kind, raw)
        read = getattr(fh, "read1", fh.read)
        n = 0
        try:
            while n < sample:
                block = read(1 << 16)
                if not block:
                    return n
                n += len(block)
        except Exception:  # truncated or corrupt (the reader will say so): what was readable
            return max(n, size)
        return int(size * n / max(raw.tell(), 1))


def handle(error: InputError, on_error: OnError, quarantine: Quarantine | None, raw=None) -> None:
    """Raises `error` in ``raise`` mode, records it in ``skip`` mode."""
    if on_error == "raise":
        raise error
    if quarantine is not None:
        quarantine.add(error, raw)


def _raw_lines(fh: BinaryIO, path: str, max_bytes: int) -> Iterator[tuple[bytes, bool, int]]:
    """Yields (line bytes without newline, too_long, bytes consumed) in bounded memory.

    An over-long line is consumed to its end but only its first `max_bytes`
    bytes are kept, so a 20 MB line never sits in memory. "Bytes consumed" is
    the line's full length including its newline, for byte-range reading.
    A truncated or corrupt archive raises `InputError` (no line number: the
    caller knows how far it got); the partial line before the break is dropped.
    """
    buf = bytearray()
    too_long = False
    size = 0
    # read1: one decompression step at a time, so a break in an archive loses as little
    # of the text before it as the format allows
    read = getattr(fh, "read1", fh.read)
    while True:
        try:
            chunk = read(_CHUNK)
        except (EOFError, OSError, zlib.error) as e:  # truncated or corrupt archive
            raise InputError(path, None, f"corrupt or truncated compressed file: {e}") from e
        except Exception as e:  # zstandard and lzma raise their own errors
            if type(e).__name__ in ("ZstdError", "LZMAError"):
                raise InputError(path, None, f"corrupt or truncated compressed file: {e}") from e
            raise
        if not chunk:
            break
        start = 0
        while True:
            nl = chunk.find(b"\n", start)
            piece = chunk[start:] if nl < 0 else chunk[start:nl]
            size += len(piece)
            if not too_long:
                buf += piece
                if len(buf) > max_bytes:
                    too_long = True
                    del buf[max_bytes:]
            if nl < 0:
                break
            yield bytes(buf), too_long, size + 1
            buf.clear()
            too_long = False
            size = 0
            start = nl + 1
    if buf or too_long:
        yield bytes(buf), too_long, size


def _seek_line_start(fh: BinaryIO, start: int) -> tuple[int, int]:
    """Moves `fh` to the first line starting at or after `start`; (offset, newlines skipped)."""
    if start == 0:
        fh.seek(0)
        return 0, 0
    fh.seek(start - 1)
    pos = start - 1
    while True:
        chunk = fh.read(_CHUNK)
        if not chunk:
            return pos, 0  # no line starts in the rest of the file
        nl = chunk.find(b"\n")
        if nl >= 0:
            pos += nl + 1
            fh.seek(pos)
            # a newline at start-1 means a line starts exactly at `start` (counted in
            # newlines_before); else the newline found is inside the range and ends the
            # partial line that belongs to the previous range
            return pos, 0 if pos == start else 1
        pos += len(chunk)


def iter_lines(
    path: str | os.PathLike,
    *,
    on_error: OnError = "raise",
    quarantine: Quarantine | None = None,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    keep_ends: bool = False,
    byte_range: ByteRange | None = None,
    name: str | None = None,
    first_line: int = 1,
    encoding: str = "utf-8",
) -> Iterator[tuple[int, str]]:
    """Yields ``(line_number, text)`` for each good line of a text file, 1-based.

    Checks each line for invalid `encoding` (one of `ENCODINGS`), NUL bytes and length;
    strips a UTF-8 BOM on line 1 and a trailing ``\\r`` (CRLF files) unless `keep_ends`.
    A UTF-16 file (its byte-order mark on line 1) is one error for the whole file, naming
    the conversion; a UTF-8 line that reads as CP949 Korean says ``--encoding cp949``.
    Bad lines raise `InputError` or, with ``on_error="skip"``, go to
    `quarantine` and are not yielded. A truncated or corrupt compressed file
    raises, or in ``skip`` mode quarantines the rest of the file.

    `byte_range` reads only the lines starting in that range of a plain
    (uncompressed) file. `name` is what errors call the file (default `path`;
    a chunk of a larger file names the larger file) and `first_line` the
    number of its first line.
    """
    path = os.fspath(path)
    label = name or path
    with open_binary(path) as fh:
        limit = None
        if byte_range is not None:
            if compression(path) is not None:
                raise ValueError(f"{path}: byte ranges need an uncompressed file")
            pos, skipped = _seek_line_start(fh, byte_range.start)
            first_line = byte_range.newlines_before + skipped + 1
            if byte_range.end is not None:
                limit = max(0, byte_range.end - pos)
        yield from iter_stream_lines(
            fh,
            label,
            on_error=on_error,
            quarantine=quarantine,
            max_line_bytes=max_line_bytes,
            keep_ends=keep_ends,
            first_line=first_line,
            limit=limit,
            encoding=encoding,
        )


def iter_stream_lines(
    fh: BinaryIO,
    name: str,
    *,
    on_error: OnError = "raise",
    quarantine: Quarantine | None = None,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    keep_ends: bool = False,
    first_line: int = 1,
    limit: int | None = None,
    encoding: str = "utf-8",
) -> Iterator[tuple[int, str]]:
    """`iter_lines` over an already open binary stream (an archive member, say).

    `name` is what errors call the stream, e.g. ``archive.tar.gz:member``.
    With `limit`, only lines starting within the next `limit` bytes are read.
    """
    if encoding not in ENCODINGS:
        raise ValueError(f"unknown encoding {encoding!r}; choose from {', '.join(ENCODINGS)}")
    lineno = first_line - 1
    offset = 0
    lines = _raw_lines(fh, name, max_line_bytes)
    while True:
        if limit is not None and offset >= limit:
            return
        try:
            item = next(lines, None)
        except InputError as e:
            read = lineno - first_line + 1
            err = InputError(
                name,
                lineno + 1,
                f"{e.reason}; the rest of the file after line {lineno} is unreadable "
                f"({read} lines read)",
            )
            if on_error == "raise":
                raise err from e
            # skip mode: the lines before the break are good and kept; the rest is one entry
            err = InputError(name, lineno + 1, "truncated archive: " + err.reason)
            handle(err, on_error, quarantine)
            return
        if item is None:
            return
        raw, too_long, size = item
        offset += size
        lineno += 1
        if quarantine is not None:
            quarantine.lines += 1
        if too_long:
            err = InputError(name, lineno, f"line too long: over {max_line_bytes} bytes")
            handle(err, on_error, quarantine, raw)
            continue
        if lineno == 1 and raw.startswith(_UTF16_BOMS):
            handle(_utf16_error(name), on_error, quarantine)
            return
        if b"\x00" in raw:
            handle(InputError(name, lineno, "NUL byte in line"), on_error, quarantine, raw)
            continue
        try:
            text = raw.decode(encoding)
        except UnicodeDecodeError as e:
            handle(_decode_error(name, lineno, raw, encoding, e), on_error, quarantine, raw)
            continue
        if lineno == 1 and text.startswith("\ufeff"):
            text = text[1:]
        if not keep_ends and text.endswith("\r"):
            text = text[:-1]
        yield lineno, text


def _utf16_error(name: str) -> InputError:
    """The whole file is UTF-16 (a byte-order mark starts it): one error, with the fix."""
    return InputError(
        name,
        1,
        "UTF-16 text: every line of this file is unreadable as UTF-8 or CP949; convert it "
        f"first: iconv -f UTF-16 -t UTF-8 {name} > {name}.utf8",
    )


def _decode_error(
    name: str, lineno: int, raw: bytes, encoding: str, e: UnicodeDecodeError
) -> InputError:
    """Why `raw` is not `encoding` text; for UTF-8 that reads as Korean in CP949, the option
    that reads it (the reason before its first colon stays the quarantine's category)."""
    reason = f"invalid {encoding.upper()}: byte {e.start} of the line"
    if encoding == "utf-8":
        try:
            other = raw.decode("cp949")
        except UnicodeDecodeError:
            other = ""
        if any("\uac00" <= c <= "\ud7a3" for c in other):
            reason += " (it reads as Korean in CP949/EUC-KR: rerun with --encoding cp949)"
    return InputError(name, lineno, reason)


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
    except Exception as e:  # zstandard and lzma raise their own errors
        if type(e).__name__ in ("ZstdError", "LZMAError"):
            raise InputError(name, None, f"corrupt or truncated compressed file: {e}") from e
        raise
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
