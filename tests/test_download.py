"""`python -m finetune.data download` against a local HTTP server (127.0.0.1); no internet."""

from __future__ import annotations

import dataclasses
import hashlib
import http.server
import tarfile
import threading
from pathlib import Path

import pytest

from corpus import klue
from finetune import data

FIXTURES = Path(__file__).parent / "fixtures" / "klue"


class _Handler(http.server.SimpleHTTPRequestHandler):
    requests: list[str] = []
    lie_about_length: set[str] = set()

    def do_GET(self):  # noqa: N802 (http.server API)
        type(self).requests.append(self.path)
        name = self.path.lstrip("/")
        if name in self.lie_about_length:
            body = (Path(self.directory) / name).read_bytes()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body) + 100))
            self.end_headers()
            self.wfile.write(body)
            return
        super().do_GET()

    def log_message(self, *args):  # keep test output quiet
        pass


@pytest.fixture
def server(tmp_path):
    """Serves `tmp_path/srv` on 127.0.0.1 with the official archive layout for NLI and WoS."""
    root = tmp_path / "srv"
    for number, folder in [(68, "klue-nli-v1.1"), (73, "wos-v1.1")]:
        out = root / f"{number:06d}" / "data"
        out.mkdir(parents=True)
        with tarfile.open(out / f"{folder}.tar.gz", "w:gz") as tar:
            tar.add(FIXTURES / folder, arcname=folder)
    (root / "wos-v1.1").mkdir()
    (root / "wos-v1.1" / "ontology.json").write_bytes(
        (FIXTURES / "wos-v1.1" / "ontology.json").read_bytes()
    )

    class Handler(_Handler):
        requests: list[str] = []
        lie_about_length: set[str] = set()

        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(root), **kwargs)

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/", root, Handler
    finally:
        httpd.shutdown()
        httpd.server_close()


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def with_hashes(monkeypatch, **hashes: str | None) -> None:
    """Replaces the expected SHA-256 of some archives (the fixture is not the real archive)."""
    table = dict(data.ARCHIVES)
    for task, value in hashes.items():
        table[task] = dataclasses.replace(table[task], sha256=value)
    monkeypatch.setattr(data, "ARCHIVES", table)


def test_wrong_hash_leaves_nothing_behind(server, tmp_path):
    base, _, handler = server
    dest = tmp_path / "out"
    logs: list[str] = []
    # the table's NLI hash is the real archive's; the fixture archive differs
    result = data.download(dest, ["nli"], base_url=base, log=logs.append)
    assert result["failed"] == [str(dest / "klue-nli-v1.1.tar.gz")]
    assert not any(dest.iterdir())  # neither the file nor a temporary .part
    assert any("sha256 mismatch" in line and data.ARCHIVES["nli"].sha256 in line for line in logs)
    assert handler.requests == ["/000068/data/klue-nli-v1.1.tar.gz"]


def test_verified_download_then_skip(server, tmp_path, monkeypatch):
    base, root, handler = server
    served = root / "000068" / "data" / "klue-nli-v1.1.tar.gz"
    with_hashes(monkeypatch, nli=sha(served))
    dest = tmp_path / "out"
    result = data.download(dest, ["nli"], base_url=base, log=lambda _: None)
    assert result["verified"] == [str(dest / "klue-nli-v1.1.tar.gz")]
    assert (dest / "klue-nli-v1.1.tar.gz").read_bytes() == served.read_bytes()
    assert len(klue.load("nli", "train", dest)) == 3  # readable in place
    result = data.download(dest, ["nli"], base_url=base, log=lambda _: None)
    assert result["skipped"] == [str(dest / "klue-nli-v1.1.tar.gz")]
    assert len(handler.requests) == 1  # the second run made no request


def test_stale_file_with_wrong_hash_is_replaced(server, tmp_path, monkeypatch):
    base, root, _ = server
    served = root / "000068" / "data" / "klue-nli-v1.1.tar.gz"
    with_hashes(monkeypatch, nli=sha(served))
    dest = tmp_path / "out"
    dest.mkdir()
    (dest / "klue-nli-v1.1.tar.gz").write_bytes(b"half a file")
    result = data.download(dest, ["nli"], base_url=base, log=lambda _: None)
    assert result["verified"] and sha(dest / "klue-nli-v1.1.tar.gz") == sha(served)


def test_unknown_hash_prints_the_computed_one(server, tmp_path, monkeypatch, capsys):
    base, root, handler = server
    with_hashes(monkeypatch, wos=None)
    dest = tmp_path / "out"
    assert data.main(["download", "--to", str(dest), "--tasks", "wos", "--base-url", base]) == 0
    out = capsys.readouterr().out
    digest = sha(root / "000073" / "data" / "wos-v1.1.tar.gz")
    assert f"sha256 {digest}; UNVERIFIED" in out
    assert "1 unverified" in out
    assert len(klue.load("wos", "train", dest)) == 2
    assert data.main(["download", "--to", str(dest), "--tasks", "wos", "--base-url", base]) == 0
    assert "1 already present" in capsys.readouterr().out
    assert len(handler.requests) == 1


def test_missing_file_fails_but_others_continue(server, tmp_path, monkeypatch, capsys):
    base, root, _ = server
    with_hashes(monkeypatch, wos=sha(root / "000073" / "data" / "wos-v1.1.tar.gz"))
    dest = tmp_path / "out"
    code = data.main(["download", "--to", str(dest), "--tasks", "ner", "wos", "--base-url", base])
    out = capsys.readouterr().out
    assert code == 1
    assert "HTTP 404" in out and "000069/data/klue-ner-v1.1.tar.gz" in out
    assert (dest / "wos-v1.1.tar.gz").is_file() and not (dest / "klue-ner-v1.1.tar.gz").exists()
    assert "1 verified" in out and "1 failed" in out


def test_truncated_transfer_is_an_error(server, tmp_path, monkeypatch):
    base, root, handler = server
    name = "000073/data/wos-v1.1.tar.gz"
    handler.lie_about_length.add(name)
    with_hashes(monkeypatch, wos=None)
    dest = tmp_path / "out"
    logs: list[str] = []
    result = data.download(dest, ["wos"], base_url=base, log=logs.append)
    assert result["failed"] and not any(dest.iterdir())
    assert any("truncated" in line or "IncompleteRead" in line for line in logs), logs


def test_github_source_layout(server, tmp_path, monkeypatch):
    base, root, _ = server
    files = tuple(
        dataclasses.replace(f, sha256=sha(root / "wos-v1.1" / "ontology.json"))
        for f in data.GITHUB_FILES
        if f.path == "wos-v1.1/ontology.json"
    )
    monkeypatch.setattr(data, "GITHUB_FILES", files)
    dest = tmp_path / "out"
    result = data.download(dest, ["wos"], source="github", base_url=base, log=lambda _: None)
    assert result["verified"] == [str(dest / "wos-v1.1" / "ontology.json")]
    assert len(klue.ontology(dest)) == 8


def test_tables_and_arguments():
    assert set(data.ARCHIVES) == set(data.TASKS)
    assert {f.task for f in data.GITHUB_FILES} == set(data.TASKS)
    for f in (*data.ARCHIVES.values(), *data.GITHUB_FILES):
        assert f.sha256 is None or (len(f.sha256) == 64 and int(f.sha256, 16) >= 0)
    assert (
        data.ARCHIVES["ner"]
        .url(data.ARCHIVE_BASE_URL)
        .endswith("/Competitions/000069/data/klue-ner-v1.1.tar.gz")
    )
    with pytest.raises(ValueError, match="unknown task"):
        data.files_for(["pos"], "archives")
    with pytest.raises(SystemExit):
        data.main(["download", "--tasks", "pos"])


def _real_klue_dir() -> Path | None:
    from corpus.datadir import resolve_data_dir

    try:
        path = resolve_data_dir() / "klue"
    except FileNotFoundError:
        return None
    return path if path.is_dir() else None


@pytest.mark.skipif(_real_klue_dir() is None, reason="real KLUE data (../shared/data) not found")
def test_known_hashes_match_the_real_files():
    """Every hash in the tables is checked against the real copy where the shared data has one."""
    from corpus.klue.files import find_file

    root = _real_klue_dir()
    checked = 0
    for f in data.GITHUB_FILES:
        if f.sha256 is None:
            continue
        found = find_file(root, f.task, Path(f.path).name)
        assert found is not None, f.path
        assert hashlib.sha256(found.read_bytes()).hexdigest() == f.sha256, f.path
        checked += 1
    archive = root / data.ARCHIVES["nli"].local
    assert sha(archive) == data.ARCHIVES["nli"].sha256
    assert checked == sum(f.sha256 is not None for f in data.GITHUB_FILES) == 10
