"""`corpus.pii.address_rules.WordsBefore` (the words before a house number, read right to
left on demand) reads exactly the words the eager reader it replaced read.

The eager reader split all 80 characters before every number into words, left to right,
then walked them back from the number (`_eager` below, the code as it was at d9c0c15).
The lazy one splits only as far as the address rule asks. Both are compared whole and
read in part, on generated strings made of the pieces the chain rules care about (spaces,
line breaks, brackets, field separators, Hanja units, Latin) and on real corpus lines.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpus.pii.address_rules import _LEAD_PUNCT, WordsBefore, _line_joins
from corpus.pii.old_addresses import field_cut, hanja_unit
from tests.pii_checks import kowiki_numbers

_TOKEN = re.compile(r"[^\s]+")


def _eager(text: str, lo: int, s: int) -> list[list]:
    """The reader as it was: every word of text[lo:s] first, then the chain from `s`."""
    out: list[list] = []
    words = [[m.start(), m.end(), m.group()] for m in _TOKEN.finditer(text, lo, s)]
    right = s
    for w in reversed(words):
        gap = text[w[1] : right]
        if (gap.strip(" ") != "" or right - w[1] > 2) and not _line_joins(gap, w[2], right == s):
            break
        if hanja_unit(w[2]):
            out.append(w)
            right = w[0]
            continue
        cut = field_cut(w[2])
        if cut:
            w = [w[0] + cut, w[1], w[2][cut:]]
            if w[2]:
                out.append(w)
            break
        lead = _LEAD_PUNCT.match(w[2])
        if lead:
            w = [w[0] + lead.end(), w[1], w[2][lead.end() :]]
            if w[2]:
                out.append(w)
            break
        out.append(w)
        right = w[0]
    return out  # right to left, as WordsBefore.got


def _lazy_whole(text: str, lo: int, s: int) -> list[list]:
    words = WordsBefore(text, lo, s)
    assert words[s - lo + 1] is None  # past the chain's end
    return words.got


_PIECES = st.sampled_from(
    ["서울특별시", "강남구", "역삼동", "慶北", "安東市", "효자동2가", "(관청리", "주소:대구",
     "17;부산", "\"new\":\"서울", "서울,", "ABC동", "「정자동", "(", ":", "교하읍", "야당리",
     "중앙로", "3번길", "12", "4", "1-7", "가", "길", "산", "…", "살고", "있다.", "X"]
)  # fmt: skip
_GAPS = st.sampled_from([" ", "  ", "   ", "\n", " \n ", "\n\n", "\t", "\u3000", ""])


@st.composite
def _texts(draw) -> str:
    parts = draw(st.lists(st.tuples(_PIECES, _GAPS), min_size=1, max_size=12))
    return "".join(p + g for p, g in parts) + draw(st.sampled_from(["", " ", "\n"]))


@settings(max_examples=400)
@given(_texts(), st.integers(0, 40))
def test_lazy_reader_reads_the_eager_readers_words(text: str, cut: int) -> None:
    s = len(text)
    lo = max(0, s - 80 + cut)
    assert _lazy_whole(text, lo, s) == _eager(text, lo, s)


@settings(max_examples=200)
@given(_texts(), st.integers(0, 5))
def test_a_partial_read_is_the_start_of_the_whole(text: str, k: int) -> None:
    s = len(text)
    whole = _eager(text, 0, s)
    words = WordsBefore(text, 0, s)
    word = words[k]
    assert word == (whole[k] if k < len(whole) else None)
    assert words.got == whole[: len(words.got)]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("서울 강남구 역삼동 ", ["역삼동", "강남구", "서울"]),
        ("있다.\n효자동2가\n", ["효자동2가"]),  # the lot name on its own line joins the number
        ("사유지(운동동 ", ["운동동"]),  # the word after the bracket, then the chain ends
        ("慶北 安東市 법흥동 ", ["법흥동", "安東市", "慶北"]),
        ("역삼동   ", []),  # three spaces: not joined
    ],
)
def test_examples(text: str, want: list[str]) -> None:
    assert [w[2] for w in _lazy_whole(text, 0, len(text))] == want


def test_real_lines_read_the_same() -> None:
    text, numbers = kowiki_numbers("wiki_00", 400_000)
    for s in numbers:
        lo = max(0, s - 80)
        assert _lazy_whole(text, lo, s) == _eager(text, lo, s), text[lo:s]
