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

from pretrain.models import (
    PAPER_PARAMS,
    PRESETS,
    count_params,
    default_max_predictions,
    flops_per_token,
)

# Dense bfloat16 peak FLOP/s per device used for MFU and the day estimates.
# TPU v3-8: 4 chips x 123 TFLOP/s (8 cores); H200 SXM: 989 TFLOP/s dense (no sparsity).
PEAK_FLOPS = {"tpu-v3-8": 492e12, "h200": 989e12}
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
