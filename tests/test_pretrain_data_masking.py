"""Exact-value and property tests of pretrain.masking and pretrain.packing (pure NumPy)."""

from __future__ import annotations

import numpy as np
import pytest

from pretrain.masking import (
    MaskingSpec,
    choose_words,
    default_max_predictions,
    example_key,
    random_bits,
    uniforms,
    whole_word_mask,
    whole_word_mask_batch,
    word_ids,
)
from pretrain.packing import (
    PackStats,
    PairInstance,
    create_nsp_instances,
    pack_full_sentences,
    truncate_seq_pair,
)

# whole_word_mask(SENTENCE, masked_lm_prob=0.5, key=example_key(7, 0, 3)): words 먹##는##다 and
# "." chosen; 먹 -> [MASK], ##는 kept, ##다 and . -> [MASK].
GOLDEN_KEY = 2829967469823073283
GOLDEN_POSITIONS = [5, 6, 7, 8, 0]
GOLDEN_IDS = [2, 5, 6, 7, 8, 4, 6, 4, 4, 3]
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "나", "##는", "밥", "##을", "먹", "##다"]
VOCAB += [".", "##", "학교", "##에", "간다"]
TOK = {t: i for i, t in enumerate(VOCAB)}
CLS, SEP, MASK = TOK["[CLS]"], TOK["[SEP]"], TOK["[MASK]"]


def ids(*tokens: str) -> np.ndarray:
    return np.array([TOK[t] for t in tokens], np.int32)


# [CLS] 나 ##는 밥 ##을 먹 ##는 ##다 . [SEP]  -> words {1,2} {3,4} {5,6,7} {8}
SENTENCE = ids("[CLS]", "나", "##는", "밥", "##을", "먹", "##는", "##다", ".", "[SEP]")


def spec(max_predictions: int = 20, **probs: float) -> MaskingSpec:
    return MaskingSpec.from_vocab(VOCAB, max_predictions=max_predictions, **probs)


def test_vocab_tables():
    s = spec()
    assert s.mask_id == MASK
    assert s.is_special.tolist() == [True] * 5 + [False] * 11
    # "##" alone is a literal token, not a continuation marker.
    assert np.flatnonzero(s.is_continuation).tolist() == [TOK["##는"], TOK["##을"], 10, 14]
    assert s.replacement_ids.tolist() == list(range(5, 16))


def test_word_ids_group_pieces_into_eojeols():
    assert word_ids(SENTENCE, spec()).tolist() == [-1, 0, 0, 1, 1, 2, 2, 2, 3, -1]
    # A ## piece right after a special token starts a word; [SEP] ends one.
    seq = ids("[CLS]", "##는", "밥", "[SEP]", "##을", "##다", "[SEP]")
    assert word_ids(seq, spec()).tolist() == [-1, 0, 1, -1, 2, 2, -1]


def test_default_max_predictions():
    assert default_max_predictions(128) == 20
    assert default_max_predictions(512) == 77
    assert default_max_predictions(100) == 15


def test_mask_everything_exact():
    out = whole_word_mask(
        SENTENCE,
        spec(masked_lm_prob=1.0, mask_token_prob=1.0, random_token_prob=0.0),
        example_key(0),
    )
    assert out.input_ids.tolist() == [CLS] + [MASK] * 8 + [SEP]
    assert out.masked_positions.tolist() == [1, 2, 3, 4, 5, 6, 7, 8] + [0] * 12
    assert out.masked_ids.tolist() == SENTENCE[1:9].tolist() + [0] * 12
    assert out.masked_weights.tolist() == [1.0] * 8 + [0.0] * 12
    assert out.input_ids.dtype == np.int32 and out.masked_weights.dtype == np.float32


def test_keep_and_random_branches_exact():
    keep = whole_word_mask(
        SENTENCE,
        spec(masked_lm_prob=1.0, mask_token_prob=0.0, random_token_prob=0.0),
        example_key(1),
    )
    assert keep.input_ids.tolist() == SENTENCE.tolist()
    assert keep.num_predictions == 8
    rand = whole_word_mask(
        SENTENCE,
        spec(masked_lm_prob=1.0, mask_token_prob=0.0, random_token_prob=1.0),
        example_key(1),
    )
    assert rand.input_ids[[0, 9]].tolist() == [CLS, SEP]
    assert set(rand.input_ids[1:9].tolist()) <= set(range(5, 16))  # never a special id


def test_golden_key_output():
    """Regression guard for the documented counter layout (sort keys, uniforms, replacements)."""
    key = example_key(7, 0, 3)
    out = whole_word_mask(SENTENCE, spec(masked_lm_prob=0.5), key)
    order = np.argsort(random_bits(key, 0, 4)[0], kind="stable").tolist()
    lengths = [2, 2, 3, 1]
    chosen, count = [], 0
    for w in order:  # google-research/bert loop, target round(0.5 * 8) = 4
        if count >= 4:
            break
        if count + lengths[w] <= 4:
            chosen.append(w)
            count += lengths[w]
    starts = [1, 3, 5, 8]
    pos = sorted(p for w in chosen for p in range(starts[w], starts[w] + lengths[w]))
    u = uniforms(random_bits(key, 1, 20))[0]
    rand = np.arange(5, 16)[(random_bits(key, 2, 20)[0] % np.uint64(11)).astype(int)]
    expected = SENTENCE.copy()
    for k, p in enumerate(pos):
        expected[p] = MASK if u[k] < 0.8 else (rand[k] if u[k] >= 0.9 else SENTENCE[p])
    assert out.masked_positions[: len(pos)].tolist() == pos
    assert out.input_ids.tolist() == expected.tolist()
    # And the literal values for key (7, 0, 3), so any change of algorithm is noticed.
    assert int(key) == GOLDEN_KEY
    assert out.masked_positions.tolist()[:5] == GOLDEN_POSITIONS
    assert out.input_ids.tolist() == GOLDEN_IDS


def test_cap_keeps_whole_words():
    s = spec(max_predictions=3, masked_lm_prob=1.0)
    wid = word_ids(SENTENCE, s)
    for seed in range(50):
        out = whole_word_mask(SENTENCE, s, example_key(seed))
        pos = out.masked_positions[: out.num_predictions]
        assert out.num_predictions == 3  # lengths 2,2,3,1: a fill to exactly 3 always exists
        chosen = set(wid[pos].tolist())
        for w in chosen:  # every piece of a chosen word is masked, never part of a word
            assert set(np.flatnonzero(wid == w).tolist()) <= set(pos.tolist())
        assert out.masked_positions.shape == (3,)


def _google_choose(lengths, target, order):
    chosen, count = [], 0
    for w in order:
        if count >= target:
            break
        if count + lengths[w] > target:
            continue
        chosen.append(w)
        count += lengths[w]
    return chosen


def test_choose_words_equals_google_loop():
    gen = np.random.default_rng(0)
    rows = 300
    width = 40
    n_words = gen.integers(0, width + 1, rows)
    lengths = gen.integers(1, 6, (rows, width)) * (np.arange(width) < n_words[:, None])
    valid = np.arange(width) < n_words[:, None]
    targets = gen.integers(0, 30, rows)
    keys = example_key(11, np.arange(rows))
    got = choose_words(lengths, valid, targets, keys)
    for b in range(rows):
        order = np.argsort(random_bits(keys[b], 0, width)[0], kind="stable")
        order = [w for w in order if valid[b, w]]
        want = _google_choose(lengths[b], targets[b], order) if targets[b] > 0 else []
        assert sorted(np.flatnonzero(got[b]).tolist()) == sorted(int(w) for w in want)


def test_batch_rows_are_independent_of_batch_layout():
    s = spec()
    gen = np.random.default_rng(2)
    rows = [np.concatenate([[CLS], gen.integers(5, 16, n), [SEP]]) for n in (3, 40, 17, 0)]
    width = 50
    tokens = np.zeros((len(rows), width), np.int32)  # [PAD] = 0 is special: never chosen
    for r, row in enumerate(rows):
        tokens[r, : len(row)] = row
    keys = example_key(5, np.arange(len(rows)))
    batch = whole_word_mask_batch(tokens, s, keys)
    for r, row in enumerate(rows):
        one = whole_word_mask(row, s, keys[r])
        assert batch["input_ids"][r, : len(row)].tolist() == one.input_ids.tolist()
        assert not batch["input_ids"][r, len(row) :].any()
        for field in ("masked_positions", "masked_ids", "masked_weights"):
            assert batch[field][r].tolist() == getattr(one, field).tolist()


def test_example_key_is_a_pure_hash():
    assert int(example_key(1, 2, 3)) == int(example_key(1, 2, 3))
    assert len({int(example_key(1, 2, k)) for k in range(1000)}) == 1000
    assert int(example_key(1, 2, 3)) != int(example_key(1, 3, 2))
    np.testing.assert_array_equal(
        example_key(1, np.arange(3)), [example_key(1, k) for k in range(3)]
    )
    u = uniforms(random_bits(example_key(0), 1, 100_000))
    assert 0 <= u.min() and u.max() < 1 and abs(u.mean() - 0.5) < 0.005


def test_only_specials_gives_no_predictions():
    out = whole_word_mask(ids("[CLS]", "[SEP]", "[PAD]"), spec(), example_key(0))
    assert out.num_predictions == 0 and out.input_ids.tolist() == [CLS, SEP, 0]


def test_bad_inputs():
    with pytest.raises(ValueError, match="out of range"):
        whole_word_mask(np.array([2, 99, 3]), spec(), example_key(0))
    with pytest.raises(ValueError, match="<= 1"):
        spec(mask_token_prob=0.95, random_token_prob=0.1)
    with pytest.raises(ValueError, match="max_predictions"):
        spec(max_predictions=0)
    with pytest.raises(ValueError, match="no \\[MASK\\]"):
        MaskingSpec.from_vocab(["[PAD]", "a"], max_predictions=2)


def test_rate_and_split_statistics_on_synthetic_words():
    """15% of maskable tokens and 80/10/10 over many random sequences."""
    s = spec(max_predictions=200)
    gen = np.random.default_rng(1)
    total = chosen = masked = kept = 0
    for k in range(400):
        seq = np.concatenate([[CLS], gen.integers(5, 16, 120), [SEP]]).astype(np.int32)
        out = whole_word_mask(seq, s, example_key(3, k))
        n = out.num_predictions
        pos = out.masked_positions[:n]
        total += 120
        chosen += n
        masked += int((out.input_ids[pos] == MASK).sum())
        kept += int((out.input_ids[pos] == seq[pos]).sum())
    assert abs(chosen / total - 0.15) < 0.003
    assert abs(masked / chosen - 0.8) < 0.02
    # "unchanged" also includes random draws that hit the original id (1 in 11 here).
    assert abs(kept / chosen - (0.1 + 0.1 / 11)) < 0.02


# ---------------------------------------------------------------- packing


class ScriptedRng:
    """Replays given values for random() and integers(lo, hi), checking the bounds asked."""

    def __init__(self, randoms, integers):
        self.randoms = list(randoms)
        self.integers_ = list(integers)

    def random(self):
        return self.randoms.pop(0)

    def integers(self, lo, hi):
        value, want_lo, want_hi = self.integers_.pop(0)
        assert (lo, hi) == (want_lo, want_hi)
        return value


def test_truncate_seq_pair_exact():
    a, b = [1, 2, 3, 4, 5], [10, 11]
    removed = truncate_seq_pair(a, b, 4, ScriptedRng([0.1, 0.9, 0.1], []))
    assert (a, b, removed) == ([3, 4], [10, 11], 3)


def test_truncate_seq_pair_front_back():
    a, b = [1, 2, 3, 4, 5], [10, 11]
    removed = truncate_seq_pair(a, b, 5, ScriptedRng([0.1, 0.9], []))
    assert (a, b, removed) == ([2, 3, 4], [10, 11], 2)
    a, b = [1, 2], [10, 11, 12]
    removed = truncate_seq_pair(a, b, 3, ScriptedRng([0.9, 0.2], []))
    # b is longer first (pop back), then a and b tie at 2: the tie truncates b (front).
    assert (a, b, removed) == ([1, 2], [11], 2)


DOCS = [
    [np.array([10, 11]), np.array([12, 13]), np.array([14])],
    [np.array([20, 21, 22])],
]


def test_nsp_is_next_exact():
    rng = ScriptedRng([0.5, 0.7], [(2, 1, 3)])
    out = create_nsp_instances(DOCS, 0, max_seq_length=8, rng=rng)
    assert len(out) == 1
    inst = out[0]
    assert inst.tokens_a.tolist() == [10, 11, 12, 13] and inst.tokens_b.tolist() == [14]
    assert not inst.is_random_next
    seq, types = inst.to_ids(2, 3)
    assert seq.tolist() == [2, 10, 11, 12, 13, 3, 14, 3]
    assert types.tolist() == [0, 0, 0, 0, 0, 0, 1, 1]


def test_nsp_random_next_puts_unused_segments_back():
    # not short; a_end=2; random next (0.2 < 0.5) from the other document, start 0;
    # segment [14] goes back and forms a one-segment chunk: always random next.
    # Truncation of the first pair: a is longer (pop back), then a tie truncates b (pop back).
    rng = ScriptedRng([0.5, 0.2, 0.9, 0.9], [(2, 1, 3), (0, 0, 1), (0, 0, 1), (0, 0, 1), (0, 0, 1)])
    out = create_nsp_instances(DOCS, 0, max_seq_length=8, rng=rng)
    assert [(i.tokens_a.tolist(), i.tokens_b.tolist(), i.is_random_next) for i in out] == [
        ([10, 11, 12], [20, 21], True),
        ([14], [20, 21, 22], True),
    ]
    assert (out[0].truncated, out[1].truncated) == (2, 0)
    assert not rng.randoms and not rng.integers_  # every scripted draw was used


def test_nsp_short_sequence_target():
    # 0.05 < short_seq_prob: target drawn in [2, 5] -> 2: every segment closes a chunk.
    rng = ScriptedRng([0.05], [(2, 2, 6)] + [(0, 0, 1)] * 6)
    out = create_nsp_instances(DOCS, 0, max_seq_length=8, rng=rng)
    assert [i.tokens_a.tolist() for i in out] == [[10, 11], [12, 13], [14]]
    assert all(i.is_random_next for i in out)


def test_nsp_random_next_never_same_document_and_balanced():
    gen = np.random.default_rng(0)
    docs = [[gen.integers(5, 100, gen.integers(3, 12)) for _ in range(60)] for _ in range(80)]
    tagged = [[seg + 1000 * (k + 1) for seg in d] for k, d in enumerate(docs)]
    labels = []
    rng = np.random.default_rng(5)
    for k in range(len(tagged)):
        for inst in create_nsp_instances(tagged, k, max_seq_length=64, rng=rng, short_seq_prob=0.0):
            labels.append(inst.is_random_next)
            assert len(inst.tokens_a) + len(inst.tokens_b) <= 61
            owners_b = set((inst.tokens_b // 1000).tolist())
            if inst.is_random_next:
                assert owners_b.isdisjoint({k + 1})
            else:
                assert owners_b == {k + 1}
    # Chunks hold >= 2 segments here except at a document's end, where a lone
    # segment is always NotNext: the rate is 0.5 plus a little.
    assert 0.47 < np.mean(labels) < 0.60, np.mean(labels)


def test_nsp_needs_two_documents():
    with pytest.raises(ValueError, match="at least 2 documents"):
        create_nsp_instances(DOCS[:1], 0, max_seq_length=8, rng=np.random.default_rng(0))


def test_pair_instance_to_ids():
    inst = PairInstance(np.array([7]), np.array([8, 9]), True)
    assert [x.tolist() for x in inst.to_ids(2, 3)] == [[2, 7, 3, 8, 9, 3], [0, 0, 0, 1, 1, 1]]


def test_pack_full_sentences_exact():
    docs = [
        [np.array([5, 6]), np.array([7])],
        [np.array([8, 9, 10])],
        [np.array([11] * 9)],
    ]
    stats = PackStats()
    out = [
        s.tolist()
        for s in pack_full_sentences(docs, max_seq_length=8, cls_id=2, sep_id=3, stats=stats)
    ]
    assert out == [
        [2, 5, 6, 7, 3],
        [2, 8, 9, 10, 3],
        [2] + [11] * 6 + [3],
        [2, 11, 11, 11, 3],
    ]
    assert (stats.sequences, stats.split_segments, stats.document_boundaries) == (4, 1, 0)


def test_pack_crosses_document_boundaries_with_sep():
    docs = [[np.array([5])], [np.array([6, 7])], [np.array([8])], [np.array([9])]]
    out = [s.tolist() for s in pack_full_sentences(docs, max_seq_length=8, cls_id=2, sep_id=3)]
    assert out == [[2, 5, 3, 6, 7, 3, 8, 3], [2, 9, 3]]
    assert all(len(s) <= 8 for s in out)
