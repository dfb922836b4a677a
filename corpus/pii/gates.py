"""The cheap gates of the scan's combined pattern (`corpus.pii.scan._combined`): what must
hold after a candidate character before the full alternation of the detectors is tried.

A gate is a necessary condition for every detector that can start on its character, never
a sufficient one: the alternation decides. Nearly every digit, Latin word and bracket of a
text fails its gate at once, so most of the scan's cost is here and in the character class
before it (docs/pii.md, "Throughput"). tests/test_pii_fastpath.py checks that the fast scan
finds the same spans as the straightforward one, which has no gates.
"""

from __future__ import annotations

from corpus.pii.plates import PLATE_LETTERS
from corpus.pii.spoken_dates import SPOKEN_MONTH_START
from corpus.pii.validators import DASH_LOOKALIKES, DASHES
from corpus.pii.written_shapes import (
    EMOJI_SEP,
    HASH_AT,
    LETTER_SPACED_GATE,
    MIXED_WORD_GATE,
    MOBILE_HIDING_SEP,
    OPEN_BRACKETS,
)

#: Where a digit-led candidate can start. Every digit-led pattern consumes the whole run
#: of digits (``\d``, so any Unicode digit after the first) it starts on: each digit group
#: is followed by a separator or by a "no digit follows" lookahead. So at the start of a
#: run of length L, one of these holds:
#:   L >= 5 (resident, corporate, card, account, 6/8-digit dates, bare phones): the
#:   possessive ``\d{0,3}+`` below (after the first digit) is then followed by a digit;
#:   L <= 4 and the run goes on, after an optional space, an optional separator
#:   (``./)``, a dash, ``년``, ``동`` or a plate syllable) and another optional space,
#:   with a digit (``302동 1102호``, ``02–345–6789`` with an en dash too):
#:   IPv4 ``1.``, phones ``02-``/``(02)``/``010)``, ``1588-``, ``123-45-``, ``1234 5678``,
#:   ``12-34``, ``1990년 3월``, ``1990. 3.``, ``12가 3456``, account ``123-``; the dash
#:   may be a look-alike (``010ㅡ1234``, `DASH_LOOKALIKES`), the separator a bracket
#:   (``1 (310) 555-0142``);
#:   (but not a year and month with no day, 생 or 경 after them, ``1990년 3월에``: only a
#:   date of birth reads a year, and it needs one of them);
#:   or a year with a calendar word before its month (``51년 음력 9월``, ``1951년 (양력) 3월``),
#:   or with ``도`` (``80년도 5월``); the run may hold the letter O for 0 (``7O년 4월``);
#:   or it is a house number right after ``로/길/동/리/가`` (address), or after ``산``
#:   there, touching or spaced (a mountain lot, ``후리 산53``, ``우두리 산 128``), or on
#:   the next line (``효자동2가\n1189-6``);
#:   or a mobile prefix before a group read out in Korean (``010-칠칠일구-…``).
#: A ``(`` starts a candidate only before ``0`` or ``+`` (``(02)``, ``(010)``, ``(+82)``).
#: A new digit-led detector must keep this true (tests/test_pii_fastpath.py checks it).
#:
#: The gate is matched from the character after the candidate digit (the scan's pattern has
#: matched the digit itself, so `re` skips the gate for any other character without
#: trying it): a lookbehind here ends with that digit (``[0-9]``). A new alternative is
#: written the same way: ``(?<=X)`` at the candidate becomes ``(?<=X[0-9])``, and a
#: pattern ``P`` that starts on the digit becomes ``P`` without its first digit. Every
#: optional item is possessive (``?+``): the separator class holds no space and no digit,
#: so giving back what it took can never let the rest match (and a failing candidate,
#: nearly all, is not tried eight ways).
DIGIT_GATE = (
    # the calendar word as a branch after the common prefix: one test for most candidates
    r"[\dOo]{0,3}+\s?+"
    # a year and month with no day, 생 or 경 after them ("1990년 3월에"): no date of birth,
    # and no other detector reads a year (without this, ~3,000 such per 16 MB of kowiki
    # passed the gate and had every detector's pattern tried)
    r"(?![년年]\s?+\d(?: ?\d)?+\s?[월月](?!\s?\d|\s?출?생|경))"
    r"[./()년年동"
    + DASHES
    + DASH_LOOKALIKES
    + PLATE_LETTERS
    + r"~\u318d\u00b7\u2022"
    + MOBILE_HIDING_SEP
    + EMOJI_SEP  # "010🐶3158🐶7742", a variation selector after it or not
    # a dash after a plate's syllable ("33러-9012"): the class holds the dash, so it is apart
    + r"]?+\ufe0f?+\s?+-?+(?:\d|[(\[]?[음양]력|생\s?\d|도\s?(?:\d|"  # "85년생 3월", "80년도 5월"
    # a month said in numerals after the year ("89년 구월 십구일", corpus.pii.spoken_dates):
    # its first syllable, a look back for 년, then 월 (without the 월, "1990년 이후" and the
    # like passed the gate and cost 4% of the scan; as written, nothing measurable)
    + SPOKEN_MONTH_START
    + r"[일이]?월)|윤\d|[OolI][\dOolI]|"  # a leap month "53년 윤4월", a scan's "97.O2.l4"
    + SPOKEN_MONTH_START
    + r"(?:(?<=[년年].)|(?<=[년年]\s.))[일이]?월)"
    + "|"
    + MIXED_WORD_GATE  # "010-칠칠일구-3305"
    # what the digit may follow, tested once (most digits follow none of these), then: a
    # house number after 로/길/동/리/가, touching, spaced, on the next line, or after 산
    + r"|(?<=[로길동리가산 \n][0-9])(?:(?<=[로길동리가][0-9])|(?<=[로길동리가][ \n][0-9])"
    r"|(?<=[로길동리가] 산[0-9])|(?<=[로길동리가] 산 [0-9])"
    # an old motorbike plate's digits after its syllable, a word of its own: "서울강서 가 3419"
     + r"|(?<= [" + PLATE_LETTERS + r"] [0-9])[0-9]{3})"
)


#: Where a letter-led candidate can start: the start of an e-mail local part followed by
#: ``@``, a URL scheme or ``www.``, or a passport number's letters and first digit. (A bare
#: host, ``abc.go.kr``, starts its candidate on the dot before ``go.kr``.)
LETTER_GATES = {
    "email": r"(?<![A-Za-z0-9._%+\-])[A-Za-z0-9._%+\-]{1,64}+@",
    "url": r"(?:https?|ftp)://|www\.",
    "passport": r"[A-Z][A-Z]?\d",
    "mobile": r"[Oo]1",  # the letter O for 0: "O1O-6243-8851"
    "phone": r"[Oo]7",  # "O7O-8123-4409"
}
#: `LETTER_GATES`' e-mail gate as the digit gate reads it, after the candidate digit
#: (a local part that starts with a digit, "1234abc@").
DIGIT_EMAIL_GATE = r"(?<![A-Za-z0-9._%+\-][0-9])[A-Za-z0-9._%+\-]{0,63}+@"
#: Candidate characters that no gate lets through, told by the character before them
#: (one lookbehind, so most of them cost no gate at all): a digit after a digit, a letter
#: after a letter or digit (the digit and letter gates start no candidate there), and in
#: the first pass "공"/"영" after a syllable (its only gate, `WORD_PHONE_HINT`, says so).
REJECT = r"[0-9][0-9]|[A-Za-z0-9][A-Za-z]"
REJECT_HINTED = REJECT + r"|[가-힣][공영]"


#: The e-mail gate of a text that may hold a written-out "@" (" @ ", "(at)", " at ", "【at】"),
#: an "_at_" after a local part that may hold "_" itself, or a letter-spaced address.
WRITTEN_EMAIL_GATE = (
    r"(?<![A-Za-z0-9._%+\-])(?:[A-Za-z0-9._%+\-]{1,64}+\s?"
    r"(?:@|[" + OPEN_BRACKETS + r"]?\s?(?:(?:at|AT)\b|@|골뱅이|[앳엣]|에이티)|" + HASH_AT + ")"
    r"|[A-Za-z0-9._%+\-]{1,64}?_(?:at|AT)_|" + LETTER_SPACED_GATE + ")"
)
