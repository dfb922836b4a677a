"""KLUE-NER (13 BIO tags per character), KLUE-baseline settings; selected on character F1.

    python -m finetune --task ner --model klue-roberta-base --output runs/ft
    python -m finetune --task ner --model runs/tiny --output runs/ft-tiny \\
        --config finetune/configs/ner.py:tiny

KLUE-baseline run script (base models): 3 epochs, length 510, metric character_macro_f1; the
other settings are the baseline code defaults (lr 5e-5, batch 32; `common`). Tokens are tagged
with their first character's tag and predictions are written per character (docs/finetune.md).
Data: the shared copy has no NER train split, so the 5,000 dev sentences are split by guid hash
(80% train / 20% evaluation) and the result is labelled "not comparable to the paper"; with the
official splits under --data-dir they are used as they are. Paper (appendix A, official dev):
KLUE-RoBERTa base 83.81 entity F1, 91.09 character F1. A measured run: docs/finetune.md.
"""

from __future__ import annotations

from finetune.configs import common


def get_config(arg: str | None = None):
    c = common.baseline_config("ner")  # the run_all.sh line: configs/presets.py
    return common.apply_arg(c, arg) if arg else c
