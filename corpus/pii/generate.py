"""Same-shape pseudonyms: a generated value of the same type for every detected value.

A pseudonym keeps the original's length, separators and letter case (an
address is the exception: it becomes another plausible Korean address with
the same parts), carries a valid check digit where the type has one, and is
never equal to the original. It is a pure function of (seed, type, original
value): a keyed BLAKE2b hash seeds a private PRNG, so a value repeated across
a corpus, across shards or across workers gets the same pseudonym.

Each pseudonym is itself detected as its own type (so a second pass over the
output finds the same spans; see docs/pii.md, "stability"): a candidate that
another, more specific detector would claim, or that its own validator
rejects, is drawn again.
"""

from __future__ import annotations

import collections
import hashlib
import random
import re
from collections.abc import Iterable

from corpus.pii.addresses import core_of, plain_address, tail_copy
from corpus.pii.copies import (
    DIGIT_KINDS,
    aliases,
    find_copies,
    grow_partial_copies,
    write_into,
)
from corpus.pii.generators import (
    GENERATORS,
    MAX_TRIES,
    final_letter_as,
    other_month_day,
    scramble,
)
from corpus.pii.kept import public_kind
from corpus.pii.markup import decode, edits_on_original, may_hold_references
from corpus.pii.particles import final_class
from corpus.pii.scan import Scanner, Span
from corpus.pii.spoken_dates import is_spoken
from corpus.pii.width import widen_like

#: A canonical context per type: a candidate is checked the way it would be found in text.
_PROBE_CONTEXT = {
    "rrn": "주민번호 ", "frn": "외국인등록번호 ", "passport": "여권번호 ",
    "driver_license": "운전면허 ", "brn": "사업자등록번호 ", "crn": "법인등록번호 ",
    "bank_account": "계좌번호 ", "card": "카드 ", "birth_date": "생년월일 ",
    "address": "아파트 주소 ", "phone": "전화 ", "email": "이메일 ", "plate": "번호판 ",
}  # fmt: skip
_PROBE_SCANNER = Scanner()


def _own_claim(kind: str, candidate: str) -> bool:
    """True when the scanner reads `candidate`, in a canonical context, as exactly one `kind`.

    This keeps pseudonyms valid for their own validator (check digits, dates)
    and out of reach of a more specific detector, so a second pass over the
    output finds the same spans. It does not depend on the real context, so
    the pseudonym of a value is the same wherever the value occurs.
    """
    head = _PROBE_CONTEXT.get(kind, "값 ")
    spans = _PROBE_SCANNER.find(head + candidate + " 입니다")
    return [(sp.start, sp.end, sp.type) for sp in spans] == [
        (len(head), len(head) + len(candidate), kind)
    ]


def _kept_anywhere(kind: str, candidate: str) -> bool:
    """True when a URL or e-mail `candidate` would be kept wherever it stands (`public_kind`
    without its text: an institution's page, an example domain): as a pseudonym it would
    look unreplaced on a second pass, so it is drawn again."""
    return kind in ("url", "email") and public_kind(kind, candidate) is not None


class Pseudonymizer:
    """Replaces every detected value with a deterministic same-shape pseudonym.

    ``seed`` keys the hash. For a released corpus it is a secret key of at least
    128 random bits (``bytes``, see `corpus.pseudonym_key`): anyone holding it
    could test guesses of original values against the pseudonyms. An ``int``
    seed is a low-entropy key for tests and examples only.
    """

    def __init__(
        self, seed: int | bytes = 0, types: Iterable[str] | None = None, cache_size: int = 200_000
    ):
        self.scanner = Scanner(types)
        self.types = self.scanner.types
        if isinstance(seed, bytes):
            self.seed = None  # never kept in clear on the object (reprs, pickles of state)
            self._key = hashlib.blake2b(seed, digest_size=32, person=b"corpus.pii key").digest()
        else:
            self.seed = seed
            self._key = hashlib.blake2b(f"corpus.pii seed {seed}".encode(), digest_size=32).digest()
        self._cache: dict[tuple[str, str], str] = {}
        self._cache_size = cache_size
        #: Values per type that needed `_fallback` (no draw passed the checks).
        self.fallbacks: collections.Counter[str] = collections.Counter()

    def _rng(self, kind: str, value: str, attempt: int) -> random.Random:
        h = hashlib.blake2b(
            f"{kind}\x00{attempt}\x00{value}".encode(), key=self._key, digest_size=16
        )
        return random.Random(int.from_bytes(h.digest(), "big"))

    def pseudonym(self, kind: str, value: str) -> str:
        """The pseudonym of `value` (of type `kind`): deterministic, valid, never `value`.

        The pseudonym ends in a sound of the same class as the original's last
        character (`corpus.pii.particles.final_class`), so the particle after it
        (로/으로, 이/가, 은/는, 을/를, 과/와, 이다) still agrees. A value the generator
        cannot change (everything that identifies it is already masked with ``*``,
        as in ``https://www.***``) is left as it is.
        """
        key = (kind, value)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        gen = GENERATORS[kind]
        sound = final_class(value)
        out = None
        unchanged = 0
        for attempt in range(MAX_TRIES):
            candidate = gen(value, self._rng(kind, value, attempt))
            if candidate == value:
                unchanged += 1
                continue
            if final_class(candidate) != sound:
                candidate = final_letter_as(
                    candidate, sound, lambda a=attempt: self._rng(kind + ":final", value, a)
                )
            if (
                candidate != value
                and final_class(candidate) == sound
                and _own_claim(kind, candidate)
                and not _kept_anywhere(kind, candidate)
            ):
                out = candidate
                break
        if out is None:
            if unchanged == MAX_TRIES:
                out = value  # already masked: nothing left to replace
            else:  # no valid draw: a fallback that still never leaks the original
                self.fallbacks[kind] += 1
                out = self._fallback(kind, value, sound)
        if len(self._cache) >= self._cache_size:
            self._cache.clear()
        self._cache[key] = out
        return out

    def _fallback(self, kind: str, value: str, sound: str | None) -> str:
        """A replacement when no draw passed the checks; keeps no name or digit of `value`.

        An address becomes a plain gazetteer address (never the original street or
        district); a URL keeps its scheme and ``www.``; anything else has every
        letter and digit redrawn. The particle class is kept when a draw allows it.
        """
        out = value
        for attempt in range(MAX_TRIES, 2 * MAX_TRIES):
            rng = self._rng(kind, value, attempt)
            if kind == "address":
                out = plain_address(rng)
            elif kind == "url":
                head = re.match(r"(?:(?:https?|ftp)://)?(?:www\.)?", value).group()
                out = head + scramble(value[len(head) :], rng)
            else:
                out = scramble(value, rng)
                if kind == "birth_date" and is_spoken(value):
                    out = other_month_day(out, value, rng)
            if out != value and final_class(out) == sound:
                break
        return out

    def salted_hash(self, value: str) -> str:
        """A keyed hash of an original value for reports (not reversible without the seed)."""
        return hashlib.blake2b(
            value.encode(), key=self._key, digest_size=8, person=b"report"
        ).hexdigest()

    def _copy_pseudonym(self, kind: str, value: str, part: str, written: str) -> str:
        """The pseudonym of `value` (or of its address core) in the separators of `written`."""
        new = self.pseudonym(kind, value)
        if part == "tail":  # an address's building part or unit ("한빛아파트 108동")
            return tail_copy(written, value, new, self._rng(kind + ":tail", written, 0))
        if part == "core":
            new = core_of(new) or new
        return new if written == value else write_into(written, new, kind in DIGIT_KINDS)

    def apply_counted(self, text: str) -> tuple[str, list[Span], collections.Counter[str]]:
        """(pseudonymised text, replaced spans in the original's offsets, public values kept)."""
        edits, kept = self._edits(text)
        out, spans = _written(text, edits)
        return out, spans, collections.Counter(kept)

    def edits(self, text: str) -> tuple[list[tuple[int, int, str, str]], collections.Counter[str]]:
        """([(start, end, type, replacement)] in text order, public values kept by kind).

        Public values (`PUBLIC_KINDS`: a company's 1588-xxxx number) are detected, so no
        other detector reads them, but kept as they are and counted apart. Every other
        occurrence of a replaced value in the text (`corpus.pii.copies`) is replaced by
        the same pseudonym. The text is read with full-width forms folded
        (`corpus.pii.width`); a pseudonym is written back in the original's width.
        """
        edits, kept = self._edits(text)
        return edits, collections.Counter(kept)

    def _edits(self, text: str) -> tuple[list[tuple[int, int, str, str]], list[str]]:
        """`edits`, with the public values kept as a list of their `PUBLIC_KINDS` names.

        A text with HTML character references ("&nbsp;", "&#64;") is read decoded and its
        edits mapped back onto it (`corpus.pii.markup`): looked for only in a text that
        the scan's first pass did not read through, or with "&" (`may_hold_references`)."""
        folded, found, read_through = self.scanner.find_checked(text)
        if may_hold_references(text, read_through):
            decoded = decode(text)
            if decoded is not None:
                edits, kept = self._edits_decoded(decoded.text)
                return edits_on_original(decoded, edits), kept
        return self._edits_found(text, folded, found)

    def _edits_decoded(self, text: str) -> tuple[list[tuple[int, int, str, str]], list[str]]:
        """`_edits` of a text with no character references left to decode."""
        return self._edits_found(text, *self.scanner.find_folded(text))

    def _edits_found(
        self, text: str, folded: str, found: list[Span]
    ) -> tuple[list[tuple[int, int, str, str]], list[str]]:
        """`_edits_decoded` of `text`, given its scan (`folded`, `found`)."""
        if not found:
            return [], []
        primary, public, kept = [], [], []
        for sp in found:
            value = folded[sp.start : sp.end]
            label = public_kind(sp.type, value, folded, sp.start)
            if label:
                kept.append(label)
                public.append((sp.start, sp.end))
            else:
                primary.append((sp.start, sp.end, sp.type, value))
        grown = {}
        if len(primary) > 1:
            primary, grown = grow_partial_copies(folded, primary)
        alias = {**aliases(primary), **grown} if len(primary) > 1 else {}
        todo = [(s, e, kind, *alias.get(i, (value, "whole"))) for i, (s, e, kind, value) in
                enumerate(primary)]  # fmt: skip
        todo += find_copies(folded, primary, public)
        edits = []
        for s, e, kind, value, part in sorted(todo):
            new = self._copy_pseudonym(kind, value, part, folded[s:e])
            edits.append((s, e, kind, widen_like(new, text[s:e])))
        return edits, kept

    def apply(self, text: str) -> tuple[str, list[Span]]:
        """Returns (pseudonymised text, spans in the ORIGINAL text's offsets)."""
        return _written(text, self._edits(text)[0])


def _written(text: str, edits: list[tuple[int, int, str, str]]) -> tuple[str, list[Span]]:
    """`text` with `edits` made, and the spans they replaced (in `text`'s offsets)."""
    if not edits:
        return text, []
    pieces, spans, pos = [], [], 0
    for s, e, kind, new in edits:
        pieces.append(text[pos:s])
        pieces.append(new)
        spans.append(Span(s, e, kind))
        pos = e
    pieces.append(text[pos:])
    return "".join(pieces), spans
