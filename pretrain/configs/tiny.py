"""Tiny BERT (2 layers, hidden 64) for CPU: runs on a fresh checkout with no other flag.

    python -m pretrain.main --config pretrain/configs/tiny.py --workdir runs/tiny
    python -m pretrain.export --workdir runs/tiny --output runs/tiny-hf

With no ``data.examples_dir`` it builds (once, cached under ~/.cache/klue-pretrain)
a 4,000-piece tokenizer and BERT examples (L=128, NSP, static whole-word masking)
from 3 Korean Wikipedia files of the shared corpus, plus a held-out file for
evaluation; without the shared data, from ``pretrain/tiny_corpus.txt``.
Expected throughput: see docs/pretrain_train.md (measured with
``python -m bench.pretrain --config tiny`` on this repository's 2-core CI machine).
"""

from __future__ import annotations

from pretrain.configs import default


def get_config():
    c = default.get_config()
    c.model = "tiny"
    c.objective = "bert"
    c.data.max_seq_length = 128
    c.data.bootstrap.enabled = True
    c.global_batch_size = 32
    c.num_train_steps = 300
    c.warmup_steps = 30
    c.learning_rate = 1e-3
    c.log_every_steps = 10
    c.eval_every_steps = 100
    c.eval_steps = 4
    c.checkpoint_every_steps = 100
    return c
