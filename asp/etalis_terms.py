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
from itertools import product
from typing import Iterable, Sequence

import clingo

from ceplab.asp.oracle import OracleResult, asp_string, asp_unstring
from ceplab.semantics.errors import OracleError, UnsupportedError
from ceplab.semantics.etalis import ast as A
from ceplab.semantics.etalis.streams import StreamEvent

__all__ = ["ClingoVars", "tuple_text", "term", "atom", "dnf", "comment", "decode_term", "decode_atom"]

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


def dnf(c: A.Cond, vs: ClingoVars, neg: bool = False) -> list[list[str]]:
    """Negation normal form + disjunctive normal form of condition ``c`` (``neg``: of its negation): a list of
    alternatives, each a list of clingo body literals (static atoms are ``sa(e(..))``).

    Raises:
        UnsupportedError: as :func:`term`.
        TypeError: not a condition.
    """
    if isinstance(c, A.CNot):
        return dnf(c.cond, vs, not neg)
    if isinstance(c, (A.CAnd, A.COr)):
        parts = [dnf(i, vs, neg) for i in c.items]
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
