"""A building's own name in an address is redrawn in its pseudonym (`corpus.pii.addresses`).

The name of a home's complex or villa ("송도풍림빌 1104호", "반포래미안 101동") is part of
its address: with the district drawn anew it still says which building. The pseudonym keeps
the building's kind (아파트, 빌, 마을 …) and the name's length, draws the name from
`COMPLEX_NAMES` (common names), and a copy of the building part later in the text takes the
same drawn name, and so does a later mention of the building alone ("한빛아파트 경비실"). A
kind alone ("주공", "래미안") or a complex's number ("7단지") names no one building and stays
as written.
"""

from __future__ import annotations

import re

import pytest

from corpus.pii.addresses import COMPLEX_NAMES, _name_like, building_names
from corpus.pii.generate import Pseudonymizer

ADDRESSES = [
    ("인천 연수구 송도동 27-4 송도풍림빌 1104호", "송도풍림", "빌"),
    ("서울 서초구 반포동 20-43 반포래미안 101동 502호", "반포", "래미안"),
    ("대전광역시 서구 둔산동 1492 한빛아파트 108동 1203호", "한빛", "아파트"),
    ("경기 고양시 일산동구 마두동 811 강촌마을 305동 1404호", "강촌", "마을"),
    ("부산 해운대구 좌동 1445 대림아파트 101동 1203호", "대림", "아파트"),
]


@pytest.mark.parametrize(("address", "name", "kind"), ADDRESSES)
def test_the_name_is_redrawn_with_its_length_and_kind(address, name, kind):
    for seed in range(40):
        new, spans = Pseudonymizer(seed=seed).apply(f"제 주소는 {address}입니다.")
        assert len(spans) == 1
        drawn = building_names(new[spans[0].start :])
        assert len(drawn) == 1 and drawn[0] != name and len(drawn[0]) == len(name), new
        assert drawn[0] + kind in new and name + kind not in new


def test_a_name_of_any_length_is_drawn_unlike_itself():
    import random

    rng = random.Random(3)
    for name in ["한", "한빛", "송도풍림", "가나다라마바사아자차", "Sky", "푸른"]:
        for _ in range(50):
            new = _name_like(name, rng)
            assert new != name and len(new) == len(name)
            assert all(c in "".join(COMPLEX_NAMES) for c in new)


@pytest.mark.parametrize(
    "address",
    ["서울 노원구 상계동 664 주공 101동 1203호", "서울 서초구 반포동 20-43 래미안 101동 502호",
     "세종시 보람동 7단지 704동 1502호"],
)  # fmt: skip
def test_a_kind_alone_or_a_complex_number_stays(address):
    tail = address.split(" ", 4)[-1]
    kind = re.sub(r"\d+", "", tail.split(" ")[0])
    new, spans = Pseudonymizer(seed=1).apply(f"주소: {address}")
    assert len(spans) == 1 and kind in new


def test_a_copy_of_the_building_takes_the_drawn_name():
    text = (
        "배송지: 대전광역시 서구 둔산동 1492 한빛아파트 108동 1203호 / "
        "부재 시 한빛아파트 108동 경비실"
    )
    for seed in range(20):
        new, spans = Pseudonymizer(seed=seed).apply(text)
        assert len(spans) == 2 and "한빛" not in new
        head, tail = new.split(" / ")
        copy = tail.removeprefix("부재 시 ").removesuffix(" 경비실")
        assert copy in head, new


def test_no_fallback_is_needed():
    """Every drawn address is still read as one address (the pseudonym's own check)."""
    pz = Pseudonymizer(seed=11)
    for address, _, _ in ADDRESSES:
        pz.apply(f"주소: {address}")
    assert not pz.fallbacks


@pytest.mark.parametrize("later", ["송도풍림빌 관리인이", "송도풍림빌에서", "(송도풍림빌)"])
def test_a_later_mention_of_the_building_alone_takes_the_drawn_name(later):
    text = f"저는 인천 연수구 송도동 27-4 송도풍림빌 1104호에 사는데 {later} 문제예요"
    for seed in range(10):
        new, spans = Pseudonymizer(seed=seed).apply(text)
        assert len(spans) == 2 and "송도풍림" not in new, new
        drawn = building_names(new[spans[0].start :])[0]
        assert new.count(drawn + "빌") == 2, new


def test_a_building_named_in_another_record_is_not_touched():
    """Only a building of an address detected in the same text is a copy."""
    text = "송도풍림빌 관리사무소 공지: 주차장 공사 안내"
    assert Pseudonymizer(seed=1).apply(text) == (text, [])
