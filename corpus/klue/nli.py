"""NLI (natural language inference): ``klue-nli-v1.1_{train,dev}.json``.

A JSON array of ``{guid, premise, hypothesis, gold_label, author,
label2..label5}`` plus the text source, which is keyed **``genre``** in train
but **``source``** in dev; both land in `NliExample.source`. The official
archive also holds ``klue-nli-v1.1_dev_sample_10.json`` (the first 10 dev
examples), readable as split ``dev_sample_10``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from corpus.klue.files import FieldReader, SplitFile, iter_objects
from corpus.textio import OnError, Quarantine

#: Label order of the KLUE baseline (the gold labels are strings).
LABELS = ("entailment", "neutral", "contradiction")


@dataclass(frozen=True)
class NliExample:
    """A premise/hypothesis pair; `annotator_labels` are author, label2..label5 (5 votes)."""

    guid: str
    premise: str
    hypothesis: str
    gold_label: str
    source: str
    annotator_labels: tuple[str, ...] = ()

    @property
    def label_id(self) -> int:
        return LABELS.index(self.gold_label)


def _parse(f: FieldReader) -> NliExample:
    gold = f.str("gold_label")
    if gold not in LABELS:
        raise f.error(f"unknown label: gold_label {gold!r} (expected one of {', '.join(LABELS)})")
    source = f.str("source", optional=True)
    if source is None:
        source = f.str("genre", optional=True)
    if source is None:
        raise f.error("missing field: 'source' (dev) or 'genre' (train)")
    votes = (f.str(k, optional=True) for k in ("author", "label2", "label3", "label4", "label5"))
    return NliExample(
        guid=f.str("guid"),
        premise=f.str("premise"),
        hypothesis=f.str("hypothesis"),
        gold_label=gold,
        source=source,
        annotator_labels=tuple(v for v in votes if v is not None),
    )


def read(
    source: SplitFile, *, on_error: OnError = "raise", quarantine: Quarantine | None = None
) -> Iterator[NliExample]:
    """Reads an official ``klue-nli-v1.1_<split>.json``."""
    return iter_objects(source, _parse, on_error=on_error, quarantine=quarantine)
