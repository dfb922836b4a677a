"""The generator of each type's pseudonym candidates: `GENERATORS[kind](value, rng)`.

Each draws a value of the same type and shape as `value` from `rng` (the caller's keyed
PRNG, so a draw is a pure function of the key, the type and the value): digits redrawn
with valid check digits, dates of birth within `AGE_WINDOW_YEARS`, e-mails and URLs with
their public parts kept, addresses drawn whole from the gazetteer
(`corpus.pii.addresses`), each keeping how the original was written (full-width, spaced,
read out in Korean). `corpus.pii.generate.Pseudonymizer` checks each candidate and draws
again when it would not be read back as its own type.
"""

from __future__ import annotations

import random
import re
import string
from collections.abc import Callable

from corpus.pii.addresses import generate_address
from corpus.pii.birthdates import date_fields, year_last
from corpus.pii.detectors import (
    MAIL_DOMAINS,
    PLATE_LETTERS,
    PLATFORM_HOSTS,
    REGISTRY,
    email_parts,
    mail_domain,
)
from corpus.pii.phones import KOREAN_PLUS, foreign_number
from corpus.pii.public_pages import (
    institution_host,
    personal_marks,
)
from corpus.pii.spoken_dates import is_spoken, write_month_day
from corpus.pii.validators import (
    SEX_DIGIT_CENTURY,
    brn_check_digit,
    crn_check_digit,
    global_ip,
    is_calendar_date,
    luhn_check_digit,
    public_resolver,
    rrn_check_digit,
)
from corpus.pii.written_shapes import CARRIER_HEAD, SUBDOMAIN_HOSTS, mixed_korean_digits

_HEX_LOWER = "0123456789abcdef"
_HEX_UPPER = "0123456789ABCDEF"
MAX_TRIES = 64


def scramble(value: str, rng: random.Random, keep: int = 0, hexdigits: bool = False) -> str:
    """Replaces every digit (and ASCII letter) after the first `keep` characters, same class."""
    out = list(value[:keep])
    for c in value[keep:]:
        if "0" <= c <= "9":
            out.append(rng.choice(_HEX_LOWER if hexdigits else string.digits))
        elif "a" <= c <= "z":
            out.append(rng.choice(_HEX_LOWER[10:] if hexdigits else string.ascii_lowercase))
        elif "A" <= c <= "Z":
            out.append(rng.choice(_HEX_UPPER[10:] if hexdigits else string.ascii_uppercase))
        else:
            out.append(c)
    return "".join(out)


_LETTERS_BY_CLASS = {"L": "lr", "C": "mn", "V": "abcdefghijkopqstuvwxyz"}


def final_letter_as(value: str, sound: str | None, rng: Callable[[], random.Random]) -> str:
    """`value` with its last sounding character, if a Latin letter, redrawn in class `sound`.

    Letters carry no check digit, so a URL path or e-mail that ends in a letter
    gets the particle class of the original directly instead of by rejection. `rng()` is
    called only then (a seeding costs ~6 µs; most values end in a digit or a syllable)."""
    for i in range(len(value) - 1, -1, -1):
        c = value[i]
        if c.isascii() and c.isalpha() and sound in _LETTERS_BY_CLASS:
            new = rng().choice(_LETTERS_BY_CLASS[sound])
            return value[:i] + (new.upper() if c.isupper() else new) + value[i + 1 :]
        if c.isalnum():
            return value  # a digit or Hangul: redrawn by the caller
    return value


def _put_digits(value: str, digits: str) -> str:
    """Writes `digits` into the digit positions of `value`, keeping everything else."""
    it = iter(digits)
    return "".join(next(it) if "0" <= c <= "9" else c for c in value)


def _digits(value: str) -> str:
    return "".join(c for c in value if "0" <= c <= "9")


def _rand_digits(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(string.digits) for _ in range(n))


# --- one generator per type -------------------------------------------------------------


_DOMAIN_LABEL = re.compile(r"(?<![A-Za-z])(?!(?:dot|DOT)(?![A-Za-z0-9]))[A-Za-z0-9\-]+")


def gen_email(value: str, rng: random.Random) -> str:
    """A new local part; a webmail domain kept, another one redrawn but for its TLD.

    The "@" and dots are kept as written (``id [at] naver [dot] com`` stays written out).
    """
    local, at, domain = email_parts(value)
    local = scramble(local, rng)
    if mail_domain(domain) not in MAIL_DOMAINS:
        labels = list(_DOMAIN_LABEL.finditer(domain))
        keep = 1 + (len(labels) > 2 and labels[-2].group() in ("co", "or", "ac", "go"))
        # a TLD read out in Korean ("mycorp 닷컴") is no label: every label is redrawn
        cut = len(domain) if "가" <= domain[-1] <= "힣" else labels[-keep].start()
        head = _DOMAIN_LABEL.sub(lambda m: scramble(m.group(), rng), domain[:cut])
        domain = head + domain[cut:]
    return f"{local}{at}{domain}"


#: Services whose users' sites are subdomains: only the subdomain is the person's.
_SUBDOMAIN_SERVICES = ("tistory.com", *SUBDOMAIN_HOSTS)


def gen_url(value: str, rng: random.Random) -> str:
    m = re.match(r"((?:https?|ftp)://)?(www\.)?([^/?#]*)(.*)", value, re.S)
    scheme, www, host, rest = (g or "" for g in m.groups())
    if host.lower() in PLATFORM_HOSTS and rest.strip("/"):
        return scheme + www + host + scramble(rest, rng)
    service = next((h for h in _SUBDOMAIN_SERVICES if host.lower().endswith("." + h)), None)
    if service:  # the blog's or site's name is the subdomain: "ID.tistory.com", "ID.notion.site"
        cut = len(host) - len(service) - 1
        return scheme + www + scramble(host[:cut], rng) + host[cut:] + scramble(rest, rng)
    labels = host.split(".")
    keep = 1 + (1 if len(labels) > 2 and labels[-2] in ("co", "or", "ac", "go", "ne") else 0)
    tail = "." + ".".join(labels[-keep:]) if len(labels) > keep else ""
    head = scramble(host[: len(host) - len(tail)], rng)
    if institution_host(host):  # its person's marks kept: replaced again on a second pass
        return scheme + www + head + tail + _scramble_around(rest, personal_marks(rest), rng)
    return scheme + www + head + tail + scramble(rest, rng)


def _scramble_around(value: str, keep: list[tuple[int, int]], rng: random.Random) -> str:
    """`scramble` of `value` but for the spans in `keep`, written as they are."""
    out, pos = [], 0
    for s, e in keep:
        out += [scramble(value[pos:s], rng), value[s:e]]
        pos = e
    return "".join(out) + scramble(value[pos:], rng)


#: Draws of `gen_ip` before it gives up on a global address (nearly all draws are global).
_IP_DRAWS = 64


def gen_ip(value: str, rng: random.Random) -> str:
    """Another address of the same shape, a global one and no public resolver's: a
    non-global pseudonym (``10.…``, ``127.…``) or ``8.8.4.4`` would be kept on a second
    pass (`public_kind`), as if no address had been replaced."""
    for _ in range(_IP_DRAWS):
        new = _draw_ip(value, rng)
        if global_ip(new) and not public_resolver(new):
            return new
    return new


def _draw_ip(value: str, rng: random.Random) -> str:
    if ":" not in value:
        octets = []
        for i, part in enumerate(value.split(".")):
            lo = 1 if i == 0 else 0
            if len(part) == 1:
                octets.append(str(rng.randint(max(lo, 0), 9)))
            elif len(part) == 2:
                octets.append(str(rng.randint(10, 99)))
            else:
                octets.append(str(rng.randint(100, 255)))
        return ".".join(octets)
    # IPv6: every hex digit redrawn in the same case; the first digit of a group stays non-zero
    out = []
    for group in value.split(":"):
        g = scramble(group, rng, hexdigits=True)
        if len(g) > 1 and g[0] == "0":
            g = rng.choice("123456789") + g[1:]
        out.append(g.upper() if group.isupper() else g)
    return ":".join(out)


#: Digits written as Korean words, or as the letter O ("O1O-…").
_TO_DIGIT = str.maketrans("공영일이삼사오육륙칠팔구Oo", "00123456678900")
_TO_WORD = str.maketrans("0123456789", "공일이삼사오육칠팔구")


def _written_like(new: str, original: str) -> str:
    """The digits of `new` written as `original` writes the digit at the same place.

    A word stays a word (zero as "영" when `original` says "영" for it), the letter
    O stays O where the new digit is 0, an ASCII digit stays a digit: "공1공-7783-…"
    keeps its mix. The generators keep the length and the separators.
    """
    zero = "영" if "영" in original else "공"
    out = []
    for n, o in zip(new, original, strict=True):
        if o in "Oo" and n == "0":
            out.append(o)
        elif "가" <= o <= "힣" and n.isdigit():
            out.append(zero if n == "0" else n.translate(_TO_WORD))
        else:
            out.append(n)
    return "".join(out)


def _not_in_digits(value: str) -> bool:
    """True when a phone number writes a digit as a word or as O ("공일공 …", "O1O-…",
    "010 8823 4O19", "010-칠칠일구-3305")."""
    return "O" in value or "o" in value or mixed_korean_digits(value)


def gen_mobile(value: str, rng: random.Random) -> str:
    if _not_in_digits(value):  # drawn as digits, written back as the original writes them
        return _written_like(gen_mobile(value.translate(_TO_DIGIT), rng), value)
    m = re.match(
        r"((?:\+ ?82|00[-. ]?82)(?:\s?[-.]\s?|\s)?(?:\(0\)|0)?1[016789]"
        r"|\(\+82\)\s?(?:\(0\)|0)?1[016789]"
        r"|82[-. ]1[016789]|\(?01[016789]|0 1 [016789])",
        value,
    )
    head = m.group()
    rest = scramble(value[len(head) :], rng)
    rest = re.sub(r"^([^0-9]*)0", lambda x: x.group(1) + rng.choice("123456789"), rest)
    return head + rest


_PHONE_HEAD = re.compile(
    r"((?:\+ ?82|00[-. ]?82|\(\+82\))(?:\s?[-.]\s?|\s)?(?:\(0\)|0)?(?:2|[3-6][1-5]|70)"
    r"|\(?(?:02|0(?:3[1-3]|4[1-4]|5[1-5]|6[1-4])|070|050[2-8]?|080))"
)


#: The kept head of a foreign number: "+44", "(+1)", "0044", "001-1" (a carrier's prefix and
#: the country code), the "1" of "1-310-…".
_FOREIGN_HEAD = re.compile(
    CARRIER_HEAD + r"|\(?\+\d{1,3}\)?(?=\D)|\+\d|00\d*?[ .\-]?\d{1,3}(?=\D)|1(?=\D)"
)


def _gen_foreign(value: str, rng: random.Random) -> str:
    """A foreign number: the head kept, the rest redrawn; no group of the rest starts with 0
    or 1 (a North American area code or exchange never does)."""
    head = _FOREIGN_HEAD.match(value)
    rest = scramble(value[head.end() :], rng)
    rest = re.sub(r"(?<![0-9])[01]", lambda _: rng.choice("23456789"), rest)
    return head.group() + rest


def gen_phone(value: str, rng: random.Random) -> str:
    if _not_in_digits(value):
        return _written_like(gen_phone(value.translate(_TO_DIGIT), rng), value)
    if value[0] == "+" and not KOREAN_PLUS.match(value):  # foreign: keep the country code
        # and a trunk "(0)" after it ("+44 (0)7911 …")
        cc = (
            re.match(r"\+\d{1,3}[ .\-]?\(0\)", value)
            or re.match(r"\+\d{1,3}(?=\D)", value)
            or re.match(r"\+\d", value)
        )
        rest = scramble(value[cc.end() :], rng)
        return cc.group() + re.sub(r"\d", lambda _: rng.choice("123456789"), rest, count=1)
    if foreign_number(value):  # "(+1) …", "0044 …", "1-310-…": the head kept
        return _gen_foreign(value, rng)
    if "2" <= value[0] <= "9":  # a local number without area code: no leading 0 or 1
        return rng.choice("23456789") + scramble(value[1:], rng)
    if value[0] == "1":  # service number: keep the prefix; never a year-like second half
        rest = scramble(value[4:], rng)
        return value[:4] + re.sub(r"\d", lambda _: rng.choice("3456789"), rest, count=1)
    m = _PHONE_HEAD.match(value)
    head = m.group()
    rest = scramble(value[len(head) :], rng)
    rest = re.sub(r"^([^0-9]*)0", lambda x: x.group(1) + rng.choice("123456789"), rest)
    return head + rest


#: A birth year is redrawn at most this many years from the original, so a person keeps
#: their age group (a child stays a child, a pensioner a pensioner): docs/pii.md.
AGE_WINDOW_YEARS = 3


def _near_year(year: int, rng: random.Random, lo: int, hi: int) -> int:
    """A year within `AGE_WINDOW_YEARS` of `year`, inside [lo, hi]."""
    return rng.randint(max(lo, year - AGE_WINDOW_YEARS), min(hi, year + AGE_WINDOW_YEARS))


def _birth6(rng: random.Random, century: int, year: int) -> str:
    """YYMMDD within the age window of two-digit `year`, in the sex digit's century."""
    while True:
        y = _near_year(year, rng, 0, 99)
        month, day = rng.randint(1, 12), rng.randint(1, 31)
        if is_calendar_date(century + y, month, day):
            return f"{y:02d}{month:02d}{day:02d}"


def _gen_resident(value: str, rng: random.Random, foreigner: bool) -> str:
    d = _digits(value)
    sex = d[6]
    century = SEX_DIGIT_CENTURY[sex]
    pairs = {"1": "12", "2": "12", "3": "34", "4": "34", "5": "56", "6": "56", "7": "78", "8": "78"}
    new = _birth6(rng, century, int(d[:2])) + rng.choice(pairs[sex])
    if len(d) == 7:  # masked: 900101-1******
        return _put_digits(value, new)
    body = new + _rand_digits(rng, 5)
    return _put_digits(value, body + str(rrn_check_digit(body, foreigner)))


def gen_rrn(value: str, rng: random.Random) -> str:
    return _gen_resident(value, rng, foreigner=False)


def gen_frn(value: str, rng: random.Random) -> str:
    return _gen_resident(value, rng, foreigner=True)


def gen_passport(value: str, rng: random.Random) -> str:
    return value[0] + scramble(value[1:], rng)


def gen_driver_license(value: str, rng: random.Random) -> str:
    d = _digits(value)
    if len(d) == 12:
        body = f"{rng.randint(11, 26):02d}" + _rand_digits(rng, 10)
    else:
        body = _rand_digits(rng, len(d))
    return _put_digits(value, body)


def gen_brn(value: str, rng: random.Random) -> str:
    body = f"{rng.randint(101, 999)}" + _digits(value)[3:5] + _rand_digits(rng, 4)
    return _put_digits(value, body + str(brn_check_digit(body)))


def gen_crn(value: str, rng: random.Random) -> str:
    d = _digits(value)
    # registry office + corporation kind, then a serial starting with 0 (never a resident number)
    body = f"{rng.randint(1101, 2899)}" + d[4:6] + "0" + _rand_digits(rng, 5)
    return _put_digits(value, body + str(crn_check_digit(body)))


def gen_bank_account(value: str, rng: random.Random) -> str:
    d = _digits(value)
    return _put_digits(value, rng.choice("123456789") + _rand_digits(rng, len(d) - 1))


def gen_card(value: str, rng: random.Random) -> str:
    d = _digits(value)
    body = d[0] + _rand_digits(rng, len(d) - 2)
    return _put_digits(value, body + str(luhn_check_digit(body)))


def gen_plate(value: str, rng: random.Random) -> str:
    """The digits and the plate's own syllable (its last plate letter) redrawn; a region's
    name before them kept ("서울12가3456", "부산 7 라 1290", "경기부천 바 7012")."""
    syllable = max(i for i, c in enumerate(value) if c in PLATE_LETTERS)
    out = []
    for i, c in enumerate(value):
        if c.isdigit():
            out.append(rng.choice(string.digits))
        elif i == syllable:
            out.append(rng.choice(PLATE_LETTERS))
        else:
            out.append(c)
    s = "".join(out)
    # the number block must not start with 0
    return re.sub(r"(?<![0-9])0(?=\d{1,2}\s?[가-힣])", lambda _: rng.choice("123456789"), s)


def gen_birth_date(value: str, rng: random.Random) -> str:
    if "년" in value or "年" in value:  # "6 9 년 0 8 월 1 7 일", "7O년 4월 1일", "67年 4月 8日"
        return _gen_year_month_day(value, rng)
    # the fields as read: no spaces, a scan's O and l as digits, "11/05/85" year last
    y, mo, da = date_fields(value)
    while True:  # the year within the age window, the date a real one
        if len(y) == 4:
            ny = str(_near_year(int(y), rng, 1900, 2099))
        else:
            ny = f"{_near_year(int(y), rng, 0, 99):02d}"
        nmo = _same_width_number(mo, rng, 12)
        nda = _same_width_number(da, rng, 31)
        year = int(ny) if len(ny) == 4 else 1900 + int(ny)
        if is_calendar_date(year, int(nmo), int(nda)):
            break
    if year_last(value):  # written day (or month) first: the drawn fields in that order
        first, second = (nda, nmo) if value.split("/")[0] == da else (nmo, nda)
        return _put_date_digits(value, first + second + ny)
    return _put_date_digits(value, ny + nmo + nda)


def _put_date_digits(value: str, digits: str) -> str:
    """`value` with `digits` written over its digits and a scan's letters for digits
    ("97.O2.l4" -> "93.05.21"), everything else kept; the drawn fields keep the widths."""
    it = iter(digits)
    return "".join(next(it) if c.isdigit() or c in "OolI" else c for c in value)


def _gen_year_month_day(value: str, rng: random.Random) -> str:
    """A ``N년 N월 N일`` date drawn like `gen_birth_date`'s, written into the digits of
    `value` (a letter O for 0 in its year too), so its spaces and words stay as written."""
    y, mo, da = date_fields(value)
    while True:
        if len(y) == 4:
            ny = str(_near_year(int(y), rng, 1900, 2099))
        else:
            ny = f"{_near_year(int(y), rng, 0, 99):02d}"
        nmo = _same_width_number(mo, rng, 12)
        nda = _same_width_number(da, rng, 31) if da else ""
        year = int(ny) if len(ny) == 4 else 1900 + int(ny)
        if is_calendar_date(year, int(nmo), int(nda or 1)):
            break
    if is_spoken(value):  # "89년 구월 십구일": the year's digits, the month and day said
        it = iter(ny)
        year = "".join(next(it, c) if c.isdigit() or c in "Oo" else c for c in value)
        return write_month_day(year, int(nmo), int(nda) if nda else None)
    it = iter(ny + nmo + nda)
    return "".join(next(it) if c.isdigit() or c in "Oo" else c for c in value)


def other_month_day(out: str, value: str, rng: random.Random) -> str:
    """`out` with the spoken month and day of `value` redrawn, each unlike the original's:
    `scramble` redraws digits only, and the month said in a word would stay."""
    _, mo, da = date_fields(value)
    month = rng.choice([m for m in range(1, 13) if m != int(mo)])
    day = rng.choice([d for d in range(1, 29) if d != int(da)]) if da else None
    return write_month_day(out, month, day)


def _same_width_number(orig: str, rng: random.Random, top: int) -> str:
    if len(orig) == 1:
        return str(rng.randint(1, 9))
    if orig[0] == "0":
        return f"0{rng.randint(1, 9)}"
    return str(rng.randint(10, top))


GENERATORS: dict[str, Callable[[str, random.Random], str]] = {
    "email": gen_email,
    "url": gen_url,
    "ip": gen_ip,
    "mobile": gen_mobile,
    "phone": gen_phone,
    "rrn": gen_rrn,
    "frn": gen_frn,
    "passport": gen_passport,
    "driver_license": gen_driver_license,
    "brn": gen_brn,
    "crn": gen_crn,
    "bank_account": gen_bank_account,
    "card": gen_card,
    "plate": gen_plate,
    "address": generate_address,  # drawn whole, with the same parts (corpus.pii.addresses)
    "birth_date": gen_birth_date,
}
assert set(GENERATORS) == set(REGISTRY), "every detector needs a generator"
