"""Enumerable compact sets (ECS) of complex events (paper section 7; docs/semantics/cel.md#cel-5.5, #cel-G15).

The paper's Algorithm 1 keeps, per automaton state, a list of *nodes*; seen as a DAG every node
reaches the sink ⊥ and each path spells one complex event (CE).  The paper mutates append-only
lists with lazy copies; that is an aliasing trap (docs/semantics/cel.md#cel-G15), so here nodes are **immutable** and a
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

Union invariants.  Every union node is binary and ``node[0]`` is its max_start.  A *root* (a
node kept per automaton state, a contribution to a step, the child of a fresh ``Out``) is a
non-union or a union whose left child is not a union.  Two ways to build unions:

* **without a window** (:func:`link`, :func:`link_all`): nothing is ever pruned by max_start, so
  kids need not be sorted.  ``link(a, b)`` is ``(a, b)`` when ``a`` is not a union, ``(b, a)``
  when ``b`` is not, else CORE's three nodes ``(l1, (l2, (r1, r2)))``.  O(1).
* **under a window** (:func:`insert`, :func:`merge`): kids are sorted,
  ``max_start(left) == max_start(u) >= max_start(right)``, so windowed enumeration never enters
  an unproductive left child and expired kids are suffixes (cut by :class:`WindowGC`).  A part
  ``e`` below the head of a root ``(n0, (n1, (n2, ...)))`` is inserted into that right spine
  before the first spine node whose max_start is <= ``e``'s; the cells above are rebuilt with
  their own left children.  (An earlier version split the head and re-inserted its right child
  as a part, as CORE's union lists do; kept as one node per state, that nests a right child one
  level deeper at every step, an unbounded left spine and delay.)

**Spine bound (proof sketch).**  Let the *left spine* of a node be the number of unions met going
left from it.  Only these are ever placed as a left child: a non-union (spine 0); a part, which is
a root (spine <= 1); an existing left child, moved with its parent's copy (spine unchanged); and,
in ``link``, the right children ``r1, r2`` of two roots.  The right child of a root is a part or
root (spine <= 1), ``link``'s ``(l2, ·)`` (spine 1), or under a window a spine cell whose left
is a part or an existing left (spine <= 2).  Hence every left child has spine <= 2 under a window
(<= 1 without), and every union has spine <= 3 (<= 2).  ``WindowGC`` only removes right kids and
:func:`compact` replaces a union by its surviving left kid, so neither increases a spine.

``node[0]`` is always ``max_start``: the largest ``min(C)`` over the CEs of the node (``INF`` for
BOTTOM, whose only CE is empty).  ``Out(pos, BOTTOM)`` has ``max_start = pos``; otherwise
``Out(pos, c)`` has ``max_start = c[0]``.  Windowed enumeration with lower bound ``lo`` (a CE is
wanted only if ``min(C) >= lo``) skips every node with ``max_start < lo`` and, because union
children are sorted, stops scanning a union at its first unproductive child (CORE-style pruning).
Callers may rely on this layout (``node[0]``, ``len(node)``) in hot loops; everything else should go
through the functions below.

API (stable; used by ``ceplab.engine.cel.evaluate`` and ``ceplab.engine.cel.strategies``):

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

Window garbage collection and immutability (docs/semantics/cel.md#cel-G15).  The *meaning* of a node never changes: a
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
    one CE with ``min(C) >= lo``; under a window so does its left child, and without a window
    ``lo`` is -INF), so every descent ends in an output and no CE is produced twice when union
    operands are disjoint.  A descent visits at most ``spine`` unions (<= 3) per ``Out`` node,
    each costing one visit and one push or scan, so the work between two outputs is at most
    ``1 + 7 (|C| + 1)`` steps: **output-linear delay**, proven by the spine bound above and
    checked step by step in ``tests/test_cel_engine.py`` (``test_enumeration_delay_*``,
    including a hand-built adversarial CEA).
  * update: ``out`` and ``link`` are O(1); ``insert`` is O(1) when the new part has the largest
    max_start (a fresh start, the common case) and otherwise walks past the spine cells whose
    max_start is larger.  Those cells all start inside the window, so the worst case is O(w)
    per insert (the price of sorted kids, as CORE's union-list insert), never O(stream); ``ceplab
    bench cel`` checks that the per-event time stays flat as w grows.  Without a window every step is O(1) per transition.
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


def insert(root: Node, e: Node, lo: int = -INF, reg=None) -> Node:
    """Sorted union of a root and a node with ``max_start(e) <= max_start(root)`` (windowed).

    ``root`` and ``e`` are disjoint and productive (``max_start >= lo``), and each is a
    non-union or a *root* (a union whose left child is not a union).  Cases:

    * ``root`` is not a union: ``(root, e)``.
    * equal max_start and ``e`` not a union: ``(e, root)``.
    * otherwise ``e`` is inserted into the right spine of ``root`` (the chain
      ``root = (n0, (n1, (n2, ...)))``) before the first spine node ``c`` with
      ``max_start(c) <= max_start(e)``: the spine cells above that point are rebuilt with
      **their own left children**, and the new cell is ``(e, c)`` (or ``(c, e)`` when the spine
      ends in a non-union ``c`` above ``e``; or just ``e`` when the rest of the spine expired).

    Only ``e`` (a non-union or a root) and existing left children are ever placed in a left
    position, so no left spine grows (the invariant of the module docstring).  Cost: O(1) plus
    the number of spine cells whose max_start lies strictly above ``e``'s."""
    me = e[0]
    if len(root) != 2:
        u = (root[0], [root, e])
        if reg is not None:
            reg(u)
        return u
    if me == root[0] and len(e) != 2:
        u = (me, [e, root])
        if reg is not None:
            reg(u)
        return u
    lefts = []
    c = root
    while True:
        kids = c[1]
        lefts.append(kids[0])
        if len(kids) < 2 or kids[1][0] < lo:
            tail = e
            break
        c = kids[1]
        if c[0] <= me:
            tail = (me, [e, c])
            break
        if len(c) != 2:
            tail = (c[0], [c, e])
            break
    if reg is not None and len(tail) == 2 and tail is not e:
        reg(tail)
    for i in range(len(lefts) - 1, -1, -1):
        l = lefts[i]
        tail = (l[0], [l, tail])
        if reg is not None:
            reg(tail)
    return tail


def merge(parts: list, lo: int = -INF, reg=None) -> Node:
    """Sorted union of >= 1 pairwise disjoint nodes (non-unions or roots), all with
    ``max_start >= lo`` (``parts`` is reordered); use it under a window (without one,
    :func:`link_all` is O(1) per part).

    The parts are sorted by max_start (desc; a non-union first among the maximal ones).  If the
    first part is not a union the result is the chain ``(p0, (p1, (... pk)))``; otherwise the
    other parts are merged, in one pass, into the right spine of ``p0 = (n0, (n1, ...))`` exactly
    as :func:`insert` does for one part: spine cells above a part keep their left children, each
    part becomes the left child of a new cell, and the spine below the last part is shared.  The
    result is a root; every new union is passed to ``reg`` (WindowGC registration).  Cost
    O(k log k) plus the spine cells walked past (those with max_start above the smallest part)."""
    k = len(parts)
    if k == 1:
        return parts[0]
    if k == 2:
        a, b = parts
        if a[0] < b[0] or (a[0] == b[0] and len(a) == 2):
            a, b = b, a
        return insert(a, b, lo, reg)
    parts.sort(key=_ms, reverse=True)
    top = parts[0]
    if len(top) == 2:                       # prefer a non-union head among the maximal parts
        m = top[0]
        for i in range(1, k):
            p = parts[i]
            if p[0] != m:
                break
            if len(p) != 2:
                parts[0], parts[i] = p, top
                top = p
                break
    if len(top) != 2:
        lefts = [top]
        c = None
    else:
        kids = top[1]
        lefts = [kids[0]]
        c = kids[1] if len(kids) > 1 and kids[1][0] >= lo else None
    i = 1
    while i < k:
        p = parts[i]
        if c is None or p[0] >= c[0]:
            lefts.append(p)
            i += 1
        elif len(c) == 2:
            ck = c[1]
            lefts.append(ck[0])
            c = ck[1] if len(ck) > 1 and ck[1][0] >= lo else None
        else:
            lefts.append(c)
            c = None
    tail = c if c is not None else lefts.pop()
    for i in range(len(lefts) - 1, -1, -1):
        l = lefts[i]
        tail = (l[0], [l, tail])
        if reg is not None:
            reg(tail)
    return tail


def pair(a: Node, b: Node, lo: int = -INF, reg=None) -> Node:
    """:func:`merge` of exactly two parts (sorted, windowed), without building a list: the
    direct cases inline, the spine walk through :func:`insert`."""
    ma = a[0]
    mb = b[0]
    if ma < mb or (ma == mb and len(a) == 2):
        a, b = b, a
        ma = mb
    if len(a) != 2:
        u = (ma, [a, b])
        if reg is not None:
            reg(u)
        return u
    return insert(a, b, lo, reg)


def link(a: Node, b: Node) -> Node:
    """Unsorted union of two disjoint nodes (non-unions or roots) for evaluation **without a
    window** (nothing is ever pruned by max_start, so the kids need not be sorted).  O(1), and
    the result is a root: ``(a, b)`` if ``a`` is not a union, ``(b, a)`` if ``b`` is not, else
    CORE's three-node ``(l1, (l2, (r1, r2)))``.  ``node[0]`` stays the max_start of the node."""
    ma = a[0]
    mb = b[0]
    m = ma if ma >= mb else mb
    if len(a) != 2:
        return (m, [a, b])
    if len(b) != 2:
        return (m, [b, a])
    l1, r1 = a[1]
    l2, r2 = b[1]
    u2 = (r1[0] if r1[0] >= r2[0] else r2[0], [r1, r2])
    u1 = (l2[0] if l2[0] >= u2[0] else u2[0], [l2, u2])
    return (m, [l1, u1])


def link_all(parts: list) -> Node:
    """:func:`link` folded over >= 1 parts (unsorted, unwindowed)."""
    acc = parts[0]
    for i in range(1, len(parts)):
        acc = link(acc, parts[i])
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
                if node[0] < lo:          # only in unsorted (link) nodes: go right instead
                    node = pop()[0]
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


#: The largest ring of :class:`WindowGC` (slots): windows wider than this share slots between laps.
RING_MAX = 1 << 16


class WindowGC:
    """Incremental garbage collection of expired union kids under ``WITHIN w`` (see module doc).

    Args:
        w: the window; registered unions must have every kid with ``max_start >= lo - ?`` where
            keys live in ``[lo, lo + w]`` (true when contributions with ``max_start < lo`` are
            dropped at construction, as the evaluators do).
    """

    __slots__ = ("size", "ring", "lo", "cuts")

    def __init__(self, w: int) -> None:
        # one slot per key of the window, at most RING_MAX: keys of several laps then share a slot, and a sweep
        # re-registers the ones not yet expired (only more work, never a missed cut); a WITHIN beyond any stream
        # (``WITHIN 99999999999999999999``) must not allocate its ring up front
        self.size = min(w, RING_MAX) + 2
        self.ring: list[list] = [[] for _ in range(self.size)]
        self.lo = -INF
        self.cuts = 0

    def register(self, u: Node) -> None:
        """Watch a freshly built Union node (kids sorted, none expired).  A union whose kids all
        share its max_start is not watched: it expires as a whole, together with every node that
        reaches it (their max_start is no larger), so there is never a kid to cut from it while it
        is reachable from the window."""
        k = u[1][-1][0]
        if k != INF and k != u[0]:
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


__all__ = ["WindowGC", "BOTTOM", "INF", "Node", "out", "union", "union2", "new_union", "merge", "insert", "pair", "link", "link_all", "max_start", "is_bottom", "is_out",
           "is_union", "enumerate_ces", "enumerate_all", "count", "live_nodes", "compact"]
