"""Issue #24, eighth blind set: births, e-mails, hosts, foreign phones and plates as written.

Each shape is tested with invented values and sentences of its own (not the blind set's),
through the fast and the reference scan and through the pseudonymiser (the value replaced
whole); each guard is tested with the negatives the new rule could hit.
"""

from __future__ import annotations

import pytest

from corpus.pii.generate import Pseudonymizer
from tests.pii_checks import found_alike

PZ = Pseudonymizer(seed=48)


POSITIVES = [
    # a birth year said with 생, then its month and day
    ("birth_date", "94년생 11월 2일 생일이에요, 연락 주세요", "94년생 11월 2일"),
    ("birth_date", "저는 1988년생 6월 21일이고 인천에 삽니다", "1988년생 6월 21일"),
    # honorific and quoting forms after 생
    ("birth_date", "아버지가 52년 8월 14일생이셔서 올해 칠순이 넘으셨어요", "52년 8월 14일"),
    ("birth_date", "그 사람 말로는 83년 5월 30일생이라고 하더군요", "83년 5월 30일"),
    ("birth_date", "동생이 99년 1월 9일생이라서 아직 학생이에요", "99년 1월 9일"),
    # born and raised, said by the person or of a relative
    ("birth_date", "72년 12월 5일 충남 공주에서 태어나 그곳에서 학교를 다녔어요.", "72년 12월 5일"),
    ("birth_date", "저희 어머니는 48년 3월 3일 순천에서 태어나 평생 거기 사셨다", "48년 3월 3일"),
    # "_at_" (and "_dot_") for "@" and the dot where a form takes no "@"
    ("email", "과제 제출은 minseo.k_at_gmail.com 으로 해주세요", "minseo.k_at_gmail.com"),
    ("email", "문의: hyun_woo93_AT_naver_DOT_com", "hyun_woo93_AT_naver_DOT_com"),
    # a written-out "at" in CJK brackets
    ("email", "연락은 taeyang7 【at】 daum.net 으로 부탁해요", "taeyang7 【at】 daum.net"),
    ("email", "메일: parkjy〔at〕hanmail.net", "parkjy〔at〕hanmail.net"),
    # an address with a space between every two characters
    ("email", "메일 주소 d a e h o 9 1 @ g m a i l . c o m 입니다",
     "d a e h o 9 1 @ g m a i l . c o m"),
    # Korea's code with a space after its plus, spaced dashes between the groups
    ("mobile", "연 락 처 : + 82 - 10 - 4471 - 2093 (해외 체류 중)", "+ 82 - 10 - 4471 - 2093"),
    ("mobile", "연락처 +82 - 10 - 5128 - 6637", "+82 - 10 - 5128 - 6637"),
    ("phone", "사무실 + 82 2 345 6789 로 주세요", "+ 82 2 345 6789"),
    # Europe's pairs after a group of two to four digits, a phone or abroad word near
    ("phone", "마드리드 사는 딸 번호가 +34 655 21 87 40 이에요", "+34 655 21 87 40"),
    ("phone", "벨기에 지사 연락처 +32 471 55 20 93", "+32 471 55 20 93"),
    ("phone", "덴마크 친구 전화 +45 31 72 40 58", "+45 31 72 40 58"),
    # a plate, then 호 (a counter) and the vehicle, as rulings and police reports write it;
    # court words near do not make it a case number
    ("plate", "피의자는 27머3391호 승용차량을 운전하여 사건 현장을 떠났다", "27머3391"),
    ("plate", "피고인은 서울12가3456호 그랜저 승용차를 운전하던 중 판결", "서울12가3456"),
    ("plate", "피해자의 38노 7712호 차량을 들이받아 사건이 났다", "38노 7712"),
    ("plate", "66보8125호 흰색 포터 화물차가 정차해 있었다", "66보8125"),
    ("plate", "54더2210호를 운전하여 사고를 냈다", "54더2210"),
    ("plate", "재판에서 문제된 차는 81누4425 승용차였다", "81누4425"),
    # an old motorbike plate: a province and a district joined, the syllable, four digits
    ("plate", "번호판 '부산해운대 다 2207' 오토바이 찾습니다", "부산해운대 다 2207"),
    ("plate", "어제 본 '경남창원 마 5530' 스쿠터", "경남창원 마 5530"),
    ("plate", "도난된 번호판 전북고창 사 3307 입니다", "전북고창 사 3307"),
    ("plate", "배달 오토바이 서울 강남 바 8125 번호판", "서울 강남 바 8125"),
]  # fmt: skip


#: Hosts read by the pseudonymiser (`corpus.pii.markup` decodes their spaces), not the scan.
SPACED_HOSTS = [
    # a dot with a space after it only, on a platform whose path names its user
    ("출처: m.blog. naver. com/ haneul_42 (캡처본)", "m.blog. naver. com/ haneul_42"),
    ("인스타 instagram. com/ mina.d_22 팔로우 부탁", "instagram. com/ mina.d_22"),
    ("cafe. daum. net/ dreamers2020 카페 가입", "cafe. daum. net/ dreamers2020"),
    # a handle after the slash, spaced dots on both sides or not
    ("채널 youtube. com/ @cooking_mom77 구독", "youtube. com/ @cooking_mom77"),
    ("채널 youtube . com / @cooking_mom77 구독", "youtube . com / @cooking_mom77"),
]


@pytest.mark.parametrize(("text", "value"), SPACED_HOSTS)
def test_a_spaced_host_is_replaced_whole(text, value):
    new, spans = PZ.apply(text)
    start = text.index(value)
    assert [(s.start, s.end, s.type) for s in spans] == [(start, start + len(value), "url")]
    assert value.split("/")[-1].strip() not in new, new


@pytest.mark.parametrize(
    "text",
    [
        # a sentence's end before "com/": not a platform's host
        "그건 it. com/ 이라는 말이다",
        "I like it. com/ and more",
        # a site that is not a platform: its path names no one
        "자세한 건 news. naver. com/ main 참고",
        # no handle after the slash
        "메일 a@b.com 그리고 x . com / @ 기호",
    ],
)
def test_a_spaced_host_that_is_no_platform_stays(text):
    _, spans = PZ.apply(text)
    assert all(s.type != "url" for s in spans), text


@pytest.mark.parametrize(("kind", "text", "value"), POSITIVES)
def test_the_shape_is_replaced_whole(kind, text, value):
    assert (value, kind) in found_alike(text)
    new, spans = PZ.apply(text)
    start = text.index(value)
    assert any(
        s.start <= start and start + len(value) <= s.end and s.type == kind for s in spans
    ), (text, [(text[s.start : s.end], s.type) for s in spans])
    assert value not in new, new


NEGATIVES = [
    # AD dates in history: an encyclopedia's connective 태어나, an era word
    "32년 4월 28일 로마에서 태어나 아테네에서 공부했다.",
    "기원전 63년 9월 23일 로마에서 태어나 황제가 되었습니다",
    # the first time since one's birth: the date of an event
    "61년 7월 29일 태어나서 처음으로 바다를 봤습니다",
    # a cohort's event after 년생 and a day
    "2019년생 3월 2일에 입학합니다",
    "2019년생 3월 2일 입학식 안내",
    "2019년생 3월 2일부터 접수",
    "1990년생 3명이 지원했다",
    "우리 학교 85년생 3월 7일 동창회",
    "85년생 3월 7일 정기총회",
    "1985년생 3월 7일 개교기념일",
    # an event's date with no birth word
    "88년 9월 17일 서울올림픽 개막",
    # "_at_" in code and file names, with no mail host or mail word
    "look_at_me.py 파일을 실행하세요",
    "created_at_utc 컬럼과 updated_at_kst 컬럼",
    "meet_at_noon.com 에서 만나요",
    # a sum before "82": no country code
    "계산: 3 + 82 - 10 - 4471 - 2093 = ?",
    "(3) + 82 - 10 - 4471 - 2093",
    # signed scores in pairs: no country code, or no phone or abroad word near
    "+10 20 30 40 50",
    "+3 12 34 56 78 90",
    "점수 변동 +30 20 10 15 22",
    "순위 +34 612 48 93 07 변동",
    # 호 as a quantity's or a unit's counter, no vehicle after it; a document number
    "아파트 12가 3456호에 살아요",
    "제12345호 문서",
    "12가3456호",
    "93노1395 사건의 판결에서",
    # a province's name in a word that is no district, its full name, no plate word
    "서울대 가 1234 강의실",
    "서울대 가 1234 오토바이",
    "경기도 가 1234 구역",
    "전북고창 사 3307 참조",
    # one-syllable words before numbers: no region before them
    "어제 주 3회 가 1234 수 3 더 3 고 3 학생",
    # letters spaced around "@" and a dot with no mail host or mail word
    "A B C @ D E F . G H 는 예시",
    "점수 a b @ c d . e f 순서",
]


@pytest.mark.parametrize("text", NEGATIVES)
def test_the_guard_leaves_the_text(text):
    assert found_alike(text) == [], text


def test_an_at_inside_a_local_part_before_its_at_sign_is_not_the_at():
    # "_at_" is "@" only when no "@" follows in the same token: the local part's own word
    text = "보낼 곳 ji_at_home7@naver.com 입니다"
    assert found_alike(text) == [("ji_at_home7@naver.com", "email")]


def test_a_plate_pseudonym_keeps_its_region_and_counter():
    # the district's name is kept whole (its 고 is no plate syllable), and so is the 호
    new, _ = PZ.apply("번호판 전북고창 사 3307 도난")
    assert new.startswith("번호판 전북고창 ") and "3307" not in new, new
    new, _ = PZ.apply("피고인은 49고4806호 승용차량을 운전")
    assert new.endswith("호 승용차량을 운전") and "4806" not in new, new


def test_a_plate_in_a_list_is_read_as_before():
    text = "12가 3456, 34나 5678 (예시 목록)"
    assert found_alike(text) == [("12가 3456", "plate"), ("34나 5678", "plate")]


def test_a_letter_spaced_address_keeps_its_spaces_and_webmail_host():
    text = "메일 주소 d a e h o 9 1 @ g m a i l . c o m 입니다"
    new, _ = PZ.apply(text)
    assert new.endswith(" @ g m a i l . c o m 입니다"), new
    assert "d a e h o 9 1" not in new, new
