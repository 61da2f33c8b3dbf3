"""Differential test of the consumption policies: the incremental engine (engine/etalis/policy.py) equals the
step-indexed ASP specification (asp/etalis_policy.py) on random rule sets and streams, under every policy and
every switch both implement (ETALIS-P, semantics/etalis/policies.py; issue 3 section 4).

Random programs: the shared generator of ceplab.workbench.langs.etalis.generators (nested operators, not, windows incl.
event_rule_window, where, time points, hierarchies, self-recursion, a guarded counter); streams with ties and
interval inputs.  The engine's emissions are also checked for the streaming contract: every result once, and
by the time of the event whose end reaches it (the prefix property is tests/test_etalis_properties.py).
"""
from __future__ import annotations

from hypothesis import HealthCheck, assume, given, settings, strategies as st

from ceplab.semantics.errors import UnsupportedError
from ceplab.asp.etalis_policy import oracle as spec
from ceplab.asp.oracle import Limits, OracleResult
from ceplab.engine.etalis import evaluator
from ceplab.semantics.errors import ParseError
from ceplab.semantics.etalis.options import Options
from ceplab.semantics.etalis.parser import parse
from ceplab.workbench.langs.etalis.generators import etalis_programs, etalis_streams

FAST = Limits(time_s=60, isolate=False)


@st.composite
def policy_options(draw) -> Options:
    """Every switch of Options that applies under a consumption policy."""
    policy = draw(st.sampled_from(["chronological", "recent", "recent_lifo"]))
    return Options(policy=policy,
                   interval_policy=draw(st.sampled_from(["off", "off", "longest", "shortest", "max:X", "min:Y"])),
                   during_result=draw(st.sampled_from(["container", "container", "contained"])),
                   proper_intervals_only=draw(st.booleans()),
                   window=draw(st.sampled_from(["at_most", "at_most", "exactly"])),
                   not_local_vars=draw(st.sampled_from(["existential", "free"])))


def engine_and_spec(rules: str, evs: list, opts: Options) -> tuple[set, set]:
    try:
        prog = parse(rules)
    except ParseError:
        assume(False)
    try:
        res = spec(prog, evs, opts, FAST)
    except UnsupportedError:
        assume(False)
    assume(isinstance(res, OracleResult))
    ev = evaluator(prog, opts)
    got: list = []
    for e in evs:
        new = ev.push(e)
        assert all(r[2] <= e.end for r in new), f"result emitted before its end time: {new} at {e}"
        got.extend(new)
    got.extend(ev.close())
    assert len(got) == len(set(got)), f"a result emitted twice: {got}"
    return set(got), set(res.results)


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(etalis_programs(), etalis_streams(max_len=8), policy_options())
def test_engine_equals_step_indexed_spec(rules, evs, opts):
    got, want = engine_and_spec(rules, evs, opts)
    assert got == want, (f"engine - spec: {sorted(got - want)}; spec - engine: {sorted(want - got)}")


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(etalis_programs(atoms=("a", "b"), max_rules=2), etalis_streams(min_len=6, max_len=12, atoms=("a", "b")),
       policy_options())
def test_engine_equals_spec_dense(rules, evs, opts):
    """Two event types only: many joins compete for the same goals (consumption decides)."""
    got, want = engine_and_spec(rules, evs, opts)
    assert got == want, (f"engine - spec: {sorted(got - want)}; spec - engine: {sorted(want - got)}")
