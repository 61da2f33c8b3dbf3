"""Event consumption policies ``chronological``, ``recent`` and ``recent_lifo``: the incremental engine of
ETALIS-P (:mod:`ceplab.semantics.etalis.policies`, whose numbered sections are cited below; paper section 3.5, docs/semantics/etalis.md#etalis-3.12, #etalis-9.6).

The program is binarized exactly as for the unrestricted engine (one node per sub-pattern, node ids in
pre-order, docs/semantics/etalis.md#etalis-9.2).  Children of a binary operator and of ``not``, and the start child of an
aggregate, keep a goal store per join key (the values of the variables shared with the sibling): for
``chronological`` and ``recent_lifo`` a deque in insertion order (insertion order *is* stamp order, so no stamps are
stored), for ``recent`` one instance per key.  An aggregate's store holds records ``(V, S, E, state)`` (ETALIS-P 7b);
an item that updates a record moves it to the back of its deque (it is re-inserted with the step's stamp).

Processing is the depth-first stack machine of ETALIS-P section 4: an item is popped, processed (all state
changes of its step happen then), and its children are pushed in reverse order.  A join fires at most once per
arriving instance (chronological: the first candidate in the deque; recent_lifo: the last one; both removed;
recent: the single stored instance, kept).

Garbage collection (ETALIS-P keeps every stored instance; removing one that can never be selected again does
not change any answer): a stored instance of a child of ``p`` is dead once ``clock - start > q(p)``, the
smallest window at or above ``p``: any later result containing it would be longer than ``q(p)``, and it can no
longer meet an instance with the same timestamp in an interval-policy comparison (such an instance would itself
be dead).  Dead instances are dropped at the front of the deques during scans and by a sweep once per window
length.  With ``during_result="contained"`` results can end before the clock, so GC is off.
"""
from __future__ import annotations

from collections import deque
from fractions import Fraction
from typing import Any, Iterator, Optional

from ceplab.engine.etalis.evaluate import (_compare, _solve, _unify, _value, admit, check_integer_program, link,
                                           order_key, setup_aggregate, static_model)
from ceplab.semantics.errors import UnsupportedError
from ceplab.semantics.etalis import ast as A
from ceplab.semantics.etalis.analysis import check_termination_under, pattern_vars
from ceplab.semantics.etalis.binarize import Node, binarize, check_aggregates
from ceplab.semantics.etalis.options import Options
from ceplab.semantics.etalis.policies import dispatch_order, interval_option

__all__ = ["PolicyEvaluator"]

Result = tuple[str, int, int]

_EV = 0      # stack item kinds
_ACT = 1


class _PNode:
    """One binarized sub-pattern (ETALIS-P section 1)."""
    __slots__ = ("id", "p", "kind", "names", "parent", "side", "children", "rule", "q", "stored", "store",
                 "key_idx", "build", "never_blocks", "nkey", "seq_right", "attr", "swept", "agg")

    def __init__(self, bn: Node) -> None:
        self.id = bn.id
        self.p = bn.pattern
        self.kind = bn.kind
        self.names: tuple[str, ...] = bn.names
        self.parent: Optional[_PNode] = None
        self.side = ""
        self.children: list[_PNode] = []
        self.rule = bn.rule
        self.q = bn.window                       # q(n): smallest window on the path from n (inclusive) to the root
        self.stored = False              # child of a binary operator or of not (has a store)
        self.store: dict = {}
        self.key_idx: tuple[int, ...] = ()
        self.build: tuple = ()
        self.never_blocks = False
        self.nkey: tuple[int, ...] = ()
        self.seq_right = False           # right child of seq / end delimiter of not: never stored
        self.attr: Optional[int] = None  # interval_policy max/min: index of VAR in names
        self.swept: Optional[int] = None
        self.agg: tuple = ()             # aggregate node: (F, index of X in the item's names, R0, N)


class PolicyEvaluator:
    """Incremental evaluator of an ETALIS program under a consumption policy (ETALIS-P).

    Args:
        program: a parsed :class:`ceplab.semantics.etalis.ast.Program`.
        options: :class:`ceplab.semantics.etalis.options.Options` with ``policy`` in ``chronological``, ``recent``,
            ``recent_lifo``; ``interval_policy``, ``window``, ``proper_intervals_only``, ``during_result``,
            ``aggregate_initial``,
            ``not_local_vars`` and the relation switches ``par_overlap``, ``starts_end``, ``during_bounds``,
            ``finishes_start`` are honoured.

    API as :class:`ceplab.engine.etalis.evaluate.Evaluator`: ``update(event)`` / ``push(event) -> list`` (events in
    non-decreasing end time, integer ticks), ``outputs()``, ``close() -> list``, ``run(events)``, ``stats()``.
    Results are ``(atom_text, start, end)``, each emitted once, when first derived.

    Raises:
        UnsupportedError: floats, ``/`` (:func:`~ceplab.engine.etalis.evaluate.check_integer_program`),
            arithmetic in event patterns, A6 negation clashes, aggregates with ``during_result="contained"``
            (:mod:`ceplab.semantics.etalis.binarize`).
        ValueError: ``options.policy == "unrestricted"`` (use :class:`Evaluator`); out-of-order events.
    """

    def __init__(self, program: A.Program, options: Options) -> None:
        if options.policy == "unrestricted":
            raise ValueError("PolicyEvaluator is for consumption policies; 'unrestricted' is the minimal model "
                             "(ceplab.engine.etalis.evaluate.Evaluator)")
        check_integer_program(program)             # floats, '/': the engine's own check
        check_termination_under(program, options)  # A14 under the relation switches (A24-A26, A5)
        check_aggregates(program, options)         # aggregates with a contained DURING (both sides)
        roots = binarize(program)                  # the shared front end (ETALIS-P 1): nodes, A6, patterns
        self.program = program
        self.o = options
        self.policy = options.policy
        self.path = (f"etalis/edbc-{self.policy}: ETALIS-P depth-first goal stores"
                     + ("" if options.interval_policy == "off" else f", interval policy {options.interval_policy}"))
        self.consume = self.policy in ("chronological", "recent_lifo")
        self.replace_same = options.goal_replacement == "same_values"   # A27 (ETALIS-P 8)
        self.lifo = self.policy == "recent_lifo"
        self.ts_end = self.policy != "chronological"      # timestamp for interval policies (ETALIS-P 8)
        self.ikind, self.ivar = interval_option(options.interval_policy)
        self.contained = options.during_result == "contained"
        self.proper = options.proper_intervals_only
        self.par_positive = options.par_overlap == "positive"          # the relation switches (A23-A26)
        self.starts_strict = options.starts_end == "strict"
        self.during_strict = options.during_bounds == "strict"
        self.finishes_strict = options.finishes_start == "strict"
        self.exact = options.window == "exactly"
        self.derived = program.derived_predicates()
        self.static = static_model(program)
        self.nodes: list[_PNode] = []
        self.leaves: dict[tuple[str, int], list[_PNode]] = {}
        self.points: list[tuple[int, int, _PNode]] = []
        self.heads: list[A.EventAtom] = []
        for r, bn in zip(program.event_rules, roots):
            self.heads.append(r.head)
            self._build(bn)
        rank = dispatch_order(program)                   # ETALIS-P 5: the for_each order
        for lst in self.leaves.values():
            lst.sort(key=lambda n: rank[n.id])
        self.points.sort(key=lambda x: (x[0], x[1]))
        self._pi = 0
        self.clock: Optional[int] = None
        self.seen_act: set = set()
        self.seen_ev: set = set()
        self.out: list[Result] = []
        self.n_events = 0
        self.n_results = 0
        self.n_steps = 0
        self.closed = False

    # ---------------------------------------------------------------- build (ETALIS-P 1)
    def _build(self, bn: Node) -> _PNode:
        p = bn.pattern
        n = _PNode(bn)
        assert n.id == len(self.nodes)
        self.nodes.append(n)
        if self.ivar is not None and self.ivar in n.names:
            n.attr = n.names.index(self.ivar)
        if isinstance(p, A.EventAtom):
            self.leaves.setdefault(p.key, []).append(n)
        elif isinstance(p, A.TimePoint):
            self.points.append((int(p.value), n.id, n))
        elif isinstance(p, (A.Window, A.Where)):
            self._link(n, [(self._build(bn.children[0]), "c")])
        elif isinstance(p, A.Binary):
            lc = self._build(bn.children[0])
            rc = self._build(bn.children[1])
            self._link(n, [(lc, "l"), (rc, "r")])
            if p.op == "or":
                n.build = (tuple(lc.names.index(x) for x in n.names), tuple(rc.names.index(x) for x in n.names))
            else:
                shared = sorted(set(lc.names) & set(rc.names))
                for c in (lc, rc):
                    c.stored = True
                    c.key_idx = tuple(c.names.index(x) for x in shared)
                rc.seq_right = p.op == "seq"
                n.build = tuple((0, lc.names.index(x)) if x in lc.names else (1, rc.names.index(x))
                                for x in n.names)
        elif isinstance(p, A.Not):
            sc = self._build(bn.children[0])
            ec = self._build(bn.children[1])
            nc = self._build(bn.children[2])
            self._link(n, [(sc, "s"), (ec, "e"), (nc, "n")])
            shared = sorted(set(sc.names) & set(ec.names))
            for c in (sc, ec):
                c.stored = True
                c.key_idx = tuple(c.names.index(x) for x in shared)
            ec.seq_right = True
            n.build = tuple((0, sc.names.index(x)) if x in sc.names else (1, ec.names.index(x))
                            for x in n.names)
            nshared = sorted(set(nc.names) & set(n.names))
            nc.stored = True
            nc.key_idx = tuple(nc.names.index(x) for x in nshared)
            n.nkey = tuple(n.names.index(x) for x in nshared)
            n.never_blocks = bool(pattern_vars(p.negated) - set(n.names)) and self.o.not_local_vars == "free"
        elif isinstance(p, A.Aggregate):
            # ETALIS-P 7b: the start child stores records (V, S, E, state); the item child is never stored
            sc = self._build(bn.children[0])
            ic = self._build(bn.children[1])
            self._link(n, [(sc, "a"), (ic, "i")])
            setup_aggregate(n, sc, ic, p, self.o)
            sc.stored = True
            ic.seq_right = True
        else:
            raise TypeError(p)
        return n

    _link = staticmethod(link)

    # ---------------------------------------------------------------- API
    def update(self, event: Any) -> None:
        """Consume the next stream event (``StreamEvent``: ground atom, start, end); ends must not decrease."""
        s, e = admit(event, self.clock, self.closed)
        self.out = []
        self._points_upto(e)
        self._set_clock(e)
        self.n_events += 1
        self._run((_EV, event.atom.name, tuple(event.atom.args), s, e))

    def outputs(self) -> Iterator[Result]:
        """The results determined by the last ``update`` (or ``close``)."""
        return iter(self.out)

    def push(self, event: Any) -> list[Result]:
        self.update(event)
        return list(self.out)

    def close(self) -> list[Result]:
        """End of stream: the remaining time points (ETALIS-P 3); returns the results they determine."""
        self.out = []
        if not self.closed:
            self._points_upto(None)
            self.closed = True
        return list(self.out)

    def run(self, events) -> list[Result]:
        res: list[Result] = []
        for ev in events:
            res.extend(self.push(ev))
        res.extend(self.close())
        return res

    def stats(self) -> dict:
        stored = 0
        for n in self.nodes:
            for v in n.store.values():
                stored += len(v) if isinstance(v, deque) else 1
        return {"events": self.n_events, "results": self.n_results, "steps": self.n_steps, "stored": stored,
                "nodes": len(self.nodes), "clock": self.clock, "policy": self.policy}

    # ---------------------------------------------------------------- time (ETALIS-P 3)
    def _points_upto(self, t: Optional[int]) -> None:
        """Process the time points ordered before a stream event ending at ``t`` (all if ``t`` is None)."""
        pts = self.points
        while self._pi < len(pts) and (t is None or pts[self._pi][0] <= t):
            q, _, n = pts[self._pi]
            self._pi += 1
            self._set_clock(q)
            self._run((_ACT, n, (), q, q))

    def _set_clock(self, t: int) -> None:
        if self.clock is not None and t <= self.clock:
            return
        self.clock = t
        if not self.contained:            # everything processed from now on ends at >= t
            self.seen_act.clear()
            self.seen_ev.clear()
            for n in self.nodes:          # sweep dead goals once per window length
                p = n.parent
                if not n.store or p is None or p.q is None:
                    continue
                if n.swept is None:
                    n.swept = t
                elif t - n.swept > p.q:
                    n.swept = t
                    self._sweep(n, t - p.q)

    def _sweep(self, n: _PNode, lim: int) -> None:
        """Drop stored instances of ``n`` with start < ``lim`` (dead, see the module docstring)."""
        dead = []
        for k, v in n.store.items():
            if isinstance(v, deque):
                keep = deque(f for f in v if f[1] >= lim)
                if keep:
                    n.store[k] = keep
                else:
                    dead.append(k)
            elif v[1] < lim:
                dead.append(k)
        for k in dead:
            del n.store[k]

    # ---------------------------------------------------------------- the stack machine (ETALIS-P 4-7)
    def _run(self, item: tuple) -> None:
        stack = [item]
        pop = stack.pop
        while stack:
            it = pop()
            self.n_steps += 1
            kids = self._ev(it) if it[0] == _EV else self._act(it[1], it[2], it[3], it[4])
            if kids:
                if len(kids) == 1:
                    stack.append(kids[0])
                else:
                    stack.extend(reversed(kids))

    def _ev(self, it: tuple) -> Optional[list]:
        """ETALIS-P 5: dispatch an event to the leaves that match it, in dispatch order."""
        _, name, args, s, e = it
        key = (name, args, s, e)
        if key in self.seen_ev:
            return None
        self.seen_ev.add(key)
        pk = (name, len(args))
        if pk in self.derived:
            self.out.append((str(A.EventAtom(name, args)), s, e))
            self.n_results += 1
        kids = []
        for leaf in self.leaves.get(pk, ()):
            env: dict = {}
            if all(_unify(p, g, env) for p, g in zip(leaf.p.args, args)):
                kids.append((_ACT, leaf, tuple(env[x] for x in leaf.names), s, e))
        return kids

    def _act(self, n: _PNode, vals: tuple, s: int, e: int) -> Optional[list]:
        """ETALIS-P 6: an activation of node ``n``."""
        if n.q is not None and e - s > n.q:
            return None                                  # 6a pushed window
        key = (n.id, vals, s, e)
        if key in self.seen_act:
            return None                                  # 6b processed before
        self.seen_act.add(key)
        p = n.parent
        if p is None:                                    # rule root: the head event
            env = dict(zip(n.names, vals))
            args = tuple(_value(a, env) for a in self.heads[n.rule].args)
            if any(a is None for a in args):
                return None
            return [(_EV, self.heads[n.rule].name, args, s, e)]
        k = p.kind
        if k == "Window":
            w = p.p.length
            if (e - s == w) if self.exact else (e - s <= w):
                return [(_ACT, p, vals, s, e)]
            return None
        if k == "Where":
            env = dict(zip(n.names, vals))
            sols = set()
            for env2 in _solve(p.p.cond, env, False, self.static):
                try:
                    sols.add(tuple(env2[x] for x in p.names))
                except KeyError:
                    continue
            if len(sols) > 1:
                sols = sorted(sols, key=lambda t: tuple(order_key(v) for v in t))
            return [(_ACT, p, v, s, e) for v in sols]
        if k == "or":
            idx = p.build[0] if n.side == "l" else p.build[1]
            return [(_ACT, p, tuple(vals[i] for i in idx), s, e)]
        if k == "Not":
            return self._not(p, n, vals, s, e)
        if k == "Aggregate":
            return self._aggregate(p, n, vals, s, e)
        return self._join(p, n, vals, s, e)

    # ---------------------------------------------------------------- joins (ETALIS-P 7)
    def _rel(self, op: str, s1: int, e1: int, s2: int, e2: int) -> Optional[tuple[int, int]]:
        """Figure 2 in hull + relation form (docs/semantics/etalis.md#etalis-2.6): the result interval, or None."""
        proper = self.proper
        if op == "seq":
            return (s1, e2) if e1 < s2 else None
        if op == "and":
            return (min(s1, s2), max(e1, e2))
        if op == "par":
            if self.par_positive:                       # max(s1,s2) < min(e1,e2)
                ok = s1 < e2 and s2 < e1 and s1 < e1 and s2 < e2
            else:                                       # A23: the operand ending later starts before the other ends
                ok = (e1 <= e2 and s2 < e1) or (e2 <= e1 and s1 < e2)
            return (min(s1, s2), max(e1, e2)) if ok else None
        if op == "equals":
            return (s1, e1) if s1 == s2 and e1 == e2 and not (proper and not (s1 < e1 and s2 < e2)) else None
        if op == "meets":
            return (s1, e2) if e1 == s2 and not (proper and not (s1 < e1 and s2 < e2)) else None
        if op == "during":
            if (s2 < s1 < e1 < e2 if self.during_strict      # A25 inclusive: s2 <= s1, e1 <= e2
                    else s2 <= s1 and e1 <= e2 and not (proper and not (s1 < e1 and s2 < e2))):
                return (s1, e1) if self.contained else (s2, e2)
            return None
        if op == "starts":                              # A24 inclusive: e1 <= e2
            return ((s2, e2) if s1 == s2 and (e1 < e2 if self.starts_strict else e1 <= e2)
                    and not (proper and not (s1 < e1 and s2 < e2)) else None)
        if op == "finishes":
            if not self.finishes_strict:                # A26 any start: the hull
                return (min(s1, s2), e2) if e1 == e2 and not (proper and not (s1 < e1 and s2 < e2)) else None
            return (s2, e2) if e1 == e2 and s2 < s1 and not (proper and not (s1 < e1 and s2 < e2)) else None
        raise UnsupportedError(f"engine: unknown operator {op}")   # pragma: no cover

    def _join(self, p: _PNode, n: _PNode, vals: tuple, s: int, e: int) -> Optional[list]:
        left = n.side == "l"
        sib = p.children[1] if left else p.children[0]
        jk = tuple(vals[i] for i in n.key_idx)
        x = (vals, s, e)
        if not self.consume:                             # recent: insert first (rule 8), then the partner
            if not n.seq_right:
                self._insert(n, jk, x)
            y = sib.store.get(jk)
            if y is None:
                return None
            res = self._pair(p, x, y, left)
            return None if res is None else [res]
        bucket = sib.store.get(jk)
        q = p.q
        if bucket and q is not None and not self.contained:
            lim = self.clock - q
            while bucket and bucket[0][1] < lim:         # dead at the front (module docstring)
                bucket.popleft()
        if bucket:
            op = p.kind
            idx = range(len(bucket) - 1, -1, -1) if self.lifo else range(len(bucket))
            for i in idx:
                y = bucket[i]
                l, r = (x, y) if left else (y, x)
                h = self._rel(op, l[1], l[2], r[1], r[2])
                if h is None or (q is not None and h[1] - h[0] > q):
                    continue
                del bucket[i]
                if not bucket:
                    del sib.store[jk]
                lv, rv = l[0], r[0]
                return [(_ACT, p, tuple(lv[j] if side == 0 else rv[j] for side, j in p.build), h[0], h[1])]
        if not n.seq_right:
            self._insert(n, jk, x)
        return None

    def _pair(self, p: _PNode, x: tuple, y: tuple, left: bool) -> Optional[tuple]:
        l, r = (x, y) if left else (y, x)
        h = self._rel(p.kind, l[1], l[2], r[1], r[2])
        if h is None or (p.q is not None and h[1] - h[0] > p.q):
            return None
        lv, rv = l[0], r[0]
        return (_ACT, p, tuple(lv[j] if side == 0 else rv[j] for side, j in p.build), h[0], h[1])

    def _not(self, p: _PNode, n: _PNode, vals: tuple, s: int, e: int) -> Optional[list]:
        """not(p1).[p2,p3], per witness (ETALIS-P 7, Algorithm 3.4 with A8)."""
        side = n.side
        if side == "n":                                  # a blocker: always remembered, never consumed
            n.store.setdefault(tuple(vals[i] for i in n.key_idx), deque()).append((vals, s, e))
            return None
        jk = tuple(vals[i] for i in n.key_idx)
        x = (vals, s, e)
        if side == "s":
            self._insert(n, jk, x)
            return None
        sc, _, nc = p.children
        entry = sc.store.get(jk)
        if entry is None:
            return None
        cands = entry if self.consume else (entry,)
        q = p.q
        idx = range(len(cands) - 1, -1, -1) if self.lifo else range(len(cands))
        for i in idx:
            y = cands[i]
            e2 = y[2]
            if not e2 < s or (q is not None and e - y[1] > q):
                continue
            sv = y[0]
            out = tuple(sv[j] if sd == 0 else vals[j] for sd, j in p.build)
            if not p.never_blocks:
                blockers = nc.store.get(tuple(out[j] for j in p.nkey))
                if blockers and any(e2 < b[1] and b[2] < s for b in blockers):
                    continue
            if self.consume:
                del entry[i]
                if not entry:
                    del sc.store[jk]
            return [(_ACT, p, out, y[1], e)]
        return None

    # ---------------------------------------------------------------- aggregates (ETALIS-P 7b)
    def _aggregate(self, p: _PNode, n: _PNode, vals: tuple, s: int, e: int) -> Optional[list]:
        """``Start seq aggregate(F, Item, R[, N])`` (ETALIS-P 7b, docs/semantics/etalis.md#etalis-4.4): a start
        instance is stored as a record ``(V, S, E, state)`` by rule 8 and yields the empty aggregate (if defined); an
        item selects one record as a join selects its partner, updates its state, moves it to the back of the
        store (the newest) and yields the record's start values with the new aggregate on ``[S_rec, E]``."""
        func, vi, r0, last = p.agg
        if n.side == "a":                                # 7b a: a start
            st0 = () if last is not None else r0
            self._insert(n, tuple(vals[i] for i in n.key_idx), (vals, s, e, st0), replace=False)
            if r0 is None:
                return None
            return [(_ACT, p, tuple(A.Num(r0) if i < 0 else vals[i] for i in p.build), s, e)]
        if vi is None:                                   # 7b b: an item; its value
            v = 1
        else:
            x = vals[vi]
            if not (isinstance(x, A.Num) and isinstance(x.value, int)):
                return None
            v = x.value
        sc = p.children[0]
        jk = tuple(vals[i] for i in n.key_idx)
        q = p.q
        if not self.consume:                             # recent: the single record of the key
            y = sc.store.get(jk)
            if y is None or not y[2] < s or (q is not None and e - y[1] > q):
                return None
        else:
            bucket = sc.store.get(jk)
            if bucket and q is not None:
                lim = self.clock - q
                while bucket and bucket[0][1] < lim:     # dead at the front (module docstring)
                    bucket.popleft()
            if not bucket:
                return None
            idx = range(len(bucket) - 1, -1, -1) if self.lifo else range(len(bucket))
            for i in idx:
                y = bucket[i]
                if y[2] < s and (q is None or e - y[1] <= q):
                    del bucket[i]
                    break
            else:
                return None
        r, st = _apply(func, r0, last, y[3], v)
        r = A.number(r)
        rec = (y[0], y[1], y[2], st)                     # re-inserted with this step's stamp: the newest
        if self.consume:
            bucket.append(rec)
        else:
            sc.store[jk] = rec
        yv = y[0]
        return [(_ACT, p, tuple(r if i < 0 else yv[i] for i in p.build), y[1], e)]

    # ---------------------------------------------------------------- insertion (ETALIS-P 8)
    def _prefer(self, n: _PNode, y: tuple, x: tuple) -> bool:
        """prefer(y, x): ``y`` and ``x`` have the same timestamp and the interval policy keeps ``y``."""
        kind = self.ikind
        if kind == "off":
            return False
        if self.ts_end:
            if y[2] != x[2]:
                return False
        elif y[1] != x[1]:
            return False
        if kind == "longest":
            return y[2] - y[1] > x[2] - x[1]
        if kind == "shortest":
            return y[2] - y[1] < x[2] - x[1]
        a = n.attr
        if a is None:
            return False
        return _compare(y[0][a], ">" if kind == "max" else "<", x[0][a])

    def _insert(self, n: _PNode, jk: tuple, x: tuple, replace: bool = True) -> None:
        """ETALIS-P 8: insert ``x`` into the store of ``n`` under join key ``jk``.  With
        ``goal_replacement="same_values"`` (A27) the stored instances with the same values go first, unless
        ``replace`` is False (an aggregate record, 7b)."""
        store = n.store
        if not self.consume:                             # recent: one instance per join key
            y = store.get(jk)
            if y is not None and self._prefer(n, y, x):
                return
            store[jk] = x
            return
        bucket = store.get(jk)
        if bucket is None:
            store[jk] = deque((x,))
            return
        if self.replace_same and replace:                # A27: the implementation's retractall before assert
            vals = x[0]
            if any(y[0] == vals for y in bucket):
                bucket = store[jk] = deque(y for y in bucket if y[0] != vals)
        if self.ikind != "off":
            for i, y in enumerate(bucket):
                same = (y[2] == x[2]) if self.ts_end else (y[1] == x[1])
                if same:
                    if self._prefer(n, y, x):
                        return
                    del bucket[i]
                    break
        bucket.append(x)


def _apply(func: str, r0: Optional[int], last: Optional[int], st: Any, v: int) -> tuple[Any, Any]:
    """ETALIS-P 7b: apply the item value ``v`` to the record state ``st`` of an aggregate ``func`` (empty aggregate
    ``r0``, count window ``last``): ``(result, new state)``; ``avg``'s result is the exact Fraction sum/count, its
    state without a window the pair (sum, count)."""
    if last is None:
        if func == "avg":
            st = (v, 1) if st is None else (st[0] + v, st[1] + 1)
            return Fraction(st[0], st[1]), st
        if st is None:
            r = v
        elif func == "count":
            r = st + 1
        elif func == "sum":
            r = st + v
        else:
            r = min(st, v) if func == "min" else max(st, v)
        return r, r
    vs = st + (v,)
    if func in ("count", "sum"):
        r = sum(vs)                                      # count: every value is 1
    elif func == "avg":
        r = Fraction(sum(vs), len(vs))
    else:
        pick = min if func == "min" else max
        r = pick(vs) if r0 is None else pick(pick(vs), r0)
    return r, vs[1:] if len(vs) > last - 1 else vs
