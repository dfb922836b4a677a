"""The exact commands each launcher subcommand runs, as pure functions of `Settings`.

Every builder returns a list of `Step`s (an argv list plus a one-line reason) and runs nothing,
so `--dry-run` prints precisely what a real run would execute and the tests check those lines.
Remote work goes through ``gcloud compute tpus tpu-vm ssh --worker=all --command SCRIPT``; each
SCRIPT starts with ``set -euo pipefail`` and is idempotent (setup and train may be rerun).

Layout of a run (``RUN = gs://BUCKET/RUN_NAME``)::

    RUN/code/<commit>.tar.gz   this project at the launched git commit (git archive)
    RUN/tokenizer/             the tokenizer folder            (stage)
    RUN/examples/              the pretraining examples folder (stage)
    RUN/eval_examples/         the held-out examples folder, when EVAL_EXAMPLES is set (stage)
    RUN/workdir/               checkpoints, TensorBoard events, metrics (written by the trainer)
    RUN/logs/<host>.log        each worker's log, uploaded every minute and at exit

and on every worker ``REMOTE_ROOT/{src/<commit>,current,venv,data,logs}``; with a data disk
(DATA_DISK=) the examples live on it instead, mounted at `tpu.settings.DATA_MOUNT`.
"""

from __future__ import annotations

import dataclasses
import re
import shlex

from tpu.settings import DATA_DEVICE, DATA_MOUNT, Settings

LOG_UPLOAD_SECONDS = 60


@dataclasses.dataclass(frozen=True)
class Step:
    """One command: argv (run without a shell) and why it is run."""

    argv: tuple[str, ...]
    why: str
    check: bool = True  # a non-zero exit stops the launcher

    def line(self) -> str:
        return shlex.join(self.argv)


_HOME_PATH = re.compile(r"^(--[\w.\-]+=)?(?:~|\$HOME)/(.*)$")


def sh_word(word: str) -> str:
    """Quotes one shell word; a leading ``~/`` or ``$HOME/`` (also after ``--flag=``) still expands.

    ``~`` does not expand inside quotes, so ``~/klue/x y`` becomes ``"$HOME"/'klue/x y'``.
    """
    m = _HOME_PATH.match(word)
    if not m:
        return shlex.quote(word)
    return (shlex.quote(m.group(1)) if m.group(1) else "") + '"$HOME"/' + shlex.quote(m.group(2))


def sh_join(words: list[str] | tuple[str, ...]) -> str:
    return " ".join(sh_word(w) for w in words)


def _r(s: Settings, *parts: str) -> str:
    """A path under the remote root, quoted for the worker's shell."""
    return sh_word("/".join([s.remote_root.rstrip("/"), *parts]))


def _scope(s: Settings) -> list[str]:
    return [f"--project={s.project}", f"--zone={s.zone}"]


def _ssh(s: Settings, script: str, worker: str = "all", why: str = "") -> Step:
    argv = [
        "gcloud",
        "compute",
        "tpus",
        "tpu-vm",
        "ssh",
        s.name,
        *_scope(s),
        f"--worker={worker}",
        f"--command={script}",
    ]
    return Step(tuple(argv), why)


def _script(*lines: str) -> str:
    return "\n".join(["set -euo pipefail", *lines])


def code_uri(s: Settings, commit: str) -> str:
    return f"{s.run_uri}/code/{commit}.tar.gz"


def create(s: Settings) -> list[Step]:
    """A TPU VM (or a queued resource that becomes one) of the accelerator type."""
    s.require("project", "zone", "name")
    if s.queued:
        argv = [
            "gcloud",
            "compute",
            "tpus",
            "queued-resources",
            "create",
            s.name,
            f"--node-id={s.name}",
            *_scope(s),
            f"--accelerator-type={s.accelerator}",
            f"--runtime-version={s.runtime}",
        ]
    else:
        argv = [
            "gcloud",
            "compute",
            "tpus",
            "tpu-vm",
            "create",
            s.name,
            *_scope(s),
            f"--accelerator-type={s.accelerator}",
            f"--version={s.runtime}",
        ]
    if s.spot:
        argv.append("--spot")
    if s.data_disk:
        argv.append(
            f"--data-disk=source=projects/{s.project}/zones/{s.zone}/disks/{s.data_disk},"
            f"mode={s.disk_mode}"
        )
    acc = s.acc
    why = (
        f"{acc.name}: {acc.chips} chips on {acc.hosts} host(s), runtime {s.runtime}"
        + (", spot" if s.spot else "")
        + (" (queued resource: waits for capacity)" if s.queued else "")
    )
    return [Step(tuple(argv), why)]


def python_lines(s: Settings) -> list[str]:
    """A venv with Python ``s.python_version`` whatever the image ships (uv downloads one).

    tpu-ubuntu2204-base (v2-v4) has Python 3.10; the project needs 3.11. ``uv`` comes from PyPI
    (``pip install --user``) or its installer; a venv of the wrong version is replaced.
    """
    venv = _r(s, "venv")
    want = tuple(int(x) for x in s.python_version.split("."))
    version_ok = f"{venv}/bin/python -c " + shlex.quote(
        f"import sys; sys.exit(sys.version_info[:{len(want)}] < {want})"
    )
    return [
        'export PATH="$HOME/.local/bin:$PATH"',
        "command -v uv >/dev/null || python3 -m pip install --user --quiet 'uv>=0.5,<1' "
        "|| curl -LsSf https://astral.sh/uv/install.sh | sh",
        f"if ! {version_ok} 2>/dev/null; then rm -rf {venv}; "
        f"uv venv --quiet --python {shlex.quote(s.python_version)} {venv}; fi",
    ]


def data_disk_lines(s: Settings) -> list[str]:
    """Formats the data disk if it has no file system (read-write only) and mounts it."""
    if not s.data_disk:
        return []
    dev, mnt = DATA_DEVICE, DATA_MOUNT
    missing = f'echo "error: no data disk at {dev} on $(hostname) (DATA_DISK={s.data_disk})"'
    lines = [f"test -b {dev} || {{ {missing} >&2; exit 1; }}"]
    if s.disk_mode == "read-write":
        mount = (
            f"if ! sudo blkid {dev} >/dev/null 2>&1; then "
            f"sudo mkfs.ext4 -q -m 0 -E lazy_itable_init=0,lazy_journal_init=0,discard {dev}; fi; "
            f"sudo mkdir -p {mnt}; sudo mount -o discard,defaults {dev} {mnt}; "
            f'sudo chown "$(id -u):$(id -g)" {mnt}'
        )
    else:
        empty = f'echo "error: read-only data disk {s.data_disk} has no file system: fill it first"'
        mount = (
            f"sudo blkid {dev} >/dev/null 2>&1 || {{ {empty} >&2; exit 1; }}; "
            f"sudo mkdir -p {mnt}; sudo mount -o ro,noload {dev} {mnt}"
        )
    return lines + [f"mountpoint -q {mnt} || {{ {mount}; }}"]


def setup(s: Settings, commit: str) -> list[Step]:
    """This project at ``commit`` on every worker, in a venv with the pinned JAX/libtpu pair."""
    s.require("project", "zone", "name", "bucket")
    archive = f"/tmp/klue-{commit}.tar.gz"
    src = _r(s, "src", commit)
    venv = _r(s, "venv")
    jax_pin, libtpu_pin = s.pins
    preflight = [f"--accelerator={s.accelerator}", f"--python-version={s.python_version}"]
    if not s.device_check:
        preflight.append("--no-device-check")
    remote = _script(
        f"mkdir -p {src} {_r(s, 'logs')} {_r(s, 'data')}",
        f"gcloud storage cp {shlex.quote(code_uri(s, commit))} - | tar -xz -C {src}",
        *python_lines(s),
        f"uv pip install --quiet --python {venv}/bin/python "
        f"-e {_r(s, 'src', f'{commit}[{s.jax_extra}]')} "
        f"{shlex.quote(jax_pin)} {shlex.quote(libtpu_pin)}",
        f"ln -sfn {src} {_r(s, 'current')}",
        *data_disk_lines(s),
        f"cd {src} && {venv}/bin/python -m tpu.preflight {' '.join(preflight)}",
    )
    return [
        Step(
            ("git", "archive", "--format=tar.gz", "-o", archive, commit),
            f"this project at commit {commit[:12]} (tracked files only)",
        ),
        Step(("gcloud", "storage", "cp", archive, code_uri(s, commit)), "code to the bucket"),
        _ssh(
            s,
            remote,
            why=f"Python {s.python_version} venv + this project + {jax_pin} {libtpu_pin} on every "
            "worker; checks Python and devices",
        ),
    ]


def staged_folders(s: Settings) -> list[tuple[str, str]]:
    """(local folder, name under RUN) of everything `stage` uploads."""
    folders = [(s.tokenizer, "tokenizer"), (s.examples, "examples")]
    if s.eval_examples:
        folders.append((s.eval_examples, "eval_examples"))
    return folders


def stage(s: Settings) -> list[Step]:
    """Tokenizer and examples to the bucket; files already there with equal hashes are skipped."""
    s.require("bucket", "tokenizer", "examples")
    steps = []
    for local, sub in staged_folders(s):
        steps.append(
            Step(
                (
                    "gcloud",
                    "storage",
                    "rsync",
                    "--recursive",
                    "--checksums-only",
                    local,
                    f"{s.run_uri}/{sub}",
                ),
                f"{sub}: upload what is missing or differs (by hash)",
            )
        )
    for _, sub in staged_folders(s):
        steps.append(
            Step(
                ("gcloud", "storage", "ls", "--long", "--recursive", f"{s.run_uri}/{sub}"),
                f"{sub}: list sizes for the check against the local folder",
            )
        )
    return steps


def _running(pid_file: str) -> str:
    """A shell test: the process in ``pid_file`` exists and is not a zombie (an exited job
    whose parent has not reaped it yet is not running; ``kill -0`` alone says it is)."""
    return f'[ -f {pid_file} ] && ps -o stat= -p "$(cat {pid_file})" 2>/dev/null | grep -q "^[^Z]"'


def worker_argv(s: Settings, extra: list[str] | tuple[str, ...] = ()) -> list[str]:
    """What every worker runs: the log-uploading wrapper around ``pretrain.main``."""
    root = s.remote_root
    return [
        f"{root}/venv/bin/python",
        "-m",
        "tpu.worker",
        f"--log-file={root}/logs/train.log",
        f"--log-uri={s.run_uri}/logs",
        "--",
        f"--config={s.config}",
        f"--workdir={s.run_uri}/workdir",
        f"--config.data.examples_dir={s.examples_dir}",
        f"--config.data.tokenizer_dir={s.run_uri}/tokenizer",
        *([f"--config.data.eval_examples_dir={s.eval_examples_dir}"] if s.eval_examples else []),
        *extra,
    ]


def _data_lines(s: Settings) -> list[str]:
    """Examples (and held-out examples) from the bucket to the worker's disk, or a check that
    the read-only data disk holds them."""
    folders = [("examples", s.examples_dir)]
    if s.eval_examples:
        folders.append(("eval_examples", s.eval_examples_dir))
    if s.data_disk and s.disk_mode == "read-only":
        return [
            f'test -f {sh_word(local)}/manifest.json || {{ echo "error: {local}/manifest.json '
            f'missing on $(hostname): fill the read-only data disk first" >&2; exit 1; }}'
            for _, local in folders
        ]
    return [
        f"gcloud storage rsync --recursive {s.run_uri}/{sub} {sh_word(local)}"
        for sub, local in folders
    ]


def train(s: Settings, extra: list[str] | tuple[str, ...] = ()) -> list[Step]:
    """Starts the same detached command on every worker; a second call while it runs is a no-op.

    The examples are copied from the bucket to each worker's disk first with `gcloud storage
    rsync` (parallel, and a rerun after preemption copies nothing; the trainer could also read
    ``gs://`` examples through a checked per-host copy, `pretrain.storage.local_copy`, but
    rsync is faster for large folders). The tokenizer is read from the bucket
    (`pretrain.storage`), so the checkpoints record its ``gs://`` path and `pretrain.export`
    finds it from any machine. Checkpoints, events and metrics go straight to
    ``RUN/workdir``, shared by all hosts.
    """
    s.require("project", "zone", "name", "bucket")
    pid = _r(s, "train.pid")
    remote = _script(
        f"cd {_r(s, 'current')}",
        f"mkdir -p {_r(s, 'logs')} {_r(s, 'data')}",
        f'if {_running(pid)}; then echo "already running on $(hostname)"; exit 0; fi',
        *data_disk_lines(s),  # after a reboot (maintenance) the disk is no longer mounted
        *_data_lines(s),
        f"nohup setsid {sh_join(worker_argv(s, extra))} >/dev/null 2>&1 </dev/null &",
        f"echo $! > {pid}",
        'echo "started on $(hostname)"',
    )
    return [_ssh(s, remote, why=f"start pretraining on all {s.acc.hosts} worker(s), detached")]


def logs(s: Settings, worker: str = "0", lines: int = 100, follow: bool = False) -> list[Step]:
    """The tail of one worker's log (``tail -f`` with follow)."""
    s.require("project", "zone", "name")
    tail = f"tail -n {int(lines)}{' -f' if follow else ''} {_r(s, 'logs', 'train.log')}"
    return [_ssh(s, tail, worker=worker, why=f"log of worker {worker}")]


def status(s: Settings) -> list[Step]:
    """The VM's state, whether training runs on each worker, and the newest checkpoints."""
    s.require("project", "zone", "name", "bucket")
    pid = _r(s, "train.pid")
    describe = queued_state_step(s) if s.queued else describe_step(s)
    probe = _script(
        f"if {_running(pid)}; "
        'then echo "$(hostname): running"; else echo "$(hostname): not running"; fi',
        f"tail -n 2 {_r(s, 'logs', 'train.log')} 2>/dev/null || true",
    )
    # a preempted or deleted VM cannot be reached: the probe fails, the listing still runs
    probe_step = _ssh(s, probe, why="training process and last log lines per worker")
    return [
        describe,
        dataclasses.replace(probe_step, check=False),
        Step(
            ("gcloud", "storage", "ls", f"{s.run_uri}/workdir/checkpoints/"),
            "checkpoints in the bucket",
            check=False,
        ),
    ]


def queued_state_step(s: Settings) -> Step:
    """The queued resource's state: WAITING_FOR_RESOURCES, PROVISIONING, ACTIVE, FAILED, ..."""
    argv = ("gcloud", "compute", "tpus", "queued-resources", "describe", s.name, *_scope(s))
    return Step((*argv, "--format=value(state.state)"), "queued resource state", check=False)


# Queued-resource states after which the request will not become ACTIVE by itself.
QUEUED_DEAD_STATES = ("FAILED", "SUSPENDED", "SUSPENDING")


def describe_step(s: Settings) -> Step:
    return Step(
        (
            "gcloud",
            "compute",
            "tpus",
            "tpu-vm",
            "describe",
            s.name,
            *_scope(s),
            "--format=value(state)",
        ),
        "TPU VM state (READY, PREEMPTED, ...; not found if deleted)",
        check=False,
    )


def delete(s: Settings) -> list[Step]:
    """Deletes the TPU (and its queued resource); the bucket and its checkpoints stay."""
    s.require("project", "zone", "name")
    if s.queued:
        argv = ("gcloud", "compute", "tpus", "queued-resources", "delete", s.name, *_scope(s))
        return [Step((*argv, "--force", "--quiet"), "queued resource and its TPU VM")]
    argv = ("gcloud", "compute", "tpus", "tpu-vm", "delete", s.name, *_scope(s), "--quiet")
    return [Step(argv, "TPU VM (bucket kept)")]


# States after which the VM must be deleted and created again before training can continue.
DEAD_STATES = ("PREEMPTED", "TERMINATED", "STOPPED", "FAILED", "SUSPENDED")
