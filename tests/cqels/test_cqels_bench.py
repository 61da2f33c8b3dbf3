"""``ceplab bench cqels`` on the quick grid: JSON shape, the issue's measurements present (elements/s and time
points/s per workload, RANGE and gap, the path rows, the weather queries, the oracle's settled size), seeded and
prefix-stable streams and networks, engine and oracle agreeing on every bench workload, the path relation and the
static solutions checked against an independent reachability count, the tables printed.

No timing assertions: the speed targets live in the benchmark's own report, not in tests.
"""
from __future__ import annotations

import contextlib
import io
import json

import pytest
from rdflib import RDF, URIRef

from ceplab.engine.cqels import run
from ceplab.semantics.cqels import ast as A
from ceplab.workbench import bench as H
from ceplab.workbench.bench.harness import SEED, output_console
from ceplab.workbench.langs.cqels import LANGUAGE
from ceplab.workbench.langs.cqels import bench as BC
from ceplab.workbench.langs.cqels import data as D


@pytest.fixture(scope="module")
def quick_json() -> dict:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = H.run({"cqels": BC.BENCHMARK}, "cqels", H.BenchRequest(json=True, quick=True))
    text = buf.getvalue()
    assert code == 0, text[-3000:]
    assert text.count("\n") == 1, "--json prints exactly one JSON object on one line"
    return json.loads(text)


def _rows(report: dict) -> dict:
    return {(x["workload"], x["range"], x["gap"], x["n"]): x for x in report["rows"]}


def test_registered_on_the_language():
    assert LANGUAGE.benchmark() is BC.BENCHMARK and BC.BENCHMARK.name == "cqels" and BC.BENCHMARK.peers == ()


def test_streams_are_seeded_prefix_stable_and_ordered():
    a = BC.workload_elements("NEG", 300, 4, seed=7)
    BC._ELEMENTS.clear()
    BC._DRAWS.clear()
    b = BC.workload_elements("NEG", 120, 4, seed=7)
    assert [(e.start, e.content) for e in a[:120]] == [(e.start, e.content) for e in b]
    assert [e.start for e in a] == [4 * i for i in range(300)] and all(e.end == e.start for e in a)
    assert [e.position for e in a] == list(range(300)) and {e.stream for e in a} == {BC.STREAM}
    assert {str(e.content[1]).rsplit("/", 1)[1] for e in a} == {"pa", "pn", "pc"}
    assert BC.draws("sparse", 50, 8) != BC.draws("sparse", 50, 7)
    # NEG-G is NEG's stream with graph content
    g = BC.workload_elements("NEG-G", 120, 4, seed=7)
    assert [(e.start, set(e.content)) for e in g] == [(e2.start, {e2.content}) for e2 in b]
    dense = BC.workload_elements("DENSE", 200, 1, seed=7)
    assert {str(e.content[2]).rsplit("/", 1)[1] for e in dense} == {f"o{m}" for m in range(5)}
    # the timed pass sees the same elements, block by block, also beyond the cache
    big = BC.CACHE_ELEMENTS + 10
    blk = [e for bl in BC.blocks("NEG", big, 2, 7, big - 1500, big) for e in bl]
    ds = BC.draws("sparse", big, 7)[big - 1500:]
    assert len(blk) == 1500 and [e.position for e in blk] == list(range(big - 1500, big))
    assert [e.start for e in blk] == [2 * i for i in range(big - 1500, big)]
    for e, (k, p, _m) in zip(blk, ds):
        assert e.content[0] == URIRef(f"{BC.EX}x{k}") and e.content[1] == URIRef(BC.EX + ("pa", "pn", "pc")[p])


def test_queries_parse_with_the_plugin_and_place_the_negation():
    where = {"NEG": 1, "NEG-G": 1, "HEAD": 0, "TAIL": 2, "DENSE": 1}
    for wl in BC.WORKLOADS:
        q = LANGUAGE.parse(BC.query_text(wl, 100)).query
        (w,) = q.windows
        assert w.spec.range == 100 and w.stream == BC.STREAM
        assert isinstance(w.pattern, A.SeqTSP) and len(w.pattern.items) == 3
        assert [i for i, it in enumerate(w.pattern.items) if isinstance(it, A.Neg)] == [where[wl]]
    assert BC.horizon(1000, 4, 100) == 999 * 4 + 100


def _reach(triples) -> tuple[int, set]:
    """Pairs of the subway-only closure of the network and the stops reaching :c, by a plain DFS."""
    beg, end, means = (URIRef(BC.EX + x) for x in ("beg", "end", "means"))
    by_conn: dict = {}
    for s, p, o in triples:
        by_conn.setdefault(s, {})[p] = o
    succ: dict = {}
    for c in by_conn.values():
        if c.get(means) == URIRef(BC.EX + "subway"):
            succ.setdefault(c[beg], set()).add(c[end])
    pairs, to_c = 0, set()
    for x in succ:
        seen, todo = set(), list(succ[x])
        while todo:
            y = todo.pop()
            if y not in seen:
                seen.add(y)
                todo += succ.get(y, ())
        pairs += len(seen)
        if URIRef(BC.EX + "c") in seen:
            to_c.add(x)
    return pairs, to_c


def test_network_is_seeded_and_the_path_row_counts_are_right():
    t = BC.network(1000, 7)
    BC.network.cache_clear()
    assert BC.network(1000, 7) == t != BC.network(1000, 8)
    assert len(t) == 3 * BC.connections(1000) + BC.VEHICLES and abs(len(t) - 1000) < 3
    row = BC.path_row(1000, 300, 7, 1)
    pairs, to_c = _reach(t)
    subways = sum(1 for s, p, o in t if p == RDF.type and o == URIRef(BC.EX + "subway"))
    assert row["path_pairs"] == pairs > 100 and row["solutions"] == subways * len(to_c) > 0
    assert row["static_ms"] > 0 and row["triples"] == len(t) and row["eps"] > 0
    s = BC.delay_stream(300, 50, 7)
    assert row["answers"] == len(run(BC.path_query(), s, static=_static(t))) > 0
    assert BC.delay_stream(100, 50, 7) == s[:100]


def _static(triples):
    from ceplab.semantics.cqels.streams import StaticData

    return StaticData.constant(triples)


def test_quick_report_shape(quick_json):
    r = quick_json
    assert r["bench"] == "cqels" and r["grid"] == "quick" and r["seed"] == SEED
    assert r["disagreements"] == []
    rows = _rows(r)
    assert set(BC.WORKLOADS) <= {k[0] for k in rows}
    assert {k[1] for k in rows if k[0] == "NEG"} >= {10, 100, 400} and {k[2] for k in rows} == {1, 4}
    for (wl, rng, gap, n), x in rows.items():
        assert "skipped" not in x, x
        assert x["eps"] > 0 and x["points"] == (n - 1) * gap + rng + 1 and x["pps"] > 0
        assert 0 < x["nonempty_points"] <= x["points"] and x["answers"] >= x["nonempty_points"]
        assert x["answers_per_element"] == pytest.approx(x["answers"] / n)
    # graph content changes the cost, not the answers
    assert rows[("NEG-G", 100, 1, 1000)]["answers"] == rows[("NEG", 100, 1, 1000)]["answers"]
    # the dense stream gives many answers per time point
    assert rows[("DENSE", 100, 1, 1000)]["answers"] > 5 * rows[("NEG", 100, 1, 1000)]["answers"]
    # the answer counts are the engine's (an independent run, not through the timed pass)
    for key in (("NEG", 100, 4, 1000), ("TAIL", 100, 1, 1000)):
        wl, rng, gap, n = key
        out = run(BC.parse_workload(wl, rng), BC.workload_elements(wl, n, gap))
        assert len(out) == rows[key]["answers"] and len({a.time for a in out}) == rows[key]["nonempty_points"]


def test_quick_paths_and_real_data(quick_json):
    paths = {p["size"]: p for p in quick_json["paths"]}
    assert set(paths) == {100, 1000}
    assert paths[100]["path_pairs"] < paths[1000]["path_pairs"] and all(p["answers"] > 0 for p in paths.values())
    real = {x["query"]: x for x in quick_json["real"]}
    assert set(real) == {p.stem for p in D.query_files()}
    for name, text, stream in D.real_cases():
        x = real[name.split("@")[0]]
        assert x["n"] == len(stream) and x["answers"] > 0 and x["eps"] > 0


def test_quick_oracle_agrees_on_every_workload(quick_json):
    o = quick_json["oracle"]
    decided = [x for x in o["rows"] if x["status"] == "decided"]
    assert {x["workload"] for x in decided} == set(BC.WORKLOADS) | {"PATH (100 triples)"}
    assert all(x["agree"] for x in decided) and all(x["results"] > 0 for x in decided)
    assert o["largest_settled"] == 400 and o["target"] is None
    kinds = {t["target"].split(" (")[0] for t in quick_json["targets"]}
    assert {"throughput >= 10,000 elements/s", "per-element cost flat in n", "per-element cost flat in time points "
            "answered", "path evaluation, largest static graph"} <= kinds


def test_tables_are_printed(quick_json):
    buf = io.StringIO()
    BC.render(quick_json, output_console(buf))
    text = buf.getvalue()
    for title in ("push throughput per workload, RANGE and gap", "Paths: the running example's static part",
                  "Bundled weather queries", "Oracle (ceplab.asp.cqels, clingo)", "Targets"):
        assert title in text, title
    lines = text.splitlines()
    assert sum(1 for ln in lines if ln.lstrip("│ ").startswith(("NEG ", "HEAD ", "TAIL ", "DENSE "))) >= \
        len(quick_json["rows"])
    assert not any("DISAGREEMENT" in ln for ln in lines)


def test_grids():
    q, d, f = BC.make_grid("quick"), BC.make_grid("default"), BC.make_grid("full")
    assert max(c[3] for c in q.cells) <= 2000
    assert all(len(set(g.cells)) == len(g.cells) for g in (q, d, f)), "no cell is measured twice"
    assert {(c[2], c[3]) for c in f.cells if c[:2] == ("NEG", 100)} == {(g, n) for g in BC.GAPS for n in
                                                                      (10_000, 100_000)} | {(1, 1_000_000)}
    assert {c[3] for c in d.cells} == {10_000, 100_000} and 1_000_000 in {c[3] for c in f.cells}
    assert {c[1] for c in d.cells if c[0] == "NEG" and c[2] == 1} == {10, 30, 100, 300, 1000}
    assert {c[2] for c in d.cells if c[1] == 100} == set(BC.GAPS)
    assert {(c[1], c[2]) for c in d.cells if c[1] == 100 * c[2]} == {(100 * g, g) for g in BC.GAPS}
    assert max(d.path_sizes) == 100_000 and d.oracle_target and not q.oracle_target
    with pytest.raises(ValueError):
        BC.make_grid("huge")
