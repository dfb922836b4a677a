"""Write a fine-tuned model as a folder stock ``transformers`` pipelines load.

    python -m finetune export --task ynat --model ft/ynat/best --output hf/ynat

``--model`` is the ``best/`` folder of a ``python -m finetune`` run (`finetune.finetuned`).
YNAT, NLI and STS become ``{Bert,Roberta,Electra}ForSequenceClassification`` (STS one
regression output, ``problem_type = "regression"``), NER ``...ForTokenClassification`` with
the 13 KLUE tags, MRC ``...ForQuestionAnswering``: the architectures the KLUE baseline
fine-tunes, whose heads ours mirror (`finetune.tasks.classification`, `finetune.tasks.ner`,
`finetune.tasks.mrc`), so the weights map one to one:

* BERT: ``classifier`` <- the head's output layer (on the pooler, as ours);
* RoBERTa / ELECTRA: ``classifier.dense`` and ``classifier.out_proj`` (tanh / GELU between,
  as ``RobertaClassificationHead`` / ``ElectraClassificationHead`` and ours);
* NER ``classifier``, MRC ``qa_outputs``.

The encoder's names come from `pretrain.hf_export.encoder_param_map` (one map for import and
export). The folder holds ``config.json`` (with ``id2label``), ``model.safetensors``, the
tokenizer the task encoded with (``tokenizer.json`` + ``tokenizer_config.json``) and a model
card ``README.md`` that states the task, the dev scores and how outputs differ from the KLUE
format (NER tags are per token; the KLUE format is per character). The export test loads
each task's folder with ``transformers.pipeline`` and compares logits with ours (<= 1e-4).

RE, DP and WoS heads have no transformers class: for them the folder holds the encoder as
``{Bert,Roberta,Electra}Model`` plus ``head.safetensors`` (the head's parameters under our
module paths, Flax ``[in, out]`` kernels) and ``head.json`` naming the head's class, its
options and each parameter's shape (`write_head`).

Exit status: 0 written, 2 bad input (not a ``best/`` folder, another task, output exists).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np
from safetensors.numpy import save_file

from corpus.cli import report_errors
from corpus.klue import nli as klue_nli
from corpus.klue import ynat as klue_ynat
from corpus.klue.ner import TAGS
from finetune.finetuned import Finetuned, load_finetuned
from pretrain import hf_export

#: Task -> (transformers head class suffix, pipeline task, label names or None).
HEADS: dict[str, tuple[str, str, tuple[str, ...] | None]] = {
    "ynat": ("ForSequenceClassification", "text-classification", klue_ynat.LABELS),
    "nli": ("ForSequenceClassification", "text-classification", klue_nli.LABELS),
    "sts": ("ForSequenceClassification", "text-classification", None),
    "ner": ("ForTokenClassification", "token-classification", TAGS),
    "mrc": ("ForQuestionAnswering", "question-answering", None),
}
ARCH_CLASS = {"bert": "Bert", "roberta": "Roberta", "electra": "Electra"}
ROLE_KEYS = {"pad": "pad_token", "cls": "cls_token", "sep": "sep_token", "unk": "unk_token"}
ROLE_KEYS["mask"] = "mask_token"
LICENSE = "cc-by-sa-4.0"  # KLUE's data licence; a model trained on it shares it


def head_param_map(ft: Finetuned) -> hf_export.ParamMap:
    """The task head's parameters under the names of the transformers head class."""
    name, head, arch = ft.task.name, ft.model.head, ft.config.arch
    if name in ("ynat", "nli", "sts"):
        if arch == "bert":
            return hf_export._linear("classifier", head.out)
        return hf_export._linear("classifier.dense", head.dense) + hf_export._linear(
            "classifier.out_proj", head.out
        )
    if name == "ner":
        return hf_export._linear("classifier", head.classifier)
    if name == "mrc":
        return hf_export._linear("qa_outputs", head.qa_outputs)
    raise ValueError(f"{name} has no transformers head class (see write_head)")


def state_dict(pmap: hf_export.ParamMap) -> dict[str, np.ndarray]:
    """Float32 arrays under PyTorch names, torch ``[out, in]`` layout for dense kernels."""
    out = {}
    for name, variable, transpose in pmap:
        value = np.asarray(variable[...], dtype=np.float32)
        out[name] = np.ascontiguousarray(value.T if transpose else value)
    return out


def task_hf_config(ft: Finetuned, architecture: str) -> dict[str, Any]:
    """``config.json``: the encoder's (`hf_export.hf_config`), the class and the labels."""
    config, ids = ft.config, ft.loaded.special_ids
    hf = hf_export.hf_config(config, {"[CLS]": ids["cls"], "[SEP]": ids["sep"]})
    hf["architectures"] = [architecture]
    if config.arch == "electra":
        hf["embedding_size"] = config.embedding_width
    if config.arch == "roberta" or config.arch == "electra":
        hf.pop("tie_word_embeddings", None)
    labels = HEADS.get(ft.task.name, (None, None, None))[2]
    if ft.task.name == "sts":
        hf.update(num_labels=1, problem_type="regression", id2label={"0": "score"})
        hf["label2id"] = {"score": 0}
    elif labels is not None:
        hf["id2label"] = {str(i): label for i, label in enumerate(labels)}
        hf["label2id"] = {label: i for i, label in enumerate(labels)}
    return hf


def tokenizer_config(ft: Finetuned) -> dict[str, Any]:
    """A fast-tokenizer config naming the special tokens, the longest input and, for RoBERTa
    (a one-row token-type table), inputs without ``token_type_ids``."""
    tok, config = ft.loaded.tokenizer, ft.config
    out: dict[str, Any] = {"tokenizer_class": "PreTrainedTokenizerFast"}
    for role, key in ROLE_KEYS.items():
        if role in ft.loaded.special_ids:
            out[key] = tok.id_to_token(ft.loaded.special_ids[role])
    out["model_max_length"] = config.max_seq_length
    # Named explicitly: PreTrainedTokenizerFast's default leaves token_type_ids out, and BERT
    # would then read a sentence pair's second segment as the first.
    out["model_input_names"] = (
        list(hf_export.ROBERTA_INPUT_NAMES)
        if config.arch == "roberta"
        else ["input_ids", "token_type_ids", "attention_mask"]
    )
    return out


def model_card(ft: Finetuned, architecture: str, pipeline_task: str | None) -> str:
    """README.md: what the model does, where it comes from, its dev scores and caveats."""
    name, meta = ft.task.name, ft.meta
    scores = meta.get("scores") or {}
    table = "\n".join(f"| {k} | {v:.2f} |" for k, v in sorted(scores.items()) if _num(v))
    notes = TASK_NOTES.get(name, "")
    usage = (
        f'pipe = pipeline("{pipeline_task}", model="PATH")'
        if pipeline_task
        else 'model = AutoModel.from_pretrained("PATH")  # encoder; the head: head.json'
    )
    return f"""---
language: ko
license: {LICENSE}
library_name: transformers
{f"pipeline_tag: {pipeline_task}" if pipeline_task else ""}
tags:
- korean
- klue
- klue-{name}
---

# KLUE-{name.upper()} fine-tuned {ft.config.arch}

`{architecture}` fine-tuned on KLUE-{name.upper()} with the open KLUE pipeline
(`python -m finetune --task {name}`), exported from `{ft.loaded.path}` (step {meta.get("step")})
by `python -m finetune export`. Encoder: {ft.config.num_layers} layers x
{ft.config.hidden_size}, vocabulary {ft.config.vocab_size}, pretrained from
`{meta.get("pretrained")}`.

## Dev scores of the selected checkpoint (KLUE metrics, 0-100)

| metric | value |
|---|---|
{table}

{notes}

## Use

```python
from transformers import pipeline, AutoModel
{usage}
```

## License

Trained on KLUE (CC BY-SA 4.0): released under `{LICENSE}`.
"""


def _num(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


TASK_NOTES = {
    "ner": (
        "## Tags\n\nKLUE-NER is labelled per CHARACTER (one BIO tag for every character of "
        "the sentence, spaces included); this model tags TOKENS. Each token's label is the tag "
        "of its first character (the KLUE baseline's rule). To get KLUE's character tags, give "
        "a token's first non-space character its tag, its other characters `I-<type>` (or `O` "
        "when the token is `O`), and characters no token covers `O`: that is what "
        "`python -m finetune predict` writes (finetune.tasks.ner.char_tags). The "
        "token-classification pipeline's `aggregation_strategy` merges tokens into words "
        "instead, which is not KLUE's scoring unit."
    ),
    "mrc": (
        "## Answers\n\nInput: question first, then the context (`[CLS] question [SEP] context "
        "[SEP]`), as in training. Load it with `AutoModelForQuestionAnswering` (transformers 5 "
        "has no question-answering pipeline; 4.x's accepts the folder). The pipeline's span "
        "search differs from ours in details (answer length limit, windows); `python -m "
        "finetune predict` gives the answers the KLUE scorer expects."
    ),
    "sts": (
        "## Output\n\nOne regression output: the predicted similarity on KLUE's 0-5 scale "
        "(`real-label`). Use the raw logit (`function_to_apply='none'` in the pipeline), not "
        "its sigmoid. KLUE's F1 binarises it at 3."
    ),
    "nli": "## Input\n\nA sentence pair: premise, then hypothesis.",
    "ynat": "## Input\n\nA news headline (the title alone).",
}


def write_export(ft: Finetuned, output_dir: str | os.PathLike, *, overwrite: bool = False) -> Path:
    """Write the transformers folder of ``ft`` (module doc); returns its path."""
    out = Path(output_dir)
    if out.exists() and any(out.iterdir()) and not overwrite:
        raise FileExistsError(f"{out} exists and is not empty (pass --overwrite)")
    name = ft.task.name
    prefix = ARCH_CLASS[ft.config.arch]
    pmap = hf_export.encoder_param_map(ft.model.encoder)
    if name in HEADS:
        suffix, pipeline_task, _ = HEADS[name]
        architecture = f"{prefix}{suffix}"
        if ft.config.arch != "bert":  # transformers' RoBERTa/ELECTRA task models have no pooler
            pmap = [entry for entry in pmap if ".pooler." not in entry[0]]
        pmap = pmap + head_param_map(ft)
    else:
        architecture, pipeline_task = f"{prefix}Model", None
    with hf_export.staged_folder(out) as tmp:
        _write_json(tmp / "config.json", task_hf_config(ft, architecture))
        save_file(state_dict(pmap), str(tmp / "model.safetensors"), {"format": "pt"})
        if pipeline_task is None:
            write_head(ft, tmp)
        ft.loaded.tokenizer.save(str(tmp / "tokenizer.json"))
        _write_json(tmp / "tokenizer_config.json", tokenizer_config(ft))
        (tmp / "README.md").write_text(
            model_card(ft, architecture, pipeline_task), encoding="utf-8"
        )
    return out


def write_head(ft: Finetuned, folder: Path) -> None:
    """``head.safetensors`` (the head's parameters by module path, e.g. ``classifier.kernel``,
    as Flax holds them: kernels ``[in, out]``) and ``head.json`` describing the head."""
    from flax import nnx, traverse_util

    flat = traverse_util.flatten_dict(nnx.to_pure_dict(nnx.state(ft.model.head, nnx.Param)))
    arrays = {
        ".".join(map(str, path)): np.ascontiguousarray(np.asarray(value, np.float32))
        for path, value in flat.items()
    }
    save_file(arrays, str(folder / "head.safetensors"), {"format": "flax"})
    head = type(ft.model.head)
    _write_json(
        folder / "head.json",
        {
            "task": ft.task.name,
            "head_class": f"{head.__module__}.{head.__qualname__}",
            "task_options": dict(getattr(ft.task, "options", ())),
            "encoder": "model.safetensors: the encoder, loadable with transformers AutoModel",
            "inputs": "the encoder's last hidden states [batch, length, hidden] (and the "
            "pooler output when the encoder has one, model.safetensors' pooler.dense), as "
            "finetune.modeling.FinetuneModel passes them",
            "layout": "Flax: dense kernels are [in, out] (the transpose of torch nn.Linear)",
            "parameters": {k: list(v.shape) for k, v in sorted(arrays.items())},
            "load": "python -m finetune predict --task TASK --model BEST_DIR runs this head; "
            "the head's code is the head_class of this repository",
        },
    )


def _write_json(path: Path, data: dict[str, Any]) -> None:
    path.write_text(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m finetune export",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--task", required=True, help="the task the model was fine-tuned on")
    p.add_argument("--model", required=True, help="the best/ folder of a fine-tuning run")
    p.add_argument("--output", required=True, help="folder to write (must be new or empty)")
    p.add_argument("--data-dir", default=None, help="KLUE data (RE and WoS heads need it)")
    p.add_argument("--overwrite", action="store_true", help="replace a non-empty --output")
    args = p.parse_args(argv)

    def work() -> str:
        ft = load_finetuned(args.model, args.task, data_dir=args.data_dir)
        return f"wrote {write_export(ft, args.output, overwrite=args.overwrite)}"

    return report_errors(work)


if __name__ == "__main__":
    sys.exit(main())
