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
