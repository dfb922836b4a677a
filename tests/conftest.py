"""Shared test fixtures: where the real data is, and a skip when it is absent."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus.datadir import resolve_data_dir


def _data_dir() -> Path | None:
    try:
        return resolve_data_dir()
    except FileNotFoundError:
        return None


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The real shared data (KLUE + raw corpus); skips the test when it is absent."""
    d = _data_dir()
    if d is None or not (d / "corpus").is_dir():
        pytest.skip(
            "real data not found: set KLUE_DATA_DIR or place ../shared/data beside the repo"
        )
    return d


@pytest.fixture(scope="module")
def unoptimised_compilation():
    """XLA compiles without its expensive optimisation passes (``jax_disable_most_optimizations``:
    LLVM at -O0) while the module's fixtures and tests run. For end-to-end runs whose time is
    almost all compilation and whose assertions are about what is written, not how fast the
    compiled code is; the programs and their semantics are the same.

    JAX's in-memory compilation caches do not key on this switch, so they are cleared on the
    way in and out: no program compiled with the optimisations runs in the module, and none
    compiled without them runs after it (a bitwise comparison never mixes the two)."""
    import jax

    before = jax.config.values["jax_disable_most_optimizations"]
    jax.clear_caches()
    jax.config.update("jax_disable_most_optimizations", True)
    yield
    jax.config.update("jax_disable_most_optimizations", before)
    jax.clear_caches()
