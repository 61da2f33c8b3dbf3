"""Planted bugs in the SPAseq engine for ``ceplab bench mutants spaseq`` (:class:`ceplab.workbench.language.Mutant`,
:mod:`ceplab.workbench.mutants`): a fixed, documented set of one- and two-line semantic changes of
``engine/spaseq``, each naming the rule of docs/semantics/spaseq.md it breaks and an input that exposes it.

The inputs in ``exposes`` share one vocabulary: ``PREFIX : <http://example.org/>``, the streams ``:s1`` and ``:s2``
both declared (``FROM STREAM S1 :s1``, ``FROM STREAM S2 :s2``), ``SELECT *``, the default switches unless a
``--set`` is named; ``A ON S1 {...}`` is ``DEFINE GPM A ON S1 {...}``; ``:s1@2 {:a :q 1}`` is an event of stream
``:s1`` at tick 2 whose graph is that triple (``1`` an ``xsd:integer``).
"""
from __future__ import annotations

from ceplab.workbench.language import Mutant

_ENGINE = "spaseq/evaluate.py"

MUTANTS: tuple[Mutant, ...] = (
    Mutant("tumbling-window-end-exclusive", "window", _ENGINE,
           "        out = [(i, self._origin + (i + 1) * w)]\n",
           "        out = [(i, self._origin + (i + 1) * w - 1)]\n",
           "A run of tumbling window i may select events up to t+(i+1)w-1 instead of t+(i+1)w: the closed window "
           "[t+iw, t+(i+1)w] loses its upper bound (docs/semantics/spaseq.md#spaseq-3.7, #spaseq-A11; under "
           "tumbling_halfopen the window shrinks by one tick too)",
           "SEQ(A ; B) WITHIN 2 SECONDS, A ON S1 {?s :p ?v0}, B ON S1 {?s :q ?v1}; :s1@0 {:a :p 1}, "
           ":s1@2 {:a :q 1}: the match in window 0 = [0,2] is missing"),
    Mutant("anchored-window-off-by-one", "window", _ENGINE,
           "            return [(None, tau + w)]\n",
           "            return [(None, tau + w - 1)]\n",
           "Under window=anchored a witness must satisfy tau_last - tau_first < w instead of <= w "
           "(docs/semantics/spaseq.md#spaseq-3.7, #spaseq-opt-window: the run-anchored check of Algorithm 2)",
           "--set window=anchored; SEQ(A ; B) WITHIN 2 SECONDS, A ON S1 {?s :p ?v0}, B ON S1 {?s :q ?v1}; "
           ":s1@1 {:a :p 1}, :s1@3 {:a :q 1}: the match (1, 3) is missing"),
    Mutant("expiry-one-tick-early", "gc", _ENGINE,
           "            if heap and (heap[0] <= tau if self._halfopen else heap[0] < tau):\n"
           "                buckets_d = self._exp\n"
           "                while heap and (heap[0] <= tau if self._halfopen else heap[0] < tau):\n",
           "            if heap and (heap[0] <= tau if self._halfopen else heap[0] <= tau):\n"
           "                buckets_d = self._exp\n"
           "                while heap and (heap[0] <= tau if self._halfopen else heap[0] <= tau):\n",
           "Pushing windows (engine_push_window, on by default) deletes a run whose deadline is the batch's own "
           "time, before the batch is matched: run deletion one tick too eager for closed and anchored windows "
           "(docs/semantics/spaseq.md#spaseq-3.7, #spaseq-4.3, #spaseq-opt-engine)",
           "SEQ(A ; B) WITHIN 2 SECONDS, A ON S1 {?s :p ?v0}, B ON S1 {?s :q ?v1}; :s1@0 {:a :p 1}, "
           ":s1@2 {:a :q 1}: the match in window 0 = [0,2] is missing"),
    Mutant("strict-contiguity-unindexed", "selection", _ENGINE,
           "            lu = self._last_u[st.uset_key]\n",
           "            lu = None\n",
           "Strict contiguity ',' is only enforced in batches that visit the run: with the stream index (on by "
           "default) a run waiting for :s2 never sees an event of another declared stream between its events, so "
           "Example 8's contiguity across streams is lost (docs/semantics/spaseq.md#spaseq-3.4, #spaseq-A7)",
           "SEQ(A , B) WITHIN 10 SECONDS, A ON S1 {?s :p ?v0}, B ON S2 {?s :q ?v1}; :s1@1 {:a :p 1}, "
           ":s1@2 {:b :r 1}, :s2@3 {:a :q 1}: the engine reports (1, 3) although :s1@2 lies between"),
    Mutant("contiguity-breaks-on-tie", "ties", _ENGINE,
           "            if lu is not None and lu > r.tau_last:\n",
           "            if lu is not None and lu >= r.tau_last:\n",
           "An event of U at the same time as the last selected event breaks strict contiguity, although an event "
           "simultaneous with a selected one is never between (docs/semantics/spaseq.md#spaseq-A8, #spaseq-3.4)",
           "SEQ(A , B) WITHIN 10 SECONDS, A ON S1 {?s :p ?v0}, B ON S1 {?s :q ?v1}; :s1@1 {:a :p 1}, "
           ":s2@1 {:b :r 1}, :s1@2 {:a :q 1}: the match (1, 2) is missing"),
    Mutant("skip-till-next-keeps-run", "selection", _ENGINE,
           "            retire = bool(X) if self._ctx_rel else self._standalone_rel(j)\n",
           "            retire = False\n",
           "A ';' run is not retired after its next relevant instance, so skip-till-next behaves as skip-till-any "
           "(docs/semantics/spaseq.md#spaseq-3.4: Definition 11; T5)",
           "T5: SEQ(A ; B) WITHIN 10 SECONDS, A ON S1 {?h :p ?v0}, B ON S2 {?w :q ?v1}; :s1@1 {:a :p 1}, "
           ":s2@3 {:b :q 1}, :s2@4 {:c :q 1}: the engine adds (1, 4)"),
    Mutant("skip-till-next-standalone-relevance", "selection", _ENGINE,
           "            retire = bool(X) if self._ctx_rel else self._standalone_rel(j)\n",
           "            retire = self._standalone_rel(j)\n",
           "relevance=context (default) is read as standalone for ';': an event the element's GPM matches on its own "
           "retires the run even when it does not extend the run's mapping set (docs/semantics/spaseq.md#spaseq-A4, "
           "#spaseq-opt-relevance; T11)",
           "SEQ(A ; B) WITHIN 10 SECONDS, A ON S1 {?s :p ?v0}, B ON S1 {?s :q ?v1}; :s1@1 {:a :p 1}, "
           ":s1@2 {:b :q 1}, :s1@3 {:a :q 2}: the match (1, 3) is missing (:s1@2 binds ?s = :b, irrelevant)"),
    Mutant("conjunction-needs-two-events", "ties", _ENGINE,
           "                for evr, xr in self._inst(nd.right, xl, memo):\n"
           "                    out.append((evl + evr, xr))\n",
           "                for evr, xr in self._inst(nd.right, xl, memo):\n"
           "                    if evr != evl:\n"
           "                        out.append((evl + evr, xr))\n",
           "The two conjuncts of '&' at one timestamp must be different events, so a conjunction on one stream "
           "(one graph per stream and time, Definition 2) never matches (docs/semantics/spaseq.md#spaseq-3.3, "
           "#spaseq-A9)",
           "SEQ(A & B) WITHIN 10 SECONDS, A ON S1 {?s :p ?v0}, B ON S1 {?s :p ?v1}; :s1@1 {:a :p 1}: the "
           "match (one event serving both conjuncts) is missing"),
    Mutant("kleene-iterations-not-grouped", "kleene", _ENGINE,
           "                    complete(j, _union(r.acc, om), ctx, (r.evs, evs), tau, r.tau_first, r.window, "
           "r.deadline, new)\n",
           "                    complete(j, om, ctx, (r.evs, evs), tau, r.tau_first, r.window, r.deadline, new)\n",
           "A further Kleene+ iteration replaces the rows of the earlier iterations instead of adding to them "
           "(Omega_j = union of Ext(Omega_{j-1}, inst_q): docs/semantics/spaseq.md#spaseq-3.5, #spaseq-A1; T7)",
           "T7: SEQ(A ; B+) WITHIN 10 SECONDS, A ON S1 {?h :p ?v0}, B ON S2 {?w :q ?v1}; :s1@1 {:a :p 1}, "
           ":s2@3 {:b :q 1}, :s2@4 {:c :q 2}: the witness (1, [3, 4]) lacks its row ?w = :b"),
    Mutant("kleene-iter-stn-ignored", "switch", "spaseq/automaton.py",
           '            iter_conn = ";" if (options.kleene_iter == "stn" or j == 0) else conn\n',
           '            iter_conn = ";" if j == 0 else conn\n',
           "kleene_iter=stn is ignored: iterations of a Kleene+ element after ',' stay strictly contiguous instead "
           "of skip-till-next (docs/semantics/spaseq.md#spaseq-opt-kleene_iter, #spaseq-A2)",
           "--set kleene_iter=stn; SEQ(A , B+) WITHIN 10 SECONDS, A ON S1 {?h :p ?v0}, B ON S1 {?w :q ?v1}; "
           ":s1@1 {:a :p 1}, :s1@2 {:b :q 1}, :s1@3 {:x :r 0}, :s1@4 {:c :q 2}: the witness (1, [2, 4]) is missing"),
    Mutant("disjunction-first-match-ignored", "switch", _ENGINE,
           '        self._first_match = o.disjunction == "first_match"\n',
           "        self._first_match = False\n",
           "disjunction=first_match is ignored: every alternative of '|' gives an instance, as under union "
           "(docs/semantics/spaseq.md#spaseq-opt-disjunction, #spaseq-A10)",
           "--set disjunction=first_match; SEQ((A | B)) WITHIN 10 SECONDS, A ON S1 {?s :p ?v0}, "
           "B ON S1 {?s :p ?v1}; :s1@1 {:a :p 1}: the engine adds B's match (?v1 = 1)"),
    Mutant("contiguity-stream-ignored", "switch", "spaseq/automaton.py",
           '        if options.contiguity == "declared":\n',
           '        if options.contiguity != "streamset":\n',
           "contiguity=stream is read as declared: events of declared streams the element does not listen on break "
           "strict contiguity (docs/semantics/spaseq.md#spaseq-opt-contiguity, #spaseq-A7)",
           "--set contiguity=stream; SEQ(A , B) WITHIN 10 SECONDS, A ON S1 {?s :p ?v0}, B ON S1 {?s :q ?v1}; "
           ":s1@1 {:a :p 1}, :s2@2 {:b :r 1}, :s1@3 {:a :q 1}: the match (1, 3) is missing"),
    Mutant("negation-includes-next", "negation", _ENGINE,
           "        if neg is not None and self._through and self._in_window(r, tau) and self._relevant(neg, r.ctx):\n",
           "        if neg is not None and self._in_window(r, tau) and self._relevant(neg, r.ctx):\n",
           "negation=between (default) is read as through_next: a negated element's instance at the time of the "
           "next selected event blocks the witness, although only the open interval is forbidden "
           "(docs/semantics/spaseq.md#spaseq-3.8, #spaseq-opt-negation, #spaseq-A18; R4)",
           "SEQ(A ; B! ; C) WITHIN 10 SECONDS, A ON S1 {?s :p ?v0}, B ON S2 {?s :q ?v1}, C ON S1 {?s :r ?v2}; "
           ":s1@1 {:a :p 1}, :s2@2 {:a :q 1}, :s1@2 {:a :r 1}: the match (1, 2) is missing"),
    Mutant("negated-last-emitted-early", "emission", _ENGINE,
           "        while ne and (now is None or (ne[0][0] <= now if half else ne[0][0] < now)):\n",
           "        while ne and (now is None or ne[0][0] <= now):\n",
           "A match whose last element is negated is emitted at the first event at or after its closed window's "
           "end, before that event's batch could block it (docs/semantics/spaseq.md#spaseq-9.5, #spaseq-3.7: the "
           "negated last element looks until the window end, inclusive)",
           "SEQ(A ; B!) WITHIN 4 SECONDS, A ON S1 {?s :p ?v0}, B ON S2 {?s :q ?v1}; :s1@1 {:a :p 1}, "
           ":s2@4 {:a :q 1}: the engine emits (1) although :s2@4 lies in window [0,4]"),
    Mutant("filter-lt-as-le", "filter", "spaseq/gpm.py",
           '    "<": lambda a, b: a < b,',
           '    "<": lambda a, b: a <= b,',
           "FILTER's '<' compares like '<=' (docs/semantics/spaseq.md#spaseq-3.1: numbers compare by value, strings "
           "by code points, all six operators)",
           "SEQ(A) WITHIN 10 SECONDS, A ON S1 {?s :p ?v0 FILTER(?v0 < 1)}; :s1@1 {:a :p 1}: the engine reports "
           "a match"),
)


def mutants() -> tuple[Mutant, ...]:
    """The SPAseq engine's mutants."""
    return MUTANTS
