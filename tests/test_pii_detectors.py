"""Exact-value tests of the PII validators and detectors (all values are made up or generated)."""

from __future__ import annotations

import pytest

from corpus.pii.detectors import REGISTRY, TYPES
from corpus.pii.scan import Scanner, find_spans, resolve_types
from corpus.pii.validators import (
    brn_check_digit,
    brn_ok,
    crn_check_digit,
    crn_ok,
    ipv4_ok,
    ipv6_ok,
    luhn_check_digit,
    luhn_ok,
    rrn_birth_ok,
    rrn_check_digit,
    rrn_checksum_ok,
)


def _with_check(body: str, fn) -> str:
    return body + str(fn(body))


# --- validators ----------------------------------------------------------------------------


def test_luhn_known_test_numbers():
    assert luhn_ok("4111111111111111")  # the classic Visa test number
    assert luhn_ok("378282246310005")  # Amex test number
    assert not luhn_ok("4111111111111112")
    assert luhn_check_digit("411111111111111") == 1


def test_rrn_checksum_and_birth():
    body = "900101123456"
    full = _with_check(body, rrn_check_digit)
    assert rrn_checksum_ok(full)
    wrong = full[:-1] + str((int(full[-1]) + 1) % 10)
    assert not rrn_checksum_ok(wrong)
    assert rrn_birth_ok("9001011")
    assert rrn_birth_ok("0002293")  # 2000-02-29 exists
    assert not rrn_birth_ok("0102293")  # 2001-02-29 does not
    assert not rrn_birth_ok("9013011")  # month 13
    assert not rrn_birth_ok("9001019")  # sex digit 9 (born in the 1800s) is not accepted


def test_foreigner_checksum_uses_its_own_formula():
    body = "850304512345"
    assert rrn_check_digit(body, foreigner=True) == (rrn_check_digit(body) + 2) % 10
    assert rrn_checksum_ok(_with_check(body, lambda b: rrn_check_digit(b, True)))


def test_business_and_corporate_check_digits():
    brn = _with_check("220816251", brn_check_digit)
    assert brn_ok(brn)
    assert not brn_ok(brn[:-1] + str((int(brn[-1]) + 3) % 10))
    assert not brn_ok("0" + brn[1:])  # tax office codes start at 101
    crn = _with_check("110111001234", crn_check_digit)
    assert crn_ok(crn)
    assert not crn_ok(crn[:-1] + str((int(crn[-1]) + 1) % 10))


def test_ip_parsing():
    assert ipv4_ok("192.168.0.1") and ipv4_ok("8.8.8.8")
    assert not ipv4_ok("256.1.1.1") and not ipv4_ok("01.2.3.4")
    assert ipv6_ok("2001:db8::1") and ipv6_ok("fe80::1:2:3:4")
    assert not ipv6_ok("12:30:45") and not ipv6_ok("::")


# --- detectors -----------------------------------------------------------------------------

RRN = "900101-" + _with_check("900101123456", rrn_check_digit)[6:]
BRN = _with_check("220816251", brn_check_digit)
BRN_DASHED = f"{BRN[:3]}-{BRN[3:5]}-{BRN[5:]}"
CRN = _with_check("110111012345", crn_check_digit)
CRN_DASHED = f"{CRN[:6]}-{CRN[6:]}"

POSITIVES = [
    ("email", "메일은 kim.minsu99@example.co.kr으로 주세요", "kim.minsu99@example.co.kr"),
    ("url", "링크(https://blog.example.com/p/abc?x=1)를 보세요", "https://blog.example.com/p/abc?x=1"),
    ("url", "주소는 www.example.kr/a 입니다.", "www.example.kr/a"),
    ("ip", "서버 10.0.12.7에서 접속", "10.0.12.7"),
    ("ip", "주소 2001:db8:85a3::8a2e:370:7334 차단", "2001:db8:85a3::8a2e:370:7334"),
    ("mobile", "연락처 010-2345-6789 입니다", "010-2345-6789"),
    ("mobile", "연락처 010.2345.6789", "010.2345.6789"),
    ("mobile", "연락처 010 2345 6789", "010 2345 6789"),
    ("mobile", "연락처 01023456789로", "01023456789"),
    ("mobile", "+82 10-2345-6789로 전화", "+82 10-2345-6789"),
    ("mobile", "(016)234-5678 번", "(016)234-5678"),
    ("phone", "사무실 02-345-6789", "02-345-6789"),
    ("phone", "(031) 234-5678 으로", "(031) 234-5678"),
    ("phone", "인터넷전화 070-1234-5678", "070-1234-5678"),
    ("phone", "고객센터 1588-1234", "1588-1234"),
    ("rrn", f"주민번호 {RRN}", RRN),
    ("rrn", "주민등록번호 900101-1******", "900101-1******"),
    ("rrn", "주민번호 2103153123450", "2103153123450"),  # 2021, no check digit, context word
    ("frn", "외국인등록번호 850304-5123456", "850304-5123456"),
    ("passport", "여권번호 M12345678", "M12345678"),
    ("passport", "여권 번호는 M123A4567 입니다", "M123A4567"),
    ("driver_license", "운전면허 11-12-345678-90", "11-12-345678-90"),
    ("driver_license", "면허번호 서울 12-345678-90", "서울 12-345678-90"),
    ("brn", f"사업자등록번호 {BRN_DASHED}", BRN_DASHED),
    ("brn", f"사업자등록번호 {BRN}", BRN),
    ("crn", f"법인등록번호 {CRN_DASHED}", CRN_DASHED),
    ("bank_account", "국민은행 123456-01-234567로 입금", "123456-01-234567"),
    ("bank_account", "계좌 110123456789 (신한)", "110123456789"),
    ("card", "카드 4111-1111-1111-1111 결제", "4111-1111-1111-1111"),
    ("card", "카드 4111 1111 1111 1111", "4111 1111 1111 1111"),
    ("plate", "차량 12가 3456 견인", "12가 3456"),
    ("plate", "차량 123가4567", "123가4567"),
    ("plate", "서울12가3456 차량", "서울12가3456"),
    ("address", "서울특별시 강남구 테헤란로 123, 4층으로", "서울특별시 강남구 테헤란로 123, 4층"),
    ("address", "(06236) 서울특별시 강남구 테헤란로 152 (역삼동)",
     "(06236) 서울특별시 강남구 테헤란로 152 (역삼동)"),
    ("address", "경기도 성남시 분당구 정자동 178-1에서", "경기도 성남시 분당구 정자동 178-1"),
    ("address", "영월군 중앙로 3번길 12", "영월군 중앙로 3번길 12"),
    ("birth_date", "생년월일: 1990.03.05", "1990.03.05"),
    ("birth_date", "1985년 7월 2일생", "1985년 7월 2일"),
    ("birth_date", "1992-04-18에 태어났다", "1992-04-18"),
]  # fmt: skip


@pytest.mark.parametrize("kind,text,value", POSITIVES)
def test_detects_each_type(kind, text, value):
    spans = find_spans(text)
    assert [(s.type, text[s.start : s.end]) for s in spans] == [(kind, value)]


NEGATIVES = [
    "임진왜란은 1592-1598년에 일어났다.",  # year range shaped like a 15xx service number
    "10조 4000억원의 예산",  # plate-shaped with a unit
    "버전 v1.2.3.4에서",  # version, not an IP
    "회의는 12:30:45에 시작",
    "ISBN 978-89-349-4246-7",
    "2019-2020 시즌",
    "당시 의도대로 3번",
    "방글라데시 충돌로 2명 사망",
    "서울 인구가 1,000만을 넘었다",
    "2003년 8월 16일 생을 마감했다.",
    "1990년 3월 5일에 개업했다.",  # a date without a birth word
    "123456-01-234567",  # account-shaped, but no bank word
    "M12345678",  # passport-shaped, but no 여권
    "11-12-345678-90",  # licence-shaped, but no 면허
    "1234567890123",  # bare 13 digits, no check digit, no context
    "`os.path.join(a, b)` 와 np.linalg.norm",
    "4111-1111-1111-1112",  # fails Luhn
]


@pytest.mark.parametrize("text", NEGATIVES)
def test_hard_negatives_are_left_alone(text):
    assert find_spans(text) == []


def test_more_specific_type_wins_card_over_account():
    text = "국민은행 계좌 4111-1111-1111-1111"
    assert [s.type for s in find_spans(text)] == ["card"]


def test_corporate_number_next_to_beopin_beats_resident_reading():
    body = "110111112345"  # 110111 is also a valid YYMMDD and 1 a sex digit
    crn = body + str(crn_check_digit(body))
    value = f"{crn[:6]}-{crn[6:]}"
    assert [s.type for s in find_spans(f"법인등록번호 {value}")] == ["crn"]
    assert [s.type for s in find_spans(f"번호 {value}")] == ["rrn"]


def test_url_swallows_inner_email_and_ip():
    text = "http://192.168.0.1/login?mail=kim@example.com"
    assert [s.type for s in find_spans(text)] == ["url"]


def test_types_filter_and_unknown_types():
    text = "연락처 010-2345-6789, 메일 kim@example.com"
    assert [s.type for s in find_spans(text, ["email"])] == ["email"]
    with pytest.raises(ValueError, match="unknown PII type"):
        resolve_types(["phonee"])


def test_registry_has_sixteen_types_with_descriptions():
    assert len(TYPES) == 16
    assert len({d.priority for d in REGISTRY.values()}) == 16  # a strict order for overlaps
    assert all(REGISTRY[t].description for t in TYPES)


def test_spans_are_sorted_and_disjoint():
    text = (
        "연락처 010-2345-6789, 메일 kim@example.com, 주소 서울특별시 강남구 테헤란로 123, "
        f"사업자 {BRN_DASHED}, 카드 4111-1111-1111-1111"
    )
    spans = Scanner().find(text)
    assert [s.type for s in spans] == ["mobile", "email", "address", "brn", "card"]
    assert all(a.end <= b.start for a, b in zip(spans, spans[1:], strict=False))


@pytest.mark.parametrize("kind,text,value", POSITIVES)
def test_no_candidate_starts_right_after_a_digit(kind, text, value):
    # the scanner checks this once for all detectors (see corpus.pii.scan._combined)
    for det in REGISTRY.values():
        if not det.after_digit:
            assert det.regex.match("7" + value, 1) is None, det.name


def test_a_bare_13_digit_account_after_a_bank_word_is_an_account():
    """The nearest label decides: a resident-number word earlier in the sentence does not."""
    text = "신청인 (주민번호 890702-2876471) 카카오뱅크 7212218676713로 입금해 주세요."
    spans = find_spans(text)
    assert [(text[s.start : s.end], s.type) for s in spans] == [
        ("890702-2876471", "rrn"),
        ("7212218676713", "bank_account"),
    ]
