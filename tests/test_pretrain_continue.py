"""Continued pretraining from Hugging Face folders (`--config.init_from=FOLDER`, pretrain.hf_init).

The folders are random tiny stock ``transformers`` models saved with ``save_pretrained`` in the
two released KLUE layouts: klue/bert-base (``BertForPreTraining``, [PAD] = 0, 512 positions)
and klue/roberta-base (``RobertaForMaskedLM``, [CLS] = 0, [PAD] = 1, 514 positions), each with
a character WordPiece tokenizer over `pretrain/tiny_corpus.txt` saved the same way. Examples
are built from that corpus with the folder as ``--tokenizer``.

* step 0 (a 0-step run): the saved checkpoint's MLM logits equal stock ``*ForMaskedLM``'s to
  1e-4, and its export holds the source's tensors bit for bit;
* klue/roberta: 20 steps in a subprocess SIGKILLed after step 13, resumed here: bitwise the
  uninterrupted run; export; stock AutoTokenizer + fill-mask;
* klue/bert (MLM + NSP): stopped at step 3 and resumed: bitwise the 6-step run; export (with
  the NSP head); fill-mask;
* refused: vocabulary, positions, NSP from a RoBERTa folder, contradicting overrides/presets.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import jax
import numpy as np
import pytest
from compiler_flags import subprocess_xla_flags
from flax import nnx
from hf_reference import ROBERTA_LAYOUT, perturb
from safetensors.numpy import load_file

from pretrain import build_data, checkpointing, hf_init, metric_log, train
from pretrain import export as export_cli
from pretrain.bootstrap import DataSpec
from pretrain.configs import tiny

torch = pytest.importorskip("torch", reason="torch not installed (optional extra)")
transformers = pytest.importorskip("transformers", reason="transformers not installed")

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "pretrain" / "tiny_corpus.txt"
L = 32
STEPS = 20
SPECIALS = {
    "klue-bert": ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"],
    "klue-roberta": ["[CLS]", "[PAD]", "[SEP]", "[UNK]", "[MASK]"],
}
SHAPE = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64)


def make_hf_folder(folder: Path, layout: str) -> Path:
    """A random (perturbed) stock transformers model + tokenizer in a KLUE layout."""
    chars = sorted(set(CORPUS.read_text(encoding="utf-8")) - set(" \n"))
    vocab = SPECIALS[layout] + chars + [f"##{c}" for c in chars]
    folder.mkdir(parents=True)
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    tokenizer = transformers.BertTokenizer(vocab=str(folder / "vocab.txt"), do_lower_case=False)
    torch.manual_seed(len(layout))  # the stock initialisation
    if layout == "klue-bert":
        config = transformers.BertConfig(vocab_size=len(vocab), **SHAPE)
        model = transformers.BertForPreTraining(config)
    else:
        config = transformers.RobertaConfig(
            vocab_size=len(vocab), max_position_embeddings=514, **ROBERTA_LAYOUT, **SHAPE
        )
        model = transformers.RobertaForMaskedLM(config)
    perturb(torch, model, seed=len(layout))
    model.save_pretrained(str(folder))
    tokenizer.save_pretrained(str(folder))
    return folder


@pytest.fixture(scope="module")
def folders(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("hf")
    return {layout: make_hf_folder(root / layout, layout) for layout in SPECIALS}


@pytest.fixture(scope="module")
def examples(folders, tmp_path_factory) -> dict[str, Path]:
    """Examples built with each folder as the tokenizer: klue-bert (bert and roberta
    objectives), klue-roberta (roberta)."""
    root = tmp_path_factory.mktemp("examples")
    out = {}
    for layout, objective in (
        ("klue-bert", "bert"),
        ("klue-bert", "roberta"),
        ("klue-roberta", "roberta"),
    ):
        out[f"{layout}/{objective}"] = build_data.build_examples(
            folders[layout],
            [str(CORPUS)],
            root / f"{layout}-{objective}",
            objective=objective,
            max_seq_length=L,
            workers=1,
            dupe_factor=2,
            log=lambda *_: None,
        )
    return out


def run_config(folder: Path, examples_dir: Path, objective: str, **changes):
    c = tiny.get_config()
    c.model = "from_init"
    c.init_from = str(folder)
    c.objective = objective
    c.data.examples_dir = str(examples_dir)
    c.data.bootstrap.enabled = False
    c.global_batch_size = 8
    c.num_train_steps = STEPS
    c.warmup_steps = 4
    c.learning_rate = 1e-3
    c.log_every_steps = 1
    c.checkpoint_every_steps = 5
    c.progress_bar = False
    c.model_overrides.dtype = "float32"
    for k, v in changes.items():
        c[k] = v
    return c


def _params(workdir: Path) -> list[np.ndarray]:
    _, model, _ = checkpointing.load_for_export(workdir)
    return [np.asarray(x) for x in jax.tree.leaves(nnx.state(model, nnx.Param))]


def _losses(workdir: Path) -> dict[int, tuple[float, ...]]:
    rows = [r for r in metric_log.read_metrics(workdir) if "loss" in r]
    return {r["step"]: (r["loss"], r["mlm_loss"], r.get("nsp_loss", 0.0)) for r in rows}


@nnx.jit
def _jit_forward(model, ids, types, mask, positions):
    return model(ids, types, mask, positions)


def _forward(model, batch: dict[str, np.ndarray]) -> dict:
    """Our float32 logits at every position (one jitted call: eager NNX compiles op by op)."""
    ids = batch["input_ids"].astype(np.int32)
    types = batch.get("token_type_ids", np.zeros_like(ids)).astype(np.int32)
    positions = np.broadcast_to(np.arange(ids.shape[1], dtype=np.int32), ids.shape)
    return _jit_forward(model, ids, types, batch["attention_mask"].astype(np.int32), positions)


def _padded_batch(tokenizer_folder: Path) -> dict[str, np.ndarray]:
    tok = transformers.AutoTokenizer.from_pretrained(str(tokenizer_folder))
    lines = CORPUS.read_text(encoding="utf-8").splitlines()[:3]
    enc = tok([t[:20] for t in lines[:2]] + [lines[2][:6]], padding=True, return_tensors="np")
    assert (enc["attention_mask"] == 0).any()
    return {k: np.asarray(v) for k, v in enc.items()}


@pytest.mark.parametrize("layout", ["klue-bert", "klue-roberta"])
def test_step0_checkpoint_is_the_source_model(
    layout, folders, examples, tmp_path, unoptimised_compilation
):
    folder = folders[layout]
    objective = "bert" if layout == "klue-bert" else "roberta"
    cfg = run_config(folder, examples[f"{layout}/{objective}"], objective, num_train_steps=0)
    summary = train.train_and_evaluate(cfg, tmp_path / "run")
    assert summary["step"] == 0
    config, model, _ = checkpointing.load_for_export(tmp_path / "run")
    want_pad = 0 if layout == "klue-bert" else 1
    assert config.pad_token_id == want_pad
    assert config.max_position_embeddings == (512 if layout == "klue-bert" else 514)

    # MLM logits at every position equal stock *ForMaskedLM's on a padded batch.
    batch = _padded_batch(folder)
    hf = transformers.AutoModelForMaskedLM.from_pretrained(str(folder)).eval()
    with torch.no_grad():
        theirs = hf(**{k: torch.as_tensor(v) for k, v in batch.items()}).logits.numpy()
    ours = _forward(model, batch)
    diff = np.abs(np.asarray(ours["mlm_logits"]) - theirs).max()
    assert diff <= 1e-4, diff
    if layout == "klue-bert":  # the NSP head came along too
        pre = transformers.BertForPreTraining.from_pretrained(str(folder)).eval()
        with torch.no_grad():
            nsp = pre(**{k: torch.as_tensor(v) for k, v in batch.items()}).seq_relationship_logits
        assert np.abs(np.asarray(ours["nsp_logits"]) - nsp.numpy()).max() <= 1e-4

    # Export with no training: the source's tensors bit for bit, its tokenizer, a card naming it.
    out = export_cli.export(str(tmp_path / "run"), str(tmp_path / "hf"))
    source = load_file(str(folder / "model.safetensors"))
    written = load_file(str(out / "model.safetensors"))
    for name, value in source.items():
        np.testing.assert_array_equal(written[name], value, err_msg=name)
    assert set(source) <= set(written)
    src_cfg = json.loads((folder / "config.json").read_text())
    out_cfg = json.loads((out / "config.json").read_text())
    for key in ("vocab_size", "max_position_embeddings", "pad_token_id", "type_vocab_size"):
        assert out_cfg[key] == src_cfg[key], key
    src_tok, out_tok = (json.loads((f / "tokenizer.json").read_text()) for f in (folder, out))
    assert out_tok["model"] == src_tok["model"]  # the source vocabulary, ids unchanged
    assert out_tok["added_tokens"] == src_tok["added_tokens"]
    card = (out / "README.md").read_text(encoding="utf-8")
    assert f"continued from | {folder.name} (weights sha256 " in card
    assert "continued (domain-adaptive)" in card and "tiny_corpus.txt" in card


def test_added_tokens_start_as_piece_means_and_export(folders, tmp_path, unoptimised_compilation):
    """build_data --add-tokens on the klue/roberta folder, a 0-step run, export: new rows are
    the means of the pieces' rows (embedding and MLM bias), stock transformers loads the model
    with the extended tokenizer, which uses the new tokens, and computes our logits."""
    folder = folders["klue-roberta"]
    words = tmp_path / "words.txt"
    words.write_text("도서관\n아침\n\n도서관\n아\n", encoding="utf-8")  # 아: already a token
    ex = build_data.build_examples(
        folder, [str(CORPUS)], tmp_path / "ex", objective="roberta", max_seq_length=L,
        workers=1, add_tokens=words, log=lambda *_: None,
    )  # fmt: skip
    added = json.loads((ex / "manifest.json").read_text())["added_tokens"]
    assert [a["token"] for a in added] == ["도서관", "아침"]
    src_vocab = json.loads((folder / "config.json").read_text())["vocab_size"]
    assert [a["id"] for a in added] == [src_vocab, src_vocab + 1]
    cfg = run_config(folder, ex, "roberta", num_train_steps=0)
    train.train_and_evaluate(cfg, tmp_path / "run")
    out = export_cli.export(str(tmp_path / "run"), str(tmp_path / "hf"))

    source = load_file(str(folder / "model.safetensors"))
    written = load_file(str(out / "model.safetensors"))
    emb, bias = "roberta.embeddings.word_embeddings.weight", "lm_head.bias"
    assert written[emb].shape[0] == src_vocab + 2
    np.testing.assert_array_equal(written[emb][:src_vocab], source[emb])
    for a in added:
        np.testing.assert_allclose(written[emb][a["id"]], source[emb][a["pieces"]].mean(0))
        np.testing.assert_allclose(written[bias][a["id"]], source[bias][a["pieces"]].mean(0))
    assert "added tokens | 2 (rows initialised as piece means)" in (out / "README.md").read_text()

    tok = transformers.AutoTokenizer.from_pretrained(str(out))
    assert tok.tokenize("도서관에 갔다")[:2] == ["도서관", "##에"]
    assert tok.convert_tokens_to_ids("아침") == src_vocab + 1
    batch = _padded_batch(out)
    assert (batch["input_ids"] >= src_vocab).any()  # the batch uses the added tokens
    hf = transformers.AutoModelForMaskedLM.from_pretrained(str(out)).eval()
    with torch.no_grad():
        theirs = hf(**{k: torch.as_tensor(v) for k, v in batch.items()}).logits.numpy()
    _, model, _ = checkpointing.load_for_export(tmp_path / "run")
    assert np.abs(np.asarray(_forward(model, batch)["mlm_logits"]) - theirs).max() <= 1e-4


def _fill_mask(folder: Path) -> None:
    fill = transformers.pipeline("fill-mask", model=str(folder))
    mask = fill.tokenizer.mask_token
    out = fill(f"아침 일찍 {mask}어나", top_k=3)
    assert len(out) == 3 and all(np.isfinite(o["score"]) for o in out)


def test_klue_bert_resume_export_fill_mask(folders, examples, tmp_path, unoptimised_compilation):
    """klue/bert layout, MLM + NSP: stopped at step 3 and resumed, bitwise the 6-step run."""
    folder, ex = folders["klue-bert"], examples["klue-bert/bert"]
    steps = dict(num_train_steps=6, checkpoint_every_steps=3)
    whole = train.train_and_evaluate(run_config(folder, ex, "bert", **steps), tmp_path / "whole")
    assert whole["step"] == 6 and whole["metrics"]["nsp_loss"] > 0
    cfg = run_config(folder, ex, "bert", stop_at_step=3, **steps)
    train.train_and_evaluate(cfg, tmp_path / "split")
    train.train_and_evaluate(run_config(folder, ex, "bert", **steps), tmp_path / "split")
    assert _losses(tmp_path / "split") == _losses(tmp_path / "whole")
    for a, b in zip(_params(tmp_path / "split"), _params(tmp_path / "whole"), strict=True):
        np.testing.assert_array_equal(a, b)
    out = export_cli.export(str(tmp_path / "whole"), str(tmp_path / "hf"))
    assert set(load_file(str(out / "model.safetensors"))) >= {"cls.seq_relationship.weight"}
    _fill_mask(out)


def test_klue_bert_folder_with_the_roberta_objective(folders, examples, tmp_path):
    """MLM only (dynamic masking) from a BERT folder: allowed, the NSP head is carried."""
    cfg = run_config(folders["klue-bert"], examples["klue-bert/roberta"], "roberta")
    data = _spec(examples["klue-bert/roberta"], "roberta")
    mc = train.build_model_config(cfg, data)
    assert mc.arch == "bert" and mc.has_nsp and mc.dtype == "float32"


# ---------------------------------------------------------------------------------------------
# SIGKILL and bitwise resume, in subprocesses (klue/roberta layout, the usual continued job)


def _env() -> dict[str, str]:
    env = dict(os.environ, JAX_PLATFORMS="cpu", JAX_DISABLE_MOST_OPTIMIZATIONS="true")
    env["XLA_FLAGS"] = subprocess_xla_flags()
    return env


def _cmd(workdir: Path, folder: Path, ex: Path, cache: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "pretrain.main",
        "--config",
        str(REPO / "pretrain" / "configs" / "tiny.py"),
        "--workdir",
        str(workdir),
        "--config.model=from_init",
        f"--config.init_from={folder}",
        "--config.objective=roberta",
        f"--config.data.examples_dir={ex}",
        "--config.data.bootstrap.enabled=False",
        "--config.global_batch_size=8",
        f"--config.num_train_steps={STEPS}",
        "--config.warmup_steps=4",
        "--config.log_every_steps=1",
        "--config.checkpoint_every_steps=5",
        "--config.progress_bar=False",
        "--config.model_overrides.dtype=float32",
        f"--config.compilation_cache_dir={cache}",
    ]


@pytest.fixture
def persistent_cache(tmp_path):
    """JAX's persistent compilation cache in a temporary folder for one test, then off again:
    what this process compiles, the subprocess (same flags) can load instead of compiling."""
    from jax._src import compilation_cache

    keys = (
        "jax_compilation_cache_dir",
        "jax_persistent_cache_min_compile_time_secs",
        "jax_persistent_cache_min_entry_size_bytes",
    )
    before = {k: jax.config.values[k] for k in keys}
    compilation_cache.reset_cache()
    train.use_compilation_cache(str(tmp_path / "xla-cache"))
    yield tmp_path / "xla-cache"
    for k, v in before.items():
        jax.config.update(k, v)
    compilation_cache.reset_cache()


def test_klue_roberta_sigkill_resume_export(
    folders, examples, tmp_path, unoptimised_compilation, persistent_cache
):
    """One subprocess, SIGKILLed after step 13 (checkpoints every 5 steps); the uninterrupted
    reference and the resume run in this process (same program, compiled once and cached on
    disk for the subprocess): every logged loss and the final parameters are bitwise equal."""
    folder, ex = folders["klue-roberta"], examples["klue-roberta/roberta"]
    cfg = run_config(folder, ex, "roberta")
    train.train_and_evaluate(cfg, tmp_path / "ref")
    assert any(persistent_cache.iterdir())

    proc = subprocess.Popen(
        _cmd(tmp_path / "run", folder, ex, persistent_cache),
        cwd=REPO,
        env=_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    seen, killed = [], False
    for line in proc.stderr:
        seen.append(line)
        if re.search(r"\] step 13 ", line):
            os.kill(proc.pid, signal.SIGKILL)
            killed = True
            break
    proc.stderr.close()
    proc.wait(timeout=60)
    assert killed, "".join(seen)[-3000:]
    assert "initialised parameters from the Hugging Face folder" in "".join(seen)
    ckdir = checkpointing.checkpoint_dir(tmp_path / "run")
    left = checkpointing.Checkpointer(ckdir, read_only=True)
    assert left.latest_step() in (5, 10)  # 10 unless its background write was cut short
    left.close()
    summary = train.train_and_evaluate(cfg, tmp_path / "run")
    assert summary["step"] == STEPS

    got = _losses(tmp_path / "run")
    assert sorted(got) == list(range(1, STEPS + 1))
    assert got == _losses(tmp_path / "ref")
    for a, b in zip(_params(tmp_path / "run"), _params(tmp_path / "ref"), strict=True):
        np.testing.assert_array_equal(a, b)
    recorded = json.loads((tmp_path / "run" / "config.json").read_text())["init_from"]
    assert recorded["name"] == "klue-roberta" and recorded["fresh_weights"] == []

    out = export_cli.export(str(tmp_path / "run"), str(tmp_path / "hf"))
    tok = transformers.AutoTokenizer.from_pretrained(str(out))
    assert tok.pad_token_id == 1 and tok.cls_token_id == 0
    _fill_mask(out)
    from finetune.pretrained import load_encoder  # what python -m finetune --model reads

    loaded = load_encoder(out)
    assert (loaded.pad_id, loaded.cls_id, loaded.config.max_position_embeddings) == (1, 0, 514)


# ---------------------------------------------------------------------------------------------
# Refusals (no compilation)


def _spec(examples_dir: Path, objective: str, **changes) -> DataSpec:
    manifest = json.loads((examples_dir / "manifest.json").read_text())
    values = dict(
        objective=objective,
        max_seq_length=int(manifest["max_seq_length"]),
        max_predictions_per_seq=5,
        vocab_size=int(manifest["vocab_size"]),
        examples_dir=str(examples_dir),
        special_ids=tuple(sorted(manifest["special_ids"].items())),
    )
    values.update(changes)
    return DataSpec(**values)


def test_refused_mismatches_name_the_problem(folders, examples):
    rob, ex = folders["klue-roberta"], examples["klue-roberta/roberta"]
    cfg = run_config(rob, ex, "roberta")
    ok = train.build_model_config(cfg, _spec(ex, "roberta"))
    assert (ok.pad_token_id, ok.max_position_embeddings, ok.max_seq_length) == (1, 514, 512)
    cases = [
        (_spec(ex, "roberta", vocab_size=ok.vocab_size + 1), cfg, "vocab_size"),
        (_spec(ex, "roberta", max_seq_length=513), cfg, "max_position_embeddings 514"),
        (_spec(ex, "bert"), run_config(rob, ex, "bert"), "no next-sentence-prediction head"),
        (
            _spec(examples["klue-bert/roberta"], "roberta"),
            cfg,
            "another tokenizer",
        ),
    ]
    for data, c, message in cases:
        with pytest.raises(ValueError, match=re.escape(message)):
            train.build_model_config(c, data)
    hidden = run_config(rob, ex, "roberta")
    hidden.model_overrides.hidden_size = 64
    with pytest.raises(ValueError, match=r"hidden_size=64 \(folder: 32\)"):
        train.build_model_config(hidden, _spec(ex, "roberta"))
    preset = run_config(rob, ex, "roberta", model="roberta-base")
    with pytest.raises(ValueError, match="--config.model=roberta-base contradicts"):
        train.build_model_config(preset, _spec(ex, "roberta"))


def test_allowed_overrides_and_what_counts_as_a_folder(folders, examples, tmp_path):
    """The positives the refusals must not swallow: runtime fields, shape fields equal to the
    folder's, a preset of the folder's shape; workdirs and bare folders are not HF folders."""
    rob, ex = folders["klue-roberta"], examples["klue-roberta/roberta"]
    cfg = run_config(rob, ex, "roberta")
    cfg.model_overrides.hidden_dropout = 0.0
    cfg.model_overrides.remat = True
    cfg.model_overrides.hidden_size = 32  # the folder's own value
    mc = train.build_model_config(cfg, _spec(ex, "roberta"))
    assert (mc.hidden_dropout, mc.remat, mc.hidden_size) == (0.0, True, 32)
    assert mc.attention_dropout == 0.1  # the folder's
    assert hf_init.is_hf_folder(str(rob))
    (tmp_path / "w" / "checkpoints").mkdir(parents=True)
    (tmp_path / "w" / "config.json").write_text('{"model_type": "bert"}')
    (tmp_path / "w" / "model.safetensors").write_bytes(b"")
    assert not hf_init.is_hf_folder(str(tmp_path / "w"))
    assert not hf_init.is_hf_folder(str(tmp_path)) and not hf_init.is_hf_folder("")


def test_ablation_continued_arm_commands(folders, tmp_path):
    """`pipeline.ablate --ablation continued`: examples built with the checkpoint's tokenizer,
    pretraining from it with the scale's steps, batch, length and seed (the stage commands;
    the runs themselves are the pipeline's long test)."""
    from pipeline import ablate, chain

    class Recorder:
        def __init__(self):
            self.commands: dict[str, list[str]] = {}

        def run(self, name, command, **_):
            self.commands[name] = [str(c) for c in command]

    pre = ablate.SCALES["demo"].pretrain
    assert ablate.scale_batch_size(pre) == 32
    runner = Recorder()
    folder = folders["klue-roberta"]
    model = chain.continued_stages(
        runner, tmp_path / "m", init_from=folder, corpus=tmp_path / "clean",
        held_out=tmp_path / "held", heldout_examples=tmp_path / "hx", pretrain=pre,
        batch_size=32, workers=1,
    )  # fmt: skip
    build = runner.commands["examples[continued]"]
    assert build[build.index("--tokenizer") + 1] == str(folder)
    assert build[build.index("--objective") + 1] == "roberta"  # no NSP head in RoBERTa
    main = runner.commands["pretrain[continued]"]
    assert f"--config.init_from={folder}" in main and chain.CONTINUE_CONFIG in main
    for flag in ("num_train_steps=300", "global_batch_size=32", "warmup_steps=18", "seed=0"):
        assert f"--config.{flag}" in main, flag
    assert model.export == tmp_path / "m" / "workdir"
    names = [a[0] for a in ablate.ARMS["continued"]]
    assert names == ["from scratch", "continued", "checkpoint as is"]
    with pytest.raises(SystemExit, match="--init-from"):
        ablate.main(["--ablation", "continued", "--output", str(tmp_path / "x")])
