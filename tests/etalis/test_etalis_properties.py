"""Metamorphic properties of ETALIS (issue 3 section 4; docs/semantics/etalis.md#etalis-9.4), for the engine under every policy
and for the oracles:

* left-associated and explicitly parenthesised chains agree, and a chain equals its binarization into
  intermediate events (docs/semantics/etalis.md#etalis-3.1, #etalis-P6);
* shifting every timestamp (stream and time points) by a constant shifts every result;
* for programs without ``not`` every consumption policy's answers are within the unrestricted ones (a policy
  only drops joins; ETALIS-P section 9);
* the prefix property for the policies: the specification on a prefix of the stream, restricted to results
  ending by the prefix's last time, equals what the engine has emitted by then.
"""
from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from ceplab.asp.etalis import oracle
from ceplab.semantics.errors import UnsupportedError
from ceplab.asp.oracle import Limits, OracleResult
from ceplab.engine.etalis import evaluator
from ceplab.semantics.errors import ParseError
from ceplab.semantics.etalis import ast as A
from ceplab.semantics.etalis.options import Options
from ceplab.semantics.etalis.parser import parse
from ceplab.semantics.etalis.policies import POLICIES
from ceplab.semantics.etalis.streams import StreamEvent

FAST = Limits(time_s=30, isolate=False)
OPS = ("seq", "and", "par", "or", "equals", "meets", "during", "starts", "finishes")
CHAIN_OPS = tuple(o for o in OPS if o != "or")
_LEVEL = {"seq": 1, "equals": 1, "meets": 1, "during": 1, "starts": 1, "finishes": 1, "and": 3, "par": 4}
SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def engine_set(rules_or_prog, evs, options) -> set:
    prog = parse(rules_or_prog) if isinstance(rules_or_prog, str) else rules_or_prog
    got = evaluator(prog, options).run(evs)
    assert len(got) == len(set(got))
    return set(got)


@st.composite
def small_streams(draw, types=("a", "b", "c", "d"), max_len=9):
    evs = []
    for _ in range(draw(st.integers(0, max_len))):
        s = draw(st.integers(0, 8))
        e = s + draw(st.sampled_from([0, 0, 0, 1, 2]))
        evs.append((draw(st.sampled_from(types)), draw(st.integers(1, 2)), s, e))
    evs.sort(key=lambda x: x[3])
    return [StreamEvent(A.EventAtom(n, (A.Num(v),)), s, e, i) for i, (n, v, s, e) in enumerate(evs)]


def _shared(draw, n):
    """Leaf arguments: a shared variable X or a wildcard."""
    return [draw(st.sampled_from(["X", "_"])) for _ in range(n)]


# ------------------------------------------------------------------------------------------------ chains
@SETTINGS
@given(st.lists(st.sampled_from(CHAIN_OPS), min_size=2, max_size=3), st.sampled_from(POLICIES), small_streams(),
       st.data())
def test_left_association_and_binarization(ops, policy, evs, data):
    """``e <- p1 o1 p2 o2 p3`` == ``e <- (p1 o1 p2) o2 p3`` == the chain binarized into intermediate events
    ``ie1 <- p1 o1 p2. e <- ie1 o2 p3`` (results of ``e`` only), under every policy."""
    leaves = [data.draw(st.sampled_from("abcd")) for _ in range(len(ops) + 1)]
    args = _shared(data.draw, len(leaves))
    head = "e(X)" if "X" in args else "e"
    atoms = [f"{n}({a})" for n, a in zip(leaves, args)]
    flat = atoms[0]
    for o, a in zip(ops, atoms[1:]):
        flat = f"{flat} {o} {a}"
    nested = atoms[0]
    for o, a in zip(ops, atoms[1:]):
        nested = f"({nested}) {o} {a}"
    # binarized: ie_k carries X when the prefix binds it
    rules, prev, prev_x = [], atoms[0], args[0] == "X"
    for k, (o, a, x) in enumerate(zip(ops, atoms[1:], args[1:])):
        last = k == len(ops) - 1
        binds = prev_x or x == "X"
        name = head if last else (f"ie{k}(X)" if binds else f"ie{k}")
        rules.append(f"{name} <- {prev} {o} {a}.")
        prev, prev_x = name, binds
    opts = Options(policy=policy)
    nested_res = engine_set(f"{head} <- {nested}.", evs, opts)
    # an unparenthesised chain is left-associated only within one precedence level (grammar.lark, docs/semantics/etalis.md#etalis-A13):
    # seq and the Allen operators share a level, 'and' and 'par' have their own
    if len({_LEVEL[o] for o in ops}) == 1:
        assert engine_set(f"{head} <- {flat}.", evs, opts) == nested_res
    binar = {r for r in engine_set(" ".join(rules), evs, opts) if r[0].split("(")[0] == "e"}
    assert binar == nested_res
    if policy == "unrestricted":
        res = oracle(parse(f"{head} <- {nested}."), evs, opts, FAST)
        assert isinstance(res, OracleResult) and set(res.results) == nested_res


# ------------------------------------------------------------------------------------------------ time shift
SHIFT_RULES = [
    "d(X) <- a(X) seq b(X).",
    "w([property(event_rule_window, 3)]) 'rule:' d <- (a(X) and b(X)) seq c(_).",
    "d(X) <- not(c(X)).[a(X), b(X)]. f <- d(_) during (a(_) seq b(_)).",
    "d <- (a(_) par b(_)) or (c(_) meets d(_)). f(X) <- d seq a(X) where X < 2.",
    "ie(X) <- a(X) seq b(_). e(X) <- ie(X) seq c(X). f <- 3 seq e(_).",
]


@SETTINGS
@given(st.sampled_from(SHIFT_RULES), st.sampled_from(POLICIES), small_streams(), st.integers(1, 20))
def test_time_shift(rules, policy, evs, c):
    """Shifting every timestamp and every absolute time point by ``c`` shifts every result by ``c``."""
    shifted_rules = rules.replace("f <- 3 seq", f"f <- {3 + c} seq")
    sh = [StreamEvent(e.atom, e.start + c, e.end + c, e.position) for e in evs]
    opts = Options(policy=policy)
    base = engine_set(rules, evs, opts)
    assert engine_set(shifted_rules, sh, opts) == {(a, s + c, e + c) for a, s, e in base}
    if policy == "unrestricted":
        res = oracle(parse(shifted_rules), sh, opts, FAST)
        assert isinstance(res, OracleResult) and set(res.results) == {(a, s + c, e + c) for a, s, e in base}


# ------------------------------------------------------------------------------------------------ subsets
@st.composite
def negation_free_programs(draw):
    """Random negation-free rule sets over a..d with windows, where and recursion (2-3 rules)."""
    def pat(depth):
        if depth == 0 or draw(st.integers(0, 3)) == 0:
            return f"{draw(st.sampled_from('abcd'))}({draw(st.sampled_from(['X', '_', '1']))})"
        kind = draw(st.sampled_from(["bin"] * 5 + ["win", "where"]))
        if kind == "win":
            return f"({pat(depth - 1)}).{draw(st.integers(0, 4))}"
        if kind == "where":
            return f"({pat(depth - 1)}) where (X >= 1 ; true)"
        op = draw(st.sampled_from(CHAIN_OPS))
        return f"({pat(depth - 1)}) {op} ({pat(depth - 1)})"
    rules = []
    for i in range(draw(st.integers(1, 3))):
        body = pat(draw(st.integers(1, 3)))
        if i and draw(st.booleans()):
            body = f"(r{i - 1}(_)) {draw(st.sampled_from(CHAIN_OPS))} ({body})"
        rules.append(f"r{i}(1) <- {body}.")
    return " ".join(rules)


@SETTINGS
@given(negation_free_programs(), small_streams(), st.sampled_from(POLICIES[1:]))
def test_policies_within_unrestricted(rules, evs, policy):
    try:
        prog = parse(rules)
    except ParseError:
        assume(False)
    try:
        full = engine_set(prog, evs, Options())
    except UnsupportedError:
        assume(False)
    assert engine_set(prog, evs, Options(policy=policy)) <= full


# ------------------------------------------------------------------------------------------------ prefix
@pytest.mark.parametrize("policy", POLICIES[1:])
def test_prefix_property_policies(policy):
    """Spec on every prefix (restricted to end <= the prefix's last time) == engine emissions by then."""
    rnd = random.Random(7)
    rules = ("ie(X) <- a(X) seq b(X). e(X) <- ie(X) seq c(_). f <- not(d(_)).[a(_), c(_)]. "
             "g <- (a(_) and b(_)).4.")
    prog = parse(rules)
    evs = []
    for i in range(10):
        t = i // 2 + rnd.randint(0, 1) + (evs[-1].end if evs else 0) - (evs[-1].end if evs else 0)
        t = max(t, evs[-1].end if evs else 0)
        evs.append(StreamEvent(A.EventAtom(rnd.choice("abcd"), (A.Num(rnd.randint(1, 2)),)), t, t, i))
    ev = evaluator(prog, Options(policy=policy))
    emitted: set = set()
    for i, e in enumerate(evs):
        emitted |= set(ev.push(e))
        res = oracle(prog, evs[:i + 1], Options(policy=policy), FAST)
        assert isinstance(res, OracleResult)
        assert {r for r in res.results if r[2] <= e.end} == emitted, (policy, i)
