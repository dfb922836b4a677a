"""The NamuWiki dump (the KLUE paper's NAMUWIKI corpus): one JSON array of articles
``{"namespace", "title", "text", "contributors"}``, several GB, read an article at a time.

Only articles (namespace 0: not templates, categories, files, user or project pages) are
records, redirects are not; the rest are counted in the stage's ``reader_skipped``
(``other_namespace``, ``redirect``, ``empty_document``). The text is the article's markup
made prose by `corpus.namumark`; the title is kept as an extra field, the contributors
(user names and IP addresses) are not. Ids are ``<file key>:<title>`` (titles are unique
among articles). Errors name the article's position in the array, as for `json_array`.
The Hugging Face copies of the dump (Parquet or Arrow, the same columns) are read the same way
(`corpus.readers.parquet`).
"""

from __future__ import annotations

from collections.abc import Iterator

from corpus.array_shards import range_stream
from corpus.namumark import is_redirect, namumark_text
from corpus.readers.base import ReadOptions, file_key
from corpus.readers.json_array import records_of_items
from corpus.records import CorpusRecord
from corpus.textio import InputError, table_kind


def article_record(obj: object, path: str, n: int, opts: ReadOptions) -> CorpusRecord | str:
    """The record of the `n`-th article, or why it is skipped (a ``reader_skipped`` reason);
    `InputError` when it is not a NamuWiki article."""
    if not isinstance(obj, dict) or not isinstance(obj.get("text", 0), str | None):
        raise InputError(path, None, f"missing field: element {n} has no string 'text'")
    if not obj["text"]:  # null or empty: an article with nothing in it
        return "empty_document"
    if str(obj.get("namespace", "0")) != "0":
        return "other_namespace"
    if is_redirect(obj["text"]):
        return "redirect"
    text = namumark_text(obj["text"])
    if not text:
        return "empty_document"
    title = obj.get("title") if isinstance(obj.get("title"), str) else str(n)
    return CorpusRecord(
        id=f"{file_key(path)}:{title}",
        text=text,
        source=opts.source or "namuwiki",
        extra={"title": title},
    )


def read(path: str, opts: ReadOptions) -> Iterator[CorpusRecord]:
    if table_kind(path) is not None:  # a Hugging Face copy of the dump
        from corpus.readers import parquet

        yield from parquet.read(path, opts, namuwiki=True)
        return
    # a range of a dump cut between its elements (`corpus.array_shards`), or the whole file
    source = range_stream(path, opts.byte_range) if opts.byte_range is not None else None
    yield from records_of_items(path, opts, article_record, source=source)
