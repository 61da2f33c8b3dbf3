"""PySpark fuzzing campaigns: oracle versus engine at scale (DESIGN.md sections 1, 5 and 6).

A campaign for one language, with ``cases`` cases of stream length ``length`` and a ``seed``:

1. Case ``i`` is drawn by ``Language.random_case(case_rng(seed, lang, i), length)``: the same
   seeded generators as the hypothesis strategies. Every case depends only on ``(lang, seed, i)``, so
   a campaign is reproducible and any single case can be replayed without Spark
   (:func:`replay_case`).
2. :func:`generate_streams` materialises the streams as a DataFrame (``stream_id, position, time,
   type, attrs`` with ``attrs`` a JSON string), written as Parquet to ``OUT/<lang>/streams.parquet``.
3. One Spark job ``spark.range(cases).mapInPandas(...)`` (DataFrame API only) runs
   :func:`ceplab.workbench.compare.compare` per case on the executors (about 20 partitions, at least four
   per core); a driver thread polls Spark's status tracker and a rich progress bar on stderr
   advances as partitions finish.
4. The per-case outcomes are collected (``OUT/<lang>/results.parquet``) and the counts written to
   ``OUT/<lang>/summary.json`` at once; then every case that did not agree is shrunk on the driver
   (:mod:`ceplab.workbench.shrink`) and written as a JSON reproducer
   ``OUT/<lang>/case-<id>-<verdict>.json`` (query, stream, options, oracle and engine results, seed,
   case id, the shrunk case, and whatever the language's ``Language.case_extras`` adds, e.g. background
   knowledge the query text carries as comment lines) plus the shrunk case as
   ``case-<id>.query`` / ``case-<id>.jsonl`` for ``ceplab compare``; ``summary.json`` is rewritten
   with the reproducers at the end.

The engine runs under a per-case limit (:class:`ceplab.workbench.limits.EngineLimits`, default 10 s
and 2048 MiB): in-process on the executors (a timer and an address-space cap, microseconds per
case), in a forked worker on the driver (the shrinker and the reproducers' re-runs, so that the
driver can never grow or hang). A case whose engine overruns it has the verdict ``engine_limit``;
it is shrunk with the predicate "the engine still overruns the limit" (the engine alone, under the
same limit, so every check is bounded) and saved like a disagreement. A case where the engine
refuses the query (``UnsupportedError``) while the oracle answers it is an ``engine_refusal``,
counted on its own (target 0), with a few examples in the summary.

The Spark session (:func:`spark_session`) runs ``local[*]`` by default, logs only errors, has no UI,
few shuffle partitions and binds to 127.0.0.1 for local masters, so that it starts on small
machines (2 cores) without network set-up.
"""
from __future__ import annotations

import dataclasses
import json
import os
import random
import sys
import time
import warnings
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

PROJECT_ROOT = Path(__file__).resolve().parent.parent
LOG4J = Path(__file__).with_name("data") / "log4j2.properties"

# Faults that can be injected into an engine to check that the campaign catches them.
FAULTS = ("drop", "duplicate", "late", "loop", "hog", "refuse")

#: At most this many Spark jobs (waves) per campaign: the progress bar shows the verdicts after each.
MAX_WAVES = 5

#: Examples of engine refusals kept in a campaign's summary.
REFUSAL_EXAMPLES = 3

#: The summary counter of each row verdict.
_COUNTERS = {"agree": "agree", "disagree": "disagree", "undecided": "undecided",
             "engine_limit": "engine_limit", "engine_refusal": "engine_refusals"}


# ----------------------------------------------------------------------------- session
def worker_pythonpath(pp: str) -> str:
    """The ``PYTHONPATH`` of Spark's Python workers: the caller's entries first (they win, e.g. the mutated engine
    tree of :mod:`ceplab.workbench.mutants`), then the project root (a source checkout run without installing)."""
    parts = [x for x in pp.split(os.pathsep) if x]
    return os.pathsep.join(parts if str(PROJECT_ROOT) in parts else parts + [str(PROJECT_ROOT)])


def spark_session(master: str = "local[*]", app: str = "ceplab", remote: str | None = None) -> Any:
    """A quiet, small Spark session (created or reused): classic on ``master``, or a Spark Connect client of
    ``remote`` (``sc://host:port``) when it is given.  Everything the workbench runs on Spark uses the DataFrame
    API only, so both kinds work; a Connect session has no ``sparkContext`` (:func:`context`).

    Raises:
        RuntimeError: Spark could not start or connect (the message says why; Java 17+ is needed).
    """
    warnings.filterwarnings("ignore", category=FutureWarning, module=r"pyspark.*")
    warnings.filterwarnings("ignore", category=UserWarning, module=r"pyspark.*")
    if remote is not None:
        from pyspark.sql import SparkSession

        try:
            return SparkSession.builder.remote(remote).appName(app).getOrCreate()
        except Exception as e:
            raise RuntimeError(f"could not connect to the Spark Connect server {remote} "
                               f"({type(e).__name__}: {e})") from e
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    os.environ["PYTHONPATH"] = worker_pythonpath(os.environ.get("PYTHONPATH", ""))
    local = master.startswith("local")
    if local:
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession

    def build() -> Any:
        b = (SparkSession.builder.master(master).appName(app)
             .config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.shuffle.partitions", "4")
             .config("spark.sql.execution.arrow.pyspark.enabled", "false")
             .config("spark.python.worker.reuse", "true")
             .config("spark.driver.extraJavaOptions",
                     f"-Dlog4j2.configurationFile=file:{LOG4J} -Dlog4j.configurationFile=file:{LOG4J}")
             .config("spark.executorEnv.PYTHONPATH", os.environ["PYTHONPATH"]))
        if local:
            b = b.config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress",
                                                                  "127.0.0.1")
        return b.getOrCreate()

    last: Exception | None = None
    for attempt in range(2):
        try:
            spark = build()
            spark.sparkContext.setLogLevel("ERROR")
            return spark
        except Exception as e:  # e.g. a port race on a busy machine: retry once
            last = e
            time.sleep(1.0 + attempt)
    raise RuntimeError(f"Spark could not start ({type(last).__name__}: {last}); "
                       "it needs Java 17+ on the PATH") from last


# ----------------------------------------------------------------------------- cases
def case_rng(seed: int, lang: str, case_id: int) -> random.Random:
    """The generator of case ``case_id`` (depends only on seed, language and id)."""
    return random.Random(f"ceplab:{lang}:{seed}:{case_id}")


def faulty_language(lang: Any, fault: str | None) -> Any:
    """``lang`` with a deliberately wrong evaluator (``fault`` in :data:`FAULTS`), or ``lang``.

    ``drop`` loses the first result, ``duplicate`` emits it twice, ``late`` emits it one event late;
    at its first result the engine loops forever (``loop``) or allocates without bound (``hog``);
    ``refuse`` refuses every query (``UnsupportedError``).
    """
    if not fault:
        return lang
    if fault not in FAULTS:
        raise ValueError(f"unknown fault {fault!r}; known: {', '.join(FAULTS)}")
    inner = lang.evaluator
    if fault == "refuse":
        return dataclasses.replace(lang, evaluator=_refusing)
    return dataclasses.replace(lang, evaluator=lambda q, o: _FaultyEvaluator(inner(q, o), fault))


def _refusing(query: Any, options: Any) -> Any:
    from ceplab.semantics.errors import UnsupportedError

    raise UnsupportedError("the engine refuses every query [fault injected: refuse]")


class _FaultyEvaluator:
    def __init__(self, inner: Any, fault: str) -> None:
        self.inner, self.fault = inner, fault
        self.path = f"{getattr(inner, 'path', '?')} [fault injected: {fault}]"
        self.done = False
        self.held: list = []

    def _mangle(self, rs: list) -> list:
        out = self.held + list(rs)
        self.held = []
        if rs and not self.done:
            self.done = True
            first = rs[0]
            if self.fault == "drop":
                out.remove(first)
            elif self.fault == "duplicate":
                out.append(first)
            elif self.fault == "late":
                out.remove(first)
                self.held = [first]
            elif self.fault == "loop":      # derives forever
                n = 0
                while True:
                    n += 1
            elif self.fault == "hog":       # grows without bound (1 MiB at a time, touched)
                self.hog = []
                while True:
                    self.hog.append(b"\x01" * (1 << 20))
        return out

    def push(self, event: Any) -> list:
        return self._mangle(self.inner.push(event))

    def close(self) -> list:
        out = self._mangle(self.inner.close())
        return out + self.held


def _stream_json(stream: Any, lang: Any) -> list[dict]:
    """Events as JSON objects (the language's ``stream_to_json``)."""
    return lang.stream_to_json(stream)


def stream_from_json(items: list[dict], name: str, lang: Any) -> Any:
    """A stream from a list of event JSON objects as written in reproducers (the language's
    ``stream_from_json``)."""
    return lang.stream_from_json(items, name)


def _limits(limits_kw: dict | None) -> Any:
    from ceplab.workbench.compare import default_limits

    return default_limits(**(limits_kw or {}))


def _engine_limits(engine_kw: dict | None, isolate: bool = False) -> Any:
    """:class:`EngineLimits` from ``{"time_s", "memory_mb"}`` (missing keys: the defaults)."""
    from ceplab.workbench.limits import EngineLimits

    return EngineLimits(**{**(engine_kw or {}), "isolate": isolate})


def run_case(lang_name: str, seed: int, length: int, case_id: int, fault: str | None = None,
             limits_kw: dict | None = None, engine_kw: dict | None = None) -> dict:
    """Draw case ``case_id`` and compare oracle and engine on it. Returns a JSON-able row.

    ``engine_kw`` is the engine's per-case limit (``time_s``, ``memory_mb``; default 10 s, 2048
    MiB). The row always has ``case_id, verdict, oracle_seconds, engine_seconds, oracle_count,
    engine_count``; for anything but ``agree`` also the full case and both sides' results. The
    verdict is ``agree``, ``disagree``, ``undecided``, ``engine_limit`` (the engine overran its
    limit: ``engine_limit`` says which) or ``engine_refusal`` (the engine raised an
    ``InputError`` on a case the oracle answered: ``refusal`` says why).
    """
    from ceplab.semantics.errors import InputError
    from ceplab.workbench import language
    from ceplab.workbench.compare import compare, engine_refusal, options_to_json, sort_json

    from ceplab.workbench.coverage import case_features

    lang = faulty_language(language.get(lang_name), fault)
    qtext, stream, options = lang.random_case(case_rng(seed, lang_name, case_id), length)
    row: dict[str, Any] = {"case_id": case_id, "verdict": "agree", "oracle_seconds": 0.0,
                           "engine_seconds": 0.0, "oracle_count": None, "engine_count": None,
                           "query": qtext}
    query = None
    try:
        query = lang.parse(qtext)
        row["features"] = case_features(lang, query, stream, options)
        rep = compare(lang, query, stream, options, _limits(limits_kw), _engine_limits(engine_kw))
    except InputError as e:
        if "features" not in row:
            row["features"] = case_features(lang, query, stream, options)
        why = f"{type(e).__name__}: {e}"
        if engine_refusal(e):
            row.update(verdict="engine_refusal", refusal=why)
        else:
            row.update(verdict="undecided", undecided=why)
        row.update(stream=_stream_json(stream, lang), options=options_to_json(options))
        return row
    except Exception as e:  # compare catches evaluator errors; anything else is a bug too
        row.update(verdict="disagree", problems=[f"{type(e).__name__}: {e}"],
                   stream=_stream_json(stream, lang), options=options_to_json(options))
        return row
    tj = lang.result_to_json
    row.update(verdict=rep.verdict, oracle_seconds=rep.oracle_seconds,
               engine_seconds=rep.engine_seconds, oracle_count=rep.oracle_count,
               engine_count=rep.engine_count)
    if rep.verdict != "agree":
        row.update(
            stream=_stream_json(stream, lang), options=options_to_json(options),
            undecided=rep.undecided, engine_limit=rep.engine_limit, problems=rep.problems,
            engine_path=rep.engine_path,
            oracle_results=None if rep.oracle_results is None
            else sort_json(tj(r) for r in rep.oracle_results),
            engine_results=sort_json(tj(r) for r in rep.engine_results),
            emissions=[[tj(r), p] for r, p in rep.emissions],
            oracle_only=sort_json(tj(r) for r in rep.oracle_only),
            engine_only=sort_json(tj(r) for r in rep.engine_only))
    return row


class _StreamRows:
    """``mapInPandas`` function: the event rows of the cases whose ids arrive (column ``id``), each case drawn
    from its own seed (so the rows do not depend on how ids are batched or partitioned)."""

    def __init__(self, lang_name: str, seed: int, length: int) -> None:
        self.lang_name, self.seed, self.length = lang_name, seed, length

    def __call__(self, batches: Iterable[Any]) -> Iterator[Any]:
        import pandas as pd

        from ceplab.workbench import language

        lang = language.get(self.lang_name)
        cols = ("stream_id", "position", "time", "type", "attrs")
        for pdf in batches:
            rows = []
            for cid in pdf["id"]:
                _q, stream, _o = lang.random_case(case_rng(self.seed, self.lang_name, int(cid)), self.length)
                for i, e in enumerate(stream):
                    t, typ, attrs = lang.event_row(e)
                    rows.append((int(cid), i, int(t), typ, json.dumps(attrs, sort_keys=True)))
            yield pd.DataFrame(rows, columns=cols).astype({"stream_id": "int64", "position": "int32",
                                                            "time": "int64"})


def generate_streams(spark: Any, n: int, length: int, seed: int, lang: str) -> Any:
    """The streams of cases ``0..n-1`` as a DataFrame.

    Columns: ``stream_id`` (= case id), ``position``, ``time``, ``type``, ``attrs`` (JSON object
    text), as the language's ``Language.event_row`` gives them. Generated on the executors from
    the same seeds as the fuzz cases (DataFrame API: ``spark.range`` and ``mapInPandas``).
    """
    parts = max(1, min(n, _parallelism(spark)))
    return spark.range(n, numPartitions=parts).mapInPandas(
        _StreamRows(lang, seed, length),
        schema="stream_id long, position int, time long, type string, attrs string")


def _parallelism(spark: Any) -> int:
    """The default parallelism of the session (``spark.default.parallelism``, else the local master's core
    count, else 2)."""
    conf = spark.conf.get("spark.default.parallelism", None)
    if conf:
        return max(1, int(conf))
    master = spark.conf.get("spark.master", "local[*]")
    if master.startswith("local["):
        inner = master[6:].split(",")[0].rstrip("]")
        return (os.cpu_count() or 2) if inner == "*" else max(1, int(inner))
    return 2


class _CaseRows:
    """``mapInPandas`` function of a campaign: one JSON row (:func:`run_case`) per case id that arrives.

    ``fail_every``: the first attempt of a task that holds a case id divisible by it raises (an injected task
    failure, for the tests: Spark must retry the task and the campaign still gets every verdict once)."""

    def __init__(self, lang_name: str, seed: int, length: int, fault: str | None, limits_kw: dict | None,
                 engine_kw: dict | None, fail_every: int | None = None) -> None:
        self.args = (lang_name, seed, length)
        self.fault, self.limits_kw, self.engine_kw = fault, limits_kw, engine_kw
        self.fail_every = fail_every

    def __call__(self, batches: Iterable[Any]) -> Iterator[Any]:
        import pandas as pd

        for pdf in batches:
            if self.fail_every:
                from pyspark import TaskContext

                tc = TaskContext.get()
                if tc is not None and tc.attemptNumber() == 0 and any(int(c) % self.fail_every == 0
                                                                      for c in pdf["id"]):
                    raise RuntimeError("injected task failure (first attempt)")
            yield pd.DataFrame({"row": [json.dumps(run_case(*self.args, int(cid), self.fault, self.limits_kw,
                                                            self.engine_kw)) for cid in pdf["id"]]})


# ----------------------------------------------------------------------------- campaign
@dataclass
class FuzzSummary:
    """Counts of one language's campaign."""

    lang: str
    cases: int = 0
    agree: int = 0
    disagree: int = 0
    undecided: int = 0
    engine_limit: int = 0
    engine_refusals: int = 0
    seconds: float = 0.0
    total_seconds: float = 0.0
    oracle_seconds: float = 0.0
    engine_seconds: float = 0.0
    seed: int = 0
    length: int = 0
    out: str = ""
    engine_limits: dict = field(default_factory=dict)
    engine_refusal_examples: list[dict] = field(default_factory=list)
    reproducers: list[str] = field(default_factory=list)
    shrink_errors: list[str] = field(default_factory=list)
    complete: bool = False
    master: str = ""
    cores: int = 0
    parquet: dict = field(default_factory=dict)
    coverage: dict = field(default_factory=dict)
    rows: list[dict] = field(default_factory=list, repr=False)

    @property
    def cases_per_s(self) -> float:
        return self.cases / self.seconds if self.seconds > 0 else 0.0

    @property
    def cases_per_min_per_core(self) -> float:
        """Cases per minute divided by the session's parallelism (its cores)."""
        return 60.0 * self.cases_per_s / self.cores if self.cores else 0.0

    @property
    def findings(self) -> int:
        """Disagreements plus engine-limit overruns: what makes a campaign fail."""
        return self.disagree + self.engine_limit

    def write(self) -> Path:
        """Write ``OUT/<lang>/summary.json`` (``complete`` false until the reproducers are written)."""
        path = Path(self.out) / "summary.json"
        path.write_text(json.dumps(self.to_json(), indent=2) + "\n", encoding="utf-8")
        return path

    def to_json(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        del d["rows"]
        d["cases_per_s"] = round(self.cases_per_s, 3)
        d["cases_per_min_per_core"] = round(self.cases_per_min_per_core, 1)
        for k in ("seconds", "total_seconds", "oracle_seconds", "engine_seconds"):
            d[k] = round(d[k], 3)
        return d


def _progress(enabled: bool) -> Any:
    from rich.console import Console
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                               TimeElapsedColumn, TimeRemainingColumn)

    return Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TimeRemainingColumn(),
                    console=Console(stderr=True), disable=not enabled, transient=False)


def context(spark: Any) -> Any:
    """The session's ``SparkContext``, or None on Spark Connect (which has none: no job groups or status
    tracker, so progress advances only when a job ends)."""
    if type(spark).__module__.startswith("pyspark.sql.connect"):
        return None
    try:
        return spark.sparkContext
    except Exception:   # noqa: BLE001 - a Connect session raises here
        return None


def _master_name(spark: Any) -> str:
    """The session's master URL, or ``remote`` for a Spark Connect session whose server does not say."""
    try:
        return str(spark.conf.get("spark.master"))
    except Exception:  # noqa: BLE001
        return "remote"


def _completed_tasks(sc: Any, group: str) -> int:
    """Completed tasks of the jobs in a job group (0 if the tracker knows nothing yet)."""
    try:
        tracker = sc.statusTracker()
        n = 0
        for jid in tracker.getJobIdsForGroup(group):
            info = tracker.getJobInfo(jid)
            for sid in (info.stageIds if info else ()):
                st = tracker.getStageInfo(sid)
                if st is not None:
                    n += st.numCompletedTasks
        return n
    except Exception:
        return 0


def fuzz(langs: Iterable[str], cases: int = 200, length: int = 6, seed: int = 0,
         master: str = "local[*]", out: str | Path = "ceplab-out/fuzz", spark: Any = None,
         progress: bool = True, fault: str | None = None, limits_kw: dict | None = None,
         shrink_s: float = 30.0, write_parquet: bool = True,
         engine_kw: dict | None = None, max_reproducers: int | None = None,
         remote: str | None = None, resume: bool = False,
         stop_after_waves: int | None = None, waves: int | None = None,
         fail_tasks_every: int | None = None) -> list[FuzzSummary]:
    """Run a fuzzing campaign per language (see the module docstring).

    Args:
        langs: registered language names.
        cases: cases per language; ``length``: events per stream; ``seed``: campaign seed.
        master: Spark master URL (ignored when ``spark`` or ``remote`` is given).
        remote: a Spark Connect server (``sc://host:port``) to run on instead of ``master``.
        resume: keep the waves an interrupted campaign with the same parameters finished (``OUT/<lang>/waves/``)
            and run only the others; the results equal an uninterrupted run's (timings aside).
        stop_after_waves: raise ``KeyboardInterrupt`` after running this many waves (what Ctrl-C does; for the
            tests of ``resume``).
        waves: Spark jobs per campaign (default: up to :data:`MAX_WAVES`, one per 8 cases per core).
        fail_tasks_every: inject task failures: the first attempt of every task holding a case id divisible by it
            raises (the master must allow retries, e.g. a cluster or ``local[N,F]``); for the tests.

    Raises:
        ResumeError: ``resume`` with a campaign folder written with other parameters.
        KeyboardInterrupt: Ctrl-C (the finished waves are kept on disk; the running Spark job is cancelled).
        out: output folder; ``out/<lang>/`` receives ``streams.parquet``, ``results.parquet`` and
            the reproducers.
        spark: an existing SparkSession to use (it is not stopped).
        progress: show a rich progress bar on stderr.
        fault: inject a fault into the engine (:data:`FAULTS`), to check the campaign itself.
        limits_kw: oracle limits (``time_s``, ``max_ground_size``) per case.
        shrink_s: driver-side shrinking budget per failing case, in seconds (a check already
            running when it ends may add up to one oracle plus one engine limit).
        engine_kw: the engine's per-case limit (``time_s``, ``memory_mb``; None for no limit of
            that kind; default 10 s and 2048 MiB).
        write_parquet: write the streams and results as Parquet.
        max_reproducers: shrink and write reproducers for at most this many failing cases (the first ones
            by case id; None: all of them); the others are counted only.  ``ceplab bench mutants`` passes 0:
            a planted bug fails hundreds of cases and shrinking each would take longer than the campaign.

    Returns:
        One :class:`FuzzSummary` per language.
    """
    own = spark is None
    if own:
        spark = spark_session(master, remote=remote)
    sc = context(spark)
    par = _parallelism(spark)
    summaries = []
    try:
        with _progress(progress) as bar:
            for name in langs:
                summaries.append(_campaign(spark, sc, par, bar, name, cases, length, seed,
                                           Path(out), fault, limits_kw, shrink_s, write_parquet,
                                           engine_kw, max_reproducers, resume, stop_after_waves, waves,
                                           fail_tasks_every))
    finally:
        if own:
            spark.stop()
    return summaries


def _campaign(spark: Any, sc: Any, par: int, bar: Any, name: str, cases: int, length: int,
              seed: int, out: Path, fault: str | None, limits_kw: dict | None, shrink_s: float,
              write_parquet: bool, engine_kw: dict | None = None,
              max_reproducers: int | None = None, resume: bool = False,
              stop_after_waves: int | None = None, waves: int | None = None,
              fail_tasks_every: int | None = None) -> FuzzSummary:
    t_total = time.perf_counter()
    lang_out = out / name
    lang_out.mkdir(parents=True, exist_ok=True)
    for old in list(lang_out.glob("case-*")) + list(lang_out.glob("summary.json")):
        old.unlink()
    n_waves = max(1, min(cases, waves)) if waves else min(MAX_WAVES, max(1, cases // (8 * par)))
    n_waves, done = _wave_state(lang_out, {"lang": name, "seed": seed, "cases": cases, "length": length,
                                           "fault": fault, "limits": limits_kw, "engine": engine_kw}, n_waves, resume)
    summ = FuzzSummary(lang=name, seed=seed, length=length, out=str(lang_out),
                       engine_limits=_engine_limits(engine_kw).to_json())
    if write_parquet:
        generate_streams(spark, cases, length, seed, name).write.mode("overwrite").parquet(
            str(lang_out / "streams.parquet"))
        summ.parquet = {"streams": str(lang_out / "streams.parquet"), "results": str(lang_out / "results.parquet")}
    slices = max(1, min(cases, max(4 * par, 20)))
    task = bar.add_task(f"fuzz {name}", total=cases, rate="")
    group = f"ceplab-fuzz-{name}-{seed}-{time.time_ns()}"
    t0 = time.perf_counter()
    rows: list[dict] = []
    tally: dict[str, int] = {}

    def show(done: int) -> None:
        el = time.perf_counter() - t0
        found = ", ".join(f"{tally[k]} {k.replace('_', ' ')}" for k in ("disagree", "undecided", "engine_limit",
                                                                         "engine_refusal") if tally.get(k))
        bar.update(task, completed=done, rate=(f"{done / el:.1f} cases/s" if done else "")
                   + (f"  {found}" if found else ""))

    # a few Spark jobs (waves) over consecutive case ids: the bar counts the verdicts after each wave, and
    # within a wave follows its completed tasks (classic sessions; Spark Connect has no status tracker); each
    # finished wave is saved, so an interrupted campaign can be resumed
    ran = 0
    for w in range(n_waves):
        lo, hi = cases * w // n_waves, cases * (w + 1) // n_waves
        if w in done:                       # finished before an interruption (--resume)
            got = done[w]
        else:
            if stop_after_waves is not None and ran >= stop_after_waves:
                raise KeyboardInterrupt
            got = _run_wave(spark, sc, group, name, seed, length, fault, limits_kw, engine_kw, lo, hi,
                            max(1, min(hi - lo, slices // n_waves)), lambda k: show(len(rows) + k),
                            fail_tasks_every)
            _save_wave(lang_out, w, got)
            ran += 1
        rows.extend(got)
        for r in got:
            tally[r["verdict"]] = tally.get(r["verdict"], 0) + 1
        show(len(rows))
    summ.seconds = time.perf_counter() - t0
    summ.cores = par
    summ.master = _master_name(spark)
    count_rows(summ, rows)
    if write_parquet and rows:
        from pyspark.sql.types import (DoubleType, LongType, StringType, StructField,
                                       StructType)

        schema = StructType([StructField("case_id", LongType()), StructField("query", StringType()),
                             StructField("verdict", StringType()),
                             StructField("oracle_count", LongType()),
                             StructField("engine_count", LongType()),
                             StructField("oracle_seconds", DoubleType()),
                             StructField("engine_seconds", DoubleType())])
        spark.createDataFrame([(r["case_id"], r["query"], r["verdict"], r["oracle_count"],
                                r["engine_count"], float(r["oracle_seconds"] or 0.0),
                                float(r["engine_seconds"] or 0.0)) for r in rows],
                              schema).write.mode("overwrite").parquet(str(lang_out / "results.parquet"))
    finish_campaign(summ, name, seed, length, lang_out, fault, limits_kw, shrink_s, engine_kw,
                    bar, t_total, max_reproducers)
    return summ


class ResumeError(ValueError):
    """``--resume`` on a campaign folder written with other parameters."""


def _wave_state(lang_out: Path, params: dict, n_waves: int, resume: bool) -> tuple[int, dict[int, list[dict]]]:
    """``(number of waves, {wave: rows})`` of the campaign in ``lang_out``: the saved waves when resuming a
    campaign with the same ``params`` (its wave count is kept), else none (the old waves are removed)."""
    import shutil

    state, waves = lang_out / "campaign.json", lang_out / "waves"
    if resume and state.exists():
        saved = json.loads(state.read_text(encoding="utf-8"))
        if saved.get("params") != json.loads(json.dumps(params)):
            raise ResumeError(f"cannot resume the campaign in {lang_out}: it was started with "
                              f"{saved.get('params')}, not {params}")
        n = int(saved["waves"])
        done = {}
        for f in sorted(waves.glob("wave-*.json")):
            done[int(f.stem.split("-")[1])] = json.loads(f.read_text(encoding="utf-8"))
        return n, done
    if waves.exists():
        shutil.rmtree(waves)
    state.write_text(json.dumps({"params": params, "waves": n_waves}, indent=2) + "\n", encoding="utf-8")
    return n_waves, {}


def _save_wave(lang_out: Path, w: int, rows: list[dict]) -> None:
    """Write one finished wave (atomically: a half-written file is never read back)."""
    d = lang_out / "waves"
    d.mkdir(exist_ok=True)
    tmp = d / f".wave-{w:03d}.tmp"
    tmp.write_text(json.dumps(rows), encoding="utf-8")
    tmp.replace(d / f"wave-{w:03d}.json")


def _run_wave(spark: Any, sc: Any, group: str, name: str, seed: int, length: int, fault: str | None,
              limits_kw: dict | None, engine_kw: dict | None, lo: int, hi: int, parts: int,
              progress: Any, fail_every: int | None = None) -> list[dict]:
    """Cases ``lo .. hi-1`` as one Spark job; ``progress(k)`` with the cases done so far in it.  On Ctrl-C the
    job is cancelled before ``KeyboardInterrupt`` goes on."""
    return run_rows_job(spark, sc, f"{group}-{lo}", f"ceplab fuzz {name}: cases {lo}..{hi - 1}, seed {seed}",
                        lo, hi, parts, _CaseRows(name, seed, length, fault, limits_kw, engine_kw, fail_every),
                        progress)


def run_rows_job(spark: Any, sc: Any, tag: str, description: str, lo: int, hi: int, parts: int, mapper: Any,
                 progress: Any) -> list[dict]:
    """``spark.range(lo, hi, numPartitions=parts).mapInPandas(mapper, "row string")``, its rows parsed as JSON, in id
    order; ``progress(k)`` with the ids done so far.  On Ctrl-C the job is cancelled before ``KeyboardInterrupt``
    goes on.

    With a SparkContext (a classic session): one job (job group ``tag``), its progress read every 0.25 s from the
    completed tasks.  Without one (Spark Connect, ``sc`` None, whose client has no status tracker): the same
    partitions as ``parts`` jobs of one partition each, run concurrently from threads (the session is
    thread-safe; Spark schedules their tasks as it would the one job's), and ``progress`` advances as each job
    ends, so a long wave shows progress on Connect too (:func:`_run_rows_jobs`).

    Args:
        mapper: a picklable ``mapInPandas`` function that yields one JSON text (column ``row``) per id.
    """
    if sc is None and parts > 1 and hi - lo > 1:
        return _run_rows_jobs(spark, lo, hi, parts, mapper, progress)

    def job() -> list[dict]:
        if sc is not None:
            sc.setJobGroup(tag, description)
        df = spark.range(lo, hi, numPartitions=parts).mapInPandas(mapper, schema="row string")
        return [json.loads(r["row"]) for r in df.collect()]

    pool = ThreadPoolExecutor(max_workers=1)
    fut = pool.submit(job)
    try:
        while True:
            try:
                return fut.result(timeout=0.25)
            except FutureTimeout:
                inner = _completed_tasks(sc, tag) * (hi - lo) // parts if sc is not None else 0
                progress(min(hi - lo, inner))
    except KeyboardInterrupt:
        try:
            if sc is not None:
                sc.cancelJobGroup(tag)
            else:
                spark.interruptAll()
        except Exception:  # noqa: BLE001 - interrupting anyway
            pass
        raise
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def _run_rows_jobs(spark: Any, lo: int, hi: int, parts: int, mapper: Any, progress: Any) -> list[dict]:
    """:func:`run_rows_job` without a SparkContext: ids ``lo .. hi-1`` split into ``parts`` contiguous ranges (as
    ``spark.range`` splits them), one job each, submitted together from a thread pool; ``progress`` gets the ids of
    the ranges done so far as each job ends; the rows come back in id order."""
    n = hi - lo
    bounds = sorted({lo + n * i // parts for i in range(parts)} | {hi})
    chunks = list(zip(bounds, bounds[1:]))

    def job(a: int, b: int) -> list[dict]:
        df = spark.range(a, b, numPartitions=1).mapInPandas(mapper, schema="row string")
        return [json.loads(r["row"]) for r in df.collect()]

    pool = ThreadPoolExecutor(max_workers=len(chunks))
    futs = [pool.submit(job, a, b) for a, b in chunks]
    try:
        shown = -1
        while True:
            k = sum(b - a for f, (a, b) in zip(futs, chunks) if f.done() and f.exception() is None)
            if k != shown:
                progress(k)
                shown = k
            failed = next((f for f in futs if f.done() and f.exception() is not None), None)
            running = [f for f in futs if not f.done()]
            if failed is not None or not running:
                break
            wait(running, timeout=0.25, return_when=FIRST_COMPLETED)
        if failed is not None:
            _interrupt(spark)
            failed.result()                                # raises the job's error
        return [row for f in futs for row in f.result()]
    except KeyboardInterrupt:
        _interrupt(spark)
        raise
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def _interrupt(spark: Any) -> None:
    """Cancel every running operation of a (Connect) session."""
    try:
        spark.interruptAll()
    except Exception:  # noqa: BLE001 - interrupting anyway
        pass


def count_rows(summ: FuzzSummary, rows: list[dict]) -> None:
    """Fill ``summ``'s counts (and refusal examples) from a campaign's rows."""
    from ceplab.workbench import language
    from ceplab.workbench.coverage import tally

    rows.sort(key=lambda r: r["case_id"])
    summ.rows = rows
    summ.cases = len(rows)
    summ.coverage = tally(language.get(summ.lang).options, (r.get("features", ()) for r in rows))
    for r in rows:
        key = _COUNTERS[r["verdict"]]
        setattr(summ, key, getattr(summ, key) + 1)
        summ.oracle_seconds += r["oracle_seconds"] or 0.0
        summ.engine_seconds += r["engine_seconds"] or 0.0
        if r["verdict"] == "engine_refusal" and len(summ.engine_refusal_examples) < REFUSAL_EXAMPLES:
            summ.engine_refusal_examples.append({"case_id": r["case_id"], "query": r["query"],
                                                 "refusal": r.get("refusal")})


def finish_campaign(summ: FuzzSummary, name: str, seed: int, length: int, lang_out: Path,
                    fault: str | None, limits_kw: dict | None, shrink_s: float,
                    engine_kw: dict | None, bar: Any = None, t_total: float | None = None,
                    max_reproducers: int | None = None) -> None:
    """Write ``summary.json``, shrink and save every case that did not agree (at most ``max_reproducers`` of
    them, the first by case id, when it is not None), rewrite the summary.

    A reproducer that cannot be written (a bug in a language's hooks, say) is listed in
    ``shrink_errors``; the campaign still finishes.
    """
    summ.write()
    bad = [r for r in summ.rows if r["verdict"] != "agree"]
    if max_reproducers is not None:
        bad = bad[:max(0, max_reproducers)]
    stask = bar.add_task(f"shrink {name}", total=len(bad), rate="") if bad and bar else None
    for r in bad:
        try:
            summ.reproducers.append(str(write_reproducer(name, seed, length, r, lang_out, fault,
                                                         limits_kw, shrink_s, engine_kw)))
        except Exception as e:  # noqa: BLE001 - the summary must still be written
            summ.shrink_errors.append(f"case {r['case_id']}: {type(e).__name__}: {e}")
        if stask is not None:
            bar.update(stask, advance=1)
    if t_total is not None:
        summ.total_seconds = time.perf_counter() - t_total
    summ.complete = True
    summ.write()


# ----------------------------------------------------------------------------- reproducers
def write_reproducer(lang_name: str, seed: int, length: int, row: dict, out: Path,
                     fault: str | None = None, limits_kw: dict | None = None,
                     shrink_s: float = 30.0, engine_kw: dict | None = None) -> Path:
    """Shrink a failing case on the driver and write its JSON reproducer; returns its path.

    Every engine run here is under the per-case engine limit ``engine_kw`` in a forked worker.
    An ``engine_limit`` case shrinks while the engine alone still overruns that limit.
    """
    from ceplab.workbench import language
    from ceplab.workbench.compare import (compare, engine_refusal, options_from_kv, run_engine,
                                          sort_json)
    from ceplab.workbench.limits import EngineLimitExceeded
    from ceplab.workbench.shrink import shrink

    lang = faulty_language(language.get(lang_name), fault)
    cid = row["case_id"]
    stream = stream_from_json(row.get("stream", []), f"case-{cid}", lang)
    opts_json = row.get("options", {})
    options = options_from_kv(lang.options, [f"{k}={v}" for k, v in opts_json.items()])
    limits = _limits(limits_kw)
    elimits = _engine_limits(engine_kw, isolate=True)
    verdict = row["verdict"]

    from ceplab.semantics.errors import InputError

    def fails(q: str, s: Any) -> bool:
        if verdict == "engine_limit":       # the engine alone, under the same limit
            try:
                run_engine(lang, lang.parse(q), s, options, elimits)
            except EngineLimitExceeded:
                return True
            return False
        try:
            return compare(lang, lang.parse(q), s, options, limits, elimits).verdict == verdict
        except InputError as e:
            if verdict == "engine_refusal":
                return bool(engine_refusal(e))
            # e.g. the oracle refuses the query: counted as undecided (run_case)
            return verdict == "undecided" and bool((row.get("undecided") or "").startswith(
                ("UnsupportedError", "ParseError")))

    full = verdict in ("disagree", "engine_limit")
    budget = shrink_s if full else min(shrink_s, 10.0)
    checks = 400 if full else 10
    shrunk = shrink(lang, row["query"], stream, fails, max_checks=checks, deadline_s=budget)
    shrunk_json: dict[str, Any] = {"query": shrunk.query, "stream": _stream_json(shrunk.stream, lang),
                                   "checks": shrunk.checks, "steps": shrunk.steps}
    try:
        rep = compare(lang, lang.parse(shrunk.query), shrunk.stream, options, limits, elimits)
        tj = lang.result_to_json
        shrunk_json.update(
            verdict=rep.verdict, problems=rep.problems, undecided=rep.undecided,
            engine_limit=rep.engine_limit,
            oracle_results=None if rep.oracle_results is None
            else sort_json(tj(r) for r in rep.oracle_results),
            engine_results=sort_json(tj(r) for r in rep.engine_results),
            oracle_only=sort_json(tj(r) for r in rep.oracle_only),
            engine_only=sort_json(tj(r) for r in rep.engine_only))
    except Exception as e:
        shrunk_json["error"] = f"{type(e).__name__}: {e}"
    base = out / f"case-{cid:05d}"
    qfile = base.with_suffix(".query")
    sfile = base.with_suffix(".jsonl")
    qfile.write_text(shrunk.query.rstrip() + "\n", encoding="utf-8")
    sfile.write_text("".join(json.dumps(e, sort_keys=True) + "\n" for e in shrunk_json["stream"]),
                     encoding="utf-8")
    sets = " ".join(f"--set {k}={v}" for k, v in opts_json.items())
    if verdict == "engine_limit":
        sets += (f" --engine-time {elimits.time_s or 0:g}"
                 f" --engine-memory {elimits.memory_mb or 0}")
    repro = {
        "lang": lang_name, "seed": seed, "case_id": cid, "length": length, "verdict": verdict,
        "fault_injected": fault,
        "query": row["query"], "stream": row.get("stream", []), "options": opts_json,
        "oracle_results": row.get("oracle_results"), "engine_results": row.get("engine_results"),
        "emissions": row.get("emissions"), "oracle_only": row.get("oracle_only"),
        "engine_only": row.get("engine_only"), "problems": row.get("problems", []),
        "undecided": row.get("undecided"), "engine_limit": row.get("engine_limit"),
        "refusal": row.get("refusal"), "engine_limits": elimits.to_json(),
        "engine_path": row.get("engine_path"),
        "shrunk": shrunk_json,
        "replay": f"ceplab compare {lang_name} {qfile} {sfile} {sets}".strip(),
        "regenerate": f"python -c \"from ceplab.workbench.spark import replay_case; "
                      f"print(replay_case({lang_name!r}, {seed}, {length}, {cid}))\"",
    }
    if lang.case_extras is not None:     # e.g. background knowledge written into the query text
        repro.update(lang.case_extras(row["query"]) or {})
        shrunk_json.update(lang.case_extras(shrunk.query) or {})
    path = base.parent / f"{base.name}-{verdict}.json"
    path.write_text(json.dumps(repro, indent=2) + "\n", encoding="utf-8")
    return path


def replay_case(lang_name: str, seed: int, length: int, case_id: int) -> dict:
    """Re-run one campaign case locally, without Spark (same row as the campaign produced)."""
    return run_case(lang_name, seed, length, case_id)
