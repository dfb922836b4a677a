"""`python -m finetune`: the fine-tuning CLI (`finetune.main`); --help lists the entry points."""

import sys

from corpus.cli import print_index


def _index() -> None:
    from finetune.main import USAGE, task_options_help

    print(USAGE)
    print("  fine-tunes a BERT/RoBERTa model on KLUE tasks (python -m finetune.main --help)\n")
    print(task_options_help() + "\n")
    print_index(
        "finetune",
        "the eight KLUE tasks: data download, fine-tuning and official metrics",
        {
            "main": "fine-tune on the eight tasks or all (= python -m finetune)",
            "data": "download the official KLUE v1.1 archives and verify their SHA-256",
            "evaluate": "score a prediction file against a gold KLUE split",
            "predict": "predictions of a fine-tuned best/ on any file (python -m finetune predict)",
            "export": "a fine-tuned best/ as a transformers folder (python -m finetune export)",
        },
    )


if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help", "--helpshort"):
    _index()
elif sys.argv[1] in ("predict", "export"):
    import importlib

    sys.exit(importlib.import_module(f"finetune.{sys.argv[1]}").main(sys.argv[2:]))
else:
    from finetune.main import run

    run()
