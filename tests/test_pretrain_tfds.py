"""The pretraining examples read through TFDS (`pretrain.tfds_examples`) equal what was written."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("tensorflow_datasets")

from pretrain import example_store, tfds_examples  # noqa: E402


def _folder(root, shard_sizes):
    dtype = np.dtype("<u2")
    written, shards = [], []
    for s, size in enumerate(shard_sizes):
        name = f"examples-{s:05d}-of-{len(shard_sizes):05d}"
        w = example_store.ShardWriter(root / name, dtype)
        for i in range(size):
            ex = example_store.StoredExample(
                np.arange(4 + i + 10 * s, dtype=np.uint16), 2, np.array([1]), np.array([7]), i % 2
            )
            w.write(ex)
            written.append(ex)
        w.close()
        shards.append({"file": name, "examples": size})
    manifest = {"shards": shards, "examples": len(written), "token_dtype": dtype.str}
    (root / "manifest.json").write_text(json.dumps(manifest))
    return written


def test_tfds_data_source_reads_the_shards(tmp_path):
    written = _folder(tmp_path, [3, 2])
    source = tfds_examples.data_source(tmp_path)
    assert (tmp_path / "dataset_info.json").is_file()
    assert len(source) == len(written)
    for got, want in zip((source[i] for i in range(len(source))), written, strict=True):
        assert got.input_ids.tolist() == want.input_ids.tolist()
        assert got.masked_positions.tolist() == [1] and got.masked_ids.tolist() == [7]
        assert (got.segment_b_start, got.nsp_label) == (2, want.nsp_label)


def test_unexpected_shard_names_are_refused(tmp_path):
    _folder(tmp_path, [1])
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    manifest["shards"][0]["file"] = "part-0"
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ValueError, match="does not follow"):
        tfds_examples.write_metadata(tmp_path)
