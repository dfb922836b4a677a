"""End to end: `python -m corpus.pseudonymize` on small generated inputs."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from corpus import pseudonymize
from corpus.pii.kept import public_kind
from corpus.pii.testset import positives

REPO = Path(__file__).resolve().parents[1]
#: The generated positives whose value is replaced (a private IP, `public_kind`, is kept).
EXAMPLES = [
    ex
    for ex in positives(seed=77, per_type=4)
    if not any(public_kind(k, ex.text[s:e]) for s, e, k in ex.spans)
]


def _write_inputs(folder: Path) -> list[str]:
    """A .txt file (one record per line) and a gzipped corpus-record file; returns the values."""
    folder.mkdir()
    values = [ex.text[s:e] for ex in EXAMPLES for s, e, _ in ex.spans]
    lines = [ex.text for ex in EXAMPLES[:32]] + [
        "개인정보가 없는 문장입니다.",
        "",
        "그냥 2019년 이야기.",
    ]
    (folder / "a.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    with gzip.open(folder / "b.jsonl.gz", "wt", encoding="utf-8") as fh:
        for i, ex in enumerate(EXAMPLES[32:]):
            rec = {"id": f"doc-{i}", "text": ex.text, "source": "gen", "lang": "ko", "n": i}
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    return values


def _read_shards(out: Path) -> list[dict]:
    recs = []
    for path in sorted(out.glob("shard-*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            recs.extend(json.loads(line) for line in fh)
    return recs


def _all_text_under(folder: Path) -> str:
    chunks = []
    for root, _, files in os.walk(folder):
        for name in files:
            data = Path(root, name).read_bytes()
            if name.endswith(".gz"):
                data = gzip.decompress(data)
            chunks.append(data.decode("utf-8", "replace"))
    return "\n".join(chunks)


def test_cli_end_to_end(tmp_path):
    values = _write_inputs(tmp_path / "in")
    out, report = tmp_path / "out", tmp_path / "spans.jsonl"
    argv = ["--input", str(tmp_path / "in"), "--output", str(out), "--insecure-demo-key",
            "--report", str(report), "--workers", "1"]  # fmt: skip
    assert pseudonymize.main(argv) == 0
    stats = json.loads((out / "stats.json").read_text())
    assert stats["read"] == 32 + 2 + len(EXAMPLES) - 32  # the blank line is skipped, and counted
    assert stats["skipped"] == {"blank_line": 1}
    assert stats["changed"] == len(EXAMPLES)
    assert stats["changed"] + stats["unchanged"] == stats["read"]
    assert sum(stats["spans"].values()) == len(EXAMPLES)
    assert stats["share_changed"] == pytest.approx(len(EXAMPLES) / stats["read"], abs=1e-6)
    recs = _read_shards(out)
    assert len(recs) == stats["read"]
    txt_ids = [r["id"] for r in recs if r["id"].endswith((":1", ":33"))]
    assert txt_ids == ["in/a.txt:1", "in/a.txt:33"]
    extra = [r for r in recs if r["id"].startswith("doc-")]
    assert extra and all(r["lang"] == "ko" and r["source"] == "gen" for r in extra)
    assert [r["n"] for r in extra] == list(range(len(extra)))
    # the report holds ids, types, offsets and hashes; no file holds an original value
    rows = [json.loads(line) for line in report.read_text().splitlines()]
    assert len(rows) == len(EXAMPLES)
    assert set(rows[0]) == {"id", "field", "type", "start", "end", "hash"}
    everything = _all_text_under(out) + report.read_text()
    leaked = [v for v in values if v in everything]
    assert leaked == []
    # the demo key is marked as such (key handling: tests/test_pseudonym_key.py)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["insecure_demo_key"] is True


def test_cli_is_deterministic_and_resumable(tmp_path):
    _write_inputs(tmp_path / "in")
    argv = ["--input", str(tmp_path / "in"), "--insecure-demo-key", "--workers", "1"]
    pseudonymize.main([*argv, "--output", str(tmp_path / "o1")])
    pseudonymize.main([*argv, "--output", str(tmp_path / "o2")])
    shards = sorted(p.name for p in (tmp_path / "o1").glob("shard-*"))
    for name in shards:
        assert (tmp_path / "o1" / name).read_bytes() == (tmp_path / "o2" / name).read_bytes()


def test_cli_resumes_after_a_crash(tmp_path, monkeypatch):
    _write_inputs(tmp_path / "in")
    argv = ["--input", str(tmp_path / "in"), "--insecure-demo-key", "--workers", "1"]
    pseudonymize.main([*argv, "--output", str(tmp_path / "ref")])
    real = pseudonymize.process_shard

    def crash_on_second(job):
        if job.index == 1:
            raise RuntimeError("killed")
        return real(job)

    monkeypatch.setattr(pseudonymize, "process_shard", crash_on_second)
    with pytest.raises(RuntimeError, match="killed"):
        pseudonymize.main([*argv, "--output", str(tmp_path / "o")])
    assert not (tmp_path / "o" / "manifest.json").exists()
    monkeypatch.setattr(pseudonymize, "process_shard", real)
    pseudonymize.main([*argv, "--output", str(tmp_path / "o")])
    for path in sorted((tmp_path / "ref").glob("shard-*")):
        assert (tmp_path / "o" / path.name).read_bytes() == path.read_bytes()
    ref = json.loads((tmp_path / "ref" / "stats.json").read_text())
    assert json.loads((tmp_path / "o" / "stats.json").read_text()) == ref


def test_cli_types_filter_and_bad_type(tmp_path):
    _write_inputs(tmp_path / "in")
    out = tmp_path / "out"
    argv = ["--input", str(tmp_path / "in"), "--output", str(out), "--types", "email,mobile",
            "--insecure-demo-key"]  # fmt: skip
    pseudonymize.main([*argv, "--workers", "1"])
    spans = json.loads((out / "stats.json").read_text())["spans"]
    assert set(spans) == {"email", "mobile"} and spans["email"] > 0
    with pytest.raises(SystemExit):
        pseudonymize.main(["--input", str(tmp_path / "in"), "--output", str(out), "--types", "x"])


def test_cli_bad_input_is_named_or_quarantined(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "r.jsonl").write_text(
        '{"id": "1", "text": "연락처 010-2345-6789", "source": "s"}\n{"id": "2", "text": \n',
        encoding="utf-8",
    )
    with pytest.raises(Exception, match=r"r\.jsonl:2"):
        pseudonymize.main(["--input", str(folder), "--output", str(tmp_path / "o"),
                           "--workers", "1", "--insecure-demo-key"])  # fmt: skip
    out = tmp_path / "o2"
    pseudonymize.main(["--input", str(folder), "--output", str(out), "--workers", "1",
                       "--on-error", "skip", "--insecure-demo-key"])  # fmt: skip
    stats = json.loads((out / "stats.json").read_text())
    assert stats["read"] == 1 and stats["changed"] == 1 and sum(stats["quarantined"].values()) == 1
    assert "010-2345-6789" not in _all_text_under(out)


def test_module_help_runs():
    res = subprocess.run(
        [sys.executable, "-m", "corpus.pseudonymize", "--help"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert res.returncode == 0 and "--key-file" in res.stdout and "birth_date" in res.stdout
