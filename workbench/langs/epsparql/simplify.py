"""Shrinking candidates for EP-SPARQL query files (:func:`ceplab.workbench.shrink.shrink` calls ``Language.simplify``).

:func:`simplifications` drops a query (a CONSTRUCT rule or a SELECT), replaces a binary operator by an
operand, drops a FILTER or an optional operator's ``F``, or drops a triple pattern from a block; inline
background knowledge (``# background ...`` lines) is kept, and dropped one line at a time last.
"""
from __future__ import annotations

from typing import Any, Iterator

def _pattern_variants(p: Any) -> Iterator[Any]:
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
        for x in _pattern_variants(p.pattern):
            yield A.Filter(p.expr, x)
        return
    if isinstance(p, (A.Extend, A.Project)):
        for x in _pattern_variants(p.pattern):
            yield replace(p, pattern=x)
        return
    kids = A.children(p)
    for k in kids:
        yield k
    if getattr(p, "expr", None) is not None:
        yield replace(p, expr=None)
    fields = ("optional", "mandatory") if isinstance(p, A.SeqRightJoin) else ("left", "right")
    for f in fields:
        for x in _pattern_variants(getattr(p, f)):
            yield replace(p, **{f: x})


def simplifications(query_text: str) -> Iterator[str]:
    """Strictly simpler EP-SPARQL query sets than ``query_text`` (rendered as text), biggest cuts first.

    Drops a query (a CONSTRUCT rule or a SELECT); then, per query, replaces its WHERE by a strictly
    smaller pattern (:func:`_pattern_variants`: a binary operator by an operand, a FILTER by its
    pattern, an optional operator's ``F`` dropped, a triple pattern dropped from a block). Candidates
    without concrete syntax are skipped; the shrinker skips those that do not parse (e.g. a projected
    variable no longer in scope). Inline background knowledge (``# background graph|ontology: ...`` lines,
    :func:`ceplab.workbench.langs.epsparql.background.background_comment`) is kept on every candidate; after the query
    candidates come the ones with one background line dropped.
    """
    from dataclasses import replace

    from ceplab.semantics.epsparql import ast as A
    from ceplab.semantics.epsparql.parser import parse, render
    from ceplab.workbench.langs.epsparql.background import split_background

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
        for w in _pattern_variants(q.where):
            yield from emit(queries[:i] + [replace(q, where=w)] + queries[i + 1:])
    lines = head.splitlines(keepends=True)
    for i in range(len(lines)):
        yield "".join(lines[:i] + lines[i + 1:]) + body.lstrip("\n")
