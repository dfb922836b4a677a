"""When a number after a road or neighbourhood name is a postal address: the ``address`` rules.

The ``address`` detector (`corpus.pii.detectors`) matches a house or lot number
right after ``로/길/동/리/가``; `accept_address` decides and widens the span:
leftwards over the road or lot name, the administrative units before it
(``서울특별시 강남구``) and a postal code; rightwards over ``번지``, an apartment
unit (``106동 1802호``), a building with its floor (``하나은행 빌딩 3층``) and a
parenthesised neighbourhood (``(역삼동)``).

An address is taken when a unit stands before the name (a known district name,
a 3+ syllable 시/군/구, or two units), and also without one when the number says
it is an address the way people write it in petitions and posts:

* a tail only addresses have: ``번지``, a floor, a unit ``N호``, ``N동 N호``, a building;
* a lot number with a branch, ``47-89`` (``돈암동47-89``, ``운동동 35-2``);
* a road form that is only ever a street: a 대로 (``시흥대로 544``), a numbered
  branch (``…로12번길 5``), a ``동 N가`` neighbourhood (``삼선동 1가 13``);
* an address word close by: ``주소``, ``거주``, ``자택``, ``소재`` … before it,
  ``에 살``, ``에 위치``, ``앞``, ``근처``, ``일대`` … right after it.

The eighth blind set added tails and names as forms and messages write them: a unit
``101-1203`` after a complex, ``(세화빌라 3층)``, a floor after ``(신림동)``, `` ,3층``, ``가동
지하층``, ``번지 뒷채``, lettered branches (``이태원로 55가길 12``), a name spaced from its 동
(``해운대구 좌 동``), a 읍/면 before a 리, and a bare unit read back over its complex and
neighbourhood (``보람동 호려울마을 7단지 704동 1502호``).

The ninth added a home's door written without 호 after its building (``미래빌라 201``,
``그린빌 B동 201``, ``늘봄하우스 2층 203``, ``해뜰고시원 31번방``), the side of a unit or floor
(``302호(우)``, ``4층 좌측호``, ``2층 전체``, ``3층옥탑``), ``뒷집 별채`` and ``가동 반지하`` after
a building.

Old, scanned and data-file forms around the number (``12통 3반 445``, ``番地``, ``慶北
安東市``, ``4 1-7``, ``2가 l3-7``, ``17;부산``) are read by `corpus.pii.old_addresses`; a
building named last (``164-12 대성빌라 앞``) and a basement ``B1`` are tails here.

Ordinary words that end like a name (활동, 거리, 그대로, 경로) are stop-listed or
too short: a bare name needs at least two syllables before its 동/리/로/길.
"""

from __future__ import annotations

import re

from corpus.pii import places
from corpus.pii.old_addresses import field_cut, hanja_unit, number_span
from corpus.pii.written_shapes import (
    BARE_UNIT,
    LONE_NUMBERED_BLOCK,
    NAMED_BUILDING_BEFORE_FLOOR,
    UNIT_SIDE,
    WORD_END,
    city_short,
)

#: A house or lot number after its first digit: up to four more digits and a branch after a
#: dash ("622", "47-89"), the dash also the jamo look-alike ㅡ ("2018ㅡ6"), and a letter O
#: read for a 0 between digits ("6O7-3", an OCR or typing slip; a copy written with 0 is
#: the same value, `corpus.pii.copies.key_of`).
#: 살 of an age ("3-5살"), a counter after a number (`corpus.pii.detectors`), but not after a
#: lot's branch of three or four digits ("봉천동88-123 살 때": the verb "live"; no age has
#: three digits after a dash).
AGE = r"(?<!-[0-9]{3})(?<!-[0-9]{3}\s)(?<!-[0-9]{4})(?<!-[0-9]{4}\s)살"
LOT_REST = r"\d{0,4}(?:[Oo]\d{1,3})?(?:[-\u3161]\d{1,4}(?:[Oo]\d{1,2})?)?"
#: The letter of a road's lettered branch: "이태원로55가길", "세종로 12나길".
BRANCH_LETTER = "[가나다라마바사]"
#: A road numbered before its 로 ("불당25로 64", "번영1로 12"): its number is part of its name.
NUMBERED_AVENUE = r"[가-힣]{2,5}\d{1,2}로"
_ROAD_TOKEN = re.compile(
    r"[가-힣0-9]*[가-힣](?:로|길)(?:\s?\d{1,4}(?:번?\s?(?:길|가)|" + BRANCH_LETTER + "길))?"
    r"|[가-힣0-9]*[가-힣](?:동|리)\d*(?:가)?|[가-힣]+\d가|[가-힣]+(?:동|로)\s\d{1,2}가"
    r"|[가-힣]{2,5}\d{1,2}동"  # an administrative dong with its number: "정릉3동 산87-12"
     + "|" + NUMBERED_AVENUE
)
_UNIT_TOKEN = re.compile(
    r"[가-힣]{1,8}(?:특별시|광역시|특별자치시|특별자치도|도|시|군|구|읍|면|동)$"
)
_POSTAL = re.compile(r"(?:\(\s?\d{5}\s?\)|\[\d{5}\]|(?:우\)|우편번호:?)\s?\d{5})\s?$")
#: Words of a building whose floor or unit follows: "하나은행 빌딩 3층", "한빛타워 502호",
#: and the endings of apartment and office names ("리버힐 3층", "더샵 12층", "오션뷰 5층").
BUILDING_WORDS = (
    r"아파트|빌라|맨션|타운|단지|오피스텔|빌딩|하이츠|캐슬|자이|푸르지오|래미안|힐스테이트|아이파크"
    r"|주공|연립|상가|기숙사|타워|센터|프라자|플라자|스퀘어|파크|하우스|원룸|주택"
    r"|다세대|다가구|주상복합|건물|고시원|고시텔|레지던스|팰리스|빌리지|하임|마을|빌(?![가-힣])"
    r"|힐스|힐(?![가-힣])|더샵|뷰(?![가-힣])|시티|스위트|센트럴|포레스트|써밋|위브|더퍼스트"
    r"|장례식장|예식장|웨딩홀|컨벤션"
)
#: The letter of a block ("A동", "나동", "에이동", "비동"): a Latin letter, a letter spelled in
#: Hangul (에이 비 씨 디), or one of the syllables 가나다라마바사 that villas letter blocks with.
_BLOCK_LETTER = r"(?:[A-Za-z]|에이|비|씨|디|[가나다라마바사])"
#: A block with no unit after it ("산 12-3 나동", "나동에"): not 가동 or 사동 ("가동 중단":
#: operation), and a word of its own or before a particle (not "마동석", "바동거리다").
_LONE_BLOCK = (
    r"(?:[A-Za-z]|에이|비|씨|디|[나다라마바])동"
    r"(?:(?![가-힣A-Za-z0-9])|(?=[이을은의에으](?![가-힣])|에서|으로|입니|이에))"
)
#: A basement or rooftop before a unit's number: "지하 101호", "반지하 2호", "옥탑 301호".
_BELOW = r"(?:(?:반지하|지하|지층|옥탑)\s?)?"
#: A comma (or 、) may stand before a tail: "553-1, 동아에코빌 101동 702호", "273-11, 2층",
#: also after a space, as forms and contracts space it ("158-29 ,3층 302호", "312 - 7 , 2 층").
_COMMA = r"(?:\s?[,、])?"
#: A unit written building-dash-unit after its complex ("주공 101-1203", "강촌마을 305-1404"):
#: only after a building word, and not a count, a range of years or a service number
#: ("3-4층", "2019-2020", "1588-1234" are not units).
_DASH_UNIT = r"(?!1[568]\d\d-|(?:19|20)\d\d-)[1-9]\d{0,3}-\d{3,4}(?![0-9-]|\s?층)"
#: Where a tenant lives in a house with no unit number: "639-12 반지하", "244-81 옥탑방에서",
#: the back or side house of a lot ("418-2번지 뒷채", "… 별채에");
#: before a particle or alone (not "반지하철").
_ROOM_WORD = r"(?:반지하|옥탑방|옥탑|지하방|[앞뒷뒤]채|별채|안채|바깥채|문간방)" + WORD_END
#: A building's detail with no 호: its block and unit or its room ("그린빌 B동 201", "미래빌라
#: 201", "해뜰고시원 31번방"), or its block and a room word ("행복하우스 가동 반지하").
_BUILDING_DOOR = (
    r"(?:\s?(?:[A-Za-z0-9]{1,3}|"
    + _BLOCK_LETTER
    + r")\s?동)?\s?"
    + BARE_UNIT
    + r"|\s?"
    + _BLOCK_LETTER
    + r"동\s"
    + _ROOM_WORD
)
_BUILDING_NAME = (
    # a name of one or two words, not a demonstrative's ("…56 이 건물 1층": this building)
    r"(?:" + _COMMA + r"\s?(?:(?![이그저]\s)[가-힣A-Za-z0-9]{1,10}\s)?[가-힣A-Za-z0-9]{0,10}"
    r"(?:" + BUILDING_WORDS + r")"
    r"(?:\s?\d{1,2}차(?=\s?\d))?"
    r"(?:\s?"
    + _DASH_UNIT
    + "|"
    + _BUILDING_DOOR
    + r"|(?:\s?(?:[A-Za-z0-9]{1,3}|"
    + _BLOCK_LETTER
    + r")\s?동)?"
    r"(?=\s?" + _BELOW + r"(?:[A-Za-z]-?)?\d)))?"  # "더샵 B-1804": a letter and dash too
)
#: 호 of a unit ("706호에"), not of a tomb, a reactor or a line ("6호분", "5호기", "7호선").
UNIT_HO = r"호실?(?:(?![가-힣])|(?=[이가을를은는의에로와과도까입인으라였요임야]|예요))"
#: A unit may carry a letter: "B01호" (a basement unit), "A동 302호", "B1층".
_UNIT = (
    r"(?:(?:[A-Za-z]?\d{1,4}|"
    + _BLOCK_LETTER
    + r")\s?동\s?)?"
    + _BELOW
    + r"[A-Za-z]?\d{1,5}\s?"
    + UNIT_HO
)
#: A unit written in English after a lot ("726-51 Unit 3B", "Apt. 302", "Suite 1201", "#402").
_LATIN_UNIT = (
    r"(?:Unit|UNIT|Apt\.?|APT\.?|Suite|Room|Rm\.?|#)\s?[A-Za-z]?\d{1,4}[A-Za-z]?(?![A-Za-z0-9])"
)
#: A unit written as building/unit, as a form or a courier label shortens "101동 1203호":
#: "올림픽훼밀리 101/1203", "둔산동 1490 205/803"; not a date ("12/25", "2024/1203") nor a
#: run of fractions.
SLASH_UNIT = r"(?!(?:19|20)\d\d/)\d{2,4}/\d{3,4}(?![0-9/])"
#: The name of an apartment or building with no building word, between the lot number and
#: its "N동 N호" (both: a name alone before a floor or a 호 is too often a shop or a word):
#: "송도동 29-11 더샵 1203동 2105호", "… 래미안 퍼스트 101동 1201호".
_NAMED_COMPLEX = (
    r"(?:" + _COMMA + r"\s[가-힣A-Za-z][가-힣A-Za-z0-9]{0,9}"
    r"(?:\s[가-힣A-Za-z][가-힣A-Za-z0-9]{0,9})?"
    r"(?=\s?(?:(?:[A-Za-z]?\d{1,4}|"
    + _BLOCK_LETTER
    + r")\s?동\s?[A-Za-z]?\d{1,5}\s?"
    + UNIT_HO
    + "|"
    + SLASH_UNIT
    + "))"
    r"|" + NAMED_BUILDING_BEFORE_FLOOR + r")?"
)
#: A floor: "3층", "지하2층", "B1층", spaced "1 층", or Latin "2F", "B1F"; a shop's Latin-lettered
#: number may follow it ("지하2층 B-12", "1층 A12": only after a floor, where it is a room;
#: "B02호" is a unit, `_UNIT`).
_FLOOR = (
    r"(?:(?:지하\s?|지층\s?|[Bb])?\d{1,3}\s?층|지하\s?층(?![수고간])|[Bb]?\d{1,2}[Ff](?![A-Za-z0-9])|[Bb][1-9](?![0-9A-Za-z]))"
    r"(?:\s[A-Za-z]-?\d{1,4}(?![0-9A-Za-z호-]))?"
)
#: A unit written as block letter, dash, number ("가-101", "B-1804"), after a lot or a building.
_LETTER_UNIT = r"(?:[A-Za-z]|[가나다라마바사])-\d{2,4}(?![0-9A-Za-z가-힣-])"
#: A block letter in brackets before its unit: "(나)동 201호".
_BRACKETED_BLOCK = r"\([가나다라마바사A-Za-z]\)\s?동\s?\d{1,5}\s?" + UNIT_HO
#: A block letter before a floor: "15-3 가동 지하층", "나동 2층" (가동 too: a floor follows).
_BLOCK_BEFORE_FLOOR = _BLOCK_LETTER + r"동(?=\s?" + _FLOOR + ")"
#: A building with its floor or unit in brackets after the lot: "172-31 (세화빌라 3층)".
_BRACKETED_BUILDING = (
    r"\(\s?[가-힣A-Za-z0-9]{0,10}(?:" + BUILDING_WORDS + r")(?:\s?\d{1,2}차)?"
    r"(?:\s?(?:[A-Za-z0-9]{1,4}|" + _BLOCK_LETTER + r")\s?동)?"
    r"(?:,?\s?(?:" + _UNIT + "|" + _FLOOR + r"))+\s?\)"
)
#: One piece of an address's detail after the lot or the building: a unit, a floor, a block …
_UNIT_PIECE = "(?:" + "|".join([
    _COMMA + r"\s{0,2}" + _UNIT + UNIT_SIDE + "?",
    _COMMA + r"\s?" + _FLOOR + "(?:" + UNIT_SIDE + r"|\s" + BARE_UNIT + ")?",
    r"\s?" + _LONE_BLOCK,
    r"\s?" + _BLOCK_BEFORE_FLOOR,
    r"\s?" + LONE_NUMBERED_BLOCK,
    r"\s" + SLASH_UNIT,
    r"\s" + _LETTER_UNIT,
    r"\s" + _BRACKETED_BLOCK,
    r"\s?\(" + _FLOOR + r"\)",
    r"\s?" + _BRACKETED_BUILDING,
    _COMMA + r"\s" + _LATIN_UNIT,
]) + ")"  # fmt: skip
#: The neighbourhood in brackets after a road address ("(역삼동)", "(신림동, 한빛빌라)"), and a
#: floor or unit after it ("… 14 (신림동) 5층 503호").
_BRACKETED_PLACE = (
    r"\s?\([가-힣0-9]+(?:동|가|리)(?:\s?(?:산\s?)?\d{1,5}(?:-\d{1,4})?(?:\s?번지)?)?"
    r"(?:,\s?[가-힣0-9]+)?\)"
)
_UNITS_AND_LOT = _UNIT_PIECE + "*(?:" + _BRACKETED_PLACE + _UNIT_PIECE + "*)?"
#: The branch of a lot after its dash, spaced or not, or dictated with 다시 for the dash
#: ("신관동 230 다시 7 이요": a call's transcript; the number then stands alone, not "다시 3번").
_SPACED_BRANCH = r"(?:\s?-\s?\d{1,4}(?![0-9.]|\s?-\s?\d)|\s다시\s\d{1,4}(?![0-9.]|[가-힣]))?"
_LOT_WORD = r"(?:\s?(?:번지|番地))?"
#: A room word right after the number only ("639-12 반지하"); after a unit it describes the
#: unit ("B01호 반지하") and is left, as a floor word would be.
_ROOM_AFTER_LOT = r"(?:\s(?:[앞뒷옆]집\s)?" + _ROOM_WORD + ")?"
_ADDRESS_TAIL = re.compile(
    _SPACED_BRANCH + _LOT_WORD + _ROOM_AFTER_LOT + _NAMED_COMPLEX + _UNITS_AND_LOT
)
#: The same with a building before the floor or unit; tried only with a building word near
#: (its name part backtracks, and most house numbers have no building after them).
_ADDRESS_TAIL_BUILDING = re.compile(
    _SPACED_BRANCH + _LOT_WORD + _BUILDING_NAME + _NAMED_COMPLEX + _UNITS_AND_LOT
)
#: A building named last, as a word of its own, before a particle or a word of place:
#: "164-12 대성빌라 앞", "… 하나맨션에서"; its name has a syllable at least before the
#: building word ("주택" alone is a word, not a name). Tried only with a building word near.
_BUILDING_LAST = re.compile(
    r",?\s[가-힣A-Za-z0-9]{1,10}(?:" + BUILDING_WORDS + r")"
    r"(?=(?:에서|으로|로|의|은|는|이|가|을|를|에|와|과|도)?(?![가-힣A-Za-z0-9])"
    r"|\s?(?:앞|옆|뒤|근처|인근|건너편|맞은편|주변|골목|입구|부근))"
)
#: A part of the building named last: its annex or its roof ("… 전원주택 별채요", "… 동신빌딩
#: 옥상)에"), a word of its own or before a particle; not a roof's public use ("옥상 정원 개방",
#: "옥상 텃밭", "옥상 광고").
_PART_OF_BUILDING = re.compile(
    r"\s(?:별채|[앞뒷뒤]채|안채|바깥채|옥탑방?|반지하|지하방|옥상)"
    r"(?:(?![가-힣])|(?=요(?![가-힣])|(?:에서|에|이|은|는|을|의|으로|이야|이에요|입니다)(?![가-힣])))"
    r"(?!\s?(?:정원|공원|텃밭|농장|카페|전망대|광장|쉼터|휴게|광고|주차|수영장|헬기|놀이|데크|개방))"
)
#: A tail that only an address has (see the module docstring).
_STRONG_TAIL = re.compile(
    r"번지|番地|\d\s?층|\d\s?"
    + UNIT_HO
    + "|"
    + BUILDING_WORDS
    + r"|(?<![0-9])"
    + SLASH_UNIT
    + r"|다시\s\d"
)
_NUMBERED_DONG = re.compile(r"[가-힣]{2,5}\d{1,2}동")
_NUMBERED_AVENUE = re.compile(NUMBERED_AVENUE)
_SUBROAD = re.compile(r"\d{1,4}(?:번?(?:길|가)|" + BRANCH_LETTER + "길)")
#: A lettered branch right after a road's number: "이태원로 55가길 12" (the house number is 12).
_LETTERED_BRANCH = re.compile(BRANCH_LETTER + "길")
#: A road name that ends in a numbered branch written apart from its 길: "서동로99번 길".
_NUMBERED_ROAD = re.compile(r"[가-힣][로길]\d{1,4}번$")
#: Road forms that only a street has: a numbered branch, a 동 N가 neighbourhood. (Not 대로:
#: "반대로 6층", "차례대로 1", "부대로 38" end in the particle 대로, "as, by".)
_STREET_FORM = re.compile(
    r"\d(?:번|" + BRANCH_LETTER + r")?\s?길$|[동로]\s?\d{1,2}가$|[가-힣]\d가$"
)
_BUILDING = re.compile(BUILDING_WORDS)
#: Address words before the name ("주소는 역삼동 622", "자택(정자동 278)").
_CONTEXT_BEFORE = re.compile(
    r"주소|거주|자택|소재|사는\s?곳|살고|살던|사시는|이사|우편|배송|택배|도로명|지번|본가"
    r"|위치(?:한|는)|현주소|번지|本籍|原籍|住所"
)
#: Address words right after the number ("622에 살고", "544 앞에서", "35 일대").
_CONTEXT_AFTER = re.compile(
    r"\s?(?:에\s?(?:있|위치|소재|거주|살|사는|사시|이사|주소)|에서\s?(?:살|거주)|앞|근처|인근|일대"
    r"|부근|주변|건너편|맞은편|사거리|골목|일원|소재|거주)"
)
#: The branch of a lot written after its 번지 ("복대동 3021번지 7", as a register writes
#: 3021-7), standing last: before a bracket, a comma or the line's end, or before a particle,
#: a copula or a place word ("번지 7에 삽니다", "번지 7 입니다", "번지 7 앞"); not a floor, a
#: count or a bound ("번지 7층", "7 가구", "7명", "7 이상").
_BRANCH_AFTER_LOT = re.compile(
    r" [1-9]\d{0,3}(?=\s?[(,\n]|$"
    r"|(?:에|에서|으로|로|의|은|는|이|가|을|를|도)(?![가-힣])"
    r"|\s?(?:입니|이에|이고|이며|이라|이야|앞|옆|근처|부근|일대)"
    r"|\s(?:에|에서|으로|로)(?![가-힣]))"
)
_TOKEN = re.compile(r"[^\s]+")
#: A neighbourhood's name ("반송동", "효자동2가"), which a city may stand right before
#: without a district ("화성 반송동 1021").
_LOT_NAME = re.compile(r"[가-힣]{1,6}(?:동|리|\d가)")
_LEAD_PUNCT = re.compile(r"^[^가-힣0-9]+")
#: A word of syllables and digits only: no bracket, separator, Hanja or lead to cut.
_PLAIN_WORD = re.compile(r"[가-힣0-9]+")


#: A word that names a complex or a building: "호려울마을", "7단지", "한빛아파트", "2차".
COMPLEX_WORD = r"[가-힣A-Za-z0-9]{0,10}(?:" + BUILDING_WORDS + r")|\d{1,2}차"
_COMPLEX_WORD = re.compile(COMPLEX_WORD)


def accept_unit(text: str, m: re.Match, floor: int = 0) -> tuple[int, int] | None:
    """A bare apartment unit "302동 1102호": a 3-4 digit 동, or a building word just before.

    Read back over its complex and neighbourhood when they stand right before it
    (`_complex_start`).
    """
    dong = m.group().split("동", 1)[0]
    s, e = m.span()
    if not any(c in "123456789" for c in m.group()):
        return None  # "000동 000호": a mask written with zeros
    if len(dong) >= 3 or _BUILDING.search(text, max(0, s - 20), s):
        return _complex_start(text, s, floor), e
    return None


def _complex_start(text: str, s: int, floor: int) -> int:
    """Where a unit's address starts when a complex with no house number stands before it.

    "세종시 보람동 호려울마을 7단지 704동 1502호": one to three words naming the complex
    (`COMPLEX_WORD`), then a neighbourhood (a 동, 리 or 가 name, not a word such as 활동)
    and the units before it. Without the neighbourhood the unit alone (`s`): a complex's
    name alone is not read as a place.
    """
    words = WordsBefore(text, max(floor, s - 60), s)
    k = 0
    while k < 3 and (w := words[k]) is not None and _COMPLEX_WORD.fullmatch(w[2]):
        k += 1
    lot = words[k]
    if k == 0 or lot is None or not _LOT_NAME.fullmatch(lot[2]) or lot[2] in places.NOT_LOTS:
        return s
    return _units_before(WordsBefore(text, max(floor, lot[0] - 60), lot[1]))[1]


class WordsBefore:
    """The words of text[lo:s] joined to `s` by spaces only, read right to left on demand.

    ``words[0]`` is the word right before `s`, ``words[1]`` the one before it, and so on:
    each ``[start, end, word]``, or None past the chain's end. A newline or any other break
    ends the chain; leading brackets and quotes are cut off a word (and end the chain):
    "(관청리 441" gives the word "관청리". An address reads its road and the units before
    it, two to four words, so the rest of the 80 characters before the number is never
    split (most of the address rule's time on Wikipedia went there).
    """

    __slots__ = ("_text", "_s", "_it", "_right", "_done", "got")

    def __init__(self, text: str, lo: int, s: int):
        self._text, self._s, self._right, self._done = text, s, s, False
        self._it = _TOKEN.finditer(text[lo:s][::-1])  # the words, last first
        self.got: list[list] = []

    def __getitem__(self, k: int) -> list | None:
        while len(self.got) <= k and not self._done:
            self._read()
        return self.got[k] if k < len(self.got) else None

    def _read(self) -> None:
        """Reads the next word leftwards, or ends the chain."""
        m = next(self._it, None)
        if m is None:
            self._done = True
            return
        text, right = self._text, self._right
        w = [self._s - m.end(), self._s - m.start(), m.group()[::-1]]
        if right - w[1] > 2 or (right > w[1] and text[w[1] : right].strip(" ") != ""):
            if not _line_joins(text[w[1] : right], w[2], right == self._s):
                self._done = True
                return
        if not _PLAIN_WORD.fullmatch(w[2]):  # a bracket, a field separator, Hanja, Latin
            if hanja_unit(w[2]):  # "慶北 安東市 법흥동": a unit in Hanja
                self.got.append(w)
                self._right = w[0]
                return
            cut = field_cut(w[2]) or ((lead := _LEAD_PUNCT.match(w[2])) and lead.end())
            if cut:  # "사유지(운동동", "주소:대구", "17;부산", "(관청리": the word after it
                self._done = True
                if cut < len(w[2]):
                    self.got.append([w[0] + cut, w[1], w[2][cut:]])
                return
        self.got.append(w)
        self._right = w[0]


def _line_joins(gap: str, word: str, at_number: bool) -> bool:
    """True when a line break between two words of an address does not end it.

    A form or a label wraps an address: "전북 전주시 완산구 효자동2가\n1189-6" (the number
    on the next line after its road or lot name), "경기 안양시 동안구\n평촌대로 162" (a
    district, a known unit, a city, 읍 or 면, then the road on the next line: "교하읍\n야당리
    455-6"). One break, with
    spaces around it at most; another word before it ends the address as before.
    """
    if gap.strip(" \r") != "\n" or len(gap) > 4:
        return False
    if at_number:  # the road or lot name itself; the usual rules then decide
        return len(word) >= 3 and _ROAD_TOKEN.fullmatch(word) is not None
    return word in places.KNOWN_UNITS or (len(word) >= 3 and word[-1] in "시군구읍면")


def _road_of(words: WordsBefore) -> str:
    """The road or lot name directly before the number, joined with a numbered branch."""
    road = words[0][2]
    before = words[1]
    if before is not None and (
        (_SUBROAD.fullmatch(road) and before[2].endswith(("로", "길")))  # 중앙로 3번길
        or (road in ("길", "번길") and _NUMBERED_ROAD.search(before[2]))  # 서동로99번 길
        or (re.fullmatch(r"\d{1,2}가", road) and before[2].endswith(("동", "로")))  # 삼선동 1가
    ):
        road = before[2] + " " + road
        words.got[:2] = [[before[0], words[0][1], road]]
    return road


#: One-syllable words that stand before 동 or 리 as words, not as a name spaced apart: "이 동",
#: "옆 동", "각 리", "두 동".
_NOT_NAME_SYLLABLES = frozenset(
    "이 그 저 각 전 본 한 두 세 네 몇 옆 앞 뒤 윗 새 옛 타 별 매 동 리".split()
)


def _spaced_name(words: WordsBefore) -> bool:
    """Joins a one-syllable lot name written apart from its 동 or 리 ("좌 동" -> "좌동").

    A form or a typist spaces a short name ("해운대구 좌 동 1387-2"); the caller then asks
    for a district right before it (a lone "X 동" is too often a word and a building).
    """
    name, before = words[0], words[1]
    if name[2] not in ("동", "리") or before is None or len(before[2]) != 1:
        return False
    if (
        not ("가" <= before[2] <= "힣")
        or before[2] in _NOT_NAME_SYLLABLES
        or before[1] + 1 != name[0]
    ):
        return False
    words.got[:2] = [[before[0], name[1], before[2] + name[2]]]
    return True


#: A word that ends like a 면 or 도 unit but is a verb's conditional or a noun with a
#: particle and 도: "…에 따르면 X리 123", "있다면", "오후에도 신부동 …" (no township is named
#: so; "비만 오면 풍동 …" and the other two-syllable conditionals are `places.NOT_UNITS`).
_VERB_FORM = re.compile(r"(?:(?:으|려|다|라|니|르)면|(?:에|에서|으로|까지|부터|에게|한테|이라)도)$")


def _verb_form(tok: str) -> bool:
    """True for a 면 or 도 word of three syllables or more that `_UNIT_TOKEN` reads and that is
    no unit (`_VERB_FORM`; the two-syllable conditionals are `places.NOT_UNITS`)."""
    return len(tok) > 2 and _VERB_FORM.search(tok) is not None


def _units_before(words: WordsBefore) -> tuple[list[str], int]:
    """The administrative units right before the road, and where the first of them starts."""
    units: list[str] = []
    start = words[0][0]
    k = 1
    while (word := words[k]) is not None:
        t0, tok = word[0], word[2]
        if (
            tok in places.KNOWN_UNITS
            or (_UNIT_TOKEN.fullmatch(tok) and tok not in places.NOT_UNITS and not _verb_form(tok))
            or hanja_unit(tok)
            or (units and city_short(tok))  # "천안 서북구", a city before its district
            or (not units and city_short(tok) and _LOT_NAME.fullmatch(words[0][2]))
        ):
            units.append(tok)
            start = t0
            k += 1
        else:
            break
    return units, start


def _district_before(units: list[str]) -> bool:
    """True when the unit right before the name is a known one or a 3+ syllable 시/군/구/읍/면.

    Such a unit names a real neighbourhood even when the name is also a word (연동, 파동).
    """
    if not units:
        return False
    unit = units[0]  # `_units_before` reads them right to left
    return unit in places.KNOWN_UNITS or (len(unit) >= 3 and unit[-1] in "시군구읍면")


#: Words that end in 대로 as "as, according to" does ("계획대로", "상대로"), not a 대로 street.
NOT_AVENUES = frozenset(
    "상대로 그대로 제대로 마음대로 맘대로 멋대로 뜻대로 말대로 예상대로 계획대로 예정대로 "
    "원래대로 사실대로 규정대로 순서대로 약속대로 요구대로 지시대로 생각대로 명령대로 원칙대로 "
    "기대대로 법대로 이대로 저대로 그런대로 나름대로 당초대로 관례대로 전례대로 절차대로 "
    "합의대로 요청대로 바람대로 소원대로 의도대로 지침대로 설명대로 주장대로 보도대로".split()
)


def _says_address(text: str, road: str, num: str, start: int, m_end: int, end: int) -> bool:
    """True when an address with no unit before it is still an address (module docstring)."""
    # "삼선동 1가" -> "삼선동"; a numbered administrative dong keeps its number ("정릉3동")
    numbered = _NUMBERED_DONG.fullmatch(road) or _NUMBERED_AVENUE.fullmatch(road)
    name = road if numbered else re.sub(r"\s?\d.*$", "", road)
    if len(name) < 2 or name in places.NOT_LOTS or name in NOT_AVENUES:
        return False
    if name.endswith(("거리", "도로")):
        return False  # "최대사거리 1500-2000": a range, not a lot
    if _STREET_FORM.search(road):
        return True
    if re.search("[-\u3161]", num) and name[-1] in "동리" and not re.search(r"(?:^|-)0", num):
        return True  # a lot with its branch, "진관동 76-20"; not a score "골로 1-0"
    if _STRONG_TAIL.search(text, m_end, end) or text.startswith(("번지", "番地"), end):
        return True
    if _CONTEXT_AFTER.match(text, end):
        return True
    if len(name) < 3:
        return False  # a two-syllable name ("목동") needs a branch, a tail or a word after it
    return _CONTEXT_BEFORE.search(text, max(0, start - 20), start) is not None


def accept_address(text: str, m: re.Match, floor: int):
    """The span of the address whose number `m` matched, or None (module docstring)."""
    if m.group()[-1] == "호":
        return accept_unit(text, m, floor)
    if m.group()[0] == "0":
        return (
            None  # "000번길 00": masked with zeros; "숫자로 001부터": no house number has a 0 first
        )
    if _LETTERED_BRANCH.match(text, m.end()):
        return None  # the branch's number ("이태원로 55가길"); its house number follows
    span = number_span(text, m)
    if span is None:
        return None
    s, m_end = span
    num = text[s:m_end]
    if text[s - 1] == "산":  # a mountain lot: "후리 산53-1"
        s -= 1
    elif text[s - 2 : s] == "산 ":  # spaced: "우두리 산 128"
        s -= 2
    words = WordsBefore(text, max(floor, s - 80), s)
    if words[0] is None:
        return None
    spaced = _spaced_name(words)
    road = _road_of(words)
    if not _ROAD_TOKEN.fullmatch(road) or road.endswith("으로"):
        return None
    units, start = _units_before(words)
    if (road in places.NOT_LOTS or spaced) and not _district_before(units):
        return None  # "활동 3", "가동 2": a word; but "제주시 연동 273-11" is Jeju's 연동
    end = _tail_end(text, m_end)
    known = [u for u in units if u in places.KNOWN_UNITS or city_short(u)]
    # one unit is enough when it is a known name or a 3+ syllable 시/군/구 ("영월군", "덕양구")
    strong = [u for u in units if len(u) >= 3 and u[-1] in "시군구"]
    if units and len(units[0]) >= 3 and units[0][-1] in "읍면" and road[-1] == "리":
        strong.append(units[0])  # "봉양읍 구곡리 402": a village of its 읍 or 면
    if not known and not strong and len(units) < 2:
        if not _says_address(text, road, num, words[0][0], m_end, end):
            return None
    pm = _POSTAL.search(text, max(floor, start - 16), start)
    if pm and text[pm.end() : start].strip(" ") == "":
        start = pm.start()
    return start, end


def _tail_end(text: str, m_end: int) -> int:
    """Where the address whose number ends at `m_end` ends: over 번지, units and a building."""
    near = _BUILDING.search(text, m_end, m_end + 30)
    tail = (_ADDRESS_TAIL_BUILDING if near else _ADDRESS_TAIL).match(text, m_end)
    end = tail.end() if tail else m_end
    if text.startswith(("번지", "番地"), end):
        end += 2
    if text.startswith(("번지", "番地"), end - 2) and (
        branch := _BRANCH_AFTER_LOT.match(text, end)
    ):
        end = branch.end()
    if near and near.start() < end + 12 and not _BUILDING.search(text, m_end, end):
        last = _BUILDING_LAST.match(text, end)  # "164-12 대성빌라 앞": the building named last
        if last:
            end = last.end()
            part = _PART_OF_BUILDING.match(text, end) if text[end : end + 1] == " " else None
            end = part.end() if part else end
    return end
