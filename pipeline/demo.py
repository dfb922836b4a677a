"""`python -m pipeline.demo` (`make demo`): raw Korean text to eight KLUE scores and a report.

Runs every stage as its own command, exactly as a user would type it, prints each command
first so it can be copied, and one progress line per stage (the stage's own output goes to
``<output>/logs/<stage>.log``):

    corpus.prepare -> corpus.dedup (against KLUE) -> corpus.pseudonymize (keygen, then a run)
    -> tokenizer.train (morpheme-bpe) -> tokenizer.stats -> pretrain.build_data
    -> pretrain.main (tiny) -> pretrain.export --verify -> python -m finetune (each KLUE task)
    -> <output>/report.md (+ loss.png, tasks.png)

Data (`pipeline.inputs`): the usual data-directory resolution; with none at all, the embedded
corpus and the embedded KLUE fixtures (or, with ``--download``, the official KLUE archives
fetched into ``./data/klue`` first); the report says which. A held-out slice of the raw text
(other documents) goes through prepare and pseudonymize too and gives the tokenizer statistics
and the held-out MLM accuracy.

Pseudonymisation key: ``corpus.pseudonymize keygen`` writes a fresh secret key into the run
folder (``pseudonym.key``, mode 0600) on the first run; later runs reuse it, so the pseudonyms
(and every stage after) stay the same. A real run keeps its key apart from any corpus it
releases (docs/pii.md).

Reuse: a second run with the same options starts no stage again (``pipeline.json``); the
stage CLIs keep their own manifests too, so a killed run redoes only what is missing.
Expected wall time on 2 CPU cores: docs/pipeline.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from corpus.datadir import add_data_dir_argument, resolve_data_dir
from pipeline import chain, inputs, report
from pipeline.stages import Runner, StageError, python_module, stop_on_sigterm

FINETUNE_CONFIG = "finetune/configs/common.py:tiny"


def finetune_tasks() -> tuple[list[str], dict[str, str]]:
    """(tasks the finetune CLI knows, {task: why it is not run}) for the eight KLUE tasks."""
    from finetune.tasks import base

    known = set(base.TASK_MODULES) | set(base.ALL_TASKS)
    run = [t for t in inputs.TASKS if t in known]
    missing = {
        t: "not run: `python -m finetune` has no task of this name yet"
        for t in inputs.TASKS
        if t not in known
    }
    return run, missing


def find_data(args: argparse.Namespace) -> Path | None:
    """The data directory; with none, downloads KLUE (``--download``) or says how to."""
    try:
        return resolve_data_dir(args.data_dir)
    except FileNotFoundError as e:
        if args.data_dir or not args.download:
            if args.data_dir:
                raise SystemExit(f"demo: {e}") from e
            print(
                "demo: no data directory found; running on the embedded corpus and the embedded "
                "KLUE fixtures. For the official KLUE data: `python -m pipeline.demo --download` "
                "(or `python -m finetune.data download --to data/klue`, then rerun).",
                flush=True,
            )
            return None
    cmd = python_module("finetune.data", "download", "--to", Path("data") / "klue")
    if args.download_base_url:
        cmd += ["--base-url", args.download_base_url]
    Runner(Path(args.output), total=1, quiet=args.quiet).run("download", cmd)
    return resolve_data_dir(None)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m pipeline.demo", description=__doc__.split("\n\n")[0]
    )
    add_data_dir_argument(p)
    p.add_argument("--output", default="runs/demo", help="folder for every stage's output")
    p.add_argument(
        "--embedded", action="store_true",
        help="use the embedded corpus and KLUE fixtures even when a data directory exists",
    )  # fmt: skip
    p.add_argument(
        "--download", action="store_true",
        help="when no data directory exists, first download the official KLUE archives into "
        "./data/klue (python -m finetune.data download)",
    )  # fmt: skip
    p.add_argument("--download-base-url", default=None, help="mirror for --download")
    p.add_argument("--wiki-files", type=int, default=4, help="Wikipedia files to train on")
    p.add_argument(
        "--vocab", type=int, default=None,
        help=f"tokenizer vocabulary (default 8000; {inputs.EMBEDDED_VOCAB} on the embedded corpus)",
    )  # fmt: skip
    p.add_argument("--steps", type=int, default=300, help="pretraining steps (tiny model)")
    p.add_argument(
        "--finetune-config", default=FINETUNE_CONFIG,
        help=f"fine-tuning config of every task (default {FINETUNE_CONFIG})",
    )  # fmt: skip
    p.add_argument(
        "--finetune-set", action="append", default=[], metavar="FIELD=VALUE",
        help="extra --config.FIELD=VALUE for every fine-tuning run (repeatable)",
    )  # fmt: skip
    p.add_argument("--tasks", default=",".join(inputs.TASKS), help="KLUE tasks to fine-tune")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--report-only", action="store_true",
        help="run nothing: write report.md from the stages finished under --output",
    )  # fmt: skip
    p.add_argument("--quiet", action="store_true", help="no progress lines (tests)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    stop_on_sigterm()
    started = time.time()
    out = Path(args.output)
    data = None if args.embedded else find_data(args)
    corpus = inputs.corpus_inputs(data, args.wiki_files, out)
    vocab = args.vocab or (inputs.EMBEDDED_VOCAB if corpus.embedded else 8000)
    wanted = [t.strip() for t in args.tasks.split(",") if t.strip()]
    runnable, not_run = finetune_tasks()
    tasks = [t for t in wanted if t in runnable]
    not_run = {t: why for t, why in not_run.items() if t in wanted}
    not_run.update({t: "not run: left out by --tasks" for t in inputs.TASKS if t not in wanted})
    runner = Runner(out, total=15 + len(tasks), quiet=args.quiet)

    sources = inputs.assemble_klue(data, out / "klue", embedded_only=corpus.embedded)
    runner.note("klue", f"{out / 'klue'}: " + ", ".join(f"{s.task}={s.kind}" for s in sources))
    runner.note("inputs", corpus.description)
    if args.report_only:
        records = runner.previous_records()
        path = report.write_demo_report(
            out,
            records,
            corpus=corpus,
            klue_sources=sources,
            not_run=not_run,
            seconds=sum(r.seconds for r in records),
        )
        runner.note("report", f"{path} (report only)")
        return 0
    pre = chain.PretrainSettings(steps=args.steps, seed=args.seed)
    try:
        folders = chain.corpus_stages(
            runner, out, corpus.train, corpus.held_out, out / "klue", args.workers
        )
        model = chain.model_stages(
            runner,
            out,
            corpus=folders.clean,
            held_out=folders.heldout_clean,
            heldout_examples=out / "heldout" / "examples",
            method="morpheme-bpe",
            vocab=vocab,
            pretrain=pre,
            workers=args.workers,
        )
        extra = [f"--config.{kv}" for kv in args.finetune_set]
        chain.finetune_stages(
            runner, model.export, out / "finetune", out / "klue", tasks, args.finetune_config, extra
        )
    except StageError as e:
        print(f"demo: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("demo: interrupted; the same command resumes where it stopped", file=sys.stderr)
        return 130
    path = report.write_demo_report(
        out,
        runner.records,
        corpus=corpus,
        klue_sources=sources,
        not_run=not_run,
        seconds=time.time() - started,
    )
    runner.note("report", str(path))
    return runner.exit_code("demo", "report")


if __name__ == "__main__":
    sys.exit(main())
