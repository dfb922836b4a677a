"""`python -m finetune export`: fine-tuned models that stock transformers pipelines load.

Tiny fine-tuned ``best/`` folders are written with the trainer's own `_save_best`
(`tests.finetune_fixtures.write_finetuned`: random tiny encoder, head drawn and perturbed),
exported, loaded with ``transformers.pipeline`` and compared with our model on the same
examples: transformers' tokenizer must give the ids our task encoding gives, and the logits
must agree to 1e-4 (float32).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from safetensors import safe_open

from corpus import klue
from corpus.klue.mrc import Answer, MrcExample
from corpus.klue.ner import NerSentence
from finetune import export
from finetune.finetuned import FinetunedLoadError, encode_context, load_finetuned
from tests.finetune_fixtures import (
    FILLER,
    klue_texts,
    write_finetuned,
    write_klue_data,
    write_tiny_model,
    write_tokenizer,
)

torch = pytest.importorskip("torch", reason="torch not installed (optional extra)")
transformers = pytest.importorskip("transformers", reason="transformers not installed")
LENGTH = 32


@pytest.fixture(scope="module")
def encoders(tmp_path_factory):
    """A tokenizer, KLUE data and one tiny BERT and RoBERTa folder, shared by the tests."""
    root = tmp_path_factory.mktemp("export")
    tok = write_tokenizer(root / "tok", [*klue_texts(), "무엇인가요?"])
    folders = {
        arch: write_tiny_model(root / arch, tok, arch, seed=3) for arch in ("bert", "roberta")
    }
    return root, folders, write_klue_data(root / "klue", n_train=4, n_dev=6)


def _exported(encoders, task: str, arch: str, tmp_path, pooler: bool = False):
    root, folders, _ = encoders
    best = write_finetuned(tmp_path / "ft", task, folders[arch], seed=len(task), pooler=pooler)
    ft = load_finetuned(best, task)
    return ft, export.write_export(ft, tmp_path / "hf")


def _tensors(enc) -> dict:
    return {k: torch.as_tensor(np.asarray(v), dtype=torch.long) for k, v in enc.items()}


@pytest.mark.parametrize(("task", "arch"), [("ynat", "bert"), ("nli", "roberta"), ("sts", "bert")])
def test_sequence_classification_pipeline_gives_our_outputs(encoders, task, arch, tmp_path):
    # RoBERTa with a pooler (as klue/roberta-*): RobertaForSequenceClassification has none, so
    # the export leaves it out; BERT's classifier reads it, so it stays.
    ft, folder = _exported(encoders, task, arch, tmp_path, pooler=True)
    assert ft.model.encoder.pooler is not None
    with safe_open(str(folder / "model.safetensors"), framework="numpy") as f:
        assert any(".pooler." in k for k in f.keys()) == (arch == "bert")
    config = json.loads((folder / "config.json").read_text())
    assert config["architectures"] == [f"{export.ARCH_CLASS[arch]}ForSequenceClassification"]
    examples = klue.load(task, "dev", encoders[2])[:4]
    features = ft.task.encode(examples, encode_context(ft.loaded), LENGTH, False)
    ours = np.asarray(ft.model(features.arrays)["logits"])
    pipe = transformers.pipeline("text-classification", model=str(folder), device="cpu")
    pairs = [ft.task.texts(ex) for ex in examples]
    second = [b for _, b in pairs] if pairs[0][1] is not None else None
    enc = pipe.tokenizer(
        [a for a, _ in pairs], second, padding="max_length", max_length=LENGTH, truncation=True
    )
    np.testing.assert_array_equal(enc["input_ids"], features.arrays["input_ids"])
    np.testing.assert_array_equal(enc["attention_mask"], features.arrays["attention_mask"])
    assert ("token_type_ids" in enc) == (arch == "bert")
    if arch == "bert":
        np.testing.assert_array_equal(enc["token_type_ids"], features.arrays["token_type_ids"])
    with torch.no_grad():
        theirs = pipe.model(**_tensors(enc)).logits.numpy()
    assert np.abs(theirs - ours).max() <= 1e-4
    inputs = [{"text": a, "text_pair": b} if b is not None else a for a, b in pairs]
    if task == "sts":  # regression: the raw score
        got = pipe(inputs, function_to_apply="none")
        np.testing.assert_allclose([r["score"] for r in got], ours[:, 0], atol=1e-4)
    else:
        got = pipe(inputs, top_k=None)
        probs = np.exp(ours) / np.exp(ours).sum(-1, keepdims=True)
        for row, result in zip(probs, got, strict=True):
            by_label = {r["label"]: r["score"] for r in result}
            labels = export.HEADS[task][2]
            np.testing.assert_allclose([by_label[x] for x in labels], row, atol=1e-4)
    card = (folder / "README.md").read_text()
    assert "pipeline_tag: text-classification" in card and "12.50" in card


def test_ner_and_mrc_pipelines_give_our_outputs(encoders, tmp_path):
    sentence = " ".join(FILLER[:6])
    ner = [NerSentence("ner-0", sentence, sentence, ("O",) * len(sentence))]
    ft, folder = _exported(encoders, "ner", "roberta", tmp_path / "ner")
    features = ft.task.encode(ner, encode_context(ft.loaded), LENGTH, False)
    ours = np.asarray(ft.model(features.arrays)["logits"])
    pipe = transformers.pipeline("token-classification", model=str(folder), device="cpu")
    enc = pipe.tokenizer([sentence], padding="max_length", max_length=LENGTH)
    np.testing.assert_array_equal(enc["input_ids"], features.arrays["input_ids"])
    with torch.no_grad():
        theirs = pipe.model(**_tensors(enc)).logits.numpy()
    real = features.arrays["attention_mask"].astype(bool)
    assert np.abs(theirs[real] - ours[real]).max() <= 1e-4
    tagged = pipe(sentence, ignore_labels=[])  # one entry per token, [CLS]/[SEP] left out
    assert [t["entity"] for t in tagged] == [
        export.TAGS[i] for i in ours[0, real[0]].argmax(-1)[1:-1]
    ]
    assert "per CHARACTER" in (folder / "README.md").read_text()

    context = " ".join(FILLER)
    answer = Answer(FILLER[3], context.index(FILLER[3]))
    mrc = [MrcExample("mrc-0", "무엇인가요?", context, 1, False, (answer,))]
    ft, folder = _exported(encoders, "mrc", "bert", tmp_path / "mrc")
    features = ft.task.encode(mrc, encode_context(ft.loaded), LENGTH * 2, False)
    assert len(features) == 1, "one window: the pipeline sees the same input"
    ours = ft.model(features.arrays)
    # transformers 5 removed the question-answering pipeline: its Auto classes instead.
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(folder))
    qa = transformers.AutoModelForQuestionAnswering.from_pretrained(str(folder)).eval()
    enc = tokenizer("무엇인가요?", context, padding="max_length", max_length=LENGTH * 2)
    np.testing.assert_array_equal(enc["input_ids"], features.arrays["input_ids"][0])
    np.testing.assert_array_equal(enc["token_type_ids"], features.arrays["token_type_ids"][0])
    with torch.no_grad():
        theirs = qa(**_tensors({k: [v] for k, v in enc.items()}))
    real = features.arrays["attention_mask"][0].astype(bool)
    for name in ("start_logits", "end_logits"):
        diff = np.abs(getattr(theirs, name).numpy()[0][real] - np.asarray(ours[name])[0][real])
        assert diff.max() <= 1e-4


def test_export_errors(encoders, tmp_path, capsys):
    root, folders, _ = encoders
    best = write_finetuned(tmp_path / "ft", "ynat", folders["bert"])
    assert (
        export.main(["--task", "nli", "--model", str(best), "--output", str(tmp_path / "x")]) == 2
    )
    assert "is a fine-tuned ynat model, not nli" in capsys.readouterr().err
    with pytest.raises(FinetunedLoadError, match="not a fine-tuned model folder"):
        load_finetuned(folders["bert"])
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "keep").write_text("x")
    args = ["--task", "ynat", "--model", str(best), "--output", str(tmp_path / "full")]
    assert export.main(args) == 2 and "not empty" in capsys.readouterr().err
    assert export.main([*args, "--overwrite"]) == 0
    assert not (tmp_path / "full" / "keep").exists()


def test_electra_classifier_and_dp_encoder_with_head_file(encoders, tmp_path):
    """KoELECTRA-like (embeddings 16 -> hidden 32): ElectraForSequenceClassification with our
    GELU head's weights; DP (no transformers head): the encoder as BertModel + head.json."""
    from flax import nnx
    from safetensors.numpy import load_file

    root, folders, data = encoders
    config = transformers.ElectraConfig(
        vocab_size=sum(1 for _ in open(root / "tok" / "vocab.txt", encoding="utf-8")),
        embedding_size=16,
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
    )
    electra = tmp_path / "electra"
    transformers.ElectraModel(config).save_pretrained(str(electra))
    for name in ("vocab.txt", "tokenizer.json", "tokenizer_config.json"):
        if (root / "tok" / name).is_file():
            (electra / name).write_bytes((root / "tok" / name).read_bytes())
    best = write_finetuned(tmp_path / "ft", "ynat", electra, seed=1)
    ft = load_finetuned(best, "ynat")
    folder = export.write_export(ft, tmp_path / "hf")
    assert json.loads((folder / "config.json").read_text())["embedding_size"] == 16
    examples = klue.load("ynat", "dev", data)[:3]
    features = ft.task.encode(examples, encode_context(ft.loaded), LENGTH, False)
    ours = np.asarray(ft.model(features.arrays)["logits"])
    pipe = transformers.pipeline("text-classification", model=str(folder), device="cpu")
    assert type(pipe.model).__name__ == "ElectraForSequenceClassification"
    inputs = {k: features.arrays[k] for k in ("input_ids", "token_type_ids", "attention_mask")}
    with torch.no_grad():
        theirs = pipe.model(**_tensors(inputs)).logits.numpy()
    assert np.abs(theirs - ours).max() <= 1e-4

    best = write_finetuned(
        tmp_path / "dp", "dp", folders["bert"], lstm_size=8, arc_space=8, type_space=8, pos_dim=4
    )
    ft = load_finetuned(best, "dp")
    folder = export.write_export(ft, tmp_path / "hf-dp")
    head = json.loads((folder / "head.json").read_text())
    assert (
        head["head_class"] == "finetune.tasks.dp.DpHead" and head["task_options"]["lstm_size"] == 8
    )
    arrays = load_file(str(folder / "head.safetensors"))
    flat = nnx.to_flat_state(nnx.state(ft.model.head, nnx.Param))
    assert sorted(arrays) == sorted(".".join(map(str, p)) for p, _ in flat)
    encoder = transformers.AutoModel.from_pretrained(str(folder)).eval()
    assert type(encoder).__name__ == "BertModel"
    ids = features.arrays["input_ids"][:, :12] % ft.config.vocab_size
    mask = np.ones_like(ids)
    sequence, _ = ft.model.encoder(ids, np.zeros_like(ids), mask)
    with torch.no_grad():
        hidden = encoder(**_tensors({"input_ids": ids, "attention_mask": mask})).last_hidden_state
    assert np.abs(hidden.numpy() - np.asarray(sequence)).max() <= 1e-4
