"""CoNLL-U treebanks (the shared data's UD Korean GSD, Kaist and PUD) read as a record per
sentence: they used to be read as plain text, every token row and comment a "sentence"."""

from __future__ import annotations

import pytest

from corpus import prepare
from corpus.readers import ReadOptions, detect_format, iter_records
from corpus.textio import InputError, Quarantine
from tests.stage_outputs import shard_records

#: Written for the tests: a multiword token (1-2) over two words, an empty node (3.1), a
#: sentence without ``# text`` (rebuilt from its rows and SpaceAfter=No), two documents.
TREEBANK = """\
# newdoc id = doc-a
# sent_id = s1
# text = 나는 밥을 먹었다.
1-2\t나는\t_\t_\t_\t_\t_\t_\t_\t_
1\t나\t나\tPRON\tNP\t_\t4\tnsubj\t_\t_
2\t는\t는\tADP\tJX\t_\t1\tcase\t_\t_
3\t밥을\t밥+을\tNOUN\tNNG+JKO\t_\t4\tobj\t_\t_
3.1\t먹\t_\t_\t_\t_\t_\t_\t4:ref\t_
4\t먹었다\t먹+었+다\tVERB\tVV+EP+EF\t_\t0\troot\t_\tSpaceAfter=No
5\t.\t.\tPUNCT\tSF\t_\t4\tpunct\t_\t_

# sent_id = s2
# translit = (left out)
1-2\t나는\t_\t_\t_\t_\t_\t_\t_\t_
1\t나\t나\tPRON\tNP\t_\t3\tnsubj\t_\t_
2\t는\t는\tADP\tJX\t_\t1\tcase\t_\t_
3\t웃었다\t웃+었+다\tVERB\tVV+EP+EF\t_\t0\troot\t_\tSpaceAfter=No
4\t!\t!\tPUNCT\tSF\t_\t3\tpunct\t_\t_

# newdoc id = doc-b
# sent_id = s3
# text = 다른 문서다.
1\t다른\t다르+ㄴ\tADJ\tVA+ETM\t_\t2\tamod\t_\t_
2\t문서다\t문서+이+다\tNOUN\tNNG+VCP+EF\t_\t0\troot\t_\tSpaceAfter=No
3\t.\t.\tPUNCT\tSF\t_\t2\tpunct\t_\t_
"""


def _write(tmp_path, text: str, name: str = "ko_test-ud-dev.conllu"):
    p = tmp_path / "ud" / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    return p


def test_a_record_per_sentence_with_its_document(tmp_path):
    p = _write(tmp_path, TREEBANK)
    assert detect_format(p) == "conllu"
    recs = list(iter_records(p))
    assert [(r.id, r.text, r.extra) for r in recs] == [
        ("ud/ko_test-ud-dev.conllu:s1", "나는 밥을 먹었다.", {"doc_id": "doc-a"}),
        ("ud/ko_test-ud-dev.conllu:s2", "나는 웃었다!", {"doc_id": "doc-a"}),
        ("ud/ko_test-ud-dev.conllu:s3", "다른 문서다.", {"doc_id": "doc-b"}),
    ]
    bare = _write(tmp_path, TREEBANK, "treebank.txt")  # no suffix: its first line tells
    assert detect_format(bare) == "conllu"


def test_a_bad_row_is_named_and_its_sentence_kept_in_skip_mode(tmp_path):
    p = _write(tmp_path, TREEBANK.replace("3\t밥을\t밥+을", "3 밥을 밥+을"))
    with pytest.raises(InputError, match=r"ko_test-ud-dev\.conllu:7: wrong columns"):
        list(iter_records(p))
    q = Quarantine()
    recs = list(iter_records(p, on_error="skip", quarantine=q))
    assert [r.text for r in recs][0] == "나는 밥을 먹었다." and len(recs) == 3
    assert q.counts == {"wrong columns": 1}
    empty = _write(tmp_path, "# sent_id = e1\n# text =\n\n", "empty.conllu")
    opts = ReadOptions()
    assert list(iter_records(empty, options=opts)) == []
    assert opts.skipped == {"empty_sentence": 1}


def test_rebuilt_sentences_equal_the_treebanks_own_text(data_dir, tmp_path):
    """On the shared UD Korean GSD dev set (950 sentences, real text): with its ``# text``
    lines removed, every sentence rebuilt from the rows and SpaceAfter=No is the one the
    treebank states, and none is a token row."""
    src = data_dir / "corpus" / "ud-korean-gsd" / "ko_gsd-ud-dev.conllu"
    want = [r.text for r in iter_records(src)]
    lines = src.read_text("utf-8").splitlines(keepends=True)
    bare = _write(tmp_path, "".join(x for x in lines if not x.startswith("# text =")))
    assert [r.text for r in iter_records(bare)] == want and len(want) == 950
    assert not any("\t" in t or t.startswith("#") for t in want)


def test_prepare_reads_a_treebank_into_sentences(tmp_path):
    out = tmp_path / "records"
    prepare.main(["--input", str(_write(tmp_path, TREEBANK)), "--output", str(out),
                  "--workers", "1"])  # fmt: skip
    recs = shard_records(out)
    assert [r["text"] for r in recs] == ["나는 밥을 먹었다.", "나는 웃었다!", "다른 문서다."]
    assert [r["doc_id"] for r in recs][-1] == "doc-b"


def test_an_empty_text_comment_falls_back_to_the_words(tmp_path):
    p = _write(
        tmp_path, "# sent_id = e1\n# text =\n1\t좋다\t좋+다\tADJ\tVA+EF\t_\t0\troot\t_\t_\n\n"
    )
    assert [r.text for r in iter_records(p)] == ["좋다"]
