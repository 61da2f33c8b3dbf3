"""``ceplab bench cel`` on the quick grid: table and JSON shape, reproducible output counts.

No timing assertions: the speed targets live in the benchmark's own report, not in tests.
"""
from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import os
import subprocess
import sys

import pytest

from ceplab.workbench import bench as H
from ceplab.workbench.bench.harness import CHUNKS, SEED
from ceplab.workbench.langs.cel import bench
from ceplab.workbench.langs.epsparql.bench import BENCHMARK as EPSPARQL
from ceplab.workbench.langs.etalis.bench import BENCHMARK as ETALIS

ALL = {"cel": bench.BENCHMARK, "etalis": ETALIS, "epsparql": EPSPARQL}


def run(name, **kw) -> int:
    return H.run(ALL, name, H.BenchRequest(**kw))

ROW_KEYS = {"query", "n", "w", "text", "update_eps", "update_us", "steady_us", "chunk_us", "drift", "path",
            "separated", "outputs", "outputs_capped", "outputs_events", "enum_seconds", "enum_ops",
            "peak_kib", "live_kib", "retained_kib", "x_floor", "cold_update_eps", "cold_update_us", "clock"}


@pytest.fixture(scope="module")
def quick_json() -> dict:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = run("cel", json=True, quick=True)
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
    assert rep["bench"] == "cel" and rep["grid"] == "quick" and rep["seed"] == SEED
    assert [(r["query"], r["n"], r["w"]) for r in rep["rows"]] == list(grid.cells)
    for r in rep["rows"]:
        assert ROW_KEYS <= set(r), ROW_KEYS - set(r)
        assert r["outputs"] >= 0 and r["outputs_events"] <= r["n"]
        assert r["peak_kib"] >= 0
        assert len(r["chunk_us"]) == CHUNKS
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
    again = bench.bench_cel(bench.make_grid("quick"), seed=SEED)
    key = lambda r: (r["query"], r["n"], r["w"], r["outputs"], r["outputs_capped"], r["outputs_events"])
    assert [key(r) for r in again["rows"]] == [key(r) for r in quick_json["rows"]]
    assert [o.get("outputs") for o in again["oracle"]] == [o.get("outputs") for o in quick_json["oracle"]]
    # something is actually counted, and Q1 with a window of 10 is enumerated in full
    assert any(r["outputs"] > 0 for r in again["rows"])
    assert not next(r for r in again["rows"] if r["query"] == "Q1" and r["w"] == 10)["outputs_capped"]


def test_cold_and_warm_side_by_side(quick_json):
    for r in quick_json["rows"]:
        assert r["clock"] == "cpu" and r["cold_update_eps"] > 0 and r["update_eps"] > 0
        # warm keeps the fastest repeat per tenth, so it is never slower than the first run
        assert r["update_eps"] >= r["cold_update_eps"] * (1 - 1e-9)
    for f in quick_json["floor"]:
        assert f["clock"] == "cpu" and f["eps"] >= f["cold_eps"] * (1 - 1e-9)
    from rich.console import Console
    buf = io.StringIO()
    bench.render(quick_json, Console(file=buf, width=400))
    head = next(line for line in buf.getvalue().splitlines() if "cold ev/s" in line)
    assert head.index("cold ev/s") < head.index("warm ev/s")
    assert "CPU time of the feeding thread" in buf.getvalue()


def test_tables_printed(quick_json, capsys):
    rep = dict(quick_json, peer=bench.peer_pass(bench.make_grid("quick"), "opencep", SEED))
    from rich.console import Console
    bench.render(rep, Console(width=400, force_terminal=False))
    out = capsys.readouterr().out
    for title in ("CEL engine: update throughput", "Oracle (ceplab.asp.cel)", "Targets", "floor"):
        assert title in out
    if "absent" in rep["peer"]:
        assert "OPENCEP_HOME" in rep["peer"]["absent"] and rep["peer"]["absent"] in out
        assert "Peer opencep: absent" in out
    else:
        assert "Peer opencep" in out


def test_peer_absent_is_named_without_opencep_home(monkeypatch):
    monkeypatch.delenv("OPENCEP_HOME", raising=False)
    rep = bench.peer_pass(bench.make_grid("quick"), "opencep", SEED)
    assert rep["absent"].startswith("peer opencep skipped: OPENCEP_HOME is not set")


def test_peer_ratio_uses_wall_time_on_both_sides(monkeypatch):
    """A fake OpenCEP whose runs take known wall times: both sides of the ratio are wall time, named as such."""
    from ceplab.workbench.langs.cel import peer as opencep

    calls = []

    def fake_run(q, evs, index_fix=False):
        from ceplab.engine.cel import evaluator
        same = bench.outputs_of(lambda: evaluator(q), evs)[0]      # a peer that agrees with us
        calls.append(len(evs))
        return opencep.PeerResult(list(same), [0.5, 0.25][(len(calls) - 1) % 2], len(evs))

    monkeypatch.setattr(opencep, "unavailable_reason", lambda: None)
    monkeypatch.setattr(opencep, "run", fake_run)
    grid = bench.make_grid("quick")
    rep = bench.peer_pass(grid, "opencep", SEED)
    assert "absent" not in rep and len(rep["rows"]) == len(bench.PEER_QUERIES)
    for r in rep["rows"]:
        assert r["our_clock"] == r["peer_clock"] == "wall"
        assert r["agree"] is True
        assert r["peer_cold_eps"] == pytest.approx(r["n"] / 0.5) and r["peer_warm_eps"] == pytest.approx(r["n"] / 0.25)
        assert r["ratio"] == pytest.approx(r["our_warm_eps"] / r["peer_warm_eps"])
        assert r["cold_ratio"] == pytest.approx(r["our_cold_eps"] / r["peer_cold_eps"])
    from rich.console import Console
    buf = io.StringIO()
    bench.render({**bench.bench_cel(dataclasses.replace(grid, cells=grid.cells[:1], oracle_ns=()), SEED),
                  "peer": rep}, Console(file=buf, width=1000))
    text = buf.getvalue()
    assert "our warm ev/s (wall)" in text and "peer warm ev/s (wall)" in text and "both sides in wall time" in text


def test_bad_input_exit_codes(capsys):
    assert run("nope", quick=True) == 2
    assert run("cel", peer="flink", quick=True) == 2
    assert run("cel", quick=True, full=True) == 2
    err = capsys.readouterr().err
    assert "unknown benchmark" in err and "unknown peer" in err


def test_cli_piped_tables_are_not_wrapped():
    """``ceplab bench cel --quick`` with stdout to a pipe: every table row is one line, none cut or wrapped."""
    p = subprocess.run([sys.executable, "-m", "ceplab.workbench.cli", "bench", "cel", "--quick"],
                       capture_output=True, text=True, timeout=600, env={**os.environ, "COLUMNS": "80"})
    assert p.returncode == 0, p.stderr[-2000:]
    lines = p.stdout.splitlines()
    assert max(len(x) for x in lines) > 80          # the wide tables are printed at full width
    body = [x for x in lines if x.startswith(("│", "┃"))]
    assert body
    # a table's rows all have the table's width and the same number of cells: nothing wrapped onto a second line
    tops = [i for i, x in enumerate(lines) if x.startswith("┏")]
    for i in tops:
        j = next(k for k in range(i, len(lines)) if lines[k].startswith("└"))
        rows = [x for x in lines[i:j + 1]]
        assert len({len(x) for x in rows}) == 1, rows
        cells = {x.count("│") + x.count("┃") for x in rows if x.startswith(("│", "┃"))}
        assert len(cells) == 1
    main = "\n".join(lines)
    assert "for e in" not in main and "floor: the timed loop calling a no-op function per event" in main
    assert "…" not in main                              # no ellipsis: no cell was cut
    assert all(x.count("│") for x in lines if x.startswith("│ Q"))
    # each engine row appears whole, on one line
    assert sum(1 for x in lines if x.startswith("│ Q")) == len(bench.make_grid("quick").cells) + 4   # + oracle rows
