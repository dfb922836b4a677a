"""The model card's corpus facts come from the manifests of the stages that ran."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pretrain.provenance import combined_license, corpus_text, declared_license, trace


def _manifest(folder: Path, stage: str, inputs: list[Path], counts: dict) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    rows = [{"path": str(p), "bytes": p.stat().st_size} for p in inputs]
    (folder / "manifest.json").write_text(
        json.dumps({"stage": stage, "inputs": rows, "counts": counts})
    )


def chain(root: Path, stages: list[str], sources: dict[str, str | None]) -> Path:
    """Raw source folders (a README declaring each licence; None: no README) -> the given
    corpus stages -> an examples folder; returns the examples folder."""
    raw = []
    for name, lic in sources.items():
        folder = root / "raw" / name
        folder.mkdir(parents=True)
        if lic is not None:
            (folder / "README.md").write_text(f"# {name}\n\n* License: **{lic}** (LICENSE).\n")
        (folder / "part.txt").write_text("문장 하나.\n" * 100, encoding="utf-8")
        raw.append(folder / "part.txt")
    inputs = raw
    counts = {
        "prepare": {"kept": 90, "removed": {"too_short": 4, "duplicate": 6}},
        "dedup": {"kept": 88, "removed": {"benchmark_match": 2}},
        "pseudonymize": {"read": 88, "changed": 5},
    }
    for stage in stages:
        folder = root / stage
        _manifest(folder, stage, inputs, counts[stage])
        (folder / "shard-00000.jsonl.gz").write_bytes(b"x")
        inputs = [folder / "shard-00000.jsonl.gz"]
    _manifest(root / "examples", "pretrain.build_data", inputs, {"examples": 12})
    return root / "examples"


def test_trace_lists_the_stages_that_ran_sources_sizes_and_licences(tmp_path):
    ex = chain(tmp_path, ["prepare", "dedup"], {"wiki": "CC BY-SA 4.0", "chat": "MIT"})
    prov = trace(ex)
    assert [s["stage"] for s in prov["stages"]] == ["prepare", "dedup", "pretrain.build_data"]
    assert prov["stages"][0]["removed"] == 10 and prov["stages"][1]["removed"] == 2
    assert [(Path(s["folder"]).name, s["license"]) for s in prov["sources"]] == [
        ("chat", "mit"),
        ("wiki", "cc-by-sa-4.0"),
    ]
    assert all(s["bytes"] == len("문장 하나.\n".encode()) * 100 for s in prov["sources"])
    assert prov["license"] == "cc-by-sa-4.0"
    text = corpus_text(prov)
    assert "benchmark sentence removed (`corpus.dedup`): kept 88, removed 2" in text
    assert "not pseudonymised (`corpus.pseudonymize` did not run)" in text
    assert "not decontaminated" not in text


def test_an_undeclared_source_makes_the_licence_unknown(tmp_path):
    prov = trace(chain(tmp_path, ["prepare"], {"wiki": "CC BY-SA 3.0", "mine": None}))
    assert prov["license"] == "unknown"
    assert "unknown (no declared licence found)" in corpus_text(prov)
    assert "not decontaminated" in corpus_text(prov)


@pytest.mark.parametrize(
    "licenses, expected",
    [
        (["cc-by-sa-3.0"], "cc-by-sa-3.0"),
        (["cc-by-sa-3.0", "cc-by-sa-4.0"], "cc-by-sa-4.0"),
        (["cc0-1.0", "mit"], "mit"),
        (["public-domain"], "public-domain"),
        (["mit", None], "unknown"),
        ([], "unknown"),
    ],
)
def test_combined_license(licenses, expected):
    assert combined_license(licenses) == expected


def test_declared_license_reads_the_shared_readme_forms(tmp_path):
    cases = {
        "* License: **CC BY-SA 4.0** (`LICENSE.md`, copied).": "cc-by-sa-4.0",
        "* License: **MIT** (`LICENSE`). Cite: ...": "mit",
        "* License: **CC0 1.0** (public domain dedication)": "cc0-1.0",
        "* License: **public domain** — statutes": "public-domain",
        "* License: the archive repository has **no license file**.": None,
        "No licence line at all.": None,
    }
    for i, (line, expected) in enumerate(cases.items()):
        readme = tmp_path / f"r{i}.md"
        readme.write_text(f"# data\n\n{line}\n", encoding="utf-8")
        assert declared_license(readme) == expected, line
