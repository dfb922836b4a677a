"""`python -m pretrain.demo` (`make demo`): the whole pretraining pipeline on a small corpus.

Runs every stage as its own command, exactly as a user would type it, and
prints each command first so it can be copied:

    corpus.prepare -> corpus.dedup -> corpus.pseudonymize (keygen, then a run) -> tokenizer.train
    -> tokenizer.stats -> pretrain.build_data -> pretrain.main (tiny) -> pretrain.export --verify

The default input is a slice of the shared raw corpus (a few Korean Wikipedia
files, one month of petitions, the movie reviews) and the KLUE files beside
it as the decontamination benchmark; ``--data-dir`` follows the usual rules.
Without any data directory it falls back to ``pretrain/tiny_corpus.txt``
(sentences written for this repository) and skips decontamination.

Each stage skips work whose ``manifest.json`` matches, so a second run (or
a run after a kill) only does what is missing. Everything goes under
``--output`` (default ``runs/demo``); ``summary.json`` there collects the
counts of every stage.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import time
from pathlib import Path

from corpus.datadir import add_data_dir_argument, resolve_data_dir

TINY_CORPUS = Path(__file__).with_name("tiny_corpus.txt")


def _inputs(data: Path | None, wiki_files: int) -> tuple[list[str], list[str], str | None]:
    """(training inputs, held-out inputs for tokenizer stats, KLUE dir or None)."""
    if data is None or not (data / "corpus").is_dir():
        return [str(TINY_CORPUS)], [str(TINY_CORPUS)], None
    corpus = data / "corpus"
    wiki = sorted((corpus / "kowiki" / "AA").glob("wiki_*"))
    train = [str(p) for p in wiki[:wiki_files]]
    train += [
        str(corpus / "petitions" / "petitions_2019-08"),
        str(corpus / "nsmc" / "raw_sample.jsonl"),
    ]
    held_out = [str(wiki[-1])]
    klue = data / "klue"
    return train, held_out, str(klue) if klue.is_dir() else None


def _run(cmd: list[str], log: list[dict]) -> None:
    printable = " ".join(shlex.quote(c) for c in cmd)
    print(f"\n$ {printable}", flush=True)
    start = time.time()
    proc = subprocess.run(cmd)
    log.append({"command": printable, "seconds": round(time.time() - start, 1)})
    if proc.returncode != 0:
        raise SystemExit(f"demo: stage failed (exit {proc.returncode}): {printable}")


def _counts(folder: Path) -> dict:
    for name in ("stats.json", "train_stats.json", "manifest.json"):
        path = folder / name
        if path.exists():
            data = json.loads(path.read_text(encoding="utf-8"))
            return data.get("counts", data) if name == "manifest.json" else data
    return {}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m pretrain.demo", description=__doc__.split("\n\n")[0]
    )
    add_data_dir_argument(parser)
    parser.add_argument("--output", default="runs/demo", help="folder for every stage's output")
    parser.add_argument("--wiki-files", type=int, default=4, help="Wikipedia files to use")
    parser.add_argument(
        "--vocab", type=int, default=None,
        help="tokenizer vocabulary size (default 8000; 700 for the embedded corpus)",
    )  # fmt: skip
    parser.add_argument("--steps", type=int, default=300, help="pretraining steps (tiny model)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--embedded", action="store_true",
        help="use pretrain/tiny_corpus.txt even when a data directory exists",
    )  # fmt: skip
    args = parser.parse_args(argv)

    try:
        data = None if args.embedded else resolve_data_dir(args.data_dir)
    except FileNotFoundError:
        data = None
    train, held_out, klue = _inputs(data, args.wiki_files)
    if args.vocab is None:
        args.vocab = 700 if train == [str(TINY_CORPUS)] else 8000
    out = Path(args.output)
    py = sys.executable
    w = ["--workers", str(args.workers)]
    log: list[dict] = []

    _run([py, "-m", "corpus.prepare", "--input", *train, "--output", str(out / "records"), *w], log)
    stages = {"records": out / "records"}
    text_dir = out / "records"
    if klue is not None:
        dec = out / "decontaminated"
        _run(
            [py, "-m", "corpus.dedup", "--input", str(text_dir), "--output", str(dec),
             "--benchmark-dir", klue, *w],
            log,
        )  # fmt: skip
        stages["decontaminated"], text_dir = dec, dec
    clean = out / "clean"
    # A secret key of the run's own, kept beside the run (mode 0600): a real run keeps its
    # key apart from any corpus it releases (docs/pii.md).
    key = out / "pseudonym.key"
    if not key.exists():
        _run([py, "-m", "corpus.pseudonymize", "keygen", "--output", str(key)], log)
    _run(
        [py, "-m", "corpus.pseudonymize", "--input", str(text_dir), "--output", str(clean),
         "--key-file", str(key), *w],
        log,
    )  # fmt: skip
    stages["clean"] = clean
    tok = out / "tokenizer"
    _run(
        [py, "-m", "tokenizer.train", "--vocab", str(args.vocab), "--input", str(clean),
         "--output", str(tok), "--seed", str(args.seed), *w],
        log,
    )  # fmt: skip
    stages["tokenizer"] = tok
    _run([py, "-m", "tokenizer.stats", "--tokenizer", str(tok), "--input", *held_out], log)
    examples = out / "examples"
    _run(
        [py, "-m", "pretrain.build_data", "--tokenizer", str(tok), "--input", str(clean),
         "--output", str(examples), "--objective", "bert", "--max-seq-length", "128",
         "--seed", str(args.seed), *w],
        log,
    )  # fmt: skip
    stages["examples"] = examples
    workdir = out / "workdir"
    _run(
        [py, "-m", "pretrain.main", "--config", "pretrain/configs/tiny.py",
         "--workdir", str(workdir), f"--config.data.examples_dir={examples}",
         f"--config.num_train_steps={args.steps}", "--config.progress_bar=False"],
        log,
    )  # fmt: skip
    export = out / "hf"
    _run(
        [py, "-m", "pretrain.export", "--workdir", str(workdir), "--output", str(export),
         "--verify", "--overwrite"],
        log,
    )  # fmt: skip

    summary = {
        "data_dir": str(data) if data else None,
        "inputs": train,
        "stages": {name: _counts(path) for name, path in stages.items()},
        "commands": log,
        "export": str(export),
    }
    (out / "summary.json").write_text(json.dumps(summary, ensure_ascii=False, indent=2) + "\n")
    print(f"\ndemo: done; exported model in {export}; summary in {out / 'summary.json'}")


if __name__ == "__main__":
    main()
