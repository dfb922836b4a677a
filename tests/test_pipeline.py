"""pipeline/: the demo chain and the ablation runner end to end, and the one-way imports.

The two runs are tiny (embedded corpus, embedded KLUE fixtures, 2 pretraining steps, a few
fine-tuning examples): they check that every stage runs and writes what the next one and the
report read, not any figure.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
STAGE_PACKAGES = ("corpus", "tokenizer", "pretrain", "finetune", "tpu", "bench")
TASKS = ("ynat", "sts", "nli", "ner", "re", "dp", "mrc", "wos")
#: Fine-tuning at smoke size: a few examples, one short epoch.
TINY_FT = [
    "--finetune-set", "max_train_examples=16", "--finetune-set", "max_eval_examples=16",
    "--finetune-set", "global_batch_size=8", "--finetune-set", "max_seq_length=48",
]  # fmt: skip


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_no_stage_package_imports_pipeline():
    offenders = [
        str(p.relative_to(REPO))
        for pkg in STAGE_PACKAGES
        for p in sorted((REPO / pkg).rglob("*.py"))
        if "pipeline" in _imports(p)
    ]
    assert offenders == []
    # and the check itself sees an import when there is one
    assert "pipeline" in _imports(REPO / "pipeline" / "ablate.py")


def _run(args: list[str], cwd: Path = REPO) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [sys.executable, "-m", *args], cwd=cwd, capture_output=True, text=True, timeout=3600
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    return proc


@pytest.mark.slow
@pytest.mark.long  # three tiny pretraining + fine-tuning runs, ~3 min on 2 idle cores
def test_ablation_runs_both_arms_with_the_same_seeds(tmp_path):
    out = tmp_path / "ablation"
    _run(["pipeline.ablate", "--ablation", "tokenizer", "--scale", "demo", "--embedded",
          "--seeds", "2", "--steps", "2", "--tasks", "ynat", "--workers", "1",
          "--output", str(out), *TINY_FT])  # fmt: skip
    table = json.loads((out / "ablation.json").read_text())
    arms = {r["arm"]: r for r in table["rows"]}
    assert list(arms) == ["morpheme-bpe", "bpe", "random init"]
    assert arms["morpheme-bpe"]["tokenizer"] == "morpheme-bpe" and arms["bpe"]["tokenizer"] == "bpe"
    for metric in ("ynat_macro_f1",):
        seeds = {name: r["metrics"][metric]["seeds"] for name, r in arms.items()}
        assert seeds["morpheme-bpe"] == seeds["bpe"] == seeds["random init"] == [42, 43], seeds
    # the arms differ only in the tokenizer: same corpus, same pretraining command otherwise
    state = json.loads((out / "pipeline.json").read_text())["stages"]
    a = state["pretrain[morpheme-bpe-clean]"]["command"]
    b = state["pretrain[bpe-clean]"]["command"]
    assert a.replace("morpheme-bpe-clean", "X") == b.replace("bpe-clean", "X")
    assert "learning_rate=0.0" in state["pretrain[morpheme-bpe-clean-random-init]"]["command"]
    md = (out / "ablation.md").read_text()
    assert "| morpheme-bpe |" in md and "| bpe |" in md and "| random init |" in md
    assert "YNAT macro F1" in md and "WOS JGA" in md and "±" in md
    assert (out / "ablation.png").read_bytes()[:4] == b"\x89PNG"


def _runner_script(out: Path, marker: Path) -> str:
    return f"""
import sys
from pathlib import Path
from pipeline.stages import Runner, stop_on_sigterm
stop_on_sigterm()
r = Runner(Path({str(out)!r}), total=3)
r.run("first", [sys.executable, "-c", "open({str(out / "first.txt")!r}, 'w').write('1')"],
      done=Path({str(out / "first.txt")!r}))
sleeper = (
    "import signal, sys, time\\n"
    "def stop(*a):\\n"
    "    open({str(marker)!r}, 'w').write('stopped cleanly')\\n"
    "    sys.exit(3)\\n"
    "signal.signal(signal.SIGTERM, stop)\\n"
    "open({str(marker)!r} + '.started', 'w').write('')\\n"
    "time.sleep(120)\\n"
)
try:
    r.run("second", [sys.executable, "-c", sleeper])
except KeyboardInterrupt:
    sys.exit(130)
"""


def test_runner_reuses_finished_stages_and_passes_sigterm_to_the_stage(tmp_path):
    import signal
    import time

    out, marker = tmp_path / "run", tmp_path / "marker"
    script = _runner_script(out, marker)
    proc = subprocess.Popen(
        [sys.executable, "-c", script], cwd=REPO, stdout=subprocess.PIPE, text=True
    )
    deadline = time.time() + 120
    while not Path(str(marker) + ".started").exists() and time.time() < deadline:
        time.sleep(0.2)
    os.kill(proc.pid, signal.SIGTERM)
    stdout, _ = proc.communicate(timeout=120)
    assert proc.returncode == 130, stdout
    assert marker.read_text() == "stopped cleanly"  # the stage got SIGTERM, not SIGKILL
    state = json.loads((out / "pipeline.json").read_text())["stages"]
    assert state["first"]["status"] == "done" and "second" not in state
    assert "$ python -c" in stdout
    # rerun: the finished stage is reused without starting it, the stopped one starts again
    Path(str(marker) + ".started").unlink()
    marker.unlink()
    proc = subprocess.Popen(
        [sys.executable, "-c", script], cwd=REPO, stdout=subprocess.PIPE, text=True
    )
    while not Path(str(marker) + ".started").exists() and time.time() < deadline + 120:
        time.sleep(0.2)
    os.kill(proc.pid, signal.SIGTERM)
    stdout, _ = proc.communicate(timeout=120)
    assert "first              reused" in stdout
    assert marker.read_text() == "stopped cleanly"


@pytest.mark.parametrize("module", ["pipeline.demo", "pipeline.ablate", "bench"])
def test_help(module):
    proc = subprocess.run(
        [sys.executable, "-m", module, "--help"], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "usage" in proc.stdout.lower()


def test_stage_configs_are_found_from_outside_the_repository(tmp_path, monkeypatch):
    """`pipeline.ablate` run from the user's work folder passed `pretrain/configs/tiny.py`
    to `pretrain.main`, which looked for it there and failed (OSError, exit 1)."""
    from pipeline.stages import REPO_ROOT, config_file

    monkeypatch.chdir(tmp_path)
    found = config_file("pretrain/configs/tiny.py")
    assert found == str(REPO_ROOT / "pretrain" / "configs" / "tiny.py") and Path(found).is_file()
    tiny = config_file("finetune/configs/common.py:tiny")
    assert tiny.endswith(":tiny") and Path(tiny.removesuffix(":tiny")).is_file()
    own = tmp_path / "my.py"
    own.write_text("")
    assert config_file("my.py") == "my.py"  # the user's own config, relative to where they are
    monkeypatch.chdir(REPO_ROOT)
    assert config_file("pretrain/configs/tiny.py") == "pretrain/configs/tiny.py"


def test_a_user_corpus_needs_existing_inputs_and_separate_held_out_text(tmp_path):
    """`pipeline.ablate --corpus ... --held-out ...`: the paper's ablations on one's own corpus
    (MODU for the paper); the held-out text must be given and must not be training text."""
    from pipeline import ablate, inputs

    train, held = tmp_path / "NIKL_NEWSPAPER", tmp_path / "held.txt"
    train.mkdir()
    held.write_text("따로 둔 문장이다.\n", encoding="utf-8")
    c = inputs.user_corpus([str(train)], [str(held)])
    assert (c.train, c.held_out, c.embedded) == ([str(train)], [str(held)], False)
    assert "user corpus" in c.description and str(held) in c.description
    with pytest.raises(ValueError, match="--corpus needs --held-out"):
        inputs.user_corpus([str(train)], [])
    with pytest.raises(ValueError, match="repeats --corpus"):
        inputs.user_corpus([str(train), str(held)], [str(held)])
    with pytest.raises(FileNotFoundError, match="nope"):
        inputs.user_corpus([str(tmp_path / "nope")], [str(held)])
    base = ["--ablation", "tokenizer", "--output", str(tmp_path / "o")]
    with pytest.raises(SystemExit, match="--held-out goes with --corpus"):
        ablate.main([*base, "--held-out", str(held)])
    with pytest.raises(SystemExit, match="--corpus needs --held-out"):
        ablate.main([*base, "--corpus", str(train)])
