"""CSV and TSV by column.

TSV is read with quoting off (tabs never appear inside a field); CSV uses the
standard quoting rules, so a quoted field may span lines. The first row is a
header when the column is given by name; a row with the wrong number of
columns is bad input. Ids are ``<file key>:<line of the row's start>``.
Without ``--column``, the header's first usual text column (`TEXT_COLUMNS`: NSMC's
``document``, the hate-speech set's ``comments``, AI Hub's ``본문``/``내용``/``문장``) is the
text, as the JSON readers choose theirs; a header without one is an error listing it.
``--format auto`` also takes a file of another suffix for TSV when its first line is such a
header and its second has as many tabs (NSMC's ``ratings_train.txt``).
"""

from __future__ import annotations

import csv
from collections.abc import Iterator

from corpus.readers.base import ReadOptions, file_key
from corpus.readers.jsonl import DEFAULT_TEXT_FIELDS
from corpus.records import CorpusRecord
from corpus.textio import InputError, handle

#: Header names taken as the text column when ``--column`` is not given, in this order.
TEXT_COLUMNS = (*DEFAULT_TEXT_FIELDS, "comments", "본문", "내용", "문장", "텍스트")


def _rows(path: str, opts: ReadOptions, delimiter: str) -> Iterator[tuple[int, list[str]]]:
    """Yields (starting line, fields) per row, following multi-line quoted CSV fields."""
    lines = opts.lines(path)
    state = {"lineno": 0}

    def feed() -> Iterator[str]:
        for lineno, line in lines:
            state["lineno"] = lineno
            yield line + "\n"

    quoting = csv.QUOTE_NONE if delimiter == "\t" else csv.QUOTE_MINIMAL
    reader = csv.reader(feed(), delimiter=delimiter, quoting=quoting, strict=True)
    while True:
        start = state["lineno"] + 1
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as e:
            handle(
                InputError(path, state["lineno"], f"malformed row: {e}"),
                opts.on_error,
                opts.quarantine,
            )
            continue
        yield start, row


def column_index(header: list[str], column: str | None, path: str, lineno: int) -> int:
    """The text column's position in `header`: `column`'s, or the first of `TEXT_COLUMNS`
    (names compared without surrounding spaces). Errors give the header's width, never its
    fields: a file without a header would put its first row's text in the message."""
    names = [h.strip() for h in header]
    if column is not None:
        if column.strip() not in names:
            raise InputError(
                path, lineno, f"wrong columns: no column {column!r} in the first line's "
                f"{len(header)} fields (is it a header?)",
            )  # fmt: skip
        return names.index(column.strip())
    name = next((c for c in TEXT_COLUMNS if c in names), None)
    if name is None:
        raise InputError(
            path, None, f"the table needs --column (a header name or a 0-based index): the "
            f"first line's {len(header)} fields name no usual text column "
            f"({', '.join(TEXT_COLUMNS)})",
        )  # fmt: skip
    return names.index(name)


def read(path: str, opts: ReadOptions, delimiter: str) -> Iterator[CorpusRecord]:
    rows = _rows(path, opts, delimiter)
    header: list[str] | None = None
    index: int
    if opts.column is not None and (isinstance(opts.column, int) or str(opts.column).isdigit()):
        index = int(opts.column)
    else:
        first = next(rows, None)
        if first is None:
            return
        header = first[1]
        index = column_index(header, opts.column, path, first[0])
    width = len(header) if header is not None else None
    key = file_key(path)
    for lineno, row in rows:
        if not row or (len(row) == 1 and not row[0].strip()):
            opts.count("blank_line")
            continue
        if width is not None and len(row) != width:
            err = InputError(path, lineno, f"wrong columns: {len(row)} fields, header has {width}")
            handle(err, opts.on_error, opts.quarantine)
            continue
        if index >= len(row):
            err = InputError(path, lineno, f"wrong columns: no column {index} in {len(row)} fields")
            handle(err, opts.on_error, opts.quarantine)
            continue
        extra = {}
        if header is not None:
            extra = {h: v for h, v in zip(header, row, strict=True) if h != header[index]}
        yield CorpusRecord(
            id=f"{key}:{lineno}", text=row[index], source=opts.source_for(path), extra=extra
        )
