"""The shard executor: accounting, resume after a kill, manifest skip, quarantine."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from collections import Counter

import pytest

from corpus.executor import ShardJob, merge_counts, run_stage
from corpus.readers import iter_records
from corpus.records import RecordWriter, read_records
from tests.processes import survivors_of_sigkill


def upper_shard(job: ShardJob) -> dict:
    """A toy stage: keeps records with text longer than min_chars, upper-cased."""
    counts = {"read": 0, "kept": 0, "removed": {"too_short": 0}}
    with RecordWriter(job.output_path()) as out, RecordWriter(job.output_path("removed")) as rem:
        for rec in iter_records(
            job.input_path, on_error=job.config["on_error"], quarantine=job.quarantine
        ):
            counts["read"] += 1
            if len(rec.text) < job.config["min_chars"]:
                counts["removed"]["too_short"] += 1
                rem.write(rec)
            else:
                counts["kept"] += 1
                out.write(rec.replace(text=rec.text.upper()))
    return counts


def _inputs(tmp_path, n=4):
    d = tmp_path / "in"
    d.mkdir()
    for i in range(n):
        (d / f"f{i}.txt").write_text("".join(f"line {i} {j} {'x' * (j % 5)}\n" for j in range(50)))
    return d


def _tree(root) -> dict:
    out = {}
    for dirpath, _, files in os.walk(root):
        for f in files:
            if f == "manifest.json":
                continue
            p = os.path.join(dirpath, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, root)] = fh.read()
    return out


def test_merge_counts_nested():
    total = merge_counts({}, {"a": 1, "b": {"c": 2}})
    merge_counts(total, {"a": 2, "b": {"c": 1, "d": 4}})
    assert total == {"a": 3, "b": {"c": 3, "d": 4}}
    with pytest.raises(TypeError):
        merge_counts({}, {"a": "x"})


@pytest.mark.parametrize("workers", [1, 2])
def test_accounting_and_outputs(tmp_path, workers):
    src = _inputs(tmp_path)
    out = tmp_path / "out"
    cfg = {"min_chars": 10, "on_error": "raise"}
    counts = run_stage("toy", [str(src)], str(out), upper_shard, cfg, workers=workers)
    assert counts["read"] == 200
    assert counts["read"] == counts["kept"] + counts["removed"]["too_short"]
    kept = [r for i in range(4) for r in read_records(out / f"shard-{i:05d}.jsonl.gz")]
    assert len(kept) == counts["kept"] and all(
        r.text.isupper() or not r.text.isalpha() for r in kept
    )
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["counts"] == counts and manifest["shards"] == 4
    # inputs are identified by size and mtime (no full read in the parent) ...
    assert all(set(i) == {"path", "bytes", "mtime_ns"} for i in manifest["inputs"])
    assert json.loads((out / "stats.json").read_text()) == counts
    # ... and by content on demand
    run_stage("toy", [str(src)], str(tmp_path / "h"), upper_shard, {**cfg, "hash_inputs": True})
    manifest = json.loads((tmp_path / "h" / "manifest.json").read_text())
    assert all(len(i["sha256"]) == 64 for i in manifest["inputs"])


def test_second_run_skips_and_different_config_refuses(tmp_path):
    src = _inputs(tmp_path, 2)
    out = tmp_path / "out"
    cfg = {"min_chars": 10, "on_error": "raise"}
    run_stage("toy", [str(src)], str(out), upper_shard, cfg, workers=1)
    mtime = os.path.getmtime(out / "shard-00000.jsonl.gz")
    run_stage("toy", [str(src)], str(out), upper_shard, cfg, workers=1)
    assert os.path.getmtime(out / "shard-00000.jsonl.gz") == mtime
    with pytest.raises(FileExistsError):
        run_stage("toy", [str(src)], str(out), upper_shard, {**cfg, "min_chars": 3}, workers=1)
    counts = run_stage(
        "toy", [str(src)], str(out), upper_shard, {**cfg, "min_chars": 3}, force=True
    )
    assert counts["read"] == 100


def test_quarantine_counts_bad_lines_without_content(tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.txt").write_bytes(
        b"good line one\n\xff\xfe secret 010-1234-5678\nbad \x00 nul\nok again\n"
    )
    out = tmp_path / "out"
    counts = run_stage(
        "toy", [str(src)], str(out), upper_shard, {"min_chars": 1, "on_error": "skip"}
    )
    assert counts["read"] == 2
    assert counts["quarantined"] == {"invalid UTF-8": 1, "NUL byte in line": 1}
    q = (out / "quarantine" / "shard-00000.jsonl").read_text()
    assert "1234" not in q and '"line": 2' in q


KILL_SCRIPT = textwrap.dedent(
    """
    import os, signal, sys
    sys.path.insert(0, {tests!r})
    import test_executor as t
    from corpus.executor import run_stage

    calls = {{"n": 0}}
    def dying(job):
        calls["n"] += 1
        if calls["n"] == {kill_at}:
            os.kill(os.getpid(), signal.SIGKILL)
        return t.upper_shard(job)
    run_stage("toy", [{src!r}], {out!r}, dying, {{"min_chars": 10, "on_error": "raise"}}, workers=1)
    """
)


def test_resume_after_kill_is_byte_identical(tmp_path):
    src = _inputs(tmp_path, 5)
    ref = tmp_path / "ref"
    run_stage("toy", [str(src)], str(ref), upper_shard, {"min_chars": 10, "on_error": "raise"})
    out = tmp_path / "out"
    code = KILL_SCRIPT.format(
        tests=os.path.dirname(__file__), kill_at=3, src=str(src), out=str(out)
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=os.path.dirname(os.path.dirname(__file__))
    )
    assert proc.returncode == -signal.SIGKILL
    assert not (out / "manifest.json").exists()
    assert len(os.listdir(out / ".done")) == 2
    run_stage("toy", [str(src)], str(out), upper_shard, {"min_chars": 10, "on_error": "raise"})
    assert _tree(out) == _tree(ref)


def test_ray_executor_gives_the_same_output(tmp_path):
    """The cluster path: the same shards as Ray tasks (a local Ray instance here)."""
    ray = pytest.importorskip("ray", reason="Ray not installed (pip install '.[cluster]')")
    src = _inputs(tmp_path, 3)
    cfg = {"min_chars": 10, "on_error": "raise"}
    ref = tmp_path / "ref"
    run_stage("toy", [str(src)], str(ref), upper_shard, cfg, workers=1)
    tests = os.path.dirname(os.path.abspath(__file__))
    env = {"PYTHONPATH": os.pathsep.join([tests, os.path.dirname(tests)])}
    ray.init(
        num_cpus=2, include_dashboard=False, log_to_driver=False, runtime_env={"env_vars": env}
    )
    try:
        out = tmp_path / "out"
        run_stage("toy", [str(src)], str(out), upper_shard, cfg, executor="ray")
    finally:
        ray.shutdown()
    assert _tree(out) == _tree(ref)


class _Unpicklable(Exception):
    def __init__(self, a, b):  # pickle re-creates exceptions from args: this one cannot be
        super().__init__(a)
        self.b = b


def failing_shard(job: ShardJob) -> dict:
    raise _Unpicklable("boom", 1)


def bad_input_shard(job: ShardJob) -> dict:
    from corpus.textio import InputError

    raise InputError(job.input_path, 3, "malformed JSON: test")


def test_worker_errors_reach_the_parent(tmp_path):
    from corpus.executor import ShardFailed
    from corpus.textio import InputError

    src = _inputs(tmp_path, 2)
    with pytest.raises(ShardFailed, match="boom"):
        run_stage("toy", [str(src)], str(tmp_path / "a"), failing_shard, {}, workers=2)
    # both shards fail; the parent stops at the first to finish, which the OS schedules
    with pytest.raises(InputError, match=r"f[01]\.txt:3: malformed JSON"):
        run_stage("toy", [str(src)], str(tmp_path / "b"), bad_input_shard, {}, workers=2)


def dying_shard(job: ShardJob) -> dict:
    os._exit(7)  # a worker killed mid-shard (OOM killer, kill -9), not an exception


def test_a_worker_that_dies_is_an_error_not_a_hang(tmp_path):
    from concurrent.futures.process import BrokenProcessPool

    src = _inputs(tmp_path, 2)
    with pytest.raises(BrokenProcessPool):
        run_stage("toy", [str(src)], str(tmp_path / "a"), dying_shard, {}, workers=2)


def interrupting_shard(job: ShardJob) -> dict:
    """`upper_shard`, except that shards from the third on press Ctrl-C (SIGINT to the whole
    process group, as a terminal does) once the first two are done, then hang."""
    if os.environ.get("TOY_INTERRUPT") and job.index >= 2:
        done = os.path.join(job.output_dir, ".done")
        while not all(os.path.exists(os.path.join(done, f"shard-{i:05d}.json")) for i in (0, 1)):
            time.sleep(0.05)
        os.killpg(os.getpgid(0), signal.SIGINT)
        time.sleep(60)  # the executor stops this worker; a test that waits this long failed
    return upper_shard(job)


INTERRUPT_SCRIPT = textwrap.dedent(
    """
    import logging, sys
    sys.path.insert(0, {tests!r})
    import test_executor as t
    from corpus.cli import run
    from corpus.executor import run_stage

    logging.basicConfig(level=logging.INFO, format="%(message)s")
    cfg = {{"min_chars": 10, "on_error": "raise"}}
    run(lambda: run_stage("toy", [{src!r}], {out!r}, t.interrupting_shard, cfg, workers=2,
                          force=False) and 0)
    """
)


SLOW_START_SITECUSTOMIZE = textwrap.dedent(
    """
    import os, signal, sys, time
    if "--multiprocessing-fork" in sys.argv:  # a spawned worker, before any of its imports
        # deaf to the executor's SIGTERM for a while, so that a KeyboardInterrupt of its
        # own has time to print (in CI the parent's SIGTERM cut such a traceback short)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        open(os.path.join(os.environ["TOY_STARTED"], str(os.getpid())), "w").close()
        time.sleep(3)  # still starting when Ctrl-C comes
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    """
)


def test_ctrl_c_while_the_workers_are_still_starting_prints_no_traceback(tmp_path):
    """A worker still starting (importing, seconds on a loaded machine) when Ctrl-C reaches
    the process group: no traceback from it (CI once printed spawn_main's KeyboardInterrupt).
    The workers are held in a sitecustomize before any of their own code runs; the test
    presses Ctrl-C once both are there."""
    src = _inputs(tmp_path, 2)
    out, started, site = tmp_path / "out", tmp_path / "started", tmp_path / "site"
    started.mkdir()
    site.mkdir()
    (site / "sitecustomize.py").write_text(SLOW_START_SITECUSTOMIZE)
    code = INTERRUPT_SCRIPT.format(tests=os.path.dirname(__file__), src=str(src), out=str(out))
    env = {k: v for k, v in os.environ.items() if k != "TOY_INTERRUPT"}
    path = os.pathsep.join(filter(None, [str(site), env.get("PYTHONPATH")]))
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        cwd=os.path.dirname(os.path.dirname(__file__)),
        env={**env, "PYTHONPATH": path, "TOY_STARTED": str(started)},
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 40
        while len(os.listdir(started)) < 2 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert len(os.listdir(started)) == 2, "the two workers never started"
        os.killpg(proc.pid, signal.SIGINT)
        _, stderr = proc.communicate(timeout=40)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr, stderr
    # a worker that was deaf to SIGTERM may still run a queued shard before it leaves
    line = rf"toy: interrupted; [012] of 2 shards done and kept in {re.escape(str(out))}"
    assert re.search(line, stderr), stderr


def test_ctrl_c_stops_with_one_line_and_the_rerun_resumes(tmp_path):
    """Ctrl-C: exit 130, one line saying what is kept, no traceback (parent or worker);
    finished shards kept; the next run says "resuming: 2 of 5 shards done" and ends
    byte-identical to an uninterrupted run."""
    src = _inputs(tmp_path, 5)
    cfg = {"min_chars": 10, "on_error": "raise"}
    ref = tmp_path / "ref"
    run_stage("toy", [str(src)], str(ref), interrupting_shard, cfg)
    out = tmp_path / "out"
    root = os.path.dirname(os.path.dirname(__file__))

    def launch(interrupt: bool) -> subprocess.CompletedProcess:
        code = INTERRUPT_SCRIPT.format(tests=os.path.dirname(__file__), src=str(src), out=str(out))
        env = {k: v for k, v in os.environ.items() if k != "TOY_INTERRUPT"}
        return subprocess.run(
            [sys.executable, "-c", code],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=50,
            env={**env, "TOY_INTERRUPT": "1"} if interrupt else env,
            start_new_session=True,  # its own process group: the SIGINT stays inside it
        )

    first = launch(True)
    assert first.returncode == 130, first.stderr
    assert "Traceback" not in first.stderr, first.stderr
    assert (
        f"toy: interrupted; 2 of 5 shards done and kept in {out}; "
        "rerun the same command to resume" in first.stderr.splitlines()
    )
    assert not (out / "manifest.json").exists()
    second = launch(False)
    assert second.returncode == 0, second.stderr
    assert "toy: resuming: 2 of 5 shards done" in second.stderr
    assert _tree(out) == _tree(ref)


RECORD_START_SITECUSTOMIZE = textwrap.dedent(
    """
    import os, signal, sys
    if "--multiprocessing-fork" in sys.argv:  # a spawned worker, before any of its imports
        ignored = signal.getsignal(signal.SIGINT) == signal.SIG_IGN
        name = os.environ.get("TOY_POOL", "none") + "-" + str(os.getpid())
        path = os.path.join(os.environ["TOY_STARTED"], name)
        open(path, "w").write("ignored" if ignored else "default")
    """
)

POOLS_SCRIPT = textwrap.dedent(
    """
    import os
    from corpus.sharding import _range_shards
    from tokenizer.morphemes import count_units

    path = {src!r}
    os.environ["TOY_POOL"] = "sharding"  # each pool's workers inherit its name
    _range_shards(path, os.path.getsize(path), 64, "txt", workers=2)
    os.environ["TOY_POOL"] = "units"
    count_units(["가나 다라"] * 50, morphemes=False, workers=2, chunk_lines=10)
    """
)


def test_every_worker_pool_spawns_its_workers_deaf_to_ctrl_c(tmp_path):
    """The line-counting pool of corpus.sharding and the unit-counting pool of
    tokenizer.morphemes start their workers with SIGINT already ignored (read in a
    sitecustomize, before any code of the worker's own), as the executor's do. Each pool
    has two workers, but leaving it terminates them, and one whose interpreter had not yet
    reached the sitecustomize (the other did all the work) leaves no record (1 run in about
    20 did): every worker that started is read, and each pool's at least one."""
    src = tmp_path / "in.txt"
    src.write_text("".join(f"line {i}\n" for i in range(100)), encoding="utf-8")
    started, site = tmp_path / "started", tmp_path / "site"
    started.mkdir()
    site.mkdir()
    (site / "sitecustomize.py").write_text(RECORD_START_SITECUSTOMIZE)
    path = os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-c", POOLS_SCRIPT.format(src=str(src))],
        cwd=os.path.dirname(os.path.dirname(__file__)),
        env={**os.environ, "PYTHONPATH": path, "TOY_STARTED": str(started)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    seen = {name: (started / name).read_text() for name in os.listdir(started)}
    per_pool = Counter(name.split("-")[0] for name in seen)
    assert set(per_pool) == {"sharding", "units"} and max(per_pool.values()) <= 2, seen
    assert set(seen.values()) == {"ignored"}, seen


ORPHAN_SCRIPT = textwrap.dedent(
    """
    import multiprocessing, time
    from corpus.cli import start_worker

    def sleep():
        start_worker()
        time.sleep(120)

    if __name__ == "__main__":
        workers = [multiprocessing.get_context("spawn").Process(target=sleep) for _ in range(2)]
        for w in workers:
            w.start()
        print(*(w.pid for w in workers), flush=True)
        time.sleep(120)
    """
)


def test_a_started_worker_exits_when_its_parent_is_killed(tmp_path):
    """`corpus.cli.start_worker` (every pool's worker initialiser): a parent killed with SIGKILL
    leaves no worker behind (a pool's worker waits for ever on its own queue otherwise)."""
    script = tmp_path / "parent.py"
    script.write_text(ORPHAN_SCRIPT)
    proc = subprocess.Popen(
        [sys.executable, str(script)],
        cwd=os.path.dirname(os.path.dirname(__file__)),
        env={**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(__file__))},
        stdout=subprocess.PIPE,
        text=True,
    )
    workers: list[int] = []
    try:
        workers = [int(p) for p in proc.stdout.readline().split()]
        assert len(workers) == 2
    finally:
        left = survivors_of_sigkill(proc, workers)
    assert not left, f"workers {left} outlived their killed parent"


def test_signals_are_raised_only_where_the_pool_loop_checks():
    """Inside `signals_at_safe_points` a Ctrl-C or SIGTERM is noted, not raised (it could
    land inside concurrent.futures.wait with a future's lock taken); `check` raises it as
    KeyboardInterrupt, and the previous handlers are back after the block. An ignored
    disposition stays ignored."""
    from corpus.cli import signals_at_safe_points

    before = signal.getsignal(signal.SIGINT)
    with signals_at_safe_points() as signals:
        signals.check()  # nothing noted yet
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)  # the handler runs here, and raises nothing
        with pytest.raises(KeyboardInterrupt) as caught:
            signals.check()
        assert caught.value.args == ()
    assert signal.getsignal(signal.SIGINT) is before
    previous = signal.signal(signal.SIGTERM, lambda *a: None)
    try:
        with signals_at_safe_points() as signals:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.05)
            with pytest.raises(KeyboardInterrupt, match="signal 15"):
                signals.check()
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        with signals_at_safe_points():
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGTERM, previous)
        signal.signal(signal.SIGINT, before)
