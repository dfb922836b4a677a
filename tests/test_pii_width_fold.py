"""A text is folded (`corpus.pii.width.fold`) only where a full-width form can be part of a
value (`WIDE_FOLD`): a full-width digit or "＠", or a "－"/"＋" next to a digit. Korean
Wikipedia writes "－" and "＋" between words, where folding changes nothing; the fast scan
then reads such a text once, not twice. These tests check both sides of the rule and that
the fast scan still gives the reference scan's spans on texts mixing the forms.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corpus.pii.generate import Pseudonymizer
from corpus.pii.scan import Scanner
from corpus.pii.width import needs_fold

FAST, PLAIN = Scanner(), Scanner(fast=False)

NOT_FOLDED = ["어휘 －느리다, －빠르다", "의석 ＋비례대표", "A －to B", "맛 ＋ 인기", "－淸商－"]
FOLDED = [
    "전화 ０１０－２７４０－６８１５",
    "전화 010－2740－6815",  # ASCII digits, full-width dashes
    "전화 010 － 2740 － 6815",  # spaced
    "국제 ＋82 10-2740-6815",
    "메일 minji＠naver.com",
    "번호 3 － 인",  # a dash after a digit: folded, whatever follows
]


@pytest.mark.parametrize("text", NOT_FOLDED)
def test_a_dash_between_words_is_not_folded(text):
    assert not needs_fold(text)
    assert FAST.find_folded(text)[0] == text
    assert FAST.find_checked(text)[2] is True  # read through by the first pass


@pytest.mark.parametrize("text", FOLDED)
def test_a_full_width_form_by_a_digit_is_folded(text):
    assert needs_fold(text)
    assert FAST.find_folded(text) == PLAIN.find_folded(text)


@pytest.mark.parametrize(
    "text,kind",
    [("연락처 010 － 2740 － 6815 로", "mobile"), ("연락처 010－2740－6815 로", "mobile"),
     ("메일 minji＠naver.com 으로", "email"), ("국제전화 ＋82 10-2740-6815 로", "mobile")],
)  # fmt: skip
def test_values_with_full_width_dashes_are_replaced(text, kind):
    new, spans = Pseudonymizer(seed=7).apply(text)
    assert [s.type for s in spans] and new != text
    assert "2740" not in new and "minji" not in new


PIECES = st.sampled_from(
    ["－", "＋", "０", "１", "＠", "010", "2740", "6815", "82", " ", "-", "느리다", "비례",
     "to", "naver.com", "minji", "1990년 3월 1일", "(", ")", "~", "\n", "전화", "생"]
)  # fmt: skip


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(PIECES, max_size=20).map("".join))
def test_fast_and_reference_scans_agree(text):
    assert FAST.find_folded(text) == PLAIN.find_folded(text), text
