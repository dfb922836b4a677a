"""The first pass of the fast scan (`Scanner._find_unhinted`) gives exactly the spans of the
scan that picks its pattern with the per-text checks (`Scanner._find_hinted`).

The first pass looks for the hints (`corpus.pii.scan._HINTS`: "@", "공일", a written-out
"@", a bare host's ".kr"/".com/" …) as candidates of its own pattern and gives up on the
first it meets, or on one inside a span it claims. These tests check that it gives up on
every hint, wherever it stands (before or after the candidate it enables, inside a
claimed span), that it never gives up on a text without one, and that `find` equals
`_find_hinted` on texts made of the pieces both care about.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corpus.pii import scan
from corpus.pii.detectors import BARE_HOST_HINT
from corpus.pii.scan import Scanner, written_forms
from corpus.pii.width import needs_fold

FAST = Scanner()
FAST.find("warm-up")
SUBSETS = [None, ["email", "url"], ["mobile", "phone", "address"], ["rrn"]]
SCANNERS = [FAST] + [Scanner(types) for types in SUBSETS[1:]]


def _hinted(text: str) -> bool:
    """What the per-text checks say: the text needs more than the plain pattern."""
    return written_forms(text) or BARE_HOST_HINT.search(text) is not None


def _check(text: str, scanner: Scanner = FAST) -> list | None:
    """The first pass's answer (None: it gave up), after checking it against `_find_hinted`."""
    scanner.find("warm-up")
    first = scanner._find_unhinted(text)
    first = first if isinstance(first, list) else None
    assert scanner.find_folded(text) == scanner._find_hinted(text), text
    if first is not None:
        assert not _hinted(text), text  # it never misses a hint
        assert first == scanner._find_hinted(text)[1], text
    elif scan._HINT_RX.search(text) is None:
        assert needs_fold(text), text  # it gives up only on a hint or a full-width form
    return first


# each holds one hint; the value it enables stands before it, after it, or around it
WITH_HINT = [
    "메일 john.smith at naver.com 으로",  # the candidate (the local part) before its "at"
    "메일 john(at)daum.net 입니다",
    "메일 john [ at ] naver [ dot ] com",
    "메일 JOHN AT NAVER.COM",
    "메일 john @ gmail.com 으로",
    "메일 abc@naver.com 으로",  # "@" inside the span claimed: the claim check sees it
    "전화 공일공 일이삼사 오육칠팔 로",
    "누리집 www.seoul.go.kr 참고",  # ".kr" inside a URL claimed from "www."
    "누리집 minwon.go.kr 참고",  # the candidate (the dot before "go.kr") before ".kr"
    "블로그 blog.naver.com/someid 에",
    "블로그 a.www.naver.com/someid 에",  # a claim from "www." would hide ".com/"
    "블로그 someid.tistory.com 에",
    "사이트 https://example.com/path 와 010-1234-5678",
    "공일공 일이삼 하나",  # a hint alone: given up on, nothing found either way
    "영이 오칠삼 하나",  # the hint of a landline read out, alone
    "at the end (at) x",
    "메일 hong123 골뱅이 naver.com 으로",  # the Korean words for "@" (issue #24's blind set)
    "메일 hong_mom(골뱅이)daum.net",
    "메일 minji.o 앳 gmail.com 이요",
    "메일 minji(앳)naver.com",
    "메일 minho.k 에이티 naver 닷컴",  # "at" read out: its hint is at the "티"
    "메일 minho(에이티)daum.net",
]
WITHOUT_HINT = [
    "연락처 010-1234-5678, 주소 서울특별시 강남구 테헤란로 123",
    "1990년 3월 1일생, 주민등록번호 900301-1234567",
    "data Nation that cat attack",  # "at" inside words is no hint
    "공원 공업 성공 공이 공삼",
    "골목 골프 골뱅 앳킨스 앳된 얼굴",  # "골"/"앳" without the whole hint
    "에이티즈 파티 커뮤니티 에이티",  # "티" without a spaced or bracketed 에이티
    "v1.2.3 버전, 192.168.0.1, abc.def",
    "",
]


@pytest.mark.parametrize("text", WITH_HINT)
def test_gives_up_on_every_hint(text):
    assert _hinted(text)
    assert _check(text) is None


@pytest.mark.parametrize("text", WITHOUT_HINT)
def test_does_not_give_up_without_a_hint(text):
    assert _check(text) is not None


def test_full_width_forms_go_to_the_folding_scan():
    text = "전화 ０１０-１２３４-５６７８"
    assert _check(text) is None
    assert [s.type for s in FAST.find(text)] == ["mobile"]


def test_a_hint_inside_a_claim_is_needed(monkeypatch):
    """Without the check on each claim, the first pass would miss the hint ".com/" inside
    the URL it claims from "www." and give another span than the full scan (which
    claims the bare host from its first dot)."""
    text = "블로그 a.www.naver.com/someid 에"
    whole = FAST.find(text)
    monkeypatch.setattr(scan, "_HINT_RX", re.compile("(?!)"))
    first = FAST._find_unhinted(text)
    assert isinstance(first, list) and first != whole


# a hint far into a text, after claims the per-text scan keeps; the value it enables at the
# farthest it can start before it (`_rollback`)
LATE_HINTS = [
    "전화 010-1234-5678, 주민 900301-1234567, 메일 john at naver.com",
    "전화 010-1234-5678 메일 " + "a" * 64 + " ( at ) naver.com",  # a local part of 64
    "전화 010-1234-5678 메일 " + "b" * 63 + " @ daum.net",
    "전화 010-1234-5678 누리집 " + ".".join(["ab"] * 40) + ".naver.com/someid 에",
    "전화 010-1234-5678 " + "x1-" * 18 + "minwon.go.kr",  # a label of 60
    "전화 010-1234-5678, 02-345-6789 그리고 공일공 일이삼사 오육칠팔",
]


@pytest.mark.parametrize("text", LATE_HINTS)
def test_a_late_hint_resumes_with_the_same_spans(text):
    assert _check(text) is None
    assert len(FAST.find(text)) >= 2


def test_the_rollback_reaches_back_far_enough(monkeypatch):
    """Without the e-mail's reach, a written-out e-mail before its late "at" is missed.

    (The host-character bound is kept as the proof needs it, though `_accept_url`
    reads a bare host back to its first label from any of its dots.)"""
    monkeypatch.setattr(scan, "_EMAIL_REACH", 0)
    assert any(FAST.find(t) != FAST._find_hinted(t)[1] for t in LATE_HINTS)


def test_hint_width_covers_every_hint():
    for hint in ("tistory", "at )", "AT ]", "공일", "com/", "티 "):
        assert len(hint) <= scan._HINT_WIDTH


def test_the_hinted_pattern_needs_the_plain_one():
    with pytest.raises(ValueError):
        scan._combined(scan.TYPES, True, False, hints=True)


# the forms written_forms reads are among them: one it reads and `_HINTS` lacks fails here
PIECES = st.sampled_from(
    ["@", "공일", "공일공", "공", "일이삼사", " at ", "(at)", "[ at ]", " AT ", "at", "cat",
     ".", ".kr", "go.kr", ".com/", ".net", "blog.naver.com/", ".tistory", "tistory.com",
     "www.", "http://", "naver", "id", "a", "M", " ", "-", "(", ")", "[", "]", "０", "＠",
     "010", "1234", "5678", "02", "서울", "강남구", "테헤란로", "동", "로", "번지", "년",
     "월", "일생", "메일", "전화", "여권", "주소", ", ", "\n", "골뱅이", "골", "뱅", "앳",
     "앳킨스", "ㅡ", "(+", "00", "음력", "영", "영일영", "공이", "영이", "공1공", "이사",
     "칠공", "엣", "엣지", "[@]", "O1O", "o", "~", "/", "ㆍ", "에이티", "티", "에이티즈"]
)  # fmt: skip
DIGITS = st.text(alphabet="0123456789", min_size=1, max_size=8)
TEXTS = st.lists(st.one_of(PIECES, PIECES, DIGITS), max_size=30).map("".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TEXTS, st.sampled_from(range(len(SCANNERS))))
def test_same_spans_on_random_texts(text, which):
    _check(text, SCANNERS[which])
