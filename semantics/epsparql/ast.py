"""EP-SPARQL abstract syntax: the algebra of the paper's section 4.2 (Anicic, Fodor, Rudolph, Stojanovic,
"EP-SPARQL: a unified language for event processing and stream reasoning", WWW 2011; docs/semantics/epsparql.md#epsparql-2.3, #epsparql-3).

This module is the contract between the parser (``semantics/epsparql/parser.py``), the clingo oracle
(``asp/epsparql.py``) and the incremental engine (``engine/epsparql``).  Terms are rdflib terms
(``URIRef``, ``Literal``, ``BNode``) and rdflib ``Variable``; every node is a frozen, hashable dataclass.

Graph patterns evaluate to sets of solutions ``(mu, t_alpha, t_omega)`` (docs/semantics/epsparql.md#epsparql-3.1 to #epsparql-3.3):

==================  =========================================  ===============================================
node                syntax                                     algebra (paper section 4.2)
==================  =========================================  ===============================================
``BGP``             a triples block                            ``BGP(P)``: occurrences anywhere in the
                                                               history, interval = their hull
``Join``            juxtaposition of groups                    ``Join``: compatible rows, hull
``Union``           ``{A} UNION {B}``                          ``Union``: set union
``LeftJoin``        ``{A} OPTIONAL {B}``                       ``LeftJoin(A, B, F)`` (optional ends by A's end)
``SeqJoin``         ``{A} SEQ {B}``                            ``SeqJoin``: ``A.t_omega < B.t_alpha``
``EqJoin``          ``{A} EQUALS {B}``                         ``EqJoin``: identical intervals
``SeqRightJoin``    ``{A} OPTIONALSEQ {B}``                    ``SeqRightJoin(A, B, F)``: A optional and
                                                               earlier, B mandatory
``EqLeftJoin``      ``{A} EQUALSOPTIONAL {B}``                 ``EqLeftJoin(A, B, F)``: A mandatory, B
                                                               optional with the same interval
``Filter``          ``FILTER (e)`` at group level               ``Filter(e, P)``
``Extend``          ``(e AS ?v)`` in a sub-select projection   SPARQL 1.1 ``Extend`` (queries (5)/(6))
``Project``         a sub-select's projection                  SPARQL ``Project``
==================  =========================================  ===============================================

The optional operators carry the filter ``F`` of their optional operand's group (docs/semantics/epsparql.md#epsparql-A8: a FILTER written
inside the optional group becomes ``F``; all other FILTERs of a group apply to the whole group); ``None``
means ``true``.

Expressions (filters, projections) are SPARQL expressions with three-valued evaluation (docs/semantics/epsparql.md#epsparql-A11): ``Var``,
``Const`` (an rdflib term), arithmetic ``Arith``, unary ``Neg``, comparisons ``Cmp``, ``And``, ``Or``,
``Not``, ``Bound`` and the paper's time functions ``TimeFn`` (``getDURATION()``, ``getSTARTTIME()``,
``getENDTIME()``), evaluated over the interval of the group pattern the FILTER belongs to (docs/semantics/epsparql.md#epsparql-3.2).

Queries: :class:`Select` (projection, optional ``DISTINCT`` ignored: results are sets, A10) and
:class:`Construct` (template triples; the CONSTRUCT rules of a :class:`QuerySet` feed their triples back into
the stream: the Q-closure of docs/semantics/epsparql.md#epsparql-3.6).  Positions ``pos`` are ``(line, column)`` in the query file, for error
messages; they do not take part in equality.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Union

from rdflib.term import BNode, Literal, URIRef, Variable

Term = Union[URIRef, Literal, BNode, Variable]
Pos = Optional[tuple[int, int]]


def _pos() -> Pos:
    return field(default=None, compare=False, hash=False, repr=False)


# ------------------------------------------------------------------------------------------------ expressions
@dataclass(frozen=True)
class Var:
    """A variable in an expression (``?x``)."""
    var: Variable
    pos: Pos = _pos()


@dataclass(frozen=True)
class Const:
    """A constant: an rdflib ``Literal`` (numbers, strings, booleans, xsd:dateTime, xsd:duration) or ``URIRef``."""
    term: Union[URIRef, Literal]
    pos: Pos = _pos()


@dataclass(frozen=True)
class Arith:
    """``left op right`` with ``op`` in ``+ - * /`` (exact: integers and decimals as fractions, docs/semantics/epsparql.md#epsparql-A11)."""
    op: str
    left: "Expr"
    right: "Expr"
    pos: Pos = _pos()


@dataclass(frozen=True)
class Neg:
    """Unary minus."""
    expr: "Expr"
    pos: Pos = _pos()


@dataclass(frozen=True)
class Cmp:
    """``left op right`` with ``op`` in ``< <= = != > >=``."""
    op: str
    left: "Expr"
    right: "Expr"
    pos: Pos = _pos()


@dataclass(frozen=True)
class And:
    left: "Expr"
    right: "Expr"
    pos: Pos = _pos()


@dataclass(frozen=True)
class Or:
    left: "Expr"
    right: "Expr"
    pos: Pos = _pos()


@dataclass(frozen=True)
class Not:
    expr: "Expr"
    pos: Pos = _pos()


@dataclass(frozen=True)
class Bound:
    """``BOUND(?v)``."""
    var: Variable
    pos: Pos = _pos()


@dataclass(frozen=True)
class TimeFn:
    """``getDURATION()`` (``name="DURATION"``: ``t_omega - t_alpha``), ``getSTARTTIME()`` (``t_alpha``),
    ``getENDTIME()`` (``t_omega``), in ticks (docs/semantics/epsparql.md#epsparql-3.2, #epsparql-A15)."""
    name: str
    pos: Pos = _pos()


Expr = Union[Var, Const, Arith, Neg, Cmp, And, Or, Not, Bound, TimeFn]


# ------------------------------------------------------------------------------------------------ patterns
@dataclass(frozen=True)
class TriplePattern:
    """``s p o`` with terms or variables (no blank nodes in patterns: footnote 4 makes them variables)."""
    s: Term
    p: Term
    o: Term
    pos: Pos = _pos()


@dataclass(frozen=True)
class BGP:
    """A basic graph pattern (a triples block); never empty (docs/semantics/epsparql.md#epsparql-A20)."""
    triples: tuple[TriplePattern, ...]
    pos: Pos = _pos()


@dataclass(frozen=True)
class Join:
    left: "Pattern"
    right: "Pattern"
    pos: Pos = _pos()


@dataclass(frozen=True)
class Union_:
    """``{A} UNION {B}`` (named with an underscore to keep ``typing.Union`` usable)."""
    left: "Pattern"
    right: "Pattern"
    pos: Pos = _pos()


@dataclass(frozen=True)
class LeftJoin:
    """``{left} OPTIONAL {right}``: ``left`` mandatory; ``expr`` is ``F`` (None = true)."""
    left: "Pattern"
    right: "Pattern"
    expr: Optional[Expr] = None
    pos: Pos = _pos()


@dataclass(frozen=True)
class SeqJoin:
    left: "Pattern"
    right: "Pattern"
    pos: Pos = _pos()


@dataclass(frozen=True)
class EqJoin:
    left: "Pattern"
    right: "Pattern"
    pos: Pos = _pos()


@dataclass(frozen=True)
class SeqRightJoin:
    """``{optional} OPTIONALSEQ {mandatory}`` = ``SeqRightJoin(optional, mandatory, F)``: the optional operand
    must end strictly before the mandatory one starts."""
    optional: "Pattern"
    mandatory: "Pattern"
    expr: Optional[Expr] = None
    pos: Pos = _pos()


@dataclass(frozen=True)
class EqLeftJoin:
    """``{left} EQUALSOPTIONAL {right}`` = ``EqLeftJoin(left, right, F)``: ``left`` mandatory, ``right`` optional
    with the same interval."""
    left: "Pattern"
    right: "Pattern"
    expr: Optional[Expr] = None
    pos: Pos = _pos()


@dataclass(frozen=True)
class Filter:
    expr: Expr
    pattern: "Pattern"
    pos: Pos = _pos()


@dataclass(frozen=True)
class Extend:
    """``(expr AS ?var)``: binds ``var`` (which must not be bound by ``pattern``) to the value of ``expr``; an
    error leaves it unbound (SPARQL 1.1)."""
    pattern: "Pattern"
    var: Variable
    expr: Expr
    pos: Pos = _pos()


@dataclass(frozen=True)
class Project:
    """A sub-select: the rows of ``pattern`` restricted to ``vars`` (set semantics, A10)."""
    vars: tuple[Variable, ...]
    pattern: "Pattern"
    pos: Pos = _pos()


Pattern = Union[BGP, Join, Union_, LeftJoin, SeqJoin, EqJoin, SeqRightJoin, EqLeftJoin, Filter, Extend, Project]


# ------------------------------------------------------------------------------------------------ queries
@dataclass(frozen=True)
class Select:
    """``SELECT ?a ?b (expr AS ?c) WHERE {...}``; ``projection`` None = ``SELECT *`` (every in-scope variable).
    Projection expressions are folded into ``where`` as :class:`Extend` by the parser, so ``projection`` is a
    tuple of variables."""
    projection: Optional[tuple[Variable, ...]]
    where: Pattern
    name: Optional[str] = None
    pos: Pos = _pos()


@dataclass(frozen=True)
class Construct:
    """``CONSTRUCT { template } WHERE {...}``: every solution that binds all template variables
    (``construct_unbound``) adds the instantiated template triples to the stream with the solution's interval
    (docs/semantics/epsparql.md#epsparql-3.6, #epsparql-A13); blank nodes in the template are Skolemised per solution (A13c)."""
    template: tuple[TriplePattern, ...]
    where: Pattern
    name: Optional[str] = None
    pos: Pos = _pos()


Query = Union[Select, Construct]


@dataclass(frozen=True)
class QuerySet:
    """The queries of one file: CONSTRUCT rules (evaluated to the Q-closure, docs/semantics/epsparql.md#epsparql-3.6) and SELECT queries whose
    results are the answer.  ``prefixes`` maps prefix -> namespace IRI (informational)."""
    queries: tuple[Query, ...]
    prefixes: tuple[tuple[str, str], ...] = ()

    @property
    def constructs(self) -> tuple[Construct, ...]:
        return tuple(q for q in self.queries if isinstance(q, Construct))

    @property
    def selects(self) -> tuple[Select, ...]:
        return tuple(q for q in self.queries if isinstance(q, Select))


def children(p: Pattern) -> tuple[Pattern, ...]:
    """The sub-patterns of ``p`` (left to right)."""
    if isinstance(p, BGP):
        return ()
    if isinstance(p, SeqRightJoin):
        return (p.optional, p.mandatory)
    if isinstance(p, (Filter, Extend, Project)):
        return (p.pattern,)
    return (p.left, p.right)


def pattern_vars(p: Pattern) -> frozenset[Variable]:
    """The variables a pattern may bind (in-scope variables, SPARQL 18.2.1)."""
    if isinstance(p, BGP):
        return frozenset(t for tp in p.triples for t in (tp.s, tp.p, tp.o) if isinstance(t, Variable))
    if isinstance(p, Extend):
        return pattern_vars(p.pattern) | {p.var}
    if isinstance(p, Project):
        return frozenset(p.vars) & pattern_vars(p.pattern)
    out: frozenset = frozenset()
    for c in children(p):
        out |= pattern_vars(c)
    return out


def certain_vars(p: Pattern) -> frozenset[Variable]:
    """The variables bound in *every* solution of ``p`` (the others may be unbound: below an optional operator's
    optional side, one side of a UNION, or an ``Extend`` whose expression may fail)."""
    if isinstance(p, BGP):
        return pattern_vars(p)
    if isinstance(p, (Join, SeqJoin, EqJoin)):
        return certain_vars(p.left) | certain_vars(p.right)
    if isinstance(p, Union_):
        return certain_vars(p.left) & certain_vars(p.right)
    if isinstance(p, (LeftJoin, EqLeftJoin)):
        return certain_vars(p.left)
    if isinstance(p, SeqRightJoin):
        return certain_vars(p.mandatory)
    if isinstance(p, Filter):
        return certain_vars(p.pattern)
    if isinstance(p, Extend):
        return certain_vars(p.pattern)
    if isinstance(p, Project):
        return certain_vars(p.pattern) & frozenset(p.vars)
    raise TypeError(p)


def expr_vars(e: Expr) -> frozenset[Variable]:
    """The variables an expression mentions."""
    if isinstance(e, Var):
        return frozenset({e.var})
    if isinstance(e, Bound):
        return frozenset({e.var})
    if isinstance(e, (Const, TimeFn)):
        return frozenset()
    if isinstance(e, (Neg, Not)):
        return expr_vars(e.expr)
    return expr_vars(e.left) | expr_vars(e.right)
