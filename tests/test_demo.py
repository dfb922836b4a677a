"""`make demo` (`python -m pipeline.demo`) end to end on the embedded corpus and KLUE fixtures.

A few hundred sentences, 2 pretraining steps and a few fine-tuning examples per task: checks
that every stage runs and writes what the next stage and the report read (not any figure),
that the report lists the eight tasks and links its plots, and that a second run reuses
every stage.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline import inputs

REPO = Path(__file__).resolve().parent.parent
TASKS = ("ynat", "sts", "nli", "ner", "re", "dp", "mrc", "wos")
#: Fine-tuning at smoke size: a few examples, one short epoch.
TINY_FT = [
    "--finetune-set", "max_train_examples=16", "--finetune-set", "max_eval_examples=16",
    "--finetune-set", "global_batch_size=8", "--finetune-set", "max_seq_length=48",
]  # fmt: skip


def _run(args: list[str]) -> subprocess.CompletedProcess:
    # XLA compiles the stages' programs without its expensive optimisation passes (LLVM -O0):
    # compilation is most of each JAX stage's time at this size, and this test checks what the
    # stages write, never a figure or a speed (the same programs; ~30% less wall time).
    env = {**os.environ, "JAX_DISABLE_MOST_OPTIMIZATIONS": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    return proc


def test_make_demo_runs_the_pipeline_demo():
    makefile = (REPO / "Makefile").read_text()
    target = makefile[makefile.index("\ndemo:") :].split("\n\n")[0]
    assert "-m pipeline.demo" in target
    assert not (REPO / "pretrain" / "demo.py").exists()


@pytest.mark.slow
def test_demo_chain_writes_every_stage_and_the_report(tmp_path):
    pytest.importorskip("transformers", reason="export --verify needs transformers")
    out = tmp_path / "demo"
    # Two fine-tuning tasks (a sentence classifier and a tagger) keep it short; every task's
    # own end-to-end test is in the finetune suite. The report still lists all eight.
    cmd = ["pipeline.demo", "--embedded", "--output", str(out), "--steps", "2",
           "--workers", "1", "--tasks", "ynat,ner", *TINY_FT]  # fmt: skip
    first = _run(cmd)
    # every stage printed as a command, then its progress line
    assert "$ python -m corpus.prepare" in first.stdout
    assert "$ python -m pretrain.export" in first.stdout and "--verify" in first.stdout
    # each stage's output
    assert json.loads((out / "records" / "stats.json").read_text())["kept"] > 200
    dec = json.loads((out / "decontaminated" / "stats.json").read_text())
    clean = json.loads((out / "clean" / "stats.json").read_text())
    assert clean["read"] == dec["kept"] and dec["read"] > 200
    assert (out / "pseudonym.key").stat().st_mode & 0o077 == 0
    vocab = json.loads((out / "tokenizer" / "train_stats.json").read_text())["vocab_size"]
    assert vocab == inputs.EMBEDDED_VOCAB
    stats = json.loads((out / "tokenizer_stats.json").read_text())["results"][0]
    assert stats["method"] == "morpheme-bpe" and stats["tokens"] > 0
    for ex in (out / "examples", out / "heldout" / "examples"):
        assert json.loads((ex / "manifest.json").read_text())["examples"] > 0
    log = [json.loads(x) for x in (out / "workdir" / "metrics.jsonl").read_text().splitlines()]
    assert any("eval/mlm_accuracy" in r for r in log) and any("loss" in r for r in log)
    assert (out / "hf" / "model.safetensors").is_file()
    state = json.loads((out / "pipeline.json").read_text())["stages"]
    for task in ("ynat", "ner"):
        assert state[f"finetune-{task}"]["status"] == "done", task
        assert json.loads((out / "finetune" / task / "metrics.json").read_text())["scores"]
    # the report: all eight tasks, the tables and the plots it links
    report = (out / "report.md").read_text()
    for task in TASKS:
        assert f"\n| {task} |" in report, task
    assert report.count("left out by --tasks") == 6
    for heading in ("Decontamination", "Personal information", "Tokenizer", "Held-out MLM"):
        assert heading in report
    for png in ("loss.png", "tasks.png"):
        assert f"]({png})" in report
        assert (out / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # a second run starts no stage again
    again = _run(cmd)
    assert "$ python" not in again.stdout
    assert again.stdout.count("reused") == len(state)
