"""Train a Korean BERT WordPiece vocabulary: Mecab-ko morphemes then BPE (KLUE), or plain BPE.

    python -m tokenizer.train --vocab 32000 --input CLEAN_DIR --output /tmp/tok/morpheme-32k
    python -m tokenizer.train --vocab 32000 --input CLEAN_DIR --output /tmp/tok/bpe-32k --method bpe

Methods (all write the same BERT WordPiece folder, loaded without Mecab):

* ``morpheme-bpe`` (default, KLUE's "morpheme-based subword"): every word is
  split into Mecab-ko morphemes (first morpheme word-initial, the others
  continuation pieces) and Hugging Face ``tokenizers`` learns BPE merges on
  that segmentation, so merges never cross a morpheme boundary.
* ``bpe``: the same trainer on whole words (the paper's BPE ablation).
* ``sentencepiece-bpe``: sentencepiece BPE on the same words, converted
  (``▁x`` -> ``x``, ``x`` -> ``##x``), for comparison.

Words are the inference tokenizer's words (BertNormalizer, then whitespace and
punctuation split), so training and inference agree. The output folder holds
vocab.txt, tokenizer.json, tokenizer_config.json, special_tokens_map.json,
train_stats.json and manifest.json. The same inputs, config and seed give a
byte-identical folder (no times or absolute output paths are written into
it); a folder whose manifest matches is reused without training.
"""

from __future__ import annotations

import argparse
import collections
import glob
import hashlib
import json
import logging
import os
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from tokenizer.morphemes import SPACE_MARK, Segmenter, iter_units
from tokenizer.wordpiece import (
    FORCED_CHARS,
    SPECIAL_TOKENS,
    assemble_vocab,
    is_isolated,
    unit_to_wordpiece,
    unshadow,
    write_folder,
)

log = logging.getLogger("tokenizer.train")

STAGE = "tokenizer.train"
VERSION = 1
METHODS = ("morpheme-bpe", "bpe", "sentencepiece-bpe")
DEFAULT_MIN_CHAR_COUNT = 5
DEFAULT_MIN_FREQUENCY = 2


class EmptyCorpusError(ValueError):
    """No text to learn from."""


# --------------------------------------------------------------------- inputs


def _is_path(x: object) -> bool:
    if isinstance(x, os.PathLike):
        return True
    if not isinstance(x, str) or not x or "\n" in x or len(x) > 4096:
        return False
    return os.path.exists(x) or (any(c in x for c in "*?[") and bool(glob.glob(x)))


def _looks_like_paths(inputs: object) -> bool:
    """Paths: a path, or a non-empty list whose items all name existing files/folders/globs."""
    if isinstance(inputs, (str, os.PathLike)):
        return True
    if not isinstance(inputs, (list, tuple)) or not inputs:
        return False
    return all(_is_path(x) for x in inputs)


def _file_sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def _record_lines(path: str, budget: int | None, counts: collections.Counter) -> Iterator[str]:
    """Non-blank lines of the records of one input file, up to `budget` UTF-8 bytes."""
    from corpus.readers import iter_records

    used = 0
    for record in iter_records(path):
        counts["records"] += 1
        for line in record.text.splitlines():
            line = line.strip()
            if not line:
                continue
            size = len(line.encode("utf-8")) + 1
            if budget is not None and used + size > budget:
                counts["bytes"] += used
                return
            used += size
            counts["lines_read"] += 1
            yield line
    counts["bytes"] += used


def expand_training_inputs(paths: list[str]) -> list[str]:
    """Input files, sorted, by `corpus.readers.expand_inputs` (files, folders, globs).

    A finished corpus stage folder contributes only its kept record shards.
    """
    from corpus.readers import expand_inputs

    return expand_inputs(paths)


class Inputs:
    """The training text: files (any format `corpus.readers` knows) or in-memory texts.

    `max_bytes` caps the text used; with files it is shared among them in
    proportion to their sizes, so every source contributes its first part.
    """

    def __init__(self, inputs: Iterable[str | os.PathLike] | str, max_bytes: int | None = None):
        self.max_bytes = max_bytes
        self.counts: collections.Counter = collections.Counter()
        if _looks_like_paths(inputs):
            items = [inputs] if isinstance(inputs, (str, os.PathLike)) else list(inputs)
            self.files = expand_training_inputs([os.fspath(p) for p in items])
            self.texts = None
            if not self.files:
                raise EmptyCorpusError(f"no input files in {items}")
        else:
            self.files = None
            self.texts = [str(t) for t in inputs]

    def describe(self) -> list[dict]:
        """Input identity for the manifest: paths, sizes and SHA-256 (or a hash of the texts)."""
        if self.files is not None:
            return [
                {"path": f, "bytes": os.path.getsize(f), "sha256": _file_sha256(f)}
                for f in self.files
            ]
        h = hashlib.sha256()
        for t in self.texts:
            h.update(t.encode("utf-8") + b"\n")
        return [{"texts": len(self.texts), "sha256": h.hexdigest()}]

    def lines(self) -> Iterator[str]:
        if self.files is None:
            used = 0
            for text in self.texts:
                for line in text.splitlines():
                    line = line.strip()
                    if not line:
                        continue
                    used += len(line.encode("utf-8")) + 1
                    if self.max_bytes is not None and used > self.max_bytes:
                        return
                    self.counts["lines_read"] += 1
                    self.counts["bytes"] += len(line.encode("utf-8")) + 1
                    yield line
            return
        sizes = [os.path.getsize(f) for f in self.files]
        total = sum(sizes) or 1
        for path, size in zip(self.files, sizes, strict=True):
            budget = None if self.max_bytes is None else int(self.max_bytes * size / total)
            yield from _record_lines(path, budget, self.counts)


# ------------------------------------------------------------------- training


def _train_hf_bpe(
    unit_file: str,
    char_counts: collections.Counter,
    vocab_size: int,
    min_char_count: int,
    min_frequency: int,
) -> tuple[list[str], list[str], dict]:
    """BPE with Hugging Face tokenizers on unit lines; returns (alphabet, learned, stats)."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    kept = [c for c, n in char_counts.items() if n >= min_char_count]
    if not kept:
        raise EmptyCorpusError(
            f"no character occurs {min_char_count}+ times in the corpus: nothing to learn"
        )
    alphabet = sorted({unshadow(c) for c in kept})
    base = len(set(alphabet) | set(FORCED_CHARS))
    base_tokens = base + sum(1 for c in set(alphabet) | set(FORCED_CHARS) if not is_isolated(c))
    merges_needed = max(0, vocab_size - len(SPECIAL_TOKENS) - base_tokens)
    trainer_size = len(kept) + merges_needed + merges_needed // 100 + 10
    tok = Tokenizer(models.BPE(unk_token=None))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    trainer = trainers.BpeTrainer(
        vocab_size=trainer_size,
        min_frequency=min_frequency,
        limit_alphabet=len(kept),
        special_tokens=[],
        show_progress=sys.stderr.isatty(),
    )
    tok.train([unit_file], trainer)
    model = json.loads(tok.to_str())["model"]
    by_id = sorted(model["vocab"].items(), key=lambda kv: kv[1])
    learned = []
    for unit, _ in by_id:
        if len(unit) < 2:
            continue
        piece = unit_to_wordpiece(unit)
        if piece is not None:
            learned.append(piece)
    stats = {"trainer_alphabet": len(kept), "trainer_vocab": len(by_id), "merges": len(learned)}
    return alphabet, learned, stats


def _train_sentencepiece(
    word_file: str, vocab_size: int, workers: int, seed: int
) -> tuple[list[str], list[str], dict]:
    """sentencepiece BPE on word lines; returns (alphabet, learned, stats)."""
    import sentencepiece as spm

    prefix = os.path.join(os.path.dirname(word_file), "spm")
    spm.set_random_generator_seed(seed)
    try:
        spm.SentencePieceTrainer.train(
            input=word_file,
            model_prefix=prefix,
            model_type="bpe",
            vocab_size=vocab_size - len(SPECIAL_TOKENS),
            character_coverage=0.9995,
            normalization_rule_name="identity",
            split_by_whitespace=True,
            add_dummy_prefix=True,
            num_threads=max(1, workers),
            input_sentence_size=0,
            shuffle_input_sentence=False,
            max_sentence_length=1 << 20,
            bos_id=-1,
            eos_id=-1,
            unk_id=0,
            minloglevel=2,
        )
    except RuntimeError as e:
        raise ValueError(f"sentencepiece could not train a {vocab_size} vocabulary: {e}") from e
    pieces = []
    with open(prefix + ".vocab", encoding="utf-8") as fh:
        for line in fh:
            pieces.append(line.rstrip("\n").split("\t")[0])
    alphabet: set[str] = set()
    learned: list[str] = []
    for p in pieces[1:]:  # 0 is <unk>
        word_initial = p.startswith(SPACE_MARK)
        body = p[1:] if word_initial else p
        if not body:
            continue
        if len(body) == 1:
            alphabet.add(body)
            continue
        learned.append(body if word_initial else "##" + body)
    return sorted(alphabet), learned, {"spm_pieces": len(pieces)}


def _config(method, vocab_size, seed, max_bytes, min_char_count, min_frequency) -> dict:
    return {
        "method": method,
        "vocab_size": vocab_size,
        "seed": seed,
        "max_bytes": max_bytes,
        "min_char_count": min_char_count,
        "min_frequency": min_frequency,
        "special_tokens": list(SPECIAL_TOKENS),
    }


def _manifest_matches(path: Path, config: dict, inputs: list[dict]) -> bool:
    try:
        old = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return False
    return (
        old.get("stage") == STAGE
        and old.get("version") == VERSION
        and old.get("config") == config
        and old.get("inputs") == inputs
    )


def train_tokenizer(
    inputs: Iterable[str | os.PathLike] | str,
    output_dir: str | os.PathLike,
    vocab_size: int = 32000,
    method: str = "morpheme-bpe",
    seed: int = 0,
    workers: int = 1,
    *,
    max_bytes: int | None = None,
    min_char_count: int = DEFAULT_MIN_CHAR_COUNT,
    min_frequency: int = DEFAULT_MIN_FREQUENCY,
    argv: list[str] | None = None,
    force: bool = False,
) -> Path:
    """Trains a vocabulary and writes the WordPiece folder; returns `output_dir`.

    `inputs` is a path, a list of paths (files, folders, globs; any format of
    `corpus.readers`), or a list of texts (a list of strings that are not all
    existing paths; held in memory, for small corpora). Work is skipped when
    `output_dir/manifest.json` matches the inputs and config. Raises
    `EmptyCorpusError` for an empty corpus, `ValueError` when the corpus
    cannot support `vocab_size` entries, and `FileExistsError` when the folder
    holds a different finished run (unless `force`).
    """
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose from {', '.join(METHODS)}")
    if vocab_size <= len(SPECIAL_TOKENS):
        raise ValueError(f"vocab size must exceed the {len(SPECIAL_TOKENS)} special tokens")
    out = Path(output_dir)
    source = Inputs(inputs, max_bytes)
    config = _config(method, vocab_size, seed, max_bytes, min_char_count, min_frequency)
    described = source.describe()
    manifest_path = out / "manifest.json"
    if not force and _manifest_matches(manifest_path, config, described):
        log.info("%s: manifest matches inputs and config, skipping", out)
        return out
    if manifest_path.exists():
        if not force:
            raise FileExistsError(
                f"{out} holds a finished run with other inputs or config; "
                "choose another --output or pass --force to replace it"
            )
        manifest_path.unlink()  # the folder is incomplete until the new manifest is written

    counts: collections.Counter = collections.Counter()
    timings = {}
    with tempfile.TemporaryDirectory(prefix="tokenizer-train-") as tmp:
        t0 = time.perf_counter()
        if method == "sentencepiece-bpe":
            text_file = os.path.join(tmp, "words.txt")
            n = _write_words(source.lines(), text_file, counts)
        else:
            text_file = os.path.join(tmp, "units.txt")
            char_counts: collections.Counter = collections.Counter()
            units = iter_units(
                source.lines(),
                morphemes=method == "morpheme-bpe",
                workers=workers,
                counts=counts,
                char_counts=char_counts,
            )
            n = _write_lines(units, text_file)
        timings["segment_s"] = time.perf_counter() - t0
        if n == 0 or counts["words"] == 0:
            raise EmptyCorpusError(
                f"the corpus has no text to learn from ({source.counts['lines_read']} lines read)"
            )
        t1 = time.perf_counter()
        if method == "sentencepiece-bpe":
            alphabet, learned, trainer_stats = _train_sentencepiece(
                text_file, vocab_size, workers, seed
            )
        else:
            alphabet, learned, trainer_stats = _train_hf_bpe(
                text_file, char_counts, vocab_size, min_char_count, min_frequency
            )
        timings["train_s"] = time.perf_counter() - t1
    vocab, vocab_counts = assemble_vocab(alphabet, learned, vocab_size)
    stats = {
        "method": method,
        "vocab_size": len(vocab),
        "input": dict(sorted(source.counts.items())),
        "segmentation": dict(sorted(counts.items())),
        "trainer": trainer_stats,
        "vocab": {
            **vocab_counts,
            "continuation_tokens": sum(1 for t in vocab if t.startswith("##")),
        },
    }
    write_folder(out, vocab, stats)
    manifest = {
        "stage": STAGE,
        "version": VERSION,
        "argv": argv,
        "config": config,
        "inputs": described,
        "counts": {"lines": source.counts["lines_read"], "bytes": source.counts["bytes"]},
        "outputs": {
            name: _file_sha256(str(out / name))
            for name in (
                "vocab.txt",
                "tokenizer.json",
                "tokenizer_config.json",
                "special_tokens_map.json",
                "train_stats.json",
            )
        },
    }
    tmp_manifest = out / "manifest.json.tmp"
    tmp_manifest.write_text(json.dumps(manifest, ensure_ascii=False, indent=2) + "\n", "utf-8")
    os.replace(tmp_manifest, manifest_path)
    log.info(
        "%s: %d tokens (%s) from %d lines, %d bytes; segment %.1fs, train %.1fs",
        out,
        len(vocab),
        method,
        source.counts["lines_read"],
        source.counts["bytes"],
        timings["segment_s"],
        timings["train_s"],
    )
    return out


def _write_lines(lines: Iterable[str], path: str) -> int:
    n = 0
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        for line in lines:
            if line:
                fh.write(line + "\n")
                n += 1
    return n


def _write_words(lines: Iterable[str], path: str, counts: collections.Counter) -> int:
    """Words as the inference tokenizer sees them, space-separated, for sentencepiece."""
    seg = Segmenter(morphemes=False)

    def gen() -> Iterator[str]:
        for line in lines:
            words = [w.replace(SPACE_MARK, "") for w, _ in seg.words(line)[1]]
            counts["lines"] += 1
            counts["words"] += len(words)
            yield " ".join(w for w in words if w)

    return _write_lines(gen(), path)


# ------------------------------------------------------------------------ CLI


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m tokenizer.train",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--input", nargs="+", required=True, help="files, folders or globs")
    p.add_argument("--output", required=True, help="output folder")
    p.add_argument("--vocab", type=int, default=32000, help="total vocabulary size (32000)")
    p.add_argument("--method", choices=METHODS, default="morpheme-bpe")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    p.add_argument("--max-bytes", type=int, default=None, help="cap on UTF-8 bytes of text used")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--min-char-count",
        type=int,
        default=DEFAULT_MIN_CHAR_COUNT,
        help="characters rarer than this are left out of the alphabet (BPE methods)",
    )
    p.add_argument("--min-frequency", type=int, default=DEFAULT_MIN_FREQUENCY)
    p.add_argument("--force", action="store_true", help="retrain even if the manifest matches")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    try:
        train_tokenizer(
            args.input,
            args.output,
            vocab_size=args.vocab,
            method=args.method,
            seed=args.seed,
            workers=args.workers,
            max_bytes=args.max_bytes,
            min_char_count=args.min_char_count,
            min_frequency=args.min_frequency,
            argv=["python", "-m", STAGE, *(argv if argv is not None else sys.argv[1:])],
            force=args.force,
        )
    except (ValueError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
