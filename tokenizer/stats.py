"""The KLUE paper's tokenizer statistics on held-out text, for one or more tokenizer folders.

    python -m tokenizer.stats --tokenizer /tmp/tok/morpheme-32k /tmp/tok/bpe-32k \\
        --input ../shared/data/corpus/kowiki/AA/wiki_9* [--sample-bytes N] [--json]

For each tokenizer (its ``tokenizer.json``, no Mecab at inference):

* fertility: subword tokens per eojeol (whitespace-separated word of the raw text);
* continued: share of eojeols split into 2 or more tokens;
* unk_ratio: share of tokens that are [UNK] (also reported per eojeol and per line);
* morpheme_boundary_share: share of subword boundaries inside an eojeol that
  fall on a Mecab-ko morpheme boundary (Mecab runs once, on the raw lines).

These four are the paper-comparable numbers: punctuation tokens count (``있다.``
is ``있 ##다 .``, 3 tokens, continued) as the paper's eojeol-level measure
implies. Two cleaner views are added:

* fertility_no_punct / continued_no_punct: the same without punctuation
  tokens (eojeols made only of punctuation are left out), so splitting off a
  final ``.`` does not count as continuing a word;
* boundary_precision / boundary_recall, within words (the pre-tokeniser's
  words, so no punctuation boundary counts): the share of subword boundaries
  that are Mecab morpheme boundaries, and the share of Mecab morpheme
  boundaries that are subword boundaries.

The paper (Table 3, Wikipedia, 32k vocabularies) reports fertility / continued
/ UNK: BPE 2.073 / 57.8% / 0.011; morpheme-based 2.468 / 76.5% / 0.009.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

from tokenizers import Tokenizer

from corpus.textio import ENCODINGS
from tokenizer.inputs import Inputs
from tokenizer.morphemes import MorphemeSplitter
from tokenizer.wordpiece import is_punctuation

PAPER = {
    "bpe": {"fertility": 2.073, "continued": 0.578, "unk_ratio": 0.011},
    "morpheme-bpe": {"fertility": 2.468, "continued": 0.765, "unk_ratio": 0.009},
}

_EOJEOL = re.compile(r"\S+")


@dataclass
class TokenizerStats:
    tokenizer: str
    lines: int = 0
    eojeols: int = 0
    tokens: int = 0
    continued_eojeols: int = 0
    unk_tokens: int = 0
    unk_eojeols: int = 0
    unk_lines: int = 0
    inner_boundaries: int = 0
    morpheme_boundaries: int = 0
    eojeols_no_punct: int = 0
    tokens_no_punct: int = 0
    continued_eojeols_no_punct: int = 0
    word_boundaries: int = 0
    word_boundaries_on_morphemes: int = 0
    morpheme_cuts_in_words: int = 0
    morpheme_cuts_split: int = 0

    def summary(self) -> dict:
        def div(a: int, b: int) -> float:
            return a / b if b else 0.0

        return {
            "fertility": div(self.tokens, self.eojeols),
            "continued": div(self.continued_eojeols, self.eojeols),
            "unk_ratio": div(self.unk_tokens, self.tokens),
            "unk_eojeol_ratio": div(self.unk_eojeols, self.eojeols),
            "unk_line_ratio": div(self.unk_lines, self.lines),
            "morpheme_boundary_share": div(self.morpheme_boundaries, self.inner_boundaries),
            "fertility_no_punct": div(self.tokens_no_punct, self.eojeols_no_punct),
            "continued_no_punct": div(self.continued_eojeols_no_punct, self.eojeols_no_punct),
            "boundary_precision": div(self.word_boundaries_on_morphemes, self.word_boundaries),
            "boundary_recall": div(self.morpheme_cuts_split, self.morpheme_cuts_in_words),
        }


def _is_punct_token(token: str) -> bool:
    body = token.removeprefix("##")
    return bool(body) and all(is_punctuation(c) for c in body)


def _add(stats: TokenizerStats, line: str, encoding, cuts: set[int], unk_id: int) -> None:
    spans = [m.span() for m in _EOJEOL.finditer(line)]
    per: list[list[tuple[int, int, str]]] = [[] for _ in spans]
    words: dict[int, list[tuple[int, int]]] = {}
    j = 0
    for tid, (start, end), token, word in zip(
        encoding.ids, encoding.offsets, encoding.tokens, encoding.word_ids, strict=True
    ):
        if word is not None:
            words.setdefault(word, []).append((start, end))
        while j < len(spans) and spans[j][1] <= start:
            j += 1
        if j == len(spans):
            continue
        per[j].append((tid, start, token))
    stats.lines += 1
    stats.unk_lines += unk_id in encoding.ids
    for toks in per:
        if not toks:
            continue
        stats.eojeols += 1
        stats.tokens += len(toks)
        unk = sum(1 for t, _, _ in toks if t == unk_id)
        stats.unk_tokens += unk
        stats.unk_eojeols += unk > 0
        if len(toks) > 1:
            stats.continued_eojeols += 1
            for _, start, _ in toks[1:]:
                stats.inner_boundaries += 1
                stats.morpheme_boundaries += start in cuts
        kept = sum(1 for _, _, token in toks if not _is_punct_token(token))
        if kept:
            stats.eojeols_no_punct += 1
            stats.tokens_no_punct += kept
            stats.continued_eojeols_no_punct += kept > 1
    for pieces in words.values():
        first, last = pieces[0][0], pieces[-1][1]
        starts = {start for start, _ in pieces[1:]}
        stats.word_boundaries += len(starts)
        stats.word_boundaries_on_morphemes += len(starts & cuts)
        inside = {c for c in cuts if first < c < last}
        stats.morpheme_cuts_in_words += len(inside)
        stats.morpheme_cuts_split += len(inside & starts)


def compute(tokenizer_dirs: Iterable[str | Path], lines: list[str]) -> list[TokenizerStats]:
    """Statistics of each tokenizer on `lines` (Mecab boundaries computed once)."""
    splitter = MorphemeSplitter()
    cuts = [splitter.boundaries(line) for line in lines]
    out = []
    for d in tokenizer_dirs:
        tok = Tokenizer.from_file(str(Path(d) / "tokenizer.json"))
        unk_id = tok.token_to_id("[UNK]")
        stats = TokenizerStats(tokenizer=str(d))
        for start in range(0, len(lines), 4096):
            batch = lines[start : start + 4096]
            encs = tok.encode_batch(batch, add_special_tokens=False)
            for line, enc, c in zip(batch, encs, cuts[start : start + 4096], strict=True):
                _add(stats, line, enc, c, unk_id)
        out.append(stats)
    return out


def _method(d: str | Path) -> str | None:
    try:
        return json.loads((Path(d) / "train_stats.json").read_text("utf-8"))["method"]
    except (OSError, ValueError, KeyError):
        return None


def format_table(results: list[TokenizerStats]) -> str:
    """Two markdown tables: the paper-comparable measures, then the cleaner views."""
    rows = [
        "| tokenizer | method | fertility | continued | UNK ratio | UNK eojeols "
        "| on morpheme boundary |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        s = r.summary()
        rows.append(
            f"| {Path(r.tokenizer).name} | {_method(r.tokenizer)} | {s['fertility']:.3f} | "
            f"{100 * s['continued']:.1f}% | {s['unk_ratio']:.4f} | "
            f"{100 * s['unk_eojeol_ratio']:.2f}% | {100 * s['morpheme_boundary_share']:.1f}% |"
        )
    for method, p in PAPER.items():
        rows.append(
            f"| paper (Wikipedia, 32k) | {method} | {p['fertility']:.3f} | "
            f"{100 * p['continued']:.1f}% | {p['unk_ratio']} | | |"
        )
    rows += [
        "",
        "| tokenizer | fertility, no punctuation | continued, no punctuation "
        "| boundary precision (in words) | boundary recall (in words) |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in results:
        s = r.summary()
        rows.append(
            f"| {Path(r.tokenizer).name} | {s['fertility_no_punct']:.3f} | "
            f"{100 * s['continued_no_punct']:.1f}% | {100 * s['boundary_precision']:.1f}% | "
            f"{100 * s['boundary_recall']:.1f}% |"
        )
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m tokenizer.stats",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--tokenizer", nargs="+", required=True, help="tokenizer folder(s)")
    p.add_argument("--input", nargs="+", required=True, help="held-out files, folders or globs")
    p.add_argument(
        "--sample-bytes",
        "--max-bytes",
        dest="sample_bytes",
        type=int,
        default=None,
        help="use a uniform random sample (seed 0) of about this many UTF-8 bytes",
    )
    p.add_argument(
        "--encoding", choices=ENCODINGS, default="utf-8", help="the inputs' text encoding"
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = p.parse_args(argv)
    for d in args.tokenizer:
        if not (Path(d) / "tokenizer.json").is_file():
            print(f"error: {d} has no tokenizer.json", file=sys.stderr)
            return 2
    try:
        inputs = Inputs(args.input, args.sample_bytes, paths_only=True, encoding=args.encoding)
        lines = list(inputs.lines())
    except (ValueError, FileNotFoundError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if not lines:
        print("error: the input has no text", file=sys.stderr)
        return 2
    results = compute(args.tokenizer, lines)
    if args.json:
        payload = [{**asdict(r), "method": _method(r.tokenizer), **r.summary()} for r in results]
        print(json.dumps({"results": payload, "paper": PAPER}, indent=2))
    else:
        print(format_table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
