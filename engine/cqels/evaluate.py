"""The incremental CQELS-CEP evaluator (docs/semantics/cqels.md#cqels-8).

The query is compiled once into a network of maintained sets (:mod:`ceplab.engine.cqels.operators`):

* one window state per declared window (:mod:`ceplab.engine.cqels.windows`), with one leaf per BGP of every use of
  the window (an event clause, an item of an event-clause ``SEQ``, negated or not);
* per use of a window, its TSP (docs/semantics/cqels.md#cqels-3.3): a BGP leaf, or the sequence of its items;
* a sequence ``SEQ(X1, ..., Xn)``: left-deep ``SEQ`` nodes (SEQ is associative, docs/semantics/cqels.md#cqels-P1),
  ``SEQ_WO`` for a negated middle item, ``NO_HEAD``/``NO_TAIL`` for a negated first/last item;
* the event clauses joined left-deep, then joined with the static part (a set replaced when ``D`` changes; its
  items carry ``[t', INF]``: with an event clause the JOIN's end is the event's, which is ``<= t``; without one the
  answers' end ``INF`` is written as ``t``);
* a sink applying the top-level FILTERs and the projection, with counts (the same projected answer from two
  mappings is one answer).

Time advances one time point at a time but only the windows whose contents change at that point do work (each
window knows its next change), and nothing is recomputed: deltas flow through the network.  The snapshot of ``t``
is the sink's set, sorted once per change.
"""
from __future__ import annotations

from typing import Callable, Optional

from ceplab.semantics.cqels import ast as A
from ceplab.semantics.cqels.options import Options
from ceplab.semantics.cqels.results import Answer
from ceplab.semantics.cqels.streams import StaticData, arrival
from ceplab.semantics.rdfstream import StreamElement

from ceplab.engine.cqels import operators as O
from ceplab.engine.cqels.match import Terms, compile_bgp, compile_filters, getter, schema_of
from ceplab.engine.cqels.static import StaticPart
from ceplab.engine.cqels.windows import INF, Elem, NowArrivedWindow, RangeWindow, TriplesWindow, Window


class Sink:
    """The answers at the current time point: top-level FILTERs on the full mapping, projection, counts."""

    def __init__(self, node: O.Node, pred: Optional[Callable], proj: Callable, names: tuple[str, ...]) -> None:
        self.pred = pred
        self.proj = proj
        self.names = names
        self.cnt: dict[tuple, int] = {}
        self.mappings: dict[tuple, tuple] = {}
        self.sorted: Optional[list] = None
        node.out_add, node.out_remove = self.add, self.remove

    def add(self, it: tuple) -> None:
        mu = it[0]
        if self.pred is not None and not self.pred(mu):
            return
        p = (self.proj(mu), it[1], it[2])
        c = self.cnt.get(p, 0)
        self.cnt[p] = c + 1
        if not c:
            self.sorted = None

    def remove(self, it: tuple) -> None:
        mu = it[0]
        if self.pred is not None and not self.pred(mu):
            return
        p = (self.proj(mu), it[1], it[2])
        c = self.cnt[p]
        if c == 1:
            del self.cnt[p]
            self.sorted = None
        else:
            self.cnt[p] = c - 1

    def snapshot(self, t: int) -> list[Answer]:
        s = self.sorted
        if s is None:
            maps = self.mappings
            if len(maps) > 100_000:
                maps.clear()
            rows = []
            for pmu, a, b in self.cnt:
                m = maps.get(pmu)
                if m is None:
                    m = maps[pmu] = tuple(zip(self.names, pmu))
                rows.append((m, (a, b)))
            rows.sort()
            s = self.sorted = rows
        new = tuple.__new__
        return [new(Answer, (t, m, iv if iv[1] != INF else (iv[0], t))) for m, iv in s]


class Evaluator:
    """``push(element) -> list[Answer]``, ``close() -> list[Answer]`` (docs/semantics/cqels.md#cqels-8): the
    snapshot of ``t`` is returned, complete and sorted, by the first push with ``a(e) > t`` or by ``close()``."""

    def __init__(self, query: A.Query, options: Options = Options(), static: Optional[StaticData] = None,
                 until: Optional[int] = None) -> None:
        if until is not None and (isinstance(until, bool) or not isinstance(until, int) or until < 0):
            raise ValueError(f"until must be an integer >= 0, got {until!r}")
        self.query = query
        self.options = options
        self.static = static if static is not None else StaticData.constant(())
        self.until = until
        self.terms = Terms()
        self.strict = options.wo_bounds == "strict"
        self._matchers: dict = {}
        self.windows: dict = {w.name: self._window(w) for w in query.windows}
        self.by_stream: dict = {}
        for w in query.windows:
            self.by_stream.setdefault(w.stream, []).append(self.windows[w.name])
        self.window_list: list[Window] = list(self.windows.values())

        ec: Optional[O.Node] = None
        for clause in query.events:
            node = self._clause(clause)
            ec = node if ec is None else O.Join(ec, node)
        self.static_part: Optional[StaticPart] = None
        self.static_node: Optional[O.Source] = None
        root = ec
        if query.static:
            self.static_part = StaticPart(query, options, self.terms)
            self.static_node = O.Source(self.static_part.schema)
            root = self.static_node if ec is None else O.Join(ec, self.static_node)
        assert root is not None and root.schema == schema_of(A.scope_vars(query))
        names = tuple(sorted(str(v) for v in A.projection(query)))
        self.sink = Sink(root, compile_filters(query.filters, root.schema, self.terms),
                         getter([root.schema.index(v) for v in names]), names)

        self.version = -1
        self.version_start: dict = {}
        self.static_next = 0 if self.static_node is not None else INF
        self.next_change = self.static_next
        self.frontier = 0
        self.last_arrival: Optional[int] = None
        self.last_input = max(self.static.change_times, default=0)
        self.closed = False

    # ------------------------------------------------------------------------------------------ compilation
    def _window(self, w: A.Window) -> Window:
        spec = w.spec
        if isinstance(spec, A.RangeWindow):
            return RangeWindow(spec.range, spec.slide)
        if isinstance(spec, A.NowWindow):
            return RangeWindow(0, 1) if self.options.now == "valid" else NowArrivedWindow()
        if isinstance(spec, A.AllWindow):
            return RangeWindow(INF, 1)
        if isinstance(spec, A.TriplesWindow):
            return TriplesWindow(spec.count, self.options.triples_unit)
        raise TypeError(f"not a window: {spec!r}")  # pragma: no cover

    def _matcher(self, patterns: tuple, filters: tuple, schema: tuple) -> tuple[int, Callable]:
        key = (patterns, filters)
        got = self._matchers.get(key)
        if got is None:
            match = compile_bgp(patterns, schema, self.terms)
            pred = compile_filters(filters, schema, self.terms)
            if pred is not None:
                raw = match
                match = lambda triples: [mu for mu in raw(triples) if pred(mu)]  # noqa: E731
            got = self._matchers[key] = (len(self._matchers), match)
        return got

    def _leaf(self, window: Window, bgp: A.BGP) -> O.Node:
        """A BGP of a window (docs/semantics/cqels.md#cqels-3.3, ``Options.bgp_scope``)."""
        if self.options.bgp_scope == "element" or len(bgp.triples) == 1:
            schema = schema_of(A.bgp_vars(bgp))
            leaf = O.Leaf(schema)
            window.tap(leaf, *self._matcher(bgp.triples, bgp.filters, schema))
            return leaf
        node: Optional[O.Node] = None
        for tp in bgp.triples:
            schema = schema_of(A.bgp_vars(A.BGP((tp,))))
            leaf = O.Leaf(schema)
            window.tap(leaf, *self._matcher((tp,), (), schema))
            node = leaf if node is None else O.Join(node, leaf)
        if bgp.filters:
            node = O.Filter(node, compile_filters(bgp.filters, node.schema, self.terms))
        return node

    def _tsp(self, w: A.Window) -> O.Node:
        window = self.windows[w.name]
        p = w.pattern
        if isinstance(p, A.BGP):
            return self._leaf(window, p)
        return self._seq([((lambda b=it.item if isinstance(it, A.Neg) else it: self._leaf(window, b)),
                           isinstance(it, A.Neg)) for it in p.items])

    def _clause(self, ec: A.EC) -> O.Node:
        if isinstance(ec, A.WinRef):
            return self._tsp(self.query.window(ec.name))
        return self._seq([((lambda r=it.item if isinstance(it, A.Neg) else it: self._tsp(self.query.window(r.name))),
                           isinstance(it, A.Neg)) for it in ec.items])

    def _seq(self, items: list) -> O.Node:
        """``SEQ(X1, ..., Xn)`` with at most one negated item (docs/semantics/cqels.md#cqels-3.3)."""
        def chain(sub: list) -> O.Node:
            node = sub[0][0]()
            for build, _ in sub[1:]:
                node = O.Seq(node, build())
            return node

        negs = [i for i, (_, neg) in enumerate(items) if neg]
        if not negs:
            return chain(items)
        i = negs[0]
        if i == 0:
            neg = items[0][0]()
            return O.NoHead(chain(items[1:]), neg)
        if i == len(items) - 1:
            pos = chain(items[:-1])
            return O.NoTail(pos, items[-1][0]())
        left = chain(items[:i])
        neg = items[i][0]()
        return O.SeqWO(left, neg, chain(items[i + 1:]), self.strict)

    # ------------------------------------------------------------------------------------------ time
    def _static_version(self, t: int) -> None:
        """Move to the version of ``D`` active at ``t`` (called exactly at its start)."""
        static = self.static
        self.version += 1
        k = self.version
        since = static.versions[k].since
        sol = self.static_part.solutions(static.versions[k].triples)
        mode = self.options.static_interval
        if mode == "global":
            start = {mu: since for mu in sol}
        elif mode == "unbounded":
            start = {mu: 0 for mu in sol}
        else:
            prev = self.version_start
            start = {mu: prev.get(mu, since) for mu in sol}
        self.version_start = start
        self.static_node.replace({(mu, s, INF) for mu, s in start.items()})
        self.static_next = static.versions[k + 1].since if k + 1 < len(static.versions) else INF

    def _advance(self, t: int) -> None:
        if self.static_next <= t:
            self._static_version(t)
        nxt = self.static_next
        for w in self.window_list:
            if w.next <= t:
                w.advance(t)
            if w.next < nxt:
                nxt = w.next
        self.next_change = nxt

    def _emit(self, t_end: int) -> list[Answer]:
        out: list[Answer] = []
        t = self.frontier
        sink = self.sink
        while t <= t_end:
            if t >= self.next_change:
                self._advance(t)
            if sink.cnt:
                out.extend(sink.snapshot(t))
                t += 1
            else:                                   # nothing to emit until the next change
                nxt = self.next_change
                t = min(nxt if nxt > t else t + 1, t_end + 1)
        if t_end + 1 > self.frontier:
            self.frontier = t_end + 1
        return out

    # ------------------------------------------------------------------------------------------ API
    def push(self, element: StreamElement) -> list[Answer]:
        """Take the next element (non-decreasing ``a(e)``); return the snapshots of every ``t`` from the previous
        frontier up to ``min(a(e) - 1, H)``.

        Raises:
            ValueError: after ``close()``, or an element arriving before an earlier one.
        """
        if self.closed:
            raise ValueError("push after close()")
        a = arrival(element, self.options)
        if self.last_arrival is not None and a < self.last_arrival:
            raise ValueError(f"element at position {element.position} arrives at {a}, before an earlier push "
                             f"({self.last_arrival}): push in arrival order (streams.arrival_order)")
        self.last_arrival = a
        out = self._emit(a - 1 if self.until is None else min(a - 1, self.until))
        self.last_input = max(self.last_input, element.start, element.end)
        windows = self.by_stream.get(element.stream)
        if windows and (self.until is None or a <= self.until):
            nt = self.terms.triple
            elem = Elem(element.position, element.start, element.end, a,
                        tuple(sorted(nt(t) for t in element.triples())))
            for w in windows:
                w.offer(elem)
                if w.next < self.next_change:
                    self.next_change = w.next
        return out

    def close(self) -> list[Answer]:
        """The remaining snapshots up to the horizon ``H`` (``until``, or ``L + R``, docs/semantics/cqels.md#cqels-3.8).

        Raises:
            ValueError: a second ``close()``.
        """
        if self.closed:
            raise ValueError("close() called twice")
        self.closed = True
        h = self.until if self.until is not None else self.last_input + A.window_reach(self.query)
        return self._emit(h)
