"""``ceplab bench etalis``: the incremental ETALIS engine under each consumption policy (DESIGN.md 2 and 4).

Same shape as ``ceplab bench cel`` (:mod:`ceplab.workbench.langs.cel.bench`, run by :mod:`ceplab.workbench.bench`): seeded, prefix-stable workloads; a timed update
pass (best of repeats per tenth of the stream); a memory pass (``tracemalloc``); oracle rows as the stream grows;
an optional peer (the real ETALIS on SWI-Prolog); a targets table (reported, never an exit code).

Workloads. Event ``i`` is at time ``i`` (point interval ``[i, i]``, position ``i``). Its type is drawn uniformly
from the workload's pattern types plus (except for W1ab) the four noise types ``n1..n4``; for W2 and W3 it also
carries one argument drawn uniformly from ``0..DOMAIN-1``. Draws are made in stream order from
``random.Random(f"ceplab-bench-etalis:{seed}:{workload}")``, so the stream of length n is a prefix of every
longer one (and the same seed gives the same events, hence the same result counts). The programs (``w`` the
window; without a window the ``(..).w`` / ``event_rule_window`` is left out):

    W1    r1([property(event_rule_window, w)]) 'rule:' d <- a seq b.
    W1ab  the same rule on a stream of a and b only (no noise types: every event reaches the rule)
    W2    e(X) <- (not(c(X)).[a(X), b(X)] and f(X)).w.
    W3    l1(X) <- (a(X) seq b(X)).w.   l2(X) <- (l1(X) seq c(X)).w.   l3(X) <- (l2(X) and d(X)).w.
    WA    d(S) <- (s(_) seq aggregate(sum(X), a(X), S)).w.

W1 is the issue's ``d <- a seq b`` (2/3 of its events are noise, dropped at dispatch; W1ab is the harder
variant without noise, the shape of the peer's stream); W2 combines ``and`` with a negation whose delimiters
share the variable ``X``; W3 is a three-level hierarchy (derived events feed the next rule); WA a running sum
from every ``s`` over the ``a`` values after it (docs/semantics/etalis.md#etalis-4.4; under the consumption policies
ETALIS-P 7b).

Cold and warm: the update pass runs ``Grid.repeats(n)`` times; *cold* is the first run, *warm* keeps the fastest run
per tenth of the stream (both shown side by side; the targets use warm).  Floor rows: W1's streams through the
update pass's loop calling a no-op function (:func:`ceplab.workbench.bench.harness.floor_pass`).

Per row (workload, policy, n, window), with a fresh evaluator (``ceplab.engine.etalis.evaluator``) per pass:

1. update: ``evaluator.update(event)`` on every event, events built :data:`BLOCK` at a time just before they
   are fed (as a parser would), CPU time of this thread per block (:data:`ceplab.workbench.bench.harness.CPU_CLOCK`); repeated
   ``Grid.repeats(n)`` times, each tenth of the stream keeping its fastest time. ``update_eps`` is n over the
   sum; ``steady_us`` the median per-event time over tenths 2..10, ``drift`` late/early (as in the CEL bench).
2. memory: ``tracemalloc`` while a fresh evaluator is built and fed the whole stream (events built beforehand,
   not counted): ``peak_kib``, ``live_kib`` after the last event, ``retained_kib`` after a full collection.
   The same pass counts the results (``outputs()`` after each ``update``, plus ``close()``), and samples
   ``stats()["stored"]`` (goals in the stores) every :data:`SAMPLE` events: ``stored`` (at the end) and
   ``stored_max``.

Oracle rows: ``ceplab.asp.etalis.oracle`` (clingo; for a consumption policy it delegates to the step-indexed
specification ``ceplab.asp.etalis_policy``) on W1 (window 10), and
on W2/W3 (window 20), for each policy, at growing n; once a case is undecided its longer streams are skipped.
The engine's results on the same events are compared as sets: a mismatch is a disagreement (exit code 1), with
a reproducer in the JSON row.

Peer (:func:`peer_pass`): the real ETALIS (:func:`ceplab.workbench.langs.etalis.peer.time_seq`) on ``d <- a seq b``
with window 10 over its own a/b stream, with the window purge ceplab's engine has (goals that can no longer
complete within the window are dropped after each event); ours on the very same events.  Both sides read the CPU
time of the feeding thread and the wall time around the same loop, ``Grid.peer_repeats`` runs each (cold = first,
warm = best), and each ratio (ours / ETALIS) divides figures of one clock.  The peer runs when asked for
(``--peer etalis``), and on the default and full grids whenever it can; otherwise the report says by name what is
absent (``ETALIS_HOME``, ``swipl``), and our figures on its stream are still measured.

Targets (from the issue; reported PASS/MISS, not enforced): >= 100,000 events/s on W1 and W1ab (window 10)
under ``recent`` and ``chronological``; >= 30,000 events/s on W1 and W1ab under ``unrestricted`` with a window
of 10; memory bounded by the window (windowed rows: retained memory at the largest n within +25%, or within
:data:`MEMORY_SLACK_KIB`, of the smallest n's). The rows without a window show what happens otherwise (stores
grow with n under ``unrestricted``).  With the peer: ours >= :data:`PEER_TARGET` times the real ETALIS, wall
against wall (warm), on every peer row (each workload of :data:`PEER_WORKLOADS` under each policy with an ETALIS
counterpart).
"""
from __future__ import annotations

import gc
import random
import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable, Iterable, Optional, Sequence

from ceplab.semantics.etalis.ast import EventAtom, Num
from ceplab.semantics.etalis.options import Options
from ceplab.semantics.etalis.streams import StreamEvent

from ceplab.workbench.bench import Benchmark
from ceplab.workbench.bench import harness as H
from ceplab.workbench.bench.harness import (CPU, CPU_CLOCK, FLOOR_TEXT, SEED, STABILITY, WALL, WALL_CLOCK, Timing,
                                            agreement, chunk_stats, engine_results, floor_pass, fmt, ratio,
                                            record_oracle, repeats_for, report_head, timed_chunks,
                                            traced_goal_run)

#: the peers this benchmark can run beside ceplab (``--peer``)
PEERS = ("etalis",)

NOISE = ("n1", "n2", "n3", "n4")
POLICIES = ("unrestricted", "chronological", "recent", "recent_lifo")
DOMAIN = 5
BLOCK = 1000
SAMPLE = 100                    # the memory pass reads stats()["stored"] every SAMPLE events
SEQ_TARGET = 100_000.0          # events/s, W1 under recent and chronological
UNRESTRICTED_TARGET = 30_000.0  # events/s, W1 under unrestricted with window 10
TARGET_WINDOW = 10
PEER_TARGET = 2.0               # ours / the real ETALIS, wall against wall (warm), every peer row
#: absolute slack of the memory target: a few KiB of retained memory move between runs (set and dict capacities)
MEMORY_SLACK_KIB = 16
#: the issue's figure for the real ETALIS (SWI-Prolog 9) on ``d <- a seq b``
ETALIS_REFERENCE = "about 90-100k events/s (issue)"


@dataclass(frozen=True)
class Workload:
    """A benchmark program and its event types.

    Attributes:
        name: ``W1``, ``W2``, ``W3``.
        title: one-line description.
        types: the pattern types (the noise types :data:`NOISE` are added).
        arity: 0 (no arguments) or 1 (one argument in ``0..DOMAIN-1``).
        rules: the rules, ``{w}`` marking the window: ``(windowed, unwindowed)`` text per rule.
        noise: whether the noise types :data:`NOISE` are drawn too.
    """

    name: str
    title: str
    types: tuple[str, ...]
    arity: int
    rules: tuple[tuple[str, str], ...]
    noise: bool = True

    def text(self, window: Optional[int]) -> str:
        """The ETALIS program text with window ``window`` (None: no window)."""
        return "\n".join(w.format(w=window) if window is not None else nw for w, nw in self.rules) + "\n"


_W1_RULES = (("r1([property(event_rule_window, {w})]) 'rule:' d <- a seq b.", "d <- a seq b."),)
WORKLOADS: dict[str, Workload] = {
    "W1": Workload("W1", "d <- a seq b", ("a", "b"), 0, _W1_RULES),
    "W1ab": Workload("W1ab", "d <- a seq b, a/b only (no noise)", ("a", "b"), 0, _W1_RULES, noise=False),
    "W2": Workload("W2", "and/not with a shared variable", ("a", "b", "c", "f"), 1,
                   (("e(X) <- (not(c(X)).[a(X), b(X)] and f(X)).{w}.", "e(X) <- not(c(X)).[a(X), b(X)] and f(X)."),)),
    "W3": Workload("W3", "three-level hierarchy", ("a", "b", "c", "d"), 1,
                   (("l1(X) <- (a(X) seq b(X)).{w}.", "l1(X) <- a(X) seq b(X)."),
                    ("l2(X) <- (l1(X) seq c(X)).{w}.", "l2(X) <- l1(X) seq c(X)."),
                    ("l3(X) <- (l2(X) and d(X)).{w}.", "l3(X) <- l2(X) and d(X)."))),
    "WA": Workload("WA", "running sum (aggregate)", ("s", "a"), 1,
                   (("d(S) <- (s(_) seq aggregate(sum(X), a(X), S)).{w}.", "d(S) <- s(_) seq aggregate(sum(X), a(X), S)."),)),
}
#: the workloads of the peer rows (:func:`peer_pass`), each under the policies the engine defines it for
#: ``POLICY+same_values`` rows are ETALIS's own flags ``chronological`` and ``recent`` (its default), which keep the
#: newest goal per value tuple (``goal_replacement="same_values"``, A27); the plain ``chronological``/``recent_lifo``
#: rows are its ``chronological_2``/``recent_2`` (patched, :mod:`.peer`).
IMPLEMENTATION_POLICIES = ("chronological+same_values", "recent_lifo+same_values")
PEER_WORKLOADS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("W1", POLICIES + IMPLEMENTATION_POLICIES), ("W3", POLICIES + IMPLEMENTATION_POLICIES),
    ("WA", ("unrestricted", "chronological", "recent_lifo")))
#: the ETALIS flag of a ``POLICY+same_values`` row
REPLACING_FLAGS = {"chronological+same_values": "chronological", "recent_lifo+same_values": "recent"}
#: ETALIS flags of the aggregate rows: on aggregate goals ETALIS's own ``recent`` and ``chronological`` are ceplab's
#: ``recent_lifo`` and ``chronological`` (ETALIS-P 7b; the peer's usual ``recent_2``/``chronological_2`` never update
#: an aggregate goal, papers-check/etalis/FINDINGS.md 8), and WA has no other operator
WA_FLAGS = {"unrestricted": "unrestricted", "chronological": "chronological", "recent_lifo": "recent"}

Cell = tuple[str, str, int, Optional[int]]   # (workload, policy, n, window)


# ----------------------------------------------------------------------------- grid
@dataclass(frozen=True)
class Grid:
    """What one run measures.

    Attributes:
        name: ``quick``, ``default`` or ``full``.
        cells: the (workload, policy, n, window) rows.
        oracle_cases: the oracle rows, (workload, policy, window, stream lengths) per case.
        oracle_seconds: time limit of one oracle call.
        peer_n: stream length of the peer rows (window :data:`TARGET_WINDOW`); peer_auto: run the peer
            without ``--peer etalis`` when it is available; peer_repeats: runs of each side of a peer row
            (cold = first, warm = best).
        repeat_events: the update pass is repeated ``max(2, min(5, repeat_events // n))`` times.
    """

    name: str
    cells: tuple[Cell, ...]
    oracle_cases: tuple[tuple[str, str, int, tuple[int, ...]], ...]
    oracle_seconds: float = 60.0
    peer_n: int = 100_000
    peer_auto: bool = True
    peer_repeats: int = 3
    repeat_events: int = 200_000

    def repeats(self, n: int) -> int:
        """Timed repeats of a pass over ``n`` events (:func:`ceplab.workbench.bench.harness.repeats_for`)."""
        return repeats_for(n, self.repeat_events)


def _cells(wls: Iterable[str], pols: Iterable[str], ns: Iterable[int], ws: Iterable[Optional[int]]) -> list[Cell]:
    return [(wl, p, n, w) for wl in wls for p in pols for w in ws for n in ns]


CONSUMING = ("chronological", "recent", "recent_lifo")


def make_grid(kind: str = "default") -> Grid:
    """The grid called ``kind``.

    * ``quick`` (seconds; the tests): W1 and W1ab with window 10 under every policy, W1 without a window under the
      consuming policies at n = 500, 2000; W1 without a window under ``unrestricted`` at n = 250, 500 (its
      result count grows as n^2); W2, W3 (and WA under ``unrestricted``) with window 20 at n = 1000; oracle on W1 at n = 50, 100 under
      ``unrestricted``, at n = 40 under the consuming policies (the step-indexed specification is the slow part of
      the test run), on W2/W3 at n = 50 (``unrestricted``) and 40.
    * ``default`` (a few minutes): the same at n = 10^4, 10^5 (``unrestricted`` without a window at n = 1000,
      2000, 4000); oracle at n = 100, 300, 1000 (W2/W3 under a consumption policy: 100, 300; the step-indexed
      policy specification takes tens of seconds at n = 1000); peer at n = 10^5.
    * ``full``: n up to 10^6 (``unrestricted`` without a window up to 8000); oracle up to n = 3000 on W1,
      1000 on W2/W3.

    Raises:
        ValueError: unknown kind.
    """
    if kind == "quick":
        ns, un, wn = (500, 2000), (250, 500), (1000,)
        o1, o23u, o23p = (50, 100), (50,), (40,)
    elif kind == "default":
        ns, un, wn = (10_000, 100_000), (1000, 2000, 4000), (10_000, 100_000)
        o1, o23u, o23p = (100, 300, 1000), (100, 300, 1000), (100, 300)
    elif kind == "full":
        ns, un, wn = (10_000, 100_000, 1_000_000), (1000, 2000, 4000, 8000), (10_000, 100_000, 1_000_000)
        o1, o23u, o23p = (100, 300, 1000, 3000), (100, 300, 1000, 3000), (100, 300, 1000)
    else:
        raise ValueError(f"unknown grid {kind!r}; known: quick, default, full")
    ocases = tuple([("W1", p, TARGET_WINDOW, o1 if p == "unrestricted" or kind != "quick" else o23p) for p in POLICIES]
                   + [(wl, p, 20, o23u if p == "unrestricted" else o23p) for wl in ("W2", "W3") for p in POLICIES]
                   + [("WA", p, 20, o23u if p == "unrestricted" else o23p) for p in POLICIES])
    cells = (_cells(["W1", "W1ab"], POLICIES, ns, [TARGET_WINDOW]) + _cells(["W1"], CONSUMING, ns, [None])
             + _cells(["W1"], ["unrestricted"], un, [None]) + _cells(["W2", "W3"], POLICIES, wn, [20])
             + _cells(["WA"], POLICIES, wn, [20]))
    if kind == "quick":
        return Grid("quick", tuple(cells), ocases, oracle_seconds=30.0, peer_n=2000, peer_auto=False, peer_repeats=2,
                    repeat_events=2000)
    return Grid(kind, tuple(cells), ocases, oracle_seconds=60.0,
                peer_n=100_000 if kind == "default" else 1_000_000)


# ----------------------------------------------------------------------------- workload
_DRAWS: dict[tuple[str, int], list[tuple[str, Optional[int]]]] = {}


def workload_draws(wl: str, n: int, seed: int = SEED) -> list[tuple[str, Optional[int]]]:
    """(type, argument or None) of the first ``n`` events of workload ``wl``; prefix-stable, cached per seed."""
    w = WORKLOADS[wl]
    key = (wl, seed)
    have = _DRAWS.get(key, [])
    if len(have) < n:
        rng = random.Random(f"ceplab-bench-etalis:{seed}:{wl}")
        types = list(w.types) + (list(NOISE) if w.noise else [])
        k = len(types)
        rnd = rng.random
        if w.arity:
            have = [(types[int(rnd() * k)], int(rnd() * DOMAIN)) for _ in range(n)]
        else:
            have = [(types[int(rnd() * k)], None) for _ in range(n)]
        _DRAWS[key] = have
    return have[:n] if len(have) > n else have


def make_events(draws: Sequence[tuple[str, Optional[int]]], start: int = 0) -> list[StreamEvent]:
    """Fresh stream events for ``draws``: event ``start + j`` at time and position ``start + j``."""
    return [StreamEvent(EventAtom(t, () if v is None else (Num(v),)), i, i, i)
            for i, (t, v) in zip(range(start, start + len(draws)), draws)]


def workload_events(wl: str, n: int, seed: int = SEED) -> list[StreamEvent]:
    """The first ``n`` events of workload ``wl`` (``W1``, ``W2``, ``W3``)."""
    return make_events(workload_draws(wl, n, seed))


def blocks(draws: Sequence[tuple[str, Optional[int]]], lo: int = 0,
           hi: Optional[int] = None) -> Iterable[list[StreamEvent]]:
    """Events ``lo..hi-1`` built afresh :data:`BLOCK` at a time (what the timed pass feeds)."""
    hi = len(draws) if hi is None else hi
    for a in range(lo, hi, BLOCK):
        b = min(hi, a + BLOCK)
        yield make_events(draws[a:b], a)


@lru_cache(maxsize=64)
def parse_workload(wl: str, window: Optional[int]):
    from ceplab.semantics.etalis.parser import parse
    return parse(WORKLOADS[wl].text(window))


def engine_factory(wl: str, policy: str, window: Optional[int]) -> Callable[[], Any]:
    """Zero-argument factory of fresh engine evaluators (raises ImportError without ``ceplab.engine.etalis``).
    ``policy`` is a policy name, or ``POLICY+same_values`` for ``goal_replacement="same_values"``
    (docs/semantics/etalis.md#etalis-A27)."""
    from ceplab.engine.etalis import evaluator
    prog = parse_workload(wl, window)
    pol, _, replacement = policy.partition("+")
    opts = Options(policy=pol, goal_replacement=replacement or "keep")
    return lambda: evaluator(prog, opts)


# ----------------------------------------------------------------------------- passes
def _timed_update_pass(factory: Callable[[], Any], draws: Sequence) -> tuple[list[float], str]:
    ev = factory()
    times = timed_chunks(ev.update, len(draws), lambda lo, hi: blocks(draws, lo, hi))
    return times, str(getattr(ev, "path", "?"))


def update_pass(factory: Callable[[], Any], draws: Sequence, repeats: int) -> dict:
    """Pass 1: update throughput (best of ``repeats`` per tenth of the stream, :func:`ceplab.workbench.bench.harness.chunk_stats`)."""
    passes = [_timed_update_pass(factory, draws) for _ in range(repeats)]
    c = chunk_stats([t for t, _p in passes], len(draws))
    return {"update_seconds": c["seconds"], "update_eps": c["eps"], "update_us": c["us"],
            "cold_update_seconds": c["cold_seconds"], "cold_update_eps": c["cold_eps"],
            "cold_update_us": c["cold_us"], "clock": c["clock"], "chunk_us": c["chunk_us"],
            "steady_us": c["steady_us"], "drift": c["drift"], "path": passes[-1][1], "repeats": repeats}


def memory_pass(factory: Callable[[], Any], draws: Sequence) -> dict:
    """Pass 2: tracemalloc peak/live/retained KiB, result count, stored goals (end and max)."""
    evs = make_events(draws)

    def feed(ev: Any) -> tuple[int, int]:
        upd, outs, stats = ev.update, ev.outputs, ev.stats
        results = stored_max = 0
        for i, e in enumerate(evs, 1):
            upd(e)
            for _ in outs():
                results += 1
            if i % SAMPLE == 0:
                stored_max = max(stored_max, stats()["stored"])
        return results, stored_max

    return traced_goal_run(factory, feed)


# ----------------------------------------------------------------------------- oracle
def reproducer(wl: str, policy: str, n: int, window: Optional[int], seed: int) -> str:
    """Python code recomputing an oracle row (engine vs oracle) from scratch."""
    return ("from ceplab.workbench.langs.etalis.bench import parse_workload, workload_events; "
            "from ceplab.semantics.etalis.options import Options; from ceplab.asp.etalis import oracle; "
            "from ceplab.engine.etalis import evaluator; "
            f"p = parse_workload({wl!r}, {window!r}); evs = workload_events({wl!r}, {n}, seed={seed}); "
            f"o = Options(policy={policy!r}); ours = evaluator(p, o).run(evs); "
            "theirs = oracle(p, evs, o).results; print(sorted(set(ours) ^ set(theirs)))")


def oracle_pass(grid: Grid, seed: int, note: Callable[[str], None] = lambda s: None) -> list[dict]:
    """Oracle rows (see the module docstring)."""
    from ceplab.asp import etalis as asp_etalis
    from ceplab.asp.oracle import Limits
    limits = Limits(time_s=grid.oracle_seconds)
    rows = []
    for wl, pol, w, ns in grid.oracle_cases:
        given_up: Optional[str] = None
        for n in ns:
            row: dict[str, Any] = {"workload": wl, "policy": pol, "n": n, "window": w,
                                   "limit_seconds": grid.oracle_seconds}
            if given_up:
                row["status"] = "skipped"
                row["reason"] = given_up
                rows.append(row)
                continue
            note(f"oracle {wl} {pol} n={n}")
            prog = parse_workload(wl, w)
            evs = workload_events(wl, n, seed)
            t0 = time.perf_counter()
            try:
                res = asp_etalis.oracle(prog, evs, Options(policy=pol), limits)
            except Exception as e:  # an oracle failure is reported (not a disagreement)
                row.update(status="error", reason=f"{type(e).__name__}: {e}", seconds=time.perf_counter() - t0)
                rows.append(row)
                continue
            row["seconds"] = time.perf_counter() - t0
            results = record_oracle(row, res)
            if results is None:
                given_up = f"n={n} was undecided"
            else:
                try:
                    eng = engine_results(engine_factory(wl, pol, w), evs)
                except Exception as e:
                    row["engine_error"] = f"{type(e).__name__}: {e}"
                else:
                    row.update(agreement(eng, results))
                    if not row["agree"]:
                        row["missing_in_engine"] = sorted(set(results) - set(eng))[:5]
                        row["extra_in_engine"] = sorted(set(eng) - set(results))[:5]
                        row["engine_duplicates"] = len(eng) - len(set(eng))
                        row["reproducer"] = reproducer(wl, pol, n, w, seed)
            rows.append(row)
    return rows


# ----------------------------------------------------------------------------- peer
def peer_pass(grid: Grid, seed: int, note: Callable[[str], None] = lambda s: None) -> dict:
    """Peer rows: the real ETALIS beside ceplab's engine on :data:`PEER_WORKLOADS` (window :data:`TARGET_WINDOW`)
    per policy, and our ratio.

    ``W1``: ``d <- a seq b`` on the peer's own stream (:func:`ceplab.workbench.langs.etalis.peer.seq_workload`: a/b
    only, every event reaches the rule, :func:`~ceplab.workbench.langs.etalis.peer.time_seq`); ``W3`` (the
    three-level hierarchy) and ``WA`` (a running sum, aggregates) on their bench streams
    (:func:`~ceplab.workbench.langs.etalis.peer.time_program`).  Both sides run ``grid.peer_repeats`` times (cold =
    first run, warm = best) and read the same two clocks around the same loop: CPU time of the feeding thread (ours
    ``time.thread_time``, ETALIS ``statistics(cputime)``) and wall time (ours ``time.perf_counter``, ETALIS
    ``get_time/1``).  Each ratio divides two timings of the same clock (:func:`ceplab.workbench.bench.harness.ratio`).
    ETALIS runs with the window purge (``purge``/``purge_window``): goals (and aggregate goals) that can no longer
    complete within the window are dropped after each event, as ceplab's engine drops them; without it ETALIS's
    ``unrestricted`` keeps every goal and slows down quadratically.  ``recent`` (Snoop's recent context) has no
    ETALIS counterpart: its rows carry the error.  ``WA`` runs on ETALIS without the window (its aggregates do not
    work in labelled rules, which a window needs) and with the purge after ``w - 1`` ticks, which on a stream with one
    event per tick gives exactly the windowed results (checked on a prefix by ``tests/etalis/test_bench_etalis.py``).

    Returns:
        ``{"peer": "etalis", "rows": [...], "purge_window": w}``; with ``"absent": sentence`` naming what is
        missing (``ETALIS_HOME``, ``swipl``) when the peer cannot run (our figures are still measured).
    """
    from ceplab.workbench.langs.etalis import peer as peer
    absent = peer.unavailable_reason()
    n, w = grid.peer_n, TARGET_WINDOW
    reps = max(1, grid.peer_repeats)
    rows = []
    for wl, pols in PEER_WORKLOADS:
        evs = peer.seq_workload(n) if wl == "W1" else workload_events(wl, n, seed)
        for pol in pols:
            note(f"peer etalis {wl} {pol} n={n:,}")
            row: dict[str, Any] = {"workload": wl, "policy": pol, "n": n, "window": w,
                                   "events": "a/b only" if wl == "W1" else "bench stream", "runs": reps}
            fac = engine_factory(wl, pol, w)
            cpu_runs, wall_runs = [], []
            gc.collect()
            for _ in range(reps):
                ev = fac()
                upd = ev.update
                t0, w0 = CPU_CLOCK(), WALL_CLOCK()
                for e in evs:
                    upd(e)
                cpu_runs.append(CPU_CLOCK() - t0)
                wall_runs.append(WALL_CLOCK() - w0)
            ours = {CPU: Timing.of_runs(CPU, cpu_runs, n), WALL: Timing.of_runs(WALL, wall_runs, n)}
            for clk, t in ours.items():
                row.update(t.to_json(f"our_{clk}"))
            if absent is None:
                try:
                    if wl == "W1":
                        runs = [peer.time_seq(n, w, pol, purge=True, etalis_flag=REPLACING_FLAGS.get(pol))
                                for _ in range(reps)]
                    elif wl == "WA":
                        # ETALIS's aggregate goals have no clauses for labelled rules (storage.P: 'other goals'
                        # are stored for 'unlabeled' only), so an event_rule_window rule with an aggregate never
                        # fires; the unwindowed rule with the goals purged after w-1 ticks computes the windowed
                        # results on this stream (one event per tick: the last item a start admits is at s+w)
                        runs = [peer.time_program(WORKLOADS[wl].text(None), evs, etalis_flag=WA_FLAGS[pol],
                                                  purge_window=w - 1) for _ in range(reps)]
                    elif pol in REPLACING_FLAGS:
                        runs = [peer.time_program(WORKLOADS[wl].text(w), evs, etalis_flag=REPLACING_FLAGS[pol],
                                                  purge_window=w) for _ in range(reps)]
                    else:
                        runs = [peer.time_program(WORKLOADS[wl].text(w), evs, pol, purge_window=w)
                                for _ in range(reps)]
                except Exception as e:  # Unsupported (no ETALIS counterpart), PeerError: reported
                    row["error"] = f"{type(e).__name__}: {e}"
                else:
                    theirs = {CPU: Timing.of_runs(CPU, [r.cpu_seconds for r in runs], n),
                              WALL: Timing.of_runs(WALL, [r.wall_seconds for r in runs], n)}
                    for clk in (CPU, WALL):
                        row.update(theirs[clk].to_json(f"peer_{clk}"))
                        row[f"ratio_{clk}"] = ratio(ours[clk], theirs[clk])
                        row[f"cold_ratio_{clk}"] = ratio(ours[clk], theirs[clk], "cold")
                    row.update(flag=runs[0].flag, patched=runs[0].patched, purge_window=runs[0].purge_window)
            rows.append(row)
    out: dict[str, Any] = {"peer": "etalis", "rows": rows, "purge_window": w}
    if absent is not None:
        out["absent"] = absent
    return out


# ----------------------------------------------------------------------------- targets
def targets(rows: list[dict], peer: Optional[dict] = None) -> list[dict]:
    """Verdicts on the issue's targets from the measured rows."""
    out: list[dict] = []
    ok_rows = [r for r in rows if r.get("update_eps")]
    for r in ok_rows:
        if r["workload"] not in ("W1", "W1ab") or r["window"] != TARGET_WINDOW:
            continue
        case = "d <- a seq b" + (" (a/b only)" if r["workload"] == "W1ab" else "")
        if r["policy"] in ("recent", "chronological"):
            out.append({"target": "throughput >= 100k ev/s", "case": f"{case}, {r['policy']}",
                        "where": f"n={r['n']:,} w={r['window']}", "value": r["update_eps"], "kind": "eps",
                        "ok": r["update_eps"] >= SEQ_TARGET})
        elif r["policy"] == "unrestricted":
            out.append({"target": "throughput >= 30k ev/s", "case": f"{case}, unrestricted",
                        "where": f"n={r['n']:,} w={r['window']}", "value": r["update_eps"], "kind": "eps",
                        "ok": r["update_eps"] >= UNRESTRICTED_TARGET})
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        if r.get("retained_kib") is not None and r["window"] is not None:
            groups.setdefault((r["workload"], r["policy"], r["window"]), []).append(r)
    for (wl, pol, w), rs in groups.items():
        rs = sorted(rs, key=lambda r: r["n"])
        if len(rs) < 2:
            continue
        lo, hi = rs[0], rs[-1]
        if lo["retained_kib"] <= 0:
            continue
        m = hi["retained_kib"] / lo["retained_kib"]
        out.append({"target": f"memory bounded by window (<= +25% or +{MEMORY_SLACK_KIB} KiB)",
                    "case": f"{wl}, {pol}", "where": f"w={w} n={lo['n']:,}->{hi['n']:,}", "value": m,
                    "kind": "ratio",
                    "ok": hi["retained_kib"] <= max((1 + STABILITY) * lo["retained_kib"],
                                                    lo["retained_kib"] + MEMORY_SLACK_KIB),
                    "detail": f"retained {lo['retained_kib']:,.0f}->{hi['retained_kib']:,.0f} KiB; stored max "
                              f"{lo['stored_max']}->{hi['stored_max']}"})
    if peer is not None:
        prs = [r for r in peer.get("rows", []) if r.get(f"ratio_{CPU}")]
        if prs:
            for r in prs:
                out.append({"target": f"ratio to ETALIS, wall time >= {PEER_TARGET:g}x",
                            "case": f"{WORKLOADS[r.get('workload', 'W1')].title}, {r['policy']}",
                            "where": f"n={r['n']:,} w={r['window']}", "value": r[f"ratio_{WALL}"], "kind": "ratio",
                            "ok": r[f"ratio_{WALL}"] >= PEER_TARGET,
                            "detail": f"warm, wall time: ours {r[f'our_{WALL}_warm_eps']:,.0f} / ETALIS "
                                      f"{r[f'peer_{WALL}_warm_eps']:,.0f} ev/s; CPU time ratio "
                                      f"{fmt(r.get(f'ratio_{CPU}'), 'ratio')}"})
        else:
            why = peer.get("absent") or "no peer row measured"
            out.append({"target": "ratio to ETALIS (info)", "case": "d <- a seq b", "where": "", "value": None,
                        "kind": "ratio", "ok": None, "detail": f"peer absent: {why}; ETALIS: {ETALIS_REFERENCE}"})
    return out


# ----------------------------------------------------------------------------- the run
def bench_etalis(grid: Grid, seed: int = SEED, peer: Optional[str] = None,
                 progress: Optional[Callable[[str], None]] = None) -> dict:
    """Run the ETALIS benchmark on ``grid``; returns the report (the ``--json`` object).

    Args:
        grid: from :func:`make_grid`.
        seed: workload seed.
        peer: None or ``"etalis"`` (:data:`PEERS`); without it the peer still runs on grids with
            ``peer_auto`` (and is reported absent when it cannot run).
        progress: called with a short text before each step.

    Keys: ``bench`` ("etalis"), ``grid``, ``seed``, ``python``, ``machine``, ``workload``, ``memory_method``,
    ``rows`` (one record per (workload, policy, n, window); ``window`` null = none; update figures warm =
    ``update_*``, cold = ``cold_update_*``), ``floor`` (one per n), ``oracle``, ``peer``, ``targets``,
    ``disagreements``.
    """
    note = progress or (lambda s: None)
    report: dict[str, Any] = {
        **report_head("etalis", grid.name, seed),
        "workload": {"noise_types": list(NOISE), "domain": DOMAIN, "time": "event i on [i, i]",
                     "programs": {k: {"title": w.title, "types": list(w.types), "arity": w.arity, "noise": w.noise,
                                      "text_window_w": [r[0].replace("{w}", "w") for r in w.rules],
                                      "text_no_window": [r[1] for r in w.rules]}
                                  for k, w in WORKLOADS.items()}},
        "memory_method": ("tracemalloc, while the evaluator is built and updated on the whole stream "
                          "(events allocated beforehand): peak, and kept = live after the last event "
                          "and a full garbage collection"),
    }
    rows = []
    for i, (wl, pol, n, w) in enumerate(grid.cells, 1):
        note(f"[{i}/{len(grid.cells)}] {wl} {pol} n={n:,} w={w if w is not None else 'none'}")
        row: dict[str, Any] = {"workload": wl, "policy": pol, "n": n, "window": w,
                               "text": WORKLOADS[wl].text(w).strip()}
        draws = workload_draws(wl, n, seed)
        fac = engine_factory(wl, pol, w)
        t0 = time.perf_counter()
        row.update(update_pass(fac, draws, grid.repeats(n)))
        row.update(memory_pass(fac, draws))
        row["bench_seconds"] = time.perf_counter() - t0
        rows.append(row)
    report["rows"] = rows
    note("floor")
    report["floor"] = []
    for n in sorted({n for _wl, _p, n, _w in grid.cells}):
        draws = workload_draws("W1", n, seed)
        report["floor"].append(dict(floor_pass(n, lambda lo, hi, d=draws: blocks(d, lo, hi), grid.repeats(n)),
                                    events="W1"))
    fl = {f["n"]: f for f in report["floor"]}
    for r in rows:
        if r.get("update_us") and fl.get(r["n"], {}).get("us"):
            r["x_floor"] = r["update_us"] / fl[r["n"]]["us"]
    report["oracle"] = oracle_pass(grid, seed, note)
    if peer == "etalis" or (peer is None and grid.peer_auto):
        note("peer etalis")
        report["peer"] = peer_pass(grid, seed, note)
    report["targets"] = targets(rows, report.get("peer"))
    dis = []
    for o in report["oracle"]:
        if o.get("agree") is False:
            dis.append(f"oracle and engine disagree on {o['workload']} {o['policy']} n={o['n']} w={o['window']}: "
                       f"{o['results']} vs {o['engine_results']} results; reproducer: {o['reproducer']}")
    report["disagreements"] = dis
    return report


# ----------------------------------------------------------------------------- printing
def _w(w: Optional[int]) -> str:
    return "none" if w is None else str(w)


def render(report: dict, console: Any) -> None:
    """Print the report as rich tables on ``console``."""
    from rich.table import Table
    console.print(f"[bold]ceplab bench etalis[/bold]  grid={report['grid']}  seed={report['seed']}  "
                  f"{report['python']}  {report['machine']}")
    for k, p in report["workload"]["programs"].items():
        console.print(f"  {k} ({p['title']}): {' '.join(p['text_window_w'])}", markup=False, highlight=False)
    console.print(f"  events: types uniform over the pattern types + {', '.join(report['workload']['noise_types'])} "
                  "(W1ab: no noise); "
                  f"arguments uniform in 0..{report['workload']['domain'] - 1} (W2, W3); event i on [i, i]",
                  markup=False, highlight=False)
    rows = report["rows"]
    t = Table(title="ETALIS engine: update throughput per workload and policy (CPU time of the feeding thread)")
    for col in ("workload", "policy", "n", "window", "cold ev/s", "warm ev/s", "cold µs/ev", "warm µs/ev",
                "steady µs", "x floor", "drift", "results", "stored", "stored max"):
        t.add_column(col, justify="left" if col in ("workload", "policy") else "right", no_wrap=True)
    for r in rows:
        t.add_row(r["workload"], r["policy"], fmt(r["n"], "int"), _w(r["window"]),
                  fmt(r.get("cold_update_eps"), "eps"), fmt(r["update_eps"], "eps"),
                  fmt(r.get("cold_update_us"), "us"), fmt(r["update_us"], "us"), fmt(r["steady_us"], "us"),
                  fmt(r.get("x_floor"), "ratio"), fmt(r["drift"], "ratio"),
                  fmt(r["results"], "int"), fmt(r["stored"], "int"), fmt(r["stored_max"], "int"))
    for f in report.get("floor", []):
        t.add_row("floor", "-", fmt(f["n"], "int"), "-", fmt(f["cold_eps"], "eps"), fmt(f["eps"], "eps"),
                  fmt(f["cold_us"], "us"), fmt(f["us"], "us"), "", "1.00", "", "", "", "")
    console.print(t)
    console.print(f"cold: the first timed run; warm: the fastest run per tenth of the stream, summed. "
                  f"{FLOOR_TEXT} ({', '.join(sorted({f['events'] for f in report.get('floor', [])}))} events).",
                  markup=False, highlight=False)
    mt = Table(title="Memory with and without windows (tracemalloc)")
    for col in ("workload", "policy", "window", "n", "stored max", "peak KiB", "kept KiB", "kept vs smallest n"):
        mt.add_column(col, justify="left" if col in ("workload", "policy") else "right")
    first: dict[tuple, dict] = {}
    for r in sorted(rows,
                    key=lambda r: (r["workload"], r["window"] is None, r["policy"], r["n"])):
        k = (r["workload"], r["policy"], r["window"])
        base = first.setdefault(k, r)
        rel = (r["retained_kib"] / base["retained_kib"]) if base is not r and base["retained_kib"] > 0 else None
        mt.add_row(r["workload"], r["policy"], _w(r["window"]), fmt(r["n"], "int"), fmt(r["stored_max"], "int"),
                   fmt(r["peak_kib"], "kib"), fmt(r["retained_kib"], "kib"),
                   "" if rel is None else f"x{rel:.2f}")
    console.print(mt)
    console.print(f"memory: {report['memory_method']}. stored: goals in the engine's stores (stats()['stored']), "
                  f"max sampled every {SAMPLE} events.", markup=False)
    ot = Table(title="Oracle as the stream grows (ceplab.asp.etalis; policies: ceplab.asp.etalis_policy; "
                     "wall time of one run each)")
    for col in ("workload", "policy", "n", "window", "status", "seconds", "ground rules", "atoms", "results",
                "engine results", "agree"):
        ot.add_column(col, justify="left" if col in ("workload", "policy", "status") else "right")
    for o in report["oracle"]:
        status = o["status"]
        if status in ("undecided", "error"):
            status = f"{status.upper()} ({o.get('reason', '')})"
        elif status in ("n/a", "skipped"):
            status = o.get("reason", status)
        agree = "-" if "agree" not in o else ("yes" if o["agree"] else "[red]NO[/red]")
        if "engine_error" in o:
            agree = f"engine failed: {o['engine_error']}"
        ot.add_row(o["workload"], o["policy"], fmt(o["n"], "int"), _w(o["window"]), status,
                   f"{o['seconds']:.2f}" if "seconds" in o else "-", fmt(o.get("ground_rules") or None, "int"),
                   fmt(o.get("atoms"), "int"), fmt(o.get("results"), "int"), fmt(o.get("engine_results"), "int"),
                   agree)
    console.print(ot)
    if "peer" in report:
        p = report["peer"]
        if "absent" in p:
            console.print(f"Peer etalis: absent, not run: {p['absent']} (ETALIS on SWI-Prolog 9: {ETALIS_REFERENCE}); "
                          "our figures on its stream are shown without a ratio.", markup=False, highlight=False)
        if p.get("rows"):
            pt = Table(title=f"Peer: the real ETALIS beside ceplab's engine (window {TARGET_WINDOW}, ETALIS with the "
                             f"window purge; W1 on its a/b-only stream); each ratio uses one clock on both sides")
            cols = ["workload", "policy", "n", "window"]
            for clk, head in ((CPU, "CPU"), (WALL, "wall")):
                cols += [f"ours cold ev/s ({head})", f"ours warm ev/s ({head})", f"ETALIS cold ev/s ({head})",
                         f"ETALIS warm ev/s ({head})", f"ratio cold ({head})", f"ratio warm ({head})"]
            for col in cols:
                pt.add_column(col, justify="left" if col in ("workload", "policy") else "right")
            for r in p["rows"]:
                cells = [r.get("workload", "W1"), r["policy"], fmt(r["n"], "int"), _w(r["window"])]
                for clk in (CPU, WALL):
                    if f"peer_{clk}_warm_eps" in r:
                        theirs = [fmt(r[f"peer_{clk}_cold_eps"], "eps"), fmt(r[f"peer_{clk}_warm_eps"], "eps")]
                    else:
                        why = f"peer failed: {r['error']}" if "error" in r else "absent"
                        theirs = [why, ""]
                    cells += [fmt(r.get(f"our_{clk}_cold_eps"), "eps"), fmt(r.get(f"our_{clk}_warm_eps"), "eps"),
                              *theirs, fmt(r.get(f"cold_ratio_{clk}"), "ratio"), fmt(r.get(f"ratio_{clk}"), "ratio")]
                pt.add_row(*cells)
            console.print(pt)
    H.render_targets(report, console)
    H.render_footer(report, console)


def _measure(grid: Grid, seed: int, peer: Optional[str], note: Callable[[str], None]) -> dict:
    return bench_etalis(grid, seed, peer, note)


#: the ETALIS benchmark, for ``ceplab bench etalis``
BENCHMARK = Benchmark(name="etalis", peers=PEERS, make_grid=make_grid, measure=_measure, render=render)
