"""One pass over a text: every enabled detector at once, overlaps resolved deterministically.

The scanner compiles the enabled detectors into a single alternation behind a
lookahead of the characters any of them can start with; `re` uses that
lookahead to skip non-candidate characters in C. At each candidate position
every detector is tried; the valid claim with the lowest ``priority`` (the
more specific type) wins, ties going to the longer span, and scanning goes on
after it. Record-level gates (``'@' in text`` for e-mail, ``'://'`` or
``'www.'`` for URLs, ``'여권'`` for passports) leave detectors out of the
compiled pattern for records that cannot contain them.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass

from corpus.pii.detectors import REGISTRY, TYPES, Detector


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


@functools.lru_cache(maxsize=256)
def _combined(names: tuple[str, ...]) -> re.Pattern:
    detectors = [REGISTRY[n] for n in names]
    first = "".join(sorted({c for d in detectors for c in _expand(d.first)}))
    # No candidate starts right after a digit (each pattern says so in its own lookbehind;
    # the IPv6 anchor, a colon after hex digits, is the exception): checking it once
    # saves trying every alternative inside every run of digits.
    guarded = "|".join(f"(?:{d.pattern})" for d in detectors if not d.after_digit)
    free = "|".join(f"(?:{d.pattern})" for d in detectors if d.after_digit)
    body = f"(?<![0-9])(?:{guarded})" if guarded else ""
    if free:
        body = f"{body}|{free}" if body else free
    return re.compile(f"(?=[{re.escape(first)}])(?:{body})")


def _expand(charclass: str) -> set[str]:
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
    return out


class Scanner:
    """Finds the spans of the enabled PII types in a text (pure; no replacement)."""

    def __init__(self, types: Iterable[str] | None = None):
        self.types = resolve_types(types)
        self.detectors: list[Detector] = sorted(
            (REGISTRY[t] for t in self.types), key=lambda d: d.priority
        )

    def active(self, text: str) -> tuple[Detector, ...]:
        """The detectors whose record-level gate passes for `text`."""
        return tuple(d for d in self.detectors if not d.gate or any(g in text for g in d.gate))

    def find(self, text: str) -> list[Span]:
        """Non-overlapping spans, in text order."""
        active = self.active(text)
        if not active:
            return []
        combined = _combined(tuple(d.name for d in active))
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
