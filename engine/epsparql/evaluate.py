"""Incremental EP-SPARQL evaluator: event-driven backward chaining on binarized goal stores, set semantics.

Architecture (docs/semantics/epsparql.md#epsparql-4.2, #epsparql-9.2; the same shape as the ETALIS engine ``engine/etalis/evaluate.py``):

* **Binarization.**  Every algebra node of every query (SELECT and CONSTRUCT) is one node; a BGP is
  binarized into a left-deep ``Join`` of one-triple-pattern leaves (docs/semantics/epsparql.md#epsparql-A3 ``per_pattern``: a BGP *is* the Join
  of its patterns, ETALIS ``AND``), ordered so that each next pattern shares a variable with the previous ones
  where possible.  Equal sub-patterns (also across queries) are one node with several parents (computation
  sharing, paper 4.2 reason 2).  Under ``bgp_mode="per_triple"`` a BGP of >= 2 patterns is one search node over
  the occurrence history instead (patterns that instantiate to the same triple take the same occurrence).
* **Rows and goal stores.**  A row is ``(vals, t_alpha)`` with ``vals`` aligned to the node's variables (sorted
  by name, ``None`` = unbound); every row produced while tick ``T`` is evaluated ends at ``T`` (docs/semantics/epsparql.md#epsparql-9.2.2,
  #epsparql-P1), so ``t_omega`` is implicit during the tick and recorded in the stores.  Each binary node keeps, *per
  parent edge*, goal stores of its children's rows, indexed by the values of the variables that are shared and
  certainly bound on both sides (``ast.certain_vars``; shared maybe-unbound variables are checked for SPARQL
  compatibility after the lookup, docs/semantics/epsparql.md#epsparql-A21) and, within a key, in ``t_omega`` order (appended tick by tick), so
  SEQ looks up "left rows ending before ``t'_alpha``" by bisection.  Nothing is ever consumed (docs/semantics/epsparql.md#epsparql-A18, #epsparql-E11):
  a stored row joins with every later partner.
* **Operator deltas at tick T** (docs/semantics/epsparql.md#epsparql-9.2.3): Join ``dL x R_all  u  L_all x dR``; SeqJoin: a right row joins the
  stored left rows with ``t_omega < t'_alpha``, a left row is only stored; EqJoin and EqLeftJoin: current-tick
  stores keyed by ``(join key, t_alpha)``; LeftJoin: the right side is kept for the whole history, the left
  side for the current tick (``optional_end="le"`` lets a right row of tick ``T`` match a left row of ``T``);
  SeqRightJoin: optional rows are stored, a mandatory row is joined with the optional rows ending before its
  start (all from earlier ticks) and decided at once; Union, Filter, Extend, Project: pointwise.
* **Tick processing ("bottom-up per tick", docs/semantics/epsparql.md#epsparql-9.2.2).**  ``push`` buffers the occurrences of the current tick;
  the tick is evaluated when the first occurrence of a later tick arrives, or at ``close()``.  Then every input
  occurrence (deduplicated, A19) is dispatched to the leaves of its predicate and propagated upwards
  (depth-first, every new row joined with the sibling's store).  CONSTRUCT roots instantiate their template
  (``construct_unbound``; blank nodes Skolemised by the oracle's function) and the derived occurrences re-enter
  the same tick until a fixpoint.  The non-monotone decisions that depend on rows of the *same* tick (the
  "no partner" row of EqLeftJoin, and of LeftJoin under ``optional_end="le"``) are deferred: when propagation
  is quiescent, the pending node with the lowest rank (a topological order of the node graph including the
  CONSTRUCT -> leaf feedback edges) decides its unmatched rows, and propagation resumes.  If a row derived
  later in the same tick would have matched an already emitted unmatched row, :class:`NonStratifiedError` is
  raised (the oracle's "exactly one stable model" check, docs/semantics/epsparql.md#epsparql-A13d).  SeqRightJoin and strict LeftJoin
  decide at once: their partners all end at earlier, closed ticks.
* **Emission.**  Results whose interval ends at ``T`` are emitted when tick ``T`` closes (``push`` of the first
  occurrence with a later end, or ``close()``): rows of SELECT queries (projected, set or bag, A10) and the
  occurrences the CONSTRUCT rules derive (not the input ones).  A result is emitted exactly once and never
  retracted; the results emitted once tick ``T`` has closed are exactly the declarative results with
  ``t_omega <= T`` (timewise monotonicity, docs/semantics/epsparql.md#epsparql-3.5 principle 1 / #epsparql-P1).
* **Window push-down and GC** (docs/semantics/epsparql.md#epsparql-4.3, #epsparql-P7).  A top-level conjunct ``getDURATION() < c`` (``<= c``) of a FILTER
  bounds the duration of the rows below it that can still matter, through the monotone operators and the
  mandatory sides of the optional operators (not through an optional operand: pruning a blocker unblocks
  rows, P7).  Longer rows are never produced; Join/SeqJoin stores drop rows that can no longer join within
  the bound (swept once per window length).  Without such filters every occurrence is retained (docs/semantics/epsparql.md#epsparql-9.3).

* **Background knowledge and RDFS** (docs/semantics/epsparql.md#epsparql-A14, #epsparql-9.2 point 7; ``background=Background(graph, ontology)``).  (i) The
  RDFS closure of G u O (:func:`rdfs_closure`: rdfs2, rdfs3 on resource objects, rdfs5/7, rdfs9/11; no axiomatic
  triples; computed by owlrl's RDFS semantics cut down to exactly these rules) is materialised once; its triples
  are **timeless**.  Every node has a set ``static`` of *timeless rows* (rows with no temporal match, hence no
  interval), computed once at build time, children first: a leaf's are the static triples it matches; Join joins
  them (static x static) and keeps them indexed by join key, so a temporal row arriving on one side also joins
  the other side's timeless rows and keeps its own ``t_alpha``
  (the hull ignores timeless matches); Filter/Extend/Union/Project map them pointwise, the time functions being
  an error on them (``ta is None``); a per_triple BGP searches the static triples next to the history.  (iii)
  The operands of SEQ/EQUALS/OPTIONAL/OPTIONALSEQ/EQUALSOPTIONAL never see timeless rows (``static`` is empty
  there and they only ``receive`` temporal rows), and timeless rows never reach SELECT/CONSTRUCT sinks.  (ii)
  Every input or CONSTRUCT-derived occurrence is fed together with its entailments under rdfs2/3/7/9 with the
  static schema, same interval, before the operators see it (entailments are not ``Derived`` results).  (iv)
  Schema triples in the stream raise :class:`UnsupportedError`.  The oracle (``asp/epsparql.py``) encodes the
  same semantics with the sentinel interval ``tl``.

Filters are three-valued with exact arithmetic (:mod:`ceplab.engine.epsparql.expr`).
"""
from __future__ import annotations

from bisect import bisect_left
from collections import defaultdict
from functools import lru_cache
from typing import Callable, Iterable, Optional

from rdflib import RDF, RDFS, Literal
from rdflib.term import BNode, URIRef, Variable

from ceplab.semantics.epsparql import ast as A
from ceplab.semantics.epsparql.options import Options
from ceplab.semantics.epsparql.results import Derived, Result, Row, canonical_term, n3
from ceplab.semantics.epsparql.skolem import skolem
from ceplab.semantics.epsparql.streams import Background, Occurrence
from ceplab.semantics.epsparql.translate import apply_options
from ceplab.semantics.errors import ModelError, UnsupportedError

from ceplab.engine.epsparql.expr import Compiler, to_term

__all__ = ["Evaluator", "NonStratifiedError", "UnsupportedError"]

_canon = lru_cache(maxsize=1 << 16)(canonical_term)
_n3 = lru_cache(maxsize=1 << 16)(n3)


class NonStratifiedError(ModelError):
    """A non-monotone decision (an optional operator's unmatched row) made at tick ``T`` is contradicted by an
    occurrence derived at ``T`` by a CONSTRUCT rule: the Q-closure has no unique stable model (docs/semantics/epsparql.md#epsparql-A13d).
    The engine's counterpart of the oracle's :class:`ceplab.semantics.errors.ModelError` (``count`` is 0: the
    engine does not tell "none" from "several")."""


# ------------------------------------------------------------------------------------------------ codegen
def _fn(src: str) -> Callable:
    return eval(src, {"__builtins__": {}})  # noqa: S307 - generated from integer indices only


def _key_fn(idx: Iterable[int]) -> Callable[[tuple], tuple]:
    idx = list(idx)
    return _fn("lambda v: (" + "".join(f"v[{i}]," for i in idx) + ")")


def _build_fn(spec: list[tuple]) -> Callable[[tuple, tuple], tuple]:
    """``spec``: per output variable ``("l", i)``, ``("r", i)``, ``("m", li, ri)`` (merge of a shared
    maybe-unbound variable) or ``("n",)`` (unbound)."""
    parts = []
    for s in spec:
        if s[0] == "l":
            parts.append(f"l[{s[1]}]")
        elif s[0] == "r":
            parts.append(f"r[{s[1]}]")
        elif s[0] == "m":
            parts.append(f"(l[{s[1]}] if l[{s[1]}] is not None else r[{s[2]}])")
        else:
            parts.append("None")
    return _fn("lambda l, r: (" + "".join(p + "," for p in parts) + ")")


def _compat_fn(pairs: list[tuple[int, int]]) -> Optional[Callable[[tuple, tuple], bool]]:
    if not pairs:
        return None
    conds = [f"(l[{a}] is None or r[{b}] is None or l[{a}] == r[{b}])" for a, b in pairs]
    return _fn("lambda l, r: " + " and ".join(conds))


def _names(vs: Iterable[Variable]) -> tuple[Variable, ...]:
    return tuple(sorted(set(vs), key=str))


# ------------------------------------------------------------------------------------------------ nodes
class _Node:
    """One binarized algebra node."""

    kind = "node"
    deferred = False

    def __init__(self, ev: "Evaluator", names: tuple, label: str) -> None:
        self.ev = ev
        self.id = len(ev.nodes)
        ev.nodes.append(self)
        self.names = names
        self.label = label
        self.parents: list[tuple[_Node, int]] = []
        self.children: list[_Node] = []
        self.sinks: list[tuple] = []
        self.lim: Optional[int] = None       # rows longer than this can never matter (window push-down)
        self.bound: Optional[int] = None     # a Filter's own duration bound
        self.rank = (0, 0)
        self.seen: set = set()
        self.tick: Optional[int] = None
        self.static: frozenset = frozenset()  # timeless rows (docs/semantics/epsparql.md#epsparql-A14 iii): only static matches, no interval

    def compute_static(self) -> frozenset:
        """The node's timeless rows from its children's (computed once, children first).  Default: none -- the
        operands of SEQ/EQUALS/OPTIONAL/OPTIONALSEQ/EQUALSOPTIONAL drop timeless rows (A14 iii)."""
        return frozenset()

    def new_tick(self) -> None:
        if self.seen:
            self.seen = set()

    def emit(self, vals: tuple, ta: int) -> None:
        ev = self.ev
        if self.lim is not None and ev.T - ta > self.lim:
            return
        k = (vals, ta)
        if k in self.seen:
            return
        self.seen.add(k)
        ev.n_rows += 1
        for p, side in self.parents:
            p.receive(side, vals, ta)
        if self.sinks:
            ev._sink(self, vals, ta)

    def receive(self, side: int, vals: tuple, ta: int) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def stored(self) -> int:
        return 0

    def sweep(self, T: int) -> None:
        pass

    # helpers for binary nodes
    def _setup_binary(self, l: "_Node", r: "_Node", lcert: frozenset, rcert: frozenset) -> None:
        """Join keys (shared, certainly bound on both sides), compatibility checks (other shared variables) and
        the output builder."""
        self.children = [l, r]
        shared = set(l.names) & set(r.names)
        keyvars = sorted((x for x in shared if x in lcert and x in rcert), key=str)
        self.keyL = _key_fn(l.names.index(x) for x in keyvars)
        self.keyR = _key_fn(r.names.index(x) for x in keyvars)
        maybe = sorted(shared - set(keyvars), key=str)
        self.compat = _compat_fn([(l.names.index(x), r.names.index(x)) for x in maybe])
        spec = []
        for x in self.names:
            if x in shared:
                spec.append(("l", l.names.index(x)) if x in keyvars else ("m", l.names.index(x), r.names.index(x)))
            elif x in l.names:
                spec.append(("l", l.names.index(x)))
            elif x in r.names:
                spec.append(("r", r.names.index(x)))
            else:
                spec.append(("n",))
        self.build = _build_fn(spec)
        # padding of a row of one side to the output layout (unmatched optional rows, Union)
        self.padL = _fn("lambda v: (" + "".join(
            (f"v[{l.names.index(x)}]," if x in l.names else "None,") for x in self.names) + ")")
        self.padR = _fn("lambda v: (" + "".join(
            (f"v[{r.names.index(x)}]," if x in r.names else "None,") for x in self.names) + ")")


class _Store:
    """A goal store: key -> ([(vals, t_alpha)], [t_omega]) with t_omega non-decreasing."""
    __slots__ = ("d",)

    def __init__(self) -> None:
        self.d: dict = {}

    def add(self, k, vals, ta, tw) -> None:
        b = self.d.get(k)
        if b is None:
            self.d[k] = ([(vals, ta)], [tw])
        else:
            b[0].append((vals, ta))
            b[1].append(tw)

    def size(self) -> int:
        return sum(len(b[0]) for b in self.d.values())

    def sweep(self, limit: int) -> None:
        """Drop the rows with t_omega < limit (then t_alpha < limit too)."""
        dead = []
        for k, (rows, tws) in self.d.items():
            cut = bisect_left(tws, limit)
            if cut:
                del rows[:cut]
                del tws[:cut]
                if not rows:
                    dead.append(k)
        for k in dead:
            del self.d[k]


class _Leaf(_Node):
    """A triple pattern: matches occurrences of its predicate."""
    kind = "triple"

    def __init__(self, ev, tp: A.TriplePattern) -> None:
        terms = (tp.s, tp.p, tp.o)
        names = _names(t for t in terms if isinstance(t, Variable))
        super().__init__(ev, names, f"{tp.s.n3()} {tp.p.n3()} {tp.o.n3()}")
        lines = []
        first: dict = {}
        for pos, t in enumerate(terms):
            arg = "spo"[pos]
            if isinstance(t, Variable):
                if t in first:
                    lines.append(f" if {arg} != {first[t]}: return None")
                else:
                    first[t] = arg
            else:
                if isinstance(t, BNode):
                    raise UnsupportedError("engine: blank nodes in graph patterns must be variables (paper footnote 4)")
                ev._consts.append(canonical_term(t))
                lines.append(f" if {arg} != C[{len(ev._consts) - 1}]: return None")
        lines.append(" return (" + "".join(f"{first[x]}," for x in names) + ")")
        ns: dict = {"C": ev._consts}
        exec("def match(s, p, o):\n" + "\n".join(lines), ns)  # noqa: S102 - generated from the pattern shape
        self.match = ns["match"]
        self.pred = None if isinstance(tp.p, Variable) else canonical_term(tp.p)
        self.tp = tp

    def compute_static(self):
        trs = self.ev.stat_all if self.pred is None else self.ev.stat_by_pred.get(self.pred, ())
        return frozenset(v for v in (self.match(*t) for t in trs) if v is not None)


class _Join(_Node):
    kind = "Join"

    def __init__(self, ev, names, l, r, lc, rc) -> None:
        super().__init__(ev, names, "Join")
        self._setup_binary(l, r, lc, rc)
        self.st = (_Store(), _Store())
        self.swept = None
        self.sidx: tuple = ({}, {})   # the children's timeless rows by join key

    def compute_static(self):
        l, r = self.children
        compat, build = self.compat, self.build
        for side, (c, key) in enumerate(((l, self.keyL), (r, self.keyR))):
            for v in c.static:
                self.sidx[side].setdefault(key(v), []).append(v)
        out = set()
        for k, lvs in self.sidx[0].items():
            for rv in self.sidx[1].get(k, ()):
                for lv in lvs:
                    if compat is None or compat(lv, rv):
                        out.add(build(lv, rv))
        return frozenset(out)

    def receive(self, side, vals, ta):
        T = self.ev.T
        k = self.keyL(vals) if side == 0 else self.keyR(vals)
        self.st[side].add(k, vals, ta, T)
        compat, build, emit = self.compat, self.build, self.emit
        sv = self.sidx[1 - side].get(k)
        if sv:   # timeless partners: in the join, not in the hull (A14 i)
            for ov in sv:
                l, r = (vals, ov) if side == 0 else (ov, vals)
                if compat is None or compat(l, r):
                    emit(build(l, r), ta)
        ob = self.st[1 - side].d.get(k)
        if not ob:
            return
        rows, tws = ob
        lo = bisect_left(tws, T - self.lim) if self.lim is not None else 0
        for j in range(lo, len(rows)):
            ov, ota = rows[j]
            l, r = (vals, ov) if side == 0 else (ov, vals)
            if compat is not None and not compat(l, r):
                continue
            emit(build(l, r), ta if ta < ota else ota)

    def stored(self):
        return self.st[0].size() + self.st[1].size()

    def sweep(self, T):
        if self.lim is None:
            return
        if self.swept is None:
            self.swept = T
        elif T - self.swept > self.lim:
            self.swept = T
            for s in self.st:
                s.sweep(T - self.lim)


class _Seq(_Node):
    kind = "SeqJoin"

    def __init__(self, ev, names, l, r, lc, rc) -> None:
        super().__init__(ev, names, "SeqJoin")
        self._setup_binary(l, r, lc, rc)
        self.st = _Store()
        self.swept = None

    def receive(self, side, vals, ta):
        T = self.ev.T
        if side == 0:
            self.st.add(self.keyL(vals), vals, ta, T)
            return
        ob = self.st.d.get(self.keyR(vals))
        if not ob:
            return
        rows, tws = ob
        hi = bisect_left(tws, ta)                 # left rows ending strictly before this row starts
        lo = bisect_left(tws, T - self.lim) if self.lim is not None else 0
        compat, build, emit = self.compat, self.build, self.emit
        for j in range(lo, hi):
            lv, lta = rows[j]
            if compat is not None and not compat(lv, vals):
                continue
            emit(build(lv, vals), lta)

    def stored(self):
        return self.st.size()

    def sweep(self, T):
        if self.lim is None:
            return
        if self.swept is None:
            self.swept = T
        elif T - self.swept > self.lim:
            self.swept = T
            self.st.sweep(T - self.lim)


class _Eq(_Node):
    kind = "EqJoin"

    def __init__(self, ev, names, l, r, lc, rc) -> None:
        super().__init__(ev, names, "EqJoin")
        self._setup_binary(l, r, lc, rc)
        self.cur = (defaultdict(list), defaultdict(list))

    def new_tick(self):
        super().new_tick()
        if self.cur[0] or self.cur[1]:
            self.cur = (defaultdict(list), defaultdict(list))

    def receive(self, side, vals, ta):
        k = ((self.keyL(vals) if side == 0 else self.keyR(vals)), ta)
        self.cur[side][k].append(vals)
        other = self.cur[1 - side].get(k)
        if not other:
            return
        compat, build, emit = self.compat, self.build, self.emit
        for ov in other:
            l, r = (vals, ov) if side == 0 else (ov, vals)
            if compat is not None and not compat(l, r):
                continue
            emit(build(l, r), ta)


class _Union(_Node):
    kind = "Union"

    def __init__(self, ev, names, l, r, lc, rc) -> None:
        super().__init__(ev, names, "Union")
        self._setup_binary(l, r, lc, rc)

    def compute_static(self):
        l, r = self.children
        return frozenset({self.padL(v) for v in l.static} | {self.padR(v) for v in r.static})

    def receive(self, side, vals, ta):
        self.emit(self.padL(vals) if side == 0 else self.padR(vals), ta)


class _LeftJoin(_Node):
    """``LeftJoin(L, R, F)``: partners end at or before (``optional_end="le"``) / strictly before the left row's
    end; ``F`` sees the mandatory interval (``lj_filter_interval="mandatory"``) or the joined hull."""
    kind = "LeftJoin"

    def __init__(self, ev, names, l, r, lc, rc, test, le: bool, hull: bool) -> None:
        super().__init__(ev, names, "LeftJoin")
        self._setup_binary(l, r, lc, rc)
        self.test, self.le, self.hull = test, le, hull
        self.deferred = le
        self.rst = _Store()
        self.lcur: dict = defaultdict(list)
        self.state: dict = {}
        self.pending: list = []

    def new_tick(self):
        super().new_tick()
        if self.lcur:
            self.lcur = defaultdict(list)
            self.state = {}

    def receive(self, side, vals, ta):
        T = self.ev.T
        test, compat, build, emit = self.test, self.compat, self.build, self.emit
        if side == 1:
            k = self.keyR(vals)
            self.rst.add(k, vals, ta, T)
            if not self.le:
                return
            for lv, lta in self.lcur.get(k, ()):
                if compat is not None and not compat(lv, vals):
                    continue
                out = build(lv, vals)
                a = lta if lta < ta else ta
                if test is not None and not test(out, a if self.hull else lta, T):
                    continue
                st = self.state.get((lv, lta))
                if st == 2:
                    self.ev._non_stratified(self, lv, lta)
                self.state[(lv, lta)] = 1
                emit(out, a)
            return
        k = self.keyL(vals)
        matched = False
        b = self.rst.d.get(k)
        if b:
            rows, tws = b
            hi = len(rows) if self.le else bisect_left(tws, T)
            for j in range(hi):
                rv, rta = rows[j]
                if compat is not None and not compat(vals, rv):
                    continue
                out = build(vals, rv)
                a = ta if ta < rta else rta
                if test is not None and not test(out, a if self.hull else ta, T):
                    continue
                matched = True
                emit(out, a)
        if not self.le:
            if not matched:
                emit(self.padL(vals), ta)
            return
        self.lcur[k].append((vals, ta))
        if matched:
            self.state[(vals, ta)] = 1
        elif (vals, ta) not in self.state:
            self.state[(vals, ta)] = 0
            self.pending.append((vals, ta))
            self.ev.pending.add(self)

    def resolve(self):
        pend, self.pending = self.pending, []
        for lv, lta in pend:
            if self.state.get((lv, lta)) == 0:
                self.state[(lv, lta)] = 2
                self.emit(self.padL(lv), lta)

    def stored(self):
        return self.rst.size()


class _EqLeftJoin(_Node):
    """``EqLeftJoin(L, R, F)``: partners with the same interval; ``F`` sees that interval."""
    kind = "EqLeftJoin"
    deferred = True

    def __init__(self, ev, names, l, r, lc, rc, test) -> None:
        super().__init__(ev, names, "EqLeftJoin")
        self._setup_binary(l, r, lc, rc)
        self.test = test
        self.cur = (defaultdict(list), defaultdict(list))
        self.state: dict = {}
        self.pending: list = []

    def new_tick(self):
        super().new_tick()
        if self.cur[0] or self.cur[1]:
            self.cur = (defaultdict(list), defaultdict(list))
            self.state = {}

    def receive(self, side, vals, ta):
        T = self.ev.T
        test, compat, build, emit = self.test, self.compat, self.build, self.emit
        if side == 1:
            k = (self.keyR(vals), ta)
            self.cur[1][k].append(vals)
            for lv in self.cur[0].get(k, ()):
                if compat is not None and not compat(lv, vals):
                    continue
                out = build(lv, vals)
                if test is not None and not test(out, ta, T):
                    continue
                if self.state.get((lv, ta)) == 2:
                    self.ev._non_stratified(self, lv, ta)
                self.state[(lv, ta)] = 1
                emit(out, ta)
            return
        k = (self.keyL(vals), ta)
        self.cur[0][k].append(vals)
        matched = False
        for rv in self.cur[1].get(k, ()):
            if compat is not None and not compat(vals, rv):
                continue
            out = build(vals, rv)
            if test is not None and not test(out, ta, T):
                continue
            matched = True
            emit(out, ta)
        if matched:
            self.state[(vals, ta)] = 1
        elif (vals, ta) not in self.state:
            self.state[(vals, ta)] = 0
            self.pending.append((vals, ta))
            self.ev.pending.add(self)

    resolve = _LeftJoin.resolve


class _SeqRightJoin(_Node):
    """``SeqRightJoin(O, M, F)``: optional rows ending strictly before the mandatory row starts.  The joined half
    is ``Filter(F, SeqJoin(O, M))`` (combined interval); the blocking test uses the combined interval
    (``srj_filter_interval="combined"``) or the mandatory row's own (``"mandatory"``, as printed)."""
    kind = "SeqRightJoin"

    def __init__(self, ev, names, o, m, oc, mc, test, combined: bool) -> None:
        super().__init__(ev, names, "SeqRightJoin")
        self._setup_binary(o, m, oc, mc)
        self.test, self.combined = test, combined
        self.ost = _Store()

    def receive(self, side, vals, ta):
        T = self.ev.T
        if side == 0:
            self.ost.add(self.keyL(vals), vals, ta, T)
            return
        test, compat, build, emit = self.test, self.compat, self.build, self.emit
        blocked = False
        b = self.ost.d.get(self.keyR(vals))
        if b:
            rows, tws = b
            hi = bisect_left(tws, ta)
            for j in range(hi):
                ov, ota = rows[j]
                if compat is not None and not compat(ov, vals):
                    continue
                out = build(ov, vals)
                ok = test is None or test(out, ota, T)
                if ok:
                    emit(out, ota)
                if self.combined or test is None:
                    blocked = blocked or ok
                elif not blocked:
                    blocked = test(out, ta, T)
        if not blocked:
            emit(self.padR(vals), ta)

    def stored(self):
        return self.ost.size()


class _Filter(_Node):
    kind = "Filter"

    def __init__(self, ev, c, test, bound) -> None:
        super().__init__(ev, c.names, "Filter")
        self.children = [c]
        self.test = test
        self.bound = bound

    def compute_static(self):
        return frozenset(v for v in self.children[0].static if self.test(v, None, None))

    def receive(self, side, vals, ta):
        if self.test(vals, ta, self.ev.T):
            self.emit(vals, ta)


class _Extend(_Node):
    kind = "Extend"

    def __init__(self, ev, names, c, var, fn) -> None:
        super().__init__(ev, names, "Extend")
        self.children = [c]
        self.fn = fn
        spec = [("l", c.names.index(x)) if x in c.names else ("r", 0) for x in names]
        self.build = _build_fn(spec)

    def compute_static(self):
        return frozenset(self.build(v, (self.fn(v, None, None),)) for v in self.children[0].static)

    def receive(self, side, vals, ta):
        x = self.fn(vals, ta, self.ev.T)
        self.emit(self.build(vals, (x,)), ta)


class _Project(_Node):
    kind = "Project"

    def __init__(self, ev, names, c) -> None:
        super().__init__(ev, names, "Project")
        self.children = [c]
        self.proj = _key_fn(c.names.index(x) for x in names)

    def compute_static(self):
        return frozenset(self.proj(v) for v in self.children[0].static)

    def receive(self, side, vals, ta):
        self.emit(self.proj(vals), ta)


class _BGPTriple(_Node):
    """``bgp_mode="per_triple"``: a BGP of >= 2 patterns as one search node over the occurrence history;
    patterns that instantiate to the same triple use the same occurrence (docs/semantics/epsparql.md#epsparql-A3, #epsparql-E10)."""
    kind = "BGP/per_triple"

    def __init__(self, ev, p: A.BGP) -> None:
        super().__init__(ev, _names(A.pattern_vars(p)), "BGP(per_triple)")
        self.tps = [tuple(canonical_term(t) if not isinstance(t, Variable) else t for t in (tp.s, tp.p, tp.o))
                    for tp in p.triples]
        for tp in self.tps:
            if any(isinstance(t, BNode) for t in tp):
                raise UnsupportedError("engine: blank nodes in graph patterns must be variables (paper footnote 4)")

    @staticmethod
    def _unify(tp, triple, b: dict) -> Optional[dict]:
        out = b
        for pt, v in zip(tp, triple):
            if isinstance(pt, Variable):
                cur = out.get(pt)
                if cur is None:
                    if out is b:
                        out = dict(b)
                    out[pt] = v
                elif cur != v:
                    return None
            elif pt != v:
                return None
        return out

    def on_occ(self, s, p, o, ta) -> None:
        T = self.ev.T
        for i, tp in enumerate(self.tps):
            b = self._unify(tp, (s, p, o), {})
            if b is None:
                continue
            rest = [j for j in range(len(self.tps)) if j != i]
            self._search(rest, b, {(s, p, o): (ta, T)}, ta)

    def compute_static(self):
        """Timeless rows: every pattern matched by a static triple (same triple, same static source)."""
        self._static_out = set()
        self._search(list(range(len(self.tps))), {}, {}, None, True)
        out, self._static_out = frozenset(self._static_out), None
        return out

    def _search(self, rest, b, choice, lo, static_only=False) -> None:
        if not rest:
            vals = tuple(b.get(x) for x in self.names)
            if lo is None:
                self._static_out.add(vals)
            else:
                self.emit(vals, lo)
            return
        tp = self.tps[rest[0]]
        pred = tp[1] if not isinstance(tp[1], Variable) else b.get(tp[1])
        ev = self.ev
        srcs = [ev.stat_by_pred.get(pred, ()) if pred is not None else ev.stat_all]   # timeless: (s, p, o)
        if not static_only:
            srcs.append(ev.occ_by_pred.get(pred, ()) if pred is not None else ev.occ_all)
        for occs in srcs:
            for rec in occs:
                s2, p2, o2 = rec[0], rec[1], rec[2]
                a2, w2 = (rec[3], rec[4]) if len(rec) == 5 else (None, None)
                b2 = self._unify(tp, (s2, p2, o2), b)
                if b2 is None:
                    continue
                t = (s2, p2, o2)
                c = choice.get(t)
                if c is not None and c != (a2, w2):
                    continue
                ch2 = choice if c is not None else {**choice, t: (a2, w2)}
                lo2 = lo if a2 is None or (lo is not None and lo < a2) else a2
                self._search(rest[1:], b2, ch2, lo2, static_only)


# ------------------------------------------------------------------------------------------------ evaluator
class Evaluator:
    """The incremental EP-SPARQL evaluator of a :class:`ceplab.semantics.epsparql.ast.QuerySet` (module docstring)."""

    path = ("epsparql/edbc-set: binarized goal stores indexed by join key and end time, no consumption, "
            "bottom-up per-tick delta fixpoint with CONSTRUCT feedback, emission at tick close")

    def __init__(self, qs: A.QuerySet, options: Options = Options(),
                 background: Optional[Background] = None) -> None:
        if not isinstance(options, Options):
            raise TypeError(f"options must be ceplab.semantics.epsparql.options.Options, got {type(options).__name__}")
        self.o = options
        self.background = background
        self._load_background(background)
        self.qs = qs = _apply_options(qs, options)
        self.cx = Compiler(options.tick_seconds, options.filter_errors == "error_is_false")
        self.nodes: list[_Node] = []
        self._consts: list = []
        self._memo: dict = {}
        self.by_pred: dict = defaultdict(list)
        self.any_pred: list[_Leaf] = []
        self.bgp_triple: list[_BGPTriple] = []
        self.occ_by_pred: dict = defaultdict(list)
        self.occ_all: list = []
        self.select_sinks: list[tuple] = []
        self.construct_roots: list[tuple] = []
        qi = 0
        for ci, q in enumerate(qs.queries):
            root = self._build(q.where)
            if isinstance(q, A.Select):
                proj = root.names if q.projection is None else tuple(q.projection)
                idx = [(str(x), root.names.index(x)) for x in dict.fromkeys(proj) if x in root.names]
                sink = ("select", qi, idx)
                self.select_sinks.append(sink)
                root.sinks.append(sink)
                qi += 1
            elif isinstance(q, A.Construct):
                sink = ("construct", ci, self._template(q, root))
                self.construct_roots.append((root, sink))
                root.sinks.append(sink)
            else:
                raise TypeError(f"not a query: {q!r}")
        self.n_selects = qi
        for n in self.nodes:      # children before parents (post-order ids)
            n.static = n.compute_static()
        self._limits()
        self._ranks()
        # state
        self.T: Optional[int] = None
        self.buf: list[Occurrence] = []
        self.pending: set = set()
        self.dq: list = []
        self.occ_seen: set = set()
        self.out: list[Result] = []
        self.sel_rows: list[dict] = [dict() for _ in range(self.n_selects)]
        self.closed = False
        self.n_occ = 0
        self.n_derived = 0
        self.n_rows = 0
        self.n_results = 0
        self.n_ticks = 0

    # ---------------------------------------------------------------- background (docs/semantics/epsparql.md#epsparql-A14)
    def _load_background(self, bg: Optional[Background]) -> None:
        """The RDFS closure of G u O (rdfs2/3/5/7/9/11, no axiomatic triples) as timeless static triples, and the
        static schema used for stream entailment (rdfs2/3/7/9)."""
        self.stat_by_pred: dict = defaultdict(list)
        self.stat_all: list = []
        self.spo: dict = {}
        self.sco: dict = {}
        self.dom: dict = {}
        self.rng: dict = {}
        self.fed: set = set()
        if bg is None:
            return
        trs = set()
        for g in (bg.graph, bg.ontology):
            if g is not None:
                for tr in g:
                    try:
                        trs.add(tuple(canonical_term(t) for t in tr))
                    except ValueError as e:
                        raise UnsupportedError(f"engine: background: {e}") from None
        closure = cached_rdfs_closure(frozenset(trs))
        for tr in sorted(closure, key=lambda t: tuple(_n3(x) for x in t)):
            self.stat_by_pred[tr[1]].append(tr)
            self.stat_all.append(tr)
        for name, d in ((RDFS.subPropertyOf, self.spo), (RDFS.subClassOf, self.sco), (RDFS.domain, self.dom),
                        (RDFS.range, self.rng)):
            for x, _, y in self.stat_by_pred.get(name, ()):
                d.setdefault(x, set()).add(y)

    def _entailed(self, s, p, o) -> set:
        """``{(s,p,o)}`` closed under rdfs2/3/7/9 with the static schema (A14 ii)."""
        out = {(s, p, o)}
        work = [(s, p, o)]
        while work:
            s1, p1, o1 = work.pop()
            new = [(s1, q, o1) for q in self.spo.get(p1, ())]
            if p1 == RDF.type:
                new += [(s1, RDF.type, d) for d in self.sco.get(o1, ())]
            new += [(s1, RDF.type, c) for c in self.dom.get(p1, ())]
            if not isinstance(o1, Literal):
                new += [(o1, RDF.type, c) for c in self.rng.get(p1, ())]
            for t in new:
                if t not in out:
                    out.add(t)
                    work.append(t)
        return out

    def _ingest(self, s, p, o, ta) -> None:
        """Feed an occurrence (input or derived) and, with background, its RDFS entailments (same interval)."""
        if self.background is None:
            self._feed(s, p, o, ta)
            return
        fed = self.fed
        for t in self._entailed(s, p, o):
            k = (t[0], t[1], t[2], ta)
            if k not in fed:
                fed.add(k)
                self._feed(t[0], t[1], t[2], ta)

    # ---------------------------------------------------------------- build
    def _build(self, p: A.Pattern) -> _Node:
        n = self._memo.get(p)
        if n is None:
            n = self._memo[p] = self._make(p)
        return n

    def _link(self, parent: _Node, kids: list[_Node]) -> None:
        for side, c in enumerate(kids):
            c.parents.append((parent, side))

    def _make(self, p: A.Pattern) -> _Node:
        o, cx = self.o, self.cx
        if isinstance(p, A.BGP):
            if not p.triples:
                raise UnsupportedError("engine: empty group pattern (docs/semantics/epsparql.md#epsparql-A20)")
            if len(p.triples) == 1:
                return self._leaf(p.triples[0])
            if o.bgp_mode == "per_triple":
                n = _BGPTriple(self, p)
                self.bgp_triple.append(n)
                return n
            # per_pattern: left-deep Join of the triple patterns, connected patterns first
            rest = list(p.triples)
            order = [rest.pop(0)]
            bound = set(A.pattern_vars(A.BGP((order[0],))))
            while rest:
                j = next((i for i, tp in enumerate(rest) if bound & A.pattern_vars(A.BGP((tp,)))), 0)
                tp = rest.pop(j)
                order.append(tp)
                bound |= A.pattern_vars(A.BGP((tp,)))
            acc: A.Pattern = A.BGP((order[0],))
            for tp in order[1:]:
                acc = A.Join(acc, A.BGP((tp,)))
            return self._build(acc)
        if isinstance(p, A.Filter):
            c = self._build(p.pattern)
            n = _Filter(self, c, cx.test_fn(p.expr, c.names), cx.duration_bound(p.expr))
            self._link(n, [c])
            return n
        if isinstance(p, A.Extend):
            c = self._build(p.pattern)
            if p.var in c.names:
                raise UnsupportedError(f"engine: (... AS ?{p.var}): ?{p.var} is already in scope")
            names = _names(set(c.names) | {p.var})
            if isinstance(p.expr, A.Var) and p.expr.var in c.names:   # (?y AS ?x): the same term
                i = c.names.index(p.expr.var)
                fn = (lambda v, a, w, i=i: v[i])
            else:
                f = cx.value_fn(p.expr, c.names)
                fn = (lambda v, a, w, f=f: to_term(f(v, a, w)))
            n = _Extend(self, names, c, p.var, fn)
            self._link(n, [c])
            return n
        if isinstance(p, A.Project):
            c = self._build(p.pattern)
            names = _names(x for x in p.vars if x in c.names)
            n = _Project(self, names, c)
            self._link(n, [c])
            return n
        if isinstance(p, A.SeqRightJoin):
            l, r = p.optional, p.mandatory
        else:
            l, r = p.left, p.right
        lc, rc = self._build(l), self._build(r)
        lcert, rcert = A.certain_vars(l), A.certain_vars(r)
        names = _names(set(lc.names) | set(rc.names))
        if isinstance(p, A.Join):
            n = _Join(self, names, lc, rc, lcert, rcert)
        elif isinstance(p, A.SeqJoin):
            n = _Seq(self, names, lc, rc, lcert, rcert)
        elif isinstance(p, A.EqJoin):
            n = _Eq(self, names, lc, rc, lcert, rcert)
        elif isinstance(p, A.Union_):
            n = _Union(self, names, lc, rc, frozenset(), frozenset())
        elif isinstance(p, A.LeftJoin):
            n = _LeftJoin(self, names, lc, rc, lcert, rcert, cx.test_fn(p.expr, names),
                          o.optional_end == "le", o.lj_filter_interval == "hull")
        elif isinstance(p, A.EqLeftJoin):
            n = _EqLeftJoin(self, names, lc, rc, lcert, rcert, cx.test_fn(p.expr, names))
        elif isinstance(p, A.SeqRightJoin):
            n = _SeqRightJoin(self, names, lc, rc, lcert, rcert, cx.test_fn(p.expr, names),
                              o.srj_filter_interval == "combined")
        else:
            raise UnsupportedError(f"engine: unknown pattern node {type(p).__name__}")
        self._link(n, [lc, rc])
        return n

    def _leaf(self, tp: A.TriplePattern) -> _Node:
        key = ("tp", tp)
        n = self._memo.get(key)
        if n is None:
            n = self._memo[key] = _Leaf(self, tp)
            if n.pred is None:
                self.any_pred.append(n)
            else:
                self.by_pred[n.pred].append(n)
        return n

    def _template(self, q: A.Construct, root: _Node) -> list[tuple]:
        out = []
        for tp in q.template:
            parts = []
            for t in (tp.s, tp.p, tp.o):
                if isinstance(t, Variable):
                    parts.append(("v", root.names.index(t)) if t in root.names else ("u",))
                elif isinstance(t, BNode):
                    parts.append(("b", str(t)))
                else:
                    parts.append(("c", canonical_term(t)))
            out.append(tuple(parts))
        return out

    def _limits(self) -> None:
        """Window push-down (module docstring): ``lim`` per node, parents before children (ids are post-order)."""
        for n in reversed(self.nodes):
            if n.sinks or not n.parents:
                n.lim = None
                continue
            lim: Optional[int] = -1
            for p, side in n.parents:
                if (p.kind == "LeftJoin" and side == 1) or (p.kind == "SeqRightJoin" and side == 0):
                    via = None
                else:
                    via = p.lim
                    if p.bound is not None:
                        via = p.bound if via is None else min(via, p.bound)
                if via is None:
                    lim = None
                    break
                lim = max(lim, via)
            n.lim = lim

    def _ranks(self) -> None:
        """Topological ranks of the node graph with the CONSTRUCT -> leaf feedback edges (SCCs condensed)."""
        import networkx as nx

        g = nx.DiGraph()
        g.add_nodes_from(n.id for n in self.nodes)
        for n in self.nodes:
            for p, _ in n.parents:
                g.add_edge(n.id, p.id)
        leaves = [n for n in self.nodes if isinstance(n, (_Leaf, _BGPTriple))]
        for root, sink in self.construct_roots:
            for tmpl in sink[2]:
                for lf in leaves:
                    tps = [lf.tp] if isinstance(lf, _Leaf) else [A.TriplePattern(*t) for t in lf.tps]
                    if any(self._may_feed(tmpl, tp) for tp in tps):
                        g.add_edge(root.id, lf.id)
        cond = nx.condensation(g)
        order = {c: i for i, c in enumerate(nx.topological_sort(cond))}
        for n in self.nodes:
            n.rank = (order[cond.graph["mapping"][n.id]], n.id)

    def _may_feed(self, tmpl: tuple, tp: A.TriplePattern) -> bool:
        """Can a template triple produce an occurrence matching ``tp``, also through its RDFS entailments (A14
        ii; conservative: then only the predicate is compared)?"""
        if self.background is None:
            return _may_match(tmpl, tp)
        if tmpl[1][0] != "c" or isinstance(tp.p, Variable):
            return True
        preds = {p for (_, p, _) in self._entailed(URIRef("urn:x:s"), tmpl[1][1], URIRef("urn:x:o"))}
        if RDF.type in preds:
            return True   # a type triple: its class may have superclasses (rdfs9)
        return canonical_term(tp.p) in preds

    # ---------------------------------------------------------------- API
    def push(self, occ: Occurrence) -> list[Result]:
        """Consume the next occurrence; returns the results determined by it (those of the ticks it closes)."""
        if self.closed:
            raise RuntimeError("evaluator is closed")
        s, e = int(occ.start), int(occ.end)
        if e < s:
            raise ValueError(f"occurrence {occ}: end {e} < start {s} (docs/semantics/epsparql.md#epsparql-A2)")
        if self.background is not None and occ.p in SCHEMA_PREDICATES:
            raise UnsupportedError(f"engine: occurrence {occ}: schema triple in the stream; schema triples are "
                                   "timeless "
                                   "background knowledge (docs/semantics/epsparql.md#epsparql-A14 iv)")
        out: list[Result] = []
        if self.T is not None and e < self.T:
            raise ValueError(f"occurrence {occ} arrives out of order (end {e} < current tick {self.T}); "
                             "occurrences must arrive in non-decreasing end time (docs/semantics/epsparql.md#epsparql-A1)")
        if self.T is not None and e > self.T:
            out = self._run_tick()
        self.T = e
        self.buf.append(occ)
        return out

    def close(self) -> list[Result]:
        """End of stream: evaluates the last tick; returns its results."""
        if self.closed:
            return []
        out = self._run_tick() if self.buf else []
        self.closed = True
        return out

    def run(self, occs: Iterable[Occurrence]) -> list[Result]:
        res: list[Result] = []
        for occ in occs:
            res.extend(self.push(occ))
        res.extend(self.close())
        return res

    def stats(self) -> dict:
        return {"occurrences": self.n_occ, "derived": self.n_derived, "rows": self.n_rows,
                "results": self.n_results, "ticks": self.n_ticks, "nodes": len(self.nodes),
                "stored": sum(n.stored() for n in self.nodes), "tick": self.T}

    # ---------------------------------------------------------------- tick
    def _run_tick(self) -> list[Result]:
        T = self.T
        self.n_ticks += 1
        self.out = out = []
        for n in self.nodes:
            n.new_tick()
            n.sweep(T)
        self.occ_seen = seen = set()
        self.fed = set()
        fresh = []
        for occ in self.buf:
            k = (_canon(occ.s), _canon(occ.p), _canon(occ.o), int(occ.start))
            if k not in seen:
                seen.add(k)
                fresh.append(k)
        self.buf = []
        self.n_occ += len(fresh)
        for s, p, o, ta in fresh:
            self._ingest(s, p, o, ta)
        dq = self.dq
        while True:
            while dq:
                k = dq.pop()
                if k in seen:
                    continue
                seen.add(k)
                s, p, o, ta = k
                self.n_derived += 1
                out.append(Derived(_n3(s), _n3(p), _n3(o), ta, T))
                self._ingest(s, p, o, ta)
            if self.pending:
                n = min(self.pending, key=lambda x: x.rank)
                self.pending.discard(n)
                n.resolve()
                continue
            break
        rows = []
        bag = self.o.output == "bag"
        for qi, d in enumerate(self.sel_rows):
            for (mapping, ta), c in d.items():
                rows.append(Row(qi, mapping, ta, T, c if bag else None))
            self.sel_rows[qi] = {}
        rows.sort()
        out.extend(rows)
        self.n_results += len(out)
        self.out = []
        return out

    def _feed(self, s, p, o, ta) -> None:
        for lf in self.by_pred.get(p, ()):
            v = lf.match(s, p, o)
            if v is not None:
                lf.emit(v, ta)
        for lf in self.any_pred:
            v = lf.match(s, p, o)
            if v is not None:
                lf.emit(v, ta)
        if self.bgp_triple:
            rec = (s, p, o, ta, self.T)
            self.occ_by_pred[p].append(rec)
            self.occ_all.append(rec)
            for n in self.bgp_triple:
                n.on_occ(s, p, o, ta)

    def _sink(self, node: _Node, vals: tuple, ta: int) -> None:
        for sink in node.sinks:
            if sink[0] == "select":
                qi, idx = sink[1], sink[2]
                mapping = tuple(sorted((name, _n3(vals[i])) for name, i in idx if vals[i] is not None))
                d = self.sel_rows[qi]
                k = (mapping, ta)
                d[k] = d.get(k, 0) + 1
            else:
                self._construct(sink, node, vals, ta)

    def _construct(self, sink, node: _Node, vals: tuple, ta: int) -> None:
        T = self.T
        tmpl = sink[2]
        drop_solution = self.o.construct_unbound == "drop_solution"
        triples = []
        for parts in tmpl:
            t = []
            for part in parts:
                k = part[0]
                if k == "v":
                    x = vals[part[1]]
                elif k == "c":
                    x = part[1]
                elif k == "b":
                    x = self._skolem(part[1], sink[1], node.names, vals, ta, T)
                else:
                    x = None
                if x is None:
                    break
                t.append(x)
            if len(t) < 3:
                if drop_solution:
                    return
                continue
            triples.append(tuple(t))
        for s, p, o in triples:
            if isinstance(s, Literal) or not isinstance(p, URIRef):
                continue                   # not an RDF triple (SPARQL 1.0 10.2: such triples are dropped)
            self.dq.append((s, p, o, ta))

    def _skolem(self, label: str, qidx: int, names: tuple, vals: tuple, ta: int, tw: int):
        """The Skolem term of blank node ``label`` for one solution (docs/semantics/epsparql.md#epsparql-A13c):
        :func:`ceplab.semantics.epsparql.skolem.skolem`, the definition shared with the oracle."""
        items = [(str(x), n3(v)) for x, v in zip(names, vals) if v is not None]
        return skolem(label, items, ta, tw)

    def _non_stratified(self, node: _Node, vals: tuple, ta: int) -> None:
        row = {str(x): n3(v) for x, v in zip(node.names, vals) if v is not None}
        raise NonStratifiedError(
            f"engine: non-stratified: at tick {self.T} the {node.label} row {row} [{ta},{self.T}] was emitted as "
            "unmatched, but an occurrence derived by a CONSTRUCT rule at the same tick gives it a partner; "
            "the Q-closure has no unique stable model (docs/semantics/epsparql.md#epsparql-A13d)")


SCHEMA_PREDICATES = frozenset({RDFS.subClassOf, RDFS.subPropertyOf, RDFS.domain, RDFS.range})


#: RDF/RDFS vocabulary that only owlrl's extra rules (rdf1, rdfs4a/b, 6, 8, 10, 12, the datatype rule) conclude
#: or key on; renamed to private IRIs before owlrl runs, so that those rules never touch the input's own uses.
_OWLRL_VOCAB = frozenset({RDFS.Resource, RDF.Property, RDFS.Class, RDFS.Literal, RDFS.Datatype,
                          RDFS.ContainerMembershipProperty, RDFS.member})
_PRIVATE = "urn:ceplab:rdfs-closure:"


def rdfs_closure(triples: Iterable[tuple]) -> set:
    """The RDFS closure of a set of triples under rdfs2 (domain), rdfs3 (range, resource objects only), rdfs5,
    rdfs7 (subPropertyOf), rdfs9, rdfs11 (subClassOf); no axiomatic triples (docs/semantics/epsparql.md#epsparql-A14 i; the oracle's ``stat``
    rules in ``asp/epsparql.lp``).

    Computed by owlrl (``DeductiveClosure(RDFS_Semantics, axiomatic_triples=False, datatype_axioms=False)``)
    and cut down to exactly those entailments.  owlrl's RDFS semantics has more rules: rdf1 ``p a
    rdf:Property``, rdfs4a/b ``x a rdfs:Resource``, rdfs6 ``p subPropertyOf p``, rdfs8/10 (``rdfs:Class``),
    rdfs12, the datatype rule, rdfs3 on literal objects and a "same value" rule copying triples between
    literals with equal values (``true``/``1``).  So, before owlrl runs, every literal and every vocabulary term
    those rules key on (:data:`_OWLRL_VOCAB`) is replaced by a private IRI (then no literal rule fires, and the
    input's own ``rdfs:Resource``/``rdfs:Class``/... are plain user terms); afterwards every triple mentioning
    the real vocabulary (conclusions of rdf1/rdfs4) is dropped, the private IRIs are mapped back, triples with
    a literal subject (rdfs3 on a literal and its consequences) are dropped, and a reflexive ``p
    rdfs:subPropertyOf p`` (rdfs6) is kept only if the documented rules derive it: stated, on a cycle, or by
    rdfs7 from ``p X p`` with ``X rdfs:subPropertyOf rdfs:subPropertyOf``.  This is exact provided no input
    triple has ``rdf:type`` or ``rdfs:subPropertyOf`` (whose owlrl-only conclusions would then feed a schema
    about them) or a literal as its subject; for such inputs the closure is computed by the engine's own
    fixpoint of the six rules instead (:func:`_rdfs_fixpoint`).  The test suite cross-checks both against a
    hand-written fixpoint of the six rules."""
    import owlrl
    from rdflib import Graph

    src = set(triples)
    if any(isinstance(s, Literal) or s in (RDF.type, RDFS.subPropertyOf) for s, _p, _o in src):
        return _rdfs_fixpoint(src)
    fwd: dict = {}
    back: dict = {}

    def enc(t):
        if isinstance(t, Literal) or t in _OWLRL_VOCAB:
            e = fwd.get(t)
            if e is None:
                e = fwd[t] = URIRef(f"{_PRIVATE}{len(fwd)}")
                back[e] = t
            return e
        return t

    g = Graph()
    for s, p, o in src:
        g.add((enc(s), enc(p), enc(o)))
    owlrl.DeductiveClosure(owlrl.RDFS_Semantics, improved_datatypes=False, axiomatic_triples=False,
                           datatype_axioms=False).expand(g)
    out = set()
    for tr in g:
        if any(t in _OWLRL_VOCAB for t in tr):
            continue                                                   # rdf1, rdfs4a/b and their consequences
        s, p, o = (back.get(t, t) for t in tr)
        if isinstance(s, Literal):
            continue                                                   # rdfs3 on literal objects and after
        out.add((s, p, o))
    spo = RDFS.subPropertyOf
    refl = {s for s, p, o in out if p == spo and s == o}
    if refl:
        edges = {(s, o) for s, p, o in out if p == spo and s != o}
        meta = {s for s, o in edges if o == spo}                       # X rdfs:subPropertyOf rdfs:subPropertyOf
        for x in refl:
            if (x, spo, x) in src or any((y, x) in edges for y in {o for s, o in edges if s == x}) \
                    or any((x, m, x) in out for m in meta):
                continue
            out.discard((x, spo, x))                                   # rdfs6 only
    return out


def _rdfs_fixpoint(triples: set) -> set:
    """The closure of :func:`rdfs_closure` (rdfs2, rdfs3 on resource objects, rdfs5, rdfs7, rdfs9, rdfs11; no
    axiomatic triples, docs/semantics/epsparql.md#epsparql-A14 i) by a semi-naive fixpoint: each round joins the
    triples new in the last round with all triples.  Used for backgrounds that state something about
    ``rdf:type``, ``rdfs:subPropertyOf`` or a literal, where owlrl's extra rules would leak into the result.

    Args:
        triples: ``(s, p, o)`` rdflib terms.

    Returns:
        the closure as a set of triples.
    """
    spo, sco, dom, rng = RDFS.subPropertyOf, RDFS.subClassOf, RDFS.domain, RDFS.range
    out = set(triples)
    by_p: dict = defaultdict(set)        # p -> {(s, o)}
    for s, p, o in out:
        by_p[p].add((s, o))
    delta = set(out)
    while delta:
        new = set()

        def add(tr):
            if tr not in out:
                new.add(tr)

        for s, p, o in delta:
            for (x, q) in list(by_p[spo]):
                if x == p:
                    add((s, q, o))                               # rdfs7 (new instance triple)
            for (x, c) in list(by_p[dom]):
                if x == p:
                    add((s, RDF.type, c))                        # rdfs2
            if not isinstance(o, Literal):
                for (x, c) in list(by_p[rng]):
                    if x == p:
                        add((o, RDF.type, c))                    # rdfs3
            if p == RDF.type:
                for (x, d) in list(by_p[sco]):
                    if x == o:
                        add((s, RDF.type, d))                    # rdfs9
            if p == sco:
                for (x, e) in list(by_p[sco]):
                    if x == o:
                        add((s, sco, e))                         # rdfs11 (new left)
                    if e == s:
                        add((x, sco, o))                         # rdfs11 (new right)
                for (x, y) in list(by_p[RDF.type]):
                    if y == s:
                        add((x, RDF.type, o))                    # rdfs9 (new schema triple)
            if p == spo:
                for (x, r) in list(by_p[spo]):
                    if x == o:
                        add((s, spo, r))                         # rdfs5 (new left)
                    if r == s:
                        add((x, spo, o))                         # rdfs5 (new right)
                for (a, b) in list(by_p[s]):
                    add((a, o, b))                               # rdfs7 (new schema triple)
            if p == dom:
                for (a, _b) in list(by_p[s]):
                    add((a, RDF.type, o))                        # rdfs2 (new schema triple)
            if p == rng:
                for (_a, b) in list(by_p[s]):
                    if not isinstance(b, Literal):
                        add((b, RDF.type, o))                    # rdfs3 (new schema triple)
        for s, p, o in new:
            by_p[p].add((s, o))
        out |= new
        delta = new
    return out


@lru_cache(maxsize=4)
def cached_rdfs_closure(triples: frozenset) -> frozenset:
    """:func:`rdfs_closure` memoised on the (canonical) input triples: evaluators over the same background
    compute its closure once."""
    return frozenset(rdfs_closure(triples))


def _may_match(tmpl: tuple, tp: A.TriplePattern) -> bool:
    """Can a template triple (compiled parts) produce an occurrence matching the leaf pattern ``tp``?"""
    for part, t in zip(tmpl, (tp.s, tp.p, tp.o)):
        if part[0] == "c" and not isinstance(t, Variable) and part[1] != canonical_term(t):
            return False
    return True


def _apply_options(qs: A.QuerySet, options: Options) -> A.QuerySet:
    """The parse-level switch ``optional_filter`` (docs/semantics/epsparql.md#epsparql-A8, #epsparql-E5): ``ceplab.semantics.epsparql.translate.apply_options``,
    exactly as the oracle applies it."""
    return apply_options(qs, options)
