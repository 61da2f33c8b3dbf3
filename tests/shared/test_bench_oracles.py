"""``ceplab bench oracles`` (ceplab.workbench.bench.oracles): the exponent fit, undecided calls reported as such,
and the quick grid end to end through the CLI."""
from __future__ import annotations

import json
import math

import pytest
from typer.testing import CliRunner

from ceplab.workbench import language
from ceplab.workbench.bench import oracles as O
from ceplab.workbench.cli import app


def test_fit_exponent_recovers_power_laws():
    xs = [100, 1000, 10_000]
    assert math.isclose(O.fit_exponent(xs, [3 * x ** 2 for x in xs]), 2.0)
    assert math.isclose(O.fit_exponent(xs, [7 * x for x in xs]), 1.0)
    assert O.fit_exponent(xs, [None, 5, None]) is None      # fewer than two decided points
    assert O.fit_exponent([10, 10], [1, 2]) is None


def test_an_oracle_over_its_limit_is_undecided_not_timed():
    r = O.oracle_point(language.get("etalis"), 400, 50, 1, time_s=0.001)
    assert r["undecided"] and r["results"] is None


@pytest.mark.parametrize("name", [L.name for L in language.languages() if L.oracle_workload is not None])
def test_every_workload_is_windowed_and_parses(name):
    L = language.get(name)
    t10, s10, _ = L.oracle_workload(30, 10, 1)
    t20, s20, _ = L.oracle_workload(30, 20, 1)
    assert t10 != t20 and "10" in t10 and "20" in t20
    assert len(list(s10)) == 30 and L.parse(t10) is not None


def test_quick_grid_through_the_cli():
    res = CliRunner().invoke(app, ["bench", "oracles", "cel", "--quick", "--json"])
    assert res.exit_code == 0, res.output
    rep = json.loads(res.stdout.strip().splitlines()[-1])
    (m,) = rep["languages"]
    assert m["lang"] == "cel" and rep["grid"] == "quick"
    rows = m["by_n"]["rows"]
    assert [r["n"] for r in rows] == list(O.GRIDS["quick"].ns)
    assert all(r["undecided"] is None and r["atoms"] > 0 for r in rows)
    assert rows[0]["atoms"] < rows[-1]["atoms"]
    assert m["by_n"]["atoms_exponent"] is not None and 0.5 < m["by_n"]["atoms_exponent"] < 2
    assert [f["length"] for f in m["fuzz"]] == [6, 12]
    assert all(sum(f["verdicts"].values()) == f["cases"] for f in m["fuzz"])
    assert {t["target"].split(",")[0] for t in m["targets"]} >= {"fuzz cases/min/core"}
    res = CliRunner().invoke(app, ["bench", "oracles", "nosuchlang"])
    assert res.exit_code == 2
