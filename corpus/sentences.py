"""Rule-based Korean document -> sentence splitter.

The KLUE paper split documents with KSS. KSS pulls in a large dependency
stack (and a morphological analyser of its own); this module is a small,
deterministic rule set that covers what matters for filtering and BM25
matching, and is tested on real Wikipedia and petition text
(`tests/test_corpus_sentences.py`).

Rules, applied to each paragraph (newline-separated block) of a document:

1. A boundary candidate is a run of terminal punctuation (``.`` ``?`` ``!``
   ``…`` and their full-width forms, in any combination such as ``?!`` or
   ``...``) followed by optional closing quotes/brackets and then whitespace
   or the end of the paragraph.
2. ``.`` after a Hangul syllable also ends a sentence when the next sentence
   starts right away without a space (``했다.그리고``), which is common in
   user-written text, but only after the usual final endings (다, 요, 죠, 까,
   니, 음, 함, 임 ...).
3. Not a boundary:
   - decimals and versions (``3.5``, ``v1.2``): no space after the dot;
   - a number before ``.`` followed by another number (Korean dates
     ``2019. 4. 5.``) or at the start of a sentence (list items ``1. ``);
   - Latin abbreviations (``Dr.``, ``U.S.``, ``etc.``, single initials
     ``J. R. R.``);
   - an ellipsis (``..``, ``...``, ``…``) after a syllable that is not a final
     ending: in Korean web text an ellipsis is usually a pause inside the
     sentence (``생각하면.. 또 가슴이``);
   - a candidate inside a bracket pair or a quotation that closes later in
     the same paragraph (``그는 "왜? 정말?"이라고 물었다``), within 300 characters.

Every sentence is returned stripped; no characters are dropped or changed
inside a sentence.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_TERMINAL = ".?!…。．？！"
_CLOSERS = "\"'”’)]}」』》〉）］｝>"
_OPEN_TO_CLOSE = {
    "(": ")",
    "[": "]",
    "{": "}",
    "「": "」",
    "『": "』",
    "《": "》",
    "〈": "〉",
    "（": "）",
    "［": "］",
    "“": "”",
    "‘": "’",
}
_SYMMETRIC_QUOTES = {'"', "'"}
_MAX_QUOTE_SPAN = 300

#: Final endings after which a Korean sentence usually stops (last syllable).
FINAL_SYLLABLES = frozenset("다요죠까니음함임됨냐네군지자라래세오여야어아해게걸데")

#: Hangul list enumerators (가. 나. 다. ...), not sentence ends when they stand alone.
_LIST_MARKERS = frozenset("가나다라마바사아자차카타파하")

#: Latin abbreviations that are followed by a dot but rarely end a sentence.
ABBREVIATIONS = frozenset(
    a.lower()
    for a in (
        "Mr Mrs Ms Dr Prof Sr Jr St Mt vs etc al eg e.g ie i.e cf No Vol Inc Ltd Co Corp "
        "Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec approx dept est fig ft lb oz "
        "pp p ed eds Gen Col Lt Sgt Capt Gov Sen Rep Rev Ph.D U.S U.K U.N a.m p.m"
    ).split()
)

_CANDIDATE = re.compile(
    r"([.?!…。．？！]+)([\"'”’)\]}」』》〉）］｝]*)(?=\s|$|[가-힣\"'“‘(\[])",
)
_WORD_BEFORE = re.compile(r"([A-Za-z.]+|[0-9]+|[가-힣]+)$")
_HANGUL = re.compile(r"[가-힣]")


def _latin(ch: str) -> bool:
    return ch.isascii() and ch.isalpha()


def _is_hangul(ch: str) -> bool:
    return "가" <= ch <= "힣"


def _token_start(before: str, idx: int) -> bool:
    return idx == 0 or before[idx - 1].isspace() or before[idx - 1] in "([<"


def _inside_open_pair(par: str, pos: int, start: int) -> bool:
    """True when `pos` lies inside a bracket/quote opened after `start` that closes later."""
    stack: list[str] = []
    symmetric_open: dict[str, int] = {}
    for i in range(start, pos):
        ch = par[i]
        if ch in _OPEN_TO_CLOSE:
            stack.append(_OPEN_TO_CLOSE[ch])
        elif stack and ch == stack[-1]:
            stack.pop()
        elif ch in _SYMMETRIC_QUOTES:
            # An apostrophe inside a Latin word (don't) is not a quote.
            if ch == "'" and 0 < i < len(par) - 1 and _latin(par[i - 1]) and _latin(par[i + 1]):
                continue
            if ch in symmetric_open:
                del symmetric_open[ch]
            else:
                symmetric_open[ch] = i
    window = par[pos : pos + _MAX_QUOTE_SPAN]
    if stack and stack[-1] in window:
        return True
    return any(q in window for q in symmetric_open)


def _is_boundary(par: str, m: re.Match, sent_start: int) -> bool:
    punct, closers = m.group(1), m.group(2)
    end = m.end()
    after = par[end : end + 1]
    attached = after != "" and not after.isspace()
    before = par[sent_start : m.start()]
    wm = _WORD_BEFORE.search(before)
    word = wm.group(1) if wm else ""
    last = before[-1:] if before else ""
    if not before.strip():
        return False  # punctuation only: keep with the next sentence
    if attached:
        # No space after: only "다." style endings (or ?! after them) directly before Hangul.
        if closers:
            return _is_hangul(last) and last in FINAL_SYLLABLES and _is_hangul(after)
        if not _is_hangul(last) or last not in FINAL_SYLLABLES:
            return False
        if punct != "." or not (_is_hangul(after) or after in "\"'“‘(["):
            return False
        return True
    ellipsis = "…" in punct or punct.count(".") + punct.count("．") >= 2
    if ellipsis and not any(c in punct for c in "?!？！"):
        return _is_hangul(last) and last in FINAL_SYLLABLES
    if punct in (".", "．") and not closers:
        if word.isdigit():
            return False  # list numbers (1.), dates (2019. 4. 5. / 5.16.), rarely an ending
        if len(word) == 1 and word in _LIST_MARKERS and _token_start(before, wm.start()):
            return False  # Korean enumerators 가. 나. 다.
        if word and word[0].isascii() and word[0].isalpha():
            w = word.lower().rstrip(".")
            if w in ABBREVIATIONS or len(w) == 1 or re.fullmatch(r"([a-z]\.)+[a-z]", w):
                return False
    return not _inside_open_pair(par, m.end(), sent_start)


def split_paragraph(par: str) -> Iterator[str]:
    """Yields the sentences of one paragraph (a text without newlines)."""
    start = 0
    for m in _CANDIDATE.finditer(par):
        if m.end() <= start:
            continue
        if _is_boundary(par, m, start):
            sent = par[start : m.end()].strip()
            if sent:
                yield sent
            start = m.end()
    rest = par[start:].strip()
    if rest:
        yield rest


def split_sentences(document: str) -> list[str]:
    """Splits a (normalised) document into sentences; newlines always end a sentence."""
    out: list[str] = []
    for par in document.split("\n"):
        if par.strip():
            out.extend(split_paragraph(par))
    return out
