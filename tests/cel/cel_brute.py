"""Test-only brute-force enumerator of CEL semantics (docs/semantics/cel.md#cel-3; paper sections 3-4).

It transcribes the satisfaction relation of docs/semantics/cel.md#cel-3.1 over a *finite* stream prefix
``S[0..n-1]`` with valuations ranging over ``[0, n-1]`` (docs/semantics/cel.md#cel-G2), relationally: every
sub-formula ``f`` denotes a set of pairs ``(beta, C)`` where ``beta`` assigns a position to each
variable that is *free* in ``f`` (only those are enumerated) and ``C`` is a complex event with
``C in [[f]](S, nu)`` for every total ``nu`` extending ``beta``.

Free variables: ``fv(R AS x) = {x}``, ``fv(f FILTER P) = fv(f) | vars(P)``, union for OR / ``;`` /
AND, and ``fv(r+) = fv(r) - vdef+(r)`` (each round rebinds ``vdef+(r)``; closed form of docs/semantics/cel.md#cel-3.1:
``C in [[r+]](S, nu)`` iff ``C = C1 . ... . Ck`` with each ``Ci in [[r]](S, nu[nu_i/U])`` for
independent ``nu_i``).

A nested strategy ``SEL(psi)`` (docs/semantics/cel.md#cel-G5, ``nested_strategies="compositional"``) is closed: it has
no free variable and denotes ``{((), C) | C in SEL([[psi WITHIN n]](S))}``, the strategy applied
per end position (MAX too, whatever ``max_scope`` says).

The selection strategies and ``WITHIN`` are a separate literal transcription of docs/semantics/cel.md#cel-3.2 (and G4,
G8), independent of :func:`ceplab.asp.cel.strategy_filter`, so the two cross-check each other.

Only for tiny streams (<= ~8 events): the number of CEs may be exponential.
"""
from __future__ import annotations

from itertools import product
from typing import Iterable

from ceplab.semantics.cel.analysis import vdef_plus
from ceplab.semantics.cel.ast import (And, Atom, FalseF, Filter, Formula, Or, Plus, Query, Sel, Seq,
                               pred_vars)
from ceplab.semantics.cel.options import Options
from ceplab.semantics.cel.predicates import holds
from ceplab.semantics.events import Stream

CE = tuple[int, ...]


class _Rel:
    """A set of (binding, CE) pairs; ``vars`` is the sorted tuple of variables a binding covers."""

    __slots__ = ("vars", "rows")

    def __init__(self, vars_: tuple[str, ...], rows: set[tuple[tuple[int, ...], CE]]) -> None:
        self.vars = vars_
        self.rows = rows


def _extend(rel: _Rel, target: tuple[str, ...], n: int) -> _Rel:
    """Extend every binding freely (all positions) to the variables ``target`` (a superset)."""
    if rel.vars == target:
        return rel
    idx = {v: i for i, v in enumerate(rel.vars)}
    new = [v for v in target if v not in idx]
    rows: set = set()
    for beta, c in rel.rows:
        for ext in product(range(n), repeat=len(new)):
            e = dict(zip(new, ext))
            rows.add((tuple(beta[idx[v]] if v in idx else e[v] for v in target), c))
    return _Rel(target, rows)


def _join(l: _Rel, r: _Rel, combine) -> _Rel:
    """Natural join on shared variables; ``combine(C1, C2)`` returns the CE or None."""
    target = tuple(sorted(set(l.vars) | set(r.vars)))
    shared = [v for v in l.vars if v in r.vars]
    li = [l.vars.index(v) for v in shared]
    ri = [r.vars.index(v) for v in shared]
    index: dict = {}
    for beta, c in r.rows:
        index.setdefault(tuple(beta[i] for i in ri), []).append((beta, c))
    lpos = {v: i for i, v in enumerate(l.vars)}
    rpos = {v: i for i, v in enumerate(r.vars)}
    rows: set = set()
    for b1, c1 in l.rows:
        for b2, c2 in index.get(tuple(b1[i] for i in li), ()):
            c = combine(c1, c2)
            if c is not None:
                rows.add((tuple(b1[lpos[v]] if v in lpos else b2[rpos[v]] for v in target), c))
    return _Rel(target, rows)


def _concat(c1: CE, c2: CE) -> CE | None:
    """``C1 . C2`` (docs/semantics/cel.md#cel-1): defined iff max C1 < min C2."""
    return c1 + c2 if c1[-1] < c2[0] else None


def _sem(f: Formula, stream: Stream) -> _Rel:
    n = len(stream)
    if isinstance(f, Atom):
        return _Rel((f.var,), {((p,), (p,)) for p in range(n) if stream[p].type == f.rel})
    if isinstance(f, FalseF):
        return _Rel((), set())
    if isinstance(f, Sel):   # closed block (docs/semantics/cel.md#cel-G5)
        return _Rel((), {((), c) for c in brute(f.query(), stream, Options())})
    if isinstance(f, Filter):
        body = _sem(f.body, stream)
        target = tuple(sorted(set(body.vars) | pred_vars(f.pred)))
        ext = _extend(body, target, n)
        rows = set()
        for beta, c in ext.rows:
            env = {v: stream[p] for v, p in zip(target, beta)}
            if holds(f.pred, env):
                rows.add((beta, c))
        return _Rel(target, rows)
    if isinstance(f, Or):
        l, r = _sem(f.left, stream), _sem(f.right, stream)
        target = tuple(sorted(set(l.vars) | set(r.vars)))
        return _Rel(target, _extend(l, target, n).rows | _extend(r, target, n).rows)
    if isinstance(f, Seq):
        return _join(_sem(f.left, stream), _sem(f.right, stream), _concat)
    if isinstance(f, And):
        return _join(_sem(f.left, stream), _sem(f.right, stream),
                     lambda a, b: a if a == b else None)
    if isinstance(f, Plus):
        body = _sem(f.body, stream)
        u = vdef_plus(f.body)
        keep = [i for i, v in enumerate(body.vars) if v not in u]
        target = tuple(body.vars[i] for i in keep)
        groups: dict[tuple[int, ...], set[CE]] = {}
        for beta, c in body.rows:
            groups.setdefault(tuple(beta[i] for i in keep), set()).add(c)
        rows = set()
        for beta, base in groups.items():
            closure = set(base)
            frontier = set(base)
            while frontier:  # terminates: every concatenation adds >= 1 position
                nxt = set()
                for c in frontier:
                    for d in base:
                        cd = _concat(c, d)
                        if cd is not None and cd not in closure:
                            nxt.add(cd)
                closure |= nxt
                frontier = nxt
            rows |= {(beta, c) for c in closure}
        return _Rel(target, rows)
    raise TypeError(f"unknown formula node {f!r}")


def brute_all(formula: Formula, stream: Stream) -> frozenset[CE]:
    """``[[formula]](S)`` over the finite prefix (docs/semantics/cel.md#cel-3.1 + G2): sorted position tuples."""
    if len(stream) == 0:
        return frozenset()
    return frozenset(c for _, c in _sem(formula, stream).rows)


# ------------------------------------------------------------ strategies (docs/semantics/cel.md#cel-3.2), literal
def le_next(c1: CE, c2: CE) -> bool:
    """``C1 <=next C2`` iff C1 = C2 or min(C1 delta C2) in C2."""
    d = set(c1) ^ set(c2)
    return not d or min(d) in c2


def le_last(c1: CE, c2: CE) -> bool:
    """``C1 <=last C2`` iff C1 = C2 or max(C1 delta C2) in C2."""
    d = set(c1) ^ set(c2)
    return not d or max(d) in c2


def select(strategy: str, ces: Iterable[CE], options: Options = Options()) -> frozenset[CE]:
    """Apply a selection strategy to ``[[phi]](S)`` (literal docs/semantics/cel.md#cel-3.2; MAX scope per G4)."""
    ces = frozenset(ces)
    same_end = lambda c: [d for d in ces if d[-1] == c[-1]]  # noqa: E731
    if strategy == "ALL":
        return ces
    if strategy == "STRICT":
        return frozenset(c for c in ces if all(i in c for i in range(c[0], c[-1] + 1)))
    if strategy == "NXT":
        return frozenset(c for c in ces if all(le_next(d, c) for d in same_end(c)))
    if strategy == "LAST":
        return frozenset(c for c in ces if all(le_last(d, c) for d in same_end(c)))
    if strategy == "MAX":
        scope = (lambda c: ces) if options.max_scope == "global" else same_end
        return frozenset(c for c in ces if not any(set(c) < set(d) for d in scope(c)))
    raise ValueError(f"unknown strategy {strategy!r}")


def brute(query: Query, stream: Stream, options: Options = Options()) -> frozenset[CE]:
    """Brute-force result of a CEL query on a finite stream prefix.

    Args:
        query: the query (formula, strategy, optional ``within``).
        stream: a tiny stream (<= ~8 events).
        options: CEL switches (only ``max_scope`` matters).

    Returns:
        ``SEL(phi WITHIN n)`` as a frozenset of sorted position tuples.
    """
    ces = brute_all(query.formula, stream)
    if query.within is not None:
        ces = frozenset(c for c in ces if c[-1] - c[0] <= query.within)
    return select(query.strategy, ces, options)
