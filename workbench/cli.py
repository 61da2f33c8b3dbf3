"""The ``ceplab`` command (DESIGN.md section 4).

::

    ceplab run LANG QUERY STREAM [--oracle|--engine] [--set K=V]... [--json]
    ceplab compare LANG QUERY STREAM [--set K=V]... [--json]   exit 0 agree, 1 disagree, 2 bad input, 3 undecided
    ceplab fuzz LANG|all [--cases N] [--length L] [--seed S] [--master URL] [--out DIR] [--json]
    ceplab papers-check [PAPER] [--json]
    ceplab bench [NAME] [--json] [--peer P] [--quick]
    ceplab verify

Languages: ``cel``, ``etalis`` (ETALIS rule files in the ``.event`` syntax; streams as JSON Lines
or ETALIS ``.stream`` files; ``--set policy=chronological`` etc. select a consumption policy) and
``epsparql`` (EP-SPARQL query files; streams as TriG or the line format ``<s> <p> <o> T1 T2 .``;
``--set optional_end=strict`` etc. set the switches one by one).

Bad input (a query or stream that does not parse, an unknown language, a bad ``--set``, a query
the engine or oracle refuses) prints
``file:line:column: message`` on stderr and exits 2, without a traceback. ``--json`` prints exactly
one JSON object on stdout. Progress bars go to stderr.
"""
from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path
from typing import Any, List, Optional

import typer
from rich.console import Console
from rich.table import Table

from ceplab.semantics.errors import InputError

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="ceplab: verify complex event processing languages against ASP oracles.")
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)

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
    from ceplab.workbench import languages

    try:
        return languages.get(name)
    except KeyError as e:
        raise _bad_input(f"ceplab: {e.args[0] if e.args else e}")


def _input_error(e: InputError, query: Path) -> str:
    """The error message; errors raised on the parsed query (e.g. UnsupportedError) name its file."""
    if e.file == "<string>":
        return str(type(e)(e.message, str(query), e.line, e.column))
    return str(e)


def _emit_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def _limits(timeout: Optional[float]) -> Any:
    from ceplab.workbench.compare import default_limits

    return default_limits(time_s=timeout)


def _with_background(lang: Any, q: Any, background: Optional[Path], ontology: Optional[Path]) -> Any:
    """Attach ``--background``/``--ontology`` Turtle files to the query (languages with a static knowledge base,
    e.g. EP-SPARQL note A14); a language without one rejects them as bad input."""
    if background is None and ontology is None:
        return q
    hook = lang.extra.get("with_background")
    if hook is None:
        raise _bad_input(f"ceplab: {lang.name} takes no --background/--ontology")
    return hook(q, background, ontology)


def _load(lang: Any, query: Path, stream: Path, sets: List[str]) -> tuple[Any, str, Any, Any]:
    from ceplab.workbench.compare import options_from_kv

    options = options_from_kv(lang.options, sets)
    q = lang.parse_file(query)
    text = Path(query).read_text(encoding="utf-8")
    s = lang.read_stream(stream)
    declared = lang.extra.get("declared_options")
    if declared is not None:       # e.g. an ETALIS file setting its consumption policy
        explicit = {kv.split("=", 1)[0].strip() for kv in sets}
        options, notes = declared(q, options, explicit, str(query))
        for n in notes:
            err.print(f"ceplab: {n}", markup=False)
    return q, text, s, options


def _fmt(lang: Any, r: Any) -> str:
    return json.dumps(lang.result_to_json(r))


# ----------------------------------------------------------------------------- run
@app.command()
def run(lang: str = typer.Argument(..., help="language name: cel, etalis or epsparql"),
        query: Path = typer.Argument(..., help="query file in the language's concrete syntax "
                                     "(ETALIS: a .event rule file)"),
        stream: Path = typer.Argument(..., help="stream file (JSON Lines or CSV; ETALIS: JSON Lines "
                                     "or an ETALIS .stream file)"),
        oracle: bool = typer.Option(False, "--oracle", help="evaluate with the clingo oracle"),
        engine: bool = typer.Option(False, "--engine", help="evaluate with the incremental engine "
                                    "(default)"),
        sets: List[str] = typer.Option([], "--set", help="semantic switch NAME=VALUE (repeatable)"),
        timeout: Optional[float] = typer.Option(None, "--timeout", help="oracle time limit (s)"),
        background: Optional[Path] = typer.Option(None, "--background", help="static graph (Turtle; "
                                                  "EP-SPARQL background knowledge, timeless)"),
        ontology: Optional[Path] = typer.Option(None, "--ontology", help="RDFS ontology (Turtle; EP-SPARQL)"),
        json_out: bool = typer.Option(False, "--json", help="print one JSON object")) -> None:
    """Evaluate a query on a stream with the oracle or the engine."""
    from ceplab.workbench.compare import run_engine, run_oracle, sort_json

    if oracle and engine:
        raise _bad_input("ceplab: choose one of --oracle and --engine")
    L = _lang(lang)
    try:
        q, text, s, options = _load(L, query, stream, sets)
        q = _with_background(L, q, background, ontology)
        if oracle:
            results, undecided, secs, stats = run_oracle(L, q, s, options, _limits(timeout))
            path = "clingo oracle"
            if stats is not None and hasattr(stats, "calls"):
                path += (f": {stats.calls} solve call(s), ground size "
                         f"{getattr(stats, 'ground_size', '?')}")
            emissions = None
        else:
            emissions, secs, path = run_engine(L, q, s, options)
            results, undecided = frozenset(r for r, _ in emissions), None
    except InputError as e:
        raise _bad_input(_input_error(e, query))
    which = "oracle" if oracle else "engine"
    if json_out:
        obj = {"lang": lang, "query": text.strip(), "evaluator": which,
               "results": None if results is None else sort_json(L.result_to_json(r) for r in results),
               "count": None if results is None else len(results), "seconds": round(secs, 6),
               "path": path}
        if undecided is not None:
            obj["undecided"] = undecided
        _emit_json(obj)
    else:
        if undecided is not None:
            out.print(f"{which}: undecided after {secs:.3f} s: {undecided}", markup=False)
        else:
            out.print(f"{which} ({path}): {len(results)} result(s) in {secs:.3f} s", markup=False)
            if emissions is not None:
                for r, p in emissions:
                    at = "at close()" if p is None else f"at position {p}"
                    out.print(f"  {at}: {_fmt(L, r)}", markup=False)
            else:
                for j in sort_json(L.result_to_json(r) for r in results):
                    out.print(f"  {json.dumps(j)}", markup=False)
    if undecided is not None:
        raise typer.Exit(3)


# ----------------------------------------------------------------------------- compare
@app.command()
def compare(lang: str = typer.Argument(..., help="language name: cel, etalis or epsparql"),
            query: Path = typer.Argument(..., help="query file"),
            stream: Path = typer.Argument(..., help="stream file (JSON Lines or CSV; ETALIS: JSON "
                                          "Lines or an ETALIS .stream file)"),
            sets: List[str] = typer.Option([], "--set", help="semantic switch NAME=VALUE"),
            timeout: Optional[float] = typer.Option(None, "--timeout", help="oracle time limit (s)"),
            background: Optional[Path] = typer.Option(None, "--background", help="static graph (Turtle; "
                                                      "EP-SPARQL background knowledge, timeless)"),
            ontology: Optional[Path] = typer.Option(None, "--ontology", help="RDFS ontology (Turtle; "
                                                    "EP-SPARQL)"),
            peer: Optional[str] = typer.Option(None, "--peer", help="also run this engine on the same input "
                                               "and compare it with the oracle (language etalis, peer etalis: "
                                               "the real ETALIS, needs ETALIS_HOME and swipl; language "
                                               "epsparql, peer etalis: the query compiled to ETALIS rules "
                                               "on ceplab's ETALIS engine)"),
            json_out: bool = typer.Option(False, "--json", help="print one JSON object")) -> None:
    """Compare oracle and engine (and a peer): exit 0 agree, 1 disagree, 2 bad input, 3 undecided."""
    from ceplab.workbench.compare import compare as do_compare, sort_json

    L = _lang(lang)
    peers = L.extra.get("peers", {})
    if peer is not None and peer not in peers:
        raise _bad_input(f"ceplab: unknown peer {peer!r} for {lang}; known: {', '.join(peers) or 'none'}")
    peer_res = None
    try:
        q, _text, s, options = _load(L, query, stream, sets)
        q = _with_background(L, q, background, ontology)
        rep = do_compare(L, q, s, options, _limits(timeout))
        if peer is not None:
            try:
                peer_res = frozenset(peers[peer](q, s, options, timeout))
            except RuntimeError as e:      # the peer failed: reported, never taken as agreement
                raise _bad_input(f"ceplab: peer {peer} failed: {e}")
    except InputError as e:
        raise _bad_input(_input_error(e, query))
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


# ----------------------------------------------------------------------------- fuzz
def _summary_table(title: str, rows: list[dict], check_col: bool = False) -> Table:
    t = Table(title=title)
    t.add_column("language", no_wrap=True)
    if check_col:
        t.add_column("check", no_wrap=True)
    for c in ("cases", "agree", "disagree", "undecided", "seconds"):
        t.add_column(c, justify="right")
    if not check_col:
        t.add_column("cases/s", justify="right")
    for r in rows:
        cells = [r["lang"]] + ([r["check"]] if check_col else [])
        cells += [str(r["cases"]), str(r["agree"]),
                  (f"[bold red]{r['disagree']}[/]" if r["disagree"] else "0"),
                  str(r["undecided"]), f"{r['seconds']:.1f}"]
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
         out_dir: Path = typer.Option(Path("ceplab-out/fuzz"), "--out",
                                      help="folder for Parquet streams/results and reproducers"),
         json_out: bool = typer.Option(False, "--json", help="print one JSON object"),
         timeout: float = typer.Option(20.0, "--timeout", help="oracle time limit per case (s)"),
         fault: Optional[str] = typer.Option(None, "--inject-fault", hidden=True,
                                             help="inject an engine fault: drop|duplicate|late")
         ) -> None:
    """Spark fuzzing campaign: random cases through oracle and engine (exit 1 on disagreement)."""
    from ceplab.workbench import languages

    _require_java()
    langs = languages.names() if lang == "all" else [_lang(lang).name]
    from ceplab.workbench.spark import FAULTS, fuzz as run_fuzz

    if fault is not None and fault not in FAULTS:
        raise _bad_input(f"ceplab: unknown fault {fault!r}; known: {', '.join(FAULTS)}")
    try:
        summaries = run_fuzz(langs, cases=cases, length=length, seed=seed, master=master,
                             out=out_dir, progress=True, fault=fault,
                             limits_kw={"time_s": timeout})
    except RuntimeError as e:
        typer.echo(f"ceplab: {e}", err=True)
        raise typer.Exit(2)
    rows = [s.to_json() for s in summaries]
    if json_out:
        _emit_json({"seed": seed, "cases": cases, "length": length, "languages": rows,
                    "disagree": sum(r["disagree"] for r in rows)})
    else:
        out.print(_summary_table(f"ceplab fuzz (seed {seed}, length {length})", rows))
        for r in rows:
            out.print(f"{r['lang']}: seconds and cases/s are for the comparisons; with stream "
                      f"generation, Parquet output and shrinking {r['total_seconds']:.1f} s; "
                      f"output in {r['out']}", markup=False)
        for s in summaries:
            for p in s.reproducers:
                out.print(f"reproducer: {p}", markup=False)
    if any(r["disagree"] for r in rows):
        raise typer.Exit(1)


# ----------------------------------------------------------------------------- papers-check
@app.command("papers-check")
def papers_check(paper: Optional[str] = typer.Argument(None, help="a language (cel, etalis, epsparql), a case "
                                                       "file name (figure1, etalis/note5) or a "
                                                       "path; default all"),
                 json_out: bool = typer.Option(False, "--json", help="print one JSON object"),
                 timeout: Optional[float] = typer.Option(None, "--timeout",
                                                         help="oracle time limit (s)")) -> None:
    """Run the papers' worked examples through oracle and engine and print verdicts."""
    from ceplab.workbench import papers

    try:
        verdicts = papers.check(paper, limits=_limits(timeout), progress=not json_out)
    except InputError as e:
        raise _bad_input(str(e))
    except LookupError as e:
        raise _bad_input(f"ceplab: {e.args[0] if e.args else e}")
    if json_out:
        _emit_json({"paper": paper, "cases": [v.to_json() for v in verdicts],
                    "ok": sum(v.ok for v in verdicts), "failed": sum(not v.ok for v in verdicts)})
    else:
        out.print(papers.table(verdicts))
    if any(not v.ok for v in verdicts):
        raise typer.Exit(1)


# ----------------------------------------------------------------------------- bench
@app.command()
def bench(name: Optional[str] = typer.Argument(None, help="benchmark name (default: all)"),
          json_out: bool = typer.Option(False, "--json", help="print one JSON object"),
          peer: Optional[str] = typer.Option(None, "--peer", help="also run this external engine"),
          quick: bool = typer.Option(False, "--quick", help="small sizes only"),
          full: bool = typer.Option(False, "--full", help="the whole grid: n up to 10^6 for every "
                                    "query and window (about 10 minutes)"),
          seed: Optional[int] = typer.Option(None, "--seed", help="workload seed")) -> None:
    """Benchmarks with printed tables (delegates to ceplab.workbench.bench.run)."""
    from ceplab.workbench import bench as B
    import ceplab.workbench.langs.cel.bench
    import ceplab.workbench.langs.epsparql.bench
    import ceplab.workbench.langs.etalis.bench
    benchmarks = {"cel": ceplab.workbench.langs.cel.bench.BENCHMARK,
                  "etalis": ceplab.workbench.langs.etalis.bench.BENCHMARK,
                  "epsparql": ceplab.workbench.langs.epsparql.bench.BENCHMARK}
    request = B.BenchRequest(json=json_out, peer=peer, quick=quick, full=full, seed=seed)
    try:
        code = B.run(benchmarks, name, request)
    except InputError as e:
        raise _bad_input(str(e))
    raise typer.Exit(int(code or 0))


# ----------------------------------------------------------------------------- verify
def real_data_check(L: Any, limits: Any, progress: bool = True) -> tuple[dict, list[dict]]:
    """Oracle versus engine on the language's bundled real-data cases.

    Returns ``(summary row, per-case rows)``.
    """
    from ceplab.workbench.compare import compare as do_compare
    from ceplab.workbench.spark import _progress

    t0 = time.perf_counter()
    row = {"lang": L.name, "check": "real data", "cases": 0, "agree": 0, "disagree": 0,
           "undecided": 0, "seconds": 0.0}
    details = []
    cases = L.real_cases() if L.real_cases else []
    with _progress(progress) as bar:
        task = bar.add_task(f"{L.name} real data", total=len(cases), rate="")
        for name, text, stream in cases:
            q = L.parse(text, name)
            rep = do_compare(L, q, stream, L.options(), limits)
            row["cases"] += 1
            row[rep.verdict] += 1
            details.append({"case": name, "events": len(stream), **rep.to_json()})
            bar.update(task, advance=1)
    row["seconds"] = time.perf_counter() - t0
    return row, details


def paper_check(L: Any, limits: Any, progress: bool = True) -> tuple[dict, list[Any]]:
    """The language's paper cases through oracle and engine; returns (summary row, verdicts)."""
    from ceplab.workbench import papers

    t0 = time.perf_counter()
    verdicts = papers.check(L.name, limits=limits, progress=progress)
    row = {"lang": L.name, "check": "paper cases", "cases": len(verdicts), "agree": 0,
           "disagree": 0, "undecided": 0, "seconds": 0.0}
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
           json_out: bool = typer.Option(False, "--json", help="print one JSON object")) -> None:
    """The main job: every language on its bundled real streams and paper cases, plus a Spark
    fuzz campaign; one table; exit 1 on any disagreement."""
    from ceplab.workbench import languages

    _require_java()
    from ceplab.workbench.compare import default_limits

    limits = default_limits()
    rows: list[dict] = []
    details: dict[str, Any] = {}
    reproducers: list[str] = []
    t_all = time.perf_counter()
    spark = None
    try:
        for name in languages.names():
            L = _lang(name)
            r, d = real_data_check(L, limits, progress=True)
            rows.append(r)
            details[f"{name}/real"] = d
            r, v = paper_check(L, limits, progress=True)
            rows.append(r)
            details[f"{name}/papers"] = [x.to_json() for x in v]
            if cases > 0:
                from ceplab.workbench.spark import fuzz as run_fuzz, spark_session

                if spark is None:
                    spark = spark_session(master)
                (s,) = run_fuzz([name], cases=cases, length=length, seed=seed, out=out_dir,
                                spark=spark, progress=True, limits_kw={"time_s": 20.0})
                rows.append({"lang": name, "check": f"fuzz, length {length}",
                             "cases": s.cases, "agree": s.agree, "disagree": s.disagree,
                             "undecided": s.undecided, "seconds": s.total_seconds,
                             "cases_per_s": s.cases_per_s})
                reproducers += s.reproducers
    except InputError as e:
        raise _bad_input(str(e))
    except RuntimeError as e:
        typer.echo(f"ceplab: {e}", err=True)
        raise typer.Exit(2)
    finally:
        if spark is not None:
            spark.stop()
    total = {"lang": "all", "check": "total",
             **{k: sum(r[k] for r in rows) for k in ("cases", "agree", "disagree", "undecided")},
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
        for p in reproducers:
            out.print(f"reproducer: {p}", markup=False)
    if total["disagree"]:
        raise typer.Exit(1)


def main() -> None:
    """Entry point of the ``ceplab`` console script."""
    app(prog_name="ceplab")


if __name__ == "__main__":
    main()
