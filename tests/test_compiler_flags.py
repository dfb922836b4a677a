"""The suite's XLA compiler settings (`compiler_flags`) reach this process and the XLA_FLAGS the
subprocess helpers build, without dropping a flag the caller gave."""

from __future__ import annotations

import os

from compiler_flags import SUITE_XLA_FLAGS, subprocess_xla_flags, with_suite_flags


def test_this_process_compiles_with_the_suite_flags():
    words = os.environ["XLA_FLAGS"].split()
    assert all(words.count(flag) == 1 for flag in SUITE_XLA_FLAGS), words


def test_flags_are_added_once_and_keep_the_callers():
    assert with_suite_flags("") == " ".join(SUITE_XLA_FLAGS)
    given = "--xla_force_host_platform_device_count=8"
    assert with_suite_flags(given).split() == [given, *SUITE_XLA_FLAGS]
    assert with_suite_flags(with_suite_flags(given)) == with_suite_flags(given)
    # a value the caller chose for one of the suite's flags is the caller's
    name = SUITE_XLA_FLAGS[0].split("=")[0]
    assert with_suite_flags(f"{name}=true").split() == [f"{name}=true"]


def test_subprocess_flags_set_the_device_count_or_none():
    assert subprocess_xla_flags().split() == list(SUITE_XLA_FLAGS)
    with_devices = subprocess_xla_flags(8).split()
    assert with_devices[0] == "--xla_force_host_platform_device_count=8"
    assert with_devices[1:] == list(SUITE_XLA_FLAGS)
