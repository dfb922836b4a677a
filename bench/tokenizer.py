"""Benchmark: Mecab-ko splitting speed and end-to-end vocabulary training, three methods.

    python -m bench.tokenizer --input ../shared/data/corpus/kowiki/AA/wiki_0* \\
        --sample-bytes 40000000 --vocab 32000 --workers 2 --output-root /tmp/tok/bench

1. Morpheme splitting throughput on one core (MB of UTF-8 text per second):
   the reference call ``mecab.MeCab().morphs(line)`` against our full
   pre-tokenisation (`tokenizer.morphemes.Segmenter.units`: BERT
   normalisation, word split, Mecab, alignment, continuation marking).
2. End-to-end training of a `--vocab` vocabulary on the same text with
   ``morpheme-bpe``, ``bpe`` (Hugging Face tokenizers BPE on words) and
   ``sentencepiece-bpe``, each in its own process (``python -m
   tokenizer.train --force``): wall time, its segment/train split, and peak
   resident memory of that process.

Prints a markdown table and writes ``--json`` if given. Numbers depend on the
machine and its load; the docs say which machine they came from.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from bench.provenance import stamp
from tokenizer.inputs import Inputs
from tokenizer.train import METHODS


def _sample_lines(inputs: list[str], sample_bytes: int) -> list[str]:
    return list(Inputs(inputs, sample_bytes, paths_only=True).lines())


def splitting_throughput(lines: list[str]) -> dict:
    """MB/s on one core: bare Mecab `.morphs` and our full pre-tokenisation."""
    import mecab

    from tokenizer.morphemes import Segmenter

    mb = sum(len(x.encode("utf-8")) for x in lines) / 1e6
    tagger = mecab.MeCab()
    t = time.perf_counter()
    for line in lines:
        tagger.morphs(line)
    ref = time.perf_counter() - t
    seg = Segmenter(morphemes=True)
    t = time.perf_counter()
    for line in lines:
        seg.units(line)
    ours = time.perf_counter() - t
    seg_plain = Segmenter(morphemes=False)
    t = time.perf_counter()
    for line in lines:
        seg_plain.units(line)
    plain = time.perf_counter() - t
    return {
        "sample_mb": round(mb, 2),
        "mecab_morphs_mb_s": round(mb / ref, 3),
        "morpheme_pretokenize_mb_s": round(mb / ours, 3),
        "word_pretokenize_mb_s": round(mb / plain, 3),
    }


def reference_hf_bpe(lines: list[str], vocab: int) -> dict:
    """Reference: tokenizers' own BPE pipeline (Rust normaliser, pre-tokeniser, ## trainer).

    What `bpe` would cost without our Python pre-tokenisation; its output is not
    used (its continuation-symbol ids depend on hash order, so it is not
    deterministic, which is why `tokenizer.train` marks continuations itself).
    """
    import resource

    from tokenizers import Tokenizer, models, trainers

    from tokenizer.wordpiece import bert_normalizer, bert_pre_tokenizer

    tok = Tokenizer(models.BPE(continuing_subword_prefix="##"))
    tok.normalizer = bert_normalizer()
    tok.pre_tokenizer = bert_pre_tokenizer()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab, min_frequency=2, continuing_subword_prefix="##", show_progress=False
    )
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t = time.perf_counter()
    tok.train_from_iterator(lines, trainer, length=len(lines))
    wall = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "method": "reference: tokenizers BPE, own pre-tokeniser (in-process)",
        "input_mb": round(sum(len(x.encode("utf-8")) + 1 for x in lines) / 1e6, 2),
        "wall_s": round(wall, 1),
        "segment_s": None,
        "train_s": round(wall, 1),
        "peak_rss_mb": f"{peak / 1024:.1f} (bench process, +{(peak - before) / 1024:.1f})",
        "vocab_size": tok.get_vocab_size(),
    }


def train_once(method: str, args: argparse.Namespace) -> dict:
    """Runs one training in a child process; returns wall time, phases and peak RSS."""
    out = Path(args.output_root) / f"{method}-{args.vocab}"
    cmd = [
        sys.executable,
        "-m",
        "tokenizer.train",
        "--input",
        *args.input,
        "--output",
        str(out),
        "--vocab",
        str(args.vocab),
        "--method",
        method,
        "--workers",
        str(args.workers),
        "--force",
    ]
    if args.sample_bytes:
        cmd += ["--sample-bytes", str(args.sample_bytes)]
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    # wait4 gives the child's own peak RSS (not the largest of all our children so far).
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    log = proc.stdout.read() if proc.stdout else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{method} failed:\n{log}")
    m = re.search(r"segment ([\d.]+)s, train ([\d.]+)s", log)
    stats = json.loads((out / "train_stats.json").read_text("utf-8"))
    return {
        "method": method,
        "output": str(out),
        "wall_s": round(wall, 1),
        "segment_s": float(m.group(1)) if m else None,
        "train_s": float(m.group(2)) if m else None,
        "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
        "input_mb": round(stats["input"]["bytes"] / 1e6, 2),
        "vocab_size": stats["vocab_size"],
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.tokenizer", description=__doc__)
    p.add_argument("--input", nargs="+", required=True)
    p.add_argument(
        "--sample-bytes", "--max-bytes", dest="sample_bytes", type=int, default=20_000_000
    )
    p.add_argument("--split-sample-bytes", type=int, default=2_000_000)
    p.add_argument("--vocab", type=int, default=32000)
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    p.add_argument("--methods", nargs="+", choices=METHODS, default=list(METHODS))
    p.add_argument("--output-root", default="/tmp/tok/bench")
    p.add_argument("--no-reference", action="store_true", help="skip the in-process HF run")
    p.add_argument("--json", default=None, help="write the results here")
    args = p.parse_args(argv)

    lines = _sample_lines(args.input, args.split_sample_bytes)
    split = splitting_throughput(lines)
    print("## Morpheme splitting, one core")
    print("| sample MB | mecab .morphs MB/s | ours, morphemes MB/s | ours, words only MB/s |")
    print("|---:|---:|---:|---:|")
    print(
        f"| {split['sample_mb']} | {split['mecab_morphs_mb_s']} | "
        f"{split['morpheme_pretokenize_mb_s']} | {split['word_pretokenize_mb_s']} |"
    )
    runs = [train_once(m, args) for m in args.methods]
    if not args.no_reference:
        runs.append(reference_hf_bpe(_sample_lines(args.input, args.sample_bytes), args.vocab))
    print(f"\n## End-to-end training, vocab {args.vocab}, workers {args.workers}")
    print("| method | input MB | wall s | segment s | train s | peak RSS MB |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in runs:
        print(
            f"| {r['method']} | {r['input_mb']} | {r['wall_s']} | {r['segment_s']} | "
            f"{r['train_s']} | {r['peak_rss_mb']} |"
        )
    if args.json:
        Path(args.json).write_text(
            json.dumps(stamp({"splitting": split, "training": runs, "args": vars(args)}), indent=2)
            + "\n"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
