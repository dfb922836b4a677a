"""YNAT (topic classification of Yonhap news titles): the official JSON and the DACON copy.

Official ``ynat-v1.1_{train,dev}.json``: a JSON array of ``{guid, title, label,
predefined_news_category, annotations, url, date}``; ``label`` is the topic
name. The model input is the title only.

DACON competition 235747 re-split YNAT train+dev into ``train_data.csv``
(``index,title,topic_idx``) and an unlabelled ``test_data.csv``. Rows with
index 0..36546 are 36,547 labelled YNAT *train* titles; rows from 36547 on
are the YNAT *dev* set in order (``ynat-v1_dev_%05d`` = index - 36547), so
they must never be used as train data. `read_dacon` enforces that split.
Official train guids cannot be recovered for the DACON rows, so they get
``ynat-dacon_train_%05d`` (the DACON index).
"""

from __future__ import annotations

import csv
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from corpus.klue.files import FieldReader, SplitFile, iter_objects
from corpus.textio import InputError, OnError, Quarantine, handle

#: Topic names in KLUE's label order (= DACON ``topic_idx`` 0..6).
LABELS = ("IT과학", "경제", "사회", "생활문화", "세계", "스포츠", "정치")
#: First DACON ``train_data.csv`` index that belongs to YNAT dev.
DACON_DEV_START = 36547
DACON_DIR = "ynat-v1.1-dacon"


@dataclass(frozen=True)
class YnatExample:
    """One news title with its topic name; the official-only fields are None for DACON rows."""

    guid: str
    title: str
    label: str | None
    url: str | None = None
    date: str | None = None
    predefined_news_category: str | None = None
    annotations: dict[str, Any] | None = field(default=None, compare=False, hash=False)

    @property
    def label_id(self) -> int:
        return LABELS.index(self.label)


def _parse(f: FieldReader) -> YnatExample:
    label = f.str("label")
    if label not in LABELS:
        raise f.error(f"unknown label: {label!r} (expected one of {', '.join(LABELS)})")
    return YnatExample(
        guid=f.str("guid"),
        title=f.str("title"),
        label=label,
        url=f.str("url", optional=True),
        date=f.str("date", optional=True),
        predefined_news_category=f.str("predefined_news_category", optional=True),
        annotations=f.dict("annotations", optional=True),
    )


def read(
    source: SplitFile, *, on_error: OnError = "raise", quarantine: Quarantine | None = None
) -> Iterator[YnatExample]:
    """Reads an official ``ynat-v1.1_<split>.json``."""
    return iter_objects(source, _parse, on_error=on_error, quarantine=quarantine)


def read_topic_dict(path: str | os.PathLike) -> dict[int, str]:
    """Reads DACON ``topic_dict.csv`` (``topic,topic_idx``) into ``{topic_idx: name}``."""
    source = SplitFile(Path(path))
    out: dict[int, str] = {}
    for lineno, row in _csv_rows(source, ["topic", "topic_idx"], "raise", None):
        try:
            idx = int(row[1])
        except ValueError as e:
            raise InputError(source.name, lineno, f"bad value: topic_idx {row[1]!r}") from e
        out[idx] = row[0]
    if not out:
        raise InputError(source.name, None, "empty file: no topics")
    return out


def _csv_rows(source: SplitFile, header: list[str], on_error, quarantine):
    """Yields ``(line, fields)`` of a one-record-per-line CSV after checking its header."""
    lines = source.lines(on_error=on_error, quarantine=quarantine)
    first = next(lines, None)
    if first is None:
        raise InputError(source.name, None, f"empty file: expected CSV header {','.join(header)}")
    got = next(csv.reader([first[1]]))
    if got != header:
        raise InputError(
            source.name,
            first[0],
            f"wrong columns: expected {','.join(header)}, got {','.join(got)}",
        )
    for lineno, line in lines:
        if not line:
            continue
        row = next(csv.reader([line]))
        if len(row) != len(header):
            err = InputError(
                source.name, lineno, f"wrong columns: expected {len(header)} fields, got {len(row)}"
            )
            handle(err, on_error, quarantine, line.encode("utf-8"))
            continue
        yield lineno, row


def read_dacon(
    dacon_dir: str | os.PathLike,
    split: str,
    *,
    on_error: OnError = "raise",
    quarantine: Quarantine | None = None,
) -> Iterator[YnatExample]:
    """Reads the DACON copy: ``train`` = labelled rows 0..36546, ``dev`` = rows 36547.. .

    ``test`` yields the 9,131 unlabelled YNAT train titles of ``test_data.csv``
    (label None), useful only as benchmark text. Row indices must run 0, 1, 2...
    in order; otherwise the train/dev boundary could not be trusted.
    """
    root = Path(dacon_dir)
    if split == "test":
        yield from _read_dacon_test(root, on_error, quarantine)
        return
    if split not in ("train", "dev"):
        raise ValueError(f"DACON YNAT has splits train, dev, test; not {split!r}")
    topics = read_topic_dict(root / "topic_dict.csv")
    for idx, name in topics.items():
        if idx >= len(LABELS) or LABELS[idx] != name:
            raise InputError(
                root / "topic_dict.csv", None, f"bad value: topic {idx} is {name!r}, not KLUE's"
            )
    source = SplitFile(root / "train_data.csv")
    header = ["index", "title", "topic_idx"]
    expected = 0
    for lineno, (index, title, topic) in _csv_rows(source, header, on_error, quarantine):
        try:
            idx, label_id = int(index), int(topic)
        except ValueError:
            err = InputError(source.name, lineno, "bad value: index and topic_idx must be integers")
            handle(err, on_error, quarantine, f"{index},{topic}".encode())
            expected += 1
            continue
        if idx != expected:  # structural: the train/dev boundary depends on the order
            raise InputError(source.name, lineno, f"bad value: index {idx}, expected {expected}")
        expected = idx + 1
        if label_id not in topics:
            err = InputError(source.name, lineno, f"unknown label: topic_idx {label_id}")
            handle(err, on_error, quarantine)
            continue
        is_dev = idx >= DACON_DEV_START
        if (split == "dev") != is_dev:
            continue
        guid = (
            f"ynat-v1_dev_{idx - DACON_DEV_START:05d}" if is_dev else f"ynat-dacon_train_{idx:05d}"
        )
        yield YnatExample(guid=guid, title=title, label=topics[label_id])


def _read_dacon_test(root: Path, on_error, quarantine) -> Iterator[YnatExample]:
    source = SplitFile(root / "test_data.csv")
    for _, (index, title) in _csv_rows(source, ["index", "title"], on_error, quarantine):
        yield YnatExample(guid=f"ynat-dacon_test_{index}", title=title, label=None)


def find_dacon(klue_dir: str | os.PathLike) -> Path | None:
    """The DACON folder under `klue_dir` when it holds ``train_data.csv``."""
    path = Path(klue_dir) / DACON_DIR
    return path if (path / "train_data.csv").is_file() else None
