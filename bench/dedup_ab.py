"""Decontamination throughput of two commits side by side: the ratio issue #29 asks for.

    python -m bench.dedup_ab c36ded4 HEAD --sentences 20000 --rounds 4 --data-dir ../shared/data

Each commit is unpacked with ``git archive`` (`bench.ab_trees`) and builds the KLUE index with
its own code into a folder of its own (the saved formats differ between commits; kept under
``--index-root``, so a second run reuses them). The sentences are the first ``--sentences``
of kowiki as today's `bench.dedup` splits them, written once and read by both. Each round runs
one process per commit, both at once on their own cores, swapped every other round; each
process loads its matcher (the worker start: CPU seconds), then times both passes as
`corpus.dedup` runs them, in process CPU seconds: ``rare_quote``'s phrase counts over the
sentences as the whole corpus, then every sentence decided in batches of 256 (`match_texts`,
or tokenise and `match` for a commit without it, such as c36ded4). Reported per commit: the
sentences per CPU second of each round, the worker start, the peak RSS (``VmHWM``), the
removals and a digest of every decision (document and signal), which must be the same in
every round of a commit; and the ratio new / old of the rates, per round and its median.
A commit with other signals (c36ded4 has older ones) removes other sentences: the removals
of each are given, not compared.

The third to eighth measurements of docs/corpus.md ran this loop by hand (``ab.py``); on the
2-core development host two processes at once are both slower than one alone, so compare
ratios, not rates, across runs.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.ab_trees import full_commit, pinned_round, unpack
from bench.provenance import stamp

#: Sentences per batch in the timed loop (`corpus.dedup`'s default ``--batch-size``).
BATCH = 256
#: What each timing process runs: ``python -c _LOOP index_dir sentences.json``.
_LOOP = """
import hashlib, json, sys, time
from corpus.bm25 import tokenize
from corpus.dedup import load_matcher
from corpus.matching import count_array, count_phrases, short_key_table
try:
    from corpus.normalize import match_key
except ImportError:  # older commits: in corpus.matching
    from corpus.matching import match_key
index_dir, path, batch = sys.argv[1], sys.argv[2], int(sys.argv[3])
with open(path, encoding="utf-8") as fh:
    texts = json.load(fh)
tokenize("준비")  # Mecab loaded before any clock, as in every worker
c = time.process_time()
m = load_matcher(index_dir)
start = time.process_time() - c
table = short_key_table(m.keys)
c = time.process_time()
counts = {}
count_phrases(table, (match_key(t) for t in texts), counts)
m.set_phrase_counts(count_array(counts, len(m.keys)), len(texts))
decisions = []
for i in range(0, len(texts), batch):
    t = texts[i : i + batch]
    res = m.match_texts(t) if hasattr(m, "match_texts") else m.match([tokenize(x) for x in t], t)
    decisions.extend((int(d), str(s)) for d, s in zip(res.doc, res.signal))
cpu = time.process_time() - c
with open("/proc/self/status") as fh:
    hwm = next(int(x.split()[1]) / 1024 for x in fh if x.startswith("VmHWM:"))
digest = hashlib.sha256(json.dumps(decisions).encode()).hexdigest()[:16]
removed = sum(d >= 0 for d, _ in decisions)
print(json.dumps({"cpu_s": cpu, "start_cpu_s": start, "vmhwm_mb": hwm, "removed": removed,
                  "decisions": digest}))
"""
#: What builds a commit's index: ``python -c _BUILD klue_dir index_dir``.
_BUILD = """
import sys
from corpus.dedup import load_or_build_index
load_or_build_index(sys.argv[1], sys.argv[2], "morph", load=False)
"""


def _sentences(args: argparse.Namespace, into: Path) -> tuple[Path, int]:
    """The sentences both commits decide, as one JSON list (``--texts``: one per line), and
    how many."""
    if args.texts:
        texts = [x for x in Path(args.texts).read_text(encoding="utf-8").splitlines() if x]
    else:
        from bench.dedup import _kowiki_sentences

        os.environ["KLUE_DATA_DIR"] = os.path.abspath(args.data_dir)
        texts = _kowiki_sentences(args.sentences)
    texts = texts[: args.sentences]
    path = into / "sentences.json"
    path.write_text(json.dumps(texts, ensure_ascii=False), encoding="utf-8")
    return path, len(texts)


def _index(tree: Path, commit: str, args: argparse.Namespace) -> Path:
    """`commit`'s index of the KLUE folder, built by its own code unless already there."""
    index = Path(args.index_root) / commit
    cmd = [sys.executable, "-c", _BUILD, args.klue_dir, str(index)]
    env = dict(os.environ, PYTHONPATH=str(tree))
    subprocess.run(cmd, cwd=tree, env=env, check=True, stdout=subprocess.DEVNULL)
    return index


def summary(runs: dict[str, list[dict]], n: int) -> dict:
    """Per role the rates and the rest of its rounds; the ratio new / old per round and its
    median. A commit whose decisions differ between its rounds raises: its timing would
    not be of one computation."""
    out: dict = {}
    for role, rounds in runs.items():
        digests = {r["decisions"] for r in rounds}
        if len(digests) != 1:
            raise RuntimeError(f"{role}: decisions differ between rounds ({sorted(digests)})")
        out[role] = {
            "sentences_per_cpu_s": [round(n / r["cpu_s"]) for r in rounds],
            "start_cpu_s": [round(r["start_cpu_s"], 3) for r in rounds],
            "vmhwm_mb": max(r["vmhwm_mb"] for r in rounds),
            "removed": rounds[0]["removed"],
            "decisions": digests.pop(),
        }
        out[role]["median"] = statistics.median(out[role]["sentences_per_cpu_s"])
    ratios = [o["cpu_s"] / w["cpu_s"] for o, w in zip(runs["old"], runs["new"], strict=True)]
    out["ratio_per_round"] = [round(r, 3) for r in ratios]
    out["ratio_median"] = round(statistics.median(ratios), 3)
    return out


def run(args: argparse.Namespace) -> dict:
    commits = {role: full_commit(getattr(args, role)) for role in ("old", "new")}
    with tempfile.TemporaryDirectory() as tmp:
        sents, n = _sentences(args, Path(tmp))
        # by role, not by commit: a commit compared with itself gets two trees
        trees = {role: unpack(c, Path(tmp) / role) for role, c in commits.items()}
        indexes = {role: _index(trees[role], c, args) for role, c in commits.items()}
        cmds = {
            role: ([sys.executable, "-c", _LOOP, str(indexes[role]), str(sents), str(BATCH)], t)
            for role, t in trees.items()
        }
        start = time.time()
        runs: dict[str, list[dict]] = {role: [] for role in trees}
        for r in range(args.rounds):
            for role, res in pinned_round(cmds, swap=bool(r % 2)).items():
                runs[role].append(res)
    out = {"names": {"old": args.old, "new": args.new}, "commits": commits, "sentences": n}
    out.update(summary(runs, n), wall_s=round(time.time() - start, 1))
    return stamp(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.dedup_ab", description=__doc__.split("\n")[0])
    p.add_argument("old", help="the commit to compare with (issue #29: c36ded4)")
    p.add_argument("new", nargs="?", default="HEAD")
    p.add_argument("--sentences", type=int, default=20000, help="kowiki sentences decided")
    p.add_argument("--rounds", type=int, default=4, help="rounds of the two processes")
    p.add_argument("--data-dir", default=os.environ.get("KLUE_DATA_DIR", "../shared/data"))
    p.add_argument("--klue-dir", default=None, help="the KLUE folder (default DATA_DIR/klue)")
    p.add_argument("--texts", default=None, help="a text file of sentences instead of kowiki")
    p.add_argument(
        "--index-root",
        default=os.path.join(tempfile.gettempdir(), "klue-dedup-ab"),
        help="each commit's index in <this>/<commit> (reused when there)",
    )
    p.add_argument("--json", default=None, help="also write the results to this file")
    args = p.parse_args(argv)
    args.klue_dir = os.path.abspath(args.klue_dir or os.path.join(args.data_dir, "klue"))
    args.index_root = os.path.abspath(args.index_root)
    out = run(args)
    text = json.dumps(out, indent=1, ensure_ascii=False)
    if args.json:
        Path(args.json).write_text(text + "\n", encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
