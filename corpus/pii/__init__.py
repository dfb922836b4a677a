"""Personal-information detection and pseudonymisation for Korean text (16 types).

* `corpus.pii.detectors`: one registered detector per type (pattern + validator).
* `corpus.pii.scan`: `Scanner` / `find_spans`, one combined pass per text.
* `corpus.pii.generate`: `Pseudonymizer`, same-shape deterministic replacements.
"""
