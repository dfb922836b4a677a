"""Issue #24, fourth blind set: the shapes its missed positives showed, with invented values.

Each shape is tested with values of its own (not the fixture's), through the fast and
the reference scan and through the pseudonymiser (the value replaced whole, copies
too); every guard is tested next to the positives it could swallow.
"""

from __future__ import annotations

import pytest

from corpus.pii.generate import Pseudonymizer
from tests.pii_checks import found_alike

PZ = Pseudonymizer(seed=44)


def _replaced_whole(text: str, value: str, kind: str) -> str:
    """The pseudonymised text, after checking that `value` is one replaced span of `kind`."""
    new, spans = PZ.apply(text)
    start = text.index(value)
    assert any(
        s.start <= start and start + len(value) <= s.end and s.type == kind for s in spans
    ), (text, [(text[s.start : s.end], s.type) for s in spans])
    assert value not in new, new
    return new


POSITIVES = [
    # an address: a city without its 시 before the district or the neighbourhood
    ("address", "저 수원 팔달구 인계동 1125 살아요 같이 운동해요", "수원 팔달구 인계동 1125"),
    ("address", "택배는 포항 양덕동 1402 로 보내주세요", "포항 양덕동 1402"),
    # a line break inside the address: after the district, or before the number
    (
        "address",
        "보내실 곳\n부산 해운대구\n센텀중앙로 79\n부탁드립니다",
        "부산 해운대구\n센텀중앙로 79",
    ),
    (
        "address",
        "수령지: 충남 아산시 배방읍 장재리\n1784-3\n도착하면 연락주세요",
        "충남 아산시 배방읍 장재리\n1784-3",
    ),
    # a building's name with no building word before its floor, unit or block
    (
        "address",
        "Office: 마포구 망원동 412-7 하늘채움 3F (2nd door)",
        "마포구 망원동 412-7 하늘채움 3F",
    ),
    (
        "address",
        "윗집이 신림동 1583-2 그린힐 1203호 인데 매일 시끄러워요",
        "신림동 1583-2 그린힐 1203호",
    ),
    (
        "address",
        "저희 집은 성남시 분당구 정자동 178 별하마을 405동 이에요",
        "성남시 분당구 정자동 178 별하마을 405동",
    ),
    # an apartment's or office's name ending like one (…힐, 더샵, …뷰, …시티) before its floor;
    # a shop's name before a floor is not taken ("정자동 278 스타벅스 2층", test_pii_written_forms)
    ("address", "주소: 서초구 잠원동 61-3 한강힐 4층 입니다", "서초구 잠원동 61-3 한강힐 4층"),
    ("address", "저희 사무실 송도동 18-4 더샵 11층으로 오세요", "송도동 18-4 더샵 11층"),
    ("address", "동구 방어동 302-7 바다뷰 3층에 살아요", "동구 방어동 302-7 바다뷰 3층"),
    # a two-digit-year birth: 年月日 after its label, 쌩, a birth verb later, a register
    ("birth_date", "生年月日 : 72年 11月 3日\n住所: 부산", "72年 11月 3日"),
    ("birth_date", "저 04년 8월 30일쌩입니다 잘 부탁드려요", "04년 8월 30일"),
    ("birth_date", "제가 92년 1월 17일 부산 영도에서 장녀로 태어났어요.", "92년 1월 17일"),
    ("birth_date", "우리 딸은 15년 6월 3일 새벽에 태어났어요", "15년 6월 3일"),
    ("birth_date", "민증엔 79년 10월 1일로 나와 있는데 실제랑 달라요", "79년 10월 1일"),
    ("birth_date", "신분증에는 83.4.5 로 적혀 있어서 생일이 헷갈려요", "83.4.5"),
    ("birth_date", "아버지는 주민등록상 58년 2월 9일로 되어 있으세요", "58년 2월 9일"),
    # an e-mail: a bracketed dot, " at " after an id, a spaced webmail host, ". com", "#"
    ("email", "문의는 minho.park [at] daum [.] net 으로 해주세요", "minho.park [at] daum [.] net"),
    ("email", "결과는 jiwoo_k at snu.ac.kr 로 보내 주세요", "jiwoo_k at snu.ac.kr"),
    ("email", "dbswl77 at gmail com 으로 보내줘", "dbswl77 at gmail com"),
    ("email", "제 건 yujin_22 @daum. net 이에요", "yujin_22 @daum. net"),
    ("email", "kyu.han#gmail.com 으로 주세요 (#을 골뱅이로)", "kyu.han#gmail.com"),
    # a mobile number: "*" or "_" between groups, O in its prefix, a group read out
    ("mobile", "010*4471*9082 로 문자 주세요", "010*4471*9082"),
    ("mobile", "연락처 010_2284_6619 입니다", "010_2284_6619"),
    ("mobile", "번호 01O 4829 6O13 로 주세요", "01O 4829 6O13"),
    ("mobile", "폰은 010-삼이구팔-4471 이에요", "010-삼이구팔-4471"),
    ("mobile", "011 7720 오사일구 로 연락 주세요", "011 7720 오사일구"),
    # a foreign number: a carrier's prefix then a country code; pairs after three digits
    ("phone", "중국 번호는 002-86-139-1234-5678 이에요", "002-86-139-1234-5678"),
    ("phone", "일본으로 전화할 땐 00700-81-90-3321-4478 누르세요", "00700-81-90-3321-4478"),
    ("phone", "러시아 친구 번호 +7 903 215-44-80 입니다", "+7 903 215-44-80"),
    ("phone", "스웨덴 숙소 +46 73 512 08 44 로 연락", "+46 73 512 08 44"),
    # a person's site: a builder's subdomain, a link-in-bio page, a path on the next line
    ("url", "작업물은 woojin-works.notion.site 에 있어요", "woojin-works.notion.site"),
    ("url", "제 홈페이지 taeyang.carrd.co 놀러오세요", "taeyang.carrd.co"),
    ("url", "링크 모음 『linktr.ee/jihoo.draws』", "linktr.ee/jihoo.draws"),
    ("url", "bio.link/ara_kim 에 다 모아놨어요", "bio.link/ara_kim"),
    (
        "url",
        "일상 블로그\nblog.naver.com/\ndaily_hana_log\n놀러와요",
        "blog.naver.com/\ndaily_hana_log",
    ),
]


@pytest.mark.parametrize(("kind", "text", "value"), POSITIVES)
def test_each_shape_is_found_and_replaced_whole(kind, text, value):
    assert (value, kind) in found_alike(text)
    _replaced_whole(text, value, kind)


@pytest.mark.parametrize(
    "text",
    [
        '세미나 제목은 "Deep Learning at kakao.com"이었다',  # a capitalised word before " at "
        "we met at naver.com headquarters last year",  # English prose before " at "
        "파일은 main.py at src.py 에 있다",  # not an id and a mail host
        "오늘의 #naver 검색어와 #gmail 태그",  # a hashtag, no host after "#"
        "23년 5월 4일 개업했습니다",  # a two-digit-year date with no birth word
        "기원전 27년 5월 3일 로마에서 태어났다.",  # an era word: not the 1900s
        "네로는 37년 12월 15일 안티움에서 태어났다.",  # an encyclopedia's verb: AD 37
        "제가 21년 3월 2일 태어나서 처음으로 바다를 봤어요",  # a connective: a first time
        "계약서에는 23년 3월 5일로 되어 있다",  # "로 되어" with no register
        "등본 발급일은 24년 1월 8일로 되어 있다",  # a register, but the date is its issue date
        "경주 황남리 3호분은 신라 시기의 무덤이다",  # a city and a 리, then a tomb's number
        "점수는 +10 20 30 40 이었다",  # scores, no group of three before the pairs
        "제품 번호 002-86-139-1234-5678",  # a carrier-like serial with no country or phone word
        "노션 공식 사이트 www.notion.site 참고",  # the service's own host: kept
        "github.com/\nThis is the readme",  # English prose on the next line
    ],
)
def test_negatives_near_the_shapes_stay(text):
    assert PZ.apply(text)[0] == text


def test_a_swallowing_guard_stops_at_the_sentence_word():
    # a word of the sentence between the number and a floor is no building's name
    for text, address in [
        ("서울 강남구 역삼동 622-3 에서 3층 올라가세요", "서울 강남구 역삼동 622-3"),
        ("서울 강남구 역삼동 622 근처 2층 카페", "서울 강남구 역삼동 622"),
    ]:
        assert (address, "address") in found_alike(text)
    # an institution's hall is not a building named before a floor
    assert not any("별관" in v for v, _ in found_alike("○○시청 (시청로 12, 별관 2층 민원실)"))


def test_a_line_break_joins_only_an_address():
    # after a word that is no unit the address starts on its own line
    found = found_alike("오늘 만난 친구\n중앙로 45 앞에서 봐")
    assert all("친구" not in v for v, _ in found)
    # the number on the next line after an ordinary word: not an address
    assert found_alike("다양한 활동\n1. 개요") == []


def test_copies_of_a_wrapped_address_get_its_pseudonym():
    text = "배송지\n경북 구미시 송정동\n461-8\n확인차 한 번 더: 송정동 461-8 이에요"
    new, spans = PZ.apply(text)
    assert "461-8" not in new
    assert [text[s.start : s.end] for s in spans] == ["경북 구미시 송정동\n461-8", "송정동 461-8"]


def test_a_number_read_out_in_part_keeps_its_words_as_words():
    new = _replaced_whole("폰은 010-삼이구팔-4471 이에요", "010-삼이구팔-4471", "mobile")
    value = new.split()[1]
    assert value.startswith("010-") and all("가" <= c <= "힣" for c in value[4:8])


def test_a_site_keeps_its_service_and_a_carrier_number_its_country():
    new = _replaced_whole(
        "작업물은 woojin-works.notion.site 에 있어요", "woojin-works.notion.site", "url"
    )
    assert ".notion.site" in new
    new = _replaced_whole(
        "중국 번호는 002-86-139-1234-5678 이에요", "002-86-139-1234-5678", "phone"
    )
    assert "002-86-" in new


def test_a_spaced_webmail_host_is_kept_as_written():
    new = _replaced_whole("dbswl77 at gmail com 으로 보내줘", "dbswl77 at gmail com", "email")
    assert " at gmail com " in new
