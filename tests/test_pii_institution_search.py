"""The institution searches before an address (`corpus.pii.institutions`) find what they found
before they were made faster.

`_INSTITUTION_BEFORE` and `_INSTITUTION_UNIT_BEFORE` now try a name that may follow other
syllables only where a run of syllables starts (`_ADDRESS_WORD_AT_RUN`), and are not
searched at all where no piece of an institution word is (`_INSTITUTION_PIECE`). Both are
compared here with the patterns as they were (`INSTITUTION_WORD`, tried at every position):
the same match, span and groups, on generated windows and on the 48 characters before every
number of real Wikipedia text.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpus.pii import institutions as inst
from tests.pii_checks import kowiki_numbers

_EVERYWHERE = inst._address_word(r"[가-힣]*")  # the words tried at every position
_OLD_BEFORE = re.compile(_EVERYWHERE + inst._INSTITUTION_SEP + r"$")
_OLD_UNIT = re.compile(_EVERYWHERE + inst._INSTITUTION_SEP + r"\([^()]{2,40}\)\s?$")
_PAIRS = [(_OLD_BEFORE, inst._INSTITUTION_BEFORE), (_OLD_UNIT, inst._INSTITUTION_UNIT_BEFORE)]


def _same(window: str) -> None:
    for old, new in _PAIRS:
        a, b = old.search(window), new.search(window)
        assert (a and (a.span(), a.groupdict())) == (b and (b.span(), b.groupdict())), window
        if a is not None:  # a match holds a piece: the searches may be skipped without one
            assert inst._INSTITUTION_PIECE.search(window), window


_PIECES = st.sampled_from(
    ["서울특별시청", "시청", "구청", "국립중앙박물관", "대학교", "본교", "청와대", "한국전력공사",
     "국민건강보험공단", "국회", "국회의사당", "KAIST", "통계청", "주소", "주소:", " 주소는 ",
     "(", ")", " ", ", ", "이전 안내: ", "대표전화 02-123-4567, ", "서울", "서울 ", "○○구 ",
     "제 ", "근처 ", "학교", "학생", "한국", "의", "관", "본관 ", "정문 ",
     "(서울 중구 세종대로 110) "]
)  # fmt: skip


@settings(max_examples=500)
@given(st.lists(_PIECES, min_size=1, max_size=10))
def test_generated_windows_match_alike(pieces: list[str]) -> None:
    _same("".join(pieces))


@pytest.mark.parametrize(
    "window",
    ["서울특별시청 주소 ", "국립중앙박물관(", "우리 학교 본교 주소: ", "대한민국국회 ",
     "한국전력공사 본사: ", "카이스트KAIST ", "어제 시청 앞 ", "시청역 근처 ",
     "(서울 관악구 관악로 1) "],
)  # fmt: skip
def test_examples_match_alike(window: str) -> None:
    _same(window)


def test_the_examples_hold_matches() -> None:
    """The comparison is not of two Nones: institution names before an address match."""
    for window in ("서울특별시청 주소 ", "대한민국국회 ", "카이스트KAIST ", "국립중앙박물관("):
        assert inst._INSTITUTION_BEFORE.search(window) is not None, window


def test_real_windows_match_alike() -> None:
    text, starts = kowiki_numbers("wiki_01", 300_000)
    for s in starts:
        _same(text[max(0, s - 48) : s])
