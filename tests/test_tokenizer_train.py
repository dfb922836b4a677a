"""Training tests on tiny vocabularies: format, ids, determinism, loading, bad input."""

from __future__ import annotations

import filecmp
import importlib.util
import json
import os
from pathlib import Path

import pytest
from tokenizers import Tokenizer

from tokenizer.morphemes import MorphemeSplitter
from tokenizer.train import EmptyCorpusError, main, train_tokenizer
from tokenizer.wordpiece import SPECIAL_TOKENS, is_artefact

FIXTURES = Path(__file__).parent / "fixtures" / "tokenizer"
_spec = importlib.util.spec_from_file_location("korean_sentences", FIXTURES / "korean_sentences.py")
korean = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(korean)

VOCAB = 400
TEXTS = korean.lines(2500, seed=0) + ["#해시태그 C# ▁밑줄 글자", "이메일 a#b@c.d 주소"] * 5
HELD_OUT = korean.lines(300, seed=1)
FILES = ("vocab.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("tok")
    return {
        m: train_tokenizer(TEXTS, root / m, vocab_size=VOCAB, method=m, seed=0, workers=1)
        for m in ("morpheme-bpe", "bpe", "sentencepiece-bpe")
    }


def _vocab(d: Path) -> list[str]:
    return (d / "vocab.txt").read_text("utf-8").splitlines()


@pytest.mark.parametrize("method", ["morpheme-bpe", "bpe", "sentencepiece-bpe"])
def test_folder_ids_size_and_no_artefacts(trained, method):
    d = trained[method]
    for name in (*FILES, "train_stats.json", "manifest.json"):
        assert (d / name).is_file(), name
    vocab = _vocab(d)
    assert len(vocab) == VOCAB == len(set(vocab))
    assert vocab[:5] == ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tok = Tokenizer.from_file(str(d / "tokenizer.json"))
    assert tok.get_vocab_size() == VOCAB
    assert [tok.token_to_id(t) for t in SPECIAL_TOKENS] == [0, 1, 2, 3, 4]
    assert [t for t in vocab if is_artefact(t)] == []
    assert "##" not in vocab and "###" not in vocab and "#" in vocab
    assert [t for t in vocab if "▁" in t] == ["▁", "##▁"]
    config = json.loads((d / "tokenizer_config.json").read_text())
    assert config["do_lower_case"] is False and config["strip_accents"] is False
    assert config["model_max_length"] == 512
    stats = json.loads((d / "train_stats.json").read_text())
    assert stats["method"] == method and stats["vocab_size"] == VOCAB


@pytest.mark.parametrize("method", ["morpheme-bpe", "bpe"])
def test_hash_and_space_mark_survive(trained, method):
    tok = Tokenizer.from_file(str(trained[method] / "tokenizer.json"))
    text = "#해시태그 C# ▁밑줄 ##"
    enc = tok.encode(text, add_special_tokens=False)
    assert "[UNK]" not in enc.tokens
    assert "".join(t.removeprefix("##") for t in enc.tokens) == text.replace(" ", "")
    assert enc.tokens[0] == "#" and enc.tokens[-2:] == ["#", "#"]
    assert "▁" in enc.tokens
    assert tok.decode(enc.ids).replace(" ", "") == text.replace(" ", "")


def test_morpheme_vocab_segments_at_morpheme_boundaries(trained):
    tok = Tokenizer.from_file(str(trained["morpheme-bpe"] / "tokenizer.json"))
    enc = tok.encode("나는 밥을 먹는다.", add_special_tokens=True)
    assert enc.tokens == ["[CLS]", "나", "##는", "밥", "##을", "먹", "##는다", ".", "[SEP]"]
    for word, pieces in {
        "학생은": ["학생", "##은"],
        "친구를": ["친구", "##를"],
        "읽었다": ["읽", "##었", "##다"],
        "도서관에서": ["도서관", "##에서"],
    }.items():
        assert tok.encode(word, add_special_tokens=False).tokens == pieces, word


def _crossing_share(tok_dir: Path, lines: list[str]) -> float:
    """Share of tokens that straddle a Mecab morpheme boundary (a cut strictly inside them)."""
    tok = Tokenizer.from_file(str(tok_dir / "tokenizer.json"))
    splitter = MorphemeSplitter()
    tokens = crossing = 0
    for line in lines:
        cuts = splitter.boundaries(line)
        enc = tok.encode(line, add_special_tokens=False)
        for start, end in enc.offsets:
            tokens += 1
            crossing += any(start < c < end for c in cuts)
    return crossing / tokens


def test_held_out_tokens_do_not_cross_morpheme_boundaries(trained):
    morph = _crossing_share(trained["morpheme-bpe"], HELD_OUT)
    plain = _crossing_share(trained["bpe"], HELD_OUT)
    assert morph < 0.01
    assert plain > morph + 0.01  # plain BPE merges across morphemes (e.g. 학생은, 먹었다)


@pytest.mark.parametrize("method", ["morpheme-bpe", "sentencepiece-bpe"])
def test_transformers_loads_with_identical_ids(trained, method):
    transformers = pytest.importorskip("transformers")
    d = trained[method]
    fast = transformers.BertTokenizerFast.from_pretrained(str(d))
    tok = Tokenizer.from_file(str(d / "tokenizer.json"))
    samples = [*HELD_OUT[:20], "Héllo WORLD 漢字 😀 #태그", "  공백\t탭  "]
    for s in samples:
        assert fast(s)["input_ids"] == tok.encode(s).ids, s
    a, b = HELD_OUT[0], HELD_OUT[1]
    pair = fast(a, b)
    enc = tok.encode(a, b)
    assert pair["input_ids"] == enc.ids
    assert pair["token_type_ids"] == enc.type_ids
    assert fast.cls_token_id == 2 and fast.sep_token_id == 3 and fast.mask_token_id == 4


def test_deterministic_and_independent_of_workers(trained, tmp_path):
    again = train_tokenizer(TEXTS, tmp_path / "again", vocab_size=VOCAB, seed=0, workers=2)
    cmp = filecmp.dircmp(trained["morpheme-bpe"], again)
    assert sorted(cmp.left_list) == sorted(cmp.right_list)
    _, mismatch, errors = filecmp.cmpfiles(
        trained["morpheme-bpe"], again, cmp.common_files, shallow=False
    )
    assert mismatch == [] and errors == []


def test_matching_manifest_skips_work(trained):
    d = trained["bpe"]
    before = {n: os.stat(d / n).st_mtime_ns for n in FILES}
    train_tokenizer(TEXTS, d, vocab_size=VOCAB, method="bpe", seed=0, workers=1)
    assert {n: os.stat(d / n).st_mtime_ns for n in FILES} == before
    manifest = json.loads((d / "manifest.json").read_text())
    assert manifest["stage"] == "tokenizer.train" and manifest["config"]["method"] == "bpe"
    assert manifest["counts"]["lines"] == len(TEXTS)


def test_a_different_finished_run_is_not_overwritten(trained, tmp_path):
    d = trained["sentencepiece-bpe"]
    before = (d / "vocab.txt").read_bytes()
    with pytest.raises(FileExistsError, match="--force"):
        train_tokenizer(TEXTS[:100], d, vocab_size=VOCAB, method="sentencepiece-bpe")
    assert (d / "vocab.txt").read_bytes() == before


def test_cli_on_files_and_input_hash(tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(TEXTS[:1500]) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    args = ["--input", str(corpus), "--output", str(out), "--vocab", "400", "--workers", "1"]
    assert main([*args, "--method", "bpe"]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["inputs"][0]["path"] == str(corpus)
    assert len(manifest["inputs"][0]["sha256"]) == 64
    assert len(_vocab(out)) == 400


def test_corpus_record_shards_are_read(tmp_path):
    from corpus.records import CorpusRecord, RecordWriter

    shard_dir = tmp_path / "clean"
    with RecordWriter(shard_dir / "00000.jsonl.gz") as w:
        for i, text in enumerate(TEXTS):
            w.write(CorpusRecord(id=f"t-{i}", text=text, source="test"))
    # a finished stage folder: side outputs and stats must not be trained on
    with RecordWriter(shard_dir / "removed" / "00000.jsonl.gz") as w:
        w.write(CorpusRecord(id="r-0", text="지워진 문장", source="test"))
    (shard_dir / "stats.json").write_text('{"read": 1501}')
    (shard_dir / "manifest.json").write_text('{"stage": "corpus.pseudonymize"}')
    d = train_tokenizer([shard_dir], tmp_path / "tok", vocab_size=VOCAB, workers=1)
    stats = json.loads((d / "train_stats.json").read_text())
    assert stats["input"]["records"] == len(TEXTS) and len(_vocab(d)) == VOCAB
    manifest = json.loads((d / "manifest.json").read_text())
    assert [Path(i["path"]).name for i in manifest["inputs"]] == ["00000.jsonl.gz"]


def test_empty_corpus_is_a_clear_error(tmp_path, capsys):
    with pytest.raises(EmptyCorpusError):
        train_tokenizer([], tmp_path / "a", vocab_size=100)
    empty = tmp_path / "empty.txt"
    empty.write_text("\n  \n\n", encoding="utf-8")
    with pytest.raises(EmptyCorpusError, match="no text"):
        train_tokenizer([empty], tmp_path / "b", vocab_size=100)
    assert main(["--input", str(empty), "--output", str(tmp_path / "c"), "--vocab", "100"]) == 2
    assert "error:" in capsys.readouterr().err
    assert not (tmp_path / "c" / "manifest.json").exists()


def test_bad_input_line_names_file_and_line(tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_bytes("좋은 문장\n".encode() * 3 + b"\xff\xfe broken\n")
    assert main(["--input", str(bad), "--output", str(tmp_path / "o"), "--vocab", "100"]) == 2
    assert f"{bad}:4: invalid UTF-8" in capsys.readouterr().err


def test_vocab_larger_than_corpus_allows_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="supports only"):
        train_tokenizer(TEXTS[:50], tmp_path / "big", vocab_size=20_000, workers=1)
    assert not (tmp_path / "big" / "manifest.json").exists()


@pytest.mark.parametrize("method", ["morpheme-bpe", "bpe"])
def test_non_korean_text_trains_a_sensible_vocabulary(tmp_path, method):
    words = ["alpha", "beta", "gamma", "delta", "tokenizer", "training", "vocabulary", "words"]
    texts = [" ".join(words[(i * k) % len(words)] for k in range(1, 7)) + "." for i in range(400)]
    d = train_tokenizer(texts, tmp_path / method, vocab_size=200, method=method, workers=1)
    tok = Tokenizer.from_file(str(d / "tokenizer.json"))
    enc = tok.encode("tokenizer training vocabulary.", add_special_tokens=False)
    assert "[UNK]" not in enc.tokens
    assert tok.decode(enc.ids) == "tokenizer training vocabulary."
    assert len(enc.tokens) <= 6  # frequent words are (nearly) whole tokens


def test_ctrl_c_is_one_line_and_the_rerun_says_it_starts_over(
    tmp_path, capsys, caplog, monkeypatch
):
    """Ctrl-C: exit 130 and one line saying nothing is kept; the next run says it starts
    again from the beginning (training is one pass), and reports its progress with a rate
    and an ETA off a terminal."""
    import logging

    import tokenizer.train as train

    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(TEXTS[:1500]) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    args = ["--input", str(corpus), "--output", str(out), "--vocab", "400", "--workers", "1"]

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    with monkeypatch.context() as m:
        m.setattr(train, "count_units", interrupted)
        assert main([*args, "--method", "bpe"]) == 130
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "tokenizer.train: interrupted; nothing is kept (training is one pass): the same "
        "command starts again from the beginning"
    ]
    assert (out / train.UNFINISHED).exists() and not (out / "manifest.json").exists()
    monkeypatch.setenv("CORPUS_PROGRESS_SECONDS", "0")
    with caplog.at_level(logging.INFO):
        assert main([*args, "--method", "bpe"]) == 0
    logs = [r.getMessage() for r in caplog.records]
    assert any("stopped before it finished" in x and "starts again" in x for x in logs)
    progress = [x for x in logs if x.startswith("tokenizer.train: words counted: ")]
    assert progress and "lines (" in progress[0] and "/s), " in progress[0] and "ETA" in progress[0]
    assert not (out / train.UNFINISHED).exists() and (out / "manifest.json").exists()


def test_segmenting_workers_leave_ctrl_c_to_the_parent():
    import subprocess
    import sys

    code = (
        "import os, signal\n"
        "from tokenizer.morphemes import _init_pool_worker\n"
        "_init_pool_worker(False)\n"
        "os.kill(os.getpid(), signal.SIGINT)\n"
        "print('alive')\n"
    )
    root = Path(__file__).resolve().parent.parent
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=root, timeout=60
    )
    assert proc.returncode == 0 and proc.stdout.strip() == "alive", proc.stderr


def test_progress_counts_input_bytes_so_a_record_shard_ends_at_100_percent(tmp_path):
    """A record shard's bytes are mostly JSON fields: measured by text bytes the bar stood at
    45% when counting had finished. Through the shard's record count (its `.done` marker)
    halfway through its records is halfway through its bytes."""
    from corpus.records import RecordWriter
    from tokenizer.inputs import Inputs

    folder = tmp_path / "clean"
    url = "https://ko.wikipedia.org/wiki?curid=" + "1" * 80
    with RecordWriter(folder / "shard-00000.jsonl") as out:
        for i in range(100):
            out.write({"id": f"d{i}", "text": f"문장 {i}.", "source": "w", "url": url})
    (folder / ".done").mkdir()
    (folder / ".done" / "shard-00000.json").write_text('{"counts": {"kept": 100}}')
    (folder / "manifest.json").write_text("{}")
    source = Inputs([str(folder)])
    total = source.fraction() and source.counts["input_bytes"]
    seen = []
    for n, _ in enumerate(source.lines(), 1):
        if n == 50:
            seen.append(source.position / total)
    assert 0.45 <= seen[0] <= 0.55
    assert source.position == total
