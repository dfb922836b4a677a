"""Unit tests of the tokenizer building blocks: Mecab alignment, marking, vocab assembly, stats."""

from __future__ import annotations

import collections

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenizer.morphemes import MorphemeSplitter, Segmenter, align, split_text
from tokenizer.stats import TokenizerStats, _add
from tokenizer.wordpiece import (
    SPECIAL_TOKENS,
    assemble_vocab,
    build_tokenizer,
    is_artefact,
    shadow,
    training_unit,
    unit_to_wordpiece,
    unshadow,
)


@pytest.fixture(scope="module")
def segmenter() -> Segmenter:
    return Segmenter(morphemes=True)


def test_mecab_pieces_of_a_simple_sentence():
    assert split_text("나는 밥을 먹는다.") == [["나", "는"], ["밥", "을"], ["먹", "는다"], ["."]]


def test_leading_whitespace_does_not_shift_boundaries():
    # python-mecab-ko's own spans drift by one on such lines; the aligner must not.
    assert split_text("  물에서의 수소결합") == split_text("물에서의 수소결합")
    assert split_text("  물에서의 수소결합")[0] == ["물", "에서", "의"]


def test_align_tolerates_altered_and_missing_surfaces():
    text = "하셨어요 간다"
    # Mecab-like output where surfaces are not substrings (lemmatised forms).
    cuts = align(text, ["하", "시", "었", "어요", "가", "ㄴ다"], collections.Counter())
    assert 0 in cuts and 1 in cuts and 4 in cuts  # 하|셨|어요 via the surfaces found
    assert all(0 <= c <= len(text) for c in cuts)
    # a surface that is nowhere in the text is skipped, the rest still aligns
    counts = collections.Counter()
    cuts = align("밥을 먹다", ["밥", "XYZ", "을", "먹", "다"], counts)
    assert cuts == {0, 1, 2, 3, 4, 5}
    assert counts["unaligned_morphemes"] == 1


@settings(max_examples=60, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(list("가나다밥을는먹었다 .,#▁ABc1😀漢字ㅋ\t하셨어요")), max_size=40
    )
)
def test_pieces_concatenate_to_the_words(text):
    seg = _SEG
    norm, words = seg.words(text)
    pieces = seg.pieces(text)
    assert len(pieces) == len(words)
    for (word, _), ps in zip(words, pieces, strict=True):
        assert "".join(ps) == word
        assert all(ps)


_SEG = Segmenter(morphemes=True)


def test_units_mark_continuations_and_isolate_space_mark(segmenter):
    units = segmenter.units("나는 ▁밑줄")
    assert [unit_to_wordpiece(u) for u in units] == ["나", "##는", "▁", "##밑줄"]


def test_shadow_round_trip_and_unit_mapping():
    for s in ["가", "밥을", "A#b", "😀", "漢字"]:
        assert unshadow(shadow(s)) == s
    assert unit_to_wordpiece(training_unit("먹었", False)) == "먹었"
    assert unit_to_wordpiece(training_unit("는다", True)) == "##는다"
    assert training_unit("\U000f0041", False) is None  # private-use input is not trainable
    assert unit_to_wordpiece("ab") is None  # a plain second character never comes from training


def test_artefact_rules():
    assert is_artefact("##") and is_artefact("###") and is_artefact("#a") and is_artefact("##▁a")
    assert not is_artefact("#") and not is_artefact("▁") and not is_artefact("##▁")
    assert not is_artefact("##는다") and not is_artefact("밥")


def test_assemble_vocab_exact_size_and_errors():
    # 5 specials + 97 characters (94 ASCII, U+2581, 가, 나) + 65 non-punctuation ## forms
    # + 2 learned pieces ("##" is an artefact and is dropped) = 169
    vocab, counts = assemble_vocab(["가", "나"], ["가나", "##나가", "##"], 169)
    assert vocab[:5] == list(SPECIAL_TOKENS)
    assert len(vocab) == 169 and vocab[-2:] == ["가나", "##나가"]
    assert assemble_vocab(["가", "나"], ["가나", "##나가"], 168)[0] == vocab[:-1]
    assert "##" not in vocab and "###" not in vocab and "##." not in vocab
    assert "#" in vocab and "##가" in vocab and "▁" in vocab and "##▁" in vocab
    with pytest.raises(ValueError, match="supports only"):
        assemble_vocab(["가", "나"], ["가나", "##나가", "##"], 170)
    with pytest.raises(ValueError, match="too small"):
        assemble_vocab(["가"], [], 50)


def test_stats_exact_values_on_a_hand_made_vocabulary():
    vocab = [*SPECIAL_TOKENS, "나", "##는", "밥", "##을", "먹", "##는다", ".", "밥을"]
    tok = build_tokenizer(vocab)
    splitter = MorphemeSplitter()
    stats = TokenizerStats("hand")
    for line in ["나는 밥을 먹는다.", "나는 없다"]:
        enc = tok.encode(line, add_special_tokens=False)
        _add(stats, line, enc, splitter.boundaries(line), tok.token_to_id("[UNK]"))
    # 나 ##는 | 밥을 | 먹 ##는다 . | 나 ##는 | [UNK]
    assert (stats.eojeols, stats.tokens, stats.continued_eojeols) == (5, 9, 3)
    assert stats.unk_tokens == 1 and stats.unk_eojeols == 1 and stats.unk_lines == 1
    assert stats.inner_boundaries == 4 and stats.morpheme_boundaries == 4
    s = stats.summary()
    assert s["fertility"] == pytest.approx(9 / 5) and s["continued"] == pytest.approx(0.6)
    # without the "." token: 8 tokens in 5 eojeols, 나는 / 먹는다 / 나는 continued
    assert (stats.eojeols_no_punct, stats.tokens_no_punct, stats.continued_eojeols_no_punct) == (
        5,
        8,
        3,
    )
    # within words: subword cuts 나|는, 먹|는다, 나|는 are all Mecab cuts (precision 3/3);
    # Mecab cuts 나|는, 밥|을, 먹|는다, 나|는, 없|다: 3 of 5 are subword cuts (recall 3/5)
    assert (stats.word_boundaries, stats.word_boundaries_on_morphemes) == (3, 3)
    assert (stats.morpheme_cuts_in_words, stats.morpheme_cuts_split) == (5, 3)
    assert s["boundary_precision"] == 1.0 and s["boundary_recall"] == pytest.approx(0.6)


def test_stats_without_punctuation_drop_punctuation_only_eojeols():
    vocab = [*SPECIAL_TOKENS, "가", "##다", ".", "!"]
    tok = build_tokenizer(vocab)
    stats = TokenizerStats("hand")
    line = "가다. ... !"
    _add(stats, line, tok.encode(line, add_special_tokens=False), set(), 1)
    # eojeols: 가다. (가 ##다 .), ... (. . .), ! (!): all punctuation tokens left out
    assert (stats.eojeols, stats.tokens, stats.continued_eojeols) == (3, 7, 2)
    assert (stats.eojeols_no_punct, stats.tokens_no_punct, stats.continued_eojeols_no_punct) == (
        1,
        2,
        1,
    )


def test_isolated_characters_have_no_continuation_form():
    # 5 specials + 98 characters (94 ASCII, U+2581, 가, 漢, 。) + 64 ## forms (62 ASCII
    # letters and digits, U+2581, 가): none for the ideograph or the punctuation
    vocab, _ = assemble_vocab(["가", "漢", "。"], [], 167)
    assert len(vocab) == 167
    assert "漢" in vocab and "。" in vocab and "##가" in vocab
    assert "##漢" not in vocab and "##。" not in vocab and "##." not in vocab
