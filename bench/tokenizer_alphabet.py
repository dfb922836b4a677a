"""Benchmark: how many single-character entries each coverage target takes, by sample size.

    python -m bench.tokenizer_alphabet --input CORPUS... --sample-bytes 12000000 all

For each sample (`tokenizer.inputs.Inputs`, seed 0) it counts characters by
position without Mecab: the first character of a whitespace word is a word
form, the others ``##`` forms (punctuation and CJK ideographs always word
forms). For morpheme-bpe these are the training units' positions too, since
a continuation morpheme's characters are all ``##`` forms. It prints one JSON
line per sample: the symbols (word and ``##`` forms) needed to cover 99.9%,
99.95% and 99.99% of the occurrences with no floor, the symbols seen 5+
times (the old rule), and the entries `tokenizer.alphabet.select_alphabet`
chooses (full base set, ``min_char_count`` 5) with the coverage reached, stamped with the
commit measured (`bench.provenance`).
"""

from __future__ import annotations

import argparse
import collections
import json
import sys

from bench.provenance import stamp
from tokenizer.alphabet import select_alphabet
from tokenizer.inputs import Inputs
from tokenizer.wordpiece import is_isolated, shadow, shadowable

COVERAGES = (0.999, 0.9995, 0.9999)


def position_counts(inputs: list[str], sample_bytes: int | None) -> collections.Counter:
    """Character counts of a sample, word forms as-is and ``##`` forms as shadow characters."""
    every: collections.Counter = collections.Counter()
    first: collections.Counter = collections.Counter()
    buf: list[str] = []

    def flush() -> None:
        text = "\n".join(buf)
        every.update(text)
        first.update(w[0] for w in text.split())
        buf.clear()

    for line in Inputs(inputs, sample_bytes, seed=0, paths_only=True).lines():
        buf.append(line)
        if len(buf) >= 5000:
            flush()
    flush()
    for ws in " \n\t":
        every.pop(ws, None)
    out: collections.Counter = collections.Counter()
    for ch, n in every.items():
        initial = first.get(ch, 0)
        if is_isolated(ch):
            out[ch] += n
            continue
        if initial:
            out[ch] += initial
        if n - initial and shadowable(ch):
            out[shadow(ch)] += n - initial
    return out


def measure(counts: collections.Counter) -> dict:
    total = sum(counts.values())
    ranked = sorted(counts.values(), reverse=True)
    row: dict = {"occurrences": total, "symbols_seen": len(ranked)}
    for cov in COVERAGES:
        covered = 0
        for i, n in enumerate(ranked):
            covered += n
            if covered / total >= cov:
                row[f"symbols_for_{cov}"] = i + 1
                break
    row["symbols_seen_5_times"] = sum(1 for n in ranked if n >= 5)
    for cov in COVERAGES:
        a = select_alphabet(
            counts, coverage=cov, min_char_count=5, base_chars="full", vocab_size=32000
        )
        row[f"entries_{cov}"] = a.report["entries"]
        row[f"reached_{cov}"] = a.report["coverage_reached"]
    return row


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.tokenizer_alphabet", description=__doc__)
    p.add_argument("--input", nargs="+", required=True)
    p.add_argument("--sample-bytes", nargs="+", default=["all"], help="sizes, or 'all'")
    args = p.parse_args(argv)
    for size in args.sample_bytes:
        sample = None if size == "all" else int(float(size))
        row = {"sample_bytes": sample, **measure(position_counts(args.input, sample))}
        print(json.dumps(stamp(row)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
