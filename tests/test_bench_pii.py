"""bench.pii --repeat: every repeat gets a fresh function, the least CPU time is kept."""

from __future__ import annotations

from bench import pii


def test_best_of_repeats_makes_a_fresh_function_each_time_and_keeps_the_least_cpu():
    made = []

    def make():
        made.append(1)
        return lambda text: text.count("가")  # some CPU time, so the rate is defined

    texts = ["가나다 abc " * 20_000] * 3
    best = pii._best(3, make, texts)
    assert len(made) == 3 and best["runs"] == 3 and best["spans"] == 3 * 20_000
    assert pii._best(1, make, texts).get("runs") is None  # one run: the plain row


def test_pii_ab_times_two_commits_alternately_and_reports_their_ratios(tmp_path):
    """`python -m bench.pii_ab`: both commits unpacked and timed on the same text (here one
    commit twice, on a small wikiextractor file), each row with its passes and ratios."""
    from bench import pii_ab

    kowiki = tmp_path / "corpus" / "kowiki" / "AA"
    kowiki.mkdir(parents=True)
    doc = '<doc id="1" url="https://ko.wikipedia.org/wiki?curid=1" title="가">\n가\n\n{}\n</doc>\n'
    body = "홍길동(1990년 3월 5일 ~ )은 서울 강남구 역삼동 622에 산다. 연락처 010-2345-6789. "
    (kowiki / "wiki_00").write_text(doc.format(body * 20), encoding="utf-8")
    out = pii_ab.run(
        pii_ab.argparse.Namespace(
            old="HEAD", new="HEAD", rounds=2, passes=2, mb=0.01, data_dir=str(tmp_path)
        )
    )
    for row in ("detect + replace", "detect only"):
        assert out[row]["passes"] == 4
        assert out[row]["old_min_s"] > 0 and out[row]["new_min_s"] > 0
        assert out[row]["new_median_s"] >= out[row]["new_min_s"] > 0
        assert min(out[row][k] for k in ("ratio_median", "ratio_q25", "ratio_min")) > 0
    assert out["old"] == out["new"] == "HEAD" and "commit" in out["provenance"]
