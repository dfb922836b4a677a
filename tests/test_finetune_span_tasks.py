"""RE, NER and MRC end to end on CPU: a tiny random encoder fine-tuned a few steps by the shared
trainer through the CLI's `finetune.main.run_all` (``--task re,ner,mrc --config
finetune/configs/common.py:tiny``), predictions written and scored by ``python -m
finetune.evaluate`` with the same numbers as the trainer's ``metrics.json``.

The KLUE folder is built from the test fixtures (``tests/fixtures/klue``); the same small
files serve as train and dev, which is enough to exercise encoding, the head, the loss, the
decoding and the prediction format (the scores of a 3-step run on random weights mean nothing).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from corpus import klue
from finetune import evaluate, trainer
from tests.finetune_fixtures import write_tiny_model, write_tokenizer

FIXTURES = Path(__file__).parent / "fixtures" / "klue"
SOURCES = {  # task -> (fixture file of the train split, its dev copy)
    "re": ("klue-re-v1.1/klue-re-v1.1_train.json", "klue-re-v1.1/klue-re-v1.1_dev.json"),
    "ner": ("klue-ner-v1.1/klue-ner-v1.1_train.tsv", "klue-ner-v1.1/klue-ner-v1.1_dev.tsv"),
    "mrc": ("klue-mrc-v1.1/klue-mrc-v1.1_train.json", None),
}


@pytest.fixture(scope="module")
def klue_dir(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("klue")
    for train, dev in SOURCES.values():
        folder = root / Path(train).parent
        shutil.copytree(FIXTURES / Path(train).parent, folder)
        if dev is not None:
            shutil.copy(FIXTURES / train, root / dev)
    return root


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory, klue_dir) -> Path:
    texts = []
    for task in SOURCES:
        for ex in klue.load(task, "train", klue_dir):
            texts += [getattr(ex, f, "") for f in ("sentence", "context", "question")]
    base = tmp_path_factory.mktemp("model")
    tok = write_tokenizer(base / "tokenizer", [t for t in texts if t])
    # One layer: compilation dominates these runs, and one layer exercises every path.
    return write_tiny_model(base / "hf", tok, arch="bert", num_layers=1)


def _base_config():
    """``--config finetune/configs/common.py:tiny`` with a few-step run (applied to each task)."""
    from finetune.configs import common

    base = common.get_config("tiny")
    base.max_seq_length = 32
    base.global_batch_size = 2
    base.eval_batch_size = 4
    base.max_train_steps = 2  # one epoch of the 3-5 fixture examples: one evaluation
    base.progress_bar = False
    base.log_every_steps = 1
    return base


@pytest.fixture(scope="module")
def finetuned(tmp_path_factory, klue_dir, tiny_model, unoptimised_compilation) -> Path:
    """``python -m finetune --task re,ner,mrc`` (its `run_all`), one model load for the three."""
    from finetune import main as ft_main

    out = tmp_path_factory.mktemp("runs")
    ft_main.run_all(_base_config(), list(SOURCES), str(tiny_model), out, str(klue_dir), 1)
    return out


@pytest.mark.parametrize("task_name", list(SOURCES))
def test_task_trains_and_its_predictions_score(task_name, klue_dir, tiny_model, finetuned, capsys):
    out = finetuned / task_name
    written = json.loads((out / trainer.METRICS).read_text())
    assert written["num_train_examples"] > 0 and written["best_step"] is not None
    preds = [json.loads(line) for line in (out / trainer.PREDICTIONS).read_text().splitlines()]
    gold = klue.load(task_name, "dev", klue_dir)
    assert sorted(p["guid"] for p in preds) == sorted(ex.guid for ex in gold)
    if task_name == "ner":
        assert [len(p["tags"]) for p in preds] == [len(ex.sentence) for ex in gold]
    if task_name == "re":
        assert all(len(p["probs"]) == 30 for p in preds)
        vocab = len((tiny_model / "vocab.txt").read_text(encoding="utf-8").splitlines())
        assert written["model_config"]["vocab_size"] == vocab + 4  # the markers' new rows

    capsys.readouterr()
    gold_file = klue.locate(task_name, "dev", klue_dir)
    argv = ["--task", task_name, "--predictions", str(out / trainer.PREDICTIONS)]
    assert evaluate.main([*argv, "--gold", gold_file]) == 0
    printed = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert printed.keys() == written["scores"].keys()
    for key, value in printed.items():
        assert value == pytest.approx(written["scores"][key], nan_ok=True), key
