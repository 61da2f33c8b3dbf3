"""Incrementally maintained operators on sets of mappings with intervals (docs/semantics/cqels.md#cqels-3.2).

Every node holds the *current* value of one sub-expression of the query at the evaluation time ``t`` as a set of
items ``(mu, a, b)`` (``mu`` a tuple over the node's schema, ``[a, b]`` the interval).  A change of an input set
(an item entering or leaving it) is pushed up as a delta: ``out_add(item)`` / ``out_remove(item)`` on the 0 <-> 1
transitions of the node's derivation count (counting view maintenance, so set semantics and deduplication after
clipping hold, docs/semantics/cqels.md#cqels-G16).  A binary node keeps its own index of each input (by the values
of the shared variables), so a node never sees an inconsistent pair of inputs and the order of deltas does not
matter.

The negations keep, per candidate, the number of negative items that block it: ``SEQ_WO`` per derivation (a pair
of a left and a right item, its witnesses, docs/semantics/cqels.md#cqels-G6), ``NO_HEAD`` and ``NO_TAIL`` per
positive item; the candidate is in the output while that count is 0.  So a negative that enters a window withdraws
what it blocks (T5), a negative that leaves brings it back (T9), and a component that leaves its window removes
every result built from it (T11).

Intervals are the clipped ones (the windows deliver them, :mod:`ceplab.engine.cqels.windows`), so every order test
is the contract's literal one, including the clipping artefacts of closed ``SEQ_WO`` (T17).  ``NO_TAIL``'s
``d <= t`` always holds for clipped intervals (every window clips ends to ``t``), so it is not tested.
"""
from __future__ import annotations

from typing import Callable

from ceplab.engine.cqels.match import getter

Item = tuple  # (mu, a, b)


class Node:
    """A maintained set of items with derivation counts; ``out_add``/``out_remove`` are set by the consumer."""

    __slots__ = ("schema", "cnt", "out_add", "out_remove")

    def __init__(self, schema: tuple[str, ...]) -> None:
        self.schema = schema
        self.cnt: dict[Item, int] = {}
        self.out_add: Callable[[Item], None] = _nowhere
        self.out_remove: Callable[[Item], None] = _nowhere

    def _inc(self, item: Item) -> None:
        cnt = self.cnt
        c = cnt.get(item, 0)
        cnt[item] = c + 1
        if not c:
            self.out_add(item)

    def _dec(self, item: Item) -> None:
        cnt = self.cnt
        c = cnt[item]
        if c == 1:
            del cnt[item]
            self.out_remove(item)
        else:
            cnt[item] = c - 1

    def items(self) -> list[Item]:
        """The current set (for tests and debugging)."""
        return list(self.cnt)


def _nowhere(item: Item) -> None:  # pragma: no cover - every node gets a consumer
    raise AssertionError("node without a consumer")


class Leaf(Node):
    """The set of a leaf: each window entry contributes its matches with its clipped interval (the window calls
    :meth:`add_entry`/:meth:`remove_entry`); the count is the number of entries giving the item."""

    __slots__ = ()

    def add_entry(self, mus: list, a: int, b: int) -> None:
        for mu in mus:
            self._inc((mu, a, b))

    def remove_entry(self, mus: list, a: int, b: int) -> None:
        for mu in mus:
            self._dec((mu, a, b))


class Filter(Node):
    """Keeps the input items whose mapping satisfies ``pred`` (a set in, a set out: no counts needed)."""

    __slots__ = ("pred",)

    def __init__(self, child: Node, pred: Callable) -> None:
        super().__init__(child.schema)
        self.pred = pred
        child.out_add = self.add
        child.out_remove = self.remove

    def add(self, it: Item) -> None:
        if self.pred(it[0]):
            self.out_add(it)

    def remove(self, it: Item) -> None:
        if self.pred(it[0]):
            self.out_remove(it)


def _binary_layout(ls: tuple[str, ...], rs: tuple[str, ...]):
    """Shared variables' getters for both sides, the output schema and the merge of ``l + r``."""
    shared = sorted(set(ls) & set(rs))
    schema = tuple(sorted(set(ls) | set(rs)))
    lk = getter([ls.index(v) for v in shared])
    rk = getter([rs.index(v) for v in shared])
    merge = getter([ls.index(v) if v in ls else len(ls) + rs.index(v) for v in schema])
    return lk, rk, schema, merge


class Join(Node):
    """``JOIN(O1, O2)``: compatible pairs whose intervals intersect; the intersection."""

    __slots__ = ("lk", "rk", "merge", "L", "R")

    def __init__(self, left: Node, right: Node) -> None:
        self.lk, self.rk, schema, self.merge = _binary_layout(left.schema, right.schema)
        super().__init__(schema)
        self.L: dict[tuple, set] = {}
        self.R: dict[tuple, set] = {}
        left.out_add, left.out_remove = self.add_l, self.rem_l
        right.out_add, right.out_remove = self.add_r, self.rem_r

    def add_l(self, it: Item) -> None:
        k = self.lk(it[0])
        self.L.setdefault(k, set()).add(it)
        self._pairs_l(it, k, self._inc)

    def rem_l(self, it: Item) -> None:
        k = self.lk(it[0])
        b = self.L[k]
        b.discard(it)
        if not b:
            del self.L[k]
        self._pairs_l(it, k, self._dec)

    def _pairs_l(self, it: Item, k: tuple, f: Callable) -> None:
        mu, a, b = it
        for nu, c, d in self.R.get(k, ()):
            lo = a if a > c else c
            hi = b if b < d else d
            if lo <= hi:
                f((self.merge(mu + nu), lo, hi))

    def add_r(self, it: Item) -> None:
        k = self.rk(it[0])
        self.R.setdefault(k, set()).add(it)
        self._pairs_r(it, k, self._inc)

    def rem_r(self, it: Item) -> None:
        k = self.rk(it[0])
        b = self.R[k]
        b.discard(it)
        if not b:
            del self.R[k]
        self._pairs_r(it, k, self._dec)

    def _pairs_r(self, it: Item, k: tuple, f: Callable) -> None:
        nu, c, d = it
        for mu, a, b in self.L.get(k, ()):
            lo = a if a > c else c
            hi = b if b < d else d
            if lo <= hi:
                f((self.merge(mu + nu), lo, hi))


class Seq(Node):
    """``SEQ(O1, O2)``: compatible pairs with ``b1 < a2``; the hull ``[a1, b2]``."""

    __slots__ = ("lk", "rk", "merge", "L", "R")

    def __init__(self, left: Node, right: Node) -> None:
        self.lk, self.rk, schema, self.merge = _binary_layout(left.schema, right.schema)
        super().__init__(schema)
        self.L: dict[tuple, set] = {}
        self.R: dict[tuple, set] = {}
        left.out_add, left.out_remove = self.add_l, self.rem_l
        right.out_add, right.out_remove = self.add_r, self.rem_r

    def add_l(self, it: Item) -> None:
        k = self.lk(it[0])
        self.L.setdefault(k, set()).add(it)
        self._pairs_l(it, k, self._inc)

    def rem_l(self, it: Item) -> None:
        k = self.lk(it[0])
        b = self.L[k]
        b.discard(it)
        if not b:
            del self.L[k]
        self._pairs_l(it, k, self._dec)

    def _pairs_l(self, it: Item, k: tuple, f: Callable) -> None:
        mu, a, b = it
        for nu, c, d in self.R.get(k, ()):
            if b < c:
                f((self.merge(mu + nu), a, d))

    def add_r(self, it: Item) -> None:
        k = self.rk(it[0])
        self.R.setdefault(k, set()).add(it)
        self._pairs_r(it, k, self._inc)

    def rem_r(self, it: Item) -> None:
        k = self.rk(it[0])
        b = self.R[k]
        b.discard(it)
        if not b:
            del self.R[k]
        self._pairs_r(it, k, self._dec)

    def _pairs_r(self, it: Item, k: tuple, f: Callable) -> None:
        nu, c, d = it
        for mu, a, b in self.L.get(k, ()):
            if b < c:
                f((self.merge(mu + nu), a, d))


class SeqWO(Node):
    """``SEQ_WO(O1, N, O3)``: derivations ``(l, r)`` (compatible, ``b1 < a3``) with output ``(mu1 u mu3, a1, b3)``,
    each kept with the number of negatives ``nu ~ mu1 u mu3`` inside its gap (``closed``: ``b1 <= c and d <= a3``;
    ``strict``: ``<`` both, ``Options.wo_bounds``); the output item is present while some derivation has none
    (existential over witnesses, docs/semantics/cqels.md#cqels-G6)."""

    __slots__ = ("lk", "rk", "merge", "nk", "dk", "strict", "L", "R", "N", "D", "DN")

    def __init__(self, left: Node, neg: Node, right: Node, strict: bool) -> None:
        self.lk, self.rk, schema, self.merge = _binary_layout(left.schema, right.schema)
        super().__init__(schema)
        shared = sorted(set(neg.schema) & set(schema))
        self.nk = getter([neg.schema.index(v) for v in shared])
        self.dk = getter([schema.index(v) for v in shared])
        self.strict = strict
        self.L: dict[tuple, set] = {}
        self.R: dict[tuple, set] = {}
        self.N: dict[tuple, set] = {}
        self.D: dict[tuple, list] = {}            # (l, r) -> [blockers, output item, negative key]
        self.DN: dict[tuple, dict] = {}           # negative key -> {(l, r): record}
        left.out_add, left.out_remove = self.add_l, self.rem_l
        right.out_add, right.out_remove = self.add_r, self.rem_r
        neg.out_add, neg.out_remove = self.add_n, self.rem_n

    def _blockers(self, kn: tuple, b1: int, a3: int) -> int:
        n = 0
        if self.strict:
            for _, c, d in self.N.get(kn, ()):
                if b1 < c and d < a3:
                    n += 1
        else:
            for _, c, d in self.N.get(kn, ()):
                if b1 <= c and d <= a3:
                    n += 1
        return n

    def _new(self, l: Item, r: Item) -> None:
        mu = self.merge(l[0] + r[0])
        out = (mu, l[1], r[2])
        kn = self.dk(mu)
        rec = [self._blockers(kn, l[2], r[1]), out, kn]
        self.D[(l, r)] = rec
        self.DN.setdefault(kn, {})[(l, r)] = rec
        if not rec[0]:
            self._inc(out)

    def _drop(self, l: Item, r: Item) -> None:
        rec = self.D.pop((l, r))
        dn = self.DN[rec[2]]
        del dn[(l, r)]
        if not dn:
            del self.DN[rec[2]]
        if not rec[0]:
            self._dec(rec[1])

    def add_l(self, it: Item) -> None:
        k = self.lk(it[0])
        self.L.setdefault(k, set()).add(it)
        b1 = it[2]
        for r in list(self.R.get(k, ())):
            if b1 < r[1]:
                self._new(it, r)

    def rem_l(self, it: Item) -> None:
        k = self.lk(it[0])
        bucket = self.L[k]
        bucket.discard(it)
        if not bucket:
            del self.L[k]
        b1 = it[2]
        for r in list(self.R.get(k, ())):
            if b1 < r[1]:
                self._drop(it, r)

    def add_r(self, it: Item) -> None:
        k = self.rk(it[0])
        self.R.setdefault(k, set()).add(it)
        a3 = it[1]
        for l in list(self.L.get(k, ())):
            if l[2] < a3:
                self._new(l, it)

    def rem_r(self, it: Item) -> None:
        k = self.rk(it[0])
        bucket = self.R[k]
        bucket.discard(it)
        if not bucket:
            del self.R[k]
        a3 = it[1]
        for l in list(self.L.get(k, ())):
            if l[2] < a3:
                self._drop(l, it)

    def _blocks(self, n: Item, lr: tuple) -> bool:
        b1, a3 = lr[0][2], lr[1][1]
        if self.strict:
            return b1 < n[1] and n[2] < a3
        return b1 <= n[1] and n[2] <= a3

    def add_n(self, it: Item) -> None:
        kn = self.nk(it[0])
        self.N.setdefault(kn, set()).add(it)
        for lr, rec in self.DN.get(kn, {}).items():
            if self._blocks(it, lr):
                rec[0] += 1
                if rec[0] == 1:
                    self._dec(rec[1])

    def rem_n(self, it: Item) -> None:
        kn = self.nk(it[0])
        bucket = self.N[kn]
        bucket.discard(it)
        if not bucket:
            del self.N[kn]
        for lr, rec in self.DN.get(kn, {}).items():
            if self._blocks(it, lr):
                rec[0] -= 1
                if not rec[0]:
                    self._inc(rec[1])


class _Guarded(Node):
    """A positive input whose items are each kept with a blocker count (NO_HEAD, NO_TAIL)."""

    __slots__ = ("pk", "nk", "P", "N")

    def __init__(self, pos: Node, neg: Node) -> None:
        super().__init__(pos.schema)
        shared = sorted(set(neg.schema) & set(pos.schema))
        self.pk = getter([pos.schema.index(v) for v in shared])
        self.nk = getter([neg.schema.index(v) for v in shared])
        self.P: dict[tuple, dict] = {}    # key -> {item: blockers}
        self.N: dict[tuple, set] = {}
        pos.out_add, pos.out_remove = self.add_p, self.rem_p
        neg.out_add, neg.out_remove = self.add_n, self.rem_n

    def _blocks(self, n: Item, p: Item) -> bool:  # pragma: no cover - overridden
        raise NotImplementedError

    def add_p(self, it: Item) -> None:
        k = self.pk(it[0])
        blocks = self._blocks
        c = sum(1 for n in self.N.get(k, ()) if blocks(n, it))
        self.P.setdefault(k, {})[it] = c
        if not c:
            self.out_add(it)

    def rem_p(self, it: Item) -> None:
        k = self.pk(it[0])
        bucket = self.P[k]
        c = bucket.pop(it)
        if not bucket:
            del self.P[k]
        if not c:
            self.out_remove(it)

    def add_n(self, it: Item) -> None:
        k = self.nk(it[0])
        self.N.setdefault(k, set()).add(it)
        bucket = self.P.get(k)
        if bucket:
            blocks = self._blocks
            for p, c in bucket.items():
                if blocks(it, p):
                    bucket[p] = c + 1
                    if not c:
                        self.out_remove(p)

    def rem_n(self, it: Item) -> None:
        k = self.nk(it[0])
        nb = self.N[k]
        nb.discard(it)
        if not nb:
            del self.N[k]
        bucket = self.P.get(k)
        if bucket:
            blocks = self._blocks
            for p, c in bucket.items():
                if blocks(it, p):
                    bucket[p] = c - 1
                    if c == 1:
                        self.out_add(p)

    def items(self) -> list[Item]:
        return [p for b in self.P.values() for p, c in b.items() if not c]


class NoHead(_Guarded):
    """``NO_HEAD(N, O)``: the items of ``O`` with no compatible negative ending before their start (``d < a``)."""

    __slots__ = ()

    def _blocks(self, n: Item, p: Item) -> bool:
        return n[2] < p[1]


class NoTail(_Guarded):
    """``NO_TAIL(O, N, t)``: the items of ``O`` with no compatible negative starting after their end (``b < c``;
    ``d <= t`` holds for every clipped negative)."""

    __slots__ = ()

    def _blocks(self, n: Item, p: Item) -> bool:
        return p[2] < n[1]


class Source(Node):
    """A set given wholesale (the static part): :meth:`replace` sends the difference to the consumer."""

    __slots__ = ("cur",)

    def __init__(self, schema: tuple[str, ...]) -> None:
        super().__init__(schema)
        self.cur: set = set()

    def replace(self, items: set) -> None:
        old = self.cur
        for it in old - items:
            self.out_remove(it)
        for it in items - old:
            self.out_add(it)
        self.cur = items

    def items(self) -> list[Item]:
        return list(self.cur)
