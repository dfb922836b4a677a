"""Blue House petitions archive (lovit/petitions_archive): JSON Lines, one petition per line.

Text is the petition body (``content``); the title and metadata are kept as
extra fields. Ids are ``petition-<petition_idx>``, stable across re-crawls.
"""

from __future__ import annotations

from collections.abc import Iterator

from corpus.readers.base import ReadOptions
from corpus.readers.jsonl import parse_object
from corpus.records import CorpusRecord
from corpus.textio import InputError, handle

FIELDS = ("petition_idx", "content")


def read(path: str, opts: ReadOptions) -> Iterator[CorpusRecord]:
    for lineno, line in opts.lines(path):
        if not line.strip():
            opts.count("blank_line")
            continue
        try:
            obj = parse_object(line, path, lineno)
            for key in FIELDS:
                if key not in obj:
                    raise InputError(path, lineno, f"missing field: {key!r}")
            if not isinstance(obj["content"], str):
                raise InputError(path, lineno, "wrong type: field 'content' must be a string")
        except InputError as e:
            handle(e, opts.on_error, opts.quarantine, line.encode("utf-8"))
            continue
        extra = {k: v for k, v in obj.items() if k not in ("content", "petition_idx")}
        yield CorpusRecord(
            id=f"petition-{obj['petition_idx']}",
            text=obj["content"],
            source=opts.source or "petitions",
            extra=extra,
        )
