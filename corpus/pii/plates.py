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
from corpus.pii.scanned_forms import OCR_ONES

#: The region names of old plates and of old driver's licence numbers ("서울12가3456",
#: "서울 12-345678-90").
REGIONS = "서울 부산 경기 강원 충북 충남 전북 전남 경북 경남 제주 대구 인천 광주 대전 울산".split()

PLATE_LETTERS = "가나다라마거너더러머버서어저고노도로모보소오조구누두루무부수우주아바사자배하허호"
_UNITS = r"억|만|천|원|명|개|년|달러|위|호|번지|점|권|회|건|여|승|패|무"
#: A unit after the digits makes them a quantity or a score ("3456억", "12승 3456패"), but only
#: when it ends its word: attached, followed by a particle, another unit or no Hangul; written
#: apart, followed by no Hangul. So "45나 6789 승용차", "… 승합차", "… 만취", "… 회색", "… 무면허"
#: and "… 명의" stay plates.
_ATTACHED_UNIT = (
    r"(?:" + _UNITS + r")(?:(?![가-힣])|(?=[이가을를은는의에도과와로으씩째만인까부보대정쯤]))"
)
_UNIT_AFTER = rf"(?!%|{_ATTACHED_UNIT}|(?:{_UNITS})(?:{_UNITS})|\s(?:{_UNITS})(?![가-힣]))"
#: Court case numbers with a two-digit year ("93노1395") share the two-digit plate shape.
_COURT_CONTEXT = context_rx(r"법원|판결|사건|선고|대법|고법|지법|판례|재판|항소|상고")


#: A plate with every digit spaced: "2 8 고 5 5 1 3", "1 2 3 가 4 5 6 7" (the digits only).
_SPACED_PLATE = r"(?<![0-9] )\d\s\d(?:\s\d)?\s[" + PLATE_LETTERS + r"](?:\s\d){4}(?!\s?[0-9])"

_ONE_DIGIT_PLATE = re.compile(r"\d\s?[" + PLATE_LETTERS + "]")


def accept_plate(text: str, m: re.Match, floor: int) -> tuple[int, int] | None:
    """The span of a plate match, widened over a region name before it; None when the
    match is a quantity, a case number or a part number."""
    s, e = match_span(m)
    if _ONE_DIGIT_PLATE.match(m.group()) and not _region_before(text, s, floor):
        return None  # one digit before the syllable: only an old regional plate, "부산 7 라 1290"
    # Case numbers are two-digit years written without spaces ("93노1395"): a three-digit
    # plate (the 2019 format) or a spaced one is never checked for court words, which are
    # as common in accident reports ("사건 당시") as in case citations.
    value = m.group()
    if "-" in value and _part_number(text, s, e):
        return None
    if not value[2].isdigit() and " " not in value and near(text, s, e, _COURT_CONTEXT):
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


#: The plate detector's pattern (registered in `corpus.pii.detectors`).
PLATE_PATTERN = (
    r"(?<![0-9A-Za-z제])(?:\d{1,3}\s?[" + PLATE_LETTERS + r"][\s\-]?\d(?:\d{3}|" + OCR_ONES
    + r")(?![0-9]|[.,]\d)|" + _SPACED_PLATE + ")" + _UNIT_AFTER
)  # fmt: skip
#: Its description.
PLATE_DESCRIPTION = (
    "vehicle registration plate (12가 3456, 123가4567, 12가-3456, 서울12가3456, 부산 7 라 1290, "
    "2 8 고 5 5 1 3; l or I misread for 1: 34오 772l)"
)
