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
  later ``역삼동 622`` (or ``테헤란로 12``) a copy; and its building part
  (`corpus.pii.addresses.building_parts`): ``… 둔산동 1492 한빛아파트 108동 1203호`` makes a
  later ``한빛아파트 108동`` (the block alone) or ``한빛아파트 108동 1203호`` a copy, and its unit
  written building-dash-unit, with the complex's name before it when there is one
  (``호려울7단지 704-1502`` after ``… 호려울마을 7단지 704동 1502호``), and a named building
  alone (``한빛아파트 경비실``: the pseudonym redraws the building's own name, so the
  building named alone must take the drawn name too);
* for a number whose identity is its digits (`DIGIT_KINDS`: phones, accounts, cards,
  registration numbers), also grouped differently or joined by ``/`` or ``_``:
  ``110-123-456789`` detected once makes a later ``1101 2345 6789`` or ``110/123/456789``
  a copy (`_regrouped`). The copy must read the same digits in full: the digit groups it
  is made of start and end on a group boundary, and it does not go on into another
  group through a dash or a dot (``110-123-456789-12`` is another number).

A copy gets the same pseudonym as the value it copies (`corpus.pii.generate`), its
letters and digits written into the copy's own separators, so a reader still sees
one person with one address or number.
"""

from __future__ import annotations

import bisect
import re

from corpus.pii.address_rules import COMPLEX_WORD, NUMBERED_AVENUE
from corpus.pii.addresses import building_names, building_parts, core_of, named_buildings
from corpus.pii.detectors import EMAIL_AT, EMAIL_DOT
from corpus.pii.validators import DASH_LOOKALIKES, DASHES

#: Characters that are not part of a value's identity (read past when keying it, and
#: when looking for its copies: ``010-1234-5678`` and ``010 1234 5678`` are one value;
#: a dash look-alike is a dash, ``2018ㅡ6`` and ``2018-6``).
_SEPARATOR_CHARS = rf" \t\n\r\u3000{DASHES}{DASH_LOOKALIKES}.·()\[\]"
_SEPARATORS = re.compile(f"[{_SEPARATOR_CHARS}]+")
_RUN = re.compile(f"[^{_SEPARATOR_CHARS}]+")
#: Keys shorter than this (after separators are dropped) are not looked for: a short run
#: of digits recurs by chance ("1.2.3.4" and "1234").
MIN_KEY = 6
#: The least characters of a named building's copy (its name and kind: "푸른빌").
MIN_NAME_KEY = 3
#: Types whose identity is their digits: a copy may group them differently.
DIGIT_KINDS = frozenset("mobile phone rrn frn brn crn card bank_account driver_license".split())
#: What may join the digit groups of such a copy: the separators, and "/" or "_".
_DIGIT_JOIN = rf"[{_SEPARATOR_CHARS}/_]"
_DIGIT_SEPARATORS = re.compile(_DIGIT_JOIN + "+")
#: Digit groups joined by one to three separator characters ("010 - 1234 - 5678").
_DIGIT_CHAIN = re.compile(rf"[0-9]+(?:{_DIGIT_JOIN}{{1,3}}[0-9]+)*")
_DIGIT_GROUP = re.compile(r"[0-9]+")
#: A join that makes two digit groups one number ("110-123-456789-12", "1.010"), so a copy
#: does not end or start there.
_NUMBER_JOIN = re.compile(rf"[{DASHES}.]")


#: The letter O between digits, read as a 0.
_OCR_ZERO = re.compile(r"(?<=[0-9])[Oo](?=[0-9])")


def key_of(kind: str, value: str) -> str:
    """The value with its separators dropped (and an e-mail's written-out "@" and dots)."""
    if kind == "email":
        value = re.sub(EMAIL_DOT, ".", re.sub(EMAIL_AT, "@", value, count=1))
    elif kind == "address":
        value = _OCR_ZERO.sub("0", value)  # "6O7-3" is "607-3" (`address_rules.LOT_REST`)
    return _SEPARATORS.sub("", value)


def _skeleton(text: str) -> tuple[str, list[int], list[int]]:
    """`text` without separators, with the start of each run in the skeleton and in `text`."""
    runs = list(_RUN.finditer(text))
    skel_starts, text_starts, pieces, n = [], [], [], 0
    for m in runs:
        skel_starts.append(n)
        text_starts.append(m.start())
        pieces.append(m.group())
        n += m.end() - m.start()
    return "".join(pieces), skel_starts, text_starts


def _to_text(i: int, skel_starts: list[int], text_starts: list[int]) -> int:
    """The offset in the text of skeleton character `i`."""
    r = bisect.bisect_right(skel_starts, i) - 1
    return text_starts[r] + i - skel_starts[r]


def _bounded(text: str, s: int, e: int) -> bool:
    """True when text[s:e] is a whole token: not the middle of a longer number or word."""
    first, last = text[s], text[e - 1]
    before = text[s - 1] if s else ""
    after = text[e] if e < len(text) else ""
    if "가" <= first <= "힣" and "가" <= before <= "힣":
        return False
    if first.isascii() and first.isalnum() and before.isascii() and before.isalnum():
        return False
    if last.isdigit():
        return not after.isdigit()
    return not (after.isascii() and after.isalnum())


#: A road numbered before its 로, as one run: "불당25로" (a copy may space it, "불당 25로").
_NUMBERED_AVENUE_RUN = re.compile(NUMBERED_AVENUE)


def _anchor(kind: str, value: str) -> str:
    """The value's longest run without a separator: any copy holds it (see `find_copies`).

    Of a road numbered before its 로, its name alone: a copy may space the number off."""
    if kind == "email":
        value = key_of(kind, value)
    run = max(_RUN.findall(value), key=len)
    if kind == "address" and run[-1] == "로" and _NUMBERED_AVENUE_RUN.fullmatch(run):
        return run[:-1].rstrip("0123456789")  # "불당25로" -> "불당"
    return run


def targets(kind: str, value: str) -> list[tuple[str, str, str]]:
    """[(key, part, anchor)]: what to look for, which part of the value a copy stands for.

    ``part`` is ``"whole"``, ``"core"`` for an address's road or lot with its number, or
    ``"tail"`` for its building part or unit; ``anchor`` is a piece of the text every copy
    contains.
    """
    out = []
    key = key_of(kind, value)
    if len(key) >= MIN_KEY:
        out.append((key, "whole", _anchor(kind, value)))
    if kind == "address":
        core = core_of(value)
        if core is not None and core != value:
            core_key = key_of(kind, core)
            if len(core_key) >= 4 and core_key != key:  # "역삼동5": a name and a number
                out.append((core_key, "core", _anchor(kind, core)))
            out += _lot_targets(value, core)
        out += _building_targets(value, key)
    return out


#: A lot with its branch at the end of an address's core: "내외동 1093-4".
_BRANCHED_LOT = re.compile(r"(\d{1,4})-(\d{1,4})$")


def _lot_targets(value: str, core: str) -> list[tuple[str, str, str]]:
    """The other ways a record writes the branched lot of `core` (`targets`, part "core").

    An old lot with 의 for its dash, after its name ("내외동 1093의4" for "내외동 1093-4");
    the number with 번지 alone when the address wrote it so ("633-12번지" after "… 등촌동
    633-12번지 2층"): a record that gave the full address names the lot by its number.
    """
    lot = _BRANCHED_LOT.search(core)
    if lot is None:
        return []
    main, branch = lot.groups()
    old = core[: lot.start()] + main + "의" + branch
    out = [(key_of("address", old), "core", main)]  # the anchor: in the original too
    if value.startswith(
        "번지", value.find(lot.group(), len(core) - len(lot.group())) + len(lot.group())
    ):
        numbered = lot.group() + "번지"
        out.append((key_of("address", numbered), "core", _anchor("address", numbered)))
    return out


def _building_targets(value: str, key: str) -> list[tuple[str, str, str]]:
    """The targets of an address's building part and of its unit's digits (`targets`)."""
    parts, unit = building_parts(value)
    buildings = named_buildings(value)
    out = []
    # the building's name without its kind ("은빛 2동 301호" for "은빛빌라 2동 301호")
    named = zip(buildings, building_names(value), strict=True) if parts and buildings else ()
    short = [
        part.replace(building, name, 1)
        for building, name in named
        if len(name) >= 2
        for part in parts
        if building in part
    ]
    for part in parts + short:  # the longer first: a copy of the whole part is not cut at its block
        part_key = key_of("address", part)
        if len(part_key) >= MIN_KEY and part_key != key:
            out.append((part_key, "tail", _anchor("address", part)))
    if unit is not None and len(unit[0] + unit[1]) >= MIN_KEY:  # "704-1502", "704 1502"
        out.append((unit[0] + unit[1], "tail", max(unit, key=len)))
    for building in buildings:  # "한빛아파트 경비실": its pseudonym's name too
        building_key = key_of("address", building)
        if len(building_key) >= MIN_NAME_KEY and building_key != key:
            out.append((building_key, "tail", building))
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
    wanted = dict.fromkeys(
        (key, kind, value, part, anchor)
        for _, _, kind, value in found
        for key, part, anchor in targets(kind, value)
    )
    for key, kind, value, part, anchor in wanted:
        if kind in DIGIT_KINDS and key.isdigit():
            spans = _regrouped(text, key)
        elif _recurs(text, anchor, taken):
            spans = _near_anchors(text, key, anchor)
        else:
            continue
        for s, e in spans:
            if part == "tail" and text[s].isdigit():  # a unit: "호려울7단지 704-1502"
                s = _complex_before(text, s)
            if kind == "address" and part != "whole":  # "나릿재 4단지 …", "진주 가좌로417"
                named = _name_before(text, s, value, part)
                if not any(named < b and a < e for a, b in taken):
                    s = named
            if _bounded(text, s, e) and not any(s < b and a < e for a, b in taken):
                copies.append((s, e, kind, value, part))
                taken.append((s, e))
    copies.sort()
    return copies


#: The name of a complex right before a copy of its unit ("호려울7단지 704-1502").
_COMPLEX_BEFORE = re.compile(r"(?<![가-힣A-Za-z0-9])(?:" + COMPLEX_WORD + r")\s?$")


def _complex_before(text: str, s: int) -> int:
    """Where a copy of a unit starts: at the complex's name joined to it, or at `s`."""
    m = _COMPLEX_BEFORE.search(text, max(0, s - 16), s)
    return m.start() if m else s


#: The word right before a detected address (one space between at most).
_WORD_BEFORE = re.compile(r"(?<![가-힣A-Za-z0-9])[가-힣A-Za-z0-9]{2,12} ?$")
_DIGITS = re.compile(r"[0-9]+")


def _name_before(text: str, s: int, value: str, part: str) -> int:
    """Where a copy of a part of the address `value` starts: at the word before `s` when
    it names what the copy leaves out (`_names_left_out`: "나릿재 4단지 410-1701" after
    "나릿재마을4단지 410동 1701호", "진주 가좌로417"), else at `s`."""
    before = _word_before(text, s)
    return before[0] if before and _names_left_out(before[1], value, part) else s


def _word_before(text: str, s: int) -> tuple[int, str] | None:
    """(start, word) of the word right before `s` (one space between at most), or None."""
    m = _WORD_BEFORE.search(text, max(0, s - 13), s)
    return (m.start(), m.group().rstrip()) if m else None


def _names_left_out(word: str, value: str, part: str) -> bool:
    """True when `word` names what a copy of `part` of the address `value` leaves out: for
    a building part, one of `value`'s buildings or its start (two syllables at least); for a
    core, its city or district, maybe without 시/군/구 ("김해" for "김해시")."""
    if part == "tail":
        return any(name.startswith(word) for name in building_names(value))
    return any(w == word or (w[:-1] == word and w[-1] in "시군구도") for w in value.split())


def _recurs(text: str, piece: str, taken: list[tuple[int, int]]) -> bool:
    """True when `piece` occurs in `text` outside the spans in `taken`.

    Counting (in C) says so without more work: most values occur once.
    """
    n = text.count(piece)
    return n > 1 and n > sum(text.count(piece, s, e) for s, e in taken)


def _regrouped(text: str, key: str) -> list[tuple[int, int]]:
    """The spans of `text` whose digit groups, joined by separators, read exactly `key`.

    Any grouping is read, also one that splits both the first and the last three digits
    (``01 0123 456 78`` for ``010-1234-5678``). Only a chain of groups whose digits hold
    the key (its separators dropped in C) is read group by group: most hold a year or a
    count.
    """
    out = []
    n = len(key)
    for chain in _DIGIT_CHAIN.finditer(text):
        s, e = chain.span()
        if e - s < n or key not in _DIGIT_SEPARATORS.sub("", chain.group()):
            continue
        groups = [g.span() for g in _DIGIT_GROUP.finditer(text, s, e)]
        for i in range(len(groups)):
            end = _reads_key(text, key, groups, i)
            if end is not None:
                out.append((groups[i][0], groups[end][1]))
    return out


def _reads_key(text: str, key: str, groups: list[tuple[int, int]], i: int) -> int | None:
    """The last group of a copy of `key` that starts on group `i`, or None.

    None also when the copy would be part of a longer number: a dash or a dot joins it
    to the group before or after (`_NUMBER_JOIN`).
    """
    pos = 0
    for j in range(i, len(groups)):
        group = text[groups[j][0] : groups[j][1]]
        if not key.startswith(group, pos):
            return None
        pos += len(group)
        if pos == len(key):
            joined_before = i > 0 and _NUMBER_JOIN.fullmatch(text, groups[i - 1][1], groups[i][0])
            joined_after = j + 1 < len(groups) and _NUMBER_JOIN.fullmatch(
                text, groups[j][1], groups[j + 1][0]
            )
            return None if joined_before or joined_after else j
    return None


def _near_anchors(text: str, key: str, anchor: str) -> list[tuple[int, int]]:
    """The spans of `text` that read `key` once separators are dropped, found around each
    occurrence of `anchor` (a window twice the key's length on each side)."""
    out: set[tuple[int, int]] = set()
    reach = 2 * len(key)
    p = text.find(anchor)
    while p >= 0:
        lo = max(0, p - reach)
        window = text[lo : p + len(anchor) + reach]
        # the skeleton's text alone, in C, says whether the window reads the key: most
        # windows around a recurring anchor (a year, a district) do not, and need no map
        if key not in _SEPARATORS.sub("", window):
            p = text.find(anchor, p + 1)
            continue
        skel, skel_starts, text_starts = _skeleton(window)
        i = skel.find(key)
        while i >= 0:
            s = lo + _to_text(i, skel_starts, text_starts)
            e = lo + _to_text(i + len(key) - 1, skel_starts, text_starts) + 1
            out.add((s, e))
            i = skel.find(key, i + 1)
        p = text.find(anchor, p + 1)
    return sorted(out)


def grow_partial_copies(
    text: str, found: list[tuple[int, int, str, str]]
) -> tuple[list[tuple[int, int, str, str]], dict[int, tuple[str, str]]]:
    """`found` with each address that the scan read without the word before it grown over
    that word, when the word makes it a copy of a longer address of the same record; and
    {index: (value it stands for, part)} for the grown ones (as `aliases` gives).

    "… 둔산동 1406 솔내아파트 112동 1504호 … 솔내 112동 1504호": the scan reads the later
    ``112동 1504호`` as an address of its own, and ``솔내`` (the complex's name, shortened) is
    no address word, so it would stay beside the replaced unit; grown, the copy takes the
    pseudonym's building name and unit. Also a road name written apart ("동탄 순환대로 12길
    8-2" after "동탄순환대로12길 8-2") and a complex's unit with a shortened name ("나릿재
    4단지 410-1701" after "나릿재마을4단지 410동 1701호"). Only where the record holds two
    addresses or more (`_grown_part` says when the word makes a copy).
    """
    addresses = [i for i, f in enumerate(found) if f[2] == "address"]
    if len(addresses) < 2:
        return found, {}
    out, alias = list(found), {}
    for i in addresses:
        s, e, kind, value = found[i]
        before = _word_before(text, s)
        if before is None or (i and found[i - 1][1] > before[0]):
            continue
        start, word = before
        for j in addresses:
            other = found[j][3]
            part = _grown_part(word, value, other) if len(other) > len(value) else None
            if part is not None:
                out[i] = (start, e, kind, text[start:e])
                alias[i] = (other, part)
                break
    return out, alias


def _grown_part(word: str, value: str, other: str) -> str | None:
    """The part of the address `other` that `word` and `value` written after it copy, or None.

    "core" when they are its road or lot with its number ("동탄" + "순환대로 12길 8-2"), or
    `value` is and `word` names its city or district ("김해" + "삼방로203"); "tail"
    when `word` is one of its buildings' names or the start of one (two syllables at least)
    and the digits of `value` are the last ones of its building part ("솔내" + "112동 1504호").
    """
    core = core_of(other)
    if core is not None:
        core_key = key_of("address", core)
        if key_of("address", word + value) == core_key:
            return "core"
        # the city or district of `other`, maybe without its 시/군/구: "김해 삼방로203"
        if key_of("address", value) == core_key and _names_left_out(word, other, "core"):
            return "core"
    if not _names_left_out(word, other, "tail"):
        return None
    parts, _ = building_parts(other)
    digits = _DIGITS.findall(value)
    tail = _DIGITS.findall(parts[0]) if parts else []
    return "tail" if digits and tail[-len(digits) :] == digits else None


#: 의 for the dash of an old lot ("내외동 1093의4", `corpus.pii.old_addresses`), or 번지 before
#: its branch ("복대동 3021번지 7" is "복대동 3021-7"; not before a floor or unit's number).
_UI_DASH = re.compile(
    r"(?<=[0-9])\s?(?:의|번지)\s?(?=[0-9]{1,4}(?![0-9]|\s?(?:층|호|동|번|통|반|길|로)))"
)


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
            value = _UI_DASH.sub("-", value)  # "1093의4", "3021번지 7": "1093-4", "3021-7"
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
                same_core = key_of(kind, _UI_DASH.sub("-", value)) == key
                part = "core" if kind == "address" and same_core else "whole"
                out[i] = (canon, part)
    return out


def write_into(template: str, pseudonym: str, digits: bool = False) -> str:
    """`pseudonym`'s letters and digits written into `template`'s separators.

    ``write_into("010 1234 5678", "010-9876-5432") == "010 9876 5432"``; ``digits``: a
    `DIGIT_KINDS` value, whose copies may also be joined by "/" or "_". When the two do
    not have the same number of letters and digits, the pseudonym as it is (so the
    letters and digits of `template`, the original's, never stay).
    """
    seps = _DIGIT_SEPARATORS if digits else _SEPARATORS
    chars = [c for c in pseudonym if not seps.fullmatch(c)]
    slots = [i for i, c in enumerate(template) if not seps.fullmatch(c)]
    if len(chars) != len(slots):
        return pseudonym
    out = list(template)
    for i, c in zip(slots, chars, strict=True):
        out[i] = c
    return "".join(out)
