"""KLUE-DP: dependency parsing of eojeols (words) with a biaffine parser on the encoder.

Encoding (as the KLUE baseline's ``klue_dp`` processor). Each word is tokenised on its own and
the pieces are concatenated, ``[CLS] w1 w2 ... [SEP]``, so every word owns a contiguous run of
subwords; a word the tokenizer drops entirely becomes one ``[UNK]``. Per word the feature rows
keep the index of its first and last subword, its POS id (the word's LAST morpheme tag, as the
baseline: ``NNG+JKS`` -> ``JKS``), its gold head (0 = root) and deprel id. Words that do not fit
in ``max_seq_length`` are cut (their loss is masked, and so is every word whose gold head was
cut); at prediction they attach to the sentence's last kept word with the label
``DEFAULT_DEPREL``, and `DpTask.truncated_words` counts them (none on KLUE DP at length 256:
its longest dev sentence has 35 words).

Head (the baseline's ``DPTransformer``; Dozat & Manning 2017 with a decoder LSTM):
word vectors = [first subword; last subword] (the root is [CLS] twice) + a POS embedding
(dropout 0.33, all dropouts of the head in the baseline's ``nn.Dropout2d`` form: a word's whole
POS vector is dropped, and an LSTM output feature is dropped at every word of the sentence at
once; ``dropout_2d=False``: element-wise) -> a bidirectional LSTM -> for dependents, an LSTM
"decoder" over ``elu(W enc[1:])`` started from the encoder's final cells -> ELU projections
into an arc space (512) and a label space (256) -> a biaffine arc scorer
``h_i U c_j + w_d h_i + w_e c_j + b`` over the root and all words -> a bilinear label scorer
over the 38 deprels between each word and its head (the gold head in training, the predicted
head in evaluation).

Loss: cross-entropy of the gold head over the candidates plus cross-entropy of the gold label,
summed over real words (the trainer divides by their count, as the baseline divides by the
number of words). Decoding: each word's head by argmax (the baseline), or with
``tree_decoding=True`` the best projective tree with one root (Eisner's algorithm), then the
label argmax at that head. Checkpoint selection: ``dp_las_macro_f1`` (the baseline uses
``dp_uas_macro_f1`` for large models: set ``--config.metric_key``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx

from corpus.klue.dp import DpSentence
from finetune.metrics import DP_DEPRELS
from finetune.tasks.base import INPUT_KEYS, EncodeContext, Features, KlueTask, register

#: Sejong POS tags of KLUE DP (the baseline's ``get_pos_labels``); id 0 is the root/padding,
#: tags are 1..len, and any other tag maps to the last id.
POS_TAGS = (
    "NNG", "NNP", "NNB", "NP", "NR", "VV", "VA", "VX", "VCP", "VCN", "MMA", "MMD", "MMN", "MAG",
    "MAJ", "JC", "IC", "JKS", "JKC", "JKG", "JKO", "JKB", "JKV", "JKQ", "JX", "EP", "EF", "EC",
    "ETN", "ETM", "XPN", "XSN", "XSV", "XSA", "XR", "SF", "SP", "SS", "SE", "SO", "SL", "SH",
    "SW", "SN", "NA",
)  # fmt: skip
_POS_ID = {t: i + 1 for i, t in enumerate(POS_TAGS)}
UNKNOWN_POS = len(POS_TAGS) + 1
_DEPREL_ID = {d: i for i, d in enumerate(DP_DEPRELS)}
DEFAULT_DEPREL = "NP"
WORD_BUCKET = 16  # word capacity is rounded up to a multiple of this (fewer recompilations)
NEG = -1e9


def pos_id(pos: str) -> int:
    """The POS id of a word: its last morpheme tag (``NNG+JKS`` -> ``JKS``)."""
    return _POS_ID.get(pos.split("+")[-1], UNKNOWN_POS)


def word_capacity(examples: Sequence[DpSentence], max_seq_length: int) -> int:
    """Word slots per row: the longest sentence, rounded up, at most ``max_seq_length - 2``."""
    longest = max((len(ex.words) for ex in examples), default=1)
    cap = -(-longest // WORD_BUCKET) * WORD_BUCKET
    return max(1, min(cap, max_seq_length - 2))


def encode_sentence(
    ex: DpSentence, ctx: EncodeContext, max_seq_length: int, capacity: int, unk_id: int
) -> dict[str, np.ndarray]:
    """One sentence -> the encoder inputs and the word-level arrays (module doc)."""
    pieces = ctx.ids_batch([w.word_form for w in ex.words])
    ids, first, last = [ctx.cls_id], [], []
    budget = max_seq_length - 1  # room for [SEP]
    for p in pieces:
        p = p or [unk_id]
        if len(ids) + len(p) > budget or len(first) >= capacity:
            break
        first.append(len(ids))
        ids.extend(p)
        last.append(len(ids) - 1)
    ids.append(ctx.sep_id)
    kept = len(first)
    n, pad = len(ids), max_seq_length - len(ids)
    out = {
        "input_ids": np.asarray(ids + [ctx.pad_id] * pad, np.int32),
        "token_type_ids": np.zeros(max_seq_length, np.int32),
        "attention_mask": np.asarray([1] * n + [0] * pad, np.int32),
        "word_first": np.zeros(capacity, np.int32),
        "word_last": np.zeros(capacity, np.int32),
        "word_pos": np.zeros(capacity, np.int32),
        "word_mask": np.zeros(capacity, np.float32),
        "head": np.zeros(capacity, np.int32),
        "deprel": np.zeros(capacity, np.int32),
        "word_count": np.asarray(kept, np.int32),
    }
    out["word_first"][:kept] = first
    out["word_last"][:kept] = last
    for i, w in enumerate(ex.words[:kept]):
        out["word_pos"][i] = pos_id(w.pos)
        # A word whose gold head was cut cannot be scored against it: mask it out of the loss.
        usable = w.head <= kept
        out["word_mask"][i] = 1.0 if usable else 0.0
        out["head"][i] = w.head if usable else 0
        out["deprel"][i] = _DEPREL_ID.get(w.deprel, _DEPREL_ID[DEFAULT_DEPREL])
    return out


class Biaffine(nnx.Module):
    """``s[b, i, j] = d_i U e_j + w_d . d_i + w_e . e_j + b`` (dependent i, head candidate j)."""

    def __init__(self, dim: int, *, rngs: nnx.Rngs):
        init = nnx.initializers.xavier_uniform()
        self.u = nnx.Param(init(rngs.params(), (dim, dim)))
        self.w_d = nnx.Param(init(rngs.params(), (1, dim))[0])
        self.w_e = nnx.Param(init(rngs.params(), (1, dim))[0])
        self.b = nnx.Param(jnp.zeros(()))

    def __call__(self, d: jax.Array, e: jax.Array) -> jax.Array:
        bilinear = jnp.einsum("bid,de,bje->bij", d, self.u[...], e)
        return bilinear + (d @ self.w_d[...])[:, :, None] + (e @ self.w_e[...])[:, None, :] + self.b


class Bilinear(nnx.Module):
    """Label scores ``s[b, i, l] = x_i U_l y_i + W_l [x_i; y_i] + b_l``."""

    def __init__(self, dim: int, num_labels: int, *, rngs: nnx.Rngs):
        init = nnx.initializers.xavier_uniform()
        self.u = nnx.Param(init(rngs.params(), (num_labels, dim, dim)))
        self.w = nnx.Param(init(rngs.params(), (2 * dim, num_labels)))
        self.b = nnx.Param(jnp.zeros((num_labels,)))

    def __call__(self, x: jax.Array, y: jax.Array) -> jax.Array:
        bilinear = jnp.einsum("bid,lde,bie->bil", x, self.u[...], y)
        return bilinear + jnp.concatenate([x, y], -1) @ self.w[...] + self.b[...]


class DpHead(nnx.Module):
    """The parser on top of the encoder (module doc): ``{"arc": [B,W,W+1], "label": [B,W,38]}``."""

    def __init__(
        self,
        config: Any,
        *,
        lstm_size: int,
        arc_space: int,
        type_space: int,
        pos_dim: int,
        dropout: float,
        rngs: nnx.Rngs,
        dropout_2d: bool = True,
    ):
        h = config.hidden_size
        self.pos_embed = nnx.Embed(UNKNOWN_POS + 1, pos_dim, rngs=rngs)
        enc_in = 2 * h + pos_dim

        def lstm(n_in: int) -> nnx.RNN:
            return nnx.RNN(nnx.OptimizedLSTMCell(n_in, lstm_size, rngs=rngs), return_carry=True)

        self.encoder = nnx.Bidirectional(lstm(enc_in), lstm(enc_in), return_carry=True)
        self.decoder = lstm(lstm_size)
        self.src_dense = nnx.Linear(2 * lstm_size, lstm_size, rngs=rngs)
        self.hx_dense = nnx.Linear(2 * lstm_size, lstm_size, rngs=rngs)
        self.arc_c = nnx.Linear(2 * lstm_size, arc_space, rngs=rngs)
        self.type_c = nnx.Linear(2 * lstm_size, type_space, rngs=rngs)
        self.arc_h = nnx.Linear(lstm_size, arc_space, rngs=rngs)
        self.type_h = nnx.Linear(lstm_size, type_space, rngs=rngs)
        self.arc = Biaffine(arc_space, rngs=rngs)
        self.label = Bilinear(type_space, len(DP_DEPRELS), rngs=rngs)
        # torch's Dropout2d on [B, W, P] (POS) zeroes whole rows (a word's vector); on the
        # LSTM outputs transposed to [B, D, W] whole features across the sentence. nnx's
        # broadcast_dims share one mask along the given axes of [B, W, D].
        self.drop_word = nnx.Dropout(dropout, broadcast_dims=(2,) if dropout_2d else (), rngs=rngs)
        self.drop_feature = nnx.Dropout(
            dropout, broadcast_dims=(1,) if dropout_2d else (), rngs=rngs
        )

    def __call__(self, sequence, pooled, batch, *, deterministic: bool = True, rngs=None):
        def drop(x, module):
            return module(x, deterministic=deterministic, rngs=rngs)

        seq = sequence.astype(jnp.float32)
        first = jnp.take_along_axis(seq, batch["word_first"][..., None], axis=1)
        last = jnp.take_along_axis(seq, batch["word_last"][..., None], axis=1)
        root = jnp.concatenate([seq[:, :1], seq[:, :1]], -1)
        words = jnp.concatenate([root, jnp.concatenate([first, last], -1)], 1)  # [B, W+1, 2H]
        pos = jnp.pad(batch["word_pos"], ((0, 0), (1, 0)))
        x = jnp.concatenate([words, drop(self.pos_embed(pos), self.drop_word)], -1)
        n_words = batch["word_count"].astype(jnp.int32)
        (c_fwd, c_bwd), enc = self.encoder(x, seq_lengths=n_words + 1)
        enc = drop(enc, self.drop_feature)  # [B, W+1, 2S]
        # Decoder start state from both directions' final cells (OptimizedLSTMCell carry: (c, h)).
        cn = self.hx_dense(jnp.concatenate([c_fwd[0], c_bwd[0]], -1))
        src = nnx.elu(self.src_dense(enc[:, 1:]))
        _, dec = self.decoder(src, initial_carry=(cn, jnp.tanh(cn)), seq_lengths=n_words)
        dec = drop(dec, self.drop_feature)  # [B, W, S]
        arc = self.arc(nnx.elu(self.arc_h(dec)), nnx.elu(self.arc_c(enc)))  # [B, W, W+1]
        candidates = jnp.arange(arc.shape[-1])[None, None, :] <= n_words[:, None, None]
        arc = jnp.where(candidates, arc, NEG)
        heads = batch["head"] if not deterministic else jnp.argmax(arc, -1)
        type_c = nnx.elu(self.type_c(enc))
        head_vec = jnp.take_along_axis(type_c, heads[..., None], axis=1)
        label = self.label(nnx.elu(self.type_h(dec)), head_vec)
        return {"arc": arc.astype(jnp.float32), "label": label.astype(jnp.float32)}


def eisner(scores: np.ndarray) -> np.ndarray:
    """Best projective tree with exactly one word attached to the root.

    ``scores[i, j]``: score of head i for dependent j over n+1 nodes (0 = root). Returns heads
    for nodes 1..n. O(n^3) dynamic programme (Eisner 1996) with the single-root constraint
    applied by choosing the best root child over complete spans of the words.
    """
    n = scores.shape[0] - 1
    if n == 1:
        return np.zeros(1, np.int64)
    # Parse the words 1..n only (no root), then attach the best top word to the root.
    s = scores[1:, 1:]
    m = n
    inf = -np.inf
    # complete[i][j][d], incomplete[i][j][d]: d=1 head on the left (i), d=0 head on the right (j)
    comp = np.full((m, m, 2), inf)
    inc = np.full((m, m, 2), inf)
    comp_bp = np.zeros((m, m, 2), np.int64)
    inc_bp = np.zeros((m, m, 2), np.int64)
    for i in range(m):
        comp[i, i, :] = 0.0
    for length in range(1, m):
        for i in range(m - length):
            j = i + length
            vals = comp[i, i:j, 1] + comp[i + 1 : j + 1, j, 0]
            k = int(np.argmax(vals))
            inc[i, j, 0] = vals[k] + s[j, i]  # j heads i
            inc[i, j, 1] = vals[k] + s[i, j]  # i heads j
            inc_bp[i, j, :] = i + k
            left = comp[i, i:j, 0] + inc[i:j, j, 0]
            k = int(np.argmax(left))
            comp[i, j, 0], comp_bp[i, j, 0] = left[k], i + k
            right = inc[i, i + 1 : j + 1, 1] + comp[i + 1 : j + 1, j, 1]
            k = int(np.argmax(right))
            comp[i, j, 1], comp_bp[i, j, 1] = right[k], i + 1 + k
    root_scores = [comp[0, r, 0] + comp[r, m - 1, 1] + scores[0, r + 1] for r in range(m)]
    r = int(np.argmax(root_scores))
    heads = np.zeros(m, np.int64)
    heads[r] = 0

    def complete(i: int, j: int, d: int) -> None:
        if i == j:
            return
        k = comp_bp[i, j, d]
        if d == 0:
            complete(i, k, 0)
            incomplete(k, j, 0)
        else:
            incomplete(i, k, 1)
            complete(k, j, 1)

    def incomplete(i: int, j: int, d: int) -> None:
        k = inc_bp[i, j, d]
        if d == 0:
            heads[i] = j + 1
        else:
            heads[j] = i + 1
        complete(i, k, 1)
        complete(k + 1, j, 0)

    complete(0, r, 0)
    complete(r, m - 1, 1)
    return heads


@register("dp")
class DpTask(KlueTask):
    """KLUE-DP on the shared trainer (module doc)."""

    name = "dp"
    metric_key = "dp_las_macro_f1"
    #: Feature columns cut to the batch's length bucket (`finetune.batching`); the word
    #: arrays have their own axis (the word capacity) and index positions inside the row.
    sequence_columns = INPUT_KEYS

    def __init__(
        self,
        lstm_size: int = 768,
        arc_space: int = 512,
        type_space: int = 256,
        pos_dim: int = 256,
        dropout: float = 0.33,
        tree_decoding: bool = False,
        dropout_2d: bool = True,
    ) -> None:
        self.sizes = dict(
            lstm_size=lstm_size, arc_space=arc_space, type_space=type_space, pos_dim=pos_dim
        )
        self.dropout = dropout
        self.dropout_2d = dropout_2d
        self.tree_decoding = tree_decoding
        self.truncated_words = 0

    def encode(
        self, examples: Sequence[DpSentence], ctx: EncodeContext, max_seq_length: int, train: bool
    ) -> Features:
        unk = ctx.tokenizer.token_to_id("[UNK]")
        unk_id = ctx.sep_id if unk is None else int(unk)
        capacity = word_capacity(examples, max_seq_length)
        rows = [encode_sentence(ex, ctx, max_seq_length, capacity, unk_id) for ex in examples]
        arrays = {k: np.stack([r[k] for r in rows]) for k in rows[0]} if rows else {}
        return Features(arrays, np.arange(len(rows), dtype=np.int64))

    def make_head(self, model_config: Any, rngs: nnx.Rngs) -> DpHead:
        return DpHead(
            model_config,
            dropout=self.dropout,
            dropout_2d=self.dropout_2d,
            rngs=rngs,
            **self.sizes,
        )

    def loss(self, outputs: Mapping[str, Any], batch: Mapping[str, Any]) -> tuple[Any, Any]:
        mask = batch["word_mask"] * batch["weight"].astype(jnp.float32)[:, None]
        arc_lp = jax.nn.log_softmax(outputs["arc"], -1)
        arc_nll = -jnp.take_along_axis(arc_lp, batch["head"][..., None], -1)[..., 0]
        lab_lp = jax.nn.log_softmax(outputs["label"], -1)
        lab_nll = -jnp.take_along_axis(lab_lp, batch["deprel"][..., None], -1)[..., 0]
        return jnp.sum((arc_nll + lab_nll) * mask), jnp.sum(mask)

    def predict(
        self,
        outputs: Mapping[str, np.ndarray],
        features: Features,
        examples: Sequence[DpSentence],
    ) -> list[dict[str, Any]]:
        preds, truncated = [], 0
        counts = features.arrays["word_count"]
        for row, ex_i in enumerate(features.example_index):
            ex = examples[int(ex_i)]
            n, kept = len(ex.words), int(counts[row])
            arc = np.asarray(outputs["arc"][row])[:kept, : kept + 1]
            if self.tree_decoding and kept > 0:
                full = np.full((kept + 1, kept + 1), -np.inf)
                full[:, 1:] = arc.T  # full[head, dependent]
                # Labels were scored at the argmax heads; where the tree picks another head the
                # label is still that row's argmax (scoring all heads x labels would cost
                # W x W x 38 floats per sentence).
                heads = eisner(full)
            else:
                heads = arc.argmax(-1)
            labels = np.asarray(outputs["label"][row])[:kept].argmax(-1)
            out_heads = [int(h) for h in heads] + [kept] * (n - kept)
            out_rels = [DP_DEPRELS[int(i)] for i in labels] + [DEFAULT_DEPREL] * (n - kept)
            truncated += n - kept
            preds.append({"guid": ex.guid, "heads": out_heads, "deprels": out_rels})
        self.truncated_words = truncated
        return preds
