"""Per-type precision and recall of the detectors on the labelled test set.

    python -m corpus.pii.evaluate [--seed 20261129] [--per-type 60] [--data-dir DIR]

Definitions (span level):

* recall: share of gold values entirely covered by a detected span of the
  same type (a value split across two spans, or detected only in part, is a
  miss). ``covered`` also counts values covered by a span of another type:
  replaced, so not leaked, but counted as a miss for recall.
* precision: share of detected spans of a type that overlap a gold value of
  that type, over the positive sentences and all negatives.
* negatives changed: share of negative sentences (hard and corpus) in which
  anything was detected.

Prints a markdown table; no value of the test set is printed, only counts.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys

from corpus.pii.detectors import TYPES
from corpus.pii.scan import Scanner
from corpus.pii.testset import HELD_OUT_SEED, Example, corpus_negatives, hard_negatives, positives


def evaluate(examples: list[Example], scanner: Scanner | None = None) -> dict:
    """Counts per type: gold, found, covered, predicted, correct; negatives changed."""
    scanner = scanner or Scanner()
    per = {t: collections.Counter() for t in TYPES}
    neg = collections.Counter()
    for ex in examples:
        pred = scanner.find(ex.text)
        for s, e, kind in ex.spans:
            per[kind]["gold"] += 1
            if any(p.type == kind and p.start <= s and e <= p.end for p in pred):
                per[kind]["found"] += 1
            covered = all(any(p.start <= i < p.end for p in pred) for i in range(s, e))
            per[kind]["covered"] += covered
        for p in pred:
            per[p.type]["predicted"] += 1
            if any(k == p.type and p.start < e and s < p.end for s, e, k in ex.spans):
                per[p.type]["correct"] += 1
        if ex.kind != "positive":
            neg[ex.kind] += 1
            if pred:
                neg[ex.kind + "_changed"] += 1
    return {"types": {t: dict(c) for t, c in per.items()}, "negatives": dict(neg)}


def _ratio(a: int, b: int) -> str:
    return f"{a / b:.3f}" if b else "n/a"


def markdown(result: dict) -> str:
    lines = [
        "| type | gold | recall | covered | predicted | precision |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for t, c in result["types"].items():
        gold, pred = c.get("gold", 0), c.get("predicted", 0)
        lines.append(
            f"| {t} | {gold} | {_ratio(c.get('found', 0), gold)} | "
            f"{_ratio(c.get('covered', 0), gold)} | {pred} | {_ratio(c.get('correct', 0), pred)} |"
        )
    neg = result["negatives"]
    for kind in ("hard_negative", "corpus_negative"):
        if neg.get(kind):
            lines.append("")
            lines.append(
                f"{kind.replace('_', ' ')}s changed: {neg.get(kind + '_changed', 0)} of {neg[kind]}"
                f" ({100 * neg.get(kind + '_changed', 0) / neg[kind]:.2f}%)"
            )
    return "\n".join(lines)


def review_sample(paths: list[str], n: int, seed: int, show_values: bool) -> list[str]:
    """`n` random non-URL detections from `paths`, each with 20 characters of context.

    For a hand check of precision on real text. Values are shown only with
    `show_values` (use it on public text such as Wikipedia); otherwise as a shape
    (digits -> 9, letters -> x).
    """
    import random

    from corpus.readers import expand_inputs, iter_records

    scanner = Scanner()
    hits = []
    for path in expand_inputs(paths):
        for rec in iter_records(path):
            t = rec.text
            for sp in scanner.find(t):
                if sp.type == "url":
                    continue
                v = t[sp.start : sp.end]
                if not show_values:
                    v = "".join("9" if c.isdigit() else "x" if c.isalnum() else c for c in v)
                left = t[max(0, sp.start - 20) : sp.start].replace("\n", " ")
                hits.append(f"{sp.type}\t{left}[[{v}]]{t[sp.end : sp.end + 8]}".replace("\n", " "))
    random.Random(seed).shuffle(hits)
    return hits[:n]


def count_spans(paths: list[str], seed: int = 7) -> dict:
    """Spans per type over `paths` and what replacing them took, as counts only.

    ``fallbacks``: values per type no draw could replace (`Pseudonymizer.fallbacks`);
    ``class_changed``: replacements that end in another particle class than the
    original (`corpus.pii.particles.final_class`). Reads with `corpus.readers`.
    """
    from corpus.pii.generate import Pseudonymizer
    from corpus.pii.particles import final_class
    from corpus.readers import expand_inputs, iter_records

    pz = Pseudonymizer(seed)
    spans: collections.Counter = collections.Counter()
    changed: collections.Counter = collections.Counter()
    records = 0
    for path in expand_inputs(paths):
        for rec in iter_records(path):
            records += 1
            for sp in pz.scanner.find(rec.text):
                value = rec.text[sp.start : sp.end]
                spans[sp.type] += 1
                changed[sp.type] += final_class(pz.pseudonym(sp.type, value)) != final_class(value)
    return {
        "records": records,
        "spans": dict(spans.most_common()),
        "fallbacks": dict(pz.fallbacks),
        "class_changed": {t: n for t, n in changed.items() if n},
    }


def main(argv: list[str] | None = None) -> int:
    from corpus.datadir import add_data_dir_argument, resolve_data_dir

    p = argparse.ArgumentParser(
        prog="python -m corpus.pii.evaluate", description=__doc__.split("\n")[0]
    )
    p.add_argument("--seed", type=int, default=HELD_OUT_SEED, help="test-set generator seed")
    p.add_argument("--per-type", type=int, default=60)
    p.add_argument(
        "--held-out-templates",
        action="store_true",
        help="use the templates written after development (never used for tuning)",
    )
    p.add_argument("--json", action="store_true", help="print the raw counts as JSON")
    p.add_argument(
        "--review",
        nargs="+",
        default=None,
        metavar="PATH",
        help="instead: print a random sample of detections in PATH for a hand check",
    )
    p.add_argument(
        "--count",
        nargs="+",
        default=None,
        metavar="PATH",
        help="instead: spans per type in PATH, fallbacks and particle-class changes (JSON)",
    )
    p.add_argument("--n", type=int, default=40, help="sample size for --review")
    p.add_argument("--show-values", action="store_true", help="--review shows the values")
    add_data_dir_argument(p)
    args = p.parse_args(argv)
    if args.count:
        print(json.dumps(count_spans(args.count), ensure_ascii=False))
        return 0
    if args.review:
        for line in review_sample(args.review, args.n, 42, args.show_values):
            print(line)
        return 0
    examples = positives(args.seed, args.per_type, args.held_out_templates)
    examples += hard_negatives(args.seed)
    try:
        corpus_dir = resolve_data_dir(args.data_dir) / "corpus"
        examples += corpus_negatives(corpus_dir, seed=args.seed)
    except FileNotFoundError as e:
        print(f"no corpus negatives: {e}", file=sys.stderr)
    result = evaluate(examples)
    print(json.dumps(result, indent=1, sort_keys=True) if args.json else markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
