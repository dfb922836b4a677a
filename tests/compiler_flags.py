"""XLA's CPU compiler settings for the whole test suite: the pytest processes and every
subprocess a test starts (`tests/conftest.py` sets them; `subprocess_xla_flags` keeps them in
a subprocess that chooses its own device count).

Most of the suite's time is XLA compiling small programs. XLA:CPU's fusion emitters (the
default) take about twice as long to compile the tiny models' train steps as its elemental
emitters (``--xla_cpu_use_fusion_emitters=false``): 1.85 s against 4.0 s of CPU for the
tiny BERT's step at -O0 (`bench.pretrain.compiled_peak_bytes("tiny", 32, 2, "none")`), and
`python -m bench.device --smoke` (what tests/test_bench_device.py runs) takes 40-44 s of CPU
instead of 64-66 s (docs in CONTRIBUTING.md). The programs (HLO) are the same; only the
machine code the CPU backend emits for each fusion differs. Every process of the suite
compiles with the same setting, so a result computed in the test process and one computed in
a subprocess are still compared bit for bit; the fusion emitters themselves are XLA's to test.
"""

from __future__ import annotations

#: Added to XLA_FLAGS for the test run (one source: conftest and the subprocess helpers).
SUITE_XLA_FLAGS = ("--xla_cpu_use_fusion_emitters=false",)


def with_suite_flags(flags: str) -> str:
    """``flags`` (an XLA_FLAGS value) with the suite's settings added where absent."""
    words = flags.split()
    names = {w.split("=")[0] for w in words}
    words += [f for f in SUITE_XLA_FLAGS if f.split("=")[0] not in names]
    return " ".join(words)


def subprocess_xla_flags(devices: int | None = None) -> str:
    """XLA_FLAGS for a subprocess that must not inherit this process's device count: the
    suite's compiler settings, plus ``devices`` simulated CPU devices when given."""
    base = f"--xla_force_host_platform_device_count={devices}" if devices else ""
    return with_suite_flags(base)
