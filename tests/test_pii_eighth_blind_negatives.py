"""Issue #24, eighth blind set's negatives: values that name no one are detected, kept and
counted under their `kept_public` kind (`corpus.pii.kept`), each rule next to the personal
values it could swallow, which stay replaced. Every sentence is invented for this test."""

from __future__ import annotations

import pytest

from corpus.pii.generate import Pseudonymizer
from corpus.pii.placeholders import TEST_CARD_NUMBERS
from corpus.pii.scan import Scanner
from corpus.pii.validators import (
    PUBLIC_RESOLVERS,
    corporate_brn,
    luhn_ok,
    public_resolver,
)


def _apply(text: str) -> tuple[str, dict]:
    new, _, kept = Pseudonymizer(seed=11).apply_counted(text)
    return new, dict(kept)


def _kept_as(text: str, kind: str) -> None:
    new, kept = _apply(text)
    assert new == text and kept.get(kind), (new, kept)


def _replaced(text: str) -> None:
    new, kept = _apply(text)
    assert new != text, (text, kept)


# --- role mailboxes: a desk's word, maybe with a number, on an organisation's domain ---------


@pytest.mark.parametrize(
    "text",
    [
        "원고 투고: editor@hangeul-review.or.kr (마감 3월 31일)",
        "학회지 편집 관련 문의는 editorial@kssp.or.kr 로 부탁드립니다",
        "사건·사고 제보 jebo@gwangnamnews.co.kr",
        "사진 공모전 출품작은 gongmo2025@citymuseum.go.kr 로 보내 주세요",
        "논문 제출 submission@conf2026.ac.kr",
        "행사 참가 신청: event@hanbitfoundation.or.kr",
    ],
)
def test_a_desk_mailbox_is_kept(text):
    _kept_as(text, "role_mailbox")


@pytest.mark.parametrize(
    "text",
    [
        "편집장 editor.park@hangeul-review.or.kr 에게 직접 연락했습니다",  # a person, by name
        "담당자 메일 hong.gildong@hanbitmall.co.kr",
        "조교 메일 kim123@cs.gaon.ac.kr 로 과제 제출",
        "jebo@naver.com 으로 보내래요",  # a desk's word on a mail provider: anyone's
        "공모전 문의 contest2024@gmail.com",
        "제 메일 editor77x@hangeul-review.or.kr 입니다",  # letters after the number
    ],
)
def test_a_person_at_an_organisation_is_replaced(text):
    _replaced(text)


# --- card processors' test numbers ------------------------------------------------------------


def test_every_test_card_number_is_luhn_valid_and_detected():
    scanner = Scanner()
    for digits in sorted(TEST_CARD_NUMBERS):
        assert luhn_ok(digits), digits
        assert [s.type for s in scanner.find(f"카드번호 {digits} 결제")] == ["card"], digits


@pytest.mark.parametrize(
    "text",
    [
        "샌드박스 결제창에 4111 1111 1111 1111 을 넣으면 승인됩니다",
        "마스터카드 테스트 번호 5555-5555-5555-4444",
        "Amex 카드번호 3782 822463 10005 로 결제 흐름을 확인하세요",
    ],
)
def test_a_processors_test_card_is_kept(text):
    _kept_as(text, "placeholder")


@pytest.mark.parametrize(
    "text",
    [
        "테스트 삼아 제 카드 4532 7719 2834 1150 로 결제해 봤어요",  # a real number near 테스트
        "결제 테스트 중 카드번호 5403 1234 5678 9017 이 노출됐습니다",
        "카드번호 4242 4242 4242 4243 결제",  # one digit off a test number (Luhn fails: none)
    ],
)
def test_a_real_card_near_test_words_is_replaced(text):
    new, kept = _apply(text)
    assert "placeholder" not in kept, kept
    if "4243" not in text:
        assert new != text


# --- business registration numbers: a corporation's middle code ---------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "(주)가온소프트 사업자등록번호 214-86-34568",
        "주식회사 누리 | 사업자등록번호: 613-81-23453 | 대표이사 ○○○",
        "외국법인 연락사무소 사업자등록번호 105-83-45678",
        "지점 사업자등록번호 302-85-12340 으로 세금계산서 발행",
        "사단법인 ○○협회 사업자등록번호 608-82-01944",
    ],
)
def test_a_corporations_brn_is_kept(text):
    _kept_as(text, "corporate_brn")


@pytest.mark.parametrize(
    "text",
    [
        "저희 가게 사업자등록번호는 214-12-34567 입니다",  # a sole trader (01-79)
        "(주)라고 적혀 있지만 사업자등록번호가 317-01-23456 이라 개인사업자예요",
        "면세 개인사업자 사업자등록번호 220-90-87655",  # 90-99
        "다단계 판매원 사업자등록번호 118-80-12342",  # 80: a person among others
        "교회 고유번호 417-89-51231",  # 89: left replaced
    ],
)
def test_a_sole_traders_brn_is_replaced(text):
    _replaced(text)


def test_the_corporate_codes_are_81_to_88():
    assert [c for c in range(100) if corporate_brn(f"123{c:02d}45678")] == list(range(81, 89))


# --- public DNS resolvers ------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "공유기 DNS 를 208.67.222.222 와 149.112.112.112 로 바꾸세요",
        "SK브로드밴드 기본 DNS 210.220.163.82",
        "LG U+ 보조 DNS 는 203.248.252.2 입니다",
        "IPv6 DNS 2001:4860:4860::8888",
    ],
)
def test_a_public_resolver_is_kept(text):
    _kept_as(text, "public_resolver")


@pytest.mark.parametrize(
    "text",
    [
        "제 공인 IP 가 121.134.55.20 으로 바뀌었어요",
        "서버 주소 168.126.63.3 으로 접속",  # next to KT's resolvers, no resolver
        "접속 기록에 208.67.222.221 이 남아 있습니다",
    ],
)
def test_another_global_ip_is_replaced(text):
    _replaced(text)


def test_every_resolver_is_global_and_canonical():
    for ip in PUBLIC_RESOLVERS:
        assert public_resolver(ip), ip
    assert public_resolver("2001:4860:4860:0:0:0:0:8888")


# --- examples of a field or of a format -----------------------------------------------------


@pytest.mark.parametrize(
    "text, kind",
    [
        ("휴대전화 입력 예시: 010-2222-3333 (숫자만 입력 가능)", "example_value"),
        ("기재 예) 신한은행 계좌번호 110-234-567890", "example_value"),
        ("생년월일과 성별만 보입니다(예: 850101-2******)", "example_value"),
        ("작성 예시) 이름: 김철수 / 전화: 010-3333-4444 / 직업: 회사원", "example_value"),
        ("주소 작성 예시: 부산광역시 해운대구 센텀중앙로 000, 202동 1502호", "example_address"),
        ("신형 번호판은 '456거 1234'처럼 앞 숫자 세 자리 체계로 바뀌었다.", "example_value"),
        ("국번은 02-345-6789와 같은 형식으로 씁니다.", "example_value"),
    ],
)
def test_an_example_is_kept(text, kind):
    _kept_as(text, kind)


@pytest.mark.parametrize(
    "text",
    [
        "(예: 제 번호는 010-4821-7736 이고요)",  # the speaker's own number as the example
        "예: 제 번호는 010-4821-7736 입니다",  # no field word: no marker
        "A. 예시) 경기 고양시 일산동구 장항동 908 처럼 적으시면 됩니다",  # no field word
        "제 주소 예시로 들면 서울 마포구 성미산로 17-2 입니다",
        "입력 예시: 제 계좌 110-234-567891 로 넣었어요",  # 제 between marker and value
        "(예: 서식 참고) 연락처 010-5512-9087 로 회신 바랍니다",  # the bracket closed first
        "펜션 (예약 문의 010-2345-6789)",  # 예약, not 예
        "행사 장소 (예정) 연락처 02-555-6789",
        "작성 예시) 아버지 연락처: 010-3333-4444",  # a relative's number
        "제 차 '12가 3456'처럼 오래된 형식 번호판은 바꿔야 하나요?",
        "'34나 5678' 같은 차량이 골목에 세워져 있어요.",  # a likeness word, no format word
        "어제 010-2345-6789 같은 번호로 온 문자는 스미싱 형태였어요.",  # a shape, no format
    ],
)
def test_a_real_value_given_as_example_is_replaced(text):
    _replaced(text)


# --- public places' own addresses and numbers --------------------------------------------------


@pytest.mark.parametrize(
    "text, kind",
    [
        ("롯데콘서트홀 (05551) 서울특별시 송파구 올림픽로 300", "institution_address"),
        ("국립극장 (04621) 서울특별시 중구 장충단로 59", "institution_address"),
        ("잠실야구장 (05500) 서울 송파구 올림픽로 25", "institution_address"),
        ("청와대 주소 서울특별시 종로구 청와대로 1", "institution_address"),
        ("김해국제공항 안내 1661-2626 / 주소 부산 강서구 공항진입로 108", "institution_address"),
        ("삼성서울병원 대표전화 1599-3114, 서울특별시 강남구 일원로 81", "institution_address"),
        ("대전광역시청 대표전화는 042-270-2114이고, 주소는 대전광역시 서구 둔산로 100이다.",
         "institution_address"),
        ("국어국문학과 사무실 전화 02-880-6060", "institution_phone"),
        ("경영학과 행정실 문의 031-219-2700", "institution_phone"),
        ("국회의사당 관람 안내 02-6788-2114", "institution_phone"),
    ],
)  # fmt: skip
def test_a_public_places_own_address_or_number_is_kept(text, kind):
    _kept_as(text, kind)


@pytest.mark.parametrize(
    "text",
    [
        "예술의전당 근처 서울특별시 서초구 남부순환로 2364 에 살아요",  # a home near a landmark
        "청와대 앞 저희 집 (03045) 서울특별시 종로구 효자로 13",
        "김철수 (06236) 서울특별시 강남구 테헤란로 123",  # a person's name before the postcode
        "대전광역시청 대표전화는 042-270-2114이고, 제 주소는 대전광역시 서구 둔산로 123이다.",
        "삼성서울병원 대표전화 1599-3114, 어머니 입원 병동 서울특별시 강남구 일원로 81",
        "국립극장 대표번호 02-2280-4114, 관객 김민수 서울특별시 중구 장충단로 61",
        "서울아산병원 의사 김철수 전화 02-3010-1234",  # a doctor is a person, not 의사당
        "국문과 박지훈 교수 연구실 전화 02-880-6061",
        "학과 사무실 앞에서 만난 친구 전화 02-880-6062",
        "극장 옆 저희 가게 서울특별시 중구 장충단로 61",
    ],
)
def test_a_home_or_a_persons_number_near_a_public_place_is_replaced(text):
    _replaced(text)


# --- public land; a business's customer centre ------------------------------------------------


@pytest.mark.parametrize(
    "text, kind",
    [
        ("체육공원 조성 예정지는 수성구 범어동 산 45-2 일대 시유지로 확인됐다.", "notice_address"),
        ("쓰레기가 쌓인 곳은 덕진구 송천동 1가 412-7 일원의 구유지입니다.", "notice_address"),
        ("고객센터 02-6943-1200 (평일 9시~18시, 한빛가구 공식 상담 전화)", "business_phone"),
        ("○○전자 공식 콜센터 대표번호: 031-8012-3400", "business_phone"),
        ("A/S센터 (02) 3411-7000 은 ○○전자의 공식 번호입니다", "business_phone"),
    ],
)
def test_public_land_and_a_customer_centres_number_are_kept(text, kind):
    _kept_as(text, kind)


@pytest.mark.parametrize(
    "text",
    [
        "저희 집은 강북구 수유동 560-3 시유지에 지은 무허가 주택이에요.",  # a home on it
        "할머니가 사시는 곳이 노원구 중계동 104-5 일대 국유지라 철거 통보를 받았어요.",
        "송천동 1가 412-7 국유지에 살고 있는데 퇴거하라고 합니다.",
        "고객센터(052-3381-2211)에 전화했지만 안 받아요",  # not called official: whose?
        "고객센터 070-8123-4567 담당 김민지 (공식 번호)",  # a person after the number
        "어머니 회사 공식 고객센터 070-8123-4567",  # a relative before the centre
        "고객센터 010-2345-6789 로 문자 주세요",  # a mobile is someone's
        "고객센터에 제 번호 02-555-1234 남겼어요",
    ],
)
def test_a_home_on_public_land_or_a_persons_number_is_replaced(text):
    _replaced(text)
