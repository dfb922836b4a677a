"""Orchestration above every stage: `python -m pipeline.demo` and `python -m pipeline.ablate`.

Data flows corpus -> tokenizer -> pretrain -> finetune; this package runs those stages as the
commands a user would type (subprocesses of their CLIs) and reads their output files. No stage
package imports it (tests/test_pipeline.py checks).
"""
