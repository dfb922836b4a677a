"""Issue #24, fifth blind set: values with HTML character references or stand-ins in them.

Text copied out of a web page or a mail often keeps its markup's character references:
``010&nbsp;-&nbsp;2740&nbsp;-&nbsp;6815``, ``id&#64;daum.net``, ``송정동 17-8&nbsp;해오름빌라``.
The detectors are written for the characters, not their references, so a text holding
any of the common references is read decoded (`decode`): ``&nbsp;`` is a space, ``&#64;``
an "@", ``&amp;`` "&", ``&lt;``/``&gt;``/``&quot;``/``&apos;`` theirs and ``&#NN;``/``&#xNN;``
the character they number. Every decoded character remembers the slice of the original
it came from, so a span found in the decoded text is mapped onto the original
(`Decoded.span`), and a pseudonym is written back with the same references where its
characters are those of the original (`Decoded.encode`): the text around keeps its look
and a second pass reads the pseudonym the same way.

The same map reads the characters people type in place of a value's own to keep it from
harvesters (`_STAND_INS`: "(a)" for "@", "(.)" for a host's dot, a comma for a webmail
host's dot), so the detectors see the value and the pseudonym keeps the stand-ins. Only a
text holding one of their literals is decoded, as `corpus.pii.width` folds only a text
with full-width forms. Looking for them costs three searches of every text (about 3% of
detection with replacement on kowiki), so the pseudonymiser asks `decode` only about a
text with "&" or one the scan's first pass gave up on: "@" and the bracketed stand-ins
(`STAND_IN_HINT`) are among its hints (`corpus.pii.scan`), so a text it reads to the
end holds neither (`may_hold_references`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from corpus.pii.detectors import PLATFORM_HOSTS
from corpus.pii.written_shapes import WEBMAIL

#: The references decoded: the common named ones and any numeric one.
_ENTITY = re.compile(r"&(?:(nbsp|amp|lt|gt|quot|apos)|#([0-9]{1,7})|#[xX]([0-9a-fA-F]{1,6}));")
_NAMED = {"nbsp": " ", "amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}
#: Characters a numeric reference is not decoded to: controls but tab and newline, the
#: surrogates (not characters) and what lies past Unicode.
_NO_CHAR = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\ud800-\udfff]")


#: A host after a written-out "@": labels and a top-level domain ("naver.com", "korea.ac.kr").
_HOST_AFTER = r"(?=[A-Za-z0-9][A-Za-z0-9\-]*(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,24}(?![A-Za-z0-9\-]))"
#: Characters written in place of a value's own, to keep it from harvesters, each read as
#: the character it stands for, by the literal that must be in the text first:
#: "(a)" for "@" between an id and a host ("sol.lee(a)daum.net"); "(.)" for the dot of a
#: host ("blog(.)naver(.)com/ID"); a comma for the dot of a webmail host after its "@"
#: ("id@naver,com"). Each literal costs a search of every text (2-3% of detection with
#: replacement on kowiki), so there are few: "-at-" ("dkpark-at-naver.com") and a space
#: before a platform's ".com/" ("instagram .com/ID") were read here too and left out for
#: that cost (one sentence each in the fifth blind set); "[.]" in an e-mail is the e-mail
#: detector's own (`corpus.pii.written_shapes.BRACKET_DOT`).
_STAND_INS = (
    ("(a)", re.compile(r"(?<=[A-Za-z0-9])(\(a\))" + _HOST_AFTER), "@"),
    ("(.)", re.compile(r"(?<=[A-Za-z0-9])(\(\.\))(?=[A-Za-z0-9])"), "."),
    ("@", re.compile(r"@" + WEBMAIL + r"(,)(?=(?:com|net)(?![A-Za-z0-9\-]))"), "."),
)


#: The two bracketed stand-ins found by one search: a pattern that starts with a literal is
#: searched for about as fast as ``in`` (3 ms per 16 MB of kowiki against 5 for each ``in``).
#: Also a hint of the scan's first pass (`corpus.pii.scan`), as "@" (the comma's) is.
STAND_IN_HINT = r"\([a.]\)"
_BRACKETED = re.compile(STAND_IN_HINT)


#: A host spelled with spaced dots or the word 점 before its ".com/"/".net/" and a path:
#: "blog . naver . com / id", "instagram 점 com/id" (said so a link filter lets it through).
#: A dot spaced on both sides, or with a space after it only (``after``: "blog. naver. com/
#: id", as a scan leaves it) when the host it spells is a platform's whose path names its
#: user (`PLATFORM_HOSTS`): "… it. com/" is a sentence's end before a word.
#: Its tail is also a hint of the scan's first pass (at the "c" or "n", `SPACED_HOST_HINT`),
#: so a text the first pass reads through holds none.
_SPACED_TAIL = r"(?:\s\.\s|\s?점\s?|(?P<after>\.\s))(?:com|net)\s?/"
SPACED_HOST_HINT = "|".join(
    f"{tld}(?<={sep}{tld})\\s?/" for tld in ("com", "net") for sep in (r"\. ", "점 ", "점")
)
_SPACED_HOST = re.compile(
    r"(?<![A-Za-z0-9\-])[A-Za-z0-9\-]+(?:(?:\s?\.\s?|\s?점\s?)[A-Za-z0-9\-]+)*?"
    + _SPACED_TAIL
    + r"\s?(?=@?[A-Za-z0-9_])"
)
#: What every `_SPACED_TAIL` holds: "com"/"net" after a space or 점, then "/". A text
#: without it holds no spaced host; starting with a literal, it is searched about 4x as
#: fast as `_SPACED_HOST`, which is tried at every Latin word (kowiki texts with "com").
_SPACED_TAIL_GATE = re.compile(r"(?:com|net)(?<=[\s점]com|[\s점]net)\s?/")
#: The separators inside a spaced host, each read as the one character it stands for.
_SPACED_SEP = re.compile(r"\s?(?:\.|점)\s?|\s?/\s?")


def _spaced_host_readings(text: str) -> list[tuple[int, int, str]]:
    """The readings of the separators of each spaced host in `text` (`_SPACED_HOST`)."""
    out: list[tuple[int, int, str]] = []
    if _SPACED_TAIL_GATE.search(text) is None:
        return out
    for m in _SPACED_HOST.finditer(text):
        if m.group("after") and not _platform(m.group()):
            continue
        for sep in _SPACED_SEP.finditer(text, m.start(), m.end()):
            ch = "/" if "/" in sep.group() else "."
            if sep.group() != ch:
                out.append((sep.start(), sep.end(), ch))
    return out


def _platform(spaced: str) -> bool:
    """True when a spaced host ("blog. naver. com/ ") is a platform's (`PLATFORM_HOSTS`)."""
    host = _SPACED_SEP.sub(lambda m: "" if "/" in m.group() else ".", spaced.rstrip())
    return host.lower() in PLATFORM_HOSTS


def may_hold_references(text: str, read_through: bool) -> bool:
    """False when `decode(text)` is None for sure, without its three searches.

    ``read_through``: the scan's first pass read `text` to its end without meeting a
    hint (`corpus.pii.scan.Scanner.find_checked`), so the text holds no "@" and no
    `STAND_IN_HINT`; only a character reference ("&") is then left to look for.
    """
    return not read_through or "&" in text


def _readings(text: str) -> list[tuple[int, int, str]]:
    """(start, end, character) of each reference or stand-in to read, in text order."""
    out = _spaced_host_readings(text) if "com" in text or "net" in text else []
    if "&" in text:
        for m in _ENTITY.finditer(text):
            ch = _char(m)
            if ch is not None:
                out.append((m.start(), m.end(), ch))
    bracketed = _BRACKETED.search(text) is not None
    for literal, rx, ch in _STAND_INS:
        if bracketed if literal[0] == "(" else literal in text:
            out += [(m.start(1), m.end(1), ch) for m in rx.finditer(text)]
    if len(out) > 1:
        out.sort()
        kept = [out[0]]
        for r in out[1:]:
            if r[0] >= kept[-1][1]:
                kept.append(r)
        out = kept
    return out


def _char(m: re.Match) -> str | None:
    """The character a reference stands for, or None when it is not one to decode."""
    if m.group(1):
        return _NAMED[m.group(1)]
    code = int(m.group(2), 10) if m.group(2) else int(m.group(3), 16)
    if code > 0x10FFFF:
        return None
    ch = chr(code)
    if ch == "\u00a0":
        return " "  # "&#160;" is "&nbsp;"
    return None if _NO_CHAR.match(ch) else ch


@dataclass(frozen=True)
class Decoded:
    """A text with its references decoded, and where each decoded character came from.

    ``text``: the decoded text; ``starts[i]``/``ends[i]``: the slice of the original that
    its character ``i`` was read from (one character, or a whole reference).
    """

    original: str
    text: str
    starts: tuple[int, ...]
    ends: tuple[int, ...]

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original's slice of the decoded text's ``[start, end)`` (`end` > `start`)."""
        return self.starts[start], self.ends[end - 1]

    def encode(self, start: int, end: int, new: str) -> str:
        """`new`, the pseudonym of decoded ``[start, end)``, with the original's references.

        Of the same length as the value, by position: a character that came from a
        reference and that the pseudonym keeps (a separator) is written as that
        reference again. Of another length (an address): each character that a
        reference stood for in the value is written as that reference.
        """
        pieces = [self.original[self.starts[i] : self.ends[i]] for i in range(start, end)]
        value = self.text[start:end]
        if len(new) == len(value):
            return "".join(
                p if p != v and n == v else n for n, v, p in zip(new, value, pieces, strict=True)
            )
        refs = {v: p for v, p in zip(value, pieces, strict=True) if p != v and not v.isalnum()}
        return "".join(refs.get(n, n) for n in new) if refs else new


def decode(text: str) -> Decoded | None:
    """`text` with its references and stand-ins read, or None when it has none."""
    readings = _readings(text)
    if not readings:
        return None
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    pos = 0
    for s, e, ch in readings:
        out.append(text[pos:s])
        starts.extend(range(pos, s))
        ends.extend(range(pos + 1, s + 1))
        out.append(ch)
        starts.append(s)
        ends.append(e)
        pos = e
    out.append(text[pos:])
    starts.extend(range(pos, len(text)))
    ends.extend(range(pos + 1, len(text) + 1))
    return Decoded(text, "".join(out), tuple(starts), tuple(ends))


def edits_on_original(
    decoded: Decoded, edits: list[tuple[int, int, str, str]]
) -> list[tuple[int, int, str, str]]:
    """Edits of the decoded text as edits of the original (offsets, references kept)."""
    out = []
    for s, e, kind, new in edits:
        start, end = decoded.span(s, e)
        out.append((start, end, kind, decoded.encode(s, e, new)))
    return out
