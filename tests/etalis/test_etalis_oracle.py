"""ETALIS clingo oracle (asp/etalis.py + asp/etalis.lp): docs/semantics/etalis.md#etalis-5 worked examples, Figure 1
(papers-check/etalis/figure1.json), operator-by-operator cases, the switches of ceplab.semantics.etalis.options,
the uniqueness check (Theorem 2.1), injection safety and limits."""
import json
from pathlib import Path

import pytest

from ceplab.asp.etalis import compile_program, oracle
from ceplab.semantics.errors import ModelError, UnsupportedError
from ceplab.asp.oracle import Limits, OracleResult, Undecided
from ceplab.semantics.etalis import ast as A
from ceplab.semantics.etalis.options import Options
from ceplab.semantics.etalis.parser import parse, parse_term
from ceplab.semantics.etalis.streams import StreamEvent, read_jsonl_events

ROOT = Path(__file__).resolve().parents[2]
FAST = Limits(time_s=30, isolate=False)


def stream(text: str) -> list[StreamEvent]:
    """``"a@1 b(1,x)@2 p@3-5"`` -> stream events (point, or ``start-end`` interval)."""
    out = []
    for i, tok in enumerate(text.split()):
        atom, t = tok.rsplit("@", 1)
        s, _, e = t.partition("-")
        term = parse_term(atom)
        ea = A.EventAtom(term.name, ()) if isinstance(term, A.Sym) else A.EventAtom(term.functor, term.args)
        out.append(StreamEvent(ea, int(s), int(e or s), i))
    return out


def run(rules: str, events: str | list, options: Options = Options(), **kw) -> set:
    evs = stream(events) if isinstance(events, str) else events
    res = oracle(parse(rules), evs, options, kw.pop("limits", FAST), **kw)
    assert isinstance(res, OracleResult), res
    return set(res.results)


def only(res: set, head: str) -> set:
    """Results of predicate ``head`` as {(atom, s, e)}."""
    return {r for r in res if r[0] == head or r[0].startswith(head + "(")}


def iv(res: set, head: str) -> set:
    """Intervals of the 0-ary head ``head``."""
    return {(s, e) for a, s, e in res if a == head}


# ------------------------------------------------------------------------------------------------ T1 Figure 1
FIG1 = json.loads((ROOT / "papers-check/etalis/figure1.json").read_text())


def _fig1_events():
    return read_jsonl_events("\n".join(json.dumps(e) for e in FIG1["stream"]))


@pytest.mark.parametrize("case", FIG1["cases"], ids=lambda c: c["name"])
def test_figure1(case):
    rules = "\n".join(FIG1["rules"]) + f"\nr <- {case['pattern']}.\n"
    res = run(rules, _fig1_events())
    assert iv(res, "r") == {tuple(x) for x in case["expected"]}
    if "expected_with_options" in case:
        res = run(rules, _fig1_events(), Options(**case["options"]))
        assert iv(res, "r") == {tuple(x) for x in case["expected_with_options"]}


def test_figure1_operands():
    res = run("\n".join(FIG1["rules"]), _fig1_events())
    assert iv(res, "p1") == {(0, 2), (3, 5), (6, 10)}
    assert iv(res, "p2") == {(1, 3), (4, 10)}
    assert iv(res, "p3") == {(3, 4), (6, 10)}


# ------------------------------------------------------------------------------------------------ T2-T16
def test_t2_consumption_unrestricted():
    res = run("ie <- a seq b. e <- ie seq c.", "a@1 a@2 a@3 b@4 b@5 c@6")
    assert iv(res, "ie") == {(s, e) for s in (1, 2, 3) for e in (4, 5)}
    assert iv(res, "e") == {(1, 6), (2, 6), (3, 6)}


def test_t3_intervals():
    res = run("a(V) <- x(V) seq y. b <- u seq w. ie <- a(V) seq b.",
              "x(1000)@1 x(10000)@15 y@30 u@35 w@50")
    assert iv(res, "ie") == {(1, 50), (15, 50)}
    # interval-stamped input gives the same
    res = run("ie <- a(V) seq b.", "a(1000)@1-30 a(10000)@15-30 b@35-50")
    assert iv(res, "ie") == {(1, 50), (15, 50)}


def test_t4_rule_order():
    for rules in ("c <- a seq b. d <- b seq c.", "d <- b seq c. c <- a seq b."):
        res = run(rules, "a@1 b@2")
        assert iv(res, "c") == {(1, 2)} and iv(res, "d") == set()
    for rules in ("c <- a seq b. d <- b and c.", "d <- b and c. c <- a seq b."):
        res = run(rules, "a@1 b@2")
        assert iv(res, "c") == {(1, 2)} and iv(res, "d") == {(1, 2)}


K = "k1 <- a seq b seq c. k2 <- (a seq b seq c) equals not(a or c).[a, c]."


@pytest.mark.parametrize("events,k1,k2", [
    ("a@1 b@2 b@3 c@4", {(1, 4)}, {(1, 4)}),
    ("a@1 c@2 b@3 b@4 c@5", {(1, 5)}, set()),
    ("a@1 b@2 b@3 a@4 c@5 b@6 c@7", {(1, 5), (1, 7), (4, 7)}, set()),
    ("a@1 b@2 c@3 b@4 c@5", {(1, 3), (1, 5)}, {(1, 3)}),
])
def test_t5_kleene_footnote(events, k1, k2):
    res = run(K, events)
    assert iv(res, "k1") == k1 and iv(res, "k2") == k2


def test_t6a_recursion_through_negation():
    res = run("e <- not(e).[a, b].", "a@1 a@2 b@3 b@5")
    assert iv(res, "e") == {(1, 3), (2, 3), (2, 5)}


def test_t6b_complex_delimiters_per_witness_vs_literal():
    rules = "p2 <- x seq y. r <- not(c).[p2, z]."
    ev = "x@1 y@2 c@3 y@5 z@8"
    assert iv(run(rules, ev), "p2") == {(1, 2), (1, 5)}
    assert iv(run(rules, ev), "r") == {(1, 8)}
    assert iv(run(rules, ev, Options(not_reading="literal")), "r") == set()


def test_t6c_local_variable_in_negation():
    rules = "d(X) <- not(c(Y)).[a(X), b(X)]."
    ev = "a(1)@1 b(1)@2 a(2)@3 c(2)@4 b(2)@5"
    assert run(rules, ev) == {("d(1)", 1, 2)}
    assert run(rules, ev, Options(not_local_vars="free")) == {("d(1)", 1, 2), ("d(2)", 3, 5)}
    # a negated part whose variables are bound by the delimiters joins on them
    assert run("d(X) <- not(c(X)).[a(X), b(X)].", ev) == {("d(1)", 1, 2)}
    assert run("d(X) <- not(c(X)).[a(X), b(X)].", "a(1)@1 c(2)@2 b(1)@3") == {("d(1)", 1, 3)}


def test_t7_counters():
    res = run("cnt(0) <- start. cnt(N+1) <- cnt(N) seq a.", "start@0 a@1 a@2 a@3")
    assert res == {("cnt(0)", 0, 0), ("cnt(1)", 0, 1), ("cnt(1)", 0, 2), ("cnt(1)", 0, 3),
                   ("cnt(2)", 0, 2), ("cnt(2)", 0, 3), ("cnt(3)", 0, 3)}
    res = run("mce(100000) <- start. mce(min(X,M)) <- mce(M) seq a(X).", "start@0 a(1)@1 a(2)@2 a(3)@3")
    assert res == {("mce(100000)", 0, 0), ("mce(1)", 0, 1), ("mce(1)", 0, 2), ("mce(1)", 0, 3),
                   ("mce(2)", 0, 2), ("mce(2)", 0, 3), ("mce(3)", 0, 3)}


def test_t8_iteration_skip_semantics():
    res = run("it(1) <- a. it(N+1) <- it(N) seq a. e <- it(5).", " ".join(f"a@{t}" for t in range(1, 8)))
    assert iv(res, "e") == {(1, 5), (1, 6), (2, 6), (1, 7), (2, 7), (3, 7)}


def test_t9_temp_increase():
    rules = ("tempIncrease(T) <- temp(T). tempIncrease(T2) <- tempIncrease(T1) seq temp(T2) where T2 > T1. "
             "tempAlarm(T) <- tempIncrease(T) where T > 100.")
    res = run(rules, "temp(90)@1 temp(95)@2 temp(93)@3 temp(101)@4 temp(99)@5")
    ti = {(a, s, e) for a, s, e in res if a.startswith("tempIncrease")}
    assert ti == {("tempIncrease(90)", 1, 1), ("tempIncrease(95)", 1, 2), ("tempIncrease(95)", 2, 2),
                  ("tempIncrease(93)", 1, 3), ("tempIncrease(93)", 3, 3),
                  *{("tempIncrease(101)", s, 4) for s in (1, 2, 3, 4)},
                  *{("tempIncrease(99)", s, 5) for s in (1, 2, 3, 5)}}
    assert only(res, "tempAlarm") == {("tempAlarm(101)", s, 4) for s in (1, 2, 3, 4)}


def test_t10_transitive_closure():
    res = run("reach(X,Y) <- reach(X,Z) seq edge(Z,Y). reach(X,Y) <- edge(X,Y).",
              "edge(1,2)@1 edge(2,3)@2 edge(3,4)@3")
    assert res == {("reach(1,2)", 1, 1), ("reach(2,3)", 2, 2), ("reach(3,4)", 3, 3), ("reach(1,3)", 1, 2),
                   ("reach(2,4)", 2, 3), ("reach(1,4)", 1, 3)}


JET = ("linked(p1,p2). linked(p2,p3). linked(p3,p4). path(X,Y) :- linked(X,Y). "
       "path(X,Y) :- linked(X,Z), path(Z,Y). "
       "warning(P1,P2) <- cat(P1) seq airplane(P2) where path(P2,P1).")


def test_t11_jet_stream_static_closure():
    assert run(JET, "cat(p3)@1 airplane(p1)@2") == {("warning(p3,p1)", 1, 2)}
    assert run(JET, "cat(p1)@1 airplane(p3)@2") == set()
    assert run(JET, "airplane(p1)@1 cat(p3)@2") == set()
    # negated static atom in where
    assert run(JET.replace("where path(P2,P1)", "where \\+ path(P2,P1)"),
               "cat(p1)@1 airplane(p3)@2") == {("warning(p1,p3)", 1, 2)}


def test_t12_heat_index_bands():
    rules = ("caution(L) <- hi(L,V) where (V >= 80, V < 90). "
             "extremeCaution(L) <- hi(L,V) where (V >= 90, V < 105). "
             "danger(L) <- hi(L,V) where (V >= 105, V < 130). "
             "extremeDanger(L) <- hi(L,V) where V >= 130.")
    vals = [79, 80, 89, 95, 110, 129, 130, 90, 105]
    res = run(rules, " ".join(f"hi({v},{v})@{i}" for i, v in enumerate(vals)))
    got = {int(a[a.index("(") + 1:-1]): a[:a.index("(")] for a, _, _ in res}
    assert got == {80: "caution", 89: "caution", 95: "extremeCaution", 110: "danger", 129: "danger",
                   130: "extremeDanger", 90: "extremeCaution", 105: "danger"}


def test_t14_blizzard_warning():
    rules = ("settling(ID,T,T,1) <- sensor(ID,T,W) where W >= 15. "
             "settling(ID,T1,T3,C1) <- settling(ID,T1,T2,C) seq sensor(ID,T3,W) where (W >= 15, C1 is C+1). "
             "warning(ID) <- settling(ID,T1,T3,C) where (C >= 4, T3 - T1 >= 180).")
    ev = " ".join(f"sensor(s1,{t},20)@{t}" for t in range(0, 211, 30))
    assert only(run(rules, ev), "warning") == {("warning(s1)", 0, 180), ("warning(s1)", 0, 210),
                                               ("warning(s1)", 30, 210)}


def test_t16_mismatch_bait():
    assert iv(run("a2 <- x seq y. ie <- a2 par b.", "x@3 b@4 y@6"), "ie") == set()
    assert iv(run("r <- a equals b.", "a@1 b@1"), "r") == {(1, 1)}
    assert iv(run("r <- a equals b.", "a@1 b@1"), "r") == {(1, 1)}
    assert iv(run("r <- a meets b.", "a@2 b@2"), "r") == {(2, 2)}
    assert iv(run("r <- a meets a.", "a@2"), "r") == {(2, 2)}
    assert iv(run("bb <- x seq y. r <- a starts bb.", "x@1 a@1 y@3"), "r") == {(1, 3)}
    assert iv(run("c <- a seq b. d <- a0 seq b0. e <- c during d.", "a0@1 a@2 b@3 b0@4"), "e") == {(1, 4)}
    assert iv(run("ie <- a and b.", "a@1 a@2 b@3"), "ie") == {(1, 3), (2, 3)}


# ------------------------------------------------------------------------------------------------ operators
def test_operators_on_points_and_proper_intervals_switch():
    proper = Options(proper_intervals_only=True)
    assert iv(run("r <- a equals b.", "a@1 b@1", proper), "r") == set()
    assert iv(run("r <- a meets a.", "a@2", proper), "r") == set()
    assert iv(run("bb <- x seq y. r <- a starts bb.", "x@1 a@1 y@3", proper), "r") == set()
    assert iv(run("bb <- x seq y. r <- a finishes bb.", "x@1 a@3 y@3"), "r") == {(1, 3)}
    assert iv(run("bb <- x seq y. r <- a finishes bb.", "x@1 a@3 y@3", proper), "r") == set()
    # proper intervals still combine in proper mode
    ev = "x@1 y@3 u@3 w@5"
    rules = "p <- x seq y. q <- u seq w. r <- p meets q. s <- p equals p."
    for o in (Options(), proper):
        res = run(rules, ev, o)
        assert iv(res, "r") == {(1, 5)} and iv(res, "s") == {(1, 3)}


def test_seq_strict_and_par_overlap():
    assert iv(run("r <- a seq b.", "a@1 b@1 b@2"), "r") == {(1, 2)}
    assert iv(run("r <- a par b.", "a@1-4 b@2-6 b@4-7 b@0-1"), "r") == {(1, 6)}
    assert iv(run("r <- a and b.", "a@1-4 b@2-6 b@4-7"), "r") == {(1, 6), (1, 7)}
    assert iv(run("r <- a during b.", "a@2-3 b@1-4 b@2-4 a@5"), "r") == {(1, 4)}
    assert iv(run("r <- a during b.", "a@2-3 b@1-4", Options(during_result="contained")), "r") == {(2, 3)}


def test_or_join_and_variables():
    res = run("r(X) <- a(X) or b(X). s(X) <- a(X) seq b(X).", "a(1)@1 b(2)@2 b(1)@3")
    assert only(res, "r") == {("r(1)", 1, 1), ("r(2)", 2, 2), ("r(1)", 3, 3)}
    assert only(res, "s") == {("s(1)", 1, 3)}


def test_windows_and_rule_window():
    assert iv(run("r <- (a seq b).2.", "a@1 a@2 b@3"), "r") == {(1, 3), (2, 3)}
    assert iv(run("r <- (a seq b).1.", "a@1 a@2 b@3"), "r") == {(2, 3)}
    assert iv(run("r <- (a seq b).1.", "a@1 a@2 b@3", Options(window="exactly")), "r") == {(2, 3)}
    assert iv(run("r <- (a seq b).2.", "a@1 a@2 b@3", Options(window="exactly")), "r") == {(1, 3)}
    assert iv(run("w([property(event_rule_window, 1)]) 'rule:' r <- a seq b.", "a@1 a@2 b@3"), "r") == {(2, 3)}


def test_time_points():
    assert iv(run("r <- a seq 5.", "a@1 a@6"), "r") == {(1, 5)}
    assert iv(run("r <- 0 seq 6.", ""), "r") == {(0, 6)}


def test_where_arithmetic():
    rules = ("r(Z) <- a(X) seq b(Y) where Z is X * Y + (X // 2) - (X mod 3). "
             "s(Z) <- a(X) where Z is -7 rem X. t(Z) <- a(X) where Z is -7 mod X. "
             "u(Z) <- a(X) seq b(Y) where Z is max(X,Y) - min(X,Y) + abs(X - 10). "
             "v(X) <- a(X) where (X =:= 3 ; X =\\= X). w(X) <- a(X) where \\+ (X > 1, X < 5).")
    res = run(rules, "a(3)@1 b(4)@2")
    assert {a for a, _, _ in res} == {"r(13)", "s(-1)", "t(2)", "u(8)", "v(3)"}
    assert {a for a, _, _ in run(rules, "a(7)@1")} == {"s(-0)".replace("-0", "0"), "t(0)", "w(7)"}


def test_where_symbols_and_strings():
    res = run('r(X,Y) <- a(X) seq b(Y) where X \\= Y. s(X) <- a(X) where X == "str".',
              [StreamEvent(A.EventAtom("a", (A.Str("str"),)), 1, 1, 0),
               StreamEvent(A.EventAtom("b", (A.Sym("str"),)), 2, 2, 1)])
    assert res == {('r("str",str)', 1, 2), ('s("str")', 1, 1)}


def test_function_terms_in_heads():
    res = run("r(f(X,[X,g]),X+1) <- a(X).", "a(1)@1")
    assert res == {("r(f(1,[1,g]),2)", 1, 1)}


def test_include_input():
    res = run("r <- a seq b.", "a@1 b@2", include_input=True)
    assert res == {("r", 1, 2), ("a", 1, 1), ("b", 2, 2)}


def test_set_semantics_duplicates():
    assert iv(run("r <- a seq b.", "a@1 a@1 b@2 b@2"), "r") == {(1, 2)}


# ------------------------------------------------------------------------------------------------ uniqueness
def test_no_answer_set_is_an_error():
    rules = "a <- a1 seq a2. x <- a during not(x).[b, c]."
    with pytest.raises(ModelError) as ei:
        oracle(parse(rules), stream("b@1 a1@2 a2@3 c@4"), Options(during_result="contained"), FAST)
    assert ei.value.count == 0
    assert ei.value.rules == ("x <- a during not(x).[b, c].",)
    assert "no answer set" in str(ei.value) and "line 1" in str(ei.value)
    # the default (container) reading is stratified
    assert run(rules, "b@1 a1@2 a2@3 c@4") == {("a", 2, 3), ("x", 1, 4)}


def test_two_answer_sets_is_an_error():
    rules = "a <- a1 seq a2.\nx <- a during not(y).[b, c].\ny <- a during not(x).[b, c].\nz <- a seq c."
    with pytest.raises(ModelError) as ei:
        oracle(parse(rules), stream("b@1 a1@2 a2@3 c@4"), Options(during_result="contained"),
               Limits(time_s=30))
    assert ei.value.count == 2
    assert set(ei.value.rules) == {"x <- a during not(y).[b, c].", "y <- a during not(x).[b, c]."}
    assert "line 2" in str(ei.value) and "line 3" in str(ei.value)


# ------------------------------------------------------------------------------------------------ safety
HOSTILE = ['x"). bad :- not ok. %', "a\\", 'q\n:- x.', "#show x/0.", "e(\"a\")", "α β", "'", "\x00z",
           "l", "c", "q"]


@pytest.mark.parametrize("name", HOSTILE)
def test_injection_safety(name):
    sym = A.Sym(name)
    evs = [StreamEvent(A.EventAtom(name, (sym, A.Str(name))), 1, 1, 0),
           StreamEvent(A.EventAtom("b", (sym,)), 2, 2, 1)]
    prog = parse(f"r(X,Y,Z) <- {A.quote_atom(name)}(X,Y) seq b(Z) where X == Z.")
    res = oracle(prog, evs, Options(), FAST)
    atom = A.EventAtom("r", (sym, A.Str(name), sym))
    assert res.results == {(str(atom), 1, 2)}
    assert parse(f"{str(atom)} <- a.").event_rules[0].head == atom  # ETALIS text round-trips


def test_injection_in_static_facts_and_comments():
    name = 'p"). :- x. %\n'
    prog = parse(f"{A.quote_atom('st')}({A.quote_atom(name)}). r(X) <- a(X) where st(X).")
    res = oracle(prog, [StreamEvent(A.EventAtom("a", (A.Sym(name),)), 1, 1, 0),
                        StreamEvent(A.EventAtom("a", (A.Sym("p"),)), 2, 2, 1)], Options(), FAST)
    assert res.results == {(str(A.EventAtom("r", (A.Sym(name),))), 1, 1)}


def test_unsupported_constructs():
    with pytest.raises(UnsupportedError, match="float"):
        compile_program(parse("r <- a(X) where X > 1.5."))
    with pytest.raises(UnsupportedError, match="float"):
        oracle(parse("r <- a(X)."), [StreamEvent(A.EventAtom("a", (A.Num(1.5),)), 1, 1, 0)], Options(), FAST)
    with pytest.raises(UnsupportedError, match="/"):
        compile_program(parse("r(Y) <- a(X) where Y is X / 2."))
    with pytest.raises(UnsupportedError, match="negated part"):
        compile_program(parse("r(X) <- x(X) seq not(c(X)).[a, b]."))


def test_options_validation():
    with pytest.raises(ValueError):
        Options(not_reading="other")
    with pytest.raises(ValueError):
        Options(proper_intervals_only="yes")


# ------------------------------------------------------------------------------------------------ limits
def test_time_limit_gives_undecided():
    evs = [StreamEvent(A.EventAtom("a", (A.Num(i),)), i, i, i) for i in range(300)]
    prog = parse("r(X,Y,Z) <- a(X) and a(Y) and a(Z).")
    res = oracle(prog, evs, Options(), Limits(time_s=0.5))
    assert isinstance(res, Undecided)
    res = oracle(prog, evs[:30], Options(), Limits(time_s=60, max_ground_size=5_000))
    assert isinstance(res, Undecided) and "ground size" in res.reason
