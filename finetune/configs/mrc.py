"""KLUE-MRC (extractive QA with unanswerable questions), KLUE-baseline settings; ROUGE-W.

    python -m finetune --task mrc --model klue-roberta-base --output runs/ft \\
        --data-dir DIR_WITH_klue-mrc-v1.1
    python -m finetune --task mrc --model runs/tiny --output runs/ft-tiny \\
        --data-dir tests/fixtures/klue --config finetune/configs/mrc.py:tiny

KLUE-baseline run script (RoBERTa models): lr 3e-5, 5 epochs, batch 16, length 510, metric
rouge_w. SQuAD feature and decoding defaults of the baseline code, in ``task_options`` (e.g.
``--config.task_options.doc_stride=64``): doc_stride 128 (the step between window starts),
max_query_length 64, n_best_size 20, max_answer_length 30, null score threshold 0.
The shared data has no MRC files (only the test fixtures): get the official ones with
``python -m finetune.data download --to DIR``. Paper (appendix A, dev): KLUE-RoBERTa base
69.56 EM, 74.64 ROUGE-W. The tiny config on the fixtures only shows that the files are written
and scored (3 dev questions).
"""

from __future__ import annotations

import ml_collections

from finetune.configs import common


def get_config(arg: str | None = None):
    c = common.baseline_config("mrc")  # the run_all.sh line: configs/presets.py
    # The constructor arguments of finetune.tasks.mrc.Mrc (SQuAD feature and decoding settings).
    c.task_options = ml_collections.ConfigDict(
        {
            "doc_stride": 128,
            "max_query_length": 64,
            "n_best_size": 20,
            "max_answer_length": 30,
            "null_threshold": 0.0,
        }
    )
    if arg:
        common.apply_arg(c, arg)
        # Length 64 leaves windows shorter than 128 tokens: a shorter question and stride.
        c.task_options.max_query_length = 16
        c.task_options.doc_stride = 16
    return c
