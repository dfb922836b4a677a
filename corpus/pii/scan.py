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

import bisect
import functools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import NamedTuple

from corpus.pii.detectors import (
    BARE_HOST_DOT,
    BARE_HOST_HINT,
    BARE_HOST_TAIL,
    HOST_CHARS,
    REGISTRY,
    TYPES,
    Detector,
)
from corpus.pii.gates import (
    DIGIT_EMAIL_GATE,
    DIGIT_GATE,
    LETTER_GATES,
    REJECT,
    REJECT_HINTED,
    WRITTEN_EMAIL_GATE,
)
from corpus.pii.markup import SPACED_HOST_HINT, STAND_IN_HINT
from corpus.pii.phones import WORD_PHONE_HINT
from corpus.pii.width import WIDE_FOLD, WIDE_STARTS, fold, needs_fold
from corpus.pii.written_shapes import (
    CLOSE_BRACKETS,
    HASH_AT,
    OPEN_BRACKETS,
)

#: The group of the combined pattern that matches a full-width digit, "＠" or "－".
_WIDE = "_wide"
#: The group of the first pass's pattern that matches a hint (`_HINTS`).
_HINT = "_hint"


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


#: A written-out "@" other than "@" itself, as `corpus.pii.detectors.EMAIL_AT` reads it:
#: "at" between brackets ("(at)", "[ at ]", "【at】"), between spaces (" at ") or underscores
#: ("_at_"). Each pattern starts
#: with its literal, so `re` looks for it with its fast literal search.
_WRITTEN_AT_PATTERNS = tuple(
    w + rf"(?:(?:(?<=[{OPEN_BRACKETS}]{w})|(?<=[{OPEN_BRACKETS}]\s{w}))\s?[{CLOSE_BRACKETS}]"
    rf"|(?<= {w}) |_(?<=_{w}_))"
    for w in ("at", "AT")
)
_WRITTEN_AT = tuple(re.compile(p) for p in _WRITTEN_AT_PATTERNS)
_WORD_PHONE = re.compile(WORD_PHONE_HINT)
_HASH_AT = re.compile(HASH_AT)


#: "앳" (or its misspelling "엣") as "@": spaced or bracketed ("id 앳 naver.com",
#: "id(앳)daum.net"); not inside a word (the name 앳킨스 is in about one kowiki article in
#: a thousand; "엣지" is a word); "엣" also spaced or bracketed before it (실루엣).
_WRITTEN_AET = re.compile(r"앳[\s)\]}>]|엣(?<=[\s(\[{<]엣)[\s)\]}>]")
#: "에이티" ("at" read out) as "@", spaced or bracketed ("id 에이티 naver 닷컴"), found at its
#: "티" (rarer than "에", a particle: as a first-pass candidate it costs far less).
_WRITTEN_AETI = re.compile(r"티(?<=[\s(\[{<]에이티)[\s)\]}>]")


def written_forms(text: str) -> bool:
    """True when `text` may hold a written-out e-mail or a phone read out in Korean.

    Exact where it says False: a text without "@", without a written-out "@"
    (`_WRITTEN_AT`, or the Korean "골뱅이"/"앳"/"엣") and without the head of a phone
    number read out in Korean (`WORD_PHONE_HINT`: "공일공 …", "영일영 …", "공이 오칠삼 …")
    holds neither form, so `Scanner.find` scans it with the pattern that leaves their
    candidates out (they cost 10-40% of the scan on Wikipedia text, where every Latin
    word would pass their gate; a bare "at" inside "data" or "Nation" is in one kowiki
    article in six and says nothing). Every form it looks for is also a hint of the
    first pass (`_SYMBOL_HINTS`, `_LETTER_HINTS`): a form added here and not there is
    missed on texts without another hint (tests/test_pii_first_pass.py).
    """
    if "@" in text:
        return True
    if ("#" in text or "☆" in text or "★" in text) and _HASH_AT.search(text) is not None:
        return True
    if ("공" in text or "영" in text) and _WORD_PHONE.search(text) is not None:
        return True
    # one-character searches first: a two-character one costs ~4% of the scan (kowiki)
    if "뱅" in text and "골뱅이" in text:
        return True
    if ("앳" in text or "엣" in text) and _WRITTEN_AET.search(text) is not None:
        return True
    if "티" in text and _WRITTEN_AETI.search(text) is not None:
        return True
    return any(rx.search(text) is not None for rx in _WRITTEN_AT)


#: Where the per-text checks of `Scanner.find` find something: "@", a read-out phone's
#: head (`WORD_PHONE_HINT`), a written-out "@" (`_WRITTEN_AT`, at its "a"; "골뱅이";
#: `_WRITTEN_AET`), and the letters after `BARE_HOST_HINT`'s dot. A text holds a match of
#: one of these if `written_forms` or `BARE_HOST_HINT` says so; the first pass
#: (`Scanner._find_unhinted`) looks for them as candidates. One more hint is no per-text
#: check's: the bracketed stand-ins of `corpus.pii.markup` ("(a)", "(.)") and the tail of
#: its spaced hosts (". com/", "점 com/"), so that a text the first pass reads through holds
#: none (`Scanner.find_checked`); a text with one goes on as from any hint, with the
#: pattern the per-text checks pick.
_SYMBOL_HINTS = "|".join(
    ("@", WORD_PHONE_HINT, "골뱅이", _WRITTEN_AET.pattern, _WRITTEN_AETI.pattern, HASH_AT,
     STAND_IN_HINT)
)  # fmt: skip
_LETTER_HINTS = "|".join((*_WRITTEN_AT_PATTERNS, r"(?<=\.)" + BARE_HOST_TAIL, SPACED_HOST_HINT))
_HINTS = (_SYMBOL_HINTS, _LETTER_HINTS)
_HINT_RX = re.compile("|".join(_HINTS))
#: The most characters a hint spans (so one that starts before a claim's end is seen whole).
_HINT_WIDTH = max(re._parser.parse(h).getwidth()[1] for h in _HINTS)
#: How far before its hint a written-out e-mail can start: a local part of 64 characters
#: (`corpus.pii.detectors`), then up to three (" ( ") before "at", one (" ") before "@",
#: and the "에이" before the "티" of `_WRITTEN_AETI`.
_EMAIL_REACH = 64 + 3 + 2


class _Stop(NamedTuple):
    """Where and why the first pass stopped, and what it had claimed until then."""

    group: str  # _HINT or _WIDE
    at: int  # no hint of the text starts before this
    spans: list[Span]
    starts: list[int]  # the candidate position each span was claimed at


def _rollback(text: str, at: int) -> int:
    """A position before which the per-text pattern claims what the first pass claimed.

    A candidate that only the per-text pattern has claims something only with a hint
    in its own match: a read-out phone starts on its head (`WORD_PHONE_HINT`); a
    written-out e-mail has its "@" or "at" at most `_EMAIL_REACH` characters after its
    start; a bare host's dot is followed, through host characters only (`HOST_CHARS`),
    by its ".kr" or ".com/". With no hint before `at`, no such candidate starts before the position
    returned.
    """
    start = at
    while start > 0 and text[start - 1] in HOST_CHARS:
        start -= 1
    return max(0, min(at - _EMAIL_REACH, start))


def _class(chars: set[str] | frozenset[str]) -> str:
    """The body of a character class of `chars` (escaped, in a fixed order)."""
    return re.escape("".join(sorted(chars)))


def _at_letter(gate: str) -> str:
    """``(?=[A-Za-z])(?:gate)``, written to start with the class itself.

    `re` tries an alternative that starts with a character class (or a literal) only
    when the character is in it, and one that starts with an assertion always; `gate`
    (the letter gates, written at the candidate) is tried at the candidate in a
    lookbehind of the one letter matched.
    """
    return rf"[A-Za-z](?<=(?=(?:{gate}))[A-Za-z])"


@functools.lru_cache(maxsize=256)
def _combined(
    names: tuple[str, ...], bare_hosts: bool = True, written: bool = True, hints: bool = False
) -> re.Pattern:
    """A pattern that matches wherever one of the detectors' own patterns does, found fast.

    It starts with a character class, so `re` skips the text between candidate
    characters in its fast charset loop (a pattern that starts with a lookahead gets
    no such loop: it is tried at every position). The rest runs inside a
    one-character lookbehind, ``(?<=(?=...).)``, so the match still starts on the
    candidate character. A candidate character must first pass a cheap gate
    (`DIGIT_GATE`, `LETTER_GATES`), so the full alternation is not tried at the
    start of every year or count (``1990년``, ``3개``) or English word. Passing the
    gate is necessary for a match, never sufficient: the alternation decides. Each
    alternative is a named group: ``m.lastgroup`` tells which one matched first, and
    the ones tried before it need not be tried again (`_candidates`).

    ``bare_hosts=False`` leaves out the one candidate that needs ``.kr`` in the text:
    the dot before a bare host's ``go.kr`` (`Scanner.find` picks it per text, since
    stopping at every dot costs about 5% on Wikipedia text for a rare form).

    ``hints=True`` (with both others False) adds a first alternative, the group
    ``_hint``, that matches wherever one of `_HINTS` starts: the first pass of
    `Scanner.find`, which needs no per-text check (see `Scanner._find_unhinted`).
    """
    if hints and (bare_hosts or written):
        raise ValueError("hints go with the pattern that has neither bare hosts nor written forms")
    detectors = sorted((REGISTRY[n] for n in names), key=lambda d: d.priority)
    body = _body(detectors, tagged=True)
    first = {c for d in detectors for c in _expand(d.first)} | _expand(WIDE_STARTS)
    dots = bare_hosts and "url" in names
    # dispatch on the class of the candidate character first: most are digits, then
    # letters, most of which are inside a word (where no letter-led pattern can start)
    gates_by_type = dict(LETTER_GATES, email=WRITTEN_EMAIL_GATE) if written else LETTER_GATES
    # the first pass (`hints`) needs no e-mail gate: an e-mail's "@" is a hint, where it
    # gives up, and its local part starts after the point it rolls back to (`_rollback`)
    mail = "email" in names and not hints
    digit = DIGIT_GATE + ("|" + DIGIT_EMAIL_GATE if mail else "")
    letter = "|".join(
        g for name, g in gates_by_type.items() if name in names and (mail or name != "email")
    )
    if hints:  # the letter-led hints start a word too ("(at)", " at ", ".kr")
        letter = "|".join(g for g in (letter, _LETTER_HINTS) if g)
    # each gate starts with its own class or literal, so `re` tries only the one (or none)
    # whose character is the candidate's; `REJECT` has left out digits after a digit and
    # letters after a letter or digit
    gates = [f"[0-9](?:{digit})"]
    if letter:
        gates.append(_at_letter(letter))
    if not dots:
        first.discard(".")
    if not written:  # "공", "영" start only a phone number read out ("공일공 …", "영이 …")
        first -= {"공", "영"}
    if hints:
        first |= _expand("@#☆★공영골앳엣티A-Za-z")
    # any other candidate character (a "+", ":", "공") passes; a hint's "@", "공", "골", "앳",
    # "티" do not, nor a full-width one away from a digit ("－느리다": `WIDE_FOLD`)
    held = _expand("0-9A-Za-z(." + WIDE_STARTS + ("@#☆★공영골앳엣티" if hints else ""))
    others = first - held
    gates += [f"[{_class(others)}]"] if others else []
    gates.append(r"\((?=[0+])")
    if dots:  # the dot before a bare host's ".go.kr" or "com/ID" (see the url detector)
        gates.append(BARE_HOST_DOT)
    # a full-width digit, "＠", or "－"/"＋" by a digit: the scan starts again on the folded
    # text (`find`)
    gates.append(WIDE_FOLD)
    if hints:  # before every detector, so a hint is never hidden behind another match
        gates.append(_SYMBOL_HINTS)
        body = f"(?P<{_HINT}>{_HINT_RX.pattern})|{body}"
    body = f"(?P<{_WIDE}>{WIDE_FOLD})|{body}"  # first: "\d" in a pattern matches "０" too
    reject = REJECT_HINTED if hints else REJECT
    gate = "|".join(gates)
    rx = re.compile(f"[{_class(first)}](?<!{reject})(?<=(?=(?:{gate}))(?={body}).)")
    if rx.groups != len(detectors) + 1 + hints:  # m.lastgroup: a detector, _wide or _hint
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
        self._hinted: Callable | None = None  # the first pass's (`_find_unhinted`)
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
        """(the text as scanned, its spans): full-width forms folded when it holds any."""
        return self.find_checked(text)[:2]

    def find_checked(self, text: str) -> tuple[str, list[Span], bool]:
        """`find_folded`, and whether the first pass read the text through.

        True: the first pass (`_find_unhinted`) met no hint and no full-width form, so
        the text holds none of `_HINTS` ("@", a bracketed stand-in, …): what
        `corpus.pii.markup.may_hold_references` needs to know.

        Folding (`corpus.pii.width`) keeps every offset, so the spans are also the
        spans of the original text. The fast scan reads the text as it is until it
        meets a full-width digit, "＠" or "－" (candidates of its pattern, so looking
        costs nothing), then folds the whole text and starts again.

        Most texts are done by the first pass (`_find_unhinted`); on a text with a hint
        of a written-out form or a bare host, the scan of `_find_hinted` (which picks
        its pattern with the per-text checks) goes on from a little before the hint
        (`_resume`), with the claims the first pass made before that point. A text
        with a full-width form and no hint is folded and given to the first pass
        again: `_find_hinted` would meet the same full-width form (with no hint it
        scans with the first pass's pattern) and start again on the folded text with
        written forms on, which finds nothing more when the folded text holds no hint
        either (`written_forms` is exact where it says False); a folded text with a
        hint ("＠" is "@") goes to `_scan`.
        """
        if not self.fast:
            if needs_fold(text):
                text = fold(text)
            return text, self._find_plain(text), False
        if self._search is None:
            self._compile()
        first = self._find_unhinted(text)
        if not isinstance(first, _Stop):
            return text, first, True
        if first.group == _HINT:
            return (*self._resume(text, first), False)
        if written_forms(text) or BARE_HOST_HINT.search(text) is not None:
            return (*self._find_hinted(text), False)  # (a hint after the full-width form)
        text = fold(text)
        first = self._find_unhinted(text)
        if not isinstance(first, _Stop):
            return text, first, False  # the original's rest was not read: it may hold "＠"
        search = self._search[BARE_HOST_HINT.search(text) is not None, True]
        return (*self._scan(text, search), False)

    def _resume(self, text: str, stop: _Stop) -> tuple[str, list[Span]]:
        """`_find_hinted(text)`, keeping what the first pass claimed before `_rollback`.

        Up to the first claim of a candidate the first pass does not have, the
        per-text pattern's scan makes the same claims (point 2 of `_find_unhinted`);
        no such claim starts before the rollback point, so the scan goes on from there
        with the claims made before it and their floor.
        """
        back = _rollback(text, stop.at)
        spans = stop.spans[: bisect.bisect_left(stop.starts, back)]
        floor = spans[-1].end if spans else 0
        search = self._search[BARE_HOST_HINT.search(text) is not None, written_forms(text)]
        return self._scan(text, search, spans, max(back, floor))

    def _compile(self) -> None:
        self._search = {
            (dots, written): _combined(self.types, dots, written).search
            for dots in (False, True)
            for written in (False, True)
        }
        self._hinted = _combined(self.types, False, False, hints=True).search
        self._candidates = _candidates(self.types)

    def _find_unhinted(self, text: str) -> list[Span] | _Stop:
        """The spans of a text with no hint (`_HINTS`) and no full-width form; else where
        it stopped (`_Stop`).

        This is `_find_hinted` without its five per-text checks ("@", a read-out head, two
        written-out "@" searches, `BARE_HOST_HINT`: 10-15% of the scan on Wikipedia
        text), which would each read the whole text again. It scans with the pattern
        that has neither bare-host nor written-form candidates, plus the hints as
        candidates of their own (`_combined(..., hints=True)`), and gives up on the
        first hint or full-width form it meets. Why a text it does not give up on
        gets exactly `_find_hinted`'s spans:

        1. Every hint in the text is met. `search` finds the leftmost position where
           some alternative matches, so a hint starting between two candidates is
           the next candidate; at a candidate the ``_hint`` group is tried before
           every detector's (after ``_wide``, which gives up too), so a hint there
           is what matches. The only positions `search` never looks at are those
           after a candidate ``s`` and before the end of the span claimed there; a
           hint starting in there is looked for with `_HINT_RX` on each claim (its
           whole width, `_HINT_WIDTH`, past the claim's end). So whether a hint
           lies before or after the candidate it would enable (a written-out e-mail's
           "at" comes after its local part, a bare host's ".kr" after its first dot),
           a text with any hint is given up on, whatever was claimed so far.
        2. With no hint and no full-width form, `written_forms` and `BARE_HOST_HINT`
           are False (they look for exactly `_HINTS`), so `_find_hinted` scans with
           ``_search[False, False]`` and never folds. That pattern and this one have
           the same detector groups in the same order and the same gates, save the
           hints' own and the e-mail gates (which pass only before an "@", a hint: with
           none in the text they never pass), so they match at the same positions with
           the same ``lastgroup`` wherever no hint starts, and the two loops make the
           same claims in the same order.
        """
        search = self._hinted
        candidates = self._candidates
        hint = _HINT_RX.search
        spans: list[Span] = []
        starts: list[int] = []
        floor = 0
        m = search(text)
        while m is not None:
            group = m.lastgroup
            s = m.start()
            if group == _HINT or group == _WIDE:
                return _Stop(group, s, spans, starts)
            pos = s + 1
            for d in candidates[group][text[s]]:
                dm = d.regex.match(text, s)
                if dm is None:
                    continue
                claim = d.accept(text, dm, floor)
                if claim is not None:
                    pos = floor = claim[1]
                    h = hint(text, s + 1, pos + _HINT_WIDTH)
                    if h is not None and h.start() < pos:
                        return _Stop(_HINT, s + 1, spans, starts)  # `search` would miss it
                    spans.append(Span(claim[0], pos, d.name))
                    starts.append(s)
                    break
            m = search(text, pos)
        return spans

    def _find_hinted(self, text: str) -> tuple[str, list[Span]]:
        """`find_folded` of any text: the pattern picked by the per-text checks."""
        # No record-level gates here: a gate only ever leaves out a detector that could
        # not claim anything in the record (see `Detector.gate`), so skipping the check
        # gives the same spans. The one exception is cheap and exact: a bare host
        # ("abc.go.kr", "blog.naver.com/ID") needs ".kr" or ".com/" …, and only then is
        # every dot a candidate.
        if self._search is None:
            self._compile()
        search = self._search[BARE_HOST_HINT.search(text) is not None, written_forms(text)]
        return self._scan(text, search)

    def _scan(
        self, text: str, search: Callable, spans: list[Span] | None = None, pos: int = 0
    ) -> tuple[str, list[Span]]:
        """(the text as scanned, its spans) with the combined pattern's `search`, going on
        from `pos` after `spans` (claimed before it) when given."""
        candidates = self._candidates
        spans = [] if spans is None else spans
        floor = spans[-1].end if spans else 0
        m = search(text, pos)
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
