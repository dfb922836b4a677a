"""Korean WordPiece tokenizers: Mecab-ko morpheme pre-tokenisation, BPE, BERT files, statistics.

Entry points: ``python -m tokenizer.train`` (and `tokenizer.train.train_tokenizer`),
``python -m tokenizer.stats``. See docs/tokenizer.md.
"""
