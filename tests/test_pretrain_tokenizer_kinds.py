"""Whole-word rules per tokenizer kind (pretrain.tokenizer_kinds) and build_data with them.

The reference for "where a word starts" is the tokenizers library's own pre-tokenizer: an
``Encoding``'s ``word_ids`` number the pre-tokenized words (WordPiece: BERT's whitespace +
punctuation split; SentencePiece: Metaspace's split at spaces). Our masking's `word_ids`
(read from ``##`` / ``▁`` marks alone) must give the same words for every sentence of the
tiny corpus.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from tokenizers import Tokenizer, decoders, models, pre_tokenizers

from pretrain import build_data, input_pipeline, tokenizer_kinds
from pretrain.masking import MaskingSpec, word_ids

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "pretrain" / "tiny_corpus.txt"
SP_SPECIALS = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]


def _lines() -> list[str]:
    return CORPUS.read_text(encoding="utf-8").splitlines()


def sentencepiece_folder(folder: Path) -> Path:
    """A Unigram tokenizer with Metaspace (XLM-R-style names), pieces from the corpus: the
    frequent whole words with ``▁`` and every character both with and without it."""
    words: dict[str, int] = {}
    for line in _lines():
        for w in line.split():
            words[w] = words.get(w, 0) + 1
    frequent = sorted(w for w, n in words.items() if n >= 2)
    chars = sorted(set("".join(_lines())) - {" "})
    pieces = [(t, 0.0) for t in SP_SPECIALS] + [("▁" + w, -2.0) for w in frequent]
    pieces += [("▁" + c, -4.0) for c in chars] + [(c, -5.0) for c in chars] + [("▁", -6.0)]
    tok = Tokenizer(models.Unigram(pieces, unk_id=3, byte_fallback=False))
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Metaspace()
    tok.add_special_tokens(SP_SPECIALS)
    folder.mkdir(parents=True)
    tok.save(str(folder / "tokenizer.json"))
    specials = {
        "bos_token": "<s>",
        "cls_token": "<s>",
        "sep_token": "</s>",
        "pad_token": "<pad>",
        "unk_token": "<unk>",
        "mask_token": {"content": "<mask>", "lstrip": True},
    }
    (folder / "special_tokens_map.json").write_text(json.dumps(specials), encoding="utf-8")
    return folder


def wordpiece_folder(folder: Path) -> Path:
    """This project's WordPiece tokenizer (tokenizer.wordpiece.write_folder): chars + ##chars,
    ``▁`` among them as a literal character."""
    from tokenizer.wordpiece import FORCED_CHARS, SPECIAL_TOKENS, write_folder

    chars = sorted(set("".join(_lines())) - {" "} | set(FORCED_CHARS))
    return write_folder(folder, list(SPECIAL_TOKENS) + chars + [f"##{c}" for c in chars], {})


@pytest.fixture(scope="module")
def kinds(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("kinds")
    return {
        "sentencepiece": sentencepiece_folder(root / "sp"),
        "wordpiece": wordpiece_folder(root / "wp"),
    }


def _renumbered(ids) -> list[int]:
    order: dict[int, int] = {}
    return [order.setdefault(i, len(order)) for i in ids]


@pytest.mark.parametrize("kind", ["sentencepiece", "wordpiece"])
def test_words_match_the_tokenizers_pre_tokenizer(kind, kinds, tmp_path):
    folder = kinds[kind]
    tok = build_data.load_tokenizer(folder)
    names, rule = build_data.tokenizer_kind(folder, tok)
    assert rule == kind
    spec = MaskingSpec.from_vocab(
        build_data.vocab_tokens(tok),
        max_predictions=20,
        special_tokens=names.values(),
        mask_token=names["[MASK]"],
        word_rule=rule,
    )
    multi_piece_words = 0
    for line in _lines():
        enc = tok.encode(line, add_special_tokens=False)
        ours = word_ids(np.asarray(enc.ids), spec)
        assert _renumbered(ours) == _renumbered(enc.word_ids), line[:20]
        multi_piece_words += len(enc.ids) - len(set(enc.word_ids))
    assert multi_piece_words > 100  # the check saw words of several pieces


def test_build_data_records_the_rule_and_the_loader_masks_by_it(kinds, tmp_path):
    folder = kinds["sentencepiece"]
    out = build_data.build_examples(
        folder, [str(CORPUS)], tmp_path / "ex", objective="roberta", max_seq_length=32,
        workers=1, log=lambda *_: None,
    )  # fmt: skip
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["word_rule"] == "sentencepiece"
    assert manifest["special_ids"] == {"[CLS]": 0, "[PAD]": 1, "[SEP]": 2, "[UNK]": 3, "[MASK]": 4}
    assert manifest["special_tokens"]["[MASK]"] == "<mask>"
    loader = input_pipeline.make_loader(out, global_batch_size=8, seed=0, prefetch=0)
    tokens = (out / "vocab.txt").read_text(encoding="utf-8").split("\n")[:-1]
    starts = np.array([t.startswith("▁") for t in tokens])
    assert not loader.spec.is_continuation[starts].any()
    assert loader.spec.is_continuation[~starts & ~loader.spec.is_special].all()
    assert loader.spec.mask_id == 4
    stats = input_pipeline.batch_statistics(loader, steps=4)
    assert stats["split_words"] == 0 and 0.10 < stats["mask_rate"] < 0.20
    batch = loader.batch(0)
    assert (batch["input_ids"][batch["attention_mask"] == 0] == 1).all()  # padded with <pad>


def test_bert_objective_with_sentencepiece(kinds, tmp_path):
    out = build_data.build_examples(
        kinds["sentencepiece"], [str(CORPUS)], tmp_path / "ex", objective="bert",
        max_seq_length=32, workers=1, dupe_factor=1, log=lambda *_: None,
    )  # fmt: skip
    loader = input_pipeline.make_loader(out, global_batch_size=8, seed=0, prefetch=0)
    batch = loader.batch(0)
    assert (batch["input_ids"][:, 0] == 0).all()  # <s> opens every pair
    assert input_pipeline.batch_statistics(loader, steps=2)["split_words"] == 0


def test_kinds_without_word_marks_are_refused(tmp_path):
    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel()
    with pytest.raises(ValueError, match="no piece says where a word starts"):
        tokenizer_kinds.word_rule(json.loads(bpe.to_str()), "x/tokenizer.json")
    odd = Tokenizer(models.WordPiece({"[UNK]": 0}, unk_token="[UNK]"))
    data = json.loads(odd.to_str())
    data["model"]["continuing_subword_prefix"] = "@@"
    with pytest.raises(ValueError, match="continuation prefix '@@'"):
        tokenizer_kinds.word_rule(data)
    folder = tmp_path / "nomask"
    folder.mkdir()
    tok = Tokenizer(models.WordPiece({"[PAD]": 0, "[CLS]": 1, "[SEP]": 2, "a": 3}, unk_token="a"))
    tok.save(str(folder / "tokenizer.json"))
    with pytest.raises(ValueError, match=r"nomask/tokenizer.json: tokenizer has no \[MASK\]"):
        build_data.load_tokenizer(folder)
