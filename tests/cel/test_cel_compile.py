"""Theorem 3 construction: shape of the compiled automata (docs/semantics/cel.md#cel-5.2, claim 7.7)."""
import pytest

from ceplab.engine.cel.compile import compile_formula
from ceplab.semantics.cel import ast as A
from ceplab.semantics.cel.parser import parse

QUERIES = ["A AS a ; B AS b ; C AS c", "A AS a ; B AS b ; C AS c ; D AS d",
           "(A AS a OR B AS b OR C AS c) ; D AS d", "(A AS a)+ ; B AS b",
           "(A AS a)+ ; (B AS b)+ ; C AS c", "((A AS a)+ ; B AS b)+ ; C AS c",
           "(H AS x FILTER x.hum < 30) ; (T AS y FILTER y.id = 1)+ ; (H AS z FILTER z.hum > 60)"]


@pytest.mark.parametrize("text", QUERIES)
def test_linear_size_and_marking_into_finals(text):
    f = parse(text).formula
    cea = compile_formula(f, normalise=False)
    n_atoms = len(A.atoms(f))
    n_or = sum(isinstance(g, A.Or) for g in A.subformulas(f))
    assert cea.n_states <= 2 * n_atoms + 2 * n_or
    assert cea.finals and all(t.mark for t in cea.transitions if t.dst in cea.finals)
    assert cea.registers == {}
    # every marking transition tests the type of its atom
    assert {t.label.rel for t in cea.transitions if t.mark} == {a.rel for a in A.atoms(f)}


def test_binary_filter_uses_registers():
    f = parse("(H AS x ; (T AS y FILTER y.id = x.id)+ ; H AS z) "
              "FILTER (x.hum < 30 AND z.hum > 60 AND x.id = z.id)").formula
    cea = compile_formula(f)
    assert cea.registers == {"x": ("id",)}
    assert {t.store for t in cea.transitions if t.store} == {"x"}


def test_graph_export():
    cea = compile_formula(parse("(A AS a)+ ; B AS b").formula, normalise=False)
    g = cea.to_networkx()
    assert g.number_of_nodes() == cea.n_states and g.number_of_edges() == len(cea.transitions)
    assert [n for n, d in g.nodes(data=True) if d["final"]] == sorted(cea.finals)
