"""Scores a prediction file of one KLUE task offline, with the KLUE baseline's metrics.

    python -m finetune.evaluate --task nli --predictions preds.jsonl \\
        --gold ../shared/data/klue/klue-nli-v1.1.tar.gz --split dev

prints ONE JSON object (the last line of stdout) with the task's metrics on
the 0-100 scale, e.g. ``{"nli_accuracy": 87.3}``; counts and warnings go to
stderr. ``--gold`` takes the official split file (plain, ``.gz``), the
official ``<task>-v1.1.tar.gz`` (with ``--split``, default ``dev``), or a KLUE
folder; without ``--gold`` the split is found under the data directory
(``--data-dir``, ``$KLUE_DATA_DIR``, ``./data``, ``../shared/data``). RE also
needs ``relation_list.json``: looked for beside the gold file, in its archive,
then under the data directory.

Prediction formats: ``../shared/docs/klue-formats.md``; metric definitions:
``docs/finetune_metrics.md``. A bad prediction file (missing, duplicate or
unknown ids, wrong labels or lengths, NaN) ends with an error that lists each
problem with its first 10 ids, and exit status 2; ``--allow-missing`` scores
only the ids present and says how many are missing; ``--missing-as-empty``
(MRC, WoS) scores a missing question or turn as the empty answer or state.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from corpus import klue
from corpus.cli import run
from corpus.datadir import add_data_dir_argument, klue_dir
from corpus.klue import dp, mrc, ner, nli, relation, sts, wos, ynat
from corpus.klue.files import (
    COMPRESSION_SUFFIXES,
    SplitFile,
    archive_members,
    split_file_name,
)
from finetune import prediction_files
from finetune.metrics import METRIC_NAMES
from pretrain import storage

_READERS = {
    "ynat": ynat.read,
    "sts": sts.read,
    "nli": nli.read,
    "ner": ner.read,
    "dp": dp.read,
    "mrc": mrc.read,
    "wos": wos.read,
}
_ARCHIVE_SUFFIXES = (".tar.gz", ".tgz")
#: What one prediction line scores, for the messages.
UNITS = {
    "ynat": "examples",
    "sts": "examples",
    "nli": "examples",
    "ner": "sentences",
    "re": "examples",
    "dp": "sentences",
    "mrc": "questions",
    "wos": "user turns",
}


def _find_in_archive(archive: Path, file_name: str) -> SplitFile | None:
    for member in archive_members(archive):
        if os.path.basename(member) == file_name:
            return SplitFile(archive, member)
    return None


def _beside(path: Path, file_name: str) -> SplitFile | None:
    for suffix in COMPRESSION_SUFFIXES:
        candidate = path.parent / (file_name + suffix)
        if candidate.is_file():
            return SplitFile(candidate)
    return None


def _relations(gold: str | None, data_dir: str | None) -> tuple[str, ...]:
    """``relation_list.json`` beside the gold file or in its archive, else the data dir's."""
    if gold is not None and not Path(gold).is_dir():
        path = Path(gold)
        if path.name.endswith(_ARCHIVE_SUFFIXES):
            found = _find_in_archive(path, relation.RELATION_LIST)
        else:
            found = _beside(path, relation.RELATION_LIST)
        if found is not None:
            return relation.read_relations(found)
    root = Path(gold) if gold is not None and Path(gold).is_dir() else None
    try:
        return klue.relations(root if root is not None else klue_dir(data_dir))
    except FileNotFoundError as e:
        raise FileNotFoundError(
            f"RE needs {relation.RELATION_LIST}: not beside --gold and not in the data "
            f"directory ({e}); pass --data-dir DIR holding klue-re-v1.1/{relation.RELATION_LIST}"
        ) from None


def load_gold(
    task: str, gold: str | None, split: str, data_dir: str | None = None
) -> tuple[list[Any], tuple[str, ...] | None, str]:
    """The gold examples of `task`, the RE relation names (None for other tasks), and
    where the examples came from (for messages)."""
    relations = _relations(gold, data_dir) if task == "re" else None
    if gold is None or Path(gold).is_dir():
        root = Path(gold) if gold is not None else klue_dir(data_dir)
        where = klue.locate(task, split, root) or f"{root} ({task} {split})"
        return klue.load(task, split, root), relations, where
    path = Path(gold)
    if not path.is_file():
        raise FileNotFoundError(f"--gold {path} does not exist")
    if path.name.endswith(_ARCHIVE_SUFFIXES):
        file_name = split_file_name(task, split)
        source = _find_in_archive(path, file_name)
        if source is None:
            members = ", ".join(os.path.basename(m) for m in archive_members(path))
            raise FileNotFoundError(
                f"--gold {path} has no {file_name} (split {split!r}); it holds: {members}"
            )
    else:
        source = SplitFile(path)
    if task == "re":
        examples = list(relation.read(source, relations=relations))
    else:
        examples = list(_READERS[task](source))
    if not examples:
        raise ValueError(f"--gold {source.name} holds no {task} examples")
    return examples, relations, source.name


def _json_value(value: float) -> float | None:
    return value if math.isfinite(value) else None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m finetune.evaluate",
        description="Score a KLUE prediction file (JSON Lines) with the KLUE baseline's "
        "metrics; prints one JSON object (0-100 scale).",
    )
    parser.add_argument("--task", required=True, choices=prediction_files.TASKS)
    parser.add_argument("--predictions", required=True, help="JSON Lines prediction file")
    parser.add_argument(
        "--gold",
        default=None,
        help="gold split file (.json/.tsv, or .gz), the official <task>-v1.1.tar.gz, or a "
        "KLUE folder (default: the split under the data directory)",
    )
    parser.add_argument(
        "--split", default="dev", help="split to read from an archive or folder (default: dev)"
    )
    add_data_dir_argument(parser)
    parser.add_argument("--output", default=None, help="also write the JSON object here")
    missing = parser.add_mutually_exclusive_group()
    missing.add_argument(
        "--allow-missing",
        action="store_true",
        help="score only the gold ids that have a prediction (reports how many are missing)",
    )
    missing.add_argument(
        "--missing-as-empty",
        action="store_true",
        help="mrc, wos: score a missing question/turn as the empty answer/state",
    )
    args = parser.parse_args(argv)

    gold, relations, where = load_gold(args.task, args.gold, args.split, args.data_dir)
    preds = prediction_files.read_predictions(args.task, args.predictions)
    result = prediction_files.evaluate(
        args.task,
        preds,
        gold,
        relations=relations,
        allow_missing=args.allow_missing,
        missing_as_empty=args.missing_as_empty,
        source=args.predictions,
    )
    unit = UNITS[args.task]
    print(f"gold: {where}", file=sys.stderr)
    print(f"scored {result.n_scored} {unit}", file=sys.stderr)
    if result.n_missing:
        total = result.n_scored + result.n_missing
        print(
            f"warning: {result.n_missing} of {total} gold {unit} have no prediction and were "
            "left out (--allow-missing): not comparable with a full score",
            file=sys.stderr,
        )
    if result.n_empty:
        print(
            f"note: {result.n_empty} of {result.n_scored} gold {unit} had no prediction and "
            "were scored as empty (--missing-as-empty)",
            file=sys.stderr,
        )
    scores = {name: result.metrics[name] for name in METRIC_NAMES[args.task]}
    for name, value in scores.items():
        if not math.isfinite(value):
            print(
                f"warning: {name} is undefined (e.g. constant predictions); written as null",
                file=sys.stderr,
            )
    out = {name: _json_value(v) for name, v in scores.items()}
    if args.output:
        storage.makedirs(storage.path(args.output).parent)
        storage.write_text_atomic(args.output, json.dumps(out, indent=2) + "\n")
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    run(main)
