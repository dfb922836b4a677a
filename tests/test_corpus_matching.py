"""The decontamination decision: exact, near-exact (short), BM25, containment, and fast paths."""

from __future__ import annotations

import gzip
import json
import os

import numpy as np
import pytest

from corpus.bm25 import BM25Index, tokenize
from corpus.datadir import resolve_data_dir
from corpus.matching import MatchConfig, Matcher, count_phrases, short_key_table
from corpus.mecab_surfaces import mecab_surfaces
from corpus.normalize import match_key

BENCH = [
    "정말 재미없는 영화다.",
    "네 감사합니다.",
    "서울시는 내년부터 모든 공공 도서관의 운영 시간을 밤 10시까지 늘리기로 했다.",
    "이 숙소는 지하철역에서 걸어서 5분 거리라 위치가 정말 좋았습니다.",
    "정부는 미세먼지 저감을 위해 노후 경유차의 운행을 제한하는 방안을 검토하고 있다.",
    "주말마다 한강 공원에서 자전거를 타는 사람들이 크게 늘었다.",
    "회의실 예약은 하루 전까지 온라인으로 신청해야 합니다.",
    "영화 보는 내내 지루했다.",
] + [f"{i}번 버스는 시청 앞에서 {i + 3}분마다 출발한다." for i in range(40)]
BENCH.append("숙소 주차장은 지하 2층에 있어요.")  # short (14 normalised characters)
BENCH.append("개편 잘했네요 \u110f\u110f")  # KLUE's NSMC sentences: conjoining jamo ᄏᄏ


def _matcher(config: MatchConfig | None = None) -> Matcher:
    index = BM25Index.build([tokenize(s) for s in BENCH])
    return Matcher(index, [match_key(s) for s in BENCH], config)


def _decide(m: Matcher, texts: list[str]):
    return m.match([tokenize(t) for t in texts], texts)


def test_exact_after_normalisation_from_exact_min_chars_on():
    res = _decide(
        _matcher(), ["네, 감사합니다!!", "정말재미없는 영화다", "영화 보는 내내 지루했다"]
    )
    assert res.signal == ["exact", "exact", "exact"]
    assert list(res.doc) == [1, 0, 7] and np.all(res.score == 1.0)
    # compatibility jamo (as typed in reviews) equal conjoining jamo (NFKC)
    res = _decide(_matcher(), ["개편 잘했네요 \u314b\u314b"])
    assert res.signal == ["exact"] and res.doc[0] == len(BENCH) - 1


FORMULAS = ["1.", "①", "네.", "감사합니다.", "안녕하세요."]  # WoS turns, NER fragments


def test_formulas_under_exact_min_chars_are_no_evidence_of_a_copy():
    """``1.``, ``네.``, ``감사합니다.`` equal benchmark sentences but every text has them: an
    exact match of fewer than `exact_min_chars` (6) characters removes nothing; the same
    config with the minimum at 1 removes them all, and 6 characters still count."""
    bench = BENCH + FORMULAS
    index = BM25Index.build([tokenize(s) for s in bench])
    keys = [match_key(s) for s in bench]
    texts = ["1.", "①", "네.", "감사합니다!", "안녕하세요", "네, 감사합니다."]
    toks = [tokenize(t) for t in texts]
    res = Matcher(index, keys).match(toks, texts)
    assert res.signal == ["", "", "", "", "", "exact"]
    res = Matcher(index, keys, MatchConfig(exact_min_chars=1)).match(toks, texts)
    assert res.signal == ["exact"] * 6


def test_short_look_alikes_are_kept():
    # the failure of the old rule: most morphemes shared with a short benchmark sentence
    texts = [
        "정말 훌륭한 영화다.",
        "정말 재미있는 영화다.",
        "영화 보는 내내 즐거웠다.",
        "고맙습니다.",
    ]
    res = _decide(_matcher(), texts)
    assert res.signal == ["", "", "", ""]


def test_short_near_exact_is_removed():
    res = _decide(
        _matcher(MatchConfig(short_chars=20, near_exact_edits=1)), ["영화 보는 내내 지루했어."]
    )
    assert res.signal == ["near_exact"] and res.doc[0] == 7


def test_edited_copy_and_quote_are_removed_unrelated_long_text_kept():
    texts = [
        "서울시는 내년부터 모든 공공 도서관 운영 시간을 밤 10시까지 늘리기로 했다",  # edited
        '시민단체 관계자는 어제 열린 토론회에서 "정부는 미세먼지 저감을 위해 노후 경유차의 운행을'
        ' 제한하는 방안을 검토하고 있다"라고 말하며 예산 문제를 지적했고 참석자들도 동의했다.',
        "주말 저녁마다 동네 도서관에서 아이들과 함께 그림책을 읽는 모임이 열린다.",
    ]
    res = _decide(_matcher(), texts)
    assert list(res.doc) == [2, 4, -1] and res.signal[1] == "overlap"
    # each morpheme signal alone (overlap turned off by an unreachable length, quotes off)
    no_overlap = {"overlap_chars": 10_000, "quote_weight": 0.0, "quoted_span": False}
    res = _decide(_matcher(MatchConfig(**no_overlap)), texts)
    assert res.signal[0] == "bm25" and res.doc[0] == 2
    assert res.signal[1] in ("bm25", "containment") and res.doc[1] == 4
    assert res.signal[2] == ""
    # the quote is found by containment alone (BM25 similarity made unreachable)
    res = _decide(_matcher(MatchConfig(threshold=1.0, **no_overlap)), texts)
    assert res.signal[1:] == ["containment", ""] and res.doc[1] == 4


def test_overlap_removes_short_quote_and_cut_copy_keeps_generic_reviews():
    """The verbatim-overlap signal: a short benchmark sentence quoted inside a longer one
    and the same sentence with its end cut are copies; short reviews that share words
    with a benchmark sentence, and a long sentence sharing a short phrase, are not."""
    park = len(BENCH) - 2
    texts = [
        '직원분이 체크인할 때 "숙소 주차장은 지하 2층에 있어요"라고 알려 주셔서 편했어요.',
        "숙소 주차장은 지하 2층에",  # the last 20% cut: 11 of 14 characters
        "정말 훌륭한 영화다.",
        "주차장은 넓고 좋아요.",
        "숙소 근처 공영 주차장은 지하에 있고 밤에는 무료라서 여행객들이 자주 이용한다고 한다.",
    ]
    only_overlap = MatchConfig(
        overlap_chars=8, overlap_share=0.7, short_share=0.0, quote_weight=0.0, quoted_span=False
    )
    res = _decide(_matcher(only_overlap), texts)
    assert res.signal == ["overlap", "overlap", "", "", ""]
    assert list(res.doc[:2]) == [park, park]
    assert res.score[0] == 1.0 and 0.7 < res.score[1] < 1.0
    # the defaults remove the same two (the cut copy, under short_chars, as a near copy)
    res = _decide(_matcher(), texts)
    assert res.signal[2:] == ["", "", ""] and list(res.doc[:2]) == [park, park]
    # below overlap_chars normalised characters the overlap signal does not fire
    assert _decide(_matcher(), ["숙소 주차장은"]).signal == [""]


def _lcs(a: str, b: str) -> int:
    import difflib

    return difflib.SequenceMatcher(None, a, b, autojunk=False).find_longest_match().size


def test_overlap_seeds_find_every_pair_brute_force_finds():
    """Seeded overlap search == brute-force longest common substring, on random text."""
    rng = np.random.default_rng(0)
    alphabet = list("가나다라마바사아자차카타파하의를은")
    docs = ["".join(rng.choice(alphabet, rng.integers(8, 40))) for _ in range(150)]
    queries = []
    for i in range(120):
        d = docs[i]
        a, b = sorted(rng.integers(0, len(d), 2)) if i % 3 else (0, len(d) - 1)  # whole
        noise = "".join(rng.choice(alphabet, rng.integers(0, 20)))
        queries.append(noise[: len(noise) // 2] + d[a : b + 1] + noise[len(noise) // 2 :])
    index = BM25Index.build([tokenize(s, "char2") for s in docs], tokenizer="char2")
    m = Matcher(index, docs)
    lcs = [[_lcs(q, d) for d in docs] for q in queries]
    for min_chars, share in ((8, 0.6), (10, 0.7), (12, 1.0)):
        best, got = m.overlap_best(queries, min_chars, share)
        assert (best >= 0).sum() > 10
        for r in range(len(queries)):
            ok = [
                (n / len(d), -j) for j, (n, d) in enumerate(zip(lcs[r], docs, strict=True))
                if n >= min_chars and n >= share * len(d)
            ]  # fmt: skip
            if not ok:
                assert best[r] == -1
            else:
                s, j = max(ok)
                assert best[r] == -j and got[r] == pytest.approx(s)


def _reference_match_key(text: str) -> str:
    """`match_key` by its definition, the composition it replaced (the reference)."""
    import unicodedata

    from corpus.normalize import NON_WORD, dedup_key

    key = NON_WORD.sub("", unicodedata.normalize("NFKC", dedup_key(text)))
    return "".join(c for c in key if unicodedata.category(c)[0] != "S")


def _odd_texts() -> list[str]:
    """Text where the order of `match_key`'s steps shows: every whitespace character and
    every one whose NFKC form is or holds a space, each between conjoining jamo, before a
    combining mark and beside a Hangul syllable that a trailing jamo composes with; the
    invisible format characters; full-width and compatibility forms."""
    import sys
    import unicodedata

    odd = [chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()]
    odd += [chr(c) for c in range(0x10000) if " " in unicodedata.normalize("NFKC", chr(c))]
    odd += ["\u00a0", "\u200b", "\u200c", "\u200d", "\ufeff", "\u2028", "\u3000", "\u00ad"]
    odd += ["\x00", "\x1f", "\x7f", "\x85", "\x9f", "\u2060", "\u202e", "\u2066"]
    assert {"\u3000", "\u00a0", "\u2028", "\u00a8", "\ufe49"} <= set(odd)
    texts = []
    for c in odd:
        texts += [f"\u1100{c}\u1161{c}\u11a8", f"e{c}\u0301", f"가{c}\u11a8 Ab{c}", c, f"{c}{c}"]
    texts += ["\u1112\u1161\u11ab \u1100\u1173\u11af", "\u110f\u110f", "ㅋㅋ ᄏᄏ"]
    texts += ["ＡＢＣ１２３ 가나", "ﾊﾝｶｸ ｶﾀｶﾅ", "㈜한국 ㉑ ℌ ½ ﬁ ſt Å K Ω", "İstanbul ΣΑΣ ß ǅ"]
    texts += ["\uff01\uff1f\uff3f 가", "\u3131\u314f \u3164", "漢字 豈 \uf900 \u2f00"]
    return texts


def test_match_key_equals_its_definition_on_odd_text():
    """`match_key`'s shortcuts (no normalisation for `_SIMPLE` text, `DEDUP_GONE` before
    NFKC otherwise) give the keys of the composition they replaced: on odd whitespace,
    jamo, compatibility forms, random code points and symbols of every script."""
    import random

    rng = random.Random(0)
    texts = ["정말 재미없는 영화다.", "ABC 123 가나다", "ℌ㉑ 한국어 ㈜ ₩500 ≥ ½"]
    texts.append("漢字 ㅋㅋ ᄏᄏ ♥")
    texts += _odd_texts()
    texts += ["".join(chr(rng.randrange(0x20, 0x2FFFF)) for _ in range(30)) for _ in range(2000)]
    pool = [*"가힣 aZ09._·“”《》漢\u3000\u00a0\u200b\u200d\ufeff\u1100\u1161\u11a8\u0301ＡＫﬁ"]
    texts += ["".join(rng.choice(pool) for _ in range(12)) for _ in range(5000)]
    assert [match_key(t) for t in texts] == [_reference_match_key(t) for t in texts]
    assert match_key("가격은 ₩500, 1½개 ♥") == "가격은500112개"  # NFKC: ½ is 1⁄2, ⁄ a symbol
    assert match_key("\u1100 \u1161") == "가"  # the space goes before NFKC composes


def test_match_key_equals_its_definition_on_every_bmp_character():
    """Each BMP character alone and between neighbours it could compose or fold with."""
    chars = [chr(c) for c in range(0x10000)]
    for form in ("{c}", "Ab{c} 가{c}\u11a8", "\u1100{c}\u1161 e{c}\u0301"):
        texts = [form.format(c=c) for c in chars]
        assert [match_key(t) for t in texts] == [_reference_match_key(t) for t in texts], form


def test_match_key_shortcut_characters_need_no_normalisation():
    """What `match_key`'s shortcut (`_SIMPLE`) assumes of each of its characters: NFC
    and NFKC leave it alone, it has no combining class and is never the second of a
    canonical composition (Hangul vowel and trailing jamo included), and `str.lower` is
    its case folding; `_SIMPLE_WORD` holds those the key keeps. `DEDUP_GONE`: case
    folding maps no removed character to a kept one nor a kept one to a removed one."""
    import sys
    import unicodedata

    from corpus.normalize import _SIMPLE, _SIMPLE_WORD, DEDUP_GONE, NON_WORD

    seconds = {chr(c) for c in range(0x1161, 0x1176)} | {chr(c) for c in range(0x11A8, 0x11C3)}
    for c in range(sys.maxunicode + 1):
        d = unicodedata.decomposition(chr(c)).split()
        if len(d) == 2 and not d[0].startswith("<"):
            seconds.add(chr(int(d[1], 16)))
    simple = [chr(c) for c in range(0x10000) if _SIMPLE.fullmatch(chr(c))]
    assert len(simple) > 30000
    for c in simple:
        assert unicodedata.normalize("NFC", c) == unicodedata.normalize("NFKC", c) == c
        assert unicodedata.combining(c) == 0 and c not in seconds, hex(ord(c))
        kept = bool(_SIMPLE_WORD.fullmatch(c))
        assert kept == (not NON_WORD.fullmatch(c) and unicodedata.category(c)[0] != "S")
        assert not kept or c.lower() == c.casefold()
    for c in map(chr, range(sys.maxunicode + 1)):
        gone = bool(DEDUP_GONE.fullmatch(c))
        folded = [bool(DEDUP_GONE.fullmatch(f)) for f in c.casefold()]
        assert all(folded) if gone else not any(folded), hex(ord(c))


@pytest.mark.slow
def test_match_key_equals_its_definition_on_kowiki():
    """The same keys as the composition on 20,000 real kowiki sentences."""
    import bench.dedup as b

    try:
        texts = b._kowiki_sentences(20000)
    except FileNotFoundError:
        pytest.skip("real data (../shared/data) not present")
    assert len(texts) == 20000
    assert [match_key(t) for t in texts] == [_reference_match_key(t) for t in texts]


def test_best_above_equals_exhaustive_scoring():
    """`BM25Index.best_above` (pruned) == full scoring for every query reaching the threshold,
    on a Zipf-like vocabulary (common tokens in most sentences, as particles are)."""
    rng = np.random.default_rng(1)
    vocab = [f"w{i}" for i in range(3000)]
    p = 1.0 / np.arange(1, len(vocab) + 1)
    p /= p.sum()
    docs = [list(rng.choice(vocab, rng.integers(3, 40), p=p)) for _ in range(1500)]
    queries = [list(rng.choice(vocab, rng.integers(3, 60), p=p)) for _ in range(150)]
    for d in docs[:150]:  # edited copies: a token dropped, one added, one repeated
        q = list(d)
        q.pop(int(rng.integers(len(q))))
        q += [str(rng.choice(vocab, p=p)), q[0]]
        queries.append(q)
    index = BM25Index.build(docs, tokenizer="eojeol")
    ref_best, ref_sim, _ = index.best_matches(queries, norm="max", exact=True)
    for thr in (0.4, 0.6, 0.75, 0.9):
        best, sim = index.best_above(queries, thr)
        hit = ref_sim >= thr
        assert hit.sum() > 20
        assert np.array_equal(best >= 0, hit)
        assert np.array_equal(best[hit], ref_best[hit])
        np.testing.assert_allclose(sim[hit], ref_sim[hit], rtol=1e-12)
    # a tiny index with non-positive floored idfs (no valid bounds) is scored exhaustively
    tiny = BM25Index.build([["a", "b"], ["a", "c"], ["a", "b", "c"]], tokenizer="eojeol")
    assert (tiny.idf <= 0).any()
    tq = [["a", "b"], ["b", "c", "a"], ["z"]]
    t_best, t_sim, _ = tiny.best_matches(tq, norm="max", exact=True)
    for thr in (0.3, 0.9):
        best, sim = tiny.best_above(tq, thr)
        hit = (t_sim >= thr) & (t_best >= 0)
        assert np.array_equal(best >= 0, hit) and np.array_equal(best[hit], t_best[hit])
    # per-query thresholds; inf skips a query
    thr = np.where(np.arange(len(queries)) % 2 == 0, 0.6, np.inf)
    best, _ = index.best_above(queries, thr)
    assert np.all(best[1::2] == -1)
    assert np.array_equal(best[::2] >= 0, ref_sim[::2] >= 0.6)


@pytest.mark.parametrize("seed", range(6))
def test_best_above_at_each_querys_own_best_similarity(seed):
    """Every bound of `best_above` is exact: at a threshold just below each query's true best
    similarity (brute force over every sentence) the query is found with that sentence, and
    just above it nothing is. Random small indexes: Zipf-like vocabularies, repeated query
    tokens, queries that are edited copies (so that the bounds decide), `alpha` below 1 in
    half of them. A bound off by 1e-6 of a score fails here; fixed thresholds rarely see it."""
    rng = np.random.default_rng(100 + seed)
    vocab = [f"w{i}" for i in range(int(rng.integers(50, 800)))]
    p = 1.0 / np.arange(1, len(vocab) + 1) ** rng.uniform(0.6, 1.4)
    p /= p.sum()
    n_docs = int(rng.integers(200, 900))
    docs = [list(rng.choice(vocab, rng.integers(1, 30), p=p)) for _ in range(n_docs)]
    queries = [list(rng.choice(vocab, rng.integers(1, 40), p=p)) for _ in range(60)]
    for d in docs[:120]:  # edited copies: a token dropped, some added, one repeated
        q = list(d)
        if len(q) > 1:
            q.pop(int(rng.integers(len(q))))
        q += list(rng.choice(vocab, rng.integers(0, 4), p=p)) + q[: int(rng.integers(0, 2))]
        queries.append(q)
    index = BM25Index.build(docs, tokenizer="eojeol")
    index.alpha = 1.0 if seed % 2 else 0.8
    assert index.idf.min() > 0  # the pruned path, not the exhaustive fallback
    ref_best, ref_sim, _ = index.best_matches(queries, norm="max", exact=True)
    found = ref_best >= 0
    below = np.where(found, ref_sim * (1 - 1e-12), np.inf)
    best, sim = index.best_above(queries, below)
    assert np.array_equal(best, np.where(found, ref_best, -1))
    np.testing.assert_allclose(sim[found], ref_sim[found], rtol=1e-12)
    above = np.where(found, ref_sim * (1 + 1e-9), np.inf)
    assert np.all(index.best_above(queries, above)[0] == -1)


def _kowiki_and_klue(n_docs: int, n_queries: int):
    try:
        root = resolve_data_dir()
    except FileNotFoundError:
        pytest.skip("real data (../shared/data) not present")
    re_path = root / "klue" / "klue-re-v1.1" / "klue-re-v1.1_dev.json.gz"
    wiki = root / "corpus" / "kowiki" / "AA" / "wiki_00"
    if not re_path.exists() or not wiki.exists():
        pytest.skip("KLUE RE dev or kowiki not present")
    with gzip.open(re_path, "rt", encoding="utf-8") as fh:
        docs = [d["sentence"] for d in json.load(fh)[:n_docs]]
    from corpus.readers import iter_records
    from corpus.sentences import split_sentences

    queries = []
    for rec in iter_records(wiki):
        queries.extend(split_sentences(rec.text))
        if len(queries) >= n_queries:
            break
    # plus the benchmark's own sentences, edited, so that matches exist
    queries = queries[:n_queries] + [d[:-8] for d in docs[:200]] + docs[200:260]
    return docs, queries


@pytest.mark.slow
def test_pruned_bm25_decisions_equal_full_scoring_on_real_text():
    docs, queries = _kowiki_and_klue(1500, 300)
    index = BM25Index.build([tokenize(s) for s in docs])
    m = Matcher(index, [match_key(s) for s in docs])
    toks = [tokenize(q) for q in queries]
    ref_best, ref_sim, _ = index.best_matches(toks, norm="max", exact=True)  # full scoring
    for thr in (0.5, 0.56, 0.8):
        best, sim = m.bm25_best(toks, thr)
        assert np.array_equal(sim >= thr, ref_sim >= thr)
        hit = ref_sim >= thr
        assert hit.sum() > 100
        np.testing.assert_allclose(sim[hit], ref_sim[hit], rtol=1e-9)
        assert np.array_equal(best[hit], ref_best[hit])


def test_fast_morphs_equal_mecab_morphs_on_real_text():
    import mecab

    _, queries = _kowiki_and_klue(10, 1000)
    ref = mecab.MeCab()
    assert [mecab_surfaces(s) for s in queries] == [ref.morphs(s) for s in queries]
    # BM25 tokens: the same morphemes less those without a letter or digit
    content = [[t for t in ref.morphs(s) if any(c.isalnum() for c in t)] for s in queries]
    assert [tokenize(s) for s in queries] == content


#: Texts unlike Wikipedia's: blank, whitespace Mecab skips or keeps as a token (tab, line
#: and paragraph separators that `str.splitlines` would cut at), emoji, hanja, Latin,
#: full-width, letters Mecab does not know, a NUL (Mecab reads up to it), and long texts.
ODD_TEXTS = [
    *("", " ", "   ", "\n", "\n\n", "\t", " \t \n\r ", "가\t나", "a\tb c\t\td", "\t탭으로 시작"),
    *("가\u3000나", "가\xa0나", "가\u2028나", "가\u2029나", "가\x0b나\x0c다", "가\x1c나\x85다"),
    *("\u200b가\u200c나\ufeff", "😀", "😀👍🏽👨\u200d👩\u200d👧 좋아요", "漢字 韓國語"),
    *("Hello, World!", "ＡＢＣ　１２３　ｶﾀｶﾅ", "뷁뛣쀍 똠햏", "ㄱㄴㄷ ㅋㅋㅋ ㅠㅠ", "é e\u0301"),
    *("𠀀𠀁", "١٢٣ שלום مرحبا", "<<>> [[ ]] {{ }}", "EOS", "EOS\tEOS", "BOS/EOS"),
    *("\x00", "가\x00나", "줄\n바꿈\n\n문단", "가" * 20000, "나는 학교에 갔다. " * 2000),
]


def test_fast_morphs_equal_mecab_morphs_on_odd_text():
    """`mecab_surfaces` splits Mecab's surface-only output at newlines: equal to ``morphs`` where
    the text has whitespace Mecab skips or keeps (one surface is ``\\u2028``), or none, or
    no word Mecab knows, on the texts above and on random strings of such characters."""
    import random

    import mecab

    ref = mecab.MeCab()
    rng = random.Random(0)
    chars = [*"가나뷁ㅋㅠabZ09漢國ＡＢ１ｶ😀👍🏽.,!?~^()[]<>\"'-/\\|@#", *"  \t\n\r\x0b\x0c\x85"]
    chars += ["\u3000", "\xa0", "\u2028", "\u200b", "\ufeff", "\u0301", "\u200d", "EOS", "\tEOS\t"]
    texts = ODD_TEXTS + ["".join(rng.choices(chars, k=rng.randint(0, 60))) for _ in range(2000)]
    assert [mecab_surfaces(s) for s in texts] == [ref.morphs(s) for s in texts]
    content = [[t for t in ref.morphs(s) if any(c.isalnum() for c in t)] for s in texts]
    assert [tokenize(s) for s in texts] == content


def test_morphs_falls_back_to_mecab_morphs_when_the_tagger_fails(monkeypatch):
    """``Tagger.parse`` gives None (MeCab's NULL) on failure: `mecab_surfaces` then calls
    ``morphs``, which raises Mecab's error (here a stand-in's result shows the call was made)."""
    from corpus import mecab_surfaces as surfaces

    class Failing:
        def parse(self, text: str) -> None:
            return None

    class Morphs:
        def morphs(self, text: str) -> list[str]:
            return ["fallback", text]

    monkeypatch.setattr(surfaces, "_TAGGER", Failing())
    monkeypatch.setattr(surfaces, "_MECAB", Morphs())
    assert mecab_surfaces("가\n나") == ["fallback", "가\n나"]


def test_near_copy_and_short_quote_equal_brute_force():
    m = _matcher()
    queries = [
        "숙소 주차장은 지하",
        "영화 보는 내내",
        "네 감사합니다 정말",
        "지루했다 영화 보는 내내 정말",
    ]
    queries += [
        "정말 재미없는 영화다 하지만",
        "버스는 시청 앞에서",
        "감사합니다",
        "회의실 예약은 하루",
        "12번 버스는 시청 앞",  # a prefix of "12번 버스는 ..."
        "어제도 보는 내내 지루했다",  # the end of a benchmark key only
    ]
    keys = [match_key(q) for q in queries]
    doc, share = m.near_copy_best(keys, 25)
    prefix = os.path.commonprefix
    for r, c in enumerate(keys):
        fits = [b for b in m.keys if 4 <= len(b) <= 24 and len(prefix([c, b])) >= 4]
        want = max((len(prefix([c, b])) / max(len(c), len(b)) for b in fits), default=0.0)
        assert share[r] == pytest.approx(want), c
        if want:
            b = m.keys[doc[r]]
            assert len(prefix([c, b])) / max(len(c), len(b)) == pytest.approx(want)
    assert share[-2] > 0.3 and share[-1] == 0.0  # a shared end is not a near copy
    doc, weight = m.short_quote_best(keys)
    w = m._doc_weight
    for r, c in enumerate(keys):
        inside = [d for d, b in enumerate(m.keys) if 5 <= len(b) <= 24 and b in c]
        assert weight[r] == pytest.approx(max((w[d] for d in inside), default=0.0)), c
        assert (doc[r] in inside) if inside else doc[r] == -1


def test_near_copy_needs_an_informative_benchmark_sentence():
    m = _matcher()
    texts = ["숙소 주차장은 지하 2층에", "네 감사합니다 정말"]
    w = m._doc_weight
    heavy, light = w[len(BENCH) - 2], w[1]  # the parking sentence, "네 감사합니다."
    assert heavy > light
    base = {"short_chars": 20, "near_exact_edits": 0, "overlap_chars": 10_000}
    res = _decide(_matcher(MatchConfig(short_share=0.7, short_weight=0.0, **base)), texts)
    assert res.signal == ["near_copy", "near_copy"]
    cut = (heavy + light) / 2
    res = _decide(_matcher(MatchConfig(short_share=0.7, short_weight=cut, **base)), texts)
    assert res.signal == ["near_copy", ""] and res.doc[0] == len(BENCH) - 2
    res = _decide(_matcher(MatchConfig(short_share=0.0, **base)), texts)  # off
    assert res.signal == ["", ""]


def test_short_quote_by_weight_or_between_quotation_marks():
    m = _matcher()
    w = m._doc_weight
    heavy, light = w[7], w[1]  # "영화 보는 내내 지루했다." vs "네 감사합니다."
    assert heavy > light
    cut = (heavy + light) / 2
    texts = [
        "어제 본 건 영화 보는 내내 지루했다 그래서 일찍 나왔다",  # informative, unquoted
        "그는 네 감사합니다 하고 전화를 끊었고 다시 걸지 않았다",  # stock phrase, unquoted
        "그는 “네, 감사합니다”라고 말하고 전화를 끊었고 다시 걸지 않았다",  # quoted
    ]
    base = {"overlap_chars": 10_000, "short_chars": 0}
    res = _decide(_matcher(MatchConfig(quote_weight=cut, quoted_span=False, **base)), texts)
    assert res.signal == ["short_quote", "", ""] and res.doc[0] == 7
    res = _decide(_matcher(MatchConfig(quote_weight=cut, quoted_span=True, **base)), texts)
    assert res.signal == ["short_quote", "", "short_quote"] and res.doc[2] == 1
    res = _decide(_matcher(MatchConfig(quote_weight=0.0, quoted_span=False, **base)), texts)
    assert res.signal == ["", "", ""]


def test_count_phrases_equals_brute_force_over_batches_and_wide_characters():
    """`count_phrases` (grams filtered by integer code, `COUNT_BATCH` keys at a time)
    counts what a brute-force `in` over every benchmark key counts: keys from a small
    alphabet (many heads shared, many found, some twice in one key), characters above
    U+FFFF in keys and heads, keys shorter than a head, more keys than one batch."""
    import random

    from corpus.quotes import COUNT_BATCH

    rng = random.Random(3)
    alphabet = "가나다라a1\U0001f600\U00020000"

    def text(lo: int, hi: int) -> str:
        return "".join(rng.choice(alphabet) for _ in range(rng.randrange(lo, hi)))

    corpus = [text(0, 60) for _ in range(2500)]
    bench = [text(3, 9) for _ in range(200)]  # and cuts of corpus keys, found by design
    bench += [c[i : i + rng.randrange(3, 26)] for c in corpus[:300] for i in (0, len(c) // 2)]
    assert len(corpus) > 2 * COUNT_BATCH
    table = short_key_table(bench)
    counts: dict[int, int] = {}
    assert count_phrases(table, iter(corpus), counts) == len(corpus)
    brute = {}
    for d, b in enumerate(bench):
        n = sum(b in c for c in corpus) if 5 <= len(b) <= 24 else 0
        if n:
            brute[d] = n
    assert counts == brute and len(brute) > 100
    assert any("\U0001f600" in bench[d][:4] for d in brute)  # a wide head was found
    assert count_phrases(table, [], counts) == 0 and count_phrases({}, corpus, {}) == len(corpus)


def test_rare_quote_by_corpus_count_of_the_phrase():
    """A short benchmark sentence inside a corpus sentence is a quote when the corpus
    rarely holds it, a stock phrase when many corpus sentences do (counted by
    `count_phrases`, checked here against a brute-force count)."""
    corpus = [
        "어제 본 건 영화 보는 내내 지루했다 그래서 일찍 나왔다",  # the one quote of doc 7
        *[f"{i}번째 손님이 네 감사합니다 하고 나갔다" for i in range(5)],  # doc 1, 5 times
        "네 감사합니다 네 감사합니다",  # twice in one sentence: counted once
        "아무 상관 없는 문장이다",
    ]
    m = _matcher()
    keys = [match_key(t) for t in corpus]
    table = short_key_table(m.keys)
    counts: dict[int, int] = {}
    assert count_phrases(table, keys, counts) == len(corpus)
    brute = {}
    for d, b in enumerate(m.keys):
        if 5 <= len(b) <= 24:
            n = sum(b in k for k in keys)
            if n:
                brute[d] = n
    assert counts == brute and counts[7] == 1 and counts[1] == 6
    arr = np.zeros(len(m.keys), dtype=np.int64)
    arr[list(counts)] = list(counts.values())
    base = {"overlap_chars": 10_000, "short_chars": 0, "quote_weight": 0.0, "quoted_span": False}
    base.update(threshold=1.0, containment_chars=10_000)  # quotes only
    # a rate: at most 1 (or 6) in 10 sentences; a corpus of 5 cannot show 1 in 10
    for rate, total, want in (
        (1e5, 10, ["rare_quote", "", "", ""]),
        (6e5, 10, ["rare_quote"] * 3 + [""]),
        (0.0, 10, [""] * 4),
        (1e5, 9, [""] * 4),
    ):
        m = _matcher(MatchConfig(quote_max_per_million=rate, **base))
        m.set_phrase_counts(arr, total)
        res = _decide(m, [corpus[0], corpus[1], corpus[6], corpus[7]])
        assert res.signal == want
        if want[0]:
            assert res.doc[0] == 7 and res.score[0] == 1.0  # the score is the count
    m = _matcher(MatchConfig(quote_max_per_million=6e5, **base))  # no counts given: off
    assert _decide(m, corpus[:1]).signal == [""]
    with pytest.raises(ValueError, match="phrase counts"):
        m.set_phrase_counts(arr[:-1], 10)
    with pytest.raises(ValueError, match="above"):
        m.set_phrase_counts(arr, 5)
    # new counts are read (the count-ranked table is built again); short_quote's table, which
    # does not depend on them, is kept
    m = _matcher(MatchConfig(quote_max_per_million=1e5, **base))
    m.set_phrase_counts(arr, 10)
    m.short_quote_best([], 0.5)
    assert _decide(m, corpus[:1]).signal == ["rare_quote"]
    weight = {k: v for k, v in m._tables.items() if k[0] == "weight"}
    arr[7] = 2
    m.set_phrase_counts(arr, 10)  # sentence 7 now in 2 of 10: above the limit of 1
    assert _decide(m, corpus[:1]).signal == [""]
    assert all(m._tables[k] is v for k, v in weight.items()) and weight


def test_decision_path_equals_calibration_features():
    """`match` computes only what its thresholds need; `corpus.calibrate` decides from
    every feature (`all_features`): both must remove the same sentences by the same signal."""
    texts = [
        "네 감사합니다.",
        "네, 감사합니다 정말",
        "영화 보는 내내 지루했어.",
        "그는 “영화 보는 내내 지루했다”라고 말하고 자리를 떠났다고 전해졌다",
        "어제 본 건 영화 보는 내내 지루했다 그래서 일찍 나왔다",
        "숙소 주차장은 지하 2층에",
        "서울시는 내년부터 모든 공공 도서관 운영 시간을 밤 10시까지 늘리기로 했다",
        "주말 저녁마다 동네 도서관에서 아이들과 함께 그림책을 읽는 모임이 열린다.",
        "정말 훌륭한 영화다.",
    ]
    configs = (
        MatchConfig(),
        MatchConfig(quote_weight=1.0, overlap_chars=12),
        MatchConfig(
            quote_weight=0.0, quoted_span=False, quote_max_per_million=2e5, overlap_chars=12
        ),
    )
    for cfg in configs:
        m = _matcher(cfg)
        counts: dict[int, int] = {}
        count_phrases(short_key_table(m.keys), [match_key(t) for t in texts], counts)
        arr = np.bincount(list(counts), list(counts.values()), len(m.keys))
        m.set_phrase_counts(arr, len(texts))
        tokens = [tokenize(t) for t in texts]
        direct = m.match(tokens, texts)
        full = m.decide(m.features(tokens, texts, all_features=True))
        assert direct.signal == full.signal and list(direct.doc) == list(full.doc)
        assert direct.signal.count("") < len(texts)


def test_containment_best_equals_pair_by_pair_coverage():
    """`containment_best` (pairs gathered from the signature and by-document arrays)
    equals the definition pair by pair: among benchmark sentences of `min_chars` to
    the query's length that share a signature morpheme with it, the largest share of
    the sentence's weight on morphemes the query has."""
    m = _matcher()
    by_doc, sig = m._by_doc.toarray(), m._signatures.toarray()
    texts = BENCH[:8] + [t + " 그리고 " + u for t, u in zip(BENCH[2:8], BENCH[20:26], strict=True)]
    texts += ["시청 앞에서 버스는 출발한다 3번 버스", "짧다", "", "도서관 운영 시간을 밤 10시까지"]
    keys = [match_key(t) for t in texts]
    q, _, _ = m.index.query_matrix([tokenize(t) for t in texts])
    qlen = np.array([len(k) for k in keys])
    for min_chars in (1, 10, 20, 30):
        best, cov = m.containment_best(q, qlen, min_chars)
        has = q.toarray() > 0
        for r in range(len(texts)):
            ref = {}  # candidate -> coverage
            for d in range(len(BENCH)):
                n = m._key_len[d]
                if qlen[r] < min_chars or not min_chars <= n <= qlen[r]:
                    continue
                if (sig[:, d].astype(bool) & has[r]).any():
                    ref[d] = by_doc[d][has[r]].sum() / max(m._doc_weight[d], 1e-12)
            if not ref:
                assert best[r] == -1 and cov[r] == 0.0
                continue
            top = max(ref.values())
            np.testing.assert_allclose(cov[r], top, rtol=1e-12)
            # one of the sentences at the top (a full copy's share is 1 up to rounding)
            assert best[r] in ref and ref[best[r]] >= top * (1 - 1e-12), (min_chars, r)
        assert (best >= 0).sum() > (5 if min_chars <= 20 else 0)
