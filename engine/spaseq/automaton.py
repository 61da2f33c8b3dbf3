"""The SPAseq automaton (Definition 17 and the compilation of Figs. 3-10 of Gillani et al.;
docs/semantics/spaseq.md#spaseq-4.1, #spaseq-4.2, #spaseq-9.5).

``A = (X, E, Theta, phi, x0, xf)``: states ``x0 .. xm`` (``x_j`` waits for element ``j``, 0-based; ``xm`` is the
final state ``xf``), edges labelled ``theta = (U, op, P)`` (``U`` the stream IRIs, ``op`` the operator, ``P`` the
graph pattern).  :func:`compile_automaton` builds it as a ``networkx.MultiDiGraph`` (:attr:`Automaton.graph`, for
drawing: every edge has the attributes ``U``, ``op``, ``P``, ``element``, ``connector`` and ``label``):

* a GPM element: ``x_j --(U_g, ∅, P_g)--> x_{j+1}`` (Fig. 4);
* ``Psi+``: a self-loop ``x_j --(U, +, P)--> x_j`` and ``x_j --(U, +, P)--> x_{j+1}`` (Fig. 5);
* ``;`` and ``:``: a self-loop on ``x_j`` accepting any event of ``U`` (``op`` ``skip-till-next`` /
  ``skip-till-any``, ``P`` None); ``,`` has none (Figs. 6-7);
* ``&`` and ``|`` of GPMs: one parallel edge per GPM from ``x_j`` to ``x_{j+1}`` with ``op`` ``&`` / ``|`` (Figs.
  8-9); a nested mix of both is one edge with ``op`` ``bop`` and the BOp expression as ``P``;
* the Appendix-B extensions: ``Psi?`` adds an ``eps`` edge ``x_j -> x_{j+1}`` next to the ``?`` edge; ``Psi!`` is a
  guard edge (``op`` ``!``): a run passes it without consuming an event and dies when ``P`` matches in the guarded
  interval.

The run machinery (:mod:`ceplab.engine.spaseq.evaluate`) reads the compiled wait states of the automaton
(:attr:`Automaton.E`, :attr:`Automaton.I`, :attr:`Automaton.N`): a run is *at* one of them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import networkx as nx

from ceplab.semantics.errors import UnsupportedError
from ceplab.semantics.spaseq import ast as A
from ceplab.semantics.spaseq.options import Options

from ceplab.engine.spaseq.gpm import PatternCompiler, Terms, required_triples


@dataclass(eq=False)
class Leaf:
    """A compiled GPM (one ``DEFINE GPM``): ``fn(row, index) -> rows`` evaluates ``[[row(P)]]`` on one graph.

    Attributes:
        idx: its number (cache keys); name: the GPM name; streams: ``U_g``.
        fn: the compiled pattern.
        req: the stateful pre-check, ``(p, s_is_var, s, o_is_var, o)`` per required event triple pattern with a
            constant predicate and a variable subject or object.
        cost: the static cost estimate of section 7.3 (smaller: cheaper and more selective).
    """
    idx: int
    name: str
    streams: frozenset
    fn: Callable
    req: tuple
    cost: float
    pattern: Any = None


@dataclass(eq=False)
class Node:
    """A BOp expression node: ``kind`` ``"g"`` (leaf), ``"c"`` (``&``) or ``"d"`` (``|``)."""
    kind: str
    leaf: Optional[Leaf] = None
    left: Optional["Node"] = None
    right: Optional["Node"] = None
    cost: float = 0.0
    streams: frozenset = frozenset()
    cheap_first: tuple = ()    # disjunction: (first, second) in cost order

    def need(self, streams: set) -> bool:
        """Necessary condition for an instance in a batch whose events come from ``streams``."""
        if self.kind == "g":
            return not self.leaf.streams.isdisjoint(streams)
        if self.kind == "c":
            return self.left.need(streams) and self.right.need(streams)
        return self.left.need(streams) or self.right.need(streams)


@dataclass(eq=False)
class Element:
    """Element ``j`` (0-based) of the normalised sequence.

    Attributes:
        conn: the connector written before it (None for the first).
        mod: None, ``"+"``, ``"!"`` or ``"?"``.
        iter_conn: the connector between two Kleene iterations (``Options.kleene_iter``).
        has_conj: its expression contains ``&`` (lazy conjunction applies).
    """
    j: int
    expr: Node
    conn: Optional[str]
    mod: Optional[str]
    streams: frozenset
    iter_conn: Optional[str]
    has_conj: bool
    leaves: tuple


@dataclass(eq=False)
class WaitState:
    """Where a run waits (docs/semantics/spaseq.md#spaseq-9.5).

    Attributes:
        kind: ``"elem"`` (the first instance of element ``j``), ``"iter"`` (another Kleene iteration of ``j``) or
            ``"negend"`` (a negated last element ``j``: the run waits for its window end).
        conn: the connector of the step (``:``, ``;``, ``,``).
        uset: the streams that break strict contiguity for this step (None: every stream).
        neg: the negated element guarding the step, or None.
        streams: the streams whose events can change the run (its bucket keys in the stream index).
        node: the automaton state it belongs to.
    """
    kind: str
    j: int
    conn: Optional[str]
    uset: Optional[frozenset]
    neg: Optional[int]
    streams: frozenset
    node: str
    uset_key: int = 0
    name: str = ""


@dataclass(eq=False)
class Automaton:
    """The compiled query: the networkx automaton and the run-level tables derived from it.

    Attributes:
        graph: ``networkx.MultiDiGraph`` (module docstring).
        elements: the compiled elements.
        E: element index -> its ``elem`` wait state (absent for element 0 and for negated elements).
        I: element index -> its Kleene ``iter`` wait state.
        N: the ``negend`` wait state when the last element is negated, else None.
        starts: the elements a match can start with (0, and 1 when element 0 is optional).
        usets: the distinct contiguity sets (index = ``WaitState.uset_key``).
        leaves: the compiled GPMs.
        memos: the GPM caches keyed by term ids (to clear when the term dictionary frees ids).
    """
    graph: Any
    elements: list
    E: dict
    I: dict
    N: Optional[WaitState]
    starts: tuple
    usets: list
    leaves: list = field(default_factory=list)
    memos: list = field(default_factory=list)


def _leaf_cost(p: A.Pattern) -> float:
    """Section 7.3's static estimate: more triple patterns cost more, constants and filters prune."""
    tps = 0
    consts = 0
    filters = 0

    def walk(q: A.Pattern) -> None:
        nonlocal tps, consts, filters
        if isinstance(q, A.BGP):
            for tp in q.triples:
                tps += 1
                consts += sum(1 for x in (tp.s, tp.o) if not isinstance(x, A.Variable))
        elif isinstance(q, (A.Join, A.Union_)):
            walk(q.left)
            walk(q.right)
        elif isinstance(q, A.LeftJoin):
            walk(q.left)
            walk(q.right)
            filters += q.expr is not None
        elif isinstance(q, A.Filter):
            filters += 1
            walk(q.pattern)
        elif isinstance(q, A.Graph):
            walk(q.pattern)
    walk(p)
    return 10.0 * tps - 3.0 * consts - 2.0 * filters


def _label(U: frozenset, op: str, P: Any) -> str:
    us = ",".join(sorted(str(u).rsplit("/", 1)[-1] or str(u) for u in U)) if U else "∅"
    return f"({{{us}}}, {op}, {P if P is not None else '-'})"


def compile_automaton(query: A.Query, options: Options, terms: Terms, varindex: dict,
                      background: dict) -> Automaton:
    """Compile ``query`` (docs/semantics/spaseq.md#spaseq-4.2) under ``options``.

    Args:
        query: the SPAseq AST.
        options: the switches (contiguity, kleene_iter, disjunction order are read here).
        terms: the shared term dictionary; varindex: variable -> row position.
        background: IRI -> :class:`ceplab.engine.spaseq.gpm.Index` of the background graphs.

    Raises:
        UnsupportedError: an empty sequence, WITHIN below 1, an unknown connector or modifier, a negated first
            element, two adjacent elements with ``!``/``?``, no element without ``!``/``?``, a GPM name that is
            undefined or used twice (the parser rejects these with a location; the engine re-checks ASTs built
            in code).
    """
    seq = query.seq
    if not seq:
        raise UnsupportedError("the sequence expression is empty")
    if not isinstance(query.window, int) or query.window < 1:
        raise UnsupportedError(f"WITHIN {query.window}: the window must be at least 1 tick")
    for k, el in enumerate(seq):
        if el.modifier not in (None, "+", "!", "?"):
            raise UnsupportedError(f"unknown modifier {el.modifier!r} on element {k + 1}")
        if k and el.connector not in (",", ";", ":"):
            raise UnsupportedError(f"unknown connector {el.connector!r} before element {k + 1}")
    if seq[0].modifier == "!":
        raise UnsupportedError("the first element of a sequence cannot be negated")
    for a, b in zip(seq, seq[1:]):
        if a.modifier in ("!", "?") and b.modifier in ("!", "?"):
            raise UnsupportedError("two adjacent elements both negated or optional")
    if all(el.modifier in ("!", "?") for el in seq):
        raise UnsupportedError("every element is negated or optional")
    used = [n for el in seq for n in A.bop_gpms(el.expr)]
    if len(set(used)) != len(used):
        raise UnsupportedError("a GPM is used twice in the sequence")

    pc = PatternCompiler(terms, varindex, background)
    leaves: list[Leaf] = []

    def leaf_of(name: str) -> Leaf:
        try:
            g = query.gpm(name)
        except KeyError:
            raise UnsupportedError(f"GPM {name!r} is not defined") from None
        req = []
        # only variables another GPM of the sequence binds can be bound by a context
        others = frozenset().union(*(A.pattern_vars(h.pattern) for h in query.gpms
                                     if h.name != name and h.name in used))
        for tp in required_triples(g.pattern):
            if isinstance(tp.p, A.Variable):
                continue
            sv = isinstance(tp.s, A.Variable)
            ov = isinstance(tp.o, A.Variable)
            if not ((sv and tp.s in others) or (ov and tp.o in others)):
                continue
            req.append((terms.id(tp.p), sv, varindex[tp.s] if sv else terms.id(tp.s),
                        ov, varindex[tp.o] if ov else terms.id(tp.o)))
        lf = Leaf(len(leaves), name, frozenset(g.streams), pc.compile(g.pattern), tuple(req),
                  _leaf_cost(g.pattern), g.pattern)
        leaves.append(lf)
        return lf

    def node_of(b: A.BOp) -> Node:
        if isinstance(b, A.GPMRef):
            lf = leaf_of(b.name)
            return Node("g", leaf=lf, cost=lf.cost, streams=lf.streams)
        if isinstance(b, (A.Conj, A.Disj)):
            L = node_of(b.left)
            R = node_of(b.right)
            if isinstance(b, A.Conj):
                return Node("c", left=L, right=R, cost=L.cost + R.cost, streams=L.streams | R.streams)
            first = (L, R) if (options.engine_disjunction_order == "written" or L.cost <= R.cost) else (R, L)
            return Node("d", left=L, right=R, cost=min(L.cost, R.cost), streams=L.streams | R.streams,
                        cheap_first=first)
        raise UnsupportedError(f"not a BOp expression: {b!r}")

    def has_conj(b: A.BOp) -> bool:
        return isinstance(b, A.Conj) or (isinstance(b, A.Disj) and (has_conj(b.left) or has_conj(b.right)))

    elements: list[Element] = []
    for j, el in enumerate(seq):
        nd = node_of(el.expr)
        conn = el.connector if j else None
        if el.modifier == "+":
            iter_conn = ";" if (options.kleene_iter == "stn" or j == 0) else conn
        else:
            iter_conn = None
        lvs = []

        def collect(n: Node) -> None:
            if n.kind == "g":
                lvs.append(n.leaf)
            else:
                collect(n.left)
                collect(n.right)
        collect(nd)
        elements.append(Element(j, nd, conn, el.modifier, nd.streams, iter_conn, has_conj(el.expr), tuple(lvs)))

    m = len(elements)
    usets: list[Optional[frozenset]] = []

    def uset_for(j: int) -> tuple[Optional[frozenset], int]:
        if options.contiguity == "declared":
            u: Optional[frozenset] = frozenset(query.declared_streams)
        elif options.contiguity == "streamset":
            u = None
        else:
            u = elements[j].streams
        if u not in usets:
            usets.append(u)
        return u, usets.index(u)

    E: dict[int, WaitState] = {}
    I: dict[int, WaitState] = {}
    N: Optional[WaitState] = None
    for j in range(1, m):
        el = elements[j]
        if el.mod == "!":
            continue
        neg = j - 1 if elements[j - 1].mod == "!" else None
        streams = el.streams | (elements[neg].streams if neg is not None else frozenset())
        u, uk = uset_for(j)
        E[j] = WaitState("elem", j, el.conn, u, neg, streams, f"x{j}", uk,
                         f"x{j}: wait {el.conn} element {j + 1}" + (f" (not element {neg + 1})" if neg is not None
                                                                   else ""))
    for j in range(m):
        el = elements[j]
        if el.mod == "+":
            u, uk = uset_for(j)
            I[j] = WaitState("iter", j, el.iter_conn, u, None, el.streams, f"x{j}", uk,
                             f"x{j}: another iteration ({el.iter_conn}) of element {j + 1}")
    if elements[-1].mod == "!":
        el = elements[-1]
        N = WaitState("negend", m - 1, None, None, m - 1, el.streams, f"x{m - 1}", 0,
                      f"x{m - 1}: no element {m} until the window end")
    starts = (0, 1) if elements[0].mod == "?" else (0,)

    # ---- the networkx automaton (Definition 17)
    g = nx.MultiDiGraph(name="SPAseq automaton")
    for k in range(m + 1):
        g.add_node(f"x{k}", initial=(k == 0), final=(k == m), label=("xf" if k == m else f"x{k}"))

    def add(u: str, v: str, U: frozenset, op: str, P: Any, j: int, conn: Optional[str],
            name: Optional[str] = None) -> None:
        g.add_edge(u, v, U=U, op=op, P=P, element=j, connector=conn, gpm=name, label=_label(U, op, name))

    for j, el in enumerate(elements):
        src, dst = f"x{j}", f"x{j + 1}"
        b = seq[j].expr
        if el.conn in (";", ":"):
            allU = frozenset(query.declared_streams) or el.streams
            add(src, src, allU, "skip-till-next" if el.conn == ";" else "skip-till-any", None, j, el.conn)
        parts: list[tuple[frozenset, str, Any, str]] = []
        if isinstance(b, A.GPMRef):
            parts = [(el.streams, "∅", query.gpm(b.name).pattern, b.name)]
        else:
            flat_c = _flat(b, A.Conj)
            flat_d = _flat(b, A.Disj)
            if flat_c is not None:
                parts = [(frozenset(query.gpm(n).streams), "&", query.gpm(n).pattern, n) for n in flat_c]
            elif flat_d is not None:
                parts = [(frozenset(query.gpm(n).streams), "|", query.gpm(n).pattern, n) for n in flat_d]
            else:
                parts = [(el.streams, "bop", b, _bop_text(b))]
        mod = el.mod
        for U, op, P, name in parts:
            if mod == "+":
                add(src, src, U, "+", P, j, el.iter_conn, name)
                add(src, dst, U, "+", P, j, el.conn, name)
            elif mod == "?":
                add(src, dst, U, "?" if op == "∅" else f"?{op}", P, j, el.conn, name)
            elif mod == "!":
                add(src, dst, U, "!" if op == "∅" else f"!{op}", P, j, el.conn, name)
            else:
                add(src, dst, U, op, P, j, el.conn, name)
        if mod == "?":
            add(src, dst, frozenset(), "eps", None, j, None)
    return Automaton(g, elements, E, I, N, starts, usets, leaves, pc.memos)


def _bop_text(b: A.BOp) -> str:
    if isinstance(b, A.GPMRef):
        return b.name
    op = " & " if isinstance(b, A.Conj) else " | "
    return "(" + _bop_text(b.left) + op + _bop_text(b.right) + ")"


def _flat(b: A.BOp, cls: type) -> Optional[list[str]]:
    """The GPM names of a tree made of ``cls`` nodes only, else None."""
    if isinstance(b, A.GPMRef):
        return [b.name]
    if isinstance(b, cls):
        a = _flat(b.left, cls)
        c = _flat(b.right, cls)
        if a is not None and c is not None:
            return a + c
    return None
