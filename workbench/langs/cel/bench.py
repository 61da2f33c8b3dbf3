"""Benchmarks with printed tables (``ceplab bench``; DESIGN.md sections 2 and 4).

``ceplab bench cel`` measures the incremental CEL engine (``ceplab.engine.cel``) on the workload of the
paper's experiments (docs/semantics/cel.md#cel-8), the clingo oracle (``ceplab.asp.cel``) as the stream grows, a
floor (a loop that only reads each event's type) and, optionally, the OpenCEP peer. Everything is
seeded: two runs with the same seed see the same events and count the same outputs (timings differ).

Workload. For each query, events are drawn uniformly at random (``random.Random``, seed
:data:`SEED`, prefix-stable: the stream of length n is the prefix of every longer one) from the
query's k pattern types (A, B, C, D as the query needs) plus the 6 noise types ``N1..N6``; event i
has ``type``, ``time = i`` and ``position = i`` and no attributes. The queries (Table 1 of the paper,
docs/semantics/cel.md#cel-8) are run with strategy ALL and ``WITHIN w`` (``max C - min C <= w`` in positions, docs/semantics/cel.md#cel-G8):

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

Cold and warm: pass 1 and the floor run ``Grid.repeats(n)`` times; *cold* is the first run, *warm* keeps the
fastest run per tenth of the stream (the table shows both side by side; the targets use warm).

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

Floor rows: Q1's streams through the timed loop of pass 1 calling a no-op function per event
(:func:`ceplab.workbench.bench.harness.floor_pass`, the floor of every benchmark: same blocks, same clock);
``x floor`` is warm update time over warm floor time.

Peer (``--peer opencep``): Q1, Q2 and Q4 with ``WITHIN 100`` through
:mod:`ceplab.workbench.langs.cel.peer` (timestamps = positions in seconds, OpenCEP window ``w`` seconds),
on short streams (OpenCEP is slow). Outputs are compared as sets with ours (and OpenCEP duplicates
counted); on a mismatch for a query with ``+`` the run is repeated with the adapter's ``index_fix``
workaround to tell OpenCEP's Kleene identity bug apart from a semantic difference. Our throughput
there is update plus full enumeration (OpenCEP materializes every match), timed with the wall clock
like the adapter times OpenCEP (same clock on both sides, named in the table); each side runs
``Grid.peer_repeats`` times (cold = first, warm = best) and the ratios are ours over OpenCEP's, cold
and warm. Without ``OPENCEP_HOME`` the table says the peer is absent and why.

Targets (reported, never enforced by tests): >= 100,000 events/s update throughput on Q1-Q5 with
w = 100; per-event update time within +-25% as w grows 10 -> 1000 and as the stream grows; memory
bounded by the window, not the stream (retained size at the largest n within +25% of the
smallest; the peak ratio is shown beside it).

The module exports :data:`BENCHMARK` (:class:`ceplab.workbench.bench.Benchmark`); the shared harness
(:mod:`ceplab.workbench.bench`) runs it.
"""
from __future__ import annotations

import gc
import random
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

from ceplab.semantics.events import Event, Stream
from ceplab.workbench.bench import Benchmark
from ceplab.workbench.bench import harness as H
from ceplab.workbench.bench.harness import (CPU_CLOCK, FLOOR_TEXT, SEED, STABILITY, WALL, Timing,
                                            agreement, chunk_stats, fmt, jsonable, ratio, record_oracle,
                                            repeats_for, report_head, timed_chunks, traced)
from ceplab.workbench.bench.harness import floor_pass as harness_floor_pass

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
PEER_QUERIES = ("Q1", "Q2", "Q4")
#: the peers this benchmark can run beside ceplab (``--peer``)
PEERS = ("opencep",)


# ----------------------------------------------------------------------------- grid
@dataclass(frozen=True)
class Grid:
    """What one benchmark run measures.

    Attributes:
        name: ``quick``, ``default`` or ``full``.
        cells: the (query, n, w) rows.
        oracle_cases, oracle_ns: the oracle rows, (query name, window) x stream lengths.
        oracle_seconds: time limit of one oracle call.
        peer_w: window of the peer rows; peer_ns: stream length per peer query; peer_repeats: runs of
            each side of a peer row (cold = first, warm = best).
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
    peer_repeats: int = 3
    enum_cap: int = 300_000
    repeat_events: int = 400_000

    def repeats(self, n: int) -> int:
        """Timed repeats of a pass over ``n`` events (:func:`ceplab.workbench.bench.harness.repeats_for`)."""
        return repeats_for(n, self.repeat_events)


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
                    peer_w=20, peer_ns={"Q1": 60, "Q2": 60, "Q4": 30}, peer_repeats=2, enum_cap=2_000,
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


def fold_update_passes(passes: list, n: int) -> dict:
    """The update-pass record from repeated :func:`_timed_update_pass` results on the same ``n`` events
    (:func:`chunk_stats`)."""
    c = chunk_stats([p[0] for p in passes], n)
    _times, path, separated, _warm = passes[-1]
    return {"update_seconds": c["seconds"], "update_eps": c["eps"], "update_us": c["us"],
            "cold_update_seconds": c["cold_seconds"], "cold_update_eps": c["cold_eps"],
            "cold_update_us": c["cold_us"], "clock": c["clock"], "chunk_us": c["chunk_us"], "steady_us": c["steady_us"], "drift": c["drift"], "path": path,
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
    """Pass 3: tracemalloc peak/live/retained KiB (:func:`ceplab.workbench.bench.harness.traced`) of building the
    evaluator and updating it on the events of types ``ts`` (built before tracing starts, so not counted);
    ``engine_stats`` is the evaluator's ``stats()`` after the last event (None without one)."""
    evs = make_events(ts)

    def go() -> "_Runner":
        r = _Runner(factory)
        upd = r.update
        for e in evs:
            upd(e)
        return r

    r, mem = traced(go)
    st = getattr(r.evaluator, "stats", None)
    return {**mem, "engine_stats": jsonable(st()) if callable(st) else None}


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
    """The floor row for the events of types ``ts``: :func:`ceplab.workbench.bench.harness.floor_pass` over the
    same fresh blocks as pass 1 (:func:`blocks`), ``repeats`` times (cold = first, warm = best per tenth)."""
    return harness_floor_pass(len(ts), lambda lo, hi: blocks(ts, lo, hi), repeats)


# ----------------------------------------------------------------------------- oracle
def oracle_pass(grid: Grid, seed: int) -> list[dict]:
    """Oracle rows: ``ceplab.asp.cel.oracle`` on each of ``grid.oracle_cases`` at each length."""
    from ceplab.asp import cel as asp_cel
    from ceplab.asp.oracle import Limits
    from ceplab.semantics.cel.options import Options
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
        if results is not None:
            eng, _ = outputs_of(engine_factory(qn, w), evs)
            row.update(agreement(eng, results, "engine_outputs"))
        rows.append(row)
    return rows


# ----------------------------------------------------------------------------- peer
def peer_pass(grid: Grid, peer: str, seed: int) -> dict:
    """Peer rows (OpenCEP, :mod:`ceplab.workbench.langs.cel.peer`): output sets compared with ours, and rates.

    Both sides are timed with the same clock, wall time (:data:`~ceplab.workbench.bench.harness.WALL`): the
    adapter times ``CEP.run`` with ``time.perf_counter``; ours is update plus full enumeration on the same
    events (OpenCEP materializes every match), timed the same way.  Each side runs ``grid.peer_repeats``
    times: cold = the first run, warm = the best; ``ratio`` (warm) and ``cold_ratio`` are ours over theirs.

    Returns:
        ``{"peer": peer, "rows": [...]}``, or ``{"peer": peer, "absent": sentence}`` naming what is missing
        (e.g. ``OPENCEP_HOME``) when the peer cannot run.
    """
    from ceplab.workbench.langs.cel import peer as opencep
    reason = opencep.unavailable_reason()
    if reason is not None:
        return {"peer": peer, "absent": reason}
    rows = []
    reps = max(1, grid.peer_repeats)
    for qn in PEER_QUERIES:
        n = grid.peer_ns[qn]
        evs = workload(qn, n, seed)
        q = parse_query(qn, grid.peer_w)
        fac = engine_factory(qn, grid.peer_w)
        our_runs = [outputs_of(fac, evs) for _ in range(reps)]
        ours = our_runs[0][0]
        try:
            peer_runs = [opencep.run(q, evs) for _ in range(reps)]
        except Exception as e:  # a failure inside the peer is reported, not fatal
            rows.append({"query": qn, "n": n, "w": grid.peer_w, "error": f"{type(e).__name__}: {e}"})
            continue
        res = peer_runs[0]
        mine = Timing.of_runs(WALL, [t for _o, t in our_runs], n)
        theirs = Timing.of_runs(WALL, [r.seconds for r in peer_runs], n)
        row: dict[str, Any] = {"query": qn, "n": n, "w": grid.peer_w, "runs": reps, "our_outputs": len(set(ours)),
                               "peer_outputs": len(res.results), "peer_distinct": len(set(res.results)),
                               **mine.to_json("our"), **theirs.to_json("peer"),
                               "ratio": ratio(mine, theirs), "cold_ratio": ratio(mine, theirs, "cold")}
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

    Args:
        grid: from :func:`make_grid`.
        seed: workload seed.
        peer: None or ``"opencep"`` (:data:`PEERS`).
        progress: called with a short text before each step.

    Keys: ``bench``, ``grid``, ``seed``, ``python``, ``machine``, ``workload``, ``memory_method``, ``rows`` (one
    record per (query, n, w); update figures warm = ``update_*``, cold = ``cold_update_*``, clock ``clock``),
    ``floor`` (one per n, :func:`floor_pass`), ``oracle``, ``peer`` (only with ``peer``), ``targets``,
    ``disagreements``.
    """
    note = progress or (lambda s: None)
    report: dict[str, Any] = {
        **report_head("cel", grid.name, seed),
        "workload": {"noise_types": list(NOISE), "queries": {q: t for q, (t, _) in QUERIES.items()},
                     "window": "WITHIN w: max C - min C <= w (positions)"},
        "memory_method": ("tracemalloc, while the evaluator is built and updated on the whole stream "
                          "(events allocated beforehand): peak, and kept = live after the last event "
                          "and a full garbage collection"),
        "enum_cap": grid.enum_cap,
    }
    rows = []
    passes: dict[int, list] = {}
    # Update passes in rounds over the whole grid (round r runs every cell that wants > r repeats), so a
    # burst of load on the machine hits one repeat of several cells rather than every repeat of one cell;
    # each tenth keeps its fastest repeat (warm), round 0 is the cold run.  Enumeration and memory passes
    # follow, after every update pass.
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
    report["oracle"] = oracle_pass(grid, seed)
    if peer is not None:
        note(f"peer {peer}")
        report["peer"] = peer_pass(grid, peer, seed)
    report["targets"] = targets(report["rows"])
    dis = []
    for o in report["oracle"]:
        if o.get("agree") is False:
            dis.append(f"oracle and engine disagree on {o['query']} n={o['n']} w={o['w']}: "
                       f"{o['outputs']} vs {o['engine_outputs']} outputs")
    report["disagreements"] = dis
    return report


def render(report: dict, console: Any) -> None:
    """Print the report (:func:`bench_cel`'s) as rich tables on the rich ``Console`` ``console``."""
    from rich.table import Table
    console.print(f"[bold]ceplab bench cel[/bold]  grid={report['grid']}  seed={report['seed']}  "
                  f"{report['python']}  {report['machine']}")
    rows = report["rows"]
    sep = all(r.get("separated", True) for r in rows)
    t = Table(title="CEL engine: update throughput (CPU time of the feeding thread), enumeration, memory"
              + ("" if sep else "  (evaluator has no update/enumerate: update includes enumeration)"))
    for col in ("query", "n", "w", "cold ev/s", "warm ev/s", "cold µs/ev", "warm µs/ev", "steady µs", "x floor",
                "drift", "outputs", "enum out/s (wall)", "peak KiB", "kept KiB", "path"):
        t.add_column(col, justify="left" if col in ("query", "path") else "right", no_wrap=True)
    for r in rows:
        outs = fmt(r["outputs"], "int")
        if r["outputs_capped"]:
            outs = f">={outs} (first {r['outputs_events']:,} ev)"
        t.add_row(r["query"], fmt(r["n"], "int"), fmt(r["w"], "int"), fmt(r.get("cold_update_eps"), "eps"),
                  fmt(r["update_eps"], "eps"), fmt(r.get("cold_update_us"), "us"), fmt(r["update_us"], "us"),
                  fmt(r["steady_us"], "us"), fmt(r.get("x_floor"), "ratio"), fmt(r["drift"], "ratio"), outs,
                  fmt(r["enum_ops"], "eps"), fmt(r["peak_kib"], "kib"), fmt(r["retained_kib"], "kib"), r["path"])
    for f in report["floor"]:
        t.add_row("floor", fmt(f["n"], "int"), "-", fmt(f["cold_eps"], "eps"), fmt(f["eps"], "eps"),
                  fmt(f["cold_us"], "us"), fmt(f["us"], "us"), "", "1.00", "", "", "", "", "",
                  f"{FLOOR_TEXT} ({f['events']} events)")
    console.print(t)
    console.print(f"cold: the first timed run; warm: the fastest run per tenth of the stream, summed. "
                  f"memory: {report['memory_method']}. steady: median per-event update time over tenths "
                  "2-10 of the stream; drift: last half of the stream over tenths 2-5. Update times are "
                  f"measured after a warm-up of {WARMUP:,} events of the same alphabet (one-time "
                  "determinization and code generation; its CPU time is the JSON field warmup_seconds).",
                  markup=False, highlight=False)
    ot = Table(title="Oracle (ceplab.asp.cel) as the stream grows (wall time of one run each)")
    for col in ("query", "n", "w", "status", "seconds", "outputs", "engine outputs", "agree"):
        ot.add_column(col, justify="right" if col not in ("query", "status") else "left")
    for o in report["oracle"]:
        status = o["status"] if o["status"] == "decided" else f"UNDECIDED ({o.get('reason', '')})"
        ot.add_row(o["query"], fmt(o["n"], "int"), fmt(o["w"], "int"), status, f"{o['seconds']:.2f}",
                   fmt(o.get("outputs"), "int"), fmt(o.get("engine_outputs"), "int"),
                   "-" if "agree" not in o else ("yes" if o["agree"] else "NO"))
    console.print(ot)
    if "peer" in report:
        p = report["peer"]
        if "absent" in p:
            console.print(f"Peer {p['peer']}: absent, not run: {p['absent']}", markup=False, highlight=False)
        else:
            pt = Table(title=f"Peer {p['peer']}: same events, same window (timestamps = positions, window w s); "
                             "both sides in wall time, update + full enumeration")
            for col in ("query", "n", "w", "our outputs", "peer outputs", "agree", "our cold ev/s (wall)",
                        "our warm ev/s (wall)", "peer cold ev/s (wall)", "peer warm ev/s (wall)",
                        "ratio ours/peer cold", "ratio ours/peer warm"):
                pt.add_column(col, justify="left" if col == "query" else "right")
            for r in p["rows"]:
                if "error" in r:
                    pt.add_row(r["query"], fmt(r["n"], "int"), fmt(r["w"], "int"), "", "",
                               f"peer failed: {r['error']}", "", "", "", "", "", "")
                    continue
                agree = "yes" if r["agree"] else f"NO (-{r['missing_in_peer']} +{r['extra_in_peer']})"
                if "agree_with_index_fix" in r:
                    agree += f"; with index_fix: {'yes' if r['agree_with_index_fix'] else 'NO'}"
                peer_out = fmt(r["peer_outputs"], "int")
                if r["peer_distinct"] != r["peer_outputs"]:
                    peer_out += f" ({r['peer_distinct']:,} distinct)"
                pt.add_row(r["query"], fmt(r["n"], "int"), fmt(r["w"], "int"), fmt(r["our_outputs"], "int"),
                           peer_out, agree, fmt(r["our_cold_eps"], "eps"), fmt(r["our_warm_eps"], "eps"),
                           fmt(r["peer_cold_eps"], "eps"), fmt(r["peer_warm_eps"], "eps"),
                           fmt(r["cold_ratio"], "ratio"), fmt(r["ratio"], "ratio"))
            console.print(pt)
    if report["targets"]:
        tt = Table(title="Targets (warm figures)")
        for col in ("target", "query", "where", "value", "ok", "detail"):
            tt.add_column(col, justify="right" if col == "value" else "left")
        for x in report["targets"]:
            val = fmt(x["value"], "eps") if x["target"].startswith("throughput") else fmt(x["value"], "ratio")
            tt.add_row(x["target"], x["query"], x["where"], val, "yes" if x["ok"] else "[red]NO[/red]",
                       x.get("detail", ""))
        console.print(tt)
    H.render_footer(report, console, counted="output")


def _measure(grid: Grid, seed: int, peer: str | None, note: Callable[[str], None]) -> dict:
    return bench_cel(grid, seed, peer, note)


#: the CEL benchmark, for ``ceplab bench cel``
BENCHMARK = Benchmark(name="cel", peers=PEERS, make_grid=make_grid, measure=_measure, render=render)
