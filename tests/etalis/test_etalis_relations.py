"""The relation switches of the interval operators (docs/semantics/etalis.md#etalis-A23 to #etalis-A26,
``Options.par_overlap``, ``starts_end``, ``during_bounds``, ``finishes_start``): the paper's Figure 2 against the
relations the real ETALIS's ``compiler.P`` checks (papers-check/etalis/FINDINGS.md).

For each switch one hand-computed stream on which the two readings differ, with the expected sets under both
values for the unrestricted oracle and engine and for the policy oracle and engine (one instance per key and side,
so no policy consumes anything); interactions with ``proper_intervals_only``, ``during_result`` and windows; the
termination check under the switches; a hypothesis differential (oracle vs engine, the switches drawn, every
policy); the generators draw the switches; the ``--profile`` CLI.
"""
from __future__ import annotations

import dataclasses
import json
import random

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st
from typer.testing import CliRunner

from ceplab.asp.etalis import compile_program, oracle
from ceplab.asp.oracle import Limits, OracleResult
from ceplab.engine.etalis import evaluator
from ceplab.semantics.errors import ParseError, UnsupportedError
from ceplab.semantics.etalis.options import PROFILES, Options
from ceplab.semantics.etalis.parser import parse
from ceplab.workbench import cli, language as languages
from ceplab.workbench.compare import OptionError, compare, options_from_kv, profile_values
from ceplab.workbench.langs.etalis import random_options
from ceplab.workbench.langs.etalis.generators import (RELATION_SWITCHES, etalis_options, etalis_programs,
                                                      etalis_streams, gen_switch_shape)
from ceplab.workbench.generators import RandomChooser
from ceplab.workbench.langs.etalis.papers import parse_compact_stream

L = languages.get("etalis")
FAST = Limits(time_s=30, isolate=False)
IMPL = PROFILES["etalis-implementation"]


def run_all(rules: str, spec: str, **switches) -> dict[str, set]:
    """Results of the derived predicates by the unrestricted oracle and engine and, under ``recent_lifo``, the
    policy oracle and engine."""
    prog = parse(rules)
    evs = parse_compact_stream(spec)
    out = {}
    for policy in ("unrestricted", "recent_lifo"):
        o = Options(policy=policy, **switches)
        res = oracle(prog, evs, o, FAST)
        assert isinstance(res, OracleResult)
        out[f"oracle/{policy}"] = set(res.results)
        got = evaluator(prog, o).run(evs)
        assert len(got) == len(set(got))
        out[f"engine/{policy}"] = set(got)
    return out


def same(results: dict[str, set], expected: set) -> None:
    for k, v in results.items():
        assert v == expected, (k, sorted(v ^ expected))


# ------------------------------------------------------------------------------------------------ one per switch
# d(K) for key K; the streams are ordered by end (parse_compact_stream: a(1)@2 a point, b(1)@1-3 an interval)
PAR = ("d(X) <- a(X) par b(X).",
       "a(2)@1 a(1)@2 b(1)@1-3 b(2)@1-4 b(3)@4-6 a(3)@6 a(4)@7-9 b(4)@8-10 a(5)@11 b(5)@11 a(6)@12-13 b(6)@13-14")
PAR_PAPER = {("d(4)", 7, 10)}                                    # positive overlap only
PAR_IMPL = PAR_PAPER | {("d(1)", 1, 3), ("d(3)", 4, 6)}          # a point in (s, e]: inside, at the end; not at
#                                                                  the start (K=2), not two points (K=5)


@pytest.mark.parametrize("value,expected", [("positive", PAR_PAPER), ("starts_before_end", PAR_IMPL)])
def test_par_overlap(value, expected):
    same(run_all(*PAR, par_overlap=value), expected)


PAR01 = ("d(X) <- a(X) seq b(X) par c(X).", "a(1)@1 c(1)@2 b(1)@3 a(2)@4 b(2)@5 c(2)@6")   # ETALIS's par_01


@pytest.mark.parametrize("value,expected", [("positive", set()), ("starts_before_end", {("d(1)", 1, 3)})])
def test_par_01(value, expected):
    """(a seq b)<1,3> par c<2,2>: a point inside; c(2)<6,6> after a seq b<4,5> is no overlap in either reading."""
    res = run_all(*PAR01, par_overlap=value)
    same({k: {r for r in v if r[0].startswith("d(")} for k, v in res.items()}, expected)


STARTS = ("d(X) <- a(X) starts b(X).",
          "a(1)@1-3 b(1)@1-5 a(2)@6-8 b(2)@6-8 a(3)@9 b(3)@9 b(4)@10-11 a(4)@10-12 b(5)@12-14 a(5)@13-14")
STARTS_PAPER = {("d(1)", 1, 5)}                                  # e1 < e2
STARTS_IMPL = STARTS_PAPER | {("d(2)", 6, 8), ("d(3)", 9, 9)}    # e1 <= e2: equal intervals, equal points


@pytest.mark.parametrize("value,expected", [("strict", STARTS_PAPER), ("inclusive", STARTS_IMPL)])
def test_starts_end(value, expected):
    same(run_all(*STARTS, starts_end=value), expected)


DURING = ("d(X) <- a(X) during b(X).",
          "a(1)@2-3 b(1)@1-5 a(2)@6-7 b(2)@6-9 a(3)@11-12 b(3)@10-12 a(4)@13 b(4)@13 a(5)@14-16 b(5)@14-16 "
          "b(6)@18-19 a(6)@17-19")
DURING_PAPER = {("d(1)", 1, 5)}                                  # s2 < s1 < e1 < e2
DURING_IMPL = DURING_PAPER | {("d(2)", 6, 9), ("d(3)", 10, 12), ("d(4)", 13, 13), ("d(5)", 14, 16)}


@pytest.mark.parametrize("value,expected", [("strict", DURING_PAPER), ("inclusive", DURING_IMPL)])
def test_during_bounds(value, expected):
    same(run_all(*DURING, during_bounds=value), expected)


def test_during_inclusive_with_proper_intervals_and_contained():
    """proper_intervals_only drops the equal points (K=4) from the inclusive DURING (A9 covers DURING's operands);
    during_result=contained gives a's intervals."""
    same(run_all(*DURING, during_bounds="inclusive", proper_intervals_only=True), DURING_IMPL - {("d(4)", 13, 13)})
    got = run_all(*DURING, during_bounds="inclusive", during_result="contained")
    same(got, {("d(1)", 2, 3), ("d(2)", 6, 7), ("d(3)", 11, 12), ("d(4)", 13, 13), ("d(5)", 14, 16)})


FINISHES = ("d(X) <- a(X) finishes b(X).",
            "b(1)@1-5 a(1)@3-5 a(2)@6-8 b(2)@7-8 a(3)@9-10 b(3)@9-10 a(4)@11 b(4)@11 a(5)@12-13 b(5)@12-14")
FINISHES_PAPER = {("d(1)", 1, 5)}                                # e1 = e2, s2 < s1: <s2,e1>
FINISHES_IMPL = FINISHES_PAPER | {("d(2)", 6, 8), ("d(3)", 9, 10), ("d(4)", 11, 11)}   # e1 = e2: the hull


@pytest.mark.parametrize("value,expected", [("strict", FINISHES_PAPER), ("any", FINISHES_IMPL)])
def test_finishes_start(value, expected):
    same(run_all(*FINISHES, finishes_start=value), expected)


@pytest.mark.parametrize("q,expected", [(2, {("d(1)", 6, 8)}), (1, set())])
@pytest.mark.parametrize("pushdown", [True, False])
def test_finishes_any_under_a_window(q, expected, pushdown):
    """The window bounds the hull <6,8> (a's interval, length 2), not b's <7,8>: the pushed-down fit (9.7)."""
    prog = parse(f"d(X) <- (a(X) finishes b(X)).{q}.")
    evs = parse_compact_stream("a(1)@6-8 b(1)@7-8")
    o = Options(finishes_start="any")
    assert set(oracle(prog, evs, o, FAST, _pushdown=pushdown).results) == expected
    assert set(evaluator(prog, o).run(evs)) == expected


def test_profile_is_the_implementation():
    o = Options(**IMPL)
    assert (o.policy, o.par_overlap, o.starts_end, o.during_bounds, o.finishes_start) == (
        "recent_lifo", "starts_before_end", "inclusive", "inclusive", "any")
    for name, bad in (("par_overlap", "closed"), ("starts_end", "non_strict"), ("during_bounds", True),
                      ("finishes_start", "inclusive")):
        with pytest.raises(ValueError, match=name):
            Options(**{name: bad})


# ------------------------------------------------------------------------------------------------ termination
@pytest.mark.parametrize("op,switch", [("starts", ("starts_end", "inclusive")),
                                       ("during", ("during_bounds", "inclusive")),
                                       ("during", ("during_result", "contained")),
                                       ("finishes", ("finishes_start", "any"))])
def test_relaxed_inner_operand_does_not_progress(op, switch):
    """``x(N+1) <- x(N) OP y`` terminates only when OP's inner operand is strictly inside the result (A14): the
    parser accepts it under the paper's relations; under a relaxing switch the oracles and engines refuse it."""
    prog = parse(f"x(0) <- a. x(N+1) <- x(N) {op} y.")
    evs = parse_compact_stream("a@2-3 y@1-5" if op == "during" else "a@1-3 y@1-5")
    assert isinstance(oracle(prog, evs, Options(), FAST), OracleResult)
    for policy in ("unrestricted", "recent_lifo"):
        o = Options(policy=policy, **dict([switch]))
        with pytest.raises(UnsupportedError, match=f"{switch[0]}={switch[1]}"):
            oracle(prog, evs, o, FAST)
        with pytest.raises(UnsupportedError, match="progress"):
            evaluator(prog, o)


def test_seq_still_progresses_under_the_profile():
    prog = parse("x(0) <- a. x(N+1) <- x(N) seq y.")
    o = Options(**{**IMPL, "policy": "unrestricted", "goal_replacement": "keep"})
    res = oracle(prog, parse_compact_stream("a@1 y@2 y@3"), o, FAST)
    assert set(res.results) == {("x(0)", 1, 1), ("x(1)", 1, 2), ("x(1)", 1, 3), ("x(2)", 1, 3)}


# ------------------------------------------------------------------------------------------------ differential
@st.composite
def relation_options(draw) -> Options:
    """etalis_options() with every relation switch drawn at its implementation value half the time."""
    o = draw(etalis_options())
    kw = {f: draw(st.sampled_from([paper, other])) for f, (paper, other) in (
        ("par_overlap", ("positive", "starts_before_end")), ("starts_end", ("strict", "inclusive")),
        ("during_bounds", ("strict", "inclusive")), ("finishes_start", ("strict", "any")))}
    return dataclasses.replace(o, **kw)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(etalis_programs(max_rules=2), etalis_streams(max_len=8), relation_options())
def test_differential_under_relation_switches(rules, evs, opts):
    """Engine == oracle (workbench compare: sets, each result once, positions) with the relation switches drawn,
    every policy and the other switches as drawn."""
    try:
        prog = L.parse(rules)
        compile_program(prog, opts)
    except (ParseError, UnsupportedError):
        assume(False)
    try:
        rep = compare(L, prog, evs, opts, FAST)
    except UnsupportedError:
        assume(False)
    assume(rep.undecided is None)
    assert rep.agree, (rules, [str(e) for e in evs], opts, rep.summary(), rep.problems)


def test_generators_draw_the_relation_switches():
    rng = random.Random(7)
    drawn = [random_options(rng) for _ in range(400)]
    for f, paper in RELATION_SWITCHES.values():
        n = sum(getattr(o, f) != paper for o in drawn)
        assert 20 <= n <= 100, (f, n)
    o = Options(starts_end="inclusive")
    text, stream = gen_switch_shape(RandomChooser(random.Random(1)), o, 6)
    assert "starts" in text
    paper = set(oracle(parse(text), stream, Options(), FAST).results)
    impl = set(oracle(parse(text), stream, o, FAST).results)
    assert paper < impl


# ------------------------------------------------------------------------------------------------ --profile
runner = CliRunner()


def invoke(*args):
    return runner.invoke(cli.app, [str(a) for a in args])


def test_profile_values_and_set_override():
    assert profile_values(L, None) == {}
    assert profile_values(L, "etalis-implementation") == IMPL
    o = options_from_kv(Options, ["starts_end=strict"], profile_values(L, "etalis-implementation"))
    assert o.starts_end == "strict" and o.par_overlap == "starts_before_end" and o.policy == "recent_lifo"
    with pytest.raises(OptionError, match="etalis-implementation"):
        profile_values(L, "etalis-paper")


@pytest.fixture
def par01(tmp_path):
    q, s = tmp_path / "par_01.event", tmp_path / "par_01.stream"
    q.write_text(PAR01[0] + "\n")
    s.write_text("".join(f"event({e.atom},[{e.start},{e.end}]).\n" for e in parse_compact_stream(PAR01[1])))
    return q, s


def test_cli_profile(par01):
    q, s = par01
    plain = invoke("run", "etalis", q, s, "--json")
    prof = invoke("run", "etalis", q, s, "--profile", "etalis-implementation", "--json")
    over = invoke("run", "etalis", q, s, "--oracle", "--profile", "etalis-implementation", "--set",
                  "par_overlap=positive", "--json")
    assert plain.exit_code == prof.exit_code == over.exit_code == 0, (plain.output, prof.output, over.output)
    assert [r for r in json.loads(plain.output)["results"] if r[0] == "d(1)"] == []
    assert [r for r in json.loads(prof.output)["results"] if r[0] == "d(1)"] == [["d(1)", 1, 3]]
    assert [r for r in json.loads(over.output)["results"] if r[0] == "d(1)"] == []
    cmp_ = invoke("compare", "etalis", q, s, "--profile", "etalis-implementation", "--json")
    assert cmp_.exit_code == 0 and json.loads(cmp_.output)["agree"], cmp_.output
    bad = invoke("run", "etalis", q, s, "--profile", "nope")
    assert bad.exit_code == 2 and "nope" in bad.output and "etalis-implementation" in bad.output


def test_cli_help_and_languages_list_the_profiles():
    h = runner.invoke(cli.app, ["run", "--help"], env={"COLUMNS": "400"})
    assert h.exit_code == 0
    text = " ".join(h.output.split())
    assert "--profile" in text and "etalis etalis-implementation:" in text
    for k, v in IMPL.items():
        assert f"{k}={v}" in text, (k, text[-600:])
    j = invoke("languages", "--json")
    assert j.exit_code == 0
    by = {x["name"]: x for x in json.loads(j.output)["languages"]}
    assert by["etalis"]["profiles"] == {"etalis-implementation": IMPL}
    assert all("profiles" in x for x in by.values() if "error" not in x)
