"""Where the data lives: one resolution rule shared by every command.

Order: an explicit ``--data-dir``, the ``KLUE_DATA_DIR`` environment variable,
``./data`` (git-ignored, where ``python -m finetune.data download`` puts the
official archives), then ``../shared/data`` beside the repository when it
exists. The first that is given (or exists, for the last two) wins.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
ENV_VAR = "KLUE_DATA_DIR"


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
    """The KLUE folder: ``<data-dir>/klue`` when present, else the data dir itself."""
    root = resolve_data_dir(data_dir)
    return root / "klue" if (root / "klue").is_dir() else root


def add_data_dir_argument(parser: argparse.ArgumentParser) -> None:
    """Adds the shared ``--data-dir`` option to a CLI parser."""
    parser.add_argument(
        "--data-dir",
        default=None,
        help=f"data directory (default: ${ENV_VAR}, ./data, then ../shared/data)",
    )
