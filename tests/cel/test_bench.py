"""``ceplab bench cel`` on the quick grid: table and JSON shape, reproducible output counts.

No timing assertions: the speed targets live in the benchmark's own report, not in tests.
"""
from __future__ import annotations

import contextlib
import io
import json

import pytest

from ceplab.workbench import bench

ROW_KEYS = {"query", "n", "w", "text", "update_eps", "update_us", "steady_us", "chunk_us", "drift", "path",
            "separated", "outputs", "outputs_capped", "outputs_events", "enum_seconds", "enum_ops",
            "peak_kib", "live_kib", "retained_kib", "x_floor"}


@pytest.fixture(scope="module")
def quick_json() -> dict:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = bench.run("cel", json_out=True, peer=None, quick=True)
    assert code == 0, buf.getvalue()[-2000:]
    text = buf.getvalue()
    assert text.count("\n") == 1, "--json prints exactly one JSON object on one line"
    return json.loads(text)


def test_workload_is_seeded_prefix_stable_and_typed():
    a = bench.workload("Q2", 500, seed=7)
    bench._TYPES.clear()
    b = bench.workload("Q2", 200, seed=7)
    assert [e.type for e in a[:200]] == [e.type for e in b]
    assert [e.position for e in a] == list(range(500)) == [e.time for e in a]
    assert {e.type for e in a} <= set("ABCD") | set(bench.NOISE)
    assert {e.type for e in bench.workload("Q4", 500, seed=7)} <= set("AB") | set(bench.NOISE)
    assert [e.type for e in bench.workload("Q2", 200, seed=8)] != [e.type for e in b]
    # the timed passes see the same events, built block by block
    fed = [(e.type, e.position, e.time) for blk in bench.blocks(bench.workload_types("Q2", 2500, 7))
           for e in blk]
    assert fed == [(e.type, e.position, e.time) for e in bench.workload("Q2", 2500, seed=7)]


def test_grid_shapes():
    d = bench.make_grid("default")
    assert {(q, n, w) for q, n, w in d.cells} >= {(q, n, w) for q in bench.QUERIES
                                                  for n in (10_000, 100_000) for w in (10, 100, 1000)}
    assert ("Q1", 1_000_000, 100) in d.cells
    f = bench.make_grid("full")
    assert len(f.cells) == 6 * 3 * 3
    with pytest.raises(ValueError):
        bench.make_grid("huge")


def test_json_shape(quick_json):
    rep = quick_json
    grid = bench.make_grid("quick")
    assert rep["bench"] == "cel" and rep["grid"] == "quick" and rep["seed"] == bench.SEED
    assert [(r["query"], r["n"], r["w"]) for r in rep["rows"]] == list(grid.cells)
    for r in rep["rows"]:
        assert ROW_KEYS <= set(r), ROW_KEYS - set(r)
        assert r["outputs"] >= 0 and r["outputs_events"] <= r["n"]
        assert r["peak_kib"] >= 0
        assert len(r["chunk_us"]) == bench.CHUNKS
    assert [f["n"] for f in rep["floor"]] == sorted({n for _q, n, _w in grid.cells})
    assert [(o["query"], o["w"], o["n"]) for o in rep["oracle"]] == [
        (q, w, n) for q, w in grid.oracle_cases for n in grid.oracle_ns]
    for o in rep["oracle"]:
        assert o["status"] in ("decided", "undecided")
        if o["status"] == "decided":
            assert o["agree"] is True, o
    assert "peer" not in rep
    assert rep["disagreements"] == []
    assert all({"target", "query", "where", "value", "ok"} <= set(t) for t in rep["targets"])


def test_counts_reproducible(quick_json):
    again = bench.bench_cel(bench.make_grid("quick"), seed=bench.SEED)
    key = lambda r: (r["query"], r["n"], r["w"], r["outputs"], r["outputs_capped"], r["outputs_events"])
    assert [key(r) for r in again["rows"]] == [key(r) for r in quick_json["rows"]]
    assert [o.get("outputs") for o in again["oracle"]] == [o.get("outputs") for o in quick_json["oracle"]]
    # something is actually counted, and Q1 with a window of 10 is enumerated in full
    assert any(r["outputs"] > 0 for r in again["rows"])
    assert not next(r for r in again["rows"] if r["query"] == "Q1" and r["w"] == 10)["outputs_capped"]


def test_tables_printed(quick_json, capsys):
    rep = dict(quick_json, peer=bench.peer_pass(bench.make_grid("quick"), "opencep", bench.SEED, True))
    from rich.console import Console
    bench.render(rep, Console(width=200, force_terminal=False))
    out = capsys.readouterr().out
    for title in ("CEL engine: update throughput", "Oracle (ceplab.asp.cel)", "Targets", "floor"):
        assert title in out
    if "skipped" in rep["peer"]:
        assert "OPENCEP_HOME" in rep["peer"]["skipped"] and rep["peer"]["skipped"] in out
    else:
        assert "Peer opencep" in out


def test_peer_skipped_cleanly_without_opencep_home(monkeypatch, capsys):
    monkeypatch.delenv("OPENCEP_HOME", raising=False)
    rep = bench.peer_pass(bench.make_grid("quick"), "opencep", bench.SEED, engine_ok=True)
    assert rep["skipped"].startswith("peer opencep skipped: OPENCEP_HOME is not set")


def test_bad_input_exit_codes(capsys):
    assert bench.run("nope", False, None, True) == 2
    assert bench.run("cel", False, "flink", True) == 2
    assert bench.run("cel", False, None, True, full=True) == 2
    err = capsys.readouterr().err
    assert "unknown benchmark" in err and "unknown peer" in err
