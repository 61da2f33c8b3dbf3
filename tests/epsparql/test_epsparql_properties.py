"""Properties of EP-SPARQL (issue section 4; docs/semantics/epsparql.md#epsparql-3.5, #epsparql-P1/#epsparql-P2/#epsparql-P6, #epsparql-9.4), checked on the clingo
oracle (``ceplab.asp.epsparql``) and the incremental engine (``ceplab.engine.epsparql``):

* **downward compatibility** (principle 2, P2) against rdflib as the real peer: a plain SPARQL query (BGP,
  Join, UNION, OPTIONAL, FILTER on values) over a stream whose triples all carry one time ``t`` has exactly
  rdflib's answers (as sets), each on ``[t, t]`` -- with the default ``optional_end="le"``; the printed
  ``"strict"`` LeftJoin breaks it (E8, A6; papers-check/epsparql/FINDINGS.md F1);
* **timewise monotonicity** (principle 1, P1, A1): the results on the stream cut at ``t`` (occurrences ending
  by ``t``) are the full results ending by ``t``; the hypothetical "Sequentional" operator breaks it (E7,
  FINDINGS F2);
* **cross-language** (docs/semantics/epsparql.md#epsparql-9.4, #epsparql-P6) against the ETALIS oracle (``ceplab.asp.etalis``), a triple ``s p o`` read as
  the ETALIS event ``p(s, o)``: BGP/Join = ``and``, SEQ = ``seq``, EQUALS = ``equals``, UNION = ``or`` (any
  intervals), and on point events the EQUALSOPTIONAL negation idiom = ``not(x).[a, b]``; the OPTIONALSEQ idiom
  of query (3) is not ``not`` (A12, FINDINGS F3).
"""
from __future__ import annotations


from hypothesis import HealthCheck, example, given, settings, strategies as st
from rdflib import XSD, Graph, Literal, URIRef

from ceplab.asp.epsparql import oracle
from ceplab.asp.etalis import oracle as etalis_oracle
from ceplab.asp.oracle import Limits, OracleResult
from ceplab.engine.epsparql import evaluator
from ceplab.semantics.epsparql.options import PAPER_LITERAL, Options
from ceplab.semantics.epsparql.parser import parse
from ceplab.semantics.epsparql.results import Row, n3
from ceplab.semantics.epsparql.streams import Occurrence
from ceplab.semantics.etalis import ast as EA
from ceplab.semantics.etalis.parser import parse as etalis_parse
from ceplab.semantics.etalis.streams import StreamEvent

EX = "http://ex.org/"
PREFIX = f"PREFIX : <{EX}>\n"
FAST = Limits(time_s=30, isolate=False)
SETTINGS = settings(deadline=None, max_examples=40,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
SUBJECTS = ("s0", "s1", "s2")
PREDICATES = ("p", "q", "r")


def I(x: str) -> URIRef:
    return URIRef(EX + x)


def both(text: str, stream: list[Occurrence], options: Options = Options()) -> set:
    """The oracle's results, asserted equal to the engine's (each emitted once)."""
    qs = parse(PREFIX + text)
    res = oracle(qs, stream, options, FAST)
    assert isinstance(res, OracleResult), res
    got = evaluator(qs, options).run(stream)
    assert len(got) == len(set(got)), "duplicate emission"
    assert set(got) == set(res.results), text
    return set(res.results)


# ================================================================================ downward compatibility (P2)
@st.composite
def graphs(draw):
    """4-10 triples over s0/s1, p/q, objects: small integers or subjects (dense, so that queries match)."""
    n = draw(st.integers(4, 10))
    out = set()
    for _ in range(n):
        o = draw(st.one_of(st.integers(0, 2).map(lambda v: Literal(v)),
                           st.sampled_from(SUBJECTS[:2]).map(I)))
        out.add((I(draw(st.sampled_from(SUBJECTS[:2]))), I(draw(st.sampled_from(PREDICATES[:2]))), o))
    return sorted(out)


VARS = ("a", "b", "c", "d")


@st.composite
def sparql_patterns(draw, depth: int = 2) -> str:
    """The body of a SPARQL group (no braces): BGP | {P} {P} | {P} UNION {P} | P OPTIONAL {P [FILTER]} |
    P FILTER(e).  Every BGP has at least one triple pattern (A20)."""
    def term(pos):
        if pos == "p":
            return draw(st.sampled_from([":p", ":q", ":p", ":q", "?d"]))
        choices = [f"?{v}" for v in VARS[:3]] * 4 + [f":{s}" for s in SUBJECTS[:2]]
        if pos == "o":
            choices += ["0", "1"]
        return draw(st.sampled_from(choices))

    def bgp():
        return " . ".join(f"{term('s')} {term('p')} {term('o')}" for _ in range(draw(st.integers(1, 2))))

    def expr():
        v = f"?{draw(st.sampled_from(VARS))}"
        kind = draw(st.sampled_from(["cmp", "cmp", "eq", "bound", "nbound", "and"]))
        if kind == "cmp":
            return f"{v} {draw(st.sampled_from(['<', '<=', '>', '>=', '!=']))} {draw(st.integers(0, 2))}"
        if kind == "eq":
            return f"{v} = {draw(st.sampled_from([f':{s}' for s in SUBJECTS] + ['1']))}"
        if kind == "bound":
            return f"BOUND({v})"
        if kind == "nbound":
            return f"!BOUND({v})"
        return f"({v} >= 1 || {v} = :s0) && {draw(st.sampled_from(VARS)).join(['?', ''])} != 2"

    def pat(d):
        if d == 0:
            return bgp()
        kind = draw(st.sampled_from(["bgp", "join", "union", "optional", "optional", "filter"]))
        if kind == "bgp":
            return bgp()
        if kind == "join":
            return f"{{ {pat(d - 1)} }} {{ {pat(d - 1)} }}"
        if kind == "union":
            return f"{{ {pat(d - 1)} }} UNION {{ {pat(d - 1)} }}"
        if kind == "optional":
            inner = pat(d - 1)
            if draw(st.booleans()):
                inner += f" FILTER ({expr()})"
            return f"{pat(d - 1)} OPTIONAL {{ {inner} }}"
        return f"{pat(d - 1)} FILTER ({expr()})"

    return pat(draw(st.integers(0, depth)))


def _vars_of(body: str) -> list[str]:
    return [v for v in VARS if f"?{v}" in body]


def rdflib_rows(graph_triples, body: str) -> set:
    g = Graph()
    for t in graph_triples:
        g.add(t)
    vs = _vars_of(body)
    q = PREFIX + f"SELECT {' '.join('?' + v for v in vs)} WHERE {{ {body} }}"
    out = set()
    for r in g.query(q):
        out.add(tuple(sorted((v, n3(r[v])) for v in vs if r[v] is not None)))
    return out


def epsparql_rows(graph_triples, body: str, t: int, options: Options = Options()) -> set:
    stream = [Occurrence(s, p, o, t, t, i) for i, (s, p, o) in enumerate(graph_triples)]
    vs = _vars_of(body)
    res = both(f"SELECT {' '.join('?' + v for v in vs)} WHERE {{ {body} }}", stream, options)
    assert all(isinstance(r, Row) and (r.start, r.end) == (t, t) for r in res)   # every row on [t, t]
    return {r.mapping for r in res}


E8_GRAPH = [(I("s0"), I("p"), I("s1")), (I("s0"), I("q"), I("s2")), (I("s1"), I("r"), Literal(0))]
E8_BODY = "?a :p ?b OPTIONAL { ?a :q ?c }"


@SETTINGS
@given(graphs(), sparql_patterns(), st.integers(0, 5))
@example(E8_GRAPH, E8_BODY, 5)
def test_downward_compatibility_with_rdflib(g, body, t):
    """Principle 2 (docs/semantics/epsparql.md#epsparql-3.5, #epsparql-P2): SPARQL answers on G == EP-SPARQL answers on S_t, as sets of mappings."""
    if not _vars_of(body):
        return
    # rdflib (7.x) drops a solution whose projected variables are all unbound (SELECT ?a WHERE { { :s0 :p :s1 }
    # UNION { ?a :p ?a } } gives no row; SPARQL 1.1 section 18.5 gives one row with ?a unbound): the empty
    # mapping (a row with every projected variable unbound) is therefore left out of the comparison
    ours = epsparql_rows(g, body, t)
    assert ours - {()} == rdflib_rows(g, body)


def test_strict_optional_breaks_downward_compatibility():
    """E8 / A6 (FINDINGS F1): with the printed LeftJoin (``t'_omega < t_omega``) a simultaneous optional part
    never matches, so the rdflib answer {a,b,c} becomes {a,b}.  PAPER_LITERAL has the same switch."""
    want = rdflib_rows(E8_GRAPH, E8_BODY)
    full = (("a", n3(I("s0"))), ("b", n3(I("s1"))), ("c", n3(I("s2"))))
    assert want == {full}
    assert epsparql_rows(E8_GRAPH, E8_BODY, 5) == want
    for opts in (Options(optional_end="strict"), PAPER_LITERAL):
        assert epsparql_rows(E8_GRAPH, E8_BODY, 5, opts) == {full[:2]}
    # the negation idiom inverts: OPTIONAL + !BOUND answers what SPARQL says is excluded
    neg = "?a :p ?b OPTIONAL { ?a :q ?c } FILTER (!BOUND(?c))"
    assert rdflib_rows(E8_GRAPH, neg) == set()
    assert epsparql_rows(E8_GRAPH, neg, 5, Options(optional_end="strict")) == {full[:2]}
    # a FILTER inside the optional group cannot rescue it either
    assert epsparql_rows(E8_GRAPH, "?a :p ?b OPTIONAL { ?a :q ?c FILTER (BOUND(?c)) }", 5,
                         Options(optional_end="strict")) == {full[:2]}


@SETTINGS
@given(graphs(), sparql_patterns(), st.integers(0, 5))
def test_strict_optional_only_differs_with_optional(g, body, t):
    """Only OPTIONAL is affected: without it the strict profile is downward compatible as well."""
    if not _vars_of(body) or "OPTIONAL" in body:
        return
    assert epsparql_rows(g, body, t, Options(optional_end="strict")) == rdflib_rows(g, body)


# ================================================================================ timewise monotonicity (P1)
@st.composite
def streams(draw, max_len: int = 9, preds=PREDICATES):
    occs = []
    for _ in range(draw(st.integers(0, max_len))):
        a = draw(st.integers(0, 8))
        b = a + draw(st.sampled_from([0, 0, 0, 1, 2]))
        occs.append((I(draw(st.sampled_from(SUBJECTS[:2]))), I(draw(st.sampled_from(preds))),
                     Literal(draw(st.integers(0, 2))), a, b))
    occs.sort(key=lambda x: x[4])
    return [Occurrence(*o, i) for i, o in enumerate(occs)]


TEMPORAL_OPS = ("SEQ", "EQUALS", "UNION", "OPTIONALSEQ", "EQUALSOPTIONAL", "JOIN", "OPTIONAL")


@st.composite
def temporal_queries(draw) -> str:
    """SELECT queries over the 8 operators (depth <= 2, explicit braces), with value and time filters, some
    inside optional operands (their F, A8)."""
    k = iter(range(100))

    def leaf():
        return f"{{ ?s :{draw(st.sampled_from(PREDICATES[:2]))} ?x{next(k)} }}"

    def filt():
        kind = draw(st.sampled_from(["dur", "val", "nb", "start"]))
        if kind == "dur":
            return f"getDURATION() {draw(st.sampled_from(['<', '<=', '>']))} {draw(st.integers(0, 4))}"
        if kind == "start":
            return f"getSTARTTIME() >= {draw(st.integers(0, 4))}"
        if kind == "val":
            return f"?x0 {draw(st.sampled_from(['<', '>=', '=']))} {draw(st.integers(0, 2))}"
        return "!BOUND(?x1)"

    def pat(d):
        if d == 0:
            return leaf()
        op = draw(st.sampled_from(TEMPORAL_OPS))
        left, right = pat(d - 1), pat(d - 1)
        if op in ("OPTIONALSEQ",) and draw(st.booleans()):
            left = f"{{ {left} FILTER ({filt()}) }}"
        if op in ("EQUALSOPTIONAL", "OPTIONAL") and draw(st.booleans()):
            right = f"{{ {right} FILTER ({filt()}) }}"
        if op == "JOIN":
            body = f"{left} {right}"
        elif op == "OPTIONAL":
            body = f"{left} OPTIONAL {right}"
        else:
            body = f"{left} {op} {right}"
        if draw(st.integers(0, 3)) == 0:
            body += f" FILTER ({filt()})"
        return f"{{ {body} }}"

    body = pat(draw(st.integers(1, 2)))
    return f"SELECT * WHERE {body}"


def _cut(stream, t):
    return [o._replace(position=i) for i, o in enumerate(x for x in stream if x.end <= t)]


@SETTINGS
@given(temporal_queries(), streams(max_len=10, preds=PREDICATES[:2]), st.data(),
       st.sampled_from([Options(), PAPER_LITERAL, Options(optional_end="strict")]))
def test_timewise_monotonicity(query, stream, data, options):
    """P1 / A1: results(S cut at t) == {r in results(S) | r.end <= t}, oracle and engine (equal by `both`)."""
    full = both(query, stream, options)
    ends = sorted({r.end for r in full}) or [0]
    t = data.draw(st.integers(ends[0] - 1, ends[-1]), label="t")
    assert both(query, _cut(stream, t), options) == {r for r in full if r.end <= t}


E7_QUERY_MIRROR = "SELECT * WHERE { { ?y ?y ?y } OPTIONALSEQ { ?x ?x ?x } }"


def sequentional(stream) -> set:
    """The hypothetical operator of docs/semantics/epsparql.md#epsparql-3.5 / #epsparql-E7: mandatory ``{?x ?x ?x}`` followed by an *optional later*
    ``{?y ?y ?y}`` -- LeftJoin with ``t_omega < t'_alpha`` -- evaluated by its definition (it is not in the
    language, so neither the oracle nor the engine has it).  Rows ``(mapping, start, end)``."""
    rows = [(o.s, o.start, o.end) for o in stream if o.s == o.p == o.o]
    out = set()
    for x, a, w in rows:
        partners = [(y, a2, w2) for y, a2, w2 in rows if w < a2]
        for y, a2, w2 in partners:
            out.add(((("x", n3(x)), ("y", n3(y))), a, w2))
        if not partners:
            out.add(((("x", n3(x)),), a, w))
    return out


def test_sequentional_breaks_monotonicity_optionalseq_does_not():
    """E7 (FINDINGS F2): {a a a @0} gives {x:a}[0,0]; adding b b b @1 withdraws it.  The mirror OPTIONALSEQ
    (optional *earlier* part) keeps every row: cutting at 0 gives exactly the full rows ending by 0."""
    a, b = I("a"), I("b")
    s1 = [Occurrence(a, a, a, 0, 0, 0)]
    s2 = s1 + [Occurrence(b, b, b, 1, 1, 1)]
    assert sequentional(s1) == {((("x", n3(a)),), 0, 0)}
    assert sequentional(s2) == {((("x", n3(a)), ("y", n3(b))), 0, 1), ((("x", n3(b)),), 1, 1)}
    assert not sequentional(s1) <= sequentional(s2)                        # the [0,0] row is withdrawn
    assert {r for r in sequentional(s2) if r[2] <= 0} != sequentional(_cut(s2, 0))
    full = both(E7_QUERY_MIRROR, s2)
    assert both(E7_QUERY_MIRROR, s1) == {r for r in full if r.end <= 0}
    assert {(r.mapping, r.start, r.end) for r in full} == {
        ((("x", n3(a)),), 0, 0),                               # nothing before a a a: unmatched, kept for ever
        ((("x", n3(b)), ("y", n3(a))), 0, 1)}                  # a a a before b b b: joined (not also unmatched)


def test_real_data_prefixes_engine():
    """P1 on the bundled real-data cases (engine only, cheap): the engine run on a prefix of the stream
    emits exactly the full run's results ending by the prefix's last tick."""
    from ceplab.workbench.langs.epsparql import data as E

    for name, text, stream in E.real_cases(include_background=False):
        qs = parse(text)
        full = set(evaluator(qs).run(stream))
        ticks = sorted({o.end for o in stream})
        for t in ticks[len(ticks) // 3::len(ticks) // 3]:
            assert set(evaluator(qs).run(_cut(stream, t))) == {r for r in full if r.end <= t}, (name, t)


# ================================================================================ cross-language (P6)
def to_etalis(stream: list[Occurrence]) -> list[StreamEvent]:
    """``s p o @[a,b]`` -> ETALIS event ``p(s, o)`` on ``[a, b]`` (subject a symbol, object an integer)."""
    out = []
    for o in stream:
        name = str(o.p)[len(EX):]
        out.append(StreamEvent(EA.EventAtom(name, (EA.Sym(str(o.s)[len(EX):]), EA.Num(int(o.o)))),
                               o.start, o.end, o.position))
    return out


def etalis_set(rules: str, evs: list[StreamEvent]) -> set:
    res = etalis_oracle(etalis_parse(rules), evs, limits=FAST)
    assert isinstance(res, OracleResult), res
    return {r for r in res.results if r[0].startswith("e(") or r[0] == "e"}


def rows_as_atoms(res: set, vs: list[str]) -> set:
    """EP-SPARQL rows -> ETALIS results ``("e(s0,1,2)", start, end)`` with the head arguments ``vs``."""
    out = set()
    for r in res:
        if not isinstance(r, Row):
            continue
        m = dict(r.mapping)
        args = []
        for v in vs:
            term = m[v]
            args.append(term[1 + len(EX):-1] if term.startswith("<") else str(Literal(term.split('"')[1],
                                                                                     datatype=XSD.integer)))
        out.add((f"e({','.join(args)})", r.start, r.end))
    return out


ETALIS_OP = {"JOIN": "and", "SEQ": "seq", "EQUALS": "equals"}


@st.composite
def positive_pairs(draw):
    """(EP-SPARQL WHERE body, ETALIS body, variables) over JOIN/SEQ/EQUALS trees (depth <= 2) and UNIONs of
    two leaves with the same variables."""
    k = iter(range(100))

    def leaf(x=None):
        p = draw(st.sampled_from(PREDICATES))
        x = next(k) if x is None else x
        return f"{{ ?s :{p} ?x{x} }}", f"{p}(S, X{x})", {f"x{x}"}

    def tree(d):
        if d == 0:
            return leaf()
        op = draw(st.sampled_from(["JOIN", "SEQ", "EQUALS", "UNION"]))
        if op == "UNION":
            x = next(k)
            (l, el, vl), (r, er, _) = leaf(x), leaf(x)
            return f"{{ {l} UNION {r} }}", f"({el} or {er})", vl
        (l, el, vl), (r, er, vr) = tree(d - 1), tree(d - 1)
        sp = f"{{ {l} {r} }}" if op == "JOIN" else f"{{ {l} {op} {r} }}"
        return sp, f"({el} {ETALIS_OP[op]} {er})", vl | vr

    return tree(draw(st.integers(1, 2)))


@SETTINGS
@given(positive_pairs(), streams(max_len=8))
def test_positive_core_equals_etalis(pair, stream):
    """docs/semantics/epsparql.md#epsparql-9.4 / #epsparql-P6: BGP/Join = AND (hull), SEQ = SEQ (strict, [start(l), end(r)]), EQUALS = EQUALS, UNION =
    OR, with the same intervals, also for non-point input intervals."""
    body, ebody, xs = pair
    vs = ["s"] + sorted(xs, key=lambda v: int(v[1:]))
    ep = both(f"SELECT {' '.join('?' + v for v in vs)} WHERE {body}", stream)
    head = f"e({', '.join(v.upper() for v in vs)})"
    assert rows_as_atoms(ep, vs) == etalis_set(f"{head} <- {ebody}.", to_etalis(stream))


def test_bgp_is_and_also_for_the_same_predicate():
    """A BGP's patterns choose occurrences independently (A3 per_pattern), like ETALIS ``and``: ``p and p``
    pairs an event with itself and with every other one (hull)."""
    st_ = [Occurrence(I("s0"), I("p"), Literal(1), 0, 0, 0), Occurrence(I("s0"), I("p"), Literal(2), 3, 3, 1)]
    ep = both("SELECT ?s ?x0 ?x1 WHERE { ?s :p ?x0 . ?s :p ?x1 }", st_)
    got = rows_as_atoms(ep, ["s", "x0", "x1"])
    assert got == etalis_set("e(S, X0, X1) <- p(S, X0) and p(S, X1).", to_etalis(st_))
    assert got == {("e(s0,1,1)", 0, 0), ("e(s0,1,2)", 0, 3), ("e(s0,2,1)", 0, 3), ("e(s0,2,2)", 3, 3)}


NOT_EP = ("SELECT ?s ?x0 ?x2 WHERE { { { ?s :p ?x0 } SEQ { ?s :r ?x2 } } EQUALSOPTIONAL "
          "{ { ?s :p ?x0 } SEQ { ?s :q ?x1 } SEQ { ?s :r ?x2 } } FILTER (!BOUND(?x1)) }")
NOT_ETALIS = "e(S, X0, X2) <- not(q(S, _)).[p(S, X0), r(S, X2)]."


@st.composite
def point_streams(draw):
    s = draw(streams(max_len=9))
    return [o._replace(end=o.start) for o in sorted(s, key=lambda o: o.start)]


def _renumber(stream):
    return [o._replace(position=i) for i, o in enumerate(stream)]


@SETTINGS
@given(point_streams())
@example([Occurrence(I("s0"), I("p"), Literal(1), 1, 1), Occurrence(I("s0"), I("q"), Literal(0), 2, 2),
          Occurrence(I("s0"), I("p"), Literal(1), 3, 3), Occurrence(I("s0"), I("r"), Literal(2), 4, 4)])
def test_equalsoptional_idiom_is_etalis_not_on_points(stream):
    """P6 / E5: ``{A SEQ B} EQUALSOPTIONAL {A SEQ X SEQ B} FILTER(!BOUND(?x))`` == ETALIS ``not(X).[A, B]``
    on point events (every pattern position is a variable or the subject, so a row's mapping and interval
    identify its delimiter pair: the per_witness and literal readings of NOT coincide)."""
    stream = _renumber(stream)
    ep = both(NOT_EP, stream)
    assert rows_as_atoms(ep, ["s", "x0", "x2"]) == etalis_set(NOT_ETALIS, to_etalis(stream))


def test_optionalseq_idiom_is_not_etalis_not():
    """A12 / E3 (FINDINGS F3): the OPTIONALSEQ idiom of query (3) also blocks on an X *before* A, which
    ETALIS NOT (and the EQUALSOPTIONAL idiom) ignore."""
    stream = _renumber([Occurrence(I("s0"), I("q"), Literal(0), 0, 0), Occurrence(I("s0"), I("p"), Literal(1), 1, 1),
                        Occurrence(I("s0"), I("r"), Literal(2), 2, 2)])
    osq = ("SELECT ?s ?x0 ?x2 WHERE { { ?s :p ?x0 } SEQ { { ?s :q ?x1 } OPTIONALSEQ { ?s :r ?x2 } } "
           "FILTER (!BOUND(?x1)) }")
    assert rows_as_atoms(both(osq, stream), ["s", "x0", "x2"]) == set()
    want = {("e(s0,1,2)", 1, 2)}
    assert etalis_set(NOT_ETALIS, to_etalis(stream)) == want
    assert rows_as_atoms(both(NOT_EP, stream), ["s", "x0", "x2"]) == want


def test_equalsoptional_idiom_on_intervals_vs_not_readings():
    """With interval input the EQUALSOPTIONAL idiom compares rows by mapping *and hull*: a blocked delimiter
    pair hides an unblocked pair with the same mapping and hull -- the "literal" NOT reading (Figure 2), not
    ETALIS-D's per_witness default."""
    from ceplab.semantics.etalis.options import Options as EOptions

    stream = _renumber([Occurrence(I("s0"), I("p"), Literal(1), 0, 0), Occurrence(I("s0"), I("q"), Literal(0), 1, 1),
                        Occurrence(I("s0"), I("p"), Literal(1), 0, 2), Occurrence(I("s0"), I("r"), Literal(2), 3, 3)])
    ep = rows_as_atoms(both(NOT_EP, stream), ["s", "x0", "x2"])
    evs = to_etalis(stream)

    def run(opts):
        res = etalis_oracle(etalis_parse(NOT_ETALIS), evs, opts, FAST)
        assert isinstance(res, OracleResult)
        return set(res.results)

    per_witness, literal = run(EOptions()), run(EOptions(not_reading="literal"))
    assert per_witness == {("e(s0,1,2)", 0, 3)}          # pair (p@[0,2], r@3) has nothing strictly between
    assert literal == set() == ep                         # pair (p@[0,0], r@3) is blocked by q@1: same hull
