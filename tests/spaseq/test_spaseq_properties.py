"""Metamorphic properties of SPAseq (docs/semantics/spaseq.md#spaseq-6): strategy inclusion, Kleene witness
counts and run counts (the paper's Theorems 1 and 3), time-shift and stream-renaming invariance, foreign streams,
distributivity of ``|``, and engine options that change no answer.  They are checked on the engine (fast), whose
agreement with the oracle is the differential test's job, and on the oracle for a few of them."""
from __future__ import annotations

import dataclasses
import random

from hypothesis import HealthCheck, given, settings
from rdflib import URIRef

from ceplab.asp.oracle import Limits
from ceplab.semantics.rdfstream import GraphEvent
from ceplab.semantics.spaseq import ast as A
from ceplab.semantics.spaseq.options import Options
from ceplab.workbench.generators import RandomChooser
from ceplab.workbench.langs.spaseq import LANGUAGE as L
from ceplab.workbench.langs.spaseq import generators as G

EX = "http://example.org/"
SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def engine(q, stream, options=Options()) -> frozenset:
    ev = L.evaluator(q, options)
    out = []
    for e in stream:
        out.extend(ev.push(e))
    out.extend(ev.close())
    return frozenset(out)


def oracle(q, stream, options=Options()) -> frozenset:
    return L.oracle(q, stream, options, Limits(time_s=60.0, isolate=False)).results


def with_connectors(q, c: str):
    seq = tuple(el if el.connector is None else dataclasses.replace(el, connector=c) for el in q.query.seq)
    return dataclasses.replace(q, query=dataclasses.replace(q.query, seq=seq))


def ev(stream: str, t: int, pos: int, *triples: tuple[str, str, int]) -> GraphEvent:
    from rdflib import Literal

    return GraphEvent([(URIRef(EX + s), URIRef(EX + p), Literal(v)) for s, p, v in triples], t, URIRef(EX + stream),
                      pos)


# ----------------------------------------------------------------------------- strategy inclusion
@SETTINGS
@given(case=G.spaseq_cases(0, 9), options=G.spaseq_options())
def test_strict_contiguity_within_skip_till_next_within_skip_till_any(case, options):
    text, stream = case
    q = L.parse(text)
    sc, stn, sta = (engine(with_connectors(q, c), stream, dataclasses.replace(options, kleene_iter="same"))
                    for c in (",", ";", ":"))
    assert sc <= stn <= sta


# ----------------------------------------------------------------------------- Kleene+ and run counts
def _kleene_query(conn_b: str = "") -> str:
    seq = "A+" if not conn_b else f"A {conn_b} B+ {conn_b} C"
    return f"""PREFIX : <{EX}>
SELECT *
WITHIN 1000 SECONDS
FROM STREAM S1 <{EX}s1>
WHERE SEQ({seq})
{{
  DEFINE GPM A ON S1 {{ ?s :p ?x . }}
  DEFINE GPM B ON S1 {{ ?t :p ?y . }}
  DEFINE GPM C ON S1 {{ ?u :p ?z . }}
}}
"""


def test_standalone_kleene_has_one_witness_per_contiguous_run():
    """Under skip-till-next with every event relevant, ``A+`` has the n(n+1)/2 contiguous chains as witnesses."""
    for n in (1, 4, 7):
        stream = [ev("s1", t, t, ("a", "p", t)) for t in range(n)]
        res = engine(L.parse(_kleene_query()), stream)
        witnesses = {r.events for r in res}
        assert len(witnesses) == n * (n + 1) // 2
        assert all([t for _, t in w] == list(range(w[0][1], w[-1][1] + 1)) for w in witnesses)


def test_kleene_witness_counts_equal_on_the_oracle():
    stream = [ev("s1", t, t, ("a", "p", t)) for t in range(5)]
    q = L.parse(_kleene_query())
    assert oracle(q, stream) == engine(q, stream)


def _runs(text: str, n: int) -> int:
    q = L.parse(text)
    e = L.evaluator(q, Options())
    for t in range(n):
        e.push(ev("s1", t, t, ("a", "p", t)))
    e.close()
    return e.counters["runs_created"]


def test_run_counts_linear_without_kleene_quadratic_with_it():
    """Theorem 1 (strict contiguity and skip-till-next: O(n) runs) and Theorem 3 (Kleene+: O(n^2))."""
    seq = _kleene_query(";").replace("SEQ(A ; B+ ; C)", "SEQ(A ; B ; C)")
    lin = [_runs(seq, n) for n in (50, 100, 200)]
    assert lin[2] <= 4.4 * lin[0] and lin[1] <= 2.2 * lin[0], lin
    quad = [_runs(_kleene_query(";"), n) for n in (25, 50, 100)]
    assert quad[2] >= 12 * quad[0], quad


# ----------------------------------------------------------------------------- invariances
def _shift(stream, c: int) -> list:
    return [GraphEvent(e.graph, e.time + c, e.stream, e.position, e.name) for e in stream]


@SETTINGS
@given(case=G.spaseq_cases(0, 9), options=G.spaseq_options())
def test_time_shift_invariance(case, options):
    text, stream = case
    q = L.parse(text)
    c = 5 * q.query.window
    base = engine(q, stream, options)
    shifted = engine(q, _shift(stream, c), dataclasses.replace(options, origin=options.origin + c))
    assert shifted == {r._replace(events=tuple((s, t + c) for s, t in r.events)) for r in base}


@SETTINGS
@given(case=G.spaseq_cases(0, 9), options=G.spaseq_options())
def test_stream_renaming_invariance(case, options):
    text, stream = case
    ren = {EX + s: EX + "r" + s for s in G.STREAMS}
    q = L.parse(text)
    q2 = L.parse(text.replace("<http://example.org/s", "<http://example.org/rs"))
    stream2 = [GraphEvent(e.graph, e.time, URIRef(ren.get(str(e.stream), str(e.stream))), e.position, e.name)
               for e in stream]
    base = engine(q, stream, options)
    assert engine(q2, stream2, options) == {r._replace(events=tuple((ren.get(s, s), t) for s, t in r.events))
                                            for r in base}


@SETTINGS
@given(case=G.spaseq_cases(0, 9), options=G.spaseq_options(), seed=__import__("hypothesis").strategies.integers(0, 99))
def test_a_foreign_stream_changes_nothing_under_next_and_any(case, options, seed):
    text, stream = case
    q = L.parse(text)
    if any(el.connector == "," for el in q.query.seq):
        q = with_connectors(q, ";")
    rng = random.Random(seed)
    foreign = sorted({e.time for e in stream} | {rng.randint(0, 30) for _ in range(3)})
    mixed = sorted(list(stream) + [ev("s9", t, 0, ("a", "p", 1)) for t in foreign if rng.random() < 0.7],
                   key=lambda e: e.time)
    mixed = [GraphEvent(e.graph, e.time, e.stream, i, e.name) for i, e in enumerate(mixed)]
    opts = dataclasses.replace(options, kleene_iter="same") if options.kleene_iter != "same" else options
    assert engine(q, mixed, opts) == engine(q, stream, opts)


# ----------------------------------------------------------------------------- distributivity of |
def _dist_query(body: str, conn: str) -> str:
    return f"""PREFIX : <{EX}>
SELECT *
WITHIN 100 SECONDS
FROM STREAM S1 <{EX}s1>
WHERE SEQ({body.replace('.', conn)})
{{
  DEFINE GPM A ON S1 {{ ?s :p ?x . FILTER (?x < 2) }}
  DEFINE GPM B ON S1 {{ ?s :p ?y . FILTER (?y >= 2) }}
  DEFINE GPM C ON S1 {{ ?s :q ?z . }}
}}
"""


def _dist_stream(seed: int) -> list:
    rng = random.Random(seed)
    return [ev("s1", t, t, (rng.choice("ab"), rng.choice("pq"), rng.randint(0, 3))) for t in range(rng.randint(2, 9))]


def test_right_distributivity_of_disjunction_holds_under_any_and_strict():
    for conn in (":", ","):
        for seed in range(40):
            s = _dist_stream(seed)
            lhs = engine(L.parse(_dist_query("A . (B | C)", conn)), s)
            rhs = engine(L.parse(_dist_query("A . B", conn)), s) | engine(L.parse(_dist_query("A . C", conn)), s)
            assert lhs == rhs, (conn, seed)


def test_right_distributivity_of_disjunction_fails_under_next():
    """A relevant C event before the first relevant B event pre-empts it on the left-hand side only."""
    s = [ev("s1", 0, 0, ("a", "p", 0)), ev("s1", 1, 1, ("a", "q", 5)), ev("s1", 2, 2, ("a", "p", 3))]
    lhs = engine(L.parse(_dist_query("A . (B | C)", ";")), s)
    rhs = engine(L.parse(_dist_query("A . B", ";")), s) | engine(L.parse(_dist_query("A . C", ";")), s)
    assert lhs < rhs
    q = L.parse(_dist_query("A . (B | C)", ";"))
    assert oracle(q, s) == lhs


# ----------------------------------------------------------------------------- engine options
@SETTINGS
@given(case=G.spaseq_cases(0, 10), options=G.spaseq_options())
def test_engine_options_change_no_answer(case, options):
    text, stream = case
    q = L.parse(text)
    on = dataclasses.replace(options, engine_push_window=True, engine_push_stateful=True, engine_stream_index=True,
                             engine_lazy_conjunction=True, engine_disjunction_order="cost")
    off = dataclasses.replace(options, engine_push_window=False, engine_push_stateful=False,
                              engine_stream_index=False, engine_lazy_conjunction=False,
                              engine_disjunction_order="written")
    assert engine(q, stream, on) == engine(q, stream, off)
