"""Query simplifications for shrinking CQELS-CEP counterexamples (``Language.simplify``).

Each candidate is a strictly smaller case than the query text it comes from (:func:`size`: AST nodes plus window
parameters plus static triples, so shrinking terminates; rendered texts use full IRIs, so text length is no
measure).  Candidates, biggest cuts first:

* an event clause dropped (with its windows); an event-clause ``SEQ`` replaced by one of its positive windows, or
  with one item dropped, or with its negated item made positive;
* in a window's pattern: a ``SEQ`` replaced by one positive element, an element dropped, the negation dropped; a
  triple pattern or a FILTER of a BGP dropped;
* a window made smaller: ``SLIDE`` dropped, ``RANGE T`` halved, ``TRIPLES n`` halved;
* a static pattern dropped; a path replaced by a sub-path (an operand of ``/ |``, the operand of ``* + ?``, the
  test of ``axis::[e]`` dropped to the bare axis);
* a top-level FILTER dropped, or replaced by an operand of ``&& || !``; ``SELECT`` widened to ``*``;
* then the static data: all of it dropped, a later version dropped, or one triple dropped.

After a cut, SELECT variables, FILTERs and windows that are no longer in scope or used are pruned.  Candidates are
produced on the AST and rendered with the static data and horizon as comment lines
(:func:`ceplab.workbench.langs.cqels.query.render_query`); those without concrete syntax are skipped.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Iterator

from rdflib.term import Literal, URIRef

from ceplab.semantics.cqels import ast as A


# ----------------------------------------------------------------------------- size
def _expr_size(e: Any) -> int:
    if isinstance(e, (A.Var, A.Const)):
        return 1
    if isinstance(e, (A.UMinus, A.Not)):
        return 1 + _expr_size(e.expr)
    return 1 + _expr_size(e.left) + _expr_size(e.right)


def _path_size(e: Any) -> int:
    if isinstance(e, (A.Axis, A.AxisConst)):
        return 1
    if isinstance(e, A.AxisNest):
        return 1 + _path_size(e.test)
    if isinstance(e, (A.PathSeq, A.PathAlt)):
        return 1 + _path_size(e.left) + _path_size(e.right)
    return 1 + _path_size(e.expr)


def _bgp_size(b: A.BGP) -> int:
    return 1 + len(b.triples) + sum(_expr_size(f) for f in b.filters)


def _tsp_size(p: Any) -> int:
    if isinstance(p, A.BGP):
        return _bgp_size(p)
    return 1 + sum(1 + _bgp_size(it.item) if isinstance(it, A.Neg) else _bgp_size(it) for it in p.items)


def _spec_size(s: Any) -> int:
    if isinstance(s, A.RangeWindow):
        return 1 + s.range + (s.slide if s.slide != 1 else 0)
    if isinstance(s, A.TriplesWindow):
        return 1 + s.count
    return 1


def query_size(q: A.Query) -> int:
    """The number of AST nodes of ``q``, window parameters counted by value."""
    n = 1 + (0 if q.select is None else 1 + len(q.select))
    n += sum(1 + _spec_size(w.spec) + _tsp_size(w.pattern) for w in q.windows)
    n += sum(1 if isinstance(ec, A.WinRef) else 1 + sum(2 if isinstance(it, A.Neg) else 1 for it in ec.items)
             for ec in q.events)
    n += sum(1 if isinstance(sp, A.TriplePattern) else 1 + _path_size(sp.path) for sp in q.static)
    n += sum(_expr_size(f) for f in q.filters)
    return n


def size(query: Any) -> int:
    """The size of a :class:`~ceplab.workbench.langs.cqels.query.CqelsQuery`: :func:`query_size` plus the static
    triples of every version plus the number of versions."""
    st = query.static
    extra = 0 if st is None else sum(1 + len(v.triples) for v in st.versions)
    return query_size(query.query) + extra


# ----------------------------------------------------------------------------- variants
def _expr_variants(e: Any) -> Iterator[Any]:
    if isinstance(e, (A.And, A.Or)):
        yield e.left
        yield e.right
    elif isinstance(e, A.Not):
        yield e.expr


def _bgp_variants(b: A.BGP) -> Iterator[A.BGP]:
    for i in range(len(b.filters)):
        yield A.BGP(b.triples, b.filters[:i] + b.filters[i + 1:])
    if len(b.triples) > 1:
        for i in range(len(b.triples)):
            triples = b.triples[:i] + b.triples[i + 1:]
            vs = A.bgp_vars(A.BGP(triples))
            yield A.BGP(triples, tuple(f for f in b.filters if A.expr_vars(f) <= vs))


def _tsp_variants(p: Any) -> Iterator[Any]:
    if isinstance(p, A.BGP):
        yield from _bgp_variants(p)
        return
    items = p.items
    for it in items:                                   # one positive element
        if isinstance(it, A.BGP):
            yield it
    for i in range(len(items)):                        # one element dropped
        rest = items[:i] + items[i + 1:]
        if len(rest) >= 2 and any(isinstance(x, A.BGP) for x in rest):
            yield A.SeqTSP(rest)
    for i, it in enumerate(items):                     # negation dropped; an element's BGP made smaller
        if isinstance(it, A.Neg):
            yield A.SeqTSP(items[:i] + (it.item,) + items[i + 1:])
        inner = it.item if isinstance(it, A.Neg) else it
        for v in _bgp_variants(inner):
            yield A.SeqTSP(items[:i] + ((A.Neg(v),) if isinstance(it, A.Neg) else (v,)) + items[i + 1:])


def _spec_variants(s: Any) -> Iterator[Any]:
    if isinstance(s, A.RangeWindow):
        if s.slide != 1:
            yield A.RangeWindow(s.range)
        if s.range > 0:
            yield A.RangeWindow(s.range // 2, s.slide)
    elif isinstance(s, A.TriplesWindow) and s.count > 1:
        yield A.TriplesWindow(s.count // 2)


def _path_variants(e: Any) -> Iterator[Any]:
    if isinstance(e, (A.PathSeq, A.PathAlt)):
        yield e.left
        yield e.right
        for v in _path_variants(e.left):
            yield dataclasses.replace(e, left=v)
        for v in _path_variants(e.right):
            yield dataclasses.replace(e, right=v)
    elif isinstance(e, (A.PathStar, A.PathPlus, A.PathOpt)):
        yield e.expr
        for v in _path_variants(e.expr):
            yield dataclasses.replace(e, expr=v)
    elif isinstance(e, A.AxisNest):
        yield A.Axis(e.kind, e.inverse)
        for v in _path_variants(e.test):
            yield A.AxisNest(e.kind, e.inverse, v)


def _static_pattern(s: Any, path: Any, o: Any) -> Any:
    """A static pattern for ``s path o`` (a plain ``:p`` path is a TriplePattern), or None when it has none."""
    if isinstance(path, A.AxisConst) and path.kind == "next" and not path.inverse and isinstance(path.const, URIRef):
        if isinstance(s, Literal):
            return None
        return A.TriplePattern(s, path.const, o)
    return A.PathPattern(s, path, o)


def _build(q: A.Query, **changes: Any) -> A.Query | None:
    """``q`` with ``changes`` (fields of :class:`~ceplab.semantics.cqels.ast.Query`), pruned: windows no event clause
    uses dropped, SELECT variables and FILTERs cut to the variables still in scope; None when nothing is left or
    the result breaks an AST invariant."""
    f = {k: changes.get(k, getattr(q, k)) for k in ("select", "graphs", "windows", "events", "static", "filters")}
    used = {r.name for ec in f["events"] for r in A.ec_windows(ec)}
    f["windows"] = tuple(w for w in f["windows"] if w.name in used)
    if not f["events"] and not f["static"]:
        return None
    try:
        scope = A.scope_vars(A.Query(None, f["graphs"], f["windows"], f["events"], f["static"]))
        f["filters"] = tuple(x for x in f["filters"] if A.expr_vars(x) <= scope)
        if f["select"] is not None:
            f["select"] = tuple(v for v in f["select"] if v in scope) or None
        return A.Query(**f, prefixes=q.prefixes)
    except ValueError:
        return None


def ast_simplifications(q: A.Query) -> Iterator[A.Query]:
    """Smaller variants of ``q`` (module docstring), pruned; not all of them have concrete syntax."""
    rep = dataclasses.replace

    def out(**changes: Any) -> Iterator[A.Query]:
        p = _build(q, **changes)
        if p is not None:
            yield p

    ev = q.events
    for i, ec in enumerate(ev):                                       # event clauses
        yield from out(events=ev[:i] + ev[i + 1:])
        if isinstance(ec, A.SeqEC):
            items = ec.items
            for it in items:
                if isinstance(it, A.WinRef):
                    yield from out(events=ev[:i] + (it,) + ev[i + 1:])
            for j in range(len(items)):
                rest = items[:j] + items[j + 1:]
                if len(rest) >= 2 and any(isinstance(x, A.WinRef) for x in rest):
                    yield from out(events=ev[:i] + (A.SeqEC(rest),) + ev[i + 1:])
            for j, it in enumerate(items):
                if isinstance(it, A.Neg):
                    yield from out(events=ev[:i] + (A.SeqEC(items[:j] + (it.item,) + items[j + 1:]),)
                                       + ev[i + 1:])
    for i, w in enumerate(q.windows):                                 # window patterns and specs
        for p in _tsp_variants(w.pattern):
            yield from out(windows=q.windows[:i] + (rep(w, pattern=p),) + q.windows[i + 1:])
        for s in _spec_variants(w.spec):
            yield from out(windows=q.windows[:i] + (rep(w, spec=s),) + q.windows[i + 1:])
    for i, sp in enumerate(q.static):                                 # static patterns
        yield from out(static=q.static[:i] + q.static[i + 1:])
        if isinstance(sp, A.PathPattern):
            for v in _path_variants(sp.path):
                new = _static_pattern(sp.s, v, sp.o)
                if new is not None:
                    yield from out(static=q.static[:i] + (new,) + q.static[i + 1:])
    for i, f in enumerate(q.filters):                                 # top-level filters
        yield from out(filters=q.filters[:i] + q.filters[i + 1:])
        for v in _expr_variants(f):
            yield from out(filters=q.filters[:i] + (v,) + q.filters[i + 1:])
    if q.select is not None:
        yield from out(select=None)


def static_simplifications(static: Any) -> Iterator[Any]:
    """No static data at all (None); static data with a later version dropped; with one triple dropped from one
    version."""
    if static is None:
        return
    from ceplab.semantics.cqels.streams import StaticData

    yield None

    vs = [(v.since, sorted(v.triples, key=lambda t: tuple(str(x) for x in t))) for v in static.versions]
    for k in range(1, len(vs)):
        yield StaticData(vs[:k] + vs[k + 1:])
    for k, (since, triples) in enumerate(vs):
        for j in range(len(triples)):
            yield StaticData(vs[:k] + [(since, triples[:j] + triples[j + 1:])] + vs[k + 1:])


def simplifications(text: str) -> Iterator[str]:
    """Strictly smaller query texts than ``text`` (module docstring); nothing if ``text`` does not parse."""
    from ceplab.semantics.errors import CeplabError
    from ceplab.workbench.langs.cqels.query import CqelsQuery, parse_query, render_query

    try:
        cq = parse_query(text)
    except CeplabError:
        return
    n = size(cq)
    seen = {render_query(cq)}

    def emit(c: CqelsQuery) -> Iterator[str]:
        if size(c) >= n:
            return
        try:
            s = render_query(c)
        except (CeplabError, ValueError):
            return
        if s not in seen:
            seen.add(s)
            yield s

    for v in ast_simplifications(cq.query):
        yield from emit(CqelsQuery(v, cq.static, cq.until))
    for st in static_simplifications(cq.static):
        yield from emit(CqelsQuery(cq.query, st, cq.until))
