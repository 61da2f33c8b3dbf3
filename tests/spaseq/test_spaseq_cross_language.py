"""SPAseq against EP-SPARQL and CEL on the common fragment (issue 12, "Cross-language";
docs/semantics/spaseq.md#spaseq-6.1).

Single-stream inputs where each graph is one triple ``:s :p v``: a SPAseq skip-till-any query ``SEQ(A : B)`` with an
anchored window of ``w`` ticks and the EP-SPARQL query ``{A} SEQ {B} FILTER(getDURATION() <= w)`` select the same
pairs (mapping, first time, last time).  Under skip-till-next the SPAseq answers are the subset whose second event
is the *next* relevant one: a semantic difference EP-SPARQL has no operator for (its SEQ is skip-till-any), shown by
a minimal example.

CEL (Grez, Riveros, Ugarte, Bucchi; docs/semantics/cel.md): the same stream as events of type ``P``/``Q`` with
attributes ``s`` and ``v`` at positions = ticks, and ``(P AS x ; Q AS y) FILTER (x.s = y.s AND y.v >= x.v) WITHIN w``.
Under ALL (skip-till-any) CEL gives the same position pairs as SPAseq ``:``.  SPAseq ``;`` and CEL ``NXT`` are both
selections from those pairs, but different ones: ``;`` keeps, per first event, the earliest second event; ``NXT``
keeps, per last event, the earliest first event (its ``<=next`` order).  They coincide exactly when the two
selections do, e.g. when every first event has at most one partner and every second event at most one; each way
they differ has a minimal example below, and so do the windows (tumbling by default in SPAseq) and time (ticks in
SPAseq, positions in CEL)."""
from __future__ import annotations

import random

import pytest
from rdflib import Literal, URIRef

from ceplab.asp.oracle import Limits
from ceplab.semantics.events import Event
from ceplab.semantics.rdfstream import GraphEvent
from ceplab.semantics.spaseq.options import Options
from ceplab.workbench import language

EX = "http://example.org/"


def _spaseq(conn: str, w: int) -> str:
    return f"""PREFIX : <{EX}>
SELECT *
WITHIN {w} SECONDS
FROM STREAM S <{EX}s>
WHERE SEQ(A {conn} B)
{{
  DEFINE GPM A ON S {{ ?s :p ?x . }}
  DEFINE GPM B ON S {{ ?s :q ?y . FILTER (?y >= ?x) }}
}}
"""


def _epsparql(w: int) -> str:
    return (f"PREFIX : <{EX}>\nSELECT * WHERE {{ ?s :p ?x }} SEQ {{ ?s :q ?y }} "
            f"FILTER (?y >= ?x && getDURATION() <= {w})\n")


def _stream(rng: random.Random, n: int) -> list[tuple[str, str, int, int]]:
    return [(rng.choice("ab"), rng.choice("pq"), rng.randint(0, 3), t) for t in range(n)]


def _spaseq_answers(items, conn: str, w: int) -> set:
    L = language.get("spaseq")
    events = [GraphEvent([(URIRef(EX + s), URIRef(EX + p), Literal(v))], t, URIRef(EX + "s"), t)
              for s, p, v, t in items]
    ev = L.evaluator(L.parse(_spaseq(conn, w)), Options(window="anchored"))
    out = [r for e in events for r in ev.push(e)] + ev.close()
    return {(r.mapping, r.events[0][1], r.events[-1][1]) for r in out}


def _epsparql_answers(items, w: int) -> set:
    from ceplab.semantics.epsparql.streams import read_line_stream

    L = language.get("epsparql")
    text = "".join(f"<{EX}{s}> <{EX}{p}> {v} {t} {t} .\n" for s, p, v, t in items)
    ev = L.evaluator(L.parse(_epsparql(w)), L.options())
    out = [r for o in read_line_stream(text) for r in ev.push(o)] + ev.close()
    return {(r.mapping, r.start, r.end) for r in out}


@pytest.mark.parametrize("seed", range(25))
def test_skip_till_any_equals_epsparql_seq(seed):
    rng = random.Random(seed)
    items = _stream(rng, rng.randint(0, 12))
    w = rng.randint(1, 6)
    assert _spaseq_answers(items, ":", w) == _epsparql_answers(items, w)


def test_skip_till_next_is_a_strict_subset_with_a_minimal_example():
    """p@0, q@1, q@2 (same subject, values fitting the filter): EP-SPARQL pairs p@0 with both q events; SPAseq's
    skip-till-next only with the next relevant one, q@1."""
    items = [("a", "p", 0, 0), ("a", "q", 1, 1), ("a", "q", 2, 2)]
    eps = _epsparql_answers(items, 5)
    stn = _spaseq_answers(items, ";", 5)
    assert {(a, b) for _, a, b in eps} == {(0, 1), (0, 2)}
    assert {(a, b) for _, a, b in stn} == {(0, 1)}
    assert stn < eps


# ------------------------------------------------------------------------------------------------ CEL
CEL_FORMULA = "(P AS x ; Q AS y) FILTER (x.s = y.s AND y.v >= x.v) WITHIN {w}"


def _spaseq_pairs(items, conn: str, w: int, options: Options = Options(window="anchored")) -> set:
    """The SPAseq matches as tuples of positions (``items``: ``(s, p, v, t)`` in stream order, position = index)."""
    L = language.get("spaseq")
    events = [GraphEvent([(URIRef(EX + s), URIRef(EX + p), Literal(v))], t, URIRef(EX + "s"), k)
              for k, (s, p, v, t) in enumerate(items)]
    ev = L.evaluator(L.parse(_spaseq(conn, w)), options)
    at = {t: k for k, (_s, _p, _v, t) in enumerate(items)}  # tick -> position (one event per tick)
    out = [r for e in events for r in ev.push(e)] + ev.close()
    return {tuple(at[t] for _s, t in r.events) for r in out}


def _cel_pairs(items, strategy: str, w: int, oracle: bool = False) -> set:
    """The CEL complex events (sorted position tuples) of :data:`CEL_FORMULA` under ``strategy``, from CEL's engine
    (``oracle``: from its clingo oracle)."""
    L = language.get("cel")
    events = [Event(p.upper(), t, {"s": s, "v": v}, k) for k, (s, p, v, t) in enumerate(items)]
    text = CEL_FORMULA.format(w=w)
    q = L.parse(text if strategy == "ALL" else f"{strategy}({text})")
    if oracle:
        return set(L.oracle(q, events, L.options(), Limits(time_s=60)).results)
    ev = L.evaluator(q, L.options())
    return set([c for e in events for c in ev.push(e)] + ev.close())


def _first_end_per_start(pairs: set) -> set:
    return {(i, min(j for a, j in pairs if a == i)) for i, _ in pairs}


def _first_start_per_end(pairs: set) -> set:
    return {(min(i for i, b in pairs if b == j), j) for _, j in pairs}


@pytest.mark.parametrize("seed", range(25))
def test_skip_till_any_equals_cel_all_and_next_versus_nxt_are_the_two_first_selections(seed):
    """On random single-stream inputs: ``:`` = CEL ALL; ``;`` = per first event its earliest partner among those
    pairs, CEL NXT = per last event its earliest partner; so ``;`` = NXT exactly when the two selections agree."""
    rng = random.Random(seed)
    items = _stream(rng, rng.randint(0, 12))
    w = rng.randint(1, 6)
    pairs = _spaseq_pairs(items, ":", w)
    assert pairs == _cel_pairs(items, "ALL", w)
    stn, nxt = _spaseq_pairs(items, ";", w), _cel_pairs(items, "NXT", w)
    assert stn == _first_end_per_start(pairs) and nxt == _first_start_per_end(pairs)
    assert (stn == nxt) == (_first_end_per_start(pairs) == _first_start_per_end(pairs))


def test_next_equals_cel_nxt_when_each_subject_pairs_at_most_once():
    """Where they coincide: every subject (the correlation key) has at most one ``:p`` and one ``:q`` event (random
    interleavings of such episodes, in either order, with random values and windows): each first event has at most
    one partner and each second event at most one, so ``;``, NXT, ``:`` and ALL all give the same pairs."""
    found = 0
    for seed in range(30):
        rng = random.Random(1000 + seed)
        episodes = [[(f"s{k}", p, rng.randint(0, 3)) for p in rng.choice(("p", "q", "pq", "pq", "pq", "qp"))]
                    for k in range(rng.randint(2, 7))]
        evs = []
        while episodes:   # a random interleaving that keeps each episode's order
            ep = rng.choice(episodes)
            evs.append(ep.pop(0))
            if not ep:
                episodes.remove(ep)
        items = [(s, p, v, t) for t, (s, p, v) in enumerate(evs)]
        w = rng.randint(2, 8)
        want = _spaseq_pairs(items, ":", w)
        assert _spaseq_pairs(items, ";", w) == _cel_pairs(items, "NXT", w) == _cel_pairs(items, "ALL", w) == want
        found += len(want)
    assert found > 20   # the episodes do pair up (25 pairs over the 30 seeded streams)


def test_next_keeps_one_partner_per_start_nxt_one_per_end_minimal_examples():
    """The two differences of ``;`` and NXT, each in three events (same subject, values fitting the filter)."""
    # p@0 q@1 q@2: ';' retires the run at its first relevant q; NXT keeps q@2's earliest start, p@0
    one_start = [("a", "p", 0, 0), ("a", "q", 1, 1), ("a", "q", 2, 2)]
    assert _spaseq_pairs(one_start, ";", 5) == {(0, 1)}
    assert _cel_pairs(one_start, "NXT", 5) == _cel_pairs(one_start, "NXT", 5, oracle=True) == {(0, 1), (0, 2)}
    # p@0 p@1 q@2: both runs take q@2 under ';'; NXT keeps one complex event per end, the <=next-largest {0, 2}
    one_end = [("a", "p", 0, 0), ("a", "p", 1, 1), ("a", "q", 2, 2)]
    assert _spaseq_pairs(one_end, ";", 5) == {(0, 2), (1, 2)}
    assert _cel_pairs(one_end, "NXT", 5) == _cel_pairs(one_end, "NXT", 5, oracle=True) == {(0, 2)}


def test_windows_and_time_differ_from_cel_minimal_examples():
    """SPAseq's default window is tumbling (docs/semantics/spaseq.md#spaseq-A11): p@4 and q@6 fall in different
    windows of 5 ticks, while CEL's WITHIN 5 (and SPAseq's anchored window) takes them.  CEL's WITHIN counts
    positions, SPAseq's window ticks: p@0 and q@10 are adjacent positions but 10 ticks apart."""
    noise = [("b", "r", 0, t) for t in range(4)]
    items = noise + [("a", "p", 1, 4), ("b", "r", 0, 5), ("a", "q", 2, 6)]
    assert _spaseq_pairs(items, ":", 5, Options()) == set()
    assert _spaseq_pairs(items, ":", 5) == _cel_pairs(items, "ALL", 5) == {(4, 6)}
    gap = [("a", "p", 1, 0), ("a", "q", 2, 10)]
    assert _cel_pairs(gap, "ALL", 5) == {(0, 1)}
    assert _spaseq_pairs(gap, ":", 5) == set() and _spaseq_pairs(gap, ":", 10) == {(0, 1)}
