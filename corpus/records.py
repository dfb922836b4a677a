"""The one corpus record type every corpus stage reads and writes.

On disk a record is one JSON Lines object ``{"id": str, "text": str,
"source": str, ...}``; any other field is carried through unchanged by every
stage. Ids are stable (derived from the input file name and position, never
from run order) and unique within a corpus.
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from corpus.textio import InputError, OnError, Quarantine, handle, iter_lines

REQUIRED_FIELDS = ("id", "text", "source")
#: How a record is written: one line of compact JSON, Korean as itself (``ensure_ascii=False``
#: keeps it readable and the files ~3x smaller). One encoder for every record: `json.dumps`
#: with options builds a new one per call.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
#: gzip level of ``.gz`` shards: zlib's and gzip(1)'s default. Level 9 (Python's default)
#: took 1.6x the CPU for files 0.5% smaller (80,000 kowiki records, docs/corpus.md).
GZIP_LEVEL = 6
#: Bytes of encoded lines gathered before one write to the compressor (the stream, and so
#: the file, is the same however it is cut; fewer calls cost less).
_WRITE_BUFFER = 1 << 16


@dataclass(frozen=True)
class CorpusRecord:
    """A unit of text: a document, paragraph or sentence, depending on the stage."""

    id: str
    text: str
    source: str
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out = {"id": self.id, "text": self.text, "source": self.source}
        out.update(self.extra)
        return out

    def to_json(self) -> str:
        return _ENCODER.encode(self.to_dict())

    def replace(self, **changes: Any) -> CorpusRecord:
        data = {"id": self.id, "text": self.text, "source": self.source, "extra": self.extra}
        data.update(changes)
        return CorpusRecord(**data)

    @classmethod
    def from_dict(cls, obj: dict[str, Any]) -> CorpusRecord:
        extra = {k: v for k, v in obj.items() if k not in REQUIRED_FIELDS}
        return cls(id=obj["id"], text=obj["text"], source=obj["source"], extra=extra)


def parse_record(line: str, path: str, lineno: int) -> CorpusRecord:
    """Parses one JSON Lines corpus record; raises `InputError` naming what is wrong."""
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as e:
        raise InputError(path, lineno, f"malformed JSON: {e.msg} (column {e.colno})") from e
    if not isinstance(obj, dict):
        raise InputError(
            path, lineno, f"wrong type: expected a JSON object, got {type(obj).__name__}"
        )
    for key in REQUIRED_FIELDS:
        if key not in obj:
            raise InputError(path, lineno, f"missing field: {key!r}")
        if not isinstance(obj[key], str):
            raise InputError(path, lineno, f"wrong type: field {key!r} must be a string")
    return CorpusRecord.from_dict(obj)


def read_records(
    path: str | os.PathLike,
    *,
    on_error: OnError = "raise",
    quarantine: Quarantine | None = None,
) -> Iterator[CorpusRecord]:
    """Streams corpus records from a ``.jsonl`` (optionally ``.gz``/``.zst``) file.

    Blank lines are ignored; every other bad line raises or is quarantined.
    """
    name = os.fspath(path)
    for lineno, line in iter_lines(name, on_error=on_error, quarantine=quarantine):
        if not line.strip():
            continue
        try:
            yield parse_record(line, name, lineno)
        except InputError as e:
            handle(e, on_error, quarantine, line.encode("utf-8"))


class RecordWriter:
    """Writes records to ``path`` atomically: a temporary file renamed on `close`.

    A crash leaves only ``path + ".tmp"``, never a half-written ``path``, so a
    stage can trust any output file that exists. ``.gz`` output is written with
    mtime 0 so that the same records give byte-identical files.
    """

    def __init__(self, path: str | os.PathLike):
        self.path = os.fspath(path)
        self.tmp = self.path + ".tmp"
        os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
        if self.path.endswith(".gz"):
            raw = open(self.tmp, "wb")
            self._raw = raw
            gz = gzip.GzipFile(
                filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=GZIP_LEVEL
            )
            self._fh = _TextOut(gz)
        else:
            self._raw = None
            self._fh = open(self.tmp, "w", encoding="utf-8", newline="\n")
        self.count = 0

    def write(self, record: CorpusRecord | dict[str, Any]) -> None:
        if isinstance(record, CorpusRecord):
            line = record.to_json()
        else:
            line = _ENCODER.encode(record)
        self._fh.write(line + "\n")
        self.count += 1

    def close(self) -> None:
        self._fh.close()
        if self._raw is not None:
            self._raw.close()
        os.replace(self.tmp, self.path)

    def abort(self) -> None:
        self._fh.close()
        if self._raw is not None:
            self._raw.close()
        if os.path.exists(self.tmp):
            os.remove(self.tmp)

    def __enter__(self) -> RecordWriter:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()


class _TextOut:
    """UTF-8 text over a binary stream (gzip), written `_WRITE_BUFFER` bytes at a time."""

    def __init__(self, fh):
        self._fh = fh
        self._parts: list[bytes] = []
        self._size = 0

    def write(self, text: str) -> None:
        data = text.encode("utf-8")
        self._parts.append(data)
        self._size += len(data)
        if self._size >= _WRITE_BUFFER:
            self._flush()

    def _flush(self) -> None:
        self._fh.write(b"".join(self._parts))
        self._parts.clear()
        self._size = 0

    def close(self) -> None:
        if self._parts:
            self._flush()
        self._fh.close()
