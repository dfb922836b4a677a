"""What every raw-corpus reader shares: options, stable ids, skip counters."""

from __future__ import annotations

import collections
import os
from dataclasses import dataclass, field

from corpus.textio import OnError, Quarantine

_COMPRESSED = (".gz", ".zst")


def file_key(path: str | os.PathLike) -> str:
    """A stable, mostly unique name for a file: ``parent/name`` without a compression suffix.

    Ids built from it do not depend on where the corpus is mounted
    (``/data/kowiki/AA/wiki_00`` and ``./kowiki/AA/wiki_00`` give ``AA/wiki_00``)
    while files of the same name in sibling folders stay distinct.
    """
    p = os.path.normpath(os.fspath(path))
    for suffix in _COMPRESSED:
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

    def source_for(self, path: str) -> str:
        return self.source or default_source(path)

    def count(self, reason: str) -> None:
        self.skipped[reason] += 1
