"""`python -m pipeline.ablate`: the KLUE paper's two pretraining ablations (§5.4) as one command.

    python -m pipeline.ablate --ablation tokenizer|pseudonymization|both|continued \\
        --scale demo|small|base --seeds N --output DIR [--data-dir DIR] [--embedded] \\
        [--init-from HF_FOLDER] [--corpus PATH... --held-out PATH...]

Arms (every setting, the data order and every seed identical between the two arms; only the
ablated factor differs):

* ``tokenizer``: morpheme-bpe vs plain bpe vocabularies, both trained on the same clean
  (decontaminated + pseudonymised) corpus, each then pretrained and fine-tuned;
* ``pseudonymization``: the pseudonymised corpus vs the original (decontaminated, not
  pseudonymised) one, each with its own morpheme-bpe vocabulary (the same recipe);
* ``continued`` (``--init-from HF_FOLDER``, e.g. klue/roberta-base): the from-scratch
  morpheme-bpe model vs the given checkpoint continued on the same clean corpus for the same
  steps and batch (its own tokenizer; `pipeline.chain.continued_stages`), and the checkpoint
  fine-tuned as it is: the gain of domain adaptation is "continued" minus "checkpoint as is";
* and a ``random init`` row (the floor): the morpheme-bpe encoder with its initial random
  weights (one step at learning rate 0), fine-tuned the same way.

Each model is fine-tuned on the eight KLUE tasks with ``--seeds N`` (seeds ``s, s+1, ...``, the
same for every arm). Output: ``DIR/ablation.md`` and ``DIR/ablation.json`` (one row per arm:
tokenizer statistics, held-out MLM accuracy, then each task's metrics, mean ± sample std over
seeds) and ``DIR/ablation.png``. Arms share every stage they can: the corpus stages run once,
and the morpheme-bpe/clean model is the first arm of both ablations (``--ablation both``).
Every model is pretrained first; fine-tuning then goes task by task over all models, so a run
stopped early has whole columns, and ``--table-only`` writes the table of what has finished.

Scales (`SCALES`): ``demo`` runs on CPU (docs/pipeline.md gives measured times); ``small`` and
``base`` are sized for an accelerator, with the expected pretraining time from
``python -m pretrain.flops`` in docs/pipeline.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

from corpus.datadir import add_data_dir_argument, resolve_data_dir
from pipeline import chain, inputs, report
from pipeline.demo import finetune_tasks
from pipeline.stages import Runner, StageError, stop_on_sigterm


@dataclasses.dataclass(frozen=True)
class Scale:
    """Everything that differs between scales; identical for every arm of one run."""

    wiki_files: int
    vocab: int
    pretrain: chain.PretrainSettings
    finetune_config: str
    finetune_overrides: tuple[str, ...] = ()
    embedded_vocab: int = inputs.EMBEDDED_VOCAB


SCALES = {
    # CPU: the demo's tiny BERT (2 layers, hidden 64), 300 steps of 32 x 128 tokens, tiny
    # fine-tuning (512 train examples per task, 1 epoch).
    "demo": Scale(2, 8000, chain.PretrainSettings(steps=300), "finetune/configs/common.py:tiny"),
    # Accelerator: RoBERTa-small (6 layers, hidden 768), 32k vocabulary, 100k steps of
    # 256 x 512 tokens (13.1e9 tokens); the KLUE-baseline fine-tuning configs.
    "small": Scale(
        10_000,
        32000,
        chain.PretrainSettings(
            config="pretrain/configs/roberta_small.py",
            steps=100_000,
            objective="roberta",
            max_seq_length=512,
            overrides=("--config.global_batch_size=256",),
        ),
        "finetune/configs/common.py",
    ),
    # Accelerator: BERT-base (12 layers, hidden 768) as in pretrain/configs/bert_base.py
    # (256 x 512 tokens, its own step count), 32k vocabulary; KLUE-baseline fine-tuning.
    "base": Scale(
        10_000,
        32000,
        chain.PretrainSettings(
            config="pretrain/configs/bert_base.py", steps=1_000_000, max_seq_length=512
        ),
        "finetune/configs/common.py",
    ),
}

#: (arm name, tokenizer method, corpus: "clean" or "original", random init)
ARMS = {
    "tokenizer": [("morpheme-bpe", "morpheme-bpe", "clean", False), ("bpe", "bpe", "clean", False)],
    "pseudonymization": [
        ("pseudonymised", "morpheme-bpe", "clean", False),
        ("original", "morpheme-bpe", "original", False),
    ],
}
FLOOR = ("random init", "morpheme-bpe", "clean", True)
#: Pseudo tokenizer methods of the ``continued`` arms: the checkpoint's own tokenizer.
CONTINUED, AS_IS = "continued", "checkpoint"
ARMS["continued"] = [
    ("from scratch", "morpheme-bpe", "clean", False),
    ("continued", CONTINUED, "clean", False),
    ("checkpoint as is", AS_IS, "clean", False),
]

#: Table columns: (header, task, metric) in the paper's order.
COLUMNS = [
    (f"{t.upper()} {label}", t, m) for t in inputs.TASKS for m, label in report.TASK_METRICS[t]
]


def model_id(method: str, corpus: str, random_init: bool) -> str:
    """The name of one model (stage tags): arms with the same tokenizer and corpus share it."""
    return f"{method}-{corpus}" + ("-random-init" if random_init else "")


def model_folder(out: Path, method: str, corpus: str, random_init: bool) -> tuple[Path, str]:
    """(folder, suffix of its workdir/hf/finetune folders): the random-init model lives in the
    folder of the trained model with the same tokenizer and corpus and shares its stages."""
    return out / "models" / f"{method}-{corpus}", "-random-init" if random_init else ""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m pipeline.ablate", description=__doc__.split("\n\n")[0]
    )
    p.add_argument(
        "--ablation", choices=("tokenizer", "pseudonymization", "both", "continued"), required=True
    )
    p.add_argument(
        "--init-from", default=None,
        help="continued: the Hugging Face BERT/RoBERTa folder to continue (e.g. klue/roberta-base)",
    )  # fmt: skip
    p.add_argument("--scale", choices=tuple(SCALES), default="demo")
    p.add_argument("--seeds", type=int, default=3, help="fine-tuning seeds per task and arm")
    p.add_argument("--output", required=True, help="folder for every arm's stages and the table")
    add_data_dir_argument(p)
    p.add_argument("--embedded", action="store_true", help="embedded corpus and KLUE fixtures")
    p.add_argument(
        "--corpus", nargs="+", default=None, metavar="PATH",
        help="pretrain on this corpus instead of the shared data's slice: files or folders in "
        "any format corpus.prepare finds (the paper's ablations used MODU only)",
    )  # fmt: skip
    p.add_argument(
        "--held-out", nargs="+", default=[], metavar="PATH",
        help="with --corpus: text kept out of pretraining (tokenizer statistics, MLM accuracy)",
    )  # fmt: skip
    p.add_argument("--steps", type=int, default=None, help="override the scale's pretraining steps")
    p.add_argument("--tasks", default=",".join(inputs.TASKS), help="KLUE tasks to fine-tune")
    p.add_argument(
        "--finetune-set", action="append", default=[], metavar="FIELD=VALUE",
        help="extra --config.FIELD=VALUE for every fine-tuning run (repeatable)",
    )  # fmt: skip
    p.add_argument(
        "--dedup-index", default=None,
        help="BM25 index of the KLUE benchmark to reuse (e.g. runs/demo/decontaminated.index)",
    )  # fmt: skip
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--seed", type=int, default=0, help="pretraining seed (every arm)")
    p.add_argument(
        "--table-only", action="store_true",
        help="run nothing: write the table from what the stages under --output have finished",
    )  # fmt: skip
    p.add_argument("--quiet", action="store_true")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    stop_on_sigterm()
    if args.seeds < 1:
        raise SystemExit("--seeds must be >= 1")
    if (args.ablation == "continued") != bool(args.init_from):
        raise SystemExit("--init-from HF_FOLDER goes with --ablation continued (and only with it)")
    if args.init_from and not (Path(args.init_from) / "config.json").is_file():
        raise SystemExit(f"--init-from {args.init_from}: no config.json (not a model folder)")
    scale = SCALES[args.scale]
    started = time.time()
    out = Path(args.output)
    try:
        data = None if args.embedded else resolve_data_dir(args.data_dir)
    except FileNotFoundError:
        data = None
    if args.corpus:
        try:
            corpus = inputs.user_corpus(args.corpus, args.held_out)
        except (FileNotFoundError, ValueError) as e:
            raise SystemExit(str(e)) from None
    elif args.held_out:
        raise SystemExit("--held-out goes with --corpus")
    else:
        corpus = inputs.corpus_inputs(data, scale.wiki_files, out)
    vocab = scale.embedded_vocab if corpus.embedded else scale.vocab
    pre = dataclasses.replace(
        scale.pretrain, seed=args.seed, steps=args.steps or scale.pretrain.steps
    )
    wanted = [t.strip() for t in args.tasks.split(",") if t.strip()]
    runnable, not_run = finetune_tasks()
    tasks = [t for t in wanted if t in runnable]
    not_run = {t: why for t, why in not_run.items() if t in wanted}
    not_run.update({t: "not run: left out by --tasks" for t in inputs.TASKS if t not in wanted})
    ablations = ["tokenizer", "pseudonymization"] if args.ablation == "both" else [args.ablation]
    arms: list[tuple[str, str, str, bool]] = []
    for ab in ablations:
        for arm in ARMS[ab]:
            arms.append(arm)
    arms.append(FLOOR)
    models = {model_id(m, c, r): (m, c, r) for _, m, c, r in arms}
    runner = Runner(out, total=9 + len(models) * (5 + len(tasks)), quiet=args.quiet)
    sources = inputs.assemble_klue(data, out / "klue", embedded_only=corpus.embedded)
    runner.note("klue", ", ".join(f"{s.task}={s.kind}" for s in sources))
    runner.note("inputs", corpus.description)
    overrides = [*scale.finetune_overrides, *(f"--config.{kv}" for kv in args.finetune_set)]
    if args.table_only:
        state = report.read_json(out / "pipeline.json").get("stages", {})
        spent = sum(float(r.get("seconds", 0)) for r in state.values())
        table = collect(out, ablations, arms, args, corpus, sources, not_run, spent)
        runner.note("table", f"{out / 'ablation.md'} ({len(table['rows'])} rows, table only)")
        return 0
    try:
        folders = chain.corpus_stages(
            runner,
            out / "corpus",
            corpus.train,
            corpus.held_out,
            out / "klue",
            args.workers,
            Path(args.dedup_index) if args.dedup_index else None,
        )
        trained = {}
        for mid, (method, which, random_init) in models.items():
            folder, variant = model_folder(out, method, which, random_init)
            if method in (CONTINUED, AS_IS):
                trained[mid] = continued_arm(runner, args, scale, pre, folders, folder, method)
                continue
            # Held-out examples depend only on the tokenizer: every model uses the same
            # pseudonymised held-out text, so held-out MLM accuracy compares like with like.
            model = chain.model_stages(
                runner,
                folder,
                corpus=folders.clean if which == "clean" else folders.original,
                held_out=folders.heldout_clean,
                heldout_examples=folder / "heldout-examples",
                method=method,
                vocab=vocab,
                pretrain=pre,
                workers=args.workers,
                tag=model_id(method, which, False),
                random_init=random_init,
                export=False,  # fine-tuning reads the workdir's newest checkpoint
            )
            trained[mid] = (model.export, folder / f"finetune{variant}")
        # Task by task over every model: a run stopped early has whole columns to compare.
        for task in tasks:
            for mid, (model_dir, ft_dir) in trained.items():
                chain.finetune_stages(
                    runner,
                    model_dir,
                    ft_dir,
                    out / "klue",
                    [task],
                    scale.finetune_config,
                    overrides,
                    seeds=args.seeds,
                    tag=mid,
                )
    except StageError as e:
        print(f"ablate: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("ablate: interrupted; the same command resumes where it stopped", file=sys.stderr)
        return 130
    table = collect(out, ablations, arms, args, corpus, sources, not_run, time.time() - started)
    runner.note("table", f"{out / 'ablation.md'} ({len(table['rows'])} rows)")
    return runner.exit_code("ablate", "table")


def continued_arm(runner, args, scale, pre, folders, folder: Path, method: str):
    """(model to fine-tune, fine-tuning folder) of a ``continued`` arm: the checkpoint
    continued on the clean corpus, or the checkpoint itself."""
    source = Path(args.init_from).resolve()
    if method == AS_IS:
        return source, folder / "finetune"
    model = chain.continued_stages(
        runner,
        folder,
        init_from=source,
        corpus=folders.clean,
        held_out=folders.heldout_clean,
        heldout_examples=folder / "heldout-examples",
        pretrain=pre,
        batch_size=scale_batch_size(pre),
        workers=args.workers,
    )
    return model.export, folder / "finetune"


def scale_batch_size(pre: chain.PretrainSettings) -> int:
    """The global batch of the scale's pretraining (its overrides, else its config file)."""
    for flag in pre.overrides:
        if flag.startswith("--config.global_batch_size="):
            return int(flag.split("=", 1)[1])
    import importlib

    module = Path(pre.config).with_suffix("").as_posix().replace("/", ".")
    return int(importlib.import_module(module).get_config().global_batch_size)


def arm_row(out: Path, name: str, method: str, which: str, random_init: bool) -> dict:
    """One row of the table from the arm's files (None for a metric it lacks)."""
    folder, variant = model_folder(out, method, which, random_init)
    stats = report.read_json(folder / "tokenizer_stats.json").get("results", [{}])[0]
    pre = report.pretrain_summary(folder / f"workdir{variant}")
    row: dict = {
        "arm": name,
        "tokenizer": method,
        "corpus": "pseudonymised" if which == "clean" else "original",
        "random_init": random_init,
        "fertility": stats.get("fertility"),
        "continued": stats.get("continued"),
        "unk_ratio": stats.get("unk_ratio"),
        "heldout_mlm_accuracy": None if random_init else pre.get("heldout_mlm_accuracy"),
        "metrics": {},
    }
    for _, task, metric in COLUMNS:
        result = report.task_scores(folder / f"finetune{variant}", task)
        score = report.score_of(result, metric) if result else None
        seeds = (result or {}).get("seeds") or (
            [result["seed"]] if result and "seed" in result else []
        )
        row["metrics"][metric] = (
            None if score is None else {"mean": score[0], "std": score[1] or 0.0, "seeds": seeds}
        )
    return row


def collect(out, ablations, arms, args, corpus, sources, not_run, seconds) -> dict:
    """Writes ablation.json, ablation.md and ablation.png; returns the JSON."""
    rows = [arm_row(out, *arm) for arm in arms]
    table = {
        "ablation": args.ablation,
        "scale": args.scale,
        "seeds": args.seeds,
        "pretrain_seed": args.seed,
        "data": corpus.description,
        "klue": {s.task: s.kind for s in sources},
        "not_run": not_run,
        "seconds": round(seconds, 1),
        "columns": [{"header": h, "task": t, "metric": m} for h, t, m in COLUMNS],
        "rows": rows,
    }
    (out / "ablation.json").write_text(json.dumps(table, ensure_ascii=False, indent=1) + "\n")
    lines = [
        f"# Ablation: {args.ablation} (scale {args.scale}, {args.seeds} fine-tuning seed(s))",
        "",
        f"Data: {corpus.description}. KLUE: "
        + ", ".join(f"{s.task} {s.kind}" for s in sources)
        + ". Mean ± sample std over fine-tuning seeds; every arm used the same pretraining seed "
        f"({args.seed}), data order and settings. Not comparable to the KLUE paper.",
        "",
    ]
    for ab in [*ablations, None]:
        names = [a[0] for a in ARMS[ab]] + [FLOOR[0]] if ab else None
        if ab is None:
            continue
        sel = [r for r in rows if r["arm"] in names]
        head = ["arm", "tokenizer", "corpus"]
        if ab == "tokenizer":
            head += ["fertility", "continued", "UNK"]
        head += ["held-out MLM acc"] + [h for h, _, _ in COLUMNS]
        lines += [f"## {ab}", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for r in sel:
            cells = [r["arm"], r["tokenizer"], r["corpus"]]
            if ab == "tokenizer":
                cells += [_num(r["fertility"], 3), _pct(r["continued"]), _num(r["unk_ratio"], 4)]
            cells.append(_pct(r["heldout_mlm_accuracy"]))
            for _, _, m in COLUMNS:
                v = r["metrics"][m]
                cells.append("-" if v is None else _ms(v["mean"], v["std"], args.seeds))
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    for task, why in not_run.items():
        lines.append(f"- {task}: {why}")
    lines += ["", "![per-task scores](ablation.png)", ""]
    (out / "ablation.md").write_text("\n".join(lines), encoding="utf-8")
    groups = {}
    for r in rows:
        groups[r["arm"]] = {}
        for task in inputs.TASKS:
            folder, variant = model_folder(out, r["tokenizer"], _which(r), r["random_init"])
            result = report.task_scores(folder / f"finetune{variant}", task)
            key = (result or {}).get("metric_key")
            groups[r["arm"]][task] = report.score_of(result, key) if result and key else None
    report.plot_bars(groups, out / "ablation.png", f"{args.ablation} ablation ({args.scale})")
    return table


def _which(row: dict) -> str:
    return "clean" if row["corpus"] == "pseudonymised" else "original"


def _num(v, digits: int) -> str:
    return "-" if v is None else f"{v:.{digits}f}"


def _pct(v) -> str:
    return "-" if v is None else f"{100 * v:.1f}%"


def _ms(mean: float, std: float, seeds: int) -> str:
    return f"{mean:.2f} ± {std:.2f}" if seeds > 1 else f"{mean:.2f}"


if __name__ == "__main__":
    sys.exit(main())
