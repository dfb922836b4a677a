"""The pseudonymiser asks `corpus.pii.markup.decode` only about texts that may hold a
character reference or a stand-in (`may_hold_references`): "&", or a text the scan's
first pass did not read through. These tests check that a text it skips is one `decode`
finds nothing in, and that the first pass gives up on each stand-in's literal wherever it
stands, inside a claimed span too.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corpus.pii import markup
from corpus.pii.generate import Pseudonymizer
from corpus.pii.markup import decode, may_hold_references
from corpus.pii.scan import Scanner

FAST = Scanner()
FAST.find("warm-up")

WITH_STAND_IN = [
    "메일 sol.lee(a)daum.net 으로",  # "(a)" for "@"
    "블로그 blog(.)naver(.)com/someid",  # "(.)" for a host's dot
    "메일 id@naver,com 으로",  # a comma for the dot: its "@" is a hint already
    "조항 (a) 와 (.) 표시",  # the literals alone: given up on, nothing decoded either
    "https://example.com/x(a)y 참고",  # inside the span a URL claims: the claim check sees it
    "연락 010-1234-5678 후 http://a.com/(.)",
    "블로그 blog . naver . com / someid 검색",  # a host with spaced dots: its ". com /" tail
    "인스타 insta 점 com/some.id 로",  # 점 for the dot
    "카페 cafe . daum . net / club 가입",
]


@pytest.mark.parametrize("text", WITH_STAND_IN)
def test_the_first_pass_gives_up_on_every_stand_in(text):
    assert FAST.find_checked(text)[2] is False
    assert may_hold_references(text, FAST.find_checked(text)[2])


def test_the_hint_is_markups_own_pattern():
    """One source: the scan's hint is the pattern `_readings` searches for."""
    assert markup._BRACKETED.pattern == markup.STAND_IN_HINT
    for literal, _, _ in markup._STAND_INS:
        # each literal decode looks for is "@" or a bracketed one: both hints of the scan
        assert literal == "@" or markup._BRACKETED.fullmatch(literal), literal


def test_a_reference_is_read_whatever_the_first_pass_says():
    text = "전화 010&nbsp;-&nbsp;2740&nbsp;-&nbsp;6815 로"
    assert FAST.find_checked(text)[2] is True  # no hint: read through
    assert may_hold_references(text, True)  # but "&" is there
    new, spans = Pseudonymizer(seed=7).apply(text)
    assert "2740" not in new and "&nbsp;" in new and [s.type for s in spans] == ["mobile"]


@pytest.mark.parametrize(
    "text,gone",
    [("블로그 blog . naver . com / haneul_mom 치면 나와요", "haneul_mom"),
     ("주문은 instagram 점 com/bakery.kim 으로", "bakery.kim"),
     ("카페 cafe . daum . net / mintclub 에 가입", "mintclub")],
)  # fmt: skip
def test_a_host_spelled_with_spaced_dots_or_jeom_is_replaced_in_its_look(text, gone):
    new, spans = Pseudonymizer(seed=7).apply(text)
    assert [s.type for s in spans] == ["url"] and gone not in new
    assert (" . " in new) == (" . " in text) and ("점" in new) == ("점" in text)


@pytest.mark.parametrize(
    "text",
    ["I like it. com/x 는 오타", "가격 . com / 2 개", "점 com/ 은 도메인 끝", "회의록 . net 파일"],
)
def test_a_dot_at_a_sentence_end_or_no_host_is_no_spaced_host(text):
    assert Pseudonymizer(seed=7).apply(text)[0] == text


PIECES = st.sampled_from(
    [" . ", "점", " / ", "blog", "instagram", "(a)", "(.)", "(", ")", "a", ".", "@", ",", "com",
     "net", "naver", "daum", "id", "sol",
     "&", "&nbsp;", "&#64;", "&amp;", ";", "#", " ", "메일", "블로그", "/", "010-1234-5678",
     "http://", "www.", "blog", "kr", "０", "＠", "1990년 3월 1일생", "\n"]
)  # fmt: skip
TEXTS = st.lists(PIECES, max_size=24).map("".join)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TEXTS)
def test_a_skipped_text_has_nothing_to_decode(text):
    folded, spans, read_through = FAST.find_checked(text)
    assert (folded, spans) == FAST.find_folded(text)
    if not may_hold_references(text, read_through):
        assert decode(text) is None, text


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TEXTS)
def test_the_pseudonyms_are_those_of_always_decoding(text):
    """The shortcut changes no output: the same edits as asking `decode` about every text."""
    pz, always = Pseudonymizer(seed=3), Pseudonymizer(seed=3)
    decoded = decode(text)
    if decoded is not None:
        want = markup.edits_on_original(decoded, always._edits_decoded(decoded.text)[0])
    else:
        want = always._edits_decoded(text)[0]
    assert pz.edits(text)[0] == want, text
