"""python -m finetune.evaluate and finetune.prediction_files: perfect predictions score 100 on
the real dev files and the MRC/WoS fixtures, every gold form is read, round trips are exact,
and every kind of bad prediction file exits 2 naming the ids."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from corpus import klue
from corpus.cli import run
from finetune import evaluate, prediction_files
from finetune.metrics import METRIC_NAMES
from finetune.prediction_files import PredictionError

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures" / "klue"

#: task -> (split, gold path relative to the KLUE folder) of the real dev data
REAL = {
    "ynat": ("dev", "ynat-v1.1/ynat-v1.1_dev.json.gz"),
    "sts": ("dev", "klue-sts-v1.1/klue-sts-v1.1_dev.json"),
    "nli": ("dev", "klue-nli-v1.1.tar.gz"),
    "ner": ("dev", "klue-ner-v1.1/klue-ner-v1.1_dev.tsv"),
    "re": ("dev", "klue-re-v1.1/klue-re-v1.1_dev.json.gz"),
    "dp": ("dev", "klue-dp-v1.1/klue-dp-v1.1_dev.tsv"),
    "wos": ("dev_sample_10", "wos-v1.1/wos-v1.1_dev_sample_10.json"),
}


def cli(capsys, *args: str) -> tuple[int, dict | None, str]:
    """Runs the command in-process as ``python -m finetune.evaluate`` would: (exit code, the
    JSON object of the last stdout line or None, stderr)."""
    with pytest.raises(SystemExit) as exc:
        run(lambda: evaluate.main(list(args)))
    out, err = capsys.readouterr()
    lines = out.strip().splitlines()
    return exc.value.code, (json.loads(lines[-1]) if lines else None), err


def _write(path: Path, records: list) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), "utf-8")
    return path


# ---------------------------------------------------------------------------------------------
# perfect predictions


@pytest.mark.parametrize("task", sorted(REAL))
def test_perfect_predictions_score_100_on_real_dev(task, data_dir, tmp_path, capsys):
    root = data_dir / "klue"
    split, rel_path = REAL[task]
    gold = klue.load(task, split, root)
    relations = klue.relations(root) if task == "re" else None
    preds = prediction_files.gold_predictions(task, gold, relations)
    path = tmp_path / f"{task}.jsonl"
    assert prediction_files.write_predictions(task, preds, path, relations=relations) == len(preds)
    code, got, err = cli(
        capsys, "--task", task, "--predictions", str(path), "--gold", str(root / rel_path),
        "--split", split, "--output", str(tmp_path / "out.json"),
    )  # fmt: skip
    assert code == 0, err
    assert list(got) == list(METRIC_NAMES[task])
    assert got == pytest.approx(dict.fromkeys(METRIC_NAMES[task], 100.0), abs=1e-9)
    assert json.loads((tmp_path / "out.json").read_text()) == got
    # the library gives the very same numbers
    library = prediction_files.score_predictions(task, preds, gold, relations=relations)
    assert library == got
    assert f"scored {len(preds)} " in err


@pytest.mark.parametrize("task", ["mrc", "wos"])
def test_perfect_predictions_score_100_on_the_fixtures(task, tmp_path, capsys):
    gold = klue.load(task, "dev", FIXTURES)
    preds = prediction_files.gold_predictions(task, gold)
    path = tmp_path / "p.jsonl"
    prediction_files.write_predictions(task, preds, path)
    name = {"mrc": "klue-mrc-v1.1/klue-mrc-v1.1_dev.json", "wos": "wos-v1.1/wos-v1.1_dev.json"}
    out = tmp_path / "scores" / f"{task}.json"  # its folder does not exist yet
    code, got, err = cli(
        capsys, "--task", task, "--predictions", str(path), "--gold", str(FIXTURES / name[task]),
        "--output", str(out),
    )  # fmt: skip
    assert code == 0, err
    assert got == dict.fromkeys(METRIC_NAMES[task], 100.0)
    assert json.loads(out.read_text()) == got
    assert [p.name for p in out.parent.iterdir()] == [out.name]  # no temporary left


def test_mrc_fixture_unanswerable_and_alternative_answers(tmp_path, capsys):
    gold = klue.load("mrc", "dev", FIXTURES)
    assert [q.is_impossible for q in gold] == [False, False, True]
    preds = [
        {"guid": gold[0].guid, "answer": "1446년에"},  # the third gold answer: EM 1
        {"guid": gold[1].guid, "answer": "간송 미술관"},  # EM 0, ROUGE-W 2*(3/6)(3/5)/(3/6+3/5)
        {"guid": gold[2].guid, "answer": "없음"},  # unanswerable: only "" is right
    ]
    path = _write(tmp_path / "p.jsonl", preds)
    code, got, _ = cli(capsys, "--task", "mrc", "--predictions", str(path), "--gold", str(FIXTURES))
    assert code == 0
    rouge = 2 * (3 / 6) * (3 / 5) / (3 / 6 + 3 / 5)
    assert got["mrc_exact_match"] == pytest.approx(100 / 3)
    assert got["mrc_rouge_w"] == pytest.approx(100 * (1 + rouge + 0) / 3)


def test_round_trip_is_exact_and_numpy_values_are_written_as_json(tmp_path):
    gold = klue.load("re", "train", FIXTURES)
    relations = klue.relations(FIXTURES)
    preds = prediction_files.gold_predictions("re", gold, relations)
    as_numpy = [{**p, "probs": np.asarray(p["probs"], dtype=np.float32)} for p in preds]
    path = tmp_path / "re.jsonl"
    prediction_files.write_predictions("re", as_numpy, path, relations=relations)
    back = prediction_files.read_predictions("re", path)
    assert back == preds
    got = prediction_files.score_predictions("re", back, gold, relations=relations)
    assert got == {"re_micro_f1": 100.0, "re_auprc": pytest.approx(55.0)}  # 27 absent classes
    for task in ("ner", "dp", "sts", "ynat"):
        gold = klue.load(task, "train", FIXTURES)
        preds = prediction_files.gold_predictions(task, gold)
        prediction_files.write_predictions(task, preds, tmp_path / f"{task}.jsonl")
        assert prediction_files.read_predictions(task, tmp_path / f"{task}.jsonl") == preds
        scores = prediction_files.score_predictions(task, preds, gold)
        assert scores == pytest.approx(dict.fromkeys(METRIC_NAMES[task], 100.0))


def test_gzipped_prediction_file_with_crlf_and_bom_is_read(tmp_path, capsys):
    import gzip

    gold = klue.load("nli", "dev", FIXTURES)
    lines = [json.dumps(p) for p in prediction_files.gold_predictions("nli", gold)]
    path = tmp_path / "p.jsonl.gz"
    path.write_bytes(gzip.compress(("\ufeff" + "\r\n".join(lines) + "\r\n").encode()))
    assert prediction_files.read_predictions("nli", path) == [json.loads(x) for x in lines]
    gold_path = str(FIXTURES / "klue-nli-v1.1" / "klue-nli-v1.1_dev.json")
    code, got, _ = cli(capsys, "--task", "nli", "--predictions", str(path), "--gold", gold_path)
    assert code == 0 and got == {"nli_accuracy": 100.0}


def test_write_is_deterministic_and_keeps_non_ascii(tmp_path):
    gold = klue.load("ynat", "train", FIXTURES)
    preds = prediction_files.gold_predictions("ynat", gold)
    prediction_files.write_predictions("ynat", preds, tmp_path / "a.jsonl")
    prediction_files.write_predictions("ynat", list(preds), tmp_path / "b.jsonl")
    a = (tmp_path / "a.jsonl").read_bytes()
    assert a == (tmp_path / "b.jsonl").read_bytes()
    assert gold[0].label.encode() in a


# ---------------------------------------------------------------------------------------------
# gold forms


def test_gold_from_archive_split_folder_and_data_dir(data_dir, tmp_path, capsys):
    root = data_dir / "klue"
    gold = klue.load("nli", "dev_sample_10", root)
    path = tmp_path / "p.jsonl"
    prediction_files.write_predictions("nli", prediction_files.gold_predictions("nli", gold), path)
    forms = [
        ["--gold", str(root / "klue-nli-v1.1.tar.gz"), "--split", "dev_sample_10"],
        ["--gold", str(root), "--split", "dev_sample_10"],
        ["--data-dir", str(data_dir), "--split", "dev_sample_10"],
    ]
    for form in forms:
        code, got, err = cli(capsys, "--task", "nli", "--predictions", str(path), *form)
        assert code == 0, err
        assert got == {"nli_accuracy": 100.0}
        assert "scored 10 examples" in err
    # the same predictions against the full dev split: 2,990 ids missing
    code, got, err = cli(
        capsys, "--task", "nli", "--predictions", str(path),
        "--gold", str(root / "klue-nli-v1.1.tar.gz"),
    )  # fmt: skip
    assert code == 2 and got is None
    assert "missing id (2990)" in err and "klue-nli-v1_dev_00010" in err


def test_archive_without_the_split_names_its_members(data_dir, tmp_path, capsys):
    path = _write(tmp_path / "p.jsonl", [{"guid": "x", "label": "neutral"}])
    archive = data_dir / "klue" / "klue-nli-v1.1.tar.gz"
    code, _, err = cli(
        capsys, "--task", "nli", "--predictions", str(path), "--gold", str(archive),
        "--split", "test",
    )  # fmt: skip
    assert code == 2
    assert "klue-nli-v1.1_test.json" in err and "klue-nli-v1.1_dev.json" in err


def test_re_finds_relation_list_beside_the_gold_file(tmp_path, capsys):
    gold_path = FIXTURES / "klue-re-v1.1" / "klue-re-v1.1_train.json"
    gold = klue.load("re", "train", FIXTURES)
    relations = klue.relations(FIXTURES)
    preds = prediction_files.gold_predictions("re", gold, relations)
    path = tmp_path / "p.jsonl"
    prediction_files.write_predictions("re", preds, path, relations=relations)
    code, got, err = cli(
        capsys, "--task", "re", "--predictions", str(path), "--gold", str(gold_path)
    )
    assert code == 0, err
    # AUPRC: the 27 relations absent from these 3 examples score 0.5 each (scikit-learn's
    # convention for a class without positives), the 3 present ones 1
    assert got == {"re_micro_f1": 100.0, "re_auprc": pytest.approx(100 * (3 + 27 * 0.5) / 30)}
    # a gold file alone, with no relation list anywhere: a clear error
    lone = tmp_path / "gold" / "re.json"
    lone.parent.mkdir()
    lone.write_bytes(gold_path.read_bytes())
    code, _, err = cli(
        capsys, "--task", "re", "--predictions", str(path), "--gold", str(lone),
        "--data-dir", str(tmp_path / "gold"),
    )  # fmt: skip
    assert code == 2 and "relation_list.json" in err


# ---------------------------------------------------------------------------------------------
# bad prediction files


def _nli_gold(tmp_path: Path, n: int) -> Path:
    items = [
        {
            "guid": f"nli-{i:03d}",
            "premise": "전제",
            "hypothesis": "가설",
            "gold_label": ("entailment", "neutral", "contradiction")[i % 3],
            "source": "test",
        }
        for i in range(n)
    ]
    path = tmp_path / "klue-nli-v1.1_dev.json"
    path.write_text(json.dumps(items, ensure_ascii=False), "utf-8")
    return path


def _nli_preds(n: int) -> list[dict]:
    return [
        {"guid": f"nli-{i:03d}", "label": ("entailment", "neutral", "contradiction")[i % 3]}
        for i in range(n)
    ]


def test_missing_ids_name_the_first_ten_and_allow_missing_scores_the_rest(tmp_path, capsys):
    gold = _nli_gold(tmp_path, 30)
    preds = _nli_preds(30)[:12]
    path = _write(tmp_path / "p.jsonl", preds)
    code, got, err = cli(capsys, "--task", "nli", "--predictions", str(path), "--gold", str(gold))
    assert code == 2 and got is None
    assert "missing id (18)" in err
    named = [f"nli-{i:03d}" for i in range(12, 22)]
    assert all(g in err for g in named)
    assert "nli-022" not in err and "8 more" in err
    assert "--allow-missing" in err
    code, got, err = cli(
        capsys, "--task", "nli", "--predictions", str(path), "--gold", str(gold), "--allow-missing"
    )
    assert code == 0
    assert got == {"nli_accuracy": 100.0}
    assert "18 of 30" in err and "scored 12 examples" in err


def test_allow_missing_does_not_excuse_unknown_or_duplicate_ids(tmp_path, capsys):
    gold = _nli_gold(tmp_path, 5)
    preds = _nli_preds(4) + [{"guid": "nli-999", "label": "neutral"}, _nli_preds(1)[0]]
    path = _write(tmp_path / "p.jsonl", preds)
    code, _, err = cli(
        capsys, "--task", "nli", "--predictions", str(path), "--gold", str(gold), "--allow-missing"
    )
    assert code == 2
    assert "unknown id" in err and "nli-999" in err
    assert "duplicate id (1): nli-000" in err


#: the gold file of each task under the fixtures
FIXTURE_GOLD = {
    "ynat": "ynat-v1.1/ynat-v1.1_train.json",
    "nli": "klue-nli-v1.1/klue-nli-v1.1_dev.json",
    "sts": "klue-sts-v1.1/klue-sts-v1.1_train.json",
    "ner": "klue-ner-v1.1/klue-ner-v1.1_train.tsv",
    "dp": "klue-dp-v1.1/klue-dp-v1.1_train.tsv",
    "re": "klue-re-v1.1/klue-re-v1.1_train.json",
    "mrc": "klue-mrc-v1.1/klue-mrc-v1.1_dev.json",
    "wos": "wos-v1.1/wos-v1.1_dev.json",
}
BAD_CASES = {
    # name: (task, field, new value (None: corrupt the first element), message)
    "ynat wrong label": ("ynat", "label", "스포오츠", "unknown label"),
    "nli wrong label": ("nli", "label", "Neutral", "unknown label"),
    "sts NaN": ("sts", "score", math.nan, "non-finite score"),
    "sts string": ("sts", "score", "3.2", "not a number"),
    "ner short": ("ner", "tags", ["O"], "wrong number of tags"),
    "ner tag": ("ner", "tags", None, "unknown NER tag"),
    "dp short": ("dp", "heads", [0], "wrong number of words"),
    "dp head": ("dp", "heads", None, "head outside"),
    "dp label": ("dp", "deprels", None, "unknown DP label"),
    "re probs count": ("re", "probs", [1.0], "wrong number of probabilities"),
    "re NaN": ("re", "probs", None, "non-finite probability"),
    "re logits": ("re", "probs", [3.0] * 30, "not probabilities"),
    "re label": ("re", "label", "per:wife", "unknown relation"),
    "mrc number": ("mrc", "answer", 1446, "not a string"),
    "wos item": ("wos", "state", ["식당가격대"], "not 'domain-slot-value'"),
    "missing field": ("nli", "label", KeyError, "missing field 'label'"),
}


@pytest.mark.parametrize("case", sorted(BAD_CASES))
def test_bad_prediction_files_exit_2_naming_the_id(case, tmp_path, capsys):
    task, field, value, message = BAD_CASES[case]
    gold_rel = FIXTURE_GOLD[task]
    split = gold_rel.rsplit("_", 1)[1].split(".")[0]
    gold = klue.load(task, split, FIXTURES)
    relations = klue.relations(FIXTURES) if task == "re" else None
    preds = prediction_files.gold_predictions(task, gold, relations)
    bad = preds[-1]
    if value is KeyError:
        del bad[field]
    elif value is None:  # corrupt one element of the list
        bad[field] = list(bad[field])
        bad[field][0] = {"tags": "B-XX", "heads": 99, "deprels": "VERB", "probs": math.nan}[field]
    else:
        bad[field] = value
    path = tmp_path / "p.jsonl"
    path.write_text(
        "".join(json.dumps(p, ensure_ascii=False) + "\n" for p in preds), "utf-8"
    )  # json writes NaN as the NaN literal, as a careless writer would
    code, got, err = cli(
        capsys, "--task", task, "--predictions", str(path), "--gold", str(FIXTURES / gold_rel)
    )
    assert code == 2 and got is None
    assert message in err
    assert bad["guid"] in err
    assert err.startswith("error: ") and "Traceback" not in err
    with pytest.raises(PredictionError):  # and the trainer's path raises the same error
        prediction_files.score_predictions(task, preds, gold, relations=relations)


def test_unreadable_prediction_files_exit_2_naming_lines(tmp_path, capsys):
    gold = _nli_gold(tmp_path, 3)
    good = json.dumps(_nli_preds(3)[0])
    cases = {
        "malformed.jsonl": (good + "\n{no\n\n[1]\n", ["malformed JSON", "line 2", "line 4"]),
        "empty.jsonl": ("\n\n", ["empty file"]),
        "latin1.jsonl": (None, ["invalid UTF-8", "line 1"]),
    }  # fmt: skip
    for name, (text, expected) in cases.items():
        path = tmp_path / name
        if text is None:
            path.write_bytes(b'{"guid": "nli-000", "label": "neutral\xe9"}\n')
        else:
            path.write_text(text, "utf-8")
        code, _, err = cli(capsys, "--task", "nli", "--predictions", str(path), "--gold", str(gold))
        assert code == 2, name
        assert all(e in err for e in expected), (name, err)
    code, _, err = cli(
        capsys,
        "--task",
        "nli",
        "--predictions",
        str(tmp_path / "absent.jsonl"),
        "--gold",
        str(gold),
    )
    assert code == 2 and "absent.jsonl" in err


def test_write_predictions_refuses_bad_records(tmp_path):
    with pytest.raises(PredictionError, match="unknown label") as exc:
        prediction_files.write_predictions(
            "nli", [{"guid": "a", "label": "entailment"}, {"guid": "b", "label": "yes"}],
            tmp_path / "p.jsonl",
        )  # fmt: skip
    assert exc.value.problems == {
        "unknown label (expected one of entailment, neutral, contradiction)": ["b"]
    }
    assert not (tmp_path / "p.jsonl").exists()


def test_constant_sts_predictions_give_null_pearson_with_a_warning(tmp_path, capsys):
    gold = klue.load("sts", "train", FIXTURES)
    path = _write(tmp_path / "p.jsonl", [{"guid": x.guid, "score": 2.0} for x in gold])
    gold_path = FIXTURES / "klue-sts-v1.1" / "klue-sts-v1.1_train.json"
    code, got, err = cli(
        capsys, "--task", "sts", "--predictions", str(path), "--gold", str(gold_path)
    )
    assert code == 0
    assert got["sts_pearsonr"] is None and "undefined" in err


def test_module_entry_point_in_a_subprocess(tmp_path):
    gold = _nli_gold(tmp_path, 3)
    good = _write(tmp_path / "good.jsonl", _nli_preds(3))
    bad = _write(tmp_path / "bad.jsonl", _nli_preds(2))
    command = [sys.executable, "-m", "finetune.evaluate", "--task", "nli", "--gold", str(gold)]
    ok = subprocess.run(
        [*command, "--predictions", str(good)], capture_output=True, text=True, cwd=REPO
    )
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout.strip().splitlines()[-1]) == {"nli_accuracy": 100.0}
    fail = subprocess.run(
        [*command, "--predictions", str(bad)], capture_output=True, text=True, cwd=REPO
    )
    assert fail.returncode == 2
    assert "missing id (1): nli-002" in fail.stderr and "Traceback" not in fail.stderr
    index = subprocess.run(
        [sys.executable, "-m", "finetune"], capture_output=True, text=True, cwd=REPO
    )
    line = next(x for x in index.stdout.splitlines() if "finetune.evaluate" in x)
    assert "not built yet" not in line


def test_re_from_an_official_style_archive_with_its_relation_list(tmp_path, capsys):
    import tarfile

    archive = tmp_path / "klue-re-v1.1.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(FIXTURES / "klue-re-v1.1", arcname="klue-re-v1.1")
    gold = klue.load("re", "train", FIXTURES)
    relations = klue.relations(FIXTURES)
    path = tmp_path / "p.jsonl"
    prediction_files.write_predictions(
        "re", prediction_files.gold_predictions("re", gold, relations), path, relations=relations
    )
    code, got, err = cli(
        capsys, "--task", "re", "--predictions", str(path), "--gold", str(archive),
        "--split", "train", "--data-dir", str(tmp_path),
    )  # fmt: skip
    assert code == 0, err
    assert got["re_micro_f1"] == 100.0
    assert "klue-re-v1.1.tar.gz:klue-re-v1.1/klue-re-v1.1_train.json" in err


def test_help_exits_0(capsys):
    with pytest.raises(SystemExit) as exc:
        evaluate.main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "--allow-missing" in out and "--gold" in out


def test_missing_as_empty_scores_missing_mrc_and_wos_units_as_empty(tmp_path, capsys):
    gold = klue.load("mrc", "dev", FIXTURES)
    # only the two answerable questions: the unanswerable one, missing, counts as "" (right)
    preds = prediction_files.gold_predictions("mrc", gold)[:2]
    path = _write(tmp_path / "mrc.jsonl", preds)
    gold_path = str(FIXTURES / "klue-mrc-v1.1" / "klue-mrc-v1.1_dev.json")
    args = ["--task", "mrc", "--predictions", str(path), "--gold", gold_path]
    code, got, err = cli(capsys, *args, "--missing-as-empty")
    assert code == 0, err
    assert got == dict.fromkeys(METRIC_NAMES["mrc"], 100.0)  # one question of each type
    assert "1 of 3 gold questions had no prediction" in err
    code, _, err = cli(capsys, *args)
    assert code == 2 and "missing id (1): klue-mrc-v1_dev_00002" in err
    code, _, err = cli(capsys, *args, "--missing-as-empty", "--allow-missing")
    assert code == 2 and "not allowed with" in err  # argparse: mutually exclusive
    # WoS (turn 0 has an empty gold state, turn 1 two items): a missing turn is the empty state
    wos_gold = klue.load("wos", "dev", FIXTURES)
    assert [len(s) for s in prediction_files.gold_units("wos", wos_gold).values()] == [0, 2]
    perfect = prediction_files.gold_predictions("wos", wos_gold)
    for kept, want in (([perfect[1]], 100.0), ([perfect[0]], 50.0)):
        got = prediction_files.score_predictions("wos", kept, wos_gold, missing_as_empty=True)
        assert got == {"wos_joint_goal_accuracy": want, "wos_slot_f1": want}


def test_missing_as_empty_is_refused_where_no_empty_prediction_exists(tmp_path, capsys):
    gold = _nli_gold(tmp_path, 3)
    path = _write(tmp_path / "p.jsonl", _nli_preds(2))
    code, _, err = cli(
        capsys, "--task", "nli", "--predictions", str(path), "--gold", str(gold),
        "--missing-as-empty",
    )  # fmt: skip
    assert code == 2 and "nli has no empty prediction" in err
