"""Plain text: one sentence or document per line; blank lines separate nothing and are skipped."""

from __future__ import annotations

from collections.abc import Iterator

from corpus.readers.base import ReadOptions, file_key
from corpus.records import CorpusRecord


def read(path: str, opts: ReadOptions) -> Iterator[CorpusRecord]:
    """One record per non-blank line; id ``<file key>:<line>``."""
    key = file_key(path)
    for lineno, line in opts.lines(path):
        if not line.strip():
            opts.count("blank_line")
            continue
        yield CorpusRecord(id=f"{key}:{lineno}", text=line, source=opts.source_for(path))
