"""Sentence blocks of the KLUE TSV files (NER and DP), streamed line by line.

Both files start with ``##`` comment lines, then for each sentence a header
``## <guid>\\t<sentence>`` followed by one tab-separated row per character (NER)
or word (DP), and a blank line. A header is a ``## `` line with a tab whose
first field (the guid) has no white space; any other ``##`` line is a comment
(the NER comment ``## 칼럼명 : CHAR\\tNE_TAG`` has a tab too, but spaces before it).

Rows are never stripped: in NER a space character is the row ``" \\tO"``.
In ``skip`` mode a bad row drops its whole sentence (a sentence with a missing
character would misalign every tag after it); the bad line is quarantined
and the dropped sentence counted as ``dropped sentence``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TypeVar

from corpus.klue.files import SplitFile
from corpus.textio import InputError, OnError, Quarantine, handle

T = TypeVar("T")


@dataclass
class Block:
    """One sentence: its header and its rows as ``(line_number, text)``."""

    source: str
    line: int
    guid: str
    text: str
    rows: list[tuple[int, str]]
    damaged: bool = False  # a line inside it was quarantined by the line checks

    def error(self, line: int | None, reason: str) -> InputError:
        return InputError(self.source, line if line is not None else self.line, reason)


def parse_header(line: str) -> tuple[str, str] | None:
    """``## <guid>\\t<text>`` -> ``(guid, text)``; None for a comment line."""
    if not line.startswith("## ") or "\t" not in line:
        return None
    guid, text = line[3:].split("\t", 1)
    if not guid or any(c.isspace() for c in guid):
        return None
    return guid, text


def iter_blocks(
    source: SplitFile, *, on_error: OnError = "raise", quarantine: Quarantine | None = None
) -> Iterator[Block]:
    """Yields the sentence blocks of a KLUE TSV file in order."""
    block: Block | None = None
    last = 0
    seen_any = False
    for lineno, line in source.lines(on_error=on_error, quarantine=quarantine):
        seen_any = True
        gap = lineno != last + 1  # a line was quarantined (skip mode) just before this one
        last = lineno
        if gap and block is not None:
            block.damaged = True
        if line.startswith("##"):
            header = parse_header(line)
            if header is None:
                continue  # comment
            if block is not None:
                if not block.rows:
                    handle(
                        block.error(None, "empty sentence: header without rows"),
                        on_error,
                        quarantine,
                    )
                else:
                    yield block
            block = Block(source.name, lineno, header[0], header[1], [])
            continue
        if not line.strip(" ") and "\t" not in line:  # blank line: end of sentence
            if block is not None:
                if block.rows:
                    yield block
                else:
                    err = block.error(None, "empty sentence: header without rows")
                    handle(err, on_error, quarantine)
                block = None
            continue
        if block is None:
            err = InputError(source.name, lineno, "row outside a sentence: no '## <guid>' header")
            handle(err, on_error, quarantine, line.encode("utf-8"))
            continue
        block.rows.append((lineno, line))
    if block is not None:
        if block.rows:
            yield block
        else:
            handle(block.error(None, "empty sentence: header without rows"), on_error, quarantine)
    if not seen_any:
        raise InputError(source.name, None, "empty file: no sentences")


def iter_parsed(
    source: SplitFile,
    parse: Callable[[Block], T],
    *,
    on_error: OnError = "raise",
    quarantine: Quarantine | None = None,
) -> Iterator[T]:
    """Parses each block; in ``skip`` mode a bad or damaged block is dropped and counted."""
    for block in iter_blocks(source, on_error=on_error, quarantine=quarantine):
        if block.damaged:
            err = block.error(None, f"dropped sentence: {block.guid} lost a quarantined line")
            handle(err, on_error, quarantine)
            continue
        try:
            yield parse(block)
        except InputError as e:
            handle(e, on_error, quarantine)
            if quarantine is not None and on_error == "skip":
                quarantine.add(block.error(None, f"dropped sentence: {block.guid}"))
