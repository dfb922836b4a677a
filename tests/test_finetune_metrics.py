"""finetune.metrics: hand-computed cases for every metric and every quirk of the KLUE baseline
(../shared/docs/klue-metrics.md), plus random inputs checked against scikit-learn, seqeval and
scipy. Real-data agreement (corrupted dev predictions) is in test_finetune_metrics_real.py."""

from __future__ import annotations

import math
import string

import numpy as np
import pytest
from scipy.stats import pearsonr
from seqeval.metrics import f1_score as seqeval_f1
from seqeval.scheme import IOB2
from sklearn.metrics import auc, f1_score, precision_recall_curve

from corpus.klue.ner import TAGS
from finetune import metrics

approx = pytest.approx


# ---------------------------------------------------------------------------------------------
# YNAT, NLI, STS


def test_ynat_macro_runs_over_the_union_of_gold_and_predicted_labels():
    # A: tp1 gold2 pred1 -> 2/3; B: tp1 gold1 pred2 -> 2/3; C: 0 (never predicted);
    # D: 0 (predicted, never gold). Mean over {A,B,C,D} = (4/3)/4; over gold labels only it
    # would be (4/3)/3.
    got = metrics.ynat(["A", "A", "B", "C"], ["A", "B", "B", "D"])
    assert got == {"ynat_macro_f1": approx(100 / 3)}
    assert got["ynat_macro_f1"] == approx(
        100 * f1_score(["A", "A", "B", "C"], ["A", "B", "B", "D"], average="macro")
    )


def test_ynat_perfect_and_ids():
    assert metrics.ynat([0, 1, 2], [0, 1, 2])["ynat_macro_f1"] == 100.0
    assert metrics.ynat(["정치", "경제"], ["정치", "경제"])["ynat_macro_f1"] == 100.0


def test_nli_accuracy():
    gold = ["entailment", "neutral", "contradiction", "entailment"]
    pred = ["entailment", "contradiction", "contradiction", "neutral"]
    assert metrics.nli(gold, pred) == {"nli_accuracy": 50.0}


def test_sts_pearson_and_f1_at_threshold_3_inclusive():
    gold = [0.0, 3.0, 4.0, 5.0]
    pred = [1.0, 2.9, 3.0, 4.0]
    # binarised: gold 0111, pred 0011 -> tp 2, gold 3, pred 2 -> F1 4/5
    # r: centred pred (-1.725, .175, .275, 1.275), centred gold (-3, 0, 1, 2): dot 8,
    # squared norms 4.7075 and 14
    got = metrics.sts(gold, pred)
    assert got["sts_f1"] == approx(80.0)
    assert got["sts_pearsonr"] == approx(100 * 8 / math.sqrt(4.7075 * 14))


def test_sts_predictions_are_not_clipped():
    gold = [0.0, 1.0, 2.0, 5.0]
    raw = [0.0, 1.0, 2.0, 9.0]
    clipped = [0.0, 1.0, 2.0, 5.0]
    assert metrics.sts(gold, clipped)["sts_pearsonr"] == approx(100.0)
    assert metrics.sts(gold, raw)["sts_pearsonr"] == approx(100 * pearsonr(raw, gold)[0])
    assert metrics.sts(gold, raw)["sts_pearsonr"] < 99.0


def test_sts_constant_predictions_give_nan_as_scipy():
    got = metrics.sts([1.0, 2.0, 3.0], [2.5, 2.5, 2.5])
    assert math.isnan(got["sts_pearsonr"])
    assert got["sts_f1"] == 0.0  # no positive on the prediction side: tp 0


def test_length_mismatch_and_empty_raise():
    with pytest.raises(ValueError, match="3 gold"):
        metrics.nli(["a", "b", "c"], ["a"])
    with pytest.raises(ValueError, match="no examples"):
        metrics.ynat([], [])


# ---------------------------------------------------------------------------------------------
# NER


def test_ner_hand_case_entity_and_character_f1():
    sentence = "홍길동 서울"
    gold = ["B-PS", "I-PS", "I-PS", "O", "B-LC", "I-LC"]
    pred = ["B-PS", "I-PS", "O", "O", "B-LC", "I-LC"]
    got = metrics.ner([gold], [pred], [sentence])
    # entities: PS wrong span (F1 0), LC right (F1 1) -> 50
    assert got["ner_entity_f1"] == approx(50.0)
    # characters without the space: B-PS 1, I-PS 2/3, B-LC 1, I-LC 1, O 0 (predicted once,
    # never gold), the 8 absent tags 1 each (zero_division=1)
    assert got["ner_char_f1"] == approx(100 * (1 + 2 / 3 + 1 + 1 + 0 + 8) / 13)
    assert got["ner_char_f1_no_o"] == approx(100 * (1 + 2 / 3 + 1 + 1 + 8) / 12)


def test_ner_space_characters_are_not_scored():
    sentence = "가 나"
    gold = ["B-PS", "O", "B-LC"]
    for tag_at_space in ("O", "B-DT", "I-PS"):
        got = metrics.ner([gold], [["B-PS", tag_at_space, "B-LC"]], [sentence])
        assert got == {"ner_entity_f1": 100.0, "ner_char_f1": 100.0, "ner_char_f1_no_o": 100.0}


def test_ner_space_removal_joins_an_entity_split_by_a_space():
    # "B-PS I-PS ␠ I-PS": with the space removed the entity spans 3 characters on both sides
    sentence = "김 철수"
    gold = ["B-PS", "O", "I-PS", "I-PS"]
    pred = ["B-PS", "O", "I-PS", "O"]
    got = metrics.ner([gold], [pred], [sentence])
    assert got["ner_entity_f1"] == 0.0  # (0,3) vs (0,2)


def test_ner_sentences_are_one_sequence_so_entities_cross_sentence_boundaries():
    # Scored per sentence, both sides have PS(0,1) in sentence 1 and nothing in sentence 2
    # (a stray I- is no entity). Concatenated, gold has PS spanning both sentences.
    gold = [["B-PS"], ["I-PS", "O"]]
    pred = [["B-PS"], ["O", "O"]]
    got = metrics.ner(gold, pred, ["가", "나다"])
    assert got["ner_entity_f1"] == 0.0
    per_sentence = seqeval_f1(
        [["B-PS"], ["I-PS", "O"]], [["B-PS"], ["O", "O"]], mode="strict", scheme=IOB2
    )
    assert per_sentence == 1.0


def test_ner_strict_iob2_stray_inside_tag_is_no_entity():
    gold = ["I-PS", "I-PS", "O"]
    pred = ["B-PS", "I-PS", "O"]
    got = metrics.ner([gold], [pred], ["가나다"])
    assert got["ner_entity_f1"] == 0.0  # pred PS has no gold counterpart: one type, F1 0
    assert metrics.iob2_entities(gold) == []
    assert metrics.iob2_entities(["B-PS", "I-LC", "B-LC", "I-LC", "I-LC"]) == [
        (0, 1, "PS"),
        (2, 5, "LC"),
    ]


def test_ner_entity_macro_over_types():
    # PS: 1 of 1 right -> 1; DT: gold 1 pred 0 -> 0; QT: pred 1 gold 0 -> 0 => macro 1/3
    gold = ["B-PS", "O", "B-DT", "O", "O"]
    pred = ["B-PS", "O", "O", "O", "B-QT"]
    got = metrics.ner([gold], [pred], ["가나다라마"])
    assert got["ner_entity_f1"] == approx(100 / 3)


def test_ner_without_any_entity_gives_nan_entity_f1_as_seqeval():
    got = metrics.ner([["O", "I-PS"]], [["O", "O"]], ["가나"])
    assert math.isnan(got["ner_entity_f1"])
    # O: tp 1, gold 1, pred 2 -> 2/3; I-PS: 0; the 11 absent tags: 1 each
    assert got["ner_char_f1"] == approx(100 * (2 / 3 + 11) / 13)


def test_ner_rejects_unknown_tags_and_wrong_lengths():
    with pytest.raises(ValueError, match="unknown NER tags"):
        metrics.ner([["B-XX"]], [["O"]], ["가"])
    with pytest.raises(ValueError, match="sentence 0"):
        metrics.ner([["O", "O"]], [["O"]], ["가나"])


# ---------------------------------------------------------------------------------------------
# RE


def test_re_micro_f1_leaves_out_no_relation():
    gold = [0, 1, 2, 1, 0]
    pred = [1, 1, 0, 2, 0]
    probs = np.full((5, 3), 1 / 3)
    # tp (excluding class 0) = 1; gold non-0 = 3; pred non-0 = 3 -> 2/6; the correct
    # no_relation at the end counts for nothing
    got = metrics.re(gold, pred, probs)
    assert got["re_micro_f1"] == approx(100 / 3)


def test_auprc_hand_cases():
    # thresholds .9 .8 .7 .1: precision 1, 1/2, 2/3, 1/2; recall 1/2, 1/2, 1, 1;
    # trapezoids from recall 1 down to 0: (1/2)(2/3 + 1/2)/2 + (1/2)(1 + 1)/2 = 19/24
    assert metrics.auprc([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.1]) == approx(19 / 24)
    # a tie is one threshold: precision 1/2 at recall 1, then (0, 1): area 3/4
    assert metrics.auprc([1, 0], [0.5, 0.5]) == approx(0.75)
    # no positive example: recall is 1 everywhere (scikit-learn), area 1/2
    assert metrics.auprc([0, 0, 0], [0.1, 0.5, 0.2]) == approx(0.5)
    assert metrics.auprc([1, 1, 0], [0.9, 0.8, 0.1]) == approx(1.0)


def test_re_auprc_is_the_mean_over_every_class_including_absent_ones():
    gold = [1, 1, 0]
    probs = np.array([[0.1, 0.8, 0.1], [0.2, 0.7, 0.1], [0.7, 0.2, 0.1]])
    # class 0: positive ranked first -> 1; class 1: both positives first -> 1;
    # class 2: no positive -> 0.5
    got = metrics.re(gold, [1, 1, 0], probs)
    assert got["re_auprc"] == approx(100 * 2.5 / 3)
    assert got["re_micro_f1"] == approx(100.0)


def test_re_checks_shapes_and_ids():
    with pytest.raises(ValueError, match="shape"):
        metrics.re([0, 1], [0, 1], np.zeros((2,)))
    with pytest.raises(ValueError, match="relation ids"):
        metrics.re([0, 3], [0, 1], np.full((2, 3), 1 / 3))


# ---------------------------------------------------------------------------------------------
# DP


def test_dp_hand_case_uas_las_f1_and_attachment_scores():
    gold_heads, pred_heads = [[2, 0, 2, 3]], [[2, 0, 1, 3]]
    gold_rels = [["NP_SBJ", "VP", "VP_OBJ", "X"]]  # ids 3, 2, 16, 23
    pred_rels = [["NP_SBJ", "VP", "VP_CMP", "AP"]]  # ids 3, 2, 15, 6
    got = metrics.dp(gold_heads, gold_rels, pred_heads, pred_rels)
    # heads as classes over {0,1,2,3}: 2 -> 2/3, 0 -> 1, 3 -> 1, 1 (pred only) -> 0
    assert got["dp_uas_macro_f1"] == approx(100 * (2 / 3 + 1 + 1 + 0) / 4)
    assert got["dp_uas_micro_f1"] == approx(75.0)
    assert got["dp_uas"] == approx(75.0)
    # LAS labels: gold 3, 2, other, other; pred 3, 2, sentinel (head wrong), 6 (AP)
    # classes {3, 2, other, sentinel, 6}: 1, 1, 0, 0, 0
    assert got["dp_las_macro_f1"] == approx(40.0)
    assert got["dp_las_micro_f1"] == approx(50.0)
    assert got["dp_las"] == approx(50.0)


def test_dp_labels_from_id_15_on_are_merged_in_las_f1_only():
    assert metrics.DP_DEPRELS[14] == "VP_SBJ" and metrics.DP_DEPRELS[15] == "VP_CMP"
    got = metrics.dp([[0]], [["VP_OBJ"]], [[0]], [["VP_CMP"]])  # ids 16 vs 15: both "other"
    assert got["dp_las_micro_f1"] == 100.0 and got["dp_las_macro_f1"] == 100.0
    assert got["dp_las"] == 0.0  # the standard LAS does not merge
    got = metrics.dp([[0]], [["NP_CMP"]], [[0]], [["VP_SBJ"]])  # ids 13 vs 14: distinct
    assert got["dp_las_micro_f1"] == 0.0


def test_dp_wrong_head_replaces_the_label_by_a_sentinel_class():
    # right label, wrong head: the label does not count, and the sentinel is a class of its own
    got = metrics.dp([[0, 1]], [["VP", "NP"]], [[0, 0]], [["VP", "NP"]])
    # gold labels {VP, NP}; pred {VP, sentinel}: VP 1, NP 0, sentinel 0 -> macro 1/3
    assert got["dp_las_macro_f1"] == approx(100 / 3)
    assert got["dp_las_micro_f1"] == approx(50.0)
    assert got["dp_las"] == approx(50.0)


def test_dp_gold_head_minus_one_is_padding():
    got = metrics.dp([[0, -1]], [["VP", "NP"]], [[0, 2]], [["VP", "X"]])
    assert got["dp_uas"] == 100.0 and got["dp_las_macro_f1"] == 100.0


def test_dp_accepts_label_ids_and_rejects_unknown_names():
    assert metrics.dp([[0]], [[2]], [[0]], [["VP"]])["dp_las"] == 100.0
    with pytest.raises(ValueError, match="unknown DP label"):
        metrics.dp([[0]], [["VP"]], [[0]], [["VERB"]])


# ---------------------------------------------------------------------------------------------
# MRC


def test_mrc_normaliser():
    assert metrics.normalize_answer("  Hello, World!  ") == "hello world"
    assert metrics.normalize_answer("(주)삼성 '갤럭시'") == "주삼성 갤럭시"
    # only ASCII punctuation goes: Korean/typographic marks stay
    assert metrics.normalize_answer("《토지》·“박경리”") == "《토지》·“박경리”"
    # the bracket pattern: a quote or bracket followed by the literal "()‘’", all of it
    # becomes one space (without the pattern "()" alone would vanish and "‘’" stay)
    assert metrics.normalize_answer("가'()‘’나") == "가 나"
    assert metrics.normalize_answer("가()‘’나") == "가‘’나"


def test_mrc_exact_match_and_rouge_w_hand_cases():
    got = metrics.mrc([["서울특별시"]], ["서울특별시 중구"])
    # longest common substring 5; precision 5/8, recall 1 -> 10/13
    assert got == {"mrc_exact_match": 0.0, "mrc_rouge_w": approx(100 * 10 / 13)}
    # contiguous, not a subsequence: "ab" of "abxcd" vs "abcd": P 2/5, R 2/4
    assert metrics.rouge_w("abxcd", "abcd") == approx(2 * 0.4 * 0.5 / 0.9)
    assert metrics.mrc([["서울시"]], ["서울시."])["mrc_exact_match"] == 100.0


def test_mrc_max_over_gold_answers_and_mean_over_questions():
    got = metrics.mrc([["부산", "서울특별시"], ["1446년", "1446"]], ["서울특별시", "1446년에"])
    # q1: EM 1, ROUGE 1; q2: EM 0, ROUGE max(5/6 F1 with "1446년", 4 chars with "1446")
    q2 = max(2 * 1 * (5 / 6) / (1 + 5 / 6), 2 * 1 * (4 / 6) / (1 + 4 / 6))
    assert got["mrc_exact_match"] == approx(50.0)
    assert got["mrc_rouge_w"] == approx(100 * (1 + q2) / 2)


def test_mrc_unanswerable_and_empty_gold():
    assert metrics.mrc([[]], [""]) == {"mrc_exact_match": 100.0, "mrc_rouge_w": 100.0}
    assert metrics.mrc([[]], ["무엇"]) == {"mrc_exact_match": 0.0, "mrc_rouge_w": 0.0}
    # a gold answer that normalises to "" behaves like an unanswerable one
    assert metrics.mrc([["..."]], [""]) == {"mrc_exact_match": 100.0, "mrc_rouge_w": 100.0}
    assert metrics.rouge_w("", "abc") == 0.0


def test_mrc_scores_per_question_type_as_the_baseline_logs_them():
    """EM and ROUGE-W per question type (1 paraphrase, 2 multi-sentence, 3 unanswerable):
    the mean over that type's questions; NaN for a type without questions."""
    gold = [["서울"], ["부산"], ["대구"], []]
    pred = ["서울", "광주", "대구", "무엇"]
    got = metrics.mrc(gold, pred, [1, 1, 2, 3])
    assert (got["mrc_exact_match"], got["mrc_exact_match_type1"]) == (50.0, 50.0)
    assert (got["mrc_exact_match_type2"], got["mrc_exact_match_type3"]) == (100.0, 0.0)
    assert got["mrc_rouge_w_type2"] == 100.0 and got["mrc_rouge_w_type3"] == 0.0
    assert set(got) == set(metrics.METRIC_NAMES["mrc"])
    only_one = metrics.mrc(gold[:1], pred[:1], [1])
    assert math.isnan(only_one["mrc_rouge_w_type2"]) and only_one["mrc_rouge_w_type1"] == 100.0
    with pytest.raises(ValueError):
        metrics.mrc(gold, pred, [1, 2])


def test_mrc_rouge_w_keeps_difflib_heuristic_for_long_gold_answers():
    # difflib (which the baseline calls) ignores "popular" characters of a 200+ character
    # gold answer when it looks for the longest block, so a prediction that contains the whole
    # answer after one extra character scores 0 although the true common substring is 210
    gold = "a" * 150 + "b" * 60
    assert metrics.rouge_w(gold, gold) == 1.0
    assert metrics.rouge_w("x" + gold, gold) == 0.0
    short = "a" * 150 + "b" * 40  # under 200 characters: the true longest substring
    assert metrics.rouge_w("x" + short, short) == approx(2 * (190 / 191) / (1 + 190 / 191))


# ---------------------------------------------------------------------------------------------
# WoS


def test_wos_joint_goal_and_slot_f1_mean_over_turns():
    gold = [["a-s-1", "b-s-2"], [], [], ["a-s-1", "b-s-2"]]
    pred = [["a-s-1", "c-s-3"], [], ["a-s-1"], ["b-s-2", "a-s-1"]]
    got = metrics.wos(gold, pred)
    assert got["wos_joint_goal_accuracy"] == approx(50.0)
    # per turn: 1/2, 1 (empty = empty), 0 (empty gold, non-empty pred), 1 -> mean 62.5;
    # a pooled micro F1 would be 2*3/(2*3+2+1) = 66.7
    assert got["wos_slot_f1"] == approx(62.5)


def test_wos_duplicates_count_as_lists():
    assert metrics.turn_slot_f1(["a-s-1"], ["a-s-1", "a-s-1"]) == 1.0
    assert metrics.turn_slot_f1(["a-s-1", "a-s-1"], ["a-s-1"]) == 1.0
    assert metrics.turn_slot_f1(["a-s-1"], ["a-s-1", "b-s-1", "b-s-1"]) == approx(0.5)
    assert metrics.wos([["a-s-1"]], [["a-s-1", "a-s-1"]])["wos_joint_goal_accuracy"] == 100.0


def test_metric_names_table():
    assert set(metrics.METRICS) == set(metrics.METRIC_NAMES)
    assert len(metrics.DP_DEPRELS) == 38 == len(set(metrics.DP_DEPRELS))


# ---------------------------------------------------------------------------------------------
# random inputs against the reference libraries


def _ref_ner(gold, pred, sentences):
    g, p = [], []
    for gs, ps, text in zip(gold, pred, sentences, strict=True):
        for gt, pt, ch in zip(gs, ps, text, strict=True):
            if ch != " ":
                g.append(gt)
                p.append(pt)
    entity = seqeval_f1([g], [p], average="macro", mode="strict", scheme=IOB2)
    char = f1_score(g, p, labels=list(TAGS), average="macro", zero_division=1)
    no_o = f1_score(g, p, labels=[t for t in TAGS if t != "O"], average="macro", zero_division=1)
    return {
        "ner_entity_f1": 100 * entity,
        "ner_char_f1": 100 * char,
        "ner_char_f1_no_o": 100 * no_o,
    }


def _random_tags(rng, n):
    # mostly O with B-/I- runs and stray I- tags, so strict IOB2 matters
    out = []
    for _ in range(n):
        r = rng.random()
        out.append("O" if r < 0.6 else str(rng.choice(TAGS)))
    return out


@pytest.mark.parametrize("seed", range(5))
def test_ner_agrees_with_seqeval_and_sklearn_on_random_tags(seed):
    rng = np.random.default_rng(seed)
    sentences = ["".join(rng.choice(list("가나 다"), size=rng.integers(1, 30))) for _ in range(40)]
    gold = [_random_tags(rng, len(s)) for s in sentences]
    pred = [[t if rng.random() < 0.7 else str(rng.choice(TAGS)) for t in g] for g in gold]
    got = metrics.ner(gold, pred, sentences)
    want = _ref_ner(gold, pred, sentences)
    assert got == approx(want, abs=1e-6)


def _ref_auprc(gold, probs, classes):
    onehot = np.eye(classes)[gold]
    scores = []
    for c in range(classes):
        precision, recall, _ = precision_recall_curve(onehot[:, c], probs[:, c])
        scores.append(auc(recall, precision))
    return 100 * float(np.mean(scores))


@pytest.mark.filterwarnings("ignore:No positive class found")
@pytest.mark.parametrize("seed", range(5))
def test_classification_metrics_agree_with_sklearn_and_scipy(seed):
    rng = np.random.default_rng(seed)
    n = 300
    gold = rng.integers(0, 7, n)
    pred = np.where(rng.random(n) < 0.6, gold, rng.integers(0, 9, n))  # 7, 8: pred-only
    assert metrics.ynat(gold, pred)["ynat_macro_f1"] == approx(
        100 * f1_score(gold, pred, average="macro"), abs=1e-6
    )
    assert metrics.nli(gold, pred)["nli_accuracy"] == approx(100 * np.mean(gold == pred))
    g = rng.uniform(0, 5, n)
    p = g + rng.normal(0, 1.5, n)  # unclipped, may leave 0..5
    got = metrics.sts(g, p)
    assert got["sts_pearsonr"] == approx(100 * pearsonr(p, g)[0], abs=1e-6)
    assert got["sts_f1"] == approx(100 * f1_score(g >= 3, p >= 3), abs=1e-6)
    # RE: 30 classes, some absent from gold, ties in the probabilities
    classes = 30
    rg = rng.integers(0, 26, n)
    rp = np.where(rng.random(n) < 0.5, rg, rng.integers(0, classes, n))
    logits = rng.normal(size=(n, classes))
    probs = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    probs = np.round(probs, 2)  # ties
    got = metrics.re(rg, rp, probs)
    want_micro = f1_score(rg, rp, average="micro", labels=list(range(1, classes)))
    assert got["re_micro_f1"] == approx(100 * want_micro, abs=1e-6)
    assert got["re_auprc"] == approx(_ref_auprc(rg, probs, classes), abs=1e-6)


def _ref_dp(gold_heads, gold_rels, pred_heads, pred_rels):
    """The baseline's procedure, step by step, with scikit-learn."""
    ids = {n: i for i, n in enumerate(metrics.DP_DEPRELS)}
    gh = np.array([h for s in gold_heads for h in s])
    ph = np.array([h for s in pred_heads for h in s])
    gt = np.array([ids[r] for s in gold_rels for r in s])
    pt = np.array([ids[r] for s in pred_rels for r in s])
    gt2, pt2 = gt.copy(), pt.copy()
    gt2[gt2 >= 15] = -3
    pt2[pt2 >= 15] = -3
    pt2[gh != ph] = -2
    return {
        "dp_uas_macro_f1": 100 * f1_score(gh, ph, average="macro"),
        "dp_uas_micro_f1": 100 * f1_score(gh, ph, average="micro"),
        "dp_las_macro_f1": 100 * f1_score(gt2, pt2, average="macro"),
        "dp_las_micro_f1": 100 * f1_score(gt2, pt2, average="micro"),
        "dp_uas": 100 * np.mean(gh == ph),
        "dp_las": 100 * np.mean((gh == ph) & (gt == pt)),
    }


@pytest.mark.parametrize("seed", range(5))
def test_dp_agrees_with_the_baseline_procedure_on_random_trees(seed):
    rng = np.random.default_rng(seed)
    gold_heads, gold_rels, pred_heads, pred_rels = [], [], [], []
    labels = metrics.DP_DEPRELS
    for _ in range(50):
        n = int(rng.integers(1, 15))
        gh = [int(rng.integers(0, n + 1)) for _ in range(n)]
        gr = [str(rng.choice(labels)) for _ in range(n)]
        ph = [h if rng.random() < 0.7 else int(rng.integers(0, n + 1)) for h in gh]
        pr = [r if rng.random() < 0.6 else str(rng.choice(labels)) for r in gr]
        gold_heads.append(gh)
        gold_rels.append(gr)
        pred_heads.append(ph)
        pred_rels.append(pr)
    got = metrics.dp(gold_heads, gold_rels, pred_heads, pred_rels)
    assert got == approx(_ref_dp(gold_heads, gold_rels, pred_heads, pred_rels), abs=1e-6)


def _ref_normalize(text: str) -> str:
    text = text.lower()
    for ch in string.punctuation:
        text = text.replace(ch, "")
    return " ".join(text.split())


def _ref_longest_common_substring(a: str, b: str) -> int:
    best = 0
    prev = [0] * (len(b) + 1)
    for i in range(1, len(a) + 1):
        cur = [0] * (len(b) + 1)
        for j in range(1, len(b) + 1):
            if a[i - 1] == b[j - 1]:
                cur[j] = prev[j - 1] + 1
                best = max(best, cur[j])
        prev = cur
    return best


def _ref_mrc(gold_answers, preds):
    em, rouge = [], []
    for answers, pred in zip(gold_answers, preds, strict=True):
        p = _ref_normalize(pred)
        golds = [_ref_normalize(a) for a in answers] or [""]
        em.append(max(float(p == g) for g in golds))
        scores = []
        for g in golds:
            if not g:
                scores.append(float(p == ""))
                continue
            k = _ref_longest_common_substring(p, g)
            scores.append(0.0 if k == 0 else 2 * k / (len(p) + len(g)))
        rouge.append(max(scores))
    return {"mrc_exact_match": 100 * np.mean(em), "mrc_rouge_w": 100 * np.mean(rouge)}


@pytest.mark.parametrize("seed", range(3))
def test_mrc_agrees_with_an_independent_longest_common_substring(seed):
    rng = np.random.default_rng(seed)
    alphabet = list("가나다라AbC .,!?()'\"-")
    gold, preds = [], []
    for _ in range(200):
        answers = ["".join(rng.choice(alphabet, size=rng.integers(1, 12))) for _ in range(3)]
        answers = answers[: int(rng.integers(0, 4))]
        base = answers[0] if answers and rng.random() < 0.5 else ""
        noise = "".join(rng.choice(alphabet, size=rng.integers(0, 6)))
        preds.append(base + noise if rng.random() < 0.5 else noise + base)
        gold.append(answers)
    assert metrics.mrc(gold, preds) == approx(_ref_mrc(gold, preds), abs=1e-6)


def _ref_wos(gold, pred):
    jga = np.mean([sorted(set(g)) == sorted(set(p)) for g, p in zip(gold, pred, strict=True)])
    f1s = []
    for g, p in zip(gold, pred, strict=True):
        if len(g) == 0:
            f1s.append(1.0 if len(p) == 0 else 0.0)
            continue
        tp = len([x for x in g if x in p])
        precision = tp / (tp + len([x for x in p if x not in g])) if p else 0.0
        recall = tp / len(g)
        f1s.append(2 * precision * recall / (precision + recall) if tp else 0.0)
    return {"wos_joint_goal_accuracy": 100 * jga, "wos_slot_f1": 100 * np.mean(f1s)}


@pytest.mark.parametrize("seed", range(3))
def test_wos_agrees_with_an_independent_count(seed):
    rng = np.random.default_rng(seed)
    items = [f"{d}-{s}-{v}" for d in ("식당", "관광") for s in ("이름", "지역") for v in "123"]
    gold, pred = [], []
    for _ in range(300):
        g = [str(x) for x in rng.choice(items, size=rng.integers(0, 5), replace=False)]
        p = [x for x in g if rng.random() < 0.8]
        p += [str(x) for x in rng.choice(items, size=rng.integers(0, 3))]  # may duplicate
        gold.append(g)
        pred.append(p)
    assert metrics.wos(gold, pred) == approx(_ref_wos(gold, pred), abs=1e-6)


# ---------------------------------------------------------------------------------------------
# real dev data: randomly corrupted predictions through finetune.prediction_files


@pytest.fixture(scope="module")
def real_klue(data_dir):
    from corpus import klue

    root = data_dir / "klue"
    cache: dict = {}

    def get(task: str, split: str = "dev"):
        if (task, split) not in cache:
            cache[task, split] = klue.load(task, split, root)
        return cache[task, split]

    get.relations = klue.relations(root)
    return get


def _corrupt_labels(rng, values, choices, rate=0.3):
    return [str(rng.choice(choices)) if rng.random() < rate else v for v in values]


@pytest.mark.filterwarnings("ignore:No positive class found")
def test_real_dev_corrupted_predictions_agree_with_reference_libraries(real_klue):
    from corpus.klue import nli as klue_nli
    from corpus.klue import ynat as klue_ynat
    from finetune.prediction_files import score_predictions

    rng = np.random.default_rng(0)
    # YNAT, NLI
    for task, labels, field in (
        ("ynat", klue_ynat.LABELS, "label"),
        ("nli", klue_nli.LABELS, "gold_label"),
    ):
        gold = real_klue(task)
        g = [getattr(x, field) for x in gold]
        p = _corrupt_labels(rng, g, labels)
        got = score_predictions(
            task, [{"guid": x.guid, "label": y} for x, y in zip(gold, p, strict=True)], gold
        )
        if task == "ynat":
            want = {"ynat_macro_f1": 100 * f1_score(g, p, average="macro")}
        else:
            want = {"nli_accuracy": 100 * np.mean(np.array(g) == np.array(p))}
        assert got == approx(want, abs=1e-6)
    # STS
    gold = real_klue("sts")
    g = np.array([x.real_label for x in gold])
    p = g + rng.normal(0, 1.0, len(g))
    preds = [{"guid": x.guid, "score": float(s)} for x, s in zip(gold, p, strict=True)]
    got = score_predictions("sts", preds, gold)
    want = {"sts_pearsonr": 100 * pearsonr(p, g)[0], "sts_f1": 100 * f1_score(g >= 3, p >= 3)}
    assert got == approx(want, abs=1e-6)
    # RE
    gold = real_klue("re")
    relations = real_klue.relations
    ids = {r: i for i, r in enumerate(relations)}
    g = np.array([ids[x.label] for x in gold])
    logits = rng.normal(size=(len(g), len(relations)))
    logits[np.arange(len(g)), g] += rng.uniform(0, 4, len(g))
    probs = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    p = probs.argmax(axis=1)
    preds = [
        {"guid": x.guid, "label": relations[k], "probs": probs[i].tolist()}
        for i, (x, k) in enumerate(zip(gold, p, strict=True))
    ]
    got = score_predictions("re", preds, gold, relations=relations)
    want = {
        "re_micro_f1": 100 * f1_score(g, p, average="micro", labels=list(range(1, 30))),
        "re_auprc": _ref_auprc(g, probs, 30),
    }
    assert got == approx(want, abs=1e-6)


def test_real_dev_corrupted_ner_dp_wos_agree_with_reference_libraries(real_klue):
    from finetune.prediction_files import score_predictions

    rng = np.random.default_rng(1)
    # seqeval's strict mode is quadratic in the sequence length (about 100 s on all 5,000 dev
    # sentences), so the reference runs on the first 400 sentences (~18k characters)
    gold = real_klue("ner")[:400]
    pred_tags = [[t if rng.random() < 0.9 else str(rng.choice(TAGS)) for t in x.tags] for x in gold]
    preds = [{"guid": x.guid, "tags": t} for x, t in zip(gold, pred_tags, strict=True)]
    got = score_predictions("ner", preds, gold)
    want = _ref_ner([x.tags for x in gold], pred_tags, [x.sentence for x in gold])
    assert got == approx(want, abs=1e-6)
    assert 0 < got["ner_entity_f1"] < 99  # the corruption did something

    gold = real_klue("dp")
    heads = [
        [h if rng.random() < 0.8 else int(rng.integers(0, len(x.words) + 1)) for h in x.heads]
        for x in gold
    ]
    rels = [_corrupt_labels(rng, x.deprels, metrics.DP_DEPRELS) for x in gold]
    preds = [
        {"guid": x.guid, "heads": h, "deprels": r}
        for x, h, r in zip(gold, heads, rels, strict=True)
    ]
    got = score_predictions("dp", preds, gold)
    want = _ref_dp([x.heads for x in gold], [x.deprels for x in gold], heads, rels)
    assert got == approx(want, abs=1e-6)

    gold = real_klue("wos", "dev_sample_10")
    turns = [t.state for d in gold for t in d.user_turns()]
    guids = [f"{d.guid}:{i}" for d in gold for i in range(len(d.user_turns()))]
    pred_states = [[s for s in st if rng.random() < 0.9] for st in turns]
    preds = [{"guid": g, "state": s} for g, s in zip(guids, pred_states, strict=True)]
    got = score_predictions("wos", preds, gold)
    assert got == approx(_ref_wos([list(t) for t in turns], pred_states), abs=1e-6)
    assert got["wos_joint_goal_accuracy"] < 100
