"""Issue #24, sixth blind set: births, phones, plates and e-mails as scans and forms write them.

Each shape is tested with invented values of its own (not the fixture's), through the fast
and the reference scan and through the pseudonymiser (the value replaced whole); every
guard is tested next to the positives it could swallow.
"""

from __future__ import annotations

import pytest

from corpus.pii.generate import Pseudonymizer
from tests.pii_checks import found_alike

PZ = Pseudonymizer(seed=46)


POSITIVES = [
    # a birth label in the dialogue turn before the date
    ("birth_date", "직원: 생년월일 불러 주시겠어요?\n손님: 79년 4월 13일이에요.", "79년 4월 13일"),
    ("birth_date", "상담사: 생년월일 여쭤볼게요.\nA: 64년 10월 2일입니다.", "64년 10월 2일"),
    # a table's header names the date's column
    ("birth_date", "번호,이름,생년월일\n7,박**,92년 6월 30일\n8,이**,,", "92년 6월 30일"),
    ("birth_date", "순번\t생년월일\t지역\n2\t85.12.04\t대구", "85.12.04"),
    # a label with a bracketed note before its colon
    ("birth_date", "생년월일(주민번호 앞자리 아님): 93.07.21", "93.07.21"),
    # 生 after an old record's date; "born" before the date
    ("birth_date", "姓名 ○○○\n62年 11月 3日生 本籍 忠北", "62年 11月 3日"),
    ("birth_date", "My husband was born 84년 2월 19일 in Busan", "84년 2월 19일"),
    ("birth_date", "She was born on 1997년 8월 3일, a Sunday", "1997년 8월 3일"),
    # a mobile with l or I misread for 1, O for 0
    ("mobile", "H.P : O1O-6634-l295", "O1O-6634-l295"),
    ("mobile", "M. 010-4781-2OI9", "010-4781-2OI9"),
    # stray spaces inside the groups, or every digit after the prefix spaced
    ("mobile", "연 락 처 : 010-57 13-2 846", "010-57 13-2 846"),
    ("mobile", "휴대폰 010 4 7 2 9 3 8 1 6 입니다", "010 4 7 2 9 3 8 1 6"),
    # read out in Korean with commas, or 다시 for the dash
    ("mobile", "네 번호가 공일공, 사칠이구, 팔팔삼일 맞으시죠?", "공일공, 사칠이구, 팔팔삼일"),
    ("mobile", "전화는 공일공 다시 칠삼팔이 다시 오구일사", "공일공 다시 칠삼팔이 다시 오구일사"),
    # a plate with l or I misread for 1
    ("plate", "블랙박스에 찍힌 건 52노 8l36 이에요", "52노 8l36"),
    # an e-mail with a space before its dot; a star for "@" before a webmail host
    ("email", "E-MAIL: haru.k82@daum .net (스캔본)", "haru.k82@daum .net"),
    ("email", "📩 doyun.art ☆ naver.com (☆→@)", "doyun.art ☆ naver.com"),
    ("email", "문의 sora_7★gmail.com 으로 주세요", "sora_7★gmail.com"),
]  # fmt: skip


@pytest.mark.parametrize(("kind", "text", "value"), POSITIVES)
def test_the_shape_is_replaced_whole(kind, text, value):
    assert (value, kind) in found_alike(text)
    new, spans = PZ.apply(text)
    start = text.index(value)
    assert any(
        s.start <= start and start + len(value) <= s.end and s.type == kind for s in spans
    ), (text, [(text[s.start : s.end], s.type) for s in spans])
    assert value not in new, new


NEGATIVES = [
    # a birthday that is celebrated, in the turn before: the date of a party
    "A: 생일 축하해!\nB: 2023년 5월 3일에 만나자",
    # a paragraph that opens with a date after one that mentions a birthday
    "그의 40번째 생일을 맞아 헌정 음반이 나왔다.\n2011년 8월 16일은 그의 10주기였다.",
    # a turn that is no answer: the date after other words
    "A: 생년월일 말씀해 주세요.\nB: 네, 그런데 2019년 3월 4일에 이사했어요.",
    # "born" in a title before the date of a release
    "앨범 Born This Way (2011년 5월 23일 발매)",
    # a table whose date column is not a birth ("가입일")
    "번호,이름,가입일\n7,박**,22년 6월 30일",
    # a table's birth column, but the date in another column
    "번호,생년월일,가입일\n3,,21년 3월 9일",
    # a bracketed note, then a date that is not after a birth label
    "접수일(평일만): 24.03.17",
    # 生 starting a word after a date: 生産 (production)
    "83年 4月 1日生産開始",
    # a number only regrouped: found as a copy, never alone
    "계좌 0102 345 6789 로 보내",
    "0 1 0 2 3 4 5 6 7 8 9 10",
    # a plate-like code followed by letters
    "모델 12가 34lb 규격",
    # a star as a rating before a mail host's name; an English word before it
    "별점 ☆ naver.com 리뷰",
    "I love ☆ naver.com",
    # a read-out number with commas needs its prefix: a list of words
    "영일, 삼삼, 일공",
]


@pytest.mark.parametrize("text", NEGATIVES)
def test_the_guard_leaves_the_text(text):
    assert found_alike(text) == [], text
