"""Fields shared by every fine-tuning config, with the KLUE-baseline code defaults.

Each task config (``finetune/configs/<task>.py``) starts from `base_config()` and sets what the
KLUE-baseline run script sets for that task. Every field can be overridden on the command
line (``--config.learning_rate=3e-5``). ``get_config("tiny")`` (``--config
finetune/configs/common.py:tiny``) is the tiny CPU override: with ``--task all`` and this
file as ``--config``, every field changed here or on the command line is applied on top of each
task's own config. A smoke run on a tiny pretraining workdir::

    python -m finetune --task all --model runs/tiny --output runs/ft-tiny \\
        --config finetune/configs/common.py:tiny

Expected: every task finishes on 2 CPU cores in a few minutes with scores near chance (the
tiny encoder is barely trained, and the tiny override trains on 512 examples); the point is
the files and the table, not the figures. See docs/finetune.md.

Task options (a task config's ``task_options``, the task's constructor arguments) differ per
task, so this file holds them per task under ``task_options_by_task.<task>``, copied from each
task config; one changed here reaches that task's ``task_options`` only::

    python -m finetune --task all --model runs/tiny --output runs/ft-tiny \
        --config finetune/configs/common.py:tiny \
        --config.task_options_by_task.re.representation=mention_mean

Task configs start from `base_config` (the shared fields without that block).
"""

from __future__ import annotations

import importlib

import ml_collections

#: The field of this file's config that holds each task's ``task_options``.
TASK_OPTIONS_BY_TASK = "task_options_by_task"


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    """The config of ``--config finetune/configs/common.py[:tiny]``: `base_config` plus
    every task config's default ``task_options`` under ``task_options_by_task.<task>``."""
    from finetune.tasks.base import ALL_TASKS

    c = base_config()
    by_task = ml_collections.ConfigDict()
    for task in ALL_TASKS:
        task_cfg = importlib.import_module(f"finetune.configs.{task}").get_config()
        if "task_options" in task_cfg:
            by_task[task] = ml_collections.ConfigDict(task_cfg.task_options.to_dict())
    c[TASK_OPTIONS_BY_TASK] = by_task
    if arg:
        apply_arg(c, arg)
    return c


def base_config() -> ml_collections.ConfigDict:
    """The fields every task config has (each task config starts from these)."""
    c = ml_collections.ConfigDict()
    c.task = ""  # set by each task config; "" here: "apply my changes to every task"
    c.seed = 42

    # Optimiser: AdamW, linear warmup then linear decay to 0, gradient clipping. KLUE-baseline
    # defaults: eps 1e-8, weight decay 0 (no decay on biases and LayerNorm when it is >0).
    c.learning_rate = 5e-5
    c.num_train_epochs = 4
    c.global_batch_size = 32  # per optimiser step, over all devices and micro-batches
    # >1: each step sums the gradients of this many micro-batches of global_batch_size / N rows
    # (less activation memory, the same update); steps and schedule count optimiser updates.
    c.grad_accum_steps = 1
    c.eval_batch_size = 64
    c.warmup_ratio = 0.1  # share of all optimiser steps spent warming up
    c.weight_decay = 0.0
    c.max_grad_norm = 1.0
    c.adam_b1 = 0.9
    c.adam_b2 = 0.999
    c.adam_eps = 1e-8
    c.max_seq_length = 128
    c.dtype = "float32"  # compute dtype of matrix products: "float32" or "bfloat16"
    c.metric_key = ""  # the dev metric that selects the best checkpoint; "": the task's own

    # Data.
    c.dev_fraction = 0.2  # share of dev held out for evaluation when a task has no train split
    c.max_train_examples = 0  # >0: only the first N train examples (smoke runs)
    c.max_eval_examples = 0  # >0: only the first N dev examples (smoke runs)

    # Loop.
    c.max_train_steps = 0  # >0: stop after this many optimiser steps (schedule still over all)
    c.eval_every_steps = 0  # 0: evaluate on dev at the end of every epoch
    c.checkpoint_every_steps = 0  # 0: a resume checkpoint at every evaluation only
    c.log_every_steps = 50
    c.progress_bar = True
    c.keep_resume_checkpoint = False  # keep checkpoints/ after the task finished (best/ stays)

    c.mesh = ml_collections.ConfigDict()
    c.mesh.fsdp = 1  # >1 shards params and optimiser state over that many devices
    c.mesh.fsdp_min_size = 2**16

    c.distributed = ml_collections.ConfigDict()
    c.distributed.initialize = "auto"  # "auto" (when a cluster is detected), "yes", "no"
    c.distributed.coordinator_address = ""
    c.distributed.num_processes = -1
    c.distributed.process_id = -1
    c.distributed.cpu_collectives = ""  # "gloo" for several CPU processes
    return c


def apply_arg(c: ml_collections.ConfigDict, arg: str) -> ml_collections.ConfigDict:
    """``"tiny"``: the CPU smoke-run override; anything else is an error."""
    if arg != "tiny":
        raise ValueError(f"unknown config argument {arg!r} (known: tiny)")
    c.max_seq_length = min(c.max_seq_length, 64)
    c.global_batch_size = 16
    c.eval_batch_size = 32
    c.num_train_epochs = 1
    c.max_train_examples = 512
    c.max_eval_examples = 256
    c.learning_rate = 1e-4
    c.log_every_steps = 8
    return c
