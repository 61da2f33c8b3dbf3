"""TEST REFERENCE ONLY: a naive CQELS-CEP evaluator that recomputes docs/semantics/cqels.md#cqels-3 from scratch at
every time point, written literally from the contract (window entries per section 3.1, leaves, the operators as set
comprehensions, sequences by their right-nested definition, the static part with paths as plain fixpoints over sets
of pairs).  It shares no code with ``engine/cqels`` and is never used by it; the engine's tests compare the two on
random inputs (incremental == naive).  Quadratic and slow on purpose: keep inputs small.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Optional

from rdflib import XSD
from rdflib.term import Literal, Variable

from ceplab.semantics.cqels import ast as A
from ceplab.semantics.cqels.options import Options
from ceplab.semantics.cqels.results import Answer, default_until
from ceplab.semantics.cqels.streams import StaticData, arrival
from ceplab.semantics.rdfstream import nt_term

# A mapping is a frozenset of (variable name, N-Triples term); a set element is (mapping, a, b).


def _compat(m1: frozenset, m2: frozenset) -> bool:
    d1 = dict(m1)
    return all(d1.get(k, v) == v for k, v in m2)


class Naive:
    """Snapshots ``[[Q, t]]`` recomputed from the inputs at each ``t``."""

    def __init__(self, q: A.Query, elements, options: Options = Options(), static: Optional[StaticData] = None):
        self.q, self.o = q, options
        self.static = static if static is not None else StaticData.constant(())
        self.els = list(elements)
        self.num: dict[str, Fraction] = {}
        self.trip = {e.position: [self._nt3(t) for t in e.triples()] for e in self.els}
        self._sol_cache: dict[int, set] = {}

    def _nt(self, x) -> str:
        s = nt_term(x)
        if isinstance(x, Literal) and A.numeric_value(x) is not None:
            self.num[s] = A.numeric_value(x)
        return s

    def _nt3(self, t):
        return tuple(self._nt(x) for x in t)

    # ------------------------------------------------------------------ windows (section 3)
    def entries(self, w: A.Window, t: int) -> list:
        o = self.o
        els = [e for e in self.els if e.stream == w.stream and arrival(e, o) <= t]
        spec = w.spec
        out = []
        if isinstance(spec, A.RangeWindow):
            u = spec.slide * (t // spec.slide)
            for e in els:
                if arrival(e, o) <= u:
                    l, r = max(e.start, u - spec.range), min(e.end, u)
                    if l <= r:
                        out.append((self.trip[e.position], l, r))
        elif isinstance(spec, A.NowWindow):
            for e in els:
                if (o.now == "valid" and e.start <= t <= e.end) or (o.now == "arrived" and arrival(e, o) == t):
                    out.append((self.trip[e.position], t, t))
        elif isinstance(spec, A.AllWindow):
            for e in els:
                out.append((self.trip[e.position], e.start, min(e.end, t)))
        else:
            order = sorted(els, key=lambda e: (arrival(e, o), e.position))
            if o.triples_unit == "elements":
                for e in order[-spec.count:] if spec.count else []:
                    out.append((self.trip[e.position], e.start, min(e.end, t)))
            else:
                units = [(e, tr) for e in order for tr in sorted(self.trip[e.position])]
                kept = units[-spec.count:]
                for e in order:
                    g = [tr for (x, tr) in kept if x is e]
                    if g:
                        out.append((g, e.start, min(e.end, t)))
        return out

    # ------------------------------------------------------------------ leaves (section 4)
    def _match(self, tps, g) -> set:
        res = [dict()]
        for tp in tps:
            new = []
            for m in res:
                for tr in g:
                    m2 = dict(m)
                    ok = True
                    for x, val in zip((tp.s, tp.p, tp.o), tr):
                        if isinstance(x, Variable):
                            if m2.setdefault(str(x), val) != val:
                                ok = False
                        elif self._nt(x) != val:
                            ok = False
                    if ok:
                        new.append(m2)
            res = new
        return {frozenset(m.items()) for m in res}

    def leaf(self, bgp: A.BGP, ents) -> set:
        if self.o.bgp_scope == "element":
            out = {(m, l, r) for g, l, r in ents for m in self._match(bgp.triples, g)}
        else:
            out = None
            for tp in bgp.triples:
                s = {(m, l, r) for g, l, r in ents for m in self._match((tp,), g)}
                out = s if out is None else self.join(out, s)
        return {x for x in out if all(self.ev(f, dict(x[0])) is True for f in bgp.filters)}

    # ------------------------------------------------------------------ operators (section 5)
    @staticmethod
    def join(o1, o2) -> set:
        return {(m1 | m2, max(a1, a2), min(b1, b2)) for m1, a1, b1 in o1 for m2, a2, b2 in o2
                if _compat(m1, m2) and max(a1, a2) <= min(b1, b2)}

    @staticmethod
    def seq(o1, o2) -> set:
        return {(m1 | m2, a1, b2) for m1, a1, b1 in o1 for m2, a2, b2 in o2 if _compat(m1, m2) and b1 < a2}

    def seq_wo(self, o1, n, o3) -> set:
        strict = self.o.wo_bounds == "strict"
        out = set()
        for m1, a1, b1 in o1:
            for m3, a3, b3 in o3:
                if not (_compat(m1, m3) and b1 < a3):
                    continue
                m = m1 | m3
                if not any(_compat(nu, m) and ((b1 < c and d < a3) if strict else (b1 <= c and d <= a3))
                           for nu, c, d in n):
                    out.add((m, a1, b3))
        return out

    @staticmethod
    def no_head(n, o) -> set:
        return {(m, a, b) for m, a, b in o if not any(_compat(nu, m) and d < a for nu, c, d in n)}

    @staticmethod
    def no_tail(o, n, t) -> set:
        return {(m, a, b) for m, a, b in o if not any(_compat(nu, m) and b < c and d <= t for nu, c, d in n)}

    # ------------------------------------------------------------------ sequences (section 6)
    def seq_items(self, vals: list, t: int) -> set:
        """``vals``: [(set, negated)]."""
        def pos(vs):
            if len(vs) == 1:
                return vs[0]
            return self.seq(vs[0], pos(vs[1:]))          # right-nested, as written
        negs = [i for i, (_, ng) in enumerate(vals) if ng]
        sets = [s for s, _ in vals]
        if not negs:
            return pos(sets)
        i = negs[0]
        if i == 0:
            return self.no_head(sets[0], pos(sets[1:]))
        if i == len(sets) - 1:
            return self.no_tail(pos(sets[:-1]), sets[-1], t)
        return self.seq_wo(pos(sets[:i]), sets[i], pos(sets[i + 1:]))

    def window(self, w: A.Window, t: int) -> set:
        ents = self.entries(w, t)
        p = w.pattern
        if isinstance(p, A.BGP):
            return self.leaf(p, ents)
        return self.seq_items([(self.leaf(it.item if isinstance(it, A.Neg) else it, ents), isinstance(it, A.Neg))
                               for it in p.items], t)

    def clause(self, ec: A.EC, t: int) -> set:
        if isinstance(ec, A.WinRef):
            return self.window(self.q.window(ec.name), t)
        return self.seq_items([(self.window(self.q.window((it.item if isinstance(it, A.Neg) else it).name), t),
                                isinstance(it, A.Neg)) for it in ec.items], t)

    # ------------------------------------------------------------------ paths and static part (sections 7, 10)
    def rel(self, e: A.Path, G: set, zero: set) -> set:
        voc = {x for tr in G for x in tr}
        if isinstance(e, (A.Axis, A.AxisConst, A.AxisNest)):
            if isinstance(e, A.AxisConst) and e.kind == "self":
                c = self._nt(e.const)
                return {(c, c)}
            if isinstance(e, A.AxisConst):
                c = self._nt(e.const)
                ok = lambda z: z == c  # noqa: E731
            elif isinstance(e, A.AxisNest):
                dom = {x for x, _ in self.rel(e.test, G, zero)}
                ok = lambda z: z in dom  # noqa: E731
            else:
                ok = lambda z: True  # noqa: E731
            if e.kind == "self":
                r = {(x, x) for x in voc if ok(x)}
            elif e.kind == "next":
                r = {(s, o) for s, p, o in G if ok(p)}
            elif e.kind == "edge":
                r = {(s, p) for s, p, o in G if ok(o)}
            else:
                r = {(p, o) for s, p, o in G if ok(s)}
            return {(y, x) for x, y in r} if e.inverse else r
        if isinstance(e, A.PathSeq):
            r1, r2 = self.rel(e.left, G, zero), self.rel(e.right, G, zero)
            return {(x, y) for x, z in r1 for z2, y in r2 if z == z2}
        if isinstance(e, A.PathAlt):
            return self.rel(e.left, G, zero) | self.rel(e.right, G, zero)
        if isinstance(e, (A.PathPlus, A.PathStar)):
            base = self.rel(e.expr, G, zero)
            r = set(base)
            while True:
                new = r | {(x, y) for x, z in r for z2, y in base if z == z2}
                if new == r:
                    break
                r = new
            return r | ({(x, x) for x in zero} if isinstance(e, A.PathStar) else set())
        if isinstance(e, A.PathOpt):
            return self.rel(e.expr, G, zero) | {(x, x) for x in zero}
        raise TypeError(e)

    def sol(self, k: int) -> set:
        if k in self._sol_cache:
            return self._sol_cache[k]
        G = {self._nt3(tr) for tr in self.static.versions[k].triples}
        res = [dict()]
        for sp in self.q.static:
            if isinstance(sp, A.TriplePattern):
                matches = [dict(m) for m in self._match((sp,), G)]
                res = [{**m, **m2} for m in res for m2 in matches if _compat(frozenset(m.items()), frozenset(m2.items()))]
                continue
            if self.o.zero_length == "nsparql":
                zero = {x for tr in G for x in tr}
            else:
                zero = {x for s, p, o in G for x in (s, o)} | {self._nt(x) for x in (sp.s, sp.o)
                                                               if not isinstance(x, Variable)}
            r = self.rel(sp.path, G, zero)
            new = []
            for m in res:
                for x, y in r:
                    m2 = dict(m)
                    ok = True
                    for term, val in ((sp.s, x), (sp.o, y)):
                        if isinstance(term, Variable):
                            if m2.setdefault(str(term), val) != val:
                                ok = False
                        elif self._nt(term) != val:
                            ok = False
                    if ok:
                        new.append(m2)
            res = new
        out = {frozenset(m.items()) for m in res}
        self._sol_cache[k] = out
        return out

    def static_set(self, t: int) -> set:
        if not self.q.static:
            return {(frozenset(), 0, t)}
        k = self.static.version_index(t)
        mode = self.o.static_interval
        out = set()
        for m in self.sol(k):
            if mode == "global":
                s = self.static.versions[k].since
            elif mode == "unbounded":
                s = 0
            else:
                j = k
                while j > 0 and m in self.sol(j - 1):
                    j -= 1
                s = self.static.versions[j].since
            out.add((m, s, t))
        return out

    # ------------------------------------------------------------------ FILTER (section 8)
    def val(self, e, mu: dict):
        if isinstance(e, A.Var):
            s = mu[str(e.var)]
            return ("n", self.num[s]) if s in self.num else ("t", s)
        if isinstance(e, A.Const):
            v = A.numeric_value(e.term)
            return ("n", v) if v is not None else ("t", self._nt(e.term))
        if isinstance(e, A.UMinus):
            x = self.val(e.expr, mu)
            return ("n", -x[1]) if x and x[0] == "n" else None
        if isinstance(e, A.Arith):
            x, y = self.val(e.left, mu), self.val(e.right, mu)
            if x and y and x[0] == y[0] == "n":
                return ("n", x[1] + y[1] if e.op == "+" else x[1] - y[1])
            return None
        return None

    def ev(self, e, mu: dict):
        if isinstance(e, A.Const) and isinstance(e.term, Literal) and e.term.datatype == XSD.boolean:
            return str(e.term) in ("true", "1")
        if isinstance(e, A.Cmp):
            x, y = self.val(e.left, mu), self.val(e.right, mu)
            if x is None or y is None:
                return None
            if e.op in ("=", "!="):
                eq = x == y
                return eq if e.op == "=" else not eq
            if x[0] != "n" or y[0] != "n":
                return None
            return {"<": x[1] < y[1], "<=": x[1] <= y[1], ">": x[1] > y[1], ">=": x[1] >= y[1]}[e.op]
        if isinstance(e, A.And):
            x, y = self.ev(e.left, mu), self.ev(e.right, mu)
            return False if (x is False or y is False) else (None if (x is None or y is None) else True)
        if isinstance(e, A.Or):
            x, y = self.ev(e.left, mu), self.ev(e.right, mu)
            return True if (x is True or y is True) else (None if (x is None or y is None) else False)
        if isinstance(e, A.Not):
            x = self.ev(e.expr, mu)
            return None if x is None else not x
        raise TypeError(e)

    # ------------------------------------------------------------------ the query (section 6.4)
    def snapshot(self, t: int) -> set:
        ec = {(frozenset(), 0, t)}
        for c in self.q.events:
            ec = self.join(ec, self.clause(c, t))
        allm = self.join(ec, self.static_set(t))
        names = sorted(str(v) for v in A.projection(self.q))
        out = set()
        for m, a, b in allm:
            d = dict(m)
            if all(self.ev(f, d) is True for f in self.q.filters):
                out.add(Answer(t, tuple((n, d[n]) for n in names), (a, b)))
        return out


def naive_run(q: A.Query, elements, options: Options = Options(), static: Optional[StaticData] = None,
              until: Optional[int] = None) -> dict[int, set]:
    """``{t: [[Q, t]]}`` for every ``t`` in ``[0, H]``."""
    st = static if static is not None else StaticData.constant(())
    h = until if until is not None else default_until(q, elements, st.change_times)
    n = Naive(q, elements, options, st)
    return {t: n.snapshot(t) for t in range(h + 1)}
