"""The KLUE paper's comparison models import like KLUE-BERT/RoBERTa (`pretrain.hf_layouts`).

Each test saves a random tiny stock ``transformers`` model in the layout of a released model
family (every weight perturbed, as in test_finetune_pretrained), loads it with
`finetune.pretrained.load_encoder` and compares the final hidden states on a padded batch of
Korean/English pairs, tokenised by our loader and checked against transformers' own
tokenizer, to 1e-4 (float32):

* KoELECTRA: an ELECTRA discriminator whose embeddings (16) are narrower than its hidden
  size (32), so the embedding projection runs; saved as ``pytorch_model.bin`` (older KoELECTRA
  releases), so the torch conversion runs; its classifier head is compared too;
* XLM-R: ``XLMRobertaModel`` with a SentencePiece (Unigram) ``tokenizer.json``, ``<pad> = 1``;
* KR-BERT: a bare ``BertModel`` as ``pytorch_model.bin`` with a cased ``vocab.txt`` and a
  ``config.json`` without ``model_type`` (read from ``architectures``);
* multilingual BERT: ``BertForMaskedLM`` with a cased fast tokenizer.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from flax import nnx
from hf_reference import ROBERTA_LAYOUT, perturb

from finetune.pretrained import ModelLoadError, load_encoder
from finetune.tasks.classification import FirstTokenHead
from tests.test_finetune_pretrained import (
    BERT_SPECIALS,
    PAIRS,
    SHAPE,
    _encode,
    _vocab,
    _write_vocab,
)

torch = pytest.importorskip("torch", reason="torch not installed (optional extra)")
tf = pytest.importorskip("transformers", reason="transformers not installed")
XLMR_SPECIALS = ["<s>", "<pad>", "</s>", "<unk>"]  # ids 0-3 as in xlm-roberta-base


def _save(model, tokenizer, folder: Path, seed: int, safetensors: bool = True) -> Path:
    """``save_pretrained`` of the perturbed ``model``; ``safetensors=False`` leaves only a
    ``pytorch_model.bin`` (``torch.save`` of the state dict, what older releases hold)."""
    torch.manual_seed(seed)
    perturb(torch, model, seed)
    model.eval()
    model.save_pretrained(str(folder))
    tokenizer.save_pretrained(str(folder))
    if not safetensors:
        torch.save(model.state_dict(), folder / "pytorch_model.bin")
        (folder / "model.safetensors").unlink()
    return folder


def _hidden(theirs, batch: dict[str, np.ndarray], types: bool = True) -> np.ndarray:
    kwargs = dict(
        input_ids=torch.as_tensor(batch["ids"], dtype=torch.long),
        attention_mask=torch.as_tensor(batch["mask"], dtype=torch.long),
        output_hidden_states=True,
    )
    if types:
        kwargs["token_type_ids"] = torch.as_tensor(batch["types"], dtype=torch.long)
    with torch.no_grad():
        return theirs(**kwargs)


def _assert_same_hidden(folder: Path, theirs, arch: str):
    """Load ``folder``, encode the pairs, compare the last hidden states; returns our outputs."""
    loaded = load_encoder(folder)
    assert loaded.config.arch == arch and loaded.source == "huggingface"
    batch = _encode(loaded, tf.AutoTokenizer.from_pretrained(str(folder)))
    sequence, pooled = loaded.encoder(batch["ids"], batch["types"], batch["mask"])
    out = _hidden(theirs, batch, types=loaded.use_token_types)
    real = batch["mask"].astype(bool)
    diff = np.abs(out.hidden_states[-1].numpy()[real] - np.asarray(sequence)[real]).max()
    assert diff <= 1e-4, diff
    return loaded, batch, np.asarray(sequence), pooled, out


def test_koelectra_discriminator_bin_with_embedding_projection(tmp_path):
    vocab = _write_vocab(tmp_path / "vocab", BERT_SPECIALS)
    tokenizer = tf.ElectraTokenizer(vocab=str(vocab), do_lower_case=False)
    config = tf.ElectraConfig(
        vocab_size=len(_vocab(BERT_SPECIALS)),
        embedding_size=16,
        max_position_embeddings=64,
        num_labels=3,
        **SHAPE,
    )
    theirs = tf.ElectraForSequenceClassification(config)
    folder = _save(theirs, tokenizer, tmp_path / "koelectra", 7, safetensors=False)
    assert not list(folder.glob("*.safetensors")) and (folder / "pytorch_model.bin").is_file()
    loaded, batch, sequence, pooled, out = _assert_same_hidden(folder, theirs, "electra")
    assert loaded.config.embedding_size == 16 and pooled is None and loaded.use_token_types
    assert loaded.encoder.embedding_projection is not None and loaded.fresh == ()
    assert not list(folder.glob("*.safetensors")), "the user's folder is not written to"
    # Our ELECTRA first-token head (dense + GELU) with their classifier's weights: same logits.
    head = FirstTokenHead(loaded.config, 3, rngs=nnx.Rngs(0))
    weights = {k: v.numpy() for k, v in theirs.state_dict().items()}
    head.dense.kernel[...] = weights["classifier.dense.weight"].T
    head.dense.bias[...] = weights["classifier.dense.bias"]
    head.out.kernel[...] = weights["classifier.out_proj.weight"].T
    head.out.bias[...] = weights["classifier.out_proj.bias"]
    logits = np.asarray(head(sequence, pooled, batch)["logits"])
    assert np.abs(out.logits.numpy() - logits).max() <= 1e-4


def _xlmr_pieces() -> list[tuple[str, float]]:
    chars = sorted({c for pair in PAIRS for text in pair for c in text if not c.isspace()})
    pieces = [(t, 0.0) for t in XLMR_SPECIALS] + [("▁", -2.0), ("▁안녕", -1.0)]
    pieces += [(f"▁{c}", -3.0) for c in chars] + [(c, -4.0) for c in chars]
    return pieces + [("<mask>", 0.0)]


def test_xlm_roberta_with_sentencepiece_tokenizer(tmp_path):
    pieces = _xlmr_pieces()
    tokenizer = tf.XLMRobertaTokenizer(vocab=pieces)
    config = tf.XLMRobertaConfig(
        vocab_size=len(pieces), max_position_embeddings=40, **ROBERTA_LAYOUT, **SHAPE
    )
    theirs = tf.XLMRobertaModel(config)
    folder = _save(theirs, tokenizer, tmp_path / "xlmr", 5)
    assert json.loads((folder / "config.json").read_text())["model_type"] == "xlm-roberta"
    assert not (folder / "vocab.txt").exists()
    loaded, batch, *_ = _assert_same_hidden(folder, theirs, "roberta")
    assert (loaded.pad_id, loaded.cls_id, loaded.sep_id) == (1, 0, 2)
    assert loaded.mask_id == len(pieces) - 1 and not loaded.use_token_types
    assert (batch["ids"][:, 0] == 0).all()


def test_kr_bert_bin_without_model_type_and_multilingual_bert(tmp_path):
    n = len(_vocab(BERT_SPECIALS))
    vocab = _write_vocab(tmp_path / "vocab", BERT_SPECIALS)
    # KR-BERT: vocab.txt (cased), pytorch_model.bin of a BertModel, no model_type in config.
    tokenizer = tf.BertTokenizer(vocab=str(vocab), do_lower_case=False)
    config = tf.BertConfig(vocab_size=n, max_position_embeddings=64, **SHAPE)
    theirs = tf.BertModel(config)
    folder = _save(theirs, tokenizer, tmp_path / "kr-bert", 3, safetensors=False)
    hf = json.loads((folder / "config.json").read_text())
    del hf["model_type"]
    (folder / "config.json").write_text(json.dumps({**hf, "architectures": ["BertModel"]}))
    # KR-BERT ships vocab.txt and a cased tokenizer_config.json, no tokenizer.json.
    (folder / "tokenizer.json").unlink(missing_ok=True)
    (folder / "vocab.txt").write_bytes(vocab.read_bytes())
    tok_config = {"tokenizer_class": "BertTokenizer", "do_lower_case": False}
    (folder / "tokenizer_config.json").write_text(json.dumps(tok_config))
    loaded, *_, pooled, out = _assert_same_hidden(folder, theirs, "bert")
    assert np.abs(out.pooler_output.numpy() - np.asarray(pooled)).max() <= 1e-4
    # Multilingual BERT: a cased fast tokenizer and an MLM checkpoint (the pooler is fresh).
    theirs = tf.BertForMaskedLM(config)
    folder = _save(theirs, tokenizer, tmp_path / "mbert", 4)
    assert (folder / "tokenizer.json").is_file()
    loaded, *_ = _assert_same_hidden(folder, theirs, "bert")
    assert loaded.fresh == ("bert.pooler.dense.weight", "bert.pooler.dense.bias")


def test_bin_without_torch_says_how_to_convert(tmp_path, monkeypatch):
    vocab = _write_vocab(tmp_path / "vocab", BERT_SPECIALS)
    tokenizer = tf.BertTokenizer(vocab=str(vocab))
    config = tf.BertConfig(vocab_size=len(_vocab(BERT_SPECIALS)), max_position_embeddings=16)
    config.update(dict(SHAPE, num_hidden_layers=1))
    folder = _save(tf.BertModel(config), tokenizer, tmp_path / "bin", 1, safetensors=False)
    monkeypatch.setitem(sys.modules, "torch", None)  # `import torch` raises ImportError
    with pytest.raises(ModelLoadError, match="torch is not installed: convert .*save_pretrained"):
        load_encoder(folder)
    monkeypatch.undo()
    (folder / "pytorch_model.bin").write_bytes(b"not a torch file")
    with pytest.raises(ModelLoadError, match="pytorch_model.bin: not a readable PyTorch weight"):
        load_encoder(folder)
    (folder / "pytorch_model.bin").unlink()
    with pytest.raises(ModelLoadError, match="no model.safetensors, .* or pytorch_model.bin"):
        load_encoder(folder)
