"""What a tokenizer folder's pieces mean for whole-word masking, and which tokens are special.

Whole-word masking needs to know where a word starts. Two kinds of subword vocabulary mark it,
in opposite ways:

* ``wordpiece`` (BERT, klue/bert-base, klue/roberta-base, this project's tokenizer): a piece
  that *continues* a word starts with ``##``; a whole word is a piece plus every following
  ``##`` piece.
* ``sentencepiece`` (Unigram or BPE models with the ``▁`` space mark, the Metaspace
  pre-tokenizer: XLM-R, KoBERT-style and most SentencePiece vocabularies): a piece that
  *starts* a word begins with ``▁`` (U+2581); a whole word is a run of pieces without ``▁``
  after one with it.

The kind is read from ``tokenizer.json``: a ``WordPiece`` model is ``wordpiece`` whatever its
vocabulary holds (our WordPiece vocabulary keeps ``▁`` as a literal character); otherwise a
Metaspace pre-tokenizer or decoder means ``sentencepiece``. Anything else (byte-level BPE with
``Ġ``, a bare word-level model) has no word marks: refused, since masking it "by words" would
silently mask single tokens.

Special tokens are named by role with this project's names ([PAD] [UNK] [CLS] [SEP] [MASK],
the keys of every manifest's ``special_ids``); a folder's own strings for them (``<pad>``,
``<s>``, ...) come from its ``special_tokens_map.json`` / ``tokenizer_config.json``, else the
role name itself, else the SentencePiece convention (`SENTENCEPIECE_NAMES`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

# The one list of special tokens is the tokenizer stage's (as pretrain.masking imports it).
from tokenizer.wordpiece import SPECIAL_TOKENS

WORD_RULES = ("wordpiece", "sentencepiece")
CONTINUATION_PREFIX = "##"  # wordpiece: a piece continuing a word
WORD_START_MARK = "\u2581"  # sentencepiece: a piece starting a word ("▁")
#: Role -> the key a transformers special_tokens_map.json / tokenizer_config.json uses.
ROLE_KEYS = {
    "[PAD]": "pad_token",
    "[UNK]": "unk_token",
    "[CLS]": "cls_token",
    "[SEP]": "sep_token",
    "[MASK]": "mask_token",
}
#: Role -> the usual SentencePiece (fairseq/XLM-R) string, tried last.
SENTENCEPIECE_NAMES = {
    "[PAD]": "<pad>",
    "[UNK]": "<unk>",
    "[CLS]": "<s>",
    "[SEP]": "</s>",
    "[MASK]": "<mask>",
}


def _declared(folder: Path) -> dict[str, str]:
    """Role -> string as the folder's special_tokens_map.json / tokenizer_config.json say."""
    out: dict[str, str] = {}
    for name in ("tokenizer_config.json", "special_tokens_map.json"):  # the map wins
        path = folder / name
        if not path.is_file():
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as err:
            raise ValueError(f"{path}: not valid JSON ({err})") from err
        for role, key in ROLE_KEYS.items():
            value = data.get(key)
            if isinstance(value, dict):  # {"content": "<mask>", "lstrip": true, ...}
                value = value.get("content")
            if isinstance(value, str) and value:
                out[role] = value
    return out


def special_tokens(folder: str | Path, tok: Any) -> dict[str, str]:
    """Role -> the token string of the tokenizer ``tok`` loaded from ``folder``.

    Raises ValueError naming the folder and the roles it lacks ([UNK] may be absent).
    """
    folder = Path(folder)
    declared = _declared(folder)
    out: dict[str, str] = {}
    for role in SPECIAL_TOKENS:
        for candidate in (declared.get(role), role, SENTENCEPIECE_NAMES[role]):
            if candidate and tok.token_to_id(candidate) is not None:
                out[role] = candidate
                break
    missing = [r for r in SPECIAL_TOKENS if r not in out and r != "[UNK]"]
    if missing:
        raise ValueError(
            f"{folder}/tokenizer.json: tokenizer has no {' '.join(missing)} token (looked for "
            "the special_tokens_map.json names, the BERT names and the SentencePiece names)"
        )
    return out


def _has_metaspace(node: Any) -> bool:
    if isinstance(node, dict):
        return node.get("type") == "Metaspace" or any(_has_metaspace(v) for v in node.values())
    if isinstance(node, list):
        return any(_has_metaspace(v) for v in node)
    return False


def word_rule(tokenizer_json: dict[str, Any], where: str = "tokenizer.json") -> str:
    """``"wordpiece"`` or ``"sentencepiece"`` for a parsed tokenizer.json (see module doc)."""
    model = tokenizer_json.get("model") or {}
    if model.get("type") == "WordPiece":
        prefix = model.get("continuing_subword_prefix", CONTINUATION_PREFIX)
        if prefix != CONTINUATION_PREFIX:
            raise ValueError(
                f"{where}: WordPiece continuation prefix {prefix!r}; whole-word masking reads "
                f"{CONTINUATION_PREFIX!r}"
            )
        return "wordpiece"
    if any(_has_metaspace(tokenizer_json.get(k)) for k in ("pre_tokenizer", "decoder")):
        return "sentencepiece"
    raise ValueError(
        f"{where}: a {model.get('type')!r} model without the SentencePiece space mark "
        f"(Metaspace): no piece says where a word starts or continues, so whole-word masking "
        "cannot be done; use a WordPiece (##) or SentencePiece (▁) tokenizer"
    )


def continuation_table(tokens: Sequence[str | None], rule: str) -> np.ndarray:
    """bool [V]: True where the piece continues the word before it (specials not excluded)."""
    if rule == "wordpiece":
        return np.array(
            [t is not None and len(t) > 2 and t.startswith(CONTINUATION_PREFIX) for t in tokens],
            dtype=bool,
        )
    if rule == "sentencepiece":
        return np.array(
            [t is not None and not t.startswith(WORD_START_MARK) for t in tokens], dtype=bool
        )
    raise ValueError(f"word rule must be one of {WORD_RULES}, got {rule!r}")
