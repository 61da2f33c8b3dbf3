"""SPAseq's matrix translation (workbench/langs/spaseq/matrix.py): query text shape, projected matches on small
hand-computed cases per construct (oracle and engine, through the matrix's ``evaluate``), the refused constructs,
and a small seeded matrix run with CEL and ETALIS that must find no ceplab bug."""
from __future__ import annotations

import pytest

from ceplab.workbench import language
from ceplab.workbench.matrix.core import parse, parse_stream
from ceplab.workbench.matrix.run import evaluate, run_matrix
from ceplab.workbench.matrix.translate import NotExpressible


@pytest.fixture(scope="module")
def spaseq():
    return language.get("spaseq")


def _text(q: str) -> tuple[str, dict]:
    return language.get("spaseq").translation().query(parse(q))


def _matches(lang, q: str, s: str) -> set:
    o = evaluate(lang, parse(q), parse_stream(s))
    assert o.status == "ok", o
    return {tuple(sorted(m)) for m in o.matches}


# --------------------------------------------------------------------------------------------- query text
def test_registered_translation_and_query_shape():
    text, sw = _text("SEQ(a, b[x>1])")
    assert sw == {"window": "anchored", "negation": "between"}
    assert "FROM STREAM S :s" in text
    assert "WITHIN 1000000 SECONDS" in text                       # no core window: a window no stream reaches
    assert "WHERE SEQ (G0 : G1)" in text
    assert "DEFINE GPM G0 ON S { ?e0 a :a }" in text
    assert "DEFINE GPM G1 ON S { ?e1 a :b ; :x ?x1 . FILTER (?x1 > 1) }" in text


@pytest.mark.parametrize("core, seq", [
    ("NEXT SEQ(a, b, c)", "SEQ (G0 ; G1 ; G2)"),
    ("STRICT SEQ(a, b)", "SEQ (G0 , G1)"),
    ("SEQ(SEQ(a, b), c)", "SEQ (G0 : G1 : G2)"),                 # nested SEQs flattened
    ("OR(a, b)", "SEQ ((G0 | G1))"),
    ("SEQ(OR(a, AND(b, c)), a)", "SEQ ((G0 | (G1 & G2)) : G3)"),
    ("AND(a, b[x=2])", "SEQ ((G0 & G1))"),
    ("NSEQ(a, c, b)", "SEQ (G0 : G1! : G2)"),
    ("NEXT SEQ(c, PLUS(a[x!=0]))", "SEQ (G0 ; G1+)"),
])
def test_query_text(core, seq):
    assert f"WHERE {seq}\n" in _text(core)[0]


def test_window_is_anchored_seconds():
    text, sw = _text("SEQ(a, b) WITHIN 3")
    assert "WITHIN 3 SECONDS" in text and sw["window"] == "anchored"


def test_stream(spaseq):
    t = spaseq.translation()
    events = t.stream(parse_stream("a(1)@0 b(2)@1"))
    assert [int(e.time) for e in events] == [0, 1]
    assert {str(e.stream) for e in events} == {"http://example.org/s"}
    triples = {(str(s), str(p), str(o)) for s, p, o in events[1].graph}
    assert ("http://example.org/e1", "http://www.w3.org/1999/02/22-rdf-syntax-ns#type",
            "http://example.org/b") in triples
    assert ("http://example.org/e1", "http://example.org/x", "2") in triples


# --------------------------------------------------------------------------------------------- refused
@pytest.mark.parametrize("core, construct", [
    ("EARLIEST SEQ(a, b)", "sel:earliest"),
    ("LATEST SEQ(a, b)", "sel:latest"),
    ("OR(SEQ(a, b), c)", "nested:seq-in-or"),
    ("AND(a, PLUS(b))", "nested:plus-in-and"),
    ("OR(a, AND(b, NSEQ(a, b, c)))", "nested:nseq-in-and"),
])
def test_not_expressible(core, construct):
    with pytest.raises(NotExpressible) as e:
        _text(core)
    assert e.value.construct == construct
    assert "Definition" in e.value.reason


# --------------------------------------------------------------------------------------------- matches
S1 = "a(1)@0 b(2)@1 b(0)@2 b(3)@3"


@pytest.mark.parametrize("core, stream, expected", [
    # atom and filter
    ("b[x>1]", S1, {(1,), (3,)}),
    # SEQ under ALL (':'): every pair
    ("SEQ(a, b[x>1])", S1, {(0, 1), (0, 3)}),
    ("SEQ(a, b)", "a(0)@0 a(0)@1 c(0)@2 b(0)@3 b(0)@4", {(0, 3), (0, 4), (1, 3), (1, 4)}),
    # NEXT (';'): per first event its next relevant b (docs/semantics/spaseq.md#spaseq-6.1)
    ("NEXT SEQ(a, b)", "a(0)@0 a(0)@1 c(0)@2 b(0)@3 b(0)@4", {(0, 3), (1, 3)}),
    # STRICT (','): no event at all in between
    ("STRICT SEQ(a, b)", "a(0)@0 a(0)@1 b(0)@2 c(0)@3 b(1)@4", {(1, 2)}),
    # WITHIN: max - min <= n, anchored at the first event (a tumbling [0,2],[2,4] would cut {1, 3})
    ("SEQ(a, b) WITHIN 2", "a(0)@0 c(0)@1 b(0)@2 b(0)@3", {(0, 2)}),
    ("SEQ(a, b) WITHIN 2", "c(0)@0 a(0)@1 c(0)@2 b(0)@3", {(1, 3)}),
    # OR of atoms: one event matching either GPM
    ("OR(a, b[x>0])", "a(0)@0 b(0)@1 b(1)@2", {(0,), (2,)}),
    ("SEQ(OR(a, b), c)", "a(0)@0 b(0)@1 c(1)@2", {(0, 2), (1, 2)}),
    # AND: one timestamp, hence one event for both conjuncts (differs from the core's "both occur")
    ("AND(a, b)", "a(0)@0 b(0)@1", set()),
    ("AND(a, a[x>0])", "a(0)@0 a(1)@1", {(1,)}),
    # NSEQ: no c strictly between the a and the b
    ("NSEQ(a, c, b)", "a(0)@0 c(0)@1 b(0)@2 a(0)@3 b(0)@4", {(3, 4)}),
    ("NSEQ(a, c[x>0], b)", "a(0)@0 c(0)@1 b(0)@2", {(0, 2)}),
    # PLUS first: iterations linked by ';' whatever the selection (spaseq-A2): {0, 3} skips the a at 1
    ("PLUS(a)", "a(0)@0 a(1)@1 c(0)@2 a(2)@3", {(0,), (1,), (3,), (0, 1), (1, 3), (0, 1, 3)}),
    ("STRICT PLUS(a)", "a(0)@0 a(1)@1 c(0)@2 a(2)@3", {(0,), (1,), (3,), (0, 1), (1, 3), (0, 1, 3)}),
    # PLUS after another element: the connector before it links the iterations; all positions are projected
    ("SEQ(c, PLUS(a))", "c(0)@0 a(0)@1 a(1)@2 a(2)@3",
     {(0, 1), (0, 2), (0, 3), (0, 1, 2), (0, 1, 3), (0, 2, 3), (0, 1, 2, 3)}),
    ("STRICT SEQ(c, PLUS(a))", "c(0)@0 a(0)@1 a(1)@2 b(0)@3 a(2)@4", {(0, 1), (0, 1, 2)}),
    ("NEXT SEQ(c, PLUS(a))", "c(0)@0 a(0)@1 a(1)@2 b(0)@3 a(2)@4", {(0, 1), (0, 1, 2), (0, 1, 2, 4)}),
])
def test_projected_matches(spaseq, core, stream, expected):
    assert _matches(spaseq, core, stream) == expected


def test_agrees_with_cel_on_seq_and_kleene_after_an_element():
    cel, sp = language.get("cel"), language.get("spaseq")
    for core, stream in [("SEQ(a, b[x>1])", S1),
                         ("STRICT SEQ(a, b)", "a(0)@0 a(0)@1 b(0)@2 c(0)@3 b(1)@4"),
                         ("SEQ(c, PLUS(a))", "c(0)@0 a(0)@1 a(1)@2 a(2)@3"),
                         ("NEXT SEQ(c, PLUS(a))", "c(0)@0 a(0)@1 a(1)@2 b(0)@3 a(2)@4")]:
        assert _matches(cel, core, stream) == _matches(sp, core, stream), core


def test_differs_from_cel_on_kleene_first_and_next():
    cel, sp = language.get("cel"), language.get("spaseq")
    assert (0, 2) in _matches(cel, "PLUS(b)", "b(0)@0 b(2)@1 b(2)@2")
    assert (0, 2) not in _matches(sp, "PLUS(b)", "b(0)@0 b(2)@1 b(2)@2")
    # NXT keeps per last event its earliest partner; ';' keeps per first event its next one
    assert _matches(cel, "NEXT SEQ(a, b)", "a(0)@0 a(0)@1 b(0)@2") == {(0, 2)}
    assert _matches(sp, "NEXT SEQ(a, b)", "a(0)@0 a(0)@1 b(0)@2") == {(0, 2), (1, 2)}


# --------------------------------------------------------------------------------------------- matrix
def test_small_matrix_finds_no_bug():
    r = run_matrix([language.get("cel"), language.get("etalis"), language.get("spaseq")], cases=10, seed=0)
    assert r.bugs == []
    cells = {(c.construct, c.left, c.right): c for c in r.cells}
    assert cells[("seq", "cel", "spaseq")].verdict == "equivalent"
    assert cells[("nseq", "etalis", "spaseq")].verdict == "equivalent"
    assert cells[("plus", "cel", "spaseq")].verdict == "different"
