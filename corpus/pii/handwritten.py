"""Sentences written by hand in the shapes of issue #24, labelled by hand: precision and recall.

    python -m corpus.pii.handwritten tests/fixtures/pii/handwritten.jsonl

The generated real-style set (`corpus.pii.realstyle`) fills a few frames per form
with random values, so it says the shapes are covered but repeats its own wording.
This set is the other half of the check: about 16 sentences per form of the eight
forms, each written on its own (petition, post and message wording, the value at
different places, with different particles and words around it), plus negatives
that hold the numbers these forms are confused with. Every value is invented. It
was written after the detectors, by the same hand, so it is not blind; docs/pii.md
reports it as such.

The file is JSON lines: ``{"form": ..., "text": ..., "values": [...]}``; every
occurrence of each listed value in the text is a gold span, except one that lies
inside another (the bare ``역삼동 622`` inside ``서울 강남구 역삼동 622``).
``form`` is one of `corpus.pii.realstyle.FORMS`, or ``negative`` (no values).

Recall: the share of gold spans that one replaced span covers whole (through
`Pseudonymizer.apply`, so the no-copy rule counts). Precision: the share of replaced
spans in a form's sentences that overlap a gold span. Negatives: sentences changed.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from corpus.pii.generate import Pseudonymizer
from corpus.pii.realstyle import FORMS, Case

NEGATIVE = "negative"


def _gold_spans(text: str, values: list[str]) -> tuple[tuple[int, int], ...]:
    """Every occurrence of every value, less those inside another occurrence."""
    spans = set()
    for value in values:
        at = text.find(value)
        while at >= 0:
            spans.add((at, at + len(value)))
            at = text.find(value, at + 1)
    inner = {a for a in spans for b in spans if a != b and b[0] <= a[0] and a[1] <= b[1]}
    return tuple(sorted(spans - inner))


def load(path: str | Path) -> list[Case]:
    """The sentences of `path`; a bad line is an error naming the file and the line."""
    out = []
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            try:
                row = json.loads(line)
                form, text, values = row["form"], row["text"], row["values"]
            except (ValueError, KeyError, TypeError) as err:
                raise ValueError(f"{path}:{n}: not a labelled sentence ({err})") from err
            if form not in FORMS and form != NEGATIVE:
                raise ValueError(f"{path}:{n}: unknown form {form!r}")
            missing = [v for v in values if v not in text]
            if missing or (form == NEGATIVE) != (not values):
                raise ValueError(f"{path}:{n}: values {missing or values} do not fit the text")
            out.append(Case(form, text, _gold_spans(text, values), repeated=len(values) > 1))
    return out


def evaluate(path: str | Path, pz: Pseudonymizer | None = None) -> dict:
    """Per form: gold, found, replaced and correct spans; negatives read and changed."""
    pz = pz or Pseudonymizer(seed=7)
    out: dict = {form: {"gold": 0, "found": 0, "replaced": 0, "correct": 0} for form in FORMS}
    out[NEGATIVE] = {"read": 0, "changed": 0}
    for sentence in load(path):
        new, spans = pz.apply(sentence.text)
        if sentence.form == NEGATIVE:
            out[NEGATIVE]["read"] += 1
            out[NEGATIVE]["changed"] += new != sentence.text
            continue
        row = out[sentence.form]
        row["gold"] += len(sentence.gold)
        row["found"] += sum(
            any(sp.start <= s and e <= sp.end for sp in spans) for s, e in sentence.gold
        )
        row["replaced"] += len(spans)
        row["correct"] += sum(
            any(sp.start < e and s < sp.end for s, e in sentence.gold) for sp in spans
        )
    return out


def markdown(result: dict) -> str:
    lines = ["| form | gold | recall | precision |", "|---|---:|---:|---:|"]
    for form in FORMS:
        r = result[form]
        recall = f"{r['found']}/{r['gold']} = {r['found'] / r['gold']:.3f}" if r["gold"] else ""
        precision = f"{r['correct']}/{r['replaced']}" if r["replaced"] else ""
        lines.append(f"| {form} | {r['gold']} | {recall} | {precision} |")
    n = result[NEGATIVE]
    lines.append(f"\nNegatives changed: {n['changed']} of {n['read']}.")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m corpus.pii.handwritten", description=__doc__)
    p.add_argument("labels", help="the labelled sentences (JSON lines)")
    args = p.parse_args(argv)
    print(markdown(evaluate(args.labels)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
