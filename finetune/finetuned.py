"""Load a fine-tuned model back from the ``best/`` folder the trainer writes.

``best/`` (`finetune.trainer._save_best`) holds ``params/`` (orbax: the parameters of the
whole `finetune.modeling.FinetuneModel`, encoder and task head), ``tokenizer.json`` (the
tokenizer the task encoded with, RE's entity markers included) and ``model.json`` (task name,
`pretrain.models.ModelConfig`, special ids, the step and dev scores, and the task's
constructor options). `load_finetuned` rebuilds the task object and the model from them, so
``python -m finetune predict`` and ``python -m finetune export`` use exactly what was
selected on dev. Folders written before ``task_options`` was recorded take the options from
the run's ``config.json`` beside ``best/``.

Errors (no such folder, not a ``best/`` folder, another task's model, a task whose head
needs its training data) raise `FinetunedLoadError` (a ValueError) naming the folder; the
CLIs print it and exit 2.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from tokenizers import Tokenizer

from finetune.modeling import FinetuneModel, LoadedModel
from pretrain.models import ModelConfig

MODEL_JSON = "model.json"
#: Tasks whose head is shaped by what they read from the training data (RE's relation list,
#: WoS's ontology); `load_finetuned` needs ``data_dir`` for them.
DATA_SHAPED_HEADS = ("re", "wos")


class FinetunedLoadError(ValueError):
    """``--model`` is not a usable ``best/`` folder: exit 2."""


@dataclasses.dataclass
class Finetuned:
    """A fine-tuned model: the task object, the NNX model and the encoder's `LoadedModel`."""

    task: Any
    model: FinetuneModel
    loaded: LoadedModel
    meta: dict[str, Any]

    @property
    def config(self) -> ModelConfig:
        return self.loaded.config


def _read_meta(best: Path) -> dict[str, Any]:
    path = best / MODEL_JSON
    if not best.is_dir():
        raise FinetunedLoadError(f"--model {best} does not exist")
    if not path.is_file() or not (best / "params").is_dir():
        raise FinetunedLoadError(
            f"{best} is not a fine-tuned model folder (no {MODEL_JSON} and params/); pass the "
            "best/ folder of a `python -m finetune` run, e.g. OUTPUT/<task>/best"
        )
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise FinetunedLoadError(f"{path}: not valid JSON ({err})") from err


def run_config(best: Path) -> dict[str, Any]:
    """The fine-tuning config of the run ``best/`` belongs to (its ``config.json``'s
    ``config``), or {} when the folder was moved out of its run."""
    path = best.parent / "config.json"
    if not path.is_file():
        return {}
    try:
        return dict(json.loads(path.read_text(encoding="utf-8")).get("config") or {})
    except (json.JSONDecodeError, AttributeError) as err:
        raise FinetunedLoadError(f"{path}: not a fine-tuning run's config.json ({err})") from err


def task_options(best: Path, meta: dict[str, Any]) -> dict[str, Any]:
    """The task's constructor options: ``model.json``'s, else the run's ``config.json``'s."""
    if "task_options" in meta:
        return dict(meta["task_options"])
    return dict(run_config(best).get("task_options") or {})


def load_finetuned(
    path: str | Path, task_name: str | None = None, *, data_dir: str | None = None
) -> Finetuned:
    """The task and the model of a ``best/`` folder (module doc); ``task_name`` must match."""
    from finetune.tasks.base import get_task

    best = Path(path)
    meta = _read_meta(best)
    name = meta.get("task")
    if task_name is not None and name != task_name:
        raise FinetunedLoadError(f"{best} is a fine-tuned {name} model, not {task_name}")
    try:
        task = get_task(name, **task_options(best, meta))
    except (KeyError, TypeError) as err:
        raise FinetunedLoadError(f"{best}: {err}") from err
    if name in DATA_SHAPED_HEADS:
        if data_dir is None:
            raise FinetunedLoadError(
                f"{best}: the {name} head is shaped by the training data; pass --data-dir"
            )
        task.load_splits(data_dir, 0.5)
    config = ModelConfig.from_dict(meta["model_config"]).replace(dtype="float32")
    tokenizer = Tokenizer.from_file(str(best / "tokenizer.json"))
    # Folders written before "pooler" was recorded: only BERT carried one.
    model = _restore(best, config, task, bool(meta.get("pooler", config.arch == "bert")))
    loaded = LoadedModel(
        encoder=model.encoder,
        config=config,
        tokenizer=tokenizer,
        special_ids={k: int(v) for k, v in meta["special_ids"].items()},
        source="finetuned",
        path=best,
        tokenizer_dir=best,
        step=meta.get("step"),
    )
    return Finetuned(task=task, model=model, loaded=loaded, meta=meta)


def _restore(best: Path, config: ModelConfig, task: Any, pooler: bool) -> FinetuneModel:
    """`FinetuneModel` with the parameters of ``best/params`` (on the host).

    The model is built abstractly (`nnx.eval_shape`: no initialisation is computed, only
    shapes), its parameters restored into that structure, its other state (RNG keys) made
    concrete (`pretrain.models.concrete_rest`)."""
    import jax
    import orbax.checkpoint as ocp
    from flax import nnx

    from finetune.pretrained import _host_device
    from pretrain.models import concrete_rest

    def fresh() -> FinetuneModel:
        return FinetuneModel(config, task, add_pooler=pooler, rngs=nnx.Rngs(0))

    with jax.default_device(_host_device()):
        graphdef, abstract, rest = nnx.split(nnx.eval_shape(fresh), nnx.Param, ...)
        target = jax.tree.map(lambda x: jax.ShapeDtypeStruct(x.shape, x.dtype), abstract)
        try:
            with ocp.StandardCheckpointer() as ckptr:
                params = ckptr.restore((best / "params").absolute(), target)
        except (ValueError, KeyError, FileNotFoundError) as err:
            raise FinetunedLoadError(
                f"{best / 'params'}: does not match the model of {MODEL_JSON} ({err})"
            ) from err
        return nnx.merge(graphdef, params, concrete_rest(rest))


def encode_context(loaded: LoadedModel) -> Any:
    """The `EncodeContext` the trainer built for this model (`finetune.trainer.prepare_data`)."""
    from finetune.tasks.base import context_for

    return context_for(loaded.tokenizer, loaded.special_ids, loaded.use_token_types)
