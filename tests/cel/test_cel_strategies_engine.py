"""CEL engine: NXT, LAST and MAX (paper Theorem 6, Algorithms 5-7; docs/semantics/cel.md#cel-3.2, #cel-5.3, #cel-5.5,
#cel-10.3 items 4-5; gaps G4, G9, G13, G16) in ``ceplab.engine.cel.strategies``.

The arbiter is ``ceplab.asp.cel.strategy_filter`` (the literal transcription of the strategy definitions)
applied to the brute-force ``[[phi WITHIN w]]`` of ``tests/cel_brute.py``; a smaller property
compares with the clingo oracle itself. Hand-built CEA (not produced by the compiler) are checked
against a brute-force run enumeration of the automaton, which also demonstrates G13.
"""
from __future__ import annotations

import random

import pytest
from hypothesis import assume, event, given, settings
from hypothesis import strategies as st

from ceplab.asp.cel import strategy_filter
from ceplab.engine.cel import compile_query, evaluator, evaluator_for_cea
from ceplab.engine.cel.automaton import CEA, Label, Transition, guard
from ceplab.engine.cel.evaluate import DetEvaluator
from ceplab.engine.cel.strategies import (LastEvaluator, MaxEvaluator, NextEvaluator, make_evaluator,
                                   make_strategy_evaluator)
from ceplab.semantics.cel.ast import Cmp, PTrue, Query
from ceplab.semantics.cel.options import Options
from ceplab.semantics.cel.parser import parse
from ceplab.semantics.errors import UnsupportedError
from ceplab.semantics.events import Event, Stream
from ceplab.workbench.langs.cel.generators import cel_cases, cel_options

from cel_brute import brute, brute_all

from ceplab.asp.cel import oracle
from ceplab.asp.oracle import Undecided

SEL = ("NXT", "LAST", "MAX")
SAME, GLOBAL = Options(), Options(max_scope="global")
TOP = Options(nxt_output="top_ranked")


# ====================================================================== helpers
def run_checked(ev, stream, options=SAME, strategy=None):
    """Push every event and close. Checks: sorted tuples; each CE emitted once, at its last
    position (global MAX: only at close); NXT/LAST at most one per position. Returns
    (set of results, {position: results emitted by its push})."""
    seen = []
    per_pos = {}
    held = strategy == "MAX" and options.max_scope == "global"
    for e in stream:
        out = ev.push(e)
        per_pos[e.position] = out
        if held:
            assert out == [], "global MAX must hold results until close()"
        for c in out:
            assert isinstance(c, tuple) and list(c) == sorted(set(c)) and c
            assert c[-1] == e.position, (c, e.position)
        if strategy in ("NXT", "LAST"):
            assert len(out) <= 1
        seen.extend(out)
    closing = ev.close()
    if not held:
        assert closing == []
    seen.extend(closing)
    assert len(seen) == len(set(seen)), "a complex event was emitted twice"
    return frozenset(seen), per_pos


def windowed_all(query, stream):
    ces = brute_all(query.formula, stream)
    if query.within is not None:
        ces = frozenset(c for c in ces if c[-1] - c[0] <= query.within)
    return ces


def arbiter(query, stream, options=SAME):
    """strategy_filter (literal definitions) over the brute-force windowed ALL answers."""
    return strategy_filter(query.strategy, windowed_all(query, stream), options)


def engine_or_skip(query, options=SAME):
    try:
        return evaluator(query, options)
    except UnsupportedError:
        assume(False)


def fig1_stream():
    types = "H T H H T T T H H".split()
    ids = [2, 0, 0, 1, 1, 0, 1, 1, 0]
    vals = [25, 45, 20, 25, 40, 42, 25, 70, 18]
    return Stream.of([(t, {"id": i, ("temp" if t == "T" else "hum"): v})
                      for t, i, v in zip(types, ids, vals)])


def S(text):
    return Stream.of(list(text))


def ces(*xs):
    return frozenset(tuple(sorted(x)) for x in xs)


# ====================================================================== docs/semantics/cel.md#cel-6.3 (Figure 1)
PHI = {
    "phi1": "(T AS x ; H AS y) FILTER (x.temp > 40 AND y.hum < 25 AND x.id = 0 AND y.id = 0)",
    "phi2": "((T AS x ; H AS y) OR (H AS y ; T AS x)) "
            "FILTER (x.temp > 40 AND y.hum < 25 AND x.id = 0 AND y.id = 0)",
    "phi3": "(H AS x ; (T AS y FILTER y.id = 1)+ ; H AS z) "
            "FILTER (x.hum < 30 AND z.hum > 60 AND x.id = 1 AND z.id = 1)",
    "phi4": "(H AS x ; (T AS y FILTER y.id = x.id)+ ; H AS z) "
            "FILTER (x.hum < 30 AND z.hum > 60 AND x.id = z.id)",
}
TABLE_63 = {
    "phi1": {"NXT": ces({1, 2}, {1, 8}), "LAST": ces({1, 2}, {5, 8}),
             "MAX": ces({1, 2}, {1, 8}, {5, 8})},
    "phi2": {"NXT": ces({1, 2}, {2, 5}, {1, 8}), "LAST": ces({1, 2}, {2, 5}, {5, 8}),
             "MAX": ces({1, 2}, {2, 5}, {1, 8}, {5, 8})},
    "phi3": {s: ces({3, 4, 6, 7}) for s in SEL},
    "phi4": {s: ces({3, 4, 6, 7}) for s in SEL},
}


@pytest.mark.parametrize("name", sorted(PHI))
@pytest.mark.parametrize("strat", SEL)
def test_note_63_table(name, strat):
    q = parse(f"{strat}({PHI[name]})")
    ev = evaluator(q)
    got, per_pos = run_checked(ev, fig1_stream(), SAME, strat)
    assert got == TABLE_63[name][strat] == brute(q, fig1_stream())
    if name == "phi4":
        assert ev.cea.registers, "phi4 needs the register extension"
        assert "registers" in ev.path
    # per-position view: phi1 fires at 2 and 8, phi2 also at 5, phi3/phi4 only at 7
    fired = {p for p, out in per_pos.items() if out}
    assert fired == {"phi1": {2, 8}, "phi2": {2, 5, 8}, "phi3": {7}, "phi4": {7}}[name]


@pytest.mark.parametrize("name", sorted(PHI))
def test_note_63_global_max(name):
    q = parse(f"MAX({PHI[name]})")
    got, _ = run_checked(evaluator(q, GLOBAL), fig1_stream(), GLOBAL, "MAX")
    assert got == brute(q, fig1_stream(), GLOBAL)


# ====================================================================== docs/semantics/cel.md#cel-6.4 micro cases
MICRO = {
    "Q1": ("A AS a ; B AS b ; C AS c", "ABACBC",
           {"NXT": ces({0, 1, 3}, {0, 1, 5}), "LAST": ces({0, 1, 3}, {2, 4, 5}),
            "MAX": ces({0, 1, 3}, {0, 1, 5}, {0, 4, 5}, {2, 4, 5})}),
    "Q2": ("A AS a ; B AS b ; C AS c ; D AS d", "ABCABD",
           {s: ces({0, 1, 2, 5}) for s in SEL}),
    "Q3": ("(A AS a OR B AS b OR C AS c) ; D AS d", "ABDCD",
           {"NXT": ces({0, 2}, {0, 4}), "LAST": ces({1, 2}, {3, 4}),
            "MAX": ces({0, 2}, {1, 2}, {0, 4}, {1, 4}, {3, 4})}),
    "Q4": ("(A AS a)+ ; B AS b", "AABAB", {s: ces({0, 1, 2}, {0, 1, 3, 4}) for s in SEL}),
    "Q5": ("(A AS a)+ ; (B AS b)+ ; C AS c", "AABBC", {s: ces({0, 1, 2, 3, 4}) for s in SEL}),
    "Q6": ("((A AS a)+ ; B AS b)+ ; C AS c", "ABABC", {s: ces({0, 1, 2, 3, 4}) for s in SEL}),
}


@pytest.mark.parametrize("name", sorted(MICRO))
@pytest.mark.parametrize("strat", SEL)
def test_note_64_micro(name, strat):
    text, stream, expected = MICRO[name]
    q = parse(f"{strat}({text})")
    got, _ = run_checked(evaluator(q), S(stream), SAME, strat)
    assert got == expected[strat] == brute(q, S(stream))
    got_g, _ = run_checked(evaluator(q, GLOBAL), S(stream), GLOBAL, strat)
    assert got_g == brute(q, S(stream), GLOBAL)
    got_t, _ = run_checked(evaluator(q, TOP), S(stream), TOP, strat)
    assert got_t == got


def test_global_max_differs_from_same_end():
    """G4: {0} of A+ is same-end maximal at 0 but dominated by {0,1} later."""
    q = parse("MAX((A AS a)+)")
    same, per_pos = run_checked(evaluator(q), S("AA"), SAME, "MAX")
    assert same == ces({0}, {0, 1}) and per_pos == {0: [(0,)], 1: [(0, 1)]}
    glob, _ = run_checked(evaluator(q, GLOBAL), S("AA"), GLOBAL, "MAX")
    assert glob == ces({0, 1})


# ====================================================================== differential (brute)
CASE = dict(min_len=0, max_len=7, strategies=SEL)


@given(cel_cases(unary_only=True, **CASE), cel_options(), st.one_of(st.none(), st.integers(0, 5)))
def test_unary_matches_definitions(case, options, within):
    """Unary formulas (the paper's automata, incl. unsafe ones and AND): engine == definitions,
    with and without WITHIN, for every switch value."""
    q, stream = case
    q = Query(q.formula, q.strategy, within)
    got, _ = run_checked(engine_or_skip(q, options), stream, options, q.strategy)
    event(f"results: {'none' if not got else 'some'}")
    assert got == arbiter(q, stream, options) == brute(q, stream, options)


@given(cel_cases(allow_and=False, **CASE), cel_options(), st.one_of(st.none(), st.integers(0, 5)))
def test_binary_filters_match_definitions(case, options, within):
    """Binary filters (register extension; configurations are (state, registers))."""
    q, stream = case
    q = Query(q.formula, q.strategy, within)
    ev = engine_or_skip(q, options)
    event(f"registers: {bool(ev.cea.registers)}")
    got, _ = run_checked(ev, stream, options, q.strategy)
    event(f"results: {'none' if not got else 'some'}")
    assert got == arbiter(q, stream, options)


@given(cel_cases(allow_and=False, **CASE), cel_options(), st.integers(0, 4))
def test_window_matches_definitions(case, options, within):
    q, stream = case
    q = Query(q.formula, q.strategy, within)
    got, _ = run_checked(engine_or_skip(q, options), stream, options, q.strategy)
    assert got == arbiter(q, stream, options)


@given(cel_cases(**CASE), st.one_of(st.none(), st.integers(0, 4)))
def test_strategies_agree_with_core_all_evaluator(case, within):
    """Module isolation: over the *same* compiled CEA, the strategy evaluators equal
    strategy_filter applied to the core ALL evaluator's outputs (also for formulas where the
    compiler itself may be imprecise, e.g. AND with registers)."""
    q, stream = case
    try:
        cea = compile_query(q)
    except UnsupportedError:
        assume(False)
    all_ev = DetEvaluator(cea, SAME, within)
    all_out = frozenset(c for e in stream for c in all_ev.push(e))
    for opts in (SAME, GLOBAL, TOP):
        for strat in SEL:
            ev = make_evaluator(cea, strat, opts, within)
            got, _ = run_checked(ev, stream, opts, strat)
            assert got == strategy_filter(strat, all_out, opts), (strat, opts)


@settings(max_examples=30)
@given(cel_cases(min_len=1, max_len=6, strategies=SEL, allow_and=False), cel_options(),
       st.one_of(st.none(), st.integers(0, 4)))
def test_matches_clingo_oracle(case, options, within):
    q, stream = case
    q = Query(q.formula, q.strategy, within)
    ev = engine_or_skip(q, options)
    r = oracle(q, stream, options)
    assume(not isinstance(r, Undecided))
    got, _ = run_checked(ev, stream, options, q.strategy)
    assert got == r.results


# ====================================================================== structure
@given(cel_cases(min_len=0, max_len=7, strategies=("ALL",), allow_and=False),
       st.one_of(st.none(), st.integers(0, 4)))
def test_structure_one_per_position_and_within_max(case, within):
    """NXT/LAST emit exactly one CE at each j with [[phi WITHIN w]]_j non-empty and none
    otherwise; each is in MAX; MAX global ⊆ MAX same-end's candidates ∪ later ones; marked and
    top_ranked coincide on compiled automata (G13/G14)."""
    q, stream = case
    base = windowed_all(Query(q.formula, "ALL", within), stream)
    ends = {c[-1] for c in base}
    res = {}
    for strat in SEL:
        ev = engine_or_skip(Query(q.formula, strat, within))
        res[strat], per_pos = run_checked(ev, stream, SAME, strat)
        if strat != "MAX":
            assert {p for p, out in per_pos.items() if out} == ends
            top, per_top = run_checked(engine_or_skip(Query(q.formula, strat, within), TOP),
                                       stream, TOP, strat)
            assert per_top == per_pos
    assert res["NXT"] <= res["MAX"] and res["LAST"] <= res["MAX"] and res["MAX"] <= base
    glob, _ = run_checked(engine_or_skip(Query(q.formula, "MAX", within), GLOBAL), stream,
                          GLOBAL, "MAX")
    assert glob <= res["MAX"]


@given(cel_cases(min_len=0, max_len=12, strategies=SEL, unary_only=True),
       st.one_of(st.none(), st.integers(0, 3)))
def test_nxt_last_configurations_bounded(case, within):
    """Theorem 6: NXT/LAST keep at most one configuration per state (per window start), no
    subset construction."""
    q, stream = case
    if q.strategy == "MAX":
        return
    ev = engine_or_skip(Query(q.formula, q.strategy, within))
    n = ev.cea.n_states
    bound = n if within is None else n * (within + 2)
    for e in stream:
        ev.push(e)
        st_ = ev.stats()
        assert st_["configurations"] <= bound and st_["ranks"] <= bound
        ranks = ev.ranking()
        cfgs = [c for _, cs in ranks for c in cs]
        assert len(cfgs) == len(set(cfgs)), "a configuration occurs in two ranks"
        assert len({ce for ce, _ in ranks}) == len(ranks), "two ranks share a CE"
    assert "no determinization" in ev.path


# ====================================================================== hand-built CEA (G13)
def cea_brute(cea, stream, within=None):
    """All CEs of a unary CEA: events(ρ) for every run whose last transition marks into F."""
    gs = {t.label: guard(t.label, {}) for t in cea.transitions}
    res = set()
    runs = {(cea.initial, ())}
    for e in stream:
        j = e.position
        new = set()
        for q, marks in runs:
            for t in cea.transitions:
                if t.src == q and gs[t.label](e, {}):
                    m2 = marks + (j,) if t.mark else marks
                    new.add((t.dst, m2))
                    if t.mark and t.dst in cea.finals:
                        res.add(m2)
        runs = new
    if within is not None:
        res = {c for c in res if c[-1] - c[0] <= within}
    return frozenset(res)


def g13_cea():
    """q0 --TRUE|◦--> q0, q0 --A|•--> q1, q1 --TRUE|◦--> q2 (final, entered by ◦!),
    q0 --B|•--> q2. On ``A B`` the run q0 -A•-> q1 -◦-> q2 ranks first at q2 under NXT, but it
    does not end by marking; the accepting run is q0 -◦-> q0 -B•-> q2 with CE {1}."""
    true, a, b = Label(), Label("A", PTrue(), "x"), Label("B", PTrue(), "y")
    return CEA(3, 0, frozenset({2}), [Transition(0, true, False, 0), Transition(0, a, True, 1),
                                     Transition(1, true, False, 2), Transition(0, b, True, 2)])


def test_g13_marked_vs_top_ranked_on_hand_built_cea():
    cea, stream = g13_cea(), S("AB")
    assert cea_brute(cea, stream) == ces({1})
    marked, per_m = run_checked(NextEvaluator(cea, SAME), stream, SAME, "NXT")
    top, per_t = run_checked(NextEvaluator(cea, TOP), stream, TOP, "NXT")
    assert marked == ces({1}) and per_m == {0: [], 1: [(1,)]}
    assert top == frozenset() and per_t == {0: [], 1: []}   # the paper's rule misses {1}
    assert "top-ranked" in NextEvaluator(cea, TOP).path
    # LAST puts every δ• rank first, so the two rules always coincide
    assert run_checked(LastEvaluator(cea, SAME), stream)[0] == \
        run_checked(LastEvaluator(cea, TOP), stream)[0] == ces({1})
    assert run_checked(MaxEvaluator(cea, SAME), stream)[0] == ces({1})


_LABELS = [Label(), Label("A", PTrue(), "x"), Label("B", PTrue(), "x"),
           Label("A", Cmp("x", "v", "=", 0), "x"), Label(None, Cmp("z", "v", ">=", 1), "z")]


@st.composite
def small_ceas(draw):
    n = draw(st.integers(1, 4))
    ts = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, len(_LABELS) - 1),
                                 st.booleans(), st.integers(0, n - 1)), min_size=1, max_size=9,
                       unique=True))
    finals = draw(st.sets(st.integers(0, n - 1), min_size=1))
    return CEA(n, 0, frozenset(finals), [Transition(s, _LABELS[l], m, d) for s, l, m, d in ts])


@st.composite
def ab_streams(draw, max_len=6):
    k = draw(st.integers(0, max_len))
    return Stream.of([(draw(st.sampled_from("AB")), {"v": draw(st.integers(0, 2))})
                      for _ in range(k)])


@given(small_ceas(), ab_streams(), st.one_of(st.none(), st.integers(0, 3)))
def test_arbitrary_cea_matches_run_semantics(cea, stream, within):
    """On any CEA (final states may be entered by ◦, several runs per CE): NXT/LAST ("marked"),
    MAX same-end and global equal the definitions over the automaton's run semantics;
    "top_ranked" never invents a CE, and for LAST coincides with "marked"."""
    base = cea_brute(cea, stream, within)
    for strat in SEL:
        for opts in (SAME, GLOBAL):
            got, _ = run_checked(make_evaluator(cea, strat, opts, within), stream, opts, strat)
            assert got == strategy_filter(strat, base, opts), (strat, opts)
    for strat in ("NXT", "LAST"):
        marked, _ = run_checked(make_evaluator(cea, strat, SAME, within), stream, SAME, strat)
        top, _ = run_checked(make_evaluator(cea, strat, TOP, within), stream, TOP, strat)
        assert top <= marked
        if strat == "LAST":
            assert top == marked


# ====================================================================== registers
_OPS = ["=", "!=", "<", "<=", ">", ">="]
_TEMPLATES = [
    "({X} AS x FILTER x.v {o3} {c}) ; ({Y} AS y FILTER y.v {o1} x.v)+ ; ({Z} AS z FILTER z.v {o2} x.v)",
    "{X} AS x ; (({Y} AS y ; {Z} AS z) FILTER z.v {o1} y.v)+",
    "({X} AS x OR {Y} AS x) ; ({Z} AS y FILTER y.v {o1} x.v)",
    "(({X} AS x ; {Y} AS y) FILTER x.v {o1} y.v)+ ; {Z} AS z",
    "({X} AS x ; ({Y} AS y FILTER y.v {o1} x.v)+) ; ({Z} AS z FILTER z.v {o2} x.v)",
    "({X} AS x ; {Y} AS y ; {Z} AS z) FILTER (x.v {o1} z.v AND y.v {o2} z.v)",
]


@st.composite
def register_cases(draw):
    """(query, stream): queries whose binary filters need the register extension (the paper's
    phi4 shape and variations: correlation with an outer variable, rebinding inside +,
    OR-bound variables); streams over the query's types, v in {0,1,2}, length 3..7."""
    t = draw(st.sampled_from(_TEMPLATES))
    types = {k: draw(st.sampled_from("ABC")) for k in "XYZ"}
    ops = {k: draw(st.sampled_from(_OPS)) for k in ("o1", "o2", "o3")}
    text = t.format(c=draw(st.integers(0, 2)), **types, **ops)
    strat = draw(st.sampled_from(SEL))
    w = draw(st.one_of(st.none(), st.integers(0, 5)))
    alphabet = sorted(set(types.values()))
    n = draw(st.integers(3, 7))
    stream = Stream.of([(draw(st.sampled_from(alphabet)), {"v": draw(st.integers(0, 2))})
                        for _ in range(n)])
    return Query(parse(text).formula, strat, w), stream


@given(register_cases(), cel_options())
def test_register_extension_matches_definitions(case, options):
    """Configurations (state, registers[, start]): runs with equal configurations have equal
    futures, so the suffix-extension argument (NXT/LAST) and the (P, T) construction (MAX) hold."""
    q, stream = case
    ev = engine_or_skip(q, options)
    assert ev.cea.registers
    got, _ = run_checked(ev, stream, options, q.strategy)
    event(f"results: {'none' if not got else 'some'}")
    assert got == arbiter(q, stream, options)


def test_register_extension_random_sweep():
    """Seeded sweep over the register templates (hypothesis favours tiny cases; this one makes
    sure many non-empty answers are compared)."""
    rng = random.Random(11)
    nonempty = 0
    for _ in range(300):
        types = {k: rng.choice("ABC") for k in "XYZ"}
        ops = {k: rng.choice(_OPS) for k in ("o1", "o2", "o3")}
        text = rng.choice(_TEMPLATES).format(c=rng.randint(0, 2), **types, **ops)
        alphabet = sorted(set(types.values()))
        stream = Stream.of([(rng.choice(alphabet), {"v": rng.randint(0, 2)})
                            for _ in range(rng.randint(3, 7))])
        w = rng.choice([None, None, 1, 2, 3, 4])
        opts = rng.choice([SAME, GLOBAL, TOP])
        q = Query(parse(text).formula, rng.choice(SEL), w)
        got, _ = run_checked(evaluator(q, opts), stream, opts, q.strategy)
        assert got == arbiter(q, stream, opts), (text, q.strategy, w, opts, stream.events)
        nonempty += bool(got)
    assert nonempty > 60


def test_registers_distinguish_booleans_from_numbers():
    """Configurations (state, registers) must not merge True with 1 (G6 comparison kinds)."""
    q = parse("NXT(A AS x ; (B AS y FILTER y.v = x.v))")
    stream = Stream.of([("A", {"v": True}), ("A", {"v": 1}), ("B", {"v": 1})])
    assert brute(q, stream) == ces({1, 2})
    for strat in SEL:
        qq = Query(q.formula, strat)
        assert run_checked(evaluator(qq), stream, SAME, strat)[0] == ces({1, 2})


def test_registers_window_and_iteration():
    q = parse("LAST((A AS x ; (B AS y FILTER y.v = x.v)+ ; C AS z) WITHIN 4)")
    stream = Stream.of([("A", {"v": 0}), ("A", {"v": 1}), ("B", {"v": 1}), ("B", {"v": 0}),
                        ("B", {"v": 1}), ("C", {"v": 0}), ("C", {"v": 2})])
    for strat in SEL:
        for opts in (SAME, GLOBAL):
            qq = Query(q.formula, strat, 4)
            got, _ = run_checked(evaluator(qq, opts), stream, opts, strat)
            assert got == brute(qq, stream, opts)


# ====================================================================== positions and API
def test_window_with_position_gaps():
    """WITHIN counts positions (max C - min C <= w), which may jump."""
    rng = random.Random(3)
    for _ in range(150):
        text = rng.choice(["A AS a ; B AS b", "(A AS a)+ ; B AS b", "(A AS a OR B AS b)+",
                           "A AS a ; (B AS b)+ ; A AS c"])
        w = rng.randint(0, 6)
        n = rng.randint(1, 6)
        types = [rng.choice("AB") for _ in range(n)]
        pos = sorted(rng.sample(range(12), n))
        dense = Stream.of(types)
        f = parse(text).formula
        allc = {tuple(pos[i] for i in c) for c in brute_all(f, dense)}
        allc = {c for c in allc if c[-1] - c[0] <= w}
        evs = [Event(t, p, {}, p) for t, p in zip(types, pos)]
        for strat in SEL:
            for opts in (SAME, GLOBAL):
                ev = evaluator(Query(f, strat, w), opts)
                got, _ = run_checked(ev, evs, opts, strat)
                assert got == strategy_filter(strat, allc, opts), (text, w, types, pos, strat)


def test_api_and_dispatch():
    q = parse("NXT(A AS a ; B AS b)")
    ev = evaluator(q)
    assert isinstance(ev, NextEvaluator)
    assert isinstance(evaluator(parse("LAST(A AS a ; B AS b)")), LastEvaluator)
    assert isinstance(evaluator(parse("MAX(A AS a ; B AS b)")), MaxEvaluator)
    assert isinstance(make_strategy_evaluator(q, compile_query(q), SAME), NextEvaluator)
    assert ev.path.startswith("NXT: ranked runs over the CEA (Algorithm 5")
    assert "no determinization" in ev.path and "2 states" not in ev.path
    evs = list(S("AABB"))
    ev.update(evs[0])
    assert list(ev.outputs()) == []
    ev.update(evs[1])
    ev.update(evs[2])
    assert list(ev.outputs()) == list(ev.outputs()) == [(0, 2)]   # idempotent
    assert ev.push(evs[3]) == [(0, 3)]
    assert ev.close() == []
    s = ev.stats()
    assert s["events"] == 4 and s["outputs"] == 2
    with pytest.raises(ValueError):
        ev.update(evs[0])                                          # positions must increase
    m = evaluator(parse("MAX(A AS a ; B AS b)"), GLOBAL)
    assert "close()" in m.path and "held" in m.path
    assert [m.push(e) for e in evs] == [[], [], [], []]
    assert m.close() == [(0, 2), (1, 2), (0, 3), (1, 3)]
    assert m.stats()["pairs_built"] >= 1 and m.stats()["held"] == 0
    with pytest.raises(ValueError):
        make_evaluator(compile_query(q), "ALL")
    with pytest.raises(UnsupportedError):
        evaluator_for_cea(compile_query(q), "NXT", within=-1)


def test_long_stream_smoke():
    """A 20,000-event random stream: bounded state, NXT/LAST one output per matching end."""
    rng = random.Random(5)
    types = ["A", "B", "C", "D"] + [f"N{i}" for i in range(6)]
    evs = [Event(rng.choice(types), i, {"v": rng.randint(0, 2)}, i) for i in range(20_000)]
    for text in ["A AS a ; B AS b ; C AS c", "(A AS a)+ ; B AS b"]:
        for strat in ("NXT", "LAST"):
            ev = evaluator(parse(f"{strat}({text})"))
            outs = 0
            for e in evs:
                out = ev.push(e)
                assert len(out) <= 1
                outs += len(out)
            assert outs > 100 and ev.stats()["max_configurations"] <= ev.cea.n_states
        ev = evaluator(parse(f"MAX({text} WITHIN 8)"))
        for e in evs:
            ev.update(e)
        assert ev.stats()["max_active_pairs"] < 200
