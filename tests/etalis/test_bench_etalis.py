"""``ceplab bench etalis`` on the quick grid: JSON shape, reproducible and prefix-stable result counts, engine and
oracle agreeing, the peer's skip/ratio plumbing.

No timing assertions: the speed targets live in the benchmark's own report, not in tests.
"""
from __future__ import annotations

import contextlib
import dataclasses
import io
import json

import pytest

from ceplab.workbench import bench as H
from ceplab.workbench.bench.harness import SEED
from ceplab.workbench.langs.cel.bench import BENCHMARK as CEL
from ceplab.workbench.langs.epsparql.bench import BENCHMARK as EPSPARQL
from ceplab.workbench.langs.etalis import bench as BE

ALL = {"cel": CEL, "etalis": BE.BENCHMARK, "epsparql": EPSPARQL}


def run(name, **kw) -> int:
    return H.run(ALL, name, H.BenchRequest(**kw))

ROW_KEYS = {"workload", "policy", "n", "window", "text", "update_eps", "update_us", "steady_us", "chunk_us",
            "drift", "path", "repeats", "results", "stored", "stored_max", "peak_kib", "live_kib", "retained_kib",
            "engine_stats", "cold_update_eps", "cold_update_us", "clock", "x_floor"}


@pytest.fixture(scope="module")
def quick_json() -> dict:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = run("etalis", json=True, quick=True)
    text = buf.getvalue()
    assert code == 0, text[-3000:]
    assert text.count("\n") == 1, "--json prints exactly one JSON object on one line"
    return json.loads(text)


def test_workload_is_seeded_prefix_stable_and_typed():
    a = BE.workload_events("W2", 500, seed=7)
    BE._DRAWS.clear()
    b = BE.workload_events("W2", 200, seed=7)
    assert [(e.atom, e.start, e.end) for e in a[:200]] == [(e.atom, e.start, e.end) for e in b]
    assert [e.position for e in a] == list(range(500)) == [e.start for e in a] == [e.end for e in a]
    assert {e.atom.name for e in a} <= {"a", "b", "c", "f"} | set(BE.NOISE)
    assert all(len(e.atom.args) == 1 and 0 <= e.atom.args[0].value < BE.DOMAIN for e in a)
    assert all(e.atom.args == () for e in BE.workload_events("W1", 300, seed=7))
    assert {e.atom.name for e in BE.workload_events("W1", 300, seed=7)} <= {"a", "b"} | set(BE.NOISE)
    assert {e.atom.name for e in BE.workload_events("W1ab", 300, seed=7)} == {"a", "b"}
    assert [e.atom for e in BE.workload_events("W2", 200, seed=8)] != [e.atom for e in b]
    # the timed pass sees the same events, built block by block
    d = BE.workload_draws("W3", 2500, 7)
    fed = [(e.atom, e.start, e.position) for blk in BE.blocks(d) for e in blk]
    assert fed == [(e.atom, e.start, e.position) for e in BE.workload_events("W3", 2500, seed=7)]


def test_programs_parse_with_and_without_window():
    for wl in BE.WORKLOADS:
        for w in (None, 10):
            prog = BE.parse_workload(wl, w)
            assert len(prog.event_rules) == len(BE.WORKLOADS[wl].rules)
    assert "event_rule_window, 10" in BE.WORKLOADS["W1"].text(10)
    assert "window" not in BE.WORKLOADS["W1"].text(None) and ").20." in BE.WORKLOADS["W3"].text(20)


def test_grid_shapes():
    d = BE.make_grid("default")
    cells = set(d.cells)
    assert {(wl, p, n, 10) for wl in ("W1", "W1ab") for p in BE.POLICIES for n in (10_000, 100_000)} <= cells
    assert {("W1", p, n, None) for p in ("chronological", "recent") for n in (10_000, 100_000)} <= cells
    assert {(wl, p, 100_000, 20) for wl in ("W2", "W3") for p in BE.POLICIES} <= cells
    assert max(n for wl, p, n, w in d.cells if p == "unrestricted" and w is None) <= 10_000  # n^2 results
    assert {c[:2] for c in d.oracle_cases} == {(wl, p) for wl in ("W1", "W2", "W3", "WA") for p in BE.POLICIES}
    assert dict(((c[0], c[1]), c[3]) for c in d.oracle_cases)[("W1", "unrestricted")] == (100, 300, 1000)
    assert max(n for *_x, n, _w in BE.make_grid("full").cells) == 1_000_000
    q = BE.make_grid("quick")
    assert max(n for _wl, _p, n, _w in q.cells) <= 2000 and not q.peer_auto
    with pytest.raises(ValueError):
        BE.make_grid("huge")


def test_json_shape(quick_json):
    rep = quick_json
    grid = BE.make_grid("quick")
    assert rep["bench"] == "etalis" and rep["grid"] == "quick" and rep["seed"] == SEED
    assert [(r["workload"], r["policy"], r["n"], r["window"]) for r in rep["rows"]] == list(grid.cells)
    for r in rep["rows"]:
        assert ROW_KEYS <= set(r), ROW_KEYS - set(r)
        assert r["results"] >= 0 and r["stored"] <= r["stored_max"]
        assert len(r["chunk_us"]) == 10
    assert set(rep["workload"]["programs"]) == {"W1", "W1ab", "W2", "W3", "WA"}
    assert "peer" not in rep          # the quick grid runs the peer only when asked for
    assert rep["disagreements"] == []
    kinds = {t["target"].split(" (")[0] for t in rep["targets"]}
    assert {"throughput >= 100k ev/s", "throughput >= 30k ev/s", "memory bounded by window"} <= kinds
    assert all(isinstance(t["ok"], bool) for t in rep["targets"])


def test_engine_and_oracle_agree(quick_json):
    rows = quick_json["oracle"]
    expected = [(wl, p, n) for wl, p, _w, ns in BE.make_grid("quick").oracle_cases for n in ns]
    assert [(o["workload"], o["policy"], o["n"]) for o in rows] == expected
    for o in rows:
        if o["policy"] == "unrestricted":
            assert o["status"] == "decided", o
        assert o["status"] in ("decided", "n/a", "undecided", "skipped", "error"), o
        if o["status"] == "decided":
            assert o["agree"] is True, o
            assert o["results"] == o["engine_results"]


def test_counts_reproducible_and_prefix_stable(quick_json):
    by = {(r["workload"], r["policy"], r["n"], r["window"]): r for r in quick_json["rows"]}
    # same seed, recomputed from scratch: same result count and stored goals
    BE._DRAWS.clear()
    for key in [("W1", "unrestricted", 2000, 10), ("W2", "recent", 1000, 20), ("W3", "chronological", 1000, 20)]:
        wl, pol, n, w = key
        m = BE.memory_pass(BE.engine_factory(wl, pol, w), BE.workload_draws(wl, n, quick_json["seed"]))
        assert (m["results"], m["stored"]) == (by[key]["results"], by[key]["stored"]), key
    # prefix-stable: the results on the first n events are those of the longer stream that end before n
    for wl, w in (("W1", 10), ("W2", 20), ("W3", 20)):
        for pol in BE.POLICIES:
            fac = BE.engine_factory(wl, pol, w)
            short = BE.engine_results(fac, BE.workload_events(wl, 300, seed=3))
            long = BE.engine_results(fac, BE.workload_events(wl, 600, seed=3))
            assert short == [r for r in long if r[2] < 300], (wl, pol)
    # windows bound the stores; without a window unrestricted keeps every a
    assert by[("W1", "unrestricted", 500, None)]["stored"] > by[("W1", "unrestricted", 250, None)]["stored"]
    assert all(r["stored_max"] <= 40 for r in quick_json["rows"] if r["window"] is not None)


def test_render_prints_every_table(quick_json):
    from rich.console import Console
    buf = io.StringIO()
    BE.render(quick_json, Console(file=buf, width=220))
    text = buf.getvalue()
    for title in ("update throughput", "Memory with and without windows", "Oracle as the stream grows", "Targets"):
        assert title in text
    assert "event_rule_window, w" in text     # rich markup must not eat the brackets of the programs
    head = next(line for line in text.splitlines() if "cold ev/s" in line)
    assert head.index("cold ev/s") < head.index("warm ev/s") and "floor" in text


def test_cold_and_warm_and_floor(quick_json):
    for r in quick_json["rows"]:
        assert r["clock"] == "cpu" and r["update_eps"] >= r["cold_update_eps"] * (1 - 1e-9) > 0
    assert [f["n"] for f in quick_json["floor"]] == sorted({r["n"] for r in quick_json["rows"]})


def test_run_rejects_bad_names():
    assert run("nosuch", quick=True) == 2
    assert run("cel", peer="etalis", quick=True) == 2
    assert run("etalis", peer="opencep", quick=True) == 2
    assert "etalis" in BE.BENCHMARK.peers and BE.BENCHMARK.name == "etalis"


def _tiny_grid() -> BE.Grid:
    return dataclasses.replace(BE.make_grid("quick"), cells=(("W1", "recent", 200, 10),), oracle_cases=(),
                               peer_n=300)


def test_peer_absent_is_named(monkeypatch):
    monkeypatch.delenv("ETALIS_HOME", raising=False)
    rep = BE.bench_etalis(_tiny_grid(), peer="etalis")
    assert "ETALIS_HOME is not set" in rep["peer"]["absent"]
    assert all("peer_cpu_warm_eps" not in r for r in rep["peer"]["rows"])
    assert all(r["our_cpu_warm_eps"] > 0 for r in rep["peer"]["rows"])
    assert any(t["target"].startswith("ratio to ETALIS") and t["ok"] is None and "ETALIS_HOME" in t["detail"]
               for t in rep["targets"])
    from rich.console import Console
    buf = io.StringIO()
    BE.render(rep, Console(file=buf, width=2000))
    assert "Peer etalis: absent, not run: " in buf.getvalue() and "ETALIS_HOME" in buf.getvalue()


def test_peer_ratios_use_one_clock_each_and_the_purge(monkeypatch):
    """A fake ETALIS with known wall and CPU times: each ratio divides figures of the same clock, both clocks are
    named in the table, and every row asks ETALIS for the window purge."""
    from ceplab.workbench.langs.etalis import peer as peer
    calls = []

    def fake_time_seq(n, window, policy, **kw):
        flag = kw.get("etalis_flag")
        calls.append((n, window, f"flag {flag}" if flag else policy, kw.get("purge")))
        return timing(n, window, policy, kw.get("purge"), flag)

    def timing(n, window, policy, purge, flag=None):
        if policy == "recent" and flag is None:    # our recent: no ETALIS counterpart (an ETALIS flag is one)
            raise peer.UnsupportedError("no ETALIS counterpart")
        k = sum(1 for c in calls if c[:3] == calls[-1][:3])   # runs of this row so far
        wall, cpu = (2.0, 1.0) if k == 1 else (1.0, 0.5)       # first run slower (cold), then faster (warm)
        return peer.SeqTiming(n, wall, cpu, flag or policy, False, window if purge else None)

    def fake_time_program(rules, events, policy="unrestricted", *, purge_window=None, etalis_flag=None, **kw):
        calls.append((len(events), rules, f"flag {etalis_flag}" if etalis_flag else policy, purge_window))
        return timing(len(events), purge_window, policy, True, etalis_flag)

    monkeypatch.setattr(peer, "unavailable_reason", lambda: None)
    monkeypatch.setattr(peer, "time_seq", fake_time_seq)
    monkeypatch.setattr(peer, "time_program", fake_time_program)
    rep = BE.bench_etalis(_tiny_grid(), peer="etalis")
    rows = rep["peer"]["rows"]
    assert [(r["workload"], r["policy"]) for r in rows] == (
        [("W1", p) for p in BE.POLICIES + BE.IMPLEMENTATION_POLICIES]
        + [("W3", p) for p in BE.POLICIES + BE.IMPLEMENTATION_POLICIES]
        + [("WA", p) for p in ("unrestricted", "chronological", "recent_lifo")])
    assert calls[0] == (300, 10, "unrestricted", True)
    assert all(c[3] for c in calls)                            # ETALIS runs with the purge ceplab has
    # the hierarchy with its windows; the aggregate without (ETALIS has no aggregate in a labelled rule), purged
    # one tick earlier (module docstring of the bench)
    w3 = [c for c in calls if isinstance(c[1], str) and "l3(X)" in c[1]]
    wa = [c for c in calls if isinstance(c[1], str) and "aggregate" in c[1]]
    assert w3 and all(c[1] == BE.WORKLOADS["W3"].text(10) and c[3] == 10 for c in w3)
    assert wa and all(c[1] == BE.WORKLOADS["WA"].text(None) and c[3] == 9 for c in wa)
    assert "error" in rows[2] and "error" in rows[8]                        # our recent: no ETALIS counterpart
    assert [r["flag"] for r in rows if r["policy"] in BE.IMPLEMENTATION_POLICIES] == ["chronological", "recent"] * 2
    for i, r in enumerate(rows):
        if i in (2, 8):
            continue
        assert r["purge_window"] == (9 if r["workload"] == "WA" else 10)
        for clk in ("cpu", "wall"):
            assert r[f"our_{clk}_clock"] == r[f"peer_{clk}_clock"] == clk
            assert r[f"ratio_{clk}"] == pytest.approx(r[f"our_{clk}_warm_eps"] / r[f"peer_{clk}_warm_eps"])
            assert r[f"cold_ratio_{clk}"] == pytest.approx(r[f"our_{clk}_cold_eps"] / r[f"peer_{clk}_cold_eps"])
        assert r["peer_cpu_warm_eps"] == pytest.approx(300 / 0.5) and r["peer_wall_cold_eps"] == pytest.approx(150)
    assert sum(t["target"].startswith("ratio to ETALIS") for t in rep["targets"]) == 13
    from rich.console import Console
    buf = io.StringIO()
    BE.render(rep, Console(file=buf, width=3000))
    text = buf.getvalue()
    for clk in ("CPU", "wall"):
        assert f"ours warm ev/s ({clk})" in text and f"ETALIS warm ev/s ({clk})" in text
        assert f"ratio warm ({clk})" in text
    assert "window purge" in text


def test_ratio_refuses_mixed_clocks():
    from ceplab.workbench.bench.harness import Timing, ratio
    with pytest.raises(ValueError):
        ratio(Timing.of_runs("cpu", [1.0], 10), Timing.of_runs("wall", [1.0], 10))


def test_peer_aggregate_row_computes_the_windowed_results():
    """The WA peer row runs ETALIS on the unwindowed rule with the goals purged after w-1 ticks: on the bench stream
    (one event per tick) that is exactly the windowed program's answer, which ceplab's engine computes."""
    from ceplab.engine.etalis import evaluator
    from ceplab.semantics.etalis.options import Options
    from ceplab.workbench.langs.etalis import peer
    reason = peer.unavailable_reason()
    if reason is not None:
        pytest.skip(reason)
    w = BE.TARGET_WINDOW
    evs = BE.workload_events("WA", 1500)
    for pol, flag in BE.WA_FLAGS.items():
        ours = set(evaluator(BE.parse_workload("WA", w), Options(policy=pol)).run(evs))
        theirs = peer.run_etalis(BE.WORKLOADS["WA"].text(None), evs, etalis_flag=flag, purge_window=w - 1).results
        assert ours and theirs == ours, pol
