"""A hand-labelled evaluation set of real sentences (petitions, Wikipedia, movie reviews).

The generated set (`corpus.pii.testset`) only shows that the formats its templates
contain are covered. This set measures the detectors on text nobody wrote a
template for. It is built in three steps:

1. **Sample** (`python -m corpus.pii.realtext sample`). Every text unit of the
   three sources (a petition body, a kowiki paragraph line, a review) is cut into
   sentence windows (`windows`). Per source, a fixed number of windows is drawn
   from those passing a broad, recall-oriented pre-filter (`PREFILTER`: digit
   groups with separators, house numbers after 로/길/동, dates, ``@``, URLs) and a
   fixed number from all windows, with a fixed seed. The pre-filter makes sure
   PII-bearing sentences are present; the random stratum measures what it misses.
2. **Label**, by a person reading each sentence, span by span, before any tuning
   against it. Only ``file``, ``line``, window offsets, a SHA-256 prefix of the
   window text and the labelled spans (offsets and types) are committed
   (`tests/fixtures/pii/real_labels.jsonl`): never a value.
3. **Evaluate** (`python -m corpus.pii.realtext evaluate`). Each labelled unit is
   scanned whole, as the pseudonymiser scans it, and the spans overlapping the
   window are compared with the labels. Windows are split into a ``dev`` and a
   ``held`` half by a hash of their id; the held half was not looked at while the
   detectors were changed.

Definitions are those of `corpus.pii.evaluate`: recall is the share of gold spans
entirely inside a predicted span of the same type; precision the share of
predicted spans (overlapping the window) that overlap a gold span of their type.
"""

from __future__ import annotations

import argparse
import collections
import glob
import hashlib
import json
import os
import random
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from corpus.pii.detectors import TYPES
from corpus.pii.scan import Scanner

SAMPLE_SEED = 20261130
LABELS = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "pii" / "real_labels.jsonl"
#: A second draw (seed 20261201), labelled after the detectors were changed and evaluated
#: once: text none of the changes was made on (half ``fresh``).
FRESH_SEED = 20261201
FRESH_LABELS = LABELS.with_name("real_labels_fresh.jsonl")

#: (source, file glob under the corpus folder, JSON field or None for raw lines,
#:  windows per stratum: cue, pre-filter, random, strong cue, strong cue again).
#: The strata are drawn in this order from one generator per source; the second strong
#: draw was added after the first 450 windows were labelled, so they did not change.
SOURCES: tuple[tuple[str, str, str | None, tuple[int, int, int, int, int]], ...] = (
    ("petitions", "petitions/petitions_*", "content", (60, 60, 30, 40, 60)),
    ("kowiki", "kowiki/AA/wiki_*", None, (60, 60, 30, 40, 40)),
    ("nsmc", "nsmc/raw_sample.jsonl", "review", (20, 20, 30, 0, 0)),
)

#: Broad pre-filter: anything a personal value could hide in (recall, not precision).
PREFILTER = re.compile(
    r"@|://|www\.|\d[\d\s\-–—.)(~/]{4,}\d|[가-힣]\s?\d{1,4}(?:-\d{1,4})?(?:번지|호|층|동)"
    r"|[로길동리가]\s?\d|\d{2,3}\s?[가-힣]\s?\d{4}|년\s?\d{1,2}\s?월\s?\d{1,2}\s?일"
    r"|\d{2,4}\s?[./-]\s?\d{1,2}\s?[./-]\s?\d{1,2}|\d{6,}"
)
#: Narrow pre-filter: a digit and a word that usually comes with a personal value.
CUE = re.compile(
    r"(?=.*\d)(?:.*(?:주소|전화|연락|휴대|핸드폰|폰번호|번호판|차량|생년월일|출생|태어|생일|번지|계좌"
    r"|은행|메일|여권|면허|등록번호|[로길]\s?\d|\d호|\d\s?[~∼]\s?\)|@|[가-힣]생\b))"
)
#: Strong cue: shapes that are personal values more often than not (phone-like digit
#: groups, house numbers after a road name, apartment units, plate-like tokens, a date
#: opening a lifespan, birth words next to a date).
STRONG = re.compile(
    r"\d{2,4}\s?[-–.)]\s?\d{3,4}\s?[-–.]\s?\d{4}|(?<!\d)\d{3,4}\s?[-–]\s?\d{4}(?!\d)"
    r"|[가-힣][로길]\s?\d{1,4}|\d{1,4}동\s?\d{1,4}호|(?<!\d)\d{2,3}\s?[가-힣]\s?\d{4}(?!\d)"
    r"|\d일\s?[~∼–-]\s?(?:\)|\d)|(?:생년월일|태어|출생).{0,20}\d|\d.{0,20}(?:태어|출생|생\b)"
    r"|@[A-Za-z0-9-]+\."
)
_SENTENCE = re.compile(r"[^\n]*?(?:[.!?]+(?=\s)|\n|$)")
MAX_WINDOW = 300


@dataclass(frozen=True)
class Window:
    """A sentence window: ``text[start:end]`` of line `line` (1-based) of `file`."""

    source: str
    file: str  # relative to the corpus folder
    line: int
    start: int
    end: int

    @property
    def id(self) -> str:
        return f"{self.file}:{self.line}:{self.start}"


def iter_units(corpus_dir: Path, pattern: str, field: str | None) -> Iterator[tuple[str, int, str]]:
    """(relative file, 1-based line, text) of every text unit of a source, in file order."""
    for path in sorted(glob.glob(str(corpus_dir / pattern))):
        rel = os.path.relpath(path, corpus_dir)
        with open(path, encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                text = unit_text(line, field)
                if text:
                    yield rel, lineno, text


def unit_text(line: str, field: str | None) -> str:
    """The text of one raw line: a JSON field, or the line itself (WikiExtractor markup skipped)."""
    if field is None:
        line = line.rstrip("\n")
        return "" if line.startswith(("<doc ", "</doc>")) else line
    value = json.loads(line).get(field)
    return value if isinstance(value, str) else ""


def windows(text: str) -> Iterator[tuple[int, int]]:
    """Sentence windows of a text: ends at ``.?!`` before a space or a newline; long ones cut.

    A deliberately simple, frozen rule (the labels' offsets depend on it): a
    sentence longer than `MAX_WINDOW` characters is cut at the last space before
    the limit.
    """
    for m in _SENTENCE.finditer(text):
        s, e = m.start(), m.end()
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        while e - s > MAX_WINDOW:
            cut = text.rfind(" ", s + 1, s + MAX_WINDOW)
            cut = cut if cut > s else s + MAX_WINDOW
            yield s, cut
            s = cut
            while s < e and text[s].isspace():
                s += 1
        if e > s:
            yield s, e


def sha(text: str) -> str:
    """The committed fingerprint of a window's text (a prefix of its SHA-256)."""
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def half_of(window_id: str) -> str:
    """``dev`` or ``held``, by a hash of the window id (about half each)."""
    return "dev" if hashlib.sha256(window_id.encode()).digest()[0] % 2 == 0 else "held"


def sample(corpus_dir: Path, seed: int = SAMPLE_SEED) -> list[tuple[Window, str, str]]:
    """The sample: (window, stratum, window text) per drawn window, reproducibly."""
    out = []
    for source, pattern, field, sizes in SOURCES:
        strata: dict[str, list[Window]] = {"cue": [], "prefilter": [], "random": [], "strong": []}
        texts: dict[Window, str] = {}
        for rel, lineno, text in iter_units(corpus_dir, pattern, field):
            for s, e in windows(text):
                w = Window(source, rel, lineno, s, e)
                strata["random"].append(w)
                if PREFILTER.search(text, s, e):
                    strata["prefilter"].append(w)
                    if CUE.match(text[s:e]):
                        strata["cue"].append(w)
                    if STRONG.search(text, s, e):
                        strata["strong"].append(w)
        rng = random.Random(f"{seed}:{source}")
        picked: list[tuple[Window, str]] = []
        chosen: set[Window] = set()
        draws = [*strata.items(), ("strong-2", strata["strong"])]
        for (stratum, pool), n in zip(draws, sizes, strict=True):
            pool = [w for w in pool if w not in chosen]
            picked += [(w, stratum) for w in rng.sample(pool, min(n, len(pool)))]
            chosen = {w for w, _ in picked}
        wanted: dict[str, set[int]] = collections.defaultdict(set)
        for w, _ in picked:
            wanted[w.file].add(w.line)
        lines = _line_texts(corpus_dir, wanted, dict.fromkeys(wanted, field))
        for w, _ in picked:
            texts[w] = lines[w.file, w.line][w.start : w.end]
        out += [(w, stratum, texts[w]) for w, stratum in picked]
    return out


# --- evaluation -----------------------------------------------------------------------------


def load_labels(path: Path = LABELS) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _line_texts(corpus_dir: Path, wanted: dict[str, set[int]], fields: dict[str, str | None]):
    """The unit text of the wanted lines only (other lines are not decoded)."""
    out: dict[tuple[str, int], str] = {}
    for rel, lines in wanted.items():
        last = max(lines)
        with open(corpus_dir / rel, encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                if lineno in lines:
                    out[rel, lineno] = unit_text(line, fields[rel])
                if lineno >= last:
                    break
    return out


def evaluate(corpus_dir: Path, labels: list[dict], scanner: Scanner | None = None) -> dict:
    """Per half and type: gold, found, predicted, correct. Fails on a changed window."""
    scanner = scanner or Scanner()
    fields = {}
    wanted: dict[str, set[int]] = collections.defaultdict(set)
    for rec in labels:
        field = next(f for s, _, f, _ in SOURCES if s == rec["source"])
        fields[rec["file"]] = field
        wanted[rec["file"]].add(rec["line"])
    texts = _line_texts(corpus_dir, wanted, fields)
    result: dict = {}
    for rec in labels:
        text = texts[rec["file"], rec["line"]]
        s0, e0 = rec["start"], rec["end"]
        if sha(text[s0:e0]) != rec["sha"]:
            raise ValueError(f"{rec['id']}: the window's text differs from the labelled one")
        pred = [p for p in scanner.find(text) if p.start < e0 and s0 < p.end]
        gold = [(s0 + s, s0 + e, t) for s, e, t in rec["spans"]]
        for half in (rec["half"], "all"):
            per = result.setdefault(half, {t: collections.Counter() for t in TYPES})
            per["_windows"] = per.get("_windows", 0) + 1
            for s, e, t in gold:
                per[t]["gold"] += 1
                per[t]["found"] += any(p.type == t and p.start <= s and e <= p.end for p in pred)
            for p in pred:
                per[p.type]["predicted"] += 1
                per[p.type]["correct"] += any(
                    t == p.type and p.start < e and s < p.end for s, e, t in gold
                )
    return result


def errors(corpus_dir: Path, labels: list[dict], half: str, scanner: Scanner | None = None):
    """(id, kind, type, shape of the value) of every miss and false positive in `half`.

    Values are shown as a shape (digits -> 9, Latin letters -> x); Hangul is kept.
    """
    scanner = scanner or Scanner()
    out = []
    sub = [r for r in labels if r["half"] == half or half == "all"]
    fields = {r["file"]: next(f for s, _, f, _ in SOURCES if s == r["source"]) for r in sub}
    wanted: dict[str, set[int]] = collections.defaultdict(set)
    for r in sub:
        wanted[r["file"]].add(r["line"])
    texts = _line_texts(corpus_dir, wanted, fields)
    for rec in sub:
        text = texts[rec["file"], rec["line"]]
        s0, e0 = rec["start"], rec["end"]
        pred = [p for p in scanner.find(text) if p.start < e0 and s0 < p.end]
        gold = [(s0 + s, s0 + e, t) for s, e, t in rec["spans"]]
        for s, e, t in gold:
            if not any(p.type == t and p.start <= s and e <= p.end for p in pred):
                out.append((rec["id"], "miss", t, shape(text, s, e)))
        for p in pred:
            if not any(t == p.type and p.start < e and s < p.end for s, e, t in gold):
                out.append((rec["id"], "false", p.type, shape(text, p.start, p.end)))
    return out


def shape(text: str, s: int, e: int, context: int = 12) -> str:
    def mask(t: str) -> str:
        return "".join("9" if c.isdigit() else "x" if c.isascii() and c.isalpha() else c for c in t)

    return f"{mask(text[max(0, s - context) : s])}[[{mask(text[s:e])}]]{mask(text[e : e + 8])}"


def markdown(result: dict, halves: tuple[str, ...] | None = None) -> str:
    if halves is None:
        halves = tuple(h for h in ("dev", "held", "fresh", "all") if h in result)
    head = "| type | " + " | ".join(f"{h}: gold | recall | predicted | precision" for h in halves)
    lines = [head + " |", "|---|" + "---:|---:|---:|---:|" * len(halves)]
    for t in TYPES:
        cells = []
        for h in halves:
            c = result.get(h, {}).get(t, collections.Counter())
            g, f, p, k = c["gold"], c["found"], c["predicted"], c["correct"]
            cells.append(f"{g} | {f / g:.3f}" if g else f"{g} | n/a")
            cells.append(f"{p} | {k / p:.3f}" if p else f"{p} | n/a")
        if any(result.get(h, {}).get(t) for h in halves):
            lines.append(f"| {t} | " + " | ".join(cells) + " |")
    for h in halves:
        per = result.get(h, {})
        tot = collections.Counter()
        for t in TYPES:
            tot.update(per.get(t, {}))
        lines.append(
            f"\n{h}: {per.get('_windows', 0)} windows; all types: recall "
            f"{tot['found']}/{tot['gold']}, precision {tot['correct']}/{tot['predicted']}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    from corpus.datadir import add_data_dir_argument, resolve_data_dir

    p = argparse.ArgumentParser(
        prog="python -m corpus.pii.realtext", description=__doc__.split("\n")[0]
    )
    p.add_argument("command", choices=("sample", "evaluate", "errors"))
    p.add_argument("--labels", type=Path, default=LABELS)
    p.add_argument("--seed", type=int, default=SAMPLE_SEED, help="sample: the draw's seed")
    p.add_argument(
        "--half", choices=("dev", "held", "fresh", "all"), default="dev", help="for errors"
    )
    p.add_argument(
        "--show-text",
        action="store_true",
        help="sample: print the windows' text too (for the annotator; never commit it)",
    )
    add_data_dir_argument(p)
    args = p.parse_args(argv)
    corpus_dir = resolve_data_dir(args.data_dir) / "corpus"
    if args.command == "sample":
        for w, stratum, text in sample(corpus_dir, args.seed):
            rec = {"id": w.id, "source": w.source, "file": w.file, "line": w.line}
            rec |= {"start": w.start, "end": w.end, "sha": sha(text), "half": half_of(w.id)}
            rec["stratum"] = stratum
            if args.show_text:
                rec["text"] = text
            print(json.dumps(rec, ensure_ascii=False))
        return 0
    labels = load_labels(args.labels)
    if args.command == "errors":
        for row in errors(corpus_dir, labels, args.half):
            print("\t".join(row))
        return 0
    print(markdown(evaluate(corpus_dir, labels)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
