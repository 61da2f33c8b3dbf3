"""Benchmarks with printed tables (``ceplab bench``; DESIGN.md sections 2 and 4).

``ceplab bench cel`` measures the incremental CEL engine (``ceplab.engine.cel``) on the workload of the
paper's experiments (note cel.md section 8), the clingo oracle (``ceplab.asp.cel``) as the stream grows, a
floor (a loop that only reads each event's type) and, optionally, the OpenCEP peer. Everything is
seeded: two runs with the same seed see the same events and count the same outputs (timings differ).

Workload. For each query, events are drawn uniformly at random (``random.Random``, seed
:data:`SEED`, prefix-stable: the stream of length n is the prefix of every longer one) from the
query's k pattern types (A, B, C, D as the query needs) plus the 6 noise types ``N1..N6``; event i
has ``type``, ``time = i`` and ``position = i`` and no attributes. The queries (Table 1 of the paper,
note 8) are run with strategy ALL and ``WITHIN w`` (``max C - min C <= w`` in positions, note G8):

    Q1  A AS a ; B AS b ; C AS c
    Q2  A AS a ; B AS b ; C AS c ; D AS d
    Q3  (A AS a OR B AS b OR C AS c) ; D AS d
    Q4  (A AS a)+ ; B AS b
    Q5  (A AS a)+ ; (B AS b)+ ; C AS c
    Q6  ((A AS a)+ ; B AS b)+ ; C AS c

Per (query, n, w) row, three passes over the same events, each with a fresh evaluator:

1. update: ``evaluator.update(event)`` for every event, no enumeration; repeated 2-5 times (more for
   small n), each tenth of the stream keeping its fastest time. Gives update throughput (events/s)
   and per-event update time per tenth of the stream, from which ``steady_us`` = the median over
   tenths 2..10 (the first tenth, where the window fills and the automaton's states are built on
   the fly, is left out) and ``drift`` = median of the last five tenths / of tenths 2..5. The
   stability targets compare ``steady_us``.
2. enumeration: ``update`` then ``outputs()`` (the lazy enumeration of the complex events ending at
   that event) at every event, counting outputs until :attr:`Grid.enum_cap` outputs (then the pass
   stops: ``outputs`` is ">= cap over the first ``outputs_events`` events"; with windows of 1000,
   Q4-Q6 have more than 2^100 outputs per event, so counting them all is impossible by
   construction). Gives outputs and outputs/s of enumeration time alone.
3. memory: ``tracemalloc`` peak of everything allocated while the evaluator is built and fed the
   whole stream by ``update`` (the events themselves are allocated beforehand and not counted), and
   the live traced size after the last event, before and after a full garbage collection
   (``live_kib``, ``retained_kib``). Peak and live include garbage not yet reclaimed (reference
   cycles wait for the cyclic collector); retained is what the engine really keeps. The
   evaluator's own ``stats()`` after the last event (e.g. live ECS nodes) is kept in the JSON row
   as ``engine_stats``.

Clocks: pass 1 and the floor measure the CPU time of the benchmarking thread (``time.thread_time``,
read once per block of events, its own cost subtracted): on an idle machine that equals wall time,
and on a shared one it is not inflated by other processes taking the cores (wall-clock figures
from a loaded 2-core machine varied by 2x between identical runs). Pass 2 reads the wall clock
(``time.perf_counter``, cheap enough to read around every single enumeration).

Feeding: only the type sequence of a stream is kept in memory; the timed passes (1, 2 and the
floor) build the events afresh, :data:`BLOCK` at a time, right before feeding them, as a parser in
front of a deployed engine would. Holding 10^6 event objects and walking them would add cache
misses that grow with n and would blur the per-event stability figures. The untimed memory pass
builds the whole list before tracing starts.

If the evaluator has no separate ``update``/``outputs`` (only ``push``), pass 1 times ``push``,
which then includes enumeration, and the table says so.

Oracle rows: ``ceplab.asp.cel.oracle`` on Q1 and Q4 with ``WITHIN 10`` at growing stream lengths (100 to
2000 events), with a time limit per call; ``Undecided`` is reported as such. The engine's output
count on the same stream is shown next to the oracle's (a mismatch is a disagreement, and makes
the exit code 1).

Floor rows: the same events (Q1's streams) through ``for e in events: e.type``.

Peer (``--peer opencep``): Q1, Q2 and Q4 with ``WITHIN 100`` through
:mod:`ceplab.workbench.peers.opencep` (timestamps = positions in seconds, OpenCEP window ``w`` seconds),
on short streams (OpenCEP is slow). Outputs are compared as sets with ours (and OpenCEP duplicates
counted); on a mismatch for a query with ``+`` the run is repeated with the adapter's ``index_fix``
workaround to tell OpenCEP's Kleene identity bug apart from a semantic difference. Our throughput
there is update plus full enumeration (OpenCEP materializes every match), and the ratio is ours
divided by OpenCEP's (both wall-clock). Without ``OPENCEP_HOME`` the peer is skipped with a
message.

Targets (reported, never enforced by tests): >= 100,000 events/s update throughput on Q1-Q5 with
w = 100; per-event update time within +-25% as w grows 10 -> 1000 and as the stream grows; memory
bounded by the window, not the stream (retained size at the largest n within +25% of the
smallest; the peak ratio is shown beside it).

``ceplab bench etalis`` (the ETALIS engine under each consumption policy) lives in
:mod:`ceplab.workbench.bench_etalis`, ``ceplab bench epsparql`` (the EP-SPARQL engine's triples/s and the oracle's time)
in :mod:`ceplab.workbench.bench_epsparql`; :func:`run` dispatches on the name, and with no name runs all of them.
"""
from __future__ import annotations

import gc
import json
import os
import platform
import random
import statistics
import sys
import time
import tracemalloc
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable, Iterable, Sequence

from ceplab.semantics.events import Event, Stream

SEED = 20170915
NOISE = ("N1", "N2", "N3", "N4", "N5", "N6")
QUERIES: dict[str, tuple[str, str]] = {
    # name: (formula, pattern types)
    "Q1": ("A AS a ; B AS b ; C AS c", "ABC"),
    "Q2": ("A AS a ; B AS b ; C AS c ; D AS d", "ABCD"),
    "Q3": ("(A AS a OR B AS b OR C AS c) ; D AS d", "ABCD"),
    "Q4": ("(A AS a)+ ; B AS b", "AB"),
    "Q5": ("(A AS a)+ ; (B AS b)+ ; C AS c", "ABC"),
    "Q6": ("((A AS a)+ ; B AS b)+ ; C AS c", "ABC"),
}
THROUGHPUT_TARGET = 100_000.0
THROUGHPUT_QUERIES = ("Q1", "Q2", "Q3", "Q4", "Q5")
THROUGHPUT_W = 100
STABILITY = 0.25
CHUNKS = 10
PEER_QUERIES = ("Q1", "Q2", "Q4")
BENCH_NAMES = ("cel", "etalis", "epsparql")
PEER_NAMES = ("opencep", "etalis")
#: the peers each benchmark can run (``--peer``); ``etalis`` is in :mod:`ceplab.workbench.bench_etalis`
PEERS_OF = {"cel": ("opencep",), "etalis": ("etalis",), "epsparql": ()}


# ----------------------------------------------------------------------------- grid
@dataclass(frozen=True)
class Grid:
    """What one benchmark run measures.

    Attributes:
        name: ``quick``, ``default`` or ``full``.
        cells: the (query, n, w) rows.
        oracle_cases, oracle_ns: the oracle rows, (query name, window) x stream lengths.
        oracle_seconds: time limit of one oracle call.
        peer_w: window of the peer rows; peer_ns: stream length per peer query.
        enum_cap: outputs counted per row at most (pass 2 stops there).
        repeat_events: pass 1 is repeated ``max(2, min(5, repeat_events // n))`` times, and each
            tenth of the stream keeps its fastest time.
    """

    name: str
    cells: tuple[tuple[str, int, int], ...]
    oracle_cases: tuple[tuple[str, int], ...] = (("Q1", 10), ("Q4", 10))
    oracle_ns: tuple[int, ...] = (100, 250, 500, 1000, 2000)
    oracle_seconds: float = 60.0
    peer_w: int = 100
    peer_ns: dict = field(default_factory=lambda: {"Q1": 2000, "Q2": 2000, "Q4": 200})
    enum_cap: int = 300_000
    repeat_events: int = 400_000

    def repeats(self, n: int) -> int:
        return max(2, min(5, self.repeat_events // max(n, 1)))


def _cells(queries: Iterable[str], ns: Iterable[int], ws: Iterable[int]) -> list[tuple[str, int, int]]:
    return [(q, n, w) for q in queries for n in ns for w in ws]


def make_grid(kind: str = "default") -> Grid:
    """The grid called ``kind``.

    * ``quick``: every query, n = 300, w in {10, 50}; oracle at n = 30, 60; peer on 60 / 60 / 30
      events with w = 20 (a few seconds; used by the tests).
    * ``default``: every query, n in {10^4, 10^5} x w in {10, 100, 1000}, plus Q1 at n = 10^6,
      w = 100; oracle at n = 100 .. 2000; peer on 2000 / 2000 / 200 events (a few minutes).
    * ``full``: every query, n in {10^4, 10^5, 10^6} x w in {10, 100, 1000} (long: tens of minutes).

    Raises:
        ValueError: unknown kind.
    """
    qs = list(QUERIES)
    if kind == "quick":
        return Grid("quick", tuple(_cells(qs, (300,), (10, 50))), oracle_ns=(30, 60), oracle_seconds=30.0,
                    peer_w=20, peer_ns={"Q1": 60, "Q2": 60, "Q4": 30}, enum_cap=2_000,
                    repeat_events=300)
    if kind == "default":
        return Grid("default", tuple(_cells(qs, (10_000, 100_000), (10, 100, 1000))
                                     + [("Q1", 1_000_000, 100)]))
    if kind == "full":
        return Grid("full", tuple(_cells(qs, (10_000, 100_000, 1_000_000), (10, 100, 1000))))
    raise ValueError(f"unknown grid {kind!r}; known: quick, default, full")


# ----------------------------------------------------------------------------- workload
BLOCK = 1000
_TYPES: dict[tuple[str, int], list[str]] = {}  # (pattern types, seed) -> longest type sequence so far


def stream_types(types: str, n: int, seed: int = SEED) -> list[str]:
    """The types of the first ``n`` events of the seeded random stream over ``types`` + noise.

    Types are uniform over ``list(types) + NOISE``. Prefix-stable (one ``random()`` per event, in
    order) and cached per (types, seed), grown on demand.
    """
    key = (types, seed)
    have = _TYPES.get(key, [])
    if len(have) < n:
        rng = random.Random(f"ceplab-bench:{seed}:{types}")
        have = rng.choices(list(types) + list(NOISE), k=n)
        _TYPES[key] = have
    return have[:n] if len(have) > n else have


def make_events(ts: Sequence[str], start: int = 0) -> list[Event]:
    """Fresh events of types ``ts`` at positions (= times) ``start, start+1, ...``; no attributes."""
    return [Event(t, p, None, p) for p, t in zip(range(start, start + len(ts)), ts)]


def blocks(ts: Sequence[str], lo: int = 0, hi: int | None = None, offset: int = 0) -> Iterable[list[Event]]:
    """The events ``lo..hi-1`` of a type sequence, built afresh :data:`BLOCK` at a time, at positions
    (= times) shifted by ``offset``.

    The timed passes feed the engine from these: each event has just been created (as if just
    parsed), so the per-event time measures the engine and not cache misses on a stream of 10^6
    events held in memory, which would grow with n and blur the stability figures.
    """
    hi = len(ts) if hi is None else hi
    for a in range(lo, hi, BLOCK):
        b = min(hi, a + BLOCK)
        yield make_events(ts[a:b], a + offset)


def workload_types(query: str, n: int, seed: int = SEED) -> list[str]:
    """The event types of query ``query`` (``Q1``..``Q6``) at stream length ``n``."""
    return stream_types(QUERIES[query][1], n, seed)


def workload(query: str, n: int, seed: int = SEED) -> list[Event]:
    """The events of query ``query`` at stream length ``n`` (event i: ``time = position = i``)."""
    return make_events(workload_types(query, n, seed))


def query_text(query: str, w: int) -> str:
    """CEL text of benchmark query ``query`` with ``WITHIN w``."""
    return f"{QUERIES[query][0]} WITHIN {w}"


def parse_query(query: str, w: int):
    from ceplab.semantics.cel.parser import parse
    return parse(query_text(query, w))


# ----------------------------------------------------------------------------- engine adapter
class _Runner:
    """Uniform access to an engine evaluator: ``update(event)`` and ``enumerate() -> iterable``.

    Uses the evaluator's own ``update`` and ``outputs()`` (the complex events ending at the last
    updated event, enumerated lazily; ``enumerate()`` is accepted too) when it has them
    (``separated`` True);
    otherwise ``update`` is ``push`` (which enumerates too) and ``enumerate`` returns what the last
    push returned.
    """

    def __init__(self, factory: Callable[[], Any]) -> None:
        ev = factory()
        self.evaluator = ev
        self.path = str(getattr(ev, "path", "?"))
        enum = getattr(ev, "outputs", None) or getattr(ev, "enumerate", None)
        if callable(getattr(ev, "update", None)) and callable(enum):
            self.separated = True
            self.update = ev.update
            self.enumerate = enum
        else:
            self.separated = False
            self._last: list = []
            push = ev.push

            def update(e: Event) -> None:
                self._last = push(e)

            self.update = update
            self.enumerate = lambda: self._last


def engine_factory(query: str, w: int) -> Callable[[], Any]:
    """A zero-argument factory of fresh engine evaluators for benchmark query ``query``/``w``.

    Raises:
        ImportError: ``ceplab.engine.cel`` is not available.
    """
    from ceplab.engine.cel import evaluator
    q = parse_query(query, w)
    return lambda: evaluator(q)


CPU_CLOCK = time.thread_time


@lru_cache(maxsize=1)
def _cpu_clock_cost() -> float:
    """Seconds one reading of :data:`CPU_CLOCK` adds to a measured interval (a system call)."""
    c = CPU_CLOCK
    best = float("inf")
    for _ in range(200):
        t0 = c()
        best = min(best, c() - t0)
    return best


def timed_chunks(feed: Callable[[Any], Any], n: int,
                 chunk_blocks: Callable[[int, int], Iterable[list]]) -> list[float]:
    """CPU seconds spent in ``feed`` per tenth (:data:`CHUNKS`) of a stream of ``n`` events.

    Args:
        feed: called once per event (an evaluator's ``update`` or ``push``).
        n: the stream length.
        chunk_blocks: ``chunk_blocks(lo, hi)`` yields the events ``lo..hi-1`` in freshly built blocks (the
            building is not timed).

    Returns:
        ``CHUNKS`` CPU times in seconds, the clock's own cost subtracted.  Shared by every benchmark.
    """
    bounds = [n * i // CHUNKS for i in range(CHUNKS + 1)]
    times = []
    gc.collect()
    clock, cost = CPU_CLOCK, _cpu_clock_cost()
    for i in range(CHUNKS):
        spent = 0.0
        for blk in chunk_blocks(bounds[i], bounds[i + 1]):
            t0 = clock()
            for e in blk:
                feed(e)
            spent += max(0.0, clock() - t0 - cost)
        times.append(spent)
    return times


def engine_results(factory: Callable[[], Any], stream: Sequence[Any]) -> list:
    """All results of a fresh evaluator (``push`` on every event, then ``close``); for the oracle rows of the
    ETALIS and EP-SPARQL benchmarks."""
    ev = factory()
    out: list = []
    for e in stream:
        out.extend(ev.push(e))
    out.extend(ev.close())
    return out


WARMUP = 20_000


def warmup_types(ts: Sequence[str], n: int = WARMUP) -> list[str]:
    """``n`` event types drawn uniformly, with a fixed seed of their own, from the alphabet of ``ts``: the
    warm-up prefix fed before a timed pass."""
    alphabet = sorted(set(ts))
    return random.Random(f"ceplab-bench-warmup:{''.join(alphabet)}").choices(alphabet, k=n) if alphabet else []


def _timed_update_pass(factory: Callable[[], Any], ts: Sequence[str]) -> tuple[list[float], str, bool, float]:
    """One pass 1 over the type sequence ``ts``: (CPU seconds per tenth of the stream, path, separated,
    warm-up CPU seconds).

    The evaluator first gets :data:`WARMUP` events of the same alphabet (:func:`warmup_types`, positions
    ``0..WARMUP-1``); the timed stream follows at positions ``WARMUP..``.  The on-the-fly determinization
    and the code generation of step plans are one-time work bounded by the automaton (ceplab.engine.cel.evaluate);
    without the warm-up they land in the timed tenths of short streams (n = 10^4) and not of long ones,
    which blurs the per-event stability figures.  Their cost is reported as ``warmup_seconds``."""
    r = _Runner(factory)
    wt = warmup_types(ts)
    clock = CPU_CLOCK
    t0 = clock()
    for blk in blocks(wt):
        for e in blk:
            r.update(e)
    warm = clock() - t0
    times = timed_chunks(r.update, len(ts), lambda lo, hi: blocks(ts, lo, hi, offset=len(wt)))
    return times, r.path, r.separated, warm


def update_pass(factory: Callable[[], Any], ts: Sequence[str], repeats: int) -> dict:
    """Pass 1: throughput and per-tenth per-event update times on the events of types ``ts``.

    The pass is repeated ``repeats`` times with fresh evaluators; every repeat does exactly the same
    work on the same events, so each tenth keeps its fastest time (robust to other load on the
    machine) and the total is their sum.
    """
    passes = [_timed_update_pass(factory, ts) for _ in range(repeats)]
    return fold_update_passes(passes, len(ts))


def chunk_stats(repeats: list[list[float]], n: int) -> dict:
    """Figures from repeated :func:`timed_chunks` results on the same ``n`` events: each tenth keeps its fastest
    repeat (robust to other load on the machine) and the total is their sum.

    Returns ``seconds`` (the total), ``eps`` (events/s), ``us`` (µs/event), ``chunk_us`` (per tenth), ``steady_us``
    (median of tenths 2-10) and ``drift`` (last half over tenths 2-5).  Shared by every benchmark."""
    best = [min(ts) for ts in zip(*repeats)]
    total = sum(best)
    per = [t / max(1, n // CHUNKS) for t in best]
    early, late = per[1:5], per[5:]
    drift = None
    if early and late and statistics.median(early) > 0:
        drift = statistics.median(late) / statistics.median(early)
    return {"seconds": total, "eps": n / total if total > 0 else None, "us": total / n * 1e6 if n else None,
            "chunk_us": [p * 1e6 for p in per],
            "steady_us": statistics.median(per[1:]) * 1e6 if len(per) > 1 else None, "drift": drift}


def fold_update_passes(passes: list, n: int) -> dict:
    """The update-pass record from repeated :func:`_timed_update_pass` results on the same ``n`` events
    (:func:`chunk_stats`)."""
    c = chunk_stats([p[0] for p in passes], n)
    _times, path, separated, _warm = passes[-1]
    return {"update_seconds": c["seconds"], "update_eps": c["eps"], "update_us": c["us"],
            "chunk_us": c["chunk_us"], "steady_us": c["steady_us"], "drift": c["drift"], "path": path,
            "separated": separated, "repeats": len(passes), "warmup_events": WARMUP,
            "warmup_seconds": min(p[3] for p in passes)}


def enumeration_pass(factory: Callable[[], Any], ts: Sequence[str], cap: int) -> dict:
    """Pass 2: update + enumerate at every event, counting outputs up to ``cap``."""
    r = _Runner(factory)
    upd, enum = r.update, r.enumerate
    count = 0
    size = 0
    t_enum = 0.0
    processed = 0
    clock = time.perf_counter
    gc.collect()
    for blk in blocks(ts):
        for e in blk:
            upd(e)
            t0 = clock()
            for c in enum():
                count += 1
                size += len(c)
                if count >= cap:
                    break
            t_enum += clock() - t0
            processed += 1
            if count >= cap:
                break
        if count >= cap:
            break
    return {"outputs": count, "outputs_capped": count >= cap, "outputs_events": processed,
            "enum_seconds": t_enum, "enum_ops": count / t_enum if t_enum > 0 and count else None,
            "mean_ce_size": size / count if count else None}


def memory_pass(factory: Callable[[], Any], ts: Sequence[str]) -> dict:
    """Pass 3: tracemalloc peak/live/retained bytes of building the evaluator and updating it on
    the events of types ``ts`` (built before tracing starts, so they are not counted)."""
    evs = make_events(ts)
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        r = _Runner(factory)
        upd = r.update
        for e in evs:
            upd(e)
        cur, peak = tracemalloc.get_traced_memory()
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    st = getattr(r.evaluator, "stats", None)
    return {"peak_kib": (peak - base) / 1024, "live_kib": (cur - base) / 1024,
            "retained_kib": (kept - base) / 1024,
            "engine_stats": _jsonable(st()) if callable(st) else None}


def outputs_of(factory: Callable[[], Any], evs: Sequence[Event]) -> tuple[list[tuple[int, ...]], float]:
    """All outputs of a fresh evaluator on ``evs`` (update + full enumeration) and the seconds taken."""
    r = _Runner(factory)
    upd, enum = r.update, r.enumerate
    out: list[tuple[int, ...]] = []
    ext = out.extend
    gc.collect()
    t0 = time.perf_counter()
    for e in evs:
        upd(e)
        ext(enum())
    return out, time.perf_counter() - t0


def floor_pass(ts: Sequence[str], repeats: int) -> dict:
    """The floor: a plain loop reading each event's type, fed like pass 1 (best of ``repeats``)."""
    best = float("inf")
    clock, cost = CPU_CLOCK, _cpu_clock_cost()
    for _ in range(repeats):
        spent = 0.0
        for blk in blocks(ts):
            t0 = clock()
            for e in blk:
                e.type
            spent += max(0.0, clock() - t0 - cost)
        best = min(best, spent)
    n = len(ts)
    return {"n": n, "seconds": best, "eps": n / best if best > 0 else None, "us": best / n * 1e6 if n else None}


# ----------------------------------------------------------------------------- oracle
def oracle_pass(grid: Grid, seed: int, engine_ok: bool) -> list[dict]:
    """Oracle rows: ``ceplab.asp.cel.oracle`` on each of ``grid.oracle_cases`` at each length."""
    try:
        from ceplab.asp import cel as asp_cel
        from ceplab.asp.oracle import Limits
        from ceplab.semantics.cel.options import Options
    except ImportError as e:
        return [{"skipped": f"ceplab.asp.cel is not available ({e})"}]
    limits = Limits(time_s=grid.oracle_seconds)
    rows = []
    for (qn, w), n in ((c, n) for c in grid.oracle_cases for n in grid.oracle_ns):
        q = parse_query(qn, w)
        evs = workload(qn, n, seed)
        row: dict[str, Any] = {"query": qn, "n": n, "w": w, "limit_seconds": grid.oracle_seconds}
        t0 = time.perf_counter()
        res = asp_cel.oracle(q, Stream(evs, f"bench-{qn}-{n}"), Options(), limits)
        row["seconds"] = time.perf_counter() - t0
        results = record_oracle(row, res, "outputs")
        if results is not None and engine_ok:
            eng, _ = outputs_of(engine_factory(qn, w), evs)
            row.update(agreement(eng, results, "engine_outputs"))
        rows.append(row)
    return rows


def traced_goal_run(factory: Callable[[], Any], feed: Callable[[Any], tuple[int, int]]) -> dict:
    """The memory pass of the goal-store engines (ETALIS, EP-SPARQL): build ``factory()`` and run ``feed(ev)``
    (which feeds the whole stream and returns ``(results before close, largest sampled "stored")``), then
    ``close()``, under tracemalloc.  Returns ``results``, ``stored`` (at the end), ``stored_max``, ``peak_kib``,
    ``live_kib`` (after close), ``retained_kib`` (after a full collection) and ``engine_stats``."""
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        ev = factory()
        results, stored_max = feed(ev)
        results += len(ev.close())
        cur, peak = tracemalloc.get_traced_memory()
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    st = ev.stats()
    return {"results": results, "stored": st.get("stored"), "stored_max": max(stored_max, st.get("stored") or 0),
            "peak_kib": (peak - base) / 1024, "live_kib": (cur - base) / 1024, "retained_kib": (kept - base) / 1024,
            "engine_stats": _jsonable(st)}


def record_oracle(row: dict, res: Any, count_key: str = "results") -> Any:
    """Record an oracle answer in a benchmark row and return its results (None when undecided).

    Sets ``stats`` (with ``ground_rules`` and ``atoms`` when the statistics have them) and ``status``; then
    ``reason`` (undecided) or ``row[count_key]``, the number of results.  Shared by every benchmark."""
    st = getattr(res, "stats", None)
    if st is not None:
        row["stats"] = _jsonable(st.to_json() if hasattr(st, "to_json") else st)
        row["ground_rules"] = getattr(st, "ground_rules", None)
        row["atoms"] = getattr(st, "atoms", None)
    results = getattr(res, "results", None)
    if results is None:
        row.update(status="undecided", reason=str(getattr(res, "reason", res)))
        return None
    row["status"] = "decided"
    row[count_key] = len(results)
    return results


def agreement(engine: Sequence, results: Any, count_key: str = "engine_results") -> dict:
    """``{count_key: distinct engine results, "agree": same set as the oracle and no result emitted twice}``."""
    eng = set(engine)
    return {count_key: len(eng), "agree": eng == set(results) and len(engine) == len(eng)}


def _jsonable(x: Any) -> Any:
    import dataclasses
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return {k: _jsonable(v) for k, v in dataclasses.asdict(x).items()}
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple, set, frozenset)):
        return [_jsonable(v) for v in x]
    if isinstance(x, (int, float, str, bool)) or x is None:
        return x
    return str(x)


# ----------------------------------------------------------------------------- peer
def peer_pass(grid: Grid, peer: str, seed: int, engine_ok: bool) -> dict:
    """Peer rows (OpenCEP): counts compared with ours, throughput ratio."""
    from ceplab.workbench.peers import opencep
    reason = opencep.unavailable_reason()
    if reason is not None:
        return {"peer": peer, "skipped": reason}
    if not engine_ok:
        return {"peer": peer, "skipped": "ceplab.engine.cel is not available"}
    rows = []
    for qn in PEER_QUERIES:
        n = grid.peer_ns[qn]
        evs = workload(qn, n, seed)
        q = parse_query(qn, grid.peer_w)
        ours, our_s = outputs_of(engine_factory(qn, grid.peer_w), evs)
        try:
            res = opencep.run(q, evs)
        except Exception as e:  # a failure inside the peer is reported, not fatal
            rows.append({"query": qn, "n": n, "w": grid.peer_w, "error": f"{type(e).__name__}: {e}"})
            continue
        row: dict[str, Any] = {"query": qn, "n": n, "w": grid.peer_w, "our_outputs": len(set(ours)),
                               "our_eps": n / our_s if our_s > 0 else None,
                               "peer_outputs": len(res.results), "peer_distinct": len(set(res.results)),
                               "peer_eps": res.events_per_second}
        row["agree"] = set(res.results) == set(ours) and len(res.results) == len(set(res.results))
        if not row["agree"]:
            row["missing_in_peer"] = len(set(ours) - set(res.results))
            row["extra_in_peer"] = len(set(res.results) - set(ours))
            row["example_missing"] = [list(c) for c in sorted(set(ours) - set(res.results))[:3]]
            if "+" in QUERIES[qn][0]:
                fixed = opencep.run(q, evs, index_fix=True)
                row["agree_with_index_fix"] = (set(fixed.results) == set(ours)
                                               and len(fixed.results) == len(set(fixed.results)))
                row["peer_outputs_index_fix"] = len(fixed.results)
        row["ratio"] = (row["our_eps"] / row["peer_eps"]) if row["our_eps"] and row["peer_eps"] else None
        rows.append(row)
    return {"peer": peer, "rows": rows}


# ----------------------------------------------------------------------------- targets
def _within(r: float | None) -> bool:
    return r is not None and (1 - STABILITY) <= r <= (1 + STABILITY)


def targets(rows: list[dict]) -> list[dict]:
    """Verdicts on the speed/memory targets from the measured rows."""
    out: list[dict] = []
    ok_rows = [r for r in rows if r.get("steady_us")]
    by = {(r["query"], r["n"], r["w"]): r for r in ok_rows}
    for r in ok_rows:
        if r["query"] in THROUGHPUT_QUERIES and r["w"] == THROUGHPUT_W:
            out.append({"target": "throughput >= 100k ev/s", "query": r["query"], "where": f"n={r['n']} w={r['w']}",
                        "value": r["update_eps"], "ok": bool(r["update_eps"] and r["update_eps"] >= THROUGHPUT_TARGET)})
    qs = sorted({k[0] for k in by})
    ns = sorted({k[1] for k in by})
    ws = sorted({k[2] for k in by})
    for q in qs:
        for n in ns:
            present = [w for w in ws if (q, n, w) in by]
            if len(present) >= 2:
                lo, hi = by[(q, n, present[0])], by[(q, n, present[-1])]
                ratio = hi["steady_us"] / lo["steady_us"]
                steps = ", ".join(f"{a}->{b}: {by[(q, n, b)]['steady_us'] / by[(q, n, a)]['steady_us']:.2f}"
                                  for a, b in zip(present, present[1:]))
                out.append({"target": "update time vs w (+-25%)", "query": q,
                            "where": f"n={n} w={present[0]}->{present[-1]}", "value": ratio, "ok": _within(ratio),
                            "detail": steps if len(present) > 2 else ""})
        for w in ws:
            present = [n for n in ns if (q, n, w) in by]
            if len(present) >= 2:
                lo, hi = by[(q, present[0], w)], by[(q, present[-1], w)]
                ratio = hi["steady_us"] / lo["steady_us"]
                out.append({"target": "update time vs n (+-25%)", "query": q,
                            "where": f"w={w} n={present[0]}->{present[-1]}", "value": ratio, "ok": _within(ratio)})
                if lo.get("retained_kib", 0) > 0 and lo.get("peak_kib", 0) > 0:
                    m = hi["retained_kib"] / lo["retained_kib"]
                    out.append({"target": "memory bounded by window (<= +25%)", "query": q,
                                "where": f"w={w} n={present[0]}->{present[-1]}", "value": m,
                                "ok": m <= 1 + STABILITY,
                                "detail": f"retained; peak {hi['peak_kib'] / lo['peak_kib']:.2f}"})
    for r in ok_rows:
        if r.get("drift") is not None and r["n"] == max(ns):
            out.append({"target": "update time within a run (+-25%)", "query": r["query"],
                        "where": f"n={r['n']} w={r['w']}", "value": r["drift"], "ok": _within(r["drift"])})
    return out


# ----------------------------------------------------------------------------- the run
def bench_cel(grid: Grid, seed: int = SEED, peer: str | None = None,
              progress: Callable[[str], None] | None = None) -> dict:
    """Run the CEL benchmark on ``grid`` and return the report (the ``--json`` object).

    Keys: ``bench``, ``grid``, ``seed``, ``python``, ``workload``, ``memory_method``, ``rows`` (one
    record per (query, n, w)), ``floor``, ``oracle``, ``peer`` (absent without ``peer``),
    ``targets``, ``disagreements``.
    """
    note = progress or (lambda s: None)
    report: dict[str, Any] = {
        "bench": "cel", "grid": grid.name, "seed": seed,
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "machine": f"{platform.machine()} {os.cpu_count()} cpu",
        "workload": {"noise_types": list(NOISE), "queries": {q: t for q, (t, _) in QUERIES.items()},
                     "window": "WITHIN w: max C - min C <= w (positions)"},
        "memory_method": ("tracemalloc, while the evaluator is built and updated on the whole stream "
                          "(events allocated beforehand): peak, and kept = live after the last event "
                          "and a full garbage collection"),
        "enum_cap": grid.enum_cap,
    }
    try:
        import ceplab.engine.cel  # noqa: F401
        engine_ok, engine_err = True, None
    except ImportError as e:
        engine_ok, engine_err = False, f"ceplab.engine.cel is not available ({e})"
    rows = []
    passes: dict[int, list] = {}
    if engine_ok:
        # Update passes in rounds over the whole grid (round r runs every cell that wants > r repeats), so a
        # burst of load on the machine hits one repeat of several cells rather than every repeat of one cell;
        # each tenth keeps its fastest repeat.  Enumeration and memory passes follow, after every update pass.
        rounds = max(grid.repeats(n) for _q, n, _w in grid.cells)
        for r in range(rounds):
            for i, (q, n, w) in enumerate(grid.cells):
                if grid.repeats(n) > r:
                    note(f"update round {r + 1}/{rounds}: {q} n={n:,} w={w}")
                    passes.setdefault(i, []).append(
                        _timed_update_pass(engine_factory(q, w), workload_types(q, n, seed)))
    for i, (q, n, w) in enumerate(grid.cells, 1):
        note(f"[{i}/{len(grid.cells)}] {q} n={n:,} w={w}")
        ts = workload_types(q, n, seed)
        row: dict[str, Any] = {"query": q, "n": n, "w": w, "text": query_text(q, w)}
        if not engine_ok:
            row["skipped"] = engine_err
            rows.append(row)
            continue
        fac = engine_factory(q, w)
        row.update(fold_update_passes(passes[i - 1], n))
        row.update(enumeration_pass(fac, ts, grid.enum_cap))
        row.update(memory_pass(fac, ts))
        rows.append(row)
    report["rows"] = rows
    note("floor")
    floor_ns = sorted({n for q, n, _w in grid.cells})
    report["floor"] = [dict(floor_pass(workload_types("Q1", n, seed), grid.repeats(n)), events="Q1")
                       for n in floor_ns]
    fl = {f["n"]: f for f in report["floor"]}
    for r in rows:
        if r.get("update_us") and fl.get(r["n"], {}).get("us"):
            r["x_floor"] = r["update_us"] / fl[r["n"]]["us"]
    note("oracle")
    report["oracle"] = oracle_pass(grid, seed, engine_ok)
    if peer is not None:
        note(f"peer {peer}")
        report["peer"] = peer_pass(grid, peer, seed, engine_ok)
    report["targets"] = targets(report["rows"])
    dis = []
    for o in report["oracle"]:
        if o.get("agree") is False:
            dis.append(f"oracle and engine disagree on {o['query']} n={o['n']} w={o['w']}: "
                       f"{o['outputs']} vs {o['engine_outputs']} outputs")
    report["disagreements"] = dis
    return report


# ----------------------------------------------------------------------------- printing
def _fmt(x: Any, kind: str = "") -> str:
    if x is None:
        return "-"
    if kind == "int":
        return f"{int(x):,}"
    if kind == "eps":
        return f"{x:,.0f}"
    if kind == "us":
        return f"{x:.3f}"
    if kind == "ratio":
        return f"{x:.2f}"
    if kind == "kib":
        return f"{x:,.0f}"
    return str(x)


def render(report: dict, console: Any) -> None:
    """Print the report as rich tables on ``console``."""
    from rich.table import Table
    console.print(f"[bold]ceplab bench cel[/bold]  grid={report['grid']}  seed={report['seed']}  "
                  f"{report['python']}  {report['machine']}")
    rows = report["rows"]
    sep = all(r.get("separated", True) for r in rows)
    t = Table(title="CEL engine: update throughput, enumeration, memory"
              + ("" if sep else "  (evaluator has no update/enumerate: update includes enumeration)"))
    for col, just in [("query", "left"), ("n", "right"), ("w", "right"), ("update ev/s", "right"),
                      ("µs/ev", "right"), ("steady µs", "right"), ("x floor", "right"), ("drift", "right"), ("outputs", "right"),
                      ("enum out/s", "right"), ("peak KiB", "right"), ("kept KiB", "right")]:
        t.add_column(col, justify=just)
    t.add_column("path", no_wrap=True, overflow="ellipsis", max_width=40)
    for r in rows:
        if "skipped" in r:
            t.add_row(r["query"], _fmt(r["n"], "int"), _fmt(r["w"], "int"), r["skipped"], *[""] * 9)
            continue
        outs = _fmt(r["outputs"], "int")
        if r["outputs_capped"]:
            outs = f">={outs} (first {r['outputs_events']:,} ev)"
        t.add_row(r["query"], _fmt(r["n"], "int"), _fmt(r["w"], "int"), _fmt(r["update_eps"], "eps"),
                  _fmt(r["update_us"], "us"), _fmt(r["steady_us"], "us"), _fmt(r.get("x_floor"), "ratio"), _fmt(r["drift"], "ratio"), outs,
                  _fmt(r["enum_ops"], "eps"), _fmt(r["peak_kib"], "kib"), _fmt(r["retained_kib"], "kib"), r["path"])
    for f in report["floor"]:
        t.add_row("floor", _fmt(f["n"], "int"), "-", _fmt(f["eps"], "eps"), _fmt(f["us"], "us"), "", "1.00",
                  "", "", "", "", "", f"for e in events: e.type ({f['events']} events)")
    console.print(t)
    console.print(f"memory: {report['memory_method']}. steady: median per-event update time over tenths "
                  "2-10 of the stream; drift: last half of the stream over tenths 2-5. Update times are "
                  f"measured after a warm-up of {WARMUP:,} events of the same alphabet (one-time "
                  "determinization and code generation; its CPU time is the JSON field warmup_seconds).")
    ot = Table(title="Oracle (ceplab.asp.cel) as the stream grows")
    for col in ("query", "n", "w", "status", "seconds", "outputs", "engine outputs", "agree"):
        ot.add_column(col, justify="right" if col not in ("query", "status") else "left")
    for o in report["oracle"]:
        if "skipped" in o:
            ot.add_row("-", "", "", o["skipped"], "", "", "", "")
            continue
        status = o["status"] if o["status"] == "decided" else f"UNDECIDED ({o.get('reason', '')})"
        ot.add_row(o["query"], _fmt(o["n"], "int"), _fmt(o["w"], "int"), status, f"{o['seconds']:.2f}",
                   _fmt(o.get("outputs"), "int"), _fmt(o.get("engine_outputs"), "int"),
                   "-" if "agree" not in o else ("yes" if o["agree"] else "NO"))
    console.print(ot)
    if "peer" in report:
        p = report["peer"]
        if "skipped" in p:
            console.print(p["skipped"])
        else:
            pt = Table(title=f"Peer {p['peer']}: same events, same window (timestamps = positions, window w s)")
            for col in ("query", "n", "w", "our outputs", "peer outputs", "agree", "our ev/s (upd+enum)",
                        "peer ev/s", "ratio ours/peer"):
                pt.add_column(col, justify="left" if col == "query" else "right")
            for r in p["rows"]:
                if "error" in r:
                    pt.add_row(r["query"], _fmt(r["n"], "int"), _fmt(r["w"], "int"), "", "",
                               f"peer failed: {r['error']}", "", "", "")
                    continue
                agree = "yes" if r["agree"] else f"NO (-{r['missing_in_peer']} +{r['extra_in_peer']})"
                if "agree_with_index_fix" in r:
                    agree += f"; with index_fix: {'yes' if r['agree_with_index_fix'] else 'NO'}"
                peer_out = _fmt(r["peer_outputs"], "int")
                if r["peer_distinct"] != r["peer_outputs"]:
                    peer_out += f" ({r['peer_distinct']:,} distinct)"
                pt.add_row(r["query"], _fmt(r["n"], "int"), _fmt(r["w"], "int"), _fmt(r["our_outputs"], "int"),
                           peer_out, agree, _fmt(r["our_eps"], "eps"), _fmt(r["peer_eps"], "eps"),
                           _fmt(r["ratio"], "ratio"))
            console.print(pt)
    if report["targets"]:
        tt = Table(title="Targets")
        for col in ("target", "query", "where", "value", "ok", "detail"):
            tt.add_column(col, justify="right" if col == "value" else "left")
        for x in report["targets"]:
            val = _fmt(x["value"], "eps") if x["target"].startswith("throughput") else _fmt(x["value"], "ratio")
            tt.add_row(x["target"], x["query"], x["where"], val, "yes" if x["ok"] else "[red]NO[/red]",
                       x.get("detail", ""))
        console.print(tt)
    if report["grid"] == "quick":
        console.print("quick grid: streams too short for the timings and targets to mean anything; "
                      "it checks the plumbing and the output counts.")
    for d in report["disagreements"]:
        console.print(f"[red]DISAGREEMENT[/red] {d}")


def run(name: str | None = None, json_out: bool = False, peer: str | None = None, quick: bool = False,
        full: bool | None = None, seed: int | None = None) -> int:
    """``ceplab bench [NAME] [--json] [--peer P] [--quick|--full]``: run benchmarks, print them.

    Args:
        name: the benchmark, one of :data:`BENCH_NAMES`: ``cel`` (this module), ``etalis``
            (:mod:`ceplab.workbench.bench_etalis`) or ``epsparql`` (:mod:`ceplab.workbench.bench_epsparql`, no peer); None runs
            all of them, one after the other.
        json_out: print one JSON object per benchmark run (the report: :func:`bench_cel`'s, or
            :func:`ceplab.workbench.bench_etalis.bench_etalis`'s), one per line, on stdout instead of tables.
        peer: also run an external engine: ``opencep`` for ``cel`` (needs ``OPENCEP_HOME``, else
            skipped with a message), ``etalis`` for ``etalis`` (needs ``ETALIS_HOME`` and SWI-Prolog;
            on the default and full grids the ETALIS benchmark runs it anyway when it is available).
            With no name, a peer applies to the benchmark it belongs to.
        quick: the tiny grids (seconds; what the tests run).
        full: the whole grids (tens of minutes). None reads the environment: ``CEPLAB_BENCH_FULL=1``
            selects it. Without ``quick`` or ``full`` the default grids run (a few minutes each; see
            :func:`make_grid` and :func:`ceplab.workbench.bench_etalis.make_grid`).
        seed: workload seed; None reads ``CEPLAB_BENCH_SEED``, else :data:`SEED`.

    Returns:
        0 when done; 1 when an oracle and an engine disagree on the outputs; 2 on bad input
        (unknown benchmark or peer, a peer of another benchmark, or both ``quick`` and ``full``).
        Missed speed targets and peer disagreements are reported, not turned into an exit code.
    """
    from rich.console import Console
    err = Console(stderr=True)
    if name is not None and name not in BENCH_NAMES:
        err.print(f"ceplab bench: unknown benchmark {name!r}; known: {', '.join(BENCH_NAMES)}")
        return 2
    if peer is not None and peer not in PEER_NAMES:
        err.print(f"ceplab bench: unknown peer {peer!r}; known: {', '.join(PEER_NAMES)}")
        return 2
    if name is not None and peer is not None and peer not in PEERS_OF[name]:
        err.print(f"ceplab bench: peer {peer!r} does not apply to benchmark {name!r} "
                  f"(its peers: {', '.join(PEERS_OF[name])})")
        return 2
    if full is None:
        full = os.environ.get("CEPLAB_BENCH_FULL", "").strip().lower() in ("1", "true", "yes", "on")
    if quick and full:
        err.print("ceplab bench: choose one of --quick and --full")
        return 2
    if seed is None:
        env_seed = os.environ.get("CEPLAB_BENCH_SEED")
        try:
            seed = int(env_seed) if env_seed else SEED
        except ValueError:
            err.print(f"ceplab bench: CEPLAB_BENCH_SEED must be an integer, got {env_seed!r}")
            return 2
    kind = "quick" if quick else "full" if full else "default"
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
    code = 0
    for nm in ([name] if name is not None else list(BENCH_NAMES)):
        p = peer if peer in PEERS_OF[nm] else None
        if nm == "etalis":
            from ceplab.workbench import bench_etalis as BE
            grid_e = BE.make_grid(kind)
            measure = lambda note: BE.bench_etalis(grid_e, seed, p, note)  # noqa: E731
            show = BE.render
        elif nm == "epsparql":
            from ceplab.workbench import bench_epsparql as BS
            grid_s = BS.make_grid(kind)
            measure = lambda note: BS.bench_epsparql(grid_s, seed, None, note)  # noqa: E731
            show = BS.render
        else:
            grid_c = make_grid(kind)
            measure = lambda note: bench_cel(grid_c, seed, p, note)  # noqa: E731
            show = render
        with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                      console=err, transient=True) as prog:
            task = prog.add_task(f"bench {nm} ({kind} grid)", total=None)
            report = measure(lambda s, nm=nm: prog.update(task, description=f"bench {nm}: {s}"))
        if json_out:
            sys.stdout.write(json.dumps(report, sort_keys=True, default=str) + "\n")
            sys.stdout.flush()
        else:
            out = Console()
            if not out.is_terminal:
                out = Console(width=200)
            show(report, out)
        if report["disagreements"]:
            code = 1
    return code
