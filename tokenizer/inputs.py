"""Training inputs: files or texts, and a seeded uniform random sample of their lines.

`Inputs` streams the non-blank lines of every input file (any format
`corpus.readers` knows; plain text read directly) or of in-memory texts, and
keeps each line with probability ``sample bytes / input bytes``, so a
vocabulary can be trained on a fixed-size sample of an arbitrarily large
corpus without copying it. See docs/tokenizer.md.
"""

from __future__ import annotations

import collections
import glob
import hashlib
import os
import random
from collections.abc import Callable, Iterable, Iterator


class EmptyCorpusError(ValueError):
    """No text to learn from."""


# --------------------------------------------------------------------- inputs


def _is_path(x: object) -> bool:
    if isinstance(x, os.PathLike):
        return True
    if not isinstance(x, str) or not x or "\n" in x or len(x) > 4096 or x in (".", ".."):
        return False
    return os.path.exists(x) or (any(c in x for c in "*?[") and bool(glob.glob(x)))


def _looks_like_paths(inputs: object) -> bool:
    """Paths: a path, or a list with at least one item naming an existing file/folder/glob.

    One existing path is enough, so a list of paths with a typo fails with
    "matches no file" instead of being trained on as literal text.
    """
    if isinstance(inputs, (str, os.PathLike)):
        return True
    if not isinstance(inputs, (list, tuple)) or not inputs:
        return False
    return any(_is_path(x) for x in inputs)


def file_sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def _record_lines(path: str, counts: collections.Counter, encoding: str) -> Iterator[str]:
    """Non-blank, stripped lines of the records of one input file, decoded from `encoding`.

    Plain text is read line by line directly (a record per line would only
    cost time); other formats go through `corpus.readers.iter_records`. Bad
    input raises the readers' `InputError` naming file and line either way.
    """
    from corpus.readers import detect_format, iter_records
    from corpus.textio import iter_lines

    if detect_format(path, encoding) == "text":
        for _, raw in iter_lines(path, encoding=encoding):
            line = raw.strip()
            if line:
                counts["records"] += 1
                yield line
        return
    for record in iter_records(path, encoding=encoding):
        counts["records"] += 1
        for line in record.text.splitlines():
            line = line.strip()
            if line:
                yield line


def _input_bytes(path: str, encoding: str = "utf-8") -> int:
    """Bytes of a file as the readers see it, in UTF-8: its size, or its decompressed size;
    for another `encoding`, the UTF-8 size of its decoded text (one pass), so that the same
    text saved as CP949 is sampled exactly as its UTF-8 copy is."""
    if encoding == "utf-8" and not path.endswith((".gz", ".zst")):
        return os.path.getsize(path)
    import codecs

    from corpus.textio import open_binary

    total = 0
    # undecodable bytes count as one replacement each here; the line reader reports them
    decoder = None if encoding == "utf-8" else codecs.getincrementaldecoder(encoding)("replace")
    with open_binary(path) as fh:
        while chunk := fh.read(1 << 22):
            total += len(chunk) if decoder is None else len(decoder.decode(chunk).encode())
    if decoder is not None:
        total += len(decoder.decode(b"", final=True).encode())
    return total


def _line_bytes(line: str) -> int:
    return len(line.encode("utf-8")) + 1


def expand_training_inputs(paths: list[str]) -> list[str]:
    """Input files, sorted, by `corpus.readers.expand_inputs` (files, folders, globs).

    A finished corpus stage folder contributes only its kept record shards.
    A path that matches nothing raises FileNotFoundError.
    """
    from corpus.readers import expand_inputs

    return expand_inputs(paths)


class Inputs:
    """The training text: a uniform random sample of the lines of all inputs.

    `inputs` are files (any format `corpus.readers` knows, folders, globs) or,
    unless `paths_only`, in-memory texts. With `sample_bytes`, each non-blank
    line is kept with probability ``p = sample_bytes / input bytes``, decided
    by a generator seeded with (`seed`, file index): the sample is spread
    uniformly over all files and all parts of each file, is the same for the
    same inputs and seed, and is streamed (nothing is copied). Input bytes are
    the files' sizes (decompressed for ``.gz``/``.zst``, which costs one
    decompression pass), so `p` is known without parsing anything; markup
    (JSON, WikiExtractor tags) counts as input, so the text sampled is about
    `sample_bytes` times the text share of the files, never more than
    `sample_bytes` plus noise. For in-memory texts, input bytes are the text's.
    Files are decoded from `encoding` (one of `corpus.textio.ENCODINGS`; their input bytes
    are then the UTF-8 size of the decoded text, so the sample is the UTF-8 copy's).
    """

    def __init__(
        self,
        inputs: Iterable[str | os.PathLike] | str,
        sample_bytes: int | None = None,
        seed: int = 0,
        *,
        paths_only: bool = False,
        encoding: str = "utf-8",
    ):
        from corpus.textio import ENCODINGS

        if sample_bytes is not None and sample_bytes <= 0:
            raise ValueError(f"sample size must be positive, got {sample_bytes}")
        if encoding not in ENCODINGS:
            raise ValueError(f"unknown encoding {encoding!r}; choose from {', '.join(ENCODINGS)}")
        self.encoding = encoding
        self.sample_bytes = sample_bytes
        self.seed = seed
        self.counts: collections.Counter = collections.Counter()
        self._fraction: float | None = None
        #: Input bytes read so far, for progress (`position`); not part of `counts`, which
        #: the manifest records.
        self.position = 0.0
        self._sizes: list[int] = []
        if paths_only or _looks_like_paths(inputs):
            items = [inputs] if isinstance(inputs, (str, os.PathLike)) else list(inputs)
            if not items:
                raise EmptyCorpusError("no input paths given")
            self.files = expand_training_inputs([os.fspath(p) for p in items])
            self.texts = None
            if not self.files:
                raise EmptyCorpusError(f"no input files in {items}")
        else:
            self.files = None
            self.texts = [str(t) for t in inputs]

    def describe(self) -> list[dict]:
        """Input identity for the manifest: paths, sizes and SHA-256 (or a hash of the texts)."""
        if self.files is not None:
            return [
                {"path": f, "bytes": os.path.getsize(f), "sha256": file_sha256(f)}
                for f in self.files
            ]
        h = hashlib.sha256()
        for t in self.texts:
            h.update(t.encode("utf-8") + b"\n")
        return [{"texts": len(self.texts), "sha256": h.hexdigest()}]

    def _sources(self, counts: collections.Counter) -> Iterator[Iterator[str]]:
        if self.files is None:
            yield (ln.strip() for t in self.texts for ln in t.splitlines() if ln.strip())
            return
        for path in self.files:
            yield _record_lines(path, counts, self.encoding)

    def fraction(self) -> float:
        """The probability with which each line is kept (1.0 without sampling)."""
        if self._fraction is not None:
            return self._fraction
        if self.files is not None:
            self._sizes = [_input_bytes(f, self.encoding) for f in self.files]
            total = sum(self._sizes)
        else:
            total = sum(_line_bytes(x) for t in self.texts for x in t.splitlines() if x.strip())
            self._sizes = [total]
        self.counts["input_bytes"] = total
        if self.sample_bytes is None or not total:
            self._fraction = 1.0
        else:
            self._fraction = min(1.0, self.sample_bytes / total)
        return self._fraction

    def lines(self) -> Iterator[str]:
        """The sampled lines, file by file, in file order."""
        p = self.fraction()
        finished = 0
        for index, source in enumerate(self._sources(self.counts)):
            rng = random.Random(
                int.from_bytes(hashlib.sha256(f"{self.seed}:{index}".encode()).digest()[:8])
            )
            where = self._file_position(index, finished)
            for line in source:
                self.position = where(line)
                self.counts["lines_read"] += 1
                if p < 1.0 and rng.random() >= p:
                    continue
                self.counts["lines_used"] += 1
                self.counts["bytes"] += _line_bytes(line)
                yield line
            finished += self._sizes[index]
            self.position = finished

    def _file_position(self, index: int, finished: int) -> Callable[[str], float]:
        """A function of the next line giving the input bytes read so far.

        Input bytes include markup (a record shard's JSON fields are most of its bytes), so
        text bytes alone would put the bar at 45% when it is done. A stage folder's shard
        says how many records it holds (`corpus.progress.expected_records`): records read
        over that share its bytes; other files advance by the text bytes read.
        """
        from corpus.progress import expected_records

        size = self._sizes[index]
        expected = expected_records(self.files[index]) if self.files is not None else None
        start, text = self.counts["records"], 0

        def where(line: str) -> float:
            nonlocal text
            if expected:
                within = size * (self.counts["records"] - start) / expected
            else:
                text += _line_bytes(line)
                within = text
            return finished + min(within, size)

        return where
