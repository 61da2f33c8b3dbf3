"""Planted bugs in the ETALIS engine for ``ceplab bench mutants etalis`` (:class:`ceplab.workbench.language.Mutant`,
:mod:`ceplab.workbench.mutants`).

A fixed, documented set: each mutant is a one- or two-line change of ``engine/etalis/evaluate.py`` (the
unrestricted engine, docs/semantics/etalis.md#etalis-9.5) or ``engine/etalis/policy.py`` (the consumption policies,
ETALIS-P, docs/semantics/etalis.md#etalis-9.6), names the rule of docs/semantics/etalis.md it breaks, and carries an
input that exposes it (:data:`EXPOSING`: the rule text, the stream and the switches; on it the original engine
agrees with the oracle and the mutated one does not).  The ``exposes`` line of each mutant is written from that
input: ``RULES on a(1)@[s,e] ... [with --set NAME=VALUE ...]``.

``seq-equal-timestamps`` also makes recursive programs derive forever within one time step (``c(N+1) <- c(N) seq
a(_)`` joins its own result ending at ``t`` with the ``a`` at ``t`` again and again): it checks that such an engine
is reported (an engine limit), never a hang.
"""
from __future__ import annotations

from ceplab.workbench.language import Mutant

#: name -> (rule text, stream as ``(atom, start, end)`` triples in arrival order, ``--set`` switches): an input on
#: which the original engine agrees with the oracle and the mutant does not (checked by tests/etalis).
EXPOSING: dict[str, tuple[str, tuple[tuple[str, int, int], ...], tuple[tuple[str, str], ...]]] = {}


def stream_text(events: tuple[tuple[str, int, int], ...]) -> str:
    """An exposing stream as an ETALIS ``.stream`` file (``event(a(1),[0,0]).`` lines)."""
    return "".join(f"event({a},[{s},{e}]).\n" for a, s, e in events)


def _m(name: str, kind: str, file: str, old: str, new: str, description: str, rules: str,
       events: tuple[tuple[str, int, int], ...], sets: tuple[tuple[str, str], ...] = ()) -> Mutant:
    EXPOSING[name] = (rules, events, sets)
    line = f"{rules} on " + " ".join(f"{a}@[{s},{e}]" for a, s, e in events)
    if sets:
        line += " with " + " ".join(f"--set {k}={v}" for k, v in sets)
    return Mutant(name, kind, file, old, new, description, line)


_EV = "etalis/evaluate.py"
_POL = "etalis/policy.py"

MUTANTS: tuple[Mutant, ...] = (
    # ------------------------------------------------------------------ unrestricted engine (evaluate.py)
    _m("aggregate-ties-see-each-other", "ties", _EV,
       "                if rec[3] != e:          # the record's pending items ended before e: fold them in\n",
       "                if True:                 # planted: every item is folded in at once\n",
       "an aggregate item sees the items that end at the same time and arrived before it, so the answer depends on "
       "the arrival order of simultaneous events (docs/semantics/etalis.md#etalis-4.4: each item is aggregated "
       "with the items ending strictly before it and itself)",
       "d(X) <- s seq aggregate(sum(Y), a(Y), X).", (("s", 1, 1), ("a(1)", 2, 2), ("a(2)", 2, 2))),
    _m("aggregate-item-touching-start", "ties", _EV,
       "            if not rec[2] < s:\n",
       "            if not rec[2] <= s:\n",
       "an item that starts when the start event ends takes part in its aggregate; like seq, the aggregate needs "
       "e1 < s_j (docs/semantics/etalis.md#etalis-4.4)",
       "d(C) <- s seq aggregate(count, a(Y), C).", (("a(1)", 0, 1), ("s", 1, 1), ("a(2)", 1, 2))),
    _m("aggregate-sentinel-ignored", "switch", _EV,
       "    init = AGGREGATE_SENTINELS.get(p.func) if options.aggregate_initial == \"sentinel\" else None\n",
       "    init = None                          # planted: the implementation's sentinel is ignored\n",
       "aggregate_initial=sentinel does not start min/max at the implementation's 100000 / -100000 "
       "(docs/semantics/etalis.md#etalis-4.4, #etalis-opt-aggregate_initial)",
       "d(X) <- s seq aggregate(min(Y), a(Y), X).", (("s", 1, 1), ("a(1)", 2, 2)), (("aggregate_initial", "sentinel"),)),
    _m("avg-integer-division", "arithmetic", _EV,
       "    return A.number(Fraction(acc[0], acc[1])) if func == \"avg\" else A.Num(acc)\n",
       "    return A.Num(acc[0] // acc[1]) if func == \"avg\" else A.Num(acc)   # planted: integer division\n",
       "avg rounds down to an integer instead of the exact fraction (docs/semantics/etalis.md#etalis-4.4-avg)",
       "d(X) <- s seq aggregate(avg(Y), a(Y), X).", (("s", 1, 1), ("a(1)", 2, 2), ("a(2)", 3, 3))),
    _m("fraction-not-compared-numerically", "arithmetic", _EV,
       "    if na and nb:                        # numerically, also an avg's fraction (docs/semantics/etalis.md#etalis-4.4)\n",
       "    if na and nb and not isinstance(a.value, Fraction) and not isinstance(b.value, Fraction):  # planted\n",
       "an order comparison with an avg's fraction is not numeric (docs/semantics/etalis.md#etalis-4.4-avg: fractions "
       "compare numerically with every number)",
       "d(X) <- s seq aggregate(avg(Y), a(Y), X). hi(X) <- d(X) where X > 1.",
       (("s", 1, 1), ("a(1)", 2, 2), ("a(2)", 3, 3))),
    _m("window-off-by-one", "window", _EV,
       "        if n.q is not None and e - s > n.q:\n",
       "        if n.q is not None and e - s >= n.q:\n",
       "the pushed-down window drops instances whose length equals the window: (p).q keeps e - s < q instead of "
       "e - s <= q (docs/semantics/etalis.md#etalis-2.5, #etalis-A4: the bound is inclusive; #etalis-3.11 pushes "
       "it down)",
       "d(1) <- (a(X) seq b(X)).2.", (("a(1)", 0, 0), ("b(1)", 2, 2))),
    _m("seq-equal-timestamps", "ties", _EV,
       "                if not e1 < s2:\n",
       "                if not e1 <= s2:\n",
       "SEQ joins operands that touch: e1 <= s2 instead of the strict e1 < s2 (docs/semantics/etalis.md#etalis-2.5, "
       "#etalis-2.6); in a recursive rule the result ending at t joins the event at t again, so the engine derives "
       "forever within one time step (an engine limit, never a hang)",
       "d(X) <- a(X) seq b(X).", (("a(1)", 1, 1), ("b(1)", 1, 1))),
    _m("finishes-result-start", "operator", _EV,
       "                if not (e1 == e2 and s2 < s1) or (proper and not (s1 < e1 and s2 < e2)):\n"
       "                    continue\n"
       "                res = (s2, e2)\n",
       "                if not (e1 == e2 and s2 < s1) or (proper and not (s1 < e1 and s2 < e2)):\n"
       "                    continue\n"
       "                res = (s1, e2)\n",
       "p1 FINISHES p2 starts at the start of p1 instead of p2's: <s1,e1> instead of <s2,e1> "
       "(docs/semantics/etalis.md#etalis-2.5, the hull of #etalis-2.6)",
       "d(X) <- a(X) finishes b(X).", (("b(1)", 1, 3), ("a(1)", 2, 3))),
    _m("gc-one-tick-early", "gc", _EV,
       "                    keep = [f for f in lst if f[1] >= lim]\n",
       "                    keep = [f for f in lst if f[1] > lim]\n",
       "the sweep drops a stored instance once clock - start >= the window above it instead of > (one tick too "
       "eager): an instance starting exactly one window before the clock can still complete a result "
       "(docs/semantics/etalis.md#etalis-3.11, #etalis-9.5 item 4)",
       "d(1) <- (a(X) seq b(X)).2.", (("a(1)", 0, 0), ("a(1)", 1, 1), ("a(1)", 2, 2), ("b(1)", 4, 4))),
    _m("not-gap-inclusive", "ties", _EV,
       "                blocked = bool(blockers) and any(e2 < b[1] and b[2] < s3 for b in blockers)\n",
       "                blocked = bool(blockers) and any(e2 <= b[1] and b[2] < s3 for b in blockers)\n",
       "not(p1).[p2,p3] is blocked by a p1 starting at the end of p2; the negated instance must lie strictly "
       "inside the gap, start > e2 (docs/semantics/etalis.md#etalis-2.5, #etalis-A7)",
       "d(X) <- not(c(X)).[a(X), b(X)].", (("a(1)", 0, 0), ("c(1)", 0, 0), ("b(1)", 2, 2))),
    _m("literal-release-increasing-start", "switch", _EV,
       "                    if best is None or k[1] > best:\n",
       "                    if best is None or k[1] < best:\n",
       "not_reading=literal releases the pending hulls of a time step by increasing instead of decreasing start: "
       "a longer hull is released before a shorter instance that, as a p3, forms a blocked pair with the same "
       "hull (docs/semantics/etalis.md#etalis-A7, #etalis-9.5 item 8)",
       "p2 <- x seq y. r <- not(c).[p2, z]. q <- not(c).[x, r].",
       (("x", 0, 0), ("x", 1, 1), ("c", 2, 2), ("x", 3, 3), ("y", 4, 4), ("z", 5, 8), ("w", 9, 9)),
       (("not_reading", "literal"),)),
    _m("where-negation-ignored", "filter", _EV,
       "    if neg:\n        op = _NEG[op]\n",
       "    if neg:\n        op = op   # planted: the negation of a comparison is dropped\n",
       "a negated comparison in a where condition is evaluated un-negated: \\+ (X =:= 1) reads as X =:= 1 "
       "(docs/semantics/etalis.md#etalis-2.5 'p WHERE t', #etalis-9.1: the oracle's negation normal form)",
       "d(X) <- a(X) where \\+ (X =:= 1).", (("a(1)", 0, 0), ("a(2)", 1, 1))),
    _m("par-admits-points", "operator", _EV,
       "                if not (s1 < e2 and s2 < e1 and s1 < e1 and s2 < e2):\n",
       "                if not (s1 < e2 and s2 < e1):\n",
       "PAR checks only the overlap (the weak check of the paper's Algorithm 3.3), so a point inside an interval "
       "is PAR with it; PAR needs positive overlap of two proper intervals (docs/semantics/etalis.md#etalis-2.5, "
       "#etalis-2.6, #etalis-A9)",
       "d(X) <- a(X) par b(X).", (("a(1)", 2, 2), ("b(1)", 1, 3))),
    _m("window-exactly-ignored", "switch", _EV,
       "            if (e - s <= w) if self.o.window == \"at_most\" else (e - s == w):\n",
       "            if e - s <= w:   # planted: window=exactly ignored\n",
       "the switch window=exactly (e - s = q) is read as the default at_most (e - s <= q) "
       "(docs/semantics/etalis.md#etalis-opt-window, #etalis-A4)",
       "d(1) <- (a(X) seq b(X)).2.", (("a(1)", 0, 0), ("a(1)", 1, 1), ("b(1)", 2, 2)),
       (("window", "exactly"),)),
    _m("proper-intervals-ignored", "switch", _EV,
       "        proper = self.o.proper_intervals_only\n",
       "        proper = False   # planted: proper_intervals_only ignored\n",
       "the switch proper_intervals_only=true is ignored by the unrestricted engine: points take part in MEETS, "
       "STARTS, FINISHES and EQUALS (docs/semantics/etalis.md#etalis-opt-proper_intervals_only, #etalis-A9)",
       "d(X) <- a(X) meets b(X).", (("a(1)", 0, 0), ("b(1)", 0, 0)), (("proper_intervals_only", "true"),)),
    _m("during-contained-ignored", "switch", _EV,
       "                res = (s1, e1) if contained else (s2, e2)\n",
       "                res = (s2, e2)   # planted: during_result=contained ignored\n",
       "the switch during_result=contained is ignored: p1 DURING p2 always gets the container's interval <s2,e2> "
       "instead of p1's (docs/semantics/etalis.md#etalis-opt-during_result, #etalis-A5)",
       "d(X) <- a(X) during b(X).", (("a(1)", 1, 2), ("b(1)", 0, 3)), (("during_result", "contained"),)),
    _m("not-local-free-ignored", "switch", _EV,
       "            n.never_blocks = bool(local) and self.o.not_local_vars == \"free\"\n",
       "            n.never_blocks = False   # planted: not_local_vars=free ignored\n",
       "the switch not_local_vars=free is ignored: a negation with a variable local to p1 blocks as under the "
       "default existential reading, where under 'free' it never blocks "
       "(docs/semantics/etalis.md#etalis-opt-not_local_vars, #etalis-A6)",
       "d(X) <- not(c(L)).[a(X), b(X)].", (("a(1)", 0, 0), ("c(2)", 1, 1), ("b(1)", 2, 2)),
       (("not_local_vars", "free"),)),
    # ------------------------------------------------------------------ consumption policies (policy.py)
    _m("chronological-order-swapped", "consumption", _POL,
       "            op = p.kind\n"
       "            idx = range(len(bucket) - 1, -1, -1) if self.lifo else range(len(bucket))\n",
       "            op = p.kind\n"
       "            idx = range(len(bucket)) if self.lifo else range(len(bucket) - 1, -1, -1)\n",
       "a binary operator's partner is chosen in the swapped order: chronological takes the last inserted "
       "instance (LIFO) and recent_lifo the first (FIFO) (docs/semantics/etalis.md#etalis-3.12, #etalis-9.6)",
       "d(X) <- a(X) seq b(X).", (("a(1)", 1, 1), ("a(1)", 2, 2), ("b(1)", 3, 3)),
       (("policy", "chronological"),)),
    _m("consumption-skipped", "selection", _POL,
       "                del bucket[i]\n"
       "                if not bucket:\n",
       "                pass   # planted: the selected partner is not consumed\n"
       "                if not bucket:\n",
       "chronological and recent_lifo select a partner but do not consume it, so it fires again with the next "
       "terminator (docs/semantics/etalis.md#etalis-3.12: chronological fires once and deletes the partner, "
       "#etalis-A10)",
       "d(X) <- a(X) seq b(X).", (("a(1)", 1, 1), ("b(1)", 2, 2), ("b(1)", 3, 3)),
       (("policy", "chronological"),)),
    _m("recent-keeps-oldest", "selection", _POL,
       "            if y is not None and self._prefer(n, y, x):\n",
       "            if y is not None:   # planted: recent keeps the oldest initiator\n",
       "the recent policy keeps the first stored instance per join key instead of replacing it by the newest "
       "(docs/semantics/etalis.md#etalis-3.12 'recent keeps only the newest left instance per join key', "
       "#etalis-A11)",
       "d(X) <- a(X) seq b(X).", (("a(1)", 1, 1), ("a(1)", 2, 2), ("b(1)", 3, 3)), (("policy", "recent"),)),
    _m("interval-longest-flipped", "switch", _POL,
       "            return y[2] - y[1] > x[2] - x[1]\n",
       "            return y[2] - y[1] < x[2] - x[1]\n",
       "interval_policy=longest keeps the shorter of two instances with the same timestamp (rule (28) read as "
       "rule (29)) (docs/semantics/etalis.md#etalis-3.12 'On time intervals', #etalis-opt-interval_policy, "
       "#etalis-A12)",
       "d(X) <- a(X) seq b(X).", (("a(1)", 1, 3), ("a(1)", 2, 3), ("b(1)", 4, 4)),
       (("policy", "recent"), ("interval_policy", "longest"))),
    _m("policy-gc-one-tick-early", "gc", _POL,
       "            while bucket and bucket[0][1] < lim:         # dead at the front (module docstring)\n",
       "            while bucket and bucket[0][1] <= lim:        # planted: one tick too eager\n",
       "a consuming join drops a stored partner once clock - start >= the window instead of > (one tick too "
       "eager), so an instance that still fits the window is lost (docs/semantics/etalis.md#etalis-3.11, "
       "#etalis-9.6)",
       "d(1) <- (a(X) seq b(X)).2.", (("a(1)", 0, 0), ("a(1)", 1, 1), ("a(1)", 2, 2), ("b(1)", 4, 4)),
       (("policy", "chronological"),)),
)


def mutants() -> tuple[Mutant, ...]:
    """The ETALIS engine's mutants (:data:`MUTANTS`)."""
    return MUTANTS
