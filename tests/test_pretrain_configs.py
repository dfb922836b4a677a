"""Every experiment config loads and carries the paper's settings."""

from __future__ import annotations

import importlib
from pathlib import Path

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


def test_a_paper_config_without_examples_names_the_flag_before_any_work(tmp_path):
    """README's `pretrain.main --config pretrain/configs/bert_base.py --workdir W` with no
    examples: a message naming --config.data.examples_dir, not a traceback (pretrain.main
    prints it and exits 2). The data a config can run on is not refused."""
    from pretrain.bootstrap import NO_DATA_MESSAGE, data_config_error

    base = importlib.import_module("pretrain.configs.bert_base").get_config()
    assert data_config_error(base) == NO_DATA_MESSAGE
    assert "--config.data.examples_dir=DIR" in NO_DATA_MESSAGE
    base.data.examples_dir = str(tmp_path / "missing")
    assert "--config.data.examples_dir=" in data_config_error(base)
    (tmp_path / "ex").mkdir()
    (tmp_path / "ex" / "manifest.json").write_text("{}")
    base.data.examples_dir = str(tmp_path / "ex")
    assert data_config_error(base) is None
    base.data.examples_dir = "gs://bucket/examples"  # remote: checked when read
    assert data_config_error(base) is None
    assert data_config_error(importlib.import_module("pretrain.configs.tiny").get_config()) is None
    synthetic = importlib.import_module("pretrain.configs.bert_base").get_config()
    synthetic.data.synthetic = True
    assert data_config_error(synthetic) is None


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


def test_examples_longer_than_the_model_is_a_setup_error_before_compiling(tmp_path):
    """`pretrain.build_data` makes L=512 by default; the tiny config's model has 128
    positions. That ended in a ValueError traceback after JAX start-up; now it is a
    `SetupError`, raised before anything is compiled, which `pretrain.main` prints as one
    ``error:`` line with exit 2. (pretrain.main itself is not imported here: its absl flags
    would clash with finetune.main's in the same test process.)"""
    from pretrain import supervision, train

    cfg = importlib.import_module("pretrain.configs.tiny").get_config()
    cfg.data.synthetic, cfg.data.bootstrap.enabled, cfg.data.max_seq_length = True, False, 512
    with pytest.raises(
        supervision.SetupError, match="examples have sequences of 512 tokens but model"
    ):
        train.train_and_evaluate(cfg, str(tmp_path / "w"))
    assert not (tmp_path / "w" / "checkpoints").exists()
    main_source = (Path(train.__file__).parent / "main.py").read_text(encoding="utf-8")
    assert "except supervision.SetupError as e:" in main_source
