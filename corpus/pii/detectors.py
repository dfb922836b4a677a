"""The 16 personal-information detectors: one small registered detector per type.

A detector is a regular expression that matches a candidate at a given
position plus an ``accept`` function that validates it (check digits, real
calendar dates, IP parsing, nearby context words) and may widen the span (an
address grows leftwards from its house number over road and region names).
Detectors only find; `corpus.pii.scan` runs them together in one pass and
`corpus.pii.generate` replaces what they found.

Every pattern begins with a character from `Detector.first`, so the scanner
can combine all of them into one regular expression behind a single lookahead
of those characters: the regex engine then skips the (mostly Hangul) text
between candidates in C.
"""

from __future__ import annotations

import re

from corpus.pii.address_rules import AGE, LOT_REST, accept_address
from corpus.pii.birth_detector import BIRTH_PATTERN, accept_birth
from corpus.pii.detector_base import (
    CONTEXT_BEFORE,
    NA,
    NB,
    REGISTRY,
    Detector,
    context_rx,
    match_span,
    near,
    register,
)
from corpus.pii.phones import (
    MOBILE_DESCRIPTION,
    MOBILE_PATTERN,
    PHONE_DESCRIPTION,
    PHONE_PATTERN,
    accept_any_phone,
)
from corpus.pii.plates import (
    PLATE_DESCRIPTION,
    PLATE_LETTERS,  # noqa: F401 (re-exported: scan, generate and tests read it here)
    PLATE_PATTERN,
    REGIONS,
    accept_plate,
)
from corpus.pii.public_pages import file_or_unit, not_an_ip, ssh_remote
from corpus.pii.validators import (
    brn_ok,
    crn_ok,
    digits_of,
    ean13_ok,
    ipv4_ok,
    ipv6_ok,
    luhn_ok,
    rrn_birth_ok,
    rrn_checksum_ok,
)
from corpus.pii.written_shapes import (
    BRACKET_DOT,
    CLOSE_BRACKETS,
    HASH_AT,
    LETTER_SPACED_EMAIL,
    LINK_HOSTS,
    OPEN_BRACKETS,
    PERSONAL_SITE_TAIL,
    SPACE_AFTER_DOT,
    SPACED_WEBMAIL,
    SUBDOMAIN_HOSTS,
    UNDERSCORE_AT,
    UNDERSCORE_DOT,
    id_at_domain,
    personal_site_host,
    spoken_local_start,
    unspaced,
    webmail_dot,
    word_at_prose,
)

# 1. e-mail ---------------------------------------------------------------------------------


#: "@" as people write it when they do not want it harvested: " @ ", "(at)", "[at]", " at ",
#: a bracketed "@" ("[@]", "(@)"), and in Korean: "골뱅이" (the Korean name of "@";
#: bracketed, spaced or not), "앳" or its common misspelling "엣" (bracketed, or spaced
#: like " at ": "엣지" is a word, " 엣 " is not) and "에이티", "at" read out letter by letter
#: (bracketed or spaced the same way: "에이티즈" is a word); the brackets may be CJK ones
#: ("【at】"), and "_at_" stands for it where a form takes no "@" (`UNDERSCORE_AT`).
EMAIL_AT = (
    r"(?:\s?@\s?|\s?[" + OPEN_BRACKETS + r"]\s?(?:at|AT|@|골뱅이|[앳엣]|에이티)\s?["
    + CLOSE_BRACKETS + r"]\s?| (?:at|AT|[앳엣]|에이티) "
    r"|\s?골뱅이\s?|\s?" + HASH_AT + r"\s?|" + UNDERSCORE_AT + ")"
)  # fmt: skip
#: "." the same way: "[dot]", "(dot)", " dot ", and in Korean "닷", "점" or its colloquial
#: "쩜" (bracketed or spaced); a dot with a space on both sides ("naver . com").
EMAIL_DOT = (
    r"(?:"
    + SPACE_AFTER_DOT
    + r"|\.|\s?["
    + OPEN_BRACKETS
    + r"]\s?(?:dot|DOT|닷|[점쩜])\s?["
    + CLOSE_BRACKETS
    + r"]\s?| (?:dot|DOT|닷|[점쩜]) | \. |"
    + BRACKET_DOT
    + "|"
    + UNDERSCORE_DOT
    + ")"
)
#: Written-out "@"s that are words too: "@" only before a webmail domain or near a mail word.
_WORD_AT = frozenset((" at ", " AT ", " 앳 ", " 엣 ", " 에이티 "))
#: Webmail domains: a bare " at " (also an English word) is read as "@" only before one of
#: these, or near a mail word.
MAIL_DOMAINS = frozenset(
    "naver.com gmail.com daum.net hanmail.net kakao.com nate.com hotmail.com outlook.com "
    "yahoo.com yahoo.co.kr korea.kr icloud.com empas.com paran.com".split()
)
_MAIL_CONTEXT = context_rx(r"메일|[Mm]ail|MAIL|연락|문의|주소")
_WRITTEN_DOT = re.compile(EMAIL_DOT)
#: Webmail hosts said in Korean ("네이버 닷컴", "지메일 점 컴", "한메일 닷 넷"), as read out.
KOREAN_MAIL_HOSTS = {
    "네이버": "naver", "지메일": "gmail", "한메일": "hanmail", "다음": "daum",
    "네이트": "nate", "카카오": "kakao", "핫메일": "hotmail", "야후": "yahoo",
}  # fmt: skip
#: A domain read out in Korean: a Korean webmail host, then a dot (".", "닷", "점") and
#: "컴"/"넷" (or "com"/"net"), or a Latin label before a Korean "닷컴"/"점 넷". The word
#: after may be a particle ("닷컴으로") but not the rest of a word ("점 컴퓨터", "닷넷플릭스").
_KOREAN_DOMAIN = (
    r"(?:(?:" + "|".join(KOREAN_MAIL_HOSTS) + r")\s?(?:\.|닷|[점쩜])\s?(?:컴|넷|com|net)"
    r"|[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?\s?[닷점쩜]\s?[컴넷])"
    r"(?![A-Za-z0-9\-]|(?![으이에로을를은는도과와만])[가-힣])"
)
_KOREAN_DOMAIN_PARTS = re.compile(
    r"(" + "|".join(KOREAN_MAIL_HOSTS) + r")|\s?(?:\.|닷|[점쩜])\s?(컴|넷|com|net)$"
)
_KOREAN_TLD = {"컴": "com", "넷": "net", "com": "com", "net": "net"}


def email_parts(value: str) -> tuple[str, str, str]:
    """(local part, the "@" as written, domain as written) of an e-mail in any written form."""
    m = re.search(EMAIL_AT, value)
    return value[: m.start()], m.group(), value[m.end() :]


def mail_domain(written: str) -> str:
    """The domain with written-out dots made ".": "naver [dot] com" -> "naver.com";
    one read out in Korean as well: "네이버 닷컴" -> "naver.com"."""
    if "가" <= written[-1] <= "힣" or "가" <= written[0] <= "힣":
        return _KOREAN_DOMAIN_PARTS.sub(
            lambda m: KOREAN_MAIL_HOSTS[m[1]] if m[1] else "." + _KOREAN_TLD[m[2]], written
        ).lower()
    return webmail_dot(_WRITTEN_DOT.sub(".", unspaced(written))).lower()


def _accept_email(text: str, m: re.Match, floor: int):
    local, at, domain = email_parts(m.group())
    if local.startswith(".") or ".." in m.group():
        return None
    s, e = match_span(m)
    if ssh_remote(local, text, e) or file_or_unit(domain):
        return None  # "git@github.com:org/…": a code host's SSH account; "x@tty1.service"
    # a word, a star, "_at_", a letter-spaced address: a webmail host or a mail word near
    if at in _WORD_AT or at.strip() in ("☆", "★") or at[0] == "_" or " " in local:
        if word_at_prose(local, text, s):
            return None  # "Big Data at naver.com scale": a title
        host = mail_domain(domain)
        if (
            host not in MAIL_DOMAINS
            and not near(text, s, e, _MAIL_CONTEXT)
            and not id_at_domain(local, host)
        ):
            return None
    return spoken_local_start(text, s, e, floor), e  # "sojin 점 han 골뱅이 …"


register(Detector(
    "email", 1,
    r"(?<![A-Za-z0-9._%+\-])(?:[A-Za-z][A-Za-z0-9._%+\-]{0,63}" + EMAIL_AT
    + r"|[0-9][A-Za-z0-9._%+\-]{0,63}@)"  # written out only after a letter-led local part
    + r"(?:(?:[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?" + EMAIL_DOT + r")+[A-Za-z]{2,24}"
    r"(?![A-Za-z0-9\-])|" + _KOREAN_DOMAIN + "|" + SPACED_WEBMAIL + ")"
    r"|" + LETTER_SPACED_EMAIL,  # "s o o j i n @ n a v e r . c o m"
    "A-Za-z0-9", _accept_email,
    "e-mail address, also written out (id [at] naver [dot] com, id @ gmail.com)",
    gate=("@", "at", "AT", "골뱅이", "앳", "엣", "에이티", "#", "☆", "★"),
))  # fmt: skip

# 2. URL ------------------------------------------------------------------------------------

_URL_TRAIL = ".,;:!?'\")]}>」』】》〉"


def _accept_url(text: str, m: re.Match, floor: int):
    s, e = match_span(m)
    if m.group() == ".":  # a bare host, anchored on the dot before its "go.kr": grow left
        start = s
        while start > floor and text[start - 1] in HOST_CHARS:
            start -= 1
        if start > 0 and text[start - 1] in "@/:":
            return None  # an e-mail's domain or part of a longer address
        bare = (
            _BARE_HOST.match(text, start)
            or _PERSONAL_HOST.match(text, start)
            or _PERSONAL_SITE.match(text, start)
            or _spaced_handle(text, start)
        )
        if bare is None or bare.end() <= s:
            return None
        s, e = start, bare.end()
    while e > s and text[e - 1] in _URL_TRAIL:
        # keep a closing bracket that closes one opened inside the URL
        ch = text[e - 1]
        if ch == ")" and text.count("(", s, e) >= text.count(")", s, e):
            break
        e -= 1
    host = text[s:e].split("://", 1)[-1]
    if "." not in host or len(host) < 4:
        return None
    return s, e


_URL_BODY = r"[^\s<>\"'{}|\\^`\[\]\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3]"
#: Korean second-level domains: a bare host under them is a web address ("abc.go.kr"), while
#: a bare "name.ext" is as often a file or code ("config.yaml", "os.path").
KR_SLD = r"(?:go|co|or|ac|ne|re|pe)\.kr"

#: The characters of a host name (a bare host is read back over them from its dot).
HOST_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-")
#: The path of a bare host: Hangul belongs to it after a "/", "-", "_", "=" or "+"
#: ("…/entry/2023-회고", "…/tag/여행"), not right after a letter or digit, where it is
#: the particle of the sentence ("…/abc123에서").
_HOST_PATH = r"(?:" + _URL_BODY + r"|(?<=[/\-_=+])[가-힣]+)"
_BARE_HOST = re.compile(
    r"(?:[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?\.)+" + KR_SLD
    + r"(?![A-Za-z0-9\-])(?:/" + _HOST_PATH + "*)?"
)  # fmt: skip

#: A bare host with a path, under a generic top-level domain: "blog.naver.com/ID/123",
#: "instagram.com/ID", "youtu.be/abc", "cafe.daum.net/club"; a blog host that is itself
#: the person's name: "ID.tistory.com"; a handle: "youtube.com/@ID".
#: Also in capitals (caps lock, a poster: "INSTAGRAM.COM/ID"), but not the ".NET" of a
#: framework's name ("ASP.NET/MVC").
GENERIC_TLD = (
    r"(?:com|net|org|be|me|io|tv|us|ly|gl"
    r"|COM|NET(?<!ASP\.NET)(?<!VB\.NET)(?<!ADO\.NET)|ORG|BE|ME|IO|TV|US|LY|GL)"
)
_PERSONAL_HOST = re.compile(
    r"(?:[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?\.)+"
    r"(?:" + GENERIC_TLD + r"/(?=[A-Za-z0-9_~%@\-])" + _HOST_PATH + r"*"
    r"|tistory\.com(?![A-Za-z0-9\-])(?:/" + _HOST_PATH + r"*)?)"
)
#: The dot a bare host is anchored on: before its "go.kr", "com/ID" or "tistory.com".
BARE_HOST_DOT = (
    r"\.(?="
    + KR_SLD
    + r"(?![A-Za-z0-9\-])|(?:[A-Za-z0-9\-]+\.)*"
    + GENERIC_TLD
    + r"/[ \n]?[A-Za-z0-9_~%@\-]|tistory\.com(?![A-Za-z0-9\-])|"
    + PERSONAL_SITE_TAIL
    + ")"
)
#: Platforms whose host names nobody: the person is in the path (``blog.naver.com/ID``).
PLATFORM_HOSTS = frozenset(
    "blog.naver.com m.blog.naver.com cafe.naver.com m.cafe.naver.com post.naver.com "
    "naver.me cafe.daum.net m.cafe.daum.net blog.daum.net youtu.be youtube.com "
    "m.youtube.com instagram.com facebook.com m.facebook.com twitter.com x.com tiktok.com "
    "band.us github.com".split()
) | frozenset(LINK_HOSTS)
#: A platform's host, a space after its slash (voice input: "blog.naver.com/ yeri_travel"),
#: then the handle: one Latin word, not followed by another (English: "….com/ and more").
_SPACED_HANDLE = re.compile(
    r"((?:[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?\.)+" + GENERIC_TLD + r")/[ \n]"
    r"[A-Za-z0-9][A-Za-z0-9_.\-]{1,29}(?![A-Za-z0-9_.\-]|\s?[A-Za-z])"
)


#: A person's own site: "someone.notion.site", "linktr.ee/ID" (`corpus.pii.written_shapes`).
_PERSONAL_SITE = personal_site_host(_HOST_PATH)


def _spaced_handle(text: str, start: int) -> re.Match | None:
    """`_SPACED_HANDLE` at `start` when its host is a platform's (`PLATFORM_HOSTS`)."""
    m = _SPACED_HANDLE.match(text, start)
    return m if m is not None and m.group(1).lower() in PLATFORM_HOSTS else None


#: What follows the dot of `BARE_HOST_HINT` (the scan also looks for it after a dot).
BARE_HOST_TAIL = r"(?:kr|tistory|" + GENERIC_TLD + r"/|" + PERSONAL_SITE_TAIL + ")"
# Path-less hosts, reference pages, institutions' pages, example domains and official
# accounts: kept by `corpus.pii.public_pages` (through `corpus.pii.kept.public_kind`).

#: Texts without one of these hold no bare host (the scan only then stops at dots).
BARE_HOST_HINT = re.compile(r"\." + BARE_HOST_TAIL)

# A bare host is anchored on the dot before its second-level domain (".go.kr"), not on its
# first letter, so the scan does not try a host at the start of every Latin word.
register(Detector(
    "url", 2,
    r"(?<![A-Za-z0-9])(?:(?:https?|ftp)://|www\.)" + _URL_BODY + "+|" + BARE_HOST_DOT,
    "A-Za-z.", _accept_url,
    "web address (with scheme or www.; a bare host under .go.kr …; blog.naver.com/ID …)",
    gate=("://", "www.", ".kr", ".tistory", "/", *SUBDOMAIN_HOSTS),
    after_digit=True,  # the dot in "abc2.go.kr"
))  # fmt: skip

# 3. IP address -----------------------------------------------------------------------------


def _accept_ipv4(text: str, m: re.Match, floor: int):
    value = m.group()
    if not ipv4_ok(value) or value.startswith(("0.", "255.")):
        return None  # "this network" and netmasks are not anyone's address
    if len(value) == 7:
        return None  # 1.2.3.4: list numbering far more often than an address (or a public DNS)
    s, e = match_span(m)
    if not_an_ip(text, s, e):
        return None  # a version or section number ("버전 1.1.5.1", "규격서 3.4.12.1절")
    return s, e


_HEX = frozenset("0123456789abcdefABCDEF")
_ASCII_ALNUM = frozenset("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_IPV6_BODY = re.compile(r"[0-9A-Fa-f:]{2,39}(?![0-9A-Za-z:])")


def _accept_ip(text: str, m: re.Match, floor: int):
    if m.group() != ":":
        return _accept_ipv4(text, m, floor)
    # IPv6 is anchored on its first colon (so the scan needs no letters in its first-character
    # set) and grows left over the hex digits of the first group
    s = start = m.start()
    while start > max(floor, s - 4) and text[start - 1] in _HEX:
        start -= 1
    if start > 0 and (text[start - 1] in _ASCII_ALNUM or text[start - 1] in ":."):
        return None
    v6 = _IPV6_BODY.match(text, start)
    if v6 is None or v6.end() <= s + 1 or not ipv6_ok(v6.group()):
        return None
    return start, v6.end()


register(Detector(
    "ip", 8,
    r"(?<![0-9A-Za-z./])(?:\d{1,3}\.){3}\d{1,3}(?![0-9]|\.\d)"
    r"|:(?=:?[0-9A-Fa-f])",
    "0-9:", _accept_ip, "IPv4 or IPv6 address (parsed with ipaddress)", after_digit=True,
))  # fmt: skip

# 4-5. mobile phone; landline, VoIP and service numbers (`corpus.pii.phones`) ----------------

register(Detector(
    "mobile", 9, MOBILE_PATTERN, "0+(8공영Oo", lambda t, m, f: match_span(m), MOBILE_DESCRIPTION,
))  # fmt: skip
register(Detector(
    "phone", 10, PHONE_PATTERN, "0-9+(공영Oo", accept_any_phone, PHONE_DESCRIPTION,
))  # fmt: skip

# 6-7. resident and foreigner registration numbers ------------------------------------------

_RRN_CONTEXT = context_rx(r"주민|등록번호|외국인")
_CRN_CONTEXT = context_rx(r"법인")
_ID_LABEL = re.compile(r"법인|주민|외국인")


def _labelled_corporate(text: str, s: int) -> bool:
    """True when the nearest ID label before `s` is 법인, with no other number in between."""
    labels = list(_ID_LABEL.finditer(text, max(0, s - CONTEXT_BEFORE), s))
    last = labels[-1] if labels else None
    if last is None or last.group() != "법인":
        return False
    return not any(c.isdigit() for c in text[last.end() : s])


def _nearest_is_bank(text: str, s: int) -> bool:
    """True when a bank word stands closer before `s` than any resident-number word."""
    lo = max(0, s - CONTEXT_BEFORE)
    bank = [m.end() for m in _BANK_CONTEXT.finditer(text, lo, s)]
    rrn = [m.end() for m in _RRN_CONTEXT.finditer(text, lo, s)]
    return bool(bank) and (not rrn or max(bank) > max(rrn))


#: Words of a product's barcode: a 13-digit run next to one is an EAN ("EAN 490…").
_BARCODE_CONTEXT = context_rx(r"바코드|[Bb]arcode|EAN|JAN|GTIN|상품\s?코드|제품\s?코드|상품\s?번호")
#: GS1 Korea's prefix: a Korean product's barcode starts 880.
_KOREAN_GS1 = "880"


def _barcode(text: str, s: int, e: int, digits: str) -> bool:
    """True when a bare 13-digit run is a product barcode, not a resident number: no
    resident-number word near it, and a barcode word near it ("상품 바코드 880…", whatever
    its check digit: a made-up or mistyped barcode is still one) or a valid EAN check digit
    with GS1 Korea's 880 prefix (a resident number passes the EAN check one time in ten,
    so the check alone says nothing)."""
    if near(text, s, e, _RRN_CONTEXT):
        return False
    if near(text, s, e, _BARCODE_CONTEXT):
        return True
    return digits.startswith(_KOREAN_GS1) and ean13_ok(digits)


def _make_rrn_accept(sex_digits: str):
    def accept(text: str, m: re.Match, floor: int):
        value = m.group()
        digits = digits_of(value)
        if digits[6] not in sex_digits or not rrn_birth_ok(digits):
            return None
        s, e = match_span(m)
        masked = len(digits) < 13
        if crn_ok(digits) and _labelled_corporate(text, s):
            return None  # the nearest label says corporate number: the more specific reading
        unseparated = len(value) == 13
        if unseparated and not masked and _barcode(text, s, e, digits):
            return None
        if unseparated and not masked and not rrn_checksum_ok(digits):
            # bare 13-digit strings (barcodes, serials) need the check digit or a context word
            if not near(text, s, e, _RRN_CONTEXT):
                return None
            if _nearest_is_bank(text, s):
                return None  # "주민번호 … 카카오뱅크 7212218676713": the account's own label
        return s, e

    return accept


_RRN_PATTERN = r"(?<![0-9])\d{6}(?:\s?-\s?|\s)?[SEX](?:\d{6}|[*Xx●○]{6})" + NA

register(Detector(
    "rrn", 3, _RRN_PATTERN.replace("SEX", "1-4"), "0-9", _make_rrn_accept("1234"),
    "resident registration number (date + sex digit; checksum optional since Oct 2020)",
))  # fmt: skip
register(Detector(
    "frn", 4, _RRN_PATTERN.replace("SEX", "5-8"), "0-9", _make_rrn_accept("5678"),
    "foreigner registration number (sex digit 5-8)",
))  # fmt: skip

# 8. passport -------------------------------------------------------------------------------

_PASSPORT_CONTEXT = context_rx(r"여권|[Pp]assport|PASSPORT")


def _accept_passport(text: str, m: re.Match, floor: int):
    s, e = match_span(m)
    return (s, e) if near(text, s, e, _PASSPORT_CONTEXT) else None


register(Detector(
    "passport", 12,
    r"(?<![A-Za-z0-9])(?:[A-Z]\d{8}|[A-Z]\d{3}[A-Z]\d{4}|[A-Z]{2}\d{7})(?![A-Za-z0-9])",
    "A-Z", _accept_passport, "passport number (M12345678, M123A4567), next to 여권/passport",
    gate=("여권", "assport", "ASSPORT"), context_gated=True,
))  # fmt: skip

# 9. driver's licence -----------------------------------------------------------------------

_DL_CONTEXT = context_rx(r"면허")
DL_REGIONS = REGIONS


def _accept_dl(text: str, m: re.Match, floor: int):
    s, e = match_span(m)
    digits = digits_of(m.group())
    if len(digits) == 12:
        if not 11 <= int(digits[:2]) <= 28:
            return None
    else:  # the older form starts with a region name: "서울 12-345678-90"
        head = text[max(floor, s - 3) : s]
        region = next((r for r in DL_REGIONS if head.rstrip().endswith(r)), None)
        if region is None:
            return None
        s = s - (len(head) - len(head.rstrip())) - len(region)
    return (s, e) if near(text, s, e, _DL_CONTEXT) else None


register(Detector(
    "driver_license", 11,
    NB + r"(?:\d{2}[- ]?\d{2}[- ]?\d{6}[- ]?\d{2}|\d{2}-\d{6}-\d{2})" + NA,
    "0-9", _accept_dl, "driver's licence number (11-22-333333-44), next to 면허",
    gate=("면허",), context_gated=True,
))  # fmt: skip

# 10-11. business and corporate registration numbers ----------------------------------------

_BRN_CONTEXT = context_rx(r"사업자|등록번호")


def _accept_brn(text: str, m: re.Match, floor: int):
    digits = digits_of(m.group())
    if not brn_ok(digits):
        return None
    s, e = match_span(m)
    if len(m.group()) == 10 and not near(text, s, e, _BRN_CONTEXT):
        return None
    return s, e


register(Detector(
    "brn", 6, NB + r"\d{3}(?:-\d{2}-|\s\d{2}\s|\d{2})\d{5}(?![0-9]|-\d)", "0-9", _accept_brn,
    "business registration number (123-45-67890, check digit)",
))  # fmt: skip


def _accept_crn(text: str, m: re.Match, floor: int):
    digits = digits_of(m.group())
    if not crn_ok(digits):
        return None
    s, e = match_span(m)
    if len(m.group()) == 13 and not near(text, s, e, _CRN_CONTEXT):
        return None
    return s, e


register(Detector(
    "crn", 5, r"(?<![0-9])\d{6}(?:\s?-\s?)?\d{7}" + NA, "0-9", _accept_crn,
    "corporate registration number (110111-1234567, check digit)",
))  # fmt: skip

# 12. bank account --------------------------------------------------------------------------

_BANK_WORDS = tuple(
    "계좌 은행 뱅크 입금 송금 이체 예금주 통장 농협 신협 수협 우체국 새마을금고 ccount".split()
)
_BANK_CONTEXT = context_rx("|".join(_BANK_WORDS))


#: Words of a parcel's or registered letter's tracking number: "우체국 등기번호 1234…" is
#: the post office's tracking number, not its bank's account.
_TRACKING_CONTEXT = context_rx(r"등기|운송장|송장|택배|배송|소포|우편물|[Tt]racking")


def _nearest_is_tracking(text: str, s: int) -> bool:
    """True when a tracking word stands closer before `s` than any bank word."""
    lo = max(0, s - CONTEXT_BEFORE)
    tracking = [m.end() for m in _TRACKING_CONTEXT.finditer(text, lo, s)]
    bank = [m.end() for m in _BANK_CONTEXT.finditer(text, lo, s)]
    return bool(tracking) and (not bank or max(tracking) > max(bank))


def _accept_account(text: str, m: re.Match, floor: int):
    n = len(digits_of(m.group()))
    if not 10 <= n <= 16:
        return None
    s, e = match_span(m)
    if not near(text, s, e, _BANK_CONTEXT) or _nearest_is_tracking(text, s):
        return None
    return s, e


register(Detector(
    "bank_account", 15,
    r"(?<![0-9\-])(?:\d{2,6}(?:-\d{1,7}){1,4}|\d{10,14})(?![0-9]|-\d)",
    "0-9", _accept_account, "bank account number, next to 계좌/은행/bank names",
    context_gated=True,
))  # fmt: skip

# 13. card ----------------------------------------------------------------------------------


_CARD_CONTEXT = context_rx(r"카드|[Cc]ard|CARD|결제|아멕스|AMEX|다이너스")


def _accept_card(text: str, m: re.Match, floor: int):
    digits = digits_of(m.group())
    if digits[0] not in "34569" or not luhn_ok(digits):
        return None
    s, e = match_span(m)
    if len(m.group()) < 16 and not near(text, s, e, _CARD_CONTEXT):
        return None  # a bare 14-15 digit run is more often an account or serial than a card
    return s, e


register(Detector(
    "card", 7,
    NB + r"(?:\d{4}(?P<csep>[- ]?)\d{4}(?P=csep)\d{4}(?P=csep)\d{4}"
    r"|3\d{3}(?P<asep>[- ]?)\d{6}(?P=asep)\d{4,5})" + NA,
    "0-9", _accept_card, "credit/debit card number (Luhn)",
))  # fmt: skip

# 14. vehicle plate (`corpus.pii.plates`) ----------------------------------------------------

register(Detector(
    "plate", 13, PLATE_PATTERN, "0-9", accept_plate, PLATE_DESCRIPTION,
))  # fmt: skip

# 15. postal address ------------------------------------------------------------------------

#: A number followed by a counter word is a quantity ("충돌로 2명"), not a house number; nor
#: is the number of a tomb, a reactor or a line ("송산리 1호분", "5호기", "2호선").
_COUNTERS = (
    r"명|개|년|월|일|회|번(?!지)|호[분기선]|차|위|세|" + AGE + r"|%|억|만|천|원|시|분|초|배|점|권"
    r"|건|대|종|여|평|마리|편|곡|골|승|패|척|량|장|곳|군데|채|가지|번째|미터|킬로|센티|톤|리터|kg"
    r"|km|cm|mm|m\b"
)
#: ... attached ("2명") or written apart as a word of its own ("9 대 9", "1500 km").
_COUNTER_AFTER = r"(?!(?:" + _COUNTERS + r")|\s(?:" + _COUNTERS + r")(?![가-힣]))"

register(Detector(
    "address", 16,
    r"(?<![0-9])(?:\d(?:(?<=[로길동리가] \d)|(?<=[로길동리가]\d)|(?<=[로길동리가] 산\d)"
    r"|(?<=[로길동리가]\n\d)"  # the number on the next line: "효자동2가\n1189-6"
    r"|(?<=[로길동리가] 산 \d))"
    # not the number of a road named after its neighbourhood: "중동2로 11" (not "중동 2")
    + LOT_REST + r"(?![0-9]|[.,]\d|번?\s?길|가\s?\d"
    r"|로\s?\d{1,4}(?![0-9]|\s?[번개명년시분회층일월]))" + _COUNTER_AFTER
    + r"|\d{1,4}동\s?\d{1,5}호)",
    "0-9", accept_address,
    "road-name or lot-number address (with postal code when present); apartment unit N동 N호",
))  # fmt: skip

# 16. date of birth (`corpus.pii.birth_detector`) -------------------------------------------

register(Detector(
    "birth_date", 14, BIRTH_PATTERN,
    "0-9", accept_birth, "date of birth next to 생년월일/출생/태어나/생",
    context_gated=True,
))  # fmt: skip

#: Type names in registry order.
TYPES: tuple[str, ...] = tuple(REGISTRY)
