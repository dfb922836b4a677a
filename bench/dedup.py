"""Decontamination throughput: our matcher vs our previous scorer vs rank-bm25 vs bm25s.

    python -m bench.dedup [--queries 4000] [--rank-queries 5] [--agree 400] [--scale-base 1000]

1. Throughput, one process per scorer, same index (every KLUE sentence under
   the data dir, Mecab morphemes) and the same kowiki sentences, timed in CPU
   seconds of that process (``time.process_time``: per core, and stable on a
   shared machine) and wall seconds:
   - ``ours``: what ``corpus.dedup`` runs per sentence, end to end from the raw
     sentence (`Matcher.match_texts`): tokenisation (`corpus.bm25.tokenize`, sentences
     of ``short_chars`` or more) and `corpus.matching`
     (every signal of `corpus.matching.SIGNALS`, BM25 pruned), with ``rare_quote``'s
     first pass (counting the short benchmark sentences in the same sentences) when
     the defaults use it. The one-time start is timed apart, with its peak memory, and
     holds everything a worker does before its decisions run at their speed: the
     decision worker's `corpus.dedup.load_matcher` (the index and its saved tables
     memory-mapped, the dictionaries built from them), the first pass's worker state
     (`corpus.dedup.load_phrase_table`, another process in `corpus.dedup`) and the
     tables built once the counts are known (`Matcher.prepare_lookups`); Mecab's
     dictionary, loaded by any process's first sentence, and the imports are not in it;
   - ``ours-previous``: the scorer before issue #15 (``mecab.MeCab().morphs`` and
     ``BM25Index.best_matches(threshold, exact=False)``);
   - rank_bm25.BM25Okapi ``get_scores`` + argmax (timed on ``--rank-queries``
     queries and extrapolated), tokenisation included;
   - bm25s ``retrieve(k=1)``, 1 thread (its Lucene idf, top raw score only, no
     normalised best match), tokenisation included (``pip install bm25s``).
   Each runs in a fresh spawned process whose own peak memory (``VmHWM``) is reported;
   an optional reference that is not installed is a row saying so.
2. Same removals: on ``--agree`` sentences, the decisions of ``ours`` against
   the same rules with BM25 scored exhaustively (``best_matches(exact=True)``,
   every benchmark sentence): the candidate pruning must not change a removal.
3. End to end and scaling: ``python -m corpus.dedup`` (1 worker, index reused)
   on 1x, 4x and 16x ``--scale-base`` kowiki sentences as JSON Lines records:
   CPU seconds of the whole process (reading, matching, writing, its start),
   wall time and peak RSS (``VmHWM`` of that process, `peak_rss_mb`).
   ``--queries 0`` skips part 1, ``--agree 0`` part 2.

Prints markdown tables (copied into docs/corpus.md); ``--json PATH`` keeps the raw results.
"""

from __future__ import annotations

import argparse
import gzip
import importlib
import json
import multiprocessing
import os
import re
import resource
import subprocess
import sys
import tempfile
import time

from bench.provenance import stamp

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH_INDEX = os.environ.get(
    "KLUE_BENCH_INDEX", os.path.join(tempfile.gettempdir(), "klue-bench-dedup-index")
)


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


def _timed(fn) -> tuple[float, float]:
    w, c = time.perf_counter(), time.process_time()
    fn()
    return time.process_time() - c, time.perf_counter() - w


def peak_rss_mb() -> float:
    """This process's own peak resident memory, MB: ``VmHWM`` of /proc/self/status.

    Not ``getrusage(RUSAGE_SELF).ru_maxrss``: Linux carries that high-water mark over
    fork and exec, so a child of a large parent reports the parent's peak (2,681 MB read
    where ``/usr/bin/time -v`` showed 809 MB). ``VmHWM`` belongs to the address space,
    which exec replaces. Off Linux, ``ru_maxrss`` is all there is."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


#: The optional references and what installs them (a missing one is a row saying so).
OPTIONAL = {"rank_bm25": "rank-bm25", "bm25s": "bm25s"}


def _run(method: str, n: int, rank_n: int, conn) -> None:
    """One scorer in its own spawned process; sends its row (or why there is none)."""
    try:
        conn.send(_measure(method, n, rank_n))
    except ImportError as e:
        if method not in OPTIONAL or e.name != method:
            raise
        conn.send({"method": method, "error": f"not installed (pip install {OPTIONAL[method]})"})
    finally:
        conn.close()


def _measure(method: str, n: int, rank_n: int) -> dict:
    if method in OPTIONAL:
        importlib.import_module(method)  # before any work: a missing one is reported at once
    from corpus.bm25 import tokenize

    texts = _kowiki_sentences(n)
    res: dict = {"method": method}
    if method == "ours":
        res.update(_measure_ours(texts))
    elif method == "ours-previous":
        import mecab

        index = _index()
        tagger = mecab.MeCab()

        def work():
            for i in range(0, len(texts), 256):
                toks = [tagger.morphs(t) for t in texts[i : i + 256]]
                index.best_matches(toks, threshold=0.56, exact=False)

        res["cpu_seconds"], res["seconds"] = _timed(work)
        res["queries"] = len(texts)
    else:
        docs = _doc_tokens()
        if method == "rank_bm25":
            import numpy as np
            from rank_bm25 import BM25Okapi

            ref = BM25Okapi(docs)
            qs = texts[:rank_n]
            res["cpu_seconds"], res["seconds"] = _timed(
                lambda: [int(np.argmax(ref.get_scores(tokenize(t)))) for t in qs]
            )
            res["queries"] = rank_n
        elif method == "bm25s":
            import bm25s

            retriever = bm25s.BM25()
            retriever.index(docs, show_progress=False)
            vocab = set().union(*map(set, docs))

            def work():
                qs = [[t for t in tokenize(x) if t in vocab] or [docs[0][0]] for x in texts]
                retriever.retrieve(qs, k=1, show_progress=False, n_threads=1)

            res["cpu_seconds"], res["seconds"] = _timed(work)
            res["queries"] = len(texts)
    res["sentences_per_cpu_second"] = res["queries"] / res["cpu_seconds"]
    res["sentences_per_second"] = res["queries"] / res["seconds"]
    res["peak_rss_mb"] = peak_rss_mb()
    return res


def _measure_ours(texts: list[str]) -> dict:
    """The ``ours`` row: the honest start (see the module's docstring) in parts, then both
    passes over `texts`, as `corpus.dedup` runs them."""
    from corpus.bm25 import tokenize
    from corpus.dedup import BATCH, load_matcher, load_phrase_table

    _index()
    tokenize("준비")  # Mecab's dictionary is loaded by the first sentence of any process
    before = peak_rss_mb()
    box: dict = {}
    parts = {"load_matcher": _timed(lambda: box.setdefault("m", load_matcher(BENCH_INDEX)))}
    matcher = box["m"]
    cfg = matcher.config
    if cfg.quote_max_per_million:  # the first pass's worker state, as corpus.dedup builds it
        parts["phrase_table"] = _timed(
            lambda: box.setdefault("t", load_phrase_table(BENCH_INDEX, cfg.overlap_chars - 1))
        )
    res: dict = {"start_peak_rss_mb": peak_rss_mb()}
    res["start_added_mb"] = res["start_peak_rss_mb"] - before
    work = []  # (CPU s, wall s) of each pass
    if "t" in box:  # rare_quote's first pass over the same sentences
        work.append(_timed(lambda: _count_into(matcher, box["t"], texts)))
    parts["lookups"] = _timed(matcher.prepare_lookups)  # the tables the counts decide

    def decide():
        for i in range(0, len(texts), BATCH):
            matcher.match_texts(texts[i : i + BATCH])  # what corpus.dedup runs

    work.append(_timed(decide))
    res["start_parts_cpu_seconds"] = {k: v[0] for k, v in parts.items()}
    res["start_cpu_seconds"] = sum(v[0] for v in parts.values())
    res["start_seconds"] = sum(v[1] for v in parts.values())
    res["cpu_seconds"] = sum(w[0] for w in work)
    res["seconds"] = sum(w[1] for w in work)
    res["queries"] = len(texts)
    return res


def _count_into(matcher, table: dict, texts: list[str]) -> None:
    """``rare_quote``'s counts with `texts` as the whole corpus (what the first pass of
    `corpus.dedup` computes), set on `matcher`."""
    from corpus.matching import count_array, count_phrases
    from corpus.normalize import match_key

    counts: dict[int, int] = {}
    count_phrases(table, (match_key(t) for t in texts), counts)
    matcher.set_phrase_counts(count_array(counts, len(matcher.keys)), len(texts))


def agreement(n: int) -> dict:
    """Removals of the pruned matcher vs the same rules with exhaustive BM25 scoring."""
    import numpy as np

    from corpus.bm25 import tokenize
    from corpus.dedup import load_matcher

    _index()
    matcher = load_matcher(BENCH_INDEX)
    texts = _kowiki_sentences(n)
    if matcher.config.quote_max_per_million:
        from corpus.matching import short_key_table

        _count_into(matcher, short_key_table(matcher.keys), texts)
    toks = [tokenize(t) for t in texts]
    fast = matcher.match_texts(texts)  # the decontamination path (short ones not tokenised)
    f = dict(fast.features)
    best, sim, _ = matcher.index.best_matches(toks, norm="max", exact=True)
    cfg = matcher.config
    # where the pruned search promises the exact best (short sentences use no BM25)
    ok = (sim >= cfg.threshold) & (f["qlen"] >= cfg.short_chars)
    assert np.array_equal(f["bm25_doc"][ok], best[ok]), "pruned search missed a best match"
    f["bm25_doc"] = np.where(ok, best, -1)
    f["bm25"] = np.where(ok, sim, 0.0)
    full = matcher.decide(f)
    same = int(((fast.doc >= 0) == (full.doc >= 0)).sum())
    return {
        "sentences": n,
        "removed_fast": int((fast.doc >= 0).sum()),
        "removed_full": int((full.doc >= 0).sum()),
        "same_decision": same,
    }


def _write_docs() -> None:
    """The benchmark sentences as ``docs.json`` beside the index (the references' corpus)."""
    from corpus.dedup import benchmark_sentences
    from corpus.klue import benchmark_texts

    with open(os.path.join(BENCH_INDEX, "docs.json"), "w", encoding="utf-8") as fh:
        json.dump(benchmark_sentences(benchmark_texts(index_dir_klue()))[0], fh, ensure_ascii=False)


def throughput(n: int, rank_n: int) -> list[dict]:
    """One row per scorer (`in_fresh_processes`); rank-bm25 is not run for `rank_n` 0."""
    _index()  # build (or reuse) the index once, before the children load it
    _write_docs()
    methods = ("ours", "ours-previous") + (("rank_bm25",) if rank_n > 0 else ()) + ("bm25s",)
    rows = in_fresh_processes(_run, methods, n, rank_n)
    if rank_n <= 0:  # nothing to time: a row saying so, not a rate of 0 queries
        rows.insert(2, {"method": "rank_bm25", "error": "not run (--rank-queries 0)"})
    return rows


def throughput_table(rows: list[dict]) -> list[str]:
    """The markdown table of `throughput`'s rows; the "vs rank-bm25" column says "not run"
    when rank-bm25 has no rate (not run, not installed, or no query timed)."""
    rank = next((r for r in rows if r["method"] == "rank_bm25" and "error" not in r), None)
    rank_rate = rank["sentences_per_cpu_second"] if rank else 0.0
    out = [
        "| scorer (tokenisation included) | sentences per CPU second | vs rank-bm25 | "
        "sentences/s wall | peak RSS MB | sentences timed |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        if "error" in r:
            out.append(f"| {r['method']} | {r['error']} | | | | |")
            continue
        ratio = f"{r['sentences_per_cpu_second'] / rank_rate:.0f}x" if rank_rate > 0 else "not run"
        out.append(
            f"| {r['method']} | {r['sentences_per_cpu_second']:.1f} | {ratio} | "
            f"{r['sentences_per_second']:.1f} | {r['peak_rss_mb']:.0f} | {r['queries']} |"
        )
    return out


def in_fresh_processes(target, methods, *args) -> list[dict]:
    """``target(method, *args, conn)`` in a new spawned process per method, one at a time
    (nothing inherited: each measures its own memory); the row each one sends, or a row
    saying how it failed when it sent none."""
    ctx = multiprocessing.get_context("spawn")
    out = []
    for method in methods:
        a, b = ctx.Pipe(duplex=False)
        p = ctx.Process(target=target, args=(method, *args, b))
        p.start()
        b.close()  # the child holds the only write end: its exit is an EOF here, not a hang
        try:
            out.append(a.recv())
        except EOFError:
            p.join()
            out.append({"method": method, "error": f"failed: exit {p.exitcode} (see above)"})
        p.join()
        a.close()
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
                "import sys,time;from bench.dedup import peak_rss_mb;from corpus import dedup;"
                "t=time.time();dedup.main(sys.argv[1:]);print(time.time()-t, peak_rss_mb())",
                "--input", src, "--output", os.path.join(tmp, f"out{mult}"),
                "--benchmark-dir", index_dir_klue(), "--index-dir", BENCH_INDEX, "--workers", "1",
            ]  # fmt: skip
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            res = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=REPO_ROOT)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            secs, rss = res.stdout.split()[-2:]
            cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
            rows.append(
                {
                    "input": f"{mult}x",
                    "sentences": mult * base,
                    "seconds": float(secs),
                    "cpu_seconds": cpu,
                    "peak_rss_mb": float(rss),
                }  # fmt: skip
            )
            print(json.dumps(rows[-1]), file=sys.stderr)
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.dedup", description=__doc__.split("\n")[0])
    p.add_argument("--queries", type=int, default=4000)
    p.add_argument("--rank-queries", type=int, default=5)
    p.add_argument("--agree", type=int, default=400, help="sentences for the same-removals check")
    p.add_argument("--scale-base", type=int, default=1000, help="0 skips the scaling runs")
    p.add_argument("--json", default=None, help="also write the raw results to this file")
    args = p.parse_args(argv)
    thr = throughput(args.queries, args.rank_queries) if args.queries else []
    if thr:
        print("\n".join(throughput_table(thr)))
    for r in thr:
        if "start_cpu_seconds" in r:
            parts = ", ".join(f"{k} {v:.2f}" for k, v in r["start_parts_cpu_seconds"].items())
            print(
                f"\n{r['method']}: worker start (everything before the decisions run at their "
                f"speed: {parts}) {r['start_cpu_seconds']:.2f} CPU s ({r['start_seconds']:.2f} s "
                f"wall), once per process; peak RSS {r['start_peak_rss_mb']:.0f} MB after it "
                f"(+{r['start_added_mb']:.0f} MB)"
            )
    agree = agreement(args.agree) if args.agree else None
    if agree:
        print(
            f"\nsame removals: {agree['same_decision']}/{agree['sentences']} decisions equal; "
            f"removed {agree['removed_fast']} (pruned) vs {agree['removed_full']} (exhaustive)"
        )
    rows = scaling(args.scale_base) if args.scale_base else []
    if rows:
        print(
            "\n| input | sentences | CPU seconds (whole process) | sentences per CPU second | "
            "wall seconds | peak RSS MB |"
        )
        print("|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['input']} | {r['sentences']} | {r['cpu_seconds']:.1f} | "
            f"{r['sentences'] / r['cpu_seconds']:.0f} | {r['seconds']:.1f} | "
            f"{r['peak_rss_mb']:.0f} |"
        )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            result = {"throughput": thr, "agreement": agree, "scaling": rows}
            json.dump(stamp(result), fh, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
