"""The pretraining examples folder readable as a TFDS ArrayRecord dataset (`tfds` data source).

    python -m pretrain.tfds_examples EXAMPLES_DIR      # writes dataset_info.json, features.json

    from pretrain import tfds_examples
    source = tfds_examples.data_source("EXAMPLES_DIR")  # random access, len(source)
    ex = source[17]                                     # a pretrain.example_store.StoredExample

Our shards (``examples-XXXXX-of-YYYYY``, see `pretrain.example_store`) are
plain ArrayRecord files whose records are a fixed binary layout, not the
``tf.train.Example`` protos TFDS's features decode. So the folder gets TFDS
metadata only (`tfds.folder_dataset.write_metadata` with the shards' names and
lengths from ``manifest.json``; no data is rewritten, it costs milliseconds),
and is read with ``deserialize_method=RAW_BYTES``: TFDS gives the record bytes
and `pretrain.example_store.decode` decodes them. The training loader itself
(`pretrain.input_pipeline`) reads the same files through grain and does not
need this metadata.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from pretrain import example_store
from pretrain.input_pipeline import examples_manifest

NAME = "klue_pretrain_examples"
SPLIT = "train"
#: The shard names of `pretrain.build_data` (``examples-00000-of-00004``) as a TFDS template.
TEMPLATE = "examples-{SHARD_X_OF_Y}"


def _template(examples_dir: str):
    from tensorflow_datasets.core import naming

    return naming.ShardedFileTemplate(
        data_dir=examples_dir,
        template=TEMPLATE,
        dataset_name=NAME,
        split=SPLIT,
        filetype_suffix="array_record",
    )


def write_metadata(examples_dir: str | os.PathLike) -> None:
    """Writes TFDS's ``dataset_info.json`` and ``features.json`` beside the shards."""
    import tensorflow_datasets as tfds

    root = os.fspath(examples_dir)
    manifest = examples_manifest(root)
    shards = manifest["shards"]
    n = len(shards)
    for i, shard in enumerate(shards):
        if shard["file"] != f"examples-{i:05d}-of-{n:05d}":
            raise ValueError(f"shard {shard['file']!r} does not follow {TEMPLATE} (index {i})")
    template = _template(root)
    split = tfds.core.SplitInfo(
        name=SPLIT,
        shard_lengths=[int(s["examples"]) for s in shards],
        num_bytes=sum(os.path.getsize(os.path.join(root, s["file"])) for s in shards),
        filename_template=template,
    )
    # The records are example_store bytes; this feature only documents that (RAW_BYTES read).
    features = tfds.features.FeaturesDict(
        {"record": tfds.features.Tensor(shape=(None,), dtype=np.uint8)}
    )
    tfds.folder_dataset.write_metadata(
        data_dir=root,
        features=features,
        split_infos=[split],
        filename_template=template,
        description="KLUE pretraining examples (pretrain.example_store records).",
        check_data=False,
    )


class ExampleSource(Sequence):
    """Random access to the examples through TFDS's ArrayRecord data source."""

    def __init__(self, raw: Any, dtype: np.dtype):
        self.raw = raw
        self.dtype = dtype

    def __len__(self) -> int:
        return len(self.raw)

    def __getitem__(self, index: int) -> example_store.StoredExample:  # type: ignore[override]
        return example_store.decode(self.raw[index], self.dtype)


def data_source(examples_dir: str | os.PathLike) -> ExampleSource:
    """The examples as a TFDS data source, decoded; writes the metadata first when missing."""
    import tensorflow_datasets as tfds

    root = os.fspath(examples_dir)
    if not os.path.exists(os.path.join(root, "dataset_info.json")):
        write_metadata(root)
    manifest = examples_manifest(root)
    builder = tfds.builder_from_directory(root)
    raw = builder.as_data_source(
        split=SPLIT, deserialize_method=tfds.decode.DeserializeMethod.RAW_BYTES
    )
    return ExampleSource(raw, np.dtype(manifest.get("token_dtype", "<u2")))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m pretrain.tfds_examples",
        description="Make a pretraining examples folder readable as a TFDS ArrayRecord dataset.",
    )
    parser.add_argument("examples_dir", help="folder written by `python -m pretrain.build_data`")
    args = parser.parse_args(argv)
    write_metadata(args.examples_dir)
    print(f"{args.examples_dir}: dataset_info.json and features.json written")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
