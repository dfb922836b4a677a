"""Replacement quality: particles agree, addresses are drawn whole, fallbacks and masks.

All values are made up. Sentences are written with the particle that agrees with
the original value (`corpus.pii.particles.particle`); after pseudonymisation the
same particle must still agree with the new value.
"""

from __future__ import annotations

import re

import pytest

from corpus.pii import generate, places
from corpus.pii.generate import Pseudonymizer
from corpus.pii.particles import CONSONANT, RIEUL, VOWEL, final_class, particle
from corpus.pii.scan import find_spans

PAIRS = ("이/가", "은/는", "을/를", "과/와", "으로/로", "이다/다")


def test_final_class_of_digits_letters_and_hangul():
    assert [final_class(str(d)) for d in range(10)] == [
        CONSONANT, RIEUL, VOWEL, CONSONANT, VOWEL, VOWEL, CONSONANT, RIEUL, RIEUL, VOWEL,
    ]  # fmt: skip
    assert final_class("1000") == CONSONANT  # 천
    assert final_class("91") == RIEUL  # 구십일
    assert final_class("abc.html") == RIEUL  # 엘
    assert final_class("naver.com") == CONSONANT  # 엠
    assert final_class("M12345678") == RIEUL
    assert final_class("302동 1102호") == VOWEL
    assert final_class("테헤란로 153 (역삼동)") == CONSONANT  # the aside is read past: 삼
    assert final_class("https://www.***") == VOWEL  # 더블유
    assert particle("1000", "으로/로") == "으로" and particle("91", "으로/로") == "로"
    assert particle("12가 3455", "을/를") == "를" and particle("02-345-6781", "이/가") == "이"


# values of every type whose last character runs over all ten digits or several letters
def _values() -> list[tuple[str, str]]:
    out = []
    for d in "0123456789":
        out += [
            ("address", f"부산광역시 해운대구 우동 100{d}"),
            ("address", f"서울특별시 강남구 봉은사로 17길 3{d}"),
            ("phone", f"02-345-678{d}"),
            ("mobile", f"010-2345-678{d}"),
            ("plate", f"123가 456{d}"),
            ("bank_account", f"123-456789-0{d}"),
        ]
    for tail in ("index.html", "view.php", "about", "item/Docs", "page/main"):
        out.append(("url", f"https://www.example.co.kr/{tail}"))
    return out


_CONTEXT = {"bank_account": "입금 계좌 ", "phone": "전화 ", "mobile": "휴대폰 ", "plate": "차량 "}


@pytest.mark.parametrize("pair", PAIRS)
def test_particles_agree_with_the_new_value(pair):
    pz = Pseudonymizer(seed=5)
    checked = 0
    for kind, value in _values():
        text = f"{_CONTEXT.get(kind, '')}{value}{particle(value, pair)} 확인했다."
        spans = find_spans(text)
        assert [(text[s.start : s.end], s.type) for s in spans] == [(value, kind)], text
        out, _ = pz.apply(text)
        new = pz.pseudonym(kind, value)
        assert new != value
        start = len(_CONTEXT.get(kind, ""))
        assert out[start : start + len(new)] == new
        written = out[start + len(new) :].split(" ", 1)[0]
        assert written == particle(new, pair), (value, new, written)
        checked += 1
    assert checked == len(_values())


def test_the_thousand_case_from_the_review():
    """ "…1000으로" (천, ㄴ) never becomes "…91으로" (일, ㄹ): over many keys."""
    for seed in range(40):
        new = Pseudonymizer(seed=seed).pseudonym("address", "부산광역시 해운대구 우동 1000")
        assert final_class(new) == CONSONANT, new


def _parse(address: str) -> tuple[str, str, str]:
    """(province, district, road or neighbourhood) of a generated full address."""
    for province, districts in places.GAZETTEER.items():
        if address.startswith(province + " "):
            rest = address[len(province) + 1 :]
            for district in sorted(districts, key=len, reverse=True):
                if district and rest.startswith(district + " "):
                    return province, district, rest[len(district) + 1 :]
            return province, "", rest
    raise AssertionError(f"no gazetteer province: {address}")


ADDRESSES = [
    "서울특별시 마포구 와우산로 21",
    "서울특별시 강남구 봉은사로 17길 36",
    "충청남도 공주시 웅진로45번 길 23-4번지 2층",
    "경기도 성남시 분당구 정자동 178-1",
    "서울특별시 종로구 종로5가 82-1",
    "강원특별자치도 정선군 사북읍 사북리 산12-3번지",
    "(06236) 서울특별시 강남구 테헤란로 152 (역삼동)",
    "서울특별시 중구 을지로 65 (을지로2가, 을지빌딩)",
    "경상남도 김해시 가야로 17번길 29-3, 101동 1203호",
]


@pytest.mark.parametrize("value", ADDRESSES)
def test_addresses_are_drawn_whole_and_consistent(value):
    names = set(re.findall(r"[가-힣]+\d*[가-힣]*", value)) - {"번지", "층", "호", "동", "길"}
    for seed in range(25):
        pz = Pseudonymizer(seed=seed)
        new = pz.pseudonym("address", value)
        assert pz.fallbacks["address"] == 0
        body = re.sub(r"^\(\d{5}\) ", "", new)
        province, district, rest = _parse(body)
        roads, lots = places.GAZETTEER[province][district]
        name = rest.split(" ")[0]
        name = re.sub(r"\d+번?$", "", name)  # 웅진로45번 길: the road without its branch
        assert name in roads or name in lots, (value, new)
        # every unit once, and nothing of the original's names or building
        words = re.findall(r"[가-힣]+", body)
        units = [w for w in words if w.endswith(("특별시", "광역시", "도", "시", "군", "구"))]
        assert len(units) == len(set(units)), new
        leaked = {
            w for w in words if w in names and w not in ("동", "길", "번길", "번지", "층", "호")
        }
        assert not leaked - {province, name, *district.split()}, (value, new)
        assert "을지빌딩" not in new
        assert find_spans("주소 " + new + " 입니다")[0].type == "address"


def test_a_bare_unit_keeps_its_shape():
    for seed in range(10):
        new = Pseudonymizer(seed=seed).pseudonym("address", "305동 1107호")
        assert re.fullmatch(r"[1-9]\d{2}동 [1-9]\d{3}호", new), new


def test_the_fallback_never_keeps_the_original_street_or_district(monkeypatch):
    monkeypatch.setattr(generate, "_own_claim", lambda kind, candidate: False)
    pz = Pseudonymizer(seed=1)
    value = "서울특별시 마포구 와우산로 21"
    new = pz.pseudonym("address", value)
    assert pz.fallbacks["address"] == 1
    assert not {"서울특별시", "마포구", "와우산로"} & set(new.split()), new
    province, district, rest = _parse(new)
    assert rest.split(" ")[0] in places.GAZETTEER[province][district][0]
    url = pz.pseudonym("url", "https://www.example.com/private/page")
    assert url.startswith("https://www.") and "example" not in url and "private" not in url


def test_masked_values_are_left_as_they_are():
    pz = Pseudonymizer(seed=2)
    for text in ("링크 https://www.*** 참고", "출처 http://***.***/*** 입니다"):
        out, spans = pz.apply(text)
        assert spans and out == text
    # a partly masked URL: the visible part is replaced, the scheme and the mask stay
    out, _ = pz.apply("링크 http://abc.*** 참고")
    assert out.startswith("링크 http://") and out.endswith(".*** 참고") and "abc" not in out
    assert pz.fallbacks["url"] == 0
