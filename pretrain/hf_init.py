"""Continued pretraining from a Hugging Face BERT/RoBERTa folder: ``--config.init_from=FOLDER``.

The most common pretraining job in Korean NLP starts from a released checkpoint (klue/bert-base,
klue/roberta-base) and continues masked-LM training on a domain corpus. A folder counts as a
Hugging Face model when it holds ``config.json`` with a ``model_type`` and safetensors weights
(and is not one of our workdirs). Then:

* the model config is the folder's (`pretrain.hf_export.read_hf_config`): vocabulary size,
  shapes, ``pad_token_id`` and the position table (klue/roberta: ``[PAD] = 1``, 514 positions,
  so 512 tokens). Only fields that do not change the parameters may be set on the command line
  (`RUNTIME_FIELDS`: compute dtype, dropout, remat, scan, attention kernel); a shape field or a
  ``--config.model`` preset that contradicts the folder is refused with a message;
* the examples must fit the folder: their vocabulary no larger than its embedding table, their
  special ids and tokenizer the folder's, their sequences within its positions;
* BERT folders: encoder, pooler, MLM head and NSP head are loaded; objective ``bert`` trains
  MLM + NSP, objective ``roberta`` (dynamic masking, packed sequences) trains MLM only and
  carries the NSP head unchanged. RoBERTa folders have no NSP head, so objective ``bert`` is
  refused. Heads the folder lacks (a base model, a task model) start from a fresh
  initialisation and are named in the log and in the run's ``config.json``;
* the optimiser starts fresh at step 0 (the source's optimiser state is not released).

The folder's tied MLM decoder and its bias become our tied decoder and output bias, so the
step-0 MLM logits are those of stock ``transformers``' ``*ForMaskedLM`` (tests check 1e-4).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pretrain import hf_export, models, storage

#: ModelConfig fields a run may set on top of a folder's config: they change how the model
#: computes, not its parameters.
RUNTIME_FIELDS = (
    "dtype",
    "param_dtype",
    "hidden_dropout",
    "attention_dropout",
    "remat",
    "remat_policy",
    "scan_layers",
    "attention",
)
#: Fields a ``--config.model`` preset must share with the folder (the preset's vocabulary and
#: positions are fitted to the data anyway, so they are not compared).
PRESET_SHAPE_FIELDS = ("arch", "hidden_size", "num_layers", "num_heads", "intermediate_size")
#: ``--config.model`` values meaning "the init_from folder's model".
FROM_FOLDER = ("", "from_init")
WEIGHT_FILES = ("model.safetensors", "model.safetensors.index.json")


def is_hf_folder(init_from: str | None) -> bool:
    """True for a transformers model folder (config.json with model_type + safetensors)."""
    if not init_from:
        return False
    folder = storage.path(init_from)
    config = folder / "config.json"
    if (folder / "checkpoints").is_dir() or not config.is_file():
        return False
    if not any((folder / name).is_file() for name in WEIGHT_FILES):
        return False
    try:
        return "model_type" in json.loads(config.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError):
        return False


def _local(init_from: str) -> Path:
    from pretrain.bootstrap import local_folder

    return Path(local_folder(init_from))


def model_config(
    cfg: Mapping[str, Any], data: Any, overrides: Mapping[str, Any]
) -> models.ModelConfig:
    """The run's `ModelConfig`: the folder's, with ``overrides`` limited to `RUNTIME_FIELDS`.

    ``overrides`` are the model overrides the run was given (empty values already dropped).
    Raises ValueError naming the folder and the field for every contradiction.
    """
    init_from = str(cfg["init_from"])
    folder = _local(init_from)
    mc = hf_export.read_hf_config(folder)
    _check_preset(str(cfg.get("model", "") or ""), mc, init_from)
    contradicting = {
        k: (v, getattr(mc, k))
        for k, v in overrides.items()
        if k not in RUNTIME_FIELDS and getattr(mc, k, v) != v
    }
    if contradicting:
        shown = ", ".join(f"{k}={v!r} (folder: {f!r})" for k, (v, f) in contradicting.items())
        raise ValueError(
            f"--config.init_from={init_from}: the model comes from the folder's config.json; "
            f"these overrides contradict it: {shown}. Drop them (only {list(RUNTIME_FIELDS)} "
            "may change)"
        )
    mc = mc.replace(**{k: v for k, v in overrides.items() if k in RUNTIME_FIELDS})
    added = added_tokens(data)
    if added:  # build_data --add-tokens: the table grows to hold the new ids
        pieces = max(max(a["pieces"]) for a in added)
        if pieces >= mc.vocab_size:
            raise ValueError(
                f"{data.examples_dir}: added tokens are made of ids up to {pieces}, beyond "
                f"--config.init_from={init_from}'s vocab_size {mc.vocab_size}"
            )
        mc = mc.replace(vocab_size=max(mc.vocab_size, max(a["id"] for a in added) + 1))
    check_data(mc, data, init_from, folder)
    return mc


def added_tokens(data: Any) -> list[dict[str, Any]]:
    """The ``--add-tokens`` entries of the examples' manifest (`pretrain.vocab_extension`)."""
    if not getattr(data, "examples_dir", None):
        return []
    from pretrain import input_pipeline

    return list(input_pipeline.examples_manifest(data.examples_dir).get("added_tokens") or [])


def _check_preset(name: str, mc: models.ModelConfig, init_from: str) -> None:
    if name in FROM_FOLDER:
        return
    if name not in models.PRESETS:
        raise ValueError(f"unknown model {name!r}; one of {sorted(models.PRESETS)} or ''")
    preset = models.PRESETS[name]
    differ = {
        f: (getattr(preset, f), getattr(mc, f))
        for f in PRESET_SHAPE_FIELDS
        if getattr(preset, f) != getattr(mc, f)
    }
    if differ:
        shown = ", ".join(f"{f} {p!r} vs {m!r}" for f, (p, m) in differ.items())
        raise ValueError(
            f"--config.model={name} contradicts --config.init_from={init_from} ({shown}, "
            "preset vs folder): with a Hugging Face folder the model is the folder's; pass "
            "--config.model=from_init (or '')"
        )


def check_data(mc: models.ModelConfig, data: Any, init_from: str, folder: Path) -> None:
    """The examples fit the folder: objective, vocabulary, special ids, tokenizer, length."""
    where = f"--config.init_from={init_from}"
    source = data.examples_dir or "the examples"
    if data.objective == "bert" and not mc.has_nsp:
        raise ValueError(
            f"{where} is a RoBERTa model, which has no next-sentence-prediction head, but "
            "objective 'bert' (MLM + NSP) needs one: build RoBERTa examples (python -m "
            "pretrain.build_data --objective roberta) and pass --config.objective=roberta"
        )
    if data.vocab_size > mc.vocab_size:
        raise ValueError(
            f"{source} has a vocabulary of {data.vocab_size} tokens but {where} has "
            f"vocab_size {mc.vocab_size}: build the examples with the folder's tokenizer "
            f"(python -m pretrain.build_data --tokenizer {init_from} ...)"
        )
    specials = dict(getattr(data, "special_ids", ()) or ())
    pad = specials.get("[PAD]")
    if pad is not None and int(pad) != mc.pad_token_id:
        raise ValueError(
            f"{source} pads with id {pad} but {where} has pad_token_id {mc.pad_token_id}: "
            "the examples were built with another tokenizer"
        )
    folder_ids = hf_export.read_special_ids(folder)
    differ = {t: (folder_ids[t], i) for t, i in specials.items() if folder_ids.get(t, i) != i}
    if differ:
        raise ValueError(
            f"{source} was built with another tokenizer than {where}: special ids "
            f"(folder, examples) {differ}"
        )
    _check_tokenizer_hash(data, folder, where)
    if data.max_seq_length > mc.max_seq_length:
        raise ValueError(
            f"{source} has sequences of {data.max_seq_length} tokens but {where} has "
            f"max_position_embeddings {mc.max_position_embeddings} (at most {mc.max_seq_length} "
            "tokens with its pad id): rebuild the examples with a shorter --max-seq-length"
        )


def _check_tokenizer_hash(data: Any, folder: Path, where: str) -> None:
    """The examples' manifest records its tokenizer.json's SHA-256: it must be the folder's."""
    if not data.examples_dir or not (folder / "tokenizer.json").is_file():
        return
    from pretrain import input_pipeline

    recorded = input_pipeline.examples_manifest(data.examples_dir).get("tokenizer_sha256")
    if recorded and recorded != sha256_file(folder / "tokenizer.json"):
        raise ValueError(
            f"{data.examples_dir} was built with another tokenizer.json than the one of "
            f"{where}: build the examples with --tokenizer {where.split('=', 1)[1]}"
        )


def sha256_file(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def load_params(
    init_from: str, mc: models.ModelConfig, added: list[dict[str, Any]] = ()
) -> tuple[Any, list[str]]:
    """(``nnx.Param`` state for ``mc`` from the folder's weights, names freshly initialised).

    The parameter tree does not depend on `RUNTIME_FIELDS`, so the folder is read at its own
    config (float32) and the state handed to the train program as it is. With ``added``
    tokens (`added_tokens`), the word embeddings and the MLM output bias grow to
    ``mc.vocab_size`` rows, each added row the mean of its pieces' rows.
    """
    from flax import nnx

    folder = _local(init_from)
    loaded_config, model = hf_export.load_hf_folder(folder, dtype="float32", strict=False)
    if (loaded_config.num_layers, loaded_config.hidden_size) != (mc.num_layers, mc.hidden_size):
        raise ValueError(f"{folder}: config.json changed since the run's model config was read")
    fresh = fresh_weights(folder, model)
    if mc.vocab_size != loaded_config.vocab_size or added:
        model = _grown(model, mc.replace(dtype="float32"), list(added))
    if fresh:
        logging.warning(
            "init_from %s: %d weights not in the folder start from a fresh initialisation: %s",
            folder,
            len(fresh),
            fresh if len(fresh) <= 8 else fresh[:8] + ["..."],
        )
    return nnx.state(model, nnx.Param), fresh


def _grown(
    model: models.PretrainingModel, mc: models.ModelConfig, added: list[dict[str, Any]]
) -> models.PretrainingModel:
    """A copy of ``model`` with ``mc.vocab_size`` vocabulary rows (the new ones: piece means)."""
    import jax.numpy as jnp
    import numpy as np

    from pretrain.vocab_extension import mean_rows

    grown = models.build_model(mc)
    for (_, source, _), (_, target, _) in zip(
        hf_export.param_map(model), hf_export.param_map(grown), strict=True
    ):
        value = np.asarray(source[...])
        if value.shape != target[...].shape:  # word embeddings [V, H], MLM output bias [V]
            value = mean_rows(value, added, mc.vocab_size)
        target[...] = jnp.asarray(value)
    return grown


def fresh_weights(folder: Path, model: models.PretrainingModel) -> list[str]:
    """Names of the model's parameters the folder does not hold (heads of a base model)."""
    base = "bert" if model.config.arch == "bert" else "roberta"
    names = set(hf_export._normalise_names(hf_export.read_hf_tensors(folder), base))
    return [name for name, _, _ in hf_export.param_map(model) if name not in names]


_HUB_CACHE = re.compile(r"models--([^/]+)--([^/]+)/snapshots/")


def source_info(init_from: str, fresh: list[str]) -> dict[str, Any]:
    """Provenance of the source checkpoint, for the run's metadata and the model card."""
    folder = _local(init_from)
    hub = _HUB_CACHE.search(str(folder.resolve()).replace("\\", "/") + "/")
    weights = next(folder / n for n in WEIGHT_FILES if (folder / n).is_file())
    return {
        "kind": "huggingface",
        "path": init_from,
        "name": f"{hub.group(1)}/{hub.group(2)}" if hub else folder.resolve().name,
        "weights_sha256": sha256_file(weights),
        "fresh_weights": list(fresh),
    }


def recorded_source(workdir: Any, source: dict | None) -> dict | None:
    """The Hugging Face source of a run: ``source`` when found now (a fresh start), else (on
    resume) the one the workdir's config.json recorded when the run started."""
    if source is not None:
        return source
    recorded = workdir / "config.json"
    if recorded.exists():
        return json.loads(recorded.read_text()).get("init_from")
    return None
