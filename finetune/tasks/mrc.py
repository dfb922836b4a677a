"""KLUE-MRC: extractive question answering with start/end logits over document windows.

Encoding (SQuAD v2 feature building, as the KLUE baseline's ``squad_convert_examples_to_features``
with ``max_seq_length`` 510, ``doc_stride`` 128, ``max_query_length`` 64). The question is cut
to `max_query_length` tokens; the context is tokenised once with character offsets and cut
into windows of ``max_seq_length - len(question) - 3`` tokens that START every ``doc_stride``
tokens (`doc_windows`; in the baseline's legacy SQuAD code the stride is the step between
window starts, not the overlap) until a window reaches the end. Each window is one feature
``[CLS] question [SEP] window [SEP]`` (segment ids 0/1 for BERT, all 0 for RoBERTa; the
separator is the model tokenizer's own, ``</s></s>`` for RoBERTa/XLM-R, one token less of
window). The
training target is the first gold answer's first and last token when the whole answer lies in
the window, else [CLS] (position 0), which is also the target of unanswerable questions.
(`Mrc.limits`: when ``max_seq_length`` is too short for these settings, as in a tiny smoke
config, the question gets at most half of it and the stride at most the window, with a warning.)

A token appears in several overlapping windows; as in SQuAD, an answer may START at a token
only in the window where that token has the most context (`max_context_windows`: the largest
``min(left, right) + 0.01 * window_length``, first window on ties), so one answer seen in two
windows is proposed once, from the window that sees it best.

Decoding (`best_answer`, SQuAD v2's ``compute_predictions_logits``): per window the `n_best_size`
best start and end positions among the context tokens, every pair with start <= end, at most
`max_answer_length` tokens long and a max-context start becomes a candidate scored
``start_logit + end_logit``; the text is the context's characters from the start token's first
to the end token's last character (exact character offsets, no detokenisation). The null
score is the lowest ``start_logit[0] + end_logit[0]`` over the question's windows; the
answer is "" (unanswerable) when the null score exceeds the best candidate's by more than
`null_threshold` (0, as the baseline), or when there is no candidate.

Known departures from the baseline: answers are cut from the context by character offsets
instead of SQuAD's ``get_final_text`` detokenise-and-realign heuristic (which can fail on
Korean particles and [UNK]); the n-best positions are chosen among context tokens only (the
baseline takes the n best over the whole sequence and then discards the question tokens).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx

from corpus.klue.mrc import MrcExample
from finetune.tasks.alignment import char_span_to_tokens, tokenize_batch
from finetune.tasks.base import INPUT_KEYS, EncodeContext, Features, KlueTask, register

#: The start/end logit of a padding position: never wins a softmax or an n-best list.
PAD_LOGIT = float(np.finfo(np.float32).min / 2)


def doc_windows(n_tokens: int, window: int, stride: int) -> list[tuple[int, int]]:
    """``[start, end)`` token windows of a context: starts every `stride` tokens, each up to
    `window` long, the last one reaching the end. An empty context gives one empty window."""
    if window < 1 or stride < 1:
        raise ValueError(f"window ({window}) and doc_stride ({stride}) must be positive")
    if stride > window:
        raise ValueError(
            f"doc_stride {stride} is longer than the context window {window}: tokens between "
            "windows would never be seen; lower --config.doc_stride or --config.max_query_length"
        )
    out, start = [], 0
    while True:
        end = min(start + window, n_tokens)
        out.append((start, end))
        if end >= n_tokens:
            return out
        start += stride


def max_context_windows(windows: Sequence[tuple[int, int]], n_tokens: int) -> np.ndarray:
    """For each context token, the index of the window in which it has the most context."""
    best = np.full(n_tokens, -1, np.int64)
    best_score = np.full(n_tokens, -np.inf)
    for w, (s, e) in enumerate(windows):
        for t in range(s, e):
            score = min(t - s, e - 1 - t) + 0.01 * (e - s)
            if score > best_score[t]:
                best_score[t], best[t] = score, w
    return best


@dataclasses.dataclass(frozen=True)
class Candidate:
    """A proposed answer: its text, character span ``[start, end)`` and score."""

    text: str
    start: int
    end: int
    score: float


def window_candidates(
    context: str,
    start_logits: np.ndarray,
    end_logits: np.ndarray,
    offsets: np.ndarray,
    max_context: np.ndarray,
    n_best_size: int,
    max_answer_length: int,
) -> list[Candidate]:
    """Span candidates of one feature row (``offsets [L, 2]`` = -1 outside the context)."""
    positions = np.flatnonzero(offsets[:, 0] >= 0)
    if positions.size == 0:
        return []
    k = min(n_best_size, positions.size)
    # Stable sort: equal logits keep position order, so ties resolve deterministically.
    starts = positions[np.argsort(-start_logits[positions], kind="stable")[:k]]
    ends = positions[np.argsort(-end_logits[positions], kind="stable")[:k]]
    out = []
    for s in starts:
        if not max_context[s]:
            continue
        for e in ends:
            if e < s or e - s + 1 > max_answer_length:
                continue
            c0, c1 = int(offsets[s, 0]), int(offsets[e, 1])
            while c0 < c1 and context[c0].isspace():  # pieces that carry a space (▁)
                c0 += 1
            while c1 > c0 and context[c1 - 1].isspace():
                c1 -= 1
            if c1 <= c0:
                continue
            score = float(start_logits[s]) + float(end_logits[e])
            out.append(Candidate(context[c0:c1], c0, c1, score))
    return out


def best_answer(
    context: str,
    rows: Sequence[Mapping[str, np.ndarray]],
    n_best_size: int = 20,
    max_answer_length: int = 30,
    null_threshold: float = 0.0,
) -> tuple[str, list[Candidate]]:
    """The answer of one question from its feature rows, and the n-best list (module doc).

    Each row has ``start_logits``, ``end_logits`` ``[L]``, ``context_offsets [L, 2]`` and
    ``is_max_context [L]``. The n-best list holds up to `n_best_size` distinct texts, best
    first, with the null answer ("") among them.
    """
    if not rows:
        raise ValueError("MRC: a question has no feature rows")
    cands: list[Candidate] = []
    null = np.inf
    for r in rows:
        sl, el = np.asarray(r["start_logits"]), np.asarray(r["end_logits"])
        null = min(null, float(sl[0]) + float(el[0]))
        cands += window_candidates(
            context,
            sl,
            el,
            np.asarray(r["context_offsets"]),
            np.asarray(r["is_max_context"]),
            n_best_size,
            max_answer_length,
        )
    # Best first; among equal scores the earlier span (stable, deterministic).
    cands.sort(key=lambda c: (-c.score, c.start, c.end))
    nbest, seen = [], set()
    for c in [*cands, Candidate("", -1, -1, null)]:
        if c.text in seen:
            continue
        seen.add(c.text)
        nbest.append(c)
    nbest.sort(key=lambda c: -c.score)
    nbest = nbest[: max(n_best_size, 1)]
    if not any(c.text == "" for c in nbest):
        nbest.append(Candidate("", -1, -1, null))
    answer = ""
    if cands and null - cands[0].score <= null_threshold:
        answer = cands[0].text
    return answer, nbest


class SpanHead(nnx.Module):
    """Hugging Face's QuestionAnswering head: one linear layer to 2 logits per position.

    Returns float32 ``start_logits`` and ``end_logits`` ``[B, L]``; padding positions get a
    very low logit so that they never win a softmax.
    """

    def __init__(self, model_config: Any, *, rngs: nnx.Rngs):
        self.qa_outputs = nnx.Linear(
            model_config.hidden_size,
            2,
            kernel_init=nnx.initializers.normal(model_config.initializer_range),
            dtype=jnp.dtype(model_config.dtype),
            param_dtype=jnp.dtype(model_config.param_dtype),
            rngs=rngs,
        )

    def __call__(self, sequence, pooled, batch, *, deterministic: bool = True, rngs=None):
        logits = self.qa_outputs(sequence).astype(jnp.float32)
        keep = batch["attention_mask"].astype(bool)
        start = jnp.where(keep, logits[..., 0], PAD_LOGIT)
        end = jnp.where(keep, logits[..., 1], PAD_LOGIT)
        return {"start_logits": start, "end_logits": end}


@register("mrc")
class Mrc(KlueTask):
    """KLUE-MRC, selected on ROUGE-W (the baseline's checkpoint metric); EM is also scored."""

    name = "mrc"
    metric_key = "mrc_rouge_w"
    #: Feature columns and head outputs cut to the batch's length bucket (`finetune.batching`;
    #: a window of a long context fills max_seq_length, a short context's one window does not).
    sequence_columns = (*INPUT_KEYS, "context_offsets", "is_max_context")
    sequence_outputs = {"start_logits": PAD_LOGIT, "end_logits": PAD_LOGIT}

    def __init__(
        self,
        *,
        doc_stride: int = 128,
        max_query_length: int = 64,
        n_best_size: int = 20,
        max_answer_length: int = 30,
        null_threshold: float = 0.0,
    ):
        self.doc_stride = doc_stride
        self.max_query_length = max_query_length
        self.n_best_size = n_best_size
        self.max_answer_length = max_answer_length
        self.null_threshold = null_threshold
        #: Training questions whose gold answer is not where its offset says (left untrained).
        self.skipped: list[str] = []

    def limits(self, max_seq_length: int, specials: int = 3) -> tuple[int, int]:
        """``(max_query_length, doc_stride)`` that fit `max_seq_length` with ``specials``
        special tokens per row (3 for BERT's ``[CLS] q [SEP] c [SEP]``, 4 for XLM-R's).

        The question may take at most half of the sequence and the stride at most the shortest
        window; a short sequence (a tiny smoke config) lowers them, with a logged warning.
        """
        if max_seq_length < specials + 2:
            raise ValueError(f"MRC: max_seq_length {max_seq_length} leaves no room for text")
        q_limit = min(self.max_query_length, (max_seq_length - specials) // 2)
        stride = min(self.doc_stride, max_seq_length - specials - q_limit)
        if (q_limit, stride) != (self.max_query_length, self.doc_stride):
            logging.warning(
                "MRC: max_seq_length %d is too short for max_query_length %d and doc_stride %d; "
                "using %d and %d",
                max_seq_length,
                self.max_query_length,
                self.doc_stride,
                q_limit,
                stride,
            )
        return q_limit, stride

    def encode(
        self, examples: Sequence[MrcExample], ctx: EncodeContext, max_seq_length: int, train: bool
    ) -> Features:
        """Rows: one per window of every question (module doc). Besides the encoder inputs:
        ``start_positions``/``end_positions`` (targets, 0 = [CLS]), ``context_offsets [L, 2]``
        (characters of each context token, -1 elsewhere) and ``is_max_context [L]``.

        In training, a question whose first answer text is not at its ``answer_start`` is not
        encoded (no rows) and its guid is listed in `skipped`.
        """
        q_limit, stride = self.limits(max_seq_length, 2 + len(ctx.pair_separator))
        questions = tokenize_batch(ctx.tokenizer, [ex.question for ex in examples])
        contexts = _tokenize_contexts(ctx.tokenizer, examples)
        rows: dict[str, list] = {k: [] for k in _ROW_KEYS}
        index: list[int] = []
        self.skipped = []
        for i, ex in enumerate(examples):
            answer = None
            if ex.answers:
                a = ex.answers[0]
                if ex.context[a.answer_start : a.answer_end] != a.text:
                    if train:
                        self.skipped.append(ex.guid)
                        continue
                else:
                    answer = (a.answer_start, a.answer_end)
            q_ids = list(questions[i].ids[:q_limit])
            for row in self.encode_question(
                q_ids, contexts[ex.paragraph_index, ex.context], answer, ctx, max_seq_length, stride
            ):
                for k in _ROW_KEYS:
                    rows[k].append(row[k])
                index.append(i)
        if not index:
            raise ValueError("MRC: no question could be encoded")
        arrays = {k: np.stack(v) for k, v in rows.items()}
        return Features(arrays, np.asarray(index, np.int64))

    def encode_question(
        self,
        q_ids: list[int],
        context: Any,
        answer: tuple[int, int] | None,
        ctx: EncodeContext,
        max_seq_length: int,
        stride: int,
    ) -> list[dict[str, np.ndarray]]:
        """Feature rows of one question (``context`` is a `TokenizedText` of its context)."""
        middle = list(ctx.pair_separator)  # [SEP], or </s></s> for RoBERTa/XLM-R
        prefix = 1 + len(q_ids) + len(middle)  # [CLS] question [SEP]
        window = max_seq_length - prefix - 1
        n = len(context)
        wins = doc_windows(n, window, stride)
        best = max_context_windows(wins, n)
        span = char_span_to_tokens(context.offsets, *answer) if answer is not None else None
        out = []
        for w, (s, e) in enumerate(wins):
            ids = np.full(max_seq_length, ctx.pad_id, np.int32)
            types = np.zeros(max_seq_length, np.int32)
            mask = np.zeros(max_seq_length, np.int32)
            offsets = np.full((max_seq_length, 2), -1, np.int32)
            maxctx = np.zeros(max_seq_length, np.int8)
            body = [ctx.cls_id, *q_ids, *middle, *context.ids[s:e], ctx.sep_id]
            ids[: len(body)] = body
            mask[: len(body)] = 1
            if ctx.use_token_types:
                types[prefix : len(body)] = 1
            if e > s:
                offsets[prefix : prefix + e - s] = context.offsets[s:e]
                maxctx[prefix : prefix + e - s] = best[s:e] == w
            start = end = 0
            if span is not None and s <= span[0] and span[1] < e:
                start, end = prefix + span[0] - s, prefix + span[1] - s
            out.append(
                {
                    "input_ids": ids,
                    "token_type_ids": types,
                    "attention_mask": mask,
                    "start_positions": np.int32(start),
                    "end_positions": np.int32(end),
                    "context_offsets": offsets,
                    "is_max_context": maxctx,
                }
            )
        return out

    def make_head(self, model_config: Any, rngs: nnx.Rngs) -> nnx.Module:
        return SpanHead(model_config, rngs=rngs)

    def loss(self, outputs: Mapping[str, Any], batch: Mapping[str, Any]) -> tuple[Any, Any]:
        """Mean of the start and end cross-entropies per row (Hugging Face's QA loss)."""

        def nll(logits, target):
            logp = jax.nn.log_softmax(logits, axis=-1)
            return -jnp.take_along_axis(logp, target[:, None].astype(jnp.int32), 1)[:, 0]

        per_row = 0.5 * (
            nll(outputs["start_logits"], batch["start_positions"])
            + nll(outputs["end_logits"], batch["end_positions"])
        )
        w = batch["weight"].astype(jnp.float32)
        return jnp.sum(per_row * w), jnp.sum(w)

    def predict(
        self,
        outputs: Mapping[str, np.ndarray],
        features: Features,
        examples: Sequence[MrcExample],
    ) -> list[dict[str, Any]]:
        """``{"guid", "answer"}`` per question ("" when predicted unanswerable)."""
        by_example: dict[int, list[int]] = {}
        for row, i in enumerate(features.example_index):
            by_example.setdefault(int(i), []).append(row)
        out = []
        for i, ex in enumerate(examples):
            rows = [
                {
                    "start_logits": outputs["start_logits"][r],
                    "end_logits": outputs["end_logits"][r],
                    "context_offsets": features.arrays["context_offsets"][r],
                    "is_max_context": features.arrays["is_max_context"][r],
                }
                for r in by_example.get(i, [])
            ]
            answer = ""
            if rows:  # a question skipped at encoding (train only) has none
                answer, _ = best_answer(
                    ex.context, rows, self.n_best_size, self.max_answer_length, self.null_threshold
                )
            out.append({"guid": ex.guid, "answer": answer})
        return out


_ROW_KEYS = (
    "input_ids",
    "token_type_ids",
    "attention_mask",
    "start_positions",
    "end_positions",
    "context_offsets",
    "is_max_context",
)


def _tokenize_contexts(tokenizer: Any, examples: Sequence[MrcExample]) -> dict:
    """Each distinct context tokenised once (questions of a paragraph share it)."""
    keys = list(dict.fromkeys((ex.paragraph_index, ex.context) for ex in examples))
    toks = tokenize_batch(tokenizer, [c for _, c in keys])
    return dict(zip(keys, toks, strict=True))
