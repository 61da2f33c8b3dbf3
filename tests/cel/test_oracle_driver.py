"""The shared clingo driver asp/oracle.py: escaping, limits, statistics, optimization, isolation."""
import json
import time

import clingo
import pytest

from ceplab.asp.cel import oracle as cel_oracle
from ceplab.asp.oracle import (Limits, OracleResult, Solver, Undecided, asp_string, asp_unstring, isolated,
                               py_symbol, run)
from ceplab.semantics.errors import OracleError
from ceplab.semantics.cel import ast as A
from ceplab.semantics.cel.parser import parse
from ceplab.semantics.events import Stream

HOSTILE = [
    'a"). in(1). %',
    'x". :- .',
    "line\nbreak",
    "back\\slash",
    "\\",
    '\\"',
    "end\\",
    "%comment",
    ":- p. #show q/1.",
    "tab\tcr\rvt\x0b",
    "nul\x00byte",
    "sur\ud800rogate",
    "\\u0000",
    "ünïcödé 𝄞",
    "",
    '"',
    "}).#const n=0.",
]


# ------------------------------------------------------------------ escaping
@pytest.mark.parametrize("s", HOSTILE)
def test_asp_string_is_one_inert_token_and_round_trips(s):
    prog = f"t({asp_string(s)}). u({asp_string(s)},1)."
    res = run(prog, args=["0"], limits=Limits(isolate=False),
              decode=lambda m: tuple(sorted((x.name, asp_unstring(x.arguments[0].string))
                                            for x in m.symbols)))
    assert isinstance(res, OracleResult)
    assert res.results == frozenset({(("t", s), ("u", s))})  # exactly these two atoms, nothing injected


def test_asp_string_is_injective_on_tricky_pairs():
    pairs = [("nul\x00", "nul\\u0000"), ("a\\b", "a\\\\b"), ("\n", "\\n"), ('"', '\\"')]
    for a, b in pairs:
        assert asp_string(a) != asp_string(b)
    lits = [asp_string(s) for s in HOSTILE]
    assert len(set(lits)) == len(HOSTILE)


def test_asp_string_rejects_non_strings():
    with pytest.raises(TypeError):
        asp_string(3)  # type: ignore[arg-type]


def test_py_symbol():
    assert py_symbol(clingo.parse_term('f(1,"a\\\\\\\\b",(2,c))')) == ("f", 1, "a\\b", (2, ("c",)))


def _rename(f, m):
    """Rename relation names and variables of a formula with the maps m."""
    if isinstance(f, A.Atom):
        return A.Atom(m.get(f.rel, f.rel), m.get(f.var, f.var))
    if isinstance(f, A.Filter):
        return A.Filter(_rename(f.body, m), _rename_pred(f.pred, m))
    if isinstance(f, A.Plus):
        return A.Plus(_rename(f.body, m))
    if isinstance(f, (A.Or, A.Seq, A.And)):
        return type(f)(_rename(f.left, m), _rename(f.right, m))
    return f


def _rename_pred(p, m):
    if isinstance(p, A.Cmp):
        return A.Cmp(m.get(p.var, p.var), m.get(p.attr, p.attr), p.op, m.get(p.value, p.value))
    if isinstance(p, A.Cmp2):
        return A.Cmp2(m.get(p.var, p.var), m.get(p.attr, p.attr), p.op, m.get(p.var2, p.var2),
                      m.get(p.attr2, p.attr2))
    if isinstance(p, (A.PAnd, A.POr)):
        return type(p)(_rename_pred(p.left, m), _rename_pred(p.right, m))
    if isinstance(p, A.PNot):
        return A.PNot(_rename_pred(p.arg, m))
    return p


@pytest.mark.parametrize("strategy", ["ALL", "NXT", "MAX"])
def test_hostile_names_in_cel_oracle_do_not_change_results(strategy):
    q = parse(f'{strategy}((A AS x ; (B AS y FILTER y.v = x.v)+ ; C AS z) '
              f'FILTER x.s = "k" AND z.v >= 1 WITHIN 6)')
    evs = [("A", {"v": 1, "s": "k"}), ("B", {"v": 1}), ("A", {"v": 2, "s": "j"}),
           ("B", {"v": 1}), ("C", {"v": 1}), ("B", {"v": 2}), ("C", {"v": 2})]
    plain = cel_oracle(q, Stream.of(evs))
    assert plain.results  # the case is not trivial
    h = {"A": HOSTILE[0], "B": HOSTILE[2] + HOSTILE[10], "C": HOSTILE[8], "x": 'x"). in(0). %',
         "y": "y\n:- in(4).", "z": "\\", "v": 'v"). %', "s": "s\x00", "k": 'k"). in(3).'}
    hq = A.Query(_rename(q.formula, h), q.strategy, q.within)
    hevs = [(h[t], {h[k]: h.get(v, v) for k, v in a.items()}) for t, a in evs]
    hostile = cel_oracle(hq, Stream.of(hevs))
    assert hostile.results == plain.results


# ------------------------------------------------------------------ limits
def test_solve_time_limit_gives_undecided_inline_and_isolated():
    hard = "p(1..14). h(1..13). 1 { at(P,H) : h(H) } 1 :- p(P). :- at(P,H), at(Q,H), P < Q."
    for iso in (False, True):
        t0 = time.perf_counter()
        r = run(hard, args=["1"], limits=Limits(time_s=0.5, isolate=iso))
        dt = time.perf_counter() - t0
        assert isinstance(r, Undecided), r
        assert "time limit" in r.reason
        assert dt < 2.0


def test_grounding_time_limit_kills_worker():
    # grounding loops over 3000^3 combinations without producing anything: only the worker's
    # hard timeout can stop it
    prog = "p(1..3000). q :- p(X), p(Y), p(Z), X+Y+Z < 0."
    t0 = time.perf_counter()
    r = run(prog, limits=Limits(time_s=0.5))
    dt = time.perf_counter() - t0
    assert isinstance(r, Undecided) and "worker killed" in r.reason
    assert dt < 1.5


def test_ground_size_limit_gives_undecided():
    r = run("p(1..50000).", limits=Limits(max_ground_size=10_000, isolate=False))
    assert isinstance(r, Undecided) and "ground size" in r.reason
    # rules + atoms, measured right after grounding
    r = run("p(1..3000). q(X) :- p(X). r(X) :- q(X).", limits=Limits(max_ground_size=10_000))
    assert isinstance(r, Undecided) and "ground size" in r.reason, r
    r = run("p(1..3000). q(X) :- p(X). r(X) :- q(X).", limits=Limits(max_ground_size=20_000))
    assert isinstance(r, OracleResult)


def test_cel_oracle_limits():
    s = Stream.of(["A"] * 300)
    r = cel_oracle(parse("(A AS a)+"), s, limits=Limits(time_s=1.0))
    assert isinstance(r, Undecided) and "time limit" in r.reason
    r = cel_oracle(parse("A AS a ; A AS b ; A AS c"), s, limits=Limits(max_ground_size=5_000))
    assert isinstance(r, Undecided) and "ground size" in r.reason
    r = cel_oracle(parse("A AS a ; A AS b FILTER a.v = b.v"), s,
                   limits=Limits(max_ground_size=50_000))
    assert isinstance(r, Undecided) and "ground size" in r.reason


def test_memory_limit_gives_undecided():
    r = run("p(1..20000000).", limits=Limits(time_s=30, memory_mb=64))
    assert isinstance(r, Undecided) and ("memory" in r.reason or "died" in r.reason)


# ------------------------------------------------------------------ statistics and solving
def test_stats_filled_and_json():
    r = run("p(1..3). {q(X)} :- p(X). #show q/1.", args=["0"])
    assert isinstance(r, OracleResult) and len(r.results) == 8
    st = r.stats
    assert st.ground_rules > 0 and st.atoms > 0 and st.calls == 1 and st.models == 8
    assert st.ground_seconds >= 0 and st.solve_seconds > 0 and st.total_seconds >= st.solve_seconds
    d = st.to_json()
    assert set(d) >= {"ground_rules", "atoms", "ground_seconds", "solve_seconds", "calls", "models"}
    json.dumps(d)


def test_stats_accumulate_over_calls():
    def job():
        s = Solver(["0"], Limits())
        s.add("{a;b}. #show a/0. #show b/0.")
        s.ground()
        n1 = len(s.solve())
        n2 = len(s.solve([("a", True)]))
        n3 = len(s.solve([("zzz", True)]))  # absent atom assumed true: unsatisfiable
        return (n1, n2, n3), s.stats

    (counts, st) = isolated(job, limits=Limits())
    assert counts == (4, 2, 0)
    assert st.calls == 2 and st.models == 6  # the third call never reaches the solver
    assert st.ground_rules > 0


@pytest.mark.parametrize("mode", ["opt", "optN"])
def test_optimization_keeps_only_optimal_models(mode):
    prog = "{a;b;c}. :- a, b. #maximize {1@2: a; 1@2: b; 1@1: c}. #show a/0. #show b/0. #show c/0."
    r = run(prog, args=[f"--opt-mode={mode}", "0"])
    assert r.results == frozenset({frozenset({"a", "c"}), frozenset({"b", "c"})}) if mode == "optN" \
        else len(r.results) == 1 and next(iter(r.results)) in ({"a", "c"}, {"b", "c"})


def test_projection():
    r = run("{a;b}. #project a/0. #show a/0.", args=["0", "--project"])
    assert r.results == frozenset({frozenset(), frozenset({"a"})}) and r.stats.models == 2


def test_bugs_raise_not_undecided():
    with pytest.raises(OracleError):
        run("p(.")
    with pytest.raises(OracleError):
        isolated(lambda: 1 / 0, limits=Limits())
    with pytest.raises(OracleError):
        run("p(.", limits=Limits(isolate=False))


def test_isolation_overhead():
    """Per-call cost of the forked worker (median, so that machine load does not dominate)."""
    import statistics
    prog = "p(1..3). {q(X)} :- p(X). #show q/1."

    def med(limits):
        ts = []
        for _ in range(25):
            t0 = time.perf_counter()
            assert isinstance(run(prog, limits=limits), OracleResult)
            ts.append(time.perf_counter() - t0)
        return statistics.median(ts)

    inline, forked = med(Limits(isolate=False)), med(Limits())
    print(f"\nper call (median): inline {inline * 1e3:.2f} ms, isolated {forked * 1e3:.2f} ms, "
          f"overhead {(forked - inline) * 1e3:.2f} ms")
    assert forked - inline < 0.1  # ~2 ms on an idle machine; scheduling latency dominates
