"""Does the pretraining loader keep up? Loader examples/s against what train steps consume.

    python -m bench.input_pipeline [--data-dir D] [--tokenizer TOK] [--files 2]
        [--batch-size 64] [--steps 20] [--workers 2] [--mfu 0.4] [--json OUT]

1. Examples: BERT (NSP + static masking) and RoBERTa (packed, masked in the
   loader) examples at L=128 and L=512 are built from the first ``--files``
   Korean Wikipedia files of the shared corpus with ``--tokenizer`` (default:
   a 32,000-piece WordPiece stand-in trained here on two other kowiki files),
   cached under ``--cache``.
2. Loader: `pretrain.input_pipeline.make_loader(...).batch(step)` timed in one
   process (examples/s per process), and the iterator with ``--workers``
   worker processes; each is the best of 3 rounds of ``--steps`` batches.
3. Demand: the tiny model's train step (forward + backward + AdamW, float32,
   jit) is timed on this machine's CPU with batches of the same shape; for the
   paper's base/large models the tokens/s a device consumes is
   ``MFU x peak FLOP/s / pretrain.models.flops_per_token`` (peaks of
   `pretrain.flops.PEAK_FLOPS`: TPU v3-8 492, H200 989 dense bf16 TFLOP/s;
   MFU ``--mfu``), i.e. an assumption, not a measurement.
4. Verdict: ratio = loader examples per CPU-second / (demand tokens/s / L):
   what one dedicated core delivers against what the step eats; the goal is
   >= 10. The table also gives the cores (loader worker processes) needed for
   10x at that rate.

The machine this ran on is shared: figures are lower bounds of a free core.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import sys
import time
from pathlib import Path

import numpy as np

from bench.provenance import stamp


def _stand_in_tokenizer(data_dir: Path, out: Path, vocab: int) -> Path:
    """A WordPiece vocabulary with BERT's special ids, trained on kowiki wiki_90/wiki_91."""
    if (out / "tokenizer.json").is_file():
        return out
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    from corpus.readers import iter_records
    from pretrain.masking import SPECIAL_TOKENS

    wiki = data_dir / "corpus" / "kowiki" / "AA"
    texts = [r.text for name in ("wiki_90", "wiki_91") for r in iter_records(wiki / name)]
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]", max_input_chars_per_word=100))
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece()
    trainer = trainers.WordPieceTrainer(
        vocab_size=vocab,
        special_tokens=list(SPECIAL_TOKENS),
        continuing_subword_prefix="##",
        show_progress=False,
    )
    tok.train_from_iterator(texts, trainer)
    out.mkdir(parents=True, exist_ok=True)
    tok.save(str(out / "tokenizer.json"))
    return out


def time_loader(examples: Path, batch_size: int, steps: int, workers: int) -> dict[str, float]:
    from pretrain.input_pipeline import make_loader

    loader = make_loader(examples, global_batch_size=batch_size, seed=0, prefetch=0)
    loader.batch(0)
    # Best of 3 rounds, by wall clock and by this process's CPU time: on a shared machine the
    # CPU-time rate is what one dedicated core delivers (the loader is single-threaded here).
    rates, cpu_rates, real, step = [], [], 0, 1
    for _ in range(3):
        t0, c0 = time.perf_counter(), time.process_time()
        for _ in range(steps):
            real += int(loader.batch(step)["attention_mask"].sum())
            step += 1
        rates.append(steps * batch_size / (time.perf_counter() - t0))
        cpu_rates.append(steps * batch_size / (time.process_time() - c0))
    out = {
        "examples_per_s": max(rates),
        "examples_per_cpu_s": max(cpu_rates),
        "examples_per_s_rounds": rates,
        "real_token_share": real / ((step - 1) * batch_size * loader.max_seq_length),
        "examples": loader.num_examples,
    }
    if workers > 0:
        par = make_loader(
            examples, global_batch_size=batch_size, seed=0, prefetch=4, num_workers=workers
        )
        it = iter(par)
        for _ in range(workers + 2):  # start the processes and fill the pipeline
            next(it)
        rates = []
        for _ in range(3):
            t0 = time.perf_counter()
            for _ in range(steps):
                next(it)
            rates.append(steps * batch_size / (time.perf_counter() - t0))
        out["workers"] = workers
        out["examples_per_s_workers"] = max(rates)
        it.close()
    return out


def time_tiny_step(batch_size: int, seq_len: int, steps: int, vocab_size: int) -> float:
    """Tokens/s of the tiny model's jitted train step on the default JAX device (CPU here)."""
    import jax
    import optax
    from flax import nnx

    from pretrain import models
    from pretrain.input_pipeline import synthetic_batch
    from pretrain.masking import default_max_predictions

    config = models.PRESETS["tiny"].replace(vocab_size=vocab_size)
    model = models.PretrainingModel(config, rngs=nnx.Rngs(0))
    graphdef, params, rest = nnx.split(model, nnx.Param, ...)
    tx = optax.adamw(1e-4)
    opt_state = tx.init(params)
    p = default_max_predictions(seq_len)

    def loss_fn(params, batch):
        out = nnx.merge(graphdef, params, rest)(
            batch["input_ids"],
            batch["token_type_ids"],
            batch["attention_mask"],
            batch["masked_positions"],
        )
        xent = optax.softmax_cross_entropy_with_integer_labels(
            out["mlm_logits"], batch["masked_ids"]
        )
        loss = (xent * batch["masked_weights"]).sum() / batch["masked_weights"].sum()
        if out.get("nsp_logits") is not None:
            loss += optax.softmax_cross_entropy_with_integer_labels(
                out["nsp_logits"], batch["nsp_labels"]
            ).mean()
        return loss

    @jax.jit
    def step(params, opt_state, batch):
        loss, grads = jax.value_and_grad(loss_fn)(params, batch)
        updates, opt_state = tx.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, loss

    batch = synthetic_batch(0, batch_size, seq_len, p, vocab_size, "bert")
    params, opt_state, loss = step(params, opt_state, batch)
    loss.block_until_ready()
    t0 = time.perf_counter()
    for _ in range(steps):
        params, opt_state, loss = step(params, opt_state, batch)
    loss.block_until_ready()
    return steps * batch_size * seq_len / (time.perf_counter() - t0)


def accelerator_demand(mfu: float) -> list[dict[str, float | str]]:
    from pretrain.flops import PEAK_FLOPS
    from pretrain.models import PRESETS, flops_per_token

    rows = []
    for preset in ("bert-base", "roberta-small", "roberta-base", "roberta-large"):
        per_token = flops_per_token(PRESETS[preset], 512)
        for device, peak in PEAK_FLOPS.items():
            rows.append(
                {
                    "model": preset,
                    "objective": "bert" if preset.startswith("bert") else "roberta",
                    "device": device,
                    "seq_len": 512,
                    "tokens_per_s": mfu * peak / per_token,
                }
            )
    return rows


def main(argv: list[str] | None = None) -> int:
    from corpus.datadir import add_data_dir_argument, resolve_data_dir
    from pretrain.build_data import build_examples

    parser = argparse.ArgumentParser(prog="python -m bench.input_pipeline", description=__doc__)
    add_data_dir_argument(parser)
    parser.add_argument("--tokenizer", default=None, help="tokenizer folder (default: stand-in)")
    parser.add_argument("--files", type=int, default=2, help="kowiki files to build from")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--steps", type=int, default=20, help="batches per timed round (3 rounds)")
    parser.add_argument("--workers", type=int, default=2, help="loader worker processes")
    parser.add_argument("--mfu", type=float, default=0.4, help="assumed accelerator MFU")
    parser.add_argument("--cache", default=os.path.join("/tmp", "bench_input_pipeline"))
    parser.add_argument("--json", default=None, help="also write the results here")
    args = parser.parse_args(argv)

    data_dir = resolve_data_dir(args.data_dir)
    cache = Path(args.cache)
    tok = Path(args.tokenizer) if args.tokenizer else None
    tok = tok or _stand_in_tokenizer(data_dir, cache / "tokenizer", 32000)
    wiki = data_dir / "corpus" / "kowiki" / "AA"
    inputs = [wiki / f"wiki_{k:02d}" for k in range(args.files)]
    vocab_size = None
    loader_rows = []
    for seq_len in (128, 512):
        for objective in ("bert", "roberta"):
            out = cache / f"{objective}-{seq_len}"
            t0 = time.perf_counter()
            kwargs = dict(
                objective=objective,
                max_seq_length=seq_len,
                dupe_factor=1,
                workers=min(2, len(inputs)),
                log=lambda *_: None,
            )
            try:
                build_examples(tok, inputs, out, **kwargs)
            except FileExistsError:  # a stale cache entry (other tokenizer or code version)
                shutil.rmtree(out)
                build_examples(tok, inputs, out, **kwargs)
            build_s = time.perf_counter() - t0
            manifest = json.loads((out / "manifest.json").read_text())
            vocab_size = manifest["vocab_size"]
            row = {"objective": objective, "seq_len": seq_len, "build_s": build_s}
            row.update(time_loader(out, args.batch_size, args.steps, args.workers))
            loader_rows.append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)  # progress; stdout: tables

    def loader_rate(objective: str, seq_len: int) -> dict:
        return next(
            r for r in loader_rows if r["objective"] == objective and r["seq_len"] == seq_len
        )

    tiny_tokens = time_tiny_step(32, 128, 20, vocab_size)
    demand = [
        {
            "model": "tiny (bert step)",
            "objective": objective,
            "device": "this CPU (measured)",
            "seq_len": 128,
            "tokens_per_s": tiny_tokens,
        }
        for objective in ("bert", "roberta")
    ] + accelerator_demand(args.mfu)
    for d in demand:
        rate = loader_rate(d["objective"], d["seq_len"])["examples_per_cpu_s"]
        need = d["tokens_per_s"] / d["seq_len"]
        d["examples_per_s_needed"] = need
        d["loader_examples_per_cpu_s"] = rate
        d["ratio"] = rate / need
        d["processes_for_10x"] = math.ceil(10 * need / rate)
    result = {
        "argv": sys.argv if argv is None else argv,
        "tokenizer": str(tok),
        "inputs": [str(p) for p in inputs],
        "batch_size": args.batch_size,
        "mfu": args.mfu,
        "cpu_count": os.cpu_count(),
        "load_average": os.getloadavg(),
        "loader": loader_rows,
        "demand": demand,
    }
    print(render(result))
    if args.json:
        Path(args.json).write_text(json.dumps(stamp(result), indent=1) + "\n")
    return 0


def render(result: dict) -> str:
    """The two markdown tables of docs/pretrain_data.md."""
    lines = [
        "| objective | L | examples | ex/s (1 process, wall) | ex/s per CPU-second "
        "| ex/s with workers (wall) | real-token share |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in result["loader"]:
        par = r.get("examples_per_s_workers", float("nan"))
        lines.append(
            f"| {r['objective']} | {r['seq_len']} | {r['examples']:,} | "
            f"{r['examples_per_s']:,.0f} | {r['examples_per_cpu_s']:,.0f} | "
            f"{par:,.0f} ({r.get('workers', 0)}) | {r['real_token_share']:.3f} |"
        )
    lines += [
        "",
        "| model | device | L | tokens/s consumed | examples/s needed | loader | "
        "loader/needed (1 core) | cores for 10x |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for d in result["demand"]:
        lines.append(
            f"| {d['model']} | {d['device']} | {d['seq_len']} | {d['tokens_per_s']:,.0f} | "
            f"{d['examples_per_s_needed']:,.1f} | {d['objective']} | {d['ratio']:,.1f}x | "
            f"{d['processes_for_10x']} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    np.set_printoptions(suppress=True)
    sys.exit(main())
