"""Shared test fixtures: where the real data is, and a skip when it is absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from compiler_flags import with_suite_flags
from hypothesis import settings

from corpus.datadir import resolve_data_dir

#: The test files that take 20 s or more in `make test`, longest first (`pytest -q -n 2 --dist
#: loadfile --durations=0`, each file's setup + call + teardown summed, at 0002d3f on 2 shared
#: cores, load 2.2-3.9: 179 s for test_pretrain_train_runs down to 20 s for
#: test_finetune_accumulation). `make test` spreads whole files over 2 processes in collection
#: order; these run first so that no long file starts last while the other process has nothing
#: left (alphabetically, test_tpu_e2e came last: the run's final minutes were one process on one
#: file). Only the order changes, never what runs.
LONG_FIRST = (
    "test_pretrain_train_runs.py",
    "test_tpu_e2e.py",
    "test_finetune_trainer.py",
    "test_pretrain_models.py",
    "test_pretrain_preemption.py",
    "test_bench_device.py",
    "test_pretrain_train.py",
    "test_pretrain_supervision.py",
    "test_demo.py",
    "test_pretrain_continue.py",
    "test_finetune_wos.py",
    "test_pretrain_export.py",
    "test_pretrain_storage.py",
    "test_finetune_dp.py",
    "test_large_inputs.py",
    "test_finetune_span_tasks.py",
    "test_executor.py",
    "test_finetune_export.py",
    "test_finetune_predict.py",
    "test_finetune_accumulation.py",
)


#: Property tests draw the same examples on every run (`derandomize`, no example database): a
#: red CI then means the code changed, never that a new random draw found an old corner.
#: ``HYPOTHESIS_PROFILE=explore`` draws fresh examples each run, to look for such corners.
settings.register_profile("deterministic", derandomize=True, database=None)
settings.register_profile("explore")
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))


def pytest_configure(config) -> None:
    """XLA's CPU compiler settings of the suite (`compiler_flags`) in XLA_FLAGS, before JAX
    starts its backend here, in the xdist workers (which inherit the environment) and in every
    subprocess a test starts with this environment."""
    os.environ["XLA_FLAGS"] = with_suite_flags(os.environ.get("XLA_FLAGS", ""))


def pytest_collection_modifyitems(config, items) -> None:
    """The files of `LONG_FIRST` first, in that order; every other file after them, as
    collected. Tests of one file stay together and in their order (a stable sort by file).

    Tests marked ``long`` run only with KLUE_LONG_TESTS=1: each repeats, at a larger size or
    on more data, what a shorter test in `make test` already proves (the docstring names it),
    and together they would push the suite past its 20 minutes on 2 cores."""
    rank = {name: i for i, name in enumerate(LONG_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(LONG_FIRST)))
    if os.environ.get("KLUE_LONG_TESTS") == "1":
        return
    skip = pytest.mark.skip(reason="a long test (see tests/conftest.py); KLUE_LONG_TESTS=1 runs it")
    for item in items:
        if "long" in item.keywords:
            item.add_marker(skip)


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


_SIGNALS = ("SIGINT", "SIGTERM")


def _os_signal_state() -> tuple[int, int]:
    """The kernel's view, which `signal.getsignal` does not show: the process's ignored set
    and the main thread's blocked mask (a C library can change either behind Python)."""
    import threading

    def bits(path: str, field: str) -> int:
        with open(path) as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1], 16)
        return 0

    main = threading.main_thread().native_id
    return bits("/proc/self/status", "SigIgn"), bits(f"/proc/self/task/{main}/status", "SigBlk")


@pytest.fixture(autouse=True)
def _signal_dispositions_restored(request):
    """Each test leaves Ctrl-C and SIGTERM as it found them. A test that leaves SIGINT
    ignored or blocked in its xdist process made the Ctrl-C tests of tests/test_executor.py
    fail when they ran after it there (their subprocesses inherit an ignored or blocked
    SIGINT: exit 0, or a hang). The disposition is put back and a warning names the test
    that changed it."""
    import signal
    import warnings

    before = {name: signal.getsignal(getattr(signal, name)) for name in _SIGNALS}
    os_before = _os_signal_state() if os.path.exists("/proc/self/status") else None
    yield
    for name, handler in before.items():
        now = signal.getsignal(getattr(signal, name))
        if now is not handler:
            warnings.warn(f"{request.node.nodeid} left {name} as {now!r}", stacklevel=1)
            if handler is not None:
                signal.signal(getattr(signal, name), handler)
    if os_before is not None and _os_signal_state() != os_before:
        warnings.warn(
            f"{request.node.nodeid} changed the kernel's signal state (ignored, blocked): "
            f"{tuple(hex(v) for v in os_before)} -> "
            f"{tuple(hex(v) for v in _os_signal_state())}",
            stacklevel=1,
        )
        _heal_kernel_state(os_before)


def _heal_kernel_state(os_before: tuple[int, int]) -> None:
    """Puts SIGINT and SIGTERM back as the kernel had them before the test: unblocked if they
    were, and the handler Python records installed again where a C library set it ignored."""
    import signal

    ignored, blocked = _os_signal_state()
    for name in _SIGNALS:
        signum = getattr(signal, name)
        bit = 1 << (signum - 1)
        if blocked & bit and not os_before[1] & bit:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signum})
        handler = signal.getsignal(signum)
        if ignored & bit and not os_before[0] & bit and handler is not None:
            signal.signal(signum, handler)
