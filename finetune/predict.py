"""Predictions of a fine-tuned model on any file of its task, in the format the scorer reads.

    python -m finetune predict --task ynat --model ft/ynat/best \\
        --input ynat-v1.1_test.json --output preds.jsonl [--max-seq-length N] [--batch-size B]

``--model`` is the ``best/`` folder of a ``python -m finetune`` run (`finetune.finetuned`).
``--input`` is a file in the task's official format (``../shared/docs/klue-formats.md``):
plain, ``.gz``, or ``ARCHIVE.tar.gz:MEMBER``. The output has one JSON line per scored unit,
as the trainer's ``predictions.jsonl`` and what ``python -m finetune.evaluate`` scores.

Labels are not needed where a test split has none: for YNAT, NLI, STS, NER and MRC only the
input fields are read (guid and text; NER's character column, the tag empty or absent; MRC's
questions with ``answers`` optional), with the official readers' checks of those fields and
their file-and-line errors. RE, DP and WoS files go through the official readers (RE's and
WoS's heads also need the training data: ``--data-dir``).

The encoding is the trainer's: the task's ``encode`` with the run's ``max_seq_length`` (from
the run's ``config.json`` beside ``best/``; ``--max-seq-length`` when the folder was moved),
the model in float32 without dropout, batches padded with weight-0 rows (dropped). The same
model, file and ``--batch-size`` give byte-identical output (another batch size compiles
another program: STS scores may then differ in the last float bits).
Exit status: 0 written, 2 bad input.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from corpus.cli import report_errors
from corpus.klue.blocks import Block, iter_parsed
from corpus.klue.files import FieldReader, SplitFile, iter_objects
from corpus.klue.mrc import MrcExample, _answers
from corpus.klue.ner import TAGS, NerSentence
from corpus.klue.nli import NliExample
from corpus.klue.sts import StsExample
from corpus.klue.ynat import YnatExample
from corpus.textio import InputError
from finetune.finetuned import (
    Finetuned,
    FinetunedLoadError,
    encode_context,
    load_finetuned,
    run_config,
)
from finetune.tasks.base import Features

DEFAULT_BATCH = 32


# ---------------------------------------------------------------------------------------------
# Input fields only (labels optional)


def _ynat(f: FieldReader) -> YnatExample:
    return YnatExample(guid=f.str("guid"), title=f.str("title"), label=None)


def _nli(f: FieldReader) -> NliExample:
    source = f.str("source", optional=True) or f.str("genre", optional=True) or ""
    return NliExample(f.str("guid"), f.str("premise"), f.str("hypothesis"), None, source)


def _sts(f: FieldReader) -> StsExample:
    nan = math.nan  # no gold score: never read when predicting
    source = f.str("source", optional=True) or ""
    return StsExample(f.str("guid"), source, f.str("sentence1"), f.str("sentence2"), nan, nan, 0)


def _ner(block: Block) -> NerSentence:
    """A sentence block: one character per line, its tag optional (``char<TAB>`` or just
    ``char``; a space character needs its tab, or the line reads as blank)."""
    chars = []
    for lineno, row in block.rows:
        fields = row.split("\t")
        if len(fields) not in (1, 2) or len(fields[0]) != 1:
            raise block.error(lineno, f"expected a character and optionally a tag, got {row!r}")
        if len(fields) == 2 and fields[1] and fields[1] not in TAGS:
            raise block.error(lineno, f"unknown label: NER tag {fields[1]!r}")
        chars.append(fields[0])
    return NerSentence(block.guid, "".join(chars), block.text, ("O",) * len(chars))


def _mrc(source: SplitFile) -> Iterator[MrcExample]:
    """Every question of an MRC file; ``answers`` and ``is_impossible`` optional."""
    top = FieldReader(source.json(), source.name, None)
    paragraph_index = 0
    for d, doc in enumerate(top.list("data")):
        f = FieldReader(doc, source.name, None, f"data[{d}]")
        title = f.str("title", optional=True) or ""
        for p, para in enumerate(f.list("paragraphs")):
            pf = FieldReader(para, source.name, None, f"data[{d}].paragraphs[{p}]")
            context = pf.str("context")
            for k, qa in enumerate(pf.list("qas")):
                q = FieldReader(qa, source.name, None, f"{pf.where}.qas[{k}]")
                qtype = q.int("question_type", optional=True)
                yield MrcExample(
                    guid=q.str("guid"),
                    question=q.str("question"),
                    context=context,
                    question_type=qtype if qtype is not None else 0,
                    is_impossible=bool(q.get("is_impossible", bool, optional=True)),
                    answers=_answers(q, "answers", optional=True),
                    title=title,
                    paragraph_index=paragraph_index,
                )
            paragraph_index += 1


def read_inputs(task: str, path: str) -> list[Any]:
    """The examples of ``path`` (``FILE`` or ``ARCHIVE.tar.gz:MEMBER``) for ``task``."""
    source = _split_file(path)
    if task == "ynat":
        return list(iter_objects(source, _ynat))
    if task == "nli":
        return list(iter_objects(source, _nli))
    if task == "sts":
        return list(iter_objects(source, _sts))
    if task == "ner":
        return list(iter_parsed(source, _ner))
    if task == "mrc":
        return list(_mrc(source))
    from corpus import klue

    return list(klue._READERS[task](source))


def _split_file(path: str) -> SplitFile:
    archive, sep, member = path.partition(".tar.gz:")
    if sep:
        return SplitFile(Path(archive + ".tar.gz"), member)
    if not Path(path).is_file():
        raise FileNotFoundError(f"--input {path} does not exist")
    return SplitFile(Path(path))


# ---------------------------------------------------------------------------------------------
# The model on every feature row


def head_outputs(ft: Finetuned, features: Features, batch_size: int) -> dict[str, np.ndarray]:
    """The head's outputs for every feature row, in order: one compiled program, batches
    filled with weight-0 rows (`finetune.trainer.take_batch`) whose outputs are dropped."""
    import jax
    from flax import nnx

    from finetune.trainer import take_batch

    graphdef, state = nnx.split(ft.model)

    @jax.jit
    def forward(state, batch):
        return nnx.merge(graphdef, state)(batch, deterministic=True)

    chunks = []
    for start in range(0, len(features), batch_size):
        index = np.arange(start, min(start + batch_size, len(features)))
        out = jax.device_get(forward(state, take_batch(features, index, batch_size)))
        chunks.append({k: np.asarray(v)[: len(index)] for k, v in out.items()})
    return {k: np.concatenate([c[k] for c in chunks]) for k in chunks[0]}


def predict_file(
    ft: Finetuned, input_path: str, max_seq_length: int, batch_size: int = DEFAULT_BATCH
) -> list[dict[str, Any]]:
    """The prediction records of ``input_path`` (one per scored unit)."""
    examples = read_inputs(ft.task.name, input_path)
    if not examples:
        raise InputError(input_path, None, "no examples")
    features = ft.task.encode(examples, encode_context(ft.loaded), max_seq_length, False)
    outputs = head_outputs(ft, features, batch_size)
    return ft.task.predict(outputs, features, examples)


def _max_seq_length(ft: Finetuned, given: int | None) -> int:
    if given is not None:
        return given
    length = run_config(ft.loaded.path).get("max_seq_length")
    if length is None:
        raise FinetunedLoadError(
            f"{ft.loaded.path}: the run's config.json is not beside best/; pass "
            "--max-seq-length (the value the model was fine-tuned with)"
        )
    return int(length)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m finetune predict",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--task", required=True, help="the task the model was fine-tuned on")
    p.add_argument("--model", required=True, help="the best/ folder of a fine-tuning run")
    p.add_argument("--input", required=True, help="a file in the task's official format")
    p.add_argument("--output", required=True, help="prediction file to write (JSON lines)")
    p.add_argument("--max-seq-length", type=int, default=None, help="default: the run's")
    p.add_argument("--batch-size", type=int, default=DEFAULT_BATCH)
    p.add_argument("--data-dir", default=None, help="KLUE data (RE and WoS heads need it)")
    args = p.parse_args(argv)
    from finetune import prediction_files

    def work() -> str:
        ft = load_finetuned(args.model, args.task, data_dir=args.data_dir)
        length = _max_seq_length(ft, args.max_seq_length)
        preds = predict_file(ft, args.input, length, args.batch_size)
        n = prediction_files.write_predictions(
            args.task, preds, args.output, relations=getattr(ft.task, "relations", None)
        )
        return f"wrote {n} predictions to {args.output}"

    return report_errors(work)


if __name__ == "__main__":
    sys.exit(main())
