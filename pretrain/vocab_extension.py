"""Domain vocabulary for continued pretraining: ``build_data --add-tokens FILE``.

A domain corpus (law, medicine, finance) splits its frequent terms into many pieces of a
general vocabulary. ``--add-tokens FILE`` (one word per line, UTF-8) appends each word the
tokenizer does not have yet as a new WordPiece vocabulary entry (ids ``V, V+1, ...`` after the
``V`` existing ones), so the greedy longest-match tokenizer uses it wherever the word starts an
eojeol. The extended tokenizer is what the examples are built with and what the examples
folder carries (``tokenizer/``), so training and export use the same one.

The manifest records every added word with its id and the ids of the pieces the *original*
tokenizer split it into. A run continuing a Hugging Face folder (`pretrain.hf_init`) grows the
word-embedding table (and the MLM output bias, whose decoder is tied to it) to the new size
and sets each new row to the mean of its pieces' rows: the new token starts as the average of
what the model already knew of the word. (Hewitt 2021, "Initializing New Word Embeddings for
Pretrained Language Models", nlp.stanford.edu/~johnhew/vocab-expansion.html, shows why random
rows hurt -- near-zero logits that dominate the softmax -- and proposes the mean of *all*
embeddings; the mean of the word's own pieces is the word-specific variant of that.)

Only WordPiece tokenizers can be extended here (a SentencePiece model would need scores for
new pieces); others are refused with a message.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np


def read_token_file(path: str | os.PathLike) -> list[str]:
    """The words of ``path``: one per line, stripped; blank lines skipped, repeats dropped.

    A line with whitespace inside is an error naming file and line (a token is one word).
    """
    words: list[str] = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            word = line.strip()
            if not word:
                continue
            if any(c.isspace() for c in word):
                raise ValueError(f"{path}:{number}: a token must be one word, got {word!r}")
            if word not in words:
                words.append(word)
    if not words:
        raise ValueError(f"{path}: no tokens")
    return words


def extend_tokenizer(
    tokenizer_json: dict[str, Any], tok: Any, words: list[str], where: str
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(extended tokenizer.json, added entries) for the words ``tok`` does not have.

    Each entry: ``{"token", "id", "pieces"}``, pieces being the ids the unextended ``tok``
    gives the word. Words already in the vocabulary are left out (and not reported as added).
    """
    model = tokenizer_json.get("model") or {}
    if model.get("type") != "WordPiece":
        raise ValueError(
            f"{where}: --add-tokens extends WordPiece vocabularies only (this is a "
            f"{model.get('type')!r} model)"
        )
    vocab = dict(model["vocab"])
    next_id = max([*vocab.values(), *(t["id"] for t in tokenizer_json.get("added_tokens", []))])
    added = []
    for word in words:
        if word in vocab or tok.token_to_id(word) is not None:
            continue
        pieces = tok.encode(word, add_special_tokens=False).ids
        if not pieces:
            raise ValueError(f"{where}: the tokenizer gives no pieces for {word!r}")
        next_id += 1
        vocab[word] = next_id
        added.append({"token": word, "id": next_id, "pieces": [int(p) for p in pieces]})
    extended = dict(tokenizer_json, model=dict(model, vocab=vocab))
    return extended, added


def write_extended(folder: Path, tokenizer_json: dict[str, Any], added: list[dict]) -> None:
    """tokenizer.json (and vocab.txt, when the folder has one) with the added tokens."""
    (folder / "tokenizer.json").write_text(
        json.dumps(tokenizer_json, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
    )
    vocab_txt = folder / "vocab.txt"
    if vocab_txt.is_file() and added:
        lines = vocab_txt.read_text(encoding="utf-8").split("\n")[:-1]
        if len(lines) != added[0]["id"]:
            raise ValueError(
                f"{vocab_txt} has {len(lines)} lines but the first added token gets id "
                f"{added[0]['id']}: vocab.txt and tokenizer.json disagree"
            )
        lines += [a["token"] for a in added]
        vocab_txt.write_text("".join(t + "\n" for t in lines), encoding="utf-8")


def mean_rows(table: np.ndarray, added: list[dict[str, Any]], size: int) -> np.ndarray:
    """``table`` grown to ``size`` rows, the row of each added token = mean of its pieces'.

    Works for the word embeddings ``[V, H]`` and the MLM output bias ``[V]`` alike.
    """
    grown = np.zeros((size, *table.shape[1:]), dtype=table.dtype)
    grown[: table.shape[0]] = table
    for entry in added:
        grown[entry["id"]] = table[np.asarray(entry["pieces"])].mean(axis=0)
    return grown
