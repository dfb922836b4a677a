"""Training FLOPs and expected wall-clock days for the KLUE paper's pretraining runs.

    python -m pretrain.flops [--mfu 0.4] [--format markdown|text]

prints, for each paper configuration (model preset, batch size, steps, sequence length), the
parameter count, the training FLOPs per token (`pretrain.models.flops_per_token`: 6 x
matrix-product params + attention), the total FLOPs, and the days one TPU v3-8 and one H200
would need at the assumed model-FLOPs utilisation (MFU). The numbers are arithmetic, not
measurements: measured throughput comes from ``python -m bench.pretrain``.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from typing import Any

from pretrain.masking import default_max_predictions
from pretrain.models import PAPER_PARAMS, PRESETS, count_params, flops_per_token

# Dense bf16 peak FLOP/s per JAX device, by device kind (the one table: MFU in the train log and
# in bench.pretrain, and the day estimates here). A TPU v2/v3 device is one core, half a chip;
# H100/H200 SXM figures are dense (no sparsity). Matched in order, first substring wins.
PEAK_FLOPS_PER_DEVICE = (
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
# Machines of the day estimates: (device kind in the table, devices per machine).
MACHINES = {"tpu-v3-8": ("TPU v3", 8), "h200": ("H200", 1)}


def peak_for_kind(kind: str) -> float | None:
    """Peak FLOP/s of one device of this kind (e.g. "TPU v3", "NVIDIA H200"); None if unknown."""
    for name, peak in PEAK_FLOPS_PER_DEVICE:
        if name.lower() in kind.lower():
            return peak
    return None


def peak_flops_per_device(device: Any = None, override: float = 0.0) -> float | None:
    """Peak FLOP/s of ``device`` (default: JAX's first device); None when unknown (e.g. CPU)."""
    if override:
        return float(override)
    if device is None:
        import jax

        device = jax.devices()[0]
    return peak_for_kind(getattr(device, "device_kind", ""))


# Peak FLOP/s of each machine of the day estimates (TPU v3-8: 8 cores = 492 TFLOP/s).
PEAK_FLOPS = {m: count * peak_for_kind(kind) for m, (kind, count) in MACHINES.items()}
DEFAULT_MFU = 0.40
SECONDS_PER_DAY = 86400.0


@dataclasses.dataclass(frozen=True)
class PaperRun:
    """One pretraining run as the KLUE paper describes it."""

    preset: str
    batch_size: int
    steps: int
    seq_len: int

    @property
    def tokens(self) -> int:
        return self.batch_size * self.steps * self.seq_len


PAPER_RUNS = (
    PaperRun("bert-base", 256, 1_000_000, 512),
    PaperRun("roberta-small", 2048, 1_000_000, 512),
    PaperRun("roberta-base", 2048, 1_000_000, 512),
    PaperRun("roberta-large", 2048, 500_000, 512),
)


def estimate(run: PaperRun, mfu: float = DEFAULT_MFU) -> dict[str, float]:
    """Params, FLOPs per token, total FLOPs and days per device for one run."""
    config = PRESETS[run.preset]
    per_token = flops_per_token(config, run.seq_len)
    total = per_token * run.tokens
    row = {
        "params": float(count_params(config)),
        "max_predictions": float(default_max_predictions(run.seq_len)),
        "flops_per_token": per_token,
        "tokens": float(run.tokens),
        "total_flops": total,
    }
    for device, peak in PEAK_FLOPS.items():
        row[f"days_{device}"] = total / (peak * mfu) / SECONDS_PER_DAY
        row[f"tokens_per_s_{device}"] = peak * mfu / per_token
    return row


def _render(header: list[str], rows: list[list[str]], fmt: str) -> list[str]:
    if fmt == "markdown":
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        return lines + ["| " + " | ".join(r) + " |" for r in rows]
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows, strict=True)]
    return [
        "  ".join(str(x).rjust(w) for x, w in zip(r, widths, strict=True)) for r in [header, *rows]
    ]


def preset_table(fmt: str = "markdown") -> str:
    """Every preset: shape, parameter count, and the paper's count where it gives one."""
    header = [
        "preset",
        "arch",
        "layers",
        "hidden",
        "heads",
        "FFN",
        "positions",
        "params",
        "paper",
        "diff",
    ]
    rows = []
    for name, c in PRESETS.items():
        n = count_params(c)
        paper = PAPER_PARAMS.get(name)
        rows.append(
            [
                name,
                c.arch,
                str(c.num_layers),
                str(c.hidden_size),
                str(c.num_heads),
                str(c.intermediate_size),
                str(c.max_position_embeddings),
                f"{n:,}",
                f"{paper / 1e6:.0f}M" if paper else "-",
                f"{(n - paper) / paper:+.2%}" if paper else "-",
            ]
        )
    note = "tiny presets: vocabulary 1000 here; training sets it from the tokenizer."
    return "\n".join(_render(header, rows, fmt)) + "\n\n" + note


def table(mfu: float = DEFAULT_MFU, fmt: str = "markdown") -> str:
    header = [
        "config",
        "params (M)",
        "batch x steps x len",
        "GFLOP/token",
        "total (1e21 FLOP)",
        "v3-8 tokens/s",
        "v3-8 days",
        "H200 tokens/s",
        "H200 days",
    ]
    rows = []
    for run in PAPER_RUNS:
        e = estimate(run, mfu)
        rows.append(
            [
                run.preset,
                f"{e['params'] / 1e6:.1f}",
                f"{run.batch_size} x {run.steps // 1000}k x {run.seq_len}",
                f"{e['flops_per_token'] / 1e9:.3f}",
                f"{e['total_flops'] / 1e21:.2f}",
                f"{e['tokens_per_s_tpu-v3-8']:,.0f}",
                f"{e['days_tpu-v3-8']:.1f}",
                f"{e['tokens_per_s_h200']:,.0f}",
                f"{e['days_h200']:.1f}",
            ]
        )
    if fmt == "markdown":
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
    else:
        widths = [max(len(str(x)) for x in col) for col in zip(header, *rows, strict=True)]
        lines = [
            "  ".join(str(x).rjust(w) for x, w in zip(r, widths, strict=True))
            for r in [header, *rows]
        ]
    note = (
        f"MFU assumed {mfu:.0%}; peaks: TPU v3-8 {PEAK_FLOPS['tpu-v3-8'] / 1e12:.0f}, "
        f"H200 {PEAK_FLOPS['h200'] / 1e12:.0f} dense bf16 TFLOP/s."
    )
    return "\n".join(lines) + "\n\n" + note


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m pretrain.flops",
        description="FLOPs per token and expected training days for the KLUE paper's runs.",
    )
    parser.add_argument("--mfu", type=float, default=DEFAULT_MFU, help="assumed MFU (0-1]")
    parser.add_argument("--format", choices=("markdown", "text"), default="markdown")
    parser.add_argument(
        "--presets", action="store_true", help="also print every preset's shape and size"
    )
    args = parser.parse_args(argv)
    if not 0 < args.mfu <= 1:
        parser.error("--mfu must be in (0, 1]")
    if args.presets:
        print(preset_table(args.format) + "\n")
    print(table(args.mfu, args.format))
    return 0


if __name__ == "__main__":
    sys.exit(main())
