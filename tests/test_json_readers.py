"""Whole-file JSON: NIKL 모두의 말뭉치 (MODU) files, the KLUE paper's main corpus and its
ablations' only one, and JSON arrays (NSMC's synopses.json). MODU:
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
from tests.stage_outputs import shard_records

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


@pytest.mark.parametrize("shape", ["document_object", "top_level", "top_level_one_line"])
def test_a_file_of_one_document_is_that_document(tmp_path, shape):
    """Releases with one document per file: ``"document"`` an object (parliament records), or
    the document's id, metadata and units at the file's top (some 2020-2021 annotated and
    spoken releases); found by `--format auto` and read as the same record as in a list."""
    doc = SPOKEN["document"][0]
    obj = {**SPOKEN, "document": doc} if shape == "document_object" else {**doc}
    if shape != "document_object":
        obj["id"] = "SBRW2100000001"
    p = _write(tmp_path / "m" / "x.json", obj, indent=None if shape.endswith("line") else 2)
    assert detect_format(p) == "modu"
    (rec,) = iter_records(p)
    assert rec.text == "오늘 뭐 했어?\n그냥 집에 있었어." and "speaker" not in json.dumps(rec.extra)
    assert rec.id == ("m/x.json:SARW1800000001.1" if shape == "document_object"
                      else "m/x.json:SBRW2100000001")  # fmt: skip
    plain = _write(tmp_path / "o" / "x.json", {"id": "보통", "sentence": ["문장"]})
    assert detect_format(plain) != "modu"  # no NIKL id: not taken for one


def test_nikl_marks_in_utterances_are_not_text_and_placeholders_stay(tmp_path):
    """Messenger and dialogue corpora mark events, attachments and inaudible speech inside
    ``form`` ({emoji}, {system: gift}, {share:photo}, {laughing}, ((xx)), (()); a guessed
    transcription is ((words))): the marks go, the guessed words stay, an utterance that was
    only marks leaves no line, NIKL's de-identification placeholders (&name&) are kept, and
    a paragraph (news, books) is never touched. A topic of "NA" is no topic."""
    forms = [
        "ㅋㅋ 일하고 있지 {emoji}", "{share:photo}", "{system: gift} 고마워",
        "그래서 ((xx)) 갔어 (()) {laughing}", "((어제)) 봤지", "&name&한테 연락해 봐",
    ]  # fmt: skip
    doc = {"id": "MDRW2100000001.1", "metadata": {"topic": "NA", "title": "대화"},
           "utterance": [{"id": str(i), "form": f} for i, f in enumerate(forms)]}  # fmt: skip
    p = _write(tmp_path / "m" / "MDRW2100000001.json", {"id": "MDRW2100000001", "document": [doc]})
    (rec,) = iter_records(p)
    assert rec.text.split("\n") == [
        "ㅋㅋ 일하고 있지", "고마워", "그래서 갔어", "어제 봤지", "&name&한테 연락해 봐",
    ]  # fmt: skip
    assert rec.extra == {"title": "대화"}
    news = {"id": "N", "document": [{"id": "N.1", "paragraph": [{"form": "((괄호)) {본문}"}]}]}
    (rec,) = iter_records(_write(tmp_path / "n" / "x.json", news))
    assert rec.text == "((괄호)) {본문}"


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
    # broken inside the first document: one error, not a second try as a one-document file
    p.write_bytes(data[: data.index(b'"NIRW1900000001.1.2"')])
    q = Quarantine()
    assert list(iter_records(p, fmt="modu", on_error="skip", quarantine=q)) == []
    assert sum(q.counts.values()) == 1 and list(q.counts)[0].startswith("malformed JSON")
    for cut in (b'"utterance": [{"form": "bro', b'"metadata": {"ti'):  # one document; early
        one = tmp_path / "one" / f"{len(cut)}.json"
        one.parent.mkdir(exist_ok=True)
        one.write_bytes(b'{"id": "SBRW1900000001", ' + cut)
        q = Quarantine()
        assert list(iter_records(one, fmt="modu", on_error="skip", quarantine=q)) == []
        assert sum(q.counts.values()) == 1 and list(q.counts)[0].startswith("malformed JSON")


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
    lines = shard_records(out)
    by_id = {r["id"]: r["text"] for r in lines}
    key = "NIKL_NEWSPAPER/NIRW1900000001.json:NIRW1900000001.1"
    assert by_id[f"{key}-s0"] == "첫 문단이다."
    assert by_id[f"{key}-s2"] == "둘째 문단이다."
    assert {r["source"] for r in lines} == {"NIKL_NEWSPAPER"} and len(lines) == 6
    stats = json.loads((out / "stats.json").read_text())
    assert stats["reader_skipped"] == {"empty_document": 1}


# JSON arrays ------------------------------------------------------------------------------

ARRAY = [
    {"id": "a1", "text": "첫 원소의 문장이다. 둘째 문장.", "label": 1},
    {"text": "둘째 원소.", "label": 0},
    {"text": "   ", "label": 0},
    "문자열 원소도 문장이다.",
]


def test_a_json_array_is_a_record_per_element(tmp_path):
    p = _write(tmp_path / "d" / "data.json", ARRAY)
    assert detect_format(p) == "json"
    from corpus.readers import ReadOptions

    opts = ReadOptions()
    recs = list(iter_records(p, options=opts))
    assert [(r.id, r.text) for r in recs] == [
        ("a1", "첫 원소의 문장이다. 둘째 문장."),
        ("d/data.json:2", "둘째 원소."),
        ("d/data.json:4", "문자열 원소도 문장이다."),
    ]
    assert recs[0].extra == {"label": 1} and recs[0].source == "d"
    assert opts.skipped == {"empty_document": 1}


@pytest.mark.parametrize("shape", ["one_line", "bom", "gzip"])
def test_every_shape_of_a_json_array_reads_the_same(tmp_path, shape):
    want = [r.to_dict() for r in iter_records(_write(tmp_path / "a" / "d" / "x.json", ARRAY))]
    p = tmp_path / "b" / "d" / "x.json"
    _write(p, ARRAY, indent=None if shape == "one_line" else 4, bom=shape == "bom")
    if shape == "gzip":
        p.write_bytes(gzip.compress(p.read_bytes()))
    assert detect_format(p) == "json"
    assert [r.to_dict() for r in iter_records(p)] == want and len(want) == 3


def test_a_bad_element_is_named_and_broken_json_keeps_what_came_before(tmp_path):
    p = _write(tmp_path / "d" / "x.json", [{"text": "좋다."}, {"body_x": "필드 없음"}, 7])
    with pytest.raises(InputError, match=r"x\.json: missing field: element 2: no text field"):
        list(iter_records(p))
    q = Quarantine()
    assert [r.text for r in iter_records(p, on_error="skip", quarantine=q)] == ["좋다."]
    assert dict(q.counts) == {"missing field": 1, "wrong type": 1}
    data = _write(p, ARRAY).read_bytes()
    p.write_bytes(data[: data.index("둘째 원소".encode())])
    q = Quarantine()
    assert [r.id for r in iter_records(p, on_error="skip", quarantine=q)] == ["a1"]
    assert list(q.counts) == ["malformed JSON after element 1"]


def test_json_format_on_an_object_says_it_is_no_array(tmp_path):
    p = _write(tmp_path / "x.json", {"rows": [{"text": "문장"}]})
    with pytest.raises(InputError, match="not a JSON array"):
        list(iter_records(p, fmt="json"))
    assert list(iter_records(_write(tmp_path / "e.json", []), fmt="json")) == []  # empty: fine


def test_nsmc_synopses_read_with_their_text_field():
    """The shared data's one JSON array (50 synopses), left out of earlier corpus runs."""
    from corpus.datadir import resolve_data_dir

    try:
        p = resolve_data_dir() / "corpus" / "nsmc" / "synopses.json"
    except FileNotFoundError:
        pytest.skip("no shared data directory")
    if not p.exists():
        pytest.skip("no shared data directory")
    recs = list(iter_records(p, text_field="synopsis"))
    assert len(recs) == 50 and recs[0].id == "nsmc/synopses.json:1"
    assert set(recs[0].extra) == {"rating", "title_en", "title_kr"}
    assert all(r.text.strip() for r in recs) and sum(len(r.text) for r in recs) > 5000


def test_json_items_reads_records_nested_in_an_object(tmp_path):
    """KLUE MRC's and many AI Hub files' shape: {"data": [{"paragraphs": [{"context": ...}]}]}
    read with --json-items data.item.paragraphs.item and --text-field context, through the
    stage's CLI too; a path with nothing under it is an error, not an empty corpus."""
    doc = {
        "version": "1",
        "data": [
            {"title": "가", "paragraphs": [{"context": "첫 문단.", "qas": []}]},
            {"title": "나", "paragraphs": [{"context": "둘째 문단."}, {"context": "셋째."}]},
        ],
    }
    p = _write(tmp_path / "mrc" / "train.json", doc)
    recs = list(
        iter_records(p, fmt="json", json_items="data.item.paragraphs.item", text_field="context")
    )
    assert [(r.id, r.text) for r in recs] == [
        ("mrc/train.json:1", "첫 문단."), ("mrc/train.json:2", "둘째 문단."),
        ("mrc/train.json:3", "셋째."),
    ]  # fmt: skip
    assert recs[0].extra == {"qas": []}
    with pytest.raises(InputError, match="nothing at --json-items data.item.sections.item"):
        list(iter_records(p, fmt="json", json_items="data.item.sections.item"))
    out = tmp_path / "records"
    nested = ["--format", "json", "--json-items", "data.item.paragraphs.item"]
    prepare.main(["--input", str(p), "--output", str(out), "--workers", "1", *nested,
                  "--text-field", "context"])  # fmt: skip
    texts = [r["text"] for r in shard_records(out)]
    assert texts == ["첫 문단.", "둘째 문단.", "셋째."]


def test_a_text_field_that_is_a_list_of_strings_is_a_document_of_lines(tmp_path):
    """{"sentences": ["...", "..."]}: one record whose lines are the items, in JSON Lines, in a
    JSON array and in a Parquet list column alike; prepare keeps the items apart as sentences
    even when one lacks final punctuation. A list holding a non-string is still an error."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    items = ["첫 문장이다", "둘째 문장이다.", "셋째"]
    rows = [{"sentences": items, "doc": "a"}, {"sentences": [], "doc": "b"}]
    jl = tmp_path / "l" / "x.jsonl"
    jl.parent.mkdir()
    jl.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    arr = _write(tmp_path / "a" / "x.json", rows)
    pqt = tmp_path / "p" / "x.parquet"
    pqt.parent.mkdir()
    pq.write_table(pa.Table.from_pylist(rows), pqt)
    for p in (jl, arr, pqt):
        recs = list(iter_records(p, text_field="sentences"))
        assert recs[0].text == "첫 문장이다\n둘째 문장이다.\n셋째", p
        assert recs[0].extra == {"doc": "a"}
    out = tmp_path / "records"
    prepare.main(["--input", str(jl), "--output", str(out), "--workers", "1",
                  "--text-field", "sentences"])  # fmt: skip
    assert [r["text"] for r in shard_records(out)] == items
    jl.write_text(json.dumps({"sentences": ["문장", 3]}) + "\n", "utf-8")
    with pytest.raises(InputError, match="must be a string or a list of strings"):
        list(iter_records(jl, text_field="sentences"))
