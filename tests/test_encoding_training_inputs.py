"""``--encoding cp949`` beyond the corpus stages: `tokenizer.train`, `tokenizer.stats` and
`pretrain.build_data` also read raw files through `corpus.readers`, whose error for CP949
Korean says to rerun with ``--encoding cp949``, so they take that option too. The same text
saved as CP949 gives what its UTF-8 copy gives, sampling included (the sample is drawn by
the UTF-8 size of the decoded text, not by the CP949 file's smaller size)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from pretrain.build_data import build_examples
from pretrain.build_data import main as build_main
from pretrain.input_pipeline import examples_manifest
from tokenizer.inputs import Inputs
from tokenizer.stats import main as stats_main
from tokenizer.train import main as train_main

FIXTURES = Path(__file__).parent / "fixtures" / "tokenizer"
_spec = importlib.util.spec_from_file_location("korean_sentences", FIXTURES / "korean_sentences.py")
korean = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(korean)

#: Beyond EUC-KR's 2,350 syllables (똠, 햏) and Hanja: CP949 holds them, and they must survive.
EXTRA = ["똠방각하와 햏자가 웃었다.", "漢字 表記는 大韓民國이다."]


@pytest.fixture(scope="module")
def pair(tmp_path_factory) -> dict[str, Path]:
    """The same corpus as UTF-8 and as CP949, in files of the same name in two folders."""
    text = "\n".join(korean.lines(1500, seed=0) + EXTRA * 20) + "\n"
    root = tmp_path_factory.mktemp("enc")
    out = {}
    for enc in ("utf-8", "cp949"):
        p = root / enc / "corpus.txt"
        p.parent.mkdir()
        p.write_bytes(text.encode(enc))
        out[enc] = p
    return out


def test_cp949_input_bytes_are_its_utf8_copys(pair):
    utf8, cp = pair["utf-8"], pair["cp949"]
    assert cp.stat().st_size < utf8.stat().st_size  # Hangul: 2 bytes in CP949, 3 in UTF-8
    a = Inputs([utf8], sample_bytes=20_000, seed=3)
    b = Inputs([cp], sample_bytes=20_000, seed=3, encoding="cp949")
    assert a.fraction() == b.fraction() < 1.0
    assert list(a.lines()) == list(b.lines())
    with pytest.raises(ValueError, match="unknown encoding 'latin-1'"):
        Inputs([cp], encoding="latin-1")


def test_tokenizer_train_reads_cp949_as_its_utf8_copy(pair, tmp_path, capsys):
    base = ["--vocab", "350", "--workers", "1", "--sample-bytes", "40000", "--seed", "1"]
    assert train_main(["--input", str(pair["cp949"]), "--output", str(tmp_path / "x"), *base]) == 2
    assert "rerun with --encoding cp949" in capsys.readouterr().err
    assert train_main(["--input", str(pair["utf-8"]), "--output", str(tmp_path / "u"), *base]) == 0
    cp_args = ["--input", str(pair["cp949"]), "--output", str(tmp_path / "c"), *base]
    assert train_main([*cp_args, "--encoding", "cp949"]) == 0
    vocab = (tmp_path / "u" / "vocab.txt").read_text("utf-8")
    assert (tmp_path / "c" / "vocab.txt").read_text("utf-8") == vocab
    assert "똠" in vocab.split("\n")  # the syllable beyond EUC-KR came through
    manifests = [json.loads((tmp_path / d / "manifest.json").read_text()) for d in "uc"]
    assert "encoding" not in manifests[0]["config"]  # UTF-8 runs keep their manifests
    assert manifests[1]["config"]["encoding"] == "cp949"
    sampled = [json.loads((tmp_path / d / "train_stats.json").read_text()) for d in "uc"]
    assert sampled[0]["input"]["bytes"] == sampled[1]["input"]["bytes"]
    stats = []
    for enc in ("utf-8", "cp949"):
        args = ["--tokenizer", str(tmp_path / "u"), "--input", str(pair[enc]), "--json"]
        assert stats_main([*args, "--encoding", enc]) == 0
        stats.append(json.loads(capsys.readouterr().out)["results"])
    assert stats[0] == stats[1]


def test_build_data_reads_cp949_as_its_utf8_copy(pair, tmp_path, capsys):
    from tests.test_pretrain_data_pipeline import train_wordpiece

    tok = train_wordpiece(pair["utf-8"].read_text("utf-8").splitlines(), tmp_path / "tok", 300)
    kw = {"objective": "roberta", "max_seq_length": 32, "workers": 1, "log": lambda *_: None}
    u = build_examples(tok, [pair["utf-8"]], tmp_path / "u", **kw)
    c = build_examples(tok, [pair["cp949"]], tmp_path / "c", encoding="cp949", **kw)
    shards = examples_manifest(u)["shards"]
    assert [s["file"] for s in shards] == [s["file"] for s in examples_manifest(c)["shards"]]
    for s in shards:
        assert (c / s["file"]).read_bytes() == (u / s["file"]).read_bytes()
    manifests = [json.loads((d / "manifest.json").read_text()) for d in (u, c)]
    assert "encoding" not in manifests[0] and manifests[1]["encoding"] == "cp949"
    assert manifests[0]["config_hash"] != manifests[1]["config_hash"]
    argv = ["--tokenizer", str(tok), "--input", str(pair["cp949"]), "--objective", "roberta"]
    assert build_main([*argv, "--output", str(tmp_path / "x"), "--workers", "1"]) == 2
    err = capsys.readouterr().err
    assert "corpus.txt:1" in err and "--encoding cp949" in err
