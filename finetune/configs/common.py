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

Any field of one task (a hyperparameter or one of its ``task_options``) is set under
``by_task.<task>``, which holds a copy of each task config's own values; a field changed there
reaches that task only and wins over the same field changed for every task::

    python -m finetune --task all --model runs/tiny --output runs/ft-tiny \
        --config finetune/configs/common.py:tiny \
        --config.by_task.ner.learning_rate=1e-5 --config.by_task.ner.global_batch_size=8 \
        --config.by_task.re.task_options.representation=mention_mean

Task configs start from `base_config` (the shared fields without that block).
"""

from __future__ import annotations

import importlib

import ml_collections

from finetune import batching
from finetune.configs import presets

#: The field of this file's config that holds each task's own fields.
BY_TASK = "by_task"
#: Fields that belong to the process, not to a task (absent from ``by_task.<task>``).
PROCESS_FIELDS = ("task", "mesh", "distributed")


def task_defaults(task: str) -> ml_collections.ConfigDict:
    """``finetune/configs/<task>.py``'s config without `PROCESS_FIELDS`: what
    ``by_task.<task>`` holds before the command line changes it."""
    cfg = importlib.import_module(f"finetune.configs.{task}").get_config().to_dict()
    return ml_collections.ConfigDict({k: v for k, v in cfg.items() if k not in PROCESS_FIELDS})


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    """The config of ``--config finetune/configs/common.py[:tiny]``: `base_config` plus every
    task config's own fields under ``by_task.<task>`` (see `task_defaults`)."""
    from finetune.tasks.base import ALL_TASKS

    c = base_config()
    c[BY_TASK] = ml_collections.ConfigDict({task: task_defaults(task) for task in ALL_TASKS})
    if arg:
        apply_arg(c, arg)
    return c


def baseline_config(task: str) -> ml_collections.ConfigDict:
    """`base_config` for ``task`` with the values of its line of the KLUE-baseline run script
    (the ``klue-base`` preset, `presets.preset_fields`): where each task config starts."""
    c = base_config()
    c.task = task
    c.update(presets.preset_fields(presets.DEFAULT_PRESET, task))
    return c


def base_config() -> ml_collections.ConfigDict:
    """The fields every task config has (each task config starts from these)."""
    c = ml_collections.ConfigDict()
    c.task = ""  # set by each task config; "" here: "apply my changes to every task"

    # Optimiser: AdamW, linear warmup then linear decay to 0, gradient clipping. The values
    # are the KLUE-baseline code defaults (`presets.CODE_DEFAULTS`, with their file and line):
    # lr 5e-5, 4 epochs, batch 32, eval batch 64, no warmup (its warmup options default to
    # None: 0 steps), weight decay 0 (never on biases and LayerNorm), clipping 1.0, eps 1e-8.
    # global_batch_size: rows per optimiser step, over all devices and micro-batches.
    # grad_accum_steps > 1: each step sums the gradients of this many micro-batches of
    # global_batch_size / N rows (less activation memory, the same update).
    # warmup_ratio: warmup steps = ceil(ratio x train examples / batch x epochs) (baseline).
    c.update(presets.code_default_fields())
    c.adam_b1 = 0.9
    c.adam_b2 = 0.999
    c.max_seq_length = 128
    # Length bucketing (finetune/batching.py): each batch is padded to the smallest of these
    # lengths (and max_seq_length) that holds its longest row, so XLA compiles a handful of
    # shapes; the rows and results are the same (up to float noise). () pads every batch to
    # max_seq_length: --config.bucket_lengths="()".
    c.bucket_lengths = batching.DEFAULT_BUCKETS
    c.dtype = "float32"  # compute dtype of matrix products: "float32" or "bfloat16"
    c.metric_key = ""  # the dev metric that selects the best checkpoint; "": the task's own

    # Data.
    c.dev_fraction = 0.2  # share of dev held out for evaluation when a task has no train split
    c.max_train_examples = 0  # >0: only the first N train examples (smoke runs)
    c.max_eval_examples = 0  # >0: only the first N dev examples (smoke runs)

    # Loop.
    c.max_train_steps = 0  # >0: stop after this many optimiser steps (schedule still over all)
    # Dev evaluation every eval_every_epochs of an epoch (the baseline's Lightning
    # val_check_interval=0.25, run_klue.py:121: every int(0.25 x steps per epoch) steps of each
    # epoch), and at the last step; eval_every_steps > 0 replaces it with a fixed interval.
    c.eval_every_epochs = 0.25
    c.eval_every_steps = 0
    # early_stopping_patience (set above, baseline default 5): stop when this many evaluations
    # in a row did not improve the metric (Lightning's EarlyStopping in max mode, run_klue.py:
    # 110; the run script's 10000 and 100000 never stop); 0 = never.
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
