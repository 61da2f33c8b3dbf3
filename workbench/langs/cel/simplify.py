"""Shrinking candidates for CEL queries (:func:`ceplab.workbench.shrink.shrink` calls ``Language.simplify``).

:func:`simplifications` drops the selection strategy and ``WITHIN``, then replaces a sub-formula by one of
its children, drops filters and filter conjuncts/disjuncts: each candidate strictly smaller.
"""
from __future__ import annotations

from typing import Any, Iterator

def _pred_variants(p: Any) -> Iterator[Any]:
    from ceplab.semantics.cel import ast as A

    if isinstance(p, (A.PAnd, A.POr)):
        yield p.left
        yield p.right
        for l in _pred_variants(p.left):
            yield type(p)(l, p.right)
        for r in _pred_variants(p.right):
            yield type(p)(p.left, r)
    elif isinstance(p, A.PNot):
        yield p.arg
        for a in _pred_variants(p.arg):
            yield A.PNot(a)


def _formula_variants(f: Any) -> Iterator[Any]:
    """Formulas with one node replaced by something strictly smaller (biggest cuts first)."""
    from ceplab.semantics.cel import ast as A

    yield from A.children(f)
    if isinstance(f, A.Sel):                   # a nested strategy (docs/semantics/cel.md#cel-G5): its body, then smaller
        yield f.body
        if f.within is not None:
            yield A.Sel(f.strategy, f.body, None)
        for b in _formula_variants(f.body):
            yield A.Sel(f.strategy, b, f.within)
    elif isinstance(f, A.Filter):
        for p in _pred_variants(f.pred):
            yield A.Filter(f.body, p)
        for b in _formula_variants(f.body):
            yield A.Filter(b, f.pred)
    elif isinstance(f, A.Plus):
        for b in _formula_variants(f.body):
            yield A.Plus(b)
    elif isinstance(f, (A.Or, A.Seq, A.And)):
        for l in _formula_variants(f.left):
            yield type(f)(l, f.right)
        for r in _formula_variants(f.right):
            yield type(f)(f.left, r)


def simplifications(query_text: str) -> Iterator[str]:
    """Strictly simpler CEL queries than ``query_text`` (rendered as text), biggest cuts first.

    Drops the strategy, drops ``WITHIN``, then replaces sub-formulas by a child, drops filters and
    parts of filter predicates. Candidates may be ill-formed (the shrinker skips those that fail to
    parse).
    """
    from ceplab.semantics.cel import ast as A
    from ceplab.semantics.cel.options import Options
    from ceplab.semantics.cel.parser import parse

    q = parse(query_text, check=False, options=Options(nested_strategies="compositional"))
    seen = {str(q)}

    def emit(cand: A.Query) -> Iterator[str]:
        s = str(cand)
        if s not in seen:
            seen.add(s)
            yield s

    if q.strategy != "ALL":
        yield from emit(A.Query(q.formula, "ALL", q.within))
    if q.within is not None:
        yield from emit(A.Query(q.formula, q.strategy, None))
    for f in _formula_variants(q.formula):
        yield from emit(A.Query(f, q.strategy, q.within))
