"""Pretraining: the pure train step, losses, optimiser, and the train-and-evaluate loop.

Functional core. The train state is a pytree ``TrainState(step, params, opt_state,
rng)``; the model's ``graphdef`` stays outside it as static structure. `train_step`
is a pure function of ``(state, batch)``: dropout keys are derived from
``(rng, step, micro-batch index)``, so a run resumed from a checkpoint at step k
computes bit-for-bit what the uninterrupted run computed.

Gradient accumulation is `pretrain.accumulation` (shared with fine-tuning): a
``lax.scan`` over micro-batches inside one jitted step, one optimiser update per
step. Each micro-batch loss is normalised by the *whole* batch's prediction
count, so the summed gradient is exactly the full-batch gradient.

Loss: MLM softmax cross-entropy in float32, weighted by ``masked_weights`` and
averaged over real predictions; plus (BERT) the NSP cross-entropy averaged over
sequences. A step whose loss or gradient norm is not finite leaves the state
unchanged and reports ``finite = 0``; the loop then stops with a clear message
and the last checkpoint (taken only from finite states) stays the newest.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import logging
import math
import time
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from typing import Any

import flax.struct
import jax
import jax.numpy as jnp
import optax
from flax import nnx

from pretrain import accumulation, models, sharding, storage, supervision
from pretrain.bootstrap import BATCH_KEYS, batches_from, local_folder, make_loader
from pretrain.metric_log import IntervalMeter, MetricLog, Progress
from pretrain.optimizer import TrainSettings, make_optimizer, make_schedule

Batch = Mapping[str, jax.Array]


class NonFiniteLossError(RuntimeError):
    """The loss or gradient norm became NaN/inf; the run stops, the last good checkpoint stays."""


@flax.struct.dataclass
class TrainState:
    step: jax.Array  # int32 scalar: number of optimiser updates applied
    params: Any  # nnx.State of nnx.Param
    opt_state: Any
    rng: jax.Array  # raw uint32 PRNG key data [2] (raw, so orbax and JSON handle it)


@flax.struct.dataclass
class ModelDef:
    """Static structure of the model (hashable pieces only), shared by steps and export."""

    graphdef: Any = flax.struct.field(pytree_node=False)
    abstract_rest: Any = flax.struct.field(pytree_node=False)


# ---------------------------------------------------------------------------------------------
# Model state <-> pure functions


def abstract_model(model_config: models.ModelConfig) -> tuple[ModelDef, Any]:
    """(static model structure, abstract params) without allocating anything."""
    abstract = nnx.eval_shape(
        lambda: models.PretrainingModel(model_config, rngs=nnx.Rngs(params=0, dropout=1))
    )
    graphdef, params, rest = nnx.split(abstract, nnx.Param, ...)
    return ModelDef(graphdef, rest), params


def merge_model(model_def: ModelDef, params: Any) -> models.PretrainingModel:
    """Rebuilds the NNX module from parameters (inside or outside jit)."""
    return nnx.merge(model_def.graphdef, params, models.concrete_rest(model_def.abstract_rest))


@dataclasses.dataclass(frozen=True)
class Program:
    """Everything compiled for one `ProgramKey`: built once, reused.

    ``init()`` makes a fresh state and ``init(params)`` one with given parameters and a
    fresh optimiser, directly in their shardings; ``train_step(state, batch)`` and
    ``eval_step(params, batch)`` are the jitted steps.
    """

    model_def: ModelDef
    tx: optax.GradientTransformation
    abstract_state: Any
    shardings: Any
    init: Callable
    init_from_params: Callable
    train_step: Callable
    eval_step: Callable


@dataclasses.dataclass(frozen=True)
class ProgramKey:
    """Everything the compiled program depends on; the key of the program cache.

    The builder receives only this object, so a value that changes the program cannot be
    missing from the key (`TrainSettings` holds the run-config part).
    """

    model: models.ModelConfig
    settings: TrainSettings
    objective: str
    mesh: jax.sharding.Mesh


def build_program(
    model_config: models.ModelConfig, cfg: Mapping[str, Any], objective: str, mesh
) -> Program:
    """The (cached) `Program` for this model, optimiser settings, objective and mesh.

    Cached so that several runs in one process (tests, sweeps) compile only once.
    """
    return program_for(ProgramKey(model_config, TrainSettings.from_config(cfg), objective, mesh))


@functools.lru_cache(maxsize=8)
def program_for(key: ProgramKey) -> Program:
    """Builds (once per key) the jitted init, train and eval functions."""
    model_config, settings = key.model, key.settings
    seed = settings.seed
    model_def, abstract_params = abstract_model(model_config)
    tx = make_optimizer(settings, abstract_params)

    def init(params: Any = None) -> TrainState:
        if params is None:
            model = models.PretrainingModel(
                model_config, rngs=nnx.Rngs(params=seed, dropout=seed + 1)
            )
            params = nnx.state(model, nnx.Param)
        return TrainState(
            step=jnp.zeros((), jnp.int32),
            params=params,
            opt_state=tx.init(params),
            rng=jax.random.key_data(jax.random.key(seed + 2)),
        )

    abstract_state = jax.eval_shape(init)
    shardings = sharding.state_shardings(abstract_state, key.mesh, settings.fsdp_min_size)
    step, evaluate = jit_steps(model_def, tx, settings, key.objective, key.mesh, shardings)
    return Program(
        model_def=model_def,
        tx=tx,
        abstract_state=abstract_state,
        shardings=shardings,
        init=jax.jit(lambda: init(), out_shardings=shardings),
        init_from_params=jax.jit(init, in_shardings=(shardings.params,), out_shardings=shardings),
        train_step=step,
        eval_step=evaluate,
    )


def create_train_state(
    model_config: models.ModelConfig, cfg: Mapping[str, Any], objective: str, mesh
) -> tuple[Program, TrainState]:
    """A fresh train state (and its program), initialised directly in its shardings."""
    program = build_program(model_config, cfg, objective, mesh)
    return program, program.init()


def abstract_with_shardings(state_or_abstract: Any, shardings: Any) -> Any:
    return jax.tree.map(
        lambda x, s: jax.ShapeDtypeStruct(x.shape, x.dtype, sharding=s),
        state_or_abstract,
        shardings,
    )


# ---------------------------------------------------------------------------------------------
# Losses and steps


def loss_sums(outputs: Mapping[str, Any], batch: Batch, objective: str) -> dict[str, jax.Array]:
    """Summed (not averaged) losses and counts, so micro-batches and devices add up exactly."""
    logits = outputs["mlm_logits"].astype(jnp.float32)
    labels = batch["masked_ids"]
    weights = batch["masked_weights"].astype(jnp.float32)
    xent = optax.softmax_cross_entropy_with_integer_labels(logits, labels)
    correct = (jnp.argmax(logits, -1) == labels).astype(jnp.float32)
    sums = {
        "mlm_loss": jnp.sum(xent * weights),
        "mlm_correct": jnp.sum(correct * weights),
        "mlm_weight": jnp.sum(weights),
        "nsp_loss": jnp.zeros((), jnp.float32),
        "nsp_correct": jnp.zeros((), jnp.float32),
        "nsp_count": jnp.zeros((), jnp.float32),
    }
    if objective == "bert" and outputs.get("nsp_logits") is not None:
        nsp_logits = outputs["nsp_logits"].astype(jnp.float32)
        nsp_labels = batch["nsp_labels"]
        sums["nsp_loss"] = jnp.sum(
            optax.softmax_cross_entropy_with_integer_labels(nsp_logits, nsp_labels)
        )
        sums["nsp_correct"] = jnp.sum(
            (jnp.argmax(nsp_logits, -1) == nsp_labels).astype(jnp.float32)
        )
        sums["nsp_count"] = jnp.asarray(nsp_labels.shape[0], jnp.float32)
    return sums


def metrics_from_sums(sums: Mapping[str, Any]) -> dict[str, Any]:
    """Averages from summed counts (works on jax or numpy scalars)."""
    mlm_w = jnp.maximum(sums["mlm_weight"], 1.0)
    nsp_n = jnp.maximum(sums["nsp_count"], 1.0)
    mlm_loss = sums["mlm_loss"] / mlm_w
    nsp_loss = sums["nsp_loss"] / nsp_n
    return {
        "loss": mlm_loss + nsp_loss,
        "mlm_loss": mlm_loss,
        "mlm_accuracy": sums["mlm_correct"] / mlm_w,
        "nsp_loss": nsp_loss,
        "nsp_accuracy": sums["nsp_correct"] / nsp_n,
    }


def _forward(model_def: ModelDef, params: Any, batch: Batch, key: jax.Array | None):
    model = merge_model(model_def, params)
    rngs = nnx.Rngs(dropout=key) if key is not None else None
    return model(
        batch["input_ids"],
        batch["token_type_ids"],
        batch["attention_mask"],
        batch["masked_positions"],
        deterministic=key is None,
        rngs=rngs,
    )


def train_step(
    state: TrainState,
    batch: Batch,
    *,
    model_def: ModelDef,
    tx: optax.GradientTransformation,
    schedule: optax.Schedule,
    objective: str,
    grad_accum_steps: int = 1,
    mesh: jax.sharding.Mesh | None = None,
) -> tuple[TrainState, dict[str, jax.Array]]:
    """One optimiser update on ``batch`` (summed over ``grad_accum_steps`` micro-batches)."""
    batch_size = batch["input_ids"].shape[0]
    total_weight = jnp.maximum(jnp.sum(batch["masked_weights"].astype(jnp.float32)), 1.0)
    nsp_denominator = float(batch_size) if objective == "bert" else 1.0
    step_key = jax.random.fold_in(jax.random.wrap_key_data(state.rng), state.step)

    def micro_loss(params, micro, key):
        sums = loss_sums(_forward(model_def, params, micro, key), micro, objective)
        loss = sums["mlm_loss"] / total_weight + sums["nsp_loss"] / nsp_denominator
        return loss, sums

    grad_fn = jax.value_and_grad(micro_loss, has_aux=True)
    keys = accumulation.micro_keys(step_key, grad_accum_steps)
    sums, grads = accumulation.accumulate_gradients(grad_fn, state.params, batch, keys, mesh)

    grad_norm = optax.tree.norm(grads)
    updates, new_opt_state = tx.update(grads, state.opt_state, state.params)
    new_params = optax.apply_updates(state.params, updates)
    metrics = metrics_from_sums(sums)
    finite = jnp.isfinite(metrics["loss"]) & jnp.isfinite(grad_norm)

    def keep_if_finite(new, old):
        return jax.tree.map(lambda n, o: jnp.where(finite, n, o), new, old)

    new_state = state.replace(
        step=state.step + finite.astype(jnp.int32),
        params=keep_if_finite(new_params, state.params),
        opt_state=keep_if_finite(new_opt_state, state.opt_state),
    )
    metrics.update(
        grad_norm=grad_norm,
        learning_rate=schedule(state.step),
        finite=finite.astype(jnp.int32),
    )
    return new_state, metrics


def eval_step(params: Any, batch: Batch, *, model_def: ModelDef, objective: str) -> dict:
    """Summed losses and counts on ``batch`` without dropout (add over batches, then average)."""
    return loss_sums(_forward(model_def, params, batch, None), batch, objective)


def jit_steps(
    model_def: ModelDef,
    tx: optax.GradientTransformation,
    cfg: TrainSettings,
    objective: str,
    mesh: jax.sharding.Mesh,
    state_shardings: Any,
) -> tuple[Callable, Callable]:
    """Jitted (train_step, eval_step) with explicit shardings; the train state is donated."""
    batch_sh = sharding.batch_sharding(mesh)
    batch_shardings = dict.fromkeys(BATCH_KEYS, batch_sh)
    rep = sharding.replicated(mesh)
    step = jax.jit(
        partial(
            train_step,
            model_def=model_def,
            tx=tx,
            schedule=make_schedule(cfg),
            objective=objective,
            grad_accum_steps=cfg.grad_accum_steps,
            mesh=mesh,
        ),
        in_shardings=(state_shardings, batch_shardings),
        out_shardings=(state_shardings, rep),
        donate_argnums=0,
    )
    evaluate = jax.jit(
        partial(eval_step, model_def=model_def, objective=objective),
        in_shardings=(state_shardings.params, batch_shardings),
        out_shardings=rep,
    )
    return step, evaluate


def _to_host(tree: Any) -> dict[str, float]:
    return {k: float(v) for k, v in jax.device_get(tree).items()}


def evaluate(eval_fn: Callable, params: Any, loader: Any, steps: int, mesh) -> dict[str, float]:
    """Averages the eval metrics over the first ``steps`` held-out batches (always the same)."""
    total: dict[str, float] = {}
    for i in range(steps):
        sums = _to_host(eval_fn(params, sharding.global_batch(loader.batch(i), mesh)))
        for k, v in sums.items():
            total[k] = total.get(k, 0.0) + v
    metrics = metrics_from_sums(total)
    if total.get("nsp_count", 0.0) == 0.0:  # roberta: no NSP
        metrics = {k: v for k, v in metrics.items() if not k.startswith("nsp_")}
    return {f"eval/{k}": float(v) for k, v in metrics.items()}


def nonfinite_message(step: int, metrics: Mapping[str, float], last_good: int | None) -> str:
    where = f"step {last_good}" if last_good is not None else "none yet"
    return (
        f"non-finite loss at step {step} (loss={metrics.get('loss')}, "
        f"grad_norm={metrics.get('grad_norm')}): stopping. The state was not updated by that "
        f"step; the newest checkpoint ({where}) holds the last good parameters. Lower "
        "--config.learning_rate, check the examples around this step, or resume from the "
        "checkpoint with another seed."
    )


def is_finite_metrics(metrics: Mapping[str, float]) -> bool:
    return bool(metrics.get("finite", 1)) and math.isfinite(metrics["loss"])


def model_overrides(cfg: Mapping[str, Any]) -> dict[str, Any]:
    """The ModelConfig fields the run sets: ``cfg.model_overrides`` without its "keep the
    preset" values ("" or negative numbers), plus ``cfg.attention`` when set."""
    overrides = {
        k: v
        for k, v in dict(cfg.get("model_overrides", {})).items()
        if v is not None and v != "" and not (isinstance(v, int | float) and v < 0)
    }
    attention = cfg.get("attention", "") or ""
    if attention:
        overrides["attention"] = attention
    return overrides


def build_model_config(cfg: Mapping[str, Any], data: Any) -> models.ModelConfig:
    """The preset named by ``cfg.model`` fitted to the examples' tokenizer, then the overrides.

    Vocabulary size and ``[PAD]`` id come from the examples (their manifest records the
    tokenizer they were built with); for RoBERTa the position table is resized with the pad id
    (``max_seq_length + pad_token_id + 1``) so the preset's sequence length stays supported.
    Then the checks a run must pass before it spends compute: architecture = objective, every
    special token present, pad id and vocabulary agree with the tokenizer folder (the one the
    export will ship), and the sequences fit the position table. With a Hugging Face folder as
    ``cfg.init_from`` the model is the folder's instead (`pretrain.hf_init.model_config`).
    """
    from pretrain import hf_export, hf_init
    from pretrain.masking import SPECIAL_TOKENS

    if hf_init.is_hf_folder(cfg.get("init_from")):
        return hf_init.model_config(cfg, data, model_overrides(cfg))
    if cfg["model"] in hf_init.FROM_FOLDER:
        raise ValueError(
            f"--config.model={cfg['model']!r} takes the model from --config.init_from, which "
            f"must be a Hugging Face BERT/RoBERTa folder (config.json + model.safetensors); "
            f"got {cfg.get('init_from')!r}"
        )
    if cfg["model"] not in models.PRESETS:
        raise ValueError(f"unknown model {cfg['model']!r}; one of {sorted(models.PRESETS)}")
    mc = models.PRESETS[cfg["model"]].replace(vocab_size=int(data.vocab_size))
    specials = dict(getattr(data, "special_ids", ()) or ())
    source = data.examples_dir or "the examples"
    if specials:
        missing = [t for t in SPECIAL_TOKENS if specials.get(t) is None]
        if missing:
            raise ValueError(f"{source}: the tokenizer has no {missing} token(s)")
        pad = int(specials["[PAD]"])
        if pad != mc.pad_token_id:
            supported = mc.max_seq_length
            mc = mc.replace(pad_token_id=pad)
            if mc.arch == "roberta":
                mc = mc.replace(max_position_embeddings=supported + pad + 1)
    overrides = model_overrides(cfg)
    if overrides:
        mc = mc.replace(**overrides)
    want = {"bert": "bert", "roberta": "roberta"}[data.objective]
    if mc.arch != want:
        raise ValueError(f"model {cfg['model']} is {mc.arch} but the examples are {data.objective}")
    if specials and mc.pad_token_id != specials["[PAD]"]:
        raise ValueError(
            f"model pad_token_id {mc.pad_token_id} != [PAD] id {specials['[PAD]']} of the "
            f"tokenizer {source} was built with"
        )
    if data.tokenizer_dir and storage.path(data.tokenizer_dir).is_dir():
        folder_ids = hf_export.check_tokenizer(mc, local_folder(data.tokenizer_dir))
        differ = {t: (folder_ids[t], i) for t, i in specials.items() if folder_ids.get(t, i) != i}
        if differ:
            raise ValueError(
                f"tokenizer {data.tokenizer_dir} is not the one {source} was built with: "
                f"special ids (folder, examples) {differ}"
            )
    if data.max_seq_length > mc.max_seq_length:
        raise ValueError(
            f"examples have sequences of {data.max_seq_length} tokens but model {cfg['model']} "
            f"supports at most {mc.max_seq_length} (max_position_embeddings "
            f"{mc.max_position_embeddings}); rebuild the examples with a shorter --max-seq-length"
        )
    return mc


# ---------------------------------------------------------------------------------------------
# The loop


def _config_json(cfg: Any) -> dict[str, Any]:
    if hasattr(cfg, "to_json"):
        return json.loads(cfg.to_json())
    return json.loads(json.dumps(dict(cfg), default=str))


def use_compilation_cache(directory: str) -> None:
    """Persistent JAX compilation cache in ``directory`` ("" = off): restarts skip compiling."""
    if not directory:
        return
    storage.makedirs(directory)
    jax.config.update("jax_compilation_cache_dir", str(directory))
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)


def _restore_or_init(cfg, ckpt, program, target, model_config, data) -> tuple[Any, dict | None]:
    """Newest checkpoint of the workdir, else ``cfg.init_from``'s parameters, else fresh.

    Returns the state and, for a Hugging Face ``init_from``, its provenance
    (`pretrain.hf_init.source_info`; None otherwise or when resuming).
    """
    from pretrain import checkpointing, hf_init

    latest = ckpt.latest_step()
    if latest is not None:
        state = ckpt.restore(latest, target)
        logging.info("resumed from %s step %d", ckpt.directory, latest)
        return state, None
    if hf_init.is_hf_folder(cfg.get("init_from")):
        added = hf_init.added_tokens(data)
        params, fresh = hf_init.load_params(cfg["init_from"], model_config, added)
        logging.info("initialised parameters from the Hugging Face folder %s", cfg["init_from"])
        source = hf_init.source_info(cfg["init_from"], fresh)
        source["added_tokens"] = len(added)
        return program.init_from_params(params), source
    if cfg.get("init_from"):
        src = storage.path(cfg["init_from"])
        src_dir = src / "checkpoints" if (src / "checkpoints").is_dir() else src
        other = checkpointing.Checkpointer(src_dir, read_only=True, async_save=False)
        src_step = other.latest_step()
        if src_step is None:
            raise FileNotFoundError(f"--config.init_from={src}: no complete checkpoint there")
        params = other.restore_params(src_step, target.params)
        other.close()
        logging.info("initialised parameters from %s step %d", src_dir, src_step)
        return program.init_from_params(params), None
    return program.init(), None


def train_and_evaluate(
    cfg: Any,
    workdir: str | Path,
    *,
    preemption: supervision.PreemptionWatcher | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> dict[str, Any]:
    """Trains until ``cfg.num_train_steps``, resuming from the workdir when it has a checkpoint.

    Resume order: the newest complete checkpoint in ``<workdir>/checkpoints``, then
    ``cfg.init_from`` (a workdir or checkpoint folder: its parameters, with a fresh
    optimiser at step 0), then a new model. Returns a summary dict (final step,
    last metrics, ``stopped``: "done" | "preempted").

    ``preemption``: a watcher installed by the caller (pretrain.main installs one before
    compiling and keeps it until exit); by default one is installed for the run and removed
    after. ``clock`` drives the time-based saves (tests pass a fake one).

    Saves happen every ``checkpoint_every_steps``, every ``checkpoint_every_minutes``, at
    multiples of ``keep_every_steps`` (kept for good), at the end, and on preemption. With
    several processes, every decision that depends on a host's own signal or clock goes
    through `supervision.HostAgreement`, so all hosts save and stop at the same step.
    """
    from pretrain import bootstrap, checkpointing, hf_init

    workdir = storage.makedirs(workdir)
    is_main = jax.process_index() == 0
    mesh = sharding.make_mesh(int(cfg["mesh"]["fsdp"]))
    grad_accum = int(cfg["grad_accum_steps"])
    sharding.check_batch_size(int(cfg["global_batch_size"]), mesh, grad_accum)
    use_compilation_cache(str(cfg.get("compilation_cache_dir", "") or ""))

    data = bootstrap.resolve_data(cfg, workdir)
    try:
        model_config = build_model_config(cfg, data)
    except ValueError as e:
        raise supervision.SetupError(str(e)) from e
    total_steps = int(cfg["num_train_steps"])
    stop_at = int(cfg.get("stop_at_step", 0) or 0) or total_steps
    logging.info(
        "model %s (%s params), %s examples L=%d P=%d, %d devices on %d hosts, mesh %s",
        cfg["model"],
        f"{models.count_params(model_config):,}",
        data.objective,
        data.max_seq_length,
        data.max_predictions_per_seq,
        jax.device_count(),
        jax.process_count(),
        dict(mesh.shape),
    )

    program = build_program(model_config, cfg, data.objective, mesh)
    target = abstract_with_shardings(program.abstract_state, program.shardings)
    if mesh.shape[sharding.FSDP_AXIS] > 1:
        specs = [s.spec for s in jax.tree.leaves(program.shardings.params)]
        logging.info(
            "fsdp: %d of %d parameter arrays sharded over %d devices",
            sum(any(a is not None for a in spec) for spec in specs),
            len(specs),
            mesh.shape[sharding.FSDP_AXIS],
        )

    keep_every = int(cfg.get("keep_every_steps", 0) or 0)
    ckpt = checkpointing.Checkpointer(
        checkpointing.checkpoint_dir(workdir),
        max_to_keep=int(cfg["keep_checkpoints"]),
        keep_every_steps=keep_every,
        async_save=bool(cfg["async_checkpointing"]),
    )
    state, source = _restore_or_init(cfg, ckpt, program, target, model_config, data)
    start = int(jax.device_get(state.step))

    p_train, p_eval = program.train_step, program.eval_step
    train_loader = make_loader(cfg, data)
    host_batches = batches_from(train_loader, start)
    eval_loader = make_loader(cfg, data, eval_split=True) if data.has_eval else None
    meta = {
        "model_config": model_config.to_dict(),
        "objective": data.objective,
        "tokenizer_dir": data.tokenizer_dir,
        "examples_dir": data.examples_dir,
        "max_seq_length": data.max_seq_length,
        "max_predictions_per_seq": data.max_predictions_per_seq,
        "config": _config_json(cfg),
    }
    meta["init_from"] = hf_init.recorded_source(workdir, source)
    if is_main:
        storage.write_json(workdir / "config.json", meta)

    log = MetricLog(workdir, start, enabled=is_main)
    own_watcher = preemption is None
    watcher = preemption or supervision.PreemptionWatcher().install()
    agreement = supervision.HostAgreement(mesh, every=int(cfg.get("preemption_check_every", 1)))
    save_clock = supervision.SaveClock(float(cfg.get("checkpoint_every_minutes", 0)), clock)
    watchdog = supervision.Watchdog(
        float(cfg.get("watchdog_multiple", 0)), float(cfg.get("watchdog_min_seconds", 600))
    ).start()
    progress = Progress(start, total_steps, enabled=is_main and bool(cfg["progress_bar"]))
    log_every = int(cfg["log_every_steps"])
    ckpt_every = int(cfg["checkpoint_every_steps"])
    eval_every = int(cfg["eval_every_steps"])
    meter = IntervalMeter(
        int(cfg["global_batch_size"]) * data.max_seq_length,
        model_config,
        data.max_seq_length,
        data.max_predictions_per_seq,
        float(cfg.get("peak_flops_per_device", 0.0)),
    )

    pending: tuple[int, Any] | None = None
    last_saved = ckpt.latest_step()
    last_metrics: dict[str, float] = {}
    stopped = "done"

    def handle(item: tuple[int, Any]) -> None:
        """Blocks on one step's metrics; raises on non-finite; logs every ``log_every``."""
        nonlocal last_metrics
        done, metrics = item
        host = _to_host(metrics)
        if not is_finite_metrics(host):
            raise NonFiniteLossError(nonfinite_message(done, host, last_saved))
        watchdog.beat()
        host.pop("finite", None)
        if data.objective != "bert":
            host.pop("nsp_loss", None)
            host.pop("nsp_accuracy", None)
        meter.add(host)
        shown = None
        if done % log_every == 0 or done == total_steps:
            shown = meter.summary()
            log.write(done, shown)
            last_metrics = {k: v for k, v in shown.items() if not k.startswith("perf/")}
        progress.update(done, shown)

    def save(done: int) -> None:
        nonlocal last_saved
        logging.info("checkpoint: saving step %d", done)
        ckpt.save(done, state, {**meta, "step": done})
        logging.info("checkpoint: step %d copied off the device, writing in the background", done)
        last_saved = done
        save_clock.reset()

    try:
        if start == 0 and min(stop_at, total_steps) == 0 and last_saved is None:
            save(0)  # a 0-step run keeps its initial state (init_from + export = the source)
        for step in range(start, min(stop_at, total_steps)):
            t = time.perf_counter()
            host_batch = next(host_batches)
            meter.add_data_wait(time.perf_counter() - t)
            state, metrics = p_train(state, sharding.global_batch(host_batch, mesh))
            if pending is not None:
                handle(pending)  # the previous step's metrics: the device is already busy
            pending = (step + 1, metrics)
            done = step + 1
            agreed = agreement.poll(done, (watcher.requested, save_clock.due()))
            preempted = bool(agreed[supervision.STOP])
            want_eval = eval_loader is not None and (done % eval_every == 0 or done == total_steps)
            want_save = (
                bool(agreed[supervision.SAVE])
                or (ckpt_every > 0 and done % ckpt_every == 0)
                or (keep_every > 0 and done % keep_every == 0)
                or done in (total_steps, stop_at)
            )
            if want_eval or want_save or preempted:
                handle(pending)
                pending = None
            if want_eval:
                with meter.excluded(), watchdog.paused():
                    scores = evaluate(
                        p_eval, state.params, eval_loader, int(cfg["eval_steps"]), mesh
                    )
                log.write(done, scores)
                logging.info(
                    "eval at step %d: %s", done, " ".join(f"{k}={v:.5g}" for k, v in scores.items())
                )
            if want_save or preempted:
                with meter.excluded(), watchdog.paused():
                    save(done)
            if preempted:
                stopped = "preempted"
                logging.warning(
                    "%s at step %d: checkpoint saved in %s; rerun the same command to resume",
                    watcher.signal_name or "preemption requested by another host",
                    done,
                    ckpt.directory,
                )
                break
        if pending is not None:
            handle(pending)
        with watchdog.paused():
            ckpt.wait()
    except NonFiniteLossError:
        ckpt.wait()  # let saves of earlier (finite) states finish; save nothing new
        raise
    finally:
        watchdog.stop()
        if hasattr(host_batches, "close"):
            host_batches.close()  # stops the loader's prefetch threads
        if own_watcher:
            watcher.uninstall()
        progress.close()
        log.close()
        ckpt.close()
    final_step = int(jax.device_get(state.step))
    return {"step": final_step, "metrics": last_metrics, "stopped": stopped}
