"""Every experiment config loads and carries the paper's settings."""

from __future__ import annotations

import importlib

import pytest

from pretrain.models import PRESETS

PAPER = {
    # config: (model, objective, batch, steps)
    "bert_base": ("bert-base", "bert", 256, 1_000_000),
    "roberta_small": ("roberta-small", "roberta", 2048, 1_000_000),
    "roberta_base": ("roberta-base", "roberta", 2048, 1_000_000),
    "roberta_large": ("roberta-large", "roberta", 2048, 500_000),
}


@pytest.mark.parametrize("name", sorted(PAPER))
def test_paper_configs(name):
    c = importlib.import_module(f"pretrain.configs.{name}").get_config()
    objective = PAPER[name][1]
    assert (c.model, c.objective, c.global_batch_size, c.num_train_steps) == PAPER[name]
    assert c.model in PRESETS and PRESETS[c.model].arch == objective
    assert c.learning_rate == 1e-4 and c.max_grad_norm == 1.0 and c.warmup_steps == 10_000


def test_tiny_config_runs_without_data_flags():
    c = importlib.import_module("pretrain.configs.tiny").get_config()
    assert c.model in PRESETS and c.data.bootstrap.enabled and not c.data.examples_dir


def test_continue_config_takes_the_model_from_init_from():
    """DAPT's budget at KLUE-RoBERTa's own peak rate (the docstring cites both); without an
    init_from folder the run stops before any compute, saying what is missing."""
    from pretrain import train
    from pretrain.bootstrap import DataSpec

    c = importlib.import_module("pretrain.configs.continue_klue_roberta_base").get_config()
    assert (c.model, c.objective, c.global_batch_size, c.num_train_steps) == (
        "from_init",
        "roberta",
        2048,
        12_500,
    )
    assert c.learning_rate == 1e-4 and c.warmup_steps == 750 and c.adam_b2 == 0.98
    data = DataSpec(objective="roberta", max_seq_length=512, max_predictions_per_seq=77,
                    vocab_size=32000)  # fmt: skip
    with pytest.raises(ValueError, match="must be a Hugging Face BERT/RoBERTa folder"):
        train.build_model_config(c, data)
