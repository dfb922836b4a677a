"""Decontamination throughput: our sparse BM25 scorer vs rank-bm25 vs bm25s, and scaling.

    python -m bench.dedup [--queries 2000] [--rank-queries 5] [--scale-base 1000]

1. Throughput, one process, same index (every KLUE sentence under the data
   dir, Mecab morphemes) and same pre-tokenised queries (kowiki sentences):
   sentences/s of the best-match search for
   - ours, fast path (``best_matches(threshold=0.55, exact=False)``, what
     ``corpus.dedup`` runs) and exact path (``exact=True``);
   - rank_bm25.BM25Okapi ``get_scores`` + argmax (slow: timed on
     ``--rank-queries`` queries and extrapolated per sentence);
   - bm25s (``retrieve(k=1)``, its default Lucene idf; needs ``pip install bm25s``).
   Each scorer runs in its own child process so that its peak RSS is its own.
2. Scaling: ``python -m corpus.dedup`` (1 worker) on 1x, 4x and 16x
   ``--scale-base`` sentences: wall time and peak RSS of the run.

Prints markdown tables (copied into docs/corpus.md); ``--json PATH`` keeps the raw results.
"""

from __future__ import annotations

import argparse
import gzip
import json
import multiprocessing
import os
import re
import resource
import subprocess
import sys
import tempfile
import time

BENCH_INDEX = os.path.join(tempfile.gettempdir(), "klue-bench-dedup-index")


def _kowiki_sentences(n: int) -> list[str]:
    from corpus.datadir import resolve_data_dir
    from corpus.normalize import normalize_document
    from corpus.sentences import split_sentences

    root = resolve_data_dir() / "corpus" / "kowiki" / "AA"
    out: list[str] = []
    for name in sorted(os.listdir(root)):
        if name.startswith("wiki_"):
            text = re.sub(r"<[^>]+>", "", (root / name).read_text(encoding="utf-8"))
            out.extend(split_sentences(normalize_document(text)))
        if len(out) >= n:
            break
    return out[:n]


def _index():
    from corpus.datadir import klue_dir
    from corpus.dedup import load_or_build_index

    return load_or_build_index(str(klue_dir()), BENCH_INDEX, "morph")[0]


def _doc_tokens() -> list[list[str]]:
    from corpus.bm25 import tokenize

    with open(os.path.join(BENCH_INDEX, "docs.json"), encoding="utf-8") as fh:
        sents = json.load(fh)
    return [tokenize(s) for s in sents]


def _run(method: str, n: int, rank_n: int, conn) -> None:
    from corpus.bm25 import tokenize

    index = _index()
    queries = [tokenize(s) for s in _kowiki_sentences(n)]
    res: dict = {"method": method}
    if method.startswith("ours"):
        exact = method == "ours-exact"
        qs = queries if not exact else queries[: max(50, n // 10)]
        t = time.perf_counter()
        for i in range(0, len(qs), 256):
            index.best_matches(qs[i : i + 256], threshold=0.55, exact=exact)
        res["seconds"] = time.perf_counter() - t
        res["queries"] = len(qs)
    else:
        docs = _doc_tokens()
        if method == "rank_bm25":
            import numpy as np
            from rank_bm25 import BM25Okapi

            t = time.perf_counter()
            ref = BM25Okapi(docs)
            res["build_seconds"] = time.perf_counter() - t
            t = time.perf_counter()
            for q in queries[:rank_n]:
                int(np.argmax(ref.get_scores(q)))
            res["seconds"] = time.perf_counter() - t
            res["queries"] = rank_n
        elif method == "bm25s":
            import bm25s

            t = time.perf_counter()
            retriever = bm25s.BM25()
            retriever.index(docs, show_progress=False)
            res["build_seconds"] = time.perf_counter() - t
            vocab = set().union(*map(set, docs))
            qs = [[t for t in q if t in vocab] or [docs[0][0]] for q in queries]
            t = time.perf_counter()
            retriever.retrieve(qs, k=1, show_progress=False, n_threads=1)
            res["seconds"] = time.perf_counter() - t
            res["queries"] = len(qs)
    res["sentences_per_second"] = res["queries"] / res["seconds"]
    res["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    conn.send(res)


def throughput(n: int, rank_n: int) -> list[dict]:
    from corpus.dedup import benchmark_sentences
    from corpus.klue import benchmark_texts

    _index()  # build (or reuse) the index once, before the children load it
    with open(os.path.join(BENCH_INDEX, "docs.json"), "w", encoding="utf-8") as fh:
        json.dump(benchmark_sentences(benchmark_texts(index_dir_klue()))[0], fh, ensure_ascii=False)
    ctx = multiprocessing.get_context("spawn")
    out = []
    for method in ("ours-fast", "ours-exact", "rank_bm25", "bm25s"):
        a, b = ctx.Pipe()
        p = ctx.Process(target=_run, args=(method, n, rank_n, b))
        p.start()
        try:
            out.append(a.recv())
        except EOFError:
            out.append({"method": method, "error": "failed (not installed?)"})
        p.join()
        print(json.dumps(out[-1]), file=sys.stderr)
    return out


def index_dir_klue() -> str:
    from corpus.datadir import klue_dir

    return str(klue_dir())


def scaling(base: int) -> list[dict]:
    sents = _kowiki_sentences(16 * base)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for mult in (1, 4, 16):
            src = os.path.join(tmp, f"in{mult}")
            os.makedirs(src)
            with gzip.open(os.path.join(src, "part.jsonl.gz"), "wt", encoding="utf-8") as fh:
                for i, s in enumerate(sents[: mult * base]):
                    rec = {"id": f"k{i}", "text": s, "source": "wikipedia"}
                    fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
            cmd = [
                sys.executable, "-c",
                "import resource,sys,time;from corpus import dedup;t=time.time();"
                "dedup.main(sys.argv[1:]);"
                "print(time.time()-t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)",
                "--input", src, "--output", os.path.join(tmp, f"out{mult}"),
                "--benchmark-dir", index_dir_klue(), "--index-dir", BENCH_INDEX, "--workers", "1",
            ]  # fmt: skip
            res = subprocess.run(cmd, capture_output=True, text=True, check=True)
            secs, rss = res.stdout.split()[-2:]
            rows.append(
                {
                    "input": f"{mult}x",
                    "sentences": mult * base,
                    "seconds": float(secs),
                    "peak_rss_mb": int(rss) / 1024,
                }  # fmt: skip
            )
            print(json.dumps(rows[-1]), file=sys.stderr)
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.dedup", description=__doc__.split("\n")[0])
    p.add_argument("--queries", type=int, default=2000)
    p.add_argument("--rank-queries", type=int, default=5)
    p.add_argument("--scale-base", type=int, default=1000)
    p.add_argument("--json", default=None, help="also write the raw results to this file")
    args = p.parse_args(argv)
    thr = throughput(args.queries, args.rank_queries)
    rank = next((r for r in thr if r["method"] == "rank_bm25" and "error" not in r), None)
    print("| scorer | sentences/s (1 core) | vs rank-bm25 | peak RSS MB | queries timed |")
    print("|---|---|---|---|---|")
    for r in thr:
        if "error" in r:
            print(f"| {r['method']} | {r['error']} | | | |")
            continue
        ratio = r["sentences_per_second"] / rank["sentences_per_second"] if rank else float("nan")
        print(
            f"| {r['method']} | {r['sentences_per_second']:.2f} | {ratio:.0f}x | "
            f"{r['peak_rss_mb']:.0f} | {r['queries']} |"
        )
    rows = scaling(args.scale_base)
    print("\n| input | sentences | seconds | sentences/s | peak RSS MB |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['input']} | {r['sentences']} | {r['seconds']:.1f} | "
            f"{r['sentences'] / r['seconds']:.0f} | {r['peak_rss_mb']:.0f} |"
        )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"throughput": thr, "scaling": rows}, fh, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
