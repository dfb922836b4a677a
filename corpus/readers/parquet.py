"""Parquet tables (how Hugging Face datasets ship Korean corpora: NamuWiki, news, web crawls)
and Arrow IPC files (``*.arrow``: what `datasets` keeps in its cache and `save_to_disk`
folders): a record per row, read a batch at a time.

The text is ``--text-field`` or the first of the usual text columns (as for JSON Lines:
`corpus.readers.jsonl.DEFAULT_TEXT_FIELDS`); the id ``--id-field``'s value, else an ``id``
column that is a string, else ``<file key>:<row number>`` (1-based); the other columns are
kept as extra fields when JSON can hold them (strings, numbers, booleans, lists, maps;
timestamps and bytes become strings). A list-of-strings text column is a document of
those lines (as in JSON). A row whose text is missing or not text is an
`InputError` naming the file and the row; an empty text is counted as ``empty_document``.
Only plain (not compressed-as-a-whole) files: Parquet compresses its own pages. A table with
the NamuWiki dump's columns (``title``, ``text``, ``namespace``, ``contributors``: the Hugging
Face copies of the dump) is read as the dump is: articles only, markup made prose, the
contributors never read.
"""

from __future__ import annotations

import datetime
import decimal
from collections.abc import Iterator

from corpus.readers.base import ReadOptions
from corpus.readers.json_array import records_from
from corpus.readers.jsonl import DEFAULT_TEXT_FIELDS, document_text, to_record
from corpus.readers.namuwiki import article_record
from corpus.records import CorpusRecord
from corpus.textio import ARROW_FILE_MAGIC, InputError, handle, table_kind

#: Rows per batch read (bounded memory whatever the file's size).
BATCH_ROWS = 1024
#: The NamuWiki dump's columns, as Hugging Face copies of it ship (heegyu/namuwiki): such a
#: table is read as the dump is, not as plain rows (`_articles`).
NAMUWIKI_COLUMNS = frozenset({"title", "text", "namespace", "contributors"})


def _jsonable(value: object) -> object:
    """A column value as JSON can hold it."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, datetime.date | datetime.time | decimal.Decimal):
        return str(value)
    return value


def _text_column(names: list[str], opts: ReadOptions, path: str) -> str:
    if opts.text_field is not None:
        if opts.text_field not in names:
            raise InputError(path, None, f"missing field: no column {opts.text_field!r}")
        return opts.text_field
    for name in DEFAULT_TEXT_FIELDS:
        if name in names:
            return name
    raise InputError(path, None, f"missing field: no text column among {sorted(names)}")


class _Table:
    """A Parquet file, or an Arrow IPC file or stream, as column names and batches of rows."""

    def __init__(self, path: str):
        import pyarrow as pa
        import pyarrow.parquet as pq

        self.path = path
        self.kind = table_kind(path)
        try:
            if self.kind != "arrow":  # (and a file of neither kind given as --format parquet)
                self._parquet = pq.ParquetFile(path)
                self.names = self._parquet.schema_arrow.names
            else:
                with open(path, "rb") as fh:
                    file_format = fh.read(len(ARROW_FILE_MAGIC)) == ARROW_FILE_MAGIC
                self._open_arrow = pa.ipc.open_file if file_format else pa.ipc.open_stream
                with pa.OSFile(path) as f:
                    self.names = self._open_arrow(f).schema.names
        except Exception as e:  # pyarrow's ArrowInvalid and OSError for a broken file
            what = "Arrow" if self.kind == "arrow" else "Parquet"
            raise InputError(path, None, f"not a readable {what} file: {e}") from e

    def _batches(self, columns: list[str] | None) -> Iterator:
        import pyarrow as pa

        if self.kind != "arrow":
            yield from self._parquet.iter_batches(batch_size=BATCH_ROWS, columns=columns)
            return
        with pa.OSFile(self.path) as f:
            reader = self._open_arrow(f)
            batches = (
                map(reader.get_batch, range(reader.num_record_batches))
                if isinstance(reader, pa.ipc.RecordBatchFileReader)
                else reader
            )
            for batch in batches:
                yield batch.select(columns) if columns else batch

    def rows(
        self, opts: ReadOptions, columns: list[str] | None = None
    ) -> Iterator[tuple[int, dict]]:
        """``(row number, row)`` with the row a dict of `columns` (all by default), 1-based, a
        batch in memory at a time, each counted as a line read. A file that breaks off
        (truncated, corrupt) ends there: an `InputError` naming the rows read, raised or
        quarantined as `opts` says."""
        import pyarrow as pa

        n = 0
        try:
            for batch in self._batches(columns):
                for values in batch.to_pylist():
                    n += 1
                    if opts.quarantine is not None:
                        opts.quarantine.lines += 1
                    yield n, values
        except (pa.ArrowInvalid, OSError) as e:
            reason = str(e).splitlines()[0][:200] if str(e) else type(e).__name__
            err = InputError(
                self.path, None, f"malformed table after row {n}: {reason}; the rest of the "
                f"file is unreadable ({n} rows read)",
            )  # fmt: skip
            handle(err, opts.on_error, opts.quarantine)


def read(path: str, opts: ReadOptions, namuwiki: bool = False) -> Iterator[CorpusRecord]:
    """The records of a table: its rows, or its articles when it is the NamuWiki dump (its
    columns, no ``--text-field``) or `namuwiki` says so (``--format namuwiki``)."""
    table = _Table(path)
    names = table.names
    if namuwiki or (opts.text_field is None and NAMUWIKI_COLUMNS <= {*names}):
        yield from _articles(table, names, path, opts)
        return
    text_col = _text_column(names, opts, path)
    if opts.id_field is not None and opts.id_field not in names:
        raise InputError(path, None, f"missing field: no column {opts.id_field!r}")

    def row_record(values: dict, path: str, row: int, opts: ReadOptions) -> CorpusRecord | str:
        text = document_text(values.get(text_col))
        if text is None:
            raise InputError(
                path, None, f"wrong type: row {row}: {text_col!r} is not text (a string "
                "or a list of strings)",
            )  # fmt: skip
        if not text.strip():
            return "empty_document"
        # the id, source and extra fields chosen as for a JSON Lines object
        fields = {k: _jsonable(v) for k, v in values.items()} | {text_col: text}
        return to_record(fields, path, row, opts)

    yield from records_from(table.rows(opts), path, opts, row_record)


def _articles(
    table: _Table, names: list[str], path: str, opts: ReadOptions
) -> Iterator[CorpusRecord]:
    """The NamuWiki dump's articles as `corpus.readers.namuwiki` makes them (namespace 0, no
    redirects, markup made prose), reading only the title, text and namespace columns: the
    contributors (user names, IP addresses) are never read."""
    columns = sorted(NAMUWIKI_COLUMNS - {"contributors"})
    missing = [c for c in columns if c not in names]
    if missing:
        raise InputError(path, None, f"missing field: not a NamuWiki table (no {missing[0]!r})")
    yield from records_from(table.rows(opts, columns), path, opts, article_record)
