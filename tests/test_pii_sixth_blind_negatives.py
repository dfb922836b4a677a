"""The negatives of issue #24's sixth blind set, by shape (`corpus.pii.public_notices`,
`corpus.pii.institutions`, `corpus.pii.public_pages`, `corpus.pii.birthdates`,
`corpus.pii.kept`): a public building's or a business's own address and number in its
notice, an animal's date of birth, a file name or a service unit with an ``@``, a free-call
080 number, a site's notice, news, help or policy page, a board's post number, a shared
document's link with its id left out, an official channel or repository. Each rule is
tested next to the positives it could swallow: a person's address or number in a notice, a
person's birth next to an animal word, a real mailbox, a person's page or channel. All
values are invented.
"""

from __future__ import annotations

import pytest

from corpus.pii.generate import Pseudonymizer
from corpus.pii.public_pages import file_or_unit
from tests.pii_checks import kept_kinds, replaced_values

PZ = Pseudonymizer(seed=6)


def _kept(text: str) -> dict:
    return kept_kinds(PZ, text)


def _replaced(text: str) -> list[tuple[str, str]]:
    return replaced_values(PZ, text)


def _types(text: str) -> list[str]:
    """The types replaced in `text`, whatever else it keeps."""
    return [sp.type for sp in PZ.apply_counted(text)[1]]


# --- a public building's address: a 과학관, 본교, a public car park, a hall in a table ----------


@pytest.mark.parametrize(
    "text",
    ["집결지는 국립달빛과학관 후문(부산 해운대구 과학로 77)입니다.",
     "[안내] 달빛동 공영주차장(달빛로12길 7) 주말 무료 개방",
     "S-21,달빛초등학교 강당,충남 달빛시 달빛로 31,수용 200명",
     "본교 주소: 충북 청주시 상당구 달빛로 64",
     "대회 장소: 달빛시민체육관(경남 달빛시 체육로 12)", "달빛종합사회복지관 주소: 달빛로 250"],
)  # fmt: skip
def test_a_public_building_s_address_is_kept(text):
    assert _kept(text) == {"institution_address": 1}


def test_a_school_s_old_and_new_address_and_its_office_number_are_kept():
    text = (
        "본교 주소 이전 안내: 구 주소 달빛동 12번지 → 신 주소 달빛로 90, 교무실 전화 043-210-7788"
    )
    assert _kept(text) == {"institution_address": 2, "institution_phone": 1}


@pytest.mark.parametrize(
    "text",
    ["과학관 근처 부산 해운대구 과학로 79 원룸 구해요", "본교 학생 주소: 달빛동 12번지",
     "본교 기숙사 주소 충북 청주시 상당구 달빛로 66 3동 201호",
     "공영주차장 옆 달빛로12길 9 에 살아요"],
)  # fmt: skip
def test_a_person_s_address_next_to_a_public_building_is_replaced(text):
    assert "address" in _types(text)


# --- a business's own address: its voice, its footer, a clinic's move, a site ----------------


@pytest.mark.parametrize(
    "text",
    ["서류는 당사 서비스센터(대구 중구 달빛로 45, 2층)로 보내 주십시오.",
     "본사 주소: 대전 서구 달빛로 8",
     "달빛상사 | 사업자등록번호 123-45-67890 | 고객센터 1644-0000 | 광주 북구 달빛로 19",
     "[치과 이전 안내] 6월 1일부터 달빛대로 77 2층에서 진료합니다.",
     "모델하우스 위치: 달빛신도시 달빛대로 120, 10시부터 관람",
     "올해 축제는 달빛동 55 일원에서 열립니다.",
     "반품은 달빛몰 반품센터(경기 이천시 달빛로 300)로 보내 주세요",
     "(주)달빛 ㅣ 대표 ○○○ ㅣ 통신판매업 제2024-서울-0000호 ㅣ 서울 중구 달빛로 2",
     "[매장 이전] 7월부터 달빛로 88 1층에서 영업합니다."],
)  # fmt: skip
def test_a_business_s_or_a_site_s_own_address_is_kept(text):
    assert _kept(text)["notice_address"] == 1


@pytest.mark.parametrize(
    "text",
    ["당사 직원 숙소(서울 마포구 달빛로 3, 2층) 입주 안내",
     "이름 ○○○ | 010-2345-6789 | 서울 마포구 달빛로 3",
     "○○○ 과장 | 영업팀\n달빛상사\n서울 마포구 달빛로 3 5층",
     "○○교회 청년부 사무실 이전 안내 — 새 주소: 달빛동 12-3 2층",
     "치과 이전해서 요즘은 달빛로 5 근처로 다녀요"],
)  # fmt: skip
def test_a_person_s_address_in_a_business_shape_is_replaced(text):
    assert "address" in _types(text)


def test_a_fax_after_a_business_s_nationwide_number_is_kept():
    text = "TEL：1588-0000 (대표) / FAX：02-555-0101"
    assert _kept(text) == {"service_number": 1, "business_phone": 1}


def test_a_fax_on_a_footer_line_after_its_nationwide_number_is_kept():
    text = "달빛출판 | 고객센터 1600-0000 | 서울 마포구 달빛로 7 | 팩스 02-555-0102"
    assert _kept(text) == {"service_number": 1, "notice_address": 1, "business_phone": 1}


def test_a_person_s_direct_line_after_a_business_s_number_is_replaced():
    text = "고객센터 1588-0000, 담당자 직통 전화 02-555-0101"
    assert _types(text) == ["phone"]


@pytest.mark.parametrize("number", ["080-345-6789", "(080) 765-4321", "０８０－１２３－４５６７"])
def test_a_free_call_080_number_is_kept(number):
    text = f"수신자 부담 {number} 로 전화 주세요"
    assert _kept(text) == {"service_number": 1}


def test_a_mobile_with_080_inside_is_replaced():
    assert _replaced("연락처 010-8080-1234") == [("010-8080-1234", "mobile")]


# --- an animal's date of birth --------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["[입양] 포메 왕자님 23년 9월 14일생, 2차 접종 완료",
     "우리 강아지 생일이 20년 11월 3일이라 케이크 샀어요",
     "랫드 그룹 C는 24년 1월 9일생, 그룹 D는 24년 1월 23일생이다.",
     "씨수말 '달빛킹'은 17년 5월 8일 태어난 수말로 통산 9승",
     "진료기록: 환묘 나비(코숏, 19년 2월 27일생, 3.1kg) 구내염",
     "올해 봄 23년 4월 2일 태어난 망아지 두 마리",
     "아기 판다 달빛이는 2021년 8월 3일 태어난 암컷이다", "비글 수컷 23년 2월 1일생 분양"],
)  # fmt: skip
def test_an_animal_s_birth_is_no_one_s(text):
    assert _replaced(text) == []


@pytest.mark.parametrize(
    "text",
    ["저 87년 토끼띠고요, 87년 2월 3일생입니다.", "고양이 좋아하는 93년 7월 5일생 여자입니다",
     "저는 강아지 두 마리와 사는 91년 4월 2일생 직장인이에요",
     "햄스터 키우는 89년 5월 6일생 남자입니다",
     "강아지 산책 시켜주실 분 구해요. 저는 90년 1월 8일생입니다",
     "호랑이 선생님 62년 3월 1일생이십니다", "집 판다 연락 주세요. 저는 65년 2월 3일생입니다"],
)  # fmt: skip
def test_a_person_s_birth_next_to_an_animal_word_is_replaced(text):
    assert _types(text) == ["birth_date"]


# --- a file name or a service unit with an "@" ------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["systemctl restart sshd@conn3.service 후 다시 접속", "nginx-worker@blue.socket 이 죽었어요",
     "draft@v3.pdf 파일이 안 열려요", "backup@nightly.timer 로 매일 돌립니다",
     "release@v2.tar.gz 받아서 풀면 됩니다"],
)  # fmt: skip
def test_a_file_or_a_unit_with_an_at_sign_is_no_mailbox(text):
    assert _replaced(text) == []


@pytest.mark.parametrize(
    "address",
    ["minho.k@dalbit.co.kr", "jiwoo@service.co.kr", "help.desk@mail.services", "sora@pdf.io"],
)
def test_a_mailbox_with_a_file_like_word_is_replaced(address):
    assert not file_or_unit(address.split("@")[1])
    assert _replaced(f"메일 {address} 로 주세요") == [(address, "email")]


# --- a site's notice, news, help or policy page -----------------------------------------------


@pytest.mark.parametrize(
    "url",
    ["forum.dalbitsoft.com/notice/88", "news.saebyeoktimes.co.kr/article/20240101123",
     "www.mirae-insure.com/privacy", "help.dalbitsoft.com/hc/ko/articles/12345",
     "https://www.dalbitsoft.com/ko/terms", "www.saebyeoktimes.com/news/articleView.html?idxno=77",
     "news.saebyeoktimes.co.kr/20240101123", "support.dalbitsoft.com/refund/7"],
)  # fmt: skip
def test_a_site_s_notice_news_help_or_policy_page_is_kept(url):
    assert _kept(f"원문은 {url} 에 있습니다") == {"reference_page": 1}


@pytest.mark.parametrize(
    "url",
    ["blog.naver.com/minho_88/news", "github.com/jiwoo77/notice", "jiwoo-dev.tistory.com/notice/3",
     "hanbit77.com/news/1", "medium.com/@sora/news", "www.instagram.com/news_jiwoo/",
     "news.saebyeoktimes.co.kr/reporter/minho77", "news.dalbit.com/list?reporterId=jiwoo"],
)  # fmt: skip
def test_a_person_s_page_with_a_notice_or_news_word_is_replaced(url):
    assert _replaced(f"글은 {url} 참고") == [(url, "url")]


def test_an_institution_s_press_release_number_is_no_person():
    text = "보도자료는 www.dalbit.go.kr/news/view.do?id=1234 에서 받으세요"
    assert _kept(text) == {"institution_page": 1}


@pytest.mark.parametrize(
    "url",
    ["www.dalbit.ac.kr/people/view.do?id=1234", "www.dalbit.ac.kr/board/view.do?userId=77",
     "www.dalbit.go.kr/board/view.do?id=minho77", "www.dalbit.go.kr/minwon/view.do?id=1234"],
)  # fmt: skip
def test_a_member_s_id_on_an_institution_s_page_is_replaced(url):
    assert _replaced(f"링크 {url} 참고") == [(url, "url")]


def test_a_shared_document_s_link_with_its_id_left_out_is_kept():
    text = "문서 주소는 docs.google.com/document/d/ 뒤에 ID가 붙어요"
    assert _kept(text) == {"reference_page": 1}
    url = "docs.google.com/document/d/1AbCdEfGhIjKlMnOp/edit"
    assert _replaced(f"문서 {url} 참고") == [(url, "url")]


# --- official channels; a repository stays an account ---------------------------------------


@pytest.mark.parametrize(
    "text",
    ["달빛군청 카카오톡 채널 pf.kakao.com/_dalbitgun 을 추가하세요",
     "결승은 공식 채널 twitch.tv/dalbit_league 에서 중계합니다"],
)  # fmt: skip
def test_an_official_channel_or_repository_is_kept(text):
    assert _kept(text) == {"official_account": 1}


@pytest.mark.parametrize(
    "text",
    ["제 카카오톡 채널 pf.kakao.com/_minho 추가해 주세요",
     "방송은 twitch.tv/minho_live 에서 합니다",
     "제 공식 채널 twitch.tv/minho_live 구독!", "공식 저장소 github.com/minho-dev/morph 입니다",
     "제 공식 저장소 github.com/minho-dev/morph", "github.com/minho-dev/morph 에 올렸어요",
     # a code host's account is a person's by policy (docs/pii.md), an organisation's too
     "연구소 공식 저장소 github.com/dalbit-nlp/morph 를 참고하세요"],
)  # fmt: skip
def test_a_person_s_channel_or_repository_is_replaced(text):
    assert _types(text) == ["url"]
