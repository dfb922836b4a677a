"""A labelled set of personal information as people write it in petitions and posts.

    python -m corpus.pii.realstyle [--seed 20261201] [--per-form 40]

The generated test set (`corpus.pii.testset`) writes values in their canonical
forms. This one writes them the way issue #24 found them in real petitions and web
posts: addresses with no district before them and repeated later in the record,
lot numbers with a building, floor or unit after them, two-digit-year birth dates,
e-mails written out (``id [at] naver [dot] com``), phones in full width, with
spaces around the dashes or read out in Korean, bare blog and social hosts,
foreign numbers, and plates followed by a vehicle word. The sentences are my own
rewrites of those shapes, not real text; every value is drawn at random, and the
names of places are drawn from a list that is not the detector's gazetteer.

Each form has its own sentence frames (several per form, with the value in
different positions and followed by different particles), so the set is not the
unit tests' strings. Negatives are the things these forms can be confused with:
amounts, statute articles, list numbers, ISBNs, model numbers, scores, seasons,
ranges, and public service numbers (kept: they must stay unchanged).

`evaluate` reports, per form, recall (a gold value counts when a replaced span
covers it entirely), how many repeated copies survive the pseudonymiser, and how
many negatives it changes.
"""

from __future__ import annotations

import argparse
import random
from dataclasses import dataclass

from corpus.pii.generate import Pseudonymizer

SEED = 20261201
_DONG = (
    "상계동 중계동 화곡동 방배동 잠실동 구의동 망원동 연남동 부평동 구월동 둔산동 봉명동 하단동 "
    "괴정동 용호동 동천동 상현동 원천동 매탄동 인계동 월곡동 장위동 번동 수유동 창동 신림동 "
    "봉천동 대림동 가양동 목동 면목동 상봉동 휘경동 이문동 석관동 길음동 미아동 홍제동 응암동"
).split()
_RI = "도화리 장안리 송정리 신흥리 대평리 월산리 오류리 송학리".split()
_ROAD = (
    "시흥대로 도산대로 봉은사로 올림픽로 공항대로 경인로 수성로 달구벌대로 해운대로 금강로 "
    "충장로 상무대로 둔산로 월드컵로 백범로 왕십리로 동일로 노원로 한천로 화랑로"
).split()
_BUILDINGS = "하나은행 빌딩|대성타워|그린빌라|한빛오피스텔|성원아파트|우리상가|중앙빌딩".split("|")
_VEHICLES = "승용차가|승용차를|승합차|차량이|차량을|택시가|트럭이|SUV가|오토바이".split("|")
_ID_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789"
_KD = "공일이삼사오육칠팔구"


@dataclass(frozen=True)
class Case:
    """One labelled text: its form, and the gold values as (start, end)."""

    form: str
    text: str
    gold: tuple[tuple[int, int], ...]
    repeated: bool = False  # the same value occurs more than once


def _fill(frame: str, values: list[str]) -> tuple[str, tuple[tuple[int, int], ...]]:
    """`frame` with each ``{}`` replaced by the next value; the values' offsets."""
    out, spans, pos = [], [], 0
    pieces = frame.split("{}")
    for piece, value in zip(pieces, values + [None], strict=True):
        out.append(piece)
        pos += len(piece)
        if value is not None:
            out.append(value)
            spans.append((pos, pos + len(value)))
            pos += len(value)
    return "".join(out), tuple(spans)


#: The sentence frames of the forms whose value is drawn first (`_one_of`).
_FRAMES = {
    "written_email": (
        "자료는 {}로 보내 주세요.",
        "문의 메일: {}",
        "제 이메일 {}으로 연락 바랍니다.",
        "답변은 {} 로 부탁드립니다.",
    ),
    "phone_variant": (
        "연락처는 {}입니다.",
        "급한 일은 {}로 전화 주세요.",
        "휴대폰 {} (저녁에만 받습니다)",
        "{} 으로 문자 주시면 답장 드립니다.",
    ),
    "bare_host": (
        "자세한 내용은 제 블로그 {}에 올렸습니다.",
        "증거 영상: {}",
        "{} 에 피해 사례를 모아 두었습니다.",
        "관련 글({})을 참고해 주세요.",
    ),
    "foreign_phone": (
        "해외에 있는 아들 번호는 {}입니다.",
        "현지 연락처 {}로 연락이 안 됩니다.",
        "{} (미국 휴대폰)",
        "대사관에서 알려준 번호 {}도 불통입니다.",
    ),
}


def _one_of(rng: random.Random, values: list[str], frames: list[str]) -> tuple[str, list[str]]:
    """One of `values` in one of `frames` (drawn in this order: the seeds' sets depend on it)."""
    value = rng.choice(values)
    return rng.choice(frames), [value]


def _num(rng: random.Random, lo: int, hi: int) -> str:
    return str(rng.randint(lo, hi))


def _lot(rng: random.Random) -> str:
    name = rng.choice(_DONG + _RI)
    number = _num(rng, 1, 999) + (f"-{_num(rng, 1, 99)}" if rng.random() < 0.5 else "")
    return name + rng.choice(["", " "]) + number if "-" in number else f"{name} {number}"


def _repeated_address(rng: random.Random) -> tuple[str, list[str]]:
    lot = _lot(rng)
    road = f"{rng.choice(_ROAD)} {_num(rng, 1, 899)}"
    frames = [
        ("제 주소는 서울 {} 입니다. 매일 아침 {} 앞에 쓰레기가 쌓여 있습니다.", lot),
        ("저희 가게는 {}에 있는데, {} 근처 주민 모두가 피해를 보고 있습니다.", road),
        ("{}에 살고 있습니다. 공사 소음 때문에 {} 일대 주민들이 잠을 못 잡니다.", lot),
        ("부모님 댁이 {}입니다. 지난주에도 {} 앞 도로에서 사고가 났습니다.", road),
        ("주소: {}\n민원 내용: {} 골목의 가로등이 고장 났습니다.", lot),
        ("저는 {}에 거주하는 주민입니다. {} 인근 하천에서 악취가 납니다.", road),
    ]
    frame, value = rng.choice(frames)
    return frame, [value, value]


def _address_tail(rng: random.Random) -> tuple[str, list[str]]:
    dong = rng.choice(_DONG)
    b = rng.choice(_BUILDINGS)
    values = [
        f"{dong} {_num(rng, 1, 5)}가 {_num(rng, 1, 99)}-{_num(rng, 1, 9)} {b} {_num(rng, 2, 15)}층",
        f"{dong} {_num(rng, 10, 999)} {_num(rng, 101, 120)}동 {_num(rng, 101, 2504)}호",
        f"{dong} {_num(rng, 1, 999)}번지",
        f"{dong}{_num(rng, 1, 99)}-{_num(rng, 1, 99)}",
        f"{rng.choice(_RI)} {_num(rng, 1, 899)}-{_num(rng, 1, 9)}번지",
        f"{dong} {_num(rng, 1, 899)} {b} {_num(rng, 101, 1208)}호",
    ]
    frames = [
        "저는 {}에서 작은 가게를 하고 있습니다.",
        "사무실은 {}입니다. 방문 전에 연락 주세요.",
        "피해 주택 위치: {} (세입자 거주 중)",
        "{} 건물 주인이 보증금을 돌려주지 않습니다.",
        "우리 집은 {}인데 누수가 계속됩니다.",
    ]
    return rng.choice(frames), [rng.choice(values)]


def _birth_two_digit(rng: random.Random) -> tuple[str, list[str]]:
    y, mo, d = rng.randint(40, 99), rng.randint(1, 12), rng.randint(1, 28)
    sp = rng.choice(["", " "])
    value = f"{y}년{sp}{mo}월{sp}{d}일"
    frames = [
        "저는 {}생 올해 칠순을 앞둔 사람입니다.",
        "피해자의 생년월일은 {}이고 현재 요양원에 있습니다.",
        "아버지는 {}생으로 평생 농사를 지으셨습니다.",
        "생년월일: {} / 성별: 남",
        "{}생 김모씨가 실종되었습니다.",
        "제 딸은 생년월일이 {}입니다.",
    ]
    return rng.choice(frames), [value]


def _user(rng: random.Random) -> str:
    return rng.choice("abcdefghjkmnprstwy") + "".join(
        rng.choice(_ID_CHARS) for _ in range(rng.randint(4, 9))
    )


def _written_email(rng: random.Random) -> tuple[str, list[str]]:
    user = _user(rng)
    domain = rng.choice(["naver", "daum", "gmail", "hanmail", "nate"])
    tld = "net" if domain in ("daum", "hanmail") else "com"
    values = [
        f"{user} at {domain}.{tld}",
        f"{user}(at){domain}.{tld}",
        f"{user} [at] {domain} [dot] {tld}",
        f"{user} @ {domain}.{tld}",
        f"{user}＠{domain}.{tld}",
        f"{user}[at]{domain}.{tld}",
    ]
    return _one_of(rng, values, _FRAMES["written_email"])


def _phone_variant(rng: random.Random) -> tuple[str, list[str]]:
    mid, last = _num(rng, 2000, 9999), _num(rng, 1000, 9999)
    wide = "".join(chr(ord(c) + 0xFEE0) for c in f"010-{mid}-{last}")
    words = "공일공 " + "".join(_KD[int(c)] for c in mid) + " " + "".join(_KD[int(c)] for c in last)
    values = [
        wide,
        f"010 - {mid} - {last}",
        f"010 -{mid}- {last}",
        words,
        f"02 - {mid[:3]} - {last}",
        f"０１０ {''.join(chr(ord(c) + 0xFEE0) for c in mid)} {last}",
    ]
    return _one_of(rng, values, _FRAMES["phone_variant"])


def _bare_host(rng: random.Random) -> tuple[str, list[str]]:
    user = _user(rng)
    post = _num(rng, 100000000, 999999999)
    values = [
        f"blog.naver.com/{user}/{post}",
        f"m.blog.naver.com/{user}",
        f"cafe.daum.net/{user}",
        f"youtu.be/{user}X{post[:3]}",
        f"instagram.com/{user}",
        f"{user}.tistory.com",
        f"{user}.tistory.com/{post[:3]}",
    ]
    return _one_of(rng, values, _FRAMES["bare_host"])


def _foreign_phone(rng: random.Random) -> tuple[str, list[str]]:
    values = [
        f"+1 ({_num(rng, 201, 989)}) {_num(rng, 200, 999)}-{_num(rng, 1000, 9999)}",
        f"82-10-{_num(rng, 2000, 9999)}-{_num(rng, 1000, 9999)}",
        f"+81 {_num(rng, 3, 9)}0-{_num(rng, 1000, 9999)}-{_num(rng, 1000, 9999)}",
        f"+44 {_num(rng, 20, 79)} {_num(rng, 1000, 9999)} {_num(rng, 1000, 9999)}",
        f"+86 1{_num(rng, 30, 89)} {_num(rng, 1000, 9999)} {_num(rng, 1000, 9999)}",
        f"+82 10-{_num(rng, 2000, 9999)}-{_num(rng, 1000, 9999)}",
    ]
    return _one_of(rng, values, _FRAMES["foreign_phone"])


def _plate_vehicle(rng: random.Random) -> tuple[str, list[str]]:
    letter = rng.choice("가나다라마거너더러머버서어저고노도로모보소오조구누두루무부수우주하허호")
    head = _num(rng, 10, 99) if rng.random() < 0.5 else _num(rng, 100, 699)
    sp = rng.choice(["", " "])
    value = f"{head}{letter}{sp}{_num(rng, 1000, 9999)}"
    vehicle = rng.choice(_VEHICLES)
    frames = [
        "{} " + vehicle + " 신호를 무시하고 달렸습니다.",
        "가해 차량은 {}" + vehicle + " 아니라 다른 차였습니다.",
        "블랙박스에 찍힌 {} " + vehicle + " 찾아 주세요.",
        "어제 {} " + vehicle + " 제 아이를 치고 도망갔습니다.",
    ]
    return rng.choice(frames), [value]


FORMS = {
    "repeated_address": _repeated_address,
    "address_tail": _address_tail,
    "birth_two_digit": _birth_two_digit,
    "written_email": _written_email,
    "phone_variant": _phone_variant,
    "bare_host": _bare_host,
    "foreign_phone": _foreign_phone,
    "plate_vehicle": _plate_vehicle,
}


def positives(seed: int = SEED, per_form: int = 40) -> list[Case]:
    """`per_form` labelled texts per form, drawn from one generator seeded with `seed`."""
    rng = random.Random(seed)
    out = []
    for form, make in FORMS.items():
        for _ in range(per_form):
            frame, values = make(rng)
            text, gold = _fill(frame, values)
            out.append(Case(form, text, gold, repeated=len(values) > 1))
    return out


def negatives(seed: int = SEED, n: int = 320) -> list[str]:
    """Texts with numbers these forms can be confused with, and nothing personal."""
    rng = random.Random(seed + 1)
    makers = [
        lambda: f"보상금은 {_num(rng, 1, 999)}억 {_num(rng, 1000, 9999)}만 원입니다.",
        lambda: f"{_num(rng, 10, 99)}조 {_num(rng, 1000, 9999)}억으로 늘어난 예산",
        lambda: f"같은 법 제{_num(rng, 1, 300)}조 제{_num(rng, 1, 9)}항에 따라 처리됩니다.",
        lambda: f"민법 {_num(rng, 100, 999)}조의{_num(rng, 2, 9)}에 규정되어 있다.",
        lambda: f"{_num(rng, 1, 9)}. 첫째 요구 사항 {_num(rng, 1, 9)}-{_num(rng, 1, 9)}항",
        lambda: f"ISBN 979-11-{_num(rng, 85000, 99999)}-{_num(rng, 10, 99)}-{_num(rng, 0, 9)}",
        lambda: f"ISBN 978-89-{_num(rng, 100, 999)}-{_num(rng, 1000, 9999)}-{_num(rng, 0, 9)}",
        lambda: f"모델명 SM-G{rng.randint(900, 999)}N, 부품 AB-{rng.randint(1000, 9999)}-12",
        lambda: f"고객센터 1588-{_num(rng, 1000, 9999)}로 문의하세요.",
        lambda: f"대표번호 1644-{_num(rng, 1000, 9999)} (평일 9시-18시)",
        lambda: f"결승골로 {_num(rng, 1, 5)}-0으로 이겼다.",
        lambda: (
            f"그는 {rng.randint(2000, 2019)}-{rng.randint(10, 20)} 시즌에 {rng.randint(9, 40)}승"
        ),
        lambda: f"반대로 {_num(rng, 2, 9)}층으로 낮아졌다.",
        lambda: f"계획대로 {_num(rng, 2, 30)}일에 공사를 마쳤다.",
        lambda: f"사거리가 {_num(rng, 1000, 3000)}-{_num(rng, 3001, 5500)} km인 미사일",
        lambda: f"{_num(rng, 1950, 2019)}년 {_num(rng, 1, 12)}월 {_num(rng, 1, 28)}일에 개통했다.",
        lambda: f"{_num(rng, 40, 99)}년 {_num(rng, 1, 12)}월 {_num(rng, 1, 28)}일 회의록",
        lambda: f"look at the {_user(rng)} page, meet at {_num(rng, 2, 9)} pm",
        lambda: f"파일 {_user(rng)}.txt 와 config.yaml 을 보세요.",
        lambda: f"점수는 {_num(rng, 10, 99)}승 {_num(rng, 1, 30)}패 {_num(rng, 1, 9)}무",
        lambda: f"{_num(rng, 100, 999)}명이 {_num(rng, 10, 99)}개 단체에 참여했다.",
        lambda: f"버전 {_num(rng, 1, 9)}.{_num(rng, 0, 9)}.{_num(rng, 0, 20)} 업데이트",
        lambda: f"면적은 {_num(rng, 10, 99)}평, 보증금 {_num(rng, 1000, 9999)}만 원",
        lambda: f"제{_num(rng, 1, 9)}호분과 {_num(rng, 1, 9)}호기 원자로",
    ]
    return [rng.choice(makers)() for _ in range(n)]


def _covered(spans, s: int, e: int) -> bool:
    return any(a <= s and e <= b for a, b in spans)


def evaluate(seed: int = SEED, per_form: int = 40, pz: Pseudonymizer | None = None) -> dict:
    """Per form: gold, found, surviving repeated copies; negatives read and changed."""
    pz = pz or Pseudonymizer(seed=7)
    out: dict = {}
    for case in positives(seed, per_form):
        row = out.setdefault(case.form, {"gold": 0, "found": 0, "copies": 0, "survived": 0})
        text, spans = pz.apply(case.text)
        found = [(sp.start, sp.end) for sp in spans]
        for s, e in case.gold:
            row["gold"] += 1
            row["found"] += _covered(found, s, e)
        if case.repeated:
            value = case.text[case.gold[0][0] : case.gold[0][1]]
            row["copies"] += len(case.gold)
            row["survived"] += text.count(value)
    negs = negatives(seed)
    changed = sum(pz.apply(t)[0] != t for t in negs)
    out["negatives"] = {"read": len(negs), "changed": changed}
    return out


def markdown(result: dict) -> str:
    lines = ["| form | gold | recall | repeated copies surviving |", "|---|---:|---:|---:|"]
    for form in FORMS:
        r = result[form]
        survived = f"{r['survived']} of {r['copies']}" if r["copies"] else ""
        lines.append(f"| {form} | {r['gold']} | {r['found'] / r['gold']:.3f} | {survived} |")
    n = result["negatives"]
    lines.append(f"\nNegatives changed: {n['changed']} of {n['read']}.")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m corpus.pii.realstyle", description=__doc__)
    p.add_argument("--seed", type=int, default=SEED)
    p.add_argument("--per-form", type=int, default=40)
    args = p.parse_args(argv)
    print(markdown(evaluate(args.seed, args.per_form)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
