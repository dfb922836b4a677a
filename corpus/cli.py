"""What every command-line entry point shares: the package index and error exits.

`print_index` serves ``python -m <package>``: it lists the package's entry
points. `run` wraps a stage's ``main`` so that bad input, a refused output
folder or a failed shard end with one ``error: file:line: reason`` line and
exit status 2, never a bare traceback; Ctrl-C ends with one line and status 130.
Worker processes leave Ctrl-C to their parent and do not outlive it: they are spawned
inside `spawning_deaf_to_ctrl_c` and start with `start_worker`.
`report_errors` is the same error exit for a ``main`` that returns its status
(the export and predict commands of ``pretrain`` and ``finetune``, which tests
call in-process).
"""

from __future__ import annotations

import contextlib
import importlib.util
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator

from corpus.textio import InputError

#: Errors that mean "the user's input or folders are wrong", reported without a traceback.
USER_ERRORS = (InputError, FileExistsError, FileNotFoundError, NotADirectoryError, ValueError)


def ignore_ctrl_c() -> None:
    """Worker initialiser: Ctrl-C reaches the whole process group; only the parent acts on
    it (and stops the workers), so no worker prints a traceback of its own."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def exit_with_parent(every_s: float = 1.0) -> None:
    """In a worker process: a daemon thread that exits the process once its parent has died.

    A ProcessPoolExecutor's or multiprocessing Pool's worker waits on a queue whose write end
    it holds itself, so it never sees its parent die: a stage or training process killed with
    SIGKILL (an out-of-memory kill) left its workers running, holding their memory, until the
    machine was rebooted (two such orphans were still there 23 s after the kill). The parent
    is the one multiprocessing recorded when it spawned this worker, so a parent already gone
    before this call (the worker is then a child of init) is noticed too."""
    spawner = multiprocessing.parent_process()
    parent = spawner.pid if spawner is not None else os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(every_s)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="parent-watch").start()


def start_worker() -> None:
    """Worker initialiser of every process pool: Ctrl-C is the parent's (`ignore_ctrl_c`) and
    the worker goes when its parent goes (`exit_with_parent`)."""
    ignore_ctrl_c()
    exit_with_parent()


@contextlib.contextmanager
def spawning_deaf_to_ctrl_c() -> Iterator[None]:
    """SIGINT ignored in the parent while worker processes are spawned in this block (a
    multiprocessing Pool at construction, a ProcessPoolExecutor in `submit`), so each is
    exec'd with SIGINT ignored: an ignored signal stays ignored across exec, and Python
    keeps it so.

    `ignore_ctrl_c` alone leaves a window: a worker still importing (seconds on a loaded
    machine) when Ctrl-C reaches the process group raised KeyboardInterrupt inside
    multiprocessing's spawn_main and printed a traceback (seen in CI). A Ctrl-C pressed
    during the spawning itself (milliseconds per worker) is not seen; the next one is.
    Outside the main thread (where signal.signal cannot be called) it does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _terminate(signum, frame) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


class StopSignals:
    """What `signals_at_safe_points` noted: the first Ctrl-C or SIGTERM, raised by `check`."""

    def __init__(self) -> None:
        self.signum: int | None = None

    def note(self, signum: int, frame) -> None:
        if self.signum is None:
            self.signum = signum

    def check(self) -> None:
        """Raises the noted signal as `KeyboardInterrupt` (SIGTERM as ``signal 15``, like
        `run`'s handler), or returns when none came."""
        if self.signum == signal.SIGINT:
            raise KeyboardInterrupt
        if self.signum is not None:
            raise KeyboardInterrupt(f"signal {self.signum}")


@contextlib.contextmanager
def signals_at_safe_points() -> Iterator[StopSignals]:
    """Ctrl-C and SIGTERM noted, not raised, inside this block: the caller raises them at a
    point of its choosing with ``check()``.

    A KeyboardInterrupt raised at any bytecode can land inside `concurrent.futures.wait`
    after it has taken some futures' locks and before it releases them; the pool's manager
    thread then waits on such a lock for ever and ``shutdown`` after Ctrl-C never returns
    (a Ctrl-C'd stage hung in tests/test_executor.py, once in a full suite run). Only the
    handlers Python code installed are replaced (the default KeyboardInterrupt one, `run`'s
    SIGTERM one): an ignored or default disposition stays as it is. Outside the main thread
    (where signal.signal cannot be called) nothing is deferred."""
    noted = StopSignals()
    if threading.current_thread() is not threading.main_thread():
        yield noted
        return
    previous = {}
    for signum in (signal.SIGINT, signal.SIGTERM):
        if callable(signal.getsignal(signum)):
            previous[signum] = signal.signal(signum, noted.note)
    try:
        yield noted
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def run(main: Callable[[], int | None]) -> None:
    """Calls `main` and exits: its return code, 2 on a user error, 130 on Ctrl-C or SIGTERM.

    SIGTERM (a scheduler's stop, a preemption notice) is handled as Ctrl-C, so a stage
    stops its workers and keeps its finished shards the same way.
    """
    from corpus.executor import Interrupted, ShardFailed

    signal.signal(signal.SIGTERM, _terminate)
    try:
        code = main()
    except Interrupted as e:
        print(e, file=sys.stderr)
        sys.exit(130)
    except KeyboardInterrupt as e:
        # A stage may say what was kept (KeyboardInterrupt(message)); a bare one, or
        # the "signal 15" of _terminate, gets the generic line.
        said = str(e) if e.args and not str(e).startswith("signal ") else ""
        print(said or "interrupted: rerun the same command to resume", file=sys.stderr)
        sys.exit(130)
    except ShardFailed as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(1)
    except USER_ERRORS as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(2)
    sys.exit(code or 0)


def report_errors(
    work: Callable[[], str],
    *,
    prog: str = "",
    errors: tuple[type[BaseException], ...] = USER_ERRORS,
) -> int:
    """Runs ``work`` and returns an exit status: 0 after printing the line it returns (e.g.
    ``wrote OUT``), 2 after printing ``[PROG: ]error: MESSAGE`` on stderr when it raises one
    of ``errors`` (a user error: bad input, a refused folder), never a traceback."""
    try:
        done = work()
    except errors as err:
        print(f"{prog + ': ' if prog else ''}error: {err}", file=sys.stderr)
        return 2
    print(done)
    return 0


def print_index(package: str, summary: str, stages: dict[str, str]) -> None:
    """Prints the package summary and its stage commands; exits 0 for --help and no args."""
    lines = [f"{package}: {summary}", "", "entry points:"]
    for name, what in stages.items():
        module = f"{package}.{name}"
        present = importlib.util.find_spec(module) is not None
        mark = "" if present else "  (not built yet)"
        lines.append(f"  python -m {module:<28} {what}{mark}")
    lines.append("")
    lines.append("Run any entry point with --help for its options.")
    print("\n".join(lines))
    args = sys.argv[1:]
    if args and args[0] not in ("-h", "--help"):
        print(f"\nunknown command {args[0]!r}", file=sys.stderr)
        raise SystemExit(2)
