"""The stage commands of a pipeline run, shared by the demo and the ablations.

`corpus_stages`: prepare (training and held-out text), dedup against KLUE, keygen,
pseudonymize. `model_stages`: tokenizer, its held-out statistics, pretraining examples,
pretraining, export with the transformers check. `finetune_stages`: one ``python -m finetune``
per KLUE task. Each function takes the `Runner` and folders and returns the folders it made,
so that arms of an ablation share every stage whose command is the same (same folder).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

from pipeline.stages import Runner, config_file, python_module


@dataclasses.dataclass(frozen=True)
class CorpusFolders:
    """Outputs of the corpus stages: decontaminated (original) and pseudonymised text."""

    original: Path
    clean: Path
    heldout_original: Path
    heldout_clean: Path
    key: Path


@dataclasses.dataclass(frozen=True)
class ModelFolders:
    """Outputs of the model stages of one arm."""

    tokenizer: Path
    tokenizer_stats: Path
    examples: Path
    workdir: Path
    export: Path


@dataclasses.dataclass(frozen=True)
class PretrainSettings:
    """How an arm pretrains (identical across arms of an ablation)."""

    config: str = "pretrain/configs/tiny.py"
    steps: int = 300
    objective: str = "bert"
    max_seq_length: int = 128
    seed: int = 0
    overrides: tuple[str, ...] = ()


def corpus_stages(
    runner: Runner,
    out: Path,
    train: Sequence[str],
    held_out: Sequence[str],
    klue_dir: Path,
    workers: int,
    index_dir: Path | None = None,
) -> CorpusFolders:
    """prepare -> dedup (against ``klue_dir``) -> keygen -> pseudonymize, plus the held-out text.

    The key is generated once into ``out/pseudonym.key`` (mode 0600) and reused by reruns.
    ``index_dir``: the BM25 index of the benchmark (``corpus.dedup --index-dir``; it is
    fingerprinted, so sharing one between runs is safe: a different benchmark rebuilds it)."""
    w = ["--workers", str(workers)]
    held = out / "heldout"
    key = out / "pseudonym.key"
    runner.run("prepare", python_module(
        "corpus.prepare", "--input", *train, "--output", out / "records", *w,
    ), done=out / "records" / ".done")  # fmt: skip
    runner.run("prepare-heldout", python_module(
        "corpus.prepare", "--input", *held_out, "--output", held / "records", *w,
    ), done=held / "records" / ".done")  # fmt: skip
    runner.run("dedup", python_module(
        "corpus.dedup", "--input", out / "records", "--output", out / "decontaminated",
        "--benchmark-dir", klue_dir, *w,
        *(["--index-dir", index_dir] if index_dir else []),
    ), done=out / "decontaminated" / ".done")  # fmt: skip
    runner.run("keygen", python_module(
        "corpus.pseudonymize", "keygen", "--output", key,
    ), done=key)  # fmt: skip
    runner.run("pseudonymize", python_module(
        "corpus.pseudonymize", "--input", out / "decontaminated", "--output", out / "clean",
        "--key-file", key, *w,
    ), done=out / "clean" / ".done")  # fmt: skip
    runner.run("pseudonymize-heldout", python_module(
        "corpus.pseudonymize", "--input", held / "records", "--output", held / "clean",
        "--key-file", key, *w,
    ), done=held / "clean" / ".done")  # fmt: skip
    return CorpusFolders(
        out / "decontaminated", out / "clean", held / "records", held / "clean", key
    )


def model_stages(
    runner: Runner,
    out: Path,
    *,
    corpus: Path,
    held_out: Path,
    heldout_examples: Path,
    method: str,
    vocab: int,
    pretrain: PretrainSettings,
    workers: int,
    tag: str = "",
    random_init: bool = False,
    export: bool = True,
) -> ModelFolders:
    """tokenizer -> stats -> examples (train and held-out) -> pretraining -> export --verify.

    ``tag`` suffixes the stage names (``tokenizer[bpe]``). ``random_init``: one optimiser step
    at learning rate 0, so the exported encoder keeps its initial random weights (the floor
    row of an ablation), through the same commands as a trained arm; it shares the tokenizer
    and examples of the trained model in ``out`` and writes ``workdir-random-init`` and
    ``hf-random-init``. ``export=False`` skips the export (fine-tuning then reads the
    workdir, ``ModelFolders.export`` is the workdir)."""
    w = ["--workers", str(workers)]
    sfx = f"[{tag}]" if tag else ""
    rsfx = f"[{tag}-random-init]" if random_init else sfx
    tok = out / "tokenizer"
    stats = out / "tokenizer_stats.json"
    examples = out / "examples"
    variant = "-random-init" if random_init else ""
    workdir, hf = out / f"workdir{variant}", out / f"hf{variant}"
    runner.run(f"tokenizer{sfx}", python_module(
        "tokenizer.train", "--method", method, "--vocab", vocab, "--input", corpus,
        "--output", tok, "--seed", pretrain.seed, *w,
    ), done=tok / "manifest.json")  # fmt: skip
    runner.run(f"tokenizer-stats{sfx}", python_module(
        "tokenizer.stats", "--tokenizer", tok, "--input", held_out, "--json",
    ), stdout=stats)  # fmt: skip
    for name, src, dest in (
        (f"examples{sfx}", corpus, examples),
        (f"examples-heldout{sfx}", held_out, heldout_examples),
    ):
        runner.run(name, python_module(
            "pretrain.build_data", "--tokenizer", tok, "--input", src, "--output", dest,
            "--objective", pretrain.objective, "--max-seq-length", pretrain.max_seq_length,
            "--seed", pretrain.seed, *w,
        ), done=dest / "manifest.json")  # fmt: skip
    steps = ["--config.num_train_steps=1", "--config.learning_rate=0.0"] if random_init else [
        f"--config.num_train_steps={pretrain.steps}"
    ]  # fmt: skip
    if not random_init and pretrain.steps < 300:
        # The configs log every 10+ steps; a short run logs more often so the report's loss
        # curve has points.
        steps.append(f"--config.log_every_steps={max(1, pretrain.steps // 30)}")
    runner.run(f"pretrain{rsfx}", python_module(
        "pretrain.main", "--config", config_file(pretrain.config), "--workdir", workdir,
        f"--config.data.examples_dir={examples}",
        f"--config.data.eval_examples_dir={heldout_examples}",
        *steps, f"--config.seed={pretrain.seed}", "--config.progress_bar=False",
        *pretrain.overrides,
    ), done=workdir / "metrics.jsonl")  # fmt: skip
    if not export:
        return ModelFolders(tok, stats, examples, workdir, workdir)
    runner.run(f"export{rsfx}", python_module(
        "pretrain.export", "--workdir", workdir, "--output", hf, "--verify", "--overwrite",
    ), done=hf / "model.safetensors")  # fmt: skip
    return ModelFolders(tok, stats, examples, workdir, hf)


def finetune_stages(
    runner: Runner,
    model: Path,
    output: Path,
    klue_dir: Path,
    tasks: Sequence[str],
    config: str,
    overrides: Sequence[str] = (),
    seeds: int = 1,
    tag: str = "",
) -> None:
    """One ``python -m finetune --task T`` per task; a failing task is recorded, not fatal."""
    sfx = f"[{tag}]" if tag else ""
    for task in tasks:
        runner.run(f"finetune-{task}{sfx}", python_module(
            "finetune", "--task", task, "--model", model, "--output", output,
            "--data-dir", klue_dir, "--config", config_file(config), "--seeds", seeds,
            "--config.progress_bar=False", *overrides,
        ), done=output / task / "metrics.json", check=False)  # fmt: skip


#: The pretraining config of a continued arm: its learning rate and schedule suit a released
#: checkpoint (a from-scratch config's rate would undo it); steps and batch are the scale's.
CONTINUE_CONFIG = "pretrain/configs/continue_klue_roberta_base.py"


def continued_stages(
    runner: Runner,
    out: Path,
    *,
    init_from: Path,
    corpus: Path,
    heldout_examples: Path,
    held_out: Path,
    pretrain: PretrainSettings,
    batch_size: int,
    workers: int,
    tag: str = "continued",
) -> ModelFolders:
    """examples (train and held-out) with the checkpoint's own tokenizer -> continued
    pretraining from it (``--config.init_from``): the "continued from a given checkpoint" arm.

    Same corpus, steps, batch, sequence length and seed as the from-scratch arm; the objective
    is the scale's for a BERT checkpoint and ``roberta`` (no NSP head) for a RoBERTa one; the
    learning rate and warmup (6% of the steps) follow `CONTINUE_CONFIG`. Fine-tuning reads the
    workdir (``ModelFolders.export``)."""
    import json

    w = ["--workers", str(workers)]
    sfx = f"[{tag}]"
    model_type = json.loads((init_from / "config.json").read_text(encoding="utf-8"))["model_type"]
    objective = "roberta" if model_type == "roberta" else pretrain.objective
    examples, workdir = out / "examples", out / "workdir"
    for name, src, dest in (
        (f"examples{sfx}", corpus, examples),
        (f"examples-heldout{sfx}", held_out, heldout_examples),
    ):
        runner.run(name, python_module(
            "pretrain.build_data", "--tokenizer", init_from, "--input", src, "--output", dest,
            "--objective", objective, "--max-seq-length", pretrain.max_seq_length,
            "--seed", pretrain.seed, *w,
        ), done=dest / "manifest.json")  # fmt: skip
    runner.run(f"pretrain{sfx}", python_module(
        "pretrain.main", "--config", config_file(CONTINUE_CONFIG), "--workdir", workdir,
        f"--config.init_from={init_from}", f"--config.objective={objective}",
        f"--config.data.examples_dir={examples}",
        f"--config.data.eval_examples_dir={heldout_examples}",
        f"--config.num_train_steps={pretrain.steps}",
        f"--config.warmup_steps={max(1, pretrain.steps * 6 // 100)}",
        f"--config.global_batch_size={batch_size}",
        f"--config.eval_every_steps={pretrain.steps}",
        f"--config.checkpoint_every_steps={pretrain.steps}",
        f"--config.log_every_steps={max(1, min(50, pretrain.steps // 30))}",
        f"--config.seed={pretrain.seed}", "--config.progress_bar=False",
    ), done=workdir / "metrics.jsonl")  # fmt: skip
    return ModelFolders(init_from, out / "tokenizer_stats.json", examples, workdir, workdir)
