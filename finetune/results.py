"""The results table of a fine-tuning run: seeds -> mean and standard deviation, paper columns.

`summarize_seeds` turns the ``metrics.json`` of each seed of one task into one summary (mean and
sample standard deviation of every metric, ddof=1 as is usual for a handful of seeds; 0 for one
seed). `write_results` writes ``results.json`` and ``results.md`` with the columns in the order
of the KLUE paper's tables (``../shared/docs/klue-paper-results.md``; DP and DST report the
baseline's numbers under the paper's names, see ``docs/finetune_metrics.md``). A task trained
on a split of dev (no train split on hand) or on a subset (smoke runs) is marked with ``*`` and
its note, as it is not comparable to the paper.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

#: (paper column, task, our metric name) in the paper's order.
PAPER_COLUMNS = (
    ("TC F1", "ynat", "ynat_macro_f1"),
    ("STS R^P", "sts", "sts_pearsonr"),
    ("STS F1", "sts", "sts_f1"),
    ("NLI ACC", "nli", "nli_accuracy"),
    ("NER F1^E", "ner", "ner_entity_f1"),
    ("NER F1^C", "ner", "ner_char_f1"),
    ("RE F1^mic", "re", "re_micro_f1"),
    ("RE AUC", "re", "re_auprc"),
    ("DP UAS", "dp", "dp_uas_macro_f1"),
    ("DP LAS", "dp", "dp_las_macro_f1"),
    ("MRC EM", "mrc", "mrc_exact_match"),
    ("MRC ROUGE", "mrc", "mrc_rouge_w"),
    ("DST JGA", "wos", "wos_joint_goal_accuracy"),
    ("DST F1^S", "wos", "wos_slot_f1"),
)


def _mean_std(values: Sequence[float]) -> tuple[float, float]:
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, 0.0
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, math.sqrt(var)


def summarize_seeds(runs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """One task's summary over its seeds (each run is a `finetune.trainer` ``metrics.json``)."""
    if not runs:
        raise ValueError("no runs to summarize")
    keys = list(runs[0]["scores"])
    mean, std = {}, {}
    for k in keys:
        mean[k], std[k] = _mean_std([float(r["scores"][k]) for r in runs])
    first = runs[0]
    return {
        "task": first["task"],
        "metric_key": first["metric_key"],
        "seeds": [r["seed"] for r in runs],
        "mean": mean,
        "std": std,
        "per_seed": [{"seed": r["seed"], "best_step": r["best_step"], **r["scores"]} for r in runs],
        "comparable_to_paper": all(r["comparable_to_paper"] for r in runs),
        "note": first.get("note", ""),
        "num_train_examples": first["num_train_examples"],
        "num_dev_examples": first["num_dev_examples"],
        "model": first["model"],
    }


def _cell(summary: Mapping[str, Any] | None, metric: str) -> str:
    if summary is None or metric not in summary["mean"]:
        return "-"
    mean, std = summary["mean"][metric], summary["std"][metric]
    mark = "" if summary["comparable_to_paper"] else "*"
    if len(summary["seeds"]) > 1:
        return f"{mean:.2f} ± {std:.2f}{mark}"
    return f"{mean:.2f}{mark}"


def results_markdown(
    summaries: Mapping[str, Mapping[str, Any]],
    skipped: Mapping[str, str] | None = None,
    title: str = "",
) -> str:
    """The paper-ordered table (one row) with notes for non-comparable and skipped tasks."""
    skipped = dict(skipped or {})
    shown = set(summaries) | set(skipped)
    columns = [c for c in PAPER_COLUMNS if c[1] in shown] or list(PAPER_COLUMNS)
    head = "| Model | " + " | ".join(c[0] for c in columns) + " |"
    sep = "|---|" + "---|" * len(columns)
    model = title or (next(iter(summaries.values()))["model"] if summaries else "")
    row = f"| {model} | " + " | ".join(_cell(summaries.get(t), m) for _, t, m in columns) + " |"
    lines = [head, sep, row, ""]
    seeds = {len(s["seeds"]) for s in summaries.values()}
    if seeds and max(seeds) > 1:
        lines.append("Mean ± sample standard deviation over seeds.")
    for task, s in summaries.items():
        if not s["comparable_to_paper"]:
            lines.append(f"\\* {task}: {s['note']}")
    for task, why in skipped.items():
        lines.append(f"- {task}: not run ({why})")
    return "\n".join(lines).rstrip() + "\n"


def write_results(
    output: Path,
    summaries: Mapping[str, Mapping[str, Any]],
    skipped: Mapping[str, str] | None = None,
) -> None:
    """``results.json`` (every summary, skipped tasks with the reason) and ``results.md``."""
    from pretrain.storage import write_json

    columns = [{"column": c, "task": t, "metric": m} for c, t, m in PAPER_COLUMNS]
    data = {"columns": columns, "tasks": dict(summaries), "skipped": dict(skipped or {})}
    output.mkdir(parents=True, exist_ok=True)
    write_json(output / "results.json", data)
    tmp = output / "results.md.tmp"
    tmp.write_text(results_markdown(summaries, skipped), encoding="utf-8")
    tmp.replace(output / "results.md")


def read_json(path: Path) -> dict[str, Any]:
    return json.loads(Path(path).read_text(encoding="utf-8"))
