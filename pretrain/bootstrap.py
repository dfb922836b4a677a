"""Which examples a run trains on, their loaders, and the zero-setup data of ``tiny``.

`resolve_data(config, workdir)` turns the ``config.data`` fields into a `DataSpec`:

1. ``data.synthetic``: random batches of the right shapes (benchmarks, tests);
2. ``data.examples_dir``: examples built by ``python -m pretrain.build_data``
   (their manifest gives objective, sequence length and vocabulary size);
3. ``data.bootstrap.enabled`` (the tiny config) and no examples given: build a
   small tokenizer with `tokenizer.train.train_tokenizer` and examples with
   `pretrain.build_data.build_examples`, from a few Korean Wikipedia files of the
   shared corpus (`corpus.datadir.resolve_data_dir()` / ``corpus/kowiki``), with
   one more file held out for evaluation; or, when no data directory exists, from
   ``pretrain/tiny_corpus.txt`` (sentences written for this repository).

`make_loader(config, spec)` then gives the host's loader (the input pipeline's, or
`SyntheticLoader`), and `batches_from(loader, step)` the batches from a step on.

Bootstrap output is cached under ``$KLUE_PRETRAIN_CACHE``, else
``$XDG_CACHE_HOME/klue-pretrain`` or ``~/.cache/klue-pretrain``, in a folder
named by a hash of the inputs (paths, sizes, SHA-256) and the build settings,
so a second run (or a test) reuses it. The folder is built under a temporary
name and renamed when complete: an interrupted build is never reused.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import logging
import os
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import jax
import numpy as np

from pretrain import storage
from pretrain.masking import SPECIAL_TOKENS

BOOTSTRAP_VERSION = 1
TINY_CORPUS = Path(__file__).with_name("tiny_corpus.txt")
BATCH_KEYS = (
    "input_ids",
    "token_type_ids",
    "attention_mask",
    "masked_positions",
    "masked_ids",
    "masked_weights",
    "nsp_labels",
)
NO_DATA_MESSAGE = (
    "no pretraining data configured: pass --config.data.examples_dir=DIR (built with "
    "`python -m pretrain.build_data`), or --config.data.synthetic=True for random batches"
)


def data_config_error(cfg: Mapping[str, Any]) -> str | None:
    """Why ``cfg.data`` cannot give training data, before any JAX work; None when it can.

    A missing ``--config.data.examples_dir`` (with no bootstrap and no synthetic data) or a
    local examples folder that does not exist: the message names the flag to pass.
    """
    data = cfg["data"]
    if data["synthetic"]:
        return None
    examples_dir = data["examples_dir"]
    if not examples_dir:
        return None if data["bootstrap"]["enabled"] else NO_DATA_MESSAGE
    for key in ("examples_dir", "eval_examples_dir"):
        path = data[key]
        if path and "://" not in str(path) and not (Path(path) / "manifest.json").is_file():
            return (
                f"--config.data.{key}={path} holds no examples (no manifest.json): build them "
                "with `python -m pretrain.build_data --output DIR`"
            )
    return None


@dataclasses.dataclass(frozen=True)
class DataSpec:
    """What the trainer needs to know about its examples."""

    objective: str
    max_seq_length: int
    max_predictions_per_seq: int
    vocab_size: int
    examples_dir: str | None = None
    eval_examples_dir: str | None = None
    tokenizer_dir: str | None = None
    synthetic: bool = False
    # (token, id) of the special tokens of the tokenizer the examples were built with.
    special_ids: tuple[tuple[str, int | None], ...] = ()

    @property
    def has_eval(self) -> bool:
        return self.synthetic or bool(self.eval_examples_dir)


def _max_predictions(cfg_value: int, seq_len: int) -> int:
    from pretrain.masking import default_max_predictions

    return int(cfg_value) if int(cfg_value) > 0 else default_max_predictions(seq_len)


def resolve_data(cfg: Mapping[str, Any], workdir: str | os.PathLike) -> DataSpec:
    """The `DataSpec` for ``cfg.data`` (building the tiny bootstrap set when asked)."""
    from pretrain import models

    data = cfg["data"]
    objective = str(cfg["objective"])
    if data["synthetic"]:
        seq_len = int(data["max_seq_length"])
        return DataSpec(
            objective=objective,
            max_seq_length=seq_len,
            max_predictions_per_seq=_max_predictions(data["max_predictions_per_seq"], seq_len),
            vocab_size=models.PRESETS[cfg["model"]].vocab_size,
            tokenizer_dir=data["tokenizer_dir"] or None,
            synthetic=True,
            special_ids=tuple((t, i) for i, t in enumerate(SPECIAL_TOKENS)),
        )
    examples_dir = data["examples_dir"]
    eval_dir = data["eval_examples_dir"]
    tokenizer_dir = data["tokenizer_dir"]
    if not examples_dir:
        if not data["bootstrap"]["enabled"]:
            raise FileNotFoundError(NO_DATA_MESSAGE)
        built = build_bootstrap(cfg)
        examples_dir, eval_dir = built["examples_dir"], built["eval_examples_dir"]
        tokenizer_dir = tokenizer_dir or built["tokenizer_dir"]
    return examples_spec(examples_dir, eval_dir, tokenizer_dir, objective, data)


def examples_spec(
    examples_dir: str,
    eval_dir: str | None,
    tokenizer_dir: str | None,
    objective: str,
    data: Mapping[str, Any],
) -> DataSpec:
    from pretrain import input_pipeline

    manifest = input_pipeline.examples_manifest(examples_dir)
    tokenizer_dir = tokenizer_dir or _examples_tokenizer(examples_dir)
    if manifest["objective"] != objective:
        raise ValueError(
            f"{examples_dir} holds {manifest['objective']} examples but the config trains "
            f"objective {objective!r}: set --config.objective or use other examples"
        )
    if eval_dir:
        other = input_pipeline.examples_manifest(eval_dir)
        for key in ("objective", "max_seq_length", "vocab_size"):
            if other[key] != manifest[key]:
                raise ValueError(f"{eval_dir} differs from {examples_dir} in {key}")
    seq_len = int(manifest["max_seq_length"])
    if int(data["max_predictions_per_seq"]) > 0:
        max_pred = int(data["max_predictions_per_seq"])
    elif objective == "bert":
        max_pred = int(manifest["max_predictions_per_seq"])
    else:
        max_pred = _max_predictions(0, seq_len)
    return DataSpec(
        objective=objective,
        max_seq_length=seq_len,
        max_predictions_per_seq=max_pred,
        vocab_size=int(manifest["vocab_size"]),
        examples_dir=storage.absolute(examples_dir),
        eval_examples_dir=storage.absolute(eval_dir) if eval_dir else None,
        tokenizer_dir=storage.absolute(tokenizer_dir) if tokenizer_dir else None,
        special_ids=tuple(sorted(dict(manifest.get("special_ids") or {}).items())),
    )


def _examples_tokenizer(examples_dir: str) -> str | None:
    """The tokenizer copy that `pretrain.build_data` keeps in the examples folder, if any."""
    path = storage.path(examples_dir) / "tokenizer"
    return str(path) if (path / "tokenizer.json").exists() else None


# ---------------------------------------------------------------------------------------------
# Bootstrap build


def cache_root(explicit: str = "") -> Path:
    if explicit:
        return Path(explicit)
    if os.environ.get("KLUE_PRETRAIN_CACHE"):
        return Path(os.environ["KLUE_PRETRAIN_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "klue-pretrain"


def local_folder(folder: str | os.PathLike, cache_dir: str = "") -> str:
    """``folder`` when it is local; for ``gs://``, a checked copy under the cache root
    (`pretrain.storage.local_copy`), made once per host: what the ArrayRecord reader needs."""
    return storage.local_copy(folder, cache_root(cache_dir) / "remote")


def bootstrap_inputs(num_files: int) -> tuple[list[str], list[str], str]:
    """(train files, held-out files, description): kowiki files, else the repo's tiny corpus."""
    from corpus.datadir import resolve_data_dir

    try:
        kowiki = resolve_data_dir() / "corpus" / "kowiki"
    except FileNotFoundError:
        kowiki = None
    if kowiki is not None and kowiki.is_dir():
        files = sorted(str(p) for p in kowiki.rglob("wiki_*") if p.is_file())
        if len(files) >= num_files + 1:
            return files[:num_files], [files[num_files]], f"{kowiki} ({num_files}+1 files)"
    return [str(TINY_CORPUS)], [], f"{TINY_CORPUS.name} (no corpus/kowiki found)"


def _sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _split_tiny_corpus(folder: Path) -> tuple[str, str]:
    """Documents (lines) of the tiny corpus: every 10th held out for evaluation."""
    lines = [ln for ln in TINY_CORPUS.read_text(encoding="utf-8").splitlines() if ln.strip()]
    train = [ln for i, ln in enumerate(lines) if i % 10 != 9]
    held = [ln for i, ln in enumerate(lines) if i % 10 == 9]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "train.txt").write_text("".join(ln + "\n" for ln in train), encoding="utf-8")
    (folder / "heldout.txt").write_text("".join(ln + "\n" for ln in held), encoding="utf-8")
    return str(folder / "train.txt"), str(folder / "heldout.txt")


def build_bootstrap(cfg: Mapping[str, Any]) -> dict[str, str]:
    """Builds (once, cached) a tokenizer, train examples and held-out examples for ``cfg``."""
    data = cfg["data"]
    boot = data["bootstrap"]
    objective = str(cfg["objective"])
    seq_len = int(data["max_seq_length"])
    vocab = int(boot["vocab_size"])
    train_files, held_files, described = bootstrap_inputs(int(boot["num_files"]))
    if held_files:
        # Characters seen fewer than 20 times become [UNK]: keeps the alphabet (each character
        # twice, plain and ##) well under a small vocabulary.
        tok_args = {"vocab_size": vocab, "min_char_count": 20, "min_frequency": 2}
    else:
        # A few hundred sentences: keep every character; 1,500 entries is what they support.
        tok_args = {"vocab_size": min(vocab, 1500), "min_char_count": 1, "min_frequency": 1}
    settings = {
        "version": BOOTSTRAP_VERSION,
        "objective": objective,
        "max_seq_length": seq_len,
        "tokenizer": tok_args,
        "seed": int(cfg["seed"]),
        "inputs": [
            {"path": p, "bytes": os.path.getsize(p), "sha256": _sha256(p)}
            for p in train_files + held_files
        ],
    }
    key = hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:16]
    root = cache_root(boot["cache_dir"])
    final = root / f"bootstrap-{key}"
    result = {
        "tokenizer_dir": str(final / "tokenizer"),
        "examples_dir": str(final / "examples"),
        "eval_examples_dir": str(final / "eval_examples"),
    }
    if (final / "bootstrap.json").is_file():
        logging.info("bootstrap data: reusing %s", final)
        return result

    logging.info(
        "bootstrap data: building a %d-piece tokenizer and examples from %s",
        tok_args["vocab_size"],
        described,
    )
    root.mkdir(parents=True, exist_ok=True)
    tmp = root / f".bootstrap-{key}.tmp-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    if not held_files:
        train_txt, held_txt = _split_tiny_corpus(tmp / "text")
        train_files, held_files = [train_txt], [held_txt]
    _train_tokenizer(train_files, tmp / "tokenizer", int(cfg["seed"]), tok_args)
    from pretrain.build_data import build_examples

    common = dict(
        objective=objective,
        max_seq_length=seq_len,
        seed=int(cfg["seed"]),
        workers=1,
        dupe_factor=2,
        log=logging.info,
    )
    build_examples(tmp / "tokenizer", train_files, tmp / "examples", **common)
    build_examples(tmp / "tokenizer", held_files, tmp / "eval_examples", **common)
    (tmp / "bootstrap.json").write_text(json.dumps(settings, indent=1, ensure_ascii=False) + "\n")
    try:
        os.replace(tmp, final)
    except OSError:  # another process finished first: use its (identical) folder
        shutil.rmtree(tmp, ignore_errors=True)
    if not (final / "bootstrap.json").is_file():
        raise RuntimeError(f"bootstrap build did not produce {final}")
    logging.info("bootstrap data: ready in %s", final)
    return result


def _train_tokenizer(files: list[str], output: Path, seed: int, tok_args: dict) -> None:
    from tokenizer.train import train_tokenizer

    train_tokenizer(files, output, seed=seed, workers=1, **tok_args)


# ---------------------------------------------------------------------------------------------
# Loaders


class SyntheticLoader:
    """Random batches with the loader's shapes (tests, benchmarks): batch k from (seed, k) only.

    The global batch is drawn whole and each host keeps its rows, so the data do
    not depend on how many hosts or devices share the work.
    """

    def __init__(
        self,
        *,
        seed: int,
        global_batch_size: int,
        seq_len: int,
        max_predictions: int,
        vocab_size: int,
        objective: str,
        process_index: int = 0,
        process_count: int = 1,
    ) -> None:
        from pretrain import input_pipeline

        self._make = input_pipeline.synthetic_batch
        self.seed, self.global_batch_size = seed, global_batch_size
        self.seq_len, self.max_predictions = seq_len, max_predictions
        self.vocab_size, self.objective = vocab_size, objective
        self.rows = global_batch_size // process_count
        self.start = process_index * self.rows

    def batch(self, step: int) -> dict[str, np.ndarray]:
        seed = int(np.random.SeedSequence([self.seed, step]).generate_state(1)[0])
        full = self._make(
            seed,
            self.global_batch_size,
            self.seq_len,
            self.max_predictions,
            self.vocab_size,
            self.objective,
        )
        return {k: np.asarray(full[k][self.start : self.start + self.rows]) for k in BATCH_KEYS}


def make_loader(cfg: Mapping[str, Any], data: DataSpec, *, eval_split: bool = False) -> Any:
    """The host's loader for the train (or held-out) examples described by ``data``."""
    seed = int(cfg["seed"]) + (7919 if eval_split else 0)
    if data.synthetic:
        return SyntheticLoader(
            seed=seed,
            global_batch_size=int(cfg["global_batch_size"]),
            seq_len=data.max_seq_length,
            max_predictions=data.max_predictions_per_seq,
            vocab_size=data.vocab_size,
            objective=data.objective,
            process_index=jax.process_index(),
            process_count=jax.process_count(),
        )
    from pretrain import input_pipeline

    return input_pipeline.make_loader(
        data.eval_examples_dir if eval_split else data.examples_dir,
        global_batch_size=int(cfg["global_batch_size"]),
        seed=seed,
        process_index=jax.process_index(),
        process_count=jax.process_count(),
        max_predictions_per_seq=data.max_predictions_per_seq,
        prefetch=int(cfg["data"].get("prefetch", 2)),
        num_workers=int(cfg["data"].get("loader_workers", 0)),
    )


def batches_from(loader: Any, start: int) -> Iterator[dict[str, np.ndarray]]:
    """Host batches ``start, start+1, ...``: the loader's prefetching iterator when it has one."""
    if hasattr(loader, "iter_from"):
        return loader.iter_from(start)
    return (loader.batch(step) for step in itertools.count(start))
