"""The files of a saved index: arrays memory-mapped, per-sentence provenance by column.

The decontamination index and the matcher's tables are read by every worker
process of a node. Arrays are ``.npy`` files written atomically (`save_arrays`)
and mapped read-only (`load_arrays`): their pages live once in the page cache and
a worker starts without parsing or copying them (`corpus.match_tables`). Lists
of strings (the benchmark keys, the near-exact deletions) are one UTF-16 text file
each (`save_strings`): decoded and split in C, not parsed as JSON (the keys as JSON
cost a worker 0.1-0.3 CPU s; UTF-16 decodes Hangul in a third of UTF-8's time).

Every benchmark sentence carries where it came from (``guid``, ``task``,
``split``, ``field``); a removed record names it. As one JSON list of 138,579
dicts this cost each worker half a CPU second to parse and about 60 MB (measured
on the KLUE index). `DocMeta` keeps each field as a column: its distinct values
(a JSON list) and one integer code per sentence (a mapped ``.npy``), and rebuilds
the dict of sentence ``d`` when a removal needs it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence

import numpy as np

META_FILE = "bm25_docs.json"
#: `save_strings`' text files: UTF-16-LE (no byte-order mark), one string per line.
STRINGS_SUFFIX = ".utf16.txt"


class DocMeta(Sequence):
    """A read-only sequence of per-sentence dicts, one column per field.

    Loaded from disk, the distinct values (126,817 guids for KLUE: 0.03 CPU s and about
    10 MB to parse) are read on the first item asked for: most workers remove few
    sentences, and a worker that removes none never reads them."""

    def __init__(self, fields: list[str], values: list[list], codes: list[np.ndarray]):
        self._fields, self._values, self.codes = fields, values, codes
        self._n = len(codes[0]) if codes else 0
        self._path: str | None = None  # the JSON holding fields and values, not read yet

    def _read(self) -> None:
        if self._path is not None:
            with open(self._path, encoding="utf-8") as fh:
                info = json.load(fh)
            self._fields, self._values, self._path = info["fields"], info["values"], None
            self._n = info["documents"]
            self.codes = self.codes[: len(self._fields)]  # a column file left by an older save

    @property
    def fields(self) -> list[str]:
        self._read()
        return self._fields

    @property
    def values(self) -> list[list]:
        self._read()
        return self._values

    @classmethod
    def from_dicts(cls, docs: Sequence[dict]) -> DocMeta:
        """Columns of `docs` (a field missing from a dict: code -1, absent again on read)."""
        fields = sorted({k for d in docs for k in d})
        values, codes = [], []
        for f in fields:
            seen: dict = {}
            col = np.fromiter(
                (seen.setdefault(d[f], len(seen)) if f in d else -1 for d in docs),
                dtype=np.int32,
                count=len(docs),
            )
            values.append(list(seen))
            codes.append(col)
        out = cls(fields, values, codes)
        out._n = len(docs)
        return out

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, d):  # type: ignore[override]
        if isinstance(d, slice):
            return [self[i] for i in range(*d.indices(self._n))]
        d = int(d)
        if not -self._n <= d < self._n:
            raise IndexError(d)
        out = {}
        for f, vals, col in zip(self.fields, self.values, self.codes, strict=True):
            c = int(col[d])
            if c >= 0:
                out[f] = vals[c]
        return out

    def save(self, directory: str) -> None:
        save_arrays(directory, {f"doc_field{i}": c for i, c in enumerate(self.codes)}, "bm25_")
        info = {"documents": self._n, "fields": self.fields, "values": self.values}
        path = os.path.join(directory, META_FILE)
        with open(path + ".tmp", "w", encoding="utf-8") as fh:
            json.dump(info, fh, ensure_ascii=False)
        os.replace(path + ".tmp", path)

    @classmethod
    def load(cls, directory: str) -> DocMeta:
        """The columns `save` wrote, mapped; their values are read on first use."""
        path = os.path.join(directory, META_FILE)
        if not os.path.exists(path):
            raise FileNotFoundError(path)
        names = []
        while os.path.exists(os.path.join(directory, f"bm25_doc_field{len(names)}.npy")):
            names.append(f"doc_field{len(names)}")
        arrays = load_arrays(directory, names, "bm25_")
        out = cls([], [], [arrays[n] for n in names])
        out._path = path
        if not names:  # no column to count the sentences by
            out._read()
        return out


def save_arrays(directory: str | os.PathLike, arrays: dict[str, np.ndarray], prefix: str) -> None:
    """Each array to ``<directory>/<prefix><name>.npy``, written to a temporary name and
    renamed (a reader never maps a half-written file)."""
    os.makedirs(directory, exist_ok=True)
    for name, a in arrays.items():
        path = os.path.join(directory, f"{prefix}{name}.npy")
        tmp = f"{path}.{os.getpid()}.tmp"  # two runs preparing one index never share it
        with open(tmp, "wb") as fh:
            np.save(fh, np.ascontiguousarray(a), allow_pickle=False)
        os.replace(tmp, path)


def load_arrays(
    directory: str | os.PathLike, names: Iterable[str], prefix: str
) -> dict[str, np.ndarray]:
    """`save_arrays`' files memory-mapped read-only, as plain arrays (a view of the map:
    indexing an ``np.memmap`` goes through a Python ``__getitem__``, measured at a third
    of a second per 5,000 sentences); FileNotFoundError naming the first one missing."""
    out = {}
    for n in names:
        path = os.path.join(directory, f"{prefix}{n}.npy")
        out[n] = np.asarray(np.load(path, mmap_mode="r", allow_pickle=False))
    return out


def save_strings(directory: str | os.PathLike, name: str, strings: Sequence[str]) -> None:
    """`strings` to ``<directory>/<name>.utf16.txt`` (UTF-16-LE, one per line) and their
    lengths to ``<name>_len.npy``, each written atomically (the lengths last: they say it
    is whole). A string holding a newline is read back by its length (`load_strings`)."""
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, f"{name}{STRINGS_SUFFIX}")
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-16-le", newline="") as fh:
        fh.write("\n".join(strings))
    os.replace(tmp, path)
    lengths = np.fromiter(map(len, strings), dtype=np.int64, count=len(strings))
    save_arrays(directory, {f"{name}_len": lengths}, prefix="")


def load_strings(directory: str | os.PathLike, name: str) -> tuple[list[str], np.ndarray]:
    """`save_strings`' list and lengths (mapped); FileNotFoundError when either is missing.
    Split at the newlines when no string holds one (the count tells), else cut by length."""
    lengths = load_arrays(directory, [f"{name}_len"], prefix="")[f"{name}_len"]
    with open(os.path.join(directory, f"{name}{STRINGS_SUFFIX}"), "rb") as fh:
        text = fh.read().decode("utf-16-le")
    out = text.split("\n") if len(lengths) else []
    if len(out) != len(lengths):  # a string with a newline in it
        ends = np.cumsum(lengths + 1).tolist()
        out = [text[e - 1 - n : e - 1] for e, n in zip(ends, lengths.tolist(), strict=True)]
    return out, lengths
