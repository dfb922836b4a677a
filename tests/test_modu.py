"""NIKL 모두의 말뭉치 (MODU) files, the KLUE paper's main corpus and its ablations' only one:
written, spoken and annotated layouts, pretty-printed or on one line, with a byte-order mark
or gzip, read a document at a time; malformed documents and broken JSON reported."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from corpus import prepare
from corpus.readers import detect_format, iter_records
from corpus.textio import InputError, Quarantine

NEWS = {
    "id": "NIRW1900000001",
    "metadata": {"title": "국립국어원 신문 말뭉치 NIRW1900000001", "creator": "국립국어원"},
    "document": [
        {
            "id": "NIRW1900000001.1",
            "metadata": {
                "title": "첫 기사의 제목",
                "author": "김기자",
                "publisher": "한국일보",
                "date": "20190101",
                "topic": "사회",
                "original_topic": "사회>사건",
            },
            "paragraph": [
                {"id": "NIRW1900000001.1.1", "form": "첫 문단이다. 두 문장으로 되어 있다."},
                {"id": "NIRW1900000001.1.2", "form": "둘째 문단이다."},
            ],
        },
        {
            "id": "NIRW1900000001.2",
            "metadata": {"title": "빈 기사", "author": "이기자", "date": "20190102"},
            "paragraph": [{"id": "NIRW1900000001.2.1", "form": "  "}],
        },
        {
            "id": "NIRW1900000001.3",
            "metadata": {"title": "셋째 기사", "date": "20190103", "topic": "경제"},
            "paragraph": [{"id": "NIRW1900000001.3.1", "form": "물가가 올랐다."}],
        },
    ],
}
SPOKEN = {
    "id": "SARW1800000001",
    "metadata": {"title": "구어 말뭉치"},
    "document": [
        {
            "id": "SARW1800000001.1",
            "metadata": {
                "title": "일상 대화",
                "speaker": [{"id": "1", "age": "20대", "occupation": "학생", "sex": "여성"}],
            },
            "utterance": [
                {"id": "SARW1800000001.1.1.1", "form": "오늘 뭐 했어?", "speaker_id": "1"},
                {"id": "SARW1800000001.1.1.2", "form": "그냥 집에 있었어.", "speaker_id": "2"},
            ],
        }
    ],
}
ANNOTATED = {
    "id": "NXMP1902008040",
    "metadata": {"title": "형태 분석 말뭉치"},
    "document": [
        {
            "id": "NWRW1800000022.417",
            "metadata": {"title": "주석 문서", "author": "박기자"},
            "sentence": [
                {"id": "NWRW1800000022.417.1.1", "form": "한국어 문장이다.", "word": []},
                {"id": "NWRW1800000022.417.1.2", "form": "또 하나.", "morpheme": []},
            ],
        }
    ],
}


def _write(path: Path, obj: dict, *, indent: int | None = 4, bom: bool = False) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = json.dumps(obj, ensure_ascii=False, indent=indent).encode("utf-8")
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + data)
    return path


def test_a_newspaper_file_is_a_record_per_document_without_the_people(tmp_path):
    p = _write(tmp_path / "NIKL_NEWSPAPER" / "NIRW1900000001.json", NEWS)
    assert detect_format(p) == "modu"
    from corpus.readers import ReadOptions

    opts = ReadOptions()
    recs = list(iter_records(p, options=opts))
    assert [r.id for r in recs] == [
        "NIKL_NEWSPAPER/NIRW1900000001.json:NIRW1900000001.1",
        "NIKL_NEWSPAPER/NIRW1900000001.json:NIRW1900000001.3",
    ]
    assert recs[0].text == "첫 문단이다. 두 문장으로 되어 있다.\n둘째 문단이다."
    assert recs[0].source == "NIKL_NEWSPAPER"
    assert recs[0].extra == {
        "title": "첫 기사의 제목", "date": "20190101", "topic": "사회", "publisher": "한국일보",
    }  # fmt: skip
    assert opts.skipped == {"empty_document": 1}


@pytest.mark.parametrize("layout", ["spoken", "annotated"])
def test_utterances_and_sentences_are_lines_of_their_document(tmp_path, layout):
    obj = SPOKEN if layout == "spoken" else ANNOTATED
    (rec,) = iter_records(_write(tmp_path / "m" / f"{obj['id']}.json", obj))
    want = {
        "spoken": "오늘 뭐 했어?\n그냥 집에 있었어.",
        "annotated": "한국어 문장이다.\n또 하나.",
    }[layout]
    assert rec.text == want and "speaker" not in json.dumps(rec.extra, ensure_ascii=False)
    assert "author" not in rec.extra and "age" not in json.dumps(rec.to_dict())


@pytest.mark.parametrize("shape", ["one_line", "bom", "gzip"])
def test_every_shape_of_the_file_reads_the_same(tmp_path, shape):
    want = [r.to_dict() for r in iter_records(_write(tmp_path / "a" / "m" / "x.json", NEWS))]
    p = tmp_path / "b" / "m" / "x.json"  # the same file key and source as the first
    _write(p, NEWS, indent=None if shape == "one_line" else 4, bom=shape == "bom")
    if shape == "gzip":
        p.write_bytes(gzip.compress(p.read_bytes()))
    assert detect_format(p) == "modu"
    got = [r.to_dict() for r in iter_records(p)]
    assert got == want and len(got) == 2


def test_a_malformed_document_is_named_and_the_others_kept(tmp_path):
    bad = json.loads(json.dumps(NEWS))
    del bad["document"][2]["paragraph"]
    bad["document"][0]["paragraph"][1]["form"] = 7
    p = _write(tmp_path / "m" / "x.json", bad)
    with pytest.raises(InputError, match=r"x\.json: wrong type: a paragraph of document 1"):
        list(iter_records(p))
    q = Quarantine()
    assert list(iter_records(p, on_error="skip", quarantine=q)) == []  # 2 empty, 1 and 3 bad
    assert dict(q.counts) == {"wrong type": 1, "missing field": 1}


def test_broken_json_keeps_the_documents_before_it(tmp_path):
    p = _write(tmp_path / "m" / "x.json", NEWS)
    data = p.read_bytes()
    cut = data.index(b'"NIRW1900000001.3"')  # the file ends inside the third document
    p.write_bytes(data[:cut])
    with pytest.raises(InputError, match=r"malformed JSON after document 2: .*\(2 documents"):
        list(iter_records(p))
    q = Quarantine()
    recs = list(iter_records(p, on_error="skip", quarantine=q))
    assert [r.id.rsplit(":", 1)[1] for r in recs] == ["NIRW1900000001.1"]
    assert dict(q.counts) == {"malformed JSON after document 2": 1}


def test_a_json_file_without_documents_is_no_modu_file(tmp_path):
    p = _write(tmp_path / "x.json", {"id": "a", "data": [1, 2]})
    with pytest.raises(InputError, match="no documents: not a MODU file"):
        list(iter_records(p, fmt="modu"))
    assert detect_format(p) == "jsonl"  # as before: not a MODU file


def test_prepare_splits_modu_documents_into_sentences(tmp_path):
    src = tmp_path / "NIKL_NEWSPAPER"
    _write(src / "NIRW1900000001.json", NEWS)
    _write(src / "SARW1800000001.json", SPOKEN)
    out = tmp_path / "records"
    prepare.main(["--input", str(src), "--output", str(out), "--workers", "1"])
    lines = [
        json.loads(x)
        for f in sorted(out.glob("shard-*.jsonl.gz"))
        for x in gzip.decompress(f.read_bytes()).decode().splitlines()
    ]
    by_id = {r["id"]: r["text"] for r in lines}
    key = "NIKL_NEWSPAPER/NIRW1900000001.json:NIRW1900000001.1"
    assert by_id[f"{key}-s0"] == "첫 문단이다."
    assert by_id[f"{key}-s2"] == "둘째 문단이다."
    assert {r["source"] for r in lines} == {"NIKL_NEWSPAPER"} and len(lines) == 6
    stats = json.loads((out / "stats.json").read_text())
    assert stats["reader_skipped"] == {"empty_document": 1}
