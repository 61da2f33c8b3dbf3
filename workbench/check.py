"""``ceplab check``: one long stream, the incremental engine against the segmented oracle.

The engine runs over the whole stream in order, once, as it would in production (its window expiry,
garbage collection and consumption over time are what a long stream exercises).  The oracle answers the same
stream segment by segment (:mod:`ceplab.workbench.segments`: segments overlapping by the query's span, each
result kept by the one segment that owns its anchor); the segments are solved here, one after the other, or
on Spark executors with the DataFrame API (``mapInPandas``, one row per segment carrying its slice of the
stream), so the same code runs on a local master, a cluster and Spark Connect.

A result that only one side has is a disagreement, and so is a result emitted twice or not where it is determined
(the emission contract the fuzz campaigns check, :func:`ceplab.workbench.compare.position_problems`).  Each disagreeing segment is cut out (its events alone) and
checked again with :func:`ceplab.workbench.compare.compare`; when the disagreement shows there too, the
segment is a reproducer, shrunk like a fuzz campaign's (:func:`ceplab.workbench.spark.write_reproducer`) when
an output folder is given.

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

from ceplab.workbench.segments import POSITION, Locality, Segment, coordinates, plan, solve_segment


@dataclass
class CheckReport:
    """The outcome of :func:`check`.

    Attributes:
        verdict: ``agree``, ``disagree`` or ``undecided``.
        events: stream length; segments: per segment row (:func:`ceplab.workbench.segments.solve_segment`).
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


#: disagreeing segments cut out and re-checked (and shrunk) per check
MAX_CUTS = 3

#: Spark tasks per core of the session for the segments (each task a contiguous range of segments)
TASKS_PER_CORE = 2


class NotLocal(ValueError):
    """The query is not local under these switches (``Language.locality`` gives None)."""


class SparkUnavailable(RuntimeError):
    """The Spark session :func:`check` was to start could not start (its ``RuntimeError``, e.g. no Java)."""


def _owner(segs: list[Segment], anchor: int) -> Segment:
    for s in segs:
        if s.owns(anchor):
            return s
    raise AssertionError("the owned ranges partition the integers")


def check(lang: Any, query: Any, query_text: str, stream: Any, options: Any, *, size: int, limits: Any,
          engine_limits: Any = None, spark: Any = None, where: str = "in process", out: Path | None = None,
          shrink_s: float = 30.0, fault: str | None = None,
          note: Callable[[str], None] = lambda s: None) -> CheckReport:
    """Check the engine against the segmented oracle on one stream (module docstring).

    Args:
        lang: the :class:`ceplab.workbench.language.Language`.
        query, query_text: the parsed query and its text (the text is what executors and reproducers get).
        stream, options: the stream (ordered as the language orders streams) and the switches.
        size: owned events per segment.
        limits: the oracle's limits per segment; engine_limits: the engine's (None: no limit).
        spark: a Spark session to solve the segments on, or a zero-argument callable that starts one (None: in
            this process).  With Spark the oracle job runs in a background thread while the engine runs here,
            and a callable is called there, so the session starts while the engine runs.  where: its name for
            the report.
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
        InputError: the engine or the oracle refuses the query.
    """
    from ceplab.workbench.compare import run_engine
    from ceplab.workbench.spark import faulty_language

    lang = faulty_language(lang, fault)
    loc = lang.locality(query, options, stream) if lang.locality is not None else None
    if loc is None:
        raise NotLocal(f"the {lang.name} plugin does not declare this query local under these switches, so its "
                       f"stream cannot be checked segment by segment")
    events = list(stream)
    segs = plan(coordinates(lang, stream, loc), loc, size)
    t0 = time.perf_counter()
    if spark is None:
        note(f"engine over {len(events):,} events")
        emissions, engine_s, _path = run_engine(lang, query, stream, options, engine_limits)
        note(f"oracle on {len(segs)} segment(s)")
        t0 = time.perf_counter()
        solved = [solve_segment(lang, query, stream, options, limits, loc, s) for s in segs]
    else:
        # the Spark job (and, given a factory, the session's start) runs while the engine runs here
        note(f"engine over {len(events):,} events; oracle on {len(segs)} segment(s) on Spark")
        pool, started = ThreadPoolExecutor(max_workers=1), []
        fut = pool.submit(_solve_on_spark_started, spark, started, lang, query_text, stream, options, limits, loc, segs)
        try:
            emissions, engine_s, _path = run_engine(lang, query, stream, options, engine_limits)
            note(f"oracle on {len(segs)} segment(s) on Spark")
            solved = fut.result()
        except BaseException:
            _cancel(fut, started)
            raise
        finally:
            pool.shutdown(wait=False, cancel_futures=True)
    engine = frozenset(r for r, _ in emissions)
    oracle_s = time.perf_counter() - t0
    rows = [row for _, _, row in solved]
    why = next((w for _, w, _ in solved if w is not None), None)
    base = dict(events=len(events), span=loc.span, lookahead=loc.lookahead, unit=loc.unit, engine_count=len(engine),
                engine_seconds=engine_s, oracle_seconds=oracle_s, where=where, segments=rows)
    if why is not None:
        return CheckReport("undecided", oracle_count=None, undecided=why, **base)
    oracle = frozenset().union(*(k for k, _, _ in solved))
    oracle_only, engine_only = oracle - engine, engine - oracle
    note("emission positions")
    misplaced = _misplaced(lang, query, stream, options, limits, emissions, oracle & engine)
    clean = not (oracle_only or engine_only or misplaced)
    rep = CheckReport("agree" if clean else "disagree", oracle_count=len(oracle),
                      oracle_only=sorted(oracle_only, key=repr), engine_only=sorted(engine_only, key=repr),
                      problems=[p for ps in misplaced.values() for p in ps], **base)
    if rep.verdict == "disagree":
        rep.cut = _cut(lang, query_text, stream, options, limits, engine_limits, loc, segs, oracle_only,
                       engine_only | frozenset(misplaced), out, shrink_s, fault, note)
    return rep


def _misplaced(lang: Any, query: Any, stream: Any, options: Any, limits: Any, emissions: list,
               results: frozenset) -> dict[Any, list[str]]:
    """The results both sides have that the engine emitted more than once or at the wrong position (the
    emission contract of :func:`ceplab.workbench.compare.position_problems`), with the problems."""
    from ceplab.workbench.compare import expected_positions, is_deferred, position_problems_by_result

    expected = expected_positions(lang, query, stream, options, limits, results)
    return position_problems_by_result(lang, [e for e in emissions if e[0] in results],
                                       is_deferred(lang, query, options), expected)


def _cut(lang: Any, query_text: str, stream: Any, options: Any, limits: Any, engine_limits: Any, loc: Locality,
         segs: list[Segment], oracle_only: frozenset, engine_only: frozenset, out: Path | None, shrink_s: float,
         fault: str | None, note: Callable[[str], None]) -> list[dict]:
    """Cut the disagreeing segments out, re-check each alone, and shrink it into a reproducer."""
    from ceplab.semantics.errors import InputError
    from ceplab.workbench.compare import compare, options_to_json

    by_seg: dict[int, tuple[list, list]] = {}
    for r in oracle_only:
        by_seg.setdefault(_owner(segs, loc.last(r)).index, ([], []))[0].append(r)
    for r in engine_only:
        by_seg.setdefault(_owner(segs, loc.last(r)).index, ([], []))[1].append(r)
    tj = lang.result_to_json
    out_rows = []
    n = len(stream)
    for k in sorted(by_seg)[:MAX_CUTS]:
        s = segs[k]
        note(f"re-checking segment {k} alone")
        drop = list(range(s.first)) + list(range(s.stop, n))
        sub = lang.drop_events(stream, drop) if drop else stream
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


def _solve_on_spark_started(spark: Any, started: list, *args: Any) -> list:
    """:func:`solve_on_spark`, starting the session first when ``spark`` is a factory; the session goes into
    ``started`` (for :func:`_cancel`)."""
    if callable(spark) and not hasattr(spark, "createDataFrame"):
        try:
            spark = spark()
        except RuntimeError as e:
            raise SparkUnavailable(str(e)) from None
    started.append(spark)
    return solve_on_spark(spark, *args)


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


def solve_on_spark(spark: Any, lang: Any, query_text: str, stream: Any, options: Any, limits: Any, loc: Locality,
                   segs: list[Segment]) -> list[tuple[frozenset | None, str | None, dict]]:
    """Solve the segments on Spark executors: a DataFrame with one row per segment (its index, owned range and
    events as JSON) mapped with ``mapInPandas`` to ``(index, results JSON, undecided, row JSON)``; no RDD
    call, so it runs on Spark Connect too.  Results come back in segment order, as :func:`solve_segment`
    gives them."""
    from ceplab.workbench.compare import options_to_json

    events = lang.stream_to_json(stream)
    rows = [(s.index, s.lo, s.hi, s.first, s.stop, json.dumps(events[s.first:s.stop])) for s in segs]
    from ceplab.workbench.spark import _parallelism

    sc = _spark_context(spark)
    if sc is not None:
        sc.setJobGroup(_JOB_GROUP, f"ceplab check {lang.name}: {len(segs)} segment(s)")
    df = spark.createDataFrame(rows, schema="index long, lo long, hi long, first long, stop long, events string")
    # a few tasks per core, each a contiguous range of segments: few task start-ups, balanced load
    df = df.repartitionByRange(max(1, min(len(segs), TASKS_PER_CORE * _parallelism(spark))), "index")
    job = _SegmentJob(lang.name, query_text, json.dumps(options_to_json(options)), _limits_kw(limits),
                      limits.memory_mb)
    got = {int(r["index"]): r for r in df.mapInPandas(job, schema="index long, results string, undecided string, "
                                                                    "row string").collect()}
    out = []
    for s in segs:
        r = got[s.index]
        row = json.loads(r["row"])
        if r["undecided"] is not None:
            out.append((None, r["undecided"], row))
        else:
            out.append((frozenset(lang.result_from_json(x) for x in json.loads(r["results"])), None, row))
    return out


class _SegmentJob:
    """The executors' side of :func:`solve_on_spark` (picklable: names and texts only)."""

    def __init__(self, lang: str, query_text: str, options_json: str, limits_kw: dict, memory_mb: int | None):
        self.lang, self.query_text, self.options_json = lang, query_text, options_json
        self.limits_kw, self.memory_mb = limits_kw, memory_mb

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
        for pdf in batches:
            out = []
            for rec in pdf.itertuples(index=False):
                sub = lang.stream_from_json(json.loads(rec.events), f"segment-{rec.index}")
                lo = None if pd.isna(rec.lo) else int(rec.lo)
                hi = None if pd.isna(rec.hi) else int(rec.hi)
                seg = Segment(int(rec.index), lo, hi, 0, len(sub))
                loc = lang.locality(query, options, sub)
                if loc is not None and loc.unit == POSITION:
                    # the slice starts at position 0: ownership is in positions of the whole stream
                    seg = Segment(seg.index, None if lo is None else lo - int(rec.first),
                                  None if hi is None else hi - int(rec.first), 0, len(sub))
                kept, why, row = (None, "the segment is not local", {}) if loc is None else \
                    solve_segment(lang, query, sub, options, limits, loc, seg)
                if loc is not None and loc.unit == POSITION and kept is not None and int(rec.first):
                    kept = frozenset(loc.shift(r, int(rec.first)) for r in kept)
                row.update(index=int(rec.index), lo=lo, hi=hi, events=len(sub))
                out.append((int(rec.index), None if kept is None else
                            json.dumps([lang.result_to_json(r) for r in kept]), why, json.dumps(row)))
            yield pd.DataFrame(out, columns=["index", "results", "undecided", "row"])


__all__ = ["CheckReport", "MAX_CUTS", "NotLocal", "SparkUnavailable", "TASKS_PER_CORE", "check", "solve_on_spark"]
