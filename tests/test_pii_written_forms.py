"""Issue #24: personal information as people write it, and no copy left behind.

Each form is tested from its pattern with made-up values (random where the shape
allows), through the fast and the reference scan; every guard is tested against
the positives it could swallow, and the negatives it exists for are tests too.
"""

from __future__ import annotations

import random

import pytest

from corpus.pii import realstyle
from corpus.pii.addresses import core_of
from corpus.pii.generate import Pseudonymizer
from corpus.pii.generators import AGE_WINDOW_YEARS
from corpus.pii.scan import Scanner, written_forms
from corpus.pii.validators import DASH_LOOKALIKES, global_ip, rrn_check_digit, rrn_checksum_ok
from corpus.pii.width import fold
from corpus.pseudonymize import fields_to_scan
from tests.pii_checks import found_alike

FAST, PLAIN = Scanner(), Scanner(fast=False)
PZ = Pseudonymizer(seed=24)


FORMS = [
    # lot and road numbers with a building, floor or unit tail; lots with no space
    (
        "address",
        "삼선동 1가 13-1 하나은행 빌딩 3층에서 만났다",
        "삼선동 1가 13-1 하나은행 빌딩 3층",
    ),
    ("address", "정자동 278 106동 1802호로 이사했다", "정자동 278 106동 1802호"),
    ("address", "사유지(운동동 35번지)에 건물을", "운동동 35번지"),
    ("address", "돈암동47-89 주택", "돈암동47-89"),
    ("address", "목동16-11인데 누수가", "목동16-11"),
    ("address", "역삼동 622에 살고 있습니다", "역삼동 622"),
    ("address", "주소는 시흥대로 544입니다", "시흥대로 544"),
    ("address", "불이 난 곳은 용두동 119-8 번지 주택", "용두동 119-8 번지"),
    ("address", "하안동 58 주공 1203동 907호예요", "하안동 58 주공 1203동 907호"),
    # two-digit-year birth dates
    ("birth_date", "저는 66년11월28일생입니다", "66년11월28일"),
    ("birth_date", "생년월일이 64년 11월 3일이고", "64년 11월 3일"),
    ("birth_date", "78년 6월 9일생 김모씨", "78년 6월 9일"),
    ("birth_date", "아버지는 52년 3월 17일생이십니다", "52년 3월 17일"),
    ("birth_date", "그 아이는 86년 6월 6일생이었습니다", "86년 6월 6일"),
    # written-out e-mail
    ("email", "메일 hong12 at naver.com 으로", "hong12 at naver.com"),
    ("email", "hong12(at)daum.net 로", "hong12(at)daum.net"),
    ("email", "hong [at] naver [dot] com", "hong [at] naver [dot] com"),
    ("email", "hong @ gmail.com 으로", "hong @ gmail.com"),
    ("email", "hong＠naver.com", "hong＠naver.com"),
    # phones in full width, with spaced dashes, read out in Korean, foreign
    ("mobile", "연락처 ０１０-２３４５-６７８９", "０１０-２３４５-６７８９"),
    ("mobile", "010 - 2345 - 6789 로", "010 - 2345 - 6789"),
    ("mobile", "공일공 이삼사오 육칠팔구로 연락", "공일공 이삼사오 육칠팔구"),
    ("phone", "+1 (555) 234-5678 로", "+1 (555) 234-5678"),
    ("mobile", "82-10-2345-6789 로", "82-10-2345-6789"),
    ("phone", "+81 3-2345-6789 로", "+81 3-2345-6789"),
    ("phone", "+44 20 7946 0958 로", "+44 20 7946 0958"),
    ("phone", "영국 +44 7700 900461 번호", "+44 7700 900461"),
    ("phone", "독일 +49 30 12345678 사무실", "+49 30 12345678"),
    ("phone", "프랑스 +33 6 12 34 56 78 은", "+33 6 12 34 56 78"),
    # bare hosts with a personal path
    ("url", "blog.naver.com/hong12/2233 참고", "blog.naver.com/hong12/2233"),
    ("url", "m.blog.naver.com/hong12 참고", "m.blog.naver.com/hong12"),
    ("url", "cafe.daum.net/abcd 에서", "cafe.daum.net/abcd"),
    ("url", "youtu.be/xYz12 영상", "youtu.be/xYz12"),
    ("url", "instagram.com/hong_12 계정", "instagram.com/hong_12"),
    ("url", "hong12.tistory.com 블로그", "hong12.tistory.com"),
    ("url", "유튜브 youtube.com/@hong12 채널", "youtube.com/@hong12"),
    # plates followed by a vehicle word (the 3승 guard must not fire on 승용차)
    ("plate", "45나 6789 승용차가 달렸다", "45나 6789"),
    ("plate", "45나6789승합차", "45나6789"),
    ("plate", "12가 3456 만취 운전", "12가 3456"),
    ("plate", "12가 3456 회색 차량", "12가 3456"),
    ("plate", "12가 3456 명의 차량", "12가 3456"),
]


@pytest.mark.parametrize(("kind", "text", "value"), FORMS, ids=[f[2] for f in FORMS])
def test_each_form_isfound_alike(kind, text, value):
    assert found_alike(text) == [(value, kind)]


NEGATIVES = [
    "ISBN 979-11-85635-98-1",
    "ISBN 978-89-123-4567-8",
    "같은 법 제3조 제2항에 따라",
    "보상금은 5억 3000만 원입니다",
    "자산은 109조 3700억으로 늘었다",
    "점수는 12승 3패 1무",
    "결승골로 1-0으로 이겼다",
    "그는 2009-10 시즌에 뛰었다",
    "반대로 6층으로 낮아졌다",
    "상대로 9 대 9의 승리",
    "최대사거리가 3000-5500 km인 미사일",
    "오토는 32년 4월 28일 로마에서 태어났다",
    "look at google.com now",
    "제6호분과 5호기 원자로",
    "사무실 면적 상대로 99평",
    "1990년 3월 17일 생이별을 했다",  # 생이 that is not 생 + copula
    "점수는 +10 20 30 40 50 이었다",  # a list of scores, not a foreign number
    "기록 +3 12 34 56 78 90",  # pairs, but not a French number's shape
    "6호예산 집행",
]


@pytest.mark.parametrize("text", NEGATIVES)
def test_negatives_are_left_alone(text):
    assert found_alike(text) == []
    assert PZ.apply(text)[0] == text


@pytest.mark.parametrize("number", ["1588-1234", "1644-5678", "1577 1234"])
def test_service_numbers_are_kept_and_counted_apart(number):
    text = f"고객센터 {number}로 문의하세요"
    out, spans, kept = PZ.apply_counted(text)
    assert out == text and spans == [] and kept == {"service_number": 1}


def test_no_copy_left_when_only_one_occurrence_is_detected():
    cases = [  # the second occurrence alone is not detected
        ("주소: 서울특별시 강남구 역삼동 622, 역삼동 622의 주민", "역삼동 622"),
        ("연락처: 2345-6789 입니다. 2345-6789로 전화", "2345-6789"),
        (
            "계좌 110-123-456789 로 보냈는데, 나중에 다시 확인해 보니 엉뚱한 사람이 받았습니다. "
            "그 사람 번호가 110-123-456789 였습니다",
            "110-123-456789",
        ),
        ("생년월일 1990년 3월 5일. 1990년 3월 5일에 일어난 일", "1990년 3월 5일"),
    ]
    for text, value in cases:
        assert len(found_alike(text)) == 1
        out = PZ.apply(text)[0]
        assert value not in out, out


def test_a_copy_gets_the_same_pseudonym_in_its_own_separators():
    text = "010-2345-6789, 010 2345 6789, 01023456789"
    out = PZ.apply(text)[0]
    digits = ["".join(c for c in part if c.isdigit()) for part in out.split(", ")]
    assert len(set(digits)) == 1 and digits[0] != "01023456789"
    assert out.split(", ")[1].count(" ") == 2 and "-" not in out.split(", ")[2]


def test_an_address_and_its_bare_core_share_the_pseudonym():
    text = "주소: 서울특별시 강남구 역삼동 622. 역삼동 622 앞에서, 역삼동622"
    out = PZ.apply(text)[0]
    core = core_of(out.split(": ", 1)[1].split(".")[0])
    assert "역삼동" not in out and out.count(core.split()[0]) == 3


def test_full_width_value_is_replaced_in_full_width():
    out = PZ.apply("연락처 ０１０-２３４５-６７８９")[0]
    value = out.split(" ")[1]
    assert all("０" <= c <= "９" or c == "-" for c in value)
    assert value != "０１０-２３４５-６７８９"


@pytest.mark.parametrize(
    "value", ["역삼동 62", "정자동 278 106동 1802호", "돈암동47-89", "시흥대로 5", "후리 산53-1"]
)
def test_redrawn_address_numbers_never_equal_the_original_and_keep_their_digits(value):
    numbers = [n for n in value.replace("-", " ").split() if n.strip("동호산").isdigit()]
    for seed in range(60):
        out = Pseudonymizer(seed=seed).pseudonym("address", value)
        new = [n for n in out.replace("-", " ").split() if n.strip("동호산").isdigit()]
        assert len(new) == len(numbers), out
        for a, b in zip(numbers, new, strict=True):
            assert a != b and len(a) == len(b), (value, out)


def test_birth_date_pseudonyms_keep_the_age_and_a_real_date():
    rng = random.Random(1)
    for _ in range(200):
        year, month, day = rng.randint(1930, 2015), rng.randint(1, 12), rng.randint(1, 28)
        for value in (f"{year}년 {month}월 {day}일", f"{year % 100:02d}년 {month}월 {day}일"):
            out = PZ.pseudonym("birth_date", value)
            new_year = int(out.split("년")[0])
            old = year if len(out.split("년")[0]) == 4 else year % 100
            assert out != value and abs(new_year - old) <= AGE_WINDOW_YEARS, (value, out)


def test_rrn_pseudonyms_keep_the_age_window():
    for seed in range(50):
        out = Pseudonymizer(seed=seed).pseudonym("rrn", "850315-1234567")
        assert abs(int(out[:2]) - 85) <= AGE_WINDOW_YEARS


def test_default_fields_are_the_ones_that_carry_writing():
    petition = {"id": "petition-1", "text": "t", "source": "petitions", "title": "t",
                "category": "c", "begin": "2019-06-03", "end": "2019-07-03", "status": "s",
                "num_agree": 3, "petition_idx": "5"}  # fmt: skip
    wiki = {"id": "1", "text": "t", "source": "kowiki", "title": "t", "url": "https://x"}
    assert fields_to_scan(petition, None) == ["text", "title"]
    assert fields_to_scan(wiki, None) == ["text", "title"]
    assert fields_to_scan(wiki, ["url"]) == ["url"]  # --fields still chooses explicitly


def test_real_style_set_meets_the_targets():
    """The labelled real-style set (corpus.pii.realstyle), smaller: every form >= 0.95."""
    result = realstyle.evaluate(seed=realstyle.SEED + 7, per_form=10)
    for form in realstyle.FORMS:
        row = result[form]
        assert row["found"] >= 0.95 * row["gold"], (form, row)
        assert row["survived"] == 0, (form, row)
    assert result["negatives"]["changed"] <= 0.005 * result["negatives"]["read"]


@pytest.mark.parametrize(
    "text",
    ["hong (at) daum.net", "hong[at]naver.com", "hong{ AT }x.com", "hong <at> x.com",
     "hong at naver.com", "HONG AT NAVER.COM", "hong@x.com", "hong ＠ x.com", "공일공 이삼사오",
     "hong 골뱅이 x.com", "hong골뱅이x.com", "hong(앳)x.com", "hong 앳 naver.com",
     "hong [앳] x.com"],
)  # fmt: skip
def test_written_forms_hint_holds_for_every_written_at(text):
    """The per-text hint that turns the written-out candidates on: every form it exists for."""
    assert written_forms(text) or written_forms(fold(text))


@pytest.mark.parametrize(
    "text",
    [
        "data and Nation",
        "AT&T 주가",
        "what (a) cat",
        "[atom]",
        "at the",
        "공원 공연",
        "앳킨스 교수",
        "실루엣 드레스",  # "엣" ends a word: no "@"
        "엣지 있게",
        "영화 공이 영일만",  # words of digit syllables with no number after them
        "공일 하나",
    ],
)
def test_written_forms_hint_is_off_for_at_inside_words(text):
    assert not written_forms(text)
    assert found_alike(text + " hong12 naver.com") == []


def test_a_year_like_service_number_next_to_a_contact_word_is_kept_and_counted():
    """ "1544-1736 … 연락": a service number (kept), though its second half reads as a year."""
    text = "1544-1736(평일 9시~18시)로 연락 바랍니다."
    out, spans, kept = PZ.apply_counted(text)
    assert out == text and spans == [] and kept == {"service_number": 1}
    assert found_alike("임진왜란(1592-1598) 때의 일") == []  # a range of years, no contact word


@pytest.mark.parametrize("head", ["1658", "1588", "1800"])
def test_an_account_that_starts_like_a_service_number_is_an_account(head):
    """ "새마을금고 1658-8645-7867-1" near 연락: one account, not a service number with a tail
    (kept, so the account leaked, and a pseudonym drawn so lost its span on a second pass:
    hypothesis found it in test_pii_properties)."""
    text = f"연락 주세요. 새마을금고 {head}-8645-7867-1로 입금해 주세요."
    assert found_alike(text) == [(f"{head}-8645-7867-1", "bank_account")]
    out, spans, kept = PZ.apply_counted(text)
    assert len(spans) == 1 and not kept and f"{head}-8645" not in out


# --- the shapes the blind set (tests/fixtures/pii/blind.jsonl) found missing ----------------

_RNG = random.Random(2424)


def _digits(n: int, first: str = "123456789") -> str:
    return _RNG.choice(first) + "".join(_RNG.choice("0123456789") for _ in range(n - 1))


def _mobile_groups() -> tuple[str, str, str]:
    return "01" + _RNG.choice("016789"), _digits(4), _digits(4, "0123456789")


@pytest.mark.parametrize("dash", list(DASH_LOOKALIKES))
def test_a_dash_look_alike_between_the_groups_of_a_phone(dash):
    a, b, c = _mobile_groups()
    mobile = dash.join((a, b, c))
    assert found_alike(f"폰번 {mobile} 으로") == [(mobile, "mobile")]
    landline = dash.join(("02", _digits(3), _digits(4)))
    assert found_alike(f"집 {landline} 으로") == [(landline, "phone")]
    new = PZ.apply(f"폰번 {mobile} 으로")[0]
    assert new.count(dash) == 2 and mobile not in new  # the look-alikes kept, digits redrawn


@pytest.mark.parametrize("sep", [" - ", " ", " . ", " ㅡ "])
def test_a_mobile_with_every_digit_spaced(sep):
    groups = _mobile_groups()
    mobile = sep.join(" ".join(g) for g in groups)
    assert found_alike(f"상담원이 {mobile} 으로 전화") == [(mobile, "mobile")]
    assert mobile not in PZ.apply(f"상담원이 {mobile} 으로 전화")[0]


@pytest.mark.parametrize(
    "text",
    ["점수 0 1 0 2 9 4 8 1 1 7 6 5 순", "기록 3 0 1 0 2 9 4 8 1 1 7 6", "0 1 0 2 9 4 순서"],
)
def test_spaced_digits_that_run_on_or_stop_short_are_not_a_mobile(text):
    """The guard of the spaced form: exactly a mobile's digits, no digit before or after."""
    assert found_alike(text) == []


@pytest.mark.parametrize("sep", ["에 ", "에", " 에 "])
def test_korean_digit_words_joined_by_the_particle_e(sep):
    words = "공일공" + sep + "사사오칠" + sep + "구공일일"
    assert found_alike(f"번호가 {words} 입니다") == [(words, "mobile")]
    assert words not in PZ.apply(f"번호가 {words} 입니다")[0]


@pytest.mark.parametrize(
    ("kind", "head"),
    [("mobile", "(+82) 10"), ("mobile", "(+82)10"), ("mobile", "0082-10"), ("mobile", "0082 10"),
     ("phone", "0082-2"), ("phone", "(+82) 31")],
)  # fmt: skip
def test_korea_s_code_in_brackets_or_after_00(kind, head):
    number = f"{head}-{_digits(4 if kind == 'mobile' else 3)}-{_digits(4)}"
    assert found_alike(f"{number} 로 연락") == [(number, kind)]
    assert number not in PZ.apply(f"{number} 로 연락")[0]


@pytest.mark.parametrize(
    "number",
    ["(+1) 310-555-0142", "(+44) 20 7946 0958", "(+81)3-2345-6789", "1-310-555-0142",
     "1 (415) 555-0199", "1-212-736-5000"],
)  # fmt: skip
def test_foreign_numbers_with_a_bracketed_code_or_a_bare_1(number):
    text = f"미국 집 {number} 입니다"
    assert found_alike(text) == [(number, "phone")]
    out, spans, kept = PZ.apply_counted(text)
    assert number not in out and not kept  # replaced, never kept as a service number
    assert [kind for _, kind in found_alike(out)] == ["phone"]  # the pseudonym is a number too


@pytest.mark.parametrize(
    "number", ["0044 20 7946 0958", "001-1-310-555-0142", "00700 81 3 2345 6789"]
)
def test_the_00_prefix_before_a_foreign_code_near_a_phone_word(number):
    assert found_alike(f"국제전화 {number} 로") == [(number, "phone")]
    assert found_alike(f"제품 {number} 로") == []  # no phone word: a serial as often as a number


# the second blind set's shapes (issue #24): e-mail domains read out in Korean, a bracketed
# "@", "엣" for "앳"; phones with O for 0, 영 for 0, words and digits mixed, landlines read
# out, other separators; foreign numbers with a trunk "(0)" or an attached area code, "00"
# before a named country; and the negatives they sit next to

_RNG = random.Random(2024)
_WORDS = "공일이삼사오육칠팔구"


def _local() -> str:
    head = "".join(_RNG.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(_RNG.randint(3, 8)))
    return head + _RNG.choice(["", ".k", "_", "_0"]) + str(_RNG.randint(1, 999))


def _said(digits: str, zero: str = "공") -> str:
    return "".join(zero if d == "0" else _WORDS[int(d)] for d in digits)


def _number(n: int) -> str:
    return str(_RNG.randint(1, 9)) + "".join(_RNG.choice("0123456789") for _ in range(n - 1))


@pytest.mark.parametrize("i", range(6))
@pytest.mark.parametrize(
    ("at", "domain"),
    [(" 골뱅이 ", "네이버 닷컴"), (" 앳 ", "네이버 점 컴"), (" 앳 ", "지메일 닷컴"),
     ("(골뱅이)", "한메일 닷 넷"), (" 엣 ", "naver.com"), (" [@] ", "hanmail.net"),
     (" (@) ", "daum.net"), ("@", "카카오.com"), (" 골뱅이 ", "naver 닷컴")],
)  # fmt: skip
def test_an_e_mail_with_its_domain_read_out_or_a_bracketed_at(i, at, domain):
    value = _local() + at + domain
    text = f"{_RNG.choice(['메일은', '자료는', ''])} {value} {_RNG.choice(['으로', '이에요'])} 부탁"
    assert found_alike(text) == [(value, "email")]
    out = PZ.apply(text)[0]
    assert value not in out and at + domain in out  # the webmail domain is kept as written


@pytest.mark.parametrize(
    "text",
    ["디자인이 엣지 있는 naver.com 메인", "hong 엣 mycompany.com 에서 일해요",  # 엣 a word
     "컴퓨터는 abc 앳 네이버 점 컴퓨터 코너", "넷플릭스 abc 골뱅이 다음 닷넷플릭스",
     "단톡방 공지 (@) 확인하세요", "@ 표시는 [@] 로 씁니다"],
)  # fmt: skip
def test_korean_domain_words_and_bracketed_at_are_not_read_in_words(text):
    assert [kind for _, kind in found_alike(text)] == []


@pytest.mark.parametrize("i", range(8))
@pytest.mark.parametrize("head", ["O1O", "o1o", "O1o", "O7O", "O11", "o19"])
def test_the_letter_o_for_zero_in_a_phone_number(i, head):
    sep = _RNG.choice(["-", " ", ".", " - "])
    value = head + sep + _number(4) + sep + _number(4)
    assert found_alike(f"연락은 {value} 로") == [(value, "phone" if head[1] == "7" else "mobile")]
    out = PZ.apply(f"연락은 {value} 로")[0]
    new = out[4 : 4 + len(value)]
    assert new != value and new[0] == head[0]  # the O is written as it was
    assert [kind for _, kind in found_alike(out)] != []  # and is still a number


@pytest.mark.parametrize(
    "text",
    ["모델 XO1O-1234-5678 단종", "제품 PO10-2345-6789", "부품 O1O 하나", "O2 1234 5678 압력",
     "VO7O-1234-5678 코드"],
)  # fmt: skip
def test_an_o_inside_a_code_is_no_phone(text):
    assert found_alike(text) == []


@pytest.mark.parametrize("i", range(10))
@pytest.mark.parametrize("zero", ["공", "영"])
def test_a_phone_read_out_with_yeong_mixed_digits_or_a_landline(i, zero):
    mid, last = _number(4), _number(4)
    sep = _RNG.choice(["-", " ", " - "])
    mobile = _said("010", zero) + sep + _said(mid, zero) + sep + _said(last, zero)
    mixed = zero + "1" + zero + sep + mid + sep + last
    area = _RNG.choice(["02", "031", "051", "064", "070"])
    landline = _said(area, zero) + sep + _said(_number(3), zero) + sep + _said(last, zero)
    for value, kind in ((mobile, "mobile"), (mixed, "mobile"), (landline, "phone")):
        text = f"번호는 {value} 로 주세요"
        assert found_alike(text) == [(value, kind)], text
        new = PZ.apply(text)[0][4 : 4 + len(value)]
        assert new != value and [k for _, k in found_alike(f"번호는 {new} 로")] == [kind]
        said = [("가" <= a <= "힣") == ("가" <= b <= "힣") for a, b in zip(new, value, strict=True)]
        assert all(said)  # a word stays a word, a digit a digit


@pytest.mark.parametrize(
    "text",
    ["포항 영일만 일대에서", "공이 날아가 이사 간 집 창문을", "성공이 오칠삼 팔팔이일 번째",
     "영이가 일이삼 사오육칠을 세었다", "공이 사이사이 구이구이", "공사 일이삼 공구",
     "영업이익 이삼사 억"],
)  # fmt: skip
def test_words_made_of_digit_syllables_are_no_phone(text):
    assert found_alike(text) == []


@pytest.mark.parametrize("i", range(6))
@pytest.mark.parametrize("sep", ["~", "/", "\u318d", "\u00b7", "\u2022", " ~ "])
def test_a_mobile_with_a_tilde_slash_or_middle_dot_between_its_groups(i, sep):
    value = f"01{_RNG.choice('016789')}{sep}{_number(4)}{sep}{_number(4)}"
    assert found_alike(f"연락처 {value} 입니다") == [(value, "mobile")]


@pytest.mark.parametrize(
    "text",
    ["010~020 구간", "3~5일 소요", "2010/12/31 기준", "가ㆍ나ㆍ다", "010~1234/5678 코드",
     "1990~2000년 사이", "010/2345 입니다", "1/2/3 분수", "02~1234~5678 구간"],
)  # fmt: skip
def test_ranges_dates_and_lists_are_no_mobile(text):
    assert found_alike(text) == []


@pytest.mark.parametrize(
    "value",
    ["+44 (0)7911 482 665", "+61 (0)2 9374 1182", "+84 (0)28 3822 4716",
     "+33 (0)1 42 68 53 09", "+1(415)392-7781", "+49(0)30 1234 5678"],
)  # fmt: skip
def test_a_foreign_number_with_a_trunk_zero_or_an_attached_area_code(value):
    text = f"현지 번호 {value} 로"
    assert found_alike(text) == [(value, "phone")]
    out = PZ.apply(text)[0]
    assert value not in out and out.startswith(f"현지 번호 {value[:3]}")
    if "(0)" in value:
        assert "(0)" in out  # the trunk zero is kept, not redrawn


@pytest.mark.parametrize("value", ["0086-139-1045-7723", "0049 176 3318 2205", "0044 20 7946 0958"])
def test_the_00_prefix_before_a_country_code_near_a_country_word(value):
    assert found_alike(f"중국에서 쓰는 번호는 {value} 입니다") == [(value, "phone")]
    assert found_alike(f"독일 번호 {value} 입니다") == [(value, "phone")]
    assert found_alike(f"주문 번호 {value} 입니다") == []  # no country, no phone word: a serial
    bad = "0012" + value[4:]  # 12 is no country code
    assert found_alike(f"독일 번호 {bad} 입니다") == []


@pytest.mark.parametrize(
    "text",
    ["+1 2 3 4 (0) 점수", "목록 (0) 1 2 3", "0086 위안 환율 6.8", "금액 0049 176 3318 2205 원"],
)  # fmt: skip
def test_brackets_and_00_runs_in_lists_and_amounts_are_no_foreign_number(text):
    assert [kind for _, kind in found_alike(text)] == []


def _ean(body12: str) -> str:
    total = sum(int(c) * (3 if i % 2 else 1) for i, c in enumerate(body12))
    return body12 + str((10 - total % 10) % 10)


def _rrn_like_ean(prefix: str) -> str:
    """A 13-digit run that is a valid EAN and a valid resident number (date, sex digit and
    old check digit): only the barcode evidence can tell it apart."""
    while True:
        body = prefix + _number(12 - len(prefix))
        month, day = f"{_RNG.randint(1, 9):02d}", f"{_RNG.randint(1, 28):02d}"
        body = (body[:2] + month + day + "1" + body[7:])[:12]
        code = _ean(body)
        if body.startswith(prefix) and rrn_checksum_ok(code):
            return code


@pytest.mark.parametrize("i", range(8))
def test_a_barcode_is_no_resident_number(i):
    code = _rrn_like_ean(_RNG.choice(["49", "45", "69", "87"]))
    word = _RNG.choice(["EAN", "바코드", "JAN", "상품코드", "상품 코드"])
    assert found_alike(f"{word} {code} 제품입니다") == []
    korean = _rrn_like_ean("880")
    assert found_alike(f"포장지에 {korean} 이라고 적혀 있어요") == []  # GS1 Korea's prefix
    # a resident-number word near it: read as one whatever else says barcode
    assert [k for _, k in found_alike(f"주민번호 {korean} 입니다")] == ["rrn"]


def _rrn_not_ean(prefix: str) -> str:
    """A 13-digit run that is a valid resident number (date, sex digit, old check digit) and
    no valid EAN: a made-up or mistyped barcode that a resident number's checks accept."""
    while True:
        body = prefix + _number(12 - len(prefix))
        month, day = f"{_RNG.randint(1, 9):02d}", f"{_RNG.randint(1, 28):02d}"
        body = (body[:2] + month + day + "1" + body[7:])[:12]
        code = body + str(rrn_check_digit(body))
        if body.startswith(prefix) and code != _ean(body):
            return code


@pytest.mark.parametrize("i", range(8))
def test_a_barcode_word_makes_a_13_digit_run_a_barcode_whatever_its_check_digit(i):
    """ "상품 바코드 8801234567890을 …" (the ninth blind set's): no valid EAN, but a valid
    resident number; the barcode word says what it is."""
    code = _rrn_not_ean(_RNG.choice(["880", "49", "87"]))
    assert rrn_checksum_ok(code)
    word = _RNG.choice(["바코드", "EAN", "상품코드", "제품 코드"])
    assert found_alike(f"상품 {word} {code}을 스캐너에 인식시키면") == []
    # with no barcode word the resident number's checks decide; a resident-number word wins
    assert [k for _, k in found_alike(f"번호 {code} 입니다")] == ["rrn"]
    assert [k for _, k in found_alike(f"주민번호 바코드 {code} 입니다")] == ["rrn"]


@pytest.mark.parametrize("i", range(5))
def test_a_tracking_number_after_the_post_office_is_no_account(i):
    number = _number(13)
    word = _RNG.choice(["등기번호", "운송장 번호", "송장번호", "택배 조회번호", "등기"])
    assert found_alike(f"우체국 {word} {number} (배달 완료)") == []
    assert found_alike(f"우체국 계좌 {number} 로 입금") == [(number, "bank_account")]
    assert found_alike(f"택배비는 우체국 {number} 로 입금") == [(number, "bank_account")]


@pytest.mark.parametrize(
    "host",
    ["www.youtube.com", "www.letskorail.com", "https://www.coupang.com/", "https://m.naver.com",
     "www.tistory.com", "http://blog.naver.com/"],
)  # fmt: skip
def test_any_site_s_host_with_no_path_is_kept_and_counted_apart(host):
    text = f"접속은 {host} 에서"
    out, spans, kept = PZ.apply_counted(text)
    assert out == text and spans == [] and kept == {"public_host": 1}


@pytest.mark.parametrize(
    "url",
    ["someone.tistory.com", "www.someone.tistory.com", "https://dayday.blogspot.com",
     "www.kimcs77.com", "www.youtube.com/@someone", "http://121.134.55.8"],
)  # fmt: skip
def test_a_personal_subdomain_a_handle_or_a_path_is_still_replaced(url):
    # a URL on a non-global IP (http://203.0.113.7) is kept: tests/test_pii_public_pages.py
    text = f"접속은 {url} 에서"
    out, spans, kept = PZ.apply_counted(text)
    assert out != text and not kept, (out, kept)


@pytest.mark.parametrize(
    "text",
    [
        "ISBN 1-56619-909-3",
        "ISBN 0-306-40615-2",
        "1-010-555-0142 오류",
        "문항 1-2-3-4",
        "1-310-55-0142",
    ],
)
def test_what_the_bare_1_form_leaves_alone(text):
    assert found_alike(text) == []


@pytest.mark.parametrize(
    "at", [" 골뱅이 ", "골뱅이", "(골뱅이)", "[골뱅이]", " (골뱅이) ", "(앳)", " 앳 "]
)
def test_korean_words_for_at(at):
    email = f"hong{_digits(3)}{at}naver.com"
    assert found_alike(f"메일: {email} 로") == [(email, "email")]
    new = PZ.apply(f"메일: {email} 로")[0]
    assert at in new and email not in new  # the "@" stays written as it was


@pytest.mark.parametrize("dot", [" . ", " 닷 ", "(닷)", " 점 ", "[점]", " dot "])
def test_a_dot_written_out_or_spaced(dot):
    email = f"go_{_digits(2)} @ naver{dot}com"
    assert found_alike(f"{email} 여기로") == [(email, "email")]


def test_a_bare_aet_needs_a_webmail_domain_or_a_mail_word():
    """ "앳" is read as "@" like " at ": before a webmail domain or next to a mail word."""
    assert found_alike("hong 앳 example.org 에서 봤다") == []
    assert found_alike("메일 hong 앳 example.org") == [("hong 앳 example.org", "email")]
    assert found_alike("사진은 hong.png 파일") == []  # no written "@" at all


@pytest.mark.parametrize("word", ["음력 ", "양력 ", "(음력) ", "[양력]", "음력"])
@pytest.mark.parametrize("year", ["51년 ", "1951년 ", "07년"])
def test_a_calendar_word_inside_a_birth_date(word, year):
    date = f"{year}{word}9월 18일"
    assert found_alike(f"고인은 {date}생으로") == [(date, "birth_date")]
    new = PZ.apply(f"고인은 {date}생으로")[0]
    assert word.strip() in new and date not in new


def test_a_lunar_date_without_a_birth_word_is_not_a_birth_date():
    assert found_alike("51년 음력 9월 18일에 일식이 있었다") == []
    assert found_alike("1951년 음력 9월 18일에 전투가 벌어졌다") == []


@pytest.mark.parametrize(
    ("text", "value"),
    [("만덕동 1032번지 B01호 반지하", "만덕동 1032번지 B01호"),
     ("정자동 278 A동 302호에", "정자동 278 A동 302호"),
     ("역삼동 622 B1층 식당", "역삼동 622 B1층"),
     ("송도동 29-11 더샵 1203동 2105호예요", "송도동 29-11 더샵 1203동 2105호"),
     ("하안동 58 래미안 퍼스트 101동 1201호로", "하안동 58 래미안 퍼스트 101동 1201호"),
     ("월곡동 88-154 다세대 1층이던데", "월곡동 88-154 다세대 1층"),
     ("월곡동 88-15 다가구 2층", "월곡동 88-15 다가구 2층"),
     ("상도동 33-2 건물 3층에", "상도동 33-2 건물 3층")],
)  # fmt: skip
def test_address_tails_with_a_lettered_unit_a_complex_name_or_a_house_type(text, value):
    assert found_alike(text) == [(value, "address")]


def test_a_name_before_a_floor_alone_is_not_taken_into_the_address():
    """The complex-name tail needs both N동 and N호: a shop before a floor stays out."""
    assert found_alike("주소는 정자동 278 스타벅스 2층") == [("정자동 278", "address")]
    assert found_alike("보상금은 5억 3000만 원입니다, 101동 주민") == []


@pytest.mark.parametrize(
    "host",
    ["www.gov.kr", "law.go.kr", "www1.president.go.kr", "https://www.mois.go.kr/", "www.korea.kr"],
)
def test_a_public_institution_s_bare_host_is_kept_and_counted_apart(host):
    text = f"자세한 내용은 {host} 에서 확인"
    out, spans, kept = PZ.apply_counted(text)
    assert out == text and spans == [] and kept == {"public_host": 1}


@pytest.mark.parametrize(
    "url",
    # an institution's page naming no one is kept since the fourth blind set
    # (tests/test_pii_public_pages.py); one naming its person is not
    ["www.gov.kr/portal/~hong12", "law.go.kr/LSW/profile?memberId=1234", "blog.naver.com/hong12",
     "www.hong12.co.kr"],
)  # fmt: skip
def test_a_path_or_a_private_host_is_still_replaced(url):
    text = f"자세한 내용은 {url} 에서 확인"
    out, spans, kept = PZ.apply_counted(text)
    assert out != text and [sp.type for sp in spans] == ["url"] and not kept


def test_a_dash_look_alike_is_no_range_of_years():
    assert found_alike("1990ㅡ2000년 사이") == []
    assert found_alike("2019ㅡ2020 시즌") == []


@pytest.mark.parametrize(
    ("text", "value"),
    [("경북 봉화군 춘양면 서벽리 산 33-1 임야에", "경북 봉화군 춘양면 서벽리 산 33-1"),
     ("전남 해남군 송지면 통호리 산 205 에 벌목이", "전남 해남군 송지면 통호리 산 205"),
     ("주소는 가곡리 산 9번지입니다", "가곡리 산 9번지"),
     ("평창군 진부면 하진부리 산 7-4 나동 창고", "평창군 진부면 하진부리 산 7-4 나동"),
     ("흥덕구 가로수로 12(가경동 산 7번지)에", "흥덕구 가로수로 12(가경동 산 7번지)")],
)  # fmt: skip
def test_a_mountain_lot_with_a_space_after_san(text, value):
    """ "리 산 128": the mountain lot written apart is one address with the units before it."""
    assert found_alike(text) == [(value, "address")]
    assert value not in PZ.apply(text)[0]


@pytest.mark.parametrize(
    ("text", "value"),
    [("정자동 278 에이동 302호 윗집", "정자동 278 에이동 302호"),
     ("내동 45-2 비동 1203호에서", "내동 45-2 비동 1203호"),
     ("성남시 분당구 서현동 91 씨동 101호,", "성남시 분당구 서현동 91 씨동 101호"),
     ("월곡동 88-15 나동 201호", "월곡동 88-15 나동 201호"),
     ("상도동 33-2 디동 전세", "상도동 33-2 디동"),
     ("매탄동 12-3 다동에 살아요", "매탄동 12-3 다동"),
     ("화정동 71-2 삼익아파트 가동 504호", "화정동 71-2 삼익아파트 가동 504호"),
     ("망원동 412-7 지하 102호 곰팡이", "망원동 412-7 지하 102호"),
     ("망원동 412-7 반지하 1호", "망원동 412-7 반지하 1호"),
     ("망원동 412-7 옥탑 301호", "망원동 412-7 옥탑 301호"),
     ("부원동 77 해피빌 203호에", "부원동 77 해피빌 203호"),
     ("부원동 77 스카이 하임 203호", "부원동 77 스카이 하임 203호"),
     ("화정동 71-2, 한빛마을 203동 1104호로", "화정동 71-2, 한빛마을 203동 1104호"),
     ("화정동 71-2、 한빛마을 203동 1104호", "화정동 71-2、 한빛마을 203동 1104호"),
     ("연산동 12-4, 3층 사무실", "연산동 12-4, 3층")],
)  # fmt: skip
def test_unit_tails_with_a_hangul_block_a_basement_a_villa_or_a_comma(text, value):
    assert found_alike(text) == [(value, "address")]


@pytest.mark.parametrize(
    ("text", "value"),
    [("제주시 연동 1200-3, 2층 식당", "제주시 연동 1200-3, 2층"),
     ("대구 수성구 파동 15-2 주택", "대구 수성구 파동 15-2")],
)  # fmt: skip
def test_a_neighbourhood_named_like_a_word_after_its_district(text, value):
    assert found_alike(text) == [(value, "address")]


@pytest.mark.parametrize(
    ("text", "found"),
    [("원전 2호기 가동 중단 이후", []),
     ("울산 북구 산업로 123 가동 중단 이후", [("울산 북구 산업로 123", "address")]),
     ("서울 강남구 역삼동 622 사동 주민", [("서울 강남구 역삼동 622", "address")]),
     ("제주시 가동 중단", []),
     ("부산시 활동 3명", []),
     ("우리가 산 128 주식", []),
     ("동호회 3호선 모임", []),
     ("울산 북구 산업로 123 바동거리며", [("울산 북구 산업로 123", "address")]),
     ("연동 273-11, 2층", [])],
)  # fmt: skip
def test_what_the_block_basement_and_word_lot_rules_leave_alone(text, found):
    assert found_alike(text) == found


@pytest.mark.parametrize(
    ("text", "value"),
    [("이름 김OO, 생년 81년 7월 5일, 주소", "81년 7월 5일"),
     ("생년월일 ) 85. 4. 9", "85. 4. 9"),
     ("생년월일: 85. 4.9 연락처", "85. 4.9"),
     ("생) 81.2.3", "81.2.3"),
     ("할아버지는 28년 11월 2일 태어나셨고", "28년 11월 2일"),
     ("저는 90년 1월 7일 태어났어요", "90년 1월 7일"),
     ("90년 1월 7일 태어남", "90년 1월 7일"),
     ("90년 5월 6일 생일인 동생", "90년 5월 6일"),
     ("86년 4월 1일 생일이신 분", "86년 4월 1일")],
)  # fmt: skip
def test_birth_words_before_and_after_a_two_digit_year(text, value):
    assert found_alike(text) == [(value, "birth_date")]


@pytest.mark.parametrize(
    "text",
    ["발생년 81년 7월 5일 사고",
     "탄생년 81년 7월 5일",
     "21년 3월 2일 태어나서 처음으로 비행기를 탔다",
     "21년 5월 6일 생일 파티를 했다",
     "21년 5월 6일 생일에 모였다",
     "버전 12. 3. 4 배포"],
)  # fmt: skip
def test_event_dates_next_to_birth_words_are_left_alone(text):
    assert found_alike(text) == []


@pytest.mark.parametrize(
    ("text", "value"),
    [("회고는 ab-cd.tistory.com/entry/2024-여행-후기 에", "ab-cd.tistory.com/entry/2024-여행-후기"),
     ("blog.naver.com/hong12/맛집 참고", "blog.naver.com/hong12/맛집"),
     ("hong.tistory.com/tag/%EC%97%AC 참고", "hong.tistory.com/tag/%EC%97%AC"),
     ("blog.naver.com/hong12에서 봤다", "blog.naver.com/hong12")],
)  # fmt: skip
def test_hangul_in_a_bare_host_s_path_after_a_slash_or_a_dash(text, value):
    """Hangul after "/" or "-" is the path's; right after a letter it is the particle."""
    assert found_alike(text) == [(value, "url")]


@pytest.mark.parametrize(
    "text",
    ["21년 5월 6일 생일이라 케이크를 샀다",
     "21년 5월 6일 생일인 날 모였다",
     "21년 5월 6일 생일인데 비가 왔다"],
)  # fmt: skip
def test_a_date_that_is_the_day_of_a_birthday_is_no_birth_date(text):
    assert found_alike(text) == []


_INSTITUTIONS = ["서울특별시청", "부산광역시청", "경기도청", "강남구청",
                 "서울특별시교육청", "대검찰청", "서울중앙지방법원", "수원지방법원 안산지원",
                 "정부세종청사", "국세청", "국회", "서울대학교 관악캠퍼스", "한빛대학교",
                 "국립중앙도서관", "국립현대미술관 서울관", "국민건강보험공단",
                 "한국토지주택공사", "역삼1동 주민센터", "마포우체국", "서초경찰서",
                 "KAIST"]  # fmt: skip
_SEPARATORS = [" ", "(", ": ", " 주소 ", " 소재지: ", " 위치: "]
_PUBLIC_ADDRESSES = ["서울 중구 세종대로 110", "대전 서구 청사로 189", "세종특별자치시 다솜로 261",
                     "수원시 영통구 도청로 30", "부산 연제구 중앙대로 1001 1층"]  # fmt: skip


@pytest.mark.parametrize("name", _INSTITUTIONS)
@pytest.mark.parametrize("sep", _SEPARATORS)
def test_an_institution_s_address_right_after_its_name_is_kept_and_counted(name, sep):
    """A public building's address names no one: detected, kept, counted apart."""
    address = random.Random(name + sep).choice(_PUBLIC_ADDRESSES)
    close = ")" if sep == "(" else ""
    text = f"{name}{sep}{address}{close} 민원실 방문"
    out, spans, kept = PZ.apply_counted(text)
    assert (out, spans, kept) == (text, [], {"institution_address": 1})


@pytest.mark.parametrize("particle", ["은", "는", "이", "가"])
def test_an_encyclopedia_s_institution_with_a_particle_before_its_address(particle):
    name = "강남구청" if particle in "은이" else "한빛대학교"
    text = f"{name}{particle} 서울 강남구 학동로 426에 있다."
    assert PZ.apply_counted(text) == (text, [], {"institution_address": 1})


def test_the_room_after_an_institution_s_bracketed_address_is_kept_too():
    text = "서울대학교 관악캠퍼스(서울 관악구 관악로 1) 301동 118호 강의실"
    assert PZ.apply_counted(text) == (text, [], {"institution_address": 2})


def _seeded_digits(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789") for _ in range(n))


@pytest.mark.parametrize("seed", range(4))
def test_at_read_out_as_eity_and_the_dot_as_jjeom(seed):
    """ "에이티" ("at" spelled out) for "@", spaced or bracketed; "쩜" for the dot."""
    rng = random.Random(seed)
    local = rng.choice("abcdefgh") + _seeded_digits(rng, 3)
    for value in (f"{local} 에이티 naver 닷컴", f"{local}(에이티)daum.net",
                  f"{local} at naver 쩜 com", f"{local} 에이티 gmail 쩜 com",
                  f"{local}@mycorp 쩜 co 쩜 kr"):  # fmt: skip
        assert found_alike(f"메일: {value} 으로") == [(value, "email")], value
        assert written_forms(f"메일: {value} 으로")


@pytest.mark.parametrize(
    "text",
    ["시청 근처 서울 중구 세종대로 110 에 삽니다",  # near, beside, in front of, across
     "서초경찰서 옆 서울 서초구 반포대로 179 302호",
     "구청 앞 서울 강남구 학동로 426 빌라 2층",
     "도서관 건너편 서울 서초구 반포대로 201-3",
     "한빛대학교 기숙사 서울 관악구 관악로 1 919동 302호",  # a student's room
     "한빛대학교 생활관(서울 관악구 관악로 1) 919동 302호",
     "한빛전자 서울 서초구 서초대로 74길 11",  # a company is no institution
     "고객센터 서울 강남구 테헤란로 152",
     "배송 신청 서울 강남구 테헤란로 152",  # 신청 is no 청
     "법원에 냈습니다. 제 주소는 서울 서초구 서초중앙로 157",  # the name far before
     "학교: 한빛초등학교 주소: 경기 수원시 영통구 광교로 55",  # a record's field
     "서울특별시청 서울 중구 세종대로 110 에 살아요",
     "학교는 서울 강남구 역삼동 622-3에 살아요",  # a particle, then a residence word
     "학교가 서울 강남구 학동로 426 근처라서",  # the address is a reference point
     "청원자는 서울 강남구 학동로 426에 있습니다"],
)  # fmt: skip
def test_a_home_near_an_institution_or_a_company_s_address_is_replaced(text):
    out, spans, kept = PZ.apply_counted(text)
    assert [sp.type for sp in spans if sp.type == "address"] and not kept, text
    assert out != text


@pytest.mark.parametrize("seed", range(6))
def test_an_old_regional_plate_with_one_digit_and_spaces(seed):
    rng = random.Random(seed)
    region = rng.choice(["부산", "대구", "전북", "서울", "경기"])
    plate = f"{region} {rng.randint(1, 9)} {rng.choice('가나다라마바사')} {rng.randint(1000, 9999)}"
    text = f"{plate} {rng.choice(['택시가', '버스가', '트럭이', '승용차가'])} 지나갔다"
    assert found_alike(text) == [(plate, "plate")]
    assert plate not in PZ.apply(text)[0]


def test_a_one_digit_plate_needs_its_region():
    assert found_alike("7 라 1290 택시가 지나갔다") == []
    assert found_alike("부산 7 라 1290명") == []


@pytest.mark.parametrize("seed", range(6))
def test_a_plate_with_every_digit_spaced(seed):
    rng = random.Random(seed)
    head = " ".join(str(rng.randint(1, 9)) for _ in range(rng.choice([2, 3])))
    tail = " ".join(str(rng.randint(0, 9)) for _ in range(4))
    plate = f"{head} {rng.choice('가나고너보')} {tail}"
    text = f"차량 번호가 {plate} 인 승용차가"
    assert found_alike(text) == [(plate, "plate")]


def test_a_spaced_plate_is_exactly_its_digits():
    assert found_alike("표 1 2 3 4 가 5 6 7 8 9 순서") == []
    assert found_alike("1 2 가 3 4 5 6 명") == []


@pytest.mark.parametrize(
    ("text", "value"),
    [("my address is 서울 용산구 이태원동 34-19 2F, 노크", "서울 용산구 이태원동 34-19 2F"),
     ("마포구 망원동 412-7 B1F 창고", "마포구 망원동 412-7 B1F"),
     ("강서구 화곡동 1031-1 번지 연립 가동 202호요", "강서구 화곡동 1031-1 번지 연립 가동 202호"),
     ("강서구 화곡동 88 번지 빌라 나동 301호입니다", "강서구 화곡동 88 번지 빌라 나동 301호"),
     ("서울 동작구 노량진로 100 지하2층 B-12 매장", "서울 동작구 노량진로 100 지하2층 B-12"),
     ("중구 명동2가 25-2 1층 A12 가게", "중구 명동2가 25-2 1층 A12"),
     ("주소:대구 달서구 상인동 1512-3 1 층 (오류)", "대구 달서구 상인동 1512-3 1 층")],
)  # fmt: skip
def test_a_latin_floor_a_spaced_floor_a_shop_number_and_a_unit_before_yo(text, value):
    assert found_alike(text) == [(value, "address")]


def test_a_lot_with_a_dash_look_alike_is_one_address_and_one_value():
    text = "① 경북 포항시 북구 양덕동 2018-6\n② 경북 포항시 북구 양덕동 2018ㅡ6"
    assert found_alike(text) == [("경북 포항시 북구 양덕동 2018-6", "address"),
                            ("경북 포항시 북구 양덕동 2018ㅡ6", "address")]  # fmt: skip
    assert "2018" not in PZ.apply(text)[0]


def test_a_lot_with_the_letter_o_for_zero_is_a_copy_of_the_lot_with_zero():
    text = "주소: 부산 사하구 하단동 6O7-3\n(하단동 607-3 맞습니다)"
    out, spans = PZ.apply(text)
    assert [text[s.start : s.end] for s in spans] == ["부산 사하구 하단동 6O7-3", "하단동 607-3"]
    first, second = out.split("\n")
    lot = (first.split()[-2] + first.split()[-1]).replace("O", "0")
    assert lot == second[1:].split(" 맞")[0].replace(" ", "").replace("O", "0")  # one pseudonym
    assert "하단동" not in out and "607" not in out


def _short_date(rng: random.Random) -> tuple[int, int, int]:
    return rng.randint(30, 99), rng.randint(1, 12), rng.randint(1, 28)


def test_an_apostrophe_before_a_two_digit_year_belongs_to_the_date():
    rng = random.Random(31)
    for mark in "'’‘":
        y, m, d = _short_date(rng)
        for date in (f"{mark}{y}년 {m}월 {d}일", f"{mark}{y}.{m:02d}.{d:02d}"):
            assert found_alike(f"피해자는 {date}생으로") == [(date, "birth_date")]
    # a quoted value keeps its quotes outside; a four-digit year has no apostrophe
    assert found_alike("생년월일 ‘85.12.24’ 확인") == [("85.12.24", "birth_date")]
    assert found_alike("생년월일 '1985.12.24") == [("1985.12.24", "birth_date")]


def test_digits_a_space_apart_the_letter_o_and_nyeondo_in_a_birth_date():
    rng = random.Random(32)
    for _ in range(20):
        y, m, d = _short_date(rng)
        spaced = f"{y // 10} {y % 10} 년 {m // 10} {m % 10} 월 {d // 10} {d % 10} 일"
        assert found_alike(f"생 년 월 일 : {spaced} (음성인식)") == [(spaced, "birth_date")]
        odd = f"{y}년 {m // 10} {m % 10}월 {d}일" if m >= 10 else f"{y}년 {m}월 {d}일"
        assert found_alike(f"생년월일이 {odd}로 되어") == [(odd, "birth_date")]
        ocr = f"{y // 10}O년 {m}월 {d}일"
        assert found_alike(f"▶ 생년월일 : {ocr} (OCR)") == [(ocr, "birth_date")]
        for tail in ("생으로", " 생이고"):
            dated = f"{y}년도 {m}월 {d}일"
            assert found_alike(f"본인은 {dated}{tail}") == [(dated, "birth_date")]
    out = PZ.apply("▶ 생년월일 : 7O년 4월 1일 (OCR)")[0]
    assert "7O년 4월 1일" not in out and "년 " in out and "월 " in out


def test_a_birth_given_to_the_month_touches_its_saeng():
    rng = random.Random(33)
    for _ in range(10):
        y, m, _d = _short_date(rng)
        for month in (f"{y}년 {m}월", f"{y}년 {m} 월", f"19{y}년 {m}월"):
            assert found_alike(f"아버지는 {month}생이시고") == [(month, "birth_date")]
            # a cohort, not one person; a month with a space before 생 is left to the full date
            assert found_alike(f"{month}생 아기 모임 있어요") == []
            assert found_alike(f"{month}생들 모여라") == []
            assert found_alike(f"저는 {month} 생이고") == []
            assert found_alike(f"{month}생부터 접종") == []
    out = PZ.apply("아버지는 53년 2 월생이시고")[0]
    assert "53년 2 월" not in out and out.endswith(" 월생이시고")


def test_a_corrected_date_after_a_birth_label_is_a_birth_date_too():
    text = "생년월일이 64년 1 1월 3일로 되어 있는데 실제로는 64년 11월 13일 입니다."
    assert found_alike(text) == [("64년 1 1월 3일", "birth_date"), ("64년 11월 13일", "birth_date")]
    text = "제 생일은 90년 5월 5일이 아니라 90년 5월 6일입니다"
    assert [v for v, _ in found_alike(text)] == ["90년 5월 5일", "90년 5월 6일"]
    # no birth label in the sentence, another date's label between, or no first date
    assert found_alike("개업일은 실제로는 24년 3월 2일입니다") == []
    assert found_alike("생년월일이 64년 11월 3일이고, 입사일은 정확히는 99년 3월 2일입니다") == [
        ("64년 11월 3일", "birth_date")
    ]
    assert found_alike("생일 선물은 실제로는 24년 3월 2일에 받았다") == []


def test_a_date_said_to_be_someone_s_birthday():
    assert found_alike("“81년 6월 12일”이 제 생일이고 그날") == [("81년 6월 12일", "birth_date")]
    assert found_alike("81년 6월 12일은 제 생일입니다") == [("81년 6월 12일", "birth_date")]
    assert found_alike("1981년 6월 12일이 아들의 생일이다") == [("1981년 6월 12일", "birth_date")]
    for text in ("2024년 3월 8일이 제 생일이라 휴가를 냈다", "24년 3월 8일은 생일 파티가 있었다",
                 "24년 3월 8일이 생일 쿠폰 마감"):  # fmt: skip
        assert found_alike(text) == [], text


@pytest.mark.parametrize(
    "text",
    ["에이티즈 공연 예매, AT 필드는 에이티 필드",
     "우리 에이티 회사 naver 닷컴 아님",  # no Latin local part before 에이티
     "foo 에이티 bar 닷컴 이라는 회사",  # no webmail domain, no mail word
     "○○닷컴 에서, 한빛닷컴 주문",
     "점수는 일 쩜 오 점"],
)  # fmt: skip
def test_words_like_eity_and_jjeom_are_left_alone(text):
    assert found_alike(text) == []


@pytest.mark.parametrize("seed", range(4))
def test_the_letter_o_for_zero_inside_the_groups(seed):
    rng = random.Random(seed)
    mid, last = rng.choice("123456789") + _seeded_digits(rng, 3), _seeded_digits(rng, 4)
    last = last[:1] + "O" + last[2:]
    mobile = f"010 {mid} {last}"
    assert found_alike(f"직거래 {mobile} (o 아니고 0)") == [(mobile, "mobile")]
    land = f"031-{mid[:1]}o{mid[2]}-{_seeded_digits(rng, 4)}"
    assert found_alike(f"회사 {land} 내선 {_seeded_digits(rng, 4)} 번") == [(land, "phone")]
    assert found_alike(f"O1O-{mid[:2]}O{mid[3]}-{_seeded_digits(rng, 4)} 로")[0][1] == "mobile"
    new, _ = PZ.apply(f"번호 {mobile} 로")
    assert mobile not in new and new.startswith("번호 010 ")


@pytest.mark.parametrize(
    "text",
    ["모델 A7O0 과 B-7O9-2254 부품",  # a model code: no area or mobile prefix
     "제품 010-4O1 규격",
     "SN 031 7O92254 일련번호",  # the groups run together: a code
     "코드 031-7O9-2254X 입력"],
)  # fmt: skip
def test_o_in_codes_is_left_alone(text):
    assert found_alike(text) == []


def test_a_bracket_after_the_area_code_with_spaces_around_it():
    assert found_alike("번호가 044 ) 215 - 3367 이라고") == [("044 ) 215 - 3367", "phone")]
    assert found_alike("휴대폰 010 ) 2234 - 5567 로") == [("010 ) 2234 - 5567", "mobile")]
    assert found_alike("목록 3 ) 215 - 3367 항목") == []  # no area code: an outline


@pytest.mark.parametrize("sep", [" ", "-", "."])
def test_the_international_prefix_00_written_apart(sep):
    value = f"00{sep}82 10 6631 2074"
    assert found_alike(f"해외라 {value} 로 전화") == [(value, "mobile")]
    land = f"00{sep}82 2 345 6789"
    assert found_alike(f"사무실 {land} 로 전화") == [(land, "phone")]
    new, _ = PZ.apply(f"해외라 {value} 로")
    assert new.startswith(f"해외라 00{sep}82 10 ") and "6631 2074" not in new


def test_00_82_inside_a_table_of_numbers_is_not_widened():
    assert found_alike("표: 2000 82 10 6631 2074") == [("82 10 6631 2074", "mobile")]
    assert found_alike("표: 00 82 13 44 51") == []


@pytest.mark.parametrize(
    ("text", "value"),
    [("[신상] 이름 김OO / 66년 11월 28일 / 서울 거주", "66년 11월 28일"),
     ("환자 정보: 남 / 77년 9월 23일 / 당뇨 병력 있음", "77년 9월 23일"),
     ("성별 여 / 85년 3월 2일 / 서울", "85년 3월 2일"),
     ("| 성명 | 박○○ | 59.03.11 |", "59.03.11"),
     ("나이 38세 / 1986년 1월 2일", "1986년 1월 2일")],
)  # fmt: skip
def test_a_date_standing_as_a_field_of_a_person_s_record(text, value):
    assert found_alike(text) == [(value, "birth_date")]


@pytest.mark.parametrize(
    ("text", "value"),
    [("Follow me → INSTAGRAM.COM/SEOUL_RUNNER_J", "INSTAGRAM.COM/SEOUL_RUNNER_J"),
     ("BLOG.NAVER.COM/HONG12 방문", "BLOG.NAVER.COM/HONG12"),
     ("블로그 주소는 blog.naver.com/ yeri_travel 입니다", "blog.naver.com/ yeri_travel"),
     ("인스타 instagram.com/ minji.o_22", "instagram.com/ minji.o_22")],
)  # fmt: skip
def test_a_host_in_capitals_and_a_space_after_a_platform_s_slash(text, value):
    assert found_alike(text) == [(value, "url")]


@pytest.mark.parametrize(
    "text",
    ["일정 / 24년 3월 2일 / 개강",
     "홍길동 / 24년 3월 2일 / 서울",
     "이름 김OO / 24년 3월 2일 / 입사",
     "환자 정보: 남 / 24년 3월 2일 / 입원",
     "| 이름 | 김OO | 24.03.02 | 접수 |",
     "발생일: 24년 1월 8일 / 접수일: 24년 1월 9일 / 종결일: 24년 2월 2일",
     "성별 남 / 접수일: 24년 1월 8일 / 서울",
     "이름 김OO / 24년 3월 2일 오후 / 서울"],
)  # fmt: skip
def test_record_dates_of_events_or_without_a_person_are_left_alone(text):
    assert found_alike(text) == []


@pytest.mark.parametrize(
    "ip", ["127.0.0.1", "192.168.0.100", "10.0.0.1", "172.16.4.20", "169.254.10.3",
           "2001:db8::1", "fe80::1:2:3:4", "::1"],
)  # fmt: skip
def test_an_ip_that_is_not_global_is_kept_and_counted(ip):
    text = f"게이트웨이 {ip} 로 접속"
    out, spans, kept = PZ.apply_counted(text)
    assert [s.type for s in FAST.find(text)] == ["ip"]
    assert out == text and spans == [] and kept == {"non_global_ip": 1}


def test_a_global_ip_is_still_replaced():
    for ip in ("203.248.12.77", "121.134.55.8", "2404:6800:4004:81a::200e"):
        out, spans, kept = PZ.apply_counted(f"접속 IP {ip} 차단")
        assert ip not in out and [s.type for s in spans] == ["ip"] and not kept


@pytest.mark.parametrize(
    "url",
    ["https://doi.org/10.18653/v1/2020.acl-main.747", "https://arxiv.org/abs/2105.09680",
     "docs.python.org/3/library/re.html", "https://download.pytorch.org/whl/cu121",
     "https://ko.wikipedia.org/wiki/%ED%95%9C", "https://pypi.org/project/regex/"],
)  # fmt: skip
def test_a_reference_or_documentation_page_is_kept_and_counted(url):
    text = f"원문은 {url} 참고"
    out, spans, kept = PZ.apply_counted(text)
    assert [text[s.start : s.end] for s in FAST.find(text)] == [url]
    assert out == text and spans == [] and kept == {"reference_page": 1}


@pytest.mark.parametrize(
    "url",
    ["https://ko.wikipedia.org/wiki/User:Hong12", "https://docs.google.com/document/d/1aBcD",
     "https://docs.hanbit.org/~hong/notes", "https://arxiv.org/a/hong_g_1?id=77",
     "github.com/hong12/dotfiles", "https://pypi.org/user/hong12/",
     "https://docs.hanbit.com/share?user=hong12"],  # (example.org is reserved: kept)
)  # fmt: skip
def test_a_reference_site_s_page_that_names_someone_is_replaced(url):
    text = f"자료는 {url} 참고"
    out, spans, kept = PZ.apply_counted(text)
    assert [s.type for s in spans] == ["url"] and not kept, (url, out)


def test_an_ip_s_pseudonym_is_a_global_address():
    """A pseudonym in 10.…/127.…/192.168.… would be kept on a second pass, as if unreplaced."""
    rng = random.Random(34)
    for seed in range(300):
        ip = ".".join(str(rng.randint(1, 223) if i == 0 else rng.randint(0, 255)) for i in range(4))
        if global_ip(ip):
            assert global_ip(Pseudonymizer(seed=seed).pseudonym("ip", ip)), ip


@pytest.mark.parametrize(
    "text",
    ["ASP.NET/MVC 와 VB.NET/C# 비교",  # a framework's name
     "사이트 INSTAGRAM.COM 만 적었다",  # a host in capitals with no path: kept
     "see instagram.com/ and more",  # the word after the slash is English
     "blog.naver.com/ 에서 검색",  # Hangul after the slash: the sentence's
     "example.com/ abc_def 입니다"],  # not a platform's host
)  # fmt: skip
def test_what_the_capitals_and_spaced_handle_rules_leave_alone(text):
    found_alike(text)  # the fast and the reference scan agree
    assert PZ.apply(text)[0] == text  # nothing replaced (a path-less host is kept)
