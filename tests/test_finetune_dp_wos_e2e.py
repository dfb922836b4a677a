"""DP and WoS end to end on CPU: a tiny random encoder fine-tuned a few steps by the shared
trainer through the CLI's `finetune.main.run_all` (the path of ``--task dp,wos``), predictions
written, and ``python -m finetune.evaluate`` printing the trainer's numbers on them.

The KLUE folder is built from the fixtures (the train files double as dev); the parser is
shrunk through the common config's per-task options (as
``--config.by_task.dp.task_options.lstm_size=...``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from corpus import klue
from finetune import evaluate, trainer
from tests.finetune_fixtures import write_tiny_model, write_tokenizer

FIXTURES = Path(__file__).parent / "fixtures" / "klue"
SOURCES = {
    "dp": ("klue-dp-v1.1", "klue-dp-v1.1_train.tsv", "klue-dp-v1.1_dev.tsv"),
    "wos": ("wos-v1.1", "wos-v1.1_train.json", "wos-v1.1_dev.json"),
}


@pytest.fixture(scope="module")
def klue_dir(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("klue")
    for folder, train, dev in SOURCES.values():
        shutil.copytree(FIXTURES / folder, root / folder)
        shutil.copy(FIXTURES / folder / train, root / folder / dev)
    return root


@pytest.fixture(scope="module")
def finetuned(tmp_path_factory, klue_dir, unoptimised_compilation) -> Path:
    from finetune import main as ft_main
    from finetune.configs import common

    texts = [w.word_form for s in klue.load("dp", "train", klue_dir) for w in s.words]
    texts += [t.text for d in klue.load("wos", "train", klue_dir) for t in d.turns]
    onto = klue.ontology(klue_dir)
    texts += [v for vals in onto.slots.values() for v in vals] + list(onto.slots) + ["none"]
    base_dir = tmp_path_factory.mktemp("model")
    # One layer: compilation dominates these runs, and one layer exercises every path.
    tok = write_tokenizer(base_dir / "tok", texts)
    model = write_tiny_model(base_dir / "hf", tok, num_layers=1)
    base = common.get_config("tiny")
    base.max_seq_length = 64
    base.global_batch_size = 2
    base.eval_batch_size = 4
    base.max_train_steps = 2
    base.progress_bar = False
    base.log_every_steps = 1
    # The parser at test size, as --config.by_task.dp.task_options.lstm_size=16 ...
    base.by_task.dp.task_options.update(lstm_size=16, arc_space=16, type_space=8, pos_dim=8)
    out = tmp_path_factory.mktemp("runs")
    ft_main.run_all(base, list(SOURCES), str(model), out, str(klue_dir), 1)
    written = json.loads((out / "dp" / "config.json").read_text())["config"]
    assert written["task_options"]["lstm_size"] == 16 and "by_task" not in written
    return out


@pytest.mark.parametrize("task_name", list(SOURCES))
def test_task_trains_and_its_predictions_score(task_name, klue_dir, finetuned, capsys):
    out = finetuned / task_name
    written = json.loads((out / trainer.METRICS).read_text())
    assert written["num_train_examples"] > 0 and written["best_step"] is not None
    preds = [json.loads(line) for line in (out / trainer.PREDICTIONS).read_text().splitlines()]
    gold = klue.load(task_name, "dev", klue_dir)
    if task_name == "dp":
        assert [len(p["heads"]) for p in preds] == [len(s.words) for s in gold]
    else:
        assert len(preds) == sum(len(d.user_turns()) for d in gold)
    capsys.readouterr()
    argv = ["--task", task_name, "--predictions", str(out / trainer.PREDICTIONS)]
    assert evaluate.main([*argv, "--gold", klue.locate(task_name, "dev", klue_dir)]) == 0
    printed = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert printed.keys() == written["scores"].keys()
    for key, value in printed.items():
        assert value == pytest.approx(written["scores"][key], nan_ok=True), key
    table = (finetuned / "results.md").read_text()
    assert ("DP UAS" if task_name == "dp" else "DST JGA") in table


@pytest.mark.parametrize("task_name", list(SOURCES))
def test_predict_on_the_dev_file_gives_the_trainers_predictions(
    task_name, klue_dir, finetuned, tmp_path, capsys
):
    """``python -m finetune predict`` with the run's best/ on the dev file (official format)
    writes what the trainer wrote for its best checkpoint, which `finetune.evaluate` scores."""
    from finetune import predict

    out = finetuned / task_name
    dev = klue.locate(task_name, "dev", klue_dir)
    preds = tmp_path / "preds.jsonl"
    argv = ["--task", task_name, "--model", str(out / trainer.BEST_DIR), "--input", dev]
    argv += ["--output", str(preds), "--data-dir", str(klue_dir), "--batch-size=4"]
    assert predict.main(argv) == 0
    assert preds.read_text() == (out / trainer.PREDICTIONS).read_text()
    capsys.readouterr()
    assert evaluate.main(["--task", task_name, "--predictions", str(preds), "--gold", dev]) == 0
    printed = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    written = json.loads((out / trainer.METRICS).read_text())["scores"]
    assert printed == pytest.approx(written, nan_ok=True)


def test_command_line_overrides_reach_every_task_config():
    """``--config.max_seq_length=128`` with the common config must reach RE (own default 256)
    even though 128 is the common default; fields left alone keep each task's own value."""
    from absl import flags
    from ml_collections import config_flags

    from finetune import main as ft_main

    fv = flags.FlagValues()
    common = str(Path(ft_main.__file__).parent / "configs" / "common.py")
    argv = ["prog", "--config.max_seq_length=128", "--config.mesh.fsdp=1"]
    config_flags.DEFINE_config_file("config", common, flag_values=fv, sys_argv=argv)
    fv(argv)
    overrides = config_flags.get_override_values(fv["config"])
    assert ft_main.task_config("re", fv.config, overrides).max_seq_length == 128
    assert ft_main.task_config("re", fv.config).max_seq_length == 256  # no override given
    assert ft_main.task_config("dp", fv.config, overrides).num_train_epochs == 10


def test_common_config_sets_one_tasks_options():
    """``--task all`` with the common config: ``by_task.re.task_options.representation`` reaches
    RE's ``task_options`` (and its task object) only; other tasks keep their own options, and
    a task's config carries no copy of the per-task block (its run hash is unchanged)."""
    import importlib

    from absl import flags
    from ml_collections import config_flags

    from finetune import main as ft_main

    fv = flags.FlagValues()
    common = str(Path(ft_main.__file__).parent / "configs" / "common.py")
    argv = [
        "prog",
        f"--config={common}:tiny",
        "--config.by_task.re.task_options.representation=mention_mean",
        "--config.by_task.dp.task_options.tree_decoding=True",
    ]
    config_flags.DEFINE_config_file("config", common, flag_values=fv, sys_argv=argv)
    fv(argv)
    overrides = config_flags.get_override_values(fv["config"])
    re_cfg = ft_main.task_config("re", fv.config, overrides)
    assert re_cfg.task_options.to_dict() == {"representation": "mention_mean"}
    assert ft_main.make_task("re", re_cfg).representation == "mention_mean"
    dp_cfg = ft_main.task_config("dp", fv.config, overrides)
    assert dp_cfg.task_options.tree_decoding is True
    assert dp_cfg.task_options.lstm_size == 768  # left alone: DP's own default
    for task in ("ynat", "mrc", "wos"):
        own = importlib.import_module(f"finetune.configs.{task}").get_config().to_dict()
        got = ft_main.task_config(task, fv.config, overrides).to_dict()
        assert {k: v for k, v in got.items() if k not in own} == {}
        assert got.get("task_options") == own.get("task_options"), task
    # A misspelt option (or a task without options, e.g. ynat) is refused when parsing.
    for wrong in ("re.task_options.representaton=cls", "ynat.task_options.representation=cls"):
        bad = flags.FlagValues()
        argv = ["prog", f"--config.by_task.{wrong}"]
        with pytest.raises((AttributeError, KeyError), match="task_options|representaton"):
            config_flags.DEFINE_config_file("config", common, flag_values=bad, sys_argv=argv)
            bad(argv)
