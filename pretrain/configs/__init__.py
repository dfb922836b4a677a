"""Experiment configs for `pretrain.main`: one file per model size; `default` is shared."""
