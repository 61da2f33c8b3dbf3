"""CQELS-CEP: the incremental engine equals the clingo oracle (docs/semantics/cqels.md#cqels-7, #cqels-8) on the
oracle tests' random queries, streams, static data and switches, and on every pinned query file."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from ceplab.engine.cqels import run as engine_run
from ceplab.semantics.cqels.streams import arrival_order

from .test_oracle import options, query, run as oracle_run, static_data, stream


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(query(), stream(), static_data(), options())
def test_engine_equals_oracle(q, es, D, o):
    want = oracle_run(q, es, o, D)
    got = frozenset(engine_run(q, arrival_order(es, o), o, D))
    assert got == want, (sorted(want - got)[:3], sorted(got - want)[:3])
