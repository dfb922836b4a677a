"""The final-sound class of a value, for the agreement of the Korean particle after it.

Korean particles come in pairs chosen by the last sound of the word before them:
이/가, 은/는, 을/를, 과/와, 이다/다 by whether it ends in a consonant (batchim),
and 로/으로 by whether it ends in a consonant other than ㄹ. A pseudonym must end
in the same class as the original, or ``…1000으로`` (천, ㄴ) becomes ``…91으로``
(구십일, ㄹ: should be 로).

The class of a value is that of its last letter, digit or Hangul syllable
(punctuation and masks such as ``*`` are read past; a closing parenthesis at the
end is an aside, ``…152 (역삼동)``, and the word before it counts):

* Hangul: its batchim (none, ㄹ, or another).
* A digit, read as a number: a final 1/7/8 ends in ㄹ (일, 칠, 팔); 2/4/5/9 in a
  vowel (이, 사, 오, 구); 0/3/6 in another consonant (영/십/백/천/만, 삼, 육). A
  trailing 0 ends in a consonant however the number is read (영, 공, 십, 백, 천, 만).
* A Latin letter, spelled: L and R end in ㄹ (엘, 알), M and N in another consonant
  (엠, 엔), the rest in a vowel (에이, 비, 씨 …).
"""

from __future__ import annotations

VOWEL = "V"  # no batchim: 가, 는, 를, 와, 다, 로
RIEUL = "L"  # ㄹ batchim: 이, 은, 을, 과, 이다, 로
CONSONANT = "C"  # another batchim: 이, 은, 을, 과, 이다, 으로

_DIGIT = {0: CONSONANT, 1: RIEUL, 2: VOWEL, 3: CONSONANT, 4: VOWEL,
          5: VOWEL, 6: CONSONANT, 7: RIEUL, 8: RIEUL, 9: VOWEL}  # fmt: skip
_LETTER = {"L": RIEUL, "R": RIEUL, "M": CONSONANT, "N": CONSONANT}


def final_class(value: str) -> str | None:
    """`VOWEL`, `RIEUL` or `CONSONANT` for the last sound of `value`; None if it has none."""
    value = value.rstrip()
    if value.endswith(")") and "(" in value:  # an aside: the particle follows the word before it
        value = value[: value.rindex("(")]
    for c in reversed(value):
        if "가" <= c <= "힣":
            jong = (ord(c) - 0xAC00) % 28
            return VOWEL if jong == 0 else RIEUL if jong == 8 else CONSONANT
        if c.isdigit():
            return _DIGIT[int(c)]
        if c.isascii() and c.isalpha():
            return _LETTER.get(c.upper(), VOWEL)
    return None


def particle(value: str, pair: str) -> str:
    """The member of a particle pair that agrees with `value`: ``particle("101동", "이/가")``.

    Pairs are written consonant form first: 이/가, 은/는, 을/를, 과/와, 으로/로,
    이다/다. After ㄹ, 으로/로 takes 로. For tests and documentation.
    """
    after_consonant, after_vowel = pair.split("/")
    cls = final_class(value)
    if cls == VOWEL or (cls == RIEUL and after_consonant == "으로"):
        return after_vowel
    return after_consonant
