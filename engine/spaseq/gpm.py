"""The SPAseq engine's own graph-pattern matcher (docs/semantics/spaseq.md#spaseq-3.8, #spaseq-A3, #spaseq-A16;
the SPECTRA-style GPM evaluator of section 6 of Gillani et al.: per-predicate views of one event, joins over them).

Everything here works on **term ids** (dictionary encoding, as the paper's input manager does): :class:`Terms`
maps each rdflib term to an ``int`` once; a mapping (row) is a tuple over the query's variable layout, ``None``
for unbound.  An event's graph is indexed once by predicate (:class:`Index`).  A GPM's pattern is compiled once
into a function ``f(row, index) -> list[row]`` that evaluates ``[[mu(P)]]`` (``mu`` = the context row,
substituted as constants everywhere in ``P``, filters, OPTIONAL and UNION parts included) with SPARQL algebra set
semantics, and returns the rows ``mu ∪ mu'`` (the correlated extension ``Ext`` of the contract, for one ``mu``).

* BGPs are compiled to generated nested loops, one plan per set of variables already bound (constant predicates
  look up the event's per-predicate list; a variable predicate scans the event's triples).
* ``Join``/``LeftJoin`` whose right side is *monotone* (BGP, Join, Union, Graph of those) pass each left row
  into the right side (sideways information passing, exact for monotone patterns); otherwise both sides are
  evaluated from the context row (bottom-up algebra) and joined on compatibility.
* ``GRAPH <g> {P'}`` matches ``D(g)``: a monotone ``P'`` is evaluated once per evaluator and selected by the
  context's values through a hash index; any other ``P'`` is memoised on the values the context gives its
  variables.
* FILTER: the contract's three-valued semantics with exact decimal numbers (:func:`numeric_value`).
"""
from __future__ import annotations

import decimal
import re
from decimal import Decimal
from typing import Any, Callable, Iterable, Optional, Sequence

from rdflib import XSD, BNode, Literal, URIRef, Variable

from ceplab.semantics.spaseq import ast as A
from ceplab.semantics.rdfstream import nt_term

# ------------------------------------------------------------------------------------------------ numbers
_INT = re.compile(r"[+-]?[0-9]+\Z")
_DEC = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)\Z")
_DBL = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?\Z")
_XSTRING = str(XSD.string)
#: integer datatypes with their value range (None: unbounded), XML Schema 1.1 part 2, section 3.4
INTEGER_RANGES: dict[URIRef, tuple[Optional[int], Optional[int]]] = {
    XSD.integer: (None, None),
    XSD.nonNegativeInteger: (0, None), XSD.positiveInteger: (1, None),
    XSD.nonPositiveInteger: (None, 0), XSD.negativeInteger: (None, -1),
    XSD.long: (-2 ** 63, 2 ** 63 - 1), XSD.int: (-2 ** 31, 2 ** 31 - 1),
    XSD.short: (-2 ** 15, 2 ** 15 - 1), XSD.byte: (-2 ** 7, 2 ** 7 - 1),
    XSD.unsignedLong: (0, 2 ** 64 - 1), XSD.unsignedInt: (0, 2 ** 32 - 1),
    XSD.unsignedShort: (0, 2 ** 16 - 1), XSD.unsignedByte: (0, 2 ** 8 - 1),
}
#: exact arithmetic: the precision never rounds a sum of decimals that fit in memory
EXACT = decimal.Context(prec=decimal.MAX_PREC, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN,
                        traps=[decimal.InvalidOperation])


def numeric_value(t: Any) -> Optional[Decimal]:
    """The exact value of a numeric literal (contract "FILTER evaluation"), or None for any other term.

    A literal is numeric when its datatype is xsd:integer or a derived integer type, xsd:decimal, xsd:double or
    xsd:float **and** its lexical form ``str(t)`` (as rdflib holds it, i.e. after rdflib's own normalisation) is
    in the type's lexical space: ``[+-]?digits`` for integers (and, for derived integer types, inside the type's
    value range), ``[+-]?(d+(.d*)?|.d+)`` for decimal, the same with an optional exponent ``[eE][+-]?d+`` for
    double/float; ``INF``, ``NaN`` and surrounding white space are not numeric.  The value is the exact decimal
    value of that lexical form (``"1.5E2"^^xsd:double`` = 150).  Anything else (an ill-typed numeric literal
    included) is not numeric.
    """
    if not isinstance(t, Literal) or t.datatype is None:
        return None
    dt = t.datatype
    lex = str(t)
    rng = INTEGER_RANGES.get(dt)
    if rng is not None:
        if not _INT.match(lex):
            return None
        v = int(lex)
        lo, hi = rng
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            return None
        return Decimal(v)
    if dt == XSD.decimal:
        return Decimal(lex) if _DEC.match(lex) else None
    if dt == XSD.double or dt == XSD.float:
        return Decimal(lex) if _DBL.match(lex) else None
    return None


# ------------------------------------------------------------------------------------------------ terms
K_IRI, K_BNODE, K_NUM, K_STR, K_LIT = 0, 1, 2, 3, 4


class Terms:
    """Dictionary encoding of RDF terms: ``id(term) -> int`` (the same id for the same live RDF term).

    A literal typed ``xsd:string`` is the same RDF term as the simple literal with its lexical form (RDF 1.1;
    both have the same N-Triples form in results), so both get one id.  Per id the encoder keeps the term, its
    kind (IRI, blank node, numeric literal, simple/xsd:string literal, other literal), its exact numeric value
    (:func:`numeric_value`) and its lexical form (strings).

    Bounded over an unbounded stream (docs/semantics/spaseq.md#spaseq-9.2): the ids below :attr:`pinned` (the
    query's constants and the background graphs, encoded before the first event; :meth:`pin`) are permanent;
    any other id is freed by :meth:`sweep` when its owner no longer marks it live, and :meth:`id` hands freed ids
    out again.  An id is therefore only meaningful while something live holds it: the evaluator marks the ids
    of its live runs and clears every cache keyed by ids at each sweep.

    Attributes:
        pinned: ids ``< pinned`` are never freed.
        sweeps: how many sweeps ran; ``freed``: how many ids they freed in total.
    """

    __slots__ = ("ids", "terms", "num", "kind", "lex", "_nt", "true_id", "false_id", "keys", "free", "pinned",
                 "sweeps", "freed")

    def __init__(self) -> None:
        self.ids: dict[Any, int] = {}
        self.terms: list[Any] = []
        self.num: list[Optional[Decimal]] = []
        self.kind: list[int] = []
        self.lex: list[Optional[str]] = []
        self.keys: list[Any] = []           # id -> its key in ``ids`` (None: a free id)
        self.free: list[int] = []           # free ids below len(terms), lowest last
        self.pinned = 0
        self.sweeps = 0
        self.freed = 0
        self._nt: dict[int, str] = {}
        self.true_id = self.id(Literal("true", datatype=XSD.boolean))
        self.false_id = self.id(Literal("false", datatype=XSD.boolean))

    def id(self, t: Any) -> int:
        """The id of ``t`` (an rdflib URIRef, BNode or Literal), allocated on first sight (a freed id if any)."""
        tp = type(t)
        if tp is URIRef:
            key: Any = str(t)
        elif tp is Literal:
            dt = t.datatype
            dts = None if dt is None else str(dt)
            lang = t.language
            key = (str(t), None if (dts == _XSTRING and not lang) else dts, lang)
        elif isinstance(t, BNode):
            key = ("_", str(t))
        elif isinstance(t, URIRef):
            key = str(t)
        elif isinstance(t, Literal):
            return self.id(Literal(str(t), datatype=t.datatype, lang=t.language))
        else:
            raise TypeError(f"not an RDF term: {t!r}")
        i = self.ids.get(key)
        if i is not None:
            return i
        canon = t
        if isinstance(t, Literal) and key[1] is None and t.datatype is not None:
            canon = Literal(str(t))          # xsd:string is the simple literal (RDF 1.1)
        lx = None
        if isinstance(canon, Literal):
            v = numeric_value(canon)
            if v is not None:
                k = K_NUM
            elif canon.datatype is None and not canon.language:
                k = K_STR
                lx = str(canon)
            else:
                k = K_LIT
        else:
            v = None
            k = K_BNODE if isinstance(canon, BNode) else K_IRI
        free = self.free
        if free:
            i = free.pop()
            self.terms[i] = canon
            self.num[i] = v
            self.kind[i] = k
            self.lex[i] = lx
            self.keys[i] = key
        else:
            i = len(self.terms)
            self.terms.append(canon)
            self.num.append(v)
            self.kind.append(k)
            self.lex.append(lx)
            self.keys.append(key)
        self.ids[key] = i
        return i

    def nt(self, i: int) -> str:
        """The N-Triples form of term ``i`` (``ceplab.semantics.spaseq.results.term``), cached."""
        s = self._nt.get(i)
        if s is None:
            s = self._nt[i] = nt_term(self.terms[i])
        return s

    def __len__(self) -> int:
        """The number of terms held (live ids)."""
        return len(self.ids)

    def pin(self) -> None:
        """Make every id allocated so far permanent (called once the query and the background are encoded)."""
        self.pinned = len(self.terms)

    def sweep(self, live: bytearray) -> int:
        """Free every id ``i >= pinned`` with ``live[i] == 0`` (``live``: one byte per id ``< len(self.terms)``);
        the id lists shrink to the highest id still held.  Returns the number of ids freed.

        Raises:
            ValueError: ``live`` is shorter than the id range.
        """
        n = len(self.terms)
        if len(live) < n:
            raise ValueError(f"sweep: {len(live)} liveness bytes for {n} ids")
        keys, terms, num, lex, ids, cache = self.keys, self.terms, self.num, self.lex, self.ids, self._nt
        freed = 0
        top = self.pinned
        for i in range(self.pinned, n):
            k = keys[i]
            if k is None:
                continue
            if live[i]:
                top = i + 1
                continue
            del ids[k]
            keys[i] = terms[i] = num[i] = lex[i] = None
            cache.pop(i, None)
            freed += 1
        for lst in (keys, terms, num, self.kind, lex):
            del lst[top:]
        self.free = [i for i in range(top - 1, self.pinned - 1, -1) if keys[i] is None]
        self.sweeps += 1
        self.freed += freed
        return freed


class Index:
    """One graph (an event's or a background graph), encoded and indexed once.

    Attributes:
        P: predicate id -> list of ``(subject id, object id)``.
        T: every triple as ``(s, p, o)`` ids (for variable predicates).
    """

    __slots__ = ("P", "T", "_ps", "_po", "_pso")

    def __init__(self, triples: Iterable[tuple[Any, Any, Any]], terms: Terms) -> None:
        P: dict[int, list[tuple[int, int]]] = {}
        tid = terms.id
        T = [(tid(s), tid(p), tid(o)) for s, p, o in triples]
        if len(set(T)) != len(T):   # the xsd:string / simple literal identification merged two triples
            T = list(dict.fromkeys(T))
        for t in T:
            lst = P.get(t[1])
            if lst is None:
                P[t[1]] = [(t[0], t[2])]
            else:
                lst.append((t[0], t[2]))
        self.P = P
        self.T = T
        self._ps = None
        self._po = None
        self._pso = None

    def keysets(self) -> tuple[set, set, set]:
        """``({(p, s)}, {(p, o)}, {(p, s, o)})``, built on first use (the stateful pre-check)."""
        if self._ps is None:
            self._ps = {(p, s) for s, p, o in self.T}
            self._po = {(p, o) for s, p, o in self.T}
            self._pso = {(p, s, o) for s, p, o in self.T}
        return self._ps, self._po, self._pso


# ------------------------------------------------------------------------------------------------ expressions
class _Err:
    __slots__ = ()

    def __repr__(self) -> str:
        return "ERR"


ERR: Any = _Err()
"""The error value of SPARQL's three-valued logic."""

_BOOL_DT = XSD.boolean
_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
    "=": lambda a, b: a == b, "!=": lambda a, b: a != b}


class ExprCompiler:
    """Compiles FILTER expressions to closures ``f(row) -> value``.

    Values: a term id (``int``), an arithmetic result (``Decimal``), ``True``/``False`` (a condition) or
    :data:`ERR`.  Semantics (contract "FILTER evaluation", SPARQL 1.1 section 17): an unbound variable is an
    error; ``BOUND`` is never an error; ``+``/``-``/unary minus are exact on numerics and an error otherwise;
    comparisons: both numeric by value, both simple/xsd:string literals by code point order of the lexical forms,
    otherwise ``=`` is true on the same term, an error between two different literals, false otherwise (``!=``
    its negation, an error stays an error), and ``< <= > >=`` are errors.  A condition used as a comparison
    operand is the literal ``"true"``/``"false"^^xsd:boolean``.  ``&&``, ``||``, ``!`` follow SPARQL's tables
    on the operands' effective boolean values (:meth:`ebv`).
    """

    def __init__(self, terms: Terms, varindex: dict[Variable, int]) -> None:
        self.terms = terms
        self.varindex = varindex

    # -- value helpers
    def num_of(self, v: Any) -> Optional[Decimal]:
        """Numeric value of a runtime value, None if not numeric."""
        if type(v) is int:
            return self.terms.num[v]
        if type(v) is Decimal:
            return v
        return None

    def ebv(self, v: Any) -> Any:
        """SPARQL 1.1 effective boolean value (section 17.2.2): booleans; numerics (non-zero); simple,
        xsd:string and language-tagged literals (non-empty); an ill-typed xsd:boolean or numeric literal is
        false; anything else (IRIs, blank nodes, other literals) an error."""
        if v is True or v is False or v is ERR:
            return v
        if type(v) is Decimal:
            return v != 0
        T = self.terms
        k = T.kind[v]
        if k == K_NUM:
            return T.num[v] != 0
        if k == K_STR:
            return T.lex[v] != ""
        if k == K_LIT:
            t = T.terms[v]
            if t.datatype == _BOOL_DT:
                return str(t) == "true" if str(t) in ("true", "false") else False
            if t.language:
                return str(t) != ""
            if t.datatype in INTEGER_RANGES or t.datatype in (XSD.decimal, XSD.double, XSD.float):
                return False
        return ERR

    def compare(self, op: str, a: Any, b: Any) -> Any:
        """``a op b`` on two non-error runtime values (class docstring)."""
        T = self.terms
        if a is True or a is False:
            a = T.true_id if a else T.false_id
        if b is True or b is False:
            b = T.true_id if b else T.false_id
        ta = type(a) is int
        tb = type(b) is int
        na = T.num[a] if ta else a
        nb = T.num[b] if tb else b
        if na is not None and nb is not None:
            return _OPS[op](na, nb)
        if ta and tb:
            ka = T.kind[a]
            kb = T.kind[b]
            if ka == K_STR and kb == K_STR:
                return _OPS[op](T.lex[a], T.lex[b])
        if op != "=" and op != "!=":
            return ERR
        if ta and tb and a == b:
            same = True
        else:
            lit_a = (not ta) or T.kind[a] >= K_NUM
            lit_b = (not tb) or T.kind[b] >= K_NUM
            if lit_a and lit_b:
                return ERR
            same = False
        return same if op == "=" else not same

    # -- compilation
    def compile(self, e: A.Expr) -> Callable[[tuple], Any]:
        """``f(row) -> value`` for expression ``e``."""
        if isinstance(e, A.Var):
            i = self.varindex[e.var]

            def var(row: tuple, i: int = i) -> Any:
                v = row[i]
                return ERR if v is None else v
            return var
        if isinstance(e, A.Const):
            c = self.terms.id(e.term)
            return lambda row, c=c: c
        if isinstance(e, A.Bound):
            i = self.varindex[e.var]
            return lambda row, i=i: row[i] is not None
        if isinstance(e, A.Cmp):
            return self._cmp(e)
        if isinstance(e, A.Arith):
            fl = self.compile(e.left)
            fr = self.compile(e.right)
            num_of = self.num_of
            op = EXACT.add if e.op == "+" else EXACT.subtract

            def arith(row: tuple) -> Any:
                a = num_of(fl(row))
                if a is None:
                    return ERR
                b = num_of(fr(row))
                if b is None:
                    return ERR
                return op(a, b)
            return arith
        if isinstance(e, A.Neg):
            f = self.compile(e.expr)
            num_of = self.num_of

            def neg(row: tuple) -> Any:
                a = num_of(f(row))
                return ERR if a is None else EXACT.minus(a)
            return neg
        ebv = self.ebv
        if isinstance(e, A.Not):
            f = self.compile(e.expr)

            def not_(row: tuple) -> Any:
                v = ebv(f(row))
                return v if v is ERR else (not v)
            return not_
        if isinstance(e, A.And):
            fl = self.compile(e.left)
            fr = self.compile(e.right)

            def and_(row: tuple) -> Any:
                a = ebv(fl(row))
                if a is False:
                    return False
                b = ebv(fr(row))
                if b is False:
                    return False
                if a is ERR or b is ERR:
                    return ERR
                return True
            return and_
        if isinstance(e, A.Or):
            fl = self.compile(e.left)
            fr = self.compile(e.right)

            def or_(row: tuple) -> Any:
                a = ebv(fl(row))
                if a is True:
                    return True
                b = ebv(fr(row))
                if b is True:
                    return True
                if a is ERR or b is ERR:
                    return ERR
                return False
            return or_
        raise TypeError(f"not an expression: {e!r}")

    def _cmp(self, e: A.Cmp) -> Callable[[tuple], Any]:
        op = e.op
        compare = self.compare
        NUM = self.terms.num
        KIND = self.terms.kind
        LEX = self.terms.lex
        opf = _OPS[op]
        # fast path: variables and constants (term ids); numbers compare by value, strings by lexical form
        simple = all(isinstance(x, (A.Var, A.Const)) for x in (e.left, e.right))
        if simple:
            def spec(x: A.Expr) -> tuple[bool, int]:
                if isinstance(x, A.Var):
                    return True, self.varindex[x.var]
                return False, self.terms.id(x.term)
            lv, li = spec(e.left)
            rv, ri = spec(e.right)

            def cmp_simple(row: tuple) -> Any:
                a = row[li] if lv else li
                if a is None:
                    return ERR
                b = row[ri] if rv else ri
                if b is None:
                    return ERR
                na = NUM[a]
                if na is not None:
                    nb = NUM[b]
                    if nb is not None:
                        return opf(na, nb)
                elif KIND[a] == K_STR and KIND[b] == K_STR:
                    return opf(LEX[a], LEX[b])
                return compare(op, a, b)
            return cmp_simple
        fl = self.compile(e.left)
        fr = self.compile(e.right)

        def cmp(row: tuple) -> Any:
            a = fl(row)
            if a is ERR:
                return ERR
            b = fr(row)
            if b is ERR:
                return ERR
            return compare(op, a, b)
        return cmp


# ------------------------------------------------------------------------------------------------ patterns
def is_monotone(p: A.Pattern) -> bool:
    """True for patterns built from BGP, Join, Union and Graph only: their evaluation under a larger context row
    is the compatible part of their evaluation under a smaller one, so a row can be passed sideways into them."""
    if isinstance(p, A.BGP):
        return True
    if isinstance(p, (A.Join, A.Union_)):
        return is_monotone(p.left) and is_monotone(p.right)
    if isinstance(p, A.Graph):
        return is_monotone(p.pattern)
    return False


def _flatten_bgp(p: A.Pattern) -> Optional[tuple[A.TriplePattern, ...]]:
    """The triple patterns of a Join tree of BGPs (one BGP under set semantics), else None."""
    if isinstance(p, A.BGP):
        return p.triples
    if isinstance(p, A.Join):
        a = _flatten_bgp(p.left)
        b = _flatten_bgp(p.right)
        if a is not None and b is not None:
            return a + b
    return None


def required_triples(p: A.Pattern) -> tuple[A.TriplePattern, ...]:
    """The triple patterns every solution of ``p`` must match in the *event* graph (outside OPTIONAL right
    sides, UNION and GRAPH): the candidates of the stateful pre-check."""
    if isinstance(p, A.BGP):
        return p.triples
    if isinstance(p, A.Join):
        return required_triples(p.left) + required_triples(p.right)
    if isinstance(p, A.LeftJoin):
        return required_triples(p.left)
    if isinstance(p, A.Filter):
        return required_triples(p.pattern)
    return ()


RowFn = Callable[[tuple, Index], list]


class PatternCompiler:
    """Compiles graph patterns to ``f(row, index) -> list[row]`` (module docstring).

    Args:
        terms: the shared term dictionary.
        varindex: variable -> position in a row.
        background: IRI -> :class:`Index` of ``D(iri)`` (absent graphs are empty).
    """

    def __init__(self, terms: Terms, varindex: dict[Variable, int],
                 background: dict[URIRef, Index]) -> None:
        self.terms = terms
        self.varindex = varindex
        self.nvars = len(varindex)
        self.background = background
        self.exprs = ExprCompiler(terms, varindex)
        self._empty = Index((), terms)
        self._n = 0
        self.memos: list[dict] = []
        """The caches keyed by term ids of the context (GRAPH patterns that are not monotone): cleared whenever
        the term dictionary frees ids (:meth:`Terms.sweep`)."""

    def compile(self, p: A.Pattern) -> RowFn:
        """``f(row, index)`` evaluating ``[[row(p)]]`` over ``index`` and returning the rows ``row ∪ mu'``."""
        flat = _flatten_bgp(p)
        if flat is not None:
            return BGPMatcher(flat, self.terms, self.varindex).run
        if isinstance(p, A.Join):
            return self._join(p.left, p.right)
        if isinstance(p, A.LeftJoin):
            return self._leftjoin(p)
        if isinstance(p, A.Union_):
            fl = self.compile(p.left)
            fr = self.compile(p.right)
            return lambda row, E: fl(row, E) + fr(row, E)
        if isinstance(p, A.Filter):
            f = self.compile(p.pattern)
            cond = self.exprs.compile(p.expr)

            def filt(row: tuple, E: Index) -> list:
                return [r for r in f(row, E) if cond(r) is True]
            return filt
        if isinstance(p, A.Graph):
            return self._graph(p)
        raise TypeError(f"not a graph pattern: {p!r}")

    def _vars(self, p: A.Pattern) -> tuple[int, ...]:
        return tuple(sorted(self.varindex[v] for v in A.pattern_vars(p)))

    def _join(self, left: A.Pattern, right: A.Pattern) -> RowFn:
        if is_monotone(right) or is_monotone(left):
            if not is_monotone(right):
                left, right = right, left
            fl = self.compile(left)
            fr = self.compile(right)

            def sideways(row: tuple, E: Index) -> list:
                out = []
                for r1 in fl(row, E):
                    out.extend(fr(r1, E))
                return out
            return sideways
        fl = self.compile(left)
        fr = self.compile(right)
        shared = tuple(sorted(set(self._vars(left)) & set(self._vars(right))))
        merge = _merger(self.nvars)

        def join(row: tuple, E: Index) -> list:
            out = []
            rs = fr(row, E)
            for r1 in fl(row, E):
                for r2 in rs:
                    if _compatible(r1, r2, shared):
                        out.append(merge(r1, r2))
            return out
        return join

    def _leftjoin(self, p: A.LeftJoin) -> RowFn:
        fl = self.compile(p.left)
        fr = self.compile(p.right)
        cond = self.exprs.compile(p.expr) if p.expr is not None else None
        if is_monotone(p.right):
            def lj_sideways(row: tuple, E: Index) -> list:
                out = []
                for r1 in fl(row, E):
                    ext = fr(r1, E)
                    if cond is not None:
                        ext = [r for r in ext if cond(r) is True]
                    if ext:
                        out.extend(ext)
                    else:
                        out.append(r1)
                return out
            return lj_sideways
        shared = tuple(sorted(set(self._vars(p.left)) & set(self._vars(p.right))))
        merge = _merger(self.nvars)

        def lj(row: tuple, E: Index) -> list:
            out = []
            rs = fr(row, E)
            for r1 in fl(row, E):
                found = False
                for r2 in rs:
                    if _compatible(r1, r2, shared):
                        m = merge(r1, r2)
                        if cond is None or cond(m) is True:
                            out.append(m)
                            found = True
                if not found:
                    out.append(r1)
            return out
        return lj

    def _graph(self, p: A.Graph) -> RowFn:
        B = self.background.get(p.iri, self._empty)
        f = self.compile(p.pattern)
        pvars = self._vars(p.pattern)
        n = self.nvars
        if is_monotone(p.pattern):
            # [[P']]_D once; per context row, the compatible rows through an index on the bound variables
            base = [r for r in dict.fromkeys(f((None,) * n, B))]
            indexes: dict[tuple[int, ...], tuple[dict, list]] = {}

            def graph_mono(row: tuple, E: Index) -> list:
                bound = tuple(i for i in pvars if row[i] is not None)
                ix = indexes.get(bound)
                if ix is None:
                    full: dict[tuple, list] = {}
                    wild = []
                    for r in base:
                        key = tuple(r[i] for i in bound)
                        if None in key:
                            wild.append(r)
                        else:
                            full.setdefault(key, []).append(r)
                    ix = indexes[bound] = (full, wild)
                full, wild = ix
                out = []
                cands = full.get(tuple(row[i] for i in bound), ())
                for r in cands:
                    out.append(tuple(a if a is not None else b for a, b in zip(row, r)))
                for r in wild:
                    if all(r[i] is None or r[i] == row[i] for i in bound):
                        out.append(tuple(a if a is not None else b for a, b in zip(row, r)))
                return out
            return graph_mono
        memo: dict[tuple, list] = {}
        self.memos.append(memo)
        empty = (None,) * n

        def graph_memo(row: tuple, E: Index) -> list:
            key = tuple(row[i] for i in pvars)
            res = memo.get(key)
            if res is None:
                if len(memo) > 100_000:
                    memo.clear()
                sub = list(empty)
                for i, v in zip(pvars, key):
                    sub[i] = v
                res = memo[key] = f(tuple(sub), B)
            return [tuple(a if a is not None else b for a, b in zip(row, r)) for r in res]
        return graph_memo


def _compatible(r1: tuple, r2: tuple, shared: tuple[int, ...]) -> bool:
    for i in shared:
        a = r1[i]
        b = r2[i]
        if a is not None and b is not None and a != b:
            return False
    return True


def _merger(n: int) -> Callable[[tuple, tuple], tuple]:
    def merge(r1: tuple, r2: tuple) -> tuple:
        return tuple(a if a is not None else b for a, b in zip(r1, r2))
    return merge


# ------------------------------------------------------------------------------------------------ BGPs
class BGPMatcher:
    """A basic graph pattern compiled to generated nested loops, one plan per set of already bound variables
    (greedy order: constant predicate first, then most constant/bound positions, then written order)."""

    def __init__(self, triples: Sequence[A.TriplePattern], terms: Terms, varindex: dict[Variable, int]) -> None:
        self.terms = terms
        self.varindex = varindex
        self.n = len(varindex)
        self.triples = [tuple(self._spec(x) for x in (tp.s, tp.p, tp.o)) for tp in triples]
        self.vars = sorted({x[1] for t in self.triples for x in t if x[0] == "v"})
        self.plans: dict[tuple[int, ...], Callable[[tuple, Index], list]] = {}
        if not self.triples:
            self.run = lambda row, E: [row]  # type: ignore[method-assign]

    def _spec(self, x: Any) -> tuple[str, int]:
        if isinstance(x, Variable):
            return ("v", self.varindex[x])
        return ("c", self.terms.id(x))

    def run(self, row: tuple, E: Index) -> list:
        """The rows ``row ∪ mu'`` for ``mu'`` in ``[[row(BGP)]]_E``."""
        key = tuple(i for i in self.vars if row[i] is not None)
        f = self.plans.get(key)
        if f is None:
            f = self.plans[key] = self._generate(set(key))
        return f(row, E)

    def _generate(self, bound: set[int]) -> Callable[[tuple, Index], list]:
        todo = list(range(len(self.triples)))
        order = []
        bnd = set(bound)
        while todo:
            def score(k: int) -> tuple:
                s, p, o = self.triples[k]
                known = sum(1 for x in (s, o) if x[0] == "c" or x[1] in bnd)
                return (0 if (p[0] == "c" or p[1] in bnd) else 1, -known, k)
            k = min(todo, key=score)
            todo.remove(k)
            order.append(k)
            bnd |= {x[1] for x in self.triples[k] if x[0] == "v"}
        # generate the loops
        lines = ["def plan(row, E):", "    out = []", "    P = E.P"]
        consts: dict[str, Any] = {}
        local: dict[int, str] = {}  # var index -> expression of its value

        for i in bound:
            local[i] = f"row[{i}]"
        indent = "    "
        for depth, k in enumerate(order):
            s, p, o = self.triples[k]
            names = []

            def val(x: tuple[str, int]) -> Optional[str]:
                if x[0] == "c":
                    nm = f"K{x[1]}"
                    consts[nm] = x[1]
                    return nm
                return local.get(x[1])
            pv = val(p)
            sv_, ov_ = f"s{depth}", f"o{depth}"
            if pv is not None:
                lines.append(f"{indent}L{depth} = P.get({pv})")
                lines.append(f"{indent}if L{depth} is not None:")
                indent += "    "
                lines.append(f"{indent}for {sv_}, {ov_} in L{depth}:")
            else:
                pn = f"p{depth}"
                lines.append(f"{indent}for {sv_}, {pn}, {ov_} in E.T:")
                local[p[1]] = pn
            indent += "    "
            for x, nm in ((s, sv_), (o, ov_)):
                v = val(x)
                if v is not None:
                    lines.append(f"{indent}if {nm} != {v}: continue")
                else:
                    local[x[1]] = nm
            names.append(sv_)
        tup = ", ".join(local.get(i, f"row[{i}]") for i in range(self.n))
        lines.append(f"{indent}out.append(({tup}{',' if self.n == 1 else ''}))")
        lines.append("    return out")
        ns: dict[str, Any] = dict(consts)
        exec("\n".join(lines), ns)  # noqa: S102 - generated from the compiled plan above
        return ns["plan"]
