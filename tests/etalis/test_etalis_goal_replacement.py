"""The switch ``goal_replacement`` (docs/semantics/etalis.md#etalis-A27, ETALIS-P 8): under ``same_values`` storing a
goal removes the stored goals of its node with the same values, as the real ETALIS's ``recent`` and
``chronological`` do (``storage.P``: ``retractall`` before ``asserta``/``assertz``).  Hand-computed cases on both the
engine and the step-indexed ASP interpreter, the exemptions (aggregate records, the negated part of ``not``), the
validation, the file's policy flag, and a differential property with the switch drawn."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from ceplab.engine.etalis import evaluator
from ceplab.semantics.errors import ParseError
from ceplab.semantics.etalis.options import PROFILES, Options
from ceplab.semantics.etalis.parser import parse
from ceplab.workbench.generators import HypothesisChooser
from ceplab.workbench.langs.etalis import declared_options
from ceplab.workbench.langs.etalis.generators import etalis_streams, gen_etalis_program

from ceplab.asp.etalis_policy import oracle as spec
from ceplab.asp.oracle import OracleResult
from test_etalis_aggregate_policies import FAST, both   # engine and ASP interpreter on one case (the same check)

SEQ = "c <- a seq b."


@pytest.mark.parametrize("policy, keep, same", [
    # a@1 a@2 b@3 b@4.  keep: b@3 takes a@2 (LIFO) / a@1 (FIFO), b@4 the other one.
    # same_values: a@2 replaces a@1 (same values: none), so b@3 takes a@2 and b@4 finds nothing.
    ("recent_lifo", {("c", 2, 3), ("c", 1, 4)}, {("c", 2, 3)}),
    ("chronological", {("c", 1, 3), ("c", 2, 4)}, {("c", 2, 3)}),
])
def test_the_newest_goal_per_value_tuple(policy, keep, same):
    assert both(SEQ, "a@1 a@2 b@3 b@4", policy) == keep
    assert both(SEQ, "a@1 a@2 b@3 b@4", policy, goal_replacement="same_values") == same


def test_only_goals_with_the_same_values_are_replaced():
    rules = "c(X) <- a(X) seq b(X)."
    events = "a(1)@1 a(2)@2 a(1)@3 b(1)@4 b(1)@5 b(2)@6"
    # keep: b(1)@4 takes a(1)@3, b(1)@5 a(1)@1, b(2)@6 a(2)@2
    assert both(rules, events, "recent_lifo") == {("c(1)", 3, 4), ("c(1)", 1, 5), ("c(2)", 2, 6)}
    # same_values: a(1)@3 replaced a(1)@1 only; a(2)@2 stays
    assert both(rules, events, "recent_lifo", goal_replacement="same_values") == {("c(1)", 3, 4), ("c(2)", 2, 6)}


def test_aggregate_records_and_blockers_are_never_replaced():
    agg = "d(C) <- s seq aggregate(count, a(_), C)."
    events = "s@1 a(1)@2 s@3 a(1)@4 a(1)@5"
    for policy in ("chronological", "recent_lifo"):
        assert both(agg, events, policy, goal_replacement="same_values") == both(agg, events, policy)
    # two blockers with the same values: both stay.  c@2 lies inside the gap a@1 .. b@6 and blocks it; c@0-5 (stored
    # after it, same values) does not lie inside; were it to replace c@2, d<1,6> would be derived
    neg = "d <- not(c).[a, b]."
    for policy in ("chronological", "recent_lifo"):
        assert both(neg, "a@1 c@2 c@0-5 b@6", policy, goal_replacement="same_values") == set()


def test_options_validation():
    for kw in ({"policy": "unrestricted"}, {"policy": "recent"},
               {"policy": "recent_lifo", "interval_policy": "longest"}):
        with pytest.raises(ValueError, match="goal_replacement"):
            Options(goal_replacement="same_values", **kw)
    assert PROFILES["etalis-implementation"]["goal_replacement"] == "same_values"


@pytest.mark.parametrize("flag, policy, replacement", [
    ("recent", "recent_lifo", "same_values"), ("chronological", "chronological", "same_values"),
    ("recent_2", "recent_lifo", "keep"), ("chronological_2", "chronological", "keep"),
])
def test_the_files_policy_flag_selects_the_replacement(flag, policy, replacement):
    prog = parse(f":- set_etalis_flag(event_consumption_policy, {flag}).\n{SEQ}")
    got, notes = declared_options(prog, Options(), set(), "r.event")
    assert (got.policy, got.goal_replacement) == (policy, replacement) and notes


@st.composite
def _cases(draw):
    text = gen_etalis_program(HypothesisChooser(draw), max_rules=3, max_depth=2)
    return text, draw(etalis_streams(0, 9)), draw(st.sampled_from(["chronological", "recent_lifo"]))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(_cases())
def test_engine_equals_interpreter_with_the_replacement(case):
    text, events, policy = case
    try:
        prog = parse(text)
    except ParseError:
        prog = None
    assume(prog is not None)
    o = Options(policy=policy, goal_replacement="same_values")
    res = spec(prog, events, o, FAST)
    assume(isinstance(res, OracleResult))
    got = evaluator(prog, o).run(events)
    assert len(got) == len(set(got)) and set(got) == set(res.results), text
