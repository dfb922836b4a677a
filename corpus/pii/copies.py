"""No copy left behind: every other occurrence of a detected value in the same record.

A petition names its writer's address once after ``주소:`` and again later with no
district before it; a phone number is given with its label and repeated bare. The
detector fires on the first and, rightly, not on the second (a bare ``역삼동 622`` or
an unlabelled ``2345-6789`` is not enough on its own), so the second would survive.
Once a value is detected anywhere in a record, `find_copies` finds every other
occurrence of it in that record, whether or not the detector would fire there:

* written the same way or differently spaced or separated: ``010-1234-5678``,
  ``010 1234 5678``, ``01012345678``; ``역삼동 622`` and ``역삼동622`` (the scanner
  reads a full-width copy folded, so ``０１０…`` is the same value too);
* for an address, also its core alone: ``서울 강남구 역삼동 622`` detected once makes a
  later ``역삼동 622`` (or ``테헤란로 12``) a copy.

A copy gets the same pseudonym as the value it copies (`corpus.pii.generate`), its
letters and digits written into the copy's own separators, so a reader still sees
one person with one address or number.
"""

from __future__ import annotations

import functools
import re

from corpus.pii.addresses import core_of
from corpus.pii.detectors import EMAIL_AT, EMAIL_DOT
from corpus.pii.validators import DASHES

#: What may stand between two characters of a value in one of its copies.
_JOIN = rf"[\s{DASHES}.·]?"
#: Characters that are not part of a value's identity (read past when keying it).
_SEPARATORS = re.compile(rf"[\s{DASHES}.·()\[\]]+")
#: Keys shorter than this (after separators are dropped) are not looked for: a short run
#: of digits recurs by chance ("1.2.3.4" and "1234").
MIN_KEY = 6


def key_of(kind: str, value: str) -> str:
    """The value with its separators dropped (and an e-mail's written-out "@" and dots)."""
    if kind == "email":
        value = re.sub(EMAIL_DOT, ".", re.sub(EMAIL_AT, "@", value, count=1))
    return _SEPARATORS.sub("", value)


@functools.lru_cache(maxsize=4096)
def _copy_pattern(key: str) -> re.Pattern:
    """Matches `key` with an optional separator between any two of its characters."""
    body = _JOIN.join(re.escape(c) for c in key)
    before = (
        r"(?<![가-힣])"
        if "가" <= key[0] <= "힣"
        else r"(?<![0-9A-Za-z])"
        if key[0].isalnum()
        else ""
    )
    after = r"(?![0-9])" if key[-1].isdigit() else r"(?![A-Za-z0-9])"
    return re.compile(before + body + after)


def targets(kind: str, value: str) -> list[tuple[str, str]]:
    """[(key, part)]: what to look for, and which part of the value each copy stands for.

    ``part`` is ``"whole"``, or ``"core"`` for an address's road or lot with its number.
    """
    out = []
    key = key_of(kind, value)
    if len(key) >= MIN_KEY:
        out.append((key, "whole"))
    if kind == "address":
        core = core_of(value)
        if core is not None and core != value:
            core_key = key_of(kind, core)
            if len(core_key) >= 4 and core_key != key:  # "역삼동5": a name and a number
                out.append((core_key, "core"))
    return out


def find_copies(
    text: str, found: list[tuple[int, int, str, str]], taken: list[tuple[int, int]] = ()
) -> list[tuple[int, int, str, str, str]]:
    """Copies of the values in `found` ((start, end, type, value)) that `found` misses.

    Returns (start, end, type, value copied, part) for each, in text order, never
    overlapping `found`, the spans in `taken` or each other. `text` is the folded
    text the scan read.
    """
    taken = sorted([(s, e) for s, e, _, _ in found] + list(taken))
    copies: list[tuple[int, int, str, str, str]] = []
    seen: set[tuple[str, str]] = set()
    for _, _, kind, value in found:
        if (kind, value) in seen:
            continue
        seen.add((kind, value))
        for key, part in targets(kind, value):
            for m in _copy_pattern(key).finditer(text):
                s, e = m.span()
                if any(s < b and a < e for a, b in taken):
                    continue
                copies.append((s, e, kind, value, part))
                taken.append((s, e))
    copies.sort()
    return copies


def aliases(found: list[tuple[int, int, str, str]]) -> dict[int, tuple[str, str]]:
    """{index in `found`: (value it stands for, part)} for a value detected more than once.

    ``010-1234-5678`` and a later ``010 1234 5678`` are both detected on their own; they
    are one number, so the later takes the pseudonym of the first. An address stands
    for the longest detected address with the same core: ``서울특별시 강남구 역삼동 622``
    and a later ``역삼동 622 앞`` are one address (the shorter takes the longer's core).
    """
    groups: dict[tuple[str, str], list[int]] = {}
    for i, (_, _, kind, value) in enumerate(found):
        if kind == "address":
            value = core_of(value) or value
        groups.setdefault((kind, key_of(kind, value)), []).append(i)
    out: dict[int, tuple[str, str]] = {}
    for (kind, key), members in groups.items():
        if len(members) == 1:
            continue
        first = members[0]
        if kind == "address":
            first = max(members, key=lambda i: (len(found[i][3]), -i))
        canon = found[first][3]
        for i in members:
            value = found[i][3]
            if value != canon:
                part = "core" if kind == "address" and key_of(kind, value) == key else "whole"
                out[i] = (canon, part)
    return out


def write_into(template: str, pseudonym: str) -> str:
    """`pseudonym`'s letters and digits written into `template`'s separators.

    ``write_into("010 1234 5678", "010-9876-5432") == "010 9876 5432"``; when the two
    do not have the same number of letters and digits, the pseudonym as it is.
    """
    chars = [c for c in pseudonym if not _SEPARATORS.fullmatch(c)]
    slots = [i for i, c in enumerate(template) if not _SEPARATORS.fullmatch(c)]
    if len(chars) != len(slots):
        return pseudonym
    out = list(template)
    for i, c in zip(slots, chars, strict=True):
        out[i] = c
    return "".join(out)
