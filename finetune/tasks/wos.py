"""WoS dialogue state tracking with a TRADE-style generator on the pretrained encoder.

One feature row per user turn (the prediction unit ``<dialogue guid>:<user turn index>``).

Encoding (the KLUE baseline's WoS processor in spirit): the dialogue up to and including the
current user turn, ``[CLS] turn_1 [SEP] turn_2 [SEP] ... user_turn [SEP]``, truncated FROM THE
LEFT (the oldest tokens go; [CLS] stays) to ``max_seq_length``; with BERT-style segment ids the
current user turn is segment 1. Targets for each of the ontology's slots (45 on KLUE): a gate
(`GATES`: none / dontcare / ptr / yes / no) and the value's tokens followed by [SEP], where an
absent slot's value is the text ``none`` (the baseline trains the generator on it too). Every
row also carries the token ids of the slot names (``domain slot``), so the head needs nothing
but the batch.

Head (TRADE, Wu et al. 2019, as the baseline's ``SlotGenerator`` in parallel decoding): a GRU
decoder whose start state is the encoder's pooler output (the baseline's ``pooler_output``:
BERT's and RoBERTa's pretrained pooler when the checkpoint has one, else a freshly initialised
one, as transformers' ``AutoModel`` gives it; ``gru_start="cls"``: the raw [CLS] vector), whose
first input is the sum of
the slot name's word embeddings and later inputs the previous value token's embedding (the
encoder's word-embedding matrix, tied as in the baseline); at every step attention over the
encoder states gives a copy distribution over the input tokens, the state times the embedding
matrix a vocabulary distribution, and ``p_gen = sigmoid(W [x; h; context])`` mixes them; the gate
is a linear layer on the first step's context. All slots decode in parallel. ``gate_input``
``"context_state"`` (not the baseline's; default ``"context"``) gives the gate that step's GRU
state beside its context: the context is an average of encoder states, so two slots that attend
to the same tokens (``숙소-인터넷 가능`` and ``숙소-종류`` on one turn) get the same gate,
while the state still carries the slot name (docs/finetune_structured.md, memorisation).

Training is teacher-forced with probability ``teacher_forcing`` (0.5, the baseline's) per batch
and otherwise fed its own argmax tokens; teacher-forced, every step's attention runs in
parallel, which is what makes the step fast in JAX. Loss
per turn: the mean negative log-likelihood of the value tokens plus the mean gate cross-entropy
over slots; the trainer averages turns (the baseline averages tokens and gates over the batch).
``value_loss`` says whose value tokens count: ``"all"`` (default; the baseline and TRADE: every
slot, an absent one's ``none`` included) or ``"filled"`` (only slots with a value: ptr, and the
words ``dontcare`` / ``yes`` / ``no``). With ``"all"`` about four in five value targets of a
turn are ``none``, which repeats the gate's decision; a model trained from scratch then keeps
generating ``none`` for slots its gate already sends to ptr for hundreds of steps
(docs/finetune_structured.md, memorisation). The words dontcare / yes / no stay in ``"filled"``:
they train the first decoder step to tell slots apart, which the gate needs.
Evaluation decodes greedily for ``max_value_length`` steps. Decoding to the prediction format:
gate none -> no item; dontcare/yes/no -> that word; ptr -> the generated tokens up to [SEP],
detokenised (WordPiece detokenisation puts spaces around punctuation: ``16 : 18``), then spelled
as the first of these spells it, comparing without spaces: that slot's ontology values; the values
seen in the training targets (annotators write ``16:18`` for ``16시18분``; times and names are
mostly not in the ontology); the dialogue so far; else as decoded, with the spaces around
``: - / . ,`` between digits removed. A generated ``none`` is dropped.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx

from corpus.klue.wos import WosDialogue, split_state
from finetune.tasks.base import (
    INPUT_KEYS,
    NOT_COMPARABLE,
    EncodeContext,
    Features,
    KlueTask,
    Splits,
    TaskDataError,
    register,
    split_by_guid,
)

GATES = ("none", "dontcare", "ptr", "yes", "no")
_GATE_ID = {g: i for i, g in enumerate(GATES)}
NONE_VALUE = "none"
VALUE_LOSSES = ("all", "filled")
GATE_INPUTS = ("context", "context_state")
GRU_STARTS = ("pooler", "cls")
NEG = -1e9
_DIGIT_PUNCT = re.compile(r"(?<=\d) ?([:\-/.,]) ?(?=\d)")


def value_gate(value: str | None) -> int:
    if value is None:
        return _GATE_ID["none"]
    return _GATE_ID.get(value, _GATE_ID["ptr"])


def turn_states(dialogue: WosDialogue) -> list[tuple[int, tuple[str, ...]]]:
    """``[(index of the turn in the dialogue, gold state), ...]`` for every user turn."""
    return [(i, t.state or ()) for i, t in enumerate(dialogue.turns) if t.role == "user"]


def history_ids(
    dialogue: WosDialogue,
    upto: int,
    ctx: EncodeContext,
    max_seq_length: int,
    current_turn_segment: bool = False,
) -> dict[str, np.ndarray]:
    """``[CLS] t_1 [SEP] ... t_upto [SEP]`` truncated from the left, padded (module doc);
    segment ids all 0 (the baseline), or 1 on the current turn with ``current_turn_segment``
    and a model that has segment types."""
    pieces = ctx.ids_batch([t.text for t in dialogue.turns[: upto + 1]])
    body: list[int] = []
    types: list[int] = []
    for k, p in enumerate(pieces):
        current = k == upto
        body += [*p, ctx.sep_id]
        marked = current and current_turn_segment and ctx.use_token_types
        types += [1 if marked else 0] * (len(p) + 1)
    keep = max_seq_length - 1
    body, types = body[-keep:], types[-keep:]
    ids, types = [ctx.cls_id, *body], [0, *types]
    n, pad = len(ids), max_seq_length - len(ids)
    return {
        "input_ids": np.asarray(ids + [ctx.pad_id] * pad, np.int32),
        "token_type_ids": np.asarray(types + [0] * pad, np.int32),
        "attention_mask": np.asarray([1] * n + [0] * pad, np.int32),
    }


class TradeHead(nnx.Module):
    """TRADE slot generator (module doc). Training outputs the gold tokens' log-probabilities;
    evaluation outputs greedy token ids, their log-probabilities and the share of each one's
    probability that the pointer (copy from the input) contributed; both output the gate
    logits."""

    uses_word_embeddings = True

    def __init__(
        self,
        config: Any,
        *,
        max_value_length: int,
        dropout: float,
        rngs: nnx.Rngs,
        gate_input: str = "context",
        teacher_forcing: float = 1.0,
        decode_length: int = 0,
        gru_start: str = "pooler",
    ):
        h = config.hidden_size
        self.max_value_length = max_value_length
        self.decode_length = decode_length or max_value_length
        self.teacher_forcing = teacher_forcing
        self.gate_input = gate_input
        # The baseline's GRU starts from the encoder's pooler output (the trainer gives the
        # encoder one, `finetune.modeling.with_pooler`); "cls": the raw first-token state.
        self.gru_start = gru_start
        self.gru = nnx.RNN(nnx.GRUCell(h, h, rngs=rngs), return_carry=False)
        self.cell = self.gru.cell
        self.w_gen = nnx.Linear(3 * h, 1, rngs=rngs)
        width = 2 * h if gate_input == "context_state" else h
        self.w_gate = nnx.Linear(width, len(GATES), rngs=rngs)
        self.dropout = nnx.Dropout(dropout, rngs=rngs)

    def _start(self, sequence, pooled, batch, emb):
        b, s = batch["slot_ids"].shape[:2]
        if self.gru_start == "cls":
            h0 = sequence[:, 0].astype(jnp.float32)
        elif pooled is None:
            raise ValueError(
                "WoS: gru_start='pooler' needs an encoder with a pooler "
                "(finetune.modeling.with_pooler), or task_options.gru_start='cls'"
            )
        else:
            h0 = pooled.astype(jnp.float32)
        slot = jnp.sum(emb[batch["slot_ids"]] * batch["slot_mask"][..., None], axis=2)  # [B,S,H]
        return jnp.repeat(h0, s, axis=0), slot.reshape(b * s, -1)

    def _gate(self, context, hid):
        """Gate logits from the first decoder step's context [B,S,H] (TRADE), with that step's
        state beside it under ``gate_input="context_state"`` (module doc)."""
        x = context if self.gate_input == "context" else jnp.concatenate([context, hid], -1)
        return self.w_gate(x).astype(jnp.float32)

    def _attend(self, hid, enc, mask):
        """hid [B,S,...,H] x enc [B,L,H] -> attention [B,S,...,L], context [B,S,...,H]."""
        scores = jnp.einsum("bs...h,blh->bs...l", hid, enc)
        shape = (mask.shape[0], 1) + (1,) * (hid.ndim - 3) + (mask.shape[1],)
        scores = jnp.where(mask.reshape(shape) > 0, scores, NEG)
        attn = jax.nn.softmax(scores, -1)
        return attn, jnp.einsum("bs...l,blh->bs...h", attn, enc)

    def __call__(
        self, sequence, pooled, batch, *, deterministic=True, rngs=None, word_embeddings=None
    ):
        if word_embeddings is None:
            raise ValueError("TradeHead needs the encoder's word embeddings (tied, as TRADE)")
        emb = word_embeddings.astype(jnp.float32)
        enc = sequence.astype(jnp.float32)
        mask = batch["attention_mask"]
        b, s = batch["slot_ids"].shape[:2]
        h0, x0 = self._start(sequence, pooled, batch, emb)
        if deterministic:
            return self._greedy(batch, enc, emb, mask, h0, x0, b, s)
        # One dropout mask for every decoder input (the baseline drops each step's input).
        t = batch["target"].shape[-1]
        keep = self.dropout(jnp.ones((b * s, t, emb.shape[1])), deterministic=False, rngs=rngs)
        if self.teacher_forcing >= 1.0 or rngs is None:
            return self._teacher_forced(batch, enc, emb, mask, h0, x0, keep, b, s)
        # The baseline flips one coin per batch: teacher-forced, or fed its own argmax tokens.
        coin = jax.random.bernoulli(rngs.dropout(), self.teacher_forcing)
        return jax.lax.cond(
            coin,
            lambda: self._teacher_forced(batch, enc, emb, mask, h0, x0, keep, b, s),
            lambda: self._free_running(batch, enc, emb, mask, h0, x0, keep, b, s),
        )

    def _teacher_forced(self, batch, enc, emb, mask, h0, x0, keep, b, s):
        target = batch["target"]  # [B, S, T]
        t = target.shape[-1]
        prev = emb[target[..., :-1]].reshape(b * s, t - 1, -1)
        inputs = jnp.concatenate([x0[:, None], prev], 1) * keep  # [B*S, T, H]
        # The GRU over the steps as a plain lax.scan of its cell (nnx.RNN is an nnx transform,
        # which cannot run inside the lax.cond of the teacher-forcing coin).
        _, states = jax.lax.scan(
            lambda h, x: (self.cell(h, x)[0],) * 2, h0, jnp.moveaxis(inputs, 1, 0)
        )
        states = jnp.moveaxis(states, 0, 1)  # [B*S, T, H]
        hid = states.reshape(b, s, t, -1)
        attn, context = self._attend(hid, enc, mask)  # [B,S,T,L], [B,S,T,H]
        logits = jnp.einsum("bsth,vh->bstv", hid, emb)
        gold = target[..., None]
        p_vocab = jnp.exp(
            jnp.take_along_axis(logits, gold, -1)[..., 0] - jax.nn.logsumexp(logits, -1)
        )
        same = batch["input_ids"][:, None, None, :] == target[..., None]  # [B,S,T,L]
        p_copy = jnp.sum(attn * same, -1)
        x = inputs.reshape(b, s, t, -1)
        p_gen = jax.nn.sigmoid(self.w_gen(jnp.concatenate([x, hid, context], -1))[..., 0])
        p = p_gen * p_vocab + (1.0 - p_gen) * p_copy
        return {
            "token_logprob": jnp.log(p + 1e-12),
            "gate": self._gate(context[:, :, 0], hid[:, :, 0]),
        }

    def _step(self, h, x, enc, emb, mask, ids, b, s):
        """One decoder step of every slot: (new state [B*S,H], p [B,S,V], p_gen [B,S,1],
        p_copy [B,S,V], context [B,S,H], state [B,S,H])."""
        v = emb.shape[0]
        bi = jnp.arange(b)[:, None, None]
        si = jnp.arange(s)[None, :, None]
        h, _ = self.cell(h, x)
        hid = h.reshape(b, s, -1)
        attn, context = self._attend(hid, enc, mask)  # [B,S,L], [B,S,H]
        p_vocab = jax.nn.softmax(jnp.einsum("bsh,vh->bsv", hid, emb), -1)
        p_copy = jnp.zeros((b, s, v)).at[bi, si, ids[:, None, :]].add(attn)
        xin = x.reshape(b, s, -1)
        p_gen = jax.nn.sigmoid(self.w_gen(jnp.concatenate([xin, hid, context], -1)))
        p = p_gen * p_vocab + (1.0 - p_gen) * p_copy
        return h, p, p_gen, p_copy, context, hid

    def _free_running(self, batch, enc, emb, mask, h0, x0, keep, b, s):
        """Training without teacher forcing: each step's input is the embedding of the previous
        step's argmax token (as the baseline's), the outputs those of `_teacher_forced`."""
        target = batch["target"]  # [B, S, T]

        def step(carry, xs):
            h, x = carry
            gold, keep_k = xs  # [B,S], [B*S,H]
            h, p, _, _, context, hid = self._step(h, x * keep_k, enc, emb, mask, ids, b, s)
            gold_p = jnp.take_along_axis(p, gold[..., None], -1)[..., 0]
            token = jnp.argmax(p, -1)
            return (h, emb[token].reshape(b * s, -1)), (jnp.log(gold_p + 1e-12), context, hid)

        ids = batch["input_ids"]
        xs = (jnp.moveaxis(target, -1, 0), jnp.moveaxis(keep, 1, 0))
        _, (logp, contexts, states) = jax.lax.scan(step, (h0, x0), xs)
        return {
            "token_logprob": jnp.moveaxis(logp, 0, -1),
            "gate": self._gate(contexts[0], states[0]),
        }

    def _greedy(self, batch, enc, emb, mask, h0, x0, b, s):
        ids = batch["input_ids"]

        def step(carry, _):
            h, x = carry
            h, p, p_gen, p_copy, context, hid = self._step(h, x, enc, emb, mask, ids, b, s)
            token = jnp.argmax(p, -1)  # [B,S]
            best = jnp.max(p, -1)
            copied = (1.0 - p_gen[..., 0]) * jnp.take_along_axis(p_copy, token[..., None], -1)[
                ..., 0
            ]
            step_out = (token, jnp.log(best + 1e-12), copied / jnp.maximum(best, 1e-12))
            step_out += (context, hid)
            return (h, emb[token].reshape(b * s, -1)), step_out

        _, (tokens, logps, copy_share, contexts, states) = jax.lax.scan(
            step, (h0, x0), None, length=self.decode_length
        )
        return {
            "generated": jnp.moveaxis(tokens, 0, -1).astype(jnp.int32),  # [B, S, T]
            "generated_logprob": jnp.moveaxis(logps, 0, -1).astype(jnp.float32),
            # share of each greedy token's probability that came through the pointer
            "generated_copy_share": jnp.moveaxis(copy_share, 0, -1).astype(jnp.float32),
            "gate": self._gate(contexts[0], states[0]),
        }


@register("wos")
class WosTask(KlueTask):
    """WoS on the shared trainer (module doc). ``slots`` and ``ontology`` come from the
    ontology file found beside the data in `load_splits`."""

    name = "wos"
    metric_key = "wos_slot_f1"
    #: Feature columns cut to the batch's length bucket (`finetune.batching`): the dialogue
    #: history; the slot and value arrays have their own axes.
    sequence_columns = INPUT_KEYS

    def __init__(
        self,
        max_value_length: int = 0,
        dropout: float = 0.1,
        value_loss: str = "all",
        gate_input: str = "context",
        teacher_forcing: float = 0.5,
        decode_length: int = 10,
        current_turn_segment: bool = False,
        gru_start: str = "pooler",
    ) -> None:
        if not 0.0 <= teacher_forcing <= 1.0:
            raise ValueError(f"wos: teacher_forcing must be in [0, 1], not {teacher_forcing}")
        for name, value, allowed in (
            ("gru_start", gru_start, GRU_STARTS),
            ("value_loss", value_loss, VALUE_LOSSES),
            ("gate_input", gate_input, GATE_INPUTS),
        ):
            if value not in allowed:
                raise ValueError(f"wos: {name} must be one of {allowed}, not {value!r}")
        self.teacher_forcing = teacher_forcing
        self.decode_length = decode_length
        self.current_turn_segment = current_turn_segment
        self.gru_start = gru_start
        self.needs_pooler = gru_start == "pooler"
        self.value_loss = value_loss
        self.gate_input = gate_input
        self.max_value_length_option = max_value_length
        self.max_value_length = max_value_length
        self.dropout = dropout
        self.slots: tuple[str, ...] = ()
        self.values: dict[str, tuple[str, ...]] = {}
        self.unknown_slot_items = 0
        self.spellings: dict[str, str] = {}  # value without spaces -> as the train targets spell it

    def program_key(self) -> tuple[Any, ...]:
        """The options and the decoding length the head unrolls (read from the train values
        when the ``max_value_length`` option is 0)."""
        return (*self.options, ("head_max_value_length", max(self.max_value_length, 2)))

    def set_ontology(self, slots: Mapping[str, Sequence[str]]) -> None:
        self.slots = tuple(slots)
        self.values = {k: tuple(v) for k, v in slots.items()}

    def load_splits(self, data_dir: str | os.PathLike | None, dev_fraction: float) -> Splits:
        """The official splits; without a dev split but with the release's 10-dialogue sample
        (``wos-v1.1_dev_sample_10.json``), that sample split by guid hash, flagged."""
        from corpus import klue

        try:
            splits = super().load_splits(data_dir, dev_fraction)
        except TaskDataError:
            root = klue.resolve_klue_dir(data_dir)
            sample = klue.locate("wos", "dev_sample_10", root)
            if sample is None or klue.locate("wos", "train", root) is not None:
                raise
            train, dev = split_by_guid(klue.load("wos", "dev_sample_10", root), dev_fraction)
            if not train or not dev:
                raise
            note = (
                f"{NOT_COMPARABLE}: only the 10-dialogue dev sample {sample} is present; trained "
                f"on {len(train)} and evaluated on {len(dev)} of its dialogues, split by SHA-256 "
                f"of the guid (dev_fraction {dev_fraction})"
            )
            source = f"{sample} (split by guid hash)"
            splits = Splits(train, dev, False, note, source, source)
        try:
            self.set_ontology(klue.ontology(klue.resolve_klue_dir(data_dir)).slots)
        except FileNotFoundError as e:
            raise TaskDataError(f"wos: {e} (the slot list comes from the ontology)") from e
        return splits

    def _slot_arrays(self, ctx: EncodeContext) -> tuple[np.ndarray, np.ndarray]:
        pieces = ctx.ids_batch([slot.replace("-", " ") for slot in self.slots])
        width = max(len(p) for p in pieces)
        ids = np.full((len(pieces), width), ctx.pad_id, np.int32)
        mask = np.zeros((len(pieces), width), np.float32)
        for i, p in enumerate(pieces):
            ids[i, : len(p)], mask[i, : len(p)] = p, 1.0
        return ids, mask

    def encode(
        self, examples: Sequence[WosDialogue], ctx: EncodeContext, max_seq_length: int, train: bool
    ) -> Features:
        if not self.slots:
            raise TaskDataError("wos: no ontology loaded (call load_splits or set_ontology)")
        slot_index = {slot: i for i, slot in enumerate(self.slots)}
        slot_ids, slot_mask = self._slot_arrays(ctx)
        rows, targets, index, turn_no = [], [], [], []
        self.unknown_slot_items = 0
        for ex_i, dlg in enumerate(examples):
            for k, (turn_i, state) in enumerate(turn_states(dlg)):
                values: dict[int, str] = {}
                for item in state:
                    domain, slot, value = split_state(item)
                    j = slot_index.get(f"{domain}-{slot}")
                    if j is None:
                        self.unknown_slot_items += 1
                        continue
                    values[j] = value
                targets.append(
                    [
                        (value_gate(values.get(j)), values.get(j, NONE_VALUE))
                        for j in range(len(self.slots))
                    ]
                )
                rows.append(
                    history_ids(dlg, turn_i, ctx, max_seq_length, self.current_turn_segment)
                )
                index.append(ex_i)
                turn_no.append(k)
        texts = sorted({v for t in targets for _, v in t})
        if train:
            self.spellings = {"".join(v.split()): v for v in texts}
        tok = dict(zip(texts, ctx.ids_batch(texts), strict=True))
        longest = max((len(tok[v]) + 1 for t in targets for _, v in t), default=2)
        if self.max_value_length_option <= 0 and (train or self.max_value_length <= 0):
            self.max_value_length = longest
        t_len = max(self.max_value_length, 2)
        n, s = len(rows), len(self.slots)
        target = np.full((n, s, t_len), ctx.pad_id, np.int32)
        target_mask = np.zeros((n, s, t_len), np.float32)
        gate = np.zeros((n, s), np.int32)
        for r, t in enumerate(targets):
            for j, (g, v) in enumerate(t):
                seq = [*tok[v], ctx.sep_id][:t_len]
                target[r, j, : len(seq)], target_mask[r, j, : len(seq)] = seq, 1.0
                gate[r, j] = g
        arrays = {k: np.stack([row[k] for row in rows]) for k in rows[0]} if rows else {}
        arrays.update(
            target=target,
            target_mask=target_mask,
            gate=gate,
            slot_ids=np.broadcast_to(slot_ids, (n, *slot_ids.shape)).copy(),
            slot_mask=np.broadcast_to(slot_mask, (n, *slot_mask.shape)).copy(),
            turn=np.asarray(turn_no, np.int32),
        )
        self._sep_id, self._tokenizer = ctx.sep_id, ctx.tokenizer
        return Features(arrays, np.asarray(index, np.int64))

    def make_head(self, model_config: Any, rngs: nnx.Rngs) -> TradeHead:
        return TradeHead(
            model_config,
            max_value_length=max(self.max_value_length, 2),
            dropout=self.dropout,
            rngs=rngs,
            gate_input=self.gate_input,
            teacher_forcing=self.teacher_forcing,
            decode_length=self.decode_length,
            gru_start=self.gru_start,
        )

    def loss(self, outputs: Mapping[str, Any], batch: Mapping[str, Any]) -> tuple[Any, Any]:
        weight = batch["weight"].astype(jnp.float32)
        tmask = batch["target_mask"]
        if self.value_loss == "filled":  # no generator loss on absent slots (module doc)
            tmask = tmask * (batch["gate"] != _GATE_ID["none"])[..., None]
        gen = -jnp.sum(outputs["token_logprob"] * tmask, (1, 2)) / jnp.maximum(
            jnp.sum(tmask, (1, 2)), 1.0
        )
        gate_lp = jax.nn.log_softmax(outputs["gate"], -1)
        gate = -jnp.mean(jnp.take_along_axis(gate_lp, batch["gate"][..., None], -1)[..., 0], -1)
        return jnp.sum((gen + gate) * weight), jnp.sum(weight)

    def value_text(self, slot: str, ids: Sequence[int], history: str = "") -> str:
        """Generated ids -> the value, up to [SEP], spelled as the ontology or, failing that,
        the dialogue ``history`` spells it (module doc)."""
        ids = list(ids)
        if self._sep_id in ids:
            ids = ids[: ids.index(self._sep_id)]
        text = self._tokenizer.decode(ids, skip_special_tokens=True).strip()
        squeezed = "".join(text.split())
        if not squeezed:
            return ""
        for v in self.values.get(slot, ()):
            if "".join(v.split()) == squeezed:
                return v
        if squeezed in self.spellings:
            return self.spellings[squeezed]
        found = re.search(r"\s*".join(map(re.escape, squeezed)), history)
        return found.group(0) if found else _DIGIT_PUNCT.sub(r"\1", text)

    def predict(
        self,
        outputs: Mapping[str, np.ndarray],
        features: Features,
        examples: Sequence[WosDialogue],
    ) -> list[dict[str, Any]]:
        gates = np.asarray(outputs["gate"]).argmax(-1)
        generated = np.asarray(outputs["generated"])
        preds = []
        for row, ex_i in enumerate(features.example_index):
            dialogue = examples[int(ex_i)]
            turn = int(features.arrays["turn"][row])
            upto = [i for i, _ in turn_states(dialogue)][turn]
            history = "\n".join(t.text for t in dialogue.turns[: upto + 1])
            state = []
            for j, slot in enumerate(self.slots):
                g = GATES[int(gates[row, j])]
                if g == "none":
                    continue
                value = g if g != "ptr" else self.value_text(slot, generated[row, j], history)
                if value and value != NONE_VALUE:
                    state.append(f"{slot}-{value}")
            guid = f"{dialogue.guid}:{turn}"
            preds.append({"guid": guid, "state": state})
        return preds
