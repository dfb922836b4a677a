"""A local stand-in for Google Cloud (``gcloud``) and Slurm, for the launcher's end-to-end tests.

`install` writes executables into a folder the tests put first on PATH; each is a small
Python script that calls one function here, with its state under ``root``:

* ``gcloud compute tpus tpu-vm create|describe|delete|ssh`` and ``queued-resources``: a TPU
  VM is a folder ``root/tpus/NAME`` (its state file says READY or PREEMPTED); worker *i* is
  the folder ``worker-i``, which is that worker's ``$HOME``. ``ssh --worker=all --command=S``
  runs ``bash -c S`` once per worker, concurrently, as separate local processes, with the
  worker's identity in the environment the way a cluster manager gives it to JAX (process
  count and index, coordinator address on 127.0.0.1; JAX's own TPU detection needs a TPU).
* ``gcloud storage cp|rsync|ls|cat`` on local paths (a bucket is a local folder).
* ``uv venv`` / ``uv pip install``: the image's Python installer. The venv's ``python`` runs
  this machine's interpreter with the installed source tree first on the path; the install
  records its arguments (the pinned JAX/libtpu pair) in ``VENV/installed.txt``.
* ``hostname``: the worker's name (``NAME-w-i``).
* ``sbatch`` / ``srun`` / ``scontrol requeue``: ``sbatch`` starts a detached job runner that
  runs the batch script (environment as Slurm sets it, output appended to ``--output``),
  reruns it while ``scontrol requeue`` was called, and records each state (RUNNING, REQUEUED,
  COMPLETED, FAILED) in ``root/slurm/JOB/states``. ``srun`` starts one task per node and
  forwards SIGTERM to them; `signal_job_tasks` is what ``--signal=TERM@300`` does.

Nothing here talks to a network; every wait in the tests that use it has a timeout.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

TESTS = Path(__file__).resolve().parent
TOOLS = ("gcloud", "uv", "hostname", "sbatch", "srun", "scontrol")


def install(bin_dir: Path, root: Path) -> dict[str, str]:
    """Writes the fake tools into ``bin_dir``; returns the environment changes that use them."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    for tool in TOOLS:
        script = bin_dir / tool
        script.write_text(
            f"#!{sys.executable}\nimport sys\nsys.path.insert(0, {str(TESTS)!r})\n"
            f"import fake_cloud\nsys.exit(fake_cloud.{tool}(sys.argv[1:]))\n"
        )
        script.chmod(0o755)
    return {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "FAKE_CLOUD_ROOT": str(root)}


def _root() -> Path:
    return Path(os.environ["FAKE_CLOUD_ROOT"])


def _flags(argv: list[str], valued: tuple[str, ...] = ()) -> tuple[list[str], dict[str, str]]:
    """(positional words, {flag: value}); flags in ``valued`` may take their value as the next
    word (``--python 3.11``), the others only as ``--flag=value``."""
    pos, flags = [], {}
    words = iter(argv)
    for a in words:
        if a.startswith("--"):
            k, eq, v = a[2:].partition("=")
            flags[k] = v if eq or k not in valued else next(words)
        else:
            pos.append(a)
    return pos, flags


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---- gcloud compute tpus -------------------------------------------------------------------


def tpu_dir(name: str, root: Path | None = None) -> Path:
    return (root or _root()) / "tpus" / name


def worker_home(name: str, worker: int, root: Path | None = None) -> Path:
    return tpu_dir(name, root) / f"worker-{worker}"


def train_pid(name: str, worker: int, root: Path) -> int | None:
    pid_file = worker_home(name, worker, root) / "klue" / "train.pid"
    return int(pid_file.read_text()) if pid_file.is_file() else None


def alive(pid: int | None) -> bool:
    if pid is None:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/status")
    return not (status.is_file() and "\nState:\tZ" in status.read_text())


def set_state(name: str, state: str, root: Path) -> None:
    (tpu_dir(name, root) / "state").write_text(state)


def _tpu(verb: str, pos: list[str], flags: dict[str, str]) -> int:
    from tpu.settings import parse_accelerator

    name = pos[0]
    d = tpu_dir(name)
    if verb == "create":
        if d.exists():
            print(f"ERROR: {name} already exists", file=sys.stderr)
            return 1
        acc = parse_accelerator(flags["accelerator-type"])
        for i in range(acc.hosts):
            worker_home(name, i).mkdir(parents=True)
        (d / "hosts").write_text(str(acc.hosts))
        (d / "port").write_text(str(free_port()))
        (d / "created_with").write_text(" ".join(f"--{k}={v}" for k, v in flags.items()))
        set_state(name, "READY", _root())
        return 0
    if not d.exists():
        print(f"ERROR: (gcloud.compute.tpus) NOT_FOUND: {name}", file=sys.stderr)
        return 1
    if verb == "describe":
        print((d / "state").read_text())
        return 0
    if verb == "delete":
        for i in range(int((d / "hosts").read_text())):
            pid = train_pid(name, i, _root())
            if alive(pid):
                os.killpg(pid, signal.SIGKILL)
        shutil.rmtree(d)
        return 0
    if verb == "ssh":
        return _ssh(name, flags["worker"], flags["command"])
    print(f"fake gcloud: unsupported tpu verb {verb}", file=sys.stderr)
    return 2


def _ssh(name: str, worker: str, script: str) -> int:
    d = tpu_dir(name)
    if (d / "state").read_text() != "READY":
        print(f"ERROR: {name} is {(d / 'state').read_text()}, not READY", file=sys.stderr)
        return 255
    hosts = int((d / "hosts").read_text())
    port = (d / "port").read_text()
    workers = range(hosts) if worker == "all" else [int(worker)]
    procs = []
    for i in workers:
        env = {
            **os.environ,
            "HOME": str(worker_home(name, i)),
            "FAKE_HOSTNAME": f"{name}-w-{i}",
            # the worker's place in the slice, as JAX reads it from a cluster manager
            "JAX_COORDINATOR_ADDRESS": f"127.0.0.1:{port}",
            "SLURM_JOB_ID": port,
            "SLURM_STEP_NODELIST": "127.0.0.1",
            "SLURM_NTASKS": str(hosts),
            "SLURM_PROCID": str(i),
            "SLURM_LOCALID": "0",
        }
        procs.append(subprocess.Popen(["bash", "-c", script], env=env, cwd=worker_home(name, i)))
    return max(p.wait() for p in procs)


# ---- gcloud storage ------------------------------------------------------------------------


def _storage(verb: str, pos: list[str], flags: dict[str, str]) -> int:
    if verb == "cp":
        src, dst = pos
        data = sys.stdin.buffer.read() if src == "-" else Path(src).read_bytes()
        if dst == "-":
            sys.stdout.buffer.write(data)
        else:
            Path(dst).parent.mkdir(parents=True, exist_ok=True)
            Path(dst).write_bytes(data)
        return 0
    if verb == "rsync":
        src, dst = (Path(p) for p in pos)
        if not src.is_dir():
            print(f"ERROR: {src} matched no objects", file=sys.stderr)
            return 1
        for f in sorted(p for p in src.rglob("*") if p.is_file()):
            target = dst / f.relative_to(src)
            if not (target.is_file() and target.read_bytes() == f.read_bytes()):
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(f, target)
        return 0
    if verb in ("ls", "cat"):
        (uri,) = pos
        p = Path(uri.rstrip("/"))
        if not p.exists():
            print(f"ERROR: One or more URLs matched no objects: {uri}", file=sys.stderr)
            return 1
        if verb == "cat":
            sys.stdout.write(p.read_text())
        elif "long" in flags:
            files = sorted(f for f in p.rglob("*") if f.is_file())
            for f in files:
                print(f"{f.stat().st_size:>10}  2026-12-01T00:00:00Z  {f}")
            print(f"TOTAL: {len(files)} objects, {sum(f.stat().st_size for f in files)} bytes")
        else:
            for child in sorted(p.iterdir()):
                print(f"{child}/" if child.is_dir() else child)
        return 0
    print(f"fake gcloud: unsupported storage verb {verb}", file=sys.stderr)
    return 2


def gcloud(argv: list[str]) -> int:
    pos, flags = _flags(argv)
    if pos[:3] in (["compute", "tpus", "tpu-vm"], ["compute", "tpus", "queued-resources"]):
        return _tpu(pos[3], pos[4:], flags)
    if pos[:1] == ["storage"]:
        return _storage(pos[1], pos[2:], flags)
    print(f"fake gcloud: unsupported command {argv}", file=sys.stderr)
    return 2


# ---- the image's tools ---------------------------------------------------------------------

VENV_PYTHON = """#!/bin/sh
# fake venv: this machine's interpreter, the installed source tree first on the path
PYTHONPATH="$(cat {venv}/src.txt 2>/dev/null)" exec {python} "$@"
"""


def uv(argv: list[str]) -> int:
    pos, flags = _flags(argv, valued=("python",))
    if pos[:1] == ["venv"]:
        venv = Path(pos[1])
        (venv / "bin").mkdir(parents=True, exist_ok=True)
        python = venv / "bin" / "python"
        python.write_text(VENV_PYTHON.format(venv=venv, python=sys.executable))
        python.chmod(0o755)
        (venv / "python-request.txt").write_text(flags.get("python", ""))
        return 0
    if pos[:2] == ["pip", "install"]:
        venv = Path(flags["python"]).parent.parent
        editable = argv[argv.index("-e") + 1]
        (venv / "src.txt").write_text(re.sub(r"\[.*\]$", "", editable))
        with open(venv / "installed.txt", "a") as f:
            f.write(" ".join(argv) + "\n")
        return 0
    print(f"fake uv: unsupported {argv}", file=sys.stderr)
    return 2


def hostname(argv: list[str]) -> int:
    print(os.environ.get("FAKE_HOSTNAME") or socket.gethostname())
    return 0


# ---- Slurm ---------------------------------------------------------------------------------


def job_dir(job: str, root: Path | None = None) -> Path:
    return (root or _root()) / "slurm" / job


def job_states(job: str, root: Path) -> list[str]:
    f = job_dir(job, root) / "states"
    return f.read_text().split() if f.is_file() else []


def _record(job: str, state: str) -> None:
    with open(job_dir(job) / "states", "a") as f:
        f.write(state + "\n")


def sbatch(argv: list[str]) -> int:
    (script,) = [a for a in argv if not a.startswith("-")]
    counter = _root() / "slurm" / "last_id"
    counter.parent.mkdir(parents=True, exist_ok=True)
    job = str(int(counter.read_text()) + 1 if counter.is_file() else 1001)
    counter.write_text(job)
    job_dir(job).mkdir()
    text = Path(script).read_text()
    opts = dict(re.findall(r"^#SBATCH --([\w-]+)=(\S+)", text, flags=re.M))
    output = Path(opts["output"].replace("%j", job))
    if not output.parent.is_dir():  # what real sbatch does: the job fails to start
        print(f"sbatch: error: cannot open {output}", file=sys.stderr)
        return 1
    runner = [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(TESTS)!r}); "]
    runner[-1] += f"import fake_cloud; fake_cloud.run_job({job!r}, {script!r})"
    env = {**os.environ, "SLURM_NNODES": opts.get("nodes", "1")}
    with open(job_dir(job) / "runner.log", "ab") as log:  # not our stdout: sbatch returns now
        subprocess.Popen(runner, env=env, start_new_session=True, stdin=subprocess.DEVNULL,
                         stdout=log, stderr=log)  # fmt: skip
    print(f"Submitted batch job {job}")
    return 0


def run_job(job: str, script: str) -> None:
    """The job's life: run the batch script, again after each requeue, record the states."""
    text = Path(script).read_text()
    output = re.search(r"^#SBATCH --output=(\S+)", text, flags=re.M).group(1)
    restarts = 0
    while True:
        (job_dir(job) / "requeue").unlink(missing_ok=True)
        _record(job, "RUNNING")
        env = {**os.environ, "SLURM_JOB_ID": job, "SLURM_RESTART_COUNT": str(restarts)}
        with open(output.replace("%j", job), "ab") as out:
            rc = subprocess.run(["bash", script], env=env, stdout=out, stderr=out).returncode
        if (job_dir(job) / "requeue").exists():
            _record(job, "REQUEUED")
            restarts += 1
            continue
        _record(job, "COMPLETED" if rc == 0 else "FAILED")
        return


def srun(argv: list[str]) -> int:
    i = 0
    while i < len(argv) and argv[i].startswith("-"):
        i += 1
    cmd = argv[i:]
    n = int(os.environ.get("SLURM_NNODES", "1"))
    job = os.environ["SLURM_JOB_ID"]
    port = str(free_port())
    tasks = []
    for rank in range(n):
        env = {
            **os.environ,
            "SLURM_NTASKS": str(n),
            "SLURM_PROCID": str(rank),
            "SLURM_LOCALID": "0",
            "SLURM_STEP_NODELIST": "127.0.0.1",
            "SLURM_STEP_NUM_NODES": str(n),
            "SLURMD_NODENAME": f"node{rank}",
            "JAX_COORDINATOR_PORT": port,
        }
        # the shell expands $SLURMD_NODENAME in the script's srun line; tasks get it as env
        tasks.append(subprocess.Popen(cmd, env=env))
    (job_dir(job) / "tasks").write_text(" ".join(str(t.pid) for t in tasks))

    def forward(signum, _frame):
        for t in tasks:
            if t.poll() is None:
                t.send_signal(signum)

    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)
    return max(t.wait() for t in tasks)


def scontrol(argv: list[str]) -> int:
    if argv[:1] == ["requeue"]:
        (job_dir(argv[1]) / "requeue").touch()
        return 0
    print(f"fake scontrol: unsupported {argv}", file=sys.stderr)
    return 2


def signal_job_tasks(job: str, root: Path, signum: int = signal.SIGTERM) -> None:
    """What ``#SBATCH --signal=TERM@300`` does before the time limit: the signal to every task."""
    for pid in (job_dir(job, root) / "tasks").read_text().split():
        os.kill(int(pid), signum)


def wait_for(predicate, timeout: float, what: str, poll: float = 0.2) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(poll)
