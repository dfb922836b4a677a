"""KLUE-RoBERTa-large: 24 layers, hidden 1024, 16 heads (~337M parameters), dynamic WWM MLM.

The paper's recipe: batch 2048, 512-token sequences, 500k steps, peak learning
rate 1e-4 with 10k warmup then linear decay, AdamW (b2 = 0.98), clipping 1.0.
Parameters and Adam state (~4 GB in float32) are sharded over an ``fsdp`` mesh
axis when ``mesh.fsdp > 1``; set it to the devices of one host (e.g. 8).

    python -m pretrain.main --config pretrain/configs/roberta_large.py \\
        --workdir runs/roberta-large --config.data.examples_dir=EX \\
        --config.data.tokenizer_dir=TOK --config.mesh.fsdp=8 --config.grad_accum_steps=16

Expected throughput (estimated from the FLOP arithmetic in docs/pretrain_train.md, not
measured): 2.0e9 FLOPs per token at L=512, a TPU v3-8 at 40% MFU ~9.9e4 tokens/s (~0.09
steps/s; 500k steps ~62 days); one H200 at 40% MFU ~31 days.
"""

from __future__ import annotations

from pretrain.configs import roberta_small


def get_config():
    # The paper's RoBERTa recipe is the same for every size (roberta_small.py); only the
    # model and, for large, the step count and FSDP differ.
    c = roberta_small.get_config()
    c.model = "roberta-large"
    c.num_train_steps = 500_000
    c.mesh.fsdp = 8
    return c
