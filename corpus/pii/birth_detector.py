"""The birth-date detector's pattern and validator: when a date is someone's date of birth.

`corpus.pii.detectors` registers them (in its one place for the scan's order). The pattern
reads every shape a date of birth is written in (`BIRTH_PATTERN`); `accept_birth` keeps a
date only where its context says it is a birth: a birth word or label
(`corpus.pii.birthdates`), an encyclopedic lifespan, a register, a record's field, a
correction, or the shapes of records, scans and dialogues (`corpus.pii.birth_shapes`).
Nearly every date in running text is no birth, so each test runs only after the character
or word it needs (docs/pii.md, "Throughput").
"""

from __future__ import annotations

import re

from corpus.pii.birth_shapes import (
    NINTH_AFTER,
    NINTH_BEFORE,
    closing_dot,
    label_right_before,
    loose_shape,
    month_in_record,
    ninth_set_birth,
)
from corpus.pii.birthdates import (
    LIFESPAN_FIRST,
    RECORD_OR_CORRECTION,
    birth_context,
    birth_date_valid,
    cutoff_or_animal,
    lifespan,
    marked_birth,
    one_person_month,
    registered_birth,
    short_year,
    year_apostrophe,
    year_born,
)
from corpus.pii.spoken_dates import SPOKEN_MONTH_DAY


def accept_birth(text: str, m: re.Match, floor: int):
    """The span of the date `m` when its context makes it a date of birth, else None."""
    # the context test first: most dates in running text are not next to a birth word
    s, e = m.span()
    value = m.group()
    # "63년 9월 23일": AD 63 in a history text, unless "…일생" or 생년월일 says so (tight)
    short = text[s + 2 : s + 4].lstrip().startswith(("년", "年")) or (
        text[s + 1] in " Oo" and short_year(value)  # "6 9 년", "7O년"
    )
    before = text[s - 1 : s] if text[s - 1 : s] != " " else text[s - 2 : s - 1]
    if text[e : e + 1] == ".":
        e = closing_dot(text, value, e)  # "57. 9. 8.생"
    nxt = text[e + 1 : e + 2] if text[e : e + 1] == " " else text[e : e + 1]
    if (
        not (
            birth_context(text, s, e, tight=short)
            # each after the character or word it needs (tested here: nearly every date
            # has none, and a call costs more than the test)
            or (not short and text[e : e + 1] in LIFESPAN_FIRST and lifespan(text, s, e))
            or registered_birth(text, s, e)  # "호적엔 51년 3월 5일로 올라가 있는디"
            or ("년생" in value and year_born(text, value, e))  # "85년생 3월 7일 생일이고"
            # a record's field ("… / 66년 11월 28일 /"), a correction ("실제로는 64년 …"), a
            # table's birth column, a dialogue's answer ("환자: 73년 …")
            or (before in RECORD_OR_CORRECTION and marked_birth(text, s, e, before))
            # "홍○○(82.5.19.)", "주민번호 앞자리 950827", after a test of the marks they need
            or (
                (nxt in NINTH_AFTER or text[s - 2 : s - 1] in NINTH_BEFORE or e - s == 6)
                and ninth_set_birth(text, s, e, value)
            )
        )
        or cutoff_or_animal(text, s, e)
    ):
        return None  # "1980년 1월 1일생 이후", a cut-off; "…일생 아기 고양이", a kitten's
    # "97.O2.l4", "8 6 . 0 2 . 1 1": a birth label right before only (looked at only here,
    # after the context: a test on every date cost 0.5% of the scan)
    if (value[1:2] == " " or value[2:3] == ".") and loose_shape(value):
        if not label_right_before(text, s):
            return None
    if not birth_date_valid(value) or not (
        one_person_month(text, value, e) or month_in_record(text, s, e)
    ):
        return None
    return s - year_apostrophe(text, s, e, floor), e


#: The month after a year, with or without a calendar word between: "51년 음력 9월 18일",
#: "1951년 (양력) 3월 2일". Written as a branch on the month's first digit, so a date with
#: no calendar word (nearly all) costs one test more, not an optional group (~5% of the scan).
#: Its two digits, like the day's, may stand a space apart (voice input, OCR: "1 1월").
_CALENDAR_MONTH = r"(?:\d|[(\[]?[음양]력[)\]]?\s?윤?\d|윤\d)(?: ?\d)?+"  # a leap month: "윤4월"
#: The year of a `NN년` date as voice input, OCR and old forms write it: "80년도", the
#: letter O for 0 ("7O년"), digits a space apart ("6 9 년", not after another spaced digit);
#: and a birth year said with 생 before its month and day ("85년생 3월 7일").
_YEAR_TAIL = r"(?:\d(?:\d\d)?|[Oo]|(?<![0-9] \d) \d)\s?(?:년[도생]?|年)"  # after its first digit
#: A date of birth given to the month only, with 생 or 출생 touching it ("53년 2 월생"; the
#: hand-labelled sets leave "87년 1월 생이고 정확히는 …" to the full date that follows).
_DAY_OR_BIRTH = r"(?:\s?\d(?: ?\d)?+\s?[일日]|(?=출?생|경))"  # "…06월경" after a label

#: Every shape of a date of birth, each after one test of its first digit; the four- and
#: two-digit years' dotted, dashed and run-on shapes after one of the second.
BIRTH_PATTERN = (
    r"(?<![0-9])\d(?:" + _YEAR_TAIL + r"\s?(?:" + _CALENDAR_MONTH + r"\s?[월月]" + _DAY_OR_BIRTH
    + "|" + SPOKEN_MONTH_DAY + ")"  # "89년 구월 십구일" (corpus.pii.spoken_dates)
    + r"|\d(?:\d\d(?P<bsep>[-./])\s?\d{1,2}(?P=bsep)\s?\d{1,2}\.?"
    # corpus.pii.birth_shapes: "79 04 15", a scan's "97.O2.l4", a letter-spaced "8 6 . 0 2 . 1 1"
    r"|(?P<ssep>[-./])\d{1,2}(?P=ssep)\d{1,2}| ?\.\s?\d{1,2} ?\.\s?\d{1,2}"
    r"| [01]\d [0-3]\d|\.[\dOolI]{1,2}\.[\dOolI]{1,2}(?![A-Za-z])|\d{6}|\d{4})"
    r"| \d ?\. ?\d \d ?\. ?\d \d)(?![0-9])"
)  # fmt: skip
