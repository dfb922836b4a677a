"""Fetches the official KLUE v1.1 data: ``python -m finetune.data download --to DIR``.

Two sources, both public:

* ``archives`` (default): the per-task release archives ``<task>-v1.1.tar.gz``
  served by the KLUE benchmark site's storage (Upstage AI Stages,
  ``https://aistages-prod-server-public.s3.amazonaws.com/app/Competitions/0000NN/data/``,
  NN = 66..73 in task order). They are saved as ``DIR/<task>-v1.1.tar.gz`` and
  `corpus.klue` reads them in place, no unpacking needed.
* ``github``: the single files of the KLUE repository
  (``KLUE-benchmark/KLUE``, ``klue_benchmark/<task>-v1.1/``, pinned to commit
  ``3efd987``), saved as ``DIR/<task>-v1.1/<file>``.

Every file is verified against the SHA-256 in the tables below when one is
known. KLUE publishes no checksums, so a hash is listed only where it was
computed from a copy proven identical to the official file (by its git blob
id, see ``../shared/data/klue/README.md``); the others are None, and for them
the command prints the computed hash instead of claiming a verification.
Downloads go to a temporary file in the target folder and are renamed into
place only when complete and verified; a file already present with the
expected hash is skipped.
"""

from __future__ import annotations

import argparse
import hashlib
import http.client
import os
import sys
import tempfile
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

TASKS = ("ynat", "sts", "nli", "ner", "re", "dp", "mrc", "wos")
ARCHIVE_BASE_URL = "https://aistages-prod-server-public.s3.amazonaws.com/app/Competitions/"
GITHUB_COMMIT = "3efd98708a40ff49251fddde35453f8fbb11f536"
GITHUB_BASE_URL = (
    f"https://raw.githubusercontent.com/KLUE-benchmark/KLUE/{GITHUB_COMMIT}/klue_benchmark/"
)
CHUNK = 1 << 20
USER_AGENT = "klue-pretrain-download/0.1"


@dataclass(frozen=True)
class RemoteFile:
    """One downloadable file: `path` is relative to the base URL, `local` to ``--to``."""

    task: str
    path: str
    sha256: str | None
    note: str = ""
    local: str = ""  # default: the same as `path`

    def url(self, base_url: str) -> str:
        return base_url.rstrip("/") + "/" + self.path

    def local_path(self, dest: Path) -> Path:
        return dest / (self.local or self.path)


def _archive(task: str, number: int, name: str, sha256: str | None = None, note: str = ""):
    return RemoteFile(task, f"{number:06d}/data/{name}", sha256, note, local=name)


_NLI_ARCHIVE_NOTE = (
    "SHA-256 of the copy in ../shared/data/klue (origin B of its README: the official "
    "archive as committed in jjonhwa/KLUE-NLI; its JSON files have the official blob ids)"
)
#: The release archives (source ``archives``). Only the NLI archive's hash is known.
ARCHIVES: dict[str, RemoteFile] = {
    "ynat": _archive("ynat", 66, "ynat-v1.1.tar.gz"),
    "sts": _archive("sts", 67, "klue-sts-v1.1.tar.gz"),
    "nli": _archive(
        "nli",
        68,
        "klue-nli-v1.1.tar.gz",
        "b12d1a0a3b4f8c06a08bb12282d636f61d750a20bf2691d64d6940d7f6839c17",
        _NLI_ARCHIVE_NOTE,
    ),
    "ner": _archive("ner", 69, "klue-ner-v1.1.tar.gz"),
    "re": _archive("re", 70, "klue-re-v1.1.tar.gz"),
    "dp": _archive("dp", 71, "klue-dp-v1.1.tar.gz"),
    "mrc": _archive("mrc", 72, "klue-mrc-v1.1.tar.gz"),
    "wos": _archive("wos", 73, "wos-v1.1.tar.gz"),
}

_BLOB = "content has the official git blob id (../shared/data/klue/README.md)"
#: The single repository files (source ``github``), with hashes where the content is known.
GITHUB_FILES: tuple[RemoteFile, ...] = (
    RemoteFile("ynat", "ynat-v1.1/ynat-v1.1_train.json", None),
    RemoteFile(
        "ynat",
        "ynat-v1.1/ynat-v1.1_dev.json",
        "608c7cab523aea7c3bab25c5dd4adba2458d4cae77322c523617ed3c4712433b",
        _BLOB,
    ),
    RemoteFile("sts", "klue-sts-v1.1/klue-sts-v1.1_train.json", None),
    RemoteFile(
        "sts",
        "klue-sts-v1.1/klue-sts-v1.1_dev.json",
        "b6a0ae0c370e21687f7eef0fdea872a328bb2ecbdb020c546cb870d28606bf80",
        _BLOB,
    ),
    RemoteFile(
        "nli",
        "klue-nli-v1.1/klue-nli-v1.1_train.json",
        "8d32e7e4ff97804a23f277fee8740f1341ac82e1c0c7b34f1be21952e4813996",
        _BLOB,
    ),
    RemoteFile(
        "nli",
        "klue-nli-v1.1/klue-nli-v1.1_dev.json",
        "0699db82be17766b26e199864e6260443e17ec6e91d1870e876419e388f245b1",
        _BLOB,
    ),
    RemoteFile("ner", "klue-ner-v1.1/klue-ner-v1.1_train.tsv", None),
    RemoteFile(
        "ner",
        "klue-ner-v1.1/klue-ner-v1.1_dev.tsv",
        "0f4d5e818f7b82d299c3a87856fc40a706f5943207580ddb252397e387050a54",
        _BLOB,
    ),
    RemoteFile(
        "re",
        "klue-re-v1.1/klue-re-v1.1_train.json",
        "10101fa3059b340f9971286dd5639daccb5889324182aed31679f038bca05bc4",
        _BLOB,
    ),
    RemoteFile(
        "re",
        "klue-re-v1.1/klue-re-v1.1_dev.json",
        "d150873430e592a5c569d35b20d88fbbbfba751dae0ffa4d8cbfb6b7321dea14",
        _BLOB,
    ),
    RemoteFile(
        "re",
        "klue-re-v1.1/relation_list.json",
        "74b9b50540891b21711418a996d3fe3adb92d5d904c6e7c7f4fa7d16be83ed13",
        _BLOB,
    ),
    RemoteFile("dp", "klue-dp-v1.1/klue-dp-v1.1_train.tsv", None),
    RemoteFile(
        "dp",
        "klue-dp-v1.1/klue-dp-v1.1_dev.tsv",
        "eb0d8532c0234934e058db0d31f2b01f093128715d6ae51f534a448434a48f01",
        _BLOB,
    ),
    RemoteFile("mrc", "klue-mrc-v1.1/klue-mrc-v1.1_train.json", None),
    RemoteFile("mrc", "klue-mrc-v1.1/klue-mrc-v1.1_dev.json", None),
    RemoteFile("wos", "wos-v1.1/wos-v1.1_train.json", None),
    RemoteFile("wos", "wos-v1.1/wos-v1.1_dev.json", None),
    RemoteFile(
        "wos",
        "wos-v1.1/ontology.json",
        "d3145ac33dbac0592823af92909c5cbd7c505361cb8145859f3656712c13b6f7",
        _BLOB,
    ),
)


class DownloadError(RuntimeError):
    """A download that failed or did not verify; the message names the URL."""


def sha256_file(path: str | os.PathLike) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(CHUNK), b""):
            h.update(chunk)
    return h.hexdigest()


def files_for(tasks: Sequence[str], source: str) -> list[RemoteFile]:
    """The files to fetch for `tasks` from `source` (``archives`` or ``github``)."""
    unknown = sorted(set(tasks) - set(TASKS))
    if unknown:
        raise ValueError(f"unknown task(s) {', '.join(unknown)}; expected some of {TASKS}")
    if source == "archives":
        return [ARCHIVES[t] for t in TASKS if t in tasks]
    if source == "github":
        return [f for f in GITHUB_FILES if f.task in tasks]
    raise ValueError(f"unknown source {source!r}; expected 'archives' or 'github'")


def fetch(
    remote: RemoteFile,
    dest: Path,
    base_url: str,
    *,
    force: bool = False,
    timeout: float = 60.0,
    log: Callable[[str], None] = print,
) -> tuple[str, str]:
    """Downloads one file into `dest` unless it is already there; returns ``(status, sha256)``.

    Status is ``skipped`` (present with the expected hash, or present with no
    known hash and not `force`), ``verified`` (downloaded, hash matches) or
    ``unverified`` (downloaded, no official hash to compare with). A hash
    mismatch or an HTTP/network error raises `DownloadError` and leaves no
    file behind (a stale file with a wrong hash is replaced only by a verified one).
    """
    target = remote.local_path(dest)
    url = remote.url(base_url)
    if target.is_file() and not force:
        have = sha256_file(target)
        if remote.sha256 is None:
            log(f"present   {target} (sha256 {have}; no official hash to check against)")
            return "skipped", have
        if have == remote.sha256:
            log(f"present   {target} (sha256 verified)")
            return "skipped", have
        log(f"mismatch  {target} has sha256 {have}, expected {remote.sha256}: downloading again")
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    try:
        digest = _download_to(url, fd, timeout, log)
        if remote.sha256 is not None and digest != remote.sha256:
            raise DownloadError(
                f"{url}: sha256 mismatch: got {digest}, expected {remote.sha256} "
                "(file not saved; the server copy differs from the known official file)"
            )
        os.replace(tmp_name, target)
    except BaseException:
        if os.path.exists(tmp_name):
            os.unlink(tmp_name)
        raise
    if remote.sha256 is None:
        log(f"saved     {target} (sha256 {digest}; UNVERIFIED: no official hash is known)")
        return "unverified", digest
    log(f"saved     {target} (sha256 verified)")
    return "verified", digest


def _download_to(url: str, fd: int, timeout: float, log: Callable[[str], None]) -> str:
    """Streams `url` into the open file descriptor; returns the SHA-256 of the bytes."""
    h = hashlib.sha256()
    size = 0
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
    log(f"fetching  {url}")
    with os.fdopen(fd, "wb") as out:
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                expected = response.headers.get("Content-Length")
                while chunk := response.read(CHUNK):
                    out.write(chunk)
                    h.update(chunk)
                    size += len(chunk)
        except urllib.error.HTTPError as e:
            raise DownloadError(f"{url}: HTTP {e.code} {e.reason}") from e
        except http.client.IncompleteRead as e:
            got = size + len(e.partial)
            raise DownloadError(f"{url}: truncated download: {got} of {expected} bytes") from e
        except (urllib.error.URLError, OSError, http.client.HTTPException) as e:
            raise DownloadError(f"{url}: {getattr(e, 'reason', e)}") from e
    if expected is not None and int(expected) != size:
        raise DownloadError(f"{url}: truncated download: {size} of {expected} bytes")
    return h.hexdigest()


def download(
    dest: str | os.PathLike,
    tasks: Sequence[str] = TASKS,
    *,
    source: str = "archives",
    base_url: str | None = None,
    force: bool = False,
    log: Callable[[str], None] = print,
) -> dict[str, list[str]]:
    """Fetches the files of `tasks`; returns ``{status: [paths]}`` including ``failed``.

    Every file is attempted even when an earlier one fails.
    """
    dest = Path(dest)
    if base_url is None:
        base_url = ARCHIVE_BASE_URL if source == "archives" else GITHUB_BASE_URL
    result: dict[str, list[str]] = {"skipped": [], "verified": [], "unverified": [], "failed": []}
    for remote in files_for(tasks, source):
        try:
            status, _ = fetch(remote, dest, base_url, force=force, log=log)
        except DownloadError as e:
            log(f"FAILED    {e}")
            result["failed"].append(str(remote.local_path(dest)))
            continue
        result[status].append(str(remote.local_path(dest)))
    return result


def _print_table(source: str) -> None:
    base = ARCHIVE_BASE_URL if source == "archives" else GITHUB_BASE_URL
    for remote in files_for(TASKS, source):
        print(f"{remote.task}\t{remote.url(base)}\t{remote.sha256 or 'unknown'}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m finetune.data",
        description="Download the official KLUE v1.1 data and verify SHA-256 checksums.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    dl = sub.add_parser("download", help="fetch the data into a folder")
    dl.add_argument("--to", default="data/klue", help="target folder (default: data/klue)")
    dl.add_argument(
        "--tasks", nargs="+", default=list(TASKS), choices=TASKS, metavar="TASK",
        help=f"tasks to fetch (default: all of {' '.join(TASKS)})",
    )  # fmt: skip
    dl.add_argument(
        "--source", choices=("archives", "github"), default="archives",
        help="release archives (default) or the single files of the KLUE repository",
    )  # fmt: skip
    dl.add_argument("--base-url", default=None, help="override the server (a mirror, or tests)")
    dl.add_argument("--force", action="store_true", help="download even if the file is present")
    ls = sub.add_parser("list", help="print task, URL and expected SHA-256 of each file")
    ls.add_argument("--source", choices=("archives", "github"), default="archives")
    args = parser.parse_args(argv)
    if args.command == "list":
        _print_table(args.source)
        return 0
    result = download(
        args.to, args.tasks, source=args.source, base_url=args.base_url, force=args.force
    )
    print(
        f"done: {len(result['verified'])} verified, {len(result['unverified'])} unverified "
        f"(no official hash), {len(result['skipped'])} already present, "
        f"{len(result['failed'])} failed"
    )
    return 1 if result["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
