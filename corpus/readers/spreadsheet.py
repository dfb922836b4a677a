"""Excel workbooks (``.xlsx``/``.xlsm``): AI Hub ships many Korean corpora so (parallel
corpora, dialogue and domain collections), and before this reader a workbook was refused as
a ZIP archive. Read with openpyxl in read-only mode, a row at a time.

Every sheet is read in order; its first row is its header, and the text column is
``--column`` (a header name, a 0-based index, or several joined by commas) or the header's
first usual text column (`corpus.readers.tabular.TEXT_COLUMNS`), as for CSV and TSV. A row
is a record with id ``<file key>:<sheet>:<row number>`` (1-based, as Excel numbers them);
the other columns are kept as extra fields (numbers as they are, dates as ISO strings); a
row whose text cells are empty is counted as ``blank_line``; a sheet without the column is
an error naming the file and the sheet (its header's width, never its fields), or with
``--on-error skip`` a sheet left out and counted in the quarantine.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator

from corpus.readers.base import ReadOptions, file_key
from corpus.readers.tabular import column_indices, indices_without_header, row_text
from corpus.records import CorpusRecord
from corpus.textio import InputError, handle


def _cell(value: object) -> object:
    """A cell as JSON can hold it: text and numbers as they are, dates as ISO strings."""
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    return value


def _text(value: object) -> str:
    return "" if value is None else str(value)


def read(path: str, opts: ReadOptions) -> Iterator[CorpusRecord]:
    import openpyxl

    try:
        book = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except Exception as e:  # zipfile.BadZipFile, KeyError, InvalidFileException
        raise InputError(path, None, f"not a readable Excel workbook: {e}") from e
    key = file_key(path)
    try:
        for sheet in book.worksheets:
            yield from _sheet_records(sheet, key, path, opts)
    finally:
        book.close()


def _sheet_records(sheet, key: str, path: str, opts: ReadOptions) -> Iterator[CorpusRecord]:
    rows = sheet.iter_rows(values_only=True)
    header = next(rows, None)
    if header is None:
        return
    names = [_text(h) for h in header]
    where = f"{path} (sheet {sheet.title!r})"
    indices = indices_without_header(opts.column)
    if indices is None:
        try:
            indices = column_indices(names, opts.column, where, 1)
        except InputError as e:  # this sheet is skipped (and counted) in skip mode
            handle(e, opts.on_error, opts.quarantine)
            return
    for number, row in enumerate(rows, 2):
        if opts.quarantine is not None:
            opts.quarantine.lines += 1
        cells = [_text(row[i]) if i < len(row) else "" for i in range(max(indices) + 1)]
        text = row_text(cells, indices)
        if not text.strip():
            opts.count("blank_line")
            continue
        extra = {
            n: _cell(v)
            for i, (n, v) in enumerate(zip(names, row, strict=False))
            if i not in indices
        }
        yield CorpusRecord(
            id=f"{key}:{sheet.title}:{number}", text=text, source=opts.source_for(path),
            extra=extra,
        )  # fmt: skip
