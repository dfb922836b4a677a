"""Issue #24, eighth blind set: address shapes its first run missed, with invented values.

Each shape goes through the fast and the reference scan and the pseudonymiser (the value
replaced whole); each guard is tested next to the positives it could swallow.
"""

from __future__ import annotations

import re

import pytest

from corpus.pii.generate import Pseudonymizer
from tests.pii_checks import found_alike

POSITIVES = [
    # a unit written building-dash-unit after the complex's name
    ("택배는 중계동 508 주공 203-1107 경비실로 부탁해요", "중계동 508 주공 203-1107"),
    ("냉장고 나눔 화정동 975 달빛마을 803-1204 으로 오세요", "화정동 975 달빛마을 803-1204"),
    # a building with its floor in brackets after the lot
    ("거소: 신정동 331-12 (한울빌라 2층)\n직업: 회사원", "신정동 331-12 (한울빌라 2층)"),
    # a floor and unit after the bracketed neighbourhood of a road address
    ("보낼 곳 봉천로 21길 8 (봉천동) 3층 301호 입니다", "봉천로 21길 8 (봉천동) 3층 301호"),
    # a comma after a space, then the floor (spaced too)
    ("계약서엔 '연남동 239-4 ,2층 201호' 로 적혀 있어요", "연남동 239-4 ,2층 201호"),
    ("소재지 : 망원동 411 - 2 , 3 층\n용도 : 주택", "망원동 411 - 2 , 3 층"),
    # a block letter (가동 too) before a floor, and a basement floor with no number
    ("우리 집 광교로100번길 7-2 가동 지하층 이에요", "광교로100번길 7-2 가동 지하층"),
    ("주소: 반송동 88-1 나동 2층", "반송동 88-1 나동 2층"),
    # the back or side house of a lot
    ("저는 진부면 하진부리 211-5번지 뒷채에 세 살아요", "진부면 하진부리 211-5번지 뒷채"),
    ("주소는 수유동 17-3 별채 입니다", "수유동 17-3 별채"),
    # an old lot with 의 and a space before its branch
    ("현 주소는 대치동 512의 3 한솔빌라 가동 102호입니다", "대치동 512의 3 한솔빌라 가동 102호"),
    # a road's lettered branch (가길, 나길), spaced and not
    ("배달 주소: 서울 마포구 와우산로 29가길 8, 2F", "서울 마포구 와우산로 29가길 8, 2F"),
    ("오늘 와우산로29나길 8 으로 가요", "와우산로29나길 8"),
    # the 읍 or 면 before a 리 kept in the span
    ("ㅇㅇ 청원읍 오창리 215 로 보내줘", "청원읍 오창리 215"),
    # a one-syllable lot name spaced apart from its 동, after its district
    ("주  소 : 부산광역시 남구 용 동 77-3\n연락처: 별첨", "부산광역시 남구 용 동 77-3"),
]


@pytest.mark.parametrize("text, value", POSITIVES)
def test_the_address_is_found_whole_and_replaced(text, value):
    assert found_alike(text) == [(value, "address")]
    new, spans = Pseudonymizer(seed=5).apply(text)
    assert [text[s.start : s.end] for s in spans] == [value]
    assert value not in new


@pytest.mark.parametrize(
    "text, found",
    [
        # a dash after a complex that is a count, a range of years or a service number
        ("역삼동 622 래미안 3-4층 건물", [("역삼동 622 래미안", "address")]),
        ("정자동 178 래미안 2019-2020 시즌", [("정자동 178 래미안", "address")]),
        (
            "역삼동 622 주공 1588-1234 상담",
            [("역삼동 622 주공", "address"), ("1588-1234", "phone")],
        ),
        ("101동 주민 1,203명이 서명했다", []),
        ("역삼동 622 래미안 2024-0512 계약", [("역삼동 622 래미안", "address")]),  # a date
        ("정자동 12 래미안 3-1 승리", [("정자동 12 래미안", "address")]),  # a score
        (
            "역삼동 622 주공 010-1234-5678",
            [("역삼동 622 주공", "address"), ("010-1234-5678", "mobile")],
        ),
        ("민법 제750조의 2 제1항에 따라", []),  # a statute's article
        ("동래구 온천동 12의 2 정도", [("동래구 온천동 12", "address")]),  # a share
        # 의 with a space: a share, not a lot
        ("창신동 23의 5배 넓이", []),
        ("삼성동 23의 5 이상이 찬성", []),
        ("역삼동 12의 3분의 1", []),
        # 가동 is operation unless a floor follows it
        ("성수동 622 공장 가동 중단", []),
        # a word before 동, not a spaced name; and no district before a spaced name
        ("관악구 이 동 305 호실", []),
        ("강남구 옆 동 12층", []),
        ("서구 두 동 12개", []),
        ("그 옆 용 동 77-3 근처", []),
        # a lettered branch with no house number after it; a counter after a 리's number
        ("세종로 12나길 골목 맛집", []),
        ("봉양읍 구곡리 402명 참여", []),
        # a room word inside a longer word
        ("수유동 17-3 뒤채기 놀이", [("수유동 17-3", "address")]),
    ],
)
def test_the_guards_leave_what_is_not_part_of_an_address(text, found):
    assert found_alike(text) == found


@pytest.mark.parametrize(
    "text, value",
    [
        (
            "새 집은 대전 유성구 도룡동 별하마을 3단지 305동 1702호 입니다",
            "대전 유성구 도룡동 별하마을 3단지 305동 1702호",
        ),
        ("우리 이웃 은행동 우성아파트 2차 105동 702호 살아요", "은행동 우성아파트 2차 105동 702호"),
    ],
)
def test_a_unit_is_read_back_over_its_complex_and_neighbourhood(text, value):
    assert found_alike(text) == [(value, "address")]


@pytest.mark.parametrize(
    "text, unit",
    [
        ("어제 활동 한빛아파트 108동 1203호 앞", "108동 1203호"),  # 활동: a word, not a place
        ("우리 단지 푸른아파트 207동 1504호 앞", "207동 1504호"),  # no neighbourhood
    ],
)
def test_a_unit_is_not_widened_without_a_neighbourhood(text, unit):
    assert found_alike(text) == [(unit, "address")]


def _replaced(text: str) -> tuple[str, list[str]]:
    new, spans = Pseudonymizer(seed=5).apply(text)
    return new, [text[s.start : s.end] for s in spans]


def test_a_copy_of_the_building_and_block_is_replaced_in_the_pseudonyms_numbers():
    text = (
        "받는 곳: 광주광역시 북구 운암동 311 푸른아파트 207동 1504호 / "
        "부재 시 푸른아파트 207동 경비실에 맡겨 주세요"
    )
    new, got = _replaced(text)
    assert got == ["광주광역시 북구 운암동 311 푸른아파트 207동 1504호", "푸른아파트 207동"]
    assert "207동" not in new and "1504" not in new
    block = new.split("/ 부재 시 ")[1].split(" 경비실")[0]
    assert block.endswith("아파트 " + block.split("아파트 ")[1]) and block in new.split(" / ")[0]
    assert "푸른" not in new  # the building's own name is redrawn, in the copy too


def test_a_copy_of_the_building_and_unit_is_replaced():
    text = "저는 수원 영통구 망포동 52-3 늘봄빌 905호 사는데 늘봄빌 905호 앞 택배가 자꾸 사라져요"
    new, got = _replaced(text)
    assert got == ["수원 영통구 망포동 52-3 늘봄빌 905호", "늘봄빌 905호"]
    assert "905" not in new and "늘봄" not in new


def test_a_unit_written_with_a_dash_after_the_complex_is_a_copy():
    text = "새 주소 세종시 다정동 가온마을 4단지 402동 1203호 이야. 가온4단지 402-1203 으로 보내"
    new, got = _replaced(text)
    assert got == ["세종시 다정동 가온마을 4단지 402동 1203호", "가온4단지 402-1203"]
    head, short = new.split(" 이야. ")
    complex_no, block, unit = re.findall(r"\d+", short.split(" 으로")[0])
    name = short.split(complex_no)[0]
    assert f"{block}동 {unit}호" in head and "1203" not in new  # one home, one pseudonym
    assert f"{name}마을 {complex_no}단지" in head and "가온" not in new  # and one name


@pytest.mark.parametrize(
    "later",
    [
        "207동 주민 1,504명",  # a count after the block's number
        "402-1504 번 버스",  # other digits
    ],
)
def test_what_is_not_a_copy_of_the_building_part_stays(later):
    text = f"받는 곳: 광주광역시 북구 운암동 311 푸른아파트 207동 1504호 / 참고: {later}"
    new, got = _replaced(text)
    assert got == ["광주광역시 북구 운암동 311 푸른아파트 207동 1504호"]
    assert new.endswith(later)


@pytest.mark.parametrize(
    ("later", "rest"),
    [("푸른아파트 경비실", " 경비실"), ("푸른아파트 208동", " 208동")],  # alone; another block
)
def test_the_buildings_name_alone_is_a_copy_of_its_name(later, rest):
    """The building's own name is redrawn in the pseudonym (`corpus.pii.addresses`), so a
    later mention of the building alone takes the drawn name; another block's number stays."""
    text = f"받는 곳: 광주광역시 북구 운암동 311 푸른아파트 207동 1504호 / 참고: {later}"
    new, got = _replaced(text)
    assert got == ["광주광역시 북구 운암동 311 푸른아파트 207동 1504호", "푸른아파트"]
    head, tail = new.split(" / 참고: ")
    drawn = tail.removesuffix(rest)
    assert tail.endswith(rest) and drawn.endswith("아파트") and drawn in head
    assert "푸른" not in new


@pytest.mark.parametrize(
    "text",
    [
        "주  소 : 부산광역시 남구 용 동 77-3\n실 거주지 : 용동 77-3",
        "배달 주소: 서울 마포구 와우산로 29가길 8, 2F\n와우산로29가길 8 건물 옆이에요",
    ],
)
def test_a_spaced_name_and_a_lettered_branch_share_the_pseudonym_of_their_copies(text):
    new, got = _replaced(text)
    first, second = new.split("\n")
    core = second.split(" : ")[-1].split(" 건물")[0]
    assert len(got) == 2 and core.replace(" ", "") in first.replace(" ", "")
