"""bench.provenance: the commit and the tree's state every benchmark record carries."""

from __future__ import annotations

import json
import subprocess

import pytest

from bench import provenance
from bench.__main__ import render


def _git(root, *args):
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path):
    _git(tmp_path, "init", "-q")
    (tmp_path / "bench").mkdir()
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "bench" / "RESULTS.md").write_text("old\n")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one")
    return tmp_path


def test_clean_tree_names_its_commit(repo):
    p = provenance.read_provenance(repo)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True)
    assert p["commit_full"] == head.stdout.strip() and p["commit"] == head.stdout.strip()[:7]
    assert p["clean"] is True and p["changed"] == 0
    assert provenance.describe(p) == f"commit {p['commit']} (clean tree)"


def test_rewritten_results_do_not_dirty_the_tree_but_code_does(repo):
    (repo / "bench" / "RESULTS.md").write_text("new\n")  # what the run itself rewrites
    (repo / "bench" / "RESULTS.json").write_text("{}\n")
    assert provenance.read_provenance(repo)["clean"] is True
    (repo / "a.py").write_text("x = 2\n")  # a changed module
    (repo / "new.py").write_text("y = 1\n")  # an untracked one runs too
    p = provenance.read_provenance(repo)
    assert p["clean"] is False and p["changed"] == 2
    assert set(p["changed_paths"]) == {"a.py", "new.py"}
    assert "2 uncommitted change(s)" in provenance.describe(p)


def test_outside_a_checkout_the_commit_is_unknown(tmp_path):
    p = provenance.read_provenance(tmp_path)
    assert p["commit"] is None and p["clean"] is None
    assert "unknown" in provenance.describe(p)


def test_stamp_and_environment(monkeypatch):
    given = {"commit": "abc1234", "clean": True, "changed": 0, "changed_paths": []}
    monkeypatch.setenv(provenance.ENV, json.dumps(given))
    assert provenance.stamp({"a": 1}) == {"a": 1, "provenance": given}
    assert provenance.stamp([1, 2]) == {"rows": [1, 2], "provenance": given}


def test_results_header_names_the_commit():
    prov = {"commit": "abc1234", "clean": False, "changed": 1, "changed_paths": ["x.py"]}
    rows = [{"what": "w", "reference": "r", "unit": "1/s", "ours": 2.0, "ref": 1.0}]
    md = render([{"name": "pii", "command": "c", "seconds": 1.0, "rows": rows}], "h", "f", prov)
    assert "Code measured: commit abc1234 **with 1 uncommitted change(s)** (x.py)" in md
    assert "| pii | w | r | 1/s | 2 | 1 | 2.00x |  |" in md
