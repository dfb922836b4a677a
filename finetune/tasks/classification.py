"""Sentence(-pair) tasks with a first-token head: YNAT (7 topics), NLI (3 labels), STS (score).

As in the KLUE paper §5.1 and the baseline's ``AutoModelForSequenceClassification``: the
head reads the first token ([CLS]). For BERT it takes the pretrained pooler's output (dense +
tanh on [CLS]), then dropout and a linear layer, as ``BertForSequenceClassification``; for
RoBERTa (no pooler) it is ``RobertaClassificationHead``: dropout, dense, tanh, dropout, linear;
for ELECTRA ``ElectraClassificationHead``, the same with GELU in place of tanh.

* YNAT: the news ``title`` alone; cross-entropy over `corpus.klue.ynat.LABELS`; macro F1.
* NLI: ``premise`` [SEP] ``hypothesis``; cross-entropy over `corpus.klue.nli.LABELS`; accuracy.
* STS: ``sentence1`` [SEP] ``sentence2``; one output trained with mean squared error on
  ``real-label`` (0-5, unclipped, as the baseline); selected on Pearson r; the scorer also
  reports the F1 of the scores binarised at 3.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx

from corpus.klue import nli as klue_nli
from corpus.klue import ynat as klue_ynat
from finetune.tasks.base import (
    INPUT_KEYS,
    EncodeContext,
    Features,
    KlueTask,
    pack_pair,
    register,
    stack_rows,
)
from pretrain import models


def head_linear_kwargs(config: Any, rngs: nnx.Rngs) -> dict[str, Any]:
    """`nnx.Linear` arguments of a task head: the encoder's compute and parameter dtypes and
    BERT's N(0, initializer_range) kernels, as the encoder's own layers are initialised."""
    return dict(
        dtype=jnp.dtype(config.dtype),
        param_dtype=jnp.dtype(config.param_dtype),
        kernel_init=nnx.initializers.normal(stddev=config.initializer_range),
        rngs=rngs,
    )


class FirstTokenHead(nnx.Module):
    """Classifier/regressor on the first token: float32 ``{"logits": [B, num_outputs]}``."""

    def __init__(self, config: Any, num_outputs: int, *, rngs: nnx.Rngs):
        h = config.hidden_size
        kw = head_linear_kwargs(config, rngs)
        # BERT reads the encoder's pooler; RoBERTa has none and gets its own dense + tanh,
        # ELECTRA dense + GELU (transformers' ElectraClassificationHead).
        self.dense = nnx.Linear(h, h, **kw) if config.arch != "bert" else None
        self.activation = models.gelu if config.arch == "electra" else jnp.tanh
        self.out = nnx.Linear(h, num_outputs, **kw)
        self.dropout = nnx.Dropout(config.hidden_dropout, rngs=rngs)

    def __call__(self, sequence, pooled, batch, *, deterministic: bool = True, rngs=None):
        if self.dense is None and pooled is not None:
            x = pooled
        else:
            x = sequence[:, 0]
            if self.dense is not None:
                x = self.dropout(x, deterministic=deterministic, rngs=rngs)
                x = self.activation(self.dense(x))
        x = self.dropout(x, deterministic=deterministic, rngs=rngs)
        return {"logits": self.out(x).astype(jnp.float32)}


def _weights(batch: Mapping[str, Any]) -> jax.Array:
    return batch["weight"].astype(jnp.float32)


class _Classification(KlueTask):
    """Shared code of YNAT and NLI: labels, cross-entropy, argmax decoding."""

    labels: tuple[str, ...]
    label_field: str  # the prediction file's field
    #: Feature columns cut to the batch's length bucket (`finetune.batching`).
    sequence_columns = INPUT_KEYS

    def texts(self, ex: Any) -> tuple[str, str | None]:
        raise NotImplementedError

    def gold(self, ex: Any) -> str:
        raise NotImplementedError

    def encode(
        self, examples: Sequence[Any], ctx: EncodeContext, max_seq_length: int, train: bool
    ) -> Features:
        return _encode(self, examples, ctx, max_seq_length, {"label": self.label_ids(examples)})

    def label_ids(self, examples: Sequence[Any]) -> np.ndarray:
        """Label ids; -1 for an example without gold (an unlabelled file to predict: the
        readers of training data reject a missing or unknown label)."""
        return np.asarray(
            [-1 if self.gold(ex) is None else self.labels.index(self.gold(ex)) for ex in examples],
            np.int32,
        )

    def make_head(self, model_config: Any, rngs: nnx.Rngs) -> nnx.Module:
        return FirstTokenHead(model_config, len(self.labels), rngs=rngs)

    def loss(self, outputs: Mapping[str, Any], batch: Mapping[str, Any]) -> tuple[Any, Any]:
        logp = jax.nn.log_softmax(outputs["logits"], axis=-1)
        nll = -jnp.take_along_axis(logp, batch["label"][:, None].astype(jnp.int32), 1)[:, 0]
        w = _weights(batch)
        return jnp.sum(nll * w), jnp.sum(w)

    def predict(
        self, outputs: Mapping[str, np.ndarray], features: Features, examples: Sequence[Any]
    ) -> list[dict[str, Any]]:
        ids = np.argmax(outputs["logits"], axis=-1)
        return [
            {"guid": examples[e].guid, self.label_field: self.labels[int(i)]}
            for e, i in zip(features.example_index, ids, strict=True)
        ]


def _encode(
    task: Any,
    examples: Sequence[Any],
    ctx: EncodeContext,
    max_seq_length: int,
    targets: dict[str, np.ndarray],
) -> Features:
    """One feature per example: ``[CLS] a [SEP] (b [SEP])`` (the pair separator the model's
    tokenizer uses: `pack_pair`) plus the target columns."""
    pairs = [task.texts(ex) for ex in examples]
    a_ids = ctx.ids_batch([a for a, _ in pairs])
    has_b = pairs[0][1] is not None if pairs else False
    b_ids = ctx.ids_batch([b for _, b in pairs]) if has_b else [None] * len(pairs)
    rows = [pack_pair(ctx, a, b, max_seq_length) for a, b in zip(a_ids, b_ids, strict=True)]
    if not rows:
        raise ValueError(f"{task.name}: no examples to encode")
    arrays = {**stack_rows(rows), **targets}
    return Features(arrays, np.arange(len(examples), dtype=np.int64))


@register("ynat")
class Ynat(_Classification):
    """YNAT topic classification of news titles (7 labels), macro F1."""

    name = "ynat"
    metric_key = "ynat_macro_f1"
    labels = klue_ynat.LABELS
    label_field = "label"

    def texts(self, ex: Any) -> tuple[str, str | None]:
        return ex.title, None

    def gold(self, ex: Any) -> str:
        return ex.label


@register("nli")
class Nli(_Classification):
    """KLUE-NLI (entailment / neutral / contradiction), accuracy."""

    name = "nli"
    metric_key = "nli_accuracy"
    labels = klue_nli.LABELS
    label_field = "label"

    def texts(self, ex: Any) -> tuple[str, str | None]:
        return ex.premise, ex.hypothesis

    def gold(self, ex: Any) -> str:
        return ex.gold_label


@register("sts")
class Sts(KlueTask):
    """KLUE-STS: regression on ``real-label`` with MSE; selected on Pearson r."""

    name = "sts"
    metric_key = "sts_pearsonr"
    #: Feature columns cut to the batch's length bucket (`finetune.batching`).
    sequence_columns = INPUT_KEYS

    def texts(self, ex: Any) -> tuple[str, str | None]:
        return ex.sentence1, ex.sentence2

    def encode(
        self, examples: Sequence[Any], ctx: EncodeContext, max_seq_length: int, train: bool
    ) -> Features:
        score = np.asarray([ex.real_label for ex in examples], np.float32)
        return _encode(self, examples, ctx, max_seq_length, {"score": score})

    def make_head(self, model_config: Any, rngs: nnx.Rngs) -> nnx.Module:
        return FirstTokenHead(model_config, 1, rngs=rngs)

    def loss(self, outputs: Mapping[str, Any], batch: Mapping[str, Any]) -> tuple[Any, Any]:
        err = outputs["logits"][:, 0] - batch["score"].astype(jnp.float32)
        w = _weights(batch)
        return jnp.sum(err * err * w), jnp.sum(w)

    def predict(
        self, outputs: Mapping[str, np.ndarray], features: Features, examples: Sequence[Any]
    ) -> list[dict[str, Any]]:
        scores = outputs["logits"][:, 0]
        return [
            {"guid": examples[e].guid, "score": float(s)}
            for e, s in zip(features.example_index, scores, strict=True)
        ]
