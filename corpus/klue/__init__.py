"""Readers for the eight KLUE v1.1 tasks, with typed records.

``load(task, split)`` returns the examples of one split as frozen dataclasses
(`YnatExample`, `StsExample`, `NliExample`, `NerSentence`, `ReExample`,
`DpSentence`, `MrcExample`, `WosDialogue`); `iter_examples` streams them.
Files are found under the KLUE folder (`corpus.datadir.klue_dir`: ``--data-dir``,
``$KLUE_DATA_DIR``, ``./data``, ``../shared/data``) as unpacked folders,
``.gz`` copies or the official ``<task>-v1.1.tar.gz`` archives, read in place.
YNAT falls back to the DACON copy when the official file is absent (train =
DACON rows 0..36546 only; the rows after them are the dev set).

`benchmark_texts` yields every text field of every split present, for the
decontamination stage. Formats: ``../shared/docs/klue-formats.md``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from corpus.klue import dp, mrc, ner, nli, relation, sts, wos, ynat
from corpus.klue.benchmark import BenchmarkText, benchmark_texts
from corpus.klue.dp import DpSentence, DpWord
from corpus.klue.files import (
    PREFIX,
    SplitFile,
    archive_name,
    find_file,
    find_split,
    official_splits,
    split_file_name,
    task_folder,
)
from corpus.klue.mrc import Answer, MrcExample
from corpus.klue.ner import NerSentence
from corpus.klue.nli import NliExample
from corpus.klue.relation import Entity, ReExample
from corpus.klue.sts import StsExample
from corpus.klue.wos import Ontology, Turn, WosDialogue, split_state
from corpus.klue.ynat import YnatExample
from corpus.textio import OnError, Quarantine

TASKS = tuple(PREFIX)
_READERS = {
    "ynat": ynat.read,
    "sts": sts.read,
    "nli": nli.read,
    "ner": ner.read,
    "re": relation.read,
    "dp": dp.read,
    "mrc": mrc.read,
    "wos": wos.read,
}

__all__ = [
    "TASKS",
    "Answer",
    "BenchmarkText",
    "DpSentence",
    "DpWord",
    "Entity",
    "MrcExample",
    "NerSentence",
    "NliExample",
    "Ontology",
    "ReExample",
    "SplitFile",
    "StsExample",
    "Turn",
    "WosDialogue",
    "YnatExample",
    "available_splits",
    "benchmark_texts",
    "iter_examples",
    "load",
    "locate",
    "ontology",
    "relations",
    "resolve_klue_dir",
    "split_state",
]


def resolve_klue_dir(klue_dir: str | os.PathLike | None = None) -> Path:
    """`klue_dir` itself, or the KLUE folder of `corpus.datadir` when None."""
    if klue_dir is not None:
        path = Path(klue_dir)
        if not path.is_dir():
            raise FileNotFoundError(f"KLUE directory {path} does not exist")
        return path
    from corpus.datadir import klue_dir as default_klue_dir

    return default_klue_dir()


def _check_task(task: str) -> None:
    if task not in _READERS:
        raise ValueError(f"unknown KLUE task {task!r}; expected one of {', '.join(TASKS)}")


def locate(task: str, split: str, klue_dir: str | os.PathLike | None = None) -> str | None:
    """Where `load` reads a split from (a path, ``archive:member``, or ``dacon:<dir>``); None
    when the split is absent."""
    _check_task(task)
    root = resolve_klue_dir(klue_dir)
    found = find_split(root, task, split)
    if found is not None:
        return found.name
    if task == "ynat" and split in ("train", "dev"):
        dacon = ynat.find_dacon(root)
        if dacon is not None:
            return f"dacon:{dacon}"
    return None


def available_splits(klue_dir: str | os.PathLike | None = None) -> dict[str, list[str]]:
    """``{task: [split, ...]}`` for all eight tasks (an empty list when a task has no files).

    YNAT lists ``train`` and ``dev`` when only the DACON copy is present. Splits
    such as ``dev_sample_10`` (first 10 dev examples, shipped in the archives)
    are listed too.
    """
    root = resolve_klue_dir(klue_dir)
    out = {}
    for task in TASKS:
        splits = set(official_splits(root, task))
        if task == "ynat" and ynat.find_dacon(root) is not None:
            splits.update(("train", "dev"))
        out[task] = sorted(splits)
    return out


def iter_examples(
    task: str,
    split: str,
    klue_dir: str | os.PathLike | None = None,
    *,
    on_error: OnError = "raise",
    quarantine: Quarantine | None = None,
) -> Iterator[Any]:
    """Streams the typed examples of ``task``/``split``; FileNotFoundError when absent."""
    _check_task(task)
    root = resolve_klue_dir(klue_dir)
    source = find_split(root, task, split)
    if source is None:
        if task == "ynat" and split in ("train", "dev"):
            dacon = ynat.find_dacon(root)
            if dacon is not None:
                return ynat.read_dacon(dacon, split, on_error=on_error, quarantine=quarantine)
        raise FileNotFoundError(
            f"KLUE {task} split {split!r} not found under {root} "
            f"(looked for {os.path.join(task_folder(task), split_file_name(task, split))}, "
            f"plain, .gz or inside {archive_name(task)}); available: "
            f"{available_splits(root)[task] or 'none'}"
        )
    if task == "re":
        rel = find_file(root, "re", relation.RELATION_LIST)
        names = relation.read_relations(rel) if rel is not None else None
        return relation.read(source, relations=names, on_error=on_error, quarantine=quarantine)
    return _READERS[task](source, on_error=on_error, quarantine=quarantine)


def load(
    task: str,
    split: str,
    klue_dir: str | os.PathLike | None = None,
    *,
    on_error: OnError = "raise",
    quarantine: Quarantine | None = None,
) -> list[Any]:
    """All typed examples of ``task``/``split`` as a list (see `iter_examples`)."""
    return list(iter_examples(task, split, klue_dir, on_error=on_error, quarantine=quarantine))


def relations(klue_dir: str | os.PathLike | None = None) -> tuple[str, ...]:
    """RE relation names in label-id order (``no_relation`` = 0), from ``relation_list.json``."""
    root = resolve_klue_dir(klue_dir)
    source = find_file(root, "re", relation.RELATION_LIST)
    if source is None:
        raise FileNotFoundError(f"{relation.RELATION_LIST} not found under {root}")
    return relation.read_relations(source)


def ontology(klue_dir: str | os.PathLike | None = None) -> Ontology:
    """The WoS slot ontology (45 ``domain-slot`` names with their values)."""
    root = resolve_klue_dir(klue_dir)
    source = find_file(root, "wos", "ontology.json")
    if source is None:
        raise FileNotFoundError(f"ontology.json not found under {root}")
    return wos.read_ontology(source)
