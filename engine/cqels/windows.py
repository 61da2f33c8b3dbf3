"""Window contents of the CQELS-CEP engine, maintained as time advances (docs/semantics/cqels.md#cqels-3.1).

A window holds *entries* ``(e, [l, r], g')`` for the time point it was last advanced to.  Each leaf (a BGP of the
window's pattern, or one triple pattern under ``bgp_scope="join"``) is a *tap*: a :class:`~ceplab.engine.cqels.
operators.Leaf` with the matcher of its pattern.  An element's matches are computed once, when it first enters (and
cached on the element for every window of its stream); afterwards the window only tells the leaves when an entry
enters, leaves, or gets a new clipped interval.  Every window knows ``next``, the next time point at which its
contents can change, so the evaluator skips the time points where nothing happens.

* :class:`RangeWindow`: ``RANGE T SLIDE d``: ``u = d * floor(t / d)``, entries ``a(e) <= u``, ``[max(t1, u - T),
  min(t2, u)]`` when not empty.  ``NOW`` under ``now="valid"`` is ``RANGE 0`` and ``ALL`` is ``RANGE`` with an
  unbounded range (``[t1, min(t2, t)]``), exactly the definitions of the contract.  Only non-atomic entries can
  change interval while they are in the window.
* :class:`NowArrivedWindow`: ``NOW`` under ``now="arrived"``: the elements with ``a(e) == t``, ``[t, t]``.
* :class:`TriplesWindow`: ``TRIPLES n`` (``triples_unit`` elements or triples).
"""
from __future__ import annotations

import heapq
from collections import deque
from typing import Callable, Optional

from ceplab.engine.cqels.operators import Leaf

INF = 1 << 62
"""A time after every time (the upper end of a static interval before it is cut to ``t``; ALL's range)."""


class Elem:
    """A pushed stream element: position, interval, arrival time, its triples (N-Triples strings, canonical order)
    and the matches of every matcher that has seen it (``cache``)."""

    __slots__ = ("pos", "t1", "t2", "a", "triples", "cache")

    def __init__(self, pos: int, t1: int, t2: int, a: int, triples: tuple) -> None:
        self.pos, self.t1, self.t2, self.a, self.triples = pos, t1, t2, a, triples
        self.cache: dict[int, list] = {}


class Entry:
    """A window entry: the element, its clipped interval ``[l, r]``, its part ``kept`` of the graph (None: all of
    it) and the matches of each tap on it."""

    __slots__ = ("elem", "l", "r", "kept", "mus")

    def __init__(self, elem: Elem, l: int, r: int, kept: Optional[tuple], mus: list) -> None:
        self.elem, self.l, self.r, self.kept, self.mus = elem, l, r, kept, mus


class Window:
    """Common part: taps, pending (pushed, not yet visible) elements, entering/leaving/moving entries."""

    def __init__(self) -> None:
        self.taps: list[tuple[Leaf, int, Callable]] = []
        self.pending: deque[Elem] = deque()
        self.next = INF

    def tap(self, leaf: Leaf, key: int, match: Callable) -> None:
        """Subscribe ``leaf``; ``match(triples) -> list of mappings``; ``key`` identifies the matcher (cache)."""
        self.taps.append((leaf, key, match))

    def visible_from(self, elem: Elem) -> int:
        """The first time point at which this window can see ``elem``."""
        return elem.a

    def offer(self, elem: Elem) -> None:
        """A pushed element of this window's stream (pushes come in non-decreasing arrival order)."""
        self.pending.append(elem)
        at = self.visible_from(elem)
        if at < self.next:
            self.next = at

    def _enter(self, elem: Elem, l: int, r: int, kept: Optional[tuple] = None) -> Entry:
        mus = []
        for leaf, key, match in self.taps:
            if kept is None:
                m = elem.cache.get(key)
                if m is None:
                    m = elem.cache[key] = match(elem.triples)
            else:
                m = match(kept)
            mus.append(m)
            if m:
                leaf.add_entry(m, l, r)
        return Entry(elem, l, r, kept, mus)

    def _leave(self, entry: Entry) -> None:
        l, r = entry.l, entry.r
        for (leaf, _, _), m in zip(self.taps, entry.mus):
            if m:
                leaf.remove_entry(m, l, r)

    def _move(self, entry: Entry, l: int, r: int) -> None:
        ol, orr = entry.l, entry.r
        for (leaf, _, _), m in zip(self.taps, entry.mus):
            if m:
                leaf.remove_entry(m, ol, orr)
                leaf.add_entry(m, l, r)
        entry.l, entry.r = l, r

    def advance(self, t: int) -> None:  # pragma: no cover - abstract
        raise NotImplementedError


class RangeWindow(Window):
    """``RANGE T SLIDE d`` (also ``NOW`` = ``RANGE 0`` under ``now="valid"`` and ``ALL`` = ``RANGE INF``)."""

    def __init__(self, T: int, d: int = 1) -> None:
        super().__init__()
        self.T, self.d = T, d
        self.u: Optional[int] = None
        self.entries: dict[int, Entry] = {}
        self.heap: list[tuple[int, int]] = []        # (t2, pos): gone once u - T > t2
        self.long: dict[int, Entry] = {}             # non-atomic entries: their clipped interval can change

    def _up(self, x: int) -> int:
        """The first window end ``u`` (a multiple of ``d``) at or after ``x``."""
        d = self.d
        return -(-x // d) * d

    def visible_from(self, elem: Elem) -> int:
        return self._up(elem.a)

    def advance(self, t: int) -> None:
        u = t - t % self.d
        if u == self.u:
            return
        self.u = u
        lo = u - self.T
        heap, entries, long = self.heap, self.entries, self.long
        while heap and heap[0][0] < lo:
            _, pos = heapq.heappop(heap)
            self._leave(entries.pop(pos))
            long.pop(pos, None)
        for entry in long.values():
            e = entry.elem
            l = e.t1 if e.t1 > lo else lo
            r = e.t2 if e.t2 < u else u
            if l != entry.l or r != entry.r:
                self._move(entry, l, r)
        pending = self.pending
        while pending and pending[0].a <= u:
            e = pending.popleft()
            if e.t2 < lo:
                continue                    # already out of the window when it becomes visible
            entry = self._enter(e, e.t1 if e.t1 > lo else lo, e.t2 if e.t2 < u else u)
            entries[e.pos] = entry
            heapq.heappush(heap, (e.t2, e.pos))
            if e.t1 < e.t2:
                long[e.pos] = entry
        self.next = self._next()

    def _next(self) -> int:
        u, d, T = self.u, self.d, self.T
        nu = u + d
        best = INF
        if self.pending:
            best = self._up(self.pending[0].a)
        if self.heap:
            best = min(best, self._up(self.heap[0][0] + T + 1))
        if best > nu:
            for entry in self.long.values():
                e = entry.elem
                if e.t2 > u or e.t1 < nu - T:
                    best = nu
                    break
                best = min(best, self._up(e.t1 + T + 1))
        return best


class NowArrivedWindow(Window):
    """``NOW`` under ``now="arrived"``: the elements with ``a(e) == t``, each ``[t, t]``."""

    def __init__(self) -> None:
        super().__init__()
        self.entries: list[Entry] = []

    def advance(self, t: int) -> None:
        for entry in self.entries:
            self._leave(entry)
        self.entries = []
        pending = self.pending
        while pending and pending[0].a <= t:
            e = pending.popleft()
            if e.a == t:
                self.entries.append(self._enter(e, t, t))
        self.next = t + 1 if self.entries else (pending[0].a if pending else INF)


class TriplesWindow(Window):
    """``TRIPLES n``: the last ``n`` elements (``triples_unit="elements"``) or the elements holding the last ``n``
    triples (``"triples"``; the oldest may be kept in part), in ``(a(e), position)`` order, ``[t1, min(t2, t)]``."""

    def __init__(self, n: int, unit: str) -> None:
        super().__init__()
        self.n = n
        self.by_triples = unit == "triples"
        self.q: deque[Entry] = deque()
        self.units = 0
        self.growing: dict[int, Entry] = {}           # entries with r < t2

    def advance(self, t: int) -> None:
        growing = self.growing
        for pos, entry in list(growing.items()):
            e = entry.elem
            r = e.t2 if e.t2 < t else t
            if r != entry.r:
                self._move(entry, entry.l, r)
            if r == e.t2:
                del growing[pos]
        batch = []
        pending = self.pending
        while pending and pending[0].a <= t:
            batch.append(pending.popleft())
        batch.sort(key=lambda e: (e.a, e.pos))
        q = self.q
        for e in batch:
            if self.by_triples and not e.triples:
                continue
            entry = self._enter(e, e.t1, e.t2 if e.t2 < t else t)
            q.append(entry)
            self.units += len(e.triples) if self.by_triples else 1
            if e.t2 > t:
                growing[e.pos] = entry
        n = self.n
        while self.units > n:
            front = q[0]
            size = len(front.kept if front.kept is not None else front.elem.triples) if self.by_triples else 1
            excess = self.units - n
            if size <= excess:
                q.popleft()
                self._leave(front)
                growing.pop(front.elem.pos, None)
                self.units -= size
            else:
                kept = (front.kept if front.kept is not None else front.elem.triples)[excess:]
                self._leave(front)
                q[0] = new = self._enter(front.elem, front.l, front.r, kept)
                if front.elem.pos in growing:
                    growing[front.elem.pos] = new
                self.units -= excess
        self.next = min(t + 1 if growing else INF, pending[0].a if pending else INF)
