"""SPAseq abstract syntax (Gillani, Zimmermann, Picard, Laforest, "A query language for semantic complex event
processing: Syntax, semantics and implementation", Semantic Web journal, section 4 (Definition 4);
docs/semantics/spaseq.md#spaseq-2).

This module is the contract between the parser (``semantics/spaseq/parser.py``), the clingo oracle
(``asp/spaseq.py``) and the NFA engine (``engine/spaseq``).  Terms are rdflib terms (``URIRef``, ``Literal``) and
rdflib ``Variable``; every node is a frozen, hashable dataclass.  Positions ``pos`` are ``(line, column)`` in the
query file, for error messages; they take no part in equality.

A query ``Q = (V, omega, SeqExp)`` (Definition 4) is a :class:`Query`:

* ``select``: the projection variables ``V`` (``None`` for ``SELECT *``: every variable of the GPMs);
* ``window``: ``omega`` in ticks (``WITHIN n SECONDS|MINUTES|HOURS``; 1 tick = 1 second);
* ``streams``: the ``FROM STREAM alias <iri>`` declarations (the set ``U`` of strict contiguity,
  docs/semantics/spaseq.md#spaseq-A7); ``graphs``: the ``FROM <iri>`` background graphs;
* ``seq``: the sequence expression ``SEQ(...)``, normalised to ``Psi_1 .2 Psi_2 ... .m Psi_m``
  (docs/semantics/spaseq.md#spaseq-3.8): a tuple of :class:`Element`, each a BOp expression (:class:`GPMRef`,
  :class:`Conj`, :class:`Disj`) with a connector (``","`` strict contiguity, ``";"`` skip-till-next,
  ``":"`` skip-till-any; ``None`` for the first element) and a modifier (``None``, ``"+"`` Kleene+, ``"!"``
  negation, ``"?"`` optional);
* ``gpms``: the ``DEFINE GPM name ON S1[, S2] { P }`` blocks: :class:`GPM` with the stream IRIs ``U_g`` and the
  graph pattern ``P`` in SPARQL algebra form.

Graph patterns (SPARQL 1.1 algebra, section 18.2, with Perez-Arenas-Gutierrez set semantics,
docs/semantics/spaseq.md#spaseq-3.1): :class:`BGP`, :class:`Join`, :class:`LeftJoin` (``OPTIONAL``, with the
filter of its optional group), :class:`Union`, :class:`Filter`, :class:`Graph` (``GRAPH <kb> { ... }``: the
pattern is matched against the background graph ``kb`` instead of the event's graph, Definition 15).

Expressions (FILTER): :class:`Var`, :class:`Const`, :class:`Arith` (``+``, ``-``), :class:`Neg` (unary
minus), :class:`Cmp` (``< <= = != > >=``), :class:`And`, :class:`Or`, :class:`Not`, :class:`Bound`, with
SPARQL 1.1's three-valued error semantics (docs/semantics/spaseq.md#spaseq-A16).  Multiplication and division
are not part of the language accepted here (the parser rejects them with a located error).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Union

from rdflib.term import Literal, URIRef, Variable

Term = Union[URIRef, Literal, Variable]
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
    """A constant: an rdflib ``Literal`` (numbers, strings, booleans) or ``URIRef``."""
    term: Union[URIRef, Literal]
    pos: Pos = _pos()


@dataclass(frozen=True)
class Arith:
    """``left op right`` with ``op`` in ``+ -`` (exact decimal arithmetic)."""
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
    """``left && right``."""
    left: "Expr"
    right: "Expr"
    pos: Pos = _pos()


@dataclass(frozen=True)
class Or:
    """``left || right``."""
    left: "Expr"
    right: "Expr"
    pos: Pos = _pos()


@dataclass(frozen=True)
class Not:
    """``! expr``."""
    expr: "Expr"
    pos: Pos = _pos()


@dataclass(frozen=True)
class Bound:
    """``BOUND(?v)``."""
    var: Variable
    pos: Pos = _pos()


Expr = Union[Var, Const, Arith, Neg, Cmp, And, Or, Not, Bound]


# ------------------------------------------------------------------------------------------------ graph patterns
@dataclass(frozen=True)
class TriplePattern:
    """``s p o`` (subject and object: IRI, literal (object only) or variable; predicate: IRI or variable)."""
    s: Term
    p: Term
    o: Term
    pos: Pos = _pos()


@dataclass(frozen=True)
class BGP:
    """A basic graph pattern: a set of triple patterns, all matched in the same graph."""
    triples: tuple[TriplePattern, ...]
    pos: Pos = _pos()


@dataclass(frozen=True)
class Join:
    """``Join(left, right)``: compatible mappings, merged."""
    left: "Pattern"
    right: "Pattern"
    pos: Pos = _pos()


@dataclass(frozen=True)
class LeftJoin:
    """``LeftJoin(left, right, expr)`` (``OPTIONAL``): ``expr`` is the filter written inside the optional group
    (SPARQL 1.1 section 18.2.2.5; ``None`` means true)."""
    left: "Pattern"
    right: "Pattern"
    expr: Optional[Expr] = None
    pos: Pos = _pos()


@dataclass(frozen=True)
class Union_:
    """``{left} UNION {right}``."""
    left: "Pattern"
    right: "Pattern"
    pos: Pos = _pos()


@dataclass(frozen=True)
class Filter:
    """``Filter(expr, pattern)``: the group's FILTERs (conjoined) over the group's pattern."""
    expr: Expr
    pattern: "Pattern"
    pos: Pos = _pos()


@dataclass(frozen=True)
class Graph:
    """``GRAPH <iri> { pattern }``: ``pattern`` is matched in the background graph ``iri`` (Definition 15)."""
    iri: URIRef
    pattern: "Pattern"
    pos: Pos = _pos()


Pattern = Union[BGP, Join, LeftJoin, Union_, Filter, Graph]


# ------------------------------------------------------------------------------------------------ sequences
@dataclass(frozen=True)
class GPMRef:
    """The name of a ``DEFINE GPM`` block used in ``SEQ(...)``."""
    name: str
    pos: Pos = _pos()


@dataclass(frozen=True)
class Conj:
    """``left & right`` (Definition 8): instances of both at the same timestamp."""
    left: "BOp"
    right: "BOp"
    pos: Pos = _pos()


@dataclass(frozen=True)
class Disj:
    """``left | right`` (Definition 9): an instance of either."""
    left: "BOp"
    right: "BOp"
    pos: Pos = _pos()


BOp = Union[GPMRef, Conj, Disj]


@dataclass(frozen=True)
class Element:
    """One element ``Psi_j`` of the normalised sequence (docs/semantics/spaseq.md#spaseq-3.8).

    Attributes:
        expr: the BOp expression.
        connector: ``","`` (strict contiguity, Definition 12), ``";"`` (skip-till-next, Definition 11) or
            ``":"`` (skip-till-any, Definition 10) linking it to the element before; ``None`` for the first.
        modifier: ``None``, ``"+"`` (Kleene+, Definitions 13-14), ``"!"`` (negation) or ``"?"`` (optional)
            (the Appendix B extensions, docs/semantics/spaseq.md#spaseq-A18).
    """
    expr: BOp
    connector: Optional[str] = None
    modifier: Optional[str] = None
    pos: Pos = _pos()


@dataclass(frozen=True)
class GPM:
    """``DEFINE GPM name ON S1[, S2] { P }``: the graph pattern ``P`` matched on events of the streams
    ``streams`` (IRIs, resolved from the ``FROM STREAM`` aliases)."""
    name: str
    streams: tuple[URIRef, ...]
    pattern: Pattern
    pos: Pos = _pos()


@dataclass(frozen=True)
class Query:
    """A SPAseq SELECT query (Definition 4; the concrete syntax of docs/semantics/spaseq.md#spaseq-2.2).

    Attributes:
        select: projection variables, or ``None`` for ``SELECT *``.
        window: the window duration ``omega`` in ticks (seconds).
        streams: ``((alias, iri), ...)`` in declaration order (``FROM STREAM alias <iri>``).
        graphs: background graph IRIs (``FROM <iri>``), in declaration order.
        seq: the normalised sequence expression.
        gpms: the GPM definitions, in definition order.
    """
    select: Optional[tuple[Variable, ...]]
    window: int
    streams: tuple[tuple[str, URIRef], ...]
    graphs: tuple[URIRef, ...]
    seq: tuple[Element, ...]
    gpms: tuple[GPM, ...]
    pos: Pos = _pos()

    def gpm(self, name: str) -> GPM:
        """The GPM called ``name`` (KeyError if there is none)."""
        for g in self.gpms:
            if g.name == name:
                return g
        raise KeyError(name)

    @property
    def declared_streams(self) -> frozenset[URIRef]:
        """The IRIs of the ``FROM STREAM`` declarations (the set ``U`` of docs/semantics/spaseq.md#spaseq-A7)."""
        return frozenset(iri for _, iri in self.streams)


# ------------------------------------------------------------------------------------------------ helpers
def pattern_vars(p: Pattern) -> frozenset[Variable]:
    """Every variable of a graph pattern (triple patterns and filters), ``var(P)``."""
    if isinstance(p, BGP):
        return frozenset(t for tp in p.triples for t in (tp.s, tp.p, tp.o) if isinstance(t, Variable))
    if isinstance(p, (Join, Union_)):
        return pattern_vars(p.left) | pattern_vars(p.right)
    if isinstance(p, LeftJoin):
        out = pattern_vars(p.left) | pattern_vars(p.right)
        return out | (expr_vars(p.expr) if p.expr is not None else frozenset())
    if isinstance(p, Filter):
        return pattern_vars(p.pattern) | expr_vars(p.expr)
    if isinstance(p, Graph):
        return pattern_vars(p.pattern)
    raise TypeError(f"not a graph pattern: {p!r}")


def expr_vars(e: Expr) -> frozenset[Variable]:
    """Every variable an expression mentions."""
    if isinstance(e, Var):
        return frozenset({e.var})
    if isinstance(e, Bound):
        return frozenset({e.var})
    if isinstance(e, Const):
        return frozenset()
    if isinstance(e, (Neg, Not)):
        return expr_vars(e.expr)
    if isinstance(e, (Arith, Cmp, And, Or)):
        return expr_vars(e.left) | expr_vars(e.right)
    raise TypeError(f"not an expression: {e!r}")


def bop_gpms(b: BOp) -> tuple[str, ...]:
    """The GPM names of a BOp expression, left to right."""
    if isinstance(b, GPMRef):
        return (b.name,)
    return bop_gpms(b.left) + bop_gpms(b.right)


def query_vars(q: Query) -> tuple[Variable, ...]:
    """Every variable of the GPMs the sequence uses, sorted by name (the row vector of docs/semantics/spaseq.md#spaseq-9)."""
    used = {n for el in q.seq for n in bop_gpms(el.expr)}
    vs: set[Variable] = set()
    for g in q.gpms:
        if g.name in used:
            vs |= pattern_vars(g.pattern)
    return tuple(sorted(vs, key=str))


def projection(q: Query) -> tuple[Variable, ...]:
    """The projected variables: ``select``, or every variable (``SELECT *``), sorted by name for ``*``."""
    return q.select if q.select is not None else query_vars(q)
