"""The EP-SPARQL engine's planted bugs (workbench/langs/epsparql/mutants.py, ``ceplab bench mutants epsparql``):
every mutant has an exposing input, on which the original engine agrees with the oracle; on a mutated engine copy
the same input is a disagreement (checked in a child process for one mutant: a copy per mutant is the bench's
job)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from ceplab.workbench import language, mutants as M
from ceplab.workbench.compare import compare, options_from_kv
from ceplab.workbench.langs.epsparql.mutants import EXPOSING, MUTANTS, query_text, stream_text


def _case(name, tmp_path):
    query, occs, sets = EXPOSING[name]
    q, s = tmp_path / "q.rq", tmp_path / "s.stream"
    q.write_text(query_text(query))
    s.write_text(stream_text(occs))
    return q, s, [f"{k}={v}" for k, v in sets]


def test_the_plugin_declares_them_and_each_has_its_exposing_input():
    L = language.get("epsparql")
    assert L.mutants() == MUTANTS and len(MUTANTS) >= 10
    assert {m.name for m in MUTANTS} == set(EXPOSING)
    assert {m.file for m in MUTANTS} == {"epsparql/evaluate.py", "epsparql/expr.py"}   # not the ETALIS backend
    for m in MUTANTS:
        assert "docs/semantics/epsparql.md#epsparql-" in m.description, m.name
        assert m.exposes.startswith(EXPOSING[m.name][0] + " on "), m.name


@pytest.mark.parametrize("name", sorted(EXPOSING))
def test_exposing_input_agrees_on_the_original_engine(name, tmp_path):
    L = language.get("epsparql")
    q, s, sets = _case(name, tmp_path)
    rep = compare(L, L.parse_file(q), L.read_stream(s), options_from_kv(L.options, sets))
    assert rep.verdict == "agree", (name, rep.problems)


def test_join_window_lookup_mutant_is_exposed_by_its_input(tmp_path):
    """Under FILTER(getDURATION() < 2) the Join's partner ending at T - 1 is looked up with bisect_left; the
    mutant's bisect_right misses it, so the row on [0,1] is lost."""
    m = next(m for m in MUTANTS if m.name == "join-window-lookup")
    tree = M.mutated_tree(m, tmp_path / "tree")
    q, s, _ = _case(m.name, tmp_path)
    p = subprocess.run([sys.executable, "-m", "ceplab.workbench.cli", "compare", "epsparql", str(q), str(s),
                        "--json"], env={**os.environ, "PYTHONPATH": str(tree)}, cwd=str(tree),  # not the checkout
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 1, p.stderr
    rep = json.loads(p.stdout)
    assert rep["engine_only"] == [] and [(r["start"], r["end"]) for r in rep["oracle_only"]] == [(0, 1)]
