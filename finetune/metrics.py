"""The official metrics of the eight KLUE tasks, exactly as the KLUE baseline computes them.

API (pure functions, no I/O; every value is a Python float on the 0-100 scale)::

    ynat(gold, pred)                         -> {"ynat_macro_f1"}
    sts(gold, pred)                          -> {"sts_pearsonr", "sts_f1"}
    nli(gold, pred)                          -> {"nli_accuracy"}
    ner(gold_tags, pred_tags, sentences)     -> {"ner_entity_f1", "ner_char_f1", "ner_char_f1_no_o"}
    re(gold, pred, probs, no_relation=0)     -> {"re_micro_f1", "re_auprc"}
    dp(gold_heads, gold_deprels, pred_heads, pred_deprels)
        -> {"dp_uas_macro_f1", "dp_uas_micro_f1", "dp_las_macro_f1", "dp_las_micro_f1",
            "dp_uas", "dp_las"}
    mrc(gold_answers, pred_answers[, types]) -> {"mrc_exact_match", "mrc_rouge_w"} (+ per type)
    wos(gold_states, pred_states)            -> {"wos_joint_goal_accuracy", "wos_slot_f1"}

    METRICS[task](...)   the same functions by task name; METRIC_NAMES[task] their keys
    DP_DEPRELS           the 38 DP labels in the baseline's id order (ids >= 15 merge in LAS)
    normalize_answer(s), rouge_w(pred, gold)   the MRC helpers

Inputs are one entry per scored unit, in the same order on both sides:
labels are names (or any hashable ids, used consistently); ``ner`` takes per
sentence the tag lists and the sentence text (one tag per character); ``re``
takes relation ids (``relation_list.json`` order) and an ``(n, classes)``
array of softmax probabilities; ``dp`` takes per sentence the head indices
(0 = root; a gold head of -1 marks a padded position, dropped) and the deprel
names (or ids into `DP_DEPRELS`); ``mrc`` takes per question the list of gold
answer texts (empty = unanswerable) and the predicted text; ``wos`` takes per
user turn the cumulative ``domain-slot-value`` lists. `finetune.prediction_files`
turns prediction files and gold examples into these inputs, so the command line
and the trainer get identical numbers.

Definitions follow ``../shared/docs/klue-metrics.md`` (the KLUE baseline at
commit 8a03c94, ``klue_baseline/metrics``), written independently here in
numpy; the tests check them against scikit-learn, seqeval and scipy. The
baseline's quirks are kept on purpose because the published tables used
them: macro averages run over the union of gold and predicted labels (a
label only the prediction uses counts with F1 0); NER scores all sentences
as one sequence with spaces removed, and its character F1 includes ``O``
(``ner_char_f1_no_o`` is the paper's variant); DP's "UAS"/"LAS" are F1 over
head indices / merged labels (``dp_uas``/``dp_las`` are the standard
accuracies); MRC's "ROUGE-W" is the F1 of the longest common substring.
"""

from __future__ import annotations

import difflib
import math
import re as regex
import string
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from corpus.klue.ner import TAGS as NER_TAGS

__all__ = [
    "DP_DEPRELS",
    "DP_MERGED_FROM",
    "METRICS",
    "METRIC_NAMES",
    "dp",
    "mrc",
    "ner",
    "nli",
    "normalize_answer",
    "re",
    "rouge_w",
    "sts",
    "wos",
    "ynat",
]

#: DP dependency labels in the KLUE baseline's id order.
DP_DEPRELS = (
    "NP", "NP_AJT", "VP", "NP_SBJ", "VP_MOD", "NP_OBJ", "AP", "NP_CNJ", "NP_MOD", "VNP",
    "DP", "VP_AJT", "VNP_MOD", "NP_CMP", "VP_SBJ", "VP_CMP", "VP_OBJ", "VNP_CMP", "AP_MOD",
    "X_AJT", "VP_CNJ", "VNP_AJT", "IP", "X", "X_SBJ", "VNP_OBJ", "VNP_SBJ", "X_OBJ", "AP_AJT",
    "L", "X_MOD", "X_CNJ", "VNP_CNJ", "X_CMP", "AP_CMP", "AP_SBJ", "R", "NP_SVJ",
)  # fmt: skip
#: In the LAS F1 scores, deprel ids from this one on form a single "other" class.
DP_MERGED_FROM = 15
_DP_ID = {name: i for i, name in enumerate(DP_DEPRELS)}
_LAS_OTHER = DP_MERGED_FROM  # the merged class
_LAS_SENTINEL = -2  # the predicted label where the head is wrong: never equals a gold label
#: STS: a score at or above this is "similar" in the F1 metric.
STS_THRESHOLD = 3.0
#: The MRC normaliser's bracket pattern: a quote or bracket followed by the literal "()‘’"
#: (it practically never matches, but it is part of the baseline's normaliser).
_MRC_BRACKETS = regex.compile(r"[\'\"《》<>〈〉]\(\)‘’")
_PUNCTUATION = str.maketrans("", "", string.punctuation)

#: KLUE-MRC's question types: 1 paraphrase, 2 multi-sentence reasoning, 3 unanswerable.
MRC_QUESTION_TYPES = (1, 2, 3)

METRIC_NAMES: dict[str, tuple[str, ...]] = {
    "ynat": ("ynat_macro_f1",),
    "sts": ("sts_pearsonr", "sts_f1"),
    "nli": ("nli_accuracy",),
    "ner": ("ner_entity_f1", "ner_char_f1", "ner_char_f1_no_o"),
    "re": ("re_micro_f1", "re_auprc"),
    "dp": (
        "dp_uas_macro_f1",
        "dp_uas_micro_f1",
        "dp_las_macro_f1",
        "dp_las_micro_f1",
        "dp_uas",
        "dp_las",
    ),
    "mrc": (
        "mrc_exact_match",
        "mrc_rouge_w",
        *(f"{m}_type{t}" for m in ("mrc_exact_match", "mrc_rouge_w") for t in (1, 2, 3)),
    ),
    "wos": ("wos_joint_goal_accuracy", "wos_slot_f1"),
}


# ---------------------------------------------------------------------------------------------
# shared pieces


def _check_pair(gold: Sequence, pred: Sequence, what: str = "examples") -> int:
    if len(gold) != len(pred):
        raise ValueError(f"{len(gold)} gold {what} but {len(pred)} predictions")
    if len(gold) == 0:
        raise ValueError(f"no {what} to score")
    return len(gold)


def _pct(x: float) -> float:
    return float(x) * 100.0


def _counts(gold: np.ndarray, pred: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per label of the union of `gold` and `pred`: true positives, gold and predicted counts."""
    both = np.concatenate([gold, pred])
    labels, inverse = np.unique(both, return_inverse=True)
    g, p = inverse[: len(gold)], inverse[len(gold) :]
    k = len(labels)
    tp = np.bincount(g[g == p], minlength=k)
    return tp, np.bincount(g, minlength=k), np.bincount(p, minlength=k)


def _f1(tp: np.ndarray, n_gold: np.ndarray, n_pred: np.ndarray, zero_division: float = 0.0):
    """F1 = 2TP / (gold + predicted) per label; `zero_division` where both counts are 0."""
    denominator = n_gold + n_pred
    safe = np.where(denominator > 0, denominator, 1)
    return np.where(denominator > 0, 2.0 * tp / safe, zero_division)


def _macro_f1(gold: np.ndarray, pred: np.ndarray) -> float:
    """scikit-learn's ``f1_score(average="macro")``: mean F1 over the union of labels."""
    return float(np.mean(_f1(*_counts(gold, pred))))


def _labels(values: Sequence[Hashable]) -> np.ndarray:
    """Labels as a numpy array that `np.unique` can sort (names or ints, not mixed)."""
    arr = values if isinstance(values, np.ndarray) else np.asarray(list(values))
    if arr.dtype == object:
        raise ValueError("labels must be all names or all integer ids, not mixed")
    return arr


# ---------------------------------------------------------------------------------------------
# sentence classification and similarity


def ynat(gold: Sequence[Hashable], pred: Sequence[Hashable]) -> dict[str, float]:
    """Macro F1 over the topics (union of gold and predicted labels)."""
    _check_pair(gold, pred)
    return {"ynat_macro_f1": _pct(_macro_f1(_labels(gold), _labels(pred)))}


def nli(gold: Sequence[Hashable], pred: Sequence[Hashable]) -> dict[str, float]:
    """Accuracy."""
    _check_pair(gold, pred)
    g, p = _labels(gold), _labels(pred)
    return {"nli_accuracy": _pct(np.mean(g == p))}


def pearson(x: Sequence[float], y: Sequence[float]) -> float:
    """Pearson's r in float64 (NaN when either side is constant, as scipy returns)."""
    a = np.asarray(x, dtype=np.float64)
    b = np.asarray(y, dtype=np.float64)
    if len(a) < 2:
        raise ValueError("Pearson's r needs at least 2 examples")
    am, bm = a - a.mean(), b - b.mean()
    na, nb = np.linalg.norm(am), np.linalg.norm(bm)
    if na == 0.0 or nb == 0.0:
        return math.nan
    return float(np.clip(np.dot(am / na, bm / nb), -1.0, 1.0))


def sts(gold: Sequence[float], pred: Sequence[float]) -> dict[str, float]:
    """Pearson r of the raw scores (no clipping); binary F1 after thresholding both at 3.0.

    `gold` is ``labels["real-label"]``. r is NaN when the predictions (or the
    gold scores) are all equal.
    """
    _check_pair(gold, pred)
    g = np.asarray(gold, dtype=np.float64)
    p = np.asarray(pred, dtype=np.float64)
    gb, pb = g >= STS_THRESHOLD, p >= STS_THRESHOLD
    tp = int(np.sum(gb & pb))
    denominator = int(gb.sum() + pb.sum())
    f1 = 2.0 * tp / denominator if denominator else 0.0
    return {"sts_pearsonr": _pct(pearson(p, g)), "sts_f1": _pct(f1)}


# ---------------------------------------------------------------------------------------------
# NER


def iob2_entities(tags: Sequence[str]) -> list[tuple[int, int, str]]:
    """Strict IOB2 chunks ``(start, end_exclusive, type)``: ``B-X`` then any ``I-X``.

    A stray ``I-X`` (after ``O`` or another type) starts nothing: it is not an
    entity in strict mode (seqeval ``mode="strict", scheme=IOB2``).
    """
    out: list[tuple[int, int, str]] = []
    start, kind, inside = -1, "", ""
    for i, tag in enumerate(tags):
        if start >= 0:
            if tag == inside:
                continue
            out.append((start, i, kind))
            start = -1
        if tag.startswith("B-"):
            start, kind, inside = i, tag[2:], "I-" + tag[2:]
    if start >= 0:
        out.append((start, len(tags), kind))
    return out


def _entity_macro_f1(gold: Sequence[str], pred: Sequence[str]) -> float:
    """seqeval's strict IOB2 entity F1, macro over the entity types found in gold or pred."""
    gold_entities = set(iob2_entities(gold))
    pred_entities = set(iob2_entities(pred))
    types = sorted({e[2] for e in gold_entities | pred_entities})
    if not types:
        return math.nan  # seqeval: the mean over no entity type is undefined
    scores = []
    for t in types:
        g = {e for e in gold_entities if e[2] == t}
        p = {e for e in pred_entities if e[2] == t}
        scores.append(2.0 * len(g & p) / (len(g) + len(p)))
    return float(np.mean(scores))


def ner(
    gold_tags: Sequence[Sequence[str]],
    pred_tags: Sequence[Sequence[str]],
    sentences: Sequence[str],
) -> dict[str, float]:
    """Entity F1 and character F1 (with and without ``O``), as the baseline scores NER.

    Every sentence is concatenated into ONE tag sequence after dropping the
    positions whose character is a space ``" "`` (on both sides), so an entity
    may run across a sentence boundary exactly as in the baseline (entity F1 is
    NaN, as in seqeval, when neither side has any entity). Character F1
    is macro over all 13 tags with ``zero_division=1`` (a tag absent from both
    sides scores 1); ``ner_char_f1_no_o`` averages the 12 entity tags only.
    """
    _check_pair(gold_tags, pred_tags, "sentences")
    _check_pair(gold_tags, sentences, "sentences")
    gold_flat: list[str] = []
    pred_flat: list[str] = []
    for i, (g, p, text) in enumerate(zip(gold_tags, pred_tags, sentences, strict=True)):
        if not len(g) == len(p) == len(text):
            raise ValueError(
                f"sentence {i}: {len(text)} characters, {len(g)} gold tags, {len(p)} predicted"
            )
        keep = [j for j, ch in enumerate(text) if ch != " "]
        gold_flat.extend(g[j] for j in keep)
        pred_flat.extend(p[j] for j in keep)
    if not gold_flat:
        raise ValueError("no characters to score")
    index = {t: i for i, t in enumerate(NER_TAGS)}
    unknown = sorted((set(gold_flat) | set(pred_flat)) - set(index))
    if unknown:
        raise ValueError(f"unknown NER tags: {unknown[:10]}")
    gi = np.fromiter((index[t] for t in gold_flat), np.int64, len(gold_flat))
    pi = np.fromiter((index[t] for t in pred_flat), np.int64, len(pred_flat))
    k = len(NER_TAGS)
    tp = np.bincount(gi[gi == pi], minlength=k)
    per_tag = _f1(tp, np.bincount(gi, minlength=k), np.bincount(pi, minlength=k), 1.0)
    entity_tags = [index[t] for t in NER_TAGS if t != "O"]
    return {
        "ner_entity_f1": _pct(_entity_macro_f1(gold_flat, pred_flat)),
        "ner_char_f1": _pct(np.mean(per_tag)),
        "ner_char_f1_no_o": _pct(np.mean(per_tag[entity_tags])),
    }


# ---------------------------------------------------------------------------------------------
# RE


def auprc(is_positive: np.ndarray, scores: np.ndarray) -> float:
    """Area under the precision-recall curve by trapezoids, as scikit-learn's
    ``auc(recall, precision)`` after ``precision_recall_curve`` (not average precision).

    One point per distinct score (highest first), then the point (recall 0,
    precision 1). With no positive example recall is 1 at every threshold, so
    the area is 0.5 (scikit-learn's convention, kept).
    """
    y = np.asarray(is_positive, dtype=bool)
    s = np.asarray(scores, dtype=np.float64)
    order = np.argsort(-s, kind="stable")
    s, y = s[order], y[order]
    last_of_group = np.r_[np.flatnonzero(np.diff(s)), len(s) - 1]
    tps = np.cumsum(y)[last_of_group].astype(np.float64)
    predicted = last_of_group + 1.0
    precision = tps / predicted
    recall = tps / tps[-1] if tps[-1] > 0 else np.ones_like(tps)
    # from the lowest threshold (recall 1) to the highest, then (0, 1)
    precision = np.r_[precision[::-1], 1.0]
    recall = np.r_[recall[::-1], 0.0]
    return float(np.sum((recall[:-1] - recall[1:]) * (precision[:-1] + precision[1:]) / 2.0))


def re(  # noqa: A001 - the task's name
    gold: Sequence[int],
    pred: Sequence[int],
    probs: Any,
    *,
    no_relation: int = 0,
) -> dict[str, float]:
    """Micro F1 over every relation except ``no_relation``; mean one-vs-rest AUPRC over
    all classes (the columns of `probs`, 30 in KLUE, ``no_relation`` included)."""
    n = _check_pair(gold, pred)
    g = np.asarray(gold, dtype=np.int64)
    p = np.asarray(pred, dtype=np.int64)
    prob = np.asarray(probs, dtype=np.float64)
    if prob.ndim != 2 or prob.shape[0] != n:
        raise ValueError(f"probs must have shape ({n}, classes), got {prob.shape}")
    classes = prob.shape[1]
    for name, ids in (("gold", g), ("predicted", p)):
        if ids.min() < 0 or ids.max() >= classes:
            raise ValueError(f"{name} relation ids must lie in 0..{classes - 1}")
    tp = int(np.sum((g == p) & (g != no_relation)))
    denominator = int(np.sum(g != no_relation) + np.sum(p != no_relation))
    micro = 2.0 * tp / denominator if denominator else 0.0
    area = np.mean([auprc(g == c, prob[:, c]) for c in range(classes)])
    return {"re_micro_f1": _pct(micro), "re_auprc": _pct(area)}


# ---------------------------------------------------------------------------------------------
# DP


def _deprel_ids(values: Sequence[Any]) -> np.ndarray:
    ids = []
    for v in values:
        if isinstance(v, str):
            if v not in _DP_ID:
                raise ValueError(f"unknown DP label {v!r}")
            ids.append(_DP_ID[v])
        else:
            ids.append(int(v))
    return np.asarray(ids, dtype=np.int64)


def _flatten(nested: Sequence[Sequence[Any]]) -> list[Any]:
    return [x for inner in nested for x in inner]


def dp(
    gold_heads: Sequence[Sequence[int]],
    gold_deprels: Sequence[Sequence[Any]],
    pred_heads: Sequence[Sequence[int]],
    pred_deprels: Sequence[Sequence[Any]],
) -> dict[str, float]:
    """The baseline's DP scores plus the standard attachment scores.

    ``dp_uas_*_f1``: scikit-learn F1 treating each head INDEX as a class
    (macro over the union of indices; micro = attachment accuracy).
    ``dp_las_*_f1``: deprel ids >= 15 merged into one class on both sides,
    the predicted label replaced by a never-matching sentinel wherever the
    head is wrong, then macro / micro F1 over labels. ``dp_uas`` / ``dp_las``:
    fraction of words with the right head / right head and label (no merging).
    Words whose gold head is -1 (padding) are dropped.
    """
    _check_pair(gold_heads, pred_heads, "sentences")
    _check_pair(gold_heads, gold_deprels, "sentences")
    _check_pair(gold_heads, pred_deprels, "sentences")
    for i, (gh, gd, ph, pd) in enumerate(
        zip(gold_heads, gold_deprels, pred_heads, pred_deprels, strict=True)
    ):
        if not len(gh) == len(gd) == len(ph) == len(pd):
            raise ValueError(
                f"sentence {i}: {len(gh)} gold heads, {len(gd)} gold labels, "
                f"{len(ph)} predicted heads, {len(pd)} predicted labels"
            )
    gh = np.asarray(_flatten(gold_heads), dtype=np.int64)
    ph = np.asarray(_flatten(pred_heads), dtype=np.int64)
    gd = _deprel_ids(_flatten(gold_deprels))
    pd = _deprel_ids(_flatten(pred_deprels))
    keep = gh != -1
    gh, ph, gd, pd = gh[keep], ph[keep], gd[keep], pd[keep]
    if len(gh) == 0:
        raise ValueError("no words to score")
    head_ok = gh == ph
    g_las = np.where(gd >= DP_MERGED_FROM, _LAS_OTHER, gd)
    p_las = np.where(pd >= DP_MERGED_FROM, _LAS_OTHER, pd)
    p_las = np.where(head_ok, p_las, _LAS_SENTINEL)
    return {
        "dp_uas_macro_f1": _pct(_macro_f1(gh, ph)),
        "dp_uas_micro_f1": _pct(np.mean(head_ok)),
        "dp_las_macro_f1": _pct(_macro_f1(g_las, p_las)),
        "dp_las_micro_f1": _pct(np.mean(g_las == p_las)),
        "dp_uas": _pct(np.mean(head_ok)),
        "dp_las": _pct(np.mean(head_ok & (gd == pd))),
    }


# ---------------------------------------------------------------------------------------------
# MRC


def normalize_answer(text: str) -> str:
    """The baseline's MRC normaliser: lower-case, the (inert) bracket pattern to a space,
    every ASCII punctuation character removed, runs of white space collapsed."""
    text = _MRC_BRACKETS.sub(" ", text.lower())
    return " ".join(text.translate(_PUNCTUATION).split())


def rouge_w(pred: str, gold: str) -> float:
    """The baseline's "ROUGE-W" of two normalised answers, in 0..1.

    F1 of the longest common contiguous substring (precision over the
    prediction's length, recall over the gold's); an empty gold scores 1 only
    for an empty prediction. The substring is found with `difflib` as the
    baseline does, so for a gold answer of 200+ characters difflib's
    "popular character" heuristic applies too (real answers are far shorter).
    """
    if gold == "":
        return float(pred == "")
    if pred == "":
        return 0.0
    size = difflib.SequenceMatcher(None, pred, gold).find_longest_match(0, len(pred), 0, len(gold))
    common = size.size
    if common == 0:
        return 0.0
    precision, recall = common / len(pred), common / len(gold)
    return 2.0 * precision * recall / (precision + recall)


def mrc(
    gold_answers: Sequence[Sequence[str]],
    pred_answers: Sequence[str],
    question_types: Sequence[int] | None = None,
) -> dict[str, float]:
    """Exact match and ROUGE-W, each the max over a question's gold answers, mean over
    questions. An unanswerable question (no gold answer) has the single gold answer "".

    With ``question_types`` (KLUE-MRC's 1 paraphrase, 2 multi-sentence reasoning, 3
    unanswerable) also each type's mean, ``mrc_exact_match_type1`` ... ``mrc_rouge_w_type3``,
    as the baseline logs them (NaN for a type without questions)."""
    _check_pair(gold_answers, pred_answers, "questions")
    if question_types is not None:
        _check_pair(gold_answers, question_types, "question types")
    em, rouge = [], []
    for answers, pred in zip(gold_answers, pred_answers, strict=True):
        p = normalize_answer(pred)
        golds = [normalize_answer(a) for a in answers] or [""]
        em.append(max(float(p == g) for g in golds))
        rouge.append(max(rouge_w(p, g) for g in golds))
    n = len(gold_answers)
    out = {"mrc_exact_match": _pct(sum(em) / n), "mrc_rouge_w": _pct(sum(rouge) / n)}
    for t in MRC_QUESTION_TYPES if question_types is not None else ():
        rows = [i for i, q in enumerate(question_types) if q == t]
        for name, values in (("mrc_exact_match", em), ("mrc_rouge_w", rouge)):
            mean = sum(values[i] for i in rows) / len(rows) if rows else math.nan
            out[f"{name}_type{t}"] = _pct(mean)
    return out


# ---------------------------------------------------------------------------------------------
# WoS (dialogue state tracking)


def turn_slot_f1(gold: Sequence[str], pred: Sequence[str]) -> float:
    """F1 of one turn's predicted state against the gold state (lists, as the baseline counts:
    each gold item found in the prediction is a hit, each predicted item not in gold a false
    positive). An empty gold state scores 1 for an empty prediction, else 0."""
    if not gold:
        return 0.0 if pred else 1.0
    predicted = set(pred)
    golden = set(gold)
    tp = sum(1 for x in gold if x in predicted)
    fn = len(gold) - tp
    fp = sum(1 for x in pred if x not in golden)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    return 2.0 * precision * recall / (precision + recall) if precision + recall else 0.0


def wos(
    gold_states: Sequence[Sequence[str]], pred_states: Sequence[Sequence[str]]
) -> dict[str, float]:
    """Joint goal accuracy (the predicted state SET equals the gold set) and slot F1 (the
    per-turn F1 of `turn_slot_f1` averaged over turns, not pooled), over user turns."""
    n = _check_pair(gold_states, pred_states, "turns")
    joint = sum(set(g) == set(p) for g, p in zip(gold_states, pred_states, strict=True))
    f1 = sum(turn_slot_f1(g, p) for g, p in zip(gold_states, pred_states, strict=True))
    return {"wos_joint_goal_accuracy": _pct(joint / n), "wos_slot_f1": _pct(f1 / n)}


METRICS = {
    "ynat": ynat,
    "sts": sts,
    "nli": nli,
    "ner": ner,
    "re": re,
    "dp": dp,
    "mrc": mrc,
    "wos": wos,
}
