"""Fields shared by every pretraining config, with the KLUE paper's optimiser defaults.

Not meant to be run directly; each size config starts from `get_config()` here
and changes what differs. Every field can be overridden on the command line
(``--config.learning_rate=5e-5``).
"""

from __future__ import annotations

import ml_collections


def get_config() -> ml_collections.ConfigDict:
    c = ml_collections.ConfigDict()
    c.model = "bert-base"  # a key of pretrain.models.PRESETS
    # ModelConfig fields to change; "" or a negative number keeps the preset's value. Other
    # ModelConfig fields may be added here in a config file.
    c.model_overrides = ml_collections.ConfigDict(
        {
            "dtype": "",
            "hidden_dropout": -1.0,
            "attention_dropout": -1.0,
            # Memory levers (docs/pretrain_model.md#memory): recompute each layer in the
            # backward pass under a named policy (pretrain.models.REMAT_POLICIES), and run
            # the layers as one lax.scan (compile time independent of depth).
            "remat": False,
            "remat_policy": "",  # "" keeps "nothing_saveable"
            "scan_layers": False,
        }
    )
    # "xla" (einsum, float32 scores) or "fused" (jax.nn.dot_product_attention: cuDNN flash
    # attention on GPUs in bf16); "fused" needs --config.model_overrides.attention_dropout=0.
    c.attention = "xla"
    c.objective = "bert"  # "bert" (MLM + NSP) or "roberta" (MLM); must match the examples

    c.data = ml_collections.ConfigDict()
    c.data.examples_dir = ""  # built by `python -m pretrain.build_data`
    c.data.eval_examples_dir = ""  # held-out examples (other documents), optional
    c.data.tokenizer_dir = ""  # copied into the export; default: from the examples manifest
    c.data.prefetch = 2  # host batches built ahead of the device (loader threads)
    c.data.loader_workers = 0  # loader worker threads (>0 for large batches; see input_pipeline)
    c.data.synthetic = False  # random batches of the right shapes (benchmarks, tests)
    c.data.max_seq_length = 512  # synthetic/bootstrap only; real examples carry their own
    c.data.max_predictions_per_seq = 0  # 0: ceil(0.15 * max_seq_length) (77 for 512)
    c.data.bootstrap = ml_collections.ConfigDict()
    c.data.bootstrap.enabled = False  # tiny only: build tokenizer+examples when none given
    c.data.bootstrap.num_files = 3  # kowiki files for training (one more is held out)
    c.data.bootstrap.vocab_size = 4000
    c.data.bootstrap.cache_dir = ""  # default $XDG_CACHE_HOME/klue-pretrain or ~/.cache/...

    c.seed = 0
    c.global_batch_size = 256
    c.grad_accum_steps = 1  # micro-batches per step (lax.scan); divides the per-device batch
    c.num_train_steps = 1_000_000
    c.stop_at_step = 0  # stop (with a checkpoint) here; 0 = num_train_steps. For time-limited jobs
    c.warmup_steps = 10_000
    c.learning_rate = 1e-4
    c.end_learning_rate = 0.0
    c.weight_decay = 0.01
    c.adam_b1 = 0.9
    c.adam_b2 = 0.999
    c.adam_eps = 1e-6
    c.max_grad_norm = 1.0

    c.log_every_steps = 100
    c.eval_every_steps = 10_000
    c.eval_steps = 20
    c.checkpoint_every_steps = 10_000
    c.checkpoint_every_minutes = 30.0  # also save by time (0 = off); agreed across hosts
    c.keep_checkpoints = 3  # the newest N ...
    c.keep_every_steps = 0  # ... plus every multiple of this step for good (0 = none)
    c.async_checkpointing = True
    # Hosts combine their SIGTERM flags (and time-save clocks) in a tiny all-reduce every this
    # many steps, so all stop and save at the same step; 1 host: acted on at once.
    c.preemption_check_every = 1
    # Hang watchdog: no finished step for max(multiple x median step time, min seconds) ->
    # stacks of all threads to stderr, exit status 3 (restart from the last checkpoint).
    c.watchdog_multiple = 20.0  # 0 = off
    c.watchdog_min_seconds = 600.0
    c.compilation_cache_dir = ""  # persistent JAX compilation cache ("" = off)
    c.init_from = ""  # workdir or checkpoint folder to take the parameters from (step 0)
    c.progress_bar = True
    c.peak_flops_per_device = 0.0  # 0: from pretrain.flops.PEAK_FLOPS_PER_DEVICE (for MFU)

    c.mesh = ml_collections.ConfigDict()
    c.mesh.fsdp = 1  # >1 shards params and optimiser state over that many devices
    c.mesh.fsdp_min_size = 2**16  # arrays with fewer elements stay replicated under FSDP

    c.distributed = ml_collections.ConfigDict()
    c.distributed.initialize = "auto"  # "auto" (when a cluster is detected), "yes", "no"
    c.distributed.coordinator_address = ""  # host:port of process 0, or "" to auto-detect
    c.distributed.num_processes = -1
    c.distributed.process_id = -1
    c.distributed.cpu_collectives = ""  # "gloo" for several CPU processes
    return c
