"""The model card (``README.md``) of an exported folder: what the model is, how it was trained,
its licence and intended use. Split from `pretrain.hf_export`, which writes it beside the
weights; the facts come from the export's ``info`` (`pretrain.export`)."""

from __future__ import annotations

from typing import Any

from pretrain.models import ModelConfig, count_params


def model_card(config: ModelConfig, info: dict[str, Any] | None = None) -> str:
    """Markdown model card: what the model is, how it was trained, license and intended use.

    ``info`` keys (all optional): ``name``, ``description``, ``license``, ``corpus`` (text),
    ``training`` (dict shown as a table: steps, batch size, sequence length, ...),
    ``pseudonymised`` (whether `corpus.pseudonymize` ran: the intended-use note says so only
    then). Without a ``license`` the card says ``unknown``: a licence is claimed only when the
    inputs declare one (`pretrain.provenance`) or the user gives it.
    """
    info = dict(info or {})
    arch = "BertForPreTraining" if config.arch == "bert" else "RobertaForMaskedLM"
    name = info.get("name") or f"klue-pretrain-{config.arch}"
    license_id = info.get("license") or "unknown"
    objective = (
        "masked language modelling with whole-word (eojeol) masking and next-sentence prediction"
        if config.arch == "bert"
        else "masked language modelling with whole-word (eojeol) dynamic masking on packed "
        "full-length sequences, without next-sentence prediction"
    )
    rows = [
        ("architecture", arch),
        (
            "layers / hidden / heads",
            f"{config.num_layers} / {config.hidden_size} / {config.num_heads}",
        ),
        ("intermediate size", config.intermediate_size),
        ("vocabulary", config.vocab_size),
        ("max sequence length", config.max_seq_length),
        ("parameters", f"{count_params(config):,}"),
    ]
    shown = {k for k, _ in rows}
    rows += [(str(k), v) for k, v in (info.get("training") or {}).items() if str(k) not in shown]
    table = "\n".join(f"| {k} | {v} |" for k, v in rows)
    corpus = info.get("corpus") or (
        "Not recorded: the examples the model was trained on left no manifests to follow."
    )
    privacy = (
        "The pretraining corpus was pseudonymised, but web text carries social biases that the "
        "model can reproduce."
        if info.get("pseudonymised")
        else "The pretraining corpus was not pseudonymised by this pipeline: the model may have "
        "memorised personal information in it, and web text carries social biases that the "
        "model can reproduce."
    )
    description = info.get("description") or (
        f"A Korean {config.arch.upper() if config.arch == 'bert' else 'RoBERTa'} encoder "
        "pretrained with the open KLUE pretraining pipeline (a rebuild of the KLUE paper, "
        "Park et al. 2021, arXiv 2105.09680)."
    )
    pipeline_tag = "fill-mask"
    return f"""---
language: ko
license: {license_id}
library_name: transformers
pipeline_tag: {pipeline_tag}
tags:
- {config.arch}
- korean
- klue
---

# {name}

{description}

## Model

| field | value |
|---|---|
{table}

Pretraining objective: {objective}.
{_position_note(config)}

## Training data

{corpus}

## License

{_license_text(license_id)}

## Intended use

Fine-tuning on Korean language understanding tasks (the eight KLUE tasks: topic
classification, semantic textual similarity, natural language inference, named entity
recognition, relation extraction, dependency parsing, reading comprehension, dialogue state
tracking) and masked-token prediction. It is not a text generator and its outputs are not
facts. {privacy}

```python
from transformers import AutoModelForMaskedLM, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("PATH")
model = AutoModelForMaskedLM.from_pretrained("PATH")
```
"""


def _license_text(license_id: str) -> str:
    if license_id == "unknown":
        return (
            "`unknown`: the licences of the training text are not all known (a source without "
            "a declared licence). Establish them before redistributing the weights, then "
            "export again with `--license`."
        )
    if license_id.startswith("cc-by-sa"):
        return (
            "The weights are derived from text under the Creative Commons "
            f"Attribution-ShareAlike licence, so they are released under `{license_id}`, as "
            "the KLUE models are. Keep the attribution and share-alike terms when you "
            "redistribute the model or models derived from it."
        )
    return f"`{license_id}`, from the licences the training text declares (or `--license`)."


def _position_note(config: ModelConfig) -> str:
    if config.arch == "bert":
        return ""
    return (
        f"\nPosition ids follow transformers' RoBERTa convention with `pad_token_id = "
        f"{config.pad_token_id}`: real tokens are numbered from {config.pad_token_id + 1}, "
        f"hence `max_position_embeddings = {config.max_position_embeddings}` for "
        f"{config.max_seq_length} tokens.\n"
    )
