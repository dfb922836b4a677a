"""NIKL 모두의 말뭉치 (the MODU corpus of the KLUE paper): one JSON object per file, read a
document at a time.

A file is ``{"id", "metadata", "document": [...]}``, often pretty-printed and up to hundreds
of MB (the newspaper corpus), so it is streamed with ijson: one document in memory at a time,
never the file. Some releases hold one document per file instead: ``"document"`` an object,
or the document's own ``id``, ``metadata`` and unit list at the top of the file; each is
read as that one document. Each document is one record; its text is its units' ``form``
fields, one per line (newlines are paragraph breaks for `corpus.sentences`), from the first
list it has of

- ``paragraph`` (newspaper, written, web, non-published corpora),
- ``utterance`` (spoken, dialogue, messenger and parliament corpora: one line per utterance,
  NIKL's event tags and inaudible marks removed, its de-identification placeholders such as
  ``&name&`` kept: `utterance_text`),
- ``sentence`` (the annotated corpora: morphology, named entities, parsing, ...).

Ids are ``<file key>:<document id>`` (NIKL's own ids, such as ``NWRW1800000021.1``, stable
across copies of the corpus). The document's ``title``, ``date``, ``topic`` and
``publisher`` are kept as extra fields; nothing about people (``author``, speakers'
age, sex, occupation) is carried into the records. A document without text (every form
empty) is counted as ``empty_document``; one that is malformed (no unit list, a form that is
not a string) is an `InputError` naming the file and the document's position, quarantined
in ``skip`` mode; broken JSON ends the file there (its documents before it are kept).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from corpus.readers.base import ReadOptions, file_key
from corpus.readers.json_array import records_of_items
from corpus.records import CorpusRecord
from corpus.textio import InputError, handle, open_binary

#: The lists of a document whose units' ``form`` is its text, in the order looked for.
UNIT_LISTS = ("paragraph", "utterance", "sentence")
#: Document metadata kept as extra fields (nothing about people).
KEPT_METADATA = ("title", "date", "topic", "publisher")
#: A metadata value that means "none" (spoken documents without a topic).
_NONE_VALUES = ("", "NA")
#: NIKL's marks inside utterances (spoken, dialogue, messenger and parliament corpora): an
#: event or attachment (``{laughing}``, ``{clearing}``, ``{emoji}``, ``{system: gift}``,
#: ``{share:photo}``, ``{censored}``) and an inaudible stretch (``((xx))``, ``(())``) are
#: not text; a guessed transcription (``((추정 전사))``) is, without its brackets.
_EVENT_TAG = re.compile(r"\{[a-z]+(?::\s*[a-z]+)?\}")
_INAUDIBLE = re.compile(r"\(\([xX\s]*\)\)")
_GUESSED = re.compile(r"\(\(([^()]+)\)\)")
_SPACES = re.compile(r"[ \t]{2,}")
#: How NIKL files show their layout in their first bytes (`layout`), and a NIKL document id
#: (``SBRW1900000001``: four capitals, then digits).
_DOCUMENT_LIST = re.compile(rb'"document"\s*:\s*\[')
_DOCUMENT_OBJECT = re.compile(rb'"document"\s*:\s*\{')
_UNIT_LIST = re.compile(rb'"(?:' + "|".join(UNIT_LISTS).encode() + rb')"\s*:\s*\[')
NIKL_ID = re.compile(r"[A-Z]{4}[0-9]{6}")
NIKL_ID_FIELD = re.compile(rb'"id"\s*:\s*"' + NIKL_ID.pattern.encode())


def utterance_text(form: str) -> str:
    """An utterance's words: NIKL's event tags and inaudible marks removed, guessed words
    unbracketed; its de-identification placeholders (``&name&``, ``&tel-num&``: NIKL's own
    pseudonymisation, no personal data left) kept as they are."""
    out = _GUESSED.sub(r"\1", _INAUDIBLE.sub(" ", _EVENT_TAG.sub(" ", form)))
    return _SPACES.sub(" ", out).strip()


def document_record(doc: object, path: str, n: int, opts: ReadOptions) -> CorpusRecord | str:
    """The record of the `n`-th document (1-based) of `path`, ``empty_document`` when it has
    no text; `InputError` when it is not a NIKL document."""
    where = f"document {n}"
    if not isinstance(doc, dict):
        raise InputError(path, None, f"wrong type: {where} is not a JSON object")
    key = next((k for k in UNIT_LISTS if isinstance(doc.get(k), list)), None)
    if key is None:
        raise InputError(path, None, f"missing field: {where} has no list among {UNIT_LISTS}")
    forms = []
    for unit in doc[key]:
        form = unit.get("form") if isinstance(unit, dict) else None
        if not isinstance(form, str):
            raise InputError(path, None, f"wrong type: a {key} of {where} has no string 'form'")
        form = utterance_text(form) if key == "utterance" else form.strip()
        if form:
            forms.append(form)
    if not forms:
        return "empty_document"
    meta = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
    extra = {
        k: meta[k]
        for k in KEPT_METADATA
        if isinstance(meta.get(k), str) and meta[k].strip() not in _NONE_VALUES
    }
    doc_id = doc.get("id") if isinstance(doc.get("id"), str) else str(n)
    return CorpusRecord(
        id=f"{file_key(path)}:{doc_id}",
        text="\n".join(forms),
        source=opts.source_for(path),
        extra=extra,
    )


def layout(head: bytes) -> str | None:
    """How a file holds its documents, from its first bytes: ``"list"`` (a ``"document"``
    list), ``"document"`` (one document as the ``"document"`` object: the parliament
    records), ``""`` (one document at the file's top, its units there); None for none."""
    if _DOCUMENT_LIST.search(head):
        return "list"
    if _DOCUMENT_OBJECT.search(head):
        return "document"
    return "" if _UNIT_LIST.search(head) else None


def _layout(path: str) -> str | None:
    with open_binary(path) as fh:
        return layout(fh.read(1 << 16))


def read(path: str, opts: ReadOptions) -> Iterator[CorpusRecord]:
    where = _layout(path)  # decided first: a broken file is read, and reported, once
    prefix = where if where in ("document", "") else "document.item"
    bad = opts.quarantine.total if opts.quarantine is not None else 0
    n = yield from records_of_items(path, opts, document_record, prefix, "document")
    reported = opts.quarantine is not None and opts.quarantine.total > bad
    if n == 0 and where is None and not reported:  # (an empty "list" is an empty file)
        err = InputError(path, None, "no documents: not a MODU file (no 'document' list)")
        handle(err, opts.on_error, opts.quarantine)
