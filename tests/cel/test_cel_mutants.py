"""The CEL mutants of ``ceplab bench mutants cel`` (workbench/langs/cel/mutants.py): at least ten, each citing
rules of docs/semantics/cel.md that exist, each with an exposing input the original engine gets right (that
the mutated engine gets it wrong is what the bench checks; tests/shared/test_mutants.py runs one mutant)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from ceplab.workbench import language
from ceplab.workbench.compare import compare, options_from_kv
from ceplab.workbench.langs.cel.mutants import exposing_case, mutants
from ceplab.workbench.language import Mutant

DOC = Path(__file__).resolve().parents[2] / "docs" / "semantics" / "cel.md"


def test_a_fixed_set_of_at_least_ten_kinds_and_files():
    ms = mutants()
    assert len(ms) >= 10 and len({m.name for m in ms}) == len(ms)
    assert "window-off-by-one" in {m.name for m in ms}          # tests/shared/test_mutants.py uses it
    assert {"window", "filter", "selection", "ties", "iteration", "operator", "gc", "switch"} <= {m.kind for m in ms}
    assert {"cel/evaluate.py", "cel/interpret.py", "cel/strategies.py", "cel/compile.py", "cel/automaton.py",
            "cel/nested.py"} <= {m.file for m in ms}


def test_every_description_cites_anchors_that_exist():
    anchors = set(re.findall(r'<a id="([^"]+)"></a>', DOC.read_text(encoding="utf-8")))
    for m in mutants():
        assert "docs/semantics/cel.md#cel-" in m.description, m.name
        cited = {a.rstrip(".,;:") for a in re.findall(r"#(cel-[\w.-]+)", m.description)}
        assert cited and cited <= anchors, (m.name, cited - anchors)


@pytest.mark.parametrize("m", mutants(), ids=lambda m: m.name)
def test_the_original_engine_agrees_with_the_oracle_on_the_exposing_input(m):
    L = language.get("cel")
    q, stream, sets = exposing_case(m)
    rep = compare(L, L.parse(q), stream, options_from_kv(L.options, sets))
    assert rep.verdict == "agree", (m.name, rep.summary())
    assert len(stream) >= 1


def test_exposing_case_notation():
    m = Mutant("x", "k", "cel/evaluate.py", "a", "b", "d",
               'A AS a ; B AS b WITHIN 2 on A(v=1, s="x") [C B]*2 D() with --set max_scope=global '
               "--set engine_path=interpreted")
    q, s, sets = exposing_case(m)
    assert q == "A AS a ; B AS b WITHIN 2"
    assert [(e.type, e.attrs, e.position, e.time) for e in s] == [
        ("A", {"v": 1, "s": "x"}, 0, 0), ("C", {}, 1, 1), ("B", {}, 2, 2), ("C", {}, 3, 3), ("B", {}, 4, 4),
        ("D", {}, 5, 5)]
    assert sets == ["max_scope=global", "engine_path=interpreted"]
    for bad in ("A AS a", "A AS a on A(v)", "A AS a on A(v=nope)", "A AS a on 3A"):
        with pytest.raises(ValueError):
            exposing_case(Mutant("x", "k", "f", "a", "b", "d", bad))
