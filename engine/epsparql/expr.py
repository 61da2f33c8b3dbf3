"""Three-valued SPARQL expression evaluation for the EP-SPARQL engine (docs/semantics/epsparql.md#epsparql-3.3, #epsparql-A11, #epsparql-A15).

Expressions are compiled once into closures ``f(vals, ta, tw) -> value | ERR`` over a node's variable layout
(``vals`` is the row tuple, ``None`` = unbound).  Values:

* numbers are exact: ``int`` (xsd:integer and the derived integer types) or ``fractions.Fraction``
  (xsd:decimal, and xsd:float/double read from their lexical form), never Python floats (A11);
* ``xsd:duration`` and ``xsd:dateTime`` literals and the time functions ``getDURATION()``,
  ``getSTARTTIME()``, ``getENDTIME()`` are integer ticks (A15, ``Options.tick_seconds``), so
  ``getDURATION() < 10`` and ``getDURATION() < "P10D"^^xsd:duration`` both compare ticks;
* ``bool`` (xsd:boolean), ``str`` (simple literals and xsd:string), otherwise the rdflib term itself.

Errors (SPARQL 1.0 section 11.3): an unbound variable, arithmetic on non-numbers, division by zero, ordering
comparisons between incomparable values, ``=`` between two different literals of incomparable types.
``&&``/``||`` are three-valued (``error && false = false``, ``error || true = true``), ``!error = error``;
the effective boolean value of an error is an error, and a filter whose value is not ``true`` drops the row.
Under ``Options.filter_errors = "error_is_false"`` every comparison (and every effective boolean value) that
would be an error is ``false`` where it occurs.
"""
from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from typing import Any, Callable, Optional

from rdflib import XSD, Literal

from ceplab.semantics.epsparql import ast as A, translate
from ceplab.semantics.epsparql.options import Options
from ceplab.semantics.epsparql.results import INTEGER_TYPES, canonical_decimal, canonical_term


class _Err:
    __slots__ = ()

    def __repr__(self) -> str:
        return "ERR"


ERR: Any = _Err()
"""The error value of SPARQL's three-valued logic."""

def duration_ticks(lit: Literal, tick_seconds: int) -> int:
    """An ``xsd:duration`` literal in ticks (A15): ``ceplab.semantics.epsparql.translate.duration_ticks``.

    Raises:
        ValueError: years or months, ill-formed, or not a whole number of ticks.
    """
    return int(translate.duration_ticks(lit, Options(tick_seconds=tick_seconds)))


def datetime_ticks(lit: Literal, tick_seconds: int) -> int:
    """An ``xsd:dateTime`` literal as ticks since the epoch (UTC; a naive value is read as UTC):
    ``ceplab.semantics.epsparql.translate.datetime_ticks``.

    Raises:
        ValueError: ill-formed, or not a whole number of ticks.
    """
    return int(translate.datetime_ticks(lit, Options(tick_seconds=tick_seconds)))


def make_value(tick_seconds: int) -> Callable[[Any], Any]:
    """``term -> value``: numeric literals (integer types, decimal; float/double from their lexical form) become
    exact ``int``/``Fraction``; every other term is its own value (stream literals of type xsd:duration or
    xsd:dateTime stay terms, as in the oracle: only query constants of those types are ticks)."""

    @lru_cache(maxsize=200_000)
    def value(t: Any) -> Any:
        if not isinstance(t, Literal):
            return t
        dt = t.datatype
        try:
            if dt in INTEGER_TYPES:
                return int(str(t).strip())
            if dt == XSD.decimal:
                return Fraction(Decimal(str(t).strip()))
            if dt in (XSD.double, XSD.float):
                d = Decimal(str(t).strip())
                return Fraction(d) if d.is_finite() else ERR
        except (ValueError, ArithmeticError):
            return ERR
        return t

    return value


def _num(v: Any) -> bool:
    return (type(v) is int) or (type(v) is Fraction)


def to_term(v: Any) -> Optional[Any]:
    """A value back as a canonical rdflib term (for ``Extend``); ``None`` when it has no term (error, or a
    non-terminating decimal such as 1/3)."""
    if v is ERR or v is None:
        return None
    if type(v) is bool:
        return Literal("true" if v else "false", datatype=XSD.boolean)
    if type(v) is int:
        return Literal(str(v), datatype=XSD.integer)
    if type(v) is Fraction:
        d = v.denominator
        twos = fives = 0
        while d % 2 == 0:
            d //= 2
            twos += 1
        while d % 5 == 0:
            d //= 5
            fives += 1
        if d != 1:
            return None
        k = max(twos, fives)
        dec = Decimal(v.numerator * (10 ** k // v.denominator)).scaleb(-k)
        return Literal(canonical_decimal(dec), datatype=XSD.decimal)
    return canonical_term(v)


def _classify(v: Any) -> tuple[str, Any]:
    """``("num"|"bool"|"str"|"lit"|"res", payload)`` for the operator mapping of comparisons."""
    t = type(v)
    if t is int or t is Fraction:
        return "num", v
    if t is bool:
        return "bool", v
    if isinstance(v, Literal):
        if v.language is None and v.datatype in (None, XSD.string):
            return "str", str(v)
        if v.datatype == XSD.boolean:
            return "bool", str(v).strip() in ("true", "1")
        return "lit", v
    return "res", v


_ORD = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
        ">=": lambda a, b: a >= b, "=": lambda a, b: a == b, "!=": lambda a, b: a != b}


def compare(op: str, a: Any, b: Any) -> Any:
    """SPARQL's operator mapping of ``a op b`` on values (the oracle's ``_Functions._compare``): numerics by
    value; simple literals / xsd:string by lexical form; booleans by value; other terms only ``=``/``!=``
    (same term: equal; an IRI or blank node against anything else: different; two different literals: an
    error); a numeric against a literal of another type: an error; ordering an incompatible pair: an error."""
    if a is ERR or b is ERR:
        return ERR
    ta, tb = type(a), type(b)
    if (ta is int or ta is Fraction) and (tb is int or tb is Fraction):
        return _ORD[op](a, b)
    ka, pa = _classify(a)
    kb, pb = _classify(b)
    if ka == "num" or kb == "num":
        other = kb if ka == "num" else ka
        if op in ("=", "!=") and other == "res":
            return op == "!="
        return ERR
    if ka == kb and ka in ("str", "bool"):
        return _ORD[op](pa, pb)
    if op not in ("=", "!="):
        return ERR
    ra = to_term(a) if ka == "bool" else a
    rb = to_term(b) if kb == "bool" else b
    if type(ra) is type(rb) and ra == rb:
        eq = True
    elif ka != "res" and kb != "res":
        return ERR
    else:
        eq = False
    return eq if op == "=" else not eq


def ebv(v: Any) -> Any:
    """Effective boolean value (SPARQL 17.2.2)."""
    if v is ERR:
        return ERR
    k, x = _classify(v)
    if k == "bool":
        return x
    if k == "num":
        return x != 0
    if k == "str":
        return len(x) > 0
    return ERR


def arith(op: str, a: Any, b: Any) -> Any:
    if not (_num(a) and _num(b)):
        return ERR
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        if b == 0:
            return ERR
        return Fraction(a) / Fraction(b)      # xsd:integer / xsd:integer is xsd:decimal (SPARQL 11.4)
    raise ValueError(f"unknown arithmetic operator {op!r}")


Fn = Callable[[tuple, int, int], Any]


class Compiler:
    """Compiles expressions over a variable layout ``names`` (a tuple of rdflib Variables)."""

    def __init__(self, tick_seconds: int, error_is_false: bool) -> None:
        self.value = make_value(tick_seconds)
        self.tick_seconds = tick_seconds
        self.eif = error_is_false

    def const_value(self, e: A.Const) -> Any:
        """The value of a constant; ill-formed time literals are rejected at build time (A15)."""
        t = e.term
        if isinstance(t, Literal) and t.datatype == XSD.duration:
            return duration_ticks(t, self.tick_seconds)
        if isinstance(t, Literal) and t.datatype == XSD.dateTime:
            return datetime_ticks(t, self.tick_seconds)
        return self.value(canonical_term(t))

    def value_fn(self, e: A.Expr, names: tuple) -> Fn:
        """``f(vals, ta, tw) -> value | ERR``."""
        value = self.value
        if isinstance(e, A.Var):
            if e.var not in names:
                return lambda v, a, w: ERR
            i = names.index(e.var)

            def var(v, a, w, i=i):
                x = v[i]
                return ERR if x is None else value(x)
            return var
        if isinstance(e, A.Const):
            c = self.const_value(e)
            return lambda v, a, w: c
        if isinstance(e, A.TimeFn):
            n = e.name.upper()
            # a timeless row (docs/semantics/epsparql.md#epsparql-A14 iii: only static matches) has no interval: ``a is None``, an error
            if n == "DURATION":
                return lambda v, a, w: ERR if a is None else w - a
            if n == "STARTTIME":
                return lambda v, a, w: ERR if a is None else a
            if n == "ENDTIME":
                return lambda v, a, w: ERR if w is None else w
            raise ValueError(f"unknown time function get{e.name}()")
        if isinstance(e, A.Arith):
            lf, rf, op = self.value_fn(e.left, names), self.value_fn(e.right, names), e.op
            return lambda v, a, w: arith(op, lf(v, a, w), rf(v, a, w))
        if isinstance(e, A.Neg):
            f = self.value_fn(e.expr, names)

            def neg(v, a, w):
                x = f(v, a, w)
                return -x if _num(x) else ERR
            return neg
        # boolean-valued expressions
        return self.bool_fn(e, names)

    def bool_fn(self, e: A.Expr, names: tuple) -> Fn:
        """``f(vals, ta, tw) -> True | False | ERR`` (the effective boolean value of ``e``)."""
        eif = self.eif
        if isinstance(e, A.Cmp):
            lf, rf, op = self.value_fn(e.left, names), self.value_fn(e.right, names), e.op
            if eif:
                def cmp_f(v, a, w):
                    r = compare(op, lf(v, a, w), rf(v, a, w))
                    return False if r is ERR else r
                return cmp_f
            return lambda v, a, w: compare(op, lf(v, a, w), rf(v, a, w))
        if isinstance(e, A.And):
            lf, rf = self.bool_fn(e.left, names), self.bool_fn(e.right, names)

            def and_f(v, a, w):
                x = lf(v, a, w)
                if x is False:
                    return False
                y = rf(v, a, w)
                if y is False:
                    return False
                if x is ERR or y is ERR:
                    return ERR
                return True
            return and_f
        if isinstance(e, A.Or):
            lf, rf = self.bool_fn(e.left, names), self.bool_fn(e.right, names)

            def or_f(v, a, w):
                x = lf(v, a, w)
                if x is True:
                    return True
                y = rf(v, a, w)
                if y is True:
                    return True
                if x is ERR or y is ERR:
                    return ERR
                return False
            return or_f
        if isinstance(e, A.Not):
            f = self.bool_fn(e.expr, names)

            def not_f(v, a, w):
                x = f(v, a, w)
                return ERR if x is ERR else not x
            return not_f
        if isinstance(e, A.Bound):
            if e.var not in names:
                return lambda v, a, w: False
            i = names.index(e.var)
            return lambda v, a, w: v[i] is not None
        f = self.value_fn(e, names)
        if eif:
            def ebv_f(v, a, w):
                r = ebv(f(v, a, w))
                return False if r is ERR else r
            return ebv_f
        return lambda v, a, w: ebv(f(v, a, w))

    def test_fn(self, e: Optional[A.Expr], names: tuple) -> Optional[Callable[[tuple, int, int], bool]]:
        """A filter: ``True`` iff ``e`` evaluates to true (None for the absent filter, i.e. ``true``)."""
        if e is None:
            return None
        f = self.bool_fn(e, names)
        return lambda v, a, w: f(v, a, w) is True

    def duration_bound(self, e: A.Expr) -> Optional[int]:
        """The largest duration (ticks) a row may have and pass ``e``, from top-level conjuncts
        ``getDURATION() < c`` / ``<= c`` (or mirrored); None if there is none (window push-down, docs/semantics/epsparql.md#epsparql-4.3, #epsparql-P7)."""
        best: Optional[int] = None
        stack = [e]
        while stack:
            x = stack.pop()
            if isinstance(x, A.And):
                stack += [x.left, x.right]
                continue
            if not isinstance(x, A.Cmp):
                continue
            op, l, r = x.op, x.left, x.right
            if isinstance(r, A.TimeFn) and isinstance(l, A.Const):
                op = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}.get(op, op)
                l, r = r, l
            if not (isinstance(l, A.TimeFn) and l.name.upper() == "DURATION" and isinstance(r, A.Const)):
                continue
            try:
                c = self.const_value(r)
            except ValueError:
                continue
            if not _num(c):
                continue
            c = Fraction(c)
            if op == "<":
                b = -((-c.numerator) // c.denominator) - 1      # ceil(c) - 1
            elif op == "<=":
                b = c.numerator // c.denominator               # floor(c)
            else:
                continue
            best = b if best is None else min(best, b)
        return best
