"""Vehicle registration plates: the pattern and validator of the ``plate`` detector.

A plate is two or three digits, a Hangul syllable and four digits (``12가 3456``,
``123가4567``), on older plates after a region name (``서울12가3456``, ``부산 7 라 1290``),
as people and scans write it (spaced digits, a dash, ``l`` misread for 1). What is not a
plate though it has the shape: a quantity or a score (a unit after the digits: ``3456억``,
``12승 3456패``), a court case number (``93노1395``, near court words) and a part number
(``KA-34가-1234``). `corpus.pii.detectors` registers the detector with the pattern built
here, in its one registration order.
"""

from __future__ import annotations

import re

from corpus.pii.detector_base import context_rx, match_span, near
from corpus.pii.places import KNOWN_UNITS, PROVINCES
from corpus.pii.scanned_forms import OCR_ONES

#: The region names of old plates and of old driver's licence numbers ("서울12가3456",
#: "서울 12-345678-90").
REGIONS = "서울 부산 경기 강원 충북 충남 전북 전남 경북 경남 제주 대구 인천 광주 대전 울산".split()

PLATE_LETTERS = "가나다라마거너더러머버서어저고노도로모보소오조구누두루무부수우주아바사자배하허호"
#: A vehicle named after a plate: "승용차", "승합차량", "화물차", "차량", "이륜자동차",
#: "오토바이", "트럭", "택시", "차를" (차 as a word of its own, with its particle).
_VEHICLE = (
    r"(?:승용|승합|화물|특수|차량|자동차|이륜|원동기|오토바이|트럭|택시|버스|덤프|렌터카|렌트카"
    r"|견인|SUV|차(?:[를가는의에와로도](?![가-힣])|(?![가-힣])))"
)
#: After a plate, as court rulings and police reports write it: 호 the counter, then the
#: vehicle, maybe after its model and colour ("49고4806호 승용차량", "12가 3456호 흰색 쏘나타
#: 승용차"), or 호 and the driving ("…호를 운전하여"). Not the unit of a quantity: "3456호".
_HO_VEHICLE = (
    r"\s?(?:[가-힣A-Za-z0-9]{1,8}\s){0,2}" + _VEHICLE + r"|(?:를|을|로)?\s?(?:운전|운행|몰고|주차)"
)
_UNITS = r"억|만|천|원|명|개|년|달러|위|호|번지|점|권|회|건|여|승|패|무"
#: A unit after the digits makes them a quantity or a score ("3456억", "12승 3456패"), but only
#: when it ends its word: attached, followed by a particle, another unit or no Hangul; written
#: apart, followed by no Hangul. So "45나 6789 승용차", "… 승합차", "… 만취", "… 회색", "… 무면허"
#: and "… 명의" stay plates.
_ATTACHED_UNIT = (
    r"(?:" + _UNITS + r")(?:(?![가-힣])|(?=[이가을를은는의에도과와로으씩째만인까부보대정쯤]))"
)
#: ... but 호 and a vehicle after it is the plate's counter (`_HO_VEHICLE`), tried first and
#: written once (in each unit test it made the patterns' compilation 0.2 s slower).
_UNIT_AFTER = (
    rf"(?:(?=호(?:{_HO_VEHICLE}))"
    rf"|(?!%|{_ATTACHED_UNIT}|(?:{_UNITS})(?:{_UNITS})|\s(?:{_UNITS})(?![가-힣])))"
)
#: Court case numbers with a two-digit year ("93노1395") share the two-digit plate shape.
_COURT_CONTEXT = context_rx(r"법원|판결|사건|선고|대법|고법|지법|판례|재판|항소|상고")


#: A plate with every digit spaced: "2 8 고 5 5 1 3", "1 2 3 가 4 5 6 7" (the digits only).
_SPACED_PLATE = r"(?<![0-9] )\d\s\d(?:\s\d)?\s[" + PLATE_LETTERS + r"](?:\s\d){4}(?!\s?[0-9])"

_ONE_DIGIT_PLATE = re.compile(r"\d\s?[" + PLATE_LETTERS + "]")


def accept_plate(text: str, m: re.Match, floor: int) -> tuple[int, int] | None:
    """The span of a plate match, widened over a region name before it; None when the
    match is a quantity, a case number or a part number."""
    s, e = match_span(m)
    if m.group().isdigit():  # "서울강서 가 3419": an old motorbike plate, read from its digits
        start = motorbike_region(text, s, floor)
        return None if start is None else (start, e)
    if _ONE_DIGIT_PLATE.match(m.group()) and not _region_before(text, s, floor):
        return None  # one digit before the syllable: only an old regional plate, "부산 7 라 1290"
    # Case numbers are two-digit years written without spaces ("93노1395"): a three-digit
    # plate (the 2019 format) or a spaced one is never checked for court words, which are
    # as common in accident reports ("사건 당시") as in case citations.
    value = m.group()
    if "-" in value and _part_number(text, s, e):
        return None
    if (
        not value[2].isdigit()
        and " " not in value
        and near(text, s, e, _COURT_CONTEXT)
        and _VEHICLE_AFTER.match(text, e) is None  # a case number names no car after it
    ):
        return None
    # old-style plates carry a region name: "서울12가3456", "경기 34나 5678"
    region = _region_before(text, s, floor)
    return (s - region, e) if region else (s, e)


def _part_number(text: str, s: int, e: int) -> bool:
    """True when a plate written with a dash ("33러-9012") is a code's part: "KA-34가-1234"."""
    return (s > 0 and text[s - 1] in "-_/.") or _LONGER_PART.match(text, e) is not None


_LONGER_PART = re.compile(r"[\-_/]\w")


def _region_before(text: str, s: int, floor: int) -> int:
    """The length of a region name ("서울", "경기 ") that ends right before `s`, or 0."""
    head = text[max(floor, s - 3) : s]
    for region in REGIONS:
        if head.rstrip().endswith(region):
            return len(head) - len(head.rstrip()) + len(region)
    return 0


#: A vehicle right after a plate, or after its 호 ("…호 승용차를", "… 차량을").
_VEHICLE_AFTER = re.compile(r"호(?:" + _HO_VEHICLE + r")|\s?" + _VEHICLE)

#: The four digits of an old regional motorbike plate, after its syllable, a word of its
#: own ("서울강서 가 3419"): the digit first, so the alternation skips it at once elsewhere.
_MOTORBIKE_DIGITS = r"\d(?<= [" + PLATE_LETTERS + r"] \d)\d{3}(?![0-9]|[.,]\d)"
#: Its region: a province's short name joined to a city's, county's or district's name
#: without 시/군/구 ("서울강서", "경기부천", "부산 해운대"), then the syllable and a space.
_MOTORBIKE_REGION = re.compile(
    r"(?<![가-힣])(?:" + "|".join(REGIONS) + r"|세종)\s?([가-힣]{1,4}) [" + PLATE_LETTERS + r"] $"
)
#: The provinces' names, full and short: a district's name never is one ("서울대" is no 대구).
_PROVINCE_NAMES = frozenset(n for full, short in PROVINCES for n in (full, *short))
#: The suffixes a district's name drops on such a plate.
_UNIT_SUFFIXES = ("시", "군", "구")
#: Words near a plate that say it is one: a district's name not in the gazetteer then counts.
_PLATE_CONTEXT = context_rx(r"번호판|오토바이|이륜|바이크|스쿠터|차량|배달|원동기")


def motorbike_region(text: str, s: int, floor: int) -> int | None:
    """Where an old motorbike plate starts whose four digits start at `s`, or None.

    A province and a district's name before the syllable ("서울강서 가 3419", "서울 중구 자
    …"): the district a known one, with its 시/군/구 or not (`corpus.pii.places.KNOWN_UNITS`),
    or any name of two to four syllables with a plate word near ("번호판", "오토바이").
    "경기도 가 1234" (the province's full name) and a word that only starts with a
    province's name ("서울대 가 …") are no region.
    """
    m = _MOTORBIKE_REGION.search(text, max(floor, s - 12), s)
    if m is None:
        return None
    name = m.group(1)
    units = [name + suffix for suffix in _UNIT_SUFFIXES]
    if any(u in KNOWN_UNITS and u not in _PROVINCE_NAMES for u in (name, *units)):
        return m.start()  # "서울강서", "서울 중구"; not "서울대" (대구 is a province)
    if len(name) < 2 or name.endswith(_UNIT_SUFFIXES + ("도",)):
        return None
    return m.start() if near(text, m.start(), s + 4, _PLATE_CONTEXT) else None


#: The plate detector's pattern (registered in `corpus.pii.detectors`).
PLATE_PATTERN = (
    r"(?<![0-9A-Za-z제])(?:\d{1,3}\s?[" + PLATE_LETTERS + r"][\s\-]?\d(?:\d{3}|" + OCR_ONES
    + r")(?![0-9]|[.,]\d)|" + _SPACED_PLATE + "|" + _MOTORBIKE_DIGITS + ")" + _UNIT_AFTER
)  # fmt: skip
#: Its description.
PLATE_DESCRIPTION = (
    "vehicle registration plate (12가 3456, 123가4567, 12가-3456, 서울12가3456, 부산 7 라 1290, "
    "2 8 고 5 5 1 3; l or I misread for 1: 34오 772l; 49고4806호 승용차; 서울강서 가 3419)"
)
