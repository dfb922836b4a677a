"""Issue #24, sixth blind set: the address shapes its missed positives showed, with invented
values, each next to the look-alikes it must leave alone (`corpus.pii.old_addresses`).

The 통 and 반 of an old address before its lot, 番地 and units in Hanja, a lot number split
by a stray space or with l for 1, a building named last, a basement "B1", and an address
right after a data file's field separator.
"""

from __future__ import annotations

import pytest

from corpus.pii.generate import Pseudonymizer
from tests.pii_checks import replaced_values

PZ = Pseudonymizer(seed=13)


def _spans(text: str) -> list[str]:
    """The address values replaced in `text`."""
    return [v for v, kind in replaced_values(PZ, text) if kind == "address"]


def _replaced_whole(text: str, value: str) -> str:
    """The pseudonymised text, asserting `value` was replaced whole as an address."""
    new, spans = PZ.apply(text)
    s = text.index(value)
    e = s + len(value)
    assert any(sp.start <= s and e <= sp.end and sp.type == "address" for sp in spans), (
        spans,
        text,
    )
    assert value not in new
    return new


# --- 통 and 반 ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,value",
    [
        ("우리 집은 전북 익산시 남중동 7통 4반 512번지야.", "전북 익산시 남중동 7통 4반 512번지"),
        (
            "외가는 충북 제천시 의림동 14통3반 88-6번지 (감나무 집)",
            "충북 제천시 의림동 14통3반 88-6번지",
        ),
    ],
)
def test_tong_and_ban_before_the_lot_are_part_of_the_address(text, value):
    assert value in _spans(text)


def test_a_copy_of_a_tong_ban_address_takes_its_lot():
    text = "주소: 경북 영주시 휴천동 3통 1반 276번지. 휴천동 276 으로 보내 주세요."
    new = _replaced_whole(text, "경북 영주시 휴천동 3통 1반 276번지")
    assert "휴천동 276" not in new and "276" not in new


def test_tong_ban_with_no_lot_after_it_is_not_widened():
    text = "남중동 5통 반장님이 오셨다."
    assert all("반장" not in v for v in _spans(text))


# --- 番地 and Hanja units ------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,value",
    [
        ("原籍: 全北 群山市 월명동 45番地", "全北 群山市 월명동 45番地"),
        ("本籍은 경남 진주시 상대동 77番地 이다.", "경남 진주시 상대동 77番地"),
        ("住所: 서울特別市 성북구 돈암동 61番地", "서울特別市 성북구 돈암동 61番地"),
        ("京畿道 利川市 창전동 5番地", "京畿道 利川市 창전동 5番地"),
        ("그 집은 봉덕동 316番地 에 있었다.", "봉덕동 316番地"),
    ],
)
def test_bunji_in_hanja_and_hanja_units(text, value):
    assert value in _spans(text)


def test_hanja_words_that_are_not_units_do_not_join():
    text = "先親 월명동 45番地"
    assert _spans(text) == ["월명동 45番地"]


# --- a lot number as a scan reads it ----------------------------------------------------------


@pytest.mark.parametrize(
    "text,value",
    [
        ("주 소 : 광주 북구 용봉동 2 8-15", "광주 북구 용봉동 2 8-15"),
        ("소재지: 전남 목포시 용해동 3 6-2 2층", "전남 목포시 용해동 3 6-2 2층"),
        ("부산 중구 광복동2가 l2-4 한결빌딩 3층", "부산 중구 광복동2가 l2-4 한결빌딩 3층"),
    ],
)
def test_scanned_lot_numbers(text, value):
    assert value in _spans(text)


@pytest.mark.parametrize(
    "text,value",
    [
        ("주소: 충북 충주시 교현동 1I-4", "충북 충주시 교현동 1I-4"),
        ("주소: 서울 마포구 서교동 123-l5 2층", "서울 마포구 서교동 123-l5 2층"),
    ],
)
def test_l_for_one_inside_a_lot_number(text, value):
    assert value in _spans(text)


def test_a_letter_after_a_lot_that_is_a_word_is_not_read_as_one():
    assert _spans("서교동 12lounge") == []
    assert _spans("주소: 서울 마포구 서교동 12 lounge") == ["서울 마포구 서교동 12"]


def test_a_count_after_tong_ban_is_not_a_lot():
    assert all("12명" not in v for v in _spans("경북 영주시 휴천동 3통 1반 12명"))


def test_a_split_lot_and_its_copy_are_one_address():
    text = "주소: 광주 북구 용봉동 2 8-15\n위 용봉동 28-15 에 거주함"
    new = _replaced_whole(text, "광주 북구 용봉동 2 8-15")
    assert "28-15" not in new and "용봉동" not in new


def test_a_split_lot_needs_its_branch_and_few_digits():
    # a number after the lot with no dash, or more than four digits joined, stays apart
    assert "남구 대명동 12 35" not in _spans("대구 남구 대명동 12 35 번 버스")
    assert "서울 강서구 화곡동 123 4-5" not in _spans("서울 강서구 화곡동 123 4-5")


def test_a_neighbourhood_with_ga_alone_is_not_an_address():
    assert _spans("광복동2가 lounge 에서 만나") == []
    assert _spans("종로5가 역 앞") == []


# --- a building named last, a basement ----------------------------------------------------


@pytest.mark.parametrize(
    "text,value",
    [
        ("성북구 정릉동 88-21 한솔빌라 앞에 쓰레기가 쌓였어요.", "성북구 정릉동 88-21 한솔빌라"),
        ("강서구 화곡동 1012-7 청운맨션에서 만나요", "강서구 화곡동 1012-7 청운맨션"),
        ("택배는 연남동 239-4 B1 으로 주세요", "연남동 239-4 B1"),
    ],
)
def test_building_named_last_and_basement(text, value):
    assert value in _spans(text)


@pytest.mark.parametrize(
    "text,value",
    [
        ("성북구 정릉동 88-21 빌라촌 재개발", "성북구 정릉동 88-21"),
        ("성북구 정릉동 88-21 주택가 골목", "성북구 정릉동 88-21"),
        ("연남동 239-4 B12 구역", "연남동 239-4"),
    ],
)
def test_what_is_not_a_building_or_a_basement_is_left(text, value):
    assert _spans(text) == [value]


# --- after a data file's field separator -------------------------------------------------


@pytest.mark.parametrize(
    "text,value",
    [
        (
            "번호;주소;인원\n3;대전 서구 둔산동 1420-5 한밭빌 201호;2",
            "대전 서구 둔산동 1420-5 한밭빌 201호",
        ),
        ('{"id":7,"addr":"경기 수원시 팔달구 인계동 1122-3"}', "경기 수원시 팔달구 인계동 1122-3"),
        ("name|addr\n홍길동|광주 남구 봉선동 57-8", "광주 남구 봉선동 57-8"),
    ],
)
def test_an_address_after_a_field_separator_keeps_its_first_unit(text, value):
    assert value in _spans(text)
