"""The blind hand-labelled sets of issue #24 (tests/fixtures/pii/blind.jsonl, blind2.jsonl,
blind3.jsonl, blind4.jsonl, blind5.jsonl, blind6.jsonl, blind7.jsonl's addresses,
blind8.jsonl, blind9.jsonl's three forms and blind10.jsonl) are well formed, and the
detectors hold what the fixes reached on them.

Each set was written from the issue's descriptions by helpers that had not read the
detectors (nor, for the later ones, the earlier sets or docs/pii.md), so its first run is a
blind figure (docs/pii.md; the third set's negatives were run before its positives were
written). Its misses were then read to write the rules of the fixes, so it is no longer
blind; the floors below are what the fixed detectors reach (every gold span found but the
three of blind5, eight of blind6, five of blind7, two of blind8, and four of blind9
named in `SETS`, every replaced span right, no negative changed
but those the policy replaces (and blind10's company page), the public values kept and
counted), so a change
that loses any of it fails here. The other tests check that
each file says what it means: every line is a labelled sentence, forms are known, every
value occurs in its text, negatives carry none, and the evaluator reads it and counts the
gold spans that `load` finds.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from corpus.pii.generate import Pseudonymizer
from corpus.pii.handwritten import NEGATIVE, evaluate, load
from corpus.pii.realstyle import FORMS

FIXTURES = Path(__file__).parent / "fixtures" / "pii"
#: Each set: its file, the sentences per form and negatives it was written with (fewer would
#: mean lines were lost, not a smaller design), what its negatives hold that must be
#: detected, kept and counted (`kept_public` kinds: public hosts, institutions' addresses,
#: non-global IPs, reference pages, institutions' numbers and pages, example domains,
#: official accounts), and the negatives the policy replaces on purpose (blind3 and blind4:
#: ``github.com/python/cpython``, a code host's account; blind4: a public revenue account,
#: replaced like every account number; blind5: two organisations' GitHub repositories;
#: blind6: a lab's "official" one; docs/pii.md), and the gold spans still missed on purpose
#: (blind5: a birth date in Korean numerals, "팔구년 유월 십일일", left for want of a rule
#: that would not read ordinary words (its lot dictated with "다시" is read since blind7);
#: "-at-" for "@" and a space before ".com/", left out of `corpus.pii.markup` for the cost
#: of a search of every text; blind6: values
#: read out in Korean or Hanja numerals, "삼십육년 시월 초닷새", "신안리 이백삼십일 번지",
#: "오십삼 라 칠칠팔일", "〇一〇-三四五一-…" (a digit-free value needs a first-pass
#: candidate on common syllables), "zero-one-zero" ("_AT_ … _DOT_" is read since blind8);
#: blind8: "필로티 주차장" after a floor (a place in the building, not its address) and a
#: lot said in Korean numerals, "삼백오십일 다시 이 번지"; blind9: a lot in Hanja numerals,
#: English-order addresses, a day said in Korean words ("41년 7월 열이틀");
#: blind7, after the
#: fixes of its first run: addresses wholly in Hanja, "면목동 일삼오-팔", OCR-spaced digits
#: "효자동 5 6 7 - 2" ("목 동 905 …" is read since blind8), a unit "402-1101" after a lot,
#: a province in an HTML cell, docs/pii.md).
SETS = {
    "blind": {"path": FIXTURES / "blind.jsonl", "per_form": 20, "negatives": 80,
              "kept": {"public_host": 3}, "policy_changed": 0},
    "blind2": {"path": FIXTURES / "blind2.jsonl", "per_form": 40, "negatives": 400,
               "kept": {"public_host": 9}, "policy_changed": 0},
    "blind3": {"path": FIXTURES / "blind3.jsonl", "per_form": 30, "negatives": 400,
               "kept": {"public_host": 3, "institution_address": 14, "non_global_ip": 7,
                        "reference_page": 3},
               "policy_changed": 1},
    "blind4": {"path": FIXTURES / "blind4.jsonl", "per_form": 30, "negatives": 400,
               "kept": {"public_host": 5, "institution_address": 9, "institution_phone": 12,
                        "service_number": 11, "non_global_ip": 21, "reference_page": 8,
                        "institution_page": 2, "example_address": 2, "official_account": 5},
               "policy_changed": 2},
    "blind5": {"path": FIXTURES / "blind5.jsonl", "per_form": 30, "negatives": 400,
               "kept": {"public_host": 12, "reference_page": 17, "example_address": 5,
                        "institution_address": 3, "service_number": 3},
               "policy_changed": 2,
               "missed": {"birth_two_digit": 1, "written_email": 1, "bare_host": 1}},
    "blind6": {"path": FIXTURES / "blind6.jsonl", "per_form": 30, "negatives": 400,
               "kept": {"institution_address": 8, "institution_phone": 3, "notice_address": 4,
                        "example_address": 6, "service_number": 9, "business_phone": 1,
                        "public_host": 9, "official_account": 7, "reference_page": 8,
                        "institution_page": 3, "non_global_ip": 3},
               "policy_changed": 1,
               "missed": {"repeated_address": 2, "address_tail": 1, "birth_two_digit": 2,
                          "phone_variant": 2, "plate_vehicle": 1}},
    # the seventh set: addresses and negatives (its other forms' writers did not finish)
    "blind7": {"path": FIXTURES / "blind7.jsonl", "per_form": 30, "negatives": 412,
               "forms": ("repeated_address", "address_tail"),
               "kept": {"non_global_ip": 10, "service_number": 16, "public_host": 10,
                        "institution_address": 12, "institution_phone": 5, "reference_page": 1,
                        "example_address": 5, "role_mailbox": 12, "placeholder": 6},
               "policy_changed": 0,
               "missed": {"repeated_address": 4, "address_tail": 1}},
    # the eighth set: all eight forms and 400 negatives (session 17, docs/pii.md)
    "blind8": {"path": FIXTURES / "blind8.jsonl", "per_form": 30, "negatives": 400,
               "kept": {"official_account": 4, "institution_address": 28, "role_mailbox": 14,
                        "institution_phone": 11, "public_host": 10, "example_address": 3,
                        "service_number": 12, "non_global_ip": 13, "notice_address": 1,
                        "corporate_brn": 2, "example_value": 4, "business_phone": 1,
                        "placeholder": 1, "public_resolver": 2, "reference_page": 1},
               "policy_changed": 0,
               "missed": {"address_tail": 2}},
    # the ninth set: the three weakest forms and 200 negatives, written to find shapes the
    # rules miss (session 17; its births read since session 18, its barcode with a bad check
    # digit too)
    "blind9": {"path": FIXTURES / "blind9.jsonl", "per_form": 30, "negatives": 200,
               "forms": ("repeated_address", "address_tail", "birth_two_digit"),
               "kept": {"notice_address": 5, "institution_address": 19},
               "policy_changed": 0,
               "missed": {"repeated_address": 1, "address_tail": 2, "birth_two_digit": 1}},
    # the tenth set: all eight forms and 300 negatives (session 18), its first run at f55750a;
    # of its changed negatives one is policy (a code host's account, as in blind3) and one a
    # miss left: a company's page with a path, "www.samsung.com/sec" (its two lots named as an
    # area and its placeholder e-mail are kept since session 18's fixes)
    "blind10": {"path": FIXTURES / "blind10.jsonl", "per_form": 30, "negatives": 300,
                "kept": {"service_number": 2, "institution_address": 10, "example_address": 4,
                         "public_host": 5, "non_global_ip": 2},
                "policy_changed": 2},
}  # fmt: skip
#: What the detectors reach after the fixes of issue #24 (docs/pii.md, "A blind set").
RECALL_FLOOR = 1.0
PRECISION_FLOOR = 1.0


def _rows(name: str) -> list[dict]:
    with open(SETS[name]["path"], encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def _all_rows() -> list[tuple[str, dict]]:
    return [(name, row) for name in SETS for row in _rows(name)]


@pytest.mark.parametrize("name", list(SETS))
def test_every_line_is_a_labelled_sentence(name):
    for n, row in enumerate(_rows(name), 1):
        assert set(row) == {"form", "text", "values"}, n
        assert isinstance(row["text"], str) and row["text"].strip(), n
        assert isinstance(row["values"], list), n
        assert all(isinstance(v, str) and v.strip() for v in row["values"]), n


@pytest.mark.parametrize("name", list(SETS))
def test_forms_are_known_and_each_is_covered(name):
    counts = Counter(row["form"] for row in _rows(name))
    forms = SETS[name].get("forms", FORMS)
    assert set(counts) == set(forms) | {NEGATIVE}
    for form in forms:
        assert counts[form] >= SETS[name]["per_form"], form
    assert counts[NEGATIVE] >= SETS[name]["negatives"]


@pytest.mark.parametrize(
    "name,row", _all_rows(), ids=lambda x: x if isinstance(x, str) else x["text"][:24]
)
def test_values_occur_in_their_text_and_negatives_have_none(name, row):
    if row["form"] == NEGATIVE:
        assert row["values"] == []
    else:
        assert row["values"], "a positive sentence labels at least one value"
        for value in row["values"]:
            assert value in row["text"], value
        assert len(set(row["values"])) == len(row["values"]), "a value listed twice"


def test_no_sentence_is_written_twice():
    """Within a set and across the sets (the second was written without the first)."""
    texts = [row["text"] for _, row in _all_rows()]
    assert len(set(texts)) == len(texts)


@pytest.mark.parametrize("name", list(SETS))
def test_load_accepts_the_file_and_finds_a_gold_span_per_value(name):
    cases = load(SETS[name]["path"])
    assert len(cases) == len(_rows(name))
    for case, row in zip(cases, _rows(name), strict=True):
        assert case.form == row["form"]
        # every listed value is at least one gold span, unless it lies inside another
        # value of the same sentence (the short copy inside the full address)
        outer = [v for v in row["values"] if not any(v != w and v in w for w in row["values"])]
        assert len(case.gold) >= len(outer), row["text"]


@pytest.fixture(scope="module")
def results() -> dict:
    return {name: evaluate(SETS[name]["path"]) for name in SETS}


@pytest.mark.parametrize("name", list(SETS))
def test_the_evaluator_counts_the_gold_spans_that_load_finds(results, name):
    result, gold = results[name], Counter()
    for case in load(SETS[name]["path"]):
        gold[case.form] += len(case.gold)
    for form in FORMS:
        assert result[form]["gold"] == gold[form], form
        assert 0 <= result[form]["found"] <= result[form]["gold"], form
        assert 0 <= result[form]["correct"] <= result[form]["replaced"], form
    assert result[NEGATIVE]["read"] == Counter(r["form"] for r in _rows(name))[NEGATIVE]


@pytest.mark.parametrize("name", list(SETS))
@pytest.mark.parametrize("form", list(FORMS))
def test_each_form_meets_the_floors_reached_after_the_fixes(results, name, form):
    row = results[name][form]
    missed = SETS[name].get("missed", {}).get(form, 0)
    wrong = SETS[name].get("wrong", {}).get(form, 0)
    assert row["found"] >= RECALL_FLOOR * row["gold"] - missed, (form, row)
    assert row["correct"] >= PRECISION_FLOOR * row["replaced"] - wrong, (form, row)


@pytest.mark.parametrize("name", list(SETS))
def test_no_negative_is_changed_and_public_hosts_are_counted_kept(results, name):
    assert results[name][NEGATIVE]["changed"] == SETS[name]["policy_changed"]
    pz = Pseudonymizer(seed=7)
    kept = Counter()
    for case in load(SETS[name]["path"]):
        if case.form == NEGATIVE:
            kept.update(pz.apply_counted(case.text)[2])
    # the public hosts among the negatives (www.gov.kr, www.youtube.com …), institutions'
    # addresses, private IPs and reference pages are detected, kept and counted
    for kind, count in SETS[name]["kept"].items():
        assert kept[kind] >= count, (kind, kept)
