"""One prepared accelerator check: every figure the benchmarks could only estimate, in 8 minutes.

    python -m bench.device.bundle --output .device    # here, once: data, tokenizer, wheels
    bash bench/device/run.sh --results "$OUT"              # on the lent GPU (docs/bench_device.md)
    python -m bench.device --smoke --output /tmp/dev   # CPU, tiny shapes

Phases (`bench.device.phases`), in this order, each with its own time budget (`PHASES`, seconds
of the whole run's ``--total-s``):

1. ``env``: device kind and count, memory, driver (``nvidia-smi``), Python and package
   versions, which of the packages our code imports are missing, the commit and code digest;
2. ``mfu``: `bench.pretrain` on bert_base and roberta_base at L=512 with ``attention=xla``
   and ``attention=fused``: step time, tokens/s, MFU against `pretrain.flops`' peak;
3. ``pretrain``: roberta_small on the bundle's Korean Wikipedia examples for the phase's
   training seconds (steps sized from a measured step), loss curve and held-out MLM loss;
4. ``finetune``: YNAT and NLI, one epoch each, from that checkpoint and from a random
   initialisation of the same shape (`finetune.main.run_all`, the CLI's own path);
5. ``loader``: `bench.input_pipeline.time_loader` on the bundle's examples against the
   examples/s the device's measured steps consume (phases 2 and 3);
6. ``finetune_step``: `bench.finetune` (ours against stock transformers) with both on the GPU;
7. ``memory``: `bench.pretrain`'s memory table compiled for the device.

Each phase runs in its own child process (``--phase NAME``) under its budget (or what is left
of ``--total-s``); a phase that fails or runs out of time is recorded with its error and the
next one starts. ``RESULTS/device.json`` and ``RESULTS/device.md`` are rewritten after every
phase, and a phase's finished rows are kept in ``OUTPUT/phase-NAME.json`` as they come, so a
run killed from outside still leaves its figures. ``--smoke``
runs the same phases in this process on tiny shapes (the CPU test, `tests/test_bench_device.py`),
building a tiny bundle when none is given.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

from bench.device import bundle as device_bundle

RESULTS = "device.json"
MARKDOWN = "device.md"
PARTIAL = "phase-{}.json"  # what a child phase has written so far (rows as they finish)


@dataclass(frozen=True)
class Phase:
    name: str
    budget_s: float  # on the device
    what: str


PHASES = (
    Phase("env", 15, "device, versions, missing packages, commit"),
    Phase("mfu", 80, "MFU of bert_base and roberta_base at L=512, attention xla and fused"),
    Phase("pretrain", 180, "3-minute roberta_small pretraining on Korean Wikipedia"),
    Phase("finetune", 100, "YNAT and NLI, one epoch, pretrained vs random initialisation"),
    Phase("loader", 15, "input loader against the measured steps"),
    Phase("finetune_step", 40, "fine-tuning step: ours vs stock transformers on the device"),
    Phase("memory", 40, "memory table compiled for the device"),
)
TOTAL_S = 470.0  # under 8 minutes with the process starts
SMOKE_TOTAL_S = 3600.0


class Context:
    """What a phase reads (bundle, earlier results, its deadline) and how it saves rows."""

    def __init__(self, args: argparse.Namespace, results: dict, deadline: float, name: str):
        self.args, self.smoke = args, bool(args.smoke)
        self.bundle, self.out = Path(args.bundle), Path(args.output)
        self.dest = Path(args.results or args.output)
        self.results, self.deadline, self.name = results, deadline, name
        self.partial: dict = {}
        self.isolated = bool(args.phase)  # a child process of its own (signals are its own)

    def left(self) -> float:
        return self.deadline - time.time()

    def earlier(self, phase: str) -> dict:
        """The result of an earlier phase ({} when it failed or did not run)."""
        return self.results["phases"].get(phase, {}).get("result") or {}

    def save(self, **rows) -> None:
        """Keeps ``rows`` (merged into the phase's result) where a killed phase still leaves
        them: the partial file in a child, the results files in this process."""
        self.partial.update(rows)
        _write_json(self.out / PARTIAL.format(self.name), self.partial)
        if self.isolated and "result" in self.partial:  # the parent waits: the files are ours
            entry = {"status": "running", "result": self.partial["result"]}
            write_results(
                {**self.results, "phases": {**self.results["phases"], self.name: entry}}, self.dest
            )


def _write_json(path: Path, obj: object) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(obj, indent=1, ensure_ascii=False, default=str) + "\n")
    os.replace(tmp, path)


def write_results(results: dict, out: Path) -> None:
    """device.json and device.md, atomically (a reader never sees half a file)."""
    from bench.device.report import render

    _write_json(out / RESULTS, results)
    tmp = out / (MARKDOWN + ".tmp")
    tmp.write_text(render(results), encoding="utf-8")
    os.replace(tmp, out / MARKDOWN)


def _child_command(args: argparse.Namespace, name: str, deadline: float) -> list[str]:
    cmd = [sys.executable, "-m", "bench.device", "--phase", name, "--deadline", f"{deadline:.3f}"]
    cmd += ["--bundle", str(args.bundle), "--output", str(args.output)]
    cmd += ["--results", str(args.results or args.output)]
    return cmd + (["--smoke"] if args.smoke else [])


def run_child(cmd: list[str], budget: float, partial: Path) -> dict:
    """Runs one phase's child under ``budget`` seconds; its result, or the error and what it
    had saved. The child gets its own process group, so a timeout stops its children too."""
    start = time.time()
    with open(partial.with_suffix(".log"), "w") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            code = proc.wait(timeout=budget)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            code = None
    entry: dict = {"seconds": round(time.time() - start, 1)}
    saved = json.loads(partial.read_text()) if partial.is_file() else {}
    tail = partial.with_suffix(".log").read_text(errors="replace").strip().splitlines()[-15:]
    if code == 0 and "result" in saved:
        entry.update(status="ok", result=saved["result"])
        return entry
    entry["result"] = saved.get("result", saved) or None
    if code is None:
        entry.update(status="timeout", error=f"stopped at its budget of {budget:.0f} s")
    else:
        entry.update(status="failed", error=saved.get("error") or f"exit {code}")
    entry["log_tail"] = tail
    return entry


def run_in_process(ctx: Context) -> dict:
    from bench.device import phases as device_phases

    start = time.time()
    try:
        result = getattr(device_phases, ctx.name)(ctx)
        return {"status": "ok", "seconds": round(time.time() - start, 1), "result": result}
    except Exception as e:  # a failing phase is recorded; the next one runs
        return {
            "status": "failed",
            "seconds": round(time.time() - start, 1),
            "error": f"{type(e).__name__}: {e}",
            "result": ctx.partial or None,
            "log_tail": traceback.format_exc().strip().splitlines()[-15:],
        }


def run_phase_child(args: argparse.Namespace) -> int:
    """``--phase NAME`` (in a child): runs it, writes ``phase-NAME.json`` with the result."""
    from bench.device import phases as device_phases

    results = json.loads((Path(args.output) / RESULTS).read_text())
    ctx = Context(args, results, args.deadline, args.phase)
    try:
        result = getattr(device_phases, args.phase)(ctx)
    except Exception as e:
        ctx.save(error=f"{type(e).__name__}: {e}", result=dict(ctx.partial))
        raise
    ctx.save(result=result)
    return 0


def run_all(args: argparse.Namespace) -> dict:
    out, dest = Path(args.output), Path(args.results or args.output)
    out.mkdir(parents=True, exist_ok=True)
    dest.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    names = [p.name for p in PHASES if not args.only or p.name in args.only]
    results = {
        "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t0)),
        "command": " ".join(["python -m bench.device", *args.argv]),
        "smoke": bool(args.smoke),
        "total_budget_s": args.total_s,
        "bundle": str(args.bundle),
        "phases": {},
    }
    _write_json(out / RESULTS, results)  # what the phases' child processes read
    write_results(results, dest)
    end = t0 + args.total_s
    for phase in (p for p in PHASES if p.name in names):
        left = end - time.time()
        budget = min(phase.budget_s * (args.total_s / TOTAL_S), left)
        if budget < 3:
            results["phases"][phase.name] = {"status": "skipped", "error": "no time left"}
            write_results(results, dest)
            continue
        print(f"bench.device: {phase.name} ({phase.what}), {budget:.0f} s", flush=True)
        deadline = time.time() + budget
        ctx = Context(args, results, deadline, phase.name)
        if args.isolate:
            cmd = _child_command(args, phase.name, deadline)
            entry = run_child(cmd, budget, out / PARTIAL.format(phase.name))
        else:
            entry = run_in_process(ctx)
        entry["budget_s"] = round(budget, 1)
        results["phases"][phase.name] = entry
        results["seconds"] = round(time.time() - t0, 1)
        _write_json(out / RESULTS, results)
        write_results(results, dest)
        print(f"bench.device: {phase.name} {entry['status']} in {entry['seconds']} s", flush=True)
    return results


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m bench.device", description=__doc__.split("\n")[0])
    p.add_argument("--output", required=True, help="work folder: runs, checkpoints, phase logs")
    p.add_argument(
        "--results",
        default=None,
        help="folder for device.json and device.md, rewritten after each phase (default: output)",
    )
    p.add_argument("--bundle", default=None, help=f"default: {device_bundle.BUNDLE}/ of the repo")
    p.add_argument("--total-s", type=float, default=None, help=f"whole run (default {TOTAL_S:g})")
    p.add_argument("--only", nargs="+", choices=[ph.name for ph in PHASES], default=None)
    p.add_argument("--smoke", action="store_true", help="CPU, tiny shapes, in this process")
    p.add_argument(
        "--isolate",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="each phase in its own process (default: yes, except with --smoke)",
    )
    p.add_argument("--phase", help=argparse.SUPPRESS)
    p.add_argument("--deadline", type=float, help=argparse.SUPPRESS)
    return p


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser().parse_args(argv)
    args.argv = argv
    if args.smoke:  # tiny programs: compilation is the work; XLA's passes are not needed
        import jax

        jax.config.update("jax_disable_most_optimizations", True)
    if args.phase:
        return run_phase_child(args)
    if args.isolate is None:
        args.isolate = not args.smoke
    if args.total_s is None:  # a smoke run on a loaded CPU is not held to the device's budget
        args.total_s = SMOKE_TOTAL_S if args.smoke else TOTAL_S
    if args.bundle is None and args.smoke:  # never the real bundle: a tiny one of its own
        args.bundle = str(Path(args.output) / "bundle")
        if not (Path(args.bundle) / "bundle.json").is_file():
            device_bundle.main(["--smoke", "--output", args.bundle])
    if args.bundle is None:
        args.bundle = str(device_bundle.REPO_ROOT / device_bundle.BUNDLE)
    if not (Path(args.bundle) / "bundle.json").is_file():
        print(
            f"bench.device: no bundle at {args.bundle}: build it first with "
            "`python -m bench.device.bundle` (docs/bench_device.md)",
            file=sys.stderr,
        )
        return 2
    results = run_all(args)
    failed = [n for n, e in results["phases"].items() if e["status"] != "ok"]
    note = f"; not ok: {failed}" if failed else ""
    print(f"bench.device: wrote {Path(args.results or args.output) / MARKDOWN}{note}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
