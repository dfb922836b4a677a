"""Fine-tunes a BERT/RoBERTa encoder on KLUE tasks: ``python -m finetune --task T --model M ...``.

    python -m finetune --task ynat|sts|nli|ner|re|dp|mrc|wos|all --model DIR --output DIR \\
        [--data-dir DIR] [--config finetune/configs/TASK.py[:tiny]] [--config.FIELD=VALUE ...] \\
        [--preset klue-base|klue-large] [--seeds N]

``--model``: a pretraining workdir (newest checkpoint), a folder of ``python -m
pretrain.export``, or a Hugging Face BERT/RoBERTa/XLM-R/ELECTRA folder. ``--config`` defaults to
``finetune/configs/<task>.py``; with ``--task all`` (or a comma-separated list) each task uses
its own config, and ``--config finetune/configs/common.py[:tiny]`` plus ``--config.FIELD=VALUE``
change the given fields of every task (one task's fields, hyperparameters and options alike:
``--config.by_task.<task>.FIELD=VALUE``, e.g. ``by_task.ner.learning_rate``,
``by_task.re.task_options.representation``). ``--preset klue-base|klue-large``: the
KLUE-baseline run script's settings (default klue-base, what the task configs hold).
``--seeds N`` trains seeds ``seed, seed+1, ...`` and reports their mean and standard
deviation.

Output: ``OUTPUT/<task>/`` (``OUTPUT/<task>/seed_<s>/`` per seed when N > 1) with ``best/``,
``predictions.jsonl``, ``metrics.json``, TensorBoard events; ``OUTPUT/results.json`` and
``OUTPUT/results.md`` (paper column order). Rerunning the same command skips finished tasks
and resumes a killed one. SIGTERM and Ctrl-C save a checkpoint (every host at the same step)
and stop; a second Ctrl-C exits at once. Exit codes (`pretrain.supervision`): 0 done, 75
preempted (saved, not finished: run again), 130 stopped by Ctrl-C (saved), 1 non-finite loss,
2 bad input (model folder, tokenizer, data, config).
"""

from __future__ import annotations

import copy
import importlib
import logging
import sys
from pathlib import Path
from typing import Any

from absl import app, flags
from ml_collections import config_flags

CONFIG_DIR = Path(__file__).resolve().parent / "configs"
FLAGS = flags.FLAGS
config_flags.DEFINE_config_file(
    "config", str(CONFIG_DIR / "common.py"), "config file (finetune/configs/*.py[:tiny])"
)
flags.DEFINE_string(
    "task", None, "ynat, sts, nli, ner, re, dp, mrc, wos, a comma-separated list, or all"
)
flags.DEFINE_string("model", None, "pretraining workdir, export folder or Hugging Face folder")
flags.DEFINE_string("output", None, "output folder (one subfolder per task)")
flags.DEFINE_string(
    "data_dir",
    None,
    "data folder, the parent of klue/ as for every command (the klue/ folder itself is "
    "accepted; default: corpus.datadir's search)",
)
flags.DEFINE_enum(
    "preset",
    "klue-base",
    ["klue-base", "klue-large"],
    "the KLUE-baseline run script's settings for base or large models (configs/presets.py)",
)
flags.DEFINE_integer("seeds", 1, "number of seeds (config seed, seed+1, ...)")
flags.mark_flags_as_required(["task", "model", "output"])


class UsageError(ValueError):
    """Bad command line or config: exit 2."""


def task_names(spec: str) -> list[str]:
    from finetune.tasks.base import ALL_TASKS

    names = list(ALL_TASKS) if spec == "all" else [t.strip() for t in spec.split(",") if t]
    unknown = [t for t in names if t not in ALL_TASKS]
    if unknown or not names:
        raise UsageError(f"--task {spec!r}: unknown {unknown}; use {', '.join(ALL_TASKS)} or all")
    return names


def _flat(d: Any, prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in d.items():
        if hasattr(v, "items"):
            out.update(_flat(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def _set(cfg: Any, dotted: str, value: Any) -> None:
    *parents, leaf = dotted.split(".")
    for p in parents:
        cfg = cfg[p]
    cfg[leaf] = value


def _changes(cfg: Any, default: Any, explicit: set[str], prefix: str = "") -> dict[str, Any]:
    """Flat fields of ``cfg`` that differ from ``default`` or were set on the command line
    (``explicit``: flat keys as given, with ``prefix``); ``task`` and `common.BY_TASK` left out."""
    from finetune.configs import common

    base = _flat(default.to_dict())
    out = {}
    for key, value in _flat(cfg.to_dict()).items():
        if key == "task" or key.startswith(f"{common.BY_TASK}."):
            continue
        if base.get(key) != value or f"{prefix}{key}" in explicit:
            out[key] = value
    return out


def task_config(
    task: str, base: Any, overrides: dict[str, Any] | None = None, preset: str = ""
) -> Any:
    """The config of ``task``, in layers: the task's config file; the ``preset`` (its line of
    the baseline's run script, `presets.preset_fields`); the fields the user changed in
    ``base`` (its differences from the file it came from, plus every field set on the command
    line in ``overrides``, flat ``a.b`` keys, even when it equals the default:
    ``--config.max_seq_length=128`` must reach RE, whose own 256 differs); and, when ``base`` is
    the common config, the fields changed under ``by_task.<task>`` (that task only, last)."""
    from finetune.configs import common, presets

    path = CONFIG_DIR / f"{task}.py"
    if not path.is_file():
        raise UsageError(f"no config for task {task!r} ({path})")
    if base.task and base.task != task:
        raise UsageError(
            f"--config is the config of task {base.task!r}, not {task!r}; with several tasks "
            "use finetune/configs/common.py[:tiny] (applied to every task's own config)"
        )
    explicit = set(overrides or {})
    cfg = importlib.import_module(f"finetune.configs.{task}").get_config()
    if base.task == task:
        changes = _changes(base, cfg, explicit)
    else:
        changes = _changes(base, common.base_config(), explicit)
        by_task = base.get(common.BY_TASK, {}).get(task)
        if by_task is not None:
            prefix = f"{common.BY_TASK}.{task}."
            changes.update(_changes(by_task, common.task_defaults(task), explicit, prefix))
    if preset:
        try:
            cfg.update(presets.preset_fields(preset, task))
        except ValueError as e:
            raise UsageError(f"--preset: {e}") from e
    for key, value in changes.items():
        _set(cfg, key, value)
    return cfg


def make_task(name: str, cfg: Any) -> Any:
    """The task object, with the config's ``task_options`` (if any) as constructor arguments."""
    from finetune.tasks.base import get_task

    options = cfg.get("task_options")
    return get_task(name, **(options.to_dict() if options is not None else {}))


def load_all_splits(
    tasks: list[str], configs: dict[str, Any], data_dir: str | None, skip_missing: bool
) -> tuple[dict[str, Any], dict[str, str], dict[str, Any]]:
    """Every task's splits before any training, so that missing data fails fast.

    Returns (splits, skipped, task objects). The task object that loaded the splits is the one
    that trains on them: a task may keep what it read beside them (WoS its ontology, RE its
    relation list). With ``skip_missing`` (``--task all``) a task without data is left out with
    its reason; otherwise its `TaskDataError` propagates (exit 2).
    """
    from finetune.tasks.base import TaskDataError

    splits, skipped, objects = {}, {}, {}
    for name in tasks:
        try:
            task = make_task(name, configs[name])
            splits[name] = task.load_splits(data_dir, float(configs[name].dev_fraction))
            objects[name] = task
        except (TaskDataError, FileNotFoundError) as e:
            if not skip_missing:
                raise
            skipped[name] = str(e)
            logging.warning("%s skipped: %s", name, e)
    if not splits:
        raise TaskDataError(
            "no task has data: " + "; ".join(f"{k}: {v}" for k, v in skipped.items())
        )
    return splits, skipped, objects


def run_all(
    base: Any,
    tasks: list[str],
    model: str,
    output: Path,
    data_dir: str | None,
    seeds: int,
    skip_missing: bool = False,
    overrides: dict[str, Any] | None = None,
    preset: str = "",
) -> int:
    """Loads the model once, fine-tunes every task and seed, writes the results table.

    ``overrides``: the ``--config.FIELD=VALUE`` values given on the command line (flat keys);
    ``preset``: ``klue-base`` or ``klue-large`` (`task_config`)."""
    from finetune import modeling, results, trainer

    configs = {t: task_config(t, base, overrides, preset) for t in tasks}  # config errors first
    splits, skipped, objects = load_all_splits(tasks, configs, data_dir, skip_missing)
    pre = modeling.load_pretrained(model)
    logging.info("model: %s", pre.describe())
    summaries: dict[str, Any] = {}
    for name in tasks:
        if name in skipped:
            continue
        cfg = configs[name]
        runs = []
        for i in range(seeds):
            seed_cfg = copy.deepcopy(cfg)
            seed_cfg.seed = int(cfg.seed) + i
            out = output / name if seeds == 1 else output / name / f"seed_{seed_cfg.seed}"
            run = trainer.run_task(seed_cfg, objects[name], pre, out, data_dir, splits[name])
            if run.get("stopped"):
                logging.warning("%s %s: rerun the command to resume", name, run["stopped"])
                return run["exit_code"]
            runs.append(run)
        summaries[name] = results.summarize_seeds(runs)
        if seeds > 1:
            from pretrain.storage import write_json

            write_json(output / name / "metrics.json", summaries[name])
        logging.info("%s: %s", name, summaries[name]["mean"])
    import jax

    if jax.process_index() == 0:
        results.write_results(output, summaries, skipped)
        print(results.results_markdown(summaries, skipped))
    return 0


def main(argv: list[str]) -> int:
    if len(argv) > 1:
        raise app.UsageError(f"unexpected arguments: {argv[1:]}")
    base = FLAGS.config
    from pretrain import sharding

    sharding.maybe_initialize_distributed(base.distributed)
    from pretrain.metric_log import log_info_without_library_chatter

    log_info_without_library_chatter()

    from corpus.textio import InputError
    from finetune import modeling
    from finetune.tasks.base import TaskDataError
    from pretrain.train import NonFiniteLossError

    bad_input: tuple[type[BaseException], ...] = (
        UsageError,
        modeling.ModelLoadError,
        TaskDataError,
        InputError,
        FileNotFoundError,
    )
    try:
        if FLAGS.seeds < 1:
            raise UsageError(f"--seeds must be >= 1, got {FLAGS.seeds}")
        tasks = task_names(FLAGS.task)
        return run_all(
            base,
            tasks,
            FLAGS.model,
            Path(FLAGS.output),
            klue_folder(FLAGS.data_dir),
            FLAGS.seeds,
            skip_missing=FLAGS.task == "all",
            overrides=config_flags.get_override_values(FLAGS["config"]),
            preset=FLAGS.preset,
        )
    except NonFiniteLossError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except bad_input as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


USAGE = (
    "usage: python -m finetune --task ynat|sts|nli|ner|re|dp|mrc|wos|all --model DIR "
    "--output DIR [--data-dir DIR] [--config FILE[:tiny]] [--config.FIELD=VALUE ...] "
    "[--preset klue-base|klue-large] [--seeds N]"
)


def klue_folder(data_dir: str | None) -> str | None:
    """The KLUE folder of ``--data-dir`` (its ``klue/``, or the folder itself: the older form,
    accepted with a note); None keeps `corpus.datadir`'s search."""
    if not data_dir:
        return None
    from corpus.datadir import klue_dir

    return str(klue_dir(data_dir))


def task_options_help() -> str:
    """Each task's own options (its config's ``task_options``) with their defaults, read from
    the configs so the help cannot drift from them."""
    from finetune.tasks.base import ALL_TASKS

    lines = [
        "task options (one task: --config.task_options.OPTION=VALUE; several: "
        "--config.by_task.TASK.task_options.OPTION=VALUE):"
    ]
    for task in ALL_TASKS:
        cfg = importlib.import_module(f"finetune.configs.{task}").get_config()
        options = cfg.get("task_options")
        if options:
            pairs = ", ".join(f"{k}={v!r}" for k, v in options.to_dict().items())
            lines.append(f"  {task}: {pairs}")
    lines.append("  (details: finetune/configs/TASK.py; DP and WoS in docs/finetune_structured.md)")
    return "\n".join(lines)


def _normalise_argv(argv: list[str]) -> list[str]:
    """``--data-dir`` (as the issue spells it) is absl's ``--data_dir``."""
    return [
        ("--data_dir" + a[len("--data-dir") :]) if a.startswith("--data-dir") else a for a in argv
    ]


def run(argv: list[str] | None = None) -> None:
    argv = _normalise_argv(list(sys.argv if argv is None else argv))
    if any(a in ("-h", "--help", "--helpshort") for a in argv[1:]):
        # absl exits with status 1 after --help; answer it ourselves with status 0.
        print(USAGE)
        print(__doc__)
        print(task_options_help())
        print()
        print("Every config field can be overridden with --config.FIELD=VALUE; see")
        print("finetune/configs/common.py and docs/finetune.md.")
        sys.exit(0)
    try:
        app.run(lambda a: sys.exit(main(a)), argv=argv)
    except KeyboardInterrupt:  # Ctrl-C outside a task's training loop: nothing to save
        print("Ctrl-C: stopped (finished tasks are kept; rerun to go on)", file=sys.stderr)
        sys.exit(130)


if __name__ == "__main__":
    run()
