"""Formats met on real petitions and Wikipedia (issue #15), each as a made-up value of its shape.

Every value here is invented; only the written form (spacing, dashes, the words
around it) comes from what the real-text review found. Each case is also run
through the reference scan, so the fast scan's gates cover the new forms.
"""

from __future__ import annotations

import pytest

from corpus.pii.generate import Pseudonymizer
from corpus.pii.scan import Scanner, find_spans

POSITIVES = [
    # road names with a numbered branch written apart from the road, and its number
    (
        "address",
        "주소: 서울특별시 강남구 봉은사로 17길 36입니다",
        "서울특별시 강남구 봉은사로 17길 36",
    ),
    ("address", "부산광역시 수영구 광남로 5길 38에서 만나요", "부산광역시 수영구 광남로 5길 38"),
    (
        "address",
        "충청남도 공주시 웅진로45번 길 23-4번지 2층 홍길동",
        "충청남도 공주시 웅진로45번 길 23-4번지 2층",
    ),
    ("address", "경남 김해시 가야로 17번길 29-3, 3층으로", "경남 김해시 가야로 17번길 29-3, 3층"),
    # a mountain lot and a lot address with a parenthesised lot number
    (
        "address",
        "묘소는 강원도 정선군 사북읍 사북리 산12-3번지에 있다",
        "강원도 정선군 사북읍 사북리 산12-3번지",
    ),
    (
        "address",
        "서울 구로구 남부순환로 107길 22 (가리봉동 137-21)에",
        "서울 구로구 남부순환로 107길 22 (가리봉동 137-21)",
    ),
    # bare apartment units
    ("address", "은빛아파트의 305동 1107호 계약자", "305동 1107호"),
    ("address", "하늘빌라 3동 201호에 삽니다", "3동 201호"),
    # phone numbers with en/em dashes; a labelled local number without area code
    ("phone", "전화 02–345–6789로 문의", "02–345–6789"),
    ("mobile", "휴대폰 010–2345–6789", "010–2345–6789"),
    ("mobile", "연락처 010—3456—7890 입니다", "010—3456—7890"),
    ("phone", "연락처: 2345-6789로 연락 주세요", "2345-6789"),
    ("phone", "전화번호는 345-6789입니다", "345-6789"),
    ("phone", "TEL 2345–6789 (평일 9시-18시)", "2345–6789"),
    # vehicle plates: the 2019 three-digit format, without the word 차량번호
    ("plate", "사고 차량은 123가 4567 입니다", "123가 4567"),
    ("plate", "사건 당시 234나 5678 차량이 중앙선을 넘었다", "234나 5678"),
    ("plate", "트럭(345더 6789)이 후진하다가", "345더 6789"),
    ("plate", "앞차 56루 7890을 따라갔다", "56루 7890"),
    ("plate", "택시 78바 1234에서 내렸다", "78바 1234"),
    # dates of birth in the encyclopedic lead and in running text
    # a bare host under a Korean second-level domain, with or without a path
    ("url", "정보시스템(abcd.efgh.go.kr)에서 검색", "abcd.efgh.go.kr"),
    ("url", "사이트 minwon.or.kr/apply?id=3에서 신청", "minwon.or.kr/apply?id=3"),
    ("birth_date", "홍길동(洪吉童, 1974년 7월 2일 ~ )은 대한민국의 배우이다.", "1974년 7월 2일"),
    ("birth_date", "아무개(, 1932년 1월 5일 ~ 2016년 2월 19일)는 작가이다.", "1932년 1월 5일"),
    ("birth_date", "김아무(1969년 8월 16일 - )는 만화가이다.", "1969년 8월 16일"),
    (
        "birth_date",
        "이아무(李阿無, 1956년 7월 27일(음력 6월 20일) ~ )는 언론인이다.",
        "1956년 7월 27일",
    ),
    ("birth_date", "그는 1980년 3월 28일 서울에서 1남 1녀 중 막내로 태어났다.", "1980년 3월 28일"),
    ("birth_date", "첫 아이가 출생한 1963년 4월 8일에 그는 투어 중이었다.", "1963년 4월 8일"),
    ("birth_date", "제가 본 선수는 1985년 7월 2일생이다.", "1985년 7월 2일"),
    # forms found in the fresh real-text draw (docs/pii.md), as made-up values
    ("birth_date", "아무개(, 1947년 8월 6일 ~ 1996년 9월 28일, )는 정치가이다.", "1947년 8월 6일"),
    ("birth_date", "김아무(, . 1968년 8월 4일 ~ )은 배우이다.", "1968년 8월 4일"),
    (
        "birth_date",
        "1929년 10월 22일 모스크바의 노동자 집안에서 태어나 공장에서 일했다.",
        "1929년 10월 22일",
    ),
    (
        "birth_date",
        "1923년 3월 27일, 도쿄 부(東京府) 기타 군(北郡) 니시 정(西町)에서 당시 은행(銀行)에서"
        " 은행원으로 근무하고 있던 아버지 아무개와 음악학교 학생이었던 어머니의"
        " 둘째 아들로 태어났다.",
        "1923년 3월 27일",
    ),
]

NEGATIVES = [
    # birth-date false positives found in Wikipedia and petitions
    "1980년 1월 1일생 이후 출생자는 대상이 아니다.",
    "1990년 3월 5일생부터 적용한다.",
    "1924년 9월 1일생부터 1925년 8월 31일생과 같은 학년이 된다.",
    "2010년 3월 5일 생방송으로 진행되었다.",
    "2000년 5월 1일 생성된 파일이다.",
    "2019년 4월 1일 생태계 조사가 시작되었다.",
    "75세 생일인 2010년 3월 5일에 잔치가 열렸다.",
    "주석의 80회 생일에 헌정하기 위해 1987년 8월 28일에 착공되었다.",
    "노르웨이의 국왕(재위: 1991년 1월 17일 ~ )으로 알려져 있다.",
    "대한민국 임시정부(1919년 4월 11일 ~ 1948년 8월 15일)는 망명 정부였다.",
    "베트남국(1949년 6월 14일 - 1955년 10월 26일)을 남베트남의 역사에 포함한다.",
    "서울 중구 아무로 000번길 00, 000동 000호 (XXX아파트) 홍 길 동 (인)",
    "월드컵(2002년 5월 31일 ~ 6월 30일)은 한국과 일본에서 열렸다.",
    "아무개(, 1894년 10월 18일 - 1943년 12월 20일)는 라트비아에서 태어났다.",
    "1945년 8월 15일 광복 후 태어난 세대",
    "2010년 7월 22일에 보도된 자료에 따르면 이 별은 태어났을 당시 320배 무거웠다.",
    "열두 번째 총장(2019년 8월 1일 ~ )으로 취임했다.",
    "류아무 총장(2019. 8. 1. ~ ) 다음은",
    "수송대의 군수품 운반(1905년 6월 10일~1905년 11월 2일)을 맡았다.",
    # plates and phones that are something else
    "대법원 1993.9.14. 선고 93노1395 판결",
    "예산은 12조 3456억 원이다.",
    "2019-2020 시즌 주문번호 1234-5678",
    "페이지 234-5678 참조",
    # bare names with dots that are not web addresses
    "설정은 config.yaml 과 os.path.join 으로 한다.",
    "버전 3.11.4 와 README.md 파일",
    # addresses: a quantity after a road-like word
    "캐나다군 포로 100여 명이 살해되었다.",
]


@pytest.mark.parametrize("kind,text,value", POSITIVES)
def test_real_formats_are_found(kind, text, value):
    spans = find_spans(text)
    assert [(text[s.start : s.end], s.type) for s in spans] == [(value, kind)]
    assert Scanner(fast=False).find(text) == spans


@pytest.mark.parametrize("text", NEGATIVES)
def test_real_false_positives_are_left(text):
    assert find_spans(text) == []
    assert Scanner(fast=False).find(text) == []


def test_a_lead_and_the_body_of_an_article_agree():
    """The lead's date and the body's "…생" get the same pseudonym: the article stays whole."""
    article = (
        "홍길동(洪吉童, 1974년 7월 2일 ~ )은 대한민국의 배우이다. "
        "그는 1974년 7월 2일 서울에서 태어났다. 1974년 7월 2일생으로 알려져 있다."
    )
    out, spans = Pseudonymizer(seed=3).apply(article)
    assert [s.type for s in spans] == ["birth_date"] * 3
    assert "1974년 7월 2일" not in out
    fakes = {out[s.start : s.end] for s in find_spans(out)}
    assert len(fakes) == 1  # one date, three times
