"""Where the data lives: one resolution rule shared by every command.

Order: an explicit ``--data-dir``, the ``KLUE_DATA_DIR`` environment variable,
``./data`` (git-ignored, where ``python -m finetune.data download`` puts the
official archives), then ``../shared/data`` beside the repository when it
exists. The first that is given (or exists, for the last two) wins.
"""

from __future__ import annotations

import argparse
import logging
import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
ENV_VAR = "KLUE_DATA_DIR"
log = logging.getLogger(__name__)


def candidates(explicit: str | os.PathLike | None = None) -> list[Path]:
    """The data-dir candidates in priority order (for error messages and tests)."""
    out: list[Path] = []
    if explicit:
        out.append(Path(explicit))
    if os.environ.get(ENV_VAR):
        out.append(Path(os.environ[ENV_VAR]))
    out.append(Path.cwd() / "data")
    out.append(REPO_ROOT.parent / "shared" / "data")
    return out


def resolve_data_dir(explicit: str | os.PathLike | None = None) -> Path:
    """Returns the data directory to use; raises FileNotFoundError listing what was tried."""
    if explicit:
        path = Path(explicit)
        if not path.is_dir():
            raise FileNotFoundError(f"--data-dir {path} is not a directory")
        return path
    env = os.environ.get(ENV_VAR)
    if env:
        path = Path(env)
        if not path.is_dir():
            raise FileNotFoundError(f"{ENV_VAR}={path} is not a directory")
        return path
    for path in candidates()[-2:]:
        if path.is_dir():
            return path
    tried = ", ".join(str(p) for p in candidates())
    raise FileNotFoundError(
        f"no data directory found (tried {tried}); pass --data-dir, set {ENV_VAR}, "
        "or run `python -m finetune.data download --to data`"
    )


def klue_dir(data_dir: str | os.PathLike | None = None) -> Path:
    """The KLUE folder: ``<data-dir>/klue`` when present, else the data dir itself.

    The convention of every command is the *parent* of ``klue/``; the KLUE folder
    itself (the older form of ``finetune --data-dir``) is still accepted, with a note.
    """
    root = resolve_data_dir(data_dir)
    if (root / "klue").is_dir():
        return root / "klue"
    if data_dir and _looks_like_klue(root):
        log.info(
            "--data-dir %s is the KLUE folder itself: accepted; the convention is its parent "
            "(--data-dir %s)",
            root,
            root.parent,
        )
    return root


def _looks_like_klue(path: Path) -> bool:
    names = [p.name for p in path.iterdir()] if path.is_dir() else []
    return any(n.startswith(("klue-", "ynat-", "wos-")) for n in names)


def add_data_dir_argument(parser: argparse.ArgumentParser) -> None:
    """Adds the shared ``--data-dir`` option to a CLI parser."""
    parser.add_argument(
        "--data-dir",
        default=None,
        help=f"data directory, the parent of klue/ (default: ${ENV_VAR}, ./data, then "
        "../shared/data; the klue/ folder itself is accepted too)",
    )
