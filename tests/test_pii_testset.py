"""Quality targets on the labelled set: recall per type and share of negatives changed.

The committed fixture (development seed) must match its generator; the
held-out seed's figures are in docs/pii.md (`python -m corpus.pii.evaluate`).
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from corpus.datadir import resolve_data_dir
from corpus.pii.evaluate import evaluate, markdown
from corpus.pii.testset import DEV_SEED, Example, corpus_negatives

FIXTURE_DIR = Path(__file__).parent / "fixtures" / "pii"
STRUCTURED = ("email", "url", "ip", "mobile", "phone", "rrn", "frn", "brn", "crn", "card", "plate",
              "address")  # fmt: skip
CONTEXT_GATED = ("bank_account", "passport", "driver_license", "birth_date")


def _load_fixture() -> list[Example]:
    out = []
    for line in (FIXTURE_DIR / "labelled_dev.jsonl").read_text(encoding="utf-8").splitlines():
        obj = json.loads(line)
        out.append(Example(obj["text"], [tuple(s) for s in obj["spans"]], obj["kind"]))
    return out


def _corpus_dir() -> Path:
    try:
        root = resolve_data_dir()
    except FileNotFoundError as e:
        pytest.skip(f"shared data not found: {e}")
    if not (root / "corpus" / "kowiki").is_dir():
        pytest.skip(f"no corpus/kowiki under {root}")
    return root / "corpus"


def test_fixture_matches_its_generator():
    spec = importlib.util.spec_from_file_location("make_testset", FIXTURE_DIR / "make_testset.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    on_disk = (FIXTURE_DIR / "labelled_dev.jsonl").read_text(encoding="utf-8").splitlines()
    assert on_disk == mod.lines()


def test_fixture_size():
    examples = _load_fixture()
    per_type: dict[str, int] = {}
    for ex in examples:
        for _, _, kind in ex.spans:
            per_type[kind] = per_type.get(kind, 0) + 1
    assert len(per_type) == 16 and min(per_type.values()) >= 50
    assert sum(ex.kind == "hard_negative" for ex in examples) >= 300


def test_recall_and_negative_targets_on_the_fixture():
    result = evaluate(_load_fixture())
    table = markdown(result)
    for kind in STRUCTURED:
        c = result["types"][kind]
        assert c["found"] / c["gold"] >= 0.99, f"{kind}\n{table}"
    for kind in CONTEXT_GATED:
        c = result["types"][kind]
        assert c["found"] / c["gold"] >= 0.95, f"{kind}\n{table}"
    neg = result["negatives"]
    assert neg.get("hard_negative_changed", 0) / neg["hard_negative"] <= 0.005, table


def test_corpus_negatives_are_left_alone():
    examples = corpus_negatives(_corpus_dir(), n=1200, seed=DEV_SEED)
    assert len(examples) >= 1000
    result = evaluate(examples)
    neg = result["negatives"]
    changed = neg.get("corpus_negative_changed", 0)
    assert changed / neg["corpus_negative"] <= 0.005, markdown(result)
