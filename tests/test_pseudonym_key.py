"""The pseudonym key: no default, weak keys refused, a fingerprint that reveals nothing."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from corpus import pseudonym_key, pseudonymize
from corpus.pseudonym_key import PseudonymKeyError

REPO = Path(__file__).resolve().parents[1]
PHONE = "010-2345-6789"


@pytest.fixture(autouse=True)
def _no_key_env(monkeypatch):
    monkeypatch.delenv(pseudonym_key.KEY_FILE_ENV, raising=False)


def _inputs(folder: Path) -> Path:
    folder.mkdir()
    rows = [
        {
            "id": f"r-{PHONE}",
            "text": f"연락처 {PHONE} 입니다",
            "source": "s",
            "title": f"문의 {PHONE}",
        },
        {"id": "r2", "text": "메일 kim.minsu@example.co.kr 로 주세요", "source": "s", "n": 3},
        {"id": "r3", "text": "개인정보 없음", "source": f"src {PHONE}", "tags": [PHONE]},
    ]
    with gzip.open(folder / "a.jsonl.gz", "wt", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    return folder


def _run(tmp_path: Path, out: str, *extra: str) -> list[dict]:
    argv = ["--input", str(tmp_path / "in"), "--output", str(tmp_path / out), "--workers", "1"]
    assert pseudonymize.main([*argv, *extra]) == 0
    with gzip.open(tmp_path / out / "shard-00000.jsonl.gz", "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def _keygen(path: Path) -> bytes:
    assert pseudonymize.main(["keygen", "--output", str(path)]) == 0
    return pseudonym_key.load_key_file(path)


def test_keygen_writes_a_private_random_key_and_never_overwrites(tmp_path):
    path = tmp_path / "keys" / "k.key"
    key = _keygen(path)
    assert len(key) == pseudonym_key.KEYGEN_BYTES
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert pseudonym_key.key_file_is_private(path)
    with pytest.raises(FileExistsError):
        pseudonymize.main(["keygen", "--output", str(path)])
    assert pseudonym_key.load_key_file(path) == key
    assert _keygen(tmp_path / "k2.key") != key


def test_no_key_is_refused_with_instructions(tmp_path):
    _inputs(tmp_path / "in")
    with pytest.raises(PseudonymKeyError, match="keygen") as err:
        _run(tmp_path, "out")
    assert "--key-file" in str(err.value) and "--insecure-demo-key" in str(err.value)
    assert not (tmp_path / "out").exists()
    # from the shell: one clear line, exit status 2, no traceback
    res = subprocess.run(
        [sys.executable, "-m", "corpus.pseudonymize", "--input", str(tmp_path / "in"),
         "--output", str(tmp_path / "o")],
        cwd=REPO, capture_output=True, text=True, timeout=120,
        env={k: v for k, v in os.environ.items() if k != pseudonym_key.KEY_FILE_ENV},
    )  # fmt: skip
    assert res.returncode == 2 and "no pseudonym key" in res.stderr
    assert "Traceback" not in res.stderr


@pytest.mark.parametrize(
    "content",
    [
        "00" * 32,  # all zeros
        "1234" * 16,  # a typed pattern
        "0123456789abcdef",  # 64 bits only
        "20261130" * 8,  # a date repeated
        "my secret passphrase",  # not hex
        "",  # empty
        pseudonym_key.DEMO_KEY.hex(),  # the public default key
    ],
)
def test_weak_or_default_keys_are_refused(tmp_path, content):
    _inputs(tmp_path / "in")
    path = tmp_path / "weak.key"
    path.write_text(content + "\n")
    with pytest.raises(PseudonymKeyError):
        _run(tmp_path, "out", "--key-file", str(path))
    assert not (tmp_path / "out" / "manifest.json").exists()


def test_missing_key_file_and_both_flags_are_refused(tmp_path):
    _inputs(tmp_path / "in")
    with pytest.raises(PseudonymKeyError, match="does not exist"):
        _run(tmp_path, "out", "--key-file", str(tmp_path / "nope.key"))
    key = tmp_path / "k.key"
    _keygen(key)
    with pytest.raises(PseudonymKeyError, match="not both"):
        _run(tmp_path, "out", "--key-file", str(key), "--insecure-demo-key")


def _candidate_keys(n: int):
    """Keys an attacker tries first: small seeds in every obvious encoding, and the old scheme."""
    for i in range(n):
        s = str(i).encode()
        yield s
        yield i.to_bytes(16, "big")
        yield i.to_bytes(32, "little")
        yield hashlib.sha256(s).digest()
        yield hashlib.blake2b(b"seed:" + s, digest_size=16).digest()
        yield hashlib.blake2b(b"corpus.pii seed " + s, digest_size=32).digest()


def test_manifest_fingerprint_reveals_nothing_about_the_key(tmp_path):
    _inputs(tmp_path / "in")
    key_path = tmp_path / "k.key"
    key = _keygen(key_path)
    _run(tmp_path, "out", "--key-file", str(key_path), "--report", str(tmp_path / "spans.jsonl"))
    manifest_text = (tmp_path / "out" / "manifest.json").read_text()
    manifest = json.loads(manifest_text)
    fp = manifest["config"]["key_fingerprint"]
    assert manifest["config"]["insecure_demo_key"] is False
    assert fp == pseudonym_key.fingerprint(key)
    everything = manifest_text + (tmp_path / "spans.jsonl").read_text()
    for form in (key.hex(), key.hex().upper(), key_path.read_text().strip()):
        assert form not in everything
    # The fingerprint is an HMAC under a 256-bit random key: no small seed reproduces it.
    tried = {pseudonym_key.fingerprint(k) for k in _candidate_keys(20_000)}
    assert fp not in tried
    # and no seed-style digest of the old manifest field survives
    assert "seed" not in json.dumps(manifest["config"])


def test_two_keys_give_different_outputs_one_key_the_same(tmp_path, monkeypatch):
    _inputs(tmp_path / "in")
    k1, k2 = tmp_path / "k1.key", tmp_path / "k2.key"
    _keygen(k1)
    _keygen(k2)
    a = _run(tmp_path, "a", "--key-file", str(k1))
    b = _run(tmp_path, "b", "--key-file", str(k2))
    monkeypatch.setenv(pseudonym_key.KEY_FILE_ENV, str(k1))  # the environment names the file
    c = _run(tmp_path, "c")
    assert a[0]["text"] != b[0]["text"] and a[1]["text"] != b[1]["text"]
    assert a == c
    assert PHONE not in a[0]["text"] and PHONE not in b[0]["text"]
    fa = json.loads((tmp_path / "a" / "manifest.json").read_text())["config"]["key_fingerprint"]
    fb = json.loads((tmp_path / "b" / "manifest.json").read_text())["config"]["key_fingerprint"]
    assert fa != fb


def test_fields_default_to_every_string_field_but_id_and_source(tmp_path):
    _inputs(tmp_path / "in")
    recs = _run(tmp_path, "all", "--insecure-demo-key")
    assert PHONE not in recs[0]["title"] and recs[0]["title"].startswith("문의 ")
    assert PHONE not in recs[0]["text"]
    # identity and provenance, and non-string fields, are never rewritten
    assert recs[0]["id"] == f"r-{PHONE}" and recs[2]["source"] == f"src {PHONE}"
    assert recs[2]["tags"] == [PHONE] and recs[1]["n"] == 3
    stats = json.loads((tmp_path / "all" / "stats.json").read_text())
    assert stats["spans_by_field"] == {"text": 2, "title": 1}
    assert stats["changed"] == 2 and stats["read"] == 3
    only_text = _run(tmp_path, "text", "--insecure-demo-key", "--fields", "text")
    assert only_text[0]["title"] == f"문의 {PHONE}" and PHONE not in only_text[0]["text"]
    assert only_text[0]["text"] == recs[0]["text"]  # same key, same pseudonym
    manifest = json.loads((tmp_path / "text" / "manifest.json").read_text())
    assert manifest["config"]["fields"] == ["text"]
