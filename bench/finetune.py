"""Fine-tuning step throughput: our jitted step against stock transformers (PyTorch), same device.

    python -m bench.finetune                                   # small and base, batch 8 x 128
    python -m bench.finetune --sizes base --batch 32 --seq-len 128 --steps 10
    python -m bench.finetune --arch roberta --sizes small --json
    python -m bench.finetune --sizes base --batch 32 --platform auto    # one GPU: both on it
    python -m bench.finetune --sizes small --epoch ynat --tokenizer TOK --batch 32  # + an epoch

For each model size, one run measures, side by side:

* ``transformers``: ``BertForSequenceClassification`` (``RobertaFor...`` with ``--arch
  roberta``), float32, train mode (dropout on), the KLUE-baseline step: forward with labels,
  ``loss.backward()``, ``clip_grad_norm_(1.0)``, ``torch.optim.AdamW`` (no decay on biases and
  LayerNorm), linear warmup/decay schedule, ``zero_grad``;
* ``ours``: the same weights imported with `finetune.pretrained.load_encoder` from the folder
  the reference saved, the YNAT head of `finetune.tasks`, and the trainer's own compiled
  program (`finetune.steps.build_program`: ``pretrain.sharding`` mesh and shardings, the train
  state donated), float32 compute.

Both get the same sequence-classification task (7 labels, as YNAT), batches of random token
ids with random lengths in ``[L/2, L]`` padded to ``L`` (``--seq-len``), and ``--batch``
examples per step. Each framework runs in its own child process, so its peak resident memory
(``ru_maxrss``) is its own; both use every CPU core the machine gives them. Reported:
examples/s (batch / median step time over ``--steps`` after ``--warmup`` untimed steps), the
first step (our compilation; torch's allocation), peak RSS, and ours/transformers ratios.

``--epoch TASK`` adds one full epoch of ours on the task's real dev split (``--data-dir``, the
first ``--epoch-examples``), tokenised with ``--tokenizer``, padded to ``--seq-len`` and then
length-bucketed (`finetune.batching`): examples/s of training and evaluation in both modes
(`bench.finetune_epoch`, model size ``--epoch-size``). ``--sizes ""`` skips the step comparison.

The machine this ran on may be shared: say so next to any figure you quote.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.finetune_epoch import EPOCH_TASKS, format_epoch, run_epoch
from bench.provenance import stamp
from corpus.datadir import add_data_dir_argument

NUM_LABELS = 7  # YNAT
VOCAB = 32000  # the KLUE paper's vocabulary
SIZES = {  # name -> (layers, hidden, heads); intermediate 4 x hidden
    "tiny": (2, 64, 2),
    "small": (4, 256, 4),
    "base": (12, 768, 12),
}


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m bench.finetune", description=__doc__.split("\n")[0])
    p.add_argument("--sizes", default="small,base", help=f"comma list of {sorted(SIZES)}")
    p.add_argument("--arch", choices=("bert", "roberta"), default="bert")
    p.add_argument("--batch", type=int, default=8, help="examples per step")
    p.add_argument("--seq-len", type=int, default=128)
    p.add_argument("--steps", type=int, default=5, help="timed steps")
    p.add_argument("--warmup", type=int, default=1, help="untimed steps after the first")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workdir", default=None, help="where the model folders go (default: temp)")
    p.add_argument(
        "--platform",
        choices=("cpu", "auto"),
        default="cpu",
        help="cpu: both frameworks on the CPU; auto: JAX's default backend and torch on CUDA "
        "when it sees a GPU (float32 matrix products in TF32 on both, JAX's GPU default)",
    )
    p.add_argument("--epoch", choices=EPOCH_TASKS, help="also time a full epoch on this task")
    p.add_argument("--epoch-examples", type=int, default=1024, help="dev examples (0: all)")
    p.add_argument("--epoch-size", default="small", help="model size of the epoch run")
    p.add_argument("--tokenizer", help="tokenizer or model folder for --epoch (real Korean text)")
    add_data_dir_argument(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--worker", choices=("ours", "transformers", "epoch"), help=argparse.SUPPRESS)
    p.add_argument("--folder", help=argparse.SUPPRESS)
    p.add_argument("--size", help=argparse.SUPPRESS)
    return p


def synthetic_batches(args: argparse.Namespace, n: int, pad_id: int) -> list[dict[str, np.ndarray]]:
    """``n`` batches of [CLS]-less random ids (ids 5.. so no special token), random lengths."""
    rng = np.random.default_rng(args.seed)
    out = []
    for _ in range(n):
        length = rng.integers(args.seq_len // 2, args.seq_len + 1, args.batch)
        ids = rng.integers(5, VOCAB, (args.batch, args.seq_len)).astype(np.int32)
        mask = (np.arange(args.seq_len)[None, :] < length[:, None]).astype(np.int32)
        ids = np.where(mask == 1, ids, pad_id).astype(np.int32)
        out.append(
            {
                "input_ids": ids,
                "token_type_ids": np.zeros_like(ids),
                "attention_mask": mask,
                "label": rng.integers(0, NUM_LABELS, args.batch).astype(np.int32),
            }
        )
    return out


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _timed(step, batches, args) -> dict[str, float]:
    t = time.perf_counter()
    step(batches[0])
    first = time.perf_counter() - t
    for i in range(args.warmup):
        step(batches[(i + 1) % len(batches)])
    times = []
    for i in range(args.steps):
        t = time.perf_counter()
        step(batches[i % len(batches)])
        times.append(time.perf_counter() - t)
    median = statistics.median(times)
    return {
        "first_step_s": first,
        "step_s": median,
        "step_s_min": min(times),
        "examples_per_s": args.batch / median,
    }


# ---------------------------------------------------------------------------------------------
# Workers (each in its own process)


def run_transformers(args: argparse.Namespace) -> dict:
    import torch
    import transformers

    layers, hidden, heads = SIZES[args.size]
    torch.manual_seed(args.seed)
    device = torch.device("cpu")
    if args.platform == "auto" and torch.cuda.is_available():
        device = torch.device("cuda")
        torch.set_float32_matmul_precision("high")  # TF32, as XLA:GPU's default precision
    shape = dict(
        vocab_size=VOCAB,
        hidden_size=hidden,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        intermediate_size=4 * hidden,
        num_labels=NUM_LABELS,
    )
    if args.arch == "bert":
        config = transformers.BertConfig(max_position_embeddings=512, **shape)
        model = transformers.BertForSequenceClassification(config)
        pad_id = 0
    else:  # KLUE-RoBERTa's ids and sizes
        config = transformers.RobertaConfig(
            max_position_embeddings=514,
            pad_token_id=1,
            bos_token_id=0,
            eos_token_id=2,
            type_vocab_size=1,
            layer_norm_eps=1e-5,
            **shape,
        )
        model = transformers.RobertaForSequenceClassification(config)
        pad_id = 1
    folder = Path(args.folder)
    model.save_pretrained(str(folder))
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    if args.arch == "roberta":
        specials = ["[CLS]", "[PAD]", "[SEP]", "[UNK]", "[MASK]"]
    vocab = specials + [f"tok{i}" for i in range(VOCAB - len(specials))]
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    (folder / "tokenizer_config.json").write_text(json.dumps({"do_lower_case": False}))

    model.to(device).train()
    no_decay = ("bias", "LayerNorm.weight")
    groups = [
        {
            "params": [p for n, p in model.named_parameters() if not n.endswith(no_decay)],
            "weight_decay": 0.01,
        },
        {
            "params": [p for n, p in model.named_parameters() if n.endswith(no_decay)],
            "weight_decay": 0.0,
        },
    ]
    opt = torch.optim.AdamW(groups, lr=5e-5, eps=1e-8)
    total = 1 + args.warmup + args.steps
    sched = transformers.get_linear_schedule_with_warmup(opt, max(1, total // 10), total)
    batches = [
        {k: torch.as_tensor(v, dtype=torch.long).to(device) for k, v in b.items()}
        for b in synthetic_batches(args, 2, pad_id)
    ]
    losses = []

    def step(b):
        out = model(
            input_ids=b["input_ids"],
            token_type_ids=b["token_type_ids"],
            attention_mask=b["attention_mask"],
            labels=b["label"],
        )
        out.loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        opt.zero_grad()
        losses.append(float(out.loss.detach()))

    result = _timed(step, batches, args)
    result.update(
        framework=f"transformers {transformers.__version__} / torch {torch.__version__} "
        f"({device.type})",
        threads=torch.get_num_threads(),
        params=sum(p.numel() for p in model.parameters()),
        final_loss=losses[-1],
        peak_rss_mb=_peak_rss_mb(),
    )
    return result


def run_ours(args: argparse.Namespace) -> dict:
    import jax

    from finetune import steps
    from finetune.pretrained import load_encoder
    from finetune.tasks.base import get_task
    from pretrain import sharding

    loaded = load_encoder(args.folder, dtype="float32", seed=args.seed)
    task = get_task("ynat")
    total = 1 + args.warmup + args.steps
    opt_cfg = steps.optimizer_config(
        {
            "learning_rate": 5e-5,
            "weight_decay": 0.01,
            "adam_b1": 0.9,
            "adam_b2": 0.999,
            "adam_eps": 1e-8,
            "max_grad_norm": 1.0,
        },
        {"warmup_steps": max(1, total // 10), "total_steps": total},
    )
    mesh = sharding.make_mesh(1)
    keys = ("input_ids", "token_type_ids", "attention_mask", "label")
    # The trainer's own compiled program (finetune.trainer.run_task builds the same).
    program = steps.build_program(task, loaded, opt_cfg, mesh, sharding.FSDP_MIN_SIZE, keys, keys)
    state = program.init_state(program.init_params(loaded, args.seed), args.seed)
    batches = []
    for b in synthetic_batches(args, 2, loaded.pad_id):
        b["weight"] = np.ones(args.batch, np.float32)
        batches.append(sharding.global_batch(b, mesh))
    holder = {"state": state, "loss": None}

    def step(b):
        holder["state"], metrics = program.train_step(holder["state"], b)
        holder["loss"] = float(metrics["loss"])  # waits for the step, as torch's float() does

    result = _timed(step, batches, args)
    device = jax.devices()[0]
    result.update(
        framework=f"ours (jax {jax.__version__}, {jax.device_count()} x {device.platform})",
        threads=os.cpu_count(),
        params=sum(x.size for x in jax.tree.leaves(holder["state"].params)),
        final_loss=holder["loss"],
        peak_rss_mb=_peak_rss_mb(),
    )
    return result


# ---------------------------------------------------------------------------------------------
# Driver


def _child(args: argparse.Namespace, worker: str, size: str, folder: Path) -> dict:
    cmd = [sys.executable, "-m", "bench.finetune", "--worker", worker, "--size", size]
    cmd += ["--folder", str(folder), "--arch", args.arch, "--batch", str(args.batch)]
    cmd += ["--seq-len", str(args.seq_len), "--steps", str(args.steps)]
    cmd += ["--warmup", str(args.warmup), "--seed", str(args.seed), "--platform", args.platform]
    if worker == "epoch":
        cmd += ["--epoch", args.epoch, "--epoch-examples", str(args.epoch_examples)]
        cmd += ["--tokenizer", str(args.tokenizer)]
        cmd += ["--data-dir", args.data_dir] if args.data_dir else []
    env = dict(os.environ)
    if args.platform == "cpu":
        env["JAX_PLATFORMS"] = os.environ.get("JAX_PLATFORMS", "cpu")
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"{worker} worker failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _in_process(args: argparse.Namespace, worker: str, size: str, folder: Path) -> dict:
    """The worker in this process (CPU smoke runs: no second start-up; peak RSS is shared)."""
    child = argparse.Namespace(**{**vars(args), "size": size, "folder": str(folder)})
    return WORKERS[worker](child)


def run_epoch_worker(args: argparse.Namespace) -> dict:
    """`bench.finetune_epoch.run_epoch` at model size ``args.size``."""
    return run_epoch(args, *SIZES[args.size])


WORKERS = {"ours": run_ours, "transformers": run_transformers, "epoch": run_epoch_worker}


def run(args: argparse.Namespace, isolate: bool = True) -> dict:
    """Both frameworks for every size; each worker in its own process unless not ``isolate``."""
    child = _child if isolate else _in_process
    sizes = [s.strip() for s in args.sizes.split(",") if s.strip()]
    unknown = [s for s in sizes if s not in SIZES]
    if unknown:
        raise SystemExit(f"unknown sizes {unknown}; choose from {sorted(SIZES)}")
    if args.epoch and not args.tokenizer:
        raise SystemExit(
            "--epoch needs --tokenizer DIR (a folder of `python -m tokenizer.train` or a model's)"
        )
    if args.epoch_size not in SIZES:
        raise SystemExit(f"unknown --epoch-size {args.epoch_size}; choose from {sorted(SIZES)}")
    rows = []
    with tempfile.TemporaryDirectory(dir=args.workdir) as tmp:
        for size in sizes:
            folder = Path(tmp) / size
            theirs = child(args, "transformers", size, folder)  # writes the folder
            ours = child(args, "ours", size, folder)
            rows.append(
                {
                    "size": size,
                    "layers_hidden_heads": SIZES[size],
                    "ours": ours,
                    "transformers": theirs,
                    "speed_ratio": ours["examples_per_s"] / theirs["examples_per_s"],
                    "memory_ratio": ours["peak_rss_mb"] / theirs["peak_rss_mb"],
                }
            )
        epoch = child(args, "epoch", args.epoch_size, Path(tmp)) if args.epoch else None
    return {
        "arch": args.arch,
        "batch": args.batch,
        "seq_len": args.seq_len,
        "steps": args.steps,
        "platform": args.platform,
        "isolated": isolate,
        "cpus": os.cpu_count(),
        "load_average": os.getloadavg()[0],
        "rows": rows,
        "epoch": epoch,
    }


def format_table(result: dict) -> str:
    if not result["rows"]:
        return format_epoch(result["epoch"]) if result.get("epoch") else "nothing measured"
    lines = [
        f"{result['arch']} sequence classification ({NUM_LABELS} labels), batch "
        f"{result['batch']} x {result['seq_len']} tokens, float32, {result['cpus']} CPUs "
        f"(load average {result['load_average']:.1f})",
        "",
        "| size | params | ours ex/s | transformers ex/s | speed ours/tf | ours first step s | "
        "tf first step s | ours peak RSS MB | tf peak RSS MB | memory ours/tf |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in result["rows"]:
        o, t = r["ours"], r["transformers"]
        layers, hidden, heads = r["layers_hidden_heads"]
        lines.append(
            f"| {r['size']} ({layers}x{hidden}) | {t['params'] / 1e6:.1f}M | "
            f"{o['examples_per_s']:.2f} | {t['examples_per_s']:.2f} | {r['speed_ratio']:.2f} | "
            f"{o['first_step_s']:.1f} | {t['first_step_s']:.1f} | {o['peak_rss_mb']:.0f} | "
            f"{t['peak_rss_mb']:.0f} | {r['memory_ratio']:.2f} |"
        )
    if result.get("epoch"):
        lines += ["", format_epoch(result["epoch"])]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.worker:
        print(json.dumps(WORKERS[args.worker](args)))
        return 0
    result = run(args)
    print(json.dumps(stamp(result)) if args.json else format_table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
