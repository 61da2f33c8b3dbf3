"""CEL engine: ALL and STRICT (paper Algorithms 1, 4, 8; docs/semantics/cel.md#cel-5.5, #cel-10.3) and the ECS.

Differential properties against the clingo oracle (ceplab.asp.cel) and the brute-force definitions
(tests/cel_brute.py), paper cases (docs/semantics/cel.md#cel-6.3/#cel-6.4), the register extension for binary filters, the
window extension (WITHIN) with its garbage collection, and the ECS structure itself.
"""
from __future__ import annotations

import random
import tracemalloc

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from ceplab.engine.cel import compile_query, evaluator, evaluator_for_cea
from ceplab.engine.cel import ecs
from ceplab.engine.cel.evaluate import Evaluator
from ceplab.semantics.cel.ast import Query
from ceplab.semantics.cel.parser import parse
from ceplab.semantics.errors import UnsupportedError
from ceplab.semantics.events import Event, Stream
from ceplab.workbench.langs.cel.generators import cel_cases

from cel_brute import brute

from ceplab.asp.cel import oracle
from ceplab.asp.oracle import Limits, OracleResult, Undecided

LIMITS = Limits(time_s=20.0, isolate=False)   # tiny cases: in-process is much cheaper


# ====================================================================== helpers
def run_checked(ev, stream):
    """Push every event; check each CE is emitted once, at its last position; return the set."""
    seen = []
    for e in stream:
        out = ev.push(e)
        for c in out:
            assert isinstance(c, tuple) and list(c) == sorted(set(c))
            assert c[-1] == e.position, (c, e.position)
        seen.extend(out)
    seen.extend(ev.close())
    assert len(seen) == len(set(seen)), "a complex event was emitted twice"
    return frozenset(seen)


def reference(query, stream):
    """The oracle's answer (or brute force when the oracle is undecided)."""
    r = oracle(query, stream, limits=LIMITS)
    if not isinstance(r, Undecided):
        return r.results
    return brute(query, stream)


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


# ====================================================================== paper cases
Q = {
    "Q1": "A AS a ; B AS b ; C AS c",
    "Q2": "A AS a ; B AS b ; C AS c ; D AS d",
    "Q3": "(A AS a OR B AS b OR C AS c) ; D AS d",
    "Q4": "(A AS a)+ ; B AS b",
    "Q5": "(A AS a)+ ; (B AS b)+ ; C AS c",
    "Q6": "((A AS a)+ ; B AS b)+ ; C AS c",
}
MICRO = [  # docs/semantics/cel.md#cel-6.4: (query, stream, ALL, STRICT)
    ("Q1", "ABACBC", ces({0, 1, 3}, {0, 1, 5}, {0, 4, 5}, {2, 4, 5}), ces()),
    ("Q2", "ABCABD", ces({0, 1, 2, 5}), ces()),
    ("Q3", "ABDCD", ces({0, 2}, {1, 2}, {0, 4}, {1, 4}, {3, 4}), ces({1, 2}, {3, 4})),
    ("Q4", "AABAB", ces({0, 2}, {1, 2}, {0, 1, 2}, {0, 4}, {1, 4}, {3, 4}, {0, 1, 4}, {0, 3, 4},
                        {1, 3, 4}, {0, 1, 3, 4}), ces({0, 1, 2}, {1, 2}, {3, 4})),
    ("Q5", "AABBC", ces({0, 1, 2, 3, 4}, {0, 1, 2, 4}, {0, 1, 3, 4}, {0, 2, 3, 4}, {0, 2, 4},
                        {0, 3, 4}, {1, 2, 3, 4}, {1, 2, 4}, {1, 3, 4}),
     ces({0, 1, 2, 3, 4}, {1, 2, 3, 4})),
    ("Q6", "ABABC", ces({0, 1, 4}, {0, 3, 4}, {2, 3, 4}, {0, 2, 3, 4}, {0, 1, 2, 3, 4}),
     ces({0, 1, 2, 3, 4}, {2, 3, 4})),
]


@pytest.mark.parametrize("name,stream,all_,strict", MICRO)
def test_micro_cases(name, stream, all_, strict):
    assert run_checked(evaluator(parse(Q[name])), S(stream)) == all_
    assert run_checked(evaluator(parse(f"STRICT({Q[name]})")), S(stream)) == strict
    for w in range(0, 6):
        want = frozenset(c for c in all_ if c[-1] - c[0] <= w)
        assert run_checked(evaluator(parse(f"{Q[name]} WITHIN {w}")), S(stream)) == want
        want = frozenset(c for c in strict if c[-1] - c[0] <= w)
        assert run_checked(evaluator(parse(f"STRICT({Q[name]} WITHIN {w})")), S(stream)) == want


PHI = {
    "phi1": "(T AS x ; H AS y) FILTER (x.temp > 40 AND y.hum < 25 AND x.id = 0 AND y.id = 0)",
    "phi2": "((T AS x ; H AS y) OR (H AS y ; T AS x)) "
            "FILTER (x.temp > 40 AND y.hum < 25 AND x.id = 0 AND y.id = 0)",
    "phi3": "(H AS x ; (T AS y FILTER y.id = 1)+ ; H AS z) "
            "FILTER (x.hum < 30 AND z.hum > 60 AND x.id = 1 AND z.id = 1)",
    "phi4": "(H AS x ; (T AS y FILTER y.id = x.id)+ ; H AS z) "
            "FILTER (x.hum < 30 AND z.hum > 60 AND x.id = z.id)",
}
FIG1 = [  # docs/semantics/cel.md#cel-6.3: ALL, STRICT, and the per-position view
    ("phi1", ces({1, 2}, {1, 8}, {5, 8}), ces({1, 2})),
    ("phi2", ces({1, 2}, {1, 8}, {5, 8}, {2, 5}), ces({1, 2})),
    ("phi3", ces({3, 4, 6, 7}, {3, 4, 7}, {3, 6, 7}), ces()),
    ("phi4", ces({3, 4, 6, 7}, {3, 4, 7}, {3, 6, 7}), ces()),
]


@pytest.mark.parametrize("name,all_,strict", FIG1)
def test_figure1(name, all_, strict):
    s = fig1_stream()
    ev = evaluator(parse(PHI[name]))
    assert run_checked(ev, s) == all_
    assert run_checked(evaluator(parse(f"STRICT({PHI[name]})")), s) == strict
    if name == "phi4":
        assert "register extension" in ev.path
    else:
        assert "register" not in ev.path


def test_figure1_per_position():
    s = fig1_stream()
    ev = evaluator(parse(PHI["phi2"]))
    per = {e.position: sorted(ev.push(e)) for e in s}
    assert per == {0: [], 1: [], 2: [(1, 2)], 3: [], 4: [], 5: [(2, 5)], 6: [], 7: [],
                   8: [(1, 8), (5, 8)]}


def test_path_and_stats():
    ev = evaluator(parse("(A AS a)+ ; B AS b WITHIN 3"))
    assert ev.path.startswith("ALL: on-the-fly determinized CEA (Algorithm 1+4)")
    assert "WITHIN 3" in ev.path
    run_checked(ev, S("AABAB"))
    st_ = ev.stats()
    assert st_["events"] == 5 and st_["active_dfa_states"] >= 1 and "live_nodes" in st_
    ev = evaluator(parse("STRICT(A AS a ; B AS b)"))
    assert ev.path.startswith("STRICT")
    assert isinstance(ev, Evaluator)


def test_update_then_outputs_and_close():
    ev = evaluator(parse("A AS a ; B AS b"))
    ev.update(Event("A", 0, {}, 0))
    assert list(ev.outputs()) == []
    ev.update(Event("B", 1, {}, 1))
    assert list(ev.outputs()) == [(0, 1)]
    assert list(ev.outputs()) == [(0, 1)]  # enumeration is repeatable
    assert ev.close() == []
    with pytest.raises(ValueError):
        ev.update(Event("B", 1, {}, 1))


def test_positions_are_event_positions():
    ev = evaluator(parse("A AS a ; B AS b WITHIN 5"))
    evs = [Event("A", 10, {}, 10), Event("B", 14, {}, 14), Event("B", 16, {}, 16)]
    assert [ev.push(e) for e in evs] == [[], [(10, 14)], []]


def test_dispatch_and_unsupported():
    for strat in ("NXT", "LAST", "MAX"):
        ev = evaluator(parse(f"{strat}(A AS a ; B AS b)"))
        assert hasattr(ev, "path") and hasattr(ev, "push")
        assert run_checked(ev, S("AAB")) == brute(parse(f"{strat}(A AS a ; B AS b)"), S("AAB"))
    cea = compile_query(parse("A AS a"))
    with pytest.raises(UnsupportedError, match="strategy"):
        evaluator_for_cea(cea, "FIRST")
    with pytest.raises(UnsupportedError, match="WITHIN"):
        evaluator_for_cea(cea, "ALL", within=-1)


# ====================================================================== differential
ALL_STRICT = ("ALL", "STRICT")


def test_oracle_is_used():
    """The differential tests below fall back to brute only when the oracle is undecided: on a paper case it
    must decide, and give docs/semantics/cel.md's answer."""
    name, stream, all_, strict = MICRO[0]
    for text, want in ((Q[name], all_), (f"STRICT({Q[name]})", strict)):
        r = oracle(parse(text), S(stream), limits=LIMITS)
        assert isinstance(r, OracleResult), r
        assert r.results == want, text


@given(cel_cases(min_len=3, max_len=7, strategies=ALL_STRICT, unary_only=True, safe_only=True,
                 allow_and=False))
def test_safe_unary_vs_oracle(case):
    query, stream = case
    got = run_checked(evaluator(query), stream)
    assert got == reference(query, stream), str(query)


@given(cel_cases(min_len=3, max_len=7, strategies=ALL_STRICT, unary_only=True, safe_only=True,
                 allow_and=False, allow_within=False), st.integers(0, 5))
def test_safe_unary_within_vs_oracle(case, w):
    query, stream = case
    query = Query(query.formula, query.strategy, w)
    got = run_checked(evaluator(query), stream)
    assert all(c[-1] - c[0] <= w for c in got)
    assert got == reference(query, stream), str(query)


@given(cel_cases(min_len=0, max_len=7, strategies=ALL_STRICT, unary_only=True))
def test_general_unary_vs_brute(case):
    """Unsafe formulas (Theorem 1 rewrite), AND (product extension), windows."""
    query, stream = case
    try:
        ev = evaluator(query)
    except UnsupportedError:
        assume(False)
    assert run_checked(ev, stream) == brute(query, stream), str(query)


@given(cel_cases(min_len=2, max_len=7, strategies=ALL_STRICT, allow_and=False))
def test_binary_filters_vs_oracle(case):
    """Binary filters through the register extension (or a clean UnsupportedError)."""
    query, stream = case
    try:
        ev = evaluator(query)
    except UnsupportedError as e:
        assert str(e)
        assume(False)
    assert run_checked(ev, stream) == reference(query, stream), str(query)


@given(cel_cases(min_len=1, max_len=7, strategies=ALL_STRICT, unary_only=True))
def test_prefix_emission(case):
    """What is emitted up to position i is exactly the answer on the prefix S[0..i]."""
    query, stream = case
    try:
        ev = evaluator(query)
    except UnsupportedError:
        assume(False)
    emitted: set = set()
    for i, e in enumerate(stream):
        emitted |= set(ev.push(e))
        assert frozenset(emitted) == brute(query, stream.prefix(i + 1)), (str(query), i)


@given(st.data())
def test_window_on_long_streams(data):
    """WITHIN w with construction pruning and garbage collection == the unwindowed engine's
    output structure enumerated with the bound ``min C >= j - w`` (no pruning, no collection),
    on streams long enough for the collector to cut (lengths up to 60, w in 0..8)."""
    from ceplab.workbench.langs.cel.generators import cel_formulas
    f = data.draw(cel_formulas(unary_only=True, safe_only=True, allow_and=False,
                               types=("A", "B", "C")))
    n = data.draw(st.integers(0, 60))
    seed = data.draw(st.integers(0, 10 ** 6))
    w = data.draw(st.integers(0, 8))
    strat = data.draw(st.sampled_from(ALL_STRICT))
    rng = random.Random(seed)
    stream = Stream.of([(rng.choice("ABCD"), {"v": rng.randrange(3)}) for _ in range(n)])
    full = evaluator(Query(f, strat))
    win = evaluator(Query(f, strat, w))
    for e in stream:
        full.update(e)
        a = set(ecs.enumerate_all(full.output_nodes(), e.position - w))
        b = win.push(e)
        assert len(b) == len(set(b))
        assert set(b) == a, (str(f), strat, w, e.position)
        assert all(c[-1] - c[0] <= w for c in b)


# ====================================================================== window memory / work
def _noise_stream(n, seed=3):
    rng = random.Random(seed)
    types = ["A", "B", "C", "D"] + [f"N{i}" for i in range(6)]
    return [Event(rng.choice(types), i, {"v": rng.randrange(3)}, i) for i in range(n)]


@pytest.mark.parametrize("q", ["A AS a ; B AS b ; C AS c", "(A AS a)+ ; B AS b",
                               "(A AS a)+ ; (B AS b)+ ; C AS c"])
def test_window_memory_is_bounded(q):
    ev = evaluator(parse(f"{q} WITHIN 30"))
    evs = _noise_stream(30_000)
    tracemalloc.start()
    try:
        marks = []
        for i, e in enumerate(evs, 1):
            ev.update(e)
            if i % 7 == 0:
                for _ in ev.outputs():
                    pass
            if i in (10_000, 30_000):
                marks.append(tracemalloc.get_traced_memory()[0])
    finally:
        tracemalloc.stop()
    assert marks[1] < marks[0] * 1.5 + 20_000, marks
    assert ev.stats()["live_nodes"] < 30 * 20


def test_unwindowed_memory_grows_but_window_does_not():
    evs = [Event("A", i, {}, i) for i in range(2000)]
    full = evaluator(parse("(A AS a)+ ; B AS b"))
    win = evaluator(parse("(A AS a)+ ; B AS b WITHIN 10"))
    for e in evs:
        full.update(e)
        win.update(e)
    assert full.stats()["live_nodes"] > 2000
    assert win.stats()["live_nodes"] < 100


def test_long_chain_enumeration_is_iterative():
    """No recursion limit anywhere: deep Out chains and deep union chains."""
    n = 50_000
    node = ecs.BOTTOM
    for i in range(n):
        node = ecs.out(i, node)
    assert list(ecs.enumerate_ces(node)) == [tuple(range(n))]
    assert ecs.count(node) == 1 and ecs.live_nodes([node]) == n
    assert ecs.compact([node], 0) == [node]
    # a union chain like the (A)+ loop state: U_k = Out(k, ⊥ ∪ U_{k-1}) ∪ U_{k-1}
    u = None
    for i in range(3000):
        o = ecs.out(i, ecs.union([ecs.BOTTOM, u]))
        u = ecs.union([o, u])
    assert ecs.count(u) == 2 ** 3000 - 1
    it = ecs.enumerate_ces(u)
    assert [next(it) for _ in range(3)] == [(2999,), (2998, 2999), (2997, 2998, 2999)]
    assert ecs.count(u, 2990) == 2 ** 10 - 1
    assert len(list(ecs.enumerate_ces(u, 2990))) == 2 ** 10 - 1
    (k,) = ecs.compact([u], 2990)
    assert ecs.live_nodes([k]) < 100
    # through the evaluator
    ev = evaluator(parse("(A AS a)+ ; B AS b WITHIN 6000"))
    for i in range(5000):
        ev.update(Event("A", i, {}, i))
    ev.update(Event("B", 5000, {}, 5000))
    it = ev.outputs()
    assert [next(it) for _ in range(3)] == [(4999, 5000), (4998, 4999, 5000), (4997, 4998, 4999, 5000)]


# ====================================================================== ECS unit tests
def test_ecs_basics():
    a, b = ecs.out(0, ecs.BOTTOM), ecs.out(1, ecs.BOTTOM)
    assert ecs.max_start(a) == 0 and ecs.is_out(a) and ecs.is_bottom(ecs.BOTTOM)
    u = ecs.union([a, None, b])
    assert ecs.is_union(u) and ecs.max_start(u) == 1
    assert ecs.union([]) is None and ecs.union([a]) is a and ecs.union2(None, a) is a
    c = ecs.out(2, u)
    d = ecs.union2(c, ecs.out(2, ecs.BOTTOM))
    assert sorted(ecs.enumerate_ces(d)) == [(0, 2), (1, 2), (2,)]
    assert sorted(ecs.enumerate_ces(d, lo=1)) == [(1, 2), (2,)]
    assert list(ecs.enumerate_ces(d, lo=3)) == []
    assert ecs.count(d) == 3 and ecs.count(d, 1) == 2
    assert ecs.live_nodes([d]) == 6
    (e,) = ecs.compact([d], 1)
    assert sorted(ecs.enumerate_ces(e)) == [(1, 2), (2,)]
    assert ecs.compact([d], 5) == [None]
    assert list(ecs.enumerate_ces(ecs.BOTTOM)) == [()]
    assert list(ecs.enumerate_all([a, None, b])) == [(0,), (1,)]


def _random_dag(rng, n_steps):
    """Random disjoint-union DAG built like the evaluator does (roots per 'state')."""
    roots = [ecs.BOTTOM]
    for j in range(n_steps):
        new = []
        for _ in range(rng.randint(1, 3)):
            srcs = [r for r in roots if rng.random() < 0.5]
            marked = ecs.union(srcs)
            parts = [ecs.out(j, marked)] if marked is not None else []
            new.append(ecs.union(parts))
        roots = [r for r in new if r is not None] + [ecs.BOTTOM]
    return roots


@given(st.integers(0, 10 ** 6), st.integers(1, 8))
def test_ecs_enumeration_matches_count_and_window(seed, n):
    rng = random.Random(seed)
    for r in _random_dag(rng, n):
        allc = list(ecs.enumerate_ces(r))
        assert len(allc) == ecs.count(r)
        for lo in range(0, n + 1):
            got = list(ecs.enumerate_ces(r, lo))
            assert sorted(got) == sorted(c for c in allc if not c or c[0] >= lo)
            assert len(got) == ecs.count(r, lo)
            (k,) = ecs.compact([r], lo)
            assert sorted(ecs.enumerate_ces(k, lo) if k is not None else []) == sorted(got)


def test_window_gc_cuts_only_expired():
    gc = ecs.WindowGC(3)
    leaves = [ecs.out(i, ecs.BOTTOM) for i in range(6)]
    u = ecs.union(leaves[2:5], reg=gc.register)     # binary chain (4, (3, 2))
    assert ecs.count(u) == 3
    gc.advance(3)
    assert ecs.count(u, 3) == 2 and len(u[1]) == 2
    gc.advance(4)
    assert len(u[1]) == 1 and list(ecs.enumerate_ces(u, 4)) == [(4,)]
    assert gc.cuts == 3          # 2 and 3 from the inner union, the inner union from the root


def _path_unions(root, ce):
    """Number of union nodes on the (unique) DAG path of ``ce`` below ``root``."""
    target = tuple(reversed(ce))

    def walk(node, k, unions):
        n = len(node)
        if n == 1:
            return unions if k == len(target) else None
        if n == 3:
            if k < len(target) and node[1] == target[k]:
                return walk(node[2], k + 1, unions)
            return None
        found = None
        for kid in node[1]:
            r = walk(kid, k, unions + 1)
            if r is not None:
                assert found is None, "two paths spell the same CE (not disjoint)"
                found = r
        return found

    r = walk(root, 0, 0)
    assert r is not None
    return r


def _enum_steps(node, lo):
    """:func:`ecs.enumerate_ces` instrumented: yields ``(ce, steps)`` where ``steps`` counts every
    stack pop, node visit and kid inspection since the previous output (the delay)."""
    if node is None or node[0] < lo:
        return
    path: list = []
    stack = [(node, 0)]
    steps = 0
    while stack:
        node, plen = stack.pop()
        steps += 1
        del path[plen:]
        while True:
            steps += 1
            n = len(node)
            if n == 3:
                path.append(node[1])
                node = node[2]
            elif n == 2:
                kids = node[1]
                pl = len(path)
                i = len(kids) - 1
                while i > 0 and kids[i][0] < lo:
                    i -= 1
                    steps += 1
                while i > 0:
                    stack.append((kids[i], pl))
                    i -= 1
                    steps += 1
                node = kids[0]
                if node[0] < lo:
                    node = stack.pop()[0]
                    steps += 1
            else:
                yield tuple(reversed(path)), steps
                steps = 0
                break


# Proven bound (ceplab.engine.cel.ecs docstring): every union node's left spine has at most
# SPINE = 3 unions (2 without a window); a descent costs <= 2 steps per union (visit + push or
# scan) and 1 per Out/BOTTOM, so the steps between two outputs are <= 1 + DELAY_C * (|C| + 1).
SPINE = 3
DELAY_C = 2 * SPINE + 1


@given(cel_cases(min_len=1, max_len=7, strategies=ALL_STRICT, unary_only=True, safe_only=True,
                 allow_and=False))
def test_enumeration_delay_bound(case):
    """Output-linear delay (CORE tECS): the work between two consecutive outputs (and before the
    first) is at most ``DELAY_C * (|C| + 1)`` steps, also under the window bound; the output
    roots are pairwise disjoint (every CE has exactly one DAG path)."""
    query, stream = case
    ev = evaluator(query)
    for e in stream:
        ev.update(e)
        lo = ev.lower if ev.lower is not None else -ecs.INF
        for root in ev.output_nodes():
            for c, steps in _enum_steps(root, lo):
                assert steps <= 1 + DELAY_C * (len(c) + 1), (str(query), c, steps)
                _path_unions(root, c)


@pytest.mark.parametrize("q", ["A AS a ; B AS b ; C AS c WITHIN 100", "(A AS a)+ ; B AS b WITHIN 50",
                               "(A AS a)+ ; (B AS b)+ ; C AS c WITHIN 40", "(A AS a)+ ; (B AS b)+ ; C AS c",
                               "((A AS a)+ ; (B AS b)+)+ ; C AS c WITHIN 30",
                               "(A AS a ; (B AS b)+ ; C AS c)+ WITHIN 25"])
def test_enumeration_delay_long_streams(q):
    """The delay bound does not grow with the stream or the window (the old k-ary union chains
    had O(|C| + span(C)) delay)."""
    rng = random.Random(11)
    ev = evaluator(parse(q))
    n_out = 0
    for i in range(1500):
        ev.update(Event(rng.choice("ABCD"), i, {}, i))
        lo = ev.lower if ev.lower is not None else -ecs.INF
        for root in ev.output_nodes():
            for c, steps in _enum_steps(root, lo):
                assert steps <= 1 + DELAY_C * (len(c) + 1), (q, c, steps)
                n_out += 1
                if n_out > 20000:
                    return


@pytest.mark.parametrize("within", [None, 1000])
def test_enumeration_delay_adversarial_cea(within):
    """Hand-built CEA (not produced by the query compiler): T is seeded with fresh starts by F,
    then receives Out(j, p) with an older start at every E while carrying its own node."""
    from ceplab.engine.cel import evaluator_for_cea
    from ceplab.engine.cel.automaton import CEA, Label, Transition

    def t(s, rel, m, d):
        return Transition(s, Label(rel=rel), m, d)

    cea = CEA(4, 0, frozenset({3}), [t(0, None, False, 0), t(0, "G", True, 1), t(0, "F", True, 2),
                                     t(1, None, False, 1), t(1, "E", True, 2),
                                     t(2, None, False, 2), t(2, "D", True, 3)])
    ev = evaluator_for_cea(cea, "ALL", within=within)
    n_out = 0
    for i, typ in enumerate("G" + "F" * 5 + "E" * 40 + "D"):
        ev.update(Event(typ, i, {}, i))
        lo = ev.lower if ev.lower is not None else -ecs.INF
        _check_union_invariants(list(ev.nodes), lo, windowed=within is not None)
        for root in ev.output_nodes():
            for c, steps in _enum_steps(root, lo):
                assert steps <= 1 + DELAY_C * (len(c) + 1), (c, steps)
                n_out += 1
    assert n_out > 0


def _spine(n):
    d = 0
    while len(n) == 2:
        d += 1
        n = n[1][0]
    return d


def _check_union_invariants(roots, lo=-ecs.INF, windowed=True):
    """Binary unions whose ``node[0]`` is their max_start; the roots (the nodes kept per state and
    the output roots' children) have a non-union left child; every left spine has at most
    SPINE unions (SPINE - 1 without a window).  Under a window the kids are sorted:
    ``max_start(u) = max_start(left) >= max_start(right)``."""
    seen: set = set()
    for r in roots:
        if r is not None and len(r) == 2 and r[0] >= lo:
            assert len(r[1][0]) != 2, "root union with a union on the left"
    stack = [r for r in roots if r is not None]
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        if len(n) == 3:
            stack.append(n[2])
        elif len(n) == 2:
            kids = n[1]
            assert len(kids) <= 2
            if n[0] < lo:
                continue      # expired: the window collector may have cut it down
            assert _spine(n) <= (SPINE if windowed else SPINE - 1), _spine(n)
            if windowed:
                assert len(kids) >= 1 and n[0] == kids[0][0]
                if len(kids) == 2:
                    assert kids[0][0] >= kids[1][0]
            else:
                assert len(kids) == 2 and n[0] == max(kids[0][0], kids[1][0])
            stack.extend(kids)


def test_new_union_three_nodes():
    o = lambda i, c=ecs.BOTTOM: ecs.out(i, c)
    a = ecs.union([o(5), o(3)])
    b = ecs.union([ecs.out(7, o(5)), o(4)])
    assert a[0] == b[0] == 5 and len(a[1][0]) == 3 and len(b[1][0]) == 3
    u = ecs.new_union(a, b)
    l1, u1 = u[1]
    assert l1 is a[1][0] and u1[1][0] is b[1][0]
    u2 = u1[1][1]
    assert u2[1] == [b[1][1], a[1][1]]            # larger max_start (4) on the left
    _check_union_invariants([u])
    assert sorted(ecs.enumerate_ces(u)) == sorted(list(ecs.enumerate_ces(a)) + list(ecs.enumerate_ces(b)))
    # a non-union operand goes on the left, one node
    v = ecs.new_union(a, o(5))
    assert v[1][0] == o(5) and v[1][1] is a


@given(st.integers(0, 10 ** 6), st.integers(1, 8))
def test_union_invariants_random_dags(seed, n):
    rng = random.Random(seed)
    _check_union_invariants(_random_dag(rng, n))


@given(cel_cases(min_len=1, max_len=9, strategies=ALL_STRICT, unary_only=True, safe_only=True,
                 allow_and=False))
def test_union_invariants_evaluator(case):
    query, stream = case
    ev = evaluator(query)
    for e in stream:
        ev.update(e)
        lo = ev.lower if ev.lower is not None else -ecs.INF
        _check_union_invariants(list(ev.nodes) + [o[2] for o in ev.output_nodes()], lo,
                                windowed=ev.lower is not None)


@pytest.mark.parametrize("q", ["(A AS a)+ WITHIN 5", "STRICT((A AS a)+ WITHIN 5)",
                               "((A AS a)+ ; B AS b)+ WITHIN 5", "(A AS a ; B AS b)+ WITHIN 5"])
def test_window_gc_with_empty_run_state(q):
    """The empty CE never sits at the bottom of a union chain, so nothing escapes the window."""
    rng = random.Random(5)
    ev = evaluator(parse(q))
    for i in range(5000):
        ev.update(Event(rng.choice("AB"), i, {}, i))
        if i > 100:
            assert ev.stats()["live_nodes"] < 60
