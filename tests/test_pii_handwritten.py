"""The hand-written, hand-labelled sentences of issue #24 (`corpus.pii.handwritten`).

docs/pii.md reports this set's per-form recall and precision; these floors keep the
table from going stale: a change that loses a form's recall or precision below
them, or changes a negative, fails here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpus.pii import handwritten
from corpus.pii.realstyle import FORMS

LABELS = Path(__file__).parent / "fixtures" / "pii" / "handwritten.jsonl"
#: The floors documented in docs/pii.md ("Hand-written sentences").
RECALL_FLOOR = 0.95
PRECISION_FLOOR = 0.95


@pytest.fixture(scope="module")
def result() -> dict:
    return handwritten.evaluate(LABELS)


@pytest.mark.parametrize("form", list(FORMS))
def test_each_form_meets_the_documented_floors(result, form):
    row = result[form]
    assert row["gold"] >= 15, row  # about 16 sentences per form
    assert row["found"] >= RECALL_FLOOR * row["gold"], (form, row)
    assert row["correct"] >= PRECISION_FLOOR * row["replaced"], (form, row)


def test_no_negative_is_changed(result):
    assert result["negative"]["read"] >= 40
    assert result["negative"]["changed"] == 0


def test_a_copy_inside_a_longer_value_is_one_gold_span():
    assert handwritten._gold_spans(
        "서울 역삼동 622, 역삼동 622", ["서울 역삼동 622", "역삼동 622"]
    ) == (
        (0, 10),
        (12, 19),
    )


def test_a_bad_line_names_the_file_and_line(tmp_path):
    path = tmp_path / "labels.jsonl"
    good = {"form": "negative", "text": "x", "values": []}
    path.write_text(json.dumps(good) + '\n{"form": "bare_host", "text": "a", "values": ["b"]}\n')
    with pytest.raises(ValueError, match=r"labels.jsonl:2: values \['b'\]"):
        handwritten.load(path)
