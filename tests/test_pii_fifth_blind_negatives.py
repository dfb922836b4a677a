"""The negatives of issue #24's fifth blind set, by shape (`corpus.pii.public_pages`,
`corpus.pii.birthdates`, `corpus.pii.institutions`): documentation, registry, Q&A and
app-store pages on sites not listed as reference sites, an empty link pattern, a code
host's SSH remote, a section number and a number said not to be an IP, an animal's date
of birth, a public building's new address in its move notice. Each rule is tested next
to the positives it could swallow: a person's page or channel, a person's login, an
address labelled as one, a human baby's birth, a person's move. All values are invented.
"""

from __future__ import annotations

import pytest

from corpus.pii.generate import Pseudonymizer
from corpus.pii.public_pages import reference_page, section_number, ssh_remote
from corpus.pii.scan import Scanner
from tests.pii_checks import kept_kinds, replaced_values

PZ = Pseudonymizer(seed=5)
SCANNER = Scanner()


def _kept(text: str) -> dict:
    return kept_kinds(PZ, text)


def _replaced(text: str) -> list[tuple[str, str]]:
    return replaced_values(PZ, text)


# --- documentation, registry and Q&A pages on any site ---------------------------------------


@pytest.mark.parametrize(
    "url",
    ["https://helm.sh/docs/intro/quickstart/", "https://www.tensorflow.org/install/pip",
     "https://deno.land/manual/getting_started", "vuejs.org/guide/introduction.html",
     "https://redis.io/docs/latest/commands/", "https://fastify.dev/reference/routes/",
     "jinja.palletsprojects.com/en/3.1.x/templates/", "https://numpy.org/doc/stable/",
     "https://www.npmjs.com/package/left-pad", "https://pub.dev/packages/provider",
     "www.nuget.org/packages/Serilog", "https://crates.io/crates/tokio",
     "superuser.com/questions/1234/how-to-mount", "rust-lang.org/learn/get-started",
     "https://bun.sh/api/file-io", "sqlalchemy.org/en/20.1/orm/"],
)  # fmt: skip
def test_a_documentation_registry_or_qa_page_is_kept(url):
    assert reference_page(url)
    assert _kept(f"설명은 {url} 에 있습니다") == {"reference_page": 1}


@pytest.mark.parametrize(
    "url",
    ["velog.io/@minho_dev/api-설계", "medium.com/@sora.kim/docs-as-code",
     "github.com/jiwoo77/docs", "gitlab.com/hana-lee/manual", "https://www.npmjs.com/~hanbit77",
     "superuser.com/users/5521/jiwoo", "jiwoo-dev.tistory.com/docs/1",
     "hanbit77.com/docs/resume.pdf", "https://www.instagram.com/docs_minho/",
     "blog.naver.com/minho_88/api"],
)  # fmt: skip
def test_a_person_s_page_with_a_documentation_word_is_replaced(url):
    assert not reference_page(url)
    assert _replaced(f"자료는 {url} 참고") == [(url, "url")]


def test_a_page_of_a_site_with_no_documentation_word_is_replaced():
    """Only the documentation-like first segment makes a page of any site a reference."""
    for url in ("hanbitcafe.com/menu/today", "minho-kim.net/about"):
        assert _replaced(f"여기 {url} 봐") == [(url, "url")]


def test_a_documentation_page_on_an_example_domain_counts_as_an_example():
    """A reserved example host is `example_address` whatever its path says."""
    assert _kept("예: https://www.example.com/docs/setup 처럼") == {"example_address": 1}


# --- stores and official images -------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    ["play.google.com/store/apps/details?id=kr.hanbit.memo",
     "https://apps.apple.com/kr/app/hanbit-memo/id1234567890",
     "store.steampowered.com/app/4321/", "https://hub.docker.com/_/redis",
     "chromewebstore.google.com/detail/abcdefghijklmnop",
     "marketplace.visualstudio.com/items?itemName=hanbit.lint"],
)  # fmt: skip
def test_a_store_page_of_an_app_or_an_official_image_is_kept(url):
    assert _kept(f"받는 곳: {url} 입니다") == {"reference_page": 1}


@pytest.mark.parametrize(
    "url",
    ["play.google.com/store/apps/dev?id=8811223344556677",  # a developer's page
     "hub.docker.com/r/minho88/webapp",  # a user's image
     "steamcommunity.com/id/jiwoo_77",  # a player's profile
     "play.google.com/store/apps/details?id=12345&user=minho"],  # a user in the query
)  # fmt: skip
def test_a_developer_s_or_user_s_page_on_a_store_is_replaced(url):
    assert _replaced(f"주소는 {url} 입니다") == [(url, "url")]


# --- an empty link pattern ------------------------------------------------------------------


def test_a_link_pattern_with_its_value_left_out_is_kept():
    assert _kept("영상 주소는 youtube.com/watch?v= 뒤에 ID가 붙는다") == {"reference_page": 1}
    assert _kept("검색은 https://search.daum.net/search?q= 로 시작") == {"reference_page": 1}


@pytest.mark.parametrize(
    "url",
    ["www.youtube.com/watch?v=Ab3dE5gH7jK", "youtu.be/Ab3dE5gH7jK",
     "www.youtube.com/@minho_vlog", "www.youtube.com/channel/UCa1b2c3d4e5f6g7h8",
     "instagram.com/minho.k?igsh="],
)  # fmt: skip
def test_a_video_or_a_channel_with_its_id_is_replaced(url):
    assert _replaced(f"제 영상 {url} 봐주세요") == [(url, "url")]


# --- a code host's SSH remote ---------------------------------------------------------------


def test_a_git_ssh_remote_is_no_e_mail():
    text = "원격 저장소는 git@gitlab.com:hanbit-team/notes.git 로 추가하세요."
    assert [s.type for s in SCANNER.find(text)] == []
    assert _kept(text) == {}
    assert ssh_remote("git", "git@bitbucket.org:team/app.git", len("git@bitbucket.org"))


@pytest.mark.parametrize(
    ("text", "mail"),
    [("메일은 git@hanbitmail.com 으로 주세요", "git@hanbitmail.com"),  # no ":" after the host
     ("minho77@gitlab.com:22 로 접속", "minho77@gitlab.com"),  # a person's login
     ("연락: git@hanbit.co.kr: 언제든", "git@hanbit.co.kr")],  # a colon, then a space
)  # fmt: skip
def test_an_address_next_to_a_colon_is_still_an_e_mail(text, mail):
    assert _replaced(text) == [(mail, "email")]


# --- section numbers and numbers said not to be IPs -----------------------------------------


@pytest.mark.parametrize(
    "text",
    ["자세한 내용은 규격서 5.2.17.3절을 보세요",
     "KS 표준 2.11.4.6 항목에 정의되어 있다",
     "조항 7.1.3.2 에 따라 처리한다",
     "명세서 4.12.8.1항 '입력 검증' 참고",
     "6.3.21.4 단락의 예시를 따르세요",
     "8.16.23.42 는 IP처럼 보이지만 그냥 일련번호다",
     "21.7.33.5 은 아이피 같지만 좌표 표기다"],
)  # fmt: skip
def test_a_section_number_or_a_number_said_not_to_be_an_ip_is_no_ip(text):
    assert [s.type for s in SCANNER.find(text)] == []
    assert _kept(text) == {}


@pytest.mark.parametrize(
    ("text", "ip"),
    [("접속 IP 5.2.17.3 에서 로그인 시도", "5.2.17.3"),  # the label wins over 절 words
     ("서버 주소는 61.77.23.145 절대 공유 금지", "61.77.23.145"),  # 절대, not 절
     ("규격서 확인 후 접속 IP 58.29.114.7 차단", "58.29.114.7"),
     ("로그인 기록 112.175.4.19 은 제 IP 주소입니다", "112.175.4.19"),
     ("211.48.6.97 장비에서 접속", "211.48.6.97")],  # 장비, not 장
)  # fmt: skip
def test_an_ip_next_to_section_or_ip_words_is_still_replaced(text, ip):
    assert _replaced(text) == [(ip, "ip")]


def test_section_number_reads_the_words_around_the_number():
    text = "표준 3.9.12.4 참조"
    s = text.index("3.")
    assert section_number(text, s, s + len("3.9.12.4"))
    text = "IP 3.9.12.4 참조"
    assert not section_number(text, 3, 3 + len("3.9.12.4"))


# --- an animal's date of birth --------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["23년 9월 4일생 아기 고양이 두 마리 분양합니다.",
     "22년 12월 30일생 새끼 강아지들 입양처 구해요",
     "24년 3월 18일생 수컷 송아지 한 마리",
     "23년 7월 7일생 말티즈 남아, 접종 완료",
     "21년 5월 20일생 유기견이라 사람을 조금 무서워해요",
     "2023년 10월 2일생 치즈색 고양이 보호 중"],
)  # fmt: skip
def test_an_animal_s_birth_is_no_person_s(text):
    assert [s.type for s in SCANNER.find(text)] == []


@pytest.mark.parametrize(
    ("text", "date"),
    [("23년 9월 4일생 아기 이름은 서윤이에요", "23년 9월 4일"),  # a human baby
     ("저희 딸은 22년 12월 30일생 아기예요", "22년 12월 30일"),
     ("1988년 6월 11일생 소견서 발급", "1988년 6월 11일"),  # 소견, not 견
     ("91년 2월 17일생 고양이 집사입니다", "91년 2월 17일"),  # a cat's keeper
     ("85년 4월 9일생 강아지 엄마예요", "85년 4월 9일")],
)  # fmt: skip
def test_a_human_baby_s_or_an_animal_keeper_s_birth_is_still_a_birth(text, date):
    assert _replaced(text) == [(date, "birth_date")]


# --- a public building's new address in its move notice --------------------------------------


@pytest.mark.parametrize(
    "text",
    ["시립미술관 이전 안내: 새 주소는 예술공원로 27, 재개관은 3월입니다.",
     "구민회관 임시 이전 공지 - 바뀐 주소: 서울 강서구 화곡로 302",
     "○○보건소 신축 이전 알림 새 주소 한빛로 45"],
)  # fmt: skip
def test_an_institution_s_new_address_in_its_move_notice_is_kept(text):
    assert _kept(text) == {"institution_address": 1}


@pytest.mark.parametrize(
    "text",
    ["저희 가족 이사 안내: 새 주소는 예술공원로 27 입니다.",  # a family's move
     "시립미술관 근처로 이사 안내: 새 주소는 예술공원로 27",  # near the institution
     "한빛대학교 기숙사 이전 안내: 새 주소는 예술공원로 27",  # a residence
     "구민회관 이전 안내: 제 새 주소는 예술공원로 27"],  # a person's own
)  # fmt: skip
def test_a_person_s_new_address_is_still_replaced(text):
    assert [t for _, t in _replaced(text)] == ["address"]
