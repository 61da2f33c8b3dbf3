"""Enumerable compact sets (ECS) of complex events (paper section 7; note cel.md 5.5, G15).

The paper's Algorithm 1 keeps, per automaton state, a list of *nodes*; seen as a DAG every node
reaches the sink ⊥ and each path spells one complex event (CE).  The paper mutates append-only
lists with lazy copies; that is an aliasing trap (note G15), so here nodes are **immutable** and a
list concatenation is an explicit union node:

    BOTTOM                   ⊥: the set {∅} (the empty partial CE)
    Out(pos, child)          "mark pos": { C ∪ {pos} | C ∈ child }   (every C in child < pos)
    Union(left, right)       left ∪ right, disjoint, **binary** (CORE's tECS, Bucchi et al.,
                             VLDB 2022)

"No node" (the empty set) is ``None``; the constructors never build a node for it.

Representation (chosen by measurement: a tuple is built ~4x faster than a ``__slots__`` object in
CPython 3.11, 30 ns vs 125 ns):

    BOTTOM        = (INF,)                       len 1
    Out node      = (max_start, pos, child)      len 3
    Union node    = (max_start, [left, right])   len 2; ``max_start(left) == max_start >=
                                                 max_start(right)``; the kid list is a list only
                                                 so that :class:`WindowGC` can cut an expired
                                                 right child (then it has one kid; an expired
                                                 union, never visited again, may be emptied)

Union invariants (CORE): a union is binary with its maximum on the left; a *root* union (a node
kept per automaton state, a contribution to a step, the child of a fresh ``Out``) has a left
child that is **not** a union.  Unions are built by :func:`merge` (CORE's union list: sort the
contributions by max_start, combine equal ones with :func:`new_union`, split a union at the head
into its non-union left child and its right child, then chain ``(n0, (n1, (... nk)))``) and by
:func:`new_union` (equal max_start: a non-union operand goes left; two unions ``(l1, r1)``,
``(l2, r2)`` give ``(l1, (l2, (r1 ⊕ r2)))`` with the larger of ``r1, r2`` on the left).

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
  * construction: ``out`` is O(1); ``merge``/``union`` is O(k log k) for k operands (k is
    bounded by the automaton, never by the stream or the window); ``new_union`` is O(1).
  * enumeration: no dead ends are ever entered (a node with ``max_start >= lo`` contains at least
    one CE with ``min(C) >= lo``, and so does its left child), so every descent ends in an output
    and no CE is produced twice when union operands are disjoint.  From a union the search goes
    left and pushes the right child only if ``max_start(right) >= lo``, so every pushed entry
    yields an output and the work between two outputs is O(|C| * d) where d bounds the number of
    consecutive left steps through unions (the *left depth*).  Roots have d = 1 by construction;
    a right child can be deeper (a chain cell whose left is a split-off right child, or
    new_union's ``r1 ⊕ r2``).  Measured on the evaluators' DAGs (random queries and streams,
    tests ``test_enumeration_delay_*``): d <= 2 and at most 3 steps per ``|C| + 1`` between
    outputs.  **Not proven**: repeatedly merging a root with a non-union operand whose
    max_start lies below the root's right child nests the right child one level deeper each
    time (``merge([merge([(10, 9)], x5)], x4)...``), so d is unbounded for arbitrary merge
    sequences; the old k-ary representation had O(|C| + span(C)) delay instead.
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


def new_union(a: Node, b: Node, lo: int = -INF, reg=None) -> Node:
    """CORE's ``new_union`` of two disjoint nodes with **equal** ``max_start``.

    If either is not a union it goes on the left (one new node).  If both are unions
    ``a = (l1, r1)``, ``b = (l2, r2)``: ``u2 = (r1, r2)`` (larger max_start left; expired or cut
    right children are dropped), ``u1 = (l2, u2)``, result ``(l1, u1)`` (three new nodes), so the
    left child of the result is ``a``'s left child (not a union when ``a`` is a root)."""
    if len(a) != 2:
        u = (a[0], [a, b])
    elif len(b) != 2:
        u = (b[0], [b, a])
    else:
        ka = a[1]
        kb = b[1]
        r1 = ka[1] if len(ka) > 1 and ka[1][0] >= lo else None
        r2 = kb[1] if len(kb) > 1 and kb[1][0] >= lo else None
        l2 = kb[0]
        if r1 is None:
            u2 = r2
        elif r2 is None:
            u2 = r1
        else:
            u2 = (r1[0], [r1, r2]) if r1[0] >= r2[0] else (r2[0], [r2, r1])
            if reg is not None:
                reg(u2)
        if u2 is None:
            u1 = l2
        else:
            u1 = (l2[0], [l2, u2])
            if reg is not None:
                reg(u1)
        l1 = ka[0]
        u = (l1[0], [l1, u1])
    if reg is not None:
        reg(u)
    return u


def merge(parts: list, lo: int = -INF, reg=None) -> Node:
    """CORE union-list merge of >= 1 pairwise disjoint nodes, all with ``max_start >= lo``
    (``parts`` is reordered).  Entries are sorted by max_start (desc), equal ones combined by
    :func:`new_union`; a union at the head is split into its left child (not a union) and its
    right child (re-inserted); the list ``n0, n1, ..., nk`` then becomes the right-leaning chain
    ``(n0, (n1, (... nk)))`` whose root has a non-union left child.  Every new union is passed to
    ``reg`` (WindowGC registration).  Cost O(k log k), k = len(parts)."""
    k = len(parts)
    if k == 2:                      # fast path (the common case)
        a, b = parts
        ma = a[0]
        mb = b[0]
        if ma < mb:
            a, b = b, a
            ma, mb = mb, ma
        elif ma == mb:
            return new_union(a, b, lo, reg)
        if len(a) == 2:             # union head: split it, insert its right child before/after b
            kids = a[1]
            l = kids[0]
            if len(kids) > 1 and kids[1][0] >= lo:
                r = kids[1]
                mr = r[0]
                if mr > mb:
                    b = (mr, [r, b])
                elif mr == mb:
                    b = new_union(b, r, lo, reg) if len(r) == 2 else new_union(r, b, lo, reg)
                else:
                    b = (mb, [b, r])
                if mr != mb and reg is not None:
                    reg(b)
            a = l
        u = (ma, [a, b])
        if reg is not None:
            reg(u)
        return u
    if k == 1:
        return parts[0]
    parts.sort(key=_ms, reverse=True)
    ul = [parts[0]]
    for n in parts[1:]:
        last = ul[-1]
        if last[0] == n[0]:
            ul[-1] = new_union(last, n, lo, reg)
        else:
            ul.append(n)
    h = ul[0]
    if len(h) == 2:
        kids = h[1]
        ul[0] = kids[0]
        if len(kids) > 1 and kids[1][0] >= lo:
            r = kids[1]
            ms = r[0]
            i = 1
            k = len(ul)
            while i < k and ul[i][0] > ms:
                i += 1
            if i < k and ul[i][0] == ms:
                ul[i] = new_union(r, ul[i], lo, reg) if len(ul[i]) == 2 else new_union(ul[i], r, lo, reg)
            else:
                ul.insert(i, r)
    acc = ul[-1]
    for i in range(len(ul) - 2, -1, -1):
        n = ul[i]
        acc = (n[0], [n, acc])
        if reg is not None:
            reg(acc)
    return acc


def union(nodes: Iterable[Optional[Node]], lo: Optional[int] = None, reg=None) -> Optional[Node]:
    """Union of pairwise disjoint nodes; ``None`` operands and (with ``lo``) operands whose
    ``max_start < lo`` are dropped.  Returns None, the single remaining node, or a binary Union
    node built by :func:`merge`."""
    if lo is None:
        ks = [n for n in nodes if n is not None]
        lo = -INF
    else:
        ks = [n for n in nodes if n is not None and n[0] >= lo]
    if not ks:
        return None
    return merge(ks, lo, reg)


def union2(a: Optional[Node], b: Optional[Node]) -> Optional[Node]:
    """Union of two disjoint nodes (either may be None)."""
    if a is None:
        return b
    if b is None:
        return a
    return merge([a, b])


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


__all__ = ["WindowGC", "BOTTOM", "INF", "Node", "out", "union", "union2", "new_union", "merge", "max_start", "is_bottom", "is_out",
           "is_union", "enumerate_ces", "enumerate_all", "count", "live_nodes", "compact"]
