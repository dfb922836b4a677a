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


def test_dedup_ab_times_two_trees_on_the_same_sentences(tmp_path):
    """`python -m bench.dedup_ab HEAD HEAD`: both trees unpacked, each index built by its own
    code, the same sentences decided in every round with the same decisions (a fixture
    title removed, unrelated sentences kept), rates and ratios reported per round."""
    import json

    from bench import dedup_ab

    klue = os.path.join(os.path.dirname(__file__), "fixtures", "klue")
    with open(os.path.join(klue, "ynat-v1.1", "ynat-v1.1_train.json"), encoding="utf-8") as fh:
        titles = [x["title"] for x in json.load(fh)[:3]]
    unrelated = [
        f"시험용 문장 {i}번은 어느 벤치마크와도 관련이 없는 내용입니다." for i in range(20)
    ]
    texts = tmp_path / "texts.txt"
    texts.write_text("\n".join(titles + unrelated) + "\n", encoding="utf-8")
    args = dedup_ab.argparse.Namespace(
        old="HEAD", new="HEAD", sentences=100, rounds=2, data_dir=str(tmp_path),
        klue_dir=klue, texts=str(texts), index_root=str(tmp_path / "idx"),
    )  # fmt: skip
    out = dedup_ab.run(args)
    assert out["sentences"] == 23 and out["names"] == {"old": "HEAD", "new": "HEAD"}
    assert out["old"]["decisions"] == out["new"]["decisions"]
    assert out["old"]["removed"] == out["new"]["removed"] == 3
    for role in ("old", "new"):
        assert len(out[role]["sentences_per_cpu_s"]) == 2 and out[role]["median"] > 0
        assert out[role]["vmhwm_mb"] > 0
    assert len(out["ratio_per_round"]) == 2 and out["ratio_median"] > 0


def test_dedup_ab_refuses_rounds_of_one_commit_that_decide_differently():
    import pytest

    from bench import dedup_ab

    row = {"cpu_s": 1.0, "start_cpu_s": 0.1, "vmhwm_mb": 300, "removed": 1, "decisions": "a"}
    runs = {"old": [row, row], "new": [row, dict(row, decisions="b")]}
    with pytest.raises(RuntimeError, match="new: decisions differ"):
        dedup_ab.summary(runs, 10)
    assert dedup_ab.summary({"old": [row], "new": [dict(row, cpu_s=0.5)]}, 10)["ratio_median"] == 2
