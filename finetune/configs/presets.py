"""The KLUE-baseline's run script as config values: ``--preset klue-base|klue-large``.

Every hyperparameter the baseline fine-tunes with comes from one line of its ``run_all.sh``
(KLUE-benchmark/KLUE-baseline at `BASELINE_COMMIT`), or, where that line leaves an option
unset, from the option's default in the baseline code. This module holds those lines' options
verbatim (`RUN_ALL_LINES`, keyed by preset and task, with the line number) and the code
defaults with the file and line they are defined at (`CODE_DEFAULTS`), and turns them into our
config fields (`preset_fields`). The task configs (``finetune/configs/<task>.py``) take their
baseline values from the ``klue-base`` preset, so the script line is the one source of each:
``--preset klue-base`` (the default) changes nothing, ``--preset klue-large`` sets the
roberta-large line of every task::

    python -m finetune --task all --model ~/models/klue-roberta-large --output runs/ft-large \\
        --preset klue-large

``klue-base`` is the line of the loop over klue/roberta-small, klue/roberta-base and
klue/bert-base (for MRC the loop is over the three RoBERTa models; the bert-base MRC line, 69,
differs only in ``--max_seq_length 512``); ``klue-large`` the klue/roberta-large line (MRC: the
loop's line again). A value given in the config file or on the command line (including
``--config.by_task.<task>.FIELD``) overrides the preset's. ``python -m finetune.configs.presets``
prints every preset value with its source.
"""

from __future__ import annotations

import shlex
from typing import Any

BASELINE_REPO = "KLUE-benchmark/KLUE-baseline"
BASELINE_COMMIT = "8a03c9447e4c225e806877a84242aea11258c790"
PRESETS = ("klue-base", "klue-large")
DEFAULT_PRESET = "klue-base"

#: The run_klue.py options that a run_all.sh line may leave unset: (default, where it is set).
#: ``warmup_ratio``: ``--warmup_ratio`` and ``--warmup_steps`` default to None and
#: ``num_warmup_steps()`` then returns 0 warmup steps.
CODE_DEFAULTS: dict[str, tuple[str, str]] = {
    "learning_rate": ("5e-5", "klue_baseline/models/lightning_base.py:254"),
    "weight_decay": ("0.0", "klue_baseline/models/lightning_base.py:263"),
    "adam_epsilon": ("1e-8", "klue_baseline/models/lightning_base.py:264"),
    "warmup_ratio": ("0", "klue_baseline/models/lightning_base.py:265-266,187-195"),
    "num_train_epochs": ("4", "klue_baseline/models/lightning_base.py:267"),
    "train_batch_size": ("32", "klue_baseline/data/base.py:168"),
    "eval_batch_size": ("64", "klue_baseline/data/base.py:169"),
    "max_grad_norm": ("1.0", "run_klue.py:56"),
    "gradient_accumulation_steps": ("1", "run_klue.py:57-62"),
    "seed": ("42", "run_klue.py:64"),
    "patience": ("5", "run_klue.py:66-71"),
}

#: (line of run_all.sh, its options after ``--model_name_or_path``), without the output/data
#: paths and ``--gpus``/``--num_workers`` (hardware). Copied character for character.
RUN_ALL_LINES: dict[str, dict[str, tuple[int, str]]] = {
    "klue-base": {
        "ynat": (
            12,
            "--learning_rate 5e-5 --train_batch_size 32 --warmup_ratio 0.1 "
            "--max_seq_length 128 --patience 100000 --metric_key macro_f1",
        ),
        "sts": (
            21,
            "--learning_rate 5e-5 --num_train_epochs 4 --train_batch_size 32 "
            "--warmup_ratio 0.1 --max_grad_norm 1.0 --weight_decay 0 --max_seq_length 128 "
            "--metric_key pearsonr",
        ),
        "nli": (
            30,
            "--learning_rate 5e-5 --num_train_epochs 5 --train_batch_size 32 "
            "--max_grad_norm 1.0 --warmup_ratio 0.1 --weight_decay 0 --max_seq_length 128 "
            "--metric_key accuracy",
        ),
        "ner": (39, "--num_train_epochs 3 --max_seq_length 510 --metric_key character_macro_f1"),
        "re": (
            48,
            "--learning_rate 5e-5 --num_train_epochs 3 --train_batch_size 32 "
            "--warmup_ratio 0.1 --patience 10000 --max_seq_length 256 --metric_key micro_f1",
        ),
        "dp": (
            57,
            "--learning_rate 5e-5 --num_train_epochs 10 --warmup_ratio 0.1 "
            "--train_batch_size 32 --patience 10000 --max_seq_length 256 "
            "--metric_key las_macro_f1",
        ),
        "mrc": (
            66,
            "--learning_rate 3e-5 --num_train_epochs 5 --train_batch_size 16 "
            "--patience 100000 --max_seq_length 510 --metric_key rouge_w",
        ),
        "wos": (
            75,
            "--learning_rate 3e-5 --num_train_epochs 5 --train_batch_size 16 "
            "--eval_batch_size 16 --max_seq_length 510 --gradient_accumulation_steps 1 "
            "--warmup_ratio 0.1 --weight_decay 0.01 --max_grad_norm 1.0 --patience 100000 "
            "--parallel_decoding --metric_key slot_micro_f1 --truncate",
        ),
    },
    "klue-large": {
        "ynat": (
            15,
            "--learning_rate 5e-5 --train_batch_size 32 --warmup_ratio 0.2 "
            "--max_seq_length 128 --patience 100000 --metric_key macro_f1",
        ),
        "sts": (
            24,
            "--learning_rate 2e-5 --num_train_epochs 4 --train_batch_size 32 "
            "--warmup_ratio 0.1 --max_grad_norm 1.0 --weight_decay 0 --max_seq_length 128 "
            "--metric_key pearsonr",
        ),
        "nli": (
            33,
            "--learning_rate 5e-5 --num_train_epochs 5 --train_batch_size 32 "
            "--max_grad_norm 1.0 --warmup_ratio 0.2 --weight_decay 0 --max_seq_length 128 "
            "--metric_key accuracy",
        ),
        "ner": (
            42,
            "--learning_rate 1e-5 --num_train_epochs 3 --train_batch_size 8 "
            "--max_seq_length 510 --metric_key character_macro_f1",
        ),
        "re": (
            51,
            "--learning_rate 2e-5 --num_train_epochs 10 --train_batch_size 16 "
            "--warmup_ratio 0.2 --patience 10000 --max_seq_length 256 --metric_key micro_f1",
        ),
        "dp": (
            60,
            "--learning_rate 5e-5 --num_train_epochs 15 --warmup_ratio 0.2 "
            "--train_batch_size 32 --patience 10000 --max_seq_length 256 "
            "--metric_key uas_macro_f1",
        ),
        "mrc": (
            66,
            "--learning_rate 3e-5 --num_train_epochs 5 --train_batch_size 16 "
            "--patience 100000 --max_seq_length 510 --metric_key rouge_w",
        ),
        "wos": (
            78,
            "--learning_rate 2e-5 --num_train_epochs 5 --train_batch_size 8 "
            "--eval_batch_size 8 --max_seq_length 510 --gradient_accumulation_steps 2 "
            "--warmup_ratio 0.1 --weight_decay 0.01 --max_grad_norm 1.0 --patience 100000 "
            "--parallel_decoding --metric_key slot_micro_f1 --truncate",
        ),
    },
}

#: The baseline's ``--metric_key`` (``valid/<name>``) as our metric name, per task.
METRIC_NAMES: dict[str, dict[str, str]] = {
    "ynat": {"macro_f1": "ynat_macro_f1"},
    "sts": {"pearsonr": "sts_pearsonr"},
    "nli": {"accuracy": "nli_accuracy"},
    "ner": {"character_macro_f1": "ner_char_f1"},
    "re": {"micro_f1": "re_micro_f1"},
    "dp": {"las_macro_f1": "dp_las_macro_f1", "uas_macro_f1": "dp_uas_macro_f1"},
    "mrc": {"rouge_w": "mrc_rouge_w"},
    "wos": {"slot_micro_f1": "wos_slot_f1"},
}

#: Switches of a line that are behaviours, not values: what our code does about each.
BEHAVIOUR_FLAGS = {
    "--parallel_decoding": "WoS decodes every slot in parallel (always, finetune/tasks/wos.py)",
    "--truncate": "WoS truncates the dialogue history from the left (always)",
}


def code_default_fields() -> dict[str, Any]:
    """Our config fields that `CODE_DEFAULTS` set (what a run_all.sh line leaves unset)."""
    o = {name: value for name, (value, _) in CODE_DEFAULTS.items()}
    return {
        "seed": int(o["seed"]),
        "learning_rate": float(o["learning_rate"]),
        "num_train_epochs": int(o["num_train_epochs"]),
        "global_batch_size": int(o["train_batch_size"]) * int(o["gradient_accumulation_steps"]),
        "grad_accum_steps": int(o["gradient_accumulation_steps"]),
        "eval_batch_size": int(o["eval_batch_size"]),
        "warmup_ratio": float(o["warmup_ratio"]),
        "weight_decay": float(o["weight_decay"]),
        "max_grad_norm": float(o["max_grad_norm"]),
        "adam_eps": float(o["adam_epsilon"]),
        "early_stopping_patience": int(o["patience"]),
    }


def baseline_options(preset: str, task: str) -> dict[str, tuple[str, str]]:
    """Every run_klue.py option of ``task``'s line in ``preset``: name -> (value, source),
    source ``run_all.sh:LINE`` for a value on the line, else the code default's file:line."""
    if preset not in RUN_ALL_LINES:
        raise ValueError(f"unknown preset {preset!r} (known: {', '.join(PRESETS)})")
    line, text = RUN_ALL_LINES[preset][task]
    options = dict(CODE_DEFAULTS)
    words = shlex.split(text)
    i = 0
    while i < len(words):
        name = words[i]
        if not name.startswith("--"):
            raise ValueError(f"run_all.sh:{line}: expected an option, got {name!r}")
        if name in BEHAVIOUR_FLAGS:
            options[name[2:]] = ("true", f"run_all.sh:{line}")
            i += 1
            continue
        options[name[2:]] = (words[i + 1], f"run_all.sh:{line}")
        i += 2
    return options


def preset_fields(preset: str, task: str) -> dict[str, Any]:
    """Our config fields for ``task`` under ``preset`` (see `field_sources` for the trace)."""
    return {field: value for field, (value, _) in field_sources(preset, task).items()}


def field_sources(preset: str, task: str) -> dict[str, tuple[Any, str]]:
    """Config field -> (value, source) for ``task`` under ``preset``. ``global_batch_size`` is
    the rows of one optimiser update: ``train_batch_size`` x ``gradient_accumulation_steps``
    (the baseline's batch is per step of the data loader; on line 51, RE large, two GPUs in
    Lightning's ``dp`` mode split that batch, so it stays 16 rows per update)."""
    o = baseline_options(preset, task)
    accum = int(o["gradient_accumulation_steps"][0])
    batch, batch_src = int(o["train_batch_size"][0]), o["train_batch_size"][1]
    metric, metric_src = o.get("metric_key", ("", "run_all.sh"))
    return {
        "learning_rate": (float(o["learning_rate"][0]), o["learning_rate"][1]),
        "num_train_epochs": (int(o["num_train_epochs"][0]), o["num_train_epochs"][1]),
        "global_batch_size": (batch * accum, batch_src),
        "grad_accum_steps": (accum, o["gradient_accumulation_steps"][1]),
        "eval_batch_size": (int(o["eval_batch_size"][0]), o["eval_batch_size"][1]),
        "warmup_ratio": (float(o["warmup_ratio"][0]), o["warmup_ratio"][1]),
        "weight_decay": (float(o["weight_decay"][0]), o["weight_decay"][1]),
        "max_grad_norm": (float(o["max_grad_norm"][0]), o["max_grad_norm"][1]),
        "adam_eps": (float(o["adam_epsilon"][0]), o["adam_epsilon"][1]),
        "max_seq_length": (int(o["max_seq_length"][0]), o["max_seq_length"][1]),
        "early_stopping_patience": (int(o["patience"][0]), o["patience"][1]),
        "metric_key": (METRIC_NAMES[task][metric], metric_src),
        "seed": (int(o["seed"][0]), o["seed"][1]),
    }


def describe(preset: str) -> str:
    """Every task's fields under ``preset`` with their sources (one line per field)."""
    lines = [f"preset {preset} ({BASELINE_REPO} at {BASELINE_COMMIT[:12]}):"]
    for task in RUN_ALL_LINES[preset]:
        for field, (value, source) in field_sources(preset, task).items():
            lines.append(f"  {task}.{field} = {value!r}  # {source}")
    return "\n".join(lines)


if __name__ == "__main__":
    for name in PRESETS:
        print(describe(name))
