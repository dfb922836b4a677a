"""CSV and TSV by column.

TSV is read with quoting off (tabs never appear inside a field); CSV uses the
standard quoting rules, so a quoted field may span lines. The first row is a
header when the column is given by name; a row with the wrong number of
columns is bad input. Ids are ``<file key>:<line of the row's start>``.
Without ``--column``, the header's first usual text column (`TEXT_COLUMNS`: NSMC's
``document``, the hate-speech set's ``comments``, AI Hub's ``본문``/``내용``/``문장``) is the
text, as the JSON readers choose theirs; a header without one is an error giving its width.
Several columns joined by commas (``--column Q,A``: a question and its answer, a premise and
its hypothesis) make one record whose lines are those cells, in that order.
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


def indices_without_header(column: str | int | None) -> list[int] | None:
    """The 0-based positions `column` gives when it names no header (``2``, ``"0,2"``), else
    None (a header name, several, or nothing: the header decides)."""
    if isinstance(column, int):
        return [column]
    parts = [p.strip() for p in str(column).split(",")] if column is not None else []
    return [int(p) for p in parts] if parts and all(p.isdigit() for p in parts) else None


def column_indices(header: list[str], column: str | None, path: str, lineno: int) -> list[int]:
    """The text columns' positions in `header`: `column`'s (a name, or several joined by
    commas: ``Q,A``; a name that holds a comma itself is taken whole first), or the first of
    `TEXT_COLUMNS` (names compared without surrounding spaces). Errors give the header's
    width, never its fields: a file without a header would put its first row's text there."""
    names = [h.strip() for h in header]
    if column is not None:
        wanted = [column.strip()] if column.strip() in names else column.split(",")
        missing = [w.strip() for w in wanted if w.strip() not in names]
        if missing:
            raise InputError(
                path, lineno, f"wrong columns: no column {missing[0]!r} in the first line's "
                f"{len(header)} fields (is it a header?)",
            )  # fmt: skip
        return [names.index(w.strip()) for w in wanted]
    name = next((c for c in TEXT_COLUMNS if c in names), None)
    if name is None:
        raise InputError(
            path, None, f"the table needs --column (a header name or a 0-based index): the "
            f"first line's {len(header)} fields name no usual text column "
            f"({', '.join(TEXT_COLUMNS)})",
        )  # fmt: skip
    return [names.index(name)]


def row_text(row: list[str], indices: list[int]) -> str:
    """The text of a row: its one text cell as it is, or several non-blank cells as lines."""
    if len(indices) == 1:
        return row[indices[0]]
    return "\n".join(row[i] for i in indices if row[i].strip())


def read(path: str, opts: ReadOptions, delimiter: str) -> Iterator[CorpusRecord]:
    rows = _rows(path, opts, delimiter)
    header: list[str] | None = None
    indices = indices_without_header(opts.column)
    if indices is None:
        first = next(rows, None)
        if first is None:
            return
        header = first[1]
        indices = column_indices(header, opts.column, path, first[0])
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
        if max(indices) >= len(row):
            err = InputError(
                path, lineno, f"wrong columns: no column {max(indices)} in {len(row)} fields"
            )
            handle(err, opts.on_error, opts.quarantine)
            continue
        extra = {}
        if header is not None:
            extra = {h: v for i, (h, v) in enumerate(zip(header, row, strict=True))
                     if i not in indices}  # fmt: skip
        yield CorpusRecord(
            id=f"{key}:{lineno}", text=row_text(row, indices), source=opts.source_for(path),
            extra=extra,
        )  # fmt: skip
