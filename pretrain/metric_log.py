"""Throughput, MFU and metric logging for the pretraining loop.

`MetricLog` writes TensorBoard events (tensorboardX, no TensorFlow) and a
``metrics.jsonl`` that tests and people read back; `Progress` is a tqdm bar on
a terminal and plain log lines otherwise; `IntervalMeter` turns the steps between two log
lines into interval means and honest throughput; `describe_throughput` turns a step
time into tokens/s and an MFU estimate from `models.flops_per_token` and the
device's peak in `pretrain.flops.PEAK_FLOPS_PER_DEVICE`.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import jax

from pretrain import models, storage
from pretrain.flops import peak_flops_per_device

#: Seconds between uploads of ``metrics.jsonl`` when the workdir is a bucket (and at close).
REMOTE_SYNC_SECONDS = 60.0


class MetricLog:
    """Metrics to TensorBoard (tensorboardX) and to ``metrics.jsonl`` (process 0 only).

    ``metrics.jsonl`` is what tests and people read back; on resume at step k it
    is cut to the lines of steps <= k, so the file always describes one
    uninterrupted history.
    """

    def __init__(self, workdir: str | Path, resume_step: int, enabled: bool) -> None:
        self.enabled = enabled
        self.path = storage.path(workdir) / "metrics.jsonl"
        self._tb = None
        if not enabled:
            return
        existed = self.path.exists()
        kept = ""  # the rows up to the resumed step
        if existed:
            kept = "".join(
                line + "\n"
                for line in self.path.read_text().splitlines()
                if line.strip() and json.loads(line)["step"] <= resume_step
            )
        if storage.is_remote(self.path):
            # Objects cannot be appended to: the whole file is uploaded at most once a
            # minute and at close (pretrain.storage).
            initial = kept.encode("utf-8")
            self._file = storage.RemoteLog(self.path, initial, min_seconds=REMOTE_SYNC_SECONDS)
        else:
            if existed:
                storage.write_text_atomic(self.path, kept)
            self._file = open(self.path, "a", encoding="utf-8")  # noqa: SIM115
        try:
            from tensorboardX import SummaryWriter

            storage.register_tensorboard()
            self._tb = SummaryWriter(
                os.fspath(self.path.parent / "tensorboard"),
                purge_step=resume_step + 1 if resume_step else None,
            )
        except ImportError:  # pragma: no cover - tensorboardX is a dependency
            logging.warning("tensorboardX not installed: no TensorBoard events")

    def write(self, step: int, scalars: Mapping[str, float]) -> None:
        if not self.enabled:
            return
        clean = {k: float(v) for k, v in scalars.items() if v is not None}
        self._file.write(json.dumps({"step": step, **clean}, sort_keys=True) + "\n")
        self._file.flush()
        if self._tb is not None:
            for k, v in clean.items():
                self._tb.add_scalar(k, v, step)

    def close(self) -> None:
        if self.enabled:
            self._file.close()
            if self._tb is not None:
                self._tb.close()


def read_metrics(workdir: str | Path) -> list[dict[str, float]]:
    path = storage.path(workdir) / "metrics.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


class Progress:
    """tqdm on a terminal, a plain log line every ``log_every`` steps otherwise."""

    def __init__(self, start: int, total: int, enabled: bool) -> None:
        self.bar = None
        if enabled and sys.stderr.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=total, initial=start, unit="step", dynamic_ncols=True)

    def update(self, step: int, metrics: Mapping[str, float] | None) -> None:
        if self.bar is not None:
            self.bar.update(1)
            if metrics:
                self.bar.set_postfix(loss=f"{metrics['loss']:.4f}", refresh=False)
        elif metrics:
            parts = " ".join(f"{k}={v:.5g}" for k, v in metrics.items())
            logging.info("step %d %s", step, parts)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def describe_throughput(
    step_time: float,
    tokens_per_step: int,
    model_config: models.ModelConfig,
    seq_len: int,
    max_predictions: int,
    peak_override: float = 0.0,
) -> dict[str, float | None]:
    """tokens/s, and MFU = flops_per_token * tokens/s / (devices * peak) when the peak is known."""
    tokens_per_s = tokens_per_step / step_time
    peak = peak_flops_per_device(override=peak_override)
    flops = models.flops_per_token(model_config, seq_len, max_predictions)
    devices = jax.device_count()
    mfu = flops * tokens_per_s / (devices * peak) if peak else None
    return {
        "step_time_s": step_time,
        "tokens_per_s": tokens_per_s,
        "tokens_per_s_per_device": tokens_per_s / devices,
        "mfu": mfu,
    }


# Logged as the interval's last value, not its mean.
LAST_VALUE_KEYS = ("learning_rate",)


class IntervalMeter:
    """Interval means of the step metrics and the throughput between two log lines.

    * The clock starts when the first step of the process finishes (that step compiled), so
      compilation never enters a step time; that first step's metrics still enter the means.
    * Time spent inside `excluded()` (evaluation, checkpoint saves) is subtracted.
    * `add_data_wait` adds host time spent waiting for the next batch (a slow input pipeline
      shows as ``perf/data_wait_s`` per step, not as a slow model).
    * `summary()` returns the means (``loss`` is the interval's mean loss, not the last step's)
      and ``perf/step_time_s``, ``perf/tokens_per_s``, ``perf/tokens_per_s_per_device``,
      ``perf/data_wait_s`` and ``perf/mfu`` (when the device's peak is known), then starts a new
      interval.
    """

    def __init__(
        self,
        tokens_per_step: int,
        model_config: models.ModelConfig,
        seq_len: int,
        max_predictions: int,
        peak_override: float = 0.0,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.tokens_per_step = tokens_per_step
        self.model_config = model_config
        self.seq_len = seq_len
        self.max_predictions = max_predictions
        self.peak_override = peak_override
        self.clock = clock
        self._t0: float | None = None
        self._reset()

    def _reset(self) -> None:
        self._sums: dict[str, float] = {}
        self._last: dict[str, float] = {}
        self._steps = 0
        self._timed_steps = 0
        self._excluded = 0.0
        self._data_wait = 0.0

    def add_data_wait(self, seconds: float) -> None:
        self._data_wait += seconds

    @contextlib.contextmanager
    def excluded(self) -> Iterator[None]:
        t = self.clock()
        try:
            yield
        finally:
            if self._t0 is not None:
                self._excluded += self.clock() - t

    def add(self, metrics: Mapping[str, float]) -> None:
        """One finished step's host metrics."""
        now = self.clock()
        if self._t0 is None:
            self._t0 = now  # the first step compiled: time from here
        else:
            self._timed_steps += 1
        self._steps += 1
        for k, v in metrics.items():
            self._sums[k] = self._sums.get(k, 0.0) + float(v)
            self._last[k] = float(v)

    def summary(self) -> dict[str, float]:
        out = {
            k: (self._last[k] if k in LAST_VALUE_KEYS else v / max(self._steps, 1))
            for k, v in self._sums.items()
        }
        now = self.clock()
        if self._steps:
            out["perf/data_wait_s"] = self._data_wait / self._steps
        if self._timed_steps and self._t0 is not None:
            step_time = max(now - self._t0 - self._excluded, 1e-9) / self._timed_steps
            perf = describe_throughput(
                step_time,
                self.tokens_per_step,
                self.model_config,
                self.seq_len,
                self.max_predictions,
                self.peak_override,
            )
            out.update({f"perf/{k}": v for k, v in perf.items() if v is not None})
        self._t0 = now if self._t0 is not None else None
        self._reset()
        return out


def has_tpu_hardware() -> bool:
    """Whether this machine has TPU device files (what JAX's own TPU detection looks for)."""
    import glob

    return bool(glob.glob("/dev/accel*") or glob.glob("/dev/vfio/[0-9]*"))


class _QuietLibraries(logging.Filter):
    """Drops orbax's per-save INFO chatter (dozens of lines per checkpoint) and, on a machine
    without TPU hardware, JAX's INFO line "Unable to initialize backend 'tpu': ... Failed to
    open libtpu.so" (JAX tries every backend; on a TPU VM the line is a diagnosis and stays).
    Keeps every warning."""

    def __init__(self, tpu_hardware: bool | None = None) -> None:
        super().__init__()
        self.tpu_hardware = has_tpu_hardware() if tpu_hardware is None else tpu_hardware

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.WARNING:
            return True
        if "orbax" in record.pathname:
            return False
        return self.tpu_hardware or not _is_tpu_backend_failure(record)


def _is_tpu_backend_failure(record: logging.LogRecord) -> bool:
    return record.pathname.endswith("xla_bridge.py") and record.getMessage().startswith(
        "Unable to initialize backend 'tpu':"
    )


def log_info_without_library_chatter() -> None:
    """INFO logging for a training CLI (pretrain.main, finetune), minus orbax's chatter."""
    logging.getLogger().setLevel(logging.INFO)
    for handler in logging.getLogger().handlers + logging.getLogger("absl").handlers:
        handler.addFilter(_QuietLibraries())
