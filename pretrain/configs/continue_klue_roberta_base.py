"""Continued (domain-adaptive) pretraining of klue/roberta-base on your own corpus.

The model, vocabulary, special ids ([CLS] = 0, [PAD] = 1) and position table (514 = 512
tokens) are the folder's (`pretrain.hf_init`); the MLM head comes along (tied decoder and its
bias), so step 0 predicts what klue/roberta-base predicts. Dynamic whole-word masking on packed
512-token sequences, as the source model was trained; a fresh AdamW at step 0.

    # klue/roberta-base downloaded (safetensors) into KLUE_ROBERTA, e.g. with
    #   huggingface-cli download klue/roberta-base --local-dir KLUE_ROBERTA
    python -m pretrain.build_data --tokenizer KLUE_ROBERTA --input DOMAIN_CORPUS \\
        --output EX --objective roberta --max-seq-length 512
    python -m pretrain.main --config pretrain/configs/continue_klue_roberta_base.py \\
        --workdir runs/continue --config.init_from=KLUE_ROBERTA \\
        --config.data.examples_dir=EX [--config.grad_accum_steps=16]
    python -m pretrain.export --workdir runs/continue --output runs/continue-hf
    python -m finetune --task ynat --model runs/continue-hf --output runs/continue-ynat

Optimisation. The budget is domain-adaptive pretraining's (DAPT; Gururangan et al. 2020,
"Don't Stop Pretraining", ACL; the command in allenai/dont-stop-pretraining's
ADAPTIVE_PRETRAINING.md): 12,500 steps of batch 2048 (16 x 128 accumulation). DAPT's peak
learning rate for roberta-base was 5e-4; KLUE-RoBERTa-base itself was pretrained at a peak of
1e-4 (the KLUE paper, `roberta_base.py`), and a continued run should not exceed the rate the
model was trained at, so the peak here is 1e-4 -- also the rate DAPT's task-adaptive runs
(TAPT) used. Linear warmup over 750 steps (6% of the run; our choice: the DAPT command gives
none) then linear decay to 0; AdamW b2 = 0.98, eps 1e-6, weight decay 0.01, clipping 1.0, as
the source model's pretraining. For a task-sized corpus (TAPT), keep the rate and set
``num_train_steps`` to about 100 epochs of the examples at batch 256.

Expected cost (estimated from the FLOP arithmetic in docs/pretrain_train.md, not measured):
5.9e8 FLOPs per token at L=512, 12,500 x 2048 x 512 = 1.3e10 tokens: about 11 hours on a
TPU v3-8 at 40% MFU. A CPU check of the whole chain on tiny random folders is
tests/test_pretrain_continue.py (docs/pretrain_continue.md).
"""

from __future__ import annotations

from pretrain.configs import default


def get_config():
    c = default.get_config()
    c.model = "from_init"  # the model is the init_from folder's (pretrain.hf_init)
    c.init_from = ""  # required: a Hugging Face BERT/RoBERTa folder (e.g. klue/roberta-base)
    c.objective = "roberta"
    c.global_batch_size = 2048
    c.num_train_steps = 12_500
    c.warmup_steps = 750
    c.learning_rate = 1e-4
    c.adam_b2 = 0.98
    c.eval_every_steps = 1_000
    c.checkpoint_every_steps = 1_000
    c.log_every_steps = 50
    return c
