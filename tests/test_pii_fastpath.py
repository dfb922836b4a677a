"""The fast scan (`corpus.pii.scan._combined`, gated, dispatch by first character) finds
exactly what the straightforward scan (`Scanner(fast=False)`, `_plain`) finds.

Checked at two levels: the candidate positions of the two combined patterns, and
the final spans, on generated positives and hard negatives, on random texts made
of the pieces the detectors care about (hypothesis), and on real corpus text
(kowiki lines and petitions; skipped without ``../shared/data``).
"""

from __future__ import annotations

import itertools
from re import _constants as _c
from re import _parser

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corpus.datadir import resolve_data_dir
from corpus.pii.detectors import PLATE_LETTERS, REGISTRY, TYPES
from corpus.pii.scan import Scanner, _combined, _plain
from corpus.pii.testset import HELD_OUT_SEED, hard_negatives, positives

FAST, PLAIN = Scanner(), Scanner(fast=False)
NO_EMAIL = [t for t in TYPES if t != "email"]
SUBSETS = [None, NO_EMAIL, ["address"], ["birth_date", "plate"], ["email", "ip", "url"]]


def _positions(rx, text: str) -> list[int]:
    out, pos = [], 0
    while (m := rx.search(text, pos)) is not None:
        out.append(m.start())
        pos = m.start() + 1
    return out


def _assert_same(text: str, types=None) -> None:
    fast = FAST if types is None else Scanner(types)
    plain = PLAIN if types is None else Scanner(types, fast=False)
    names = tuple(d.name for d in plain.active(text))
    if names:
        # every candidate of the reference is a candidate of the fast pattern (which has
        # more: it ignores the record-level gates)
        fast_positions = set(_positions(_combined(fast.types), text))
        assert set(_positions(_plain(names), text)) <= fast_positions, text
    assert fast.find(text) == plain.find(text), text


def test_fast_path_is_the_default_and_compiles_for_every_type():
    assert Scanner().fast
    for t in TYPES:
        assert _combined((t,)) is not _plain((t,))  # the gated form compiled (no fallback)
    assert _combined(TYPES).pattern.startswith("[")  # a character class: re's fast skip loop


@pytest.mark.parametrize("seed", [1, HELD_OUT_SEED])
def test_same_spans_on_generated_positives_and_hard_negatives(seed):
    examples = positives(seed, 60) + positives(seed, 20, held_out_templates=True)
    examples += hard_negatives(seed, 400)
    for ex in examples:
        _assert_same(ex.text)
    for ex in examples[::7]:
        for types in SUBSETS[1:]:
            _assert_same(ex.text, types)


# each one on an edge of the digit gate (a short run, then the character that lets it go on)
EDGES = [
    "연락처 010)1234-5678",
    "010.1234.5678",
    "010 1234 5678",
    "고객센터 1588 1234",
    "1588-1234",
    "02)123-4567",
    "(02)123-4567",
    "(010)1234-5678",
    "+82 10-1234-5678",
    "123-45-67890",
    "123 45 67890",
    "4111 1111 1111 1111",
    "3782 822463 10005",
    "11-22-333333-44 면허",
    "12-34-567890-12 면허",
    "110-123-456789 계좌",
    "12가 3456",
    "12 가 3456",
    "123호 4567",
    "생년월일 1990 년 3월 5일",
    "생년월일 1990. 3. 5.",
    "생년월일 90.03.05",
    "생일 1990/3/5",
    "1.2.3.45 서버",
    "10.0.0.1",
    "12.ab@example.com",
    "3a@b.co",
    "1_x@ex.com",
    "1%x@ex.com",
    "1+x@ex.com",
    "1-x@ex.com",
    "1@ex.com",
    "테헤란로 12",
    "테헤란로12",
    "역삼동 123-4",
    "종로1가 5",
    "강남구 역삼동 12번지",
    "서울특별시 강남구 테헤란로 123, 4층",
    # letter-led: e-mail local parts, URL schemes, passports
    "ftp://files.example.org/a.zip",
    "https://www.example.com/x?a=1",
    "www.example.co.kr",
    "여권번호 AB1234567",
    "여권 M123A4567",
    "passport: M12345678",
    "PASSPORT NO. XY7654321",
    "x.y_z+tag@example.com",
    "12ab@example.com",
    # other Unicode digits and spaces after an ASCII digit (the patterns say \\d and \\s)
    "생년월일 90０3０5",
    "주민번호 90０101-1234567",
    "연락처 010-１２３４-5678",
    "1２.3.4.5",
    "생일 1990\u3000년 3월 5일",
    "12\u3000가 3456",
    "3٣@example.com",
    # the first pass has no e-mail gate: it gives up at the "@" and rolls back over the
    # local part, which may hold what it claimed (a phone, a date) before the "@"
    "연락처 010-1234-5678, 메일 kim.010-2345-6789@naver.com",
    "생년월일 1990년 3월 5일 990305-1234567abc@ex.com 끝",
    "hong" + "x" * 60 + "02-345-6789@ex.com",
    # a year and month: only a day, 생 or 경 after them lets the gate pass (a birth)
    "생년월일 1990년 3월 5일",
    "생년월일 1990년 3월5일",
    "1990년 3월생",
    "1990년 3월 생이다",
    "90년 12월출생",
    "생년월일 85년 06월경",
    "출생 90년 1 2월 3 1일",
    "67年 4月 8日生",
    "1990년 3월에 태어났다",
    "1990년 3월, 생일",
    "1990년3월 5일 출생",
    "1990년 음력 3월 5일생",
    "1990년 윤3월 5일생",
]


@pytest.mark.parametrize("text", EDGES)
def test_same_spans_on_gate_edges(text):
    for types in SUBSETS:
        _assert_same(text, types)
        _assert_same("가" + text + "입니다", types)


# pieces that sit on the edges of the digit gate: separators, units, plate syllables,
# road/lot suffixes, labels and the starts of the gated types
PIECES = st.sampled_from(
    list("-./ )(+:@년월일로길동리가호번\n\t") + list(PLATE_LETTERS[::5])
    + ["０", "٣", "\u3000", "010", "02", "031", "070", "1588", "+82", "(0)", "::", "fe80",
       "ab", "M", "x",
       "서울", "강남구", "테헤란로", "중앙로", "역삼동", "생년월일", "출생", "계좌", "은행",
       "면허", "여권", "법인", "주민", "사업자", "카드", "전화", "http://", "www.",
       "example.com", "버전", "명", "개", "%", "*", "●", "\u00a0", ", "]
)  # fmt: skip
DIGITS = st.text(alphabet="0123456789", min_size=1, max_size=16)
PIECE_TEXTS = st.lists(st.one_of(PIECES, DIGITS, DIGITS), max_size=24).map("".join)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PIECE_TEXTS, st.sampled_from(range(len(SUBSETS))))
def test_same_spans_on_random_texts(text, subset):
    _assert_same(text, SUBSETS[subset])


def _corpus_lines() -> list[str]:
    """3,000 kowiki lines with digits and 1,000 petitions."""
    try:
        root = resolve_data_dir() / "corpus"
    except FileNotFoundError as e:
        pytest.skip(f"shared data not found: {e}")
    wiki = [root / "kowiki" / "AA" / f"wiki_{i}" for i in (20, 21, 22)]
    petitions = [root / "petitions" / f"petitions_2019-0{i}" for i in (4, 5, 6)]
    if not all(p.is_file() for p in wiki + petitions):
        pytest.skip(f"kowiki/AA/wiki_20-22 or petitions/petitions_2019-04-06 missing in {root}")
    from corpus.readers import iter_records

    lines = [
        ln
        for path in wiki
        for rec in iter_records(path)
        for ln in rec.text.splitlines()
        if any(c.isdigit() for c in ln)
    ][:3000]
    records = (rec.text for path in petitions for rec in iter_records(path))
    return lines + list(itertools.islice(records, 1000))


def test_same_spans_on_real_corpus_text():
    lines = _corpus_lines()
    assert len(lines) == 4000
    found = 0
    for text in lines:
        _assert_same(text)
        found += len(FAST.find(text))
    assert found > 0  # the sample does contain values (URLs, phones, dates, addresses)
    for text in lines[::10]:
        _assert_same(text, NO_EMAIL)


def _alternatives(pattern) -> list:
    """The alternatives of the first alternation in `pattern` (parsed), through plain groups."""
    items = pattern.data
    while len(items) == 1 and items[0][0] is _c.SUBPATTERN and items[0][1][0] is None:
        items = items[0][1][3].data
    assert items[0][0] is _c.BRANCH, items[:1]
    return items[0][1][1]


def _head(alternative) -> object:
    """The first operation of an alternative, through plain (non-capturing) groups."""
    op, av = alternative.data[0]
    while op is _c.SUBPATTERN and av[0] is None:
        op, av = av[3].data[0]
    return op


@pytest.mark.parametrize("hints,written", [(True, False), (False, False), (False, True)])
def test_every_gate_starts_with_its_class_or_literal(hints, written):
    # `re` skips an alternative that starts with a class or literal when the character does
    # not match; one that starts with an assertion is entered at every candidate, which is
    # what made the gates most of the scan's cost (issue #24). A new gate is written so.
    rx = _combined(TYPES, False, written, hints=hints)
    top = _parser.parse(rx.pattern).data
    assert [op for op, _ in top][:2] == [_c.IN, _c.ASSERT_NOT]  # the class, then `_REJECT`
    gates = top[2][1][1].data[0][1][1]  # the lookbehind's first lookahead
    heads = [_head(a) for a in _alternatives(gates)]
    assert all(h in (_c.IN, _c.LITERAL) for h in heads), heads


def _heads(alternative) -> list:
    """The first operations an alternative can start with, through groups of alternatives."""
    op, av = alternative.data[0]
    while op is _c.SUBPATTERN and av[0] is None:
        op, av = av[3].data[0]
    if op is not _c.BRANCH:
        return [op]
    return [h for alt in av[1] for h in _heads(alt)]


@pytest.mark.parametrize("name", ["mobile", "phone"])
def test_phone_alternatives_put_their_first_character_before_any_lookbehind(name):
    # `nb("0") + "1…"`, not `NB + "01…"` (`corpus.pii.detector_base`): the alternation is
    # tried at every digit that passes the gates, and one led by a lookbehind is never skipped
    for alt in _alternatives(_parser.parse(REGISTRY[name].pattern)):
        heads = _heads(alt)
        assert all(h in (_c.IN, _c.LITERAL) for h in heads), (name, heads)
