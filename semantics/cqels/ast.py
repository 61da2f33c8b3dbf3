"""CQELS-CEP abstract syntax (Dao-Tran and Le-Phuoc, "Towards Enriching CQELS with Complex Event Processing and
Path Navigation", 2015, section 3.2; docs/semantics/cqels.md#cqels-2.5).

This module is the contract between the parser (``semantics/cqels/parser.py``), the clingo oracle
(``asp/cqels.py``) and the incremental engine (``engine/cqels``).  Terms are rdflib terms (``URIRef``, ``Literal``)
and rdflib ``Variable`` (name without ``?``); blank nodes never occur in a query (docs/semantics/cqels.md#cqels-G17).
Every node is a frozen, hashable dataclass; positions ``pos`` are ``(line, column)`` in the query file (1-based),
for error messages, and take no part in equality or hashing.  Constructors check the invariants documented on each
class and raise ``ValueError`` when one is broken (the parser never builds such a node: it raises a located
``ParseError`` first).

A query ``Q = (V, P, D, EC)`` (paper section 3.2) is a :class:`Query`:

* ``select``: ``V``, the projection variables (``None`` for ``SELECT *``: every in-scope variable, sorted by name);
* ``graphs``: the ``FROM <iri>`` names of ``D`` (informative: the static data is given to the evaluators
  directly, docs/semantics/cqels.md#cqels-1.3);
* ``windows``: the ``FROM NAMED WINDOW :W ON <stream> [spec]`` declarations, each with the triple sequence
  pattern of its ``WINDOW :W { TSP }`` block: a :class:`Window` is the paper's window specification
  ``W = (s, omega, TSP)`` plus its name;
* ``events``: ``EC``, the set of event clauses, in source order: :class:`WinRef` (a window block not used in an
  event-clause ``SEQ``) or :class:`SeqEC` (``SEQ(:W1, !:W2, ...)`` in ``WHERE``, docs/semantics/cqels.md#cqels-G22);
* ``static``: ``P``, the extended graph pattern over the static data: :class:`TriplePattern` and
  :class:`PathPattern` in source order;
* ``filters``: the ``FILTER`` expressions written directly in ``WHERE`` (conjoined; applied to the joined mapping
  before projection, docs/semantics/cqels.md#cqels-3.6).

Triple sequence patterns (docs/semantics/cqels.md#cqels-2.3): :class:`BGP` (with the FILTERs written inside its
braces) or :class:`SeqTSP` ``SEQ(P1, ..., !Pi, ..., Pl)``; a negated element is :class:`Neg`.  ``SEQ(X)`` with one
element is ``X`` itself (docs/semantics/cqels.md#cqels-G8): a SeqTSP or SeqEC always has at least two elements.

Windows (docs/semantics/cqels.md#cqels-1.5, #cqels-3.1): :class:`RangeWindow` (``RANGE T [SLIDE d]``),
:class:`NowWindow`, :class:`AllWindow`, :class:`TriplesWindow` (``TRIPLES n``).  Every duration is an integer
number of ticks (the parser converts ``10m`` with ``Options.tick``, docs/semantics/cqels.md#cqels-G13).

Nested regular expressions (nSPARQL, docs/semantics/cqels.md#cqels-2.4, #cqels-3.4): :class:`Axis`
(``self``, ``next``, ``edge``, ``node`` and the inverses of the last three), :class:`AxisConst` (``axis::a``),
:class:`AxisNest` (``axis::[e]``), :class:`PathSeq` (``e1/e2``), :class:`PathAlt` (``e1|e2``), :class:`PathStar`
(``e*``), :class:`PathPlus` (``e+``), :class:`PathOpt` (``e?``).  The SPARQL 1.1 surface forms are desugared by the
parser: ``:p`` is ``next::p``, ``^e`` is pushed down to the axes (:func:`inverse`), ``elt[e]`` is
``elt/self::[e]``, ``[e]`` is ``self::[e]``, ``[e o]`` is ``self::[e/self::o]``.  A static triple whose predicate
is a plain IRI or variable is a :class:`TriplePattern`, never a PathPattern.

Expressions (FILTER, docs/semantics/cqels.md#cqels-3.6): value expressions :class:`Var`, :class:`Const`,
:class:`UMinus`, :class:`Arith` (``+ -``); boolean expressions :class:`Cmp` (``= != < <= > >=``), :class:`And`,
:class:`Or`, :class:`Not`, and :class:`Const` of ``true``/``false``.  The parser only builds well-typed trees
(a FILTER is boolean, ``&& || !`` take booleans, ``Cmp`` and ``Arith`` take values).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Optional, Union

from rdflib import XSD
from rdflib.term import Literal, URIRef, Variable

Pos = Optional[tuple[int, int]]


def _pos() -> Pos:
    return field(default=None, compare=False, hash=False, repr=False)


# ------------------------------------------------------------------------------------------------ terms and values
#: Datatypes whose literals are numbers for FILTER (docs/semantics/cqels.md#cqels-3.6): xsd:decimal, xsd:integer and
#: the integer types derived from it.  Other literals (xsd:double included) are compared as terms only.
INTEGER_TYPES = frozenset({XSD.integer, XSD.int, XSD.long, XSD.short, XSD.byte, XSD.nonNegativeInteger,
                           XSD.positiveInteger, XSD.nonPositiveInteger, XSD.negativeInteger, XSD.unsignedInt,
                           XSD.unsignedLong, XSD.unsignedShort, XSD.unsignedByte})
NUMERIC_TYPES = INTEGER_TYPES | {XSD.decimal}


def numeric_value(term: object) -> Optional[Fraction]:
    """The exact value of a numeric literal (docs/semantics/cqels.md#cqels-3.6), else None.

    Args:
        term: any rdflib term.

    Returns:
        a ``Fraction`` for a literal of a type in :data:`NUMERIC_TYPES` whose lexical form is an integer
        (``[+-]?[0-9]+``) or, for ``xsd:decimal``, a decimal (``[+-]?([0-9]+(.[0-9]*)?|.[0-9]+)``); None for every
        other term, including ill-typed numeric literals (the stream and static readers reject those,
        :mod:`ceplab.semantics.cqels.streams`).
    """
    if not isinstance(term, Literal) or term.datatype not in NUMERIC_TYPES:
        return None
    lex = str(term)
    if term.datatype in INTEGER_TYPES:
        if not re.fullmatch(r"[+-]?[0-9]+", lex):
            return None
        return Fraction(int(lex))
    if not re.fullmatch(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)", lex):
        return None
    try:
        return Fraction(Decimal(lex))
    except (InvalidOperation, ValueError):  # pragma: no cover - the regex admits only valid decimals
        return None


# ------------------------------------------------------------------------------------------------ expressions
@dataclass(frozen=True)
class Var:
    """A variable in an expression (``?x``); always bound where it is evaluated (the parser checks scope)."""
    var: Variable
    pos: Pos = _pos()


@dataclass(frozen=True)
class Const:
    """A constant: an IRI or a literal (``true``/``false`` are ``xsd:boolean`` literals and are also boolean
    expressions)."""
    term: Union[URIRef, Literal]
    pos: Pos = _pos()


@dataclass(frozen=True)
class UMinus:
    """Unary minus of a value expression (numbers only; anything else is an error value)."""
    expr: "Expr"
    pos: Pos = _pos()


@dataclass(frozen=True)
class Arith:
    """``left op right`` with ``op`` in ``+ -``: exact rational arithmetic on numbers (error otherwise)."""
    op: str
    left: "Expr"
    right: "Expr"
    pos: Pos = _pos()

    def __post_init__(self) -> None:
        if self.op not in ("+", "-"):
            raise ValueError(f"Arith.op must be '+' or '-', got {self.op!r}")


@dataclass(frozen=True)
class Cmp:
    """``left op right`` with ``op`` in ``= != < <= > >=`` (docs/semantics/cqels.md#cqels-3.6)."""
    op: str
    left: "Expr"
    right: "Expr"
    pos: Pos = _pos()

    def __post_init__(self) -> None:
        if self.op not in ("=", "!=", "<", "<=", ">", ">="):
            raise ValueError(f"Cmp.op must be one of = != < <= > >=, got {self.op!r}")


@dataclass(frozen=True)
class And:
    """``left && right`` (SPARQL three-valued logic)."""
    left: "Expr"
    right: "Expr"
    pos: Pos = _pos()


@dataclass(frozen=True)
class Or:
    """``left || right`` (SPARQL three-valued logic)."""
    left: "Expr"
    right: "Expr"
    pos: Pos = _pos()


@dataclass(frozen=True)
class Not:
    """``! expr`` (an error stays an error)."""
    expr: "Expr"
    pos: Pos = _pos()


Expr = Union[Var, Const, UMinus, Arith, Cmp, And, Or, Not]


def is_boolean(e: Expr) -> bool:
    """True for a boolean expression: Cmp, And, Or, Not, or a Const of an ``xsd:boolean`` literal."""
    if isinstance(e, (Cmp, And, Or, Not)):
        return True
    return isinstance(e, Const) and isinstance(e.term, Literal) and e.term.datatype == XSD.boolean


# ------------------------------------------------------------------------------------------------ nSPARQL paths
AXES = ("self", "next", "edge", "node")


def _check_axis(kind: str, inverse: bool) -> None:
    if kind not in AXES:
        raise ValueError(f"axis must be one of {AXES}, got {kind!r}")
    if kind == "self" and inverse:
        raise ValueError("self has no inverse (self^-1 = self): build it with inverse=False")


@dataclass(frozen=True)
class Axis:
    """A bare axis: ``self``, ``next``, ``edge``, ``node``, or ``next^-1``, ``edge^-1``, ``node^-1``
    (``inverse=True``; never for ``self``)."""
    kind: str
    inverse: bool = False
    pos: Pos = _pos()

    def __post_init__(self) -> None:
        _check_axis(self.kind, self.inverse)


@dataclass(frozen=True)
class AxisConst:
    """``axis::a`` with ``a`` an IRI or a literal (``self::a`` is ``{(a, a)}``, docs/semantics/cqels.md#cqels-3.4)."""
    kind: str
    inverse: bool
    const: Union[URIRef, Literal]
    pos: Pos = _pos()

    def __post_init__(self) -> None:
        _check_axis(self.kind, self.inverse)
        if not isinstance(self.const, (URIRef, Literal)):
            raise ValueError(f"axis::a needs an IRI or a literal, got {self.const!r}")


@dataclass(frozen=True)
class AxisNest:
    """``axis::[e]``: the axis step whose label (``next``: predicate, ``edge``: object, ``node``: subject; ``self``:
    the node itself) starts a path of ``e`` (docs/semantics/cqels.md#cqels-3.4)."""
    kind: str
    inverse: bool
    test: "Path"
    pos: Pos = _pos()

    def __post_init__(self) -> None:
        _check_axis(self.kind, self.inverse)


@dataclass(frozen=True)
class PathSeq:
    """``left/right`` (the parser folds ``a/b/c`` left)."""
    left: "Path"
    right: "Path"
    pos: Pos = _pos()


@dataclass(frozen=True)
class PathAlt:
    """``left|right`` (the parser folds ``a|b|c`` left)."""
    left: "Path"
    right: "Path"
    pos: Pos = _pos()


@dataclass(frozen=True)
class PathStar:
    """``e*``: zero-length pairs (``Options.zero_length``) plus ``e+``."""
    expr: "Path"
    pos: Pos = _pos()


@dataclass(frozen=True)
class PathPlus:
    """``e+``: one or more ``e`` steps."""
    expr: "Path"
    pos: Pos = _pos()


@dataclass(frozen=True)
class PathOpt:
    """``e?``: zero-length pairs (``Options.zero_length``) plus ``e``; under the default nSPARQL reading this is
    ``self | e`` (docs/semantics/cqels.md#cqels-2.4)."""
    expr: "Path"
    pos: Pos = _pos()


Path = Union[Axis, AxisConst, AxisNest, PathSeq, PathAlt, PathStar, PathPlus, PathOpt]


def inverse(e: Path) -> Path:
    """The path whose relation is the converse of ``e``'s (SPARQL's ``^e``), pushed down to the axes:
    ``inverse(a/b) = inverse(b)/inverse(a)``, ``inverse(a|b) = inverse(a)|inverse(b)``, ``inverse(e*) =
    inverse(e)*`` (likewise ``+ ?``), ``axis -> axis^-1`` and back, ``self``, ``self::a`` and ``self::[e]`` unchanged,
    and ``axis::[e] -> axis^-1::[e]`` (the nested test ``e`` is not inverted).  Positions are kept."""
    if isinstance(e, Axis):
        return e if e.kind == "self" else Axis(e.kind, not e.inverse, pos=e.pos)
    if isinstance(e, AxisConst):
        return e if e.kind == "self" else AxisConst(e.kind, not e.inverse, e.const, pos=e.pos)
    if isinstance(e, AxisNest):
        return e if e.kind == "self" else AxisNest(e.kind, not e.inverse, e.test, pos=e.pos)
    if isinstance(e, PathSeq):
        return PathSeq(inverse(e.right), inverse(e.left), pos=e.pos)
    if isinstance(e, PathAlt):
        return PathAlt(inverse(e.left), inverse(e.right), pos=e.pos)
    if isinstance(e, PathStar):
        return PathStar(inverse(e.expr), pos=e.pos)
    if isinstance(e, PathPlus):
        return PathPlus(inverse(e.expr), pos=e.pos)
    if isinstance(e, PathOpt):
        return PathOpt(inverse(e.expr), pos=e.pos)
    raise TypeError(f"not a path: {e!r}")


def path_nodes(e: Path) -> list[Path]:
    """Every sub-expression of ``e`` (``e`` included), children before parents (the order in which a bottom-up
    evaluator or an ASP compiler needs them); nested tests included."""
    out: list[Path] = []

    def walk(x: Path) -> None:
        if isinstance(x, AxisNest):
            walk(x.test)
        elif isinstance(x, (PathSeq, PathAlt)):
            walk(x.left)
            walk(x.right)
        elif isinstance(x, (PathStar, PathPlus, PathOpt)):
            walk(x.expr)
        elif not isinstance(x, (Axis, AxisConst)):
            raise TypeError(f"not a path: {x!r}")
        out.append(x)

    walk(e)
    return out


def sparql_expressible(e: Path) -> bool:
    """True when ``e`` is a SPARQL 1.1 property path without negated property sets: every axis step is
    ``next::iri`` or ``next^-1::iri`` (``:p``, ``^:p``) and the rest is ``/ | * + ?``.  No nested test, no bare
    axis, no ``self``/``edge``/``node``.  The downward-compatibility comparison with rdflib applies to these
    paths (docs/semantics/cqels.md#cqels-P9)."""
    for x in path_nodes(e):
        if isinstance(x, (Axis, AxisNest)):
            return False
        if isinstance(x, AxisConst) and (x.kind != "next" or not isinstance(x.const, URIRef)):
            return False
    return True


# ------------------------------------------------------------------------------------------------ patterns
PatternTerm = Union[URIRef, Literal, Variable]


@dataclass(frozen=True)
class TriplePattern:
    """``s p o``: subject an IRI or a variable, predicate an IRI or a variable, object an IRI, a literal or a
    variable (paper section 2.1; no blank nodes, docs/semantics/cqels.md#cqels-G17)."""
    s: Union[URIRef, Variable]
    p: Union[URIRef, Variable]
    o: PatternTerm
    pos: Pos = _pos()

    def __post_init__(self) -> None:
        if not isinstance(self.s, (URIRef, Variable)):
            raise ValueError(f"a triple pattern's subject is an IRI or a variable, got {self.s!r}")
        if not isinstance(self.p, (URIRef, Variable)):
            raise ValueError(f"a triple pattern's predicate is an IRI or a variable, got {self.p!r}")
        if not isinstance(self.o, (URIRef, Literal, Variable)):
            raise ValueError(f"a triple pattern's object is an IRI, a literal or a variable, got {self.o!r}")


@dataclass(frozen=True)
class PathPattern:
    """``s exp o``: an extended triple pattern (paper section 2.3) over the static data; ``s`` and ``o`` are IRIs,
    literals or variables (``sp, op in I u L u V``).  ``(s, o)`` must be in the path's relation
    (docs/semantics/cqels.md#cqels-3.4)."""
    s: PatternTerm
    path: Path
    o: PatternTerm
    pos: Pos = _pos()

    def __post_init__(self) -> None:
        for t in (self.s, self.o):
            if not isinstance(t, (URIRef, Literal, Variable)):
                raise ValueError(f"a path pattern's ends are IRIs, literals or variables, got {t!r}")


StaticPattern = Union[TriplePattern, PathPattern]


@dataclass(frozen=True)
class BGP:
    """A basic graph pattern (a non-empty set of triple patterns, kept in source order) with the FILTERs written
    inside its braces (conjoined; each mentions only variables of ``triples``).  Under ``Options.bgp_scope =
    "element"`` all triples are matched in the graph of one stream element (paper (16),
    docs/semantics/cqels.md#cqels-G9)."""
    triples: tuple[TriplePattern, ...]
    filters: tuple[Expr, ...] = ()
    pos: Pos = _pos()

    def __post_init__(self) -> None:
        if not self.triples:
            raise ValueError("a BGP has at least one triple pattern")
        missing = frozenset().union(*(expr_vars(f) for f in self.filters)) - bgp_vars(self) if self.filters \
            else frozenset()
        if missing:
            raise ValueError(f"a BGP's FILTER mentions variables the BGP does not bind: "
                             f"{', '.join('?' + str(v) for v in sorted(missing))}")


@dataclass(frozen=True)
class WinRef:
    """A declared window, by name, as an event clause or an element of an event-clause ``SEQ``."""
    name: URIRef
    pos: Pos = _pos()


@dataclass(frozen=True)
class Neg:
    """A negated element ``!X`` of a ``SEQ``: ``X`` is a :class:`BGP` (in a TSP) or a :class:`WinRef` (in an event
    clause)."""
    item: Union[BGP, WinRef]
    pos: Pos = _pos()


def _check_seq(items: tuple, positive: type, what: str) -> None:
    if len(items) < 2:
        raise ValueError(f"{what} has at least two elements (SEQ(X) is X, docs/semantics/cqels.md#cqels-G8)")
    negs = 0
    for it in items:
        if isinstance(it, Neg):
            negs += 1
            if not isinstance(it.item, positive):
                raise ValueError(f"{what}: a negated element wraps a {positive.__name__}, got {it.item!r}")
        elif not isinstance(it, positive):
            raise ValueError(f"{what}: elements are {positive.__name__} or Neg, got {it!r}")
    if negs > 1:
        raise ValueError(f"{what} has at most one negated element (paper section 3.2)")


@dataclass(frozen=True)
class SeqTSP:
    """``SEQ(P1, ..., Pl)`` inside a window block: ``l >= 2`` elements, each a :class:`BGP` or ``Neg(BGP)``, at most
    one negated (paper section 3.2; evaluated by (10)-(15), docs/semantics/cqels.md#cqels-3.3)."""
    items: tuple[Union[BGP, Neg], ...]
    pos: Pos = _pos()

    def __post_init__(self) -> None:
        _check_seq(self.items, BGP, "SEQ of graph patterns")


TSP = Union[BGP, SeqTSP]


@dataclass(frozen=True)
class SeqEC:
    """``SEQ(:W1, ..., :Wn)`` over declared windows in ``WHERE``: ``n >= 2`` elements, each a :class:`WinRef` or
    ``Neg(WinRef)``, at most one negated (paper section 3.2; evaluated by (3)-(8), docs/semantics/cqels.md#cqels-3.3;
    the concrete syntax is docs/semantics/cqels.md#cqels-G22)."""
    items: tuple[Union[WinRef, Neg], ...]
    pos: Pos = _pos()

    def __post_init__(self) -> None:
        _check_seq(self.items, WinRef, "SEQ of windows")


EC = Union[WinRef, SeqEC]


# ------------------------------------------------------------------------------------------------ windows
@dataclass(frozen=True)
class RangeWindow:
    """``RANGE T [SLIDE d]``: the closed time range ``[u - T, u]`` with ``u = d * floor(t / d)`` (``d = 1``: ``u =
    t``), elements clipped to it (paper section 4.1 for ``d = 1``; docs/semantics/cqels.md#cqels-3.1).  ``T >= 0``
    and ``d >= 1`` ticks."""
    range: int
    slide: int = 1
    pos: Pos = _pos()

    def __post_init__(self) -> None:
        if isinstance(self.range, bool) or not isinstance(self.range, int) or self.range < 0:
            raise ValueError(f"RANGE needs an integer >= 0 ticks, got {self.range!r}")
        if isinstance(self.slide, bool) or not isinstance(self.slide, int) or self.slide < 1:
            raise ValueError(f"SLIDE needs an integer >= 1 ticks, got {self.slide!r}")


@dataclass(frozen=True)
class NowWindow:
    """``NOW``: the elements valid at ``t``, clipped to ``[t, t]`` (``Options.now``; docs/semantics/cqels.md#cqels-3.1)."""
    pos: Pos = _pos()


@dataclass(frozen=True)
class AllWindow:
    """``ALL``: every element that has arrived by ``t``, its end clipped to ``t`` (docs/semantics/cqels.md#cqels-3.1)."""
    pos: Pos = _pos()


@dataclass(frozen=True)
class TriplesWindow:
    """``TRIPLES n``: the last ``n`` elements (or triples, ``Options.triples_unit``) that have arrived by ``t``, in
    arrival order (docs/semantics/cqels.md#cqels-3.1).  ``n >= 1``."""
    count: int
    pos: Pos = _pos()

    def __post_init__(self) -> None:
        if isinstance(self.count, bool) or not isinstance(self.count, int) or self.count < 1:
            raise ValueError(f"TRIPLES needs an integer >= 1, got {self.count!r}")


WindowSpec = Union[RangeWindow, NowWindow, AllWindow, TriplesWindow]


@dataclass(frozen=True)
class Window:
    """A named window specification ``W = (s, omega, TSP)`` (paper section 3.2): declared by ``FROM NAMED WINDOW
    name ON stream [spec]``, its pattern given by the ``WINDOW name { pattern }`` block.

    Attributes:
        name: the window's IRI (``:W``).
        stream: the IRI ``s`` of the stream it reads (matched against ``ceplab:stream`` of the input elements).
        spec: the window expression ``omega``.
        pattern: the triple sequence pattern ``TSP``.
    """
    name: URIRef
    stream: URIRef
    spec: WindowSpec
    pattern: TSP
    pos: Pos = _pos()


# ------------------------------------------------------------------------------------------------ query
@dataclass(frozen=True)
class Query:
    """A CQELS-CEP SELECT query ``Q = (V, P, D, EC)`` (module docstring; docs/semantics/cqels.md#cqels-2.5).

    Attributes:
        select: projection variables in SELECT order, or ``None`` for ``SELECT *``.
        graphs: ``FROM <iri>`` names, in order (informative).
        windows: the declared windows, in declaration order; names are unique.
        events: the event clauses, in source order; every WinRef names a window of ``windows``; every window is
            used by at least one event clause.
        static: the static extended graph pattern ``P`` (may be empty: then ``[[P, t]]_D`` is the JOIN identity,
            docs/semantics/cqels.md#cqels-G12).
        filters: top-level FILTERs (may be empty).
        prefixes: ``((prefix, namespace), ...)`` as declared; used only by the printer (not part of equality).
    """
    select: Optional[tuple[Variable, ...]]
    graphs: tuple[URIRef, ...]
    windows: tuple[Window, ...]
    events: tuple[EC, ...]
    static: tuple[StaticPattern, ...]
    filters: tuple[Expr, ...] = ()
    prefixes: tuple[tuple[str, str], ...] = field(default=(), compare=False, hash=False)
    pos: Pos = _pos()

    def __post_init__(self) -> None:
        names = [w.name for w in self.windows]
        if len(set(names)) != len(names):
            raise ValueError("window names must be unique")
        used = {r.name for ec in self.events for r in ec_windows(ec)}
        if used - set(names):
            raise ValueError(f"event clauses name undeclared windows: {sorted(map(str, used - set(names)))}")
        if set(names) - used:
            raise ValueError(f"windows not used by any event clause: {sorted(map(str, set(names) - used))}")
        if not self.events and not self.static:
            raise ValueError("a query needs at least one event clause or one static pattern")

    def window(self, name: URIRef) -> Window:
        """The window called ``name`` (KeyError if there is none)."""
        for w in self.windows:
            if w.name == name:
                return w
        raise KeyError(name)


# ------------------------------------------------------------------------------------------------ helpers
def _term_vars(*ts: object) -> frozenset[Variable]:
    return frozenset(t for t in ts if isinstance(t, Variable))


def expr_vars(e: Expr) -> frozenset[Variable]:
    """Every variable an expression mentions."""
    if isinstance(e, Var):
        return frozenset({e.var})
    if isinstance(e, Const):
        return frozenset()
    if isinstance(e, (UMinus, Not)):
        return expr_vars(e.expr)
    if isinstance(e, (Arith, Cmp, And, Or)):
        return expr_vars(e.left) | expr_vars(e.right)
    raise TypeError(f"not an expression: {e!r}")


def bgp_vars(p: BGP) -> frozenset[Variable]:
    """``var(P)`` of a BGP: the variables of its triple patterns."""
    return frozenset().union(*(_term_vars(tp.s, tp.p, tp.o) for tp in p.triples))


def tsp_vars(p: Union[TSP, Neg]) -> frozenset[Variable]:
    """The schema of a TSP's result (docs/semantics/cqels.md#cqels-3.3): the variables of its positive elements
    (variables that occur only in the negated element are local to it, docs/semantics/cqels.md#cqels-G5); for a
    ``Neg`` the variables of the negated BGP itself."""
    if isinstance(p, BGP):
        return bgp_vars(p)
    if isinstance(p, Neg):
        return bgp_vars(p.item)
    if isinstance(p, SeqTSP):
        return frozenset().union(*(bgp_vars(it) for it in p.items if isinstance(it, BGP)))
    raise TypeError(f"not a triple sequence pattern: {p!r}")


def ec_windows(ec: EC) -> tuple[WinRef, ...]:
    """The window references of an event clause, in order (negated ones included)."""
    if isinstance(ec, WinRef):
        return (ec,)
    return tuple(it.item if isinstance(it, Neg) else it for it in ec.items)


def ec_vars(q: Query, ec: EC) -> frozenset[Variable]:
    """The schema of an event clause's result: the schema of its window's TSP, or the union over the positive
    elements of a SeqEC."""
    if isinstance(ec, WinRef):
        return tsp_vars(q.window(ec.name).pattern)
    return frozenset().union(*(tsp_vars(q.window(it.name).pattern) for it in ec.items if isinstance(it, WinRef)))


def static_vars(q: Query) -> frozenset[Variable]:
    """``var(P)`` of the static part."""
    return frozenset().union(*(_term_vars(sp.s, sp.o) | (_term_vars(sp.p) if isinstance(sp, TriplePattern)
                                                         else frozenset()) for sp in q.static))


def scope_vars(q: Query) -> frozenset[Variable]:
    """The in-scope variables of the query (the schema of ``JOIN([[EC, t]], [[P, t]]_D)``): event clause schemas
    and static variables.  SELECT and top-level FILTER variables are among them."""
    out = static_vars(q)
    for ec in q.events:
        out |= ec_vars(q, ec)
    return out


def projection(q: Query) -> tuple[Variable, ...]:
    """The projected variables: ``select``, or every in-scope variable sorted by name for ``SELECT *``."""
    return q.select if q.select is not None else tuple(sorted(scope_vars(q), key=str))


def window_reach(q: Query) -> int:
    """How many ticks after the last input time an answer can still change because of a window
    (docs/semantics/cqels.md#cqels-3.8): the maximum over the query's windows of ``T + d - 1`` for ``RANGE T SLIDE
    d`` and 0 for ``NOW``, ``ALL``, ``TRIPLES``; 0 without windows."""
    out = 0
    for w in q.windows:
        if isinstance(w.spec, RangeWindow):
            out = max(out, w.spec.range + w.spec.slide - 1)
    return out


def query_paths(q: Query) -> tuple[Path, ...]:
    """The paths of the static part's path patterns, in order."""
    return tuple(sp.path for sp in q.static if isinstance(sp, PathPattern))


def query_streams(q: Query) -> frozenset[URIRef]:
    """The IRIs of the streams the query's windows read."""
    return frozenset(w.stream for w in q.windows)
