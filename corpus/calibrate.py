"""Calibrate the dedup threshold (and choose tokens and normalisation) on labelled KLUE text.

    python -m corpus.calibrate --benchmark-dir ../shared/data/klue \\
        --corpus ../shared/data/corpus --output calib/ [--seed 0] [--n 1000]

Labelled set, built from the real files:

- positives: benchmark sentences (sampled from the index) as the corpus might
  hold them: an exact copy, or one light edit: spacing changed, punctuation
  changed, one particle swapped (은/는, 이/가, 을/를, 에/에서 ...), the end
  truncated (last ~20% of characters cut), or a clause added (a piece of
  another corpus sentence appended);
- negatives: real corpus sentences (from ``--corpus``) that share at least two
  distinct uncommon tokens (document frequency below 1/128) with some
  benchmark sentence (so the filter is tested on look-alikes, not on random
  text) and are not themselves an exact benchmark sentence.

Both are split in two halves by a seeded shuffle: the threshold is chosen on
the *tune* half (the highest threshold whose tune recall is >= 0.99, a margin
over the 0.98 target) and precision/recall/removal rate are reported on the
*held-out* half. Tokenisers and normalisations are compared by recall at a
1% false-positive rate on the tune half. Everything goes to
``OUTPUT/calibration.json`` and a markdown table to stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time

import numpy as np

from corpus.bm25 import NORMALISATIONS, BM25Index, tokenize
from corpus.dedup import DEFAULT_THRESHOLD, benchmark_sentences
from corpus.normalize import dedup_key, normalize_document
from corpus.readers import expand_inputs, iter_records
from corpus.sentences import split_sentences

EDITS = ("exact", "spacing", "punctuation", "particle", "truncate", "add_clause")
_PARTICLES = [
    ("은", "는"),
    ("는", "은"),
    ("이", "가"),
    ("가", "이"),
    ("을", "를"),
    ("를", "을"),
    ("에서", "에"),
    ("에", "에서"),
    ("와", "과"),
    ("과", "와"),
    ("으로", "로"),
    ("도", "만"),
]


def edit(sentence: str, kind: str, rng: random.Random, other: str) -> str:
    """One light edit of `sentence` (`other` supplies an added clause)."""
    if kind == "exact":
        return sentence
    if kind == "spacing":
        chars = list(sentence)
        spaces = [i for i, c in enumerate(chars) if c == " "]
        if spaces and rng.random() < 0.5:
            for i in rng.sample(spaces, max(1, len(spaces) // 3)):
                chars[i] = ""
            return "".join(chars)
        words = sentence.split(" ")
        i = rng.randrange(len(words))
        w = words[i]
        if len(w) > 1:
            j = rng.randrange(1, len(w))
            words[i] = w[:j] + " " + w[j:]
        return " ".join(words)
    if kind == "punctuation":
        stripped = sentence.rstrip(".?!")
        if stripped != sentence:
            return stripped + rng.choice(["", "!", "..", " ."])
        words = sentence.split(" ")
        i = rng.randrange(len(words))
        words[i] = words[i] + ","
        return " ".join(words) + "."
    if kind == "particle":
        words = sentence.split(" ")
        order = list(range(len(words)))
        rng.shuffle(order)
        for i in order:
            for old, new in _PARTICLES:
                if len(words[i]) > len(old) and words[i].endswith(old):
                    words[i] = words[i][: -len(old)] + new
                    return " ".join(words)
        return sentence + "요"
    if kind == "truncate":
        cut = max(1, int(len(sentence) * 0.2))
        return sentence[:-cut].rstrip() if len(sentence) > cut + 1 else sentence
    if kind == "add_clause":
        clause = " ".join(other.split(" ")[: rng.randint(3, 6)])
        return sentence.rstrip(".") + ", " + clause + "."
    raise ValueError(kind)


def corpus_sentences(paths: list[str], limit_per_file: int, seed: int) -> list[str]:
    """Up to `limit_per_file` distinct sentences from each input file (a seeded sample)."""
    rng = random.Random(seed)
    out: list[str] = []
    for path in expand_inputs(paths):
        sents = []
        for rec in iter_records(path, on_error="skip"):
            sents.extend(split_sentences(normalize_document(rec.text)))
            if len(sents) > 20 * limit_per_file:
                break
        rng.shuffle(sents)
        out.extend(sents[:limit_per_file])
    return out


def build_set(index_sents, index, corpus, n, seed, tokenizer):
    """(texts, labels, edit kinds, benchmark doc index or -1)."""
    rng = random.Random(seed)
    bench_keys = {dedup_key(s) for s in index_sents}
    pos_docs = rng.sample(range(len(index_sents)), n)
    texts, labels, kinds, docs = [], [], [], []
    for i, d in enumerate(pos_docs):
        kind = EDITS[i % len(EDITS)]
        texts.append(edit(index_sents[d], kind, rng, rng.choice(corpus)))
        labels.append(1)
        kinds.append(kind)
        docs.append(d)
    # Negatives: corpus sentences sharing >= 2 distinct tokens with one benchmark sentence.
    pool = [s for s in corpus if dedup_key(s) not in bench_keys and len(s) >= 10]
    rng.shuffle(pool)
    negs = []
    index._split_common()
    rare = (index._rare_weights > 0).astype(np.float64)
    for s in pool:
        q = index.query_matrix([tokenize(s, tokenizer)])[0]
        shared = (q > 0).astype(np.float64) @ rare
        if shared.nnz and shared.max() >= 2:
            negs.append(s)
        if len(negs) >= n:
            break
    for s in negs:
        texts.append(s)
        labels.append(0)
        kinds.append("negative")
        docs.append(-1)
    return texts, np.asarray(labels), kinds, np.asarray(docs)


def metrics(scores: np.ndarray, labels: np.ndarray, thr: float) -> dict:
    pred = scores >= thr
    tp = int((pred & (labels == 1)).sum())
    fp = int((pred & (labels == 0)).sum())
    pos = int((labels == 1).sum())
    neg = int((labels == 0).sum())
    return {
        "threshold": round(thr, 4),
        "recall": tp / pos if pos else 0.0,
        "precision": tp / (tp + fp) if tp + fp else 1.0,
        "false_positive_rate": fp / neg if neg else 0.0,
        "positives": pos,
        "negatives": neg,
    }


def choose_threshold(scores: np.ndarray, labels: np.ndarray, recall: float = 0.99) -> float:
    """The highest threshold whose recall on (scores, labels) is at least `recall`."""
    pos = np.sort(scores[labels == 1])
    k = int(np.floor((1 - recall) * len(pos)))
    return float(pos[k]) if len(pos) else 1.0


def recall_at_fpr(scores, labels, fpr=0.01) -> tuple[float, float]:
    neg = np.sort(scores[labels == 0])[::-1]
    k = int(np.floor(fpr * len(neg)))
    thr = float(np.nextafter(neg[k], np.inf)) if len(neg) else 0.0
    return float((scores[labels == 1] >= thr).mean()), thr


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m corpus.calibrate", description=__doc__.split("\n")[0]
    )
    p.add_argument("--benchmark-dir", default=None, help="KLUE folder (default: data dir rules)")
    p.add_argument("--corpus", nargs="+", required=True, help="corpus files/folders for negatives")
    p.add_argument("--output", required=True, help="folder for calibration.json")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--n", type=int, default=1200, help="positives (and negatives) in the set")
    p.add_argument("--per-file", type=int, default=200, help="corpus sentences sampled per file")
    p.add_argument("--tokenizers", nargs="+", default=["morph", "eojeol", "char2"])
    p.add_argument("--norms", nargs="+", default=["max", "doc", "query"], choices=NORMALISATIONS)
    p.add_argument(
        "--alphas", nargs="+", type=float, default=[1.0], help="query weights tried with max"
    )
    args = p.parse_args(argv)
    from corpus.klue import benchmark_texts, resolve_klue_dir

    klue_dir = resolve_klue_dir(args.benchmark_dir)
    t0 = time.time()
    index_sents, meta = benchmark_sentences(benchmark_texts(klue_dir))
    corpus = corpus_sentences(args.corpus, args.per_file, args.seed)
    print(f"benchmark sentences {len(index_sents)}, corpus sample {len(corpus)}", file=sys.stderr)
    results: dict = {"seed": args.seed, "n": args.n, "configs": {}}
    labelled = None
    for tok in args.tokenizers:
        t = time.time()
        index = BM25Index.build([tokenize(s, tok) for s in index_sents], tokenizer=tok, meta=meta)
        if labelled is None:  # the set is built once (with the first tokenizer's overlap test)
            labelled = build_set(index_sents, index, corpus, args.n, args.seed, tok)
            texts, labels, kinds, docs = labelled
            split_rng = np.random.default_rng(args.seed)
            tune = split_rng.random(len(texts)) < 0.5
        queries = [tokenize(s, tok) for s in texts]
        runs = [(n, a) for n in args.norms for a in (args.alphas if n == "max" else [1.0])]
        for norm, alpha in runs:
            index.alpha = alpha
            name = f"{tok}/{norm}" + (f"@{alpha:g}" if norm == "max" else "")
            ts = time.time()
            best, sim, _ = index.best_matches(queries, norm=norm, exact=False)
            elapsed = time.time() - ts
            r1, thr1 = recall_at_fpr(sim[tune], labels[tune])
            thr = choose_threshold(sim[tune], labels[tune])
            held = metrics(sim[~tune], labels[~tune], thr)
            per_edit = {
                k: float((sim[~tune & (np.asarray(kinds) == k)] >= thr).mean())
                for k in EDITS
                if (~tune & (np.asarray(kinds) == k)).any()
            }
            at_default = metrics(sim[~tune], labels[~tune], DEFAULT_THRESHOLD)
            found = float((best[(labels == 1)] == docs[labels == 1]).mean())
            results["configs"][name] = {
                "tokenizer": tok,
                "norm": norm,
                "alpha": alpha,
                "tune_recall_at_1pct_fpr": r1,
                "chosen_threshold": thr,
                "held_out": held,
                "held_out_at_default_threshold": at_default,
                "held_out_recall_by_edit": per_edit,
                "best_is_source_sentence": found,
                "score_seconds": round(elapsed, 2),
                "index_build_seconds": round(ts - t, 1),
            }
            print(f"{name}: {json.dumps(results['configs'][name])}", file=sys.stderr)
    # The positives/negatives near the chosen config's threshold, for inspection.
    results["seconds"] = round(time.time() - t0, 1)
    os.makedirs(args.output, exist_ok=True)
    with open(os.path.join(args.output, "calibration.json"), "w", encoding="utf-8") as fh:
        json.dump(results, fh, ensure_ascii=False, indent=2)
    print(
        "| tokens/norm | tune recall @1% FPR | threshold | held-out recall | precision | "
        "unrelated removed |"
    )
    print("|---|---|---|---|---|---|")
    for name, c in results["configs"].items():
        h = c["held_out"]
        print(
            f"| {name} | {c['tune_recall_at_1pct_fpr']:.3f} | {c['chosen_threshold']:.3f} | "
            f"{h['recall']:.3f} | {h['precision']:.3f} | {100 * h['false_positive_rate']:.2f}% |"
        )
    return 0


if __name__ == "__main__":
    from corpus.cli import run

    run(main)
