"""WikiExtractor output: ``<doc id=".." url=".." title="..">`` ... ``</doc>`` blocks.

One record per article. The first body line repeats the title and is dropped
(WikiExtractor writes it); paragraphs stay separated by ``\\n`` so sentence
splitting can use them. Ids are ``wiki-<doc id>``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from corpus.readers.base import ReadOptions
from corpus.records import CorpusRecord
from corpus.textio import InputError, handle

DOC_OPEN = re.compile(r'^<doc id="([^"]+)"(?: url="([^"]*)")?(?: title="([^"]*)")?[^>]*>\s*$')
DOC_CLOSE = "</doc>"


def _finish(doc: dict, lines: list[str], opts: ReadOptions, path: str) -> Iterator[CorpusRecord]:
    body = list(lines)
    if body and body[0].strip() == doc["title"].strip():
        body = body[1:]
    text = "\n".join(line for line in body if line.strip())
    if not text:
        opts.count("empty_document")
        return
    yield CorpusRecord(
        id=f"wiki-{doc['id']}",
        text=text,
        source=opts.source_for(path) if opts.source else "wikipedia",
        extra={"title": doc["title"], "url": doc["url"]},
    )


def read(path: str, opts: ReadOptions) -> Iterator[CorpusRecord]:
    doc: dict | None = None
    start = 0
    lines: list[str] = []
    for lineno, line in opts.lines(path):
        if line.startswith("<doc "):
            m = DOC_OPEN.match(line)
            if m is None:
                err = InputError(path, lineno, "malformed <doc> header")
            elif doc is not None:
                err = InputError(path, lineno, f"<doc> opened before </doc> of line {start}")
            else:
                doc = {"id": m.group(1), "url": m.group(2) or "", "title": m.group(3) or ""}
                start, lines = lineno, []
                continue
            # A broken header or missing close poisons the current article: drop it whole.
            handle(err, opts.on_error, opts.quarantine, line.encode("utf-8"))
            doc, lines = None, []
            continue
        if line.strip() == DOC_CLOSE:
            if doc is None:
                handle(
                    InputError(path, lineno, "</doc> without <doc>"), opts.on_error, opts.quarantine
                )
                continue
            yield from _finish(doc, lines, opts, path)
            doc, lines = None, []
            continue
        if doc is None:
            if line.strip():
                err = InputError(path, lineno, "text outside a <doc> block")
                handle(err, opts.on_error, opts.quarantine, line.encode("utf-8"))
            continue
        lines.append(line)
    if doc is not None:
        err = InputError(path, start, "truncated: <doc> never closed")
        handle(err, opts.on_error, opts.quarantine)
