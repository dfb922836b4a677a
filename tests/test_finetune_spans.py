"""Exact-value tests of the span tasks' pure parts (finetune.tasks alignment, ner, re, mrc).

The tokenizer is a real `tokenizers` WordPiece tokenizer built by `tokenizer.wordpiece` from a
small hand-written vocabulary, so every token boundary below is known in advance. The
round-trip tests feed gold labels through encode -> decode and score them with the project's
scorer (`finetune.prediction_files`): 100 wherever the token boundaries allow it, and the
exact, explained loss where they do not.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from corpus import klue
from corpus.klue.mrc import Answer, MrcExample
from corpus.klue.ner import NerSentence
from corpus.klue.relation import Entity, ReExample
from finetune import metrics, prediction_files
from finetune.tasks.alignment import char_span_to_tokens, char_to_token, tokenize
from finetune.tasks.base import EncodeContext
from finetune.tasks.mrc import Mrc, best_answer, doc_windows, max_context_windows
from finetune.tasks.ner import Ner, char_tags, decode_rows, round_trip_tags, token_tags
from finetune.tasks.re import MARKERS, Re, encode_marked, mark_entities
from tokenizer.wordpiece import SPECIAL_TOKENS, build_tokenizer

FIXTURES = Path(__file__).parent / "fixtures" / "klue"
WORDS = ["서울", "##시", "##는", "대한", "##민국", "##에서", "조지", "해리", "##슨", "비틀즈"]


def make_tokenizer(texts, words=WORDS, markers=False):
    """WordPiece over `words` plus every character of `texts` in both forms."""
    chars = sorted({c for t in texts for c in t if not c.isspace()})
    vocab = list(SPECIAL_TOKENS) + list(words)
    vocab += [c for c in chars if c not in vocab] + [
        f"##{c}" for c in chars if f"##{c}" not in vocab
    ]
    tok = build_tokenizer(vocab)
    if markers:
        tok.add_special_tokens(list(MARKERS))
    return tok


def context_of(tok, use_token_types=True):
    ids = {t: tok.token_to_id(t) for t in ("[CLS]", "[SEP]", "[PAD]")}
    return EncodeContext(tok, ids["[CLS]"], ids["[SEP]"], ids["[PAD]"], use_token_types)


# ---------------------------------------------------------------------------------------------
# alignment


def test_offsets_and_char_to_token():
    text = "서울시는 대한민국에서"
    tok = make_tokenizer([text])
    t = tokenize(tok, text)
    assert [tok.id_to_token(i) for i in t.ids] == [
        "서울",
        "##시",
        "##는",
        "대한",
        "##민국",
        "##에서",
    ]
    assert t.offsets == ((0, 2), (2, 3), (3, 4), (5, 7), (7, 9), (9, 11))
    assert char_to_token(t.offsets, len(text)).tolist() == [0, 0, 1, 2, -1, 3, 3, 4, 4, 5, 5]


def test_unk_offsets_cover_the_replaced_characters():
    tok = make_tokenizer(["가"], words=[])
    t = tokenize(tok, "가 쀍쀍 가")  # 쀍 is not in the vocabulary: one [UNK] for the word
    assert [tok.id_to_token(i) for i in t.ids] == ["가", "[UNK]", "가"]
    assert t.offsets == ((0, 1), (2, 4), (5, 6))


def test_char_span_to_tokens():
    offsets = ((0, 2), (2, 3), (3, 4), (5, 7), (7, 9), (9, 11))
    assert char_span_to_tokens(offsets, 0, 3) == (0, 1)
    assert char_span_to_tokens(offsets, 1, 3) == (0, 1)  # starts inside a token
    assert char_span_to_tokens(offsets, 5, 9) == (3, 4)
    assert char_span_to_tokens(offsets, 4, 5) is None  # the space alone
    assert char_span_to_tokens(offsets, 4, 7) == (3, 3)  # leading space
    assert char_span_to_tokens(offsets[:3], 5, 9) is None  # cut off


# ---------------------------------------------------------------------------------------------
# NER


def test_ner_token_tags_and_char_tags():
    text = "서울시는 대한민국에서"
    tags = ["B-LC", "I-LC", "I-LC", "O", "O", "B-LC", "I-LC", "I-LC", "I-LC", "O", "O"]
    offsets = ((0, 2), (2, 3), (3, 4), (5, 7), (7, 9), (9, 11))
    assert token_tags(tags, offsets) == ["B-LC", "I-LC", "O", "B-LC", "I-LC", "O"]
    assert char_tags(len(text), offsets, ["B-LC", "I-LC", "O", "B-LC", "I-LC", "O"]) == tags
    # Truncated after two tokens: the rest is O; the space is always O.
    assert (
        char_tags(len(text), offsets[:2], ["B-OG", "I-OG"]) == ["B-OG", "I-OG", "I-OG"] + ["O"] * 8
    )


def test_ner_entity_boundary_inside_a_token_is_the_known_loss():
    # "서울시는" as ONE token: the particle 는 inherits I-LC; the scorer sees the difference.
    text = "서울시는"
    tags = ["B-LC", "I-LC", "I-LC", "O"]
    assert token_tags(tags, [(0, 4)]) == ["B-LC"]
    assert char_tags(4, [(0, 4)], ["B-LC"]) == ["B-LC", "I-LC", "I-LC", "I-LC"]
    # A token that carries its leading space (sentencepiece style): the first real character.
    assert token_tags(["O", "B-PS", "I-PS"], [(0, 3)], " 김철") == ["B-PS"]
    assert char_tags(3, [(0, 3)], ["B-PS"], " 김철") == ["O", "B-PS", "I-PS"]
    assert text  # (the string the offsets describe)


def test_ner_round_trip_scores_100_on_fixture():
    sentences = klue.load("ner", "train", FIXTURES)
    tok = make_tokenizer([s.sentence for s in sentences], words=[])  # one token per character
    feats = Ner().encode(sentences, context_of(tok), 64, train=False)
    preds = decode_rows(np.maximum(feats.arrays["labels"], 0), feats, sentences)
    assert [p["tags"] for p in preds] == [list(s.tags) for s in sentences]
    scores = prediction_files.score_predictions("ner", preds, sentences)
    assert scores["ner_char_f1"] == 100.0 and scores["ner_entity_f1"] == 100.0


def test_ner_round_trip_truncated_sentence():
    s = NerSentence("g0", "김철수 씨", "<김철수:PS> 씨", ("B-PS", "I-PS", "I-PS", "O", "O"))
    tok = make_tokenizer([s.sentence], words=[])
    feats = Ner().encode([s], context_of(tok), 4, train=True)  # [CLS] 김 ##철 [SEP]
    assert feats.arrays["labels"][0].tolist() == [-1, 6, 7, -1]  # B-PS, I-PS in TAGS order
    tags = decode_rows(np.maximum(feats.arrays["labels"], 0), feats, [s])[0]["tags"]
    assert len(tags) == 5
    assert round_trip_tags(s, tokenize(tok, s.sentence), 2) == tags


# ---------------------------------------------------------------------------------------------
# RE


def test_mark_entities_orders_and_edges():
    s = "조지 해리슨이 쓰고 비틀즈가"
    pieces, pos = mark_entities(s, (11, 14), (0, 6))  # object first in the text
    assert "".join(pieces) == "<obj>조지 해리슨</obj>이 쓰고 <subj>비틀즈</subj>가"
    assert pos == [0, 6, 11, 14]
    # At the very start and the very end of the sentence.
    pieces, pos = mark_entities("비틀즈", (0, 3), (0, 3))
    assert "".join(pieces) == "<subj><obj>비틀즈</obj></subj>"
    # Touching entities: the first closes before the second opens.
    assert "".join(mark_entities("서울시", (0, 2), (2, 3))[0]) == "<subj>서울</subj><obj>시</obj>"
    # Nested: the outer opens first and closes last.
    assert "".join(mark_entities("대한민국", (0, 4), (2, 4))[0]) == (
        "<subj>대한<obj>민국</obj></subj>"
    )
    with pytest.raises(ValueError, match="outside"):
        mark_entities("가", (0, 2), (0, 1))


def _re_example(sentence, subj, obj, label="no_relation"):
    def ent(s, e):
        return Entity(sentence[s:e], s, e - 1, "ORG")

    return ReExample("re-0", sentence, ent(*subj), ent(*obj), label, "test")


def test_re_continuation_after_a_marker_inside_a_word():
    s = "조지 해리슨이 쓰고 비틀즈가 불렀다, 비틀즈."
    tok = make_tokenizer([s], markers=True)
    ex = _re_example(s, (11, 14), (0, 6))
    got = [tok.id_to_token(i) for i in encode_marked(tok, ex)]
    assert got == (
        ["<obj>", "조지", "해리", "##슨", "</obj>", "##이", "쓰", "##고"]
        + ["<subj>", "비틀즈", "</subj>", "##가", "불", "##렀", "##다", ",", "비틀즈", "."]
    )
    # Before punctuation the next token stays word-initial, as the plain tokenizer has it.
    ex2 = _re_example(s, (21, 24), (0, 2))
    got2 = [tok.id_to_token(i) for i in encode_marked(tok, ex2)]
    assert got2[-3:] == ["비틀즈", "</subj>", "."]
    assert got2[:3] == ["<obj>", "조지", "</obj>"]
    assert got2[3] == "해리"  # after a space: word-initial


def test_re_needs_the_markers_and_encodes_rows():
    s = "비틀즈가 불렀다"
    ex = _re_example(s, (0, 3), (5, 8), label="org:members")
    with pytest.raises(ValueError, match="entity markers"):
        encode_marked(make_tokenizer([s]), ex)
    tok = make_tokenizer([s], markers=True)
    task = Re(relations=("no_relation", "org:members"))
    feats = task.encode([ex], context_of(tok), 8, train=True)
    row = [tok.id_to_token(int(i)) for i in feats.arrays["input_ids"][0]]
    assert row == ["[CLS]", "<subj>", "비틀즈", "</subj>", "##가", "<obj>", "불", "[SEP]"]
    assert feats.arrays["label"].tolist() == [1]
    # Where the entity_start head reads: the <subj> and <obj> markers; [CLS] (0) when cut off.
    assert (feats.arrays["subj_pos"].tolist(), feats.arrays["obj_pos"].tolist()) == ([1], [5])
    assert task.truncated_markers == 0
    cut = task.encode([ex], context_of(tok), 6, train=True)
    assert (cut.arrays["subj_pos"].tolist(), cut.arrays["obj_pos"].tolist()) == ([1], [0])
    assert (cut.arrays["subj_end"].tolist(), cut.arrays["obj_end"].tolist()) == ([3], [0])
    assert (feats.arrays["subj_end"].tolist(), feats.arrays["obj_end"].tolist()) == ([3], [7])
    assert task.truncated_markers == 1


def test_re_entity_heads_read_only_their_positions():
    import jax.numpy as jnp
    from flax import nnx

    from finetune.tasks.classification import FirstTokenHead
    from finetune.tasks.re import EntityHead
    from pretrain import models

    with pytest.raises(ValueError, match="representation"):
        Re(representation="mean")
    config = models.PRESETS["tiny"].replace(hidden_size=8, dtype="float32")
    relations = ("a", "b", "c")
    paper, start, mention = (Re(relations, r) for r in ("cls", "entity_start", "mention_mean"))
    assert isinstance(paper.make_head(config, nnx.Rngs(0)), FirstTokenHead)
    assert len({t.program_key() for t in (paper, start, mention)}) == 3  # distinct programs
    seq = jnp.asarray(np.random.default_rng(0).normal(size=(2, 8, 8)), jnp.float32)
    # Row 0: <subj> at 1, </subj> at 3 (mention = position 2), <obj> at 4, </obj> at 7.
    # Row 1: <subj> cut off (0, mention empty -> [CLS] state), <obj> at 2, </obj> at 4.
    batch = {
        "subj_pos": jnp.asarray([1, 0]),
        "subj_end": jnp.asarray([3, 0]),
        "obj_pos": jnp.asarray([4, 2]),
        "obj_end": jnp.asarray([7, 4]),
    }
    reads = {  # representation -> the positions each row's logits may depend on
        "entity_start": ({1, 4}, {0, 2}),
        "mention_mean": ({2, 5, 6}, {0, 3}),
    }
    for task in (start, mention):
        head = task.make_head(config, nnx.Rngs(0))
        assert isinstance(head, EntityHead)
        logits = head(seq, None, batch)["logits"]
        assert logits.shape == (2, 3)
        for row in (0, 1):
            for p in range(8):
                moved = head(seq.at[row, p].add(3.0), None, batch)["logits"]
                assert np.array_equal(moved[1 - row], logits[1 - row])
                changed = not np.allclose(moved[row], logits[row], atol=1e-7)
                assert changed == (p in reads[task.representation][row]), (task, row, p)


def test_re_round_trip_scores_100_on_fixture():
    examples = klue.load("re", "train", FIXTURES)
    relations = klue.relations(FIXTURES)
    task = Re(relations=relations)
    tok = make_tokenizer([e.sentence for e in examples], words=[], markers=True)
    feats = task.encode(examples, context_of(tok), 256, train=False)
    logits = np.full((len(examples), len(relations)), -20.0)
    logits[np.arange(len(examples)), feats.arrays["label"]] = 20.0
    preds = task.predict({"logits": logits}, feats, examples)
    assert all(abs(sum(p["probs"]) - 1) < 1e-9 for p in preds)
    scores = prediction_files.score_predictions("re", preds, examples, relations=relations)
    assert scores["re_micro_f1"] == 100.0
    # AUPRC: the scorer's own perfect predictions score the same (a class with no gold example
    # in this small fixture has no area, so neither reaches 100).
    perfect = prediction_files.gold_predictions("re", examples, relations)
    assert scores == prediction_files.score_predictions(
        "re", perfect, examples, relations=relations
    )


# ---------------------------------------------------------------------------------------------
# MRC


def test_doc_windows_and_max_context():
    assert doc_windows(10, 4, 2) == [(0, 4), (2, 6), (4, 8), (6, 10)]
    assert doc_windows(3, 4, 2) == [(0, 3)]
    assert doc_windows(0, 4, 2) == [(0, 0)]
    assert doc_windows(9, 4, 4) == [(0, 4), (4, 8), (8, 9)]
    with pytest.raises(ValueError, match="doc_stride"):
        doc_windows(10, 4, 5)
    # Token 3: window 0 gives min(3, 0) = 0, window 1 min(1, 2) = 1 -> window 1.
    wins = doc_windows(10, 4, 2)
    assert max_context_windows(wins, 10).tolist() == [0, 0, 0, 1, 1, 2, 2, 3, 3, 3]


def _mrc(context, question, answers=(), guid="q0"):
    return MrcExample(
        guid=guid,
        question=question,
        context=context,
        question_type=3 if not answers else 1,
        is_impossible=not answers,
        answers=tuple(Answer(t, s) for t, s in answers),
    )


CONTEXT = "가나 다라 마바 사아 자차 카타 파하 거너 더러 머버"  # 10 words, 20 tokens


def _encode(examples, max_seq_length=12, stride=2, train=True):
    tok = make_tokenizer([CONTEXT, "질문"], words=[])
    task = Mrc(doc_stride=stride, max_query_length=2)
    return task, task.encode(examples, context_of(tok), max_seq_length, train)


def test_mrc_windows_labels_and_boundary_crossing():
    # [CLS] 질 ##문 [SEP] + 7 context tokens + [SEP] = 12; windows start every 2 tokens.
    ex = _mrc(CONTEXT, "질문", [("다라 마바", 3)])  # tokens 2..5
    task, f = _encode([ex])
    a = f.arrays
    assert len(f) == 8 and f.example_index.tolist() == [0] * 8  # 20 tokens, window 7
    assert a["token_type_ids"][0].tolist() == [0] * 4 + [1] * 8
    # Window 0 holds tokens 0..6: the answer (2..5) is inside -> positions 4+2, 4+5.
    assert (a["start_positions"][0], a["end_positions"][0]) == (6, 9)
    # Window 1 holds 2..8: still inside; window 2 holds 4..10: the answer crosses its start.
    assert (a["start_positions"][1], a["end_positions"][1]) == (4, 7)
    assert (a["start_positions"][2], a["end_positions"][2]) == (0, 0)
    assert a["context_offsets"][0, 4].tolist() == [0, 1] and a["context_offsets"][0, 3, 0] == -1
    assert a["is_max_context"][0, 4:11].tolist() == [1, 1, 1, 1, 1, 0, 0]


def test_mrc_unanswerable_targets_cls_and_decodes_empty():
    ex = _mrc(CONTEXT, "질문")
    task, f = _encode([ex])
    assert set(f.arrays["start_positions"].tolist()) == {0}
    out = _gold_logits(f)
    assert task.predict(out, f, [ex]) == [{"guid": "q0", "answer": ""}]


def _gold_logits(f):
    n, length = f.arrays["input_ids"].shape
    start = np.zeros((n, length))
    end = np.zeros((n, length))
    start[np.arange(n), f.arrays["start_positions"]] = 10.0
    end[np.arange(n), f.arrays["end_positions"]] = 10.0
    return {"start_logits": start, "end_logits": end}


def test_mrc_answer_in_two_windows_is_proposed_once():
    ex = _mrc(CONTEXT, "질문", [("마바", 6)])  # tokens 4..5: in windows 0, 1 and 2
    task, f = _encode([ex])
    rows = [
        {
            "start_logits": _gold_logits(f)["start_logits"][r],
            "end_logits": _gold_logits(f)["end_logits"][r],
            "context_offsets": f.arrays["context_offsets"][r],
            "is_max_context": f.arrays["is_max_context"][r],
        }
        for r in range(len(f))
    ]
    answer, nbest = best_answer(CONTEXT, rows, n_best_size=20, max_answer_length=30)
    assert answer == "마바"
    assert [c.text for c in nbest].count("마바") == 1


def test_best_answer_null_threshold_and_length_limit():
    context = "가나 다라"
    offsets = np.array([[-1, -1], [0, 1], [1, 2], [3, 4], [4, 5]])
    row = {
        "start_logits": np.array([1.0, 3.0, 0.0, 0.0, 0.0]),
        "end_logits": np.array([1.0, 0.0, 0.0, 0.0, 2.5]),
        "context_offsets": offsets,
        "is_max_context": np.array([0, 1, 1, 1, 1]),
    }
    answer, nbest = best_answer(context, [row])
    assert answer == "가나 다라"  # 3.0 + 2.5 = 5.5 beats the null score 2.0
    assert nbest[0].score == 5.5 and nbest[0].start == 0 and nbest[0].end == 5
    assert best_answer(context, [row], null_threshold=-3.6)[0] == ""  # 2 - 5.5 = -3.5 > -3.6
    # At most 2 tokens: 가 alone and 가나 both score 3.0; equal scores prefer the earlier,
    # shorter span.
    assert best_answer(context, [row], max_answer_length=2)[0] == "가"
    # A start outside its max-context window is never proposed.
    row2 = dict(
        row,
        start_logits=np.array([1.0, 3.0, 0.0, 1.0, 0.0]),
        is_max_context=np.array([0, 0, 1, 1, 1]),
    )
    assert best_answer(context, [row2])[0] == "다라"


def test_mrc_round_trip_scores_100_on_fixture():
    examples = klue.load("mrc", "dev", FIXTURES)
    texts = [e.context for e in examples] + [e.question for e in examples]
    tok = make_tokenizer(texts, words=[])
    task = Mrc(doc_stride=16, max_query_length=16)
    f = task.encode(examples, context_of(tok), 48, train=False)
    assert len(f) > len(examples)  # long contexts became several windows
    preds = task.predict(_gold_logits(f), f, examples)
    scores = prediction_files.score_predictions("mrc", preds, examples)
    assert scores == dict.fromkeys(metrics.METRIC_NAMES["mrc"], 100.0)


def test_mrc_training_skips_misaligned_answers():
    ex = _mrc(CONTEXT, "질문", [("다라", 0)], guid="bad")
    task, f = _encode([ex, _mrc(CONTEXT, "질문", [("가나", 0)])])
    assert task.skipped == ["bad"] and set(f.example_index.tolist()) == {1}


def test_mrc_roberta_inputs_have_no_segment_ids():
    ex = _mrc(CONTEXT, "질문", [("다라 마바", 3)])
    tok = make_tokenizer([CONTEXT, "질문"], words=[])
    f = Mrc(doc_stride=2, max_query_length=2).encode([ex], context_of(tok, False), 12, True)
    assert not f.arrays["token_type_ids"].any()


# ---------------------------------------------------------------------------------------------
# Real dev data (skipped without ../shared/data): every sentence and example, not a sample.


@pytest.mark.slow
def test_real_ner_dev_round_trip_is_exact_with_a_character_vocabulary(data_dir):
    """All 5,000 real dev sentences (spaces, symbols, hanja, long ones) through encode ->
    decode at length 510: with one token per character nothing is lost, so 100 exactly."""
    sentences = klue.load("ner", "dev", data_dir / "klue")
    tok = make_tokenizer([s.sentence for s in sentences], words=[])
    feats = Ner().encode(sentences, context_of(tok), 510, train=False)
    preds = decode_rows(np.maximum(feats.arrays["labels"], 0), feats, sentences)
    scores = prediction_files.score_predictions("ner", preds, sentences)
    assert scores == {"ner_entity_f1": 100.0, "ner_char_f1": 100.0, "ner_char_f1_no_o": 100.0}


@pytest.mark.slow
def test_real_re_dev_markers_survive_and_round_trip(data_dir):
    """All 7,765 real dev examples: four markers each within length 256, and gold logits
    decode to the scorer's own perfect predictions."""
    root = data_dir / "klue"
    examples, relations = klue.load("re", "dev", root), klue.relations(root)
    tok = make_tokenizer([e.sentence for e in examples], words=[], markers=True)
    task = Re(relations=relations)
    feats = task.encode(examples, context_of(tok), 256, train=False)
    marker_ids = [tok.token_to_id(m) for m in MARKERS]
    assert (np.isin(feats.arrays["input_ids"], marker_ids).sum(axis=1) == 4).all()
    logits = np.full((len(examples), len(relations)), -20.0)
    logits[np.arange(len(examples)), feats.arrays["label"]] = 20.0
    preds = task.predict({"logits": logits}, feats, examples)
    scores = prediction_files.score_predictions("re", preds, examples, relations=relations)
    perfect = prediction_files.gold_predictions("re", examples, relations)
    assert scores["re_micro_f1"] == 100.0
    assert scores == prediction_files.score_predictions(
        "re", perfect, examples, relations=relations
    )
