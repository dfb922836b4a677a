"""The NamuWiki dump (the paper's NAMUWIKI corpus): namumark made prose construct by
construct, and the dump read an article at a time (namespaces, redirects, contributors)."""

from __future__ import annotations

import gzip
import json

import pytest

from corpus import prepare
from corpus.namumark import is_redirect, namumark_text
from corpus.readers import ReadOptions, detect_format, iter_records
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
