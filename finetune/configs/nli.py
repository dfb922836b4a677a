"""KLUE-NLI (3 classes on premise/hypothesis pairs), KLUE-baseline settings; selected on accuracy.

    python -m finetune --task nli --model klue-roberta-base --output runs/ft
    python -m finetune --task nli --model runs/tiny --output runs/ft-tiny \\
        --config finetune/configs/nli.py:tiny

KLUE-baseline run script: lr 5e-5, 5 epochs, batch 32, warmup 0.1, weight decay 0, length 128.
Expected on dev: KLUE-RoBERTa base 86.30 accuracy in the paper (appendix A). A measured run:
docs/finetune.md.
"""

from __future__ import annotations

from finetune.configs import common


def get_config(arg: str | None = None):
    c = common.baseline_config("nli")  # the run_all.sh line: configs/presets.py
    return common.apply_arg(c, arg) if arg else c
