"""YNAT (topic of a news title, 7 classes), KLUE-baseline settings; selected on macro F1.

    python -m finetune --task ynat --model klue-roberta-base --output runs/ft
    python -m finetune --task ynat --model runs/tiny --output runs/ft-tiny \\
        --config finetune/configs/ynat.py:tiny

KLUE-baseline run script: lr 5e-5, batch 32, warmup 0.1, length 128, 4 epochs (code default).
Expected on dev: KLUE-RoBERTa base 86.19 macro F1 in the paper (appendix A); train here is the
DACON copy of YNAT train (36,547 titles). A measured run: docs/finetune.md.
"""

from __future__ import annotations

from finetune.configs import common


def get_config(arg: str | None = None):
    c = common.baseline_config("ynat")  # the run_all.sh line: configs/presets.py
    return common.apply_arg(c, arg) if arg else c
