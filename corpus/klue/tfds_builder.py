"""KLUE v1.1 as a TensorFlow Datasets builder, reading through the `corpus.klue` readers.

    import tensorflow_datasets as tfds
    from corpus.klue import tfds_builder  # registers the "klue" builder

    builder = tfds.builder("klue/ynat", data_dir="tfds_data", file_format="array_record")
    builder.download_and_prepare(  # or tfds_builder.prepare("ynat", "data/klue", "tfds_data")
        download_config=tfds.download.DownloadConfig(manual_dir="data/klue"))
    dev = tfds.data_source("klue/ynat", split="dev", data_dir="tfds_data")

Manual mode only: ``manual_dir`` is a KLUE folder as `corpus.klue` reads it
(unpacked folders, ``.gz`` copies or the official ``<task>-v1.1.tar.gz``
archives; ``python -m finetune.data download --to data`` fetches them), so
the records are exactly what `corpus.klue.load` gives, with the same checks.
Every split present (``train``, ``dev``, ``dev_sample_10``) becomes a TFDS
split. TensorFlow is not needed: prepare with ``file_format="array_record"``
and read with `tfds.data_source` (random access, NumPy/bytes values).

Features: one config per task. Flat tasks use ClassLabel/Text/float features;
NER is a Sequence of per-character tags; RE nests the two entities as
FeaturesDicts; DP is a Sequence of word dicts; MRC answers are Sequences of
``{text, answer_start}``. WoS dialogues are irregular (only user turns carry a
state), so ``dialogue`` is the turns as JSON text
(``[{"role", "text", "state"?}, ...]``) beside ``domains``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

import numpy as np
import tensorflow_datasets as tfds

from corpus import klue
from corpus.klue.ner import TAGS as NER_TAGS
from corpus.klue.nli import LABELS as NLI_LABELS
from corpus.klue.ynat import LABELS as YNAT_LABELS

_T = tfds.features.Text
_S = tfds.features.Sequence
_D = tfds.features.FeaturesDict
_L = tfds.features.ClassLabel
_F = tfds.features.Scalar

_ENTITY = {"word": _T(), "start_idx": _F(np.int32), "end_idx": _F(np.int32), "type": _T()}
_ANSWER = {"text": _T(), "answer_start": _F(np.int32)}


def _features(task: str) -> dict[str, Any]:
    """The TFDS feature spec of `task` (see the module docstring)."""
    if task == "ynat":
        return {"guid": _T(), "title": _T(), "label": _L(names=list(YNAT_LABELS)), "url": _T()}
    if task == "nli":
        return {
            "guid": _T(),
            "premise": _T(),
            "hypothesis": _T(),
            "label": _L(names=list(NLI_LABELS)),
            "source": _T(),
        }
    if task == "sts":
        return {
            "guid": _T(),
            "source": _T(),
            "sentence1": _T(),
            "sentence2": _T(),
            "label": _F(np.float32),
            "real_label": _F(np.float32),
            "binary_label": _L(num_classes=2),
        }
    if task == "re":
        return {
            "guid": _T(),
            "sentence": _T(),
            "subject_entity": _D(dict(_ENTITY)),
            "object_entity": _D(dict(_ENTITY)),
            "label": _T(),  # a relation name; ids come from relation_list.json
            "source": _T(),
        }
    if task == "ner":
        return {
            "guid": _T(),
            "sentence": _T(),
            "tagged": _T(),
            "tags": _S(_L(names=list(NER_TAGS))),
        }
    if task == "dp":
        word = {
            "index": _F(np.int32),
            "word_form": _T(),
            "lemma": _T(),
            "pos": _T(),
            "head": _F(np.int32),
            "deprel": _T(),
        }
        return {"guid": _T(), "sentence": _T(), "words": _S(word)}
    if task == "mrc":
        return {
            "guid": _T(),
            "title": _T(),
            "context": _T(),
            "question": _T(),
            "question_type": _F(np.int32),
            "is_impossible": _F(np.bool_),
            "answers": _S(dict(_ANSWER)),
            "plausible_answers": _S(dict(_ANSWER)),
            "source": _T(),
        }
    if task == "wos":
        return {"guid": _T(), "domains": _S(_T()), "dialogue": _T()}
    raise ValueError(f"unknown KLUE task {task!r}")


def to_record(task: str, ex: Any) -> dict[str, Any]:
    """One `corpus.klue` example as the feature dict of its TFDS config."""
    if task == "ynat":
        return {"guid": ex.guid, "title": ex.title, "label": ex.label, "url": ex.url or ""}
    if task == "nli":
        return {
            "guid": ex.guid,
            "premise": ex.premise,
            "hypothesis": ex.hypothesis,
            "label": ex.gold_label,
            "source": ex.source,
        }
    if task == "sts":
        return {
            "guid": ex.guid,
            "source": ex.source,
            "sentence1": ex.sentence1,
            "sentence2": ex.sentence2,
            "label": ex.label,
            "real_label": ex.real_label,
            "binary_label": ex.binary_label,
        }
    if task == "re":
        ent = lambda e: {  # noqa: E731
            "word": e.word,
            "start_idx": e.start_idx,
            "end_idx": e.end_idx,
            "type": e.type,
        }
        return {
            "guid": ex.guid,
            "sentence": ex.sentence,
            "subject_entity": ent(ex.subject_entity),
            "object_entity": ent(ex.object_entity),
            "label": ex.label,
            "source": ex.source,
        }
    if task == "ner":
        return {
            "guid": ex.guid,
            "sentence": ex.sentence,
            "tagged": ex.tagged,
            "tags": list(ex.tags),
        }
    if task == "dp":
        words = [
            {
                "index": w.index,
                "word_form": w.word_form,
                "lemma": w.lemma,
                "pos": w.pos,
                "head": w.head,
                "deprel": w.deprel,
            }
            for w in ex.words
        ]
        return {"guid": ex.guid, "sentence": ex.sentence, "words": words}
    if task == "mrc":
        ans = lambda xs: [{"text": a.text, "answer_start": a.answer_start} for a in xs]  # noqa: E731
        return {
            "guid": ex.guid,
            "title": ex.title,
            "context": ex.context,
            "question": ex.question,
            "question_type": ex.question_type,
            "is_impossible": ex.is_impossible,
            "answers": ans(ex.answers),
            "plausible_answers": ans(ex.plausible_answers),
            "source": ex.source,
        }
    if task == "wos":
        turns = [
            {"role": t.role, "text": t.text, **({"state": list(t.state)} if t.state else {})}
            for t in ex.turns
        ]
        return {
            "guid": ex.guid,
            "domains": list(ex.domains),
            "dialogue": json.dumps(turns, ensure_ascii=False),
        }
    raise ValueError(f"unknown KLUE task {task!r}")


class Klue(tfds.core.GeneratorBasedBuilder):
    """The eight KLUE v1.1 tasks from the official files (manual dir = a KLUE folder)."""

    VERSION = tfds.core.Version("1.1.0")
    RELEASE_NOTES = {"1.1.0": "KLUE v1.1, read through corpus.klue."}
    BUILDER_CONFIGS = [tfds.core.BuilderConfig(name=t, description=f"KLUE {t}") for t in klue.TASKS]
    MANUAL_DOWNLOAD_INSTRUCTIONS = (
        "Pass a KLUE folder (the official <task>-v1.1.tar.gz archives, unpacked folders or .gz "
        "copies; `python -m finetune.data download --to data` fetches them) as "
        "DownloadConfig(manual_dir=...)."
    )

    def _info(self) -> tfds.core.DatasetInfo:
        return self.dataset_info_from_configs(
            features=_D(_features(self.builder_config.name)),
            homepage="https://klue-benchmark.com",
            supervised_keys=None,
            disable_shuffling=True,  # records in file order, index i = corpus.klue.load()[i]
        )

    def _split_generators(self, dl_manager: tfds.download.DownloadManager):
        task = self.builder_config.name
        root = os.fspath(dl_manager.manual_dir)
        splits = klue.available_splits(root)[task]
        if not splits:
            raise FileNotFoundError(f"no KLUE {task} files under {root}")
        return {split: self._generate_examples(root, split) for split in splits}

    def _generate_examples(self, root: str, split: str) -> Iterator[tuple[str, dict]]:
        task = self.builder_config.name
        for i, ex in enumerate(klue.iter_examples(task, split, root)):
            yield f"{i:08d}", to_record(task, ex)


def prepare(
    task: str, klue_dir: str | os.PathLike, data_dir: str | os.PathLike
) -> tfds.core.DatasetBuilder:
    """Builds ``klue/<task>`` as ArrayRecord under `data_dir` from `klue_dir`; the builder."""
    b = tfds.builder(f"klue/{task}", data_dir=os.fspath(data_dir), file_format="array_record")
    b.download_and_prepare(
        download_config=tfds.download.DownloadConfig(manual_dir=os.fspath(klue_dir)),
    )
    return b
