"""Where a run's files live: a local folder or a bucket (``gs://``), behind one path type.

Every file the pretraining job reads or writes outside the examples' ArrayRecord shards goes
through this module: the workdir (orbax checkpoints, ``config.json``, ``metrics.jsonl``,
TensorBoard events), the examples folder's ``manifest.json`` and ``vocab.txt``, the tokenizer
folder and the export's input and output. Paths are `etils.epath.Path` (the library orbax
itself uses): a local path is the local file system, unchanged; ``gs://`` (and ``s3://``,
``az://``) goes through fsspec, so a job on a TPU VM needs ``gcsfs`` (the ``tpu`` and ``gpu``
extras install it; TensorFlow is not needed). Orbax writes checkpoint arrays to ``gs://``
itself, through tensorstore.

Object stores are not file systems, so three things are done differently for remote paths:

* Small files (``config.json``) are written in one upload, not temp-file-and-rename: an object
  upload is already atomic (a reader sees the old object or the new one), and a rename is a
  copy plus delete there.
* Append-only logs (``metrics.jsonl``, TensorBoard event files) cannot be appended to an
  object; `RemoteLog` keeps the file's bytes in memory and uploads the whole object on
  ``flush`` (at most every ``min_seconds``) and at ``close``, as TensorFlow's GCS file system
  and tensorboardX's own GCS writer do. A process killed without SIGTERM loses at most the
  last ``min_seconds`` of lines; the trainer cuts ``metrics.jsonl`` back to the resumed step.
* The ArrayRecord reader needs local files. `local_copy` copies a remote folder once per host
  into a cache folder keyed by its URI, checks every file's size (and MD5 where the store
  reports one), and marks the copy complete only then; a rerun reuses a complete copy whose
  listing (names and sizes) still matches the bucket and fetches it again otherwise.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import logging
import os
import pathlib
import shutil
import time
import uuid
from typing import Any

from etils import epath

#: URI schemes handled by `etils.epath` through fsspec (gcsfs, s3fs, adlfs).
REMOTE_SCHEMES = ("gs", "s3", "az")
#: Written into a `local_copy` folder last: its listing; a folder without it is incomplete.
COMPLETE_MARKER = ".complete.json"
_CHUNK = 1 << 20


def is_remote(path: str | os.PathLike) -> bool:
    """True for ``gs://...`` (and the other `REMOTE_SCHEMES`), False for local paths."""
    return os.fspath(path).split("://", 1)[0] in REMOTE_SCHEMES and "://" in os.fspath(path)


def path(p: str | os.PathLike) -> epath.Path:
    """An absolute path: local ones as `pathlib.Path.absolute` gives them, URIs unchanged."""
    if is_remote(p):
        return epath.Path(os.fspath(p))
    return epath.Path(pathlib.Path(p).absolute())


def absolute(p: str | os.PathLike) -> str:
    """`path` as a string (what configs and checkpoint metadata record)."""
    return os.fspath(path(p))


def makedirs(p: str | os.PathLike) -> epath.Path:
    """Creates a local folder (with parents); a no-op for URIs, where folders are only name
    prefixes (and creating one could mean creating the bucket). Returns `path` of it."""
    out = path(p)
    if not is_remote(out):
        out.mkdir(parents=True, exist_ok=True)
    return out


def write_text_atomic(target: str | os.PathLike, text: str) -> None:
    """Writes ``text`` so a reader sees the old content or the new, never a part.

    Local: a hidden temporary sibling renamed over the target. Its name is unique to the call
    (process id and a random part, created exclusively), so concurrent writers of one path
    never share a temporary: the last rename wins and each rename carries one whole text. It
    is created with ``open``'s permissions (the umask applies, unlike `tempfile.mkstemp`'s
    0600) and removed when the write fails. Remote: one upload (atomic there).
    """
    target = path(target)
    if is_remote(target):
        target.write_text(text, encoding="utf-8")
        return
    tmp = target.with_name(f".{target.name}.{os.getpid()}.{uuid.uuid4().hex[:12]}.tmp")
    try:
        with open(tmp, "x", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, target)
    except BaseException:
        pathlib.Path(tmp).unlink(missing_ok=True)
        raise


def write_json(target: str | os.PathLike, data: Any) -> None:
    """Atomic, indented, key-sorted JSON (run files: config snapshot, manifests)."""
    write_text_atomic(target, json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True) + "\n")


class RemoteLog:
    """A file in an object store written like an appended local file (see the module doc).

    ``initial``: the bytes already there to keep (the caller decides what to keep).
    ``flush`` uploads the whole content when ``min_seconds`` have passed since the last upload
    (0: every flush); ``close`` always uploads. Writes take ``str`` or ``bytes``.
    """

    def __init__(self, target: str | os.PathLike, initial: bytes = b"", min_seconds: float = 0):
        self.target = path(target)
        self.min_seconds = min_seconds
        self._buffer = io.BytesIO()
        self._buffer.write(initial)
        self._uploaded_at = float("-inf")
        self._dirty = True
        self.closed = False

    def write(self, data: str | bytes) -> int:
        raw = data.encode("utf-8") if isinstance(data, str) else data
        self._dirty = True
        return self._buffer.write(raw)

    def flush(self, force: bool = False) -> None:
        now = time.monotonic()
        if self._dirty and (force or now - self._uploaded_at >= self.min_seconds):
            self.target.write_bytes(self._buffer.getvalue())
            self._uploaded_at, self._dirty = now, False

    def close(self) -> None:
        if not self.closed:
            self.flush(force=True)
            self.closed = True


class _TensorBoardFactory:
    """tensorboardX writer factory: event files in a bucket through `RemoteLog`."""

    def open(self, target: str) -> RemoteLog:
        return RemoteLog(target)

    def directory_check(self, target: str) -> None:
        """Object stores need no folders."""


def register_tensorboard() -> None:
    """Sends tensorboardX event files under ``gs://`` etc. through this module (idempotent).

    Replaces tensorboardX's own ``gs`` writer, which needs ``google-cloud-storage``.
    """
    from tensorboardX import record_writer

    for scheme in REMOTE_SCHEMES:
        if not isinstance(record_writer.REGISTERED_FACTORIES.get(scheme), _TensorBoardFactory):
            record_writer.register_writer_factory(scheme, _TensorBoardFactory())


# ---------------------------------------------------------------------------------------------
# Copies of remote folders


def _listing(folder: epath.Path) -> dict[str, int]:
    """``{relative name: size}`` of every file under ``folder`` (recursive)."""
    out: dict[str, int] = {}
    stack = [folder]
    while stack:
        current = stack.pop()
        for child in current.iterdir():
            if os.fspath(child).rstrip("/") == os.fspath(current).rstrip("/"):
                continue  # a folder placeholder object listed as its own child
            if child.is_dir():
                stack.append(child)
            else:
                out[os.fspath(child)[len(os.fspath(folder)) + 1 :]] = int(child.stat().length)
    return dict(sorted(out.items()))


def _remote_md5(target: epath.Path) -> str | None:
    """The object's MD5 as hex when the store reports one (GCS: not for composite objects)."""
    try:
        from etils.epath import backend

        info = backend.fsspec_backend.fs(os.fspath(target)).info(os.fspath(target))
    except (ImportError, OSError, AttributeError):
        return None
    md5 = info.get("md5Hash")
    return base64.b64decode(md5).hex() if md5 else None


def _download(src: epath.Path, dst: pathlib.Path, size: int) -> dict[str, Any]:
    dst.parent.mkdir(parents=True, exist_ok=True)
    md5, sha = hashlib.md5(usedforsecurity=False), hashlib.sha256()
    n = 0
    with src.open("rb") as fin, open(dst, "wb") as fout:
        while chunk := fin.read(_CHUNK):
            fout.write(chunk)
            md5.update(chunk)
            sha.update(chunk)
            n += len(chunk)
    if n != size:
        raise OSError(f"{src}: copied {n} bytes but the listing says {size}")
    expected = _remote_md5(src)
    if expected is not None and expected != md5.hexdigest():
        raise OSError(f"{src}: MD5 of the copy {md5.hexdigest()} != the store's {expected}")
    return {"bytes": n, "sha256": sha.hexdigest(), "md5_checked": expected is not None}


def _complete(folder: pathlib.Path, listing: dict[str, int]) -> bool:
    marker = folder / COMPLETE_MARKER
    if not marker.is_file():
        return False
    recorded = json.loads(marker.read_text(encoding="utf-8"))
    if {k: v["bytes"] for k, v in recorded["files"].items()} != listing:
        return False
    return all(
        (folder / name).is_file() and (folder / name).stat().st_size == size
        for name, size in listing.items()
    )


def _remove_abandoned(cache: pathlib.Path, key: str) -> None:
    """Deletes temporary copies of ``key`` left by processes of this host that no longer run
    (a copy killed midway); a live process's copy is left alone."""
    for folder in cache.glob(f".{key}.*"):
        pid = folder.name.split(".")[2]
        if pid.isdigit():
            try:
                os.kill(int(pid), 0)
                continue  # still running
            except ProcessLookupError:
                pass
            except PermissionError:  # alive, another user's
                continue
        shutil.rmtree(folder, ignore_errors=True)


def local_copy(source: str | os.PathLike, cache_dir: str | os.PathLike) -> str:
    """A local folder with the content of ``source``: ``source`` itself (as given) when local.

    A remote folder is copied into ``cache_dir/<sha256(uri)[:16]>/`` (see the module doc).
    Several processes on one host may call this at once: each copies into its own temporary
    folder and the first rename wins; the others use the winner's copy.
    """
    if not is_remote(source):
        return os.fspath(source)
    src = path(source)
    if not src.is_dir():
        raise FileNotFoundError(f"{src} not found (or not a folder)")
    listing = _listing(src)
    key = hashlib.sha256(os.fspath(src).encode()).hexdigest()[:16]
    final = pathlib.Path(cache_dir).absolute() / key
    if _complete(final, listing):
        return os.fspath(final)
    final.parent.mkdir(parents=True, exist_ok=True)
    _remove_abandoned(final.parent, key)
    tmp = final.with_name(f".{key}.{os.getpid()}.{uuid.uuid4().hex[:8]}")
    try:
        logging.info(
            "copying %s (%d files, %d bytes) to %s", src, len(listing), sum(listing.values()), final
        )
        files = {name: _download(src / name, tmp / name, size) for name, size in listing.items()}
        marker = {"source": os.fspath(src), "files": files}
        (tmp / COMPLETE_MARKER).write_text(json.dumps(marker, indent=1, sort_keys=True) + "\n")
        if final.exists() and not _complete(final, listing):
            stale = final.with_name(f".{key}.stale.{uuid.uuid4().hex[:8]}")
            try:
                final.rename(stale)
                shutil.rmtree(stale, ignore_errors=True)
            except FileNotFoundError:  # another process moved it first
                pass
        try:
            tmp.rename(final)
        except OSError:  # another process on this host finished first
            if not _complete(final, listing):
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return os.fspath(final)


def copy_file(local: str | os.PathLike, target: str | os.PathLike) -> None:
    """Copies a local file to ``target`` (a URI or a local path, replaced atomically there)."""
    dest = path(target)
    if not is_remote(dest):
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = dest.with_name(f".{dest.name}.{os.getpid()}.tmp")
        shutil.copyfile(local, tmp)
        tmp.replace(dest)
        return
    with open(local, "rb") as fin, dest.open("wb") as fout:
        shutil.copyfileobj(fin, fout, _CHUNK)
    if dest.stat().length != os.path.getsize(local):
        raise OSError(f"{dest}: size differs from {local} after the upload")


def upload_folder(local: str | os.PathLike, target: str | os.PathLike) -> None:
    """Copies every file of a local folder to ``target`` (a URI or folder), checking sizes."""
    local = pathlib.Path(local)
    dest = path(target)
    for file in sorted(p for p in local.rglob("*") if p.is_file()):
        copy_file(file, dest / file.relative_to(local).as_posix())
