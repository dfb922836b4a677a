"""What every raw-corpus reader shares: options, stable ids, skip counters."""

from __future__ import annotations

import collections
import os
from collections.abc import Iterator
from dataclasses import dataclass, field

from corpus.textio import COMPRESSED_SUFFIXES, ByteRange, OnError, Quarantine, iter_lines


def file_key(path: str | os.PathLike) -> str:
    """A stable, mostly unique name for a file: ``parent/name`` without a compression suffix.

    Ids built from it do not depend on where the corpus is mounted
    (``/data/kowiki/AA/wiki_00`` and ``./kowiki/AA/wiki_00`` give ``AA/wiki_00``)
    while files of the same name in sibling folders stay distinct.
    """
    p = os.path.normpath(os.fspath(path))
    for suffix in COMPRESSED_SUFFIXES:
        if p.endswith(suffix):
            p = p[: -len(suffix)]
    parent = os.path.basename(os.path.dirname(p))
    name = os.path.basename(p)
    return f"{parent}/{name}" if parent else name


def default_source(path: str | os.PathLike) -> str:
    """The source name used when the caller gives none: the file's folder name."""
    parent = os.path.basename(os.path.dirname(os.path.abspath(os.fspath(path))))
    return parent or "unknown"


@dataclass
class ReadOptions:
    """Options shared by the readers; `skipped` counts lines skipped for a benign reason."""

    source: str | None = None
    text_field: str | None = None
    id_field: str | None = None
    column: str | int | None = None
    on_error: OnError = "raise"
    quarantine: Quarantine | None = None
    skipped: collections.Counter = field(default_factory=collections.Counter)
    #: Read only the lines starting in this byte range of the file (a shard of a large file).
    byte_range: ByteRange | None = None
    #: Read this file instead of the named one (a chunk of a large compressed file), whose
    #: first line is line `first_line` of the named file; ids and errors name the named file.
    physical_path: str | None = None
    first_line: int = 1
    #: The files' text encoding (`corpus.textio.ENCODINGS`).
    encoding: str = "utf-8"
    #: Where the records of a ``json`` file are (ijson's path): ``item``, the elements of a
    #: top-level array; ``data.item.paragraphs.item``, each paragraph of each entry of a
    #: ``{"data": [{"paragraphs": [...]}]}`` file (KLUE MRC's and many AI Hub files' shape).
    json_items: str = "item"

    def lines(self, path: str) -> Iterator[tuple[int, str]]:
        """``(line number, text)`` of the good lines of `path` (or of its range or chunk)."""
        return iter_lines(
            self.physical_path or path,
            on_error=self.on_error,
            quarantine=self.quarantine,
            byte_range=self.byte_range,
            name=path,
            first_line=self.first_line,
            encoding=self.encoding,
        )

    def source_for(self, path: str) -> str:
        return self.source or default_source(path)

    def count(self, reason: str) -> None:
        self.skipped[reason] += 1
