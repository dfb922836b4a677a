"""`python -m pretrain`: pretraining data, training and export."""

from corpus.cli import print_index

print_index(
    "pretrain",
    "Flax BERT (static WWM + NSP) and RoBERTa (dynamic WWM) pretraining",
    {
        "build_data": "tokenised corpus -> ArrayRecord pretraining examples",
        "main": "train from a config (pretrain/configs/*.py) into a workdir",
        "export": "workdir checkpoint -> folder that stock transformers loads",
        "flops": "FLOPs per token and expected training days per config",
    },
)
