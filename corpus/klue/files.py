"""Finding and reading KLUE split files: folders, ``.gz`` copies and the official ``.tar.gz``.

KLUE v1.1 ships one archive per task (``klue-nli-v1.1.tar.gz`` unpacks to
``klue-nli-v1.1/klue-nli-v1.1_{train,dev}.json``). A KLUE folder may hold the
unpacked folders, single files compressed with gzip (as in ``../shared/data``),
the archives themselves, or a mix. `find_split` looks for a split in that
order, so an unpacked copy wins over an archive and reading never needs a
temporary extraction.

Every reader goes through `SplitFile.lines` / `SplitFile.json`, which apply the
checks of `corpus.textio` (invalid UTF-8, NUL bytes, over-long lines, truncated
archives) and name the file as ``archive.tar.gz:member`` for archive members.
"""

from __future__ import annotations

import json
import os
import tarfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from corpus import textio
from corpus.textio import InputError, OnError, Quarantine, handle

T = TypeVar("T")

#: task -> file-name prefix of the official v1.1 files (``<prefix>-v1.1_<split>.<ext>``).
PREFIX = {
    "ynat": "ynat",
    "sts": "klue-sts",
    "nli": "klue-nli",
    "ner": "klue-ner",
    "re": "klue-re",
    "dp": "klue-dp",
    "mrc": "klue-mrc",
    "wos": "wos",
}
EXTENSION = {"ner": "tsv", "dp": "tsv"}  # every other task is JSON
VERSION = "v1.1"
#: Suffixes a single split file may carry, in preference order.
COMPRESSION_SUFFIXES = ("", ".gz", ".zst")
#: A tar member larger than this is refused (the largest KLUE file is ~50 MB).
MAX_MEMBER_BYTES = 1 << 30


def task_folder(task: str) -> str:
    """The folder (and archive stem) name of a task, e.g. ``klue-nli-v1.1``."""
    return f"{PREFIX[task]}-{VERSION}"


def archive_name(task: str) -> str:
    """The official archive file name of a task, e.g. ``klue-nli-v1.1.tar.gz``."""
    return f"{task_folder(task)}.tar.gz"


def split_file_name(task: str, split: str) -> str:
    """The official file name of a split, e.g. ``klue-nli-v1.1_dev.json``."""
    return f"{task_folder(task)}_{split}.{EXTENSION.get(task, 'json')}"


@dataclass(frozen=True)
class SplitFile:
    """One KLUE file: a plain (maybe compressed) file, or a member of a ``.tar.gz`` archive."""

    path: Path
    member: str | None = None

    @property
    def name(self) -> str:
        """How errors name this file: ``path`` or ``archive.tar.gz:member``."""
        return f"{self.path}:{self.member}" if self.member else str(self.path)

    def __str__(self) -> str:
        return self.name

    def read_bytes(self) -> bytes:
        """The whole (decompressed) content; a truncated or corrupt archive raises `InputError`."""
        if self.member is None:
            try:
                with textio.open_binary(self.path) as fh:
                    return fh.read()
            except (EOFError, OSError, zlib.error) as e:
                raise InputError(self.path, None, f"corrupt or truncated file: {e}") from e
        with _open_member(self.path, self.member) as fh:
            try:
                data = fh.read(MAX_MEMBER_BYTES + 1)
            except (EOFError, OSError, zlib.error, tarfile.TarError) as e:
                raise InputError(self.name, None, f"corrupt or truncated archive: {e}") from e
        if len(data) > MAX_MEMBER_BYTES:
            raise InputError(self.name, None, f"file too large: over {MAX_MEMBER_BYTES} bytes")
        return data

    def text(self) -> str:
        """The content as text, with `textio.read_text`'s checks (UTF-8, NUL, BOM)."""
        if self.member is None:
            return textio.read_text(self.path)
        return textio.decode_text(self.read_bytes(), self.name)

    def json(self) -> Any:
        """Parses the whole file as JSON; a syntax error names the file, line and column."""
        text = self.text()
        if not text.strip():
            raise InputError(self.name, None, "empty file: expected JSON")
        try:
            return json.loads(text)
        except json.JSONDecodeError as e:
            raise InputError(
                self.name, e.lineno, f"malformed JSON: {e.msg} (column {e.colno})"
            ) from e

    def lines(
        self, *, on_error: OnError = "raise", quarantine: Quarantine | None = None
    ) -> Iterator[tuple[int, str]]:
        """Streams ``(line_number, text)`` with the checks of `textio.iter_lines`.

        CRLF line ends lose their ``\\r``; a UTF-8 BOM on line 1 is dropped.
        """
        if self.member is None:
            yield from textio.iter_lines(self.path, on_error=on_error, quarantine=quarantine)
            return
        with _open_member(self.path, self.member) as fh:
            yield from _checked_lines(fh, self.name, on_error, quarantine)


def _checked_lines(fh, name: str, on_error: OnError, quarantine: Quarantine | None):
    """`textio.iter_lines` for an already open binary stream (a tar member)."""
    try:
        yield from textio.iter_stream_lines(fh, name, on_error=on_error, quarantine=quarantine)
    except tarfile.TarError as e:
        raise InputError(name, None, f"corrupt or truncated archive: {e}") from e


class _MemberHandle:
    """Context manager holding an open archive and one of its members."""

    def __init__(self, archive: Path, member: str):
        self.archive = archive
        self.member = member
        self._tar: tarfile.TarFile | None = None

    def __enter__(self):
        name = f"{self.archive}:{self.member}"
        try:
            self._tar = tarfile.open(self.archive, "r:gz")
            info = self._tar.getmember(self.member)
            fh = self._tar.extractfile(info)
        except KeyError as e:
            self.close()
            raise InputError(name, None, "member not found in archive") from e
        except (EOFError, OSError, zlib.error, tarfile.TarError) as e:
            self.close()
            raise InputError(name, None, f"corrupt or truncated archive: {e}") from e
        if fh is None:
            self.close()
            raise InputError(name, None, "archive member is not a regular file")
        return fh

    def close(self) -> None:
        if self._tar is not None:
            self._tar.close()
            self._tar = None

    def __exit__(self, *exc) -> None:
        self.close()


def _open_member(archive: Path, member: str) -> _MemberHandle:
    return _MemberHandle(archive, member)


def archive_members(archive: str | os.PathLike) -> list[str]:
    """Names of the regular files in a ``.tar.gz``; a truncated archive raises `InputError`."""
    try:
        with tarfile.open(archive, "r:gz") as tar:
            return [m.name for m in tar.getmembers() if m.isfile()]
    except (EOFError, OSError, zlib.error, tarfile.TarError) as e:
        raise InputError(archive, None, f"corrupt or truncated archive: {e}") from e


def _archives(klue_dir: Path, task: str) -> list[Path]:
    name = archive_name(task)
    return [p for p in (klue_dir / name, klue_dir / task_folder(task) / name) if p.is_file()]


def find_file(klue_dir: str | os.PathLike, task: str, file_name: str) -> SplitFile | None:
    """Finds `file_name` of `task`'s release under `klue_dir`; None when it is absent.

    Looks, in order, in ``<klue_dir>/<task folder>/``, in ``<klue_dir>/`` (each
    plain, then ``.gz``, then ``.zst``), then inside the task's official
    archive (``<klue_dir>/<task folder>.tar.gz``), matching the member's base name.
    """
    root = Path(klue_dir)
    for folder in (root / task_folder(task), root):
        for suffix in COMPRESSION_SUFFIXES:
            path = folder / (file_name + suffix)
            if path.is_file():
                return SplitFile(path)
    for archive in _archives(root, task):
        for member in archive_members(archive):
            if os.path.basename(member) == file_name:
                return SplitFile(archive, member)
    return None


def find_split(klue_dir: str | os.PathLike, task: str, split: str) -> SplitFile | None:
    """The official file of ``task``/``split`` under `klue_dir`, or None."""
    if task not in PREFIX:
        raise ValueError(f"unknown KLUE task {task!r}; expected one of {sorted(PREFIX)}")
    return find_file(klue_dir, task, split_file_name(task, split))


def official_splits(klue_dir: str | os.PathLike, task: str) -> list[str]:
    """The splits of `task` present as official files (``train``, ``dev``, ``dev_sample_10``...)."""
    root = Path(klue_dir)
    names: set[str] = set()
    folder = task_folder(task)
    ext = EXTENSION.get(task, "json")
    for directory in (root / folder, root):
        if directory.is_dir():
            names.update(p.name for p in directory.iterdir() if p.is_file())
    for archive in _archives(root, task):
        names.update(os.path.basename(m) for m in archive_members(archive))
    out = set()
    for name in names:
        for suffix in COMPRESSION_SUFFIXES:
            tail = f".{ext}{suffix}"
            if name.startswith(folder + "_") and name.endswith(tail):
                out.add(name[len(folder) + 1 : -len(tail)])
    return sorted(out)


def iter_json_array(source: SplitFile) -> Iterator[tuple[int, Any]]:
    """Yields ``(line, element)`` for each element of a top-level JSON array.

    The line is where the element starts, so a reader can name it in errors
    (``file:line: missing field 'title'``). A syntax error always raises: the
    rest of the file cannot be trusted.
    """
    text = source.text()
    decoder = json.JSONDecoder()
    n = len(text)
    pos = _skip_ws(text, 0)
    if pos >= n:
        raise InputError(source.name, None, "empty file: expected a JSON array")
    if text[pos] != "[":
        line = text.count("\n", 0, pos) + 1
        raise InputError(source.name, line, "wrong type: expected a JSON array of examples")
    line = 1 + text.count("\n", 0, pos)
    last = pos
    pos = _skip_ws(text, pos + 1)
    if pos < n and text[pos] == "]":
        _check_end(text, pos, source.name)
        return
    while True:
        line += text.count("\n", last, pos)
        last = pos
        try:
            obj, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as e:
            reason = f"malformed JSON: {e.msg} (column {e.colno})"
            raise InputError(source.name, e.lineno, reason) from e
        yield line, obj
        pos = _skip_ws(text, end)
        if pos < n and text[pos] == ",":
            pos = _skip_ws(text, pos + 1)
            continue
        if pos < n and text[pos] == "]":
            _check_end(text, pos, source.name)
            return
        bad = text.count("\n", 0, min(pos, n)) + 1
        what = "end of file" if pos >= n else repr(text[pos])
        raise InputError(
            source.name, bad, f"malformed JSON: expected ',' or ']' after an element, got {what}"
        )


def _check_end(text: str, close: int, name: str) -> None:
    """Only white space may follow the array's closing bracket at `close`."""
    rest = _skip_ws(text, close + 1)
    if rest < len(text):
        line = text.count("\n", 0, rest) + 1
        raise InputError(name, line, "malformed JSON: extra data after the array")


def _skip_ws(text: str, pos: int) -> int:
    n = len(text)
    while pos < n and text[pos] in " \t\r\n":
        pos += 1
    return pos


class FieldReader:
    """Typed access to one JSON object's fields, raising `InputError` at the object's line.

    ``f = FieldReader(obj, source, line); f.str("guid")`` raises
    ``file:line: missing field 'guid'`` or ``wrong type: field 'guid' ...``.
    """

    def __init__(self, obj: Any, name: str, line: int | None, where: str = ""):
        self.name = name
        self.line = line
        self.where = where
        if not isinstance(obj, dict):
            what = f"{where!r} " if where else ""
            raise self.error(f"wrong type: {what}expected a JSON object, got {type(obj).__name__}")
        self.obj = obj

    def error(self, reason: str) -> InputError:
        return InputError(self.name, self.line, reason)

    def get(self, key: str, types: type | tuple[type, ...], *, optional: bool = False):
        qualified = _join(self.where, key)
        if key not in self.obj:
            if optional:
                return None
            raise self.error(f"missing field: {qualified!r}")
        value = self.obj[key]
        if value is None and optional:  # JSON null in an optional field means absent
            return None
        if isinstance(value, bool) and bool not in _as_tuple(types):
            raise self.error(f"wrong type: field {qualified!r} is a boolean")
        if not isinstance(value, types):
            raise self.error(f"wrong type: field {qualified!r} is {type(value).__name__}")
        return value

    def str(self, key: str, *, optional: bool = False) -> str | None:
        return self.get(key, str, optional=optional)

    def int(self, key: str, *, optional: bool = False) -> int | None:
        return self.get(key, int, optional=optional)

    def number(self, key: str, *, optional: bool = False) -> float | None:
        value = self.get(key, (int, float), optional=optional)
        return None if value is None else float(value)

    def list(self, key: str, *, optional: bool = False) -> list | None:
        return self.get(key, list, optional=optional)

    def dict(self, key: str, *, optional: bool = False) -> dict | None:
        return self.get(key, dict, optional=optional)

    def sub(self, key: str) -> FieldReader:
        return FieldReader(self.dict(key), self.name, self.line, _join(self.where, key))


def _as_tuple(types) -> tuple:
    return types if isinstance(types, tuple) else (types,)


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def iter_objects(
    source: SplitFile,
    parse: Callable[[FieldReader], T],
    *,
    on_error: OnError = "raise",
    quarantine: Quarantine | None = None,
) -> Iterator[T]:
    """Parses each element of a JSON-array file with `parse`.

    A missing or mistyped field raises `InputError` naming the file and the
    element's line or, in ``skip`` mode, quarantines that element.
    """
    for line, obj in iter_json_array(source):
        try:
            yield parse(FieldReader(obj, source.name, line))
        except InputError as e:
            handle(e, on_error, quarantine)
