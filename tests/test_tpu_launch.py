"""tpu/: the dry-run lines of every launcher subcommand, settings errors, the GPU/Slurm script,
and the per-host worker wrapper (log upload, signal forwarding, exit code)."""

from __future__ import annotations

import io
import os
import shlex
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tpu import commands, gpu, launch
from tpu.settings import SettingsError, make_settings, parse_accelerator, read_env_file

ROOT = Path(__file__).resolve().parents[1]
BASE = ["--project=proj", "--zone=europe-west4-a", "--bucket=gs://bkt", "--name=klue"]


def dry(*args: str) -> list[str]:
    """The lines `python -m tpu.launch ... --dry-run` prints (in process)."""
    out = io.StringIO()
    real = launch.Runner

    class Capture(real):
        def __init__(self, dry_run, out_=None):
            super().__init__(dry_run, out)

    launch.Runner = Capture
    try:
        args = list(args)
        at = args.index("--") if "--" in args else len(args)
        rc = launch.main([*args[:at], "--dry-run", *args[at:]])
    finally:
        launch.Runner = real
    assert rc == 0, out.getvalue()
    return out.getvalue().splitlines()


def commands_of(lines: list[str]) -> list[list[str]]:
    """The `$ ` lines (which may continue over several lines for ssh scripts) as argv lists."""
    text, cmds, cur = "\n".join(lines), [], None
    for line in text.split("\n"):
        if line.startswith("$ "):
            if cur is not None:
                cmds.append(cur)
            cur = line[2:]
        elif line.startswith("# "):
            if cur is not None:
                cmds.append(cur)
            cur = None
        elif cur is not None:
            cur += "\n" + line
    if cur is not None:
        cmds.append(cur)
    return [shlex.split(c) for c in cmds]


def test_accelerators_hosts_and_runtimes():
    assert (parse_accelerator("v3-8").chips, parse_accelerator("v3-8").hosts) == (4, 1)
    assert (parse_accelerator("v4-32").chips, parse_accelerator("v4-32").hosts) == (16, 4)
    assert parse_accelerator("v5litepod-8").hosts == 1
    assert parse_accelerator("v5litepod-16").hosts == 4
    assert parse_accelerator("v5p-8").runtime_version == "v2-alpha-tpuv5"
    assert parse_accelerator("v6e-8").runtime_version == "v2-alpha-tpuv6e"
    assert parse_accelerator("v3-32").runtime_version == "tpu-ubuntu2204-base"
    for bad in ("v3", "v9-8", "v3-7", "tpu-v3-8"):
        with pytest.raises(SettingsError):
            parse_accelerator(bad)


def test_create_v3_8_spot_and_v4_32_queued():
    (cmd,) = commands_of(dry("create", *BASE, "--spot"))
    assert cmd == [
        "gcloud", "compute", "tpus", "tpu-vm", "create", "klue",
        "--project=proj", "--zone=europe-west4-a",
        "--accelerator-type=v3-8", "--version=tpu-ubuntu2204-base", "--spot",
    ]  # fmt: skip
    cmd, wait = commands_of(dry("create", *BASE, "--accelerator=v4-32", "--queued"))
    assert wait[3:6] == ["queued-resources", "describe", "klue"]  # then polled until ACTIVE
    assert cmd[:6] == ["gcloud", "compute", "tpus", "queued-resources", "create", "klue"]
    assert "--node-id=klue" in cmd and "--accelerator-type=v4-32" in cmd
    assert "--runtime-version=tpu-ubuntu2204-base" in cmd and "--spot" not in cmd


@pytest.mark.parametrize("accelerator", ["v3-8", "v4-32"])
def test_setup_ships_the_commit_and_installs_on_every_worker(accelerator):
    head = launch.git_commit("HEAD", allow_dirty=True)
    archive, upload, ssh = commands_of(
        dry("setup", *BASE, f"--accelerator={accelerator}", "--allow-dirty")
    )
    assert archive == ["git", "archive", "--format=tar.gz", "-o", f"/tmp/klue-{head}.tar.gz", head]
    assert upload == [
        "gcloud", "storage", "cp", f"/tmp/klue-{head}.tar.gz", f"gs://bkt/klue/code/{head}.tar.gz"
    ]  # fmt: skip
    assert ssh[:6] == ["gcloud", "compute", "tpus", "tpu-vm", "ssh", "klue"]
    assert "--worker=all" in ssh
    script = ssh[-1].removeprefix("--command=")
    assert script.startswith("set -euo pipefail\n")
    assert f"-e \"$HOME\"/'klue/src/{head}[tpu]'" in script
    subprocess.run(["bash", "-n", "-c", script], check=True)  # valid shell


def test_train_is_detached_idempotent_and_passes_overrides():
    (ssh,) = commands_of(dry("train", *BASE, "--", "--config.stop_at_step=100"))
    assert "--worker=all" in ssh
    script = ssh[-1].removeprefix("--command=")
    subprocess.run(["bash", "-n", "-c", script], check=True)
    assert "already running" in script  # a second `train` does not start a second job
    assert "gcloud storage rsync --recursive gs://bkt/klue/examples" in script
    start = next(line for line in script.splitlines() if line.startswith("nohup setsid"))
    assert start.endswith(">/dev/null 2>&1 </dev/null &")
    assert "-m tpu.worker" in start and "--log-uri=gs://bkt/klue/logs" in start
    assert "--workdir=gs://bkt/klue/workdir" in start
    # the tokenizer is read from the bucket, so checkpoints record a path export can reach
    assert "--config.data.tokenizer_dir=gs://bkt/klue/tokenizer" in start
    assert "rsync --recursive gs://bkt/klue/tokenizer" not in script
    assert start.index("--config.stop_at_step=100") > start.index(" -- ")


def test_train_remote_paths_expand_home(tmp_path):
    """`~` does not expand in quotes: the worker's shell must still reach $HOME/klue/..."""
    word = commands.sh_word("--log-file=~/klue/logs/my log.txt")
    out = subprocess.run(
        ["bash", "-c", f"printf %s {word}"],
        env={**os.environ, "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out == f"--log-file={tmp_path}/klue/logs/my log.txt"


def test_stage_logs_status_resume_delete_dry_run(tmp_path):
    tok, ex = tmp_path / "tok", tmp_path / "ex"
    tok.mkdir(), ex.mkdir()
    paths = [f"--tokenizer={tok}", f"--examples={ex}"]
    sync_tok, sync_ex, ls_tok, ls_ex = commands_of(dry("stage", *BASE, *paths))
    assert sync_tok == [
        "gcloud", "storage", "rsync", "--recursive", "--checksums-only", str(tok),
        "gs://bkt/klue/tokenizer",
    ]  # fmt: skip
    assert sync_ex[-1] == "gs://bkt/klue/examples"
    assert ls_ex == ["gcloud", "storage", "ls", "--long", "--recursive", "gs://bkt/klue/examples"]
    (tail,) = commands_of(dry("logs", *BASE, "--worker=3", "--follow"))
    assert "--worker=3" in tail and tail[-1].startswith("--command=tail -n 100 -f ")
    describe, probe, ls = commands_of(dry("status", *BASE))
    assert describe[:5] == ["gcloud", "compute", "tpus", "tpu-vm", "describe"]
    assert ls == ["gcloud", "storage", "ls", "gs://bkt/klue/workdir/checkpoints/"]
    resume = commands_of(dry("resume", *BASE, "--allow-dirty"))
    verbs = [c[4] if c[0] == "gcloud" and c[1] == "compute" else c[1] for c in resume]
    assert verbs == ["describe", "delete", "create", "archive", "storage", "ssh", "ssh"]
    (delete,) = commands_of(dry("delete", *BASE))
    assert delete[-1] == "--quiet" and "delete" in delete


def test_check_staged_compares_sizes(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.bin").write_bytes(b"12345")
    (tmp_path / "y.json").write_bytes(b"{}")
    listing = textwrap.dedent(
        """\
             5  2026-11-30T00:00:00Z  gs://b/r/ex/a/x.bin
             3  2026-11-30T00:00:00Z  gs://b/r/ex/y.json
        TOTAL: 2 objects, 8 bytes (8B)
        """
    )
    problems = launch.check_staged(str(tmp_path), "gs://b/r/ex", listing)
    assert problems == ["size differs: gs://b/r/ex/y.json (3 vs 2 local)"]
    assert launch.check_staged(str(tmp_path), "gs://b/r/ex", listing.splitlines()[0]) == [
        "missing in bucket: gs://b/r/ex/y.json"
    ]


def test_settings_from_env_file_flags_win_and_errors(tmp_path, capsys):
    env = tmp_path / "tpu.env"
    env.write_text(
        "# my run\nPROJECT=proj\nZONE='us-central1-a'\nACCELERATOR=v4-32\nSPOT=true\n"
        "export BUCKET=gs://bkt\n"
    )
    s = make_settings(str(env), accelerator="v3-8")
    assert (s.project, s.zone, s.accelerator, s.spot, s.run_uri) == (
        "proj", "us-central1-a", "v3-8", True, "gs://bkt/klue-pretrain"
    )  # fmt: skip
    (env.parent / "bad.env").write_text("PROJECT=p\nLEARNING_RATE=1e-4\n")
    with pytest.raises(SettingsError, match=r"bad.env:2: unknown setting 'LEARNING_RATE'"):
        read_env_file(env.parent / "bad.env")
    assert launch.main(["create", "--dry-run"]) == 2
    assert "missing setting(s): --project" in capsys.readouterr().err
    assert launch.main(["train", *BASE[:2], "--bucket=bkt", "--dry-run"]) == 2
    assert launch.main(["create", *BASE, "--dry-run", "--", "--config.x=1"]) == 2
    assert launch.main(["train", *BASE, "--dry-run", "--", "--lr=1"]) == 2


def test_slurm_script_matches_the_committed_sample_and_is_valid_shell(capsys):
    sample = ROOT / "tpu" / "slurm" / "pretrain.sbatch"
    args = sample.read_text().splitlines()[1].removeprefix("# Generated by: python -m tpu.gpu ")
    argv = shlex.split(args)
    i = argv.index("--sbatch-file")
    del argv[i : i + 2]
    argv.insert(argv.index("--"), "--dry-run")
    assert gpu.main(argv) == 0
    printed = capsys.readouterr().out
    body = lambda t: t.split("\n", 2)[2]  # noqa: E731  (the generator line differs)
    assert body(printed).rstrip() == body(sample.read_text()).rstrip()
    subprocess.run(["bash", "-n", str(sample)], check=True)
    assert "#SBATCH --signal=TERM@300" in printed and "--ntasks-per-node=1" in printed


def test_gpu_local_dry_run(capsys):
    cfg = "pretrain/configs/tiny.py"
    assert gpu.main(["local", "--config", cfg, "--workdir", "w", "--gpus", "0,1", "--dry-run"]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith("$ CUDA_VISIBLE_DEVICES=0,1 python -m tpu.worker")
    assert line.endswith(f"-- --config={cfg} --workdir=w")
    # a bucket workdir: the open log stays local and is copied next to the run
    assert gpu.main(["local", "--config", cfg, "--workdir", "gs://b/r", "--dry-run"]) == 0
    line = capsys.readouterr().out.strip()
    assert "--log-file=logs/train.log --log-uri=gs://b/r/logs --" in line


FAKE_TRAINER = """
import signal, sys, time
print("fake trainer", sys.argv[1:], flush=True)
def term(*_):
    print("got SIGTERM, saving", flush=True)
    sys.exit(0)
signal.signal(signal.SIGTERM, term)
if "--fail" in sys.argv:
    sys.exit(3)
time.sleep(60)
"""


def _worker(tmp_path: Path, *args: str) -> subprocess.Popen:
    (tmp_path / "fake_trainer.py").write_text(FAKE_TRAINER)
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}"}
    cmd = [sys.executable, "-m", "tpu.worker", f"--log-file={tmp_path}/logs/train.log"]
    cmd += [f"--log-uri={tmp_path}/bucket", "--upload-seconds=0.2", "--module=fake_trainer"]
    return subprocess.Popen([*cmd, "--", *args], env=env, cwd=ROOT)


def test_worker_forwards_sigterm_uploads_log_and_keeps_exit_code(tmp_path):
    proc = _worker(tmp_path, "--config=c.py")
    log = tmp_path / "logs" / "train.log"
    deadline = time.monotonic() + 30
    while "fake trainer" not in (log.read_text() if log.exists() else ""):
        assert time.monotonic() < deadline, "trainer did not start"
        time.sleep(0.1)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0
    (copy,) = (tmp_path / "bucket").glob("*.log")
    text = copy.read_text()
    assert "['--config=c.py']" in text and "got SIGTERM, saving" in text and "exit 0" in text
    assert _worker(tmp_path, "--fail").wait(timeout=30) == 3


def test_setup_installs_python_and_the_pinned_pair_then_checks_devices():
    head = launch.git_commit("HEAD", allow_dirty=True)
    *_, ssh = commands_of(dry("setup", *BASE, "--allow-dirty"))
    script = ssh[-1].removeprefix("--command=")
    lines = script.splitlines()
    uv_venv = next(line for line in lines if "uv venv" in line)
    # a venv of the image's Python 3.10 fails the version test and is replaced by uv's 3.11
    assert "sys.version_info[:2] < (3, 11)" in uv_venv and "--python 3.11" in uv_venv
    install = next(line for line in lines if "uv pip install" in line)
    assert install.endswith("jax==0.10.2 'libtpu==0.0.42.*'")
    assert f"klue/src/{head}[tpu]" in install
    assert lines[-1].endswith("-m tpu.preflight --accelerator=v3-8 --python-version=3.11")
    assert "mount" not in script  # no data disk: nothing to mount
    *_, ssh = commands_of(dry("setup", *BASE, "--allow-dirty", "--jax-pin=jax==0.9.9"))
    assert "jax==0.9.9 'libtpu==0.0.42.*'" in ssh[-1]


def test_every_generation_has_a_pin_a_device_kind_and_a_runtime():
    from tpu import settings

    assert set(settings.JAX_PINS) == set(settings.RUNTIME_VERSIONS) == set(settings.DEVICE_KINDS)
    per_host = {"v3-8": 8, "v3-32": 8, "v4-8": 4, "v4-32": 4, "v5litepod-8": 8, "v6e-8": 8}
    per_host |= {"v5litepod-16": 4, "v5p-8": 4, "v2-8": 8}
    assert {a: parse_accelerator(a).devices_per_host for a in per_host} == per_host


def test_preflight_names_wrong_python_and_wrong_devices(monkeypatch):
    from types import SimpleNamespace as D

    from tpu import preflight

    assert preflight.python_problems((3, 11, 4), "3.11") == []
    assert preflight.python_problems((3, 12, 0), "3.11") == []
    (msg,) = preflight.python_problems((3, 10, 12), "3.11")
    assert "Python 3.10.12" in msg and ">= 3.11" in msg
    v3 = parse_accelerator("v3-8")
    assert preflight.device_problems(v3, [D(device_kind="TPU v3")] * 8) == []
    (kind,) = preflight.device_problems(v3.__class__("v4-8", "v4", 8), [D(device_kind="cpu")] * 4)
    assert "'TPU v4'" in kind and "['cpu']" in kind
    problems = preflight.device_problems(v3, [D(device_kind="TPU v3")] * 4)
    assert problems == ["v3-8 gives each of its 1 host(s) 8 devices, this one sees 4"]
    assert preflight.main(["--accelerator=v3-8", "--no-device-check"]) == 0
    cpu = ([D(device_kind="cpu")], "0.10.2")  # what JAX falls back to without a working libtpu
    monkeypatch.setattr(preflight, "_jax_devices", lambda: cpu)
    assert preflight.main(["--accelerator=v3-8"]) == preflight.PREFLIGHT_FAILED
    monkeypatch.setattr(preflight, "_jax_devices", lambda: ([D(device_kind="TPU v3")] * 8, "x"))
    assert preflight.main(["--accelerator=v3-8"]) == 0


def test_data_disk_formatted_only_without_a_file_system_and_read_only_for_pods():
    from tpu.settings import DATA_DEVICE, DATA_MOUNT

    (create,) = commands_of(dry("create", *BASE, "--data-disk=ex"))
    assert create[-1].endswith("/disks/ex,mode=read-write")
    *_, ssh = commands_of(dry("setup", *BASE, "--allow-dirty", "--data-disk=ex"))
    script = ssh[-1].removeprefix("--command=")
    subprocess.run(["bash", "-n", "-c", script], check=True)
    mount = next(line for line in script.splitlines() if line.startswith("mountpoint -q"))
    assert f"if ! sudo blkid {DATA_DEVICE}" in mount and "mkfs.ext4 -q -m 0" in mount
    assert mount.index("blkid") < mount.index("mkfs") < mount.index("mount -o discard")
    (train,) = commands_of(dry("train", *BASE, "--data-disk=ex"))
    text = train[-1]
    assert f"rsync --recursive gs://bkt/klue/examples {DATA_MOUNT}/examples" in text
    assert f"--config.data.examples_dir={DATA_MOUNT}/examples" in text
    pod = [*BASE, "--accelerator=v4-32", "--data-disk=ex"]
    (create,) = commands_of(dry("create", *pod))
    assert create[-1].endswith("mode=read-only")
    *_, ssh = commands_of(dry("setup", *pod, "--allow-dirty"))
    assert "mkfs" not in ssh[-1] and "mount -o ro,noload" in ssh[-1]
    (train,) = commands_of(dry("train", *pod))
    assert "rsync" not in train[-1] and f"test -f {DATA_MOUNT}/examples/manifest.json" in train[-1]
    assert launch.main(["create", *pod, "--data-disk-mode=read-write", "--dry-run"]) == 2


def test_stage_and_train_include_the_held_out_examples(tmp_path):
    folders = []
    for name in ("tok", "ex", "heldout"):
        (tmp_path / name).mkdir()
        folders.append(tmp_path / name)
    flags = [f"--tokenizer={folders[0]}", f"--examples={folders[1]}"]
    flags.append(f"--eval-examples={folders[2]}")
    cmds = commands_of(dry("stage", *BASE, *flags))
    assert [c[-1] for c in cmds][2] == "gs://bkt/klue/eval_examples" and len(cmds) == 6
    (train,) = commands_of(dry("train", *BASE, f"--eval-examples={folders[2]}"))
    text = train[-1]
    assert 'rsync --recursive gs://bkt/klue/eval_examples "$HOME"/klue/data/eval_examples' in text
    assert '--config.data.eval_examples_dir="$HOME"/klue/data/eval_examples' in text


def test_setup_refuses_a_config_the_commit_does_not_hold(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], cwd=repo, check=True)
    (repo / "a.py").write_text("x = 1\n")
    subprocess.run([*git, "add", "a.py"], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-qm", "a"], cwd=repo, check=True)
    monkeypatch.chdir(repo)
    head = launch.git_commit("HEAD", config="a.py")
    (repo / "mine.py").write_text("y = 2\n")
    with pytest.raises(SettingsError, match=r"mine.py is not in commit .*run: git add mine.py"):
        launch.git_commit("HEAD", config="mine.py:tiny")
    (repo / "a.py").write_text("x = 2\n")
    with pytest.raises(SettingsError, match=r"a.py differs from commit .*git add a.py && git"):
        launch.git_commit("HEAD", allow_dirty=True, config="a.py")
    with pytest.raises(SettingsError, match="config file not found: nope.py"):
        launch.git_commit("HEAD", config="nope.py")
    assert len(head) == 40


def test_gpu_help_lists_every_option_and_slurm_creates_the_log_folder(tmp_path, capsys):
    for mode, options in {
        "local": ["--restarts", "--gpus", "--config", "--workdir"],
        "slurm": ["--log-dir", "--nodes", "--time", "--submit", "--sbatch-file"],
    }.items():
        with pytest.raises(SystemExit):
            gpu.main([mode, "--help"])
        text = capsys.readouterr().out
        assert all(o in text for o in options), text
    logs = tmp_path / "deep" / "logs"
    argv = ["slurm", "--config", "c.py", "--workdir", "w", "--log-dir", str(logs)]
    assert gpu.main([*argv, "--sbatch-file", str(tmp_path / "j.sbatch")]) == 0
    assert logs.is_dir()


FAKE_EXIT = """
import os, signal, sys, time
runs = int(open(sys.argv[1]).read()) if os.path.exists(sys.argv[1]) else 0
open(sys.argv[1], "w").write(str(runs + 1))
codes = [int(c) for c in sys.argv[2].split(",")]
if codes[min(runs, len(codes) - 1)] == -1:  # wait for a signal, then "save" and exit 75
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(75))
    time.sleep(60)
sys.exit(codes[min(runs, len(codes) - 1)])
"""


@pytest.mark.parametrize(
    ("codes", "restarts", "runs", "rc"),
    [("3,75,0", 3, 3, 0), ("0", 3, 1, 0), ("130", 3, 1, 130), ("1", 3, 1, 1), ("3", 2, 3, 3)],
)
def test_gpu_local_loop_restarts_after_hang_or_preemption_only(tmp_path, codes, restarts, runs, rc):
    (tmp_path / "fake.py").write_text(FAKE_EXIT)
    counter = tmp_path / "runs"
    cmd = [sys.executable, str(tmp_path / "fake.py"), str(counter), codes]
    assert gpu.run_local(cmd, dict(os.environ), restarts) == rc
    assert int(counter.read_text()) == runs


def test_gpu_local_loop_stops_after_its_own_sigterm(tmp_path):
    (tmp_path / "fake.py").write_text(FAKE_EXIT)
    code = "import sys; from tpu import gpu; sys.exit(gpu.run_local(sys.argv[1:], None, 3))"
    counter = tmp_path / "runs"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-c", code, sys.executable, str(tmp_path / "fake.py"), str(counter)]
    proc = subprocess.Popen([*cmd, "-1"], env=env)
    deadline = time.monotonic() + 30
    while not counter.exists():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    time.sleep(0.3)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 75  # forwarded, saved, and not started again
    assert counter.read_text() == "1"


def test_queued_create_waits_until_active(monkeypatch):
    s = make_settings(None, project="p", zone="z", name="q", bucket="gs://b", queued=True)
    states = iter(["WAITING_FOR_RESOURCES", "PROVISIONING", "ACTIVE"])
    seen = []

    class Fake(launch.Runner):
        def run(self, steps):
            seen.extend(step.argv[3:5] for step in steps)

        def capture(self, step):
            seen.append(step.argv[3:5])
            return 0, next(states) + "\n"

    out = io.StringIO()
    monkeypatch.setattr(launch.time, "sleep", lambda _: None)
    launch._create(s, Fake(False, out))
    assert seen[0] == ("queued-resources", "create") and len(seen) == 4
    assert out.getvalue().count("waiting for capacity") == 2 and "ACTIVE" in out.getvalue()
    states = iter(["WAITING_FOR_RESOURCES", "FAILED"])
    with pytest.raises(launch.CommandFailed, match="state FAILED"):
        launch._create(s, Fake(False, io.StringIO()))
    assert "until the state is ACTIVE" in dry("create", *BASE, "--queued")[-1]


def test_no_libtpu_noise_on_cpu_but_kept_on_a_tpu_machine():
    import logging

    from pretrain.metric_log import _QuietLibraries

    def record(path: str, level: int, msg: str) -> logging.LogRecord:
        return logging.LogRecord("jax", level, path, 1, msg, None, None)

    bridge = "/x/jax/_src/xla_bridge.py"
    noise = "Unable to initialize backend 'tpu': INTERNAL: Failed to open libtpu.so: no such file"
    cpu, tpu = _QuietLibraries(tpu_hardware=False), _QuietLibraries(tpu_hardware=True)
    assert not cpu.filter(record(bridge, logging.INFO, noise))
    assert tpu.filter(record(bridge, logging.INFO, noise))  # on a TPU VM it is the diagnosis
    assert cpu.filter(record(bridge, logging.WARNING, noise))  # warnings always stay
    cuda = "Unable to initialize backend 'cuda': no CUDA"
    assert cpu.filter(record(bridge, logging.INFO, cuda))
    assert cpu.filter(record("/x/pretrain/train.py", logging.INFO, noise))
    assert not cpu.filter(record("/x/orbax/checkpoint/a.py", logging.INFO, "saved"))
