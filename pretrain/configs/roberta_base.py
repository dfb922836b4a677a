"""KLUE-RoBERTa-base: 12 layers, hidden 768, 12 heads (~111M parameters), dynamic WWM MLM.

The paper's recipe: batch 2048, 512-token FULL-SENTENCES sequences, 1M steps,
peak learning rate 1e-4 with 10k warmup steps then linear decay, AdamW with
b2 = 0.98, weight decay 0.01 (not on biases and LayerNorm), clipping 1.0.

    python -m pretrain.main --config pretrain/configs/roberta_base.py \\
        --workdir runs/roberta-base --config.data.examples_dir=EX \\
        --config.data.tokenizer_dir=TOK --config.grad_accum_steps=8

Expected throughput (estimated from the FLOP arithmetic in docs/pretrain_train.md, not
measured): 5.9e8 FLOPs per token at L=512, a TPU v3-8 at 40% MFU ~3.3e5 tokens/s (~0.32
steps/s; 1M steps ~36 days); one H200 at 40% MFU ~18 days.
"""

from __future__ import annotations

from pretrain.configs import roberta_small


def get_config():
    # The paper's RoBERTa recipe is the same for every size (roberta_small.py); only the
    # model differ.
    c = roberta_small.get_config()
    c.model = "roberta-base"
    return c
