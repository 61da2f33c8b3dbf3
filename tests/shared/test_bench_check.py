"""``ceplab bench check`` (ceplab.workbench.bench.check): each run is a fresh ``ceplab check`` process on its own
Spark; the table reports agreeing runs with their times and the ratios, and a run that does not agree with its
verdict, never a time."""
from __future__ import annotations

import io

from ceplab.workbench import language
from ceplab.workbench.bench import check as B
from ceplab.workbench.bench.harness import output_console


def test_cold_runs_on_local_1_and_local_2(tmp_path):
    rep = B.run([language.get("cel")], events=5000, w=50, seed=3, connect=False, folder=tmp_path)
    (m,) = rep["languages"]
    one, two = m["rows"]
    assert (one["where"], two["where"]) == ("local[1]", "local[2]")
    for r in (one, two):
        assert r["verdict"] == "agree" and r["oracle_count"] == r["engine_count"] > 0 and r["segments"] == 3
        assert r["wall_s"] > r["solve_span_s"] > 0
    assert one["workers"] == 1 and m["ratios"]["cold"]["wall"] == one["wall_s"] / two["wall_s"]
    buf = io.StringIO()
    B.render(rep, output_console(buf))
    assert "local[2]" in buf.getvalue() and "not n, w of the target" in buf.getvalue()


def test_a_run_that_fails_is_reported_without_a_time(tmp_path):
    L = language.get("cel")
    data, query, sets = B.write_workload(L, 300, 20, 1, tmp_path)
    query.write_text("(A AS a ; B AS b) FILTER (a.v = b.v)\n")       # no WITHIN: not local, exit 2
    row = B._row("local[1]", B.run_check("cel", query, data, sets, []))
    assert row["verdict"] == "error" and row["wall_s"] is None and "not declare this query local" in row["error"]
