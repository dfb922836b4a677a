"""Keeping a long run alive: preemption agreed across hosts, saves by time, a hang watchdog.

Three pieces the train loop (`pretrain.train.train_and_evaluate`) asks once per step:

* `PreemptionWatcher` turns SIGTERM (what Cloud TPU, Kubernetes and SLURM send before a kill)
  and SIGINT (Ctrl-C) into a local flag. The handler only sets the flag: saving from inside a
  signal handler would race the train step. A second Ctrl-C ends the process at once.
* `HostAgreement` makes every per-step decision that depends on something local (a signal, a
  host's clock) a decision of all hosts. Hosts are signalled at different moments (a spot
  preemption or a maintenance event reaches each VM on its own schedule); if one host started
  saving at step 17 while another ran step 18, both would wait forever in mismatched
  collectives. So every ``every`` steps each host contributes its flags to a tiny jitted
  all-reduce (max over every device of every host) and all hosts act on the reduced flags at
  the same step. The reduction is dispatched after the train step and read one check later,
  when it is long finished, so the host never waits on it and keeps running ahead of the
  device. With one process there is nothing to agree on: flags are used as they are, at once.
* `SaveClock` says when a time-based save is due (``checkpoint_every_minutes``); its clock is
  injectable so a test can move time by hand.
* `Watchdog` is a daemon thread: when no step has finished for ``multiple`` times the median
  step time (and at least ``min_seconds``), it writes the stack of every thread to stderr and
  ends the process with `HANG_EXIT_CODE`, so a supervisor restarts the job from the last
  checkpoint instead of paying for a hung slice. Evaluation and checkpoint saves run under
  `Watchdog.paused` and do not count as a stall; the first (compiling) step is not timed.
"""

from __future__ import annotations

import contextlib
import faulthandler
import logging
import os
import signal
import statistics
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

# Exit statuses of `python -m pretrain.main` and `python -m finetune`, so that any scheduler (a
# Slurm script, `tpu.gpu local`, systemd) tells "saved, not finished: run again" from "done".
DONE_EXIT_CODE = 0
NONFINITE_EXIT_CODE = 1  # a non-finite loss: rerunning repeats it
HANG_EXIT_CODE = 3  # the watchdog found no finished step for too long: restart from the last save
PREEMPTED_EXIT_CODE = 75  # SIGTERM (or another host's signal): saved, not finished (EX_TEMPFAIL)
INTERRUPTED_EXIT_CODE = 130  # Ctrl-C: saved, not finished (128 + SIGINT, the shell's convention)
# Flag positions in the vector `HostAgreement` reduces.
STOP, SAVE = 0, 1


class PreemptionWatcher:
    """SIGTERM or SIGINT -> ``requested``; install early (pretrain.main does it before compiling).

    A signal that arrives before the loop starts (while compiling, restoring) is kept and acted
    on at the first agreed step. The loop combines ``requested`` with the other hosts' flags
    through `HostAgreement`; the watcher itself never decides alone. The first Ctrl-C prints one
    line saying so; a second one exits at once with `INTERRUPTED_EXIT_CODE` (no save awaited).
    """

    def __init__(self, signals: Sequence[int] = (signal.SIGTERM, signal.SIGINT)) -> None:
        self.requested = False
        self.interrupted = False  # a Ctrl-C (SIGINT) arrived
        self.signal_name: str | None = None
        self.signals = tuple(signals)
        self._previous: dict[int, Any] = {}

    def install(self) -> PreemptionWatcher:
        for sig in self.signals:
            try:
                self._previous[sig] = signal.signal(sig, self._handle)
            except ValueError:  # not the main thread (e.g. under some test runners)
                logging.warning("cannot install a %s handler outside the main thread", sig)
        return self

    def uninstall(self) -> None:
        for sig, prev in self._previous.items():
            signal.signal(sig, prev)
        self._previous.clear()

    def _handle(self, signum: int, frame: Any) -> None:
        if signum == signal.SIGINT:
            if self.interrupted:
                print("second Ctrl-C: exiting now, without a checkpoint", file=sys.stderr)
                sys.stderr.flush()
                os._exit(INTERRUPTED_EXIT_CODE)
            self.interrupted = True
            print(
                "Ctrl-C: saving a checkpoint at the next step all hosts agree on, then exiting "
                f"with status {INTERRUPTED_EXIT_CODE} (Ctrl-C again: exit at once, no save)",
                file=sys.stderr,
                flush=True,
            )
        self.request(signal.Signals(signum).name)

    def exit_code(self, stopped: str) -> int:
        """The process's exit status for a run that ended ``stopped`` ("done" | "preempted")."""
        if stopped != "preempted":
            return DONE_EXIT_CODE
        return INTERRUPTED_EXIT_CODE if self.interrupted else PREEMPTED_EXIT_CODE

    def stop_reason(self, stopped: str) -> str:
        """How a run that ended `stopped` ended, in words: "done", "stopped by Ctrl-C" (exit
        130) or "preempted" (exit 75). The run summary says "preempted" for both, since both
        are a save-and-stop; the user's last line should name the one that happened."""
        code = self.exit_code(stopped)
        return {INTERRUPTED_EXIT_CODE: "stopped by Ctrl-C", PREEMPTED_EXIT_CODE: "preempted"}.get(
            code, "done"
        )

    def request(self, reason: str) -> None:
        """Asks for a save-and-stop (what the signal handler does; also for tests and tools)."""
        if not self.requested:
            self.requested, self.signal_name = True, reason


class SetupError(ValueError):
    """The config contradicts the examples or the ``init_from`` folder: found before any
    compilation, reported by `pretrain.main` as one ``error:`` line (exit 2)."""


class HostAgreement:
    """Max over all hosts of a small vector of integer flags, pipelined by one check.

    ``poll(step, flags)`` must be called by every process with the same ``step`` sequence
    (the train loop does: same loop bounds everywhere). It returns the flags all hosts act on
    at ``step``: on one process, ``flags`` themselves; on several, every ``every`` steps the
    reduction of the flags sent at the previous check (zeros in between and before the first
    result). Every host gets the same answer at the same step, whatever it sent.
    """

    def __init__(self, mesh: Any = None, every: int = 1, size: int = 2) -> None:
        import jax

        self.every = max(int(every), 1)
        self.size = size
        self.multi = jax.process_count() > 1 and mesh is not None
        self._pending: Any = None
        if self.multi:
            import jax.numpy as jnp
            from jax.sharding import NamedSharding
            from jax.sharding import PartitionSpec as P

            from pretrain import sharding

            self._in = NamedSharding(mesh, P(sharding.BATCH_AXES))
            self._local_devices = sum(
                d.process_index == jax.process_index() for d in mesh.devices.flat
            )
            self._reduce = jax.jit(
                lambda x: jnp.max(x, axis=0), out_shardings=NamedSharding(mesh, P())
            )

    def poll(self, step: int, flags: Sequence[bool]) -> np.ndarray:
        local = np.asarray(flags, dtype=np.int32).reshape(self.size)
        if not self.multi:
            return local
        if step % self.every:
            return np.zeros(self.size, np.int32)
        import jax

        agreed = np.zeros(self.size, np.int32)
        if self._pending is not None:
            agreed = np.asarray(jax.device_get(self._pending), dtype=np.int32)
        rows = np.broadcast_to(local, (self._local_devices, self.size))
        self._pending = self._reduce(jax.make_array_from_process_local_data(self._in, rows))
        return agreed


class SaveClock:
    """Whether a time-based save is due: ``minutes`` since the last save (0 = never).

    ``clock`` (seconds, monotonic) is injectable for tests; `reset` is called after every save,
    whatever triggered it, so a step-based save also restarts the time budget.
    """

    def __init__(self, minutes: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = float(minutes) * 60.0
        self.clock = clock
        self.last = clock()

    def due(self) -> bool:
        return self.seconds > 0 and self.clock() - self.last >= self.seconds

    def reset(self) -> None:
        self.last = self.clock()


def dump_all_stacks(file: Any = None) -> None:
    """Writes the Python stack of every thread (names included) to ``file`` (stderr)."""
    file = file or sys.stderr
    names = {t.ident: t.name for t in threading.enumerate()}
    frames = sys._current_frames()
    import traceback

    for ident, frame in frames.items():
        print(f"--- thread {names.get(ident, '?')} ({ident}) ---", file=file)
        print("".join(traceback.format_stack(frame)), file=file)
    file.flush()
    with contextlib.suppress(Exception):  # also native-level frames, where available
        faulthandler.dump_traceback(file=file, all_threads=True)


def _exit_hung() -> None:
    logging.shutdown()
    os._exit(HANG_EXIT_CODE)


class Watchdog:
    """Ends a hung process: no finished step for ``max(multiple * median, min_seconds)``.

    ``beat()`` after every finished step; the first beat only starts the clock (the first step
    compiles). The median is over the last ``window`` step times. ``on_hang`` (default: write
    every thread's stack and exit with `HANG_EXIT_CODE`) and ``clock`` are injectable for tests.
    ``multiple <= 0`` disables it.
    """

    def __init__(
        self,
        multiple: float,
        min_seconds: float,
        *,
        window: int = 50,
        poll_seconds: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        on_hang: Callable[[str], None] | None = None,
    ) -> None:
        self.multiple = float(multiple)
        self.min_seconds = float(min_seconds)
        self.clock = clock
        self.on_hang = on_hang or self._default_on_hang
        self.poll_seconds = poll_seconds or max(min(self.min_seconds / 4, 5.0), 0.01)
        self._times: deque[float] = deque(maxlen=window)
        self._last: float | None = None
        self._paused = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.fired = False

    @property
    def enabled(self) -> bool:
        return self.multiple > 0

    def start(self) -> Watchdog:
        if self.enabled and self._thread is None:
            self._thread = threading.Thread(target=self._run, name="pretrain-watchdog", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def beat(self) -> None:
        now = self.clock()
        with self._lock:
            if self._last is not None and not self._paused:
                self._times.append(now - self._last)
            self._last = now

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """Evaluation, checkpoint saves: not steps, may take long, never a hang."""
        with self._lock:
            self._paused += 1
        try:
            yield
        finally:
            with self._lock:
                self._paused -= 1
                if self._last is not None:
                    self._last = self.clock()

    def limit(self) -> float | None:
        """Seconds without a finished step that count as a hang (None until a step is timed)."""
        with self._lock:
            if not self._times:
                return None
            return max(self.multiple * statistics.median(self._times), self.min_seconds)

    def check(self) -> bool:
        """One look (the thread calls it every ``poll_seconds``); True when it fired."""
        limit = self.limit()
        with self._lock:
            if self.fired or limit is None or self._paused or self._last is None:
                return False
            waited = self.clock() - self._last
            if waited < limit:
                return False
            self.fired = True
        self.on_hang(
            f"watchdog: no train step finished for {waited:.0f} s (limit {limit:.0f} s = "
            f"max({self.multiple:g} x median step, {self.min_seconds:g} s)); the stacks of all "
            f"threads follow. Exiting with status {HANG_EXIT_CODE} so the job restarts from "
            "the last checkpoint."
        )
        return True

    def _run(self) -> None:
        while not self._stop.wait(self.poll_seconds):
            if self.check():
                return

    @staticmethod
    def _default_on_hang(message: str) -> None:
        logging.error("%s", message)
        print(message, file=sys.stderr, flush=True)
        dump_all_stacks()
        _exit_hung()
