"""SPAseq against EP-SPARQL on the common fragment (issue 12, "Cross-language"; docs/semantics/spaseq.md#spaseq-6).

Single-stream inputs where each graph is one triple ``:s :p v``: a SPAseq skip-till-any query ``SEQ(A : B)`` with an
anchored window of ``w`` ticks and the EP-SPARQL query ``{A} SEQ {B} FILTER(getDURATION() <= w)`` select the same
pairs (mapping, first time, last time).  Under skip-till-next the SPAseq answers are the subset whose second event
is the *next* relevant one: a semantic difference EP-SPARQL has no operator for (its SEQ is skip-till-any), shown by
a minimal example."""
from __future__ import annotations

import random

import pytest
from rdflib import Literal, URIRef

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
