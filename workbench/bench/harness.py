"""The shared benchmark harness: clocks, repeats, chunk statistics, the floor, memory tracing, oracle
bookkeeping, same-clock ratios, number formatting and the output console.

Nothing here knows a language: the language modules (``ceplab.workbench.langs.<lang>.bench``) bring the
workloads, the engines and the tables, and call these functions.

Clocks (:class:`Timing` names the one it used):

* ``cpu``: :data:`CPU_CLOCK` (``time.thread_time``), CPU seconds of the benchmarking thread, read once per
  block of events, its own cost subtracted.  On an idle machine it equals wall time; on a shared one it is
  not inflated by other processes taking the cores.
* ``wall``: :data:`WALL_CLOCK` (``time.perf_counter``), elapsed seconds.

A ratio between two timings (:func:`ratio`) is only defined when both use the same clock; mixing clocks
raises ``ValueError``.

Cold and warm.  A timed pass is repeated on fresh evaluators over the same events; *cold* is the first
repeat (the first time this process runs that code on that workload), *warm* keeps, for each tenth of the
stream, the fastest repeat, and sums them (robust to bursts of load on the machine).
"""
from __future__ import annotations

import dataclasses
import gc
import math
import os
import platform
import statistics
import time
import tracemalloc
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable, Iterable, Sequence

#: the default workload seed of every benchmark (``--seed`` / ``CEPLAB_BENCH_SEED`` override it)
SEED = 20170915
#: a timed pass is cut in this many tenths of the stream
CHUNKS = 10
#: the +-25% of the stability targets
STABILITY = 0.25
CPU_CLOCK = time.thread_time
WALL_CLOCK = time.perf_counter
#: clock names, as stored in the reports and printed in the tables
CPU = "cpu"
WALL = "wall"
CLOCK_TEXT = {CPU: "CPU time of the feeding thread", WALL: "wall time"}
#: width of the output console when stdout is not a terminal: tables and lines are never cut or wrapped
PIPE_WIDTH = 100_000


# ----------------------------------------------------------------------------- clocks and timings
@lru_cache(maxsize=1)
def cpu_clock_cost() -> float:
    """Seconds one reading of :data:`CPU_CLOCK` adds to a measured interval (a system call); the minimum of
    200 back-to-back readings."""
    c = CPU_CLOCK
    best = float("inf")
    for _ in range(200):
        t0 = c()
        best = min(best, c() - t0)
    return best


@dataclass(frozen=True)
class Timing:
    """How long something took on ``events`` events, with one clock.

    Attributes:
        clock: :data:`CPU` or :data:`WALL`.
        cold: seconds of the first run.
        warm: seconds of the best run (for chunked passes: the sum of the fastest repeat per tenth).
        events: events processed per run (> 0 for a rate).
    """

    clock: str
    cold: float
    warm: float
    events: int

    @property
    def cold_eps(self) -> float | None:
        """Events per second of the first run (None when it took no measurable time)."""
        return self.events / self.cold if self.cold > 0 else None

    @property
    def warm_eps(self) -> float | None:
        """Events per second of the best run (None when it took no measurable time)."""
        return self.events / self.warm if self.warm > 0 else None

    @staticmethod
    def of_runs(clock: str, seconds: Sequence[float], events: int) -> "Timing":
        """The timing of repeated runs: cold = ``seconds[0]``, warm = ``min(seconds)``.

        Raises:
            ValueError: ``seconds`` is empty or ``clock`` is not :data:`CPU` / :data:`WALL`.
        """
        if not seconds:
            raise ValueError("a timing needs at least one run")
        if clock not in CLOCK_TEXT:
            raise ValueError(f"unknown clock {clock!r}; known: {', '.join(CLOCK_TEXT)}")
        return Timing(clock, float(seconds[0]), float(min(seconds)), events)

    def to_json(self, prefix: str) -> dict:
        """``{prefix}_clock``, ``{prefix}_cold_eps``, ``{prefix}_warm_eps`` (events/s; None when unmeasurable)."""
        return {f"{prefix}_clock": self.clock, f"{prefix}_cold_eps": self.cold_eps,
                f"{prefix}_warm_eps": self.warm_eps}


def ratio(ours: Timing, theirs: Timing, which: str = "warm") -> float | None:
    """Our rate over theirs (> 1: we are faster), ``which`` = ``"warm"`` or ``"cold"`` figures.

    Returns None when either rate is unmeasurable.

    Raises:
        ValueError: the two timings use different clocks (a ratio of CPU time to wall time means nothing),
            or ``which`` is neither ``"warm"`` nor ``"cold"``.
    """
    if ours.clock != theirs.clock:
        raise ValueError(f"cannot compare a {ours.clock} timing with a {theirs.clock} timing")
    if which not in ("warm", "cold"):
        raise ValueError(f"which must be 'warm' or 'cold', got {which!r}")
    a = getattr(ours, f"{which}_eps")
    b = getattr(theirs, f"{which}_eps")
    return a / b if a and b else None


def timed_chunks(feed: Callable[[Any], Any], n: int,
                 chunk_blocks: Callable[[int, int], Iterable[Sequence[Any]]]) -> list[float]:
    """CPU seconds (:data:`CPU_CLOCK`) spent in ``feed`` per tenth (:data:`CHUNKS`) of a stream of ``n`` events.

    Args:
        feed: called once per event (an evaluator's ``update`` or ``push``).
        n: the stream length (>= 0).
        chunk_blocks: ``chunk_blocks(lo, hi)`` yields the events ``lo..hi-1`` in freshly built blocks (the
            building is not timed).

    Returns:
        ``CHUNKS`` CPU times in seconds, the clock's own cost subtracted per block.
    """
    bounds = [n * i // CHUNKS for i in range(CHUNKS + 1)]
    times = []
    gc.collect()
    clock, cost = CPU_CLOCK, cpu_clock_cost()
    for i in range(CHUNKS):
        spent = 0.0
        for blk in chunk_blocks(bounds[i], bounds[i + 1]):
            t0 = clock()
            for e in blk:
                feed(e)
            spent += max(0.0, clock() - t0 - cost)
        times.append(spent)
    return times


def chunk_stats(repeats: list[list[float]], n: int) -> dict:
    """Figures from repeated :func:`timed_chunks` results on the same ``n`` events (CPU seconds per tenth).

    Warm: each tenth keeps its fastest repeat and the total is their sum.  Cold: the first repeat's total.

    Returns:
        ``seconds`` (warm total, s), ``eps`` (warm events/s), ``us`` (warm µs/event), ``cold_seconds``,
        ``cold_eps``, ``cold_us`` (the same for the first repeat), ``chunk_us`` (warm µs/event per tenth),
        ``steady_us`` (median of tenths 2-10, µs/event), ``drift`` (median of the last five tenths over the
        median of tenths 2-5; None when undefined), ``clock`` (:data:`CPU`), ``repeats``.

    Raises:
        ValueError: no repeats.
    """
    if not repeats:
        raise ValueError("chunk_stats needs at least one repeat")
    best = [min(ts) for ts in zip(*repeats)]
    total = sum(best)
    cold = sum(repeats[0])
    per = [t / max(1, n // CHUNKS) for t in best]
    early, late = per[1:5], per[5:]
    drift = None
    if early and late and statistics.median(early) > 0:
        drift = statistics.median(late) / statistics.median(early)
    return {"seconds": total, "eps": n / total if total > 0 else None, "us": total / n * 1e6 if n else None,
            "cold_seconds": cold, "cold_eps": n / cold if cold > 0 else None,
            "cold_us": cold / n * 1e6 if n else None,
            "chunk_us": [p * 1e6 for p in per],
            "steady_us": statistics.median(per[1:]) * 1e6 if len(per) > 1 else None, "drift": drift,
            "clock": CPU, "repeats": len(repeats)}


def _floor_feed(e: Any) -> None:
    """The floor's per-event work: a Python call that does nothing."""
    return None


def floor_pass(n: int, chunk_blocks: Callable[[int, int], Iterable[Sequence[Any]]], repeats: int) -> dict:
    """The floor: the timed pass's own loop (:func:`timed_chunks`, same blocks, same clock) calling a function
    that does nothing, instead of the engine.  What an engine adds over it is the engine's cost.

    Args:
        n: stream length.
        chunk_blocks: as :func:`timed_chunks` (the language's fresh-event builder).
        repeats: timed repeats (>= 1); cold is the first, warm the best per tenth.

    Returns:
        ``n``, ``clock``, and :func:`chunk_stats`'s ``seconds``, ``eps``, ``us``, ``cold_seconds``,
        ``cold_eps``, ``cold_us``.
    """
    runs = [timed_chunks(_floor_feed, n, chunk_blocks) for _ in range(max(1, repeats))]
    c = chunk_stats(runs, n)
    return {"n": n, "clock": c["clock"], **{k: c[k] for k in ("seconds", "eps", "us", "cold_seconds", "cold_eps",
                                                               "cold_us")}}


#: what the floor row says it is, in every table that shows one
FLOOR_TEXT = "floor: the timed loop calling a no-op function per event (same blocks, same clock)"


def repeats_for(n: int, repeat_events: int) -> int:
    """How many times a pass over ``n`` events is repeated: ``max(2, min(5, repeat_events // n))``."""
    return max(2, min(5, repeat_events // max(n, 1)))


# ----------------------------------------------------------------------------- engines, memory, oracles
def engine_results(factory: Callable[[], Any], stream: Sequence[Any]) -> list:
    """All results of a fresh evaluator ``factory()``: ``push(e)`` on every event, then ``close()``."""
    ev = factory()
    out: list = []
    for e in stream:
        out.extend(ev.push(e))
    out.extend(ev.close())
    return out


def traced(run: Callable[[], Any]) -> tuple[Any, dict]:
    """Run ``run()`` under ``tracemalloc``; returns its value and ``peak_kib``, ``live_kib`` (when it returns)
    and ``retained_kib`` (after a full garbage collection), in KiB over what was traced before it started."""
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        value = run()
        cur, peak = tracemalloc.get_traced_memory()
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    return value, {"peak_kib": (peak - base) / 1024, "live_kib": (cur - base) / 1024,
                   "retained_kib": (kept - base) / 1024}


def traced_goal_run(factory: Callable[[], Any], feed: Callable[[Any], tuple[int, int]]) -> dict:
    """The memory pass of a goal-store engine: build ``factory()`` and run ``feed(ev)`` (which feeds the whole
    stream and returns ``(results before close, largest sampled "stored")``), then ``close()``, under
    :func:`traced`.  Returns ``results``, ``stored`` (at the end), ``stored_max``, ``peak_kib``, ``live_kib``
    (after close), ``retained_kib`` and ``engine_stats`` (the evaluator's ``stats()``)."""
    def go() -> tuple[Any, int, int]:
        ev = factory()
        results, stored_max = feed(ev)
        results += len(ev.close())
        return ev, results, stored_max

    (ev, results, stored_max), mem = traced(go)
    st = ev.stats()
    return {"results": results, "stored": st.get("stored"), "stored_max": max(stored_max, st.get("stored") or 0),
            **mem, "engine_stats": jsonable(st)}


def record_oracle(row: dict, res: Any, count_key: str = "results") -> Any:
    """Record an oracle answer in a benchmark row and return its results (None when undecided).

    Sets ``stats`` (with ``ground_rules`` and ``atoms`` when the statistics have them) and ``status``; then
    ``reason`` (undecided) or ``row[count_key]``, the number of results."""
    st = getattr(res, "stats", None)
    if st is not None:
        row["stats"] = jsonable(st.to_json() if hasattr(st, "to_json") else st)
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


def jsonable(x: Any) -> Any:
    """``x`` as plain JSON data: dataclasses and dicts as objects (keys as strings), sequences and sets as
    lists, non-finite floats as None, anything else unknown as ``str``."""
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return {k: jsonable(v) for k, v in dataclasses.asdict(x).items()}
    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple, set, frozenset)):
        return [jsonable(v) for v in x]
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, (int, str, bool)) or x is None:
        return x
    return str(x)


def report_head(name: str, grid: str, seed: int) -> dict:
    """The first keys of every report: ``bench``, ``grid``, ``seed``, ``python``, ``machine``."""
    return {"bench": name, "grid": grid, "seed": seed,
            "python": f"{platform.python_implementation()} {platform.python_version()}",
            "machine": f"{platform.machine()} {os.cpu_count()} cpu"}


# ----------------------------------------------------------------------------- printing
def fmt(x: Any, kind: str = "") -> str:
    """A table cell: ``-`` for None; ``int`` and ``eps``/``kib`` with thousands separators, ``us`` with three
    decimals, ``ratio`` with two; anything else ``str``."""
    if x is None:
        return "-"
    if kind == "int":
        return f"{int(x):,}"
    if kind in ("eps", "kib"):
        return f"{x:,.0f}"
    if kind == "us":
        return f"{x:.3f}"
    if kind == "ratio":
        return f"{x:.2f}"
    return str(x)


def render_targets(report: dict, console: Any) -> None:
    """The targets table of a report whose ``targets`` rows carry ``target, case, where, value, kind, ok,
    detail`` (``ok`` None = informational), on warm figures; nothing when there are none."""
    from rich.table import Table

    if not report["targets"]:
        return
    tt = Table(title="Targets (reported, not enforced; warm figures)")
    for col in ("target", "case", "where", "value", "verdict", "detail"):
        tt.add_column(col, justify="right" if col == "value" else "left")
    for x in report["targets"]:
        verdict = "info" if x["ok"] is None else ("PASS" if x["ok"] else "[red]MISS[/red]")
        tt.add_row(x["target"], x["case"], x["where"], fmt(x["value"], x["kind"]), verdict, x.get("detail", ""))
    console.print(tt)


def render_footer(report: dict, console: Any, counted: str = "result") -> None:
    """The lines every benchmark table ends with: what a quick grid means, then each disagreement of
    the engine with the oracle (``counted``: what the quick grid still checks the counts of)."""
    if report["grid"] == "quick":
        console.print("quick grid: streams too short for the timings and targets to mean anything; "
                      f"it checks the plumbing and the {counted} counts.")
    for d in report["disagreements"]:
        console.print(f"[red]DISAGREEMENT[/red] {d}")


def output_console(file: Any = None) -> Any:
    """The console tables are printed on: the terminal's width on a terminal; otherwise (a pipe or a file)
    :data:`PIPE_WIDTH` columns, so that no row is cut or wrapped.  ``file`` defaults to stdout."""
    from rich.console import Console
    con = Console(file=file)
    if con.is_terminal:
        return con
    return Console(file=file, width=PIPE_WIDTH, no_color=True, highlight=False)
