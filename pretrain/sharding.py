"""Device mesh, multi-host start-up and the placement of batches and train state.

One mesh covers every device of every host, with two axes:

* ``data``: data parallelism; each device sees a different slice of the batch.
* ``fsdp``: optional fully-sharded data parallelism for large models. The batch
  is split over both axes (every device still sees distinct examples); the
  parameters and optimiser state are split over ``fsdp`` along one dimension
  and gathered by XLA where a layer needs them.

With ``fsdp = 1`` (the default) the parameters are replicated and this is plain
data parallelism. The same code runs on 1 CPU, 8 simulated CPU devices
(``XLA_FLAGS=--xla_force_host_platform_device_count=8``), a TPU slice, a pod,
or a GPU host: nothing here depends on the platform.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from typing import Any

import jax
import numpy as np
from jax.sharding import AxisType, Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

DATA_AXIS = "data"
FSDP_AXIS = "fsdp"
BATCH_AXES = (DATA_AXIS, FSDP_AXIS)
# "Auto" axes: XLA's partitioner places intermediates (the model code has no sharding
# annotations); jax.make_mesh would otherwise default to explicit sharding types.
_AUTO = (AxisType.Auto, AxisType.Auto)

# Arrays smaller than this stay replicated under FSDP: splitting a LayerNorm
# scale over 8 devices saves nothing and costs a gather per use.
FSDP_MIN_SIZE = 2**16

# Environment variables whose presence means "this process is one of several
# started by a cluster manager"; with initialize="auto" we only call
# jax.distributed.initialize() when one is set, so a laptop run never blocks.
_CLUSTER_ENV_VARS = (
    "JAX_COORDINATOR_ADDRESS",
    "TPU_WORKER_HOSTNAMES",
    "MEGASCALE_COORDINATOR_ADDRESS",
    "OMPI_COMM_WORLD_SIZE",
)


def maybe_initialize_distributed(cfg: Mapping[str, Any]) -> bool:
    """Starts `jax.distributed` when the config asks for it; returns whether it did.

    ``cfg`` holds ``initialize`` ("auto" | "yes" | "no"), ``coordinator_address``,
    ``num_processes``, ``process_id`` and ``cpu_collectives`` (e.g. "gloo" to run
    several CPU processes on one machine). Explicit address/count/id are passed
    through; otherwise JAX auto-detects the cluster (Cloud TPU, SLURM, MPI).
    Must run before any other JAX call.
    """
    mode = str(cfg.get("initialize", "auto"))
    address = cfg.get("coordinator_address") or None
    if mode == "no":
        return False
    if mode == "auto":
        slurm_multi = int(os.environ.get("SLURM_NTASKS", "1")) > 1
        if not (address or slurm_multi or any(os.environ.get(v) for v in _CLUSTER_ENV_VARS)):
            return False
    if cfg.get("cpu_collectives"):
        jax.config.update("jax_cpu_collectives_implementation", cfg["cpu_collectives"])
    kwargs: dict[str, Any] = {}
    if address:
        kwargs["coordinator_address"] = address
    if cfg.get("num_processes") is not None and int(cfg["num_processes"]) > 0:
        kwargs["num_processes"] = int(cfg["num_processes"])
    if cfg.get("process_id") is not None and int(cfg["process_id"]) >= 0:
        kwargs["process_id"] = int(cfg["process_id"])
    jax.distributed.initialize(**kwargs)
    logging.info(
        "jax.distributed: process %d of %d, %d local / %d global devices",
        jax.process_index(),
        jax.process_count(),
        jax.local_device_count(),
        jax.device_count(),
    )
    return True


def make_mesh(fsdp: int = 1, devices: list | None = None) -> Mesh:
    """A ``(data, fsdp)`` mesh over all devices (of all hosts); ``fsdp`` must divide the count."""
    devices = list(jax.devices() if devices is None else devices)
    n = len(devices)
    if fsdp < 1 or n % fsdp:
        raise ValueError(f"fsdp={fsdp} must be >= 1 and divide the device count {n}")
    shape = (n // fsdp, fsdp)
    if devices == list(jax.devices()):
        # Topology-aware order (matters on TPU pods); process-major on CPU/GPU.
        return jax.make_mesh(shape, BATCH_AXES, devices=devices, axis_types=_AUTO)
    return Mesh(np.asarray(devices).reshape(shape), BATCH_AXES, axis_types=_AUTO)


def batch_sharding(mesh: Mesh) -> NamedSharding:
    """Leading (batch) dimension split over every device; other dimensions whole."""
    return NamedSharding(mesh, P(BATCH_AXES))


def replicated(mesh: Mesh) -> NamedSharding:
    return NamedSharding(mesh, P())


def check_batch_size(global_batch_size: int, mesh: Mesh, grad_accum_steps: int = 1) -> None:
    """Raises a clear error when the batch cannot be split evenly over devices and micro-steps."""
    n = mesh.size
    if global_batch_size % (n * grad_accum_steps):
        raise ValueError(
            f"global batch {global_batch_size} is not divisible by devices ({n}) x "
            f"gradient accumulation steps ({grad_accum_steps}); change "
            "--config.global_batch_size or --config.grad_accum_steps"
        )
    if global_batch_size % jax.process_count():
        raise ValueError(
            f"global batch {global_batch_size} not divisible by {jax.process_count()} hosts"
        )


def _leaf_spec(shape: tuple[int, ...], fsdp: int, min_size: int = FSDP_MIN_SIZE) -> P:
    """FSDP rule: split the largest dimension divisible by ``fsdp``; small arrays replicated."""
    if fsdp <= 1 or not shape or int(np.prod(shape)) < min_size:
        return P()
    order = sorted(range(len(shape)), key=lambda i: -shape[i])
    for i in order:
        if shape[i] % fsdp == 0:
            spec = [None] * len(shape)
            spec[i] = FSDP_AXIS
            return P(*spec)
    return P()


def state_shardings(abstract_state: Any, mesh: Mesh, min_size: int = FSDP_MIN_SIZE) -> Any:
    """Shardings for a pytree of arrays (params, optimiser state, step, rng).

    One rule for every leaf, so Adam's ``mu``/``nu`` get exactly the sharding of
    the parameter they track (they have the same shape).
    """
    fsdp = mesh.shape[FSDP_AXIS]
    return jax.tree.map(
        lambda x: NamedSharding(mesh, _leaf_spec(tuple(x.shape), fsdp, min_size)), abstract_state
    )


def global_batch(local_batch: Mapping[str, np.ndarray], mesh: Mesh) -> dict[str, jax.Array]:
    """Assembles the global batch from each host's slice (no cross-host copy).

    Every process passes its own rows (``global_batch_size / process_count`` of
    them, in process order, as `input_pipeline.make_loader` yields); the result
    is one global `jax.Array` per field, sharded over the batch axes.
    """
    sharding = batch_sharding(mesh)
    return {
        k: jax.make_array_from_process_local_data(sharding, np.asarray(v))
        for k, v in local_batch.items()
    }
