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


def _row(method, rate):
    return {"method": method, "sentences_per_cpu_second": rate, "sentences_per_second": rate,
            "peak_rss_mb": 100.0, "queries": 10}  # fmt: skip


def test_the_rank_bm25_column_says_not_run_without_a_rank_bm25_rate():
    skipped = {"method": "rank_bm25", "error": "not run (--rank-queries 0)"}
    lines = dedup.throughput_table([_row("ours", 3000.0), skipped, _row("bm25s", 700.0)])
    assert "| ours | 3000.0 | not run |" in lines[2]
    assert lines[3] == "| rank_bm25 | not run (--rank-queries 0) | | | | |"
    # a rank-bm25 row that timed nothing is no rate either (it was a ZeroDivisionError)
    lines = dedup.throughput_table([_row("ours", 3000.0), _row("rank_bm25", 0.0)])
    assert "| ours | 3000.0 | not run |" in lines[2]
    lines = dedup.throughput_table([_row("ours", 3000.0), _row("rank_bm25", 2.0)])
    assert "| ours | 3000.0 | 1500x |" in lines[2] and "| rank_bm25 | 2.0 | 1x |" in lines[3]


def test_rank_queries_0_runs_no_rank_bm25_child(monkeypatch):
    ran = []
    monkeypatch.setattr(dedup, "_index", lambda: None)

    def fake(target, methods, *args):
        ran.extend(methods)
        return [_row(m, 1.0) for m in methods]

    monkeypatch.setattr(dedup, "in_fresh_processes", fake)
    monkeypatch.setattr(dedup, "_write_docs", lambda: None)
    rows = dedup.throughput(3, 0)
    assert "rank_bm25" not in ran
    assert [r["method"] for r in rows] == ["ours", "ours-previous", "rank_bm25", "bm25s"]
    assert rows[2]["error"] == "not run (--rank-queries 0)"
