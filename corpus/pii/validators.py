"""Check-digit and structure validators for Korean identifiers, cards, dates and IPs.

Pure functions on digit strings (separators already removed unless stated).
They are shared by the detectors (to accept a candidate) and the generators
(to make a pseudonym that is itself a valid value of its type).
"""

from __future__ import annotations

import datetime
import ipaddress

#: Dashes written between digit groups (hyphen-minus, hyphen, en dash, em dash, minus
#: sign), escaped for a regex character class.
DASHES = r"\-\u2010\u2013\u2014\u2212"
#: Characters people type as a dash between the groups of a phone number when they do not
#: want it harvested or their keyboard is in Korean mode: the jamo "ㅡ", the figure dash,
#: the horizontal bar, box-drawing lines, the katakana long mark, the small hyphen-minus.
#: Only the phone detectors read them (a range or a date never uses them).
DASH_LOOKALIKES = "\u3161\u2012\u2015\u2500\u2501\u30fc\ufe63"

_RRN_WEIGHTS = (2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 4, 5)
_BRN_WEIGHTS = (1, 3, 7, 1, 3, 7, 1, 3, 5)

#: Resident-number 7th digit -> century of birth. 1-4 citizens, 5-8 foreigners,
#: 9/0 (born in the 1800s) are left out: nobody alive carries them.
SEX_DIGIT_CENTURY = {"1": 1900, "2": 1900, "3": 2000, "4": 2000,
                     "5": 1900, "6": 1900, "7": 2000, "8": 2000}  # fmt: skip


def digits_of(value: str) -> str:
    """The decimal digits of `value`, in order."""
    return "".join(c for c in value if "0" <= c <= "9")


def is_calendar_date(year: int, month: int, day: int) -> bool:
    """True when year-month-day exists in the Gregorian calendar (29 Feb only in leap years)."""
    try:
        datetime.date(year, month, day)
    except ValueError:
        return False
    return True


def rrn_birth_ok(digits: str) -> bool:
    """The first 7 digits of a resident/foreigner number: valid YYMMDD and sex digit (1-8)."""
    if len(digits) < 7 or digits[6] not in SEX_DIGIT_CENTURY:
        return False
    century = SEX_DIGIT_CENTURY[digits[6]]
    return is_calendar_date(century + int(digits[0:2]), int(digits[2:4]), int(digits[4:6]))


def rrn_check_digit(first12: str, foreigner: bool = False) -> int:
    """The pre-October-2020 check digit of a resident (or foreigner) registration number."""
    total = sum(int(d) * w for d, w in zip(first12, _RRN_WEIGHTS, strict=True))
    check = (11 - total % 11) % 10
    if foreigner:
        check = (13 - total % 11) % 10
    return check


def rrn_checksum_ok(digits: str) -> bool:
    """True when the 13th digit is the old-style check digit (citizen or foreigner formula)."""
    if len(digits) != 13:
        return False
    foreigner = digits[6] in "5678"
    return int(digits[12]) == rrn_check_digit(digits[:12], foreigner)


def brn_check_digit(first9: str) -> int:
    """Check digit of a business registration number (사업자등록번호, 10 digits)."""
    d = [int(c) for c in first9]
    total = sum(x * w for x, w in zip(d, _BRN_WEIGHTS, strict=True)) + (d[8] * 5) // 10
    return (10 - total % 10) % 10


def brn_ok(digits: str) -> bool:
    """A 10-digit business registration number with a valid check digit; tax office 101-999."""
    if len(digits) != 10 or int(digits[:3]) < 101:
        return False
    return int(digits[9]) == brn_check_digit(digits[:9])


#: The middle two digits of a business registration number that mark a corporation or the
#: state (국세청's 사업자등록번호 체계, the 개인·법인 구분코드: 01-79 개인 과세사업자, 80 아파트
#: 관리사무소 등과 다단계판매원, 81·86·87·88 영리법인의 본점, 82 비영리법인의 본점 및 지점, 83
#: 국가·지방자치단체·지방자치단체조합, 84 외국법인의 본·지점 및 연락사무소, 85 영리법인의
#: 지점, 89 법인이 아닌 종교단체, 90-99 개인 면세사업자; reproduced e.g. in the Daou Office
#: manual "회사정보 개인/법인 구분 안내", manual.daouoffice.co.kr/hc/ko/articles/24445128946457).
#: 80 (a multi-level sales agent is a person) and 89 stay out.
CORPORATE_BRN_CODES = frozenset(f"{n}" for n in range(81, 89))


def corporate_brn(digits: str) -> bool:
    """True when the business registration number `digits` is a corporation's or the state's
    (`CORPORATE_BRN_CODES`): it names no natural person, unlike a sole trader's (01-79,
    90-99), which is the trader's own number."""
    return len(digits) == 10 and digits[3:5] in CORPORATE_BRN_CODES


def crn_check_digit(first12: str) -> int:
    """Check digit of a corporate registration number (법인등록번호, 13 digits)."""
    total = sum(int(c) * (1 if i % 2 == 0 else 2) for i, c in enumerate(first12))
    return (10 - total % 10) % 10


def crn_ok(digits: str) -> bool:
    """A 13-digit corporate registration number with a valid check digit."""
    return len(digits) == 13 and int(digits[12]) == crn_check_digit(digits[:12])


def luhn_check_digit(body: str) -> int:
    """The Luhn digit that makes ``body + digit`` pass the Luhn test."""
    total = 0
    for i, c in enumerate(reversed(body)):
        d = int(c)
        if i % 2 == 0:  # doubled: these are every second digit once the check digit is appended
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return (10 - total % 10) % 10


def luhn_ok(digits: str) -> bool:
    """The Luhn (mod 10) test used by payment cards."""
    return len(digits) >= 2 and int(digits[-1]) == luhn_check_digit(digits[:-1])


def ean13_ok(digits: str) -> bool:
    """A 13-digit EAN/GTIN barcode number with a valid check digit (weights 1, 3 alternating)."""
    if len(digits) != 13:
        return False
    total = sum(int(c) * (3 if i % 2 else 1) for i, c in enumerate(digits[:12]))
    return int(digits[12]) == (10 - total % 10) % 10


def ipv4_ok(value: str) -> bool:
    """A dotted-quad IPv4 address (no leading zeros, every octet 0-255)."""
    try:
        ipaddress.IPv4Address(value)
    except ValueError:
        return False
    return True


def global_ip(value: str) -> bool:
    """True unless the IP address `value` is one that names no one on the Internet.

    ``ipaddress``'s ``is_global`` is False for loopback (``127.0.0.1``), private networks
    (``10.0.0.1``, ``192.168.0.1``, ``172.16.0.1``), link-local (``fe80::1``), documentation
    (``2001:db8::1``), unspecified and shared (carrier NAT) addresses: the same on every
    home router or in every manual. A value ``ipaddress`` does not read counts as global.
    """
    try:
        return ipaddress.ip_address(value).is_global
    except ValueError:
        return True


#: Public DNS resolvers' addresses, printed in every network manual and router setting (an
#: anycast service's, no subscriber's): KT (168.126.63.1/2), SK Broadband (210.220.163.82,
#: 219.250.36.130), LG U+ (164.124.101.2, 203.248.252.2), Google Public DNS (8.8.8.8,
#: 8.8.4.4, 2001:4860:4860::8888/8844), Cloudflare (1.1.1.1, 1.0.0.1, and the filtering
#: 1.1.1.2/1.0.0.2, 1.1.1.3/1.0.0.3, 2606:4700:4700::1111/1001), Quad9 (9.9.9.9,
#: 149.112.112.112, 2620:fe::fe, 2620:fe::9), Cisco OpenDNS (208.67.222.222,
#: 208.67.220.220), AdGuard DNS (94.140.14.14, 94.140.15.15). Each provider's own setup page
#: lists them. (A seven-character address such as 1.1.1.1 is not read as an IP at all.)
PUBLIC_RESOLVERS = frozenset(
    "168.126.63.1 168.126.63.2 210.220.163.82 219.250.36.130 164.124.101.2 203.248.252.2 "
    "8.8.8.8 8.8.4.4 2001:4860:4860::8888 2001:4860:4860::8844 1.1.1.1 1.0.0.1 1.1.1.2 "
    "1.0.0.2 1.1.1.3 1.0.0.3 2606:4700:4700::1111 2606:4700:4700::1001 9.9.9.9 "
    "149.112.112.112 2620:fe::fe 2620:fe::9 208.67.222.222 208.67.220.220 94.140.14.14 "
    "94.140.15.15".split()
)


def public_resolver(value: str) -> bool:
    """True when the IP address `value` is a public DNS resolver's (`PUBLIC_RESOLVERS`),
    compared in its canonical form (``2001:4860:4860:0:0:0:0:8888`` too)."""
    try:
        return str(ipaddress.ip_address(value)) in PUBLIC_RESOLVERS
    except ValueError:
        return False


def ipv6_ok(value: str) -> bool:
    """An IPv6 address with at least three groups' worth of content (not a bare ``::``)."""
    if value.count(":") < 2 or not any(c.isalnum() for c in value):
        return False
    try:
        ipaddress.IPv6Address(value)
    except ValueError:
        return False
    return True
