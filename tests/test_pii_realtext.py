"""The hand-labelled real-text set: no values committed, windows unchanged, targets held.

The labels (tests/fixtures/pii/real_labels.jsonl) hold file, line, window offsets,
a SHA-256 prefix of the window and span offsets and types; `corpus.pii.realtext`
recomputes the figures from ../shared/data (see docs/pii.md).
"""

from __future__ import annotations

import collections

import pytest

from corpus.pii.detectors import TYPES
from corpus.pii.realtext import (
    FRESH_LABELS,
    LABELS,
    evaluate,
    half_of,
    load_labels,
    sample,
    sha,
    windows,
)

_KEYS = {"id", "source", "file", "line", "start", "end", "sha", "half", "stratum", "spans"}


def test_labels_hold_offsets_and_types_only():
    labels = load_labels()
    assert len(labels) == 550
    raw = LABELS.read_text(encoding="utf-8")
    assert not any("가" <= c <= "힣" for c in raw)  # no Korean text at all, so no value
    for rec in labels:
        assert set(rec) == _KEYS
        assert rec["half"] == half_of(rec["id"])
        assert rec["id"] == f"{rec['file']}:{rec['line']}:{rec['start']}"
        for s, e, kind in rec["spans"]:
            assert 0 <= s < e <= rec["end"] - rec["start"] and kind in TYPES
    halves = collections.Counter(r["half"] for r in labels)
    assert min(halves.values()) > 200
    assert sum(len(r["spans"]) for r in labels) >= 40
    fresh = load_labels(FRESH_LABELS)
    assert len(fresh) == 550 and {r["half"] for r in fresh} == {"fresh"}
    assert not any("가" <= c <= "힣" for c in FRESH_LABELS.read_text(encoding="utf-8"))
    for rec in fresh:
        assert set(rec) == _KEYS
        for s, e, kind in rec["spans"]:
            assert 0 <= s < e <= rec["end"] - rec["start"] and kind in TYPES


def test_windows_are_sentences_cut_at_the_limit():
    text = "첫 문장이다. 둘째 문장이다!\n셋째" + " 가나다" * 200
    got = [text[s:e] for s, e in windows(text)]
    assert got[:2] == ["첫 문장이다.", "둘째 문장이다!"]
    assert all(len(w) <= 300 for w in got)
    assert "".join(got).replace(" ", "") == text.replace(" ", "").replace("\n", "")


def test_real_text_figures(data_dir):
    """Recomputes the table in docs/pii.md; the windows must still be the labelled ones."""
    result = evaluate(data_dir / "corpus", load_labels() + load_labels(FRESH_LABELS))
    for half in ("dev", "held", "fresh"):
        tot = collections.Counter()
        for t in TYPES:
            tot.update(result[half][t])
        assert tot["gold"] > 15
        # targets: recall >= 0.9 and precision >= 0.9 over all types, on each half
        assert tot["found"] >= 0.9 * tot["gold"], (half, dict(tot))
        assert tot["correct"] >= 0.9 * tot["predicted"], (half, dict(tot))


@pytest.mark.slow
def test_the_sample_is_reproducible(data_dir):
    """`python -m corpus.pii.realtext sample` draws exactly the labelled windows again."""
    drawn = [(w.id, stratum, sha(text)) for w, stratum, text in sample(data_dir / "corpus")]
    assert drawn == [(r["id"], r["stratum"], r["sha"]) for r in load_labels()]
