"""EP-SPARQL's matrix translation (workbench/langs/epsparql/matrix.py): query shapes, projected matches computed
by hand from the core meaning, the refused constructs, and a small matrix run against CEL and ETALIS with no
oracle-engine disagreement and no refused translation."""
import pytest

from ceplab.workbench import language
from ceplab.workbench.langs.epsparql.matrix import EpsparqlTranslation
from ceplab.workbench.matrix.core import parse, parse_stream
from ceplab.workbench.matrix.run import evaluate, run_matrix
from ceplab.workbench.matrix.translate import NotExpressible

EP = language.get("epsparql")
HEAD = "PREFIX : <http://example.org/>\n"


def where(core: str) -> tuple[str, dict]:
    text, switches = EpsparqlTranslation().query(parse(core))
    assert text.startswith(HEAD)
    return text[len(HEAD):].strip(), switches


def test_registered():
    assert isinstance(EP.translation(), EpsparqlTranslation)


@pytest.mark.parametrize("core, text, switches", [
    ("a", "SELECT ?e0 WHERE { ?e0 :a ?x0 }", {}),
    ("a[x>=-1]", "SELECT ?e0 WHERE { ?e0 :a ?x0 FILTER(?x0 >= -1) }", {}),
    ("SEQ(a, b[x>1], c)",
     "SELECT ?e0 ?e1 ?e2 WHERE { { ?e0 :a ?x0 } SEQ { ?e1 :b ?x1 FILTER(?x1 > 1) } SEQ { ?e2 :c ?x2 } }", {}),
    ("AND(a, b)", "SELECT ?e0 ?e1 WHERE { { ?e0 :a ?x0 } { ?e1 :b ?x1 } }", {}),
    ("OR(a, SEQ(b, c))",
     "SELECT ?e0 ?e1 ?e2 WHERE { { ?e0 :a ?x0 } UNION { { ?e1 :b ?x1 } SEQ { ?e2 :c ?x2 } } }", {}),
    ("NSEQ(a, c[x=0], b)",
     "SELECT ?e0 ?e2 WHERE { { { ?e0 :a ?x0 } SEQ { ?e2 :b ?x2 } } EQUALSOPTIONAL "
     "{ { ?e0 :a ?x0 } SEQ { ?e1 :c ?x1 FILTER(?x1 = 0) } SEQ { ?e2 :b ?x2 } } FILTER(!BOUND(?e1)) }",
     {"optional_filter": "operand"}),
    ("SEQ(a, b) WITHIN 2",
     "SELECT ?e0 ?e1 WHERE { { { ?e0 :a ?x0 } SEQ { ?e1 :b ?x1 } } FILTER(getDURATION() <= 2) }", {}),
])
def test_query_text(core, text, switches):
    assert where(core) == (text, switches)
    EP.parse(HEAD + text)                      # the language accepts it


def test_stream_encoding():
    occs = EpsparqlTranslation().stream(parse_stream("a(1)@0 b(0)@1"))
    assert [(str(o.s), str(o.p), int(o.o), o.start, o.end) for o in occs] == [
        ("http://example.org/e0", "http://example.org/a", 1, 0, 0),
        ("http://example.org/e1", "http://example.org/b", 0, 1, 1)]


# (core query, core stream, the core matches computed by hand)
CASES = [
    # atom / filter
    ("a", "a(0)@0 b(1)@1 a(2)@2", [{0}, {2}]),
    ("a[x>0]", "a(0)@0 b(1)@1 a(2)@2", [{2}]),
    ("b[x!=1]", "a(0)@0 b(1)@1 a(2)@2", []),
    # SEQ: strictly after, every pair (skip-till-any-match)
    ("SEQ(a, b[x>1])", "a(1)@0 b(2)@1 b(0)@2", [{0, 1}]),
    ("SEQ(a, b)", "a(0)@0 a(0)@1 b(0)@2 b(0)@3", [{0, 2}, {0, 3}, {1, 2}, {1, 3}]),
    ("SEQ(a, b, a)", "a(0)@0 b(0)@1 b(0)@2 a(0)@3", [{0, 1, 3}, {0, 2, 3}]),
    ("SEQ(SEQ(a, b), SEQ(b, c))", "a(0)@0 b(0)@1 b(0)@2 c(0)@3", [{0, 1, 2, 3}]),
    # AND: both, any order; two atoms may name the same event (a Join of independent patterns)
    ("AND(a, b)", "b(1)@0 a(2)@1 b(0)@2", [{0, 1}, {1, 2}]),
    ("AND(a, a)", "a(0)@0 a(1)@1", [{0}, {1}, {0, 1}]),
    ("AND(SEQ(a, b), c)", "c(0)@0 a(0)@1 b(0)@2", [{0, 1, 2}]),
    # OR
    ("OR(a[x>0], SEQ(b, c))", "a(0)@0 b(2)@1 a(1)@2 c(0)@3", [{2}, {1, 3}]),
    ("OR(a, b)", "c(0)@0", []),
    # NSEQ: no c strictly between; a c before the a does not block (not the OPTIONALSEQ idiom, A12)
    ("NSEQ(a, c, b)", "a(0)@0 c(0)@1 a(1)@2 b(0)@3 c(0)@4 b(1)@5", [{2, 3}]),
    ("NSEQ(a, c, b)", "c(0)@0 a(0)@1 b(0)@2", [{1, 2}]),
    ("NSEQ(a, c[x>1], b)", "a(0)@0 c(1)@1 b(0)@2 c(2)@3 b(0)@4", [{0, 2}]),
    ("NSEQ(a, a, a)", "a(0)@0 a(0)@1 a(0)@2", [{0, 1}, {1, 2}]),
    # WITHIN n: max - min <= n
    ("SEQ(a, b) WITHIN 2", "a(0)@0 a(1)@1 b(0)@2 b(0)@3", [{0, 2}, {1, 2}, {1, 3}]),
    ("SEQ(a, b) WITHIN 1", "a(0)@0 c(1)@1 b(0)@2", []),
    ("NSEQ(a, c, b) WITHIN 2", "a(0)@0 c(0)@1 a(0)@2 b(0)@3 b(0)@4 b(0)@5", [{2, 3}, {2, 4}]),
    ("AND(OR(a, b), SEQ(a, c)) WITHIN 2", "a(0)@0 b(0)@1 c(0)@2 a(1)@3", [{0, 2}, {0, 1, 2}]),
]


@pytest.mark.parametrize("core, stream, expected", CASES)
def test_projected_matches(core, stream, expected):
    out = evaluate(EP, parse(core), parse_stream(stream))
    assert out.status == "ok", out.detail                      # the oracle and the engine agree
    assert out.matches == frozenset(frozenset(m) for m in expected)


@pytest.mark.parametrize("core, construct", [
    ("PLUS(a)", "plus"), ("SEQ(a, PLUS(b))", "plus"), ("NEXT SEQ(a, b)", "sel:next"),
    ("STRICT SEQ(a, b)", "sel:strict"), ("EARLIEST SEQ(a, b)", "sel:earliest"),
    ("LATEST SEQ(a, b) WITHIN 3", "sel:latest"),
])
def test_not_expressible(core, construct):
    with pytest.raises(NotExpressible) as e:
        EpsparqlTranslation().query(parse(core))
    assert e.value.construct == construct
    assert "EP-SPARQL" in e.value.reason
    assert evaluate(EP, parse(core), parse_stream("a(0)@0 b(0)@1")).status == "not_expressible"


def test_small_matrix_has_no_bugs():
    r = run_matrix([language.get("cel"), language.get("etalis"), EP], cases=10, seed=0)
    assert r.bugs == []
    assert r.undecided == 0
    cells = {(c.construct, c.left, c.right): c for c in r.cells}
    for construct in ("atom", "filter", "seq", "and", "or", "nseq", "within"):
        assert cells[(construct, "etalis", "epsparql")].verdict == "equivalent"
    for construct in ("plus", "sel:next", "sel:strict", "sel:earliest", "sel:latest"):
        assert any(x.startswith("epsparql:") for x in cells[(construct, "etalis", "epsparql")].reasons)
