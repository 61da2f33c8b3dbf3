"""``ceplab bench oracles [LANG]``: how the clingo oracles scale, per language (issue "oracles at scale").

For every language with an oracle workload (``Language.oracle_workload(n, w, seed) -> (query_text, stream,
options)``: a windowed query with window ``w`` over ``n`` seeded random events, documented in the plugin):

* **against n** at fixed ``w``: ground rules and atoms, grounding and solving seconds, wall seconds of the
  whole oracle call (parse of the query excluded), results; the exponent ``k`` of ``atoms ~ n^k`` and of
  ``wall ~ n^k`` fitted by least squares on the logarithms of the decided points;
* **against w** at fixed ``n``: the same columns and the exponent in ``w``;
* **largest stream settled** within the grid's time limit (60 s by default): ``n`` doubled from a start
  value until a call is undecided or exceeds the limit;
* **differential fuzzing**: cases per minute on one core at stream lengths 6 and 12 -- the campaign's own
  per-case work (:func:`ceplab.workbench.spark.run_case`: draw, parse, oracle, engine, comparison) run
  sequentially in this process, without Spark, on wall time (one core busy) and on CPU time (this process
  and its oracle workers).

Targets (reported, never enforced by tests): a 2,000-event stream with ``w = 100`` in under 10 s; ground
size exponent <= 1.1 in ``n``; at least 50,000 events settled in 60 s; at least 3,000 fuzz cases per minute
per core at length 6.

Oracle calls run under :class:`ceplab.asp.oracle.Limits` with the grid's time limit, a ground-size limit of
:data:`MAX_GROUND` and :data:`MEMORY_MB` MiB; a call over a limit is shown as undecided with its reason, never
as a time.  This module names no language.
"""
from __future__ import annotations

import math
import os
import random
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

from ceplab.workbench.bench.harness import SEED, fmt, jsonable, report_head

MAX_GROUND = 200_000_000
MEMORY_MB = 8192
TARGET_N, TARGET_W, TARGET_SECONDS = 2000, 100, 10.0
TARGET_EXPONENT = 1.1
TARGET_SETTLED = 50_000
TARGET_CASES_PER_MIN = 3000.0


@dataclass(frozen=True)
class Grid:
    """What one run measures.

    Attributes:
        name: ``quick``, ``default`` or ``full``.
        ns, w: the stream lengths of the n-sweep and its window.
        ws, n_for_w: the windows of the w-sweep and its stream length.
        settle_start, settle_max: the doubling of the settle search (``settle_start`` 0: no search).
        time_s: time limit of one oracle call (seconds, wall).
        fuzz_cases, fuzz_lengths: cases per length of the fuzz rate (0: not measured).
    """

    name: str
    ns: tuple[int, ...]
    w: int
    ws: tuple[int, ...]
    n_for_w: int
    settle_start: int
    settle_max: int
    time_s: float
    fuzz_cases: int
    fuzz_lengths: tuple[int, ...] = (6, 12)


GRIDS = {
    "quick": Grid("quick", (50, 100, 200), 10, (5, 10, 20), 100, 0, 0, 30.0, 5),
    "default": Grid("default", (1000, 2000, 4000, 8000), 100, (10, 100, 300), 2000, 4000, 256_000, 60.0, 200),
    "full": Grid("full", (100, 1000, 10_000, 100_000), 100, (10, 100, 1000), 10_000, 4000, 1_024_000, 60.0, 600),
}


def make_grid(kind: str) -> Grid:
    """The grid of ``kind`` (``quick``, ``default``, ``full``); ``ValueError`` for another."""
    if kind not in GRIDS:
        raise ValueError(f"unknown grid {kind!r}")
    return GRIDS[kind]


def _limits(time_s: float) -> Any:
    from ceplab.asp.oracle import Limits

    return Limits(time_s=time_s, max_ground_size=MAX_GROUND, memory_mb=MEMORY_MB)


def oracle_point(lang: Any, n: int, w: int, seed: int, time_s: float) -> dict:
    """One oracle call on the language's workload: ``{"n", "w", "results", "ground_rules", "atoms",
    "ground_s", "solve_s", "wall_s", "undecided"}`` (``undecided``: the reason, or None)."""
    from ceplab.workbench.compare import run_oracle

    text, stream, options = lang.oracle_workload(n, w, seed)
    query = lang.parse(text)
    res, undecided, secs, stats = run_oracle(lang, query, stream, options, _limits(time_s))
    st = stats.to_json() if stats is not None and hasattr(stats, "to_json") else dict(stats or {})
    return {"n": n, "w": w, "results": None if res is None else len(res),
            "ground_rules": st.get("ground_rules"), "atoms": st.get("atoms"),
            "ground_s": st.get("ground_seconds"), "solve_s": st.get("solve_seconds"), "wall_s": secs,
            "undecided": undecided}


def fit_exponent(xs: Sequence[float], ys: Sequence[float | None]) -> float | None:
    """The slope of ``log y`` against ``log x`` (least squares) over the points with ``y > 0``; None with fewer
    than two such points."""
    pts = [(math.log(x), math.log(y)) for x, y in zip(xs, ys) if y is not None and y > 0 and x > 0]
    if len(pts) < 2:
        return None
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    den = sum((p[0] - mx) ** 2 for p in pts)
    if den == 0:
        return None
    return sum((p[0] - mx) * (p[1] - my) for p in pts) / den


def _sweep(rows: list[dict], key: str) -> dict:
    ok = [r for r in rows if r["undecided"] is None]
    xs = [r[key] for r in ok]
    return {"rows": rows, "atoms_exponent": fit_exponent(xs, [r["atoms"] for r in ok]),
            "wall_exponent": fit_exponent(xs, [r["wall_s"] for r in ok])}


def settle(lang: Any, grid: Grid, seed: int, note: Callable[[str], None]) -> dict:
    """The largest ``n`` (doubling from ``grid.settle_start``) whose oracle call is decided within
    ``grid.time_s``; ``{"settled", "settled_seconds", "failed_n", "failed"}``."""
    best, best_s, failed_n, failed = None, None, None, None
    n = grid.settle_start
    while n <= grid.settle_max:
        note(f"{lang.name}: settle n={n:,}")
        r = oracle_point(lang, n, TARGET_W, seed, grid.time_s)
        if r["undecided"] is not None or r["wall_s"] > grid.time_s:
            failed_n, failed = n, r["undecided"] or f"{r['wall_s']:.1f} s"
            break
        best, best_s = n, r["wall_s"]
        n *= 2
    return {"settled": best, "settled_seconds": best_s, "failed_n": failed_n, "failed": failed,
            "limit_s": grid.time_s, "max_tried": grid.settle_max}


def fuzz_rate(lang: Any, cases: int, length: int, seed: int) -> dict:
    """``cases`` differential cases of length ``length``, one after the other in this process (the campaign's
    :func:`ceplab.workbench.spark.run_case`): cases per minute on wall and CPU time, and the verdict counts."""
    from ceplab.workbench import oracle_worker
    from ceplab.workbench.spark import run_case

    verdicts: dict[str, int] = {}
    run_case(lang.name, seed + 1, length, 0)   # warm-up (imports, caches), not counted
    w0 = oracle_worker.worker().cpu_seconds()
    t0, c0 = time.perf_counter(), os.times()
    for cid in range(cases):
        row = run_case(lang.name, seed, length, cid)
        verdicts[row["verdict"]] = verdicts.get(row["verdict"], 0) + 1
    wall = time.perf_counter() - t0
    c1 = os.times()
    cpu = (c1.user - c0.user) + (c1.system - c0.system) + (c1.children_user - c0.children_user) \
        + (c1.children_system - c0.children_system) + oracle_worker.worker().cpu_seconds() - w0
    return {"length": length, "cases": cases, "wall_s": wall, "cpu_s": cpu,
            "per_min_wall": 60.0 * cases / wall if wall > 0 else None,
            "per_min_cpu": 60.0 * cases / cpu if cpu > 0 else None, "verdicts": verdicts}


def measure_language(lang: Any, grid: Grid, seed: int, note: Callable[[str], None]) -> dict:
    """Every measurement of the module docstring for one language."""
    out: dict[str, Any] = {"lang": lang.name}
    rows = []
    for n in grid.ns:
        note(f"{lang.name}: n={n:,} w={grid.w}")
        rows.append(oracle_point(lang, n, grid.w, seed, grid.time_s))
    out["by_n"] = _sweep(rows, "n")
    rows = []
    for w in grid.ws:
        note(f"{lang.name}: n={grid.n_for_w:,} w={w}")
        rows.append(oracle_point(lang, grid.n_for_w, w, seed, grid.time_s))
    out["by_w"] = _sweep(rows, "w")
    out["settle"] = settle(lang, grid, seed, note) if grid.settle_start else None
    out["fuzz"] = []
    for length in grid.fuzz_lengths if grid.fuzz_cases else ():
        note(f"{lang.name}: fuzz length {length}, {grid.fuzz_cases} cases")
        out["fuzz"].append(fuzz_rate(lang, grid.fuzz_cases, length, seed))
    out["targets"] = targets(out, grid)
    return out


def targets(m: dict, grid: Grid) -> list[dict]:
    """The four targets of the module docstring for one language's measurements (``ok`` None: not measured
    by this grid)."""
    out = []
    at = [r for r in m["by_n"]["rows"] if r["n"] == TARGET_N and r["w"] == TARGET_W]
    at += [r for r in m["by_w"]["rows"] if r["n"] == TARGET_N and r["w"] == TARGET_W]
    if at:
        r = at[0]
        ok = r["undecided"] is None and r["wall_s"] < TARGET_SECONDS
        out.append({"target": f"oracle, {TARGET_N:,} events, w={TARGET_W}", "value": r["wall_s"],
                    "unit": "s", "goal": f"< {TARGET_SECONDS:g} s", "ok": ok, "detail": r["undecided"] or ""})
    k = m["by_n"]["atoms_exponent"]
    out.append({"target": f"ground atoms ~ n^k at w={grid.w}", "value": k, "unit": "", "goal":
                f"k <= {TARGET_EXPONENT}", "ok": None if k is None else k <= TARGET_EXPONENT,
                "detail": f"n = {', '.join(f'{n:,}' for n in grid.ns)}"})
    s = m["settle"]
    if s is not None:
        out.append({"target": f"largest stream settled in {s['limit_s']:g} s", "value": s["settled"],
                    "unit": "events", "goal": f">= {TARGET_SETTLED:,}",
                    "ok": s["settled"] is not None and s["settled"] >= TARGET_SETTLED,
                    "detail": (f"n={s['failed_n']:,}: {s['failed']}" if s["failed_n"] else
                               f"stopped at the grid's maximum {s['max_tried']:,}")})
    for f in m["fuzz"]:
        if f["length"] == 6:
            out.append({"target": "fuzz cases/min/core, length 6", "value": f["per_min_wall"], "unit": "",
                        "goal": f">= {TARGET_CASES_PER_MIN:,.0f}",
                        "ok": f["per_min_wall"] is not None and f["per_min_wall"] >= TARGET_CASES_PER_MIN,
                        "detail": f"{f['cases']} cases, wall clock, one process"})
    return out


def run(langs: Iterable[Any], kind: str, seed: int | None, note: Callable[[str], None] = lambda s: None) -> dict:
    """Measure every language of ``langs`` that has an oracle workload; the JSON-able report."""
    grid = make_grid(kind)
    seed = SEED if seed is None else seed
    report = report_head("oracles", grid.name, seed)
    report["languages"] = [measure_language(L, grid, seed, note) for L in langs if L.oracle_workload is not None]
    return jsonable(report)


def _f(x: Any, digits: int = 2) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{x:.{digits}f}"
    return fmt(x, "int")


def render(report: dict, console: Any) -> None:
    """The report's tables: per language the n-sweep and w-sweep (with exponents), the settle search and the
    fuzz rates; then one targets table."""
    from rich.table import Table

    for m in report["languages"]:
        for key, label in (("by_n", "n"), ("by_w", "w")):
            sw = m[key]
            t = Table(title=f"{m['lang']}: oracle against {label} "
                            f"(atoms ~ {label}^{_f(sw['atoms_exponent'])}, wall ~ {label}^{_f(sw['wall_exponent'])})")
            for col in ("n", "w", "results", "ground rules", "atoms", "ground s", "solve s", "wall s", "undecided"):
                t.add_column(col, justify="left" if col == "undecided" else "right")
            for r in sw["rows"]:
                t.add_row(fmt(r["n"], "int"), str(r["w"]), _f(r["results"]), _f(r["ground_rules"]), _f(r["atoms"]),
                          _f(r["ground_s"]), _f(r["solve_s"]), _f(r["wall_s"]), r["undecided"] or "")
            console.print(t)
        s = m["settle"]
        if s is not None:
            console.print(f"{m['lang']}: largest stream settled in {s['limit_s']:g} s: "
                          f"{_f(s['settled'])} events ({_f(s['settled_seconds'])} s)"
                          + (f"; n={s['failed_n']:,}: {s['failed']}" if s["failed_n"] else ""), markup=False)
        if m["fuzz"]:
            t = Table(title=f"{m['lang']}: differential cases, one process, no Spark")
            for col in ("length", "cases", "cases/min (wall)", "cases/min (CPU)", "verdicts"):
                t.add_column(col, justify="left" if col == "verdicts" else "right")
            for f in m["fuzz"]:
                t.add_row(str(f["length"]), str(f["cases"]), fmt(f["per_min_wall"], "eps"),
                          fmt(f["per_min_cpu"], "eps"),
                          ", ".join(f"{k} {v}" for k, v in sorted(f["verdicts"].items())))
            console.print(t)
    t = Table(title="Targets (reported, not enforced)")
    for col in ("language", "target", "value", "goal", "verdict", "detail"):
        t.add_column(col, justify="right" if col == "value" else "left")
    for m in report["languages"]:
        for x in m["targets"]:
            v = x["value"]
            val = "-" if v is None else (f"{v:,.2f}" if isinstance(v, float) else f"{v:,}")
            verdict = "n/a" if x["ok"] is None else ("PASS" if x["ok"] else "MISS")
            t.add_row(m["lang"], x["target"], f"{val} {x['unit']}".strip(), x["goal"], verdict, x["detail"])
    console.print(t)
    if report["grid"] == "quick":
        console.print("quick grid: streams too short for the figures to mean anything; it checks the plumbing.")


__all__ = ["GRIDS", "Grid", "fit_exponent", "fuzz_rate", "make_grid", "measure_language", "oracle_point",
           "render", "run", "settle", "targets"]
