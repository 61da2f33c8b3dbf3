"""Minimise a failing (query, stream) case (DESIGN.md section 2).

:func:`shrink` is language-neutral. It greedily tries smaller cases and keeps any on which the
failure predicate still holds, until nothing smaller fails (or a budget runs out):

* **events**: drop chunks of events (halves, quarters, ..., single events, delta-debugging style);
  positions are renumbered ``0..n-1``, and if every event had ``time == position`` (the generated
  streams) times are renumbered the same way, otherwise the original (still ordered) times are kept;
* **query**: the language's ``Language.extra["simplify"](query) -> iterable of query texts`` hook,
  each candidate strictly smaller; candidates that do not parse are skipped.

For CEL, :func:`cel_simplifications` replaces a sub-formula by one of its children, drops filters and
filter conjuncts/disjuncts, and drops the selection strategy and ``WITHIN``.

Streams that are not :class:`ceplab.semantics.events.Stream` values (ETALIS: lists of ``StreamEvent``) are
cut by the language's ``extra["drop_events"](stream, indices)`` hook.

For ETALIS, :func:`etalis_simplifications` drops a statement (an event rule, a static rule), drops a
rule's ``event_rule_window``, replaces a binary pattern by one operand, ``not(n).[p2, p3]`` by
``p2 seq p3`` or a delimiter, and drops a ``where`` or a window: one step at a time, biggest cuts
first.

For EP-SPARQL, :func:`epsparql_simplifications` drops a query (a CONSTRUCT rule or a SELECT), replaces
a binary operator by an operand, drops a FILTER or an optional operator's ``F``, or drops a triple
pattern from a block; inline background knowledge (``# background ...`` lines) is kept, and dropped one
line at a time last.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator

from ceplab.semantics.events import Event, Stream


@dataclass
class Shrunk:
    """A minimised case: ``query`` text, ``stream``, and how many predicate checks it took."""

    query: str
    stream: Stream
    checks: int
    steps: int


def drop_events(stream: Stream, drop: Iterable[int]) -> Stream:
    """``stream`` without the events at the given indices, positions (and times) renumbered."""
    d = set(drop)
    kept = [e for i, e in enumerate(stream.events) if i not in d]
    renumber_time = all(e.time == e.position and e.end == e.time for e in stream.events)
    out = []
    for i, e in enumerate(kept):
        if renumber_time:
            out.append(Event(e.type, i, e.attrs, i))
        else:
            out.append(Event(e.type, e.time, e.attrs, i, e.end))
    return Stream(out, stream.name)


def _event_candidates(n: int) -> Iterator[list[int]]:
    """Index sets to drop: chunks of size n/2, n/4, ..., 1 (largest first)."""
    size = n // 2 if n > 1 else 1
    while size >= 1:
        for start in range(0, n, size):
            yield list(range(start, min(n, start + size)))
        if size == 1:
            break
        size //= 2


def shrink(lang: Any, query_text: str, stream: Stream, fails: Callable[[str, Stream], bool],
           max_checks: int = 400, deadline_s: float = 60.0) -> Shrunk:
    """Greedily minimise a failing case.

    Args:
        lang: the Language (its ``extra["simplify"]`` hook is used for queries; ``parse`` checks
            candidates).
        query_text: the failing query.
        stream: the failing stream.
        fails: ``fails(query_text, stream) -> bool``, True while the case still shows the failure
            (exceptions inside it count as "does not fail").
        max_checks: at most this many calls of ``fails``.
        deadline_s: stop after this many seconds (the best case so far is returned).

    Returns:
        A :class:`Shrunk` case on which ``fails`` holds (the input itself if nothing smaller fails).
    """
    simplify = getattr(lang, "extra", {}).get("simplify")
    dropper = getattr(lang, "extra", {}).get("drop_events") or drop_events
    t_end = time.monotonic() + deadline_s
    checks = steps = 0

    def check(q: str, s: Stream) -> bool:
        nonlocal checks
        checks += 1
        try:
            return bool(fails(q, s))
        except Exception:
            return False

    def budget() -> bool:
        return checks < max_checks and time.monotonic() < t_end

    cur_q, cur_s = query_text, stream
    progress = True
    while progress and budget():
        progress = False
        # 1. events
        n = len(cur_s)
        for drop in _event_candidates(n):
            if not budget():
                break
            cand = dropper(cur_s, drop)
            if check(cur_q, cand):
                cur_s, progress = cand, True
                steps += 1
                break
        if progress:
            continue
        # 2. query
        if simplify is None:
            break
        try:
            cands = list(simplify(cur_q, lang))
        except Exception:
            cands = []
        for q in cands:
            if not budget():
                break
            try:
                lang.parse(q)
            except Exception:
                continue
            if check(q, cur_s):
                cur_q, progress = q, True
                steps += 1
                break
    return Shrunk(cur_q, cur_s, checks, steps)


# ----------------------------------------------------------------------------- CEL queries
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
    if isinstance(f, A.Sel):                   # a nested strategy (note G5): its body, then smaller
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


def cel_simplifications(query_text: str, lang: Any = None) -> Iterator[str]:
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


# ----------------------------------------------------------------------------- ETALIS programs
def _etalis_pattern_variants(p: Any) -> Iterator[Any]:
    """Patterns with one node replaced by something strictly smaller (biggest cuts first)."""
    from ceplab.semantics.etalis import ast as A

    if isinstance(p, A.Binary):
        yield p.left
        yield p.right
        for l in _etalis_pattern_variants(p.left):
            yield A.Binary(p.op, l, p.right)
        for r in _etalis_pattern_variants(p.right):
            yield A.Binary(p.op, p.left, r)
    elif isinstance(p, A.Not):
        yield A.Binary("seq", p.start, p.end)
        yield p.start
        yield p.end
        for x in _etalis_pattern_variants(p.start):
            yield A.Not(p.negated, x, p.end)
        for x in _etalis_pattern_variants(p.end):
            yield A.Not(p.negated, p.start, x)
        for x in _etalis_pattern_variants(p.negated):
            yield A.Not(x, p.start, p.end)
    elif isinstance(p, A.Where):
        yield p.pattern
        for x in _etalis_pattern_variants(p.pattern):
            yield A.Where(x, p.cond)
    elif isinstance(p, A.Window):
        yield p.pattern
        for x in _etalis_pattern_variants(p.pattern):
            yield A.Window(x, p.length)


def etalis_simplifications(query_text: str, lang: Any = None) -> Iterator[str]:
    """Strictly simpler ETALIS rule bases than ``query_text`` (rendered as text), biggest cuts first.

    Drops a statement; drops a rule's label and properties (its ``event_rule_window``); then, per
    event rule, replaces its body by a strictly smaller pattern (:func:`_etalis_pattern_variants`:
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
            for b in _etalis_pattern_variants(st.body):
                yield from emit(stmts[:i] + [A.EventRule(st.head, b, st.label, st.properties)]
                                + stmts[i + 1:])


# ----------------------------------------------------------------------------- EP-SPARQL query sets
def _epsparql_pattern_variants(p: Any) -> Iterator[Any]:
    """Patterns with one node replaced by something strictly smaller (biggest cuts first): a binary
    operator by one operand, a FILTER by its pattern, an optional operator's ``F`` dropped, a triples
    block of several patterns by one of them."""
    from dataclasses import replace

    from ceplab.semantics.epsparql import ast as A

    if isinstance(p, A.BGP):
        if len(p.triples) > 1:
            for i in range(len(p.triples)):
                yield A.BGP(p.triples[:i] + p.triples[i + 1:])
        return
    if isinstance(p, A.Filter):
        yield p.pattern
        for x in _epsparql_pattern_variants(p.pattern):
            yield A.Filter(p.expr, x)
        return
    if isinstance(p, (A.Extend, A.Project)):
        for x in _epsparql_pattern_variants(p.pattern):
            yield replace(p, pattern=x)
        return
    kids = A.children(p)
    for k in kids:
        yield k
    if getattr(p, "expr", None) is not None:
        yield replace(p, expr=None)
    fields = ("optional", "mandatory") if isinstance(p, A.SeqRightJoin) else ("left", "right")
    for f in fields:
        for x in _epsparql_pattern_variants(getattr(p, f)):
            yield replace(p, **{f: x})


def epsparql_simplifications(query_text: str, lang: Any = None) -> Iterator[str]:
    """Strictly simpler EP-SPARQL query sets than ``query_text`` (rendered as text), biggest cuts first.

    Drops a query (a CONSTRUCT rule or a SELECT); then, per query, replaces its WHERE by a strictly
    smaller pattern (:func:`_epsparql_pattern_variants`: a binary operator by an operand, a FILTER by its
    pattern, an optional operator's ``F`` dropped, a triple pattern dropped from a block). Candidates
    without concrete syntax are skipped; the shrinker skips those that do not parse (e.g. a projected
    variable no longer in scope). Inline background knowledge (``# background graph|ontology: ...`` lines,
    :func:`ceplab.workbench.epsparql_language.background_comment`) is kept on every candidate; after the query
    candidates come the ones with one background line dropped.
    """
    from dataclasses import replace

    from ceplab.semantics.epsparql import ast as A
    from ceplab.semantics.epsparql.parser import parse, render
    from ceplab.workbench.epsparql_language import split_background

    head, body = split_background(query_text)
    qs = parse(body)
    queries = list(qs.queries)
    seen = {render(qs)}

    def emit(new: list) -> Iterator[str]:
        try:
            s = render(A.QuerySet(tuple(new), qs.prefixes))
        except ValueError:
            return
        if s not in seen:
            seen.add(s)
            yield head + s

    if len(queries) > 1:
        for i in range(len(queries)):
            yield from emit(queries[:i] + queries[i + 1:])
    for i, q in enumerate(queries):
        for w in _epsparql_pattern_variants(q.where):
            yield from emit(queries[:i] + [replace(q, where=w)] + queries[i + 1:])
    lines = head.splitlines(keepends=True)
    for i in range(len(lines)):
        yield "".join(lines[:i] + lines[i + 1:]) + body.lstrip("\n")
