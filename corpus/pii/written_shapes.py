"""Issue #24, fourth blind set: more shapes of personal information as people write it.

The detectors (`corpus.pii.detectors`) read the common written forms; the fourth blind
set (tests/fixtures/pii/blind4.jsonl) showed more shapes of the same values. This
module holds the patterns and checks for them, so the detectors stay small; each is
gated behind a cheap test (a literal, or a match the detector already made):

* a mobile number whose groups are joined by ``*`` or ``_`` ("010*6683*2471"), with
  the letter O for 0 right in its prefix ("01O-7731-25O9"), or with a group read out
  in Korean between digit groups ("010-칠칠일구-3305");
* a foreign number dialled through a Korean carrier's prefix (001, 002, 005, 006,
  00700) then a country code ("001-1-408-…"), and one whose last groups are pairs after
  a group of three ("+7 916 482-33-19", "+46 70 123 45 67");
* an e-mail whose "@" is " at " after an id-like local part ("cheolsoo.b at
  korea.ac.kr", not the English "Big Data at naver.com"), a webmail host with a space
  for its dot ("naver com"), a dot with a space after it ("naver. com"), and a ``#``
  standing for "@" before a webmail host ("sol.kim#naver.com");
* a person's site with no path on a builder that gives each user a subdomain
  ("someone.notion.site", "…oopy.io", "…carrd.co"), a link-in-bio page ("linktr.ee/ID");
* an address's building named with no building word before its floor or unit ("… 727-5
  리버힐 2F", "… 더샵 1802호"), an apartment block alone ("… 별빛마을 907동"), and a city
  written without its 시 ("천안 서북구 …", "화성 반송동 …").

Elsewhere, where the logic already lives: a line break inside an address
(`corpus.pii.address_rules`), a two-digit-year birth said by a register ("호적엔 51년 3월
5일로 올라가 있는디") or a birth verb later in the sentence, 쌩 for 생, and 年/月/日 for
년/월/일 (`corpus.pii.birthdates`).
"""

from __future__ import annotations

import re

from corpus.pii import places
from corpus.pii.validators import DASH_LOOKALIKES, DASHES

# --- mobile numbers ------------------------------------------------------------------

#: Separators of a mobile number that hide it from harvesters, the same twice: "*", "_"
#: ("010*6683*2471", "010_9014_3358"); with `corpus.pii.detectors`' "~", "/", "ㆍ", "·".
MOBILE_HIDING_SEP = "*_"
#: A digit of a number partly read out in Korean, or an ASCII digit.
#: Digits read out in Korean, as people write a number they do not want harvested (one
#: source: `corpus.pii.phones` reads them from here).
KOREAN_DIGITS = "공영일이삼사오육륙칠팔구"
_MIXED_DIGIT = f"[0-9{KOREAN_DIGITS}]"
#: Between the groups of a number read out or mixed: a dash (spaces around it or not) or a
#: space; one source for `corpus.pii.phones`' landline read out.
DASH_OR_SPACE = rf"(?:\s?[{DASHES}{DASH_LOOKALIKES}]\s?|\s)"
#: A mobile prefix in digits, then groups of which one at least is read out in Korean:
#: "010-칠칠일구-3305", "010 8823 사일구공" (the all-digit form is the detector's own).
#: It starts with its literal "1" (the detector puts `nb("0")` before it).
MIXED_WORD_MOBILE = (
    r"1[016789]" + DASH_OR_SPACE + r"(?=[0-9]{0,4}" + DASH_OR_SPACE + r"?[0-9]{0,4}"
    r"[" + KOREAN_DIGITS + r"])" + _MIXED_DIGIT + "{3,4}" + DASH_OR_SPACE
    + _MIXED_DIGIT + "{4}(?!" + _MIXED_DIGIT + ")"
)  # fmt: skip
#: The scan's digit gate for `MIXED_WORD_MOBILE`, from the character after its "0".
MIXED_WORD_GATE = r"1[016789]\s?+[" + DASHES + DASH_LOOKALIKES + r"]?+\s?+[" + KOREAN_DIGITS + "]"


#: An emoji between the groups of a mobile number, the same twice ("010🐶3158🐶7742",
#: "010⭐…⭐…"): pictographs, symbols and dingbats, as the ranges of a character class (the
#: phone pattern allows a variation selector after it).
EMOJI_SEP = "\U0001f300-\U0001faff\u2600-\u27bf\u2b00-\u2bff"
#: The middle group of a mobile number in brackets: "010(9183)4476", "010 (2846) 5512";
#: after the prefix's "0" (the detector puts `nb("0")` before it).
BRACKETED_MIDDLE = r"1[016789]\s?\(\s?[1-9]\d{2,3}\s?\)\s?\d{4}(?![0-9])"


def mixed_korean_digits(value: str) -> bool:
    """True when a phone number has a digit written as a Korean word ("010-칠칠일구-…")."""
    return any(c in KOREAN_DIGITS for c in value)


# --- foreign numbers -----------------------------------------------------------------

#: Country codes after a carrier's prefix: the one-digit ones (North America 1, Russia
#: and Kazakhstan 7), the two-digit codes of ITU-T E.164 and the three-digit ones of
#: Korea's neighbours (as `corpus.pii.phones.DIALLED_COUNTRY`).
_COUNTRY = r"(?:1|7|2[07]|3[0-469]|4[013-9]|5[1-8]|6[0-6]|8[146]|9[0-58]|85[2356]|886)"
#: A Korean carrier's international prefix written apart, then a country code written
#: apart: "001-1-408-…", "002 86 10 …", "00700-81-3-…". Like a "00" prefix, a number
#: only with a country or "abroad" named near it, or a phone word.
CARRIER_DIALLED = re.compile(r"00(?:[1256]|700)[ .\-]" + _COUNTRY + r"[ .\-]")
#: The kept head of such a number, carrier and country code: "001-1", "00700-81".
CARRIER_HEAD = r"00(?:[1256]|700)[ .\-]" + _COUNTRY + r"(?=[ .\-])"


def trailing_pairs(groups: list[str]) -> bool:
    """True when a foreign number ends in two pairs after a group of three or more digits.

    Russia and its neighbours ("+7 916 482-33-19", "+375 29 123-45-67"), Sweden ("+46 70
    123 45 67") and Spain ("+34 612 34 56 78") write the line number so; a list of scores
    ("+10 20 30 40") has no longer group before its pairs. `groups`: the country code first.
    """
    rest = groups[1:]
    return (
        len(rest) >= 3
        and len(rest[-1]) == len(rest[-2]) == 2
        and len(rest[-3]) >= 3
        and 9 <= sum(map(len, rest)) <= 12
    )


#: The country codes of ITU-T E.164 (one-, two- and three-digit; 0 and the spare 28x, 80x
#: but 800/808, 83x, 89x, 99x but 990-998 are none): "+10 …" or "+3 …" is no country.
_E164 = re.compile(
    r"1|7|2[07]|3[0-469]|4[013-9]|5[1-8]|6[0-6]|8[1246]|9[0-58]"
    r"|2[1-69]\d|3[578]\d|42\d|5[09]\d|6[7-9]\d|80[08]|8[5-8]\d|9[679]\d"
)


def european_pairs(groups: list[str]) -> bool:
    """True when a foreign number is written as much of Europe writes its line number: a
    group of two to four digits, then three or more pairs ("+34 612 34 56 78", "+32 470 12
    34 56", "+45 20 12 34 56").

    A list of signed scores has that look too ("+30 20 10 15 22"), so the country code must
    be one (`_E164`: not "+10 20 30 40") and `corpus.pii.phones` asks for a phone or an
    abroad word near it. `groups`: the country code first.
    """
    rest = groups[1:]
    return (
        _E164.fullmatch(groups[0]) is not None
        and len(rest) >= 4
        and 2 <= len(rest[0]) <= 4
        and all(len(g) == 2 for g in rest[1:])
        and 8 <= sum(map(len, rest)) <= 12
    )


# --- personal sites ------------------------------------------------------------------

#: Site builders and blogs that give each person a subdomain: "someone.notion.site" names
#: its owner with no path (`corpus.pii.public_pages.BLOG_HOSTS` reads the name off).
SUBDOMAIN_HOSTS = (
    "notion.site", "oopy.io", "carrd.co", "github.io", "blogspot.com", "wixsite.com",
    "creatorlink.net", "postype.com", "vercel.app", "netlify.app", "mystrikingly.com",
    "imweb.me", "webflow.io",
)  # fmt: skip
_SUBDOMAIN_TAIL = "|".join(re.escape(h) for h in SUBDOMAIN_HOSTS)
#: Link-in-bio pages: the person is the path ("linktr.ee/ID", "bio.link/ID").
LINK_HOSTS = ("linktr.ee", "bio.link", "lnk.bio", "beacons.ai", "campsite.bio", "instabio.cc")
#: What follows a bare host's anchoring dot for these hosts (the scan's hint looks for it too).
PERSONAL_SITE_TAIL = (
    r"(?:(?:" + _SUBDOMAIN_TAIL + r")(?![A-Za-z0-9\-])"
    # each literal before its lookbehind: `re` skips an alternative that starts with a
    # literal at once, but tries one that starts with a lookbehind at every dot
    r"|ee/(?<=linktr\.ee/)|link/(?<=bio\.link/)|bio/(?<=lnk\.bio/)|ai/(?<=beacons\.ai/)"
    r"|bio/(?<=campsite\.bio/)|cc/(?<=instabio\.cc/))"
)
_LABELS = r"(?:[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?\.)"


def personal_site_host(host_path: str) -> re.Pattern:
    """The pattern of a person's site read from its first label: a subdomain of one of
    `SUBDOMAIN_HOSTS` (a path optional), or a `LINK_HOSTS` page with its path.
    `host_path`: the detectors' path pattern (Hangul only after "/", "-", "_" …)."""
    link = "|".join(re.escape(h) for h in LINK_HOSTS)
    return re.compile(
        _LABELS + r"+(?:" + _SUBDOMAIN_TAIL + r")(?![A-Za-z0-9\-])(?:/" + host_path + r"*)?"
        r"|(?:" + link + r")/(?=[A-Za-z0-9_~%@\-])" + host_path + "*"
    )


# --- e-mail --------------------------------------------------------------------------

#: Webmail hosts by their first label, as people name them without the dot (also
#: `corpus.pii.markup`'s comma for the dot: "id@naver,com").
WEBMAIL = r"(?:naver|gmail|daum|hanmail|nate|kakao|hotmail|outlook|yahoo|icloud)"
#: "#" typed for "@" before a webmail host ("sol.kim#naver.com (#을 @로 바꿔서)"): a hashtag
#: is never followed by a mail host and its dot; so a star, as Korean posts write it to keep
#: a bot from the address ("id☆gmail.com (☆→@)", a space on each side or not). Written at
#: its symbol (the scan's hint too); `corpus.pii.detectors.EMAIL_AT` takes the spaces.
HASH_AT = r"[#☆★](?=\s?" + WEBMAIL + r"\.)"
#: A dot in brackets ("hanmail [.] net"), as `corpus.pii.detectors.EMAIL_DOT` reads
#: "[dot]", and a dot with a space after or before it before a common TLD ("naver. com",
#: "naver .com", as a scan or a typist leaves it).
BRACKET_DOT = r"\s?[(\[{<]\s?\.\s?[)\]}>]\s?"
SPACE_AFTER_DOT = r"(?:\.\s|\s\.)(?=(?:com|net|org|kr|co\.kr)(?![A-Za-z0-9\-]))"
#: Brackets around a written-out "at" or "dot" (`corpus.pii.detectors.EMAIL_AT`): the ASCII
#: ones and the CJK lenticular, tortoise-shell, angle and corner ones ("id 【at】 naver.com",
#: "〔at〕"), each opener with its closer (a class body each).
OPEN_BRACKETS = r"(\[{<【〔〈《「『"
CLOSE_BRACKETS = r")\]}>】〕〉》」』"
#: "_at_" for "@" and "_dot_" for a dot, where a form takes no "@" ("jaemin_at_daum.net",
#: "_AT_ … _DOT_"); not an "_at_" inside a local part that an "@" follows ("look_at_me@…").
UNDERSCORE_AT = r"_(?:at|AT)_(?=[A-Za-z0-9])(?![A-Za-z0-9._%+\-]*@)"
UNDERSCORE_DOT = r"_(?:dot|DOT)_(?=[A-Za-z])"
#: An e-mail with a space between every two characters, as a scan or a typist leaves it
#: ("s o o j i n 0 3 @ n a v e r . c o m"): a letter-led local part, " @ ", the domain's
#: labels and dots, a TLD of 2-6 letters; no letter or digit after it.
LETTER_SPACED_EMAIL = (
    r"[A-Za-z](?<![A-Za-z0-9._\-] [A-Za-z])(?: [A-Za-z0-9._\-]){1,30} @ "
    r"[A-Za-z0-9](?: [A-Za-z0-9\-])*(?: \. [A-Za-z0-9](?: [A-Za-z0-9\-])*)*"
    r" \. [A-Za-z](?: [A-Za-z]){1,5}(?! ?[A-Za-z0-9])"
)
#: The scan's gate for `LETTER_SPACED_EMAIL`, at its first letter (written-form texts only).
LETTER_SPACED_GATE = r"[A-Za-z](?: [A-Za-z0-9._\-]){1,30}+ @"
_LETTER_SPACED = re.compile(r"\S(?: \S)+")


def unspaced(written: str) -> str:
    """`written` without its spaces when a space stands between every two characters
    ("n a v e r . c o m" -> "naver.com"); else as it is."""
    return written.replace(" ", "") if _LETTER_SPACED.fullmatch(written) else written


#: A webmail host with a space for its dot: "tmdgus95 at naver com".
SPACED_WEBMAIL = WEBMAIL + r"\s(?:com|net)(?![A-Za-z0-9\-])"
_SPACED_WEBMAIL = re.compile(r"(" + WEBMAIL + r")\s(com|net)$")
#: A local part that is an id: lowercase letters first, then digits, or parts joined by
#: ".", "_" or "-" ("cheolsoo.b", "tmdgus95", "hj_0303"); not an English word ("Data").
_ID_LOCAL = re.compile(r"[a-z][a-z0-9]*(?:[0-9]+[a-z0-9]*|(?:[._\-][a-z0-9]+)+)")
#: A capitalised word, as English prose has before " at ": "Big Data at naver.com scale".
_PROSE_WORD = re.compile(r"[A-Z][a-z]+")
#: The top-level domains an id's mail host ends in (a ".py" or ".md" is a file).
_MAIL_TLD = re.compile(r"\.(?:com|net|org|edu|kr|ac\.kr|co\.kr|io|me|jp|us|uk)$")


def webmail_dot(domain: str) -> str:
    """`domain` with the space of a spaced webmail host made a dot: "naver com" -> "naver.com"."""
    return _SPACED_WEBMAIL.sub(r"\1.\2", domain)


def word_at_prose(local: str, text: str, start: int) -> bool:
    """True when the local part before a bare " at " is a word of English prose.

    A capitalised word ("Data at naver.com"), or a lowercase word right after another
    Latin word ("… big data at naver.com"): the title of a talk, not an address. Not
    after a dot read out ("kim dot lee at gmail dot com"): that is the local part's own
    dot, and `spoken_local_start` takes the words before it in.
    """
    if _PROSE_WORD.fullmatch(local):
        return True
    if text[max(0, start - 4) : start] in ("dot ", "DOT "):
        return False
    before = text[max(0, start - 2) : start]
    return local.isalpha() and len(before) == 2 and before[0].isascii() and before[0].isalpha()


def id_at_domain(local: str, domain: str) -> bool:
    """True when " at " joins an id to a mail host: "cheolsoo.b at korea.ac.kr"."""
    return _ID_LOCAL.fullmatch(local) is not None and _MAIL_TLD.search(domain) is not None


#: An id's word then a dot read out, right before a spoken e-mail's local part: the
#: "sojin 점 " of "sojin 점 han 골뱅이 gmail 점 com" (or " dot ", " 닷 ", " 쩜 ").
_SPOKEN_LOCAL_HEAD = re.compile(
    r"(?<![A-Za-z0-9._%+\-])[A-Za-z][A-Za-z0-9._%+\-]{0,30} (?:[점쩜닷]|dot|DOT) $"
)


def spoken_local_start(text: str, s: int, e: int, floor: int) -> int:
    """Where the accepted e-mail `text[s:e]` starts once the local part's words before it
    that a dot read out joins are taken in ("sojin 점 han 골뱅이 …" from "han"), else `s`.

    Only an address said aloud (its "@" written out: no "@" in it) has its dots so; a
    typed one's "@" says the word before " 점 " is prose. A character test first: nearly
    every accepted e-mail has no space before it, or no dot word.
    """
    while text[s - 1 : s] == " " and text[s - 2 : s - 1] in "점쩜닷tT" and s > floor:
        if "@" in text[s:e]:
            return s
        head = _SPOKEN_LOCAL_HEAD.search(text, max(floor, s - 36), s)
        if head is None or e - head.start() > 160:
            return s
        s = head.start()
    return s


# --- addresses -----------------------------------------------------------------------

#: Cities written without their 시 before a district or neighbourhood: "천안 서북구 …",
#: "화성 반송동 1021" (the metropolitan cities' short names are units already).
_CITIES_SHORT = frozenset(
    u[:-1]
    for u in places.KNOWN_UNITS
    if u.endswith("시") and len(u) >= 3 and not u.endswith(("광역시", "특별시", "자치시"))
)


def city_short(token: str) -> bool:
    """True when `token` is a city's name without its 시 ("천안" for 천안시)."""
    return token in _CITIES_SHORT


#: The 호 of a unit (not of a reactor, a tomb or a line: "5호기", "6호분", "7호선").
_HO = r"호(?![기분선])"
#: A word that names a building or complex with no building word ("리버힐", "더샵", "Tower"):
#: not a word of the sentence ending in a particle or verb ending ("…에서 3층", "…그리고 2층"),
#: nor a place word ("근처 3층", "앞 2층": a reference point), nor a hall of a public
#: building ("구청로 1, 본관 1층 101호", "…청사 2층": an institution's, not a home).
_NAME_WORD = (
    r"(?!(?:근처|인근|부근|주변|건너편|맞은편|앞|옆|뒤|쪽|위|아래|사거리|골목|일대)(?![가-힣]))"
    r"[가-힣A-Za-z][가-힣A-Za-z0-9]{0,9}(?<![서고며면데니요다지게는은을를이가에도와과로관])"
    r"(?<!청사)"
)
#: A building's name between a house number and a floor written "2F" or a 3-4 digit unit,
#: with no building word: "한남동 727-5 리버힐 2F", "송도동 22-9 더샵 1802호". (With a 동 and a
#: 호, `corpus.pii.address_rules` reads any name; a name before "2층" stays out, as a shop's
#: often is: "정자동 278 스타벅스 2층"; but a floor with its unit after it is an office's or a
#: home's door: "가산동 60-26 에이스하이테크 14층 1403호".)
NAMED_BUILDING_BEFORE_FLOOR = (
    r"[,、]?\s" + _NAME_WORD + r"(?:\s" + _NAME_WORD + r")?"
    r"(?=\s?(?:[Bb]?\d{1,2}[Ff](?![A-Za-z0-9])|\d{3,4}"
    + _HO
    + r"|(?:지하\s?)?\d{1,2}\s?층\s?\d{2,4}"
    + _HO
    + r"))"
)
#: An apartment block with no unit after it, its number 3-4 digits ("… 별빛마을 907동 이거든요",
#: "… 1203동에"), at the end of its word or before a particle.
LONE_NUMBERED_BLOCK = (
    r"[1-9]\d{2,3}동(?:(?![가-힣A-Za-z0-9])"
    r"|(?=[이을은의에으](?![가-힣])|에서|으로|입니|이에|이거|이고))"
)

#: The end of a word, or a particle after it ("옥탑이야", "별채에서", "뒤편 에서").
WORD_END = (
    r"(?:(?![가-힣])|(?=(?:에서|에|이|은|는|을|의|로|으로|인데|이고|이야|이라|이에요|예요"
    r"|입니다)(?![가-힣])))"
)
#: The side or part of a floor or unit, as a form or a post names it in a house with no unit
#: letters: "302호(우)", "201호(좌)", "301호(우측)", "4층 좌측호", "2층 우측", "2층 전체",
#: "1층 뒤편", "3층옥탑". Only after a unit or a floor (`corpus.pii.address_rules`): alone,
#: "우측" and "전체" are words.
UNIT_SIDE = (
    r"(?:\s?\((?:좌|우|좌측|우측|앞|뒤|중앙)\)"
    r"|\s?(?:좌측호?|우측호?|전체|뒤편|앞편|안쪽|옥탑방?)"
    + WORD_END
    + r"|\s(?:좌|우)(?=\s?[,)\n]|\s?$))"  # bare, at a field's end: "2층 좌, 직업 …"
)
#: The end of a unit's number written without 호 ("미래빌라 201", "그린빌 B동 201에"): not
#: another number, a range or a decimal, and not a count ("아파트 200세대", "빌라 300 명").
_BARE_END = (
    r"(?![0-9A-Za-z.:~/%\-]|\s?(?:명|세대|가구|채|개|평|년|원|대|층|동|호|번|석|세|㎡|m))"
    + WORD_END
)
#: A unit with no 호, 3-4 digits (not a year "2019"), or a numbered room ("31번방"): only
#: right after a building's name or block (`corpus.pii.address_rules`), or a floor, where a
#: bare number is the home's door.
BARE_UNIT = r"(?:\d{1,3}번\s?방|(?!(?:19|20)\d\d(?!\d))[1-9]\d{2,3})" + _BARE_END
