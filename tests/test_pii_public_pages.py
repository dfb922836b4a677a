"""URLs, e-mails and dotted numbers that name no one (`corpus.pii.public_pages`, issue #24's
fourth blind set): four-part version numbers are not IPs, and reference pages, public
institutions' pages, reserved example domains, URLs on a non-global IP and institutions'
official platform accounts are kept and counted. Each rule is tested next to the
positives it could swallow: a global IP after a version word, a person's page on an
institution's or reference host, an e-mail on a real domain, a person's blog or channel.
All values are invented.
"""

from __future__ import annotations

import pytest

from corpus.pii.generate import Pseudonymizer
from corpus.pii.kept import PUBLIC_KINDS, public_kind
from corpus.pii.public_pages import (
    example_domain,
    institution_page,
    official_account,
    reference_page,
    version_number,
)
from corpus.pii.scan import Scanner
from tests.pii_checks import kept_kinds, replaced_values

PZ = Pseudonymizer(seed=24)
SCANNER = Scanner()


def _kept(text: str) -> dict:
    return kept_kinds(PZ, text)


def _replaced(text: str) -> list[tuple[str, str]]:
    return replaced_values(PZ, text)


def test_the_new_kinds_are_listed():
    for kind in ("institution_page", "example_address", "official_account", "non_global_ip"):
        assert kind in PUBLIC_KINDS


# --- four-part version numbers --------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["oneDNN 3.4.11.7 과 함께 설치해야 한다",  # a product in camel case right before
     "Chrome 124.0.6367.91 에서만 재현된다",  # a browser that numbers builds in four parts
     "크롬 126.0.6478.127 로 올렸더니 해결됐어요",
     "스마트밴드 펌웨어 4.21.3.118(B07R2P5) 배포 시작",  # a version word before
     "무선이어폰 2.14.0.206(K11E3R2) 용량은 12MB",  # a build code right after
     "태블릿 OS 7.31.2.145 버전에서 터치가 안 됨",  # a release word right after
     "엔진 3.18.2.77-beta 테스트 중",  # a pre-release tag
     "SDK 5.12.3.41 이상이 필요합니다"],
)  # fmt: skip
def test_a_four_part_version_number_is_no_ip(text):
    assert [s.type for s in SCANNER.find(text)] == []
    assert _kept(text) == {}


@pytest.mark.parametrize(
    ("text", "ip"),
    [("접속 IP 211.36.142.77 버전 확인", "211.36.142.77"),  # a release word after an address
     ("버전 업데이트 후 접속 IP 175.223.10.48 로 차단됐다", "175.223.10.48"),  # version word before
     ("펌웨어 서버 주소는 121.134.55.80 입니다", "121.134.55.80"),  # the label is nearer
     ("hong 211.234.10.57 로그인 기록", "211.234.10.57"),  # a Latin word that is no product
     ("업데이트 서버: 203.248.12.77 에서 받음", "203.248.12.77"),
     ("로그인 기록 118.235.14.92 확인 바람", "118.235.14.92")],
)  # fmt: skip
def test_a_global_ip_next_to_a_version_word_is_still_replaced(text, ip):
    assert _replaced(text) == [(ip, "ip")]


def test_version_number_reads_the_words_around_the_number():
    text = "cuBLAS 12.4.5.8 빌드"
    s = text.index("12")
    assert version_number(text, s, s + len("12.4.5.8"))
    text = "서버 IP 12.4.5.8 빌드"
    s = text.index("12")
    assert not version_number(text, s, s + len("12.4.5.8"))


# --- reference and standards pages ----------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    ["https://www.rfc-editor.org/rfc/rfc9110.html", "https://datatracker.ietf.org/doc/html/rfc8446",
     "https://www.w3.org/TR/css-grid-2/", "developer.mozilla.org/en-US/docs/Web/API/Fetch_API",
     "www.iso.org/standard/81807.html", "https://unicode.org/reports/tr29/",
     "https://csrc.nist.gov/pubs/fips/197/final",
     "https://html.spec.whatwg.org/multipage/forms.html"],
)  # fmt: skip
def test_a_standards_or_reference_page_is_kept(url):
    assert _kept(f"명세는 {url} 를 참고") == {"reference_page": 1}


@pytest.mark.parametrize(
    "url",
    ["https://www.w3.org/People/hong12/", "developer.mozilla.org/en-US/profiles/hong12",
     "https://datatracker.ietf.org/person/minji.k", "https://www.iso.org/members.html?memberId=7"],
)  # fmt: skip
def test_a_person_s_page_on_a_reference_site_is_replaced(url):
    assert not reference_page(url)
    assert _replaced(f"자료는 {url} 참고") == [(url, "url")]


# --- public institutions' pages -------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    ["www.mois.go.kr/frt/sub/a06/b02/content.do", "open.assembly.go.kr/portal/bill/list.do",
     "https://www.△△.go.kr/board/notice", "www.hanbit.ac.kr/admission/guide.html",
     "www.nrf.re.kr/biz/info/notice/list", "www.mnd.mil.kr/mbshome/",
     "www.redcross.or.kr/donation/regular", "www.korea.kr/news/policyNewsView.do?newsId=14"],
)  # fmt: skip
def test_a_public_institution_s_page_is_kept(url):
    assert _kept(f"안내는 {url} 에 있습니다") == {"institution_page": 1}


@pytest.mark.parametrize(
    "url",
    ["www.hanbit.ac.kr/~kimjh/", "cse.hanbit.ac.kr/people/faculty/leeyh",
     "council.busan.go.kr/member/profile.do?memberId=31", "www.hanbit.ac.kr/staff/parkms",
     "lab.hanbit.ac.kr/professor/choi.html", "minwon.go.kr/apply?id=hong12"],
)  # fmt: skip
def test_a_professor_s_or_council_member_s_page_is_replaced(url):
    """Borderline, decided: a page of one person on an institution's host names that person."""
    assert not institution_page(url)
    assert _replaced(f"소개 {url} 참고") == [(url, "url")]


def test_a_replaced_institution_page_stays_replaced_on_a_second_pass():
    """Its pseudonym keeps the person's marks (/people/, ~, memberId=): a scrambled path
    would make it an institution's page naming no one, kept on the second pass."""
    for url in ("cse.hanbit.ac.kr/people/faculty/leeyh", "www.hanbit.ac.kr/~kimjh/",
                "council.busan.go.kr/member/profile.do?memberId=31"):  # fmt: skip
        text = f"소개 {url} 참고"
        out, spans = PZ.apply(text)
        assert url not in out and len(spans) == 1
        again, spans2 = PZ.apply(out)
        assert len(spans2) == 1 and again != out
    assert not PZ.fallbacks


# --- reserved example domains ---------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["예시 주소 https://example.org/search?q=test 처럼 쓴다",
     "http://www.example.net/docs/ 를 예로 들면",
     "요청 예: https://api.example.com/v2/items/17",
     "테스트 서버 http://shop.test/cart 에서 확인",
     "메일 sample@example.net 로 보내는 예",
     "발신 주소 admin@mail.example.org 는 예시",
     "알림 메일 no-reply@service.test 로 발송 테스트",
     "메일 예시: hong [at] example [dot] org"],
)  # fmt: skip
def test_an_address_on_a_reserved_example_domain_is_kept(text):
    assert _kept(text) == {"example_address": 1}


@pytest.mark.parametrize(
    ("text", "value"),
    [("메일 hong.gd@examplemail.com 로 주세요", "hong.gd@examplemail.com"),
     ("메일 kim.sy@example.co.kr 로 주세요", "kim.sy@example.co.kr"),  # not reserved
     ("메일 lee77@sub.myexample.org 로", "lee77@sub.myexample.org"),
     ("메일 park.jh@example.com.hanbit.kr 로", "park.jh@example.com.hanbit.kr"),
     ("메일 hong.gd@naver.com 로 주세요", "hong.gd@naver.com"),
     ("제 블로그 https://examples.com/p/hong 입니다", "https://examples.com/p/hong"),
     ("프로필 https://www.example.co.kr/user/hong 입니다", "https://www.example.co.kr/user/hong")],
)  # fmt: skip
def test_an_address_on_a_real_domain_is_still_replaced(text, value):
    assert _replaced(text) == [(value, "email" if "@" in value else "url")]


def test_example_domain_is_the_reserved_names_and_their_subdomains():
    for host in ("example.com", "a.b.example.org", "x.example", "box.localhost:3000", "q.invalid"):
        assert example_domain(host), host
    for host in ("example.co.kr", "myexample.com", "example.com.evil.net", "testing.com"):
        assert not example_domain(host), host


# --- a URL on a non-global IP ---------------------------------------------------------------


@pytest.mark.parametrize(
    "url", ["http://10.0.3.15:8080/health", "http://192.168.35.1/", "https://172.20.1.4:8443"]
)
def test_a_url_on_a_private_ip_is_kept_like_the_address(url):
    assert _kept(f"내부 대시보드는 {url} 에서 본다") == {"non_global_ip": 1}


@pytest.mark.parametrize(
    "url", ["http://211.36.142.77:8080/admin", "http://192.168.0.12/profile?user=hong"]
)
def test_a_url_on_a_global_ip_or_naming_a_user_is_replaced(url):
    assert _replaced(f"접속 주소 {url} 입니다") == [(url, "url")]


# --- official accounts ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["대구시 공식 인스타그램(instagram.com/daegu_city_pr)에 공지됐다",
     "한국수자원공사 유튜브 youtube.com/@kwater_tv 채널에서 중계한다",
     "경찰청 공식 페이스북 facebook.com/polinlove.kr 에 안내문이 올라왔다",
     "공식 트위터 x.com/mfds_news 에 식약처 안내가 나왔다",
     "국립중앙도서관 블로그 blog.naver.com/nlk_story 에 연재 중",
     "한국콘텐츠진흥원의 공식 유튜브 채널 youtube.com/@kocca_tv 참고",
     "○○시 공식 블로그 blog.naver.com/oo_city_news 에서 확인",
     "Official blog: blog.naver.com/hanbit_univ 에 공지"],
)  # fmt: skip
def test_an_account_called_official_or_given_to_an_institution_is_kept(text):
    assert _kept(text) == {"official_account": 1}


@pytest.mark.parametrize(
    ("text", "url"),
    [("부산 맛집 블로그 blog.naver.com/busan_eats_log 에 후기", "blog.naver.com/busan_eats_log"),
     ("부산 블로그 blog.naver.com/busan_eats_log 에 후기", "blog.naver.com/busan_eats_log"),
     ("서울 인스타 instagram.com/seoul_daily.kim 팔로우", "instagram.com/seoul_daily.kim"),
     ("제 공식 블로그 blog.naver.com/hong_writes 놀러오세요", "blog.naver.com/hong_writes"),
     ("비공식 팬 블로그 blog.naver.com/fan_page12 입니다", "blog.naver.com/fan_page12"),
     ("비공식 블로그 blog.naver.com/fan_page12 입니다", "blog.naver.com/fan_page12"),
     ("서울시의원 블로그 blog.naver.com/kim_council 에", "blog.naver.com/kim_council"),
     ("선임연구원 블로그 blog.naver.com/dr_lee_lab 에", "blog.naver.com/dr_lee_lab"),
     ("친구 인스타 instagram.com/jiwoo.daily 봐봐", "instagram.com/jiwoo.daily"),
     ("기상청 직원 블로그 blog.naver.com/weather_kim 에", "blog.naver.com/weather_kim"),
     ("혹시 블로그 blog.naver.com/hong_life 아세요", "blog.naver.com/hong_life"),
     ("브이로그 youtube.com/@minji_cooks 구독해주세요", "youtube.com/@minji_cooks"),
     ("서울시 공식 깃허브 github.com/seoul-dev 에 공개", "github.com/seoul-dev")],
)  # fmt: skip
def test_a_person_s_account_is_still_replaced(text, url):
    """A region alone, a person word, a word between the owner and the platform, no owner,
    or a code host (replaced by policy) is no evidence of an official account."""
    assert _replaced(text) == [(url, "url")]


def test_official_account_needs_its_text():
    url = "blog.naver.com/nlk_story"
    assert public_kind("url", url) is None
    assert official_account(url, "국립중앙도서관 블로그 " + url, len("국립중앙도서관 블로그 "))
    assert not official_account("blog.naver.com/", "공식 블로그 blog.naver.com/", 7)
