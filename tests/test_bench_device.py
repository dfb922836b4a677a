"""`python -m bench.device`: the runner keeps going past failures and timeouts, and ``--smoke``
runs every phase on CPU and writes both results files."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from bench.device import report as device_report
from bench.device import runner as device


def _child(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_child_ok_failed_and_timeout_are_recorded_with_partial_rows(tmp_path):
    ok = tmp_path / "phase-a.json"
    code = f"import json; open({str(ok)!r}, 'w').write(json.dumps({{'result': {{'x': 1}}}}))"
    assert device.run_child(_child(code), 20, ok) == {
        "seconds": pytest.approx(0, abs=20),
        "status": "ok",
        "result": {"x": 1},
    }

    bad = tmp_path / "phase-b.json"
    code = (
        f"import json, sys; open({str(bad)!r}, 'w').write(json.dumps({{'result': {{'rows': [1]}},"
        f" 'error': 'ValueError: boom'}})); print('last words'); sys.exit(1)"
    )
    entry = device.run_child(_child(code), 20, bad)
    assert entry["status"] == "failed" and entry["error"] == "ValueError: boom"
    assert entry["result"] == {"rows": [1]} and entry["log_tail"] == ["last words"]

    slow = tmp_path / "phase-c.json"
    code = (
        f"import json, time; open({str(slow)!r}, 'w').write(json.dumps({{'result': {{'rows': "
        f"['kept']}}}})); time.sleep(60)"
    )
    t0 = time.time()
    entry = device.run_child(_child(code), 1.5, slow)
    assert time.time() - t0 < 15  # killed at its budget, not after the sleep
    assert entry["status"] == "timeout" and entry["result"] == {"rows": ["kept"]}


def test_run_all_skips_phases_without_time_and_goes_on_after_a_failure(tmp_path, monkeypatch):
    calls = []

    def fake_in_process(ctx):
        calls.append(ctx.name)
        if ctx.name == "mfu":
            return {"status": "failed", "seconds": 0.0, "error": "RuntimeError: no GPU"}
        time.sleep(0.5)
        return {"status": "ok", "seconds": 0.5, "result": {}}

    monkeypatch.setattr(device, "run_in_process", fake_in_process)
    monkeypatch.setattr(device, "write_results", lambda results, out: None)
    monkeypatch.setattr(device, "TOTAL_S", 3.8)  # budgets as given, 3.8 s in all
    args = device.build_parser().parse_args(["--output", str(tmp_path), "--smoke"])
    args.argv, args.isolate, args.bundle, args.total_s = [], False, str(tmp_path), 3.8
    results = device.run_all(args)
    status = {n: e["status"] for n, e in results["phases"].items()}
    assert list(status) == [p.name for p in device.PHASES]  # every phase has its line
    assert calls[:2] == ["env", "mfu"] and status["env"] == "ok" and status["mfu"] == "failed"
    assert status["memory"] == "skipped" and results["phases"]["memory"]["error"] == "no time left"
    assert set(status.values()) == {"ok", "failed", "skipped"}

    monkeypatch.setattr(device, "TOTAL_S", 100.0)
    args.total_s = 100.0
    calls.clear()
    results = device.run_all(args)
    assert calls == [p.name for p in device.PHASES]  # the failed mfu did not stop the rest
    assert [results["phases"][p.name]["status"] for p in device.PHASES[2:]] == ["ok"] * 5


def test_report_renders_partial_and_failed_phases():
    results = {
        "started_at": "2026-12-01T00:00:00Z",
        "command": "python -m bench.device",
        "smoke": False,
        "total_budget_s": 470,
        "phases": {
            "env": {"status": "ok", "seconds": 1, "result": {"device_kind": "NVIDIA H200"}},
            "mfu": {
                "status": "timeout",
                "error": "stopped at its budget of 80 s",
                "result": {"rows": [{"spec": ["bert_base", "xla"], "error": "OOM"}]},
                "log_tail": ["compiling"],
            },
            "finetune": {"status": "failed", "error": "x", "result": {"rows": [{"bad": 1}]}},
        },
    }
    text = device_report.render(results)
    assert "NVIDIA H200" in text and "**timeout**: stopped at its budget of 80 s" in text
    assert "['bert_base', 'xla']: OOM" in text and "compiling" in text
    assert "partial result, not rendered" in text  # a row without its fields does not crash


def test_smoke_runs_every_phase_on_cpu(tmp_path, unoptimised_compilation, monkeypatch):
    monkeypatch.setenv("JAX_PLATFORMS", "cpu")
    out = tmp_path / "dev"
    assert device.main(["--smoke", "--output", str(out)]) == 0
    results = json.loads((out / device.RESULTS).read_text())
    phases = results["phases"]
    assert [n for n in phases] == [p.name for p in device.PHASES]
    assert {n: e["status"] for n, e in phases.items()} == {p.name: "ok" for p in device.PHASES}
    env = phases["env"]["result"]
    assert env["jax_backend"] == "cpu" and env["code_matches_bundle"] is True
    assert env["commit"] and env["packages"]["jax"]
    (row,) = phases["mfu"]["result"]["rows"]
    assert row["attention"] == "fused" and row["tokens_per_s"] > 0
    pre = phases["pretrain"]["result"]
    assert pre["final_step"] == pre["planned_steps"] == 4 and len(pre["loss_curve"]) == 4
    assert "eval/mlm_loss" in pre["held_out"] and Path(pre["random_init"], "config.json").is_file()
    rows = phases["finetune"]["result"]["rows"]
    assert [(r["task"], r["init"]) for r in rows] == [("ynat", "pretrained"), ("nli", "random")]
    assert all(r["scores"][r["metric_key"]] >= 0 for r in rows)
    assert all(r["examples_per_cpu_s"] > 0 for r in phases["loader"]["result"]["rows"])
    assert phases["finetune_step"]["result"]["rows"][0]["speed_ratio"] > 0
    assert phases["memory"]["result"]["rows"][0]["per_example_mib"] > 0
    text = (out / device.MARKDOWN).read_text()
    assert "smoke run" in text and "pretrained vs random" in text
