"""A copy that the scan reads in part: the word before it grown in (`corpus.pii.copies`).

Issue #24, the ninth blind set: after "… 둔산동 1406 솔내아파트 112동 1504호" a record writes
"솔내 112동 1504호"; the scan reads ``112동 1504호`` as an address of its own, and the
complex's shortened name before it stayed beside the replaced unit. Grown over that word
(`grow_partial_copies`), the copy takes the pseudonym's building name and unit; so does a
road name written apart ("동탄 순환대로 12길 8-2" after "동탄순환대로12길 8-2") and a unit
copy that names its complex short ("나릿재 4단지 410-1701" after "나릿재마을4단지 410동
1701호", `find_copies`). A word that is no piece of another address of the record is not
taken. Every value is made up.
"""

from __future__ import annotations

import re

import pytest

from corpus.pii.copies import grow_partial_copies
from corpus.pii.generate import Pseudonymizer
from corpus.pii.scan import Scanner
from tests.pii_checks import found_alike

PZ = Pseudonymizer(seed=18)
SCANNER = Scanner()
FILLER = " 그 뒤로 한참 동안 아무런 답이 없어서 다시 적어 둡니다. "

CASES = [
    # (the full address, its later copy with the word the scan leaves out, that word)
    ("대전 서구 둔산동 1406 솔내아파트 112동 1504호", "솔내 112동 1504호", "솔내"),
    ("경기 수원시 영통구 매탄동 812 푸른숲아파트 301동 902호", "푸른숲 301동 902호", "푸른숲"),
    ("인천 연수구 송도동 27 해솔마을 5단지 507동 1203호", "해솔 507동 1203호", "해솔"),
    ("세종시 새롬동 나릿재마을4단지 410동 1701호", "나릿재 4단지 410-1701", "나릿재"),
    ("경기 화성시 동탄순환대로12길 8-2", "동탄 순환대로 12길 8-2", "동탄"),
    ("부산 남구 용호동 188-3 은빛빌라 2동 301호", "은빛 2동 301호", "은빛"),
    # the city or district before a copy of the road: short, or whole
    ("경남 진주시 가좌로 417", "진주 가좌로417", "진주"),
    ("경기 용인시 수지구 풍덕천로 58", "수지구 풍덕천로58", "수지구"),
]


@pytest.mark.parametrize(("full", "copy", "word"), CASES)
def test_the_word_before_a_partly_read_copy_is_replaced_with_it(full, copy, word):
    text = f"주소는 {full} 입니다.{FILLER}다시 말해 {copy} 로 보내 주세요."
    out, _ = PZ.apply(text)
    assert word not in out, out  # the shortened name (or the road's first word) is gone
    for run in re.findall(r"[0-9]+", copy):
        if len(run) >= 3:
            assert run not in re.findall(r"[0-9]+", out), out
    assert "다시 말해 " in out and " 로 보내 주세요." in out, out


def test_the_grown_copy_takes_the_pseudonym_s_building_name_and_unit():
    full, copy = "대전 서구 둔산동 1406 솔내아파트 112동 1504호", "솔내 112동 1504호"
    text = f"주소는 {full} 입니다.{FILLER}다시 말해 {copy} 로 보내 주세요."
    out, _ = PZ.apply(text)
    new_full = out[len("주소는 ") : out.index(" 입니다.")]
    later = out[out.index("다시 말해 ") + len("다시 말해 ") : out.index(" 로 보내")]
    name = re.search(r"([가-힣]+)아파트", new_full).group(1)
    assert later.startswith(name + " "), (new_full, later)
    unit = re.search(r"(\d+)동 (\d+)호$", new_full).groups()
    assert re.findall(r"\d+", later) == list(unit), (new_full, later)


@pytest.mark.parametrize(
    "copy",
    [
        "그냥 112동 1504호",  # a word that names no building of the record
        "솔직히 112동 1504호",  # starts like the name but is not its start ("솔내")
        "솔내 112동 1503호",  # the name, but another unit
        "진짜 둔산동 1406",  # a word that is no city of the record before its lot
    ],
)
def test_a_word_that_is_no_piece_of_the_record_s_address_is_not_taken(copy):
    full = "대전 서구 둔산동 1406 솔내아파트 112동 1504호"
    text = f"주소는 {full} 입니다.{FILLER}그리고 {copy} 에도 보내 주세요."
    found = [(s.start, s.end, s.type, text[s.start : s.end]) for s in SCANNER.find(text)]
    grown, alias = grow_partial_copies(text, found)
    assert grown == found and alias == {}
    word = copy.split()[0]
    assert word in PZ.apply(text)[0]


def test_one_address_alone_is_never_grown():
    text = "솔내 112동 1504호 로 보내 주세요."
    found = [(s.start, s.end, s.type, text[s.start : s.end]) for s in SCANNER.find(text)]
    assert grow_partial_copies(text, found) == (found, {})


@pytest.mark.parametrize(
    "text",
    ["우리 집은 푸른숲 301동 902호 입니다", "배송지 역곡공원 112동 304호 문앞",
     "새솔숲 1204동 103호로 이사했어요"],
)  # fmt: skip
def test_a_complex_named_after_a_park_or_forest_is_a_home(text):
    """A public place's word before an address keeps it as public (`institution_address`),
    but a park or forest has no block and unit: "푸른숲 301동 902호" is a complex's home."""
    out, spans = PZ.apply(text)
    assert [sp.type for sp in spans] == ["address"], out
    assert re.search(r"\d+동 \d+호", text).group() not in out


@pytest.mark.parametrize(
    "text",
    ["서울숲 (서울 성동구 뚝섬로 273) 에서 만나요", "고척스카이돔 (서울 구로구 경인로 430)",
     "서울역 서울 용산구 한강대로 405"],
)  # fmt: skip
def test_a_public_place_s_own_address_is_still_kept(text):
    out, spans, kept = PZ.apply_counted(text)
    assert out == text and kept == {"institution_address": 1}


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("주소는 청주시 흥덕구 복대동 3021번지 7 입니다.", "청주시 흥덕구 복대동 3021번지 7"),
        ("복대동 3021번지 7에 삽니다", "복대동 3021번지 7"),
        ("신암동 512번지 14 앞에서 만나요", "신암동 512번지 14"),
        ("복대동 3021번지 7가구가 산다", "복대동 3021번지"),  # a count, not a branch
        ("복대동 3021번지 7 가구가 산다", "복대동 3021번지"),
        ("복대동 3021번지 7명이 산다", "복대동 3021번지"),
        ("복대동 3021번지 7 이상은", "복대동 3021번지"),
    ],
)
def test_a_branch_after_번지_before_a_particle_or_copula_is_the_lot_s(text, address):
    """ "복대동 3021번지 7 입니다": the branch as a register writes 3021-7; it stayed beside the
    replaced lot. Not a count or a bound after 번지."""
    assert [v for v, _ in found_alike(text)] == [address]


def test_the_lot_with_its_branch_after_번지_and_its_dashed_copy_get_one_pseudonym():
    text = f"주소는 청주시 흥덕구 복대동 3021번지 7 입니다.{FILLER}복대동 3021-7 로 보내 주세요."
    (s1, e1, _, new1), (s2, e2, _, new2) = PZ.edits(text)[0]
    assert text[s2:e2] == "복대동 3021-7"
    lot = re.search(r"(\S+동) (\d+)번지", new1).groups()
    assert new2.startswith(f"{lot[0]} {lot[1]}"), (new1, new2)
