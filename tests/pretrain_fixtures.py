"""The tiny synthetic-data pretraining config shared by the trainer and supervision tests.

One definition, so that every test that builds it compiles the same program once per process
(runs differ only in fields outside `pretrain.train.PROGRAM_FIELDS`): float32 and no dropout,
so runs with micro-batches, restarts or other hosts can be compared to a plain run bitwise.
"""

from __future__ import annotations

from typing import Any

from pretrain.configs import tiny

L, P, B = 32, 5, 8  # sequence length, masked positions per sequence, global batch


def synthetic_tiny_config(**changes: Any):
    """`pretrain/configs/tiny.py` on synthetic batches of B x L, 20 steps; `changes` may use
    dotted keys (`data.max_seq_length=64`)."""
    c = tiny.get_config()
    c.data.synthetic = True
    c.data.max_seq_length = L
    c.data.max_predictions_per_seq = P
    c.global_batch_size = B
    c.num_train_steps = 20
    c.warmup_steps = 4
    c.learning_rate = 3e-3
    c.log_every_steps = 1
    c.progress_bar = False
    c.model_overrides = {"hidden_dropout": 0.0, "attention_dropout": 0.0, "dtype": "float32"}
    for k, v in changes.items():
        target = c
        *path, last = k.split(".")
        for part in path:
            target = target[part]
        target[last] = v
    return c


def perturbed_tiny_model(arch: str, vocab_size: int, seed: int = 0):
    """A float32 tiny BERT (`arch="bert"`) or RoBERTa with every parameter moved by N(0, 0.1),
    so biases and LayerNorms are not at their trivial initial values when export and import
    are compared with stock `transformers`."""
    import jax
    from flax import nnx

    from pretrain import models

    name = "tiny" if arch == "bert" else "tiny-roberta"
    model = models.build_model(
        models.PRESETS[name].replace(vocab_size=vocab_size, dtype="float32"), seed=seed
    )
    params = nnx.state(model, nnx.Param)
    leaves, treedef = jax.tree.flatten(params)
    keys = jax.random.split(jax.random.key(seed + 100), len(leaves))
    leaves = [x + 0.1 * jax.random.normal(k, x.shape) for x, k in zip(leaves, keys, strict=True)]
    nnx.update(model, jax.tree.unflatten(treedef, leaves))
    return model
