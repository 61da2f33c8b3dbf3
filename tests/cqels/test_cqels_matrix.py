"""CQELS-CEP's matrix translation (workbench/langs/cqels/matrix.py): the query text per construct, the projected
matches on small hand-computed streams (oracle and engine agree, through ``evaluate``), the refused constructs,
and a small three-language matrix without ceplab bugs."""
from __future__ import annotations

import pytest

from ceplab.workbench import language
from ceplab.workbench.compare import compare, options_from_kv
from ceplab.workbench.matrix.core import parse, parse_stream
from ceplab.workbench.matrix.run import evaluate, run_matrix
from ceplab.workbench.matrix.translate import NotExpressible

CQELS = language.get("cqels")


def text(q: str) -> tuple[str, dict]:
    return CQELS.translation().query(parse(q))


def matches(q: str, stream: str) -> list:
    o = evaluate(CQELS, parse(q), parse_stream(stream))
    assert o.status == "ok", o
    return sorted(sorted(m) for m in o.matches)


# ------------------------------------------------------------------------------------------------ query text
def test_registered():
    assert type(CQELS.translation()).__name__ == "CqelsTranslation"


def test_atom_and_filter_text():
    t, sw = text("a")
    assert "FROM NAMED WINDOW :W0 ON :s [ALL]" in t and "WINDOW :W0 { ?e0 :type :a }" in t
    assert "SELECT ?e0\n" in t and sw == {"wo_bounds": "strict"}
    t, _ = text("b[x>=2]")
    assert "WINDOW :W0 { ?e0 :type :b . ?e0 :x ?x0 FILTER(?x0 >= 2) }" in t


def test_seq_nseq_text():
    t, _ = text("SEQ(a, SEQ(b[x<1], c))")
    assert "WINDOW :W0 { SEQ({?e0 :type :a}, {?e1 :type :b . ?e1 :x ?x1 FILTER(?x1 < 1)}, {?e2 :type :c}) }" in t
    t, sw = text("NSEQ(a, c, b)")
    assert "SEQ({?e0 :type :a}, !{?e1 :type :c}, {?e2 :type :b})" in t
    assert "SELECT ?e0 ?e2\n" in t and sw["wo_bounds"] == "strict"


def test_two_negations_use_an_event_clause_seq():
    t, _ = text("SEQ(NSEQ(a, c, b), NSEQ(b, c, a))")
    assert "WINDOW :W0 { SEQ({?e0 :type :a}, !{?e1 :type :c}, {?e2 :type :b}) }" in t
    assert "WINDOW :W1 { SEQ({?e3 :type :b}, !{?e4 :type :c}, {?e5 :type :a}) }" in t
    assert "  SEQ(:W0, :W1)\n" in t


def test_or_and_within_text():
    t, _ = text("OR(a[x<2], OR(b, c[x=1]))")
    assert "FILTER((?t0 = :a && ?x0 < 2) || (?t0 = :b) || (?t0 = :c && ?x0 = 1))" in t
    t, _ = text("AND(a, SEQ(b, c)) WITHIN 3")
    assert t.count("[RANGE 3]") == 2 and "WINDOW :W0 { ?e0 :type :a }" in t
    assert "WINDOW :W1 { SEQ({?e1 :type :b}, {?e2 :type :c}) }" in t
    for q in ("a", "NSEQ(a, b, c) WITHIN 1", "SEQ(a, OR(b, c)) WITHIN 4", "AND(a, OR(b, c))"):
        CQELS.parse(text(q)[0])                   # every translated text parses


# ------------------------------------------------------------------------------------------------ matches
def test_atom_once_although_answered_at_every_time():
    assert matches("a[x>0]", "a(1)@0 b(2)@1 a(0)@2 a(3)@3") == [[0], [3]]


def test_seq_all_combinations_strict_order():
    assert matches("SEQ(a, b[x>1])", "a(1)@0 b(2)@1 b(0)@2 b(3)@3") == [[0, 1], [0, 3]]
    assert matches("SEQ(a, a)", "a(1)@0 a(0)@1 a(0)@2") == [[0, 1], [0, 2], [1, 2]]


def test_within_is_range():
    assert matches("SEQ(a, b) WITHIN 1", "a(1)@0 a(2)@1 b(0)@2") == [[1, 2]]
    assert matches("SEQ(a, b) WITHIN 2", "a(1)@0 a(2)@1 b(0)@2") == [[0, 2], [1, 2]]


def test_nseq():
    assert matches("NSEQ(a, c, b)", "a(1)@0 c(2)@1 a(0)@2 b(0)@3") == [[2, 3]]
    # the negated atom matching a or b itself does not block (strict gap)
    assert matches("NSEQ(a, a, b)", "a(1)@0 a(2)@1 b(0)@2") == [[1, 2]]
    assert matches("NSEQ(a, c, b) WITHIN 2", "a(1)@0 b(0)@1 a(0)@2 c(0)@3 b(0)@4 a(1)@5 b(1)@6") == [[0, 1], [5, 6]]


def test_nseq_under_the_default_closed_gap_differs():
    """Why the translation sets wo_bounds=strict: under the default ``closed`` reading (docs/semantics/cqels.md#cqels-G4)
    the negative ``a`` at the time of the first ``a`` blocks the pair."""
    t = CQELS.translation()
    q, events = parse("NSEQ(a, a, b)"), parse_stream("a(1)@0 b(2)@1")
    txt, _ = t.query(q)
    for bounds, want in (("strict", {frozenset({0, 1})}), ("closed", set())):
        rep = compare(CQELS, CQELS.parse(txt), t.stream(events),
                      options_from_kv(CQELS.options, [f"wo_bounds={bounds}"]), None)
        assert rep.verdict == "agree"
        assert t.project(rep.oracle_results, events) == want


def test_seq_with_two_negations():
    s = "a(1)@0 b(0)@1 a(0)@2 c(0)@3 b(0)@4 a(1)@5 b(1)@6"
    assert matches("SEQ(NSEQ(a, c, b), NSEQ(a, c, b))", s) == [[0, 1, 5, 6]]
    assert matches("SEQ(a, NSEQ(b, c, a), b)", s) == [[0, 1, 2, 4], [0, 1, 2, 6], [0, 4, 5, 6], [2, 4, 5, 6]]


def test_or_of_atoms():
    assert matches("OR(a, b[x>1])", "a(1)@0 b(2)@1 b(0)@2") == [[0], [1]]
    assert matches("SEQ(a, OR(b, c[x>0])) WITHIN 2", "a(1)@0 c(0)@1 b(0)@2 c(1)@3") == [[0, 2]]


def test_and_is_join_intersecting_intervals():
    """The paper's JOIN (docs/semantics/cqels.md#cqels-G10), not the core's 'both occur in any order'."""
    assert matches("AND(a, b)", "a(1)@0 b(2)@1 b(0)@2") == []
    assert matches("AND(a, a)", "a(1)@0 b(2)@1 a(0)@2") == [[0], [2]]
    assert matches("AND(SEQ(a, b), c)", "a(1)@0 c(0)@1 b(0)@2 c(0)@3") == [[0, 1, 2]]


# ------------------------------------------------------------------------------------------------ refused
@pytest.mark.parametrize("q, construct", [
    ("PLUS(a)", "plus"),
    ("SEQ(a, PLUS(b))", "plus"),
    ("NEXT SEQ(a, b)", "sel:next"),
    ("STRICT SEQ(a, b)", "sel:strict"),
    ("EARLIEST SEQ(a, b)", "sel:earliest"),
    ("LATEST SEQ(a, b) WITHIN 3", "sel:latest"),
    ("OR(a, SEQ(b, c))", "or"),
    ("SEQ(a, AND(b, c))", "nested:and"),
    ("OR(a, AND(b, c))", "or"),
])
def test_not_expressible(q, construct):
    with pytest.raises(NotExpressible) as e:
        text(q)
    assert e.value.construct == construct
    assert "paper" in e.value.reason
    assert evaluate(CQELS, parse(q), parse_stream("a(0)@0")).status == "not_expressible"


# ------------------------------------------------------------------------------------------------ matrix
def test_small_matrix_has_no_bugs():
    r = run_matrix([language.get("cel"), language.get("etalis"), CQELS], cases=10, seed=0)
    assert r.bugs == []
    assert r.undecided == 0
    cells = {(c.construct, c.left, c.right): c for c in r.cells}
    for c in ("atom", "filter", "seq", "or"):
        assert cells[(c, "cel", "cqels")].verdict == "equivalent"
        assert cells[(c, "etalis", "cqels")].verdict == "equivalent"
    assert cells[("nseq", "etalis", "cqels")].verdict == "equivalent"
    assert cells[("and", "etalis", "cqels")].verdict == "different"          # JOIN intersects (G10)
    assert cells[("plus", "cel", "cqels")].verdict == "not expressible"
