"""Parquet tables as Hugging Face datasets ship Korean corpora: a record per row, found by
magic bytes, read a batch at a time, bad rows named, other columns kept as JSON can."""

from __future__ import annotations

import datetime
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from corpus import prepare
from corpus.readers import ReadOptions, detect_format, iter_records
from corpus.readers import parquet as parquet_reader
from corpus.textio import InputError, Quarantine, binary_kind
from tests.stage_outputs import shard_records


def _table(n: int = 5) -> pa.Table:
    return pa.table(
        {
            "title": [f"문서 {i}" for i in range(n)],
            "text": [f"{i}번째 문서의 본문이다. 둘째 문장." if i != 3 else "  " for i in range(n)],
            "contributors": [["a", "b"]] * n,
            "date": [datetime.date(2021, 3, 1)] * n,
            "score": [0.5 * i for i in range(n)],
        }
    )


def test_a_parquet_file_is_a_record_per_row(tmp_path):
    p = tmp_path / "hf" / "train-00000-of-00001.parquet"
    p.parent.mkdir()
    pq.write_table(_table(), p)
    assert binary_kind(p) is None and detect_format(p) == "parquet"
    opts = ReadOptions()
    recs = list(iter_records(p, options=opts))
    assert [r.id for r in recs] == [f"hf/train-00000-of-00001.parquet:{i}" for i in (1, 2, 3, 5)]
    assert recs[0].text == "0번째 문서의 본문이다. 둘째 문장." and recs[0].source == "hf"
    assert recs[1].extra == {
        "title": "문서 1", "contributors": ["a", "b"], "date": "2021-03-01", "score": 0.5,
    }  # fmt: skip
    assert opts.skipped == {"empty_document": 1}
    json.dumps([r.to_dict() for r in recs])  # every extra field is JSON


def test_rows_are_read_in_batches_and_bad_rows_named(tmp_path, monkeypatch):
    monkeypatch.setattr(parquet_reader, "BATCH_ROWS", 2)  # several batches from 5 rows
    p = tmp_path / "x.parquet"
    t = _table().set_column(1, "text", pa.array(["가.", None, "나.", "다.", "라."]))
    pq.write_table(t, p, row_group_size=2)
    with pytest.raises(InputError, match=r"x\.parquet: wrong type: row 2: 'text' is not text"):
        list(iter_records(p))
    q = Quarantine()
    recs = list(iter_records(p, on_error="skip", quarantine=q))
    assert [r.text for r in recs] == ["가.", "나.", "다.", "라."] and q.lines == 5
    assert dict(q.counts) == {"wrong type": 1}


def test_text_and_id_columns_are_chosen_or_their_absence_named(tmp_path):
    p = tmp_path / "x.parquet"
    pq.write_table(pa.table({"doc": ["문장이다."], "key": ["k1"], "source": ["뉴스"]}), p)
    with pytest.raises(InputError, match=r"no text column among \['doc', 'key', 'source'\]"):
        list(iter_records(p))
    (rec,) = iter_records(p, text_field="doc", id_field="key")
    assert (rec.id.split("/")[-1], rec.source, rec.extra) == ("x.parquet:k1", "뉴스", {"key": "k1"})
    with pytest.raises(InputError, match="no column 'nope'"):
        list(iter_records(p, text_field="doc", id_field="nope"))


def test_a_broken_parquet_file_is_named(tmp_path):
    p = tmp_path / "x.parquet"
    pq.write_table(_table(), p)
    p.write_bytes(p.read_bytes()[:200])  # the footer (the schema) is gone
    with pytest.raises(InputError, match=r"x\.parquet: not a readable Parquet file"):
        list(iter_records(p))


def test_prepare_reads_a_parquet_folder(tmp_path):
    src = tmp_path / "namuwiki_hf"
    src.mkdir()
    pq.write_table(_table(), src / "part-0.parquet")
    out = tmp_path / "records"
    prepare.main(["--input", str(src), "--output", str(out), "--workers", "1"])
    texts = [r["text"] for r in shard_records(out)]
    assert "0번째 문서의 본문이다." in texts and "둘째 문장." in texts


def test_arrow_files_as_hugging_face_datasets_keep_them(tmp_path):
    """``save_to_disk`` folders and the datasets cache hold Arrow IPC streams (``*.arrow``):
    read as the same table in Parquet is, batch by batch; the folder's JSON descriptions are
    not inputs; the IPC file format reads too; four 0xff bytes alone make no Arrow file."""
    import pyarrow as pa

    from corpus.readers import expand_inputs

    table = _table()
    folder = tmp_path / "hf" / "train"
    folder.mkdir(parents=True)
    stream = folder / "data-00000-of-00001.arrow"
    with pa.OSFile(str(stream), "wb") as f, pa.ipc.new_stream(f, table.schema) as w:
        w.write_table(table, max_chunksize=2)  # three batches
    (folder / "dataset_info.json").write_text('{"features": {}}')
    (folder / "state.json").write_text('{"_data_files": [{"filename": "data.arrow"}]}')
    assert expand_inputs([folder]) == [str(stream)]
    (tmp_path / "mine").mkdir()  # the same names away from *.arrow files: inputs as any
    (tmp_path / "mine" / "state.json").write_text('{"text": "내 문서"}')
    assert expand_inputs([tmp_path / "mine"]) == [str(tmp_path / "mine" / "state.json")]
    ipc_file = tmp_path / "hf" / "table.arrow"
    with pa.OSFile(str(ipc_file), "wb") as f, pa.ipc.new_file(f, table.schema) as w:
        w.write_table(table, max_chunksize=2)
    pq.write_table(table, tmp_path / "hf" / "same.parquet")
    want = [(r.text, r.extra) for r in iter_records(tmp_path / "hf" / "same.parquet")]
    for p in (stream, ipc_file):
        assert binary_kind(p) is None and detect_format(p) == "arrow"
        assert [(r.text, r.extra) for r in iter_records(p)] == want and len(want) == 4
    odd = tmp_path / "odd.bin"
    odd.write_bytes(b"\xff\xff\xff\xff" + bytes(range(32)) * 10)
    assert detect_format(odd) != "arrow" and binary_kind(odd) == "binary data"


def test_a_truncated_arrow_stream_is_named_and_its_rows_before_kept(tmp_path):
    import pyarrow as pa

    table = pa.table({"text": [f"{i}번째 문장이다." for i in range(3000)]})
    p = tmp_path / "cut" / "data.arrow"
    p.parent.mkdir()
    with pa.OSFile(str(p), "wb") as f, pa.ipc.new_stream(f, table.schema) as w:
        w.write_table(table, max_chunksize=1000)
    p.write_bytes(p.read_bytes()[: p.stat().st_size * 2 // 3])
    with pytest.raises(InputError, match=r"data\.arrow: malformed table after row 2000: "):
        list(iter_records(p))
    q = Quarantine()
    assert len(list(iter_records(p, on_error="skip", quarantine=q))) == 2000
    assert list(q.counts) == ["malformed table after row 2000"]
