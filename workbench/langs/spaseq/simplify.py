"""Query simplifications for shrinking SPAseq counterexamples (``Language.simplify``).

Each candidate is a strictly smaller AST than the query it comes from (so shrinking terminates; the rendered text
uses full IRIs and may be longer): one sequence element dropped (with its GPM
definitions), a BOp expression replaced by one operand, a modifier dropped, a connector made skip-till-any, a
FILTER, OPTIONAL, UNION branch, GRAPH block or triple pattern dropped, ``SELECT`` widened to ``*``.  The
background comment lines are kept.  Candidates are produced on the AST and rendered; those that no longer parse
are skipped by the shrinker.
"""
from __future__ import annotations

import dataclasses
from typing import Iterator

from ceplab.semantics.spaseq import ast as A


def _pattern_variants(p: A.Pattern) -> Iterator[A.Pattern]:
    if isinstance(p, A.BGP):
        if len(p.triples) > 1:
            for i in range(len(p.triples)):
                yield A.BGP(p.triples[:i] + p.triples[i + 1:])
        return
    if isinstance(p, A.Filter):
        yield p.pattern
        for v in _pattern_variants(p.pattern):
            yield A.Filter(p.expr, v)
        return
    if isinstance(p, A.LeftJoin):
        yield p.left
        if p.expr is not None:
            yield A.LeftJoin(p.left, p.right, None)
    if isinstance(p, A.Union_):
        yield p.left
        yield p.right
    if isinstance(p, A.Graph):
        for v in _pattern_variants(p.pattern):
            yield A.Graph(p.iri, v)
        return
    if isinstance(p, A.Join):
        yield p.left
        yield p.right
    if isinstance(p, (A.Join, A.LeftJoin, A.Union_)):
        for v in _pattern_variants(p.left):
            yield dataclasses.replace(p, left=v)
        for v in _pattern_variants(p.right):
            yield dataclasses.replace(p, right=v)


def _bop_variants(b: A.BOp) -> Iterator[A.BOp]:
    if isinstance(b, (A.Conj, A.Disj)):
        yield b.left
        yield b.right


def ast_simplifications(q: A.Query) -> Iterator[A.Query]:
    """Strictly smaller variants of ``q`` (module docstring)."""
    seq = q.seq
    if q.select is not None:
        yield dataclasses.replace(q, select=None)
    for j in range(len(seq)):
        rest = seq[:j] + seq[j + 1:]
        if rest:
            if j == 0:
                rest = (dataclasses.replace(rest[0], connector=None),) + rest[1:]
            yield dataclasses.replace(q, seq=rest)
    for j, el in enumerate(seq):
        if el.modifier is not None:
            yield dataclasses.replace(q, seq=seq[:j] + (dataclasses.replace(el, modifier=None),) + seq[j + 1:])
        if el.connector not in (None, ":"):
            yield dataclasses.replace(q, seq=seq[:j] + (dataclasses.replace(el, connector=":"),) + seq[j + 1:])
        for b in _bop_variants(el.expr):
            yield dataclasses.replace(q, seq=seq[:j] + (dataclasses.replace(el, expr=b),) + seq[j + 1:])
    for i, g in enumerate(q.gpms):
        for p in _pattern_variants(g.pattern):
            yield dataclasses.replace(q, gpms=q.gpms[:i] + (dataclasses.replace(g, pattern=p),) + q.gpms[i + 1:])
    if q.window > 1:
        yield dataclasses.replace(q, window=q.window // 2)


def _prune(q: A.Query) -> A.Query:
    """``q`` without GPM definitions the sequence no longer uses, and with a SELECT list cut to what remains."""
    used = {n for el in q.seq for n in A.bop_gpms(el.expr)}
    q = dataclasses.replace(q, gpms=tuple(g for g in q.gpms if g.name in used))
    if q.select is not None:
        vs = set(A.query_vars(q))
        sel = tuple(v for v in q.select if v in vs)
        q = dataclasses.replace(q, select=sel or None)
    return q


def simplifications(text: str) -> Iterator[str]:
    """Smaller query texts than ``text`` (module docstring); nothing if ``text`` does not parse."""
    from ceplab.semantics.errors import CeplabError
    from ceplab.semantics.spaseq.parser import parse, render
    from ceplab.workbench.langs.spaseq.background import split_background

    head, body = split_background(text)
    try:
        q = parse(body)
    except CeplabError:
        return
    seen = {text}
    for v in ast_simplifications(q):
        try:
            out = head + render(_prune(v))
        except (CeplabError, ValueError):
            continue
        if out not in seen:
            seen.add(out)
            yield out
