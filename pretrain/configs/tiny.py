"""Tiny BERT (2 layers, hidden 64) for CPU: runs on a fresh checkout with no other flag.

    python -m pretrain.main --config pretrain/configs/tiny.py --workdir runs/tiny
    python -m pretrain.export --workdir runs/tiny --output runs/tiny-hf

With no ``data.examples_dir`` it builds (once, cached under ~/.cache/klue-pretrain)
a 4,000-piece tokenizer and BERT examples (L=128, NSP, static whole-word masking)
from 3 Korean Wikipedia files of the shared corpus, plus a held-out file for
evaluation; without the shared data, from ``pretrain/tiny_corpus.txt``.
Expected throughput, measured with ``python -m bench.pretrain --config tiny`` on 2 shared CPU
cores: 0.17-0.23 s per step of 32 x 128 tokens (17,500-23,600 tokens/s); the 300 steps take
about 2 minutes (MLM loss 8.26 -> 6.59, held-out MLM accuracy 5.0%; docs/pretrain_train.md).
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
