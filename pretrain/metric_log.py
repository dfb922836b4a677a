"""Throughput, MFU and metric logging for the pretraining loop.

`MetricLog` writes TensorBoard events (tensorboardX, no TensorFlow) and a
``metrics.jsonl`` that tests and people read back; `Progress` is a tqdm bar on
a terminal and plain log lines otherwise; `describe_throughput` turns a step
time into tokens/s and an MFU estimate from `models.flops_per_token` and the
device's peak in `PEAK_FLOPS`.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jax

from pretrain import models

# Dense bf16 peak FLOP/s per JAX device (a TPU v3/v2 device is one core: half a chip).
PEAK_FLOPS = (
    ("TPU v2", 22.5e12),
    ("TPU v3", 61.5e12),
    ("TPU v4", 275e12),
    ("TPU v5 lite", 197e12),
    ("TPU v5e", 197e12),
    ("TPU v5p", 459e12),
    ("TPU v5", 459e12),
    ("TPU v6 lite", 918e12),
    ("TPU v6e", 918e12),
    ("H200", 989e12),
    ("H100", 989e12),
    ("A100", 312e12),
    ("L4", 121e12),
    ("A10G", 70e12),
)


def peak_flops_per_device(device: Any = None, override: float = 0.0) -> float | None:
    """Peak FLOP/s of one device from a table by device kind; None when unknown (e.g. CPU)."""
    if override:
        return float(override)
    device = device or jax.devices()[0]
    kind = getattr(device, "device_kind", "")
    for name, peak in PEAK_FLOPS:
        if name.lower() in kind.lower():
            return peak
    return None


class MetricLog:
    """Metrics to TensorBoard (tensorboardX) and to ``metrics.jsonl`` (process 0 only).

    ``metrics.jsonl`` is what tests and people read back; on resume at step k it
    is cut to the lines of steps <= k, so the file always describes one
    uninterrupted history.
    """

    def __init__(self, workdir: Path, resume_step: int, enabled: bool) -> None:
        self.enabled = enabled
        self.path = workdir / "metrics.jsonl"
        self._tb = None
        if not enabled:
            return
        if self.path.exists():
            kept = [
                line
                for line in self.path.read_text().splitlines()
                if line.strip() and json.loads(line)["step"] <= resume_step
            ]
            tmp = self.path.with_name(self.path.name + ".tmp")
            tmp.write_text("".join(line + "\n" for line in kept))
            tmp.replace(self.path)
        self._file = open(self.path, "a", encoding="utf-8")  # noqa: SIM115
        try:
            from tensorboardX import SummaryWriter

            self._tb = SummaryWriter(
                str(workdir / "tensorboard"), purge_step=resume_step + 1 if resume_step else None
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
    path = Path(workdir) / "metrics.jsonl"
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
    mfu = flops * tokens_per_s / (jax.device_count() * peak) if peak else None
    return {"step_time_s": step_time, "tokens_per_s": tokens_per_s, "mfu": mfu}
