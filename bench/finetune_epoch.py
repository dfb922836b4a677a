"""One full fine-tuning epoch on a real KLUE split, padded to max_seq_length or length-bucketed.

The worker behind ``python -m bench.finetune --epoch TASK`` (it runs in its own process). It
encodes the task's dev split from ``--data-dir`` (the first ``--epoch-examples`` of it) with a
real Korean tokenizer (``--tokenizer``: a folder of ``python -m tokenizer.train`` or of a
released model), builds a random BERT of the chosen size and runs the trainer's own pieces:
`finetune.batching.train_batch` for every step of one epoch, the compiled
`finetune.steps.build_program` step, then `finetune.trainer.predict_outputs` over the same
rows. Twice: bucketing off (``bucket_lengths=()``, every batch padded to max_seq_length) and on
(the default `finetune.batching.DEFAULT_BUCKETS`).

Per mode: the lengths the batches got (steps per length), the share of padded positions that
hold a real token, the warm-up time (one step per length used: XLA compilation), the epoch's
wall time and examples/s (host batching included, compilation excluded), and the evaluation
pass over the same rows (examples/s of a second pass, after a first that compiles).
Random weights make the speed realistic (the work does not depend on the values); the loss
means nothing.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np

#: Tasks whose dev split the shared data has and that need nothing beyond it to encode.
EPOCH_TASKS = ("ynat", "nli", "sts", "ner", "re", "dp")


def random_bert(tokenizer_dir: str, layers: int, hidden: int, heads: int, seed: int):
    """A `finetune.pretrained.LoadedModel`: a BERT of the given size (512 positions, float32)
    with N(0, 0.02) weights drawn by NumPy, and the folder's tokenizer."""
    import jax
    from flax import nnx

    from finetune.pretrained import LoadedModel, load_tokenizer
    from pretrain import models

    tokenizer, ids = load_tokenizer(tokenizer_dir)
    config = models.PRESETS["bert-base"].replace(
        vocab_size=tokenizer.get_vocab_size(),
        hidden_size=hidden,
        num_layers=layers,
        num_heads=heads,
        intermediate_size=4 * hidden,
        dtype="float32",
    )
    abstract = nnx.eval_shape(lambda: models.Encoder(config, rngs=nnx.Rngs(0)))
    graphdef, shapes, rest = nnx.split(abstract, nnx.Param, ...)
    rng = np.random.default_rng(seed)
    params = jax.tree.map(lambda x: rng.normal(0, 0.02, x.shape).astype(x.dtype), shapes)
    encoder = nnx.merge(graphdef, params, models.concrete_rest(rest))
    folder = Path(tokenizer_dir)
    return LoadedModel(encoder, config, tokenizer, ids, "random", folder, folder)


def load_examples(task_name: str, data_dir: str | None, limit: int):
    """``(task, examples, path)``: the first ``limit`` (0: all) dev examples of the task."""
    from corpus import klue
    from corpus.datadir import klue_dir
    from finetune.tasks.base import get_task

    root = klue_dir(data_dir)
    options = {"relations": klue.relations(root)} if task_name == "re" else {}
    task = get_task(task_name, **options)
    examples = klue.load(task_name, "dev", root)
    if limit > 0:
        examples = examples[:limit]
    return task, examples, klue.locate(task_name, "dev", root)


def _epoch(program, params, features, padding, args, mesh) -> dict[str, Any]:
    """Warm-up (one step per length the epoch uses), then the timed epoch; one mode."""
    import jax

    from finetune import batching
    from pretrain import sharding

    per_epoch = -(-len(features) // args.batch)
    shapes = [
        batching.train_batch(features, args.seed, k, args.batch, per_epoch, padding)[
            "input_ids"
        ].shape[1]
        for k in range(per_epoch)
    ]
    lengths = sorted(set(shapes))
    warm_state = program.init_state(jax.tree.map(np.copy, params), args.seed)
    t = time.perf_counter()
    for n in lengths:
        k = shapes.index(n)
        host = batching.train_batch(features, args.seed, k, args.batch, per_epoch, padding)
        warm_state, metrics = program.train_step(warm_state, sharding.global_batch(host, mesh))
        float(metrics["loss"])
    warm_s = time.perf_counter() - t
    del warm_state

    state = program.init_state(jax.tree.map(np.copy, params), args.seed)
    real = padded = 0
    t = time.perf_counter()
    for k in range(per_epoch):
        host = batching.train_batch(features, args.seed, k, args.batch, per_epoch, padding)
        real += int(host["attention_mask"][host["weight"] > 0].sum())
        padded += int((host["weight"] > 0).sum()) * host["input_ids"].shape[1]
        state, metrics = program.train_step(state, sharding.global_batch(host, mesh))
    loss = float(metrics["loss"])  # waits for the last step
    epoch_s = time.perf_counter() - t
    return {
        "steps_per_length": {str(n): shapes.count(n) for n in lengths},
        "real_token_share": real / padded,
        "warmup_s": warm_s,
        "epoch_s": epoch_s,
        "examples_per_s": len(features) / epoch_s,
        "final_loss": loss,
        "state": state,
    }


def _eval(program, params, features, padding, args, mesh) -> dict[str, Any]:
    """Two evaluation passes over the rows; the second is timed."""
    from finetune import trainer

    t = time.perf_counter()
    first = trainer.predict_outputs(program.eval_step, params, features, args.batch, mesh, padding)
    warm_s = time.perf_counter() - t
    t = time.perf_counter()
    trainer.predict_outputs(program.eval_step, params, features, args.batch, mesh, padding)
    eval_s = time.perf_counter() - t
    return {
        "eval_warmup_s": warm_s,
        "eval_s": eval_s,
        "eval_examples_per_s": len(features) / eval_s,
        "outputs": first,
    }


def run_epoch(args: argparse.Namespace, layers: int, hidden: int, heads: int) -> dict[str, Any]:
    """Both modes on the same rows, program and initial parameters."""
    import jax

    from finetune import batching, modeling, steps
    from finetune.tasks.base import EncodeContext
    from pretrain import sharding

    task, examples, source = load_examples(args.epoch, args.data_dir, args.epoch_examples)
    pre = random_bert(args.tokenizer, layers, hidden, heads, args.seed)
    pre = modeling.with_tokens(pre, tuple(task.extra_tokens), args.seed)
    ctx = EncodeContext(
        tokenizer=pre.tokenizer,
        cls_id=pre.cls_id,
        sep_id=pre.sep_id,
        pad_id=pre.pad_id,
        use_token_types=pre.use_token_types,
    )
    features = task.encode(examples, ctx, args.seq_len, True)
    cfg = {
        "global_batch_size": args.batch,
        "num_train_epochs": 1,
        "warmup_ratio": 0.0,
        "max_train_steps": 0,
        "learning_rate": 5e-5,
        "weight_decay": 0.0,
        "max_grad_norm": 1.0,
        "adam_b1": 0.9,
        "adam_b2": 0.999,
        "adam_eps": 1e-8,
    }
    plan = steps.plan_steps(cfg, len(features))
    mesh = sharding.make_mesh(1)
    keys = tuple(features.arrays)
    opt_cfg = steps.optimizer_config(cfg, plan)
    program = steps.build_program(task, pre, opt_cfg, mesh, sharding.FSDP_MIN_SIZE, keys, keys)
    params = program.init_params(pre, args.seed)
    modes, outputs = {}, {}
    for mode, requested in (("padded", ()), ("bucketed", batching.DEFAULT_BUCKETS)):
        jax.clear_caches()  # each mode's warm-up compiles every length it uses
        padding = batching.padding_for(task, args.seq_len, requested)
        row = _epoch(program, params, features, padding, args, mesh)
        row.pop("state")
        row.update(_eval(program, params, features, padding, args, mesh))
        outputs[mode] = row.pop("outputs")
        modes[mode] = {"bucket_lengths": list(padding.lengths), **row}
    diff = max(
        float(np.max(np.abs(outputs["padded"][k] - outputs["bucketed"][k])))
        for k in outputs["padded"]
    )
    device = jax.devices()[0]
    return {
        "task": task.name,
        "split": source,
        "examples": len(examples),
        "features": len(features),
        "batch": args.batch,
        "max_seq_length": args.seq_len,
        "model": f"random bert {layers}x{hidden} ({heads} heads), vocab {pre.config.vocab_size}",
        "tokenizer": str(args.tokenizer),
        "device": f"{jax.device_count()} x {device.platform}",
        "modes": modes,
        "train_speedup": modes["bucketed"]["examples_per_s"] / modes["padded"]["examples_per_s"],
        "eval_speedup": modes["bucketed"]["eval_examples_per_s"]
        / modes["padded"]["eval_examples_per_s"],
        "eval_outputs_max_abs_diff": diff,
    }


def format_epoch(result: dict[str, Any]) -> str:
    """The markdown table of `run_epoch`'s result."""
    lines = [
        f"{result['task']} dev ({result['split']}): {result['examples']} examples, "
        f"{result['features']} rows, batch {result['batch']}, max_seq_length "
        f"{result['max_seq_length']}, {result['model']}, {result['device']}",
        "",
        "| mode | steps per length | real tokens | warm-up s | epoch s | train ex/s | eval ex/s |",
        "|---|---|---|---|---|---|---|",
    ]
    for mode, r in result["modes"].items():
        per_length = ", ".join(f"{n}: {c}" for n, c in r["steps_per_length"].items())
        lines.append(
            f"| {mode} | {per_length} | {r['real_token_share']:.0%} | {r['warmup_s']:.1f} | "
            f"{r['epoch_s']:.1f} | {r['examples_per_s']:.1f} | {r['eval_examples_per_s']:.1f} |"
        )
    lines += [
        "",
        f"bucketed / padded: train {result['train_speedup']:.2f}x, eval "
        f"{result['eval_speedup']:.2f}x; dev outputs differ by at most "
        f"{result['eval_outputs_max_abs_diff']:.1e}",
    ]
    return "\n".join(lines)
