"""Predicate semantics for CEL filters (docs/semantics/cel.md#cel-G6), shared by oracle and engine.

A predicate is a set of tuples: ``x.temp > 40`` holds exactly on the events that *have* ``temp`` with
a value above 40; an event lacking the attribute (or holding a value of another kind) is not in it,
and is in its complement (``NOT``). Numbers (int/float) compare with numbers, strings with strings
(lexicographically); booleans equal only booleans. Both evaluators and the oracle's fact generator use
these functions, so comparison semantics is implemented exactly once.
"""
from __future__ import annotations

import operator
from typing import Any, Mapping

from ceplab.semantics.cel.ast import Cmp, Cmp2, PAnd, PFalse, PNot, POr, Pred, PTrue
from ceplab.semantics.events import Event

_OPF = {"<": operator.lt, "<=": operator.le, "=": operator.eq, "!=": operator.ne,
        ">=": operator.ge, ">": operator.gt}


def _kind(v: Any) -> int:
    if isinstance(v, bool):
        return 2
    if isinstance(v, (int, float)):
        return 0
    if isinstance(v, str):
        return 1
    return 3


_MISSING = object()


def compare(a: Any, op: str, b: Any) -> bool:
    """``a OP b`` if both values are of the same kind (number, string, boolean), else False."""
    if a is _MISSING or b is _MISSING:
        return False
    ka = _kind(a)
    if ka != _kind(b) or ka == 3:
        return False
    if ka == 2 and op not in ("=", "!="):
        return False
    return _OPF[op](a, b)


def holds_cmp(c: Cmp, e: Event) -> bool:
    """Truth of a unary comparison on one event."""
    return compare(e.attrs.get(c.attr, _MISSING), c.op, c.value)


def holds_cmp2(c: Cmp2, e1: Event, e2: Event) -> bool:
    """Truth of ``x.a OP y.b`` with x -> e1 and y -> e2."""
    return compare(e1.attrs.get(c.attr, _MISSING), c.op, e2.attrs.get(c.attr2, _MISSING))


def holds(p: Pred, env: Mapping[str, Event]) -> bool:
    """Truth of a predicate under a valuation ``env`` (variable -> event).

    Raises:
        KeyError: a variable of ``p`` is missing from ``env``.
    """
    if isinstance(p, Cmp):
        return holds_cmp(p, env[p.var])
    if isinstance(p, Cmp2):
        return holds_cmp2(p, env[p.var], env[p.var2])
    if isinstance(p, PAnd):
        return holds(p.left, env) and holds(p.right, env)
    if isinstance(p, POr):
        return holds(p.left, env) or holds(p.right, env)
    if isinstance(p, PNot):
        return not holds(p.arg, env)
    if isinstance(p, PTrue):
        return True
    if isinstance(p, PFalse):
        return False
    raise TypeError(p)


def holds_unary(p: Pred, e: Event) -> bool:
    """Truth of a predicate all of whose comparisons are about one variable, on event ``e``."""
    if isinstance(p, Cmp):
        return holds_cmp(p, e)
    if isinstance(p, Cmp2):
        return holds_cmp2(p, e, e)
    if isinstance(p, PAnd):
        return holds_unary(p.left, e) and holds_unary(p.right, e)
    if isinstance(p, POr):
        return holds_unary(p.left, e) or holds_unary(p.right, e)
    if isinstance(p, PNot):
        return not holds_unary(p.arg, e)
    return isinstance(p, PTrue)
