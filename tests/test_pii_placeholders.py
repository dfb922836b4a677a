"""Issue #24, seventh blind set's negatives: role mailboxes, placeholders, example
addresses and public places' own addresses are kept and counted (`corpus.pii.placeholders`,
`corpus.pii.institutions`); each rule next to the personal values it could swallow."""

from __future__ import annotations

import pytest

from corpus.pii.generate import Pseudonymizer


def _apply(text: str) -> tuple[str, dict]:
    new, _, kept = Pseudonymizer(seed=9).apply_counted(text)
    return new, dict(kept)


@pytest.mark.parametrize(
    "text, kind",
    [
        ("문의: support@gitlab.com 으로 보내 주세요", "role_mailbox"),
        ("개인정보 보호책임자: privacy@hanbit-shop.co.kr", "role_mailbox"),
        ("noreply@accounts.example-bank.kr 에서 온 메일은 회신 불가", "role_mailbox"),
        ("입학처 admissions@snu.ac.kr 로 서류 제출", "role_mailbox"),
        ("주민등록번호: 000000-0000000 (작성 예시)", "placeholder"),
        ("계좌 000-000000-00-000 형식으로 입력", "placeholder"),
        ("가입 테스트는 test@test.com 으로", "placeholder"),
        ('<input placeholder="name@domain.com">', "placeholder"),
        ("foo@bar.baz 같은 더미 주소", "placeholder"),
        ("일회용 주소 qwerty@mailinator.com 로 받음", "placeholder"),
        ("도로명 + 건물번호 (예: 세종대로 110)", "example_address"),
        ("세브란스병원 서울 서대문구 연세로 50-1 대표전화 1599-1004", "institution_address"),
        ("김포국제공항 서울 강서구 하늘길 112 / 안내 1661-2626", "institution_address"),
        ("덕수궁 서울 중구 세종대로 99 관람 안내", "institution_address"),
        ("동대구역 버스터미널 대구 동구 동부로 149", "institution_address"),
        ("청주시 상당구청 충북 청주시 상당구 상당로 155 ☏ 043-201-4000", "institution_phone"),
    ],
)
def test_kept_and_counted(text, kind):
    new, kept = _apply(text)
    assert new == text and kept.get(kind), (new, kept)


@pytest.mark.parametrize(
    "text",
    [
        "제 메일은 kim.minsu@hanbit-shop.co.kr 입니다",  # a person at a company's domain
        "help@naver.com 으로 연락 주세요",  # a role word on a mail provider: anyone's
        "admin@gmail.com 계정 주인이 저예요",
        "제 주민번호는 850302-1234567 이에요",  # digits, not zeros
        "tester@gmail.com 로 보내줘",  # a test-like local part on a mail provider
        "A. 예시) 경기 고양시 일산동구 장항동 908 처럼 적으시면 됩니다",  # not bracketed
        "아버지가 세브란스병원 서울 서대문구 연세로 50-1 본관 8병동에 입원해 계세요",  # a ward
        "병원은 부전동 226-4 서면메디컬센터 9층에 있습니다",  # no hospital's name
        "우리병원 서울 마포구 월드컵로 10-3 으로 오세요",
        "경복궁 근처 서울 종로구 사직로 161-2 에 살아요",  # near a palace: a home
    ],
)
def test_personal_values_are_still_replaced(text):
    new, _ = _apply(text)
    assert new != text
