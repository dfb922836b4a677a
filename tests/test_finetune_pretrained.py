"""`finetune.pretrained.load_encoder`: stock transformers folders, our export, workdirs, errors.

Stock models are randomly initialised (every weight then perturbed, so LayerNorms and biases
are not trivial), saved with transformers' ``save_pretrained`` with a tokenizer saved the same
way, imported with NumPy, and run on a padded batch of Korean/English sentence pairs that our
tokenizer encodes; hidden states, pooler output and sequence-classification logits must match
transformers to 1e-4 (float32). One RoBERTa is shaped like the released KLUE-RoBERTa folders
(``[CLS] = 0``, ``[PAD] = 1``, ``pad_token_id = 1``, 514 positions, a BERT tokenizer).
"""

from __future__ import annotations

import json
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx
from hf_reference import ROBERTA_LAYOUT, perturb
from safetensors.numpy import load_file, save_file

from finetune import pretrained
from finetune.pretrained import ModelLoadError, load_encoder
from pretrain import checkpointing, hf_export, models
from tests.pretrain_fixtures import perturbed_tiny_model

PAIRS = [
    ("안녕하세요 저는 학생입니다.", "오늘은 날씨가 좋다!"),
    ("Hello World", "서울에서 부산까지 KTX로 간다"),
    ("짧다", "이 문장은 조금 더 길어서 다른 줄에는 패딩이 생깁니다 hello"),
]
BERT_SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
KLUE_ROBERTA_SPECIALS = ["[CLS]", "[PAD]", "[SEP]", "[UNK]", "[MASK]"]  # klue/roberta-* ids
SHAPE = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64)


def _vocab(specials: list[str]) -> list[str]:
    chars = sorted({c for pair in PAIRS for text in pair for c in text if not c.isspace()})
    words = ["hello", "World", "KTX", "학생", "##입니다", "날씨", "##가"]
    return list(dict.fromkeys(specials + words + chars + [f"##{c}" for c in chars]))


def _write_vocab(folder: Path, specials: list[str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "vocab.txt").write_text("\n".join(_vocab(specials)) + "\n", encoding="utf-8")
    return folder / "vocab.txt"


def _stock_folder(kind: str, tmp_path: Path) -> tuple[Path, object]:
    """Save a random stock transformers model + tokenizer; returns (folder, torch model)."""
    torch = pytest.importorskip("torch", reason="torch not installed (optional extra)")
    tf = pytest.importorskip("transformers", reason="transformers not installed")
    torch.manual_seed(0)
    folder = tmp_path / kind
    specials = BERT_SPECIALS if kind == "bert" else KLUE_ROBERTA_SPECIALS
    vocab_file = _write_vocab(tmp_path / f"{kind}-vocab", specials)
    tokenizer = tf.BertTokenizer(vocab=str(vocab_file), do_lower_case=False)
    n = len(_vocab(specials))
    if kind == "bert":  # with the pooler and a classifier on it; "bert." prefixed names
        config = tf.BertConfig(vocab_size=n, max_position_embeddings=64, num_labels=3, **SHAPE)
        model = tf.BertForSequenceClassification(config)
    elif kind == "klue-roberta":  # KLUE-RoBERTa's ids and sizes, RoBERTa's classifier head
        config = tf.RobertaConfig(
            vocab_size=n, max_position_embeddings=514, num_labels=3, **ROBERTA_LAYOUT, **SHAPE
        )
        model = tf.RobertaForSequenceClassification(config)
    else:  # a bare RobertaModel: names without the "roberta." prefix, with a pooler
        config = tf.RobertaConfig(
            vocab_size=n, max_position_embeddings=40, pad_token_id=1, type_vocab_size=1, **SHAPE
        )
        model = tf.RobertaModel(config)
    perturb(torch, model, seed=len(kind))
    model.eval()
    model.save_pretrained(str(folder))
    tokenizer.save_pretrained(str(folder))
    return folder, model


def _encode(loaded, hf_tokenizer=None) -> dict[str, np.ndarray]:
    """The pairs with our tokenizer, padded with the model's pad id; checks transformers' ids."""
    encs = loaded.tokenizer.encode_batch(PAIRS)
    length = max(len(e.ids) for e in encs)
    batch = {k: np.zeros((len(encs), length), np.int32) for k in ("ids", "types", "mask")}
    batch["ids"][:] = loaded.pad_id
    for i, e in enumerate(encs):
        batch["ids"][i, : len(e.ids)] = e.ids
        batch["types"][i, : len(e.ids)] = e.type_ids
        batch["mask"][i, : len(e.ids)] = 1
    if hf_tokenizer is not None:
        theirs = hf_tokenizer([a for a, _ in PAIRS], [b for _, b in PAIRS], padding=True)
        np.testing.assert_array_equal(batch["ids"], theirs["input_ids"])
        np.testing.assert_array_equal(batch["mask"], theirs["attention_mask"])
        if loaded.use_token_types:
            np.testing.assert_array_equal(batch["types"], theirs["token_type_ids"])
    assert (batch["mask"] == 0).any(), "the batch must contain padding"
    return batch


@pytest.mark.parametrize("kind", ["bert", "klue-roberta", "roberta-base-model"])
def test_stock_transformers_folder_gives_their_outputs(kind, tmp_path):
    import torch
    import transformers

    folder, theirs = _stock_folder(kind, tmp_path)
    loaded = load_encoder(folder)
    assert loaded.source == "huggingface" and loaded.fresh == ()
    arch = "bert" if kind == "bert" else "roberta"
    assert loaded.config.arch == arch
    if kind == "klue-roberta":
        assert (loaded.pad_id, loaded.cls_id, loaded.sep_id) == (1, 0, 2)
        assert loaded.config.pad_token_id == 1
        assert loaded.config.max_position_embeddings == 514
        assert loaded.config.max_seq_length == 512
    batch = _encode(loaded, transformers.AutoTokenizer.from_pretrained(str(folder)))
    if arch == "roberta":
        assert not loaded.use_token_types and (batch["types"] == 0).all()
    else:
        assert loaded.use_token_types and (batch["types"] == 1).any()
    sequence, pooled = loaded.encoder(batch["ids"], batch["types"], batch["mask"])
    sequence = np.asarray(sequence)
    with torch.no_grad():
        out = theirs(
            input_ids=torch.as_tensor(batch["ids"], dtype=torch.long),
            token_type_ids=torch.as_tensor(batch["types"], dtype=torch.long),
            attention_mask=torch.as_tensor(batch["mask"], dtype=torch.long),
            output_hidden_states=True,
        )
    hidden = out.hidden_states[-1] if hasattr(out, "logits") else out.last_hidden_state
    real = batch["mask"].astype(bool)
    assert np.abs(hidden.numpy()[real] - sequence[real]).max() <= 1e-4
    weights = {k: v.numpy() for k, v in theirs.state_dict().items()}
    if kind == "bert":
        assert np.abs(out.hidden_states[-1].numpy() - sequence).max() <= 1e-4  # pads too
        logits = np.asarray(pooled) @ weights["classifier.weight"].T + weights["classifier.bias"]
        assert np.abs(out.logits.numpy() - logits).max() <= 1e-4
    elif kind == "klue-roberta":
        assert pooled is None
        x = np.tanh(
            sequence[:, 0] @ weights["classifier.dense.weight"].T + weights["classifier.dense.bias"]
        )
        logits = x @ weights["classifier.out_proj.weight"].T + weights["classifier.out_proj.bias"]
        assert np.abs(out.logits.numpy() - logits).max() <= 1e-4
        # No pooler in RobertaForSequenceClassification: a task that needs one gets it fresh,
        # N(0, initializer_range) from the seed, the encoder's own weights unchanged.
        with_pooler = pretrained.add_pooler(loaded, seed=3)
        assert with_pooler.fresh == ("pooler",) and loaded.encoder.pooler is None
        again = pretrained.add_pooler(loaded, seed=3).encoder.pooler.kernel[...]
        kernel = np.asarray(with_pooler.encoder.pooler.kernel[...])
        assert np.array_equal(kernel, np.asarray(again)) and 0.01 < kernel.std() < 0.03
        seq2, pooled2 = with_pooler.encoder(batch["ids"], batch["types"], batch["mask"])
        assert np.array_equal(np.asarray(seq2), sequence) and pooled2 is not None
    else:  # RobertaModel's pooler (roberta.pooler.dense) is loaded: pooler_output to 1e-4
        assert pooled is not None
        assert np.abs(out.pooler_output.numpy() - np.asarray(pooled)).max() <= 1e-4


def test_vocab_txt_only_tokenizer_matches_transformers(tmp_path):
    """No tokenizer.json: vocab.txt + tokenizer_config.json as transformers' BertTokenizer."""
    transformers = pytest.importorskip("transformers", reason="transformers not installed")
    folder = tmp_path / "tok"
    _write_vocab(folder, BERT_SPECIALS)
    texts = [("Hello World 안녕하세요", "KTX"), ("hello, 날씨!", "오늘은 ÀÉ 좋다")]
    for lower in (False, True):
        (folder / "tokenizer_config.json").write_text(json.dumps({"do_lower_case": lower}))
        ours, ids = pretrained.load_tokenizer(folder)
        theirs = transformers.BertTokenizer(vocab=str(folder / "vocab.txt"), do_lower_case=lower)
        for a, b in texts:
            enc, ref = ours.encode(a, b), theirs(a, b)
            assert enc.ids == ref["input_ids"], (lower, a, b)
            assert enc.type_ids == ref["token_type_ids"]
        assert ids == {"pad": 0, "unk": 1, "cls": 2, "sep": 3, "mask": 4}
    _, rob = pretrained.load_tokenizer(folder, type_vocab_size=1)
    assert pretrained.load_tokenizer(folder, 1)[0].encode("a", "b").type_ids == [0] * 5
    assert rob["pad"] == 0


def _random_model(arch: str, tokenizer_dir: Path, seed: int = 0) -> models.PretrainingModel:
    n = len((tokenizer_dir / "vocab.txt").read_text(encoding="utf-8").splitlines())
    return perturbed_tiny_model(arch, n, seed)


@pytest.fixture
def our_tokenizer(tmp_path: Path) -> Path:
    from tokenizer import wordpiece

    return wordpiece.write_folder(tmp_path / "ourtok", _vocab(BERT_SPECIALS), {})


def _same_params(encoder, loaded_encoder) -> None:
    ours = nnx.to_pure_dict(nnx.state(encoder, nnx.Param))
    back = nnx.to_pure_dict(nnx.state(loaded_encoder, nnx.Param))
    jax.tree.map(np.testing.assert_array_equal, ours, back)


@pytest.mark.parametrize("arch", ["bert", "roberta"])
def test_export_round_trip_is_exact(arch, our_tokenizer, tmp_path):
    model = _random_model(arch, our_tokenizer)
    folder = hf_export.write_hf_folder(model, our_tokenizer, tmp_path / "export")
    loaded = load_encoder(folder)
    _same_params(model.encoder, loaded.encoder)
    assert loaded.config == model.config
    assert (loaded.pad_id, loaded.cls_id, loaded.sep_id, loaded.mask_id) == (0, 2, 3, 4)
    batch = _encode(loaded)
    ours = model.encoder(batch["ids"], batch["types"], batch["mask"])[0]
    back = loaded.encoder(batch["ids"], batch["types"], batch["mask"])[0]
    np.testing.assert_array_equal(np.asarray(ours), np.asarray(back))


def test_sharded_safetensors_folder(our_tokenizer, tmp_path):
    """``model.safetensors.index.json`` + shards (how transformers saves large models)."""
    model = _random_model("bert", our_tokenizer)
    folder = hf_export.write_hf_folder(model, our_tokenizer, tmp_path / "hf")
    tensors = load_file(str(folder / "model.safetensors"))
    names = sorted(tensors)
    shards = {
        "model-00001-of-00002.safetensors": names[::2],
        "model-00002-of-00002.safetensors": names[1::2],
    }
    for file, keys in shards.items():
        save_file({k: tensors[k] for k in keys}, str(folder / file), {"format": "pt"})
    weight_map = {k: file for file, keys in shards.items() for k in keys}
    (folder / "model.safetensors.index.json").write_text(json.dumps({"weight_map": weight_map}))
    (folder / "model.safetensors").unlink()
    _same_params(model.encoder, load_encoder(folder).encoder)


def _save_workdir(workdir: Path, model, tokenizer_dir: Path | str, step: int) -> None:
    from pretrain.train import TrainState

    state = TrainState(
        step=jnp.asarray(step, jnp.int32),
        params=nnx.state(model, nnx.Param),
        opt_state={"count": jnp.zeros((), jnp.int32)},
        rng=jax.random.key_data(jax.random.key(0)),
    )
    ckpt = checkpointing.Checkpointer(checkpointing.checkpoint_dir(workdir), async_save=False)
    meta = {"model_config": model.config.to_dict(), "tokenizer_dir": str(tokenizer_dir)}
    ckpt.save(step, state, meta)
    ckpt.wait()
    ckpt.close()


def test_workdir_newest_checkpoint_and_given_step(our_tokenizer, tmp_path):
    workdir = tmp_path / "run"
    old, new = (_random_model("roberta", our_tokenizer, seed=s) for s in (1, 2))
    _save_workdir(workdir, old, our_tokenizer, 10)
    _save_workdir(workdir, new, our_tokenizer, 20)
    loaded = load_encoder(workdir)
    assert loaded.source == "workdir" and loaded.step == 20
    _same_params(new.encoder, loaded.encoder)
    at_10 = load_encoder(workdir / "checkpoints" / "10", dtype="bfloat16")
    assert at_10.step == 10 and at_10.config.dtype == "bfloat16"
    _same_params(old.encoder, at_10.encoder)
    # The recorded tokenizer folder moved away: clear error, or an explicit one.
    moved = tmp_path / "moved"
    our_tokenizer.rename(moved)
    with pytest.raises(ModelLoadError, match="tokenizer folder the run recorded"):
        load_encoder(workdir)
    assert load_encoder(workdir, tokenizer_dir=moved).tokenizer_dir == moved
    with pytest.raises(ModelLoadError, match="no checkpoints|no complete checkpoint"):
        (tmp_path / "empty" / "checkpoints").mkdir(parents=True)
        load_encoder(tmp_path / "empty")


def test_bad_inputs_raise_clear_errors(our_tokenizer, tmp_path):
    model = _random_model("bert", our_tokenizer)
    folder = hf_export.write_hf_folder(model, our_tokenizer, tmp_path / "hf")
    config = json.loads((folder / "config.json").read_text())

    def with_config(**changes) -> None:
        (folder / "config.json").write_text(json.dumps({**config, **changes}))

    with pytest.raises(ModelLoadError, match="does not exist"):
        load_encoder(tmp_path / "nowhere")
    with pytest.raises(ModelLoadError, match="neither a pretraining workdir"):
        load_encoder(our_tokenizer)
    with_config(model_type="gpt2")
    with pytest.raises(ModelLoadError, match="model_type must be one of .*'gpt2'"):
        load_encoder(folder)
    with_config(hidden_act="relu")
    with pytest.raises(ModelLoadError, match="hidden_act"):
        load_encoder(folder)
    with_config(vocab_size=config["vocab_size"] + 5)
    with pytest.raises(ModelLoadError, match="vocab_size .* disagrees with .*word_embeddings"):
        load_encoder(folder)
    with_config(type_vocab_size=1)
    with pytest.raises(ModelLoadError, match="type_vocab_size = 1 disagrees"):
        load_encoder(folder)
    with_config()
    # A tokenizer with more tokens than the embedding has rows.
    big = tmp_path / "bigtok"
    big.mkdir()
    vocab = (our_tokenizer / "vocab.txt").read_text(encoding="utf-8")
    (big / "vocab.txt").write_text(vocab + "".join(f"extra{i}\n" for i in range(3)))
    with pytest.raises(ModelLoadError, match="tokenizer has .* tokens but the embedding"):
        load_encoder(folder, tokenizer_dir=big)
    # A RoBERTa whose tokenizer pads with another id than its config.
    rob = hf_export.write_hf_folder(
        _random_model("roberta", our_tokenizer), our_tokenizer, tmp_path / "rob"
    )
    rob_config = json.loads((rob / "config.json").read_text())
    (rob / "config.json").write_text(json.dumps({**rob_config, "pad_token_id": 1}))
    with pytest.raises(ModelLoadError, match="pad id 0 != config pad_token_id 1"):
        load_encoder(rob)
    # Missing tokenizer, missing encoder weight, missing weights file, broken JSON.
    for name in ("vocab.txt", "tokenizer.json"):
        (rob / name).unlink()
    (rob / "config.json").write_text(json.dumps(rob_config))
    with pytest.raises(ModelLoadError, match="has no tokenizer"):
        load_encoder(rob)
    tensors = load_file(str(folder / "model.safetensors"))
    del tensors["bert.encoder.layer.1.attention.self.key.weight"]
    save_file(tensors, str(folder / "model.safetensors"))
    with pytest.raises(ModelLoadError, match="missing weights .*layer.1.attention.self.key"):
        load_encoder(folder)
    (folder / "model.safetensors").write_bytes(b"\x08\x00\x00\x00\x00\x00\x00\x00{garbage")
    with pytest.raises(ModelLoadError, match="not a readable safetensors file"):
        load_encoder(folder)
    (folder / "model.safetensors").unlink()
    with pytest.raises(ModelLoadError, match="no model.safetensors"):
        load_encoder(folder)
    (folder / "config.json").write_text("{not json")
    with pytest.raises(ModelLoadError, match="config.json"):
        load_encoder(folder)


def test_bert_without_pooler_gets_a_fresh_one_and_untied_decoder(our_tokenizer, tmp_path):
    model = _random_model("bert", our_tokenizer)
    folder = hf_export.write_hf_folder(model, our_tokenizer, tmp_path / "hf")
    tensors = load_file(str(folder / "model.safetensors"))
    tensors["cls.predictions.decoder.weight"] = tensors["cls.predictions.decoder.weight"] + 1
    for key in [k for k in tensors if k.startswith("bert.pooler")]:
        del tensors[key]
    save_file(tensors, str(folder / "model.safetensors"))
    loaded = load_encoder(folder, seed=3)  # MLM head (untied or not) is not used
    assert loaded.fresh == ("bert.pooler.dense.weight", "bert.pooler.dense.bias")
    assert np.abs(np.asarray(loaded.encoder.pooler.kernel[...])).max() > 0
    with pytest.raises(ValueError, match="not tied"):
        hf_export.load_hf_folder(folder, strict=False)


def test_add_tokens_grows_the_embedding(our_tokenizer, tmp_path):
    model = _random_model("roberta", our_tokenizer)
    folder = hf_export.write_hf_folder(model, our_tokenizer, tmp_path / "hf")
    loaded = load_encoder(folder)
    before = np.asarray(loaded.encoder.embeddings.word_embeddings.embedding[...])
    grown = pretrained.add_tokens(loaded, ("<subj>", "</subj>", "<obj>", "</obj>", "[SEP]"))
    n = before.shape[0]
    assert grown.config.vocab_size == n + 4
    ids = grown.tokenizer.encode("<subj>가</subj>", add_special_tokens=False).ids
    assert ids[0] == n and ids[-1] == n + 1
    table = np.asarray(grown.encoder.embeddings.word_embeddings.embedding[...])
    np.testing.assert_array_equal(table[:n], before)
    assert table.shape == (n + 4, before.shape[1]) and 0 < table[n:].std() < 0.05
    np.testing.assert_array_equal(
        np.asarray(grown.encoder.layers[0].output.kernel[...]),
        np.asarray(loaded.encoder.layers[0].output.kernel[...]),
    )
    sequence, _ = grown.encoder(
        np.asarray([ids]), np.zeros((1, len(ids)), np.int32), np.ones((1, len(ids)), np.int32)
    )
    assert sequence.shape == (1, len(ids), grown.config.hidden_size)
