"""CEA constructions: offline I/O-determinization (Proposition 1), closure under union,
intersection and complement, the predicate algebra (sympy), and run counting (docs/semantics/cel.md#cel-5.4,
claim 7.9)."""
from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from ceplab.engine.cel import compile_query
from ceplab.engine.cel.automaton import CEA, Label, Transition
from ceplab.engine.cel.determinize import (PredicateAlgebra, TypeLabel, complement, determinize,
                                    intersection, is_io_deterministic, label_holds,
                                    predicate_types, runs, union)
from ceplab.engine.cel.evaluate import DetEvaluator
from ceplab.semantics.cel import ast as A
from ceplab.semantics.cel.ast import Query
from ceplab.semantics.cel.parser import parse
from ceplab.semantics.errors import UnsupportedError
from ceplab.semantics.events import Event, Stream
from ceplab.workbench.langs.cel.generators import cel_formulas

from cel_brute import brute_all


def _streams(seed, k=25, max_len=6, types="ABC"):
    rng = random.Random(seed)
    for _ in range(k):
        yield Stream.of([(rng.choice(types), {"v": rng.randrange(3)})
                         for _ in range(rng.randrange(max_len + 1))])


def _cea(text):
    return compile_query(parse(text))


# ---------------------------------------------------------------- predicate algebra
def test_predicate_algebra_implications():
    v = lambda op, c: Label("A", A.Cmp("x", "v", op, c), "x")  # noqa: E731
    alg = PredicateAlgebra([v(">", 2), v(">=", 1), v("=", 1), v("=", 2), v("<", 1), v("<", 3),
                            v("=", "s"), v("=", True), Label("B"), Label()])
    assert alg.disjoint(v(">", 2), v("<", 1))
    assert alg.disjoint(v("=", 1), v("=", 2))
    assert not alg.disjoint(v(">", 2), v(">=", 1))
    assert alg.disjoint(v("=", "s"), v("=", 1))         # kinds differ (docs/semantics/cel.md#cel-G6)
    assert alg.disjoint(v("=", True), v(">=", 1))       # booleans are not numbers
    assert alg.disjoint(Label("A"), Label("B"))         # types are exclusive
    assert not alg.disjoint(Label(), Label("B"))
    # NOT (v >= 1) includes events without v: satisfiable together with v < 1 and alone
    neg = Label("A", A.PNot(A.Cmp("x", "v", ">=", 1)), "x")
    assert not alg.disjoint(neg, v("<", 1))
    assert alg.disjoint(neg, v(">", 2))
    # v > 2 and v < 3 is satisfiable over numbers (2.5)
    assert not alg.disjoint(v(">", 2), v("<", 3))
    with pytest.raises(ValueError, match="universe"):
        alg.disjoint(v(">", 2), v("<", 7))


def test_predicate_types_partition_events():
    labels = [Label("A", A.Cmp("x", "v", ">=", 1), "x"), Label("A", A.Cmp("y", "v", "=", 0), "y"),
              Label("B"), Label()]
    types = predicate_types(labels)
    events = [Event(t, 0, a, 0) for t in ("A", "B", "C")
              for a in ({}, {"v": 0}, {"v": 1}, {"v": 2}, {"v": "s"}, {"v": True})]
    for e in events:
        matching = [vec for lab, vec in types if label_holds(lab, e)]
        assert len(matching) == 1, e
        assert matching[0] == tuple(label_holds(l, e) for l in labels)
    # A-types: v>=1 & !v=0, !v>=1 & v=0, neither (missing); both is unsatisfiable
    assert sum(1 for lab, _ in types if lab.rel == "A") == 3
    other = [lab for lab, _ in types if lab.rel is None]
    assert len(other) == 1 and other[0].exclude == frozenset({"A", "B"})
    assert str(other[0]).startswith("type∉{A,B}")


# ---------------------------------------------------------------- determinization
PAPER = ["A AS a ; B AS b ; C AS c", "(A AS a OR B AS b OR C AS c) ; D AS d",
         "(A AS a)+ ; B AS b", "(A AS a)+ ; (B AS b)+ ; C AS c", "((A AS a)+ ; B AS b)+ ; C AS c",
         "(A AS x FILTER x.v = 0 OR A AS y FILTER y.v >= 1) ; (B AS z FILTER z.v != 2)+",
         "(A AS x FILTER x.v > 0)+ ; (A AS y FILTER y.v < 2) ; C AS z"]


def _check_det(cea, seed, types="ABC", k=25):
    d = determinize(cea)
    assert is_io_deterministic(d)
    for s in _streams(seed, k=k, types=types):
        r1, r2 = runs(cea, s), runs(d, s)
        assert set(r1) == set(r2)
        assert all(n == 1 for n in r2.values()), "two runs produce the same CE"
        assert sorted(DetEvaluator(d).run(s)) == sorted(r1)
        assert sorted(DetEvaluator(d, strict=True).run(s)) == sorted(
            DetEvaluator(cea, strict=True).run(s))
    return d


@pytest.mark.parametrize("text", PAPER)
def test_determinize_paper_queries(text):
    cea = _cea(text)
    d = _check_det(cea, 1, types="ABCD")
    assert set(d.subsets.values()) >= {frozenset({cea.initial})}
    assert d.n_states <= 2 ** cea.n_states


def test_nondeterministic_compiled_automaton_is_detected():
    cea = _cea("(A AS a)+ ; B AS b")
    assert not is_io_deterministic(cea)   # q0 has TRUE/◦ and A/• ... and A/◦ loops overlap
    counts = runs(cea, Stream.of(list("AAB")))
    # the run count still gives exactly the semantics (docs/semantics/cel.md#cel-6.4, Q4 on the prefix AAB)
    assert set(counts) == {(0, 2), (1, 2), (0, 1, 2)} and min(counts.values()) >= 1


@given(cel_formulas(unary_only=True, safe_only=True, allow_and=False, max_atoms=4),
       st.integers(0, 10 ** 6))
def test_determinize_random(f, seed):
    cea = compile_query(Query(f))
    assume(len(cea.labels()) <= 8)
    _check_det(cea, seed, k=8)


def test_determinize_complete_has_one_transition_per_type_and_mark():
    cea = _cea("(A AS x FILTER x.v = 0)+ ; B AS y")
    d = determinize(cea, complete=True)
    n_types = len({t.label for t in d.transitions})
    for q in range(d.n_states):
        out = [t for t in d.transitions if t.src == q]
        assert len(out) == 2 * n_types


def test_determinize_rejects_registers():
    cea = compile_query(parse("A AS x ; B AS y FILTER y.v = x.v"))
    assert cea.registers
    with pytest.raises(UnsupportedError, match="register"):
        determinize(cea)


# ---------------------------------------------------------------- closure
def _ref(text, s):
    """[[phi]] per the brute-force definitions."""
    return brute_all(parse(text).formula, s)


PAIRS = [("A AS a ; B AS b", "(A AS a)+ ; B AS b"),
         ("(A AS x FILTER x.v = 0) ; B AS y", "A AS x ; (B AS y FILTER y.v > 0)"),
         ("(A AS a OR C AS c) ; B AS b", "(C AS c)+ ; (B AS b)+")]


@pytest.mark.parametrize("t1,t2", PAIRS)
def test_union_and_intersection(t1, t2):
    a, b = _cea(t1), _cea(t2)
    u, i = union(a, b), intersection(a, b)
    for s in _streams(7):
        r1, r2 = _ref(t1, s), _ref(t2, s)
        assert set(runs(u, s)) == r1 | r2
        assert set(runs(i, s)) == r1 & r2
        assert frozenset(DetEvaluator(u).run(s)) == r1 | r2
        assert frozenset(DetEvaluator(i).run(s)) == r1 & r2


@pytest.mark.parametrize("text", ["A AS a ; B AS b", "(A AS x FILTER x.v >= 1)+",
                                  "(A AS a OR B AS b) ; (C AS c)+"])
def test_complement(text):
    cea = _cea(text)
    c = complement(cea)
    for s in _streams(11, max_len=5):
        n = len(s)
        every = {tuple(sorted(x)) for k in range(n) for r in range(0, k + 1)
                 for x in itertools.combinations(range(k), r)}
        every = {x + (k,) for x in every for k in range(n) if not x or x[-1] < k}
        want = every - _ref(text, s)
        got = DetEvaluator(c).run(s)
        assert len(got) == len(set(got))
        assert set(got) == want
        assert set(runs(c, s)) == want


def test_runs_on_hand_built_automaton():
    # q0 --A/•--> q1 (final), q0 --TRUE/◦--> q0, q1 --B/◦--> q1 (final entered by ◦ too)
    cea = CEA(2, 0, frozenset({1}), [Transition(0, Label("A"), True, 1),
                                     Transition(0, Label(), False, 0),
                                     Transition(1, Label("B"), False, 1)])
    s = Stream.of(list("ABA"))
    assert set(runs(cea, s)) == {(0,), (2,)}
    assert sorted(DetEvaluator(cea).run(s)) == [(0,), (2,)]  # only runs ending by •


def test_type_label_in_evaluator():
    # the "other" type must not match events of excluded types
    lab = TypeLabel(None, A.PTrue(), "_", exclude=frozenset({"A"}))
    cea = CEA(2, 0, frozenset({1}), [Transition(0, lab, True, 1)])
    ev = DetEvaluator(cea)
    assert ev.push(Event("A", 0, {}, 0)) == []
    ev = DetEvaluator(cea)
    assert ev.push(Event("Z", 0, {}, 0)) == [(0,)]
