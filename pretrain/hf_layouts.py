"""The Hugging Face checkpoint layouts the importer reads, beyond BERT/RoBERTa safetensors.

The KLUE paper compares its models with multilingual BERT, XLM-R, KR-BERT and KoELECTRA.
`pretrain.hf_export.load_hf_encoder` reads all of them with this module's help:

* **model types.** ``config.json``'s ``model_type`` names the architecture: ``bert``
  (KLUE-BERT, multilingual BERT, KR-BERT), ``roberta`` (KLUE-RoBERTa), ``xlm-roberta``
  (XLM-R: transformers' XLMRobertaModel is RobertaModel, weights under ``roberta.``, with a
  SentencePiece ``tokenizer.json``) and ``electra`` (an ELECTRA discriminator: BERT's layers,
  no pooler, weights under ``electra.``, and when ``embedding_size`` differs from
  ``hidden_size`` a dense ``embeddings_project`` from the embeddings to the hidden width).
  Old folders converted from TensorFlow checkpoints may lack ``model_type``; it is then read
  from ``architectures`` (``BertModel`` -> bert), as transformers' AutoConfig guesses it.
* **PyTorch weights.** A folder with ``pytorch_model.bin`` (or a sharded
  ``pytorch_model.bin.index.json``) and no safetensors, as KR-BERT and older KoELECTRA
  releases are, is converted to safetensors with torch (``torch.load(weights_only=True)``:
  no code in the file runs) into a temporary folder removed when the process exits; the
  user's folder is not written to. Without torch the error says how to convert it.
"""

from __future__ import annotations

import atexit
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

#: ``config.json`` model_type -> the `pretrain.models.ModelConfig` arch that runs it.
MODEL_TYPES = {"bert": "bert", "roberta": "roberta", "xlm-roberta": "roberta", "electra": "electra"}
#: transformers class-name prefixes -> model_type, for config files without ``model_type``
#: (longest first: "XLMRoberta" before "Roberta").
ARCHITECTURE_PREFIXES = (
    ("XLMRoberta", "xlm-roberta"),
    ("Roberta", "roberta"),
    ("Electra", "electra"),
    ("Bert", "bert"),
)
#: The attribute holding the encoder in transformers' task models, by our arch.
BASE_PREFIX = {"bert": "bert", "roberta": "roberta", "electra": "electra"}
#: Tensor names of a base-model checkpoint (no task wrapper) start with one of these.
BASE_MODEL_NAMES = ("embeddings.", "encoder.", "pooler.", "embeddings_project.")
BIN_FILE = "pytorch_model.bin"
BIN_INDEX = "pytorch_model.bin.index.json"

_converted_root: Path | None = None


def model_type(hf: dict[str, Any]) -> str | None:
    """``model_type`` of a ``config.json`` dict, else guessed from ``architectures``."""
    if hf.get("model_type"):
        return str(hf["model_type"])
    for name in hf.get("architectures") or ():
        for prefix, kind in ARCHITECTURE_PREFIXES:
            if str(name).startswith(prefix):
                return kind
    return None


def arch_of(hf: dict[str, Any]) -> str:
    """Our arch for a ``config.json`` dict; ValueError naming the supported model types."""
    kind = model_type(hf)
    if kind not in MODEL_TYPES:
        raise ValueError(f"model_type must be one of {sorted(MODEL_TYPES)}, got {kind!r}")
    return MODEL_TYPES[kind]


def embedding_size(hf: dict[str, Any]) -> int | None:
    """ELECTRA's ``embedding_size`` when it differs from ``hidden_size`` (else None)."""
    size = hf.get("embedding_size")
    if size is None or int(size) == int(hf["hidden_size"]):
        return None
    return int(size)


def bin_files(folder: Path) -> list[Path]:
    """The PyTorch weight files of ``folder`` (one file or the shards of its index), or []."""
    if (folder / BIN_FILE).is_file():
        return [folder / BIN_FILE]
    index = folder / BIN_INDEX
    if index.is_file():
        try:
            weight_map = json.loads(index.read_text(encoding="utf-8"))["weight_map"]
        except (json.JSONDecodeError, KeyError, TypeError) as err:
            raise ValueError(f"{index}: not a weight index ({err})") from err
        return [folder / name for name in sorted(set(weight_map.values()))]
    return []


def conversion_hint(folder: Path) -> str:
    return (
        f"convert {folder}'s PyTorch weights to safetensors: pip install torch, or elsewhere run "
        'python -c "from transformers import AutoModel; '
        f"m = AutoModel.from_pretrained('{folder}'); "
        f"m.save_pretrained('{folder}', safe_serialization=True)\""
    )


def converted_safetensors(folder: Path) -> list[Path]:
    """``folder``'s ``pytorch_model.bin`` weights as safetensors files in a temporary folder.

    FileNotFoundError when the folder has no weights at all; ImportError-free: without torch
    a FileNotFoundError says how to convert. A file torch cannot read is a ValueError naming it.
    """
    sources = bin_files(folder)
    if not sources:
        raise FileNotFoundError(
            f"{folder} has no model.safetensors, model.safetensors.index.json or {BIN_FILE}"
        )
    try:
        import torch
    except ImportError as err:
        raise FileNotFoundError(
            f"{folder} has only PyTorch weights ({sources[0].name}) and torch is not installed: "
            + conversion_hint(folder)
        ) from err
    from safetensors.numpy import save_file

    out = Path(tempfile.mkdtemp(prefix="safetensors-", dir=_temporary_root()))
    files = []
    for i, source in enumerate(sources):
        try:
            state = torch.load(str(source), map_location="cpu", weights_only=True)
        except Exception as err:  # torch raises many types (pickle, zip, RuntimeError)
            raise ValueError(f"{source}: not a readable PyTorch weight file ({err})") from err
        arrays = {name: _to_numpy(torch, t) for name, t in state.items() if torch.is_tensor(t)}
        path = out / f"model-{i:05d}.safetensors"
        save_file(arrays, str(path), {"format": "pt"})
        files.append(path)
    return files


def _to_numpy(torch: Any, tensor: Any) -> np.ndarray:
    """A tensor as a contiguous NumPy array (bfloat16, which NumPy lacks, as float32)."""
    if tensor.dtype == torch.bfloat16:
        tensor = tensor.to(torch.float32)
    return np.ascontiguousarray(tensor.detach().cpu().numpy())


def _temporary_root() -> Path:
    """One temporary folder per process for converted weights, removed at exit."""
    global _converted_root
    if _converted_root is None or not _converted_root.is_dir():
        _converted_root = Path(tempfile.mkdtemp(prefix="hf-import-"))
        atexit.register(shutil.rmtree, _converted_root, True)
    return _converted_root
