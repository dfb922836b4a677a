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


def test_examples_longer_than_the_model_is_one_error_line_and_exit_2(tmp_path, capsys):
    """`pretrain.build_data` makes L=512 by default; the tiny config's model has 128
    positions. That ended in a ValueError traceback after JAX start-up; now one line
    naming the fix, exit 2, before anything is compiled."""
    import os

    from absl import flags

    from pretrain import main

    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    argv = [
        "pretrain.main",
        "--config=" + os.path.join(repo, "pretrain", "configs", "tiny.py"),
        "--workdir=" + str(tmp_path / "w"),
    ]
    try:
        flags.FLAGS(argv)
        cfg = flags.FLAGS.config  # as --config.data.synthetic=True ... would set it
        cfg.data.synthetic, cfg.data.bootstrap.enabled, cfg.data.max_seq_length = True, False, 512
        assert main.main(argv[:1]) == 2
    finally:
        flags.FLAGS.unparse_flags()
    err = capsys.readouterr().err
    assert err.startswith("error: examples have sequences of 512 tokens but model tiny")
    assert "--max-seq-length" in err
