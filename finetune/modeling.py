"""The fine-tuning model (pretrained encoder + a task head) and how it is built from ``--model``.

`FinetuneModel` is `pretrain.models.Encoder` (with the BERT pooler) plus the module a task's
``make_head`` returns; it knows nothing of files. `load_pretrained` turns ``--model`` into a
`Pretrained` (model config, encoder parameters, tokenizer, special ids), `check_pretrained`
rejects a tokenizer that does not fit the embedding, `add_tokens` adds a task's extra tokens
(RE's entity markers) to the tokenizer and the embedding matrix, and `build_model` makes the
NNX model with the pretrained encoder weights and a freshly initialised head.

Loading goes through `load_encoder` of the model-import module when it is present (IMPORT's
part of issue #11: pretraining workdir, our export, any Hugging Face BERT/RoBERTa folder);
until then `_load_fallback` reads a pretraining workdir (`pretrain.checkpointing`) or a
Hugging Face folder (`pretrain.hf_export.load_hf_folder`).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx

from pretrain import models


class ModelLoadError(ValueError):
    """``--model`` is not a usable BERT/RoBERTa model (the CLI exits 2)."""


@dataclasses.dataclass
class Pretrained:
    """A pretrained encoder ready for fine-tuning.

    ``encoder_params``: ``nnx.State`` of `pretrain.models.Encoder` parameters (pooler included
    for BERT), float32. ``tokenizer``: a `tokenizers.Tokenizer`. ``special_ids``: at least
    ``cls``, ``sep`` and ``pad``.
    """

    model_config: models.ModelConfig
    encoder_params: Any
    tokenizer: Any
    special_ids: dict[str, int]
    source: str  # "workdir" | "export" | "hf" | ...
    path: str


class FinetuneModel(nnx.Module):
    """``encoder`` + ``head``: ``model(batch, deterministic=, rngs=)`` -> the head's outputs."""

    def __init__(self, config: models.ModelConfig, task: Any, *, rngs: nnx.Rngs):
        self.encoder = models.Encoder(config, rngs=rngs)
        self.head = task.make_head(config, rngs)

    def __call__(self, batch, *, deterministic: bool = True, rngs=None):
        sequence, pooled = self.encoder(
            batch["input_ids"],
            batch["token_type_ids"],
            batch["attention_mask"],
            deterministic=deterministic,
            rngs=rngs,
        )
        return self.head(sequence, pooled, batch, deterministic=deterministic, rngs=rngs)


# ---------------------------------------------------------------------------------------------
# Loading


def _special_ids(tokenizer: Any, pad_id: int) -> dict[str, int]:
    ids: dict[str, int] = {"pad": pad_id}
    for key, names in (("cls", ("[CLS]", "<s>")), ("sep", ("[SEP]", "</s>"))):
        for name in names:
            i = tokenizer.token_to_id(name)
            if i is not None:
                ids[key] = int(i)
                break
    return ids


def _read_tokenizer(folder: Path) -> Any:
    from tokenizers import Tokenizer

    if (folder / "tokenizer.json").is_file():
        return Tokenizer.from_file(str(folder / "tokenizer.json"))
    if (folder / "vocab.txt").is_file():
        from tokenizers.implementations import BertWordPieceTokenizer

        lower = False
        cfg_path = folder / "tokenizer_config.json"
        if cfg_path.is_file():
            lower = bool(json.loads(cfg_path.read_text(encoding="utf-8")).get("do_lower_case"))
        return BertWordPieceTokenizer(str(folder / "vocab.txt"), lowercase=lower)._tokenizer
    raise ModelLoadError(f"{folder}: no tokenizer (tokenizer.json or vocab.txt)")


def _encoder_state(model: models.PretrainingModel) -> Any:
    return nnx.state(model.encoder, nnx.Param)


def _load_fallback(path: Path) -> Pretrained:
    """A pretraining workdir (newest checkpoint) or a Hugging Face BERT/RoBERTa folder."""
    from pretrain import checkpointing, hf_export

    if (path / checkpointing.CHECKPOINT_SUBDIR).is_dir():
        config, model, tok_dir = checkpointing.load_for_export(path)
        if not tok_dir or not Path(tok_dir).is_dir():
            raise ModelLoadError(f"{path}: the workdir names no tokenizer folder ({tok_dir})")
        tokenizer, source = _read_tokenizer(Path(tok_dir)), "workdir"
    elif (path / "config.json").is_file():
        hf = json.loads((path / "config.json").read_text(encoding="utf-8"))
        if hf.get("model_type") not in ("bert", "roberta"):
            raise ModelLoadError(
                f"{path}/config.json: model_type {hf.get('model_type')!r} is not bert or roberta"
            )
        try:
            config, model = hf_export.load_hf_folder(path, dtype="float32", strict=False)
        except (ValueError, FileNotFoundError) as e:
            raise ModelLoadError(str(e)) from e
        tokenizer, source = _read_tokenizer(path), "hf"
    else:
        raise ModelLoadError(
            f"{path} is neither a pretraining workdir (no checkpoints/) nor a Hugging Face "
            "BERT/RoBERTa folder (no config.json)"
        )
    config = config.replace(dtype="float32")
    ids = _special_ids(tokenizer, config.pad_token_id)
    return Pretrained(config, _encoder_state(model), tokenizer, ids, source, str(path))


def load_pretrained(path: str | os.PathLike) -> Pretrained:
    """``--model`` -> `Pretrained` (see the module doc), checked by `check_pretrained`."""
    path = Path(path)
    if not path.is_dir():
        raise ModelLoadError(f"--model {path}: no such folder")
    pre = _load_fallback(path)
    check_pretrained(pre)
    return pre


def check_pretrained(pre: Pretrained) -> None:
    """Raises `ModelLoadError` when the tokenizer does not fit the model."""
    n = pre.tokenizer.get_vocab_size(with_added_tokens=True)
    v = pre.model_config.vocab_size
    if n != v:
        raise ModelLoadError(
            f"{pre.path}: the tokenizer has {n} tokens but the embedding matrix {v} rows; "
            "the tokenizer does not belong to this model"
        )
    missing = [k for k in ("cls", "sep") if k not in pre.special_ids]
    if missing:
        raise ModelLoadError(f"{pre.path}: the tokenizer has no {'/'.join(missing)} token")


def add_tokens(pre: Pretrained, tokens: tuple[str, ...], seed: int) -> Pretrained:
    """A copy with ``tokens`` added as special tokens and the embedding matrix grown to match.

    New rows are drawn from N(0, initializer_range) with ``seed`` (as Hugging Face's
    ``resize_token_embeddings`` initialises them); existing rows are unchanged.
    """
    if not tokens:
        return pre
    from tokenizers import Tokenizer

    tok = Tokenizer.from_str(pre.tokenizer.to_str())
    tok.add_special_tokens(list(tokens))
    n = tok.get_vocab_size(with_added_tokens=True)
    old = pre.model_config.vocab_size
    params = jax.tree.map(lambda x: x, pre.encoder_params)
    table = params["embeddings"]["word_embeddings"]["embedding"]
    if n > old:
        extra = pre.model_config.initializer_range * jax.random.normal(
            jax.random.key(seed), (n - old, table.shape[1]), table.dtype
        )
        table.value = jnp.concatenate([table[...], extra], axis=0)
    config = pre.model_config.replace(vocab_size=max(n, old))
    logging.info("added %d tokens %s: vocabulary %d -> %d", len(tokens), tokens, old, n)
    return dataclasses.replace(pre, model_config=config, encoder_params=params, tokenizer=tok)


def build_model(pre: Pretrained, task: Any, seed: int) -> FinetuneModel:
    """`FinetuneModel` with the pretrained encoder weights and a head initialised from ``seed``."""
    model = FinetuneModel(pre.model_config, task, rngs=nnx.Rngs(params=seed, dropout=seed + 1))
    want = nnx.state(model.encoder, nnx.Param)
    got = pre.encoder_params
    want_shapes = {p: x.shape for p, x in nnx.to_flat_state(want)}
    got_shapes = {p: x.shape for p, x in nnx.to_flat_state(got)}
    if want_shapes != got_shapes:
        diff = sorted(set(want_shapes.items()) ^ set(got_shapes.items()), key=str)[:6]
        raise ModelLoadError(f"{pre.path}: encoder parameters do not match the config: {diff}")
    nnx.update(model.encoder, got)
    return model


def count_head_params(model: FinetuneModel) -> int:
    return int(sum(np.prod(x.shape) for x in jax.tree.leaves(nnx.state(model.head, nnx.Param))))
