"""Phone numbers: the patterns and validators of the ``mobile`` and ``phone`` detectors.

Mobile numbers (010/011/016-019, +82, 0082, every digit spaced, read out in Korean, O
for 0, odd separators), landlines (area codes, VoIP, 050x/080), 15xx/16xx/18xx service
numbers, labelled local numbers and foreign numbers (+, (+1), 00 and carrier prefixes,
North American). `corpus.pii.detectors` registers the two detectors with the patterns
built here, in its one registration order; `foreign_number` also tells
`corpus.pii.generate` which numbers are never kept as public.
"""

from __future__ import annotations

import re

from corpus.pii.detector_base import DASH, NA, context_rx, match_span, nb, near
from corpus.pii.validators import DASH_LOOKALIKES, DASHES, digits_of
from corpus.pii.written_shapes import (
    BRACKETED_MIDDLE,
    CARRIER_DIALLED,
    DASH_OR_SPACE,
    EMOJI_SEP,
    KOREAN_DIGITS,
    MIXED_WORD_MOBILE,
    MOBILE_HIDING_SEP,
    european_pairs,
    trailing_pairs,
)

# 4. mobile phone ---------------------------------------------------------------------------

#: Between the groups of a phone number: a dash or dot, spaces around it or not, or a space.
_GROUP_SEP = rf"(?:\s?[{DASHES}{DASH_LOOKALIKES}.]\s?|\s)"
#: Between the groups of a number read out in Korean: also the particle 에 ("공일공에 …"),
#: a comma as a reader pauses ("공일공, 삼삼팔칠, …") and 다시, the dash read out
#: ("영일영 다시 팔육오공 다시 …").
_WORD_SEP = rf"(?:\s?[{DASHES}{DASH_LOOKALIKES},]\s?|\s?에\s?|\s다시\s|\s)"
_KD = f"[{KOREAN_DIGITS}]"
#: A digit as written in a number read out in Korean: a word, or an ASCII digit mixed in
#: ("공1공-7783-4219").
_DW = f"[0-9{KOREAN_DIGITS}]"
#: The head of a mobile number read out: 0 as "공" or "영", then "일" or "1", then the third
#: digit ("공일공", "영일영", "공1공", "영일칠"); not inside a word ("영일만" has no third digit).
_WORD_MOBILE_HEAD = r"[공영](?<![가-힣][공영])[일1][공영일육륙칠팔구016789]"
#: The head of a landline read out: "공이"/"영이" (02), "공삼일" (031) ... "공칠공" (070).
#: "공이" and "영이" are words (a ball, a name), so the groups after it must be
#: separated (`_WORD_LANDLINE`).
_WORD_AREA_HEAD = r"[공영](?<![가-힣][공영])(?:이|[삼사오육][일이삼사오]|칠[공영])"
#: What every number read out in Korean starts with; the scan's hint for them
#: (`corpus.pii.scan`), so it must hold wherever `_WORD_MOBILE` or `_WORD_LANDLINE` does.
#: These patterns put their literal before their lookbehind: most candidates fail on it.
WORD_PHONE_HINT = (
    r"[공영](?<![가-힣][공영])(?:[일1][공영일육륙칠팔구016789]|이|[삼사오육][일이삼사오]|칠[공영])"
    + _WORD_SEP
    + f"?{_DW}{{3}}"
)
_WORD_MOBILE = _WORD_MOBILE_HEAD + _WORD_SEP + f"?{_DW}{{3,4}}" + _WORD_SEP + f"?{_DW}{{4}}"
_WORD_LANDLINE = _WORD_AREA_HEAD + DASH_OR_SPACE + f"{_DW}{{3,4}}" + DASH_OR_SPACE + f"{_DW}{{4}}"
#: The capital letter O or small o typed for 0 ("O1O-6243-8851", "o1o 2847 6619", "O7O-…"),
#: before a separated number: not after a letter or digit (a model code "XO1O").
_O_FOR_ZERO = r"[Oo](?<![0-9A-Za-z_/" + DASHES + r"][Oo])"
#: A digit of a number in which O is typed for 0 ("010 8823 4O19", "O1O-88O3-4419"),
#: and where a scan misread 1 as l or I ("O1O-5523-l874", "010-9264-3OI7").
_OD = "[0-9OolI]"
#: The groups after a mobile or area prefix written in digits, with O for 0 (or l, I for 1)
#: in one of them ("010 8823 4O19", "031-7O9-2254", "010-9264-3OI7"): separated (a run
#: "7O92254" is a code), the letter inside the groups, and no letter or digit after (a
#: model "A7O0" has no prefix).
_O_GROUPS = (
    r"(?=.{1,12}?[OolI])"
    + _GROUP_SEP
    + "[1-9]"
    + _OD
    + "{2,3}"
    + _GROUP_SEP
    + _OD
    + "{4}(?![0-9A-Za-z])"
)
#: Separators of a mobile number other than dashes, dots and spaces, the same twice:
#: "010~6634~1720", "010/2839/4410", "010ㆍ3829ㆍ7761" (the Hangul middle dot, "·", "•").
#: Only after a mobile prefix: "3~5", "2010/12/31" and "가ㆍ나" have none.
_MOBILE_ODD_SEP = "~/\u318d\u00b7\u2022" + MOBILE_HIDING_SEP

#: Korea's country code in international form: "+82", "0082" (the "00" international
#: prefix dialled abroad, also written apart: "00 82", "00-82"), "(+82) " in brackets;
#: "+ 82" with a space after its plus, as a form's spaced line writes it ("+ 82 - 10 - …"),
#: not after a number and a space (a sum: "3 + 82 - 10"); a spaced dash after it.
KR_CODE = (
    r"(?:(?:\+(?<![0-9]\+)(?:82| 82(?<![0-9)] \+ 82))"
    r"|00(?:82(?<![0-9]0082)|[-. ]82(?<![0-9]00.82)))(?:\s?[-.]\s?|\s)?|\(\+82\)\s?)"
)
#: Korea's code at the start of a number: "+82", "+ 82".
KOREAN_PLUS = re.compile(r"\+ ?82")
#: The head of `KR_CODE`'s "00" forms, for the code that reads a value back.
KR_DIALLED = re.compile(r"00[-. ]?82")
#: A mobile number with every digit spaced: "0 1 0 - 2 9 4 8 - 1 1 7 6", "0 1 0 2 9 4 8 …".
_SPACED_SEP = rf"(?: [{DASHES}{DASH_LOOKALIKES}.] | )"
_SPACED_MOBILE = (
    # the literal first, the lookbehinds after it: most candidates fail on the first "0 1 "
    r"0 1 [016789](?<![0-9A-Za-z_/"
    + DASHES
    + r"]0 1 .)(?<![0-9A-Za-z] 0 1 .)"
    + _SPACED_SEP
    + r"[1-9](?: \d){2,3}"
    + _SPACED_SEP
    + r"\d(?: \d){3}(?!\s?[0-9])"
)

#: A mobile number whose groups a scan or a typist broke with stray spaces: dashes between
#: its groups, a space inside them ("010-38 42-1 975"), or every digit after the prefix
#: spaced ("010 8 3 9 2 6 1 4 7"). Tried last, after the regular shapes; a number only
#: regrouped ("0102 345 6789") is none of these (`corpus.pii.copies` finds it as a copy).
_OCR_SPACED_MOBILE = (
    rf"1[016789](?:\s?[{DASHES}]\s?[1-9](?: ?\d){{2,3}}\s?[{DASHES}]\s?\d(?: ?\d){{3}}"
    r"| [1-9](?: \d){7})(?! ?\d)"
)
#: The mobile detector's pattern (registered in `corpus.pii.detectors`).
MOBILE_PATTERN = (
    r"(?:" + KR_CODE + r"(?:\(0\)|0)?1[016789]|" + nb("8") + r"2[-. ]1[016789]|"
    + nb(r"\(") + r"01[016789]\)|" + nb("0") + r"1[016789])"
    r"(?:" + _GROUP_SEP + r"|\s?\)\s?)?[1-9]\d{2,3}" + _GROUP_SEP + r"?\d{4}" + NA
    + r"|" + _SPACED_MOBILE
    + r"|" + _WORD_MOBILE
    + r"|" + _O_FOR_ZERO + r"1[Oo016789](?:" + _GROUP_SEP + r")?[1-9]" + _OD + "{2,3}"
    + _GROUP_SEP + "?" + _OD + "{4}" + NA
    + r"|" + nb("0") + r"1[016789]" + _O_GROUPS
    # the letter O for the 0 of the prefix itself: "01O-7731-25O9"
    + r"|" + nb("0") + r"1[Oo]" + _GROUP_SEP + "[1-9]" + _OD + "{2,3}" + _GROUP_SEP + _OD
    + "{4}(?![0-9A-Za-z])"
    + r"|" + nb("0") + MIXED_WORD_MOBILE  # "010-칠칠일구-3305"
    + r"|01[016789](?<![0-9A-Za-z_/" + DASHES + r"]01.)"
    + r"(?P<msep>\s?[" + _MOBILE_ODD_SEP + EMOJI_SEP + r"]\ufe0f?\s?)[1-9]\d{2,3}(?P=msep)\d{4}"
    + NA + r"|" + nb("0") + BRACKETED_MIDDLE
    + r"|" + nb("0") + _OCR_SPACED_MOBILE
)  # fmt: skip
#: Its description.
MOBILE_DESCRIPTION = (
    "mobile phone number (010/011/016-019, +82, 0082, (+82), 82-10; every digit spaced; "
    "also read out: 공일공 …, 영일영 …, 공일공에 …; O for 0: O1O-…; 010~…~…, 010/…/…)"
)

# 5. landline, VoIP and service numbers -----------------------------------------------------

#: An area code after its leading 0 (02, 031-064, 070, 050x, 080).
_AREA_TAIL = r"(?:2|3[1-3]|4[1-4]|5[1-5]|6[1-4]|70|50[2-8]?|80)"
_AREA = "0" + _AREA_TAIL
_SERVICE_PREFIXES = frozenset(
    "1522 1544 1566 1577 1588 1599 1600 1644 1661 1666 1670 1688 1800 1811 1833 1855 1877 "
    "1899".split()
)
_PHONE_CONTEXT = context_rx(
    r"전화|문의처|연락|상담|민원|고객센터|콜센터|대표번호|☎|[Tt][Ee][Ll]|팩스|[Ff][Aa][Xx]"
)
#: A label right before a local number written without its area code ("연락처: 2345-6789").
_PHONE_LABEL = re.compile(
    r"(?:전화|연락처|연락|휴대폰|핸드폰|폰|☎|[Tt][Ee][Ll]|팩스|전송|[Ff][Aa][Xx])\s?(?:번호)?"
    r"\s?(?:[:：.)]|은|는|:\s?\(?)?\s?$"
)


#: Near a landline read out with spaces only: "공이 사이사이 구이구이" is words (a ball,
#: "between", grilled), "가게 번호는 공이 오칠삼 팔팔이일" a number.
_SAID_PHONE_CONTEXT = context_rx(_PHONE_CONTEXT.pattern + r"|번호|연락|폰|문자|가게")


#: After a service number's eight digits, a dash and more digits: one longer number.
_LONGER_NUMBER = re.compile(rf"[{DASHES}]\d")


def _accept_phone(text: str, m: re.Match, floor: int):
    value = m.group()
    s, e = match_span(m)
    if value[0] in "공영" and not re.search(f"[{DASHES}{DASH_LOOKALIKES}]", value):
        return (s, e) if near(text, s, e, _SAID_PHONE_CONTEXT) else None
    if "2" <= value[0] <= "9":  # a local number without area code: only right after a label
        return (s, e) if _PHONE_LABEL.search(text, max(0, s - 12), s) else None
    if value[0] == "1":  # 15xx-xxxx service number: listed prefixes, or a phone word nearby
        if _LONGER_NUMBER.match(text, e):  # 1658-8645-7867-1: the head of an account
            return None
        second = int(digits_of(value)[4:])
        year_like = 1000 <= second <= 2100 and second > int(value[:4])
        suspicious = year_like or text.startswith("년", e) or value[:4] not in _SERVICE_PREFIXES
        if suspicious and not near(text, s, e, _PHONE_CONTEXT):
            return None
    return s, e


#: A foreign number in international form: "+1 (555) 123-4567", "+44 20 7946 0958",
#: "+44 7700 900461", "+49 30 12345678", "+33 6 12 34 56 78".
#: Also with the digits right after the bracket: the trunk "0" people dial at home
#: ("+44 (0)7911 482 665", "+33 (0)1 42 68 53 09"), an area code ("+1(415)392-7781").
_INTERNATIONAL = (
    r"\+(?<![0-9A-Za-z]\+)(?!82)[1-9]\d{0,2}(?:[ .\-]?\(\d{1,4}\))?(?:(?: ?-)?[ .\-]\d{1,8}){2,5}"
    r"(?![0-9]|[.,]\d)|\+(?<![0-9A-Za-z]\+)(?!82)[1-9]\d{7,14}(?![0-9])"
    r"|\+(?<![0-9A-Za-z]\+)(?!82)[1-9]\d{0,2}[ .\-]?\(\d{1,4}\)\s?\d{1,8}(?:[ .\-]\d{1,8}){1,5}"
    r"(?![0-9]|[.,]\d)"
)
#: The same with the country code in brackets, "(+1) 310-555-0142", or after the "00"
#: international prefix (or a Korean carrier's 001/002/005/006/00700): "0044 20 7946 0958",
#: "001-1-310-555-0142" (this one only near a phone word: `_accept_foreign`).
_INTERNATIONAL_WRITTEN = (
    r"\(\+(?<![0-9A-Za-z]\(\+)(?!82\))[1-9]\d{0,2}\)[ .\-]?\d{1,8}(?:[ .\-]\d{1,8}){1,4}"
    r"(?![0-9]|[.,]\d)"
    r"|00(?<![0-9A-Za-z]00)(?:[1256]|700)?[ .\-]?(?!82)[1-9]\d{0,2}(?:[ .\-]\d{1,8}){2,5}"
    r"(?![0-9]|[.,]\d)"
)
#: A North American number written with its "1" and no plus: "1-310-555-0142",
#: "1 (310) 555-0142" (area code and exchange never start with 0 or 1).
_NANP = (
    r"1(?<![0-9A-Za-z+\-.]1)(?:-[2-9]\d{2}-|\s?\([2-9]\d{2}\)\s?)[2-9]\d{2}-\d{4}"
    r"(?![0-9]|[-.]\d)"
)


#: The "00" international prefix (or a carrier's 001/002/005/006/00700) before a country code.
_DIAL_PREFIX = re.compile(r"^00(?:[1256](?=[ .\-])|700)?")
#: A trunk "0" in brackets ("+44 (0)7911 …"): dialled at home only, not a digit of the number.
_TRUNK = "(0)"
#: Two-digit country codes (ITU-T E.164), and the three-digit ones of Korea's neighbours.
#: "00" then one of these and a separator ("0086-139-…", "0049 176 …") may be a number
#: dialled abroad (a serial's "0012 …" or "0037 …" names no country) ...
DIALLED_COUNTRY = re.compile(
    r"00[ .\-]?(?:2[07]|3[0-469]|4[013-9]|5[1-8]|6[0-6]|8[146]|9[0-58]|85[2356]|886)[ .\-]"
)
#: ... and is one when a country or "abroad" is named near it ("중국에서 쓰는 번호는 0086-…",
#: "독일 번호 0049 …"): without a phone word or one of these, "제품 0044 20 …" is a serial.
_ABROAD_CONTEXT = context_rx(
    r"해외|국제|외국|현지|중국|일본|미국|영국|독일|프랑스|호주|캐나다|베트남|태국|필리핀"
    r"|러시아|이탈리아|스페인|인도|홍콩|대만|싱가포르|말레이시아|뉴질랜드|브라질|멕시코"
    # the cities a relative or a friend abroad is named by ("도쿄 친척집 00 81 3 …")
    r"|도쿄|오사카|후쿠오카|베이징|상하이|칭다오|뉴욕|시애틀|런던|파리|베를린|시드니|토론토|밴쿠버"
    r"|하노이|호치민|방콕|마닐라|[Ll][Aa](?![A-Za-z])|로스앤젤레스|샌프란시스코|하와이"
)


def foreign_number(value: str) -> bool:
    """True when a phone span is a foreign number: "+1 …", "(+44) …", "0044 …", "1-310-…"."""
    head = value.lstrip("(")
    if head.startswith("+"):
        return KOREAN_PLUS.match(head) is None
    if head.startswith("00"):
        return KR_DIALLED.match(head) is None
    return head.startswith("1") and len(digits_of(value)) == 11


def accept_any_phone(text: str, m: re.Match, floor: int):
    """The landline detector's validator: a foreign number by its groups and context, any
    other by `_accept_phone`."""
    value = m.group()
    if not foreign_number(value):
        return _accept_phone(text, m, floor)
    s, e = match_span(m)
    dialled = DIALLED_COUNTRY.match(value) or CARRIER_DIALLED.match(value)
    abroad = dialled is not None and near(text, s, e, _ABROAD_CONTEXT)
    if value.startswith("00") and not (abroad or near(text, s, e, _PHONE_CONTEXT)):
        return None  # "0012 3456 7890" is as often a serial as a number dialled abroad
    if value[0] == "1":
        return match_span(m)  # a North American number: its shape was checked by the pattern
    groups = re.findall(r"\d+", _DIAL_PREFIX.sub("", value).replace(_TRUNK, ""))
    # a short last group ends a list of scores ("+10 20 30"), except in the pairs of a French
    # number: a one-digit group after the country code, then four pairs ("+33 6 12 34 56 78")
    pairs = len(groups) == 6 and len(groups[1]) == 1 and all(len(g) == 2 for g in groups[2:])
    pairs = pairs or trailing_pairs(groups)
    # "+34 612 34 56 78": Europe's pairs, with a phone or an abroad word near (not a score list)
    if not pairs and european_pairs(groups):
        pairs = near(text, s, e, _SAID_PHONE_CONTEXT) or near(text, s, e, _ABROAD_CONTEXT)
    if not 8 <= sum(map(len, groups)) <= 15 or (len(groups[-1]) < 3 and not pairs):
        return None
    return match_span(m)


#: The landline detector's pattern (registered in `corpus.pii.detectors`).
PHONE_PATTERN = (
    r"(?:" + KR_CODE + r"(?:\(0\)|0)?(?:2|[3-6][1-5]|70)|"
    + nb(r"\(") + _AREA + r"\)|" + nb("0") + _AREA_TAIL + r")"
    r"(?:" + _GROUP_SEP + r"|\s?\)\s?)?[1-9]\d{2,3}" + _GROUP_SEP + r"?\d{4}" + NA
    + r"|" + nb("1") + rf"(?:5[2-9]|6[0-9]|8[0-9])\d[{DASHES}. ]\d{{4}}" + NA
    + r"|" + nb("[2-9]") + rf"\d{{2,3}}{DASH}\d{{4}}" + NA + "|" + _INTERNATIONAL
    + "|" + _INTERNATIONAL_WRITTEN + "|" + _NANP
    + "|" + _WORD_LANDLINE
    + r"|" + _O_FOR_ZERO + r"7[Oo0](?:" + _GROUP_SEP + r")?[1-9]" + _OD + "{2,3}"
    + _GROUP_SEP + "?" + _OD + "{4}" + NA
    + r"|" + nb("0") + _AREA_TAIL + _O_GROUPS
)  # fmt: skip
#: Its description.
PHONE_DESCRIPTION = (
    "landline, VoIP (070), 050x/080, 15xx/16xx/18xx service numbers (kept, counted apart); "
    "a labelled local number; a foreign number in +, (+1), 00 form or 1-310-555-0142"
)
