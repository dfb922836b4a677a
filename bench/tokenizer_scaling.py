"""Benchmark: time, peak memory, temporary disk and alphabet size of one vocabulary training.

    python -m bench.tokenizer_scaling --label 100MB --json /tmp/tok/scaling.jsonl -- \\
        --input CORPUS... --output /tmp/tok/s/100MB --vocab 32000 --workers 2 --sample-bytes all

Everything after ``--`` is passed to ``python -m tokenizer.train`` (``--force`` and
``--tmp-dir`` are added). The training runs in a child process; this process
polls every 0.2 s the resident memory of the whole process tree (training
process plus its Mecab workers; the mapped Mecab dictionary counts once per
process), the training process's own peak (VmHWM) and the size of the
temporary folder; ``wait4``'s peak is also kept (on Linux it includes this
process's size at fork time). One JSON line per run is
appended to ``--json``: wall time, the count/segment/train split from the
log, the peaks, the text trained on and the alphabet report from
``train_stats.json``. Numbers depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench.provenance import stamp


def _tree_rss(root: int) -> int:
    """Resident bytes of `root` and all its descendants (Linux /proc)."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid, ppid = int(entry), int(fields[1])
        children.setdefault(ppid, []).append(pid)
        rss[pid] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += rss.get(pid, 0)
        stack.extend(children.get(pid, []))
    return total


def _hwm_kb(pid: int) -> int:
    """VmHWM (peak resident KB) of one process's current address space; 0 if gone."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _dir_bytes(path: str) -> int:
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            try:
                total += os.path.getsize(os.path.join(root, f))
            except OSError:
                pass
    return total


def run(train_args: list[str], label: str) -> dict:
    """Runs one training and returns its measurements."""
    tmp = tempfile.mkdtemp(prefix="tok-scaling-")
    cmd = [sys.executable, "-m", "tokenizer.train", *train_args, "--force", "--tmp-dir", tmp]
    peaks = {"tree": 0, "disk": 0}
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    done = threading.Event()

    def poll() -> None:
        while not done.is_set():
            peaks["tree"] = max(peaks["tree"], _tree_rss(proc.pid))
            peaks["main_hwm"] = max(peaks.get("main_hwm", 0), _hwm_kb(proc.pid))
            peaks["disk"] = max(peaks["disk"], _dir_bytes(tmp))
            done.wait(0.2)

    poller = threading.Thread(target=poll, daemon=True)
    poller.start()
    log = proc.stdout.read() if proc.stdout else ""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    done.set()
    poller.join()
    shutil.rmtree(tmp, ignore_errors=True)
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"training failed:\n{log}")
    out = Path(train_args[train_args.index("--output") + 1])
    stats = json.loads((out / "train_stats.json").read_text("utf-8"))
    m = re.search(r"count ([\d.]+)s, segment ([\d.]+)s, train ([\d.]+)s", log)
    return {
        "label": label,
        "output": str(out),
        "method": stats["method"],
        "input_mb": round(
            stats["input"].get("input_bytes", stats["input"].get("bytes_total", 0)) / 1e6, 1
        ),
        "text_mb_trained": round(stats["input"]["bytes"] / 1e6, 1),
        "sample_fraction": stats["input"]["sample_fraction"],
        "wall_s": round(wall, 1),
        "count_s": float(m.group(1)) if m else None,
        "segment_s": float(m.group(2)) if m else None,
        "train_s": float(m.group(3)) if m else None,
        "peak_rss_main_mb": round(peaks.get("main_hwm", 0) / 1024, 1),
        "peak_rss_main_wait4_mb": round(usage.ru_maxrss / 1024, 1),
        "peak_rss_tree_mb": round(peaks["tree"] / 2**20, 1),
        "peak_temp_disk_mb": round(peaks["disk"] / 1e6, 1),
        "alphabet": stats.get("alphabet"),
        "units": stats.get("units"),
        "vocab": stats["vocab"],
        "load_average": os.getloadavg(),
        "command": "python -m tokenizer.train " + " ".join(train_args),
    }


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--" not in argv:
        print("usage: python -m bench.tokenizer_scaling --label L [--json F] -- TRAIN ARGS")
        return 2
    split = argv.index("--")
    p = argparse.ArgumentParser(prog="python -m bench.tokenizer_scaling", description=__doc__)
    p.add_argument("--label", required=True)
    p.add_argument("--json", default=None, help="append the result as one JSON line here")
    args = p.parse_args(argv[:split])
    result = run(argv[split + 1 :], args.label)
    result = stamp(result)
    print(json.dumps(result, ensure_ascii=False))
    if args.json:
        with open(args.json, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(result, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
