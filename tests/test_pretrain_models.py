"""Unit tests for pretrain/models.py: shapes, sizes, numerics, masking and dropout."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from pretrain import models
from pretrain.models import PRESETS, ModelConfig, PretrainingModel

VOCAB = 120
B, L, P = 3, 16, 5
LENGTHS = (16, 9, 4)


def tiny(arch: str = "bert", **kw) -> ModelConfig:
    name = "tiny" if arch == "bert" else "tiny-roberta"
    return PRESETS[name].replace(vocab_size=VOCAB, **kw)


def make_batch(arch: str, seed: int = 0, length: int = L) -> dict[str, np.ndarray]:
    """Padded batch: real tokens avoid the special ids, pads are [PAD] = 0."""
    rng = np.random.default_rng(seed)
    ids = rng.integers(5, VOCAB, (B, length)).astype(np.int32)
    mask = np.zeros((B, length), np.int32)
    types = np.zeros((B, length), np.int32)
    for b, n in enumerate(LENGTHS):
        mask[b, :n] = 1
        ids[b, n:] = 0
        if arch == "bert":
            types[b, n // 2 : n] = 1
    positions = np.stack([np.sort(rng.choice(n, P, replace=n < P)) for n in LENGTHS])
    return dict(
        input_ids=ids,
        token_type_ids=types,
        attention_mask=mask,
        masked_positions=positions.astype(np.int32),
    )


def run(model: PretrainingModel, batch: dict, **kw) -> dict:
    return model(
        batch["input_ids"],
        batch["token_type_ids"],
        batch["attention_mask"],
        batch["masked_positions"],
        **kw,
    )


@pytest.mark.parametrize("arch", ["bert", "roberta"])
def test_output_shapes_and_dtypes(arch):
    model = models.build_model(tiny(arch))
    out = run(model, make_batch(arch))
    assert out["mlm_logits"].shape == (B, P, VOCAB)
    assert out["mlm_logits"].dtype == jnp.float32
    if arch == "bert":
        assert out["nsp_logits"].shape == (B, 2)
        assert out["nsp_logits"].dtype == jnp.float32
    else:
        assert out["nsp_logits"] is None
    assert np.isfinite(np.asarray(out["mlm_logits"])).all()


@pytest.mark.parametrize("name", sorted(models.PAPER_PARAMS))
def test_paper_parameter_counts(name):
    config = PRESETS[name]
    abstract = nnx.eval_shape(lambda: PretrainingModel(config, rngs=nnx.Rngs(0)))
    held = models.count_model_params(abstract)
    assert models.count_params(config) == held
    paper = models.PAPER_PARAMS[name]
    assert abs(held - paper) / paper <= 0.02, (name, held, paper)


def test_preset_shapes():
    assert PRESETS["bert-base"].max_seq_length == 512
    assert PRESETS["bert-base"].type_vocab_size == 2
    for name in ("roberta-small", "roberta-base", "roberta-large"):
        cfg = PRESETS[name]
        assert cfg.max_position_embeddings == 513 and cfg.max_seq_length == 512
        assert cfg.type_vocab_size == 1 and cfg.pad_token_id == 0
        assert cfg.intermediate_size == 4 * cfg.hidden_size
    assert (PRESETS["roberta-large"].num_layers, PRESETS["roberta-large"].hidden_size) == (24, 1024)


def test_count_params_concrete_tiny():
    for arch in ("bert", "roberta"):
        model = models.build_model(tiny(arch))
        assert models.count_model_params(model) == models.count_params(tiny(arch))


def test_roberta_position_ids_follow_hugging_face():
    cfg = tiny("roberta")
    ids = jnp.array([[2, 7, 8, 3, 0, 0], [2, 9, 3, 0, 0, 0]])
    np.testing.assert_array_equal(
        models.position_ids(cfg, ids), [[1, 2, 3, 4, 0, 0], [1, 2, 3, 0, 0, 0]]
    )
    bert = models.position_ids(tiny("bert"), ids)
    np.testing.assert_array_equal(bert, [list(range(6))] * 2)


@pytest.mark.parametrize("arch", ["bert", "roberta"])
def test_gather_equals_full_sequence_logits(arch):
    model = models.build_model(tiny(arch, dtype="float32"))
    batch = make_batch(arch)
    out = run(model, batch)
    sequence, _ = model.encoder(
        batch["input_ids"], batch["token_type_ids"], batch["attention_mask"]
    )
    full = model.mlm_logits(sequence)  # [B, L, V]
    picked = np.take_along_axis(np.asarray(full), batch["masked_positions"][..., None], 1)
    np.testing.assert_allclose(np.asarray(out["mlm_logits"]), picked, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("arch", ["bert", "roberta"])
def test_bfloat16_close_to_float32(arch):
    batch = make_batch(arch)
    f32 = run(models.build_model(tiny(arch, dtype="float32"), seed=3), batch)
    bf16 = run(models.build_model(tiny(arch, dtype="bfloat16"), seed=3), batch)
    for key in ("mlm_logits", "nsp_logits"):
        if f32[key] is None:
            continue
        ref, got = np.asarray(f32[key]), np.asarray(bf16[key])
        assert got.dtype == np.float32
        scale = np.abs(ref).max()
        assert np.abs(got - ref).max() <= 0.05 * scale + 1e-3, key
        assert not np.array_equal(got, ref)  # the switch really changes the compute dtype


@pytest.mark.parametrize("arch", ["bert", "roberta"])
def test_padding_does_not_change_real_positions(arch):
    model = models.build_model(tiny(arch, dtype="float32"))
    batch = make_batch(arch)
    base = run(model, batch)
    seq_base, _ = model.encoder(
        batch["input_ids"], batch["token_type_ids"], batch["attention_mask"]
    )
    # Different values under the padding (ids kept at [PAD] for RoBERTa, whose positions
    # come from input_ids; BERT gets arbitrary junk ids and token types there).
    noisy = {k: v.copy() for k, v in batch.items()}
    pad = batch["attention_mask"] == 0
    rng = np.random.default_rng(7)
    if arch == "bert":
        noisy["input_ids"][pad] = rng.integers(5, VOCAB, pad.sum())
        noisy["token_type_ids"][pad] = 1
    out = run(model, noisy)
    np.testing.assert_allclose(out["mlm_logits"], base["mlm_logits"], atol=1e-5)
    # More padding: pad every row to a longer length.
    longer = {k: v for k, v in make_batch(arch, length=L + 8).items()}
    for key in ("input_ids", "token_type_ids", "attention_mask"):
        longer[key][:, :L] = batch[key]
        longer[key][:, L:] = 0
    longer["masked_positions"] = batch["masked_positions"]
    seq_long, _ = model.encoder(
        longer["input_ids"], longer["token_type_ids"], longer["attention_mask"]
    )
    for b, n in enumerate(LENGTHS):
        np.testing.assert_allclose(seq_long[b, :n], seq_base[b, :n], atol=1e-5)
    out_long = run(model, longer)
    np.testing.assert_allclose(out_long["mlm_logits"], base["mlm_logits"], atol=1e-5)
    if arch == "bert":
        np.testing.assert_allclose(out_long["nsp_logits"], base["nsp_logits"], atol=1e-5)


def test_dropout_determinism():
    cfg = tiny("bert", dtype="float32")
    batch = make_batch("bert")
    a = run(models.build_model(cfg, seed=0), batch, deterministic=False)
    b = run(models.build_model(cfg, seed=0), batch, deterministic=False)
    np.testing.assert_array_equal(a["mlm_logits"], b["mlm_logits"])
    np.testing.assert_array_equal(a["nsp_logits"], b["nsp_logits"])
    model = models.build_model(cfg, seed=0)
    evaluated = run(model, batch, deterministic=True)
    assert not np.allclose(a["mlm_logits"], evaluated["mlm_logits"])
    # The model's dropout stream advances: a second training call draws new masks.
    first = run(model, batch, deterministic=False)
    second = run(model, batch, deterministic=False)
    assert not np.allclose(first["mlm_logits"], second["mlm_logits"])
    # Explicit keys at the call: same key, same masks, whatever the model's own stream did.
    key = jax.random.key(42)
    c = run(model, batch, deterministic=False, rngs=nnx.Rngs(dropout=key))
    d = run(models.build_model(cfg, seed=0), batch, deterministic=False, rngs=nnx.Rngs(dropout=key))
    np.testing.assert_array_equal(c["mlm_logits"], d["mlm_logits"])
    e = run(model, batch, deterministic=False, rngs=nnx.Rngs(dropout=jax.random.key(43)))
    assert not np.allclose(c["mlm_logits"], e["mlm_logits"])


def test_jit_matches_eager():
    model = models.build_model(tiny("roberta", dtype="float32"))
    batch = make_batch("roberta")

    @nnx.jit
    def forward(m, ids, types, mask, positions):
        return m(ids, types, mask, positions)["mlm_logits"]

    jitted = forward(
        model,
        batch["input_ids"],
        batch["token_type_ids"],
        batch["attention_mask"],
        batch["masked_positions"],
    )
    np.testing.assert_allclose(jitted, run(model, batch)["mlm_logits"], atol=1e-5)


def test_decay_mask():
    model = models.build_model(tiny("bert"))
    params = nnx.state(model, nnx.Param)
    mask = models.decay_mask(params)
    flat = {
        tuple(str(getattr(k, "key", getattr(k, "name", k))) for k in path): leaf
        for path, leaf in jax.tree_util.tree_leaves_with_path(mask)
    }
    decayed = {p for p, v in flat.items() if v}
    assert decayed and len(decayed) < len(flat)
    for path, value in flat.items():
        name = [p for p in path if p != "value"][-1]
        assert value == (name in ("kernel", "embedding")), path
    assert ("mlm_output_bias", "value") in flat and not flat[("mlm_output_bias", "value")]
    # Same structure as the parameters, so optax can use it; also on plain dicts.
    assert jax.tree.structure(mask) == jax.tree.structure(params)
    pure = models.decay_mask(nnx.to_pure_dict(params))
    assert pure["encoder"]["layers"][0]["attention"]["query"]["kernel"] is True
    assert pure["encoder"]["layers"][0]["attention_layer_norm"]["scale"] is False
    assert pure["encoder"]["embeddings"]["word_embeddings"]["embedding"] is True


def test_flops_per_token_formula():
    cfg = PRESETS["bert-base"]
    h, i, v, n = 768, 3072, 32000, 12
    seq, p = 512, 77
    dense = n * (4 * h * h + 2 * h * i) + p / seq * (h * h + h * v) + (h * h + 2 * h) / seq
    expected = 6 * dense + 12 * n * seq * h
    assert models.flops_per_token(cfg, seq) == pytest.approx(expected)
    assert models.default_max_predictions(512) == 77
    assert models.default_max_predictions(128) == 20
    # Longer sequences cost more per token (attention); RoBERTa has no pooler/NSP term.
    assert models.flops_per_token(cfg, 512) > models.flops_per_token(cfg, 128)
    rob = PRESETS["roberta-base"]
    diff = models.flops_per_token(cfg, seq) - models.flops_per_token(rob, seq)
    assert diff == pytest.approx(6 * (h * h + 2 * h) / seq)
    # Close to the usual 6 x (non-embedding params) rule of thumb plus attention.
    non_embedding = n * (4 * h * h + 2 * h * i)
    assert 6 * non_embedding < models.flops_per_token(cfg, seq) < 6 * non_embedding * 1.25


def test_config_validation_and_round_trip():
    cfg = PRESETS["roberta-base"]
    assert ModelConfig.from_dict(cfg.to_dict()) == cfg
    with pytest.raises(ValueError, match="arch"):
        ModelConfig(arch="gpt")
    with pytest.raises(ValueError, match="divisible"):
        ModelConfig(hidden_size=100, num_heads=12)
    with pytest.raises(ValueError, match="unknown"):
        ModelConfig.from_dict({"arch": "bert", "hidden": 3})
    with pytest.raises(ValueError, match="dtype"):
        ModelConfig(dtype="float16")
    assert math.isclose(cfg.head_dim, 64)


def test_flops_table_arithmetic(capsys):
    from pretrain import flops

    run = flops.PaperRun("roberta-base", 2048, 1000, 512)
    e = flops.estimate(run, mfu=0.5)
    assert e["tokens"] == 2048 * 1000 * 512
    assert e["total_flops"] == pytest.approx(e["flops_per_token"] * e["tokens"])
    assert e["days_h200"] == pytest.approx(e["total_flops"] / (989e12 * 0.5) / 86400)
    assert e["days_tpu-v3-8"] == pytest.approx(e["days_h200"] * 989 / 492)
    assert flops.main(["--presets", "--format", "text"]) == 0
    printed = capsys.readouterr().out
    assert "roberta-large" in printed and "336,689,408" in printed


def test_remat_same_outputs_and_gradients():
    cfg = tiny("bert", dtype="float32")
    batch = make_batch("bert")
    plain = models.build_model(cfg, seed=5)
    remat = models.build_model(cfg.replace(remat=True), seed=5)

    def loss(model):
        out = run(model, batch, deterministic=False, rngs=nnx.Rngs(dropout=jax.random.key(1)))
        return out["mlm_logits"].std() + out["nsp_logits"].mean()

    grad = nnx.jit(nnx.value_and_grad(loss))
    l1, g1 = grad(plain)
    l2, g2 = grad(remat)
    np.testing.assert_allclose(l1, l2, rtol=1e-6)
    flat1, flat2 = jax.tree.leaves(g1), jax.tree.leaves(g2)
    assert len(flat1) == len(flat2)
    for a, b in zip(flat1, flat2, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)
