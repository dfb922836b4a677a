"""The Task interface every KLUE fine-tuning task implements, its registry and shared helpers.

One trainer (`finetune.trainer`) runs every task; a task module only says what is specific to
it. A task is an object with these members (see `Task` for the exact signatures):

* ``name`` (the KLUE task name of `corpus.klue`, e.g. ``"ynat"``), ``metric_key`` (the name of
  the `finetune.metrics` value that selects the best checkpoint; higher is better) and
  ``extra_tokens`` (tokens the trainer adds to the tokenizer and the embedding matrix before
  encoding, e.g. RE's entity markers; empty for most tasks);
* ``load_splits(data_dir, dev_fraction)`` -> `Splits`: train and dev examples as typed records
  of `corpus.klue`. Use `load_klue_splits`, which applies the missing-train rule below;
* ``encode(examples, tokenizer, max_seq_length, train)`` -> `Features`: NumPy arrays with one
  row per model input (``input_ids``, ``token_type_ids``, ``attention_mask`` and the task's
  targets), plus ``example_index`` mapping every row back to its example (a long MRC context
  or NER sentence may become several rows; a row never belongs to two examples);
* ``make_head(model_config, rngs)`` -> ``nnx.Module``: called as ``head(sequence, pooled,
  batch, deterministic=..., rngs=...)`` with the encoder's ``sequence [B, L, H]`` and
  ``pooled [B, H]`` (None for RoBERTa) and the batch dict; returns a dict of float32 arrays
  whose leading dimension is the batch (the "outputs");
* ``loss(outputs, batch)`` -> ``(loss_sum, count)``: scalars, the loss summed over the real
  rows of the batch and how many there are. Every batch has a float ``weight`` column (1 for a
  real row, 0 for padding added to fill the last batch); rows with weight 0 must contribute
  nothing. The trainer divides the total sum by the total count, so the gradient is exact for
  any split of a batch over devices;
* ``predict(outputs, features, examples)`` -> ``list[dict]``: the prediction objects of
  ``../shared/docs/klue-formats.md`` (one per scored unit of ``examples``), from the NumPy
  ``outputs`` of every feature row in order (padding rows already removed).

Optional: ``needs_pooler`` (default False): the head reads ``pooled``, so the trainer gives an
encoder without a pooler a freshly initialised one (WoS's GRU start, as the baseline).
``program_key()`` -> a hashable tuple of everything of the instance that shapes the
head and the loss. The trainer compiles one program per key and process (`finetune.steps`), so
two instances with equal keys share one. `KlueTask` gives the constructor's options (recorded
by its ``__new__``, defaults filled in); a task without ``program_key`` gets a program of its
own per instance.

Data rule (issue #11). When a task's train split is absent (today STS and NER on the shared
data), `load_klue_splits` splits the DEV set deterministically by a hash of each example's guid:
a ``dev_fraction`` share becomes the evaluation set, the rest the train set, and
``Splits.comparable`` is False with a note saying the result is "not comparable to the paper".
Complete official splits (train and dev present) are used as they are. YNAT's train split may
be the DACON copy (`corpus.klue` reads only its train rows): 36,547 of the official 45,678
titles (DACON moved the other 9,131 to its unlabelled test file), so a model trained on it is
also marked not comparable. No dev split, or no train and no
dev, is a `TaskDataError` (the CLI exits 2).

Encoding helpers shared by the tasks: `EncodeContext` (the tokenizer and its special ids) and
`pack_pair`, which builds ``[CLS] A [SEP] (B [SEP])`` with longest-first truncation, the
separator between A and B being the model tokenizer's own (``</s></s>`` for RoBERTa/XLM-R). This
module is the stable contract between the trainer and the task modules; it knows nothing of
JAX beyond the head's type.
"""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np

NOT_COMPARABLE = "not comparable to the paper"
#: Titles in the official YNAT v1.1 train split (the DACON copy labels only 36,547 of them).
YNAT_OFFICIAL_TRAIN = 45678
#: Columns every `Features` has (the encoder's inputs).
INPUT_KEYS = ("input_ids", "token_type_ids", "attention_mask")


class TaskDataError(ValueError):
    """A task's data cannot be used (no train/dev split, unusable examples): CLI exit 2."""


@dataclasses.dataclass(frozen=True)
class Splits:
    """The examples a run trains and selects on, and whether the result compares with the paper.

    ``train_source`` / ``dev_source`` say where the examples came from (a path, or
    ``"dev split by guid hash"``) for ``metrics.json``.
    """

    train: list[Any]
    dev: list[Any]
    comparable: bool = True
    note: str = ""
    train_source: str = ""
    dev_source: str = ""


@dataclasses.dataclass(frozen=True)
class Features:
    """Encoded examples: ``arrays[k]`` has one row per feature; ``example_index[i]`` is the index
    (into the examples given to ``encode``) of the example row ``i`` came from."""

    arrays: dict[str, np.ndarray]
    example_index: np.ndarray

    def __post_init__(self) -> None:
        n = len(self.example_index)
        for k, v in self.arrays.items():
            if len(v) != n:
                raise ValueError(f"feature column {k!r} has {len(v)} rows, expected {n}")
        missing = [k for k in INPUT_KEYS if k not in self.arrays]
        if missing:
            raise ValueError(f"features lack the encoder inputs {missing}")

    def __len__(self) -> int:
        return len(self.example_index)

    def take(self, rows: np.ndarray) -> Features:
        """The features at ``rows`` (example_index keeps pointing at the same examples)."""
        return Features({k: v[rows] for k, v in self.arrays.items()}, self.example_index[rows])


@dataclasses.dataclass(frozen=True)
class EncodeContext:
    """What a task needs to encode text: a `tokenizers.Tokenizer` and the model's special ids.

    ``use_token_types``: BERT-style segment ids (0 for A, 1 for B); False for RoBERTa (a
    type vocabulary of size 1: every id 0). ``pair_separator``: the special ids between the two
    texts of a pair, as the model's own tokenizer writes them (`pair_separator`): ``[SEP]`` for
    BERT and KLUE-RoBERTa (a BERT tokenizer), ``</s> </s>`` for RoBERTa/XLM-R; None means
    ``(sep_id,)``. Tokenize text with ``tokenizer.encode(text, add_special_tokens=False)`` and
    add the specials with `pack_pair` (build one with `context_for`).
    """

    tokenizer: Any
    cls_id: int
    sep_id: int
    pad_id: int
    use_token_types: bool = True
    pair_separator: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        if self.pair_separator is None:
            object.__setattr__(self, "pair_separator", (self.sep_id,))

    def ids(self, text: str) -> list[int]:
        return list(self.tokenizer.encode(text, add_special_tokens=False).ids)

    def ids_batch(self, texts: Sequence[str]) -> list[list[int]]:
        encs = self.tokenizer.encode_batch(list(texts), add_special_tokens=False)
        return [list(e.ids) for e in encs]


def pair_separator(tokenizer: Any, cls_id: int, sep_id: int) -> tuple[int, ...]:
    """The special ids the tokenizer's post-processor puts between the texts of a pair.

    Read from the tokenizer itself (it encodes a probe pair), so every model gets the layout
    stock ``transformers`` gives it: ``[CLS] A [SEP] B [SEP]`` (BERT, ELECTRA, KLUE-RoBERTa,
    whose tokenizer is a BERT one) or ``<s> A </s></s> B </s>`` (RoBERTa, XLM-R). A tokenizer
    without a post-processor gets BERT's single separator. Other layouts (a pair not framed as
    ``cls ... sep``, as XLNet's) raise ValueError: the tasks' encoders assume that frame.
    """
    if getattr(tokenizer, "post_processor", None) is None:
        return (sep_id,)
    # The probe texts are the [CLS] token itself: every vocabulary has it (a plain word may
    # tokenize to nothing where a BPE has no unknown token), and it keeps its sequence id.
    probe = tokenizer.id_to_token(cls_id)
    enc = tokenizer.encode(probe, probe)
    groups: list[list[int]] = [[]]
    last_seq: int | None = None
    for tid, seq in zip(enc.ids, enc.sequence_ids, strict=True):
        if seq is None:
            groups[-1].append(tid)
        elif seq != last_seq:
            groups.append([])
            last_seq = seq
    if len(groups) != 3 or groups[0] != [cls_id] or groups[2] != [sep_id] or not groups[1]:
        raise ValueError(
            f"the tokenizer frames a pair as {enc.tokens}; only [CLS] A <separator> B [SEP] "
            "layouts (BERT, RoBERTa, XLM-R, ELECTRA) are supported"
        )
    return tuple(groups[1])


def context_for(
    tokenizer: Any, special_ids: Mapping[str, int], use_token_types: bool
) -> EncodeContext:
    """The `EncodeContext` of a model's tokenizer and special ids (``pad``/``cls``/``sep``),
    its pair separator read from the tokenizer (`pair_separator`)."""
    cls_id, sep_id = int(special_ids["cls"]), int(special_ids["sep"])
    return EncodeContext(
        tokenizer=tokenizer,
        cls_id=cls_id,
        sep_id=sep_id,
        pad_id=int(special_ids["pad"]),
        use_token_types=use_token_types,
        pair_separator=pair_separator(tokenizer, cls_id, sep_id),
    )


def truncate_pair(a: list[int], b: list[int] | None, budget: int) -> tuple[list[int], list[int]]:
    """Longest-first truncation (Hugging Face's default): drop from the end of the longer one."""
    a, b = list(a), list(b or [])
    while len(a) + len(b) > budget:
        if len(a) >= len(b):
            a.pop()
        else:
            b.pop()
    return a, b


def pack_pair(
    ctx: EncodeContext, a: list[int], b: list[int] | None, max_seq_length: int
) -> dict[str, np.ndarray]:
    """``[CLS] a [SEP]`` or ``[CLS] a <separator> b [SEP]`` (``ctx.pair_separator``: one
    ``[SEP]`` for BERT, ``</s></s>`` for RoBERTa/XLM-R), truncated longest-first to fit the
    specials, padded to ``max_seq_length``. Returns int32 ``input_ids``, ``token_type_ids``,
    ``attention_mask``; the separator has type 0, ``b`` and the final ``[SEP]`` type 1 (BERT)."""
    middle = list(ctx.pair_separator or (ctx.sep_id,))
    specials = 2 + len(middle) if b is not None else 2
    if max_seq_length <= specials:
        raise ValueError(f"max_seq_length {max_seq_length} leaves no room for text")
    a, b2 = truncate_pair(a, b, max_seq_length - specials)
    ids = [ctx.cls_id, *a] + (middle if b is not None else [ctx.sep_id])
    types = [0] * len(ids)
    if b is not None:
        ids += [*b2, ctx.sep_id]
        types += [1 if ctx.use_token_types else 0] * (len(b2) + 1)
    n = len(ids)
    pad = max_seq_length - n
    return {
        "input_ids": np.asarray(ids + [ctx.pad_id] * pad, np.int32),
        "token_type_ids": np.asarray(types + [0] * pad, np.int32),
        "attention_mask": np.asarray([1] * n + [0] * pad, np.int32),
    }


def stack_rows(rows: Sequence[Mapping[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """``[{k: row}, ...]`` -> ``{k: stacked}`` (at least one row)."""
    if not rows:
        raise ValueError("no rows to stack")
    return {k: np.stack([r[k] for r in rows]) for k in rows[0]}


def guid_bucket(guid: str) -> float:
    """A stable number in [0, 1) from a guid (SHA-256), independent of order and platform."""
    digest = hashlib.sha256(guid.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def split_by_guid(examples: Sequence[Any], dev_fraction: float) -> tuple[list[Any], list[Any]]:
    """(train, dev): an example goes to dev when ``guid_bucket(guid) < dev_fraction``.

    The split depends only on the guids, so it is the same for every model, seed and order.
    """
    if not 0.0 < dev_fraction < 1.0:
        raise ValueError(f"dev_fraction must be in (0, 1), got {dev_fraction}")
    train, dev = [], []
    for ex in examples:
        (dev if guid_bucket(ex.guid) < dev_fraction else train).append(ex)
    return train, dev


def load_klue_splits(task: str, data_dir: str | os.PathLike | None, dev_fraction: float) -> Splits:
    """Train and dev examples of a KLUE task with the missing-train rule (module doc)."""
    from corpus import klue

    try:
        root = klue.resolve_klue_dir(data_dir)
    except FileNotFoundError as e:
        raise TaskDataError(str(e)) from e
    train_src = klue.locate(task, "train", root)
    dev_src = klue.locate(task, "dev", root)
    if dev_src is None:
        raise TaskDataError(
            f"{task}: no dev split under {root} (train: {train_src or 'absent'}); the dev set "
            "is what checkpoints are selected and scored on. Get the data with "
            "`python -m finetune.data download --to DIR` and pass --data-dir DIR"
        )
    dev = klue.load(task, "dev", root)
    if train_src is not None:
        train = klue.load(task, "train", root)
        if not train:
            raise TaskDataError(f"{task}: train split {train_src} has no examples")
        if train_src.startswith("dacon:"):
            note = (
                f"{NOT_COMPARABLE}: {task} train is the DACON copy ({train_src}), "
                f"{len(train)} of the official {YNAT_OFFICIAL_TRAIN} train titles"
            )
            return Splits(train, dev, False, note, train_src, dev_src)
        return Splits(train, dev, True, "", train_src, dev_src)
    train, held = split_by_guid(dev, dev_fraction)
    if not train or not held:
        raise TaskDataError(
            f"{task}: no train split under {root}, and its dev split ({len(dev)} examples) is "
            f"too small to split {1 - dev_fraction:.0%}/{dev_fraction:.0%} by guid hash"
        )
    note = (
        f"{NOT_COMPARABLE}: no {task} train split under {root}; trained on "
        f"{len(train)} and evaluated on {len(held)} dev examples, split by SHA-256 of the guid "
        f"(dev_fraction {dev_fraction})"
    )
    source = f"{dev_src} (split by guid hash)"
    return Splits(train, held, False, note, source, source)


@runtime_checkable
class Task(Protocol):
    """What the trainer needs from a task (the module doc describes each member)."""

    name: str
    metric_key: str
    extra_tokens: tuple[str, ...]

    def load_splits(self, data_dir: str | os.PathLike | None, dev_fraction: float) -> Splits: ...

    def encode(
        self, examples: Sequence[Any], ctx: EncodeContext, max_seq_length: int, train: bool
    ) -> Features: ...

    def make_head(self, model_config: Any, rngs: Any) -> Any: ...

    def loss(self, outputs: Mapping[str, Any], batch: Mapping[str, Any]) -> tuple[Any, Any]: ...

    def predict(
        self, outputs: Mapping[str, np.ndarray], features: Features, examples: Sequence[Any]
    ) -> list[dict[str, Any]]: ...


def frozen_options(options: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    """``options`` as sorted ``(name, value)`` pairs, lists and mappings made tuples: a
    canonical, hashable form (equal options give equal tuples whatever their order)."""

    def freeze(value: Any) -> Any:
        if isinstance(value, Mapping):
            return tuple(sorted((str(k), freeze(v)) for k, v in value.items()))
        if isinstance(value, (list, tuple)):
            return tuple(freeze(v) for v in value)
        return value

    return tuple(sorted((str(k), freeze(v)) for k, v in options.items()))


class KlueTask:
    """Convenience base: ``load_splits`` through `load_klue_splits`, no extra tokens, and
    ``options``/``program_key`` for the trainer's cache of compiled programs.

    ``options`` holds the arguments the instance was constructed with, defaults filled in, in
    the canonical form of `frozen_options`; it is recorded however the task is built
    (`get_task`, a config's ``task_options``, or a direct ``WosTask(gate_input=...)``).
    """

    name: ClassVar[str]
    metric_key: ClassVar[str]
    extra_tokens: tuple[str, ...] = ()
    #: True when the head reads the pooled output: the trainer then gives an encoder without a
    #: pooler a fresh one (`finetune.modeling.with_pooler`).
    needs_pooler: bool = False
    options: tuple[tuple[str, Any], ...] = ()

    def __new__(cls, *args: Any, **kwargs: Any) -> KlueTask:
        if cls.__init__ is object.__init__:
            if args or kwargs:
                raise TypeError(f"{cls.__name__}() takes no arguments")
            return super().__new__(cls)
        bound = inspect.signature(cls.__init__).bind(None, *args, **kwargs)  # TypeError if bad
        bound.apply_defaults()
        given: dict[str, Any] = {}
        for i, (key, value) in enumerate(bound.arguments.items()):
            kind = bound.signature.parameters[key].kind
            if i == 0:  # self
                continue
            if kind is inspect.Parameter.VAR_KEYWORD:
                given.update(value)
            else:
                given[key] = value
        self = super().__new__(cls)
        self.options = frozen_options(given)
        return self

    def program_key(self) -> tuple[Any, ...]:
        """What of this instance shapes the compiled program (`finetune.steps.build_program`
        keys its cache on it): the constructor's options. A task whose head also depends on
        what it read from the data (a label list, a decoding length) adds that."""
        return self.options

    def load_splits(self, data_dir: str | os.PathLike | None, dev_fraction: float) -> Splits:
        return load_klue_splits(self.name, data_dir, dev_fraction)


# ---------------------------------------------------------------------------------------------
# Registry: name -> factory. Task modules register themselves on import; `get_task` imports the
# module that defines a task on first use, so `import finetune.tasks.base` stays light.

_REGISTRY: dict[str, Callable[[], Task]] = {}
#: Task name -> module that registers it.
TASK_MODULES = {
    "ynat": "finetune.tasks.classification",
    "nli": "finetune.tasks.classification",
    "sts": "finetune.tasks.classification",
    "re": "finetune.tasks.re",
    "ner": "finetune.tasks.ner",
    "mrc": "finetune.tasks.mrc",
    "dp": "finetune.tasks.dp",
    "wos": "finetune.tasks.wos",
}
#: The order of ``--task all`` and of the results table (the paper's column order).
ALL_TASKS = ("ynat", "sts", "nli", "ner", "re", "dp", "mrc", "wos")


def register(name: str) -> Callable[[Callable[[], Task]], Callable[[], Task]]:
    """Class/function decorator: ``@register("ynat") class Ynat(KlueTask): ...``."""

    def deco(factory: Callable[[], Task]) -> Callable[[], Task]:
        _REGISTRY[name] = factory
        return factory

    return deco


def get_task(name: str, **options: Any) -> Task:
    """A new instance of the task called ``name`` (imports its module on first use).

    ``options`` go to the task's constructor (a config's ``task_options``, e.g. DP's parser
    sizes); a task that takes none rejects any with a TypeError naming them.
    """
    if name not in _REGISTRY and name in TASK_MODULES:
        import importlib

        importlib.import_module(TASK_MODULES[name])
    if name not in _REGISTRY:
        raise KeyError(f"unknown task {name!r}; one of {', '.join(ALL_TASKS)}")
    try:
        task = _REGISTRY[name](**options)
    except TypeError as e:
        raise TypeError(f"task {name!r} does not take the options {sorted(options)}: {e}") from e
    if not isinstance(task, Task):
        raise TypeError(f"task {name!r} does not implement finetune.tasks.base.Task")
    return task


def registered() -> list[str]:
    return sorted(_REGISTRY)
