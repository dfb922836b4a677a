"""KLUE-RE (30 relations between a marked subject and object), KLUE-baseline settings.

    python -m finetune --task re --model klue-roberta-base --output runs/ft
    python -m finetune --task re --model runs/tiny --output runs/ft-tiny \\
        --config finetune/configs/re.py:tiny

KLUE-baseline run script (base models): lr 5e-5, 3 epochs, batch 32, warmup 0.1, length 256,
selected on micro F1 (without no_relation). The entity markers <subj> </subj> <obj> </obj> are
added to the tokenizer and the embedding matrix (new rows drawn from the seed). Data: the
official train (32,470) and dev (7,765) splits. Expected on dev: KLUE-RoBERTa base 66.73 micro
F1 and 68.11 AUPRC in the paper (appendix A).

``--config.task_options.representation`` picks the head's input: ``cls`` (the paper's, the
default), ``entity_start`` (the <subj>/<obj> marker states) or ``mention_mean`` (the mean of
each entity's token states). A tiny encoder needs ``mention_mean``::

    python -m finetune --task re --model runs/demo-hf --output runs/re-mm-e2 \
        --config finetune/configs/re.py --config.max_seq_length=128 \
        --config.num_train_epochs=2 --config.learning_rate=5e-4 \
        --config.task_options.representation=mention_mean

Expected (the pipeline demo's 2 x 64 BERT, 300 pretraining steps): dev micro F1 19.75 (the
paper's ``cls`` head: 7.75; always the most frequent relation: 9.41); docs/finetune_models.md.
"""

from __future__ import annotations

import ml_collections

from finetune.configs import common


def get_config(arg: str | None = None):
    c = common.baseline_config("re")  # the run_all.sh line: configs/presets.py
    # "cls": the paper's [CLS] head; "entity_start": the <subj>/<obj> marker states (module doc
    # of finetune/tasks/re.py; what small encoders need, docs/finetune_models.md).
    c.task_options = ml_collections.ConfigDict({"representation": "cls"})
    return common.apply_arg(c, arg) if arg else c
