"""Personal-information detection and pseudonymisation for Korean text (16 types).

* `corpus.pii.detectors`: one registered detector per type (pattern + validator).
* `corpus.pii.scan`: `Scanner` / `find_spans`, one combined pass per text; its cheap
  gates in `corpus.pii.gates`.
* `corpus.pii.address_rules`: when a number after a road or lot name is an address.
* `corpus.pii.width`: full-width forms folded to ASCII, offsets kept.
* `corpus.pii.generate`: `Pseudonymizer`, same-shape deterministic replacements, each
  type's candidates drawn by `corpus.pii.generators`.
* `corpus.pii.copies`: every other occurrence of a detected value gets its pseudonym.
* `corpus.pii.testset` / `corpus.pii.evaluate`: the labelled set and its metrics.
* `corpus.pii.realstyle`: a labelled set of the forms people write (issue #24).

    >>> from corpus.pii import Pseudonymizer
    >>> text, spans = Pseudonymizer(seed=1).apply("연락처 010-2345-6789")
"""

from corpus.pii.detectors import REGISTRY, TYPES
from corpus.pii.generate import Pseudonymizer
from corpus.pii.scan import Scanner, Span, find_spans

__all__ = ["REGISTRY", "TYPES", "Pseudonymizer", "Scanner", "Span", "find_spans"]
