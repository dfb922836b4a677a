"""KLUE-NER: token tagging with the 13 BIO tags, labelled and predicted per CHARACTER.

Encoding. The sentence is tokenised once, with character offsets (`alignment.tokenize`); a
token is labelled with the tag of its FIRST character (the KLUE baseline's rule), so
``서울시는 -> 서울 ##시 ##는`` gets ``B-LC I-LC O`` from ``B-LC I-LC I-LC O``. Only
``max_seq_length - 2`` tokens fit after [CLS] and [SEP]; the rest of a long sentence is cut
(as in the baseline, which uses length 510) and its characters are predicted ``O``. Special and
padding positions have label -1 and no loss.

Decoding (`char_tags`). Every character gets a tag: the first character of a token gets the
token's predicted tag, its following characters get ``I-<type>`` of that tag (or ``O``), and a
character no token covers (the space " ", a character the normaliser removed, a truncated
tail) gets ``O``. The prediction file therefore has exactly one tag per character of the
sentence, spaces included, as ``klue-formats.md`` asks; the scorer drops the space characters
before scoring, so the tag written for a space never counts.

Head: dropout and a linear layer on every token (Hugging Face's TokenClassification head, which
the baseline uses). The loss is the token cross-entropy averaged over the labelled tokens of the
whole batch.

Known departures from the baseline: it tokenises word by word and rebuilds character
alignment from the token strings (with a special re-alignment pass for [UNK]); this module uses
the tokenizer's offsets, which is exact for [UNK] and any normalisation. The baseline also
trains and scores [CLS]/[SEP] as ``O``; here they carry no label. Entity boundaries inside a
token cannot be represented by token tags (in either implementation): `round_trip_tags` shows
what a perfect tagger can reach with a given tokenizer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx

from corpus.klue.ner import TAGS, NerSentence
from finetune.tasks.alignment import TokenizedText, tokenize_batch
from finetune.tasks.base import INPUT_KEYS, EncodeContext, Features, KlueTask, register

TAG_ID = {t: i for i, t in enumerate(TAGS)}
IGNORE = -1


def token_tags(
    tags: Sequence[str], offsets: Sequence[tuple[int, int]], sentence: str | None = None
) -> list[str]:
    """The tag of each token: the tag of its first character (``O`` for a zero-width token).

    With `sentence`, leading spaces of a token (tokenizers whose pieces carry the space, such
    as sentencepiece's ``▁``) are skipped: the first non-space character decides.
    """
    out = []
    for s, e in offsets:
        e = min(e, len(tags))
        if sentence is not None:
            while s < e and sentence[s].isspace():
                s += 1
        out.append(tags[s] if 0 <= s < e else "O")
    return out


def char_tags(
    n_chars: int,
    offsets: Sequence[tuple[int, int]],
    predicted: Sequence[str],
    sentence: str | None = None,
) -> list[str]:
    """One tag per character from one predicted tag per token (module doc, "Decoding").

    `offsets` may be a prefix of the sentence's tokens (truncation); uncovered characters get O.
    With `sentence`, a token's leading spaces are skipped as in `token_tags`.
    """
    out = ["O"] * n_chars
    for (s, e), tag in zip(offsets, predicted, strict=True):
        if sentence is not None:
            while s < e and s < n_chars and sentence[s].isspace():
                s += 1
        if e <= s or s >= n_chars:
            continue
        out[s] = tag
        inside = "O" if tag == "O" else "I-" + tag[2:]
        for c in range(s + 1, min(e, n_chars)):
            out[c] = inside
    return out


def round_trip_tags(sentence: NerSentence, tokens: TokenizedText, max_tokens: int) -> list[str]:
    """The character tags a perfect tagger reaches: gold -> token tags -> character tags.

    The gap between these and the gold tags is the ceiling the tokenizer and the sequence
    length impose (entity boundaries inside a token, truncated sentences).
    """
    offsets = tokens.offsets[:max_tokens]
    text = sentence.sentence
    return char_tags(len(text), offsets, token_tags(sentence.tags, offsets, text), text)


class TokenTaggingHead(nnx.Module):
    """Dropout and a linear layer on every position: float32 ``logits [B, L, n_labels]``."""

    def __init__(self, model_config: Any, n_labels: int, *, rngs: nnx.Rngs):
        self.dropout = nnx.Dropout(model_config.hidden_dropout, rngs=rngs)
        self.classifier = nnx.Linear(
            model_config.hidden_size,
            n_labels,
            kernel_init=nnx.initializers.normal(model_config.initializer_range),
            dtype=jnp.dtype(model_config.dtype),
            param_dtype=jnp.dtype(model_config.param_dtype),
            rngs=rngs,
        )

    def __call__(self, sequence, pooled, batch, *, deterministic: bool = True, rngs=None):
        x = self.dropout(sequence, deterministic=deterministic, rngs=rngs)
        return {"logits": self.classifier(x).astype(jnp.float32)}


def token_loss(
    logits: jax.Array, labels: jax.Array, weight: jax.Array
) -> tuple[jax.Array, jax.Array]:
    """Summed cross-entropy over labelled tokens (label >= 0) of real rows, and their count."""
    mask = (labels >= 0) & (weight[:, None] > 0)
    ce = optax.softmax_cross_entropy_with_integer_labels(logits, jnp.maximum(labels, 0))
    return jnp.sum(jnp.where(mask, ce, 0.0)), jnp.sum(mask).astype(jnp.float32)


@register("ner")
class Ner(KlueTask):
    """KLUE-NER; selected on the character macro F1 (the baseline's checkpoint metric)."""

    name = "ner"
    metric_key = "ner_char_f1"
    #: Feature columns and head outputs cut to the batch's length bucket, and the logit of
    #: the positions restored for `predict` (`finetune.batching`; their offsets are -1).
    sequence_columns = (*INPUT_KEYS, "labels", "token_offsets")
    sequence_outputs = {"logits": 0.0}

    def encode(
        self,
        examples: Sequence[NerSentence],
        ctx: EncodeContext,
        max_seq_length: int,
        train: bool,
    ) -> Features:
        """One row per sentence: ``labels`` (tag ids, -1 unlabelled) and ``token_offsets``
        (``[start, end)`` characters of each position, -1 for special and padding positions)."""
        n = len(examples)
        budget = max_seq_length - 2
        if budget < 1:
            raise ValueError(f"max_seq_length {max_seq_length} leaves no room for text")
        ids = np.full((n, max_seq_length), ctx.pad_id, np.int32)
        mask = np.zeros((n, max_seq_length), np.int32)
        labels = np.full((n, max_seq_length), IGNORE, np.int32)
        offsets = np.full((n, max_seq_length, 2), -1, np.int32)
        tokenized = tokenize_batch(ctx.tokenizer, [ex.sentence for ex in examples])
        for i, (ex, tok) in enumerate(zip(examples, tokenized, strict=True)):
            k = min(len(tok), budget)
            ids[i, 0] = ctx.cls_id
            ids[i, 1 : k + 1] = tok.ids[:k]
            ids[i, k + 1] = ctx.sep_id
            mask[i, : k + 2] = 1
            if k:
                offsets[i, 1 : k + 1] = tok.offsets[:k]
                tags = token_tags(ex.tags, tok.offsets[:k], ex.sentence)
                labels[i, 1 : k + 1] = [TAG_ID[t] for t in tags]
        arrays = {
            "input_ids": ids,
            "token_type_ids": np.zeros_like(ids),
            "attention_mask": mask,
            "labels": labels,
            "token_offsets": offsets,
        }
        return Features(arrays, np.arange(n, dtype=np.int64))

    def make_head(self, model_config: Any, rngs: nnx.Rngs) -> nnx.Module:
        return TokenTaggingHead(model_config, len(TAGS), rngs=rngs)

    def loss(self, outputs: Mapping[str, Any], batch: Mapping[str, Any]) -> tuple[Any, Any]:
        return token_loss(outputs["logits"], batch["labels"], batch["weight"])

    def predict(
        self,
        outputs: Mapping[str, np.ndarray],
        features: Features,
        examples: Sequence[NerSentence],
    ) -> list[dict[str, Any]]:
        """``{"guid", "tags"}`` per sentence, one tag per character (spaces included)."""
        ids = np.asarray(outputs["logits"]).argmax(-1)
        return decode_rows(ids, features, examples)


def decode_rows(
    tag_ids: np.ndarray, features: Features, examples: Sequence[NerSentence]
) -> list[dict[str, Any]]:
    """Predictions from per-position tag ids ``[rows, L]`` (one row per sentence)."""
    out: list[dict[str, Any] | None] = [None] * len(examples)
    offs = features.arrays["token_offsets"]
    for row, i in enumerate(features.example_index):
        keep = offs[row, :, 0] >= 0
        spans = [(int(s), int(e)) for s, e in offs[row][keep]]
        predicted = [TAGS[t] for t in tag_ids[row][keep]]
        sentence = examples[i].sentence
        tags = char_tags(len(sentence), spans, predicted, sentence)
        out[i] = {"guid": examples[i].guid, "tags": tags}
    missing = [examples[i].guid for i, p in enumerate(out) if p is None]
    if missing:
        raise ValueError(f"NER: no feature row for sentences {missing[:5]}")
    return out  # type: ignore[return-value]
