"""Runs stage commands as subprocesses: a copyable command, one progress line, reuse, logs.

Every stage of a pipeline run is one command of a stage CLI (``python -m corpus.prepare ...``).
`Runner.run` prints the command (copy it to rerun that stage alone), runs it with its output
going to ``<run>/logs/<stage>.log`` and prints one progress line when it ends::

    $ python -m corpus.prepare --input ... --output runs/demo/records --workers 2
    [ 3/17] prepare           done   12.4 s   (log runs/demo/logs/prepare.log)

Reuse: ``<run>/pipeline.json`` records each finished stage's command and time. A stage whose
recorded command is the same and whose output (``done``, a file the stage writes last) exists
is not started again ("reused"), as long as no stage before it in this run had to run (a
stage that ran may have changed what the later ones read). The stage CLIs also keep their own
manifests, so a stage that is started again redoes only what its inputs require.
Every stage gets ``JAX_COMPILATION_CACHE_DIR=<run>/jax-cache`` (unless set): ablation arms
and reruns compile the same programs, and JAX's persistent cache skips the recompilation.
A failing stage stops the run with its exit status and the last lines of its log.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
STATE_FILE = "pipeline.json"


class StageError(RuntimeError):
    """A stage command failed; the message names the stage, its command and its log."""


@dataclasses.dataclass
class StageRecord:
    """What `Runner.run` did for one stage (kept in ``pipeline.json``)."""

    name: str
    command: str
    seconds: float
    reused: bool
    log: str
    status: str = "done"  # "done" or "failed"


def python_module(module: str, *args: str | os.PathLike) -> list[str]:
    """``[sys.executable, "-m", module, *args]`` with every argument as a string."""
    return [sys.executable, "-m", module, *(str(a) for a in args)]


def config_file(spec: str) -> str:
    """A config named from the repository root (``pretrain/configs/tiny.py``, optionally with
    ``:tiny``) as a path its stage finds from the user's working folder: the stages run there,
    and outside the repository the relative name does not exist. Unchanged where it does."""
    path, sep, variant = spec.partition(":")
    if os.path.isabs(path) or os.path.exists(path):
        return spec
    return str(REPO_ROOT / path) + sep + variant


def printable(cmd: Sequence[str], stdout: Path | None = None) -> str:
    """The command as a shell line (``python`` for this interpreter, ``> FILE`` when captured)."""
    parts = ["python" if c == sys.executable else c for c in cmd]
    line = " ".join(shlex.quote(p) for p in parts)
    return f"{line} > {shlex.quote(str(stdout))}" if stdout is not None else line


def _run_child(cmd: Sequence[str], **kwargs) -> subprocess.CompletedProcess:
    """Runs a stage; when this process is interrupted (Ctrl-C, or SIGTERM through
    `stop_on_sigterm`), the stage gets SIGTERM and time to save its state (the training
    stages checkpoint on SIGTERM), so the same command later resumes it."""
    proc = subprocess.Popen(cmd, **kwargs)
    try:
        return subprocess.CompletedProcess(cmd, proc.wait())
    except BaseException:
        proc.terminate()
        try:
            proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        raise


def stop_on_sigterm() -> None:
    """SIGTERM -> KeyboardInterrupt in the main thread, so the running stage is stopped cleanly."""

    def handler(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, handler)


class Runner:
    """Runs the stages of one pipeline run under ``out`` (see the module doc)."""

    def __init__(self, out: Path, total: int, quiet: bool = False) -> None:
        self.out = Path(out)
        self.total = total
        self.quiet = quiet
        self.index = 0
        self.ran_one = False  # once a stage ran, later stages are started (their CLIs decide)
        self.records: list[StageRecord] = []
        self.out.mkdir(parents=True, exist_ok=True)
        state = self.out / STATE_FILE
        self._previous: dict[str, dict] = {}
        if state.is_file():
            self._previous = json.loads(state.read_text(encoding="utf-8")).get("stages", {})

    def previous_records(self) -> list[StageRecord]:
        """The stages recorded in ``pipeline.json`` by earlier runs, in their order."""
        return [StageRecord(**rec) for rec in self._previous.values()]

    def exit_code(self, prog: str, written: str) -> int:
        """0, or 1 after naming on stderr the stages of this run that failed (``written``, the
        report or table, was still written from what finished)."""
        failed = [r.name for r in self.records if r.status == "failed"]
        if failed:
            print(
                f"{prog}: {written} written, but these stages failed: {', '.join(failed)}",
                file=sys.stderr,
            )
            return 1
        return 0

    def _say(self, text: str) -> None:
        if not self.quiet:
            print(text, flush=True)

    def note(self, name: str, text: str) -> None:
        """A progress line for a step done in this process (no command)."""
        self.index += 1
        self._say(f"[{self.index:2d}/{self.total}] {name:<18} {text}")

    def run(
        self,
        name: str,
        cmd: Sequence[str],
        done: Path | None = None,
        stdout: Path | None = None,
        check: bool = True,
    ) -> StageRecord:
        """Runs (or reuses) stage ``name``; ``stdout``: a file that receives the command's
        standard output (e.g. a ``--json`` report); ``check=False`` records a failure instead
        of raising `StageError`."""
        self.index += 1
        line = printable(cmd, stdout)
        log = self.out / "logs" / f"{name}.log"
        now = next((r for r in self.records if r.name == name), None)
        if now is not None and now.command == line and now.status == "done":
            self._say(f"[{self.index:2d}/{self.total}] {name:<18} reused (earlier in this run)")
            return now
        prev = self._previous.get(name)
        if (
            not self.ran_one
            and prev
            and prev.get("command") == line
            and prev.get("status") == "done"
            and (done is None or done.exists())
            and (stdout is None or stdout.exists())
        ):
            rec = StageRecord(name, line, float(prev["seconds"]), True, str(log))
            self._say(f"[{self.index:2d}/{self.total}] {name:<18} reused (finished before)")
            return self._keep(rec)
        self.ran_one = True
        self._say(f"\n$ {line}")
        log.parent.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ)
        # Arms and reruns compile the same XLA programs: a persistent cache per run folder.
        env.setdefault("JAX_COMPILATION_CACHE_DIR", str((self.out / "jax-cache").resolve()))
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(REPO_ROOT), env.get("PYTHONPATH", "")) if p
        )
        start = time.time()
        with open(log, "w", encoding="utf-8") as err:
            if stdout is not None:
                stdout.parent.mkdir(parents=True, exist_ok=True)
                tmp = stdout.with_name(stdout.name + ".tmp")
                with open(tmp, "w", encoding="utf-8") as fh:
                    proc = _run_child(cmd, stdout=fh, stderr=err, env=env)
                if proc.returncode == 0:
                    tmp.replace(stdout)
            else:
                proc = _run_child(cmd, stdout=err, stderr=subprocess.STDOUT, env=env)
        seconds = round(time.time() - start, 1)
        status = "done" if proc.returncode == 0 else "failed"
        rec = StageRecord(name, line, seconds, False, str(log), status)
        self._say(
            f"[{self.index:2d}/{self.total}] {name:<18} {status:<6} {seconds:7.1f} s   (log {log})"
        )
        self._keep(rec)
        if proc.returncode != 0:
            tail = "".join(log.read_text(encoding="utf-8", errors="replace").splitlines(True)[-25:])
            message = f"stage {name} failed (exit {proc.returncode}): {line}\n--- {log} ---\n{tail}"
            if check:
                raise StageError(message)
            self._say(message)
        return rec

    def _keep(self, rec: StageRecord) -> StageRecord:
        self.records = [r for r in self.records if r.name != rec.name] + [rec]
        state = self.out / STATE_FILE
        data = {"stages": {**self._previous}}
        for r in self.records:
            data["stages"][r.name] = dataclasses.asdict(r)
        tmp = state.with_name(STATE_FILE + ".tmp")
        tmp.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        tmp.replace(state)
        return rec
