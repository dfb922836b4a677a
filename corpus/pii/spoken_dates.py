"""Issue #24, sixth blind set: a birth date whose month and day are written as they are said.

A date read out, or typed by someone who writes as they speak, keeps its year in digits and
spells the month and the day in Sino-Korean numerals: ``89년 구월 십구일``, ``78년 시월
삼일생``, ``64년 유월 이십일일``. The birth-date detector reads this shape after its year
(`SPOKEN_MONTH_DAY`, a branch beside the digit month), so its candidate is still the year's
first digit and a text pays one character test at a ``년`` that no digit month follows.
`as_digits` turns such a value into the digit date the validator and the generator read,
and `write_month_day` writes a drawn month and day back the same way, so the pseudonym keeps
the written shape and never keeps the original month or day.

Not read: a date with no digit at all (``팔칠년 일월 이십삼일``, ``삼십육년 시월 초닷새``):
its candidate would be a common syllable (이, 일, 삼 …), searched in every text.
"""

from __future__ import annotations

import re

#: The digits 1-9 as Sino-Korean numerals.
_UNITS = "일이삼사오육칠팔구"
#: A month said in numerals: 일월 … 구월, 시월 (10), 유월 (6, also 육월), 십일월, 십이월, 십월.
_MONTH_WORD = r"십[일이]|[시유십일이삼사오육칠팔구]"
#: A day said in numerals: 일일 … 구일, 십일, 십구일, 이십일일, 삼십일일.
_DAY_WORD = r"[이삼]?십[일이삼사오육칠팔구]?|[일이삼사오육칠팔구]"
#: A month said in numerals, with its 월.
SPOKEN_MONTH = f"(?:{_MONTH_WORD})월"
#: The first syllables of `SPOKEN_MONTH`: the scan's digit gate admits a year before one.
SPOKEN_MONTH_START = "[시유십일이삼사오육칠팔구]"
#: The month and day of a spoken date, after its year and space: the day, or 생/출생 right
#: after the month (a birth given to the month: "89년 구월생").
SPOKEN_MONTH_DAY = SPOKEN_MONTH + f"(?:\\s?(?:{_DAY_WORD})일|(?=출?생))"
_SPOKEN = re.compile(f"({_MONTH_WORD})월(?:(\\s?)({_DAY_WORD})일)?")
#: Month names said otherwise than their numeral: 시월 (not 십월), 유월 (not 육월).
_SAID = {10: "시", 6: "유"}


def is_spoken(value: str) -> bool:
    """True when the month of the date `value` is a word ("89년 구월 십구일")."""
    k = value.find("월")
    return k > 0 and not value[k - 1].isdigit() and _SPOKEN.search(value) is not None


def _number(word: str) -> int:
    """The value of a Sino-Korean numeral up to 39 ("이십삼" 23, "시" 10, "유" 6)."""
    word = {"시": "십", "유": "육"}.get(word, word)
    if "십" not in word:
        return _UNITS.index(word) + 1
    tens, _, units = word.partition("십")
    return 10 * (_UNITS.index(tens) + 1 if tens else 1) + (_UNITS.index(units) + 1 if units else 0)


def numeral(n: int) -> str:
    """`n` (1-39) in Sino-Korean numerals: 1 일, 10 십, 19 십구, 23 이십삼."""
    tens, units = divmod(n, 10)
    head = ("" if tens == 1 else _UNITS[tens - 1]) + "십" if tens else ""
    return head + (_UNITS[units - 1] if units else "")


def as_digits(value: str) -> str:
    """`value` with its spoken month and day written in digits ("89년 9월 19일")."""
    return _SPOKEN.sub(
        lambda m: (
            f"{_number(m.group(1))}월"
            + (f"{m.group(2)}{_number(m.group(3))}일" if m.group(3) else "")
        ),
        value,
        count=1,
    )


def write_month_day(value: str, month: int, day: int | None) -> str:
    """`value` with its spoken month and day replaced by `month` and `day`, said the same way."""

    def said(m: re.Match) -> str:
        out = _SAID.get(month, numeral(month)) + "월"
        if m.group(3) and day is not None:
            out += m.group(2) + numeral(day) + "일"
        return out

    return _SPOKEN.sub(said, value, count=1)
