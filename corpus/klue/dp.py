"""DP (dependency parsing with POS): ``klue-dp-v1.1_{train,dev}.tsv``.

After the ``##`` comment lines, each sentence is a header ``## <guid>\\t<sentence>``,
one row per word (eojeol) ``INDEX WORD_FORM LEMMA POS HEAD DEPREL`` (tab
separated), and a blank line. LEMMA holds the morphemes separated by spaces,
POS their tags joined by ``+``; HEAD 0 is the root. In a few words the two
counts differ (``3%`` has LEMMA ``0`` and POS ``SN+SW`` in dev): such words are
kept as they are and `DpWord.morphemes` returns None for them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from corpus.klue.blocks import Block, iter_parsed
from corpus.klue.files import SplitFile
from corpus.textio import OnError, Quarantine


@dataclass(frozen=True)
class DpWord:
    index: int
    word_form: str
    lemma: str
    pos: str
    head: int
    deprel: str

    def morphemes(self) -> list[tuple[str, str]] | None:
        """``[(morpheme, tag), ...]``, or None when LEMMA and POS counts differ."""
        forms, tags = self.lemma.split(" "), self.pos.split("+")
        return list(zip(forms, tags, strict=True)) if len(forms) == len(tags) else None


@dataclass(frozen=True)
class DpSentence:
    guid: str
    sentence: str
    words: tuple[DpWord, ...]

    @property
    def heads(self) -> list[int]:
        return [w.head for w in self.words]

    @property
    def deprels(self) -> list[str]:
        return [w.deprel for w in self.words]


def _parse(block: Block) -> DpSentence:
    words = []
    n = len(block.rows)
    for lineno, row in block.rows:
        fields = row.split("\t")
        if len(fields) != 6:
            raise block.error(
                lineno,
                f"wrong columns: expected 6 tab-separated fields "
                f"(INDEX WORD_FORM LEMMA POS HEAD DEPREL), got {len(fields)}",
            )
        try:
            index, head = int(fields[0]), int(fields[4])
        except ValueError:
            raise block.error(lineno, "bad value: INDEX and HEAD must be integers") from None
        if index != len(words) + 1:
            raise block.error(lineno, f"bad value: INDEX {index}, expected {len(words) + 1}")
        if not 0 <= head <= n:
            raise block.error(lineno, f"bad value: HEAD {head} outside 0..{n}")
        words.append(DpWord(index, fields[1], fields[2], fields[3], head, fields[5]))
    return DpSentence(block.guid, block.text, tuple(words))


def read(
    source: SplitFile, *, on_error: OnError = "raise", quarantine: Quarantine | None = None
) -> Iterator[DpSentence]:
    return iter_parsed(source, _parse, on_error=on_error, quarantine=quarantine)
