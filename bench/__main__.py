"""`python -m bench` (`make bench`): every benchmark under bench/ at small settings -> RESULTS.md.

    python -m bench [--only dedup pii ...] [--output bench/RESULTS.md] [--data-dir DIR]

Runs each benchmark module as its own process (``python -m bench.<name> ...`` with the small
settings of `SMALL`, printed before it runs), reads its JSON results and writes one table of
ratios against the reference library each one compares with (our throughput / the
reference's, so > 1 means we are faster), with peak memory where the benchmark measures it,
the machine it ran on (CPU model, cores, load average) and every command. Each benchmark's own
markdown output follows the table. The commit measured and whether the tree was clean
(`bench.provenance`) head the file and every JSON, and ``RESULTS.json`` beside it keeps every
benchmark's raw results. The settings are small so that the whole run takes minutes
on 2 cores; the benchmarks' docstrings give the full-size commands, whose figures are in the
docs of each stage. A benchmark that needs the shared data is skipped, with the reason, when
no data directory exists. Timings on a shared machine are lower bounds: the load average at
the start and end is recorded.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench import provenance

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent


def _kowiki(data: Path | None, n: int) -> list[str]:
    files = sorted((data / "corpus" / "kowiki" / "AA").glob("wiki_*")) if data else []
    return [str(p) for p in files[:n]]


def _dedup_rows(res: dict) -> list[dict]:
    thr = {r["method"]: r for r in res["throughput"] if "error" not in r}
    rows = []
    for r in res["throughput"]:
        if "error" in r:  # e.g. an optional reference not installed: say so, not a gap
            rows.append({"what": f"BM25 best match, {r['method']}", "reference": r["method"],
                         "unit": "sentences/CPU-s", "ours": r["error"], "ref": None})  # fmt: skip
    for ref in ("rank_bm25", "bm25s"):
        if ref not in thr:
            continue
        for name, r in thr.items():
            if name.startswith("ours"):
                rows.append({
                    "what": f"BM25 best match, {name}", "reference": ref,
                    "unit": "sentences/CPU-s", "ours": r["sentences_per_cpu_second"],
                    "ref": thr[ref]["sentences_per_cpu_second"],
                    "peak_mb": r.get("peak_rss_mb"), "ref_peak_mb": thr[ref].get("peak_rss_mb"),
                })  # fmt: skip
    return rows


def _rows_of(res: dict | list) -> list:
    """A benchmark's list of rows, stamped (`bench.provenance.stamp`: ``{"rows": ...}``) or
    bare (a module run on its own before the stamp existed)."""
    return res["rows"] if isinstance(res, dict) else res


def _metrics_rows(res: dict | list) -> list[dict]:
    return [
        {
            "what": f"KLUE metric {r['task']} ({r['n']:,} {r['unit']})",
            "reference": "scikit-learn / seqeval / scipy (KLUE baseline calls)",
            "unit": "1/s",
            "ours": 1 / r["ours_s"],
            "ref": 1 / r["reference_s"],
            "peak_mb": r["ours_peak_mib"] * 1.048576,
            "ref_peak_mb": r["reference_peak_mib"] * 1.048576,
        }
        for r in _rows_of(res)
    ]


def _pii_rows(res: dict) -> list[dict]:
    ours = res.get("corpus.pii (16 types, detect + replace)")
    rows = []
    for name, r in res.items():
        if ours is None or name.startswith("corpus.pii (16 types, detect + replace)"):
            continue
        if "mb_per_cpu_s" not in r:
            continue
        rows.append({
            "what": "PII detect + replace, 16 types", "reference": name, "unit": "MB/CPU-s",
            "ours": ours["mb_per_cpu_s"], "ref": r["mb_per_cpu_s"],
            "peak_mb": ours.get("peak_rss_mb"), "ref_peak_mb": r.get("peak_rss_mb"),
        })  # fmt: skip
    return rows


def _pii_ab_rows(res: dict) -> list[dict]:
    """`bench.pii_ab`'s medians as MB per CPU second: issue #24's ratio to c36ded4."""
    return [{
        "what": f"PII {row}, {res['new']} vs {res['old']} ({res['mb']:g} MB, "
                f"{res[row]['passes']} passes each at once on two cores)",
        "reference": f"{res['old']} (`bench.pii_ab`)", "unit": "MB/CPU-s",
        "ours": res["mb"] / res[row]["new_median_s"], "ref": res["mb"] / res[row]["old_median_s"],
    } for row in ("detect + replace", "detect only")]  # fmt: skip


def _tokenizer_rows(res: dict) -> list[dict]:
    s = res["splitting"]
    rows = [{
        "what": "Korean pre-tokenisation (ours: morphemes + alignment)",
        "reference": "mecab.MeCab().morphs", "unit": "MB/s",
        "ours": s["morpheme_pretokenize_mb_s"], "ref": s["mecab_morphs_mb_s"],
    }]  # fmt: skip
    runs = {r["method"]: r for r in res["training"]}
    ref = next((r for m, r in runs.items() if "reference" in m or "hf" in m.lower()), None)
    for m in ("bpe", "morpheme-bpe"):
        if ref is not None and m in runs:
            rows.append({
                "what": f"vocabulary training end to end, {m}", "reference": ref["method"],
                "unit": "1/wall-s", "ours": 1 / runs[m]["wall_s"], "ref": 1 / ref["wall_s"],
                "peak_mb": runs[m].get("peak_rss_mb"), "ref_peak_mb": ref.get("peak_rss_mb"),
            })  # fmt: skip
    return rows


def _input_rows(res: dict) -> list[dict]:
    return [
        {
            "what": f"loader vs train step, {d['model']}, {d['objective']} L={d['seq_len']}",
            "reference": f"examples/s the step consumes ({d['device']})",
            "unit": "examples/s",
            "ours": d["loader_examples_per_cpu_s"],
            "ref": d["examples_per_s_needed"],
        }
        for d in res["demand"]
    ]


def _dedup_ab_rows(res: dict) -> list[dict]:
    old, new = res["names"]["old"], res["names"]["new"]
    return [{
        "what": f"decontamination, both passes, {new} vs {old} ({res['sentences']:,} kowiki "
                f"sentences, {len(res['ratio_per_round'])} rounds at once on two cores)",
        "reference": f"{old} (`bench.dedup_ab`)", "unit": "sentences/CPU-s",
        "ours": res["new"]["median"], "ref": res["old"]["median"],
        "peak_mb": res["new"]["vmhwm_mb"], "ref_peak_mb": res["old"]["vmhwm_mb"],
    }]  # fmt: skip


def _alphabet_rows(res: dict) -> list[dict]:
    """`bench.tokenizer_alphabet`'s one sample: the alphabet entries `select_alphabet` keeps per
    coverage target (no reference library: the figure is a size, and the old rule's count of
    symbols seen 5+ times is given beside it)."""
    return [{
        "what": f"alphabet entries for {cov:.2%} coverage ({res['occurrences']:,} characters; "
                f"reached {res[f'reached_{cov}']:.4%}; old rule, seen 5+ times: "
                f"{res['symbols_seen_5_times']:,})",
        "reference": "none (a size, not a speed)", "unit": "entries",
        "ours": res[f"entries_{cov}"], "ref": None,
    } for cov in (0.999, 0.9999)]  # fmt: skip


def _scaling_rows(res: dict) -> list[dict]:
    """`bench.tokenizer_scaling`'s one training: text trained on per wall second, with the
    peak resident memory of the training and its Mecab workers together."""
    return [{
        "what": f"vocabulary training, {res['method']}, {res['text_mb_trained']} MB of text "
                f"({res['wall_s']} s wall, {res['peak_temp_disk_mb']} MB temporary disk)",
        "reference": "none (our own training; tree RSS)", "unit": "text MB/wall-s",
        "ours": res["text_mb_trained"] / res["wall_s"], "ref": None,
        "peak_mb": res["peak_rss_tree_mb"],
    }]  # fmt: skip


def _pretrain_rows(res: dict) -> list[dict]:
    return [{
        "what": f"pretraining step, {res['config']} ({res['device']})",
        "reference": "none (our own step; tokens/s)", "unit": "tokens/s",
        "ours": res["tokens_per_s"], "ref": None,
    }]  # fmt: skip


def _finetune_rows(res: dict) -> list[dict]:
    return [
        {
            "what": f"fine-tuning step, {res['arch']} {r['size']}, batch {res['batch']} x "
            f"{res['seq_len']}",
            "reference": "transformers (PyTorch, CPU)",
            "unit": "examples/s",
            "ours": r["ours"]["examples_per_s"],
            "ref": r["transformers"]["examples_per_s"],
            "peak_mb": r["ours"]["peak_rss_mb"],
            "ref_peak_mb": r["transformers"]["peak_rss_mb"],
        }
        for r in res["rows"]
    ]


#: Modules of bench/ that serve the benchmarks and are not one themselves (commit stamps; the
#: full-epoch run of `bench.finetune --epoch`; the two-commit helpers of `bench.ab_trees`).
NOT_BENCHMARKS = frozenset({"provenance", "finetune_epoch", "ab_trees"})

#: name -> (small-setting arguments given (data dir, json path), JSON on stdout?, row adapter,
#:          needs the shared data)
Spec = tuple[Callable[[Path | None, str], list[str]], bool, Callable[[object], list[dict]], bool]
SMALL: dict[str, Spec] = {
    "dedup": (
        lambda d, j: ["--queries", "200", "--rank-queries", "2", "--scale-base", "300",
                      "--json", j],
        False, _dedup_rows, True,
    ),
    # issue #29's ratio: the commit it measured against, unpacked from this clone's history
    "dedup_ab": (
        lambda d, j: ["c36ded4", "HEAD", "--sentences", "2000", "--rounds", "2",
                      "--data-dir", str(d)],
        True, _dedup_ab_rows, True,
    ),
    "finetune_metrics": (
        lambda d, j: ["--ner-sentences", "200", "--repeat", "2", "--json", j],
        False, _metrics_rows, True,
    ),
    "pii": (lambda d, j: ["--mb", "1", "--json"], True, _pii_rows, True),
    # issue #24's ratio, like dedup_ab's: the commit it measured against
    "pii_ab": (
        lambda d, j: ["c36ded4", "HEAD", "--mb", "4", "--rounds", "4", "--passes", "5",
                      "--data-dir", str(d)],
        True, _pii_ab_rows, True,
    ),
    "tokenizer": (
        lambda d, j: ["--input", *_kowiki(d, 1), "--max-bytes", "2000000",
                      "--split-sample-bytes", "300000", "--vocab", "8000", "--workers", "1",
                      "--output-root", str(Path(j).parent / "tok"), "--json", j],
        False, _tokenizer_rows, True,
    ),
    "tokenizer_alphabet": (
        lambda d, j: ["--input", *_kowiki(d, 20), "--sample-bytes", "all"],
        True, _alphabet_rows, True,
    ),
    "tokenizer_scaling": (
        lambda d, j: ["--label", "small", "--", "--input", *_kowiki(d, 4),
                      "--output", str(Path(j).parent / "scaling"), "--vocab", "8000",
                      "--workers", "2", "--sample-bytes", "all"],
        True, _scaling_rows, True,
    ),
    "input_pipeline": (
        lambda d, j: ["--files", "1", "--steps", "5", "--workers", "1",
                      "--cache", str(Path(j).parent / "input"), "--json", j],
        False, _input_rows, True,
    ),
    "finetune": (lambda d, j: ["--sizes", "small", "--steps", "3", "--json"], True,
                 _finetune_rows, False),
    "pretrain": (lambda d, j: ["--config", "tiny", "--steps", "3", "--json"], True,
                 _pretrain_rows, False),
}  # fmt: skip


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return f"{cpu}; {os.cpu_count()} cores visible; {platform.system()} {platform.release()}; " \
        f"Python {platform.python_version()}; load average {load}"  # fmt: skip


def _fmt(v: object) -> str:
    if v is None:
        return "-"
    if not isinstance(v, int | float):
        return str(v)
    return f"{v:,.0f}" if v >= 100 else f"{v:,.3g}"


def run_one(name: str, data: Path | None, tmp: Path, prov: dict) -> dict:
    """Runs ``bench.<name>`` at small settings, its JSON stamped with `prov`:
    {command, seconds, rows, markdown, raw, error}."""
    args_of, json_stdout, adapt, needs_data = SMALL[name]
    if needs_data and data is None:
        return {"name": name, "error": "skipped: needs the shared data (no data directory)"}
    jpath = str(tmp / f"{name}.json")
    cmd = [sys.executable, "-m", f"bench.{name}", *args_of(data, jpath)]
    line = " ".join(shlex.quote("python" if c == sys.executable else c) for c in cmd)
    print(f"\n$ {line}", flush=True)
    env = dict(os.environ)
    env[provenance.ENV] = json.dumps(prov)
    if data is not None:
        env.setdefault("KLUE_DATA_DIR", str(data))
    start = time.time()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO_ROOT, env=env)
    seconds = time.time() - start
    out = {"name": name, "command": line, "seconds": round(seconds, 1)}
    if proc.returncode != 0:
        out["error"] = f"exit {proc.returncode}: " + (proc.stderr.strip().splitlines() or [""])[-1]
        print(f"bench: {name} failed ({out['error']})", flush=True)
        return out
    try:
        res = json.loads(proc.stdout) if json_stdout else json.loads(Path(jpath).read_text())
        out["raw"] = res
        out["rows"] = adapt(res)
    except (ValueError, KeyError, OSError) as e:
        out["error"] = f"could not read its results: {e!r}"
    out["markdown"] = "" if json_stdout else proc.stdout.strip()
    print(f"bench: {name} done in {seconds:.0f} s", flush=True)
    return out


def render(
    results: list[dict], header: str, footer: str, prov: dict, only: list[str] | None = None
) -> str:
    partial = (
        [f"**Partial run** (`--only {' '.join(only)}`): the other benchmarks were not run.", ""]
        if only
        else []
    )
    lines = [
        "# Benchmark results (`make bench`, small settings)",
        "",
        "Written by `python -m bench`; every figure below comes from the run described here.",
        "Small settings (see each command): ratios are indicative; the full-size runs are in",
        "each stage's docs. ratio = ours / reference (higher is better for us; for the loader,",
        "how many times faster it produces examples than one train step consumes them).",
        "",
        f"Code measured: {provenance.describe(prov)}; raw results with the same record in",
        "`RESULTS.json`.",
        "",
        *partial,
        f"Machine at the start: {header}",
        f"Machine at the end: {footer}",
        "",
        "| benchmark | measured | reference | unit | ours | reference | ratio "
        "| peak MB ours / ref |",
        "|---|---|---|---|---:|---:|---:|---|",
    ]
    for r in results:
        if "error" in r:
            lines.append(f"| {r['name']} | {r['error']} | | | | | | |")
            continue
        for row in r["rows"]:
            num = (int, float)
            ok = isinstance(row.get("ours"), num) and isinstance(row.get("ref"), num)
            ratio = row["ours"] / row["ref"] if ok and row["ref"] else None
            mem = ""
            if row.get("peak_mb") is not None:
                mem = f"{_fmt(row['peak_mb'])} / {_fmt(row.get('ref_peak_mb'))}"
            lines.append(
                f"| {r['name']} | {row['what']} | {row['reference']} | {row['unit']} | "
                f"{_fmt(row['ours'])} | {_fmt(row.get('ref'))} | "
                f"{'-' if ratio is None else f'{ratio:,.2f}x'} | {mem} |"
            )
    lines += ["", "## Commands", ""]
    for r in results:
        if "command" in r:
            lines.append(f"- {r['name']} ({r['seconds']} s): `{r['command']}`")
    for r in results:
        if r.get("markdown"):
            lines += ["", f"## {r['name']} (its own tables)", "", r["markdown"]]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(REPO_ROOT))
    from corpus.datadir import add_data_dir_argument, resolve_data_dir

    p = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--only", nargs="+", choices=sorted(SMALL), default=None)
    p.add_argument("--output", default=str(BENCH_DIR / "RESULTS.md"))
    add_data_dir_argument(p)
    args = p.parse_args(argv)
    try:
        data = resolve_data_dir(args.data_dir)
    except FileNotFoundError:
        data = None
    present = sorted(
        f.stem
        for f in BENCH_DIR.glob("*.py")
        if not f.stem.startswith("_") and f.stem not in NOT_BENCHMARKS
    )
    unknown = [n for n in present if n not in SMALL]
    names = args.only or [n for n in present if n in SMALL]
    header = machine()
    prov = provenance.read_provenance()
    print(f"bench: {provenance.describe(prov)}", flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        results = [run_one(n, data, Path(tmp), prov) for n in names]
    results += [
        {"name": n, "error": "not run: no small settings in bench/__main__.py SMALL yet"}
        for n in unknown
        if not args.only
    ]
    footer = machine()
    out = Path(args.output)
    out.write_text(render(results, header, footer, prov, args.only), encoding="utf-8")
    raw = {
        "provenance": prov,
        "machine_start": header,
        "machine_end": footer,
        "only": args.only,
        "benchmarks": {r["name"]: r for r in results},
    }
    out.with_suffix(".json").write_text(json.dumps(raw, indent=1) + "\n", encoding="utf-8")
    print(f"bench: wrote {out} and {out.with_suffix('.json')}")
    # a benchmark without small settings is listed as "not run", not a failure of the run
    ok = ("skipped", "not run")
    failed = [r for r in results if not r.get("error", "skipped").startswith(ok)]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
