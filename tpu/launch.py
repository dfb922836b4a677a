"""``python -m tpu.launch SUBCOMMAND``: pretraining on a Cloud TPU VM or pod slice.

    python -m tpu.launch create  --env-file tpu.env            # TPU VM (or --queued resource)
    python -m tpu.launch setup   --env-file tpu.env            # venv + this commit + jax[tpu]
    python -m tpu.launch stage   --env-file tpu.env            # tokenizer + examples -> bucket
    python -m tpu.launch train   --env-file tpu.env            # detached on every worker
    python -m tpu.launch logs    --env-file tpu.env [--worker 0] [--follow]
    python -m tpu.launch status  --env-file tpu.env
    python -m tpu.launch resume  --env-file tpu.env            # after a preemption
    python -m tpu.launch delete  --env-file tpu.env

Every subcommand takes ``--dry-run``: it prints each command it would run (``$ ...``, with the
reason on the line above) and runs nothing; reading the local git commit is the only thing it
does. Settings come from ``--env-file`` and flags (flags win); see `tpu.settings` and
tpu/README.md. Exit codes: 0 done, 1 a command failed, 2 bad settings.
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from tpu import commands
from tpu.commands import Step
from tpu.settings import FIELDS, SettingsError, make_settings, split_passthrough

SUBCOMMANDS = ("create", "setup", "stage", "train", "logs", "status", "resume", "delete")


class CommandFailed(RuntimeError):
    """A launched command exited non-zero (its output was already shown)."""


class Runner:
    """Prints every step; runs it unless dry-run. Output of `capture` steps is returned."""

    def __init__(self, dry_run: bool, out=None) -> None:
        self.dry_run = dry_run
        self.out = out or sys.stdout

    def show(self, step: Step) -> None:
        print(f"# {step.why}", file=self.out)
        print(f"$ {step.line()}", file=self.out, flush=True)

    def run(self, steps: Sequence[Step]) -> None:
        for step in steps:
            self.show(step)
            if self.dry_run:
                continue
            rc = subprocess.run(list(step.argv), check=False).returncode
            if rc and step.check:
                raise CommandFailed(f"exit {rc}: {step.line()}")

    def capture(self, step: Step) -> tuple[int, str]:
        self.show(step)
        if self.dry_run:
            return 0, ""
        proc = subprocess.run(list(step.argv), capture_output=True, text=True, check=False)
        return proc.returncode, proc.stdout + proc.stderr

    def note(self, text: str) -> None:
        print(f"# {text}", file=self.out, flush=True)


def config_problem(config: str, commit: str) -> str:
    """ "" when the config file is in ``commit`` as it is on disk; else the refusal to print.

    Workers get ``git archive`` of the commit: a config file only in the working tree (new, or
    changed since) would silently not be the one they train with."""
    rel = config.split(":", 1)[0]  # "file.py:variant"
    if not Path(rel).is_file():
        return f"config file not found: {rel}"
    fix = f"git add {shlex.quote(rel)} && git commit -m {shlex.quote('pretraining config ' + rel)}"
    tracked = subprocess.run(
        ["git", "cat-file", "-e", f"{commit}:{Path(rel).as_posix()}"], capture_output=True
    )
    if tracked.returncode:
        return f"{rel} is not in commit {commit[:12]}, so the workers would not get it; run: {fix}"
    same = subprocess.run(["git", "diff", "--quiet", commit, "--", rel], capture_output=True)
    if same.returncode:
        return f"{rel} differs from commit {commit[:12]} (the workers get the commit's); run: {fix}"
    return ""


def git_commit(ref: str = "HEAD", allow_dirty: bool = False, config: str = "") -> str:
    """The commit to ship; refuses uncommitted changes to tracked files unless allowed, and a
    config file the commit does not hold as it is here (always: see `config_problem`)."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--verify", f"{ref}^{{commit}}"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as e:
        raise SettingsError(f"cannot read the git commit {ref!r}: {e}") from e
    problem = config_problem(config, commit) if config else ""
    if problem:
        raise SettingsError(problem)
    if dirty and ref == "HEAD" and not allow_dirty:
        raise SettingsError(
            "uncommitted changes to tracked files: workers get the committed tree only; "
            "commit first (git commit -am 'launch') or pass --allow-dirty"
        )
    return commit


def parse_sizes(listing: str, prefix: str = "gs://") -> dict[str, int]:
    """``gcloud storage ls --long`` output -> {object name under ``prefix``: size}.

    Lines are ``SIZE  DATE  NAME``; the ``TOTAL:`` line and folder lines (no size) are not
    objects. ``prefix`` is the listed URI (``gs://...`` or a shared folder's path)."""
    sizes = {}
    for line in listing.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[0].isdigit() and parts[-1].startswith(prefix):
            sizes[parts[-1]] = int(parts[0])
    return sizes


def check_staged(local: str, uri: str, listing: str) -> list[str]:
    """Every local file exists in the bucket with the same size; returns the mismatches."""
    remote = parse_sizes(listing, uri)
    problems = []
    base = Path(local)
    for path in sorted(p for p in base.rglob("*") if p.is_file()):
        key = f"{uri}/{path.relative_to(base).as_posix()}"
        if key not in remote:
            problems.append(f"missing in bucket: {key}")
        elif remote[key] != path.stat().st_size:
            problems.append(f"size differs: {key} ({remote[key]} vs {path.stat().st_size} local)")
    return problems


def _stage(s, runner: Runner) -> None:
    folders = [local for local, _ in commands.staged_folders(s)]
    for folder, sub in commands.staged_folders(s):
        if not Path(folder).is_dir():
            if not runner.dry_run:
                raise SettingsError(f"not a folder: {folder}")
            runner.note(f"warning: {folder} is not a folder here (a real run stops)")
        elif sub != "tokenizer" and not (Path(folder) / "manifest.json").is_file():
            runner.note(f"warning: {folder} has no manifest.json (an unfinished stage?)")
    steps = commands.stage(s)
    runner.run(steps[: len(folders)])
    for step, local in zip(steps[len(folders) :], folders, strict=True):
        rc, out = runner.capture(step)
        if runner.dry_run:
            continue
        if rc:
            raise CommandFailed(f"exit {rc}: {step.line()}\n{out}")
        problems = check_staged(local, step.argv[-1], out)
        if problems:
            raise CommandFailed("staging check failed:\n  " + "\n  ".join(problems[:20]))
        runner.note(f"verified: every file of {local} is in {step.argv[-1]} with its size")


QUEUED_POLL_SECONDS = 30.0


def wait_until_active(s, runner: Runner, poll: float = QUEUED_POLL_SECONDS) -> None:
    """After a queued-resource create: waits until it is ACTIVE (its node exists), so that
    setup can reach the workers; a request that failed or was suspended is an error."""
    step = commands.queued_state_step(s)
    if runner.dry_run:
        runner.show(step)
        runner.note(f"(repeated every {poll:.0f} s until the state is ACTIVE)")
        return
    while True:
        rc, out = runner.capture(step)
        state = out.strip().splitlines()[-1].strip() if out.strip() else ""
        if rc == 0 and state == "ACTIVE":
            runner.note("queued resource ACTIVE: the TPU VM exists")
            return
        if rc or state in commands.QUEUED_DEAD_STATES:
            raise CommandFailed(f"queued resource {s.name}: state {state or 'unknown'}\n{out}")
        runner.note(f"queued resource {state}: waiting for capacity, next look in {poll:.0f} s")
        time.sleep(poll)


def _create(s, runner: Runner) -> None:
    runner.run(commands.create(s))
    if s.queued:
        wait_until_active(s, runner)


def _resume(s, runner: Runner, commit: str, extra: list[str]) -> None:
    """READY -> train again (it continues from the newest checkpoint); gone or dead -> recreate."""
    rc, out = runner.capture(commands.describe_step(s))
    state = out.strip().splitlines()[-1].strip() if out.strip() else ""
    if runner.dry_run:
        runner.note("if the state is READY: only the train step below")
        runner.note(f"if {'/'.join(commands.DEAD_STATES)} or not found: delete (when it exists),")
        runner.note("create, setup, then train; train resumes from RUN/workdir/checkpoints")
        runner.run(commands.delete(s))
        _create(s, runner)
        runner.run(commands.setup(s, commit))
    elif rc == 0 and state == "READY":
        runner.note("TPU is READY: restarting training (continues from the newest checkpoint)")
    else:
        runner.note(f"TPU state {state or 'not found'}: recreating")
        if rc == 0:
            runner.run(commands.delete(s))
        _create(s, runner)
        runner.run(commands.setup(s, commit))
    runner.run(commands.train(s, extra))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m tpu.launch",
        description="Create, set up, feed, run, watch, resume and delete a TPU pretraining job.",
        epilog="Step-by-step guide: tpu/README.md.",
    )
    parser.add_argument("subcommand", choices=SUBCOMMANDS)
    parser.add_argument("--env-file", help="KEY=VALUE settings file (flags override it)")
    parser.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    for name, field in FIELDS.items():
        flag = "--" + name.replace("_", "-")
        if field.type in (bool, "bool"):
            parser.add_argument(flag, dest=name, action="store_const", const=True, default=None)
        else:
            parser.add_argument(flag, dest=name, default=None, help=f"default {field.default!r}")
    parser.add_argument("--commit", default="HEAD", help="git commit to ship (setup)")
    parser.add_argument("--allow-dirty", action="store_true", help="ship HEAD despite changes")
    parser.add_argument("--worker", default="0", help="logs: worker number (or all)")
    parser.add_argument("--lines", type=int, default=100, help="logs: lines to show")
    parser.add_argument("--follow", action="store_true", help="logs: keep following")
    return parser


def main(argv: list[str] | None = None) -> int:
    # Everything after `--` goes to pretrain.main (train/resume), e.g. -- --config.stop_at_step=N
    argv, overrides = split_passthrough(argv)
    args = build_parser().parse_args(argv)
    args.overrides = overrides
    runner = Runner(args.dry_run)
    try:
        s = make_settings(args.env_file, **{k: getattr(args, k) for k in FIELDS})
        bad = [o for o in args.overrides if not o.startswith("--config.")]
        if bad:
            raise SettingsError(f"only --config.FIELD=VALUE overrides may follow --: {bad}")
        sub = args.subcommand
        if overrides and sub not in ("train", "resume"):
            raise SettingsError(f"{sub} takes no pretrain.main flags after --")
        if sub == "create":
            _create(s, runner)
        elif sub == "setup":
            runner.run(commands.setup(s, git_commit(args.commit, args.allow_dirty, s.config)))
        elif sub == "stage":
            _stage(s, runner)
        elif sub == "train":
            runner.run(commands.train(s, args.overrides))
        elif sub == "logs":
            runner.run(commands.logs(s, args.worker, args.lines, args.follow))
        elif sub == "status":
            runner.run(commands.status(s))
        elif sub == "resume":
            commit = git_commit(args.commit, args.allow_dirty, s.config)
            _resume(s, runner, commit, args.overrides)
        elif sub == "delete":
            runner.run(commands.delete(s))
    except SettingsError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except CommandFailed as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
