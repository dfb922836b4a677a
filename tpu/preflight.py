"""``python -m tpu.preflight --accelerator v3-8``: is this worker fit to train? (run by `setup`)

`python -m tpu.launch setup` runs it on every worker right after the install, so a wrong
Python or a wrong JAX/libtpu pair shows in the setup output, not hours later in a training log.
It checks, in order:

* the Python running it is at least ``--python-version`` (the project needs 3.11; the v2-v4
  image ``tpu-ubuntu2204-base`` ships 3.10, which is why `setup` installs one with ``uv``);
* JAX imports and sees this host's share of the accelerator: as many local devices as the
  accelerator type gives one host (`tpu.settings.Accelerator.devices_per_host`: 8 TensorCores
  on a v3 host, 4 megacore chips on v4 ...), all of the generation's ``device_kind``
  (``TPU v3`` ...). A CPU fallback (libtpu missing or failing) fails here with JAX's reason.

Prints one line per check and exits 0 when all pass, 4 naming each problem otherwise.
``--no-device-check`` (DEVICE_CHECK=false) keeps the Python check only, for a runtime whose
devices the table does not know yet.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from tpu.settings import Accelerator, SettingsError, parse_accelerator

PREFLIGHT_FAILED = 4


def python_problems(version: Sequence[int], required: str) -> list[str]:
    """[] when ``version`` (``sys.version_info``) is at least ``required`` ("3.11")."""
    want = tuple(int(x) for x in required.split("."))
    have = tuple(version[: len(want)])
    if have >= want:
        return []
    shown = ".".join(str(x) for x in version[:3])
    return [
        f"Python {shown} runs this worker's venv; the project needs >= {required} "
        "(rerun setup: it installs one with uv whatever the image ships)"
    ]


def device_problems(acc: Accelerator, devices: Sequence[Any]) -> list[str]:
    """[] when ``devices`` (``jax.local_devices()``) are one host's share of ``acc``."""
    kinds = sorted({str(d.device_kind) for d in devices})
    problems = []
    if kinds != [acc.device_kind]:
        problems.append(
            f"{acc.name} workers should see {acc.device_kind!r} devices, this one sees "
            f"{kinds or 'none'} (libtpu missing or not matching the chips? see the JAX/libtpu "
            "pin table in tpu/README.md)"
        )
    if len(devices) != acc.devices_per_host:
        problems.append(
            f"{acc.name} gives each of its {acc.hosts} host(s) {acc.devices_per_host} devices, "
            f"this one sees {len(devices)}"
        )
    return problems


def _jax_devices() -> tuple[list[Any], str]:
    import jax

    return list(jax.local_devices()), jax.__version__


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tpu.preflight",
        description="Checks this worker's Python and TPU devices against the accelerator type.",
    )
    parser.add_argument("--accelerator", required=True, help="e.g. v3-8, v4-32")
    parser.add_argument("--python-version", default="3.11", help="the least Python accepted")
    parser.add_argument("--no-device-check", action="store_true", help="check Python only")
    args = parser.parse_args(argv)
    try:
        acc = parse_accelerator(args.accelerator)
    except SettingsError as e:
        parser.error(str(e))
    problems = python_problems(sys.version_info, args.python_version)
    print(f"preflight: Python {sys.version.split()[0]}", flush=True)
    if not problems and not args.no_device_check:
        devices, version = _jax_devices()
        kinds = sorted({str(d.device_kind) for d in devices})
        print(f"preflight: jax {version}, {len(devices)} local device(s) {kinds}", flush=True)
        problems = device_problems(acc, devices)
    for problem in problems:
        print(f"preflight: error: {problem}", file=sys.stderr, flush=True)
    if problems:
        return PREFLIGHT_FAILED
    print(f"preflight: ok for {acc.name}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
