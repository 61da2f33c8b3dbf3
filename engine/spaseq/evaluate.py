"""The incremental SPAseq evaluator: runs over the compiled automaton (Algorithms 1-2 of Gillani et al.,
docs/semantics/spaseq.md#spaseq-4.3, #spaseq-9.5), with the witness-based semantics of the contract
(docs/semantics/spaseq.md#spaseq-3.8).

Events arrive one at a time (:meth:`Evaluator.push`).  Events with equal timestamps form a *batch* (A8): the batch
is processed when it is complete, i.e. when the first event with a later time arrives (or at :meth:`close`);
every run alive before the batch sees the whole batch once, and runs made in the batch wait for later batches
(selected timestamps strictly increase).

A run (:class:`Run`) is a witness prefix: the wait state of the automaton it is at, its context mapping set
``ctx`` (the ``Omega`` its next instance extends; for a Kleene loop copy the prefix ``Omega_{j-1}``), the grouped
mapping set ``acc`` of its Kleene iterations, its selected events, its first and last selected times, its window
(tumbling index or None) and the deadline after which it cannot select any more.  Per batch and run:

* **window**: an expired run is deleted first (``Options.engine_push_window``; otherwise after its GPM work);
* **strict contiguity** ``,``: the run dies once an event of its contiguity set ``U`` has occurred after its last
  selected event (checked when it is visited, through the time of the latest ``U`` event, so the stream index
  stays sound: docs/semantics/spaseq.md#spaseq-A7);
* **negation** ``Psi!``: the run dies once an instance of the negated element relevant for its context occurs
  (``negation=through_next``: at the next selected event's time too, so it is tested before advancing);
* **advance**: for every instance of the awaited element at the batch time (a conjunction: one event per conjunct,
  correlated chaining; a disjunction: every alternative, or the first under ``first_match``) a successor run is
  made (a Kleene element gives a *loop copy* and a *proceed copy*; an optional next element gives a *take* and a
  *skip* copy); a completed last element is a match;
* **keep or retire**: ``:`` keeps the run; ``;`` retires it when a relevant instance occurred in the batch
  (``relevance=context``: given its context; ``standalone``: given ``{mu_empty}``); ``,`` retires it when the batch
  holds an event of ``U``.

Every event of the batch that is an instance of the first element starts a run in every window it belongs to.
Matches are emitted at the first event with a later time than their last selected event (negated last element:
than their window end; ``>=`` for half-open windows), or by :meth:`close`.

Counters (:attr:`Evaluator.counters`): ``runs_created`` (started runs and clones), ``runs_cloned`` (successors
beyond the one that replaces an advancing run in place: Kleene loop/proceed copies, skip copies, ties,
skip-till-any's kept originals), ``runs_deleted``, ``max_active_runs`` (after each batch), ``gpm_evaluations``
(full evaluations of one GPM on one event for one context mapping).
"""
from __future__ import annotations

import heapq
from typing import Any, Optional, Sequence

from rdflib import URIRef

from ceplab.semantics.errors import StreamError
from ceplab.semantics.rdfstream import GraphEvent
from ceplab.semantics.spaseq import ast as A
from ceplab.semantics.spaseq.options import Options
from ceplab.semantics.spaseq.results import Match
from ceplab.semantics.spaseq.streams import Background

from ceplab.engine.spaseq.automaton import Automaton, Leaf, Node, WaitState, compile_automaton
from ceplab.engine.spaseq.gpm import Index, Terms


class EventRec:
    """One pushed event, encoded and indexed once (``idx``: :class:`ceplab.engine.spaseq.gpm.Index`)."""

    __slots__ = ("stream", "sstr", "time", "idx", "seq")

    def __init__(self, ev: GraphEvent, terms: Terms, seq: int) -> None:
        self.stream = ev.stream
        self.sstr = str(ev.stream)
        self.time = ev.time
        self.idx = Index(ev.graph, terms)
        self.seq = seq


class Run:
    """A partial match (module docstring)."""

    __slots__ = ("state", "ctx", "acc", "evs", "tau_first", "tau_last", "window", "deadline", "alive", "seq",
                 "mark")

    def __init__(self, state: WaitState, ctx: tuple, acc: Optional[tuple], evs: Any, tau_first: int,
                 tau_last: int, window: Optional[int], deadline: int) -> None:
        self.state = state
        self.ctx = ctx
        self.acc = acc
        self.evs = evs
        self.tau_first = tau_first
        self.tau_last = tau_last
        self.window = window
        self.deadline = deadline
        self.alive = True
        self.seq = 0
        self.mark = -1

    def events(self) -> list:
        """The selected events, in witness order."""
        return _flatten(self.evs)


def _flatten(evs: Any) -> list:
    parts = []
    while evs is not None:
        evs, last = evs
        parts.append(last)
    out = []
    for p in reversed(parts):
        out.extend(p)
    return out


def _union(a: tuple, b: tuple) -> tuple:
    if not a:
        return b
    d = dict.fromkeys(a)
    d.update(dict.fromkeys(b))
    return tuple(d)


class Evaluator:
    """The incremental evaluator of one SPAseq query (module docstring).

    Args:
        query: the query AST (``ceplab.semantics.spaseq.ast.Query``).
        options: the semantic switches and the engine optimisation options.
        background: the background dataset ``D`` (``GRAPH <g>`` patterns); None is the empty dataset.
        term_sweep_min: the term dictionary is swept (:meth:`_sweep_terms`) once it holds at least this many terms
            more than after the previous sweep (a count of terms, >= 1).

    Attributes:
        automaton: the compiled :class:`ceplab.engine.spaseq.automaton.Automaton` (``automaton.graph`` is the
            networkx automaton, for drawing).
        counters: run and GPM counters (module docstring).

    Raises:
        UnsupportedError: see :func:`ceplab.engine.spaseq.automaton.compile_automaton`.
    """

    #: the default of ``term_sweep_min``
    TERM_SWEEP_MIN = 4096

    def __init__(self, query: A.Query, options: Options = Options(), background: Optional[Background] = None,
                 term_sweep_min: int = TERM_SWEEP_MIN) -> None:
        if term_sweep_min < 1:
            raise ValueError(f"term_sweep_min must be >= 1, got {term_sweep_min}")
        self.query = query
        self.options = options
        self.terms = Terms()
        qvars = list(A.query_vars(query))
        self.varindex = {v: i for i, v in enumerate(qvars)}
        self.nvars = len(qvars)
        graphs = set(query.graphs)
        used = {n for el in query.seq for n in A.bop_gpms(el.expr)}
        for g in query.gpms:
            if g.name in used:
                graphs |= _graph_iris(g.pattern)
        bg = background or Background()
        self.background = {iri: Index(bg.graph(iri), self.terms) for iri in sorted(graphs)}
        self.automaton: Automaton = compile_automaton(query, options, self.terms, self.varindex, self.background)
        self.terms.pin()                 # the query's constants and the background stay encoded
        self._sweep_min = term_sweep_min
        self._sweep_at = len(self.terms) + term_sweep_min
        self.elements = self.automaton.elements
        self.m = len(self.elements)
        proj = A.projection(query)
        self._proj = sorted((str(v), self.varindex[v]) for v in set(proj) if v in self.varindex)
        self.omega0: tuple = ((None,) * self.nvars,)
        # options
        o = options
        self._origin = o.origin
        self._w = query.window
        self._wmode = o.window
        self._halfopen = o.window == "tumbling_halfopen"
        self._ctx_rel = o.relevance == "context"
        self._first_match = o.disjunction == "first_match"
        self._through = o.negation == "through_next"
        self._push_window = o.engine_push_window
        self._push_stateful = o.engine_push_stateful
        self._index = o.engine_stream_index
        self._lazy = o.engine_lazy_conjunction
        # state
        self.counters = {"runs_created": 0, "runs_cloned": 0, "runs_deleted": 0, "max_active_runs": 0,
                         "gpm_evaluations": 0}
        self._active = 0
        self._seq = 0
        self._evseq = 0
        self._batch_time: Optional[int] = None
        self._batch: dict[URIRef, list[EventRec]] = {}
        self._batchno = 0
        self._buckets: dict[URIRef, list[Run]] = {}
        self._entries = 0                # bucket entries (live or dead), for the amortised compaction
        self._all: list[Run] = []
        self._exp: dict[int, list[Run]] = {}   # deadline -> runs (push_window only)
        self._exp_heap: list[int] = []         # the deadlines of _exp
        self._uhit: dict[URIRef, list[bool]] = {}
        self._negend: list = []          # (deadline, seq, run): negated-last runs, emitted at their window end
        self._last_u = [None] * len(self.automaton.usets)
        self._pending: list[Match] = []
        self._cache: dict = {}
        self._standalone: dict[int, bool] = {}
        self._closed = False
        self._new: list[Run] = []
        self.visits = 0
        """How many times a run was visited by a batch (the work the stream index saves)."""

    # ------------------------------------------------------------------------------------------ public API
    def push(self, event: GraphEvent) -> list[Match]:
        """Process one event (times in integer ticks, non-decreasing).

        Returns:
            the matches determined by this event's arrival (contract "Emission": those whose last selected event
            is older than ``event.time``; negated last elements: whose window ended), sorted.

        Raises:
            StreamError: an event without a stream, or one older than an event already pushed.
            RuntimeError: after :meth:`close`.
        """
        if self._closed:
            raise RuntimeError("push after close")
        t = event.time
        if event.stream is None:
            raise StreamError("a SPAseq event must name its stream (Definition 3)")
        bt = self._batch_time
        if bt is not None and t < bt:
            raise StreamError(f"event at time {t} after an event at time {bt}: time goes backwards")
        if t < self._origin:
            return []
        out: list[Match] = []
        if bt is None:
            self._batch_time = t
        elif t > bt:
            self._process_batch()
            out = self._emit(t)
            self._batch_time = t
            self._batch = {}
            self._cache = {}
            self._standalone = {}
            if len(self.terms.ids) >= self._sweep_at:
                self._sweep_terms()
        rec = EventRec(event, self.terms, self._evseq)
        self._evseq += 1
        lst = self._batch.get(rec.stream)
        if lst is None:
            self._batch[rec.stream] = [rec]
        else:
            lst.append(rec)
        if not self._lazy:
            self._eager(rec)
        return out

    def close(self) -> list[Match]:
        """End of the stream: process the last batch and return every match not yet emitted (sorted)."""
        if self._closed:
            return []
        if self._batch_time is not None:
            self._process_batch()
        out = self._emit(None)
        self._closed = True
        n = 0
        for r in self._all_runs():
            if r.alive:
                r.alive = False
                n += 1
        self.counters["runs_deleted"] += n
        self._active -= n
        self._buckets.clear()
        self._all.clear()
        self._exp.clear()
        self._exp_heap.clear()
        return out

    def run(self, events: Sequence[GraphEvent]) -> list[Match]:
        """Push every event, then close; all matches in emission order."""
        out: list[Match] = []
        for e in events:
            out.extend(self.push(e))
        out.extend(self.close())
        return out

    def stats(self) -> dict:
        """The counters plus ``stored`` (live runs), ``visits`` (run visits by batches), ``terms`` (terms in the
        term dictionary), ``term_ids`` (its id range) and ``term_sweeps``, for the benchmark harness."""
        T = self.terms
        return {**self.counters, "stored": self._active, "visits": self.visits, "terms": len(T),
                "term_ids": len(T.terms), "term_sweeps": T.sweeps}

    def _sweep_terms(self) -> None:
        """Free the term ids nothing live refers to (docs/semantics/spaseq.md#spaseq-9.2), between two batches.

        Between batches the only holders of term ids are the pinned query constants and background graphs, the
        rows of the live runs (their context and Kleene mapping sets; negated-last runs waiting for their window
        end included) and the GPM caches keyed by ids, which are cleared here; the batch caches are already
        empty, emitted matches hold strings, and an old event's encoded graph is never read again.  The next
        sweep comes once the dictionary has grown by ``max(term_sweep_min, terms held, cells marked / 8)``, so
        the work of a sweep is paid by as many new terms: amortised O(1) per term, nothing per event."""
        T = self.terms
        live = bytearray(len(T.terms))
        seen: set[int] = set()
        cells = 0
        for r in self._all_runs():
            if not r.alive:
                continue
            for rows in (r.ctx, r.acc):
                if not rows or id(rows) in seen:
                    continue
                seen.add(id(rows))
                for row in rows:
                    cells += len(row)
                    for v in row:
                        if v is not None:
                            live[v] = 1
        T.sweep(live)
        for memo in self.automaton.memos:
            memo.clear()
        n = len(T)
        self._sweep_at = n + max(self._sweep_min, n - T.pinned, cells // 8)

    @property
    def path(self) -> str:
        """Which evaluator ran, with its engine options."""
        o = self.options
        on = [n for n, v in (("push_window", o.engine_push_window), ("push_stateful", o.engine_push_stateful),
                             ("stream_index", o.engine_stream_index),
                             ("lazy_conjunction", o.engine_lazy_conjunction)) if v]
        return f"spaseq NFA runs [{', '.join(on) or 'no optimisations'}; disjunction order " \
               f"{o.engine_disjunction_order}]"

    @property
    def active_runs(self) -> int:
        """The number of live runs (negated-last runs waiting for their window end included)."""
        return self._active

    # ------------------------------------------------------------------------------------------ batches
    def _all_runs(self) -> list[Run]:
        if self._index:
            seen = {}
            for lst in self._buckets.values():
                for r in lst:
                    seen[id(r)] = r
            for _, _, r in self._negend:
                seen[id(r)] = r
            return list(seen.values())
        return list(self._all) + [r for _, _, r in self._negend]

    def _kill(self, r: Run) -> None:
        r.alive = False
        self.counters["runs_deleted"] += 1
        self._active -= 1

    def _in_window(self, r: Run, tau: int) -> bool:
        return tau < r.deadline if self._halfopen else tau <= r.deadline

    def _uhits(self, s: URIRef) -> list[bool]:
        """Per contiguity set: does an event of stream ``s`` belong to it (cached per stream)."""
        h = self._uhit.get(s)
        if h is None:
            h = self._uhit[s] = [u is None or s in u for u in self.automaton.usets]
        return h

    def _process_batch(self) -> None:
        tau = self._batch_time
        batch = self._batch
        self._batchno += 1
        bno = self._batchno
        self._new = new = []
        self._nsucc = 0
        # pushing windows (section 7.2): expired runs go first
        if self._push_window:
            heap = self._exp_heap
            if heap and (heap[0] <= tau if self._halfopen else heap[0] < tau):
                buckets_d = self._exp
                while heap and (heap[0] <= tau if self._halfopen else heap[0] < tau):
                    for r in buckets_d.pop(heapq.heappop(heap)):
                        if r.alive:
                            self._kill(r)
        # contiguity sets hit by this batch
        if len(batch) == 1:
            for s in batch:
                self._batch_u = self._uhits(s)
        else:
            hits = [self._uhits(s) for s in batch]
            self._batch_u = [any(h[k] for h in hits) for k in range(len(self.automaton.usets))]
        # the runs this batch can change
        step = self._step
        if self._index:
            buckets = self._buckets
            for s in batch:
                lst = buckets.get(s)
                if not lst:
                    continue
                keep = []
                for r in lst:
                    if not r.alive:
                        continue
                    if r.mark != bno:
                        r.mark = bno
                        step(r, tau)
                    if r.alive:
                        keep.append(r)
                self.visits += len(lst)
                self._entries -= len(lst) - len(keep)
                buckets[s] = keep
        else:
            keep = []
            for r in self._all:
                if not r.alive:
                    continue
                r.mark = bno
                step(r, tau)
                if r.alive:
                    keep.append(r)
            self.visits += len(self._all)
            self._all = keep
            for _, _, r in self._negend:
                if r.alive and r.mark != bno:
                    r.mark = bno
                    step(r, tau)
        # new runs from the first element(s)
        omega0 = self.omega0
        for j in self.automaton.starts:
            X = self._instances(j, omega0, True)
            if X:
                wins = self._windows(tau)
                for evs, om in X:
                    for window, deadline in wins:
                        self._complete(j, om, omega0, (None, evs), tau, tau, window, deadline, new)
        if new:
            nstart = len(new) - self._nsucc
            self.counters["runs_created"] += nstart
            self._active += nstart
            self._register(new)
        self._new = []
        for k, hit in enumerate(self._batch_u):
            if hit:
                self._last_u[k] = tau
        if self._active > self.counters["max_active_runs"]:
            self.counters["max_active_runs"] = self._active
        if self._entries > 4 * (self._active + 64):
            # runs that died in the bucket of a stream that has fallen silent: drop them (amortised O(1))
            for s, lst in self._buckets.items():
                self._buckets[s] = [r for r in lst if r.alive]
            self._entries = sum(len(lst) for lst in self._buckets.values())

    def _register(self, new: list) -> None:
        """Put the runs made in this batch into the stream index (or the run list) and the expiry buckets."""
        index = self._index
        buckets = self._buckets
        push_window = self._push_window
        exp = self._exp
        for r in new:
            self._seq += 1
            r.seq = self._seq
            st = r.state
            if index:
                self._entries += len(st.streams)
                for s in st.streams:
                    lst = buckets.get(s)
                    if lst is None:
                        buckets[s] = [r]
                    else:
                        lst.append(r)
            if st.kind == "negend":
                heapq.heappush(self._negend, (r.deadline, r.seq, r))
                continue
            if not index:
                self._all.append(r)
            if push_window:
                d = r.deadline
                lst = exp.get(d)
                if lst is None:
                    exp[d] = [r]
                    heapq.heappush(self._exp_heap, d)
                else:
                    lst.append(r)

    _nsucc = 0

    def _windows(self, tau: int) -> list[tuple[Optional[int], int]]:
        """The windows of a run starting at ``tau``: ``(index, deadline)``."""
        w = self._w
        if self._wmode == "anchored":
            return [(None, tau + w)]
        d = tau - self._origin
        i = d // w
        out = [(i, self._origin + (i + 1) * w)]
        if not self._halfopen and d % w == 0 and i > 0:
            out.append((i - 1, self._origin + i * w))
        return out

    # ------------------------------------------------------------------------------------------ one run
    def _step(self, r: Run, tau: int) -> None:
        st = r.state
        if st.kind == "negend":
            if self._in_window(r, tau) and self._relevant(st.j, r.ctx):
                self._kill(r)
            return
        conn = st.conn
        if conn == ",":
            lu = self._last_u[st.uset_key]
            if lu is not None and lu > r.tau_last:
                self._kill(r)
                return
        neg = st.neg
        if neg is not None and self._through and self._in_window(r, tau) and self._relevant(neg, r.ctx):
            self._kill(r)
            return
        j = st.j
        ctx = r.ctx
        nd = self.elements[j].expr
        if nd.kind == "g" and st.kind != "iter":
            # one GPM, a context no other run shares: evaluate directly
            leaf = nd.leaf
            X = []
            batch = self._batch
            for s in leaf.streams:
                recs = batch.get(s)
                if recs:
                    for e in recs:
                        om = self._ext(leaf, ctx, e, False)
                        if om:
                            X.append(((e,), om))
        else:
            X = self._instances(j, ctx, True)
        if not self._push_window and not self._in_window(r, tau):
            self._kill(r)
            return
        new = self._new
        n0 = len(new)
        if X:
            complete = self._complete
            if st.kind == "iter":
                for evs, om in X:
                    complete(j, _union(r.acc, om), ctx, (r.evs, evs), tau, r.tau_first, r.window, r.deadline, new)
            else:
                for evs, om in X:
                    complete(j, om, ctx, (r.evs, evs), tau, r.tau_first, r.window, r.deadline, new)
        n = len(new) - n0
        self._nsucc += n
        if conn == ";":
            retire = bool(X) if self._ctx_rel else self._standalone_rel(j)
        elif conn == ",":
            retire = self._batch_u[st.uset_key]
        else:
            retire = False
        if not retire and neg is not None and not self._through and self._relevant(neg, ctx):
            retire = True
        if retire:
            if n:
                if n > 1:
                    c = self.counters
                    c["runs_created"] += n - 1
                    c["runs_cloned"] += n - 1
                    self._active += n - 1
                r.alive = False
            else:
                self._kill(r)
        elif n:
            c = self.counters
            c["runs_created"] += n
            c["runs_cloned"] += n
            self._active += n

    def _complete(self, j: int, omega: tuple, prefix: tuple, evs: Any, tau: int, tau_first: int,
                  window: Optional[int], deadline: int, new: list) -> None:
        """Element ``j`` completed at ``tau`` with mapping set ``omega``: make the successor runs / matches."""
        aut = self.automaton
        el = self.elements[j]
        if el.mod == "+":
            new.append(Run(aut.I[j], prefix, omega, evs, tau_first, tau, window, deadline))
        m1 = self.m - 1
        if j == m1:
            self._match(omega, evs, window)
            return
        k = j + 1
        mod = self.elements[k].mod
        if mod is None or mod == "+":
            new.append(Run(aut.E[k], omega, None, evs, tau_first, tau, window, deadline))
        elif mod == "?":
            new.append(Run(aut.E[k], omega, None, evs, tau_first, tau, window, deadline))
            if k == m1:
                self._match(omega, evs, window)
            else:
                new.append(Run(aut.E[k + 1], omega, None, evs, tau_first, tau, window, deadline))
        else:  # "!"
            if k == m1:
                new.append(Run(aut.N, omega, None, evs, tau_first, tau, window, deadline))
            else:
                new.append(Run(aut.E[k + 1], omega, None, evs, tau_first, tau, window, deadline))

    def _match(self, omega: tuple, evs: Any, window: Optional[int]) -> None:
        self._pending.extend(self._matches(omega, evs, window))

    def _matches(self, omega: tuple, evs: Any, window: Optional[int]) -> list[Match]:
        events = tuple((e.sstr, e.time) for e in _flatten(evs))
        nt = self.terms.nt
        proj = self._proj
        out = []
        for row in omega:
            out.append(Match(window, events, tuple((name, nt(row[i])) for name, i in proj if row[i] is not None)))
        return out

    def _emit(self, now: Optional[int]) -> list[Match]:
        out = self._pending
        self._pending = []
        ne = self._negend
        half = self._halfopen
        while ne and (now is None or (ne[0][0] <= now if half else ne[0][0] < now)):
            r = heapq.heappop(ne)[2]
            if r.alive:
                out.extend(self._matches(r.ctx, r.evs, r.window))
                self._kill(r)
        if not out:
            return out
        uniq = list(dict.fromkeys(out))
        uniq.sort(key=lambda m: (m.time, -1 if m.window is None else m.window, m.events, m.mapping))
        return uniq

    # ------------------------------------------------------------------------------------------ instances
    def _instances(self, j: int, ctx: tuple, memo: bool) -> list:
        """The instances of element ``j`` in this batch for context ``ctx``: ``[(events, Omega)]``."""
        el = self.elements[j]
        if el.has_conj and self._lazy and not el.expr.need(self._batch.keys()):
            return []
        return self._inst(el.expr, ctx, memo)

    def _inst(self, nd: Node, ctx: tuple, memo: bool) -> list:
        kind = nd.kind
        if kind == "g":
            leaf = nd.leaf
            out = []
            batch = self._batch
            for s in leaf.streams:
                recs = batch.get(s)
                if recs:
                    for e in recs:
                        X = self._ext(leaf, ctx, e, memo)
                        if X:
                            out.append(((e,), X))
            return out
        if kind == "c":
            out = []
            for evl, xl in self._inst(nd.left, ctx, memo):
                for evr, xr in self._inst(nd.right, xl, memo):
                    out.append((evl + evr, xr))
            return out
        if self._first_match:
            a = self._inst(nd.left, ctx, memo)
            return a if a else self._inst(nd.right, ctx, memo)
        a, b = nd.cheap_first
        return self._inst(a, ctx, memo) + self._inst(b, ctx, memo)

    def _exists(self, nd: Node, ctx: tuple) -> bool:
        kind = nd.kind
        if kind == "g":
            leaf = nd.leaf
            batch = self._batch
            for s in leaf.streams:
                recs = batch.get(s)
                if recs:
                    for e in recs:
                        if self._ext(leaf, ctx, e, True):
                            return True
            return False
        if kind == "c":
            for _, xl in self._inst(nd.left, ctx, True):
                if self._exists(nd.right, xl):
                    return True
            return False
        a, b = nd.cheap_first
        return self._exists(a, ctx) or self._exists(b, ctx)

    def _relevant(self, j: int, ctx: tuple) -> bool:
        """An instance of element ``j`` relevant for context ``ctx`` in this batch (``Options.relevance``)."""
        if not self._ctx_rel:
            return self._standalone_rel(j)
        el = self.elements[j]
        if el.has_conj and self._lazy and not el.expr.need(self._batch.keys()):
            return False
        return self._exists(el.expr, ctx)

    def _standalone_rel(self, j: int) -> bool:
        v = self._standalone.get(j)
        if v is None:
            el = self.elements[j]
            if el.has_conj and self._lazy and not el.expr.need(self._batch.keys()):
                v = False
            else:
                v = self._exists(el.expr, self.omega0)
            self._standalone[j] = v
        return v

    def _ext(self, leaf: Leaf, ctx: tuple, e: EventRec, memo: bool) -> tuple:
        """``Ext(ctx, e)`` for one GPM.  With ``memo`` the result is kept for the batch, keyed on the context
        object (contexts shared by several runs: Kleene prefixes, ``{mu_empty}``, conjunction states)."""
        if memo:
            key = (id(ctx), leaf.idx, e.seq)
            hit = self._cache.get(key)
            if hit is not None:
                return hit[1]
        req = leaf.req if self._push_stateful else ()
        if len(ctx) == 1 and not req:
            self.counters["gpm_evaluations"] += 1
            rows = leaf.fn(ctx[0], e.idx)
            X = tuple(dict.fromkeys(rows)) if len(rows) > 1 else tuple(rows)
        else:
            fn = leaf.fn
            idx = e.idx
            n = 0
            acc: dict = {}
            for mu in ctx:
                if req and not self._precheck(req, mu, idx):
                    continue
                n += 1
                for row in fn(mu, idx):
                    acc[row] = None
            self.counters["gpm_evaluations"] += n
            X = tuple(acc)
        if memo:
            self._cache[key] = (ctx, X)
        return X

    @staticmethod
    def _precheck(req: tuple, mu: tuple, idx: Index) -> bool:
        """Pushing stateful predicates (section 7.2): the event must hold the values ``mu`` already binds in the
        GPM's required triple patterns; False means ``[[mu(P)]]`` is empty."""
        ps = None
        for p, sv, sx, ov, ox in req:
            s = mu[sx] if sv else sx
            o = mu[ox] if ov else ox
            if (sv and s is not None) or (ov and o is not None):
                if ps is None:
                    ps, po, pso = idx.keysets()
                if s is not None and o is not None:
                    if (p, s, o) not in pso:
                        return False
                elif s is not None:
                    if (p, s) not in ps:
                        return False
                elif (p, o) not in po:
                    return False
        return True

    def _eager(self, rec: EventRec) -> None:
        """Eager conjunction (``engine_lazy_conjunction=False``, Algorithm 5): evaluate each conjunct GPM on the
        event as it arrives, for every run waiting at a conjunction state (results kept in the batch cache)."""
        s = rec.stream
        runs = self._buckets.get(s, ()) if self._index else self._all
        for r in runs:
            if not r.alive or r.state.kind == "negend":
                continue
            el = self.elements[r.state.j]
            if el.has_conj:
                for lf in el.leaves:
                    if s in lf.streams:
                        self._ext(lf, r.ctx, rec, True)
        for j in self.automaton.starts:
            el = self.elements[j]
            if el.has_conj:
                for lf in el.leaves:
                    if s in lf.streams:
                        self._ext(lf, self.omega0, rec, True)


def _graph_iris(p: A.Pattern) -> set:
    if isinstance(p, A.Graph):
        return {p.iri} | _graph_iris(p.pattern)
    if isinstance(p, (A.Join, A.LeftJoin, A.Union_)):
        return _graph_iris(p.left) | _graph_iris(p.right)
    if isinstance(p, A.Filter):
        return _graph_iris(p.pattern)
    return set()
