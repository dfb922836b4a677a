"""Raw-corpus readers and checked text I/O: formats, ids, and every kind of bad input."""

from __future__ import annotations

import gzip
import json

import pytest
import zstandard

from corpus import records as records_module
from corpus.readers import detect_format, expand_inputs, iter_records
from corpus.records import CorpusRecord, RecordWriter, read_records
from corpus.textio import InputError, Quarantine, iter_lines, load_json

WIKI = (
    '<doc id="7" url="https://ko.wikipedia.org/wiki?curid=7" title="한국어">\n'
    "한국어\n\n한국어는 대한민국의 공용어이다. 조선어라고도 한다.\n\n두 번째 문단.\n</doc>\n"
    '<doc id="9" url="u" title="빈 문서">\n빈 문서\n</doc>\n'
)


def test_plain_text_ids_are_file_and_line(tmp_path):
    p = tmp_path / "src" / "a.txt"
    p.parent.mkdir()
    p.write_text("첫 줄\n\n셋째 줄\r\n")
    recs = list(iter_records(p))
    assert [r.id for r in recs] == ["src/a.txt:1", "src/a.txt:3"]
    assert [r.text for r in recs] == ["첫 줄", "셋째 줄"]
    assert recs[0].source == "src"


def test_compressed_inputs_read_the_same(tmp_path):
    body = "가나다\n라마바\n".encode()
    (tmp_path / "a.txt.gz").write_bytes(gzip.compress(body))
    (tmp_path / "b.txt.zst").write_bytes(zstandard.ZstdCompressor().compress(body))
    for name in ("a.txt.gz", "b.txt.zst"):
        assert [r.text for r in iter_records(tmp_path / name)] == ["가나다", "라마바"]
        assert iter_records(tmp_path / name).__next__().id.endswith(name.split(".")[0] + ".txt:1")


def test_wikiextractor_one_record_per_article(tmp_path):
    p = tmp_path / "wiki_00"
    p.write_text(WIKI)
    assert detect_format(p) == "wikiextractor"
    recs = list(iter_records(p))
    assert len(recs) == 1  # the empty article is skipped (counted), not an error
    assert recs[0].id == "wiki-7" and recs[0].extra["title"] == "한국어"
    assert recs[0].text == "한국어는 대한민국의 공용어이다. 조선어라고도 한다.\n두 번째 문단."


def test_wikiextractor_unclosed_doc_is_an_error(tmp_path):
    p = tmp_path / "wiki_01"
    p.write_text(WIKI.rsplit("</doc>", 1)[0])
    with pytest.raises(InputError, match=r"wiki_01:8: truncated"):
        list(iter_records(p))


def test_petitions_and_generic_jsonl(tmp_path):
    p = tmp_path / "petitions_2019-01"
    row = {"category": "기타", "content": "본문입니다.", "petition_idx": "123", "title": "제목"}
    p.write_text(json.dumps(row, ensure_ascii=False) + "\n")
    assert detect_format(p) == "petitions"
    (rec,) = iter_records(p)
    assert rec.id == "petition-123" and rec.text == "본문입니다." and rec.extra["title"] == "제목"
    q = tmp_path / "reviews.jsonl"
    q.write_text(json.dumps({"review": "재밌다", "rating": "10"}, ensure_ascii=False) + "\n")
    (rec,) = iter_records(q)
    assert (
        rec.text == "재밌다"
        and rec.extra == {"rating": "10"}
        and rec.id == f"{tmp_path.name}/reviews.jsonl:1"
    )


def test_corpus_records_round_trip_keep_extra_fields(tmp_path):
    recs = [CorpusRecord("a-1", "문장 하나", "wiki", {"doc_id": "a", "n": 3})]
    with RecordWriter(tmp_path / "r.jsonl.gz") as w:
        for r in recs:
            w.write(r)
    assert list(read_records(tmp_path / "r.jsonl.gz")) == recs
    assert list(iter_records(tmp_path / "r.jsonl.gz")) == recs


def test_gzip_output_is_byte_deterministic(tmp_path):
    for name in ("x.jsonl.gz", "y.jsonl.gz"):
        with RecordWriter(tmp_path / name) as w:
            w.write(CorpusRecord("1", "같은 내용", "s"))
    assert (tmp_path / "x.jsonl.gz").read_bytes() == (tmp_path / "y.jsonl.gz").read_bytes()


def test_buffered_gzip_writes_the_same_stream_as_one_write(tmp_path):
    """Lines gathered into 64 KiB writes (several buffers here, one record larger than a
    buffer) give the file one write of the whole text at `GZIP_LEVEL` gives, and each line
    is the record's compact JSON."""
    recs = [CorpusRecord(f"r{i}", "한국어 문장 " * (i % 40), "s", {"n": i}) for i in range(3000)]
    recs.insert(7, CorpusRecord("big", "긴" * 40000, "s"))
    with RecordWriter(tmp_path / "r.jsonl.gz") as w:
        for r in recs:
            w.write(r)
    text = "".join(
        json.dumps(r.to_dict(), ensure_ascii=False, separators=(",", ":")) + "\n" for r in recs
    ).encode("utf-8")
    assert len(text) > 8 * records_module._WRITE_BUFFER
    with open(tmp_path / "one.gz", "wb") as raw:
        level = records_module.GZIP_LEVEL
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=level) as gz:
            gz.write(text)
    assert (tmp_path / "r.jsonl.gz").read_bytes() == (tmp_path / "one.gz").read_bytes()
    assert gzip.decompress((tmp_path / "r.jsonl.gz").read_bytes()) == text
    assert list(read_records(tmp_path / "r.jsonl.gz")) == recs


def test_csv_and_tsv_by_column(tmp_path):
    c = tmp_path / "qa.csv"
    c.write_text('Q,A,label\n"안녕, 반가워",네,0\n"여러\n줄",응,1\n')
    recs = list(iter_records(c, column="Q"))
    assert [r.text for r in recs] == ["안녕, 반가워", "여러\n줄"]
    assert [r.id.split(":")[1] for r in recs] == ["2", "3"]
    t = tmp_path / "x.tsv"
    t.write_text('text\tlabel\n"따옴표" 그대로\t1\n')
    assert [r.text for r in iter_records(t, column="text")] == ['"따옴표" 그대로']


def test_without_column_the_usual_text_column_is_taken_or_the_header_listed(tmp_path):
    t = tmp_path / "ratings_train.txt"  # NSMC's file: a TSV of id, document, label
    t.write_text("id\tdocument\tlabel\n1\t재밌다\t1\n2\t별로\t0\n", encoding="utf-8")
    assert detect_format(t) == "tsv"  # by its header, whatever the suffix
    recs = list(iter_records(t))
    assert [r.text for r in recs] == ["재밌다", "별로"] and recs[0].extra == {
        "id": "1",
        "label": "1",
    }
    k = tmp_path / "aihub.csv"
    k.write_text('번호,본문,분류\n1,"첫 문장, 쉼표",가\n', encoding="utf-8")
    assert [r.text for r in iter_records(k)] == ["첫 문장, 쉼표"]
    c = tmp_path / "qa.csv"
    c.write_text("Q,A,label\n안녕,네,0\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"needs --column .*first line's 3 fields name no usual"):
        list(iter_records(c))
    assert [r.text for r in iter_records(c, column="A")] == ["네"]  # a named column still wins
    prose = tmp_path / "prose.txt"  # tabs in text, no header of a text column: still text
    prose.write_text("제목\t본문 아님\n둘째\t줄\n", encoding="utf-8")
    notes = tmp_path / "notes.txt"  # a header-like first line, a second of other width
    notes.write_text("text\tlabel\n그냥 문장이다\n", encoding="utf-8")
    assert detect_format(prose) == "text" and detect_format(notes) == "text"


def test_tsv_wrong_columns(tmp_path):
    t = tmp_path / "x.tsv"
    t.write_text("text\tlabel\n좋다\t1\n나쁘다\n")
    with pytest.raises(InputError, match=r"x.tsv:3: wrong columns"):
        list(iter_records(t, column="text"))
    with pytest.raises(InputError, match="no column 'body' in the first line's 2 fields"):
        list(iter_records(t, column="body"))
    q = Quarantine()
    assert len(list(iter_records(t, column="text", on_error="skip", quarantine=q))) == 1
    assert q.counts == {"wrong columns": 1}


@pytest.mark.parametrize(
    "payload, reason",
    [
        (b"ok\n\xc3\x28 broken\nok\n", r":2: invalid UTF-8"),
        (b"ok\nnul\x00here\n", r":2: NUL byte"),
    ],
)
def test_bad_bytes_raise_with_file_and_line_or_quarantine(tmp_path, payload, reason):
    p = tmp_path / "bad.txt"
    p.write_bytes(payload)
    with pytest.raises(InputError, match=reason):
        list(iter_records(p))
    with Quarantine(tmp_path / "q.jsonl") as q:
        recs = list(iter_records(p, on_error="skip", quarantine=q))
    assert q.total == 1 and all(r.text.startswith("ok") for r in recs)
    entry = json.loads((tmp_path / "q.jsonl").read_text())
    assert entry["line"] == 2 and "sha256" in entry and "text" not in entry


def test_huge_line_is_bounded(tmp_path):
    p = tmp_path / "huge.txt"
    with open(p, "wb") as fh:
        fh.write(b"first\n" + b"a" * (20 * 1024 * 1024) + b"\nlast\n")
    with pytest.raises(InputError, match=r"huge.txt:2: line too long"):
        list(iter_records(p))
    q = Quarantine()
    assert [r.text for r in iter_records(p, on_error="skip", quarantine=q)] == ["first", "last"]
    assert q.counts == {"line too long": 1}


def test_truncated_gzip_raises_or_quarantines_the_rest(tmp_path):
    data = gzip.compress("".join(f"문장 {i}\n" for i in range(20000)).encode())
    p = tmp_path / "cut.txt.gz"
    p.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError, match=r"cut.txt.gz:\d+: corrupt or truncated") as e:
        list(iter_records(p, on_error="raise"))
    assert "lines read" in str(e.value)
    # skip mode: the lines before the break are kept, the rest is one counted entry
    q = Quarantine(tmp_path / "q.jsonl")
    texts = [r.text for r in iter_records(p, on_error="skip", quarantine=q)]
    q.close()
    assert 0 < len(texts) < 20000
    assert texts == [f"문장 {i}" for i in range(len(texts))]  # no partial last line
    assert q.counts == {"truncated archive": 1}
    entry = json.loads((tmp_path / "q.jsonl").read_text())
    assert entry["line"] == len(texts) + 1 and f"({len(texts)} lines read)" in entry["reason"]


def test_empty_file_gives_no_records_and_empty_json_is_an_error(tmp_path):
    p = tmp_path / "empty.txt"
    p.write_bytes(b"")
    assert list(iter_records(p)) == []
    assert list(iter_lines(p)) == []
    j = tmp_path / "empty.json"
    j.write_bytes(b"")
    with pytest.raises(InputError, match="empty.json: empty file"):
        load_json(j)


def test_missing_field_and_malformed_json(tmp_path):
    p = tmp_path / "recs.jsonl"
    p.write_text('{"id": "1", "text": "a", "source": "s"}\n{"id": "2", "source": "s"}\n{"id": \n')
    with pytest.raises(InputError, match=r"recs.jsonl:2: missing field: 'text'"):
        list(read_records(p))
    q = Quarantine()
    assert [r.id for r in read_records(p, on_error="skip", quarantine=q)] == ["1"]
    assert q.counts == {"missing field": 1, "malformed JSON": 1}
    p.write_text('{"id": "1", "text": "a", "source": "s"}\n{"id": \n')
    with pytest.raises(InputError, match=r"recs.jsonl:2: malformed JSON"):
        list(iter_records(p))


def test_expand_inputs_sorted_and_missing(tmp_path):
    (tmp_path / "d" / "sub").mkdir(parents=True)
    for name in ("d/b.txt", "d/a.txt", "d/sub/c.txt", "d/README.md", "d/.hidden"):
        (tmp_path / name).write_text("x\n")
    got = expand_inputs([tmp_path / "d"])
    assert [p.split("/d/")[1] for p in got] == ["a.txt", "b.txt", "sub/c.txt"]
    with pytest.raises(FileNotFoundError):
        expand_inputs([tmp_path / "nope"])


def test_real_corpus_sources_read(data_dir):
    corpus = data_dir / "corpus"
    wiki = list(iter_records(corpus / "kowiki" / "AA" / "wiki_00"))
    assert len(wiki) > 100 and len({r.id for r in wiki}) == len(wiki)
    pet = list(iter_records(corpus / "petitions" / "petitions_2017-08"))
    assert len(pet) == 662
    chat = list(iter_records(corpus / "chatbot-data" / "ChatbotData.csv", column="Q"))
    assert len(chat) == 11823


def test_stage_folder_gives_only_its_kept_shards(tmp_path):
    stage = tmp_path / "records"
    (stage / "removed").mkdir(parents=True)
    for name in ("shard-00001.jsonl.gz", "shard-00000.jsonl.gz", "removed/shard-00000.jsonl.gz"):
        with RecordWriter(stage / name) as w:
            w.write(CorpusRecord(name, "문장", "s"))
    (stage / "stats.json").write_text("{}")
    (stage / ".run.json").write_text("{}")
    with pytest.raises(FileNotFoundError, match="unfinished stage run"):
        expand_inputs([stage])
    (stage / "manifest.json").write_text("{}")
    got = expand_inputs([stage])
    assert [p.rsplit("/", 1)[1] for p in got] == ["shard-00000.jsonl.gz", "shard-00001.jsonl.gz"]


def test_a_wikipedia_xml_dump_says_to_extract_it_first(tmp_path):
    """kowiki-latest-pages-articles.xml.bz2 as given: read as text, every line of XML and
    wikitext would have been a record; it is one error saying what to run instead."""
    import bz2

    xml = (
        '<?xml version="1.0"?>\n<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/">\n'
        "<page><title>지미 카터</title><ns>0</ns><revision><text>'''카터'''는 [[미국]]의 "
        "대통령이다.</text></revision></page>\n</mediawiki>\n"
    )
    for name, data in (("a.xml", xml.encode()), ("kowiki.xml.bz2", bz2.compress(xml.encode()))):
        p = tmp_path / name
        p.write_bytes(data)
        assert detect_format(p) == "mediawiki-xml"
        with pytest.raises(InputError, match="MediaWiki XML dump, not its text: .*wikiextractor"):
            list(iter_records(p, on_error="skip"))
    other = tmp_path / "other.xml"
    other.write_text('<?xml version="1.0"?>\n<rss><item>뉴스</item></rss>\n', encoding="utf-8")
    assert detect_format(other) == "text"


def test_detection_edges_found_in_review(tmp_path):
    """JSON Lines whose lines carry a NIKL-like id and a list stay JSON Lines; a header name
    with spaces around it is found by detection and reader alike; an error about a
    headerless CSV never quotes its first row; a comment line that only looks like CoNLL-U
    is text; a non-table given as --format parquet says Parquet."""
    g = tmp_path / "g.jsonl"
    line = '{"id": "DOCS2021000001", "paragraph": ["p1", "p2"], "text": "진짜 본문"}\n'
    g.write_text(line * 2, encoding="utf-8")
    assert detect_format(g) == "jsonl" and [r.text for r in iter_records(g)] == ["진짜 본문"] * 2
    sp = tmp_path / "sp.txt"
    sp.write_text("id\tdocument \tlabel\n1\t좋다\t1\n", encoding="utf-8")
    assert detect_format(sp) == "tsv" and [r.text for r in iter_records(sp)] == ["좋다"]
    c = tmp_path / "comments.csv"
    c.write_text("저는 홍길동이고 번호는 010-1234-5678 입니다,1\n둘째,0\n", encoding="utf-8")
    with pytest.raises(InputError) as e:
        list(iter_records(c))
    assert "홍길동" not in str(e.value) and "first line's 2 fields" in str(e.value)
    with pytest.raises(InputError) as e:
        list(iter_records(c, column="text"))
    assert "홍길동" not in str(e.value)
    note = tmp_path / "note.txt"
    note.write_text("# sent_id is a field of the form\n다음 줄\n", encoding="utf-8")
    assert detect_format(note) == "text"
    with pytest.raises(InputError, match="not a readable Parquet file"):
        list(iter_records(note, fmt="parquet"))


def test_changed_readers_enter_fingerprints_and_only_they(tmp_path):
    """A folder made from a format whose reader changed (CoNLL-U, once read as text) is not
    reused as up to date: the stage's fingerprint and manifest name the reader's version; a
    run over unchanged formats keeps the fingerprint the old formula gave."""
    import hashlib
    import json

    from corpus import executor, prepare
    from corpus.readers import reader_versions

    text = tmp_path / "in" / "a.txt"
    text.parent.mkdir()
    text.write_text("첫 문장이다.\n", encoding="utf-8")
    tree = tmp_path / "ud" / "x.conllu"
    tree.parent.mkdir()
    tree.write_text("# sent_id = 1\n# text = 좋다.\n1\t좋다.\t_\t_\t_\t_\t0\troot\t_\t_\n\n")
    assert reader_versions([str(text)]) == {} and reader_versions([str(tree)]) == {"conllu": 1}
    runs = {}
    for name, src in (("t", text), ("c", tree)):
        out = tmp_path / f"out-{name}"
        prepare.main(["--input", str(src), "--output", str(out), "--workers", "1"])
        runs[name] = json.loads((out / "manifest.json").read_text())
    assert "readers" not in runs["t"] and runs["c"]["readers"] == {"conllu": 1}
    m = runs["t"]
    old = {"stage": m["stage"], "version": m["version"], "config": m["config"],
           "inputs": m["inputs"]}  # fmt: skip
    blob = json.dumps(old, sort_keys=True, ensure_ascii=False).encode()
    assert m["fingerprint"] == hashlib.sha256(blob).hexdigest()
    assert executor._fingerprint("s", {}, [], {"conllu": 1}) != executor._fingerprint(
        "s", {}, [], {}
    )


def test_several_columns_make_one_record_of_lines(tmp_path, data_dir):
    """``--column Q,A``: a question and its answer (or a premise and its hypothesis) as one
    record, one line each, so the pair stays one document; by index on a headerless file;
    a header name that itself holds a comma is taken whole; a blank cell adds no line.
    On the shared ChatbotData.csv and KorNLI's dev set (real files)."""
    c = tmp_path / "qa.csv"
    c.write_text('Q,A,"a,b",label\n안녕?,반가워.,x,0\n뭐 해?,,y,1\n', encoding="utf-8")
    recs = list(iter_records(c, column="Q,A"))
    assert [r.text for r in recs] == ["안녕?\n반가워.", "뭐 해?"]
    assert recs[0].extra == {"a,b": "x", "label": "0"}
    assert [r.text for r in iter_records(c, column="a,b")] == ["x", "y"]
    bare = tmp_path / "bare.tsv"
    bare.write_text("1\t첫째\t둘째\n2\t셋째\t넷째\n", encoding="utf-8")
    assert [r.text for r in iter_records(bare, column="2,1")] == ["둘째\n첫째", "넷째\n셋째"]
    with pytest.raises(InputError, match="no column 'B' in the first line's 4 fields"):
        list(iter_records(c, column="Q,B"))
    chat = list(iter_records(data_dir / "corpus" / "chatbot-data" / "ChatbotData.csv",
                             column="Q,A"))  # fmt: skip
    assert len(chat) == 11823 and all(r.text.count("\n") == 1 for r in chat)
    nli = data_dir / "corpus" / "kornlu" / "KorNLI" / "xnli.dev.ko.tsv"
    pairs = list(iter_records(nli, column="sentence1,sentence2"))
    assert len(pairs) > 2000 and set(pairs[0].extra) == {"gold_label"}
