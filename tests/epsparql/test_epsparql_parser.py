"""EP-SPARQL parser: docs/semantics/epsparql.md's worked examples (epsparql.md section 5) parse into the expected algebra (docs/semantics/epsparql.md#epsparql-2.3),
chains fold left (A9), FILTER placement (A8), errors with positions, the optional_filter switch, time constants
(A15) and the printer round trip."""
from __future__ import annotations

from pathlib import Path

import pytest

from ceplab.semantics.errors import UnsupportedError
from hypothesis import given, strategies as st
from rdflib import RDF, XSD, Literal, URIRef, Variable
from rdflib.term import BNode

from ceplab.semantics.epsparql import ast as A
from ceplab.semantics.epsparql.options import Options
from ceplab.semantics.epsparql.parser import is_bnode_var, parse, parse_file, render
from ceplab.semantics.epsparql.translate import apply_options, datetime_ticks, duration_ticks
from ceplab.semantics.errors import ParseError

EX = "http://example.org/"
PRE = f"PREFIX : <{EX}>\n"


def u(x: str) -> URIRef:
    return URIRef(EX + x)


def v(x: str) -> Variable:
    return Variable(x)


def tp(s, p, o) -> A.TriplePattern:
    conv = lambda t: t if type(t) is not str else (v(t[1:]) if t.startswith("?") else u(t))
    return A.TriplePattern(conv(s), conv(p), conv(o))


def bgp(*triples) -> A.BGP:
    return A.BGP(tuple(tp(*t) for t in triples))


def num(x) -> A.Const:
    return A.Const(Literal(str(x), datatype=XSD.decimal if "." in str(x) else XSD.integer))


def where(text: str, i: int = 0) -> A.Pattern:
    return parse(PRE + text).queries[i].where


def price(var, subj="?company"):
    return bgp((subj, "hasStockPrice", var))


# ------------------------------------------------------------------------------------------------ E1-E14
E1 = PRE + """SELECT ?company WHERE
{ ?company :hasStockPrice ?price1 } SEQ { ?company :hasStockPrice ?price2 } SEQ { ?company :hasStockPrice ?price3 }
FILTER (?price2 < ?price1 * 0.7 && ?price3 > ?price1 * 1.05 && getDURATION() < "P30D"^^xsd:duration)"""


def test_e1_three_step_sequence_with_filter():
    q = parse(E1).queries[0]
    assert isinstance(q, A.Select) and q.projection == (v("company"),)
    f = A.And(A.And(A.Cmp("<", A.Var(v("price2")), A.Arith("*", A.Var(v("price1")), num("0.7"))),
                    A.Cmp(">", A.Var(v("price3")), A.Arith("*", A.Var(v("price1")), num("1.05")))),
              A.Cmp("<", A.TimeFn("DURATION"), A.Const(Literal("P30D", datatype=XSD.duration))))
    assert q.where == A.Filter(f, A.SeqJoin(A.SeqJoin(price("?price1"), price("?price2")), price("?price3")))


E2 = PRE + """SELECT ?company ?ratingagency WHERE
{ ?company :downratedby ?ratingagency } OPTIONALSEQ { { ?company :hasStockPrice ?price1 } SEQ { ?company :hasStockPrice ?price2 } }
FILTER (?price2 < ?price1 * 0.5)"""


def test_e2_optionalseq_shape():
    q = parse(E2).queries[0]
    f = A.Cmp("<", A.Var(v("price2")), A.Arith("*", A.Var(v("price1")), num("0.5")))
    assert q.where == A.Filter(f, A.SeqRightJoin(bgp(("?company", "downratedby", "?ratingagency")),
                                                A.SeqJoin(price("?price1"), price("?price2")), None))
    assert q.projection == (v("company"), v("ratingagency"))


E3_MANUAL = PRE + """SELECT ?company WHERE
{ ?company :hasStockprice ?price1 } SEQ { { ?company :hasAcquired ?othercompany } OPTIONALSEQ { ?company :hasStockPrice ?price2 } }
FILTER (?price2 < ?price1 * 1.5 && !BOUND(?othercompany) && getDURATION() < "P15D"^^xsd:duration)"""
E3 = E3_MANUAL.replace(":hasStockprice", ":hasStockPrice").replace("?price2 < ?price1", "?price2 > ?price1")


@pytest.mark.parametrize("text,pred,op", [(E3_MANUAL, "hasStockprice", "<"), (E3, "hasStockPrice", ">")])
def test_e3_manual_and_repaired(text, pred, op):
    q = parse(text).queries[0]
    f = A.And(A.And(A.Cmp(op, A.Var(v("price2")), A.Arith("*", A.Var(v("price1")), num("1.5"))),
                    A.Not(A.Bound(v("othercompany")))),
              A.Cmp("<", A.TimeFn("DURATION"), A.Const(Literal("P15D", datatype=XSD.duration))))
    inner = A.SeqRightJoin(bgp(("?company", "hasAcquired", "?othercompany")), price("?price2"), None)
    assert q.where == A.Filter(f, A.SeqJoin(bgp(("?company", pred, "?price1")), inner))


E4 = PRE + """CONSTRUCT { ?company :downratedby ?ratingagency } WHERE
{ ?rating1 :rater ?ratingagency ; :rated ?company ; :score ?score1 }
SEQ { ?rating2 :rater ?ratingagency ; :rated ?company ; :score ?score2 }
FILTER (?score2 < ?score1)"""


def test_e4_construct_with_semicolon_abbreviation():
    q = parse(E4).queries[0]
    assert isinstance(q, A.Construct)
    assert q.template == (tp("?company", "downratedby", "?ratingagency"),)
    left = bgp(("?rating1", "rater", "?ratingagency"), ("?rating1", "rated", "?company"),
               ("?rating1", "score", "?score1"))
    right = bgp(("?rating2", "rater", "?ratingagency"), ("?rating2", "rated", "?company"),
                ("?rating2", "score", "?score2"))
    assert q.where == A.Filter(A.Cmp("<", A.Var(v("score2")), A.Var(v("score1"))), A.SeqJoin(left, right))


def test_e4_feeds_e2_in_one_file():
    qs = parse(E4 + "\n" + E2.replace(PRE, ""))
    assert [type(q) for q in qs.queries] == [A.Construct, A.Select]
    assert len(qs.constructs) == 1 and len(qs.selects) == 1
    assert qs.prefixes == (("", EX),)


E5 = PRE + """SELECT ?prev ?price WHERE
{ {:ACME :hasStockPrice ?prev} SEQ {:ACME :hasStockPrice ?price} }
EQUALSOPTIONAL
{ {:ACME :hasStockPrice ?prev} SEQ {:ACME :hasStockPrice ?inbetween} SEQ {:ACME :hasStockPrice ?price} }
FILTER (!BOUND(?inbetween))"""


def e5_parts():
    p = lambda x: bgp(("ACME", "hasStockPrice", x))
    return (A.SeqJoin(p("?prev"), p("?price")),
            A.SeqJoin(A.SeqJoin(p("?prev"), p("?inbetween")), p("?price")))


def test_e5_equalsoptional_negation_idiom():
    left, right = e5_parts()
    assert parse(E5).queries[0].where == A.Filter(A.Not(A.Bound(v("inbetween"))), A.EqLeftJoin(left, right, None))


E6 = PRE + """CONSTRUCT { _:aaa :hasCount ?count . _:aaa :hasSum ?sum }
{ SELECT (?prevcount+1 AS ?count) (?prevsum+?price AS ?sum)
  { { ?point :hasCount ?prevcount . ?point :hasSum ?prevsum . } SEQ { :ACME :hasStockPrice ?price . } }
  EQUALSOPTIONAL
  { { ?point :hasCount ?prevcount . ?point :hasSum ?prevsum . } SEQ { :ACME :hasStockPrice ?inbetween . }
    SEQ { :ACME :hasStockPrice ?price . } }
  FILTER ( !BOUND(?inbetween) && getDURATION() < "P10D"^^xsd:duration ) }"""


def e6_where():
    pt = bgp(("?point", "hasCount", "?prevcount"), ("?point", "hasSum", "?prevsum"))
    pr = lambda x: bgp(("ACME", "hasStockPrice", x))
    elj = A.EqLeftJoin(A.SeqJoin(pt, pr("?price")), A.SeqJoin(A.SeqJoin(pt, pr("?inbetween")), pr("?price")), None)
    f = A.And(A.Not(A.Bound(v("inbetween"))),
              A.Cmp("<", A.TimeFn("DURATION"), A.Const(Literal("P10D", datatype=XSD.duration))))
    ext = A.Extend(A.Extend(A.Filter(f, elj), v("count"), A.Arith("+", A.Var(v("prevcount")), num(1))),
                   v("sum"), A.Arith("+", A.Var(v("prevsum")), A.Var(v("price"))))
    return A.Project((v("count"), v("sum")), ext)


def test_e6_query5_subselect_with_projection_expressions():
    q = parse(E6).queries[0]
    assert isinstance(q, A.Construct)
    assert q.template == (A.TriplePattern(BNode("aaa"), u("hasCount"), v("count")),
                          A.TriplePattern(BNode("aaa"), u("hasSum"), v("sum")))
    assert q.where == e6_where()


def test_e6_paper_reversed_as_form_is_read_reversed():
    paper = E6.replace("(?prevcount+1 AS ?count) (?prevsum+?price AS ?sum)",
                       "?count AS ?prevcount + 1\n ?sum AS ?prevsum + ?price")
    assert parse(paper).queries[0].where == e6_where()


def test_e6_query6_unparenthesised_sparql_order():
    q = parse(PRE + """SELECT ?sum / ?count AS ?average WHERE
    {{ :ACME :hasStockPrice ?price . } SEQ { ?point :hasCount ?prevcount . ?point :hasSum ?prevsum . }}
    FILTER (getDURATION() > "P10D"^^xsd:duration)""").queries[0]
    assert q.projection == (v("average"),)
    assert isinstance(q.where, A.Extend) and q.where.var == v("average")
    assert q.where.expr == A.Arith("/", A.Var(v("sum")), A.Var(v("count")))


def test_ambiguous_as_between_two_variables_is_rejected():
    with pytest.raises(ParseError, match="A16") as ei:
        parse("SELECT ?a AS ?b WHERE { ?a <http://p> ?c }")
    assert ei.value.line == 1 and ei.value.column == 11


def test_e7_sequentional_does_not_exist():
    with pytest.raises(ParseError, match="E7"):
        parse(PRE + "SELECT * WHERE { ?x ?x ?x } SEQUENTIONAL { ?y ?y ?y }")


def test_e8_optional_inside_a_group():
    q = parse(PRE + "SELECT * WHERE { ?x :p ?y OPTIONAL { ?x :q ?z } }").queries[0]
    assert q.projection == tuple(Variable(n) for n in "xyz")   # SELECT *: the visible variables, in order
    assert q.where == A.LeftJoin(bgp(("?x", "p", "?y")), bgp(("?x", "q", "?z")), None)


def test_e8_filter_inside_optional_becomes_f():
    w = where("SELECT * WHERE { ?x :p ?y OPTIONAL { ?x :q ?z FILTER(?z > 1) } }")
    assert w == A.LeftJoin(bgp(("?x", "p", "?y")), bgp(("?x", "q", "?z")), A.Cmp(">", A.Var(v("z")), num(1)))


@pytest.mark.parametrize("op,node", [("SEQ", A.SeqJoin), ("EQUALS", A.EqJoin), ("UNION", A.Union_)])
def test_e9_binary_operators(op, node):
    assert where(f"SELECT * {{?x :p ?y}} {op} {{?x :q ?z}}") == node(bgp(("?x", "p", "?y")), bgp(("?x", "q", "?z")))


def test_e9_juxtaposition_is_join():
    assert where("SELECT * { {?x :p ?y} {?x :q ?z} }") == A.Join(bgp(("?x", "p", "?y")), bgp(("?x", "q", "?z")))


def test_e10_one_bgp_with_two_patterns():
    assert where("SELECT * { ?x :p ?y . ?x :p ?z }") == bgp(("?x", "p", "?y"), ("?x", "p", "?z"))


def test_e11_two_step_sequence():
    assert where("SELECT * {?s :p ?x} SEQ {?s :q ?y}") == A.SeqJoin(bgp(("?s", "p", "?x")), bgp(("?s", "q", "?y")))


def test_e12_filter_inside_the_optional_group_is_f():
    w = where("SELECT * { ?c :downratedby ?r FILTER(getDURATION() < 5) } OPTIONALSEQ { ?c :hasStockPrice ?p }")
    assert w == A.SeqRightJoin(bgp(("?c", "downratedby", "?r")), bgp(("?c", "hasStockPrice", "?p")),
                               A.Cmp("<", A.TimeFn("DURATION"), num(5)))


def test_e13_rdf_type_with_a():
    w = where("SELECT ?x WHERE {?x a :Tracheobionta}")
    assert w == A.BGP((A.TriplePattern(v("x"), RDF.type, u("Tracheobionta")),))
    assert where("SELECT ?x WHERE {?x rdf:type :Tracheobionta}") == w


def test_e14_etalis_repository_queries():
    qs = parse(PRE + """
    SELECT ?c WHERE {?c :hasStockPrice ?p1} SEQ {?c :hasStockPrice ?p2}
    SELECT ?c WHERE {?c :hasStockPrice ?p1} SEQ {?c :hasStockPrice ?p2} FILTER(?p1 < ?p2)
    CONSTRUCT ?c :hasPricePairMin ?p1 . WHERE {?c :hasStockPrice ?p1} SEQ {?c :hasStockPrice ?p2}
    CONSTRUCT ?c :hasPrice ?p1 WHERE {?c :hasStockPrice ?p1}
    SELECT ?c ?p1 WHERE {?c :hasStockPrice ?p1}
    """)
    assert [type(q).__name__ for q in qs.queries] == ["Select", "Select", "Construct", "Construct", "Select"]
    seq = A.SeqJoin(bgp(("?c", "hasStockPrice", "?p1")), bgp(("?c", "hasStockPrice", "?p2")))
    assert qs.queries[0].where == seq
    assert qs.queries[1].where == A.Filter(A.Cmp("<", A.Var(v("p1")), A.Var(v("p2"))), seq)
    assert qs.queries[2].template == (tp("?c", "hasPricePairMin", "?p1"),) and qs.queries[2].where == seq
    assert qs.queries[3].template == (tp("?c", "hasPrice", "?p1"),)
    assert qs.queries[4].projection == (v("c"), v("p1"))


def test_e1_file_on_disk(tmp_path: Path):
    f = tmp_path / "e1.rq"
    f.write_text(E1)
    assert parse_file(f) == parse(E1)
    f.write_text(E1.replace("SEQ {", "MEETS {", 1))
    with pytest.raises(ParseError) as ei:
        parse_file(f)
    assert ei.value.file == str(f) and ei.value.line == 3 and "MEETS" in str(ei.value)


# ------------------------------------------------------------------------------------------------ grammar details
def test_mixed_chains_fold_left():
    a, b, c, d = (bgp(("?x", x, "?" + x)) for x in "abcd")
    w = where("SELECT * {?x :a ?a} SEQ {?x :b ?b} OPTIONALSEQ {?x :c ?c} EQUALSOPTIONAL {?x :d ?d}")
    assert w == A.EqLeftJoin(A.SeqRightJoin(A.SeqJoin(a, b), c, None), d, None)
    w = where("SELECT * {?x :a ?a} UNION {?x :b ?b} SEQ {?x :c ?c} EQUALS {?x :d ?d}")
    assert w == A.EqJoin(A.SeqJoin(A.Union_(a, b), c), d)
    # explicit braces group to the right
    w = where("SELECT * {?x :a ?a} SEQ { {?x :b ?b} OPTIONALSEQ {?x :c ?c} }")
    assert w == A.SeqJoin(a, A.SeqRightJoin(b, c, None))


def test_equalsoptional_takes_f_from_its_right_operand_only():
    a, b = bgp(("?x", "a", "?a")), bgp(("?x", "b", "?b"))
    f = A.Cmp(">", A.Var(v("b")), num(1))
    assert where("SELECT * {?x :a ?a} EQUALSOPTIONAL {?x :b ?b FILTER(?b > 1)}") == A.EqLeftJoin(a, b, f)
    # a FILTER in the mandatory operand stays on the mandatory operand
    assert where("SELECT * {?x :b ?b FILTER(?b > 1)} EQUALSOPTIONAL {?x :a ?a}") == A.EqLeftJoin(A.Filter(f, b), a)
    # OPTIONALSEQ's mandatory side keeps its FILTER too
    assert where("SELECT * {?x :a ?a} OPTIONALSEQ {?x :b ?b FILTER(?b > 1)}") == A.SeqRightJoin(a, A.Filter(f, b))


def test_group_filters_are_conjoined_and_wrap_the_group():
    w = where("SELECT * { FILTER(?a > 1) ?x :a ?a . FILTER(?b > 2) ?x :b ?b OPTIONAL {?x :c ?c} }")
    f = A.And(A.Cmp(">", A.Var(v("a")), num(1)), A.Cmp(">", A.Var(v("b")), num(2)))
    assert w == A.Filter(f, A.LeftJoin(bgp(("?x", "a", "?a"), ("?x", "b", "?b")), bgp(("?x", "c", "?c"))))


def test_triples_blocks_around_groups_join_left():
    w = where("SELECT * { ?x :a ?a {?x :b ?b} SEQ {?x :c ?c} . ?x :d ?d }")
    assert w == A.Join(A.Join(bgp(("?x", "a", "?a")), A.SeqJoin(bgp(("?x", "b", "?b")), bgp(("?x", "c", "?c")))),
                       bgp(("?x", "d", "?d")))


def test_comma_object_lists_keywords_case_insensitive_and_where_optional():
    w = where("select * { ?x :p ?a, ?b ; :q 1 } seq { ?x :r ?c } # comment")
    assert w == A.SeqJoin(bgp(("?x", "p", "?a"), ("?x", "p", "?b"), ("?x", "q", A.Const(
        Literal("1", datatype=XSD.integer)).term)), bgp(("?x", "r", "?c")))


def test_literals_and_numbers_are_canonical():
    w = where('SELECT * { ?x :p 007 , 1.50 , -2 , "s" , "t"@en , true , "5"^^xsd:integer , '
              '"2011-01-01T00:00:00Z"^^xsd:dateTime , <http://other/iri> }')
    objs = [t.o for t in w.triples]
    assert objs[0] == Literal("7", datatype=XSD.integer) and str(objs[0]) == "7"
    assert str(objs[1]) == "1.5" and objs[1].datatype == XSD.decimal
    assert str(objs[2]) == "-2"
    assert objs[3] == Literal("s") and objs[4] == Literal("t", lang="en")
    assert objs[5] == Literal(True)
    assert str(objs[6]) == "5"
    assert objs[7].datatype == XSD.dateTime
    assert objs[8] == URIRef("http://other/iri")
    # doubles are rejected (exact arithmetic, docs/semantics/epsparql.md#epsparql-A11), with the position of the literal
    for bad in ("1e3", '"2.5"^^xsd:double', '"2.5"^^xsd:float'):
        with pytest.raises(ParseError, match="not supported"):
            parse(PRE + f"SELECT * {{ ?x :p {bad} }}")


def test_signed_numbers_in_expressions():
    w = where("SELECT * { ?x :p ?y FILTER(?y - -5 < -(5) && -1.50 < ?y) }")
    assert w.expr == A.And(A.Cmp("<", A.Arith("-", A.Var(v("y")), num(-5)), A.Neg(num(5))),
                           A.Cmp("<", num("-1.5"), A.Var(v("y"))))


def test_blank_nodes_in_patterns_are_variables_in_templates_bnodes():
    q = parse(PRE + "CONSTRUCT { _:n :p ?x . [] :q ?x } WHERE { _:b :p ?x . ?x :q [] }").queries[0]
    s, o = q.where.triples[0].s, q.where.triples[1].o
    assert isinstance(s, Variable) and is_bnode_var(s) and str(s) == "_:b"
    assert isinstance(o, Variable) and is_bnode_var(o) and o != s
    assert isinstance(q.template[0].s, BNode) and q.template[0].s == BNode("n")
    assert isinstance(q.template[1].s, BNode)
    assert not is_bnode_var(v("x"))


def test_subselect_star_projects_visible_variables():
    w = where("SELECT ?x WHERE { { SELECT * WHERE { ?x :p _:b . ?y :q ?x } } SEQ { ?x :r ?z } }")
    assert isinstance(w, A.SeqJoin) and isinstance(w.left, A.Project)
    assert w.left.vars == (v("x"), v("y"))


def test_base_and_prefix_resolution():
    q = parse("BASE <http://b.org/> PREFIX e: <ns/> SELECT * { <s> e:p ?o }").queries[0]
    assert q.where.triples[0].s == URIRef("http://b.org/s") and q.where.triples[0].p == URIRef("http://b.org/ns/p")


def test_time_functions_and_distinct():
    q = parse(PRE + "SELECT DISTINCT ?x { ?x :p ?y FILTER(getSTARTTIME() <= getENDTIME() || BOUND(?y)) }")
    e = q.queries[0].where.expr
    assert e == A.Or(A.Cmp("<=", A.TimeFn("STARTTIME"), A.TimeFn("ENDTIME")), A.Bound(v("y")))


def test_positions_are_recorded_but_not_compared():
    q = parse(PRE + "SELECT *\nWHERE {\n  ?x :p ?y\n}").queries[0]
    assert q.where.pos == (4, 3) and q.where.triples[0].pos == (4, 3)
    assert q.where == bgp(("?x", "p", "?y"))


# ------------------------------------------------------------------------------------------------ errors
@pytest.mark.parametrize("text,line,col,fragment", [
    ("SELECT * WHERE {}", 1, 16, "empty group"),
    ("SELECT * WHERE { ?x :p ?y } SEQ {\n FILTER(true) }", 1, 33, "only FILTERs"),
    ('SELECT * WHERE { ?x :p ?y FILTER(getDURATION() < "P1M"^^xsd:duration) }', 1, 50, "year or month"),
    ('SELECT * WHERE { ?x :p "P1Y2D"^^xsd:duration }', 1, 24, "P1Y2D"),
    ("SELECT * WHERE { ?x hasStockPrice ?y }", 1, 21, "bare name 'hasStockPrice'"),
    ("SELECT * WHERE { ?x ex:p ?y }", 1, 21, "unknown prefix 'ex:'"),
    ("SELECT * WHERE { ?x :p ?y } AND { ?x :q ?z }", 1, 29, "ETALIS"),
    ("SELECT * WHERE { ?x :p ?y \n", 2, 1, "not closed"),
    ("SELECT * WHERE { OPTIONAL { ?x :p ?y } }", 1, 18, "mandatory"),
    ("SELECT * WHERE { ?x :p ?y } ORDER BY ?x", 1, 29, "not supported"),
    ("SELECT (?y + 1 AS ?y) WHERE { ?x :p ?y }", 1, 16, "already bound"),
    ('SELECT * WHERE { ?x :p "x"^^xsd:integer }', 1, 24, "ill-typed"),
    ("SELECT * WHERE { ?x :p ?y FILTER(getFOO() > 1) }", 1, 34, "unknown function"),
    ("CONSTRUCT { } WHERE { ?x :p ?y }", 1, 1, "empty CONSTRUCT"),
    ("SELECT * WHERE { ?x :p ?y } PREFIX e: <http://e/>", 1, 29, "before the first query"),
])
def test_errors_have_positions_and_explanations(text, line, col, fragment):
    with pytest.raises(ParseError) as ei:
        parse(PRE + text, file="q.rq")
    err = ei.value
    assert fragment in err.message, err.message
    assert (err.line, err.column) == (line + 1, col), str(err)
    assert str(err).startswith(f"q.rq:{line + 1}:")


def test_no_query_is_an_error():
    with pytest.raises(ParseError, match="no query"):
        parse(PRE)


# ------------------------------------------------------------------------------------------------ apply_options
def test_optional_filter_operand_is_identity():
    qs = parse(E5)
    assert apply_options(qs, Options()) is qs


def test_optional_filter_group_moves_the_e5_filter_into_f():
    left, right = e5_parts()
    qs = apply_options(parse(E5), Options(optional_filter="group"))
    assert qs.queries[0].where == A.EqLeftJoin(left, right, A.Not(A.Bound(v("inbetween"))))


def test_optional_filter_group_conjoins_and_recurses():
    qs = parse(PRE + """SELECT * { { ?x :a ?a OPTIONAL { ?x :b ?b FILTER(?b > 1) } FILTER(!BOUND(?b)) }
                                  SEQ { ?x :c ?c } }""")
    w = apply_options(qs, Options(optional_filter="group")).queries[0].where
    assert w == A.SeqJoin(A.LeftJoin(bgp(("?x", "a", "?a")), bgp(("?x", "b", "?b")),
                                     A.And(A.Cmp(">", A.Var(v("b")), num(1)), A.Not(A.Bound(v("b"))))),
                          bgp(("?x", "c", "?c")))
    # inside the E6 sub-select as well; a Filter over a non-optional node is kept
    w6 = apply_options(parse(E6), Options(optional_filter="group")).queries[0].where
    assert isinstance(w6.pattern.pattern.pattern, A.EqLeftJoin) and w6.pattern.pattern.pattern.expr is not None
    e1 = parse(E1)
    assert apply_options(e1, Options(optional_filter="group")) == e1


# ------------------------------------------------------------------------------------------------ ticks (A15)
def dur(s):
    return Literal(s, datatype=XSD.duration)


def dt(s):
    return Literal(s, datatype=XSD.dateTime)


def test_duration_ticks():
    assert duration_ticks(dur("P30D")) == 30
    assert duration_ticks(dur("P1DT24H")) == 2
    assert duration_ticks(dur("-P2D")) == -2
    assert duration_ticks(dur("PT90M"), Options(tick_seconds=60)) == 90
    with pytest.raises(UnsupportedError, match="not a whole number of ticks"):
        duration_ticks(dur("PT1.5S"), Options(tick_seconds=1))
    with pytest.raises(UnsupportedError, match="not a whole number of ticks"):
        duration_ticks(dur("PT12H"))
    with pytest.raises(ValueError, match="year or month"):
        duration_ticks(dur("P1M"))
    with pytest.raises(ValueError, match="malformed"):
        duration_ticks(dur("30D"))
    with pytest.raises(ValueError, match="not an xsd:duration"):
        duration_ticks(Literal(5))


def test_datetime_ticks():
    assert datetime_ticks(dt("1970-01-02T00:00:00Z")) == 1
    assert datetime_ticks(dt("2011-01-01T00:00:00Z")) == 14975
    assert datetime_ticks(dt("2011-01-01T00:00:00"), Options(tick_seconds=1)) == 1293840000
    assert datetime_ticks(dt("2011-01-01T01:00:00+01:00"), Options(tick_seconds=1)) == 1293840000
    assert datetime_ticks(dt("2011-01-01T00:00:01.000Z"), Options(tick_seconds=1)) == 1293840001
    with pytest.raises(UnsupportedError, match="whole number of ticks"):
        datetime_ticks(dt("2011-01-01T12:00:00Z"))
    with pytest.raises(ValueError, match="malformed"):
        datetime_ticks(dt("2011-13-01T00:00:00Z"))


# ------------------------------------------------------------------------------------------------ round trip
def test_render_round_trips_the_examples():
    for text in (E1, E2, E3_MANUAL, E3, E4, E5, E6, E4 + E2.replace(PRE, "")):
        qs = parse(text)
        assert parse(render(qs)) == qs, render(qs)


_VARS = st.sampled_from([v(x) for x in ("a", "b", "c", "d")] + [Variable("_:n")])
_IRIS = st.sampled_from([u("p"), u("q"), URIRef("http://other.org/r#x"), RDF.type])
_LITS = st.sampled_from([Literal("5", datatype=XSD.integer), Literal("-2", datatype=XSD.integer),
                         Literal("0.75", datatype=XSD.decimal), Literal("s\"q"), Literal("t", lang="en"),
                         Literal(True), Literal("P3D", datatype=XSD.duration)])
_EVARS = st.sampled_from([v(x) for x in ("a", "b", "c", "d")])


def _exprs():
    leaf = st.one_of(_EVARS.map(A.Var), _LITS.map(A.Const), _IRIS.map(A.Const), _EVARS.map(A.Bound),
                     st.sampled_from(["DURATION", "STARTTIME", "ENDTIME"]).map(A.TimeFn))
    return st.recursive(leaf, lambda e: st.one_of(
        st.builds(A.Arith, st.sampled_from("+-*/"), e, e), st.builds(A.Neg, e),
        st.builds(A.Cmp, st.sampled_from(["<", "<=", "=", "!=", ">", ">="]), e, e),
        st.builds(A.And, e, e), st.builds(A.Or, e, e), st.builds(A.Not, e)), max_leaves=5)


EXPRS = _exprs()

_BGPS = st.lists(st.builds(A.TriplePattern, st.one_of(_VARS, _IRIS), st.one_of(_EVARS, _IRIS),
                           st.one_of(_VARS, _IRIS, _LITS)), min_size=1, max_size=3).map(lambda ts: A.BGP(tuple(ts)))


def _not_filter(p):
    return not isinstance(p, A.Filter)


def _patterns():
    def extend(children):
        return st.one_of(
            st.builds(A.Join, children, children), st.builds(A.Union_, children, children),
            st.builds(A.SeqJoin, children, children), st.builds(A.EqJoin, children, children),
            st.builds(A.LeftJoin, children, children.filter(_not_filter), st.none()),
            st.builds(A.LeftJoin, children, children, EXPRS),
            st.builds(A.SeqRightJoin, children.filter(_not_filter), children, st.none()),
            st.builds(A.SeqRightJoin, children, children, EXPRS),
            st.builds(A.EqLeftJoin, children, children.filter(_not_filter), st.none()),
            st.builds(A.EqLeftJoin, children, children, EXPRS),
            st.builds(A.Filter, EXPRS, children),
            st.builds(lambda p, e: A.Project((v("x9"),), A.Extend(p, v("x9"), e)),
                      children.filter(lambda p: v("x9") not in A.pattern_vars(p)), EXPRS),
            children.map(lambda p: A.Project(tuple(sorted((x for x in A.pattern_vars(p) if not str(x).startswith("_")),
                                                          key=str)) or (v("a"),), p)))
    return st.recursive(_BGPS, extend, max_leaves=4)


PATTERNS = _patterns()


@st.composite
def _querysets(draw):
    queries = []
    for _ in range(draw(st.integers(1, 2))):
        w = draw(PATTERNS)
        if draw(st.booleans()):
            t = draw(st.lists(st.builds(A.TriplePattern, st.one_of(_EVARS, _IRIS, st.just(BNode("k"))),
                                        st.one_of(_EVARS, _IRIS), st.one_of(_EVARS, _IRIS, _LITS)),
                              min_size=1, max_size=2))
            queries.append(A.Construct(tuple(t), w))
        elif draw(st.booleans()):
            queries.append(A.Select(None, w))
        else:
            proj = (v("a"),)
            if draw(st.booleans()) and v("z") not in A.pattern_vars(w):
                w = A.Extend(w, v("z"), draw(EXPRS))
                proj = (v("a"), v("z"))
            queries.append(A.Select(proj, w))
    prefixes = draw(st.sampled_from([(), (("", EX),), (("", EX), ("o", "http://other.org/r#"))]))
    return A.QuerySet(tuple(queries), prefixes)


def _star_resolved(qs):
    """``SELECT *`` parses to the visible variables in order of appearance, without blank-node variables."""
    from ceplab.semantics.epsparql.parser import _ordered_vars

    return A.QuerySet(tuple(
        A.Select(tuple(x for x in _ordered_vars(q.where) if not is_bnode_var(x)), q.where)
        if isinstance(q, A.Select) and q.projection is None else q for q in qs.queries), qs.prefixes)


@given(_querysets())
def test_round_trip_property(qs):
    text = render(qs)
    assert parse(text) == _star_resolved(qs), text
