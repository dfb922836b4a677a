"""`python -m finetune`: KLUE data and fine-tuning."""

from corpus.cli import print_index

print_index(
    "finetune",
    "the eight KLUE tasks: data download, fine-tuning and official metrics",
    {
        "data": "download the official KLUE v1.1 archives and verify their SHA-256",
        "evaluate": "score a prediction file of one task with the KLUE baseline's metrics",
    },
)
