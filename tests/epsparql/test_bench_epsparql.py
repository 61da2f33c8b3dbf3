"""``ceplab bench epsparql`` on the quick grid: JSON shape, reproducible and prefix-stable result counts, engine and
oracle agreeing, the RDFS rows' background detection.

No timing assertions: the speed target lives in the benchmark's own report, not in tests.
"""
from __future__ import annotations

import contextlib
import dataclasses
import io
import json

import pytest

from ceplab.workbench import bench as H
from ceplab.workbench.bench.harness import CHUNKS, SEED
from ceplab.workbench.langs.cel.bench import BENCHMARK as CEL
from ceplab.workbench.langs.epsparql import bench as BS
from ceplab.workbench.langs.etalis.bench import BENCHMARK as ETALIS

ALL = {"cel": CEL, "etalis": ETALIS, "epsparql": BS.BENCHMARK}


def run(name, **kw) -> int:
    return H.run(ALL, name, H.BenchRequest(**kw))

ROW_KEYS = {"workload", "n", "rdfs", "per_tick", "seconds", "tps", "us", "chunk_us", "steady_us", "drift", "path",
            "repeats", "results", "stored", "stored_max", "peak_kib", "live_kib", "retained_kib", "engine_stats",
            "bench_seconds", "cold_tps", "cold_us", "clock", "x_floor"}


@pytest.fixture(scope="module")
def quick_json() -> dict:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = run("epsparql", json=True, quick=True)
    text = buf.getvalue()
    assert code == 0, text[-3000:]
    assert text.count("\n") == 1, "--json prints exactly one JSON object on one line"
    return json.loads(text)


def test_stream_is_seeded_prefix_stable_and_typed():
    a = BS.workload_stream("S3", 500, seed=7)
    BS._DRAWS.clear()
    b = BS.workload_stream("S3", 200, seed=7)
    assert a[:200] == b
    assert [o.position for o in a] == list(range(500)) == [o.start for o in a] == [o.end for o in a]
    assert {o.p for o in a} == {BS.EX.p}
    assert {str(o.s) for o in a} <= {f"{BS.EX}c{k}" for k in range(BS.SUBJECTS)}
    assert all(0 <= int(o.o) < BS.VALUES for o in a)
    two = BS.workload_stream("S3x2", 100, seed=7)
    assert [o.start for o in two] == [i // 2 for i in range(100)] and [o.position for o in two] == list(range(100))
    assert {o.p for o in BS.workload_stream("S3R", 300, seed=7)} == {BS.EX.p1, BS.EX.p2}
    assert BS.workload_stream("S3", 200, seed=8) != b
    # the timed pass sees the same occurrences, built block by block
    d = BS.workload_draws("NEG", 2500, 7)
    assert [o for blk in BS.blocks("NEG", d) for o in blk] == BS.workload_stream("NEG", 2500, seed=7)


def test_queries_parse():
    for wl, w in BS.WORKLOADS.items():
        qs = BS.parse_workload(wl)
        assert len(qs.queries) == (2 if wl.startswith("CON") else 1), wl
        assert "getDURATION() < 10" in w.text
    assert BS.WORKLOADS["S5"].text.count("SEQ") == 4 and BS.WORKLOADS["S2"].text.count("SEQ") == 1
    assert "EQUALSOPTIONAL" in BS.WORKLOADS["NEG"].text and "CONSTRUCT" in BS.WORKLOADS["CON"].text


def test_grid_shapes():
    d = BS.make_grid("default")
    assert {(wl, n) for wl in BS.WORKLOADS for n in (10_000, 50_000)} == set(d.cells)
    assert {wl for wl, _ in d.oracle_cases} == set(BS.WORKLOADS)
    assert max(n for _wl, n in BS.make_grid("full").cells) == 1_000_000
    q = BS.make_grid("quick")
    assert max(n for _wl, n in q.cells) <= 1000 and max(max(ns) for _wl, ns in q.oracle_cases) <= 40
    with pytest.raises(ValueError):
        BS.make_grid("huge")


def test_json_shape(quick_json):
    rep = quick_json
    grid = BS.make_grid("quick")
    assert rep["bench"] == "epsparql" and rep["grid"] == "quick" and rep["seed"] == SEED
    assert set(rep) >= {"python", "machine", "workload", "background", "memory_method", "rows", "oracle", "targets",
                        "disagreements"}
    assert set(rep["workload"]["queries"]) == set(BS.WORKLOADS)
    assert [(r["workload"], r["n"]) for r in rep["rows"]] == list(grid.cells)
    support = rep["background"]
    for r in rep["rows"]:
        if r["rdfs"] and not support["engine"]:
            assert r["skipped"] == BS.NO_BACKGROUND
            continue
        assert "skipped" not in r, r
        assert ROW_KEYS <= set(r), ROW_KEYS - set(r)
        assert r["tps"] > 0 and len(r["chunk_us"]) == CHUNKS and r["results"] >= 0
        assert r["stored_max"] >= r["stored"] >= 0
        assert r["clock"] == "cpu" and r["tps"] >= r["cold_tps"] * (1 - 1e-9) > 0
    assert [f["n"] for f in rep["floor"]] == sorted({n for _wl, n in grid.cells})
    assert rep["disagreements"] == []
    t = [x for x in rep["targets"] if x["ok"] is not None]
    assert {x["case"] for x in t} == {"S3"} and all(isinstance(x["ok"], bool) for x in t)


def test_engine_and_oracle_agree(quick_json):
    decided = [o for o in quick_json["oracle"] if o.get("status") == "decided"]
    assert {o["workload"] for o in decided} >= {"S2", "S3", "NEG", "CON"}
    for o in decided:
        assert o["agree"] is True, o
        assert o["results"] == o["engine_results"]
    # a result at all on the longer streams (the workloads are not vacuous)
    assert all(o["results"] > 0 for o in decided if o["n"] == 40)
    if not quick_json["background"]["oracle"]:
        assert all(o["status"] == "n/a" for o in quick_json["oracle"] if o["workload"] in BS.WITH_RDFS)


def test_counts_are_reproducible_and_monotone(quick_json):
    counts = {(r["workload"], r["n"]): r["results"] for r in quick_json["rows"] if "results" in r}
    # the same seed gives the same counts; a prefix never has more results (the engine is timewise monotone)
    for wl in ("S3", "NEG", "CON"):
        fac = BS.engine_factory(wl)
        assert len(BS.engine_results(fac, BS.workload_stream(wl, 300))) == counts[(wl, 300)]
        assert counts[(wl, 300)] <= counts[(wl, 1000)]
    # the RDFS variant over subproperties answers like the plain query over :p on the same draws
    if quick_json["background"]["engine"]:
        same = [o._replace(p=BS.EX.p) for o in BS.workload_stream("S3R", 300)]
        assert len(BS.engine_results(BS.engine_factory("S3"), same)) == counts[("S3R", 300)]


def test_no_background_support_is_reported(monkeypatch):
    monkeypatch.setattr(BS, "background_support", lambda: {"engine": False, "oracle": False})
    grid = dataclasses.replace(BS.make_grid("quick"), cells=(("S3R", 300), ("S2", 300)),
                               oracle_cases=(("CONR", (20,)),))
    rep = BS.bench_epsparql(grid)
    assert rep["rows"][0]["skipped"] == BS.NO_BACKGROUND and "tps" in rep["rows"][1]
    assert rep["oracle"][0]["status"] == "n/a" and rep["oracle"][0]["reason"] == BS.NO_BACKGROUND
    from rich.console import Console
    out = Console(file=io.StringIO(), width=200)
    BS.render(rep, out)
    assert BS.NO_BACKGROUND in out.file.getvalue()


def test_cli_dispatch_names():
    assert BS.BENCHMARK.name == "epsparql" and BS.BENCHMARK.peers == ()
    assert run("epsparql", peer="etalis", quick=True) == 2


def test_e13_scaled_up_workload_tiny():
    """E13 / Test 2 on a tiny class tree: the tree has the asked size and depth, the stream is prefix-stable, the
    engine answers every leaf-typed plant (and no :Fungi), the oracle agrees, and the section renders."""
    onto, leaves = BS.class_tree(40, 8)
    assert len(onto) == 40 + 1 and len(leaves) == BS._level_sizes(40, 8)[-1]
    assert sum(BS._level_sizes(40_080, 8)) == 40_080
    s = BS.e13_stream(30, 40, seed=3)
    assert s[:12] == BS.e13_stream(12, 40, seed=3) and s[12:] == BS.e13_stream(18, 40, seed=3, start=12)
    assert [o.start for o in s] == list(range(30)) and {o.p for o in s} == {BS.RDF.type}
    grid = dataclasses.replace(BS.make_grid("quick"), e13_classes=40, e13_ns=(200,), e13_oracle_ns=(12,))
    out = BS.e13_pass(grid, 3, {"engine": True, "oracle": True})
    assert out["closure_triples"] > len(onto) and out["closure_seconds"] >= 0
    (row,) = out["rows"]
    assert row["tps"] > 0 and row["results"] == row["expected"] > 0
    (o,) = out["oracle"]
    assert o["status"] == "decided" and o["agree"] is True and o["results"] == o["engine_results"]
    assert BS.e13_pass(grid, 3, {"engine": False, "oracle": False})["skipped"] == BS.NO_BACKGROUND
    from rich.console import Console
    con = Console(file=io.StringIO(), width=200)
    BS.render({"grid": "quick", "seed": 3, "python": "", "machine": "",
               "workload": {"queries": {}, "subjects": 1, "values": 1, "ontology": []},
               "background": {"engine": True, "oracle": True}, "rows": [], "oracle": [], "e13": out,
               "targets": [], "disagreements": []}, con)
    assert "E13 scaled up" in con.file.getvalue()


def test_e13_in_the_quick_report(quick_json):
    e13 = quick_json["e13"]
    assert e13["classes"] == BS.E13_QUICK_CLASSES and e13["depth"] == 8
    assert [r["n"] for r in e13["rows"]] == list(BS.make_grid("quick").e13_ns)
    assert all(r["results"] == r["expected"] for r in e13["rows"])
    assert all(o["agree"] is True for o in e13["oracle"])
    assert all(r["tps"] >= r["cold_tps"] * (1 - 1e-9) > 0 for r in e13["rows"])
