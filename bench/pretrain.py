"""Train-step throughput of a pretraining config on whatever devices JAX sees.

    python -m bench.pretrain --config tiny
    python -m bench.pretrain --config bert_base --batch 8 --seq-len 128 --steps 5   # on CPU
    python -m bench.pretrain --config roberta_base --batch 64 --seq-len 512          # on a GPU

Runs the real jitted `pretrain.train` step (AdamW, clipping, accumulation, the
configured mesh) on synthetic batches of the loader's shapes, so no data is
needed. Reports compile time, step time, tokens/s and MFU:

    MFU = models.flops_per_token(config, L, P) * tokens/s / (devices * peak FLOP/s)

with the per-device peak from the table in `pretrain.flops.PEAK_FLOPS_PER_DEVICE` (dense
bf16), or ``--peak-flops`` where the device is not in the table (CPU). Tokens
count every position of the padded batch, as the step computes them all.
"""

from __future__ import annotations

import argparse
import importlib
import json
import statistics
import sys
import time

import jax
import numpy as np


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m bench.pretrain", description=__doc__.split("\n")[0])
    p.add_argument("--config", default="tiny", help="name of a file in pretrain/configs/")
    p.add_argument("--batch", type=int, default=None, help="global batch (default: the config's)")
    p.add_argument("--seq-len", type=int, default=None, help="sequence length (default: config)")
    p.add_argument("--grad-accum", type=int, default=None, help="micro-batches per step")
    p.add_argument("--dtype", choices=("bfloat16", "float32"), default=None)
    p.add_argument("--fsdp", type=int, default=None, help="FSDP axis size (default: config)")
    p.add_argument("--steps", type=int, default=10, help="timed steps")
    p.add_argument("--warmup", type=int, default=2, help="untimed steps after compilation")
    p.add_argument("--peak-flops", type=float, default=0.0, help="per-device peak FLOP/s")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    return p


def run(args: argparse.Namespace) -> dict:
    from pretrain import bootstrap, input_pipeline, metric_log, models, sharding, train

    cfg = importlib.import_module(f"pretrain.configs.{args.config}").get_config()
    cfg.data.synthetic = True
    if args.seq_len:
        cfg.data.max_seq_length = args.seq_len
    elif cfg.model.startswith("tiny"):
        cfg.data.max_seq_length = 128
    if args.batch:
        cfg.global_batch_size = args.batch
    if args.grad_accum:
        cfg.grad_accum_steps = args.grad_accum
    if args.dtype:
        cfg.model_overrides.dtype = args.dtype
    if args.fsdp:
        cfg.mesh.fsdp = args.fsdp
    cfg.seed = args.seed
    mesh = sharding.make_mesh(int(cfg.mesh.fsdp))
    sharding.check_batch_size(cfg.global_batch_size, mesh, cfg.grad_accum_steps)
    data = bootstrap.resolve_data(cfg, ".")
    mc = train.build_model_config(cfg, data)

    t0 = time.perf_counter()
    program, state = train.create_train_state(mc, cfg, data.objective, mesh)
    jax.block_until_ready(state)
    init_s = time.perf_counter() - t0

    rows = cfg.global_batch_size // jax.process_count()
    start = jax.process_index() * rows

    def batch(i: int):
        full = input_pipeline.synthetic_batch(
            args.seed * 1000 + i,
            cfg.global_batch_size,
            data.max_seq_length,
            data.max_predictions_per_seq,
            data.vocab_size,
            data.objective,
        )
        return sharding.global_batch({k: v[start : start + rows] for k, v in full.items()}, mesh)

    batches = [batch(i) for i in range(2)]
    t0 = time.perf_counter()
    compiled = program.train_step.lower(state, batches[0]).compile()
    compile_s = time.perf_counter() - t0
    for i in range(args.warmup):
        state, m = compiled(state, batches[i % 2])
    jax.block_until_ready(state)
    times = []
    for i in range(args.steps):
        t = time.perf_counter()
        state, m = compiled(state, batches[i % 2])
        jax.block_until_ready(m)
        times.append(time.perf_counter() - t)
    step_s = statistics.median(times)
    tokens = cfg.global_batch_size * data.max_seq_length
    perf = metric_log.describe_throughput(
        step_s, tokens, mc, data.max_seq_length, data.max_predictions_per_seq, args.peak_flops
    )
    device = jax.devices()[0]
    return {
        "config": args.config,
        "model": cfg.model,
        "params": models.count_params(mc),
        "dtype": mc.dtype,
        "device": f"{jax.device_count()} x {device.device_kind} ({device.platform})",
        "global_batch": cfg.global_batch_size,
        "grad_accum_steps": cfg.grad_accum_steps,
        "seq_len": data.max_seq_length,
        "max_predictions": data.max_predictions_per_seq,
        "flops_per_token": models.flops_per_token(
            mc, data.max_seq_length, data.max_predictions_per_seq
        ),
        "init_s": init_s,
        "compile_s": compile_s,
        "step_s_median": step_s,
        "step_s_min": min(times),
        "tokens_per_s": perf["tokens_per_s"],
        "mfu": perf["mfu"],
        "peak_flops_per_device": metric_log.peak_flops_per_device(override=args.peak_flops),
        "final_loss": float(np.asarray(m["loss"])),
    }


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    result = run(args)
    if args.json:
        print(json.dumps(result))
        return 0
    mfu = f"{100 * result['mfu']:.1f}%" if result["mfu"] is not None else "n/a (peak unknown)"
    print(
        f"{result['config']} ({result['model']}, {result['params']:,} params, {result['dtype']}) "
        f"on {result['device']}\n"
        f"  batch {result['global_batch']} x {result['seq_len']} tokens "
        f"(accumulation {result['grad_accum_steps']}), "
        f"{result['flops_per_token']:.3g} FLOPs/token\n"
        f"  compile {result['compile_s']:.1f} s, step {result['step_s_median'] * 1e3:.1f} ms "
        f"(median of {args.steps}), {result['tokens_per_s']:,.0f} tokens/s, MFU {mfu}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
