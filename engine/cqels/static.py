"""The static part ``[[P, t]]_D`` of the CQELS-CEP engine: ``sol(P, D(t))`` once per version of ``D``, with nSPARQL
paths (docs/semantics/cqels.md#cqels-3.4, #cqels-3.5).

A path's relation over ``G = D(t)`` is computed bottom-up over its AST as an adjacency map ``x -> {y}``: the axes
from the triples of ``G``, nested tests through the domain of the test's relation, ``/`` by composition, ``|`` by
union, ``e+`` by reachability over the strongly connected components of ``[[e]]`` (networkx; ``(x, x)`` only when
``x`` is on a cycle), ``e*`` and ``e?`` adding the zero-length pairs ``Z``
(``Options.zero_length``: ``voc(G)``, or ``nodes(G)`` plus the IRI/literal ends of the enclosing path pattern).
Sub-paths are memoised per version (equal sub-paths are evaluated once).  Triple patterns are matched by one scan of
``G``; the per-pattern relations are hash-joined on their shared variables.
"""
from __future__ import annotations

from typing import Iterable, Optional

import networkx as nx

from rdflib.term import Variable

from ceplab.semantics.cqels import ast as A
from ceplab.semantics.cqels.options import Options

from ceplab.engine.cqels.match import Terms, compile_bgp, getter, schema_of

Rel = dict  # str -> set[str]


def _converse(r: Rel) -> Rel:
    out: Rel = {}
    for x, ys in r.items():
        for y in ys:
            out.setdefault(y, set()).add(x)
    return out


def _compose(r1: Rel, r2: Rel) -> Rel:
    out: Rel = {}
    for x, zs in r1.items():
        acc: set = set()
        for z in zs:
            ys = r2.get(z)
            if ys:
                acc |= ys
        if acc:
            out[x] = acc
    return out


def _union(r1: Rel, r2: Rel) -> Rel:
    out = {x: set(ys) for x, ys in r1.items()}
    for x, ys in r2.items():
        out.setdefault(x, set()).update(ys)
    return out


def _plus(r: Rel) -> Rel:
    """Transitive closure: ``(x, y)`` iff ``y`` is reachable from ``x`` in one or more steps.  Over the condensation
    of the graph (networkx strongly connected components, in reverse topological order): a component reaches its
    successors' members and what they reach, and itself when it is a cycle (several members or a self-loop), so
    ``(x, x)`` is in the closure exactly when ``x`` lies on a cycle.  Members of one component share one set (the
    relations are never mutated in place)."""
    g = nx.DiGraph()
    for x, ys in r.items():
        for y in ys:
            g.add_edge(x, y)
    cond = nx.condensation(g)
    members = cond.graph["mapping"]
    comp: dict[int, list] = {}
    for x, c in members.items():
        comp.setdefault(c, []).append(x)
    reach: dict[int, frozenset] = {}
    for c in reversed(list(nx.topological_sort(cond))):
        acc: set = set()
        for d in cond.successors(c):
            acc.update(comp[d])
            acc |= reach[d]
        xs = comp[c]
        if len(xs) > 1 or g.has_edge(xs[0], xs[0]):
            acc.update(xs)
        reach[c] = frozenset(acc)
    return {x: reach[members[x]] for x in r if r[x]}


class Graph:
    """``G = D(t)`` as N-Triples triples, with ``voc(G)`` and ``nodes(G)``."""

    def __init__(self, triples: Iterable[tuple[str, str, str]]) -> None:
        self.triples = sorted(set(triples))
        self.voc = {x for t in self.triples for x in t}
        self.nodes = {x for s, _, o in self.triples for x in (s, o)}


class PathEvaluator:
    """The relations of paths over one graph; ``zero`` is the set ``Z`` of zero-length pairs' nodes."""

    def __init__(self, g: Graph, terms: Terms) -> None:
        self.g = g
        self.terms = terms
        self.memo: dict[tuple, Rel] = {}

    def rel(self, e: A.Path, zero: frozenset) -> Rel:
        key = (e, zero)
        r = self.memo.get(key)
        if r is None:
            r = self.memo[key] = self._rel(e, zero)
        return r

    def _axis(self, kind: str, keep) -> Rel:
        """``self`` over voc, or the pairs of ``next`` (s, o), ``edge`` (s, p), ``node`` (p, o) over the triples
        for which ``keep(triple)`` holds (the label being tested: p for next, o for edge, s for node)."""
        out: Rel = {}
        if kind == "self":
            return {x: {x} for x in self.g.voc if keep(x)}
        for s, p, o in self.g.triples:
            if kind == "next":
                if keep(p):
                    out.setdefault(s, set()).add(o)
            elif kind == "edge":
                if keep(o):
                    out.setdefault(s, set()).add(p)
            elif keep(s):
                out.setdefault(p, set()).add(o)
        return out

    def _rel(self, e: A.Path, zero: frozenset) -> Rel:
        if isinstance(e, A.Axis):
            r = self._axis(e.kind, lambda x: True)
            return _converse(r) if e.inverse else r
        if isinstance(e, A.AxisConst):
            c = self.terms.nt(e.const)
            if e.kind == "self":
                return {c: {c}}
            r = self._axis(e.kind, lambda x: x == c)
            return _converse(r) if e.inverse else r
        if isinstance(e, A.AxisNest):
            dom = {x for x, ys in self.rel(e.test, zero).items() if ys}
            r = self._axis(e.kind, dom.__contains__)
            return _converse(r) if e.inverse else r
        if isinstance(e, A.PathSeq):
            return _compose(self.rel(e.left, zero), self.rel(e.right, zero))
        if isinstance(e, A.PathAlt):
            return _union(self.rel(e.left, zero), self.rel(e.right, zero))
        if isinstance(e, A.PathPlus):
            return _plus(self.rel(e.expr, zero))
        if isinstance(e, A.PathStar):
            return _union({x: {x} for x in zero}, _plus(self.rel(e.expr, zero)))
        if isinstance(e, A.PathOpt):
            return _union({x: {x} for x in zero}, self.rel(e.expr, zero))
        raise TypeError(f"not a path: {e!r}")


class StaticPart:
    """``sol(P, G)`` of the query's static patterns (docs/semantics/cqels.md#cqels-3.5): mappings over
    :attr:`schema` (``static_vars``, sorted)."""

    def __init__(self, query: A.Query, options: Options, terms: Terms) -> None:
        self.terms = terms
        self.options = options
        self.schema = schema_of(A.static_vars(query))
        self.patterns = query.static

    def _zero(self, g: Graph, sp: A.PathPattern) -> frozenset:
        if self.options.zero_length == "nsparql":
            return frozenset(g.voc)
        ends = {self.terms.nt(x) for x in (sp.s, sp.o) if not isinstance(x, Variable)}
        return frozenset(g.nodes | ends)

    def _pattern(self, sp, g: Graph, paths: PathEvaluator) -> tuple[tuple[str, ...], set]:
        """One pattern's solutions: (its variables sorted, set of tuples over them)."""
        if isinstance(sp, A.TriplePattern):
            schema = schema_of(A.bgp_vars(A.BGP((sp,))))
            return schema, set(compile_bgp((sp,), schema, self.terms)(g.triples))
        r = paths.rel(sp.path, self._zero(g, sp))
        s, o = sp.s, sp.o
        sv, ov = isinstance(s, Variable), isinstance(o, Variable)
        if not sv and not ov:
            return (), ({()} if self.terms.nt(o) in r.get(self.terms.nt(s), ()) else set())
        if sv and not ov:
            c = self.terms.nt(o)
            return (str(s),), {(x,) for x, ys in r.items() if c in ys}
        if ov and not sv:
            return (str(o),), {(y,) for y in r.get(self.terms.nt(s), ())}
        if s == o:
            return (str(s),), {(x,) for x, ys in r.items() if x in ys}
        if str(s) < str(o):
            return (str(s), str(o)), {(x, y) for x, ys in r.items() for y in ys}
        return (str(o), str(s)), {(y, x) for x, ys in r.items() for y in ys}

    def solutions(self, triples: Iterable[tuple]) -> set:
        """``sol(P, G)`` for ``G`` given as rdflib triples."""
        g = Graph(self.terms.triple(t) for t in triples)
        paths = PathEvaluator(g, self.terms)
        schema: tuple[str, ...] = ()
        rows: Optional[set] = None
        for sp in self.patterns:
            s2, r2 = self._pattern(sp, g, paths)
            if rows is None:
                schema, rows = s2, r2
            else:
                schema, rows = _join(schema, rows, s2, r2)
            if not rows:
                return set()
        assert schema == self.schema
        return rows or set()


def _join(s1: tuple, r1: set, s2: tuple, r2: set) -> tuple[tuple, set]:
    shared = sorted(set(s1) & set(s2))
    schema = tuple(sorted(set(s1) | set(s2)))
    k1 = getter([s1.index(v) for v in shared])
    k2 = getter([s2.index(v) for v in shared])
    merge = getter([s1.index(v) if v in s1 else len(s1) + s2.index(v) for v in schema])
    idx: dict = {}
    for row in r2:
        idx.setdefault(k2(row), []).append(row)
    out = set()
    for row in r1:
        for other in idx.get(k1(row), ()):
            out.add(merge(row + other))
    return schema, out
