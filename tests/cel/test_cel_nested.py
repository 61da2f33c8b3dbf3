"""Nested selection strategies (docs/semantics/cel.md#cel-G5, ``Options.nested_strategies``).

Semantics under ``nested_strategies="compositional"``: ``SEL(psi)`` is closed (no outer variable
inside, its variables invisible outside) and ``C in [[SEL psi]](S, nu)`` iff
``C in SEL([[psi]](S))``, the strategy applied per end position. Under ``"reject"`` (default) every
entry point refuses nested strategies with a ``ParseError`` naming the switch.

Expected sets below are derived by hand from that definition; the brute force of
``tests/cel_brute.py`` (extended with the closed block) cross-checks them, and a hypothesis
differential test compares engine, oracle and brute force on random formulas with one nested
strategy under each of STRICT, NXT, LAST and MAX.
"""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from ceplab.asp.cel import oracle
from ceplab.asp.oracle import Undecided
from ceplab.engine.cel import evaluator
from ceplab.semantics.cel import ast as A
from ceplab.semantics.cel.analysis import WellFormednessError, check_closed, check_well_formed
from ceplab.semantics.cel.options import Options
from ceplab.semantics.cel.parser import parse
from ceplab.semantics.errors import ParseError, UnsupportedError
from ceplab.semantics.events import Stream
from ceplab.workbench.langs.cel.generators import TYPE_ALPHABETS, HypothesisChooser, gen_nested_cel_query, gen_stream

from cel_brute import brute

COMP = Options(nested_strategies="compositional")
REJECT = Options()


def stream(types: str, values=None) -> Stream:
    return Stream.of([(t, {"v": 0 if values is None else values[i]})
                      for i, t in enumerate(types)])


def run_engine(q, s, options=COMP):
    """Push every event; check each CE is emitted once at its last position."""
    ev = evaluator(q, options)
    out = []
    for e in s:
        got = ev.push(e)
        assert all(c[-1] == e.position for c in got)
        out.extend(got)
    out.extend(ev.close())
    assert len(out) == len(set(out)), "a complex event was emitted twice"
    return frozenset(out)


def all_three(text, s, options=COMP):
    """Engine, oracle and brute force on one case; returns the common result."""
    q = parse(text, options=options)
    o = oracle(q, s, options)
    assert not isinstance(o, Undecided), o
    b = brute(q, s, options)
    e = run_engine(q, s, options)
    assert o.results == b, (text, sorted(o.results), sorted(b))
    assert e == b, (text, sorted(e), sorted(b))
    return b


# ====================================================================== the switch
def test_switch_default_rejects_everywhere():
    text = "A AS x ; NXT(B AS y)"
    with pytest.raises(ParseError) as ei:
        parse(text, "q.cel")
    e = ei.value
    assert (e.line, e.column) == (1, 10) and "nested_strategies" in e.message
    q = parse(text, options=COMP)          # parsed, as the CLI does before it knows the switches
    s = stream("AB")
    for fn in (lambda: oracle(q, s, REJECT), lambda: evaluator(q, REJECT)):
        with pytest.raises(ParseError) as ei:
            fn()
        assert "nested_strategies" in ei.value.message and ei.value.column == 10
    # the library default is "reject" as well
    with pytest.raises(ParseError):
        oracle(q, s)
    with pytest.raises(ParseError):
        evaluator(q)


def test_switch_value_is_validated():
    with pytest.raises(ValueError):
        oracle(parse("A AS x ; NXT(B AS y)", options=COMP), stream("AB"),
               Options(nested_strategies="sometimes"))


def test_top_level_strategy_is_not_nested():
    for text in ["NXT(A AS x ; B AS y)", "(MAX(A AS x))", "LAST(A AS x WITHIN 2)", "ALL(A AS x)"]:
        q = parse(text)                     # accepted under the default
        assert not A.has_nested(q)
    q = parse("NXT(A AS x ; B AS y WITHIN 3)")
    assert (q.strategy, q.within) == ("NXT", 3)


def test_window_outside_the_strategy_gets_a_hint():
    with pytest.raises(ParseError) as ei:
        parse("NXT(A AS x ; B AS y) WITHIN 3")
    assert "NXT(phi WITHIN 3)" in ei.value.message
    q = parse("NXT(A AS x ; B AS y) WITHIN 3", options=COMP)
    assert isinstance(q.formula, A.Sel) and q.strategy == "ALL" and q.within == 3


@pytest.mark.parametrize("text", [
    "A AS x ; NXT(B AS y)", "(NXT(A AS x))+ ; B AS y", "ALL(MAX(A AS x ; B AS y WITHIN 2))",
    "NXT(A AS x) WITHIN 3", "A AS x ; LAST((B AS y ; STRICT(C AS z))+)",
    "(A AS x ; NXT(B AS x)) FILTER x.v = 1",
])
def test_round_trip(text):
    q = parse(text, options=COMP)
    assert parse(str(q), options=COMP) == q


@pytest.mark.parametrize("text,var,needle", [
    # psi must not reference outer variables
    ("A AS x ; NXT(B AS y FILTER x.v = 1)", "x", "not defined inside it"),
    # psi's variables are invisible outside
    ("(A AS x ; NXT(B AS y)) FILTER y.v = 1", "y", "local to it"),
    ("A AS x ; NXT(B AS y ; MAX(C AS z)) FILTER z.v = 1", "z", "local to it"),
    ("A AS x ; NXT(B AS y ; MAX(C AS z) FILTER z.v = 1)", "z", "local to it"),
])
def test_closedness_errors_name_the_variable(text, var, needle):
    with pytest.raises(ParseError) as ei:
        parse(text, "q.cel", options=COMP)
    assert f"variable {var}" in ei.value.message and needle in ei.value.message


def test_closedness_checked_for_built_asts():
    f = A.Seq(A.Atom("A", "x"), A.Sel("NXT", A.Filter(A.Atom("B", "y"),
                                                      A.Cmp("x", "v", "=", 1))))
    q = A.Query(f)
    with pytest.raises(ParseError) as ei:
        oracle(q, stream("AB"), COMP)
    assert "variable x" in ei.value.message
    with pytest.raises(ParseError):
        evaluator(q, COMP)
    with pytest.raises(WellFormednessError):
        check_closed(f)


def test_inner_names_are_local():
    # the inner x is another variable: no clash with the outer one under ';' (not unsafe), and the
    # outer filter means the outer x
    s = stream("ABAB", [1, 0, 0, 0])
    # [[NXT(B AS x)]] = {1}, {3} (singletons, one per end position); A AS x (x.v = 1) is only 0:
    # {0,1}, {0,3}
    assert all_three("(A AS x ; NXT(B AS x)) FILTER x.v = 1", s) == {(0, 1), (0, 3)}


def test_inner_well_formedness_is_checked():
    with pytest.raises(ParseError) as ei:
        parse("A AS z ; NXT((A AS x ; (B AS y)+) FILTER y.v > 1)", options=COMP)
    assert "variable y" in ei.value.message


# ====================================================================== hand-checked cases
def test_the_notes_warning_case_is_not_a_singleton_comparison():
    """NXT(R AS x) nested: comparing inside [[R AS x]](S, nu) (a singleton per nu) would keep every
    R; the definition compares within [[R AS x]](S) per end position, where each end position has
    exactly one CE {i} -- so here too every R survives, but NXT((R AS x)+) shows the difference."""
    s = stream("AAB")
    # [[A AS x]](S) = {0}, {1}: one per end position, so NXT keeps both; ; B: {0,2}, {1,2}
    assert all_three("NXT(A AS x) ; B AS y", s) == {(0, 2), (1, 2)}
    # [[(A AS x)+]](S) ends at 0: {0}; ends at 1: {1}, {0,1}. NXT per end position keeps {0} and
    # {0,1} ({1} <=next {0,1}: min of the difference {0} is in {0,1}). A per-valuation comparison
    # would keep {1} too (it is the only CE for nu with one round at 1).
    assert all_three("NXT((A AS x)+) ; B AS y", s) == {(0, 2), (0, 1, 2)}
    # LAST: at end 1, {0,1} vs {1}: max of the difference is 0, in {0,1}: {0,1} wins again
    assert all_three("LAST((A AS x)+) ; B AS y", s) == {(0, 2), (0, 1, 2)}
    # MAX: {1} is a strict subset of {0,1} (same end): dropped
    assert all_three("MAX((A AS x)+) ; B AS y", s) == {(0, 2), (0, 1, 2)}
    # STRICT: intervals only: {0}, {1}, {0,1}
    assert all_three("STRICT((A AS x)+) ; B AS y", s) == {(0, 2), (1, 2), (0, 1, 2)}


def test_nested_differs_from_top_level():
    """A top-level NXT compares the *whole* CEs; the nested one compares only psi's part."""
    s = stream("ABAB")
    # [[A AS x ; B AS y]](S): {0,1}, {0,3}, {2,3}. NXT per end: at 1 {0,1}; at 3 {0,3}
    # ({2,3} <=next {0,3}). NXT(...)+ : {0,1}, {0,3}, and {0,1}.{?} needs a block starting
    # after 1: none ({0,3} starts at 0). So {0,1}, {0,3}.
    assert all_three("NXT(A AS x ; B AS y)+", s) == {(0, 1), (0, 3)}
    # without the strategy, the + also gives {0,1,2,3} = {0,1}.{2,3}
    assert all_three("(A AS x ; B AS y)+", s) == {(0, 1), (0, 3), (2, 3), (0, 1, 2, 3)}
    # LAST per end: at 3 {2,3} beats {0,3} (max of the difference {0,2} is 2, in {2,3}), so
    # LAST(...)+ = {0,1}, {2,3}, {0,1,2,3}
    assert all_three("LAST(A AS x ; B AS y)+", s) == {(0, 1), (2, 3), (0, 1, 2, 3)}
    # top-level NXT over the iteration: at 3 the candidates {0,3}, {2,3}, {0,1,2,3}: {0,1,2,3}
    assert all_three("NXT((A AS x ; B AS y)+)", s) == {(0, 1), (0, 1, 2, 3)}


def test_sequencing_needs_the_state_before_the_block():
    s = stream("ACAB")
    # [[A AS y ; B AS z]](S): {0,3}, {2,3}; NXT at 3: {0,3}. C AS x ; NXT(..): x must precede
    # min {0,3} = 0: nothing. LAST at 3: {2,3}; C at 1 precedes 2: {1,2,3}.
    assert all_three("C AS x ; NXT(A AS y ; B AS z)", s) == frozenset()
    assert all_three("C AS x ; LAST(A AS y ; B AS z)", s) == {(1, 2, 3)}
    # the block is a unit: nothing of the outer formula interleaves with it
    assert all_three("NXT(A AS y ; B AS z) ; C AS x", stream("ABCAB")) == {(0, 1, 2)}


def test_or_filter_and_windows():
    s = stream("AABB", [0, 1, 0, 2])
    # MAX((A AS x)+ ; B AS y): at 2: {0,1,2}; at 3: {0,1,3}. OR B AS z FILTER z.v = 2: {3}
    assert all_three("MAX((A AS x)+ ; B AS y) OR (B AS z FILTER z.v = 2)", s) == \
        {(0, 1, 2), (0, 1, 3), (3,)}
    # inner window: [[(A AS x)+ ; B AS y WITHIN 1]] = {1,2}; MAX keeps it (at 3 nothing: {2,3}
    # has no A)
    assert all_three("A AS w ; MAX((A AS x)+ ; B AS y WITHIN 1)", s) == {(0, 1, 2)}
    # outer window on top of a block: {0,1,2} spans 2, {0,1,3} spans 3
    assert all_three("MAX((A AS x)+ ; B AS y) WITHIN 2", s) == {(0, 1, 2)}
    # top-level strategy over a nested one: STRICT keeps intervals only
    assert all_three("STRICT(MAX((A AS x)+ ; B AS y) ; B AS z)", s) == {(0, 1, 2, 3)}


def test_nested_inside_nested():
    s = stream("AABAB")
    # inner NXT(A AS y): {0},{1},{3}. LAST(that ; B AS z): at 2 candidates {0,2},{1,2}: LAST
    # gives {1,2}; at 4: {0,4},{1,4},{3,4}: {3,4}. Then A AS x before: {0,1,2}; {0,3,4},
    # {1,3,4}, {2?}: position 2 is B. So {0,1,2}, {0,3,4}, {1,3,4}.
    assert all_three("A AS x ; LAST(NXT(A AS y) ; B AS z)", s) == {(0, 1, 2), (0, 3, 4), (1, 3, 4)}


def test_global_max_scope_is_for_the_top_level_only():
    s = stream("AAB")
    glob = Options(nested_strategies="compositional", max_scope="global")
    # nested MAX((A AS x)+) compares per end position: {0} (end 0) and {0,1} (end 1) both stay
    q = parse("MAX((A AS x)+)+", options=glob)
    assert brute(q, s, glob) == {(0,), (0, 1)}
    assert oracle(q, s, glob).results == {(0,), (0, 1)}
    assert run_engine(q, s, glob) == {(0,), (0, 1)}
    # top-level MAX with global scope: {0} is dominated by {0,1}
    q = parse("MAX(MAX((A AS x)+)+)", options=glob)
    assert oracle(q, s, glob).results == brute(q, s, glob) == run_engine(q, s, glob) == {(0, 1)}


def test_and_with_a_block_runs_on_binding_runs():
    """The nested evaluator refuses a block under AND; the engine then uses binding runs with a block
    evaluator (docs/semantics/cel.md#cel-10.4)."""
    from ceplab.engine.cel.nested import NestedEvaluator
    from ceplab.engine.cel.runs import RunEvaluator
    q = parse("MAX((A AS x)+) AND (A AS y ; A AS z)", options=COMP)
    s = stream("AAB")
    # MAX((A AS x)+) = {0}, {0,1}; (A;A) = {0,1}: intersection {0,1}
    assert oracle(q, s, COMP).results == brute(q, s, COMP) == {(0, 1)}
    with pytest.raises(UnsupportedError) as ei:
        NestedEvaluator(q, COMP, evaluator=evaluator)
    assert "AND" in ei.value.message
    ev = evaluator(q, COMP)
    assert isinstance(ev, RunEvaluator) and "AND" in ev.path
    assert set(ev.run(s)) == {(0, 1)}


def test_window_keeps_engine_state_bounded():
    q = parse("(A AS x)+ ; NXT(B AS y ; C AS z) WITHIN 4", options=COMP)
    ev = evaluator(q, COMP)
    sizes = []
    for e in stream("ABC" * 200):
        ev.push(e)
        sizes.append((ev.stats()["live_partial_ces"], ev.stats()["history_positions"]))
    assert max(sizes[300:]) == max(sizes[100:200])   # no growth with the stream


# ====================================================================== differential
@st.composite
def nested_cases(draw, strategy):
    """A random formula with one nested ``strategy(psi)`` (the shared generator
    :func:`ceplab.workbench.langs.cel.generators.gen_nested_cel_query`, also used by ``ceplab fuzz cel``) and a
    stream over the same alphabet."""
    ch = HypothesisChooser(draw)
    types = ch.choice(TYPE_ALPHABETS)
    q = gen_nested_cel_query(ch, types, strategy)
    s = gen_stream(ch, ch.integer(2, 8), types)
    return q, s


def _valid(q: A.Query) -> bool:
    try:
        check_closed(q.formula)
        check_well_formed(q.formula)
        return True
    except WellFormednessError:
        return False


@pytest.mark.parametrize("strategy", ["STRICT", "NXT", "LAST", "MAX"])
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_differential_engine_oracle_brute(strategy, data):
    q, s = data.draw(nested_cases(strategy))
    assume(_valid(q))
    options = COMP if data.draw(st.booleans()) else Options(nested_strategies="compositional",
                                                            max_scope="global")
    text = str(q)
    assert parse(text, options=options) == q
    b = brute(q, s, options)
    try:
        e = run_engine(q, s, options)
    except UnsupportedError:
        event("engine refused")
        e = None
    o = oracle(q, s, options)
    assert not isinstance(o, Undecided), o
    assert o.results == b, (text, [x.type for x in s], sorted(o.results), sorted(b))
    if e is not None:
        assert e == b, (text, [x.type for x in s], sorted(e), sorted(b))
    event("non-empty" if b else "empty")


# ====================================================================== fuzz plumbing
def test_fuzz_draws_nested_cases_under_compositional():
    """``ceplab fuzz cel`` draws nested strategies (a fraction P_NESTED of the cases) from the shared
    generator, closed and strongly well-formed, with ``nested_strategies="compositional"``; the draw
    is a function of the seed."""
    import random

    from ceplab.workbench.langs.cel import P_NESTED, _random_case
    draws = [_random_case(random.Random(i), 6) for i in range(300)]
    nested = [(t, o) for t, _s, o in draws if o.nested_strategies == "compositional"]
    assert 0.5 * P_NESTED * 300 < len(nested) < 2 * P_NESTED * 300
    for t, o in nested:
        q = parse(t, options=o)
        assert _valid(q) and any(isinstance(x, A.Sel) for x in _nodes(q.formula)), t
    assert _random_case(random.Random(7), 6)[0] == _random_case(random.Random(7), 6)[0]


def _nodes(f):
    yield f
    if isinstance(f, A.Sel):
        yield from _nodes(f.body)
    for c in A.children(f):
        yield from _nodes(c)


def test_shrinker_simplifies_inside_nested_strategies():
    from ceplab.workbench.langs.cel.simplify import simplifications as cel_simplifications
    cands = list(cel_simplifications("NXT(A AS a ; MAX((B AS b)+ WITHIN 2))"))
    assert "NXT((A AS a ; MAX((B AS b)+)))" in cands          # the block's window dropped
    assert "NXT((A AS a ; MAX(B AS b WITHIN 2)))" in cands    # shrunk inside the block
    assert "NXT((A AS a ; (B AS b)+))" in cands               # the block replaced by its body
