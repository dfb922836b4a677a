"""Issue #24, ninth blind set: dates of birth as records, scans and dialogues write them.

Each shape the first run missed (`corpus.pii.birth_shapes`, `corpus.pii.birthdates`) is
tested with invented values in sentences of its own, through the fast and the reference
scan (`found_alike`); each rule's negatives are the dates it could swallow: a product's
date near 생, a founding date, a cohort, a lot number, a table's other date column.
"""

from __future__ import annotations

import pytest

from corpus.pii.birthdates import date_fields
from corpus.pii.generate import Pseudonymizer
from corpus.pii.validators import is_calendar_date
from tests.pii_checks import found_alike

PZ = Pseudonymizer(seed=49)

POSITIVES = [
    # a dotted date with spaces and its closing dot, 생 after the dot
    ("참고인의 부친 이○○(61. 4. 17.생)은 현재 입원 중입니다.", "61. 4. 17."),
    ("사망자 박○○(여, 72. 10. 3.생)은 당일 귀가하지 않았다", "72. 10. 3."),
    # a date alone in the bracket after a masked name
    ("다. 최○○(91.8.26.) 학생, 목격자", "91.8.26."),
    ("관련자 정○○ (남, 68.12.9) 자영업", "68.12.9"),
    # spaces before the dots too, after a label
    ("성 명 : 서○○\n생년월일 : 93 . 07 . 21\n", "93 . 07 . 21"),
    # a solar or lunar mark before the date in a person's record
    ("[진료카드] 환자명 민○○  음 76.11.2  여  재진", "76.11.2"),
    # the answer to a question for the birth date
    ("간호사 생년월일 말씀해 주세요 - 네 한○○입니다 84 02 27 이요", "84 02 27"),
    ("생일이 언제세요? 답: 920713 이에요", "920713"),
    # the front of a resident registration number
    ("네 확인할게요. 주민번호 앞자리 880914 맞으시죠", "880914"),
    # a birth given to the month, in a bracket after a name or a record's field
    ("[가출인 수배] 강○○ (여, 58년 11월생) 키 155cm", "58년 11월"),
    ("[소개] 여 / 91년 03월생 / 162cm / 회사원", "91년 03월"),
    ("피의자: 문○○ (생년월일 77년 08월경, 자세한 것은 불상)", "77년 08월"),
    # an elder's birthday said with honour, a leap month
    ("할머니 생신이 음력 38년 윤3월 9일이라 해마다 날짜가 바뀌어요", "38년 윤3월 9일"),
    ("아버님 생신이 음력 51년 6월 20일인데 올해는 양력 며칠인가요", "51년 6월 20일"),
    # year last after an English birth label
    ("Date of birth: 23/09/79 로 적으래요", "23/09/79"),
    # a scan's letters for digits, a letter-spaced form: a label right before
    ("신청인: 유○○\n생년월일: 88.l1.O6\n", "88.l1.O6"),
    ("생 년 월 일    9 0 . 1 2 . 0 5\n성        별    남", "9 0 . 1 2 . 0 5"),
]


@pytest.mark.parametrize(("text", "value"), POSITIVES)
def test_the_shape_is_read_as_a_birth(text, value):
    assert (value, "birth_date") in found_alike(text), text


@pytest.mark.parametrize(("text", "value"), POSITIVES)
def test_the_pseudonym_replaces_the_value_whole(text, value):
    new, _ = PZ.apply(text)
    assert value not in new, new
    start = text.index(value)
    assert new[:start] == text[:start], new


NEGATIVES = [
    # a scan's shape or a letter-spaced one with no birth label right before it
    "모델명 97.O2.l4 펌웨어 업데이트",
    "점수 8 6 . 0 2 . 1 1 순서로 기록",
    "LOT 21.O5.l3 생산분 회수",
    # spaced two-digit fields with no birth context
    "좌석은 12 04 15 번입니다",
    # a masked name's bracket with an event in it, a date with words after it
    "김○○(24.3.5. 퇴사) 후임 공고",
    # a calendar mark with no person in the line
    "행사는 음 24.8.15 에 열립니다",
    # a birth word that only asks for a form's field, not for the date
    "회원가입 시 생년월일 입력란이 선택 항목으로 바뀝니다(2024.3.15 시행).",
    # a question for the birth date answered with another date ("…에 이사했어요")
    "직원: 생년월일 알려 주세요 - 고객: 아 근데 24.02.11 에 개명했어요",
    # a registration number's front named, the six digits a product's code
    "주문번호 앞자리 240315 는 주문일입니다",
    # a month-only cohort, and one with a field mark but no person
    "23년 3월생 아기 모임 (24년 05월생) 환영",
    "공지 / 85년 06월생 / 동창회 명단",
    # "생신 잔치", a celebration's date; 회생신청 is no 생신
    "어머니 생신 잔치는 24년 3월 9일에 합니다",
    "개인회생신청 24년 3월 2일 접수",
    # a founding date, a production date, a live broadcast near 생
    "생산일자 21.06.17 제품은 교환 대상입니다",
    "생방송 24. 3. 2. 오후 8시",
    # a table column named otherwise than a birth
    "순번 | 성명 | 입주일\n2 | 오○○ | 23.11.20\n",
    # dd/mm/yy with no birth label, and a date that reads year first too
    "배송일 11/05/85 는 오타",
    "Date of birth: 11/05/09 (yy/mm/dd)",
]


@pytest.mark.parametrize("text", NEGATIVES[:-1])
def test_the_rule_leaves_the_date(text):
    assert [v for v, t in found_alike(text) if t == "birth_date"] == [], text


def test_a_date_that_reads_year_first_stays_year_first():
    # 11/05/09 is 2011-05-09 as Korean forms write it: the pseudonym keeps that reading
    text = NEGATIVES[-1]
    assert ("11/05/09", "birth_date") in found_alike(text)
    assert date_fields("11/05/09") == ("11", "05", "09")
    assert date_fields("23/09/79") == ("79", "09", "23")
    assert date_fields("12/25/85") == ("85", "12", "25")


def test_a_table_row_under_a_birth_header_is_still_a_birth():
    text = "순번 | 성명 | 생년월일\n2 | 오○○ | 83.11.20\n"
    assert ("83.11.20", "birth_date") in found_alike(text)


def test_a_day_first_pseudonym_keeps_its_order():
    new, _ = PZ.apply("Date of birth: 23/09/79 로 적으래요")
    value = new.split(": ")[1].split(" ")[0]
    day, month, year = value.split("/")
    assert value != "23/09/79", new
    assert is_calendar_date(1900 + int(year), int(month), int(day)), new


def test_the_label_prefilter_names_every_first_character_of_a_birth_label():
    """`birth_context` searches for a birth label only where 생 or one of
    `_LABEL_OTHER_FIRST`'s characters is: every alternative of `_BIRTH_LABEL` must start
    with one of them, or a label would be skipped."""
    import re._parser as sre_parse

    from corpus.pii import birthdates

    (op, av), *_ = sre_parse.parse(birthdates._BIRTH_LABEL.pattern)
    assert op is sre_parse.BRANCH
    firsts = set()
    for branch in av[1]:
        first_op, first_av = branch[0]
        if first_op is sre_parse.LITERAL:
            firsts.add(chr(first_av))
        else:
            assert first_op is sre_parse.IN, branch
            firsts |= {chr(v) for kind, v in first_av if kind is sre_parse.LITERAL}
            assert all(kind is sre_parse.LITERAL for kind, _ in first_av), branch
    allowed = {"생"} | set(birthdates._LABEL_OTHER_FIRST.pattern.strip("[]"))
    assert firsts <= allowed, firsts - allowed
    # and a label the prefilter would skip were it wrong is found: one per first character
    for text in ("생년월일 1990년 3월 5일", "DOB 1990년 3월 5일", "dob: 1990년 3월 5일",
                 "Born 1990년 3월 5일", "birth 1990년 3월 5일", "生年月日 1990년 3월 5일",
                 "出生 1990년 3월 5일"):  # fmt: skip
        assert birthdates.birth_context(text, text.index("1990"), len(text)), text
