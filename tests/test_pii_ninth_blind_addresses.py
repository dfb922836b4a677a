"""Issue #24, ninth blind set: address shapes its first run missed, with invented values.

Each shape goes through the fast and the reference scan and the pseudonymiser (the value
replaced whole); each guard is tested next to the positives it could swallow.
"""

from __future__ import annotations

import pytest

from corpus.pii.generate import Pseudonymizer
from tests.pii_checks import found_alike

POSITIVES = [
    # a unit with no 호 after a building with its block, or after a villa's name
    ("택배 신정동 312-7 해솔빌 C동 402 문앞에 두세요", "신정동 312-7 해솔빌 C동 402"),
    ("주소: 화곡동 77-15 다정빌라 302\n연락처: 별첨", "화곡동 77-15 다정빌라 302"),
    ("저는 서초동 1340-2 스카이오피스텔 1203에 살아요", "서초동 1340-2 스카이오피스텔 1203"),
    ("우리집 장안동 401-9 하늘하우스 3층 301 이야", "장안동 401-9 하늘하우스 3층 301"),
    ("신림동 1422-6 별빛고시원 12번방 으로 보내주세요", "신림동 1422-6 별빛고시원 12번방"),
    ("주소 연남로3길 14-2 뒷건물 202 입니다", "연남로3길 14-2 뒷건물 202"),
    # the side of a unit or a floor
    ("주소:중랑구면목동 512-3  201호(좌)\n사유:전입", "중랑구면목동 512-3  201호(좌)"),
    ("면목동 88-14 2층 203호(우측) 로 보내주세요", "면목동 88-14 2층 203호(우측)"),
    ("주소는 대연동 91-7 3층 우측호 입니다", "대연동 91-7 3층 우측호"),
    ("거래는 성내동 433-2 1층 좌측 현관에서 해요", "성내동 433-2 1층 좌측"),
    ("임차 범위: 구의동 218-40 3층 전체", "구의동 218-40 3층 전체"),
    ("고양이가 응암동 610-3 1층 뒤편 에서 울어요", "응암동 610-3 1층 뒤편"),
    # a rooftop room, after a lot or a floor; the back house of a lot
    ("새 주소 난곡로12길 5-3 옥탑이야 놀러와", "난곡로12길 5-3 옥탑"),
    ("주소 보낼게 사근동 1120-4 4층옥탑 초록문", "사근동 1120-4 4층옥탑"),
    ("저는 공릉동 612-33 뒷집 별채에서 지냅니다", "공릉동 612-33 뒷집 별채"),
    # a block letter and a room word after a building
    (
        "현재 수원시 연무동 1520 새봄하우스 나동 반지하에 삽니다",
        "수원시 연무동 1520 새봄하우스 나동 반지하",
    ),
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
        # a count, a year, a range or a floor plan after a building is not its unit
        ("역삼동 622 한빛아파트 1200세대 입주", [("역삼동 622 한빛아파트", "address")]),
        ("정자동 178 늘푸른빌라 300 명 서명", [("정자동 178 늘푸른빌라", "address")]),
        ("정자동 178 늘푸른빌라 2019 준공", [("정자동 178 늘푸른빌라", "address")]),
        ("역삼동 622 한빛타워 120~150 규모", [("역삼동 622 한빛타워", "address")]),
        ("역삼동 622 한빛타워 305.5 제곱미터", [("역삼동 622 한빛타워", "address")]),
        ("역삼동 622 한빛타워 지하 2층~지상 15층", [("역삼동 622 한빛타워 지하 2층", "address")]),
        ("101동 주민 200명이 모였다", []),
        # a floor's number is not a room when a count follows it
        ("역삼동 622 3층 120석 규모", [("역삼동 622 3층", "address")]),
        ("역삼동 622 3층 150 명", [("역삼동 622 3층", "address")]),
        # the side words alone, or after a word that is not a unit, stay words
        ("차량은 우측 차로로, 전체 인원 301 명", []),
        ("시청 3층 전체 회의실", []),
        ("버스 7018 우측 좌석", []),
        ("2024년 3월 4일 3:1 승리", []),
        # 뒷집 alone is a neighbour, not a room of the address
        ("공릉동 612-33 뒷집 할머니", [("공릉동 612-33", "address")]),
        # 가동 with no room word after a building is operation
        ("성수동 622 한빛빌딩 가동 중단", [("성수동 622 한빛빌딩", "address")]),
    ],
)
def test_what_the_new_shapes_must_not_swallow(text, found):
    assert found_alike(text) == found


@pytest.mark.parametrize(
    "text, value",
    [
        # a lot read one digit at a time (an OCR'd form)
        (
            "주 소 : 경기 수원시 매탄동 4 1 8 - 2 7\n세 대 주 : 별첨",
            "경기 수원시 매탄동 4 1 8 - 2 7",
        ),
        # the branch of a lot written after its 번지, standing last
        ("등본상 주소: 전주시 완산구 효자동 2108번지 3 (동일)", "전주시 완산구 효자동 2108번지 3"),
    ],
)
def test_a_scanned_or_registered_lot_is_read_whole(text, value):
    assert found_alike(text) == [(value, "address")]


@pytest.mark.parametrize(
    "text, found",
    [
        # spaced digits with no dash, or fewer than three before it, are a list or a score
        ("역삼동 7 2 3 4 5번 문항", []),
        ("역삼동 3 2 - 1 로 이겼다", []),
        # a number after 번지 that is a floor or goes on is not its branch
        ("효자동 2108번지 3층", [("효자동 2108번지 3층", "address")]),
        ("효자동 2108번지 3 개 동", [("효자동 2108번지", "address")]),
    ],
)
def test_what_the_lot_shapes_must_not_swallow(text, found):
    assert found_alike(text) == found


def test_a_building_with_a_lettered_block_and_its_unit_is_copied():
    text = (
        "발신인 주소: 경북 구미시 원평동 1422 솔빛빌 라동 205호\n"
        "귀하에게 솔빛빌 라동 205호의 보증금 반환을 청구합니다."
    )
    new, spans = Pseudonymizer(seed=5).apply(text)
    assert [text[s.start : s.end] for s in spans] == [
        "경북 구미시 원평동 1422 솔빛빌 라동 205호",
        "솔빛빌 라동 205호",
    ]
    assert "솔빛빌" not in new and "205" not in new


def test_a_lot_named_again_by_its_number_or_with_its_old_dash_is_a_copy():
    text = (
        "저는 부산 사하구 괴정동 418-27번지 3층에 삽니다. 418-27번지 앞에 쓰레기가 쌓여요. "
        "예전 등기엔 괴정동 418의27 로 적혀 있어요."
    )
    new, spans = Pseudonymizer(seed=5).apply(text)
    assert [text[s.start : s.end] for s in spans] == [
        "부산 사하구 괴정동 418-27번지 3층",
        "418-27번지",
        "괴정동 418의27",
    ]
    assert "418" not in new and "괴정동" not in new


@pytest.mark.parametrize(
    "text",
    [
        # another lot's number, or the number with no 번지 as the address wrote it
        "저는 괴정동 418-27번지 3층에 삽니다. 418-28번지 는 옆집이에요.",
        "저는 괴정동 418-27번지 3층에 삽니다. 점수는 418-27 이었다.",
    ],
)
def test_another_number_is_not_a_copy_of_the_lot(text):
    spans = Pseudonymizer(seed=5).apply(text)[1]
    assert [text[s.start : s.end] for s in spans] == ["괴정동 418-27번지 3층"]
