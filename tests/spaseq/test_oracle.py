"""The SPAseq clingo oracle (asp/spaseq.py) on the worked examples of docs/semantics/spaseq.md#spaseq-5
(T1-T11, the authors' repository tests R1-R8), every semantic switch, FILTER semantics, terms and limits.

Queries are built directly as AST objects (a small builder below), streams as GraphEvent lists; every test
asserts the exact expected set of matches, derived by hand from the reference semantics
(docs/semantics/spaseq.md#spaseq-3.8).
"""
from __future__ import annotations

import random
from decimal import Decimal

import pytest
from rdflib import XSD, Literal, URIRef, Variable
from rdflib.term import Node

from ceplab.asp.oracle import Limits, OracleResult, Undecided
from ceplab.asp.spaseq import numeric_value, oracle
from ceplab.semantics.errors import UnsupportedError
from ceplab.semantics.rdfstream import GraphEvent
from ceplab.semantics.spaseq import ast as A
from ceplab.semantics.spaseq.options import Options
from ceplab.semantics.spaseq.results import Match, term
from ceplab.semantics.spaseq.streams import Background

EX = "http://ex.org/"
FAST = Limits(time_s=60, isolate=False)


# ------------------------------------------------------------------------------------------------ builder
def I(x: str) -> URIRef:  # noqa: E743
    """An IRI in the example namespace."""
    return URIRef(EX + x)


def node(x):
    """``"?v"`` -> Variable, ``":x"`` -> IRI, a Python int/float/str -> Literal, anything else as is."""
    if isinstance(x, Node):
        return x
    if isinstance(x, str) and x.startswith("?"):
        return Variable(x[1:])
    if isinstance(x, str) and x.startswith(":"):
        return I(x[1:])
    if isinstance(x, (int, float, str)):
        return Literal(x)
    return x


def bgp(*triples) -> A.BGP:
    return A.BGP(tuple(A.TriplePattern(node(s), node(p), node(o)) for s, p, o in triples))


def v(name: str) -> A.Var:
    return A.Var(Variable(name))


def c(x) -> A.Const:
    return A.Const(node(x))


def _operand(e):
    if isinstance(e, (A.Var, A.Const, A.Arith, A.Neg)):
        return e
    return v(e[1:]) if isinstance(e, str) and e.startswith("?") else c(e)


def cmp(op: str, a, b) -> A.Cmp:
    """``a op b``; operands: expressions, ``"?v"`` variables, or constants as for :func:`node`."""
    return A.Cmp(op, _operand(a), _operand(b))


def gpm(name: str, streams, pattern, flt=None) -> A.GPM:
    if isinstance(pattern, tuple):
        pattern = bgp(*pattern)
    if flt is not None:
        pattern = A.Filter(flt, pattern)
    ss = (streams,) if isinstance(streams, str) else tuple(streams)
    return A.GPM(name, tuple(I(s) for s in ss), pattern)


def el(expr, connector=None, modifier=None) -> A.Element:
    return A.Element(A.GPMRef(expr) if isinstance(expr, str) else expr, connector, modifier)


def query(seq, gpms, window=100, select=None, streams=("pw", "wt", "st"), graphs=()) -> A.Query:
    sel = None if select is None else tuple(Variable(s) for s in select)
    return A.Query(sel, window, tuple((s, I(s)) for s in streams), tuple(I(g) for g in graphs), tuple(seq),
                   tuple(gpms))


def events(*specs) -> list[GraphEvent]:
    """``(stream, time, [(s, p, o), ...])`` per event, in file order."""
    return [GraphEvent([tuple(node(x) for x in t) for t in triples], time, I(stream), pos)
            for pos, (stream, time, triples) in enumerate(specs)]


def run(q, evs, options=Options(), background=None) -> frozenset[Match]:
    out = oracle(q, evs, options, FAST, background)
    assert isinstance(out, OracleResult), out
    return out.results


def M(window, evs, **mapping) -> Match:
    """A match: ``evs`` as ``[(stream, time), ...]``, mapping values as terms or Python values."""
    return Match(window, tuple((EX + s, t) for s, t in evs),
                 tuple(sorted((k, term(node(x))) for k, x in mapping.items())))


# Common vocabulary of docs/semantics/spaseq.md#spaseq-5
P1 = ("?h", ":price", "?p1")
P2 = (("?w", ":wind", "?s"),)
P2F = cmp(">=", "?s", 5)


def power(t, h, p):
    return ("pw", t, [(f":{h}", ":price", p)])


def weather(t, w, s):
    return ("wt", t, [(f":{w}", ":wind", s)])


def pw_wt(conn, window=100, **kw):
    return query([el("A"), el("B", conn)], [gpm("A", "pw", (P1,)), gpm("B", "wt", P2, P2F)], window, **kw)


# ------------------------------------------------------------------------------------------------ T1-T11
def test_t1_gpm_window():
    q = query([el("A")], [gpm("A", "pw", (P1,))], window=10)
    evs = events(power(5, "h1", 25), power(10, "h1", 30), power(20, "h2", 28))
    o = Options(origin=5)
    # [5,15] holds P5 and P10; P20 only lies in the next window [15,25]
    assert run(q, evs, o) == {M(0, [("pw", 5)], h=":h1", p1=25), M(0, [("pw", 10)], h=":h1", p1=30),
                              M(1, [("pw", 20)], h=":h2", p1=28)}
    # variant: P15 lies on the boundary of the closed windows [5,15] and [15,25]: in both
    evs2 = events(power(5, "h1", 25), power(10, "h1", 30), power(15, "h3", 1), power(20, "h2", 28))
    got = run(q, evs2, o)
    assert {m for m in got if m.window == 0} == {M(0, [("pw", 5)], h=":h1", p1=25),
                                                 M(0, [("pw", 10)], h=":h1", p1=30),
                                                 M(0, [("pw", 15)], h=":h3", p1=1)}
    assert M(1, [("pw", 15)], h=":h3", p1=1) in got


T2_EVENTS = events(power(5, "h1", 25), power(10, "h1", 30), weather(10, "w1", 7), weather(15, "w1", 9))


def test_t2_conjunction():
    q = query([el(A.Conj(A.GPMRef("A"), A.GPMRef("B")))], [gpm("A", "pw", (P1,)), gpm("B", "wt", P2, P2F)],
              window=10)
    assert run(q, T2_EVENTS, Options(origin=5)) == {
        M(0, [("pw", 10), ("wt", 10)], h=":h1", p1=30, w=":w1", s=7)}


def test_t3_disjunction_union_and_first_match():
    q = query([el(A.Disj(A.GPMRef("A"), A.GPMRef("B")))], [gpm("A", "pw", (P1,)), gpm("B", "wt", P2, P2F)],
              window=10)
    p5, p10 = M(0, [("pw", 5)], h=":h1", p1=25), M(0, [("pw", 10)], h=":h1", p1=30)
    w10, w15 = M(0, [("wt", 10)], w=":w1", s=7), M(0, [("wt", 15)], w=":w1", s=9)
    w15b = M(1, [("wt", 15)], w=":w1", s=9)  # 15 closes [5,15] and opens [15,25]
    assert run(q, T2_EVENTS, Options(origin=5)) == {p5, p10, w10, w15, w15b}  # two pairs at 10
    # first_match: at 10 the left alternative has an instance, so the right one's does not count
    assert run(q, T2_EVENTS, Options(origin=5, disjunction="first_match")) == {p5, p10, w15, w15b}


T4_EVENTS = events(power(1, "h1", 25), power(2, "h2", 27), weather(3, "w1", 7), weather(4, "w2", 8))


def _t4(p, w):
    hp = {1: ("h1", 25), 2: ("h2", 27)}[p]
    ws = {3: ("w1", 7), 4: ("w2", 8)}[w]
    return M(0, [("pw", p), ("wt", w)], h=f":{hp[0]}", p1=hp[1], w=f":{ws[0]}", s=ws[1])


def test_t4_skip_till_any():
    assert run(pw_wt(":", 10), T4_EVENTS) == {_t4(1, 3), _t4(1, 4), _t4(2, 3), _t4(2, 4)}


def test_t5_skip_till_next():
    assert run(pw_wt(";", 10), T4_EVENTS) == {_t4(1, 3), _t4(2, 3)}


def test_t6_strict_contiguity_and_metamorphic_variant():
    assert run(pw_wt(",", 10), T4_EVENTS) == {_t4(2, 3)}
    # times x10 and an event of the declared stream :st at 25: (P2,W3) is no longer contiguous;
    # skip-till-any and skip-till-next do not change
    scaled = events(power(10, "h1", 25), power(20, "h2", 27), ("st", 25, [(":x", ":fare", 3)]),
                    weather(30, "w1", 7), weather(40, "w2", 8))

    def sc(m):
        return Match(m.window, tuple((s, t * 10) for s, t in m.events), m.mapping)

    assert run(pw_wt(",", 100), scaled) == set()
    assert run(pw_wt(";", 100), scaled) == {sc(_t4(1, 3)), sc(_t4(2, 3))}
    assert run(pw_wt(":", 100), scaled) == {sc(m) for m in (_t4(1, 3), _t4(1, 4), _t4(2, 3), _t4(2, 4))}


T7_EVENTS = events(power(1, "h1", 25), weather(3, "w1", 7), weather(4, "w2", 8), weather(5, "w3", 2))


def _t7(conn="; "):
    q = query([el("A"), el("B", conn.strip(), "+")], [gpm("A", "pw", (P1,)), gpm("B", "wt", P2, P2F)], 10)
    return q


def test_t7_kleene_plus():
    a = dict(h=":h1", p1=25)
    w3, w4 = dict(w=":w1", s=7), dict(w=":w2", s=8)
    want = {M(0, [("pw", 1), ("wt", 3)], **a, **w3),
            M(0, [("pw", 1), ("wt", 3), ("wt", 4)], **a, **w3),   # the group {W3, W4}: one row each
            M(0, [("pw", 1), ("wt", 3), ("wt", 4)], **a, **w4)}
    assert run(_t7(";"), T7_EVENTS) == want
    # the all-SC form gives the same on this input (P1, W3, W4 are contiguous)
    assert run(_t7(","), T7_EVENTS) == want
    # adding P2 doubles it under ';'
    more = T7_EVENTS + [GraphEvent([(I("h2"), I("price"), Literal(27))], 2, I("pw"), 4)]
    got = run(_t7(";"), more)
    assert len({m.events for m in got}) == 4 and len(got) == 6
    # an event at 3.5 (times x10): breaks the length-2 chain under ',' (it is in U), not under ';'
    x10 = events(power(10, "h1", 25), weather(30, "w1", 7), ("st", 35, [(":x", ":fare", 1)]),
                 weather(40, "w2", 8), weather(50, "w3", 2))
    q10 = {c_: query([el("A"), el("B", c_, "+")], [gpm("A", "pw", (P1,)), gpm("B", "wt", P2, P2F)], 100)
           for c_ in ",;"}
    assert run(q10[","], x10) == {M(0, [("pw", 10), ("wt", 30)], **a, **w3)}
    assert run(q10[";"], x10) == {Match(0, tuple((s, t * 10) for s, t in m.events), m.mapping) for m in want}


def test_t8_graph_operator():
    kb = Background({I("kb"): [(I("h1"), I("owner"), Literal("alice")), (I("h2"), I("owner"), Literal("bob"))]})
    pat = A.Join(bgp(P1), A.Graph(I("kb"), bgp(("?h", ":owner", "?o"))))
    q = query([el("A")], [gpm("A", "pw", pat)], 10, graphs=("kb",))
    evs = events(power(1, "h1", 25), power(2, "h3", 30))  # h3 is not in the KB: dropped
    assert run(q, evs, background=kb) == {M(0, [("pw", 1)], h=":h1", p1=25, o="alice")}
    assert run(q, evs) == set()  # D(kb) is empty without background


def test_graph_ground_size_does_not_grow_with_the_background_per_event():
    """The background side of a GPM joined with its event side is grounded per row of the event side
    (docs/semantics/spaseq.md#spaseq-9.3): padding the background with 4,000 triples no event reaches adds the same
    few atoms per triple (its facts) at 60 and at 240 events, not atoms per event and triple (the whole-graph
    grounding exceeded 3 million atoms at 40 events with 2,058 triples)."""
    from ceplab.workbench.langs.spaseq import bench as BE

    q = BE.parse_workload("MULTI", 10)
    added = len(BE.background(2000).graph(BE.EX.kb)) - len(BE.background(0).graph(BE.EX.kb))
    extra, results = [], []
    for n in (60, 240):
        evs = BE.workload_events("MULTI", n)
        outs = [oracle(q, evs, Options(), FAST, BE.background(pad)) for pad in (0, 2000)]
        assert all(isinstance(o, OracleResult) for o in outs)
        assert outs[0].results == outs[1].results  # the padding matches nothing
        results.append(len(outs[0].results))
        extra.append(outs[1].stats.atoms - outs[0].stats.atoms)
    assert results[0] > 0 and results[1] > results[0]
    assert extra[1] == extra[0] and 0 < extra[0] < 8 * added


T9_EVENTS = events(power(2, "h1", 25), weather(7, "w1", 6), power(8, "h1", 31), weather(12, "w2", 9),
                   power(14, "h2", 40), weather(18, "w3", 5))


def test_t9_tumbling_and_anchored():
    q = pw_wt(";", 10, select=("p1", "s"))
    assert run(q, T9_EVENTS) == {M(0, [("pw", 2), ("wt", 7)], p1=25, s=6),
                                 M(1, [("pw", 14), ("wt", 18)], p1=40, s=5)}
    assert run(q, T9_EVENTS, Options(window="anchored")) == {
        M(None, [("pw", 2), ("wt", 7)], p1=25, s=6), M(None, [("pw", 8), ("wt", 12)], p1=31, s=9),
        M(None, [("pw", 14), ("wt", 18)], p1=40, s=5)}


@pytest.mark.parametrize("conn,pairs", [(",", []), (";", [(1, 4), (2, 4)]),
                                        (":", [(1, 4), (1, 5), (2, 4), (2, 5)])])
def test_t10_strategies_on_one_stream(conn, pairs):
    evs = events(*[("s", t, [(f":{k}{t}", ":type", f":{k.upper()}")]) for t, k in
                   [(1, "a"), (2, "a"), (3, "d"), (4, "b"), (5, "b")]])
    q = query([el("A"), el("B", conn)], [gpm("A", "s", (("?x", ":type", ":A"),)),
                                         gpm("B", "s", (("?y", ":type", ":B"),))], 100, streams=("s",))
    assert run(q, evs) == {M(0, [("s", a), ("s", b)], x=f":a{a}", y=f":b{b}") for a, b in pairs}


def _t11(options=Options()):
    kb = Background({I("kb"): [(I("h1"), I("owner"), Literal("alice"))]})
    pa = A.Filter(cmp(">", "?fr1", 20), A.Join(bgp(("?h", ":loc", "?l"), ("?h", ":fare", "?fr1")),
                                               A.Graph(I("kb"), bgp(("?h", ":owner", "?o")))))
    g = [gpm("A", "pw", pa),
         gpm("B", "wt", (("?w", ":loc", "?l"), ("?w", ":wind", "?s")), cmp(">=", "?s", 5)),
         gpm("C", "st", (("?x", ":loc", "?l"), ("?x", ":fare", "?fr2")), cmp("<", "?fr2", "?fr1"))]
    q = query([el("A"), el("B", ";", "+"), el("C", ",")], g, 10, graphs=("kb",))
    evs = events(("pw", 1, [(":h1", ":loc", ":L1"), (":h1", ":fare", 30)]),
                 ("wt", 2, [(":w1", ":loc", ":L1"), (":w1", ":wind", 6)]),
                 ("wt", 3, [(":w2", ":loc", ":L2"), (":w2", ":wind", 9)]),
                 ("wt", 4, [(":w3", ":loc", ":L1"), (":w3", ":wind", 7)]),
                 ("st", 5, [(":x1", ":loc", ":L1"), (":x1", ":fare", 22)]))
    return run(q, evs, options, kb)


def test_t11_query1():
    base = dict(h=":h1", l=":L1", fr1=30, o="alice", x=":x1", fr2=22)
    wit = [("pw", 1), ("wt", 2), ("wt", 4), ("st", 5)]
    assert _t11() == {M(0, wit, **base, w=":w1", s=6), M(0, wit, **base, w=":w3", s=7)}


def test_relevance_standalone_differs_on_t11():
    # standalone, W3 (another location) is relevant for B: the chain cannot skip it, and the chain
    # [W2] is not followed contiguously by S5
    assert _t11(Options(relevance="standalone")) == set()


def test_relevance_standalone_makes_a_correlated_filter_irrelevant():
    # B's filter needs ?p1 from the context: standalone it is an error, so no instance is relevant
    # and skip-till-next lets every later contextual instance through
    q = query([el("A"), el("B", ";")], [gpm("A", "pw", (P1,)),
                                        gpm("B", "pw", (("?h2", ":price", "?p2"),), cmp("<", "?p2", "?p1"))],
              100, select=("p1", "p2"))
    evs = events(power(1, "e", 14), power(2, "e", 10), power(3, "e", 9))
    ctx = {M(0, [("pw", 1), ("pw", 2)], p1=14, p2=10), M(0, [("pw", 2), ("pw", 3)], p1=10, p2=9)}
    assert run(q, evs) == ctx
    assert run(q, evs, Options(relevance="standalone")) == ctx | {M(0, [("pw", 1), ("pw", 3)], p1=14, p2=9)}


# ------------------------------------------------------------------------------------------------ R1-R8
def market(*prices, times=None, vol=None):
    """One stream :main, events of 2 triples (volume, price) with xsd:double values, times 1, 2, ..."""
    times = times or list(range(1, len(prices) + 1))
    vols = vol or [65.61] + [10.0 * (i + 2) for i in range(len(prices) - 1)]
    return events(*[("main", t, [(":eBay", ":volume", Literal(vv)), (":eBay", ":price", Literal(float(p)))])
                    for t, p, vv in zip(times, prices, vols)])


def mq(seq, gpms, select=None, window=1000):
    return query(seq, gpms, window, select, streams=("main",))


def pg(name, i, flt=None, extra=()):
    """GPM ``name`` on :main with its own subject variable ?company{i} and price ?p{i}."""
    return gpm(name, "main", ((f"?company{i}", ":price", f"?p{i}"),) + tuple(extra), flt)


def d(x):
    return Literal(float(x))


def test_r1_strict():
    q = mq([el("A"), el("B", ","), el("C", ",")], [pg("A", 1), pg("B", 2, cmp("<", "?p2", "?p1")), pg("C", 3)],
           select=("p1", "p2", "p3"))
    assert run(q, market(14, 12, 14)) == {M(0, [("main", 1), ("main", 2), ("main", 3)],
                                             p1=d(14), p2=d(12), p3=d(14))}


def test_r2_skip_till_next():
    a = gpm("A", "main", (("?company", ":volume", "?vol1"), ("?company", ":price", "?p1")))
    q = mq([el("A"), el("B", ";"), el("C", ";")],
           [a, pg("B", 2, cmp("<", "?p2", "?p1")), pg("C", 3, cmp("=", "?p3", "?p1"))], select=("company", "vol1"))
    assert run(q, market(14, 16, 12, 14)) == {M(0, [("main", 1), ("main", 3), ("main", 4)],
                                                 company=":eBay", vol1=d(65.61))}


def test_r3_kleene():
    q = mq([el("A"), el("B", ";", "+"), el("C", ";")],
           [pg("A", 1), pg("B", 2, cmp("<", "?p2", "?p1")), pg("C", 3, cmp("=", "?p3", 16))],
           select=("p1", "p2", "p3"))

    def m(ev, p1, p2):
        return M(0, [("main", t) for t in ev], p1=d(p1), p2=d(p2), p3=d(16))

    assert run(q, market(14, 88, 11, 10, 16)) == {
        m([1, 3, 5], 14, 11), m([1, 3, 4, 5], 14, 11), m([1, 3, 4, 5], 14, 10),
        m([2, 3, 5], 88, 11), m([2, 3, 4, 5], 88, 11), m([2, 3, 4, 5], 88, 10),
        m([3, 4, 5], 11, 10)}


def test_r4_negation_both_readings():
    q = mq([el("A"), el("B", ",", "!"), el("C", ",")],
           [pg("A", 1), pg("B", 2, cmp("<", "?p2", "?p1")), pg("C", 3, cmp("=", "?p3", 16))],
           select=("p1", "p3"))
    evs = market(14, 88, 16)
    assert run(q, evs) == {M(0, [("main", 2), ("main", 3)], p1=d(88), p3=d(16))}
    assert run(q, evs, Options(negation="through_next")) == set()


def test_negation_last_element_until_window_end():
    # A followed by no B (p2 < p1) until the end of the window
    q = mq([el("A"), el("B", ";", "!")], [pg("A", 1), pg("B", 2, cmp("<", "?p2", "?p1"))], select=("p1",),
           window=10)
    evs = market(14, 20, 13, 30, times=[1, 2, 10, 11])
    # window [0,10] (closed): A=1 sees 13 < 14 at 10; A=2 (20) too; A=10 (13) has nothing after it in
    # [0,10], and in [10,20] the 30 at 11 is no lower; A=11 (30) has nothing after it
    want = {M(0, [("main", 10)], p1=d(13)), M(1, [("main", 10)], p1=d(13)), M(1, [("main", 11)], p1=d(30))}
    assert run(q, evs) == want
    # half-open windows: 10 opens [10,20), so A=2 sees nothing lower in [0,10)
    assert run(q, evs, Options(window="tumbling_halfopen")) == {
        M(0, [("main", 1)], p1=d(14)), M(0, [("main", 2)], p1=d(20)), M(1, [("main", 10)], p1=d(13)),
        M(1, [("main", 11)], p1=d(30))}
    # anchored: A=1 looks until 11, A=2 until 12 (both see 13), A=10 sees nothing lower up to 20
    assert run(q, evs, Options(window="anchored")) == {M(None, [("main", 10)], p1=d(13)),
                                                       M(None, [("main", 11)], p1=d(30))}


def test_r5_optional():
    q = mq([el("A"), el("B", ",", "?"), el("C", ",")],
           [pg("A", 1), pg("B", 2, cmp("<", "?p2", "?p1")), pg("C", 3, cmp("=", "?p3", 16))],
           select=("p1", "p2", "p3"))
    assert run(q, market(14, 10, 16)) == {
        M(0, [("main", 1), ("main", 2), ("main", 3)], p1=d(14), p2=d(10), p3=d(16)),
        M(0, [("main", 2), ("main", 3)], p1=d(10), p3=d(16))}


def test_r6_disjunction():
    q = mq([el("A"), el(A.Disj(A.GPMRef("B"), A.GPMRef("C")), ","), el("D", ",")],
           [pg("A", 1), pg("B", 2, cmp("<", "?p2", "?p1")), pg("C", 3, cmp("=", "?p3", 16)),
            pg("D", 4, cmp(">", "?p4", "?p1"))], select=("company1", "p1", "p2", "p3", "p4"))
    assert run(q, market(14, 12, 18)) == {M(0, [("main", 1), ("main", 2), ("main", 3)], company1=":eBay",
                                             p1=d(14), p2=d(12), p4=d(18))}


def test_r7_conjunction_on_two_streams():
    # the repository's R7 puts two events on one stream at 15 (Definition 2 forbids it): here the
    # second one is on its own stream :main2
    q = query([el("A"), el(A.Conj(A.GPMRef("B"), A.GPMRef("C")), ","), el("D", ",")],
              [pg("A", 1), pg("B", 2, cmp("<", "?p2", "?p1")),
               gpm("C", "main2", (("?company3", ":price", "?p3"),), cmp(">", "?p3", "?p1")),
               pg("D", 4, cmp("=", "?p4", 16))], 10, ("p1", "p2", "p3", "p4"), streams=("main", "main2"))
    evs = events(("main", 10, [(":eBay", ":price", d(14))]), ("main", 15, [(":eBay", ":price", d(12))]),
                 ("main2", 15, [(":eBay", ":price", d(18))]), ("main", 20, [(":eBay", ":price", d(16))]))
    assert run(q, evs) == {M(1, [("main", 10), ("main", 15), ("main2", 15), ("main", 20)],
                             p1=d(14), p2=d(12), p3=d(18), p4=d(16))}


def test_r8_background():
    kb = Background({I("kb"): [(I("eBay"), I("name"), Literal("ebay")), (I("eBay"), I("location"), Literal("usa"))]})
    c3 = A.Filter(cmp("<", "?p3", "?p2"),
                  A.Join(bgp(("?company", ":price", "?p3")),
                         A.Graph(I("kb"), bgp(("?company", ":name", "?n"), ("?company", ":location", "?l")))))
    q = mq([el("A"), el("B", ","), el("C", ",")],
           [gpm("A", "main", (("?company", ":price", "?p1"),)),
            gpm("B", "main", (("?company", ":price", "?p2"),), cmp("<", "?p2", "?p1")), gpm("C", "main", c3)])
    q = A.Query(q.select, q.window, q.streams, (I("kb"),), q.seq, q.gpms)
    assert run(q, market(14, 12, 11), background=kb) == {
        M(0, [("main", 1), ("main", 2), ("main", 3)], company=":eBay", p1=d(14), p2=d(12), p3=d(11),
          n="ebay", l="usa")}


# ------------------------------------------------------------------------------------------------ switches
def _contiguity_case():
    q = query([el("A"), el("B", ",")], [gpm("A", "pw", (P1,)), gpm("B", "wt", P2, P2F)], 100,
              streams=("pw", "wt"))  # :st is not declared
    evs = events(power(1, "h1", 25), power(2, "h2", 27), ("st", 3, [(":x", ":fare", 1)]), weather(4, "w1", 7))
    return q, evs


@pytest.mark.parametrize("contiguity,starts", [("declared", [2]), ("streamset", []), ("stream", [1, 2])])
def test_contiguity_scope(contiguity, starts):
    q, evs = _contiguity_case()
    hp = {1: ("h1", 25), 2: ("h2", 27)}
    assert run(q, evs, Options(contiguity=contiguity)) == {
        M(0, [("pw", t), ("wt", 4)], h=f":{hp[t][0]}", p1=hp[t][1], w=":w1", s=7) for t in starts}


@pytest.mark.parametrize("kleene_iter,chains", [
    ("same", [[3], [4], [5], [3, 4], [3, 5], [4, 5], [3, 4, 5]]),
    ("stn", [[3], [4], [5], [3, 4], [4, 5], [3, 4, 5]])])
def test_kleene_iteration_connector(kleene_iter, chains):
    q = query([el("A"), el("B", ":", "+")], [gpm("A", "pw", (P1,)), gpm("B", "wt", P2, P2F)], 100,
              select=("p1",))
    evs = events(power(1, "h1", 25), weather(3, "w1", 7), weather(4, "w2", 8), weather(5, "w3", 9))
    assert run(q, evs, Options(kleene_iter=kleene_iter)) == {
        M(0, [("pw", 1)] + [("wt", t) for t in ch], p1=25) for ch in chains}


def test_kleene_first_element_iterates_skip_till_next():
    q = query([el("B", None, "+")], [gpm("B", "wt", P2, P2F)], 100, select=("s",))
    evs = events(weather(1, "w1", 7), weather(2, "w2", 1), weather(3, "w3", 8))
    got = {m.events for m in run(q, evs)}
    wt = EX + "wt"
    assert got == {((wt, 1),), ((wt, 3),), ((wt, 1), (wt, 3))}


@pytest.mark.parametrize("window,want", [("tumbling_closed", [0]), ("tumbling_halfopen", []),
                                         ("anchored", [None])])
def test_window_boundary(window, want):
    evs = events(power(5, "h1", 25), weather(10, "w1", 7))
    assert run(pw_wt(";", 10, select=("p1", "s")), evs, Options(window=window)) == {
        M(w, [("pw", 5), ("wt", 10)], p1=25, s=7) for w in want}


def test_origin_shifts_windows_and_drops_earlier_events():
    evs = events(power(2, "h1", 20), power(5, "h1", 25), weather(12, "w1", 7))
    q = pw_wt(";", 10, select=("p1", "s"))
    assert run(q, evs) == set()  # windows [0,10], [10,20]: both pairs cross 10
    assert run(q, evs, Options(origin=3)) == {M(0, [("pw", 5), ("wt", 12)], p1=25, s=7)}  # [3,13]


def test_engine_options_are_ignored():
    q = pw_wt(";", 10)
    o = Options(engine_push_window=False, engine_push_stateful=False, engine_stream_index=False,
                engine_lazy_conjunction=False, engine_disjunction_order="written")
    assert run(q, T9_EVENTS, o) == run(q, T9_EVENTS)


def test_optional_first_element():
    q = query([el("A", None, "?"), el("B", ";")], [gpm("A", "pw", (P1,)), gpm("B", "wt", P2, P2F)], 100,
              select=("p1", "s"))
    evs = events(power(1, "h1", 25), weather(2, "w1", 7))
    assert run(q, evs) == {M(0, [("pw", 1), ("wt", 2)], p1=25, s=7), M(0, [("wt", 2)], s=7)}


def test_optional_and_union_inside_a_gpm_are_correlated():
    # B: { ?w :wind ?s OPTIONAL { ?w :gust ?g FILTER(?g > ?p1) } }: ?p1 comes from A's context
    pb = A.LeftJoin(bgp(("?w", ":wind", "?s")), bgp(("?w", ":gust", "?g")), cmp(">", "?g", "?p1"))
    q = query([el("A"), el("B", ";")], [gpm("A", "pw", (P1,)), gpm("B", "wt", pb)], 100, select=("p1", "g"))
    evs = events(power(1, "h1", 10), power(2, "h2", 30), ("wt", 3, [(":w1", ":wind", 7), (":w1", ":gust", 20)]))
    assert run(q, evs) == {M(0, [("pw", 1), ("wt", 3)], p1=10, g=20), M(0, [("pw", 2), ("wt", 3)], p1=30)}
    # UNION: the left branch binds ?p1 only through the context (substitution), the right one not at all
    pu = A.Union_(bgp(("?w", ":wind", "?p1")), bgp(("?w", ":wind", "?s")))
    q2 = query([el("A"), el("B", ";")], [gpm("A", "pw", (P1,)), gpm("B", "wt", pu)], 100, select=("p1", "s"))
    evs2 = events(power(1, "h1", 7), power(2, "h2", 8), weather(3, "w1", 7))
    assert run(q2, evs2) == {M(0, [("pw", 1), ("wt", 3)], p1=7), M(0, [("pw", 1), ("wt", 3)], p1=7, s=7),
                             M(0, [("pw", 2), ("wt", 3)], p1=8, s=7)}


def test_conjunction_on_one_stream_uses_one_event():
    q = query([el(A.Conj(A.GPMRef("A"), A.GPMRef("B")))],
              [gpm("A", "pw", (P1,)), gpm("B", "pw", (("?h", ":price", "?q"),), cmp(">", "?q", 20))], 10)
    evs = events(power(1, "h1", 25), power(2, "h2", 5))
    assert run(q, evs) == {M(0, [("pw", 1), ("pw", 1)], h=":h1", p1=25, q=25)}


# ------------------------------------------------------------------------------------------------ FILTER
def _filter(flt, *objs, extra=()):
    """SEQ(A) with A = { ?x :v ?v [extra] FILTER(flt) } on one event per object; the ?v values kept."""
    q = query([el("A")], [gpm("A", "pw", (("?x", ":v", "?v"),) + tuple(extra), flt)], 100, select=("v",))
    evs = events(*[("pw", t, [(":x", ":v", o)]) for t, o in enumerate(objs, start=1)])
    return {dict(m.mapping).get("v") for m in run(q, evs)}


def test_filter_numeric_by_value_across_types():
    i14, d14, dbl, dec = Literal(14), Literal("14.0", datatype=XSD.double), Literal("1.5E2", datatype=XSD.double), \
        Literal("14.50", datatype=XSD.decimal)
    assert _filter(cmp("=", "?v", Literal("14.0", datatype=XSD.decimal)), i14, d14, dbl, dec) == {term(i14),
                                                                                                   term(d14)}
    assert _filter(cmp("<", "?v", Literal("14.5", datatype=XSD.float)), i14, d14, dbl, dec) == {term(i14),
                                                                                                 term(d14)}
    assert _filter(cmp(">=", "?v", 150), i14, dbl, dec) == {term(dbl)}
    assert _filter(cmp("=", "?v", Literal("14.5")), dec) == set()  # a string is no number: error
    ill = Literal("abc", datatype=XSD.integer)
    assert _filter(cmp(">", "?v", 3), ill, i14) == {term(i14)}  # an ill-typed number: error
    assert numeric_value(Literal("300", datatype=XSD.byte)) is None
    assert numeric_value(Literal("1.5E2", datatype=XSD.double)) == Decimal(150)


def test_filter_arithmetic():
    i14, dec = Literal(14), Literal("0.25", datatype=XSD.decimal)
    assert _filter(cmp("=", A.Arith("+", v("v"), c(1)), 15), i14, dec) == {term(i14)}
    assert _filter(cmp("<", A.Neg(v("v")), 0), i14, dec, Literal("s")) == {term(i14), term(dec)}
    assert _filter(cmp("=", A.Arith("-", v("v"), c(Literal("0.05", datatype=XSD.decimal))),
                       Literal("0.2", datatype=XSD.decimal)), i14, dec) == {term(dec)}


def test_filter_string_order_by_code_points():
    objs = [Literal("a"), Literal("Z"), Literal("é"), Literal("b", datatype=XSD.string), Literal("a", lang="en")]
    assert _filter(cmp("<", "?v", "b"), *objs) == {term(Literal("a")), term(Literal("Z"))}
    assert _filter(cmp(">", "?v", "b"), *objs) == {term(Literal("é"))}
    assert _filter(cmp("=", "?v", "b"), *objs) == {term(Literal("b"))}
    # a language-tagged literal is not a simple literal: ordering it is an error, = is identity
    assert _filter(cmp("=", "?v", Literal("a", lang="en")), *objs) == {term(Literal("a", lang="en"))}


def test_filter_equality_of_other_terms():
    objs = [I("a"), Literal("a"), Literal(14)]
    assert _filter(cmp("=", "?v", ":a"), *objs) == {term(I("a"))}
    assert _filter(cmp("!=", "?v", ":a"), *objs) == {term(Literal("a")), term(Literal(14))}  # IRI vs literal: false
    # two different literals of different kinds: an error for = and for !=
    assert _filter(cmp("!=", "?v", Literal("x", lang="en")), *objs) == {term(I("a"))}


def test_filter_errors_three_valued():
    # ?nope is a variable of the pattern (in another GPM-less position): unbound here
    def f(flt):
        return _filter(flt, Literal(14), Literal(15), extra=())

    nope = cmp("<", "?nope", 3)
    q_vars = A.Filter(nope, bgp(("?x", ":v", "?v")))
    assert "nope" in {str(x) for x in A.pattern_vars(q_vars)}
    i14, i15 = term(Literal(14)), term(Literal(15))
    assert f(nope) == set()                                          # unbound: error
    assert f(A.Not(nope)) == set()                                   # !err = err
    assert f(A.Not(A.Bound(Variable("nope")))) == {i14, i15}         # BOUND never errs
    assert f(A.Bound(Variable("v"))) == {i14, i15}
    assert f(A.Or(nope, cmp("=", "?v", 14))) == {i14}                # err || true = true
    assert f(A.Or(nope, cmp("=", "?v", 99))) == set()                # err || false = err
    assert f(A.Not(A.And(nope, cmp("=", "?v", 14)))) == {i15}         # err && false = false
    assert f(A.And(nope, cmp("=", "?v", 14))) == set()


def test_filter_effective_boolean_value_of_a_value_operand():
    objs = [Literal(0), Literal(3), Literal(""), Literal("x"), Literal(True), Literal("false", datatype=XSD.boolean),
            I("a")]
    got = _filter(A.And(v("v"), A.Bound(Variable("v"))), *objs)
    assert got == {term(Literal(3)), term(Literal("x")), term(Literal(True))}


# ------------------------------------------------------------------------------------------------ terms, limits
def test_terms_round_trip_unchanged():
    iri = URIRef("http://ex.org/é/ü%20x#:-.\nz")
    lit = Literal('q"uo\\te\nline é ✓ % . :- #', lang="fr")
    q = query([el("A")], [gpm("A", "pw", (("?x", ":p", "?y"),))], 10)
    evs = events(("pw", 1, [(iri, ":p", lit)]))
    assert run(q, evs) == {Match(0, ((EX + "pw", 1),), (("x", term(iri)), ("y", term(lit))))}


def test_literals_with_nul_keep_their_order():
    objs = [Literal("a\x00b"), Literal("a"), Literal("a\x01")]
    assert _filter(cmp("<", "?v", Literal("a\x00c")), *objs) == {term(Literal("a\x00b")), term(Literal("a"))}


def test_no_events_and_no_variables():
    q = query([el("A"), el("B", ";")], [gpm("A", "pw", ((":h1", ":price", 25),)), gpm("B", "wt", ((":w1", ":wind", 7),))],
              10)
    assert run(q, []) == set()
    assert run(q, T4_EVENTS) == {M(0, [("pw", 1), ("wt", 3)])}


def test_undecided_on_a_tiny_time_limit():
    rnd = random.Random(3)
    evs = [GraphEvent([(I("e"), I("price"), Literal(rnd.randint(1, 50)))], t, I("pw"), t) for t in range(3000)]
    q = query([el("A"), el("B", ":")], [gpm("A", "pw", (("?a", ":price", "?p1"),)),
                                        gpm("B", "pw", (("?b", ":price", "?p2"),), cmp("<", "?p2", "?p1"))], 1000)
    out = oracle(q, evs, limits=Limits(time_s=0.2))
    assert isinstance(out, Undecided)


def test_unsupported_inputs():
    with pytest.raises(UnsupportedError):
        oracle(query([el("A")], [gpm("A", "pw", (P1,))]),
               events(("pw", 1, [(":h", ":price", Literal("INF", datatype=XSD.double))])), limits=FAST)
    with pytest.raises(UnsupportedError):  # a negated first element (the parser rejects it)
        oracle(query([el("B", None, "!"), el("A", ";")], [gpm("A", "pw", (P1,)), gpm("B", "wt", P2)]), [],
               limits=FAST)
    huge = Literal("1E-30", datatype=XSD.double)
    with pytest.raises(UnsupportedError):
        oracle(query([el("A")], [gpm("A", "pw", (P1,))]), events(("pw", 1, [(":h", ":price", huge)]),
                                                                 ("pw", 2, [(":h", ":price", Literal(5))])),
               limits=FAST)
    with pytest.raises(UnsupportedError):  # epoch milliseconds do not fit clingo's integers
        oracle(query([el("A")], [gpm("A", "pw", (P1,))]), events(power(1_700_000_000_000, "h", 1)), limits=FAST)


# ------------------------------------------------------------------------------------------------ grounding
@pytest.mark.parametrize("length", [6, 12, 40])
def test_one_shot_and_staged_grounding_agree(monkeypatch, length):
    """Short streams are ground in one call, long ones in stages (docs/semantics/spaseq.md#spaseq-9.4): both are
    the same program, so on the fuzz generator's random cases (every switch, negation, Kleene+, long streams) the
    answers must be equal, and each grounding must really have run."""
    import ceplab.asp.spaseq as S
    from ceplab.workbench import language
    from ceplab.workbench.spark import case_rng

    lang = language.get("spaseq")
    seen = {True: 0, False: 0}
    real = S._ground_staged

    def spy(s, stages, one_shot=False):
        seen[one_shot] += 1
        return real(s, stages, one_shot)

    monkeypatch.setattr(S, "_ground_staged", spy)
    nonempty = 0
    for cid in range({6: 40, 12: 20, 40: 6}[length]):
        qtext, stream, options = lang.random_case(case_rng(3, "spaseq", cid), length)
        query = lang.parse(qtext)
        answers = []
        for limit in (10_000, -1):            # everything one-shot, then everything staged
            monkeypatch.setattr(S, "SINGLE_SHOT_EVENTS", limit)
            answers.append(lang.oracle(query, stream, options, FAST))
        assert all(isinstance(a, OracleResult) for a in answers), answers
        assert answers[0].results == answers[1].results, (cid, qtext)
        nonempty += bool(answers[0].results)
    assert seen[True] == seen[False] > 0 and nonempty > 0
