"""Nested selection strategies, compositional reading (EXTENSION, docs/semantics/cel.md#cel-G5;
``Options(nested_strategies="compositional")``).

A nested ``SEL(psi)`` is closed (checked by :func:`ceplab.semantics.cel.analysis.check_closed`), so it
denotes ``SEL([[psi]](S))`` per end position whatever the outer valuation. A complex event
automaton cannot express it as a sub-automaton (SEL compares *different* runs), so the evaluation
is compositional:

1. every distinct nested ``SEL(psi WITHIN n)`` gets its own incremental evaluator, the ordinary
   :func:`ceplab.engine.cel.evaluator` on the stand-alone query (recursively, for nested strategies inside
   psi; MAX compares per end position, ``max_scope`` is for the top level). It reports each
   selected complex event C at ``max C``;
2. the outer formula is compiled to a CEA (the usual pipeline) with each occurrence of a nested
   strategy replaced by a placeholder atom of a reserved type; a transition ``p --block k--> q``
   means "the run, in p after position ``min C - 1``, consumes the whole block C and is in q after
   ``max C``" (no other part of the outer formula can mark inside ``[min C, max C]``: ``;`` and
   ``+`` concatenate with ``max C1 < min C2``, OR picks one side);
3. the outer run is simulated on the NFA with **materialised** partial complex events: per
   configuration (state, registers) the set of partial CEs (sorted position tuples; sets, so every
   CE is produced once). Per event at position j: the ordinary transitions (• appends j, ◦ keeps),
   then for each C that a block reports at j, the partial CEs D of the block transition's source
   *just before position min C* (a per-position history, kept for the source states of block
   transitions) give ``D + C`` in the target. The CEs at j are the partial CEs containing j in a
   final configuration (only • or a block can add j, so a run ends by marking, docs/semantics/cel.md#cel-G13).
4. the top-level strategy is applied to the CEs of each end position (STRICT, NXT, LAST, MAX with
   ``max_scope="same_end"``); MAX with ``max_scope="global"`` holds every result back until
   ``close()``. ``WITHIN w`` drops partial CEs with ``min < j - w`` at every step.

Complexity (honest): the work per event is proportional to the number of live partial CEs times
the automaton size, plus the sub-evaluators' own cost. With a top-level ``WITHIN w`` a live partial
CE lies in the last w+1 positions, so there are at most ``|Q| * 2^(w+1)`` of them (times register
contents) and the history spans w+1 positions: the update cost is independent of the stream length
(exponential in w). Without a window both are unbounded: the partial CEs can grow exponentially with
the stream (``(A AS x)+ ; NXT(B AS y)`` keeps every subset of the A's) and the history (only for
block-source states; bounded by the blocks' own ``WITHIN`` when every block has one) linearly. This
is the price of materialisation; the paper's constant-delay structures (ECS) are not used here.

Not supported here (``UnsupportedError``): a nested strategy inside either side of ``AND`` (the product
automaton of AND cannot synchronise a block with the other side's run); :func:`ceplab.engine.cel.evaluator`
then evaluates the query by binding runs (:mod:`ceplab.engine.cel.runs`).
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from typing import Any, Callable, Iterator, Optional

from ceplab.semantics.cel import ast as A
from ceplab.semantics.cel.options import Options
from ceplab.semantics.cel.predicates import _MISSING
from ceplab.semantics.errors import UnsupportedError

from ceplab.engine.cel.automaton import guard
from ceplab.engine.cel.evaluate import Evaluator

__all__ = ["NestedEvaluator", "BLOCK_PREFIX"]

_NOREGS: dict = {}

#: Event types of the placeholder atoms (not a CEL name, so no stream event can have it).
BLOCK_PREFIX = "\x00SEL#"


def _le_next(c1: tuple, c2: tuple) -> bool:
    d = set(c1) ^ set(c2)
    return not d or min(d) in c2


def _le_last(c1: tuple, c2: tuple) -> bool:
    d = set(c1) ^ set(c2)
    return not d or max(d) in c2


def select_same_end(strategy: str, ces: set) -> list:
    """A selection strategy over complex events that all end at the same position (paper section
    4, docs/semantics/cel.md#cel-3.2): STRICT keeps intervals, NXT/LAST the greatest under ``<=next``/``<=last``
    (unique: total orders), MAX the subset-maximal ones."""
    if strategy == "ALL" or not ces:
        return sorted(ces)
    if strategy == "STRICT":
        return sorted(c for c in ces if len(c) == c[-1] - c[0] + 1)
    if strategy in ("NXT", "LAST"):
        le = _le_next if strategy == "NXT" else _le_last
        best = None
        for c in ces:
            if best is None or le(best, c):
                best = c
        return [best]
    if strategy == "MAX":
        sets = [(c, frozenset(c)) for c in ces]
        return sorted(c for c, s in sets if not any(s < t for _, t in sets))
    raise UnsupportedError(f"selection strategy {strategy!r} is not supported by the engine")


class SelectingEvaluator(Evaluator):
    """What the evaluators that collect all complex events ending at each position share: the selection
    strategy applied to them (:func:`select_same_end`), or, for MAX with ``max_scope="global"``, every complex
    event held until ``close()`` (docs/semantics/cel.md#cel-3.2).  Subclasses call :meth:`_init_selection` once
    and :meth:`_select` after each event."""

    def _init_selection(self, strategy: str, options: Any) -> None:
        self.strategy = strategy
        self._outs: list = []
        self._held: set = set()
        self._deferred = strategy == "MAX" and options.max_scope == "global"

    def _select(self, done: set) -> None:
        """The complex events ``done`` that end at the current position: select now, or hold them."""
        if self._deferred:
            self._held |= done
            self._outs = []
        else:
            self._outs = select_same_end(self.strategy, done)

    def outputs(self) -> Iterator[tuple[int, ...]]:
        return iter(self._outs)

    def close(self) -> list[tuple[int, ...]]:
        """Global MAX (``max_scope="global"``): the subset-maximal CEs of the whole stream."""
        if not self._deferred:
            return []
        sets = [(c, frozenset(c)) for c in self._held]
        self._held = set()
        return sorted(c for c, s in sets if not any(s < t for _, t in sets))


def _and_with_block(f: A.Formula) -> Optional[A.And]:
    for g in A.subformulas(f):
        if isinstance(g, A.And) and (A.has_nested(g.left) or A.has_nested(g.right)):
            return g
    return None


class NestedEvaluator(SelectingEvaluator):
    """A query whose formula contains nested strategies (see the module docstring).

    Args:
        query: the query (its nested strategies closed; checked by :func:`ceplab.engine.cel.evaluator`).
        options: CEL options (``max_scope`` for the top-level MAX).
        evaluator: ``evaluator(query, options)``, the engine's dispatcher
            (:func:`ceplab.engine.cel.evaluator`), used for the nested sub-queries; passed in so that
            this module does not import its package back.

    Raises:
        UnsupportedError: a nested strategy under AND, or what the sub-evaluators or the outer
            compilation refuse.
    """

    def __init__(self, query: A.Query, options: Options = Options(), *,
                 evaluator: Callable[[A.Query, Options], Any]) -> None:
        from ceplab.engine.cel.compile import compile_formula

        bad = _and_with_block(query.formula)
        if bad is not None:
            raise UnsupportedError(
                f"a nested selection strategy inside AND ({bad}) is not supported by the engine "
                "(the product automaton cannot synchronise a block with the other side; "
                "docs/semantics/cel.md#cel-G5); the oracle evaluates it")
        if query.within is not None and (not isinstance(query.within, int) or query.within < 0):
            raise UnsupportedError(f"WITHIN {query.within}: the window must be a non-negative "
                                   "integer")
        self.query = query
        self.options = options
        self.strategy = query.strategy
        self.within = query.within
        sub_opts = replace(options, max_scope="same_end")
        self.sels: list[A.Sel] = []
        index: dict[A.Sel, int] = {}
        counter = [0]

        def subst(g: A.Formula) -> A.Formula:
            if isinstance(g, A.Sel):
                k = index.get(g)
                if k is None:
                    k = index[g] = len(self.sels)
                    self.sels.append(g)
                counter[0] += 1
                # a fresh variable per occurrence: blocks never clash under ';' (safety)
                return A.Atom(f"{BLOCK_PREFIX}{k}", f"__sel{counter[0]}")
            if isinstance(g, A.Filter):
                return A.Filter(subst(g.body), g.pred)
            if isinstance(g, A.Plus):
                return A.Plus(subst(g.body))
            if isinstance(g, (A.Or, A.Seq, A.And)):
                return type(g)(subst(g.left), subst(g.right))
            return g

        outer = subst(query.formula)
        self.subs = [evaluator(s.query(), sub_opts) for s in self.sels]
        self.cea = cea = compile_formula(outer)
        self.registered = bool(cea.registers)
        self._reg_vars = tuple(sorted(cea.registers))
        self._reg_index = {v: i for i, v in enumerate(self._reg_vars)}
        self._ordinary: dict[int, list] = defaultdict(list)
        self._blocks: dict[int, list] = defaultdict(list)   # k -> [(src, dst, guard or None)]
        for t in cea.transitions:
            rel = t.label.rel
            if rel is not None and rel.startswith(BLOCK_PREFIX):
                if not t.mark or t.store is not None or t.label.var in A.pred_vars(t.label.pred):
                    raise AssertionError(f"unexpected block transition {t}")
                # a binary filter of outer variables may be checked here (register extension):
                # its guard reads registers only, never the block's own (placeholder) variable
                g = None if isinstance(t.label.pred, A.PTrue) else guard(t.label, cea.registers)
                self._blocks[int(rel[len(BLOCK_PREFIX):])].append((t.src, t.dst, g))
            else:
                self._ordinary[t.src].append((guard(t.label, cea.registers), t.mark, t.dst,
                                              t.store))
        self._sources = frozenset(t[0] for lst in self._blocks.values() for t in lst)
        init = (cea.initial, (None,) * len(self._reg_vars)) if self.registered else cea.initial
        self.cur: dict[Any, set] = {init: {()}}
        self.before: dict[int, dict] = {}       # position m -> block-source configs before m
        self._order: list[int] = []
        # history span: a block C reported at j has min C >= j - span
        spans = [w for w in [self.within] + [s.within for s in self.sels] if w is not None]
        if self.within is not None:
            self.span = self.within
        elif spans and all(s.within is not None for s in self.sels):
            self.span = max(s.within for s in self.sels)
        else:
            self.span = None
        self._init_selection(self.strategy, options)
        self._last = -1
        self.n_events = 0
        self.path = (f"{self.strategy}: nested strategies, compositional (docs/semantics/cel.md#cel-G5): "
                     f"{len(self.sels)} block evaluator(s) "
                     f"[{'; '.join(getattr(s, 'path', '?') for s in self.subs)}], outer NFA with "
                     f"{cea.n_states} states and materialised partial complex events, strategy "
                     f"applied per end position"
                     + (f", WITHIN {self.within}" if self.within is not None else ""))

    def _conf_state(self, conf) -> int:
        return conf[0] if self.registered else conf

    def update(self, e) -> None:
        j = e.position
        if j <= self._last:
            raise ValueError(f"event positions must increase: {j} after {self._last}")
        self._last = j
        self.n_events += 1
        lo = j - self.within if self.within is not None else None
        reg = self.registered
        cur = self.cur
        # history: block-source configurations just before position j
        if self._sources:
            self.before[j] = {c: ds for c, ds in cur.items()
                              if self._conf_state(c) in self._sources}
            self._order.append(j)
            if self.span is not None:
                while self._order and self._order[0] < j - self.span:
                    del self.before[self._order.pop(0)]
        new: dict[Any, set] = defaultdict(set)
        for conf, ds in cur.items():
            q = conf[0] if reg else conf
            env = None
            for g, mark, dst, store in self._ordinary.get(q, ()):
                if reg:
                    if env is None:
                        regs = conf[1]
                        env = {v: regs[i] for v, i in self._reg_index.items()
                               if regs[i] is not None}
                    if not g(e, env):
                        continue
                    nregs = conf[1]
                    if mark and store is not None and store in self._reg_index:
                        lst = list(nregs)
                        lst[self._reg_index[store]] = tuple(
                            e.attrs.get(a, _MISSING) for a in self.cea.registers[store])
                        nregs = tuple(lst)
                    target = (dst, nregs)
                else:
                    if not g(e, _NOREGS):
                        continue
                    target = dst
                if mark:
                    new[target].update(d + (j,) for d in ds)
                else:
                    new[target].update(ds)
        for k, sub in enumerate(self.subs):
            ces = sub.push(e)
            if not ces or k not in self._blocks:
                continue
            for c in ces:
                if lo is not None and c[0] < lo:
                    continue
                hist = self.before.get(c[0])
                if not hist:
                    continue
                for src, dst, g in self._blocks[k]:
                    for conf, ds in hist.items():
                        if reg:
                            if conf[0] != src:
                                continue
                            if g is not None:
                                regs = conf[1]
                                env = {v: regs[i] for v, i in self._reg_index.items()
                                       if regs[i] is not None}
                                if not g(e, env):
                                    continue
                            target = (dst, conf[1])
                        elif conf != src or (g is not None and not g(e, _NOREGS)):
                            continue
                        else:
                            target = dst
                        new[target].update(d + c for d in ds)
        if lo is not None:
            for conf in list(new):
                ds = new[conf]
                if any(d and d[0] < lo for d in ds):
                    ds = {d for d in ds if not d or d[0] >= lo}
                    if ds:
                        new[conf] = ds
                    else:
                        del new[conf]
        self.cur = dict(new)
        finals = self.cea.finals
        done = {d for conf, ds in self.cur.items() if self._conf_state(conf) in finals
                for d in ds if d and d[-1] == j}
        self._select(done)

    def stats(self) -> dict:
        return {"events": self.n_events, "blocks": len(self.subs),
                "live_partial_ces": sum(len(ds) for ds in self.cur.values()),
                "history_positions": len(self.before)}
