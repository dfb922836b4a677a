"""corpus.prepare and corpus.dedup end to end: accounting, fields, bad input, resume after kill."""

from __future__ import annotations

import gzip
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from corpus import dedup, prepare
from corpus.matching import SIGNALS
from corpus.textio import InputError

FIX = Path(__file__).parent / "fixtures" / "corpus"
RAW = FIX / "raw"
KLUE = FIX / "klue"
REPO = Path(__file__).resolve().parent.parent


def _records(folder: Path) -> list[dict]:
    out = []
    for p in sorted(folder.glob("shard-*.jsonl.gz")):
        with gzip.open(p, "rt", encoding="utf-8") as fh:
            out.extend(json.loads(line) for line in fh)
    return out


def _stats(folder: Path) -> dict:
    return json.loads((folder / "stats.json").read_text(encoding="utf-8"))


def test_prepare_accounting_ids_fields_and_cross_shard_dedup(tmp_path):
    out = tmp_path / "records"
    assert prepare.main(["--input", str(RAW), "--output", str(out), "--workers", "1"]) == 0
    recs = _records(out)
    stats = _stats(out)
    assert stats["documents"] == 6 and stats["documents_empty"] == 1
    assert stats["sentences"] == stats["kept"] + sum(stats["removed"].values())
    for src in stats["by_source"].values():
        assert src["sentences"] == src["kept"] + sum(src["removed"].values())
    assert stats["kept"] == len(recs)
    # doc-5's first sentence repeats doc-2's, in another shard: removed by the global pass.
    assert stats["removed"] == {"duplicate_cross_shard": 1}
    ids = [r["id"] for r in recs]
    assert len(ids) == len(set(ids))
    by_id = {r["id"]: r for r in recs}
    assert by_id["doc-1-s0"]["url"] == "http://example.com/1"  # extra fields kept
    assert by_id["doc-1-s0"]["doc_id"] == "doc-1" and by_id["doc-1-s0"]["source"] == "news"
    assert "doc-5-s0" not in by_id and by_id["doc-5-s1"]["text"] == "고양이가 창가에서 낮잠을 잤다."


def test_prepare_min_chars_and_paper_default(tmp_path):
    out = tmp_path / "records"
    prepare.main(["--input", str(RAW), "--output", str(out), "--workers", "1", "--min-chars", "30"])
    stats = _stats(out)
    assert stats["removed"]["too_short"] > 0
    assert all(len(r["text"]) >= 30 for r in _records(out))
    # --source cc-100: the paper's 200-character minimum applies.
    out2 = tmp_path / "cc"
    prepare.main(
        ["--input", str(RAW), "--output", str(out2), "--source", "cc-100", "--workers", "1"]
    )
    assert _stats(out2)["kept"] == 0


def test_prepare_bad_input_raises_or_quarantines(tmp_path):
    bad = tmp_path / "in" / "bad.jsonl"
    bad.parent.mkdir()
    bad.write_text(
        '{"id":"a","text":"좋은 문장이다.","source":"s"}\n{"id":"b","text": \n'
        '{"id":"c","text":"또 다른 문장이다.","source":"s"}\n',
        encoding="utf-8",
    )
    with pytest.raises(InputError) as e:
        prepare.main(["--input", str(bad), "--output", str(tmp_path / "o1"), "--workers", "1"])
    assert "bad.jsonl:2" in str(e.value)
    out = tmp_path / "o2"
    prepare.main(
        ["--input", str(bad), "--output", str(out), "--workers", "1", "--on-error", "skip"]
    )
    stats = _stats(out)
    assert stats["documents"] == 2 and stats["kept"] == 2
    assert sum(stats["quarantined"].values()) == 1
    assert (out / "quarantine").is_dir()


def test_dedup_removes_benchmark_copies_and_accounts(tmp_path, caplog):
    records = tmp_path / "records"
    prepare.main(["--input", str(RAW), "--output", str(records), "--workers", "1"])
    out = tmp_path / "dedup"
    argv = ["--input", str(records), "--output", str(out), "--benchmark-dir", str(KLUE)]
    with caplog.at_level(logging.WARNING, logger="corpus.dedup"):
        assert dedup.main([*argv, "--workers", "1"]) == 0
    # what was indexed is in the manifest; the seven absent tasks are named, not skipped quietly
    bench = json.loads((out / "manifest.json").read_text())["benchmark"]
    assert bench["tasks"] == {"sts": {"dev": 10}}  # distinct sentences of the 5 pairs
    assert bench["missing"] == ["ynat", "nli", "ner", "re", "dp", "mrc", "wos"]
    assert any("no YNAT/NLI/NER/RE/DP/MRC/WOS data" in r.getMessage() for r in caplog.records)
    kept = {r["id"]: r for r in _records(out)}
    removed = {r["id"]: r for r in _records(out / "removed")}
    stats = _stats(out)
    assert stats["read"] == stats["kept"] + stats["removed"]["benchmark_match"]
    assert stats["read"] == _stats(records)["kept"]
    for src in stats["by_source"].values():
        assert src["read"] == src["kept"] + src["removed"]
    # An exact copy and a copy with another ending; a paraphrase (BM25 0.65, below the
    # calibrated 0.7: light edits are in scope, rewordings are not) is kept.
    assert {"doc-1-s0", "doc-3-s0"} <= set(removed) and "doc-6-s0" not in removed
    assert removed["doc-1-s0"]["benchmark_guid"] == "klue-sts-v1_dev_00000"
    assert removed["doc-1-s0"]["benchmark_task"] == "sts"
    assert removed["doc-1-s0"]["score"] >= 0.99 and removed["doc-1-s0"]["signal"] == "exact"
    assert all(r["signal"] in SIGNALS for r in removed.values())
    assert sum(stats["removed_by_signal"].values()) == len(removed)
    assert removed["doc-1-s0"]["url"] == "http://example.com/1"
    assert {"doc-1-s1", "doc-2-s0", "doc-2-s1", "doc-5-s1", "doc-6-s0"} <= set(kept)
    assert stats["removed_by_task"] == {"sts": len(removed)}
    # Threshold behaviour: the copy with another ending is a 0.89 verbatim overlap (the
    # calibrated share is 0.7) and a high BM25 similarity; at 0.99 (overlap and
    # containment only for whole benchmark sentences) only the exact copy is removed; at
    # BM25 0.6 the paraphrase is too.
    assert removed["doc-3-s0"]["signal"] == "overlap" and 0.85 < removed["doc-3-s0"]["score"] < 1
    # --data-dir takes the parent of klue/, as every command does (the index is the same)
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "klue").symlink_to(KLUE.resolve())
    common = [*argv[:2], "--data-dir", str(tmp_path / "data"), "--workers", "1"]
    common += ["--index-dir", str(out) + ".index"]
    strict, loose = tmp_path / "strict", tmp_path / "loose"
    strict_args = ["--threshold", "0.99", "--overlap-share", "1.0", "--containment", "1.0"]
    dedup.main([*common, "--output", str(strict), *strict_args])
    assert {r["id"] for r in _records(strict / "removed")} == {"doc-1-s0"}
    dedup.main([*common, "--output", str(loose), "--threshold", "0.6"])
    loose_removed = {r["id"]: r for r in _records(loose / "removed")}
    assert loose_removed["doc-6-s0"]["signal"] == "bm25" and set(removed) < set(loose_removed)


def _many_shards(folder: Path, n: int) -> None:
    folder.mkdir()
    src = [json.loads(x) for p in sorted(RAW.glob("*.jsonl")) for x in p.read_text().splitlines()]
    for i in range(n):
        with open(folder / f"part-{i:03d}.jsonl", "w", encoding="utf-8") as fh:
            for r in src:
                fh.write(json.dumps({**r, "id": f"{r['id']}-{i}"}, ensure_ascii=False) + "\n")


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != "manifest.json"
    }


def test_dedup_resume_after_sigkill_is_byte_identical(tmp_path):
    inputs = tmp_path / "in"
    _many_shards(inputs, 24)
    index_dir = tmp_path / "index"
    args = [
        "--input",
        str(inputs),
        "--benchmark-dir",
        str(KLUE),
        "--workers",
        "1",
        "--index-dir",
        str(index_dir),
    ]
    ref = tmp_path / "ref"
    dedup.main([*args, "--output", str(ref)])
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "corpus.dedup", *args, "--output", str(out)],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    done = out / ".done"
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None:
        if done.is_dir() and len(list(done.iterdir())) >= 3:
            break
        time.sleep(0.02)
    assert proc.poll() is None, "run finished before it could be killed; use more shards"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    finished = len(list(done.iterdir()))
    assert 0 < finished < 24
    assert not (out / "manifest.json").exists()
    assert dedup.main([*args, "--output", str(out)]) == 0
    assert _tree(out) == _tree(ref)
    shutil.rmtree(out)


def test_prepare_output_does_not_depend_on_worker_count(tmp_path):
    inputs = tmp_path / "in"
    _many_shards(inputs, 4)
    one, two = tmp_path / "one", tmp_path / "two"
    prepare.main(["--input", str(inputs), "--output", str(one), "--workers", "1"])
    prepare.main(["--input", str(inputs), "--output", str(two), "--workers", "2"])
    assert _tree(one) == _tree(two)
    # Every shard after the first repeats the first: all its sentences are cross-shard duplicates.
    stats = _stats(one)
    assert stats["removed"]["duplicate_cross_shard"] == 3 * stats["kept"]
    assert stats["kept"] == len(_records(one))


def test_dedup_index_fingerprint_follows_symlinked_benchmark_folders(tmp_path):
    """A KLUE folder of links to the real task folders (a common layout): the index
    fingerprint covers the files behind the links, so changing them rebuilds the index."""
    real = tmp_path / "real"
    shutil.copytree(KLUE, real)
    klue = tmp_path / "klue"
    klue.mkdir()
    (klue / "klue-sts-v1.1").symlink_to(real / "klue-sts-v1.1", target_is_directory=True)
    (klue / "loop").symlink_to(klue, target_is_directory=True)  # a cycle is walked once
    files = dedup._benchmark_files(str(klue))
    assert [f["path"] for f in files] == ["klue-sts-v1.1/klue-sts-v1.1_dev.json"]
    index_dir = str(tmp_path / "index")
    _, fp1, _ = dedup.load_or_build_index(str(klue), index_dir, "morph")
    assert dedup.load_or_build_index(str(klue), index_dir, "morph")[1] == fp1
    dev = real / "klue-sts-v1.1" / "klue-sts-v1.1_dev.json"
    data = json.loads(dev.read_text(encoding="utf-8"))
    data[0]["sentence1"] = "바뀐 벤치마크 문장이 새로 들어왔다."
    dev.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    _, fp2, _ = dedup.load_or_build_index(str(klue), index_dir, "morph")
    assert fp2 != fp1
    keys = json.loads((tmp_path / "index" / dedup.KEYS_FILE).read_text(encoding="utf-8"))
    assert "바뀐벤치마크문장이새로들어왔다" in keys


def test_dedup_rare_quote_counts_phrases_over_the_whole_corpus(tmp_path):
    """The first pass counts each short benchmark sentence over every shard: a phrase that
    two sentences of one file and one of another hold is common (3 > 2) although no shard
    alone holds it more than twice; a phrase held once is a quote and removed."""
    klue = tmp_path / "klue" / "klue-sts-v1.1"
    klue.mkdir(parents=True)
    items = json.loads((KLUE / "klue-sts-v1.1" / "klue-sts-v1.1_dev.json").read_text())
    for i, s in enumerate(["소녀는 가출했다.", "집이 따스했어요."]):
        items.append({**items[0], "guid": f"klue-sts-v1_dev_1000{i}", "sentence1": s})
    (klue / "klue-sts-v1.1_dev.json").write_text(json.dumps(items, ensure_ascii=False))
    inputs = tmp_path / "in"
    inputs.mkdir()
    lines = {
        "a": ["어제 본 영화에서 소녀는 가출했다 그리고 다시 돌아왔다", "그 집이 따스했어요 정말로"],
        "b": ["겨울에 갔는데 집이 따스했어요 좋네요", "고양이가 창가에서 낮잠을 잤다"],
        "c": ["주인 분이 친절하고 집이 따스했어요"],
    }
    for name, texts in lines.items():
        with open(inputs / f"{name}.jsonl", "w", encoding="utf-8") as fh:
            for i, t in enumerate(texts):
                fh.write(json.dumps({"id": f"{name}{i}", "text": t}, ensure_ascii=False) + "\n")
    out = tmp_path / "dedup"
    argv = ["--input", str(inputs), "--output", str(out), "--benchmark-dir", str(tmp_path / "klue")]
    argv += ["--quote-weight", "0", "--no-quoted-span", "--workers", "1"]
    argv += ["--quote-max-per-million", "400000"]  # 2 of the 5 sentences
    assert dedup.main(argv) == 0
    removed = {r["id"]: r for r in _records(out / "removed")}
    assert set(removed) == {"a0"}
    assert removed["a0"]["signal"] == "rare_quote" and removed["a0"]["score"] == 1
    assert removed["a0"]["benchmark_guid"] == "klue-sts-v1_dev_10000"
    phrases = _stats(Path(str(out) + ".phrases"))
    assert phrases["read"] == 5 and sorted(phrases["phrases"].values()) == [1, 3]
    assert _stats(out)["kept"] == 4


def test_dedup_index_build_shows_progress_and_a_ctrl_c_says_it_starts_over(
    tmp_path, caplog, capsys, monkeypatch
):
    """Building the index (Mecab over every KLUE sentence) took 2 minutes with no line; a
    Ctrl-C there said "resume", though nothing of the index is kept."""
    from corpus import cli

    monkeypatch.setenv("CORPUS_PROGRESS_SECONDS", "0")
    with caplog.at_level(logging.INFO, logger="corpus.dedup"):
        dedup.load_or_build_index(str(KLUE), str(tmp_path / "index"), "eojeol")
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("dedup-index:")]
    assert any(line.startswith("dedup-index: reading sts ") for line in lines)
    counted = [line for line in lines if "benchmark sentences" in line]
    assert counted and "ETA" in counted[0]

    def stop(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(dedup, "tokenize", stop)
    index_dir = str(tmp_path / "index2")
    with pytest.raises(SystemExit) as exit_:
        cli.run(lambda: dedup.load_or_build_index(str(KLUE), index_dir, "eojeol"))
    assert exit_.value.code == 130
    err = capsys.readouterr().err.strip()
    assert err == dedup.INDEX_INTERRUPTED.format(index_dir=index_dir)
    assert "starts it again" in err and "Traceback" not in err
