"""Export to a Hugging Face folder: names, layouts, files, and logit parity with transformers.

The parity tests load the exported folder with stock transformers (PyTorch) and compare MLM
(and NSP) logits with our model on a padded batch; they skip when torch/transformers are not
installed (the optional extra).
"""

from __future__ import annotations

import json
from pathlib import Path

import jax
import numpy as np
import pytest
from flax import nnx
from hf_reference import ROBERTA_LAYOUT, perturb
from safetensors.numpy import load_file

from pretrain import export as export_cli
from pretrain import hf_export, models
from pretrain.models import PRESETS
from tests.pretrain_fixtures import perturbed_tiny_model

VOCAB = 100
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
LENGTHS = (12, 7, 4)
POSITIONS = np.array([[1, 3, 5, 11], [0, 2, 6, 0], [1, 2, 3, 0]], np.int32)


def tiny(arch: str) -> models.ModelConfig:
    name = "tiny" if arch == "bert" else "tiny-roberta"
    return PRESETS[name].replace(vocab_size=VOCAB, dtype="float32")


def random_model(arch: str, seed: int = 0) -> models.PretrainingModel:
    """Tiny model with every parameter perturbed, so biases and LayerNorms are not trivial."""
    return perturbed_tiny_model(arch, VOCAB, seed)


@pytest.fixture
def tokenizer_dir(tmp_path: Path) -> Path:
    tok = tmp_path / "tokenizer"
    tok.mkdir()
    vocab = SPECIALS + [f"tok{i}" for i in range(VOCAB - len(SPECIALS))]
    (tok / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    (tok / "tokenizer_config.json").write_text(
        json.dumps(
            {"tokenizer_class": "BertTokenizer", "do_lower_case": False, "model_max_length": 512}
        ),
        encoding="utf-8",
    )
    return tok


def padded_batch(arch: str) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    ids = rng.integers(len(SPECIALS), VOCAB, (len(LENGTHS), max(LENGTHS))).astype(np.int32)
    mask = np.zeros_like(ids)
    types = np.zeros_like(ids)
    for b, n in enumerate(LENGTHS):
        ids[b, 0], ids[b, n - 1] = 2, 3  # [CLS] ... [SEP]
        ids[b, n:] = 0
        mask[b, :n] = 1
        if arch == "bert":
            types[b, n // 2 : n] = 1
    return dict(input_ids=ids, token_type_ids=types, attention_mask=mask)


def expected_names(arch: str, num_layers: int) -> set[str]:
    base = "bert" if arch == "bert" else "roberta"
    names = {
        f"{base}.embeddings.{t}.weight"
        for t in ("word_embeddings", "position_embeddings", "token_type_embeddings")
    }
    names |= {f"{base}.embeddings.LayerNorm.{p}" for p in ("weight", "bias")}
    for i in range(num_layers):
        for sub in (
            "attention.self.query",
            "attention.self.key",
            "attention.self.value",
            "attention.output.dense",
            "attention.output.LayerNorm",
            "intermediate.dense",
            "output.dense",
            "output.LayerNorm",
        ):
            names |= {f"{base}.encoder.layer.{i}.{sub}.{p}" for p in ("weight", "bias")}
    if arch == "bert":
        for sub in (
            "bert.pooler.dense",
            "cls.predictions.transform.dense",
            "cls.predictions.transform.LayerNorm",
            "cls.predictions.decoder",
            "cls.seq_relationship",
        ):
            names |= {f"{sub}.weight", f"{sub}.bias"}
        names.add("cls.predictions.bias")
    else:
        for sub in ("lm_head.dense", "lm_head.layer_norm", "lm_head.decoder"):
            names |= {f"{sub}.weight", f"{sub}.bias"}
        names.add("lm_head.bias")
    return names


@pytest.mark.parametrize("arch", ["bert", "roberta"])
def test_state_dict_names_and_layouts(arch):
    model = random_model(arch)
    state = hf_export.to_hf_state_dict(model)
    cfg = model.config
    assert set(state) == expected_names(arch, cfg.num_layers)
    assert all(v.dtype == np.float32 and v.flags["C_CONTIGUOUS"] for v in state.values())
    base = "bert" if arch == "bert" else "roberta"
    layer = model.encoder.layers[1]
    # torch Linear weight = transpose of the Flax kernel; intermediate is [I, H] in torch.
    np.testing.assert_array_equal(
        state[f"{base}.encoder.layer.1.intermediate.dense.weight"],
        np.asarray(layer.intermediate.kernel[...]).T,
    )
    assert state[f"{base}.encoder.layer.1.intermediate.dense.weight"].shape == (
        cfg.intermediate_size,
        cfg.hidden_size,
    )
    np.testing.assert_array_equal(
        state[f"{base}.encoder.layer.1.output.LayerNorm.weight"],
        np.asarray(layer.output_layer_norm.scale[...]),
    )
    word = state[f"{base}.embeddings.word_embeddings.weight"]
    decoder = "cls.predictions.decoder" if arch == "bert" else "lm_head.decoder"
    bias = "cls.predictions.bias" if arch == "bert" else "lm_head.bias"
    np.testing.assert_array_equal(state[f"{decoder}.weight"], word)
    np.testing.assert_array_equal(state[f"{decoder}.bias"], state[bias])
    assert state[f"{base}.embeddings.position_embeddings.weight"].shape == (
        cfg.max_position_embeddings,
        cfg.hidden_size,
    )
    assert state[f"{base}.embeddings.token_type_embeddings.weight"].shape[0] == (
        2 if arch == "bert" else 1
    )


@pytest.mark.parametrize("arch", ["bert", "roberta"])
def test_write_hf_folder_files(arch, tokenizer_dir, tmp_path):
    model = random_model(arch)
    out = hf_export.write_hf_folder(
        model, tokenizer_dir, tmp_path / "hf", {"name": "test-model", "training": {"steps": 7}}
    )
    assert sorted(p.name for p in out.iterdir()) == [
        "README.md",
        "config.json",
        "model.safetensors",
        "tokenizer_config.json",
        "vocab.txt",
    ]
    config = json.loads((out / "config.json").read_text())
    assert config["model_type"] == arch
    assert config["architectures"] == [
        "BertForPreTraining" if arch == "bert" else "RobertaForMaskedLM"
    ]
    assert config["pad_token_id"] == 0 and config["vocab_size"] == VOCAB
    assert config["max_position_embeddings"] == model.config.max_position_embeddings
    if arch == "roberta":
        assert (config["bos_token_id"], config["eos_token_id"]) == (2, 3)
    tensors = load_file(str(out / "model.safetensors"))
    reference = hf_export.to_hf_state_dict(model)
    assert set(tensors) == set(reference)
    for name, value in reference.items():
        np.testing.assert_array_equal(tensors[name], value)
    card = (out / "README.md").read_text()
    # no licence given and none traced: the card claims none
    assert "license: unknown" in card and "# test-model" in card
    assert "not pseudonymised" in card
    assert "| steps | 7 |" in card and "Intended use" in card
    assert (out / "vocab.txt").read_bytes() == (tokenizer_dir / "vocab.txt").read_bytes()
    # The exported tokenizer truncates at the model's length, not the tokenizer default.
    tok_config = json.loads((out / "tokenizer_config.json").read_text())
    assert tok_config["model_max_length"] == model.config.max_seq_length == 128
    umask = hf_export._current_umask()
    assert (out / "model.safetensors").stat().st_mode & 0o777 == 0o666 & ~umask
    assert out.stat().st_mode & 0o777 == 0o777 & ~umask
    # No half-written sibling folders are left behind.
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".hf")] == []


def test_write_hf_folder_refuses_and_overwrites(tokenizer_dir, tmp_path):
    model = random_model("bert")
    out = tmp_path / "hf"
    out.mkdir()
    (out / "old.txt").write_text("x")
    with pytest.raises(FileExistsError):
        hf_export.write_hf_folder(model, tokenizer_dir, out)
    hf_export.write_hf_folder(model, tokenizer_dir, out, overwrite=True)
    assert not (out / "old.txt").exists() and (out / "model.safetensors").is_file()


def test_tokenizer_mismatch_is_an_error(tmp_path):
    model = random_model("bert")
    tok = tmp_path / "tok"
    tok.mkdir()
    (tok / "vocab.txt").write_text("\n".join(["[UNK]", "[PAD]"]) + "\n")
    with pytest.raises(ValueError, match=r"\[PAD\] id 1"):
        hf_export.write_hf_folder(model, tok, tmp_path / "hf")
    (tok / "vocab.txt").write_text("\n".join(f"t{i}" for i in range(VOCAB + 1)) + "\n")
    with pytest.raises(ValueError, match="tokens but the model"):
        hf_export.write_hf_folder(model, tok, tmp_path / "hf")
    with pytest.raises(FileNotFoundError):
        hf_export.write_hf_folder(model, tmp_path / "missing", tmp_path / "hf")


def test_export_cli_uses_load_for_export(monkeypatch, tokenizer_dir, tmp_path):
    """The CLI plumbing, with the checkpoint loader replaced by an in-memory model."""
    from pretrain import checkpointing

    model = random_model("roberta")
    calls = []

    def fake_load(workdir, step=None):
        calls.append((workdir, step))
        return model.config, model, str(tokenizer_dir)

    monkeypatch.setattr(checkpointing, "load_for_export", fake_load)
    monkeypatch.setattr(checkpointing, "export_info", lambda w: {"steps": 3}, raising=False)
    out = tmp_path / "hf"
    # the run's examples trace back to a CC BY-SA 3.0 source, prepared and pseudonymised
    from test_pretrain_provenance import chain

    (tmp_path / "w").mkdir()
    examples = chain(tmp_path / "data", ["prepare", "pseudonymize"], {"wiki": "CC BY-SA 3.0"})
    (tmp_path / "w" / "config.json").write_text(json.dumps({"examples_dir": str(examples)}))
    argv = ["--workdir", str(tmp_path / "w"), "--output", str(out), "--name", "my-ko-bert"]
    assert export_cli.main(argv) == 0
    assert calls == [(str(tmp_path / "w"), None)]
    assert (out / "model.safetensors").is_file()
    card = (out / "README.md").read_text()
    assert "| steps | 3 |" in card and "# my-ko-bert" in card and "license: cc-by-sa-3.0" in card
    assert "`wiki`: 1 file(s)" in card and "personal information replaced" in card
    assert "not decontaminated against the KLUE benchmark" in card
    assert "The pretraining corpus was pseudonymised" in card
    out2 = tmp_path / "hf2"
    assert export_cli.main([*argv[:3], str(out2), "--license", "mit"]) == 0
    assert "license: mit" in (out2 / "README.md").read_text()
    # Existing output: a clear error and exit code 2, not a traceback.
    assert export_cli.main(["--workdir", "w", "--output", str(out)]) == 2
    # orbax's INFO chatter on restoring the checkpoint (45 lines) is not shown; warnings are
    import logging

    def record(level):
        return logging.LogRecord("absl", level, "/x/orbax/checkpoint/a.py", 1, "m", (), None)

    handlers = logging.getLogger().handlers
    assert handlers and not any(h.filter(record(logging.INFO)) for h in handlers)
    assert all(h.filter(record(logging.WARNING)) for h in handlers)


def _hf_logits(arch: str, folder: Path, batch: dict) -> tuple[np.ndarray, np.ndarray | None]:
    torch = pytest.importorskip("torch", reason="torch not installed (optional extra)")
    transformers = pytest.importorskip(
        "transformers", reason="transformers not installed (optional extra)"
    )
    cls = transformers.BertForPreTraining if arch == "bert" else transformers.RobertaForMaskedLM
    model, info = cls.from_pretrained(str(folder), output_loading_info=True)
    assert not info["missing_keys"] and not info["unexpected_keys"], info
    assert not info["mismatched_keys"], info
    model.eval()
    with torch.no_grad():
        out = model(
            input_ids=torch.tensor(batch["input_ids"], dtype=torch.long),
            attention_mask=torch.tensor(batch["attention_mask"], dtype=torch.long),
            token_type_ids=torch.tensor(batch["token_type_ids"], dtype=torch.long),
        )
    if arch == "bert":
        return out.prediction_logits.float().numpy(), out.seq_relationship_logits.float().numpy()
    return out.logits.float().numpy(), None


@pytest.mark.parametrize("arch", ["bert", "roberta"])
def test_transformers_parity(arch, tokenizer_dir, tmp_path):
    pytest.importorskip("torch", reason="torch not installed (optional extra)")
    pytest.importorskip("transformers", reason="transformers not installed (optional extra)")
    model = random_model(arch, seed=1)
    folder = hf_export.write_hf_folder(model, tokenizer_dir, tmp_path / "hf")
    batch = padded_batch(arch)
    ours = model(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"], POSITIONS)
    hf_mlm, hf_nsp = _hf_logits(arch, folder, batch)
    hf_at_masked = np.take_along_axis(hf_mlm, POSITIONS[..., None], axis=1)
    assert np.abs(hf_at_masked - np.asarray(ours["mlm_logits"])).max() <= 1e-4
    if arch == "bert":
        assert np.abs(hf_nsp - np.asarray(ours["nsp_logits"])).max() <= 1e-4
    # The comparison is not vacuous: logits vary across positions and vocabulary.
    assert np.asarray(ours["mlm_logits"]).std() > 0.1


def test_exported_tokenizer_loads(tokenizer_dir, tmp_path):
    transformers = pytest.importorskip(
        "transformers", reason="transformers not installed (optional extra)"
    )
    folder = hf_export.write_hf_folder(random_model("bert"), tokenizer_dir, tmp_path / "hf")
    tok = transformers.AutoTokenizer.from_pretrained(str(folder))
    assert tok.convert_tokens_to_ids(["[PAD]", "[CLS]", "[SEP]", "[MASK]", "tok0"]) == [
        0,
        2,
        3,
        4,
        5,
    ]


@pytest.mark.parametrize("arch", ["bert", "roberta"])
def test_compare_with_transformers_detects_a_wrong_tensor(arch, tokenizer_dir, tmp_path):
    pytest.importorskip("torch", reason="torch not installed (optional extra)")
    pytest.importorskip("transformers", reason="transformers not installed (optional extra)")
    from safetensors.numpy import save_file

    # A bfloat16-compute model is compared through its float32 copy.
    model = random_model(arch, seed=2)
    bf16 = models.PretrainingModel(model.config.replace(dtype="bfloat16"), rngs=nnx.Rngs(0))
    nnx.update(bf16, nnx.state(model, nnx.Param))
    folder = hf_export.write_hf_folder(bf16, tokenizer_dir, tmp_path / "hf")
    good = hf_export.compare_with_transformers(bf16, folder)
    assert set(good) == (
        {"mlm_max_abs_diff", "nsp_max_abs_diff"} if arch == "bert" else {"mlm_max_abs_diff"}
    )
    assert max(good.values()) <= 1e-4
    # Swap query and key weights of one layer: the check must notice.
    tensors = load_file(str(folder / "model.safetensors"))
    base = "bert" if arch == "bert" else "roberta"
    q, k = (f"{base}.encoder.layer.0.attention.self.{n}.weight" for n in ("query", "key"))
    tensors[q], tensors[k] = tensors[k], tensors[q]
    save_file(tensors, str(folder / "model.safetensors"), {"format": "pt"})
    bad = hf_export.compare_with_transformers(bf16, folder)
    assert bad["mlm_max_abs_diff"] > 1e-3


def test_export_cli_verify(monkeypatch, tokenizer_dir, tmp_path, capsys):
    pytest.importorskip("torch", reason="torch not installed (optional extra)")
    pytest.importorskip("transformers", reason="transformers not installed (optional extra)")
    from pretrain import checkpointing

    model = random_model("bert", seed=3)
    monkeypatch.setattr(
        checkpointing, "load_for_export", lambda w, step=None: (model.config, model, tokenizer_dir)
    )
    out = tmp_path / "hf"
    assert export_cli.main(["--workdir", "w", "--output", str(out), "--verify"]) == 0
    printed = capsys.readouterr().out
    assert "mlm_max_abs_diff" in printed and "nsp_max_abs_diff" in printed


def test_reference_batch_is_padded_and_avoids_pad():
    for arch in ("bert", "roberta"):
        cfg = tiny(arch)
        batch = hf_export.reference_batch(cfg)
        real = batch["attention_mask"].astype(bool)
        assert (batch["input_ids"][real] != cfg.pad_token_id).all()
        assert (batch["input_ids"][~real] == cfg.pad_token_id).all()
        assert (~real).any(), "the batch must contain padding"
        rows = np.arange(3)[:, None]
        assert real[rows, batch["masked_positions"]].all()


@pytest.mark.parametrize("arch", ["bert", "roberta"])
def test_load_hf_folder_round_trip(arch, tokenizer_dir, tmp_path):
    model = random_model(arch, seed=4)
    folder = hf_export.write_hf_folder(model, tokenizer_dir, tmp_path / "hf")
    config, loaded = hf_export.load_hf_folder(folder, dtype="float32")
    assert config == model.config
    ours = nnx.to_pure_dict(nnx.state(model, nnx.Param))
    back = nnx.to_pure_dict(nnx.state(loaded, nnx.Param))
    jax.tree.map(np.testing.assert_array_equal, ours, back)


def test_load_hf_folder_errors(tokenizer_dir, tmp_path):
    from safetensors.numpy import save_file

    folder = hf_export.write_hf_folder(random_model("bert"), tokenizer_dir, tmp_path / "hf")
    tensors = load_file(str(folder / "model.safetensors"))
    # A base-model checkpoint (no "bert." prefix, no heads): loads only when not strict.
    base = {k[len("bert.") :]: v for k, v in tensors.items() if k.startswith("bert.embeddings")}
    base |= {k[len("bert.") :]: v for k, v in tensors.items() if k.startswith("bert.encoder")}
    save_file(base, str(folder / "model.safetensors"))
    with pytest.raises(ValueError, match="missing weights"):
        hf_export.load_hf_folder(folder)
    _, model = hf_export.load_hf_folder(folder, strict=False)
    np.testing.assert_array_equal(
        np.asarray(model.encoder.layers[1].output.kernel[...]),
        tensors["bert.encoder.layer.1.output.dense.weight"].T,
    )
    # A missing encoder weight is an error even when not strict; so is a wrong shape.
    del base["encoder.layer.0.output.dense.bias"]
    save_file(base, str(folder / "model.safetensors"))
    with pytest.raises(ValueError, match="missing weights"):
        hf_export.load_hf_folder(folder, strict=False)
    base["encoder.layer.0.output.dense.bias"] = np.zeros(3, np.float32)
    save_file(base, str(folder / "model.safetensors"))
    with pytest.raises(ValueError, match="shape"):
        hf_export.load_hf_folder(folder, strict=False)
    (folder / "model.safetensors").unlink()
    with pytest.raises(FileNotFoundError, match="safetensors"):
        hf_export.load_hf_folder(folder)
    with pytest.raises(ValueError, match="model_type"):
        hf_export.config_from_hf({"model_type": "gpt2"})


@pytest.mark.parametrize("arch", ["bert", "roberta"])
def test_load_folder_saved_by_transformers(arch, tmp_path):
    """Folders written by transformers itself (tied decoder left out; RoBERTa with [PAD] = 1
    and 2 + L positions, as the released klue/roberta models) give the same logits."""
    torch = pytest.importorskip("torch", reason="torch not installed (optional extra)")
    transformers = pytest.importorskip(
        "transformers", reason="transformers not installed (optional extra)"
    )
    torch.manual_seed(0)
    shape = dict(
        vocab_size=99,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=64,
    )
    if arch == "bert":
        hf = transformers.BertForPreTraining(
            transformers.BertConfig(max_position_embeddings=40, **shape)
        )
    else:
        config = transformers.RobertaConfig(max_position_embeddings=42, **ROBERTA_LAYOUT, **shape)
        hf = transformers.RobertaForMaskedLM(config)
    perturb(torch, hf, seed=0)
    hf.save_pretrained(str(tmp_path / "hf"))
    config, model = hf_export.load_hf_folder(tmp_path / "hf", dtype="float32")
    assert config.pad_token_id == (0 if arch == "bert" else 1)
    assert config.max_seq_length == 40
    diffs = hf_export.compare_with_transformers(
        model, tmp_path / "hf", hf_export.reference_batch(config, seq_len=40)
    )
    assert max(diffs.values()) <= 1e-4, diffs


PAIR = ("서울은 한국의 수도이다.", "부산은 항구 도시이다.")


@pytest.fixture
def wordpiece_dir(tmp_path: Path) -> Path:
    """A tokenizer folder as tokenizer.train writes it (tokenizer.json with a pair template)."""
    from tokenizer.wordpiece import SPECIAL_TOKENS, write_folder

    chars = sorted(set("".join(PAIR).replace(" ", "")))
    vocab = list(SPECIAL_TOKENS) + chars + [f"##{c}" for c in chars]
    return write_folder(tmp_path / "wordpiece", vocab, {})


@pytest.mark.parametrize("arch", ["bert", "roberta"])
def test_sentence_pair_through_stock_transformers(arch, wordpiece_dir, tmp_path):
    """NLI/STS-style input: a pair through AutoTokenizer + AutoModel and stock pipelines.

    Before the fix, the RoBERTa export crashed here (segment id 1 into a 1-row type table).
    """
    torch = pytest.importorskip("torch", reason="torch not installed (optional extra)")
    transformers = pytest.importorskip("transformers", reason="transformers not installed")
    vocab = len((wordpiece_dir / "vocab.txt").read_text(encoding="utf-8").splitlines())
    name = "tiny" if arch == "bert" else "tiny-roberta"
    model = models.build_model(PRESETS[name].replace(vocab_size=vocab, dtype="float32"), seed=3)
    folder = hf_export.write_hf_folder(model, wordpiece_dir, tmp_path / "hf")

    tok = transformers.AutoTokenizer.from_pretrained(str(folder))
    enc = tok(*PAIR, return_tensors="np")
    ids = enc["input_ids"]
    sep = tok.convert_tokens_to_ids("[SEP]")
    assert int((ids == sep).sum()) == 2  # [CLS] a [SEP] b [SEP]
    if arch == "roberta":
        assert "token_type_ids" not in enc
        # The tokenizers library reading tokenizer.json directly gets one segment too.
        from tokenizers import Tokenizer

        raw = Tokenizer.from_file(str(folder / "tokenizer.json")).encode(*PAIR)
        assert set(raw.type_ids) == {0} and raw.ids == ids[0].tolist()
        types = np.zeros_like(ids)
    else:
        types = enc["token_type_ids"]
        assert set(types[0].tolist()) == {0, 1}
    hf_model = transformers.AutoModelForMaskedLM.from_pretrained(str(folder)).eval()
    with torch.no_grad():
        theirs = hf_model(**{k: torch.as_tensor(v) for k, v in enc.items()}).logits.numpy()
    positions = np.arange(ids.shape[1], dtype=np.int32)[None]
    ours = model(ids, types, enc["attention_mask"], positions)["mlm_logits"]
    np.testing.assert_allclose(np.asarray(ours), theirs, atol=1e-4)

    classify = transformers.pipeline("text-classification", model=str(folder))
    out = classify({"text": PAIR[0], "text_pair": PAIR[1]})
    out = out[0] if isinstance(out, list) else out
    assert 0.0 <= out["score"] <= 1.0
    fill = transformers.pipeline("fill-mask", model=str(folder))
    assert len(fill(f"{PAIR[0]} [SEP] 부산은 [MASK] 도시이다.", top_k=2)) == 2
