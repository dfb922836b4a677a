"""An address's span does not take the words before it that only look like its units.

Issue #24, noticed on the eighth blind set and real text: the words read right to left
before a lot (`corpus.pii.address_rules._units_before`) took a verb's conditional or a
noun with a particle and 도 as a 면 or 도 unit ("비만 오면 풍동 1137번지" lost "오면",
"오후에도 신부동 471-8" lost "오후에도", "…에 따르면 신촌리 123"), and a building's name
took a demonstrative ("봉천로23길56 이 건물 1층" lost "이 건물"). The pseudonym replaced
those words too, so the sentence around the address changed. Real township and province
names, one syllable and a 면 included, are still read. Every value is made up.
"""

from __future__ import annotations

import pytest

from tests.pii_checks import found_alike

NOT_UNITS = [
    ("비만 오면 ", "풍동 1137번지"),
    ("오후에도 ", "신부동 471-8"),
    ("보도에 따르면 ", "신촌리 123"),
    ("조금만 더 있다면 ", "갈산리 45-2"),
    ("주말에도 ", "효자동 318-4"),
    ("집에서도 ", "내동 92-1"),
    ("가려면 ", "하대리 77"),
    ("그게 아니라면 ", "용두동 12-9"),
    ("거기 가면 ", "석남동 305-11"),
    ("잘 살면 ", "봉명동 41-3"),
]


@pytest.mark.parametrize(("before", "address"), NOT_UNITS)
def test_a_verb_or_a_particle_before_a_lot_is_no_unit(before, address):
    assert found_alike(f"{before}{address} 앞이 늘 막힌다") == [(address, "address")]


UNITS = [
    "충남 아산시 음봉면 산동리 123",
    "경북 포항시 북구 청하면 하대리 45",
    "강원 홍천군 동면 노천리 12",
    "경남 창녕군 남지읍 마산리 88",
    "경기 용인시 처인구 양지면 남곡리 301",
    "전북 완주군 이서면 은교리 9-2",
    "충북 청주시 상당구 미원면 금관리 56",
    "제주특별자치도 서귀포시 대정읍 하모리 1201",
]


@pytest.mark.parametrize("address", UNITS)
def test_real_townships_and_provinces_are_still_read(address):
    assert found_alike(f"주소는 {address} 입니다") == [(address, "address")]


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("봉천로23길56 이 건물 1층 카페", "봉천로23길56"),
        ("역삼동 622-3 그 건물 2층에서", "역삼동 622-3"),
        ("정자동 278 한빛 건물 3층 사무실", "정자동 278 한빛 건물 3층"),
        ("삼선동 1가 13-1 하나은행 빌딩 3층", "삼선동 1가 13-1 하나은행 빌딩 3층"),
    ],
)
def test_a_demonstrative_is_no_building_s_name(text, address):
    assert found_alike(text) == [(address, "address")]


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("부산 해운대구 중동2로 11 에 살아요", "부산 해운대구 중동2로 11"),
        ("주소는 중동2로 11 입니다", "중동2로 11"),
        ("부산 해운대구 중동 1392-3 에 살아요", "부산 해운대구 중동 1392-3"),
    ],
)
def test_a_road_named_after_its_neighbourhood_is_no_lot(text, address):
    """ "중동2로 11": a numbered road whose name starts with a neighbourhood's (중동) was read as
    the lot "중동 2" with a particle, and its number 11 stayed."""
    assert found_alike(text) == [(address, "address")]
