"""Issue #24, tenth blind set: the forms its first run missed, and a placeholder it changed.

Each rule is tested with invented values in sentences of its own, through the fast and
the reference scan (`found_alike`) or the pseudonymiser, with the negatives it could
swallow:

* a birth in a bracket that opens with the sex, no name before it ("내원(여, …)"), and a
  question for the birth date with 생신 or "생일만 적으면 돼요?" answered by the date
  (`corpus.pii.birth_shapes`);
* a spoken e-mail whose local part holds a dot read out ("… 점 … 골뱅이 …":
  `corpus.pii.written_shapes.spoken_local_start`), a full-width "ａｔ" (`corpus.pii.width`);
* an old motorbike plate whose district keeps its 구 after a space ("서울 중구 자 …":
  `corpus.pii.plates`);
* an e-mail a form shows as its placeholder, kept (`corpus.pii.examples.placeholder_shown`).
"""

from __future__ import annotations

import pytest

from corpus.pii.generate import Pseudonymizer
from tests.pii_checks import found_alike

PZ = Pseudonymizer(seed=61)

POSITIVES = [
    # the sex then a dotted date in a bracket, in a note with no masked name
    ("응급실 내원(남, 83. 7. 14.), 복통 호소하며 구토 2회.", "83. 7. 14.", "birth_date"),
    ("환자 (여자, 71.2.28) 혈압 조절 불량으로 재진", "71.2.28", "birth_date"),
    # a question for the birth date, the date as the answer
    ("생일만 적으면 되나요? 88년 4월 21일 이렇게요?", "88년 4월 21일", "birth_date"),
    (
        "누나: 할아버지 생신 언제였지? 나: 41년 음력 8월 15일이잖아",
        "41년 음력 8월 15일",
        "birth_date",
    ),
    # a spoken e-mail with a dot read out in its local part
    (
        "메일은 minho 점 park 골뱅이 naver 점 com 으로 주세요",
        "minho 점 park 골뱅이 naver 점 com",
        "email",
    ),
    ("주소: ji 점 won 점 lee 골뱅이 daum 점 net", "ji 점 won 점 lee 골뱅이 daum 점 net", "email"),
    # a full-width "ａｔ" between spaces
    ("B: dohyun.k88 ａｔ gmail.com 으로 보내줘", "dohyun.k88 ａｔ gmail.com", "email"),
    # an old motorbike plate, the district with its 구 after a space
    ("부산 해운대구 바 7720 스쿠터가 인도로 달려요", "부산 해운대구 바 7720", "plate"),
    ("서울 마포구 하 5081 오토바이 신고합니다", "서울 마포구 하 5081", "plate"),
]


@pytest.mark.parametrize(("text", "value", "kind"), POSITIVES)
def test_the_form_is_found(text, value, kind):
    assert (value, kind) in found_alike(text), found_alike(text)


@pytest.mark.parametrize(("text", "value", "kind"), POSITIVES)
def test_the_pseudonym_replaces_the_value(text, value, kind):
    new, _ = PZ.apply(text)
    assert value not in new, new


NEGATIVES = [
    # a bracket with a date but no sex before it; the sex with an event's date after
    "신제품 출시(2021. 3. 4.) 이후 판매량이 늘었다.",
    "아동(여, 2019. 3. 1. 입소) 보호 중",
    # a founding date near 생, a product's date, a cohort
    "학생회 창립일 언제였지? 98년 3월 2일이잖아",
    "생산일자 언제예요? 21년 5월 6일이요",
    "생일 파티 언제야? 3월 2일이잖아",
    "행사 언제였지? 3월 2일이잖아",
    "95년 7월 3일 이렇게요? 제출 기한 말씀하시는 거죠",
    "92년생 모임 언제였지? 23년 4월 8일이잖아",
    # 점 in ordinary text: a score, a store, words before a typed address
    "평균 3.5 점 받았고 문의는 help 골뱅이 없음",
    "IKEA 점 hana@gmail.com 으로 문의",
    "강남 점 담당자 메일",
    "이 제품은 com 점 수가 높다",
    # a half-width and full-width "at" in prose, not an address
    "Ｉ ａｍ ａｔ ｈｏｍｅ now",
    "회의는 3 ａｔ 5층",
    # district names with numbers that are no plate
    "서울 중구 가 1234명이 참여했다",
    "서울 중구 외 3000가구",
    "경기 수원시 나 2024년 예산",
    "서울 중구 을지로 3318",
]


@pytest.mark.parametrize("text", NEGATIVES)
def test_nothing_is_read_in_the_negative(text):
    found = [(v, k) for v, k in found_alike(text) if k in ("birth_date", "email", "plate")]
    if text.startswith("IKEA"):
        assert found == [("hana@gmail.com", "email")], found  # the typed address only
        return
    assert found == [], found


def test_a_score_before_a_spoken_address_stays_out():
    text = "평균 3.5 점 han 골뱅이 gmail 점 com 으로"
    assert found_alike(text) == [("han 골뱅이 gmail 점 com", "email")]


def test_a_korean_word_before_the_dot_stays_out():
    text = "강남 점 minji 골뱅이 naver 점 com 이에요"
    assert found_alike(text) == [("minji 골뱅이 naver 점 com", "email")]


PLACEHOLDERS = [
    "가입 폼 placeholder에 'you@yourcompany.kr'이라고 회색 글씨로 나온다.",
    "빈 칸에 'user01@shopmail.kr'이라는 흐린 글씨가 떠 있다",
    "예시 주소 hong.gd@mycorp.co.kr 을 지우고 입력하세요",
    "플레이스홀더: someone@company.com",
]


@pytest.mark.parametrize("text", PLACEHOLDERS)
def test_a_placeholder_address_is_kept(text):
    out, spans, kept = PZ.apply_counted(text)
    assert out == text and spans == [] and dict(kept) == {"placeholder": 1}, (out, kept)


OWN_ADDRESSES = [
    "제 메일은 name@company.com 입니다",
    "연락은 jisoo.han@company.com 으로 주세요",
    # a placeholder word with the speaker's own between
    "플레이스홀더 말고 제 메일 jinsu.park@gmail.com 적었어요",
    "제 메일 jinsu.park@gmail.com 은 회색 글씨로 보여요",
]


@pytest.mark.parametrize("text", OWN_ADDRESSES)
def test_a_persons_address_is_replaced(text):
    out, spans, kept = PZ.apply_counted(text)
    assert [s.type for s in spans] == ["email"] and not kept, (out, kept)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("메일은 kim dot lee at gmail dot com 입니다", "kim dot lee at gmail dot com"),
        ("email: john dot smith at naver dot com 으로", "john dot smith at naver dot com"),
        ("연락은 HONG DOT GD AT DAUM DOT NET 으로 주세요", "HONG DOT GD AT DAUM DOT NET"),
    ],
)
def test_a_spoken_dot_in_the_local_part_before_a_spoken_at(text, value):
    """ "kim dot lee at gmail dot com": the word before " at " follows a dot read out, so it
    is the local part's second word, not English prose ("big data at naver.com")."""
    assert found_alike(text) == [(value, "email")]


@pytest.mark.parametrize(
    "text",
    ["the talk on big data at naver.com scale", "Big Data at naver.com", "a polka dot at home"],
)
def test_prose_with_at_stays_prose(text):
    assert found_alike(text) == []
