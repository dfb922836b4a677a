"""WoS (Wizard of Seoul, state tracking): ``wos-v1.1_{train,dev}.json`` + ``ontology.json``.

A JSON array of dialogues ``{guid, domains, dialogue: [{role, text, state?}]}``.
Only user turns carry ``state``: the **cumulative** belief state as
``"domain-slot-value"`` strings (``식당-가격대-dontcare``, ``식당-주류 판매-yes``).
Domains and slot names hold no ``-``, values may, so `split_state` splits on
the first two hyphens only. ``ontology.json`` maps the 45 ``"domain-slot"``
names to their value lists. The release also has ``wos-v1.1_dev_sample_10.json``
(the first 10 dev dialogues), readable as split ``dev_sample_10``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from corpus.klue.files import FieldReader, SplitFile, iter_objects
from corpus.textio import InputError, OnError, Quarantine

ROLES = ("user", "sys")


def split_state(item: str) -> tuple[str, str, str]:
    """``"식당-예약 시간-23:20"`` -> ``("식당", "예약 시간", "23:20")``; ValueError if malformed."""
    parts = item.split("-", 2)
    if len(parts) != 3 or not all(parts):
        raise ValueError(f"state item {item!r} is not 'domain-slot-value'")
    return parts[0], parts[1], parts[2]


@dataclass(frozen=True)
class Turn:
    role: str
    text: str
    state: tuple[str, ...] | None = None  # user turns only: cumulative "domain-slot-value"


@dataclass(frozen=True)
class WosDialogue:
    guid: str
    domains: tuple[str, ...]
    turns: tuple[Turn, ...]

    def user_turns(self) -> list[Turn]:
        """User turns in order; index i is the prediction unit ``<guid>:<i>``."""
        return [t for t in self.turns if t.role == "user"]


def _parse(f: FieldReader) -> WosDialogue:
    turns = []
    for i, item in enumerate(f.list("dialogue")):
        t = FieldReader(item, f.name, f.line, f"dialogue[{i}]")
        role = t.str("role")
        if role not in ROLES:
            raise t.error(f"bad value: dialogue[{i}].role {role!r}")
        state = t.list("state", optional=True)
        if role == "user" and state is None:
            raise t.error(f"missing field: 'dialogue[{i}].state' (user turn)")
        if state is not None:
            for s in state:
                if not isinstance(s, str):
                    raise t.error(f"wrong type: dialogue[{i}].state item {s!r}")
                try:
                    split_state(s)
                except ValueError as e:
                    raise t.error(f"bad value: dialogue[{i}]: {e}") from None
            state = tuple(state)
        turns.append(Turn(role=role, text=t.str("text"), state=state))
    domains = f.list("domains")
    if not all(isinstance(d, str) for d in domains):
        raise f.error("wrong type: 'domains' must be a list of strings")
    return WosDialogue(guid=f.str("guid"), domains=tuple(domains), turns=tuple(turns))


def read(
    source: SplitFile, *, on_error: OnError = "raise", quarantine: Quarantine | None = None
) -> Iterator[WosDialogue]:
    """Reads an official ``wos-v1.1_<split>.json``; a bad dialogue names its line."""
    return iter_objects(source, _parse, on_error=on_error, quarantine=quarantine)


@dataclass(frozen=True)
class Ontology:
    """The 45 ``domain-slot`` names, in file order, each with its value list."""

    slots: dict[str, tuple[str, ...]]

    def __len__(self) -> int:
        return len(self.slots)

    def domains(self) -> list[str]:
        return sorted({s.split("-", 1)[0] for s in self.slots})

    def contains(self, item: str) -> bool:
        """Whether a ``domain-slot-value`` state item is in the ontology."""
        domain, slot, value = split_state(item)
        return value in self.slots.get(f"{domain}-{slot}", ())


def read_ontology(source: SplitFile) -> Ontology:
    obj = source.json()
    if not isinstance(obj, dict) or not obj:
        raise InputError(source.name, None, "wrong type: expected a JSON object of slots")
    slots = {}
    for name, values in obj.items():
        if name.count("-") != 1 or not all(name.split("-")):
            raise InputError(source.name, None, f"bad value: slot name {name!r}")
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise InputError(source.name, None, f"wrong type: values of {name!r}")
        slots[name] = tuple(values)
    return Ontology(slots)
