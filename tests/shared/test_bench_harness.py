"""The shared benchmark harness (``ceplab.workbench.bench``): it names no language, its contract is small and
typed, the floor and the cold/warm figures are computed one way, ratios never mix clocks, ``--json`` prints one
object, and tables off a terminal are printed at full width."""
from __future__ import annotations

import ast
import contextlib
import dataclasses
import io
import json
import re
from pathlib import Path

import pytest

from ceplab.workbench import bench as H
from ceplab.workbench.bench import harness

LANGS = ("cel", "etalis", "epsparql")
PKG = Path(H.__file__).parent


def _docstring_nodes(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = getattr(node, "body", [])
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                out.add(id(body[0].value))
    return out


def _words(text: str) -> set[str]:
    return {w.lower() for w in re.split(r"[^A-Za-z0-9]+|_", text) if w}


def test_harness_package_names_no_language():
    files = sorted(PKG.glob("*.py"))
    assert {f.name for f in files} >= {"__init__.py", "harness.py"}
    for f in files:
        tree = ast.parse(f.read_text(encoding="utf-8"))
        docs = _docstring_nodes(tree)
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Name):
                names = [node.id]
            elif isinstance(node, ast.Attribute):
                names = [node.attr]
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names = [node.name]
            elif isinstance(node, ast.arg):
                names = [node.arg]
            elif isinstance(node, ast.alias):
                names = [node.name, node.asname or ""]
            elif isinstance(node, ast.keyword) and node.arg:
                names = [node.arg]
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
                names = [node.value]
            for nm in names:
                bad = _words(nm) & set(LANGS)
                assert not bad, f"{f.name}:{getattr(node, 'lineno', '?')}: {nm!r} names {bad}"


def test_contract_is_small_and_typed():
    assert [f.name for f in dataclasses.fields(H.BenchRequest)] == ["json", "peer", "quick", "full", "seed"]
    assert [f.name for f in dataclasses.fields(H.Benchmark)] == ["name", "peers", "make_grid", "measure", "render"]
    assert H.BenchRequest() == H.BenchRequest(json=False, peer=None, quick=False, full=False, seed=None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        H.BenchRequest().json = True


def _fake(name: str, peers=(), disagreements=()):
    seen = {}

    def measure(grid, seed, peer, note):
        note("working")
        seen.update(grid=grid, seed=seed, peer=peer)
        return {"bench": name, "x": float("inf"), "disagreements": list(disagreements)}

    def render(report, console):
        console.print(f"{report['bench']} " + "wide " * 60 + "end")
    return H.Benchmark(name, tuple(peers), lambda kind: f"grid-{kind}", measure, render), seen


def test_run_loop_json_and_codes(capsys, monkeypatch):
    monkeypatch.delenv("CEPLAB_BENCH_SEED", raising=False)
    monkeypatch.delenv("CEPLAB_BENCH_FULL", raising=False)
    a, seen_a = _fake("alpha", peers=("p1",))
    b, seen_b = _fake("beta", disagreements=("oops",))
    marks = {"alpha": a, "beta": b}
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert H.run(marks, None, H.BenchRequest(json=True, peer="p1", quick=True)) == 1
    text = buf.getvalue()
    assert text.count("\n") == 1
    obj = json.loads(text)
    assert set(obj["reports"]) == {"alpha", "beta"} and obj["reports"]["alpha"]["x"] is None   # inf -> null
    assert seen_a == {"grid": "grid-quick", "seed": harness.SEED, "peer": "p1"} and seen_b["peer"] is None
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert H.run(marks, "alpha", H.BenchRequest(json=True, seed=5)) == 0
    assert json.loads(buf.getvalue())["bench"] == "alpha" and seen_a["grid"] == "grid-default"
    assert seen_a["seed"] == 5
    monkeypatch.setenv("CEPLAB_BENCH_FULL", "1")
    assert H.run(marks, "alpha", H.BenchRequest(json=True)) == 0 and seen_a["grid"] == "grid-full"
    capsys.readouterr()
    assert H.run(marks, "gamma", H.BenchRequest()) == 2
    assert H.run(marks, "alpha", H.BenchRequest(peer="nope")) == 2
    assert H.run(marks, "beta", H.BenchRequest(peer="p1")) == 2
    assert H.run(marks, "alpha", H.BenchRequest(quick=True, full=True)) == 2
    monkeypatch.setenv("CEPLAB_BENCH_SEED", "x")
    assert H.run(marks, "alpha", H.BenchRequest()) == 2
    err = capsys.readouterr().err
    assert "unknown benchmark 'gamma'" in err and "unknown peer 'nope'" in err and "does not apply" in err
    assert "CEPLAB_BENCH_SEED" in err


def test_tables_off_a_terminal_are_full_width(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    a, _ = _fake("alpha")
    assert H.run({"alpha": a}, "alpha", H.BenchRequest(quick=True)) == 0
    out = capsys.readouterr().out
    assert out.splitlines() == ["alpha " + "wide " * 60 + "end"]


def test_floor_is_the_timed_loop_with_a_no_op():
    blocks = lambda lo, hi: [list(range(a, min(hi, a + 7))) for a in range(lo, hi, 7)]   # noqa: E731
    f = harness.floor_pass(500, blocks, 3)
    assert f["n"] == 500 and f["clock"] == harness.CPU
    assert f["eps"] > 0 and f["cold_eps"] > 0 and f["seconds"] <= f["cold_seconds"] + 1e-12


def test_chunk_stats_cold_is_first_warm_is_best_per_tenth():
    r1 = [2.0] * 10
    r2 = [1.0] * 5 + [3.0] * 5
    c = harness.chunk_stats([r1, r2], 100)
    assert c["cold_seconds"] == 20.0 and c["seconds"] == 15.0 and c["clock"] == "cpu" and c["repeats"] == 2
    assert c["eps"] == pytest.approx(100 / 15) and c["cold_eps"] == pytest.approx(5.0)


def test_timings_and_ratio_share_a_clock():
    ours = harness.Timing.of_runs(harness.WALL, [2.0, 1.0, 1.5], 100)
    theirs = harness.Timing.of_runs(harness.WALL, [4.0, 4.0], 100)
    assert (ours.cold, ours.warm) == (2.0, 1.0)
    assert harness.ratio(ours, theirs) == pytest.approx(4.0) and harness.ratio(ours, theirs, "cold") == 2.0
    assert ours.to_json("our") == {"our_clock": "wall", "our_cold_eps": 50.0, "our_warm_eps": 100.0}
    with pytest.raises(ValueError):
        harness.ratio(ours, harness.Timing.of_runs(harness.CPU, [1.0], 100))
    with pytest.raises(ValueError):
        harness.Timing.of_runs("sundial", [1.0], 1)
    with pytest.raises(ValueError):
        harness.Timing.of_runs(harness.CPU, [], 1)
