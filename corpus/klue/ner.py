"""NER (named entities, character level): ``klue-ner-v1.1_{train,dev}.tsv``.

After the ``##`` comment lines, each sentence is a header
``## <guid>\\t<sentence with inline <text:TAG> marks>``, one row
``<char>\\t<tag>`` per CHARACTER (spaces included: ``" \\tO"``), and a blank
line. Tags are B-/I- of PS, LC, OG, DT, TI, QT, plus O. `NerSentence.sentence`
is the characters joined, so ``len(tags) == len(sentence)`` always holds.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from corpus.klue.blocks import Block, iter_parsed
from corpus.klue.files import SplitFile
from corpus.textio import OnError, Quarantine

ENTITY_TYPES = ("PS", "LC", "OG", "DT", "TI", "QT")
#: Tag order of the KLUE baseline.
TAGS = tuple(f"{p}-{t}" for t in ("DT", "LC", "OG", "PS", "QT", "TI") for p in "BI") + ("O",)


@dataclass(frozen=True)
class NerSentence:
    guid: str
    sentence: str  # the characters joined (the header's text without the marks)
    tagged: str  # the header's text with the <text:TAG> marks
    tags: tuple[str, ...]  # one per character of `sentence`

    @property
    def chars(self) -> tuple[str, ...]:
        return tuple(self.sentence)

    def entities(self) -> list[tuple[int, int, str]]:
        """``(start, end_exclusive, type)`` spans of the BIO tags; a stray I- starts a span."""
        out: list[tuple[int, int, str]] = []
        start, kind = None, None
        for i, tag in enumerate((*self.tags, "O")):
            prefix, _, t = tag.partition("-")
            if kind is not None and (prefix != "I" or t != kind):
                out.append((start, i, kind))
                start, kind = None, None
            if prefix == "B" or (prefix == "I" and kind is None):
                start, kind = i, t
        return out


def _parse(block: Block) -> NerSentence:
    chars, tags = [], []
    for lineno, row in block.rows:
        fields = row.split("\t")
        if len(fields) != 2:
            raise block.error(
                lineno,
                f"wrong columns: expected 2 tab-separated fields (char, tag), got {len(fields)}",
            )
        char, tag = fields
        if len(char) != 1:
            raise block.error(lineno, f"bad value: {char!r} is not one character")
        if tag not in TAGS:
            raise block.error(lineno, f"unknown label: NER tag {tag!r}")
        chars.append(char)
        tags.append(tag)
    return NerSentence(block.guid, "".join(chars), block.text, tuple(tags))


def read(
    source: SplitFile, *, on_error: OnError = "raise", quarantine: Quarantine | None = None
) -> Iterator[NerSentence]:
    return iter_parsed(source, _parse, on_error=on_error, quarantine=quarantine)
