"""`python -m tokenizer`: vocabulary training and statistics."""

from corpus.cli import print_index

print_index(
    "tokenizer",
    "Mecab-ko morphemes then BPE, written as a BERT WordPiece tokenizer (or plain BPE)",
    {
        "train": "learn a vocabulary (--method morpheme-bpe | bpe | sentencepiece-bpe)",
        "stats": "fertility, continued-word share, [UNK] ratio, morpheme-boundary agreement",
    },
)
