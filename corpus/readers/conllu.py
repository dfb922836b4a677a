"""CoNLL-U, the Universal Dependencies treebanks' format (UD Korean GSD, Kaist, PUD): a record
per sentence.

Read as plain text, a treebank would give every token row (``1<TAB>제일<TAB>제일<TAB>ADV...``)
and every comment as a "sentence" of the corpus. Here each sentence block (its comment
lines, its token rows, a blank line) is one record whose text is the ``# text = ...``
comment, or, for a block without one (or with an empty one), its words joined as the MISC column's
``SpaceAfter=No`` says (a multiword token ``1-2`` gives its surface form and its parts
nothing; an empty node ``1.1`` nothing). The id is ``<file key>:<sent_id>`` (else
``<file key>:<line of the block's first line>``); a ``# newdoc id = X`` comment makes X the
``doc_id`` of the sentences after it, so that `pretrain.build_data` keeps a document's
sentences together. Other comments (``translit``, ``text_en``) are left out. A token row
without CoNLL-U's ten tab-separated columns is bad input, named by file and line (raised,
or quarantined and counted with ``--on-error skip``); the sentence keeps its other rows.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from corpus.readers.base import ReadOptions, file_key
from corpus.records import CorpusRecord
from corpus.textio import InputError, handle

#: A first line that only CoNLL-U files start with (for ``--format auto`` without the suffix).
FIRST_LINE = re.compile(r"#\s*(?:sent_id|newdoc id)\s*=")
#: Columns of a token row: ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC.
COLUMNS = 10
#: A word id: ``3``, a multiword token's range ``1-2``, an empty node ``3.1``.
_WORD_ID = re.compile(r"\d+(?:[-.]\d+)?")


@dataclass
class _Block:
    """One sentence block being read."""

    first_line: int = 0
    sent_id: str | None = None
    text: str | None = None
    words: list[str] = field(default_factory=list)
    #: The last word id a multiword token covers (its parts add nothing).
    covered_to: int = 0

    def add_row(self, cols: list[str]) -> None:
        wid, form, misc = cols[0], cols[1], cols[9]
        space = "" if "SpaceAfter=No" in misc.split("|") else " "
        if "-" in wid:  # a multiword token: its surface form stands for its parts
            self.covered_to = int(wid.split("-")[1])
            self.words.append(form + space)
        elif "." not in wid and int(wid) > self.covered_to:  # not an empty node, not a part
            self.words.append(form + space)

    def sentence(self) -> str:
        return self.text if self.text else "".join(self.words).strip()


def _row(line: str, path: str, lineno: int) -> list[str]:
    cols = line.split("\t")
    wid = cols[0]
    if len(cols) != COLUMNS or not _WORD_ID.fullmatch(wid):
        raise InputError(
            path, lineno, f"wrong columns: a CoNLL-U token row has {COLUMNS} tab-separated "
            f"columns starting with a word id, this one {len(cols)}",
        )  # fmt: skip
    return cols


def read(path: str, opts: ReadOptions) -> Iterator[CorpusRecord]:
    key = file_key(path)
    doc_id: str | None = None
    block: _Block | None = None

    def record(b: _Block) -> CorpusRecord | None:
        text = b.sentence()
        if not text:
            opts.count("empty_sentence")
            return None
        rid = f"{key}:{b.sent_id}" if b.sent_id else f"{key}:{b.first_line}"
        extra = {"doc_id": doc_id} if doc_id is not None else {}
        return CorpusRecord(id=rid, text=text, source=opts.source_for(path), extra=extra)

    for lineno, line in opts.lines(path):
        if not line.strip():
            if block is not None and (rec := record(block)) is not None:
                yield rec
            block = None
            continue
        block = block or _Block(first_line=lineno)
        if line.startswith("#"):
            name, sep, value = line[1:].partition("=")
            name, value = name.strip(), value.strip()
            if name.startswith("newdoc"):  # this block and the ones after it
                doc_id = value if sep and value else f"{key}:{lineno}"
            elif sep and name == "sent_id":
                block.sent_id = value
            elif sep and name == "text":
                block.text = value
            continue
        try:
            block.add_row(_row(line, path, lineno))
        except InputError as e:
            handle(e, opts.on_error, opts.quarantine, line.encode("utf-8"))
    if block is not None and (rec := record(block)) is not None:
        yield rec
