"""NXT, LAST and MAX evaluation over a CEA (paper Theorem 6, Algorithms 5-7; docs/semantics/cel.md#cel-3.2,
#cel-5.3, #cel-5.5, #cel-10.3 items 4-5, gaps G4, G9, G13, G16).

Dispatch: ``ceplab.engine.cel.evaluator_for_cea`` calls :func:`make_evaluator` ``(cea, strategy, options,
within)``; the classes :class:`NextEvaluator`, :class:`LastEvaluator` and :class:`MaxEvaluator`
``(cea, options, within)`` are the same evaluators. Every evaluator has ``update(event)``,
``outputs()``, ``push(event)``, ``close()``, ``path`` and ``stats()`` (see
:class:`ceplab.engine.cel.evaluate.Evaluator`); results are sorted position tuples; positions are the
events' ``position`` attributes, which must increase.

No generated code: unlike the ALL/STRICT fast path (:class:`ceplab.engine.cel.evaluate.DetEvaluator`),
these evaluators never compile step plans to Python; they are plain interpreted loops, so the engine
option ``Options.engine_path`` ("generated" / "interpreted") runs the same evaluator for NXT, LAST and
MAX (``ceplab.engine.cel.evaluator_for_cea`` notes this in their ``path``).

Configurations
--------------
A *configuration* is what determines the future of a partial run:

* the CEA state ``q`` (the paper's automata);
* ``(q, registers)`` when the CEA uses the register extension for binary filters
  (``cea.registers`` non-empty): labels read ``f(event, regs)`` and marking transitions store
  attribute values, so two runs with the same state and the same register contents accept exactly
  the same suffixes with the same marks;
* plus ``start = min C`` (None before the first mark) under ``WITHIN w``: whether a completed run
  is in the window depends only on ``min C`` and its last position, so runs with equal
  ``(q, registers, start)`` again have identical futures, *including* window admissibility.
  Configurations with ``start < j - w`` at event ``j`` are dropped: nothing through them can be
  output at ``j`` or later.

NXT / LAST (Algorithms 5 and 6, no determinization)
----------------------------------------------------
Suffix-extension lemma (docs/semantics/cel.md#cel-10.3 item 4): if partial runs ρ1, ρ2 reach the same configuration
with marks C1, C2 ⊆ [0, j] and both continue with the same suffix marking D ⊆ (j, ∞), then
``Δ(C1 ∪ D, C2 ∪ D) = Δ(C1, C2)``, so ``C1 ∪ D ≤ C2 ∪ D`` iff ``C1 ≤ C2`` for ≤next and ≤last.
Hence keeping, per configuration, only the best partial CE is exact; it holds verbatim with
registers and with the window start because equal configurations have equal futures (and equal
window admissibility).

The evaluator keeps a *ranking*: an ordered list of disjoint sets of configurations, best first,
with one partial CE per rank (a persistent linked list ``(pos, prev)``, ``None`` = ∅); all
configurations of a rank share it, and different ranks have different CEs. On event ``t`` at ``j``
the new ranking is

    NXT:   δ•(T1), δ◦(T1), δ•(T2), δ◦(T2), ...      (CE of δ•(Ti) is Ci ∪ {j}, of δ◦(Ti) is Ci)
    LAST:  δ•(T1), ..., δ•(Tk), δ◦(T1), ..., δ◦(Tk)

and a configuration keeps its first (best) occurrence. Correctness: all Ci ⊆ [0, j-1]; for NXT
``min Δ(Ci ∪ {j}, Ck) = min Δ(Ci, Ck)`` when i ≠ k, and ``Ci ∪ {j} >next Ci``; for LAST
``max Δ(Ci ∪ {j}, Ck) = j`` so every marked CE beats every unmarked one, and among marked (or
unmarked) ones Δ is unchanged. The empty CE is the worst under both orders, so the initial
rank ``[{I}, ∅]`` stays last. Update cost O(|A|·|t|) per event (O(|Q|) configurations,
each scanning its out-transitions once; labels are evaluated once per event class), no subset
construction. Per-state transition lists are precomputed; for each event class the successor
tuples are cached, and a class under which every current state only loops on itself by ◦ is
skipped in O(1).

Output at j (``options.nxt_output``, docs/semantics/cel.md#cel-G13):

* ``"marked"`` (default): the CE ``Ci ∪ {j}`` of the first rank Ti (in the processing order above)
  having a **marking** transition into a final state. This is the best CE among accepting runs
  ending at j (a run's last transition must mark), so exactly one CE is output at every j with
  ``[[phi]]_j ≠ ∅`` (with WITHIN: ``[[phi WITHIN w]]_j ≠ ∅``) and none otherwise.
* ``"top_ranked"``: the paper's A_NXT rule: the top-ranked rank of the *new* ranking that contains
  a final configuration; it is output only if that rank was entered by marking (its CE contains
  j), since the paper's accepting runs must end with •. On compiled automata (finals entered only
  by •, docs/semantics/cel.md#cel-G14) this coincides with ``"marked"``. On hand-built CEA whose final states are also
  entered by ◦, NXT can miss outputs: the best run into a final state may arrive by ◦ and push
  the •-arrivals below it (tests build such a CEA). It never invents one: if the top final rank
  is a δ• rank, no earlier δ• rank can have had a raw final target, so it is the "marked" output.
  For LAST the two rules always coincide, on every CEA: all δ• ranks precede all δ◦ ranks, so the
  first δ• rank with a final target is also the top-ranked final rank.

MAX (Algorithm 7, docs/semantics/cel.md#cel-5.3 and #cel-G16)
-----------------------------------
Lists per pair (P, T) of configuration sets: P = configurations reached by runs producing exactly
the partial CE C, T = configurations reached by runs producing some C' ⊋ C. Initial (I, ∅) with
node ⊥. On event t at j:

    MoveMarking     (P, T) -> (δ•(P), δ•(T))                    receives Out(j, node)
    MoveNotMarking  (P, T) -> (δ◦(P), δ•(P) ∪ δ•(T) ∪ δ◦(T))     receives node

(no "remove T from P", G16). The pair is a function of C, so the lists of different pairs are
disjoint and enumeration never repeats a CE (G9). Outputs at j: the ``Out(j, ·)`` parts of pairs
with P ∩ F ≠ ∅ and T ∩ F = ∅ (T after a marking move holds exactly the runs producing supersets
that also end by marking at j). Lists are immutable ECS nodes (:mod:`ceplab.engine.cel.ecs`). For the
paper's unary automata without window, P and T are bitmasks, pairs are interned and the pair
transition is cached per (pair, event class) (on-the-fly determinization of the MAX automaton).

Under WITHIN w, P's configurations all carry ``start = min C``; a pair whose start is below
``j - w`` is dropped, T's configurations with ``start < j - w`` are dropped, and T keeps for each
``(q, registers)`` only its largest start (a T-run with a later start dominates everything a run
from the same configuration with an earlier start could, and stays in the window longer). Then
"no windowed superset accepted at j" is exactly T ∩ F = ∅ again. For unary automata the pair is
stored with starts as offsets from the current position (P offset, P bitmask, sorted
(state, offset) tuple for T), which makes the set of pairs finite and the pair transitions
cacheable per (pair, event class, position gap). Cost per event: O(active pairs) dictionary
lookups once cached, independent of the number of windowed outputs.

``options.max_scope = "global"`` (G4 alternative, not streamable): the same-end MAX candidates are
held back; each new candidate removes the held ones it strictly contains (every C' ∈ [[phi]] lies
below some same-end maximal candidate, so this suffices), and :meth:`close` returns the survivors.
``push`` returns nothing in this mode.
"""
from __future__ import annotations

from typing import Any, Iterator, Optional

from ceplab.engine.cel import ecs
from ceplab.engine.cel.ecs import INF
from ceplab.engine.cel.automaton import CEA, guard
from ceplab.engine.cel.evaluate import Evaluator
from ceplab.semantics.cel.ast import Cmp2, PTrue, pred_atoms
from ceplab.semantics.cel.options import Options
from ceplab.semantics.cel.predicates import _MISSING

__all__ = ["NextEvaluator", "LastEvaluator", "MaxEvaluator", "make_evaluator",
           "make_strategy_evaluator", "ce_tuple"]

_CLASS_LIMIT = 50_000      # cached event classes before the cache is cleared
_PAIR_LIMIT = 200_000      # interned MAX pairs before the intern table is rebuilt


def ce_tuple(node) -> tuple[int, ...]:
    """A persistent linked list ``(pos, prev[, start])`` (``None`` = empty) as a sorted tuple."""
    out = []
    while node is not None:
        out.append(node[0])
        node = node[1]
    out.reverse()
    return tuple(out)


class _Regs(dict):
    """Register contents of a run (variable -> tuple of stored attribute values).

    Immutable by convention; equality and hash distinguish booleans from numbers (``True`` and
    ``1`` compare differently under :func:`ceplab.semantics.cel.predicates.compare`)."""

    __slots__ = ("_k",)

    def __init__(self, items=()) -> None:
        super().__init__(items)
        self._k = tuple(sorted((v, tuple((x.__class__, x) for x in vals))
                               for v, vals in self.items()))

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(self._k)

    def __eq__(self, other) -> bool:  # type: ignore[override]
        return isinstance(other, _Regs) and self._k == other._k

    def __ne__(self, other) -> bool:  # type: ignore[override]
        return not self.__eq__(other)

    def with_(self, var: str, vals: tuple) -> "_Regs":
        d = dict(self)
        d[var] = vals
        return _Regs(d)

    def __repr__(self) -> str:
        return f"Regs({dict.__repr__(self)})"


_NOREGS = _Regs()


class _Class:
    """Per event class: successor tables of every CEA state.

    ``msucc[q]`` / ``usucc[q]``: targets of satisfied •/◦ transitions with no register reads
    (deduplicated tuples); ``mhit[q]``: some • target is final; ``stable``: bitmask of states whose
    only satisfied transition is a ◦ self-loop; ``trans[q]``: for the general path, tuples
    ``(dst, mark, store, g)`` of transitions that may fire (``g`` the guard if it reads registers,
    else None); ``cid``: a small integer id."""

    __slots__ = ("cid", "msucc", "usucc", "mhit", "stable", "trans", "mbits", "ubits")


class _Automaton:
    """The CEA prepared for the strategy evaluators: transition lists, guards, event classes."""

    def __init__(self, cea: CEA) -> None:
        self.cea = cea
        n = self.n = cea.n_states
        self.finals = cea.finals
        self.fmask = 0
        for q in cea.finals:
            self.fmask |= 1 << q
        self.isfinal = [q in cea.finals for q in range(n)]
        self.registered = bool(cea.registers)
        labels = cea.labels()
        self.labels = labels
        lab_idx = {l: i for i, l in enumerate(labels)}
        self.guards = [guard(l, cea.registers) for l in labels]
        self.regdep = [bool(l.register_refs()) for l in labels]
        self.out: list[list[tuple]] = [[] for _ in range(n)]
        for t in cea.transitions:
            self.out[t.src].append((lab_idx[t.label], t.mark, t.dst, t.store))
        attrs: set[str] = set()
        for l in labels:
            for c in pred_atoms(l.pred):
                attrs.add(c.attr)
                if isinstance(c, Cmp2):
                    attrs.add(c.attr2)
        self.key_attrs = tuple(sorted(attrs))
        # event types no label names and no untyped non-TRUE label exists: all one class
        self.rels = {l.rel for l in labels if l.rel is not None}
        self.untyped_pred = any(l.rel is None and not isinstance(l.pred, PTrue) for l in labels)
        self.store_attrs = {v: tuple(a) for v, a in cea.registers.items()}
        self.classes: dict[Any, _Class] = {}
        self.by_type: dict[str, _Class] = {}
        self._valued_types: dict[str, bool] = {}
        self.n_classes = 0

    def key(self, e) -> Any:
        """The event class key: None for types no label can match (only TRUE labels fire), the
        type if no label that can match it has a predicate, else the type plus the values (with
        their Python class: ``True`` and ``1`` differ) of every attribute a label reads."""
        t = e.type
        if t not in self.rels and not self.untyped_pred:
            return None
        if not self._valued(t):
            return t
        a = e.attrs
        return (t, tuple([(v.__class__, v) for v in [a.get(k, _MISSING) for k in self.key_attrs]]))

    def _valued(self, t: str) -> bool:
        v = self._valued_types.get(t)
        if v is None:
            v = self._valued_types[t] = any(
                (l.rel is None or l.rel == t) and not isinstance(l.pred, PTrue)
                for l in self.labels)
        return v

    def classify(self, e) -> _Class:
        """The class of ``e`` (cached; a type whose class does not depend on values is looked up
        by type alone)."""
        c = self.by_type.get(e.type)
        if c is not None:
            return c
        k = self.key(e)
        c = self.classes.get(k)
        if c is None:
            if len(self.classes) >= _CLASS_LIMIT:
                self.classes.clear()
            if len(self.by_type) >= _CLASS_LIMIT:
                self.by_type.clear()
            c = self.classes[k] = self._build_class(e)
            self.n_classes += 1
            c.cid = self.n_classes          # never reused, even after the cache is cleared
        if k is None or k.__class__ is str:
            self.by_type[e.type] = c
        return c

    def _build_class(self, e) -> _Class:
        truth: list[Optional[bool]] = []
        for g, dep in zip(self.guards, self.regdep):
            truth.append(None if dep else bool(g(e, _NOREGS)))
        c = _Class()
        msucc, usucc, mhit, trans, mbits, ubits = [], [], [], [], [], []
        stable = 0
        fin = self.isfinal
        for q in range(self.n):
            ms: list[int] = []
            us: list[int] = []
            tr: list[tuple] = []
            for li, m, dst, store in self.out[q]:
                v = truth[li]
                if v is False:
                    continue
                if v is None:
                    rel = self.labels[li].rel
                    if rel is not None and rel != e.type:
                        continue
                    tr.append((dst, m, store, self.guards[li]))
                    continue
                tr.append((dst, m, store, None))
                lst = ms if m else us
                if dst not in lst:
                    lst.append(dst)
            msucc.append(tuple(ms))
            usucc.append(tuple(us))
            mhit.append(any(fin[d] for d in ms))
            trans.append(tuple(tr))
            mb = ub = 0
            for d in ms:
                mb |= 1 << d
            for d in us:
                ub |= 1 << d
            mbits.append(mb)
            ubits.append(ub)
            if not ms and us == [q] and all(x[3] is None for x in tr):
                stable |= 1 << q
        c.msucc, c.usucc, c.mhit, c.trans = msucc, usucc, mhit, trans
        c.mbits, c.ubits, c.stable = mbits, ubits, stable
        return c

    def store_vals(self, var: str, e) -> tuple:
        a = e.attrs
        return tuple(a.get(k, _MISSING) for k in self.store_attrs[var])

    def succ(self, c: _Class, conf: tuple, e, j: int, track_start: bool):
        """Successors ``(mark, conf')`` of a general configuration ``(q, regs, start)``."""
        q, regs, st = conf
        res = []
        for dst, m, store, g in c.trans[q]:
            if g is not None and not g(e, regs):
                continue
            if m:
                nr = regs if store is None or store not in self.store_attrs \
                    else regs.with_(store, self.store_vals(store, e))
                res.append((True, (dst, nr, (j if st is None else st) if track_start else None)))
            else:
                res.append((False, (dst, regs, st)))
        return res


def _describe_cea(cea: CEA) -> str:
    s = f"{cea.n_states} states, {len(cea.transitions)} transitions"
    if cea.registers:
        s += (", configurations = (state, registers) for binary filters ("
              + ", ".join(sorted(cea.registers)) + ")")
    return s


class _Base(Evaluator):
    def __init__(self, cea: CEA, options: Optional[Options], within: Optional[int]) -> None:
        if within is not None and (not isinstance(within, int) or isinstance(within, bool)
                                   or within < 0):
            raise ValueError(f"WITHIN {within}: the window must be a non-negative integer")
        self.cea = cea
        self.options = options if options is not None else Options()
        self.within = within
        self.aut = _Automaton(cea)
        self._last = -1
        self.n_events = 0
        self.n_outputs = 0
        self.n_skipped = 0

    def _advance(self, e) -> int:
        j = e.position
        if j <= self._last:
            raise ValueError(f"event positions must increase: {j} after {self._last}")
        self._last = j
        self.n_events += 1
        return j


# ====================================================================== NXT / LAST
class _RankedEvaluator(_Base):
    """NXT (``last=False``, Algorithm 5) or LAST (``last=True``, Algorithm 6)."""

    def __init__(self, cea: CEA, options: Optional[Options] = None,
                 within: Optional[int] = None, last: bool = False) -> None:
        super().__init__(cea, options, within)
        self.last = last
        self.top_ranked = self.options.nxt_output == "top_ranked"
        self.general = self.aut.registered
        self.windowed = within is not None
        if self.general:
            init = (cea.initial, _NOREGS, None)
        else:
            init = cea.initial
        self._stamp = [-1] * cea.n_states
        self._bits = [1 << q for q in range(cea.n_states)]
        self._ranks: list[tuple[Any, list]] = [(None, [init])]
        self._mask = 1 << cea.initial
        self._out = None
        self._gen = 0
        self.max_configs = 1
        if self.general:
            self._step = self._step_general
        elif self.windowed:
            self._step = self._step_fast_window
        else:
            self._step = self._step_fast_last if last else self._step_fast_nxt
        name, alg = ("LAST", "Algorithm 6") if last else ("NXT", "Algorithm 5")
        order = ("all δ• (rank order) before all δ◦" if last
                 else "δ•(T1), δ◦(T1), δ•(T2), ...")
        s = (f"{name}: ranked runs over the CEA ({alg}, order {order}), no determinization, "
             f"{_describe_cea(cea)}; O(|A|) update")
        if within is not None:
            s += (f"; WITHIN {within}: configurations carry min C (state, start), "
                  f"O(|A|·(w+1)) update")
        s += ("; output: top-ranked final rank (paper rule, G13)" if self.top_ranked
              else "; output: best run entering a final state by • (G13)")
        self.path = s

    # ------------------------------------------------------------------ step
    def update(self, e) -> None:
        j = e.position
        if j <= self._last:
            raise ValueError(f"event positions must increase: {j} after {self._last}")
        self._last = j
        self.n_events += 1
        aut = self.aut
        c = aut.by_type.get(e.type)
        if c is None:
            c = aut.classify(e)
        if not (self._mask & ~c.stable):
            self._out = None                     # every state loops on itself by ◦: no change
            self.n_skipped += 1
            return
        if self.general:
            self._step_general(c, e, j)
        else:
            self._step(c, j)
        if self._out is not None:
            self.n_outputs += 1

    def _step_fast_window(self, c: _Class, j: int) -> None:
        """Unary CEA under WITHIN w: a configuration is (state, start) with start = min C of
        its rank (``node[2]``); dedup keys are ``(start + 1) * |Q| + state``."""
        msucc, usucc, mhit = c.msucc, c.usucc, c.mhit
        lo = j - self.within
        n = self.aut.n
        bits = self._bits
        last = self.last
        seen: set = set()
        new = []
        later = []
        out = None
        mask = 0
        for ce, states in self._ranks:
            if ce is None:
                st = -1
            else:
                st = ce[2]
                if st < lo:
                    continue                          # the rank left the window
            base = (st + 1) * n
            node = None
            ms = None
            for q in states:
                s = msucc[q]
                if s:
                    if node is None:
                        if ce is None:
                            node = (j, None, j)
                            mbase = (j + 1) * n
                        else:
                            node = (j, ce, st)
                            mbase = base
                        ms = []
                    if out is None and mhit[q]:
                        out = node
                    for d in s:
                        k = mbase + d
                        if k not in seen:
                            seen.add(k)
                            ms.append(d)
                            mask |= bits[d]
            if ms:
                new.append((node, ms))
            if last:
                later.append((ce, states, base))
                continue
            us = None
            for q in states:
                for d in usucc[q]:
                    k = base + d
                    if k not in seen:
                        seen.add(k)
                        if us is None:
                            us = [d]
                        else:
                            us.append(d)
                        mask |= bits[d]
            if us is not None:
                new.append((ce, us))
        for ce, states, base in later:
            us = None
            for q in states:
                for d in usucc[q]:
                    k = base + d
                    if k not in seen:
                        seen.add(k)
                        if us is None:
                            us = [d]
                        else:
                            us.append(d)
                        mask |= bits[d]
            if us is not None:
                new.append((ce, us))
        self._ranks = new
        self._mask = mask
        if len(seen) > self.max_configs:
            self.max_configs = len(seen)
        if self.top_ranked:
            out = self._top_ranked_fast(new, j)
        self._out = out

    def _step_fast_nxt(self, c: _Class, j: int) -> None:
        msucc, usucc, mhit = c.msucc, c.usucc, c.mhit
        self._gen += 1
        gen = self._gen
        stamp, bits = self._stamp, self._bits
        new = []
        out = None
        mask = 0
        for ce, states in self._ranks:
            node = None
            ms = None
            for q in states:
                s = msucc[q]
                if s:
                    if node is None:
                        node = (j, ce)
                        ms = []
                    if out is None and mhit[q]:
                        out = node
                    for d in s:
                        if stamp[d] != gen:
                            stamp[d] = gen
                            ms.append(d)
                            mask |= bits[d]
            if ms:
                new.append((node, ms))
            us = None
            for q in states:
                for d in usucc[q]:
                    if stamp[d] != gen:
                        stamp[d] = gen
                        if us is None:
                            us = [d]
                        else:
                            us.append(d)
                        mask |= bits[d]
            if us is not None:
                new.append((ce, us))
        self._ranks = new
        self._mask = mask
        if self.top_ranked:
            out = self._top_ranked_fast(new, j)
        self._out = out

    def _step_fast_last(self, c: _Class, j: int) -> None:
        msucc, usucc, mhit = c.msucc, c.usucc, c.mhit
        self._gen += 1
        gen = self._gen
        stamp, bits = self._stamp, self._bits
        new = []
        out = None
        mask = 0
        ranks = self._ranks
        for ce, states in ranks:
            node = None
            ms = None
            for q in states:
                s = msucc[q]
                if s:
                    if node is None:
                        node = (j, ce)
                        ms = []
                    if out is None and mhit[q]:
                        out = node
                    for d in s:
                        if stamp[d] != gen:
                            stamp[d] = gen
                            ms.append(d)
                            mask |= bits[d]
            if ms:
                new.append((node, ms))
        for ce, states in ranks:
            us = None
            for q in states:
                for d in usucc[q]:
                    if stamp[d] != gen:
                        stamp[d] = gen
                        if us is None:
                            us = [d]
                        else:
                            us.append(d)
                        mask |= bits[d]
            if us is not None:
                new.append((ce, us))
        self._ranks = new
        self._mask = mask
        if self.top_ranked:
            out = self._top_ranked_fast(new, j)
        self._out = out

    def _top_ranked_fast(self, new: list, j: int):
        fin = self.aut.isfinal
        for ce, states in new:
            for q in states:
                if fin[q]:
                    return ce if ce is not None and ce[0] == j else None
        return None

    def _step_general(self, c: _Class, e, j: int) -> None:
        aut = self.aut
        w = self.within
        track = w is not None
        lo = j - w if track else None
        fin = aut.isfinal
        seen: set = set()
        new = []
        out = None
        unmarked: list = []          # LAST: (ce, [confs]) deferred
        nconf = 0
        for ce, confs in self._ranks:
            if track and ce is not None and ce[2] < lo:
                continue                                  # the whole rank left the window
            node = None
            ms: list = []
            us: list = []
            hit = False
            for conf in confs:
                for m, nc in aut.succ(c, conf, e, j, track):
                    if m:
                        if fin[nc[0]]:
                            hit = True
                        if nc not in seen:
                            ms.append(nc)
                    else:
                        us.append(nc)
                # ◦-successors are deduplicated after all • ones of this rank (NXT order)
            if ms or hit:
                start = (j if ce is None else ce[2]) if track else None
                node = (j, ce, start) if track else (j, ce)
                if hit and out is None:
                    out = node
                kept = []
                for nc in ms:
                    if nc not in seen:
                        seen.add(nc)
                        kept.append(nc)
                if kept:
                    new.append((node, kept))
                    nconf += len(kept)
            if self.last:
                if us:
                    unmarked.append((ce, us))
            else:
                kept = []
                for nc in us:
                    if nc not in seen:
                        seen.add(nc)
                        kept.append(nc)
                if kept:
                    new.append((ce, kept))
                    nconf += len(kept)
        for ce, us in unmarked:
            kept = []
            for nc in us:
                if nc not in seen:
                    seen.add(nc)
                    kept.append(nc)
            if kept:
                new.append((ce, kept))
                nconf += len(kept)
        self._ranks = new
        mask = 0
        for _ce, confs in new:
            for nc in confs:
                mask |= 1 << nc[0]
        self._mask = mask
        if nconf > self.max_configs:
            self.max_configs = nconf
        if self.top_ranked:
            out = None
            for ce, confs in new:
                if any(fin[nc[0]] for nc in confs):
                    if ce is not None and ce[0] == j:
                        out = ce
                    break
        self._out = out

    # ------------------------------------------------------------------ output
    def outputs(self) -> Iterator[tuple[int, ...]]:
        if self._out is not None:
            yield ce_tuple(self._out)

    def best(self) -> Optional[tuple[int, ...]]:
        """The CE output at the last event, or None."""
        return next(iter(self.outputs()), None)

    def ranking(self) -> list[tuple[tuple[int, ...], list]]:
        """The current ranking, best first: (partial CE, configurations) per rank. A
        configuration is a state, ``(state, start)`` under WITHIN, ``(state, registers, start)``
        with registers. (Ranks already out of the window may linger until the next step.)"""
        if self.windowed and not self.general:       # configurations are (state, start)
            return [(ce_tuple(ce), [(q, None if ce is None else ce[2]) for q in confs])
                    for ce, confs in self._ranks]
        return [(ce_tuple(ce), list(confs)) for ce, confs in self._ranks]

    def stats(self) -> dict:
        nconf = sum(len(c) for _, c in self._ranks)
        return {"events": self.n_events, "outputs": self.n_outputs, "ranks": len(self._ranks),
                "configurations": nconf, "max_configurations": max(self.max_configs, nconf),
                "event_classes": len(self.aut.classes), "skipped_events": self.n_skipped}


class NextEvaluator(_RankedEvaluator):
    """``NXT(phi)`` (optionally ``WITHIN w``) over a CEA, Algorithm 5 (see module docstring)."""

    def __init__(self, cea: CEA, options: Optional[Options] = None,
                 within: Optional[int] = None) -> None:
        super().__init__(cea, options, within, last=False)


class LastEvaluator(_RankedEvaluator):
    """``LAST(phi)`` (optionally ``WITHIN w``) over a CEA, Algorithm 6 (see module docstring)."""

    def __init__(self, cea: CEA, options: Optional[Options] = None,
                 within: Optional[int] = None) -> None:
        super().__init__(cea, options, within, last=True)


# ====================================================================== MAX
class MaxEvaluator(_Base):
    """``MAX(phi)`` (optionally ``WITHIN w``) over a CEA, Algorithm 7 (see module docstring).

    ``options.max_scope == "global"`` holds the results back until :meth:`close`.
    """

    def __init__(self, cea: CEA, options: Optional[Options] = None,
                 within: Optional[int] = None) -> None:
        super().__init__(cea, options, within)
        self.global_scope = self.options.max_scope == "global"
        self.general = self.aut.registered
        self.windowed = within is not None
        self._outs: list = []
        self._amask = 1 << cea.initial
        if self.general:
            init = ((frozenset([(cea.initial, _NOREGS, None)]), frozenset()))
            self._active: dict = {init: ecs.BOTTOM}
        else:
            self._ids: dict = {}
            self._keys: list = []
            self._pfinal: list = []
            self._union: list = []           # states of P ∪ T (bitmask) per pair id
            self._tcache: dict = {}
            key0 = (None, 1 << cea.initial, ()) if self.windowed else (1 << cea.initial, 0)
            self._active = {self._intern(key0): ecs.BOTTOM}
            self._amask = 1 << cea.initial
            self._prev = None                # position of the previous event (window offsets)
        self._held: dict[int, set] = {}       # global scope: end -> candidates
        self.max_pairs = 1
        s = (f"MAX: (P,T) pairs over the CEA with ECS lists (Algorithm 7, MoveMarking / "
             f"MoveNotMarking, on-the-fly), {_describe_cea(cea)}")
        if not self.general:
            s += ("; P, T as state bitmasks, pairs interned, pair transitions cached per "
                  "(pair, event class)")
        if within is not None:
            s += (f"; WITHIN {within}: configurations carry min C, T keeps the latest start per "
                  f"configuration")
            if not self.general:
                s += " (starts stored as offsets from the current position, so cacheable)"
        if self.global_scope:
            s += ("; max_scope=global: same-end maximal CEs are held and results are returned "
                  "only at the end of the stream (close())")
        self.path = s

    # ------------------------------------------------------------ fast (bitmask) path
    # A pair key is (P mask, T mask) without window, and (P offset, P mask, T) under WITHIN,
    # with P offset = j - min C (None before the first mark) and T a sorted tuple of
    # (state, j - latest start) pairs, j being the position of the last event.
    def _intern(self, key: tuple) -> int:
        i = self._ids.get(key)
        if i is None:
            i = self._ids[key] = len(self._keys)
            self._keys.append(key)
            fm = self.aut.fmask
            if self.windowed:
                _ps, p, tt = key
                t = 0
                for q, _o in tt:
                    t |= 1 << q
            else:
                p, t = key
            self._pfinal.append(bool(p & fm) and not (t & fm))
            self._union.append(p | t)
        return i

    def _rebuild_interning(self) -> None:
        keys = [self._keys[i] for i in self._active]
        nodes = list(self._active.values())
        self._ids, self._keys, self._pfinal, self._union, self._tcache = {}, [], [], [], {}
        self._active = {self._intern(k): n for k, n in zip(keys, nodes)}

    @staticmethod
    def _img(mask: int, table: list) -> int:
        r = 0
        q = 0
        while mask:
            if mask & 1:
                r |= table[q]
            mask >>= 1
            q += 1
        return r

    def _pair_step(self, pid: int, c: _Class, g: int) -> tuple[int, int]:
        """(MoveMarking target id, MoveNotMarking target id), -1 for none; ``g`` is the gap to
        the previous position (window offsets age by g)."""
        mb, ub = c.mbits, c.ubits
        if not self.windowed:
            p, t = self._keys[pid]
            mp, up = self._img(p, mb), self._img(p, ub)
            mt, ut = self._img(t, mb), self._img(t, ub)
            mid = self._intern((mp, mt)) if mp else -1
            uid = self._intern((up, mp | mt | ut)) if up else -1
            return mid, uid
        w = self.within
        ps, p, tt = self._keys[pid]
        if ps is not None:
            ps += g
            if ps > w:
                return -1, -1                 # min C left the window: the pair is dead
        msucc, usucc = c.msucc, c.usucc
        mp, up = self._img(p, mb), self._img(p, ub)
        mt: dict[int, int] = {}
        ut: dict[int, int] = {}
        for q, off in tt:
            off += g
            if off > w:
                continue
            for d in msucc[q]:
                if off < mt.get(d, INF):
                    mt[d] = off
            for d in usucc[q]:
                if off < ut.get(d, INF):
                    ut[d] = off
        mps = 0 if ps is None else ps        # offset of min(C ∪ {j})
        mid = uid = -1
        if mp:
            mid = self._intern((mps, mp, tuple(sorted(mt.items()))))
        if up:
            for d, off in mt.items():
                if off < ut.get(d, INF):
                    ut[d] = off
            q = 0
            m = mp
            while m:
                if m & 1 and mps < ut.get(q, INF):
                    ut[q] = mps
                m >>= 1
                q += 1
            uid = self._intern((ps, up, tuple(sorted(ut.items()))))
        return mid, uid

    def _step_fast(self, c: _Class, j: int) -> None:
        if self.windowed:
            g = 1 if self._prev is None else j - self._prev
            self._prev = j
            cid = (c.cid, g)
        else:
            if not (self._amask & ~c.stable):
                self._outs = []
                self.n_skipped += 1
                return
            g = 0
            cid = c.cid
        if len(self._keys) > _PAIR_LIMIT:
            self._rebuild_interning()
        cache = self._tcache
        newm: dict[int, list] = {}
        newu: dict[int, list] = {}
        for pid, node in self._active.items():
            k = (pid, cid)
            r = cache.get(k)
            if r is None:
                r = cache[k] = self._pair_step(pid, c, g)
            mid, uid = r
            if mid >= 0:
                o = ecs.out(j, node)
                lst = newm.get(mid)
                if lst is None:
                    newm[mid] = [o]
                else:
                    lst.append(o)
            if uid >= 0:
                lst = newu.get(uid)
                if lst is None:
                    newu[uid] = [node]
                else:
                    lst.append(node)
        active: dict = {}
        outs = []
        pfinal = self._pfinal
        union = ecs.link_all
        for mid, lst in newm.items():
            mn = lst[0] if len(lst) == 1 else union(lst)
            if pfinal[mid]:
                outs.append(mn)
            ul = newu.pop(mid, None)
            active[mid] = mn if ul is None else union([mn] + ul)
        for uid, lst in newu.items():
            active[uid] = lst[0] if len(lst) == 1 else union(lst)
        amask = 0
        un = self._union
        for pid in active:
            amask |= un[pid]
        self._amask = amask
        self._active = active
        self._outs = outs

    # ------------------------------------------------------------ general path
    def _set_step(self, confs, c: _Class, e, j: int, track: bool, lo) -> tuple[set, set]:
        mk: set = set()
        sk: set = set()
        succ = self.aut.succ
        for conf in confs:
            if track and conf[2] is not None and conf[2] < lo:
                continue
            for m, nc in succ(c, conf, e, j, track):
                (mk if m else sk).add(nc)
        return mk, sk

    @staticmethod
    def _latest(confs: set) -> frozenset:
        """Keep for each (state, registers) only the largest start (T under WITHIN)."""
        best: dict = {}
        for q, r, s in confs:          # T-runs have marked something: s is never None
            k = (q, r)
            if best.get(k, -1) < s:
                best[k] = s
        return frozenset((q, r, s) for (q, r), s in best.items())

    def _step_general(self, c: _Class, e, j: int) -> None:
        if not (self._amask & ~c.stable):
            self._outs = []                      # every pair maps to itself without output
            self.n_skipped += 1
            return
        w = self.within
        track = w is not None
        lo = j - w if track else None
        fin = self.aut.isfinal
        newm: dict = {}
        newu: dict = {}
        for (P, T), node in self._active.items():
            if track:
                st = next(iter(P))[2]
                if st is not None and st < lo:
                    continue
            mp, up = self._set_step(P, c, e, j, track, lo)
            mt, ut = self._set_step(T, c, e, j, track, lo)
            if mp:
                nt = self._latest(mt) if track else frozenset(mt)
                newm.setdefault((frozenset(mp), nt), []).append(ecs.out(j, node))
            if up:
                allt = mp | mt | ut
                nt = self._latest(allt) if track else frozenset(allt)
                newu.setdefault((frozenset(up), nt), []).append(node)
        active: dict = {}
        outs = []
        for key, lst in newm.items():
            mn = ecs.link_all(lst)
            P, T = key
            if any(fin[x[0]] for x in P) and not any(fin[x[0]] for x in T):
                outs.append(mn)
            ul = newu.pop(key, None)
            active[key] = mn if ul is None else ecs.link_all([mn] + ul)
        for key, lst in newu.items():
            active[key] = ecs.link_all(lst)
        amask = 0
        for P, T in active:
            for x in P:
                amask |= 1 << x[0]
            for x in T:
                amask |= 1 << x[0]
        self._amask = amask
        self._active = active
        self._outs = outs

    # ------------------------------------------------------------ API
    def update(self, e) -> None:
        j = self._advance(e)
        c = self.aut.classify(e)
        if self.general:
            self._step_general(c, e, j)
        else:
            self._step_fast(c, j)
        if len(self._active) > self.max_pairs:
            self.max_pairs = len(self._active)
        if self.global_scope and self._outs:
            self._hold(j)

    def _same_end(self) -> Iterator[tuple[int, ...]]:
        return ecs.enumerate_all(self._outs)

    def _hold(self, j: int) -> None:
        held = self._held
        new = set(self._same_end())
        for c in new:
            cs = set(c)
            for p in c[:-1]:
                h = held.get(p)
                if h:
                    dead = [d for d in h if cs.issuperset(d)]
                    for d in dead:
                        h.discard(d)
                    if not h:
                        del held[p]
        if new:
            held[j] = new

    def outputs(self) -> Iterator[tuple[int, ...]]:
        if self.global_scope:
            return iter(())
        return self._counted(self._same_end())

    def _counted(self, it):
        for c in it:
            self.n_outputs += 1
            yield c

    def close(self) -> list[tuple[int, ...]]:
        if not self.global_scope:
            return []
        res = sorted((c for h in self._held.values() for c in h), key=lambda c: (c[-1], c))
        self._held = {}
        self.n_outputs += len(res)
        return res

    def stats(self) -> dict:
        d = {"events": self.n_events, "outputs": self.n_outputs,
             "active_pairs": len(self._active), "max_active_pairs": self.max_pairs,
             "event_classes": len(self.aut.classes), "skipped_events": self.n_skipped,
             "live_nodes": ecs.live_nodes(self._active.values())}
        if not self.general:
            d["pairs_built"] = len(self._keys)
            d["cached_pair_transitions"] = len(self._tcache)
        if self.global_scope:
            d["held"] = sum(len(h) for h in self._held.values())
        return d


# ====================================================================== factories
def make_evaluator(cea: CEA, strategy: str, options: Optional[Options] = None,
                   within: Optional[int] = None):
    """The NXT / LAST / MAX evaluator over ``cea`` (used by ``ceplab.engine.cel.evaluator_for_cea``)."""
    cls = {"NXT": NextEvaluator, "LAST": LastEvaluator, "MAX": MaxEvaluator}.get(strategy)
    if cls is None:
        raise ValueError(f"ceplab.engine.cel.strategies handles NXT, LAST and MAX, not {strategy!r}")
    return cls(cea, options, within)


def make_strategy_evaluator(query, cea: CEA, options: Optional[Options] = None):
    """Same as :func:`make_evaluator` with strategy and window taken from ``query``."""
    return make_evaluator(cea, query.strategy, options, query.within)
