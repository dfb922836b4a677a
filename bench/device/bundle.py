"""What `python -m bench.device` needs on a lent machine that reaches no network: ``.device/``.

    python -m bench.device.bundle [--data-dir D] [--output .device] [--wiki-files 40]
        [--vocab 32000] [--no-wheels]
    python -m bench.device.bundle --smoke --output /tmp/bundle   # seconds: the repo's own data

The device tool copies the working tree (tracked and untracked-not-ignored files) and the
ignored paths named in ``carry``, 64 MiB in all, and nothing beside it: not ``../shared/data``,
not the Mecab dictionary (108 MB). So everything that needs Mecab or the shared data is done
here, on CPU, and carried as one ignored folder (`BUNDLE`, listed in ``.git/info/exclude``):

* ``tokenizer/``: a morpheme-BPE WordPiece vocabulary (`tokenizer.train.train_tokenizer`) of
  ``--vocab`` pieces trained on the pretraining files; its ``tokenizer.json`` encodes without
  Mecab, so fine-tuning on the device tokenises KLUE text there;
* ``examples/`` and ``eval_examples/``: RoBERTa examples (L=128, masked in the loader) of the
  first ``--wiki-files`` Korean Wikipedia files and of the last file (held out), built with
  `pretrain.build_data.build_examples`, for the 3-minute pretraining and its held-out loss;
* ``loader512/bert`` and ``loader512/roberta``: L=512 examples of one file, for the loader
  rate at the length the MFU phase measures;
* ``data/klue/``: copies of YNAT (DACON train + official dev) and the NLI archive, the two
  tasks fine-tuned there;
* ``wheels/``: the Python packages the device image lacks (`DEVICE_WHEELS`), downloaded with
  ``pip download`` for its Python 3.12 (skipped with ``--no-wheels``);
* ``bundle.json``: the commit (and whether the tree was clean), the date, every input with
  its size and SHA-256, and the size of each part. The build refuses to write a bundle that
  would not fit the 64 MiB beside the tracked tree.

No petition text (real personal information) goes into the bundle: only Wikipedia and KLUE.
``--smoke`` builds the same layout from ``pretrain/tiny_corpus.txt`` and ``tests/fixtures/klue``
(what the CPU test of `bench.device` runs on).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
BUNDLE = ".device"  # the folder, relative to the repository root, that travels in ``carry``
CARRY_LIMIT = 64 * 2**20  # what the device tool moves: working tree + carried paths
#: Packages the device image (KINDS.md's list, 2026-11-17) lacks and our code imports there:
#: the config system, the example files and their loader, TensorBoard events. Exact versions
#: of this repository's venv; cp312 wheels for the image's Python 3.12.
DEVICE_WHEELS = (
    "ml-collections==1.1.0",
    "grain==0.2.18",
    "array-record==0.8.6",
    "portpicker==1.6.0",
    "tensorboardX==2.6.5",
)
PLATFORMS = ("manylinux_2_28_x86_64", "manylinux_2_27_x86_64", "manylinux_2_24_x86_64")
PLATFORMS += ("manylinux_2_17_x86_64", "manylinux2014_x86_64", "manylinux1_x86_64")
KLUE_FILES = (  # what YNAT and NLI read (corpus.klue): train + dev of each
    "ynat-v1.1/ynat-v1.1_dev.json.gz",
    "ynat-v1.1-dacon/train_data.csv",
    "ynat-v1.1-dacon/topic_dict.csv",
    "klue-nli-v1.1.tar.gz",
)
SMOKE_KLUE = ("ynat-v1.1", "klue-nli-v1.1")  # folders of tests/fixtures/klue


def git_state(root: Path = REPO_ROOT) -> dict[str, object]:
    """{commit, clean}: ``git rev-parse --short HEAD`` and whether tracked files are unchanged."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True
        )
        status = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=root,
            capture_output=True,
            text=True,
        )
    except OSError:
        return {"commit": None, "clean": None}
    if commit.returncode != 0:
        return {"commit": None, "clean": None}
    return {"commit": commit.stdout.strip(), "clean": status.stdout.strip() == ""}


CODE_PACKAGES = ("bench", "corpus", "finetune", "pipeline", "pretrain", "tokenizer", "tpu")


def code_digest(root: Path = REPO_ROOT) -> str:
    """SHA-256 (16 hex digits) of every ``.py`` file of the packages, by path: computed at build
    time and again on the device (which has no ``.git``), equal when the code is the same."""
    h = hashlib.sha256()
    for pkg in CODE_PACKAGES:
        for path in sorted((root / pkg).rglob("*.py")):
            h.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def tracked_bytes(root: Path = REPO_ROOT) -> int:
    """Bytes of the tracked files (what travels besides the carried paths)."""
    out = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True)
    names = [n for n in out.stdout.decode().split("\0") if n]
    return sum((root / n).stat().st_size for n in names if (root / n).is_file())


def folder_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _inputs(paths: list[Path]) -> list[dict[str, object]]:
    return [{"path": str(p), "bytes": p.stat().st_size, "sha256": _sha256(p)} for p in paths]


def download_wheels(folder: Path) -> list[str]:
    """`DEVICE_WHEELS` as cp312 manylinux wheels (no dependencies: the image has the rest)."""
    folder.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:"]
    cmd += ["--python-version", "3.12", "--implementation", "cp", "-d", str(folder)]
    for plat in PLATFORMS:
        cmd += ["--platform", plat]
    proc = subprocess.run([*cmd, *DEVICE_WHEELS], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(
            "pip download of the device wheels failed (rerun with network, or --no-wheels):\n"
            + proc.stderr[-2000:]
        )
    return sorted(p.name for p in folder.glob("*.whl"))


def _sources(args: argparse.Namespace) -> tuple[list[Path], Path, Path, Path]:
    """(pretraining files, held-out file, file for the L=512 loader sets, KLUE folder)."""
    if args.smoke:
        corpus = REPO_ROOT / "pretrain" / "tiny_corpus.txt"
        return [corpus], corpus, corpus, REPO_ROOT / "tests" / "fixtures" / "klue"
    from corpus.datadir import resolve_data_dir

    data = resolve_data_dir(args.data_dir)
    wiki = sorted((data / "corpus" / "kowiki" / "AA").glob("wiki_*"))
    if len(wiki) < args.wiki_files + 1:
        raise SystemExit(f"{data}/corpus/kowiki/AA has {len(wiki)} files; need {args.wiki_files}+1")
    return wiki[: args.wiki_files], wiki[-1], wiki[0], data / "klue"


def _copy_klue(klue: Path, out: Path, smoke: bool) -> list[Path]:
    copied = []
    if smoke:
        for name in SMOKE_KLUE:
            shutil.copytree(klue / name, out / name)
            copied += sorted((klue / name).iterdir())
            train = out / name / f"{name}_train.json"
            if not (out / name / f"{name}_dev.json").exists():  # a fixture with train only
                shutil.copyfile(train, out / name / f"{name}_dev.json")
        return copied
    for rel in KLUE_FILES:
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(klue / rel, out / rel)
        copied.append(klue / rel)
    return copied


def build(args: argparse.Namespace) -> dict[str, object]:
    """Writes the bundle under ``args.output`` (replaced when it exists); returns bundle.json."""
    from pretrain.build_data import build_examples
    from tokenizer.train import train_tokenizer

    out = Path(args.output)
    tmp = out.with_name(out.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    train_files, held, one, klue = _sources(args)
    t0 = time.time()
    tok_args = {"min_char_count": 1, "min_frequency": 1} if args.smoke else {}
    vocab = min(args.vocab, 1500) if args.smoke else args.vocab
    train_tokenizer(
        [str(p) for p in train_files[: args.tokenizer_files]],
        tmp / "tokenizer",
        vocab_size=vocab,
        seed=args.seed,
        workers=args.workers,
        **tok_args,
    )
    seconds = {"tokenizer": time.time() - t0}
    common = dict(seed=args.seed, workers=args.workers, log=lambda *_: None)
    length = 64 if args.smoke else 128
    sets = {  # folder -> (inputs, objective, L, dupe factor)
        "examples": (train_files, "roberta", length, 1),
        "eval_examples": ([held], "roberta", length, 1),
        "loader512/bert": ([one], "bert", 128 if args.smoke else 512, 1),
        "loader512/roberta": ([one], "roberta", 128 if args.smoke else 512, 1),
    }
    for name, (inputs, objective, seq, dupe) in sets.items():
        t0 = time.time()
        build_examples(
            tmp / "tokenizer",
            [str(p) for p in inputs],
            tmp / name,
            objective=objective,
            max_seq_length=seq,
            dupe_factor=dupe,
            **common,
        )
        seconds[name] = time.time() - t0
    klue_inputs = _copy_klue(klue, tmp / "data" / "klue", args.smoke)
    wheels = [] if args.no_wheels or args.smoke else download_wheels(tmp / "wheels")
    parts = {p.name: folder_bytes(p) for p in sorted(tmp.iterdir()) if p.is_dir()}
    info = {
        **git_state(),
        "code_digest": code_digest(),
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "smoke": bool(args.smoke),
        "command": "python -m bench.device.bundle " + " ".join(args.argv),
        "vocab_size": vocab,
        "pretrain_inputs": _inputs(train_files),
        "heldout_input": _inputs([held])[0],
        "klue_inputs": _inputs([p for p in klue_inputs if p.is_file()]),
        "wheels": wheels,
        "seconds": {k: round(v, 1) for k, v in seconds.items()},
        "bytes": parts,
        "tracked_bytes": tracked_bytes(),
    }
    total = sum(parts.values()) + int(info["tracked_bytes"])
    if total > CARRY_LIMIT - 2**20:
        shutil.rmtree(tmp, ignore_errors=True)
        raise SystemExit(
            f"bundle + tracked tree = {total / 2**20:.1f} MiB, over the device tool's "
            f"{CARRY_LIMIT / 2**20:.0f} MiB: lower --wiki-files"
        )
    (tmp / "bundle.json").write_text(json.dumps(info, indent=1, ensure_ascii=False) + "\n")
    shutil.rmtree(out, ignore_errors=True)
    os.replace(tmp, out)
    return info


def build_parser() -> argparse.ArgumentParser:
    from corpus.datadir import add_data_dir_argument

    p = argparse.ArgumentParser(
        prog="python -m bench.device.bundle", description=__doc__.split("\n")[0]
    )
    add_data_dir_argument(p)
    p.add_argument("--output", default=str(REPO_ROOT / BUNDLE))
    p.add_argument("--wiki-files", type=int, default=40, help="kowiki files to pretrain on")
    p.add_argument("--tokenizer-files", type=int, default=8, help="of those, for the vocabulary")
    p.add_argument("--vocab", type=int, default=32000)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-wheels", action="store_true", help="do not download the device wheels")
    p.add_argument("--smoke", action="store_true", help="tiny bundle from the repository's data")
    return p


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser().parse_args(argv)
    args.argv = argv
    info = build(args)
    size = sum(info["bytes"].values()) / 2**20
    print(f"bench.device.bundle: wrote {args.output} ({size:.1f} MiB; {info['bytes']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
