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
