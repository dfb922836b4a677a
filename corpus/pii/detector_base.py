"""What every personal-information detector is made of: the `Detector` record, the
registry, and the pieces their patterns and validators share.

`corpus.pii.detectors` registers the 16 detectors (their order is the scan's order of
alternatives, so it lives in one place); the patterns and checks of the larger types
live in modules of their own (`corpus.pii.phones`, `corpus.pii.address_rules`,
`corpus.pii.birthdates`), which build on what is here and so need nothing from the
registry module itself.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from corpus.pii.validators import DASHES

Accept = Callable[[str, re.Match, int], "tuple[int, int] | None"]

DASH = f"[{DASHES}]"
#: Characters before a digit-led candidate that mean it is part of a larger token.
NB = rf"(?<![0-9A-Za-z_/{DASHES}])"
#: A digit-led candidate must not run on into more digits.
NA = r"(?![0-9])"


def nb(head: str) -> str:
    """`head` (one character or class) where `NB` holds before it, the lookbehind after it.

    `re` tries an alternative that starts with a character or class only where it
    matches, and one that starts with a lookbehind everywhere: a phone alternative
    written ``nb("0") + "1…"`` is skipped at once on a digit other than 0.
    """
    return head + rf"(?<![0-9A-Za-z_/{DASHES}]{head})"


CONTEXT_BEFORE = 30
CONTEXT_AFTER = 15


@dataclass(frozen=True)
class Detector:
    """One personal-information type: a candidate pattern and its validator."""

    name: str
    priority: int  # lower wins when two detectors claim the same start
    pattern: str
    first: str  # regex character-class body of the characters a match can start with
    accept: Accept
    description: str
    # A record must contain one of these substrings for the detector to claim anything in
    # it (empty: always on). It must follow from the pattern or `accept` (e-mail needs
    # "@", passport a context word that holds one of them): the fast scan ignores it.
    gate: tuple[str, ...] = ()
    context_gated: bool = False
    after_digit: bool = False  # may a match start right after a digit? (IPv6; a bare host's dot)

    def __post_init__(self) -> None:
        object.__setattr__(self, "regex", re.compile(self.pattern))


REGISTRY: dict[str, Detector] = {}


def register(detector: Detector) -> Detector:
    """Adds `detector` to `REGISTRY`; the scan tries the detectors in registration order."""
    if detector.name in REGISTRY:
        raise ValueError(f"detector {detector.name!r} registered twice")
    REGISTRY[detector.name] = detector
    return detector


def context_rx(words: str) -> re.Pattern:
    """The context words `words` (an alternation) as a pattern for `near`."""
    return re.compile(words)


def near(
    text: str, start: int, end: int, rx: re.Pattern, before=CONTEXT_BEFORE, after=CONTEXT_AFTER
):
    """True when `rx` occurs within `before` characters before or `after` after the span."""
    return bool(
        rx.search(text, max(0, start - before), start)
        or rx.search(text, end, min(len(text), end + after))
    )


def match_span(m: re.Match) -> tuple[int, int]:
    """The span of a candidate as it matched: what an `Accept` returns to take it whole."""
    return m.start(), m.end()
