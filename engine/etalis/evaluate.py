"""Event-driven backward chaining, UNRESTRICTED policy (docs/semantics/etalis.md#etalis-3.1 to #etalis-3.11 and #etalis-9.5).

Binarization (3.1): every pattern node of every event rule (after folding ``event_rule_window`` in as
``(body).w``) is a node with a tuple of the variables it binds (the oracle's ``V_n``, docs/semantics/etalis.md#etalis-9.2).  The
children of a binary operator or of ``not`` keep a *goal store*: their instances indexed by the values of the
variables shared with the sibling(s) (3.2).  An incoming stream event, and every derived event (recursion), is
dispatched to the event-atom leaves of its predicate (3.3, ``for_each``).  A new instance of a node is joined
with *all* stored instances of its sibling (unrestricted: nothing is consumed, A10), with the relation and hull
of docs/semantics/etalis.md#etalis-2.6; a new instance at the root of a rule derives the head, which is fed back.

Timing (9.5): events arrive in non-decreasing end time.  Every derived instance ends at the latest end of its
ingredients (hull), so everything derived while the clock is at ``t`` ends at ``t``; within one time step the
derivation is monotone, because ``not(p1).[p2,p3]`` only consults ``p1`` instances ending before ``s3 <= t``,
which are final (time stratification, docs/semantics/etalis.md#etalis-2.4).  Hence each result is emitted by the push that derives it.
Time points ``q`` (A19) are injected when the clock reaches ``q`` (at the first event with end >= q, or at
``close()``); results that end at a time point are emitted then.

Garbage collection (3.11 / 9.5.4): windows are pushed down.  A new instance longer than the tightest window
on its node or above it is dropped (hull monotonicity); a *stored* instance is swept once ``clock - start``
exceeds the tightest window *strictly above* its node (the join that uses it happens at its parent, so a
window on the node itself does not bound the later result; found by the differential test).  Without
windows, stores grow without bound.

Where-conditions follow the oracle's compilation exactly: negation normal form (``\\+`` pushed to the
literals, a negated comparison is the complementary comparison), integer arithmetic ``+ - * // rem mod ** ^
abs min max`` (``//`` and ``rem`` truncate toward zero; undefined arithmetic on non-integers makes the literal
false in either polarity), comparisons of non-integers in the total order of :func:`order_key` (the order clingo
puts on the oracle's term representation, re-implemented here).  The static model (LHM of the static rules,
docs/semantics/etalis.md#etalis-1.2) is computed once at build time by a naive bottom-up fixpoint (:func:`static_model`).

The engine shares nothing with the oracle but ``semantics/``: the rule front end (binarization into nodes, the
rejection of arithmetic in event patterns and of A6 negation clashes) is
:mod:`ceplab.semantics.etalis.binarize`; the integer-data restrictions are checked here
(:func:`check_integer_program`).  Source: Anicic et al. 2012, "Stream reasoning and complex event processing in
ETALIS", Semantic Web 3(4), section 3 (event-driven backward chaining).

Options: ``not_local_vars``, ``proper_intervals_only``, ``window``, ``not_reading``, ``during_result`` and the
relation switches ``par_overlap``, ``starts_end``, ``during_bounds``, ``finishes_start``
(docs/semantics/etalis.md#etalis-A23 to #etalis-A26; every result is still the hull of its operands, or the
contained operand under ``during_result``) are implemented.  Without a ``during`` node ``during_result="contained"``
changes nothing; with one, GC is disabled (a result may end before the clock) and, when the program also has
``not``, see "Contained DURING with not(..)".

Contained DURING with not(..) (docs/semantics/etalis.md#etalis-A5, #etalis-9.5.9).  ``p1 during p2`` with
``during_result="contained"`` yields ``<s1,e1>``, which ends before the container that completes it, so an instance
can be derived after the clock has passed its end (a *late* instance).  A blocker of ``not(p1).[p2,p3]`` lies strictly
inside the gap (``e2 < s1 <= e1 < s3``), but a late blocker can be derived after the gap was checked, and since the
contained result depends positively on a strictly larger container the program is no longer stratified by time or
length: negative cycles are possible and the oracle may find no or several answer sets.  :func:`late_analysis` marks
statically which nodes can produce late instances, which NOT nodes are *unsettled* (late blockers; for the literal
reading also late delimiters) and which rules depend on an unsettled NOT node (*held* rules).  Results of settled
rules are exact when derived and are emitted live as usual; results of held rules are **held** and decided at
``close()`` on the whole stream, **outside the incremental guarantee** (no result of a held rule is emitted before
``close()``), by Van Gelder's alternating fixpoint (:meth:`Evaluator.well_founded`): the least model of the reduct
w.r.t. a fixed set of blocking atoms is computed by a fresh run of this engine in which each gap consults that set
instead of the blocker store (overestimate from the empty set, then the blocking atoms of the overestimate give the
underestimate, ...), until the two meet.  A total well-founded model is the unique answer set, which is what the oracle
answers; otherwise the answer sets between the two are searched by branching on the undefined blocking atoms (each
branch narrowed by the same fixpoint), and no answer set or several raise
:class:`~ceplab.semantics.errors.ModelError` naming the rules, as the oracle does.  Cost: every decision re-runs the
whole stream a few times (twice per round of the fixpoint), on top of the stores that ``contained`` keeps unswept.

``not_reading="literal"`` (Figure 2 verbatim, docs/semantics/etalis.md#etalis-A7): ``<s,e>`` holds iff some gap
``p2<s,e2>, p3<s3,e>`` (``e2 < s3``) exists and *no* gap with the same hull and values is blocked.  This is not
monotone in the events arriving at ``e``: a later event at the same time can bring a p3 instance ``<s3',e>`` whose
gap with the same hull is blocked, which removes the result.  The engine therefore **defers** such results until
the time step is complete instead of emitting and retracting them: a literal NOT node keeps, per hull and values,
"some gap seen" and "some gap blocked" while the clock is at ``e`` (blockers end before ``s3 <= e``, so they are
final), and when the clock moves past ``e`` (an event with a later end, a later time point, or ``close()``) it
releases the unblocked hulls as instances, which then propagate as usual and are emitted by that push.  Releasing
in order of decreasing start is exact: an instance derived from a released hull ``<s,e>`` starts at or before
``s``, so as a p3 it can only form gaps whose hull starts strictly before ``s`` (local stratification by interval
length, docs/semantics/etalis.md#etalis-2.4), i.e. it never changes a hull already released.  Deferring (not
retracting) is what the Evaluator contract asks: every result is emitted once, and a literal result at ``e`` is
determined only when no further event at ``e`` can arrive.  Results that do not depend on a literal NOT instance at
their end time are still emitted by the push that derives them.
"""
from __future__ import annotations

from collections import defaultdict, deque
from fractions import Fraction
from functools import lru_cache
from typing import Any, Iterator, Optional

from ceplab.semantics.errors import ModelError, UnsupportedError
from ceplab.semantics.etalis import ast as A
from ceplab.semantics.etalis.analysis import check_termination_under, pattern_vars
from ceplab.semantics.etalis.binarize import Node, binarize
from ceplab.semantics.etalis.options import AGGREGATE_SENTINELS, Options

__all__ = ["Evaluator", "ModelError", "UnsupportedError", "blocking_key", "check_integer_program",
           "late_analysis", "order_key", "static_model"]

Result = tuple[str, int, int]

_CMP = {"<": "<", ">": ">", "=<": "<=", "<=": "<=", ">=": ">=", "=:=": "=", "=\\=": "!=", "==": "=",
        "\\==": "!=", "=": "=", "\\=": "!=", "!=": "!="}
_NEG = {"<": ">=", ">=": "<", ">": "<=", "<=": ">", "=": "!=", "!=": "="}


# ------------------------------------------------------------------------------------------------ terms
_ARITH = {("+", 2), ("-", 2), ("*", 2), ("//", 2), ("rem", 2), ("mod", 2), ("**", 2), ("^", 2), ("min", 2),
          ("max", 2), ("-", 1), ("abs", 1)}


@lru_cache(maxsize=100_000)
def order_key(t: A.Term) -> tuple:
    """Sort key of a ground value (AST term, integers as ``Num``) for ``< =< > >=`` on non-integers.

    The order is the one clingo puts on the oracle's term representation (integers; the empty list ``l``;
    atoms as strings; then compound terms by arity, then name, then arguments: ``q(text)`` for strings,
    ``l(items..)`` for lists, ``c("f",args..)`` for ``f(args..)``), written here without clingo: integers <
    ``[]`` < atoms (by text) < compounds.  Strings compare by code point (the oracle's NUL and surrogate
    escapes are not modelled).

    Raises:
        TypeError: ``t`` is not a ground term.
    """
    if isinstance(t, A.Num):
        v = t.value
        if isinstance(v, Fraction):      # the oracle's r(P,Q) (an avg value, #etalis-4.4), inside a compound
            return (3, 2, "r", ((0, v.numerator), (0, v.denominator)))
        return (0, v)
    if isinstance(t, A.List) and not t.items:
        return (1,)
    if isinstance(t, A.Sym):
        return (2, t.name)
    if isinstance(t, A.Str):
        return (3, 1, "q", ((2, t.value),))
    if isinstance(t, A.List):
        return (3, len(t.items), "l", tuple(order_key(i) for i in t.items))
    if isinstance(t, A.Compound):
        return (3, len(t.args) + 1, "c", ((2, t.functor),) + tuple(order_key(a) for a in t.args))
    raise TypeError(f"not a ground value: {t!r}")


def _check_term(t: A.Term, where: object) -> None:
    if isinstance(t, A.Num) and isinstance(t.value, float):
        raise UnsupportedError(f"engine: float {t.value!r} in {where}: the engine uses integer arithmetic only, as "
                               "the oracle; scale real-valued data to integers (docs/semantics/etalis.md#etalis-9.1)")
    if isinstance(t, A.List):
        for i in t.items:
            _check_term(i, where)
    elif isinstance(t, A.Compound):
        if t.is_arithmetic and (t.functor, len(t.args)) not in _ARITH:
            raise UnsupportedError(f"engine: arithmetic {t} in {where} is not supported (integer + - * // rem mod "
                                   "** ^ abs min max only; '/' may produce floats)")
        for a in t.args:
            _check_term(a, where)


def _check_cond(c: A.Cond, where: object) -> None:
    for it in A.cond_items(c):
        if isinstance(it, A.StaticAtom):
            for a in it.args:
                _check_term(a, where)
        elif isinstance(it, A.Is):
            _check_term(it.var, where)
            _check_term(it.expr, where)
        elif isinstance(it, A.Cmp):
            _check_term(it.left, where)
            _check_term(it.right, where)


def check_integer_program(program: A.Program) -> None:
    """Reject what the engine does not evaluate: floats anywhere in ``program`` and arithmetic other than integer
    ``+ - * // rem mod ** ^ abs min max`` (docs/semantics/etalis.md#etalis-9.1).

    Args:
        program: a parsed :class:`ceplab.semantics.etalis.ast.Program`.

    Raises:
        UnsupportedError: the first offending term (the message names it and its rule).
    """
    for s in program.static_rules:
        for a in s.head.args:
            _check_term(a, s)
        if s.body is not None:
            _check_cond(s.body, s)
    for r in program.event_rules:
        for a in r.head.args:
            _check_term(a, r)
        for n in A.pattern_nodes(program.effective_body(r)):
            if isinstance(n, A.EventAtom):
                for a in n.args:
                    _check_term(a, r)
            elif isinstance(n, A.Where):
                _check_cond(n.cond, r)


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _arith(t: A.Term, env: dict) -> Optional[int]:
    """Integer value of an arithmetic term, None when undefined (as clingo: the rule instance is dropped)."""
    if isinstance(t, A.Var):
        v = env.get(t.name)
        return v.value if isinstance(v, A.Num) and isinstance(v.value, int) else None
    if isinstance(t, A.Num):
        return t.value if isinstance(t.value, int) else None
    if isinstance(t, A.Compound) and t.is_arithmetic:
        args = [_arith(a, env) for a in t.args]
        if any(a is None for a in args):
            return None
        f = t.functor
        if len(args) == 2:
            a, b = args
            if f == "+":
                return a + b
            if f == "-":
                return a - b
            if f == "*":
                return a * b
            if f in ("//", "rem", "mod"):
                if b == 0:
                    return None
                r = a - b * _trunc_div(a, b)
                if f == "//":
                    return _trunc_div(a, b)
                if f == "rem":
                    return r
                r2 = r + b
                return r2 - b * _trunc_div(r2, b)
            if f in ("**", "^"):
                if b < 0:
                    return None if a == 0 else (a if abs(a) == 1 and b % 2 else (1 if abs(a) == 1 else 0))
                return a ** b
            if f == "min":
                return min(a, b)
            if f == "max":
                return max(a, b)
        if len(args) == 1:
            if f == "-":
                return -args[0]
            if f == "abs":
                return abs(args[0])
        return None
    return None


def _value(t: A.Term, env: dict) -> Optional[A.Term]:
    """A term under ``env`` as a ground value (AST term, integers as ``Num``); None when undefined."""
    if isinstance(t, A.Var):
        return env.get(t.name)
    if isinstance(t, (A.Num, A.Sym, A.Str)):
        return t
    if isinstance(t, A.List):
        items = tuple(_value(i, env) for i in t.items)
        return None if any(i is None for i in items) else A.List(items)
    if isinstance(t, A.Compound):
        if t.is_arithmetic:
            v = _arith(t, env)
            return None if v is None else A.Num(v)
        args = tuple(_value(a, env) for a in t.args)
        return None if any(a is None for a in args) else A.Compound(t.functor, args)
    raise TypeError(t)


def _unify(p: A.Term, g: A.Term, env: dict) -> bool:
    """Match pattern term ``p`` against ground value ``g``, extending ``env`` in place."""
    if isinstance(p, A.Var):
        if p.name == "_":
            return True
        v = env.get(p.name)
        if v is None:
            env[p.name] = g
            return True
        return v == g
    if isinstance(p, (A.Num, A.Sym, A.Str)):
        return p == g
    if isinstance(p, A.List):
        return (isinstance(g, A.List) and len(g.items) == len(p.items)
                and all(_unify(a, b, env) for a, b in zip(p.items, g.items)))
    if isinstance(p, A.Compound):
        if p.is_arithmetic:
            v = _value(p, env)
            return v is not None and v == g
        return (isinstance(g, A.Compound) and g.functor == p.functor and len(g.args) == len(p.args)
                and all(_unify(a, b, env) for a, b in zip(p.args, g.args)))
    raise TypeError(p)


def _compare(a: A.Term, op: str, b: A.Term) -> bool:
    if op == "=":
        return a == b
    if op == "!=":
        return a != b
    na, nb = isinstance(a, A.Num), isinstance(b, A.Num)
    if na and nb:                        # numerically, also an avg's fraction (docs/semantics/etalis.md#etalis-4.4)
        x, y = a.value, b.value
    elif na or nb:                       # numbers before everything else
        x, y = not na, not nb
    else:
        x, y = order_key(a), order_key(b)
    if op == "<":
        return x < y
    if op == "<=":
        return x <= y
    if op == ">":
        return x > y
    if op == ">=":
        return x >= y
    raise ValueError(op)


def admit(event: Any, clock: Optional[int], closed: bool) -> tuple[int, int]:
    """Check the next stream event for an evaluator at ``clock``; returns its ``(start, end)`` in ticks.

    Raises:
        RuntimeError: the evaluator is closed.
        ValueError: ``end < start``, or the event ends before the clock (out of order, docs/semantics/etalis.md#etalis-9.5.7).
        UnsupportedError: floats or non-ground arguments (the oracle's integer data).
    """
    if closed:
        raise RuntimeError("evaluator is closed")
    s, e = int(event.start), int(event.end)
    if e < s:
        raise ValueError(f"event {event}: end < start")
    if clock is not None and e < clock:
        raise ValueError(f"event {event} arrives out of order (end {e} < clock {clock}); events must "
                         "arrive in non-decreasing end time (docs/semantics/etalis.md#etalis-9.5.7)")
    for a in event.atom.args:
        if not _ground_int_terms(a):
            raise UnsupportedError(f"engine: stream event {event.atom}: floats/non-ground terms are not supported "
                                   "(integer data, as in the clingo oracle)")
    return s, e


def link(parent: Any, kids: list[tuple[Any, str]]) -> None:
    """Make ``parent`` the parent of each ``(child, side)`` of ``kids`` (binarization tree)."""
    for c, side in kids:
        c.parent = parent
        c.side = side
        parent.children.append(c)


# ------------------------------------------------------------------------------------------------ variables


# ------------------------------------------------------------------------------------------------ nodes
class _Node:
    """One binarized sub-pattern (goal store of its parent's join)."""
    __slots__ = ("id", "p", "kind", "names", "parent", "side", "children", "rule", "q", "stored", "store",
                 "seen", "key_idx", "build", "never_blocks", "count", "swept", "gq", "nkey", "literal", "pending",
                 "agg")

    def __init__(self, bn: Node, q: Optional[int]) -> None:
        self.id = bn.id
        self.p = bn.pattern
        self.kind = bn.kind
        self.names: tuple[str, ...] = bn.names
        self.parent: Optional[_Node] = None
        self.side = ""
        self.children: list[_Node] = []
        self.rule = bn.rule
        self.q = q                      # tightest window on the node or above it: longer instances are dead
        self.gq = q                     # tightest window strictly above it: GC of stored instances
        self.stored = False             # parent joins on this node's instances
        self.store: dict[tuple, list] = defaultdict(list)
        self.seen: set = set()
        self.key_idx: tuple[int, ...] = ()
        self.build: tuple = ()          # how the parent tuple is built from (left, right) values
        self.never_blocks = False
        self.nkey: tuple[int, ...] = ()  # NOT node: gap tuple positions -> negated store key
        self.count = 0
        self.swept = None
        self.literal = False            # NOT node read literally (not_reading="literal")
        self.pending: dict[tuple, bool] = {}   # literal NOT: (vals, s, e) at the clock -> some gap blocked
        self.agg: tuple = ()            # aggregate node: (function, index of the value in the item's tuple, initial)


def late_analysis(nodes: list, roots: list) -> tuple[frozenset, tuple, frozenset]:
    """Which results of a ``during_result="contained"`` program the engine must hold (module docstring, "Contained
    DURING with not(..)"; docs/semantics/etalis.md#etalis-9.5.9).

    A node is *late* when an instance of it can be derived after the clock has passed its end: a contained DURING
    node (its result ``<s1,e1>`` ends before the container ``<s2,e2>`` that completes it), a node with a late operand
    (the hull of a late instance and stored ones may end before the clock; for ``not`` only the delimiters count,
    its interval is their hull), a leaf of a predicate that some rule with a late root derives.  A NOT node is
    *unsettled* when a gap's verdict can change after the gap is formed: its blockers are late (a blocker ending
    before ``s3`` can be derived after the gap), or it is read literally and a delimiter is late (a later gap with
    the same hull can hide a released one).  A node is *held* when it is an unsettled NOT node or depends on a held
    node (through any child, the blockers included, or through a leaf of a predicate derived by a held rule).

    Args:
        nodes: the engine nodes (``_Node``, ids in pre-order, ``children`` ``[start, end, negated]`` for NOT).
        roots: ``(root node, event rule)`` per rule.

    Returns:
        ``(late node ids, unsettled NOT nodes, indices of the rules whose root is held)``.
    """
    heads: dict[tuple[str, int], list] = defaultdict(list)
    for root, r in roots:
        heads[r.head.key].append(root)

    def fixpoint(seed, flows) -> set[int]:
        marked: set[int] = set()
        changed = True
        while changed:
            changed = False
            for n in nodes:
                if n.id in marked:
                    continue
                if seed(n) or any(c.id in marked for c in flows(n)) or (
                        n.kind == "EventAtom" and any(r.id in marked for r in heads.get(n.p.key, ()))):
                    marked.add(n.id)
                    changed = True
        return marked

    late = fixpoint(lambda n: n.kind == "during",
                    lambda n: n.children[:2] if n.kind == "Not" else n.children)
    unsettled = tuple(n for n in nodes if n.kind == "Not" and (
        n.children[2].id in late or (n.literal and (n.children[0].id in late or n.children[1].id in late))))
    ids = {n.id for n in unsettled}
    held = fixpoint(lambda n: n.id in ids, lambda n: n.children)
    return frozenset(late), unsettled, frozenset(root.rule for root, _ in roots if root.id in held)


def blocking_key(p: Any, vals: tuple, s: int, e2: int, s3: int, e: int) -> tuple:
    """The ground blocking atom a gap ``p2<s,e2>, p3<s3,e>`` of NOT node ``p`` with values ``vals`` is negated on:
    per witness ``(node, vals, e2, s3)`` (the gap itself, Algorithm 3.4), literal ``(node, vals, s, e)`` (its hull,
    Figure 2; docs/semantics/etalis.md#etalis-A7)."""
    return (p.id, vals, s, e) if p.literal else (p.id, vals, e2, s3)


class Evaluator:
    """Incremental unrestricted ETALIS evaluator (see the module docstring)."""

    path = "etalis/edbc-unrestricted: binarized goal stores, all-pairs joins, per-timestamp monotone fixpoint"
    path_literal = ("etalis/edbc-unrestricted: binarized goal stores, all-pairs joins, per-timestamp fixpoint; "
                    "literal NOT (Figure 2 on hulls) held until its time step is complete, then released by "
                    "decreasing start")
    path_held = ("; during_result=contained with not(..): results depending on a NOT whose blockers (read literally: "
                 "also delimiters) can come late from a contained DURING are held and decided at close() by the "
                 "alternating fixpoint (well-founded model), outside the incremental guarantee")

    def __init__(self, program: A.Program, options: Options = Options(), *,
                 _reduct: Optional[frozenset] = None, _static: Optional[dict] = None) -> None:
        """Build the goal stores of ``program`` (see the class and module docstrings).

        Args:
            program: a parsed :class:`ceplab.semantics.etalis.ast.Program`.
            options: :class:`ceplab.semantics.etalis.options.Options` with ``policy="unrestricted"``.
            _reduct: internal (:meth:`_reduct_run`): evaluate the reduct of the program w.r.t. this fixed set of
                blocking keys (:func:`blocking_key`) instead of consulting the blocker stores: a gap yields its NOT
                instance iff its key is not in the set; every gap is recorded in ``self.gaps``.
            _static: internal: the static model, when already computed (:func:`static_model`).

        Raises:
            UnsupportedError: floats, ``/`` (:func:`check_integer_program`), arithmetic in event patterns, A6
                negation clashes (:mod:`ceplab.semantics.etalis.binarize`).
        """
        check_integer_program(program)     # floats, '/' (the engine's own integer-data check)
        check_termination_under(program, options)   # A14 under the relation switches (A24-A26, A5)
        roots = binarize(program)          # the shared front end: arithmetic in patterns, NOT clash (A6)
        self.program = program
        self.rules = program.event_rules   # a property that filters the statements: read once
        self.texts: dict = {}              # (name, args) -> result atom text (_text)
        self.o = options
        nodes = [n for r in program.event_rules for n in A.pattern_nodes(program.effective_body(r))]
        has_during = any(isinstance(n, A.Binary) and n.op == "during" for n in nodes)
        # without a DURING node the switch changes nothing: the program runs as under "container"
        contained = options.during_result == "contained" and has_during
        self.contained = contained
        self.reduct = _reduct
        self.gaps: list[tuple] = []        # reduct run: every gap (NOT node, values, s, e2, s3, e)
        self.derived = program.derived_predicates()
        self.static = static_model(program) if _static is None else _static
        self.nodes: list[_Node] = []
        self.leaves: dict[tuple[str, int], list[_Node]] = defaultdict(list)
        self.points: list[tuple[int, _Node]] = []
        self.roots: list[tuple[_Node, A.EventRule]] = []
        for r, bn in zip(program.event_rules, roots):
            self.roots.append((self._build(bn), r))
        self.points.sort(key=lambda x: x[0])
        self.gc_nodes = [n for n in self.nodes if n.gq is not None]   # the nodes whose stores the GC sweeps
        self.literal_nodes = [n for n in self.nodes if n.literal]
        if self.literal_nodes:
            self.path = self.path_literal
        # during_result=contained with not(..): the rules whose results may still be invalidated by a late blocker
        self.late, self.unsettled_nots, self.held_rules = (
            late_analysis(self.nodes, self.roots) if contained and _reduct is None
            else (frozenset(), (), frozenset()))
        if self.held_rules:
            self.path += self.path_held
        self.events: list = []           # contained: the whole stream, kept for well_founded()
        self.emitted: set[Result] = set()   # held rules only: results already emitted
        self._pi = 0                     # next time point to inject
        self.clock: Optional[int] = None
        self.ev_seen: set = set()
        self.work: list = []
        self.out: list[Result] = []
        self.n_events = 0
        self.n_results = 0
        self.n_facts = 0
        self.closed = False

    # ---------------------------------------------------------------- build
    def _build(self, bn: Node) -> _Node:
        """The engine node of front-end node ``bn`` and of its subtree (same ids, pre-order)."""
        n = _Node(bn, None if self.contained else bn.window)
        n.gq = None if self.contained or bn.parent is None else bn.parent.window
        assert n.id == len(self.nodes)
        self.nodes.append(n)
        p = bn.pattern
        if isinstance(p, A.EventAtom):
            self.leaves[p.key].append(n)
        elif isinstance(p, A.TimePoint):
            self.points.append((int(p.value), n))
        elif isinstance(p, (A.Window, A.Where)):
            c = self._build(bn.children[0])
            self._link(n, [(c, "c")])
        elif isinstance(p, A.Binary):
            lc = self._build(bn.children[0])
            rc = self._build(bn.children[1])
            self._link(n, [(lc, "l"), (rc, "r")])
            if p.op != "or":
                shared = sorted(set(lc.names) & set(rc.names))
                for c in (lc, rc):
                    c.stored = True
                    c.key_idx = tuple(c.names.index(x) for x in shared)
                n.build = tuple((0, lc.names.index(x)) if x in lc.names else (1, rc.names.index(x))
                                for x in n.names)
            else:
                n.build = (tuple(lc.names.index(x) for x in n.names), tuple(rc.names.index(x) for x in n.names))
        elif isinstance(p, A.Not):
            sc = self._build(bn.children[0])
            ec = self._build(bn.children[1])
            nc = self._build(bn.children[2])
            self._link(n, [(sc, "s"), (ec, "e"), (nc, "n")])
            shared = sorted(set(sc.names) & set(ec.names))
            for c in (sc, ec):
                c.stored = True
                c.key_idx = tuple(c.names.index(x) for x in shared)
            n.build = tuple((0, sc.names.index(x)) if x in sc.names else (1, ec.names.index(x))
                            for x in n.names)
            nshared = sorted(set(nc.names) & set(n.names))
            nc.stored = True
            nc.key_idx = tuple(nc.names.index(x) for x in nshared)
            n.nkey = tuple(n.names.index(x) for x in nshared)   # gap tuple -> negated store key
            local = pattern_vars(p.negated) - set(n.names)
            n.never_blocks = bool(local) and self.o.not_local_vars == "free"
            n.literal = self.o.not_reading == "literal"
        elif isinstance(p, A.Aggregate):
            # the start child keeps one record per start instance in its store (swept by the GC as instances are):
            # [values, s1, e1, time of the pending items, aggregate before that time, aggregate of the pending items];
            # with a count window N: [.., .., .., .., deque of (end, values) of the last items before that time,
            # values of the pending items]
            sc = self._build(bn.children[0])
            ic = self._build(bn.children[1])
            self._link(n, [(sc, "a"), (ic, "i")])
            setup_aggregate(n, sc, ic, p, self.o)
        else:
            raise TypeError(p)
        return n

    _link = staticmethod(link)

    # ---------------------------------------------------------------- API
    def update(self, event: Any) -> None:
        """Consume the next stream event (``StreamEvent``: ground atom, start, end); ends must not decrease."""
        s, e = admit(event, self.clock, self.closed)
        self.out = []
        if self.contained and self.reduct is None:
            self.events.append(event)   # kept for well_founded() (contained: the stores keep everything anyway)
        self._advance(e)
        self.n_events += 1
        self._derive(event.atom.name, tuple(event.atom.args), s, e)
        self._run()

    def outputs(self) -> Iterator[Result]:
        """The results determined by the last ``update`` (or ``close``)."""
        return iter(self.out)

    def push(self, event: Any) -> list[Result]:
        self.update(event)
        return list(self.out)

    def close(self) -> list[Result]:
        """End of stream: inject the remaining time points; returns the results ending at them."""
        self.out = []
        if not self.closed:
            while self._pi < len(self.points):
                self._advance(self.points[self._pi][0])
                self._run()
            self._release()               # the last time step is complete
            self.closed = True
            if self.held_rules:
                self._emit_decided()
        return list(self.out)

    def run(self, events) -> list[Result]:
        res: list[Result] = []
        for ev in events:
            res.extend(self.push(ev))
        res.extend(self.close())
        return res

    def stats(self) -> dict:
        return {"events": self.n_events, "results": self.n_results, "instances": self.n_facts,
                "stored": sum(len(v) for n in self.nodes for v in n.store.values()), "nodes": len(self.nodes),
                "clock": self.clock}

    # ---------------------------------------------------------------- time
    def _advance(self, t: int) -> None:
        """Move the clock to ``t``, first processing every time point ``q < t`` as its own time step."""
        pts = self.points
        while self._pi < len(pts) and pts[self._pi][0] < t:
            q = pts[self._pi][0]
            self._set_clock(q)
            while self._pi < len(pts) and pts[self._pi][0] == q:
                self._add(pts[self._pi][1], (), q, q)
                self._pi += 1
            self._run()
        self._set_clock(t)
        while self._pi < len(pts) and pts[self._pi][0] == t:
            self._add(pts[self._pi][1], (), t, t)
            self._pi += 1

    def _set_clock(self, t: int) -> None:
        if self.clock is not None and t <= self.clock:
            return
        self._release()                 # the time step of the old clock is complete
        self.clock = t
        if not self.contained:          # every instance derived at t ends at t: older dedup keys are dead
            self.ev_seen.clear()
            for n in self.nodes:
                if n.seen:
                    n.seen.clear()
        for n in self.gc_nodes:         # GC (docs/semantics/etalis.md#etalis-3.11): sweep stores once per window length
            if not n.store:
                continue
            if n.swept is None:
                n.swept = t
            elif t - n.swept > n.gq:
                n.swept = t
                lim = t - n.gq
                dead = []
                for k, lst in n.store.items():
                    keep = [f for f in lst if f[1] >= lim]
                    if len(keep) != len(lst):
                        if keep:
                            n.store[k] = keep
                        else:
                            dead.append(k)
                for k in dead:
                    del n.store[k]

    def _release(self) -> None:
        """Complete the time step of the clock for the literal NOT nodes: release every unblocked pending hull
        as an instance, in order of decreasing start, each start with its consequences (see the module
        docstring)."""
        lits = self.literal_nodes
        while True:
            best = None
            for n in lits:
                for k in n.pending:
                    if best is None or k[1] > best:
                        best = k[1]
            if best is None:
                return
            for n in lits:
                for k in [k for k in n.pending if k[1] == best]:
                    if not n.pending.pop(k):
                        self._add(n, k[0], k[1], k[2])
            self._run()

    # ---------------------------------------------------------------- held rules (contained DURING with not)
    def _emit(self, r: Result) -> None:
        if r not in self.emitted:
            self.emitted.add(r)
            self.out.append(r)
            self.n_results += 1

    def _emit_decided(self) -> None:
        """close(), held rules: decide the whole stream (:meth:`well_founded`) and emit every result not emitted yet,
        ordered by end, start, text.  A result already emitted live that the model lacks would be an engine bug."""
        model = self.well_founded()
        wrong = self.emitted - model
        if wrong:                        # pragma: no cover - the settled part is exact (late_analysis)
            raise AssertionError(f"engine: emitted results outside the model: {sorted(wrong)}")
        for r in sorted(model - self.emitted, key=lambda r: (r[2], r[1], r[0])):
            self._emit(r)

    def _reduct_run(self, blocked: frozenset) -> tuple[frozenset, frozenset]:
        """The least model of the program's reduct w.r.t. the blocking keys ``blocked`` (Gelfond-Lifschitz: a gap
        yields its NOT instance iff its :func:`blocking_key` is not in ``blocked``), on the whole stream.

        Returns:
            ``(results of that model, the blocking keys it makes true)``: a key is true when some gap of the model
            with that key has a blocker of the model strictly inside it (``e2 < start``, ``end < s3``).
        """
        ev = Evaluator(self.program, self.o, _reduct=blocked, _static=self.static)
        results = frozenset(ev.run(self.events))
        true = set()
        for p, vals, s, e2, s3, e in ev.gaps:
            if p.never_blocks:
                continue
            nc = p.children[2]
            blockers = nc.store.get(tuple(vals[i] for i in p.nkey))
            if blockers and any(e2 < b[1] and b[2] < s3 for b in blockers):
                true.add(blocking_key(p, vals, s, e2, s3, e))
        return results, frozenset(true)

    #: at most this many reduct runs are spent searching for answer sets when the well-founded model is not total
    MAX_REDUCT_RUNS = 2000

    def well_founded(self) -> frozenset:
        """The results of the unique answer set of the program on the stream pushed so far (held rules; module
        docstring), by Van Gelder's alternating fixpoint on the blocking atoms: ``S(B)`` = the blocking keys true in
        the least model of the reduct w.r.t. ``B`` (:meth:`_reduct_run`), antimonotone; from ``L = {}``,
        ``O = S(L)`` overestimates and ``L = S(O)`` underestimates the true blocking atoms until ``L`` is stable.
        When ``L == O`` the well-founded model is total, hence the unique answer set (what the oracle answers,
        docs/semantics/etalis.md#etalis-2.4).  Otherwise every answer set ``B`` (``S(B) == B``) lies between them,
        and they are searched by branching on an undefined atom (assumed blocking / not blocking, ``T`` / ``F``) and
        narrowing after each branch with ``L = S(O) | T``, ``O = S(L) - F`` (sound: ``L <= B <= O`` gives
        ``S(O) <= B <= S(L)``) until a branch is empty (``L`` not within ``O``) or has the one candidate ``L == O``.

        Returns:
            ``frozenset`` of ``(atom_text, start, end)``.

        Raises:
            ModelError: no answer set, or more than one (the rules of the NOT nodes involved are named), as the
                oracle (``asp/etalis.py``).
            UnsupportedError: the search needs more than :attr:`MAX_REDUCT_RUNS` reduct runs (not decided).
            RuntimeError: not a ``during_result="contained"`` program with ``during`` (the stream is not kept).
        """
        if not self.contained or self.reduct is not None:
            raise RuntimeError("well_founded() needs an evaluator of a program with a contained DURING (it keeps the "
                               "stream); the other programs are stratified by time and decided live")
        memo: dict[frozenset, tuple[frozenset, frozenset]] = {}

        def S(b: frozenset) -> frozenset:
            if b not in memo:
                if len(memo) >= self.MAX_REDUCT_RUNS:
                    raise UnsupportedError(
                        f"engine: during_result='contained': no decision after {self.MAX_REDUCT_RUNS} reduct runs (the "
                        "well-founded model is not total) in rule(s) " + "; ".join(blame(undefined)))
                memo[b] = self._reduct_run(b)
            return memo[b][1]

        def narrow(low: frozenset, high: frozenset, t: frozenset, f: frozenset) -> tuple[frozenset, frozenset]:
            while True:
                high2 = S(low) - f
                low2 = S(high2) | t
                if (low2, high2) == (low, high):
                    return low, high
                low, high = low2, high2

        rules = self.program.event_rules

        def blame(keys) -> tuple[str, ...]:
            return tuple(str(rules[i]) for i in sorted({self.nodes[k[0]].rule for k in keys}))

        empty: frozenset = frozenset()
        undefined: frozenset = empty
        low, high = narrow(empty, S(empty), empty, empty)
        if low == high:
            return memo[low][0]
        undefined = high - low
        models: list[frozenset] = []
        todo = [(low, high, empty, empty)]
        while todo and len(models) < 2:
            lo, hi, t, f = todo.pop()
            lo, hi = narrow(lo, hi, t, f)
            if not lo <= hi:
                continue                 # no answer set under these assumptions
            if lo == hi:
                if S(lo) == lo:
                    models.append(lo)
                continue
            a = min(hi - lo, key=repr)
            todo.append((lo, hi, t, f | {a}))
            todo.append((lo, hi, t | {a}, f))
        if len(models) == 1:
            return memo[models[0]][0]
        names = blame((models[0] ^ models[1]) if models else undefined)
        what = "no answer set" if not models else "more than one answer set"
        raise ModelError(
            f"engine: the ETALIS program has {what} on this stream (the well-founded model is not total): the "
            "negation is not stratified by time in rule(s) " + "; ".join(names)
            + " (during_result='contained' breaks the hull property the stratification relies on; "
            "docs/semantics/etalis.md#etalis-2.4, #etalis-A5)", 2 if models else 0, names)

    # ---------------------------------------------------------------- derivation
    def _derive(self, name: str, args: tuple, s: int, e: int, held: bool = False) -> None:
        """A new instance of event ``name(args)`` on ``[s, e]``: emit it if it is a result (unless ``held``: derived
        by a held rule, decided at close()), and dispatch it to the leaves of its predicate."""
        key = (name, args, s, e)
        pk = (name, len(args))
        if key in self.ev_seen:
            if not held and self.held_rules and pk in self.derived:
                self._emit((self._text(name, args), s, e))   # first held, now derived by a settled rule
            return
        self.ev_seen.add(key)
        if pk in self.derived and not held:
            if self.held_rules:
                self._emit((self._text(name, args), s, e))
            else:
                self.out.append((self._text(name, args), s, e))
                self.n_results += 1
        for leaf in self.leaves.get(pk, ()):
            env: dict = {}
            if all(_unify(p, g, env) for p, g in zip(leaf.p.args, args)):
                self._add(leaf, tuple(env[x] for x in leaf.names), s, e)

    #: at most this many result atom texts are cached (:meth:`_text`)
    TEXT_CACHE = 4096

    def _text(self, name: str, args: tuple) -> str:
        """``str(EventAtom(name, args))``, the result's atom text, cached (results repeat their atoms)."""
        key = (name, args)
        t = self.texts.get(key)
        if t is None:
            if len(self.texts) >= self.TEXT_CACHE:
                self.texts.clear()
            t = self.texts[key] = str(A.EventAtom(name, args))
        return t

    def _add(self, n: _Node, vals: tuple, s: int, e: int) -> None:
        if n.q is not None and e - s > n.q:
            return                       # pushed window constraint: can never contribute
        f = (vals, s, e)
        if f in n.seen:
            return
        n.seen.add(f)
        self.n_facts += 1
        if n.stored:
            n.store[tuple(vals[i] for i in n.key_idx)].append(f)
        self.work.append((n, f))

    def _run(self) -> None:
        work = self.work
        while work:
            n, f = work.pop()
            self._process(n, f)

    def _process(self, n: _Node, f: tuple) -> None:
        vals, s, e = f
        p = n.parent
        if p is None:                    # rule root: derive the head, feed it back (recursion)
            r = self.rules[n.rule]
            env = dict(zip(n.names, vals))
            args = tuple(_value(a, env) for a in r.head.args)
            if any(a is None for a in args):
                return
            self._derive(r.head.name, args, s, e, n.rule in self.held_rules)
            return
        k = p.kind
        if k == "Window":
            w = p.p.length
            if (e - s <= w) if self.o.window == "at_most" else (e - s == w):
                self._add(p, vals, s, e)
        elif k == "Where":
            env = dict(zip(n.names, vals))
            for env2 in _solve(p.p.cond, env, False, self.static):
                try:
                    out = tuple(env2[x] for x in p.names)
                except KeyError:
                    continue
                self._add(p, out, s, e)
        elif k == "or":
            idx = p.build[0] if n.side == "l" else p.build[1]
            self._add(p, tuple(vals[i] for i in idx), s, e)
        elif k == "Not":
            self._not(p, n, f)
        elif k == "Aggregate":
            self._aggregate(p, n, f)
        else:
            self._join(p, n, f)

    def _join(self, p: _Node, n: _Node, f: tuple) -> None:
        left = n.side == "l"
        sib = p.children[1] if left else p.children[0]
        bucket = sib.store.get(tuple(f[0][i] for i in n.key_idx))
        if not bucket:
            return
        op = p.kind
        proper = self.o.proper_intervals_only
        contained = self.contained
        par_positive = self.o.par_overlap == "positive"        # the relation switches (A23-A26)
        starts_strict = self.o.starts_end == "strict"
        during_strict = self.o.during_bounds == "strict"
        finishes_strict = self.o.finishes_start == "strict"
        build = p.build
        for g in bucket:
            lf, rf = (f, g) if left else (g, f)
            s1, e1 = lf[1], lf[2]
            s2, e2 = rf[1], rf[2]
            if op == "seq":
                if not e1 < s2:
                    continue
                res = (s1, e2)
            elif op == "and":
                res = (min(s1, s2), max(e1, e2))
            elif op == "par":
                if par_positive:
                    if not (s1 < e2 and s2 < e1 and s1 < e1 and s2 < e2):
                        continue
                elif not ((e1 <= e2 and s2 < e1) or (e2 <= e1 and s1 < e2)):   # A23: starts_before_end
                    continue
                res = (min(s1, s2), max(e1, e2))
            elif op == "equals":
                if not (s1 == s2 and e1 == e2) or (proper and not (s1 < e1 and s2 < e2)):
                    continue
                res = (s1, e1)
            elif op == "meets":
                if not e1 == s2 or (proper and not (s1 < e1 and s2 < e2)):
                    continue
                res = (s1, e2)
            elif op == "during":
                if during_strict:
                    if not (s2 < s1 < e1 < e2):
                        continue
                elif not (s2 <= s1 and e1 <= e2) or (proper and not (s1 < e1 and s2 < e2)):   # A25: inclusive
                    continue
                res = (s1, e1) if contained else (s2, e2)
            elif op == "starts":
                if not (s1 == s2 and (e1 < e2 if starts_strict else e1 <= e2)) or (
                        proper and not (s1 < e1 and s2 < e2)):
                    continue
                res = (s2, e2)
            elif op == "finishes" and not finishes_strict:   # A26: any start, the hull
                if not e1 == e2 or (proper and not (s1 < e1 and s2 < e2)):
                    continue
                res = (min(s1, s2), e2)
            elif op == "finishes":
                if not (e1 == e2 and s2 < s1) or (proper and not (s1 < e1 and s2 < e2)):
                    continue
                res = (s2, e2)
            else:  # pragma: no cover
                raise UnsupportedError(f"engine: unknown operator {op}")
            lv, rv = lf[0], rf[0]
            self._add(p, tuple(lv[i] if side == 0 else rv[i] for side, i in build), res[0], res[1])

    def _aggregate(self, p: _Node, n: _Node, f: tuple) -> None:
        """``start seq aggregate(F, item, R)`` (docs/semantics/etalis.md#etalis-4.4): a start instance opens a record
        and yields the empty aggregate (if defined); an item instance ``<s2,e2>`` (``e2`` is the clock) updates every
        record of its join key with ``e1 < s2`` and yields ``F`` over that record's items ending before ``e2`` and
        itself.  Items at the clock are folded into the record's aggregate when the clock has moved on, so tied
        items never see each other, as in the oracle."""
        vals, s, e = f
        func, vi, init, last = p.agg
        if n.side == "a":
            n.store[tuple(vals[i] for i in n.key_idx)].append(
                [vals, s, e, None, init, None] if last is None else [vals, s, e, None, deque(), []])
            if init is not None:
                self._add(p, tuple(A.Num(init) if i < 0 else vals[i] for i in p.build), s, e)
            return
        sc = p.children[0]
        recs = sc.store.get(tuple(vals[i] for i in n.key_idx))
        if not recs:
            return
        if vi is None:
            x = 1
        else:
            v = vals[vi]
            if not (isinstance(v, A.Num) and isinstance(v.value, int)):
                return                   # sum/avg/min/max range over the items with an integer value
            x = v.value if func != "avg" else (v.value, 1)
        for rec in recs:
            if not rec[2] < s:
                continue
            if last is not None:
                value = self._windowed(rec, func, init, last, x, e)
            else:
                if rec[3] != e:          # the record's pending items ended before e: fold them in
                    rec[4] = _fold(func, rec[4], rec[5])
                    rec[3], rec[5] = e, None
                rec[5] = _fold(func, rec[5], x)
                value = _fold(func, rec[4], x)
            sv = rec[0]
            r = _result(func, value)
            self._add(p, tuple(r if i < 0 else sv[i] for i in p.build), rec[1], e)

    @staticmethod
    def _windowed(rec: list, func: str, init: Optional[int], last: int, x: int, e: int) -> Optional[int]:
        """The aggregate of item ``x`` ending at ``e`` under a count window of ``last`` items: ``x`` and the items of
        the record ending before ``e`` with fewer than ``last - 1`` items ending strictly between them and ``e``
        (docs/semantics/etalis.md#etalis-4.4).  Keeps only the items a later item can still see."""
        groups = rec[4]
        if rec[3] != e:                  # the pending items ended before e: they become a group
            if rec[5]:
                groups.append((rec[3], rec[5]))
                total = sum(len(g[1]) for g in groups)
                while groups and total - len(groups[0][1]) >= last - 1:
                    total -= len(groups.popleft()[1])
            rec[3], rec[5] = e, []
        acc, seen = init, 0
        for _end, values in reversed(groups):
            if seen >= last - 1:
                break
            for v in values:
                acc = _fold(func, acc, v)
            seen += len(values)
        rec[5].append(x)
        return _fold(func, acc, x)

    def _not(self, p: _Node, n: _Node, f: tuple) -> None:
        """not(p1).[p2,p3], per-witness (A7, Algorithm 3.4 with A8): a gap p2<s,e2>, p3<s3,e> with e2 < s3 and
        no stored p1 with e2 < start and end < s3 (joined on shared variables, locals existential, A6).
        Literal reading (A7): the gap's hull is recorded as pending, blocked or not, until the step ends."""
        if n.side == "n":
            return                       # blockers are consulted by later gaps (they end before s3 <= now)
        sc, ec, nc = p.children
        start_side = n.side == "s"
        sib = ec if start_side else sc
        bucket = sib.store.get(tuple(f[0][i] for i in n.key_idx))
        if not bucket:
            return
        for g in bucket:
            sf, ef = (f, g) if start_side else (g, f)
            e2, s3 = sf[2], ef[1]
            if not e2 < s3:
                continue
            sv, ev = sf[0], ef[0]
            vals = tuple(sv[i] if side == 0 else ev[i] for side, i in p.build)
            if self.reduct is not None:  # the reduct w.r.t. a fixed set of blocking keys (close(), held rules)
                self.gaps.append((p, vals, sf[1], e2, s3, ef[2]))
                if blocking_key(p, vals, sf[1], e2, s3, ef[2]) not in self.reduct:
                    self._add(p, vals, sf[1], ef[2])
                continue
            blocked = False
            if not p.never_blocks:
                blockers = nc.store.get(tuple(vals[i] for i in p.nkey))
                blocked = bool(blockers) and any(e2 < b[1] and b[2] < s3 for b in blockers)
            if p.literal:                # Figure 2: one blocked gap hides its hull (released by _release)
                key = (vals, sf[1], ef[2])
                p.pending[key] = p.pending.get(key, False) or blocked
                continue
            if blocked:
                continue
            self._add(p, vals, sf[1], ef[2])


def setup_aggregate(n: Any, sc: Any, ic: Any, p: A.Aggregate, options: Options) -> None:
    """Both engines' set-up of an aggregate node ``n`` with start child ``sc`` and item child ``ic``
    (docs/semantics/etalis.md#etalis-4.4): the children's join key (their shared variables), ``n.build`` (each
    result variable's index in the start's tuple, -1 for the aggregate) and ``n.agg`` = (function, index of the
    aggregated variable in the item's tuple or None, the empty aggregate or None, the count window or None)."""
    shared = sorted(set(sc.names) & set(ic.names))
    for c in (sc, ic):
        c.key_idx = tuple(c.names.index(x) for x in shared)
    n.build = tuple(-1 if x == p.result.name else sc.names.index(x) for x in n.names)
    init = AGGREGATE_SENTINELS.get(p.func) if options.aggregate_initial == "sentinel" else None
    n.agg = (p.func, None if p.arg is None else ic.names.index(p.arg.name),
             0 if p.func in ("count", "sum") else init, p.count_window)


def _fold(func: str, acc: Any, x: Any) -> Any:
    """The aggregate ``func`` of two partial aggregates (None: of no item; for ``avg`` a pair (sum, count))."""
    if acc is None:
        return x
    if x is None:
        return acc
    if func in ("count", "sum"):
        return acc + x
    if func == "avg":
        return (acc[0] + x[0], acc[1] + x[1])
    return min(acc, x) if func == "min" else max(acc, x)


def _result(func: str, acc: Any) -> A.Num:
    """The result value of a partial aggregate (:func:`_fold`): ``avg``'s exact sum/count
    (docs/semantics/etalis.md#etalis-4.4)."""
    return A.number(Fraction(acc[0], acc[1])) if func == "avg" else A.Num(acc)


def _ground_int_terms(t: A.Term) -> bool:
    """A stream argument: ground, no floats."""
    if isinstance(t, A.Var):
        return False
    if isinstance(t, A.Num):
        return isinstance(t.value, int)
    if isinstance(t, A.List):
        return all(_ground_int_terms(i) for i in t.items)
    if isinstance(t, A.Compound):
        return all(_ground_int_terms(a) for a in t.args)
    return True


# ------------------------------------------------------------------------------------------------ static model
def static_model(program: A.Program) -> dict[tuple[str, int], set[tuple]]:
    """The least Herbrand model of the static rules of ``program`` (docs/semantics/etalis.md#etalis-1.2, #etalis-9.1), by a naive
    bottom-up fixpoint over the engine's own condition evaluation (:func:`_solve`).

    Args:
        program: a parsed, checked :class:`ceplab.semantics.etalis.ast.Program` (static rules are Horn clauses
            with safe heads; floats rejected by :func:`check_integer_program`).

    Returns:
        ``{(name, arity): {args tuple of ground values}}``.  Does not terminate when the model is infinite
        (as the oracle's grounding).
    """
    model: dict[tuple[str, int], set[tuple]] = defaultdict(set)
    rules = []
    for s in program.static_rules:
        if s.body is None:
            vals = tuple(_value(a, {}) for a in s.head.args)
            if all(v is not None for v in vals):
                model[s.head.key].add(vals)
        else:
            rules.append(s)
    changed = bool(rules)
    while changed:
        changed = False
        for s in rules:
            new = set()
            for env in _solve(s.body, {}, False, model):
                vals = tuple(_value(a, env) for a in s.head.args)
                if all(v is not None for v in vals):
                    new.add(vals)
            facts = model[s.head.key]
            if not new <= facts:
                facts |= new
                changed = True
    return model


# ------------------------------------------------------------------------------------------------ conditions
def _solve(c: A.Cond, env: dict, neg: bool, static: dict) -> Iterator[dict]:
    """Environments satisfying ``c`` (``neg``: its negation), in the oracle's NNF/DNF reading."""
    if isinstance(c, A.CNot):
        yield from _solve(c.cond, env, not neg, static)
        return
    if isinstance(c, (A.CAnd, A.COr)):
        if isinstance(c, A.CAnd) != neg:
            yield from _solve_all(list(c.items), env, neg, static)
        else:
            for it in c.items:
                yield from _solve(it, env, neg, static)
        return
    if isinstance(c, A.StaticAtom):
        facts = static.get(c.key, ())
        if not neg:
            for args in facts:
                e2 = dict(env)
                if all(_unify(p, g, e2) for p, g in zip(c.args, args)):
                    yield e2
        else:
            vals = tuple(_value(a, env) for a in c.args)
            if all(v is not None for v in vals) and vals not in facts:
                yield env
        return
    if isinstance(c, A.Is):
        left, op, right = c.var, "=", c.expr
    elif isinstance(c, A.Cmp):
        left, op, right = c.left, _CMP[c.op], c.right
    else:
        raise TypeError(c)
    if neg:
        op = _NEG[op]
    if op == "=":
        for a, b in ((left, right), (right, left)):
            if isinstance(a, A.Var) and a.name != "_" and a.name not in env:
                v = _value(b, env)
                if v is not None:
                    e2 = dict(env)
                    e2[a.name] = v
                    yield e2
                return
    a, b = _value(left, env), _value(right, env)
    if a is None or b is None:
        return
    if _compare(a, op, b):
        yield env


def _ready(c: A.Cond, env: dict) -> bool:
    """Whether conjunct ``c`` can be evaluated under ``env``: a static atom always (it binds), an assignment
    when the assigned side is a variable and the other side is bound, anything else when all its variables are
    bound (so the conjunction means the same in any written order, as in the oracle)."""
    if isinstance(c, A.StaticAtom):
        return True
    free = {v.name for v in A.cond_vars(c)} - env.keys() - {"_"}
    if not free:
        return True
    if isinstance(c, A.Is):
        return not ({v.name for v in A.term_vars(c.expr)} - env.keys())
    if isinstance(c, A.Cmp) and _CMP[c.op] == "=":
        for a, b in ((c.left, c.right), (c.right, c.left)):
            if isinstance(a, A.Var) and not ({v.name for v in A.term_vars(b)} - env.keys()):
                return True
    return False


def _solve_all(items: list, env: dict, neg: bool, static: dict) -> Iterator[dict]:
    """Environments satisfying every condition of ``items`` (``neg``: as in :func:`_solve`), evaluating first
    the earliest item that is :func:`_ready`."""
    if not items:
        yield env
        return
    i = next((k for k, it in enumerate(items) if _ready(it, env)), 0)
    rest = items[:i] + items[i + 1:]
    for e2 in _solve(items[i], env, neg, static):
        yield from _solve_all(rest, e2, neg, static)
