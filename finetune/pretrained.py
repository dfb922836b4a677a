"""Load the encoder a fine-tuning run starts from: ``load_encoder(path) -> LoadedModel``.

``path`` (the CLI's ``--model``) may be

* a pretraining workdir of ``python -m pretrain.main`` (its newest complete orbax checkpoint,
  or ``WORKDIR/checkpoints/<step>`` for a given one); the tokenizer is the folder the run
  recorded (``tokenizer_dir`` overrides it);
* a folder written by ``python -m pretrain.export``;
* any Hugging Face BERT, RoBERTa, XLM-R or ELECTRA-discriminator folder (KLUE-BERT/RoBERTa,
  multilingual BERT, KR-BERT, XLM-R, KoELECTRA: `pretrain.hf_layouts`) with ``config.json``,
  ``model.safetensors`` (or a sharded ``model.safetensors.index.json``, or
  ``pytorch_model.bin``, converted with torch) and a tokenizer (``tokenizer.json``, or
  ``vocab.txt`` with the WordPiece settings of ``tokenizer_config.json``).

Folders are imported with `pretrain.hf_export.load_hf_encoder`, the inverse of the export's
name map (`pretrain.hf_export.encoder_param_map`, one map for both directions), reading
safetensors with NumPy (no torch). The architecture is taken from ``config.json`` as it is,
and the special ids from the folder's own tokenizer: the released KLUE-RoBERTa folders have
``[CLS] = 0``, ``[PAD] = 1``, ``pad_token_id = 1`` and ``max_position_embeddings = 514``, and
load with those ids (RoBERTa position ids count from ``pad_token_id + 1``, so the tokenizer's
[PAD] must be the config's ``pad_token_id``).

Segment ids: with a token-type vocabulary of 1 (RoBERTa) every token type must be 0; KLUE's
RoBERTa tokenizers are BERT tokenizers that give the second segment type 1, which would index
past the table (JAX clamps silently, torch raises). The returned tokenizer's post-processor
therefore gives every segment type 0 for such models, and ``use_token_types`` is False.

Bad input raises `ModelLoadError` (a ValueError) naming the path and what is wrong; the CLI
prints it and exits 2. Pretraining heads (MLM, NSP) are not loaded; BERT's pooler is loaded
when present and freshly initialised otherwise (listed in ``LoadedModel.fresh``); RoBERTa's
(and XLM-R's) is loaded when the checkpoint has one (the released KLUE-RoBERTa folders do) and
absent otherwise, logged; `add_pooler` gives one to a task that needs it (WoS's GRU start).
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
from flax import nnx
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

from pretrain import hf_export
from pretrain.models import Encoder, ModelConfig

SOURCES = ("workdir", "huggingface")
#: Special-token roles, their ``tokenizer_config.json`` keys and the spellings tried when a
#: folder does not name them (BERT's, then RoBERTa's byte-level BPE ones).
ROLES = {
    "pad": ("pad_token", ("[PAD]", "<pad>")),
    "cls": ("cls_token", ("[CLS]", "<s>")),
    "sep": ("sep_token", ("[SEP]", "</s>")),
    "unk": ("unk_token", ("[UNK]", "<unk>")),
    "mask": ("mask_token", ("[MASK]", "<mask>")),
}
REQUIRED_ROLES = ("pad", "cls", "sep")


class ModelLoadError(ValueError):
    """``--model`` cannot be used (not BERT/RoBERTa, weights missing, sizes disagree): exit 2."""


@dataclasses.dataclass
class LoadedModel:
    """An encoder with its weights, its config and the tokenizer it was trained with.

    ``encoder`` is a `pretrain.models.Encoder` (call it as ``encoder(input_ids, token_type_ids,
    attention_mask, deterministic=..., rngs=...)`` -> ``(sequence, pooled or None)``);
    ``special_ids`` maps ``pad``/``cls``/``sep``/``unk``/``mask`` to ids (``mask`` and ``unk``
    only when the tokenizer has them); ``fresh`` names weights the checkpoint did not have
    (freshly initialised); ``step`` is the checkpoint step of a workdir (None for a folder).
    """

    encoder: Encoder
    config: ModelConfig
    tokenizer: Tokenizer
    special_ids: dict[str, int]
    source: str
    path: Path
    tokenizer_dir: Path
    step: int | None = None
    fresh: tuple[str, ...] = ()

    @property
    def pad_id(self) -> int:
        return self.special_ids["pad"]

    @property
    def cls_id(self) -> int:
        return self.special_ids["cls"]

    @property
    def sep_id(self) -> int:
        return self.special_ids["sep"]

    @property
    def mask_id(self) -> int | None:
        return self.special_ids.get("mask")

    @property
    def use_token_types(self) -> bool:
        """BERT-style segment ids (0 for A, 1 for B); False when the type vocabulary is 1."""
        return self.config.type_vocab_size > 1

    @property
    def params(self) -> nnx.State:
        return nnx.state(self.encoder, nnx.Param)

    def describe(self) -> str:
        """One line for logs and metrics.json."""
        c = self.config
        where = f"{self.source} {self.path}" + (
            f" step {self.step}" if self.step is not None else ""
        )
        return (
            f"{c.arch} {c.num_layers}x{c.hidden_size} vocab {c.vocab_size} from {where}; "
            f"pad {self.pad_id} cls {self.cls_id} sep {self.sep_id}"
        )


# ---------------------------------------------------------------------------------------------
# Tokenizers


def _read_json(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise ModelLoadError(f"{path}: not valid JSON ({err})") from err
    return data if isinstance(data, dict) else {}


def _token_text(value: Any) -> str | None:
    """A special token as tokenizer_config.json spells it: a string or {"content": ...}."""
    if isinstance(value, dict):
        value = value.get("content")
    return value if isinstance(value, str) else None


def _wordpiece_from_vocab(folder: Path, tok_config: dict[str, Any], specials: dict[str, str]):
    """A `Tokenizer` equal to transformers' BertTokenizer on ``vocab.txt`` and its settings."""
    vocab_path = folder / "vocab.txt"
    vocab: dict[str, int] = {}
    with open(vocab_path, encoding="utf-8") as f:
        for i, line in enumerate(f):
            vocab.setdefault(line.rstrip("\n"), i)
    lowercase = bool(tok_config.get("do_lower_case", True))  # BertTokenizer's default
    strip = tok_config.get("strip_accents")
    unk = specials.get("unk", "[UNK]")
    if unk not in vocab:
        raise ModelLoadError(f"{vocab_path}: no unknown token {unk!r}")
    tok = Tokenizer(models.WordPiece(vocab=vocab, unk_token=unk, max_input_chars_per_word=100))
    tok.normalizer = normalizers.BertNormalizer(
        clean_text=True,
        handle_chinese_chars=bool(tok_config.get("tokenize_chinese_chars", True)),
        strip_accents=None if strip is None else bool(strip),
        lowercase=lowercase,
    )
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece(prefix="##")
    tok.add_special_tokens([t for t in specials.values() if t in vocab])
    return tok


def _special_ids(tok: Tokenizer, folder: Path, names: dict[str, str]) -> dict[str, int]:
    ids: dict[str, int] = {}
    for role, (_, spellings) in ROLES.items():
        candidates = [names[role]] if role in names else list(spellings)
        for text in candidates:
            token_id = tok.token_to_id(text)
            if token_id is not None:
                ids[role] = token_id
                break
        else:
            if role in REQUIRED_ROLES:
                raise ModelLoadError(
                    f"{folder}: the tokenizer has no {role} token (tried {candidates})"
                )
    return ids


def _template(tok: Tokenizer, ids: dict[str, int], type_vocab_size: int):
    """A TemplateProcessing with the layout of the tokenizer's own post-processor (or BERT's
    ``[CLS] A [SEP] B [SEP]`` when it has none) and type ids within ``type_vocab_size``."""
    second = "1" if type_vocab_size > 1 else "0"
    cls, sep = tok.id_to_token(ids["cls"]), tok.id_to_token(ids["sep"])
    single, pair = f"{cls} $A:0 {sep}:0", f"{cls} $A:0 {sep}:0 $B:{second} {sep}:{second}"
    used = {cls: ids["cls"], sep: ids["sep"]}
    if tok.post_processor is not None:
        layouts = []
        # Probe with [CLS]'s own text: every vocabulary spells it (a BPE without an unknown
        # token would drop a plain word, and the layout would lose its $A).
        for probe in ((cls,), (cls, cls)):
            enc = tok.encode(*probe)
            parts: list[str] = []
            for token, tid, seq, type_id in zip(
                enc.tokens, enc.ids, enc.sequence_ids, enc.type_ids, strict=True
            ):
                t = min(type_id, type_vocab_size - 1)
                if seq is None:
                    parts.append(f"{token}:{t}")
                    used[token] = tid
                elif not parts or parts[-1] != f"${'AB'[seq]}:{t}":
                    parts.append(f"${'AB'[seq]}:{t}")
            layouts.append(" ".join(parts))
        single, pair = layouts
    return processors.TemplateProcessing(
        single=single, pair=pair, special_tokens=sorted(used.items(), key=lambda kv: kv[1])
    )


def load_tokenizer(folder: str | os.PathLike, type_vocab_size: int = 2):
    """``(Tokenizer, special_ids)`` of a tokenizer or model folder.

    ``tokenizer.json`` is used as it is (truncation and padding switched off: the tasks
    encode); without it, ``vocab.txt`` is read as transformers' BertTokenizer would with the
    folder's ``tokenizer_config.json`` (``do_lower_case`` defaults to True, as there). Special
    tokens are the ones ``special_tokens_map.json`` / ``tokenizer_config.json`` name, else
    ``[PAD]``/``<pad>`` etc. The post-processor keeps the tokenizer's layout but never emits a
    type id ``>= type_vocab_size``.
    """
    folder = Path(folder)
    tok_config = _read_json(folder / "tokenizer_config.json")
    names: dict[str, str] = {}
    for source in (tok_config, _read_json(folder / "special_tokens_map.json")):
        for role, (key, _) in ROLES.items():
            text = _token_text(source.get(key))
            if text:
                names[role] = text
    if (folder / "tokenizer.json").is_file():
        try:
            tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
        except Exception as err:  # tokenizers raises a bare Exception on malformed files
            raise ModelLoadError(f"{folder / 'tokenizer.json'}: cannot be read ({err})") from err
    elif (folder / "vocab.txt").is_file():
        tok = _wordpiece_from_vocab(folder, tok_config, names)
    else:
        raise ModelLoadError(f"{folder} has no tokenizer (neither tokenizer.json nor vocab.txt)")
    tok.no_truncation()
    tok.no_padding()
    ids = _special_ids(tok, folder, names)
    tok.post_processor = _template(tok, ids, type_vocab_size)
    return tok, ids


# ---------------------------------------------------------------------------------------------
# Models


def _check_fit(config: ModelConfig, tok: Tokenizer, ids: dict[str, int], where: Path) -> None:
    size = tok.get_vocab_size(with_added_tokens=True)
    if size > config.vocab_size:
        raise ModelLoadError(
            f"{where}: the tokenizer has {size} tokens but the embedding matrix only "
            f"{config.vocab_size} rows (ids past it would read the wrong embeddings)"
        )
    if size < config.vocab_size:
        logging.info("%s: tokenizer %d tokens, embedding %d rows", where, size, config.vocab_size)
    if config.arch == "roberta" and ids["pad"] != config.pad_token_id:
        raise ModelLoadError(
            f"{where}: tokenizer pad id {ids['pad']} != config pad_token_id "
            f"{config.pad_token_id} (RoBERTa position ids count from the pad id)"
        )


def _workdir_step(path: Path) -> tuple[Path, int | None] | None:
    """(workdir, step) when ``path`` is a pretraining workdir or one of its checkpoints."""
    from pretrain.checkpointing import CHECKPOINT_SUBDIR

    if (path / CHECKPOINT_SUBDIR).is_dir():
        return path, None
    if path.name.isdigit() and path.parent.name == CHECKPOINT_SUBDIR:
        return path.parent.parent, int(path.name)
    return None


def _from_workdir(workdir: Path, step: int | None, dtype: str, tokenizer_dir: Path | None):
    from pretrain import checkpointing

    try:
        step = step if step is not None else _latest_step(workdir)
        config, model, recorded = checkpointing.load_for_export(workdir, step=step)
    except FileNotFoundError as err:
        raise ModelLoadError(str(err)) from err
    tok_dir = tokenizer_dir or (Path(recorded) if recorded else None)
    if tok_dir is None or not tok_dir.is_dir():
        raise ModelLoadError(
            f"{workdir}: the tokenizer folder the run recorded ({recorded}) does not exist; "
            "pass the tokenizer folder explicitly"
        )
    config = config.replace(dtype=dtype)
    encoder = Encoder(config, rngs=nnx.Rngs(0))
    nnx.update(encoder, nnx.state(model.encoder, nnx.Param))
    return config, encoder, tok_dir, step


def _latest_step(workdir: Path) -> int | None:
    from pretrain import checkpointing

    ckpt = checkpointing.Checkpointer(
        checkpointing.checkpoint_dir(workdir), read_only=True, async_save=False
    )
    try:
        return ckpt.latest_step()
    finally:
        ckpt.close()


def load_encoder(
    path: str | os.PathLike,
    *,
    dtype: str = "float32",
    seed: int = 0,
    tokenizer_dir: str | os.PathLike | None = None,
) -> LoadedModel:
    """Load a pretraining workdir, our export or a Hugging Face BERT/RoBERTa folder (module doc).

    ``dtype`` is the compute dtype (parameters stay float32); ``seed`` initialises weights the
    checkpoint lacks (BERT's pooler); ``tokenizer_dir`` replaces the model's tokenizer folder.
    Raises `ModelLoadError` for anything unusable.
    """
    path = Path(path)
    if not path.exists():
        raise ModelLoadError(f"--model {path} does not exist")
    override = Path(tokenizer_dir) if tokenizer_dir is not None else None
    fresh: list[str] = []
    found = _workdir_step(path)
    if found is None and not (path / "config.json").is_file():
        raise ModelLoadError(
            f"{path} is neither a pretraining workdir (no checkpoints/) nor a model folder "
            "(no config.json)"
        )
    # The weights stay in host memory: the trainer copies them into its sharded train state, so
    # an accelerator never holds this copy (it serves every task of a run).
    with jax.default_device(_host_device()):
        if found is not None:
            source = "workdir"
            config, encoder, tok_dir, step = _from_workdir(*found, dtype, override)
        else:
            source, step, tok_dir = "huggingface", None, override or path
            try:
                config, encoder, fresh = hf_export.load_hf_encoder(path, dtype=dtype, seed=seed)
            except (FileNotFoundError, ValueError) as err:
                raise ModelLoadError(str(err)) from err
        tok, ids = load_tokenizer(tok_dir, config.type_vocab_size)
        if config.arch != "roberta" and ids["pad"] != config.pad_token_id:
            # BERT's position ids do not depend on the pad id; the tokenizer's is the one in use.
            config = config.replace(pad_token_id=ids["pad"])
            encoder = _rebuilt(encoder, config)
    _check_fit(config, tok, ids, tok_dir)
    if fresh:
        logging.warning("%s: not in the checkpoint, freshly initialised: %s", path, fresh)
    if config.arch == "roberta" and encoder.pooler is None:
        logging.info(
            "%s: no RoBERTa pooler weights (roberta.pooler.dense); the sentence heads do not "
            "use one, a task that does (WoS) gets a freshly initialised one",
            path,
        )
    return LoadedModel(
        encoder=encoder,
        config=config,
        tokenizer=tok,
        special_ids=ids,
        source=source,
        path=path,
        tokenizer_dir=tok_dir,
        step=step,
        fresh=tuple(fresh),
    )


def _host_device() -> jax.Device:
    """The first CPU device (the default device when JAX runs without a CPU backend)."""
    try:
        return jax.local_devices(backend="cpu")[0]
    except RuntimeError:
        return jax.local_devices()[0]


def add_tokens(loaded: LoadedModel, tokens: list[str] | tuple[str, ...], seed: int = 0):
    """Add ``tokens`` (e.g. RE's ``<subj>``) as special tokens; grow the embedding to fit.

    Tokens already in the vocabulary keep their ids. New ids past the embedding matrix get new
    rows drawn from ``normal(0, initializer_range)`` (what transformers' ``_init_weights`` did
    for ``resize_token_embeddings`` in the KLUE baseline); ids that fall inside an over-sized
    matrix reuse its unused rows. Returns a new `LoadedModel`; the tokenizer is changed in
    place. Deterministic for a given ``seed``.
    """
    tok = loaded.tokenizer
    tok.add_special_tokens(list(tokens))
    size = tok.get_vocab_size(with_added_tokens=True)
    config = loaded.config
    if size <= config.vocab_size:
        return loaded
    new_config = config.replace(vocab_size=size)
    with jax.default_device(_host_device()):
        encoder = _rebuilt(loaded.encoder, new_config)
        old_table = loaded.encoder.embeddings.word_embeddings.embedding[...]
        extra = jax.random.normal(
            jax.random.key(seed), (size - config.vocab_size, config.hidden_size), jnp.float32
        ) * jnp.float32(config.initializer_range)
        table = jnp.concatenate([old_table, extra.astype(old_table.dtype)])
        encoder.embeddings.word_embeddings.embedding.set_value(table)
    return dataclasses.replace(loaded, encoder=encoder, config=new_config)


def add_pooler(loaded: LoadedModel, seed: int = 0) -> LoadedModel:
    """``loaded`` with a pooler (dense + tanh on the first token) on its encoder.

    An encoder that has one (BERT; a RoBERTa checkpoint with ``roberta.pooler.dense``) is
    returned as it is. Otherwise (a RoBERTa checkpoint without pooler weights, our own RoBERTa
    pretraining, ELECTRA) a pooler is drawn from ``seed`` as transformers initialises one a
    checkpoint lacks (kernel ``normal(0, initializer_range)``, bias 0), named in ``fresh`` and
    logged. Returns a new `LoadedModel`; the given one is unchanged.
    """
    if loaded.encoder.pooler is not None:
        return loaded
    with jax.default_device(_host_device()):
        encoder = Encoder(loaded.config, rngs=nnx.Rngs(seed), add_pooler=True)
        nnx.update(encoder, nnx.state(loaded.encoder, nnx.Param))
    logging.warning(
        "%s: the checkpoint has no pooler weights; the pooler is freshly initialised (seed %d)",
        loaded.path,
        seed,
    )
    return dataclasses.replace(loaded, encoder=encoder, fresh=(*loaded.fresh, "pooler"))


def _rebuilt(encoder: Encoder, config: ModelConfig) -> Encoder:
    """A new `Encoder` for ``config`` holding ``encoder``'s parameter values (the caller assigns
    a resized word-embedding table)."""
    new = Encoder(config, rngs=nnx.Rngs(0), add_pooler=encoder.pooler is not None)
    nnx.update(new, nnx.state(encoder, nnx.Param))
    return new
