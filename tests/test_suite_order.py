"""The suite's own scheduling list names files that exist (a renamed file would silently lose
its place at the front)."""

from __future__ import annotations

from pathlib import Path

import conftest


def test_long_first_files_exist():
    here = Path(__file__).resolve().parent
    missing = [name for name in conftest.LONG_FIRST if not (here / name).is_file()]
    assert not missing, missing
    assert len(set(conftest.LONG_FIRST)) == len(conftest.LONG_FIRST)
