"""What the tests of kept public values ask of a pseudonymiser's output, in one place: a text
whose values are all kept as public (unchanged, counted), or all replaced (none kept)."""

from __future__ import annotations

from corpus.pii.generate import Pseudonymizer


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
