"""One pass over a text: every enabled detector at once, overlaps resolved deterministically.

The scanner compiles the enabled detectors into a single pattern (`_combined`):
a character class of the characters any of them can start with (so `re` skips
the text in between in C), cheap gates that a candidate must pass before the
full alternation is tried, and one named group per detector, so the scan knows
which detector matched first. At each candidate the remaining detectors that
can start there are tried in priority order with their own pattern and
validator; the first valid claim (the lowest ``priority``, the more specific
type) wins and scanning goes on after it.

``Scanner(fast=False)`` is the straightforward scan, kept as the reference the
tests compare with (tests/test_pii_fastpath.py): the alternation behind a
first-character lookahead, record-level gates (``'@' in text`` for e-mail,
``'://'`` or ``'www.'`` for URLs, ``'여권'`` for passports) that leave detectors
out for records that cannot contain them, every active detector tried at each
candidate, the lowest priority winning and ties going to the longer span. Both
give the same spans.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from corpus.pii.detectors import (
    BARE_HOST_DOT,
    BARE_HOST_HINT,
    PLATE_LETTERS,
    REGISTRY,
    TYPES,
    Detector,
)
from corpus.pii.validators import DASH_LOOKALIKES, DASHES
from corpus.pii.width import WIDE_STARTS, fold, needs_fold

#: The group of the combined pattern that matches a full-width digit, "＠" or "－".
_WIDE = "_wide"


@dataclass(frozen=True, order=True)
class Span:
    """A detected value: its type and character offsets ``[start, end)`` in the scanned text."""

    start: int
    end: int
    type: str


def resolve_types(types: Iterable[str] | None) -> tuple[str, ...]:
    """Validates a list of type names (None: all 16), in registry order."""
    if types is None:
        return TYPES
    wanted = set(types)
    unknown = wanted - set(TYPES)
    if unknown:
        raise ValueError(f"unknown PII type(s): {', '.join(sorted(unknown))}; known: {TYPES}")
    return tuple(t for t in TYPES if t in wanted)


def _body(detectors: list[Detector], tagged: bool = False) -> str:
    """The alternation of the detectors' patterns (each matches at the same position).

    ``tagged``: each pattern becomes a named group ``_<name>`` with its backreferences
    inlined (`_without_backrefs`), so ``m.lastgroup`` names the alternative that matched.
    """

    def alt(d: Detector) -> str:
        if not tagged:
            return f"(?:{d.pattern})"
        return f"(?P<_{d.name}>{_without_backrefs(d.pattern)})"

    # No candidate starts right after a digit (each pattern says so in its own lookbehind;
    # the IPv6 anchor, a colon after hex digits, is the exception): checking it once
    # saves trying every alternative inside every run of digits.
    guarded = "|".join(alt(d) for d in detectors if not d.after_digit)
    free = "|".join(alt(d) for d in detectors if d.after_digit)
    body = f"(?<![0-9])(?:{guarded})" if guarded else ""
    if free:
        body = f"{body}|{free}" if body else free
    return body


def _alternation_order(detectors: list[Detector]) -> list[Detector]:
    """The detectors in the order `_body` tries them."""
    return [d for d in detectors if not d.after_digit] + [d for d in detectors if d.after_digit]


def _first(detectors: list[Detector]) -> str:
    return re.escape("".join(sorted({c for d in detectors for c in _expand(d.first)})))


@functools.lru_cache(maxsize=256)
def _plain(names: tuple[str, ...]) -> re.Pattern:
    """The straightforward combined pattern: the alternation behind a first-character lookahead.

    It matches exactly at the positions where some detector's own pattern matches.
    `_combined` must find the same positions faster; the reference for the tests.
    """
    detectors = [REGISTRY[n] for n in names]
    return re.compile(f"(?=[{_first(detectors)}])(?:{_body(detectors)})")


#: Where a digit-led candidate can start. Every digit-led pattern consumes the whole run
#: of digits (``\d``, so any Unicode digit after the first) it starts on: each digit group
#: is followed by a separator or by a "no digit follows" lookahead. So at the start of a
#: run of length L, one of these holds:
#:   L >= 5 (resident, corporate, card, account, 6/8-digit dates, bare phones): the
#:   possessive ``\d{1,4}+`` below is then followed by a digit;
#:   L <= 4 and the run goes on, after an optional space, an optional separator
#:   (``./)``, a dash, ``년``, ``동`` or a plate syllable) and another optional space,
#:   with a digit (``302동 1102호``, ``02–345–6789`` with an en dash too):
#:   IPv4 ``1.``, phones ``02-``/``(02)``/``010)``, ``1588-``, ``123-45-``, ``1234 5678``,
#:   ``12-34``, ``1990년 3월``, ``1990. 3.``, ``12가 3456``, account ``123-``; the dash
#:   may be a look-alike (``010ㅡ1234``, `DASH_LOOKALIKES`), the separator a bracket
#:   (``1 (310) 555-0142``);
#:   or a year with a calendar word before its month (``51년 음력 9월``, ``1951년 (양력) 3월``);
#:   or it is a house number right after ``로/길/동/리/가`` (address), or after ``산``
#:   there (a mountain lot, ``후리 산53``).
#: A ``(`` starts a candidate only before ``0`` or ``+`` (``(02)``, ``(010)``, ``(+82)``).
#: A new digit-led detector must keep this true (tests/test_pii_fastpath.py checks it).
_DIGIT_GATE = (
    # the calendar word as a branch after the common prefix: one test for most candidates
    r"\d{1,4}+\s?[./()년동"
    + DASHES
    + DASH_LOOKALIKES
    + PLATE_LETTERS
    + r"]?\s?(?:\d|[(\[]?[음양]력)"
    r"|(?<=[로길동리가])|(?<=[로길동리가] )|(?<=[로길동리가] 산)"
)
_NAMED_GROUP = re.compile(r"\(\?P<(\w+)>([^()]*)\)")


def _without_backrefs(pattern: str) -> str:
    """`pattern` with named groups made plain and backreferences replaced by the group's text.

    The result matches at least where `pattern` does (a backreference becomes "any
    text the group could match"), which is all a position filter needs; lookbehinds
    may not hold backreferences. A group too complex to inline is an error.
    """
    groups = dict(_NAMED_GROUP.findall(pattern))
    out = re.sub(r"\(\?P<\w+>", "(?:", pattern)
    out = re.sub(r"\(\?P=(\w+)\)", lambda m: "(?:" + groups.get(m.group(1), "(?P") + ")", out)
    if "(?P" in out:
        raise ValueError(f"cannot inline the backreferences of {pattern!r}")
    return out


#: Where a letter-led candidate can start: the start of an e-mail local part followed by
#: ``@``, a URL scheme or ``www.``, or a passport number's letters and first digit. (A bare
#: host, ``abc.go.kr``, starts its candidate on the dot before ``go.kr``.)
_LETTER_GATES = {
    "email": r"(?<![A-Za-z0-9._%+\-])[A-Za-z0-9._%+\-]{1,64}+@",
    "url": r"(?:https?|ftp)://|www\.",
    "passport": r"[A-Z][A-Z]?\d",
}


#: The e-mail gate of a text that may hold a written-out "@" (" @ ", "(at)", " at ").
_WRITTEN_EMAIL_GATE = (
    r"(?<![A-Za-z0-9._%+\-])[A-Za-z0-9._%+\-]{1,64}+\s?(?:@|[(\[{<]?\s?(?:(?:at|AT)\b|골뱅이|앳))"
)
#: A written-out "@" other than "@" itself, as `corpus.pii.detectors.EMAIL_AT` reads it:
#: "at" between brackets ("(at)", "[ at ]") or between spaces (" at "). Each pattern starts
#: with its literal, so `re` looks for it with its fast literal search.
_WRITTEN_AT = tuple(
    re.compile(w + rf"(?:(?:(?<=[(\[{{<]{w})|(?<=[(\[{{<]\s{w}))\s?[)\]}}>]|(?<= {w}) )")
    for w in ("at", "AT")
)


#: "앳" as "@": spaced or bracketed ("id 앳 naver.com", "id(앳)daum.net"); not inside a
#: word (the name 앳킨스 is in about one kowiki article in a thousand).
_WRITTEN_AET = re.compile(r"앳[\s)\]}>]")


def written_forms(text: str) -> bool:
    """True when `text` may hold a written-out e-mail or a phone read out in Korean.

    Exact where it says False: a text without "@", without a written-out "@"
    (`_WRITTEN_AT`, or the Korean "골뱅이"/"앳") and without "공일" holds neither form,
    so `Scanner.find` scans it with the pattern that leaves their candidates out (they
    cost 10-40% of the scan on Wikipedia text, where every Latin word would pass their
    gate; a bare "at" inside "data" or "Nation" is in one kowiki article in six and says
    nothing).
    """
    if "@" in text or "공일" in text:
        return True
    # one-character searches first: a two-character one costs ~4% of the scan (kowiki)
    if "뱅" in text and "골뱅이" in text:
        return True
    if "앳" in text and _WRITTEN_AET.search(text) is not None:
        return True
    return any(rx.search(text) is not None for rx in _WRITTEN_AT)


@functools.lru_cache(maxsize=256)
def _combined(names: tuple[str, ...], bare_hosts: bool = True, written: bool = True) -> re.Pattern:
    """A pattern that matches wherever one of the detectors' own patterns does, found fast.

    It starts with a character class, so `re` skips the text between candidate
    characters in its fast charset loop (a pattern that starts with a lookahead gets
    no such loop: it is tried at every position). The rest runs inside a
    one-character lookbehind, ``(?<=(?=...).)``, so the match still starts on the
    candidate character. A candidate character must first pass a cheap gate
    (`_DIGIT_GATE`, `_LETTER_GATES`), so the full alternation is not tried at the
    start of every year or count (``1990년``, ``3개``) or English word. Passing the
    gate is necessary for a match, never sufficient: the alternation decides. Each
    alternative is a named group: ``m.lastgroup`` tells which one matched first, and
    the ones tried before it need not be tried again (`_candidates`).

    ``bare_hosts=False`` leaves out the one candidate that needs ``.kr`` in the text:
    the dot before a bare host's ``go.kr`` (`Scanner.find` picks it per text, since
    stopping at every dot costs about 5% on Wikipedia text for a rare form).
    """
    detectors = sorted((REGISTRY[n] for n in names), key=lambda d: d.priority)
    body = _body(detectors, tagged=True)
    first = _first(detectors)
    dots = bare_hosts and "url" in names
    # dispatch on the class of the candidate character first: most are digits, then
    # letters, most of which are inside a word (where no letter-led pattern can start)
    gates_by_type = dict(_LETTER_GATES, email=_WRITTEN_EMAIL_GATE) if written else _LETTER_GATES
    digit = _DIGIT_GATE + ("|" + _LETTER_GATES["email"] if "email" in names else "")
    letter = "|".join(g for name, g in gates_by_type.items() if name in names)
    gates = [rf"(?=[0-9])(?<![0-9])(?:{digit})"]
    if letter:
        gates.append(rf"(?=[A-Za-z])(?<![A-Za-z0-9])(?:{letter})")
    gates += [r"(?![0-9A-Za-z(.])", r"\((?=[0+])"]
    if dots:  # the dot before a bare host's ".go.kr" or "com/ID" (see the url detector)
        gates.append(BARE_HOST_DOT)
    else:
        first = first.replace(r"\.", "")
    if not written:  # "공" starts only a phone number read out in Korean ("공일공 …")
        first = first.replace("공", "")
    # a full-width digit, "＠" or "－": the scan starts again on the folded text (`find`)
    gates.append(f"[{WIDE_STARTS}]")
    body = f"(?P<{_WIDE}>[{WIDE_STARTS}])|{body}"  # first: "\d" in a pattern matches "０" too
    rx = re.compile(f"[{first}{WIDE_STARTS}](?<=(?=(?:{'|'.join(gates)}))(?={body}).)")
    if rx.groups != len(detectors) + 1:  # m.lastgroup must name a detector (or _wide)
        raise ValueError("detector patterns may hold named groups only")
    return rx


@functools.lru_cache(maxsize=256)
def _candidates(names: tuple[str, ...]) -> dict[str, dict[str, tuple[Detector, ...]]]:
    """``[m.lastgroup][first character]``: the detectors to try, in priority order.

    A detector is left out when it cannot start on that character, or when
    `_combined` tried it before the alternative that matched (so its pattern, even
    with backreferences inlined, did not match there).
    """
    detectors = sorted((REGISTRY[n] for n in names), key=lambda d: d.priority)
    order = _alternation_order(detectors)
    chars = {c for d in detectors for c in _expand(d.first)}
    out: dict[str, dict[str, tuple[Detector, ...]]] = {}
    for i, hit in enumerate(order):
        failed = {d.name for d in order[:i]}
        out[f"_{hit.name}"] = {
            c: tuple(d for d in detectors if c in _expand(d.first) and d.name not in failed)
            for c in chars
        }
    return out


@functools.lru_cache(maxsize=64)
def _expand(charclass: str) -> frozenset[str]:
    """The characters of a simple class body such as ``0-9A-Fa-f:+``."""
    out: set[str] = set()
    i = 0
    while i < len(charclass):
        if i + 2 < len(charclass) and charclass[i + 1] == "-":
            out.update(chr(c) for c in range(ord(charclass[i]), ord(charclass[i + 2]) + 1))
            i += 3
        else:
            out.add(charclass[i])
            i += 1
    return frozenset(out)


class Scanner:
    """Finds the spans of the enabled PII types in a text (pure; no replacement).

    ``fast=False`` runs the straightforward scan (`_plain`, every detector tried at
    each candidate); it gives the same spans and is kept as the tests' reference.
    """

    def __init__(self, types: Iterable[str] | None = None, fast: bool = True):
        self.types = resolve_types(types)
        self.detectors: list[Detector] = sorted(
            (REGISTRY[t] for t in self.types), key=lambda d: d.priority
        )
        self.fast = fast
        self._always = tuple(d for d in self.detectors if not d.gate)
        self._gated = tuple(d for d in self.detectors if d.gate)
        # the compiled fast patterns' searches, on first use, by (bare hosts?, written forms?)
        self._search: dict[tuple[bool, bool], Callable] | None = None
        self._candidates: dict[str, dict[str, tuple[Detector, ...]]] = {}

    def active(self, text: str) -> tuple[Detector, ...]:
        """The detectors whose record-level gate passes for `text`."""
        if not self._gated:
            return self._always
        on = {d.name for d in self._gated if any(g in text for g in d.gate)}
        if not on:
            return self._always
        return tuple(d for d in self.detectors if not d.gate or d.name in on)

    def find(self, text: str) -> list[Span]:
        """Non-overlapping spans, in text order."""
        return self.find_folded(text)[1]

    def find_folded(self, text: str) -> tuple[str, list[Span]]:
        """(the text as scanned, its spans): full-width forms folded when it holds any.

        Folding (`corpus.pii.width`) keeps every offset, so the spans are also the
        spans of the original text. The fast scan reads the text as it is until it
        meets a full-width digit, "＠" or "－" (candidates of its pattern, so looking
        costs nothing), then folds the whole text and starts again.
        """
        if not self.fast:
            if needs_fold(text):
                text = fold(text)
            return text, self._find_plain(text)
        # No record-level gates here: a gate only ever leaves out a detector that could
        # not claim anything in the record (see `Detector.gate`), so skipping the check
        # gives the same spans. The one exception is cheap and exact: a bare host
        # ("abc.go.kr", "blog.naver.com/ID") needs ".kr" or ".com/" …, and only then is
        # every dot a candidate.
        if self._search is None:
            self._search = {
                (dots, written): _combined(self.types, dots, written).search
                for dots in (False, True)
                for written in (False, True)
            }
            self._candidates = _candidates(self.types)
        search = self._search[BARE_HOST_HINT.search(text) is not None, written_forms(text)]
        candidates = self._candidates
        spans: list[Span] = []
        floor = 0
        m = search(text)
        while m is not None:
            s = m.start()
            pos = s + 1
            if m.lastgroup == _WIDE:
                text = fold(text)  # none is left after folding, so this happens once
                search = self._search[BARE_HOST_HINT.search(text) is not None, True]
                spans, floor = [], 0
                m = search(text)
                continue
            # priorities are distinct and the candidates are in priority order, so the
            # first valid claim is the one the reference scan's (priority, length) picks
            for d in candidates[m.lastgroup][text[s]]:
                dm = d.regex.match(text, s)
                if dm is None:
                    continue
                claim = d.accept(text, dm, floor)
                if claim is not None:
                    spans.append(Span(claim[0], claim[1], d.name))
                    pos = floor = claim[1]
                    break
            m = search(text, pos)
        return text, spans

    def _find_plain(self, text: str) -> list[Span]:
        active = self.active(text)
        if not active:
            return []
        combined = _plain(tuple(d.name for d in active))
        spans: list[Span] = []
        pos = floor = 0
        n = len(text)
        while pos < n:
            m = combined.search(text, pos)
            if m is None:
                break
            s = m.start()
            best: tuple[int, int, int, int, str] | None = None
            for d in active:
                dm = d.regex.match(text, s)
                if dm is None:
                    continue
                claim = d.accept(text, dm, floor)
                if claim is None:
                    continue
                start, end = claim
                key = (d.priority, -(end - start), start, end, d.name)
                if best is None or key < best:
                    best = key
            if best is None:
                pos = s + 1
                continue
            _, _, start, end, name = best
            spans.append(Span(start, end, name))
            pos = floor = end
        return spans


def find_spans(text: str, types: Iterable[str] | None = None) -> list[Span]:
    """Convenience wrapper: `Scanner(types).find(text)`."""
    return _scanner(resolve_types(types)).find(text)


@functools.lru_cache(maxsize=64)
def _scanner(types: tuple[str, ...]) -> Scanner:
    return Scanner(types)
