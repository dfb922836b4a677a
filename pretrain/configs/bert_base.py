"""KLUE-BERT-base: 12 layers, hidden 768, 12 heads (~111M parameters), MLM + NSP.

The paper's recipe: batch 256, sequences of up to 512 tokens, 1M steps, peak
learning rate 1e-4 with 10k warmup steps then linear decay, AdamW (b2 0.999,
weight decay 0.01 except biases and LayerNorm), gradient clipping at 1.0.

    python -m pretrain.build_data --tokenizer TOK --input CLEAN_CORPUS --output EX \\
        --objective bert --max-seq-length 512
    python -m pretrain.main --config pretrain/configs/bert_base.py --workdir runs/bert-base \\
        --config.data.examples_dir=EX --config.data.tokenizer_dir=TOK \\
        [--config.data.eval_examples_dir=HELD_OUT_EX]

Expected throughput (estimated from the FLOP arithmetic in docs/pretrain_train.md, not
measured: no accelerator was available): `models.flops_per_token` gives 5.9e8 training
FLOPs per token at L=512, so a TPU v3-8 (492 bf16 TFLOP/s) at 40% MFU does ~3.3e5
tokens/s (~2.6 steps/s) and the 1M steps take ~4.5 days; one H200 (989 TFLOP/s dense
bf16) at 40% MFU ~2.3 days.
Measure yours with ``python -m bench.pretrain --config bert_base``.
"""

from __future__ import annotations

from pretrain.configs import default


def get_config():
    c = default.get_config()
    c.model = "bert-base"
    c.objective = "bert"
    c.global_batch_size = 256
    c.num_train_steps = 1_000_000
    c.warmup_steps = 10_000
    c.learning_rate = 1e-4
    return c
