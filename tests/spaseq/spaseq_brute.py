"""A brute-force transcription of the SPAseq reference semantics (docs/semantics/spaseq.md#spaseq-3.8), for
differential tests of the clingo oracle on small inputs.

It enumerates witnesses literally: per window (or per first event, anchored), element by element, every
instance of the element's BOp expression at every later time, checking the connector, negation and window
conditions of the definition directly (no successor relations, no staging).  GPMs are evaluated by a small
SPARQL algebra interpreter with correlated substitution (a variable bound in the context is a constant of
the pattern) and SPARQL 1.1 three-valued FILTERs.  Exponential; keep inputs to a handful of events.
"""
from __future__ import annotations

from decimal import Decimal
from typing import Iterator, Optional, Sequence

from rdflib import XSD, Literal, Variable

from ceplab.semantics.rdfstream import GraphEvent
from ceplab.semantics.spaseq import ast as A
from ceplab.semantics.spaseq.options import Options
from ceplab.semantics.spaseq.results import Match, term
from ceplab.semantics.spaseq.streams import Background

ERR = "error"
NUMERIC = {XSD.integer, XSD.int, XSD.long, XSD.decimal, XSD.double, XSD.float, XSD.short, XSD.byte,
           XSD.nonNegativeInteger, XSD.positiveInteger, XSD.negativeInteger, XSD.nonPositiveInteger,
           XSD.unsignedInt, XSD.unsignedLong, XSD.unsignedShort, XSD.unsignedByte}


# ------------------------------------------------------------------------------------------------ FILTER
def _num(x):
    if isinstance(x, Decimal):
        return x
    if isinstance(x, Literal) and x.datatype in NUMERIC:
        try:
            return Decimal(str(x).strip())
        except Exception:  # noqa: BLE001 - ill-typed: not a number
            return None
    return None


def _stringy(x) -> bool:
    return isinstance(x, Literal) and x.language is None and x.datatype in (None, XSD.string)


def value(e: A.Expr, mu: dict):
    if isinstance(e, A.Var):
        return mu.get(e.var, ERR)
    if isinstance(e, A.Const):
        return e.term
    if isinstance(e, A.Neg):
        a = _num(value(e.expr, mu))
        return ERR if a is None else -a
    if isinstance(e, A.Arith):
        a, b = _num(value(e.left, mu)), _num(value(e.right, mu))
        if a is None or b is None:
            return ERR
        return a + b if e.op == "+" else a - b
    return truth(e, mu)  # not used as a value by the generators


def truth(e: A.Expr, mu: dict):
    """True, False or ERR."""
    if isinstance(e, A.Bound):
        return e.var in mu
    if isinstance(e, A.Not):
        t = truth(e.expr, mu)
        return ERR if t is ERR else not t
    if isinstance(e, A.And):
        a, b = truth(e.left, mu), truth(e.right, mu)
        if a is False or b is False:
            return False
        return True if (a is True and b is True) else ERR
    if isinstance(e, A.Or):
        a, b = truth(e.left, mu), truth(e.right, mu)
        if a is True or b is True:
            return True
        return False if (a is False and b is False) else ERR
    if isinstance(e, A.Cmp):
        x, y = value(e.left, mu), value(e.right, mu)
        if x is ERR or y is ERR:
            return ERR
        nx, ny = _num(x), _num(y)
        ops = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, "=": lambda a, b: a == b,
               "!=": lambda a, b: a != b, ">=": lambda a, b: a >= b, ">": lambda a, b: a > b}
        if nx is not None and ny is not None:
            return ops[e.op](nx, ny)
        if _stringy(x) and _stringy(y):
            return ops[e.op](str(x), str(y))
        if e.op not in ("=", "!="):
            return ERR
        def lit(z) -> bool:
            return isinstance(z, (Literal, Decimal))

        if x == y and type(x) is type(y):
            eq = True
        elif lit(x) and lit(y):
            return ERR
        else:
            eq = False
        return eq if e.op == "=" else not eq
    # a value used as a condition: effective boolean value
    x = value(e, mu)
    if x is ERR:
        return ERR
    n = _num(x)
    if n is not None:
        return n != 0
    if _stringy(x):
        return len(str(x)) > 0
    return ERR


# ------------------------------------------------------------------------------------------------ patterns
def _compatible(a: dict, b: dict) -> bool:
    return all(a[k] == b[k] for k in a.keys() & b.keys())


def evaluate(p: A.Pattern, mu: dict, graph, bg: Background) -> list[dict]:
    """``{mu u mu' | mu' in [[mu(p)]]_graph}`` as a list of full mappings (set semantics)."""
    out: list[dict] = []

    def add(m):
        if m not in out:
            out.append(m)

    if isinstance(p, A.BGP):
        def match(i, m):
            if i == len(p.triples):
                add(dict(m))
                return
            tp = p.triples[i]
            pat = [m.get(x, None) if isinstance(x, Variable) else x for x in (tp.s, tp.p, tp.o)]
            for tr in graph:
                if all(q is None or q == t for q, t in zip(pat, tr)):
                    m2 = dict(m)
                    ok = True
                    for x, t in zip((tp.s, tp.p, tp.o), tr):
                        if isinstance(x, Variable):
                            if x in m2 and m2[x] != t:
                                ok = False
                            m2[x] = t
                    if ok:
                        match(i + 1, m2)
        match(0, dict(mu))
    elif isinstance(p, A.Join):
        for a in evaluate(p.left, mu, graph, bg):
            for b in evaluate(p.right, mu, graph, bg):
                if _compatible(a, b):
                    add({**a, **b})
    elif isinstance(p, A.LeftJoin):
        rights = evaluate(p.right, mu, graph, bg)
        for a in evaluate(p.left, mu, graph, bg):
            ext = [{**a, **b} for b in rights if _compatible(a, b)]
            ext = [m for m in ext if p.expr is None or truth(p.expr, m) is True]
            for m in ext:
                add(m)
            if not ext:
                add(a)
    elif isinstance(p, A.Union_):
        for m in evaluate(p.left, mu, graph, bg) + evaluate(p.right, mu, graph, bg):
            add(m)
    elif isinstance(p, A.Filter):
        for m in evaluate(p.pattern, mu, graph, bg):
            if truth(p.expr, m) is True:
                add(m)
    elif isinstance(p, A.Graph):
        for m in evaluate(p.pattern, mu, bg.graph(p.iri), bg):
            add(m)
    return out


# ------------------------------------------------------------------------------------------------ sequences
class _Run:
    def __init__(self, q: A.Query, evs: list[GraphEvent], o: Options, bg: Background) -> None:
        self.q, self.o, self.bg = q, o, bg
        self.evs = evs
        self.m = len(q.seq)

    def ext(self, omega: list[dict], g: A.GPM, e: GraphEvent) -> list[dict]:
        out: list[dict] = []
        for mu in omega:
            for m in evaluate(g.pattern, mu, list(e.graph), self.bg):
                if m not in out:
                    out.append(m)
        return out

    def instances(self, b: A.BOp, omega: list[dict], tau: int, window: list[GraphEvent]) \
            -> list[tuple[tuple, list[dict]]]:
        """Instances (a tag naming the alternative, the events) at tau with non-empty extensions."""
        if isinstance(b, A.GPMRef):
            g = self.q.gpm(b.name)
            out = []
            for e in window:
                if e.time == tau and e.stream in g.streams:
                    rows = self.ext(omega, g, e)
                    if rows:
                        out.append(((e,), rows))
            return out
        if isinstance(b, A.Conj):
            out = []
            for evl, rl in self.instances(b.left, omega, tau, window):
                for evr, rr in self.instances(b.right, rl, tau, window):
                    out.append((("&",) + evl + evr, rr))
            return out
        left = [(("L",) + i, r) for i, r in self.instances(b.left, omega, tau, window)]
        right = [(("R",) + i, r) for i, r in self.instances(b.right, omega, tau, window)]
        if self.o.disjunction == "first_match" and left:
            return left
        return left + right

    def relevant(self, j: int, omega: list[dict], tau: int, window) -> bool:
        ctx = omega if self.o.relevance == "context" else [{}]
        return bool(self.instances(self.q.seq[j].expr, ctx, tau, window))

    def streams_of(self, b: A.BOp) -> set:
        return {s for n in A.bop_gpms(b) for s in self.q.gpm(n).streams}

    def contiguous(self, j: int, t1: int, t2: int) -> bool:
        o = self.o
        if o.contiguity == "declared":
            u = self.q.declared_streams
        elif o.contiguity == "streamset":
            u = {e.stream for e in self.evs}
        else:
            u = self.streams_of(self.q.seq[j].expr)
        return not any(t1 < e.time < t2 and e.stream in u for e in self.evs)

    def connector(self, conn: str, j: int, omega: list[dict], t1: int, t2: int, window) -> bool:
        if conn == ":":
            return True
        if conn == ";":
            return not any(self.relevant(j, omega, t, window) for t in self.times(window) if t1 < t < t2)
        return self.contiguous(j, t1, t2)

    @staticmethod
    def times(window) -> list[int]:
        return sorted({e.time for e in window})

    def witnesses(self, window, first: Optional[int]) -> Iterator[tuple[list, list[dict]]]:
        """(events, Omega_m) of every witness in the event list ``window`` (anchored: first time fixed)."""
        yield from self.rec(0, [{}], None, [], None, window, first)

    def rec(self, j, omega, a, evs, neg, window, first):
        """``neg``: (element index, its context) of a negated element waiting for the next instance."""
        q = self.q
        if j == self.m:
            if neg is not None:  # a negated last element: nothing relevant until the window end
                if any(self.relevant(neg[0], neg[1], t, window) for t in self.times(window) if t > a):
                    return
            yield evs, omega
            return
        el = q.seq[j]
        if el.modifier == "!":
            yield from self.rec(j + 1, omega, a, evs, (j, omega), window, first)
            return
        if el.modifier == "?":
            yield from self.rec(j + 1, omega, a, evs, neg, window, first)
        for tau in self.times(window):
            if a is not None and tau <= a:
                continue
            if a is None and first is not None and tau != first:
                continue
            if a is not None and not self.connector(el.connector, j, omega, a, tau, window):
                continue
            if neg is not None:
                k, ctx = neg
                hi = tau if self.o.negation == "through_next" else tau - 1
                if any(self.relevant(k, ctx, t, window) for t in self.times(window) if a < t <= hi):
                    continue
            for inst, rows in self.instances(el.expr, omega, tau, window):
                new_evs = evs + [e for e in inst if isinstance(e, GraphEvent)]
                if el.modifier == "+":
                    yield from self.chain(j, omega, tau, rows, new_evs, window, first)
                else:
                    yield from self.rec(j + 1, rows, tau, new_evs, None, window, first)

    def chain(self, j, prefix, t1, rows, evs, window, first):
        yield from self.rec(j + 1, rows, t1, evs, None, window, first)
        el = self.q.seq[j]
        it = (";" if j == 0 else el.connector) if self.o.kleene_iter == "same" else ";"
        for tau in self.times(window):
            if tau <= t1 or not self.connector(it, j, prefix, t1, tau, window):
                continue
            for inst, r2 in self.instances(el.expr, prefix, tau, window):
                union = rows + [r for r in r2 if r not in rows]
                yield from self.chain(j, prefix, tau, union, evs + [e for e in inst if isinstance(e, GraphEvent)],
                                      window, first)


def brute(q: A.Query, events: Sequence[GraphEvent], options: Options = Options(),
          background: Optional[Background] = None) -> frozenset[Match]:
    """The matches of ``q`` on ``events`` by literal enumeration (module docstring)."""
    o = options
    bg = background or Background()
    evs = sorted((e for e in events if e.time >= o.origin), key=lambda e: (e.time, e.position))
    r = _Run(q, evs, o, bg)
    w = q.window
    proj = A.projection(q)
    out = set()

    def emit(win, witness):
        evl, omega = witness
        key = tuple((str(e.stream), e.time) for e in evl)
        for mu in omega:
            out.add(Match(win, key, tuple(sorted((str(v), term(mu[v])) for v in proj if v in mu))))

    if not evs:
        return frozenset()
    if o.window == "anchored":
        for first in sorted({e.time for e in evs}):
            window = [e for e in evs if first <= e.time <= first + w]
            for wit in r.witnesses(window, first):
                emit(None, wit)
    else:
        last = max(e.time for e in evs)
        for i in range((last - o.origin) // w + 1):
            lo, hi = o.origin + i * w, o.origin + (i + 1) * w
            window = [e for e in evs if lo <= e.time and (e.time <= hi if o.window == "tumbling_closed"
                                                          else e.time < hi)]
            for wit in r.witnesses(window, None):
                emit(i, wit)
    return frozenset(out)

