"""``ceplab bench check [LANG]``: how ``ceplab check`` scales with Spark cores on one long stream (issue "Spark at
scale": a 10^5-event stream with ``w = 100`` checked end to end on ``local[2]`` in under 10 minutes, ``local[2]``
at least 1.7 times as fast as ``local[1]``).

For every language with an oracle workload and a long-stream generator (``Language.oracle_workload``,
``Language.stream_chunk``): one stream of ``events`` events (stream 0 of the seed, as ``ceplab generate`` draws it)
is written as a dataset in this process, and the workload's query at window ``w`` is checked against it by the
``ceplab check`` command, in a fresh process per run, as a researcher runs it:

* **cold**: ``--master local[1]`` and ``--master local[2]``; each run starts its own Spark (the driver's JVM and
  the Python workers), which is part of its wall time;
* **warm** (``connect``): ``--remote`` to a Spark Connect server over ``local[1]`` / ``local[2]`` started
  beforehand (a deployment that is up); the second of two runs is reported (the first starts the server's
  Python workers).

Per run: the command's wall seconds, the engine's seconds, the **solve span** (from the first segment's start to
the last one's end on the executors: the oracle's parallel phase, without start-ups), the number of processes
that solved segments, the result counts and the verdict.  Per language, the ratios ``local[1]`` over
``local[2]`` of the wall time and of the solve span.  A run that fails or does not agree is shown with its
verdict, never as a time.  This module names no language.
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Iterable

from ceplab.workbench.bench.harness import SEED, fmt, jsonable, report_head

#: the issue's targets
TARGET_EVENTS, TARGET_W, TARGET_SECONDS, TARGET_RATIO = 100_000, 100, 600.0, 1.7
#: owned events per segment (``ceplab check``'s default)
SEGMENT_EVENTS = 2000
#: a run's time limit (seconds)
RUN_LIMIT_S = 1800.0


def write_workload(lang: Any, events: int, w: int, seed: int, folder: Path) -> tuple[Path, Path, list[str]]:
    """Write the dataset (stream 0 of ``seed``, chunks of 100,000 events) and the workload's query; returns
    ``(dataset, query file, --set arguments)`` (the workload's switches that differ from the defaults)."""
    from ceplab.workbench.compare import options_to_json
    from ceplab.workbench.generate import MANIFEST, generate_here

    text, _stream, options = lang.oracle_workload(min(events, 10), w, seed)
    data = folder / f"{lang.name}-{events}-{seed}"
    if not (data / MANIFEST).exists():
        generate_here(lang, events, 1, seed, data)
    query = folder / f"{lang.name}-w{w}.query"
    query.write_text(text, encoding="utf-8")
    defaults = options_to_json(lang.options())
    sets = [f"--set={k}={v}" for k, v in options_to_json(options).items() if defaults.get(k) != v]
    return data, query, sets


def run_check(lang: str, query: Path, data: Path, sets: list[str], spark: list[str]) -> dict:
    """One ``ceplab check ... --json`` in a fresh process; its JSON object plus ``wall_s`` (or ``error``)."""
    args = [sys.executable, "-c", "from ceplab.workbench.cli import main; main()", "check", lang, str(query),
            str(data), "--segment-events", str(SEGMENT_EVENTS), "--json", *sets, *spark]
    t0 = time.perf_counter()
    try:
        p = subprocess.run(args, capture_output=True, text=True, timeout=RUN_LIMIT_S)
    except subprocess.TimeoutExpired:
        return {"verdict": "error", "error": f"over {RUN_LIMIT_S:g} s", "wall_s": None}
    wall = time.perf_counter() - t0
    try:
        obj = json.loads(p.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        return {"verdict": "error", "error": (p.stderr.strip().splitlines() or ["no output"])[-1][:200],
                "wall_s": None}
    obj["wall_s"] = wall
    obj["exit"] = p.returncode
    return obj


def _row(where: str, r: dict) -> dict:
    ok = r.get("verdict") == "agree"
    return {"where": where, "verdict": r.get("verdict"), "error": r.get("error"),
            "wall_s": r.get("wall_s") if ok else None, "engine_s": r.get("engine_seconds"),
            "solve_span_s": r.get("solve_span_seconds") if ok else None, "workers": r.get("workers"),
            "segments": r.get("segments"), "engine_count": r.get("engine_count"),
            "oracle_count": r.get("oracle_count")}


def _ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a and b else None


def measure_language(lang: Any, events: int, w: int, seed: int, folder: Path, connect: bool,
                     note: Callable[[str], None]) -> dict:
    """The runs of one language (module docstring)."""
    note(f"{lang.name}: writing {events:,} events")
    data, query, sets = write_workload(lang, events, w, seed, folder)
    rows = []
    for cores in (1, 2):
        note(f"{lang.name}: check on local[{cores}] (cold)")
        rows.append(_row(f"local[{cores}]", run_check(lang.name, query, data, sets, ["--master", f"local[{cores}]"])))
    if connect:
        from ceplab.workbench.sparkprocs import ConnectServer

        for cores in (1, 2):
            note(f"{lang.name}: starting a Spark Connect server over local[{cores}]")
            with ConnectServer(cores=cores) as server:
                note(f"{lang.name}: check through Spark Connect over local[{cores}] (first run)")
                run_check(lang.name, query, data, sets, ["--remote", server.url])
                note(f"{lang.name}: check through Spark Connect over local[{cores}] (warm)")
                rows.append(_row(f"connect local[{cores}]",
                                 run_check(lang.name, query, data, sets, ["--remote", server.url])))
    by = {r["where"]: r for r in rows}
    ratios = {}
    for label, one, two in (("cold", "local[1]", "local[2]"), ("connect", "connect local[1]", "connect local[2]")):
        if one in by and two in by:
            ratios[label] = {"wall": _ratio(by[one]["wall_s"], by[two]["wall_s"]),
                             "solve_span": _ratio(by[one]["solve_span_s"], by[two]["solve_span_s"])}
    return {"lang": lang.name, "events": events, "w": w, "query": query.read_text(encoding="utf-8"),
            "sets": sets, "rows": rows, "ratios": ratios}


def run(langs: Iterable[Any], events: int = TARGET_EVENTS, w: int = TARGET_W, seed: int | None = None,
        connect: bool = True, folder: Path | None = None, note: Callable[[str], None] = lambda s: None) -> dict:
    """Measure every language of ``langs`` with an oracle workload and a long-stream generator; the JSON-able
    report.  ``folder`` keeps the datasets (default: a temporary folder, removed afterwards)."""
    seed = SEED if seed is None else seed
    report = report_head("check", f"n={events} w={w}", seed)
    report.update(segment_events=SEGMENT_EVENTS, connect=connect)
    langs = [L for L in langs if L.oracle_workload is not None and L.stream_chunk is not None]
    if folder is None:
        with tempfile.TemporaryDirectory(prefix="ceplab-bench-check-") as tmp:
            report["languages"] = [measure_language(L, events, w, seed, Path(tmp), connect, note) for L in langs]
    else:
        folder.mkdir(parents=True, exist_ok=True)
        report["languages"] = [measure_language(L, events, w, seed, folder, connect, note) for L in langs]
    return jsonable(report)


def _s(x: Any) -> str:
    return "-" if x is None else f"{x:.1f}" if isinstance(x, float) else fmt(x, "int")


def render(report: dict, console: Any) -> None:
    """One table of runs and one of ratios and targets."""
    from rich.table import Table

    t = Table(title=f"ceplab check on one long stream ({report['grid']}, {report['segment_events']:,} owned events "
                    f"per segment, {report['machine']})")
    for col in ("language", "where", "wall s", "engine s", "solve span s", "workers", "segments", "results",
                "verdict"):
        t.add_column(col, justify="left" if col in ("language", "where", "verdict") else "right")
    for m in report["languages"]:
        for r in m["rows"]:
            t.add_row(m["lang"], r["where"], _s(r["wall_s"]), _s(r["engine_s"]), _s(r["solve_span_s"]),
                      _s(r["workers"]), _s(r["segments"]), _s(r["oracle_count"]),
                      r["verdict"] + (f" ({r['error']})" if r.get("error") else ""))
    console.print(t)
    t = Table(title=f"local[1] / local[2] (targets: wall on local[2] < {TARGET_SECONDS:g} s at n = "
                    f"{TARGET_EVENTS:,}, w = {TARGET_W}; ratio >= {TARGET_RATIO})")
    for col in ("language", "cold: wall", "cold: solve span", "connect: wall", "connect: solve span",
                "local[2] wall < target"):
        t.add_column(col, justify="left" if col == "language" else "right")
    for m in report["languages"]:
        two = next((r for r in m["rows"] if r["where"] == "local[2]"), None)
        at_target = (m["events"], m["w"]) == (TARGET_EVENTS, TARGET_W)
        ok = two is not None and two["wall_s"] is not None and two["wall_s"] < TARGET_SECONDS

        def cell(kind: str, what: str) -> str:
            x = m["ratios"].get(kind, {}).get(what)
            return "-" if x is None else f"{x:.2f}x " + ("PASS" if x >= TARGET_RATIO else "FAIL")
        t.add_row(m["lang"], cell("cold", "wall"), cell("cold", "solve_span"), cell("connect", "wall"),
                  cell("connect", "solve_span"), ("PASS" if ok else "FAIL") if at_target else "- (not n, w of the target)")
    console.print(t)


__all__ = ["RUN_LIMIT_S", "SEGMENT_EVENTS", "TARGET_EVENTS", "TARGET_RATIO", "TARGET_SECONDS", "TARGET_W",
           "measure_language", "render", "run", "run_check", "write_workload"]
