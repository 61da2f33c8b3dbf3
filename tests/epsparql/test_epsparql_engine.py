"""The incremental EP-SPARQL engine (engine/epsparql): docs/semantics/epsparql.md's worked examples E1-E12 (epsparql.md section 5),
each semantic switch's discriminating example, the streaming contract (every result emitted once, at the close of
the tick it ends at; timewise monotonicity, docs/semantics/epsparql.md#epsparql-3.5 / #epsparql-P1), input validation, the non-stratified check, and a
hypothesis differential test engine == clingo oracle on small random query sets."""
from __future__ import annotations

import random
import time
from decimal import Decimal

import pytest
from hypothesis import assume, given, settings, strategies as st
from rdflib import XSD, Literal, Namespace, URIRef
from rdflib.term import BNode, Variable

from ceplab.asp.epsparql import oracle
from ceplab.semantics.errors import ModelError
from ceplab.asp.oracle import Limits, OracleResult
from ceplab.engine.epsparql import NonStratifiedError, evaluator
from ceplab.semantics.epsparql import ast as A
from ceplab.semantics.epsparql.options import PAPER_LITERAL, Options
from ceplab.semantics.epsparql.parser import parse
from ceplab.semantics.epsparql.results import Derived, Row, canonical_term, n3
from ceplab.semantics.epsparql.streams import Occurrence

EX = Namespace("http://ex.org/")


# ------------------------------------------------------------------------------------------------ helpers
def term(x):
    if isinstance(x, (Variable, URIRef, Literal, BNode)):
        return x
    if isinstance(x, bool):
        return Literal(x)
    if isinstance(x, int):
        return Literal(str(x), datatype=XSD.integer)
    if isinstance(x, Decimal):
        return canonical_term(Literal(str(x), datatype=XSD.decimal))
    if isinstance(x, str) and x.startswith("?"):
        return Variable(x[1:])
    return EX[x]


def T(s, p, o):
    return A.TriplePattern(term(s), term(p), term(o))


def bgp(*tps):
    return A.BGP(tuple(T(*t) for t in tps))


def V(name):
    return A.Var(Variable(name))


def C(x):
    return A.Const(term(x))


def dur(days):
    return A.Const(Literal(f"P{days}D", datatype=XSD.duration))


DURATION = A.TimeFn("DURATION")


def seq(*ps):
    acc = ps[0]
    for p in ps[1:]:
        acc = A.SeqJoin(acc, p)
    return acc


def conj(*es):
    acc = es[0]
    for e in es[1:]:
        acc = A.And(acc, e)
    return acc


def occ(s, p, o, t1, t2=None, pos=0):
    return Occurrence(canonical_term(term(s)), canonical_term(term(p)), canonical_term(term(o)), t1,
                      t1 if t2 is None else t2, pos)


def sel(where, *proj):
    return A.Select(tuple(Variable(v) for v in proj) if proj else None, where)


def qset(*qs):
    return A.QuerySet(tuple(qs))


def ordered(stream):
    return sorted(stream, key=lambda o: o.end)


def run(qs, stream, options=Options()):
    ev = evaluator(qs if isinstance(qs, A.QuerySet) else qset(qs), options)
    out = []
    for o in ordered(stream):
        out.extend(ev.push(o))
    out.extend(ev.close())
    assert len(out) == len(set(out)), "a result was emitted twice"
    return set(out)


def rows(results, query=0):
    """Rows of one SELECT as ({var: short name or python value}, start, end)."""
    out = set()
    for r in results:
        if isinstance(r, Row) and r.query == query:
            out.add((frozenset((k, short(v)) for k, v in r.mapping), r.start, r.end))
    return out


def short(n3text: str):
    if n3text.startswith("<http://ex.org/"):
        return n3text[len("<http://ex.org/"):-1]
    if n3text.endswith("XMLSchema#integer>"):
        return int(n3text.split('"')[1])
    return n3text


def R(start, end, **m):
    return (frozenset(m.items()), start, end)


def derived(results):
    return {(short(d.s), short(d.p), short(d.o), d.start, d.end) for d in results if isinstance(d, Derived)}


# ------------------------------------------------------------------------------------------------ E1-E12
def e1_query(rule13=False):
    p = [bgp(("?company", "hasStockPrice", f"?price{i}")) for i in (1, 2, 3)]
    factor = Decimal("0.5") if rule13 else Decimal("1.05")
    f = conj(A.Cmp("<", V("price2"), A.Arith("*", V("price1"), C(Decimal("0.7")))),
             A.Cmp(">", V("price3"), A.Arith("*", V("price1"), C(factor))),
             A.Cmp("<", DURATION, dur(30)))
    return sel(A.Filter(f, seq(*p)), "company")


E1_STREAM = [occ("ACME", "hasStockPrice", v, t) for v, t in ((100, 1), (60, 5), (70, 10), (110, 20), (120, 40))]


def test_e1_query1():
    assert rows(run(e1_query(), E1_STREAM)) == {R(1, 20, company="ACME")}


def test_e1_rule13_variant():
    assert rows(run(e1_query(rule13=True), E1_STREAM)) == {R(1, 20, company="ACME"), R(1, 10, company="ACME")}


def test_e1_decimal_boundary_is_exact():
    # 70 < 100 * 0.7 is false with exact decimals (a float 0.7 would make it depend on rounding)
    q = sel(A.Filter(A.Cmp("<", V("b"), A.Arith("*", V("a"), C(Decimal("0.7")))),
                     seq(bgp(("?c", "p", "?a")), bgp(("?c", "p", "?b")))), "a", "b")
    assert rows(run(q, [occ("s", "p", 100, 1), occ("s", "p", 70, 2)])) == set()
    assert rows(run(q, [occ("s", "p", 100, 1), occ("s", "p", 69, 2)])) == {R(1, 2, a=100, b=69)}


def e2_where():
    drop = A.SeqJoin(bgp(("?company", "hasStockPrice", "?price1")), bgp(("?company", "hasStockPrice", "?price2")))
    return A.Filter(A.Cmp("<", V("price2"), A.Arith("*", V("price1"), C(Decimal("0.5")))),
                    A.SeqRightJoin(bgp(("?company", "downratedby", "?ratingagency")), drop))


E2_STREAM = [occ("ACME", "downratedby", "Moodys", 2), occ("ACME", "hasStockPrice", 100, 3),
             occ("IBM", "hasStockPrice", 80, 4), occ("IBM", "downratedby", "SP", 5),
             occ("ACME", "hasStockPrice", 40, 6), occ("IBM", "hasStockPrice", 30, 7)]


def test_e2_query2_optionalseq():
    res = run(sel(e2_where()), E2_STREAM)
    assert rows(res) == {R(2, 6, company="ACME", ratingagency="Moodys", price1=100, price2=40),
                         R(4, 7, company="IBM", price1=80, price2=30)}
    res = run(sel(e2_where(), "company", "ratingagency"), E2_STREAM)
    assert rows(res) == {R(2, 6, company="ACME", ratingagency="Moodys"), R(4, 7, company="IBM")}


def e3_query(op=">"):
    inner = A.SeqRightJoin(bgp(("?company", "hasAcquired", "?othercompany")),
                           bgp(("?company", "hasStockPrice", "?price2")))
    f = conj(A.Cmp(op, V("price2"), A.Arith("*", V("price1"), C(Decimal("1.5")))),
             A.Not(A.Bound(Variable("othercompany"))), A.Cmp("<", DURATION, dur(15)))
    return sel(A.Filter(f, A.SeqJoin(bgp(("?company", "hasStockPrice", "?price1")), inner)), "company")


E3_STREAM = [occ("ACME", "hasStockPrice", 100, 1), occ("ACME", "hasStockPrice", 160, 5),
             occ("IBM", "hasStockPrice", 100, 1), occ("IBM", "hasAcquired", "Lotus", 3),
             occ("IBM", "hasStockPrice", 170, 6),
             occ("SAP", "hasAcquired", "Sybase", 0), occ("SAP", "hasStockPrice", 100, 2),
             occ("SAP", "hasStockPrice", 200, 8)]


def test_e3_query3_negation_by_optionalseq():
    assert rows(run(e3_query(), E3_STREAM)) == {R(1, 5, company="ACME")}
    assert rows(run(e3_query("<"), E3_STREAM)) == set()


def e4_queries():
    r1 = bgp(("?rating1", "rater", "?ratingagency"), ("?rating1", "rated", "?company"), ("?rating1", "score", "?score1"))
    r2 = bgp(("?rating2", "rater", "?ratingagency"), ("?rating2", "rated", "?company"), ("?rating2", "score", "?score2"))
    c = A.Construct((T("?company", "downratedby", "?ratingagency"),),
                    A.Filter(A.Cmp("<", V("score2"), V("score1")), A.SeqJoin(r1, r2)))
    return c, sel(e2_where(), "company", "ratingagency")


E4_STREAM = ([occ(r, p, o, t) for r, sc, t in (("r1", 5, 1), ("r2", 3, 4), ("r3", 4, 6))
              for p, o in (("rater", "Moodys"), ("rated", "ACME"), ("score", sc))]
             + [occ("ACME", "hasStockPrice", 100, 7), occ("ACME", "hasStockPrice", 40, 9)])


def test_e4_construct_feeds_query2():
    res = run(qset(*e4_queries()), E4_STREAM)
    assert derived(res) == {("ACME", "downratedby", "Moodys", 1, 4), ("ACME", "downratedby", "Moodys", 1, 6)}
    assert rows(res) == {R(1, 9, company="ACME", ratingagency="Moodys")}
    assert all(r.count is None for r in res if isinstance(r, Row))


def test_e4_output_bag():
    # both derived downratings give the same full solution (same mapping, same interval [1,9]): one full row
    res = run(qset(*e4_queries()), E4_STREAM, Options(output="bag"))
    assert {(r.start, r.end, r.count) for r in res if isinstance(r, Row)} == {(1, 9, 1)}
    # the bag discriminator: two full solutions projecting onto one row
    q = sel(bgp(("?x", "p", "?y")), "x")
    stream = [occ("a", "p", "b", 1), occ("a", "p", "c", 1)]
    assert {(r.mapping, r.count) for r in run(q, stream, Options(output="bag"))} == {((("x", n3(EX.a)),), 2)}
    assert {(r.mapping, r.count) for r in run(q, stream)} == {((("x", n3(EX.a)),), None)}


def e5_parts():
    a = bgp(("ACME", "hasStockPrice", "?prev"))
    b = bgp(("ACME", "hasStockPrice", "?price"))
    x = bgp(("ACME", "hasStockPrice", "?inbetween"))
    return A.SeqJoin(a, b), seq(a, x, b)


def e5_query(group_filter_as_f=False):
    left, right = e5_parts()
    nb = A.Not(A.Bound(Variable("inbetween")))
    if group_filter_as_f:
        return sel(A.EqLeftJoin(left, right, nb), "prev", "price")
    return sel(A.Filter(nb, A.EqLeftJoin(left, right)), "prev", "price")


def test_e5_equalsoptional_negation_idiom():
    s1 = [occ("ACME", "hasStockPrice", v, t) for v, t in ((10, 1), (20, 2), (30, 3))]
    assert rows(run(e5_query(), s1)) == {R(1, 2, prev=10, price=20), R(2, 3, prev=20, price=30)}
    s2 = [occ("ACME", "hasStockPrice", 10, t) for t in (1, 2, 3)]
    assert rows(run(e5_query(), s2)) == {R(1, 2, prev=10, price=10), R(2, 3, prev=10, price=10)}


def test_e5_optional_filter_reading():
    """The discriminator of docs/semantics/epsparql.md#epsparql-E5 / #epsparql-A8: the group FILTER taken as EqLeftJoin's F never blocks."""
    s1 = [occ("ACME", "hasStockPrice", v, t) for v, t in ((10, 1), (20, 2), (30, 3))]
    assert R(1, 3, prev=10, price=30) in rows(run(e5_query(group_filter_as_f=True), s1))
    # the switch (parse level, translate.apply_options): under "group" the group FILTER becomes F
    assert rows(run(e5_query(), s1, Options(optional_filter="group"))) == rows(run(e5_query(True), s1))


def test_e5_optional_filter_switch_via_parser():
    text = """PREFIX : <http://ex.org/>
SELECT ?prev ?price WHERE
{ { {:ACME :hasStockPrice ?prev} SEQ {:ACME :hasStockPrice ?price} }
  EQUALSOPTIONAL
  { {:ACME :hasStockPrice ?prev} SEQ {:ACME :hasStockPrice ?inbetween} SEQ {:ACME :hasStockPrice ?price} }
  FILTER (!BOUND(?inbetween)) }"""
    qs = parse(text)
    s1 = [occ("ACME", "hasStockPrice", v, t) for v, t in ((10, 1), (20, 2), (30, 3))]
    assert rows(run(qs, s1)) == {R(1, 2, prev=10, price=20), R(2, 3, prev=20, price=30)}
    assert R(1, 3, prev=10, price=30) in rows(run(qs, s1, Options(optional_filter="group")))


def e6_queryset():
    point = bgp(("?pt", "hasCount", "?prevcount"), ("?pt", "hasSum", "?prevsum"))
    price = bgp(("ACME", "hasStockPrice", "?price"))
    between = bgp(("ACME", "hasStockPrice", "?inbetween"))
    body = A.EqLeftJoin(A.SeqJoin(point, price), seq(point, between, price))
    f = A.Filter(conj(A.Not(A.Bound(Variable("inbetween"))), A.Cmp("<", DURATION, dur(10))), body)
    ext = A.Extend(A.Extend(f, Variable("count"), A.Arith("+", V("prevcount"), C(1))),
                   Variable("sum"), A.Arith("+", V("prevsum"), V("price")))
    where = A.Project((Variable("count"), Variable("sum")), ext)
    b = BNode("aaa")
    c = A.Construct((A.TriplePattern(b, EX.hasCount, Variable("count")),
                     A.TriplePattern(b, EX.hasSum, Variable("sum"))), where)
    return qset(c)


def test_e6_recursive_sliding_average():
    stream = [occ("p0", "hasCount", 0, 0), occ("p0", "hasSum", 0, 0)] + \
        [occ("ACME", "hasStockPrice", v, t) for v, t in ((10, 1), (20, 2), (30, 3), (40, 12))]
    res = run(e6_queryset(), stream)
    got = {(p, o, s, e) for _, p, o, s, e in derived(res)}
    assert got == {("hasCount", 1, 0, 1), ("hasSum", 10, 0, 1), ("hasCount", 2, 0, 2), ("hasSum", 30, 0, 2),
                   ("hasCount", 3, 0, 3), ("hasSum", 60, 0, 3)}
    # one Skolem subject per constructed point, shared by its two triples
    subj = {}
    for d in res:
        subj.setdefault((d.start, d.end), set()).add(d.s)
    assert all(len(v) == 1 for v in subj.values()) and len({next(iter(v)) for v in subj.values()}) == 3


def test_e8_optional_end():
    q = sel(A.LeftJoin(bgp(("?x", "p", "?y")), bgp(("?x", "q", "?z"))))
    stream = [occ("a", "p", "b", 5), occ("a", "q", "c", 5)]
    assert rows(run(q, stream)) == {R(5, 5, x="a", y="b", z="c")}
    assert rows(run(q, stream, Options(optional_end="strict"))) == {R(5, 5, x="a", y="b")}


def test_e8_lj_filter_interval():
    # F = getDURATION() < 2 on OPTIONAL: the mandatory interval [5,5] passes, the hull [1,5] does not
    q = sel(A.LeftJoin(bgp(("?x", "p", "?y")), bgp(("?x", "q", "?z")), A.Cmp("<", DURATION, C(2))))
    stream = [occ("a", "q", "c", 1), occ("a", "p", "b", 5)]
    assert rows(run(q, stream)) == {R(1, 5, x="a", y="b", z="c")}
    assert rows(run(q, stream, Options(lj_filter_interval="hull"))) == {R(5, 5, x="a", y="b")}


E9_STREAM = [occ("a", "p", "b", 1), occ("a", "q", "c", 1), occ("d", "p", "e", 1, 4), occ("d", "q", "f", 3, 6),
             occ("g", "p", "h", 2, 5), occ("g", "q", "i", 2, 5), occ("g", "q", "j", 2, 4)]


def test_e9_intervals():
    p, q = bgp(("?x", "p", "?y")), bgp(("?x", "q", "?z"))
    assert rows(run(sel(A.SeqJoin(p, q)), E9_STREAM)) == set()
    assert rows(run(sel(A.EqJoin(p, q)), E9_STREAM)) == {R(1, 1, x="a", y="b", z="c"), R(2, 5, x="g", y="h", z="i")}
    joined = {R(1, 1, x="a", y="b", z="c"), R(1, 6, x="d", y="e", z="f"), R(2, 5, x="g", y="h", z="i"),
              R(2, 5, x="g", y="h", z="j")}
    assert rows(run(sel(A.Join(p, q)), E9_STREAM)) == joined
    assert rows(run(sel(bgp(("?x", "p", "?y"), ("?x", "q", "?z"))), E9_STREAM)) == joined


def test_e10_bgp_mode():
    q = sel(bgp(("?x", "p", "?y"), ("?x", "p", "?z")))
    stream = [occ("a", "p", "b", 1), occ("a", "p", "b", 5)]
    assert rows(run(q, stream)) == {R(1, 1, x="a", y="b", z="b"), R(5, 5, x="a", y="b", z="b"),
                                    R(1, 5, x="a", y="b", z="b")}
    assert rows(run(q, stream, Options(bgp_mode="per_triple"))) == {R(1, 1, x="a", y="b", z="b"),
                                                                   R(5, 5, x="a", y="b", z="b")}


def test_e11_no_consumption():
    q = sel(A.SeqJoin(bgp(("?s", "p", "?x")), bgp(("?s", "q", "?y"))))
    stream = [occ("s", "p", "o1", 1), occ("s", "q", "o2", 2), occ("s", "q", "o3", 3)]
    assert rows(run(q, stream)) == {R(1, 2, s="s", x="o1", y="o2"), R(1, 3, s="s", x="o1", y="o3")}
    # ep_sparql_11: six prices 1,2,1,2,1,2 -> all 15 ordered pairs
    q2 = sel(A.SeqJoin(bgp(("?c", "hasStockPrice", "?p1")), bgp(("?c", "hasStockPrice", "?p2"))))
    s2 = [occ("company1", "hasStockPrice", 1 + (t % 2 == 0), t) for t in range(1, 7)]
    assert len(rows(run(q2, s2))) == 15


def test_e12_srj_filter_interval():
    q = sel(A.SeqRightJoin(bgp(("?c", "downratedby", "?r")), bgp(("?c", "hasStockPrice", "?p")),
                           A.Cmp("<", DURATION, C(5))))
    stream = [occ("ACME", "downratedby", "Moodys", 2), occ("ACME", "hasStockPrice", 50, 10)]
    assert rows(run(q, stream)) == {R(10, 10, c="ACME", p=50)}
    assert rows(run(q, stream, Options(srj_filter_interval="mandatory"))) == set()
    assert rows(run(q, stream, PAPER_LITERAL)) == set()
    # and the "both" case of docs/semantics/epsparql.md#epsparql-A7 with F = getDURATION() > 5
    q2 = sel(A.SeqRightJoin(bgp(("?c", "downratedby", "?r")), bgp(("?c", "hasStockPrice", "?p")),
                            A.Cmp(">", DURATION, C(5))))
    assert rows(run(q2, stream)) == {R(2, 10, c="ACME", r="Moodys", p=50)}
    assert rows(run(q2, stream, Options(srj_filter_interval="mandatory"))) == {R(2, 10, c="ACME", r="Moodys", p=50),
                                                                             R(10, 10, c="ACME", p=50)}


def test_e14_etalis_repository_tests():
    pair = A.SeqJoin(bgp(("?c", "hasStockPrice", "?p1")), bgp(("?c", "hasStockPrice", "?p2")))
    s = [occ("company1", "hasStockPrice", 1, 1), occ("company1", "hasStockPrice", 2, 2)]
    assert rows(run(sel(pair, "c"), s)) == {R(1, 2, c="company1")}
    assert rows(run(sel(A.Filter(A.Cmp("<", V("p1"), V("p2")), pair), "c"), s)) == {R(1, 2, c="company1")}
    c3 = A.Construct((T("?c", "hasPricePairMin", "?p1"),), pair)
    assert derived(run(qset(c3), s)) == {("company1", "hasPricePairMin", 1, 1, 2)}
    c5 = A.Construct((T("?c", "hasPrice", "?p1"),), bgp(("?c", "hasStockPrice", "?p1")))
    assert derived(run(qset(c5), s)) == {("company1", "hasPrice", 1, 1, 1), ("company1", "hasPrice", 2, 2, 2)}
    assert rows(run(sel(bgp(("?c", "hasStockPrice", "?p1")), "c", "p1"), s)) == {R(1, 1, c="company1", p1=1),
                                                                                   R(2, 2, c="company1", p1=2)}


# ------------------------------------------------------------------------------------------------ other switches
def test_construct_unbound():
    where = A.LeftJoin(bgp(("?x", "p", "?y")), bgp(("?x", "q", "?z")))
    c = A.Construct((T("?x", "r", "?y"), T("?x", "s", "?z")), where)
    stream = [occ("a", "p", "b", 1)]
    assert derived(run(qset(c), stream)) == set()
    assert derived(run(qset(c), stream, Options(construct_unbound="drop_triple"))) == {("a", "r", "b", 1, 1)}


def test_filter_errors():
    # !(?z > 1) with ?z unbound: an error under SPARQL (row dropped), true under error_is_false
    q = sel(A.Filter(A.Not(A.Cmp(">", V("z"), C(1))), A.LeftJoin(bgp(("?x", "p", "?y")), bgp(("?x", "q", "?z")))))
    stream = [occ("a", "p", "b", 1)]
    assert rows(run(q, stream)) == set()
    assert rows(run(q, stream, Options(filter_errors="error_is_false"))) == {R(1, 1, x="a", y="b")}
    # error || true = true
    q2 = sel(A.Filter(A.Or(A.Cmp(">", V("z"), C(1)), A.Cmp("=", V("x"), C("a"))),
                      A.LeftJoin(bgp(("?x", "p", "?y")), bgp(("?x", "q", "?z")))))
    assert rows(run(q2, stream)) == {R(1, 1, x="a", y="b")}


def test_tick_seconds():
    q = sel(A.Filter(A.Cmp("<", DURATION, dur(1)), A.SeqJoin(bgp(("?c", "p", "?a")), bgp(("?c", "p", "?b")))))
    stream = [occ("s", "p", 1, 0), occ("s", "p", 2, 5)]
    assert rows(run(q, stream)) == set()                                  # 5 ticks = 5 days >= P1D
    assert rows(run(q, stream, Options(tick_seconds=3600))) == {R(0, 5, c="s", a=1, b=2)}   # 5 h < P1D
    with pytest.raises(ValueError):
        evaluator(qset(sel(A.Filter(A.Cmp("<", DURATION, A.Const(Literal("P1M", datatype=XSD.duration))),
                                    bgp(("?c", "p", "?a"))))))


def test_extend_and_project():
    q = sel(A.Extend(bgp(("?c", "p", "?a")), Variable("h"), A.Arith("/", V("a"), C(2))), "h")
    res = rows(run(q, [occ("s", "p", 3, 1), occ("s", "p", 1, 2)]))
    assert {dict(m)["h"] for m, _, _ in res} == {n3(Literal("1.5", datatype=XSD.decimal)),
                                                  n3(Literal("0.5", datatype=XSD.decimal))}
    q3 = sel(A.Extend(bgp(("?c", "p", "?a")), Variable("h"), A.Arith("/", V("a"), C(3))), "h")
    assert rows(run(q3, [occ("s", "p", 1, 1)])) == {R(1, 1)}            # 1/3 is no xsd:decimal: unbound


# ------------------------------------------------------------------------------------------------ contract
def test_out_of_order_rejected():
    ev = evaluator(qset(sel(bgp(("?x", "p", "?y")))))
    ev.push(occ("a", "p", "b", 5))
    with pytest.raises(ValueError):
        ev.push(occ("a", "p", "c", 3))
    with pytest.raises(ValueError):
        evaluator(qset(sel(bgp(("?x", "p", "?y"))))).push(occ("a", "p", "b", 5, 4))


def test_emission_at_tick_close():
    q = sel(A.EqLeftJoin(bgp(("?x", "p", "?y")), bgp(("?x", "q", "?z"))))
    ev = evaluator(qset(q))
    assert ev.push(occ("a", "p", "b", 1)) == []
    assert ev.push(occ("a", "q", "c", 1)) == []          # same tick: it turns the row into a joined one
    out = ev.push(occ("a", "p", "d", 2))                 # closes tick 1
    assert rows(out) == {R(1, 1, x="a", y="b", z="c")}
    assert rows(ev.close()) == {R(2, 2, x="a", y="d")}
    assert isinstance(ev.path, str) and ev.stats()["occurrences"] == 3


def test_non_stratified_recursion_is_rejected():
    where = A.Filter(A.Not(A.Bound(Variable("w"))), A.EqLeftJoin(bgp(("?x", "p", "?y")), bgp(("?x", "q", "?w"))))
    c = A.Construct((T("?x", "q", "?x"),), where)
    with pytest.raises(NonStratifiedError):
        run(qset(c), [occ("a", "p", "b", 1)])


def test_shared_subpatterns_and_self_join():
    p = bgp(("?x", "p", "?y"))
    stream = [occ("a", "p", "b", 1), occ("a", "p", "c", 2)]
    assert rows(run(sel(A.Join(p, p)), stream)) == {R(1, 1, x="a", y="b"), R(2, 2, x="a", y="c")}
    assert rows(run(sel(A.SeqJoin(p, p)), stream)) == set()
    two = qset(sel(p), sel(A.SeqJoin(p, bgp(("?x", "p", "?z")))))
    res = run(two, stream)
    assert rows(res, 0) == {R(1, 1, x="a", y="b"), R(2, 2, x="a", y="c")}
    assert rows(res, 1) == {R(1, 2, x="a", y="b", z="c")}


# ------------------------------------------------------------------------------------------------ random cases
SUBJ = ["a", "b", "c"]
PRED = ["p", "q", "r"]
VARS = ["x", "y", "z", "w"]


@st.composite
def triple_patterns(draw):
    s = draw(st.sampled_from(["?x", "?x", "?y"] + SUBJ[:1]))
    p = draw(st.sampled_from(PRED))
    o = draw(st.sampled_from(["?y", "?z", "?w", 0, 1]))
    return T(s, p, o)


@st.composite
def exprs(draw, depth=2):
    kind = draw(st.sampled_from(["cmp", "dur", "time", "bound"] + (["and", "or", "not"] if depth > 0 else [])))
    if kind == "cmp":
        return A.Cmp(draw(st.sampled_from(["<", "<=", "=", "!=", ">"])), V(draw(st.sampled_from(VARS))),
                     draw(st.sampled_from([C(0), C(1), C(2), C(Decimal("1.5")), V(draw(st.sampled_from(VARS)))])))
    if kind == "dur":
        return A.Cmp(draw(st.sampled_from(["<", "<=", ">", "="])), DURATION, C(draw(st.integers(0, 4))))
    if kind == "time":
        return A.Cmp(draw(st.sampled_from(["<", ">="])), A.TimeFn(draw(st.sampled_from(["STARTTIME", "ENDTIME"]))),
                     C(draw(st.integers(0, 8))))
    if kind == "bound":
        return A.Bound(Variable(draw(st.sampled_from(VARS))))
    if kind == "not":
        return A.Not(draw(exprs(depth - 1)))
    l, r = draw(exprs(depth - 1)), draw(exprs(depth - 1))
    return A.And(l, r) if kind == "and" else A.Or(l, r)


@st.composite
def patterns(draw, depth=3):
    if depth == 0 or draw(st.integers(0, 2)) == 0:
        n = draw(st.integers(1, 2))
        return A.BGP(tuple(draw(triple_patterns()) for _ in range(n)))
    op = draw(st.sampled_from(["Join", "Union_", "LeftJoin", "SeqJoin", "EqJoin", "SeqRightJoin", "EqLeftJoin",
                               "Filter", "Filter", "Extend", "Project"]))
    if op == "Filter":
        return A.Filter(draw(exprs()), draw(patterns(depth - 1)))
    if op in ("Extend", "Project"):
        inner = draw(patterns(depth - 1))
        vs = sorted(A.pattern_vars(inner), key=str)
        if op == "Project":
            return A.Project(tuple(draw(st.lists(st.sampled_from(vs), max_size=3, unique=True))) if vs else (),
                             inner)
        fresh = Variable(f"e{depth}")
        assume(fresh not in vs)
        e = draw(st.sampled_from([A.Arith("+", V(str(vs[0]) if vs else "x"), C(1)),
                                  A.Arith("/", V(str(vs[-1]) if vs else "x"), C(2)), DURATION,
                                  A.Cmp("<", V(str(vs[0]) if vs else "x"), C(1))]))
        return A.Extend(inner, fresh, e)
    l, r = draw(patterns(depth - 1)), draw(patterns(depth - 1))
    if op in ("LeftJoin", "SeqRightJoin", "EqLeftJoin"):
        f = draw(st.one_of(st.none(), exprs(1)))
        return getattr(A, op)(l, r, f)
    return getattr(A, op)(l, r)


@st.composite
def streams(draw):
    n = draw(st.integers(0, 12))
    out = []
    for i in range(n):
        t = draw(st.integers(0, 8))
        k = draw(st.sampled_from([0, 0, 0, 1, 2]))
        out.append(occ(draw(st.sampled_from(SUBJ)), draw(st.sampled_from(PRED)), draw(st.integers(0, 2)),
                       t, min(8, t + k), i))
    return ordered(out)


@st.composite
def querysets(draw):
    qs = [sel(draw(patterns()))]
    if draw(st.integers(0, 3)) == 0:
        # a CONSTRUCT rule deriving `?x r ?y` or `?x q ?y` (may be recursive, also through optional operators)
        where = draw(patterns(2))
        vs = sorted(A.pattern_vars(where), key=str)
        subj = [v for v in vs if str(v) in ("x", "y")] or [EX.a]
        pred = draw(st.sampled_from([EX.r, EX.r, EX.q]))
        tmpl = (A.TriplePattern(draw(st.sampled_from(subj)), pred, draw(st.sampled_from(vs or [EX.b]))),)
        qs.insert(0, A.Construct(tmpl, where))
    return qset(*qs)


OPTION_SETS = [Options(), PAPER_LITERAL, Options(bgp_mode="per_triple", output="bag"),
               Options(lj_filter_interval="hull", filter_errors="error_is_false", construct_unbound="drop_triple")]


def _engine(qs, stream, options):
    return run(qs, stream, options)


@given(querysets(), streams(), st.sampled_from(OPTION_SETS))
def test_streaming_contract(qs, stream, options):
    """Every result once; the results emitted by the time tick T closes are exactly the full results with end
    <= T; and they equal the results on the stream cut at T (prefix locality, P1)."""
    try:
        full = _engine(qs, stream, options)
    except NonStratifiedError:
        assume(False)
    ev = evaluator(qs, options)
    emitted: list = []
    for o in stream:
        got = ev.push(o)
        assert all(r.end < o.end for r in got)
        emitted.extend(got)
        assert set(emitted) == {r for r in full if r.end < o.end}
    emitted.extend(ev.close())
    assert len(emitted) == len(set(emitted)) and set(emitted) == full
    if stream:
        cut = stream[len(stream) // 2].end
        assert _engine(qs, [o for o in stream if o.end <= cut], options) == {r for r in full if r.end <= cut}


@settings(max_examples=60)
@given(querysets(), streams(), st.sampled_from(OPTION_SETS))
def test_differential_engine_equals_oracle(qs, stream, options):
    try:
        want = oracle(qs, stream, options, Limits(time_s=20))
    except ModelError:
        with pytest.raises(NonStratifiedError):
            _engine(qs, stream, options)
        return
    assume(isinstance(want, OracleResult))
    got = _engine(qs, stream, options)
    assert got == set(want.results)


# ------------------------------------------------------------------------------------------------ throughput
def seq_chain_throughput(n=20_000, subjects=50, seed=1):
    """Triples/s of ``{?c :p ?x} SEQ {?c :p ?y} SEQ {?c :p ?z} FILTER(getDURATION() < 10)`` over ``n`` random
    occurrences (``subjects`` subjects, about two occurrences per tick)."""
    rnd = random.Random(seed)
    q = sel(A.Filter(A.Cmp("<", DURATION, C(10)),
                     seq(bgp(("?c", "p", "?x")), bgp(("?c", "p", "?y")), bgp(("?c", "p", "?z")))))
    subs = [EX[f"s{i}"] for i in range(subjects)]
    lits = [Literal(str(i), datatype=XSD.integer) for i in range(100)]
    stream = [Occurrence(rnd.choice(subs), EX.p, rnd.choice(lits), i // 2, i // 2, i) for i in range(n)]
    ev = evaluator(qset(q))
    t0 = time.perf_counter()
    count = 0
    for o in stream:
        count += len(ev.push(o))
    count += len(ev.close())
    dt = time.perf_counter() - t0
    return n / dt, count, ev.stats()


def test_throughput_smoke():
    rate, count, stats = seq_chain_throughput(n=4000)
    assert count > 0 and rate > 2000


# ------------------------------------------------------------------------------------------------ vs the oracle
def _worked_examples():
    e6_stream = [occ("p0", "hasCount", 0, 0), occ("p0", "hasSum", 0, 0)] + \
        [occ("ACME", "hasStockPrice", v, t) for v, t in ((10, 1), (20, 2), (30, 3), (40, 12))]
    e5 = [occ("ACME", "hasStockPrice", v, t) for v, t in ((10, 1), (20, 2), (30, 3))]
    lj = sel(A.LeftJoin(bgp(("?x", "p", "?y")), bgp(("?x", "q", "?z"))))
    e8 = [occ("a", "p", "b", 5), occ("a", "q", "c", 5)]
    srj = sel(A.SeqRightJoin(bgp(("?c", "downratedby", "?r")), bgp(("?c", "hasStockPrice", "?p")),
                             A.Cmp("<", DURATION, C(5))))
    e12 = [occ("ACME", "downratedby", "Moodys", 2), occ("ACME", "hasStockPrice", 50, 10)]
    e10 = sel(bgp(("?x", "p", "?y"), ("?x", "p", "?z")))
    return [
        ("E1", qset(e1_query()), E1_STREAM, Options()),
        ("E2", qset(sel(e2_where())), E2_STREAM, Options()),
        ("E3", qset(e3_query()), E3_STREAM, Options()),
        ("E4", qset(*e4_queries()), E4_STREAM, Options()),
        ("E4-bag", qset(*e4_queries()), E4_STREAM, Options(output="bag")),
        ("E5", qset(e5_query()), e5, Options()),
        ("E5-group", qset(e5_query()), e5, Options(optional_filter="group")),
        ("E6", e6_queryset(), e6_stream, Options()),
        ("E8", qset(lj), e8, Options()),
        ("E8-strict", qset(lj), e8, Options(optional_end="strict")),
        ("E9", qset(sel(A.Join(bgp(("?x", "p", "?y")), bgp(("?x", "q", "?z"))))), E9_STREAM, Options()),
        ("E10", qset(e10), [occ("a", "p", "b", 1), occ("a", "p", "b", 5)], Options()),
        ("E10-per-triple", qset(e10), [occ("a", "p", "b", 1), occ("a", "p", "b", 5)],
         Options(bgp_mode="per_triple")),
        ("E12", qset(srj), e12, Options()),
        ("E12-literal", qset(srj), e12, PAPER_LITERAL),
    ]


@pytest.mark.parametrize("name,qs,stream,options", _worked_examples(), ids=lambda x: x if isinstance(x, str) else "")
def test_worked_examples_agree_with_oracle(name, qs, stream, options):
    want = oracle(qs, ordered(stream), options)
    assert run(qs, stream, options) == set(want.results)


def test_non_stratified_agrees_with_oracle():
    where = A.Filter(A.Not(A.Bound(Variable("w"))), A.EqLeftJoin(bgp(("?x", "p", "?y")), bgp(("?x", "q", "?w"))))
    qs = qset(A.Construct((T("?x", "q", "?x"),), where))
    with pytest.raises(ModelError):
        oracle(qs, [occ("a", "p", "b", 1)])
