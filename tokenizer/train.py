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

Words are the inference tokenizer's words (NFC and BertNormalizer, then
whitespace and punctuation split), so training and inference agree. Training
uses a uniform random sample of the inputs (`Inputs`, ``--sample-bytes``), its
units are counted in parallel Mecab workers without a temporary file, units
seen once are dropped before BPE, and the single-character entries are chosen
by coverage (`tokenizer.alphabet`). The output folder holds
vocab.txt, tokenizer.json, tokenizer_config.json, special_tokens_map.json,
train_stats.json and manifest.json. The same inputs, config and seed give a
byte-identical folder (no times or absolute output paths are written into
it); a folder whose manifest matches is reused without training.
"""

from __future__ import annotations

import argparse
import collections
import json
import logging
import os
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from corpus.progress import AmountProgress
from corpus.readers import reader_versions
from corpus.textio import ENCODINGS
from tokenizer.alphabet import (
    BASE_CHOICES,
    DEFAULT_COVERAGE,
    Alphabet,
    forced_chars,
    select_alphabet,
)
from tokenizer.inputs import EmptyCorpusError, Inputs, file_sha256
from tokenizer.morphemes import SPACE_MARK, Segmenter, count_units
from tokenizer.wordpiece import (
    FORCED_CHARS,
    SPECIAL_TOKENS,
    TooFewPiecesError,
    assemble_vocab,
    is_isolated,
    unit_to_wordpiece,
    write_folder,
)

log = logging.getLogger("tokenizer.train")

STAGE = "tokenizer.train"
#: Left in the output folder while a run is in progress (removed with the manifest written).
UNFINISHED = ".unfinished.json"
VERSION = 2
METHODS = ("morpheme-bpe", "bpe", "sentencepiece-bpe")
DEFAULT_MIN_CHAR_COUNT = 5
DEFAULT_MIN_FREQUENCY = 2
#: Units seen fewer times than this are left out before BPE (they cannot be merged usefully).
DEFAULT_MIN_UNIT_COUNT = 2
#: Default training sample: 1 GB of text (see docs/tokenizer.md for time and memory).
DEFAULT_SAMPLE_BYTES = 1_000_000_000
#: Up to this many distinct units, pruning is undone when the vocabulary cannot be filled.
SMALL_CORPUS_UNITS = 100_000
#: Distinct units held while counting before the rarest are dropped (memory bound).
DEFAULT_MAX_DISTINCT_UNITS = 20_000_000


# ------------------------------------------------------------------- training


def _prune_units(
    units: collections.Counter, alphabet: Alphabet, min_unit_count: int
) -> tuple[dict[str, int], set[str], dict[str, int]]:
    """Units for the trainer: seen `min_unit_count`+ times, only alphabet symbols, 2+ chars.

    Returns (kept units with counts, their symbols, counts of what was dropped).
    Single-character units are left out: they hold no pair to merge.
    """
    symbols = alphabet.trainer_symbols()
    kept: dict[str, int] = {}
    used: set[str] = set()
    dropped = collections.Counter()
    for unit, n in units.items():
        if n < min_unit_count:
            dropped["rare_unit_occurrences"] += n
            dropped["rare_units"] += 1
        elif len(unit) < 2:
            dropped["single_char_unit_occurrences"] += n
        elif not all(c in symbols for c in unit):
            dropped["units_outside_alphabet"] += 1
            dropped["outside_alphabet_occurrences"] += n
        else:
            kept[unit] = n
            used.update(unit)
    return kept, used, dict(dropped)


def _train_hf_bpe(
    units: dict[str, int],
    trainer_chars: set[str],
    base_tokens: int,
    vocab_size: int,
    min_frequency: int,
) -> tuple[list[str], dict]:
    """BPE with Hugging Face tokenizers on unit counts; returns (learned pieces, stats).

    The trainer takes text, not counts, so each unit is fed as itself repeated
    (in slices of at most 4,096): no temporary file, and the trainer only ever
    holds the distinct units.
    """
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    merges_needed = max(0, vocab_size - len(SPECIAL_TOKENS) - base_tokens)
    trainer_size = len(trainer_chars) + merges_needed + merges_needed // 100 + 10
    tok = Tokenizer(models.BPE(unk_token=None))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    trainer = trainers.BpeTrainer(
        vocab_size=trainer_size,
        min_frequency=min_frequency,
        limit_alphabet=len(trainer_chars),
        special_tokens=[],
        show_progress=sys.stderr.isatty(),
    )

    def repeated() -> Iterator[str]:
        for unit, n in units.items():
            while n > 0:
                k = min(n, 4096)
                yield (unit + " ") * k
                n -= k

    tok.train_from_iterator(repeated(), trainer, length=len(units))
    model = json.loads(tok.to_str())["model"]
    by_id = sorted(model["vocab"].items(), key=lambda kv: kv[1])
    learned = []
    for unit, _ in by_id:
        if len(unit) < 2:
            continue
        piece = unit_to_wordpiece(unit)
        if piece is not None:
            learned.append(piece)
    stats = {"trainer_alphabet": len(trainer_chars), "trainer_vocab": len(by_id)}
    stats["merges"] = len(learned)
    return learned, stats


def _train_sentencepiece(
    word_file: str, vocab_size: int, workers: int, seed: int, coverage: float
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
            character_coverage=coverage,
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


def _config(method: str, vocab_size: int, seed: int, **options) -> dict:
    return {
        "method": method,
        "vocab_size": vocab_size,
        "seed": seed,
        **options,
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
    sample_bytes: int | None = DEFAULT_SAMPLE_BYTES,
    coverage: float = DEFAULT_COVERAGE,
    base_chars: str = "auto",
    min_char_count: int = DEFAULT_MIN_CHAR_COUNT,
    min_unit_count: int = DEFAULT_MIN_UNIT_COUNT,
    min_frequency: int = DEFAULT_MIN_FREQUENCY,
    max_distinct_units: int = DEFAULT_MAX_DISTINCT_UNITS,
    tmp_dir: str | os.PathLike | None = None,
    paths_only: bool = False,
    argv: list[str] | None = None,
    force: bool = False,
    encoding: str = "utf-8",
) -> Path:
    """Trains a vocabulary and writes the WordPiece folder; returns `output_dir`.

    `inputs` is a path, a list of paths (files, folders, globs; any format of
    `corpus.readers`), or a list of texts (a list of strings none of which
    names an existing path; held in memory, for small corpora). Training uses
    a uniform random sample of about `sample_bytes` of the text, drawn by
    `seed` (None: all of it; see `Inputs`). The alphabet covers `coverage` of
    the character occurrences plus the `base_chars` set (`tokenizer.alphabet`);
    units seen fewer than `min_unit_count` times are left out before BPE (never
    more than `min_frequency` allows: with 1, nothing is pruned).
    `tmp_dir` holds sentencepiece's word file (the BPE methods need none).
    Work is skipped when `output_dir/manifest.json` matches the inputs and
    config. Raises `EmptyCorpusError` for an empty corpus, FileNotFoundError
    for a missing input path, `ValueError` when the corpus cannot support
    `vocab_size` entries, and `FileExistsError` when the folder holds a
    different finished run (unless `force`).
    """
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose from {', '.join(METHODS)}")
    if vocab_size <= len(SPECIAL_TOKENS):
        raise ValueError(f"vocab size must exceed the {len(SPECIAL_TOKENS)} special tokens")
    forced_chars(base_chars, vocab_size)  # validates base_chars before any work
    out = Path(output_dir)
    source = Inputs(inputs, sample_bytes, seed, paths_only=paths_only, encoding=encoding)
    config = _config(
        method,
        vocab_size,
        seed,
        sample_bytes=sample_bytes,
        coverage=coverage,
        base_chars=base_chars,
        min_char_count=min_char_count,
        min_unit_count=min_unit_count,
        min_frequency=min_frequency,
        max_distinct_units=max_distinct_units,
    )
    if encoding != "utf-8":  # only then: UTF-8 runs keep the manifests they had
        config["encoding"] = encoding
    if source.files and (readers := reader_versions(source.files, "auto", encoding)):
        config["readers"] = readers  # the same: only formats whose reader changed
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
    _mark_unfinished(out)

    counts: collections.Counter = collections.Counter()
    timings = {}
    t0 = time.perf_counter()
    fraction = source.fraction()
    timings["count_s"] = time.perf_counter() - t0
    extra: dict = {}
    if method == "sentencepiece-bpe":
        with tempfile.TemporaryDirectory(prefix="tokenizer-train-", dir=tmp_dir) as tmp:
            t0 = time.perf_counter()
            text_file = os.path.join(tmp, "words.txt")
            n = _write_words(source.lines(), text_file, counts)
            extra["temp_file_bytes"] = os.path.getsize(text_file)
            timings["segment_s"] = time.perf_counter() - t0
            _check_not_empty(n, counts, source)
            t1 = time.perf_counter()
            alphabet, learned, trainer_stats = _train_sentencepiece(
                text_file, vocab_size, workers, seed, coverage
            )
            timings["train_s"] = time.perf_counter() - t1
        vocab, vocab_counts = assemble_vocab(alphabet, learned, vocab_size)
    else:
        t0 = time.perf_counter()
        char_counts: collections.Counter = collections.Counter()
        label = f"{STAGE}: {'morphemes' if method == 'morpheme-bpe' else 'words'} counted"
        report = AmountProgress(label, source.counts["input_bytes"], "lines", logger=log)
        units = count_units(
            source.lines(),
            morphemes=method == "morpheme-bpe",
            workers=workers,
            counts=counts,
            char_counts=char_counts,
            max_distinct=max_distinct_units,
            progress=lambda: report.update(source.position, source.counts["lines_used"]),
        )
        report.close()
        timings["segment_s"] = time.perf_counter() - t0
        log.info("%s: learning BPE merges on %d distinct units", STAGE, len(units))
        _check_not_empty(len(units), counts, source)
        t1 = time.perf_counter()
        chosen = select_alphabet(
            char_counts,
            coverage=coverage,
            min_char_count=min_char_count,
            base_chars=base_chars,
            vocab_size=vocab_size,
        )
        # --min-frequency 1 asks for merges seen once: pruning single units would contradict it
        min_count = min(min_unit_count, min_frequency)
        kept, trainer_chars, dropped = _prune_units(units, chosen, min_count)
        extra["units"] = {"distinct": len(units), "kept": len(kept), **dropped}
        # A small corpus may not fill the vocabulary once its single units are gone: then BPE
        # runs again on all of them. Large corpora never need it, so their counts are freed.
        retry = units if min_count > 1 and len(units) <= SMALL_CORPUS_UNITS else None
        del units
        base_tokens = len(set(chosen.word) | set(FORCED_CHARS)) + sum(
            1 for c in set(chosen.continuation) | set(FORCED_CHARS) if not is_isolated(c)
        )
        learned, trainer_stats = _train_hf_bpe(
            kept, trainer_chars, base_tokens, vocab_size, min_frequency
        )
        del kept
        extra["alphabet"] = chosen.report
        try:
            vocab, vocab_counts = assemble_vocab(
                chosen.word, learned, vocab_size, continuation=chosen.continuation
            )
        except TooFewPiecesError:
            if retry is None:
                raise
            log.warning("%s: too few pieces without single units; training on all units", out)
            kept, trainer_chars, dropped = _prune_units(retry, chosen, 1)
            extra["units"] = {"distinct": len(retry), "kept": len(kept), "pruning_undone": 1}
            learned, trainer_stats = _train_hf_bpe(
                kept, trainer_chars, base_tokens, vocab_size, min_frequency
            )
            vocab, vocab_counts = assemble_vocab(
                chosen.word, learned, vocab_size, continuation=chosen.continuation
            )
        timings["train_s"] = time.perf_counter() - t1
    stats = {
        "method": method,
        "vocab_size": len(vocab),
        "input": {**dict(sorted(source.counts.items())), "sample_fraction": round(fraction, 6)},
        "segmentation": dict(sorted(counts.items())),
        "trainer": trainer_stats,
        **extra,
        "vocab": {
            **vocab_counts,
            "continuation_tokens": sum(1 for t in vocab if t.startswith("##")),
            "single_char_entries": sum(1 for t in vocab if len(t.removeprefix("##")) == 1),
        },
    }
    write_folder(out, vocab, stats)
    manifest = {
        "stage": STAGE,
        "version": VERSION,
        "argv": argv,
        "config": config,
        "inputs": described,
        "counts": {"lines": source.counts["lines_used"], "bytes": source.counts["bytes"]},
        "outputs": {
            name: file_sha256(str(out / name))
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
    (out / UNFINISHED).unlink(missing_ok=True)
    log.info(
        "%s: %d tokens (%s; %d single-character entries) from %d of %d lines, %d bytes "
        "(sample fraction %.4f); count %.1fs, segment %.1fs, train %.1fs",
        out,
        len(vocab),
        method,
        stats["vocab"]["single_char_entries"],
        source.counts["lines_used"],
        source.counts["lines_read"],
        source.counts["bytes"],
        fraction,
        timings["count_s"],
        timings["segment_s"],
        timings["train_s"],
    )
    return out


def _mark_unfinished(out: Path) -> None:
    """Says so when an earlier run into `out` stopped before its manifest, and marks this one.

    Training is one pass held in memory (counting, then BPE): nothing of a stopped run can
    be reused, so the user is told the restart is from the beginning rather than left to
    guess why a rerun takes as long as the first try.
    """
    marker = out / UNFINISHED
    if marker.exists():
        log.info(
            "%s: an earlier run into %s stopped before it finished; training is one pass, "
            "so it starts again from the beginning",
            STAGE,
            out,
        )
    out.mkdir(parents=True, exist_ok=True)
    marker.write_text(json.dumps({"stage": STAGE, "pid": os.getpid()}) + "\n", "utf-8")


def _check_not_empty(n: int, counts: collections.Counter, source: Inputs) -> None:
    if n == 0 or counts["words"] == 0:
        raise EmptyCorpusError(
            f"the corpus has no text to learn from ({source.counts['lines_read']} lines read, "
            f"{source.counts['lines_used']} sampled)"
        )


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
    p.add_argument("--input", nargs="+", required=True, help="files, folders or globs (paths only)")
    p.add_argument("--output", required=True, help="output folder")
    p.add_argument("--vocab", type=int, default=32000, help="total vocabulary size (32000)")
    p.add_argument("--method", choices=METHODS, default="morpheme-bpe")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    p.add_argument(
        "--sample-bytes",
        "--max-bytes",
        dest="sample_bytes",
        type=_sample_size,
        default=DEFAULT_SAMPLE_BYTES,
        help="train on a uniform random sample of about this many UTF-8 bytes of text, drawn "
        f"by --seed from all inputs ({DEFAULT_SAMPLE_BYTES:_}; 'all' for no sampling)",
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--coverage",
        type=float,
        default=DEFAULT_COVERAGE,
        help="share of character occurrences the single-character entries cover (0.9995)",
    )
    p.add_argument(
        "--base-chars",
        choices=BASE_CHOICES,
        default="auto",
        help="characters always in the vocabulary: ascii, or full (+ KS X 1001 Hangul, "
        "compatibility jamo, common punctuation); auto = full from a 16000 vocabulary",
    )
    p.add_argument(
        "--min-char-count",
        type=int,
        default=DEFAULT_MIN_CHAR_COUNT,
        help="characters rarer than this never enter the alphabet by coverage",
    )
    p.add_argument(
        "--min-unit-count",
        type=int,
        default=DEFAULT_MIN_UNIT_COUNT,
        help="units (morphemes or words) rarer than this are left out before BPE (2)",
    )
    p.add_argument("--min-frequency", type=int, default=DEFAULT_MIN_FREQUENCY)
    p.add_argument(
        "--max-distinct-units",
        type=int,
        default=DEFAULT_MAX_DISTINCT_UNITS,
        help="memory bound while counting: drop the rarest units beyond this many",
    )
    p.add_argument(
        "--encoding",
        choices=ENCODINGS,
        default="utf-8",
        help="the input files' text encoding: cp949 for Korean text saved as CP949/EUC-KR "
        "(Windows 'ANSI', Korean Excel CSVs); the sample is drawn as from its UTF-8 copy",
    )
    p.add_argument("--tmp-dir", default=None, help="folder for temporary files (sentencepiece)")
    p.add_argument("--force", action="store_true", help="retrain even if the manifest matches")
    return p


def _sample_size(text: str) -> int | None:
    if text.lower() in ("all", "none"):
        return None
    try:
        value = int(float(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a byte count: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive: {text!r}")
    return value


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    try:
        train_tokenizer(
            args.input,
            args.output,
            vocab_size=args.vocab,
            method=args.method,
            seed=args.seed,
            workers=args.workers,
            sample_bytes=args.sample_bytes,
            coverage=args.coverage,
            base_chars=args.base_chars,
            min_char_count=args.min_char_count,
            min_unit_count=args.min_unit_count,
            min_frequency=args.min_frequency,
            max_distinct_units=args.max_distinct_units,
            tmp_dir=args.tmp_dir,
            paths_only=True,
            encoding=args.encoding,
            argv=["python", "-m", STAGE, *(argv if argv is not None else sys.argv[1:])],
            force=args.force,
        )
    except (ValueError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(
            f"{STAGE}: interrupted; nothing is kept (training is one pass): the same command "
            "starts again from the beginning",
            file=sys.stderr,
        )
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
