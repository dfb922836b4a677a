"""Korean text as Windows tools and older public datasets save it: CP949/EUC-KR read with
``--encoding cp949`` exactly as the same text in UTF-8, a UTF-8 run told which option reads
such a file, and UTF-16 refused in one error that names the conversion."""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path

import pytest

from corpus import prepare
from corpus.readers import add_reader_arguments, iter_records, reader_config
from corpus.textio import InputError, Quarantine
from tests.stage_outputs import shard_lines

#: Syllables of CP949 beyond EUC-KR's 2,350 (똠, 햏, 쌰, 븝) among common ones, punctuation,
#: Hanja, digits and Latin letters: all of them must come back as they were.
LINES = [
    "서울은 대한민국의 수도이다. 인구는 약 940만 명이다.",
    "똠방각하와 햏자가 쌰랄라 븝 하고 웃었다.",
    "漢字 表記: 大韓民國 (Republic of Korea), 1948년 수립.",
    "“따옴표”와 『겹낫표』, 그리고 ①②③ 기호도 있다.",
]


def _korean(n: int) -> str:
    return "".join(f"{i}번째 문단. {LINES[i % len(LINES)]}\n" for i in range(n))


def _pair(tmp_path: Path, name: str, text: str) -> tuple[Path, Path]:
    """The same text as UTF-8 and as CP949, in files of the same name under folders of the
    same name (ids are ``folder/name:line``, so both give the same ids)."""
    out = []
    for enc in ("utf-8", "cp949"):
        p = tmp_path / enc / "src" / name
        p.parent.mkdir(parents=True)
        p.write_bytes(text.encode(enc))
        out.append(p)
    return out[0], out[1]


FORMATS = {
    "x.txt": _korean(20),
    "x.jsonl": "".join(
        json.dumps({"text": line, "note": f"메모 {i}"}, ensure_ascii=False) + "\n"
        for i, line in enumerate(LINES)
    ),
    "x.csv": "번호,본문\n" + "".join(f'{i},"{line}"\n' for i, line in enumerate(LINES)),
    "x.wiki": "".join(
        f'<doc id="{i}" url="u" title="제목{i}">\n제목{i}\n\n{line}\n</doc>\n'
        for i, line in enumerate(LINES)
    ),
}


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_cp949_reads_as_the_same_records_as_utf8(tmp_path, name):
    utf8, cp949 = _pair(tmp_path, name, FORMATS[name])
    column = "본문" if name.endswith(".csv") else None
    want = list(iter_records(utf8, column=column))
    got = list(iter_records(cp949, column=column, encoding="cp949"))
    assert got == want and len(want) >= len(LINES)
    assert any("똠방각하" in r.text for r in got)


def test_utf8_run_on_cp949_korean_names_the_option(tmp_path):
    _, cp949 = _pair(tmp_path, "x.txt", _korean(5))
    with pytest.raises(InputError, match=r"x\.txt:1: invalid UTF-8: .*--encoding cp949"):
        list(iter_records(cp949))
    q = Quarantine()
    assert list(iter_records(cp949, on_error="skip", quarantine=q)) == []
    assert dict(q.counts) == {"invalid UTF-8": 5}  # the category is unchanged by the hint


def test_bad_bytes_that_are_not_korean_get_no_hint(tmp_path):
    p = tmp_path / "a.txt"
    p.write_bytes("좋은 줄\n".encode() + b"\x80\x80 abc\n")  # 0x80 starts no CP949 character
    with pytest.raises(InputError) as e:
        list(iter_records(p))
    assert e.value.line == 2 and "--encoding" not in e.value.reason


def test_a_bad_line_in_cp949_is_named_and_the_rest_kept(tmp_path):
    p = tmp_path / "a.txt"
    p.write_bytes("첫 줄이다\n".encode("cp949") + b"\x80 broken\n" + "셋째 줄\n".encode("cp949"))
    with pytest.raises(InputError, match=r"a\.txt:2: invalid CP949: byte 0 of the line"):
        list(iter_records(p, encoding="cp949"))
    q = Quarantine()
    recs = list(iter_records(p, encoding="cp949", on_error="skip", quarantine=q))
    assert [r.text for r in recs] == ["첫 줄이다", "셋째 줄"]
    assert dict(q.counts) == {"invalid CP949": 1}


@pytest.mark.parametrize("enc", ["utf-16", "utf-16-be"])
def test_utf16_is_one_error_that_names_the_conversion(tmp_path, enc):
    p = tmp_path / "u16.txt"
    data = _korean(30).encode(enc)
    p.write_bytes(data if data[:2] in (b"\xff\xfe", b"\xfe\xff") else b"\xfe\xff" + data)
    for encoding in ("utf-8", "cp949"):
        with pytest.raises(InputError, match=r"u16\.txt:1: UTF-16 text: .*iconv -f UTF-16"):
            list(iter_records(p, encoding=encoding))
    q = Quarantine()
    assert list(iter_records(p, on_error="skip", quarantine=q)) == []
    assert dict(q.counts) == {"UTF-16 text": 1}  # one entry for the file, not one per line


@pytest.mark.parametrize("kind", ["plain", "gz", "jsonl"])
def test_prepare_on_cp949_split_in_shards_equals_utf8_whole(tmp_path, kind):
    """A large CP949 file read in byte ranges (plain, jsonl: its format found in CP949 too)
    or chunks (gzip) by `corpus.prepare` gives the records and stats of the same text in
    UTF-8 read whole."""
    text = _korean(3000)
    if kind == "jsonl":
        lines = text.splitlines()
        text = "".join(json.dumps({"body": t}, ensure_ascii=False) + "\n" for t in lines)
    utf8, cp949 = _pair(tmp_path, "big.txt", text)  # jsonl: found by its first line
    if kind == "gz":
        cp949.write_bytes(gzip.compress(cp949.read_bytes()))
    outs = {}
    for p, extra in ((utf8, []), (cp949, ["--encoding", "cp949", "--shard-bytes", "20000"])):
        out = tmp_path / ("o-" + p.parent.parent.name)
        prepare.main(["--input", str(p), "--output", str(out), "--workers", "1", *extra])
        outs[p] = out
    split = json.loads((outs[cp949] / "manifest.json").read_text())
    assert split["shards"] >= 4

    assert (
        shard_lines(outs[cp949]) == shard_lines(outs[utf8]) and len(shard_lines(outs[utf8])) > 100
    )
    stats = [json.loads((outs[p] / "stats.json").read_text()) for p in (utf8, cp949)]
    assert stats[0] == stats[1]


def test_the_encoding_enters_a_stage_config_only_when_not_utf8():
    """Runs made before ``--encoding`` existed keep their fingerprints (resume stays valid)."""
    p = argparse.ArgumentParser()
    add_reader_arguments(p)
    p.add_argument("--on-error", default="raise")
    assert "encoding" not in reader_config(p.parse_args([]))
    assert reader_config(p.parse_args(["--encoding", "cp949"]))["encoding"] == "cp949"
    with pytest.raises(SystemExit):
        p.parse_args(["--encoding", "latin-1"])
