"""The shared fine-tuning trainer and CLI on CPU with tiny random encoders (no real data).

* YNAT, NLI and STS run end-to-end (BERT; NLI also RoBERTa): the predictions written are
  scored by ``python -m finetune.evaluate`` exactly as the trainer scored them; STS has no
  train file here, so it trains on a guid-hash split of dev and is flagged not comparable.
* A run SIGKILLed between checkpoints and restarted equals the uninterrupted run bit for bit
  (every logged value, scores, predictions file, best parameters); a finished task is skipped.
* 8 simulated CPU devices give the 1-device losses and scores (float32, 1e-5); so do two
  ``jax.distributed`` processes on 127.0.0.1 (gloo), with one writer of the output files.
* ``--seeds 2`` writes mean and standard deviation and the paper-ordered results table.
* Bad input (not BERT/RoBERTa, tokenizer larger than the embedding, no dev split) exits 2.
"""

from __future__ import annotations

import json
import logging
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import multihost
import numpy as np
import pytest
from compiler_flags import subprocess_xla_flags
from finetune_fixtures import write_klue_data, write_tiny_model, write_tokenizer

REPO = Path(__file__).resolve().parent.parent
# The tiny CPU config with these changes, for every run here (one program per task: reruns
# hit the persistent compilation cache).
FIELDS = {
    "max_seq_length": 32,
    "global_batch_size": 8,
    "eval_batch_size": 8,
    "log_every_steps": 1,
    "progress_bar": False,
    "eval_every_steps": 2,
    "max_train_steps": 5,
}
TINY = [
    "--config",
    str(REPO / "finetune" / "configs" / "common.py:tiny"),
    *(f"--config.{k}={v}" for k, v in FIELDS.items()),
]
DETERMINISTIC = ("train/loss", "train/grad_norm", "train/learning_rate", "train/epoch")
# Compilation is most of every run here: XLA compiles without its expensive optimisation passes,
# in the CLI subprocesses (JAX_DISABLE_MOST_OPTIMIZATIONS, `_env`) and in this process alike, so
# a run resumed here is still compared bit for bit with programs compiled the same way.
pytestmark = pytest.mark.usefixtures("unoptimised_compilation")


@pytest.fixture(scope="module")
def assets(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("ft")
    tok = write_tokenizer(root / "tokenizer")
    return {
        "root": root,
        "klue": write_klue_data(root / "klue"),
        # One layer: compilation dominates these runs, and one layer exercises every path.
        "bert": write_tiny_model(root / "bert", tok, "bert", num_layers=1),
        "roberta": write_tiny_model(root / "roberta", tok, "roberta", num_layers=1),
        "cache": root / "jax_cache",
    }


def _env(assets, devices: int | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env["JAX_PLATFORMS"] = "cpu"
    env["XLA_FLAGS"] = subprocess_xla_flags(devices)
    # Reruns of the same program (resume) compile once.
    env["JAX_COMPILATION_CACHE_DIR"] = str(assets["cache"])
    env["JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"] = "0"
    env["PYTHONPATH"] = str(REPO)
    env["JAX_DISABLE_MOST_OPTIMIZATIONS"] = "1"
    return env


def _cmd(assets, output: Path, task: str, *extra: str, model: str = "bert") -> list[str]:
    return [
        sys.executable,
        "-m",
        "finetune",
        "--task",
        task,
        "--model",
        str(assets[model]),
        "--output",
        str(output),
        "--data-dir",
        str(assets["klue"]),
        *TINY,
        *extra,
    ]


def _run(assets, output: Path, task: str, *extra: str, devices=None, model="bert", rc=0) -> str:
    proc = subprocess.run(
        _cmd(assets, output, task, *extra, model=model),
        cwd=REPO,
        env=_env(assets, devices),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == rc, proc.stderr[-4000:]
    return proc.stderr


def _evaluate(task: str, predictions: Path, gold: Path, *extra: str) -> dict:
    proc = subprocess.run(
        [sys.executable, "-m", "finetune.evaluate", "--task", task]
        + ["--predictions", str(predictions), "--gold", str(gold), *extra],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _read(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _train_rows(out: Path) -> dict[int, dict]:
    """Every logged training value except the timing, by step."""
    rows = [json.loads(x) for x in (out / "metrics.jsonl").read_text().splitlines() if x]
    return {r["step"]: {k: r[k] for k in DETERMINISTIC} for r in rows if "train/loss" in r}


def _base_config():
    """The config the CLI builds from TINY (``--config common.py:tiny`` + FIELDS)."""
    from finetune.configs import common

    base = common.get_config("tiny")
    for k, v in FIELDS.items():
        base[k] = v
    return base


def _best_params(out: Path) -> list[np.ndarray]:
    import orbax.checkpoint as ocp

    with ocp.StandardCheckpointer() as ckptr:
        tree = ckptr.restore(out / "best" / "params")
    import jax

    return [np.asarray(x) for x in jax.tree.leaves(tree)]


# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def reference(assets) -> Path:
    """One uninterrupted CLI run of YNAT, NLI and STS (tiny BERT, evaluation every 2 steps)."""
    out = assets["root"] / "reference"
    _run(assets, out, "ynat,nli,sts")
    return out


def test_tasks_run_and_evaluate_scores_the_written_predictions(assets, reference):
    klue = assets["klue"]
    gold = {
        "ynat": klue / "ynat-v1.1" / "ynat-v1.1_dev.json",
        "nli": klue / "klue-nli-v1.1" / "klue-nli-v1.1_dev.json",
        "sts": klue / "klue-sts-v1.1" / "klue-sts-v1.1_dev.json",
    }
    for task in ("ynat", "nli", "sts"):
        out = reference / task
        metrics = _read(out / "metrics.json")
        assert metrics["run_steps"] == 5 and [h["step"] for h in metrics["history"]] == [2, 4, 5]
        best = max(metrics["history"], key=lambda h: h[metrics["metric_key"]])
        assert metrics["best_step"] == best["step"]
        # STS has only dev here: the guid-hash split leaves a held-out part out of training,
        # scored with --allow-missing (the predictions cover exactly the held-out guids).
        extra = ("--allow-missing",) if task == "sts" else ()
        assert _evaluate(task, out / "predictions.jsonl", gold[task], *extra) == pytest.approx(
            metrics["scores"], abs=0, rel=0
        )
        assert (out / "best" / "params").is_dir() and (out / "tensorboard").is_dir()
        assert _read(out / "manifest.json")["status"] == "done"
        assert not (out / "checkpoints").exists()
        assert metrics["comparable_to_paper"] is (task != "sts")
    sts = _read(reference / "sts" / "metrics.json")
    assert "not comparable to the paper" in sts["note"]
    assert sts["num_train_examples"] + sts["num_dev_examples"] == 72  # every example used once
    table = (reference / "results.md").read_text(encoding="utf-8")
    assert table.index("TC F1") < table.index("STS R^P") < table.index("NLI ACC")
    assert "\\* sts: not comparable to the paper" in table


def test_roberta_and_rerun_is_skipped(assets, tmp_path, caplog):
    from finetune import main as ft_main
    from finetune import modeling, trainer
    from finetune.tasks.base import get_task

    caplog.set_level(logging.INFO)
    cfg = ft_main.task_config("nli", _base_config())
    loaded = modeling.load_pretrained(assets["roberta"])
    out = tmp_path / "nli"
    result = trainer.run_task(cfg, get_task("nli"), loaded, out, str(assets["klue"]))
    assert result["model_config"]["arch"] == "roberta" and result["best_step"] in (2, 4, 5)
    first = (out / "predictions.jsonl").read_bytes()
    again = trainer.run_task(cfg, get_task("nli"), loaded, out, str(assets["klue"]))
    assert again == json.loads((out / "metrics.json").read_text(encoding="utf-8"))
    assert "finished before" in caplog.text
    assert (out / "predictions.jsonl").read_bytes() == first


def test_large_preset_runs_with_a_tiny_model(assets, tmp_path):
    """``--preset klue-large`` on NLI: the run script's large-model line (lr 5e-5, batch 32,
    warmup 0.2, 5 epochs, patience 5) with only the length and the step count overridden for
    the tiny model; dev is evaluated 4 times per epoch (here every step: 2 steps per epoch)."""
    from absl import flags
    from ml_collections import config_flags

    from finetune import main as ft_main

    argv = ["prog", "--config.max_seq_length=32", "--config.max_train_steps=3"]
    argv += ["--config.progress_bar=False", "--config.eval_batch_size=8"]
    fv = flags.FlagValues()
    common = str(REPO / "finetune" / "configs" / "common.py")
    config_flags.DEFINE_config_file("config", common, flag_values=fv, sys_argv=argv)
    fv(argv)
    overrides = config_flags.get_override_values(fv["config"])
    out = tmp_path / "large"
    model, klue = str(assets["bert"]), str(assets["klue"])
    assert (
        ft_main.run_all(fv.config, ["nli"], model, out, klue, 1, False, overrides, "klue-large")
        == 0
    )
    written = json.loads((out / "nli" / "config.json").read_text(encoding="utf-8"))
    cfg = written["config"]
    assert (cfg["learning_rate"], cfg["global_batch_size"], cfg["warmup_ratio"]) == (5e-5, 32, 0.2)
    assert (cfg["num_train_epochs"], cfg["early_stopping_patience"]) == (5, 5)
    # 48 train examples: 2 steps per epoch, 10 in all, warmup ceil(0.2 x 48 / 32 x 5) = 2.
    assert (written["total_steps"], written["warmup_steps"], written["run_steps"]) == (10, 2, 3)
    metrics = json.loads((out / "nli" / "metrics.json").read_text(encoding="utf-8"))
    assert [h["step"] for h in metrics["history"]] == [1, 2, 3]


def _run_and_kill(assets, output: Path, task: str, pattern: str, *extra: str) -> bool:
    proc = subprocess.Popen(
        _cmd(assets, output, task, *extra),
        cwd=REPO,
        env=_env(assets),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    killed = False
    assert proc.stderr is not None
    for line in proc.stderr:
        if re.search(pattern, line):
            os.kill(proc.pid, signal.SIGKILL)
            killed = True
            break
    proc.stderr.close()
    proc.wait(timeout=60)
    return killed


def test_sigkill_then_resume_equals_uninterrupted(assets, reference, tmp_path, caplog):
    from finetune import main as ft_main
    from finetune import modeling, trainer
    from finetune.tasks.base import get_task

    # Killed after step 3 was logged: the newest checkpoint is the one of step 2's evaluation.
    assert _run_and_kill(assets, tmp_path, "nli", r"\] step 3 ")
    assert not (tmp_path / "nli" / "manifest.json").exists()
    # The same run again (in this process, as `python -m finetune` would run it): resumes.
    caplog.set_level(logging.INFO)
    cfg = ft_main.task_config("nli", _base_config())
    loaded = modeling.load_pretrained(assets["bert"])
    trainer.run_task(cfg, get_task("nli"), loaded, tmp_path / "nli", str(assets["klue"]))
    assert re.search(r"nli: resumed from .* step 2", caplog.text), caplog.text[-2000:]
    ours, ref = tmp_path / "nli", reference / "nli"
    assert _train_rows(ours) == _train_rows(ref)
    mine, theirs = _read(ours / "metrics.json"), _read(ref / "metrics.json")
    assert mine["history"] == theirs["history"] and mine["scores"] == theirs["scores"]
    assert (ours / "predictions.jsonl").read_bytes() == (ref / "predictions.jsonl").read_bytes()
    for a, b in zip(_best_params(ours), _best_params(ref), strict=True):
        np.testing.assert_array_equal(a, b)


def test_eight_devices_match_one(assets, reference, tmp_path):
    err = _run(assets, tmp_path, "nli", devices=8)
    assert "8 devices" in err
    got, want = _train_rows(tmp_path / "nli"), _train_rows(reference / "nli")
    assert sorted(got) == sorted(want) == [1, 2, 3, 4, 5]
    for step in got:
        assert got[step]["train/loss"] == pytest.approx(want[step]["train/loss"], abs=1e-5)
    mine, theirs = (
        _read(tmp_path / "nli" / "metrics.json"),
        _read(reference / "nli" / "metrics.json"),
    )
    assert mine["devices"] == 8 and mine["best_step"] == theirs["best_step"]
    assert mine["scores"] == pytest.approx(theirs["scores"], abs=1e-6)


@pytest.mark.slow  # two process start-ups and compilations: ~3 min at load 12 on 2 cores
def test_two_processes_match_one(assets, reference, tmp_path):
    """``python -m finetune`` as two jax.distributed processes (one CPU device each, gloo) on
    the same global batch: the one-process run's losses, scores and predictions; one writer."""
    out = tmp_path / "two"

    def command(pid: int, port: int) -> list[str]:
        return _cmd(assets, out, "nli", *multihost.distributed_flags(port, pid))

    codes, errs = multihost.run(command, REPO, _env(assets), timeout=400)
    assert codes == [0, 0], "\n".join(e[-3000:] for e in errs)
    got, want = _train_rows(out / "nli"), _train_rows(reference / "nli")
    assert sorted(got) == sorted(want) == [1, 2, 3, 4, 5]  # logged once per step: process 0
    for step in got:
        assert got[step]["train/loss"] == pytest.approx(want[step]["train/loss"], abs=1e-5)
    mine, theirs = _read(out / "nli" / "metrics.json"), _read(reference / "nli" / "metrics.json")
    assert mine["devices"] == 2 and mine["best_step"] == theirs["best_step"]
    assert mine["scores"] == pytest.approx(theirs["scores"], abs=1e-6)
    lines = [(d / "nli" / "predictions.jsonl").read_text().splitlines() for d in (out, reference)]
    assert [json.loads(x) for x in lines[0]] == [json.loads(x) for x in lines[1]]
    # Only process 0 writes TensorBoard events (one events file) and the metric log.
    assert len(list((out / "nli" / "tensorboard").rglob("events.out.tfevents.*"))) == 1
    assert len(list((reference / "nli" / "tensorboard").rglob("events.out.tfevents.*"))) == 1


def test_seeds_give_mean_and_std(assets, tmp_path):
    from finetune import main as ft_main

    ft_main.run_all(_base_config(), ["ynat"], str(assets["bert"]), tmp_path, str(assets["klue"]), 2)
    summary = _read(tmp_path / "ynat" / "metrics.json")
    assert summary["seeds"] == [42, 43]
    values = [_read(tmp_path / "ynat" / f"seed_{s}" / "metrics.json")["scores"] for s in (42, 43)]
    f1 = [v["ynat_macro_f1"] for v in values]
    assert summary["mean"]["ynat_macro_f1"] == pytest.approx(np.mean(f1))
    assert summary["std"]["ynat_macro_f1"] == pytest.approx(np.std(f1, ddof=1))
    results = _read(tmp_path / "results.json")
    assert results["tasks"]["ynat"]["seeds"] == [42, 43]
    assert "±" in (tmp_path / "results.md").read_text(encoding="utf-8")


def _main_rc(argv: list[str], capsys) -> tuple[int, str]:
    """``python -m finetune ARGV`` in this process: (exit status, stderr)."""
    from finetune import main as ft_main

    ft_main.FLAGS.unparse_flags()
    ft_main.FLAGS(["finetune", *ft_main._normalise_argv(argv)])
    try:
        rc = ft_main.main(["finetune"])
    finally:
        ft_main.FLAGS.unparse_flags()
    return rc, capsys.readouterr().err


def test_bad_input_exits_2(assets, tmp_path, capsys):
    import shutil

    # Only --config: absl cannot re-register config override flags in one process.
    base = ["--output", str(tmp_path / "out"), "--data-dir", str(assets["klue"]), *TINY[:2]]
    # Not BERT/RoBERTa.
    gpt = tmp_path / "gpt"
    gpt.mkdir()
    (gpt / "config.json").write_text(json.dumps({"model_type": "gpt2"}))
    rc, err = _main_rc(["--task", "ynat", "--model", str(gpt), *base], capsys)
    assert rc == 2 and "gpt2" in err
    # A tokenizer with more tokens than the embedding has rows.
    big = tmp_path / "big"
    shutil.copytree(assets["bert"], big)
    for name in ("tokenizer.json", "vocab.txt"):
        (big / name).unlink()
    write_tokenizer(tmp_path / "bigtok", ["".join(chr(0xAC00 + i) for i in range(200))])
    for name in ("tokenizer.json", "vocab.txt"):
        shutil.copy(tmp_path / "bigtok" / name, big / name)
    rc, err = _main_rc(["--task", "ynat", "--model", str(big), *base], capsys)
    assert rc == 2 and "embedding" in err
    # A KLUE folder without the task's data.
    empty = tmp_path / "empty"
    empty.mkdir()
    argv = ["--task", "nli", "--model", str(assets["bert"]), *base, "--data-dir", str(empty)]
    rc, err = _main_rc(argv, capsys)
    assert rc == 2 and "nli" in err
    # A task config given for another task.
    argv = ["--task", "nli", "--model", str(assets["bert"]), "--output", str(tmp_path / "o")]
    rc, err = _main_rc([*argv, "--config", str(REPO / "finetune/configs/ynat.py")], capsys)
    assert rc == 2 and "config of task 'ynat'" in err
    assert not (tmp_path / "out" / "nli").exists()
