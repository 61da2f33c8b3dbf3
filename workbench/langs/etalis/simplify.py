"""Shrinking candidates for ETALIS rule files (:func:`ceplab.workbench.shrink.shrink` calls ``Language.simplify``).

:func:`simplifications` drops a statement (an event rule, a static rule), drops a rule's
``event_rule_window``, replaces a binary pattern by one operand, ``not(n).[p2, p3]`` by ``p2 seq p3`` or a
delimiter, an aggregate by a ``count`` or its start by a smaller pattern, and drops a ``where`` or a window: one
step at a time, biggest cuts first.
"""
from __future__ import annotations

from typing import Any, Iterator

def _pattern_variants(p: Any) -> Iterator[Any]:
    """Patterns with one node replaced by something strictly smaller (biggest cuts first)."""
    from ceplab.semantics.etalis import ast as A

    if isinstance(p, A.Binary):
        yield p.left
        yield p.right
        for l in _pattern_variants(p.left):
            yield A.Binary(p.op, l, p.right)
        for r in _pattern_variants(p.right):
            yield A.Binary(p.op, p.left, r)
    elif isinstance(p, A.Not):
        yield A.Binary("seq", p.start, p.end)
        yield p.start
        yield p.end
        for x in _pattern_variants(p.start):
            yield A.Not(p.negated, x, p.end)
        for x in _pattern_variants(p.end):
            yield A.Not(p.negated, p.start, x)
        for x in _pattern_variants(p.negated):
            yield A.Not(x, p.start, p.end)
    elif isinstance(p, A.Where):
        yield p.pattern
        for x in _pattern_variants(p.pattern):
            yield A.Where(x, p.cond)
    elif isinstance(p, A.Window):
        yield p.pattern
        for x in _pattern_variants(p.pattern):
            yield A.Window(x, p.length)
    elif isinstance(p, A.Aggregate):
        if p.count_window is not None:
            yield A.Aggregate(p.start, p.func, p.arg, p.item, p.result)
        if p.func != "count":            # the simplest aggregate first (its result variable stays bound)
            yield A.Aggregate(p.start, "count", None, p.item, p.result, p.count_window)
        for x in _pattern_variants(p.start):
            yield A.Aggregate(x, p.func, p.arg, p.item, p.result, p.count_window)


def simplifications(query_text: str) -> Iterator[str]:
    """Strictly simpler ETALIS rule bases than ``query_text`` (rendered as text), biggest cuts first.

    Drops a statement; drops a rule's label and properties (its ``event_rule_window``); then, per
    event rule, replaces its body by a strictly smaller pattern (:func:`_pattern_variants`:
    a binary pattern by an operand, ``not`` by ``seq`` or a delimiter, ``where``/window by its
    pattern). Candidates may be ill-formed (e.g. an unsafe head); the shrinker skips those that do
    not parse.
    """
    from ceplab.semantics.etalis import ast as A
    from ceplab.semantics.etalis.parser import parse

    prog = parse(query_text, check=False)
    stmts = list(prog.statements)
    seen = {str(prog)}

    def emit(new: list) -> Iterator[str]:
        s = str(A.Program(tuple(new)))
        if s not in seen:
            seen.add(s)
            yield s

    if len(stmts) > 1:
        for i in range(len(stmts)):
            yield from emit(stmts[:i] + stmts[i + 1:])
    for i, st in enumerate(stmts):
        if isinstance(st, A.EventRule) and (st.label is not None or st.properties):
            rest = [x for x in stmts if not (isinstance(x, A.RuleProperty) and x.label == st.label)]
            j = rest.index(st)
            yield from emit(rest[:j] + [A.EventRule(st.head, st.body)] + rest[j + 1:])
    for i, st in enumerate(stmts):
        if isinstance(st, A.EventRule):
            for b in _pattern_variants(st.body):
                yield from emit(stmts[:i] + [A.EventRule(st.head, b, st.label, st.properties)]
                                + stmts[i + 1:])
