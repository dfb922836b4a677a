"""The vocabulary's single-character entries, chosen by coverage instead of a count threshold.

WordPiece has no character fallback, so every character a word may contain
needs a single-character entry: its word form (``가``) where it starts a word
and its continuation form (``##가``) where it continues one. A rule such as
"every character seen 5 times" grows without bound with the training text
(each 10x more text brings thousands of rare hanja, emoji and symbols), and at
the paper's scale it would spend half of a 32k vocabulary on single characters.

So the alphabet is chosen by coverage, as sentencepiece's
``character_coverage`` does: the word and continuation forms are ranked by how
often they occur in that position, and the most frequent ones are kept until
they cover `coverage` (default 99.95%) of all character occurrences. On a
sample of a fixed distribution this set converges as the text grows instead of
growing with it. Characters rarer than `min_char_count` never enter by
coverage (a floor for tiny corpora).

Some characters are always in the vocabulary, seen or not (`base_chars`):

* ``ascii``: printable ASCII and U+2581 in both forms (code, URLs, ``C#``);
* ``full`` (the default for vocabularies of `FULL_BASE_MIN_VOCAB` or more):
  also the 2,350 Hangul syllables of KS X 1001 (word form), the 94 Hangul
  compatibility jamo (both forms: ``ㅋㅋ`` is ``ㅋ ##ㅋ``) and common
  Korean/CJK punctuation and symbols. A small vocabulary cannot afford them.

Punctuation and CJK ideographs never get a continuation form (the inference
pre-tokeniser always makes them a word of their own).
"""

from __future__ import annotations

import collections
from collections.abc import Mapping
from dataclasses import dataclass, field

from tokenizer.wordpiece import FORCED_CHARS, is_isolated, is_shadow, shadow, unshadow

#: sentencepiece's value for languages with large character sets; measured in docs/tokenizer.md.
DEFAULT_COVERAGE = 0.9995
BASE_CHOICES = ("auto", "ascii", "full")
#: ``base_chars="auto"`` forces the full base set from this vocabulary size on.
FULL_BASE_MIN_VOCAB = 16000

#: The 2,350 precomposed Hangul syllables of KS X 1001 (EUC-KR rows 0xB0-0xC8).
KSX1001_HANGUL = tuple(
    bytes([lead, trail]).decode("euc_kr")
    for lead in range(0xB0, 0xC9)
    for trail in range(0xA1, 0xFF)
)
#: Hangul compatibility jamo U+3131-U+318E (``ㅋㅋ``, ``ㅠㅠ``, ``ㄱ``).
COMPAT_JAMO = tuple(chr(c) for c in range(0x3131, 0x318F))
#: Punctuation and symbols common in Korean text beyond ASCII.
COMMON_SYMBOLS = tuple("‘’“”′″·‥…、。「」『』〈〉《》【】〔〕–—―※～°℃±×÷→←↑↓↔○●◎◇◆□■△▲▽▼☆★♥♡")


def forced_chars(base_chars: str, vocab_size: int) -> tuple[set[str], set[str]]:
    """(word forms, continuation forms) always in the vocabulary for this base set and size."""
    if base_chars not in BASE_CHOICES:
        raise ValueError(f"unknown base set {base_chars!r}; choose from {', '.join(BASE_CHOICES)}")
    if base_chars == "auto":
        base_chars = "full" if vocab_size >= FULL_BASE_MIN_VOCAB else "ascii"
    word = set(FORCED_CHARS)
    cont = {c for c in FORCED_CHARS if not is_isolated(c)}
    if base_chars == "full":
        word |= set(KSX1001_HANGUL) | set(COMPAT_JAMO) | set(COMMON_SYMBOLS)
        cont |= {c for c in COMPAT_JAMO if not is_isolated(c)}
    return word, cont


@dataclass
class Alphabet:
    """The chosen single-character entries and how they were chosen."""

    word: list[str]
    continuation: list[str]
    report: dict = field(default_factory=dict)

    def trainer_symbols(self) -> set[str]:
        """The BPE trainer's symbols: word forms as-is, continuation forms as shadows."""
        return set(self.word) | {shadow(c) for c in self.continuation}


def select_alphabet(
    char_counts: Mapping[str, int],
    *,
    coverage: float = DEFAULT_COVERAGE,
    min_char_count: int = 1,
    base_chars: str = "auto",
    vocab_size: int = 32000,
) -> Alphabet:
    """Chooses the word and continuation characters from the units' character counts.

    `char_counts` counts the characters of the training units: a plain
    character is a word-initial occurrence, a shadow character (see
    `tokenizer.wordpiece`) a continuation occurrence.
    """
    if not 0 < coverage <= 1:
        raise ValueError(f"coverage must be in (0, 1], got {coverage}")
    symbols: collections.Counter = collections.Counter()
    for ch, n in char_counts.items():
        if is_shadow(ch):
            plain = unshadow(ch)
            # isolated characters always start a word at inference: count them as word forms
            symbols[("##" if not is_isolated(plain) else "") + plain] += n
        else:
            symbols[ch] += n
    total = sum(symbols.values())
    ranked = sorted(symbols.items(), key=lambda kv: (-kv[1], kv[0]))
    chosen: set[str] = set()
    covered = 0
    for sym, n in ranked:
        if total and covered / total >= coverage:
            break
        if n < min_char_count:
            break
        chosen.add(sym)
        covered += n
    forced_word, forced_cont = forced_chars(base_chars, vocab_size)
    # symbols are one character (word form) or "##" + one character (continuation form)
    word = {s for s in chosen if len(s) == 1} | forced_word
    cont = {s[2:] for s in chosen if len(s) == 3} | forced_cont
    word |= cont  # a character that can continue a word can also start one
    distinct_chars = {unshadow(c) for c in char_counts}
    report = {
        "coverage_target": coverage,
        "coverage_reached": round(covered / total, 6) if total else 0.0,
        "distinct_chars_seen": len(distinct_chars),
        "word_forms": len(word),
        "continuation_forms": len(cont),
        "entries": len(word) + len(cont),
        "forced_word_forms": len(forced_word),
        "chosen_by_coverage": len(chosen),
        "occurrences": total,
        "uncovered_occurrences": total - covered,
    }
    return Alphabet(sorted(word), sorted(cont), report)
