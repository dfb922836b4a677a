"""Pretrains a BERT or RoBERTa model: ``python -m pretrain.main --config CONFIG --workdir DIR``.

Thin on purpose (Flax-examples style): flags in, `train.train_and_evaluate` out.
Any config field can be overridden, e.g.::

    python -m pretrain.main --config pretrain/configs/tiny.py --workdir runs/tiny \\
        --config.num_train_steps=500 --config.learning_rate=5e-4

Running the same command again resumes from the newest checkpoint in DIR. SIGTERM and Ctrl-C
(SIGINT) save one checkpoint (on several hosts, every host at the same step) and stop; a second
Ctrl-C exits at once. Exit codes (`pretrain.supervision`): 0 done; 75 preempted (SIGTERM, or a
signal on another host: saved, not finished, run again); 130 stopped by Ctrl-C (saved, not
finished); 1 non-finite loss; 2 no training data configured, or a config that contradicts the
examples or the init_from folder (one line naming the flag); 3 hung (the watchdog found no
finished step for too long).
"""

from __future__ import annotations

import logging
import sys

from absl import app, flags
from ml_collections import config_flags

FLAGS = flags.FLAGS
config_flags.DEFINE_config_file("config", None, "experiment config file (pretrain/configs/*.py)")
flags.DEFINE_string("workdir", None, "run folder: checkpoints, TensorBoard events, metrics")
flags.mark_flags_as_required(["config", "workdir"])


def main(argv: list[str]) -> int:
    if len(argv) > 1:
        raise app.UsageError(f"unexpected arguments: {argv[1:]}")
    cfg = FLAGS.config
    from pretrain.bootstrap import data_config_error

    problem = data_config_error(cfg)
    if problem:  # a message naming the flag, not a traceback after JAX start-up
        print(f"error: {problem}", file=sys.stderr)
        return 2
    # Before any other JAX call: multi-host start-up when configured or detected.
    from pretrain import sharding

    sharding.maybe_initialize_distributed(cfg.distributed)

    from pretrain import supervision, train

    # SIGTERM and SIGINT from here on are a save-and-stop request, kept until the process
    # exits: a signal during compilation is acted on at the first step, and one that arrives
    # after the save (another host's late signal) cannot kill the process mid-shutdown.
    # Installed after jax.distributed.initialize, whose own SIGTERM listener would otherwise
    # replace it.
    preemption = supervision.PreemptionWatcher().install()
    train.use_compilation_cache(cfg.get("compilation_cache_dir", ""))

    from pretrain.metric_log import log_info_without_library_chatter

    log_info_without_library_chatter()
    try:
        summary = train.train_and_evaluate(cfg, FLAGS.workdir, preemption=preemption)
    except supervision.SetupError as e:  # examples, model and init_from disagree: say which
        print(f"error: {e}", file=sys.stderr)
        return 2
    except train.NonFiniteLossError as e:
        logging.error("%s", e)
        print(f"error: {e}", file=sys.stderr)
        return 1
    how = preemption.stop_reason(summary["stopped"])
    if how == "done":
        logging.info("finished: %s", summary)
    else:  # saved at this step, not finished: the next run continues from it
        logging.info(
            "%s at step %d (saved; rerun the same command to resume)", how, summary["step"]
        )
    _quiet_exit()
    return preemption.exit_code(summary["stopped"])


def _quiet_exit() -> None:
    """The run is saved and over: shut the distributed client down now (JAX's own SIGTERM
    listener goes with it and can leave the default action behind), then ignore SIGTERM, so
    another host's late signal cannot turn this clean exit into status -15."""
    import signal

    import jax

    if jax.process_count() > 1:
        jax.distributed.shutdown()
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


USAGE = (
    "usage: python -m pretrain.main --config pretrain/configs/NAME.py --workdir DIR "
    "[--config.FIELD=VALUE ...]"
)


def run() -> None:
    if any(a in ("-h", "--help", "--helpshort") for a in sys.argv[1:]):
        # absl exits with status 1 after --help; answer it ourselves with status 0.
        print(USAGE)
        print(__doc__)
        print("Every field of the config file can be overridden with --config.FIELD=VALUE")
        print("(nested: --config.data.examples_dir=DIR); see pretrain/configs/default.py.")
        print("\n" + FLAGS.main_module_help())
        sys.exit(0)
    try:
        app.run(lambda argv: sys.exit(main(argv)))
    except KeyboardInterrupt:  # Ctrl-C before the save-and-stop handler was installed
        print("Ctrl-C before training started: nothing to save", file=sys.stderr)
        sys.exit(130)


if __name__ == "__main__":
    run()
