"""When a date is a date of birth: the context rules of the ``birth_date`` detector.

A date in running text is a date of birth only in context: a label before it
(생년월일, 생일, DOB), a birth word touching it (``출생 1990.3.5``, ``1985년 7월 2일생``,
``출생한 1963년 4월 8일``), a birth verb later in the same sentence with no other
date in between (``1980년 3월 28일 서울에서 태어났다``), or the encyclopedic lead of
a person (``이름(李名, 1974년 7월 2일 ~ )``, ``(1932년 1월 5일 ~ 2016년 2월 19일)``).
Not: a cut-off date (``1980년 1월 1일생 이후``), a celebrated birthday (``75세 생일인``),
a word that only starts with 생 (생태계, 생성, 생방송), a reign or term (``재위: … ~ )``),
the lifespan of an organisation or event (``임시정부(1919년 4월 11일 ~ …)``).

Policy (docs/pii.md): dates of birth from 1900 on are personal data wherever they
stand, public figures' included, so an article's lead and its body are treated alike.
"""

from __future__ import annotations

import re

from corpus.pii.scanned_forms import BIRTH_HEADER, ELSEWHERE_BEFORE, birth_elsewhere, header_cell
from corpus.pii.spoken_dates import as_digits, is_spoken
from corpus.pii.validators import DASHES, is_calendar_date

#: Labels that may stand a few words before the date ("생년월일은 1990.3.5", "생년 74년 3월 22일";
#: not 발생년, 탄생년, 재생년, 학생년). A birthday
#: that is celebrated ("75세 생일인", "생일 파티") dates the party, not the birth.
_BIRTH_LABEL = re.compile(
    # the lookbehinds after the literal: cheap; one test of 생 for its three words
    r"생(?:년(?<![발탄재회학]생년)|일(?<![발재회위]생일)(?<![세살째회] 생일)"
    r"(?!\s?(?:인|이던|이었던|을|에|파티|잔치|축하|기념|선물))"
    # an elder's birthday, said with honour: "아버지 생신이 음력 46년 2월 3일인데" (a word of
    # its own: not 회생신청, 재생신호; not "생신 잔치", "생신 때", "생신날": the celebration)
    r"|신(?<![가-힣]생신)(?!\s?(?:인|이던|을|에|때|날|파티|잔치|축하|기념|선물|상|모임)|[가-힣]{2})"
    r"| 년 월 일)|D\.?O\.?B"  # "생 년 월 일": spelled out by voice input
    # "My wife was born 90년 5월 7일": right before the date (not a title, "Born This Way")
    r"|[Bb](?:irth|orn(?<![A-Za-z][Bb]orn)(?: on| in)?\s?$)"
    r"|dob(?<![A-Za-z]dob)(?![A-Za-z])"  # typed in lowercase: "dob: 97년 5월 13일"
    r"|生年月日|生日|出生"  # an old form's or a Chinese-character form's label
)
#: The characters other than 생 a `_BIRTH_LABEL` can start with: a window with neither
#: holds no label.
_LABEL_OTHER_FIRST = re.compile("[DBbd生出]")


#: Words that must touch the date: "출생 1990.3.5", "생: 900305", "생) 76.10.10",
#: "출생한 1963년 4월 8일".
_BIRTH_TIGHT_BEFORE = re.compile(r"(?:출생|태생|(?<![가-힣])생|출생한|태어난)\s?[:：)]?\s?$")
#: Right after the date: 생 as a word of its own ("1985년 7월 2일생", "…생이다", "…생이십니다";
#: never 생태계, 생성, 생방송, 생이별), 출생, 에 태어나, 태어나 itself, 생일 as what the date is.
_BIRTH_AFTER = re.compile(
    r"\s?(?:[생쌩](?:(?:이|인|은|의|으로|으로서|이며|이고|이다|이자|입니다|이라|이나|인데|과|와|에|도|만"
    r"|임|이유|이여|이야|이래|이지|이네|이죠)"  # spoken: "…생임", "…생이유" (a dialect's 이요)
    # 생이십니다, 생이더라, 생이셔서; a quoted birth, "…일생이라고 했고", "…생이라서"
    r"(?![가-힣])|(?![가-힣])|이(?:십|시|셔|세요|신|셨|었|에요|예요|더|던|라[고구서는며면니]))"
    r"|출생(?!률|율|아|자|신고)|에\s?(?:태어|출생)|태생"
    # "… 29일 태어나셨고"; not "태어나서 처음" (the date of an event)
    r"|태어(?:났|나셨|나신|난|남|나(?!서?\s?처음))"
    # "92년 3월 8일 생일인 친구": the date is whose birthday; not "생일 파티", "생일에", "생일이라",
    # "생일인 날" (the day of a party)
    r"|생일(?=(?:인|이신)\s(?!날|당일|그날|오늘))"
    r"|生(?![一-龥]))"  # an old record's "57年 5月 8日生" (not 生産, 生活: a word)
)
#: The first character `_BIRTH_AFTER` can match after its optional space.
_BIRTH_AFTER_FIRST = frozenset("생쌩출에태生")  # 쌩: 생 as said for emphasis ("…28일쌩이에요")
#: The date said to be someone's birthday: "“81년 6월 12일”이 제 생일이고", "…일은 제 생일입니다";
#: a quote may close first. Not "생일 파티/축하/선물/쿠폰" (the day of a celebration), nor
#: "생일이라 휴가를 냈다" (a birthday as the reason for that day: a celebrated one).
_BIRTHDAY_IS = re.compile(
    r"[”\"’'」』]?(?:이|가|은|는)\s(?:(?:제|내|저의|나의|본인의?|[가-힣]{1,3}의)\s)?생일"
    r"(?!\s?(?:파티|잔치|축하|기념|선물|쿠폰|이벤트|케이크|상품|날)|이라|이어서)"
)
_BIRTHDAY_IS_FIRST = frozenset("”\"’'」』이가은는")
#: A date that bounds a group ("1980년 1월 1일생 이후", "…생부터"): a cut-off, not a birth.
_COHORT_AFTER = re.compile(
    r"\s?(?:생|출생(?:자|아)?)?\s?(?:이후|이전|부터|까지|이상|이하|미만|초과|전후|[~∼〜])"
)
_COHORT_BEFORE = re.compile(r"(?:생|출생)?\s?(?:부터|이후|이전)\s?$")
#: Later in the same sentence: "1980년 3월 28일 서울특별시 서초구에서 … 태어났다".
#: Finite or connective forms only: not "태어났을 당시" (a star's "birth" in an astronomy text).
_BORN_LATER = re.compile(
    r"태어났(?!을)|태어나셨|태어나(?:서)?(?=[\s,])|출생했(?!을)|출생하였(?!을)"
)
_DATE_WORD = re.compile(r"\d\s?(?:년|월|일)")
_RANGE_BEFORE = re.compile(r"[~∼〜" + DASHES + r"]\s?$")
_SENTENCE_END = re.compile(r"(?<=[가-힣])[.!?]\s|\n")
#: A lifespan after the date, closing the parenthesis: " ~ )" (living) or " ~ 2016년 2월 19일)".
_LIFESPAN = re.compile(
    r"\s?(?:\(음력[^()]{0,16}\))?\s?[~∼〜" + DASHES + r"]\s?"
    r"(?:\)|(?P<death>\d{4})\s?년\s?\d{1,2}\s?월\s?\d{1,2}\s?일\s?(?:\(음력[^()]{0,16}\))?\s?,?\s?\))"
)
LIFESPAN_FIRST = frozenset(" (~∼〜-\u2010\u2013\u2014\u2212")
#: Words in the parenthesis before the date that make the range a term, not a life.
_TERM_WORDS = re.compile(r"재위|재임|임기|집권|재직|활동|기간|시행|운영|방송|개최|존속")
#: The name before an encyclopedic parenthesis that belongs to an organisation or event, or
#: a title whose parenthesis gives the term of office ("류아무 총장(2019년 8월 1일 ~ )").
_ENTITY_NAME = re.compile(
    r"(?:정부|제국|왕국|왕조|공화국|연방|시대|전쟁|사건|운동|혁명|회담|회의|조약|협정|대회|올림픽"
    r"|월드컵|리그|시즌|위원회|협회|재단|학회|연맹|연합|정당|사단|부대|방송|프로그램|드라마|시리즈"
    r"|잡지|신문|기관|학교|대학교|대학|회사|은행|기업|그룹|노선|철도|공항|항구|조직|단체|정권|내각"
    r"|총장|회장|대표|위원장|감독|장관|원장|사장|이사장|의장|교장|총리|단장|관장|소장|청장)$"
)


_DIGIT_RUN = re.compile(r"\d+")
#: What is not a digit of a `NN년 N월 N일` field: spaces ("6 9 년"), 도 ("80년도"), a calendar word.
_NOT_DIGIT = re.compile(r"\D")
_DATE_WORDS = re.compile(r"[년월일]")


#: The date words in Chinese characters ("67年 4月 8日"), read as their Korean ones.
_CJK_DATE = str.maketrans("年月日", "년월일")


#: A scan's letters for digits in a date with no date word ("97.O2.l4"): O for 0, l and I for 1.
_OCR_DIGITS = str.maketrans("OolI", "0011")


def year_last(value: str) -> bool:
    """True for a ``dd/mm/yy`` or ``mm/dd/yy`` date ("11/05/85", after "Date of birth"):
    two-digit fields between slashes that are no ``yy/mm/dd`` calendar date but are with
    the year last. A date that reads both ways is read year first, as Korean forms write it."""
    parts = value.split("/")
    if len(parts) != 3 or any(len(p) != 2 or not p.isdigit() for p in parts):
        return False
    a, b, c = (int(p) for p in parts)
    if any(is_calendar_date(cy + a, b, c) for cy in (1900, 2000)):
        return False
    return any(is_calendar_date(1900 + c, mo, d) for d, mo in ((a, b), (b, a)))


def date_fields(value: str) -> tuple[str, str, str] | None:
    """(year, month, day) as digit strings, or None; day is "" for a month-only date.

    A month and day said in numerals ("89년 구월 십구일", `corpus.pii.spoken_dates`) are
    read as their digits; a date with no date word is read without its spaces and with a
    scan's O and l as 0 and 1 ("8 6 . 0 2 . 1 1", "97.O2.l4"), and year last where only
    that reads (`year_last`)."""
    value = value.translate(_CJK_DATE)
    if "년" not in value and "월" not in value:
        value = value.replace(" ", "").translate(_OCR_DIGITS)
        if year_last(value):
            d, mo, y = value.split("/")
            return (y, mo, d) if is_calendar_date(1900 + int(y), int(mo), int(d)) else (y, d, mo)
    if is_spoken(value):
        value = as_digits(value)
    parts = _DIGIT_RUN.findall(value)
    if "년" in value and (len(parts) != 3 or "O" in value or "o" in value):
        # "64년 1 1월 3일", "7O년 4월 1일", "53년 2 월" (no day: "")
        parts = _DATE_WORDS.split(value.replace("O", "0").replace("o", "0"))
        y, mo, d = (_NOT_DIGIT.sub("", p) for p in (parts + ["", ""])[:3])
        return (y, mo, d) if y and mo else None
    if len(parts) == 3:
        return parts[0], parts[1], parts[2]
    if len(parts) == 1 and len(parts[0]) in (6, 8):
        d = parts[0]
        return (d[:-4], d[-4:-2], d[-2:])
    return None


def birth_date_valid(value: str) -> bool:
    fields = date_fields(value)
    if fields is None:
        return False
    y, mo, d = fields
    if not d:  # a birth given to the month ("53년 2 월생"): any day of that month
        d = "1"
    if len(y) == 2:
        return any(is_calendar_date(c + int(y), int(mo), int(d)) for c in (1900, 2000))
    return 1900 <= int(y) <= 2099 and is_calendar_date(int(y), int(mo), int(d))


def _sentence_start(text: str, lo: int, s: int) -> int:
    """Where the sentence holding position `s` starts, read back no further than `lo`."""
    for b in _SENTENCE_END.finditer(text, lo, s):
        lo = b.end()
    return lo


def birth_context(text: str, s: int, e: int, tight: bool = False) -> bool:
    """True when a birth word or label says the date `text[s:e]` is a date of birth.

    ``tight``: only a word touching the date or a label before it in the same sentence
    (for a two-digit year, which in a history text is as often AD 63 as 1963).
    """
    # both need a birth syllable near the date: looked for in C first (most dates have none)
    after = text[e + 1 : e + 2] if text[e : e + 1].isspace() else text[e : e + 1]
    if after in _BIRTH_AFTER_FIRST and _BIRTH_AFTER.match(text, e):
        return True
    if text[e : e + 1] in _BIRTHDAY_IS_FIRST and _BIRTHDAY_IS.match(text, e):
        return True
    tight_lo = max(0, s - 8)
    if (text.find("생", tight_lo, s) >= 0 or text.find("태어난", tight_lo, s) >= 0) and (
        _BIRTH_TIGHT_BEFORE.search(text, tight_lo, s)
    ):
        return True
    lo = max(0, s - 20)
    # the label must be in the same sentence; most dates have none in the 20 characters
    # before them at all, and then none in the sentence's part of them either
    # a label's first character looked for first (a third of the label's own search)
    if (
        text.find("생", lo, s) >= 0 or _LABEL_OTHER_FIRST.search(text, lo, s) is not None
    ) and _BIRTH_LABEL.search(text, lo, s) is not None:
        lo = _sentence_start(text, lo, s)
        if _BIRTH_LABEL.search(text, lo, s) is not None:
            return True
        if _LABEL_LINE.search(text, max(0, s - 20), s) is not None:
            return True  # a form's label on the line before: "생년월일:\n91년 2월 9일"
    if tight:
        return _born_later_short(text, s, e)
    # a birth verb later in the same sentence, with no other date in between; not for the
    # second date of a range ("1894년 10월 18일 - 1943년 12월 20일)"), which is a death (the
    # verb looked for here first: nearly every date has none after it)
    return _born_verb_after(text, e) and _born_later(text, s, e) is not None


#: An era word before a two-digit year: "기원전 63년 9월 23일" is AD or BC 63, not 1963.
_ERA_BEFORE = re.compile(r"(?:기원전|기원후|서기|[Bb]\.?[Cc]\.?|[Aa]\.?[Dd]\.?|紀元前)\s?$")


#: A birth told by the person or of a relative: a spoken or honorific form of the verb
#: ("태어났습니다", "태어났어요", "태어나셨다"), not an encyclopedia's "태어났다".
_BORN_SPOKEN = re.compile(
    r"태어났(?:습니다|어요|어|고요|는데|음|대요|답니다|죠)|태어나셨|태어남|출생했(?:습니다|어요)"
)
#: The person or a relative as the subject before the date ("저는", "제가", "우리 딸은").
_PERSON_SUBJECT = re.compile(
    r"(?<![가-힣])(?:저|제|나|내|저희|우리)\s?(?:는|가|이)?\s?(?:[가-힣]{1,3}(?:은|는|이|가))?\s?$"
)


#: A form's birth label that ends its line, the date on the next: "생년월일:\n91년 2월 9일".
_LABEL_LINE = re.compile(
    r"(?:생년월일|생일(?<![발재회위]생일)|D\.?O\.?B|dob|[Bb]irth(?:day| ?date)?)"
    r"\s?[:：]?[ \t]*\n\s*$"
)
#: A birth said of a relative or the speaker right after the date: "84년 8월 8일 … 태어난
#: 우리 형", "…에 태어난 내 동생" (the date modifies the one born).
#: Not a pet ("…에 태어난 우리 강아지"): an animal's birth is no one's personal data.
_BORN_RELATIVE = re.compile(
    r"태어난\s(?:우리|내|제|저희|울)\s(?!(?:집\s?)?(?:강아지|고양이|냥이|댕댕이|멍멍이|개|반려|새끼))"
)


def _born_later_short(text: str, s: int, e: int) -> bool:
    """`_born_later` for a two-digit year: told by the person or of a relative.

    "저는 89년 6월 23일 전남 목포에서 … 태어났습니다" is a birth in 1989; an encyclopedia's
    "오토는 32년 4월 28일 로마에서 태어났다" is AD 32, and "기원전 63년 …" never the 1900s.
    The verb must be finite (not "태어나서 처음으로", the date of a first time) and spoken
    or honorific, or the speaker (저, 제가, 우리 …) the subject before the date.
    """
    if _ERA_BEFORE.search(text, max(0, s - 6), s) is not None:
        return False
    born = text.find("태어난", e, e + 16)
    if born >= 0 and _BORN_RELATIVE.match(text, born):
        return _DATE_WORD.search(text, e, born) is None
    later = _born_later(text, s, e)
    if later is None:
        return False
    if later.group().startswith("태어나") and not later.group().endswith("셨"):
        return _born_and_raised(text, s, later)  # a connective: "태어나 줄곧 … 자랐습니다"
    if _BORN_SPOKEN.match(text, later.start()) is not None:
        return True
    return _PERSON_SUBJECT.search(text, max(0, s - 12), s) is not None


#: The first time since one's birth after a connective 태어나(서): "태어나서 처음으로", "첫".
_FIRST_TIME = re.compile(r"\s?(?:처음|첨|첫)")
#: A sentence that ends as it is said to someone: "…자랐습니다", "…살았어요", "…컸죠".
_POLITE_END = re.compile(r"(?:습니다|습니까|[아어여해]요|에요|예요|죠)(?![가-힣])")
#: The speaker or a relative as the subject anywhere earlier in the sentence ("본인은 1남 2녀
#: 중 장녀로 …", "저희 어머니는 …"): a pronoun as a word of its own, with its particle.
_SPEAKER_IN_SENTENCE = re.compile(
    r"(?<![가-힣])(?:저는|제가|저희|나는|내가|본인은|본인이|우리\s?(?:아버지|어머니|엄마|아빠|할머니"
    r"|할아버지|남편|아내|아들|딸|형|누나|오빠|언니|동생))"
)


def _born_and_raised(text: str, s: int, later: re.Match) -> bool:
    """A two-digit-year date before a connective 태어나(서) is a birth when the sentence is
    someone's own account: "본인은 … 61년 7월 29일 경북 안동에서 태어나 줄곧 그곳에서
    자랐습니다" (said politely, or with the speaker or a relative as its subject).

    An encyclopedia's "32년 4월 28일 로마에서 태어나 …했다" is AD 32 and is neither; "태어나서
    처음으로 …" dates a first time, not the birth.
    """
    if _FIRST_TIME.match(text, later.end()) is not None:
        return False
    end = _SENTENCE_END.search(text, later.end(), later.end() + 120)
    if _POLITE_END.search(text, later.end(), end.start() if end else later.end() + 120):
        return True
    start = _sentence_start(text, max(0, s - 40), s)
    return _SPEAKER_IN_SENTENCE.search(text, start, s) is not None


#: How far after the date `_born_later` looks for the birth verb (one long sentence).
_BORN_REACH = 200


def _born_verb_after(text: str, e: int) -> bool:
    """True when what every `_BORN_LATER` holds, 태어 or 출생, is within reach after `e`
    (two substring searches: a pattern's search of the same is slower)."""
    hi = e + _BORN_REACH
    return text.find("태어", e, hi) >= 0 or text.find("출생", e, hi) >= 0


def _born_later(text: str, s: int, e: int) -> re.Match | None:
    """The birth verb later in the same sentence, with no other date in between, or None."""
    hi = min(len(text), e + _BORN_REACH)
    if not _born_verb_after(text, e):
        return None  # the common case, before the sentence is looked at
    if _RANGE_BEFORE.search(text, max(0, s - 3), s):
        return None
    end = _SENTENCE_END.search(text, e, hi)
    hi = end.start() if end else hi
    later = _BORN_LATER.search(text, e, hi)
    return None if later is None or _DATE_WORD.search(text, e, later.start()) else later


def _open_paren(text: str, s: int, reach: int = 60) -> int:
    """The position of the unclosed ``(`` that `s` is inside (within `reach`), or -1."""
    depth = 0
    for i in range(s - 1, max(-1, s - reach - 1), -1):
        c = text[i]
        if c == ")":
            depth += 1
        elif c == "(":
            if depth == 0:
                return i
            depth -= 1
        elif c == "\n":
            break
    return -1


def lifespan(text: str, s: int, e: int) -> bool:
    """The encyclopedic lead of a person: "이름(李名, 1974년 7월 2일 ~ )", "(… ~ 2016년 2월 19일)".

    The date opens the parenthesis (after nothing, or after names and a comma), a
    range mark follows and the parenthesis closes, at once or after a second full
    date within 125 years. A term ("재위: …") or a name that belongs to an
    organisation or event ("…정부(", "…대회(") is not a life.
    """
    if text[e : e + 1] not in LIFESPAN_FIRST:
        return False  # most dates go on with a particle or a comma
    life = _LIFESPAN.match(text, e)
    if life is None:
        return False
    if "년" not in text[s:e]:
        return False  # leads write "1974년 7월 2일"; "(2019. 8. 1. ~ )" is a term of office
    if life.group("death"):
        if not text[s : s + 4].isdigit():
            return False  # "66년 …": a lead writes the full year
        born, died = int(text[s : s + 4]), int(life.group("death"))
        if not 1 <= died - born <= 125:
            return False  # "(1905년 6월 10일~1905년 11월 …)": a period, not a life
    p = _open_paren(text, s)
    if p < 0:
        return False
    inside = text[p + 1 : s].strip(" .")  # "(, . 1968년 8월 4일 ~ )": an empty name slot
    if (inside and not inside.endswith(",")) or _TERM_WORDS.search(inside):
        return False
    name = text[max(0, p - 12) : p].rstrip().split(" ")[-1]
    # a country or state ("베트남국("): 국 ends a 2-3 syllable Korean given name, not 4+
    return not (_ENTITY_NAME.search(name) or (len(name) >= 4 and name.endswith("국")))


#: After a date whose year says 생: what makes the month and day an event of the cohort
#: ("2019년생 3월 2일에 입학", "…부터 접수", "85년생 3월 7일 동창회"), not the birth.
_COHORT_EVENT_AFTER = re.compile(
    r"\s?(?:에(?:는|도)?(?![가-힣])|부터|까지|이후|이전|모임|동창|동기|정모|번개|회식|총회|축제"
    r"|여행|기념|개교|체육대회|송년회|신년회|[가-힣]{0,4}(?:식|회)(?![가-힣]))"
)


def year_born(text: str, value: str, e: int) -> bool:
    """A date whose year is said with 생 and then its month and day: "85년생 3월 7일 생일이고".

    The 생 touches the year, as in "…일생", so the month and day are the birth's; not when
    a particle of time or an event word follows the day (`_COHORT_EVENT_AFTER`,
    `_EVENT_FIELD`): "2019년생 3월 2일에 입학" dates the cohort's school start.
    """
    if "년생" not in value:
        return False
    if _COHORT_EVENT_AFTER.match(text, e) is not None:
        return False
    k = e + 1 if text[e : e + 1] == " " else e
    return _EVENT_FIELD.match(text, k) is None


def is_cutoff(text: str, s: int, e: int) -> bool:
    """True when the date `text[s:e]` bounds a group of people, not one person's birth.

    "1980년 1월 1일생 이후", "…생부터", and the other end of such a range:
    "1924년 9월 1일생부터 1925년 8월 31일생까지".
    """
    if _COHORT_AFTER.match(text, e) and not _LIFESPAN.match(text, e):
        return True
    return _COHORT_BEFORE.search(text, max(0, s - 5), s) is not None


#: An animal right after the 생 of a date, maybe after 아기/새끼/암컷/수컷 and a colour: the
#: litter of an adoption post ("24년 1월 15일생 아기 고양이 세 마리"), a calf, a foal, a
#: breed, a 반려견/유기묘. "…일생 아기" alone is a human baby, and stays a birth, and so
#: is its keeper ("…일생 고양이 집사", "…일생 강아지 엄마").
#: Animals and breeds by name (one list for the words after a date and before it).
_ANIMALS = (
    r"(?:고양이|강아지|냥이|냥|댕댕이|멍멍이|새끼|송아지|망아지|병아리|토끼|햄스터|기니피그|고슴도치"
    r"|앵무새|거북이|(?:반려|유기|보호|구조|안내|대형|중형|소형|새끼|진도|풍산)[견묘]|자견|자묘"
    r"|푸들|말티즈|포메(?:라니안)?|비숑|치와와|웰시코기|시바견?|진돗개|리트리버|코숏|러시안\s?블루"
    r"|먼치킨|페르시안|랙돌|스코티시\s?폴드|브리티시\s?숏헤어|뱅갈|샴"
    r"|비글|닥스훈트|시츄|시추|요크셔\s?테리어|슈나우저|보더\s?콜리|사모예드|허스키|말라뮤트"
    r"|(?:프렌치\s?)?불독|퍼그|스피츠|삽살개|풍산개|코리안\s?숏헤어|노르웨이\s?숲|아비시니안"
    r"|경주마|씨수말|수말|암말|조랑말|젖소|한우|(?:아기|자이언트|레서)\s?판다|팬더|암사자|수사자"
    r"|호랑이|코끼리|기린|펭귄|돌고래"
    r"|고릴라|침팬지|북극곰|알파카|미어캣|수달|물범|바다사자)"
)
_ANIMAL_AFTER = re.compile(
    r"\s?[생쌩](?:인|의|이고|이며)?\s?(?:(?:아기|애기|새끼|꼬마|암컷|수컷|암|수|[가-힣]{1,2}색|"
    r"[가-힣]{1,3}무늬)\s?){0,2}" + _ANIMALS + r"(?:들|이|가|은|는|을|를|와|과|\s|$|[,.!])"
    r"(?!\s?(?:집사|주인|보호자|엄마|아빠|맘|대디|키우|기르))"  # a person who keeps one
)
#: The animal named before the date, in the same sentence: a pet's sale post ("말티즈
#: 공주님 24년 3월 12일생"), its birthday ("우리 고양이 생일이 …"), a veterinary record
#: ("환견 코코(푸들, …일생"), a laboratory's animals ("마우스 코호트 A는 …일생"), a
#: racehorse ("경주마 '…'는 … 태어난"). The words between may not end the sentence or
#: name a person or what a person does with one: "고양이 키우는 저는 …", "강아지 산책
#:시켜주실 분 …", "고양이 좋아하는 …일생 직장인" is a person's birth;
#: nor is a zodiac year an animal ("75년 토끼띠예요, 75년 4월 11일생").
_ANIMAL_BEFORE = re.compile(
    r"(?:" + _ANIMALS + r"|환견|환묘|마우스|생쥐|실험\s?(?:동물|쥐)|랫[드트])"
    r"(?!띠)"  # "토끼띠": a person's zodiac year
    r"(?:(?!집사|주인|보호자|엄마|아빠|맘|키우|기르|키운|기른|(?<![가-힣])(?:저|제|나|내|본인)"
    r"|언니|오빠|누나|동생|아들|딸|아이|막내|남편|아내|사람|분(?![양만])|씨(?![수])|[.!?\n]"
    r"|선생|선배|친구|고객|회원|환자|사육사|조련사|기수"
    r"|좋아|사랑|싫어|무서|데려|데리|입양한|산책|알레?르기|알러지|같은|닮은|사는|살고|함께|같이)"
    r".){0,40}$"
)
#: The speaker as the subject before the animal: "저는 고양이 …", "제가 키우던 강아지 …".
_SPEAKER_BEFORE = re.compile(r"(?<![가-힣])(?:저는|제가|저도|나는|내가|나도|본인은)")
#: An animal right after the date's 태어난: "… 태어난 수말로", "… 태어난 새끼 고양이".
_BORN_ANIMAL = re.compile(r"\s?(?:에\s?)?태어난\s(?:아기\s|새끼\s)?(?:" + _ANIMALS
                          + r"|수말|암말|수컷|암컷)")  # fmt: skip


def animal_birth(text: str, e: int) -> bool:
    """True when the date ending at `e` is followed by 생 and an animal (`_ANIMAL_AFTER`):
    a kitten's or a puppy's birth in an adoption or sale post names no person."""
    return text.find("생", e, e + 3) >= 0 and _ANIMAL_AFTER.match(text, e) is not None


def animal_named(text: str, s: int, e: int) -> bool:
    """True when the date `text[s:e]` is an animal's birth by the animal named before it in
    its sentence (`_ANIMAL_BEFORE`) or right after its 태어난 (`_BORN_ANIMAL`)."""
    animal = _ANIMAL_BEFORE.search(text, max(0, s - 48), s)
    if animal is not None:  # not "저는 고양이 두 마리와 …": the speaker is the subject
        return _SPEAKER_BEFORE.search(text, max(0, animal.start() - 12), animal.start()) is None
    return text.find("태어난", e, e + 5) >= 0 and _BORN_ANIMAL.match(text, e) is not None


def cutoff_or_animal(text: str, s: int, e: int) -> bool:
    """True when the date `text[s:e]`, though next to 생, is no one person's birth: a
    cut-off (`is_cutoff`) or an animal's birth (`animal_birth`, `animal_named`)."""
    return is_cutoff(text, s, e) or animal_birth(text, e) or animal_named(text, s, e)


def short_year(value: str) -> bool:
    """True for a ``NN년`` date with a two-digit year ("63년 9월", "6 9 년", "7O년")."""
    k = value.translate(_CJK_DATE).find("년", 0, 5)
    return k > 0 and len(value[:k].replace(" ", "")) == 2  # "63 년", "6 9 년", "7O년"


#: An apostrophe that stands for the century: "'92년 12월 9일생", "’85.12.24" (typed or curly).
_APOSTROPHES = "'’‘"


def year_apostrophe(text: str, s: int, e: int, floor: int) -> int:
    """1 when an apostrophe before the two-digit year of `text[s:e]` belongs to it, else 0.

    Not when a quote closes after the date ("‘92.3.5’", a quoted value), nor before a
    four-digit year or a run of digits.
    """
    if s <= floor or text[s - 1] not in _APOSTROPHES or text[s + 2 : s + 3].isdigit():
        return 0
    return 0 if text[e : e + 1] in _APOSTROPHES else 1


#: A record line's field separator before or after the date.
_FIELD_MARKS = frozenset("/|")
#: What says a record line is about a person: name, sex, age, residence, a masked name.
PERSON_FIELD = re.compile(
    r"이름|성명|성함|환자|신상|인적|성별|나이|거주|직업|혈액형|\d{1,3}\s?세|[가-힣][O○◯*]{2}"
    r"|(?:^|[/|:,\]]\s?)(?:남|여|남성|여성|男|女)\s?(?:[/|,]|$)"  # "[프로필] 남 / …"
)
#: A field next to the date that makes it the date of an event: a timetable or a case log
#: ("일정 / 24년 3월 2일 / 개강", "접수일: … / …").
_EVENT_FIELD = re.compile(
    r"일정|날짜|일자|일시|기간|개강|개학|입학|졸업|입사|퇴사|시작|종료|마감|접수|발표|시험|행사"
    r"|개최|시행|예정|기준|입원|퇴원|수술|진료|내원|방문|사고|발생|계약|결제|납부|가입|신청|변경"
    r"|완료|[가-힣](?<!생)일\s?[:：]"
)


def birth_record(text: str, s: int, e: int) -> bool:
    """A date that is a field of its own in a person's record line, with no birth word.

    "이름 김OO / 66년 11월 28일 / 서울 거주", "환자 정보: 남 / 77년 9월 23일 / 당뇨": the
    date stands between ``/`` or ``|`` (or ends the line), and the line names a person
    (`PERSON_FIELD`). Not under a table's header that names its column otherwise
    ("성명 | 주소 | 입주일"). Not when a field next to it dates an event (`_EVENT_FIELD`:
    "일정 / 24년 3월 2일 / 개강", "발생일: … / 접수일: …").
    """
    c = text[s - 1 : s]
    if c == " ":
        c = text[s - 2 : s - 1]
    if c not in _FIELD_MARKS:
        return False  # nearly every date: looked at before the line is
    lo = text.rfind("\n", 0, s) + 1
    hi = text.find("\n", e)
    hi = len(text) if hi < 0 else hi
    after = text[e:hi].lstrip()
    if after and after[0] not in _FIELD_MARKS:
        return False
    fields = re.split(r"\s?[/|]\s?", text[lo:s].rstrip()[:-1])
    prev, nxt = fields[-1], re.split(r"\s?[/|]\s?", after[1:].strip())[0]
    if _EVENT_FIELD.search(prev) or _EVENT_FIELD.search(nxt):
        return False
    header = header_cell(text, s, c)
    if header is not None and not BIRTH_HEADER.search(header):
        return False  # a table's row: its column is named, and not a birth ("| 입주일")
    line = text[lo:s] + " " + text[e:hi]
    return PERSON_FIELD.search(line) is not None


#: A correction right before the date: "생년월일이 … 로 되어 있는데 실제로는 64년 11월 13일".
_CORRECTION_BEFORE = re.compile(
    r"(?:실제로는|실제는|정확히는|정확하게는|정정하면|정정\s?[:：]|아니라|아니고)\s?$"
)
#: The last character of a `_CORRECTION_BEFORE` word (a space may follow it).
_CORRECTION_LAST = frozenset("는라고:：")
#: The label of another date: "입사일은", "접수일:", "가입 날짜는" (a day of a date has a digit
#: before its 일; 생일, 생년월일 are birth labels).
_OTHER_DATE_LABEL = re.compile(r"[가-힣](?<![생월])일\s?(?:은|는|이|:|자)|날짜|일자")
#: The character before a date (a space skipped) that `birth_record` or `corrected_birth`
#: needs; with `ELSEWHERE_BEFORE`, the only ones `corpus.pii.detectors` calls `marked_birth`
#: after.
_RECORD_OR_CORRECTION = _FIELD_MARKS | _CORRECTION_LAST
RECORD_OR_CORRECTION = _RECORD_OR_CORRECTION | ELSEWHERE_BEFORE
#: How far before the corrected date the label of the sentence may stand.
_CORRECTION_REACH = 80


def corrected_birth(text: str, s: int) -> bool:
    """A second date that corrects a date of birth given earlier in the same sentence.

    A correction word touches the date (`_CORRECTION_BEFORE`) and a birth label
    (생년월일, 생일 …) stands earlier in the sentence: the first date was the birth's.
    """
    c = text[s - 1 : s]
    if c == " ":
        c = text[s - 2 : s - 1]
    if c not in _CORRECTION_LAST:
        return False  # nearly every date
    if _CORRECTION_BEFORE.search(text, max(0, s - 7), s) is None:
        return False
    lo = _sentence_start(text, max(0, s - _CORRECTION_REACH), s)
    label = _BIRTH_LABEL.search(text, lo, s)
    if label is None:
        return False
    # the birth's first date stands between the label and the correction, and no other
    # date's label does ("생년월일이 …이고, 입사일은 정확히는 99년 3월 2일")
    between = text[label.end() : s]
    return _DATE_WORD.search(between) is not None and _OTHER_DATE_LABEL.search(between) is None


#: After the 생 of a month-only date: a copula or particle of one person's birth
#: ("53년 2 월생이시고", "…월생인", "…월생으로", "…월생입니다").
_MONTH_BIRTH_NEXT = frozenset("이인으은입")


def one_person_month(text: str, value: str, e: int) -> bool:
    """False for a month-only date that names a cohort ("23년 3월생 아기 모임", "…월생들").

    A date with its day is always True; a month-only one (matched only before 생 or
    출생, or 경) needs 생 to go on as one person's predicate (`_MONTH_BIRTH_NEXT`); "…월경"
    ("생년월일 85년 06월경") is about when one person was born, as its context said.
    """
    if not value.endswith("월") or text[e : e + 1] == "경":
        return True  # a day ends the date
    k = e + 2 if text[e : e + 1] == "출" else e + 1
    return text[k : k + 1] in _MONTH_BIRTH_NEXT


#: A record that holds a date of birth: a family register, a resident registration, an
#: ID card, an identity check ("호적엔", "주민등록상으로는", "본인인증 정보가", "서류상").
_REGISTRY_WORD = re.compile(
    r"호적|주민등록|주민번호|등본|신분증|민증|주민증|서류상|여권상|본인\s?인증|가족관계|출생신고"
)
#: After the date: the record says so ("…일로 되어 있", "…로 올라가 있", "…로 나와", "…로 신고").
_REGISTERED_AS = re.compile(
    r"\s?(?:으로|로)\s?(?:되어|돼|됐|되있|올라|신고|등록|나와|나온|적혀|기재|찍혀)"
)


def registered_birth(text: str, s: int, e: int) -> bool:
    """A date that a register holds as someone's birth, with no birth word touching it.

    "호적엔 51년 3월 5일로 올라가 있는디", "주민등록상으로는 61년 11월 2일로 되어있어요",
    "본인인증 정보가 97/3/22 로 되어 있어": a registration word earlier in the same sentence
    (at most 20 characters before) and the record verb right after the date. Not "등본
    발급일은 …로 되어": a date's own label between them (`_OTHER_DATE_LABEL`).
    """
    if text[e : e + 1] not in "로으 " or _REGISTERED_AS.match(text, e) is None:
        return False  # nearly every date
    lo = _sentence_start(text, max(0, s - 20), s)
    word = _REGISTRY_WORD.search(text, lo, s)
    if word is None:
        return False
    between = text[word.end() : s]
    return _OTHER_DATE_LABEL.search(between) is None and _DATE_WORD.search(between) is None


def marked_birth(text: str, s: int, e: int, before: str) -> bool:
    """True when the mark `before` the date (a space skipped) opens a birth's field.

    A record's field ("… / 66년 11월 28일 /"), a correction ("실제로는 64년 …"), a
    table's birth column, a dialogue's answer or a label with a note
    (`corpus.pii.scanned_forms.birth_elsewhere`); each tried only after its own marks.
    """
    if before in _RECORD_OR_CORRECTION and (birth_record(text, s, e) or corrected_birth(text, s)):
        return True
    return before in ELSEWHERE_BEFORE and birth_elsewhere(text, s, e, before)
