"""Values a text shows as examples of a form's field or of a format: detected, kept, counted.

Help text and guides fill a field with a made-up value to show how it is written: "주소 입력
예시: …", "작성 예시) 성명: 홍길동 / 연락처: 010-…", "계좌번호 입력 예: …", "(예: 900101-
1******)", "번호판은 '123가 4567'처럼 … 형식이다". Replacing such a value only garbles the
guide, so `corpus.pii.kept.public_kind` keeps it (an address as ``example_address``, any
other value as ``example_value``) when a detector has found it and one of two rules holds:

* `example_before`: a form's example marker stands before it on its line, at most
  `_WINDOW` characters back: a field word and 예시/예 with a colon or a bracket ("입력
  예시:", "작성 예시)", "기재 예:"), or a bracketed "(예:", "(예시)", "(e.g." that the value
  is still inside;
* `format_example_after`: the value is followed by a likeness word (처럼, 같이, 같은, 식의 …)
  and, in the same sentence, a word for a format (형식, 체계, 양식, 서식 …).

Neither holds with the speaker's own or a person's word between the marker and the value,
or just before a format example (`_OWN`: "(예: 제 번호는 010-…)", "제 차 12가 3456처럼 …"):
that is someone's real value given as an example. A bare "예시)" or "예:" with no field
word is no marker ("A. 예시) 경기 고양시 …처럼 적으시면 됩니다" answers with someone's
address as often as with a made-up one; a blind set labels such a value personal).

Each rule reads only a few dozen characters around a span a detector already found.
"""

from __future__ import annotations

import re

from corpus.pii.institutions import PERSON_WORD

#: A form's example marker: a field word (입력, 작성, 기재, 기입, 표기) then 예시 or 예 and a
#: colon or a closing bracket ("입력 예시:", "작성 예시)", "입력 예:"); or an opening bracket
#: then 예, 예시 or e.g. as a word ("(예: ", "(예시) ", "(e.g. "; not "(예약 문의 …)",
#: "(예정)").
_MARKER = re.compile(
    r"(?P<field>(?:입력|작성|기재|기입|표기)\s?예시?\s?[:：)])"
    r"|(?P<bracket>[(（]\s?(?:예시?(?![가-힣])|e\.g\.,?)\s?[:：)]?)"
)
#: How far back on its line the marker may stand: "작성 예시) 성명: 홍길동 / 연락처: …".
_WINDOW = 48
#: The speaker's own or a person: "제 번호", "제주소", "저의", "본인", "우리 집", a title or a
#: relative (`corpus.pii.institutions.PERSON_WORD`). "제출", "제목", "내선", "내용" are words.
_OWN = re.compile(
    r"(?<![가-힣])(?:저의|나의|본인|저희|우리"
    r"|(?:제|내)(?=\s|번호|주소|연락처|전화|휴대폰|폰|차|계좌|카드|메일|이메일|꺼|거))|"
    + PERSON_WORD
)
#: A likeness word right after the value, maybe after a closing quote: "'123가 4567'처럼",
#: "… 같은", "…와 같은", "… 식의".
_LIKE_AFTER = re.compile(r"['\"’”」』]?\s?(?:처럼|같이|[와과]\s?같은|같은|식으로|식의)")
#: A word for a format, in the same sentence after the likeness word (not 형태, "shape",
#: which an event has as well: "… 같은 번호로 온 문자는 스미싱 형태였다").
_FORMAT_WORD = re.compile(r"형식|체계|양식|서식|규격|포맷")
_SENTENCE_END = re.compile(r"[.!?\n]")
_FORMAT_WINDOW = 32
_OWN_WINDOW = 24


def example_before(text: str, start: int) -> bool:
    """True when the value at `start` follows a form's example marker on its line (`_MARKER`,
    at most `_WINDOW` characters back), still inside a bracketed one, with no speaker's own
    or person's word between (`_OWN`)."""
    lo = max(0, start - _WINDOW)
    lo = max(lo, text.rfind("\n", lo, start) + 1)
    markers = list(_MARKER.finditer(text, lo, start))
    if not markers:
        return False
    m = markers[-1]
    between = text[m.end() : start]
    if m.group("bracket") and not m.group().endswith(")") and ")" in between:
        return False  # the bracket closed before the value: "(예: 서식 참고) 제 주소 …"
    return _OWN.search(between) is None


def format_example_after(text: str, start: int, end: int) -> bool:
    """True when the value text[start:end] is followed by a likeness word (`_LIKE_AFTER`)
    and a format word in the same sentence (`_FORMAT_WORD`, within `_FORMAT_WINDOW`), and no
    speaker's own or person's word stands just before it on its line (`_OWN`)."""
    like = _LIKE_AFTER.match(text, end)
    if like is None:
        return False
    stop = _SENTENCE_END.search(text, like.end(), like.end() + _FORMAT_WINDOW)
    hi = stop.start() if stop else min(len(text), like.end() + _FORMAT_WINDOW)
    if _FORMAT_WORD.search(text, like.end(), hi) is None:
        return False
    lo = max(0, start - _OWN_WINDOW)
    lo = max(lo, text.rfind("\n", lo, start) + 1)
    return _OWN.search(text, lo, start) is None


#: Words for the grey text an empty field shows, or for a made-up value: "placeholder에
#: 'name@…'", "… 이라고 회색 글씨로", "예시 주소", "예시로 적힌" (not a bare 예시, which
#: `_MARKER` reads with its field word).
_PLACEHOLDER_WORD = re.compile(
    r"[Pp]lace ?holder|플레이스\s?홀더|(?:회색|흐린)\s?(?:글씨|글자|텍스트)|힌트\s?(?:텍스트|문구)"
    r"|예시\s?(?:주소|값|문구|메일|로|처럼)|안내\s?문구"
)
_PLACEHOLDER_WINDOW = 32


def placeholder_shown(text: str, start: int, end: int) -> bool:
    """True when an e-mail `text[start:end]` is a form's placeholder or a made-up example:
    a placeholder word (`_PLACEHOLDER_WORD`) within `_PLACEHOLDER_WINDOW` characters on its
    line, before it with no speaker's own or person's word between (`_OWN`: "제 메일은 …"
    is someone's address), or after it in its sentence ("'…'이라고 회색 글씨로 표시")."""
    lo = max(0, start - _PLACEHOLDER_WINDOW)
    lo = max(lo, text.rfind("\n", lo, start) + 1)
    before = list(_PLACEHOLDER_WORD.finditer(text, lo, start))
    if before:
        return _OWN.search(text, before[-1].end(), start) is None
    stop = _SENTENCE_END.search(text, end, end + _PLACEHOLDER_WINDOW)
    hi = stop.start() if stop else min(len(text), end + _PLACEHOLDER_WINDOW)
    if _PLACEHOLDER_WORD.search(text, end, hi) is None:
        return False
    return _OWN.search(text, lo, start) is None
