"""Train-step throughput of a pretraining config on whatever devices JAX sees.

    python -m bench.pretrain --config tiny
    python -m bench.pretrain --config bert_base --batch 8 --seq-len 128 --steps 5   # on CPU
    python -m bench.pretrain --config roberta_base --batch 64 --seq-len 512          # on a GPU
    python -m bench.pretrain --config roberta_base --batch 64 --seq-len 512 --attention fused
    python -m bench.pretrain --memory --configs bert_base,roberta_base --micro-batch 8 \\
        --hbm-gib 16,80,141 [--remat none,nothing_saveable]      # compiled memory, no run

Runs the real jitted `pretrain.train` step (AdamW, clipping, accumulation, the
configured mesh) on synthetic batches of the loader's shapes, so no data is
needed. Reports compile time, step time, tokens/s and MFU:

    MFU = models.flops_per_token(config, L, P) * tokens/s / (devices * peak FLOP/s)

with the per-device peak from the table in `pretrain.flops.PEAK_FLOPS_PER_DEVICE` (dense
bf16), or ``--peak-flops`` where the device is not in the table (CPU). Tokens
count every position of the padded batch, as the step computes them all.

``--memory`` runs nothing: for each config and remat setting it compiles the real train step
(AdamW state, float32 master weights, one device, data parallel: parameters and optimiser
state whole on every device) for abstract inputs of micro-batch ``b`` and ``2b`` per device
and reads XLA's memory analysis of the compiled program (arguments + outputs - aliased +
temporaries = the peak the program needs). Memory grows linearly in the micro-batch, so the
two compiles give the fixed part (weights, Adam moments, gradients) and the per-example part,
hence the largest micro-batch that fits each ``--hbm-gib``; with gradient accumulation the
per-device batch is ``micro-batch x grad_accum_steps`` at the micro-batch's memory. The figures
are the compiler's for the platform it runs on: a CPU table says what XLA:CPU would allocate;
TPU and GPU compilers fuse and lay out differently, so run it on the device to size a job.
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

from bench.provenance import stamp


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m bench.pretrain", description=__doc__.split("\n")[0])
    p.add_argument("--config", default="tiny", help="name of a file in pretrain/configs/")
    p.add_argument("--model", default=None, help="preset overriding the config's (tiny-roberta)")
    p.add_argument("--batch", type=int, default=None, help="global batch (default: the config's)")
    p.add_argument("--seq-len", type=int, default=None, help="sequence length (default: config)")
    p.add_argument("--grad-accum", type=int, default=None, help="micro-batches per step")
    p.add_argument("--dtype", choices=("bfloat16", "float32"), default=None)
    p.add_argument("--fsdp", type=int, default=None, help="FSDP axis size (default: config)")
    p.add_argument(
        "--attention",
        choices=("xla", "fused"),
        default=None,
        help="attention implementation (default: config); fused sets attention_dropout 0",
    )
    p.add_argument("--steps", type=int, default=10, help="timed steps")
    p.add_argument("--warmup", type=int, default=2, help="untimed steps after compilation")
    p.add_argument("--peak-flops", type=float, default=0.0, help="per-device peak FLOP/s")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    m = p.add_argument_group("--memory: compiled peak memory per device (nothing is run)")
    m.add_argument("--memory", action="store_true", help="print the memory table and exit")
    m.add_argument("--configs", default="bert_base,roberta_small,roberta_base,roberta_large")
    m.add_argument("--micro-batch", type=int, default=8, help="per device, per micro-step")
    m.add_argument("--hbm-gib", default="16,80,141", help="device memory sizes to fit (GiB)")
    m.add_argument(
        "--remat", default="none,nothing_saveable", help="none and/or policy names, comma-separated"
    )
    m.add_argument(
        "--scan", action="store_true", help="scan over layers (compile time independent of depth)"
    )
    return p


GIB = 2**30


def compiled_peak_bytes(
    config_name: str, seq_len: int, micro_batch: int, remat: str, scan: bool = False
) -> dict:
    """XLA's memory analysis of the train step for one device and ``micro_batch`` rows."""
    from pretrain import bootstrap, models, sharding, train
    from pretrain.bootstrap import BATCH_KEYS

    cfg = importlib.import_module(f"pretrain.configs.{config_name}").get_config()
    cfg.data.synthetic = True
    cfg.data.max_seq_length = seq_len
    cfg.global_batch_size = micro_batch
    cfg.grad_accum_steps = 1
    cfg.mesh.fsdp = 1
    if remat != "none":
        cfg.model_overrides.remat = True
        cfg.model_overrides.remat_policy = remat
    cfg.model_overrides.scan_layers = bool(scan)
    mesh = sharding.make_mesh(1, devices=jax.devices()[:1])
    data = bootstrap.resolve_data(cfg, ".")
    mc = train.build_model_config(cfg, data)
    program = train.build_program(mc, cfg, data.objective, mesh)
    state = train.abstract_with_shardings(program.abstract_state, program.shardings)
    batch_sh = sharding.batch_sharding(mesh)
    shapes = {
        "input_ids": (micro_batch, seq_len),
        "token_type_ids": (micro_batch, seq_len),
        "attention_mask": (micro_batch, seq_len),
        "masked_positions": (micro_batch, data.max_predictions_per_seq),
        "masked_ids": (micro_batch, data.max_predictions_per_seq),
        "masked_weights": (micro_batch, data.max_predictions_per_seq),
        "nsp_labels": (micro_batch,),
    }
    batch = {
        k: jax.ShapeDtypeStruct(
            shapes[k], np.float32 if k == "masked_weights" else np.int32, sharding=batch_sh
        )
        for k in BATCH_KEYS
    }
    t0 = time.perf_counter()
    stats = program.train_step.lower(state, batch).compile().memory_analysis()
    compile_s = time.perf_counter() - t0
    peak = (
        stats.argument_size_in_bytes
        + stats.output_size_in_bytes
        - stats.alias_size_in_bytes
        + stats.temp_size_in_bytes
    )
    return {
        "params": models.count_params(mc),
        "peak_bytes": peak,
        "temp_bytes": stats.temp_size_in_bytes,
        "argument_bytes": stats.argument_size_in_bytes,
        "compile_s": compile_s,
    }


def memory_table(args: argparse.Namespace) -> list[dict]:
    """One row per (config, remat): peak at b and 2b, fixed and per-example parts, max b."""
    rows = []
    hbm = [float(x) for x in args.hbm_gib.split(",") if x]
    b = args.micro_batch
    for name in [c for c in args.configs.split(",") if c]:
        for remat in [r for r in args.remat.split(",") if r]:
            seq = args.seq_len or 512
            one = compiled_peak_bytes(name, seq, b, remat, args.scan)
            two = compiled_peak_bytes(name, seq, 2 * b, remat, args.scan)
            per_example = max((two["peak_bytes"] - one["peak_bytes"]) / b, 1.0)
            fixed = one["peak_bytes"] - per_example * b
            row = {
                "config": name,
                "remat": remat,
                "scan_layers": bool(args.scan),
                "seq_len": seq,
                "micro_batch": b,
                "params": one["params"],
                "peak_gib": one["peak_bytes"] / GIB,
                "peak_gib_2x": two["peak_bytes"] / GIB,
                "fixed_gib": fixed / GIB,
                "per_example_mib": per_example / 2**20,
                "compile_s": one["compile_s"] + two["compile_s"],
                "platform": jax.devices()[0].platform,
            }
            for size in hbm:
                row[f"max_micro_batch_{size:g}gib"] = max(
                    int((size * GIB - fixed) // per_example), 0
                )
            rows.append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)
    return rows


def print_memory_table(rows: list[dict], hbm: str) -> None:
    sizes = [f"{float(x):g}" for x in hbm.split(",") if x]
    head = ["config", "remat", "L", "micro-batch", "peak GiB", "fixed GiB", "MiB/example"]
    head += [f"max micro-batch {s} GiB" for s in sizes]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        cells = [
            r["config"],
            r["remat"],
            str(r["seq_len"]),
            str(r["micro_batch"]),
            f"{r['peak_gib']:.2f}",
            f"{r['fixed_gib']:.2f}",
            f"{r['per_example_mib']:.0f}",
        ]
        cells += [str(r[f"max_micro_batch_{s}gib"]) for s in sizes]
        print("| " + " | ".join(cells) + " |")
    platform = rows[0]["platform"] if rows else "?"
    scan = "scan over layers" if rows and rows[0]["scan_layers"] else "layers unrolled"
    print(
        f"\nplatform: {platform} ({jax.devices()[0].device_kind}); one device, data parallel; "
        f"{scan}."
    )


def run(args: argparse.Namespace) -> dict:
    from pretrain import bootstrap, input_pipeline, metric_log, models, sharding, train

    cfg = importlib.import_module(f"pretrain.configs.{args.config}").get_config()
    cfg.data.synthetic = True
    if args.model:
        cfg.model = args.model
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
    if args.attention:
        cfg.attention = args.attention
        if args.attention == "fused":  # it has no attention-probability dropout
            cfg.model_overrides.attention_dropout = 0.0
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
        "attention": mc.attention,
        "attention_dropout": mc.attention_dropout,
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
    if args.memory:
        rows = memory_table(args)
        if args.json:
            print(json.dumps(rows))
        else:
            print_memory_table(rows, args.hbm_gib)
        return 0
    result = run(args)
    if args.json:
        print(json.dumps(stamp(result)))
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
