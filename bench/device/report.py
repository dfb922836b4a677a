"""``device.md``: the markdown rendering of `bench.device`'s ``device.json``.

One section per phase, in run order, each saying its status; a phase that failed or ran out of
time shows its error, the rows it had finished and the end of its log. Nothing here computes a
figure: every number is read from the results.
"""

from __future__ import annotations

from typing import Any

#: KLUE-RoBERTa-small on dev, the paper's appendix A (../shared/docs/klue-paper-results.md):
#: what a full pretraining (1M steps of 2,048 x 512 tokens) reaches on the same two tasks.
PAPER_SMALL_DEV = {"ynat_macro_f1": 85.95, "nli_accuracy": 81.00}


def _f(v: Any, digits: int = 3) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:,.{digits}g}" if abs(v) < 1000 else f"{v:,.0f}"
    return str(v)


def _table(head: list[str], rows: list[list[Any]]) -> list[str]:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    return lines + ["| " + " | ".join(_f(c) for c in r) + " |" for r in rows]


def _errors(rows: list[dict]) -> list[str]:
    return [f"- {r.get('spec')}: {r['error']}" for r in rows if "error" in r]


def _env(r: dict) -> list[str]:
    pkgs = ", ".join(f"{k} {v}" for k, v in r.get("packages", {}).items() if v)
    lines = [
        f"- device: {r.get('device_count')} x {r.get('device_kind')} "
        f"({r.get('jax_backend')}); memory JAX may use {_f(r.get('device_memory_gib'))} GiB; "
        f"peak {_f(r.get('peak_flops_per_device'))} FLOP/s per device (pretrain.flops)",
        f"- nvidia-smi: {r.get('nvidia_smi') or 'not found'}",
        f"- commit {r.get('commit')} ({r.get('commit_source')}; clean: {r.get('clean')}); "
        f"code digest {r.get('code_digest')}, same as the bundle's: "
        f"{r.get('code_matches_bundle')}",
        f"- Python {r.get('python')}, {r.get('cpus')} CPUs; {pkgs}",
        f"- missing modules: {', '.join(r.get('missing_modules') or []) or 'none'}",
    ]
    return lines + ([f"- **{r['warning']}**"] if r.get("warning") else [])


def _mfu(r: dict) -> list[str]:
    rows = [x for x in r.get("rows", []) if "error" not in x]
    body = [
        [
            x["config"],
            x["attention"],
            x["attention_dropout"],
            f"{x['global_batch']} x {x['seq_len']}",
            x["dtype"],
            x["compile_s"],
            x["step_s_median"] * 1e3,
            x["tokens_per_s"],
            None if x["mfu"] is None else f"{100 * x['mfu']:.1f}%",
        ]
        for x in rows
    ]
    head = ["config", "attention", "attn dropout", "batch x L", "dtype", "compile s"]
    head += ["step ms (median)", "tokens/s", "MFU"]
    return _table(head, body) + _errors(r.get("rows", []))


def _pretrain(r: dict) -> list[str]:
    m = r.get("measured_step") or {}
    lines = [
        f"- measured step (bench.pretrain, synthetic batches of {r.get('batch')} x "
        f"{r.get('seq_len')}): {_f(m.get('step_s_median', 0) * 1e3)} ms, "
        f"{_f(m.get('tokens_per_s'))} tokens/s, MFU "
        f"{_f(100 * m['mfu'] if m.get('mfu') else None)}%",
        f"- planned {r.get('planned_steps')} steps, ran {r.get('final_step')} "
        f"({r.get('stopped')}) in {_f(r.get('seconds'))} s: {_f(r.get('tokens_seen'))} tokens, "
        f"peak learning rate {r.get('learning_rate')}",
        "- held-out (last kowiki file): "
        + (", ".join(f"{k} {_f(v, 4)}" for k, v in (r.get("held_out") or {}).items()) or "-"),
        "",
    ]
    curve = r.get("loss_curve") or []
    pick = curve[:: max(1, len(curve) // 12)] + curve[-1:] if curve else []
    seen, body = set(), []
    for step, loss in pick:
        if step not in seen:
            seen.add(step)
            body.append([step, loss])
    return lines + _table(["step", "train loss"], body)


def _finetune(r: dict) -> list[str]:
    rows = [x for x in r.get("rows", []) if "error" not in x]
    by = {(x["task"], x["init"]): x for x in rows}
    body = []
    for task in ("ynat", "nli"):
        pre, rnd = by.get((task, "pretrained")), by.get((task, "random"))
        some = pre or rnd
        if some is None:
            continue
        key = some["metric_key"]
        a = (pre or {}).get("scores", {}) or {}
        b = (rnd or {}).get("scores", {}) or {}
        gap = a[key] - b[key] if key in a and key in b else None
        body.append(
            [
                task,
                key,
                some.get("num_train_examples"),
                some.get("num_dev_examples"),
                *(None if v is None else f"{v:.2f}" for v in (a.get(key), b.get(key), gap)),
                f"{PAPER_SMALL_DEV[key]:.2f}" if key in PAPER_SMALL_DEV else None,
            ]
        )
    head = ["task", "metric (dev)", "train", "dev", "pretrained here", "random init"]
    head += ["pretrained - random", "paper KLUE-RoBERTa-small"]
    return _table(head, body) + _errors(r.get("rows", []))


def _loader(r: dict) -> list[str]:
    body = [
        [
            x["folder"],
            x["seq_len"],
            x["examples_per_cpu_s"],
            x["consumer"],
            x.get("needed_examples_per_s"),
            None if x.get("ratio") is None else f"{x['ratio']:.1f}x",
            x.get("cores_for_10x"),
        ]
        for x in r.get("rows", [])
        if "error" not in x
    ]
    head = ["examples folder", "L", "loader ex/CPU-s", "step", "ex/s the step needs", "ratio"]
    return _table(head + ["cores for 10x"], body) + _errors(r.get("rows", []))


def _finetune_step(r: dict) -> list[str]:
    body = [
        [
            f"{x['size']} ({x['layers_hidden_heads'][0]}x{x['layers_hidden_heads'][1]})",
            x["ours"]["examples_per_s"],
            x["transformers"]["examples_per_s"],
            x["speed_ratio"],
            x["ours"]["framework"],
            x["transformers"]["framework"],
        ]
        for x in r.get("rows", [])
    ]
    lines = [f"{r.get('arch')} sequence classification, batch {r.get('batch')} x "]
    lines[0] += f"{r.get('seq_len')}, float32, platform {r.get('platform')}"
    head = ["size", "ours ex/s", "transformers ex/s", "ours/transformers", "ours", "reference"]
    return lines + [""] + _table(head, body)


def _memory(r: dict) -> list[str]:
    rows = [x for x in r.get("rows", []) if "error" not in x]
    sizes = {k for x in rows for k in x if k.startswith("max_micro_batch_")}
    sizes = sorted(sizes, key=lambda k: float(k[len("max_micro_batch_") :].rstrip("gib")))
    body = [
        [x["config"], x["remat"], x["seq_len"], x["micro_batch"], x["peak_gib"], x["fixed_gib"]]
        + [x["per_example_mib"]]
        + [x[s] for s in sizes]
        for x in rows
    ]
    head = ["config", "remat", "L", "micro-batch", "peak GiB", "fixed GiB", "MiB/example"]
    head += [f"max micro-batch {s[len('max_micro_batch_') :]}" for s in sizes]
    return _table(head, body) + _errors(r.get("rows", []))


SECTIONS = {
    "env": ("Device and software", _env),
    "mfu": ("MFU at L=512 (bench.pretrain)", _mfu),
    "pretrain": ("roberta_small pretraining on Korean Wikipedia", _pretrain),
    "finetune": ("YNAT and NLI, one epoch: pretrained vs random initialisation", _finetune),
    "loader": ("Input loader against the measured steps", _loader),
    "finetune_step": ("Fine-tuning step: ours vs transformers (bench.finetune)", _finetune_step),
    "memory": ("Memory table compiled for this device (bench.pretrain --memory)", _memory),
}


def render(results: dict) -> str:
    """The whole markdown file."""
    env = results["phases"].get("env", {}).get("result") or {}
    lines = [
        "# Device check (`python -m bench.device`)",
        "",
        f"Started {results['started_at']}; {_f(results.get('seconds'))} s of a "
        f"{_f(results['total_budget_s'])} s budget; command `{results['command']}`"
        + ("; **smoke run (tiny shapes, CPU): no figure here means anything**" * results["smoke"]),
        f"Device: {env.get('device_count')} x {env.get('device_kind')}, jax "
        f"{(env.get('packages') or {}).get('jax')}, commit {env.get('commit')}",
        "",
    ]
    status = [
        [n, e.get("status"), e.get("seconds"), e.get("budget_s"), e.get("error", "")]
        for n, e in results["phases"].items()
    ]
    lines += _table(["phase", "status", "seconds", "budget s", "error"], status)
    for name, entry in results["phases"].items():
        title, show = SECTIONS[name]
        lines += ["", f"## {title}", ""]
        if entry.get("status") != "ok":
            lines.append(f"**{entry.get('status')}**: {entry.get('error')}")
        if entry.get("result"):
            try:
                lines += show(entry["result"])
            except (KeyError, TypeError) as e:  # a partial result lacks a field
                lines.append(f"(partial result, not rendered: {e!r})")
        if entry.get("log_tail"):
            lines += ["", "```", *entry["log_tail"], "```"]
    return "\n".join(lines) + "\n"
