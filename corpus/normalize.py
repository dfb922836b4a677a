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
#: underscores): what `corpus.matching.match_key` strips and BM25 tokens may not be alone.
NON_WORD = re.compile(r"[\W_]+")
#: What `dedup_key` removes from NFC text, in one class: whitespace and every character
#: `_TABLE` makes a space or a newline or deletes. Case folding maps none of them to a kept
#: character nor a kept one to them (tested on every code point), so ``DEDUP_GONE.sub("",
#: NFC(text).casefold())`` is `dedup_key(text)` in one regular expression instead of
#: `str.translate` and two (`corpus.matching.match_key` uses it so).
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
