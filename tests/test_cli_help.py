"""Every package and every stage entry point that exists answers --help."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

PACKAGES = ["corpus", "tokenizer", "pretrain", "finetune", "tpu"]
STAGES = [
    "corpus.prepare",
    "corpus.dedup",
    "corpus.pseudonymize",
    "corpus.calibrate",
    "tokenizer.train",
    "tokenizer.stats",
    "pretrain.build_data",
    "pretrain.main",
    "pretrain.export",
    "pretrain.tfds_examples",
    "finetune.data",
    "tpu.launch",
    "tpu.gpu",
    "tpu.worker",
    "tpu.preflight",
]


@pytest.mark.parametrize("module", PACKAGES + STAGES)
def test_help(module):
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not built yet")
    proc = subprocess.run(
        [sys.executable, "-m", module, "--help"], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "usage" in proc.stdout.lower() or "entry points" in proc.stdout


def test_finetune_help_lists_every_task_and_the_dp_and_wos_options():
    from finetune.main import USAGE, task_options_help

    assert "dp" in USAGE.split("|") and "wos" in USAGE
    text = task_options_help()
    assert "dp: arc_space=512" in text and "tree_decoding=False" in text
    assert "wos: current_turn_segment=False" in text and "teacher_forcing=0.5" in text
    assert "gate_input='context'" in text and "value_loss='all'" in text


def test_tpu_gpu_help_shows_the_slurm_options():
    from tpu.gpu import build_parser

    text = build_parser().format_help()
    for flag in ("--nodes", "--gpus-per-node", "--partition", "--time", "--submit"):
        assert flag in text, flag


def test_dedup_help_names_the_data_dir_it_has():
    from corpus.dedup import build_parser

    text = " ".join(build_parser().format_help().split())
    assert "--data-dir DATA_DIR" in text and "the parent of klue/" in text
    assert "--exact-min-chars" in text


def test_data_dir_is_the_parent_of_klue_and_the_klue_folder_is_accepted(tmp_path, caplog):
    """finetune --data-dir takes what corpus.dedup and the pipeline take: the parent of klue/
    (the KLUE folder itself, the older form, still works and logs a note)."""
    import logging

    from finetune.main import klue_folder

    klue = tmp_path / "data" / "klue"
    (klue / "ynat-v1.1").mkdir(parents=True)
    assert klue_folder(str(tmp_path / "data")) == str(klue)
    with caplog.at_level(logging.INFO, logger="corpus.datadir"):
        assert klue_folder(str(klue)) == str(klue)
    assert any("the convention is its parent" in r.getMessage() for r in caplog.records)
    assert klue_folder(None) is None


def test_report_errors_prints_one_line_and_exits_2_on_user_errors(capsys):
    """The exit shape of the export and predict commands (`corpus.cli.report_errors`)."""
    from corpus.cli import report_errors
    from corpus.textio import InputError

    assert report_errors(lambda: "wrote out/") == 0
    assert capsys.readouterr().out == "wrote out/\n"

    def bad_input() -> str:
        raise InputError("x.json", 3, "missing field: 'title'")

    assert report_errors(bad_input) == 2
    assert capsys.readouterr().err == "error: x.json:3: missing field: 'title'\n"

    def no_torch() -> str:
        raise ImportError("torch is needed")

    assert report_errors(no_torch, prog="pretrain.export", errors=(ImportError,)) == 2
    assert capsys.readouterr().err == "pretrain.export: error: torch is needed\n"
    with pytest.raises(ImportError):  # not a user error here: the traceback stays
        report_errors(no_torch)
