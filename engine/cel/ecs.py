"""Enumerable compact sets (ECS) of complex events (paper section 7; note cel.md 5.5, G15).

The paper's Algorithm 1 keeps, per automaton state, a list of *nodes*; seen as a DAG every node
reaches the sink ⊥ and each path spells one complex event (CE).  The paper mutates append-only
lists with lazy copies; that is an aliasing trap (note G15), so here nodes are **immutable** and a
list concatenation is an explicit union node:

    BOTTOM                   ⊥: the set {∅} (the empty partial CE)
    Out(pos, child)          "mark pos": { C ∪ {pos} | C ∈ child }   (every C in child < pos)
    Union(k1, ..., kn)       k1 ∪ ... ∪ kn; the ki are pairwise **disjoint** (n >= 2)

"No node" (the empty set) is ``None``; the constructors never build a node for it.

Representation (chosen by measurement: a tuple is built ~4x faster than a ``__slots__`` object in
CPython 3.11, 30 ns vs 125 ns):

    BOTTOM        = (INF,)                       len 1
    Out node      = (max_start, pos, child)      len 3
    Union node    = (max_start, kids)            len 2, ``kids`` a list of >= 2 nodes sorted by
                                                 max_start, largest first (a list only so that
                                                 :class:`WindowGC` can cut expired kids, below)

``node[0]`` is always ``max_start``: the largest ``min(C)`` over the CEs of the node (``INF`` for
BOTTOM, whose only CE is empty).  ``Out(pos, BOTTOM)`` has ``max_start = pos``; otherwise
``Out(pos, c)`` has ``max_start = c[0]``.  Windowed enumeration with lower bound ``lo`` (a CE is
wanted only if ``min(C) >= lo``) skips every node with ``max_start < lo`` and, because union
children are sorted, stops scanning a union at its first unproductive child (CORE-style pruning).
Callers may rely on this layout (``node[0]``, ``len(node)``) in hot loops; everything else should go
through the functions below.

API (stable; used by ``engine.cel.evaluate`` and ``engine.cel.strategies``):

    BOTTOM, INF
    out(pos, child) -> node                        Out node
    union(nodes, lo=None) -> node | None           disjoint union of an iterable of nodes/None;
                                                   drops None and nodes with max_start < lo;
                                                   0 left -> None, 1 left -> that node
    union2(a, b) -> node | None                    the same for two operands (fast path)
    max_start(node) -> int
    is_out(node) / is_union(node) / is_bottom(node)
    enumerate_ces(node, lo=None) -> Iterator[tuple[int, ...]]   sorted position tuples
    enumerate_all(nodes, lo=None) -> Iterator[tuple[int, ...]]  over several disjoint roots
    count(node, lo=None) -> int                    number of CEs (memoised DAG count)
    live_nodes(roots) -> int                       distinct nodes reachable from the roots
    compact(roots, lo) -> list[node | None]        rebuild the DAG keeping only nodes with
                                                   max_start >= lo (each node rebuilt once)
    WindowGC(w)                                    incremental window garbage collection:
        .register(u)                               call for every Union node built while windowed
        .advance(lo)                               cut every kid with max_start < lo out of the
                                                   registered unions (amortised O(1) per kid)

Window garbage collection and immutability (note G15).  The *meaning* of a node never changes: a
node's CEs are fixed at construction.  Under ``WITHIN w`` an evaluator only ever asks for CEs with
``min(C) >= lo`` for a lower bound ``lo = j - w`` that never decreases, so a union kid whose
``max_start < lo`` contributes nothing now and nothing later.  :class:`WindowGC` removes such kids
from the kid lists in place (they are the tail of the list, sorted by max_start) so that memory is
bounded by the window instead of the stream; this is invisible to every windowed enumeration with
the current or a later bound, and ``max_start`` of the union is unchanged (its first kid stays,
unless the whole union expired, in which case it is never visited again).  Rule: a WindowGC may
only cut nodes built and enumerated by one evaluator whose bound never decreases; never enumerate
such nodes with ``lo=None`` after cutting.  The alternative :func:`compact` rebuilds instead (pure,
but ~10x more expensive per node).

Complexity (honest):
  * construction: ``out`` is O(1); ``union`` is O(k log k) for k operands (k is bounded by the
    automaton, never by the stream).
  * enumeration: no dead ends are ever entered (a node with ``max_start >= lo`` contains at least
    one CE with ``min(C) >= lo``, and so does its first child), so every descent ends in an output
    and no CE is produced twice when union operands are disjoint.  The cost of producing one CE C
    is O(|C| + u) where u is the number of union nodes on its DAG path; unions on a path are
    created at strictly decreasing stream positions, so ``u <= max C - min C + 1`` (the CE's span,
    ``<= w + 1`` under ``WITHIN w``).  Backtracking is amortised into the descent.  So the delay is
    output-linear *in the span*: O(|C| + span(C)) per CE, times the automaton-bounded fan-in of
    unions; it is **not** the paper's constant delay (Algorithm 3's black/white stack over
    flattened lists), which would need flattened union lists (quadratic memory here).  The total
    time to enumerate a node is O(Σ_C (|C| + span(C))) and at most the size of the DAG unfolding.
  * compaction: O(live nodes), iterative (no recursion limit).
  * WindowGC: each union is registered once under the max_start of its last (smallest) kid; when
    ``lo`` passes it the expired tail is popped and the union re-registered under its new last
    kid.  Every kid is cut at most once, so the cost is O(1) amortised per union kid created, and
    a registered union is held by the collector at most ``w + 1`` positions after its last kid's
    start.  Memory is O(w x determinized automaton).
"""
from __future__ import annotations

import sys
from typing import Iterable, Iterator, Optional

INF = sys.maxsize
BOTTOM: tuple = (INF,)

Node = tuple


def out(pos: int, child: Node) -> Node:
    """``Out(pos, child)``: every CE of ``child`` extended with ``pos`` (``pos`` > its positions)."""
    ms = child[0]
    return (pos if ms == INF else ms, pos, child)


def _ms(n: Node) -> int:
    return n[0]


def union(nodes: Iterable[Optional[Node]], lo: Optional[int] = None) -> Optional[Node]:
    """Union of pairwise disjoint nodes; ``None`` operands and (with ``lo``) operands whose
    ``max_start < lo`` are dropped.  Returns None, the single remaining node, or a Union node."""
    if lo is None:
        ks = [n for n in nodes if n is not None]
    else:
        ks = [n for n in nodes if n is not None and n[0] >= lo]
    if not ks:
        return None
    if len(ks) == 1:
        return ks[0]
    ks.sort(key=_ms, reverse=True)
    return (ks[0][0], ks)


def union2(a: Optional[Node], b: Optional[Node]) -> Optional[Node]:
    """Union of two disjoint nodes (either may be None)."""
    if a is None:
        return b
    if b is None:
        return a
    if a[0] >= b[0]:
        return (a[0], [a, b])
    return (b[0], [b, a])


def max_start(node: Node) -> int:
    """Largest ``min(C)`` among the node's CEs (INF for BOTTOM)."""
    return node[0]


def is_bottom(node: Node) -> bool:
    return len(node) == 1


def is_out(node: Node) -> bool:
    return len(node) == 3


def is_union(node: Node) -> bool:
    return len(node) == 2


def enumerate_ces(node: Optional[Node], lo: Optional[int] = None) -> Iterator[tuple[int, ...]]:
    """The CEs of ``node`` with ``min(C) >= lo`` (all if lo is None), as sorted position tuples.

    Iterative depth-first search; only productive nodes are visited (see module docstring).
    BOTTOM alone yields the empty tuple.
    """
    if node is None:
        return
    if lo is None:
        lo = -INF
    if node[0] < lo:
        return
    path: list[int] = []          # positions, largest first
    stack: list = [(node, 0)]     # (node, length of path when the node is entered)
    pop, push, app = stack.pop, stack.append, path.append
    while stack:
        node, plen = pop()
        del path[plen:]
        while True:
            n = len(node)
            if n == 3:
                app(node[1])
                node = node[2]
            elif n == 2:
                kids = node[1]
                pl = len(path)
                # kids are sorted by max_start (desc); push productive ones after the first
                i = len(kids) - 1
                while i > 0 and kids[i][0] < lo:
                    i -= 1
                while i > 0:
                    push((kids[i], pl))
                    i -= 1
                node = kids[0]
            else:
                yield tuple(reversed(path))
                break


def enumerate_all(nodes: Iterable[Optional[Node]], lo: Optional[int] = None
                  ) -> Iterator[tuple[int, ...]]:
    """Enumerate several pairwise disjoint roots one after the other."""
    for n in nodes:
        if n is not None:
            yield from enumerate_ces(n, lo)


def count(node: Optional[Node], lo: Optional[int] = None) -> int:
    """Number of CEs of ``node`` with ``min(C) >= lo`` (memoised over the DAG, iterative)."""
    if node is None:
        return 0
    if lo is None:
        lo = -INF
    memo: dict[int, int] = {}
    stack = [(node, False)]
    while stack:
        n, done = stack.pop()
        k = id(n)
        if k in memo:
            continue
        if n[0] < lo:
            memo[k] = 0
            continue
        ln = len(n)
        if ln == 1:
            memo[k] = 1
        elif ln == 3:
            c = n[2]
            if id(c) in memo:
                memo[k] = memo[id(c)]
            else:
                stack.append((n, True))
                stack.append((c, False))
        else:
            kids = n[1]
            missing = [c for c in kids if id(c) not in memo]
            if not missing:
                memo[k] = sum(memo[id(c)] for c in kids)
            else:
                stack.append((n, True))
                for c in missing:
                    stack.append((c, False))
    return memo[id(node)]


def live_nodes(roots: Iterable[Optional[Node]]) -> int:
    """Number of distinct nodes reachable from ``roots`` (BOTTOM excluded)."""
    seen: set[int] = set()
    stack = [r for r in roots if r is not None]
    while stack:
        n = stack.pop()
        k = id(n)
        if k in seen:
            continue
        seen.add(k)
        ln = len(n)
        if ln == 3:
            stack.append(n[2])
        elif ln == 2:
            stack.extend(n[1])
    seen.discard(id(BOTTOM))
    return len(seen)


def compact(roots: list[Optional[Node]], lo: int) -> list[Optional[Node]]:
    """Rebuild the DAG under ``roots`` keeping only nodes with ``max_start >= lo``.

    Every reachable node is rebuilt at most once (memoised on identity), so the cost is
    O(live nodes); nodes with nothing to drop underneath are reused as they are.  The result has
    the same CEs with ``min(C) >= lo`` as the input and references no node with
    ``max_start < lo``, so the dropped part of the old DAG becomes garbage.
    """
    memo: dict[int, Optional[Node]] = {}
    keep: list = []  # keeps old nodes alive while their ids are memo keys
    for r in roots:
        if r is None or id(r) in memo:
            continue
        stack = [(r, False)]
        while stack:
            n, expanded = stack.pop()
            k = id(n)
            if k in memo:
                continue
            if n[0] < lo:
                memo[k] = None
                keep.append(n)
                continue
            ln = len(n)
            if ln == 1:
                memo[k] = n
                keep.append(n)
                continue
            kids = (n[2],) if ln == 3 else n[1]
            if not expanded:
                stack.append((n, True))
                for c in kids:
                    if id(c) not in memo:
                        stack.append((c, False))
                continue
            keep.append(n)
            if ln == 3:
                c = memo[id(n[2])]
                memo[k] = n if c is n[2] else (n[0], n[1], c)
            else:
                new = [memo[id(c)] for c in kids]
                new = [c for c in new if c is not None]
                if len(new) == len(kids) and all(a is b for a, b in zip(new, kids)):
                    memo[k] = n
                elif len(new) == 1:
                    memo[k] = new[0]
                else:
                    # order is preserved: max_start of surviving kids is unchanged
                    memo[k] = (new[0][0], new)
    return [None if r is None else memo[id(r)] for r in roots]


class WindowGC:
    """Incremental garbage collection of expired union kids under ``WITHIN w`` (see module doc).

    Args:
        w: the window; registered unions must have every kid with ``max_start >= lo - ?`` where
            keys live in ``[lo, lo + w]`` (true when contributions with ``max_start < lo`` are
            dropped at construction, as the evaluators do).
    """

    __slots__ = ("size", "ring", "lo", "cuts")

    def __init__(self, w: int) -> None:
        self.size = w + 2
        self.ring: list[list] = [[] for _ in range(self.size)]
        self.lo = -INF
        self.cuts = 0

    def register(self, u: Node) -> None:
        """Watch a freshly built Union node (kids sorted, none expired)."""
        k = u[1][-1][0]
        if k != INF:
            self.ring[k % self.size].append(u)

    def advance(self, lo: int) -> None:
        """Raise the bound to ``lo`` and cut every watched kid with ``max_start < lo``."""
        old = self.lo
        if lo <= old:
            return
        self.lo = lo
        size = self.size
        if old == -INF or lo - old >= size:
            for s in range(size):
                if self.ring[s]:
                    self.sweep(s, lo)
        else:
            ring = self.ring
            for k in range(old, lo):
                if ring[k % size]:
                    self.sweep(k % size, lo)

    def sweep(self, s: int, lo: int) -> None:
        """Process ring slot ``s`` under bound ``lo`` (callers inline the per-event fast path:
        ``gc.lo = lo; if gc.ring[(lo - 1) % gc.size]: gc.sweep((lo - 1) % gc.size, lo)``
        when the bound grows by one)."""
        ring = self.ring
        size = self.size
        bucket = ring[s]
        ring[s] = []
        cuts = 0
        for u in bucket:
            kids = u[1]
            while kids and kids[-1][0] < lo:
                kids.pop()
                cuts += 1
            if kids:
                k = kids[-1][0]
                if k != INF:
                    ring[k % size].append(u)
        self.cuts += cuts

    def watched(self) -> int:
        """Number of unions currently held by the collector."""
        return sum(len(b) for b in self.ring)


__all__ = ["WindowGC", "BOTTOM", "INF", "Node", "out", "union", "union2", "max_start", "is_bottom", "is_out",
           "is_union", "enumerate_ces", "enumerate_all", "count", "live_nodes", "compact"]
