"""Pseudonyms: same type and shape, valid check digits, deterministic, never the original."""

from __future__ import annotations

import random
import re

import pytest

from corpus.pii.detectors import TYPES
from corpus.pii.generate import Pseudonymizer
from corpus.pii.kept import public_kind
from corpus.pii.scan import find_spans
from corpus.pii.testset import positives
from corpus.pii.validators import brn_ok, crn_ok, digits_of, luhn_ok, rrn_birth_ok, rrn_checksum_ok

EXAMPLES = positives(seed=5, per_type=25)


def _shape(value: str) -> str:
    """Digits -> 9, ASCII letters -> a/A, everything else kept: what 'same shape' preserves."""
    out = re.sub(r"[0-9]", "9", value)
    out = re.sub(r"[a-z]", "a", out)
    return re.sub(r"[A-Z]", "A", out)


@pytest.mark.parametrize("kind", [t for t in TYPES if t not in ("address", "ip", "plate")])
def test_same_shape_and_never_equal(kind):
    pz = Pseudonymizer(seed=11)
    for ex in EXAMPLES:
        s, e, k = ex.spans[0]
        if k != kind:
            continue
        value = ex.text[s:e]
        fake = pz.pseudonym(kind, value)
        assert fake != value
        assert _shape(fake) == _shape(value), kind


def test_ip_and_plate_keep_length_and_separators():
    pz = Pseudonymizer(seed=3)
    for ex in EXAMPLES:
        s, e, k = ex.spans[0]
        if k in ("ip", "plate"):
            value = ex.text[s:e]
            fake = pz.pseudonym(k, value)
            assert fake != value and len(fake) == len(value)
            assert re.sub(r"[0-9A-Za-z가-힣]", "x", fake) == re.sub(r"[0-9A-Za-z가-힣]", "x", value)


def test_check_digits_are_valid():
    pz = Pseudonymizer(seed=1)
    for ex in EXAMPLES:
        s, e, k = ex.spans[0]
        fake = digits_of(pz.pseudonym(k, ex.text[s:e]))
        if k == "card":
            assert luhn_ok(fake)
        elif k == "brn":
            assert brn_ok(fake)
        elif k == "crn":
            assert crn_ok(fake)
        elif k in ("rrn", "frn"):
            assert rrn_birth_ok(fake)
            if len(fake) == 13:
                assert rrn_checksum_ok(fake)


def test_addresses_become_other_plausible_addresses():
    pz = Pseudonymizer(seed=2)
    for ex in EXAMPLES:
        s, e, k = ex.spans[0]
        if k == "address":
            fake = pz.pseudonym(k, ex.text[s:e])
            assert fake != ex.text[s:e]
            assert [sp.type for sp in find_spans(fake)] == ["address"]


def test_deterministic_per_seed_and_value():
    a, b, c = Pseudonymizer(seed=7), Pseudonymizer(seed=7), Pseudonymizer(seed=8)
    value = "010-2345-6789"
    assert a.pseudonym("mobile", value) == b.pseudonym("mobile", value)
    assert a.pseudonym("mobile", value) != c.pseudonym("mobile", value)
    # a repeated value maps to one pseudonym within a text
    out, spans = a.apply(f"{value} 또는 {value}")
    first, second = (out[sp.start : sp.end] for sp in find_spans(out))
    assert first == second != value and len(spans) == 2


def test_salted_hash_is_keyed():
    a, b = Pseudonymizer(seed=1), Pseudonymizer(seed=2)
    assert a.salted_hash("010-2345-6789") == Pseudonymizer(seed=1).salted_hash("010-2345-6789")
    assert a.salted_hash("010-2345-6789") != b.salted_hash("010-2345-6789")
    assert "2345" not in a.salted_hash("010-2345-6789")


def test_no_original_value_survives_in_output():
    pz = Pseudonymizer(seed=9)
    rng = random.Random(0)
    for ex in rng.sample(EXAMPLES, 100):
        out, _ = pz.apply(ex.text)
        s, e, kind = ex.spans[0]
        if public_kind(kind, ex.text[s:e]):  # kept by policy: a private IP names no one
            assert ex.text[s:e] in out
            continue
        assert ex.text[s:e] not in out
