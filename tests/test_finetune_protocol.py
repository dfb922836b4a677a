"""The KLUE-baseline protocol: presets traced to run_all.sh, per-task fields inside
``--task all``, the warmup formula, dev evaluation 4 times per epoch, early stopping.

Pure config and step-plan code: no JAX compilation, well under a second each."""

from __future__ import annotations

import importlib
import shlex
from pathlib import Path

import pytest
from absl import flags
from ml_collections import config_flags

from finetune import main as ft_main
from finetune import trainer
from finetune.configs import presets
from finetune.steps import eval_due, plan_steps
from finetune.tasks.base import ALL_TASKS

COMMON = str(Path(ft_main.__file__).parent / "configs" / "common.py")


def parsed(*args: str, config: str = COMMON):
    """(config, overrides) as ``python -m finetune --config CONFIG ARGS`` parses them."""
    fv = flags.FlagValues()
    argv = ["prog", f"--config={config}", *args]
    config_flags.DEFINE_config_file("config", COMMON, flag_values=fv, sys_argv=argv)
    fv(argv)
    return fv.config, config_flags.get_override_values(fv["config"])


def test_each_preset_value_is_on_its_run_all_line_or_a_code_default():
    """Every value of both presets is either ``--option value`` of the quoted run_all.sh line
    or the baseline code's default for an option the line leaves unset."""
    for preset in presets.PRESETS:
        for task in ALL_TASKS:
            line, text = presets.RUN_ALL_LINES[preset][task]
            words = shlex.split(text)
            for option, (value, source) in presets.baseline_options(preset, task).items():
                if source == f"run_all.sh:{line}":
                    assert f"--{option}" in words, (preset, task, option)
                    if f"--{option}" not in presets.BEHAVIOUR_FLAGS:
                        assert words[words.index(f"--{option}") + 1] == value
                else:
                    assert f"--{option}" not in words and presets.CODE_DEFAULTS[option][1] == source


def test_large_preset_has_the_run_scripts_large_model_settings():
    large = {task: presets.preset_fields("klue-large", task) for task in ALL_TASKS}
    assert (large["ner"]["learning_rate"], large["ner"]["global_batch_size"]) == (1e-5, 8)
    assert large["ner"]["warmup_ratio"] == 0.0 and large["ner"]["early_stopping_patience"] == 5
    re_large = large["re"]
    assert (re_large["learning_rate"], re_large["num_train_epochs"]) == (2e-5, 10)
    assert (re_large["global_batch_size"], re_large["warmup_ratio"]) == (16, 0.2)
    assert large["dp"]["num_train_epochs"] == 15 and large["dp"]["metric_key"] == "dp_uas_macro_f1"
    wos = large["wos"]
    assert (wos["learning_rate"], wos["global_batch_size"], wos["grad_accum_steps"]) == (
        2e-5,
        16,
        2,
    )
    assert wos["eval_batch_size"] == 8 and large["sts"]["learning_rate"] == 2e-5
    assert large["ynat"]["warmup_ratio"] == 0.2 and large["nli"]["warmup_ratio"] == 0.2


def test_task_configs_hold_the_base_preset():
    """``--preset klue-base`` (the default) changes no task config: the configs take those
    values from the preset. NER and MRC warm up for 0 steps (their lines set no warmup)."""
    for task in ALL_TASKS:
        own = importlib.import_module(f"finetune.configs.{task}").get_config()
        for field, value in presets.preset_fields("klue-base", task).items():
            assert own[field] == value, (task, field)
        base, overrides = parsed()
        assert ft_main.task_config(task, base, overrides, "klue-base") == own
    for task in ("ner", "mrc"):
        assert importlib.import_module(f"finetune.configs.{task}").get_config().warmup_ratio == 0
    patience = {
        t: presets.preset_fields("klue-base", t)["early_stopping_patience"] for t in ALL_TASKS
    }
    assert {t for t, p in patience.items() if p == 5} == {"sts", "nli", "ner"}


def test_by_task_sets_any_field_of_one_task_and_wins_over_the_common_value():
    base, overrides = parsed(
        "--config.learning_rate=3e-5",
        "--config.by_task.ner.learning_rate=1e-5",
        "--config.by_task.ner.global_batch_size=8",
        "--config.by_task.wos.grad_accum_steps=2",
        "--config.by_task.re.task_options.representation=mention_mean",
    )
    ner = ft_main.task_config("ner", base, overrides)
    assert (ner.learning_rate, ner.global_batch_size) == (1e-5, 8)
    nli = ft_main.task_config("nli", base, overrides)
    assert (nli.learning_rate, nli.global_batch_size) == (3e-5, 32)
    assert ft_main.task_config("wos", base, overrides).grad_accum_steps == 2
    re_cfg = ft_main.task_config("re", base, overrides)
    assert re_cfg.task_options.representation == "mention_mean" and re_cfg.learning_rate == 3e-5
    # Setting a field to its own default under by_task still counts (it is explicit).
    base, overrides = parsed("--config.max_seq_length=64", "--config.by_task.re.max_seq_length=256")
    assert ft_main.task_config("re", base, overrides).max_seq_length == 256
    assert ft_main.task_config("ner", base, overrides).max_seq_length == 64


def test_preset_lies_under_what_the_user_set():
    base, overrides = parsed(
        "--config.by_task.ner.learning_rate=2e-5", "--config.max_seq_length=32"
    )
    ner = ft_main.task_config("ner", base, overrides, "klue-large")
    assert (ner.learning_rate, ner.global_batch_size, ner.max_seq_length) == (2e-5, 8, 32)
    re_cfg = ft_main.task_config("re", base, overrides, "klue-large")
    assert (re_cfg.learning_rate, re_cfg.num_train_epochs, re_cfg.max_seq_length) == (2e-5, 10, 32)
    # An explicit task config (here with its :tiny changes) also keeps its changes over the preset.
    ner_file = str(Path(COMMON).parent / "ner.py")
    base, overrides = parsed(config=f"{ner_file}:tiny")
    ner = ft_main.task_config("ner", base, overrides, "klue-large")
    assert (ner.learning_rate, ner.global_batch_size, ner.max_seq_length) == (1e-4, 16, 64)
    assert ner.warmup_ratio == 0.0 and ner.early_stopping_patience == 5
    with pytest.raises(ft_main.UsageError, match="preset"):
        ft_main.task_config("ner", base, overrides, "klue-huge")


def test_warmup_is_the_baselines_ceiling_of_ratio_times_steps():
    cfg = {"global_batch_size": 32, "num_train_epochs": 3, "max_train_steps": 0}
    # KLUE-RE train: 32,470 examples; ceil(0.1 x 32470 / 32 x 3) = ceil(304.4) = 305.
    plan = plan_steps({**cfg, "warmup_ratio": 0.1}, 32470)
    assert (plan["steps_per_epoch"], plan["total_steps"], plan["warmup_steps"]) == (1015, 3045, 305)
    assert plan_steps({**cfg, "warmup_ratio": 0.0}, 32470)["warmup_steps"] == 0


def test_dev_is_evaluated_four_times_per_epoch_as_lightning_does():
    """``val_check_interval=0.25``: every int(0.25 x steps per epoch) steps of each epoch
    (10 steps: 2, 4, 6, 8, 10, the count restarting each epoch), and after the last step."""
    cfg = {"global_batch_size": 1, "num_train_epochs": 2, "max_train_steps": 0, "warmup_ratio": 0}
    plan = plan_steps({**cfg, "eval_every_epochs": 0.25}, 10)
    assert [s for s in range(1, 21) if eval_due(s, plan)] == [2, 4, 6, 8, 10, 12, 14, 16, 18, 20]
    plan = plan_steps({**cfg, "eval_every_epochs": 0.25}, 13)  # int(3.25) = 3: 3, 6, 9, 12
    assert [s for s in range(1, 27) if eval_due(s, plan)] == [3, 6, 9, 12, 16, 19, 22, 25, 26]
    plan = plan_steps({**cfg, "eval_every_epochs": 1.0}, 13)
    assert [s for s in range(1, 27) if eval_due(s, plan)] == [13, 26]
    plan = plan_steps({**cfg, "eval_every_steps": 5}, 13)
    assert [s for s in range(1, 27) if eval_due(s, plan)] == [5, 10, 15, 20, 25, 26]


def test_early_stopping_counts_evaluations_since_the_strictly_better_one():
    def since(values):
        return trainer.evaluations_since_best([{"m": v} for v in values], "m")

    assert since([0.5]) == 0
    assert since([0.5, 0.6, 0.6, 0.4]) == 2  # an equal value is no improvement (Lightning)
    assert since([0.5, 0.4, 0.3, 0.2, 0.1, 0.0]) == 5
    assert since([0.5, 0.4, 0.7]) == 0
    assert since([float("nan"), 0.1, float("nan")]) == 1  # NaN never improves


def test_ynat_trained_on_the_dacon_copy_is_not_comparable(tmp_path):
    """The official dev file with the DACON train copy (36,547 of 45,678 titles): used, and
    marked not comparable; with the official train file it is comparable."""
    import shutil

    from finetune.tasks.base import load_klue_splits

    fixtures = Path(__file__).parent / "fixtures" / "klue" / "ynat-v1.1"
    shutil.copytree(fixtures, tmp_path / "ynat-v1.1")
    train_file = tmp_path / "ynat-v1.1" / "ynat-v1.1_train.json"
    shutil.copy(train_file, tmp_path / "ynat-v1.1" / "ynat-v1.1_dev.json")  # a stand-in dev
    official = load_klue_splits("ynat", tmp_path, 0.2)
    assert official.comparable and official.note == ""
    train_file.unlink()
    dacon = tmp_path / "ynat-v1.1-dacon"
    dacon.mkdir()
    names = "IT과학 경제 사회 생활문화 세계 스포츠 정치".split()
    (dacon / "topic_dict.csv").write_text(
        "topic,topic_idx\n" + "".join(f"{n},{i}\n" for i, n in enumerate(names)), encoding="utf-8"
    )
    rows = "".join(f"{i},제목 {i},{i % 7}\n" for i in range(5))
    (dacon / "train_data.csv").write_text("index,title,topic_idx\n" + rows, encoding="utf-8")
    (dacon / "test_data.csv").write_text("index,title\n5,무표지 제목\n", encoding="utf-8")
    splits = load_klue_splits("ynat", tmp_path, 0.2)
    assert len(splits.train) == 5 and splits.dev_source == official.dev_source
    assert not splits.comparable and splits.train_source.startswith("dacon:")
    assert "not comparable to the paper" in splits.note and "of the official 45678" in splits.note
