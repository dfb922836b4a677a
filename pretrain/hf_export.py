"""Write a `PretrainingModel` as a folder that stock Hugging Face ``transformers`` loads.

BERT becomes ``BertForPreTraining`` (MLM + NSP heads), RoBERTa ``RobertaForMaskedLM``. The
folder holds ``config.json``, ``model.safetensors`` (PyTorch parameter names and layouts,
written from NumPy with ``safetensors.numpy``: no torch needed), the tokenizer files and a
model card ``README.md``. The export parity test loads the folder with transformers and
compares logits with ours (max abs difference <= 1e-4 in float32).

Layout notes: a torch ``nn.Linear`` weight is ``[out, in]``, the transpose of a Flax kernel;
embedding tables and LayerNorm vectors keep their shape (LayerNorm ``scale`` -> ``weight``).
The MLM decoder is tied to the word embeddings; the tied decoder weight and bias are written
too (``cls.predictions.decoder.*`` / ``lm_head.decoder.*``), so the file is complete even for
loaders that do not tie.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
from safetensors.numpy import save_file

from pretrain import hf_layouts
from pretrain.masking import SPECIAL_TOKENS
from pretrain.model_card import model_card
from pretrain.models import Encoder, ModelConfig, PretrainingModel

# Files a tokenizer folder may hold (tokenizer.train writes the WordPiece set); copied when
# present. The tokenizer's own train_stats.json is copied too, for provenance.
TOKENIZER_FILES = (
    "vocab.txt",
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "train_stats.json",
)


def hf_config(config: ModelConfig, special_ids: dict[str, int] | None = None) -> dict[str, Any]:
    """``config.json`` contents for BertForPreTraining / RobertaForMaskedLM.

    ``special_ids`` maps special tokens ("[CLS]", "[SEP]", ...) to ids; for RoBERTa the
    bos/eos ids are taken from [CLS]/[SEP] (KLUE's RoBERTa uses the BERT-style tokens).
    """
    bert = config.arch == "bert"
    out: dict[str, Any] = {
        "architectures": ["BertForPreTraining" if bert else "RobertaForMaskedLM"],
        "model_type": config.arch,
        "vocab_size": config.vocab_size,
        "hidden_size": config.hidden_size,
        "num_hidden_layers": config.num_layers,
        "num_attention_heads": config.num_heads,
        "intermediate_size": config.intermediate_size,
        "hidden_act": "gelu",
        "hidden_dropout_prob": config.hidden_dropout,
        "attention_probs_dropout_prob": config.attention_dropout,
        "max_position_embeddings": config.max_position_embeddings,
        "type_vocab_size": config.type_vocab_size,
        "initializer_range": config.initializer_range,
        "layer_norm_eps": config.layer_norm_eps,
        "pad_token_id": config.pad_token_id,
        "position_embedding_type": "absolute",
        "tie_word_embeddings": True,
        "dtype": "float32",
    }
    ids = special_ids or {}
    if not bert:
        if "[CLS]" in ids:
            out["bos_token_id"] = ids["[CLS]"]
        if "[SEP]" in ids:
            out["eos_token_id"] = ids["[SEP]"]
    return out


def _np(x: Any) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(x, dtype=np.float32))


# One entry per parameter: (PyTorch name, the NNX variable, transpose?). Both directions use
# it: export reads the variables, `load_hf_folder` writes them.
ParamMap = list[tuple[str, Any, bool]]


def _linear(prefix: str, layer: Any) -> ParamMap:
    return [(f"{prefix}.weight", layer.kernel, True), (f"{prefix}.bias", layer.bias, False)]


def _layer_norm(prefix: str, norm: Any) -> ParamMap:
    return [(f"{prefix}.weight", norm.scale, False), (f"{prefix}.bias", norm.bias, False)]


def encoder_param_map(encoder: Encoder) -> ParamMap:
    """Every parameter of an `Encoder` (embeddings, layers, pooler if it has one) with its
    transformers name under ``bert.``/``roberta.``/``electra.``: the part pretraining and
    fine-tuning share."""
    base = hf_layouts.BASE_PREFIX[encoder.config.arch]
    emb = encoder.embeddings
    out: ParamMap = [
        (f"{base}.embeddings.word_embeddings.weight", emb.word_embeddings.embedding, False),
        (f"{base}.embeddings.position_embeddings.weight", emb.position_embeddings.embedding, False),
        (
            f"{base}.embeddings.token_type_embeddings.weight",
            emb.token_type_embeddings.embedding,
            False,
        ),
    ]
    out += _layer_norm(f"{base}.embeddings.LayerNorm", emb.layer_norm)
    if encoder.embedding_projection is not None:
        out += _linear(f"{base}.embeddings_project", encoder.embedding_projection)
    for i, layer in enumerate(encoder.layers):
        p = f"{base}.encoder.layer.{i}"
        out += _linear(f"{p}.attention.self.query", layer.attention.query)
        out += _linear(f"{p}.attention.self.key", layer.attention.key)
        out += _linear(f"{p}.attention.self.value", layer.attention.value)
        out += _linear(f"{p}.attention.output.dense", layer.attention.output)
        out += _layer_norm(f"{p}.attention.output.LayerNorm", layer.attention_layer_norm)
        out += _linear(f"{p}.intermediate.dense", layer.intermediate)
        out += _linear(f"{p}.output.dense", layer.output)
        out += _layer_norm(f"{p}.output.LayerNorm", layer.output_layer_norm)
    if encoder.pooler is not None:
        out += _linear(f"{base}.pooler.dense", encoder.pooler)
    return out


def param_map(model: PretrainingModel) -> ParamMap:
    """Every parameter of ``model`` with its transformers name (tied decoder not included)."""
    out = encoder_param_map(model.encoder)
    if model.config.arch == "bert":
        out += _linear("cls.predictions.transform.dense", model.mlm_dense)
        out += _layer_norm("cls.predictions.transform.LayerNorm", model.mlm_layer_norm)
        out.append(("cls.predictions.bias", model.mlm_output_bias, False))
        out += _linear("cls.seq_relationship", model.nsp)
    else:
        out += _linear("lm_head.dense", model.mlm_dense)
        out += _layer_norm("lm_head.layer_norm", model.mlm_layer_norm)
        out.append(("lm_head.bias", model.mlm_output_bias, False))
    return out


def _tied_decoder_prefix(config: ModelConfig) -> str:
    return "cls.predictions.decoder" if config.arch == "bert" else "lm_head.decoder"


def to_hf_state_dict(model: PretrainingModel) -> dict[str, np.ndarray]:
    """Float32 NumPy arrays under the PyTorch names of BertForPreTraining / RobertaForMaskedLM."""
    state = {}
    for name, variable, transpose in param_map(model):
        value = np.asarray(variable[...], dtype=np.float32)
        state[name] = _np(value.T if transpose else value)
    decoder = _tied_decoder_prefix(model.config)
    base = "bert" if model.config.arch == "bert" else "roberta"
    bias = "cls.predictions.bias" if model.config.arch == "bert" else "lm_head.bias"
    state[f"{decoder}.weight"] = state[f"{base}.embeddings.word_embeddings.weight"].copy()
    state[f"{decoder}.bias"] = state[bias].copy()
    return state


def read_special_ids(tokenizer_dir: str | os.PathLike) -> dict[str, int]:
    """Ids of the BERT special tokens from ``vocab.txt`` (one token per line, id = line)."""
    vocab = Path(tokenizer_dir) / "vocab.txt"
    if not vocab.is_file():
        return {}
    ids: dict[str, int] = {}
    with open(vocab, encoding="utf-8") as f:
        for i, line in enumerate(f):
            token = line.rstrip("\n")
            if token in SPECIAL_TOKENS and token not in ids:
                ids[token] = i
    return ids


def _vocab_size(tokenizer_dir: Path) -> int | None:
    vocab = tokenizer_dir / "vocab.txt"
    if not vocab.is_file():
        return None
    with open(vocab, encoding="utf-8") as f:
        return sum(1 for _ in f)


def check_tokenizer(config: ModelConfig, tokenizer_dir: str | os.PathLike) -> dict[str, int]:
    """Check the tokenizer fits the model (vocab size, [PAD] id); return its special ids."""
    tok = Path(tokenizer_dir)
    if not tok.is_dir():
        raise FileNotFoundError(f"tokenizer folder not found: {tok}")
    if not any((tok / name).is_file() for name in TOKENIZER_FILES[:2]):
        raise FileNotFoundError(f"{tok} has neither vocab.txt nor tokenizer.json")
    n = _vocab_size(tok)
    if n is not None and n > config.vocab_size:
        raise ValueError(f"tokenizer {tok} has {n} tokens but the model only {config.vocab_size}")
    ids = read_special_ids(tok)
    if "[PAD]" in ids and ids["[PAD]"] != config.pad_token_id:
        raise ValueError(
            f"tokenizer [PAD] id {ids['[PAD]']} != model pad_token_id {config.pad_token_id}"
        )
    return ids


# What a RoBERTa model takes: no token_type_ids (its type table has one row, so a pair's
# segment id 1 would index past it).
ROBERTA_INPUT_NAMES = ["input_ids", "attention_mask"]


def _tokenizer_config(path: Path, config: ModelConfig, special: dict[str, int]) -> None:
    """Fit the exported ``tokenizer_config.json`` to the model.

    * ``model_max_length``: the model's longest input (tokenizers default to 512, and a
      RoBERTa position table of 513 with [PAD] = 1 holds 511);
    * RoBERTa: ``model_input_names`` without ``token_type_ids``, so a sentence pair
      (``tokenizer(a, b)``, NLI, STS, any pipeline) never sends segment ids;
    * when the tokenizer folder had no config, one is written (the fast tokenizer from
      ``tokenizer.json``, or BertTokenizer from ``vocab.txt``) naming the special tokens, so
      AutoTokenizer does not fall back to the architecture's default (a BPE RoBERTa tokenizer).
    """
    if path.is_file():
        data = json.loads(path.read_text(encoding="utf-8"))
    else:
        fast = (path.parent / "tokenizer.json").is_file()
        data = {"tokenizer_class": "PreTrainedTokenizerFast" if fast else "BertTokenizer"}
        names = {"[PAD]": "pad", "[UNK]": "unk", "[CLS]": "cls", "[SEP]": "sep", "[MASK]": "mask"}
        data.update({f"{names[t]}_token": t for t in special if t in names})
    if int(data.get("model_max_length", config.max_seq_length + 1)) > config.max_seq_length:
        data["model_max_length"] = config.max_seq_length
    if config.arch == "roberta":
        data["model_input_names"] = list(ROBERTA_INPUT_NAMES)
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def _single_segment_post_processor(path: Path) -> None:
    """RoBERTa: every segment id the fast tokenizer's post-processor emits becomes 0.

    Even a caller that asks for ``return_token_type_ids=True`` then gets ids the model's
    one-row type table accepts; the tokens themselves ([CLS] a [SEP] b [SEP]) are unchanged.
    """
    if not path.is_file():
        return
    data = json.loads(path.read_text(encoding="utf-8"))

    def zero(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: 0 if k == "type_id" else zero(v) for k, v in node.items()}
        if isinstance(node, list):
            return [zero(v) for v in node]
        return node

    if data.get("post_processor"):
        data["post_processor"] = zero(data["post_processor"])
        path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def _current_umask() -> int:
    """The process umask without changing it (os.umask would, briefly, for every thread)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except OSError:
        pass
    return 0o022


def _make_readable(folder: Path) -> None:
    """Usual permissions (mkdtemp makes 0700; safetensors writes 0600), within the umask."""
    umask = _current_umask()
    folder.chmod(0o777 & ~umask)
    for path in folder.iterdir():
        path.chmod(0o666 & ~umask)


def write_hf_folder(
    model: PretrainingModel,
    tokenizer_dir: str | os.PathLike,
    output_dir: str | os.PathLike,
    model_card_info: dict[str, Any] | None = None,
    *,
    overwrite: bool = False,
) -> Path:
    """Write config.json, model.safetensors, the tokenizer files and README.md.

    The folder is assembled in a temporary sibling and renamed into place, so a reader never
    sees a half-written export. An existing non-empty ``output_dir`` is an error unless
    ``overwrite``.
    """
    config = model.config
    tok = Path(tokenizer_dir)
    special = check_tokenizer(config, tok)
    out = Path(output_dir)
    if out.exists() and any(out.iterdir()) and not overwrite:
        raise FileExistsError(f"{out} exists and is not empty (use overwrite)")
    with staged_folder(out) as tmp:
        with open(tmp / "config.json", "w", encoding="utf-8") as f:
            json.dump(hf_config(config, special), f, indent=2, sort_keys=True)
            f.write("\n")
        save_file(to_hf_state_dict(model), str(tmp / "model.safetensors"), {"format": "pt"})
        for name in TOKENIZER_FILES:
            if (tok / name).is_file():
                shutil.copyfile(tok / name, tmp / name)
        _tokenizer_config(tmp / "tokenizer_config.json", config, special)
        if config.arch == "roberta":
            _single_segment_post_processor(tmp / "tokenizer.json")
        (tmp / "README.md").write_text(model_card(config, model_card_info), encoding="utf-8")
    return out


@contextlib.contextmanager
def staged_folder(out: Path) -> Iterator[Path]:
    """A temporary folder beside `out` that replaces it (readable by all, one rename) when the
    block ends without an error and is removed when it raises: no reader ever sees a
    half-written export. Shared by the pretraining and the fine-tuning exports."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        yield tmp
        _make_readable(tmp)
        if out.exists():
            shutil.rmtree(out)
        os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def float32_copy(model: PretrainingModel) -> PretrainingModel:
    """The same parameters in a model that computes in float32 (for exact comparisons)."""
    from flax import nnx

    if model.config.dtype == "float32":
        return model
    copy = PretrainingModel(model.config.replace(dtype="float32"), rngs=nnx.Rngs(0))
    nnx.update(copy, nnx.state(model, nnx.Param))
    return copy


def reference_batch(config: ModelConfig, seed: int = 0, seq_len: int = 32) -> dict[str, np.ndarray]:
    """A small padded batch (three rows of different lengths) for parity checks.

    Token ids avoid ``pad_token_id``; BERT rows get two segments; ``masked_positions`` point at
    real tokens only.
    """
    rng = np.random.default_rng(seed)
    length = min(seq_len, config.max_seq_length)
    lengths = (length, max(2, 2 * length // 3), max(2, length // 3))
    ids = rng.integers(0, config.vocab_size - 1, (3, length)).astype(np.int32)
    ids[ids >= config.pad_token_id] += 1  # skip the pad id
    mask = np.zeros_like(ids)
    types = np.zeros_like(ids)
    n_pred = max(1, min(lengths) // 2)
    positions = np.zeros((3, n_pred), np.int32)
    for b, n in enumerate(lengths):
        ids[b, n:] = config.pad_token_id
        mask[b, :n] = 1
        if config.arch == "bert" and config.type_vocab_size > 1:
            types[b, n // 2 : n] = 1
        positions[b] = np.sort(rng.choice(n, n_pred, replace=False))
    return dict(
        input_ids=ids, token_type_ids=types, attention_mask=mask, masked_positions=positions
    )


def compare_with_transformers(
    model: PretrainingModel, folder: str | os.PathLike, batch: dict[str, np.ndarray] | None = None
) -> dict[str, float]:
    """Load ``folder`` with stock transformers (PyTorch, float32, eval) and compare logits.

    Returns ``{"mlm_max_abs_diff": ..., "nsp_max_abs_diff": ... (BERT)}`` between our model
    (run in float32) and transformers on ``batch`` (default `reference_batch`), MLM logits taken
    at ``masked_positions``. Needs torch and transformers (ImportError otherwise).
    """
    try:
        import torch
        import transformers
    except ImportError as err:
        raise ImportError("comparing with transformers needs torch and transformers") from err
    ours_model = float32_copy(model)
    config = ours_model.config
    batch = batch or reference_batch(config)
    cls = (
        transformers.BertForPreTraining
        if config.arch == "bert"
        else transformers.RobertaForMaskedLM
    )
    theirs_model = cls.from_pretrained(str(folder), dtype=torch.float32)
    theirs_model.eval()
    with torch.no_grad():
        theirs = theirs_model(
            input_ids=torch.as_tensor(batch["input_ids"], dtype=torch.long),
            attention_mask=torch.as_tensor(batch["attention_mask"], dtype=torch.long),
            token_type_ids=torch.as_tensor(batch["token_type_ids"], dtype=torch.long),
        )
    ours = ours_model(
        batch["input_ids"],
        batch["token_type_ids"],
        batch["attention_mask"],
        batch["masked_positions"],
    )
    mlm = (theirs.prediction_logits if config.arch == "bert" else theirs.logits).numpy()
    mlm = np.take_along_axis(mlm, batch["masked_positions"][..., None].astype(np.int64), axis=1)
    result = {"mlm_max_abs_diff": float(np.abs(mlm - np.asarray(ours["mlm_logits"])).max())}
    if config.arch == "bert":
        nsp = theirs.seq_relationship_logits.numpy()
        result["nsp_max_abs_diff"] = float(np.abs(nsp - np.asarray(ours["nsp_logits"])).max())
    return result


# ---------------------------------------------------------------------------------------------
# The other direction: a transformers BERT/RoBERTa folder -> PretrainingModel.

HEAD_PREFIXES = ("cls.", "lm_head.", "bert.pooler.", "roberta.pooler.")


def config_from_hf(hf: dict[str, Any], *, dtype: str = "bfloat16") -> ModelConfig:
    """`ModelConfig` from a transformers ``config.json`` dict (BERT, RoBERTa, XLM-R, ELECTRA:
    `pretrain.hf_layouts`)."""
    arch = hf_layouts.arch_of(hf)
    if hf.get("hidden_act", "gelu") != "gelu":
        raise ValueError(f"only hidden_act 'gelu' (exact) is supported, got {hf['hidden_act']!r}")
    if hf.get("position_embedding_type", "absolute") != "absolute":
        raise ValueError("only absolute position embeddings are supported")
    return ModelConfig(
        arch=arch,
        vocab_size=int(hf["vocab_size"]),
        hidden_size=int(hf["hidden_size"]),
        num_layers=int(hf["num_hidden_layers"]),
        num_heads=int(hf["num_attention_heads"]),
        intermediate_size=int(hf["intermediate_size"]),
        max_position_embeddings=int(hf["max_position_embeddings"]),
        type_vocab_size=int(hf.get("type_vocab_size", 2)),
        hidden_dropout=float(hf.get("hidden_dropout_prob", 0.1)),
        attention_dropout=float(hf.get("attention_probs_dropout_prob", 0.1)),
        layer_norm_eps=float(hf.get("layer_norm_eps", 1e-12)),
        initializer_range=float(hf.get("initializer_range", 0.02)),
        pad_token_id=int(hf.get("pad_token_id") or 0),
        embedding_size=hf_layouts.embedding_size(hf),
        dtype=dtype,
    )


class HFTensors(Mapping[str, np.ndarray]):
    """The tensors of safetensors files by name, each read from disk when asked for, so that
    importing a model holds one tensor at a time beside the model, not a second full copy."""

    def __init__(self, where: dict[str, tuple[Path, str]]):
        self._where = where  # name -> (file, name in the file)

    def __getitem__(self, name: str) -> np.ndarray:
        from safetensors import safe_open

        path, key = self._where[name]
        with safe_open(str(path), framework="numpy") as f:
            return f.get_tensor(key)

    def __iter__(self) -> Iterator[str]:
        return iter(self._where)

    def __len__(self) -> int:
        return len(self._where)

    def __contains__(self, name: object) -> bool:
        return name in self._where  # without reading the tensor (Mapping's default does)

    def renamed(self, rename: Callable[[str], str]) -> HFTensors:
        return HFTensors({rename(name): where for name, where in self._where.items()})


def read_hf_tensors(folder: str | os.PathLike) -> HFTensors:
    """The tensors of ``model.safetensors`` (or its sharded index), read lazily as NumPy; a
    folder with only ``pytorch_model.bin`` is converted first
    (`hf_layouts.converted_safetensors`)."""
    from safetensors import safe_open

    folder = Path(folder)
    single = folder / "model.safetensors"
    index = folder / "model.safetensors.index.json"
    if single.is_file():
        files = [single]
    elif index.is_file():
        weight_map = json.loads(index.read_text(encoding="utf-8"))["weight_map"]
        files = [folder / name for name in sorted(set(weight_map.values()))]
    else:
        files = hf_layouts.converted_safetensors(folder)
    where: dict[str, tuple[Path, str]] = {}
    for path in files:
        try:
            with safe_open(str(path), framework="numpy") as f:
                where.update((key, (path, key)) for key in f.keys())
        except Exception as err:  # safetensors raises its own error types for bad headers
            raise ValueError(f"{path}: not a readable safetensors file ({err})") from err
    return HFTensors(where)


def _normalise_names(tensors: HFTensors, base: str) -> HFTensors:
    """Add the ``bert.``/``roberta.`` prefix of base-model checkpoints; legacy gamma/beta."""

    def rename(name: str) -> str:
        name = name.replace("LayerNorm.gamma", "LayerNorm.weight")
        name = name.replace("LayerNorm.beta", "LayerNorm.bias")
        if name.startswith(hf_layouts.BASE_MODEL_NAMES):
            name = f"{base}.{name}"
        return name

    return tensors.renamed(rename)


def read_hf_config(folder: str | os.PathLike, *, dtype: str = "bfloat16") -> ModelConfig:
    """`config_from_hf` of ``folder/config.json`` (FileNotFoundError / ValueError naming it)."""
    path = Path(folder) / "config.json"
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found: not a transformers model folder")
    try:
        hf = json.loads(path.read_text(encoding="utf-8"))
        return config_from_hf(hf, dtype=dtype)
    except (json.JSONDecodeError, KeyError, TypeError, ValueError) as err:
        what = f"missing field {err}" if isinstance(err, KeyError) else str(err)
        raise ValueError(f"{path}: {what}") from err


# Config fields whose disagreement with a tensor's shape deserves its own message.
_SHAPE_FIELDS = {
    "embeddings.word_embeddings.weight": "vocab_size",
    "embeddings.position_embeddings.weight": "max_position_embeddings",
    "embeddings.token_type_embeddings.weight": "type_vocab_size",
}


def _assign(folder: Path, tensors: Mapping[str, np.ndarray], pmap: ParamMap) -> list[str]:
    """Copy ``tensors`` into the variables of ``pmap`` (the inverse of `to_hf_state_dict`).

    Returns the names ``tensors`` lacks (those variables keep their initial values).
    """
    import jax.numpy as jnp

    missing = []
    for name, variable, transpose in pmap:
        if name not in tensors:
            missing.append(name)
            continue
        value = np.asarray(tensors[name], dtype=np.float32)
        value = value.T if transpose else value
        expected = variable[...].shape
        if value.shape != expected:
            field = _SHAPE_FIELDS.get(name.split(".", 1)[1])
            if field and value.shape[1:] == expected[1:]:
                raise ValueError(
                    f"{folder}: config.json {field} = {expected[0]} disagrees with {name} "
                    f"({value.shape[0]} rows)"
                )
            raise ValueError(f"{folder}: {name} has shape {value.shape}, expected {expected}")
        variable[...] = jnp.asarray(value, dtype=variable[...].dtype)
    return missing


def _missing_message(folder: Path, missing: list[str]) -> str:
    return f"{folder}: missing weights {missing[:8]}{'...' if len(missing) > 8 else ''}"


def load_hf_folder(
    folder: str | os.PathLike, *, dtype: str = "bfloat16", strict: bool = True
) -> tuple[ModelConfig, PretrainingModel]:
    """Build a `PretrainingModel` from a transformers BERT/RoBERTa folder.

    Reads ``config.json`` and ``model.safetensors``. Works for our exports, folders written
    by transformers' ``save_pretrained`` (which leave out the tied decoder) and base-model
    checkpoints without the ``bert.``/``roberta.`` prefix. Encoder weights must all be
    present; missing head weights (pooler, MLM, NSP) keep their fresh initialisation unless
    ``strict``, which makes any missing weight an error. Tensors the model does not use
    (e.g. buffers) are ignored. An MLM decoder that is not tied to the word embeddings is an
    error (our MLM head always ties it).
    """
    from flax import nnx

    folder = Path(folder)
    config = read_hf_config(folder, dtype=dtype)
    base = "bert" if config.arch == "bert" else "roberta"
    tensors = _normalise_names(read_hf_tensors(folder), base)
    decoder = tensors.get(f"{_tied_decoder_prefix(config)}.weight")
    words = tensors.get(f"{base}.embeddings.word_embeddings.weight")
    if decoder is not None and words is not None and not np.array_equal(decoder, words):
        raise ValueError(f"{folder}: the MLM decoder is not tied to the word embeddings")
    model = PretrainingModel(config, rngs=nnx.Rngs(params=0, dropout=1))
    missing = _assign(folder, tensors, param_map(model))
    encoder_missing = [n for n in missing if not n.startswith(HEAD_PREFIXES)]
    if encoder_missing or (strict and missing):
        raise ValueError(_missing_message(folder, missing))
    return config, model


def load_hf_encoder(
    folder: str | os.PathLike, *, dtype: str = "float32", seed: int = 0
) -> tuple[ModelConfig, Encoder, list[str]]:
    """The `Encoder` of a transformers BERT/RoBERTa/XLM-R/ELECTRA folder, for fine-tuning.

    Returns ``(config, encoder, fresh)``: every embedding and layer weight must be in the
    folder; BERT's pooler is taken when present and otherwise freshly initialised (from
    ``seed``), as transformers does for ``BertForSequenceClassification`` from a
    ``BertForMaskedLM`` checkpoint; ``fresh`` names such weights. RoBERTa (and XLM-R) get the
    checkpoint's pooler when it has one (``roberta.pooler.dense``, as the released KLUE-RoBERTa
    folders; transformers' ``RobertaModel`` loads it, and the KLUE baseline's WoS starts its
    GRU from it) and none otherwise (its sentence heads do not use one; a task that needs
    one adds it with `finetune.modeling.with_pooler`). ELECTRA has no pooler. Pretraining
    heads (MLM, NSP, ELECTRA's discriminator head), tied or not, are ignored.
    """
    from flax import nnx

    folder = Path(folder)
    config = read_hf_config(folder, dtype=dtype)
    base = hf_layouts.BASE_PREFIX[config.arch]
    tensors = _normalise_names(read_hf_tensors(folder), base)
    pooler = config.arch == "bert" or (
        config.arch == "roberta" and f"{base}.pooler.dense.weight" in tensors
    )
    encoder = Encoder(config, rngs=nnx.Rngs(params=seed, dropout=seed + 1), add_pooler=pooler)
    missing = _assign(folder, tensors, encoder_param_map(encoder))
    if [n for n in missing if not n.startswith(HEAD_PREFIXES)]:
        raise ValueError(_missing_message(folder, missing))
    return config, encoder, missing
