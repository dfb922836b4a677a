"""WoS task (finetune.tasks.wos): history encoding, gold round trips through the scorer (fixture
and the real dev sample), and the TRADE head learning the fixture dialogues."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from corpus import klue
from finetune import prediction_files
from finetune.modeling import FinetuneModel
from finetune.tasks.base import EncodeContext
from finetune.tasks.wos import GATES, WosTask, history_ids
from pretrain import models
from tests.finetune_fixtures import fit_full_batch
from tokenizer.wordpiece import SPECIAL_TOKENS, build_tokenizer

FIXTURES = Path(__file__).parent / "fixtures" / "klue"


# Full-batch training that memorises a few dialogues from scratch (docs/finetune_structured.md):
# a high, decaying learning rate with clipping, and word embeddings wide enough for the 45 slot
# names to start apart.
MEMORISE = dict(lr=1e-2, max_grad_norm=1.0, word_embedding_std=0.1, decay=True)


def char_context(texts, use_token_types=True):
    chars = sorted({c for t in texts for c in t if not c.isspace()})
    tok = build_tokenizer(list(SPECIAL_TOKENS) + chars + [f"##{c}" for c in chars])
    ids = {t: tok.token_to_id(t) for t in ("[CLS]", "[SEP]", "[PAD]")}
    return EncodeContext(tok, ids["[CLS]"], ids["[SEP]"], ids["[PAD]"], use_token_types)


def texts_of(dialogues, ontology):
    out = [t.text for d in dialogues for t in d.turns]
    out += [v for vals in ontology.slots.values() for v in vals] + list(ontology.slots)
    out += [s for d in dialogues for t in d.turns for s in (t.state or ())] + ["none"]
    return out


def gold_outputs(features):
    gate = np.eye(len(GATES), dtype=np.float32)[features.arrays["gate"]]
    return {"gate": gate, "generated": features.arrays["target"]}


def load(root, split):
    return list(klue.load("wos", split, root)), klue.ontology(root)


def test_history_is_truncated_from_the_left_and_marks_the_current_turn():
    dialogues, onto = load(FIXTURES, "train")
    ctx = char_context(texts_of(dialogues, onto))
    d = dialogues[0]
    full = history_ids(d, 2, ctx, 512, current_turn_segment=True)
    n = int(full["attention_mask"].sum())
    assert history_ids(d, 2, ctx, 512)["token_type_ids"].sum() == 0  # the baseline: all 0
    short = history_ids(d, 2, ctx, 12)
    assert short["input_ids"][0] == ctx.cls_id and short["input_ids"][-1] == ctx.sep_id
    # the last 11 tokens of the full history, in order (the oldest are dropped)
    assert list(short["input_ids"][1:]) == list(full["input_ids"][n - 11 : n])
    current = ctx.ids(d.turns[2].text)
    assert full["token_type_ids"][n - len(current) - 1 : n].tolist() == [1] * (len(current) + 1)
    assert full["token_type_ids"][: n - len(current) - 1].sum() == 0


@pytest.mark.parametrize("use_types", [True, False])
def test_gold_round_trip_scores_100_on_the_fixture(use_types):
    dialogues, onto = load(FIXTURES, "train")
    ctx = char_context(texts_of(dialogues, onto), use_types)
    task = WosTask()
    task.set_ontology(onto.slots)
    feats = task.encode(dialogues, ctx, 128, train=True)
    assert len(feats) == sum(len(d.user_turns()) for d in dialogues)
    preds = task.predict(gold_outputs(feats), feats, dialogues)
    scores = prediction_files.score_predictions("wos", preds, dialogues)
    assert scores == {"wos_joint_goal_accuracy": 100.0, "wos_slot_f1": 100.0}


def test_gold_round_trip_on_the_real_dev_sample(data_dir):
    dialogues, onto = load(data_dir / "klue", "dev_sample_10")
    ctx = char_context(texts_of(dialogues, onto))
    task = WosTask()
    task.set_ontology(onto.slots)
    # train=False: no spellings learned from targets; the ontology, the dialogue and the digit
    # rule must recover every value of the real sample from its detokenised form.
    feats = task.encode(dialogues, ctx, 512, train=False)
    assert task.unknown_slot_items == 0
    preds = task.predict(gold_outputs(feats), feats, dialogues)
    scores = prediction_files.score_predictions("wos", preds, dialogues)
    assert scores == {"wos_joint_goal_accuracy": 100.0, "wos_slot_f1": 100.0}


def test_trade_head_learns_the_fixture_dialogues():
    dialogues, onto = load(FIXTURES, "train")
    ctx = char_context(texts_of(dialogues, onto))
    # Decoding as long as the longest training value (the baseline's 10 steps would cut them).
    task = WosTask(dropout=0.0, decode_length=0)
    task.set_ontology(onto.slots)
    feats = task.encode(dialogues, ctx, 96, train=True)
    vocab = ctx.tokenizer.get_vocab_size()
    model, batch, first, last = fit_full_batch(task, feats, vocab, steps=81)
    assert np.isfinite(first) and last < 0.2 * first, (first, last)
    forward = nnx.jit(lambda m, b, d: m(b, deterministic=d), static_argnums=2)
    out = jax.tree.map(np.asarray, forward(model, batch, True))
    assert out["generated"].shape == feats.arrays["target"].shape
    # Greedy decoding and the teacher-forced training path are the same model: fed the greedy
    # tokens as targets, teacher forcing gives each of them the probability greedy gave it.
    replay = dict(batch, target=jnp.asarray(out["generated"]))
    forced = jax.tree.map(np.asarray, forward(model, replay, False))
    np.testing.assert_allclose(forced["token_logprob"], out["generated_logprob"], atol=1e-4)
    np.testing.assert_allclose(forced["gate"], out["gate"], atol=1e-4)
    assert (out["gate"].argmax(-1) == feats.arrays["gate"]).mean() > 0.9
    preds = task.predict(out, feats, dialogues)
    scores = prediction_files.score_predictions("wos", preds, dialogues)
    assert scores["wos_slot_f1"] > 50.0, scores


def test_real_dev_sample_serves_as_data_when_no_dev_split(data_dir):
    """The shared data has only the release's 10-dialogue dev sample: it is split by guid hash
    and the result is flagged as not comparable to the paper."""
    task = WosTask()
    splits = task.load_splits(data_dir / "klue", 0.2)
    assert len(splits.train) + len(splits.dev) == 10 and splits.dev and splits.train
    assert not splits.comparable and "10-dialogue dev sample" in splits.note
    assert len(task.slots) == 45


def test_value_loss_filled_masks_only_absent_slots():
    dialogues, onto = load(FIXTURES, "train")
    ctx = char_context(texts_of(dialogues, onto))
    task = WosTask(value_loss="filled")
    task.set_ontology(onto.slots)
    feats = task.encode(dialogues, ctx, 96, train=True)
    batch = {k: jnp.asarray(v) for k, v in feats.arrays.items()}
    batch["weight"] = jnp.ones(len(feats))
    rng = np.random.default_rng(0)
    logprob = -rng.random(feats.arrays["target"].shape, np.float32)
    outputs = {"token_logprob": jnp.asarray(logprob), "gate": jnp.zeros((*batch["gate"].shape, 5))}
    # changing the value log-probabilities of absent slots changes nothing; of others it does
    absent = feats.arrays["gate"] == GATES.index("none")
    assert absent.any() and (~absent).any()
    base = float(task.loss(outputs, batch)[0])
    moved = dict(outputs, token_logprob=jnp.asarray(np.where(absent[..., None], -5.0, logprob)))
    assert float(task.loss(moved, batch)[0]) == pytest.approx(base)
    moved = dict(outputs, token_logprob=jnp.asarray(np.where(absent[..., None], logprob, -5.0)))
    assert float(task.loss(moved, batch)[0]) > base + 1.0
    assert float(WosTask().loss(outputs, batch)[0]) != pytest.approx(base)
    with pytest.raises(ValueError, match="value_loss"):
        WosTask(value_loss="ptr-only")


def test_gate_on_context_and_state_is_the_same_in_greedy_and_teacher_forced_paths():
    """``gate_input="context_state"``: the gate reads the first step's state too (a wider gate
    layer), taken from the same step in both paths, so greedy and teacher forcing agree."""
    dialogues, onto = load(FIXTURES, "train")
    ctx = char_context(texts_of(dialogues, onto))
    task = WosTask(dropout=0.0, gate_input="context_state", decode_length=0)
    task.set_ontology(onto.slots)
    feats = task.encode(dialogues, ctx, 96, train=True)
    cfg = dataclasses.replace(
        models.PRESETS["tiny"],
        vocab_size=ctx.tokenizer.get_vocab_size(),
        dtype="float32",
        hidden_dropout=0.0,  # the teacher-forced path is the training one
        attention_dropout=0.0,
    )
    model = FinetuneModel(cfg, task, add_pooler=True, rngs=nnx.Rngs(0))  # untrained is enough
    assert model.head.w_gate.kernel.value.shape == (2 * cfg.hidden_size, len(GATES))
    batch = {k: jnp.asarray(v[:2]) for k, v in feats.arrays.items()}
    forward = nnx.jit(lambda m, b, d: m(b, deterministic=d), static_argnums=2)
    greedy = forward(model, batch, True)
    forced = forward(model, dict(batch, target=greedy["generated"]), False)
    np.testing.assert_allclose(np.asarray(forced["gate"]), np.asarray(greedy["gate"]), atol=1e-4)
    with pytest.raises(ValueError, match="gate_input"):
        WosTask(gate_input="state")


def _dialogue(guid, turns):
    """Official-format dialogue: ``turns`` = [(user text, state, system reply or None), ...]."""
    out = []
    for text, state, reply in turns:
        out.append({"role": "user", "text": text, "state": state})
        if reply:
            out.append({"role": "sys", "text": reply})
    return {"guid": guid, "domains": ["관광", "식당", "숙소"], "dialogue": out}


# Written for this test, on the fixture ontology's slots. Every gate appears: dontcare, yes, no,
# ptr; the place names 솔빛 식물원 and 금빛 폭포 are in neither ontology nor system turns, only in
# the user's words (so a correct value is copied from the history or generated from memory; the
# test tells which from the head's copy share).
_PARK = "관광-이름-솔빛 식물원"
_FALLS = "관광-이름-금빛 폭포"
GATE_DIALOGUES = [
    _dialogue(
        "gates-0",
        [
            (
                "주차 가능한 솔빛 식물원 위치 알려 주세요.",
                [_PARK, "관광-주차 가능-yes"],
                "서울 중앙에 있어요.",
            ),
            (
                "식당은 가격 상관없고 술은 안 파는 곳으로 찾아 주세요.",
                [_PARK, "관광-주차 가능-yes", "식당-가격대-dontcare", "식당-주류 판매-no"],
                None,
            ),
        ],
    ),
    _dialogue(
        "gates-1",
        [
            (
                "담배 피울 수 있는 숙소에 세 명 묵으려고 해요.",
                ["숙소-흡연 가능-yes", "숙소-예약 명수-3"],
                "초록 게스트하우스를 추천합니다.",
            ),
            (
                "관광지는 이름 상관없고 서울 북쪽이면 좋겠어요.",
                [
                    "숙소-흡연 가능-yes",
                    "숙소-예약 명수-3",
                    "관광-이름-dontcare",
                    "관광-지역-서울 북쪽",
                ],
                None,
            ),
        ],
    ),
    _dialogue(
        "gates-2",
        [
            ("금빛 폭포 가는 길 알려 주세요.", [_FALLS], "그곳은 주차가 안 됩니다."),
            (
                "주차 안 되는 건 괜찮아요. 저렴한 식당도 찾아 주세요.",
                [_FALLS, "관광-주차 가능-no", "식당-가격대-저렴"],
                None,
            ),
        ],
    ),
]


def test_gates_dontcare_yes_no_and_a_copied_value_are_predicted(tmp_path):
    """A tiny model memorises the dialogues above; its decoded predictions hold every gate kind
    (dontcare / yes / no as those words, ptr as a place name copied from the user's turn).

    Memorising is checked first (last loss below 0.01): at the earlier 150 steps of lr 1e-2
    the tiny model missed a gate on some CPUs (the last loss 0.03-0.13 where it did); at 400
    steps of 3e-3, seeds 0, 5, 6 and 7 reach it and every gate is right, seed 4 stops at 0.03
    (measured on the 2-core x86 machine, 2026-12-02), so a failure of the first assertion
    is a model that did not memorise, not a decoding error."""
    folder = tmp_path / "wos-v1.1"
    folder.mkdir()
    (folder / "ontology.json").write_bytes((FIXTURES / "wos-v1.1" / "ontology.json").read_bytes())
    text = json.dumps(GATE_DIALOGUES, ensure_ascii=False)
    (folder / "wos-v1.1_train.json").write_text(text, encoding="utf-8")
    dialogues, onto = load(tmp_path, "train")
    ctx = char_context(texts_of(dialogues, onto))
    task = WosTask(dropout=0.0, value_loss="filled")
    task.set_ontology(onto.slots)
    feats = task.encode(dialogues, ctx, 96, train=True)
    model, batch, _, last_loss = fit_full_batch(
        task,
        feats,
        ctx.tokenizer.get_vocab_size(),
        steps=400,
        **dict(MEMORISE, lr=3e-3),
    )
    assert last_loss < 0.01, f"the tiny model did not memorise the dialogues: loss {last_loss}"
    out = jax.tree.map(np.asarray, nnx.jit(lambda m: m(batch, deterministic=True))(model))
    preds = {p["guid"]: p["state"] for p in task.predict(out, feats, dialogues)}
    want = {
        "gates-0:0": [_PARK, "관광-주차 가능-yes"],
        "gates-0:1": ["식당-가격대-dontcare", "식당-주류 판매-no"],
        "gates-1:0": ["숙소-흡연 가능-yes"],
        "gates-1:1": ["관광-이름-dontcare"],
        "gates-2:0": [_FALLS],
        "gates-2:1": ["관광-주차 가능-no"],
    }
    for guid, items in want.items():
        assert set(items) <= set(preds[guid]), (guid, preds[guid])
    listed = [{"guid": g, "state": s} for g, s in preds.items()]
    scores = prediction_files.score_predictions("wos", listed, dialogues)
    assert scores["wos_slot_f1"] > 90.0, (scores, preds)
    # the place names came through the pointer: nearly all of each chosen token's probability
    # is the copy distribution's, not the vocabulary's
    name = task.slots.index("관광-이름")
    for row in (0, 4):  # gates-0:0 and gates-2:0
        gen = list(out["generated"][row, name])
        n = gen.index(ctx.sep_id)
        assert n >= 4 and out["generated_copy_share"][row, name, :n].min() > 0.5, out[
            "generated_copy_share"
        ][row, name]


def morpheme_context(texts):
    """A WordPiece tokenizer whose vocabulary is the Mecab morphemes of ``texts`` (word-initial
    and ``##`` continuation pieces, as KLUE's morpheme-aware vocabulary) plus every character
    in both forms: ``거리에`` -> ``거리 ##에``, so a value written ``거리`` is in the input."""
    from tokenizer.morphemes import split_text

    pieces = set()
    for t in texts:
        for word in split_text(t):
            pieces.add(word[0])
            pieces.update(f"##{p}" for p in word[1:])
        pieces.update(c for c in t if not c.isspace())
        pieces.update(f"##{c}" for c in t if not c.isspace())
    tok = build_tokenizer(list(SPECIAL_TOKENS) + sorted(pieces - set(SPECIAL_TOKENS)))
    ids = {t: tok.token_to_id(t) for t in ("[CLS]", "[SEP]", "[PAD]")}
    return EncodeContext(tok, ids["[CLS]"], ids["[SEP]"], ids["[PAD]"], True)


@pytest.mark.slow
@pytest.mark.long  # ~100 s; in `make test` the wiring is proven on the fixture dialogues
# (test_trade_head_learns_the_fixture_dialogues, test_gates_dontcare_yes_no_and_a_copied_value...)
def test_tiny_model_memorises_5_real_dialogues(data_dir):
    """Memorising real dialogues (all 45 slots of the real ontology) shows the gate, the
    pointer-generator and the decoding to ontology spelling are wired right. The whole history
    is kept (the tiny preset's position table is widened to the longest one), so every value is
    either in the input or, like ``23:20`` for ``23시20분``, must come from the vocabulary. The
    gate reads the first decoder step's state beside its context (``gate_input="context_state"``,
    docs/finetune_structured.md): from the context alone slots that attend alike share a gate."""
    root = data_dir / "klue"
    dialogues = list(klue.load("wos", "dev_sample_10", root))[:5]
    onto = klue.ontology(root)
    texts = [t.text for d in dialogues for t in d.turns] + list(onto.slots) + ["none"]
    texts += [s for d in dialogues for t in d.turns for s in (t.state or ())]
    ctx = morpheme_context(texts)
    longest = max(
        int(history_ids(d, i, ctx, 4096)["attention_mask"].sum())
        for d in dialogues
        for i, t in enumerate(d.turns)
        if t.role == "user"
    )
    task = WosTask(
        dropout=0.0,
        value_loss="filled",
        gate_input="context_state",
        decode_length=0,
        # The wiring, memorised in 100 steps with the inputs this test was written for (current
        # turn in segment 1, always teacher-forced): with the baseline's defaults (segments all
        # 0, a 0.5 coin) joint goal accuracy was exactly 90.0 at 100 steps and passed at 150.
        current_turn_segment=True,
        teacher_forcing=1.0,
    )
    task.set_ontology(onto.slots)
    feats = task.encode(dialogues, ctx, longest, train=True)
    assert len(feats) == 30 and task.unknown_slot_items == 0
    model, batch, _, _ = fit_full_batch(
        task,
        feats,
        ctx.tokenizer.get_vocab_size(),
        steps=100,
        **MEMORISE,
        model_changes={"max_position_embeddings": longest},
    )
    out = jax.tree.map(np.asarray, nnx.jit(lambda m: m(batch, deterministic=True))(model))
    gate, target = feats.arrays["gate"], feats.arrays["target"]
    mask = feats.arrays["target_mask"] > 0
    exact = ((out["generated"] == target) | ~mask).all(-1)
    assert exact[gate == GATES.index("ptr")].all()  # every generated value, token for token
    scores = prediction_files.score_predictions(
        "wos", task.predict(out, feats, dialogues), dialogues
    )
    assert scores["wos_slot_f1"] > 90.0 and scores["wos_joint_goal_accuracy"] > 90.0, scores


def test_training_flips_the_baselines_teacher_forcing_coin_per_batch():
    """Baseline training: with probability ``teacher_forcing`` (0.5) a batch is teacher-forced,
    otherwise each decoder step is fed the previous step's argmax token. Fed greedy's own
    tokens as targets both give greedy's probabilities; fed other targets they differ, and
    over 12 dropout keys both happen (two distinct outputs). Evaluation decodes
    ``decode_length`` (the baseline's 10) steps. A RoBERTa encoder starts the GRU from the
    encoder's pooler (`with_pooler` gives it one when the checkpoint has none)."""
    dialogues, onto = load(FIXTURES, "train")
    ctx = char_context(texts_of(dialogues, onto), use_token_types=False)
    task = WosTask(dropout=0.0)
    task.set_ontology(onto.slots)
    feats = task.encode(dialogues, ctx, 96, train=True)
    cfg = dataclasses.replace(
        models.PRESETS["tiny"],
        arch="roberta",
        type_vocab_size=1,
        num_layers=1,
        vocab_size=ctx.tokenizer.get_vocab_size(),
        dtype="float32",
        hidden_dropout=0.0,
        attention_dropout=0.0,
    )
    assert task.needs_pooler
    model = FinetuneModel(cfg, task, add_pooler=True, rngs=nnx.Rngs(0))
    batch = {k: jnp.asarray(v[:2]) for k, v in feats.arrays.items()}
    greedy = nnx.jit(lambda m, b: m(b, deterministic=True))(model, batch)
    assert greedy["generated"].shape[-1] == 10 != batch["target"].shape[-1]

    @nnx.jit
    def train_out(m, b, key):
        return m(b, deterministic=False, rngs=nnx.Rngs(dropout=key))["token_logprob"]

    t = batch["target"].shape[-1]
    replay = dict(batch, target=jnp.pad(greedy["generated"], ((0, 0), (0, 0), (0, 20)))[..., :t])
    for key in range(3):
        np.testing.assert_allclose(
            np.asarray(train_out(model, replay, jax.random.key(key)))[..., :10],
            np.asarray(greedy["generated_logprob"])[..., : min(t, 10)],
            atol=1e-4,
        )
    # Dropout 0: every teacher-forced batch gives one output, every free-running batch another.
    outputs = [np.asarray(train_out(model, batch, jax.random.key(k))) for k in range(12)]
    distinct = {o.round(5).tobytes() for o in outputs}
    assert len(distinct) == 2
    with pytest.raises(ValueError, match="teacher_forcing"):
        WosTask(teacher_forcing=1.5)


def test_gru_start_is_the_pooler_output_or_the_raw_cls_state():
    """``gru_start="pooler"`` (the baseline's) starts every slot's GRU from the encoder's pooled
    output, ``"cls"`` from the raw first-token state even when a pooler exists; "pooler" on an
    encoder without one is an error naming the fix (the trainer gives it one)."""
    from finetune.tasks.wos import TradeHead

    cfg = dataclasses.replace(models.PRESETS["tiny"], hidden_size=8, dtype="float32")
    rng = np.random.default_rng(0)
    sequence = jnp.asarray(rng.normal(size=(2, 5, 8)), jnp.float32)
    pooled = jnp.asarray(rng.normal(size=(2, 8)), jnp.float32)
    batch = {"slot_ids": jnp.zeros((2, 3, 2), jnp.int32), "slot_mask": jnp.ones((2, 3, 2))}
    emb = jnp.ones((4, 8), jnp.float32)
    # Abstract (no initialiser runs): the start state reads no head parameter.
    head = nnx.eval_shape(lambda: TradeHead(cfg, max_value_length=2, dropout=0.0, rngs=nnx.Rngs(0)))
    assert head.gru_start == "pooler"
    for start, want in (("pooler", pooled), ("cls", sequence[:, 0])):
        head.gru_start = start
        h0, _ = head._start(sequence, pooled, batch, emb)
        np.testing.assert_array_equal(np.asarray(h0), np.repeat(np.asarray(want), 3, axis=0))
    assert WosTask().needs_pooler and not WosTask(gru_start="cls").needs_pooler
    head.gru_start = "pooler"
    with pytest.raises(ValueError, match="with_pooler"):
        head._start(sequence, None, batch, emb)
