"""The ETALIS engine's planted bugs (workbench/langs/etalis/mutants.py, ``ceplab bench mutants etalis``): every
mutant has an exposing input, on which the original engine agrees with the oracle; on a mutated engine copy the
same input is a disagreement (checked in a child process for one mutant: a copy per mutant is the bench's job)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from ceplab.workbench import language, mutants as M
from ceplab.workbench.compare import compare, options_from_kv
from ceplab.workbench.langs.etalis.mutants import EXPOSING, MUTANTS, stream_text


def _case(name, tmp_path):
    rules, events, sets = EXPOSING[name]
    q, s = tmp_path / "q.event", tmp_path / "s.stream"
    q.write_text(rules + "\n")
    s.write_text(stream_text(events))
    return q, s, [f"{k}={v}" for k, v in sets]


def test_the_plugin_declares_them_and_each_has_its_exposing_input():
    L = language.get("etalis")
    assert L.mutants() == MUTANTS and len(MUTANTS) >= 10
    assert {m.name for m in MUTANTS} == set(EXPOSING)
    files = {m.file for m in MUTANTS}
    assert files == {"etalis/evaluate.py", "etalis/policy.py"}
    for m in MUTANTS:
        assert "docs/semantics/etalis.md#etalis-" in m.description, m.name
        assert m.exposes.startswith(EXPOSING[m.name][0] + " on "), m.name


@pytest.mark.parametrize("name", sorted(EXPOSING))
def test_exposing_input_agrees_on_the_original_engine(name, tmp_path):
    L = language.get("etalis")
    q, s, sets = _case(name, tmp_path)
    rep = compare(L, L.parse_file(q), L.read_stream(s), options_from_kv(L.options, sets))
    assert rep.verdict == "agree", (name, rep.problems)


def test_finishes_mutant_is_exposed_by_its_input(tmp_path):
    """FINISHES must start at p2's start: the mutant gives d(1) on [2,3] instead of [1,3]."""
    m = next(m for m in MUTANTS if m.name == "finishes-result-start")
    tree = M.mutated_tree(m, tmp_path / "tree")
    q, s, _ = _case(m.name, tmp_path)
    p = subprocess.run([sys.executable, "-m", "ceplab.workbench.cli", "compare", "etalis", str(q), str(s), "--json"],
                       env={**os.environ, "PYTHONPATH": str(tree)}, cwd=str(tree),   # not the checkout's ceplab/
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 1, p.stderr
    rep = json.loads(p.stdout)
    assert rep["oracle_only"] == [["d(1)", 1, 3]] and rep["engine_only"] == [["d(1)", 2, 3]]
