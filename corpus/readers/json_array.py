"""A JSON file that is one array (``[{...}, {...}]``, often pretty-printed), or records nested
at ``--json-items`` (``data.item.paragraphs.item``): a record per element, read one element
at a time.

Many Korean datasets come so (NSMC's ``synopses.json``, exports of crawls and annotation
tools), and a pretty-printed array is not JSON Lines: read line by line, every line would
be malformed. Elements are streamed with ijson (one in memory at a time). An object element
becomes a record as a JSON Lines object does (`corpus.readers.jsonl.to_record`: the text
from ``--text-field`` or the first of the usual text fields, ``--id-field``, the other keys
kept); a string element is the text itself. Ids are ``<file key>:<element number>``
(1-based) unless the element has an ``id`` or ``--id-field``. Errors name the element, not
a line: ``file: element 7: missing field ...``.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Callable, Generator, Iterable, Iterator
from typing import BinaryIO

import ijson

from corpus.readers.base import ReadOptions, file_key
from corpus.readers.jsonl import to_record
from corpus.records import CorpusRecord
from corpus.textio import InputError, WithoutBom, handle, open_binary

_END = object()


def element_record(obj: object, path: str, n: int, opts: ReadOptions) -> CorpusRecord | str:
    """The record of the `n`-th element (1-based), or ``empty_document`` when its text is
    blank; `InputError` naming the element."""
    if isinstance(obj, str):
        rec = CorpusRecord(id=f"{file_key(path)}:{n}", text=obj, source=opts.source_for(path))
    elif not isinstance(obj, dict):
        raise InputError(path, None, f"wrong type: element {n} is a {type(obj).__name__}")
    else:
        try:
            rec = to_record(obj, path, n, opts)
        except InputError as e:
            kind, _, detail = e.reason.partition(":")
            raise InputError(path, None, f"{kind}: element {n}:{detail}") from None
    return rec if rec.text.strip() else "empty_document"


def stream_items(
    path: str,
    opts: ReadOptions,
    prefix: str = "item",
    what: str = "element",
    source: BinaryIO | None = None,
) -> Iterator[tuple[int, object]]:
    """``(n, item)`` for each item under `prefix` (ijson's path: ``item`` for the elements
    of a top-level array), 1-based, one in memory at a time. Broken JSON ends the file
    there: an `InputError` naming the last good item (quarantined in ``skip`` mode)."""
    if opts.encoding != "utf-8":
        raise ValueError(f"{path}: JSON files are read as UTF-8 (--encoding {opts.encoding})")
    n = opts.first_line - 1  # a range of a larger array (`corpus.array_shards`) numbers on
    with source or open_binary(os.fspath(path)) as fh:
        items = ijson.items(WithoutBom(fh), prefix, use_float=True)
        while True:
            try:
                obj = next(items, _END)
            except (ijson.JSONError, EOFError, OSError, ValueError, zlib.error) as e:
                reason = str(e).splitlines()[0][:200] if str(e) else type(e).__name__
                err = InputError(
                    path,
                    None,
                    f"malformed JSON after {what} {n}: {reason}; the rest of the file is "
                    f"unreadable ({n} {what}s read)",
                )
                handle(err, opts.on_error, opts.quarantine)
                return
            if obj is _END:
                return
            n += 1
            if opts.quarantine is not None:
                opts.quarantine.lines += 1
            yield n, obj


def records_of_items(
    path: str,
    opts: ReadOptions,
    record: Callable[[object, str, int, ReadOptions], CorpusRecord | str],
    prefix: str = "item",
    what: str = "element",
    source: BinaryIO | None = None,
) -> Generator[CorpusRecord, None, int]:
    """The records `record` makes of the items of `stream_items` (`records_from`). Returns how
    many items were read."""
    return (yield from records_from(stream_items(path, opts, prefix, what, source), path, opts,
                                    record))  # fmt: skip


def records_from(
    items: Iterable[tuple[int, object]],
    path: str,
    opts: ReadOptions,
    record: Callable[[object, str, int, ReadOptions], CorpusRecord | str],
) -> Generator[CorpusRecord, None, int]:
    """The records `record` makes of numbered `items` (a JSON array's elements, a table's
    rows); a string it returns is why an item is skipped (counted in `opts`), an
    `InputError` a bad item (raised or quarantined). Returns the last item's number."""
    n = 0
    for n, obj in items:
        try:
            rec = record(obj, path, n, opts)
        except InputError as e:
            handle(e, opts.on_error, opts.quarantine)
            continue
        if isinstance(rec, str):
            opts.count(rec)
            continue
        yield rec
    return n


def read(path: str, opts: ReadOptions) -> Iterator[CorpusRecord]:
    n = yield from records_of_items(path, opts, element_record, opts.json_items)
    if n == 0 and opts.json_items != "item":
        err = InputError(path, None, f"nothing at --json-items {opts.json_items}")
        handle(err, opts.on_error, opts.quarantine)
    elif n == 0 and _first_character(path) != b"[":
        err = InputError(
            path, None, "not a JSON array: --format json reads [ {...}, ... ] (or --json-items)"
        )
        handle(err, opts.on_error, opts.quarantine)


def _first_character(path: str) -> bytes:
    """The file's first byte that is not whitespace (after a byte-order mark)."""
    with open_binary(path) as fh:
        return WithoutBom(fh).read(4096).lstrip()[:1]
