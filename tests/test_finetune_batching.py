"""Length-bucketed batches (finetune.batching): the same rows in fewer padded positions.

* Pure NumPy: which lengths are allowed, which one a batch gets, that cutting keeps every row,
  weight and non-token column, that an epoch of bucketed batches holds the same rows as the
  unbucketed one (the last partial batch included), that evaluation covers every row once and
  puts the outputs back in order.
* Every task's encoding on the fixture data of its official format: each column with a token
  axis is declared in ``sequence_columns`` (so it is cut with the inputs), and what a cut
  removes is padding only.
* A tiny random encoder: the loss and outputs of one batch padded to 128 or cut to 32 agree
  to 1e-5 (NER, MRC, YNAT heads), and so do the losses of a short bucketed training run with
  the trainer's compiled program.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from corpus import klue
from finetune import batching
from finetune.tasks.base import INPUT_KEYS, EncodeContext, Features, get_task

FIXTURES = Path(__file__).parent / "fixtures" / "klue"


def _features(lengths, full=16, extra=True) -> Features:
    """Rows of the given lengths padded to ``full``, a per-token and a per-row column."""
    n = len(lengths)
    pos = np.arange(full)[None, :]
    mask = (pos < np.asarray(lengths)[:, None]).astype(np.int32)
    ids = np.where(mask == 1, 5 + np.arange(n)[:, None] * 100 + pos, 0).astype(np.int32)
    arrays = {
        "input_ids": ids,
        "token_type_ids": np.zeros_like(ids),
        "attention_mask": mask,
    }
    if extra:
        arrays["labels"] = np.where(mask == 1, pos % 3, -1).astype(np.int32)
        arrays["label"] = np.arange(n, dtype=np.int32)
    return Features(arrays, np.arange(n, dtype=np.int64))


def _padding(lengths=(4, 8), full=16) -> batching.Padding:
    return batching.Padding(
        batching.bucket_lengths(lengths, full), (*INPUT_KEYS, "labels"), {"logits": -7.0}
    )


def test_allowed_lengths():
    assert batching.bucket_lengths(batching.DEFAULT_BUCKETS, 128) == (64, 128)
    assert batching.bucket_lengths(batching.DEFAULT_BUCKETS, 512) == (64, 128, 256, 512)
    assert batching.bucket_lengths(batching.DEFAULT_BUCKETS, 300) == (64, 128, 256, 300)
    assert batching.bucket_lengths(batching.DEFAULT_BUCKETS, 64) == (64,)
    assert batching.bucket_lengths((), 128) == (128,)  # off
    assert batching.bucket_lengths((96, 32, 32, 1024), 128) == (32, 96, 128)
    with pytest.raises(ValueError, match="positive"):
        batching.bucket_lengths((0, 64), 128)


def test_a_batch_gets_the_smallest_length_that_holds_its_longest_row():
    pad = _padding()
    for lengths, want in (([1, 2], 4), ([4, 1], 4), ([5, 3], 8), ([8], 8), ([9, 1], 16)):
        assert pad.length_of(_features(lengths).arrays["attention_mask"]) == want, lengths
    # a row attended to its very last position needs the full length
    assert pad.length_of(_features([16, 2]).arrays["attention_mask"]) == 16
    off = batching.padding_for(object(), 16, (4, 8))  # a task that declares no token columns
    assert not off.bucketed and off.length_of(_features([1]).arrays["attention_mask"]) == 16


def test_cutting_keeps_rows_weights_and_other_columns():
    f = _features([3, 7, 2])
    full = batching.take_batch(f, np.array([2, 0, 1]), 4)  # one weight-0 filler row
    cut = _padding().trim(full)
    assert cut["input_ids"].shape == (4, 8) and cut["labels"].shape == (4, 8)
    np.testing.assert_array_equal(cut["weight"], full["weight"])
    np.testing.assert_array_equal(cut["label"], full["label"])
    for k in (*INPUT_KEYS, "labels"):
        np.testing.assert_array_equal(cut[k], full[k][:, :8])
        # what was cut off is padding: the same value everywhere in that column
        assert len(np.unique(full[k][:, 8:])) == 1, k


def test_an_epoch_of_bucketed_batches_holds_the_same_rows():
    rng = np.random.default_rng(0)
    f = _features(rng.integers(1, 17, 21))
    per_epoch = 3  # batches of 8: 8 + 8 + 5 real rows
    seen = []
    for step in range(2 * per_epoch):
        plain = batching.train_batch(f, 7, step, 8, per_epoch)
        cut = batching.train_batch(f, 7, step, 8, per_epoch, _padding())
        assert cut["input_ids"].shape[1] in (4, 8, 16)
        np.testing.assert_array_equal(cut["label"], plain["label"])
        np.testing.assert_array_equal(cut["weight"], plain["weight"])
        n = cut["input_ids"].shape[1]
        np.testing.assert_array_equal(cut["input_ids"], plain["input_ids"][:, :n])
        assert plain["attention_mask"][:, n:].sum() == 0
        seen.append(cut["label"][cut["weight"] > 0])
    for epoch in range(2):
        rows = np.concatenate(seen[epoch * per_epoch : (epoch + 1) * per_epoch])
        assert sorted(rows.tolist()) == list(range(21))  # every example once per epoch
    again = batching.train_batch(f, 7, 2 * per_epoch - 1, 8, per_epoch, _padding())
    for k, v in cut.items():  # a pure function of (seed, step): the same batch again
        np.testing.assert_array_equal(again[k], v)


def test_evaluation_covers_every_row_and_restores_the_order_and_length():
    f = _features([16, 2, 8, 3, 1, 5, 4])
    pad = _padding()
    chunks, shapes = [], []
    for rows, batch in batching.eval_batches(f, 3, pad):
        shapes.append(batch["input_ids"].shape[1])
        real = len(rows)
        chunks.append(
            (
                rows,
                {
                    # a per-row output and a per-token output (the input ids as "logits")
                    "score": batch["label"][:real].astype(np.float32),
                    "logits": batch["input_ids"][:real].astype(np.float32),
                },
            )
        )
    assert shapes == [4, 8, 16]  # sorted by length: 1 2 3 | 4 5 8 | 16
    out = batching.gather_outputs(chunks, len(f), pad)
    np.testing.assert_array_equal(out["score"], np.arange(7))
    real = f.arrays["attention_mask"] == 1
    np.testing.assert_array_equal(out["logits"][real], f.arrays["input_ids"][real])
    assert out["logits"].shape == (7, 16)
    # positions beyond the batch's bucket get the task's fill value
    assert out["logits"][1, 4:].tolist() == [-7.0] * 12
    # bucketing off: feature order, full length, nothing restored
    plain = list(batching.eval_batches(f, 3, batching.Padding((16,))))
    assert [r.tolist() for r, _ in plain] == [[0, 1, 2], [3, 4, 5], [6]]
    assert {b["input_ids"].shape[1] for _, b in plain} == {16}


# ---------------------------------------------------------------------------------------------
# Every task's encoding on its official format


def _context(texts, extra_tokens=()):
    from tokenizer.wordpiece import SPECIAL_TOKENS, build_tokenizer

    chars = sorted({c for t in texts for c in t if not c.isspace()})
    tok = build_tokenizer([*SPECIAL_TOKENS, *chars, *(f"##{c}" for c in chars)])
    if extra_tokens:
        tok.add_special_tokens(list(extra_tokens))
    ids = {t: tok.token_to_id(t) for t in ("[CLS]", "[SEP]", "[PAD]")}
    return EncodeContext(tok, ids["[CLS]"], ids["[SEP]"], ids["[PAD]"])


def _texts(obj) -> list[str]:
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, dict):
        return [t for v in obj.values() for t in _texts(v)]
    if isinstance(obj, (list, tuple)):
        return [t for v in obj for t in _texts(v)]
    if hasattr(obj, "__dataclass_fields__"):
        return [t for k in obj.__dataclass_fields__ for t in _texts(getattr(obj, k))]
    return []


@pytest.mark.parametrize("name", ["ynat", "nli", "sts", "ner", "re", "dp", "mrc", "wos"])
def test_every_token_axis_column_is_declared_and_cut_only_in_padding(name, tmp_path):
    import json

    options = {"relations": klue.relations(FIXTURES)} if name == "re" else {}
    task = get_task(name, **options)
    examples = klue.load(name, "train", FIXTURES)
    if name == "wos":
        ontology = json.loads((FIXTURES / "wos-v1.1" / "ontology.json").read_text("utf-8"))
        task.set_ontology(ontology)
    texts = _texts(examples) + (list(task.slots) if name == "wos" else [])
    ctx = _context(texts, task.extra_tokens)
    full = 61  # no other axis of any task has this size
    f = task.encode(examples, ctx, full, True)
    token_axis = {k for k, v in f.arrays.items() if v.ndim >= 2 and v.shape[1] == full}
    assert token_axis == set(task.sequence_columns), name
    lengths = batching.row_lengths(f.arrays["attention_mask"])
    assert lengths.min() >= 2  # [CLS] ... [SEP]
    beyond = np.arange(full)[None, :] >= lengths[:, None]
    for k in task.sequence_columns:
        padding_values = np.unique(f.arrays[k][beyond], axis=0)
        assert len(padding_values) <= 1, (name, k, padding_values[:4])


# ---------------------------------------------------------------------------------------------
# The same results on a tiny random encoder


def _encoded(name: str, full: int):
    """``(task, examples, context, features)``: the fixture train split of ``name`` at ``full``."""
    task = get_task(name)
    examples = klue.load(name, "train", FIXTURES)
    ctx = _context(_texts(examples))
    return task, examples, ctx, task.encode(examples, ctx, full, False)


@pytest.mark.parametrize("name", ["ner", "mrc"])  # YNAT: the run below
def test_one_batch_padded_to_128_or_cut_gives_the_same_loss_and_outputs(
    name, unoptimised_compilation
):
    import jax
    import jax.numpy as jnp
    from flax import nnx

    from finetune.modeling import FinetuneModel

    task, examples, ctx, f = _encoded(name, 128)
    cfg = _tiny_config(ctx)
    abstract = nnx.eval_shape(lambda: FinetuneModel(cfg, task, add_pooler=True, rngs=nnx.Rngs(0)))
    graphdef, params, rest = _numpy_weights(abstract, seed=0)
    state = (params, rest)
    # NER and YNAT rows (at most 22 tokens here) are cut to 24 or 32; MRC's (up to 100) to 104.
    pad = batching.padding_for(task, 128, (24, 32, 104))
    full = batching.take_batch(f, np.arange(len(f)), len(f) + 1)  # one weight-0 filler row
    cut = pad.trim(full)
    assert cut["input_ids"].shape[1] < 128

    @jax.jit
    def forward(state, batch):
        out = nnx.merge(graphdef, *state)(batch, deterministic=True)
        total, count = task.loss(out, batch)
        return total / count, out

    def run(batch):
        loss, out = forward(state, {k: jnp.asarray(v) for k, v in batch.items()})
        return float(loss), {k: np.asarray(v) for k, v in out.items()}

    loss_full, out_full = run(full)
    loss_cut, out_cut = run(cut)
    np.testing.assert_allclose(loss_cut, loss_full, rtol=1e-5)
    restored = pad.restore(out_cut)
    real = full["attention_mask"] == 1
    token_outputs = getattr(task, "sequence_outputs", {})
    for k, v in out_full.items():
        assert restored[k].shape == v.shape, k
        if k in token_outputs:
            np.testing.assert_allclose(restored[k][real], v[real], rtol=1e-5, atol=1e-5)
            assert (restored[k][:, cut["input_ids"].shape[1] :] == token_outputs[k]).all()
        else:
            np.testing.assert_allclose(restored[k], v, rtol=1e-5, atol=1e-5)
    rows = {k: v[: len(f)] for k, v in restored.items()}
    want = task.predict({k: v[: len(f)] for k, v in out_full.items()}, f, examples)
    assert task.predict(rows, f, examples) == want


def _tiny_config(ctx: EncodeContext, **extra):
    """A one-layer random BERT (hidden 32, no dropout, float32) for ``ctx``'s tokenizer."""
    import dataclasses

    from pretrain import models

    return dataclasses.replace(
        models.PRESETS["tiny"],
        vocab_size=ctx.tokenizer.get_vocab_size(),
        dtype="float32",
        hidden_dropout=0.0,
        attention_dropout=0.0,
        num_layers=1,
        hidden_size=32,
        intermediate_size=64,
        **extra,
    )


def _numpy_weights(abstract, seed: int):
    """``(graphdef, params, rest)`` of an abstract NNX model, its weights drawn with NumPy
    (N(0, 0.1)): no eager JAX initialisers, which would compile one program per weight."""
    import jax
    from flax import nnx

    from pretrain.models import concrete_rest

    graphdef, shapes, rest = nnx.split(abstract, nnx.Param, ...)
    rng = np.random.default_rng(seed)
    params = jax.tree.map(lambda x: rng.normal(0, 0.1, x.shape).astype(x.dtype), shapes)
    return graphdef, params, concrete_rest(rest)


def _tiny_loaded(ctx: EncodeContext):
    """A `finetune.pretrained.LoadedModel`: a one-layer random BERT (hidden 32, 64 positions,
    no dropout) with ``ctx``'s tokenizer, its weights drawn with NumPy on the abstract encoder
    (no Hugging Face folder to write and read: compilation is what these tests spend)."""
    from flax import nnx

    from finetune.pretrained import LoadedModel
    from pretrain import models

    config = _tiny_config(ctx, max_position_embeddings=64)
    abstract = nnx.eval_shape(lambda: models.Encoder(config, rngs=nnx.Rngs(0)))
    encoder = nnx.merge(*_numpy_weights(abstract, seed=1))
    ids = {"pad": ctx.pad_id, "cls": ctx.cls_id, "sep": ctx.sep_id}
    return LoadedModel(encoder, config, ctx.tokenizer, ids, "test", Path("tiny"), Path("tiny"))


@pytest.mark.long  # ~28 s; in `make test`: test_one_batch_padded_to_128_or_cut... (ner, mrc)
def test_a_short_bucketed_run_logs_the_losses_and_scores_of_the_padded_one(
    tmp_path, unoptimised_compilation
):
    """Four steps of the trainer's compiled program (`finetune.steps.build_program`) on YNAT
    batches from `finetune.batching.train_batch`, cut to 32 or padded to 64, then
    dev outputs and scores through `finetune.trainer.predict_outputs` both ways."""
    import jax
    from finetune_fixtures import klue_texts, write_klue_data

    from finetune import steps, trainer
    from pretrain import sharding

    cfg = {
        "global_batch_size": 8,
        "num_train_epochs": 1,
        "warmup_ratio": 0.0,
        "max_train_steps": 0,
        "learning_rate": 2e-5,  # Adam moves every weight by ~lr: float noise stays small
        "weight_decay": 0.01,
        "max_grad_norm": 1.0,
        "adam_b1": 0.9,
        "adam_b2": 0.999,
        "adam_eps": 1e-8,
        "dev_fraction": 0.2,
        "max_train_examples": 28,  # 4 steps, the last with 4 real rows of 8
        "max_eval_examples": 0,
        "max_seq_length": 64,
    }
    pre = _tiny_loaded(_context(klue_texts()))
    task = get_task("ynat")
    splits, train_f, dev_f = trainer.prepare_data(
        task, cfg, pre, str(write_klue_data(tmp_path / "klue"))
    )
    plan = steps.plan_steps(cfg, len(train_f))
    mesh = sharding.make_mesh(1)
    keys = tuple(train_f.arrays)
    program = steps.build_program(
        task, pre, steps.optimizer_config(cfg, plan), mesh, 2**16, keys, keys
    )
    init = program.init_params(pre, 0)

    def run(padding):
        state = program.init_state(jax.tree.map(np.copy, init), 0)
        logged, lengths = [], []
        for step in range(plan["run_steps"]):
            host = batching.train_batch(train_f, 0, step, 8, plan["steps_per_epoch"], padding)
            lengths.append(host["input_ids"].shape[1])
            state, metrics = program.train_step(state, sharding.global_batch(host, mesh))
            logged.append({k: float(v) for k, v in jax.device_get(metrics).items()})
        return logged, lengths, state.params

    off, on = batching.padding_for(task, 64, ()), batching.padding_for(task, 64, (32,))
    plain, cut = run(off), run(on)
    assert plain[1] == [64] * 4 and cut[1] == [32] * 4  # the fixture titles are short
    for a, b in zip(cut[0], plain[0], strict=True):
        assert a["examples"] == b["examples"] and a["learning_rate"] == b["learning_rate"]
        np.testing.assert_allclose(a["loss"], b["loss"], rtol=1e-5)
        np.testing.assert_allclose(a["grad_norm"], b["grad_norm"], rtol=1e-4)
    assert [r["examples"] for r in plain[0]] == [8, 8, 8, 4]  # nothing dropped
    # Dev with the trained parameters, evaluated padded or bucketed (sorted by length).
    outputs = [
        trainer.predict_outputs(program.eval_step, plain[2], dev_f, 8, mesh, p) for p in (off, on)
    ]
    np.testing.assert_allclose(outputs[1]["logits"], outputs[0]["logits"], rtol=1e-5, atol=1e-6)
    scores = [trainer.score(task, task.predict(o, dev_f, splits.dev), splits.dev) for o in outputs]
    assert scores[1] == scores[0]
