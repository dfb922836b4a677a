"""A public institution's own phone number and address are kept and counted (issue #24).

`corpus.pii.institutions`: a number after an institution's name and its own label or desk
(``○○구청 민원과 … 문의 02-…``) is ``institution_phone``; an address after the name, a
branch or desk, a dash or ``주소:`` and masked units (``…공단 ○○지부: ○○시 중앙로 …``) is
``institution_address``. Each shape is tested with invented values (none of the blind
sets'), and next to it the positives it could swallow: a person's number or home near an
institution's name, a private business, a professor's office, a person's account.
"""

from __future__ import annotations

import pytest

from corpus.pii.generate import Pseudonymizer
from corpus.pii.institutions import INSTITUTION_WORD, PHONE_INSTITUTION_WORD
from corpus.pii.kept import PUBLIC_KINDS
from tests.pii_checks import kept_kinds

PZ = Pseudonymizer(seed=11)


def _kept(text: str) -> dict:
    return kept_kinds(PZ, text)


def _replaced(text: str, value: str, kind: str) -> None:
    """Asserts that `value` is replaced as `kind` and nothing is kept as an institution's."""
    out, spans, kept = PZ.apply_counted(text)
    got = [(text[sp.start : sp.end], sp.type) for sp in spans]
    assert (value, kind) in got, (text, got)
    assert value not in out, out
    assert not {"institution_phone", "institution_address"} & set(kept), (text, kept)


def test_the_new_kind_is_listed_and_the_word_lists_are_one():
    assert "institution_phone" in PUBLIC_KINDS
    assert INSTITUTION_WORD in PHONE_INSTITUTION_WORD  # the phone rule reads the same words


# --- an institution's number: its name, then its label or desk, then the number ----------

_INSTITUTION_PHONES = [
    # the name, a desk, a sentence, then 문의
    "△△군청 농업정책과는 군청 별관 1층으로 옮겼습니다. 문의 033-560-2345",
    # the name, its address in brackets, 대표번호
    "시립어린이도서관(광주 북구 우치로 77, 대표번호 062-613-7700)은 월요일에 쉰다.",
    # a university's centre, a room, "/ 전화"
    "한빛대학교 국제교류센터 본관 3층 302호 / 전화 031-400-5678 / 평일 9시-17시",
    # a tax office's desk, 대표번호 after a slash
    "○○세무서 민원봉사실 2층 / 대표번호 051-750-1200",
    # a health centre's notice, 문의 after a comma
    "보건소 예방접종실 운영 안내: 본관 1층, 문의 043-201-3100",
    # a court's desk, "전화 (대표)"
    "고등법원 민사과: 본관 2층 205호, 전화 (대표) 062-239-1114",
    # a hospital's desk, "(대표 …)"
    "○○의료원 장례식장은 별관 지하 1층, 접수는 원무과(대표 041-550-6000)에서 한다.",
    # a public hall, the desk right before the number
    "시민회관 소공연장 대관 신청은 공연기획팀 051-888-1234로 하세요.",
    # a university hospital's emergency room, 직통
    "○○대학교병원 대표전화 1577-0011, 소아응급실 직통 042-600-7777",
    # an election commission, "전화는 …번입니다"
    "△△시 선거관리위원회 사무국은 시청 별관 2층, 전화는 031-8045-0390번입니다.",
    # a bank's customer centre, its line from abroad
    "△△은행 고객센터 1599-1111 (해외에서는 +82-2-3702-5566)",
    # a 주민센터, "Tel."
    "행복동 주민센터 복지팀 Tel. 02-2600-4455",
    # the name itself right before the number, bracketed or spaced
    "○○구청(02-2148-3114) 민원실 운영 시간 안내",
    "시립미술관 02-2124-8800 으로 문의",
    # the institution in brackets right after a labelled number
    "여권 재발급 문의: 02-2148-3999 (○○구청 민원여권과)",
    # a fax line
    "○○구청 민원과 팩스 02-2148-3998",
    # a bank whose name is a word ("우리")
    "우리은행 고객센터 1599-1234 (해외에서는 +82-2-2345-6789)",
    # desks: a 계, a 데스크; a graduate school's office (대학원 is no 학원)
    "○○시 선거관리위원회 지도홍보계 033-640-1290",
    "국립△△박물관 안내데스크 02-2077-1000",
    "○○대학교 대학원 행정실 02-705-1234",
    # the next number of a list after a labelled one
    "○○우체국 우편물 분실 문의 1588-1300 또는 02-3210-1234",
    # a public corporation with a masked name
    "한국○○공사 ○○지사 고객지원팀 061-345-1234",
]  # fmt: skip


@pytest.mark.parametrize("text", _INSTITUTION_PHONES)
def test_an_institution_s_own_number_is_kept_and_counted(text):
    kept = _kept(text)
    assert kept.pop("institution_phone") == 1, kept
    assert set(kept) <= {"service_number", "institution_address"}, kept


def test_a_number_without_area_code_after_an_institution_s_label():
    assert _kept("○○구청 민원여권과 전화번호는 2148-3999") == {"institution_phone": 1}


# --- what an institution's number rule must not swallow -----------------------------------

_PERSON_PHONES = [
    # the institution as a landmark
    ("구청 앞에서 만나요. 전화 02-3344-5566", "02-3344-5566"),
    ("시청 근처 카페인데 문의 02-7788-1234 주세요", "02-7788-1234"),
    # a patient, a relative
    ("병원에 입원한 아버지 연락처 02-3456-7788", "02-3456-7788"),
    ("병원에 입원한 아버지 전화 02-3456-7789", "02-3456-7789"),
    ("한빛병원에 계신 어머니 직통 031-455-6677", "031-455-6677"),
    # a private business next to the institution
    ("저희 가게 대표번호 02-6677-8899 (구청 옆)", "02-6677-8899"),
    ("구청 옆 저희 가게 대표번호 02-6677-8898", "02-6677-8898"),
    ("도서관 1층 카페 우리 매장 문의 02-6677-1122", "02-6677-1122"),
    # a professor's office is the professor's: replaced (see the module docstring)
    ("○○대학교 박지훈 교수 연구실 02-880-1234", "02-880-1234"),
    # an official named with the desk, before or after the number
    ("○○구청 민원과 김철수 주무관 전화 02-2148-7000", "02-2148-7000"),
    ("○○구청 민원과 전화 02-2148-7001 (담당 이영희)", "02-2148-7001"),
    # someone working or studying there
    ("시청에서 일하는 제 친구 직통 02-2133-0001", "02-2133-0001"),
    ("학교 친구 집 전화 031-222-3344", "031-222-3344"),
    ("○○공사 직원 직통 055-123-4567", "055-123-4567"),
    # a department's number with no institution named (blind4's positive shape)
    ("담당 부서 02 - 3199 - 4455 내선 3012 로 연락 주십시오.", "02 - 3199 - 4455"),
    ("민원실 064 811 2233", "064 811 2233"),
    ("고객센터(052-3381-2200)에 전화했지만 연결이 되지 않았습니다.", "052-3381-2200"),
    # whose the institution is, just before its name
    ("아버지 병원 02-3456-1111", "02-3456-1111"),
    # a landmark or an owner with the institution bracketed after the number
    ("저희 가게 대표번호 02-6677-8897 (구청 맞은편)", "02-6677-8897"),
    ("우리 학원 전화 02-3300-1212 (한빛대학교 정문)", "02-3300-1212"),
    ("제 번호 02-3300-1213 (○○구청 근무)", "02-3300-1213"),
    # a private office or a room someone lives in, in or near the institution
    ("○○세무서 세무사 사무실 대표 02-555-1212", "02-555-1212"),
    ("○○대학교 기숙사 302호 전화 02-940-1302", "02-940-1302"),
    ("○○병원 502호 병실 직통 02-3010-1502", "02-3010-1502"),
    # an institution's word as the head of a road or of a person
    ("제 주소 ○○시 시청로 12, 전화 02-3456-0012", "02-3456-0012"),
    ("서울 종로구 대학로 12, 전화 02-765-0012", "02-765-0012"),
    ("대학생 과외 문의 02-765-0013", "02-765-0013"),
    # a foreign number is never an institution's here
    ("미국 지사 담당자 번호는 +1 (213) 448-0000 입니다.", "+1 (213) 448-0000"),
]  # fmt: skip


@pytest.mark.parametrize("text,value", _PERSON_PHONES)
def test_a_person_s_number_near_an_institution_s_name_is_replaced(text, value):
    _replaced(text, value, "phone")


def test_a_person_s_mobile_near_an_institution_is_replaced():
    _replaced("구청 앞에서 만나요 010-3344-5566", "010-3344-5566", "mobile")
    _replaced("○○구청 민원과 문의 010-2148-3120", "010-2148-3120", "mobile")


@pytest.mark.parametrize(
    "text",
    ["○○구청 민원과 대표번호 02-2148-3000 / 제 사무실 전화 02-2148-3001",
     "○○구청 민원과 문의 02-2148-3000 또는 제 사무실 02-2148-3001"],  # a list, then someone's
)  # fmt: skip
def test_the_institution_s_number_kept_and_a_person_s_next_to_it_replaced(text):
    out, spans, kept = PZ.apply_counted(text)
    assert [text[sp.start : sp.end] for sp in spans] == ["02-2148-3001"]
    assert "02-2148-3000" in out and kept == {"institution_phone": 1}


def test_a_number_on_the_next_line_after_an_institution_is_not_its_own():
    _replaced("○○구청 민원과\n문의 02-2148-3002", "02-2148-3002", "phone")


# --- an institution's address: branches, a dash, "주소:", masked units ----------------------

_INSTITUTION_ADDRESSES = [
    # a branch masked, ": ", a masked city before the road
    "근로복지공단 △△지사: ○○시 번영로 88 복지타워 3층, 국번 없이 1588-0075",
    # a desk, " - 주소: "
    "○○세무서 체납추적팀 - 주소: ○○시 세무로 12 세무서 2층",
    # a regional office and an em dash
    "한국도로공사 △△지역본부 — 충북 청주시 흥덕구 강내로 300, 대표전화 1588-2504",
    # a new building, "주소:", a postal code after
    "○○도교육청 제2청사 주소: ○○시 교육청로 9 (우 12345)",
    # a temporary building in brackets, a masked 읍
    "○○경찰서 지구대 이전으로 임시 청사(△△읍 시장로 21-4, 3층)로 옮겼다.",
    # a post office, a masked 동
    "○○우체국: △△동 역전로 5-2, 2층 금융창구",
    # a province before the masked city, a slash, "찾아오시는 길:"
    "○○도교육청 신청사 주소: 강원 ○○시 교육로 40 (우 24400)",
    "○○우체국 / ○○구 신촌로 8-3, 1층",
    "○○시청 찾아오시는 길: ○○시 시청로 1, 2층 민원실",
]  # fmt: skip


@pytest.mark.parametrize("text", _INSTITUTION_ADDRESSES)
def test_an_institution_s_address_after_a_branch_a_dash_or_a_masked_unit_is_kept(text):
    kept = _kept(text)
    assert kept.pop("institution_address") == 1, kept
    assert set(kept) <= {"service_number", "institution_phone"}, kept


_HOMES = [
    # near the institution, masked units: a home
    ("시청 근처 ○○구 중앙로 12에 살아요", "중앙로 12"),
    ("시청 근처 강원 ○○시 중앙로 14에 살아요", "중앙로 14"),
    ("○○세무서 앞 ○○시 세무로 14 빌라 2층이 저희 집이에요", "세무로 14 빌라 2층"),
    # right after the institution, but someone lives there
    ("○○구청 ○○구 중앙로 12에 살아요", "중앙로 12"),
    ("근로복지공단 △△지사 ○○시 번영로 90 에 거주", "번영로 90"),
    ("한빛대학교 기숙사 - 주소: ○○시 대학로 7 302호", "대학로 7 302호"),
    # a record whose 주소 field follows the institution as a field's value
    ("학교: 한빛초등학교 주소: ○○시 학교로 5", "학교로 5"),
    # a hospital's address may be a patient's whereabouts: left to the address rules
    ("아버지가 입원한 한빛병원 주소: ○○시 병원로 33 5층", "병원로 33 5층"),
]  # fmt: skip


@pytest.mark.parametrize("text,value", _HOMES)
def test_a_home_near_an_institution_s_name_is_replaced(text, value):
    _replaced(text, value, "address")


# --- accounts: an institution's account stays replaced ----------------------------------


@pytest.mark.parametrize(
    "text,value",
    [("국고 세입 계좌번호 031-02-000027 은 공금 수납 계좌다.", "031-02-000027"),
     ("구청에서 환급받을 제 계좌번호 110-234-567890 입니다", "110-234-567890"),
     ("○○구청 세무과 계좌 352-0987-6543-21 로 입금", "352-0987-6543-21")],
)  # fmt: skip
def test_an_account_named_with_an_institution_is_still_replaced(text, value):
    """An account is never kept: a public one loses nothing by a same-shape pseudonym, and a
    rule that kept one could keep a person's account written next to an institution."""
    _replaced(text, value, "bank_account")
