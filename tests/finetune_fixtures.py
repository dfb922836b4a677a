"""Tiny models and KLUE-format data for the fine-tuning tests (no real data needed).

* `write_tokenizer`: a character WordPiece tokenizer folder (every character of the given
  texts, word-initial and ``##`` forms) written by `tokenizer.wordpiece.write_folder`;
* `write_tiny_model`: a randomly initialised tiny BERT or RoBERTa (`pretrain.models`) exported
  as a Hugging Face folder with that tokenizer (`pretrain.hf_export.write_hf_folder`);
* `write_klue_data`: small YNAT / NLI / STS files in the official formats
  (``../shared/docs/klue-formats.md``); STS gets only a dev file, so the missing-train rule
  (split of dev by guid hash) is exercised. Labels follow a keyword in the text, so a model
  can learn them.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np

from corpus.klue import nli as klue_nli
from corpus.klue import ynat as klue_ynat

TOPIC_WORDS = ("컴퓨터", "주가", "사건", "여행", "외교", "축구", "국회")
NLI_WORDS = ("그렇다", "아마도", "아니다")
FILLER = "오늘 내일 서울 부산 사람 회사 정부 시장 학교 가족 날씨 뉴스 발표 결과 계획".split()


def _sentence(rng: random.Random, key: str) -> str:
    words = rng.sample(FILLER, 4)
    words.insert(rng.randrange(5), key)
    return " ".join(words)


def klue_texts() -> list[str]:
    return [*TOPIC_WORDS, *NLI_WORDS, *FILLER, "0123456789.,!?"]


def write_klue_data(root: Path, n_train: int = 48, n_dev: int = 24, seed: int = 0) -> Path:
    """YNAT and NLI train+dev, STS dev only, under ``root`` (a KLUE folder)."""
    rng = random.Random(seed)
    for split, n in (("train", n_train), ("dev", n_dev)):
        ynat = []
        for i in range(n):
            k = rng.randrange(len(klue_ynat.LABELS))
            ynat.append(
                {
                    "guid": f"ynat-v1_{split}_{i:05d}",
                    "title": _sentence(rng, TOPIC_WORDS[k]),
                    "label": klue_ynat.LABELS[k],
                    "predefined_news_category": "x",
                    "annotations": {},
                    "url": "",
                    "date": "",
                }
            )
        _dump(root / "ynat-v1.1" / f"ynat-v1.1_{split}.json", ynat)
        nli = []
        for i in range(n):
            k = rng.randrange(3)
            nli.append(
                {
                    "guid": f"klue-nli-v1_{split}_{i:05d}",
                    "premise": _sentence(rng, "사람"),
                    "hypothesis": _sentence(rng, NLI_WORDS[k]),
                    "gold_label": klue_nli.LABELS[k],
                    "author": klue_nli.LABELS[k],
                    "label2": klue_nli.LABELS[k],
                    "label3": klue_nli.LABELS[k],
                    "label4": klue_nli.LABELS[k],
                    "label5": klue_nli.LABELS[k],
                    ("genre" if split == "train" else "source"): "wikinews",
                }
            )
        _dump(root / "klue-nli-v1.1" / f"klue-nli-v1.1_{split}.json", nli)
    sts = []
    for i in range(n_train + n_dev):
        score = round(rng.uniform(0, 5), 1)
        words = rng.sample(FILLER, 5)
        same = int(score)
        s2 = words[:same] + rng.sample(FILLER, 5 - same)
        sts.append(
            {
                "guid": f"klue-sts-v1_dev_{i:05d}",
                "source": "airbnb-rtt",
                "sentence1": " ".join(words),
                "sentence2": " ".join(s2),
                "labels": {"label": score, "real-label": score, "binary-label": int(score >= 3)},
                "annotations": {},
            }
        )
    _dump(root / "klue-sts-v1.1" / "klue-sts-v1.1_dev.json", sts)
    return root


def _dump(path: Path, obj: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj, ensure_ascii=False, indent=1), encoding="utf-8")


def write_tokenizer(folder: Path, texts: list[str] | None = None) -> Path:
    from tokenizer.wordpiece import SPECIAL_TOKENS, write_folder

    chars = sorted({c for t in (texts or klue_texts()) for c in t if not c.isspace()})
    vocab = [*SPECIAL_TOKENS, *chars, *(f"##{c}" for c in chars)]
    write_folder(folder, vocab, {})
    return folder


def write_tiny_model(
    folder: Path, tokenizer_dir: Path, arch: str = "bert", seed: int = 0, num_layers: int = 2
) -> Path:
    """A random tiny encoder (hidden 32, 2 layers, 64 positions) as a Hugging Face folder."""
    from pretrain import hf_export, models

    vocab = sum(1 for _ in open(tokenizer_dir / "vocab.txt", encoding="utf-8"))
    name = "tiny" if arch == "bert" else "tiny-roberta"
    base = models.PRESETS[name]
    changes = dict(
        vocab_size=vocab,
        hidden_size=32,
        intermediate_size=64,
        num_heads=2,
        num_layers=num_layers,
        dtype="float32",
    )
    if arch == "bert":
        changes["max_position_embeddings"] = 64
    else:
        changes["max_position_embeddings"] = 64 + base.pad_token_id + 1
    config = base.replace(**changes)
    model = models.build_model(config, seed=seed)
    return hf_export.write_hf_folder(model, tokenizer_dir, folder)


def fit_full_batch(
    task,
    features,
    vocab_size: int,
    steps: int,
    lr: float = 3e-3,
    seed: int = 0,
    max_grad_norm: float | None = None,
    word_embedding_std: float | None = None,
    decay: bool = False,
    model_changes: dict | None = None,
):
    """`finetune.modeling.FinetuneModel` (a tiny encoder, no dropout, + ``task``'s head)
    trained on all of ``features`` as one batch with Adam for ``steps`` steps, the task's own
    loss (gradients clipped to ``max_grad_norm`` if given; with ``decay`` the rate falls
    linearly to 0 over the steps, as the trainer's schedule does). ``word_embedding_std``
    redraws the word embeddings with that standard deviation (the preset draws 0.02: vectors
    of norm ~0.16 in 64 dimensions, far smaller than a trained encoder's). Returns ``(model,
    batch, first loss, last loss)``; ``model(batch, deterministic=True)`` gives the head's
    evaluation outputs. ``model_changes`` replace fields of the tiny preset (e.g. more
    positions)."""
    import dataclasses

    import jax
    import jax.numpy as jnp
    import optax
    from flax import nnx

    from finetune.modeling import FinetuneModel
    from pretrain import models

    cfg = dataclasses.replace(
        models.PRESETS["tiny"],
        vocab_size=vocab_size,
        dtype="float32",
        hidden_dropout=0.0,
        attention_dropout=0.0,
        **(model_changes or {}),
    )
    model = FinetuneModel(cfg, task, add_pooler=True, rngs=nnx.Rngs(seed))
    if word_embedding_std is not None:
        table = model.encoder.embeddings.word_embeddings.embedding
        key = jax.random.key(seed + 1)
        table[...] = word_embedding_std * jax.random.normal(key, table[...].shape, jnp.float32)
    batch = {k: jnp.asarray(v) for k, v in features.arrays.items()}
    batch["weight"] = jnp.ones(len(features), jnp.float32)
    tx = optax.adam(optax.linear_schedule(lr, 0.0, steps) if decay else lr)
    if max_grad_norm is not None:
        tx = optax.chain(optax.clip_by_global_norm(max_grad_norm), tx)
    opt = nnx.Optimizer(model, tx, wrt=nnx.Param)

    @nnx.jit
    def step(model, opt):
        def loss_fn(m):
            total, count = task.loss(m(batch, deterministic=False), batch)
            return total / count

        loss, grads = nnx.value_and_grad(loss_fn)(model)
        opt.update(model, grads)
        return loss

    first = last = float(step(model, opt))
    for _ in range(steps - 1):
        last = float(step(model, opt))
    return model, batch, first, last


def write_finetuned(
    out: Path,
    task_name: str,
    model_folder: Path,
    seed: int = 0,
    data_dir: Path | None = None,
    pooler: bool = False,
    **task_options,
) -> Path:
    """``out/best`` as the trainer writes it (`finetune.trainer._save_best`, the same code)
    for ``task_name`` on the encoder of ``model_folder`` (every weight then perturbed, so
    biases and LayerNorms are not trivial). The head is drawn from ``N(0, 0.05)`` with NumPy
    on an abstract model (`nnx.eval_shape`): no JAX initialiser runs, which keeps large heads
    (DP's LSTMs) cheap. ``data_dir``: read by the task first when its head is shaped by the
    training data (RE's relations, WoS's ontology). ``pooler``: give the encoder a pooler
    even when the task does not read it (a RoBERTa checkpoint that has one). Returns
    ``out/best``."""
    import jax
    from flax import nnx

    from finetune import modeling, trainer
    from finetune.tasks.base import get_task
    from pretrain.models import concrete_rest

    task = get_task(task_name, **task_options)
    if data_dir is not None:
        task.load_splits(data_dir, 0.5)
    pre = modeling.with_tokens(modeling.load_pretrained(model_folder), task.extra_tokens, seed)
    if task.needs_pooler or pooler:  # as the trainer (WoS's GRU start)
        pre = modeling.with_pooler(pre, seed)
    pooler = pre.encoder.pooler is not None

    def fresh():
        return modeling.FinetuneModel(pre.config, task, add_pooler=pooler, rngs=nnx.Rngs(seed))

    rng = np.random.default_rng(seed + 100)
    graphdef, abstract, rest = nnx.split(nnx.eval_shape(fresh), nnx.Param, ...)
    drawn = jax.tree.map(lambda x: rng.normal(0, 0.05, x.shape).astype(x.dtype), abstract)
    model = nnx.merge(graphdef, drawn, concrete_rest(rest))
    nnx.update(model.encoder, pre.params)
    leaves, tree = jax.tree.flatten(nnx.state(model, nnx.Param))
    noisy = [np.asarray(x) + rng.normal(0, 0.05, x.shape).astype(x.dtype) for x in leaves]
    scores = {task.metric_key: 12.5}
    out.mkdir(parents=True, exist_ok=True)
    trainer._save_best(out, jax.tree.unflatten(tree, noisy), pre, task, 7, scores, [])
    return out / trainer.BEST_DIR
