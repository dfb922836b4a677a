"""The newcomer's corpus folder: stray binaries, --exclude, progress lines with an ETA."""

from __future__ import annotations

import gzip
import json
import logging
import lzma
import os

import pytest

from corpus.executor import ShardJob, run_stage
from corpus.progress import StageProgress, expected_records, format_duration, heartbeat
from corpus.readers import expand_inputs
from corpus.records import RecordWriter
from corpus.textio import InputError, binary_kind

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8
KOREAN = "대한민국은 민주공화국이다.\n모든 권력은 국민으로부터 나온다.\n".encode() * 50


def copy_shard(job: ShardJob) -> dict:
    """A toy stage reading through `ShardJob.records` (so it sends heartbeats)."""
    n = 0
    with RecordWriter(job.output_path()) as out:
        for rec in job.records():
            out.write(rec)
            n += 1
    return {"read": n, "kept": n}


def test_binary_kind_names_binaries_and_keeps_text_with_a_few_bad_bytes(tmp_path):
    files = {
        "img.png": PNG,
        "img.png.gz": gzip.compress(PNG, mtime=0),
        "noise.bin": bytes((i * 7919) % 256 for i in range(4096)),
        # text in the wrong encoding is text: the readers name the bad lines, the quarantine
        # rate stops the run (tests/test_large_inputs.py), it is never skipped as binary
        "utf16.txt": "한국어 텍스트\n".encode("utf-16") * 100,
        "euckr.txt": KOREAN.decode().encode("euc-kr"),
        # positives the guard must not swallow: their bad lines are quarantined one by one
        "ko.txt": KOREAN,
        "nul.txt": KOREAN[:300] + b"\x00" + KOREAN[300:],
        "bad.txt": KOREAN[:200] + b"\xff\xfe" + KOREAN[200:],
        "ko.txt.gz": gzip.compress(KOREAN, mtime=0),
        "ko.txt.xz": lzma.compress(KOREAN),
        "empty.txt": b"",
        "records.jsonl": b'{"id": "a", "text": "\\u0000 escaped", "source": "s"}\n',
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    kinds = {name: binary_kind(tmp_path / name) for name in files}
    assert kinds == {
        "img.png": "PNG image",
        "img.png.gz": "PNG image",
        "noise.bin": "binary data",
        "utf16.txt": None,
        "euckr.txt": None,
        "ko.txt": None,
        "nul.txt": None,
        "bad.txt": None,
        "ko.txt.gz": None,
        "ko.txt.xz": None,
        "empty.txt": None,
        "records.jsonl": None,
    }


def _folder(tmp_path):
    d = tmp_path / "in"
    (d / "img").mkdir(parents=True)
    (d / "a.txt").write_bytes(KOREAN)
    (d / "b.txt.xz").write_bytes(lzma.compress(KOREAN))
    (d / "img" / "logo.png").write_bytes(PNG)
    return d


def test_a_stray_binary_is_an_error_naming_it_or_skipped_and_counted(tmp_path):
    src = _folder(tmp_path)
    with pytest.raises(InputError, match=r"logo\.png: PNG image, not text: .*--exclude '\*\.png'"):
        run_stage("toy", [str(src)], str(tmp_path / "o1"), copy_shard, {"on_error": "raise"})
    out = tmp_path / "o2"
    counts = run_stage("toy", [str(src)], str(out), copy_shard, {"on_error": "skip"})
    assert counts["read"] == 200 and counts["skipped_files"] == {"binary": 1}
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["skipped_files"] == [
        {"path": str(src / "img" / "logo.png"), "reason": "PNG image"}
    ]
    assert manifest["shards"] == 2 and not (out / ".progress").exists()


def test_an_archive_of_files_says_to_unpack_it(tmp_path):
    """NIKL and AI Hub ship corpora as ZIP files: the error says to unzip (or untar) them,
    and a tar inside gzip is named as a tar archive, not as 'binary data'."""
    import io
    import tarfile
    import zipfile

    src = tmp_path / "in"
    src.mkdir()
    with zipfile.ZipFile(src / "NIKL_NEWSPAPER.zip", "w") as z:
        z.writestr("NIRW1900000001.json", '{"document": []}')
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as t:
        info = tarfile.TarInfo("a.txt")
        info.size = len(KOREAN)
        t.addfile(info, io.BytesIO(KOREAN))
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "corpus.tar.gz").write_bytes(gzip.compress(buf.getvalue(), mtime=0))
    assert binary_kind(tmp_path / "t" / "corpus.tar.gz") == "tar archive"
    (tmp_path / "z").mkdir()  # the NamuWiki dump's own packing (7z's signature, then data)
    (tmp_path / "z" / "namuwiki210301.7z").write_bytes(b"7z\xbc\xaf\x27\x1c\x00\x04" + KOREAN)
    cases = ((src, r"ZIP archive .*unzip it"), (tmp_path / "t", r"tar -xf"),
             (tmp_path / "z", r"7z archive, not text: .*\(7z x\)"))  # fmt: skip
    for folder, want in cases:
        with pytest.raises(InputError, match=want):
            run_stage("toy", [str(folder)], str(tmp_path / "o"), copy_shard, {"on_error": "raise"})


def test_exclude_globs_by_name_and_by_path(tmp_path):
    src = _folder(tmp_path)
    names = lambda ex: [os.path.relpath(p, src) for p in expand_inputs([str(src)], ex)]  # noqa: E731
    assert names([]) == ["a.txt", "b.txt.xz", "img/logo.png"]
    assert names(["*.png"]) == ["a.txt", "b.txt.xz"]
    assert names(["*/img/*", "*.xz"]) == ["a.txt"]
    counts = run_stage(
        "toy",
        [str(src)],
        str(tmp_path / "o"),
        copy_shard,
        {"on_error": "raise", "exclude": ["*.png"]},
    )
    assert counts == {"kept": 200, "read": 200}
    # a file left out is named in the manifest, never just absent
    manifest = json.loads((tmp_path / "o" / "manifest.json").read_text())
    assert manifest["excluded_files"] == [str(src / "img" / "logo.png")]
    with pytest.raises(FileNotFoundError, match=r"--exclude \* leaves out every input file"):
        run_stage("toy", [str(src)], str(tmp_path / "o3"), copy_shard, {"exclude": ["*"]})


def test_progress_lines_off_a_terminal_give_records_per_second_and_eta(tmp_path, caplog):
    src = _folder(tmp_path)
    with caplog.at_level(logging.INFO, logger="corpus.executor"):
        os.environ["CORPUS_PROGRESS_SECONDS"] = "0"
        try:
            run_stage(
                "toy",
                [str(src)],
                str(tmp_path / "o"),
                copy_shard,
                {"on_error": "raise", "exclude": ["*.png"]},
            )
        finally:
            del os.environ["CORPUS_PROGRESS_SECONDS"]
    lines = [r.getMessage() for r in caplog.records if "records/s" in r.getMessage()]
    assert lines and lines[-1].startswith("toy: 2/2 shards, 200 records, ")
    assert "ETA" in lines[0] and "took" in lines[-1]


def test_eta_counts_a_running_shard_by_its_upstream_record_count(tmp_path):
    up = tmp_path / "records"
    (up / ".done").mkdir(parents=True)
    (up / "shard-00000.jsonl.gz").write_bytes(b"x" * 1000)
    (up / ".done" / "shard-00000.json").write_text(json.dumps({"counts": {"kept": 400}}))
    assert expected_records(str(up / "shard-00000.jsonl.gz")) == 400
    assert expected_records(str(tmp_path / "raw.txt")) is None
    # pseudonymize writes every record it reads and counts them as read/changed/unchanged
    marker = {"counts": {"read": 300, "changed": 2, "unchanged": 298}}
    (up / ".done" / "shard-00000.json").write_text(json.dumps(marker))
    assert expected_records(str(up / "shard-00000.jsonl.gz")) == 300
    marker = {"counts": {"read": 300, "removed": 10}}  # a stage that drops: not a count of output
    (up / ".done" / "shard-00000.json").write_text(json.dumps(marker))
    assert expected_records(str(up / "shard-00000.jsonl.gz")) is None
    (up / ".done" / "shard-00000.json").write_text(json.dumps({"counts": {"kept": 400}}))
    out = tmp_path / "out"
    report = StageProgress(
        "dedup", str(out), {"shard-00000": (1000, 400), "shard-00001": (1000, None)}, tty=False
    )
    assert report.snapshot()[2] is None  # nothing to estimate from yet
    beat = out / ".progress" / "shard-00000.json"
    list(heartbeat(range(100), str(beat)))  # a quarter of shard 0 read
    records, rate, eta = report.snapshot()
    assert records == 100 and rate > 0 and eta is not None
    assert "1/2 shards" not in report.describe() and "0/2 shards, 100 records" in report.describe()


def test_format_duration():
    assert [format_duration(s) for s in (4.4, 425, 7380)] == ["4 s", "7 min 5 s", "2 h 3 min"]
