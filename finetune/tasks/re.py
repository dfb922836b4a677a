"""KLUE-RE: relation classification (30 relations) of a marked subject/object pair.

(Imported as ``finetune.tasks.re``; it never shadows the standard library's ``re`` because
imports are absolute.)

Encoding (KLUE paper §5.1 and the baseline). The four entity-marker tokens `MARKERS` are
added to the tokenizer and the embedding matrix by the trainer (`extra_tokens`; the new rows
are drawn deterministically from the run's seed) and inserted around the two entities in the
sentence: ``<subj>조지 해리슨</subj>이 쓰고 <obj>비틀즈</obj>가 ...``. `mark_entities`
inserts them at the entities' character offsets; it handles either order, entities that touch,
and nested or overlapping entities (a marker sequence is always well defined; the baseline
raises on overlap). Markers split text into separately tokenised pieces, so a word cut by a
closing marker (``</subj>이``) would restart as a word-initial piece (``이`` instead of
``##이``). Like the baseline's ``fix_tokenization_error``, the token after a marker that sits
INSIDE a word is turned into its ``##`` continuation form when the vocabulary has it; here the
rule applies to all four markers and uses the tokenizer's own word boundaries (whitespace,
punctuation and CJK characters start words, `tokenizer.wordpiece.is_isolated`) instead of
"the next character is Hangul". ``[CLS] marked sentence [SEP]`` is cut at ``max_seq_length``
(256 in the config) as the baseline does.

Head (``representation``, ``--config.task_options.representation``):

* ``"cls"`` (default; the paper §5.1 and the baseline's ``AutoModelForSequenceClassification``):
  the first-token classifier of the sentence tasks (`FirstTokenHead`: BERT pooler + dropout +
  linear, or RoBERTa's classification head).
* ``"entity_start"``: the encoder states at the ``<subj>`` and ``<obj>`` markers, concatenated
  (Baldini Soares et al. 2019, "entity markers - entity start"; Zhou and Chen 2021), then
  dropout, dense + tanh, dropout, linear (`EntityStartHead`). The [CLS] state has to learn
  where the two entities are; the marker states sit on them. This matters for small or briefly
  pretrained encoders (docs/finetune_models.md has the measured difference).
* ``"mention_mean"``: the same head on the mean of the states of each entity's own tokens
  (between its markers; Baldini Soares et al.'s "entity markers - mention pool", with a mean
  instead of a max). The marker state knows its entity only through attention; a token's own
  state keeps its word embedding through the residual path, which a barely trained encoder
  cannot yet replace by attention.

A ``<subj>``/``<obj>`` cut off by ``max_seq_length`` falls back to position 0 ([CLS]); a cut
closing marker lets the mention run to the end of the row; `encode` counts rows with a cut
opening marker (``truncated_markers``).

Loss: cross-entropy (``no_relation`` weighted like every other class, as the baseline).

Decoding: ``{"guid", "label", "probs"}`` with the softmax over all 30 relations in
``relation_list.json`` order, which the scorer needs for AUPRC, and the argmax as ``label``.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx

from corpus.klue.relation import ReExample
from finetune.tasks.alignment import backend
from finetune.tasks.base import (
    INPUT_KEYS,
    EncodeContext,
    Features,
    KlueTask,
    Splits,
    register,
)
from finetune.tasks.classification import FirstTokenHead, head_linear_kwargs
from tokenizer.wordpiece import PREFIX, is_isolated

SUBJ_START, SUBJ_END, OBJ_START, OBJ_END = "<subj>", "</subj>", "<obj>", "</obj>"
MARKERS = (SUBJ_START, SUBJ_END, OBJ_START, OBJ_END)
#: The head's input: the paper's [CLS] state, or the states at the <subj> and <obj> markers.
REPRESENTATIONS = ("cls", "entity_start", "mention_mean")


def mark_entities(
    sentence: str, subject: tuple[int, int], obj: tuple[int, int]
) -> tuple[list[str], list[int]]:
    """Pieces of the marked sentence and the original character position of each marker.

    `subject` and `obj` are ``[start, end)`` character spans. Returns ``(pieces, positions)``:
    ``pieces`` alternates text and markers (``"".join(pieces)`` is the marked sentence; empty
    text pieces are dropped), ``positions[k]`` is where the k-th marker sits in `sentence`.
    At one position, closing markers come before opening ones (touching entities), an entity
    that starts there and is longer opens first and one that ends there and started later
    closes first (nesting; identical spans put the subject outside), so the markers always
    bracket their own entity.
    """
    for name, (s, e) in (("subject", subject), ("object", obj)):
        if not 0 <= s < e <= len(sentence):
            raise ValueError(f"{name} span {s}..{e} outside the sentence (length {len(sentence)})")
    events = []  # (position, order key, marker)
    spans = ((subject, SUBJ_START, SUBJ_END), (obj, OBJ_START, OBJ_END))
    for k, ((s, e), open_m, close_m) in enumerate(spans):
        # Opens after closes; the longer opens first; the later-starting (inner) closes first;
        # identical spans nest with the subject outside.
        events.append((s, (1, -e, k), open_m))
        events.append((e, (0, -s, -k), close_m))
    events.sort(key=lambda x: (x[0], x[1]))
    pieces, positions, prev = [], [], 0
    for pos, _, marker in events:
        if pos > prev:
            pieces.append(sentence[prev:pos])
        pieces.append(marker)
        positions.append(pos)
        prev = pos
    if prev < len(sentence):
        pieces.append(sentence[prev:])
    return pieces, positions


def splits_word(sentence: str, position: int) -> bool:
    """True when position `position` of `sentence` lies inside a word of the tokenizer."""
    if not 0 < position < len(sentence):
        return False
    left, right = sentence[position - 1], sentence[position]
    return not (left.isspace() or right.isspace() or is_isolated(left) or is_isolated(right))


def encode_marked(tokenizer: Any, example: ReExample) -> list[int]:
    """Token ids of the marked sentence (no [CLS]/[SEP]), continuation fix applied."""
    tok = backend(tokenizer)
    pieces, positions = mark_entities(
        example.sentence, example.subject_entity.span, example.object_entity.span
    )
    marker_ids = {m: tok.token_to_id(m) for m in MARKERS}
    if any(i is None for i in marker_ids.values()):
        raise ValueError(
            f"RE: the tokenizer lacks the entity markers {MARKERS}; add them first "
            "(the trainer does, through the task's extra_tokens)"
        )
    enc = tok.encode("".join(pieces), add_special_tokens=False)
    ids, tokens = list(enc.ids), list(enc.tokens)
    marker_set = set(marker_ids.values())
    k = 0  # index of the marker met so far, in `positions` order
    for t, i in enumerate(ids):
        if i not in marker_set:
            continue
        if k >= len(positions):
            raise ValueError(f"RE {example.guid}: the sentence itself contains a marker token")
        pos = positions[k]
        k += 1
        nxt = t + 1
        if nxt >= len(ids) or ids[nxt] in marker_set or not splits_word(example.sentence, pos):
            continue
        if tokens[nxt].startswith(PREFIX):
            continue
        cont = tok.token_to_id(PREFIX + tokens[nxt])
        if cont is not None:
            ids[nxt] = cont
    if k != len(positions):
        raise ValueError(f"RE {example.guid}: found {k} of {len(positions)} entity markers")
    return ids


@register("re")
class Re(KlueTask):
    """KLUE-RE, selected on micro F1 (without no_relation); the scorer also gives AUPRC."""

    name = "re"
    metric_key = "re_micro_f1"
    #: Feature columns cut to the batch's length bucket (`finetune.batching`); the marker
    #: positions point inside the row, so they stay valid.
    sequence_columns = INPUT_KEYS
    extra_tokens = MARKERS

    #: The relation list the latest `load_splits` read, for instances that did not load the
    #: splits themselves (a caller may load splits with one instance and train with another).
    _loaded_relations: tuple[str, ...] | None = None

    def __init__(self, relations: Sequence[str] | None = None, representation: str = "cls"):
        if representation not in REPRESENTATIONS:
            raise ValueError(
                f"RE representation {representation!r}: use one of {', '.join(REPRESENTATIONS)}"
            )
        self._relations = tuple(relations) if relations is not None else None
        self.representation = representation
        self.truncated_markers = 0  # rows of the last `encode` whose <subj> or <obj> was cut off

    def program_key(self) -> tuple[Any, ...]:
        """The options and the relation list (the classifier's width) the head is built with."""
        return (*self.options, ("head_relations", self.relations))

    @property
    def relations(self) -> tuple[str, ...]:
        """Relation names in id order: those given to the constructor, else the
        ``relation_list.json`` that `load_splits` read (this instance's or the latest one's)."""
        names = self._relations or Re._loaded_relations
        if names is None:
            raise RuntimeError("RE: relation list unknown; call load_splits(data_dir) first")
        return names

    def load_splits(self, data_dir: str | os.PathLike | None, dev_fraction: float) -> Splits:
        from corpus import klue

        splits = super().load_splits(data_dir, dev_fraction)
        self._relations = Re._loaded_relations = klue.relations(data_dir)
        return splits

    def encode(
        self, examples: Sequence[ReExample], ctx: EncodeContext, max_seq_length: int, train: bool
    ) -> Features:
        """One row per example: ``[CLS] marked sentence [SEP]``, ``label`` (relation id),
        ``subj_pos`` / ``obj_pos``, the positions of the ``<subj>`` / ``<obj>`` markers (0 when
        ``max_seq_length`` cut the marker off), and ``subj_end`` / ``obj_end``, those of
        ``</subj>`` / ``</obj>`` (the final [SEP] when only the closing marker was cut off, 0
        when the opening one was)."""
        budget = max_seq_length - 2
        if budget < 1:
            raise ValueError(f"max_seq_length {max_seq_length} leaves no room for text")
        index = {r: i for i, r in enumerate(self.relations)}
        tok = backend(ctx.tokenizer)
        marker_ids = [tok.token_to_id(m) for m in (SUBJ_START, OBJ_START, SUBJ_END, OBJ_END)]
        n = len(examples)
        ids = np.full((n, max_seq_length), ctx.pad_id, np.int32)
        mask = np.zeros((n, max_seq_length), np.int32)
        labels = np.zeros(n, np.int32)
        positions = np.zeros((n, 4), np.int32)  # <subj>, <obj>, </subj>, </obj>
        for i, ex in enumerate(examples):
            if ex.label not in index:
                raise ValueError(f"RE {ex.guid}: label {ex.label!r} is not a known relation")
            body = encode_marked(ctx.tokenizer, ex)[:budget]
            row = [ctx.cls_id, *body, ctx.sep_id]
            ids[i, : len(row)] = row
            mask[i, : len(row)] = 1
            labels[i] = index[ex.label]
            for j, marker in enumerate(marker_ids):
                at = np.flatnonzero(ids[i, : len(row)] == marker)
                positions[i, j] = at[0] if len(at) else (0 if j < 2 else len(row) - 1)
            positions[i, 2:] = np.where(positions[i, :2] == 0, 0, positions[i, 2:])
        self.truncated_markers = int(np.sum(np.any(positions[:, :2] == 0, axis=1)))
        if self.truncated_markers:
            logging.info(
                "RE: in %d of %d rows max_seq_length %d cut off <subj> or <obj>%s",
                self.truncated_markers,
                n,
                max_seq_length,
                " (the entity_start head reads [CLS] there)"
                if self.representation == "entity_start"
                else "",
            )
        arrays = {
            "input_ids": ids,
            "token_type_ids": np.zeros_like(ids),
            "attention_mask": mask,
            "label": labels,
            "subj_pos": positions[:, 0],
            "obj_pos": positions[:, 1],
            "subj_end": positions[:, 2],
            "obj_end": positions[:, 3],
        }
        return Features(arrays, np.arange(n, dtype=np.int64))

    def make_head(self, model_config: Any, rngs: nnx.Rngs) -> nnx.Module:
        if self.representation != "cls":
            pooling = "start" if self.representation == "entity_start" else "mention_mean"
            return EntityHead(model_config, len(self.relations), pooling, rngs=rngs)
        return FirstTokenHead(model_config, len(self.relations), rngs=rngs)

    def loss(self, outputs: Mapping[str, Any], batch: Mapping[str, Any]) -> tuple[Any, Any]:
        logp = jax.nn.log_softmax(outputs["logits"], axis=-1)
        nll = -jnp.take_along_axis(logp, batch["label"][:, None].astype(jnp.int32), 1)[:, 0]
        w = batch["weight"].astype(jnp.float32)
        return jnp.sum(nll * w), jnp.sum(w)

    def predict(
        self,
        outputs: Mapping[str, np.ndarray],
        features: Features,
        examples: Sequence[ReExample],
    ) -> list[dict[str, Any]]:
        """``{"guid", "label", "probs"}`` per example, probabilities in relation-list order."""
        return decode_probs(softmax(np.asarray(outputs["logits"])), features, examples, self)


class EntityHead(nnx.Module):
    """Classifier on the two entities' states: float32 ``{"logits": [B, C]}``.

    ``[subject; object]`` -> dropout -> dense (2H -> H) + tanh -> dropout -> linear, where an
    entity is its opening marker's state (``pooling="start"``) or the mean of the states of the
    tokens between its markers (``"mention_mean"``; the opening marker's state when there are
    none, i.e. when the marker was cut off).
    """

    def __init__(self, config: Any, num_outputs: int, pooling: str, *, rngs: nnx.Rngs):
        if pooling not in ("start", "mention_mean"):
            raise ValueError(f"unknown entity pooling {pooling!r}")
        h = config.hidden_size
        kw = head_linear_kwargs(config, rngs)
        self.pooling = pooling
        self.dense = nnx.Linear(2 * h, h, **kw)
        self.out = nnx.Linear(h, num_outputs, **kw)
        self.dropout = nnx.Dropout(config.hidden_dropout, rngs=rngs)

    def entity(self, sequence: jax.Array, start: jax.Array, end: jax.Array) -> jax.Array:
        first = jnp.take_along_axis(sequence, start.astype(jnp.int32)[:, None, None], axis=1)[:, 0]
        if self.pooling == "start":
            return first
        pos = jnp.arange(sequence.shape[1])[None, :]
        inside = ((pos > start[:, None]) & (pos < end[:, None])).astype(jnp.float32)
        count = jnp.sum(inside, axis=1, keepdims=True)
        mean = jnp.einsum("bl,blh->bh", inside, sequence.astype(jnp.float32)) / jnp.maximum(
            count, 1.0
        )
        return jnp.where(count > 0, mean, first.astype(jnp.float32)).astype(sequence.dtype)

    def __call__(self, sequence, pooled, batch, *, deterministic: bool = True, rngs=None):
        subj = self.entity(sequence, batch["subj_pos"], batch["subj_end"])
        obj = self.entity(sequence, batch["obj_pos"], batch["obj_end"])
        x = jnp.concatenate([subj, obj], axis=-1)
        x = self.dropout(x, deterministic=deterministic, rngs=rngs)
        x = jnp.tanh(self.dense(x))
        x = self.dropout(x, deterministic=deterministic, rngs=rngs)
        return {"logits": self.out(x).astype(jnp.float32)}


def softmax(logits: np.ndarray) -> np.ndarray:
    """Row softmax in float64 (stable), for the probabilities written to the file."""
    z = logits.astype(np.float64)
    z = np.exp(z - z.max(axis=-1, keepdims=True))
    return z / z.sum(axis=-1, keepdims=True)


def decode_probs(
    probs: np.ndarray, features: Features, examples: Sequence[ReExample], task: Re
) -> list[dict[str, Any]]:
    """Prediction objects from per-row class probabilities ``[rows, n_relations]``."""
    names = task.relations
    if probs.shape[1] != len(names):
        raise ValueError(f"RE: {probs.shape[1]} probabilities per row for {len(names)} relations")
    return [
        {
            "guid": examples[e].guid,
            "label": names[int(np.argmax(p))],
            "probs": [float(x) for x in p],
        }
        for e, p in zip(features.example_index, probs, strict=True)
    ]
