"""End to end: `python -m pretrain.demo` on the embedded corpus, every stage as a command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_demo_runs_every_stage_and_exports(tmp_path):
    pytest.importorskip("transformers", reason="export --verify needs transformers")
    out = tmp_path / "demo"
    cmd = [sys.executable, "-m", "pretrain.demo", "--embedded", "--output", str(out),
           "--steps", "4", "--workers", "1"]  # fmt: skip
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    summary = json.loads((out / "summary.json").read_text())
    stages = summary["stages"]
    assert stages["records"]["kept"] > 200
    assert stages["clean"]["read"] == stages["records"]["kept"]  # no dedup without KLUE
    assert stages["examples"]["examples"] > 0
    assert (out / "hf" / "model.safetensors").exists() and (out / "hf" / "vocab.txt").exists()
    # a second run finds every manifest and redoes nothing before training
    again = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=900)
    assert again.returncode == 0
    assert again.stderr.count("up to date") + again.stderr.count("skipping") >= 3
