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
        # ensure_ascii=False keeps Korean readable and files ~3x smaller.
        return json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":"))

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
            gz = gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0)
            self._fh = _TextOut(gz)
        else:
            self._raw = None
            self._fh = open(self.tmp, "w", encoding="utf-8", newline="\n")
        self.count = 0

    def write(self, record: CorpusRecord | dict[str, Any]) -> None:
        if isinstance(record, CorpusRecord):
            line = record.to_json()
        else:
            line = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
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
    """Minimal UTF-8 text wrapper over a binary stream (gzip without io.TextIOWrapper buffering)."""

    def __init__(self, fh):
        self._fh = fh

    def write(self, text: str) -> None:
        self._fh.write(text.encode("utf-8"))

    def close(self) -> None:
        self._fh.close()
