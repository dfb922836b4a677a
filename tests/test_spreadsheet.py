"""Excel workbooks as AI Hub ships Korean corpora: found by `--format auto` (no longer refused
as a ZIP archive), a record per row of every sheet, the text column chosen as for CSV."""

from __future__ import annotations

import datetime

import openpyxl
import pytest

from corpus import prepare
from corpus.readers import ReadOptions, detect_format, iter_records
from corpus.textio import InputError, Quarantine, binary_kind
from tests.stage_outputs import shard_records


def _book(path, sheets: dict[str, list[list]]):
    book = openpyxl.Workbook()
    book.remove(book.active)
    for title, rows in sheets.items():
        sheet = book.create_sheet(title)
        for row in rows:
            sheet.append(row)
    path.parent.mkdir(parents=True, exist_ok=True)
    book.save(path)
    return path


PARALLEL = {
    "번역": [
        ["ID", "원문", "번역문", "날짜"],
        [1, "안녕하세요. 반갑습니다.", "Hello. Nice to meet you.", datetime.date(2021, 3, 1)],
        [2, None, "(no source)", None],
        [3, "두 번째 문장이다.", "The second sentence.", None],
    ],
    "요약": [["원문", "비고"], ["다른 시트의 문장이다.", "메모"]],
}


def test_a_record_per_row_of_every_sheet(tmp_path):
    p = _book(tmp_path / "aihub" / "parallel.xlsx", PARALLEL)
    assert binary_kind(p) is None and detect_format(p) == "xlsx"
    opts = ReadOptions()
    recs = list(iter_records(p, column="원문", options=opts))
    assert [(r.id, r.text) for r in recs] == [
        ("aihub/parallel.xlsx:번역:2", "안녕하세요. 반갑습니다."),
        ("aihub/parallel.xlsx:번역:4", "두 번째 문장이다."),
        ("aihub/parallel.xlsx:요약:2", "다른 시트의 문장이다."),
    ]
    assert recs[0].extra == {
        "ID": 1,
        "번역문": "Hello. Nice to meet you.",
        "날짜": "2021-03-01T00:00:00",
    }
    assert opts.skipped == {"blank_line": 1} and recs[0].source == "aihub"
    with pytest.raises(InputError, match="sheet '요약'.*no column '번역문'"):
        list(iter_records(p, column="원문,번역문"))  # the second sheet has no 번역문
    sheet = [r.text for r in iter_records(p, column="원문,번역문", on_error="skip")]
    assert sheet == ["안녕하세요. 반갑습니다.\nHello. Nice to meet you.", "(no source)",
                     "두 번째 문장이다.\nThe second sentence."]  # fmt: skip


def test_the_usual_text_column_or_a_named_error(tmp_path):
    p = _book(tmp_path / "b.xlsx", {"s": [["번호", "본문"], [1, "본문 문장이다."]]})
    assert [r.text for r in iter_records(p)] == ["본문 문장이다."]
    q = _book(tmp_path / "c.xlsx", {"첫": [["text"], ["문장."]], "둘": [["홍길동", "010"]]})
    with pytest.raises(InputError, match=r"c\.xlsx \(sheet '둘'\): the table needs --column") as e:
        list(iter_records(q))
    assert "홍길동" not in str(e.value)
    quarantine = Quarantine()
    kept = list(iter_records(q, on_error="skip", quarantine=quarantine))
    assert [r.text for r in kept] == ["문장."] and sum(quarantine.counts.values()) == 1
    broken = tmp_path / "d.xlsx"
    broken.write_bytes(p.read_bytes()[:300])
    with pytest.raises(InputError, match="not a readable Excel workbook"):
        list(iter_records(broken))


def test_prepare_reads_a_workbook(tmp_path):
    p = _book(tmp_path / "aihub" / "parallel.xlsx", PARALLEL)
    out = tmp_path / "records"
    prepare.main(["--input", str(p), "--output", str(out), "--workers", "1", "--column", "원문"])
    texts = [r["text"] for r in shard_records(out)]
    assert texts == ["안녕하세요.", "반갑습니다.", "두 번째 문장이다.", "다른 시트의 문장이다."]
