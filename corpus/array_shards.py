"""Byte ranges of a large JSON array of flat objects, cut between its elements: the NamuWiki
dump (one line of several GB) read by several workers at once.

`corpus.sharding` cuts line-oriented files at newlines; the NamuWiki dump has no newlines
to cut at, and read whole it would give the whole stage one worker (about an hour of
`corpus.namumark` alone for 8 GB). Its elements are flat objects that all start with the
same key (``{"namespace": ...``), and a byte ``"`` inside a JSON string is always escaped,
so the bytes ``,{"namespace":`` (whitespace allowed around the brace) can only be the
boundary between two elements: no parse is needed to find where one starts. One pass over
the file (at memory speed) finds, for each cut, the first such boundary after it and
counts the elements before it, so that a range's elements are numbered as in the whole
file (errors and the ids of articles without a title are the same as reading it whole).

A range holds the elements that *start* in it: ``[start of its first element, the comma
before the next range's first element)``; `range_stream` gives it to the JSON parser as an
array of its own (``[`` + the bytes, + ``]`` unless it runs to the file's end, where the
dump's own ``]`` closes it). The records of the ranges, in order, are those of the file.
"""

from __future__ import annotations

import io
import os
import re
from typing import BinaryIO

from corpus.textio import ByteRange

#: Bytes read at a time while looking for element boundaries.
_BLOCK = 1 << 22
#: Whitespace allowed around a boundary's brace (pretty-printed arrays): a bound on a match's
#: length, so that matches across two blocks are found by carrying this many bytes over.
_SPACE = 64
_CARRY = 4 * _SPACE + 256


def first_key(path: str) -> bytes | None:
    """The first key of the array's first element (``namespace`` in the NamuWiki dump), or
    None when the file does not start as an array of objects."""
    with open(path, "rb") as fh:
        head = fh.read(1 << 16)
    m = re.match(rb'(?:\xef\xbb\xbf)?\s*\[\s*\{\s*"([^"\\]{1,64})"\s*:', head)
    return m.group(1) if m else None


def element_ranges(path: str, size: int, shard_bytes: int) -> list[tuple[ByteRange, int]]:
    """``(range, number of its first element)`` of about `shard_bytes` each, in order; one
    range over the whole file when it does not start as an array of objects."""
    key = first_key(path)
    k = -(-size // shard_bytes)
    if key is None or k <= 1:
        return [(ByteRange(0, None, 0), 1)]
    cuts = [size * i // k for i in range(1, k)]
    boundary = re.compile(
        rb",\s{0,%d}\{\s{0,%d}\"" % (_SPACE, _SPACE) + re.escape(key) + rb"\"\s{0,%d}:" % _SPACE
    )
    found = _boundaries_after(path, cuts, boundary)
    ranges: list[tuple[ByteRange, int]] = []
    start, first = 0, 1
    for comma, brace, before in found:
        if brace <= start:  # two cuts inside one element: one range
            continue
        ranges.append((ByteRange(start, comma, 0), first))
        start, first = brace, before + 1
    ranges.append((ByteRange(start, None, 0), first))
    return ranges


def _boundaries_after(
    path: str, cuts: list[int], boundary: re.Pattern
) -> list[tuple[int, int, int]]:
    """For each cut, the first boundary at or after it: (offset of its comma, offset of its
    brace, elements before it), found in one pass; cuts with none after them are left out."""
    out: list[tuple[int, int, int]] = []
    elements = 1  # the first element follows the "[", not a comma
    pending = list(cuts)
    carry, base = b"", 0  # `carry` starts at file offset `base`
    with open(path, "rb") as fh:
        while pending:
            block = fh.read(_BLOCK)
            buf = carry + block
            end = len(buf) if not block else max(0, len(buf) - _CARRY)
            for m in boundary.finditer(buf, 0, len(buf)):
                if m.start() >= end:
                    break
                comma = base + m.start()
                while pending and pending[0] <= comma:
                    pending.pop(0)
                    out.append((comma, base + buf.index(b"{", m.start()), elements))
                elements += 1
            if not block:
                break
            carry, base = buf[end:], base + end
    return out


class _RangeReader(io.RawIOBase):
    """``[`` + the bytes of `byte_range` + ``]`` (unless it runs to the end) as a stream."""

    def __init__(self, path: str, byte_range: ByteRange):
        self._fh = open(path, "rb")
        self._fh.seek(byte_range.start)
        self._left = None if byte_range.end is None else byte_range.end - byte_range.start
        self._head = b"" if byte_range.start == 0 else b"["
        self._tail = b"" if byte_range.end is None else b"]"

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        data = self._read(len(b))
        b[: len(data)] = data
        return len(data)

    def _read(self, n: int) -> bytes:
        if self._head:
            out, self._head = self._head, b""
            return out
        if self._left is None or self._left > 0:
            want = n if self._left is None else min(n, self._left)
            data = self._fh.read(want)
            if data:
                if self._left is not None:
                    self._left -= len(data)
                return data
            self._left = 0
        out, self._tail = self._tail, b""
        return out

    def close(self) -> None:
        self._fh.close()
        super().close()


def range_stream(path: str | os.PathLike, byte_range: ByteRange) -> BinaryIO:
    """The elements starting in `byte_range` as a JSON array of their own (buffered)."""
    return io.BufferedReader(_RangeReader(os.fspath(path), byte_range), 1 << 16)
