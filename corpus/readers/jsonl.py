"""JSON Lines: our corpus records, or any JSON-lines file with a text field.

A line that already is a corpus record (``id``, ``text``, ``source`` strings)
is passed through unchanged. Otherwise the text comes from ``--text-field``
and the id from ``--id-field`` (else ``<file key>:<line>``); every other key
is kept in the record's extra fields. A text field holding a list of strings (a
document's sentences or paragraphs, as many datasets and Parquet list columns store
them) is the document: its items one per line, which `corpus.sentences` keeps apart.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from corpus.readers.base import ReadOptions, file_key
from corpus.records import REQUIRED_FIELDS, CorpusRecord
from corpus.textio import InputError, handle

#: Text fields tried, in order, when the caller names none.
DEFAULT_TEXT_FIELDS = ("text", "content", "review", "document", "sentence", "body")


def parse_object(line: str, path: str, lineno: int) -> dict:
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as e:
        raise InputError(path, lineno, f"malformed JSON: {e.msg} (column {e.colno})") from e
    if not isinstance(obj, dict):
        raise InputError(
            path, lineno, f"wrong type: expected a JSON object, got {type(obj).__name__}"
        )
    return obj


def document_text(value: object) -> str | None:
    """A text field's text: a string, or a list of strings as lines; None for anything else."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(t, str) for t in value):
        return "\n".join(value)
    return None


def _text_field(obj: dict, opts: ReadOptions, path: str, lineno: int) -> str:
    if opts.text_field is not None:
        return opts.text_field
    for name in DEFAULT_TEXT_FIELDS:
        if name in obj:
            return name
    raise InputError(path, lineno, f"missing field: no text field among {sorted(obj)}")


def to_record(obj: dict, path: str, lineno: int, opts: ReadOptions) -> CorpusRecord:
    """Turns one parsed JSON object into a record, or raises `InputError` saying why not."""
    if opts.text_field is None and all(isinstance(obj.get(k), str) for k in REQUIRED_FIELDS):
        return CorpusRecord.from_dict(obj)
    name = _text_field(obj, opts, path, lineno)
    if name not in obj:
        raise InputError(path, lineno, f"missing field: {name!r}")
    text = document_text(obj[name])
    if text is None:
        raise InputError(
            path, lineno, f"wrong type: field {name!r} must be a string or a list of strings"
        )
    if opts.id_field is not None:
        if opts.id_field not in obj:
            raise InputError(path, lineno, f"missing field: {opts.id_field!r}")
        rid = f"{file_key(path)}:{obj[opts.id_field]}"
    elif isinstance(obj.get("id"), str):
        rid = obj["id"]
    else:
        rid = f"{file_key(path)}:{lineno}"
    source = obj["source"] if isinstance(obj.get("source"), str) else opts.source_for(path)
    extra = {k: v for k, v in obj.items() if k not in (name, "id", "source")}
    return CorpusRecord(id=rid, text=text, source=opts.source or source, extra=extra)


def read(path: str, opts: ReadOptions) -> Iterator[CorpusRecord]:
    for lineno, line in opts.lines(path):
        if not line.strip():
            opts.count("blank_line")
            continue
        try:
            yield to_record(parse_object(line, path, lineno), path, lineno, opts)
        except InputError as e:
            handle(e, opts.on_error, opts.quarantine, line.encode("utf-8"))
