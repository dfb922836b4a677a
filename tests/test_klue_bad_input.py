"""Bad KLUE input: every error names the file (and line where there is one) and says what is
wrong; ``skip`` mode quarantines and counts instead of dropping silently."""

from __future__ import annotations

import gzip
import json
import shutil
import tarfile
from pathlib import Path

import pytest

from corpus import klue
from corpus.textio import InputError, Quarantine

FIXTURES = Path(__file__).parent / "fixtures" / "klue"


def copy_task(tmp_path: Path, folder: str) -> Path:
    """Copies one fixture task folder into a fresh KLUE dir; returns the copied folder."""
    shutil.copytree(FIXTURES / folder, tmp_path / folder)
    return tmp_path / folder


def edit(path: Path, old: str, new: str, count: int = 1) -> None:
    text = path.read_bytes().decode("utf-8")
    assert old in text, old
    path.write_bytes(text.replace(old, new, count).encode("utf-8"))


def line_of(path: Path, needle: str) -> int:
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if needle in line:
            return i
    raise AssertionError(needle)


# --- JSON tasks ---------------------------------------------------------------------------


def test_malformed_json_names_file_and_line(tmp_path):
    d = copy_task(tmp_path, "klue-nli-v1.1")
    path = d / "klue-nli-v1.1_train.json"
    bad_line = line_of(path, '"hypothesis": "결말이 만족스러웠다."')
    edit(path, '"hypothesis": "결말이 만족스러웠다.",', '"hypothesis": "결말이 만족스러웠다."')
    with pytest.raises(InputError) as e:
        klue.load("nli", "train", tmp_path)
    assert e.value.path == str(path)
    assert e.value.line == bad_line + 1  # the parser stops at the next key
    assert "malformed JSON" in str(e.value) and f"klue-nli-v1.1_train.json:{bad_line + 1}:" in str(
        e.value
    )


def test_malformed_json_inside_an_archive_names_archive_and_member(tmp_path):
    src = tmp_path / "src"
    d = copy_task(src, "klue-nli-v1.1")
    edit(d / "klue-nli-v1.1_dev.json", '"source": "policy",', '"source": "policy",,')
    with tarfile.open(tmp_path / "klue-nli-v1.1.tar.gz", "w:gz") as tar:
        tar.add(d, arcname="klue-nli-v1.1")
    with pytest.raises(InputError) as e:
        klue.load("nli", "dev", tmp_path)
    assert (
        e.value.path == f"{tmp_path / 'klue-nli-v1.1.tar.gz'}:klue-nli-v1.1/klue-nli-v1.1_dev.json"
    )
    assert e.value.line == 4 and "malformed JSON" in e.value.reason


def test_missing_field_names_the_elements_line_and_skip_mode_quarantines(tmp_path):
    d = copy_task(tmp_path, "klue-nli-v1.1")
    path = d / "klue-nli-v1.1_train.json"
    element_line = line_of(path, '"guid": "klue-nli-v1_train_00001"') - 1  # the "{" line
    edit(path, '"premise": "이 다리는 1900년에 완공되어 한강 최초의 다리가 되었다.",', "")
    with pytest.raises(InputError, match=r"missing field: 'premise'") as e:
        klue.load("nli", "train", tmp_path)
    assert (e.value.path, e.value.line) == (str(path), element_line)
    q = Quarantine(tmp_path / "q.jsonl")
    kept = klue.load("nli", "train", tmp_path, on_error="skip", quarantine=q)
    q.close()
    assert [x.guid for x in kept] == ["klue-nli-v1_train_00000", "klue-nli-v1_train_00002"]
    assert q.counts == {"missing field": 1}
    entry = json.loads((tmp_path / "q.jsonl").read_text(encoding="utf-8"))
    assert entry["line"] == element_line and entry["file"] == str(path)


def test_missing_nested_field_and_wrong_type(tmp_path):
    d = copy_task(tmp_path, "klue-re-v1.1")
    path = d / "klue-re-v1.1_train.json"
    edit(path, '"start_idx": 0,', "")
    with pytest.raises(InputError, match=r"missing field: 'subject_entity.start_idx'"):
        klue.load("re", "train", tmp_path)
    edit(path, '"source": "policy_briefing"', '"source": 7')
    with Quarantine(tmp_path / "q.jsonl") as q:
        kept = klue.load("re", "train", tmp_path, on_error="skip", quarantine=q)
    assert [x.guid for x in kept] == ["klue-re-v1_train_00001"]
    assert q.counts == {"missing field": 1, "wrong type": 1}
    entries = [json.loads(x) for x in (tmp_path / "q.jsonl").read_text().splitlines()]
    assert entries[1]["reason"] == "wrong type: field 'source' is int"
    assert entries[1]["line"] == line_of(path, '"guid": "klue-re-v1_train_00002"') - 1


def test_re_end_idx_off_by_one_is_caught(tmp_path):
    d = copy_task(tmp_path, "klue-re-v1.1")
    edit(d / "klue-re-v1.1_train.json", '"end_idx": 14,', '"end_idx": 13,')  # "이도윤" at 12..14
    with pytest.raises(InputError, match=r"end_idx is inclusive"):
        klue.load("re", "train", tmp_path)


def test_re_label_outside_relation_list(tmp_path):
    d = copy_task(tmp_path, "klue-re-v1.1")
    edit(d / "klue-re-v1.1_train.json", '"label": "no_relation"', '"label": "per:hobby"')
    with pytest.raises(InputError, match=r"unknown label: 'per:hobby'"):
        klue.load("re", "train", tmp_path)


def test_unknown_gold_label(tmp_path):
    d = copy_task(tmp_path, "klue-nli-v1.1")
    edit(d / "klue-nli-v1.1_dev.json", '"gold_label": "entailment"', '"gold_label": "maybe"')
    with pytest.raises(InputError, match=r"unknown label: gold_label 'maybe'"):
        klue.load("nli", "dev", tmp_path)


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"", "empty file"),
        (b"  \n\n", "empty file"),
        (b'{"guid": "x"}', "wrong type: expected a JSON array"),
        (b'[\n  {"guid": "a",\n', "malformed JSON"),
        (b"[] []", "extra data after the array"),
        (b"[\n  42\n]", "wrong type: expected a JSON object"),
        (b'[{"guid": "a\x00"}]', "NUL byte"),
        (b'[{"guid": "\xff"}]', "invalid UTF-8"),
    ],
)
def test_bad_json_files(tmp_path, content, reason):
    d = tmp_path / "klue-sts-v1.1"
    d.mkdir()
    (d / "klue-sts-v1.1_train.json").write_bytes(content)
    with pytest.raises(InputError, match=reason) as e:
        klue.load("sts", "train", tmp_path)
    assert e.value.path.endswith("klue-sts-v1.1_train.json")


def test_mrc_errors_name_the_json_path(tmp_path):
    d = copy_task(tmp_path, "klue-mrc-v1.1")
    path = d / "klue-mrc-v1.1_train.json"
    obj = json.loads(path.read_text(encoding="utf-8"))
    del obj["data"][1]["paragraphs"][0]["qas"][0]["question_type"]
    obj["data"][0]["paragraphs"][0]["qas"][2]["answers"] = [{"text": "x", "answer_start": 0}]
    path.write_text(json.dumps(obj, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(InputError, match=r"data\[0\]\.paragraphs\[0\]\.qas\[2\] is_impossible"):
        klue.load("mrc", "train", tmp_path)
    q = Quarantine()
    kept = klue.load("mrc", "train", tmp_path, on_error="skip", quarantine=q)
    assert [x.guid[-1] for x in kept] == ["0", "1", "4"]
    assert q.counts == {"bad value": 1, "missing field": 1}


def test_wos_user_turn_without_state_and_bad_state_item(tmp_path):
    d = copy_task(tmp_path, "wos-v1.1")
    path = d / "wos-v1.1_dev.json"
    obj = json.loads(path.read_text(encoding="utf-8"))
    obj[0]["dialogue"][2]["state"] = ["관광-지역"]
    path.write_text(json.dumps(obj, ensure_ascii=False, indent=4), encoding="utf-8")
    with pytest.raises(InputError, match=r"wos-v1.1_dev.json:2: bad value: dialogue\[2\]"):
        klue.load("wos", "dev", tmp_path)
    del obj[0]["dialogue"][2]["state"]
    path.write_text(json.dumps(obj, ensure_ascii=False, indent=4), encoding="utf-8")
    with pytest.raises(InputError, match=r"missing field: 'dialogue\[2\].state' \(user turn\)"):
        klue.load("wos", "dev", tmp_path)


def test_bad_ontology_and_relation_list(tmp_path):
    d = copy_task(tmp_path, "wos-v1.1")
    (d / "ontology.json").write_text('{"식당가격대": ["none"]}', encoding="utf-8")
    with pytest.raises(InputError, match="slot name"):
        klue.ontology(tmp_path)
    r = copy_task(tmp_path, "klue-re-v1.1")
    (r / "relation_list.json").write_text('{"relations": ["per:title", "no_relation"]}')
    with pytest.raises(InputError, match="first relation"):
        klue.relations(tmp_path)


# --- TSV tasks ----------------------------------------------------------------------------


def test_ner_wrong_columns_names_line_and_skip_drops_only_that_sentence(tmp_path):
    d = copy_task(tmp_path, "klue-ner-v1.1")
    path = d / "klue-ner-v1.1_train.tsv"
    edit(path, "김\tB-PS", "김\tB-PS\textra")
    bad_line = line_of(path, "김\tB-PS\textra")
    with pytest.raises(InputError) as e:
        klue.load("ner", "train", tmp_path)
    assert (e.value.path, e.value.line) == (str(path), bad_line)
    assert "wrong columns: expected 2" in e.value.reason
    q = Quarantine()
    kept = klue.load("ner", "train", tmp_path, on_error="skip", quarantine=q)
    assert [s.guid for s in kept] == [
        "klue-ner-v1_train_00001_nsmc",
        "klue-ner-v1_train_00002_nsmc",
    ]
    assert q.counts == {"wrong columns": 1, "dropped sentence": 1}


def test_ner_invalid_utf8_row_drops_its_sentence_in_skip_mode(tmp_path):
    d = copy_task(tmp_path, "klue-ner-v1.1")
    path = d / "klue-ner-v1.1_train.tsv"
    data = path.read_bytes().replace("봤\tO".encode(), b"\xff\tO")
    path.write_bytes(data)
    with pytest.raises(InputError, match="invalid UTF-8"):
        klue.load("ner", "train", tmp_path)
    q = Quarantine()
    kept = klue.load("ner", "train", tmp_path, on_error="skip", quarantine=q)
    # the sentence lost a character row, so all of it goes (never misaligned tags)
    assert [s.guid for s in kept] == [
        "klue-ner-v1_train_00000_wikitree",
        "klue-ner-v1_train_00002_nsmc",
    ]
    assert q.counts == {"invalid UTF-8": 1, "dropped sentence": 1}


def test_ner_unknown_tag_multi_char_row_and_row_outside_sentence(tmp_path):
    d = copy_task(tmp_path, "klue-ner-v1.1")
    path = d / "klue-ner-v1.1_train.tsv"
    original = path.read_bytes()
    edit(path, "서\tB-LC", "서\tB-XX")
    with pytest.raises(InputError, match="unknown label: NER tag 'B-XX'"):
        klue.load("ner", "train", tmp_path)
    path.write_bytes(original)
    edit(path, "서\tB-LC", "서울\tB-LC")
    with pytest.raises(InputError, match="is not one character"):
        klue.load("ner", "train", tmp_path)
    path.write_bytes(original)
    edit(
        path, "## klue-ner-v1_train_00000_wikitree", "가\tO\r\n## klue-ner-v1_train_00000_wikitree"
    )
    with pytest.raises(InputError, match="row outside a sentence"):
        klue.load("ner", "train", tmp_path)


def test_dp_wrong_columns_and_bad_index(tmp_path):
    d = copy_task(tmp_path, "klue-dp-v1.1")
    path = d / "klue-dp-v1.1_train.tsv"
    original = path.read_bytes()
    edit(
        path,
        "2\t깨끗해요.\t깨끗 하 어요 .\tXR+XSA+EF+SF\t0\tVP",
        "2\t깨끗해요.\tXR+XSA+EF+SF\t0\tVP",
    )
    with pytest.raises(InputError, match="wrong columns: expected 6") as e:
        klue.load("dp", "train", tmp_path)
    assert e.value.line == line_of(path, "2\t깨끗해요.\tXR")
    q = Quarantine()
    assert [s.guid for s in klue.load("dp", "train", tmp_path, on_error="skip", quarantine=q)] == [
        "klue-dp-v1_train_00000_wikitree"
    ]
    path.write_bytes(original)
    edit(path, "2\t작년보다", "3\t작년보다")
    with pytest.raises(InputError, match="INDEX 3, expected 2"):
        klue.load("dp", "train", tmp_path)
    path.write_bytes(original)
    edit(path, "\t4\tNP_SBJ", "\t9\tNP_SBJ")
    with pytest.raises(InputError, match="HEAD 9 outside 0..4"):
        klue.load("dp", "train", tmp_path)


def test_empty_tsv_and_header_without_rows(tmp_path):
    d = tmp_path / "klue-dp-v1.1"
    d.mkdir()
    path = d / "klue-dp-v1.1_train.tsv"
    path.write_bytes(b"")
    with pytest.raises(InputError, match="empty file"):
        klue.load("dp", "train", tmp_path)
    path.write_text("## klue-dp-v1_train_00000_x\t문장.\n\n", encoding="utf-8")
    with pytest.raises(InputError, match="empty sentence"):
        klue.load("dp", "train", tmp_path)


def test_dacon_wrong_columns(tmp_path):
    d = tmp_path / "ynat-v1.1-dacon"
    d.mkdir()
    (d / "topic_dict.csv").write_text("topic,topic_idx\nIT과학,0\n", encoding="utf-8")
    (d / "train_data.csv").write_text("index,text,label\n0,제목,0\n", encoding="utf-8")
    with pytest.raises(InputError, match="wrong columns: expected index,title,topic_idx") as e:
        klue.load("ynat", "train", tmp_path)
    assert e.value.line == 1 and e.value.path.endswith("train_data.csv")
    (d / "train_data.csv").write_text(
        "index,title,topic_idx\n0,제목\n1,제목2,0\n", encoding="utf-8"
    )
    with pytest.raises(InputError, match=r"train_data.csv:2: wrong columns: expected 3 fields"):
        klue.load("ynat", "train", tmp_path)


# --- compressed files ---------------------------------------------------------------------


def test_truncated_gzip_split(tmp_path):
    d = tmp_path / "klue-ner-v1.1"
    d.mkdir()
    data = gzip.compress((FIXTURES / "klue-ner-v1.1" / "klue-ner-v1.1_train.tsv").read_bytes())
    (d / "klue-ner-v1.1_train.tsv.gz").write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError, match="corrupt or truncated") as e:
        klue.load("ner", "train", tmp_path)
    assert e.value.path.endswith("klue-ner-v1.1_train.tsv.gz")
    s = tmp_path / "klue-sts-v1.1"
    s.mkdir()
    data = gzip.compress((FIXTURES / "klue-sts-v1.1" / "klue-sts-v1.1_train.json").read_bytes())
    (s / "klue-sts-v1.1_train.json.gz").write_bytes(data[:-10])
    with pytest.raises(InputError, match="corrupt or truncated"):
        klue.load("sts", "train", tmp_path)


def test_truncated_and_empty_tar_gz(tmp_path):
    src = copy_task(tmp_path / "src", "klue-nli-v1.1")
    archive = tmp_path / "klue-nli-v1.1.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(src, arcname="klue-nli-v1.1")
    data = archive.read_bytes()
    archive.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError, match="corrupt or truncated archive") as e:
        klue.load("nli", "train", tmp_path)
    assert str(archive) in str(e.value)
    with pytest.raises(InputError, match="corrupt or truncated archive"):
        klue.available_splits(tmp_path)
    archive.write_bytes(b"")
    with pytest.raises(InputError, match="corrupt or truncated archive"):
        klue.load("nli", "train", tmp_path)
