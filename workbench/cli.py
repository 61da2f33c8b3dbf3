"""The ``ceplab`` command (DESIGN.md section 4).

::

    ceplab run LANG QUERY STREAM [--oracle [--stats] [--segments N]|--engine] [--profile P] [--set K=V]... [--json]
    ceplab compare LANG QUERY STREAM [--profile P] [--set K=V]... [--engine-time S] [--engine-memory MIB] [--json]
        exit 0 agree, 1 disagree, 2 bad input, 3 undecided, 5 engine limit
    ceplab fuzz LANG|all [--cases N] [--length L] [--seed S] [--master URL] [--out DIR]
        [--engine-time S] [--engine-memory MIB] [--json]
    ceplab fuzz LANG|all --malformed [--cases N] [--seed S] [--master URL|--remote URL] [--out DIR]
    ceplab check LANG QUERY STREAM [--profile P] [--set K=V]... [--segment-events N] [--master URL] [--out DIR]
        [--json]
    ceplab papers-check [PAPER] [--json]
    ceplab papers-check --report [--out DIR]          the errata report of all papers (REPORT.md, REPORT.html)
    ceplab papers-check LANG --suite DIR [--json]     exit 0 agree, 1 differ/error, 2 suite cannot run
    ceplab bench [NAME] [--json] [--peer P] [--quick]
    ceplab bench mutants|oracles [LANG] ...
    ceplab verify [--engine-time S] [--engine-memory MIB]

    ceplab languages [--json]
    ceplab notebooks --execute|--check [NAME...]     exit 1: a stored output differs (--check) or an error output

Languages are the plugins registered under the entry-point group ``ceplab.languages``
(:mod:`ceplab.workbench.language`); this module names none of them. ``ceplab languages`` lists them
with their switches (``--set NAME=VALUE``), their profiles (named sets of switch values, ``--profile NAME`` on
``run``, ``compare`` and ``check``: the profile's values first, then ``--set``; ``run --help`` lists them too),
their extra inputs (``--NAME VALUE`` on ``run`` and ``compare``, e.g. a static graph) and their peers
(``compare --peer NAME``).

Errors: every :class:`ceplab.semantics.errors.CeplabError` is printed on stderr as one message
(``file:line:column: message`` for bad input) and exits with the code
:func:`ceplab.semantics.errors.exit_code` gives (2 bad input or refused query, 4 oracle failure),
without a traceback; an undecided oracle exits 3. An engine that overruns its per-case limit
(``--engine-time`` seconds, default 10, and ``--engine-memory`` MiB, default 2048; 0 = no limit;
:mod:`ceplab.workbench.limits`) is stopped: ``compare`` reports the verdict ``engine_limit`` and
exits 5, ``fuzz`` and ``verify`` count it, shrink it and save a reproducer, and exit 1 like on a
disagreement. ``--json`` prints exactly one JSON object on stdout. Progress bars go to stderr.
Tables printed to a pipe or a file are not wrapped.
"""
from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path
from typing import Any, List, NoReturn, Optional

import typer
import typer.core
from rich.console import Console
from rich.table import Table

from ceplab.semantics.errors import CeplabError, exit_code

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="ceplab: verify complex event processing languages against ASP oracles.")


def _console(stderr: bool = False) -> Console:
    """A console that fits where it prints: the terminal's width on a terminal, full-width rows
    (no wrapping, no cut columns) when the stream is a pipe or a file."""
    c = Console(stderr=stderr, highlight=False, soft_wrap=True)
    if not c.is_terminal:
        c = Console(stderr=stderr, highlight=False, soft_wrap=True, width=4000)
    return c


out = _console()
err = _console(stderr=True)

JAVA_MESSAGE = ("ceplab: Java 17 or newer is required (PySpark runs on the JVM) but no 'java' "
                "was found on the PATH. Install a JDK 17+ (e.g. 'apt-get install openjdk-17-jre') "
                "and try again.")


def java_available() -> bool:
    """True if a ``java`` executable is on the PATH (PySpark needs Java 17+)."""
    return shutil.which("java") is not None


def java_major_version() -> int | None:
    """The major version of the ``java`` on the PATH (``java -version``), or None if it cannot be
    told (no java, or output not understood)."""
    import re
    import subprocess
    exe = shutil.which("java")
    if exe is None:
        return None
    try:
        proc = subprocess.run([exe, "-version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r'version "(\d+)(?:\.(\d+))?', proc.stderr + proc.stdout)
    if not m:
        return None
    major = int(m.group(1))
    return int(m.group(2) or 0) if major == 1 else major  # "1.8.0" is Java 8


def _require_java() -> None:
    if not java_available():
        typer.echo(JAVA_MESSAGE, err=True)
        raise typer.Exit(2)
    v = java_major_version()
    if v is not None and v < 17:
        typer.echo(f"ceplab: Java 17 or newer is required (PySpark runs on the JVM) but the 'java' "
                   f"on the PATH is Java {v}. Install a JDK 17+ and put it first on the PATH.",
                   err=True)
        raise typer.Exit(2)


def _bad_input(msg: str) -> "typer.Exit":
    """Print ``msg`` on stderr (``file:line:col: message`` for InputErrors) and return Exit(2)."""
    typer.echo(msg, err=True)
    return typer.Exit(2)


def _lang(name: str) -> Any:
    from ceplab.workbench import language

    try:
        return language.get(name)
    except language.RegistryError as e:
        raise _bad_input(f"ceplab: {e.args[0] if e.args else e}")


def _fail(e: CeplabError, query: Optional[Path] = None) -> "typer.Exit":
    """Print ``e`` (naming ``query`` when it was raised on the parsed query text) and return the
    Exit with its code: the one place where errors become exit codes."""
    from ceplab.semantics.errors import InputError

    if query is not None and isinstance(e, InputError):
        e = e.located(str(query))
    msg = str(e)
    typer.echo(msg if isinstance(e, InputError) else f"ceplab: {type(e).__name__}: {msg}", err=True)
    return typer.Exit(exit_code(e))


def _emit_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def _limits(timeout: Optional[float]) -> Any:
    from ceplab.workbench.compare import default_limits

    return default_limits(time_s=timeout)


_ENGINE_TIME_HELP = "engine limit per case: wall-clock seconds (0: none); overrunning it is the verdict engine_limit"
_ENGINE_MEMORY_HELP = "engine limit per case: MiB of memory the engine may add (0: none)"


def _engine_opts() -> tuple[Any, Any]:
    from ceplab.workbench.limits import DEFAULT_MEMORY_MB, DEFAULT_TIME_S

    return (typer.Option(DEFAULT_TIME_S, "--engine-time", min=0.0, help=_ENGINE_TIME_HELP),
            typer.Option(DEFAULT_MEMORY_MB, "--engine-memory", min=0, help=_ENGINE_MEMORY_HELP))


_ENGINE_TIME, _ENGINE_MEMORY = _engine_opts()


def _engine_kw(engine_time: float, engine_memory: int) -> dict:
    """``{"time_s", "memory_mb"}`` of ``EngineLimits`` (None = no limit of that kind)."""
    return {"time_s": float(engine_time) if engine_time else None,
            "memory_mb": int(engine_memory) if engine_memory else None}


def _language_inputs(lang: Any, q: Any, extra: List[str]) -> Any:
    """Attach the language's extra inputs given as ``--NAME VALUE`` (or ``--NAME=VALUE``) to the
    query, in the order given (:class:`ceplab.workbench.language.Input`).

    Raises:
        typer.Exit(2): an option the language does not declare (the message lists those it does),
            a missing value, a file that does not exist, or a value of the wrong kind.
    """
    known = {i.name: i for i in lang.inputs}
    names = ", ".join(f"--{n}" for n in known) or "none"
    k = 0
    while k < len(extra):
        arg = extra[k]
        name, eq, value = arg[2:].partition("=") if arg.startswith("--") else ("", "", "")
        if name not in known:
            raise _bad_input(f"ceplab: {lang.name} takes no option {arg!r}; its extra inputs: {names}")
        if not eq:
            if k + 1 >= len(extra):
                raise _bad_input(f"ceplab: --{name} needs a value")
            value = extra[k + 1]
            k += 1
        k += 1
        inp = known[name]
        if inp.kind == "path":
            if not Path(value).is_file():
                raise _bad_input(f"{value}: --{name}: no such file")
            val: Any = Path(value)
        elif inp.kind == "int":
            try:
                val = int(value)
            except ValueError:
                raise _bad_input(f"ceplab: --{name} expects an integer, got {value!r}") from None
        else:
            val = value
        q = inp.apply(q, val)
    return q


_EXTRA_ARGS = {"allow_extra_args": True, "ignore_unknown_options": True}


def _profiles_text() -> str:
    """One paragraph per profile of every registered language (``Language.profiles``): ``LANG NAME: k=v, ...``."""
    from ceplab.workbench import language

    rows = []
    for name in language.names():
        try:
            L = language.get(name)
        except Exception:  # a broken plugin is reported by `ceplab languages`, not by --help
            continue
        for prof, values in (L.profiles or {}).items():
            rows.append(f"{L.name} {prof}: " + ", ".join(f"{k}={v}" for k, v in values.items()))
    return ("Profiles (--profile NAME; --set overrides their values):\n\n" + "\n\n".join(rows)) if rows else ""


class _WithProfiles(typer.core.TyperCommand):
    """A command whose ``--help`` ends with the profiles of the registered languages (built from the registry when
    the help is shown, so the CLI names no language)."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        self.epilog = _profiles_text() or None
        super().format_help(ctx, formatter)


_PROFILE_HELP = ("a named set of switch values of the language (listed below and by `ceplab languages`); --set "
                 "overrides its values")


def _load(lang: Any, query: Path, stream: Path, sets: List[str],
          profile: Optional[str] = None) -> tuple[Any, str, Any, Any]:
    from ceplab.workbench.compare import options_from_kv, profile_values

    options = options_from_kv(lang.options, sets, profile_values(lang, profile))
    q = lang.parse_file(query)
    text = Path(query).read_text(encoding="utf-8")
    s = lang.read_stream(stream)
    declared = lang.declared_options
    if declared is not None:       # switches the query file sets itself
        explicit = {kv.split("=", 1)[0].strip() for kv in sets}
        options, notes = declared(q, options, explicit, str(query))
        for n in notes:
            err.print(f"ceplab: {n}", markup=False)
    return q, text, s, options


def _fmt(lang: Any, r: Any) -> str:
    return json.dumps(lang.result_to_json(r))


# ----------------------------------------------------------------------------- run
@app.command(context_settings=_EXTRA_ARGS, cls=_WithProfiles)
def run(ctx: typer.Context,
        lang: str = typer.Argument(..., help="a registered language (see `ceplab languages`)"),
        query: Path = typer.Argument(..., help="query file in the language's concrete syntax"),
        stream: Path = typer.Argument(..., help="stream file in one of the language's stream formats"),
        oracle: bool = typer.Option(False, "--oracle", help="evaluate with the clingo oracle"),
        engine: bool = typer.Option(False, "--engine", help="evaluate with the incremental engine "
                                    "(default)"),
        sets: List[str] = typer.Option([], "--set", help="semantic switch NAME=VALUE (repeatable)"),
        profile: Optional[str] = typer.Option(None, "--profile", help=_PROFILE_HELP),
        timeout: Optional[float] = typer.Option(None, "--timeout", help="oracle time limit (s)"),
        show_stats: bool = typer.Option(False, "--stats", help="with --oracle: print the oracle's ground "
                                        "rules and atoms, grounding and solving time and solve calls"),
        segments: Optional[int] = typer.Option(None, "--segments", min=1, help="with --oracle: solve the "
                                               "stream in overlapping segments of about N owned events "
                                               "(windowed queries the language declares local)"),
        json_out: bool = typer.Option(False, "--json", help="print one JSON object")) -> None:
    """Evaluate a query on a stream with the oracle or the engine.

    The language's extra inputs (``ceplab languages``) are given as ``--NAME VALUE``. ``--stats``
    (with ``--oracle``) adds the oracle's :class:`ceplab.asp.oracle.Stats`, also when it is undecided:
    a ``stats`` object in the JSON output, a ``stats:`` line otherwise; with ``--segments`` the statistics
    are summed over the segments. ``--segments N`` (with ``--oracle``) solves the stream segment by segment
    (:mod:`ceplab.workbench.segments`; the time limit applies to each segment); a query the language does not
    declare local (``Language.locality``) is refused with exit 2.
    """
    from ceplab.workbench.compare import run_engine, run_oracle, sort_json

    if oracle and engine:
        raise _bad_input("ceplab: choose one of --oracle and --engine")
    if show_stats and not oracle:
        raise _bad_input("ceplab: --stats reports the oracle's grounding and solving; use it with --oracle")
    if segments is not None and not oracle:
        raise _bad_input("ceplab: --segments splits the oracle's work; use it with --oracle")
    L = _lang(lang)
    stats = None
    try:
        q, text, s, options = _load(L, query, stream, sets, profile)
        q = _language_inputs(L, q, list(ctx.args))
        if oracle and segments is not None:
            results, undecided, secs, stats, path = _segmented(L, q, s, options, _limits(timeout), segments, query)
            emissions = None
        elif oracle:
            results, undecided, secs, stats = run_oracle(L, q, s, options, _limits(timeout))
            path = "clingo oracle"
            if stats is not None and hasattr(stats, "calls"):
                path += (f": {stats.calls} solve call(s), ground size "
                         f"{getattr(stats, 'ground_size', '?')}")
            emissions = None
        else:
            emissions, secs, path = run_engine(L, q, s, options)
            results, undecided = frozenset(r for r, _ in emissions), None
    except CeplabError as e:
        raise _fail(e, query)
    which = "oracle" if oracle else "engine"
    if json_out:
        obj = {"lang": lang, "query": text.strip(), "evaluator": which,
               "results": None if results is None else sort_json(L.result_to_json(r) for r in results),
               "count": None if results is None else len(results), "seconds": round(secs, 6),
               "path": path}
        if undecided is not None:
            obj["undecided"] = undecided
        if show_stats:
            obj["stats"] = _stats_json(stats)
        _emit_json(obj)
    else:
        if undecided is not None:
            out.print(f"{which}: undecided after {secs:.3f} s: {undecided}", markup=False)
        else:
            out.print(f"{which} ({path}): {len(results)} result(s) in {secs:.3f} s", markup=False)
            # one plain write for all result lines: rich's per-line rendering cost more than an oracle
            # run on long streams (about 0.4 ms a line); the console neither highlights nor wraps anyway
            if emissions is not None:
                lines = [f"  {'at close()' if p is None else f'at position {p}'}: {_fmt(L, r)}\n"
                         for r, p in emissions]
            else:
                lines = [f"  {json.dumps(j)}\n" for j in sort_json(L.result_to_json(r) for r in results)]
            out.file.write("".join(lines))
            out.file.flush()
        if show_stats:
            st = _stats_json(stats)
            out.print("stats: " + (", ".join(f"{k} {v}" for k, v in st.items()) if st else "none reported"),
                      markup=False)
    if undecided is not None:
        raise typer.Exit(3)


def _segmented(L: Any, q: Any, s: Any, options: Any, limits: Any, size: int, query: Path
               ) -> tuple[Any, Any, float, dict, str]:
    """``run --oracle --segments``: the segmented answer, its summed statistics and a path line."""
    from ceplab.workbench.segments import segmented_oracle

    loc = L.locality(q, options, s) if L.locality is not None else None
    if loc is None:
        raise _bad_input(f"ceplab: {query}: --segments needs a query the {L.name} plugin declares local on this "
                         f"stream (a windowed query under a switch setting whose answer decomposes over time, see "
                         f"Language.locality); this one is not, run it without --segments")
    ans = segmented_oracle(L, q, s, options, limits, loc, size)
    stats: dict[str, Any] = {}
    for row in ans.segments:
        for k, v in (row.get("stats") or {}).items():
            if isinstance(v, (int, float)):
                stats[k] = stats.get(k, 0) + v
    path = (f"clingo oracle, {len(ans.segments)} segment(s) of about {size} owned events, "
            f"{_overlap(loc.span, loc.lookahead, loc.unit)}")
    return ans.results, ans.undecided, ans.seconds, stats, path


def _overlap(span: int, lookahead: int, unit: str) -> str:
    """How far segments overlap, for ``run --segments`` and ``check``: ``overlap 10 ticks`` (span only) or
    ``overlap 0 ticks before, 10 after``."""
    u = "ticks" if unit == "time" else "positions"
    return f"overlap {span} {u}" if not lookahead else f"overlap {span} {u} before, {lookahead} after"


def _stats_json(stats: Any) -> dict[str, Any]:
    """An oracle's statistics (:class:`ceplab.asp.oracle.Stats`, or a dict) as a JSON object with the ground size;
    ``{}`` when the oracle reported none."""
    if stats is None:
        return {}
    d = dict(stats) if isinstance(stats, dict) else dict(stats.to_json())
    if "ground_rules" in d and "atoms" in d:
        d["ground_size"] = d["ground_rules"] + d["atoms"]
    return {k: round(v, 6) if isinstance(v, float) else v for k, v in d.items()}


# ----------------------------------------------------------------------------- compare
@app.command(context_settings=_EXTRA_ARGS, cls=_WithProfiles)
def compare(ctx: typer.Context,
            lang: str = typer.Argument(..., help="a registered language (see `ceplab languages`)"),
            query: Path = typer.Argument(..., help="query file"),
            stream: Path = typer.Argument(..., help="stream file"),
            sets: List[str] = typer.Option([], "--set", help="semantic switch NAME=VALUE"),
            profile: Optional[str] = typer.Option(None, "--profile", help=_PROFILE_HELP),
            timeout: Optional[float] = typer.Option(None, "--timeout", help="oracle time limit (s)"),
            peer: Optional[str] = typer.Option(None, "--peer", help="also run this external engine on the same "
                                               "input and compare it with the oracle (the language's peers: "
                                               "`ceplab languages`)"),
            engine_time: float = _ENGINE_TIME,
            engine_memory: int = _ENGINE_MEMORY,
            json_out: bool = typer.Option(False, "--json", help="print one JSON object")) -> None:
    """Compare oracle and engine (and a peer): exit 0 agree, 1 disagree, 2 bad input, 3 undecided,
    5 engine limit (the engine overran --engine-time or --engine-memory and was stopped).

    The language's extra inputs (``ceplab languages``) are given as ``--NAME VALUE``.
    """
    from ceplab.workbench.compare import compare as do_compare, sort_json
    from ceplab.workbench.limits import EngineLimits

    L = _lang(lang)
    peers = L.peers
    if peer is not None and peer not in peers:
        raise _bad_input(f"ceplab: unknown peer {peer!r} for {lang}; known: {', '.join(peers) or 'none'}")
    peer_res = None
    try:
        q, _text, s, options = _load(L, query, stream, sets, profile)
        q = _language_inputs(L, q, list(ctx.args))
        rep = do_compare(L, q, s, options, _limits(timeout),
                         EngineLimits(**_engine_kw(engine_time, engine_memory)))
        if peer is not None:     # a failing peer raises PeerError: reported, never taken as agreement
            peer_res = frozenset(peers[peer].run(q, s, options, timeout))
    except CeplabError as e:
        raise _fail(e, query)
    code = rep.exit_code
    peer_only = oracle_only_p = frozenset()
    if peer_res is not None and rep.oracle_results is not None:
        peer_only = peer_res - rep.oracle_results
        oracle_only_p = rep.oracle_results - peer_res
        if (peer_only or oracle_only_p) and code == 0:
            code = 1
    if json_out:
        obj = rep.to_json()
        if peer_res is not None:
            obj["peer"] = {"name": peer, "count": len(peer_res),
                           "peer_only": sort_json(L.result_to_json(r) for r in peer_only),
                           "oracle_only": sort_json(L.result_to_json(r) for r in oracle_only_p),
                           "verdict": "agree" if not (peer_only or oracle_only_p) else "disagree"}
        _emit_json(obj)
    else:
        if peer_res is not None:
            v = "agrees with" if not (peer_only or oracle_only_p) else "DISAGREES with"
            out.print(f"peer {peer}: {len(peer_res)} result(s); {v} the oracle", markup=False)
            for r in oracle_only_p:
                out.print(f"  oracle only (not fired by {peer}): {_fmt(L, r)}", markup=False)
            for r in peer_only:
                out.print(f"  {peer} only: {_fmt(L, r)}", markup=False)
        out.print(f"{rep.summary()}  [engine path: {rep.engine_path}]", markup=False)
        for r in rep.oracle_only:
            out.print(f"  oracle only: {_fmt(L, r)}", markup=False)
        for r in rep.engine_only:
            out.print(f"  engine only: {_fmt(L, r)}", markup=False)
        for p in rep.problems:
            out.print(f"  problem: {p}", markup=False)
    raise typer.Exit(code)


# ----------------------------------------------------------------------------- generate
@app.command()
def generate(lang: str = typer.Argument(..., help="a registered language with a long-stream generator"),
             events: int = typer.Option(..., "--events", min=1, help="events per stream"),
             streams: int = typer.Option(1, "--streams", min=1, help="number of streams"),
             seed: int = typer.Option(0, "--seed", help="seed"),
             out_dir: Path = typer.Option(..., "--out", help="output folder (a partitioned Parquet dataset)"),
             chunk: int = typer.Option(100_000, "--chunk", min=1, help="events per chunk (one task, one file)"),
             master: str = typer.Option("local[*]", "--master", help="Spark master URL"),
             remote: Optional[str] = typer.Option(None, "--remote", help="a Spark Connect server sc://HOST:PORT"),
             json_out: bool = typer.Option(False, "--json", help="print one JSON object")) -> None:
    """Draw seeded random streams on Spark and write them as Parquet (:mod:`ceplab.workbench.generate`); the
    output is the same for any number of executors. ``ceplab check LANG QUERY OUT --stream K`` reads it."""
    from ceplab.workbench.generate import generate as do_generate
    from ceplab.workbench.spark import spark_session

    L = _lang(lang)
    if L.stream_chunk is None:
        raise _bad_input(f"ceplab: the {lang} plugin has no long-stream generator (Language.stream_chunk)")
    if remote is None:
        _require_java()
    try:
        spark = spark_session(master, "ceplab-generate", remote=remote)
    except RuntimeError as e:
        raise _bad_input(f"ceplab: {e}")
    try:
        man = do_generate(spark, L, events, streams, seed, out_dir, chunk)
    finally:
        spark.stop()
    man["events_per_s"] = round(man["written"] / man["seconds"], 1) if man["seconds"] > 0 else None
    man["out"], man["master"] = str(out_dir), remote or master
    if json_out:
        _emit_json(man)
    else:
        out.print(f"{man['written']:,} events in {man['streams']} stream(s), {man['files']} file(s), "
                  f"{man['seconds']:.1f} s ({man['events_per_s']:,.0f} events/s) on {man['master']}: {out_dir}",
                  markup=False)


# ----------------------------------------------------------------------------- check
@app.command(cls=_WithProfiles)
def check(lang: str = typer.Argument(..., help="a registered language (see `ceplab languages`)"),
          query: Path = typer.Argument(..., help="query file (a query the language declares local: windowed)"),
          stream: Path = typer.Argument(..., help="stream file (one long stream, read whole), or a dataset "
                                        "written by `ceplab generate` (read piece by piece, never whole)"),
          sets: List[str] = typer.Option([], "--set", help="semantic switch NAME=VALUE"),
          profile: Optional[str] = typer.Option(None, "--profile", help=_PROFILE_HELP),
          stream_id: int = typer.Option(0, "--stream", min=0, help="with a generated dataset: which stream"),
          segment_events: int = typer.Option(2000, "--segment-events", min=1, help="owned events per oracle "
                                             "segment"),
          master: Optional[str] = typer.Option(None, "--master", help="solve the segments on this Spark master "
                                               "(default: in this process)"),
          remote: Optional[str] = typer.Option(None, "--remote", help="solve the segments through this Spark "
                                               "Connect server sc://HOST:PORT"),
          timeout: Optional[float] = typer.Option(None, "--timeout", help="oracle time limit per segment (s)"),
          engine_time: float = typer.Option(0.0, "--engine-time", help="engine limit for the whole stream: "
                                            "wall-clock seconds (0: none)"),
          engine_memory: int = typer.Option(0, "--engine-memory", help="engine limit for the whole stream: MiB "
                                            "(0: none)"),
          out_dir: Optional[Path] = typer.Option(None, "--out", help="write a shrunk reproducer per disagreeing "
                                                 "segment here"),
          fault: Optional[str] = typer.Option(None, "--inject-fault", hidden=True,
                                              help="inject an engine fault: drop|duplicate|late"),
          json_out: bool = typer.Option(False, "--json", help="print one JSON object")) -> None:
    """Check the incremental engine over one long stream against the oracle solved segment by segment
    (:mod:`ceplab.workbench.check`): exit 0 agree, 1 disagree, 2 bad input or a query that is not local,
    3 undecided, 5 engine limit."""
    from ceplab.workbench.check import NotLocal, SparkUnavailable, check as do_check
    from ceplab.workbench.limits import EngineLimitExceeded, EngineLimits

    L = _lang(lang)
    spark = None
    if master is not None and remote is None:
        _require_java()
    try:
        from ceplab.workbench import generate as G

        if G.is_dataset(stream):
            from ceplab.workbench.compare import options_from_kv, profile_values

            options = options_from_kv(L.options, sets, profile_values(L, profile))
            q, text = L.parse_file(query), Path(query).read_text(encoding="utf-8")
            s = G.DatasetStream(L, stream, stream_id)      # read piece by piece, never whole
        else:
            q, text, s, options = _load(L, query, stream, sets, profile)
        if master is not None or remote is not None:
            from ceplab.workbench.spark import spark_session

            def spark() -> Any:   # started by the check in the background, while the engine runs
                return spark_session(master or "local[*]", "ceplab-check", remote=remote)
        from rich.console import Console
        from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                      console=Console(stderr=True), transient=True) as prog:
            task = prog.add_task("check", total=None)
            rep = do_check(L, q, text, s, options, size=segment_events, limits=_limits(timeout),
                           engine_limits=EngineLimits(**_engine_kw(engine_time, engine_memory)), spark=spark,
                           where=remote or master or "in process", out=out_dir, fault=fault,
                           note=lambda m: prog.update(task, description=f"check: {m}"))
    except NotLocal as e:
        raise _bad_input(f"ceplab: {query}: {e}; use `ceplab compare` on shorter streams")
    except SparkUnavailable as e:
        raise _bad_input(f"ceplab: {e}")
    except EngineLimitExceeded as e:
        out.print(f"engine limit: {e.reason}", markup=False)
        raise typer.Exit(5)
    except CeplabError as e:
        raise _fail(e, query)
    code = {"agree": 0, "disagree": 1, "undecided": 3}[rep.verdict]
    tj = L.result_to_json
    if json_out:
        obj = {"lang": lang, "verdict": rep.verdict, "events": rep.events, "segments": len(rep.segments),
               "span": rep.span, "lookahead": rep.lookahead, "unit": rep.unit, "engine_count": rep.engine_count,
               "oracle_count": rep.oracle_count, "engine_seconds": round(rep.engine_seconds, 6),
               "oracle_seconds": round(rep.oracle_seconds, 6),
               "solve_span_seconds": None if rep.solve_span() is None else round(rep.solve_span(), 6),
               "workers": rep.workers(), "where": rep.where, "undecided": rep.undecided,
               "oracle_only": [tj(r) for r in rep.oracle_only], "engine_only": [tj(r) for r in rep.engine_only],
               "problems": rep.problems, "cut": rep.cut}
        _emit_json(obj)
    else:
        out.print(f"{rep.verdict}: {rep.events:,} events, engine {rep.engine_count:,} result(s) in "
                  f"{rep.engine_seconds:.2f} s; oracle "
                  f"{'-' if rep.oracle_count is None else f'{rep.oracle_count:,}'} result(s) in "
                  f"{rep.oracle_seconds:.2f} s over {len(rep.segments)} segment(s) "
                  f"({_overlap(rep.span, rep.lookahead, rep.unit)}, {rep.where})", markup=False)
        if rep.undecided:
            out.print(f"  undecided: {rep.undecided}", markup=False)
        for r in rep.oracle_only[:20]:
            out.print(f"  oracle only: {_fmt(L, r)}", markup=False)
        for r in rep.engine_only[:20]:
            out.print(f"  engine only: {_fmt(L, r)}", markup=False)
        for p in rep.problems[:20]:
            out.print(f"  problem: {p}", markup=False)
        for c in rep.cut:
            out.print(f"  segment {c['segment']} (events {c['first']}..{c['stop'] - 1}): "
                      f"{'reproduced alone' if c['reproduced'] else 'not reproduced alone'}"
                      + (f"; reproducer {c['reproducer']}" if c["reproducer"] else ""), markup=False)
    raise typer.Exit(code)


# ----------------------------------------------------------------------------- fuzz
def _summary_table(title: str, rows: list[dict], check_col: bool = False) -> Table:
    t = Table(title=title)
    t.add_column("language", no_wrap=True)
    if check_col:
        t.add_column("check", no_wrap=True)
    for c in ("cases", "agree", "disagree", "undecided", "engine limit", "refused", "seconds"):
        t.add_column(c, justify="right")
    if not check_col:
        t.add_column("cases/s", justify="right")
    for r in rows:
        cells = [r["lang"]] + ([r["check"]] if check_col else [])
        lim = r.get("engine_limit", 0)
        cells += [str(r["cases"]), str(r["agree"]),
                  (f"[bold red]{r['disagree']}[/]" if r["disagree"] else "0"),
                  str(r["undecided"]), (f"[bold red]{lim}[/]" if lim else "0"),
                  str(r["engine_refusals"]) if "engine_refusals" in r else "-",
                  f"{r['seconds']:.1f}"]
        if not check_col:
            cells.append(f"{r.get('cases_per_s', 0.0):.2f}")
        t.add_row(*cells)
    return t


@app.command()
def fuzz(lang: str = typer.Argument(..., help="language name or 'all'"),
         cases: int = typer.Option(200, "--cases", min=1, help="number of random cases"),
         length: int = typer.Option(6, "--length", min=0, help="events per stream"),
         seed: int = typer.Option(0, "--seed", help="campaign seed"),
         master: str = typer.Option("local[*]", "--master", help="Spark master URL"),
         remote: Optional[str] = typer.Option(None, "--remote", help="a Spark Connect server sc://HOST:PORT "
                                              "(instead of --master)"),
         resume: bool = typer.Option(False, "--resume", help="complete an interrupted campaign in --out (same "
                                     "language, seed, cases, length and limits): its finished waves are kept"),
         out_dir: Path = typer.Option(Path("ceplab-out/fuzz"), "--out",
                                      help="folder for Parquet streams/results and reproducers"),
         json_out: bool = typer.Option(False, "--json", help="print one JSON object"),
         max_reproducers: Optional[int] = typer.Option(None, "--max-reproducers", min=0,
                                                       help="shrink and write reproducers for at most this "
                                                            "many failing cases, the first ones (default: all)"),
         timeout: float = typer.Option(20.0, "--timeout", help="oracle time limit per case (s)"),
         engine_time: float = _ENGINE_TIME,
         engine_memory: int = _ENGINE_MEMORY,
         coverage: bool = typer.Option(False, "--coverage", help="print how often each switch value, query "
                                       "construct and stream feature was drawn (always in summary.json)"),
         shrink_s: float = typer.Option(30.0, "--shrink-s", min=0.0,
                                        help="shrinking budget per failing case (s); 0 writes the "
                                             "reproducers unshrunk"),
         fault: Optional[str] = typer.Option(None, "--inject-fault", hidden=True,
                                             help="inject an engine fault: drop|duplicate|late|"
                                                  "loop|hog|refuse (with --malformed: traceback|hang)"),
         fail_tasks_every: Optional[int] = typer.Option(None, "--inject-task-failures", hidden=True, min=1,
                                                        help="the first attempt of each task holding a case id "
                                                             "divisible by N fails"),
         malformed: bool = typer.Option(False, "--malformed", help="robustness campaign: mutate the language's "
                                        "bundled queries, streams and graphs and run each mutant through `ceplab "
                                        "compare`; a traceback, a hang past --engine-time, a disagreement or an "
                                        "error naming no file is a finding (OUT/<lang>/malformed/)"),
         ) -> None:
    """Spark fuzzing campaign: random cases through oracle and engine (exit 1 on a disagreement
    or an engine limit). Engine refusals (the engine refuses a query the oracle answers) are
    counted on their own; OUT/<lang>/summary.json holds each language's counts.

    With ``--malformed`` (:mod:`ceplab.workbench.malformed`): ``--cases`` mutants per language of its bundled
    queries, streams and graphs, each run through ``ceplab compare`` in-process on the executors under
    ``--engine-time`` seconds and ``--engine-memory`` MiB for the whole run (the oracle under ``--timeout``,
    at most half of ``--engine-time``); exit 1 on any traceback, hang, disagreement or error message that names
    no file, each saved as a reproducer in OUT/<lang>/malformed/."""
    from ceplab.workbench import language

    if remote is None:
        _require_java()
    langs = language.names() if lang == "all" else [_lang(lang).name]
    if malformed:
        _fuzz_malformed(langs, cases, seed, master, remote, out_dir, resume, json_out, timeout, engine_time,
                        engine_memory, fault)
        return
    from ceplab.workbench.spark import FAULTS, fuzz as run_fuzz

    if fault is not None and fault not in FAULTS:
        raise _bad_input(f"ceplab: unknown fault {fault!r}; known: {', '.join(FAULTS)}")
    try:
        summaries = run_fuzz(langs, cases=cases, length=length, seed=seed, master=master,
                             out=out_dir, progress=True, fault=fault,
                             limits_kw={"time_s": timeout}, shrink_s=shrink_s,
                             engine_kw=_engine_kw(engine_time, engine_memory),
                             max_reproducers=max_reproducers, remote=remote, resume=resume,
                             fail_tasks_every=fail_tasks_every)
    except (RuntimeError, ValueError, KeyboardInterrupt) as e:
        _campaign_stopped(e, f"{out_dir}/<lang>/waves/")
    rows = [s.to_json() for s in summaries]
    if not coverage:
        for r in rows:
            r.pop("coverage", None)
    if json_out:
        _emit_json({"seed": seed, "cases": cases, "length": length, "languages": rows,
                    "disagree": sum(r["disagree"] for r in rows),
                    "engine_limit": sum(r["engine_limit"] for r in rows),
                    "engine_refusals": sum(r["engine_refusals"] for r in rows)})
    else:
        out.print(_summary_table(f"ceplab fuzz (seed {seed}, length {length})", rows))
        for r in rows:
            out.print(f"{r['lang']}: seconds and cases/s are for the comparisons "
                      f"({r['cases_per_min_per_core']:,.0f} cases/min/core on {r['master']}, {r['cores']} "
                      f"core(s)); with stream generation, Parquet output and shrinking {r['total_seconds']:.1f} s; "
                      f"output in {r['out']}", markup=False)
            _print_refusals(r)
        if coverage:
            from ceplab.workbench.coverage import render as render_coverage

            for s in summaries:
                render_coverage(s.lang, s.coverage, s.cases, out)
        for s in summaries:
            for p in s.reproducers:
                out.print(f"reproducer: {p}", markup=False)
            for e in s.shrink_errors:
                out.print(f"{s.lang}: no reproducer for {e}", markup=False)
    if any(r["disagree"] or r["engine_limit"] for r in rows):
        raise typer.Exit(1)


def _campaign_stopped(e: BaseException, waves: str) -> NoReturn:
    """Exit for a Spark campaign that did not finish: 2 when Spark could not start or ``--resume`` was refused
    (``RuntimeError``/``ValueError``), 130 on Ctrl-C (the finished waves are kept in ``waves``)."""
    if isinstance(e, KeyboardInterrupt):
        typer.echo(f"ceplab: interrupted; the finished waves are kept in {waves}: run the same command with "
                   "--resume to complete the campaign", err=True)
        raise typer.Exit(130)
    typer.echo(f"ceplab: {e}", err=True)
    raise typer.Exit(2)


def _fuzz_malformed(langs: list[str], cases: int, seed: int, master: str, remote: Optional[str], out_dir: Path,
                    resume: bool, json_out: bool, timeout: float, engine_time: float, engine_memory: int,
                    fault: Optional[str]) -> None:
    """``ceplab fuzz LANG --malformed`` (:func:`ceplab.workbench.malformed.campaign`): a table of the classes per
    language, the reproducers; exit 0, 1 on any finding, 2 on bad input or when Spark cannot start."""
    from ceplab.workbench import malformed as M

    if fault is not None and fault not in M.FAULTS:
        raise _bad_input(f"ceplab: unknown fault {fault!r} for --malformed; known: {', '.join(M.FAULTS)}")
    time_s = float(engine_time) if engine_time else None
    oracle_s = min(float(timeout), time_s / 2) if time_s else float(timeout)
    try:
        summaries = M.campaign(langs, cases=cases, seed=seed, master=master, remote=remote, out=out_dir,
                               time_s=time_s, memory_mb=int(engine_memory) if engine_memory else None,
                               oracle_s=oracle_s, resume=resume, fault=fault)
    except (RuntimeError, ValueError, KeyboardInterrupt) as e:
        _campaign_stopped(e, f"{out_dir}/<lang>/malformed/waves/")
    rows = [s.to_json() for s in summaries]
    if json_out:
        _emit_json({"malformed": True, "seed": seed, "cases": cases, "languages": rows,
                    "findings": sum(r["findings"] for r in rows)})
    else:
        t = Table(title=f"ceplab fuzz --malformed (seed {seed})")
        t.add_column("language", no_wrap=True)
        for c in M.CLASSES + ("mutants/min",):
            t.add_column(c.replace("_", " "), justify="right")
        for r in rows:
            t.add_row(r["lang"], *[(f"[bold red]{r[c]}[/]" if r[c] and c in M.FINDINGS else str(r[c]))
                                   for c in M.CLASSES], f"{r['per_minute']:,.0f}")
        out.print(t)
        for r in rows:
            loc = ", ".join(f"{v} {k}" for k, v in sorted(r["located"].items()))
            out.print(f"{r['lang']}: {r['cases']} mutants in {r['seconds']:.1f} s on {r['master']} ({r['cores']} "
                      f"core(s)); clean errors located by {loc or '-'}; output in {r['out']}", markup=False)
        for s in summaries:
            for p in s.reproducers:
                out.print(f"reproducer: {p}", markup=False)
    if any(r["findings"] for r in rows):
        raise typer.Exit(1)


def _print_refusals(r: dict) -> None:
    """``LANG: N engine refusal(s) (cases the oracle answers), e.g. ...`` when there are any."""
    if not r.get("engine_refusals"):
        return
    out.print(f"{r['lang']}: {r['engine_refusals']} engine refusal(s) of cases the oracle answers "
              f"(target 0), e.g.:", markup=False)
    for x in r.get("engine_refusal_examples", []):
        q = " ".join(str(x["query"]).split())
        out.print(f"  case {x['case_id']}: {q[:120]}{'...' if len(q) > 120 else ''}  -- "
                  f"{x['refusal']}", markup=False)


# ----------------------------------------------------------------------------- papers-check
@app.command("papers-check")
def papers_check(paper: Optional[str] = typer.Argument(None, help="a language, a case file name (LANG/STEM "
                                                       "or STEM) or a path; default all"),
                 json_out: bool = typer.Option(False, "--json", help="print one JSON object"),
                 timeout: Optional[float] = typer.Option(None, "--timeout",
                                                         help="oracle time limit (s)"),
                 suite: Optional[Path] = typer.Option(None, "--suite", help="with a language: run this directory "
                                                      "of an external system's own examples instead (the "
                                                      "language's example suite, see ceplab languages)"),
                 report: bool = typer.Option(False, "--report", help="write the errata report of all five papers "
                                             "(every worked example's verdict, every finding with its kind, minimal "
                                             "case and replay command) as REPORT.md and REPORT.html, with the "
                                             "replay files under cases/"),
                 report_out: Optional[Path] = typer.Option(None, "--out", help="with --report: the output folder "
                                                           "(default papers-check/report)")) -> None:
    """Run the papers' worked examples through oracle and engine and print verdicts.

    With ``--suite DIR`` (after a language): the language's example suite (``Language.suite``) on ``DIR``;
    exit 0 when every runnable example agrees, 1 otherwise, 2 when the suite cannot run here (the message
    says what is missing) or ``DIR`` is unreadable.

    With ``--report [--out DIR]`` (no language): one errata report for all papers (:mod:`ceplab.workbench.report`):
    each worked example is confirmed, an erratum or ambiguous (which switch), and each finding of the
    ``FINDINGS.md`` files (indexed by ``findings-index.json``) is a paper erratum, an ambiguity, an observation,
    a reconstruction or an implementation finding, with its minimal case, a small SVG figure of it
    (``figures/<lang>/<finding>-<n>.svg``) and the ``ceplab compare`` command that replays it. Deterministic: regenerate the checked-in ``papers-check/report`` with ``ceplab papers-check
    --report``. Exit 1 when a case fails."""
    from ceplab.workbench import papers

    if report:
        if paper is not None or suite is not None or json_out:
            raise _bad_input("ceplab: --report covers every paper; it takes no PAPER, --suite or --json")
        _papers_report(report_out if report_out is not None else Path("papers-check") / "report", timeout)
        return
    if report_out is not None:
        raise _bad_input("ceplab: --out goes with --report: ceplab papers-check --report --out DIR")
    if suite is not None:
        _papers_suite(paper, suite, json_out, timeout)
        return
    try:
        verdicts = papers.check(paper, limits=_limits(timeout), progress=not json_out)
    except CeplabError as e:
        raise _fail(e)
    except LookupError as e:
        raise _bad_input(f"ceplab: {e.args[0] if e.args else e}")
    if json_out:
        _emit_json({"paper": paper, "cases": [v.to_json() for v in verdicts],
                    "ok": sum(v.ok for v in verdicts), "failed": sum(not v.ok for v in verdicts)})
    else:
        out.print(papers.table(verdicts))
    if any(not v.ok for v in verdicts):
        raise typer.Exit(1)


def _papers_report(out_dir: Path, timeout: Optional[float]) -> None:
    """``papers-check --report [--out DIR]``: write the errata report (:func:`ceplab.workbench.report.write`)."""
    from ceplab.workbench import report

    try:
        files, sections = report.write(out_dir, limits=_limits(timeout), progress=True)
    except CeplabError as e:
        raise _fail(e)
    except OSError as e:
        raise _bad_input(f"ceplab: --out {out_dir}: {e}")
    md = out_dir / "REPORT.md"
    n_fig = sum(p.suffix == ".svg" and p.parent.parent.name == "figures" for p in files)
    out.print(f"wrote {md}, {out_dir / 'REPORT.html'}, {len(files) - 2 - n_fig} replay file(s) under "
              f"{out_dir / 'cases'} and {n_fig} figure(s) under {out_dir / 'figures'}", markup=False)
    failed = [r for s in sections for r in s.rows if r.label == "failed"]
    if failed:
        err.print(f"ceplab: {len(failed)} case(s) failed (verdict 'failed' in {md})", markup=False)
        raise typer.Exit(1)


def _papers_suite(lang: Optional[str], directory: Path, json_out: bool, timeout: Optional[float]) -> None:
    """``papers-check LANG --suite DIR``: the language's :class:`ceplab.workbench.language.ExampleSuite`."""
    if lang is None:
        raise _bad_input("ceplab: --suite needs a language: ceplab papers-check LANG --suite DIR")
    L = _lang(lang)
    if L.suite is None:
        raise _bad_input(f"ceplab: language {L.name} has no example suite (--suite)")
    reason = L.suite.unavailable()
    if reason is not None:
        raise _bad_input(f"ceplab: {reason}")
    if not directory.is_dir():
        raise _bad_input(f"ceplab: --suite {directory}: not a directory ({L.suite.help})")
    try:
        report = L.suite.run(directory, _limits(timeout if timeout is not None else L.suite.time_s),
                             not json_out)
    except CeplabError as e:
        raise _fail(e)
    except OSError as e:
        raise _bad_input(f"ceplab: --suite {directory}: {e}")
    if json_out:
        _emit_json({"lang": L.name, "suite": str(directory), **report.to_json()})
    else:
        out.print(report.table())
    if not report.ok:
        raise typer.Exit(1)


# ----------------------------------------------------------------------------- bench
@app.command()
def bench(name: Optional[str] = typer.Argument(None, help="a language's benchmark (default: every language "
                                              "that has one), or 'mutants', 'oracles' or 'check'"),
          target: Optional[str] = typer.Argument(None, help="with 'mutants', 'oracles' or 'check': the language "
                                                 "(default: every language that declares mutants / an oracle "
                                                 "workload)"),
          json_out: bool = typer.Option(False, "--json", help="print one JSON object per benchmark"),
          peer: Optional[str] = typer.Option(None, "--peer", help="also run this external engine"),
          quick: bool = typer.Option(False, "--quick", help="small sizes only"),
          full: bool = typer.Option(False, "--full", help="the whole grid (n up to 10^6; about 10 minutes "
                                    "per language)"),
          seed: Optional[int] = typer.Option(None, "--seed", help="workload seed"),
          checks: str = typer.Option("fuzz,long,verify", "--checks", help="mutants: the checks, comma-separated "
                                     "(fuzz, long, verify, tests)"),
          mutant: List[str] = typer.Option([], "--mutant", help="mutants: only this mutant (repeatable)"),
          cases: Optional[int] = typer.Option(None, "--cases", min=1, help="mutants: fuzz cases (default 600)"),
          master: str = typer.Option("local[1]", "--master", help="mutants: Spark master of the fuzz checks"),
          events: Optional[int] = typer.Option(None, "--events", min=1, help="check: stream length (default "
                                               "100,000; --quick: 10,000)"),
          window: int = typer.Option(100, "--window", min=1, help="check: the workload's window"),
          connect: bool = typer.Option(True, "--connect/--no-connect", help="check: also time warm Spark Connect "
                                       "servers over local[1] and local[2]"),
          ) -> None:
    """Benchmarks with printed tables: the languages' workloads on the shared harness.

    ``ceplab bench mutants [LANG]`` plants each of the language's engine mutants in a temporary copy of the
    engine and reports which checks kill it (:mod:`ceplab.workbench.mutants`). ``ceplab bench oracles [LANG]``
    measures how each oracle scales with the stream length and the window, the largest stream it settles in
    60 s, and differential cases per minute per core (:mod:`ceplab.workbench.bench.oracles`). ``ceplab bench
    check [LANG]`` times ``ceplab check`` on one long stream on local[1] and local[2], cold and through warm Spark
    Connect servers (:mod:`ceplab.workbench.bench.check`).
    """
    from ceplab.workbench import language
    from ceplab.workbench.bench import BenchRequest, run as run_bench

    if name == "mutants":
        _bench_mutants(target, [c.strip() for c in checks.split(",") if c.strip()], mutant, cases, master,
                       json_out)
        return
    if name == "oracles":
        _bench_oracles(target, quick, full, seed, json_out)
        return
    if name == "check":
        _bench_check(target, events or (10_000 if quick else 100_000), window, seed, connect, json_out)
        return
    if target is not None:
        raise _bad_input(f"ceplab: bench {name} takes no second argument (only 'bench mutants LANG', "
                         f"'bench oracles LANG' and 'bench check LANG' do)")

    benchmarks = {L.name: L.benchmark() for L in language.languages() if L.benchmark is not None}
    try:
        code = run_bench(benchmarks, name, BenchRequest(json=json_out, peer=peer, quick=quick, full=full,
                                                        seed=seed))
    except CeplabError as e:
        raise _fail(e)
    raise typer.Exit(int(code or 0))


def _bench_oracles(target: Optional[str], quick: bool, full: bool, seed: Optional[int], json_out: bool) -> None:
    """``ceplab bench oracles [LANG]`` (:mod:`ceplab.workbench.bench.oracles`): exit 0, or 2 on bad input."""
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from ceplab.workbench import language
    from ceplab.workbench.bench import oracles as O
    from ceplab.workbench.bench.harness import output_console

    if quick and full:
        raise _bad_input("ceplab: choose one of --quick and --full")
    langs = [_lang(target)] if target else language.languages()
    if target and langs[0].oracle_workload is None:
        raise _bad_input(f"ceplab: language {target!r} declares no oracle workload")
    kind = "quick" if quick else "full" if full else "default"
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                  console=Console(stderr=True), transient=True) as prog:
        task = prog.add_task(f"bench oracles ({kind} grid)", total=None)
        try:
            report = O.run(langs, kind, seed, lambda s: prog.update(task, description=f"bench oracles: {s}"))
        except CeplabError as e:
            raise _fail(e)
    if json_out:
        _emit_json(report)
    else:
        O.render(report, output_console())


def _bench_check(target: Optional[str], events: int, window: int, seed: Optional[int], connect: bool,
                 json_out: bool) -> None:
    """``ceplab bench check [LANG]`` (:mod:`ceplab.workbench.bench.check`): exit 0, 1 when a run did not agree,
    2 on bad input."""
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from ceplab.workbench import language
    from ceplab.workbench.bench import check as B
    from ceplab.workbench.bench.harness import output_console

    langs = [_lang(target)] if target else language.languages()
    if target and (langs[0].oracle_workload is None or langs[0].stream_chunk is None):
        raise _bad_input(f"ceplab: language {target!r} declares no oracle workload or long-stream generator")
    _require_java()
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                  console=Console(stderr=True), transient=True) as prog:
        task = prog.add_task("bench check", total=None)
        report = B.run(langs, events, window, seed, connect,
                       note=lambda s: prog.update(task, description=f"bench check: {s}"))
    if json_out:
        _emit_json(report)
    else:
        B.render(report, output_console())
    bad = any(r["verdict"] != "agree" for m in report["languages"] for r in m["rows"])
    raise typer.Exit(1 if bad else 0)


def _bench_mutants(target: Optional[str], checks: list[str], only: list[str], cases: Optional[int], master: str,
                   json_out: bool) -> None:
    """``ceplab bench mutants [LANG]``: exit 0 when every check ran, 1 when a mutant survived every check or a
    baseline check failed, 2 on bad input."""
    from ceplab.workbench import language, mutants as M

    langs = [_lang(target)] if target else [L for L in language.languages() if L.mutants is not None]
    if target and langs[0].mutants is None:
        raise _bad_input(f"ceplab: language {target!r} declares no mutants")
    bad = [c for c in checks if c not in M.CHECKS]
    if bad or not checks:
        raise _bad_input(f"ceplab: unknown check(s) {', '.join(bad) or '(none given)'}; known: "
                         f"{', '.join(M.CHECKS)}")
    if any(c in ("fuzz", "long") for c in checks):
        _require_java()
    results = []
    failed = False
    for L in langs:
        ms = L.mutants()
        if only:
            unknown = sorted(set(only) - {m.name for m in ms})
            if unknown and target:
                raise _bad_input(f"ceplab: {L.name} has no mutant {', '.join(unknown)}; known: "
                                 f"{', '.join(m.name for m in ms)}")
            ms = tuple(m for m in ms if m.name in only)
        reps = M.run_mutants(L, ms, checks, master=master, cases=cases,
                             progress=None if json_out else (lambda t: err.print(t, markup=False)))
        s = M.summary(reps)
        failed |= bool(s["survivors"] or s["errors"]) or any(v["baseline"] != "pass" for v in s["by_check"].values())
        results.append({"lang": L.name, "summary": s, "mutants": [r.to_json() for r in reps]})
        if not json_out:
            M.render(reps, out)
    if json_out:
        _emit_json({"bench": "mutants", "checks": checks, "languages": results})
    raise typer.Exit(1 if failed else 0)


# ----------------------------------------------------------------------------- languages
def _switches(L: Any) -> list[dict]:
    """The language's switches: name, type, default and allowed values (from ``Options``)."""
    import dataclasses
    import typing

    from ceplab.workbench.compare import _allowed

    hints = typing.get_type_hints(L.options)
    rows = []
    for f in dataclasses.fields(L.options):
        allowed, base = _allowed(hints.get(f.name, str))
        default = f.default if f.default is not dataclasses.MISSING else None
        rows.append({"name": f.name, "default": default,
                     "values": [a for a in allowed] if allowed is not None else
                     (base.__name__ if base is not None else "str")})
    return rows


@app.command("languages")
def languages_cmd(json_out: bool = typer.Option(False, "--json", help="print one JSON object")) -> None:
    """The registered languages (entry-point group ceplab.languages): switches, profiles, inputs, peers."""
    from ceplab.workbench import language

    langs = []
    for name in language.names():
        try:
            L = language.get(name)
        except Exception as e:  # a broken third-party plugin is reported, not fatal for the listing
            langs.append({"name": name, "error": f"{type(e).__name__}: {e}"})
            continue
        langs.append({"name": L.name, "paper": L.paper, "switches": _switches(L),
                      "profiles": {k: dict(v) for k, v in (L.profiles or {}).items()},
                      "inputs": [{"name": i.name, "kind": i.kind, "help": i.help} for i in L.inputs],
                      "peers": [{"name": p.name, "help": p.help} for p in L.peers.values()],
                      "fuzz": L.random_case is not None, "benchmark": L.benchmark is not None,
                      "papers": L.papers_dir is not None,
                      "suite": None if L.suite is None else L.suite.help})
    if json_out:
        _emit_json({"group": language.ENTRY_POINT_GROUP, "languages": langs})
        return
    t = Table(title=f"ceplab languages (entry points {language.ENTRY_POINT_GROUP})")
    for c in ("language", "paper", "switches (default first)", "profiles (--profile)", "inputs", "peers"):
        t.add_column(c, overflow="fold")
    for x in langs:
        if "error" in x:
            t.add_row(x["name"], f"[red]{x['error']}[/]", "", "", "", "")
            continue
        sw = "\n".join(f"{s['name']}: " + (", ".join(map(str, [s["default"]] + [v for v in s["values"]
                                                                             if v != s["default"]]))
                                          if isinstance(s["values"], list) else f"{s['values']} = {s['default']}")
                       for s in x["switches"])
        prof = "\n".join(f"{k}: " + ", ".join(f"{n}={v}" for n, v in vals.items())
                         for k, vals in x["profiles"].items())
        t.add_row(x["name"], x["paper"], sw or "-", prof or "-",
                  "\n".join(f"--{i['name']} ({i['kind']}): {i['help']}" for i in x["inputs"]) or "-",
                  "\n".join(f"{p['name']}: {p['help']}" for p in x["peers"]) or "-")
    out.print(t)


@app.command("matrix")
def matrix_cmd(cases: int = typer.Option(20, "--cases", min=1, help="random cases per construct (or pattern)"),
               seed: int = typer.Option(0, "--seed", help="the run's seed"),
               patterns: Optional[Path] = typer.Option(None, "--patterns", help="a file of core queries, one per "
                                                      "line (# comments): rows of their own, each on --cases "
                                                      "random streams, instead of the constructs"),
               languages: Optional[str] = typer.Option(None, "--languages", help="comma-separated languages "
                                                       "(default: every language with a translation)"),
               query: Optional[str] = typer.Option(None, "--query", help="replay one core query (with --stream) "
                                                   "in every language"),
               stream: Optional[str] = typer.Option(None, "--stream", help="the core stream of --query, "
                                                    "'a(1)@0 b(0)@1 ...'"),
               master: Optional[str] = typer.Option(None, "--master", help="run the cases on Spark (e.g. local[2]); "
                                                    "default: in this process"),
               remote: Optional[str] = typer.Option(None, "--remote", help="a Spark Connect server sc://HOST:PORT"),
               out_dir: Optional[Path] = typer.Option(None, "--out", help="write MATRIX.md and matrix.json here "
                                                      "(the checked-in copy: papers-check/matrix)"),
               timeout: float = typer.Option(20.0, "--timeout", help="oracle time limit per case and language (s)"),
               json_out: bool = typer.Option(False, "--json", help="print one JSON object"),
               ) -> None:
    """The cross-language semantics matrix (docs/matrix.md): the same core pattern and stream in every language
    with a translation, each by its oracle and its engine, compared pair by pair per construct; differences come
    with a shrunk minimal stream. Exit 1 when a language's oracle and engine disagree (a ceplab bug)."""
    from ceplab.asp.oracle import Limits
    from ceplab.workbench import language
    from ceplab.workbench.matrix import report as R
    from ceplab.workbench.matrix.core import CONSTRUCTS
    from ceplab.workbench.matrix.run import outcome_to_json, replay, run_matrix
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    names = [n.strip() for n in languages.split(",")] if languages else None
    langs = [_lang(n) for n in names] if names else [L for L in language.languages() if L.translation is not None]
    missing = [L.name for L in langs if L.translation is None]
    if missing:
        raise _bad_input(f"ceplab: {', '.join(missing)} declare(s) no matrix translation")
    limits = Limits(time_s=timeout)
    if (query is None) != (stream is None):
        raise _bad_input("ceplab: --query and --stream go together")
    try:
        if query is not None:
            res = replay(langs, query, stream, limits)
            if json_out:
                _emit_json({k: outcome_to_json(v) for k, v in res.items()})
                return
            t = Table(title=f"{query} on {stream}")
            for c in ("language", "status", "matches", "translated query"):
                t.add_column(c, overflow="fold")
            for n, o in res.items():
                ms = " ".join("{" + ",".join(map(str, sorted(m))) + "}" for m in sorted(o.matches, key=sorted)) \
                    if o.matches is not None else o.detail
                t.add_row(n, o.status, ms or "none", (o.query or "") + "".join(f" --set {k}={v}" for k, v in o.switches))
            out.print(t)
            return
        rows = list(CONSTRUCTS)
        if patterns is not None:
            from ceplab.workbench.matrix.core import parse as parse_core
            try:
                text = patterns.read_text(encoding="utf-8")
            except OSError as e:
                raise _bad_input(f"{patterns}: {e.strerror or e}")
            rows = []
            for i, line in enumerate(text.splitlines(), 1):
                line = line.split("#", 1)[0].strip()
                if line:
                    try:
                        parse_core(line)
                    except CeplabError as e:
                        raise _bad_input(f"{patterns}:{i}:{e.column or 1}: {e.message if hasattr(e, 'message') else e}")
                    rows.append(line)
            if not rows:
                raise _bad_input(f"{patterns}: no core query")
        total = len(rows) * cases
        with Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), console=Console(stderr=True), transient=True) as prog:
            task = prog.add_task("matrix", total=total)
            outcomes = None
            if master is not None or remote is not None:
                if remote is None:
                    _require_java()
                from ceplab.workbench.matrix.spark import outcomes_on_spark
                table = outcomes_on_spark([L.name for L in langs], rows, cases, seed, master or "local[*]", remote,
                                          timeout, lambda k: prog.update(task, completed=k))
                outcomes = lambda c, k: table[(c, k)]  # noqa: E731
            done = [0]

            def step(c: str, k: int) -> None:
                done[0] += 1
                prog.update(task, completed=done[0], description=f"matrix: {c}")
            res = run_matrix(langs, rows, cases, seed, limits, step, outcomes)
    except CeplabError as e:
        raise _fail(e)
    if out_dir is not None:
        R.write(res, out_dir)
    if json_out:
        data = res.to_json()
        data["expectations"] = R.expectations(res)
        _emit_json(data)
    else:
        out.print(R.markdown(res))
    if res.bugs:
        raise typer.Exit(1)


@app.command("notebooks")
def notebooks_cmd(names: Optional[List[str]] = typer.Argument(None, help="a notebook in notebooks/ (with or "
                                                                     "without .ipynb) or a path; default: all"),
                  execute: bool = typer.Option(False, "--execute", help="re-execute and store the outputs in place"),
                  check_: bool = typer.Option(False, "--check", help="re-execute and compare with the stored "
                                                                   "outputs (timing cells excepted)")) -> None:
    """Execute the researcher notebooks and store their outputs deterministically, or check the stored ones
    (ceplab.workbench.notebooks; needs the dev extra: nbclient, nbformat, ipykernel)."""
    if execute == check_:
        raise _bad_input("give exactly one of --execute and --check")
    import importlib.util

    missing = [m for m in ("nbclient", "nbformat", "ipykernel") if importlib.util.find_spec(m) is None]
    if missing:  # pragma: no cover - the dev extra is missing
        raise _bad_input(f"ceplab notebooks needs {', '.join(missing)}: install the dev extra: pip install -e '.[dev]'")
    from ceplab.workbench import notebooks
    try:
        code = notebooks.run(names or [], check_only=check_, echo=typer.echo)
    except FileNotFoundError as e:
        raise _bad_input(str(e))
    if code:
        raise typer.Exit(code)


# ----------------------------------------------------------------------------- verify
def real_data_check(L: Any, limits: Any, progress: bool = True,
                    engine_limits: Any = None) -> tuple[dict, list[dict]]:
    """Oracle versus engine on the language's bundled real-data cases (the engine under
    ``engine_limits``, default that of ``compare``).

    Returns ``(summary row, per-case rows)``.
    """
    from ceplab.workbench.compare import compare as do_compare
    from ceplab.workbench.spark import _progress

    t0 = time.perf_counter()
    row = {"lang": L.name, "check": "real data", "cases": 0, "agree": 0, "disagree": 0,
           "undecided": 0, "engine_limit": 0, "seconds": 0.0}
    details = []
    cases = L.real_cases() if L.real_cases else []
    with _progress(progress) as bar:
        task = bar.add_task(f"{L.name} real data", total=len(cases), rate="")
        for name, text, stream in cases:
            q = L.parse(text, name)
            rep = do_compare(L, q, stream, L.options(), limits, engine_limits)
            row["cases"] += 1
            row[rep.verdict] += 1
            details.append({"case": name, "events": len(stream), **rep.to_json()})
            bar.update(task, advance=1)
    row["seconds"] = time.perf_counter() - t0
    return row, details


def paper_check(L: Any, limits: Any, progress: bool = True,
                engine_limits: Any = None) -> tuple[dict, list[Any]]:
    """The language's paper cases through oracle and engine; returns (summary row, verdicts)."""
    from ceplab.workbench import papers

    t0 = time.perf_counter()
    verdicts = papers.check(L.name, limits=limits, progress=progress, engine_limits=engine_limits)
    row = {"lang": L.name, "check": "paper cases", "cases": len(verdicts), "agree": 0,
           "disagree": 0, "undecided": 0, "engine_limit": 0, "seconds": 0.0}
    for v in verdicts:
        row[v.bucket] += 1
    row["seconds"] = time.perf_counter() - t0
    return row, verdicts


@app.command()
def verify(cases: int = typer.Option(200, "--cases", min=0, help="Spark fuzz cases per language"),
           length: int = typer.Option(6, "--length", min=0, help="events per fuzz stream"),
           seed: int = typer.Option(0, "--seed", help="fuzz seed"),
           master: str = typer.Option("local[*]", "--master", help="Spark master URL"),
           out_dir: Path = typer.Option(Path("ceplab-out/verify"), "--out",
                                        help="folder for fuzz Parquet files and reproducers"),
           engine_time: float = _ENGINE_TIME,
           engine_memory: int = _ENGINE_MEMORY,
           langs: List[str] = typer.Option([], "--lang", help="only this language (repeatable; default: "
                                           "every registered one)"),
           json_out: bool = typer.Option(False, "--json", help="print one JSON object")) -> None:
    """The main job: every language on its bundled real streams and paper cases, plus a Spark
    fuzz campaign; one table; exit 1 on any disagreement or engine limit."""
    from ceplab.workbench import language

    names = list(langs) or language.names()
    for name in names:
        _lang(name)                 # an unknown name is a usage error before anything runs
    if cases > 0:
        _require_java()
    from ceplab.workbench.compare import default_limits
    from ceplab.workbench.limits import EngineLimits

    limits = default_limits()
    engine_kw = _engine_kw(engine_time, engine_memory)
    elimits = EngineLimits(**engine_kw)
    rows: list[dict] = []
    details: dict[str, Any] = {}
    reproducers: list[str] = []
    t_all = time.perf_counter()
    spark = None
    try:
        for name in names:
            L = _lang(name)
            r, d = real_data_check(L, limits, progress=True, engine_limits=elimits)
            rows.append(r)
            details[f"{name}/real"] = d
            r, v = paper_check(L, limits, progress=True, engine_limits=elimits)
            rows.append(r)
            details[f"{name}/papers"] = [x.to_json() for x in v]
            if cases > 0:
                from ceplab.workbench.spark import fuzz as run_fuzz, spark_session

                if spark is None:
                    spark = spark_session(master)
                (s,) = run_fuzz([name], cases=cases, length=length, seed=seed, out=out_dir,
                                spark=spark, progress=True, limits_kw={"time_s": 20.0},
                                engine_kw=engine_kw)
                rows.append({"lang": name, "check": f"fuzz, length {length}",
                             "cases": s.cases, "agree": s.agree, "disagree": s.disagree,
                             "undecided": s.undecided, "engine_limit": s.engine_limit,
                             "engine_refusals": s.engine_refusals,
                             "engine_refusal_examples": s.engine_refusal_examples,
                             "seconds": s.total_seconds, "cases_per_s": s.cases_per_s})
                reproducers += s.reproducers
    except CeplabError as e:
        raise _fail(e)
    except RuntimeError as e:      # Spark could not start or a job failed
        typer.echo(f"ceplab: {e}", err=True)
        raise typer.Exit(2)
    finally:
        if spark is not None:
            spark.stop()
    total = {"lang": "all", "check": "total",
             **{k: sum(r[k] for r in rows)
                for k in ("cases", "agree", "disagree", "undecided", "engine_limit")},
             "engine_refusals": sum(r.get("engine_refusals", 0) for r in rows),
             "seconds": time.perf_counter() - t_all}
    if json_out:
        _emit_json({"rows": rows, "total": total, "details": details, "reproducers": reproducers})
    else:
        out.print(_summary_table("ceplab verify", rows + [total], check_col=True))
        for r in rows:
            if "cases_per_s" in r:
                out.print(f"{r['lang']} {r['check']}: {r['cases']} cases at "
                          f"{r['cases_per_s']:.1f} cases/s (seed {seed}, output in {out_dir})",
                          markup=False)
                _print_refusals(r)
        for p in reproducers:
            out.print(f"reproducer: {p}", markup=False)
    if total["disagree"] or total["engine_limit"]:
        raise typer.Exit(1)


def main(argv: Optional[List[str]] = None) -> None:
    """Entry point of the ``ceplab`` console script: ``ceplab ARGV`` (default ``sys.argv[1:]``); ends with
    ``SystemExit`` carrying the exit code."""
    app(args=argv, prog_name="ceplab")


if __name__ == "__main__":
    main()
