"""Binding runs: the engine's evaluator for formulas outside the automaton compiler's fragment
(EXTENSION, outside Theorem 3's constant-time guarantee; docs/semantics/cel.md#cel-10.4).

:func:`ceplab.engine.cel.compile.compile_formula` refuses (``UnsupportedError``) the binary filters
its register extension cannot place, e.g. a filter inside an iteration that reads a variable bound
*after* the iteration, ``((B AS x FILTER x.v <= y.v))+ ; A AS y``: every round of the ``+`` binds
its own x, and each of them must satisfy the filter with the one y that arrives later
(docs/semantics/cel.md#cel-3.1, rows FILTER and ``+``: each round evaluates the filter under
``nu[nu_i / vdef+(rho)]``, the round's own x and the shared outer y). A register holds one value,
so the automaton cannot keep "every round's x" for the later check; the same holds for a filter
over both sides of an AND whose binding order is open, or over variables not bound in every run.
For these formulas :func:`ceplab.engine.cel.evaluator` uses :class:`RunEvaluator`, which keeps the
bindings in the run:

* a **run** is ``(term, env, positions)``: ``term`` is the residual of the (alpha-renamed,
  docs/semantics/cel.md#cel-G3) formula still to be matched, ``positions`` the partial complex event
  marked so far, ``env`` the valuation built so far (variable -> position) plus the **pending
  filter obligations**;
* per event at position ``j`` every run either skips ``j`` (CEL complex events need not be
  contiguous) or marks it through one atom its residual can mark next (``;`` continues with its
  right side once the left one is complete, OR is resolved when a sub-formula starts, a completed
  ``+`` round either ends the iteration or starts a new round, AND marks both sides with the same
  event and completes when both do);
* binding ``x`` to ``j`` fails if ``x`` already has another position in this scope (nu is a
  function; this makes unsafe formulas unsatisfiable exactly as the oracle's ``val/3``); starting
  a ``+`` round forgets the variables the round rebinds (``vdef`` of its body: after the
  alpha-renaming these names occur only in that body), so each round gets its own;
* when the body of ``psi FILTER P`` completes, ``P`` is evaluated if all its variables are bound;
  otherwise the run records the obligation ``(P, values of its bound variables)`` (the round's x
  is frozen into it) and evaluates it as soon as the missing variables are bound (the later y).
  Strong well-formedness (docs/semantics/cel.md#cel-G3) guarantees that they are bound before
  the complex event completes, so a complete run has no pending obligation;
* the CEs ending at ``j`` are the ``positions`` of the runs that complete at ``j``; ``WITHIN w``
  keeps those with ``max C - min C <= w`` (runs starting earlier than ``j - w`` are dropped at
  once), and the selection strategy is applied to the CEs of each end position
  (:func:`ceplab.engine.cel.nested.select_same_end`; MAX with ``max_scope="global"`` is held back
  until ``close()``).

Exactness: the run's choices are exactly a derivation of the satisfaction relation of
docs/semantics/cel.md#cel-3.1 (atom, FILTER, OR, ``;`` with ``max C1 < min C2``, ``+`` in its
closed form, AND with equal CEs under one nu), with nu built while reading; complex events are
collected in sets, so each is emitted once per end position (docs/semantics/cel.md#cel-G9).

Complexity (honest): the partial complex events are materialised, one run each (as in
:mod:`ceplab.engine.cel.nested`), so the work per event is proportional to the number of live runs,
which can grow exponentially with the stream without ``WITHIN`` (``(A AS x)+`` keeps every subset
of the A's); with ``WITHIN w`` live runs lie in the last ``w + 1`` positions. Theorem 3's
constant update time and the ECS's constant-delay enumeration do not apply here; the automaton
evaluators are used for every formula the compiler accepts.

Nested selection strategies (docs/semantics/cel.md#cel-G5, ``nested_strategies="compositional"``) are
evaluated here only when :class:`ceplab.engine.cel.nested.NestedEvaluator` refuses the query (a block inside
an AND, whose product automaton cannot synchronise a block): each distinct block ``SEL(psi)`` gets its own
engine evaluator (as in ``nested``), which reports each selected complex event C at ``max C``; a run inside a
block marks positions freely, and completes the block at ``j`` exactly when its positions inside the block
form a C that the block's evaluator selected at ``j`` (a block's variables are invisible outside it, so the
run's valuation is untouched). Such runs enumerate subsets of positions: exponential without a window (the
block's own ``WITHIN`` bounds them too).
"""
from __future__ import annotations

from typing import Any, Callable, Optional

from ceplab.semantics.cel import ast as A
from ceplab.semantics.cel.analysis import vdef
from ceplab.semantics.cel.options import Options
from ceplab.semantics.cel.predicates import holds
from ceplab.semantics.errors import UnsupportedError

from ceplab.engine.cel.nested import SelectingEvaluator

__all__ = ["RunEvaluator"]

_DONE = ("done",)
_EMPTY_ENV: tuple = ((), frozenset())   # (bindings: sorted ((var, pos), ...), obligations)


_BLOCK = "\x00RUNSEL#"     # placeholder relation of a nested block (not a CEL name)


def _blocks_out(f: A.Formula, sels: list) -> A.Formula:
    """``f`` with every nested ``SEL(psi)`` replaced by a placeholder atom ``_BLOCK + k`` (k indexes ``sels``,
    one entry per distinct block), so that the alpha-renaming sees a plain formula."""
    if isinstance(f, A.Sel):
        if f not in sels:
            sels.append(f)
        return A.Atom(f"{_BLOCK}{sels.index(f)}", f"__runsel{len(sels)}")
    if isinstance(f, A.Filter):
        return A.Filter(_blocks_out(f.body, sels), f.pred)
    if isinstance(f, A.Plus):
        return A.Plus(_blocks_out(f.body, sels))
    if isinstance(f, (A.Or, A.Seq, A.And)):
        return type(f)(_blocks_out(f.left, sels), _blocks_out(f.right, sels))
    return f


class _Program:
    """The alpha-renamed formula as a node table (ids keep the run terms small and hashable)."""

    def __init__(self, f: A.Formula) -> None:
        self.kind: list[str] = []
        self.kids: list[tuple[int, ...]] = []
        self.data: list[Any] = []
        self.root = self._add(f)

    def _add(self, g: A.Formula) -> int:
        if isinstance(g, A.Atom):
            if g.rel.startswith(_BLOCK):
                return self._new("sel", (), int(g.rel[len(_BLOCK):]))
            return self._new("atom", (), (g.rel, g.var))
        if isinstance(g, A.Filter):
            b = self._add(g.body)
            return self._new("filter", (b,), (g.pred, A.pred_vars(g.pred)))
        if isinstance(g, (A.Or, A.Seq, A.And)):
            k = {A.Or: "or", A.Seq: "seq", A.And: "and"}[type(g)]
            return self._new(k, (self._add(g.left), self._add(g.right)), None)
        if isinstance(g, A.Plus):
            return self._new("plus", (self._add(g.body),), frozenset(vdef(g.body)))
        if isinstance(g, A.FalseF):
            return self._new("false", (), None)
        raise UnsupportedError(f"{g}: a nested selection strategy is not supported by the "
                               "binding-run evaluator (docs/semantics/cel.md#cel-G5)")

    def _new(self, kind: str, kids: tuple[int, ...], data: Any) -> int:
        self.kind.append(kind)
        self.kids.append(kids)
        self.data.append(data)
        return len(self.kind) - 1


class RunEvaluator(SelectingEvaluator):
    """Evaluate a CEL query by binding runs (see the module docstring).

    Args:
        query: a strongly well-formed query (nested strategies closed, checked by the caller).
        options: CEL options (``max_scope`` for MAX; ``nxt_output`` concerns automata only).
        reason: why the automaton compiler refused the query (shown in ``path``), or None.
        evaluator: ``evaluator(query, options)``, the engine's dispatcher (:func:`ceplab.engine.cel.evaluator`)
            for the nested blocks; required when the query has nested strategies.

    Results are sorted position tuples (0-based stream positions), each emitted once, at its last
    event (at ``close()`` for MAX with ``max_scope="global"``).

    Raises:
        UnsupportedError: a nested selection strategy without ``evaluator``; a negative or non-integer
            window; an unknown strategy.
        ValueError: an event whose position is not larger than the previous one (:meth:`update`).
    """

    def __init__(self, query: A.Query, options: Options = Options(),
                 reason: Optional[str] = None, evaluator: Optional[Callable] = None) -> None:
        from dataclasses import replace

        from ceplab.semantics.cel.rewrite import alpha_rename
        from ceplab.semantics.cel.ast import STRATEGIES

        if A.has_nested(query.formula) and evaluator is None:
            raise UnsupportedError(f"{query}: a nested selection strategy needs the engine's dispatcher "
                                   "(evaluator=...) for its blocks (docs/semantics/cel.md#cel-G5)")
        if query.within is not None and (not isinstance(query.within, int) or query.within < 0):
            raise UnsupportedError(f"WITHIN {query.within}: the window must be a non-negative integer")
        if query.strategy not in STRATEGIES:
            raise UnsupportedError(f"selection strategy {query.strategy!r} is not supported by the engine")
        self.query = query
        self.options = options
        self.strategy = query.strategy
        self.within = query.within
        self.sels: list[A.Sel] = []
        self.prog = _Program(alpha_rename(_blocks_out(query.formula, self.sels)))
        sub_opts = replace(options, max_scope="same_end")
        self.subs = [evaluator(s.query(), sub_opts) for s in self.sels] if self.sels else []
        self._selected: list[set] = [set() for _ in self.sels]
        self.events: dict[int, Any] = {}
        self.runs: set = {(t, env, ()) for t, env in self._start(self.prog.root, _EMPTY_ENV)}
        self._init_selection(self.strategy, options)
        self._last = -1
        self.n_events = 0
        self.path = (f"{self.strategy}: binding runs (EXTENSION, outside Theorem 3's constant-time "
                     "guarantee: partial complex events materialised with their variable bindings, "
                     "filters over later-bound variables, e.g. an iteration's against a later "
                     "event, evaluated when those arrive; docs/semantics/cel.md#cel-10.4), "
                     "strategy applied per end position"
                     + (f", {len(self.subs)} nested block evaluator(s) "
                        f"[{'; '.join(getattr(s, 'path', '?') for s in self.subs)}]" if self.subs else "")
                     + (f", WITHIN {self.within}" if self.within is not None else "")
                     + (f"; the automaton evaluators refused it: {reason}" if reason else ""))

    # ------------------------------------------------------------ valuation
    def _bind(self, env: tuple, x: str, j: int) -> Optional[tuple]:
        """``env`` with ``x -> j``; None if x has another position or an obligation fails."""
        binds, obls = env
        for v, p in binds:
            if v == x:
                return env if p == j else None
        binds = tuple(sorted(binds + ((x, j),)))
        if not obls:
            return binds, obls
        bd = dict(binds)
        keep = []
        for ob in obls:
            fid, snap = ob
            _pred, pvars = self.prog.data[fid]
            frozen = dict(snap)        # the values at the filter (a finished round's x)
            if x not in pvars or x in frozen or not (pvars - frozen.keys()) <= bd.keys():
                keep.append(ob)
                continue
            if not self._holds(fid, {**bd, **frozen}):
                return None
        return binds, frozenset(keep)

    def _holds(self, fid: int, bd: dict) -> bool:
        """Truth of filter ``fid`` with its variables at the positions ``bd[v]``."""
        pred, pvars = self.prog.data[fid]
        return holds(pred, {v: self.events[bd[v]] for v in pvars})

    def _filter_done(self, env: tuple, fid: int) -> Optional[tuple]:
        """The body of filter ``fid`` completed: evaluate it, or record it as an obligation."""
        binds, obls = env
        _pred, pvars = self.prog.data[fid]
        bd = dict(binds)
        if pvars <= bd.keys():
            return env if self._holds(fid, bd) else None
        snap = tuple(sorted((v, bd[v]) for v in pvars if v in bd))
        return binds, obls | {(fid, snap)}

    # ------------------------------------------------------------ terms
    def _start(self, nid: int, env: tuple) -> list:
        """The residual terms of node ``nid`` before its first mark (OR resolved here)."""
        k = self.prog.kind[nid]
        kids = self.prog.kids[nid]
        if k == "atom":
            return [(("A", nid), env)]
        if k == "sel":
            return [(("B", nid, ()), env)]
        if k == "filter":
            return [(("F", t, nid), e) for t, e in self._start(kids[0], env)]
        if k == "or":
            return self._start(kids[0], env) + self._start(kids[1], env)
        if k == "seq":
            return [(("S", t, kids[1]), e) for t, e in self._start(kids[0], env)]
        if k == "and":
            return [(("N", t1, t2), e2) for t1, e1 in self._start(kids[0], env)
                    for t2, e2 in self._start(kids[1], e1)]
        if k == "plus":
            forget = self.prog.data[nid]
            binds, obls = env
            e0 = (tuple(b for b in binds if b[0] not in forget), obls)
            return [(("P", t, nid), e) for t, e in self._start(kids[0], e0)]
        return []   # FALSE

    def _mark(self, term: tuple, env: tuple, j: int, ev: Any) -> list:
        """The residuals after marking position ``j`` (event ``ev``); ``_DONE`` when complete."""
        tag = term[0]
        if tag == "A":
            rel, x = self.prog.data[term[1]]
            if ev.type != rel:
                return []
            e2 = self._bind(env, x, j)
            return [] if e2 is None else [(_DONE, e2)]
        if tag == "B":                    # inside a nested block: mark freely, complete on a selected CE
            part = term[2] + (j,)
            k = self.prog.data[term[1]]
            w = self.sels[k].within
            if w is not None and j - part[0] > w:
                return []
            res = [(("B", term[1], part), env)]
            if part in self._selected[k]:
                res.append((_DONE, env))
            return res
        res = []
        if tag == "F":
            for t2, e2 in self._mark(term[1], env, j, ev):
                if t2 is _DONE:
                    e3 = self._filter_done(e2, term[2])
                    if e3 is not None:
                        res.append((_DONE, e3))
                else:
                    res.append((("F", t2, term[2]), e2))
        elif tag == "S":
            for t2, e2 in self._mark(term[1], env, j, ev):
                if t2 is _DONE:
                    res.extend(self._start(term[2], e2))
                else:
                    res.append((("S", t2, term[2]), e2))
        elif tag == "P":
            nid = term[2]
            for t2, e2 in self._mark(term[1], env, j, ev):
                if t2 is _DONE:
                    res.append((_DONE, e2))                  # the iteration ends here
                    res.extend(self._start(nid, e2))         # or a new round starts
                else:
                    res.append((("P", t2, nid), e2))
        elif tag == "N":
            for a, ea in self._mark(term[1], env, j, ev):
                for b, eb in self._mark(term[2], ea, j, ev):
                    if (a is _DONE) == (b is _DONE):        # equal CEs: both complete at once
                        res.append((_DONE if a is _DONE else ("N", a, b), eb))
        return res

    # ------------------------------------------------------------ the step
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
        self.events[j] = e
        for k, sub in enumerate(self.subs):
            self._selected[k] = set(sub.push(e))
        lo = j - self.within if self.within is not None else None
        new: set = set()
        done: set = set()
        for run in self.runs:
            term, env, pos = run
            if lo is None or not pos or pos[0] >= lo:
                new.add(run)                                 # skip j
            if lo is not None and pos and pos[0] < lo:
                continue
            p2 = pos + (j,)
            for t2, e2 in self._mark(term, env, j, e):
                if t2 is _DONE:
                    if e2[1]:
                        raise AssertionError(
                            f"binding runs: a complete run of {self.query} still has pending "
                            f"filter obligations {sorted(e2[1])} (not strongly well-formed?)")
                    done.add(p2)
                else:
                    new.add((t2, e2, p2))
        self.runs = new
        # forget events no run refers to any more (every bound position is in its run's CE)
        first = min((r[2][0] for r in new if r[2]), default=j + 1)
        for p in [p for p in self.events if p < first]:
            del self.events[p]
        self._select(done)

    def stats(self) -> dict:
        return {"events": self.n_events, "live_runs": len(self.runs),
                "kept_events": len(self.events)}
