"""The fine-tuning model (pretrained encoder + a task head) and how it is built from ``--model``.

`FinetuneModel` is `pretrain.models.Encoder` (with the BERT pooler) plus the module a task's
``make_head`` returns; it knows nothing of files. ``--model`` is loaded by
`finetune.pretrained.load_encoder` (pretraining workdir, our export, any Hugging Face
BERT/RoBERTa folder); `with_tokens` adds a task's extra tokens (RE's entity markers) to a copy
of the tokenizer and the embedding matrix, and `build_model` makes the NNX model with the
pretrained encoder weights and a head freshly initialised from the seed.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import jax
import numpy as np
from flax import nnx

from finetune.pretrained import LoadedModel, ModelLoadError, add_pooler, add_tokens, load_encoder
from pretrain import models

__all__ = [
    "FinetuneModel",
    "LoadedModel",
    "ModelLoadError",
    "build_model",
    "load_pretrained",
    "with_dtype",
    "with_pooler",
    "with_tokens",
]


class FinetuneModel(nnx.Module):
    """``encoder`` + ``head``: ``model(batch, deterministic=, rngs=)`` -> the head's outputs."""

    def __init__(self, config: models.ModelConfig, task: Any, *, add_pooler: bool, rngs: nnx.Rngs):
        self.encoder = models.Encoder(config, rngs=rngs, add_pooler=add_pooler)
        self.head = task.make_head(config, rngs)

    def __call__(self, batch, *, deterministic: bool = True, rngs=None):
        sequence, pooled = self.encoder(
            batch["input_ids"],
            batch["token_type_ids"],
            batch["attention_mask"],
            deterministic=deterministic,
            rngs=rngs,
        )
        extra = {}
        if getattr(self.head, "uses_word_embeddings", False):  # TRADE ties its vocabulary to them
            extra["word_embeddings"] = self.encoder.embeddings.word_embeddings.embedding[...]
        return self.head(sequence, pooled, batch, deterministic=deterministic, rngs=rngs, **extra)


def load_pretrained(path: Any) -> LoadedModel:
    """``--model`` -> `LoadedModel` (float32 parameters); `ModelLoadError` when unusable."""
    return load_encoder(path, dtype="float32")


def with_tokens(loaded: LoadedModel, tokens: tuple[str, ...], seed: int) -> LoadedModel:
    """A copy with ``tokens`` added (the loaded model and its tokenizer stay unchanged, so one
    loaded model serves every task of a run)."""
    if not tokens:
        return loaded
    from tokenizers import Tokenizer

    copy = dataclasses.replace(loaded, tokenizer=Tokenizer.from_str(loaded.tokenizer.to_str()))
    return add_tokens(copy, tuple(tokens), seed=seed)


def with_pooler(loaded: LoadedModel, seed: int) -> LoadedModel:
    """A copy whose encoder has a pooler (the checkpoint's, else fresh from ``seed``:
    `finetune.pretrained.add_pooler`), for a task whose head reads the pooled output."""
    return add_pooler(loaded, seed)


def with_dtype(loaded: LoadedModel, dtype: str) -> LoadedModel:
    """The same weights with another compute dtype ("float32" or "bfloat16")."""
    return dataclasses.replace(loaded, config=loaded.config.replace(dtype=dtype))


def build_model(loaded: LoadedModel, task: Any, seed: int) -> FinetuneModel:
    """`FinetuneModel` with the pretrained encoder weights and a head initialised from ``seed``."""
    model = FinetuneModel(
        loaded.config,
        task,
        add_pooler=loaded.encoder.pooler is not None,
        rngs=nnx.Rngs(params=seed, dropout=seed + 1),
    )
    want = {p: x.shape for p, x in nnx.to_flat_state(nnx.state(model.encoder, nnx.Param))}
    got = {p: x.shape for p, x in nnx.to_flat_state(loaded.params)}
    if want != got:
        diff = sorted(set(want.items()) ^ set(got.items()), key=str)[:6]
        raise ModelLoadError(f"{loaded.path}: encoder parameters do not match the config: {diff}")
    nnx.update(model.encoder, loaded.params)
    return model


def count_head_params(model: FinetuneModel) -> int:
    return int(sum(np.prod(x.shape) for x in jax.tree.leaves(nnx.state(model.head, nnx.Param))))
