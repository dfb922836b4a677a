"""WoS task (finetune.tasks.wos): history encoding, gold round trips through the scorer (fixture
and the real dev sample), and the TRADE head learning the fixture dialogues."""

from __future__ import annotations

from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from corpus import klue
from finetune import prediction_files
from finetune.tasks.base import EncodeContext
from finetune.tasks.wos import GATES, WosTask, history_ids
from tests.finetune_fixtures import fit_full_batch
from tokenizer.wordpiece import SPECIAL_TOKENS, build_tokenizer

FIXTURES = Path(__file__).parent / "fixtures" / "klue"


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
    full = history_ids(d, 2, ctx, 512)
    n = int(full["attention_mask"].sum())
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
    task = WosTask(dropout=0.0)
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
