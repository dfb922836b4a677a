"""Issue #24, fifth blind set (tests/fixtures/pii/blind5.jsonl): the shapes its missed
positives showed, with invented values, each next to the look-alikes it must leave alone.

HTML character references and stand-in characters read through `corpus.pii.markup`; an
emoji or brackets between a mobile number's groups, a foreign number's spaced dash and
its "00" apart, a plate with a dash (`corpus.pii.phones`, `corpus.pii.detectors`); a
two-digit-year birth said in speech, labelled "dob" or on the line before, or of a
relative "태어난 우리 …" (`corpus.pii.birthdates`).
"""

from __future__ import annotations

import pytest

from corpus.pii.generate import Pseudonymizer
from corpus.pii.markup import decode
from corpus.pii.scan import Scanner

PZ = Pseudonymizer(seed=11)


def _replaced(text: str, value: str, kind: str) -> str:
    """The pseudonymised text, asserting `value` was replaced whole as `kind`."""
    new, spans = PZ.apply(text)
    s = text.index(value)
    e = s + len(value)
    assert any(sp.start <= s and e <= sp.end and sp.type == kind for sp in spans), (spans, text)
    assert value not in new
    return new


def _unchanged(text: str) -> None:
    assert PZ.apply(text)[0] == text


# --- HTML character references ---------------------------------------------------------------

_NBSP_PHONE = "010&nbsp;-&nbsp;4821&nbsp;-&nbsp;9035"
_NBSP_ADDRESS = "성산동 42-7&nbsp;하늘빌라&nbsp;203호"


@pytest.mark.parametrize(
    "text,value,kind",
    [
        (f"전화&nbsp;:&nbsp;{_NBSP_PHONE}<br>", _NBSP_PHONE, "mobile"),
        ("메일: minsu_p&#64;naver.com<br>", "minsu_p&#64;naver.com", "email"),
        ("메일: minsu_p&#x40;gmail.com", "minsu_p&#x40;gmail.com", "email"),
        ("차량&nbsp;47마&nbsp;3318 출차", "47마&nbsp;3318", "plate"),
        (f"주소: {_NBSP_ADDRESS}<br>", _NBSP_ADDRESS, "address"),
    ],
)  # fmt: skip
def test_references_inside_values_are_read_and_written_back(text, value, kind):
    new = _replaced(text, value, kind)
    assert new.count("&") == text.count("&")  # the references stay references
    assert PZ.apply(new)[0] != new  # a second pass reads the pseudonym the same way


@pytest.mark.parametrize(
    "text",
    [
        "R&amp;D 예산은 3&nbsp;% 늘었다&lt;표 2&gt;",
        "연락처&nbsp;:&nbsp;010-0000-0000 (예시)",
        "A&amp;B 상사, 제&nbsp;3&nbsp;호 안건",
    ],
)
def test_references_without_values_stay(text):
    _unchanged(text)


def test_decode_maps_offsets_onto_the_original():
    text = "a&nbsp;b&#64;c"
    d = decode(text)
    assert d.text == "a b@c"
    assert d.span(1, 4) == (1, 13)
    assert d.encode(1, 4, " x@") == "&nbsp;x&#64;"
    assert decode("plain text") is None


# --- stand-ins for "@" and "." ---------------------------------------------------------------


@pytest.mark.parametrize(
    "text,value,kind",
    [
        ("원본은 ji.han(a)naver.com 으로 주세요", "ji.han(a)naver.com", "email"),
        ("메일 sora.kim@daum,net 으로 (쉼표 말고 점)", "sora.kim@daum,net", "email"),
        ("여기로 오세요 blog(.)naver(.)com/dal_bam22", "blog(.)naver(.)com/dal_bam22", "url"),
    ],
)  # fmt: skip
def test_stand_ins_for_at_and_dot(text, value, kind):
    new = _replaced(text, value, kind)
    for mark in ("(a)", "(.)", ","):
        assert new.count(mark) == text.count(mark)


@pytest.mark.parametrize(
    "text",
    [
        "보기 (a) 와 (b) 중 하나를 고르시오.",
        "state-at-large 제도는 미국 선거의 한 방식이다.",
        "함수 f(.)는 정의역 전체에서 연속이다.",
        "가격은 3,000원, 수량 12,500개",
        "@everyone 공지 확인 부탁드려요, 내일 회의",
    ],
)
def test_stand_in_look_alikes_stay(text):
    _unchanged(text)


# --- phones ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,value,kind",
    [
        ("고양이 찾아요 010🐱5527🐱1094 연락 주세요", "010🐱5527🐱1094", "mobile"),
        ("문의 010⭐6613⭐2087 로", "010⭐6613⭐2087", "mobile"),
        ("문의 010❤️3390❤️1452 로", "010❤️3390❤️1452", "mobile"),
        ("차량 문의 010(7264)3318 권사님께", "010(7264)3318", "mobile"),
        ("시애틀 친구 +1 (206) 555 - 0187 로 연락", "+1 (206) 555 - 0187", "phone"),
        ("오사카 이모댁 00 81 6 4412 7730 로 걸면 돼", "00 81 6 4412 7730", "phone"),
    ],
)  # fmt: skip
def test_phone_separators(text, value, kind):
    _replaced(text, value, kind)


@pytest.mark.parametrize(
    "text",
    [
        "예시 번호 010(0000)0000 은 쓰지 마세요",
        "점수는 3🔥5🔥7 순이었다",
        "노선 1🚌2 환승, 버스 7016번",
        "시리얼 00 81 3 5521 8874 제품 (품번)",
    ],
)
def test_phone_look_alikes_stay(text):
    _unchanged(text)


# --- plates ---------------------------------------------------------------------------------


def test_plate_with_a_dash():
    _replaced("58머-4471 차량 목격하신 분", "58머-4471", "plate")


@pytest.mark.parametrize(
    "text", ["품번 KB-58머-4471 단종", "코드 58머-4471-2 확인", "부품 A/58머-4471 교체"]
)
def test_dashed_plate_inside_a_code_stays(text):
    _unchanged(text)


# --- two-digit-year births ------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,value",
    [
        ("나 02년 3월 27일생임 ㅋㅋ", "02년 3월 27일"),
        ("후배 보니까 98년 11월 4일생이더라", "98년 11월 4일"),
        ("우리 둘째가 01년 6월 30일생이유.", "01년 6월 30일"),
        ("dob: 93년 10월 2일 (만 나이)", "93년 10월 2일"),
        ("생년월일:\n88년 4월 17일\n주소: 기재 안 함", "88년 4월 17일"),
        ("🎂86년 9월 21일🎂 태어난 우리 누나 생일 축하해", "86년 9월 21일"),
    ],
)  # fmt: skip
def test_spoken_two_digit_births(text, value):
    _replaced(text, value, "birth_date")


@pytest.mark.parametrize(
    "text",
    [
        "90년대생 직장인 트렌드 분석",
        "이유: 93년 10월 2일 회의 결과",
        "생년월일:\n\n신청 마감 25년 4월 17일",
        "오늘은 우리 강아지가 태어난 날, 25년 3월 2일 기념",
        "🐶23년 5월 8일🐶 태어난 우리 강아지 첫 생일",
    ],
)
def test_two_digit_dates_that_are_not_births_stay(text):
    _unchanged(text)


def test_scanners_agree_on_the_new_shapes():
    fast, plain = Scanner(), Scanner(fast=False)
    for text in ("010🐱5527🐱1094", "58머-4471 차량", "010(7264)3318 로"):
        assert fast.find(text) == plain.find(text)


# --- address tails (the lead, after P5) ---------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # a hall as the building, and a 호실 unit
        ("빈소: 창원시 용호동 71-4 한빛장례식장 3호실", "용호동 71-4 한빛장례식장 3호실"),
        ("예식 장소: 둔산동 1180 그랜드컨벤션 5층", "둔산동 1180 그랜드컨벤션 5층"),
        # a branch with spaces around its dash, then a unit or a spaced 동/호
        ("주소 알려드려요 망원동 204 - 6, 201호 입니다", "망원동 204 - 6, 201호"),
        ("배송 잠실동 38 -2 한강하이츠 102 동 803 호로", "잠실동 38 -2 한강하이츠 102 동 803 호"),
        # a phase number in a complex's name: "… 2차 1203호"
        ("사무실: 구로동 182-13 대륭타워 2차 1104호 / 평일만", "구로동 182-13 대륭타워 2차 1104호"),
        # a unit in English, a bracketed floor, a unit after a floor with a spoken ending
        ("Address: 서교동 331-9 Unit 4C, Mapo-gu", "서교동 331-9 Unit 4C"),
        ("새로 연 공방 합정동 47-2(3층) 이에요", "합정동 47-2(3층)"),
        ("모임 장소 대흥동 15-8 2층 201호임", "대흥동 15-8 2층 201호"),
    ],
)
def test_address_tails_of_the_fifth_set(text, value):
    _replaced(text, value, "address")


@pytest.mark.parametrize(
    "text",
    [
        "결승골로 1 - 0 승리를 거뒀다",  # a score after 로, with a spaced dash
        "지하철 2호선 3호차에서 내리세요",  # a line and a car, not a unit
        "공주 송산리 6호분 발굴 보고서",  # a tomb
        "회의는 3층 대회의실에서 합니다",  # a floor with no address
    ],
)
def test_tail_look_alikes_stay(text):
    _unchanged(text)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("봉천동88-123 살 때 얘기임", "봉천동88-123"),
        ("신림동 1422-105살던 집 기억나", "신림동 1422-105"),
    ],
)
def test_a_lot_before_the_verb_live_is_no_age(text, value):
    _replaced(text, value, "address")


@pytest.mark.parametrize("text", ["아이들은 3-5살 정도예요", "2-3 살 차이", "10-15살 대상"])
def test_an_age_range_stays(text):
    _unchanged(text)
