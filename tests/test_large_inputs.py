"""Inputs the size and shape of CC-100: xz/bz2 by magic bytes, one big file over several
workers with the output of one shard, truncated archives, mostly-garbage inputs."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import os
import time
from pathlib import Path

import pytest
import zstandard

from corpus import prepare, pseudonymize
from corpus.executor import ShardJob, run_stage
from corpus.readers import detect_format, iter_records
from corpus.records import RecordWriter
from corpus.sharding import plan_shards
from corpus.textio import InputError, Quarantine, compression, iter_lines

SENTENCES = [
    "서울은 대한민국의 수도이다.",
    "오늘은 날씨가 맑고 바람이 분다. 내일은 비가 온다고 한다.",
    "연락처는 010-2345-6789 입니다.",
    "이 영화 정말 재미있었어요!",
    "한국어 위키백과는 2002년에 시작되었다.",
]


def _text(n: int) -> bytes:
    """n lines of Korean text, with a blank line and a CRLF now and then (as in real dumps)."""
    rows = []
    for i in range(n):
        s = SENTENCES[i % len(SENTENCES)]
        rows.append(f"{i}번째 문단. {s}" + ("\r" if i % 97 == 5 else ""))
        if i % 53 == 7:
            rows.append("")
    return ("\n".join(rows) + "\n").encode()


def _records(folder: Path, pattern: str = "shard-*.jsonl.gz") -> list[str]:
    out = []
    for p in sorted(folder.glob(pattern)):
        opener = gzip.open if p.name.endswith(".gz") else open
        with opener(p, "rt", encoding="utf-8") as fh:
            out.extend(fh.read().splitlines())
    return out


def _stats(folder: Path) -> dict:
    return json.loads((folder / "stats.json").read_text())


COMPRESSORS = {
    "xz": lzma.compress,
    "bz2": lambda b: bz2.compress(b, compresslevel=1),  # 100 kB blocks: a break loses one
    "gz": gzip.compress,
    "zst": lambda b: zstandard.ZstdCompressor().compress(b),
}


@pytest.mark.parametrize("kind", ["xz", "bz2"])
def test_xz_and_bz2_are_read_by_magic_bytes(tmp_path, kind):
    data = _text(300)
    # the same folder name ("ko"): ids and sources are named after the folder and file
    plain = tmp_path / "a" / "ko" / "ko.txt"
    packed = tmp_path / "b" / "ko" / f"ko.txt.{kind}"
    misnamed = tmp_path / "c" / "ko" / "ko.txt"  # the magic bytes decide, not the suffix
    for p, payload in ((plain, data), (packed, COMPRESSORS[kind](data)),
                       (misnamed, COMPRESSORS[kind](data))):  # fmt: skip
        p.parent.mkdir(parents=True)
        p.write_bytes(payload)
    assert compression(packed) == {"xz": "xz", "bz2": "bzip2"}[kind]
    assert compression(plain) is None and detect_format(packed) == "text"
    want = [(r.id, r.text) for r in iter_records(plain)]
    assert [(r.id, r.text) for r in iter_records(packed)] == want  # same ids: suffix dropped
    assert [(r.id, r.text) for r in iter_records(misnamed)] == want
    # through a stage, like CC-100's ko.txt.xz
    outs = {}
    for name, src in (("plain", plain), (kind, packed)):
        outs[name] = tmp_path / f"out-{name}"
        prepare.main(["--input", str(src), "--output", str(outs[name]), "--workers", "1"])
    assert _records(outs[kind]) == _records(outs["plain"])
    assert _stats(outs[kind])["kept"] > 300 and "quarantined" not in _stats(outs[kind])


def test_text_starting_with_bzh_is_not_bzip2(tmp_path):
    p = tmp_path / "a.txt"
    p.write_bytes("BZh 로 시작하는 문장\n".encode())
    assert compression(p) is None
    assert [t for _, t in iter_lines(p)] == ["BZh 로 시작하는 문장"]


def _split_vs_whole(tmp_path: Path, src: Path, argv: list[str], shard_bytes: int, stage) -> None:
    whole, split = tmp_path / "whole", tmp_path / "split"
    stage.main([*argv, "--input", str(src), "--output", str(whole), "--workers", "1"])
    # one worker: that the parts land on different workers is tested on the 200 MB file
    stage.main([*argv, "--input", str(src), "--output", str(split), "--workers", "1",
                "--shard-bytes", str(shard_bytes)])  # fmt: skip
    manifest = json.loads((split / "manifest.json").read_text())
    assert manifest["shards"] >= 4 and len(manifest["shard_plan"]) == manifest["shards"]
    assert json.loads((whole / "manifest.json").read_text())["shards"] == 1
    assert _records(split) == _records(whole)
    assert _stats(split) == _stats(whole)
    assert not (split / ".chunks").exists()  # chunks of compressed inputs are cleaned up


@pytest.mark.parametrize("kind", ["plain", "xz", "gz"])
def test_prepare_on_a_split_file_equals_one_shard(tmp_path, kind):
    data = _text(3000)
    src = tmp_path / "in" / ("big.txt" if kind == "plain" else f"big.txt.{kind}")
    src.parent.mkdir()
    src.write_bytes(data if kind == "plain" else COMPRESSORS[kind](data))
    _split_vs_whole(tmp_path, src, [], len(data) // 5, prepare)


def test_pseudonymize_on_a_split_jsonl_file_equals_one_shard(tmp_path):
    rows = [
        {"id": f"d{i}", "text": SENTENCES[i % 5] + f" {i}", "source": "s", "title": f"제목 {i}"}
        for i in range(2000)
    ]
    data = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode()
    src = tmp_path / "in" / "recs.jsonl"
    src.parent.mkdir()
    src.write_bytes(data)
    _split_vs_whole(tmp_path, src, ["--insecure-demo-key"], len(data) // 4, pseudonymize)


def test_byte_ranges_cover_every_line_once_wherever_the_cuts_fall(tmp_path):
    data = _text(400) + "끝 줄, 줄바꿈 없음".encode()  # no final newline
    p = tmp_path / "f.txt"
    p.write_bytes(data)
    want = list(iter_lines(p))
    for shard_bytes in (1, 7, 64, 333, 4096, len(data) - 1):
        shards = plan_shards([str(p)], shard_bytes=shard_bytes)
        got = []
        for sh in shards:
            got.extend(iter_lines(p, byte_range=sh.byte_range))
        assert got == want, shard_bytes


def copy_with_pid(job: ShardJob) -> dict:
    """A toy stage: copies records uncompressed and says which process ran it."""
    n = 0
    with RecordWriter(job.output_path(suffix=".jsonl")) as out:
        for rec in job.records():
            out.write(rec)
            n += 1
    time.sleep(0.3)  # long enough that both workers take shards
    return {"read": n, "pid": {str(os.getpid()): 1}}


@pytest.mark.slow
def test_200mb_single_file_lands_on_several_workers_with_one_shard_output(tmp_path):
    # ~1 KB lines (CC-100 paragraphs are of that order), 200 MB, made fast by repetition
    block = b"".join((f"{i:06d} " + SENTENCES[i % 5] * 12 + "\n").encode() for i in range(2000))
    src = tmp_path / "cc100" / "ko.txt"
    src.parent.mkdir()
    with open(src, "wb") as fh:
        while fh.tell() < 200 * 1024 * 1024:
            fh.write(block)
    size = os.path.getsize(src)
    cfg = {"on_error": "raise", "format": "text"}
    whole = run_stage("copy", [str(src)], str(tmp_path / "one"), copy_with_pid,
                      {**cfg, "shard_bytes": 1 << 40}, workers=1)  # fmt: skip
    split = run_stage("copy", [str(src)], str(tmp_path / "four"), copy_with_pid,
                      {**cfg, "shard_bytes": size // 4 + 1}, workers=2)  # fmt: skip
    assert len(split["pid"]) == 2  # the shards of one file ran in two processes
    assert whole["read"] == split["read"] > 40_000
    one = (tmp_path / "one" / "shard-00000.jsonl").read_bytes()
    parts = sorted((tmp_path / "four").glob("shard-*.jsonl"))
    assert len(parts) == 4
    assert b"".join(p.read_bytes() for p in parts) == one


def _truncated(tmp_path: Path, kind: str, n: int = 8000) -> tuple[Path, bytes]:
    data = _text(n)
    packed = COMPRESSORS[kind](data)
    src = tmp_path / "in" / f"cut.txt.{kind}"
    src.parent.mkdir(exist_ok=True)
    src.write_bytes(packed[: len(packed) * 2 // 3])
    return src, data


@pytest.mark.parametrize("kind", ["xz", "gz", "bz2"])
def test_truncated_archive_skip_mode_keeps_what_was_read(tmp_path, kind):
    src, _ = _truncated(tmp_path, kind)
    with pytest.raises(InputError, match=r"cut\.txt\.\w+:\d+: corrupt or truncated"):
        prepare.main(["--input", str(src), "--output", str(tmp_path / "r"), "--workers", "1"])
    out = tmp_path / "s"
    assert prepare.main(["--input", str(src), "--output", str(out), "--workers", "1",
                         "--on-error", "skip"]) == 0  # fmt: skip
    stats = _stats(out)
    assert stats["quarantined"] == {"truncated archive": 1}
    assert stats["kept"] > 100 and stats["documents"] > 100
    entry = json.loads((out / "quarantine" / "shard-00000.jsonl").read_text())
    read = int(entry["reason"].split("(")[-1].split()[0])
    assert entry["line"] == read + 1 and read > 100
    # the same file split into chunks: same records, same quarantine entry
    split = tmp_path / "split"
    prepare.main(["--input", str(src), "--output", str(split), "--workers", "1",
                  "--on-error", "skip", "--shard-bytes", "20000"])  # fmt: skip
    assert json.loads((split / "manifest.json").read_text())["shards"] > 2
    assert _records(split) == _records(out) and _stats(split) == stats
    q = [json.loads(x) for p in sorted((split / "quarantine").glob("*.jsonl"))
         for x in p.read_text().splitlines()]  # fmt: skip
    assert q == [entry]


def test_mostly_garbage_input_stops_even_in_skip_mode(tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    # Korean text in EUC-KR: every line is invalid UTF-8. (Random bytes are a binary file:
    # skipped and counted as such in skip mode, tests/test_corpus_progress.py.)
    text = "".join(f"대한민국 헌법 제{i}조 모든 국민은 법 앞에 평등하다.\n" for i in range(3000))
    (src / "junk.txt").write_bytes(text.encode("euc-kr"))
    (src / "ok.txt").write_bytes(_text(50))
    with pytest.raises(InputError, match=r"junk\.txt.*--max-quarantine-rate 0\.5"):
        prepare.main(["--input", str(src), "--output", str(tmp_path / "o"), "--workers", "1",
                      "--on-error", "skip"])  # fmt: skip
    assert not (tmp_path / "o" / "manifest.json").exists()
    # a higher limit lets it through, every bad line counted
    out = tmp_path / "o2"
    prepare.main(["--input", str(src), "--output", str(out), "--workers", "1",
                  "--on-error", "skip", "--max-quarantine-rate", "1"])  # fmt: skip
    stats = _stats(out)
    assert sum(stats["quarantined"].values()) > 100 and stats["kept"] > 0


def test_small_file_with_a_few_bad_lines_is_not_garbage(tmp_path):
    p = tmp_path / "a.txt"
    p.write_bytes(b"good\n\xff bad\nok\n")
    q = Quarantine(max_rate=0.5)
    assert [t for _, t in iter_lines(p, on_error="skip", quarantine=q)] == ["good", "ok"]
    q.check_rate(str(p))  # 1 of 3: fine
    q2 = Quarantine(max_rate=0.2)
    list(iter_lines(p, on_error="skip", quarantine=q2))
    with pytest.raises(InputError, match="quarantine rate 33.3%") as e:
        q2.check_rate(str(p))
    # it quotes the first bad line's error (where and why, never its text), to say what to change
    assert str(e.value).endswith(f"; the first: {p}:2: invalid UTF-8: byte 0 of the line")
