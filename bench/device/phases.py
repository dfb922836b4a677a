"""The phases of `bench.device`: each takes a `bench.device.runner.Context` and returns its result.

Every phase calls the code a user runs (`bench.pretrain`, `pretrain.train.train_and_evaluate`,
`finetune.main.run_all`, `bench.input_pipeline.time_loader`, `bench.finetune`), never a copy
of it. Phases that produce several rows save each one as it finishes (`Context.save`), so a
phase stopped at its budget keeps the rows it had; a row that fails is kept with its error and
the next row runs. ``ctx.smoke`` selects tiny shapes (CPU, seconds).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
import platform
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from bench.device import bundle as device_bundle

#: Distributions whose versions the env phase records (the device image's are not our pins).
PACKAGES = ("jax", "jaxlib", "jax-cuda13-plugin", "jax-cuda12-plugin", "flax", "optax")
PACKAGES += ("orbax-checkpoint", "tokenizers", "transformers", "torch", "numpy")
PACKAGES += tuple(w.split("==")[0] for w in device_bundle.DEVICE_WHEELS)
#: Modules the phases import: one missing is named in the env phase's result.
MODULES = ("jax", "flax", "optax", "orbax.checkpoint", "tokenizers", "ml_collections", "grain")
MODULES += ("array_record", "tensorboardX", "torch", "transformers", "safetensors", "absl")
MIN_ROW_S = 8.0  # a row is not started with less time than this left (it would be cut off)


def _version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def _nvidia_smi() -> str | None:
    if shutil.which("nvidia-smi") is None:
        return None
    query = "--query-gpu=name,driver_version,memory.total,clocks.max.sm"
    proc = subprocess.run(
        ["nvidia-smi", query, "--format=csv,noheader"], capture_output=True, text=True
    )
    return proc.stdout.strip() or proc.stderr.strip()


def env(ctx) -> dict[str, Any]:
    """Device, versions, missing packages, commit (git, else the bundle's) and code digest."""
    import jax

    from pretrain import flops

    bundle = json.loads((ctx.bundle / "bundle.json").read_text())
    git = device_bundle.git_state()
    digest = device_bundle.code_digest()
    devices = jax.devices()
    try:
        memory = devices[0].memory_stats() or {}
    except Exception:  # CPU devices have none
        memory = {}
    result = {
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "host": platform.node(),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "jax_backend": jax.default_backend(),
        "device_kind": devices[0].device_kind,
        "device_count": len(devices),
        "device_memory_gib": memory.get("bytes_limit", 0) / 2**30 or None,
        "peak_flops_per_device": flops.peak_flops_per_device(devices[0]),
        "nvidia_smi": _nvidia_smi(),
        "commit": git["commit"] or bundle.get("commit"),
        "commit_source": "git" if git["commit"] else "bundle.json (no .git on this machine)",
        "clean": git["clean"] if git["commit"] else bundle.get("clean"),
        "code_digest": digest,
        "code_matches_bundle": digest == bundle.get("code_digest"),
        "bundle_built_at": bundle.get("built_at"),
        "packages": {name: _version(name) for name in PACKAGES},
        "missing_modules": [m for m in MODULES if importlib.util.find_spec(m) is None],
    }
    if result["nvidia_smi"] and result["jax_backend"] == "cpu":
        result["warning"] = "nvidia-smi sees a GPU but JAX runs on the CPU (no CUDA plugin?)"
    return result


def _rows(ctx, key: str, specs: list, one) -> dict[str, Any]:
    """Runs ``one(spec)`` for each spec, saving the rows after each; errors become rows."""
    rows: list[dict[str, Any]] = []
    for spec in specs:
        if ctx.left() < MIN_ROW_S and not ctx.smoke:
            rows.append({"spec": spec, "error": "not run: no time left in the phase"})
            continue
        try:
            rows.append(one(spec))
        except Exception as e:
            rows.append({"spec": spec, "error": f"{type(e).__name__}: {e}"})
        ctx.save(result={key: rows})
    return {key: rows}


def mfu(ctx) -> dict[str, Any]:
    """`bench.pretrain` (the real train step, synthetic batches) per config and attention."""
    from bench import pretrain as bench_pretrain

    configs = ("tiny",) if ctx.smoke else ("bert_base", "roberta_base")
    shape = ["--seq-len", "64", "--batch", "4", "--steps", "1", "--warmup", "0"]
    if not ctx.smoke:
        shape = ["--seq-len", "512", "--batch", "64", "--steps", "6", "--warmup", "1"]
    specs = [(c, a) for c in configs for a in ("xla", "fused")]
    if ctx.smoke:  # the xla step is compiled (and run) by the pretrain phase's smoke too
        specs = [("tiny", "fused")]

    def one(spec):
        config, attention = spec
        argv = ["--config", config, "--attention", attention, *shape]
        return bench_pretrain.run(bench_pretrain.build_parser().parse_args(argv))

    return _rows(ctx, "rows", specs, one)


def _pretrain_config(ctx, batch: int, steps: int):
    from pretrain.configs import roberta_small

    cfg = roberta_small.get_config()
    if ctx.smoke:
        cfg.model = "tiny-roberta"
    cfg.data.examples_dir = str(ctx.bundle / "examples")
    cfg.data.eval_examples_dir = str(ctx.bundle / "eval_examples")
    cfg.data.tokenizer_dir = str(ctx.bundle / "tokenizer")
    cfg.global_batch_size = batch
    cfg.num_train_steps = steps
    cfg.warmup_steps = max(1, steps // 16)
    cfg.learning_rate = 5e-4  # a short run: a higher peak than the paper's 1e-4 over 1M steps
    cfg.log_every_steps = max(1, steps // 40)
    cfg.eval_every_steps = steps
    cfg.eval_steps = 2 if ctx.smoke else 20
    cfg.checkpoint_every_steps = steps
    cfg.checkpoint_every_minutes = 0.0
    cfg.async_checkpointing = False
    cfg.progress_bar = False
    return cfg


def _random_init(ctx, cfg) -> str:
    """A Hugging Face folder of the same shape, randomly initialised (the control arm)."""
    from pretrain import bootstrap, hf_export, models, train

    data = bootstrap.resolve_data(cfg, str(ctx.out))
    config = train.build_model_config(cfg, data).replace(dtype="float32")
    model = models.build_model(config, seed=int(cfg.seed))
    card = {"name": "random-init", "training": {"steps": 0, "note": "random initialisation"}}
    out = ctx.out / "random_init"
    hf_export.write_hf_folder(model, ctx.bundle / "tokenizer", out, card, overwrite=True)
    return str(out)


def _loss_curve(workdir: Path) -> tuple[list[list[float]], dict[str, float]]:
    curve, final_eval = [], {}
    path = workdir / "metrics.jsonl"
    for line in path.read_text().splitlines() if path.is_file() else []:
        row = json.loads(line)
        if "loss" in row:
            curve.append([row["step"], row["loss"]])
        final_eval.update({k: v for k, v in row.items() if k.startswith("eval/")})
    return curve, final_eval


def pretrain(ctx) -> dict[str, Any]:
    """roberta_small for the phase's seconds: steps = time left / a measured step."""
    from bench import pretrain as bench_pretrain
    from pretrain import train

    seq = json.loads((ctx.bundle / "examples" / "manifest.json").read_text())["max_seq_length"]
    batch = 8 if ctx.smoke else 256
    cfg = _pretrain_config(ctx, batch, 1)
    ctx.save(result={"random_init": _random_init(ctx, cfg)})
    argv = ["--config", "roberta_small", "--batch", str(batch), "--seq-len", str(seq)]
    argv += ["--steps", "1", "--warmup", "0"] if ctx.smoke else ["--steps", "10", "--warmup", "2"]
    if ctx.smoke:
        argv += ["--model", "tiny-roberta"]
    measured = bench_pretrain.run(bench_pretrain.build_parser().parse_args(argv))
    reserve = 40.0 + measured["compile_s"]  # compile (a cache hit when the programs match), eval
    steps = 4 if ctx.smoke else max(20, int((ctx.left() - reserve) / measured["step_s_median"]))
    cfg = _pretrain_config(ctx, batch, steps)
    workdir = ctx.out / "pretrain_run"
    shutil.rmtree(workdir, ignore_errors=True)
    ctx.save(result={**ctx.partial["result"], "measured_step": measured, "planned_steps": steps})
    timer = None
    if ctx.isolated:  # SIGTERM near the deadline: the trainer saves a checkpoint and stops
        timer = threading.Timer(max(1.0, ctx.left() - 25), os.kill, (os.getpid(), signal.SIGTERM))
        timer.start()
    t0 = time.time()
    try:
        summary = train.train_and_evaluate(cfg, workdir)
    finally:
        if timer is not None:
            timer.cancel()
    curve, held_out = _loss_curve(workdir)
    return {
        **ctx.partial["result"],
        "workdir": str(workdir),
        "seconds": time.time() - t0,
        "stopped": summary.get("stopped"),
        "final_step": summary.get("step"),
        "tokens_seen": int(summary.get("step") or 0) * batch * seq,
        "batch": batch,
        "seq_len": seq,
        "learning_rate": float(cfg.learning_rate),
        "loss_curve": curve,
        "held_out": held_out,
    }


def _finetune_config(ctx):
    from finetune.configs import common

    base = common.get_config()
    changes = {"num_train_epochs": 1, "dtype": "bfloat16", "progress_bar": False}
    if ctx.smoke:
        changes.update(max_train_examples=16, max_eval_examples=16, global_batch_size=8)
        changes.update(eval_batch_size=8, max_seq_length=32, dtype="float32")
    for key, value in changes.items():
        base[key] = value
    return base, changes


def finetune(ctx) -> dict[str, Any]:
    """YNAT and NLI, one epoch each, from the pretraining run and from the random control."""
    from finetune import main as finetune_main

    earlier = ctx.earlier("pretrain") or _partial_of(ctx, "pretrain")
    workdir = earlier.get("workdir")
    if workdir is None and (ctx.out / "pretrain_run" / "checkpoints").is_dir():
        workdir = str(ctx.out / "pretrain_run")  # a pretrain phase stopped after its save
    arms = {"pretrained": workdir, "random": earlier.get("random_init")}
    base, changes = _finetune_config(ctx)
    specs = [(task, arm) for task in ("ynat", "nli") for arm in arms]
    if ctx.smoke:  # each task and each arm once: the code path is the same for all four
        specs = [("ynat", "pretrained"), ("nli", "random")]

    def one(spec):
        task, arm = spec
        if not arms[arm]:
            raise RuntimeError(f"no {arm} model: the pretrain phase did not produce one")
        out = ctx.out / "finetune" / arm
        t0 = time.time()
        finetune_main.run_all(
            base, [task], arms[arm], out, str(ctx.bundle / "data" / "klue"), 1, overrides=changes
        )
        metrics = json.loads((out / task / "metrics.json").read_text())
        keep = ("num_train_examples", "num_dev_examples", "run_steps", "comparable_to_paper")
        return {
            "task": task,
            "init": arm,
            "model": arms[arm],
            "seconds": time.time() - t0,
            "metric_key": metrics.get("metric_key"),
            "scores": metrics.get("scores"),
            "note": metrics.get("note"),
            **{k: metrics.get(k) for k in keep},
        }

    return _rows(ctx, "rows", specs, one)


def _partial_of(ctx, phase: str) -> dict[str, Any]:
    """What a phase that was stopped had saved (its partial file), else {}."""
    from bench.device.runner import PARTIAL

    path = ctx.out / PARTIAL.format(phase)
    saved = json.loads(path.read_text()) if path.is_file() else {}
    return saved.get("result") or {}


def _best_tokens_per_s(ctx, config: str) -> float | None:
    rows = [r for r in ctx.earlier("mfu").get("rows", []) if r.get("config") == config]
    rates = [r["tokens_per_s"] for r in rows if r.get("tokens_per_s")]
    return max(rates) if rates else None


def loader(ctx) -> dict[str, Any]:
    """Loader examples per CPU-second against what the device's measured steps consume."""
    from bench.input_pipeline import time_loader

    step = ctx.earlier("pretrain").get("measured_step") or {}
    demand = {  # examples folder -> (what consumes it, tokens/s it consumes)
        "examples": ("roberta_small (pretrain phase)", step.get("tokens_per_s")),
        "loader512/bert": ("bert_base (mfu phase)", _best_tokens_per_s(ctx, "bert_base")),
        "loader512/roberta": ("roberta_base (mfu phase)", _best_tokens_per_s(ctx, "roberta_base")),
    }
    batch, steps = (4, 2) if ctx.smoke else (64, 20)

    def one(folder):
        consumer, tokens_per_s = demand[folder]
        seq = json.loads((ctx.bundle / folder / "manifest.json").read_text())["max_seq_length"]
        rate = time_loader(ctx.bundle / folder, batch, steps, 0)
        row = {"folder": folder, "seq_len": seq, "consumer": consumer, **rate}
        if tokens_per_s:
            need = tokens_per_s / seq
            row.update(
                needed_examples_per_s=need,
                ratio=rate["examples_per_cpu_s"] / need,
                cores_for_10x=int(-(-10 * need // rate["examples_per_cpu_s"])),
            )
        return row

    return _rows(ctx, "rows", list(demand), one)


def finetune_step(ctx) -> dict[str, Any]:
    """`bench.finetune`: our fine-tuning step and stock transformers' on the same device."""
    from bench import finetune as bench_finetune

    argv = ["--sizes", "base", "--batch", "32", "--seq-len", "128", "--steps", "10"]
    argv += ["--warmup", "2", "--platform", "auto", "--workdir", str(ctx.out)]
    if ctx.smoke:
        argv = ["--sizes", "tiny", "--batch", "2", "--seq-len", "16", "--steps", "1"]
        argv += ["--warmup", "0", "--workdir", str(ctx.out)]
    args = bench_finetune.build_parser().parse_args(argv)
    return bench_finetune.run(args, isolate=not ctx.smoke)


def memory(ctx) -> dict[str, Any]:
    """`bench.pretrain --memory` rows compiled for this device, one (config, remat) at a time."""
    from bench import pretrain as bench_pretrain

    specs = [("bert_base", "none"), ("roberta_base", "none"), ("roberta_base", "nothing_saveable")]
    specs += [("roberta_large", "nothing_saveable")]
    gib = ctx.earlier("env").get("device_memory_gib")
    hbm = ",".join(f"{x:g}" for x in sorted({141.0, round(gib or 141.0, 1)}))
    shape = ["--seq-len", "512", "--micro-batch", "8", "--hbm-gib", hbm]
    if ctx.smoke:
        specs, shape = [("tiny", "none")], ["--seq-len", "32", "--micro-batch", "2"]

    def one(spec):
        config, remat = spec
        argv = ["--memory", "--configs", config, "--remat", remat, *shape]
        return bench_pretrain.memory_table(bench_pretrain.build_parser().parse_args(argv))[0]

    return _rows(ctx, "rows", specs, one)
