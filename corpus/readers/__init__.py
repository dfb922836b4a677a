"""Raw-corpus readers: every supported source format to `CorpusRecord`s, streaming.

Formats (``fmt``): ``text`` (one sentence or document per line), ``records``
/ ``jsonl`` (our corpus records, or JSON Lines with a text field),
``wikiextractor`` (``<doc id url title>`` blocks), ``petitions`` (the
petitions archive), ``modu`` (NIKL 모두의 말뭉치 JSON, a document per record),
``json`` (a JSON array, an element per record), ``namuwiki`` (the NamuWiki
dump, an article per record, its markup made prose), ``parquet`` (a row per
record, as Hugging Face datasets ship), ``csv`` and ``tsv`` (by ``column``).
``auto`` picks one from the file name and its first bytes or non-blank line (a
Parquet file by its magic bytes; a ``.json`` file starting with ``[`` is
``json``, or ``namuwiki`` when its head has ``namespace`` and ``contributors``
keys; one that is a single object with a ``document`` list is ``modu``).
Compressed files (gzip, zstd, xz, bzip2: recognised by their first bytes) are
decompressed transparently.

    >>> for rec in iter_records("kowiki/AA/wiki_00"):
    ...     print(rec.id, rec.text[:20])
"""

from __future__ import annotations

import argparse
import fnmatch
import glob
import json
import os
import re
from collections.abc import Iterable, Iterator
from functools import partial

from corpus.readers import (
    conllu,
    json_array,
    jsonl,
    modu,
    namuwiki,
    parquet,
    petitions,
    plaintext,
    spreadsheet,
    tabular,
    wikiextractor,
)
from corpus.readers.base import ReadOptions, default_source, file_key
from corpus.records import REQUIRED_FIELDS, CorpusRecord
from corpus.textio import (
    COMPRESSED_SUFFIXES,
    ENCODINGS,
    InputError,
    OnError,
    Quarantine,
    iter_lines,
    open_binary,
    table_kind,
)

READERS = {
    "text": plaintext.read,
    "jsonl": jsonl.read,
    "records": jsonl.read,
    "wikiextractor": wikiextractor.read,
    "modu": modu.read,
    "json": json_array.read,
    "namuwiki": namuwiki.read,
    "parquet": parquet.read,
    "arrow": parquet.read,
    "petitions": petitions.read,
    "conllu": conllu.read,
    "csv": partial(tabular.read, delimiter=","),
    "tsv": partial(tabular.read, delimiter="\t"),
    "xlsx": spreadsheet.read,
}
FORMATS = ("auto", *READERS)
#: Readers whose records for the same file changed after folders were made with them
#: (session 21 of issue #29: NIKL marks and one-document files; NamuWiki null text, redirects
#: without a space and Parquet copies; CSV/TSV default columns and TSV found by its header;
#: CoNLL-U and Arrow new). A stage names those of the formats its inputs are read with
#: (`reader_versions`) in its fingerprint or manifest, so that a folder an older reader made
#: is not reused as up to date; runs reading only other formats (text, JSON Lines, records,
#: WikiExtractor, petitions) keep their fingerprints.
READER_VERSIONS = {
    "modu": 2, "namuwiki": 2, "parquet": 2, "arrow": 1, "csv": 2, "tsv": 2, "conllu": 1,
}  # fmt: skip
#: What `detect_format` calls a Wikipedia XML dump (``*-pages-articles.xml.bz2``): no reader
#: (its wikitext needs WikiExtractor's templates and tables), an error that says so.
MEDIAWIKI_DUMP = "mediawiki-xml"

_SKIP_NAMES = {"README.md", "LICENSE", "LICENSE.md", "LICENSE.txt", "SHA256SUMS", "manifest.json"}
#: A Hugging Face `save_to_disk` folder's descriptions of its ``*.arrow`` files: skipped in a
#: folder that holds such files, read like any other file elsewhere.
_ARROW_SIDECARS = {"dataset_info.json", "state.json", "dataset_dict.json"}


def _bare_name(path: str) -> str:
    name = os.path.basename(path)
    for suffix in COMPRESSED_SUFFIXES:
        name = name.removesuffix(suffix)
    return name


def _head_has(path: str, *patterns: bytes) -> bool:
    """Whether the first 64 KiB of `path` (decompressed) match every regular expression."""
    with open_binary(path) as fh:
        head = fh.read(1 << 16)
    return all(re.search(p, head) for p in patterns)


def _is_modu(path: str) -> bool:
    """Whether a JSON file that is not JSON Lines is a NIKL file: a ``"document"`` list (or
    object) near its start, after the corpus's ``id`` and ``metadata``; or one document whose
    NIKL id (``SBRW1900000001``: four capitals, digits) comes with a list of units."""
    with open_binary(path) as fh:
        head = fh.read(1 << 16)
    where = modu.layout(head)
    return where in ("list", "document") or (where == "" and bool(modu.NIKL_ID_FIELD.search(head)))


def _modu_object(obj: dict) -> bool:
    """Whether a parsed JSON object is a NIKL file: a ``document`` list or object, or one
    document with a NIKL id and a list of units (as `_is_modu` tells from the bytes)."""
    if isinstance(obj.get("document"), list | dict):
        return True
    nikl_id = isinstance(obj.get("id"), str) and modu.NIKL_ID.match(obj["id"])
    return bool(nikl_id) and any(isinstance(obj.get(k), list) for k in modu.UNIT_LISTS)


def _one_long_line(path: str) -> str | None:
    """The format of a ``.json`` file whose first line outruns its first 64 KiB, from that
    head alone, so that the line is not read to its end to find out (the NamuWiki dump is
    one line of several GB); None for any other file."""
    with open_binary(path) as fh:
        head = fh.read(1 << 16)
    body = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    if len(head) < 1 << 16 or b"\n" in body:
        return None
    if body.startswith(b"["):
        return "namuwiki" if b'"namespace"' in body and b'"contributors"' in body else "json"
    return "modu" if body.startswith(b"{") and _is_modu(path) else None


def _tsv_header(head: list[str]) -> bool:
    """Whether two lines are a TSV header naming a usual text column and a row of as many
    fields (NSMC's ``ratings_train.txt``: ``id<TAB>document<TAB>label``), whatever the suffix."""
    if len(head) < 2 or "\t" not in head[0] or head[1].count("\t") != head[0].count("\t"):
        return False
    return any(f.strip() in tabular.TEXT_COLUMNS for f in head[0].split("\t"))


def detect_format(path: str | os.PathLike, encoding: str = "utf-8") -> str:
    """Guesses a file's format from its name, then from its first non-blank lines."""
    path = os.fspath(path)
    name = _bare_name(path)
    ext = os.path.splitext(name)[1].lower()
    if ext in (".csv", ".tsv"):
        return ext[1:]
    if ext == ".conllu":
        return "conllu"
    if (table := table_kind(path)) is not None:
        return table
    if ext == ".json" and (long_line := _one_long_line(path)) is not None:
        return long_line
    head: list[str] = []  # the first two non-blank lines
    for _, line in iter_lines(path, on_error="skip", encoding=encoding):
        if line.strip():
            head.append(line)
            if len(head) == 2:
                break
    first = head[0].strip() if head else ""
    if first.startswith("<doc "):
        return "wikiextractor"
    if first.startswith("<mediawiki") or (
        first.startswith("<?xml") and _head_has(path, rb"<mediawiki[\s>]")
    ):
        return MEDIAWIKI_DUMP
    if conllu.FIRST_LINE.match(first):
        return "conllu"
    if first.startswith("[") and ext == ".json":
        return "namuwiki" if _head_has(path, rb'"namespace"', rb'"contributors"') else "json"
    if first.startswith("{"):
        try:
            obj = json.loads(first)
        except json.JSONDecodeError:
            if ext == ".json" and _is_modu(path):
                return "modu"
            return "jsonl" if ext in (".jsonl", ".json") else "text"
        if isinstance(obj, dict):
            if ext == ".json" and len(head) == 1 and _modu_object(obj):  # a MODU file on one line
                return "modu"
            if "petition_idx" in obj and "content" in obj:
                return "petitions"
            if all(k in obj for k in REQUIRED_FIELDS):
                return "records"
            return "jsonl"
    if ext == ".json" and not first and _is_modu(path):  # one line longer than a line may be
        return "modu"
    if ext not in (".json", ".jsonl") and _tsv_header(head):
        return "tsv"
    if ext == ".jsonl":
        return "jsonl"
    return "text"


def reader_versions(
    files: Iterable[str], fmt: str = "auto", encoding: str = "utf-8"
) -> dict[str, int]:
    """`READER_VERSIONS` of the formats `files` are read with (`fmt`, or each one's detected
    format); empty when none has changed, so that such runs keep their fingerprints."""
    formats = {detect_format(f, encoding) if fmt == "auto" else fmt for f in files}
    return {f: READER_VERSIONS[f] for f in sorted(formats) if f in READER_VERSIONS}


def excluded(path: str, patterns: Iterable[str]) -> bool:
    """Whether `path` matches an ``--exclude`` glob, by file name (``*.png``) or by path
    (``*/images/*``)."""
    name = os.path.basename(path)
    return any(fnmatch.fnmatch(name, p) or fnmatch.fnmatch(path, p) for p in patterns)


def expand_inputs(paths: Iterable[str | os.PathLike], exclude: Iterable[str] = ()) -> list[str]:
    """Files named by `paths` (files, folders searched recursively, globs), sorted.

    Folder walks skip hidden files and the README/LICENSE/checksum files that
    data folders carry (and, in a folder of ``*.arrow`` files, the JSON descriptions a
    Hugging Face ``save_to_disk`` writes beside them). A finished stage folder (one
    with ``manifest.json``: records/, decontaminated/, clean/) contributes only its top-level record
    shards, never ``removed/``, ``quarantine/`` or ``stats.json``; an
    unfinished one is an error, so no stage reads half a corpus. Sorting makes
    shard order, and thus output, deterministic. A path that matches nothing is
    an error, not an empty corpus. Files matching an `exclude` glob (`excluded`)
    are left out.
    """
    exclude = list(exclude)
    out: set[str] = set()
    for raw in paths:
        p = os.fspath(raw)
        matches = sorted(glob.glob(p)) if any(c in p for c in "*?[") else [p]
        if not matches:
            raise FileNotFoundError(f"input {p!r} matches no file")
        for m in matches:
            if os.path.isdir(m) and _is_stage_folder(m):
                out.update(stage_shards(m))
            elif os.path.isdir(m):
                for root, dirs, files in os.walk(m):
                    dirs[:] = [d for d in dirs if not d.startswith(".")]
                    arrow = any(f.endswith(".arrow") for f in files)
                    for f in files:
                        if f.startswith(".") or f in _SKIP_NAMES or f.endswith(".tmp"):
                            continue
                        if arrow and f in _ARROW_SIDECARS:
                            continue
                        out.add(os.path.join(root, f))
            elif os.path.isfile(m):
                out.add(m)
            else:
                raise FileNotFoundError(f"input {m!r} does not exist")
    return sorted(p for p in out if not excluded(p, exclude))


def _is_stage_folder(path: str) -> bool:
    return any(os.path.exists(os.path.join(path, n)) for n in ("manifest.json", ".run.json"))


def stage_shards(folder: str) -> list[str]:
    """The record shards of a finished corpus stage folder (top-level ``*.jsonl[.gz|.zst]``)."""
    if not os.path.exists(os.path.join(folder, "manifest.json")):
        raise FileNotFoundError(
            f"{folder} holds an unfinished stage run (no manifest.json): rerun that stage first"
        )
    names = sorted(os.listdir(folder))
    shards = [
        os.path.join(folder, n)
        for n in names
        if n.endswith((".jsonl", ".jsonl.gz", ".jsonl.zst"))
        and os.path.isfile(os.path.join(folder, n))
    ]
    if not shards:
        raise FileNotFoundError(f"stage folder {folder} has no record shards (*.jsonl[.gz])")
    return shards


def iter_records(
    path: str | os.PathLike,
    *,
    source: str | None = None,
    fmt: str = "auto",
    text_field: str | None = None,
    id_field: str | None = None,
    column: str | int | None = None,
    on_error: OnError = "raise",
    quarantine: Quarantine | None = None,
    options: ReadOptions | None = None,
    encoding: str | None = None,
    json_items: str | None = None,
) -> Iterator[CorpusRecord]:
    """Streams the records of one file in any supported format.

    Pass `options` to read the counters of benignly skipped lines (blank lines,
    empty documents) afterwards; bad lines raise `InputError` or, with
    ``on_error="skip"``, go to `quarantine`.
    """
    path = os.fspath(path)
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; choose from {', '.join(FORMATS)}")
    opts = options or ReadOptions()
    opts.source = source if source is not None else opts.source
    opts.text_field = text_field if text_field is not None else opts.text_field
    opts.id_field = id_field if id_field is not None else opts.id_field
    opts.column = column if column is not None else opts.column
    opts.on_error = on_error
    opts.quarantine = quarantine if quarantine is not None else opts.quarantine
    opts.encoding = encoding if encoding is not None else opts.encoding
    opts.json_items = json_items if json_items is not None else opts.json_items
    if fmt == "auto":
        fmt = detect_format(path, opts.encoding)
    if fmt == MEDIAWIKI_DUMP:
        raise InputError(
            path, None, "a MediaWiki XML dump, not its text: extract the articles first with "
            "WikiExtractor (pip install wikiextractor; wikiextractor DUMP -o DIR) and give DIR",
        )  # fmt: skip
    yield from READERS[fmt](path, opts)


def add_reader_arguments(parser: argparse.ArgumentParser) -> None:
    """The input-format options every corpus CLI shares."""
    g = parser.add_argument_group("input format")
    g.add_argument("--format", choices=FORMATS, default="auto", help="input format")
    g.add_argument("--text-field", default=None, help="JSON Lines field holding the text")
    g.add_argument(
        "--column",
        default=None,
        help="CSV/TSV/Excel text column: a header name or a 0-based index, or several joined "
        "by commas (Q,A: one record of their cells as lines); default: the header's first "
        "usual text column, such as document, comments or 본문",
    )
    g.add_argument(
        "--encoding",
        choices=ENCODINGS,
        default="utf-8",
        help="the input files' encoding: cp949 reads Korean text saved as CP949 or EUC-KR "
        "(Windows' 'ANSI' Korean); UTF-16 files are to be converted first (default %(default)s)",
    )
    g.add_argument(
        "--json-items",
        default=None,
        metavar="PATH",
        help="with --format json: where the records are, as an ijson path (default 'item': "
        "a top-level array; 'data.item.paragraphs.item' with --text-field context reads a "
        "KLUE-MRC-shaped file)",
    )
    g.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="GLOB",
        help="leave out input files matching GLOB, by name ('*.png') or path ('*/img/*'); "
        "repeatable",
    )


def reader_config(args: argparse.Namespace) -> dict:
    """The reader and input-handling options of parsed CLI arguments, for a stage config."""
    column = args.column
    config = {
        "format": args.format,
        "on_error": args.on_error,
        "text_field": args.text_field,
        "column": int(column) if column and column.isdigit() else column,
    }
    if getattr(args, "exclude", None):  # only when given: older runs' fingerprints stay valid
        config["exclude"] = list(args.exclude)
    if getattr(args, "encoding", "utf-8") != "utf-8":  # the same
        config["encoding"] = args.encoding
    if getattr(args, "json_items", None):  # the same
        config["json_items"] = args.json_items
    # input handling options of `corpus.executor.add_executor_arguments`, where present
    for key in ("max_quarantine_rate", "shard_bytes", "hash_inputs"):
        if getattr(args, key, None) is not None:
            config[key] = getattr(args, key)
    return config


__all__ = [
    "READER_VERSIONS",
    "reader_versions",
    "add_reader_arguments",
    "reader_config",
    "FORMATS",
    "InputError",
    "ReadOptions",
    "default_source",
    "detect_format",
    "expand_inputs",
    "file_key",
    "iter_records",
    "stage_shards",
]
