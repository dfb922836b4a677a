"""Issue #24, ninth blind set's negatives: public places' addresses (a station, a market, a
convention hall, a domed stadium, a park, a campus, a palace's or a district office's
notice), a redevelopment's area and a lecture room are detected, kept and counted under
their `kept_public` kind (`corpus.pii.institutions`, `corpus.pii.public_notices`), each rule
next to the personal values it could swallow, which stay replaced. Every sentence is
invented for this test."""

from __future__ import annotations

import pytest

from corpus.pii.generate import Pseudonymizer
from tests.pii_checks import kept_kinds, replaced_values

_PZ = Pseudonymizer(seed=5)


# --- a public place named right before its address -------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "수원역은 경기 수원시 팔달구 덕영대로 924에 있으며 분당선이 지난다.",
        "교대역은 서울 서초구 서초대로 294 아래에 있다.",
        "통인시장은 종로구 자하문로15길 18 일대에 자리한 오래된 전통시장이다.",
        "서문시장 새 건물은 대구 중구 큰장로26길 45에 있고 2층은 먹거리 골목이다.",
        "박람회 장소: 킨텍스 제2전시장 7홀 (경기 고양시 일산서구 킨텍스로 217-60)",
        "척산돔(강서구 공항대로 120) 주변은 경기 날 붐빈다.",
        "올림픽공원(송파구 올림픽로 424)에서 가을 음악회가 열린다.",
        "부산시민공원의 주소는 부산 부산진구 시민공원로 73이다.",
        "북서울꿈의숲(강북구 월계로 173)에서 숲 해설 프로그램이 열린다.",
        "한빛대학교 가람캠퍼스의 도로명주소는 대전 유성구 대학로 99로, 정문은 동쪽에 있다.",
        "창덕궁 관람 안내 — 서울 종로구 율곡로 99, 월요일 휴궁.",
        "수영구청 민원 안내: 부산 수영구 수영로 500, 평일 09:00~18:00",
    ],
)
def test_a_public_place_before_its_address_is_kept(text):
    assert kept_kinds(_PZ, text) == {"institution_address": 1}


@pytest.mark.parametrize(
    "text",
    [
        "저는 수원역 근처 팔달구 덕영대로 924에 살아요.",
        "강남역 근처 역삼동 123-45 3층에 살고 있어요.",
        "남대문시장 앞 회현동 12번지 2층이 저희 집이에요.",
        "어머니는 서문시장 근처 대구 중구 큰장로26길 45에 사세요.",
        "올림픽공원 근처 송파구 올림픽로 424에 거주 중입니다.",
        "킨텍스 옆 건물 경기 고양시 일산서구 킨텍스로 217-60 5층이 제 사무실이에요.",
        "그 지역 서울 용산구 한강대로 405 2층에 혼자 산다.",
        "정비구역 경기 수원시 팔달구 덕영대로 924 2층",
    ],
)
def test_a_home_near_a_public_place_is_replaced(text):
    assert any(kind == "address" for _, kind in replaced_values(_PZ, text))


# --- a redevelopment's or a plan's area --------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "구는 강북구 미아동 791-12 일대 정비구역 지정안을 공람한다고 밝혔다.",
        "재건축 조합은 다음 달부터 가람동 40-2번지부터 40-31번지까지 철거를 시작한다.",
        "한빛재정비구역 제2지구(중구 신당동 200-5 일대)의 정비계획안이 공개됐다.",
    ],
)
def test_a_planned_area_is_kept(text):
    assert kept_kinds(_PZ, text) == {"notice_address": 1}


@pytest.mark.parametrize(
    "text",
    [
        "제 집(강북구 미아동 791-12)이 정비구역에 포함됐어요.",
        "제 집 강북구 미아동 791-12 일대 정비구역 지정으로 이사해야 해요.",
        "재개발 조합에서 우리 집 가람동 40-2번지부터 철거한대요.",
        "재개발 구역인데 어머니가 가람동 40-2번지에 사세요.",
    ],
)
def test_a_home_in_a_planned_area_is_replaced(text):
    assert any(kind == "address" for _, kind in replaced_values(_PZ, text))


# --- a lecture room given by its campus building ---------------------------------------------


def test_a_lecture_room_is_kept():
    text = "특강은 인문관 205동 311호 강의실에서 열립니다."
    assert kept_kinds(_PZ, text) == {"institution_address": 1}


@pytest.mark.parametrize(
    "text",
    [
        "기숙사 생활관 205동 311호에 배정됐습니다.",
        "생활관 205동 311호 열람실 옆 방이 제 방이에요.",
        "공학관 205동 311호 연구실로 오세요.",
        "우리 아파트 205동 311호 강의실 같은 거실",
    ],
)
def test_a_room_someone_lives_or_works_in_is_replaced(text):
    assert any(kind == "address" for _, kind in replaced_values(_PZ, text))


# --- a resident number stays replaced -------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["제 주민등록번호는 880123-1234567입니다.", "주민번호 8801231234568 확인 부탁드립니다."],
)
def test_a_resident_number_starting_880_is_replaced(text):
    assert [kind for _, kind in replaced_values(_PZ, text)] == ["rrn"]


def test_a_home_named_again_before_its_plan_is_replaced():
    text = "가람시 새솔동 312번지에서 20년을 살았습니다. 그런데 새솔동 312번지 일대가 재개발된대요."
    assert [kind for _, kind in replaced_values(_PZ, text)] == ["address", "address"]
