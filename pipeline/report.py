"""The demo's ``report.md`` and its PNG plots, from the files the stages wrote.

Nothing here computes a figure of its own: every number is read from a stage's output
(``stats.json``, ``manifest.json``, ``train_stats.json``, ``tokenizer_stats.json``, the
pretraining ``metrics.jsonl``, each task's ``metrics.json``) so the report says what the
stages measured. Plots: ``loss.png`` (pretraining loss by step, held-out points marked) and
``tasks.png`` (each task's selection metric as a bar), made with matplotlib (Agg backend).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pipeline.inputs import TASKS, CorpusInputs, KlueSource
from pipeline.stages import StageRecord

#: The KLUE metrics of each task in the paper's order (name in `finetune.metrics`, label).
TASK_METRICS = {
    "ynat": [("ynat_macro_f1", "macro F1")],
    "sts": [("sts_pearsonr", "Pearson r"), ("sts_f1", "F1")],
    "nli": [("nli_accuracy", "accuracy")],
    "ner": [("ner_entity_f1", "entity F1"), ("ner_char_f1", "char F1")],
    "re": [("re_micro_f1", "micro F1"), ("re_auprc", "AUPRC")],
    "dp": [("dp_uas_macro_f1", "UAS"), ("dp_las_macro_f1", "LAS")],
    "mrc": [("mrc_exact_match", "EM"), ("mrc_rouge_w", "ROUGE-W")],
    "wos": [("wos_joint_goal_accuracy", "JGA"), ("wos_slot_f1", "slot F1")],
}


def read_json(path: Path) -> dict[str, Any]:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (FileNotFoundError, json.JSONDecodeError):
        return {}


def read_metrics_log(path: Path) -> list[dict[str, Any]]:
    """Rows of a `pretrain.metric_log` ``metrics.jsonl`` (empty when absent)."""
    if not Path(path).is_file():
        return []
    rows = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if line.strip():
            rows.append(json.loads(line))
    return rows


def pretrain_summary(workdir: Path) -> dict[str, Any]:
    """First/last training loss, last held-out MLM accuracy and loss, steps, from metrics.jsonl."""
    rows = read_metrics_log(Path(workdir) / "metrics.jsonl")
    train = [r for r in rows if "loss" in r]
    evals = [r for r in rows if "eval/mlm_accuracy" in r]
    out: dict[str, Any] = {"steps": max((r["step"] for r in rows), default=0)}
    if train:
        out["first_loss"], out["last_loss"] = train[0]["loss"], train[-1]["loss"]
        out["last_mlm_loss"] = train[-1].get("mlm_loss")
    if evals:
        out["heldout_mlm_accuracy"] = evals[-1]["eval/mlm_accuracy"]
        out["heldout_mlm_loss"] = evals[-1].get("eval/mlm_loss")
        out["heldout_step"] = evals[-1]["step"]
    return out


def task_scores(finetune_dir: Path, task: str) -> dict[str, Any] | None:
    """A task's ``metrics.json`` (one seed) or ``metrics.json`` summary (several seeds)."""
    data = read_json(Path(finetune_dir) / task / "metrics.json")
    return data or None


def score_of(result: Mapping[str, Any], metric: str) -> tuple[float, float | None] | None:
    """(mean, std or None) of ``metric`` in a one-seed or several-seed ``metrics.json``."""
    if "scores" in result and metric in result["scores"]:
        return float(result["scores"][metric]), None
    if "mean" in result and metric in result["mean"]:
        return float(result["mean"][metric]), float(result["std"][metric])
    return None


def fmt_score(value: tuple[float, float | None] | None) -> str:
    if value is None:
        return "-"
    mean, std = value
    return f"{mean:.2f}" if std is None else f"{mean:.2f} ± {std:.2f}"


def plot_loss(rows: Sequence[Mapping[str, Any]], path: Path, title: str = "") -> Path | None:
    """Training (MLM + NSP) loss by step and held-out MLM loss points; None without rows."""
    train = [r for r in rows if "loss" in r]
    if not train:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5), dpi=100)
    mark = "." if len(train) < 20 else None  # a short run's few points stay visible
    ax.plot([r["step"] for r in train], [r["loss"] for r in train], marker=mark, label="train loss")
    if any("mlm_loss" in r for r in train):
        pts = [r for r in train if "mlm_loss" in r]
        ax.plot(
            [r["step"] for r in pts], [r["mlm_loss"] for r in pts], marker=mark,
            label="train MLM loss",
        )  # fmt: skip
    evals = [r for r in rows if "eval/mlm_loss" in r]
    if evals:
        ax.plot(
            [r["step"] for r in evals], [r["eval/mlm_loss"] for r in evals], "o",
            label="held-out MLM loss",
        )  # fmt: skip
    ax.set_xlabel("step")
    ax.set_ylabel("loss")
    ax.set_title(title or "pretraining loss")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)
    return path


def plot_bars(
    groups: Mapping[str, Mapping[str, tuple[float, float | None] | None]], path: Path, title: str
) -> Path:
    """Grouped bars: ``groups[row][task] = (mean, std)``; one colour per row (arm)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tasks = [t for t in TASKS if any(g.get(t) is not None for g in groups.values())] or list(TASKS)
    bars = len(tasks) * max(1, len(groups))
    fig, ax = plt.subplots(figsize=(min(14.0, max(6.0, 2 + 0.3 * bars)), 4.2), dpi=100)
    width = 0.8 / max(1, len(groups))
    low = 0.0  # a negative Pearson r stays visible
    for i, (name, scores) in enumerate(groups.items()):
        xs = [j + i * width for j in range(len(tasks))]
        vals = [(scores.get(t) or (0.0, None))[0] for t in tasks]
        errs = [(scores.get(t) or (0.0, None))[1] or 0.0 for t in tasks]
        ax.bar(xs, vals, width, yerr=errs if any(errs) else None, label=name, capsize=3)
        low = min(low, *(v - e for v, e in zip(vals, errs, strict=True)))
    ax.set_xticks([j + width * (len(groups) - 1) / 2 for j in range(len(tasks))])
    ax.set_xticklabels(tasks)
    ax.set_ylabel("dev score (0-100), selection metric")
    ax.set_ylim(max(-100.0, low - 5) if low < 0 else 0, 100)
    ax.axhline(0, color="black", linewidth=0.5)
    ax.set_title(title)
    if len(groups) > 1:
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)
    return path


def _stage_counts(out: Path) -> dict[str, str]:
    """One line of counts per stage, read from the stage's own files."""
    c: dict[str, str] = {}
    rec = read_json(out / "records" / "stats.json")
    if rec:
        c["prepare"] = (
            f"{rec.get('documents', 0):,} documents -> {rec.get('sentences', 0):,} sentences, "
            f"{rec.get('kept', 0):,} kept, removed {rec.get('removed', {})}"
        )
    held = read_json(out / "heldout" / "records" / "stats.json")
    if held:
        c["prepare-heldout"] = (
            f"{held.get('sentences', 0):,} sentences, {held.get('kept', 0):,} kept"
        )
    dec = read_json(out / "decontaminated" / "stats.json")
    if dec:
        c["dedup"] = (
            f"{dec.get('read', 0):,} read, {dec.get('kept', 0):,} kept, "
            f"{sum(dec.get('removed', {}).values()):,} removed as KLUE matches"
        )
    for name, folder in (
        ("pseudonymize", out / "clean"),
        ("pseudonymize-heldout", out / "heldout" / "clean"),
    ):
        st = read_json(folder / "stats.json")
        if st:
            spans = sum(st.get("spans", {}).values())
            c[name] = (
                f"{st.get('read', 0):,} read, {st.get('changed', 0):,} changed, {spans:,} spans"
            )
    tok = read_json(out / "tokenizer" / "train_stats.json")
    if tok:
        c["tokenizer"] = (
            f"{tok.get('vocab_size', 0):,} tokens ({tok.get('method')}) from "
            f"{tok.get('input', {}).get('records', 0):,} records"
        )
    for name, folder in (
        ("examples", out / "examples"),
        ("examples-heldout", out / "heldout" / "examples"),
    ):
        man = read_json(folder / "manifest.json")
        if man:
            n = man.get("counts", {})
            c[name] = (
                f"{man.get('examples', 0):,} examples (L={man.get('max_seq_length')}), "
                f"{n.get('predictions', 0):,} masked positions"
            )
    for task in TASKS:
        result = task_scores(out / "finetune", task)
        if result:
            key = result.get("metric_key", "")
            c[f"finetune-{task}"] = (
                f"{result.get('num_train_examples')} train / {result.get('num_dev_examples')} dev"
                f" examples; {key} {fmt_score(score_of(result, key))}"
            )
    pre = pretrain_summary(out / "workdir")
    if pre.get("steps"):
        c["pretrain"] = (
            f"{pre['steps']} steps, loss {pre.get('first_loss', 0):.3f} -> "
            f"{pre.get('last_loss', 0):.3f}"
        )
    if (out / "hf" / "model.safetensors").is_file():
        c["export"] = "model.safetensors + tokenizer, logits checked against transformers"
    return c


def write_demo_report(
    out: Path,
    records: Sequence[StageRecord],
    *,
    corpus: CorpusInputs,
    klue_sources: Sequence[KlueSource],
    not_run: Mapping[str, str],
    seconds: float,
) -> Path:
    """Writes ``out/report.md`` (+ ``loss.png``, ``tasks.png``); returns the report's path."""
    out = Path(out)
    lines = ["# Demo report", ""]
    lines += [
        "Tiny-scale run of the whole pipeline (`make demo`, `python -m pipeline.demo`). The",
        "figures show that every stage runs and what it measured; they are **not comparable to",
        "the KLUE paper** (a tiny encoder, a few hundred steps, small fine-tuning subsets).",
        "",
        "## Data",
        "",
        f"- Corpus: {corpus.description}.",
        f"- KLUE (`{out / 'klue'}`, the decontamination benchmark and the fine-tuning data):",
    ]
    kinds = {
        "data": "data directory",
        "fixture": "embedded fixture (tests/fixtures/klue)",
        "fixture-train-as-dev": "embedded fixture, its train file also used as dev "
        "(a few examples: checks the chain only)",
    }
    for s in klue_sources:
        lines.append(f"  - {s.task}: {kinds[s.kind]} ({s.path})")
    counts = _stage_counts(out)
    lines += ["", "## Stages", "", f"Total wall time of this run: {seconds:.0f} s.", ""]
    lines += ["| stage | seconds | counts | command |", "|---|---:|---|---|"]
    for r in records:
        secs = f"{r.seconds:.1f}" + (" (reused)" if r.reused else "")
        if r.status != "done":
            secs += " FAILED"
        cmd = r.command.replace("|", "\\|")
        lines.append(f"| {r.name} | {secs} | {counts.get(r.name, '')} | `{cmd}` |")

    dec = read_json(out / "decontaminated" / "stats.json")
    by_task = dec.get("removed_by_task", {})
    lines += ["", "## Decontamination against KLUE (corpus.dedup)", ""]
    lines += ["| task | sentences removed |", "|---|---:|"]
    for task in TASKS:
        lines.append(f"| {task} | {by_task.get(task, 0):,} |")
    lines.append(f"| **total** | {sum(by_task.values()):,} of {dec.get('read', 0):,} read |")

    lines += ["", "## Personal information replaced (corpus.pseudonymize)", ""]
    clean = read_json(out / "clean" / "stats.json")
    spans = clean.get("spans", {})
    lines += ["| type | spans |", "|---|---:|"]
    for kind in sorted(spans):
        lines.append(f"| {kind} | {spans[kind]:,} |")
    lines.append(
        f"| **total** | {sum(spans.values()):,} in {clean.get('changed', 0):,} of "
        f"{clean.get('read', 0):,} sentences |"
    )
    by_field = clean.get("spans_by_field", {})
    if by_field:
        lines.append("")
        lines.append(
            "By record field: "
            + ", ".join(f"`{k}` {v:,}" for k, v in sorted(by_field.items()))
            + " (a field other than `text` is record metadata, e.g. a Wikipedia page's URL)."
        )
    key = out / "pseudonym.key"
    lines.append("")
    lines.append(
        f"Key: generated for this run by `corpus.pseudonymize keygen` into `{key}` (mode 0600);"
        " reruns reuse it."
    )

    lines += ["", "## Tokenizer (held-out text, tokenizer.stats)", ""]
    ts = read_json(out / "tokenizer_stats.json")
    lines += [
        "| tokenizer | vocab | fertility | continued | UNK ratio | on morpheme boundary |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    train_stats = read_json(out / "tokenizer" / "train_stats.json")
    for r in ts.get("results", []):
        lines.append(
            f"| {r.get('method')} (this run) | {train_stats.get('vocab_size', '')} | "
            f"{r['fertility']:.3f} | {100 * r['continued']:.1f}% | {r['unk_ratio']:.4f} | "
            f"{100 * r.get('morpheme_boundary_share', 0):.1f}% |"
        )
    for method, p in ts.get("paper", {}).items():
        lines.append(
            f"| {method} (paper, Wikipedia, 32k) | 32,000 | {p['fertility']:.3f} | "
            f"{100 * p['continued']:.1f}% | {p['unk_ratio']:.3f} | |"
        )

    pre = pretrain_summary(out / "workdir")
    rows = read_metrics_log(out / "workdir" / "metrics.jsonl")
    loss_png = plot_loss(rows, out / "loss.png", "tiny BERT pretraining (demo)")
    lines += ["", "## Pretraining (tiny BERT, pretrain/configs/tiny.py)", ""]
    if pre.get("steps"):
        lines.append(
            f"{pre['steps']} steps; training loss (MLM + NSP) {pre.get('first_loss', 0):.3f} -> "
            f"{pre.get('last_loss', 0):.3f}."
        )
    if "heldout_mlm_accuracy" in pre:
        lines.append(
            f"Held-out MLM accuracy at step {pre['heldout_step']}: "
            f"{100 * pre['heldout_mlm_accuracy']:.2f}% (MLM loss {pre['heldout_mlm_loss']:.3f})."
        )
    if loss_png:
        lines += ["", f"![pretraining loss]({loss_png.name})"]

    lines += ["", "## KLUE fine-tuning (dev)", ""]
    lines += ["| task | metric | score | train / dev examples | note |", "|---|---|---:|---|---|"]
    source = {s.task: s.kind for s in klue_sources}
    bars: dict[str, tuple[float, float | None] | None] = {}
    for task in TASKS:
        result = task_scores(out / "finetune", task)
        if result is None:
            why = (
                not_run.get(task) or f"no result (not finished or failed: logs/finetune-{task}.log)"
            )
            lines.append(f"| {task} | - | - | - | {why} |")
            bars[task] = None
            continue
        metrics = TASK_METRICS[task]
        cells = " / ".join(fmt_score(score_of(result, m)) for m, _ in metrics)
        bars[task] = score_of(result, result.get("metric_key", metrics[0][0]))
        note = result.get("note", "") or ""
        if source.get(task, "").startswith("fixture"):
            note = (note + "; " if note else "") + f"data: {source[task]}"
        sizes = f"{result.get('num_train_examples', '?')} / {result.get('num_dev_examples', '?')}"
        lines.append(
            f"| {task} | {' / '.join(label for _, label in metrics)} | {cells} | {sizes} | {note} |"
        )
    tasks_png = plot_bars({"demo": bars}, out / "tasks.png", "KLUE dev scores (demo)")
    lines += ["", f"![per-task scores]({tasks_png.name})", ""]
    text = "\n".join(lines) + "\n"
    path = out / "report.md"
    tmp = out / "report.md.tmp"
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
    return path
