"""``python -m tpu.worker [--log-file F] [--log-uri URI] -- PRETRAIN_FLAGS``: one host's job.

What the launcher starts on every TPU worker (and `tpu.gpu` on every GPU host): it runs
``python -m pretrain.main PRETRAIN_FLAGS`` as a child process, appends the child's output to a
local log file, copies that log to ``URI/<hostname>.log`` every minute and at exit (so a
preempted VM's log survives it), forwards SIGTERM/SIGINT to the child (which then takes part in
the coordinated save-and-stop of `pretrain.train`) and exits with the child's exit code (0 done,
75 preempted, 130 Ctrl-C: `pretrain.supervision`). The child runs in its own session, so a
Ctrl-C in the terminal reaches it once, through this wrapper (twice would mean "exit at once").

``URI`` may be a ``gs://`` prefix or a local folder (tests, shared file systems on GPU
clusters); the copy goes through `pretrain.storage`, like every other file of the run.
"""

from __future__ import annotations

import argparse
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from pretrain import storage
from tpu.settings import split_passthrough

UPLOAD_SECONDS = 60.0
FINAL_UPLOAD_SECONDS = 120.0


def upload(log_file: Path, log_uri: str) -> None:
    """Copies the log to ``log_uri/<hostname>.log``; failures are reported, never fatal."""
    target = f"{log_uri.rstrip('/')}/{socket.gethostname()}.log"
    try:
        storage.copy_file(log_file, target)
    except Exception as e:  # noqa: BLE001 - any storage error (auth, network): log, go on
        print(f"[tpu.worker] log upload to {target} failed: {e}", file=sys.stderr, flush=True)


def run(
    pretrain_args: list[str],
    log_file: Path,
    log_uri: str = "",
    every: float = UPLOAD_SECONDS,
    module: str = "pretrain.main",
) -> int:
    """Runs pretraining, logging and uploading as described above; returns its exit code."""
    log_file.parent.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-u", "-m", module, *pretrain_args]
    with open(log_file, "ab") as log:
        log.write(f"[tpu.worker] {time.strftime('%F %T')} start: {cmd}\n".encode())
        log.flush()
        child = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

        def forward(signum, _frame):
            if child.poll() is None:
                child.send_signal(signum)

        previous = {s: signal.signal(s, forward) for s in (signal.SIGTERM, signal.SIGINT)}
        stop = threading.Event()

        def uploader():
            while not stop.wait(every):
                upload(log_file, log_uri)

        thread = threading.Thread(target=uploader, daemon=True) if log_uri else None
        if thread:
            thread.start()
        try:
            rc = child.wait()
        finally:
            stop.set()
            for s, h in previous.items():
                signal.signal(s, h)
        log.write(f"[tpu.worker] {time.strftime('%F %T')} exit {rc}\n".encode())
    if log_uri:  # the last copy; bounded, so a stuck upload cannot hold the exit code back
        last = threading.Thread(target=upload, args=(log_file, log_uri), daemon=True)
        last.start()
        last.join(FINAL_UPLOAD_SECONDS)
    return rc


def main(argv: list[str] | None = None) -> int:
    own, rest = split_passthrough(argv)
    parser = argparse.ArgumentParser(
        prog="python -m tpu.worker",
        description="Runs pretrain.main on this host with a log file uploaded to a bucket.",
        epilog="Everything after -- goes to pretrain.main (--config ..., --workdir ...).",
    )
    parser.add_argument("--log-file", default="logs/train.log", type=Path)
    parser.add_argument("--log-uri", default="", help="gs:// prefix or folder for log copies")
    parser.add_argument("--upload-seconds", type=float, default=UPLOAD_SECONDS)
    parser.add_argument("--module", default="pretrain.main", help=argparse.SUPPRESS)  # tests
    args = parser.parse_args(own)
    if not rest:
        parser.error("no pretrain.main flags after --")
    return run(rest, args.log_file, args.log_uri, args.upload_seconds, args.module)


if __name__ == "__main__":
    sys.exit(main())
