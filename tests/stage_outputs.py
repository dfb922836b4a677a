"""What a finished corpus stage wrote: its record shards' lines, for the reader tests that
run `corpus.prepare` end to end."""

from __future__ import annotations

import gzip
import json
from pathlib import Path


def shard_lines(folder: Path) -> list[str]:
    """Every line of the stage's ``shard-*.jsonl.gz`` files, in shard order."""
    return [
        line
        for f in sorted(Path(folder).glob("shard-*.jsonl.gz"))
        for line in gzip.decompress(f.read_bytes()).decode().splitlines()
    ]


def shard_records(folder: Path) -> list[dict]:
    """The stage's records, parsed, in shard order."""
    return [json.loads(line) for line in shard_lines(folder)]
