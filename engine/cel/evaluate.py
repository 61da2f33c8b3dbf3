"""ALL and STRICT evaluation of a CEA (paper Algorithms 1, 4 and 8; docs/semantics/cel.md#cel-5.5, #cel-10.3).

:class:`DetEvaluator` runs the paper's Algorithm 1 on the **on-the-fly I/O-determinization** of the
automaton (Algorithm 4, Theorem 5): a determinized state ("DFA state") is a frozenset of CEA states
(or of ``(state, registers)`` configurations for the binary-filter register extension), and each
active DFA state carries one immutable ECS node (:mod:`ceplab.engine.cel.ecs`) whose complex events are
the partial CEs whose unique determinized run ends there.  Because the determinized automaton is
I/O-deterministic, the nodes of different DFA states are pairwise disjoint, so enumeration never
repeats a complex event (docs/semantics/cel.md#cel-G9).

Per event ``t`` at position ``j`` and every active DFA state ``S`` with node ``n``:

    T• = δ(S, t, •)   receives  Out(j, n)       (marking j)
    T◦ = δ(S, t, ◦)   receives  n               (skipping j)

and a target receiving several contributions gets their (disjoint) union; all marking sources of a
target share one ``Out(j, union(sources))``.  The CEs ending at ``j`` are those of the ``Out(j, ·)``
contributions to DFA states that meet F (only those, docs/semantics/cel.md#cel-G13/#cel-G14: a run must end by marking).

Reference reading: :class:`ceplab.engine.cel.interpret.InterpretedEvaluator` runs the loop above
as written, on the same determinized states and with the same ECS operations
(``Options(engine_path="interpreted")``); this module is the *generated* path, the default, and
``tests/cel/test_cel_interpreted.py`` checks that both emit the same complex events at the same
positions.

Speed: the step is *compiled*.  The tuple of active DFA states (a "meta-state") together with the
event class determines the next tuple of active DFA states and, for each of them, which old nodes
are marked or carried: this *plan* is computed once and cached on the meta-state (a deterministic
automaton over meta-states, built lazily).  The event class is the tuple of truth values of the
CEA's labels on the event; labels of other event types are false, so the class is just the event
type when no label of that type (or of no type) carries a predicate, and all types no label names
share one class.  With registers the class is the event type plus the values (with their kind) of
every attribute a label reads or a register stores.  A step whose plan is the identity (e.g. a
noise event every active state skips with a ``TRUE/◦`` loop) costs one classification and one dict
lookup.  Update time per event is therefore bounded by the size of the determinized automaton,
independent of the stream length and of the number of partial matches.

``WITHIN w`` (EXTENSION, docs/semantics/cel.md#cel-G8: keep C with ``max C - min C <= w``, applied *before* the
strategy): at position ``j`` only CEs with ``min C >= j - w`` can still be output now or later, so
contributions whose ``max_start < j - w`` are dropped when a node is built, enumeration is bounded
below by ``j - w``, and the incremental collector :class:`ceplab.engine.cel.ecs.WindowGC` cuts expired
kids out of union nodes as the bound passes them (amortised O(1) per union kid; DFA states whose
node expired are dropped every ``max(w, 64)`` events).  Live nodes are then those created within
the last ~w positions, so memory is bounded by the window times the determinized automaton, not
by the stream.  (:meth:`DetEvaluator.compact` is the pure, rebuild-based alternative, ~10x more
expensive per node.)

The empty partial CE (the all-◦ run, ⊥) is not stored in the nodes: the meta-state records which
DFA state holds it (``eps``), and ⊥ only appears as a direct kid of the union under a fresh
``Out(j, ·)``.  Otherwise the state of the all-◦ run would accumulate a union chain ending in ⊥
that never expires (a memory leak under WITHIN) and that every CE starting later would have to
traverse (breaking the enumeration delay bound of :mod:`ceplab.engine.cel.ecs`).

STRICT (paper Algorithm 8, docs/semantics/cel.md#cel-10.3 item 6): an "empty run" DFA state E follows only ◦ and carries
⊥; started DFA states may only take •.  Each step every started state and E advance by • into
``Out(j, ·)``, then ``E := δ(E, t, ◦)``.  Outputs are the started states meeting F.  This is the
same compiled step with different DFA-state flavours.

Positions are the events' ``position`` attributes (the stream's 0-based line indices); they must be
strictly increasing.
"""
from __future__ import annotations

from typing import Any, Iterator, Optional

from ceplab.engine.cel.automaton import CEA, guard
from ceplab.engine.cel.ecs import BOTTOM, INF, WindowGC, compact, enumerate_all, live_nodes
from ceplab.engine.cel.ecs import insert as _insert, link as _link, link_all as _link_all, merge as _merge
from ceplab.engine.cel.ecs import pair as _pair
from ceplab.semantics.cel.ast import Cmp, Cmp2, PAnd, PNot, POr, PTrue
from ceplab.semantics.cel.options import Options
from ceplab.semantics.cel.predicates import _MISSING

__all__ = ["Evaluator", "DetEvaluator", "AllEvaluator", "StrictEvaluator"]

_NOISE = ("<noise>",)        # class shared by all event types no label can match
_COMPILE_AFTER = 16            # uses of a step plan before it is compiled to Python code
_CACHE_LIMIT = 50_000         # cached DFA states, meta-states and transitions before a rebuild


class Evaluator:
    """Base class of the CEL evaluators (ALL/STRICT here, NXT/LAST/MAX in strategies.py).

    Subclasses implement :meth:`update` and :meth:`outputs`; ``path`` describes the algorithm.
    """

    path: str = "?"

    def update(self, event: Any) -> None:
        """Consume the next event (no enumeration)."""
        raise NotImplementedError

    def outputs(self) -> Iterator[tuple[int, ...]]:
        """The complex events ending at the last consumed event, as sorted position tuples."""
        raise NotImplementedError

    def push(self, event: Any) -> list[tuple[int, ...]]:
        """``update(event)`` then the list of the CEs it completes."""
        self.update(event)
        return list(self.outputs())

    def close(self) -> list[tuple[int, ...]]:
        """End of stream: CEL results are all determined at their last event, so none."""
        return []

    def stats(self) -> dict:
        return {}

    def run(self, events) -> list[tuple[int, ...]]:
        """Push every event and close; all results in emission order."""
        res: list[tuple[int, ...]] = []
        for e in events:
            res.extend(self.push(e))
        res.extend(self.close())
        return res


# ---------------------------------------------------------------- determinized states
class _DState:
    """A DFA state: a frozenset of CEA states/configurations plus its flavour.

    ``kind``: 0 = ordinary (ALL), 1 = STRICT empty run E (◦ only towards E, • towards started),
    2 = STRICT started (• only).  ``trans`` caches event class -> (mark target, skip target)."""

    __slots__ = ("confs", "kind", "final", "trans", "__weakref__")

    def __init__(self, confs: frozenset, kind: int, final: bool) -> None:
        self.confs = confs
        self.kind = kind
        self.final = final
        self.trans: dict = {}

    def __repr__(self) -> str:
        return f"D{sorted(self.confs, key=repr)}{'ES'[self.kind - 1] if self.kind else ''}"


class _Meta:
    """A tuple of active DFA states with its cached step plans.

    ``eps``: index of the DFA state whose partial CEs include the empty one (the state of the
    all-◦ run; -1 if that run died).  The empty CE is kept out of the nodes: it is this flag, and
    the state's node holds only its non-empty partial CEs (None if there are none).  So ⊥ only
    ever appears as a direct kid of the union under a fresh ``Out(j, ·)``, never at the bottom of
    a long chain of unions (which would break the delay bound and, under a window, the garbage
    collection: a ⊥-union never expires).

    ``trans``: event class -> (next meta, compiled step) built from a plan: per target, aligned
    with ``next.states``, an entry ``(op, a, b, final)``:
        op 0: carry node a (single ◦ source)
        op 1: Out(j, node a) (single • source, not the eps state)
        op 2: Out(j, node a) ∪ node b (one • and one ◦ source, neither the eps state)
        op 3: general: Out(j, ∪ nodes in tuple a [+ ⊥ if eps in a]) ∪ nodes in tuple b
        op 4: Out(j, ⊥ ∪ node a) (single • source, the eps state)
    ``sub``: tuple of kept indices -> reduced meta (after window pruning)."""

    __slots__ = ("states", "eps", "trans", "sub")

    def __init__(self, states: tuple, eps: int) -> None:
        self.states = states
        self.eps = eps
        self.trans: dict = {}
        self.sub: dict = {}


class DetEvaluator(Evaluator):
    """ALL (``strict=False``) or STRICT (``strict=True``) on a CEA, optionally ``WITHIN w``.

    Args:
        cea: the automaton (any CEA; compiled ones have final states entered only by •).
        options: CEL options (ALL/STRICT have no switches; kept for a uniform signature).
        within: ``w`` of ``WITHIN w`` or None.
        strict: evaluate ``STRICT`` instead of ``ALL``.
        compile_after: uses of a step plan before it is compiled to Python code (default
            ``_COMPILE_AFTER``; 1 compiles every plan at its first use, which the differential
            tests use so that short random streams exercise the generated code).

    This is the *generated* path (``Options.engine_path == "generated"``, the default).  The
    interpreted path over the same automaton, without meta-states, plans or code generation, is
    :class:`ceplab.engine.cel.interpret.InterpretedEvaluator`: read that one first.

    Raises:
        ValueError: ``within < 0``; an event position not larger than the previous one.
    """

    def __init__(self, cea: CEA, options: Options = Options(), within: Optional[int] = None,
                 strict: bool = False, compile_after: int = _COMPILE_AFTER) -> None:
        self.compile_after = compile_after
        self.cea = cea
        self.options = options
        self.within = within
        self.strict = strict
        self.registered = bool(cea.registers)
        self._reg_vars = tuple(sorted(cea.registers))
        self._reg_index = {v: i for i, v in enumerate(self._reg_vars)}
        self._finals = cea.finals
        # transitions by source, with compiled guards
        self._out: dict[int, list] = {q: [] for q in range(cea.n_states)}
        labels = cea.labels()
        self._labels = labels
        lab_idx = {l: i for i, l in enumerate(labels)}
        self._guards = [_label_guard(l, cea.registers) for l in labels]
        self._excluded = frozenset(r for l in labels for r in (getattr(l, "exclude", ()) or ()))
        for t in cea.transitions:
            self._out[t.src].append((lab_idx[t.label], t.mark, t.dst, t.store))
        self._classes: dict[str, Any] = {}
        self._const: dict[str, Any] = {}   # event type -> its class when constant (fast path)
        self._prepare_classes()
        kind = 1 if strict else 0
        init_conf = (cea.initial, (None,) * len(self._reg_vars)) if self.registered else cea.initial
        self._dstates: dict = {}
        self._metas: dict = {}
        self._n_cached = 0
        self.n_flushes = 0
        d0 = self._dstate(frozenset((init_conf,)), kind)
        self._init_meta = self._meta((d0,), 0)
        self.meta = self._init_meta
        self.nodes: list = [None]       # the initial state holds only the empty CE (eps)
        self._outs: list = []
        self._j = -1
        self._last = -1
        self._lo = -1
        if within is not None and within < 0:
            raise ValueError("WITHIN must be >= 0")
        self._every = max(within, 64) if within is not None else 0
        self._next_check = self._every
        self._gc = WindowGC(within) if within is not None else None
        if self._gc is None:
            self._register = None
        else:
            self._register = self._gc.register
        self._codegen_cache: dict = {}
        self.n_events = 0
        self.path = self._describe()

    # ------------------------------------------------------------ description
    def _describe(self) -> str:
        what = ("STRICT: on-the-fly determinized CEA with empty-run state (Algorithm 8)"
                if self.strict else "ALL: on-the-fly determinized CEA (Algorithm 1+4)")
        s = f"{what}, {self.cea.n_states} NFA states, {len(self.cea.transitions)} transitions"
        if self.registered:
            s += f", with register extension for binary filters ({', '.join(self._reg_vars)})"
        if self.within is not None:
            s += f", WITHIN {self.within} (window-pruned ECS with incremental garbage collection)"
        if type(self) is DetEvaluator:
            s += "; generated path (step plans compiled to Python code)"
        return s

    # ------------------------------------------------------------ event classes
    def _prepare_classes(self) -> None:
        labels = self._labels
        self._any_pred = [i for i, l in enumerate(labels)
                          if l.rel is None and not isinstance(l.pred, PTrue)]
        self._by_rel: dict[str, list[int]] = {}
        for i, l in enumerate(labels):
            if l.rel is not None:
                self._by_rel.setdefault(l.rel, []).append(i)
        if self.registered:
            # per label: the current event's attributes its guard reads or its transitions store
            self._label_attrs: list[set[str]] = []
            for l in labels:
                attrs: set[str] = set()
                for c in _cmps(l.pred):
                    if c.var == l.var:
                        attrs.add(c.attr)
                    if isinstance(c, Cmp2) and c.var2 == l.var:
                        attrs.add(c.attr2)
                self._label_attrs.append(attrs)
            for t in self.cea.transitions:
                if t.mark and t.store in self.cea.registers:
                    self._label_attrs[self._labels.index(t.label)] |= set(
                        self.cea.registers[t.store])

    def _class_spec(self, typ: str):
        """For an event type: a constant class, or the guard indices whose truth forms it."""
        rel = self._by_rel.get(typ, [])
        if self.registered:
            if not rel and not self._any_pred and typ not in self._excluded:
                return _NOISE
            relevant = rel + [i for i, l in enumerate(self._labels) if l.rel is None]
            attrs = set().union(*(self._label_attrs[i] for i in relevant)) if relevant else set()
            if not attrs:
                return typ
            return ("reg", typ, tuple(sorted(attrs)))
        idx = [i for i in rel if not isinstance(self._labels[i].pred, PTrue)] + self._any_pred
        if not idx:
            return typ if (rel or typ in self._excluded) else _NOISE
        return ("pred", typ, tuple(idx))

    def classify(self, e) -> Any:
        """The event class of ``e`` (hashable)."""
        t = e.type
        spec = self._classes.get(t)
        if spec is None:
            spec = self._classes[t] = self._class_spec(t)
            if spec.__class__ is str or spec is _NOISE:
                self._const[t] = spec
        if spec.__class__ is str or spec is _NOISE:
            return spec
        if spec[0] == "pred":
            g = self._guards
            return (t,) + tuple([g[i](e, _EMPTY) for i in spec[2]])
        a = e.attrs
        vals = []
        for k in spec[2]:
            v = a.get(k, _MISSING)
            vals.append((v.__class__ is bool, v))
        return (t, tuple(vals))

    # ------------------------------------------------------------ DFA states
    def _dstate(self, confs: frozenset, kind: int) -> Optional[_DState]:
        if not confs:
            return None
        key = (confs, kind)
        d = self._dstates.get(key)
        if d is None:
            self._n_cached += 1
            if self.registered:
                fin = any(q in self._finals for q, _ in confs)
            else:
                fin = not self._finals.isdisjoint(confs)
            d = self._dstates[key] = _DState(confs, kind, fin)
        return d

    def _step_dstate(self, d: _DState, key, e) -> tuple:
        r = d.trans.get(key)
        if r is not None:
            return r
        mark: set = set()
        skip: set = set()
        truth: dict[int, bool] = {}
        g = self._guards
        if not self.registered:
            for q in d.confs:
                for li, m, dst, _s in self._out[q]:
                    v = truth.get(li)
                    if v is None:
                        v = truth[li] = bool(g[li](e, _EMPTY))
                    if v:
                        (mark if m else skip).add(dst)
        else:
            ri = self._reg_index
            layout = self.cea.registers
            for q, regs in d.confs:
                env = {v: regs[i] for v, i in ri.items() if regs[i] is not None}
                for li, m, dst, store in self._out[q]:
                    if g[li](e, env):
                        nregs = regs
                        if m and store is not None and store in ri:
                            vals = tuple(e.attrs.get(a, _MISSING) for a in layout[store])
                            lst = list(regs)
                            lst[ri[store]] = vals
                            nregs = tuple(lst)
                        (mark if m else skip).add((dst, nregs))
        kind = d.kind
        if kind == 0:
            r = (self._dstate(frozenset(mark), 0), self._dstate(frozenset(skip), 0))
        elif kind == 1:
            r = (self._dstate(frozenset(mark), 2), self._dstate(frozenset(skip), 1))
        else:
            r = (self._dstate(frozenset(mark), 2), None)
        d.trans[key] = r
        self._n_cached += 1
        return r

    # ------------------------------------------------------------ meta-states
    def _meta(self, states: tuple, eps: int) -> _Meta:
        key = (states, eps)
        m = self._metas.get(key)
        if m is None:
            self._n_cached += 1
            m = self._metas[key] = _Meta(states, eps)
        return m

    def _plan(self, meta: _Meta, key, e) -> tuple:
        targets: dict[_DState, tuple[list, list]] = {}
        for i, d in enumerate(meta.states):
            mt, st = self._step_dstate(d, key, e)
            if mt is not None:
                targets.setdefault(mt, ([], []))[0].append(i)
            if st is not None:
                targets.setdefault(st, ([], []))[1].append(i)
        order = tuple(targets)
        e0 = meta.eps
        eps = -1
        if e0 >= 0:
            st0 = self._step_dstate(meta.states[e0], key, e)[1]
            if st0 is not None:
                eps = order.index(st0)
        nxt = self._meta(order, eps)
        plan = []
        identity = nxt is meta
        for k, d in enumerate(order):
            ms, ss = targets[d]
            if not ms and len(ss) == 1:
                plan.append((0, ss[0], None, False))
                if ss[0] != k:
                    identity = False
            else:
                identity = False
                if len(ms) == 1 and not ss:
                    plan.append((4 if ms[0] == e0 else 1, ms[0], None, d.final))
                elif len(ms) == 1 and len(ss) == 1 and e0 not in (ms[0], ss[0]):
                    plan.append((2, ms[0], ss[0], d.final))
                else:
                    plan.append((3, tuple(ms), tuple(ss), d.final))
        return nxt, None if identity else (tuple(plan), e0, eps)

    def _reduce(self, meta: _Meta, nodes: list) -> tuple[_Meta, list]:
        """Drop the states whose node is None (dead), except the eps state."""
        eps = meta.eps
        keep = tuple(i for i, n in enumerate(nodes) if n is not None or i == eps)
        m = meta.sub.get(keep)
        if m is None:
            m = meta.sub[keep] = self._meta(tuple(meta.states[i] for i in keep),
                                            keep.index(eps) if eps >= 0 else -1)
        return m, [nodes[i] for i in keep]

    def _maybe_flush_caches(self) -> None:
        if self._n_cached <= _CACHE_LIMIT:
            return
        self._n_cached = 0
        self.n_flushes += 1
        # rebuild from the live meta-state only (unbounded data values with registers)
        live = self.meta.states
        self._dstates = {}
        self._metas = {}
        new = []
        for d in live:
            nd = self._dstate(d.confs, d.kind)
            new.append(nd)
        self.meta = self._meta(tuple(new), self.meta.eps)
        self._init_meta = self.meta
        if len(self._codegen_cache) > 5_000:
            self._codegen_cache = {}

    # ------------------------------------------------------------ the step
    def update(self, e) -> None:
        j = e.position
        if j <= self._last:
            raise ValueError(f"event positions must increase: {j} after {self._last}")
        self._last = j
        self.n_events += 1
        gc = self._gc
        if gc is not None:
            lo = j - self.within
            self._lo = lo
            if lo == gc.lo + 1:       # inlined WindowGC.advance fast path
                gc.lo = lo
                s = (lo - 1) % gc.size
                if gc.ring[s]:
                    gc.sweep(s, lo)
            else:
                gc.advance(lo)
        else:
            lo = -1
        key = self._const.get(e.type)
        if key is None:
            key = self.classify(e)
        meta = self.meta
        r = meta.trans.get(key)
        if r is None:
            r = self._new_step(key, e)
            meta = self.meta
        nxt, fn = r
        if fn is None:
            self._outs = _NO_OUTS
        else:
            outs: list = []
            new, dead = fn(self.nodes, j, lo, outs, self._register)
            if dead:
                nxt, new = self._reduce(nxt, new)
            self.nodes = new
            self._outs = outs
        self.meta = nxt
        if gc is not None and self.n_events >= self._next_check:
            self._next_check = self.n_events + self._every
            self._drop_expired_roots()

    def _new_step(self, key, e):
        if self._n_cached > _CACHE_LIMIT:
            self._maybe_flush_caches()
        meta = self.meta
        nxt, plan = self._plan(meta, key, e)
        fn = None if plan is None else self._lazy_step(meta, key, nxt, plan)
        r = meta.trans[key] = (nxt, fn)
        self._n_cached += 1
        return r

    def _lazy_step(self, meta: _Meta, key, nxt: _Meta, plan: tuple):
        """Interpret a plan until it has been used ``compile_after`` times, then replace it by
        its compiled form (code generation costs ~30 interpreted steps; with registers and
        unbounded data most plans are used only a few times)."""
        uses = [0]
        steps, e0, eps = plan

        def step(N, j, lo, outs, reg):
            uses[0] += 1
            if uses[0] >= self.compile_after:
                fn = self._compile_plan(*plan)
                if meta.trans.get(key, (None, None))[1] is step:
                    meta.trans[key] = (nxt, fn)
                return fn(N, j, lo, outs, reg)
            new = []
            dead = False
            for k, (op, a, b, fin) in enumerate(steps):
                if op == 0:
                    new.append(N[a])
                    continue
                if op == 3:
                    v = _general(N, j, lo, a, b, fin, outs, reg, e0)
                else:
                    v = _general(N, j, lo, (a,), () if b is None else (b,), fin, outs, reg, e0)
                if v is None and k != eps:
                    dead = True
                new.append(v)
            return new, dead

        return step

    def _compile_plan(self, plan: tuple, e0: int, eps: int):
        """Straight-line Python for one step: ``fn(N, j, lo, outs, reg) -> (new nodes, dead)``.

        ``N`` are the current nodes (aligned with the meta-state), ``lo`` the window bound (-1
        without window), ``outs`` collects the ``Out(j, ·)`` nodes of final targets and ``reg``
        registers new union nodes with the window collector."""
        key = ((plan, e0, eps), self._gc is not None)
        fn = self._codegen_cache.get(key)
        if fn is not None:
            return fn
        win = self._gc is not None
        L = ["def step(N, j, lo, outs, reg):", " dead = False"]
        names = []
        for k, (op, a, b, fin) in enumerate(plan):
            v = f"n{k}"
            names.append(v)
            if op == 0:
                L.append(f" {v} = N[{a}]")
                continue
            if op == 3:
                L += self._inline_general(v, a, b, fin, e0, win)
                if k != eps:
                    L.append(f" if {v} is None: dead = True")
                continue
            if op == 4:
                L.append(f" c = N[{a}]")
                if win:
                    L.append(" if c is None or c[0] < lo:")
                else:
                    L.append(" if c is None:")
                L += [f"  {v} = (j, j, BOTTOM)",
                      " else:",
                      "  u = (INF, [BOTTOM, c])"]
                if win:
                    L.append("  reg(u)")
                L.append(f"  {v} = (j, j, u)")
                if fin:
                    L.append(f" outs.append({v})")
                continue
            L.append(f" c = N[{a}]; ms = c[0]")
            if op == 1:
                if win:
                    L.append(" if ms < lo:")
                    L.append(f"  {v} = None; dead = True")
                    L.append(" else:")
                    ind = "  "
                else:
                    ind = " "
                L.append(f"{ind}{v} = (j if ms == INF else ms, j, c)")
                if fin:
                    L.append(f"{ind}outs.append({v})")
                continue
            # op 2: Out(j, N[a]) ∪ N[b]
            L.append(f" s = N[{b}]")
            if not win:
                L.append(" o = (j if ms == INF else ms, j, c)")
                if fin:
                    L.append(" outs.append(o)")
                L.append(f" {v} = (o[0] if o[0] >= s[0] else s[0], [o, s])")
                continue
            L += [" if ms < lo:",
                  "  o = None",
                  " else:",
                  "  o = (j if ms == INF else ms, j, c)"]
            if fin:
                L.append("  outs.append(o)")
            L += [" if s[0] < lo: s = None",
                  " if o is None:",
                  f"  {v} = s",
                  "  if s is None: dead = True",
                  " elif s is None:",
                  f"  {v} = o",
                  " elif o[0] >= s[0]:",
                  f"  {v} = (o[0], [o, s])",
                  f"  reg({v})",
                  " else:",
                  f"  {v} = _insert(s, o, lo, reg)"]
        L.append(f" return [{', '.join(names)}], dead")
        env = {"INF": INF, "BOTTOM": BOTTOM, "_general": _general, "_insert": _insert,
               "_pair": _pair, "_link": _link}
        exec("\n".join(L), env)
        fn = self._codegen_cache[key] = env["step"]
        return fn

    @staticmethod
    def _inline_general(v: str, a: tuple, b: tuple, fin: bool, e0: int, win: bool) -> list[str]:
        """Straight-line code for the two most frequent shapes of a several-contribution target
        (measured on the benchmark queries): ``N[b0] ∪ N[b1]`` and ``Out(j, ∪ N[a])`` with at most
        two contributions; anything else calls :func:`_general`.  Same result as ``_general``."""
        join = "_pair(x, y, lo, reg)" if win else "_link(x, y)"
        if not a and len(b) == 2:
            if not win:
                return [f" x = N[{b[0]}]; y = N[{b[1]}]",
                        f" {v} = y if x is None else (x if y is None else _link(x, y))"]
            # _pair inlined: the larger start (a non-union among equals) on the left; a non-union
            # head links directly, a union head goes through the spine insert
            return [f" x = N[{b[0]}]; y = N[{b[1]}]",
                    " if x is not None and x[0] < lo: x = None",
                    " if y is not None and y[0] < lo: y = None",
                    " if x is None:",
                    f"  {v} = y",
                    " elif y is None:",
                    f"  {v} = x",
                    " else:",
                    "  if x[0] < y[0] or (x[0] == y[0] and len(x) == 2): x, y = y, x",
                    "  if len(x) != 2:",
                    f"   {v} = (x[0], [x, y]); reg({v})",
                    "  else:",
                    f"   {v} = _insert(x, y, lo, reg)"]
        if not b and 1 <= len(a) + (e0 in a) <= 2:
            srcs = [("BOTTOM", True)] if e0 in a else []
            srcs += [(f"N[{i}]", False) for i in a]
            L = []
            for name, (expr, const) in zip(("x", "y"), srcs):
                L.append(f" {name} = {expr}")
                if not const:
                    L.append(f" if {name} is not None and {name}[0] < lo: {name} = None")
            if len(srcs) == 1:
                L.append(" c = x")
            else:
                L.append(f" c = y if x is None else (x if y is None else {join})")
            L += [" if c is None:", f"  {v} = None", " else:", "  ms = c[0]",
                  f"  {v} = (j if ms == INF else ms, j, c)"]
            if fin:
                L.append(f"  outs.append({v})")
            return L
        return [f" {v} = _general(N, j, lo, {a!r}, {b!r}, {fin}, outs, reg, {e0})"]

    def _register(self, u) -> None:
        self._gc.register(u)

    def _drop_expired_roots(self) -> None:
        lo = self._lo
        if any(n is not None and n[0] < lo for n in self.nodes):
            self.meta, self.nodes = self._reduce(
                self.meta, [None if n is None or n[0] < lo else n for n in self.nodes])

    def compact(self) -> None:
        """Rebuild the live DAG keeping only nodes that can still contribute within the window
        (:func:`ceplab.engine.cel.ecs.compact`; not needed in normal operation, where the incremental
        :class:`~ceplab.engine.cel.ecs.WindowGC` keeps memory bounded)."""
        if self.within is None:
            return
        k = len(self.nodes)
        both = compact(self.nodes + self._outs, self._lo)
        new, outs = both[:k], both[k:]
        if any(n is None for n in new):
            self.meta, new = self._reduce(self.meta, new)
        self.nodes = new
        self._outs = [o for o in outs if o is not None]

    def outputs(self) -> Iterator[tuple[int, ...]]:
        return enumerate_all(self._outs, self._lo if self.within is not None else None)

    def output_nodes(self) -> list:
        """The ECS roots (pairwise disjoint ``Out(j, ·)`` nodes) of the CEs ending at the last
        event (for callers that enumerate themselves; pass the window bound :attr:`lower`)."""
        return list(self._outs)

    @property
    def lower(self) -> Optional[int]:
        """Smallest admissible ``min C`` for outputs at the last event (None without window)."""
        return self._lo if self.within is not None else None

    def stats(self) -> dict:
        return {
            "events": self.n_events,
            "active_dfa_states": len(self.meta.states),
            "live_nodes": live_nodes(self.nodes),
            "dfa_states_built": len(self._dstates),
            "meta_states_built": len(self._metas),
            "cache_flushes": self.n_flushes,
            "gc_watched_unions": self._gc.watched() if self._gc else 0,
            "gc_cuts": self._gc.cuts if self._gc else 0,
        }


def _ms(n) -> int:
    return n[0]


_NO_OUTS: list = []


def _general(N, j, lo, a, b, fin, outs, reg, e0):
    """A step target with several contributions: ``Out(j, ∪ N[a]) ∪ N[b]`` (window-pruned);
    ``e0`` is the index of the eps state (its CEs include ∅, i.e. ⊥, and its node may be None).
    Both unions are CORE union-list merges (:func:`ceplab.engine.cel.ecs.merge`): binary union nodes
    whose root has a non-union left child."""
    ks = []
    for i in a:
        n = N[i]
        if i == e0:
            ks.append(BOTTOM)
        if n is not None and n[0] >= lo:
            ks.append(n)
    parts = []
    for i in b:
        n = N[i]
        if n is not None and n[0] >= lo:
            parts.append(n)
    if ks:
        c = ks[0] if len(ks) == 1 else (_link_all(ks) if reg is None else _merge(ks, lo, reg))
        ms = c[0]
        o = (j if ms == INF else ms, j, c)
        if fin:
            outs.append(o)
        parts.append(o)
    if not parts:
        return None
    if len(parts) == 1:
        return parts[0]
    return _link_all(parts) if reg is None else _merge(parts, lo, reg)


def _label_guard(label, registers):
    """:func:`ceplab.engine.cel.automaton.guard`, also honouring the ``exclude`` set of the type labels
    of offline-determinized automata (:class:`ceplab.engine.cel.determinize.TypeLabel`)."""
    g = guard(label, registers)
    ex = getattr(label, "exclude", None)
    if ex:
        return lambda e, r, g=g, ex=ex: e.type not in ex and g(e, r)
    return g


class _Empty(dict):
    """Empty register environment (unary labels never read it)."""


_EMPTY = _Empty()


def _cmps(p):
    if isinstance(p, (Cmp, Cmp2)):
        yield p
    elif isinstance(p, (PAnd, POr)):
        yield from _cmps(p.left)
        yield from _cmps(p.right)
    elif isinstance(p, PNot):
        yield from _cmps(p.arg)


def AllEvaluator(cea: CEA, options: Options = Options(), within: Optional[int] = None,
                 **kw) -> DetEvaluator:
    """ALL semantics (Algorithm 1 on the on-the-fly determinized CEA)."""
    return DetEvaluator(cea, options, within, strict=False, **kw)


def StrictEvaluator(cea: CEA, options: Options = Options(), within: Optional[int] = None,
                    **kw) -> DetEvaluator:
    """STRICT semantics (Algorithm 8)."""
    return DetEvaluator(cea, options, within, strict=True, **kw)
