"""KLUE metrics: finetune.metrics vs the reference libraries the KLUE baseline calls.

    python -m bench.finetune_metrics [--ner-sentences 1000] [--repeat 3] [--json PATH]

For each task with real dev data under the data dir (YNAT, STS, NLI, NER, RE,
DP; MRC and WoS have no real dev set here), predictions are the gold labels
corrupted with a fixed seed. Both sides score the same arrays in one process:

- ours: ``finetune.metrics.<task>`` (numpy);
- reference: scikit-learn ``f1_score`` / ``precision_recall_curve`` + ``auc``,
  seqeval ``f1_score(mode="strict", scheme=IOB2)``, scipy ``pearsonr``, called
  as ``klue_baseline/metrics/functional.py`` calls them.

Reported: best-of-``--repeat`` wall seconds of each, the ratio, the peak
traced memory (tracemalloc, numpy buffers included) and the largest absolute
difference between the two sets of numbers. seqeval's strict mode is quadratic
in the sequence length (all 5,000 NER dev sentences take it about 100 s), so
NER uses the first ``--ner-sentences`` sentences. Prints a markdown table
(copied into docs/finetune_metrics.md).
"""

from __future__ import annotations

import argparse
import json
import time
import tracemalloc
import warnings
from collections.abc import Callable

import numpy as np

from bench.provenance import stamp


def _measure(fn: Callable[[], dict], repeat: int) -> tuple[dict, float, float]:
    best = float("inf")
    result: dict = {}
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return result, best, peak / 2**20


def _cases(ner_sentences: int) -> dict[str, tuple[Callable[[], dict], Callable[[], dict], int]]:
    from scipy.stats import pearsonr
    from seqeval.metrics import f1_score as seqeval_f1
    from seqeval.scheme import IOB2
    from sklearn.metrics import auc, f1_score, precision_recall_curve

    from corpus import klue
    from corpus.datadir import klue_dir
    from corpus.klue.ner import TAGS
    from finetune import metrics

    root = klue_dir()
    rng = np.random.default_rng(0)
    cases = {}

    ynat = klue.load("ynat", "dev", root)
    g = np.array([x.label_id for x in ynat])
    p = np.where(rng.random(len(g)) < 0.8, g, rng.integers(0, 7, len(g)))
    cases["ynat"] = (
        lambda g=g, p=p: metrics.ynat(g, p),
        lambda g=g, p=p: {"ynat_macro_f1": 100 * f1_score(g, p, average="macro")},
        len(g),
    )

    sts = klue.load("sts", "dev", root)
    gs = np.array([x.real_label for x in sts])
    ps = gs + rng.normal(0, 1, len(gs))
    cases["sts"] = (
        lambda: metrics.sts(gs, ps),
        lambda: {
            "sts_pearsonr": 100 * pearsonr(ps, gs)[0],
            "sts_f1": 100 * f1_score(gs >= 3, ps >= 3),
        },
        len(gs),
    )

    nli = klue.load("nli", "dev", root)
    gn = np.array([x.label_id for x in nli])
    pn = np.where(rng.random(len(gn)) < 0.8, gn, rng.integers(0, 3, len(gn)))
    cases["nli"] = (
        lambda: metrics.nli(gn, pn),
        lambda: {"nli_accuracy": 100 * float(np.mean(gn == pn))},
        len(gn),
    )

    ner = klue.load("ner", "dev", root)[:ner_sentences]
    gold_tags = [list(x.tags) for x in ner]
    pred_tags = [[t if rng.random() < 0.9 else str(rng.choice(TAGS)) for t in s] for s in gold_tags]
    sentences = [x.sentence for x in ner]

    def ner_reference() -> dict:
        gf, pf = [], []
        for gs_, ps_, text in zip(gold_tags, pred_tags, sentences, strict=True):
            keep = [i for i, ch in enumerate(text) if ch != " "]
            gf += [gs_[i] for i in keep]
            pf += [ps_[i] for i in keep]
        entity = seqeval_f1([gf], [pf], average="macro", mode="strict", scheme=IOB2)
        char = f1_score(gf, pf, labels=list(TAGS), average="macro", zero_division=1)
        no_o = [t for t in TAGS if t != "O"]
        char_no_o = f1_score(gf, pf, labels=no_o, average="macro", zero_division=1)
        return {
            "ner_entity_f1": 100 * entity,
            "ner_char_f1": 100 * char,
            "ner_char_f1_no_o": 100 * char_no_o,
        }

    cases["ner"] = (
        lambda: metrics.ner(gold_tags, pred_tags, sentences),
        ner_reference,
        sum(len(s) for s in sentences),
    )

    rel = klue.load("re", "dev", root)
    names = klue.relations(root)
    ids = {n: i for i, n in enumerate(names)}
    gr = np.array([ids[x.label] for x in rel])
    logits = rng.normal(size=(len(gr), len(names)))
    logits[np.arange(len(gr)), gr] += 2.0
    probs = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    pr = probs.argmax(axis=1)

    def re_reference() -> dict:
        onehot = np.eye(len(names))[gr]
        areas = []
        for c in range(len(names)):
            precision, recall, _ = precision_recall_curve(onehot[:, c], probs[:, c])
            areas.append(auc(recall, precision))
        micro = f1_score(gr, pr, average="micro", labels=list(range(1, len(names))))
        return {"re_micro_f1": 100 * micro, "re_auprc": 100 * float(np.mean(areas))}

    cases["re"] = (lambda: metrics.re(gr, pr, probs), re_reference, len(gr))

    dp = klue.load("dp", "dev", root)
    gh = [x.heads for x in dp]
    gd = [x.deprels for x in dp]
    ph = [[h if rng.random() < 0.85 else int(rng.integers(0, len(s) + 1)) for h in s] for s in gh]
    pd = [
        [d if rng.random() < 0.85 else str(rng.choice(metrics.DP_DEPRELS)) for d in s] for s in gd
    ]
    label_id = {n: i for i, n in enumerate(metrics.DP_DEPRELS)}

    def dp_reference() -> dict:
        h_g = np.array([h for s in gh for h in s])
        h_p = np.array([h for s in ph for h in s])
        t_g = np.array([label_id[d] for s in gd for d in s])
        t_p = np.array([label_id[d] for s in pd for d in s])
        m_g = np.where(t_g >= 15, -3, t_g)
        m_p = np.where(h_g == h_p, np.where(t_p >= 15, -3, t_p), -2)
        return {
            "dp_uas_macro_f1": 100 * f1_score(h_g, h_p, average="macro"),
            "dp_uas_micro_f1": 100 * f1_score(h_g, h_p, average="micro"),
            "dp_las_macro_f1": 100 * f1_score(m_g, m_p, average="macro"),
            "dp_las_micro_f1": 100 * f1_score(m_g, m_p, average="micro"),
            "dp_uas": 100 * float(np.mean(h_g == h_p)),
            "dp_las": 100 * float(np.mean((h_g == h_p) & (t_g == t_p))),
        }

    cases["dp"] = (lambda: metrics.dp(gh, gd, ph, pd), dp_reference, sum(len(s) for s in gh))
    return cases


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.finetune_metrics")
    parser.add_argument("--ner-sentences", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", default=None, help="also write the raw results here")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    rows = []
    units = {"ner": "chars", "dp": "words"}
    for task, (ours, reference, n) in _cases(args.ner_sentences).items():
        a, t_ours, m_ours = _measure(ours, args.repeat)
        b, t_ref, m_ref = _measure(reference, args.repeat)
        diff = max(abs(a[k] - b[k]) for k in b)
        rows.append(
            {
                "task": task,
                "n": n,
                "unit": units.get(task, "examples"),
                "ours_s": t_ours,
                "reference_s": t_ref,
                "speedup": t_ref / t_ours,
                "ours_peak_mib": m_ours,
                "reference_peak_mib": m_ref,
                "max_abs_diff": diff,
            }
        )
    print(
        "| task | scored | ours (ms) | reference (ms) | speed-up | peak MiB ours / ref | max diff |"
    )
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['task']} | {r['n']:,} {r['unit']} | {1e3 * r['ours_s']:.2f} "
            f"| {1e3 * r['reference_s']:.2f} "
            f"| {r['speedup']:.1f}x | {r['ours_peak_mib']:.1f} / {r['reference_peak_mib']:.1f} "
            f"| {r['max_abs_diff']:.1e} |"
        )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(stamp(rows), fh, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
