"""``ceplab check``: one long stream, the incremental engine against the segmented oracle.

The engine runs over the whole stream in order, once, as it would in production (its window expiry,
garbage collection and consumption over time are what a long stream exercises).  The oracle answers the same
stream segment by segment (:mod:`ceplab.workbench.segments`: segments overlapping by the query's span, each
result kept by the one segment that owns its anchor); the segments are solved here, one after the other, or
on Spark executors with the DataFrame API (``mapInPandas``, one row per segment), so the same code runs on a
local master, a cluster and Spark Connect.

**Bounded memory.** A stream in a dataset written by ``ceplab generate``
(:class:`ceplab.workbench.generate.DatasetStream`) is never loaded whole: one pass reads it piece by piece (one
Parquet record batch at a time) for the query's locality and the segment plan (the driver keeps one int64
coordinate per event), the engine reads it piece by piece again, and each segment's events are read from the
Parquet files by whoever solves the segment (an executor reads its own; nothing is shipped from the driver).
What grows with the stream is the coordinates and the results (both sides' result sets and the engine's
emission positions).  A stream in memory (a stream file) is shipped to executors as JSON slices.

**Emission positions** (the emission contract of :func:`ceplab.workbench.compare.position_problems`: a result is
emitted once, where it is determined) are computed per segment too: whoever solves a segment also computes, on
the segment's events plus the next event, where each result it keeps must be emitted
(``Language.result_positions``); a result's determining event is at most one event past its segment's last
(the language's locality claim bounds everything that decides a result), so no whole stream is needed.

A result that only one side has is a disagreement, and so is a result emitted twice or not where it is
determined.  Each disagreeing segment is cut out (its events alone) and checked again with
:func:`ceplab.workbench.compare.compare`; when the disagreement shows there too, the segment is a reproducer,
shrunk like a fuzz campaign's (:func:`ceplab.workbench.spark.write_reproducer`) when an output folder is given.

A query the language does not declare local (``Language.locality``) cannot be checked this way; a segment
the oracle leaves undecided makes the whole check undecided (never an agreement).  This module names no
language.
"""
from __future__ import annotations

import json
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ceplab.workbench.segments import Locality, Segment, combine, coordinates, plan, solve_slice


@dataclass
class CheckReport:
    """The outcome of :func:`check`.

    Attributes:
        verdict: ``agree``, ``disagree`` or ``undecided``.
        events: stream length; segments: per segment row (:func:`ceplab.workbench.segments.solve_slice`).
        span, unit, lookahead: the query's locality (:class:`~ceplab.workbench.segments.Locality`): a segment
            holds the events up to ``span`` before its owned range and up to ``lookahead`` after it.
        engine_count, oracle_count: result counts (oracle None when undecided).
        oracle_only, engine_only: the disagreeing results.
        problems: emissions of results both sides have that break the emission contract (emitted twice, or
            not where the result is determined: :func:`ceplab.workbench.compare.position_problems`).
        undecided: the reason, when a segment was undecided.
        engine_seconds, oracle_seconds: wall seconds of the engine run and of the segmented oracle (with Spark
            the two overlap; the oracle's includes the session's start when :func:`check` got a factory).
        where: Spark master / remote, or ``"in process"``.
        cut: per disagreeing segment (at most :data:`MAX_CUTS`): ``{"segment", "first", "stop", "oracle_only",
            "engine_only", "reproduced", "reproducer"}``; ``reproduced`` tells whether the segment alone shows a
            disagreement; ``reproducer`` is the path of its shrunk reproducer (with ``out``).
    """

    verdict: str
    events: int
    span: int
    unit: str
    engine_count: int
    oracle_count: int | None
    oracle_only: list = field(default_factory=list)
    engine_only: list = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    undecided: str | None = None
    engine_seconds: float = 0.0
    oracle_seconds: float = 0.0
    where: str = "in process"
    segments: list[dict] = field(default_factory=list)
    cut: list[dict] = field(default_factory=list)
    lookahead: int = 0

    def solve_span(self) -> float | None:
        """Wall seconds from the first segment's start to the last one's end (the oracle's parallel phase, without
        the session's and the workers' start-up); None without segment timings."""
        rows = [r for r in self.segments if r.get("started") is not None and r.get("ended") is not None]
        if not rows:
            return None
        return max(r["ended"] for r in rows) - min(r["started"] for r in rows)

    def workers(self) -> int:
        """How many processes solved segments."""
        return len({r.get("worker") for r in self.segments if r.get("worker") is not None})


#: disagreeing segments cut out and re-checked (and shrunk) per check
MAX_CUTS = 3

#: Spark tasks per core of the session for the segments (each task a contiguous range of segments)
TASKS_PER_CORE = 2


class NotLocal(ValueError):
    """The query is not local under these switches (``Language.locality`` gives None)."""


class SparkUnavailable(RuntimeError):
    """The Spark session :func:`check` was to start could not start (its ``RuntimeError``, e.g. no Java)."""


class MemoryStream:
    """A stream in memory with the reading interface of :class:`ceplab.workbench.generate.DatasetStream`
    (what :func:`check` reads a stream through).

    Args:
        lang: the language; stream: its stream (events in order, positions ``0 .. n-1``).
    """

    def __init__(self, lang: Any, stream: Any) -> None:
        self.lang, self.stream = lang, stream
        self._json: list[dict] | None = None

    def __len__(self) -> int:
        return len(self.stream)

    def __iter__(self) -> Any:
        return iter(self.stream)

    def pieces(self) -> Any:
        """One piece: ``(0, stream)``."""
        yield 0, self.stream

    def items(self, first: int, stop: int) -> list[dict]:
        """The JSON objects of the events at positions ``first .. stop-1``."""
        if self._json is None:
            self._json = self.lang.stream_to_json(self.stream)
        return self._json[first:stop]

    def slice(self, first: int, stop: int) -> Any:
        """The events at positions ``first .. stop-1`` as a stream of their own (``Language.drop_events``)."""
        n = len(self.stream)
        if first == 0 and stop >= n:
            return self.stream
        return self.lang.drop_events(self.stream, [*range(first), *range(stop, n)])

    def descriptor(self) -> None:
        """None: executors get the segments' events as JSON."""
        return None


def _source(lang: Any, stream: Any) -> Any:
    return stream if hasattr(stream, "pieces") and hasattr(stream, "slice") else MemoryStream(lang, stream)


def locate(lang: Any, query: Any, options: Any, source: Any) -> tuple[Locality | None, Any]:
    """The query's locality on the stream and the events' coordinates (int64 numpy array), reading the stream
    once, piece by piece (:func:`ceplab.workbench.segments.combine`); ``(None, None)`` when it is not local."""
    import numpy as np

    locs, parts = [], []
    for at, piece in source.pieces():
        loc = lang.locality(query, options, piece) if lang.locality is not None else None
        if loc is None:
            return None, None
        locs.append(loc)
        parts.append(coordinates(lang, piece, loc, at))
    if not locs:                       # an empty stream: the claim on no events
        loc = lang.locality(query, options, source.slice(0, 0)) if lang.locality is not None else None
        return loc, np.zeros(0, dtype=np.int64)
    loc = combine(locs)
    return loc, (np.concatenate(parts) if loc is not None else None)


def check(lang: Any, query: Any, query_text: str, stream: Any, options: Any, *, size: int, limits: Any,
          engine_limits: Any = None, spark: Any = None, where: str = "in process", out: Path | None = None,
          shrink_s: float = 30.0, fault: str | None = None,
          note: Callable[[str], None] = lambda s: None) -> CheckReport:
    """Check the engine against the segmented oracle on one stream (module docstring).

    Args:
        lang: the :class:`ceplab.workbench.language.Language`.
        query, query_text: the parsed query and its text (the text is what executors and reproducers get).
        stream: the stream (ordered as the language orders streams), or a
            :class:`ceplab.workbench.generate.DatasetStream` (read piece by piece, never whole).
        options: the switches.
        size: owned events per segment.
        limits: the oracle's limits per segment; engine_limits: the engine's (None: no limit).
        spark: a Spark session to solve the segments on, or a zero-argument callable that starts one (None: in
            this process).  With Spark the oracle job runs in a background thread while the engine runs here,
            and a callable is called there, so the session starts while the stream is planned and the engine
            runs.  where: its name for the report.
        out: a folder for the reproducers of disagreeing segments (None: none written).
        shrink_s: shrinking budget per reproducer (seconds).
        fault: an engine fault to inject (:data:`ceplab.workbench.spark.FAULTS`; tests of the check itself).
        note: progress callback.

    Returns:
        A :class:`CheckReport`.

    Raises:
        NotLocal: the query is not local.
        SparkUnavailable: ``spark`` is a factory and the session did not start.
        EngineLimitExceeded: the engine overran ``engine_limits``.
        InputError: the engine or the oracle refuses the query; StreamError: a piece of a dataset is malformed.
    """
    from ceplab.workbench.compare import run_engine
    from ceplab.workbench.spark import faulty_language

    lang = faulty_language(lang, fault)
    source = _source(lang, stream)
    pool = started = session = None
    if spark is not None:      # the session starts while the stream is planned
        pool, started = ThreadPoolExecutor(max_workers=1), []
        session = pool.submit(_start, spark, started, lang.name, query_text)
    try:
        note(f"planning {len(source):,} events")
        loc, coords = locate(lang, query, options, source)
        if loc is None:
            raise NotLocal(f"the {lang.name} plugin does not declare this query local under these switches, so its "
                           f"stream cannot be checked segment by segment")
        segs = plan(coords, loc, size)
        del coords
        n = len(source)
        t0 = time.perf_counter()
        if pool is None:
            note(f"engine over {n:,} events")
            emissions, engine_s, _path = run_engine(lang, query, source, options, engine_limits)
            note(f"oracle on {len(segs)} segment(s)")
            t0 = time.perf_counter()
            solved = []
            for s in segs:
                stop = min(s.stop + 1, n)
                solved.append(solve_slice(lang, query, source.slice(s.first, stop), options, limits, loc, s,
                                          final=stop == n, positions=True))
        else:
            note(f"engine over {n:,} events; oracle on {len(segs)} segment(s) on Spark")
            fut = pool.submit(lambda: solve_on_spark(session.result(), lang, query_text, source, options, limits,
                                                     segs))
            try:
                emissions, engine_s, _path = run_engine(lang, query, source, options, engine_limits)
                note(f"oracle on {len(segs)} segment(s) on Spark")
                solved = fut.result()
            except BaseException:
                _cancel(fut, started)
                raise
    finally:
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
    engine = frozenset(r for r, _ in emissions)
    oracle_s = time.perf_counter() - t0
    rows = [row for _, _, _, row in solved]
    why = next((w for _, _, w, _ in solved if w is not None), None)
    base = dict(events=n, span=loc.span, lookahead=loc.lookahead, unit=loc.unit, engine_count=len(engine),
                engine_seconds=engine_s, oracle_seconds=oracle_s, where=where, segments=rows)
    if why is not None:
        return CheckReport("undecided", oracle_count=None, undecided=why, **base)
    oracle = frozenset().union(*(k for k, _, _, _ in solved))
    expected = None
    if any(e is not None for _, e, _, _ in solved):
        expected = {}
        for _, e, _, _ in solved:
            expected.update(e)
    oracle_only, engine_only = oracle - engine, engine - oracle
    note("emission positions")
    misplaced = _misplaced(lang, query, options, emissions, oracle & engine, expected)
    clean = not (oracle_only or engine_only or misplaced)
    rep = CheckReport("agree" if clean else "disagree", oracle_count=len(oracle),
                      oracle_only=sorted(oracle_only, key=repr), engine_only=sorted(engine_only, key=repr),
                      problems=[p for ps in misplaced.values() for p in ps], **base)
    if rep.verdict == "disagree":
        rep.cut = _cut(lang, query_text, source, options, limits, engine_limits, loc, segs, oracle_only,
                       engine_only | frozenset(misplaced), out, shrink_s, fault, note)
    return rep


def _misplaced(lang: Any, query: Any, options: Any, emissions: list, results: frozenset,
               expected: dict | None) -> dict[Any, list[str]]:
    """The results both sides have that the engine emitted more than once or at the wrong position (the
    emission contract of :func:`ceplab.workbench.compare.position_problems`), with the problems; ``expected``
    as :func:`solve_slice` gives it, merged over the segments."""
    from ceplab.workbench.compare import is_deferred, position_problems_by_result

    return position_problems_by_result(lang, [e for e in emissions if e[0] in results],
                                       is_deferred(lang, query, options), expected)


def _cut(lang: Any, query_text: str, source: Any, options: Any, limits: Any, engine_limits: Any, loc: Locality,
         segs: list[Segment], oracle_only: frozenset, engine_only: frozenset, out: Path | None, shrink_s: float,
         fault: str | None, note: Callable[[str], None]) -> list[dict]:
    """Cut the disagreeing segments out, re-check each alone, and shrink it into a reproducer."""
    from ceplab.semantics.errors import InputError
    from ceplab.workbench.compare import compare, options_to_json

    import bisect

    bounds = [s.lo for s in segs[1:]]           # the owned ranges' starts: a result's owner by bisection
    by_seg: dict[int, tuple[list, list]] = {}
    for side, rs in enumerate((oracle_only, engine_only)):
        for r in rs:
            by_seg.setdefault(bisect.bisect_right(bounds, loc.last(r)), ([], []))[side].append(r)
    tj = lang.result_to_json
    out_rows = []
    for k in sorted(by_seg)[:MAX_CUTS]:
        s = segs[k]
        note(f"re-checking segment {k} alone")
        sub = source.slice(s.first, s.stop)
        try:
            rep = compare(lang, lang.parse(query_text), sub, options, limits, engine_limits)
            reproduced = rep.verdict == "disagree"
        except InputError:
            reproduced = False
        row = {"segment": k, "first": s.first, "stop": s.stop,
               "oracle_only": sorted((tj(r) for r in by_seg[k][0]), key=json.dumps),
               "engine_only": sorted((tj(r) for r in by_seg[k][1]), key=json.dumps),
               "reproduced": reproduced, "reproducer": None}
        if reproduced and out is not None:
            from ceplab.workbench.spark import write_reproducer

            out.mkdir(parents=True, exist_ok=True)
            case = {"case_id": k, "verdict": "disagree", "query": query_text,
                    "stream": lang.stream_to_json(sub), "options": options_to_json(options),
                    "oracle_only": row["oracle_only"], "engine_only": row["engine_only"]}
            note(f"shrinking segment {k}")
            path = write_reproducer(lang.name, 0, s.stop - s.first, case, out, fault=fault,
                                    limits_kw=_limits_kw(limits), shrink_s=shrink_s)
            obj = json.loads(path.read_text(encoding="utf-8"))
            obj.pop("regenerate", None)      # not a seeded campaign case
            obj.update(seed=None, segment={"index": k, "first": s.first, "stop": s.stop})
            path.write_text(json.dumps(obj, indent=2) + "\n", encoding="utf-8")
            row["reproducer"] = str(path)
        out_rows.append(row)
    return out_rows


def _limits_kw(limits: Any) -> dict:
    return {"time_s": limits.time_s, "max_ground_size": limits.max_ground_size}


# ----------------------------------------------------------------------------- Spark
#: tag of the Spark job group of a check's oracle job (cancelled on Ctrl-C)
_JOB_GROUP = "ceplab-check"


def _start(spark: Any, started: list, lang: str, query_text: str) -> Any:
    """The session: ``spark`` itself, or started by calling it (a factory); it goes into ``started`` (for
    :func:`_cancel`).  Then one task per core starts its Python worker, imports the language and parses the
    query (:class:`_Warmup`), while the driver plans the stream and runs the engine: Spark reuses idle Python
    workers, so the segments' tasks start warm."""
    if callable(spark) and not hasattr(spark, "createDataFrame"):
        try:
            spark = spark()
        except RuntimeError as e:
            raise SparkUnavailable(str(e)) from None
    started.append(spark)
    from ceplab.workbench.spark import _parallelism

    p = _parallelism(spark)
    sc = _spark_context(spark)
    if sc is not None:
        sc.setJobGroup(_JOB_GROUP, "ceplab check: starting the Python workers")
    spark.range(p, numPartitions=p).mapInPandas(_Warmup(lang, query_text), schema="id long").collect()
    return spark


class _Warmup:
    """``mapInPandas`` function of :func:`_start`: import what the segments' tasks need and parse the query."""

    def __init__(self, lang: str, query_text: str) -> None:
        self.lang, self.query_text = lang, query_text

    def __call__(self, batches: Any) -> Any:
        import importlib

        from ceplab.workbench import language

        for module in ("ceplab.asp.oracle", "ceplab.workbench.compare", "ceplab.workbench.generate"):
            importlib.import_module(module)
        language.get(self.lang).parse(self.query_text)
        yield from batches


def _cancel(fut: Future, started: list) -> None:
    """Cancel the check's Spark job (Ctrl-C or an engine error while it runs)."""
    if fut.done():
        return
    for spark in started:
        try:
            sc = _spark_context(spark)
            if sc is not None:
                sc.cancelJobGroup(_JOB_GROUP)
            else:
                spark.interruptAll()
        except Exception:  # noqa: BLE001 - cancelling anyway
            pass


def _spark_context(spark: Any) -> Any:
    """The session's SparkContext, None on Spark Connect (which has none)."""
    try:
        return spark.sparkContext
    except Exception:  # noqa: BLE001 - Connect raises on the attribute
        return None


def solve_on_spark(spark: Any, lang: Any, query_text: str, stream: Any, options: Any, limits: Any,
                   segs: list[Segment]) -> list[tuple[frozenset | None, dict | None, str | None, dict]]:
    """Solve the segments on Spark executors with :func:`solve_slice`: a DataFrame with one row per segment
    mapped with ``mapInPandas``; no RDD call, so it runs on Spark Connect too.  With a
    :class:`ceplab.workbench.generate.DatasetStream` an executor reads its segments' events from the Parquet
    files itself (the rows carry positions only); with a stream in memory the rows carry the events as JSON.
    Results come back in segment order, as :func:`solve_slice` gives them."""
    from ceplab.workbench.compare import options_to_json
    from ceplab.workbench.spark import _parallelism

    source = _source(lang, stream)
    n = len(source)
    desc = source.descriptor()
    bounds = [(s.index, s.lo, s.hi, s.first, s.stop, min(s.stop + 1, n)) for s in segs]
    sc = _spark_context(spark)
    if sc is not None:
        sc.setJobGroup(_JOB_GROUP, f"ceplab check {lang.name}: {len(segs)} segment(s)")
    # a few tasks per core, each a contiguous range of segments: few task start-ups, balanced load
    tasks = max(1, min(len(segs), TASKS_PER_CORE * _parallelism(spark)))
    if desc is not None:      # executors read the events: the rows are the segments' numbers only
        df = spark.range(len(segs), numPartitions=tasks).withColumnRenamed("id", "index")
    else:                     # the rows carry the events as JSON
        rows = [b + (json.dumps(source.items(b[3], b[5])),) for b in bounds]
        df = spark.createDataFrame(rows, schema="index long, lo long, hi long, first long, stop long, "
                                                "stop_x long, events string")
        df = df.repartitionByRange(tasks, "index")
    job = _SegmentJob(lang.name, query_text, json.dumps(options_to_json(options)), _limits_kw(limits),
                      limits.memory_mb, None if desc is None else json.dumps({"dataset": desc, "segments": bounds}),
                      n)
    got = {int(r["index"]): r for r in df.mapInPandas(job, schema="index long, results string, expected string, "
                                                                    "undecided string, row string").collect()}
    out = []
    fj = lang.result_from_json
    for s in segs:
        r = got[s.index]
        row = json.loads(r["row"])
        if r["undecided"] is not None:
            out.append((None, None, r["undecided"], row))
            continue
        kept = [fj(x) for x in json.loads(r["results"])]
        expected = None
        if r["expected"] is not None:
            expected = {k: _position_from_json(w) for k, w in zip(kept, json.loads(r["expected"]))}
        out.append((frozenset(kept), expected, None, row))
    return out


def _position_to_json(w: Any) -> Any:
    if w is ...:
        return {"any": True}
    if isinstance(w, (set, frozenset)):
        return {"one_of": sorted(w, key=lambda p: (p is None, p or 0))}
    return w


def _position_from_json(w: Any) -> Any:
    if isinstance(w, dict):
        return ... if w.get("any") else frozenset(w["one_of"])
    return w


class _SegmentJob:
    """The executors' side of :func:`solve_on_spark` (picklable: names and texts only)."""

    def __init__(self, lang: str, query_text: str, options_json: str, limits_kw: dict, memory_mb: int | None,
                 dataset_json: str | None, events: int):
        self.lang, self.query_text, self.options_json = lang, query_text, options_json
        self.limits_kw, self.memory_mb, self.dataset_json, self.events = limits_kw, memory_mb, dataset_json, events

    def __call__(self, batches: Any) -> Any:
        import pandas as pd

        from ceplab.asp.oracle import Limits
        from ceplab.workbench import language
        from ceplab.workbench.compare import options_from_kv

        lang = language.get(self.lang)
        query = lang.parse(self.query_text)
        options = options_from_kv(lang.options, [f"{k}={v}" for k, v in json.loads(self.options_json).items()])
        limits = Limits(time_s=self.limits_kw["time_s"], max_ground_size=self.limits_kw["max_ground_size"],
                        memory_mb=self.memory_mb)
        dataset = bounds = None
        if self.dataset_json is not None:
            from ceplab.workbench.generate import DatasetStream

            d = json.loads(self.dataset_json)
            dataset, bounds = DatasetStream.from_descriptor(lang, d["dataset"]), d["segments"]
        tj = lang.result_to_json
        for pdf in batches:
            out = []
            for rec in pdf.itertuples(index=False):
                if dataset is not None:
                    k, lo, hi, first, stop, stop_x = bounds[int(rec.index)]
                    sub = dataset.slice(first, stop_x)
                else:
                    k, first, stop, stop_x = int(rec.index), int(rec.first), int(rec.stop), int(rec.stop_x)
                    lo = None if pd.isna(rec.lo) else int(rec.lo)
                    hi = None if pd.isna(rec.hi) else int(rec.hi)
                    sub = lang.stream_from_json(json.loads(rec.events), f"segment-{k}")
                seg = Segment(k, lo, hi, first, stop)
                kept, expected, why, row = solve_slice(lang, query, sub, options, limits,
                                                       lang.locality(query, options, sub), seg,
                                                       final=stop_x >= self.events, positions=True)
                results = exp = None
                if kept is not None:
                    ordered = list(kept)
                    results = json.dumps([tj(r) for r in ordered])
                    if expected is not None:
                        exp = json.dumps([_position_to_json(expected[r]) for r in ordered])
                out.append((seg.index, results, exp, why, json.dumps(row)))
            yield pd.DataFrame(out, columns=["index", "results", "expected", "undecided", "row"])


__all__ = ["CheckReport", "MAX_CUTS", "MemoryStream", "NotLocal", "SparkUnavailable", "TASKS_PER_CORE", "check",
           "locate", "solve_on_spark"]
