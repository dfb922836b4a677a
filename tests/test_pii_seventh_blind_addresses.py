"""Issue #24, seventh blind set: address shapes its first run missed, with invented values.

Each shape goes through the fast and the reference scan and the pseudonymiser (the value
replaced whole); each guard is tested next to the positives it could swallow.
"""

from __future__ import annotations

import pytest

from corpus.pii.generate import Pseudonymizer
from tests.pii_checks import found_alike

POSITIVES = [
    # an administrative dong with its number before a lot
    ("어릴 때 돈암2동 산41-7 살았어", "돈암2동 산41-7"),
    ("신림5동 1432-18 에서 자취 중", "신림5동 1432-18"),
    # building/unit written with a slash, after a complex's name or right after the lot
    ("가락동 140 헬리오시티 312/1905 로 보내주세요", "가락동 140 헬리오시티 312/1905"),
    ('"상계동 721 104/1102 경비실에 맡겨 주세요"', "상계동 721 104/1102"),
    # a block letter and a dash before the unit; after a building word too
    ("오실 분 봉천동 88-21 나-203 앞으로 오세요", "봉천동 88-21 나-203"),
    ("배송지: 청라동 15-2 센트럴 C-2107 / 문 앞", "청라동 15-2 센트럴 C-2107"),
    # a bracketed block letter
    ("면목동 201-5 (다)동 102호|월세 35", "면목동 201-5 (다)동 102호"),
    # a room word right after the lot
    ("신정동 1012-4 반지하에서 전세 살아요", "신정동 1012-4 반지하"),
    ("행당동 77-30 옥탑방 ㅠㅠ 여름엔 덥다", "행당동 77-30 옥탑방"),
    # an old lot with 의 for its dash
    ("할머니 댁 주소는 '중구 신당동 302의14' 였지", "중구 신당동 302의14"),
    # a line break after 읍 before the 리 of the lot
    ("받는 곳: 충남 예산군 삽교읍\n두리 211-3 1층", "충남 예산군 삽교읍\n두리 211-3 1층"),
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
        ("역삼1동 주민센터 3층 회의실", []),  # a numbered dong and no lot
        ("점수 1490 205/803 기록", []),  # a slash pair with no lot name before it
        ("창신동 23의 5배 넓이", []),  # 의 with a space: a comparison, not a lot
        ("제3조의2 제1항에 따라", []),  # a statute's article, 의 between numbers
        ("역삼동 622-3 반지하철 공사", [("역삼동 622-3", "address")]),  # no room word
        ("역삼동 622-3 2024/1203 정산", [("역삼동 622-3", "address")]),  # a year, not a unit
        ("역삼동 622-3 12/25 방문", [("역삼동 622-3", "address")]),  # a date
        ("정자동 178-4 A-12B 모델", [("정자동 178-4", "address")]),  # a model, not a unit
        ("만덕동 103번지 B02호 반지하", [("만덕동 103번지 B02호", "address")]),  # after a unit
    ],
)
def test_the_guards_leave_what_is_not_part_of_an_address(text, found):
    assert found_alike(text) == found


@pytest.mark.parametrize(
    "text, value",
    [
        ("고객: 어 경북 안동시 옥동 812 다시 5 이요", "경북 안동시 옥동 812 다시 5"),
        ("고객: 네 송정동 1207 다시 3 맞아요", "송정동 1207 다시 3"),
        ("상담원: 주소가요?\n고객: 연산동 44 다시 12 2층이요", "연산동 44 다시 12 2층"),
    ],
)
def test_a_lot_dictated_with_dasi_for_its_dash_is_read_whole(text, value):
    assert found_alike(text) == [(value, "address")]
    new, spans = Pseudonymizer(seed=2).apply(text)
    assert [text[s.start : s.end] for s in spans] == [value]


@pytest.mark.parametrize(
    "text",
    ["역삼동 622 다시 3번 가봤다", "역삼동 622 다시 가봤는데 없더라", "대회 결과 3 다시 2로 역전"],
)
def test_dasi_as_again_is_left(text):
    assert found_alike(text) == []
