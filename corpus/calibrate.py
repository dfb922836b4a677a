"""Calibrate the decontamination decision (`corpus.matching`) on labelled real text.

    python -m corpus.calibrate --benchmark-dir ../shared/data/klue \\
        --corpus ../shared/data/corpus --output calib/ [--seed 0]

Labelled set, built from the real KLUE files and real corpus text (nothing
generated from scratch):

- ``edited`` positives: benchmark sentences as the corpus might hold them, in
  equal shares from each length of benchmark sentence (`EDITED_FROM`): an
  exact copy, or one light edit (spacing, punctuation, one particle swapped,
  the last 20% of characters cut, words of another corpus sentence appended
  up to 20% of the characters: edits that add or remove text are proportional
  to the length, `EDIT_SHARE`, so a short sentence stays a near-copy);
- ``quoted`` positives: a benchmark sentence verbatim inside a longer real
  sentence, about twice its length (text of corpus sentences around it, half
  of them as a quotation ``… "S"라고 …``), in equal shares per length
  (`QUOTED_FROM`);
- ``lookalike`` negatives: corpus sentences sharing at least two uncommon
  morphemes with some benchmark sentence;
- ``random`` negatives: corpus sentences drawn per length bucket from every
  source given (short NSMC reviews and comments included), so every bucket of
  ``BUCKETS`` and every source has its own false-positive rate.

No negative equals a benchmark sentence after normalisation, and drawn
negatives that are plain copies (`certain_copies`) are set apart in neither
half (near-copies closer to the thresholds remain among the random ones, so
their rates are upper bounds). ``rare_quote``'s corpus counts are made over
every sentence of the sources plus the positives (`corpus_phrase_counts`).
Every item goes to the *calibration* or the *held-out* half by a
seeded draw. The thresholds are chosen on the calibration half (`choose`:
unrelated removals capped per bucket, ``--max-fp``, and per source,
``--max-fp-source``; then the recall targets per bucket, then the fewest
unrelated removals); recall per kind, edit and bucket and the removal rates
per bucket and source are reported on the held-out half, which played no part
in the choice. Output: ``OUTPUT/calibration.json`` (with the removals and
misses of each half, for reading) and markdown tables on stdout.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import sys
import time

import numpy as np

from corpus.bm25 import tokenize
from corpus.matching import (
    NEAR_MAX_CHARS,
    NEAR_MIN_CHARS,
    SIGNAL_PARAMS,
    MatchConfig,
    Matcher,
    count_array,
    count_phrases,
    short_key_table,
)
from corpus.normalize import match_key, normalize_document
from corpus.sentences import split_sentences

#: A light edit changes at most this share of a sentence's characters (cut end, added clause).
EDIT_SHARE = 0.2
EDITS = ("exact", "spacing", "punctuation", "particle", "truncate", "add_clause")
#: Length buckets (normalised characters, `match_key`) reported separately.
BUCKETS = ((0, 10), (10, 20), (20, 40), (40, 80), (80, 10**9))
_PARTICLES = [
    ("은", "는"), ("는", "은"), ("이", "가"), ("가", "이"), ("을", "를"), ("를", "을"),
    ("에서", "에"), ("에", "에서"), ("와", "과"), ("과", "와"), ("으로", "로"), ("도", "만"),
]  # fmt: skip
#: Benchmark-sentence lengths (normalised characters) the positives are drawn from in equal
#: shares: the benchmark is mostly 20-79 characters, and a uniform draw left 7 edited
#: sentences under 10 characters in a half, too few to measure that bucket. Quotes start at 5
#: characters (a shorter "sentence" is a word), edits at `NEAR_MIN_CHARS` (an edit of a
#: 1-3 character sentence is another word; exact copies of those are removed at any length).
EDITED_FROM = ((NEAR_MIN_CHARS, 10), (10, 20), (20, 40), (40, 80), (80, 10**9))
QUOTED_FROM = ((5, 10), (10, 20), (20, 40), (40, 10**9))
#: Recall targets on the held-out half (issue #15) and, for the choice on the calibration
#: half, the same targets with half their miss rate as a margin (0.99 and 0.95).
TARGETS = {"edited": 0.98, "quoted": 0.9}
CALIBRATION_RECALL = {k: 1 - (1 - v) / 2 for k, v in TARGETS.items()}
#: A length bucket's recall is held to the target in the choice when the calibration half
#: has at least this many positives of that kind in it (fewer cannot measure 0.99).
MIN_BUCKET_ITEMS = 50
GRID = {
    "threshold": [0.5, 0.54, 0.56, 0.58, 0.6, 0.62, 0.65, 0.7, 0.75],
    "short_chars": [6, 8, 10, 12, 15, 20],
    "exact_min_chars": [MatchConfig.exact_min_chars],  # chosen by corpus.calibrate_exact
    "near_exact_edits": [0, 1],
    "containment": [0.8, 0.85, 0.9, 0.95, 0.99],
    "containment_chars": [10, 15, 20, 30],
    "overlap_chars": [8, 10, 12, 15, 20],
    "overlap_share": [0.6, 0.7, 0.8, 0.9, 1.0],
    "short_share": [0.0, 0.7, 0.75, 0.8, 0.85, 0.9],
    "short_weight": [0.0, 30.0, 35.0, 40.0],
    "quote_weight": [0.0, 30.0, 35.0, 40.0, 45.0],
    "quoted_span": [False, True],
    # at most 1, 2, 3, 5, 10 sentences of the ~870,000 of the shared corpus (0: off)
    "quote_max_per_million": [0.0, 1.5, 2.5, 4.0, 6.0, 12.0],
}
#: Corpus sources and the reader options they need (under --corpus).
SOURCES = {
    "kowiki": ("kowiki/AA", {}),
    "petitions": ("petitions", {}),
    "nsmc": ("nsmc/raw_sample.jsonl", {"text_field": "review"}),
    "comments": ("korean-hate-speech/unlabeled", {}),
    "chatbot": ("chatbot-data/ChatbotData.csv", {"fmt": "csv", "column": "Q"}),
}


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
        cut = max(1, int(len(sentence) * EDIT_SHARE))
        return sentence[:-cut].rstrip() if len(sentence) > cut + 1 else sentence
    if kind == "add_clause":
        budget = max(1, int(len(sentence) * EDIT_SHARE))
        words = other.split(" ")
        clause = words[0][:budget]
        for w in words[1:]:
            if len(clause) + 1 + len(w) > budget:
                break
            clause += " " + w
        return sentence.rstrip(".") + ", " + clause + "."
    raise ValueError(kind)


def quote(sentence: str, rng: random.Random, pool: list[str]) -> str:
    """`sentence` verbatim inside real corpus text about as long as itself."""
    words = [w for s in rng.sample(pool, 6) for w in s.split(" ")]
    need = len(sentence)
    before, after = [], []
    while words and len(" ".join(before)) < need // 2:
        before.append(words.pop())
    while words and len(" ".join(after)) < need - need // 2:
        after.append(words.pop())
    head, tail = " ".join(before), " ".join(after)
    if rng.random() < 0.5:
        return f'{head} "{sentence.rstrip(".")}"라고 {tail}'
    return f"{head} {sentence} {tail}"


def corpus_sentences(root: str, per_source: int, seed: int) -> dict[str, list[str]]:
    """Up to `per_source` distinct sentences from each source under `root` (seeded)."""
    from corpus.readers import expand_inputs, iter_records

    rng = random.Random(seed)
    out: dict[str, list[str]] = {}
    for name, (rel, opts) in SOURCES.items():
        path = os.path.join(root, rel)
        if not os.path.exists(path):
            continue
        sents: list[str] = []
        for f in expand_inputs([path]):
            for rec in iter_records(f, on_error="skip", **opts):
                sents.extend(split_sentences(normalize_document(rec.text)))
            if len(sents) > 30 * per_source:
                break
        sents = sorted(set(sents))
        rng.shuffle(sents)
        out[name] = sents[: 30 * per_source]
    return out


def corpus_phrase_counts(root: str, matcher: Matcher, extra: list[str]) -> tuple[np.ndarray, int]:
    """``rare_quote``'s counts as `corpus.dedup` makes them, with every sentence of every
    source under `root` (whole, not the sample) and the `extra` texts (the positives: in
    a real corpus a copied sentence is counted with the rest) as the corpus: per benchmark
    sentence, how many of these sentences contain its key whole; and how many were read."""
    from corpus.readers import expand_inputs, iter_records

    def keys():
        for rel, opts in SOURCES.values():
            path = os.path.join(root, rel)
            if not os.path.exists(path):
                continue
            for f in expand_inputs([path]):
                for rec in iter_records(f, on_error="skip", **opts):
                    for s in split_sentences(normalize_document(rec.text)):
                        yield match_key(s)
        for t in extra:
            yield match_key(t)

    counts: dict[int, int] = {}
    n = count_phrases(short_key_table(matcher.keys), keys(), counts)
    return count_array(counts, len(matcher.keys)), n


def bucket_of(n: int) -> str:
    for lo, hi in BUCKETS:
        if lo <= n < hi:
            return f"{lo}-{hi - 1}" if hi < 10**9 else f"{lo}+"
    raise ValueError(n)


def _stratified(
    lengths: list[int], n: int, buckets: tuple[tuple[int, int], ...], rng: random.Random
) -> list[int]:
    """`n` benchmark sentences, an equal share from each length bucket of `buckets`
    (normalised characters), so that short sentences are not a handful of the draw."""
    per = [n // len(buckets) + (i < n % len(buckets)) for i in range(len(buckets))]
    out: list[int] = []
    for (lo, hi), k in zip(buckets, per, strict=True):
        pool = [d for d, m in enumerate(lengths) if lo <= m < hi]
        out.extend(rng.sample(pool, min(k, len(pool))))
    rng.shuffle(out)
    return out


def build_set(sents: list[str], matcher: Matcher, corpus: dict[str, list[str]], args) -> list[dict]:
    """The labelled items: text, label (1 copy / 0 unrelated), kind, benchmark doc, source."""
    rng = random.Random(args.seed)
    bench_keys = set(matcher.exact)
    pool = [s for ss in corpus.values() for s in ss if len(s) > 20]
    items: list[dict] = []
    lengths = [len(match_key(s)) for s in sents]
    for i, d in enumerate(_stratified(lengths, args.edited, EDITED_FROM, rng)):
        kind = EDITS[i % len(EDITS)]
        text = edit(sents[d], kind, rng, rng.choice(pool))
        items.append({"text": text, "label": 1, "kind": "edited", "edit": kind, "doc": d})
    for d in _stratified(lengths, args.quoted, QUOTED_FROM, rng):
        items.append({"text": quote(sents[d], rng, pool), "label": 1, "kind": "quoted", "doc": d})
    # look-alikes: share >= 2 distinct uncommon morphemes with one benchmark sentence
    idx = matcher.index
    idx._split_common()
    rare = (idx._rare_weights > 0).astype(np.float64)
    cands = [s for ss in corpus.values() for s in ss]
    rng.shuffle(cands)
    n = 0
    for s in cands:
        if n >= args.lookalike:
            break
        if match_key(s) in bench_keys or len(s) < 10:
            continue
        q = idx.query_matrix([tokenize(s)])[0]
        shared = (q > 0).astype(np.float64) @ rare
        if shared.nnz and shared.max() >= 2:
            items.append({"text": s, "label": 0, "kind": "lookalike", "doc": -1})
            n += 1
    # random negatives per length bucket, from every source in turn
    for lo, hi in BUCKETS:
        got = 0
        streams = {k: iter(v) for k, v in corpus.items()}
        while got < args.per_bucket and streams:
            for name in list(streams):
                s = next(streams[name], None)
                if s is None:
                    del streams[name]
                    continue
                key = match_key(s)
                if lo <= len(key) < hi and key not in bench_keys and key:
                    items.append(
                        {"text": s, "label": 0, "kind": "random", "doc": -1, "source": name}
                    )
                    got += 1
                    if got >= args.per_bucket:
                        break
    split = np.random.default_rng(args.seed).random(len(items)) < 0.5
    for it, cal in zip(items, split, strict=True):
        it["half"] = "calibration" if cal else "held_out"
        it["bucket"] = bucket_of(len(match_key(it["text"])))
    return items


#: A drawn negative this close to a benchmark sentence is a copy, not an unrelated sentence
#: (far beyond the decision's thresholds: a near-identical sentence, another revision of a
#: KLUE Wikipedia sentence, or a whole benchmark sentence of this many characters inside a
#: longer one, which is what a ``quoted`` positive is).
CERTAIN_BM25 = 0.9
CERTAIN_QUOTE_CHARS = 15


def certain_copies(feats: dict, overlap: dict, items: list[dict]) -> np.ndarray:
    """Negatives that are real copies: BM25 similarity >= `CERTAIN_BM25`, or a whole
    benchmark sentence of `CERTAIN_QUOTE_CHARS` or more characters inside. The corpus
    holds such sentences (KLUE's RE, MRC and NER text comes from the same Wikipedia and
    NSMC): counted as "unrelated", they make the caps unreachable (seed 3, 1,200 quoted
    positives: 6 of 6 "unrelated" removals of 40-79 characters were copies)."""
    doc, share = overlap[CERTAIN_QUOTE_CHARS]
    label = np.array([it["label"] for it in items])
    return (label == 0) & ((feats["bm25"] >= CERTAIN_BM25) | ((doc >= 0) & (share >= 1.0)))


def evaluate(items: list[dict], removed: np.ndarray, mask: np.ndarray) -> dict:
    """Recall per positive kind (and per edit and bucket), removal rate of negatives per bucket."""
    kind = np.array([it["kind"] for it in items])
    label = np.array([it["label"] for it in items])
    bucket = np.array([it["bucket"] for it in items])
    out: dict = {"recall": {}, "recall_by_bucket": {}, "unrelated_removed": {}, "counts": {}}
    for k in ("edited", "quoted"):
        m = mask & (kind == k)
        out["recall"][k] = float(removed[m].mean()) if m.any() else None
        out["counts"][k] = int(m.sum())
        out["recall_by_bucket"][k] = {
            b: [int(removed[m & (bucket == b)].sum()), int((m & (bucket == b)).sum())]
            for b in map(lambda x: bucket_of(x[0]), BUCKETS)
            if (m & (bucket == b)).any()
        }
    edits = np.array([it.get("edit", "") for it in items])
    out["recall_by_edit"] = {
        e: float(removed[mask & (edits == e)].mean()) for e in EDITS if (mask & (edits == e)).any()
    }
    neg = mask & (label == 0)
    for b in map(lambda x: bucket_of(x[0]), BUCKETS):
        m = neg & (bucket == b)
        out["unrelated_removed"][b] = [int(removed[m].sum()), int(m.sum())]
    source = np.array([it.get("source", "") for it in items])
    out["unrelated_removed_by_source"] = {
        s: [int(removed[neg & (source == s)].sum()), int((neg & (source == s)).sum())]
        for s in sorted(set(source.tolist()) - {""})
    }
    m = neg & (kind == "lookalike")
    out["lookalikes_removed"] = [int(removed[m].sum()), int(m.sum())]
    return out


def with_variants(feats: dict, contain: dict, overlap: dict, cfg: MatchConfig) -> dict:
    """`feats` with the containment and overlap values computed for `cfg`'s lengths."""
    f = dict(feats)
    f["contain_doc"], f["contain"] = contain[cfg.containment_chars]
    f["overlap_doc"], f["overlap"] = overlap[cfg.overlap_chars]
    return f


def grid_features(matcher: Matcher, texts: list[str]) -> tuple[dict, dict, dict]:
    """Every signal's raw values for `texts` over the whole `GRID`: the features (BM25
    exact from the lowest threshold), and containment and overlap per length setting."""
    tokens = [tokenize(t) for t in texts]
    floor = min(GRID["threshold"])
    parts, contain_parts, overlap_parts = [], [], []
    share = min(GRID["overlap_share"])
    for lo in range(0, len(texts), 256):  # batches, as corpus.dedup scores them
        tk, tx = tokens[lo : lo + 256], texts[lo : lo + 256]
        part = matcher.features(
            tk, tx, floor=floor, short_chars=min(GRID["short_chars"]), all_features=True
        )
        q = matcher.index.query_matrix(tk)[0]
        contain_parts.append(
            {c: matcher.containment_best(q, part["qlen"], c) for c in GRID["containment_chars"]}
        )
        keys = [match_key(t) for t in tx]
        overlap_parts.append(
            {c: matcher.overlap_best(keys, c, share) for c in GRID["overlap_chars"]}
        )
        parts.append(part)
    feats = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    contain, overlap = (
        {c: tuple(np.concatenate([p[c][i] for p in ps]) for i in range(2)) for c in GRID[name]}
        for ps, name in ((contain_parts, "containment_chars"), (overlap_parts, "overlap_chars"))
    )
    return feats, contain, overlap


def choose(
    matcher, feats, contain, overlap, items, mask, max_fp, max_fp_source
) -> tuple[MatchConfig, dict]:
    """The grid configuration chosen on the calibration half (`mask`).

    Only configurations whose unrelated-removal rate is at most `max_fp` in every
    bucket, and at most `max_fp_source` among the random sentences of every source,
    count (a source of short stock phrases, NSMC reviews, must not pay for the
    others: with a per-bucket cap alone, 0.45% of all NSMC sentences were removed,
    85% of a hand-read sample unrelated; the source cap has no margin because a
    source's "unrelated" sentences hold real copies too, 15% of that sample).
    Each kind's recall in each length bucket holding at least
    `MIN_BUCKET_ITEMS` of it is scored against `CALIBRATION_RECALL` (the targets with
    half their miss rate as a margin) as ``min(recall / target, 1)``; the chosen
    configuration has the highest sum of these, then removes the fewest unrelated
    sentences (sum of the per-bucket rates), then has the higher recall. So recall
    beyond a bucket's target is never bought with collateral removals, also when
    some bucket cannot reach its target (an earlier rule then maximised recall, and
    spent the whole false-positive cap on the calibration half: held-out removals of
    unrelated sentences rose to 0.65-1.25% in the long buckets, seed 1).

    A sentence is removed when any signal fires, and each signal reads only its own
    thresholds (`SIGNAL_PARAMS`), so every signal's removals are computed once per
    value of its thresholds and the grid combines them (the BM25 threshold as one
    matrix product per configuration of the others).
    """
    label = np.array([it["label"] for it in items])
    kind = np.array([it["kind"] for it in items])
    bucket = np.array([it["bucket"] for it in items])
    source = np.array([it.get("source", "") for it in items])
    groups = [mask & (label == 0) & (bucket == bucket_of(lo)) for lo, _ in BUCKETS]
    n_bucket = len(groups)
    sources = sorted(set(source.tolist()) - {""})
    groups += [mask & (source == s) for s in sources]
    n_neg = len(groups)
    neg_names = [bucket_of(lo) for lo, _ in BUCKETS] + sources
    cap = np.array([max_fp] * n_bucket + [max_fp_source] * (n_neg - n_bucket))
    pos_kinds = []
    for k in TARGETS:
        for lo, _ in BUCKETS:
            m = mask & (kind == k) & (bucket == bucket_of(lo))
            if m.sum() >= MIN_BUCKET_ITEMS:
                groups.append(m)
                pos_kinds.append(k)
    groups.append(mask & (label == 1))
    g = np.stack(groups, axis=1).astype(np.float32)  # (items, groups)
    size = np.maximum(g.sum(axis=0), 1)
    need = np.array([CALIBRATION_RECALL[k] for k in pos_kinds])
    names = list(GRID)
    fired: dict[str, dict[tuple, np.ndarray]] = {}
    base = {k: v[0] for k, v in GRID.items()}  # lengths the features were computed for
    for sig, params in SIGNAL_PARAMS.items():
        fired[sig] = {}
        for values in itertools.product(*(GRID[p] for p in params)):
            cfg = MatchConfig(**{**base, **dict(zip(params, values, strict=True))})
            f = with_variants(feats, contain, overlap, cfg)
            fired[sig][values] = matcher.fires(f, cfg)[sig][0]
    # only items some configuration removes and another keeps change the counts
    always = fired["exact"][tuple(base[p] for p in SIGNAL_PARAMS["exact"])]
    ever = np.logical_or.reduce([m for ms in fired.values() for m in ms.values()])
    active = ever & ~always
    const = always.astype(np.float32) @ g
    g = g[active]
    fired = {k: {v: m[active] for v, m in ms.items()} for k, ms in fired.items()}
    # Per configuration of the others, the BM25 thresholds are one matrix product, and
    # rare_quote's counts add the few items it fires on that the rest keep.
    counts, thresholds = GRID["quote_max_per_million"], GRID["threshold"]
    others = [n for n in names if n not in ("threshold", "quote_max_per_million")]
    rare = np.stack([fired["rare_quote"][(n,)] for n in counts])  # (rates, active)
    rare_items = np.flatnonzero(rare.any(axis=0))
    rare, g_rare = rare[:, rare_items], g[rare_items]

    def search(cap: np.ndarray) -> tuple[MatchConfig, tuple, np.ndarray]:
        best, best_key = None, None
        lowest = np.full(n_neg, np.inf, dtype=np.float32)
        for values in itertools.product(*(GRID[n] for n in others)):
            c = dict(zip(others, values, strict=True))
            if c["short_share"] == 0 and c["short_weight"] > 0:
                continue  # near_copy off: its weight does not matter
            base = np.zeros(int(active.sum()), dtype=bool)
            for sig, params in SIGNAL_PARAMS.items():
                if sig not in ("bm25", "rare_quote"):
                    base |= fired[sig][tuple(c[p] for p in params)]
            fire = np.stack([fired["bm25"][(c["short_chars"], t)] for t in thresholds]) | base
            more = ~fire[:, None, rare_items] & rare[None]  # (thresholds, rates, rare items)
            r = (fire.astype(np.float32) @ g)[:, None, :] + more.astype(np.float32) @ g_rare
            r = ((r + const) / size).reshape(len(thresholds) * len(counts), -1)
            lowest = np.minimum(lowest, r[:, :n_neg].min(axis=0))
            i, key = _best_row(r, n_neg, cap, need)
            if best_key is None or key > best_key:
                t, n = thresholds[i // len(counts)], counts[i % len(counts)]
                best, best_key = MatchConfig(threshold=t, quote_max_per_million=n, **c), key
        return best, best_key, lowest

    best, best_key, lowest = search(cap)
    info: dict = {"meets_fp_cap": best_key[0] == 1}
    if best_key[0] == 0:
        # A group no configuration keeps under its cap (its "unrelated" sentences hold
        # real copies that every configuration removes) is held to the lowest rate any
        # configuration reaches there, and the others keep their caps: otherwise every
        # group could rise to the worst group's ratio to buy recall.
        relaxed = np.maximum(cap, lowest)
        best, best_key, _ = search(relaxed)
        pairs = zip(neg_names, relaxed, cap, strict=True)
        raised = {name: round(float(v), 6) for name, v, c in pairs if v > c}
        info["caps_raised_to_lowest_reachable"] = raised
        print(
            f"WARNING: no grid configuration removes at most {max_fp:.2%} of unrelated "
            f"sentences in every bucket and {max_fp_source:.2%} in every source on the "
            f"calibration half; these groups are held to the lowest rate reached: {raised}",
            file=sys.stderr,
        )
    info["objective"] = [float(k) for k in best_key]
    info["meets_relaxed_caps"] = best_key[0] == 1
    return best, info


def _best_row(
    rates: np.ndarray, n_neg: int, cap: np.ndarray, need: np.ndarray
) -> tuple[int, tuple]:
    """The best row of `rates` (configurations x groups: the unrelated groups, then the
    positive groups scored against `need`, then all positives) and its key, for `choose`.

    Under the caps: (1, recall score, -sum of unrelated rates, recall); above them (only
    while no configuration meets them): (0, -worst rate / cap, recall score, recall).
    The greater key wins, the first row among equal ones."""
    fps = rates[:, :n_neg]
    ok = (fps <= cap).all(axis=1)
    met = np.round(np.minimum(rates[:, n_neg:-1] / need, 1.0).sum(axis=1).astype(np.float64), 6)
    fp_sum = np.round(fps.sum(axis=1).astype(np.float64), 9)
    worst = np.round((fps / np.maximum(cap, 1e-12)).max(axis=1).astype(np.float64), 9)
    recall = rates[:, -1].astype(np.float64)
    k1, k2 = np.where(ok, met, -worst), np.where(ok, -fp_sum, met)
    i = int(np.lexsort((-np.arange(len(rates)), recall, k2, k1, ok))[-1])
    return i, (int(ok[i]), float(k1[i]), float(k2[i]), float(recall[i]))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m corpus.calibrate", description=__doc__.split("\n")[0]
    )
    p.add_argument("--benchmark-dir", default=None, help="KLUE folder (default: data dir rules)")
    p.add_argument("--corpus", required=True, help="the shared corpus folder (sources under it)")
    p.add_argument("--output", required=True, help="folder for calibration.json")
    p.add_argument("--index-dir", default=None, help="benchmark index cache (as corpus.dedup)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--edited", type=int, default=1200, help="edited positives")
    p.add_argument("--quoted", type=int, default=1200, help="quoted-inside-longer positives")
    p.add_argument("--lookalike", type=int, default=1200, help="look-alike negatives")
    p.add_argument("--per-bucket", type=int, default=4000, help="random negatives per bucket")
    p.add_argument("--per-source", type=int, default=1000, help="corpus sample size unit")
    p.add_argument("--max-fp", type=float, default=0.0025, help="FP cap per bucket (calibration)")
    p.add_argument(
        "--max-fp-source", type=float, default=0.005, help="FP cap per source (calibration)"
    )
    p.add_argument(
        "--calibration-only",
        action="store_true",
        help="report the calibration half only (while developing: keeps the held-out half unseen)",
    )
    args = p.parse_args(argv)
    from corpus.dedup import benchmark_sentences, load_matcher, load_or_build_index
    from corpus.klue import benchmark_texts, resolve_klue_dir

    t0 = time.time()
    klue_dir = str(resolve_klue_dir(args.benchmark_dir))
    index_dir = args.index_dir or os.path.join(args.output, "index")
    load_or_build_index(klue_dir, index_dir, "morph", load=False)
    # every feature of every grid point: calibration builds its own near-exact table to the
    # longest key (a decontamination worker indexes only what its short_chars reads)
    cfg = MatchConfig(near_exact_edits=1).to_dict()
    matcher = load_matcher(index_dir, cfg, near_chars=NEAR_MAX_CHARS)
    sents, _ = benchmark_sentences(benchmark_texts(klue_dir))
    corpus = corpus_sentences(args.corpus, args.per_source, args.seed)
    items = build_set(sents, matcher, corpus, args)
    texts = [it["text"] for it in items]
    print(f"{len(sents)} benchmark sentences, {len(items)} labelled items", file=sys.stderr)
    positives = [it["text"] for it in items if it["label"] == 1]
    counts, n_corpus = corpus_phrase_counts(args.corpus, matcher, positives)
    matcher.set_phrase_counts(counts, n_corpus)
    print(f"phrase counts over {n_corpus} corpus sentences", file=sys.stderr)
    feats, contain, overlap = grid_features(matcher, texts)
    copies = certain_copies(feats, overlap, items)
    for i in np.flatnonzero(copies):
        items[i]["half"] = "copy"  # in neither half
    print(f"{int(copies.sum())} drawn 'unrelated' sentences are copies: excluded", file=sys.stderr)
    half = np.array([it["half"] for it in items])
    cal = half == "calibration"
    cfg, info = choose(
        matcher, feats, contain, overlap, items, cal, args.max_fp, args.max_fp_source
    )
    res = matcher.decide(with_variants(feats, contain, overlap, cfg), cfg)
    removed = res.doc >= 0
    halves = ["calibration"] + ([] if args.calibration_only else ["held_out"])
    report: dict = {"seed": args.seed, "chosen": cfg.to_dict(), "choice": info}
    report["excluded_copies"] = [
        {"text": it["text"], "kind": it["kind"], "bucket": it["bucket"]}
        for it in items
        if it["half"] == "copy"
    ]
    for name in halves:
        m = half == name
        report[name] = evaluate(items, removed, m)
        report[f"{name}_removals"] = [
            {
                "text": it["text"],
                "kind": it["kind"],
                "bucket": it["bucket"],
                "signal": s,
                "score": round(float(sc), 4),
                "benchmark": sents[d],
            }
            for it, d, s, sc in zip(items, res.doc, res.signal, res.score, strict=True)
            if d >= 0 and it["half"] == name and it["label"] == 0
        ]  # fmt: skip
        report[f"{name}_misses"] = [
            {
                "text": it["text"],
                "kind": it["kind"],
                "edit": it.get("edit"),
                "bucket": it["bucket"],
                "benchmark": sents[it["doc"]],
            }
            for it, d in zip(items, res.doc, strict=True)
            if d < 0 and it["half"] == name and it["label"] == 1
        ]
    report["seconds"] = round(time.time() - t0, 1)
    os.makedirs(args.output, exist_ok=True)
    with open(os.path.join(args.output, "calibration.json"), "w", encoding="utf-8") as fh:
        json.dump(report, fh, ensure_ascii=False, indent=1)
    print(f"chosen: {json.dumps(cfg.to_dict())}")
    for name in halves:
        _print_half(name, report[name])
    return 0


def _print_half(name: str, h: dict) -> None:
    print(
        f"\n{name}: recall edited {h['recall']['edited']:.3f}, quoted {h['recall']['quoted']:.3f}"
    )
    print("\n| length (chars) | edited recall | quoted recall | unrelated removed |")
    print("|---|---|---|---|")
    for lo, _ in BUCKETS:
        b = bucket_of(lo)
        e = h["recall_by_bucket"]["edited"].get(b, [0, 0])
        qq = h["recall_by_bucket"]["quoted"].get(b, [0, 0])
        u = h["unrelated_removed"][b]
        print(
            f"| {b} | {_frac(e)} | {_frac(qq)} | {u[0]}/{u[1]} ({100 * u[0] / max(u[1], 1):.2f}%) |"
        )
    print(f"\nlook-alikes removed: {h['lookalikes_removed']}; by edit: {h['recall_by_edit']}")
    by_source = {
        s: f"{a}/{n} ({100 * a / max(n, 1):.2f}%)"
        for s, (a, n) in h["unrelated_removed_by_source"].items()
    }
    print(f"random sentences removed by source: {by_source}")


def _frac(x: list[int]) -> str:
    return f"{x[0]}/{x[1]} ({x[0] / x[1]:.3f})" if x[1] else "-"


if __name__ == "__main__":
    from corpus.cli import run

    run(main)
