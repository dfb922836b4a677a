"""Issue #24, sixth blind set: addresses as old forms, registers, scans and data files write them.

`corpus.pii.address_rules` reads an address from its house or lot number; the sixth
blind set showed more shapes around that number, all read here after the detector
has matched it (no new candidate, no search of the whole text):

* the 통 and 반 of an old address between the neighbourhood and the lot: "효자동 12통
  3반 445번지" (the detector matched "12", the 통; the lot comes after the 반);
* 番地 for 번지, and the units in Hanja before the name, as registers and old documents
  write them: "慶北 安東市 법흥동 206番地", "本籍은 … 243番地";
* a stray space inside the lot number, a scan's or OCR's slip: "회기동 4 1-7" (the
  copy "회기동 41-7" is the same value, `corpus.pii.copies.key_of`), and the letter l
  or I read for a 1 after a 가 neighbourhood: "충무로2가 l3-7";
* an address right after a data file's field separator, which cuts the word it
  touches: "17;부산 수영구 …", "\"new\":\"서울 관악구 …\"".
"""

from __future__ import annotations

import re

#: A lot number as a scan reads it, for `corpus.pii.addresses`' core: split by a stray space
#: ("4 1-7"), or with the letter l or I for its 1 ("l3-7"); the digit that follows is the core's.
OLD_LOT = r"(?:\d{1,2} (?=\d{1,3}-\d)|[lI](?=\d))?"
#: The 통 and 반 between a neighbourhood and its lot, for `corpus.pii.addresses`' core.
TONG_BAN = r"(?P<tongban>\s?\d{1,2}\s?통\s?\d{1,2}\s?반)?"

#: The 통 and 반 of an old address, then the lot ("12통 3반 445", "9통2반 318-4").
#: The lot is not a count ("3반 12명"): 번지, a particle or no syllable follows it.
_TONG_BAN = re.compile(
    r"\s?통\s?\d{1,2}\s?반\s?((?:산\s?)?\d{1,4}(?:-\d{1,4})?)"
    r"(?![0-9])(?=\s?(?:번지|番地)|[에의은는이가로]|[^가-힣]|$)"
)
#: The rest of a lot number after a stray space: "4 1-7" (one part before the space, the
#: branch after it; a second number with no dash is too often a list or a count).
_SPLIT_LOT = re.compile(r" (\d{1,3})-\d{1,4}(?![0-9.]|-\d)")
#: A lot scanned or typed one digit at a time ("방학동 7 2 3 - 1 6", an OCR'd form): three or
#: four digits, each spaced, then a dash (spaced digits alone are a list or a count).
_SPACED_DIGITS = re.compile(r"((?: \d){2,3}) ?- ?\d(?: \d){0,3}(?![0-9.]| ?-)")
#: A lot number whose 1 is read as the letter l or I, after a 가 neighbourhood
#: ("충무로2가 l3-7"): the number starts on the letter, a digit must follow it.
_LETTER_ONE_LOT = re.compile(r"가 ([lI]\d{0,3}(?:-\d{1,4})?)(?![0-9A-Za-z])")
#: The rest of a lot number with the letter l or I for a 1 in it ("1l-7", "123-l5").
_LETTER_ONE_REST = re.compile(r"[0-9lI]{0,3}(?:-[0-9lI]{1,4})?(?![0-9A-Za-z])")
#: Units in Hanja, as a register writes them: "慶北", "安東市", "永同郡", "中區", and a
#: Hangul name with its unit in Hanja ("서울特別市", "대구市").
_HANJA_UNIT = re.compile(
    r"(?:京畿|江原|忠北|忠南|全北|全南|慶北|慶南|濟州|釜山|大邱|仁川|光州|大田|蔚山)"
    r"|[가-힣\u4e00-\u9fff]{1,5}(?:市|郡|區|道|邑|面)"
)
#: A bracket, a colon or a data file's field separator inside a word: the address's first
#: word starts after the last of them ("사유지(운동동", "주소:대구", "17;부산", "\"new\":\"서울").
_FIELD_CUT = re.compile("[(:;|,=\"'](?=[^(:;|,=\"']*.$)")


def hanja_unit(word: str) -> bool:
    """True when `word` is an administrative unit written in Hanja ("慶北", "安東市")."""
    if not ("\u4e00" <= word[0] <= "\u9fff" or word[-1] in "市郡區道邑面"):
        return False  # nearly every word: no Hanja to read
    return _HANJA_UNIT.fullmatch(word) is not None


def field_cut(word: str) -> int:
    """Where the address's part of `word` starts: after its last bracket or separator, or 0.

    A separator that ends the word does not count ("서울," is the word "서울" before a comma).
    """
    m = _FIELD_CUT.search(word)
    return m.end() if m else 0


def tong_ban_lot(text: str, e: int) -> tuple[int, int] | None:
    """(start, end) of the lot after "통 N반" when the number ending at `e` is a 통."""
    if not text.startswith("통", e) and not text.startswith(" 통", e):
        return None
    m = _TONG_BAN.match(text, e)
    return m.span(1) if m else None


def split_lot_end(text: str, num: str, e: int) -> int:
    """Where a lot number split by a stray space ends ("회기동 4 1-7"), or `e`.

    Only a one- or two-digit number with no branch, and four digits in all; or a lot read
    one digit at a time ("방학동 7 2 3 - 1 6", `_SPACED_DIGITS`).
    """
    if len(num) > 2 or not num.isdigit() or not text.startswith(" ", e):
        return e
    if len(num) == 1 and (spaced := _SPACED_DIGITS.match(text, e)):
        return spaced.end()
    m = _SPLIT_LOT.match(text, e)
    if m is None or len(num) + len(m.group(1)) > 4:
        return e
    return m.end()


def letter_one_lot(text: str, e: int) -> tuple[int, int] | None:
    """(start, end) of a lot written with l or I for 1 after the 가 ending at `e`."""
    m = _LETTER_ONE_LOT.match(text, e)
    if m is None or not any(c.isdigit() for c in m.group(1)):
        return None
    return m.span(1)


#: The branch of an old lot written with 의 ("23의5", the 지번 of old registers and letters),
#: also after a space ("467의 5 우성빌라"): then the branch is a word of its own, with no
#: counter touching it or a word after it ("23의 5배", "3의 2 이상": a share, not a lot).
_UI_BRANCH = re.compile(
    r"의(?:\d{1,4}(?![0-9])|\s\d{1,4}(?![0-9.,/%가-힣A-Za-z])(?!\s?(?:배|분|이상|이하|정도|가량)))"
)


def number_span(text: str, m: re.Match) -> tuple[int, int] | None:
    """(start, end) of the house or lot number `m` matched, read past old and scanned forms.

    "효자동 12통 3반 445" gives the lot after the 반 (the detector matched the 통); a 1가-9가
    neighbourhood ("종로5가") gives None unless a lot with l for 1 follows it ("충무로2가
    l3-7"); a lot split by a stray space ("회기동 4 1-7") is read whole, and so is an old
    lot with 의 for its dash ("창신동 23의5", "도곡동 467의 5").
    """
    s, e = m.span()
    if e - s == 1 and text.startswith("가", e):
        return letter_one_lot(text, e)  # mostly None: "종로5가", a neighbourhood
    lot = tong_ban_lot(text, e)
    if lot is not None:
        return s, lot[1]
    if text[e : e + 1] in ("l", "I") or text[e : e + 2] in ("-l", "-I"):  # "1l-7", "123-l5"
        rest = _LETTER_ONE_REST.match(text, e)
        return (s, rest.end()) if rest else None
    ui = _UI_BRANCH.match(text, e)  # "창신동 23의5": 의 for the dash of an old lot
    if ui is not None:
        return s, ui.end()
    return s, split_lot_end(text, m.group(), e)
