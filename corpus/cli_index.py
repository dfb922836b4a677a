"""`python -m <package>` for each package: lists the package's entry points and what they do.

Each package's ``__main__`` calls `print_index` with its stages; the stage
CLIs themselves have full ``--help``.
"""

from __future__ import annotations

import importlib.util
import sys


def print_index(package: str, summary: str, stages: dict[str, str]) -> None:
    """Prints the package summary and its stage commands; exits 0 for --help and no args."""
    lines = [f"{package}: {summary}", "", "entry points:"]
    for name, what in stages.items():
        module = f"{package}.{name}"
        present = importlib.util.find_spec(module) is not None
        mark = "" if present else "  (not built yet)"
        lines.append(f"  python -m {module:<28} {what}{mark}")
    lines.append("")
    lines.append("Run any entry point with --help for its options.")
    print("\n".join(lines))
    args = sys.argv[1:]
    if args and args[0] not in ("-h", "--help"):
        print(f"\nunknown command {args[0]!r}", file=sys.stderr)
        raise SystemExit(2)
