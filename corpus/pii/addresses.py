"""Address pseudonyms, drawn whole from the gazetteer, with the parts of the original.

An address found by the detector (`corpus.pii.detectors`, type ``address``) is
read into its parts: an optional postal code, the administrative units
(province, district, 읍/면), a road name with an optional numbered branch
(``테헤란로 12길``, ``서동로99번 길``) or a neighbourhood (``역삼동``, ``종로5가``,
``후리``), the house or lot number (``21-1``, ``산53-1``, ``산 128``) and the detail after it
(``번지``, ``, 101동 1203호``, `` 4층``, `` (역삼동)``). A bare apartment unit
(``302동 1102호``) is a part of its own.

The pseudonym is drawn whole: a province, one of its districts, and a road or
neighbourhood of that district from `corpus.pii.places.GAZETTEER`, so the result
is consistent and names nothing of the original; the numbers are redrawn with
the same number of digits; the detail keeps its shape. Each unit appears once.
"""

from __future__ import annotations

import random
import re

from corpus.pii import places
from corpus.pii.address_rules import (
    BRANCH_LETTER,
    BUILDING_WORDS,
    COMPLEX_WORD,
    LOT_REST,
    NUMBERED_AVENUE,
)
from corpus.pii.old_addresses import OLD_LOT, TONG_BAN

_POSTAL = re.compile(r"(\(\s?\d{5}\s?\)|\[\d{5}\]|(?:우\)|우편번호:?)\s?\d{5})(\s?)")
_UNIT_ONLY = re.compile(r"\d{1,4}동\s?\d{1,5}호")
#: The road (with its numbered or lettered branch: "12번길", "55가길") or neighbourhood (a
#: one-syllable name spaced from its 동 or 리 too: "좌 동") and the number after it.
_CORE = re.compile(
    r"(?P<road>[가-힣0-9]*[가-힣](?:로|길)|" + NUMBERED_AVENUE + ")"
    r"(?P<branch>\s?\d{1,4}(?:번?\s?길|" + BRANCH_LETTER + r"길))?"
    r"\s?(?P<num>(?:산\s?)?\d" + LOT_REST + r")(?![0-9가]|번?\s?길)"
    r"|(?P<lot>[가-힣]+\d가|[가-힣0-9]*[가-힣](?:동|리)(?:\s?\d{1,2}가)?|[가-힣] [동리])"
    + TONG_BAN
    + r"\s?(?P<lnum>(?:산\s?)?"
    + OLD_LOT
    + r"\d"
    + LOT_REST
    + r")(?![0-9])"
)
_PAREN_LOT = re.compile(r"\((?:[가-힣0-9]+(?:동|가|리))")
_PAREN_NAME = re.compile(r",\s?[가-힣0-9]+\)")
_PROVINCE_NAMES = {full: full for full, _ in places.PROVINCES} | {
    short: full for full, shorts in places.PROVINCES for short in shorts
}


_NUMBER = re.compile(r"[0-9]+")


def _redraw_digits(text: str, rng: random.Random) -> str:
    """Every number redrawn with its digit count, never to itself, never with a leading 0.

    "622" never stays "622" (nor "47-89" keep its 47 or its 89), so no house, lot,
    unit or floor number of the original survives in its pseudonym.
    """

    def redraw(m: re.Match) -> str:
        old = m.group()
        if len(old) == 1 and old == "0":
            return old  # a lone 0 has no other one-digit spelling without a leading zero
        while True:
            new = rng.choice("123456789") + "".join(rng.choice("0123456789") for _ in old[1:])
            if new != old:
                return new

    return _NUMBER.sub(redraw, text)


def _units(head: str) -> tuple[str | None, bool]:
    """(the province as written or None, whether a district-level unit is present)."""
    province = None
    district = False
    for tok in head.split():
        if tok in _PROVINCE_NAMES or tok.endswith(("특별시", "광역시", "특별자치시", "특별자치도")):
            province = province or tok
        elif tok.endswith(("도",)) and len(tok) >= 3 and province is None:
            province = tok
        elif tok.endswith(("시", "군", "구")):
            district = True
    return province, district


def draw_place(rng: random.Random) -> tuple[str, str, tuple[str, ...], tuple[str, ...]]:
    """(province, district, its roads, its neighbourhoods), drawn from the gazetteer."""
    province = rng.choice(sorted(places.GAZETTEER))
    district = rng.choice(sorted(places.GAZETTEER[province]))
    roads, lots = places.GAZETTEER[province][district]
    return province, district, roads, lots


def _province_as(written: str, province: str, rng: random.Random) -> str:
    """The drawn province in the style of the original (full name or a short one)."""
    full = _PROVINCE_NAMES.get(written, written)
    if written == full:
        return province
    shorts = dict(places.PROVINCES)[province]
    return rng.choice(shorts) if shorts else province


def generate_address(value: str, rng: random.Random) -> str:
    """Another address with the parts of `value`, drawn whole (see the module docstring)."""
    prefix = ""
    rest = value
    postal = _POSTAL.match(value)
    if postal:
        prefix = _redraw_digits(postal.group(1), rng) + postal.group(2)
        rest = value[postal.end() :]
    if _UNIT_ONLY.fullmatch(rest):
        return prefix + _redraw_digits(rest, rng)
    core = _CORE.search(rest)
    if core is None:
        return prefix + _complex_address(rest, rng)
    province, district, roads, lots = draw_place(rng)
    written_province, has_district = _units(rest[: core.start()])
    parts = []
    if written_province:
        parts.append(_province_as(written_province, province, rng))
    if district and has_district:
        parts.append(district)
    if core.group("road"):
        name = rng.choice(roads)
        branch = core.group("branch") or ""
        if branch:
            branch = re.sub(r"\d+", lambda _: str(rng.randint(1, 99)), branch)
        number = core.group("num")
        sep = rest[core.end("branch") if branch else core.end("road") : core.start("num")]
        parts.append(name + branch + sep + _redraw_digits(number, rng))
    else:
        number = core.group("lnum").replace("l", "1").replace("I", "1")  # OCR: "l3-7"
        sep = rest[core.end("lot") : core.start("lnum")]
        parts.append(rng.choice(lots) + _redraw_digits(sep, rng) + _redraw_digits(number, rng))
    tail = _renamed(_redraw_digits(rest[core.end() :], rng), rng)
    tail = _PAREN_LOT.sub(lambda _: "(" + rng.choice(lots), tail)
    tail = _PAREN_NAME.sub(")", tail)  # "(달동, 티타워)": the building's name is dropped
    return prefix + " ".join(parts) + tail


def _complex_address(value: str, rng: random.Random) -> str:
    """An address with no house number: a complex and its unit after a neighbourhood
    ("세종시 보람동 호려울마을 7단지 704동 1502호") keeps its complex's kind and gets another
    neighbourhood, name (`_renamed`) and numbers; anything else becomes a plain gazetteer
    address."""
    tail = _BUILDING_TAIL.search(value)
    if tail is None or tail.start() == 0:
        return plain_address(rng)
    province, district, _, lots = draw_place(rng)
    written_province, has_district = _units(value[: tail.start()])
    parts = [_province_as(written_province, province, rng)] if written_province else []
    if district and has_district:
        parts.append(district)
    parts.append(rng.choice(lots))
    return " ".join(parts) + " " + _renamed(_redraw_digits(tail.group(), rng), rng)


#: The names a complex's or building's own name is redrawn from: common ones, each used by
#: many complexes across the country, so that a pseudonym names no one's building.
COMPLEX_NAMES = (
    "한빛", "푸른", "햇살", "은하", "대림", "현대", "삼익", "우성", "신동아", "벽산", "극동",
    "동아", "한신", "쌍용", "금호", "대우", "한양", "청구", "동부", "성원", "진흥", "경남",
    "럭키", "미성", "한솔", "무궁화", "목련", "백합", "장미", "진달래", "개나리", "소나무",
    "느티", "샘터", "행복", "희망", "새솔", "가람", "나래", "초록",
)  # fmt: skip
#: A building's own name before its kind, in one word: "한빛" in "한빛아파트", "송도풍림" in
#: "송도풍림빌", "호려울" in "호려울마을" (a name holds a letter: "7단지" has none; a kind
#: alone, "래미안", "주공", names no building).
_NAMED_BUILDING = re.compile(
    r"(?<![가-힣A-Za-z0-9])(?P<name>[가-힣A-Za-z][가-힣A-Za-z0-9]{0,11}?)(?:" + BUILDING_WORDS
    + r")(?![가-힣A-Za-z0-9])"
)  # fmt: skip


def _renamed(tail: str, rng: random.Random) -> str:
    """`tail` (an address's part after its number) with each building's own name redrawn
    from `COMPLEX_NAMES`, never to itself: the name of a home's complex ("송도풍림빌 1104호")
    is part of its address, and a district drawn anew does not hide it."""

    def rename(m: re.Match) -> str:
        name = m.group("name")
        return _name_like(name, rng) + m.group()[len(name) :]

    return _NAMED_BUILDING.sub(rename, tail)


def _name_like(name: str, rng: random.Random) -> str:
    """A name of `COMPLEX_NAMES` with as many characters as `name` (names joined and cut
    for another length), never `name`: the text around it keeps its offsets, as a
    reference decoded inside the address must (`corpus.pii.markup`)."""
    while True:
        new = ""
        while len(new) < len(name):
            new += rng.choice(COMPLEX_NAMES)
        if new[: len(name)] != name:
            return new[: len(name)]


def _named_buildings(value: str) -> list[re.Match]:
    """The named buildings in the part of `value` after its number, in text order."""
    core = _CORE.search(value)
    return list(_NAMED_BUILDING.finditer(value, core.end() if core else 0))


def building_names(value: str) -> list[str]:
    """The buildings' own names in the part of `value` after its number, in text order."""
    return [m.group("name") for m in _named_buildings(value)]


def named_buildings(value: str) -> list[str]:
    """Each named building of `value` as written, its name with its kind ("송도풍림빌"): a
    later mention of it alone in the record is the same building (`corpus.pii.copies`)."""
    return [m.group() for m in _named_buildings(value)]


#: A building or complex named last in an address, with its block and unit: "한빛아파트 108동
#: 1203호", "송도풍림빌 1104호", "호려울마을 7단지 704동 1502호" (one to three words).
_BUILDING_TAIL = re.compile(
    r"(?<![^\s,])(?:(?:" + COMPLEX_WORD + r")\s?){1,3}"
    r"(?P<dong>(?:[A-Za-z]?\d{1,4}|[A-Za-z]|[가나다라마바사])\s?동)?"
    r"(?P<ho>\s?[A-Za-z]?\d{1,5}\s?호)?$"
)


def building_parts(value: str) -> tuple[list[str], tuple[str, str] | None]:
    """([the building part of `value`, its part up to the block], the block's and unit's digits).

    "대전 서구 둔산동 1492 한빛아파트 108동 1203호" gives (["한빛아파트 108동 1203호",
    "한빛아파트 108동"], ("108", "1203")): a later "한빛아파트 108동 경비실" or "한빛 108-1203" is
    the same home (`corpus.pii.copies`). A building with no block or unit number gives
    nothing (a complex's name alone is not a home); a lettered block ("푸른숲빌 다동 303호")
    gives its parts but no unit digits.
    """
    tail = _BUILDING_TAIL.search(value)
    if tail is None or not (tail.group("dong") or tail.group("ho")):
        return [], None
    parts = [tail.group()]
    unit = None
    if tail.group("dong") and tail.group("ho") and _NUMBER.search(tail.group("dong")):
        parts.append(value[tail.start() : tail.end("dong")])
        unit = (
            _NUMBER.search(tail.group("dong")).group(),
            _NUMBER.search(tail.group("ho")).group(),
        )
    return parts, unit


def tail_copy(written: str, value: str, pseudonym: str, rng: random.Random) -> str:
    """A copy of the building part of `value` (`building_parts`) as `pseudonym` writes it.

    The digit runs of `written` take, in order, those of the pseudonym's building part
    when their lengths agree ("호려울7단지 704-1502" after "… 호려울마을 7단지 704동
    1502호" became "… 한솔마을 3단지 812동 3391호": "한솔3단지 812-3391"); otherwise each is
    redrawn (`_redraw_digits`). Each building's name of `value` in the copy is the name the
    pseudonym drew for it (`building_names`, in order), so the copy names the same
    building as the pseudonym, and not the original one.
    """
    tail = _BUILDING_TAIL.search(pseudonym)
    source = _NUMBER.findall(tail.group()) if tail else []
    runs = _NUMBER.findall(written)
    head = source[: len(runs)]
    if len(head) < len(runs) or any(len(a) != len(b) for a, b in zip(runs, head, strict=True)):
        out = _redraw_digits(written, rng)
    else:
        digits = iter(source)
        out = _NUMBER.sub(lambda _: next(digits), written)
    old, new = building_names(value), building_names(pseudonym)
    if len(old) == len(new):
        for name, drawn in sorted(zip(old, new, strict=True), key=lambda p: -len(p[0])):
            if name in out:
                out = out.replace(name, drawn)
            else:  # the name shortened at the copy's start: "나릿재 4단지" for "나릿재마을4단지"
                k = _shortened(out, name)
                out = drawn[:k] + out[k:] if k else out
    return out


def _shortened(copy: str, name: str) -> int:
    """The length of `name`'s start that opens `copy` as a word of its own (two syllables
    at least), or 0."""
    k = 0
    while k < min(len(copy), len(name)) and copy[k] == name[k]:
        k += 1
    return k if k >= 2 and copy[k : k + 1] in (" ", "") else 0


def core_of(value: str) -> str | None:
    """The road or lot with its number in an address ("역삼동 622" in "서울 강남구 역삼동 622")."""
    m = _CORE.search(value)
    if m and m.group("tongban"):  # "효자동 12통 3반 445": the lot is "효자동 445"
        return m.group("lot") + " " + m.group("lnum")
    return m.group() if m else None


def plain_address(rng: random.Random) -> str:
    """A plain road address from the gazetteer: "부산광역시 수영구 광안해변로 219"."""
    province, district, roads, _ = draw_place(rng)
    parts = [province, district, rng.choice(roads), str(rng.randint(1, 399))]
    return " ".join(p for p in parts if p)
