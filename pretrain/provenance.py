"""What a pretrained model was trained on, read from the manifests of the stages that made it.

The model card must say what was done, not what the pipeline usually does: a
user who trains on their own text without `corpus.dedup` or
`corpus.pseudonymize` gets a card that says neither ran. Every stage writes a
``manifest.json`` naming its input files (`corpus.executor`,
`pretrain.build_data`), so walking from the examples folder up through the
folders of those inputs gives the chain of stages (with their counts) and, at
the end, the raw files.

Sources are the raw files grouped by the nearest folder with a ``README.md``
(the shared data folders declare ``* License: **CC BY-SA 4.0**`` there); their
sizes are summed. The model's licence follows from the sources' licences
(`combined_license`): any share-alike source makes it share-alike, an unknown
one makes it unknown. ``--license`` overrides.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

#: Declared licences (as the data READMEs write them, lower case) -> Hugging Face licence ids.
LICENSE_IDS = {
    "cc by-sa 4.0": "cc-by-sa-4.0",
    "cc by-sa 3.0": "cc-by-sa-3.0",
    "cc by 4.0": "cc-by-4.0",
    "cc0 1.0": "cc0-1.0",
    "mit": "mit",
    "apache 2.0": "apache-2.0",
    "public domain": "public-domain",
}
#: Licence ids from the most to the least demanding; a model takes its most demanding source's.
ORDER = (
    "cc-by-sa-4.0", "cc-by-sa-3.0", "cc-by-4.0", "apache-2.0", "mit", "cc0-1.0", "public-domain",
)  # fmt: skip
#: How a stage's work reads on the card.
STAGE_TEXT = {
    "prepare": "normalised, split into sentences, length-filtered and exactly deduplicated "
    "(`corpus.prepare`)",
    "dedup": "sentences copying a KLUE benchmark sentence removed (`corpus.dedup`)",
    "pseudonymize": "personal information replaced by consistent pseudonyms "
    "(`corpus.pseudonymize`)",
    "pretrain.build_data": "tokenised into pretraining examples (`pretrain.build_data`)",
}
_LICENSE_LINE = re.compile(r"^\s*[*-]\s*Licen[cs]e:\s*(.+)$", re.IGNORECASE)
_BOLD = re.compile(r"\*\*([^*]+)\*\*")


def declared_license(readme: Path) -> str | None:
    """The licence id a data README declares (``* License: **CC BY-SA 4.0**``), if known."""
    try:
        lines = readme.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    for line in lines:
        m = _LICENSE_LINE.match(line)
        if m:
            bold = _BOLD.search(m.group(1))
            text = (bold.group(1) if bold else m.group(1)).strip().lower()
            return LICENSE_IDS.get(text)
    return None


def combined_license(licenses: list[str | None]) -> str:
    """The model's licence from its sources': ``unknown`` if any is unknown (or none given),
    else the most demanding, with share-alike 3.0 text relicensable under 4.0 (BY-SA 3.0
    allows later versions) when both occur."""
    if not licenses or any(lic is None for lic in licenses):
        return "unknown"
    found = set(licenses)
    if "cc-by-sa-3.0" in found and found & {"cc-by-sa-4.0", "cc-by-4.0"}:
        return "cc-by-sa-4.0"  # BY 4.0 text may go into BY-SA 4.0 work; BY-SA 3.0 allows 4.0
    return min(found, key=ORDER.index)


def _manifest(folder: Path) -> dict | None:
    try:
        return json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _source_folder(path: Path, stop_at: int = 3) -> Path:
    """The nearest folder above `path` with a README.md (at most `stop_at` levels up)."""
    folder = path.parent
    for _ in range(stop_at):
        if (folder / "README.md").is_file():
            return folder
        if folder.parent == folder:
            break
        folder = folder.parent
    return path.parent


def _removed(counts: dict) -> int | None:
    removed = counts.get("removed")
    if isinstance(removed, dict):
        return sum(v for v in removed.values() if isinstance(v, int))
    return removed if isinstance(removed, int) else None


def trace(examples_dir: str | os.PathLike) -> dict[str, Any]:
    """``{"stages": [...], "sources": [...], "license": id}`` for an examples folder.

    Stages run from the first (raw text in) to the examples, each with its folder and
    counts; sources are ``{"folder", "files", "bytes", "license"}``.
    """
    stages: list[dict] = []
    raw: dict[str, int] = {}
    seen: set[Path] = set()
    frontier = [Path(examples_dir)]
    while frontier:
        folder = frontier.pop()
        if folder in seen:
            continue
        seen.add(folder)
        manifest = _manifest(folder)
        if manifest is None:
            continue
        counts = manifest.get("counts", {}) or {}
        stages.append(
            {
                "stage": manifest.get("stage", "?"),
                "folder": str(folder),
                "kept": counts.get("kept", manifest.get("examples")),
                "removed": _removed(counts),
                "changed": counts.get("changed"),
            }
        )
        for item in manifest.get("inputs", []):
            path = Path(item["path"])
            if _manifest(path.parent) is not None:
                frontier.append(path.parent)
            else:
                raw[str(path)] = int(item.get("bytes", 0))
    stages.reverse()  # found from the examples back to the raw text
    by_folder: dict[Path, dict] = {}
    for path, size in sorted(raw.items()):
        folder = _source_folder(Path(path))
        row = by_folder.setdefault(
            folder, {"folder": str(folder), "files": 0, "bytes": 0, "license": None}
        )
        row["files"] += 1
        row["bytes"] += size
    for folder, row in by_folder.items():
        row["license"] = declared_license(folder / "README.md")
    sources = list(by_folder.values())
    return {
        "stages": stages,
        "sources": sources,
        "license": combined_license([s["license"] for s in sources]),
    }


def corpus_text(prov: dict[str, Any]) -> str:
    """The card's "Training data" section body: sources with sizes and licences, then the
    processing actually applied (the stages found, in order, with their counts)."""
    lines = ["Sources (raw text as given to the first stage):", ""]
    for s in prov["sources"]:
        lines.append(
            f"- `{Path(s['folder']).name}`: {s['files']} file(s), {s['bytes'] / 1e6:,.1f} MB, "
            f"licence {s['license'] or 'unknown (no declared licence found)'}"
        )
    if not prov["sources"]:
        lines.append("- not recorded (the examples' inputs have no manifest to follow)")
    lines += ["", "Processing applied (from each stage's manifest):", ""]
    for st in prov["stages"]:
        what = STAGE_TEXT.get(st["stage"], f"`{st['stage']}`")
        facts = [f"{k} {st[k]:,}" for k in ("kept", "removed", "changed") if isinstance(st[k], int)]
        lines.append(f"- {what}" + (f": {', '.join(facts)}" if facts else ""))
    ran = {st["stage"] for st in prov["stages"]}
    for stage, absent in (
        ("dedup", "not decontaminated against the KLUE benchmark (`corpus.dedup` did not run)"),
        ("pseudonymize", "not pseudonymised (`corpus.pseudonymize` did not run)"),
    ):
        if stage not in ran:
            lines.append(f"- {absent}")
    return "\n".join(lines)
