"""STS (semantic textual similarity): ``klue-sts-v1.1_{train,dev}.json``.

A JSON array of ``{guid, source, sentence1, sentence2, labels: {label,
real-label, binary-label}, annotations}``. Train on and score against
``real-label`` (the mean annotator score, 0-5); ``binary-label`` is 1 exactly
when the score is >= 3.0 and feeds the F1 metric. The dev file has CRLF line
ends, which JSON parsing ignores.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from corpus.klue.files import FieldReader, SplitFile, iter_objects
from corpus.textio import OnError, Quarantine


@dataclass(frozen=True)
class StsExample:
    """A sentence pair with its similarity: `real_label` is the training and scoring target."""

    guid: str
    source: str
    sentence1: str
    sentence2: str
    label: float
    real_label: float
    binary_label: int
    annotations: dict[str, Any] | None = field(default=None, compare=False, hash=False)


def _parse(f: FieldReader) -> StsExample:
    labels = f.sub("labels")
    real = labels.number("real-label")
    if not 0.0 <= real <= 5.0:
        raise f.error(f"bad value: labels.real-label {real} outside 0..5")
    binary = labels.int("binary-label")
    if binary not in (0, 1):
        raise f.error(f"bad value: labels.binary-label {binary}")
    return StsExample(
        guid=f.str("guid"),
        source=f.str("source"),
        sentence1=f.str("sentence1"),
        sentence2=f.str("sentence2"),
        label=labels.number("label"),
        real_label=real,
        binary_label=binary,
        annotations=f.dict("annotations", optional=True),
    )


def read(
    source: SplitFile, *, on_error: OnError = "raise", quarantine: Quarantine | None = None
) -> Iterator[StsExample]:
    """Reads an official ``klue-sts-v1.1_<split>.json``."""
    return iter_objects(source, _parse, on_error=on_error, quarantine=quarantine)
