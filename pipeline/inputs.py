"""Which data a pipeline run uses: the raw corpus slice, the held-out text, the KLUE folder.

Resolution: `corpus.datadir` (``--data-dir``, ``$KLUE_DATA_DIR``, ``./data``,
``../shared/data``). With a data directory holding ``corpus/``, the demo trains on a few Korean
Wikipedia files, one month of petitions and the movie-review sample and holds out the last
Wikipedia file; without one (a fresh machine) it uses the embedded corpus
``pretrain/tiny_corpus.txt`` (sentences written for this repository), holding out its last
paragraphs.

KLUE: ``<run>/klue/`` is assembled per task from links, so that every one of the eight tasks
has a usable dev split: the data directory's files where they give one, else the embedded
fixtures of ``tests/fixtures/klue`` (a few examples per task, shipped with the repository). A
fixture with no dev file gets its train file as dev too: such a task only shows that the chain
runs, and the report says so. `KlueSource` records what each task got.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
from collections.abc import Sequence
from pathlib import Path

from corpus import klue
from corpus.klue import files as klue_files

REPO_ROOT = Path(__file__).resolve().parent.parent
EMBEDDED_CORPUS = REPO_ROOT / "pretrain" / "tiny_corpus.txt"
EMBEDDED_KLUE = REPO_ROOT / "tests" / "fixtures" / "klue"
#: The eight KLUE tasks in the paper's order.
TASKS = ("ynat", "sts", "nli", "ner", "re", "dp", "mrc", "wos")
#: Paragraphs of the embedded corpus held out (not trained on) for held-out statistics.
EMBEDDED_HELD_OUT = 6
# The embedded corpus (48 training paragraphs) supports about 640 entries with the coverage
# alphabet and the pruning of units seen once (tokenizer.train says so when asked for more).
EMBEDDED_VOCAB = 600


@dataclasses.dataclass(frozen=True)
class CorpusInputs:
    """Raw inputs of a run: training files, held-out files, and a sentence for the report."""

    train: list[str]
    held_out: list[str]
    description: str
    embedded: bool


@dataclasses.dataclass(frozen=True)
class KlueSource:
    """Where one task's KLUE files came from.

    ``kind``: ``"data"``, ``"fixture"`` or ``"fixture-train-as-dev"``."""

    task: str
    kind: str
    path: str


def corpus_inputs(data: Path | None, wiki_files: int, out: Path) -> CorpusInputs:
    """The raw corpus slice of a run (module doc); embedded inputs are written under ``out``."""
    corpus = data / "corpus" if data is not None else None
    if corpus is not None and corpus.is_dir():
        wiki = sorted((corpus / "kowiki" / "AA").glob("wiki_*"))
        if len(wiki) >= 2:
            wiki_files = min(wiki_files, len(wiki) - 1)  # the last file is held out
            train = [str(p) for p in wiki[:wiki_files]]
            extra = [
                corpus / "petitions" / "petitions_2019-08",
                corpus / "nsmc" / "raw_sample.jsonl",
            ]
            train += [str(p) for p in extra if p.exists()]
            return CorpusInputs(
                train,
                [str(wiki[-1])],
                f"{data}: {wiki_files} Korean Wikipedia files, petitions 2019-08, NSMC sample; "
                f"held out {wiki[-1].name}",
                False,
            )
    lines = EMBEDDED_CORPUS.read_text(encoding="utf-8").splitlines(keepends=True)
    folder = out / "inputs"
    train_file = _write_if_changed(folder / "train.txt", "".join(lines[:-EMBEDDED_HELD_OUT]))
    held_file = _write_if_changed(folder / "heldout.txt", "".join(lines[-EMBEDDED_HELD_OUT:]))
    return CorpusInputs(
        [str(train_file)],
        [str(held_file)],
        f"embedded corpus {EMBEDDED_CORPUS.relative_to(REPO_ROOT)} ({len(lines)} paragraphs "
        f"written for this repository; the last {EMBEDDED_HELD_OUT} held out)",
        True,
    )


def user_corpus(train: Sequence[str], held_out: Sequence[str]) -> CorpusInputs:
    """A user's own corpus (``--corpus``, ``--held-out``): files or folders in any format
    `corpus.prepare` finds by itself (MODU, NamuWiki, Parquet, WikiExtractor, text, ...), or
    a finished `corpus.prepare` folder for one that needs reader options. The held-out text
    (tokenizer statistics, held-out MLM accuracy) must not overlap the training text."""
    missing = [p for p in [*train, *held_out] if not Path(p).exists()]
    if missing:
        raise FileNotFoundError(f"--corpus/--held-out: not found: {', '.join(missing)}")
    if not held_out:
        raise ValueError("--corpus needs --held-out: text kept out of pretraining, to measure on")
    overlap = {str(Path(p).resolve()) for p in train} & {str(Path(p).resolve()) for p in held_out}
    if overlap:
        raise ValueError(f"--held-out repeats --corpus inputs: {', '.join(sorted(overlap))}")
    return CorpusInputs(
        [str(p) for p in train],
        [str(p) for p in held_out],
        f"user corpus {', '.join(map(str, train))}; held out {', '.join(map(str, held_out))}",
        False,
    )


def _write_if_changed(path: Path, text: str) -> Path:
    """Writes ``text`` unless the file already holds it (keeps mtimes, so stages stay reused)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")
    return path


def _link(target: Path, link: Path) -> None:
    """``link`` -> ``target``; a folder becomes a real folder of links to its files, so that
    tools walking the KLUE folder without following links (corpus.dedup's fingerprint of the
    benchmark) still see, and hash, every file."""
    if target.is_dir():
        if link.is_symlink() or link.is_file():
            link.unlink()
        link.mkdir(exist_ok=True)
        for f in sorted(target.iterdir()):
            _link(f.resolve(), link / f.name)
        return
    if link.is_symlink() and os.readlink(link) == str(target):
        return
    if link.is_symlink() or link.is_file():
        link.unlink()
    elif link.is_dir():
        shutil.rmtree(link)
    link.symlink_to(target)


def _has_dev(task: str, root: Path) -> bool:
    return klue.locate(task, "dev", root) is not None


def assemble_klue(data: Path | None, out: Path, embedded_only: bool = False) -> list[KlueSource]:
    """Builds ``out`` (a KLUE folder of links) task by task; see the module doc."""
    out.mkdir(parents=True, exist_ok=True)
    real = None
    if data is not None and not embedded_only:
        real = data / "klue" if (data / "klue").is_dir() else data
    sources = []
    for task in TASKS:
        folder = klue_files.task_folder(task)
        for old in out.glob(f"{folder}*"):
            _remove(old)
        if real is not None:
            entries = [p for p in sorted(real.iterdir()) if p.name.startswith(folder)]
            for entry in entries:
                _link(entry.resolve(), out / entry.name)
            if entries and _has_dev(task, out):
                sources.append(KlueSource(task, "data", str(real / folder)))
                continue
            for entry in entries:
                _remove(out / entry.name)
        fixture = EMBEDDED_KLUE / folder
        if _has_dev(task, EMBEDDED_KLUE):
            _link(fixture.resolve(), out / folder)
            sources.append(KlueSource(task, "fixture", str(fixture)))
            continue
        dest = out / folder
        _link(fixture.resolve(), dest)
        train = dest / klue_files.split_file_name(task, "train")
        dev = dest / klue_files.split_file_name(task, "dev")
        shutil.copy2(train, dev)  # keeps the mtime: a rerun's stages see the same input
        sources.append(KlueSource(task, "fixture-train-as-dev", str(fixture)))
    return sources


def _remove(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)
