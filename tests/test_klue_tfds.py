"""The TFDS builder of KLUE (`corpus.klue.tfds_builder`) gives what our readers give."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

tfds = pytest.importorskip("tensorflow_datasets")
pytest.importorskip("importlib_resources")  # tfds's ArrayRecord writer needs it

from corpus import klue  # noqa: E402
from corpus.klue import tfds_builder  # noqa: E402

FIXTURES = Path(__file__).parent / "fixtures" / "klue"


def _plain(value):
    """TFDS NumPy values (bytes, arrays, nested dicts) as plain Python values."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if isinstance(value, np.ndarray):
        return [_plain(v) for v in value.tolist()] if value.ndim else _plain(value.item())
    if isinstance(value, np.generic):
        return value.item()
    return value


def _expected(task: str, split: str, info) -> list[dict]:
    """`corpus.klue.load` records, with class labels as their ids (as TFDS returns them)."""
    out = []
    for ex in klue.load(task, split, FIXTURES):
        rec = tfds_builder.to_record(task, ex)
        for name, feature in info.features.items():
            if isinstance(feature, tfds.features.ClassLabel) and isinstance(rec[name], str):
                rec[name] = feature.str2int(rec[name])
            if isinstance(feature, tfds.features.Sequence) and isinstance(
                feature.feature, tfds.features.ClassLabel
            ):
                rec[name] = [feature.feature.str2int(t) for t in rec[name]]
        if task == "sts":
            rec = {
                **rec,
                "label": pytest.approx(rec["label"]),
                "real_label": pytest.approx(rec["real_label"]),
            }
        out.append(rec)
    return out


def _unnest(task: str, rec: dict) -> dict:
    """TFDS returns a Sequence of dicts as a dict of lists; back to a list of dicts."""
    for key in {"dp": ["words"], "mrc": ["answers", "plausible_answers"]}.get(task, []):
        cols = rec[key]
        n = len(next(iter(cols.values()))) if cols else 0
        rec[key] = [{k: v[i] for k, v in cols.items()} for i in range(n)]
    return rec


@pytest.mark.parametrize("task", klue.TASKS)
def test_tfds_records_equal_reader(task, tmp_path):
    builder = tfds_builder.prepare(task, FIXTURES, tmp_path)
    splits = klue.available_splits(FIXTURES)[task]
    assert sorted(builder.info.splits) == splits
    for split in splits:
        source = tfds.data_source(f"klue/{task}", split=split, data_dir=os.fspath(tmp_path))
        got = [_unnest(task, _plain(source[i])) for i in range(len(source))]
        assert got == _expected(task, split, builder.info)


def test_wos_dialogue_json_round_trips(tmp_path):
    tfds_builder.prepare("wos", FIXTURES, tmp_path)
    source = tfds.data_source("klue/wos", split="train", data_dir=os.fspath(tmp_path))
    first = klue.load("wos", "train", FIXTURES)[0]
    turns = json.loads(source[0]["dialogue"])
    assert [t["text"] for t in turns] == [t.text for t in first.turns]
    assert [tuple(t["state"]) if "state" in t else None for t in turns] == [
        t.state if t.state else None for t in first.turns
    ]


def test_missing_task_files_name_the_folder(tmp_path):
    (tmp_path / "klue").mkdir()
    (tmp_path / "klue" / "README.txt").write_text("no task files here\n")
    with pytest.raises(FileNotFoundError, match="no KLUE ynat files"):
        tfds_builder.prepare("ynat", tmp_path / "klue", tmp_path / "out")
