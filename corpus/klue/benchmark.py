"""Every KLUE text field as one stream, for decontaminating the pretraining corpus.

The dedup stage indexes these texts with BM25 and removes corpus sentences
that match any of them, so each yielded text names where it came from
(`guid`, `task`, `split`, `field`) for the audit file.

What is yielded, per split present (`corpus.klue.available_splits`):

| task | field(s) | guid |
|---|---|---|
| ynat | title | example guid (DACON rows: ``ynat-dacon_train_<index>``) |
| sts | sentence1, sentence2 | example guid |
| nli | premise, hypothesis | example guid |
| ner | sentence (characters joined, no marks) | sentence guid |
| re | sentence | example guid |
| dp | sentence | sentence guid |
| mrc | context (once per paragraph, whole), question | first question's guid / question guid |
| wos | text (every turn, user and system) | ``<dialogue guid>:<turn index>`` |

When YNAT train comes from the DACON copy, the unlabelled titles of its
``test_data.csv`` (the rest of YNAT train) are yielded too, as split
``train``. A ``dev_sample_10`` split is skipped when the full dev split is
present (it is a subset of it). Texts are not deduplicated here: an NLI
premise shared by three hypotheses appears three times.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass

from corpus.textio import OnError, Quarantine


@dataclass(frozen=True)
class BenchmarkText:
    guid: str
    task: str
    split: str
    field: str
    text: str


def _texts(task: str, split: str, ex) -> Iterator[tuple[str, str, str]]:
    """``(guid, field, text)`` of one example."""
    if task == "ynat":
        yield ex.guid, "title", ex.title
    elif task == "sts":
        yield ex.guid, "sentence1", ex.sentence1
        yield ex.guid, "sentence2", ex.sentence2
    elif task == "nli":
        yield ex.guid, "premise", ex.premise
        yield ex.guid, "hypothesis", ex.hypothesis
    elif task in ("ner", "re", "dp"):
        yield ex.guid, "sentence", ex.sentence
    elif task == "wos":
        for i, turn in enumerate(ex.turns):
            yield f"{ex.guid}:{i}", "text", turn.text
    else:
        raise ValueError(task)


def benchmark_texts(
    klue_dir: str | os.PathLike | None = None,
    *,
    tasks: tuple[str, ...] | None = None,
    on_error: OnError = "raise",
    quarantine: Quarantine | None = None,
) -> Iterator[BenchmarkText]:
    """Yields every text field of every task and split present under `klue_dir`.

    Order is deterministic: tasks in `corpus.klue.TASKS` order, splits sorted,
    examples in file order.
    """
    from corpus import klue
    from corpus.klue import ynat

    root = klue.resolve_klue_dir(klue_dir)
    present = klue.available_splits(root)
    for task in tasks or klue.TASKS:
        splits = present[task]
        for split in splits:
            if split == "dev_sample_10" and "dev" in splits:
                continue
            examples = klue.iter_examples(
                task, split, root, on_error=on_error, quarantine=quarantine
            )
            if task == "mrc":
                yield from _mrc_texts(split, examples)
                continue
            for ex in examples:
                for guid, field, text in _texts(task, split, ex):
                    yield BenchmarkText(guid, task, split, field, text)
            if (
                task == "ynat"
                and split == "train"
                and klue.find_split(root, "ynat", "train") is None
            ):
                dacon = ynat.find_dacon(root)
                if dacon is not None and (dacon / "test_data.csv").is_file():
                    for ex in ynat.read_dacon(
                        dacon, "test", on_error=on_error, quarantine=quarantine
                    ):
                        yield BenchmarkText(ex.guid, task, split, "title", ex.title)


def _mrc_texts(split: str, examples) -> Iterator[BenchmarkText]:
    last_paragraph = None
    for ex in examples:
        if ex.paragraph_index != last_paragraph:
            last_paragraph = ex.paragraph_index
            yield BenchmarkText(ex.guid, "mrc", split, "context", ex.context)
        yield BenchmarkText(ex.guid, "mrc", split, "question", ex.question)
