"""CQELS-CEP parser: the paper's example queries and the cases' queries (tests/cqels/queries/*.q) parse into the
expected AST (docs/semantics/cqels.md#cqels-2.5), paths are desugared to nSPARQL (#cqels-2.4), durations become ticks
(#cqels-G13), every construct outside the semantics is a located ParseError (#cqels-2.7), the printer round-trips,
and character mutants of the sample queries either parse or raise ParseError (nothing else)."""
from __future__ import annotations

import random
from pathlib import Path

import pytest
from rdflib import RDF, XSD, Literal, URIRef, Variable

from ceplab.semantics.cqels import ast as A
from ceplab.semantics.cqels.parser import parse, parse_file, render
from ceplab.semantics.errors import ParseError

QUERIES = Path(__file__).with_name("queries")
FILES = sorted(QUERIES.glob("*.q"))
EX = "http://example.org/"
PRE = f"PREFIX : <{EX}>\n"
W = "FROM NAMED WINDOW :W ON :s [RANGE 10]\n"


def u(x: str) -> URIRef:
    return URIRef(EX + x)


def v(x: str) -> Variable:
    return Variable(x)


def tp(s, p, o) -> A.TriplePattern:
    conv = lambda t: t if type(t) is not str else (v(t[1:]) if t.startswith("?") else u(t))  # noqa: E731
    return A.TriplePattern(conv(s), conv(p), conv(o))


def bgp(*triples, filters=()) -> A.BGP:
    return A.BGP(tuple(tp(*t) for t in triples), tuple(filters))


def nxt(x: str, inverse: bool = False) -> A.AxisConst:
    return A.AxisConst("next", inverse, u(x))


def static_path(text: str) -> A.Path:
    """The path of the single path pattern of ``SELECT * WHERE { ?a <text> ?b }``."""
    q = parse(PRE + f"SELECT * WHERE {{ ?a {text} ?b }}")
    (sp,) = q.static
    assert isinstance(sp, A.PathPattern)
    return sp.path


def where(body: str, decl: str = W) -> A.Query:
    return parse(PRE + "SELECT * " + decl + "WHERE { " + body + " }")


# ------------------------------------------------------------------------------------------------ the sample files
def test_the_sample_queries_are_there():
    names = {f.stem for f in FILES}
    assert {"ex4_plain", "ex5_nsparql", "ex6_running", "t03_path_plus", "t03_path_star", "t06_repeated",
            "t07_seq_wo", "t08_wo_boundary", "t09_no_head", "t10_join_ecs", "t11_ec_seq", "t12_clip",
            "t13_bgp_scope", "t15_rdfs_paths", "t16_no_tail_strict", "t17_clip_wo", "ec_seq_negation", "window_kinds",
            "paths_all"} <= names


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_every_sample_parses_and_round_trips(path):
    q = parse_file(path)
    text = render(q)
    assert parse(text) == q
    assert render(parse(text)) == text          # the printer is deterministic
    assert parse(text, tick="1s") == q           # rendered durations are ticks: independent of the tick length


# ------------------------------------------------------------------------------------------------ exact ASTs
def test_running_example_exact_ast():
    """Example 6 / Example 7 of the paper (docs/semantics/cqels.md#cqels-2.2, #cqels-T1)."""
    q = parse_file(QUERIES / "ex6_running.q")
    p1 = bgp(("?v", "delayAt", "?s"))
    p2 = bgp(("?v", "arriveAt", "?s"))
    path = A.PathPlus(A.PathSeq(A.PathSeq(nxt("beg", True),
                                          A.AxisNest("self", False, A.PathSeq(nxt("means"),
                                                                             A.AxisConst("self", False, u("subway"))))),
                                nxt("end")))
    expected = A.Query(
        select=(v("s"),),
        graphs=(u("transportationMap"),),
        windows=(A.Window(u("W"), u("publicTransport"), A.RangeWindow(10), A.SeqTSP((p1, p1, A.Neg(p2)))),),
        events=(A.WinRef(u("W")),),
        static=(A.TriplePattern(v("v"), RDF.type, u("subway")), A.PathPattern(v("s"), path, u("c"))),
        filters=())
    assert q == expected
    assert q.pos == (5, 1) and q.windows[0].pos == (7, 1)
    assert A.projection(q) == (v("s"),)
    assert A.scope_vars(q) == {v("s"), v("v")}
    assert A.window_reach(q) == 10


def test_example4_plain_cqels():
    q = parse_file(QUERIES / "ex4_plain.q")
    assert q.windows == (A.Window(u("W"), u("publicTransport"), A.RangeWindow(10), bgp(("?v", "delayAt", "?s"))),)
    assert q.events == (A.WinRef(u("W")),)
    assert q.static == (A.TriplePattern(v("v"), RDF.type, u("subway")),)


def test_example5_axes_equal_the_sparql_surface_form():
    """next^-1::beg[...]/next::end (Example 5, read XPath-style, docs/semantics/cqels.md#cqels-G19) is the path of
    Example 6 after desugaring."""
    assert parse_file(QUERIES / "ex5_nsparql.q").static == parse_file(QUERIES / "t03_path_plus.q").static
    star = parse_file(QUERIES / "t03_path_star.q").static[0].path
    assert isinstance(star, A.PathStar)
    assert star.expr == parse_file(QUERIES / "t03_path_plus.q").static[0].path.expr


def test_event_clause_seq_over_windows():
    q = parse_file(QUERIES / "t11_ec_seq.q")
    assert q.events == (A.SeqEC((A.WinRef(u("W3")), A.WinRef(u("W4")))),)
    assert [w.spec for w in q.windows] == [A.RangeWindow(3), A.RangeWindow(10)]
    q = parse_file(QUERIES / "ec_seq_negation.q")
    assert q.events == (A.SeqEC((A.WinRef(u("Dep")), A.Neg(A.WinRef(u("Alarm"))), A.WinRef(u("Arr")))),)
    alarm = q.window(u("Alarm")).pattern
    assert alarm == A.SeqTSP((bgp(("?train", "alarm", "?a")), A.Neg(bgp(("?train", "cleared", "?a")))))
    assert q.window(u("Arr")).spec == A.RangeWindow(60, 5)
    arr = q.window(u("Arr")).pattern
    assert arr.triples == (tp("?train", "arrivesAt", "?dest"), tp("?train", "temperature", "?t"))
    assert arr.filters == (A.And(A.Cmp(">=", A.Var(v("t")), A.Const(Literal(20))),
                                 A.Cmp("<", A.Var(v("t")), A.Const(Literal("45.5", datatype=XSD.decimal)))),)
    assert q.filters == (A.Or(A.Cmp("!=", A.Var(v("dest")), A.Var(v("st"))),
                              A.Cmp("<", A.UMinus(A.Var(v("t"))), A.UMinus(A.Const(Literal(30))))),)
    assert q.static == (A.PathPattern(v("st"), A.PathPlus(nxt("partOf")), u("region1")),)
    # the negated window's variables are in scope only through the positive windows
    assert A.ec_vars(q, q.events[0]) == {v("train"), v("st"), v("dest"), v("t")}


def test_standalone_blocks_and_event_clauses_keep_source_order():
    decl = "".join(f"FROM NAMED WINDOW :W{i} ON :s [RANGE 5]\n" for i in range(4))
    q = where("WINDOW :W3 { ?x :p ?y } SEQ(:W1, :W0) WINDOW :W0 { ?x :q ?y } WINDOW :W1 { ?x :r ?y } "
              "WINDOW :W2 { ?x :t ?y }", decl)
    assert q.events == (A.WinRef(u("W3")), A.SeqEC((A.WinRef(u("W1")), A.WinRef(u("W0")))), A.WinRef(u("W2")))
    assert [w.name for w in q.windows] == [u("W0"), u("W1"), u("W2"), u("W3")]      # declaration order
    assert parse(render(q)) == q


def test_window_kinds_and_durations():
    q = parse_file(QUERIES / "window_kinds.q")
    assert [w.spec for w in q.windows] == [A.NowWindow(), A.AllWindow(), A.TriplesWindow(5), A.RangeWindow(60, 10)]
    assert A.window_reach(q) == 69
    assert q.select is None and A.projection(q) == (v("t1"), v("t2"), v("x"))   # ?r is local to the negation
    assert q.window(u("All")).pattern == bgp(("?x", "calibrated", Literal(True)))
    assert q.window(u("Hour")).pattern.items[1] == A.BGP((A.TriplePattern(v("x"), u("alarm"),
                                                                          Literal("high", lang="en")),))
    text = PRE + "SELECT * FROM NAMED WINDOW :W ON :s [RANGE 1h30m SLIDE 90s] WHERE { WINDOW :W { ?x :p ?y } }"
    assert parse(text, tick="1s").windows[0].spec == A.RangeWindow(5400, 90)
    assert parse(text, tick="30s").windows[0].spec == A.RangeWindow(180, 3)
    with pytest.raises(ParseError) as e:
        parse(text, "q.q")                        # 90s is not a whole number of minutes
    assert (e.value.line, e.value.column) == (2, 56) and "90s" in e.value.message
    assert where("WINDOW :W { ?x :p ?y }", "FROM NAMED WINDOW :W ON :s [RANGE 0]\n").windows[0].spec == \
        A.RangeWindow(0)
    assert parse(PRE + "SELECT * FROM NAMED WINDOW :W ON :s [RANGE 250ms] WHERE { WINDOW :W { ?x :p ?y } }",
                 tick="50ms").windows[0].spec == A.RangeWindow(5)
    with pytest.raises(ValueError):
        parse(text, tick="0s")


def test_seq_of_one_element_is_the_element():
    """docs/semantics/cqels.md#cqels-G8: SEQ(X) is X, at both levels."""
    q = where("WINDOW :W { SEQ({?x :p ?y}) }")
    assert q.windows[0].pattern == bgp(("?x", "p", "?y"))
    q = where("WINDOW :W { ?x :p ?y } SEQ(:W)")
    assert q.events == (A.WinRef(u("W")),)
    assert parse(render(q)) == q


def test_negation_at_head_middle_tail():
    for k, body in enumerate(["!{?x :a ?y}, {?x :b ?y}, {?x :c ?y}", "{?x :a ?y}, !{?x :b ?y}, {?x :c ?y}",
                              "{?x :a ?y}, {?x :b ?y}, !{?x :c ?y}"]):
        items = where(f"WINDOW :W {{ SEQ({body}) }}").windows[0].pattern.items
        assert [isinstance(it, A.Neg) for it in items] == [i == k for i in range(3)]
    decl = "".join(f"FROM NAMED WINDOW :W{i} ON :s [RANGE 5]\n" for i in range(2))
    blocks = "WINDOW :W0 { ?x :p ?y } WINDOW :W1 { ?x :q ?y } "
    assert where(blocks + "SEQ(!:W0, :W1)", decl).events == (A.SeqEC((A.Neg(A.WinRef(u("W0"))),
                                                                       A.WinRef(u("W1")))),)
    assert where(blocks + "SEQ(:W0, !:W1)", decl).events == (A.SeqEC((A.WinRef(u("W0")),
                                                                       A.Neg(A.WinRef(u("W1"))))),)


def test_filters_inside_elements_and_negated_elements():
    q = where("WINDOW :W { SEQ({?x :t ?a FILTER(?a > 3)}, !{?x :t ?b FILTER(?b - 1 <= 2.5 || !(?b = :z))}) } "
              "FILTER(?a != \"q\"@en && true)")
    first, neg = q.windows[0].pattern.items
    assert first.filters == (A.Cmp(">", A.Var(v("a")), A.Const(Literal(3))),)
    assert neg.item.filters == (A.Or(A.Cmp("<=", A.Arith("-", A.Var(v("b")), A.Const(Literal(1))),
                                           A.Const(Literal("2.5", datatype=XSD.decimal))),
                                     A.Not(A.Cmp("=", A.Var(v("b")), A.Const(u("z"))))),)
    assert q.filters == (A.And(A.Cmp("!=", A.Var(v("a")), A.Const(Literal("q", lang="en"))),
                               A.Const(Literal(True))),)
    # '-5' in a FILTER is unary minus; in a triple it is the literal -5
    q = parse(PRE + "SELECT * WHERE { ?x :p -5 FILTER(?x = -5) }")
    assert q.static[0].o == Literal("-5", datatype=XSD.integer)
    assert q.filters == (A.Cmp("=", A.Var(v("x")), A.UMinus(A.Const(Literal(5)))),)


# ------------------------------------------------------------------------------------------------ paths
def test_path_desugaring():
    """docs/semantics/cqels.md#cqels-2.4: the SPARQL 1.1 forms and the nested tests in nSPARQL terms."""
    assert static_path(":p/:q") == A.PathSeq(nxt("p"), nxt("q"))
    assert static_path(":p/:q/:r") == A.PathSeq(A.PathSeq(nxt("p"), nxt("q")), nxt("r"))      # folded left
    assert static_path(":p|:q/:r") == A.PathAlt(nxt("p"), A.PathSeq(nxt("q"), nxt("r")))       # / binds tighter
    assert static_path("^(:p/:q*)") == A.PathSeq(A.PathStar(nxt("q", True)), nxt("p", True))  # ^ pushed down
    assert static_path("^^:p/:q") == A.PathSeq(nxt("p"), nxt("q"))
    assert static_path(":p?") == A.PathOpt(nxt("p"))
    assert static_path("a+") == A.PathPlus(A.AxisConst("next", False, RDF.type))
    assert static_path(":p[:q]") == A.PathSeq(nxt("p"), A.AxisNest("self", False, nxt("q")))
    assert static_path("[:q]") == A.AxisNest("self", False, nxt("q"))
    assert static_path("[:q :o]") == A.AxisNest("self", False, A.PathSeq(nxt("q"), A.AxisConst("self", False,
                                                                                                 u("o"))))
    assert static_path('[:q "o"]') == A.AxisNest("self", False, A.PathSeq(nxt("q"), A.AxisConst("self", False,
                                                                                                  Literal("o"))))
    assert static_path("next") == A.Axis("next")
    assert static_path("edge^-1") == A.Axis("edge", True)
    assert static_path("node\u207b\u00b9") == A.Axis("node", True)
    assert static_path("self::42") == A.AxisConst("self", False, Literal(42))
    assert static_path("edge^-1:::o") == A.AxisConst("edge", True, u("o"))
    assert static_path("node::[:p]") == A.AxisNest("node", False, nxt("p"))
    assert static_path("^node::[:p]") == A.AxisNest("node", True, nxt("p"))       # the test is not inverted
    assert static_path("^self::[:p]") == A.AxisNest("self", False, nxt("p"))
    assert static_path(":p*[:q]") == A.PathSeq(A.PathStar(nxt("p")), A.AxisNest("self", False, nxt("q")))


def test_plain_predicates_are_triple_patterns():
    q = parse(PRE + "SELECT * WHERE { ?a :p ?b . ?a (:p) ?c . ?a ?x ?d . ?a a :T . ?a ^:p ?e }")
    assert q.static[:4] == (tp("?a", "p", "?b"), tp("?a", "p", "?c"), tp("?a", "?x", "?d"),
                            A.TriplePattern(v("a"), RDF.type, u("T")))
    assert q.static[4] == A.PathPattern(v("a"), nxt("p", True), v("e"))
    q = parse(PRE + 'SELECT * WHERE { "lit" :p+ ?b }')
    assert q.static == (A.PathPattern(Literal("lit"), A.PathPlus(nxt("p")), v("b")),)


def test_rdfs_typing_expression_of_case_t15():
    (sp,) = parse_file(QUERIES / "t15_rdfs_paths.q").static
    star = lambda x: A.PathStar(nxt(x))  # noqa: E731
    b1 = A.PathSeq(A.AxisNest("next", False, A.PathSeq(star("sp"), A.AxisConst("self", False, u("type")))),
                   star("sc"))
    b2 = A.PathSeq(A.PathSeq(A.PathSeq(A.Axis("edge"), star("sp")), nxt("dom")), star("sc"))
    b3 = A.PathSeq(A.PathSeq(A.PathSeq(A.Axis("node", True), star("sp")), nxt("range")), star("sc"))
    assert sp == A.PathPattern(v("x"), A.PathAlt(A.PathAlt(b1, b2), b3), u("agent"))
    assert not A.sparql_expressible(sp.path)
    assert A.sparql_expressible(static_path("^:p/(:q|:r)*/:s?"))


# ------------------------------------------------------------------------------------------------ rejections
REJECTED = [
    # (query text after the PREFIX line, line, column, fragment of the message)
    ("SELECT ?x WHERE { ?x :p _:b }", 2, 25, "blank node"),
    ("SELECT ?x WHERE { ?x :p [] }", 2, 26, "blank nodes"),
    ("SELECT ?x WHERE { ?x :p ?y OPTIONAL { ?x :q ?z } }", 2, 28, "OPTIONAL"),
    ("SELECT ?x WHERE { { ?x :p ?y } UNION { ?x :q ?y } }", 2, 19, "nested group"),
    ("SELECT ?x WHERE { GRAPH :g { ?x :p ?y } }", 2, 19, "GRAPH"),
    ("SELECT ?x WHERE { STREAM :s [RANGE 10] { ?x :p ?y } }", 2, 19, "FROM NAMED WINDOW"),
    ("SELECT ?x FROM NAMED WINDOW :W ON :s [RANGE 10 TUMBLING] WHERE { WINDOW :W { ?x :p ?y } }", 2, 48,
     "RANGE T SLIDE T"),
    ("SELECT ?x FROM NAMED WINDOW :W ON ?s [RANGE 10] WHERE { WINDOW :W { ?x :p ?y } }", 2, 35, "variable streams"),
    ("SELECT ?x WHERE { WINDOW :W { ?x :p ?y } }", 2, 19, "not declared"),
    ("SELECT ?x " + W + "WHERE { ?x :p ?y }", 2, 11, "no WINDOW"),
    ("SELECT ?x " + W + W + "WHERE { WINDOW :W { ?x :p ?y } }", 3, 1, "declared twice"),
    ("SELECT ?x " + W + "WHERE { WINDOW :W { ?x :p ?y } WINDOW :W { ?x :q ?y } }", 3, 32, "two WINDOW blocks"),
    ("SELECT ?x " + W + "WHERE { WINDOW :W { SEQ({?x :a ?y}, !{?x :b ?y}, !{?x :c ?y}) } }", 3, 50,
     "at most one negated"),
    ("SELECT ?x " + W + "WHERE { WINDOW :W { SEQ(!{?x :a ?y}) } ?x :q ?z }", 3, 25, "at least one positive"),
    ("SELECT ?x " + W + "WHERE { WINDOW :W { ?x :a/:b ?y } }", 3, 26, "static data only"),
    ("SELECT ?x " + W + "WHERE { WINDOW :W { SEQ(?x :a ?y, ?x :b ?y) } }", 3, 25, "in braces"),
    ("SELECT ?x " + W + "WHERE { WINDOW :W { SEQ(:W, :W) } }", 3, 21, "event clause"),
    ("SELECT ?x " + W + "WHERE { WINDOW :W { ?x :a ?y } SEQ({?x :a ?y}, {?x :b ?y}) }", 3, 36,
     "inside a WINDOW block"),
    ("SELECT ?x " + W + "WHERE { WINDOW :W { SEQ({?x :a ?y}, {?x :b ?y}) ?x :c ?y } }", 3, 49,
     "one triple sequence pattern"),
    ("SELECT ?x " + W + "WHERE { WINDOW :W { } }", 3, 19, "no triple pattern"),
    ("SELECT ?z " + W + "WHERE { WINDOW :W { SEQ({?x :a ?y}, !{?x :b ?z}) } }", 2, 8, "not bound"),
    ("SELECT ?x " + W + "WHERE { WINDOW :W { SEQ({?x :a ?y FILTER(?q > 1)}, {?x :b ?z}) } }", 3, 42,
     "only use that group"),
    ("SELECT ?x " + W + "WHERE { WINDOW :W { ?x :a ?y } FILTER(?z > 1) }", 3, 39, "not bound"),
    ("SELECT ?x WHERE { ?x :p ?y FILTER(?y) }", 2, 35, "boolean expression"),
    ("SELECT ?x WHERE { ?x :p ?y FILTER(?y * 2 > 1) }", 2, 38, "multiplication"),
    ("SELECT ?x WHERE { ?x :p ?y FILTER(regex(?y, \"a\")) }", 2, 35, "function regex"),
    ("SELECT ?x WHERE { ?x :p ?y FILTER(?y > 1e3) }", 2, 40, "double"),
    ("SELECT ?x WHERE { ?x :p ?y FILTER((?y > 1) = true) }", 2, 39, "takes values"),
    ("SELECT ?x WHERE { ?x !(:p|:q) ?y }", 2, 22, "negated property sets"),
    ("SELECT ?x WHERE { ?x self^-1 ?y }", 2, 22, "no inverse"),
    ("SELECT ?x WHERE { ?x ex:p ?y }", 2, 22, "unknown prefix"),
    ("SELECT ?x WHERE { ?x p ?y }", 2, 22, "bare name"),
    ("SELECT ?x WHERE { ?x :p ?y ", 2, 28, "not closed"),
    ("SELECT ?x WHERE { }", 2, 17, "empty WHERE"),
    ("CONSTRUCT { ?x :p ?y } WHERE { ?x :p ?y }", 2, 1, "only SELECT"),
    ("SELECT ?x WHERE { ?x :p ?y } LIMIT 5", 2, 30, "solution modifiers"),
    ("SELECT (?x AS ?y) WHERE { ?x :p ?y }", 2, 8, "projection expressions"),
    ("SELECT ?x ?x WHERE { ?x :p ?y }", 2, 11, "selected twice"),
    ('SELECT ?x WHERE { "a" :p ?x }', 2, 19, "subject"),
    ('SELECT ?x WHERE { ?x :p "a"^^xsd:integer }', 2, 25, "ill-typed"),
    ("SELECT ?x FROM NAMED WINDOW :W ON :s [TRIPLES 0] WHERE { WINDOW :W { ?x :p ?y } }", 2, 47, "n >= 1"),
    ("SELECT ?x FROM NAMED WINDOW :W ON :s [RANGE 10 SLIDE 0] WHERE { WINDOW :W { ?x :p ?y } }", 2, 54,
     "SLIDE"),
    ("SELECT ?x WHERE { ?x :p 'a\\q' }", 2, 25, "escape"),
]


@pytest.mark.parametrize("text,line,col,fragment", REJECTED, ids=lambda x: x if isinstance(x, str) else None)
def test_rejections_are_located(text, line, col, fragment):
    with pytest.raises(ParseError) as e:
        parse(PRE + text, "q.q")
    assert (e.value.file, e.value.line, e.value.column) == ("q.q", line, col), str(e.value)
    assert fragment in e.value.message, e.value.message


def test_parse_file_names_the_file(tmp_path):
    f = tmp_path / "bad.q"
    f.write_text(PRE + "SELECT ?x WHERE { ?x :p }", encoding="utf-8")
    with pytest.raises(ParseError) as e:
        parse_file(f)
    assert e.value.file == str(f) and e.value.line == 2
    with pytest.raises(ParseError) as e:
        parse_file(tmp_path / "missing.q")
    assert e.value.file == str(tmp_path / "missing.q") and e.value.line is None


# ------------------------------------------------------------------------------------------------ printer
def test_render_escapes_names_and_literals():
    odd = ['a"b', "back\\slash", "new\nline\ttab", "caf\u00e9 \u6f22\u5b57 \U0001f600", "''"]
    body = " . ".join(f'?x :p "{s}"' for s in [x.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
                                                .replace("\t", "\\t") for x in odd])
    q = parse(PRE + "PREFIX w: <http://ex.org/a\\u0020b\\u0022c/>\nSELECT * WHERE { " + body +
              " . ?x <http://ex.org/\\u007Bq\\u007D> w:z FILTER(?x != \"x\\\"y\") }")
    assert [sp.o for sp in q.static[:len(odd)]] == [Literal(s) for s in odd]
    assert q.static[-1].p == URIRef("http://ex.org/{q}") and q.static[-1].o == URIRef('http://ex.org/a b"c/z')
    assert parse(render(q)) == q


def test_render_refuses_asts_without_concrete_syntax():
    q = where("WINDOW :W { ?x :p ?y }")
    bad = A.Query(None, (), q.windows, (A.WinRef(u("W")), A.WinRef(u("W"))), ())
    with pytest.raises(ValueError):
        render(bad)
    plain = A.Query(None, (), (), (), (A.PathPattern(v("a"), nxt("p"), v("b")),))
    with pytest.raises(ValueError):
        render(plain)


def test_ast_constructors_check_invariants():
    b = bgp(("?x", "p", "?y"))
    with pytest.raises(ValueError):
        A.SeqTSP((b,))
    with pytest.raises(ValueError):
        A.SeqTSP((A.Neg(b), A.Neg(b), b))
    with pytest.raises(ValueError):
        A.SeqTSP((A.Neg(b), A.Neg(b)))
    with pytest.raises(ValueError):
        A.Axis("self", True)
    with pytest.raises(ValueError):
        A.BGP((tp("?x", "p", "?y"),), (A.Cmp("=", A.Var(v("z")), A.Const(Literal(1))),))
    with pytest.raises(ValueError):
        A.RangeWindow(-1)
    with pytest.raises(ValueError):
        A.Query(None, (), (), (A.WinRef(u("W")),), ())
    assert A.BGP((tp("?x", "p", "?y"),), pos=(1, 1)) == A.BGP((tp("?x", "p", "?y"),), pos=(9, 9))
    assert hash(A.BGP((tp("?x", "p", "?y"),), pos=(1, 1))) == hash(b)


def _random_path(rng: random.Random, d: int, consts: list) -> A.Path:
    k = rng.randrange(9 if d else 3)
    kind = rng.choice(A.AXES)
    inv = kind != "self" and rng.random() < 0.5
    if k == 0:
        return A.Axis(kind, inv)
    if k == 1:
        return A.AxisConst(kind, inv, rng.choice(consts))
    if k == 2:
        return A.AxisConst("next", rng.random() < 0.5, u(rng.choice("pqr")))
    if k == 3:
        return A.AxisNest(kind, inv, _random_path(rng, d - 1, consts))
    if k == 4:
        return A.PathSeq(_random_path(rng, d - 1, consts), _random_path(rng, d - 1, consts))
    if k == 5:
        return A.PathAlt(_random_path(rng, d - 1, consts), _random_path(rng, d - 1, consts))
    return (A.PathStar, A.PathPlus, A.PathOpt)[k - 6](_random_path(rng, d - 1, consts))


def _random_value(rng: random.Random, d: int, consts: list) -> A.Expr:
    k = rng.randrange(4 if d else 2)
    if k == 0:
        return A.Var(v("a"))
    if k == 1:
        return A.Const(rng.choice(consts))
    if k == 2:
        return A.UMinus(_random_value(rng, d - 1, consts))
    return A.Arith(rng.choice("+-"), _random_value(rng, d - 1, consts), _random_value(rng, d - 1, consts))


def _random_bool(rng: random.Random, d: int, consts: list) -> A.Expr:
    k = rng.randrange(4 if d else 1)
    if k == 0:
        return A.Cmp(rng.choice(["=", "!=", "<", "<=", ">", ">="]), _random_value(rng, d, consts),
                     _random_value(rng, d, consts))
    if k == 3:
        return A.Not(_random_bool(rng, d - 1, consts))
    return (A.And, A.Or)[k - 1](_random_bool(rng, d - 1, consts), _random_bool(rng, d - 1, consts))


def test_random_asts_round_trip():
    """render then parse is the identity on random paths (every constructor, nested modifiers, literal and odd-IRI
    constants) and random well-typed FILTERs (negative numbers, escapes, language tags, custom datatypes)."""
    rng = random.Random(5)
    consts = [u("p"), URIRef('http://o.org/a b"c{}'), Literal('x"y\n\\'), Literal(-5), Literal(True),
              Literal("1.50", datatype=XSD.decimal), Literal("-0.5", datatype=XSD.decimal), Literal("q", lang="en-GB"),
              Literal("z", datatype=u("dt")), Literal("\u00e9\U0001f600")]
    for _ in range(600):
        p = _random_path(rng, 3, consts)
        if isinstance(p, A.AxisConst) and p.kind == "next" and not p.inverse and isinstance(p.const, URIRef):
            continue
        q = A.Query(None, (), (), (), (A.TriplePattern(v("a"), u("p"), rng.choice(consts)),
                                       A.PathPattern(v("a"), p, rng.choice(consts + [v("b")]))),
                    (_random_bool(rng, 2, consts),), (("", EX),))
        assert parse(render(q)) == q, render(q)


# ------------------------------------------------------------------------------------------------ mutation fuzz
_TOKENS = ["{", "}", "(", ")", "[", "]", "!", "?", ".", ",", ";", ":", "/", "|", "^", "*", "+", "-", "<", ">", "=",
           '"', "'", "#", "@", "_", " ", "\n", "0", "9", "a", "Z", "$", "\\", "SEQ", "WINDOW", "FILTER", "next::",
           "self", "^-1", "RANGE", "NOW", "ALL", "TRIPLES", "SLIDE", "10m", "\u207b\u00b9", "\u00e9", "\x00", "?x",
           ":W", "<http://e/>", "&&", "||"]


def _mutants(kind: str, n: int, seed: int):
    rng = random.Random(seed)
    texts = [f.read_text(encoding="utf-8") for f in FILES]
    for _ in range(n):
        t = rng.choice(texts)
        k = rng.randrange(len(t) + 1)
        if kind == "delete":
            yield t[:k] + t[min(len(t), k + rng.randint(1, 4)):]
        elif kind == "insert":
            yield t[:k] + rng.choice(_TOKENS) + t[k:]
        else:
            j = min(len(t), k + rng.randint(1, 12))
            yield t[:j] + t[k:j] + t[j:]


@pytest.mark.parametrize("kind", ["delete", "insert", "duplicate"])
def test_mutants_parse_or_raise_a_located_parse_error(kind):
    parsed = 0
    for m in _mutants(kind, 400, {"delete": 1, "insert": 2, "duplicate": 3}[kind]):
        try:
            q = parse(m, "m.q")
        except ParseError as e:
            assert e.file == "m.q" and e.line is not None and e.column is not None, (m, str(e))
            continue
        parsed += 1
        assert parse(render(q)) == q, m
    assert 0 < parsed < 400
