"""What the PII tests ask of a pseudonymiser's output and of the scan, in one place: a text
whose values are all kept as public (unchanged, counted), or all replaced (none kept); the
values the fast scan finds, the reference scan finding the same; real Wikipedia text with
the start of each number in it, for tests of what reads around a number."""

from __future__ import annotations

import re

import pytest

from corpus.datadir import resolve_data_dir
from corpus.pii.generate import Pseudonymizer
from corpus.pii.scan import Scanner

_FAST, _PLAIN = Scanner(), Scanner(fast=False)


def kept_kinds(pz: Pseudonymizer, text: str) -> dict:
    """The kept kinds of `text`, asserting that nothing in it was replaced."""
    out, spans, kept = pz.apply_counted(text)
    assert out == text and spans == [], (text, out)
    return dict(kept)


def replaced_values(pz: Pseudonymizer, text: str) -> list[tuple[str, str]]:
    """The (value, type) replaced in `text`, asserting that nothing was kept."""
    out, spans, kept = pz.apply_counted(text)
    assert not kept, (text, kept)
    return [(text[s.start : s.end], s.type) for s in spans]


def found_alike(text: str) -> list[tuple[str, str]]:
    """The (value, type) the fast scan finds in `text`, asserting the reference scan
    (`Scanner(fast=False)`) finds the same spans."""
    spans = _FAST.find(text)
    assert spans == _PLAIN.find(text), text
    return [(text[s.start : s.end], s.type) for s in spans]


def kowiki_numbers(name: str, chars: int) -> tuple[str, list[int]]:
    """The first `chars` characters of the shared kowiki file `name` and where each number
    in them starts; the test is skipped without the shared data."""
    try:
        path = resolve_data_dir() / "corpus" / "kowiki" / "AA" / name
        text = path.read_text(encoding="utf-8")[:chars]
    except (FileNotFoundError, OSError):
        pytest.skip("no shared data")
    starts = [m.start() for m in re.finditer(r"(?<![0-9])[0-9]", text)]
    assert len(starts) > 1000
    return text, starts
