"""RE (relation extraction): ``klue-re-v1.1_{train,dev}.json`` and ``relation_list.json``.

(The module is not called ``re`` so that it never shadows the standard library.)

A JSON array of ``{guid, sentence, subject_entity, object_entity, label,
source}``; each entity is ``{word, start_idx, end_idx, type}`` with
**inclusive** character offsets: ``sentence[start_idx:end_idx + 1] == word``.
The reader checks that equality, so an off-by-one file is caught on load.
``label`` is a relation name; its id is its position in ``relation_list.json``
(``{"relations": [...]}``, ``no_relation`` first, 30 names).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from corpus.klue.files import FieldReader, SplitFile, iter_objects
from corpus.textio import InputError, OnError, Quarantine

RELATION_LIST = "relation_list.json"


@dataclass(frozen=True)
class Entity:
    """An entity mention; `end_idx` is inclusive."""

    word: str
    start_idx: int
    end_idx: int
    type: str

    @property
    def span(self) -> tuple[int, int]:
        """Python slice bounds ``(start, end_exclusive)``."""
        return self.start_idx, self.end_idx + 1


@dataclass(frozen=True)
class ReExample:
    guid: str
    sentence: str
    subject_entity: Entity
    object_entity: Entity
    label: str
    source: str


def _entity(f: FieldReader, key: str, sentence: str) -> Entity:
    e = f.sub(key)
    ent = Entity(e.str("word"), e.int("start_idx"), e.int("end_idx"), e.str("type"))
    if not 0 <= ent.start_idx <= ent.end_idx < len(sentence):
        raise f.error(
            f"bad value: {key} offsets {ent.start_idx}..{ent.end_idx} outside the sentence "
            f"(length {len(sentence)})"
        )
    if sentence[ent.start_idx : ent.end_idx + 1] != ent.word:
        got = sentence[ent.start_idx : ent.end_idx + 1]
        raise f.error(
            f"bad value: {key}.word {ent.word!r} != sentence[{ent.start_idx}:{ent.end_idx}+1] "
            f"{got!r} (end_idx is inclusive)"
        )
    return ent


def _parse(f: FieldReader) -> ReExample:
    sentence = f.str("sentence")
    return ReExample(
        guid=f.str("guid"),
        sentence=sentence,
        subject_entity=_entity(f, "subject_entity", sentence),
        object_entity=_entity(f, "object_entity", sentence),
        label=f.str("label"),
        source=f.str("source"),
    )


def read(
    source: SplitFile,
    *,
    relations: tuple[str, ...] | None = None,
    on_error: OnError = "raise",
    quarantine: Quarantine | None = None,
) -> Iterator[ReExample]:
    """Reads an official ``klue-re-v1.1_<split>.json``; with `relations` (from
    `read_relations`) a label outside the list is an error at its line."""
    known = set(relations) if relations is not None else None

    def parse(f: FieldReader) -> ReExample:
        ex = _parse(f)
        if known is not None and ex.label not in known:
            raise f.error(f"unknown label: {ex.label!r} is not in {RELATION_LIST}")
        return ex

    return iter_objects(source, parse, on_error=on_error, quarantine=quarantine)


def read_relations(source: SplitFile) -> tuple[str, ...]:
    """The relation names in id order; ``no_relation`` must be first and names unique."""
    obj = source.json()
    f = FieldReader(obj, source.name, None)
    names = f.list("relations")
    if not names or not all(isinstance(n, str) for n in names):
        raise InputError(source.name, None, "bad value: 'relations' must be a list of names")
    if names[0] != "no_relation":
        raise InputError(source.name, None, f"bad value: first relation is {names[0]!r}")
    if len(set(names)) != len(names):
        raise InputError(source.name, None, "bad value: duplicate relation names")
    return tuple(names)
