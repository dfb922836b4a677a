"""Morpheme vocabulary trained on a slice of the real Korean Wikipedia sample.

Trains a 3,000-piece vocabulary on a ~1.2 MB sample of kowiki (files wiki_00-01) and
checks frequent words of a held-out file (wiki_99) that were chosen from that
file's most frequent eojeols: they segment at Mecab morpheme boundaries, in
the klue/bert-base style (그 ##의, 있 ##었 ##다).
"""

from __future__ import annotations

import pytest
from tokenizers import Tokenizer

from tokenizer.inputs import Inputs
from tokenizer.morphemes import MorphemeSplitter
from tokenizer.train import train_tokenizer

WORDS = {
    "있다.": ["있", "##다", "."],
    "그의": ["그", "##의"],
    "그는": ["그", "##는"],
    "있는": ["있", "##는"],
    "되었다.": ["되", "##었", "##다", "."],
    "것을": ["것", "##을"],
    "많은": ["많", "##은"],
    "있었다.": ["있", "##었", "##다", "."],
    "것으로": ["것", "##으로"],
    "받았다.": ["받", "##았", "##다", "."],
}


@pytest.fixture(scope="module")
def kowiki(data_dir):
    wiki = data_dir / "corpus" / "kowiki" / "AA"
    if not (wiki / "wiki_99").is_file():
        pytest.skip(f"kowiki sample not found under {wiki}")
    return wiki


@pytest.fixture(scope="module")
def morpheme_vocab(kowiki, tmp_path_factory):
    out = tmp_path_factory.mktemp("kowiki") / "morpheme-3k"
    train_tokenizer(
        [kowiki / "wiki_00", kowiki / "wiki_01"], out, vocab_size=3000, sample_bytes=1_200_000
    )
    return Tokenizer.from_file(str(out / "tokenizer.json"))


def test_frequent_held_out_words_split_at_morphemes(morpheme_vocab):
    got = {w: morpheme_vocab.encode(w, add_special_tokens=False).tokens for w in WORDS}
    assert got == WORDS


def test_held_out_tokens_rarely_cross_morpheme_boundaries(morpheme_vocab, kowiki):
    lines = list(Inputs([kowiki / "wiki_99"], 200_000).lines())
    splitter = MorphemeSplitter()
    tokens = crossing = unk = 0
    for line in lines:
        cuts = splitter.boundaries(line)
        enc = morpheme_vocab.encode(line, add_special_tokens=False)
        for tok, (start, end) in zip(enc.tokens, enc.offsets, strict=True):
            tokens += 1
            unk += tok == "[UNK]"
            crossing += tok != "[UNK]" and any(start < c < end for c in cuts)
    assert tokens > 10_000
    assert crossing / tokens < 0.02
    assert unk / tokens < 0.05
