"""From learned subword units to BERT WordPiece files, and the continuation marking.

Marking continuation pieces for the BPE trainer
------------------------------------------------
Hugging Face's `BpeTrainer` marks continuation symbols itself
(``continuing_subword_prefix``), but only for characters after the first of a
*word*; a continuation *morpheme* (``는`` in ``나 ##는``) would be word-initial
to it. Writing ``##`` into the text instead makes ``#`` learnable as a word
piece (the ``#``/``##``/``###`` artefact tokens) and breaks literal ``#``.

So continuation characters are written as *shadow* characters: a character
``c`` that continues a word becomes a private-use code point (``U+F0000 +
ord(c)`` for the BMP, ``U+100000 + ord(c) - 0x10000`` for the first
supplementary plane). A training unit is then a plain string: a word-initial
piece is its first character as-is plus shadow characters, a continuation
piece is all shadow characters. BPE can never merge across units, every
learned token decodes unambiguously (``shadow first char -> "##" +
original``), no marker symbol exists that could be learned, and the trainer's
symbol ids (hence its tie-breaking, hence its output) are deterministic.
Units with characters that cannot be shadowed (private-use planes, rare
supplementary planes) are left out of training and counted.
"""

from __future__ import annotations

import functools
import json
import os
import unicodedata
from collections.abc import Iterable
from pathlib import Path

from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
PREFIX = "##"
MODEL_MAX_LENGTH = 512

_BMP_SHADOW = 0xF0000  # plane 15 (Supplementary Private Use Area-A)
_SMP_SHADOW = 0x100000  # plane 16 (Supplementary Private Use Area-B)

#: Always in the vocabulary, both forms where a character can continue a word:
#: printable ASCII (so code, URLs and ``#`` never become [UNK]) and U+2581,
#: sentencepiece's space mark, which must survive as a literal character.
FORCED_CHARS = tuple(chr(c) for c in range(0x21, 0x7F)) + ("\u2581",)


def bert_normalizer() -> normalizers.Normalizer:
    """The exported normaliser: NFC, then BERT's cleaning, cased, accents kept.

    NFC first, as the corpus stage (`corpus.normalize`) does, so text in NFD
    form (decomposed Hangul, as some macOS tools write it) encodes like the
    precomposed text instead of as [UNK]. BertNormalizer's ``clean_text`` then
    does the rest of the corpus stage's cleaning: control and format
    characters (zero-width space, BOM, soft hyphen, bidi marks) are deleted
    and every Unicode whitespace becomes a space. Accents are kept (stripping
    would NFD-split Hangul), case is kept.
    """
    return normalizers.Sequence(
        [
            normalizers.NFC(),
            normalizers.BertNormalizer(
                clean_text=True, handle_chinese_chars=True, strip_accents=False, lowercase=False
            ),
        ]
    )


def bert_pre_tokenizer() -> pre_tokenizers.PreTokenizer:
    """The exported pre-tokeniser: split on whitespace, then punctuation split off."""
    return pre_tokenizers.BertPreTokenizer()


def shadowable(ch: str) -> bool:
    """Whether `ch` can be written as a continuation (shadow) character."""
    cp = ord(ch)
    return cp < 0xFFFE or 0x10000 <= cp < 0x1FFFE


def is_shadow(ch: str) -> bool:
    return ord(ch) >= _BMP_SHADOW


def shadow(text: str) -> str:
    """`text` with every character replaced by its continuation shadow."""
    out = []
    for ch in text:
        cp = ord(ch)
        out.append(chr(_BMP_SHADOW + cp if cp < 0x10000 else _SMP_SHADOW + cp - 0x10000))
    return "".join(out)


def unshadow(text: str) -> str:
    """Inverse of `shadow` on shadow characters; other characters pass unchanged."""
    out = []
    for ch in text:
        cp = ord(ch)
        if cp >= _SMP_SHADOW:
            cp = cp - _SMP_SHADOW + 0x10000
        elif cp >= _BMP_SHADOW:
            cp -= _BMP_SHADOW
        out.append(chr(cp))
    return "".join(out)


@functools.lru_cache(maxsize=1 << 18)
def training_unit(piece: str, continuation: bool) -> str | None:
    """The trainer's string for one piece, or None when it cannot be represented."""
    if not piece or any(is_shadow(c) for c in piece):
        return None
    if continuation:
        return shadow(piece) if all(shadowable(c) for c in piece) else None
    if not all(shadowable(c) for c in piece[1:]):
        return None
    return piece[0] + shadow(piece[1:])


def unit_to_wordpiece(unit: str) -> str | None:
    """A learned trainer token back to WordPiece form (``##`` for continuation)."""
    if not unit:
        return None
    if is_shadow(unit[0]):
        if not all(is_shadow(c) for c in unit):
            return None
        return PREFIX + unshadow(unit)
    if not all(is_shadow(c) for c in unit[1:]):
        return None
    return unit[0] + unshadow(unit[1:])


def is_punctuation(ch: str) -> bool:
    """BertPreTokenizer's punctuation: always a word of its own, never continued."""
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


_CJK_RANGES = (
    (0x4E00, 0x9FFF),
    (0x3400, 0x4DBF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F),
    (0x2B820, 0x2CEAF),
    (0xF900, 0xFAFF),
    (0x2F800, 0x2FA1F),
)


def is_isolated(ch: str) -> bool:
    """Characters the inference tokenizer always makes a word of their own.

    Punctuation (BertPreTokenizer) and CJK ideographs (BertNormalizer's
    handle_chinese_chars puts spaces around them): their ``##`` forms could
    never be used, so the vocabulary does not spend entries on them.
    """
    cp = ord(ch)
    return is_punctuation(ch) or any(lo <= cp <= hi for lo, hi in _CJK_RANGES)


def is_artefact(token: str) -> bool:
    """Tokens the marking scheme must never produce (see the module docstring)."""
    body = token[len(PREFIX) :] if token.startswith(PREFIX) else token
    if not body:
        return True
    if "#" in body and (body != "#" or token.startswith(PREFIX)):
        return True
    if "\u2581" in body and body != "\u2581":
        return True
    return any(is_shadow(c) for c in body)


class TooFewPiecesError(ValueError):
    """The corpus supports fewer vocabulary entries than requested."""


def assemble_vocab(
    alphabet: Iterable[str],
    learned: Iterable[str],
    vocab_size: int,
    continuation: Iterable[str] | None = None,
) -> tuple[list[str], dict[str, int]]:
    """Specials, then the alphabet's word and ``##`` forms, then learned pieces in order.

    `continuation` names the characters that get a ``##`` form (see
    `tokenizer.alphabet`); None gives every alphabet character both forms.
    `FORCED_CHARS` are always there in both forms. Characters that are always
    a word of their own (`is_isolated`) get only the word form.
    Returns exactly `vocab_size` tokens or raises ValueError when the corpus
    does not support that many.
    """
    extra = set() if continuation is None else set(continuation)
    chars = sorted(set(alphabet) | set(FORCED_CHARS) | extra)
    cont = set(chars) if continuation is None else extra | set(FORCED_CHARS)
    vocab: list[str] = list(SPECIAL_TOKENS)
    seen = set(vocab)
    base = [c for c in chars] + [PREFIX + c for c in sorted(cont) if not is_isolated(c)]
    counts = {"alphabet_chars": len(chars), "base_tokens": len(base), "learned_available": 0}
    if len(vocab) + len(base) > vocab_size:
        raise ValueError(
            f"vocab size {vocab_size} is too small for the {len(chars)}-character alphabet "
            f"(needs at least {len(vocab) + len(base)} with the special tokens); raise --vocab, "
            "lower --coverage or use --base-chars ascii"
        )
    for tok in base:
        if tok not in seen:
            seen.add(tok)
            vocab.append(tok)
    for tok in learned:
        if len(vocab) >= vocab_size:
            break
        if tok in seen or is_artefact(tok):
            continue
        counts["learned_available"] += 1
        seen.add(tok)
        vocab.append(tok)
    if len(vocab) < vocab_size:
        raise TooFewPiecesError(
            f"the corpus supports only {len(vocab)} vocabulary entries (alphabet of {len(chars)} "
            f"characters plus {counts['learned_available']} learned pieces), fewer than the "
            f"requested {vocab_size}: use more text, a smaller --vocab, or --min-unit-count 1 "
            "--min-frequency 1"
        )
    counts["learned_used"] = len(vocab) - len(SPECIAL_TOKENS) - len(base)
    return vocab, counts


def build_tokenizer(vocab: list[str]) -> Tokenizer:
    """The inference tokenizer: BERT normaliser and pre-tokeniser, WordPiece, [CLS]/[SEP]."""
    ids = {tok: i for i, tok in enumerate(vocab)}
    tok = Tokenizer(
        models.WordPiece(
            vocab=ids,
            unk_token="[UNK]",
            continuing_subword_prefix=PREFIX,
            max_input_chars_per_word=100,
        )
    )
    tok.normalizer = bert_normalizer()
    tok.pre_tokenizer = bert_pre_tokenizer()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", ids["[CLS]"]), ("[SEP]", ids["[SEP]"])],
    )
    tok.decoder = decoders.WordPiece(prefix=PREFIX)
    tok.add_special_tokens(list(SPECIAL_TOKENS))
    return tok


def _write_json(path: Path, obj: object) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(obj, ensure_ascii=False, indent=2, sort_keys=True) + "\n", "utf-8")
    os.replace(tmp, path)


def write_folder(output_dir: str | os.PathLike, vocab: list[str], stats: dict) -> Path:
    """Writes vocab.txt, tokenizer.json, tokenizer_config.json, special_tokens_map.json, stats."""
    out = Path(output_dir)
    out.mkdir(parents=True, exist_ok=True)
    tmp = out / "vocab.txt.tmp"
    tmp.write_text("".join(t + "\n" for t in vocab), "utf-8")
    os.replace(tmp, out / "vocab.txt")
    tok = build_tokenizer(vocab)
    tok.save(str(out / "tokenizer.json.tmp"), pretty=True)
    os.replace(out / "tokenizer.json.tmp", out / "tokenizer.json")
    specials = {
        "unk_token": "[UNK]",
        "sep_token": "[SEP]",
        "pad_token": "[PAD]",
        "cls_token": "[CLS]",
        "mask_token": "[MASK]",
    }
    _write_json(out / "special_tokens_map.json", specials)
    config = {
        "tokenizer_class": "BertTokenizer",
        "do_lower_case": False,
        "strip_accents": False,
        "tokenize_chinese_chars": True,
        "do_basic_tokenize": True,
        "model_max_length": MODEL_MAX_LENGTH,
        "clean_up_tokenization_spaces": False,
        **specials,
    }
    _write_json(out / "tokenizer_config.json", config)
    _write_json(out / "train_stats.json", stats)
    return out
