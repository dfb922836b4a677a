"""Normalisation, the Korean sentence splitter (on real text) and the prepare filters."""

from __future__ import annotations

import re

import pytest

from corpus.datadir import resolve_data_dir
from corpus.filters import FILTERS, ExactDup, MinChars, build_filters, min_chars_for
from corpus.normalize import dedup_key, normalize_document, normalize_text
from corpus.sentences import split_sentences


def _data(*parts):
    try:
        root = resolve_data_dir()
    except FileNotFoundError:
        pytest.skip("real data (../shared/data) not present")
    path = root.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} not present")
    return path


def test_normalize_nfc_controls_and_spaces():
    nfd = "\u1112\u1161\u11ab\u1100\u1173\u11af"  # 한글 as decomposed jamo
    assert normalize_text(nfd) == "한글"
    assert normalize_text("a\u00a0b\u3000c\x0bd\u200be\ufeff") == "a b c de"
    assert normalize_text("  여러   칸\t공백 \r\n 줄 ") == "여러 칸 공백 줄"
    doc = normalize_document("첫 줄 \r\n\n\n\n둘째\u2028셋째\x07")
    assert doc == "첫 줄\n\n둘째\n셋째"
    assert dedup_key("할 수 있다.") == dedup_key("할수  있다.")


@pytest.mark.parametrize(
    "text, expected",
    [
        ("그는 3.5점을 받았다. 다음 날 떠났다.", ["그는 3.5점을 받았다.", "다음 날 떠났다."]),
        (
            '그는 "왜? 정말?"이라고 물었다. 답은 없었다.',
            ['그는 "왜? 정말?"이라고 물었다.', "답은 없었다."],
        ),
        ("정말요? 네, 맞아요! 좋네요.", ["정말요?", "네, 맞아요!", "좋네요."]),
        ("U.S. Army와 Dr. Kim이 왔다. 끝.", ["U.S. Army와 Dr. Kim이 왔다.", "끝."]),
        ("2019. 4. 5. 회의가 열렸다.", ["2019. 4. 5. 회의가 열렸다."]),
        (
            "생각하면.. 또 가슴이 아프다... 그래도 간다",
            ["생각하면.. 또 가슴이 아프다...", "그래도 간다"],
        ),
        ("했다.그리고 갔다.", ["했다.", "그리고 갔다."]),
        ("1. 첫째 항목 2. 둘째 항목", ["1. 첫째 항목 2. 둘째 항목"]),
        (
            "(참고로 이것은 예시다. 무시해도 된다.) 본문이다.",
            ["(참고로 이것은 예시다. 무시해도 된다.)", "본문이다."],
        ),
        ("첫 문단이다\n둘째 문단이다", ["첫 문단이다", "둘째 문단이다"]),
    ],
)
def test_splitter_rules(text, expected):
    assert split_sentences(text) == expected


def test_splitter_keeps_every_character():
    text = "가나다. 라마바? 사아자! 차카타… 파하"
    assert "".join(split_sentences(text)).replace(" ", "") == text.replace(" ", "")


def test_splitter_on_real_kowiki():
    path = _data("corpus", "kowiki", "AA", "wiki_00")
    raw = path.read_text(encoding="utf-8")[:200_000]
    docs = [re.sub(r"<[^>]+>", "", d) for d in raw.split("</doc>")][:20]
    sents = [s for d in docs for s in split_sentences(normalize_document(d))]
    assert "지미 카터는 조지아주 섬터 카운티 플레인스 마을에서 태어났다." in sents
    assert "조지아 공과대학교를 졸업하였다." in sents
    # Multi-sentence lines are split: few sentences hold an inner "다. " boundary.
    inner = [s for s in sents if re.search(r"[가-힣]다\. [가-힣]", s)]
    assert len(inner) <= 0.02 * len(sents), inner[:5]
    # No decimal number is ever cut.
    assert not any(
        re.search(r"\d\.$", s) and re.match(r"^\d", t)
        for s, t in zip(sents, sents[1:], strict=False)
    )


def test_splitter_on_real_petitions():
    import json

    path = _data("corpus", "petitions", "petitions_2019-05")
    with open(path, encoding="utf-8") as fh:
        bodies = [json.loads(next(fh))["content"] for _ in range(30)]
    sents = [s for b in bodies for s in split_sentences(normalize_document(b))]
    assert "허나 저는 광주 민주화 운동의 유공자 명단에 대한 의혹을 떨칠 수가 없습니다." in sents
    assert any(s.startswith("우리나라의 비례대표제도는 5.16. 쿠데타로") for s in sents)
    ends = sum(s[-1] in ".?!…\"')”’" or s.endswith("다") for s in sents)
    assert ends >= 0.85 * len(sents)
    inner = [s for s in sents if re.search(r"(습니다|했다|한다)\. [가-힣]", s)]
    assert len(inner) <= 0.02 * len(sents), inner[:5]


def test_filters_measure_then_act():
    assert set(FILTERS) >= {"min_chars", "exact_dup"}
    f = MinChars(min_chars=5)
    assert f.measure("1234") == 4 and f.act(4) == "too_short" and f("12345") is None
    d = ExactDup()
    assert d("같은 문장이다.") is None
    assert d("같은  문장이다.") == "duplicate"  # spacing-insensitive key
    assert d("다른 문장이다.") is None
    assert min_chars_for("cc-100") == 200 and min_chars_for("newscrawl") == 200
    assert min_chars_for("wikipedia") == 0 and min_chars_for("cc-100", 10) == 10
    assert [type(x).__name__ for x in build_filters("news")] == ["MinChars", "ExactDup"]
