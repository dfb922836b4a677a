"""No copy left behind (`corpus.pii.copies`): a number copied in another digit grouping.

Issue #24: a detected ``110-123-456789`` and a later ``1101 2345 6789`` or
``110/123/456789`` in the same record are one number with one pseudonym, though the
later alone would not be detected (no bank word near it). A number that only shares
the digits (a longer run, a group more after a dash, other digits) is not a copy. The
values are made up; the filler keeps the later occurrence out of every context window.
"""

from __future__ import annotations

import re

import pytest

from corpus.pii.copies import find_copies
from corpus.pii.generate import Pseudonymizer
from corpus.pii.scan import Scanner

PZ = Pseudonymizer(seed=24)
SCANNER = Scanner()
FAR = " 그 뒤로 한참 동안 아무런 답이 없어서 다른 곳에 다시 적어 두었는데, 그 번호는 "


def _digits(s: str) -> str:
    return re.sub(r"\D", "", s)


FIRSTS = [
    ("계좌 110-123-456789 로 보냈습니다.", "110-123-456789"),
    ("연락처: 2345-6789 입니다.", "2345-6789"),
    ("휴대폰 010-2345-6789 입니다.", "010-2345-6789"),
]
COPIES = {  # written apart from the detected value, in other groupings or joins; the last
    # of each splits both the first and the last three digits
    "110-123-456789": ["1101 2345 6789", "110123 456789", "110/123/456789", "110_123_456789",
                       "110 - 123 - 456789", "(110)123-456789", "110123456789",
                       "11 0123 4567 89"],
    "2345-6789": ["2345 6789", "23456789", "2345/6789", "234 56789", "23 456 7 89"],
    "010-2345-6789": ["0102 345 6789", "010/23456789", "010_23456789", "01 0234 567 89",
                      "0 10 2345 678 9"],  # every digit spaced, or "010/2345/6789" or
    # "010_2345_6789" (tests/test_pii_fourth_blind_forms.py), is a mobile detected alone
}  # fmt: skip


@pytest.mark.parametrize(
    ("first", "value", "copy"),
    [(f, v, c) for f, v in FIRSTS for c in COPIES[v]],
)
def test_a_regrouped_copy_gets_the_same_pseudonym(first, value, copy):
    text = first + FAR + copy + " 입니다"
    at = text.index(FAR) + len(FAR)
    assert not any(sp.start >= at for sp in SCANNER.find(text))  # alone, it is not detected
    out = PZ.apply(text)[0]
    new_copy = out[at : at + len(copy)]
    assert _digits(value) not in _digits(out[at:]), out
    assert _digits(new_copy) == _digits(PZ.pseudonym(_kind(first, value), value)), out
    assert re.sub(r"\d", "0", new_copy) == re.sub(r"\d", "0", copy), out  # its own grouping
    assert value not in out  # the first occurrence is replaced as well


def _kind(first: str, value: str) -> str:
    return next(sp.type for sp in SCANNER.find(first) if first[sp.start : sp.end] == value)


NOT_COPIES = [
    "110-123-456789-12",  # one group more, joined by a dash: another number
    "110.123.456789.5",
    "9.110.123.456789",
    "9110123456789",  # a longer run of digits
    "1101234567890",
    "110-123-456780",  # other digits
    "110-123",  # a part
    "x110123456789",  # inside a word
    "11 0123 4567 89-12",  # split both ways, and one group more after a dash
    "9.11 0123 4567 89",
    "11 0123 4567 891",
    "11 0123 4567 80",
]


@pytest.mark.parametrize("other", NOT_COPIES)
def test_a_number_that_only_shares_digits_is_not_a_copy(other):
    text = "계좌 110-123-456789 로 보냈습니다." + FAR + other + " 입니다"
    assert PZ.apply(text)[0].endswith(FAR + other + " 입니다")


def test_copies_are_looked_for_only_outside_the_detected_spans():
    text = "계좌 110-123-456789, 1101 2345 6789"
    found = [(3, 17, "bank_account", "110-123-456789")]
    assert find_copies(text, found) == [(19, 33, "bank_account", "110-123-456789", "whole")]
    assert find_copies(text, found + [(19, 33, "bank_account", "1101 2345 6789")]) == []
