"""Text normalisation applied to every raw document before sentence splitting.

What and why:
- Unicode NFC, so that a Hangul syllable typed as decomposed jamo (NFD, as some
  macOS tools write it) and the precomposed syllable hash and tokenise the same.
- Control characters (Unicode category Cc other than newline) are replaced by a
  space: a stray ``\\x0b`` or ``\\x1f`` in a web crawl would otherwise survive
  into the tokenizer's vocabulary.
- Invisible format characters (zero-width space, BOM, soft hyphen, word
  joiner, bidi marks) are deleted: they split words without showing.
- Odd whitespace (no-break space, ideographic space, en/em spaces, line and
  paragraph separators) becomes a plain space; runs of spaces collapse to one.
- Newlines are kept (as paragraph boundaries for the splitter) by
  `normalize_document`; `normalize_text` turns them into spaces too.

ZWJ (U+200D) is kept: it joins emoji sequences and deleting it changes what
the text shows.
"""

from __future__ import annotations

import re
import unicodedata

#: Format characters deleted outright (category Cf, minus ZWJ which emoji need).
_DELETE = {
    "\u00ad",  # soft hyphen
    "\u200b",  # zero-width space
    "\u200c",  # zero-width non-joiner
    "\u200e",  # left-to-right mark
    "\u200f",  # right-to-left mark
    "\u2060",  # word joiner
    "\ufeff",  # BOM / zero-width no-break space
    "\u202a",
    "\u202b",
    "\u202c",
    "\u202d",
    "\u202e",  # bidi embeddings and overrides
    "\u2066",
    "\u2067",
    "\u2068",
    "\u2069",  # bidi isolates
}

#: Characters that act as a space.
_SPACES = "\t\x0b\x0c\u00a0\u1680\u202f\u205f\u3000" + "".join(
    chr(c) for c in range(0x2000, 0x200B)
)
_LINE_BREAKS = "\r\x1c\x1d\x1e\x85\u2028\u2029"


def _build_table() -> dict[int, str | None]:
    table: dict[int, str | None] = {}
    for cp in range(0x20):
        if chr(cp) != "\n":
            table[cp] = " "
    for cp in range(0x7F, 0xA0):
        table[cp] = " "
    for ch in _SPACES:
        table[ord(ch)] = " "
    for ch in _LINE_BREAKS:
        table[ord(ch)] = "\n"
    for ch in _DELETE:
        table[ord(ch)] = None
    return table


_TABLE = _build_table()
_RUN_OF_SPACES = re.compile(r"[ ]{2,}")
_SPACE_AROUND_NEWLINE = re.compile(r" *\n *")
_MANY_NEWLINES = re.compile(r"\n{3,}")
_ANY_WS = re.compile(r"\s+")
#: A run of characters that are neither letters nor digits (punctuation, symbols, spaces,
#: underscores): what `match_key` strips and BM25 tokens may not be alone.
NON_WORD = re.compile(r"[\W_]+")
#: What `dedup_key` removes from NFC text, in one class: whitespace and every character
#: `_TABLE` makes a space or a newline or deletes. Case folding maps none of them to a kept
#: character nor a kept one to them (tested on every code point), so ``DEDUP_GONE.sub("",
#: NFC(text).casefold())`` is `dedup_key(text)` in one regular expression instead of
#: `str.translate` and two (`match_key` uses it so).
DEDUP_GONE = re.compile("[\\s" + re.escape("".join(map(chr, _TABLE))) + "]+")


def normalize_document(text: str) -> str:
    """NFC + cleaned controls/whitespace, keeping single and double newlines.

    ``\\r\\n`` and the Unicode line/paragraph separators become ``\\n``; three or
    more newlines collapse to a paragraph break (two).
    """
    text = text.replace("\r\n", "\n")
    text = unicodedata.normalize("NFC", text).translate(_TABLE)
    text = _RUN_OF_SPACES.sub(" ", text)
    text = _SPACE_AROUND_NEWLINE.sub("\n", text)
    text = _MANY_NEWLINES.sub("\n\n", text)
    return text.strip()


def normalize_text(text: str) -> str:
    """`normalize_document` for one line of text: every whitespace run becomes one space."""
    text = unicodedata.normalize("NFC", text).translate(_TABLE)
    return _ANY_WS.sub(" ", text).strip()


def dedup_key(text: str) -> str:
    """The form two sentences must share to count as exact duplicates.

    Normalised text, case-folded, with all whitespace removed: Korean spacing
    is notoriously inconsistent (``할 수 있다`` / ``할수 있다``), so two
    sentences that differ only in spacing are the same sentence for dedup.
    """
    return _ANY_WS.sub("", normalize_text(text).casefold())


#: Keys of ASCII letters, digits and Hangul syllables only (no symbol among them): most.
_PLAIN_KEY = re.compile(r"[0-9a-z\uac00-\ud7a3]*")
#: Text that `match_key` keys without normalising, once its whitespace is removed: printable
#: ASCII, Hangul syllables, CJK unified ideographs and the punctuation kowiki writes most
#: (``·‘’“”〈〉《》「」『』``). NFC and NFKC leave each of them as it is, none combines with
#: a neighbour (no combining class, never the second of a composition), case folding is
#: `str.lower` on those kept: tested on each character.
_SIMPLE = re.compile(r"[!-~\u00b7\u2018\u2019\u201c\u201d\u3008-\u300f\u4e00-\u9fff\uac00-\ud7a3]*")
#: The characters of `_SIMPLE` that a key keeps (letters and digits; the rest are removed).
_SIMPLE_WORD = re.compile(r"[0-9A-Za-z\u4e00-\u9fff\uac00-\ud7a3]+")


def match_key(text: str) -> str:
    """`dedup_key` in NFKC without punctuation and symbols: the form exact matches compare.

    NFKC folds compatibility characters: KLUE's NSMC sentences write ``ᄏᄏ`` with
    conjoining jamo where the reviews have compatibility jamo ``ㅋㅋ``. Symbols
    (Unicode category S) are looked for only in a key with characters other than ASCII
    letters, digits and Hangul syllables (none of which is one).

    Computed in both passes of `corpus.dedup`, so by two shortcuts with the same keys
    (tests/test_corpus_matching.py compares them with the composition
    ``NON_WORD.sub("", NFKC(dedup_key(text)))`` on every BMP character in context, odd
    whitespace, jamo and 20,000 kowiki sentences). Text of `_SIMPLE` characters and
    whitespace (19,569 of those 20,000) needs no normalisation: the key is its letters
    and digits, lowered. Other text loses what `dedup_key` removes in one regular
    expression (`DEDUP_GONE`), still before NFKC: a removed space between two
    conjoining jamo lets NFKC compose them.
    """
    bare = "".join(text.split())
    if _SIMPLE.fullmatch(bare):
        return "".join(_SIMPLE_WORD.findall(bare)).lower()
    folded = DEDUP_GONE.sub("", unicodedata.normalize("NFC", text).casefold())  # dedup_key
    key = NON_WORD.sub("", unicodedata.normalize("NFKC", folded))
    if _PLAIN_KEY.fullmatch(key):
        return key
    return "".join(c for c in key if unicodedata.category(c)[0] != "S")
