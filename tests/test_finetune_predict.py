"""`python -m finetune predict`: a fine-tuned best/ on any file of its task, scored as is.

Tiny fine-tuned ``best/`` folders (`tests.finetune_fixtures.write_finetuned`, the trainer's
own writer) predict the KLUE fixture files (``tests/fixtures/klue``). For YNAT, NLI, STS, NER
and MRC:

* the file ``predict`` writes is what ``python -m finetune.evaluate`` scores, with the
  numbers `finetune.prediction_files.score_predictions` gives on the same records;
* the predictions equal the task's decoding of the model run on all rows at once (batching
  and its weight-0 filler rows change nothing);
* the same file without its labels (a test split) gives a byte-identical prediction file.

RE (its head shaped by ``relation_list.json``, hence ``--data-dir``) is checked the same way
on its official file (its reader needs the label field). DP and WoS, whose compiled heads
are the costly ones, are checked in ``test_finetune_dp_wos_e2e`` on the models that test
trains: ``predict`` on the dev file writes the trainer's own predictions, byte for byte.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from corpus import klue
from finetune import evaluate, predict, prediction_files
from finetune.finetuned import encode_context, load_finetuned
from tests.finetune_fixtures import write_finetuned, write_tiny_model, write_tokenizer

FIXTURES = Path(__file__).parent / "fixtures" / "klue"
FILES = {
    "ynat": "ynat-v1.1/ynat-v1.1_train.json",
    "nli": "klue-nli-v1.1/klue-nli-v1.1_dev.json",
    "sts": "klue-sts-v1.1/klue-sts-v1.1_train.json",
    "ner": "klue-ner-v1.1/klue-ner-v1.1_train.tsv",
    "mrc": "klue-mrc-v1.1/klue-mrc-v1.1_dev.json",
}
RE_FILE = FIXTURES / "klue-re-v1.1" / "klue-re-v1.1_train.json"
LENGTH = 48


@pytest.fixture(scope="module")
def encoder(tmp_path_factory) -> Path:
    texts = []
    for task, name in FILES.items():
        path = klue.SplitFile(FIXTURES / name)
        for ex in klue._READERS[task](path):
            fields = ("title", "sentence", "context", "question", "premise", "hypothesis")
            texts += [getattr(ex, f, "") for f in (*fields, "sentence1", "sentence2")]
    texts += [ex.sentence for ex in klue._READERS["re"](klue.SplitFile(RE_FILE))]
    root = tmp_path_factory.mktemp("predict")
    tok = write_tokenizer(root / "tok", [t for t in texts if t])
    return write_tiny_model(root / "hf", tok, arch="bert", num_layers=1)


def _unlabelled(task: str, src: Path, dst: Path) -> Path:
    """``src`` without its gold fields, as a test split would come."""
    if task == "ner":
        lines = src.read_text(encoding="utf-8").split("\n")
        # The tag column emptied: "char<TAB>" (a space character needs its tab).
        keep = [
            ln if ln.startswith("##") else ln.split("\t")[0] + "\t" * ("\t" in ln) for ln in lines
        ]
        dst.write_text("\n".join(keep), encoding="utf-8")
        return dst
    data = json.loads(src.read_text(encoding="utf-8"))
    gold_fields = {"ynat": ["label"], "nli": ["gold_label", "author"], "sts": ["labels"]}
    if task in gold_fields:
        for rec in data:
            for key in gold_fields[task]:
                rec.pop(key, None)
    else:
        for doc in data["data"]:
            for para in doc["paragraphs"]:
                for qa in para["qas"]:
                    for key in ("answers", "plausible_answers", "is_impossible"):
                        qa.pop(key, None)
    dst.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return dst


@pytest.mark.parametrize("task", list(FILES))
def test_predictions_score_and_do_not_need_labels(task, encoder, tmp_path, capsys):
    best = write_finetuned(tmp_path / "ft", task, encoder, seed=2)
    gold = FIXTURES / FILES[task]
    args = ["--task", task, "--model", str(best), "--max-seq-length", str(LENGTH)]
    out = tmp_path / "preds.jsonl"
    assert predict.main([*args, "--input", str(gold), "--output", str(out), "--batch-size=3"]) == 0
    # What the scorer reads, with the numbers of the in-process scorer.
    records = prediction_files.read_predictions(task, out)
    examples = klue._READERS[task](klue.SplitFile(gold))
    expected = prediction_files.score_predictions(task, records, list(examples))
    capsys.readouterr()
    assert evaluate.main(["--task", task, "--predictions", str(out), "--gold", str(gold)]) == 0
    printed = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    for name, value in printed.items():
        assert value == pytest.approx(expected[name], abs=1e-9)
    # The task's decoding of all rows in one call.
    ft = load_finetuned(best, task)
    inputs = predict.read_inputs(task, str(gold))
    features = ft.task.encode(inputs, encode_context(ft.loaded), LENGTH, False)
    outputs = {k: np.asarray(v) for k, v in ft.model(features.arrays).items()}
    direct = json.loads(json.dumps(ft.task.predict(outputs, features, inputs)))
    if task == "sts":  # one jitted program vs op by op: float rounding only
        assert [r["guid"] for r in records] == [r["guid"] for r in direct]
        np.testing.assert_allclose(
            [r["score"] for r in records], [r["score"] for r in direct], atol=1e-5
        )
    else:
        assert records == direct
    # A test split: same predictions, byte for byte.
    test = _unlabelled(task, gold, tmp_path / f"test{gold.suffix}")
    out2 = tmp_path / "test.jsonl"
    assert predict.main([*args, "--input", str(test), "--output", str(out2), "--batch-size=3"]) == 0
    assert out2.read_bytes() == out.read_bytes()


def test_re_predictions_score_with_the_relation_list(encoder, tmp_path, capsys):
    data = tmp_path / "klue"
    shutil.copytree(RE_FILE.parent, data / RE_FILE.parent.name)
    shutil.copy(RE_FILE, data / RE_FILE.parent.name / "klue-re-v1.1_dev.json")
    best = write_finetuned(tmp_path / "ft", "re", encoder, seed=2, data_dir=data)
    out = tmp_path / "preds.jsonl"
    argv = ["--task", "re", "--model", str(best), "--input", str(RE_FILE), "--output", str(out)]
    argv += ["--max-seq-length", str(LENGTH), "--batch-size=2"]
    assert predict.main(argv) == 2  # the head's relation list comes from the data
    assert "pass --data-dir" in capsys.readouterr().err
    assert predict.main([*argv, "--data-dir", str(data)]) == 0
    records = prediction_files.read_predictions("re", out)
    examples = list(klue._READERS["re"](klue.SplitFile(RE_FILE)))
    relations = klue.relations(data)
    assert [r["guid"] for r in records] == [ex.guid for ex in examples]
    assert all(len(r["probs"]) == len(relations) == 30 for r in records)
    expected = prediction_files.score_predictions("re", records, examples, relations=relations)
    capsys.readouterr()
    assert evaluate.main(["--task", "re", "--predictions", str(out), "--gold", str(RE_FILE)]) == 0
    printed = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert printed == pytest.approx(expected, abs=1e-9) and set(printed) == {
        "re_micro_f1",
        "re_auprc",
    }
    # The task's decoding of all rows in one batch (jitted: op by op costs ~10 s here).
    ft = load_finetuned(best, "re", data_dir=str(data))
    features = ft.task.encode(examples, encode_context(ft.loaded), LENGTH, False)
    outputs = predict.head_outputs(ft, features, len(features))
    direct = json.loads(json.dumps(ft.task.predict(outputs, features, examples)))
    assert [r["label"] for r in records] == [r["label"] for r in direct]
    np.testing.assert_allclose(
        [r["probs"] for r in records], [r["probs"] for r in direct], atol=1e-5
    )


def test_predict_errors_name_the_problem(encoder, tmp_path, capsys):
    best = write_finetuned(tmp_path / "run" / "ynat", "ynat", encoder)
    gold = FIXTURES / FILES["ynat"]
    args = ["--task", "ynat", "--model", str(best), "--output", str(tmp_path / "p.jsonl")]
    assert predict.main([*args, "--input", str(gold)]) == 2  # moved out of its run
    assert "pass --max-seq-length" in capsys.readouterr().err
    (best.parent / "config.json").write_text(json.dumps({"config": {"max_seq_length": LENGTH}}))
    bad = tmp_path / "bad.json"
    bad.write_text('[{"guid": "a", "title": "x"},\n {"guid": "b"}]', encoding="utf-8")
    assert predict.main([*args, "--input", str(bad)]) == 2
    assert f"{bad}:2: missing field: 'title'" in capsys.readouterr().err
    assert predict.main([*args, "--input", str(tmp_path / "none.json")]) == 2
    assert "does not exist" in capsys.readouterr().err
    shutil.copy(gold, tmp_path / "g.json")
    assert predict.main([*args, "--input", str(tmp_path / "g.json")]) == 0
