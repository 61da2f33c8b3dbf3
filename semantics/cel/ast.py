"""Abstract syntax of core-CEL (paper section 3; docs/semantics/cel.md#cel-2) plus the project extensions.

Formulas (all frozen, hashable dataclasses):
    Atom(rel, var)            ``R AS x``
    Filter(body, pred)        ``phi FILTER P``
    Or(left, right)           ``phi OR phi``
    Seq(left, right)          ``phi ; phi``
    Plus(body)                ``phi+``
    And(left, right)          ``phi AND phi``  -- EXTENSION (docs/semantics/cel.md#cel-G8): intersection of CE sets
    FalseF()                  the empty formula (docs/semantics/cel.md#cel-G7), produced only by rewritings
    Sel(strategy, body, within)  ``SEL(phi)`` / ``SEL(phi WITHIN n)`` as a sub-formula -- EXTENSION
                              (docs/semantics/cel.md#cel-G5, switch ``Options.nested_strategies``): a *closed* block, a
                              leaf for the outer formula (:func:`children` does not enter it)

Predicates (the FILTER part):
    Cmp(var, attr, op, value)                 ``x.attr OP constant``       (unary)
    Cmp2(var, attr, op, var2, attr2)          ``x.a OP y.b``               (binary when var != var2)
    PAnd, POr, PNot, PTrue, PFalse            boolean combinations

A :class:`Query` is ``SEL(formula)`` with an optional top-level ``WITHIN n`` (EXTENSION, docs/semantics/cel.md#cel-G8:
``max C - min C <= n`` in positions).
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Callable, Iterator, Union

OPS = ("<", "<=", "=", "!=", ">=", ">")
FLIP = {"<": ">", "<=": ">=", "=": "=", "!=": "!=", ">=": "<=", ">": "<"}
STRATEGIES = ("ALL", "STRICT", "NXT", "LAST", "MAX")

Const = Union[int, float, str]


# ---------------------------------------------------------------- predicates
@dataclass(frozen=True)
class Cmp:
    """``var.attr OP value``: true on an event that has ``attr`` and whose value compares."""
    var: str
    attr: str
    op: str
    value: Const

    def __str__(self) -> str:
        return f"{self.var}.{self.attr} {self.op} {_const(self.value)}"


@dataclass(frozen=True)
class Cmp2:
    """``var.attr OP var2.attr2``: both events must have the attribute; values compare."""
    var: str
    attr: str
    op: str
    var2: str
    attr2: str

    def __str__(self) -> str:
        return f"{self.var}.{self.attr} {self.op} {self.var2}.{self.attr2}"


@dataclass(frozen=True)
class PAnd:
    left: "Pred"
    right: "Pred"

    def __str__(self) -> str:
        return f"({self.left} AND {self.right})"


@dataclass(frozen=True)
class POr:
    left: "Pred"
    right: "Pred"

    def __str__(self) -> str:
        return f"({self.left} OR {self.right})"


@dataclass(frozen=True)
class PNot:
    arg: "Pred"

    def __str__(self) -> str:
        return f"NOT {_pwrap(self.arg)}"


@dataclass(frozen=True)
class PTrue:
    def __str__(self) -> str:
        return "TRUE"


@dataclass(frozen=True)
class PFalse:
    def __str__(self) -> str:
        return "FALSE"


Pred = Union[Cmp, Cmp2, PAnd, POr, PNot, PTrue, PFalse]


def _const(v: Const) -> str:
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(v)


def _pwrap(p: Pred) -> str:
    return str(p) if isinstance(p, (PAnd, POr, PTrue, PFalse)) else f"({p})"


def pred_vars(p: Pred) -> frozenset[str]:
    """Variables mentioned in a predicate (an annotation: computed once per node, see
    :func:`annotation`)."""
    r = p.__dict__.get("_pvars")
    if r is None:
        r = annotation(p, "_pvars", _pred_vars)
    return r


def _pred_vars(p: Pred) -> frozenset[str]:
    if isinstance(p, Cmp):
        return frozenset((p.var,))
    if isinstance(p, Cmp2):
        return frozenset((p.var, p.var2))
    if isinstance(p, (PAnd, POr)):
        return pred_vars(p.left) | pred_vars(p.right)
    if isinstance(p, PNot):
        return pred_vars(p.arg)
    return frozenset()


def pred_atoms(p: Pred) -> Iterator[Cmp | Cmp2]:
    """The comparisons in a predicate, left to right."""
    if isinstance(p, (Cmp, Cmp2)):
        yield p
    elif isinstance(p, (PAnd, POr)):
        yield from pred_atoms(p.left)
        yield from pred_atoms(p.right)
    elif isinstance(p, PNot):
        yield from pred_atoms(p.arg)


# ---------------------------------------------------------------- formulas
@dataclass(frozen=True)
class Atom:
    """``R AS x``: one event of type ``rel`` bound to ``var``."""
    rel: str
    var: str

    def __str__(self) -> str:
        return f"{self.rel} AS {self.var}"


@dataclass(frozen=True)
class Filter:
    """``body FILTER pred``."""
    body: "Formula"
    pred: Pred

    def __str__(self) -> str:
        return f"({self.body} FILTER {_pwrap(self.pred)})"


@dataclass(frozen=True)
class Or:
    left: "Formula"
    right: "Formula"

    def __str__(self) -> str:
        return f"({self.left} OR {self.right})"


@dataclass(frozen=True)
class Seq:
    left: "Formula"
    right: "Formula"

    def __str__(self) -> str:
        return f"({self.left} ; {self.right})"


@dataclass(frozen=True)
class Plus:
    body: "Formula"

    def __str__(self) -> str:
        return f"({self.body})+"


@dataclass(frozen=True)
class And:
    """EXTENSION (docs/semantics/cel.md#cel-G8): ``C`` in both sides under the same valuation."""
    left: "Formula"
    right: "Formula"

    def __str__(self) -> str:
        return f"({self.left} AND {self.right})"


@dataclass(frozen=True)
class FalseF:
    """The unsatisfiable formula (docs/semantics/cel.md#cel-G7); never written by users, produced by rewritings."""

    def __str__(self) -> str:
        return "FALSE"


@dataclass(frozen=True)
class Sel:
    """EXTENSION (docs/semantics/cel.md#cel-G5): a nested selection strategy ``strategy(body WITHIN within)``.

    Only meaningful under ``Options(nested_strategies="compositional")``: the block is closed (its
    body's filters mention only its own variables, its variables are invisible outside) and
    denotes ``strategy([[body WITHIN within]](S))`` per end position, whatever the valuation. For
    the outer formula it is a leaf: :func:`children`, ``vdef``, ``bound`` and every outer analysis
    treat it as defining no variable. ``at`` is the (line, column) of the strategy keyword in the
    query text (for error messages; not part of equality).
    """
    strategy: str
    body: "Formula"
    within: int | None = None
    at: tuple[int, int] | None = field(default=None, compare=False, hash=False, repr=False)

    def __str__(self) -> str:
        body = str(self.body)
        if self.within is not None:
            body = f"{body} WITHIN {self.within}"
        return f"{self.strategy}({body})"

    def query(self) -> "Query":
        """The block as a stand-alone query ``strategy(body WITHIN within)``."""
        return Query(self.body, self.strategy, self.within)


Formula = Union[Atom, Filter, Or, Seq, Plus, And, FalseF, Sel]


@dataclass(frozen=True)
class Query:
    """A CEL query: ``strategy(formula)`` optionally windowed.

    Attributes:
        formula: the core-CEL formula (with extensions).
        strategy: one of ``ALL`` (no selection strategy), ``STRICT``, ``NXT``, ``LAST``, ``MAX``
            (paper section 4).
        within: EXTENSION: ``WITHIN n`` keeps complex events with ``max C - min C <= n``; applied
            to the formula before the strategy selects (``SEL(phi WITHIN n)``). None = no window.
    """
    formula: Formula
    strategy: str = "ALL"
    within: int | None = None

    def __str__(self) -> str:
        body = str(self.formula)
        if self.within is not None:
            body = f"{body} WITHIN {self.within}"
        elif self.strategy == "ALL" and isinstance(self.formula, Sel):
            return f"ALL({body})"  # a bare SEL(...) would read back as the top-level strategy
        return body if self.strategy == "ALL" else f"{self.strategy}({body})"


def children(f: Formula) -> tuple[Formula, ...]:
    """Direct sub-formulas (a nested strategy :class:`Sel` is a leaf: its body is closed)."""
    if isinstance(f, (Filter, Plus)):
        return (f.body,)
    if isinstance(f, (Or, Seq, And)):
        return (f.left, f.right)
    return ()


def rebuild(f: Formula, *kids: Formula) -> Formula:
    """``f`` with its children (:func:`children` order) replaced by ``kids``: ``f`` itself when
    every kid is the old child (so the rewrites share unchanged sub-formulas and their
    annotations), else a new node of the same operator (same predicate for a filter).

    Raises:
        TypeError: ``f`` has no children of that number (an atom, ``FalseF`` or ``Sel``).
    """
    old = children(f)
    if len(old) != len(kids) or not old:
        raise TypeError(f"cannot rebuild {f!r} with {len(kids)} children")
    if all(a is b for a, b in zip(old, kids)):
        return f
    if isinstance(f, Filter):
        return Filter(kids[0], f.pred)
    if isinstance(f, Plus):
        return Plus(kids[0])
    return type(f)(kids[0], kids[1])


def subformulas(f: Formula) -> Iterator[Formula]:
    """All sub-formulas, pre-order, including ``f``."""
    yield f
    for c in children(f):
        yield from subformulas(c)


def nested_sels(f: Formula) -> Iterator[Sel]:
    """The outermost nested strategies of ``f`` (pre-order; not those inside another ``Sel``)."""
    return (g for g in subformulas(f) if isinstance(g, Sel))


def has_nested(q: "Query | Formula") -> bool:
    """True if the query's formula contains a nested selection strategy (docs/semantics/cel.md#cel-G5)."""
    f = q.formula if isinstance(q, Query) else q
    return any(True for _ in nested_sels(f))


def atoms(f: Formula) -> list[Atom]:
    """All atoms left to right."""
    return [g for g in subformulas(f) if isinstance(g, Atom)]


def size(f: Formula) -> int:
    """Number of nodes (``|phi|`` of the paper, filters counted once each); an annotation (computed
    once per node from the children's, see :func:`annotation`)."""
    r = f.__dict__.get("_size")
    if r is None:
        r = annotation(f, "_size", lambda g: 1 + sum(size(c) for c in children(g)))
    return r


# ---------------------------------------------------------------- annotations (analyse once)
ANNOTATED: dict[str, int] = {}
"""How many annotations were computed, by name (``_vdef``, ``_bound``, ...): a formula node is
analysed at most once per annotation, whatever the number of rewrite passes that ask."""


def annotation(node: Any, name: str, compute: Callable[[Any], Any]) -> Any:
    """The annotation ``name`` of an AST node, computed by ``compute(node)`` on first use and kept
    on the node.

    AST nodes are immutable, so an annotation that depends only on the node's value (``vdef``,
    ``vdef+``, ``bound`` of paper section 5.1, the size, safety of section 5.2, the variables of a
    predicate) never goes stale. A rewrite that builds a new node from existing children gets the
    new node's annotations in O(1) from the children's, which are already computed: the formula is
    analysed once, and each rewrite step pays only for the nodes it creates.

    Args:
        node: a formula, predicate or query node of this module.
        name: the attribute under which the value is stored (starts with ``_``; never pickled,
            never compared, never part of the hash or repr).
        compute: a function of the node; it may ask for the children's annotations.
    Returns:
        The (cached) value.
    """
    d = node.__dict__
    if name in d:
        return d[name]
    v = d[name] = compute(node)
    ANNOTATED[name] = ANNOTATED.get(name, 0) + 1
    return v


def _cached_hash(self) -> int:
    """The dataclass hash, computed once per node (hashing a frozen dataclass otherwise walks the
    whole tree on every dict or cache lookup)."""
    d = self.__dict__
    h = d.get("_hash")
    if h is None:
        h = d["_hash"] = self._field_hash()
    return h


def _getstate(self) -> dict:
    """Pickle the fields only: annotations are recomputed, and the cached hash must be (string
    hashes differ between processes)."""
    return {k: v for k, v in self.__dict__.items() if not k.startswith("_")}


for _cls in (Cmp, Cmp2, PAnd, POr, PNot, PTrue, PFalse, Atom, Filter, Or, Seq, Plus, And, FalseF,
             Sel, Query):
    assert all(not f.name.startswith("_") for f in fields(_cls))
    _cls._field_hash = _cls.__hash__
    _cls.__hash__ = _cached_hash
    _cls.__getstate__ = _getstate
del _cls
