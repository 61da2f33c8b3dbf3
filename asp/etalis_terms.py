"""The clingo representation of ETALIS terms, atoms and where-conditions, shared by the two ETALIS oracles
(``asp/etalis.py``: the minimal model, ``asp/etalis_policy.py``: the ETALIS-P step specification).

This is how the *oracle* computes (the engine has its own, independent term handling in
``engine/etalis/evaluate.py``).  Terms (Anicic et al. 2012, "Stream reasoning and complex event processing in
ETALIS", Semantic Web 3(4), section 2; representation documented in ``asp/etalis.lp``):

* integer ``Num`` -> clingo integer; a float -> :class:`~ceplab.semantics.errors.UnsupportedError`;
* ``Sym`` (Prolog atom) -> clingo string (:func:`ceplab.asp.oracle.asp_string`);
* ``Str`` -> ``q("..")``; ``List`` -> ``l(items..)`` (``l`` when empty); a compound ``f(args)`` ->
  ``c("f",args..)``; an arithmetic compound -> clingo integer arithmetic (``+ - * // rem mod ** ^ abs min max``;
  ``//`` truncates toward zero, as in SWI-Prolog and clingo);
* an event atom ``p(args)`` -> ``e("p",args..)``.

Where-conditions are put in negation normal form and expanded into disjunctive normal form (:func:`dnf`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from itertools import product
from typing import Iterable, Sequence

import clingo

from ceplab.asp.oracle import OracleResult, asp_string, asp_unstring
from ceplab.semantics.errors import OracleError, UnsupportedError
from ceplab.semantics.etalis import ast as A
from ceplab.semantics.etalis.streams import StreamEvent

__all__ = ["ClingoVars", "tuple_text", "term", "atom", "dnf", "comment", "decode_term", "decode_atom", "AVERAGE"]

_ARITH_BIN = {"+": "+", "-": "-", "*": "*", "//": "/", "rem": "\\", "**": "**", "^": "**"}
_CMP = {"<": "<", ">": ">", "=<": "<=", "<=": "<=", ">=": ">=", "=:=": "=", "=\\=": "!=", "==": "=",
        "\\==": "!=", "=": "=", "\\=": "!=", "!=": "!="}
_NEG = {"<": ">=", ">=": "<", ">": "<=", "<=": ">", "=": "!=", "!=": "="}


def tuple_text(names: Sequence[str]) -> str:
    """clingo tuple text of ``names`` (already clingo terms): ``()``, ``(X,)``, ``(X,Y)``."""
    if not names:
        return "()"
    if len(names) == 1:
        return f"({names[0]},)"
    return "(" + ",".join(names) + ")"


class ClingoVars:
    """ETALIS variable names -> clingo variable names (``V0, V1, ..`` in order of first use; ``_`` stays
    anonymous).  One instance per rule: calling it with a name (``str``) returns the clingo name (``str``)."""

    def __init__(self) -> None:
        self.m: dict[str, str] = {}

    def __call__(self, name: str) -> str:
        if name == "_":
            return "_"
        return self.m.setdefault(name, f"V{len(self.m)}")


#: clingo's integers are 32-bit: a larger number written into a program wraps around silently.
INT_MIN, INT_MAX = -2**31, 2**31 - 1


def clingo_int(v: int, what: str) -> int:
    """``v`` (an integer the oracle writes into its program: a number, a time stamp, a window length) when clingo
    can carry it.

    Raises:
        UnsupportedError: ``v`` outside clingo's 32-bit integers ``[-2**31, 2**31 - 1]`` (clingo would wrap it
            around and the oracle would answer for another number).
    """
    if not INT_MIN <= v <= INT_MAX:
        raise UnsupportedError(f"oracle: {what} {v} is outside clingo's 32-bit integers [{INT_MIN}, {INT_MAX}]")
    return v


def term(t: A.Term, vs: ClingoVars) -> str:
    """Term ``t`` as clingo text (module docstring); arithmetic is evaluated by clingo.

    Raises:
        UnsupportedError: a float, an integer outside clingo's 32-bit range (:func:`clingo_int`), or arithmetic
            other than integer ``+ - * // rem mod ** ^ abs min max``.
        TypeError: not a term.
    """
    if isinstance(t, A.Var):
        return vs(t.name)
    if isinstance(t, A.Num):
        if isinstance(t.value, Fraction):    # an avg's value (docs/semantics/etalis.md#etalis-4.4)
            n, d = t.value.numerator, t.value.denominator
            return f"r({'(%d)' % n if n < 0 else n},{clingo_int(d, 'the denominator')})"
        if isinstance(t.value, float):
            raise UnsupportedError(f"oracle: float {t.value!r}: the clingo oracle uses integer arithmetic only; "
                                   "scale real-valued data to integers (docs/semantics/etalis.md#etalis-9.1)")
        clingo_int(t.value, "the number")
        return f"({t.value})" if t.value < 0 else str(t.value)
    if isinstance(t, A.Sym):
        return asp_string(t.name)
    if isinstance(t, A.Str):
        return f"q({asp_string(t.value)})"
    if isinstance(t, A.List):
        return "l(" + ",".join(term(i, vs) for i in t.items) + ")" if t.items else "l"
    if isinstance(t, A.Compound):
        if t.is_arithmetic:
            args = [term(a, vs) for a in t.args]
            f = t.functor
            if len(args) == 2 and f in _ARITH_BIN:
                return f"({args[0]}{_ARITH_BIN[f]}{args[1]})"
            if len(args) == 2 and f == "mod":  # sign of the divisor (Prolog mod)
                a, b = args
                return f"((({a}\\{b})+{b})\\{b})"
            if len(args) == 1 and f == "-":
                return f"(-{args[0]})"
            if len(args) == 1 and f == "abs":
                return f"|{args[0]}|"
            if len(args) == 2 and f in ("min", "max"):
                a, b = args
                sign = "-" if f == "min" else "+"
                return f"(({a}+{b}{sign}|{a}-{b}|)/2)"
            raise UnsupportedError(f"oracle: arithmetic {t} is not supported by the clingo oracle (integer + - * "
                                   "// rem mod ** ^ abs min max only; '/' may produce floats)")
        return "c(" + ",".join([asp_string(t.functor)] + [term(a, vs) for a in t.args]) + ")"
    raise TypeError(t)


def atom(name: str, args: Iterable[A.Term], vs: ClingoVars) -> str:
    """The atom ``name(args)`` as clingo text ``e("name",args..)`` (raises as :func:`term`)."""
    return "e(" + ",".join([asp_string(name)] + [term(a, vs) for a in args]) + ")"


#: ``avg`` in clingo (docs/semantics/etalis.md#etalis-4.4): the sum ``AVS`` over the count ``AVC`` of the same items, in
#: lowest terms, as two alternative rule bodies: an integer when ``AVC`` divides ``AVS``, else the term ``r(P,Q)``
#: (``Q > 1``; :func:`decode_term` reads it back as a Fraction).  ``AVG`` is the greatest common divisor.
AVERAGE = ("AVG=#max{{ AVD : AVD=1..AVC, AVS\\AVD=0, AVC\\AVD=0 }}, AVC=AVG, {R}=AVS/AVG",
           "AVG=#max{{ AVD : AVD=1..AVC, AVS\\AVD=0, AVC\\AVD=0 }}, AVC!=AVG, {R}=r(AVS/AVG,AVC/AVG)")

#: A clingo term that is a fraction ``r(P,Q)`` lies between these two (clingo's order: by arity, name, arguments).
_R_LOW, _R_HIGH = "r(#inf,#inf)", "r(#sup,#sup)"


def _side(t: A.Term, vs: ClingoVars) -> tuple[str, str]:
    """``(clingo text, kind)`` of one side of a comparison: ``any`` (a variable: possibly an avg's fraction),
    ``int`` (a number or arithmetic: an integer when defined) or ``other`` (never a number)."""
    kind = ("any" if isinstance(t, A.Var) else
            "int" if isinstance(t, A.Num) or (isinstance(t, A.Compound) and t.is_arithmetic) else "other")
    return term(t, vs), kind


def _order(left: A.Term, op: str, right: A.Term, vs: ClingoVars) -> list[list[str]]:
    """``left op right`` (``op`` in ``< <= > >=``) in a rule base with ``avg``: alternatives of clingo literals that
    compare numbers numerically, an avg's fraction ``r(P,Q)`` included (by cross-multiplication), and put every
    number before every other value (as clingo does for integers); other values compare by clingo's order, as
    without ``avg`` (docs/semantics/etalis.md#etalis-4.4)."""
    (lt, lk), (rt, rk) = _side(left, vs), _side(right, vs)
    fresh = lambda: vs(f"#{len(vs.m)}")                                     # noqa: E731 - names no ETALIS variable has
    def notrat(t: str, k: str) -> list[list[str]]:
        return [[f"{t}<{_R_LOW}"], [f"{t}>{_R_HIGH}"]] if k == "any" else [[]]
    def nonnum(t: str, k: str) -> list[list[str]]:
        return [[f"{t}>{INT_MAX}"] + a for a in notrat(t, k)] if k == "any" else [[]] if k == "other" else []
    alts = [a + b + [f"{lt}{op}{rt}"] for a in notrat(lt, lk) for b in notrat(rt, rk)]  # neither is a fraction
    num_first = op in ("<", "<=")
    for rat, rt_, other, ok_, is_left in ((lt, lk, (rt, rk), num_first, True), (rt, rk, (lt, lk), not num_first, False)):
        if rt_ != "any":
            continue
        n, d = fresh(), fresh()
        bind = f"{rat}=r({n},{d})"
        ot, ok = other
        if ok == "any" and is_left:                                       # both fractions (once)
            n2, d2 = fresh(), fresh()
            alts.append([bind, f"{ot}=r({n2},{d2})", f"{n}*{d2}{op}{n2}*{d}"])
        if ok in ("any", "int"):                                          # a fraction and an integer
            isint = [f"{ot}={ot}+0"] if ok == "any" else []
            cmp = f"{n}{op}{ot}*{d}" if is_left else f"{ot}*{d}{op}{n}"
            alts.append([bind] + isint + [cmp])
        if ok_:                                                            # a fraction and a non-number
            alts.extend([bind] + a for a in nonnum(ot, ok))
    return alts


def dnf(c: A.Cond, vs: ClingoVars, neg: bool = False, fractions: bool = False) -> list[list[str]]:
    """Negation normal form + disjunctive normal form of condition ``c`` (``neg``: of its negation): a list of
    alternatives, each a list of clingo body literals (static atoms are ``sa(e(..))``).  ``fractions``: the rule base
    has ``avg`` aggregates, so a variable may hold a fraction and ``< <= > >=`` compare through :func:`_order`.

    Raises:
        UnsupportedError: as :func:`term`.
        TypeError: not a condition.
    """
    if isinstance(c, A.CNot):
        return dnf(c.cond, vs, not neg, fractions)
    if isinstance(c, (A.CAnd, A.COr)):
        parts = [dnf(i, vs, neg, fractions) for i in c.items]
        if isinstance(c, A.CAnd) != neg:  # conjunction
            return [sum(combo, []) for combo in product(*parts)]
        return [alt for p in parts for alt in p]
    if isinstance(c, A.StaticAtom):
        lit = f"sa({atom(c.name, c.args, vs)})"
        return [[f"not {lit}" if neg else lit]]
    if isinstance(c, A.Is):
        left, op, right = c.var, "=", c.expr
    elif isinstance(c, A.Cmp):
        left, op, right = c.left, _CMP[c.op], c.right
    else:
        raise TypeError(c)
    if neg:
        op = _NEG[op]
    if op == "=" and isinstance(right, A.Var) and not isinstance(left, A.Var):
        left, right = right, left  # clingo assigns the variable on the left
    if fractions and op in ("<", "<=", ">", ">=") and (isinstance(left, A.Var) or isinstance(right, A.Var)):
        return _order(left, op, right, vs)
    return [[f"{term(left, vs)}{op}{term(right, vs)}"]]


def comment(s: str) -> str:
    """``s`` with every character outside printable ASCII replaced by a space (safe in a ``%`` comment)."""
    return "".join(ch if 32 <= ord(ch) < 127 else " " for ch in s)


def decode_term(sym: clingo.Symbol) -> A.Term:
    """Inverse of :func:`term` on ground terms.

    Raises:
        OracleError: ``sym`` is not in the representation (a bug in the encoding).
    """
    t = sym.type
    if t == clingo.SymbolType.Number:
        return A.Num(sym.number)
    if t == clingo.SymbolType.String:
        return A.Sym(asp_unstring(sym.string))
    if t == clingo.SymbolType.Function:
        args = sym.arguments
        if sym.name == "q" and len(args) == 1:
            return A.Str(asp_unstring(args[0].string))
        if sym.name == "l":
            return A.List(tuple(decode_term(a) for a in args))
        if sym.name == "c" and args:
            return A.Compound(asp_unstring(args[0].string), tuple(decode_term(a) for a in args[1:]))
        if sym.name == "r" and len(args) == 2:
            return A.number(Fraction(args[0].number, args[1].number))
    raise OracleError(f"oracle: unexpected term {sym} in the answer set")


def decode_atom(sym: clingo.Symbol) -> A.EventAtom:
    """Inverse of :func:`atom` on a ground ``e("name",args..)`` symbol (raises as :func:`decode_term`)."""
    args = sym.arguments
    return A.EventAtom(asp_unstring(args[0].string), tuple(decode_term(a) for a in args[1:]))


# ------------------------------------------------------------------------------------------------ tie positions
@dataclass(frozen=True)
class TieResult(OracleResult):
    """An :class:`~ceplab.asp.oracle.OracleResult` that also says, for each result ending at a time ``t`` at
    which several stream events end (a tie group), the index (into the stream) of the first event of the group
    whose stream prefix already entails it (docs/semantics/etalis.md#etalis-9.7.3).  Results of other end times
    are not in ``tie_positions``; a result whose prefix answers could not be decided is left out too."""
    tie_positions: dict = field(default_factory=dict)


def tie_groups(events: Sequence[StreamEvent]) -> list[tuple[int, int]]:
    """``(lo, hi)`` index ranges of the maximal runs of at least two consecutive events with the same end."""
    out, lo = [], 0
    for i in range(1, len(events) + 1):
        if i == len(events) or int(events[i].end) != int(events[lo].end):
            if i - lo >= 2:
                out.append((lo, i))
            lo = i
    return out
