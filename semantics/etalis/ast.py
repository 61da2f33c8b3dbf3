"""Abstract syntax of ETALIS rule bases (docs/semantics/etalis.md#etalis-1 to #etalis-4), in the implementation's ``.event`` syntax.

All nodes are frozen, hashable dataclasses.  Nodes that can be the subject of an error message carry a
``pos`` field ``(line, column)``; it is excluded from equality and hashing, so two programs that differ only
in layout compare equal (``parse(str(p)) == p``).

Terms (docs/semantics/etalis.md#etalis-1.1: variables, constants, function terms ``f(t1..tn)``):
    Var(name)                    ``X``, ``_Y``, ``_`` (anonymous)
    Sym(name)                    symbolic constant (Prolog atom) ``abc``, ``'Hello world'``
    Num(value)                   integer or finite float; also a non-integral ``Fraction``, the exact value of
                                 an ``avg`` aggregate (never written in a program or stream; :func:`number`)
    Str(value)                   double-quoted string ``"text"``
    Compound(functor, args)      ``f(t1,..,tn)``; infix arithmetic ``X + 1`` is ``Compound('+', (X, 1))``,
                                 unary minus on a non-literal is ``Compound('-', (X,))``
    List(items)                  ``[t1,..,tn]`` (implementation convenience)

Conditions (the ``where`` part and static rule bodies; docs/semantics/etalis.md#etalis-1.1 "boolean terms"):
    Cmp(op, left, right)         ``<  >  =<  >=  =:=  =\\=  ==  \\==  =  \\=``; ``X = E`` with X not yet bound
                                 is an assignment (see :mod:`ceplab.semantics.etalis.analysis`)
    Is(var, expr)                ``X is E`` (assignment)
    StaticAtom(name, args)       a static predicate: true iff in the least Herbrand model of the static rules
    CNot(cond)                   ``\\+ C`` (negation as failure; where only)
    CAnd(items) / COr(items)     ``C1, C2`` / ``C1 ; C2`` (or only in where)

Patterns (docs/semantics/etalis.md#etalis-1.4, Figure 2 in 2.5):
    EventAtom(name, args)        ``pr(t1..tn)``
    TimePoint(value)             absolute time point ``q`` (integer ticks)
    Binary(op, left, right)      op in :data:`BINARY_OPS`
    Not(negated, start, end)     ``not(p1).[p2,p3]``; the implementation's ``(p2 seq p3) cnot p1`` is the same node
    Where(pattern, cond)         ``p where t``
    Window(pattern, length)      ``(p).q``
    Aggregate(start, func, arg, item, result, count_window)
                                 ``start seq aggregate(F, item, Result[, N])``: F in ``count``, ``sum(X)``, ``min(X)``,
                                 ``max(X)`` over the ``item`` instances after ``start`` (the last N; paper section 4.4)

Statements: EventRule (optionally labelled, with properties), StaticRule (fact when body is None),
RuleProperty (``event_rule_property(label, name, value).``), Directive (``:- goal.`` and ETALIS configuration
facts such as ``print_trigger(a/1).``, kept verbatim, no semantic effect).  A Program is the tuple of statements
in file order.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Iterator, Optional, Union

#: Binary pattern operators of the paper (docs/semantics/etalis.md#etalis-1.4, with DURING restored by A3).
BINARY_OPS = ("seq", "and", "par", "or", "equals", "meets", "during", "starts", "finishes")
#: Operators whose result interval strictly contains the operand's interval (hull grows strictly):
#: both sides of ``seq``; the *inner* (left) operand of ``during``, ``starts`` and ``finishes``.
PROGRESSING = {"seq": (True, True), "during": (True, False), "starts": (True, False),
               "finishes": (True, False)}
CMP_OPS = ("<", ">", "=<", ">=", "=:=", "=\\=", "==", "\\==", "=", "\\=")
ARITH_OPS = ("+", "-", "*", "/", "//", "mod", "rem", "**", "^")
#: Built-in function symbols (docs/semantics/etalis.md#etalis-1.1: fixed interpretation f*).
BUILTIN_FUNCTIONS = frozenset({"min", "max", "abs", "sqrt", "sin", "cos", "tan", "asin", "acos", "atan",
                               "exp", "log", "floor", "ceiling", "round", "truncate", "sign"})
#: Names that cannot be written bare (they are operators or keywords of the .event syntax).
KEYWORDS = frozenset(BINARY_OPS) | {"cnot", "not", "where", "is", "mod", "rem", "fnot", "within", "check",
                                    "do", "timestamp", "event_multiply", "forall_seq", "ntimes",
                                    "star_times", "iff", "rule"}

_PLAIN = re.compile(r"[a-z][A-Za-z0-9_]*\Z")


def _pos() -> Optional[tuple[int, int]]:
    return field(default=None, compare=False, hash=False, repr=False)


def quote_atom(name: str) -> str:
    """A Prolog atom as written: bare when it is a plain lower-case identifier (not a keyword), else quoted."""
    if _PLAIN.match(name) and name.lower() not in KEYWORDS:
        return name
    return "'" + name.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n") + "'"


# ------------------------------------------------------------------------------------------------ terms
@dataclass(frozen=True)
class Var:
    """A logic variable (capitalised or ``_``-initial).  ``_`` alone is anonymous."""
    name: str
    pos: Optional[tuple[int, int]] = _pos()

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Sym:
    """A symbolic constant (Prolog atom)."""
    name: str

    def __str__(self) -> str:
        return quote_atom(self.name)


@dataclass(frozen=True)
class Num:
    """A number: int or finite float, or a non-integral :class:`~fractions.Fraction` (the exact value of an ``avg``
    aggregate, docs/semantics/etalis.md#etalis-4.4; build it with :func:`number`).  ``Num(1) != Num(1.0)``; a
    fraction prints as ``7/2``.

    Raises:
        TypeError: ``value`` is not an int, float or Fraction.
        ValueError: a float that is not finite, or a Fraction with denominator 1 (that is the int).
    """
    value: Union[int, float, Fraction]

    def __post_init__(self) -> None:
        if isinstance(self.value, bool) or not isinstance(self.value, (int, float, Fraction)):
            raise TypeError("Num value must be int, float or Fraction")
        if isinstance(self.value, float) and not math.isfinite(self.value):
            raise ValueError("Num value must be finite")
        if isinstance(self.value, Fraction) and self.value.denominator == 1:
            raise ValueError("an integral Fraction is an int: use number()")

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Num) and type(self.value) is type(other.value)
                and self.value == other.value)

    def __hash__(self) -> int:
        # equal Nums have equal values; Num(1) and Num(1.0) share a hash but are not equal (no tuple per call)
        return hash(self.value)

    def __str__(self) -> str:
        v = self.value
        return f"{v.numerator}/{v.denominator}" if isinstance(v, Fraction) else repr(v)


def number(value: Union[int, Fraction]) -> Num:
    """The value ``value`` as a :class:`Num`: an int, or a Fraction in lowest terms when it is not integral (the exact
    value of ``avg``, docs/semantics/etalis.md#etalis-4.4)."""
    if isinstance(value, Fraction):
        return Num(value.numerator) if value.denominator == 1 else Num(value)
    return Num(value)


@dataclass(frozen=True)
class Str:
    """A double-quoted string constant."""
    value: str

    def __str__(self) -> str:
        return '"' + self.value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


@dataclass(frozen=True)
class Compound:
    """A function term ``f(t1..tn)``; infix arithmetic uses the operator as functor."""
    functor: str
    args: tuple["Term", ...]
    pos: Optional[tuple[int, int]] = _pos()

    @property
    def is_arithmetic(self) -> bool:
        """True for arithmetic (evaluated) terms: infix operators, unary minus, built-in functions."""
        return (self.functor in ARITH_OPS and len(self.args) in (1, 2)) or self.functor in BUILTIN_FUNCTIONS

    def __str__(self) -> str:
        if self.functor in ARITH_OPS and len(self.args) == 2:
            return f"({self.args[0]} {self.functor} {self.args[1]})"
        if self.functor == "-" and len(self.args) == 1:
            return f"-({self.args[0]})"
        return f"{quote_atom(self.functor)}({','.join(map(str, self.args))})"


@dataclass(frozen=True)
class List:
    """A Prolog list ``[t1,..,tn]`` (no tail).  Atoms and lists print without spaces after commas, the
    canonical ETALIS form of DESIGN.md section 4 (``d(1,abc)``)."""
    items: tuple["Term", ...]

    def __str__(self) -> str:
        return "[" + ",".join(map(str, self.items)) + "]"


Term = Union[Var, Sym, Num, Str, Compound, List]


def term_vars(t: Term) -> Iterator[Var]:
    """Variables of a term, left to right (with repetitions)."""
    if isinstance(t, Var):
        yield t
    elif isinstance(t, Compound):
        for a in t.args:
            yield from term_vars(a)
    elif isinstance(t, List):
        for a in t.items:
            yield from term_vars(a)


def binding_vars(t: Term) -> Iterator[Var]:
    """Variables a match against ``t`` binds: those not inside arithmetic (docs/semantics/etalis.md#etalis-1.2 (ii))."""
    if isinstance(t, Var):
        yield t
    elif isinstance(t, Compound) and not t.is_arithmetic:
        for a in t.args:
            yield from binding_vars(a)
    elif isinstance(t, List):
        for a in t.items:
            yield from binding_vars(a)


def is_ground(t: Term) -> bool:
    return next(term_vars(t), None) is None


# ------------------------------------------------------------------------------------------------ conditions
@dataclass(frozen=True)
class StaticAtom:
    """A static atom ``ps(t1..tn)``; as a condition it is true iff it is in LHM(R_s) (docs/semantics/etalis.md#etalis-2.1)."""
    name: str
    args: tuple[Term, ...] = ()
    pos: Optional[tuple[int, int]] = _pos()

    @property
    def key(self) -> tuple[str, int]:
        return (self.name, len(self.args))

    def __str__(self) -> str:
        if not self.args:
            return quote_atom(self.name)
        return f"{quote_atom(self.name)}({','.join(map(str, self.args))})"


@dataclass(frozen=True)
class Cmp:
    """``left OP right`` with OP in :data:`CMP_OPS` (arithmetic comparison, (non-)unification)."""
    op: str
    left: Term
    right: Term
    pos: Optional[tuple[int, int]] = _pos()

    def __str__(self) -> str:
        return f"{self.left} {self.op} {self.right}"


@dataclass(frozen=True)
class Is:
    """``X is E``: binds X to the value of the arithmetic expression E."""
    var: Var
    expr: Term
    pos: Optional[tuple[int, int]] = _pos()

    def __str__(self) -> str:
        return f"{self.var} is {self.expr}"


@dataclass(frozen=True)
class CNot:
    """``\\+ C``: negation as failure (allowed in ``where`` only; every variable must be bound outside)."""
    cond: "Cond"
    pos: Optional[tuple[int, int]] = _pos()

    def __str__(self) -> str:
        return f"\\+ ({self.cond})"


@dataclass(frozen=True)
class CAnd:
    """``C1, C2, ..`` (at least two items; a parenthesised group is kept as a nested item)."""
    items: tuple["Cond", ...]

    def __str__(self) -> str:
        return ", ".join(_cwrap(c) for c in self.items)


@dataclass(frozen=True)
class COr:
    """``C1 ; C2 ; ..`` (at least two items; where only)."""
    items: tuple["Cond", ...]

    def __str__(self) -> str:
        return " ; ".join(_cwrap(c) for c in self.items)


Cond = Union[Cmp, Is, StaticAtom, CNot, CAnd, COr]


def _cwrap(c: Cond) -> str:
    return f"({c})" if isinstance(c, (CAnd, COr)) else str(c)


def cond_items(c: Cond) -> Iterator[Cond]:
    """Every condition node, pre-order."""
    yield c
    if isinstance(c, (CAnd, COr)):
        for i in c.items:
            yield from cond_items(i)
    elif isinstance(c, CNot):
        yield from cond_items(c.cond)


def conjuncts(c: Cond) -> Iterator[Cond]:
    """The top-level conjuncts of a condition (flattening nested CAnd)."""
    if isinstance(c, CAnd):
        for i in c.items:
            yield from conjuncts(i)
    else:
        yield c


def cond_vars(c: Cond) -> Iterator[Var]:
    for n in cond_items(c):
        if isinstance(n, Cmp):
            yield from term_vars(n.left)
            yield from term_vars(n.right)
        elif isinstance(n, Is):
            yield n.var
            yield from term_vars(n.expr)
        elif isinstance(n, StaticAtom):
            for a in n.args:
                yield from term_vars(a)


# ------------------------------------------------------------------------------------------------ patterns
@dataclass(frozen=True)
class EventAtom:
    """An event atom ``pr(t1..tn)``: in a pattern, a leaf matching atomic or derived instances; as a rule head,
    the derived event; in a stream, a ground atomic event."""
    name: str
    args: tuple[Term, ...] = ()
    pos: Optional[tuple[int, int]] = _pos()

    @property
    def key(self) -> tuple[str, int]:
        """``(name, arity)``: the event predicate."""
        return (self.name, len(self.args))

    def __str__(self) -> str:
        if not self.args:
            return quote_atom(self.name)
        return f"{quote_atom(self.name)}({','.join(map(str, self.args))})"


@dataclass(frozen=True)
class TimePoint:
    """Absolute time point pattern ``q``: the artificial point event ``[q,q]`` (Figure 2)."""
    value: int
    pos: Optional[tuple[int, int]] = _pos()

    def __str__(self) -> str:
        return str(self.value)


@dataclass(frozen=True)
class Binary:
    """``left OP right`` for OP in :data:`BINARY_OPS` (Figure 2; hull/relation table in docs/semantics/etalis.md#etalis-2.6)."""
    op: str
    left: "Pattern"
    right: "Pattern"
    pos: Optional[tuple[int, int]] = _pos()

    def __str__(self) -> str:
        return f"{_pwrap(self.left)} {self.op} {_pwrap(self.right)}"


@dataclass(frozen=True)
class Not:
    """``not(negated).[start, end]``: ``start seq end`` with no ``negated`` strictly inside the gap
    (Figure 2; per-witness reading A7; variables local to ``negated`` are existential inside, A6).
    The implementation's ``(start seq end) cnot negated`` parses to the same node."""
    negated: "Pattern"
    start: "Pattern"
    end: "Pattern"
    pos: Optional[tuple[int, int]] = _pos()

    def __str__(self) -> str:
        return f"not({self.negated}).[{self.start}, {self.end}]"


@dataclass(frozen=True)
class Where:
    """``pattern where cond`` (Figure 2: ``I_mu(p)`` if ``mu*(t) = true``)."""
    pattern: "Pattern"
    cond: Cond
    pos: Optional[tuple[int, int]] = _pos()

    def __str__(self) -> str:
        return f"{_pwrap(self.pattern)} where ({self.cond})"


@dataclass(frozen=True)
class Window:
    """``(pattern).length``: instances of length ``end - start <= length`` (docs/semantics/etalis.md#etalis-A4)."""
    pattern: "Pattern"
    length: int
    pos: Optional[tuple[int, int]] = _pos()

    def __str__(self) -> str:
        return f"({self.pattern}).{self.length}"


#: Aggregate functions of :class:`Aggregate` (the paper's ``count``, ``sum``, ``avg``, ``max``, ``min``; section 4.4).
AGGREGATE_FUNCTIONS = ("count", "sum", "avg", "min", "max")


@dataclass(frozen=True)
class Aggregate:
    """``start seq aggregate(func, item, result)``: the paper's iterative aggregation (Anicic et al. 2012, section
    "Iterative and aggregation patterns", patterns (22) and (24); docs/semantics/etalis.md#etalis-4.4), written
    with the implementation's ``aggregate/3``.

    Every instance of ``start`` on ``<s1,e1>`` starts one aggregation: it holds on ``<s1,e1>`` with ``result``
    = the empty aggregate (0 for ``count`` and ``sum``; ``min``/``max`` of nothing: see ``Options.aggregate_initial``),
    and every instance ``j`` of ``item`` (joined with the start on their shared variables) with ``e1 < s_j`` updates
    it: it holds on ``<s1,e_j>`` with ``result`` = ``func`` over the item instances ``k`` of that start with
    ``e_k < e_j``, and ``j`` itself.  With a count window ``N`` (``aggregate(F, item, R, N)``, the paper's
    length-based sliding window, rule (23)) only the items ``k`` with fewer than ``N - 1`` items of the start ending
    strictly between ``e_k`` and ``e_j`` take part (the last ``N`` items, ``j`` included; items tied at the window's
    far end are all kept).

    Attributes:
        start: the pattern that starts the aggregation (the left operand of ``seq``).
        func: one of :data:`AGGREGATE_FUNCTIONS`.
        arg: the aggregated variable of ``sum``/``avg``/``min``/``max`` (bound by ``item``), None for ``count``.
        item: the event atom whose instances are aggregated; its variables not shared with ``start`` are local.
        result: the new variable that holds the aggregate.
        count_window: ``N >= 1`` for the last ``N`` items only, None for all items since the start.
    """
    start: "Pattern"
    func: str
    arg: Optional[Var]
    item: EventAtom
    result: Var
    count_window: Optional[int] = None
    pos: Optional[tuple[int, int]] = _pos()

    def __str__(self) -> str:
        f = self.func if self.arg is None else f"{self.func}({self.arg})"
        n = "" if self.count_window is None else f",{self.count_window}"
        return f"{_pwrap(self.start)} seq aggregate({f},{self.item},{self.result}{n})"


Pattern = Union[EventAtom, TimePoint, Binary, Not, Where, Window, Aggregate]


def _pwrap(p: Pattern) -> str:
    return f"({p})" if isinstance(p, (Binary, Where, Aggregate)) else str(p)


def pattern_nodes(p: Pattern) -> Iterator[Pattern]:
    """Every pattern node, pre-order."""
    yield p
    if isinstance(p, Binary):
        yield from pattern_nodes(p.left)
        yield from pattern_nodes(p.right)
    elif isinstance(p, Not):
        yield from pattern_nodes(p.negated)
        yield from pattern_nodes(p.start)
        yield from pattern_nodes(p.end)
    elif isinstance(p, (Where, Window)):
        yield from pattern_nodes(p.pattern)
    elif isinstance(p, Aggregate):
        yield from pattern_nodes(p.start)
        yield from pattern_nodes(p.item)


def event_atoms(p: Pattern) -> Iterator[EventAtom]:
    """The event-atom leaves of a pattern, left to right (including those under negation)."""
    for n in pattern_nodes(p):
        if isinstance(n, EventAtom):
            yield n


# ------------------------------------------------------------------------------------------------ statements
@dataclass(frozen=True)
class Property:
    """A rule property ``property(name, value)``, e.g. ``property(event_rule_window, 3)``."""
    name: str
    value: Term

    def __str__(self) -> str:
        return f"property({quote_atom(self.name)}, {self.value})"


@dataclass(frozen=True)
class EventRule:
    """``[label[([props])] 'rule:'] head <- body.``; the head may contain function terms (docs/semantics/etalis.md#etalis-1.4)."""
    head: EventAtom
    body: Pattern
    label: Optional[str] = None
    properties: tuple[Property, ...] = ()
    pos: Optional[tuple[int, int]] = _pos()

    def property(self, name: str) -> Optional[Term]:
        for p in self.properties:
            if p.name == name:
                return p.value
        return None

    def __str__(self) -> str:
        pre = ""
        if self.label is not None:
            props = f"([{', '.join(map(str, self.properties))}])" if self.properties else ""
            pre = f"{quote_atom(self.label)}{props} 'rule:' "
        return f"{pre}{self.head} <- {self.body}."


@dataclass(frozen=True)
class StaticRule:
    """A static Horn clause ``head :- body.`` or a fact ``head.`` (docs/semantics/etalis.md#etalis-1.2)."""
    head: StaticAtom
    body: Optional[Cond] = None
    pos: Optional[tuple[int, int]] = _pos()

    @property
    def is_fact(self) -> bool:
        return self.body is None

    def __str__(self) -> str:
        return f"{self.head}." if self.body is None else f"{self.head} :- {self.body}."


@dataclass(frozen=True)
class RuleProperty:
    """``event_rule_property(label, name, value).``: a property attached to the rule labelled ``label``."""
    label: str
    name: str
    value: Term
    pos: Optional[tuple[int, int]] = _pos()

    def __str__(self) -> str:
        return f"event_rule_property({quote_atom(self.label)}, {quote_atom(self.name)}, {self.value})."


@dataclass(frozen=True)
class Directive:
    """A directive ``:- goal.`` (``is_goal``) or an ETALIS configuration fact such as ``print_trigger(a/1).``.
    Kept verbatim; no effect on the declarative semantics."""
    term: Term
    is_goal: bool = False
    pos: Optional[tuple[int, int]] = _pos()

    def __str__(self) -> str:
        return f":- {self.term}." if self.is_goal else f"{self.term}."


Statement = Union[EventRule, StaticRule, RuleProperty, Directive]


@dataclass(frozen=True)
class Program:
    """An ETALIS rule base ``R = R_s ∪ R_e`` (docs/semantics/etalis.md#etalis-1.2): statements in file order."""
    statements: tuple[Statement, ...] = ()

    @property
    def event_rules(self) -> tuple[EventRule, ...]:
        return tuple(s for s in self.statements if isinstance(s, EventRule))

    @property
    def static_rules(self) -> tuple[StaticRule, ...]:
        """Static rules and facts (R_s)."""
        return tuple(s for s in self.statements if isinstance(s, StaticRule))

    @property
    def directives(self) -> tuple[Directive, ...]:
        return tuple(s for s in self.statements if isinstance(s, Directive))

    def rule_properties(self, rule: EventRule) -> tuple[Property, ...]:
        """The rule's own properties followed by those given by ``event_rule_property/3`` for its label."""
        extra = tuple(Property(s.name, s.value) for s in self.statements
                      if isinstance(s, RuleProperty) and rule.label is not None and s.label == rule.label)
        return rule.properties + extra

    def window(self, rule: EventRule) -> Optional[int]:
        """The rule's ``event_rule_window`` (the smallest when given several times), or None.
        Semantically ``head <- body`` with window w is ``head <- (body).w``."""
        ws = [p.value.value for p in self.rule_properties(rule)
              if p.name == "event_rule_window" and isinstance(p.value, Num)]
        return min(ws) if ws else None

    def effective_body(self, rule: EventRule) -> Pattern:
        """The body with the rule-property window folded in as ``(body).w``."""
        w = self.window(rule)
        return rule.body if w is None else Window(rule.body, int(w))

    @property
    def has_average(self) -> bool:
        """Whether an event rule has an ``avg`` aggregate, so that a value may be a fraction
        (docs/semantics/etalis.md#etalis-4.4)."""
        return any(isinstance(n, Aggregate) and n.func == "avg"
                   for r in self.event_rules for n in pattern_nodes(r.body))

    def event_predicates(self) -> set[tuple[str, int]]:
        """Every event predicate ``(name, arity)`` used in a head or a pattern."""
        out: set[tuple[str, int]] = set()
        for r in self.event_rules:
            out.add(r.head.key)
            out.update(a.key for a in event_atoms(r.body))
        return out

    def derived_predicates(self) -> set[tuple[str, int]]:
        return {r.head.key for r in self.event_rules}

    def __str__(self) -> str:
        return "".join(f"{s}\n" for s in self.statements)
