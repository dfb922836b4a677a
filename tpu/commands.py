"""The exact commands each launcher subcommand runs, as pure functions of `Settings`.

Every builder returns a list of `Step`s (an argv list plus a one-line reason) and runs nothing,
so `--dry-run` prints precisely what a real run would execute and the tests check those lines.
Remote work goes through ``gcloud compute tpus tpu-vm ssh --worker=all --command SCRIPT``; each
SCRIPT starts with ``set -euo pipefail`` and is idempotent (setup and train may be rerun).

Layout of a run (``RUN = gs://BUCKET/RUN_NAME``)::

    RUN/code/<commit>.tar.gz   this project at the launched git commit (git archive)
    RUN/tokenizer/             the tokenizer folder            (stage)
    RUN/examples/              the pretraining examples folder (stage)
    RUN/workdir/               checkpoints, TensorBoard events, metrics (written by the trainer)
    RUN/logs/<host>.log        each worker's log, uploaded every minute and at exit

and on every worker ``REMOTE_ROOT/{src/<commit>,current,venv,data,logs}``.
"""

from __future__ import annotations

import dataclasses
import re
import shlex

from tpu.settings import Settings

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
            "mode=read-write"
        )
    acc = s.acc
    why = (
        f"{acc.name}: {acc.chips} chips on {acc.hosts} host(s), runtime {s.runtime}"
        + (", spot" if s.spot else "")
        + (" (queued resource: waits for capacity)" if s.queued else "")
    )
    return [Step(tuple(argv), why)]


def setup(s: Settings, commit: str) -> list[Step]:
    """This project at ``commit`` on every worker, in a venv with ``jax[tpu]``."""
    s.require("project", "zone", "name", "bucket")
    archive = f"/tmp/klue-{commit}.tar.gz"
    src = _r(s, "src", commit)
    venv = _r(s, "venv")
    remote = _script(
        f"mkdir -p {src} {_r(s, 'logs')} {_r(s, 'data')}",
        f"gcloud storage cp {shlex.quote(code_uri(s, commit))} - | tar -xz -C {src}",
        f"test -x {venv}/bin/python || {s.python} -m venv {venv}",
        f"{venv}/bin/pip install -q --upgrade pip",
        f"{venv}/bin/pip install -q -e {_r(s, 'src', f'{commit}[{s.jax_extra}]')}",
        f"ln -sfn {src} {_r(s, 'current')}",
        f"{venv}/bin/python -c "
        + shlex.quote(
            "import jax; print(jax.process_index(), jax.local_device_count(), "
            "jax.device_count(), jax.devices()[0].device_kind)"
        ),
    )
    return [
        Step(
            ("git", "archive", "--format=tar.gz", "-o", archive, commit),
            f"this project at commit {commit[:12]} (tracked files only)",
        ),
        Step(("gcloud", "storage", "cp", archive, code_uri(s, commit)), "code to the bucket"),
        _ssh(s, remote, why="venv + this project + jax[tpu] on every worker; prints devices"),
    ]


def stage(s: Settings) -> list[Step]:
    """Tokenizer and examples to the bucket; files already there with equal hashes are skipped."""
    s.require("bucket", "tokenizer", "examples")
    steps = []
    for local, sub in ((s.tokenizer, "tokenizer"), (s.examples, "examples")):
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
    for sub in ("tokenizer", "examples"):
        steps.append(
            Step(
                ("gcloud", "storage", "ls", "--long", "--recursive", f"{s.run_uri}/{sub}"),
                f"{sub}: list sizes for the check against the local folder",
            )
        )
    return steps


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
        f"--config.data.examples_dir={root}/data/examples",
        f"--config.data.tokenizer_dir={s.run_uri}/tokenizer",
        *extra,
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
        f'if [ -f {pid} ] && kill -0 "$(cat {pid})" 2>/dev/null; then '
        'echo "already running on $(hostname)"; exit 0; fi',
        f"gcloud storage rsync --recursive {s.run_uri}/examples {_r(s, 'data', 'examples')}",
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
    if s.queued:
        describe = Step(
            (
                "gcloud",
                "compute",
                "tpus",
                "queued-resources",
                "describe",
                s.name,
                *_scope(s),
                "--format=value(state.state)",
            ),
            "queued resource state",
            check=False,
        )
    else:
        describe = describe_step(s)
    probe = _script(
        f'if [ -f {pid} ] && kill -0 "$(cat {pid})" 2>/dev/null; '
        'then echo "$(hostname): running"; else echo "$(hostname): not running"; fi',
        f"tail -n 2 {_r(s, 'logs', 'train.log')} 2>/dev/null || true",
    )
    return [
        describe,
        _ssh(s, probe, why="training process and last log lines per worker"),
        Step(
            ("gcloud", "storage", "ls", f"{s.run_uri}/workdir/checkpoints/"),
            "checkpoints in the bucket",
            check=False,
        ),
    ]


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
