"""Prediction files of the eight KLUE tasks: write, read, check against gold, and score.

API::

    write_predictions(task, preds, path, relations=None)   # JSON Lines, atomic, checked
    read_predictions(task, path) -> list[dict]             # JSON Lines (also .gz)
    validate(task, preds, gold, relations=None, allow_missing=False,
             missing_as_empty=False) -> Aligned
    score_predictions(task, preds, gold, relations=None, allow_missing=False,
                      missing_as_empty=False) -> dict
    evaluate(task, preds, gold, ...) -> Evaluation        # the metrics plus the counts
    gold_predictions(task, gold, relations=None) -> list[dict]   # perfect predictions
    gold_units(task, gold) -> dict[guid, unit]             # what one prediction line scores

A prediction is a dict in the file's object format (``../shared/docs/klue-formats.md``):

    ynat {"guid", "label"}   sts {"guid", "score"}   nli {"guid", "label"}
    ner  {"guid", "tags": [one per character, spaces included]}
    re   {"guid", "label", "probs": [one per relation, relation_list.json order]}
    dp   {"guid", "heads": [int per word], "deprels": [label per word]}
    mrc  {"guid": question guid, "answer": text or ""}
    wos  {"guid": "<dialogue guid>:<user turn index from 0>", "state": ["domain-slot-value"]}

`gold` is the list of typed examples of a split as `corpus.klue` reads them.
The trainer and ``python -m finetune.evaluate`` both go through
`score_predictions`, so their numbers are identical. Every prediction must
match one gold unit: missing, duplicate or unknown ids, wrong label names,
wrong lengths and non-finite numbers raise `PredictionError`, which lists
each kind of problem with its count and first 10 ids; ``allow_missing``
scores only the units present, ``missing_as_empty`` (MRC and WoS only) scores
a missing unit as the empty prediction (answer ``""``, state ``[]``);
duplicates and unknown ids stay errors either way.
"""

from __future__ import annotations

import json
import math
import numbers
import os
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from corpus.klue import nli as klue_nli
from corpus.klue import ynat as klue_ynat
from corpus.klue.ner import TAGS as NER_TAGS
from corpus.klue.wos import split_state
from corpus.textio import InputError, iter_lines
from finetune import metrics

TASKS = ("ynat", "sts", "nli", "ner", "re", "dp", "mrc", "wos")
#: The fields of each task's prediction object besides ``guid``.
FIELDS = {
    "ynat": ("label",),
    "sts": ("score",),
    "nli": ("label",),
    "ner": ("tags",),
    "re": ("label", "probs"),
    "dp": ("heads", "deprels"),
    "mrc": ("answer",),
    "wos": ("state",),
}
#: How far the RE probabilities of one example may sum from 1 (rounding when written).
PROBS_SUM_TOLERANCE = 1e-2
#: The empty prediction of the tasks that have one (for ``missing_as_empty``).
EMPTY_PREDICTION = {"mrc": {"answer": ""}, "wos": {"state": []}}
#: How many ids an error message names per kind of problem.
SHOWN_IDS = 10
_NER_TAGS = frozenset(NER_TAGS)
_DP_LABELS = frozenset(metrics.DP_DEPRELS)


class PredictionError(ValueError):
    """Bad predictions: `problems` maps a kind of problem to every id (or line) it affects."""

    def __init__(self, source: str, problems: dict[str, list[str]], hint: str = ""):
        self.source = source
        self.problems = problems
        total = sum(len(v) for v in problems.values())
        lines = [f"{source}: {total} bad prediction(s){hint}"]
        for kind, ids in problems.items():
            shown = ", ".join(ids[:SHOWN_IDS])
            more = f", ... ({len(ids) - SHOWN_IDS} more)" if len(ids) > SHOWN_IDS else ""
            lines.append(f"  {kind} ({len(ids)}): {shown}{more}")
        super().__init__("\n".join(lines))


def _check_task(task: str) -> None:
    if task not in FIELDS:
        raise ValueError(f"unknown KLUE task {task!r}; expected one of {', '.join(TASKS)}")


# ---------------------------------------------------------------------------------------------
# gold units


def gold_units(task: str, gold: Iterable[Any]) -> dict[str, Any]:
    """``{unit guid: gold unit}`` in gold order: the example itself, or for WoS the
    cumulative state (a tuple) of each user turn, keyed ``<dialogue guid>:<turn index>``."""
    _check_task(task)
    out: dict[str, Any] = {}
    for ex in gold:
        if task == "wos":
            items = [(f"{ex.guid}:{i}", t.state) for i, t in enumerate(ex.user_turns())]
        else:
            items = [(ex.guid, ex)]
        for guid, unit in items:
            if guid in out:
                raise ValueError(f"gold {task} data has the id {guid!r} twice")
            out[guid] = unit
    return out


def _relation_ids(relations: Sequence[str] | None) -> dict[str, int]:
    if relations is None:
        raise ValueError(
            "RE needs the relation names in relation_list.json order "
            "(corpus.klue.relations(), or relation_list.json beside the gold file)"
        )
    return {name: i for i, name in enumerate(relations)}


def gold_predictions(
    task: str, gold: Iterable[Any], relations: Sequence[str] | None = None
) -> list[dict]:
    """Perfect predictions of `gold` in the prediction-file format (RE probs are one-hot)."""
    units = gold_units(task, gold)
    ids = _relation_ids(relations) if task == "re" else {}
    out = []
    for guid, u in units.items():
        if task == "ynat":
            rec = {"label": u.label}
        elif task == "sts":
            rec = {"score": u.real_label}
        elif task == "nli":
            rec = {"label": u.gold_label}
        elif task == "ner":
            rec = {"tags": list(u.tags)}
        elif task == "re":
            probs = [0.0] * len(ids)
            probs[ids[u.label]] = 1.0
            rec = {"label": u.label, "probs": probs}
        elif task == "dp":
            rec = {"heads": u.heads, "deprels": u.deprels}
        elif task == "mrc":
            rec = {"answer": u.answers[0].text if u.answers else ""}
        else:
            rec = {"state": list(u)}
        out.append({"guid": guid, **rec})
    return out


# ---------------------------------------------------------------------------------------------
# checking one record


def _is_number(x: Any) -> bool:
    return isinstance(x, numbers.Real) and not isinstance(x, bool | np.bool_)


def _is_int(x: Any) -> bool:
    return isinstance(x, numbers.Integral) and not isinstance(x, bool | np.bool_)


def record_problem(task: str, rec: Any, relations: Sequence[str] | None = None) -> str | None:
    """What is wrong with one prediction object on its own (None when it is well formed).

    The problem is a short kind such as ``"unknown label"`` or ``"non-finite
    score"``: errors group ids by it.
    """
    if not isinstance(rec, dict):
        return "not a JSON object"
    if not isinstance(rec.get("guid"), str):
        return "missing or non-string guid"
    for name in FIELDS[task]:
        if name not in rec:
            return f"missing field {name!r}"
    if task in ("ynat", "nli"):
        labels = klue_ynat.LABELS if task == "ynat" else klue_nli.LABELS
        if rec["label"] not in labels:
            return f"unknown label (expected one of {', '.join(labels)})"
    elif task == "sts":
        if not _is_number(rec["score"]):
            return "score is not a number"
        if not math.isfinite(rec["score"]):
            return "non-finite score (NaN or infinity)"
    elif task == "ner":
        tags = rec["tags"]
        if not isinstance(tags, list):
            return "tags is not a list"
        if not all(isinstance(t, str) and t in _NER_TAGS for t in tags):
            return "unknown NER tag"
    elif task == "re":
        if relations is not None and rec["label"] not in relations:
            return "unknown relation label"
        if not isinstance(rec["label"], str):
            return "label is not a string"
        probs = rec["probs"]
        if not isinstance(probs, list) or not all(_is_number(p) for p in probs):
            return "probs is not a list of numbers"
        if not all(math.isfinite(p) for p in probs):
            return "non-finite probability (NaN or infinity)"
        if any(p < 0.0 or p > 1.0 for p in probs) or (
            probs and abs(math.fsum(probs) - 1.0) > PROBS_SUM_TOLERANCE
        ):
            return "probs are not probabilities (each in 0..1, summing to 1: write the softmax)"
    elif task == "dp":
        heads, deprels = rec["heads"], rec["deprels"]
        if not isinstance(heads, list) or not all(_is_int(h) for h in heads):
            return "heads is not a list of integers"
        if not isinstance(deprels, list):
            return "deprels is not a list"
        if not all(isinstance(d, str) and d in _DP_LABELS for d in deprels):
            return "unknown DP label"
    elif task == "mrc":
        if not isinstance(rec["answer"], str):
            return "answer is not a string"
    elif task == "wos":
        state = rec["state"]
        if not isinstance(state, list) or not all(isinstance(s, str) for s in state):
            return "state is not a list of strings"
        for s in state:
            try:
                split_state(s)
            except ValueError:
                return "state item is not 'domain-slot-value'"
    return None


def _unit_problem(task: str, rec: dict, unit: Any, n_relations: int) -> tuple[str, str] | None:
    """What is wrong with a well-formed prediction given its gold unit (lengths, ranges):
    ``(kind, detail for this id)``, or None."""
    if task == "ner":
        n = len(unit.sentence)
        if len(rec["tags"]) != n:
            return (
                "wrong number of tags (one per character, spaces included)",
                f"{len(rec['tags'])} tags, {n} characters",
            )
    elif task == "re":
        if len(rec["probs"]) != n_relations:
            return (
                f"wrong number of probabilities (expected {n_relations})",
                f"{len(rec['probs'])}",
            )
    elif task == "dp":
        n = len(unit.words)
        if len(rec["heads"]) != n or len(rec["deprels"]) != n:
            return (
                "wrong number of words (one head and one label per word)",
                f"{len(rec['heads'])} heads, {len(rec['deprels'])} labels, {n} words",
            )
        bad = [h for h in rec["heads"] if h < 0 or h > n]
        if bad:
            return "head outside 0..number of words", f"head {bad[0]}, {n} words"
    return None


# ---------------------------------------------------------------------------------------------
# validation and scoring


@dataclass
class Aligned:
    """Predictions matched to their gold units, in gold order."""

    task: str
    guids: list[str]
    gold: list[Any]
    preds: list[dict]
    missing: list[str] = field(default_factory=list)  # left out (allow_missing)
    empty: list[str] = field(default_factory=list)  # scored as empty (missing_as_empty)

    @property
    def n_gold(self) -> int:
        return len(self.guids) + len(self.missing)


def validate(
    task: str,
    preds: Iterable[dict],
    gold: Iterable[Any],
    *,
    relations: Sequence[str] | None = None,
    allow_missing: bool = False,
    missing_as_empty: bool = False,
    source: str = "predictions",
) -> Aligned:
    """Matches `preds` to the gold units; raises `PredictionError` listing every problem."""
    _check_task(task)
    if allow_missing and missing_as_empty:
        raise ValueError("allow_missing and missing_as_empty exclude each other")
    if missing_as_empty and task not in EMPTY_PREDICTION:
        raise ValueError(
            f"{task} has no empty prediction: missing_as_empty (--missing-as-empty) works for "
            f"{' and '.join(EMPTY_PREDICTION)} only"
        )
    units = gold_units(task, gold)
    if task == "re":
        _relation_ids(relations)
    n_relations = len(relations) if relations is not None else 0
    problems: dict[str, list[str]] = {}
    bad: set[str] = set()  # guids with a problem: not also reported as missing
    by_guid: dict[str, dict] = {}
    duplicates: list[str] = []
    for i, rec in enumerate(preds):
        guid = rec.get("guid") if isinstance(rec, dict) else None
        name = guid if isinstance(guid, str) else f"record {i + 1}"
        if isinstance(guid, str) and guid not in units:
            problem = "unknown id (not in the gold data)"
        else:
            problem = record_problem(task, rec, relations)
        if problem is None:
            if guid in by_guid:
                if guid not in duplicates:
                    duplicates.append(guid)
                continue
            found = _unit_problem(task, rec, units[guid], n_relations)
            if found is not None:
                problem, detail = found
                name = f"{guid} ({detail})"
        if problem is not None:
            problems.setdefault(problem, []).append(name)
            bad.add(name if guid is None else str(guid))
            continue
        by_guid[guid] = rec
    if duplicates:
        problems["duplicate id"] = duplicates
    # a unit whose prediction is malformed counts as bad, not also as missing
    missing = [g for g in units if g not in by_guid and g not in bad]
    empty: list[str] = []
    if missing and missing_as_empty:
        empty, missing = missing, []
        for g in empty:
            by_guid[g] = {"guid": g, **EMPTY_PREDICTION[task]}
    if missing and not allow_missing:
        problems["missing id"] = missing
    if problems:
        hint = (
            " (allow_missing / --allow-missing scores only the ids present)"
            if set(problems) == {"missing id"}
            else ""
        )
        raise PredictionError(source, problems, hint)
    guids = [g for g in units if g in by_guid]
    if not guids:
        raise PredictionError(source, {"no prediction matches a gold id": missing[:SHOWN_IDS]})
    return Aligned(
        task, guids, [units[g] for g in guids], [by_guid[g] for g in guids], missing, empty
    )


def score_aligned(aligned: Aligned, relations: Sequence[str] | None = None) -> dict[str, float]:
    """The task's metrics (0-100) of validated predictions."""
    task, gold, preds = aligned.task, aligned.gold, aligned.preds
    if task == "ynat":
        return metrics.ynat([u.label for u in gold], [p["label"] for p in preds])
    if task == "sts":
        return metrics.sts([u.real_label for u in gold], [float(p["score"]) for p in preds])
    if task == "nli":
        return metrics.nli([u.gold_label for u in gold], [p["label"] for p in preds])
    if task == "ner":
        return metrics.ner(
            [u.tags for u in gold], [p["tags"] for p in preds], [u.sentence for u in gold]
        )
    if task == "re":
        ids = _relation_ids(relations)
        unknown = sorted({u.label for u in gold} - set(ids))
        if unknown:
            raise ValueError(f"gold RE labels not in the relation list: {unknown[:SHOWN_IDS]}")
        probs = np.asarray([p["probs"] for p in preds], dtype=np.float64)
        return metrics.re(
            [ids[u.label] for u in gold],
            [ids[p["label"]] for p in preds],
            probs,
            no_relation=ids["no_relation"],
        )
    if task == "dp":
        return metrics.dp(
            [u.heads for u in gold],
            [u.deprels for u in gold],
            [p["heads"] for p in preds],
            [p["deprels"] for p in preds],
        )
    if task == "mrc":
        return metrics.mrc(
            [[a.text for a in u.answers] for u in gold],
            [p["answer"] for p in preds],
            [u.question_type for u in gold],
        )
    return metrics.wos([list(u) for u in gold], [p["state"] for p in preds])


@dataclass(frozen=True)
class Evaluation:
    """The metrics of one task plus how many gold units were scored, left out (missing) and
    scored as empty."""

    task: str
    metrics: dict[str, float]
    n_scored: int
    n_missing: int
    n_empty: int = 0


def evaluate(
    task: str,
    preds: Iterable[dict],
    gold: Iterable[Any],
    *,
    relations: Sequence[str] | None = None,
    allow_missing: bool = False,
    missing_as_empty: bool = False,
    source: str = "predictions",
) -> Evaluation:
    """`validate` then `score_aligned`."""
    aligned = validate(
        task,
        preds,
        gold,
        relations=relations,
        allow_missing=allow_missing,
        missing_as_empty=missing_as_empty,
        source=source,
    )
    scores = score_aligned(aligned, relations)
    return Evaluation(task, scores, len(aligned.guids), len(aligned.missing), len(aligned.empty))


def score_predictions(
    task: str,
    preds: Iterable[dict],
    gold: Iterable[Any],
    *,
    relations: Sequence[str] | None = None,
    allow_missing: bool = False,
    missing_as_empty: bool = False,
) -> dict[str, float]:
    """The task's metrics (names of `metrics.METRIC_NAMES`, 0-100) of `preds` against `gold`."""
    return evaluate(
        task,
        preds,
        gold,
        relations=relations,
        allow_missing=allow_missing,
        missing_as_empty=missing_as_empty,
    ).metrics


# ---------------------------------------------------------------------------------------------
# files


def _plain(x: Any) -> Any:
    """numpy scalars and arrays as Python values, so that json can write them."""
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, list | tuple | np.ndarray):
        return [_plain(v) for v in x]
    if isinstance(x, np.generic):
        return x.item()
    return x


def write_predictions(
    task: str,
    preds: Iterable[dict],
    path: str | os.PathLike,
    *,
    relations: Sequence[str] | None = None,
) -> int:
    """Writes one JSON line per prediction (in the given order), atomically; returns the
    count. Each record is checked first (`record_problem`); numpy values are converted."""
    _check_task(task)
    records = [_plain(p) for p in preds]
    problems: dict[str, list[str]] = {}
    for i, rec in enumerate(records):
        problem = record_problem(task, rec, relations)
        if problem is not None:
            guid = rec.get("guid") if isinstance(rec, dict) else None
            problems.setdefault(problem, []).append(
                guid if isinstance(guid, str) else f"record {i + 1}"
            )
    if problems:
        raise PredictionError(str(path), problems)
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            for rec in records:
                fh.write(json.dumps(rec, ensure_ascii=False, allow_nan=False) + "\n")
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return len(records)


def read_predictions(task: str, path: str | os.PathLike) -> list[dict]:
    """Reads a JSON Lines prediction file (plain or ``.gz``); blank lines are skipped.

    Lines that are not JSON, and JSON that is not an object, raise one
    `PredictionError` naming every such line; the objects' fields are checked
    by `validate`. ``NaN``/``Infinity`` literals are read as such and then
    rejected by `validate` with the record's id.
    """
    _check_task(task)
    name = os.fspath(path)
    if not os.path.isfile(name):
        raise FileNotFoundError(f"prediction file {name} does not exist")
    out: list[dict] = []
    problems: dict[str, list[str]] = {}
    try:
        for lineno, line in iter_lines(name):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                problems.setdefault("malformed JSON", []).append(f"line {lineno} ({e.msg})")
                continue
            if not isinstance(obj, dict):
                problems.setdefault("not a JSON object", []).append(f"line {lineno}")
                continue
            out.append(obj)
    except InputError as e:
        raise PredictionError(name, {e.reason: [f"line {e.line}"]}) from e
    if problems:
        raise PredictionError(name, problems)
    if not out:
        raise PredictionError(name, {"empty file": ["no predictions"]})
    return out
