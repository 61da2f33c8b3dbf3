"""SPAseq parser and printer (docs/semantics/spaseq.md#spaseq-2.2): the worked-example queries T1-T11 and the
authors' tests R1-R8 (tests/spaseq/queries/*.q) parse into the expected ASTs; group patterns translate to the
SPARQL 1.1 algebra (section 18.2.2.6); every restriction and syntax error is a ParseError at the culprit's line
and column; ``parse(render(q)) == q``; and no mutation of the sample texts raises anything but ParseError."""
from __future__ import annotations

import random
import time
from pathlib import Path

import pytest
from rdflib import RDF, XSD, Literal, URIRef, Variable

from ceplab.semantics.errors import ParseError
from ceplab.semantics.spaseq import ast as A
from ceplab.semantics.spaseq.parser import MAX_DEPTH, parse, parse_file, render

QUERIES = Path(__file__).with_name("queries")
SAMPLES = sorted(QUERIES.glob("*.q"))
EX = "http://example.org/"
PW, WT, ST = URIRef(EX + "pw"), URIRef(EX + "wt"), URIRef(EX + "st")
MAIN, KB = URIRef(EX + "main"), URIRef(EX + "kb")
TSTREAMS = (("S1", PW), ("S2", WT), ("S3", ST))


# ------------------------------------------------------------------------------------------------ builders
def u(x: str) -> URIRef:
    return URIRef(EX + x)


def v(x: str) -> Variable:
    return Variable(x)


def t(x) -> object:
    if type(x) is not str:                 # rdflib terms are str subclasses
        return x
    if x.startswith("?"):
        return v(x[1:])
    return RDF.type if x == "a" else u(x)


def bgp(*triples) -> A.BGP:
    return A.BGP(tuple(A.TriplePattern(t(s), t(p), t(o)) for s, p, o in triples))


def var(x: str) -> A.Var:
    return A.Var(v(x))


def integer(n: int) -> A.Const:
    return A.Const(Literal(str(n), datatype=XSD.integer))


def cmp(op: str, left, right) -> A.Cmp:
    conv = lambda e: var(e[1:]) if isinstance(e, str) else integer(e) if isinstance(e, int) else e
    return A.Cmp(op, conv(left), conv(right))


def ref(n: str) -> A.GPMRef:
    return A.GPMRef(n)


def el(expr, connector=None, modifier=None) -> A.Element:
    return A.Element(ref(expr) if isinstance(expr, str) else expr, connector, modifier)


def q(name: str) -> A.Query:
    return parse_file(QUERIES / f"{name}.q")


P1 = bgp(("?h", "price", "?p1"))
P2 = A.Filter(cmp(">=", "?s", 5), bgp(("?w", "wind", "?s")))


def gpm_pattern(name: str) -> str:
    return (f"PREFIX : <{EX}>\nSELECT *\nWITHIN 1 SECOND\nFROM STREAM S1 :pw\nFROM <{EX}kb>\n"
            f"WHERE SEQ (A)\n{{ DEFINE GPM A ON S1 {name} }}\n")


def pattern(body: str) -> A.Pattern:
    return parse(gpm_pattern(body)).gpms[0].pattern


# ------------------------------------------------------------------------------------------------ samples
def test_every_case_has_its_query_file():
    names = {p.stem for p in SAMPLES}
    assert {f"t{i}" for i in range(1, 12)} <= names
    assert {f"r{i}" for i in range(1, 9)} <= names


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_sample_parses_and_round_trips(path):
    query = parse_file(path)
    assert query.window >= 1
    assert parse(render(query)) == query
    assert render(parse(render(query))) == render(query)


def test_t1_single_gpm():
    assert q("t1") == A.Query((v("h"), v("p1")), 10, TSTREAMS, (), (el("A"),), (A.GPM("A", (PW,), P1),))


def test_t2_t3_conjunction_and_disjunction_of_two_gpms():
    gpms = (A.GPM("A", (PW,), P1), A.GPM("B", (WT,), P2))
    assert q("t2") == A.Query(None, 10, TSTREAMS, (), (el(A.Conj(ref("A"), ref("B"))),), gpms)
    assert q("t3") == A.Query(None, 10, TSTREAMS, (), (el(A.Disj(ref("A"), ref("B"))),), gpms)


@pytest.mark.parametrize("name,connector", [("t4", ":"), ("t5", ";"), ("t6", ","), ("t10", ","),
                                            ("t10_stn", ";"), ("t10_sta", ":"), ("t9", ";")])
def test_connectors(name, connector):
    assert q(name).seq == (el("A"), el("B", connector))


def test_t7_kleene_plus_after_skip_till_next():
    assert q("t7").seq == (el("A"), el("B", ";", "+"))


def test_t8_graph_operator():
    query = q("t8")
    assert query.graphs == (KB,)
    assert query.gpms[0].pattern == A.Join(P1, A.Graph(KB, bgp(("?h", "owner", "?o"))))
    assert query.select == (v("h"), v("p1"), v("o"))


def test_t9_window_of_ten_ticks():
    query = q("t9")
    assert query.window == 10 and query.select == (v("p1"), v("s"))


def test_t11_query_1_exact_ast():
    loc_fare = lambda s, fare: bgp((s, "loc", "?l"), (s, "fare", fare))
    a = A.Filter(cmp(">", "?fr1", 20), A.Join(loc_fare("?h", "?fr1"), A.Graph(KB, bgp(("?h", "owner", "?o")))))
    b = A.Filter(cmp(">=", "?s", 5), bgp(("?w", "loc", "?l"), ("?w", "wind", "?s")))
    c = A.Filter(cmp("<", "?fr2", "?fr1"), loc_fare("?x", "?fr2"))
    assert q("t11") == A.Query(None, 100, TSTREAMS, (KB,), (el("A"), el("B", ";", "+"), el("C", ",")),
                               (A.GPM("A", (PW,), a), A.GPM("B", (WT,), b), A.GPM("C", (ST,), c)))
    assert A.projection(q("t11")) == tuple(v(x) for x in sorted(["h", "l", "fr1", "o", "w", "s", "x", "fr2"]))


def test_r_queries_modifiers_and_operators():
    assert q("r1").seq == (el("A"), el("B", ","), el("C", ","))
    assert q("r2").seq == (el("A"), el("B", ";"), el("C", ";"))
    assert q("r3").seq == (el("A"), el("B", ";", "+"), el("C", ";"))
    assert q("r4").seq == (el("A"), el("B", ",", "!"), el("C", ","))
    assert q("r5").seq == (el("A"), el("B", ",", "?"), el("C", ","))
    assert q("r6").seq == (el("A"), el(A.Disj(ref("B"), ref("C")), ","), el("D", ","))
    assert q("r7").seq == (el("A"), el(A.Conj(ref("B"), ref("C")), ","), el("D", ","))
    assert q("r7").window == 10
    for name in ("r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8"):
        assert q(name).streams == (("S", MAIN),)


def test_r2_correlated_filter_and_projection():
    query = q("r2")
    assert query.select == (v("company"), v("vol1"))
    assert query.gpm("A").pattern == bgp(("?company", "price", "?p1"), ("?company", "volume", "?vol1"))
    assert query.gpm("C").pattern == A.Filter(cmp("=", "?p3", "?p1"), bgp(("?company3", "price", "?p3")))


def test_r8_background_graph_with_predicate_object_list():
    query = q("r8")
    assert query.graphs == (KB,)
    assert query.gpm("C").pattern == A.Filter(
        cmp("<", "?p3", "?p2"),
        A.Join(bgp(("?company", "price", "?p3")),
               A.Graph(KB, bgp(("?company", "name", "?n"), ("?company", "location", "?l")))))


# ------------------------------------------------------------------------------------------------ SEQ syntax
def seq_of(text: str, names: str = "ABCD") -> tuple[A.Element, ...]:
    defs = "".join(f"DEFINE GPM {n} ON S1 {{ ?x{n} :p ?y }}\n" for n in names)
    return parse(f"PREFIX : <{EX}>\nSELECT *\nWITHIN 5 SECONDS\nFROM STREAM S1 :pw\n"
                 f"WHERE SEQ ({text})\n{{\n{defs}}}\n").seq


def test_conjunction_binds_tighter_than_disjunction_and_both_fold_left():
    a, b, c, d = (ref(x) for x in "ABCD")
    assert seq_of("A | B & C | D") == (el(A.Disj(A.Disj(a, A.Conj(b, c)), d)),)
    assert seq_of("A & B & C") == (el(A.Conj(A.Conj(a, b), c)),)
    assert seq_of("A & (B | C)") == (el(A.Conj(a, A.Disj(b, c))),)
    assert seq_of("(A | B) & (C | D)") == (el(A.Conj(A.Disj(a, b), A.Disj(c, d))),)
    assert seq_of("((A))") == (el("A"),)


def test_modifiers_apply_to_a_whole_element():
    a, b = ref("A"), ref("B")
    assert seq_of("C, (A | B)+ ; D") == (el("C"), el(A.Disj(a, b), ",", "+"), el("D", ";"))
    assert seq_of("C: (A & B)?, D") == (el("C"), el(A.Conj(a, b), ":", "?"), el("D", ","))
    assert seq_of("C; (A | B)!") == (el("C"), el(A.Disj(a, b), ";", "!"))
    assert seq_of("A? ; B ; C!") == (el("A", None, "?"), el("B", ";"), el("C", ";", "!"))


@pytest.mark.parametrize("text,ticks", [("3 SECONDS", 3), ("1 second", 1), ("2 MINUTES", 120), ("1 Minute", 60),
                                        ("2 hours", 7200), ("1 HOUR", 3600)])
def test_window_units(text, ticks):
    query = parse(f"SELECT * WITHIN {text} FROM STREAM S <{EX}pw> WHERE SEQ (A) {{ DEFINE GPM A ON S {{ ?a ?b ?c }} }}")
    assert query.window == ticks


def test_keywords_are_case_insensitive_and_prefixes_and_base_resolve():
    query = parse(f"base <{EX}> prefix e: <sub/>\nselect $h within 1 second from stream S <pw> from <kb>\n"
                  "where seq (A) { define gpm A on S { ?h a e:C . GRAPH <kb> { $h e:x xsd:y } } }")
    assert query.streams == (("S", PW),) and query.graphs == (KB,)
    assert query.select == (v("h"),)
    assert query.gpms[0].pattern == A.Join(bgp(("?h", "a", u("sub/C"))),
                                           A.Graph(KB, bgp(("?h", u("sub/x"), URIRef(str(XSD) + "y")))))


def test_prefixed_names_that_start_like_keywords():
    query = parse("PREFIX filter: <http://f/> PREFIX a: <http://a/> PREFIX true: <http://t/> PREFIX \u00e9: <http://e/>\n"
                  "SELECT * WITHIN 1 SECOND FROM STREAM S <http://s/> WHERE SEQ (A) {\n"
                  "DEFINE GPM A ON S { ?h filter:x true. ?h a:b true:c . ?h a \u00e9:d FILTER (?h != filter:q) } }")
    assert query.gpms[0].pattern == A.Filter(
        A.Cmp("!=", var("h"), A.Const(URIRef("http://f/q"))),
        bgp(("?h", URIRef("http://f/x"), Literal("true", datatype=XSD.boolean)),
            ("?h", URIRef("http://a/b"), URIRef("http://t/c")), ("?h", "a", URIRef("http://e/d"))))


def test_the_first_parse_is_quick():
    # the keyword and name terminals avoid character classes up to \uFFFF, which Python's re compiles slowly
    import subprocess
    import sys
    code = ("import time; from ceplab.semantics.spaseq.parser import parse; t = time.perf_counter(); "
            f"parse(open({str(QUERIES / 't11.q')!r}).read()); print(time.perf_counter() - t)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert float(out.stdout) < 0.5, out.stdout           # was 0.7 s with \u00C0-\uFFFF classes


# ------------------------------------------------------------------------------------------------ algebra
def test_group_translation_joins_and_merges_adjacent_triples():
    # triples blocks separated only by FILTERs form one BGP; the filters of a group conjoin, in text order
    assert pattern("{ ?a :p ?b FILTER (?b > 1) ?b :q ?c . FILTER BOUND(?c) }") == A.Filter(
        A.And(cmp(">", "?b", 1), A.Bound(v("c"))), bgp(("?a", "p", "?b"), ("?b", "q", "?c")))
    # a nested group is its own element: Join(BGP, BGP); Join(Z, A) = A; {} is the empty BGP
    assert pattern("{ ?a :p ?b { ?b :q ?c } }") == A.Join(bgp(("?a", "p", "?b")), bgp(("?b", "q", "?c")))
    assert pattern("{ { { ?a :p ?b } } }") == bgp(("?a", "p", "?b"))
    assert pattern("{ ?a :p ?b {} }") == bgp(("?a", "p", "?b"))
    assert pattern("{ }") == A.BGP(())
    assert pattern("{ FILTER (1 < 2) }") == A.Filter(cmp("<", 1, 2), A.BGP(()))


def test_optional_takes_the_filter_of_its_own_group():
    assert pattern("{ ?a :p ?b OPTIONAL { ?b :q ?c FILTER (?c != ?b) } FILTER (!BOUND(?c)) }") == A.Filter(
        A.Not(A.Bound(v("c"))),
        A.LeftJoin(bgp(("?a", "p", "?b")), bgp(("?b", "q", "?c")), cmp("!=", "?c", "?b")))
    assert pattern("{ ?a :p ?b OPTIONAL { ?b :q ?c } }") == A.LeftJoin(bgp(("?a", "p", "?b")),
                                                                         bgp(("?b", "q", "?c")), None)
    assert pattern("{ OPTIONAL { ?b :q ?c } }") == A.LeftJoin(A.BGP(()), bgp(("?b", "q", "?c")), None)
    # two optionals fold left
    assert pattern("{ ?a :p ?b OPTIONAL { ?b :q ?c } OPTIONAL { ?b :r ?d } }") == A.LeftJoin(
        A.LeftJoin(bgp(("?a", "p", "?b")), bgp(("?b", "q", "?c"))), bgp(("?b", "r", "?d")))


def test_union_graph_and_predicate_object_lists():
    assert pattern("{ { ?a :p ?b } UNION { ?a :q ?b } UNION { ?a a :C } }") == A.Union_(
        A.Union_(bgp(("?a", "p", "?b")), bgp(("?a", "q", "?b"))), bgp(("?a", "a", "C")))
    assert pattern("{ ?a :p ?b, ?c ; :q ?d ; }") == bgp(("?a", "p", "?b"), ("?a", "p", "?c"), ("?a", "q", "?d"))
    assert pattern("{ GRAPH :kb { ?a :p ?b FILTER (?b = :x) } }") == A.Graph(
        KB, A.Filter(A.Cmp("=", var("b"), A.Const(u("x"))), bgp(("?a", "p", "?b"))))


def test_literals_keep_their_lexical_form_and_numbers_their_sign():
    p = pattern('{ ?a :p 14.0, -5, +7, 1.5E2, "x\\ty\\"z\\u00e9"@en-GB, "3"^^xsd:decimal, true, \'s\' }')
    objs = [tp.o for tp in p.triples]
    assert objs == [Literal("14.0", datatype=XSD.decimal), Literal("-5", datatype=XSD.integer),
                    Literal("7", datatype=XSD.integer), Literal("1.5E2", datatype=XSD.double),
                    Literal('x\ty"z\u00e9', lang="en-GB"), Literal("3", datatype=XSD.decimal),
                    Literal("true", datatype=XSD.boolean), Literal("s")]
    f = pattern("{ ?a :p ?b FILTER (?b = -5 || ?b = -(5) || ?b - 2 > ?a + -1) }").expr
    five = A.Const(Literal("-5", datatype=XSD.integer))
    assert f == A.Or(A.Or(A.Cmp("=", var("b"), five), A.Cmp("=", var("b"), A.Neg(integer(5)))),
                     A.Cmp(">", A.Arith("-", var("b"), integer(2)),
                           A.Arith("+", var("a"), A.Const(Literal("-1", datatype=XSD.integer)))))


def test_expression_precedence():
    f = pattern("{ ?a :p ?b FILTER (?a < 1 || ?a > 2 && !(?b = 3)) }").expr
    assert f == A.Or(cmp("<", "?a", 1), A.And(cmp(">", "?a", 2), A.Not(cmp("=", "?b", 3))))


# ------------------------------------------------------------------------------------------------ rejections
HEAD = f"PREFIX : <{EX}>\nSELECT ?p1\nWITHIN 100 SECONDS\nFROM STREAM S1 :pw\n"


def query_text(seq: str, *bodies: tuple[str, str], head: str = HEAD) -> str:
    defs = "".join(f"  DEFINE GPM {n} ON S1 {{ {b} }}\n" for n, b in bodies)
    return head + f"WHERE SEQ ({seq})\n{{\n{defs}}}\n"


A1 = ("A", "?h :price ?p1")
B1 = ("B", "?h :x ?y")
C1 = ("C", "?h :z ?w")

# (id, text, line, column, a fragment of the message); line 7 is the first DEFINE, columns count from 1; when a
# query breaks several rules, the error nearest the start of the text is reported
REJECTIONS = [
    ("star", query_text("A", ("A", "?h :price ?p1 FILTER (?p1 * 2 > 3)")), 7, 50, "'*'"),
    ("slash", query_text("A", ("A", "?h :price ?p1 FILTER (?p1 / 2 > 3)")), 7, 50, "'/'"),
    ("bare-term filter", query_text("A", ("A", "?h :price ?p1 FILTER (?p1)")), 7, 46, "must be a condition"),
    ("bare-constant filter", query_text("A", ("A", "?h :price ?p1 FILTER (true)")), 7, 46, "must be a condition"),
    ("arithmetic filter", query_text("A", ("A", "?h :price ?p1 FILTER (?p1 + 1)")), 7, 46, "must be a condition"),
    ("term under &&", query_text("A", ("A", "?h :price ?p1 FILTER (?p1 > 1 && ?p1)")), 7, 57, "'&&'"),
    ("condition as a value", query_text("A", ("A", "?h :price ?p1 FILTER ((?p1 > 1) = true)")), 7, 47,
     "takes values"),
    ("unary plus", query_text("A", ("A", "?h :price ?p1 FILTER (+?p1 > 1)")), 7, 46, "unary '+'"),
    ("blank node label", query_text("A", ("A", "_:b :price ?p1")), 7, 24, "blank nodes"),
    ("anonymous blank node", query_text("A", ("A", "?h :price []")), 7, 34, "blank nodes"),
    ("blank node property list", query_text("A", ("A", "?h :price [ :x ?p1 ]")), 7, 34, "blank node"),
    ("literal subject", query_text("A", ("A", '"s" :price ?p1')), 7, 24, "subject"),
    ("negated first element", query_text("A!, B", A1, B1), 5, 13, "first SEQ element"),
    ("adjacent ? and !", query_text("A, B?, C!", A1, B1, C1), 5, 20, "adjacent"),
    ("adjacent ! and !", query_text("A, B!, C!", A1, B1, C1), 5, 20, "adjacent"),
    ("all optional", query_text("A?", A1), 5, 7, "every SEQ element"),
    ("all optional or negated", query_text("A?, B!", A1, B1), 5, 7, "every SEQ element"),
    ("undefined GPM", query_text("A, X", A1), 5, 15, "no DEFINE GPM"),
    ("duplicate GPM", query_text("A", A1, ("A", "?h :x ?p1")), 8, 14, "defined twice"),
    ("GPM used twice", query_text("A, B, A", A1, B1), 5, 18, "used twice"),
    ("unknown ON alias", query_text("A", A1).replace("ON S1", "ON S2"), 7, 19, "no FROM STREAM declares"),
    ("alias listed twice in ON", query_text("A", A1).replace("ON S1", "ON S1, S1"), 7, 23, "twice"),
    ("undeclared GRAPH", query_text("A", ("A", "?h :price ?p1 GRAPH :kb { ?h :o ?o }")), 7, 44,
     "FROM <http://example.org/kb>"),
    ("WITHIN 0", query_text("A", A1).replace("WITHIN 100", "WITHIN 0"), 3, 8, "WITHIN 0"),
    ("fractional window", query_text("A", A1).replace("WITHIN 100", "WITHIN 2.5"), 3, 8, "whole number"),
    ("SELECT variable in no GPM", query_text("A", A1).replace("SELECT ?p1", "SELECT ?p1 ?q"), 2, 12, "?q"),
    ("SELECT variable of an unused GPM", query_text("A", A1, ("B", "?h :x ?q")).replace("SELECT ?p1",
                                                                                      "SELECT ?q"), 2, 8, "?q"),
    ("SELECT variable twice", query_text("A", A1).replace("SELECT ?p1", "SELECT ?p1 ?p1"), 2, 12, "twice"),
    ("alias declared twice", query_text("A", A1).replace("FROM STREAM S1 :pw\n",
                                                         "FROM STREAM S1 :pw\nFROM STREAM S1 :wt\n"), 5, 13,
     "declared twice"),
    ("stream declared twice", query_text("A", A1).replace("FROM STREAM S1 :pw\n",
                                                          "FROM STREAM S1 :pw\nFROM STREAM S2 :pw\n"), 5, 13,
     "declared twice"),
    ("no FROM STREAM", query_text("A", A1).replace("FROM STREAM S1 :pw", f"FROM <{EX}kb>"), 5, 1,
     "no FROM STREAM"),
    ("unknown prefix", query_text("A", ("A", "?h ex:price ?p1")), 7, 27, "unknown prefix 'ex:'"),
    ("bad escape", query_text("A", ("A", '?h :price "\\q"')), 7, 34, "escape"),
    ("escape beyond Unicode", query_text("A", ("A", '?h :price "\\U00110000"')), 7, 34, "scalar value"),
    ("short \\u escape", query_text("A", ("A", '?h :price "\\u12"')), 7, 34, "4 hexadecimal digits"),
    ("short \\U escape", query_text("A", ("A", 'FILTER ("\\U0001F6" = ?h) ?h :price ?p1')), 7, 32,
     "8 hexadecimal digits"),
    ("surrogate escape", query_text("A", ("A", '?h :price "\\uDC00"')), 7, 34, "scalar value"),
    ("two modifiers", query_text("A+?", A1), 5, 14, "at most one modifier"),
    ("modifier on a compound BOp", query_text("A | B+", A1, B1), 5, 17, "(A | B)+"),
    ("unsupported SPARQL keyword", query_text("A", ("A", "?h :price ?p1 BIND (1 AS ?x)")), 7, 38, "BIND"),
    ("CONSTRUCT", "CONSTRUCT { ?a ?b ?c }\nWHERE SEQ (A)", 1, 1, "SELECT only"),
    ("syntax error", query_text("A", ("A", "?h :price ?p1 . .")), 7, 40, "expected"),
    ("missing connector", query_text("A B", A1, B1), 5, 14, "expected"),
    ("end of input", query_text("A", A1)[:-3], 7, 39, "end of input"),
    ("empty text", "", 1, 1, "end of input"),
]


@pytest.mark.parametrize("text,line,column,fragment", [r[1:] for r in REJECTIONS], ids=[r[0] for r in REJECTIONS])
def test_rejection_is_located(text, line, column, fragment):
    with pytest.raises(ParseError) as ei:
        parse(text, file="q.q")
    e = ei.value
    assert (e.file, e.line, e.column) == ("q.q", line, column), str(e)
    assert fragment in e.message, str(e)


def test_nesting_limit_is_a_parse_error():
    deep = "(" * (MAX_DEPTH + 10) + "?p1 > 1" + ")" * (MAX_DEPTH + 10)
    with pytest.raises(ParseError, match="nests too deeply") as ei:
        parse(query_text("A", ("A", f"?h :price ?p1 FILTER {deep}")))
    assert ei.value.line == 7
    braces = "{" * (MAX_DEPTH + 10) + "?h :price ?p1" + "}" * (MAX_DEPTH + 10)
    with pytest.raises(ParseError, match="nests too deeply"):
        parse(query_text("A", ("A", braces)))
    # moderate nesting is fine
    ok = "(" * 40 + "?p1 > 1" + ")" * 40
    assert parse(query_text("A", ("A", f"?h :price ?p1 FILTER {ok}"))).gpms[0].pattern.expr == cmp(">", "?p1", 1)


def test_lone_surrogate_in_the_text_is_a_parse_error():
    with pytest.raises(ParseError, match="surrogate") as ei:
        parse(query_text("A", ("A", '?h :price "\ud800"')))
    assert (ei.value.line, ei.value.column) == (7, 35)


def test_parse_file_names_the_file(tmp_path):
    p = tmp_path / "bad.q"
    p.write_text(query_text("A!", A1), encoding="utf-8")
    with pytest.raises(ParseError) as ei:
        parse_file(p)
    assert ei.value.file == str(p) and ei.value.line == 5
    with pytest.raises(ParseError, match="cannot read"):
        parse_file(tmp_path / "absent.q")


# ------------------------------------------------------------------------------------------------ render
def test_render_escapes_literals_so_they_round_trip():
    body = '?h :p "q\\"uote back\\\\slash\\nnew\\rline\\ttab \\u00e9\\U0001F600 \\u0001" , "x"^^xsd:string , "y"@de'
    query = parse(query_text("A", ("A", "?h :price ?p1 . " + body)))
    text = render(query)
    assert text.isascii()
    assert parse(text) == query
    lits = [tp.o for tp in query.gpms[0].pattern.triples[1:]]
    assert str(lits[0]) == 'q"uote back\\slash\nnew\rline\ttab \u00e9\U0001F600 \u0001'
    assert lits[1].datatype == XSD.string and lits[2].language == "de"


def test_render_keeps_numbers_and_negation_apart():
    query = parse(query_text("A", ("A", "?h :price ?p1 . ?h :q 1.5E2, -3, 14.0 "
                                        "FILTER (?p1 > -(2) && ?p1 < -2 && - - 3 != ?p1)")))
    assert parse(render(query)) == query


def _value(r: random.Random, d: int) -> str:
    k = r.randrange(8 if d > 0 else 5)
    if k == 0:
        return r.choice(["?x", "$y", "?w"])
    if k == 1:
        return r.choice(["1", "-2", "+3", "1.50", "-.5", "1.5E2", "2e-3", "007"])
    if k == 2:
        return r.choice(['"a\\"b"', "'c\\\\d'", '"\\u00e9\\n"@fr', '"x"^^xsd:string', '"5"^^xsd:integer',
                         '"z"^^:dt', '"\\U0001F600"', '"abc"^^xsd:integer'])
    if k == 3:
        return r.choice([":a", f"<{EX}b>", "true", "false"])
    if k == 4:
        return "(" + _value(r, d) + ")"
    if k == 5:
        return _value(r, d - 1) + r.choice([" + ", " - "]) + _value(r, d - 1)
    if k == 6:
        return "-" + _value(r, d - 1)
    return "-(" + _value(r, d - 1) + ")"


def _cond(r: random.Random, d: int) -> str:
    k = r.randrange(6 if d > 0 else 2)
    if k == 0:
        return _value(r, d - 1) + r.choice([" = ", " != ", " < ", " <= ", " > ", " >= "]) + _value(r, d - 1)
    if k == 1:
        return r.choice(["BOUND(?x)", "BOUND($w)"])
    if k == 2:
        return _cond(r, d - 1) + " && " + _cond(r, d - 1)
    if k == 3:
        return _cond(r, d - 1) + " || " + _cond(r, d - 1)
    if k == 4:
        return "!(" + _cond(r, d - 1) + ")"
    return "(" + _cond(r, d - 1) + ")"


def _triples(r: random.Random) -> str:
    term = lambda pos: r.choice({"s": ["?x", ":s", "?w"], "p": ["?p", ":q", "a", f"<{EX}r>"],
                                 "o": ["?x", "?y", ":o", "12", '"lit"', "-3.5", '"é"@en-GB', "true"]}[pos])
    blocks = []
    for _ in range(r.randrange(1, 3)):
        props = " ; ".join(term("p") + " " + " , ".join(term("o") for _ in range(r.randrange(1, 3)))
                           for _ in range(r.randrange(1, 3)))
        blocks.append(term("s") + " " + props)
    return " . ".join(blocks) + " ."


def _group(r: random.Random, d: int) -> str:
    els = []
    for _ in range(r.randrange(0, 4)):
        k = r.randrange(6 if d > 0 else 2)
        if k == 0:
            els.append(_triples(r))
        elif k == 1:
            els.append("FILTER BOUND(?x)" if r.random() < .1 else "FILTER (" + _cond(r, 2) + ")")
        elif k == 2:
            els.append("OPTIONAL " + _group(r, d - 1))
        elif k == 3:
            els.append(_group(r, d - 1))
        elif k == 4:
            els.append(" UNION ".join(_group(r, d - 1) for _ in range(r.randrange(2, 4))))
        else:
            els.append("GRAPH :kb " + _group(r, d - 1))
    return "{ " + " ".join(els) + " }"


def _bop(r: random.Random, d: int) -> str:
    if d == 0 or r.random() < .4:
        return "G"
    inner = _bop(r, d - 1) + r.choice([" & ", " | "]) + _bop(r, d - 1)
    return "(" + inner + ")" if r.random() < .5 else inner


def _random_query(r: random.Random) -> str:
    elems = []
    mods = [None] + [r.choice(["", "", "", "+", "?", "!"]) for _ in range(r.randrange(0, 4))]
    mods[0] = r.choice(["", "+", "?"])
    for j, mod in enumerate(mods):
        if j and mod in ("?", "!") and mods[j - 1] in ("?", "!"):
            mod = ""
        e = _bop(r, 2)
        if mod and ("&" in e or "|" in e):
            e = "(" + e + ")"
        elems.append(e + mod)
    if all(e[-1] in "?!" for e in elems):
        elems[0] = elems[0][:-1]
    seq = elems[0] + "".join(r.choice([",", ";", ":"]) + " " + e for e in elems[1:])
    n = 0
    out = []
    for ch in seq:
        if ch == "G":
            n += 1
            out.append(f"G{n}")
        else:
            out.append(ch)
    defs = "\n".join(f"  DEFINE GPM G{i} ON {r.choice(['S1', 'S2', 'S1, S2'])} {_group(r, 3)}" for i in range(1, n + 1))
    return (f"PREFIX : <{EX}>\nSELECT *\nWITHIN {r.randrange(1, 5)} {r.choice(['SECONDS', 'minute', 'Hours'])}\n"
            f"FROM STREAM S1 :pw FROM STREAM S2 :wt FROM :kb\nWHERE SEQ ({''.join(out)})\n{{\n{defs}\n}}\n")


def test_render_round_trips_random_queries():
    r = random.Random(20240611)
    for _ in range(100):
        text = _random_query(r)
        query = parse(text)
        assert parse(render(query)) == query, text


# ------------------------------------------------------------------------------------------------ robustness
_INSERTS = list("{}()[].,;:?!+*/&|<>=-\"'\\#@^_$aA0 \n\t") + [
    "\u00e9", "SEQ", "FILTER", "OPTIONAL", "UNION", "GRAPH", "BOUND(", "_:b", "1e5", '"\\u0000"', "\\U0011FFFF",
    "^^xsd:integer", "WITHIN 0", "DEFINE GPM Z ON S1 { }", "FROM <x>", "\\u12", "\\U", "@en-", "$", "?x"]


def _mutants(seed: int, count: int):
    r = random.Random(seed)
    texts = [p.read_text(encoding="utf-8") for p in SAMPLES] + [_random_query(r) for _ in range(3)]
    for _ in range(count):
        text = r.choice(texts)
        for _ in range(r.choice([1, 1, 1, 2, 3])):
            k = r.randrange(len(text) + 1)
            op = r.randrange(3)
            if op == 0:
                text = text[:k] + text[k + 1:]                       # deletion
            elif op == 1:
                text = text[:k] + r.choice(_INSERTS) + text[k:]      # insertion
            else:
                j = min(len(text), k + r.randrange(1, 12))
                text = text[:j] + text[k:j] + text[j:]               # duplication
        yield text


def test_mutations_parse_or_raise_a_located_parse_error():
    parsed = rejected = 0
    for text in _mutants(7, 2500):
        try:
            query = parse(text)
        except ParseError as e:
            rejected += 1
            assert e.line is not None and e.column is not None, (text, str(e))
            continue
        parsed += 1
        assert parse(render(query)) == query, text
    assert parsed > 100 and rejected > 1000


def test_parse_is_fast():
    texts = [p.read_text(encoding="utf-8") for p in SAMPLES]
    parse(texts[0])                                  # builds the lark parser once
    t0 = time.perf_counter()
    for _ in range(5):
        for text in texts:
            parse(text)
    per_query = (time.perf_counter() - t0) / (5 * len(texts))
    assert per_query < 0.05, per_query
