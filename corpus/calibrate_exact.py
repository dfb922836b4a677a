"""How long must a sentence be for an exact benchmark match to be evidence of a copy?

    python -m corpus.calibrate_exact --corpus ../shared/data/corpus \\
        [--benchmark-dir ../shared/data/klue] [--max-len 16] [--output exact.json]

`corpus.dedup` removes a corpus sentence whose `match_key` equals a benchmark
sentence's. For a long sentence that is a copy; for ``1.``, ``①``, ``네.``,
``감사합니다.`` it is a formula that every kind of Korean text uses, and the
benchmark (WoS turns, NER fragments) happens to use it too. This measures, per
key length (characters without spaces, punctuation or symbols: `match_key`),
how many benchmark sentences of that length the corpus sources under
``--corpus`` contain exactly, and how many of those are *stock* phrases: found
as a whole sentence in at least `STOCK_SOURCES` unrelated sources (Wikipedia,
petitions, movie reviews, news comments, chatbot questions share no text, so a
sentence common to two of them is a formula, not a copy). The minimum length
(`MatchConfig.exact_min_chars`) is the shortest length from which on the stock
share of every length stays under `MAX_STOCK_SHARE`; docs/corpus.md gives the
table of a run.

The output holds counts only (no corpus text: petitions hold personal data).
"""

from __future__ import annotations

import argparse
import json
import os
from collections import defaultdict

from corpus.calibrate import SOURCES
from corpus.normalize import match_key, normalize_document
from corpus.sentences import split_sentences

#: A sentence found whole in this many unrelated sources is a stock phrase.
STOCK_SOURCES = 2
#: Largest share of stock phrases among the exact matches of a length that is still evidence:
#: none (at 0.1, 5 characters passed with 3 stock phrases of 32, ``감사합니다`` among them).
MAX_STOCK_SHARE = 0.0


def source_keys(root: str) -> dict[str, set[str]]:
    """Per source under `root` (`corpus.calibrate.SOURCES`), the `match_key`s of all its
    sentences."""
    from corpus.readers import expand_inputs, iter_records

    out: dict[str, set[str]] = {}
    for name, (rel, opts) in SOURCES.items():
        path = os.path.join(root, rel)
        if not os.path.exists(path):
            continue
        keys: set[str] = set()
        for f in expand_inputs([path]):
            for rec in iter_records(f, on_error="skip", **opts):
                keys.update(match_key(s) for s in split_sentences(normalize_document(rec.text)))
        out[name] = keys
    return out


def by_length(bench_keys: set[str], sources: dict[str, set[str]], max_len: int) -> list[dict]:
    """Per key length 1..`max_len`: benchmark keys found exactly in a source, and how many
    of them are stock phrases (in `STOCK_SOURCES` or more sources)."""
    found: dict[str, int] = defaultdict(int)
    for keys in sources.values():
        for k in bench_keys & keys:
            found[k] += 1
    rows = []
    for n in range(1, max_len + 1):
        at = [c for k, c in found.items() if len(k) == n]
        stock = sum(c >= STOCK_SOURCES for c in at)
        rows.append(
            {
                "chars": n,
                "benchmark_keys": sum(len(k) == n for k in bench_keys),
                "matched": len(at),
                "stock": stock,
                "stock_share": round(stock / len(at), 4) if at else 0.0,
            }
        )
    return rows


def choose_min_chars(rows: list[dict], max_share: float = MAX_STOCK_SHARE) -> int:
    """The shortest length from which on every length's stock share is at most `max_share`."""
    best = rows[-1]["chars"] + 1
    for row in reversed(rows):
        if row["stock_share"] > max_share:
            break
        best = row["chars"]
    return best


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m corpus.calibrate_exact", description=__doc__)
    p.add_argument("--corpus", required=True, help="folder holding the sources (shared data)")
    p.add_argument("--benchmark-dir", default=None, help="KLUE folder (default: data dir rules)")
    p.add_argument("--max-len", type=int, default=16, help="longest key length tabulated")
    p.add_argument("--output", default=None, help="write the table as JSON here")
    args = p.parse_args(argv)
    from corpus.dedup import benchmark_sentences
    from corpus.klue import benchmark_texts

    sents, _ = benchmark_sentences(benchmark_texts(args.benchmark_dir))
    bench_keys = {match_key(s) for s in sents} - {""}
    sources = source_keys(args.corpus)
    rows = by_length(bench_keys, sources, args.max_len)
    chosen = choose_min_chars(rows)
    sizes = ", ".join(f"{k} ({len(v):,} distinct sentences)" for k, v in sources.items())
    print(f"sources: {sizes}")
    print("chars  benchmark_keys  matched  stock  stock_share")
    for r in rows:
        print(
            f"{r['chars']:>5}  {r['benchmark_keys']:>14,}  {r['matched']:>7,}  {r['stock']:>5,}"
            f"  {r['stock_share']:>11.3f}"
        )
    print(f"exact_min_chars = {chosen} (stock share <= {MAX_STOCK_SHARE} from there on)")
    if args.output:
        result = {"rows": rows, "exact_min_chars": chosen, "sources": sorted(sources)}
        with open(args.output, "w", encoding="utf-8") as fh:
            json.dump(result, fh, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
