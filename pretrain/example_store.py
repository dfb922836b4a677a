"""On-disk format of pretraining examples: plain ArrayRecord files of fixed-layout records.

Each example is one ArrayRecord record (written with ``group_size:1`` so any
record is read without decompressing its neighbours). A record is a small
little-endian binary layout, not a general serialiser, so decoding is a few
``np.frombuffer`` calls:

====================  ==========================  =====================================
field                 dtype                       meaning
====================  ==========================  =====================================
header                int32 [4]                   n_tokens, segment_b_start, n_pred, nsp
input_ids             token dtype [n_tokens]      ``[CLS] ... [SEP]`` (masked for bert)
masked_positions      uint16 [n_pred]             ascending positions of predictions
masked_ids            token dtype [n_pred]        original ids at those positions
====================  ==========================  =====================================

The token dtype is ``uint16`` when the vocabulary has at most 65,536 ids and
``int32`` otherwise (recorded in the manifest as ``token_dtype``).
``segment_b_start`` is the index of the first token of segment B (token type
1 from there to the end; 0 for roberta, whose examples are all type 0).
RoBERTa records store no predictions (``n_pred = 0``, ``nsp = 0``): they are
masked in the loader.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

#: Options for the ArrayRecord writer: one record per chunk, for random access.
WRITER_OPTIONS = "group_size:1"
HEADER = np.dtype("<i4")
POSITION = np.dtype("<u2")
FORMAT_VERSION = 1


def token_dtype(vocab_size: int) -> np.dtype:
    return np.dtype("<u2") if vocab_size <= 1 << 16 else np.dtype("<i4")


@dataclass(frozen=True)
class StoredExample:
    input_ids: np.ndarray
    segment_b_start: int = 0
    masked_positions: np.ndarray | None = None
    masked_ids: np.ndarray | None = None
    nsp_label: int = 0


def encode(example: StoredExample, dtype: np.dtype) -> bytes:
    ids = np.asarray(example.input_ids)
    pos = (
        np.asarray(example.masked_positions)
        if example.masked_positions is not None
        else np.zeros(0, np.int32)
    )
    mids = np.asarray(example.masked_ids) if example.masked_ids is not None else np.zeros(0)
    if len(pos) != len(mids):
        raise ValueError("masked_positions and masked_ids differ in length")
    header = np.array([len(ids), example.segment_b_start, len(pos), example.nsp_label], HEADER)
    return b"".join(
        [
            header.tobytes(),
            ids.astype(dtype).tobytes(),
            pos.astype(POSITION).tobytes(),
            mids.astype(dtype).tobytes(),
        ]
    )


def decode(record: bytes, dtype: np.dtype) -> StoredExample:
    n, b_start, n_pred, nsp = (int(x) for x in np.frombuffer(record, HEADER, 4))
    off = 4 * HEADER.itemsize
    ids = np.frombuffer(record, dtype, n, off)
    off += n * dtype.itemsize
    pos = np.frombuffer(record, POSITION, n_pred, off)
    off += n_pred * POSITION.itemsize
    mids = np.frombuffer(record, dtype, n_pred, off)
    return StoredExample(ids, b_start, pos, mids, nsp)


class ShardWriter:
    """Writes one ArrayRecord shard atomically (temporary name, renamed on `close`)."""

    def __init__(self, path: str | os.PathLike, dtype: np.dtype):
        from array_record.python.array_record_module import ArrayRecordWriter

        self.path = os.fspath(path)
        self.tmp = self.path + ".tmp"
        self.dtype = dtype
        self._writer = ArrayRecordWriter(self.tmp, WRITER_OPTIONS)
        self.count = 0

    def write(self, example: StoredExample) -> None:
        self._writer.write(encode(example, self.dtype))
        self.count += 1

    def close(self) -> None:
        self._writer.close()
        os.replace(self.tmp, self.path)

    def abort(self) -> None:
        self._writer.close()
        if os.path.exists(self.tmp):
            os.remove(self.tmp)
