"""The NamuWiki dump (the paper's NAMUWIKI corpus): namumark made prose construct by
construct, and the dump read an article at a time (namespaces, redirects, contributors)."""

from __future__ import annotations

import gzip
import json

import pytest

from corpus import prepare
from corpus.namumark import is_redirect, namumark_text
from corpus.readers import ReadOptions, detect_format, iter_records
from corpus.textio import InputError
from tests.stage_outputs import shard_records

#: An article in namumark as NamuWiki pages are written (written for this test).
SEOUL = """[include(틀:대한민국의 도시, 지역=서울)]
[목차]
== 개요 ==
'''서울특별시'''(서울特別市)는 [[대한민국]]의 [[수도(정치)|수도]]이다.\
[* 1394년 [[조선]]의 수도가 된 이래.] 인구는 약 940만 명이다.
{{{#!wiki style="border: 1px solid gray"
[[한강]]이 도시를 가로지른다.}}}
|| 면적 || 605.2km² ||
|| 인구 || 9,386,034명 ||
== 역사 ==
=== 조선 시대 ===
 * 1394년: [[한양#s-2|한양]]으로 천도.
 * 1910년: 경성부로 ~~개칭~~ 바뀜.
 1. 번호 목록의 ''첫'' 항목.
> 서울은 __아름답다__.
[[파일:서울 전경.jpg|width=100%]]
[[분류:대한민국의 특별시]]
## 편집자 메모: 보이지 않는다
----
{{{#!html <b>html</b>}}}
{{{+1 큰 글씨}}}와 {{{#red 빨간 글씨}}}.
[youtube(abcdef)]
줄바꿈[br]다음 줄.
[ruby(漢字, ruby=한자)] 표기와 [[https://example.com|바깥 링크]].
"""

SEOUL_TEXT = [
    "서울특별시(서울特別市)는 대한민국의 수도이다. 인구는 약 940만 명이다.",
    "한강이 도시를 가로지른다.",
    "1394년: 한양으로 천도.",
    "1910년: 경성부로 바뀜.",
    "번호 목록의 첫 항목.",
    "서울은 아름답다.",
    "큰 글씨와 빨간 글씨.",
    "줄바꿈",
    "다음 줄.",
    "漢字 표기와 바깥 링크.",
]


def test_an_article_becomes_its_shown_prose():
    assert namumark_text(SEOUL).split("\n") == SEOUL_TEXT


@pytest.mark.parametrize(
    ("markup", "text"),
    [
        ("[[a|'''굵은''' 링크]]와 '''[[b]]''' 굵게", "굵은 링크와 b 굵게"),
        ("각주 안의 [* 괄호 [[c|링크]] 와 [br] 안쪽] 밖", "각주 안의 밖"),
        ("{{{#!folding 더 보기\n접힌 글이다.}}}", "접힌 글이다."),
        ("{{{#!syntax python\nprint(1)}}}남는 글", "남는 글"),
        ("{{{글자 그대로 '''x'''}}}", "글자 그대로 x"),
        ("1990--2000년대의 --취소-- 글", "1990--2000년대의 글"),
        ("== 제목만 ==\n||표만||", ""),
    ],
)
def test_each_construct(markup, text):
    assert namumark_text(markup) == text


def test_the_prose_agrees_with_namu_wiki_extractor():
    """Side by side with an independent cleaner (namu-wiki-extractor 0.3.0): the same prose,
    word for word, once the lines we drop by design are taken from its output (headings,
    table cells, an HTML box's text); it makes a space of ``[br]``, we a line break."""
    extractor = pytest.importorskip("namuwiki.extractor")
    theirs = extractor.extract_text(SEOUL).split("\n")
    dropped = ["개요", "면적 605.2km²", "인구 9,386,034명", "역사", "조선 시대", "html"]
    assert [line for line in theirs if line in dropped] == dropped
    kept = [line for line in theirs if line not in dropped]
    assert " ".join(kept) == " ".join(namumark_text(SEOUL).split("\n"))


def test_redirects_are_known_by_their_first_line():
    assert is_redirect("#redirect 서울특별시") and is_redirect("#넘겨주기 서울")
    assert not is_redirect("본문 #redirect 아님")


DUMP = [
    {"namespace": "0", "title": "서울특별시", "text": SEOUL, "contributors": ["user1", "1.2.3.4"]},
    {"namespace": "0", "title": "서울", "text": "#redirect 서울특별시", "contributors": ["u"]},
    {"namespace": "1", "title": "틀:대한민국의 도시", "text": "'''틀''' 본문", "contributors": []},
    {"namespace": "0", "title": "표뿐인 문서", "text": "|| 표 || 뿐 ||", "contributors": []},
    {
        "namespace": 0,
        "title": "부산광역시",
        "text": "'''부산'''은 [[항구]] 도시이다.",
        "contributors": [],
    },
]


def test_the_dump_is_a_record_per_article_without_contributors(tmp_path):
    p = tmp_path / "namuwiki" / "namuwiki_20210301.json"
    p.parent.mkdir()
    p.write_bytes(gzip.compress(json.dumps(DUMP, ensure_ascii=False, indent=1).encode()))
    assert detect_format(p) == "namuwiki"
    opts = ReadOptions()
    recs = list(iter_records(p, options=opts))
    assert [r.id for r in recs] == [
        "namuwiki/namuwiki_20210301.json:서울특별시",
        "namuwiki/namuwiki_20210301.json:부산광역시",
    ]
    assert recs[0].text.split("\n") == SEOUL_TEXT and recs[1].text == "부산은 항구 도시이다."
    assert recs[0].extra == {"title": "서울특별시"} and recs[0].source == "namuwiki"
    assert "user1" not in json.dumps([r.to_dict() for r in recs], ensure_ascii=False)
    assert opts.skipped == {"redirect": 1, "other_namespace": 1, "empty_document": 1}


def test_prepare_reads_the_dump_into_sentences(tmp_path):
    p = tmp_path / "namuwiki" / "dump.json"
    p.parent.mkdir()
    p.write_text(json.dumps(DUMP, ensure_ascii=False), encoding="utf-8")
    out = tmp_path / "records"
    prepare.main(["--input", str(p.parent), "--output", str(out), "--workers", "1"])
    texts = [r["text"] for r in shard_records(out)]
    assert "서울특별시(서울特別市)는 대한민국의 수도이다." in texts
    assert "부산은 항구 도시이다." in texts and not any("[[" in t or "'''" in t for t in texts)
    stats = json.loads((out / "stats.json").read_text())
    assert stats["reader_skipped"] == {"redirect": 1, "other_namespace": 1, "empty_document": 1}


def test_the_dump_on_one_line_of_more_than_a_line_may_hold_is_found(tmp_path):
    """The real dump is one minified line of several GB: `--format auto` decides from its
    first 64 KiB (it used to read the line, skip it as too long and call the file text)."""
    from corpus.textio import DEFAULT_MAX_LINE_BYTES

    filler = {"namespace": "0", "title": "채움", "text": "'''채움''' 문단. " * 600}
    arts = DUMP + [{**filler, "title": f"채움{i}", "contributors": []} for i in range(700)]
    p = tmp_path / "namuwiki" / "namuwiki_20210301.json"
    p.parent.mkdir()
    p.write_text(json.dumps(arts, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
    assert p.stat().st_size > DEFAULT_MAX_LINE_BYTES and b"\n" not in p.read_bytes()
    assert detect_format(p) == "namuwiki"
    first = next(iter(iter_records(p)))
    assert first.id.endswith(":서울특별시") and first.text.split("\n") == SEOUL_TEXT
    q = tmp_path / "plain" / "rows.json"  # a long one-line array of another kind stays json
    q.parent.mkdir()
    q.write_text(json.dumps([{"text": "가" * 70_000}], ensure_ascii=False), encoding="utf-8")
    assert detect_format(q) == "json"


def test_null_text_and_a_redirect_without_a_space_are_skipped_and_counted(tmp_path):
    dump = [
        {"namespace": "0", "title": "빈 문서", "text": None, "contributors": []},
        {"namespace": "0", "title": "서울", "text": "#redirect서울특별시", "contributors": []},
        {"namespace": "0", "title": "부산", "text": "#넘겨주기부산광역시", "contributors": []},
        {"namespace": "0", "title": "대구", "text": "'''대구'''는 도시이다.", "contributors": []},
    ]
    p = tmp_path / "n" / "dump.json"
    p.parent.mkdir()
    p.write_text(json.dumps(dump, ensure_ascii=False), encoding="utf-8")
    opts = ReadOptions()
    assert [r.text for r in iter_records(p, options=opts)] == ["대구는 도시이다."]
    assert opts.skipped == {"empty_document": 1, "redirect": 2}
    p.write_text(json.dumps([{"namespace": "0", "title": "x"}]), encoding="utf-8")
    with pytest.raises(InputError, match="element 1 has no string 'text'"):
        list(iter_records(p, fmt="namuwiki"))


def test_the_hugging_face_parquet_copy_reads_as_the_dump(tmp_path):
    """heegyu/namuwiki and its like: the dump's columns in Parquet. Read as the dump (articles
    only, markup made prose, contributors never read), found by its columns or by
    `--format namuwiki`; `--text-field text` still reads the rows as they are."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [{**a, "namespace": str(a["namespace"])} for a in DUMP]
    p = tmp_path / "namuwiki" / "namuwiki_20210301.parquet"
    p.parent.mkdir()
    pq.write_table(pa.Table.from_pylist(rows), p)
    dump = p.with_suffix(".json")
    dump.write_text(json.dumps(DUMP, ensure_ascii=False), encoding="utf-8")
    want = [(r.text, r.extra) for r in iter_records(dump)]
    for fmt in ("auto", "namuwiki"):
        opts = ReadOptions()
        got = list(iter_records(p, fmt=fmt, options=opts))
        assert [(r.text, r.extra) for r in got] == want and len(got) == 2
        assert got[0].id == "namuwiki/namuwiki_20210301.parquet:서울특별시"
        assert "user1" not in json.dumps([r.to_dict() for r in got], ensure_ascii=False)
        assert opts.skipped == {"redirect": 1, "other_namespace": 1, "empty_document": 1}
    arrow = p.with_suffix(".arrow")  # the datasets cache's copy: the same articles
    table = pa.Table.from_pylist(rows)
    with pa.OSFile(str(arrow), "wb") as f, pa.ipc.new_stream(f, table.schema) as w:
        w.write_table(table)
    assert [(r.text, r.extra) for r in iter_records(arrow)] == want
    rows_as_they_are = list(iter_records(p, text_field="text"))
    assert len(rows_as_they_are) == 5 and rows_as_they_are[1].text.startswith("#redirect")
    pq.write_table(pa.table({"title": ["가"], "text": ["나"]}), p)
    with pytest.raises(InputError, match="not a NamuWiki table \\(no 'namespace'\\)"):
        list(iter_records(p, fmt="namuwiki"))


def _dump(n: int) -> list[dict]:
    """Articles of varied sizes and kinds: other namespaces, redirects, one without a title."""
    arts = []
    for i in range(n):
        text = f"'''문서{i}'''는 [[예시|보기]]이다. 둘째 문장이다. " * (1 + i % 6)
        text = "#redirect 문서1" if i % 13 == 0 else text
        ns = "1" if i % 11 == 0 else "0"
        arts.append({"namespace": ns, "title": f"문서{i}", "text": text, "contributors": ["u"]})
    del arts[5]["title"]  # its id is its position in the array, split or not
    # an article quoting the boundary bytes: inside a JSON string its quotes are escaped
    arts[9]["text"] += ' 예: },{"namespace":"0","title":"가짜"} 그리고 , { "namespace" : 끝.'
    return arts


@pytest.mark.parametrize("layout", ["minified", "pretty"])
def test_a_large_dump_is_cut_between_articles_with_one_shard_output(tmp_path, layout):
    """The dump is one line of GB: `--shard-bytes` cuts it between its articles (found without
    parsing), and the records and stats of the ranges equal those of the whole file."""
    from corpus.array_shards import element_ranges

    arts = _dump(400)
    p = tmp_path / "in" / "namuwiki.json"
    p.parent.mkdir()
    kw = {"separators": (",", ":")} if layout == "minified" else {"indent": 1}
    p.write_text(json.dumps(arts, ensure_ascii=False, **kw), encoding="utf-8")
    size = p.stat().st_size
    ranges = element_ranges(str(p), size, size // 6)
    assert len(ranges) >= 6 and [first for _, first in ranges][0] == 1
    runs = {}
    for name, extra in (("whole", []), ("split", ["--shard-bytes", str(size // 6)])):
        out = tmp_path / name
        prepare.main(["--input", str(p), "--output", str(out), "--workers", "1", *extra])
        runs[name] = (shard_records(out), json.loads((out / "stats.json").read_text()))
    manifest = json.loads((tmp_path / "split" / "manifest.json").read_text())
    assert manifest["shards"] == len(ranges)
    assert [sh["first_element"] for sh in manifest["shard_plan"]] == [f for _, f in ranges]
    assert runs["split"] == runs["whole"]
    assert any(r["id"].startswith("in/namuwiki.json:6-") for r in runs["whole"][0])


def test_a_range_names_its_bad_article_by_its_number_in_the_whole_file(tmp_path):
    from corpus.readers import ReadOptions
    from corpus.sharding import plan_shards

    arts = _dump(60)
    arts[47]["text"] = 47  # not text
    p = tmp_path / "namuwiki.json"
    p.write_text(json.dumps(arts, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
    shards = plan_shards([str(p)], shard_bytes=p.stat().st_size // 5)
    assert len(shards) >= 5
    errors = []
    for sh in shards:
        opts = ReadOptions()
        opts.byte_range, opts.physical_path, opts.first_line = sh.read_options()
        try:
            list(iter_records(p, fmt="namuwiki", options=opts))
        except InputError as e:
            errors.append(str(e))
    assert errors == [f"{p}: missing field: element 48 has no string 'text'"]
