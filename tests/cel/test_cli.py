"""The ``ceplab`` CLI: JSON shapes of run/compare, exit codes, error messages without tracebacks."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ceplab.workbench import cli

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()

# Figure 1 of the CEL paper (docs/semantics/cel.md#cel-6.1) and phi1 (6.2): [[phi1]] = {1,2} {1,8} {5,8}.
FIG1 = [("H", 2, "hum", 25), ("T", 0, "temp", 45), ("H", 0, "hum", 20), ("H", 1, "hum", 25),
        ("T", 1, "temp", 40), ("T", 0, "temp", 42), ("T", 1, "temp", 25), ("H", 1, "hum", 70),
        ("H", 0, "hum", 18)]
PHI1 = ("(T AS x ; H AS y) FILTER (x.temp > 40 AND y.hum < 25 AND x.id = 0 AND y.id = 0)\n")


@pytest.fixture()
def case(tmp_path):
    q = tmp_path / "phi1.cel"
    q.write_text(PHI1)
    s = tmp_path / "fig1.jsonl"
    s.write_text("".join(json.dumps({"type": t, "time": i, "attrs": {"id": d, a: v}}) + "\n"
                         for i, (t, d, a, v) in enumerate(FIG1)))
    return q, s


def invoke(*args):
    return runner.invoke(cli.app, [str(a) for a in args])


def test_run_engine_json(case):
    q, s = case
    r = invoke("run", "cel", q, s, "--json")
    assert r.exit_code == 0, r.output
    obj = json.loads(r.stdout)
    assert obj["lang"] == "cel" and obj["evaluator"] == "engine"
    assert obj["results"] == [[1, 2], [1, 8], [5, 8]] and obj["count"] == 3
    assert isinstance(obj["seconds"], float) and "T AS x" in obj["query"]


def test_run_oracle_json(case):
    q, s = case
    r = invoke("run", "cel", q, s, "--oracle", "--json")
    assert r.exit_code == 0, r.output
    obj = json.loads(r.stdout)
    assert obj["evaluator"] == "oracle" and obj["results"] == [[1, 2], [1, 8], [5, 8]]


def test_run_oracle_stats(case, tmp_path):
    """``--stats``: the oracle's ground size, grounding and solving time, in JSON and in text; a larger stream
    grounds more; without ``--oracle`` it is a usage error (exit 2)."""
    q, s = case
    r = invoke("run", "cel", q, s, "--oracle", "--stats", "--json")
    assert r.exit_code == 0, r.output
    st = json.loads(r.stdout)["stats"]
    assert st["calls"] >= 1 and st["ground_rules"] > 0 and st["atoms"] > 0
    assert st["ground_size"] == st["ground_rules"] + st["atoms"] and st["ground_seconds"] >= 0
    twice = tmp_path / "twice.jsonl"
    lines = s.read_text().splitlines()
    twice.write_text("".join(json.dumps({**json.loads(x), "time": i}) + "\n" for i, x in enumerate(lines + lines)))
    r2 = invoke("run", "cel", q, twice, "--oracle", "--stats", "--json")
    assert json.loads(r2.stdout)["stats"]["atoms"] > st["atoms"]
    text = invoke("run", "cel", q, s, "--oracle", "--stats")
    assert text.exit_code == 0 and f"ground_size {st['ground_size']}" in text.output
    bad = invoke("run", "cel", q, s, "--stats")
    assert bad.exit_code == 2 and "--oracle" in bad.output


def test_run_text_names_the_engine_path(case):
    q, s = case
    r = invoke("run", "cel", q, s)
    assert r.exit_code == 0, r.output
    assert "engine (" in r.stdout and "3 result(s)" in r.stdout
    assert "at position 8: [1, 8]" in r.stdout


def test_run_strategy_with_set(case, tmp_path):
    q, s = case
    q2 = tmp_path / "last.cel"
    q2.write_text("LAST(" + PHI1.strip() + ")\n")
    r = invoke("run", "cel", q2, s, "--set", "max_scope=global", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["results"] == [[1, 2], [5, 8]]


def test_compare_json(case):
    q, s = case
    r = invoke("compare", "cel", q, s, "--json")
    assert r.exit_code == 0, r.output
    obj = json.loads(r.stdout)
    for k in ("agree", "oracle_only", "engine_only", "oracle_count", "engine_count",
              "oracle_seconds", "engine_seconds"):
        assert k in obj
    assert obj["agree"] is True and obj["oracle_count"] == obj["engine_count"] == 3


def test_compare_text(case):
    q, s = case
    r = invoke("compare", "cel", q, s)
    assert r.exit_code == 0 and r.stdout.startswith("agree: 3 results")


def _no_traceback(r):
    assert "Traceback" not in r.output
    assert r.exception is None or isinstance(r.exception, SystemExit)


def test_malformed_query(case, tmp_path):
    _, s = case
    q = tmp_path / "bad.cel"
    q.write_text("T AS x ;\n  ; H AS y\n")
    r = invoke("compare", "cel", q, s)
    assert r.exit_code == 2
    assert r.stderr.startswith(f"{q}:2:3: "), r.stderr
    _no_traceback(r)


def test_malformed_stream_bad_json(case, tmp_path):
    q, _ = case
    s = tmp_path / "bad.jsonl"
    s.write_text('{"type": "T", "time": 0}\n{"type": "H", "time": 1,, }\n')
    r = invoke("run", "cel", q, s, "--json")
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr.startswith(f"{s}:2:") and "malformed JSON" in r.stderr
    line, col = r.stderr.split(":")[1:3]
    assert int(line) == 2 and int(col) > 1
    _no_traceback(r)


def test_malformed_stream_time_backwards(case, tmp_path):
    q, _ = case
    s = tmp_path / "back.jsonl"
    s.write_text('{"type": "T", "time": 5}\n{"type": "H", "time": 6}\n{"type": "H", "time": 2}\n')
    r = invoke("compare", "cel", q, s, "--json")
    assert r.exit_code == 2
    assert r.stderr.strip() == f"{s}:3:1: time goes backwards: 2 after 6"
    _no_traceback(r)


def test_unknown_set(case):
    q, s = case
    r = invoke("run", "cel", q, s, "--set", "colour=red")
    assert r.exit_code == 2 and "unknown switch 'colour'" in r.stderr and "max_scope" in r.stderr
    r = invoke("compare", "cel", q, s, "--set", "max_scope=sideways")
    assert r.exit_code == 2 and "allowed: same_end, global" in r.stderr
    r = invoke("run", "cel", q, s, "--set", "max_scope")
    assert r.exit_code == 2 and "NAME=VALUE" in r.stderr


def test_unknown_language_and_conflicting_flags(case):
    q, s = case
    r = invoke("run", "klingon", q, s)
    assert r.exit_code == 2 and "unknown language 'klingon'" in r.stderr
    r = invoke("run", "cel", q, s, "--oracle", "--engine")
    assert r.exit_code == 2


def test_missing_file(case, tmp_path):
    q, _ = case
    r = invoke("run", "cel", q, tmp_path / "nope.jsonl")
    assert r.exit_code == 2 and "nope.jsonl" in r.stderr and "cannot read" in r.stderr


def test_spark_commands_need_java(monkeypatch):
    monkeypatch.setattr(cli, "java_available", lambda: False)
    for args in (["fuzz", "cel"], ["verify"]):
        r = invoke(*args)
        assert r.exit_code == 2 and "Java 17" in r.stderr


def test_spark_commands_need_java_17(monkeypatch):
    monkeypatch.setattr(cli, "java_available", lambda: True)
    monkeypatch.setattr(cli, "java_major_version", lambda: 11)
    r = invoke("fuzz", "cel")
    assert r.exit_code == 2 and "Java 11" in r.stderr and "17" in r.stderr


def test_bench_delegates(monkeypatch):
    import ceplab.workbench.bench as B

    seen = {}

    def fake_run(benchmarks, name, request):
        assert all(isinstance(b, B.Benchmark) and b.name == k for k, b in benchmarks.items())
        seen.update(names=sorted(benchmarks), name=name, request=request)
        return 0

    monkeypatch.setattr(B, "run", fake_run)
    from ceplab.workbench import language

    with_bench = sorted(n for n in language.names() if language.get(n).benchmark is not None)
    assert {"cel", "epsparql", "etalis"} <= set(with_bench)
    r = invoke("bench", "q1", "--json", "--quick", "--peer", "x")
    assert r.exit_code == 0 and seen == {"names": with_bench, "name": "q1",
                                         "request": B.BenchRequest(json=True, peer="x", quick=True)}


def test_subprocess_bad_query_no_traceback(tmp_path):
    q = tmp_path / "q.cel"
    q.write_text("STRICT(A AS x ; )")
    s = tmp_path / "s.jsonl"
    s.write_text('{"type": "A", "time": 0}\n')
    p = subprocess.run([sys.executable, "-m", "ceplab.workbench.cli", "run", "cel", str(q), str(s)],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert p.stderr.startswith(f"{q}:1:")


def test_papers_check_json():
    r = invoke("papers-check", "figure1", "--json")
    assert r.exit_code == 0, r.output
    obj = json.loads(r.stdout)
    assert len(obj["cases"]) == 20 and obj["failed"] == 0
    c = obj["cases"][0]
    assert c["name"] == "phi1 ALL" and c["expected"] == [[1, 2], [1, 8], [5, 8]]
    assert c["oracle"] == c["engine"] == c["expected"] and c["per_position_ok"] is True
    r = invoke("papers-check", "nosuchpaper")
    assert r.exit_code == 2 and "no papers-check cases named 'nosuchpaper'" in r.stderr


def test_verify_without_spark(monkeypatch):
    """``--cases 0`` needs no Spark (nor Java); ``--lang`` restricts the run to one language."""
    import ceplab.workbench.langs.cel.data as D
    from ceplab.semantics.events import Stream

    monkeypatch.setattr(D, "real_cases", lambda: [
        ("tiny", "MAX((A AS a)+ ; B AS b WITHIN 3)", Stream.of("AABAB"))])
    monkeypatch.setattr(cli, "java_available", lambda: False)
    r = invoke("verify", "--cases", "0", "--lang", "cel", "--json")
    assert r.exit_code == 0, r.output
    obj = json.loads(r.stdout)
    checks = {(row["lang"], row["check"]): row for row in obj["rows"]}
    assert set(checks) == {("cel", "real data"), ("cel", "paper cases")}
    assert checks[("cel", "real data")]["agree"] == 1
    assert checks[("cel", "paper cases")]["disagree"] == 0
    assert obj["total"]["cases"] == sum(row["cases"] for row in obj["rows"])


def test_verify_unknown_language():
    r = invoke("verify", "--cases", "0", "--lang", "nosuch")
    assert r.exit_code == 2 and "unknown language 'nosuch'" in r.stderr
