"""Launch settings: one dataclass, read from an env file and overridden by flags.

Every setting a launch needs (project, zone, TPU name, accelerator, bucket, run name, the
pretraining config file) lives here, in one place; the command builders in `tpu.commands` are
pure functions of a `Settings`, which is what makes `--dry-run` exact and testable. There are
no hyperparameters here: those belong to the pretraining config file (`pretrain/configs/*.py`),
which the launcher only names.

The env file is ``KEY=VALUE`` lines (``#`` comments, optional quotes), keys the upper-case flag
names: ``PROJECT=my-project``, ``ZONE=europe-west4-a``, ``ACCELERATOR=v3-8``, ``BUCKET=gs://b``.
"""

from __future__ import annotations

import dataclasses
import re
import shlex
from pathlib import Path

# The TPU software ("runtime") version to create each generation with, for JAX. Source: Cloud
# TPU "TPU software versions" page (PyTorch and JAX table): v4 and older use the plain Ubuntu
# base image and get JAX from pip; v5e, v5p and v6e have their own images.
RUNTIME_VERSIONS = {
    "v2": "tpu-ubuntu2204-base",
    "v3": "tpu-ubuntu2204-base",
    "v4": "tpu-ubuntu2204-base",
    "v5litepod": "v2-alpha-tpuv5-lite",
    "v5p": "v2-alpha-tpuv5",
    "v6e": "v2-alpha-tpuv6e",
}

# The JAX/libtpu pair `setup` installs on each generation's workers (pip requirement strings),
# and the Python they need. Sources:
# * jax==0.10.2 -> libtpu==0.0.42.*: jax 0.10.2's own ``tpu`` extra (its wheel METADATA,
#   ``Requires-Dist: libtpu==0.0.42.*; extra == "tpu"``), the pair JAX releases together;
#   jax 0.10.2 needs Python >= 3.11 (``Requires-Python``), this project too (pyproject.toml).
# * libtpu on PyPI (release notes of 0.0.21.1 - 0.0.45): built for Python 3.11-3.14 (0.0.43
#   dropped 3.11, 0.0.43.2 restored it), hence Python 3.11 on every worker.
# * v4, v5e, v5p, v6e: generations JAX documents for current libtpu (Cloud TPU "Run JAX on a
#   TPU VM" guide installs plain ``jax[tpu]``).
# * v2, v3: INFERRED, not documented: no release note says libtpu 0.0.42 still runs v2/v3, and
#   no TPU was available to this project to try it. `setup`'s device check fails early if it
#   does not; pin an older pair with JAX_PIN= / LIBTPU_PIN= in the env file then.
PYTHON_VERSION = "3.11"
JAX_PINS = {
    "v2": ("jax==0.10.2", "libtpu==0.0.42.*"),  # inferred (see above)
    "v3": ("jax==0.10.2", "libtpu==0.0.42.*"),  # inferred (see above)
    "v4": ("jax==0.10.2", "libtpu==0.0.42.*"),
    "v5litepod": ("jax==0.10.2", "libtpu==0.0.42.*"),
    "v5p": ("jax==0.10.2", "libtpu==0.0.42.*"),
    "v6e": ("jax==0.10.2", "libtpu==0.0.42.*"),
}

# What JAX reports on one worker of each generation: local devices per host and their
# ``device_kind``. v2/v3 show each TensorCore as a device (8 per host); v4 and v5p fuse a
# chip's two cores ("megacore", 4 per host); v5e/v6e have one core per chip.
DEVICE_KINDS = {
    "v2": "TPU v2",
    "v3": "TPU v3",
    "v4": "TPU v4",
    "v5litepod": "TPU v5 lite",
    "v5p": "TPU v5",
    "v6e": "TPU v6 lite",
}
_DEVICES_PER_CHIP = {"v2": 2, "v3": 2, "v4": 1, "v5p": 1, "v5litepod": 1, "v6e": 1}

# Where the data disk (DATA_DISK=) is mounted on every worker; the example cache lives on it.
DATA_MOUNT = "/mnt/disks/klue-data"
# The first extra persistent disk of a Compute Engine / TPU VM, by its stable name.
DATA_DEVICE = "/dev/disk/by-id/google-persistent-disk-1"

# How the number in an accelerator type counts, per generation, and chips per host. v2-v4 and
# v5p count TensorCores (two per chip); v5e (v5litepod) and v6e count chips. A host (TPU VM
# worker) drives 4 chips, except the single-host 8-chip v5e/v6e slices.
_CORES_PER_CHIP = {"v2": 2, "v3": 2, "v4": 2, "v5p": 2, "v5litepod": 1, "v6e": 1}
_CHIPS_PER_HOST = 4
_SINGLE_HOST_8_CHIPS = ("v5litepod", "v6e")

# TPU generation -> the pretrain.flops peak-FLOPs key that estimates use (None: not tabled).
_ACCEL_RE = re.compile(r"^(v2|v3|v4|v5p|v5litepod|v6e)-(\d+)$")


class SettingsError(ValueError):
    """A missing or malformed launch setting; the CLI prints it and exits 2."""


@dataclasses.dataclass(frozen=True)
class Accelerator:
    """A parsed accelerator type such as ``v3-8``, ``v4-32`` or ``v5litepod-16``."""

    name: str
    generation: str
    count: int

    @property
    def chips(self) -> int:
        return self.count // _CORES_PER_CHIP[self.generation]

    @property
    def hosts(self) -> int:
        if self.generation in _SINGLE_HOST_8_CHIPS and self.chips <= 8:
            return 1
        return max(1, self.chips // _CHIPS_PER_HOST)

    @property
    def runtime_version(self) -> str:
        return RUNTIME_VERSIONS[self.generation]

    @property
    def devices_per_host(self) -> int:
        """JAX devices one worker sees: its chips (v2/v3: its TensorCores)."""
        return self.chips // self.hosts * _DEVICES_PER_CHIP[self.generation]

    @property
    def device_kind(self) -> str:
        return DEVICE_KINDS[self.generation]


def parse_accelerator(name: str) -> Accelerator:
    """``v3-8`` -> Accelerator('v3-8', 'v3', 8); a clear error for anything else."""
    m = _ACCEL_RE.match(name.strip())
    if not m:
        known = ", ".join(f"{g}-N" for g in RUNTIME_VERSIONS)
        raise SettingsError(f"unknown accelerator type {name!r} (expected one of {known})")
    acc = Accelerator(name.strip(), m.group(1), int(m.group(2)))
    if acc.count % _CORES_PER_CHIP[acc.generation]:
        raise SettingsError(f"accelerator {name!r}: count must be a multiple of chips")
    return acc


@dataclasses.dataclass(frozen=True)
class Settings:
    """Everything one launch needs. Paths under ``bucket`` are derived, never configured twice."""

    project: str = ""
    zone: str = ""
    name: str = "klue-pretrain"
    accelerator: str = "v3-8"
    runtime_version: str = ""  # "" = the generation's entry in RUNTIME_VERSIONS
    spot: bool = False
    queued: bool = False
    bucket: str = ""  # gs://BUCKET, or /shared/path on a file system all workers mount
    run: str = ""  # "" = the TPU name
    config: str = "pretrain/configs/bert_base.py"
    tokenizer: str = "runs/demo/tokenizer"
    examples: str = "runs/demo/examples"
    eval_examples: str = ""  # held-out examples folder (pretrain's data.eval_examples_dir)
    data_disk: str = ""  # an existing persistent disk for large example sets (attached at create)
    data_disk_mode: str = ""  # read-write | read-only ("" = read-write on 1 host, else read-only)
    remote_root: str = "~/klue"  # on every worker: code, venv, local data copy, logs
    python_version: str = PYTHON_VERSION  # installed on every worker by uv, whatever the image's
    jax_pin: str = ""  # "" = the generation's entry in JAX_PINS
    libtpu_pin: str = ""  # "" = the generation's entry in JAX_PINS
    device_check: bool = True  # setup fails unless each worker sees the accelerator's devices
    jax_extra: str = "tpu"  # pip extra of this project installed on the workers

    @property
    def acc(self) -> Accelerator:
        return parse_accelerator(self.accelerator)

    @property
    def runtime(self) -> str:
        return self.runtime_version or self.acc.runtime_version

    @property
    def run_name(self) -> str:
        return self.run or self.name

    @property
    def pins(self) -> tuple[str, str]:
        """(jax, libtpu) requirement strings for the workers."""
        jax_pin, libtpu_pin = JAX_PINS[self.acc.generation]
        return self.jax_pin or jax_pin, self.libtpu_pin or libtpu_pin

    @property
    def disk_mode(self) -> str:
        """read-write on one host; a pod's hosts share the disk, which only read-only allows."""
        mode = self.data_disk_mode or ("read-write" if self.acc.hosts == 1 else "read-only")
        if mode not in ("read-write", "read-only"):
            raise SettingsError(f"DATA_DISK_MODE must be read-write or read-only, got {mode!r}")
        if mode == "read-write" and self.acc.hosts > 1:
            raise SettingsError(
                f"{self.accelerator} has {self.acc.hosts} hosts: a disk attached to several "
                "hosts must be read-only (DATA_DISK_MODE=read-only; fill it first, tpu/README.md)"
            )
        return mode

    @property
    def examples_dir(self) -> str:
        """The examples folder on every worker: on the data disk when there is one."""
        if self.data_disk:
            return f"{DATA_MOUNT}/examples"
        return f"{self.remote_root.rstrip('/')}/data/examples"

    @property
    def eval_examples_dir(self) -> str:
        if not self.eval_examples:
            return ""
        if self.data_disk:
            return f"{DATA_MOUNT}/eval_examples"
        return f"{self.remote_root.rstrip('/')}/data/eval_examples"

    @property
    def run_uri(self) -> str:
        """``gs://bucket/run``: everything of this run lives under it."""
        return f"{self.bucket.rstrip('/')}/{self.run_name}"

    def require(self, *fields: str) -> None:
        """Raises SettingsError naming every required field that is empty."""
        missing = [f for f in fields if not getattr(self, f)]
        if missing:
            flags = ", ".join(
                f"--{f.replace('_', '-')} (or {f.upper()}= in the env file)" for f in missing
            )
            raise SettingsError(f"missing setting(s): {flags}")
        if "bucket" in fields and not (
            self.bucket.startswith("gs://") or self.bucket.startswith("/")
        ):
            raise SettingsError(
                f"--bucket must be a gs:// URI (or an absolute path on a file system every "
                f"worker mounts, such as Filestore), got {self.bucket!r}"
            )
        self.acc  # noqa: B018  (validates the accelerator type)


FIELDS = {f.name: f for f in dataclasses.fields(Settings)}


def split_passthrough(argv: list[str] | None) -> tuple[list[str], list[str]]:
    """``[own flags] -- [flags for pretrain.main]`` -> (own, passed through); sys.argv if None."""
    import sys

    argv = list(sys.argv[1:] if argv is None else argv)
    if "--" not in argv:
        return argv, []
    i = argv.index("--")
    return argv[:i], argv[i + 1 :]


def read_env_file(path: str | Path) -> dict[str, str]:
    """``KEY=VALUE`` lines -> {field: value}; unknown keys are an error naming file and line."""
    out: dict[str, str] = {}
    p = Path(path)
    if not p.is_file():
        raise SettingsError(f"env file not found: {p}")
    for lineno, raw in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("export "):
            line = line[len("export ") :]
        key, sep, value = line.partition("=")
        key = key.strip()
        if not sep or not key:
            raise SettingsError(f"{p}:{lineno}: expected KEY=VALUE, got {raw!r}")
        field = key.lower()
        if field not in FIELDS:
            known = ", ".join(k.upper() for k in FIELDS)
            raise SettingsError(f"{p}:{lineno}: unknown setting {key!r} (known: {known})")
        parts = shlex.split(value, comments=True)
        out[field] = parts[0] if len(parts) == 1 else " ".join(parts)
    return out


def _coerce(field: str, value: object) -> object:
    kind = FIELDS[field].type
    if kind in (bool, "bool") and isinstance(value, str):
        low = value.strip().lower()
        if low in ("1", "true", "yes", "on"):
            return True
        if low in ("0", "false", "no", "off", ""):
            return False
        raise SettingsError(f"{field.upper()} must be true or false, got {value!r}")
    return value


def make_settings(env_file: str | None = None, **flags: object) -> Settings:
    """Settings from the env file, then flags that were given (None means not given)."""
    values: dict[str, object] = {}
    if env_file:
        values.update(read_env_file(env_file))
    values.update({k: v for k, v in flags.items() if v is not None})
    unknown = set(values) - set(FIELDS)
    if unknown:
        raise SettingsError(f"unknown setting(s): {sorted(unknown)}")
    settings = Settings(**{k: _coerce(k, v) for k, v in values.items()})
    settings.acc  # noqa: B018  (fail early on a bad accelerator type)
    return settings
