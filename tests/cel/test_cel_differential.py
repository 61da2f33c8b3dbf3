"""CEL: engine == oracle, and the metamorphic properties of issue 2 section 4.

Generated cases cover every operator (nested ``+``, OR inside ``;``, AND, unary and binary filters
on variables bound inside and outside iterations, WITHIN) and every strategy; streams use small
type alphabets and attribute values from {0,1,2}, with interleavings such as A B A B
(``ceplab.workbench.langs.cel.generators``). The ``ci`` profile runs 200 examples per test.
"""
from __future__ import annotations

from collections import Counter

from hypothesis import assume, given, note, strategies as st

from ceplab.asp.cel import oracle
from ceplab.asp.oracle import Limits, Undecided
from ceplab.engine.cel import evaluator
from ceplab.semantics.cel.analysis import WellFormednessError, check_well_formed
from ceplab.semantics.cel.ast import Or, Query, STRATEGIES
from ceplab.semantics.cel.options import Options
from ceplab.semantics.errors import UnsupportedError
from ceplab.workbench.compare import compare
from ceplab.workbench.language import get
from ceplab.workbench.langs.cel.generators import cel_cases, cel_formulas, cel_options, cel_streams

CEL = get("cel")
LIMITS = Limits(time_s=60)


def _oracle(q: Query, s, options: Options = Options()) -> frozenset:
    r = oracle(q, s, options, LIMITS)
    assume(not isinstance(r, Undecided))
    return r.results


def _engine(q: Query, s, options: Options = Options()) -> list[tuple[tuple[int, ...], int | None]]:
    """(complex event, position at which it was emitted; None = close())."""
    try:
        ev = evaluator(q, options)
    except UnsupportedError as e:
        note(f"engine refuses: {e}")
        assume(False)
    out = [(c, e.position) for e in s for c in ev.push(e)]
    return out + [(c, None) for c in ev.close()]


def _check(q: Query, s, options: Options) -> None:
    note(f"query: {q}\nstream: {[(e.type, e.attrs.get('v')) for e in s]}\noptions: {options}")
    try:
        rep = compare(CEL, q, s, options, LIMITS)
    except UnsupportedError as e:
        note(f"engine refuses: {e}")
        assume(False)
    assume(rep.undecided is None)
    assert rep.agree, rep.summary() + "\n" + "\n".join(rep.problems) + \
        f"\noracle only: {rep.oracle_only}\nengine only: {rep.engine_only}"


def _per_strategy(strategy: str):
    @given(cel_cases(max_len=7, strategies=(strategy,)), cel_options())
    def test(case, options):
        q, s = case
        _check(q, s, options)
    test.__name__ = f"test_engine_equals_oracle_{strategy.lower()}"
    return test


# engine == oracle for every strategy; compare() also checks that each complex event is emitted
# exactly once, at its last position (global MAX: at close()).
test_engine_equals_oracle_all = _per_strategy("ALL")
test_engine_equals_oracle_strict = _per_strategy("STRICT")
test_engine_equals_oracle_nxt = _per_strategy("NXT")
test_engine_equals_oracle_last = _per_strategy("LAST")
test_engine_equals_oracle_max = _per_strategy("MAX")


@given(cel_cases(min_len=1, max_len=7), st.data())
def test_prefix_emissions_equal_oracle_on_prefix(case, data):
    """Results emitted up to position i == the oracle on the prefix S[0..i] (streamable
    strategies; global MAX is held to close() by definition)."""
    q, s = case
    i = data.draw(st.integers(0, len(s) - 1), label="prefix end")
    emitted = _engine(q, s)
    upto = {c for c, p in emitted if p is not None and p <= i}
    assert upto == set(_oracle(q, s.prefix(i + 1))), f"{q} on prefix 0..{i}"


@given(cel_formulas(max_atoms=5), cel_streams(max_len=7))
def test_strategy_containments(f, s):
    """STRICT, NXT, LAST, MAX are within ALL; NXT and LAST give at most one complex event per end
    position and each is within MAX (docs/semantics/cel.md#cel-3.2, claim 7.2); for engine and oracle alike."""
    for side in ("engine", "oracle"):
        res = {}
        for strat in STRATEGIES:
            q = Query(f, strat)
            res[strat] = (frozenset(c for c, _ in _engine(q, s)) if side == "engine"
                          else _oracle(q, s))
        for strat in ("STRICT", "NXT", "LAST", "MAX"):
            assert res[strat] <= res["ALL"], (side, strat)
        for strat in ("NXT", "LAST"):
            ends = Counter(c[-1] for c in res[strat])
            assert all(v == 1 for v in ends.values()), (side, strat)
            assert res[strat] <= res["MAX"], (side, strat)
            # exactly one per end position at which ALL has an output
            assert set(ends) == {c[-1] for c in res["ALL"]}, (side, strat)
        assert all(c == tuple(range(c[0], c[-1] + 1)) for c in res["STRICT"]), side


@given(cel_formulas(max_atoms=3), cel_formulas(max_atoms=3), cel_streams(max_len=6))
def test_or_is_union(a, b, s):
    """[[a OR b]] = [[a]] U [[b]] (paper section 3), for engine and oracle."""
    q_or, q_a, q_b = Query(Or(a, b)), Query(a), Query(b)
    try:
        check_well_formed(Or(a, b))
    except WellFormednessError:
        assume(False)
    assert _oracle(q_or, s) == _oracle(q_a, s) | _oracle(q_b, s)
    eng = lambda q: frozenset(c for c, _ in _engine(q, s))  # noqa: E731
    assert eng(q_or) == eng(q_a) | eng(q_b)


def test_generated_cases_cover_every_operator_and_strategy():
    """The generators reach every operator and strategy (seeded sample, what the properties see)."""
    import random

    from ceplab.semantics.cel import ast as A
    from ceplab.semantics.cel.analysis import has_binary
    from ceplab.semantics.cel.parser import parse
    from ceplab.workbench.langs.cel.generators import random_cel_case

    seen: Counter = Counter()
    for i in range(400):
        qt, _ = random_cel_case(random.Random(i), 5)
        q = parse(qt)
        seen[q.strategy] += 1
        seen["WITHIN"] += q.within is not None
        seen["binary"] += has_binary(q.formula)
        for g in A.subformulas(q.formula):
            seen[type(g).__name__] += 1
            if isinstance(g, A.Plus) and any(isinstance(h, A.Plus) for h in A.subformulas(g.body)):
                seen["nested+"] += 1
            if isinstance(g, A.Seq) and any(isinstance(h, A.Or) for h in A.subformulas(g)):
                seen["OR in ;"] += 1
    for k in list(STRATEGIES) + ["Atom", "Filter", "Or", "Seq", "Plus", "And", "WITHIN", "binary",
                                 "nested+", "OR in ;"]:
        assert seen[k] > 5, (k, seen)
