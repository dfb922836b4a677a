"""Sentence filters for `corpus.prepare`, dolma style: small registered steps that
first *measure* a sentence (a tag value) and then *act* on the measurement.

Keeping the two apart means a run can record what every filter saw (for
stats and for tuning) while the decision rule stays a one-liner that is easy to
test and to change from the command line.

Registered filters (see `FILTERS`):

- ``min_chars``: the sentence's length in characters; removed as
  ``too_short`` below the source's minimum. The KLUE paper kept only sentences
  of at least 200 characters from CC-100 and NEWSCRAWL (`PAPER_MIN_CHARS`);
  other sources keep every non-empty sentence unless ``--min-chars`` says
  otherwise.
- ``exact_dup``: a 64-bit BLAKE2b hash of `corpus.normalize.dedup_key` (NFC,
  case-folded, whitespace removed); removed as ``duplicate`` when the hash was
  seen before in the same shard. Cross-shard duplicates are removed by the
  global pass in `corpus.prepare` (hash-partitioned, bounded memory).

With 64-bit hashes the chance of any collision among 10^9 distinct sentences
is about 3%, i.e. at most a handful of sentences wrongly dropped in a
62 GB corpus; the hash is what makes the global pass cheap (8 bytes per
sentence on disk, never the text).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from corpus.normalize import dedup_key

#: The paper's minimum sentence length (characters) per source; others default to 0.
PAPER_MIN_CHARS = {"cc-100": 200, "cc100": 200, "newscrawl": 200}

FILTERS: dict[str, Callable[..., Filter]] = {}


def register(name: str):
    """Class decorator adding a filter factory to `FILTERS` under `name`."""

    def wrap(cls):
        FILTERS[name] = cls
        cls.name = name
        return cls

    return wrap


class Filter:
    """A filter step: ``measure(text) -> value`` then ``act(value) -> reason | None``."""

    name = "filter"
    reason = "filtered"

    def measure(self, text: str) -> Any:  # pragma: no cover - interface
        raise NotImplementedError

    def act(self, value: Any) -> str | None:  # pragma: no cover - interface
        raise NotImplementedError

    def __call__(self, text: str) -> str | None:
        return self.act(self.measure(text))


def min_chars_for(source: str, override: int | None = None) -> int:
    """The minimum length for `source`: `override` if given, else the paper's table, else 0."""
    if override is not None:
        return override
    return PAPER_MIN_CHARS.get(source.lower(), 0)


@register("min_chars")
@dataclass
class MinChars(Filter):
    """Removes sentences shorter than `min_chars` characters (after normalisation)."""

    min_chars: int = 0
    reason: str = "too_short"

    def measure(self, text: str) -> int:
        return len(text)

    def act(self, value: int) -> str | None:
        return self.reason if value < self.min_chars else None


def sentence_hash(text: str) -> int:
    """64-bit hash of the dedup key (unsigned int)."""
    digest = hashlib.blake2b(dedup_key(text).encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big")


@register("exact_dup")
@dataclass
class ExactDup(Filter):
    """Removes a sentence whose normalised hash was already seen by this filter instance.

    Memory: one Python int per distinct kept sentence of the shard (about 70
    bytes); shards are input files, so a very large single file should be cut
    into parts of a few million sentences.
    """

    reason: str = "duplicate"
    seen: set[int] = field(default_factory=set)

    def measure(self, text: str) -> int:
        return sentence_hash(text)

    def act(self, value: int) -> str | None:
        if value in self.seen:
            return self.reason
        self.seen.add(value)
        return None


def build_filters(source: str, min_chars: int | None = None) -> list[Filter]:
    """The prepare stage's filter chain for one source, in the order they apply."""
    return [
        FILTERS["min_chars"](min_chars=min_chars_for(source, min_chars)),
        FILTERS["exact_dup"](),
    ]
