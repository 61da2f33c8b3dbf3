"""A literal, deliberately naive Python transcription of the CQELS-CEP semantics (docs/semantics/cqels.md#cqels-3),
used by tests/cqels/test_oracle.py as an arbiter for randomized comparisons with the clingo oracle (asp/cqels).

Every snapshot is recomputed from scratch at every t, every definition is written as the set comprehension of the
contract (windows #cqels-3.1, leaves #cqels-3.3 (16) and #cqels-G9, operators #cqels-3.2, sequences #cqels-3.3,
static part #cqels-3.5, nSPARQL #cqels-3.4, FILTER #cqels-3.6).  No attempt at speed: small inputs only.
"""
from __future__ import annotations

from typing import Optional, Sequence

from rdflib.term import Variable

from ceplab.semantics.cqels import ast as A
from ceplab.semantics.cqels.options import Options
from ceplab.semantics.cqels.results import Answer, default_until
from ceplab.semantics.cqels.streams import StaticData, arrival, element_triples
from ceplab.semantics.rdfstream import StreamElement, nt_term

Mapping = frozenset  # of (Variable, term) pairs


# ------------------------------------------------------------------------------------------------ windows
def window(w: A.Window, t: int, elements: Sequence[StreamElement], o: Options) -> list[tuple[int, int, set]]:
    """W_w(t) as (l, r, g') entries (docs/semantics/cqels.md#cqels-3.1)."""
    S = [e for e in elements if e.stream == w.stream]
    a = lambda e: arrival(e, o)  # noqa: E731
    sp = w.spec
    out = []
    if isinstance(sp, A.RangeWindow):
        u = sp.slide * (t // sp.slide)
        for e in S:
            if a(e) <= u:
                l, r = max(e.start, u - sp.range), min(e.end, u)
                if l <= r:
                    out.append((l, r, set(e.triples())))
    elif isinstance(sp, A.NowWindow):
        for e in S:
            ok = (a(e) <= t and e.start <= t <= e.end) if o.now == "valid" else a(e) == t
            if ok:
                out.append((t, t, set(e.triples())))
    elif isinstance(sp, A.AllWindow):
        for e in S:
            if a(e) <= t:
                out.append((e.start, min(e.end, t), set(e.triples())))
    else:
        order = sorted((e for e in S if a(e) <= t), key=lambda e: (a(e), e.position))
        if o.triples_unit == "elements":
            for e in order[max(0, len(order) - sp.count):]:
                out.append((e.start, min(e.end, t), set(e.triples())))
        else:
            units = [(e, tr) for e in order for tr in element_triples(e)]
            keep = units[max(0, len(units) - sp.count):]
            for e in order:
                g = {tr for (x, tr) in keep if x is e}
                if g:
                    out.append((e.start, min(e.end, t), g))
    return out


# ------------------------------------------------------------------------------------------------ mappings
def compatible(m1: Mapping, m2: Mapping) -> bool:
    d1, d2 = dict(m1), dict(m2)
    return all(d2[k] == v for k, v in d1.items() if k in d2)


def match(tps: Sequence[A.TriplePattern], g) -> list[Mapping]:
    out = [dict()]
    for tp in tps:
        nxt = []
        for m in out:
            for tr in g:
                m2 = dict(m)
                ok = True
                for pt, x in zip((tp.s, tp.p, tp.o), tr):
                    if isinstance(pt, Variable):
                        if m2.setdefault(pt, x) != x:
                            ok = False
                    elif pt != x:
                        ok = False
                if ok:
                    nxt.append(m2)
        out = nxt
    return [frozenset(m.items()) for m in out]


def JOIN(O1, O2):
    return {(m1 | m2, max(a1, a2), min(b1, b2)) for (m1, a1, b1) in O1 for (m2, a2, b2) in O2
            if compatible(m1, m2) and max(a1, a2) <= min(b1, b2)}


def SEQ(O1, O2):
    return {(m1 | m2, a1, b2) for (m1, a1, b1) in O1 for (m2, a2, b2) in O2 if compatible(m1, m2) and b1 < a2}


def SEQ_WO(O1, N, O3, o: Options):
    inside = (lambda b1, c, d, a3: b1 <= c and d <= a3) if o.wo_bounds == "closed" else \
        (lambda b1, c, d, a3: b1 < c and d < a3)
    return {(m1 | m3, a1, b3) for (m1, a1, b1) in O1 for (m3, a3, b3) in O3
            if compatible(m1, m3) and b1 < a3
            and not any(compatible(nu, m1 | m3) and inside(b1, c, d, a3) for (nu, c, d) in N)}


def NO_HEAD(N, O):
    return {(m, a, b) for (m, a, b) in O if not any(compatible(nu, m) and d < a for (nu, c, d) in N)}


def NO_TAIL(O, N, t):
    return {(m, a, b) for (m, a, b) in O if not any(compatible(nu, m) and b < c and d <= t for (nu, c, d) in N)}


def sequence(sets: list, negated: list[bool], t: int, o: Options):
    def pos(xs):
        return xs[0] if len(xs) == 1 else SEQ(xs[0], pos(xs[1:]))
    if not any(negated):
        return pos(sets)
    i = negated.index(True)
    if i == 0:
        return NO_HEAD(sets[0], pos(sets[1:]))
    if i == len(sets) - 1:
        return NO_TAIL(pos(sets[:-1]), sets[-1], t)
    return SEQ_WO(pos(sets[:i]), sets[i], pos(sets[i + 1:]), o)


# ------------------------------------------------------------------------------------------------ FILTER
ERR = ("err",)


def value(e: A.Expr, m: dict):
    if isinstance(e, A.Var):
        x = m[e.var]
    elif isinstance(e, A.Const):
        x = e.term
    elif isinstance(e, A.UMinus):
        v = value(e.expr, m)
        return ("num", -v[1]) if v[0] == "num" else ERR
    elif isinstance(e, A.Arith):
        l, r = value(e.left, m), value(e.right, m)
        if l[0] == "num" and r[0] == "num":
            return ("num", l[1] + r[1] if e.op == "+" else l[1] - r[1])
        return ERR
    else:
        raise TypeError(e)
    q = A.numeric_value(x)
    return ("num", q) if q is not None else ("term", nt_term(x))


def truth(e: A.Expr, m: dict):
    """True, False or None (error)."""
    if isinstance(e, A.Const):
        return str(e.term) in ("true", "1")
    if isinstance(e, A.Not):
        v = truth(e.expr, m)
        return None if v is None else not v
    if isinstance(e, A.And):
        l, r = truth(e.left, m), truth(e.right, m)
        if l is False or r is False:
            return False
        return None if l is None or r is None else True
    if isinstance(e, A.Or):
        l, r = truth(e.left, m), truth(e.right, m)
        if l is True or r is True:
            return True
        return None if l is None or r is None else False
    l, r = value(e.left, m), value(e.right, m)
    if e.op in ("=", "!="):
        if l == ERR or r == ERR:
            return None
        eq = l == r
        return eq if e.op == "=" else not eq
    if l[0] != "num" or r[0] != "num":
        return None
    return {"<": l[1] < r[1], "<=": l[1] <= r[1], ">": l[1] > r[1], ">=": l[1] >= r[1]}[e.op]


def keep(filters, m: Mapping) -> bool:
    d = dict(m)
    return all(truth(f, d) is True for f in filters)


# ------------------------------------------------------------------------------------------------ leaves, windows
def bgp(p: A.BGP, entries, o: Options):
    if o.bgp_scope == "element":
        out = {(m, l, r) for (l, r, g) in entries for m in match(p.triples, g)}
    else:
        sets = [{(m, l, r) for (l, r, g) in entries for m in match((tp,), g)} for tp in p.triples]
        out = sets[0]
        for s in sets[1:]:
            out = JOIN(out, s)
    return {x for x in out if keep(p.filters, x[0])}


def window_set(w: A.Window, t, elements, o):
    entries = window(w, t, elements, o)
    p = w.pattern
    if isinstance(p, A.BGP):
        return bgp(p, entries, o)
    sets = [bgp(it.item if isinstance(it, A.Neg) else it, entries, o) for it in p.items]
    return sequence(sets, [isinstance(it, A.Neg) for it in p.items], t, o)


# ------------------------------------------------------------------------------------------------ paths
def path(e: A.Path, G, o: Options, ends) -> set:
    voc = {x for tr in G for x in tr}
    nodes = {tr[0] for tr in G} | {tr[2] for tr in G}
    lab = {"next": {(s, ob, p) for (s, p, ob) in G}, "edge": {(s, p, ob) for (s, p, ob) in G},
           "node": {(p, ob, s) for (s, p, ob) in G}}

    def conv(rel, inv):
        return {(y, x) for (x, y) in rel} if inv else rel

    def z():
        return {(x, x) for x in voc} if o.zero_length == "nsparql" else {(x, x) for x in nodes | set(ends)}

    def rel(e):
        if isinstance(e, A.Axis):
            if e.kind == "self":
                return {(x, x) for x in voc}
            return conv({(x, y) for (x, y, _) in lab[e.kind]}, e.inverse)
        if isinstance(e, A.AxisConst):
            if e.kind == "self":
                return {(e.const, e.const)}
            return conv({(x, y) for (x, y, zz) in lab[e.kind] if zz == e.const}, e.inverse)
        if isinstance(e, A.AxisNest):
            firsts = {x for (x, _) in rel(e.test)}
            if e.kind == "self":
                return {(x, x) for x in voc if x in firsts}
            return conv({(x, y) for (x, y, zz) in lab[e.kind] if zz in firsts}, e.inverse)
        if isinstance(e, A.PathSeq):
            l, r = rel(e.left), rel(e.right)
            return {(x, y) for (x, m) in l for (m2, y) in r if m == m2}
        if isinstance(e, A.PathAlt):
            return rel(e.left) | rel(e.right)
        if isinstance(e, (A.PathPlus, A.PathStar)):
            base = rel(e.expr)
            clo = set(base)
            while True:
                new = {(x, y) for (x, m) in clo for (m2, y) in base if m == m2} - clo
                if not new:
                    break
                clo |= new
            return clo | z() if isinstance(e, A.PathStar) else clo
        if isinstance(e, A.PathOpt):
            return rel(e.expr) | z()
        raise TypeError(e)

    return rel(e)


def solutions(q: A.Query, G, o: Options) -> set:
    ms = [dict()]
    for sp in q.static:
        nxt = []
        if isinstance(sp, A.TriplePattern):
            for m in ms:
                for mm in match((sp,), G):
                    if compatible(frozenset(m.items()), mm):
                        nxt.append({**m, **dict(mm)})
        else:
            ends = [x for x in (sp.s, sp.o) if not isinstance(x, Variable)]
            rel = path(sp.path, G, o, ends)
            for m in ms:
                for (x, y) in rel:
                    m2 = dict(m)
                    ok = True
                    for pt, val in ((sp.s, x), (sp.o, y)):
                        if isinstance(pt, Variable):
                            if m2.setdefault(pt, val) != val:
                                ok = False
                        elif pt != val:
                            ok = False
                    if ok:
                        nxt.append(m2)
        ms = nxt
    return {frozenset(m.items()) for m in ms}


def static_set(q: A.Query, t: int, D: StaticData, o: Options):
    if not q.static:
        return {(frozenset(), 0, t)}
    k = D.version_index(t)
    sol = solutions(q, D.versions[k].triples, o)
    out = set()
    for m in sol:
        if o.static_interval == "global":
            f = D.since(t)
        elif o.static_interval == "unbounded":
            f = 0
        else:
            j = k
            while j > 0 and m in solutions(q, D.versions[j - 1].triples, o):
                j -= 1
            f = D.versions[j].since
        out.add((m, f, t))
    return out


# ------------------------------------------------------------------------------------------------ the query
def snapshot(q: A.Query, t: int, elements, o: Options, D: StaticData):
    wsets = {w.name: window_set(w, t, elements, o) for w in q.windows}
    ec = {(frozenset(), 0, t)}
    for e in q.events:
        if isinstance(e, A.WinRef):
            s = wsets[e.name]
        else:
            s = sequence([wsets[(it.item if isinstance(it, A.Neg) else it).name] for it in e.items],
                         [isinstance(it, A.Neg) for it in e.items], t, o)
        ec = JOIN(ec, s)
    res = JOIN(ec, static_set(q, t, D, o))
    V = A.projection(q)
    out = set()
    for (m, a, b) in res:
        if keep(q.filters, m):
            d = dict(m)
            out.add(Answer(t, tuple(sorted((str(v), nt_term(d[v])) for v in V)), (a, b)))
    return out


def evaluate(q: A.Query, elements: Sequence[StreamElement], o: Options = Options(),
             static: Optional[StaticData] = None, until: Optional[int] = None) -> frozenset:
    D = StaticData.constant(()) if static is None else static
    H = default_until(q, elements, D.change_times) if until is None else until
    out = set()
    for t in range(H + 1):
        out |= snapshot(q, t, elements, o, D)
    return frozenset(out)

