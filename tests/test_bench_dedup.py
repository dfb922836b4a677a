"""bench.dedup's harness: one fresh process per scorer, never a hang, its own memory."""

from __future__ import annotations

import multiprocessing
import os
import sys

from bench import dedup


def _sends(method, conn):
    conn.send({"method": method, "peak_rss_mb": dedup.peak_rss_mb()})
    conn.close()


def _dies(method, conn):
    os._exit(3)  # exits without a row: the parent must see EOF, not wait forever


def test_a_child_that_sends_nothing_is_a_row_not_a_hang():
    rows = dedup.in_fresh_processes(_dies, ["x"])
    assert rows == [{"method": "x", "error": "failed: exit 3 (see above)"}]


def test_each_child_reports_its_own_peak_memory():
    ballast = bytearray(200 * 2**20)  # the parent peaks above 200 MB
    ballast[::4096] = b"x" * len(ballast[::4096])
    assert dedup.peak_rss_mb() > 200
    (row,) = dedup.in_fresh_processes(_sends, ["ours"])
    del ballast
    assert 0 < row["peak_rss_mb"] < 150  # a fresh interpreter, not the parent's mark


def test_a_missing_optional_reference_says_not_installed(monkeypatch):
    monkeypatch.setitem(sys.modules, "bm25s", None)  # import bm25s now raises ImportError
    a, b = multiprocessing.Pipe(duplex=False)
    dedup._run("bm25s", 1, 1, b)
    assert a.recv() == {"method": "bm25s", "error": "not installed (pip install bm25s)"}
