"""Issue #24, sixth blind set: a birth date with its month and day said in numerals after a
digit year ("89년 구월 십구일", `corpus.pii.spoken_dates`).

Invented values, through the fast and the reference scan and the pseudonymiser; the digit
gate's new branch is tested against the years it must still leave alone.
"""

from __future__ import annotations

import pytest

from corpus.pii.birthdates import date_fields
from corpus.pii.generate import Pseudonymizer
from corpus.pii.generators import AGE_WINDOW_YEARS
from corpus.pii.spoken_dates import _number, as_digits, is_spoken, numeral, write_month_day
from tests.pii_checks import found_alike


def _said(month: int) -> str:
    """A month as it is said: 유월 and 시월, the others their numeral."""
    return {6: "유", 10: "시"}.get(month, numeral(month))


@pytest.mark.parametrize("n", range(1, 40))
def test_numerals_read_back_as_written(n):
    assert _number(numeral(n)) == n


@pytest.mark.parametrize(
    "value, fields",
    [
        ("89년 구월 십구일", ("89", "9", "19")),
        ("78년 시월 삼일", ("78", "10", "3")),
        ("64년 유월 이십일일", ("64", "6", "21")),
        ("71년 십이월 이십일", ("71", "12", "20")),
        ("55년 십일월 삼십일일", ("55", "11", "31")),
        ("83년 육월 십일", ("83", "6", "10")),
        ("90년도 이월 일일", ("90", "2", "1")),
        ("89년 구월", ("89", "9", "")),
    ],
)
def test_spoken_month_and_day_are_read_as_digits(value, fields):
    assert is_spoken(value)
    assert date_fields(value) == fields


def test_a_digit_month_is_not_spoken():
    assert not is_spoken("89년 9월 19일") and as_digits("89년 9월 19일") == "89년 9월 19일"


@pytest.mark.parametrize(
    "text, value",
    [
        ("생일은 87년 구월 십구일 인데 다들 양력인 줄 알아요", "87년 구월 십구일"),
        ("저는 76년 시월 삼일생입니다", "76년 시월 삼일"),
        ("생년월일: 61년 유월 이십일일", "61년 유월 이십일일"),
        ("제 생년월일은 82년 칠월생이에요", "82년 칠월"),
        (
            "상담원: 생년월일 말씀해 주세요.\n고객: 93년도 십이월 이십일이요.",
            "93년도 십이월 이십일",
        ),
        ("생년월일 69 년 사월 십팔일", "69 년 사월 십팔일"),
    ],
)
def test_a_spoken_birth_date_is_found_and_replaced_whole(text, value):
    assert found_alike(text) == [(value, "birth_date")]
    new, spans = Pseudonymizer(seed=3).apply(text)
    assert [text[s.start : s.end] for s in spans] == [value]
    assert value not in new


@pytest.mark.parametrize(
    "text",
    [
        "1990년 이후 이월 금액은 없다",  # 이월 = carried over, no birth word
        "2020년 일월 일일부터 시행한다",  # a date said in words, not a birth
        "89년 구월 십구일에 개관한 도서관",  # an event's date
        "생년월일 89년 이후로 바뀐 제도",  # a year with a birth label, no month
        "생일은 89년 구월 어느 날",  # no day, no 생 after the month
    ],
)
def test_spoken_dates_without_a_birth_are_left(text):
    assert found_alike(text) == []


@pytest.mark.parametrize(
    "text, value",
    [
        ("생년월일 89년 9월 19일", "89년 9월 19일"),  # the digit month, as before
        ("생년월일 89년도 9월 19일", "89년도 9월 19일"),
        ("1989년 구월에 이사", None),
    ],
)
def test_the_gate_branch_keeps_digit_dates(text, value):
    assert found_alike(text) == ([(value, "birth_date")] if value else [])


def test_pseudonyms_say_the_month_and_day_and_keep_the_age():
    pz = Pseudonymizer(seed=11)
    for i in range(300):
        year = 40 + i % 50
        value = f"{year}년 {_said(1 + i % 12)}월 {numeral(1 + i % 28)}일"
        new = pz.pseudonym("birth_date", value)
        assert new != value and is_spoken(new), (value, new)
        y, mo, d = date_fields(new)
        assert abs(int(y) - year) <= AGE_WINDOW_YEARS and 1 <= int(mo) <= 12 and 1 <= int(d) <= 31
        assert "0" not in new[new.index("년") :]  # the month and day stay words


def test_a_month_only_fallback_changes_the_spoken_month():
    pz = Pseudonymizer(seed=5)
    for month in range(1, 13):
        value = f"89년 {_said(month)}월"
        new = pz.pseudonym("birth_date", value)
        assert date_fields(new)[1] != str(month), (value, new)


def test_write_month_day_keeps_the_spacing():
    assert write_month_day("89년 구월 십구일", 10, 3) == "89년 시월 삼일"
    assert write_month_day("89년 구월십구일", 6, 20) == "89년 유월이십일"
    assert write_month_day("89년 구월", 2, None) == "89년 이월"
