"""CQELS-CEP: the derived properties P1-P8 of docs/semantics/cqels.md#cqels-5 as hypothesis tests.

Every property is checked on the clingo oracle (``ceplab.asp.cqels``) *and* on the incremental engine
(``ceplab.engine.cqels``), each on its own (a property that both break in the same way still fails), on queries,
streams and switches drawn with the plugin's generators (``workbench/langs/cqels/generators.py``: ``gen_bgp``,
``gen_spec``, ``gen_stream`` with planted matches, ``gen_options``, ``gen_case``) or, where a property needs a
fragment the generators do not isolate, with small purpose-built strategies on the same vocabulary.  The
exceptions a property states (NO_TAIL's ``d <= t`` and closed SEQ_WO under clipping, P4; NO_TAIL and finite RANGE
windows against monotonicity, P7) are pinned by minimal examples that show the exception exists.

The paper states no theorems (docs/semantics/cqels.md#cqels-paper); each property follows from the definitions of
docs/semantics/cqels.md#cqels-3.1 (windows), #cqels-3.2 (operators) and #cqels-3.3 (evaluation function).
"""
from __future__ import annotations

import itertools
from dataclasses import replace

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from rdflib import XSD, Graph, Literal, URIRef, Variable

from ceplab.asp.cqels import oracle
from ceplab.asp.oracle import Limits, OracleResult
from ceplab.engine.cqels import run as engine_run
from ceplab.semantics.cqels import ast as A
from ceplab.semantics.cqels.options import Options
from ceplab.semantics.cqels.results import Answer, answer, default_until, snapshots
from ceplab.semantics.cqels.streams import StaticData, arrival, arrival_order, check_elements
from ceplab.semantics.rdfstream import StreamElement, nt_term
from ceplab.workbench.generators import HypothesisChooser
from ceplab.workbench.langs.cqels import LANGUAGE as L
from ceplab.workbench.langs.cqels import generators as G

EX = "http://example.org/"
LIMITS = Limits(time_s=60, isolate=False)
EVALUATORS = ("oracle", "engine")
X = Variable("x")


def u(x: str) -> URIRef:
    return URIRef(EX + x)


S1, S2, EMPTY = u("s1"), u("s2"), u("s3")


def examples(n: int) -> settings:
    """At most ``n`` examples, never more than the active hypothesis profile gives (tests/conftest.py)."""
    return settings(max_examples=min(n, settings.default.max_examples))


# ------------------------------------------------------------------------------------------------ evaluation
def answers(kind: str, q: A.Query, es, o: Options = Options(), static=None, until=None) -> frozenset[Answer]:
    """Every answer ``(t, mu|V, [a, b])`` for ``t`` in ``[0, H]`` from the oracle or the engine; every answer of every
    test is checked to be well formed, ``0 <= a <= b <= t`` (P6)."""
    if kind == "oracle":
        r = oracle(q, list(es), o, LIMITS, static, until)
        assert isinstance(r, OracleResult), r
        out = r.results
    else:
        out = frozenset(engine_run(q, arrival_order(es, o), o, static, until))
    bad = [r for r in out if not 0 <= r.start <= r.end <= r.time]
    assert not bad, (kind, "P6", bad[:3])
    return out


def horizon(q: A.Query, es, static=None, until=None) -> int:
    return until if until is not None else default_until(q, es, static.change_times if static else ())


def untimed(snapshot) -> set:
    return {(r.mapping, r.interval) for r in snapshot}


# ------------------------------------------------------------------------------------------------ query builders
class Fresh:
    """Fresh variable names (``?v0, ?v1, ...``), as the generators' BGPs expect."""

    def __init__(self) -> None:
        self.n = 0

    def fresh(self, prefix: str = "v") -> Variable:
        self.n += 1
        return Variable(f"{prefix}{self.n - 1}")


def gen_bgps(ch, k: int, vs: Fresh) -> list[A.BGP]:
    """``k`` BGPs of the plugin's generator, sharing ``?x`` and each other's variables now and then."""
    shared, out = [X], []
    for _ in range(k):
        b = G.gen_bgp(ch, vs, shared)
        out.append(b)
        shared = sorted(set(shared) | A.bgp_vars(b), key=str)
    return out


def tsp(items) -> A.TSP:
    """``SEQ(items)``, or the item itself when there is one (``SEQ(X) = X``, docs/semantics/cqels.md#cqels-G8)."""
    return items[0] if len(items) == 1 else A.SeqTSP(tuple(items))


def one_window(items, spec, stream=S1, select=None, static=()) -> A.Query:
    """One window on ``stream`` whose pattern is ``SEQ(items)``."""
    w = A.Window(u("W0"), stream, spec, tsp(items))
    return A.Query(select, (), (w,), (A.WinRef(w.name),), tuple(static))


def window_seq(groups, specs, streams, select=None) -> A.Query:
    """An event-clause ``SEQ`` over one window per group: group ``i`` is a list of BGPs (a SEQ inside window ``i``)
    or ``Neg(BGP)`` (a negated window); window ``i`` reads ``streams[i]`` with ``specs[i]``."""
    windows, refs = [], []
    for i, g in enumerate(groups):
        name = u(f"W{i}")
        if isinstance(g, A.Neg):
            windows.append(A.Window(name, streams[i], specs[i], g.item))
            refs.append(A.Neg(A.WinRef(name)))
        else:
            windows.append(A.Window(name, streams[i], specs[i], tsp(g)))
            refs.append(A.WinRef(name))
    events = (A.SeqEC(tuple(refs)),) if len(refs) > 1 else tuple(refs)
    return A.Query(select, (), tuple(windows), events, ())


def els(*specs) -> list[StreamElement]:
    """Elements ``(subject, predicate, object, start[, end[, stream]])`` of local names, one triple each."""
    out = []
    for i, sp in enumerate(specs):
        s, p, o, start = sp[:4]
        end = sp[4] if len(sp) > 4 else start
        g = Graph()
        g.add((u(s), u(p), u(o)))
        out.append(StreamElement(g, start, end, u(sp[5]) if len(sp) > 5 else S1, i))
    return check_elements(out)


def atomic(es) -> list[StreamElement]:
    """The stream with every element shrunk to its start point ``[t1, t1]``."""
    return check_elements([StreamElement(e.content, e.start, e.start, e.stream, e.position) for e in es])


def draw_stream(ch, q: A.Query, streams=("s1",), lo: int = 3, hi: int = 10, hints=()) -> list[StreamElement]:
    """A generated stream of ``lo..hi`` elements for ``q`` (planted matches of its event clauses, their ``?x`` often a
    subject of the static triples ``hints``; intervals, ties, duplicates)."""
    return G.gen_stream(ch, ch.integer(lo, hi), streams, query=q, hints=hints)


def pattern(text: str, **kw) -> A.BGP:
    """A one-triple BGP ``?x :p :o`` from ``"p"`` (object ``:o``) or ``"p ?y"``."""
    p, *rest = text.split()
    o = Variable(rest[0][1:]) if rest else u("o")
    return A.BGP((A.TriplePattern(X, u(p), o),), **kw)


# ================================================================================================ P1
@examples(40)
@given(st.data())
def test_P1_seq_is_associative(data):
    """docs/semantics/cqels.md#cqels-P1: ``SEQ(SEQ(A,B),C) = SEQ(A,SEQ(B,C))``, both equal to the right-nested
    ``SEQ(A,B,C)`` of (10), at every t.  The nesting is written with an event-clause SEQ over two windows with the
    same stream and window expression (then ``[[W, t]]`` is the window's TSP evaluated on the same entries):
    ``SEQ(:W0{SEQ(A,B)}, :W1{C})`` and ``SEQ(:W0{A}, :W1{SEQ(B,C)})`` against one window ``SEQ(A,B,C)``."""
    ch = HypothesisChooser(data.draw)
    a, b, c = gen_bgps(ch, 3, Fresh())
    spec = G.gen_spec(ch, seq=True)
    flat = one_window([a, b, c], spec)
    left = window_seq([[a, b], [c]], [spec, spec], [S1, S1])
    right = window_seq([[a], [b, c]], [spec, spec], [S1, S1])
    es = draw_stream(ch, flat, lo=5, hi=12)
    o = G.gen_options(ch)
    for kind in EVALUATORS:
        want = answers(kind, flat, es, o)
        assert answers(kind, left, es, o) == want, kind
        assert answers(kind, right, es, o) == want, kind


@examples(30)
@given(st.data())
def test_P1_join_order_does_not_matter(data):
    """docs/semantics/cqels.md#cqels-P1: JOIN is commutative and associative, so the order of the event clauses in
    (2) and of the static patterns is not significant: a generated case with its windows, event clauses and static
    patterns reversed has the same answers."""
    ch = HypothesisChooser(data.draw)
    text, es = G.gen_case(ch, ch.integer(3, 10))
    cq = L.parse(text)
    q = cq.query
    assume(len(q.events) + len(q.static) >= 2)
    rev = replace(q, windows=q.windows[::-1], events=q.events[::-1], static=q.static[::-1])
    o = G.gen_options(ch)
    for kind in EVALUATORS:
        assert answers(kind, rev, es, o, cq.static, cq.until) == answers(kind, q, es, o, cq.static, cq.until), kind


# ================================================================================================ P2
@examples(40)
@given(st.data())
def test_P2_seq_is_irreflexive(data):
    """docs/semantics/cqels.md#cqels-P2: an element never follows itself.  ``SEQ(P, P)`` over a generated stream
    only pairs distinct elements in strict order, so every answer has ``a < b``; over the same elements all moved
    to one interval (a single element is the special case) it has no answer at all, under every window and
    switch."""
    ch = HypothesisChooser(data.draw)
    (p,) = gen_bgps(ch, 1, Fresh())
    q = one_window([p, p], G.gen_spec(ch, seq=True))
    es = draw_stream(ch, q)
    o = G.gen_options(ch)
    t1 = ch.integer(0, 6)
    t2 = t1 + ch.integer(0, 2)
    same = check_elements([StreamElement(e.content, t1, t2, e.stream, e.position) for e in es])
    for kind in EVALUATORS:
        assert all(r.start < r.end for r in answers(kind, q, es, o)), kind
        assert answers(kind, q, same, o) == frozenset(), kind


def test_P2_seq_is_not_commutative():
    """docs/semantics/cqels.md#cqels-P2: A@1, B@2: ``SEQ(A, B)`` answers ``[1, 2]`` from t = 2 until A leaves the
    window; ``SEQ(B, A)`` never answers."""
    a, b = pattern("pa"), pattern("pb")
    es = els(("x", "pa", "o", 1), ("x", "pb", "o", 2))
    ab, ba = one_window([a, b], A.RangeWindow(5)), one_window([b, a], A.RangeWindow(5))
    for kind in EVALUATORS:
        got = answers(kind, ab, es)
        assert {r.interval for r in got} == {(1, 2)} and {r.time for r in got} == set(range(2, 7)), kind
        assert answers(kind, ba, es) == frozenset(), kind


# ================================================================================================ P3
def _matches_some_pattern(e: StreamElement, bgp: A.BGP) -> bool:
    """Does some triple of ``e`` match some triple pattern of ``bgp`` (constants equal; variables anything)?"""
    for tr in e.triples():
        for tp in bgp.triples:
            if all(isinstance(x, Variable) or x == y for x, y in zip((tp.s, tp.p, tp.o), tr)):
                return True
    return False


FORMS = ("NO_TAIL (tsp)", "NO_TAIL of one element (tsp)", "NO_HEAD (tsp)", "SEQ_WO (tsp)", "SEQ_WO (ec)",
         "NO_HEAD (ec)", "NO_TAIL (ec)")


def negated_form(name: str, a: A.BGP, b: A.BGP, n: A.BGP, spec, spec_n, stream_n) -> tuple[A.Query, A.Query]:
    """``(negated query, the positive query it reduces to)`` for one of :data:`FORMS`: the three shapes, at the TSP
    level and at the event-clause level (the negated window reads ``stream_n`` with ``spec_n``)."""
    N = A.Neg(n)
    return {
        "NO_TAIL (tsp)": lambda: (one_window([a, b, N], spec), one_window([a, b], spec)),
        "NO_TAIL of one element (tsp)": lambda: (one_window([a, N], spec), one_window([a], spec)),
        "NO_HEAD (tsp)": lambda: (one_window([N, a, b], spec), one_window([a, b], spec)),
        "SEQ_WO (tsp)": lambda: (one_window([a, N, b], spec), one_window([a, b], spec)),
        "SEQ_WO (ec)": lambda: (window_seq([[a], N, [b]], [spec, spec_n, spec], [S1, stream_n, S1]),
                                window_seq([[a], [b]], [spec, spec], [S1, S1])),
        "NO_HEAD (ec)": lambda: (window_seq([N, [a, b]], [spec_n, spec], [stream_n, S1]), one_window([a, b], spec)),
        "NO_TAIL (ec)": lambda: (window_seq([[a, b], N], [spec, spec_n], [S1, stream_n]), one_window([a, b], spec)),
    }[name]()


@examples(60)
@given(st.data())
def test_P3_degenerate_negation_is_the_identity(data):
    """docs/semantics/cqels.md#cqels-P3: with an empty negative set, ``NO_TAIL(X, {}, t) = X``, ``NO_HEAD({}, X) = X``
    and ``SEQ_WO(X, {}, Y) = SEQ(X, Y)``, at the TSP level (a negated BGP none of whose triple patterns matches a
    stream triple: the matching elements are removed from a stream planted for the negated query) and at the
    event-clause level (a negated window on a stream with no elements, or on the same stream)."""
    ch = HypothesisChooser(data.draw)
    a, b, n = gen_bgps(ch, 3, Fresh())
    spec, spec_n = G.gen_spec(ch, seq=True), G.gen_spec(ch)
    stream_n = ch.choice([EMPTY, S1])
    name = ch.choice(FORMS)
    neg_q, pos_q = negated_form(name, a, b, n, spec, spec_n, stream_n)
    es = draw_stream(ch, neg_q, lo=4, hi=12)
    es = check_elements([e for e in es if not _matches_some_pattern(e, n)])
    o = G.gen_options(ch)
    until = horizon(pos_q, es)
    for kind in EVALUATORS:
        assert answers(kind, neg_q, es, o, until=until) == answers(kind, pos_q, es, o, until=until), (kind, name)


@examples(60)
@given(st.data())
def test_P3_negation_only_removes_answers(data):
    """docs/semantics/cqels.md#cqels-P3: ``SEQ_WO(X, N, Y) ⊆ SEQ(X, Y)``, ``NO_TAIL(X, N, t) ⊆ X`` and
    ``NO_HEAD(N, X) ⊆ X`` at every t, on streams planted for the negated query (negatives included now and
    then), at the TSP and event-clause levels."""
    ch = HypothesisChooser(data.draw)
    a, b, n = gen_bgps(ch, 3, Fresh())
    spec, spec_n = G.gen_spec(ch, seq=True), G.gen_spec(ch)
    name = ch.choice(FORMS)
    neg_q, pos_q = negated_form(name, a, b, n, spec, spec_n, S1)
    es = draw_stream(ch, neg_q, lo=4, hi=12)
    o = G.gen_options(ch)
    until = horizon(pos_q, es)
    for kind in EVALUATORS:
        got, pos = answers(kind, neg_q, es, o, until=until), answers(kind, pos_q, es, o, until=until)
        assert got <= pos, (kind, name, sorted(got - pos)[:3])


# ================================================================================================ P4
def _plain_bgp(ch, vs: Fresh) -> A.BGP:
    """A BGP of 1-2 triple patterns without FILTER on the generators' vocabulary (``?x`` shared mostly)."""
    triples = []
    for _ in range(2 if ch.boolean(0.2) else 1):
        s = X if ch.boolean(0.8) else u(ch.choice(G.NODE_DRAW))
        p = u(ch.choice(G.PREDICATE_DRAW)) if not ch.boolean(0.1) else vs.fresh("p")
        k = ch.integer(0, 5)
        o = vs.fresh() if k <= 2 else u(ch.choice(G.NODE_DRAW)) if k == 3 else \
            Literal(str(ch.choice(G.VALUES)), datatype=XSD.integer)
        triples.append(A.TriplePattern(s, p, o))
    return A.BGP(tuple(triples))


def _bgp_matches(bgp: A.BGP, triples) -> list[dict]:
    """The mappings of ``bgp`` inside one element graph (``bgp_scope = element``), values in N-Triples form."""
    rows = [tuple(nt_term(x) for x in tr) for tr in triples]
    out: list[dict] = [{}]
    for tp in bgp.triples:
        pat = [x if isinstance(x, Variable) else nt_term(x) for x in (tp.s, tp.p, tp.o)]
        nxt = []
        for mu in out:
            for row in rows:
                m = dict(mu)
                if all((m.setdefault(x, y) == y) if isinstance(x, Variable) else x == y for x, y in zip(pat, row)):
                    nxt.append(m)
        out = nxt
    return out


def _compatible(m1: dict, m2: dict) -> bool:
    return all(m2[k] == v for k, v in m1.items() if k in m2)


def raw_then_clip(items, T: int, es, t: int, o: Options, tail: str = "raw") -> frozenset[Answer]:
    """``[[SEQ(items), t]]`` of one ``RANGE T`` window on ``:s1`` evaluated the way P4 allows: every order test on
    the *raw* intervals of the elements in the window, the hull clipped to ``[t - T, t]`` only on output.  ``items``:
    BGPs and at most one ``Neg`` (head: NO_HEAD, ``d < a``; middle: SEQ_WO under ``o.wo_bounds``; tail: NO_TAIL with
    the raw ``d <= t``, the reading P4 says differs)."""
    vis = [e for e in es if e.stream == S1 and arrival(e, o) <= t and e.end >= t - T]

    def leaf(bgp):
        rows = {(tuple(sorted(m.items())), e.start, e.end) for e in vis for m in _bgp_matches(bgp, e.triples())}
        return [(dict(m), a, b) for m, a, b in rows]
    neg_at = next((i for i, it in enumerate(items) if isinstance(it, A.Neg)), None)
    negs = leaf(items[neg_at].item) if neg_at is not None else []
    comps = [leaf(it) for it in items if not isinstance(it, A.Neg)]
    out = set()
    for combo in itertools.product(*comps):
        mu: dict = {}
        ok = True
        for k, (m, a, b) in enumerate(combo):
            if not _compatible(m, mu) or (k and combo[k - 1][2] >= a):
                ok = False
                break
            mu.update(m)
        if not ok:
            continue
        if neg_at is not None:
            k = neg_at                      # the negative lies between positive components k-1 and k
            if k == 0:
                blocked = any(_compatible(nu, mu) and d < combo[0][1] for nu, c, d in negs)
            elif k == len(items) - 1:
                blocked = any(_compatible(nu, mu) and combo[-1][2] < c and (d <= t if tail == "raw" else True)
                              for nu, c, d in negs)
            elif o.wo_bounds == "strict":
                blocked = any(_compatible(nu, mu) and combo[k - 1][2] < c and d < combo[k][1] for nu, c, d in negs)
            else:
                blocked = any(_compatible(nu, mu) and combo[k - 1][2] <= c and d <= combo[k][1] for nu, c, d in negs)
            if blocked:
                continue
        out.add(answer(t, {str(v): x for v, x in mu.items()}, (max(combo[0][1], t - T), min(combo[-1][2], t))))
    return frozenset(out)


@examples(60)
@given(st.data())
def test_P4_order_tests_are_invariant_under_clipping(data):
    """docs/semantics/cqels.md#cqels-P4: on the elements of one ``RANGE T`` window, SEQ's, NO_HEAD's and strict
    SEQ_WO's order tests have the same truth value on raw and on clipped intervals, and the hull of the clipped
    components is the clipped hull.  So evaluating on raw intervals and clipping on output (:func:`raw_then_clip`)
    gives ``[[Q, t]]`` at every t, on generated streams with non-atomic elements (clipped at both window edges)."""
    ch = HypothesisChooser(data.draw)
    vs = Fresh()
    k = ch.integer(1, 3)
    items: list = [_plain_bgp(ch, vs) for _ in range(k)]
    where = ch.choice(["none", "head", "middle"]) if k >= 2 else ch.choice(["none", "head"])
    neg = A.Neg(_plain_bgp(ch, vs))
    if where == "head":
        items = [neg] + items
    elif where == "middle":
        items = items[:1] + [neg] + items[1:]
    T = ch.integer(0, 8)
    q = one_window(items, A.RangeWindow(T))
    es = draw_stream(ch, q, lo=4, hi=10)
    o = Options(wo_bounds="strict", arrival=ch.choice(["start", "end"]))
    H = horizon(q, es)
    want = frozenset().union(*(raw_then_clip(items, T, es, t, o) for t in range(H + 1)))
    for kind in EVALUATORS:
        got = answers(kind, q, es, o)
        assert got == want, (kind, sorted(got - want)[:3], sorted(want - got)[:3])


def test_P4_exception_no_tail_after_clipping():
    """docs/semantics/cqels.md#cqels-P4 and #cqels-G7: NO_TAIL's ``d <= t`` always holds after clipping, so an
    ongoing negative blocks as soon as it starts.  A@1, N@[3,9], RANGE 10: on raw intervals N (``d = 9``) would
    block only from t = 9; clipped to ``[3, t]`` it blocks from t = 3."""
    items = [pattern("pa"), A.Neg(pattern("pn"))]
    es = els(("x", "pa", "o", 1), ("x", "pn", "o", 3, 9))
    q = one_window(items, A.RangeWindow(10))
    H = horizon(q, es)
    raw = frozenset().union(*(raw_then_clip(items, 10, es, t, Options()) for t in range(H + 1)))
    assert {r.time for r in raw} == set(range(1, 9))                    # the raw reading: blocked from 9
    for kind in EVALUATORS:
        got = answers(kind, q, es)
        assert {r.time for r in got} == {1, 2}, kind                    # the semantics: blocked from 3
        assert got < raw


def test_P4_exception_closed_seq_wo_at_the_window_edge():
    """docs/semantics/cqels.md#cqels-P4, #cqels-T17: closed SEQ_WO containment can hold for a clipped non-atomic
    negative although it does not hold for the raw one (right edge ``a3 = t``).  A@2, N@[4,20], C@6, RANGE 10: at
    t = 6 N is clipped to ``[4, 6]`` inside the gap ``[2, 6]`` and blocks; raw ``[4, 20]`` is not inside.  Under
    ``strict`` both readings agree."""
    items = [pattern("pa"), A.Neg(pattern("pn")), pattern("pc")]
    es = els(("x", "pa", "o", 2), ("x", "pn", "o", 4, 20), ("x", "pc", "o", 6))
    q = one_window(items, A.RangeWindow(10))
    for wo in ("closed", "strict"):
        o = Options(wo_bounds=wo)
        H = horizon(q, es)
        raw = frozenset().union(*(raw_then_clip(items, 10, es, t, o) for t in range(H + 1)))
        assert {r.time for r in raw} == set(range(6, 13))
        for kind in EVALUATORS:
            got = answers(kind, q, es, o)
            assert {r.time for r in got} == (set(range(7, 13)) if wo == "closed" else set(range(6, 13))), (kind, wo)


# ================================================================================================ P5
def _lifetimes(res) -> dict:
    out: dict = {}
    for r in res:
        out.setdefault((r.mapping, r.interval), set()).add(r.time)
    return out


@examples(40)
@given(st.data())
def test_P5_positive_seq_lives_from_its_end_to_first_end_plus_T(data):
    """docs/semantics/cqels.md#cqels-P5: for one ``RANGE T`` window and atomic events, a positive SEQ answer
    ``<mu, [a, b]>`` is present exactly for ``t`` in ``[b, a + T]`` (``a = c1.end``), cut at the horizon; with
    ``T < b - a`` never."""
    ch = HypothesisChooser(data.draw)
    items = gen_bgps(ch, ch.integer(2, 3), Fresh())
    T = ch.integer(1, 8)
    q = one_window(items, A.RangeWindow(T))
    es = atomic(draw_stream(ch, q, lo=5, hi=12))
    o = G.gen_options(ch)
    H = horizon(q, es)
    for kind in EVALUATORS:
        for (m, (a, b)), times in _lifetimes(answers(kind, q, es, o)).items():
            assert a < b <= a + T and times == set(range(b, min(a + T, H) + 1)), (kind, m, (a, b), sorted(times))


@examples(30)
@given(st.data())
def test_P5_window_seq_lives_while_every_component_is_in_its_window(data):
    """docs/semantics/cqels.md#cqels-P5, #cqels-T11: ``SEQ(:W0, :W1)`` with ranges ``T0``, ``T1`` over atomic
    events: an answer ``<mu, [a, b]>`` (components at ``a`` and ``b``) is present exactly while both are in their
    windows, ``t`` in ``[b, min(a + T0, b + T1)]``: its lifetime is set by the earliest-expiring component."""
    ch = HypothesisChooser(data.draw)
    a, b = gen_bgps(ch, 2, Fresh())
    T0, T1 = ch.integer(0, 8), ch.integer(0, 8)
    streams = [ch.choice([S1, S2]), ch.choice([S1, S2])]
    q = window_seq([[a], [b]], [A.RangeWindow(T0), A.RangeWindow(T1)], streams)
    es = atomic(draw_stream(ch, q, ("s1", "s2"), lo=5, hi=12))
    o = G.gen_options(ch)
    H = horizon(q, es)
    for kind in EVALUATORS:
        for (m, (s, e)), times in _lifetimes(answers(kind, q, es, o)).items():
            assert times == set(range(e, min(s + T0, e + T1, H) + 1)), (kind, m, (s, e), sorted(times))


# ================================================================================================ P6
@examples(40)
@given(G.cqels_cases(3, 10), G.cqels_options())
def test_P6_intervals_are_well_formed(case, o):
    """docs/semantics/cqels.md#cqels-P6, #cqels-3.7: every answer of every generated case has ``0 <= a <= b <= t``;
    a query with a single ``RANGE T SLIDE d`` window has ``a >= t - (T + d - 1)`` (the window that supplied the
    start point), one with a single ``NOW`` window ``a = b = t``, and one with static patterns under
    ``static_interval = global`` ``a >= tD(t)``."""
    text, es = case
    cq = L.parse(text)
    q, D = cq.query, cq.static
    for kind in EVALUATORS:
        for r in answers(kind, q, es, o, D, cq.until):
            t, (a, b) = r.time, r.interval
            assert 0 <= a <= b <= t, (kind, r)
            if len(q.windows) == 1 and isinstance(q.windows[0].spec, A.RangeWindow):
                spec = q.windows[0].spec
                assert a >= t - (spec.range + spec.slide - 1), (kind, r)
            if len(q.windows) == 1 and isinstance(q.windows[0].spec, A.NowWindow) and o.now == "valid":
                assert a == b == t, (kind, r)
            if q.static and D is not None and o.static_interval == "global":
                assert a >= D.since(t), (kind, r)


# ================================================================================================ P7
def _monotone_query(ch, vs: Fresh, negation: bool, hints=()) -> A.Query:
    """1-2 ``ALL`` windows on ``:s1``/``:s2`` with generated BGPs or SEQs, each its own event clause or one
    event-clause SEQ, and 0-2 generated static patterns; with ``negation`` a negated element at the head or in the
    middle of a SEQ (never at the tail)."""
    windows, shared = [], [X]
    for i in range(2 if ch.boolean(0.3) else 1):
        items = gen_bgps(ch, ch.integer(1, 3), vs)
        if negation and len(items) >= 1 and ch.boolean(0.6):
            neg = A.Neg(G.gen_bgp(ch, vs, shared))
            items = [neg] + items if len(items) == 1 or ch.boolean(0.5) else items[:1] + [neg] + items[1:]
        windows.append(A.Window(u(f"W{i}"), ch.choice([S1, S2]), A.AllWindow(), tsp(items)))
    refs = [A.WinRef(w.name) for w in windows]
    if len(windows) == 2 and ch.boolean(0.6):
        if negation and ch.boolean(0.4):
            refs[0] = A.Neg(refs[0])                     # NO_HEAD over windows
        events: tuple = (A.SeqEC(tuple(refs)),)
    else:
        events = tuple(refs)
    q = A.Query(None, (), tuple(windows), events, ())
    scope = sorted(A.scope_vars(q), key=str)
    static = [G.gen_static_pattern(ch, vs, scope, path=ch.boolean(0.4), hints=hints)
              for _ in range(0 if ch.boolean(0.6) else ch.integer(1, 2))]
    return replace(q, static=tuple(static))


@examples(30)
@given(st.data())
def test_P7_positive_queries_over_all_windows_are_monotone(data):
    """docs/semantics/cqels.md#cqels-P7: a positive query with only ``ALL`` windows, atomic events and a constant
    ``D`` has ``[[Q, t]] ⊆ [[Q, t + 1]]`` (mappings with intervals) for every t up to the horizon."""
    ch = HypothesisChooser(data.draw)
    triples = G.gen_static_triples(ch, ch.integer(0, 10))
    q = _monotone_query(ch, Fresh(), negation=False, hints=triples)
    es = atomic(draw_stream(ch, q, ("s1", "s2"), lo=4, hi=12, hints=triples))
    D = StaticData.constant(triples)
    o = replace(G.gen_options(ch), static_interval=ch.choice(["global", "per_mapping", "unbounded"]))
    H = horizon(q, es, D) + 2
    for kind in EVALUATORS:
        snap = snapshots(answers(kind, q, es, o, D, H), H)
        for t in range(H):
            assert untimed(snap[t]) <= untimed(snap[t + 1]), (kind, t, sorted(untimed(snap[t]) - untimed(snap[t + 1])))


@examples(25)
@given(st.data())
def test_P7_monotone_also_with_head_and_middle_negation(data):
    """Beyond docs/semantics/cqels.md#cqels-P7 (derived here, not in the paper): over ``ALL`` windows and atomic
    events a NO_HEAD or SEQ_WO answer is never withdrawn either, because a blocking negative ends before the
    answer's last component starts, so it has arrived by the time the answer exists and never expires.  Only
    NO_TAIL (and finite windows, non-atomic events, changes of ``D``) break monotonicity."""
    ch = HypothesisChooser(data.draw)
    triples = G.gen_static_triples(ch, ch.integer(0, 10))
    q = _monotone_query(ch, Fresh(), negation=True, hints=triples)
    es = atomic(draw_stream(ch, q, ("s1", "s2"), lo=4, hi=12, hints=triples))
    D = StaticData.constant(triples)
    o = G.gen_options(ch)
    H = horizon(q, es, D) + 2
    for kind in EVALUATORS:
        snap = snapshots(answers(kind, q, es, o, D, H), H)
        for t in range(H):
            assert untimed(snap[t]) <= untimed(snap[t + 1]), (kind, t)


def test_P7_no_tail_and_range_break_monotonicity():
    """docs/semantics/cqels.md#cqels-P7, #cqels-T5: ``SEQ(A, !N)`` over ``ALL`` loses its answer when N arrives
    (A@1, N@3: present at 1 and 2 only); a ``RANGE 2`` window loses A@1 at t = 4; the positive ``ALL`` query keeps
    it."""
    es = els(("x", "pa", "o", 1), ("x", "pn", "o", 3))
    no_tail = one_window([pattern("pa"), A.Neg(pattern("pn"))], A.AllWindow())
    rng = one_window([pattern("pa")], A.RangeWindow(2))
    pos = one_window([pattern("pa")], A.AllWindow())
    for kind in EVALUATORS:
        assert {r.time for r in answers(kind, no_tail, es, until=6)} == {1, 2}, kind
        assert {r.time for r in answers(kind, rng, es, until=6)} == {1, 2, 3}, kind
        assert {r.time for r in answers(kind, pos, es, until=6)} == set(range(1, 7)), kind


# ================================================================================================ P8
@examples(30)
@given(st.data())
def test_P8_range_0_is_now(data):
    """docs/semantics/cqels.md#cqels-P8, #cqels-3.1: ``w_RANGE(S, t, 0) = w_NOW(S, t)`` (``now = valid``): one or two
    windows with generated BGPs (joined, or in an event-clause SEQ, sometimes with a negated window) over generated
    streams with non-atomic elements have the same answers under ``RANGE 0`` as under ``NOW``."""
    ch = HypothesisChooser(data.draw)
    bgps = gen_bgps(ch, ch.integer(1, 2), Fresh())
    streams = [ch.choice([S1, S2]) for _ in bgps]
    if len(bgps) == 2 and ch.boolean(0.4):
        groups = [A.Neg(bgps[0]), [bgps[1]]] if ch.boolean(0.5) else [[bgps[0]], [bgps[1]]]

        def make(spec):
            return window_seq(groups, [spec, spec], streams)
    else:
        def make(spec):
            ws = tuple(A.Window(u(f"W{i}"), s, spec, b) for i, (b, s) in enumerate(zip(bgps, streams)))
            return A.Query(None, (), ws, tuple(A.WinRef(w.name) for w in ws), ())
    q0, qn = make(A.RangeWindow(0)), make(A.NowWindow())
    es = draw_stream(ch, qn, ("s1", "s2"), lo=4, hi=12)
    o = replace(G.gen_options(ch), now="valid")
    for kind in EVALUATORS:
        assert answers(kind, q0, es, o) == answers(kind, qn, es, o), kind


@examples(40)
@given(st.data())
def test_P8_range_grows_with_T(data):
    """docs/semantics/cqels.md#cqels-P8: ``w_RANGE(S, t, T)`` grows with ``T``; exactly, for ``T <= T'``, the entries
    of ``RANGE T`` are those of ``RANGE T'`` that end at or after ``t - T``, their start raised to ``t - T``.  So
    for a window BGP ``[[Q_T, t]] = {<mu, [max(l, t - T), r]> | <mu, [l, r]> in [[Q_T', t]], r >= t - T}`` at every
    t, on generated streams with non-atomic elements, under every switch (``bgp_scope = join`` too: clipping
    commutes with intersection)."""
    ch = HypothesisChooser(data.draw)
    (p,) = gen_bgps(ch, 1, Fresh())
    T = ch.integer(0, 6)
    T2 = T + ch.integer(0, 5)
    q, q2 = one_window([p], A.RangeWindow(T)), one_window([p], A.RangeWindow(T2))
    es = draw_stream(ch, q, hi=10)
    o = G.gen_options(ch)
    H = horizon(q2, es)
    for kind in EVALUATORS:
        small = snapshots(answers(kind, q, es, o, until=H), H)
        big = snapshots(answers(kind, q2, es, o, until=H), H)
        for t in range(H + 1):
            derived = {Answer(t, r.mapping, (max(r.start, t - T), r.end)) for r in big[t] if r.end >= t - T}
            assert small[t] == derived, (kind, t)
            assert {r.mapping for r in small[t]} <= {r.mapping for r in big[t]}
