"""Random CQELS-CEP cases for hypothesis and the Spark fuzzer, on the shared
:class:`~ceplab.workbench.generators.Chooser`.

A case is a query text, a stream (a list of :class:`~ceplab.semantics.rdfstream.StreamElement` sorted by ``(start,
position)``, like every stream of the plugin) and :class:`~ceplab.semantics.cqels.options.Options`.  The query is
drawn as an AST (:mod:`ceplab.semantics.cqels.ast`, so every drawn query satisfies the AST's invariants) and
rendered with :func:`ceplab.semantics.cqels.parser.render`; its static data ``D`` and, sometimes, its horizon are
written into the text as comment lines (:mod:`ceplab.workbench.langs.cqels.query`), so ``parse`` gives the oracle and
the engine the same inputs and reproducers replay them.

What is drawn, so that every construct and every switch is exercised (docs/semantics/cqels.md#cqels-2.5):

* 1-3 windows (sometimes none: a static-only query) on the streams ``:s1``, ``:s2`` (several windows may read one
  stream): ``RANGE T`` (``T`` in 0..10), ``RANGE T SLIDE d``, ``NOW``, ``ALL``, ``TRIPLES n``;
* window patterns: a BGP of 1-2 triple patterns, or ``SEQ`` of 2-4 BGPs (on a window that can hold a sequence,
  mostly) with at most one negated element at the
  head, in the middle or at the tail; BGPs share the subject variable ``?x`` (correlation) or use their own
  variables and constants, variable predicates now and then, FILTERs on their own variables (numbers, IRIs,
  ``&& || !``, ``+ -``, unary minus);
* event clauses: each window on its own, or an event-clause ``SEQ`` over 2-3 windows with at most one negated
  window at the head, in the middle or at the tail (so several event clauses are JOINed);
* a static part of 0-2 triple patterns and 0-2 path patterns over every path construct: ``:p``, ``^:p``, the axes
  ``self next edge node`` and their inverses, ``axis::c`` with IRIs and literals, nested tests ``axis::[e]``
  (nested to depth 3), ``/ | * + ?``; path ends are variables shared with the windows, IRIs or literals;
* top-level FILTERs; ``SELECT *`` or a non-empty subset of the in-scope variables; in random cases, one window BGP
  in five without a FILTER gets a comparison of an object variable with a small integer
  (:func:`add_boundary_filters`);
* stream elements of 1-3 triples (subjects ``:a :b :c``, predicates ``:p :q :r``, skewed towards the first ones;
  objects IRIs or small integers, sometimes a decimal, a double, a string), starts with ties, intervals ``[t1, t1 +
  k]`` (``k = 0`` mostly, up to 4), duplicated elements, elements of a stream no window reads, file order sometimes
  different from time order.  Mostly half or more of the elements are *planted*: the BGPs of one event clause
  instantiated in SEQ order under one binding (negated items included with probability 0.3), interleaved with
  random elements, so that sequences complete, negations block and answers are not mostly empty; a planted negated
  item shares the start of the item before or after it in 70% of the cases (the boundaries of ``SEQ_WO``,
  ``NO_HEAD``, ``NO_TAIL``), a variable a FILTER compares with a constant is planted equal to it half of the time,
  and under ``bgp_scope=join`` a BGP of several triple patterns is planted over several elements in 80% of the
  cases;
* static data of 0-12 triples over the same vocabulary (self-loops and cycles included) with at most one change
  point; static triple patterns are mostly drawn from its triples (terms replaced by variables), and planted
  matches often bind ``?x`` to one of its subjects, so that the JOIN with the static part is not mostly empty; the
  horizon set by ``# until H`` in one case in five;
* every value of every switch of :data:`ceplab.semantics.cqels.options.SWITCHES` (each non-default with
  probability 0.2; drawn before the stream, so that they steer the planted matches);
* one Spark case in eight (not long) is a negation case instead (:func:`gen_negation_case`: one window whose SEQ
  has a negated item, nothing else, negatives planted often and at a neighbour's start);
* with ``long=True`` (and in one Spark case in ten) 40-200 elements with small windows (``RANGE`` up to 4,
  ``TRIPLES`` up to 3, ``NOW``; no ``ALL``) and SEQs of at most 3 elements.
"""
from __future__ import annotations

import random
from typing import Any, Optional, Sequence

from hypothesis import strategies as st
from rdflib import XSD, Literal, URIRef, Variable

from ceplab.semantics.cqels import ast as A
from ceplab.workbench.generators import Chooser, HypothesisChooser, RandomChooser

EX = "http://example.org/"
#: Streams windows read, and one that no generated window reads.
STREAMS: tuple[str, ...] = ("s1", "s2")
FOREIGN = "s9"
#: Subjects (and IRI objects) of stream triples; static data also uses :data:`EXTRA_NODE`.
NODES: tuple[str, ...] = ("a", "b", "c")
EXTRA_NODE = "d"
PREDICATES: tuple[str, ...] = ("p", "q", "r")
VALUES: tuple[int, ...] = (0, 1, 2, 3)
#: Skewed draws (first = most frequent, and what hypothesis shrinks to): matches and joins are frequent.
NODE_DRAW: tuple[str, ...] = ("a", "a", "a", "b", "b", "c")
PREDICATE_DRAW: tuple[str, ...] = ("p", "p", "p", "q", "q", "r")
PREFIXES = (("", EX),)


def _u(x: str) -> URIRef:
    return URIRef(EX + x)


def _int(v: int) -> Literal:
    return Literal(str(v), datatype=XSD.integer)


# ----------------------------------------------------------------------------- expressions
class _Vars:
    """Fresh variable names of one query: ``?x`` is the shared subject; ``?v0, ?v1, ...`` the others."""

    def __init__(self) -> None:
        self.n = 0

    def fresh(self, prefix: str = "v") -> Variable:
        self.n += 1
        return Variable(f"{prefix}{self.n - 1}")


def _const_value(ch: Chooser) -> A.Expr:
    k = ch.integer(0, 9)
    if k <= 6:
        return A.Const(_int(ch.choice(VALUES)))
    if k == 7:
        return A.Const(Literal(f"{ch.choice(VALUES)}.5", datatype=XSD.decimal))
    if k == 8:
        return A.Const(_u(ch.choice(NODE_DRAW)))
    return A.Const(Literal("x"))


def _value(ch: Chooser, vs: Sequence[Variable]) -> A.Expr:
    k = ch.integer(0, 9)
    if k <= 4:
        return A.Var(ch.choice(vs))
    if k <= 7:
        return _const_value(ch)
    if k == 8:
        return A.Arith(ch.choice(["+", "-"]), A.Var(ch.choice(vs)), A.Const(_int(ch.choice(VALUES))))
    return A.UMinus(A.Var(ch.choice(vs)))


def gen_condition(ch: Chooser, vs: Sequence[Variable], depth: int = 1) -> A.Expr:
    """A boolean FILTER expression over the variables ``vs`` (non-empty)."""
    k = ch.integer(0, 9)
    if depth > 0 and k == 7:
        op = ch.choice([A.And, A.Or])
        return op(gen_condition(ch, vs, 0), gen_condition(ch, vs, 0))
    if depth > 0 and k == 8:
        return A.Not(gen_condition(ch, vs, 0))
    if k == 9:
        return A.Const(Literal(ch.choice(["true", "false"]), datatype=XSD.boolean)) if ch.boolean(0.3) else \
            A.Cmp(ch.choice(["=", "!="]), A.Var(ch.choice(vs)), A.Const(_u(ch.choice(NODE_DRAW))))
    op = ch.choice(["<", ">=", "=", "!=", ">", "<="])
    left: A.Expr = A.Var(ch.choice(vs))
    right = _value(ch, vs)
    if ch.boolean(0.2):
        left, right = right, left
    return A.Cmp(op, left, right)


# ----------------------------------------------------------------------------- window patterns
def _object_term(ch: Chooser, vs: _Vars, shared: list[Variable]) -> Any:
    k = ch.integer(0, 19)
    if k <= 11:
        return vs.fresh()
    if k <= 14:
        return _u(ch.choice(NODE_DRAW))
    if k <= 16:
        return _int(ch.choice(VALUES))
    if shared:
        return ch.choice(shared)
    return vs.fresh()


def gen_bgp(ch: Chooser, vs: _Vars, shared: list[Variable]) -> A.BGP:
    """A BGP of 1-2 triple patterns; ``shared`` are variables of other patterns it may reuse (``?x`` first)."""
    subj: Any
    k = ch.integer(0, 9)
    if k <= 6:
        subj = Variable("x")
    elif k == 7:
        subj = _u(ch.choice(NODE_DRAW))
    else:
        subj = ch.choice(shared) if shared and ch.boolean(0.5) else vs.fresh("y")
    triples = []
    for j in range(2 if ch.boolean(0.25) else 1):
        pred: Any = _u(ch.choice(PREDICATE_DRAW)) if not ch.boolean(0.12) else vs.fresh("p")
        triples.append(A.TriplePattern(subj, pred, _object_term(ch, vs, shared)))
    bgp = A.BGP(tuple(triples))
    own = sorted(A.bgp_vars(bgp), key=str)
    filters = (gen_condition(ch, own),) if own and ch.boolean(0.2) else ()
    return A.BGP(bgp.triples, filters)


def _neg_position(ch: Chooser, n: int) -> Optional[int]:
    """None (no negation, 30-40%), or the index of the negated item: the head, the tail or (``n >= 3``) one in the
    middle."""
    k = ch.integer(0, 9)
    if k <= 3 - (n >= 3):
        return None
    if k <= 5:
        return 0
    if k <= 7 and n >= 3:
        return ch.integer(1, n - 2)
    return n - 1


def gen_tsp(ch: Chooser, vs: _Vars, shared: list[Variable], max_items: int = 4) -> A.TSP:
    """A window's pattern: a BGP, or a SEQ of 2..``max_items`` BGPs with at most one negated item."""
    if ch.boolean(0.45):
        return gen_bgp(ch, vs, shared)
    n = 2 if ch.boolean(0.5) else ch.integer(3, max_items)
    neg = _neg_position(ch, n)
    items: list[Any] = []
    for i in range(n):
        b = gen_bgp(ch, vs, shared)
        items.append(A.Neg(b) if i == neg else b)
    return A.SeqTSP(tuple(items))


def gen_spec(ch: Chooser, long: bool = False, seq: bool = False) -> A.WindowSpec:
    """A window expression: RANGE (most often), RANGE with SLIDE, NOW, ALL, TRIPLES (small ones if ``long``).  For a
    SEQ pattern (``seq``), windows that cannot hold two elements in sequence (``NOW``, ``RANGE 0``, ``TRIPLES 1``)
    are drawn only in one case in ten."""
    if seq and not ch.boolean(0.1):
        k = ch.integer(0, 8)
        if k <= 4:
            return A.RangeWindow(ch.integer(2, 4 if long else 10))
        if k == 5:
            return A.RangeWindow(ch.integer(2, 4 if long else 8), ch.integer(2, 4))
        if k == 6 and not long:
            return A.AllWindow()
        return A.TriplesWindow(ch.integer(2, 3 if long else 4))
    k = ch.integer(0, 9)
    if k <= 4:
        return A.RangeWindow(ch.integer(0, 4 if long else 10))
    if k == 5:
        return A.RangeWindow(ch.integer(0, 4 if long else 8), ch.integer(2, 4))
    if k == 6:
        return A.NowWindow()
    if k == 7 and not long:
        return A.AllWindow()
    return A.TriplesWindow(ch.integer(1, 3 if long else 4))


# ----------------------------------------------------------------------------- paths and the static part
def _iri_const(ch: Chooser) -> URIRef:
    return _u(ch.choice(NODES + (EXTRA_NODE,) + PREDICATES))


def gen_path(ch: Chooser, depth: int = 3) -> A.Path:
    """A nested regular expression of nesting depth at most ``depth`` over every constructor."""
    k = ch.integer(0, 11 if depth > 0 else 3)
    kind = ch.choice(A.AXES)
    inv = kind != "self" and ch.boolean(0.3)
    if k <= 1:
        return A.AxisConst("next", ch.boolean(0.25), _u(ch.choice(PREDICATE_DRAW)))     # :p, ^:p
    if k == 2:
        return A.Axis(kind, inv)
    if k == 3:
        c: Any = _iri_const(ch) if ch.boolean(0.8) else _int(ch.choice(VALUES))
        return A.AxisConst(kind, inv, c)
    if k == 4:
        return A.AxisNest(kind, inv, gen_path(ch, depth - 1))
    if k in (5, 6):
        return A.PathSeq(gen_path(ch, depth - 1), gen_path(ch, depth - 1))
    if k == 7:
        return A.PathAlt(gen_path(ch, depth - 1), gen_path(ch, depth - 1))
    if k == 8:
        return A.PathStar(gen_path(ch, depth - 1))
    if k == 9:
        return A.PathPlus(gen_path(ch, depth - 1))
    if k == 10:
        return A.PathOpt(gen_path(ch, depth - 1))
    return A.inverse(gen_path(ch, depth - 1))       # ^(...)


def _end(ch: Chooser, vs: _Vars, shared: list[Variable], nodes: Sequence[Any], literal_ok: bool = True) -> Any:
    """An end of a static pattern: ``?x`` or another variable of the windows (joins), a fresh variable, a node of
    the static data (``nodes``) or a literal."""
    k = ch.integer(0, 19)
    x = Variable("x")
    if k <= 6 and x in shared:
        return x
    if k <= 9 and shared:
        return ch.choice(shared)
    if k <= 14:
        return vs.fresh("z")
    if k == 15 and literal_ok:
        return _int(ch.choice(VALUES))
    return ch.choice(list(nodes)) if nodes and ch.boolean(0.7) else _iri_const(ch)


def gen_static_pattern(ch: Chooser, vs: _Vars, shared: list[Variable], path: bool,
                       hints: Sequence[tuple] = ()) -> A.StaticPattern:
    """A static triple pattern, or a path pattern (``path``).  ``hints`` are triples of the static data: a triple
    pattern is mostly one of them with some terms replaced by variables, so that it matches."""
    nodes = sorted({t[0] for t in hints} | {t[2] for t in hints if isinstance(t[2], URIRef)}, key=str)
    if path:
        p = gen_path(ch)
        s, o = _end(ch, vs, shared, nodes), _end(ch, vs, shared, nodes)
        if ch.boolean(0.5):                     # one end free: the path only has to lead somewhere
            if ch.boolean(0.5):
                s = vs.fresh("z")
            else:
                o = vs.fresh("z")
        if isinstance(p, A.AxisConst) and p.kind == "next" and not p.inverse and isinstance(p.const, URIRef):
            if isinstance(s, Literal):
                s = vs.fresh("z")
            return A.TriplePattern(s, p.const, o)
        return A.PathPattern(s, p, o)
    if hints and ch.boolean(0.75):
        hs, hp, ho = ch.choice(list(hints))
        x = Variable("x")
        k = ch.integer(0, 9)
        subj: Any = x if k <= 4 and x in shared else vs.fresh("z") if k <= 7 else hs
        pred: Any = hp if not ch.boolean(0.15) else vs.fresh("p")
        k = ch.integer(0, 9)
        obj: Any = vs.fresh("z") if k <= 4 else ho if k <= 7 else (ch.choice(shared) if shared else vs.fresh("z"))
        return A.TriplePattern(subj, pred, obj)
    s = _end(ch, vs, shared, nodes, literal_ok=False)
    pred = _u(ch.choice(PREDICATE_DRAW)) if not ch.boolean(0.15) else vs.fresh("p")
    return A.TriplePattern(s, pred, _end(ch, vs, shared, nodes))


# ----------------------------------------------------------------------------- queries
def gen_query_ast(ch: Chooser, *, long: bool = False, streams: Sequence[str] = STREAMS,
                  static_hints: Sequence[tuple] = ()) -> A.Query:
    """A random query AST (module docstring); ``static_hints``: triples of the static data the static patterns are
    drawn after (:func:`gen_static_pattern`)."""
    vs = _Vars()
    k = ch.integer(0, 19)
    n_win = 0 if k == 0 else 1 if k <= 9 else 2 if k <= 15 else 3
    shared: list[Variable] = [Variable("x")]
    windows = []
    for i in range(n_win):
        pattern = gen_tsp(ch, vs, shared, 3 if long else 4)
        spec = gen_spec(ch, long, isinstance(pattern, A.SeqTSP))
        windows.append(A.Window(_u(f"W{i}"), _u(ch.choice(list(streams))), spec, pattern))
        shared = sorted(set(shared) | set(A.tsp_vars(pattern)), key=str)
    events: list[Any] = [A.WinRef(w.name) for w in windows]
    if n_win >= 2 and ch.boolean(0.7):
        m = n_win if ch.boolean(0.6) else ch.integer(2, n_win)
        neg = _neg_position(ch, m)
        items = tuple(A.Neg(A.WinRef(windows[i].name)) if i == neg else A.WinRef(windows[i].name) for i in range(m))
        events = [A.SeqEC(items)] + events[m:]
    q0 = A.Query(None, (), tuple(windows), tuple(events), ()) if windows else None
    scope = sorted(A.scope_vars(q0), key=str) if q0 is not None else []
    static: list[Any] = []
    n_tp = (0 if ch.boolean(0.55) else 1 if ch.boolean(0.75) else 2) if windows else ch.integer(1, 2)
    n_path = 0 if ch.boolean(0.6) else (1 if ch.boolean(0.85) else 2)
    for i in range(n_tp + n_path):
        static.append(gen_static_pattern(ch, vs, scope, path=i >= n_tp, hints=static_hints))
    q = A.Query(None, (), tuple(windows), tuple(events), tuple(static), prefixes=PREFIXES)
    scope = sorted(A.scope_vars(q), key=str)
    filters = (gen_condition(ch, scope),) if scope and ch.boolean(0.2) else ()
    select = None
    if scope and ch.boolean(0.35):
        select = tuple(v for v in scope if ch.boolean(0.5)) or (scope[0],)
    return A.Query(select, (), tuple(windows), tuple(events), tuple(static), filters, prefixes=PREFIXES)


def add_boundary_filters(ch: Chooser, q: A.Query, p: float = 0.2) -> A.Query:
    """``q`` where each window BGP without a FILTER gets, with probability ``p``, one comparison ``?o op c`` of an
    object variable with a small integer (every operator), so that planted matches (:func:`_boundary`) compare
    equal values at the operator's boundary (docs/semantics/cqels.md#cqels-3.6)."""
    import dataclasses

    def with_filter(b: A.BGP) -> A.BGP:
        objs = sorted({tp.o for tp in b.triples if isinstance(tp.o, Variable)}, key=str)
        if b.filters or not objs or not ch.boolean(p):
            return b
        op = ch.choice(["<", "<=", ">", ">=", "=", "!="])
        return A.BGP(b.triples, (A.Cmp(op, A.Var(ch.choice(objs)), A.Const(_int(ch.choice(VALUES)))),))

    windows = []
    for w in q.windows:
        if isinstance(w.pattern, A.BGP):
            pat: Any = with_filter(w.pattern)
        else:
            pat = A.SeqTSP(tuple(A.Neg(with_filter(it.item)) if isinstance(it, A.Neg) else with_filter(it)
                                 for it in w.pattern.items))
        windows.append(dataclasses.replace(w, pattern=pat))
    return dataclasses.replace(q, windows=tuple(windows))


def gen_query(ch: Chooser, **kw: Any) -> str:
    """A random query text (no static data, default horizon); keywords as :func:`gen_query_ast`."""
    from ceplab.semantics.cqels.parser import render

    return render(gen_query_ast(ch, **kw))


# ----------------------------------------------------------------------------- static data
def gen_static_triples(ch: Chooser, n: int) -> list[tuple]:
    """``n`` random static triples over the stream vocabulary (self-loops and 2-cycles now and then)."""
    nodes = NODES + (EXTRA_NODE,)
    out: list[tuple] = []
    while len(out) < n:
        s = _u(ch.choice(nodes))
        p = _u(ch.choice(PREDICATE_DRAW))
        k = ch.integer(0, 9)
        if k == 0:
            out.append((s, p, s))                                  # self-loop
        elif k == 1:
            o = _u(ch.choice(nodes))
            out += [(s, p, o), (o, p, s)]                          # cycle
        elif k == 2:
            out.append((s, p, _int(ch.choice(VALUES))))
        else:
            out.append((s, p, _u(ch.choice(nodes))))
    return out[:n]


def gen_static(ch: Chooser) -> Optional[tuple[list, Optional[list]]]:
    """Static data as ``(triples from time 0, triples of a later version or None)``: 0-12 triples (mostly 2-12)
    and, with probability 0.3, a second version (triples dropped and added); None (no static data) in one case in
    twenty.  :func:`static_data` places the change point."""
    if ch.boolean(0.05):
        return None
    first = gen_static_triples(ch, 0 if ch.boolean(0.1) else ch.integer(2, 12))
    second = None
    if ch.boolean(0.3):
        second = [t for t in first if not ch.boolean(0.3)] + gen_static_triples(ch, ch.integer(0, 3))
    return first, second


def static_data(ch: Chooser, drawn: Optional[tuple[list, Optional[list]]], horizon: int) -> Any:
    """The :class:`~ceplab.semantics.cqels.streams.StaticData` of :func:`gen_static`'s draw, the change point in
    ``1..horizon``; None when there is none or it is empty and constant."""
    from ceplab.semantics.cqels.streams import StaticData

    if drawn is None:
        return None
    first, second = drawn
    versions = [(0, first)]
    if second is not None:
        versions.append((ch.integer(1, max(1, horizon)), second))
    d = StaticData(versions)
    return None if d.is_constant and not d.versions[0].triples else d


# ----------------------------------------------------------------------------- streams
def _object(ch: Chooser) -> Any:
    k = ch.integer(0, 19)
    if k <= 8:
        return _u(ch.choice(NODE_DRAW))
    if k <= 15:
        return _int(ch.choice(VALUES))
    if k == 16:
        return Literal(f"{ch.choice(VALUES)}.5", datatype=XSD.decimal)
    if k == 17:
        return Literal(f"{ch.choice(VALUES)}.0E0", datatype=XSD.double)
    if k == 18:
        return Literal("x")
    return _u(EXTRA_NODE)


def _noise(ch: Chooser) -> tuple[list, Optional[str]]:
    """The triples of a random element (and no stream: the caller draws it)."""
    subj = _u(ch.choice(NODE_DRAW))
    triples = [(subj if j == 0 or ch.boolean(0.6) else _u(ch.choice(NODE_DRAW)), _u(ch.choice(PREDICATE_DRAW)),
                _object(ch)) for j in range(ch.integer(1, 3) if ch.boolean(0.4) else 1)]
    return triples, None


def _boundary(ch: Chooser, filters: Sequence[Any], binding: dict) -> None:
    """Bind, with probability 0.5 each, the variable of a comparison ``?v op c`` (or ``c op ?v``) among ``filters``
    (descending into ``&& || !``) to the constant ``c``, so that planted matches compare equal values and the
    boundary of ``<``/``<=``/``>``/``>=`` is exercised."""
    stack = list(filters)
    while stack:
        e = stack.pop()
        if isinstance(e, (A.And, A.Or)):
            stack += [e.left, e.right]
        elif isinstance(e, A.Not):
            stack.append(e.expr)
        elif isinstance(e, A.Cmp):
            for v, c in ((e.left, e.right), (e.right, e.left)):
                if isinstance(v, A.Var) and isinstance(c, A.Const) and v.var not in binding and ch.boolean(0.5):
                    binding[v.var] = c.term


def _instantiate(ch: Chooser, bgp: A.BGP, binding: dict, extra: Sequence[Any] = ()) -> list:
    """The triples of ``bgp`` under ``binding`` (extended with random values for its unbound variables; a variable a
    FILTER of ``bgp`` or in ``extra`` compares with a constant is bound to that constant half of the time)."""
    _boundary(ch, tuple(bgp.filters) + tuple(extra), binding)
    out = []
    for tp in bgp.triples:
        terms = []
        for k, x in enumerate((tp.s, tp.p, tp.o)):
            if isinstance(x, Variable):
                if x not in binding:
                    binding[x] = _u(ch.choice(NODE_DRAW)) if k == 0 else \
                        _u(ch.choice(PREDICATE_DRAW)) if k == 1 else _object(ch)
                x = binding[x]
                if (k == 0 and not isinstance(x, URIRef)) or (k == 1 and not isinstance(x, URIRef)):
                    x = _u(ch.choice(NODE_DRAW) if k == 0 else ch.choice(PREDICATE_DRAW))
            terms.append(x)
        out.append(tuple(terms))
    return out


def _episode(ch: Chooser, q: A.Query, hints: Sequence[tuple], options: Any = None,
             p_neg: float = 0.3) -> list[list[tuple[list, str]]]:
    """Groups of elements ``(triples, stream)``, in order, that instantiate one event clause of ``q`` under one
    binding (a planted match: the SEQ items of its window patterns in order, each negated item with probability
    ``p_neg``).  The elements of one group get one start time (:func:`gen_stream`): a planted negated item (or the first
    item of a negated window) shares the start of the item before or after it in 70% of the cases (the closed and
    strict bounds of ``SEQ_WO``, ``NO_HEAD``, ``NO_TAIL``); under ``bgp_scope=join`` a BGP of several triple
    patterns is split over several elements in 80% of the cases (at one start or in a row)."""
    binding: dict = {}
    subjects = [t[0] for t in hints]
    binding[Variable("x")] = ch.choice(subjects) if subjects and ch.boolean(0.7) else _u(ch.choice(NODE_DRAW))
    ec = ch.choice(list(q.events))
    refs = [ec] if isinstance(ec, A.WinRef) else list(ec.items)
    out: list[list[tuple[list, str]]] = []
    glue_next = False
    split = options is not None and options.bgp_scope == "join"
    for r in refs:
        if isinstance(r, A.Neg) and not ch.boolean(p_neg):
            continue
        w = q.window((r.item if isinstance(r, A.Neg) else r).name)
        items = [w.pattern] if isinstance(w.pattern, A.BGP) else list(w.pattern.items)
        for n_it, it in enumerate(items):
            neg = isinstance(it, A.Neg)
            if neg and not ch.boolean(p_neg):
                continue
            blocker = neg or (isinstance(r, A.Neg) and n_it == 0)
            bgp = it.item if neg else it
            triples = _instantiate(ch, bgp, dict(binding) if neg else binding, q.filters)
            if split and len(triples) > 1 and ch.boolean(0.8):
                els = [([tr], str(w.stream)) for tr in triples]
                tie = ch.boolean(0.5)
                groups = [els] if tie else [[e] for e in els]
            else:
                groups = [[(triples, str(w.stream))]]
            glue_prev = glue_next
            glue_next = False
            if blocker and ch.boolean(0.7):
                if ch.boolean(0.5):
                    glue_prev = True
                else:
                    glue_next = True
            for g in groups:
                if glue_prev and out:
                    out[-1] = out[-1] + g
                else:
                    out.append(g)
                glue_prev = False
    return out


def gen_stream(ch: Chooser, length: int, streams: Sequence[str] = STREAMS, *, long: bool = False,
               query: Optional[A.Query] = None, hints: Sequence[tuple] = (), options: Any = None,
               p_neg: float = 0.3) -> list:
    """A random stream of ``length`` elements (module docstring), sorted by ``(start, position)``.  With a
    ``query`` that reads streams, mostly half or more of the elements are planted matches of its event clauses
    (:func:`_episode`; their ``?x`` often a subject of the static triples ``hints``), interleaved with random ones."""
    from rdflib import Graph

    from ceplab.semantics.cqels.streams import check_elements
    from ceplab.semantics.rdfstream import StreamElement

    names = list(streams)
    queues: list[list[list[tuple[list, Optional[str]]]]] = []
    budget = length
    if query is not None and query.events:
        target = ch.integer(0, length) if ch.boolean(0.3) else ch.integer(length // 2, length)
        planted = 0
        while planted < target:
            ep = []
            for g in _episode(ch, query, hints, options, p_neg):
                if len(g) > budget:
                    break
                ep.append(g)
                budget -= len(g)
            if not ep:
                break
            queues.append(ep)
            planted += sum(len(g) for g in ep)
    queues += [[[_noise(ch)]] for _ in range(budget)]
    contents: list[tuple[list, Optional[str], bool]] = []
    while queues:                                                # interleave, each episode in its order
        k = ch.integer(0, len(queues) - 1)
        group = queues[k].pop(0)
        contents += [(tr, st_, j > 0) for j, (tr, st_) in enumerate(group)]
        if not queues[k]:
            queues.pop(k)
    raw: list[tuple[list, int, int, str]] = []
    t = ch.integer(0, 2)
    for i, (triples, stream, tied) in enumerate(contents):
        if raw and stream is None and ch.boolean(0.1):          # a duplicate (same graph and interval)
            g, a, b, s = raw[ch.integer(0, len(raw) - 1)]
            raw.append((g, a, b, s if ch.boolean(0.7) else ch.choice(names)))
            continue
        if i and not tied:
            t += ch.choice([0, 0, 1, 1, 1, 2, 3] if not long else [0, 1, 1, 1, 2])
        end = t if ch.boolean(0.8) else t + ch.integer(1, 4)
        if stream is None:
            stream = FOREIGN if ch.boolean(0.05) else ch.choice(names)
        raw.append((triples, t, end, stream))
    order = list(range(len(raw)))
    if len(raw) > 1 and ch.boolean(0.15):                      # file order differs from time order
        for i in range(len(order) - 1, 0, -1):
            j = ch.integer(0, i)
            order[i], order[j] = order[j], order[i]
    elements = []
    for pos, k in enumerate(order):
        triples, a, b, s = raw[k]
        g = Graph()
        for tr in triples:
            g.add(tr)
        elements.append(StreamElement(g, a, b, URIRef(s) if s.startswith("http") else _u(s), pos))
    return check_elements(elements, "<generated>")


# ----------------------------------------------------------------------------- options and cases
def gen_options(ch: Chooser) -> Any:
    """Random switches: each semantic switch (:data:`~ceplab.semantics.cqels.options.SWITCHES`) non-default with
    probability 0.2."""
    from ceplab.semantics.cqels.options import SWITCHES, Options

    kw = {}
    for name, values in SWITCHES.items():
        if ch.boolean(0.2):
            kw[name] = ch.choice(list(values[1:]))
    return Options(**kw)


def gen_case(ch: Chooser, length: int, *, long: bool = False, options: Any = None) -> tuple[str, list]:
    """``(query text with its static data and horizon as comment lines, stream)``; ``options`` (the case's switches)
    steer the planted matches (:func:`_episode`)."""
    text, stream, _o = _case(ch, length, long, options)
    return text, stream


def _case(ch: Chooser, length: int, long: bool, options: Any = None) -> tuple[str, list, Any]:
    """:func:`gen_case`, and with ``options=None`` the switches drawn (:func:`gen_options`) after the query and
    before the stream, so that they steer the stream's planted matches and the queries stay those of the seed."""
    from ceplab.semantics.cqels.results import default_until
    from ceplab.workbench.langs.cqels.query import CqelsQuery, render_query

    drawn = gen_static(ch)
    hints = sorted({t for part in (drawn or ()) if part for t in part}, key=str)
    q = add_boundary_filters(ch, gen_query_ast(ch, long=long, static_hints=hints))
    if options is None:
        options = gen_options(ch)
    stream = gen_stream(ch, length, long=long, query=q, hints=hints, options=options)
    last = max([e.end for e in stream], default=0)
    static = static_data(ch, drawn, last + 2)
    until = None
    if ch.boolean(0.2):
        h = default_until(q, stream, static.change_times if static is not None else ())
        until = ch.integer(0, h + 3)
    return render_query(CqelsQuery(q, static, until)), stream, options


def gen_negation_case(ch: Chooser, length: int) -> tuple[str, list, Any]:
    """A case on one window and nothing else (no static part, no other window, no top-level FILTER, ``SELECT *``)
    whose pattern is a ``SEQ`` of 2-3 BGPs (mostly 3) with one negated item (head, middle (mostly) or tail, i.e.
    ``NO_HEAD``, ``SEQ_WO``, ``NO_TAIL``) and no FILTERs but :func:`add_boundary_filters`', on a stream whose
    planted matches include the negated item in 60% of the cases and
    mostly at the start of a neighbour (:func:`_episode`): the boundaries of docs/semantics/cqels.md#cqels-3.2 and
    #cqels-opt-wo_bounds decide the answers, undiluted by joins."""
    from ceplab.workbench.langs.cqels.query import CqelsQuery, render_query

    vs = _Vars()
    shared = [Variable("x")]
    n = 3 if ch.boolean(0.7) else 2
    neg = (1 if ch.boolean(0.6) else ch.choice([0, 2])) if n == 3 else ch.choice([0, 1])
    items = []
    for i in range(n):
        b = A.BGP(gen_bgp(ch, vs, shared).triples)          # no drawn FILTER: only boundary ones (below)
        items.append(A.Neg(b) if i == neg else b)
    pattern = A.SeqTSP(tuple(items))
    spec = gen_spec(ch, False, True)
    window = A.Window(_u("W0"), _u(ch.choice(list(STREAMS))), spec, pattern)
    q = add_boundary_filters(ch, A.Query(None, (), (window,), (A.WinRef(window.name),), (), prefixes=PREFIXES))
    options = gen_options(ch)
    stream = gen_stream(ch, length, query=q, options=options, p_neg=0.6)
    return render_query(CqelsQuery(q, None, None)), stream, options


#: Share of random cases that are negation cases (:func:`gen_negation_case`).
P_NEGATION_CASE = 0.12


def random_case(rng: random.Random, length: int, *, long: bool = False) -> tuple[str, list, Any]:
    """Spark fuzzing entry: ``(query text, stream, Options)`` from a seeded ``random.Random``; with ``long`` (or for
    one case in ten) the stream has 40-200 elements and the windows are small.  The switches are drawn before the
    stream and steer its planted matches (:func:`_case`).  After the case is drawn, with probability
    :data:`P_NEGATION_CASE` (not for long ones) it is replaced by a :func:`gen_negation_case` drawn next."""
    ch = RandomChooser(rng)
    if long or ch.boolean(0.1):
        long = True
        length = ch.integer(40, 200)
    case = _case(ch, length, long)
    if not long and ch.boolean(P_NEGATION_CASE):
        return gen_negation_case(ch, length)
    return case


# ----------------------------------------------------------------------------- hypothesis
@st.composite
def _queries(draw, kw):
    return gen_query(HypothesisChooser(draw), **kw)


@st.composite
def _streams(draw, min_len, max_len):
    ch = HypothesisChooser(draw)
    return gen_stream(ch, ch.integer(min_len, max_len))


@st.composite
def _cases(draw, min_len, max_len, long):
    ch = HypothesisChooser(draw)
    return gen_case(ch, ch.integer(min_len, max_len), long=long)


@st.composite
def _options(draw):
    return gen_options(HypothesisChooser(draw))


def cqels_queries(**kw: Any) -> st.SearchStrategy[str]:
    """Hypothesis strategy of CQELS-CEP query texts; keywords as :func:`gen_query_ast`."""
    return _queries(kw)


def cqels_streams(min_len: int = 0, max_len: int = 10) -> st.SearchStrategy[list]:
    """Hypothesis strategy of streams (:func:`gen_stream`)."""
    return _streams(min_len, max_len)


def cqels_cases(min_len: int = 0, max_len: int = 10, long: bool = False) -> st.SearchStrategy[tuple[str, list]]:
    """Hypothesis strategy of ``(query text, stream)`` pairs (:func:`gen_case`: static data and horizon included)."""
    return _cases(min_len, max_len, long)


def cqels_options() -> st.SearchStrategy[Any]:
    """Hypothesis strategy of :class:`ceplab.semantics.cqels.options.Options` (:func:`gen_options`)."""
    return _options()


class CqelsStrategies:
    """The registry's strategy bundle for CQELS-CEP.  ``queries()`` draws query texts (parse them with the
    language's ``parse``); ``cases()`` draws a query text (with static data) and a stream together."""

    def queries(self, **kw: Any) -> st.SearchStrategy[str]:
        return cqels_queries(**kw)

    def streams(self, min_len: int = 0, max_len: int = 10) -> st.SearchStrategy[list]:
        return cqels_streams(min_len, max_len)

    def cases(self, min_len: int = 0, max_len: int = 10, long: bool = False) -> st.SearchStrategy[tuple[str, list]]:
        return cqels_cases(min_len, max_len, long)

    def options(self) -> st.SearchStrategy[Any]:
        return cqels_options()

    @staticmethod
    def render(query: Any) -> str:
        if isinstance(query, str):
            return query
        from ceplab.workbench.langs.cqels.query import render_query

        return render_query(query)
