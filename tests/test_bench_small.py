"""`python -m bench`'s small settings: every benchmark module has them, and the row adapters of
the two tokenizer measurements read what those modules really print (run here on a tiny
corpus), not a shape written from memory."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from bench import __main__ as bench_main

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).parent / "fixtures" / "tokenizer"
_spec = importlib.util.spec_from_file_location("korean_sentences", FIXTURES / "korean_sentences.py")
korean = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(korean)


def test_every_benchmark_module_has_small_settings():
    present = {
        f.stem
        for f in bench_main.BENCH_DIR.glob("*.py")
        if not f.stem.startswith("_") and f.stem not in bench_main.NOT_BENCHMARKS
    }
    assert present - set(bench_main.SMALL) == set()
    assert set(bench_main.SMALL) - present == set()  # no settings for a module that is gone


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    p = tmp_path_factory.mktemp("bench-small") / "ko.txt"
    p.write_text("\n".join(korean.lines(1500, seed=0)) + "\n", encoding="utf-8")
    return p


def _module_stdout(name: str, args: list[str]) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", f"bench.{name}", *args],
        capture_output=True, text=True, cwd=ROOT, check=True,
    )  # fmt: skip
    return proc.stdout


def test_alphabet_rows_from_the_module_output(corpus):
    args = bench_main.SMALL["tokenizer_alphabet"][0](None, "unused")
    args[args.index("--input") + 1 : args.index("--sample-bytes")] = [str(corpus)]
    res = json.loads(_module_stdout("tokenizer_alphabet", args))
    assert set(res["provenance"]) >= {"commit", "clean"}  # stamped like every other JSON
    rows = bench_main._alphabet_rows(res)
    assert [r["ours"] for r in rows] == [res["entries_0.999"], res["entries_0.9999"]]
    assert all(isinstance(r["ours"], int) and r["ours"] > 0 for r in rows)
    assert f"{res['occurrences']:,} characters" in rows[0]["what"]


def test_scaling_rows_from_the_module_output(corpus, tmp_path):
    args = bench_main.SMALL["tokenizer_scaling"][0](None, str(tmp_path / "x.json"))
    args[args.index("--input") + 1 : args.index("--output")] = [str(corpus)]
    args[args.index("--vocab") + 1] = "350"
    res = json.loads(_module_stdout("tokenizer_scaling", args))
    (row,) = bench_main._scaling_rows(res)
    assert row["ours"] == pytest.approx(res["text_mb_trained"] / res["wall_s"])
    assert row["peak_mb"] == res["peak_rss_tree_mb"] > 0
    table = bench_main.render(
        [{"name": "tokenizer_scaling", "rows": [row]}], "h", "f", {"commit": None}
    )
    assert "| tokenizer_scaling | vocabulary training, morpheme-bpe" in table
