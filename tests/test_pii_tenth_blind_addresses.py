"""Issue #24, tenth blind set: address shapes its first run missed, with invented values.

Each shape goes through the fast and the reference scan and the pseudonymiser (the value
replaced whole); each guard is tested next to the positives it could swallow.
"""

from __future__ import annotations

import pytest

from corpus.pii.generate import Pseudonymizer
from tests.pii_checks import found_alike, kept_kinds

POSITIVES = [
    # a part of the building named last: its annex, its roof
    ("택배는 내손동 산 42-7 목조주택 별채요", "내손동 산 42-7 목조주택 별채"),
    ("저는 신월동 311-4 한솔주택 안채에서 지내요", "신월동 311-4 한솔주택 안채"),
    ("현장(망원동 47-12 태양빌딩 옥상)에서 만나요", "망원동 47-12 태양빌딩 옥상"),
    # a building named with no building word, then its floor and unit
    ("배송지: 구로동 182-9 에코테크노 11층 1107호 접수처", "구로동 182-9 에코테크노 11층 1107호"),
    ("사고 장소 성수동 301-5 미래정밀 3층 302호 창고", "성수동 301-5 미래정밀 3층 302호"),
    # a bare side after a floor, at a field's end
    ("주거지 산격동 118-42 3층 우, 연락처 별첨", "산격동 118-42 3층 우"),
    ("현주소: 대명동 77-3 2층 좌\n직업: 회사원", "대명동 77-3 2층 좌"),
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
        # a roof's public use is not a part of the home
        ("망원동 47-12 태양빌딩 옥상 정원 개방 안내", [("망원동 47-12 태양빌딩", "address")]),
        ("망원동 47-12 태양빌딩 옥상 텃밭 모집", [("망원동 47-12 태양빌딩", "address")]),
        ("옥상 정원 개방은 주말에만 합니다", []),
        # a seat, not a side; a side before more words is left
        ("산격동 118-42 3층 좌석 120석", [("산격동 118-42 3층", "address")]),
        ("산격동 118-42 3층 우 302호", [("산격동 118-42 3층", "address")]),
        ("차는 좌, 우로 흔들렸다", []),
        # a name before a floor alone stays out (a shop); a count after a floor is no unit
        ("성수동 301-5 미래정밀 3층", [("성수동 301-5", "address")]),
        ("성수동 301-5 미래정밀 3층 120석", [("성수동 301-5", "address")]),
        ("모델 XR-3200 11층 1107개 생산", []),
        ("2019년 11층 1107호 화재", []),
    ],
)
def test_what_the_new_tails_must_not_swallow(text, found):
    assert found_alike(text) == found


ROADS = [
    # a road numbered before its 로, with its units; then written again, spaced or not
    (
        "새 주소는 천안시 서북구 불당31로 27 이야\n응 불당31로 27 맞아\n불당 31로 27 로 보내",
        ["천안시 서북구 불당31로 27", "불당31로 27", "불당 31로 27"],
    ),
    ("세종시 번영2로 45 한빛마을 3단지", ["세종시 번영2로 45 한빛마을"]),
    ("주소는 번영3로 18 입니다", ["번영3로 18"]),
]


@pytest.mark.parametrize("text, values", ROADS)
def test_a_road_numbered_before_its_ro_is_replaced_with_its_copies(text, values):
    new, spans = Pseudonymizer(seed=5).apply(text)
    got = [text[s.start : s.end] for s in spans]
    assert got[: len(values)] == values
    for value in values:
        assert value not in new


@pytest.mark.parametrize(
    "text",
    [
        "점수는 합계25로 64위에 그쳤다",
        "비율을 3대2로 12번 나누었다",
        "국도1로 3시간 걸렸다",
        "1라운드 결과 25로 64강 진출",
    ],
)
def test_a_number_before_ro_in_other_sentences_stays(text):
    assert found_alike(text) == []


def test_a_ministry_in_a_government_complex_keeps_its_numbered_road():
    text = "정부세종청사 5동 해양수산부 (30110) 세종특별자치시 다솜2로 94"
    assert kept_kinds(Pseudonymizer(seed=5), text)


@pytest.mark.parametrize(
    "text",
    [
        "명동2가 55번지 일대는 재개발 구역으로 묶였다.",
        "을지로 3가 71번지 일대 상가는 조명 가게로 유명하다.",
        "인현동 1가 18번지 일대 골목은 좁고 오래되었다.",
    ],
)
def test_an_area_described_after_its_lot_is_kept(text):
    assert kept_kinds(Pseudonymizer(seed=5), text) == {"notice_address": 1}


@pytest.mark.parametrize(
    "text, value",
    [
        ("역삼동 741번지 일대에 살고 있는 주민입니다", "역삼동 741번지"),
        ("제 집은 명동2가 55번지 일대에 있어요", "명동2가 55번지"),
        ("저는 을지로 3가 71번지 일대 상가 2층에 살아요", "을지로 3가 71번지 일대 상가 2층"),
    ],
)
def test_a_home_in_the_area_stays_personal(text, value):
    new, spans = Pseudonymizer(seed=5).apply(text)
    assert [text[s.start : s.end] for s in spans] == [value]
