"""Terms, BGP matching and FILTER evaluation of the CQELS-CEP engine (docs/semantics/cqels.md#cqels-3.3,
#cqels-3.6).

Every RDF term is handled as its N-Triples string (``nt_term``): term identity is string identity
(docs/semantics/cqels.md#cqels-1).  A mapping over a schema (a tuple of variable names, sorted) is the tuple of the
terms bound to them, in schema order.  :class:`Terms` gives the exact numeric value of a numeric literal from its
string, which is all FILTER needs to know about a term besides the string itself.
"""
from __future__ import annotations

from fractions import Fraction
from operator import itemgetter
from typing import Callable, Optional, Sequence

from rdflib import XSD
from rdflib.term import Literal, URIRef, Variable

from ceplab.semantics.cqels import ast as A
from ceplab.semantics.rdfstream import nt_term

NTriple = tuple[str, str, str]
Mu = tuple


def getter(positions: Sequence[int]) -> Callable[[tuple], tuple]:
    """A function picking ``positions`` of a tuple into a tuple (``()`` for none, a 1-tuple for one)."""
    positions = tuple(positions)
    if not positions:
        return lambda x: ()
    if len(positions) == 1:
        p = positions[0]
        return lambda x: (x[p],)
    return itemgetter(*positions)


_NUMERIC_DT = {str(dt): dt for dt in A.NUMERIC_TYPES}
_CACHE_MAX = 100_000


class Terms:
    """N-Triples strings of rdflib terms (IRIs cached) and the exact value of numeric literals, read back from their
    N-Triples strings on demand (``ast.numeric_value``; docs/semantics/cqels.md#cqels-3.6).  Both caches are
    bounded (cleared when large): they only save work."""

    __slots__ = ("nums", "iris")

    def __init__(self) -> None:
        self.nums: dict[str, Optional[Fraction]] = {}
        self.iris: dict[URIRef, str] = {}     # IRIs only: rdflib equates some distinct literals ("01" = "1")

    def nt(self, term: object) -> str:
        """The N-Triples string of ``term``."""
        if type(term) is URIRef:
            s = self.iris.get(term)
            if s is None:
                if len(self.iris) > _CACHE_MAX:
                    self.iris.clear()
                s = self.iris[term] = nt_term(term)
            return s
        return nt_term(term)

    def triple(self, t: tuple) -> NTriple:
        return (self.nt(t[0]), self.nt(t[1]), self.nt(t[2]))

    def number(self, s: str) -> Optional[Fraction]:
        """The value of the term written ``s`` if it is a numeric literal (``"lex"^^<numeric type>``; numeric
        lexical forms need no escapes), else None."""
        try:
            return self.nums[s]
        except KeyError:
            pass
        v = None
        if s[0] == '"' and s[-1] == ">":
            i = s.rfind('"^^<')
            dt = _NUMERIC_DT.get(s[i + 4:-1]) if i > 0 else None
            if dt is not None:
                v = A.numeric_value(Literal(s[1:i], datatype=dt))
        if len(self.nums) > _CACHE_MAX:
            self.nums.clear()
        self.nums[s] = v
        return v


def schema_of(variables) -> tuple[str, ...]:
    """The schema of a set of rdflib variables: their names, sorted."""
    return tuple(sorted(str(v) for v in variables))


# ------------------------------------------------------------------------------------------------ BGP matching
def compile_bgp(patterns: Sequence[A.TriplePattern], schema: tuple[str, ...], terms: Terms
                ) -> Callable[[Sequence[NTriple]], list[Mu]]:
    """A matcher of the triple patterns ``patterns`` in a graph given as a sequence of N-Triples triples: it returns
    every mapping ``mu`` (a tuple over ``schema`` = the patterns' variables, sorted) with ``mu(tp)`` in the graph for
    every ``tp`` (homomorphisms, each once)."""
    index = {v: i for i, v in enumerate(schema)}
    pats = []
    for tp in patterns:
        slots = []
        for x in (tp.s, tp.p, tp.o):
            slots.append((True, index[str(x)]) if isinstance(x, Variable) else (False, terms.nt(x)))
        pats.append(tuple(slots))
    n = len(schema)

    if len(pats) == 1:
        (vs, s), (vp, p), (vo, o) = pats[0]
        # the common case: one triple pattern; bindings in slot order, repeated variables checked
        def match1(graph: Sequence[NTriple]) -> list[Mu]:
            out = []
            for t in graph:
                b = [None] * n
                ok = True
                for is_var, x, val in ((vs, s, t[0]), (vp, p, t[1]), (vo, o, t[2])):
                    if is_var:
                        cur = b[x]
                        if cur is None:
                            b[x] = val
                        elif cur != val:
                            ok = False
                            break
                    elif x != val:
                        ok = False
                        break
                if ok:
                    out.append(tuple(b))
            return out
        return match1

    def match(graph: Sequence[NTriple]) -> list[Mu]:
        out: set[Mu] = set()
        b: list = [None] * n

        def rec(k: int) -> None:
            if k == len(pats):
                out.add(tuple(b))
                return
            pat = pats[k]
            for t in graph:
                bound = []
                ok = True
                for (is_var, x), val in zip(pat, t):
                    if is_var:
                        cur = b[x]
                        if cur is None:
                            b[x] = val
                            bound.append(x)
                        elif cur != val:
                            ok = False
                            break
                    elif x != val:
                        ok = False
                        break
                if ok:
                    rec(k + 1)
                for x in bound:
                    b[x] = None
        rec(0)
        return sorted(out)
    return match


# ------------------------------------------------------------------------------------------------ FILTER
# Values: a Fraction (Num), a str (Term: its N-Triples string) or None (Err).  Booleans: True, False, None (Err).
_TRUE_LEX = ("true", "1")


def compile_expr(e: A.Expr, index: dict[str, int], terms: Terms) -> Callable[[Mu], object]:
    """``e`` as a function of a mapping tuple (``index``: variable name -> position), exactly
    docs/semantics/cqels.md#cqels-3.6: value expressions give a Fraction, an N-Triples string or None (Err); boolean
    expressions give True, False or None (Err)."""
    number = terms.number
    if isinstance(e, A.Var):
        i = index[str(e.var)]

        def var(mu: Mu) -> object:
            s = mu[i]
            v = number(s)
            return s if v is None else v
        return var
    if isinstance(e, A.Const):
        if A.is_boolean(e):
            # a boolean constant in a boolean position (in a value position it is its term: _value)
            val = str(e.term) in _TRUE_LEX
            return lambda mu: val
        v = A.numeric_value(e.term)
        cv: object = v if v is not None else terms.nt(e.term)
        return lambda mu: cv
    if isinstance(e, A.UMinus):
        f = _value(e.expr, index, terms)

        def uminus(mu: Mu) -> object:
            x = f(mu)
            return -x if type(x) is Fraction else None
        return uminus
    if isinstance(e, A.Arith):
        f, g = _value(e.left, index, terms), _value(e.right, index, terms)
        plus = e.op == "+"

        def arith(mu: Mu) -> object:
            x, y = f(mu), g(mu)
            if type(x) is Fraction and type(y) is Fraction:
                return x + y if plus else x - y
            return None
        return arith
    if isinstance(e, A.Cmp):
        f, g = _value(e.left, index, terms), _value(e.right, index, terms)
        op = e.op

        def cmp(mu: Mu) -> Optional[bool]:
            x, y = f(mu), g(mu)
            if x is None or y is None:
                return None
            xn, yn = type(x) is Fraction, type(y) is Fraction
            if op in ("=", "!="):
                eq = (x == y) if xn == yn else False
                return eq if op == "=" else not eq
            if not (xn and yn):
                return None
            if op == "<":
                return x < y
            if op == "<=":
                return x <= y
            if op == ">":
                return x > y
            return x >= y
        return cmp
    if isinstance(e, A.And):
        f, g = compile_expr(e.left, index, terms), compile_expr(e.right, index, terms)

        def and_(mu: Mu) -> Optional[bool]:
            x, y = f(mu), g(mu)
            if x is False or y is False:
                return False
            if x is None or y is None:
                return None
            return True
        return and_
    if isinstance(e, A.Or):
        f, g = compile_expr(e.left, index, terms), compile_expr(e.right, index, terms)

        def or_(mu: Mu) -> Optional[bool]:
            x, y = f(mu), g(mu)
            if x is True or y is True:
                return True
            if x is None or y is None:
                return None
            return False
        return or_
    if isinstance(e, A.Not):
        f = compile_expr(e.expr, index, terms)

        def not_(mu: Mu) -> Optional[bool]:
            x = f(mu)
            return None if x is None else not x
        return not_
    raise TypeError(f"not an expression: {e!r}")


def _value(e: A.Expr, index: dict[str, int], terms: Terms) -> Callable[[Mu], object]:
    """``e`` in a value position: a boolean constant there is its term (``"true"^^xsd:boolean``)."""
    if isinstance(e, A.Const) and isinstance(e.term, Literal) and e.term.datatype == XSD.boolean:
        s = terms.nt(e.term)
        return lambda mu: s
    return compile_expr(e, index, terms)


def compile_filters(filters: Sequence[A.Expr], schema: tuple[str, ...], terms: Terms
                    ) -> Optional[Callable[[Mu], bool]]:
    """The conjunction of ``filters`` as a predicate on mappings over ``schema`` (True iff every filter is true;
    false and Err drop the mapping), or None when there is no filter."""
    if not filters:
        return None
    index = {v: i for i, v in enumerate(schema)}
    fs = [compile_expr(f, index, terms) for f in filters]
    if len(fs) == 1:
        f0 = fs[0]
        return lambda mu: f0(mu) is True
    return lambda mu: all(f(mu) is True for f in fs)
