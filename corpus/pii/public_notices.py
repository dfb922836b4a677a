"""Addresses and numbers a business or a public site gives as its own: detected, kept.

`corpus.pii.institutions` keeps a public institution's address and number by its name
right before them. Issue #24's sixth blind set has the same thing said by a business or
of a site that is nobody's home, in shapes of their own (`corpus.pii.kept.public_kind`
calls these rules for an ``address`` or a ``phone`` span only, after the institution
rules, so they cost nothing on text without one):

* `notice_address` (``notice_address``): a company's own premises in its own voice
  (``당사 고객센터(서울 …)``, ``본사 주소: …``); a footer line of a business, its fields
  split by ``|`` with a service number or a 고객센터 among them (``한빛출판 | … |
  고객센터 1600-… | 서울 마포구 …``); a clinic's move notice (``[병원 이전] … 한빛대로 301
  …에서 진료합니다``); a model house's or a development's site (``견본주택 위치: …``, ``…
  한빛대로 500 일원``: an area, no one's house); public land (``… 1-68 일대 시유지``);
* `business_phone` (``business_phone``): a landline on a business's contact line after
  its nationwide number (``TEL:1544-… (대표) / FAX:02-…``), or labelled by its customer
  centre's name and called official (``고객센터 070-… — ○○몰 공식 상담 번호``).

A person between the business and the value keeps it a person's (``당사 고객센터 김○○
상담원 자택 …``, ``고객센터 1588-… 담당자 직통 02-…``), and so does a residence or a
nearness word after the address (``… 근처``, ``…에 살아요``). A person's business card
(``○○○ 과장 | 경영지원팀`` then the company's address on the next line) is no notice of
the business: its address is the person's work address, and is replaced.
"""

from __future__ import annotations

import re

from corpus.pii.institutions import LIVES_AFTER, PERSON_WORD

#: A company speaking of its own premises: "당사 고객센터(…)", "본사 주소: …", "당사 서비스센터
#: 위치 -", then a bracket, a colon or an address word right before the address; a company's
#: customer, service or returns centre with its address in brackets or after 주소
#: ("○○몰 반품센터(경기 …)", "서비스센터 주소: …").
_CENTRE = r"(?:고객\s?(?:센터|지원센터|상담실)|서비스\s?센터|콜센터|A/S\s?센터)"
_PREMISES = r"(?:" + _CENTRE + r"|사옥|본점|지점|영업소|물류센터|반품센터|공장)"
_OWN_PREMISES = re.compile(
    r"(?:(?:(?<![가-힣])당사|(?<![가-힣])본사|(?<![가-힣])폐사)\s?" + _PREMISES + r"?"
    r"\s?(?:주소(?:는|지)?|소재지|위치)?\s?[(:：\-–]?"
    r"|(?<![가-힣])" + _PREMISES + r"\s?(?:\(|(?:주소(?:는|지)?|소재지|위치)\s?[:：]?))\s?$"
)
#: A footer's business fields, one of them on the same line as the address: a service
#: number, a customer centre, a business registration number, a mail-order licence.
_FOOTER_FIELD = re.compile(
    r"(?<![0-9])1[5-8]\d\d-\d{4}(?![0-9])|고객센터|사업자\s?(?:등록)?\s?번호|통신판매업|대표이사"
    r"|[Cc]opyright|©|[Aa]ll [Rr]ights [Rr]eserved"
)
#: A footer's field separators: a bar, a Hangul ㅣ written as one, a box-drawing bar.
_FIELD_BAR = re.compile(r"[|ㅣ│]\s?$")
#: A clinic's or a shop's move notice before the address on its line: "[병원 이전]", "치과
#: 이전 안내", "○○의원 확장 이전", "매장 이전". Not an association's office ("신도회 사무실
#: 이전 안내": an office may be someone's home).
_CLINIC_MOVE = re.compile(
    r"(?:병원|의원|치과|한의원|약국|클리닉|의료원|검진센터|동물병원|매장|본점|지점)\s?"
    r"(?:확장\s?|신축\s?)?(?:이전|이사)"
)
#: A development's site before the address on its line: a model house, a sales office.
_SITE_BEFORE = re.compile(r"견본주택|모델하우스|홍보관|분양\s?(?:사무소|사무실|현장)")
#: An area around the address, right after it: "한빛대로 500 일원", "…일원에서" (not 일원동).
_AREA_AFTER = re.compile(r"\s?일원(?:에서|의|에|으로|을|은|이)?(?![가-힣])")
#: Public land right after the address, maybe after an area word: "… 1-68 일대 시유지",
#: "… 산 12 국유지", "… 일원의 구유지": the state's or a city's land, no one's home, unless
#: someone is said to live on it (`LIVES_AFTER` after the land word: "… 시유지에 살아요").
_PUBLIC_LAND_AFTER = re.compile(
    r"\s?(?:(?:일대|일원)(?:의)?\s?)?(?:국공유지|국유지|공유지|시유지|도유지|구유지|군유지)"
)
#: A redevelopment's or a city plan's words: "… 일대 정비구역 지정", "재개발 조합은 … 철거",
#: "…정비구역 제1지구(… 일대)": a plan names an area, no one's home in it.
_PLANNING = r"(?:정비\s?(?:구역|계획|사업)|재개발|재건축|도시\s?계획|지구\s?단위\s?계획)"
_PLANNING_WORD = re.compile(_PLANNING)
#: A plan right after the address and its area word: "68-1 일대 정비구역 지정안", "123번지
#: 일대는 재개발 구역으로"; or the area's streets or shops: "24번지 일대 상가는 인쇄소로" (an
#: area described, no one's home; "… 일대에 살고", "제 집은 … 일대에 있어요" stay a home's).
_AREA_PLAN_AFTER = re.compile(
    r"\s?일대(?:의|에|가|를|는)?\s?(?:"
    + _PLANNING
    + r"|(?P<area>(?:상가|상권|상점가|주택가|골목|먹자골목|시장|지역)(?:는|은|가|이|의|에는)?\s))"
)
#: A home in the described area, said after it: "… 일대 상가 2층에 살아요", "… 에 삽니다".
_HOME_AFTER = re.compile(r"살|삽니|거주|집|자택|숙소")
_HOME_WINDOW = 30
#: An area or a range right after an address that a plan on its line names: "… 72-10 일대)",
#: "12-45번지부터 12-80번지까지".
_RANGE_AFTER = re.compile(r"\s?(?:일대|일원|(?:에서)?부터|[~∼])")
#: What stands between a notice's heading and its address on one line.
_LINE_WINDOW = 80


def _line_before(text: str, start: int) -> tuple[int, str]:
    """(where it starts, the text) of the line before `start`, at most `_LINE_WINDOW` long."""
    lo = max(0, start - _LINE_WINDOW)
    lo = max(lo, text.rfind("\n", lo, start) + 1)
    return lo, text[lo:start]


#: A person or a home between a heading and its value: a title, a relative or a worker
#: (`corpus.pii.institutions.PERSON_WORD`), the speaker's own, a residence.
_PERSONAL = re.compile(
    PERSON_WORD
    + r"|(?<![가-힣])(?:제|내|저의|나의)\s|(?:저희|우리)\s?집|자택|(?<![가-힣])집(?![가-힣])"
    r"|기숙사|숙소|거주|살고|살아|(?<![가-힣])사는"
)


def _personal_between(text: str, lo: int, hi: int) -> bool:
    """True when a person, a residence or the speaker's own is named in text[lo:hi]."""
    return _PERSONAL.search(text, lo, hi) is not None


def notice_address(text: str, start: int, end: int) -> bool:
    """True when the address text[start:end] is one a business or a public site gives as its
    own: a company's premises in its voice (`_OWN_PREMISES`), a business footer's field
    (`_FOOTER_FIELD` on a ``|``-split line), a clinic's move notice (`_CLINIC_MOVE`), a
    development's site, an area or public land (`_SITE_BEFORE`, `_AREA_AFTER`,
    `_PUBLIC_LAND_AFTER`). Not with a person named between the heading and the address, or
    a residence or nearness word after it."""
    if LIVES_AFTER.match(text, end):
        return False
    if _AREA_AFTER.match(text, end):
        return True
    lo, line = _line_before(text, start)
    if _planning_area(text, lo, start, end):
        return True
    land = _PUBLIC_LAND_AFTER.match(text, end)
    if land is not None:
        return not LIVES_AFTER.match(text, land.end()) and not _personal_between(text, lo, start)
    own = _OWN_PREMISES.search(line)
    if own is not None:
        return not _personal_between(text, lo + own.start(), start)
    if _FIELD_BAR.search(line):
        line_end = text.find("\n", end)
        whole = text[lo : line_end if line_end >= 0 else len(text)]
        return _FOOTER_FIELD.search(whole) is not None and not _personal_between(text, lo, start)
    for heading in (_CLINIC_MOVE, _SITE_BEFORE):
        m = heading.search(line)
        if m is not None:
            return not _personal_between(text, lo + m.start(), start)
    return False


def _planning_area(text: str, lo: int, start: int, end: int) -> bool:
    """True when the address text[start:end] is an area a redevelopment or a city plan names:
    a plan right after its area word (`_AREA_PLAN_AFTER`), or a plan's words earlier on its
    line and an area or a range right after it (`_RANGE_AFTER`). Not with a person, a home
    or the speaker's own on the line before it ("제 집 … 일대 정비구역"), which makes it a
    home in the area."""
    plan = _AREA_PLAN_AFTER.match(text, end)
    if plan is None:
        if _RANGE_AFTER.match(text, end) is None or not _PLANNING_WORD.search(text, lo, start):
            return False
    elif plan.group("area") and _HOME_AFTER.search(text, plan.end(), plan.end() + _HOME_WINDOW):
        return False
    return not _personal_between(text, lo, start) and not _LIVED.search(text, lo, start)


#: Someone's life at a place, said before it: "… 1087번지에서 30년을 살았습니다. 그런데 …
#: 1087번지 일대가 재개발된다며" (a real petition's home, named again before its plan).
_LIVED = re.compile(r"살았|살던|살다|거주|이사|전세|월세|자가|세입자|집주인")


#: A nationwide number on the line, then its label's pair: "TEL:1544-… (대표) / FAX:".
_SERVICE_THEN_LABEL = re.compile(
    r"(?<![0-9])1[5-8]\d\d-\d{4}(?![0-9])[^\n]{0,40}?(?:FAX|Fax|팩스|TEL|Tel|전화)\s?[:：.]?\s?$"
)
_PHONE_WINDOW = 64
#: A customer centre's name right before the number, as its label: "고객센터 070-…",
#: "콜센터 대표번호: 02-…", "A/S센터(031) …", maybe called official first ("공식 고객센터").
_CENTRE_LABEL = re.compile(
    r"(?P<official>공식\s?)?" + _CENTRE + r"\s?(?:대표\s?)?(?:번호|전화)?(?:은|는)?[\s:：(]*$"
)
_LABEL_WINDOW = 20
#: The text calling the number official, later on its line: "… 공식 상담 번호입니다", "공식
#: 대표 전화". A bare "고객센터(052-…)에 전화했지만 …" says nothing of whose line it is (the
#: generated set and `tests/test_pii_public_institutions` read it as a person's), so the
#: centre's name alone is not enough.
_OFFICIAL_AFTER = re.compile(r"공식\s?(?:상담\s?|대표\s?|고객\s?)?(?:번호|전화|연락처|창구)")
_OFFICIAL_WINDOW = 64
#: Whose centre it is, just before its name: "어머니 회사 고객센터 …" is read as personal.
_OWNER_WINDOW = 12
_AFTER_WINDOW = 12


def business_phone(text: str, start: int, end: int) -> bool:
    """True when the landline text[start:end] is a business's: on its contact line right
    after its nationwide number (``TEL:1544-… (대표) / FAX:02-…``), no person between them
    (``고객센터 1588-… 담당자 직통 02-…`` is the person's); or labelled by its customer
    centre's name and called official, before the name or later on its line (``고객센터
    070-… — ○○몰 공식 상담 번호입니다``), no person just before the name or just after the
    number (``고객센터 070-… 담당 김○○``)."""
    lo, line = _line_before(text, start)
    m = _SERVICE_THEN_LABEL.search(text, max(lo, start - _PHONE_WINDOW), start)
    if m is not None:
        return not _personal_between(text, m.start(), start)
    m = _CENTRE_LABEL.search(text, max(lo, start - _LABEL_WINDOW), start)
    if m is None or not (m.group("official") or _official_after(text, end)):
        return False
    if _personal_between(text, max(lo, m.start() - _OWNER_WINDOW), start):
        return False
    return not _personal_between(text, end, min(len(text), end + _AFTER_WINDOW))


def _official_after(text: str, end: int) -> bool:
    """True when the line after `end` calls the number official (`_OFFICIAL_AFTER`)."""
    stop = text.find("\n", end, end + _OFFICIAL_WINDOW)
    hi = stop if stop >= 0 else min(len(text), end + _OFFICIAL_WINDOW)
    return _OFFICIAL_AFTER.search(text, end, hi) is not None
