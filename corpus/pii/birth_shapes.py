"""Issue #24, ninth blind set: dates of birth as records, scans and dialogues write them.

`corpus.pii.birthdates` reads a date as a birth by a birth word touching it or a label
before it in its sentence. The ninth blind set's first run missed shapes that say so
otherwise, each read here after the ``birth_date`` detector matched (`corpus.pii.detectors`),
so a text with no date pays nothing:

* a date alone in brackets right after a person's masked name, a statement's or a
  report's way of giving someone's birth ("홍○○(82.5.19.)", "윤○○(남, 64. 3. 22.)");
* a solar or lunar mark before the date in a person's record ("환자명 송○○  양 89.4.30");
* the answer to a question for the birth date a little earlier ("생년월일 말씀해주세요 -
  네 조○○이고요 79 04 15 입니다"), and a six-digit date given as the front of a resident
  registration number ("주민번호 앞자리 950827");
* a birth given to the month in a person's record or bracket ("(남, 49년 04월생)",
  "남 / 86년 09월생 / 178cm") or after a birth label ("생년월일 85년 06월경");
* shapes only a scan or a letter-spaced form writes ("97.O2.l4", "8 6 . 0 2 . 1 1"): read
  only right after a birth label, as nothing else says they are dates.

Not read: a day said in Korean words ("41년 7월 열이틀"): its candidate would have to be a
common syllable (see `corpus.pii.spoken_dates`).
"""

from __future__ import annotations

import re

from corpus.pii.birthdates import PERSON_FIELD

#: A person's masked name, then the bracket the date opens, maybe after the sex:
#: "홍○○(", "윤○○(남, ", "김OO (여성, ".
_NAME_PAREN = re.compile(r"[가-힣][O○◯*＊●]{1,2}\s?\((?:(?:남|여)(?:성|자)?\s?,\s?)?$")
#: A bracket that opens with the sex and a comma, no name before it, as a medical note
#: gives the person it is about: "내원(여, 90. 1. 9.)", "환자 (남자, 57.3.2)".
_SEX_PAREN = re.compile(r"\((?:남|여)(?:성|자)?\s?,\s?$")
#: A solar or lunar mark as a word right before the date: "양 89.4.30", "(음) 57.3.2".
_CALENDAR_MARK = re.compile(r"(?<![가-힣])(?:[양음]력?|[(\[][양음]력?[)\]])\s$")
#: The last character of a `_CALENDAR_MARK`, tested before it is searched for.
NINTH_BEFORE = _MARK_LAST = frozenset("양음력)]")
#: A question for the birth date: "생년월일 말씀해주세요", "생일이 언제냐구요?",
#: "생년월일이 어떻게 되세요?", an elder's "생신 언제였지?", whether to write it ("생일만
#: 적으면 돼요?") (not "생일 파티 언제": a word between is not a particle).
_ASKED = re.compile(
    r"(?:생년월일|생일|생신)(?:이|은|을|는|도|좀|만|이랑|하고)?\s?"
    r"(?:어떻게\s?되|언제|몇\s?년|말씀해|알려\s?주|불러\s?주|적어\s?주|입력해\s?주|확인해\s?주"
    r"|확인\s?(?:좀|부탁)|(?:적으면|쓰면)\s?(?:되|돼))"  # a request, not a form's field
)
#: The date as the answer's predicate: "79 04 15 입니다", "920713 이에요", "…일이잖아",
#: "… 이렇게요?", the turn's end (not "2019년 3월 4일에 이사했어요": a date of something else
#: the answer tells).
_ANSWER_END = re.compile(
    r"\s?(?:이?요|입니다|이에요|예요|이고요|인데요|이야|임|이다|이잖아요?|이렇게요)(?![가-힣])"
    r"|[ \t]*(?:\n|$)"
)
#: The characters `_ANSWER_END` can start with (after one space), tested before it is matched.
_ANSWER_FIRST = frozenset("이요입예인임 \t\n")
#: The characters after a date (one space skipped) and before it (the one before its
#: space) that one of `ninth_set_birth`'s shapes needs: `corpus.pii.detectors` tests them
#: before it calls it, as nearly every date has neither (a six-digit one is always tried).
NINTH_AFTER = _ANSWER_FIRST | {")", ""}
#: How far before the date the question may be (one short turn of a dialogue).
_ASK_REACH = 70
#: The front six digits of a resident registration number named before a six-digit date:
#: "주민번호 앞자리 950827", "주민등록번호 앞 6자리는 그대로 010228" (one word between at most).
_RRN_FRONT = re.compile(
    r"주민(?:등록)?번호\s?앞\s?(?:자리|6\s?자리|여섯\s?자리|부분|번호)(?:는|은|가|이|로)?\s?"
    r"(?:[가-힣]{1,3}\s)?$"
)
#: A birth label right before a date (a colon and spaces between at most): what alone
#: reads a scan's or a letter-spaced form's shape as a date.
_LABEL_RIGHT_BEFORE = re.compile(
    r"(?:생\s?년\s?월\s?일|생일|D\.?O\.?B|[Bb]irth(?:day| ?date)?)\s*[:：]?\s*$"
)
#: The character after a month-only date's 생 that ends a record's field or a bracket.
_FIELD_END = frozenset(")/|")


def loose_shape(value: str) -> bool:
    """True for a date a scan or a letter-spaced form writes: "97.O2.l4", "8 6 . 0 2 . 1 1".

    "79 04 15" (two-digit fields a space apart) is not: it is read like any other date.
    """
    if value[1:2] == " ":  # "8 6 . 0 2 . 1 1" (a spaced year "6 9 년" has its 년)
        return "년" not in value and "年" not in value
    # a scan's letter ("97.O2.l4"); tested without a pattern: every date comes here
    return value[2:3] == "." and ("O" in value or "o" in value or "l" in value or "I" in value)


def label_right_before(text: str, s: int) -> bool:
    """True when a birth label stands right before the date at `s` ("생 년 월 일    ")."""
    return _LABEL_RIGHT_BEFORE.search(text, max(0, s - 24), s) is not None


def closing_dot(text: str, value: str, e: int) -> int:
    """The end of a dotted date with its closing dot ("57. 9. 8.생", "(82.5.19.)"), else `e`.

    Korean writes a dotted date with a dot after the day too; the four-digit year's
    pattern takes it, the two-digit one's leaves it for here. Not before a digit.
    """
    if text[e : e + 1] == "." and "." in value and not text[e + 1 : e + 2].isdigit():
        return e + 1
    return e


def _line(text: str, s: int, e: int) -> str:
    lo = text.rfind("\n", 0, s) + 1
    hi = text.find("\n", e)
    return text[lo : len(text) if hi < 0 else hi]


def ninth_set_birth(text: str, s: int, e: int, value: str) -> bool:
    """True when a record's, a dialogue's or a form's shape names the date `text[s:e]` a birth:
    a masked name's bracket, a calendar mark in a person's record, an answered question,
    the front of a registration number (see the module's docstring)."""
    before = text[s - 1 : s]
    if before == "(" or before == " ":
        if text[e : e + 1] == ")" and (
            _NAME_PAREN.search(text, max(0, s - 14), s) or _SEX_PAREN.search(text, max(0, s - 6), s)
        ):
            return True
        if text[s - 2 : s - 1] in _MARK_LAST and _calendar_marked(text, s, e):
            return True
    if len(value) == 6 and value.isdigit() and text.find("앞", max(0, s - 20), s) >= 0:
        if _RRN_FRONT.search(text, max(0, s - 24), s):
            return True
    return _asked(text, s, e)


def _calendar_marked(text: str, s: int, e: int) -> bool:
    """True when a solar or lunar mark stands right before `s` in a person's record line."""
    if _CALENDAR_MARK.search(text, max(0, s - 6), s) is None:
        return False
    return PERSON_FIELD.search(_line(text, s, e)) is not None


def _asked(text: str, s: int, e: int) -> bool:
    """True when a question for the birth date stands shortly before `s`, no digit between,
    and the date ends the answer (`_ANSWER_END`)."""
    after = text[e + 1 : e + 2] if text[e : e + 1] == " " else text[e : e + 1]
    if after and after not in _ANSWER_FIRST:
        return False  # nearly every date: "…일에", "…일부터", "…, "
    if _ANSWER_END.match(text, e) is None:
        return False  # "…일 이후", "…일 오후": tested before the question, which is far back
    lo = max(0, s - _ASK_REACH)
    if text.find("생", lo, s) < 0:
        return False
    asks = list(_ASKED.finditer(text, lo, s))
    return bool(asks) and not any(c.isdigit() for c in text[asks[-1].end() : s])


def month_in_record(text: str, s: int, e: int) -> bool:
    """True for a birth given to the month whose 생 ends a field of a person's record or the
    bracket after a person's name: "(남, 49년 04월생)", "남 / 86년 09월생 / 178cm".

    Not a cohort ("23년 3월생 모임", "…월생들", "3월생, 4월생"): the field must end right
    after 생 and the line or bracket name a person (`PERSON_FIELD`, `_NAME_PAREN`).
    """
    k = e + 2 if text[e : e + 1] == "출" else e + 1
    nxt = text[k + 1 : k + 2] if text[k : k + 1] == " " else text[k : k + 1]
    if nxt not in _FIELD_END:
        return False
    if nxt == ")":
        return _NAME_PAREN.search(text, max(0, s - 14), s) is not None
    return PERSON_FIELD.search(_line(text, s, e)) is not None
