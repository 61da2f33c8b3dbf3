"""Planted bugs in the CEL engine for ``ceplab bench mutants cel`` (:class:`ceplab.workbench.language.Mutant`,
:mod:`ceplab.workbench.mutants`): a documented, fixed set of semantic mutants, each a one- or two-line change of
one file of ``engine/cel`` that breaks one rule of docs/semantics/cel.md (named in its ``description``).

Every mutant changes what the engine outputs on some input, and ``exposes`` gives one: ``QUERY on STREAM``,
optionally ``with --set NAME=VALUE ...``; the stream is written as space-separated events ``T`` or
``T(attr=value, ...)`` at positions 0, 1, ...; ``[ ... ]*N`` repeats a block N times.  Each was checked with
``ceplab compare cel`` run on the mutated tree (it disagrees; the original engine agrees).

What the mutants cover, by engine file:

* ``evaluate.py`` (ALL/STRICT, the default generated path): the window bound of the step
  (``window-off-by-one``), the same bound in the *generated* step code only, which runs once a step plan
  has been used 16 times (``compiled-window-off-by-one``), the periodic root pruning under WITHIN, which
  runs every ``max(w, 64)`` events (``root-pruning-too-eager``), STRICT's contiguity rule
  (``strict-started-may-skip``) and the register store of iteration rounds (``plus-no-rebind``);
* ``interpret.py`` (``engine_path=interpreted``): the generated path's window bug on the interpreted path
  (``interpreted-window-off-by-one``);
* ``automaton.py`` (the label guards every evaluator uses): NOT dropped (``not-dropped``), NOT of a
  comparison read as the complementary operator (``not-as-complement``), ``<`` read as ``<=``
  (``lt-as-le``), a binary comparison's operands swapped (``cmp2-operands-swapped``);
* ``compile.py`` (Theorem 3 construction): OR's join (``or-join-loops``), AND's product
  (``and-marks-unsynchronised``);
* ``strategies.py`` (Algorithms 5-7): NXT's ranking (``nxt-ranked-as-last``), NXT's and LAST's under
  WITHIN (``window-rank-orders-swapped``), MAX's skip move (``max-skip-forgets-marked``), MAX's tie between runs
  reaching one configuration with different starts under WITHIN (``max-window-keeps-earliest-start``), the
  ``max_scope=global`` branch (``max-global-ignored``);
* ``nested.py`` (nested strategies, compositional): the ``max_scope`` switch leaking into nested blocks
  (``nested-block-follows-max-scope``).

The ``nxt_output`` switch has no mutant: its two values coincide on every automaton the compiler produces
(docs/semantics/cel.md#cel-G13, #cel-G14), so ignoring it changes no query's output (only the hand-built
automata of ``tests/cel`` tell them apart).  The offline determinization (``determinize.py``) has none either:
no evaluator uses it (the evaluators determinize on the fly), so a bug there is invisible to the differential
checks.
"""
from __future__ import annotations

import json
import re

from ceplab.semantics.events import Stream
from ceplab.workbench.language import Mutant

MUTANTS: tuple[Mutant, ...] = (
    # ------------------------------------------------------------------ windows (evaluate.py, interpret.py)
    Mutant("window-off-by-one", "window", "cel/evaluate.py",
           "            lo = j - self.within\n",
           "            lo = j - self.within + 1\n",
           "WITHIN w keeps complex events whose first position is >= j - w + 1 instead of >= j - w "
           "(docs/semantics/cel.md#cel-G8: max C - min C <= w, the bound is inclusive); ALL/STRICT, generated path",
           "A AS a ; B AS b WITHIN 1 on A B"),
    Mutant("compiled-window-off-by-one", "window", "cel/evaluate.py",
           '                    L.append(" if ms < lo:")\n',
           '                    L.append(" if ms <= lo:")\n',
           "the generated step code (a step plan compiled after 16 uses) drops a marked contribution whose "
           "newest partial CE starts exactly at the window bound j - w (docs/semantics/cel.md#cel-G8, "
           "#cel-5.5); the interpreted step plans before it are right, so only streams on which one plan "
           "runs 16 times show it",
           "A AS a ; B AS b WITHIN 2 on [A C B]*20"),
    Mutant("root-pruning-too-eager", "gc", "cel/evaluate.py",
           "        lo = self._lo\n",
           "        lo = self._lo + 2\n",
           "the periodic root pruning under WITHIN w (every max(w, 64) events) drops the automaton states "
           "whose newest partial CE starts at j - w + 1, which the next event can still complete (it may "
           "drop only those starting before j - w + 1: docs/semantics/cel.md#cel-G8, #cel-G15 'window garbage "
           "collection never changes a node's meaning'); invisible on streams shorter than 64 events",
           "A AS a ; B AS b WITHIN 2 on [C]*62 A C B"),
    Mutant("interpreted-window-off-by-one", "window", "cel/interpret.py",
           "            lo = self._lo = j - self.within       # WITHIN w: CEs need min C >= j - w\n",
           "            lo = self._lo = j - self.within + 1   # WITHIN w: CEs need min C >= j - w\n",
           "the interpreted path (engine_path=interpreted) has the bug of window-off-by-one: WITHIN w keeps "
           "complex events with min C >= j - w + 1 (docs/semantics/cel.md#cel-G8; the engine option must "
           "not change results, semantics/cel/options.py)",
           "A AS a ; B AS b WITHIN 1 on A B with --set engine_path=interpreted"),
    # ------------------------------------------------------------------ filters (automaton.py guards)
    Mutant("not-dropped", "filter", "cel/automaton.py",
           "            return lambda e, r: not a(e, r)\n",
           "            return a\n",
           "NOT P in a filter is read as P (docs/semantics/cel.md#cel-G6: NOT is the complement of the "
           "predicate's set of tuples)",
           "A AS a FILTER NOT a.v < 1 on A(v=0)"),
    Mutant("not-as-complement", "filter", "cel/automaton.py",
           "        if isinstance(p, PNot):\n            a = comp(p.arg)\n",
           "        if isinstance(p, PNot) and isinstance(p.arg, Cmp):\n"
           "            return comp(Cmp(p.arg.var, p.arg.attr, {'<': '>=', '<=': '>', '=': '!=', '!=': '=', "
           "'>=': '<', '>': '<='}[p.arg.op], p.arg.value))\n"
           "        if isinstance(p, PNot):\n            a = comp(p.arg)\n",
           "NOT x.a OP c is read as x.a OP' c with the complementary operator (NOT x.v < 1 as x.v >= 1): "
           "wrong on events lacking the attribute or holding a value of another kind, which are outside "
           "every comparison and inside its NOT (docs/semantics/cel.md#cel-G6: 'NOT x.v < 1 is not "
           "x.v >= 1')",
           'A AS a FILTER NOT a.v < 1 on A(w=0) A(v="s")'),
    Mutant("lt-as-le", "filter", "cel/automaton.py",
           "                return lambda e, r, p=p: holds_cmp(p, e)\n",
           "                return lambda e, r, p=p: holds_cmp(Cmp(p.var, p.attr, '<=' if p.op == '<' else p.op, "
           "p.value), e)\n",
           "a unary comparison x.a < c on the event being read holds also when x.a = c (docs/semantics/cel.md"
           "#cel-3.1: the filter's predicate is the set of tuples satisfying it; #cel-G6)",
           "A AS a FILTER a.v < 1 on A(v=1)"),
    Mutant("cmp2-operands-swapped", "filter", "cel/automaton.py",
           "            f1, f2 = val(p.var, p.attr), val(p.var2, p.attr2)\n",
           "            f2, f1 = val(p.var, p.attr), val(p.var2, p.attr2)\n",
           "a binary comparison x.a OP y.b (register extension for binary filters, docs/semantics/cel.md"
           "#cel-findings #7) is evaluated as y.b OP x.a: the operands on the wrong side "
           "(docs/semantics/cel.md#cel-3.1)",
           "(A AS x ; B AS y) FILTER x.v < y.v on A(v=0) B(v=1)"),
    # ------------------------------------------------------------------ operators (compile.py, evaluate.py)
    Mutant("or-join-loops", "operator", "cel/compile.py",
           "            i, o = self.state(), self.state()\n",
           "            i = o = self.state()\n",
           "OR's split and join are one state: a run leaving a branch may enter a branch again, and a run "
           "entering the OR may leave it at once, so phi OR psi matches as (phi OR psi)* (at the top level, "
           "where a run must mark, as (phi OR psi)+) (docs/semantics/cel.md#cel-5.2: OR adds an epsilon "
           "split and a separate join; #cel-3.1 OR)",
           "A AS x OR B AS y on A B"),
    Mutant("and-marks-unsynchronised", "operator", "cel/compile.py",
           "                    if mc != ma:\n",
           "                    if mc and not ma:\n",
           "the AND product lets the left side mark an event the right side skips, so C need only contain "
           "a complex event of the right side (docs/semantics/cel.md#cel-G8: C in both sides; #cel-5.4 "
           "intersection: same mark on both sides)",
           "(A AS x ; B AS y) AND (B AS z) on A B"),
    Mutant("plus-no-rebind", "iteration", "cel/evaluate.py",
           "                        if m and store is not None and store in ri:\n",
           "                        if m and store is not None and store in ri and regs[ri[store]] is None:\n",
           "a variable bound inside a + body keeps the value of its first round: later rounds do not "
           "rebind its register, so their binary filters compare with the first round's event "
           "(docs/semantics/cel.md#cel-3.1: each round rebinds vdef+(rho); #cel-G11); ALL/STRICT",
           "((A AS x ; B AS y) FILTER x.v = y.v)+ on A(v=0) B(v=0) A(v=1) B(v=1)"),
    # ------------------------------------------------------------------ selection strategies
    Mutant("strict-started-may-skip", "selection", "cel/evaluate.py",
           "            r = (self._dstate(frozenset(mark), 2), None)\n",
           "            r = (self._dstate(frozenset(mark), 2), self._dstate(frozenset(skip), 2))\n",
           "STRICT's started runs may skip events, so STRICT outputs complex events that are not intervals "
           "(docs/semantics/cel.md#cel-3.2 STRICT; #cel-10.3 item 6: started subsets take only marking "
           "transitions, Algorithm 8)",
           "STRICT(A AS x ; B AS y) on A C B"),
    Mutant("nxt-ranked-as-last", "selection", "cel/strategies.py",
           "            self._step = self._step_fast_last if last else self._step_fast_nxt\n",
           "            self._step = self._step_fast_last\n",
           "NXT without WITHIN ranks runs as LAST does (every marking successor before every skipping "
           "one), so the earliest-first order <=next is lost (docs/semantics/cel.md#cel-3.2, #cel-5.3: NXT "
           "ranks delta-mark(T1), delta-skip(T1), delta-mark(T2), ...)",
           "NXT(A AS x ; B AS y) on A A B"),
    Mutant("window-rank-orders-swapped", "selection", "cel/strategies.py",
           "            if last:\n                later.append((ce, states, base))\n",
           "            if not last:\n                later.append((ce, states, base))\n",
           "under WITHIN the test that picks the ranking order is negated: LAST ranks a rank's skipping "
           "successors right after its marking ones (NXT's order), NXT puts every marking successor first "
           "(LAST's), so neither picks its greatest complex event (docs/semantics/cel.md#cel-3.2, #cel-5.3: "
           "NXT ranks delta-mark(T1), delta-skip(T1), delta-mark(T2), ..., LAST delta-mark(T1..Tk), "
           "delta-skip(T1..Tk))",
           "LAST(A AS x ; B AS y WITHIN 5) on A A B"),
    Mutant("max-skip-forgets-marked", "selection", "cel/strategies.py",
           "            uid = self._intern((up, mp | mt | ut)) if up else -1\n",
           "            uid = self._intern((up, mt | ut)) if up else -1\n",
           "MAX's MoveNotMarking leaves delta-mark(P) out of T: the runs that mark the skipped event are "
           "not recorded as producing a superset, so non-maximal complex events are output "
           "(docs/semantics/cel.md#cel-5.3: skip (delta-skip(P), delta-mark(P) u delta-mark(T) u "
           "delta-skip(T)), Algorithm 7; #cel-G16)",
           "MAX((A AS x)+ ; B AS y) on A A B"),
    Mutant("max-window-keeps-earliest-start", "ties", "cel/strategies.py",
           "            for d in usucc[q]:\n                if off < ut.get(d, INF):\n                    ut[d] = off\n"
           "        mps = ",
           "            for d in usucc[q]:\n                if off > ut.get(d, -1):\n                    ut[d] = off\n"
           "        mps = ",
           "MAX under WITHIN: when two superset runs reach one automaton state by skipping, with different "
           "starts (min C), T keeps the earliest start instead of the latest; that run leaves the window "
           "first, and the complex event it dominated is then output as maximal (docs/semantics/cel.md"
           "#cel-3.2 MAX after WITHIN, #cel-G8: the window applies before the strategy; #cel-5.3)",
           "MAX((A AS x)+ WITHIN 2) on A A C A"),
    # ------------------------------------------------------------------ switches
    Mutant("max-global-ignored", "switch", "cel/strategies.py",
           '        self.global_scope = self.options.max_scope == "global"\n',
           "        self.global_scope = False\n",
           "max_scope=global is ignored: MAX compares only complex events with the same end, so a complex "
           "event dominated by a later superset is output (docs/semantics/cel.md#cel-opt-max_scope, "
           "#cel-G4)",
           "MAX((A AS x)+) on A A with --set max_scope=global"),
    Mutant("nested-block-follows-max-scope", "switch", "cel/nested.py",
           '        sub_opts = replace(options, max_scope="same_end")\n',
           "        sub_opts = options\n",
           "a nested MAX block follows the top-level max_scope=global instead of always comparing per end "
           "position, so it reports its complex events only at the end of the stream and the outer "
           "formula never sees them (docs/semantics/cel.md#cel-G5: 'MAX always same-end inside a block'; "
           "#cel-opt-max_scope)",
           "MAX((A AS x)+) ; B AS y on A A B with --set nested_strategies=compositional --set max_scope=global"),
)


def exposing_case(m: Mutant) -> tuple[str, Stream, list[str]]:
    """The input of ``m.exposes`` (module docstring): ``(query text, stream, ["NAME=VALUE", ...])``.

    Events are ``T`` or ``T(attr=value, ...)`` (values in JSON: ``1``, ``"s"``, ``true``) at positions and times
    0, 1, ...; ``[ ... ]*N`` repeats its events N times.

    Raises:
        ValueError: ``exposes`` is not ``QUERY on STREAM [with --set NAME=VALUE ...]``, or an event or a value is
            malformed.
    """
    text = m.exposes
    sets: list[str] = []
    w = re.search(r"\s+with\s+((?:--set\s+\S+\s*)+)$", text)
    if w:
        sets = re.findall(r"--set\s+(\S+)", w.group(1))
        text = text[:w.start()]
    if " on " not in text:
        raise ValueError(f"mutant {m.name!r}: exposes {m.exposes!r} is not 'QUERY on STREAM'")
    query, stream = text.rsplit(" on ", 1)
    while (r := re.search(r"\[([^\[\]]*)\]\*(\d+)", stream)) is not None:
        stream = stream[:r.start()] + " ".join([r.group(1)] * int(r.group(2))) + stream[r.end():]
    items: list[tuple[str, dict]] = []
    for tok in re.findall(r"\S+?\([^)]*\)|\S+", stream):
        e = re.fullmatch(r"([A-Za-z_]\w*)(?:\(([^)]*)\))?", tok)
        if e is None:
            raise ValueError(f"mutant {m.name!r}: bad event {tok!r} in {m.exposes!r}")
        attrs = {}
        for kv in filter(None, (x.strip() for x in (e.group(2) or "").split(","))):
            k, sep, v = kv.partition("=")
            if not sep:
                raise ValueError(f"mutant {m.name!r}: bad attribute {kv!r} in {m.exposes!r}")
            attrs[k.strip()] = json.loads(v)
        items.append((e.group(1), attrs))
    return query.strip(), Stream.of(items, f"<exposes of {m.name}>"), sets


def mutants() -> tuple[Mutant, ...]:
    """The CEL engine's mutants (module docstring)."""
    return MUTANTS
