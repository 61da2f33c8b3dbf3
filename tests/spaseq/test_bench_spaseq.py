"""``ceplab bench spaseq`` on the quick grid: JSON shape, the paper's measurements present (throughput per workload and
window, time per window, the Figure 19 breakdown, the EP-SPARQL comparison, the oracle's settled size), seeded and
prefix-stable streams, engine and oracle agreeing.

No timing assertions: the speed targets live in the benchmark's own report, not in tests.
"""
from __future__ import annotations

import contextlib
import io
import json

import pytest

from ceplab.semantics.spaseq.streams import check_streamset
from ceplab.workbench import bench as H
from ceplab.workbench.bench.harness import SEED
from ceplab.workbench.langs.spaseq import LANGUAGE
from ceplab.workbench.langs.spaseq import bench as BS


@pytest.fixture(scope="module")
def quick_json() -> dict:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = H.run({"spaseq": BS.BENCHMARK}, "spaseq", H.BenchRequest(json=True, quick=True))
    text = buf.getvalue()
    assert code == 0, text[-3000:]
    assert text.count("\n") == 1, "--json prints exactly one JSON object on one line"
    return json.loads(text)


def test_registered_on_the_language():
    assert LANGUAGE.benchmark() is BS.BENCHMARK and BS.BENCHMARK.name == "spaseq"


def test_streams_are_seeded_prefix_stable_and_valid():
    a = BS.workload_events("VSTN", 300, seed=7)
    BS._EVENTS.clear()
    BS._DRAWS.clear()
    b = BS.workload_events("VSTN", 120, seed=7)
    assert [(e.time, set(e.graph)) for e in a[:120]] == [(e.time, set(e.graph)) for e in b]
    assert [e.time for e in a] == list(range(300)) and {e.stream for e in a} == {BS.EX.stock}
    assert all(len(e.graph) == BS.TRIPLES_PER_EVENT for e in a)
    m = BS.workload_events("MULTI", 40, seed=7)
    assert [e.time for e in m] == [i // 4 for i in range(40)]
    assert [str(e.stream) for e in m[:4]] == [f"{BS.EX}x{k}" for k in range(4)]
    assert check_streamset(m) == m                       # Definition 2: one graph per stream and tick
    assert BS.draws("VSTN", 50, 8) != BS.draws("VSTN", 50, 7)
    # the timed pass sees the same events, block by block, also beyond the cache
    big = BS.CACHE_EVENTS + 10
    blk = [e for bl in BS.blocks("VSTN", big, 7, big - 1500, big) for e in bl]
    ds = BS.draws("VSTN", big, 7)[big - 1500:]
    assert len(blk) == 1500 and [e.position for e in blk] == list(range(big - 1500, big))
    for e, (k, v) in zip(blk, ds):
        assert (BS.SOSA.hasFeatureOfInterest, BS.EX[f"c{k}"]) in {(p, o) for _s, p, o in e.graph}
        assert int(next(o for _s, p, o in e.graph if p == BS.SOSA.hasSimpleResult)) == v


def test_queries_parse_with_the_plugin():
    for wl in BS.WORKLOADS:
        q = LANGUAGE.parse(BS.query_text(wl, 10))
        assert q.query.window == 10
    assert BS.parse_workload("MULTI", 5).graphs == (BS.EX.kb,)
    assert len(BS.background().graph(BS.EX.kb)) > 2000 and len(BS.background(0).graph(BS.EX.kb)) == 8


def test_quick_report_shape(quick_json):
    r = quick_json
    assert r["bench"] == "spaseq" and r["grid"] == "quick" and r["seed"] == SEED
    assert r["disagreements"] == []
    rows = {(x["workload"], x["window"], x["n"]): x for x in r["rows"]}
    assert set(BS.WORKLOADS) <= {wl for wl, _w, _n in rows}
    assert {w for wl, w, _n in rows if wl == "VSTN"} == {5, 10, 20}
    for x in r["rows"]:
        assert "skipped" not in x, x
        assert x["eps"] > 0 and x["tps"] == pytest.approx(x["eps"] * 5) and x["ms_per_window"] > 0
        assert x["windows"] == BS.n_windows(x["workload"], x["n"], x["window"])
        assert x["engine_stats"]["runs_created"] > 0
    # larger windows hold more partial matches (the paper's Figure 15 axis)
    assert rows[("VSTN", 5, 1000)]["results"] < rows[("VSTN", 10, 1000)]["results"] < rows[("VSTN", 20, 1000)]["results"]
    assert rows[("VSTN", 5, 1000)]["engine_stats"]["max_active_runs"] <= \
        rows[("VSTN", 20, 1000)]["engine_stats"]["max_active_runs"]
    # strategy inclusion ',' <= ';' <= ':' (result counts on the same stream)
    assert rows[("VSC", 10, 1000)]["results"] <= rows[("VSTN", 10, 1000)]["results"] <= rows[("VSTA", 10, 1000)]["results"]
    # Kleene+ clones runs, the plain sequence does not
    assert rows[("KLEENE", 10, 1000)]["engine_stats"]["runs_cloned"] > 0 == rows[("VSTN", 10, 1000)]["engine_stats"]["runs_cloned"]


def test_quick_breakdown_and_comparison(quick_json):
    bd = {b["workload"]: b for b in quick_json["breakdown"]}
    assert set(bd) == set(BS.WORKLOADS)
    for b in bd.values():
        assert b["parse_us"] > 0 and b["gpm_us"] > 0 and b["gpm_calls"] > 0 and b["automaton_us"] >= 0
        assert b["parse_share"] + b["gpm_share"] + b["automaton_share"] == pytest.approx(1.0)
    (e,) = quick_json["epsparql"]
    assert e["window"] == 10 and e["n"] == 1000 and e["eps"] > 0 and e["results"] > 0
    assert e["spaseq_sta_anchored_results"] > 0 and all(e[f"x_{wl}"] > 0 for wl in BS.VSHAPES)


def test_quick_oracle(quick_json):
    o = quick_json["oracle"]
    decided = [x for x in o["rows"] if x["status"] == "decided"]
    assert {x["workload"] for x in decided} == set(BS.WORKLOADS) | {"MULTI (KB 8)"}
    assert all(x["agree"] for x in decided)
    # MULTI with the padded background (2,058 triples) and with the 8 triples the query can use: same answers; the
    # GRAPH side is grounded per row of the event side, so the padding costs its facts, not atoms per event
    multi = {(x["workload"], x["n"]): x for x in decided if x["workload"].startswith("MULTI")}
    padded, small = multi[("MULTI", 60)], multi[("MULTI (KB 8)", 60)]
    assert padded["kb_triples"] > 2000 and small["kb_triples"] == 8 and padded["results"] == small["results"]
    assert padded["atoms"] < small["atoms"] + 10 * padded["kb_triples"]
    assert o["largest_settled"] == 400 and o["target"] is None
    assert any(t["target"].startswith("throughput") for t in quick_json["targets"])


def test_result_counts_are_reproducible(quick_json):
    again = BS.push_pass("VSTN", 10, 1000, SEED, 1)
    row = next(x for x in quick_json["rows"] if (x["workload"], x["window"], x["n"]) == ("VSTN", 10, 1000))
    assert again["results"] == row["results"] and again["engine_stats"] == row["engine_stats"]
    assert again["repeats"] == 1


def test_grids():
    q, d, f = BS.make_grid("quick"), BS.make_grid("default"), BS.make_grid("full")
    assert max(n for _w, _x, n in q.cells) <= 2000
    assert {n for _w, _x, n in d.cells} == {10_000, 100_000} and 1_000_000 in {n for _w, _x, n in f.cells}
    assert d.oracle_target and not q.oracle_target
    with pytest.raises(ValueError):
        BS.make_grid("huge")
