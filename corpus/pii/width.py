"""Full-width characters folded to ASCII, one character for one, so offsets do not move.

People type personal values with an IME left in full-width mode: ``０１０－１２３４－５６７８``,
``hong＠naver．com``. The detectors are written for ASCII, so the scanner reads a
folded copy of the text (`fold`), in which every full-width form (U+FF01-U+FF5E)
is its ASCII twin and the ideographic space (U+3000) a space. Folding never
changes the length, so a span found in the copy is the same span in the original.

A pseudonym is drawn for the folded value (a value typed in full width and in ASCII
is one value, with one pseudonym) and written back in the original's width
(`widen_like`), so the text around it keeps its look.
"""

from __future__ import annotations

import re

_WIDE = "".join(chr(c) for c in range(0xFF01, 0xFF5F)) + "\u3000"
_NARROW = "".join(chr(c) for c in range(0x21, 0x7F)) + " "
_FOLD = str.maketrans(_WIDE, _NARROW)
_WIDEN = str.maketrans(_NARROW[:-1], _WIDE[:-1])
_HAS_WIDE = re.compile(f"[{re.escape(_WIDE)}]")
_WIDE_RUN = re.compile(f"[{re.escape(_WIDE)}]+")


#: Full-width characters that a value can start with or hold: digits, "＠", "－", "＋".
_WIDE_VALUE = "\uff10-\uff19\uff20\uff0d\uff0b"
#: Those and the "ａ" of a full-width "ａｔ" written for "@" ("id ａｔ naver.com"): the fast
#: scan looks for them as candidates (`corpus.pii.scan`) and folds on the first that
#: `WIDE_FOLD` matches at.
WIDE_STARTS = _WIDE_VALUE + "\uff41"
_WIDE_DIGIT = "0-9\uff10-\uff19"
#: Where a text needs folding: a full-width digit or "＠", or a full-width "－"/"＋" next to
#: a digit (a space between them or not: "010 － 1234", "＋82"). Korean Wikipedia writes
#: "－" and "＋" between words ("－느리다", "＋비례"), where folding changes no value: 11 of
#: the first 2,448 articles hold no other full-width form, and each was scanned twice.
#: A full-width "ａｔ" between spaces is "@" written out ("taeyang.s24 ａｔ naver.com"): folded,
#: the e-mail detector reads its " at ". Alternatives that start with a class or a literal:
#: the scan's gates try them only on these.
WIDE_FOLD = (
    f"[{_WIDE_VALUE}](?:(?<=[\uff10-\uff19\uff20])|(?<=[{_WIDE_DIGIT}][\uff0d\uff0b])"
    f"|(?<=[{_WIDE_DIGIT}] [\uff0d\uff0b])|(?=\\s?[{_WIDE_DIGIT}]))"
    "|\uff41(?<= \uff41)(?=\uff54 )"
)
_STARTS = re.compile(WIDE_FOLD)


def needs_fold(text: str) -> bool:
    """True when `text` holds a full-width digit or "＠", a "－"/"＋" next to a digit or a
    spaced "ａｔ" (`WIDE_FOLD`): only then is it folded.

    (A full-width comma or space alone, next to ASCII values, is left as it is; the fast
    scan finds these characters as candidates, the reference scan with this test.)
    """
    return _STARTS.search(text) is not None


def has_wide(text: str) -> bool:
    """True when `text` holds a full-width form or an ideographic space."""
    return _HAS_WIDE.search(text) is not None


def fold(text: str) -> str:
    """`text` with full-width forms as ASCII (same length; the text itself if it has none).

    Only the runs of full-width characters are translated: ``str.translate`` over a
    whole Korean article costs more than the scan of it.
    """
    return _WIDE_RUN.sub(_fold_run, text)


def _fold_run(m: re.Match) -> str:
    return m.group().translate(_FOLD)


def widen_like(new: str, original: str) -> str:
    """`new` written full-width where `original` is (same-length values: by position).

    Values whose length changed (an address) are widened whole when the original
    is mostly full-width, else left ASCII.
    """
    if not has_wide(original):
        return new
    if len(new) == len(original):
        return "".join(
            ("\u3000" if n == " " else n.translate(_WIDEN)) if _HAS_WIDE.match(o) else n
            for n, o in zip(new, original, strict=True)
        )
    wide = sum(1 for c in original if _HAS_WIDE.match(c))
    ascii_ = sum(1 for c in original if c.isascii() and not c.isspace())
    return new.translate(_WIDEN) if wide > ascii_ else new
