"""KLUE-STS (similarity 0-5 of a sentence pair, MSE regression); selected on Pearson r.

    python -m finetune --task sts --model klue-roberta-base --output runs/ft
    python -m finetune --task sts --model runs/tiny --output runs/ft-tiny \\
        --config finetune/configs/sts.py:tiny

KLUE-baseline run script: lr 5e-5, 4 epochs, batch 32, warmup 0.1, weight decay 0, gradient
clipping 1.0, length 128. Expected on dev: KLUE-RoBERTa base 92.91 Pearson r / 86.78 F1 in the
paper (appendix A). The shared data has no STS train split: training then uses 80% of dev
(split by guid hash) and scores the other 20%, flagged "not comparable to the paper".
"""

from __future__ import annotations

from finetune.configs import common


def get_config(arg: str | None = None):
    c = common.baseline_config("sts")  # the run_all.sh line: configs/presets.py
    return common.apply_arg(c, arg) if arg else c
