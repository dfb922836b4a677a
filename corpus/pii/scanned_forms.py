"""What scanned forms and dialogues write apart from the detectors' shapes: birth labels
outside the date's sentence, and a plate's 1 misread as l or I (`OCR_ONES`).

`corpus.pii.birthdates.birth_context` reads a birth label only in the date's sentence or
on the line right above it when that line is the label alone. Three more shapes recur in
real writing, each tried (`corpus.pii.birthdates.marked_birth`) only after the mark the
birth detector already reads before the date (a cell's separator, a colon):

* a dialogue's previous turn asks for it, the next turn opens with the date after the
  speaker's name ("간호사: 생년월일 말씀해 주세요.\\n환자: 73년 8월 22일이요.");
* a table or CSV row whose header names the date's column
  ("연번,성별,생년월일,비고\\n3,여,88년 11월 26일,신규");
* a label with a note in brackets before its colon ("생년월일(6자리 말고): 81.03.17").
"""

from __future__ import annotations

import re

#: A birth label as a form, a table header or a question names it.
#: Not a celebrated birthday ("생일 축하해", "생일 파티"): that dates the party.
_LABEL = re.compile(
    r"생년월일|생일(?<![발재회위]생일)(?!\s?(?:파티|잔치|축하|기념|선물|케이크|이벤트))"
    r"|D\.?O\.?B|[Bb]irth(?!day (?:party|cake))|生年月日|出生"
)
#: The same, as `corpus.pii.birthdates.birth_record` reads a table column's header.
BIRTH_HEADER = _LABEL
#: A speaker's name and colon that opens a dialogue turn ("환자: ", "고객 : ", "A: ").
_TURN_HEAD = re.compile(r"[^\s:：]{1,8}\s?[:：]\s?")
#: How far back the previous turn may start (one spoken request).
_TURN_REACH = 80
#: The separators of a table row, in the order they are tried.
_CELL_SEPARATORS = (",", "\t", "|")
#: How many rows above a table row its header may stand.
_HEADER_ROWS = 30
#: The character before a date (a space between or not) that `birth_elsewhere` may read
#: as a birth's: a cell's separator or a colon (a label's, a speaker's).
ELSEWHERE_BEFORE = frozenset(",\t|:：")
#: A birth label, a bracketed note after it, then the colon: "생년월일(…): ".
_NOTED_LABEL = re.compile(
    r"(?:생년월일|생일|[Bb]irth(?:day| ?date)?|D\.?O\.?B)\s?\([^()\n]{1,40}\)\s?[:：]\s?$"
)

#: The last three digits of a plate where a scan misread a 1 as l or I ("34오 772l"):
#: one of them at least, and no letter after (a word "12가 34lb" is none).
OCR_ONES = r"(?=\d{0,2}[lI])[\dlI]{3}(?![A-Za-z])"


def answered_birth(text: str, s: int) -> bool:
    """True when the date at `s` opens a dialogue turn that answers a birth question.

    The date must come first in its line, right after the speaker's name ("환자: "),
    and the line before it must be a short turn that names a birth label. (A paragraph
    that opens with a date after one that mentions a birthday is an encyclopedia's.)
    """
    line = text.rfind("\n", max(0, s - 11), s) + 1
    if line == 0 or _TURN_HEAD.fullmatch(text, line, s) is None:
        return False
    before = text.rfind("\n", max(0, line - 1 - _TURN_REACH), line - 1) + 1
    if before == 0 and line - 1 > _TURN_REACH:
        return False  # the line before is longer than one spoken turn
    return _LABEL.search(text, before, line - 1) is not None


def header_cell(text: str, s: int, sep: str) -> str | None:
    """The header of the table column the cell at `s` sits in (cells split by `sep`), or None.

    The header is the nearest row above, within `_HEADER_ROWS`, that holds `sep` and no
    digit; None with no such row or one with fewer cells.
    """
    line = text.rfind("\n", 0, s) + 1
    if line == 0:
        return None
    column = text.count(sep, line, s)
    end = line - 1
    for _ in range(_HEADER_ROWS):
        start = text.rfind("\n", 0, end) + 1
        row = text[start:end]
        if sep in row and not any(c.isdigit() for c in row):
            cells = row.split(sep)
            return cells[column] if column < len(cells) else None
        if start == 0:
            return None
        end = start - 1
    return None


def column_birth(text: str, s: int, e: int) -> bool:
    """True when the date at `s:e` fills a table cell whose header names a birth label.

    The date must be a whole cell (a separator or line edge on both sides); the header
    is `header_cell`'s.
    """
    sep = text[s - 1 : s]
    if sep not in _CELL_SEPARATORS or text[e : e + 1] not in (sep, "\n", ""):
        return False
    header = header_cell(text, s, sep)
    return header is not None and _LABEL.search(header) is not None


def noted_label_birth(text: str, s: int) -> bool:
    """True when a birth label with a bracketed note before its colon precedes `s`."""
    colon = s - 1 if text[s - 1 : s] != " " else s - 2
    if colon < 1 or text[colon] not in ":：" or ")" not in text[colon - 2 : colon]:
        return False
    return _NOTED_LABEL.search(text, max(0, s - 70), s) is not None


def birth_elsewhere(text: str, s: int, e: int, mark: str) -> bool:
    """True when a form's or dialogue's label outside the date's sentence names it a birth.

    `mark`: the character before the date, a space between or not (one of
    `ELSEWHERE_BEFORE`); it picks the one or two shapes that can hold there.
    """
    if mark in ":：":
        return noted_label_birth(text, s) or answered_birth(text, s)
    return column_birth(text, s, e)
