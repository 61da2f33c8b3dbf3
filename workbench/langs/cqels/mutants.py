"""Planted bugs in the CQELS-CEP engine for ``ceplab bench mutants cqels`` (:class:`ceplab.workbench.language.Mutant`,
:mod:`ceplab.workbench.mutants`): a fixed, documented set of one- and two-line semantic changes of
``engine/cqels``, each naming the rule of docs/semantics/cqels.md it breaks and an input that exposes it.

The inputs in ``exposes`` share one vocabulary: ``PREFIX : <http://example.org/>``, ``SELECT *``, one window
``FROM NAMED WINDOW :W ON :s [spec]`` whose block is written ``WINDOW :W {...}``, the default switches unless a
``--set`` is named, the default horizon; ``:s@5 {:x :pa :o}`` is an element of stream ``:s`` at ``[5, 5]``,
``:s@[3,9] {...}`` one at ``[3, 9]`` (``1`` an ``xsd:integer``); ``# static ...`` lines are the static data ``D``
written into the query text (``# static@T`` a version from ``T``).
"""
from __future__ import annotations

from ceplab.workbench.language import Mutant

_SEQ_WO = "WINDOW :W { SEQ({?x :pa :o}, !{?x :pn :o}, {?x :pc :o}) }"

MUTANTS: tuple[Mutant, ...] = (
    Mutant("range-window-open-at-start", "window", "cqels/windows.py",
           "        lo = u - self.T\n",
           "        lo = u - self.T + 1\n",
           "RANGE T keeps and clips to (u - T, u] instead of the closed [u - T, u]: clipped starts are one tick "
           "late and an element leaves one tick early when the window advances then "
           "(docs/semantics/cqels.md#cqels-3.1, #cqels-G1; T12)",
           "RANGE 2, WINDOW :W {?x :p ?y}; :s@[0,5] {:a :p 1}: at t = 2 the answer's interval is [0,2], the "
           "engine's [1,2]"),
    Mutant("range-expiry-one-tick-early", "gc", "cqels/windows.py",
           "        while heap and heap[0][0] < lo:\n",
           "        while heap and heap[0][0] <= lo:\n",
           "A RANGE window drops an element whose end is u - T, the window's own first tick, whenever it advances "
           "at u: deletion one tick too eager (docs/semantics/cqels.md#cqels-3.1: with T = 10 an event at 10 is "
           "inside at 20 and gone at 21)",
           "RANGE 2, WINDOW :W {?x :p ?y}; :s@0 {:a :p 1}, :s@2 {:b :p 1}: at t = 2 the answer x = :a, [0,0] is "
           "missing"),
    Mutant("range-end-not-clipped-on-slide", "window", "cqels/windows.py",
           "            r = e.t2 if e.t2 < u else u\n",
           "            r = e.t2\n",
           "When a RANGE window slides, an ongoing element's end is no longer clipped to the window end u, so an "
           "answer's interval reaches into the future (docs/semantics/cqels.md#cqels-3.1, #cqels-1.5, #cqels-P6: "
           "0 <= a <= b <= t; T12)",
           "T12: RANGE 5, WINDOW :W {?x :p ?y}; :s@[3,9] {:a :p 1}: at t = 4 the answer's interval is [3,4], the "
           "engine's [3,9]"),
    Mutant("triples-window-one-short", "window", "cqels/windows.py",
           "        n = self.n\n",
           "        n = self.n - 1\n",
           "TRIPLES n keeps the last n - 1 elements (or triples, under triples_unit=triples): the count window is "
           "one short (docs/semantics/cqels.md#cqels-3.1, #cqels-G14)",
           "TRIPLES 1, WINDOW :W {?x :p ?y}; :s@1 {:a :p 1}: the answer at t = 1 is missing"),
    Mutant("seq-accepts-equal-times", "ties", "cqels/operators.py",
           "        for mu, a, b in self.L.get(k, ()):\n"
           "            if b < c:\n",
           "        for mu, a, b in self.L.get(k, ()):\n"
           "            if b <= c:\n",
           "SEQ pairs a left item ending at b1 with a right item starting at a2 = b1 when the right one comes "
           "second: SEQ's order test is strict, b1 < a2 (docs/semantics/cqels.md#cqels-3.2, #cqels-P2)",
           "RANGE 10, WINDOW :W { SEQ({?x :p ?y}, {?x :q ?z}) }; :s@5 {:a :p 1}, :s@5 {:a :q 2} (in this file "
           "order): the engine answers x = :a, [5,5] from t = 5"),
    Mutant("seq-wo-closed-start-strict", "negation", "cqels/operators.py",
           "                if b1 <= c and d <= a3:\n",
           "                if b1 < c and d <= a3:\n",
           "Under wo_bounds=closed (default) a negative that starts at the end b1 of the left item no longer "
           "blocks a SEQ_WO derivation made after it arrived: the closed bound b1 <= c is read strictly "
           "(docs/semantics/cqels.md#cqels-3.2, #cqels-opt-wo_bounds, #cqels-G4; T8)",
           f"T8: RANGE 10, {_SEQ_WO}; :s@2 {{:x :pa :o}}, :s@2 {{:x :pn :o}}, :s@6 {{:x :pc :o}}: closed "
           "blocks it; the engine answers x = :x, [2,6] at t = 6"),
    Mutant("no-head-boundary", "negation", "cqels/operators.py",
           "        return n[2] < p[1]\n",
           "        return n[2] <= p[1]\n",
           "NO_HEAD: a negative ending at the positive item's start blocks it, although only d < a does "
           "(docs/semantics/cqels.md#cqels-3.2)",
           "RANGE 4, WINDOW :W { SEQ(!{?x :pn :o}, {?x :pb :o}) }; :s@5 {:x :pn :o}, :s@5 {:x :pb :o}: the "
           "answer x = :x, [5,5] at t = 5 ... 9 is missing"),
    Mutant("no-tail-boundary", "negation", "cqels/operators.py",
           "        return p[2] < n[1]\n",
           "        return p[2] <= n[1]\n",
           "NO_TAIL: a negative starting at the positive item's end blocks it, although only b < c does "
           "(docs/semantics/cqels.md#cqels-3.2; T16)",
           "T16: RANGE 10, WINDOW :W { SEQ({?x :pa :o}, !{?x :pn :o}) }; :s@5 {:x :pa :o}, :s@5 {:x :pn :o}: the "
           "answer x = :x, [5,5] is missing"),
    Mutant("wo-bounds-strict-ignored", "switch", "cqels/evaluate.py",
           '        self.strict = options.wo_bounds == "strict"\n',
           "        self.strict = False\n",
           "wo_bounds=strict is ignored: SEQ_WO always uses the closed bounds "
           "(docs/semantics/cqels.md#cqels-opt-wo_bounds, #cqels-G4; T8)",
           f"--set wo_bounds=strict; T8: RANGE 10, {_SEQ_WO}; :s@2 {{:x :pa :o}}, :s@2 {{:x :pn :o}}, "
           ":s@6 {:x :pc :o}: the answer x = :x, [2,6] at t = 6 is missing"),
    Mutant("bgp-scope-join-ignored", "switch", "cqels/evaluate.py",
           '        if self.options.bgp_scope == "element" or len(bgp.triples) == 1:\n',
           '        if self.options.bgp_scope in ("element", "join") or len(bgp.triples) == 1:\n',
           "bgp_scope=join is ignored: a BGP of several triple patterns still matches inside one element only "
           "(docs/semantics/cqels.md#cqels-opt-bgp_scope, #cqels-G9; T13)",
           "--set bgp_scope=join; T13: RANGE 10, WINDOW :W {?v :delayAt ?s . ?v :line ?l}; "
           ":s@10 {:a1 :delayAt :m}, :s@10 {:a1 :line :l1}: the answer [10,10] is missing"),
    Mutant("static-interval-global-as-unbounded", "static", "cqels/evaluate.py",
           "            start = {mu: since for mu in sol}\n",
           "            start = {mu: 0 for mu in sol}\n",
           "static_interval=global (default) labels a static solution [0, t] instead of [tD, t]: a change of D no "
           "longer cuts off earlier complex events (docs/semantics/cqels.md#cqels-3.5, #cqels-opt-static_interval, "
           "#cqels-G12; T14)",
           "T14-like: RANGE 10, WINDOW :W {?x :p ?y} . ?x :q ?z; # static <a> <q> <b> ., # static@3 <a> <q> <b> "
           "., # static@3 <c> <r> <d> .; :s@1 {:a :p 1}: from t = 3 the static interval is [3,t], so there is no "
           "answer; the engine keeps answering"),
    Mutant("path-inverse-swapped", "path", "cqels/static.py",
           "            r = self._axis(e.kind, lambda x: x == c)\n"
           "            return _converse(r) if e.inverse else r\n",
           "            r = self._axis(e.kind, lambda x: x == c)\n"
           "            return r if e.inverse else _converse(r)\n",
           "The nSPARQL axes with a constant (next::p, edge::c, node::c, so every ':p' and '^:p' of a path) are "
           "evaluated as their inverses and the inverses as the axes (docs/semantics/cqels.md#cqels-3.4, "
           "#cqels-2.4)",
           "no window: SELECT ?x ?y WHERE { ?x ^:p ?y }, # static <a> <p> <b> .; empty stream: the answer "
           "x = :b, y = :a at t = 0 becomes x = :a, y = :b"),
    Mutant("path-plus-ignores-self-loop", "path", "cqels/static.py",
           "        if len(xs) > 1 or g.has_edge(xs[0], xs[0]):\n",
           "        if len(xs) > 1:\n",
           "e+ misses (x, x) when x is on a cycle of length one (a self-loop), so [[e+]] is not the transitive "
           "closure (docs/semantics/cqels.md#cqels-3.4)",
           "no window: SELECT ?x WHERE { ?x :p+ ?x }, # static <a> <p> <a> .; empty stream: the answer x = :a at "
           "t = 0 is missing"),
    Mutant("zero-length-without-predicates", "path", "cqels/static.py",
           "            return frozenset(g.voc)\n",
           "            return frozenset(g.nodes)\n",
           "zero_length=nsparql (default) takes the zero-length pairs of e* and e? over subjects and objects only, "
           "not over voc(G), which includes predicates (docs/semantics/cqels.md#cqels-3.4, "
           "#cqels-opt-zero_length, #cqels-G25; T3)",
           "no window: SELECT ?x WHERE { ?x :p* ?x }, # static <a> <q> <b> .; empty stream: the answer x = :q at "
           "t = 0 is missing"),
    Mutant("filter-lt-as-le", "filter", "cqels/match.py",
           "                return x < y\n",
           "                return x <= y\n",
           "FILTER's '<' compares like '<=' (docs/semantics/cqels.md#cqels-3.6)",
           "RANGE 2, WINDOW :W {?x :p ?y FILTER(?y < 1)}; :s@0 {:a :p 1}: the engine answers x = :a"),
    Mutant("horizon-last-snapshot-missing", "emission", "cqels/evaluate.py",
           "        h = self.until if self.until is not None else self.last_input + A.window_reach(self.query)\n",
           "        h = self.until if self.until is not None else self.last_input + A.window_reach(self.query) - 1\n",
           "close() stops one time point before the default horizon H = L + R, so the last snapshot is never "
           "emitted (docs/semantics/cqels.md#cqels-3.8, #cqels-8)",
           "RANGE 2, WINDOW :W {?x :p ?y}; :s@0 {:a :p 1}: H = 2, the answer at t = 2 is missing"),
    Mutant("arrival-end-ignored", "switch", "cqels/evaluate.py",
           "        a = arrival(element, self.options)\n",
           "        a = element.start\n",
           "arrival=end is ignored by the engine: an element pushed at its end is visible from its start, so the "
           "snapshots between its start and its end see it (docs/semantics/cqels.md#cqels-opt-arrival, "
           "#cqels-G15, #cqels-3.1)",
           "--set arrival=end; RANGE 10, WINDOW :W {?x :p ?y}; :s@1 {:b :p 1}, :s@[3,6] {:a :p 1}: the engine "
           "answers x = :a at t = 3, 4, 5"),
)


def mutants() -> tuple[Mutant, ...]:
    """The CQELS-CEP engine's mutants."""
    return MUTANTS
