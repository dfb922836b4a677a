"""Builds pretraining examples from corpus files: BERT pairs + NSP + static masking, or RoBERTa
packed sequences.

    python -m pretrain.build_data --tokenizer TOK_DIR --input CORPUS... --output EXAMPLES_DIR \\
        --objective bert|roberta [--max-seq-length 512] [--seed 0] [--workers N] \\
        [--dupe-factor 5] [--max-predictions-per-seq N]

Inputs are anything `corpus.readers.iter_records` reads (corpus-record JSONL
shards, WikiExtractor files, plain text, ...; ``--encoding cp949`` for text saved as
CP949/EUC-KR); directories and globs are
expanded by `corpus.readers.expand_inputs` (sorted). One input file is one
shard, built by one worker process, in memory (a corpus shard is a few MB).

Documents. Consecutive records with the same *document key* form one
document. The key is the record's ``doc_id`` field when present; else its id
without a trailing sentence suffix ``-s<k>`` (``wiki-5-s3`` -> ``wiki-5``);
else the id itself, so each record is a document (WikiExtractor articles,
petitions, one plain-text line). A record's text is split into segments
(sentences) with `corpus.sentences.split_sentences`; one-sentence records stay
one segment.

Tokenization uses only ``TOK_DIR/tokenizer.json`` (Hugging Face
``tokenizers``; no Mecab). Segments that give no tokens and documents with no
segment left are dropped and counted.

Objectives:
- ``bert``: `pretrain.packing.create_nsp_instances` over the shard's
  documents, repeated ``--dupe-factor`` times with different randomness, each
  instance masked once with `pretrain.masking.whole_word_mask_batch` (static
  masking; instance ``k`` of input ``i`` has key ``example_key(tag, seed, i, k)``).
  NotNext segments come from another document of the same shard, so a bert
  shard needs at least 2 documents.
- ``roberta``: `pretrain.packing.pack_full_sentences`; nothing is masked here
  (the loader masks afresh every epoch).

Output (see `pretrain.example_store` for the record layout):
``examples-XXXXX-of-YYYYY.array_record`` (one per input with examples),
a ``.json`` completion marker per shard (its counts), ``vocab.txt`` (the
tokenizer's tokens in id order, for loader-side masking) and ``manifest.json``
(config, inputs with sizes and SHA-256, tokenizer hash, counts, token totals).
A folder whose manifest matches the config and the inputs' contents (sizes and
SHA-256, in order; not their paths) is reused as is;
finished shards of an interrupted build are reused. The same inputs, tokenizer
and seed give byte-identical shard files.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import os
import re
import shutil
import sys
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np

from pretrain import example_store
from pretrain.masking import (
    SPECIAL_TOKENS,
    MaskingSpec,
    default_max_predictions,
    example_key,
    whole_word_mask_batch,
)
from pretrain.packing import PackStats, create_nsp_instances, pack_full_sentences

STAGE = "pretrain.build_data"
VERSION = 2  # bump when the examples a config produces change
#: Position embeddings of every KLUE model stop at 512.
MODEL_MAX_SEQ_LENGTH = 512
OBJECTIVES = ("bert", "roberta")
#: Counts every shard reports (0 when nothing happened), per objective.
_COMMON_KEYS = (
    "records", "documents_read", "documents", "empty_documents", "segments", "empty_segments",
    "input_tokens", "unk_tokens", "documents_shorter_than_a_sequence", "examples",
    "example_tokens",
)  # fmt: skip
_COUNT_KEYS = {
    "bert": (*_COMMON_KEYS, "nsp_is_next", "nsp_random_next", "predictions", "truncated_tokens"),
    "roberta": (*_COMMON_KEYS, "split_segments", "document_boundaries"),
}
#: Mixed into masking keys so build-time and loader-time keys never coincide.
_MASK_TAG = 0x42554C44
_SENTENCE_SUFFIX = re.compile(r"^(.+)-s\d+$")


def document_key(record: Any) -> str:
    """The key grouping consecutive records into documents (see the module docstring)."""
    doc_id = record.extra.get("doc_id") if record.extra else None
    if doc_id is not None:
        return str(doc_id)
    m = _SENTENCE_SUFFIX.match(record.id)
    return m.group(1) if m else record.id


def _iter_records(
    path: str,
    fmt: str,
    on_error: str,
    counts: collections.Counter,
    quarantine_path: str | None,
    encoding: str = "utf-8",
):
    from corpus.readers import ReadOptions, iter_records
    from corpus.textio import Quarantine

    opts = ReadOptions()
    # In skip mode bad lines go to a quarantine file (location, reason, hash; never the text)
    # and are counted, so nothing is dropped silently.
    with Quarantine(quarantine_path) as quarantine:
        yield from iter_records(
            path, fmt=fmt, on_error=on_error, options=opts, quarantine=quarantine,
            encoding=encoding,
        )  # fmt: skip
    for reason, n in opts.skipped.items():
        counts[f"reader_skipped_{reason}"] += n
    for reason, n in quarantine.counts.items():
        counts["quarantined_" + reason.lower().replace(" ", "_")] += n


def read_documents(
    path: str,
    tokenizer: Any,
    counts: collections.Counter,
    *,
    fmt: str = "auto",
    on_error: str = "raise",
    quarantine_path: str | None = None,
    batch_size: int = 2048,
    unk_id: int | None = None,
    encoding: str = "utf-8",
) -> list[list[np.ndarray]]:
    """Reads one input file into tokenized documents (lists of int32 segment arrays).

    ``unk_id`` (default: the id of ``[UNK]``) is the token counted as unknown."""
    from corpus.sentences import split_sentences

    doc_of_segment: list[int] = []
    texts: list[str] = []
    n_docs = 0
    last_key: str | None = None
    for record in _iter_records(path, fmt, on_error, counts, quarantine_path, encoding):
        counts["records"] += 1
        key = document_key(record)
        if key != last_key or n_docs == 0:
            n_docs += 1
            last_key = key
        for sentence in split_sentences(record.text):
            texts.append(sentence)
            doc_of_segment.append(n_docs - 1)
    docs: list[list[np.ndarray]] = [[] for _ in range(n_docs)]
    if unk_id is None:
        unk_id = tokenizer.token_to_id("[UNK]")
    for start in range(0, len(texts), batch_size):
        encodings = tokenizer.encode_batch(
            texts[start : start + batch_size], add_special_tokens=False
        )
        for k, enc in enumerate(encodings):
            ids = np.asarray(enc.ids, np.int32)
            if len(ids) == 0:
                counts["empty_segments"] += 1
                continue
            docs[doc_of_segment[start + k]].append(ids)
            counts["segments"] += 1
            counts["input_tokens"] += len(ids)
            if unk_id is not None:
                counts["unk_tokens"] += int((ids == unk_id).sum())
    counts["documents_read"] += n_docs
    out = [d for d in docs if d]
    counts["empty_documents"] += n_docs - len(out)
    counts["documents"] += len(out)
    return out


def load_tokenizer(tokenizer_dir: str | os.PathLike):
    """The folder's ``tokenizer.json`` (no truncation, no padding); its special tokens and
    word marks are checked (`tokenizer_kind`)."""
    from tokenizers import Tokenizer

    path = Path(tokenizer_dir) / "tokenizer.json"
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found: --tokenizer must be a tokenizer folder")
    tok = Tokenizer.from_file(str(path))
    tok.no_truncation()
    tok.no_padding()
    tokenizer_kind(tokenizer_dir, tok)
    return tok


def tokenizer_kind(tokenizer_dir: str | os.PathLike, tok) -> tuple[dict[str, str], str]:
    """(role -> special token string, whole-word rule) of a tokenizer folder
    (`pretrain.tokenizer_kinds`: ``##`` WordPiece or ``▁`` SentencePiece pieces)."""
    from pretrain import tokenizer_kinds

    path = Path(tokenizer_dir) / "tokenizer.json"
    specials = tokenizer_kinds.special_tokens(tokenizer_dir, tok)
    rule = tokenizer_kinds.word_rule(json.loads(tok.to_str()), str(path))
    return specials, rule


def _extended(tokenizer_dir, tok, add_tokens) -> tuple[dict | None, list[dict]]:
    """(extended tokenizer.json, added entries) for ``--add-tokens``; (None, []) without."""
    if not add_tokens:
        return None, []
    from pretrain import vocab_extension

    words = vocab_extension.read_token_file(add_tokens)
    where = str(Path(tokenizer_dir) / "tokenizer.json")
    return vocab_extension.extend_tokenizer(json.loads(tok.to_str()), tok, words, where)


def _tokenizer_from_json(data: dict):
    from tokenizers import Tokenizer

    tok = Tokenizer.from_str(json.dumps(data))
    tok.no_truncation()
    tok.no_padding()
    return tok


def vocab_tokens(tok) -> list[str]:
    """The tokenizer's tokens in id order (holes, if any, become ``[unused<id>]``)."""
    vocab = tok.get_vocab(with_added_tokens=True)
    tokens = [f"[unused{i}]" for i in range(max(vocab.values()) + 1)]
    for t, i in vocab.items():
        tokens[i] = t
    return tokens


def _shard_name(index: int, total: int) -> str:
    return f"examples-{index:05d}-of-{total:05d}"


def build_shard(job: dict[str, Any]) -> dict[str, Any]:
    """Builds one input file into one ArrayRecord shard; returns its counts. Top-level for pools."""
    cfg = job["config"]
    out_dir = Path(job["output_dir"])
    name = _shard_name(job["index"], job["total"])
    marker = out_dir / f"{name}.json"
    if marker.exists():
        done = json.loads(marker.read_text())
        if done.get("config_hash") == job["config_hash"]:
            return done
    tok = load_tokenizer(cfg["tokenizer_dir"])
    counts: collections.Counter = collections.Counter({k: 0 for k in _COUNT_KEYS[cfg["objective"]]})
    docs = read_documents(
        job["input"],
        tok,
        counts,
        fmt=cfg["format"],
        on_error=cfg["on_error"],
        quarantine_path=str(out_dir / "quarantine" / f"{name}.jsonl"),
        unk_id=cfg["special_ids"].get("[UNK]"),
        encoding=cfg.get("encoding", "utf-8"),
    )
    L = cfg["max_seq_length"]
    cls_id, sep_id = cfg["special_ids"]["[CLS]"], cfg["special_ids"]["[SEP]"]
    dtype = np.dtype(cfg["token_dtype"])
    path = out_dir / f"{name}.array_record"
    writer = example_store.ShardWriter(path, dtype) if docs else None
    try:
        if cfg["objective"] == "bert":
            _write_bert(job, docs, tok, writer, counts, cls_id, sep_id)
        else:
            _write_roberta(docs, writer, counts, L, cls_id, sep_id)
    except BaseException:
        if writer is not None:
            writer.abort()
        raise
    if writer is not None:
        writer.close()
        counts["examples"] = writer.count
    counts["padding_tokens"] = counts["examples"] * L - counts["example_tokens"]
    result = {
        "input": job["input"],
        "file": path.name if docs and counts["examples"] else None,
        "examples": int(counts["examples"]),
        "counts": {k: int(v) for k, v in sorted(counts.items())},
        "config_hash": job["config_hash"],
    }
    if writer is not None and writer.count == 0:
        path.unlink()
    tmp = marker.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    os.replace(tmp, marker)
    return result


def _short_documents(docs, limit: int, counts: collections.Counter) -> None:
    for d in docs:
        if sum(len(s) for s in d) < limit:
            counts["documents_shorter_than_a_sequence"] += 1


def _write_bert(job, docs, tok, writer, counts, cls_id, sep_id) -> None:
    cfg = job["config"]
    L = cfg["max_seq_length"]
    _short_documents(docs, L - 3, counts)
    if not docs:
        return
    if len(docs) < 2:
        raise ValueError(
            f"{job['input']}: the bert objective needs at least 2 documents per input file "
            "(NotNext segments come from another document); merge small inputs"
        )
    spec = MaskingSpec.from_vocab(
        vocab_tokens(tok),
        max_predictions=cfg["max_predictions_per_seq"],
        masked_lm_prob=cfg["masked_lm_prob"],
        special_tokens=cfg["special_tokens"].values(),
        mask_token=cfg["special_tokens"]["[MASK]"],
        word_rule=cfg["word_rule"],
    )
    pending: list = []

    def flush() -> None:
        # Mask in batches (vectorised); each instance's mask depends only on its own key.
        width = max(len(ids) for ids, _, _ in pending)
        tokens = np.full((len(pending), width), spec_pad, np.int32)
        for row, (ids, _, _) in enumerate(pending):
            tokens[row, : len(ids)] = ids
        keys = np.array([key for _, key, _ in pending], dtype=np.uint64)
        masked = whole_word_mask_batch(tokens, spec, keys)
        for row, (ids, _, inst) in enumerate(pending):
            n = int(masked["masked_weights"][row].sum())
            writer.write(
                example_store.StoredExample(
                    masked["input_ids"][row, : len(ids)],
                    segment_b_start=len(inst.tokens_a) + 2,
                    masked_positions=masked["masked_positions"][row, :n],
                    masked_ids=masked["masked_ids"][row, :n],
                    nsp_label=int(inst.is_random_next),
                )
            )
            counts["example_tokens"] += len(ids)
            counts["predictions"] += n
            counts["truncated_tokens"] += inst.truncated
            counts["nsp_random_next" if inst.is_random_next else "nsp_is_next"] += 1
        pending.clear()

    spec_pad = cfg["special_ids"]["[PAD]"]
    serial = 0
    for dupe in range(cfg["dupe_factor"]):
        rng = np.random.default_rng([cfg["seed"], job["index"], dupe])
        for doc_index in range(len(docs)):
            for inst in create_nsp_instances(
                docs, doc_index, max_seq_length=L, rng=rng, short_seq_prob=cfg["short_seq_prob"]
            ):
                ids, _ = inst.to_ids(cls_id, sep_id)
                pending.append(
                    (ids, example_key(_MASK_TAG, cfg["seed"], job["index"], serial), inst)
                )
                serial += 1
                if len(pending) == 512:
                    flush()
    if pending:
        flush()


def _write_roberta(docs, writer, counts, L, cls_id, sep_id) -> None:
    _short_documents(docs, L - 2, counts)
    stats = PackStats()
    for seq in pack_full_sentences(
        docs, max_seq_length=L, cls_id=cls_id, sep_id=sep_id, stats=stats
    ):
        writer.write(example_store.StoredExample(seq))
        counts["example_tokens"] += len(seq)
    counts["split_segments"] += stats.split_segments
    counts["document_boundaries"] += stats.document_boundaries


def _sha256(path: str | os.PathLike) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _merge(total: dict, counts: dict) -> None:
    for k, v in counts.items():
        total[k] = total.get(k, 0) + v


#: Tokenizer files copied into ``OUTPUT/tokenizer/`` (what `transformers` needs at export).
TOKENIZER_FILES = (
    "vocab.txt",
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
)


def _finished(job: dict[str, Any]) -> bool:
    marker = Path(job["output_dir"]) / f"{_shard_name(job['index'], job['total'])}.json"
    try:
        return json.loads(marker.read_text()).get("config_hash") == job["config_hash"]
    except (OSError, ValueError):
        return False


def _run_shards(jobs: list[dict], workers: int, out: Path, log) -> list[dict]:
    """Builds every shard (finished ones are read back), one progress line per shard with
    records/s and an ETA by input bytes; Ctrl-C stops at once and raises
    `corpus.executor.Interrupted` (finished shards are kept: the next run resumes)."""
    from corpus.cli import spawning_deaf_to_ctrl_c, start_worker
    from corpus.executor import Interrupted
    from corpus.progress import format_duration

    done_before = sum(_finished(j) for j in jobs)
    if done_before:
        log(f"{STAGE}: resuming: {done_before} of {len(jobs)} shards done")
    sizes = [os.path.getsize(j["input"]) for j in jobs]
    todo_bytes = max(1, sum(b for b, j in zip(sizes, jobs, strict=True) if not _finished(j)))
    start, done_bytes, docs = time.monotonic(), 0, 0
    results: list[dict] = []

    def report(job: dict, res: dict, was_done: bool) -> None:
        nonlocal done_bytes, docs
        results.append(res)
        if not was_done:
            done_bytes += sizes[job["index"]]
            docs += res["counts"].get("records", 0)
        elapsed = max(time.monotonic() - start, 1e-9)
        eta = format_duration(elapsed * (todo_bytes - done_bytes) / max(done_bytes, 1))
        log(
            f"{STAGE}: shard {job['index'] + 1}/{len(jobs)} {res['examples']} examples; "
            f"{docs / elapsed:,.0f} records/s, ETA {eta}"
        )

    pool = None
    try:
        if workers <= 1:
            for job in jobs:
                was_done = _finished(job)
                report(job, build_shard(job), was_done)
        else:
            ctx = get_context("spawn")
            flags = [_finished(j) for j in jobs]
            with spawning_deaf_to_ctrl_c():  # map submits every job: the workers start here
                pool = ProcessPoolExecutor(workers, mp_context=ctx, initializer=start_worker)
                results_in_order = pool.map(build_shard, jobs)
            for job, was_done, res in zip(jobs, flags, results_in_order, strict=True):
                report(job, res, was_done)
            pool.shutdown(wait=True)
    except KeyboardInterrupt as e:
        if pool is not None:
            for proc in list(getattr(pool, "_processes", {}).values()):
                proc.terminate()
            pool.shutdown(wait=True, cancel_futures=True)
        raise Interrupted(STAGE, sum(_finished(j) for j in jobs), len(jobs), str(out)) from e
    return results


def build_examples(
    tokenizer_dir: str | os.PathLike,
    inputs: Sequence[str | os.PathLike] | str,
    output_dir: str | os.PathLike,
    *,
    objective: str,
    max_seq_length: int = 512,
    seed: int = 0,
    workers: int | None = None,
    dupe_factor: int = 5,
    max_predictions_per_seq: int | None = None,
    short_seq_prob: float = 0.1,
    masked_lm_prob: float = 0.15,
    fmt: str = "auto",
    on_error: str = "raise",
    argv: Iterable[str] | None = None,
    log=print,
    add_tokens: str | os.PathLike | None = None,
    encoding: str = "utf-8",
) -> Path:
    """Builds (or reuses) an examples folder; returns its path. See the module docstring.

    ``add_tokens``: a file of domain words to append to a WordPiece vocabulary first
    (`pretrain.vocab_extension`); the examples and their tokenizer copy use the extended one.
    """
    from corpus.readers import expand_inputs, reader_versions
    from corpus.textio import ENCODINGS

    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {OBJECTIVES}, got {objective!r}")
    if max_seq_length > MODEL_MAX_SEQ_LENGTH:
        raise ValueError(
            f"max_seq_length {max_seq_length} exceeds the model limit of {MODEL_MAX_SEQ_LENGTH} "
            "position embeddings"
        )
    min_len = 5 if objective == "bert" else 3
    if max_seq_length < min_len:
        raise ValueError(f"max_seq_length must be >= {min_len} for {objective}")
    if dupe_factor < 1:
        raise ValueError(f"dupe_factor must be >= 1, got {dupe_factor}")
    if encoding not in ENCODINGS:
        raise ValueError(f"unknown encoding {encoding!r}; choose from {', '.join(ENCODINGS)}")
    if not 0 <= short_seq_prob <= 1:
        raise ValueError(f"short_seq_prob must be in [0, 1], got {short_seq_prob}")
    if isinstance(inputs, str | os.PathLike):
        inputs = [inputs]
    files = expand_inputs([os.fspath(p) for p in inputs])
    if not files:
        raise ValueError("no input files")
    tok = load_tokenizer(tokenizer_dir)
    extended, added = _extended(tokenizer_dir, tok, add_tokens)
    if added:
        tok = _tokenizer_from_json(extended)
    tokens = vocab_tokens(tok)
    vocab_size = len(tokens)
    if max_predictions_per_seq is None:
        max_predictions_per_seq = default_max_predictions(max_seq_length, masked_lm_prob)
    names, word_rule = tokenizer_kind(tokenizer_dir, tok)
    specials = {
        role: tok.token_to_id(names[role]) if role in names else None for role in SPECIAL_TOKENS
    }
    config = {
        "version": VERSION,
        "objective": objective,
        "max_seq_length": max_seq_length,
        "max_predictions_per_seq": max_predictions_per_seq,
        "seed": seed,
        "dupe_factor": dupe_factor if objective == "bert" else 1,
        "short_seq_prob": short_seq_prob if objective == "bert" else 0.0,
        "masked_lm_prob": masked_lm_prob,
        "format": fmt,
        "on_error": on_error,
        "vocab_size": vocab_size,
        "token_dtype": example_store.token_dtype(vocab_size).str,
        "special_ids": specials,
        "tokenizer_sha256": _sha256(Path(tokenizer_dir) / "tokenizer.json"),
        "record_format": example_store.FORMAT_VERSION,
        "inputs": [
            {"path": os.path.abspath(p), "bytes": os.path.getsize(p), "sha256": _sha256(p)}
            for p in files
        ],
    }
    if added:  # only then: folders built without --add-tokens keep their config hash
        config["added_tokens"] = added
    if encoding != "utf-8":  # likewise: UTF-8 folders keep theirs
        config["encoding"] = encoding
    if readers := reader_versions(files, fmt, encoding):  # likewise: unchanged readers
        config["readers"] = readers
    # Inputs count by content and order, not by where they are mounted.
    hashed = dict(
        config, inputs=[{k: v for k, v in i.items() if k != "path"} for i in config["inputs"]]
    )
    config_hash = hashlib.sha256(json.dumps(hashed, sort_keys=True).encode()).hexdigest()
    out = Path(output_dir)
    manifest_path = out / "manifest.json"
    if manifest_path.exists():
        old = json.loads(manifest_path.read_text())
        if old.get("config_hash") == config_hash:
            log(f"{STAGE}: {out} is up to date (manifest matches), skipping")
            return out
        raise FileExistsError(
            f"{out} holds examples built with another config or other inputs; "
            "choose another --output or delete it"
        )
    out.mkdir(parents=True, exist_ok=True)
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    (out / "vocab.txt").write_text("".join(t + "\n" for t in tokens), encoding="utf-8")
    # The examples carry their tokenizer, so training and export need no other path.
    tok_copy = out / "tokenizer"
    tok_copy.mkdir(exist_ok=True)
    for name in TOKENIZER_FILES:
        if (Path(tokenizer_dir) / name).exists():
            shutil.copyfile(Path(tokenizer_dir) / name, tok_copy / name)
    if added:
        from pretrain import vocab_extension

        vocab_extension.write_extended(tok_copy, extended, added)
        log(f"{STAGE}: added {len(added)} token(s) to the vocabulary ({len(tokens)} now)")
    # Derived from the tokenizer files (hashed through tokenizer_sha256), so kept out of the
    # config hash: folders built before these fields existed stay valid (wordpiece, BERT names).
    derived = {"special_tokens": names, "word_rule": word_rule}
    job_dir = tok_copy if added else tokenizer_dir
    job_config = dict(config, tokenizer_dir=os.fspath(job_dir), **derived)
    jobs = [
        {
            "index": i,
            "total": len(files),
            "input": f,
            "output_dir": os.fspath(out),
            "config": job_config,
            "config_hash": config_hash,
        }
        for i, f in enumerate(files)
    ]
    workers = min(workers or os.cpu_count() or 1, len(jobs))
    results = _run_shards(jobs, workers, out, log)
    counts: dict[str, int] = {}
    for res in results:
        _merge(counts, res["counts"])
    counts.setdefault("examples", 0)
    if counts["examples"] == 0:
        raise ValueError(f"no examples were built from {len(files)} input file(s): empty corpus?")
    manifest = {
        "stage": STAGE,
        "version": VERSION,
        "config_hash": config_hash,
        **config,
        **derived,
        "shards": [{"file": r["file"], "examples": r["examples"]} for r in results if r["file"]],
        "examples": counts["examples"],
        "counts": dict(sorted(counts.items())),
        "argv": list(argv) if argv is not None else sys.argv,
        "started": started,
        "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    tmp = out / "manifest.json.tmp"
    tmp.write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n")
    os.replace(tmp, manifest_path)
    log(f"{STAGE}: {counts['examples']} examples in {len(manifest['shards'])} shard(s) -> {out}")
    return out


def main(argv: list[str] | None = None) -> int:
    from corpus.textio import ENCODINGS

    parser = argparse.ArgumentParser(
        prog="python -m pretrain.build_data", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--tokenizer", required=True, help="tokenizer folder (tokenizer.json)")
    parser.add_argument("--input", nargs="+", required=True, help="files, folders or globs")
    parser.add_argument("--output", required=True, help="examples folder to write")
    parser.add_argument("--objective", choices=OBJECTIVES, required=True)
    parser.add_argument("--max-seq-length", type=int, default=512)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=None, help="processes (default: CPUs)")
    parser.add_argument("--dupe-factor", type=int, default=5, help="bert: maskings per pair")
    parser.add_argument(
        "--max-predictions-per-seq", type=int, default=None, help="default ceil(0.15 * L)"
    )
    parser.add_argument("--short-seq-prob", type=float, default=0.1)
    parser.add_argument("--masked-lm-prob", type=float, default=0.15)
    parser.add_argument("--format", default="auto", help="input format for corpus.readers")
    parser.add_argument("--on-error", choices=("raise", "skip"), default="raise")
    parser.add_argument(
        "--encoding", choices=ENCODINGS, default="utf-8",
        help="the inputs' text encoding (cp949: Korean text saved as CP949/EUC-KR)",
    )  # fmt: skip
    parser.add_argument(
        "--add-tokens", default=None, metavar="FILE",
        help="domain words (one per line) to add to a WordPiece vocabulary; a run continuing a "
        "checkpoint starts each new embedding as the mean of the word's pieces",
    )  # fmt: skip
    args = parser.parse_args(argv)
    try:
        build_examples(
            args.tokenizer,
            args.input,
            args.output,
            objective=args.objective,
            max_seq_length=args.max_seq_length,
            seed=args.seed,
            workers=args.workers,
            dupe_factor=args.dupe_factor,
            max_predictions_per_seq=args.max_predictions_per_seq,
            short_seq_prob=args.short_seq_prob,
            masked_lm_prob=args.masked_lm_prob,
            fmt=args.format,
            on_error=args.on_error,
            add_tokens=args.add_tokens,
            encoding=args.encoding,
            argv=sys.argv if argv is None else ["python", "-m", STAGE, *argv],
        )
    except (ValueError, FileNotFoundError, FileExistsError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:  # corpus.executor.Interrupted says what is kept
        print(str(e) or f"{STAGE}: interrupted", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
