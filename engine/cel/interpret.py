"""The interpreted path of ALL and STRICT: the reference reading of the engine (paper Algorithm 1,
with Algorithm 4 for the determinization and Algorithm 8 for STRICT; docs/semantics/cel.md#cel-5.5, #cel-10.3).

:class:`InterpretedEvaluator` evaluates the **same automaton** as the generated path
(:class:`ceplab.engine.cel.evaluate.DetEvaluator`): the same on-the-fly I/O-determinization (the
determinized states, event classes and transition caches are inherited from ``DetEvaluator``, so
both paths build the same DFA states) and the same ECS operations of :mod:`ceplab.engine.cel.ecs`
(``out``, ``link_all`` without a window, ``merge`` plus :class:`~ceplab.engine.cel.ecs.WindowGC`
under ``WITHIN``).  What it leaves out is the speed machinery: no meta-states, no cached step
plans and no generated Python code.  Each event runs the loop below, which follows the paper's
Algorithm 1 line by line:

    for each event t at position j:
        for each active DFA state S, holding node n:        (n = the partial CEs of S's run)
            T• := δ(S, t, •)     gets  Out(j, n)            (mark j; ⊥ too if S holds ∅)
            T◦ := δ(S, t, ◦)     gets  n                    (skip j)
        for each target T, in order of first contribution:
            node(T) := Out(j, ∪ marking sources) ∪ (∪ skipping sources)
            if T is final: output the CEs of Out(j, ∪ marking sources)

The determinized automaton is I/O-deterministic, so different DFA states hold disjoint sets of
partial CEs, every union above is a union of disjoint sets, and no CE is enumerated twice (docs/semantics/cel.md#cel-G9).  As in the generated path the empty partial CE ∅ (⊥) is not stored in any node: ``eps`` is
the index of the DFA state of the all-◦ run, and ⊥ enters a node only directly under a fresh
``Out(j, ·)``.  STRICT needs no extra code here: its DFA states carry a flavour (the empty-run
state E follows only ◦, started states only •, Algorithm 8) that ``_step_dstate`` honours.

``WITHIN w``: at position ``j`` a node whose ``max_start < j - w`` can contribute nothing now or
later; such nodes are read as "no node" (a DFA state left with no node and not holding ∅ is dead
and dropped at once), and the window collector cuts expired kids out of union nodes.

Results (the set of CEs emitted at each position) are identical to the generated path's; this is
checked by ``tests/cel/test_cel_interpreted.py`` on random queries and streams.  The order in which
CEs of one position are enumerated is not part of the contract (the generated path itself orders
one kind of union differently once a step plan is compiled).

Select it with ``Options(engine_path="interpreted")`` (``ceplab run cel Q S --set
engine_path=interpreted``).  NXT, LAST and MAX (:mod:`ceplab.engine.cel.strategies`) never
generate code, so for them both settings run the same evaluator.
"""
from __future__ import annotations

from typing import Any, Optional

from ceplab.engine.cel.automaton import CEA
from ceplab.engine.cel.ecs import BOTTOM, compact, link_all, live_nodes, merge, out
from ceplab.engine.cel.evaluate import _CACHE_LIMIT, DetEvaluator, _DState
from ceplab.semantics.cel.options import Options

__all__ = ["InterpretedEvaluator"]


class InterpretedEvaluator(DetEvaluator):
    """ALL (``strict=False``) or STRICT (``strict=True``) on a CEA by the plain Algorithm 1 loop.

    Args:
        cea: the automaton (any CEA; compiled ones have final states entered only by •).
        options: CEL options (ALL/STRICT have no semantic switches; kept for a uniform signature).
        within: ``w`` of ``WITHIN w`` (an int >= 0) or None.
        strict: evaluate ``STRICT`` (Algorithm 8) instead of ``ALL``.

    State between events:
        ``states``: the active DFA states (:class:`ceplab.engine.cel.evaluate._DState`), in the
        order of their first contribution at the last step;
        ``nodes``: aligned with ``states``, the ECS node of each (None: only ∅, see ``eps``);
        ``eps``: the index in ``states`` of the state holding ∅ (the all-◦ run), -1 once it died.

    Raises:
        ValueError: ``within < 0`` (constructor); an event whose position is not larger than the
            previous one (:meth:`update`).
    """

    def __init__(self, cea: CEA, options: Options = Options(), within: Optional[int] = None,
                 strict: bool = False) -> None:
        super().__init__(cea, options, within, strict)
        self.states: list[_DState] = [self._init_meta.states[0]]
        self.nodes = [None]
        self.eps = 0
        self.path = self._describe()

    def _describe(self) -> str:
        return super()._describe() + "; interpreted path (reference reading, no generated code)"

    # ------------------------------------------------------------ ECS helpers
    def _union(self, parts: list, lo: int) -> Any:
        """Disjoint union of >= 1 nodes, as the generated path builds it: ``link_all`` without a
        window, the sorted ``merge`` (registering new unions with the collector) under one."""
        if len(parts) == 1:
            return parts[0]
        if self._gc is None:
            return link_all(parts)
        return merge(parts, lo, self._gc.register)

    # ------------------------------------------------------------ the step (Algorithm 1)
    def update(self, e: Any) -> None:
        """Consume event ``e`` (an object with ``position``, ``type`` and ``attrs``).

        Raises:
            ValueError: ``e.position`` is not larger than the previous event's.
        """
        j = e.position
        if j <= self._last:
            raise ValueError(f"event positions must increase: {j} after {self._last}")
        self._last = j
        self.n_events += 1
        lo = -1                                   # no window: every node is live
        if self._gc is not None:
            lo = self._lo = j - self.within       # WITHIN w: CEs need min C >= j - w
            self._gc.advance(lo)
        if self._n_cached > _CACHE_LIMIT:
            self._flush_caches()
        t = self.classify(e)                      # the event class decides every transition

        def live(i: int) -> Any:
            """The node of active state i, or None if it has none or it expired."""
            n = self.nodes[i]
            return n if n is not None and n[0] >= lo else None

        # Algorithm 1, first loop: which active states move into which targets, by • or by ◦.
        targets: dict[_DState, tuple[list[int], list[int]]] = {}
        eps_target = None
        for i, S in enumerate(self.states):
            t_mark, t_skip = self._step_dstate(S, t, e)     # δ(S, t, •), δ(S, t, ◦)
            if t_mark is not None:
                targets.setdefault(t_mark, ([], []))[0].append(i)
            if t_skip is not None:
                targets.setdefault(t_skip, ([], []))[1].append(i)
            if i == self.eps:
                eps_target = t_skip               # the all-◦ run continues by skipping j

        # Second loop: build each target's node; final targets output their marked part.
        states: list[_DState] = []
        nodes: list = []
        eps = -1
        outs: list = []
        for T, (marking, skipping) in targets.items():
            continued = []                        # partial CEs that mark j to enter T
            for i in marking:
                if i == self.eps:
                    continued.append(BOTTOM)      # ∅ ∪ {j}
                n = live(i)
                if n is not None:
                    continued.append(n)
            parts = [n for n in map(live, skipping) if n is not None]
            if continued:
                o = out(j, self._union(continued, lo))
                parts.append(o)
                if T.final:
                    outs.append(o)                # CEs ending at j: runs that end by marking
            node = self._union(parts, lo) if parts else None
            if T is eps_target:
                eps = len(states)
            elif node is None:
                continue                          # no run reaches T: T is dead
            states.append(T)
            nodes.append(node)
        self.states, self.nodes, self.eps, self._outs = states, nodes, eps, outs

    # ------------------------------------------------------------ housekeeping
    def _flush_caches(self) -> None:
        """Forget every cached DFA state and transition except the active states (the cache is
        unbounded with registers and unbounded data values)."""
        self._n_cached = 0
        self.n_flushes += 1
        self._dstates = {}
        self.states = [self._dstate(d.confs, d.kind) for d in self.states]

    def compact(self) -> None:
        """Rebuild the live DAG keeping only nodes that can still contribute within the window
        (:func:`ceplab.engine.cel.ecs.compact`; not needed in normal operation)."""
        if self.within is None:
            return
        k = len(self.nodes)
        both = compact(self.nodes + self._outs, self._lo)
        keep = [i for i in range(k) if both[i] is not None or i == self.eps]
        self.eps = keep.index(self.eps) if self.eps >= 0 else -1
        self.states = [self.states[i] for i in keep]
        self.nodes = [both[i] for i in keep]
        self._outs = [o for o in both[k:] if o is not None]

    def stats(self) -> dict:
        return {
            "events": self.n_events,
            "active_dfa_states": len(self.states),
            "live_nodes": live_nodes(self.nodes),
            "dfa_states_built": len(self._dstates),
            "cache_flushes": self.n_flushes,
            "gc_watched_unions": self._gc.watched() if self._gc else 0,
            "gc_cuts": self._gc.cuts if self._gc else 0,
        }
