"""Sentence pairs are framed as the model's own tokenizer frames them (`finetune.tasks.base`).

KLUE-baseline encodes NLI and STS with ``tokenizer(text_a, text_b, truncation=True,
max_length=..., padding="max_length")`` and MRC with ``squad_convert_examples_to_features``
(``tokenizer.encode_plus(question, window)``), so each model gets its tokenizer's layout:
``[CLS] A [SEP] B [SEP]`` for BERT (and KLUE-RoBERTa, whose tokenizer is a BERT one) and
``<s> A </s></s> B </s>`` for XLM-R/RoBERTa. Our encoders read the separator from the
tokenizer (`pair_separator`); these tests compare their input ids with stock ``transformers``'
``AutoTokenizer`` on tiny folders of both layouts, with and without truncation (longest first,
one more special token to budget for XLM-R). RE and YNAT are single texts in the baseline
(``[CLS] text [SEP]`` either way); YNAT is checked too.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tokenizers import Tokenizer, models, processors

from corpus.klue.mrc import MrcExample
from corpus.klue.nli import NliExample
from corpus.klue.sts import StsExample
from corpus.klue.ynat import YnatExample
from finetune.pretrained import load_tokenizer
from finetune.tasks.base import context_for, get_task, pair_separator
from tests.test_finetune_hf_layouts import _xlmr_pieces
from tests.test_finetune_pretrained import BERT_SPECIALS, PAIRS, _write_vocab

tf = pytest.importorskip("transformers", reason="transformers not installed")

LONG = ("이 문장은 조금 더 길어서 다른 줄에는 패딩이 생깁니다 hello " * 3).strip()
TEXTS = [*PAIRS, (LONG, "짧다"), ("짧다", LONG), (LONG, LONG)]


def _folder(kind: str, tmp_path: Path) -> Path:
    """A tiny stock tokenizer saved with ``save_pretrained`` (XLM-R SentencePiece or BERT)."""
    folder = tmp_path / kind
    if kind == "xlm-roberta":
        tokenizer = tf.XLMRobertaTokenizer(vocab=_xlmr_pieces())
    else:
        vocab = _write_vocab(tmp_path / "vocab", BERT_SPECIALS)
        tokenizer = tf.BertTokenizer(vocab=str(vocab), do_lower_case=False)
    tokenizer.save_pretrained(str(folder))
    return folder


def _context(folder: Path, type_vocab_size: int):
    tok, ids = load_tokenizer(folder, type_vocab_size)
    return context_for(tok, ids, type_vocab_size > 1)


@pytest.mark.parametrize(("kind", "types", "separator"), [("xlm-roberta", 1, 2), ("bert", 2, 1)])
@pytest.mark.parametrize("length", [64, 20])  # 20 truncates the long pairs
def test_nli_sts_pairs_equal_auto_tokenizer(tmp_path, kind, types, separator, length):
    folder = _folder(kind, tmp_path)
    ctx = _context(folder, types)
    assert len(ctx.pair_separator) == separator
    theirs = tf.AutoTokenizer.from_pretrained(str(folder))(
        [a for a, _ in TEXTS],
        [b for _, b in TEXTS],
        truncation=True,
        max_length=length,
        padding="max_length",
    )
    nli = [NliExample(f"n{i}", a, b, "neutral", "s") for i, (a, b) in enumerate(TEXTS)]
    sts = [StsExample(f"s{i}", "s", a, b, 1.0, 1.0, 0) for i, (a, b) in enumerate(TEXTS)]
    for task, examples in ((get_task("nli"), nli), (get_task("sts"), sts)):
        ours = task.encode(examples, ctx, length, False).arrays
        np.testing.assert_array_equal(ours["input_ids"], theirs["input_ids"], err_msg=task.name)
        np.testing.assert_array_equal(ours["attention_mask"], theirs["attention_mask"])
        if types > 1:
            np.testing.assert_array_equal(ours["token_type_ids"], theirs["token_type_ids"])
        else:
            assert not ours["token_type_ids"].any()
    assert (np.asarray(theirs["attention_mask"]).sum(1) == length).any(), "nothing truncated"


@pytest.mark.parametrize(("kind", "types"), [("xlm-roberta", 1), ("bert", 2)])
def test_ynat_and_mrc_window_equal_auto_tokenizer(tmp_path, kind, types):
    folder = _folder(kind, tmp_path)
    ctx = _context(folder, types)
    theirs = tf.AutoTokenizer.from_pretrained(str(folder))
    ynat = [YnatExample(f"y{i}", a, "IT과학") for i, (a, _) in enumerate(TEXTS)]
    ours = get_task("ynat").encode(ynat, ctx, 64, False).arrays["input_ids"]
    want = theirs([a for a, _ in TEXTS], truncation=True, max_length=64, padding="max_length")
    np.testing.assert_array_equal(ours, want["input_ids"])
    question, context = PAIRS[0]
    mrc = [MrcExample("m0", question, context, 1, True, ())]
    row = get_task("mrc").encode(mrc, ctx, 64, False).arrays
    assert len(row["input_ids"]) == 1, "the context fits one window"
    want = theirs(question, context)["input_ids"]
    assert row["input_ids"][0, : len(want)].tolist() == want
    assert row["attention_mask"][0].sum() == len(want)


def test_pair_separator_without_post_processor_and_unsupported_layouts():
    tok = Tokenizer(models.WordLevel({"[UNK]": 0, "[CLS]": 1, "[SEP]": 2}, unk_token="[UNK]"))
    assert pair_separator(tok, 1, 2) == (2,)
    specials = [("[CLS]", 1), ("[SEP]", 2)]
    tok.post_processor = processors.TemplateProcessing(
        single="$A [SEP] [CLS]", pair="$A [SEP] $B:1 [SEP]:1 [CLS]:1", special_tokens=specials
    )
    with pytest.raises(ValueError, match="only \\[CLS\\] A <separator> B \\[SEP\\]"):
        pair_separator(tok, 1, 2)
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] [SEP] $B:1 [SEP]:1", special_tokens=specials
    )
    assert pair_separator(tok, 1, 2) == (2, 2)
    # A BPE without an unknown token drops text it cannot spell: the probe still works.
    bpe = Tokenizer(models.BPE({"<s>": 0, "</s>": 1, "x": 2}, []))
    bpe.add_special_tokens(["<s>", "</s>"])
    bpe.post_processor = processors.RobertaProcessing(("</s>", 1), ("<s>", 0))
    assert bpe.encode("a", "b").tokens == ["<s>", "</s>", "</s>", "</s>"]
    assert pair_separator(bpe, 0, 1) == (1, 1)
