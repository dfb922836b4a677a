"""Gradient accumulation inside one jitted train step, shared by pretraining and fine-tuning.

A step with ``A`` accumulation steps splits its global batch into ``A`` micro-batches and sums
the gradients (and any auxiliary sums) of ``grad_fn`` over them with ``lax.scan``: one
optimiser update per step, so the step counter and the learning-rate schedule count optimiser
updates, never micro-batches; the memory is one micro-batch of activations plus one gradient
buffer. Not ``optax.MultiSteps``: that would make every micro-batch a call of the jitted step,
count micro-steps in the optimiser state, and keep a second parameter-sized buffer.

The caller decides the normalisation: pretraining divides each micro-batch loss by the whole
batch's prediction count before differentiating, fine-tuning differentiates the summed loss
and divides the summed gradient by the summed count afterwards; either way the result is the
full-batch gradient (up to float rounding).

Micro-batch ``a`` takes rows ``a, a+A, a+2A, ...`` of the global batch: with the batch sharded
over devices in contiguous blocks (`pretrain.sharding.batch_sharding`), every micro-batch is
then spread over all devices and each device keeps working on its own rows (no resharding).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from pretrain import sharding


def micro_batches(batch: Mapping[str, jax.Array], steps: int, mesh=None) -> dict[str, jax.Array]:
    """``[B, ...]`` -> ``[steps, B // steps, ...]``, micro-batch ``a`` = rows ``a::steps``."""
    size = next(iter(batch.values())).shape[0]
    if size % steps:
        raise ValueError(f"batch of {size} rows does not split into {steps} micro-batches")
    micro = jax.tree.map(
        lambda x: x.reshape(size // steps, steps, *x.shape[1:]).swapaxes(0, 1), dict(batch)
    )
    if mesh is not None:
        micro = jax.lax.with_sharding_constraint(
            micro, NamedSharding(mesh, P(None, sharding.BATCH_AXES))
        )
    return micro


def accumulate_gradients(
    grad_fn: Callable[[Any, Any, Any], tuple[tuple[Any, Any], Any]],
    params: Any,
    batch: Mapping[str, jax.Array],
    keys: jax.Array,
    mesh=None,
) -> tuple[Any, Any]:
    """``(aux, grads)`` summed over ``len(keys)`` micro-batches of ``batch``.

    ``grad_fn(params, micro_batch, key) -> ((loss, aux), grads)`` is a
    ``jax.value_and_grad(..., has_aux=True)`` function; ``aux`` is a pytree of sums (counts,
    summed losses). ``keys[a]`` is micro-batch ``a``'s dropout key. With one key the whole
    batch goes through ``grad_fn`` once, without a scan.
    """
    steps = keys.shape[0]
    if steps == 1:
        (_, aux), grads = grad_fn(params, batch, keys[0])
        return aux, grads
    micro = micro_batches(batch, steps, mesh)
    first = jax.tree.map(lambda x: x[0], micro)
    aux_shape = jax.eval_shape(lambda: grad_fn(params, first, keys[0])[0][1])
    zeros_aux = jax.tree.map(lambda s: jnp.zeros(s.shape, s.dtype), aux_shape)
    zeros_g = jax.tree.map(jnp.zeros_like, params)

    def body(carry, xs):
        g_acc, a_acc = carry
        mb, key = xs
        (_, aux), g = grad_fn(params, mb, key)
        return (jax.tree.map(jnp.add, g_acc, g), jax.tree.map(jnp.add, a_acc, aux)), None

    (grads, aux), _ = jax.lax.scan(body, (zeros_g, zeros_aux), (micro, keys))
    return aux, grads


def micro_keys(step_key: jax.Array, steps: int) -> jax.Array:
    """``fold_in(step_key, a)`` for ``a < steps``: one dropout key per micro-batch."""
    return jax.vmap(lambda a: jax.random.fold_in(step_key, a))(jnp.arange(steps))
