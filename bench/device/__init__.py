"""The prepared accelerator check: ``python -m bench.device`` (`bench.device.runner`).

A package of its own, not a module of ``bench/``: `python -m bench` (``make bench``) runs the
CPU benchmarks of ``bench/*.py`` at small settings, and this check needs a lent GPU and a
bundle built beforehand (`bench.device.bundle`); docs/bench_device.md says how to run it.
"""
