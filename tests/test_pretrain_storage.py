"""gs:// through `pretrain.storage`: loader, run files, TensorBoard and export, with no network.

What is faked, and only that: the fsspec ``gcs`` implementation (gcsfs in production) is
replaced by an in-memory file system with GCS's path rules (``FakeGCS`` below), registered
in fsspec's registry for the test. Everything above it is the production code path: `etils.epath`
picks fsspec for ``gs://``, and `pretrain.storage`, `MetricLog`, the loader's local copy, the
trainer and the export run unchanged. Orbax's checkpoint arrays go through tensorstore, which
has its own GCS client that no fake reaches: in the training test, `checkpoint_dir` points to a
local folder standing in for ``gs://.../checkpoints`` (orbax's own GCS support is not
re-tested here).
"""

from __future__ import annotations

import importlib
import json
import os
import struct
from pathlib import Path

import numpy as np
import pytest
from fsspec.implementations.memory import MemoryFileSystem
from fsspec.utils import stringify_path

from pretrain import checkpointing, export, metric_log, storage, train
from pretrain.build_data import build_examples
from pretrain.configs import tiny
from pretrain.input_pipeline import make_loader

FIXTURE = Path(__file__).parent / "fixtures" / "pretrain" / "corpus.jsonl"


class FakeGCS(MemoryFileSystem):
    """An in-memory object store answering to ``gs://`` like gcsfs: keys are ``bucket/path``."""

    protocol = ("gs", "gcs")
    root_marker = ""
    store: dict = {}
    pseudo_dirs: list = [""]

    def __init__(self, *args, finalize_on_close=None, **kwargs):  # gcsfs's option, unused
        super().__init__(*args, **kwargs)

    @classmethod
    def _strip_protocol(cls, path):
        path = stringify_path(path)
        for prefix in ("gs://", "gcs://"):
            path = path.removeprefix(prefix)
        return path.strip("/")


@pytest.fixture
def bucket(monkeypatch, tmp_path):
    """A fresh fake ``gs://`` store; the test runs in an empty cwd that must stay empty of
    stray local folders named ``gs:`` (what ``pathlib.Path("gs://b/x")`` would create)."""
    from etils.epath import backend

    monkeypatch.setattr(FakeGCS, "store", {})
    monkeypatch.setattr(FakeGCS, "pseudo_dirs", [""])
    registry = importlib.import_module("fsspec.registry")  # `fsspec.registry` is a read-only view
    for name in FakeGCS.protocol:
        monkeypatch.setitem(registry._registry, name, FakeGCS)
    backend.fsspec_backend._get_filesystem.cache_clear()
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    monkeypatch.setenv("KLUE_PRETRAIN_CACHE", str(tmp_path / "cache"))
    yield FakeGCS
    backend.fsspec_backend._get_filesystem.cache_clear()
    assert not any(cwd.iterdir()), list(cwd.iterdir())


@pytest.fixture(scope="module")
def examples(tmp_path_factory) -> Path:
    """RoBERTa examples with their tokenizer copy, built from the fixture corpus."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    texts = [json.loads(line)["text"] for line in FIXTURE.read_text(encoding="utf-8").splitlines()]
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece()
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tok.train_from_iterator(
        texts, trainers.WordPieceTrainer(vocab_size=400, special_tokens=specials)
    )
    tok_dir = tmp_path_factory.mktemp("tok")
    tok.save(str(tok_dir / "tokenizer.json"))
    out = tmp_path_factory.mktemp("examples") / "roberta"
    build_examples(
        tok_dir, [FIXTURE], out, objective="roberta", max_seq_length=32, workers=1, log=print
    )
    return out


def _events(data: bytes) -> list:
    """The TensorBoard events in one event file's bytes (TFRecord framing)."""
    from tensorboardX.proto.event_pb2 import Event

    out, off = [], 0
    while off < len(data):
        (n,) = struct.unpack_from("<Q", data, off)
        out.append(Event.FromString(data[off + 12 : off + 12 + n]))
        off += 12 + n + 4
    return out


def _scalars(folder: str) -> dict[str, list[tuple[int, float]]]:
    found: dict[str, list[tuple[int, float]]] = {}
    for f in sorted(storage.path(folder).iterdir()):
        for e in _events(f.read_bytes()):
            for v in e.summary.value:
                found.setdefault(v.tag, []).append((e.step, round(v.simple_value, 4)))
    return found


def test_paths_keep_uris_and_local_paths_as_before(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert storage.is_remote("gs://b/x") and not storage.is_remote("runs/gs:/x")
    assert os.fspath(checkpointing.checkpoint_dir("gs://b/run")) == "gs://b/run/checkpoints"
    assert os.fspath(storage.path("runs/a")) == str(Path("runs/a").absolute())
    assert storage.local_copy("runs/a", tmp_path / "c") == "runs/a"  # local: untouched
    storage.write_json(tmp_path / "c.json", {"b": 1, "a": "한"})
    assert (tmp_path / "c.json").read_bytes() == b'{\n  "a": "\xed\x95\x9c",\n  "b": 1\n}\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.json"]  # no temporary left


def test_concurrent_atomic_writes_to_one_file_never_collide(tmp_path):
    """Writers racing on one path (two evaluations writing the same ``--output``, two hosts
    writing a shared run file) each use their own temporary: no writer fails, a reader only
    ever sees one writer's whole text, and no temporary is left behind."""
    import threading

    target = tmp_path / "scores.json"
    texts = [f"{i}" * 50_000 + "\n" for i in range(4)]
    errors: list[BaseException] = []
    seen: set[str] = set()
    done = threading.Event()

    def write(text: str) -> None:
        try:
            for _ in range(100):
                storage.write_text_atomic(target, text)
        except BaseException as e:  # reported below
            errors.append(e)

    def read() -> None:
        while not done.is_set():
            if target.exists():
                seen.add(target.read_text(encoding="utf-8"))

    reader = threading.Thread(target=read)
    reader.start()
    writers = [threading.Thread(target=write, args=(t,)) for t in texts]
    for w in writers:
        w.start()
    for w in writers:
        w.join()
    done.set()
    reader.join()
    assert errors == []
    assert seen <= set(texts) and target.read_text(encoding="utf-8") in texts
    assert [p.name for p in tmp_path.iterdir()] == ["scores.json"]
    umask = os.umask(0)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask  # as open() would create it


def test_metrics_and_tensorboard_in_a_bucket_and_resume(bucket):
    run = "gs://bkt/run"
    log = metric_log.MetricLog(run, 0, enabled=True)
    for step in (1, 2, 3):
        log.write(step, {"loss": 4.0 - step})
    # the first write uploads; the next ones wait for REMOTE_SYNC_SECONDS or close
    assert [r["step"] for r in metric_log.read_metrics(run)] == [1]
    log.close()
    assert [r["loss"] for r in metric_log.read_metrics(run)] == [3.0, 2.0, 1.0]
    assert _scalars(f"{run}/tensorboard")["loss"] == [(1, 3.0), (2, 2.0), (3, 1.0)]

    # resume from a checkpoint at step 2: lines after it are dropped, new ones appended
    log = metric_log.MetricLog(run, 2, enabled=True)
    log.write(3, {"loss": 0.5})
    log.close()
    assert [(r["step"], r["loss"]) for r in metric_log.read_metrics(run)] == [
        (1, 3.0),
        (2, 2.0),
        (3, 0.5),
    ]
    assert (3, 0.5) in _scalars(f"{run}/tensorboard")["loss"]  # the new start's event file
    metric_log.MetricLog(run, 0, enabled=False).close()  # other hosts write nothing


def test_loader_reads_a_checked_copy_made_once(bucket, examples, tmp_path, monkeypatch):
    storage.upload_folder(examples, "gs://bkt/ex")
    local = make_loader(examples, global_batch_size=4, seed=1, prefetch=0)
    remote = make_loader("gs://bkt/ex", global_batch_size=4, seed=1, prefetch=0)
    assert Path(remote.examples_dir).is_relative_to(tmp_path / "cache" / "remote")
    for step in (0, 5):
        a, b = local.batch(step), remote.batch(step)
        assert all(np.array_equal(a[k], b[k]) for k in a)

    copies = []
    real_download = storage._download
    monkeypatch.setattr(storage, "_download", lambda *a: copies.append(a[0]) or real_download(*a))
    make_loader("gs://bkt/ex", global_batch_size=4, seed=1, prefetch=0)
    assert copies == []  # a complete copy with matching sizes is reused

    # a truncated local file, then a changed object in the bucket: copied again; a temporary
    # copy left by a process that died midway (pid above Linux's maximum) is removed
    shard = Path(remote.examples_dir) / remote.manifest["shards"][0]["file"]
    abandoned = shard.parent.with_name(f".{shard.parent.name}.{2**22 + 7}.dead")
    (abandoned / "part").mkdir(parents=True)
    shard.write_bytes(shard.read_bytes()[:-10])
    again = make_loader("gs://bkt/ex", global_batch_size=4, seed=1, prefetch=0)
    assert len(copies) == len(list(storage._listing(storage.path("gs://bkt/ex"))))
    assert all(np.array_equal(again.batch(5)[k], local.batch(5)[k]) for k in local.batch(5))
    storage.path("gs://bkt/ex/vocab.txt").write_text("changed\n")
    copies.clear()
    with pytest.raises(ValueError):  # the changed vocab no longer fits the roberta manifest
        make_loader("gs://bkt/ex", global_batch_size=4, seed=1, prefetch=0)
    assert copies, "a changed object must be fetched again"
    assert not [p for p in (tmp_path / "cache" / "remote").iterdir() if p.name.startswith(".")]


def test_training_and_export_with_bucket_paths(bucket, examples, tmp_path, monkeypatch):
    """Workdir and examples on gs://: run files and events land in the bucket; checkpoints in
    a local folder standing in for gs://bkt/run/checkpoints (see the module docstring)."""
    storage.upload_folder(examples, "gs://bkt/ex")
    stand_in = tmp_path / "orbax-stand-in"
    real_dir = checkpointing.checkpoint_dir
    monkeypatch.setattr(
        checkpointing,
        "checkpoint_dir",
        lambda w: real_dir(stand_in) if storage.is_remote(w) else real_dir(w),
    )
    cfg = tiny.get_config()
    cfg.model = "tiny-roberta"
    cfg.objective = "roberta"
    cfg.data.examples_dir = "gs://bkt/ex"
    cfg.global_batch_size = 4
    cfg.stop_at_step = 2
    cfg.log_every_steps = 1
    cfg.progress_bar = False
    out = train.train_and_evaluate(cfg, "gs://bkt/run")
    assert out["step"] == 2
    run = storage.path("gs://bkt/run")
    snapshot = json.loads((run / "config.json").read_text())
    assert snapshot["examples_dir"] == "gs://bkt/ex"
    assert snapshot["tokenizer_dir"] == "gs://bkt/ex/tokenizer"
    assert [r["step"] for r in metric_log.read_metrics(run) if "loss" in r] == [1, 2]
    assert [s for s, _ in _scalars("gs://bkt/run/tensorboard")["loss"]] == [1, 2]
    assert checkpointing.Checkpointer(stand_in / "checkpoints", read_only=True).all_steps() == [2]

    export.export("gs://bkt/run", "gs://bkt/hf")
    hf = storage.path("gs://bkt/hf")
    names = sorted(p.name for p in hf.iterdir())
    assert {"config.json", "model.safetensors", "README.md", "tokenizer.json"} <= set(names)
    card = (hf / "README.md").read_text()
    assert "| steps | 2 |" in card and "| loss | " in card  # metrics.jsonl read from the bucket
    with pytest.raises(FileExistsError):
        export.export("gs://bkt/run", "gs://bkt/hf")
