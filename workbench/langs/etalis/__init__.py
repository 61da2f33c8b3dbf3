"""ETALIS (Anicic, Fodor, Rudolph, Stühmer, Stojanovic, Studer: "Real-time complex event
recognition and reasoning -- a logic programming approach", Applied Artificial Intelligence 26(1-2),
2012) as a ceplab language plugin: :data:`LANGUAGE`, registered under the entry point ``etalis``.

The record wires together the parser (:mod:`ceplab.semantics.etalis.parser`, ``.event`` rule files), the
stream readers (:func:`ceplab.semantics.etalis.streams.read_events`: JSON Lines or ``.stream``), the switches
(:class:`ceplab.semantics.etalis.options.Options`) and their named profiles (``PROFILES``: ``--profile
etalis-implementation``), the clingo oracle (:func:`ceplab.asp.etalis.oracle`), the
incremental engine (:func:`ceplab.engine.etalis.evaluator`), the seeded generators and hypothesis
strategies (:mod:`.generators`), the shrinking candidates (:mod:`.simplify`), the bundled real-data
cases (:mod:`.data`), the paper's worked examples (``papers-check/etalis``, :mod:`.papers`), the real
ETALIS as a peer (:mod:`.peer`), ETALIS's own example suite as a regression check (:mod:`.suite`, ``ceplab
papers-check etalis --suite DIR``) and the benchmark (:mod:`.bench`).

Results are ``(atom_text, start, end)`` tuples; their canonical JSON form (DESIGN.md section 4) is
``[atom, start, end]`` with the atom written as in ETALIS (``d(1,abc)``).

Emission positions. ETALIS streams are ordered by end time and a result is determined when the stream
clock reaches its end (docs/semantics/etalis.md#etalis-9.5), by the event that completes it. The language therefore
provides ``result_positions`` (used by :func:`ceplab.workbench.compare.compare` instead of
``result_end``): a result ending at ``t`` is expected

* at the only event ending at ``t``;
* among several events ending at ``t`` (ties): at the first one whose stream prefix already entails
  it, for streams of at most :data:`EXACT_TIES_MAX_EVENTS` events (the fuzz cases).  The case's own
  oracle call computes these positions (``tie_positions``: one grounding solved per prefix, or read
  off the policy run; docs/semantics/etalis.md#etalis-9.7.3), so a differential case runs the oracle
  once; without them (another caller, or a result the oracle does not have) the oracle is run on the
  prefixes.  On longer streams (the real data: one oracle call per prefix would be quadratic) and when
  a prefix answer is undecided, any event of the tie group is accepted;
* if no event ends at ``t`` (``t`` is an absolute time point): at the first event ending after
  ``t``, or at ``close()`` when there is none;
* with ``during_result="contained"`` a result's interval is not the hull of what it was built from
  (``p1 during p2`` ends before ``p2`` does), so only "not before its end" is checked, ``close()`` included
  (in a program with ``not`` the engine holds the results a late blocker could still invalidate and emits
  them at ``close()``, docs/semantics/etalis.md#etalis-9.5.9);
* with ``not_reading="literal"`` and a ``not(..)`` in the program, a result ending at ``t`` may also come
  when the time step ``t`` is complete: at the first event ending after ``t``, or at ``close()``. A literal
  NOT result at ``t`` can be hidden by a later event at ``t`` (docs/semantics/etalis.md#etalis-A7), so the
  engine holds it (and what is derived from it at ``t``) until then; results that do not depend on it are
  still expected where the rules above put them, and either position is accepted for every result.

``result_end`` returns the end time of a result (not a position).

Errors: the oracle and the engine raise :class:`ceplab.semantics.errors.UnsupportedError` (and
``ModelError``, a subclass: no unique model); the CLI prints them and exits 2.

Heavy modules (clingo, the engine, hypothesis) are imported on first use.
"""
from __future__ import annotations

import functools

import bisect
import dataclasses
import json
import random
from pathlib import Path
from typing import Any, Iterable, Sequence

from ceplab.semantics.errors import ParseError, PeerError, UnsupportedError
from ceplab.semantics.etalis.options import PROFILES, Options
from ceplab.semantics.etalis.streams import read_events
from ceplab.workbench.language import (ExampleSuite, Language, PaperFormat, Peer, StreamFormat, jsonl_stream_format,
                                      stream_json_default)

PAPER = ("Anicic, Fodor, Rudolph, Stühmer, Stojanovic, Studer: Real-time complex event recognition "
         "and reasoning - a logic programming approach, Applied Artificial Intelligence 26(1-2), 2012")

#: Streams up to this length get the exact tie check of :func:`result_positions` (prefix oracles).
EXACT_TIES_MAX_EVENTS = 64

#: Consumption policies other than the default (their modules are optional, see :func:`_policies`).
POLICIES = ("chronological", "recent", "recent_lifo")


# ----------------------------------------------------------------------------- parsing
@functools.lru_cache(maxsize=512)
def _parse(text: str, file: str | None = None) -> Any:
    """:func:`ceplab.semantics.etalis.parser.parse`, memoised on ``(text, file)``: the AST is immutable, and a
    differential case parses its query more than once (the generator's validity check, the comparison); the Earley
    parse is most of a fuzz case's time otherwise.  Errors are not memoised (they are raised again)."""
    from ceplab.semantics.etalis.parser import parse

    return parse(text, file)


def _parse_file(path: Any) -> Any:
    from ceplab.semantics.etalis.parser import parse_file

    return parse_file(path)


# ----------------------------------------------------------------------------- evaluation
#: ``(query, stream, options, tie positions)`` of the last oracle call on a short stream (one entry): what
#: :func:`result_positions` needs for the same case, so that a differential case runs the oracle once
_LAST_TIES: list[tuple[Any, Any, Options, dict]] = []


def _oracle(query: Any, stream: Any, options: Options, limits: Any) -> Any:
    from ceplab.asp.etalis import oracle

    ties = len(stream) <= EXACT_TIES_MAX_EVENTS
    res = oracle(query, stream, options, limits, tie_positions=ties)
    _oracle_done(query, stream, options, res)
    return res


def _oracle_done(query: Any, stream: Any, options: Options, res: Any) -> None:
    """Keep the tie positions of an oracle answer for :func:`result_positions` (``Language.oracle_done``: also
    when the oracle ran in the workbench's worker process)."""
    _LAST_TIES.clear()
    positions = getattr(res, "tie_positions", None)
    if len(stream) <= EXACT_TIES_MAX_EVENTS and positions is not None:
        _LAST_TIES.append((query, stream, options, positions))


def _cached_ties(query: Any, stream: Any, options: Options) -> dict | None:
    """The tie positions the last oracle call computed, if it was on this very case (same objects)."""
    if _LAST_TIES:
        q, s, o, positions = _LAST_TIES[0]
        if q is query and s is stream and o == options:
            return positions
    return None


def _evaluator(query: Any, options: Options) -> Any:
    from ceplab.engine.etalis import evaluator

    return evaluator(query, options)


# ----------------------------------------------------------------------------- results
def result_to_json(r: Any) -> list:
    """``(atom, start, end)`` -> ``[atom, start, end]`` (DESIGN.md section 4)."""
    atom, s, e = r
    return [str(atom), int(s), int(e)]


def result_from_json(x: Any) -> tuple:
    """Inverse of :func:`result_to_json`."""
    atom, s, e = x
    return (str(atom), int(s), int(e))


def result_positions(query: Any, stream: Sequence[Any], options: Options, limits: Any,
                     results: Iterable[Any]) -> dict:
    """The stream position at which each result is determined (see the module docstring).

    Returns:
        result -> position (``None`` = ``close()``), or a frozenset of acceptable positions when an
        oracle call on a prefix was undecided.
    """
    from ceplab.workbench.compare import run_oracle

    cached = _cached_ties(query, stream, options)
    stream = list(stream)
    if dataclasses.is_dataclass(limits) and hasattr(limits, "isolate"):
        # a prefix grounds a subset of what the full call (already decided) grounded: run in-process
        limits = dataclasses.replace(limits, isolate=False)
    ends = [int(e.end) for e in stream]
    pos = [getattr(e, "position", i) for i, e in enumerate(stream)]
    out: dict = {}
    ties: dict[int, list] = {}
    contained = getattr(options, "during_result", "container") == "contained"
    held = getattr(options, "not_reading", "per_witness") == "literal" and _has_not(query)
    for r in results:
        t = int(r[2])
        lo = bisect.bisect_left(ends, t)
        hi = bisect.bisect_right(ends, t)
        if contained:   # the result's interval need not be its hull: not before its end
            out[r] = frozenset(pos[lo:]) | {None}
        elif lo == hi:   # a time point: determined when the clock passes it
            out[r] = pos[lo] if lo < len(stream) else None
        elif hi - lo == 1:
            out[r] = pos[lo]
        else:
            ties.setdefault(t, []).append(r)
    exact = len(stream) <= EXACT_TIES_MAX_EVENTS
    for t, rs in ties.items():
        lo = bisect.bisect_left(ends, t)
        hi = bisect.bisect_right(ends, t)
        if not exact:
            for r in rs:
                out[r] = frozenset(pos[lo:hi])
            continue
        if cached is not None:   # read off the case's own oracle call (each index lies in lo..hi-1)
            for r in rs:
                if r in cached:
                    out[r] = pos[cached[r]]
            rs = [r for r in rs if r not in cached]
        todo = set(rs)
        for i in range(lo, hi - 1):
            if not todo:
                break
            try:
                got, undecided, _s, _st = run_oracle(LANGUAGE, query, stream[:i + 1], options, limits)
            except Exception:
                got, undecided = None, "error"
            if got is None or undecided:
                for r in todo:
                    out[r] = frozenset(pos[j] for j in range(i, hi))
                todo = set()
                break
            for r in [r for r in todo if r in got]:
                out[r] = pos[i]
                todo.discard(r)
            if not todo:
                break
        for r in todo:
            out[r] = pos[hi - 1]
    if held:                  # literal NOT: also when the time step of the result's end is complete
        for r in list(out):
            t = int(r[2])
            hi = bisect.bisect_right(ends, t)
            was = out[r]
            was = set(was) if isinstance(was, frozenset) else {was}
            out[r] = frozenset(was | {pos[hi] if hi < len(stream) else None})
    return out


def _has_not(query: Any) -> bool:
    """Does an event rule of the program use ``not(..)``?"""
    from ceplab.semantics.etalis import ast as A

    return any(isinstance(n, A.Not) for r in query.event_rules
               for n in A.pattern_nodes(query.effective_body(r)))


def _has_during(query: Any) -> bool:
    """Does an event rule of the program use ``during``?"""
    from ceplab.semantics.etalis import ast as A

    return any(isinstance(n, A.Binary) and n.op == "during" for r in query.event_rules
               for n in A.pattern_nodes(query.effective_body(r)))


# ----------------------------------------------------------------------------- streams
def stream_from_json(items: list[dict], name: str = "<reproducer>") -> list:
    """A stream from a list of event JSON objects (``StreamEvent.to_json`` form)."""
    from ceplab.semantics.etalis.streams import read_jsonl_events

    return read_jsonl_events("".join(json.dumps(x) + "\n" for x in items), name)


def offset_positions(stream: Sequence[Any], offset: int) -> list:
    """``stream`` with every position moved by ``offset`` (``Language.offset_positions``)."""
    return [dataclasses.replace(e, position=e.position + offset) for e in stream]


def event_row(e: Any) -> tuple[int, str, dict]:
    """``(time, type, attrs)`` of an event for the Spark streams table: the start time, the
    predicate and ``{"args": [...], "end": end}``."""
    d = e.to_json()
    return int(e.start), str(e.atom.name), {"args": d.get("args", []), "end": int(e.end)}


def drop_events(stream: Sequence[Any], drop: Iterable[int]) -> list:
    """``stream`` without the events at the given indices; positions renumbered, times kept."""
    d = set(drop)
    kept = [e for i, e in enumerate(stream) if i not in d]
    return [dataclasses.replace(e, position=i) for i, e in enumerate(kept)]


# ----------------------------------------------------------------------------- generators
def _strategies() -> Any:
    from ceplab.workbench.langs.etalis.generators import EtalisStrategies

    return EtalisStrategies()


def random_options(rng: random.Random) -> Options:
    """Random switches, a consumption policy in 40% of the cases (with an ``interval_policy`` in 45% of those,
    ``longest``/``shortest`` twice as often as ``max:X``/``min:X``); without a policy
    ``not_reading="literal"`` in 35% of the cases (Figure 2 on hulls, docs/semantics/etalis.md#etalis-A7;
    the policies are defined per witness only; ``goal_replacement="same_values"`` in 40% of the consuming LIFO/FIFO
    cases without an interval policy); in 25% of the cases the implementation's relations
    (docs/semantics/etalis.md#etalis-A23 to #etalis-A26), each of ``par_overlap``, ``starts_end``,
    ``during_bounds``, ``finishes_start`` with probability 1/2;
    ``aggregate_initial="sentinel"`` in 30%."""
    kw: dict[str, Any] = {}
    if rng.random() < 0.2:
        kw["not_local_vars"] = "free"
    if rng.random() < 0.2:
        kw["proper_intervals_only"] = True
    if rng.random() < 0.2:
        kw["window"] = "exactly"
    if rng.random() < 0.1:
        kw["during_result"] = "contained"
    if rng.random() < 0.4:
        kw["policy"] = rng.choice(POLICIES)
        if rng.random() < 0.45:
            kw["interval_policy"] = rng.choice(("longest", "shortest", "longest", "shortest", "max:X", "min:X"))
        elif kw["policy"] in ("chronological", "recent_lifo") and rng.random() < 0.4:
            kw["goal_replacement"] = "same_values"         # A27: the implementation's recent / chronological
    elif rng.random() < 0.35:
        kw["not_reading"] = "literal"
    if rng.random() < 0.3:
        kw["aggregate_initial"] = "sentinel"
    if rng.random() < 0.25:
        for name, (_op, _paper, other) in _RELATIONS.items():
            if rng.random() < 0.5:
                kw[name] = other
    try:
        return Options(**kw)
    except ValueError:
        kw.pop("interval_policy", None)
        return Options(**kw)


#: The relation switches (docs/semantics/etalis.md#etalis-A23 to #etalis-A26): field -> (operator, the paper's value,
#: the implementation's value).
_RELATIONS = {"par_overlap": ("par", "positive", "starts_before_end"), "starts_end": ("starts", "strict", "inclusive"),
              "during_bounds": ("during", "strict", "inclusive"), "finishes_start": ("finishes", "strict", "any")}


#: Probability that :func:`_random_case` gives a program with both ``during`` and ``not`` the switch
#: ``during_result="contained"`` (the combination the engine decides at ``close()``).
P_CONTAINED_DURING_NOT = 0.4


#: Probability that :func:`_random_case` replaces the drawn (rules, stream) by the shape its non-default switches
#: change answers on (:func:`ceplab.workbench.langs.etalis.generators.gen_switch_shape`: an Allen operator over a point
#: under ``proper_intervals_only``, a strictly contained DURING pair under ``during_result="contained"``, instances
#: with one timestamp under an ``interval_policy``, a nested NOT under ``not_reading="literal"``).
P_SWITCH_SHAPE = 0.5
#: Probability that a case not so shaped is a windowed rule on a long dense stream (20-40 events,
#: :func:`ceplab.workbench.langs.etalis.generators.gen_long_window_case`), where stored instances expire.
P_LONG_WINDOW = 0.08


#: Probability that :func:`_random_case` draws a program of aggregate rules (when the drawn switches define them).
P_AGGREGATE = 0.2


def _random_case(rng: random.Random, length: int) -> tuple[str, list, Options]:
    """A seeded random case: the shared generator's (rules, stream) plus random switches.

    Rejection sampling: a program that does not parse (``ParseError``, e.g. an unsafe head) or that
    the oracle's compiler refuses (``UnsupportedError``, e.g. ``/`` or floats) is redrawn from the same
    ``rng`` (at most 30 times); the engine is not consulted, so a program it refuses while the oracle
    answers it is counted by the campaign as an engine refusal. Every switch combination is kept as drawn,
    also ``during_result="contained"`` in a program with both ``during`` and ``not`` (the engine holds the
    results a late blocker may invalidate and decides them at ``close()``, docs/semantics/etalis.md#etalis-9.5.9;
    where the oracle finds no unique model it raises ``ModelError`` and the case counts as the oracle's refusal).
    Such a program gets ``during_result="contained"`` with probability :data:`P_CONTAINED_DURING_NOT` (instead of
    the 10% of :func:`random_options`), so that a campaign meets these cases often enough to matter.
    Then, with probability :data:`P_SWITCH_SHAPE`, the rules and stream are replaced by the shape on which a drawn
    non-default switch changes answers, else with probability :data:`P_LONG_WINDOW` by a windowed rule on a long
    stream (issue 11 item 7(b): the default campaign must expose the planted switch and GC mutants), else, under
    every policy (with ``during_result="container"``), with probability :data:`P_AGGREGATE` by a program of aggregate
    rules (docs/semantics/etalis.md#etalis-4.4; under a consumption policy ETALIS-P 7b; values 0..3 so that sums,
    minima and maxima differ).
    """
    from ceplab.asp.etalis import compile_program
    from ceplab.workbench.generators import RandomChooser
    from ceplab.workbench.langs.etalis.generators import (gen_etalis_program, gen_etalis_stream,
                                                          gen_long_window_case, gen_switch_shape,
                                                          random_etalis_case)

    text, stream, prog = "", [], None
    for _ in range(30):
        text, stream = random_etalis_case(rng, length)
        try:
            prog = _parse(text)
            compile_program(prog, Options())
        except (ParseError, UnsupportedError):
            prog = None
            continue
        break
    options = random_options(rng)
    if (prog is not None and options.during_result == "container" and _has_not(prog) and _has_during(prog)
            and rng.random() < (P_CONTAINED_DURING_NOT - 0.1) / 0.9):
        options = dataclasses.replace(options, during_result="contained")
    ch = RandomChooser(rng)
    shaped = gen_switch_shape(ch, options, length) if ch.boolean(P_SWITCH_SHAPE) else None
    if shaped is not None:
        text, stream = shaped
    elif ch.boolean(P_LONG_WINDOW):
        text, stream = gen_long_window_case(ch)
    elif options.during_result == "container" and ch.boolean(P_AGGREGATE):
        text = gen_etalis_program(ch, max_rules=3, max_depth=2, p_aggregate=0.6)
        stream = gen_etalis_stream(ch, length, values=(0, 3))
    return text, stream, options


def _real_cases() -> list:
    from ceplab.workbench.langs.etalis.data import real_cases

    return real_cases()


def _simplify(text: str) -> Any:
    from ceplab.workbench.langs.etalis.simplify import simplifications

    return simplifications(text)


def _render(query: Any) -> str:
    return str(query)


def declared_options(query: Any, options: Options, explicit: set[str], file: str | None = None
                     ) -> tuple[Options, list[str]]:
    """Honour a consumption policy the rule file sets for ETALIS (``event_consumption_policy``).

    Args:
        query: the parsed program.
        options: the options from ``--set``.
        explicit: the option names given explicitly with ``--set`` (they win over the file).
        file: the rule file's name, for the messages.

    Returns:
        ``(options, notes)``: the options to use and one message per decision taken (printed by the CLI, so
        no choice is silent).  ETALIS's ``unrestricted``, ``chronological_2`` and ``recent_2`` map to
        ``unrestricted``, ``chronological`` and ``recent_lifo``; its ``recent`` and ``chronological`` (the newest
        goal per value tuple, consumed) to ``recent_lifo`` and ``chronological`` with
        ``goal_replacement="same_values"`` (:data:`ceplab.semantics.etalis.policies.ETALIS_POLICY_FLAGS`, A27).
    """
    from ceplab.semantics.etalis.policies import ETALIS_POLICY_FLAGS, declared_policy

    dec = declared_policy(query)
    if dec is None:
        return options, []
    flag, pos = dec
    where = f"{file or '<rules>'}:{pos[0]}:{pos[1]}" if pos else (file or "<rules>")
    if flag not in ETALIS_POLICY_FLAGS:
        return options, [f"{where}: the file sets an unknown ETALIS event_consumption_policy '{flag}' (known: "
                         f"{', '.join(sorted(ETALIS_POLICY_FLAGS))}); the run uses policy={options.policy}"]
    mapped, replacement = ETALIS_POLICY_FLAGS[flag]
    if "policy" in explicit:
        if mapped != options.policy:
            return options, [f"{where}: the file sets ETALIS's event_consumption_policy '{flag}'; "
                             f"--set policy={options.policy} overrides it"]
        return options, []
    want = {"policy": mapped}
    if "goal_replacement" not in explicit:
        want["goal_replacement"] = replacement
    if all(getattr(options, k) == v for k, v in want.items()):
        return options, []
    import dataclasses
    try:
        new = dataclasses.replace(options, **want)
    except ValueError as e:
        raise UnsupportedError(f"the file's event_consumption_policy '{flag}' (= policy {mapped}) conflicts "
                               f"with the other switches: {e}", file, *(pos or (0, 0))) from None
    sets = ", ".join(f"{k}={v}" for k, v in want.items())
    return new, [f"{where}: {sets} (the file sets ETALIS's event_consumption_policy '{flag}')"]


def peer_etalis(query: Any, stream: list, options: Options, timeout_s: float | None = None) -> frozenset:
    """The real ETALIS (:mod:`.peer`) on the same rules and stream under the matching policy.

    Returns:
        the set of ``(atom_text, start, end)`` ETALIS fired for derived predicates.

    Raises:
        ceplab.semantics.errors.PeerError: the peer is absent (``ETALIS_HOME`` or ``swipl`` missing, by
            name), failed or timed out.
        ceplab.semantics.errors.UnsupportedError: the policy has no ETALIS counterpart (``recent``), or
            the rules use a construct ETALIS cannot express.
    """
    from ceplab.workbench.langs.etalis import peer as P

    reason = P.unavailable_reason()
    if reason is not None:
        raise PeerError(reason)
    if getattr(options, "goal_replacement", "keep") == "same_values":   # ETALIS's own recent / chronological (A27)
        flag = {"recent_lifo": "recent", "chronological": "chronological"}[options.policy]
        return P.run_etalis(query, stream, etalis_flag=flag, timeout_s=timeout_s or 60).results
    return P.run_etalis(query, stream, policy=options.policy, timeout_s=timeout_s or 60).results


#: Binary operators whose result interval is bounded by the operands' spans: ``p1 op p2`` -> bound from
#: ``(span1, span2)`` (docs/semantics/etalis.md#etalis-2.6: the hull of two intervals that overlap or touch, or
#: the container's interval); ``seq`` and ``and`` leave a gap of any length, so they have none.
_SPAN = {
    "par": lambda a, b: a + b,
    "equals": lambda a, b: min(a, b),
    "meets": lambda a, b: a + b,
    "during": lambda a, b: b,
    "starts": lambda a, b: b,
    "finishes": lambda a, b: b,
    "or": max,
}
#: ``finishes_start="any"`` (docs/semantics/etalis.md#etalis-A26): the result is the hull of two intervals with one
#: end, as long as the longer one.
_SPAN_ANY_START = {"finishes": max}


def _locality(query: Any, options: Options, stream: Any) -> Any:
    """Segmented solving (:mod:`ceplab.workbench.segments`): under the unrestricted policy (the declarative
    semantics, docs/semantics/etalis.md#etalis-2.4) a derived event on ``[S, E]`` is built from instances inside
    ``[S, E]`` (the hull property, docs/semantics/etalis.md#etalis-2.6), and a NOT blocks only on instances
    strictly inside its gap; so when every derived event has ``E - S <= span``, whether it is derived depends only
    on the events ending in ``[E - span, E]``.  The span of a pattern: an atomic event's longest interval in
    the stream, a derived predicate's span (the largest over its rules; a cycle through derived predicates has
    none), ``(p).q`` at most ``q``, ``where`` its pattern's, the binary operators of :data:`_SPAN`; ``seq``,
    ``and`` and ``not`` have none unless a window bounds them.  Anchor: the result's end time; coordinate: an
    event's end time (ETALIS streams are ordered by end).  Not local: the consumption policies (a result can
    depend on everything consumed before it), ``during_result="contained"`` (a result is no longer the hull),
    and programs with an unbounded rule."""
    from ceplab.semantics.etalis import ast as A
    from ceplab.workbench.segments import TIME, Locality

    if options.policy != "unrestricted" or options.during_result != "container":
        return None
    rules = query.event_rules
    derived = query.derived_predicates()
    extent = max((int(e.end) - int(e.start) for e in stream), default=0)
    memo: dict = {}

    def pred_span(key: tuple, path: frozenset) -> int | None:
        if key not in derived:
            return extent
        if key in path:
            return None
        if key not in memo:
            spans = [pattern_span(query.effective_body(r), path | {key}) for r in rules if r.head.key == key]
            memo[key] = None if any(x is None for x in spans) else max(spans + [extent])
        return memo[key]

    def pattern_span(p: Any, path: frozenset) -> int | None:
        if isinstance(p, A.EventAtom):
            return pred_span(p.key, path)
        if isinstance(p, A.TimePoint):
            return 0
        if isinstance(p, A.Window):
            inner = pattern_span(p.pattern, path)
            return int(p.length) if inner is None else min(int(p.length), inner)
        if isinstance(p, A.Where):
            return pattern_span(p.pattern, path)
        if isinstance(p, A.Binary) and p.op in _SPAN:
            a, b = pattern_span(p.left, path), pattern_span(p.right, path)
            span = _SPAN_ANY_START.get(p.op, _SPAN[p.op]) if options.finishes_start == "any" else _SPAN[p.op]
            return None if a is None or b is None else span(a, b)
        return None   # seq, and, not: a gap of any length

    spans = [pred_span(k, frozenset()) for k in derived]
    if any(x is None for x in spans):
        return None
    return Locality(span=max(spans, default=0), unit=TIME, last=lambda r: int(r[2]), time=lambda e: int(e.end))


#: The program of ``ceplab bench oracles`` (window ``{w}`` in ticks): the issue's ``ie/e`` hierarchy, windowed.
ORACLE_WORKLOAD = "ie <- (a seq b).{w}.\ne <- (ie seq c).{w}.\n"


def _oracle_workload(n: int, w: int, seed: int) -> tuple[str, list, Options]:
    """:data:`ORACLE_WORKLOAD` with window ``w`` over the first ``n`` events of :func:`_stream_chunk`'s stream 0,
    unrestricted policy."""
    return ORACLE_WORKLOAD.format(w=w), _stream_chunk(seed, 0, 0, n), Options()


def _stream_chunk(seed: int, stream: int, start: int, count: int) -> list:
    """Events ``start .. start+count-1`` of random stream ``stream`` (``ceplab generate``, the oracle workload):
    point events without arguments, types uniform over a, b, c and four noise types, event ``i`` at time and
    position ``i``; drawn from a generator seeded by ``(seed, stream, start)``."""
    from ceplab.semantics.etalis.ast import EventAtom
    from ceplab.semantics.etalis.streams import StreamEvent

    rng = random.Random(f"ceplab-stream:etalis:{seed}:{stream}:{start}")
    atoms = [EventAtom(t) for t in ("a", "b", "c", "n1", "n2", "n3", "n4")]
    choice = rng.choice
    return [StreamEvent(choice(atoms), i, i, i) for i in range(start, start + count)]


def _translation():
    """The matrix translation (docs/matrix.md), imported when the matrix runs."""
    from ceplab.workbench.langs.etalis.matrix import EtalisTranslation
    return EtalisTranslation()


def _mutants() -> tuple:
    from ceplab.workbench.langs.etalis.mutants import mutants

    return mutants()


def _benchmark() -> Any:
    from ceplab.workbench.langs.etalis.bench import BENCHMARK

    return BENCHMARK


def _papers() -> PaperFormat:
    from ceplab.workbench.langs.etalis import papers as P

    return PaperFormat(stream=P.paper_stream, pattern_query=P.pattern_query,
                       project_results=P.project_results,
                       provenance_legend="T = paper text, R = reconstructed rule text, I = implementation, "
                                         "V = clingo-verified (docs/semantics/etalis.md#etalis-0, #etalis-5)",
                       query_suffix=".event")



def _suite_unavailable() -> str | None:
    from ceplab.workbench.langs.etalis.suite import unavailable_reason

    return unavailable_reason()


def _run_suite(directory: Path, limits: Any, progress: bool) -> Any:
    from ceplab.workbench.langs.etalis.suite import run_suite

    return run_suite(directory, limits, progress, lang=LANGUAGE)


#: ETALIS's own examples (``etalis/examples`` of an ETALIS checkout) against the oracle, the engine and the real
#: ETALIS (:mod:`.suite`).  The oracle gets 600 s per example: ``long_chain_01`` (a chain of 1,000 rules) takes
#: about a minute in the consumption-policy oracle.
SUITE = ExampleSuite("the 'examples' directory of an ETALIS source tree (github.com/sspider/etalis, etalis/examples); "
                     "needs ETALIS_HOME and swipl, as the peer etalis", _suite_unavailable, _run_suite, time_s=600)


def _dumps_stream(events: Any) -> str:
    from ceplab.semantics.etalis.streams import dumps_stream

    return dumps_stream(events)


#: The stream files ``read_events`` reads (ETALIS ``event(term, [T1,T2]).`` lines, JSON Lines), for ``ceplab fuzz
#: etalis --malformed``: the time stamp is ``T1``, or the ``time`` field.
STREAM_FORMATS = (StreamFormat(".stream", _dumps_stream, r",\[(-?\d+),-?\d+\]\)\.\s*$"),
                  jsonl_stream_format(stream_json_default, "time"))


LANGUAGE = Language(
    name="etalis",
    paper=PAPER,
    parse=_parse,
    parse_file=_parse_file,
    render=_render,
    read_stream=read_events,
    options=Options,
    oracle=_oracle,
    evaluator=_evaluator,
    result_to_json=result_to_json,
    result_from_json=result_from_json,
    stream_to_json=stream_json_default,
    stream_from_json=stream_from_json,
    drop_events=drop_events,
    event_row=event_row,
    result_positions=result_positions,
    strategies=_strategies,
    random_case=_random_case,
    simplify=_simplify,
    real_cases=_real_cases,
    papers_dir=Path(__file__).resolve().parents[3] / "papers-check" / "etalis",
    paper_format=_papers(),
    suite=SUITE,
    declared_options=declared_options,
    profiles=PROFILES,
    peers={"etalis": Peer("etalis", "the real ETALIS on SWI-Prolog under the matching consumption policy "
                                    "(needs ETALIS_HOME, a checkout of github.com/sspider/etalis, and swipl "
                                    "on the PATH)", peer_etalis)},
    benchmark=_benchmark,
    oracle_done=_oracle_done,
    locality=_locality,
    oracle_workload=_oracle_workload,
    stream_chunk=_stream_chunk,
    offset_positions=offset_positions,
    mutants=_mutants,
    translation=_translation,
    stream_formats=STREAM_FORMATS,
)
