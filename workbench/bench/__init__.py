"""``ceplab bench``: the contract between the shared benchmark harness and the languages' benchmarks, and the run.

A language's benchmark module (``ceplab.workbench.langs.<lang>.bench``) exports ``BENCHMARK``, a
:class:`Benchmark`; the CLI passes the registered languages' benchmarks to :func:`run` with the
:class:`BenchRequest` it was given.  The shared pieces (clocks, repeats, chunk statistics, the floor, memory
tracing, same-clock ratios, formatting, the output console) are in :mod:`ceplab.workbench.bench.harness`.
This package names no language.
"""
from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from ceplab.workbench.bench.harness import SEED, jsonable, output_console

GRID_KINDS = ("quick", "default", "full")


@dataclass(frozen=True)
class BenchRequest:
    """What ``ceplab bench`` was asked.

    Attributes:
        json: print one JSON object on stdout instead of tables.
        peer: also run this external engine beside ceplab (one of a benchmark's :attr:`Benchmark.peers`).
        quick: the tiny grids (seconds; what the tests run).
        full: the whole grids (tens of minutes).  When neither ``quick`` nor ``full`` is set,
            ``CEPLAB_BENCH_FULL=1`` in the environment selects the full grids; else the default grids run.
        seed: workload seed; None reads ``CEPLAB_BENCH_SEED``, else :data:`~ceplab.workbench.bench.harness.SEED`.
    """

    json: bool = False
    peer: str | None = None
    quick: bool = False
    full: bool = False
    seed: int | None = None


@dataclass(frozen=True)
class Benchmark:
    """What a language's benchmark module exports as ``BENCHMARK``.

    Attributes:
        name: the language name (the ``NAME`` argument of ``ceplab bench``).
        peers: the external engines it can run beside ceplab (``--peer``); may be empty.
        make_grid: ``make_grid(kind)`` with ``kind`` one of ``"quick"``, ``"default"``, ``"full"`` returns the
            language's grid (opaque to the harness); raises ``ValueError`` for another kind.
        measure: ``measure(grid, seed, peer, note)`` runs the benchmark and returns its report, a JSON-able
            dict with at least ``"disagreements"`` (a list of sentences; non-empty means an oracle and an engine
            disagreed).  ``peer`` is None or one of :attr:`peers`; ``note(text)`` reports progress.
        render: ``render(report, console)`` prints the report's tables on a rich ``Console``.
    """

    name: str
    peers: tuple[str, ...]
    make_grid: Callable[[str], Any]
    measure: Callable[[Any, int, "str | None", Callable[[str], None]], dict]
    render: Callable[[dict, Any], None]


def _env_flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


def run(benchmarks: Mapping[str, Benchmark], name: str | None, request: BenchRequest) -> int:
    """Run one benchmark (``name``) or all of ``benchmarks`` (``name`` None, in mapping order) and print them.

    Tables go to stdout (full width when stdout is not a terminal: no row is cut or wrapped), progress to
    stderr.  With ``request.json`` stdout gets exactly one JSON object on one line: the report of ``name``, or
    ``{"reports": {name: report, ...}}`` when all run.  With no ``name``, ``request.peer`` applies to the
    benchmarks that list it.

    Args:
        benchmarks: benchmark name -> :class:`Benchmark` (the registered languages' benchmarks).
        name: the benchmark to run, a key of ``benchmarks``; None runs all of them.
        request: the options.

    Returns:
        0 when done; 1 when an oracle and an engine disagreed on some output; 2 on bad input (unknown
        benchmark or peer, a peer of another benchmark, both ``quick`` and ``full``, a non-integer
        ``CEPLAB_BENCH_SEED``), with a message on stderr.  Missed speed targets and peer disagreements are
        reported in the tables, not turned into an exit code.
    """
    from rich.console import Console
    err = Console(stderr=True)
    known = ", ".join(benchmarks) or "(none)"
    if name is not None and name not in benchmarks:
        err.print(f"ceplab bench: unknown benchmark {name!r}; known: {known}", markup=False, highlight=False)
        return 2
    all_peers = sorted({p for b in benchmarks.values() for p in b.peers})
    peer = request.peer
    if peer is not None and peer not in all_peers:
        err.print(f"ceplab bench: unknown peer {peer!r}; known: {', '.join(all_peers) or '(none)'}",
                  markup=False, highlight=False)
        return 2
    if name is not None and peer is not None and peer not in benchmarks[name].peers:
        err.print(f"ceplab bench: peer {peer!r} does not apply to benchmark {name!r} "
                  f"(its peers: {', '.join(benchmarks[name].peers) or 'none'})", markup=False, highlight=False)
        return 2
    if request.quick and request.full:
        err.print("ceplab bench: choose one of --quick and --full")
        return 2
    full = request.full or (not request.quick and _env_flag("CEPLAB_BENCH_FULL"))
    seed = request.seed
    if seed is None:
        env_seed = os.environ.get("CEPLAB_BENCH_SEED")
        try:
            seed = int(env_seed) if env_seed else SEED
        except ValueError:
            err.print(f"ceplab bench: CEPLAB_BENCH_SEED must be an integer, got {env_seed!r}", markup=False)
            return 2
    kind = "quick" if request.quick else "full" if full else "default"
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
    code = 0
    reports: dict[str, dict] = {}
    for nm in ([name] if name is not None else list(benchmarks)):
        b = benchmarks[nm]
        p = peer if peer in b.peers else None
        grid = b.make_grid(kind)
        with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                      console=err, transient=True) as prog:
            task = prog.add_task(f"bench {nm} ({kind} grid)", total=None)
            report = b.measure(grid, seed, p,
                               lambda s, nm=nm: prog.update(task, description=f"bench {nm}: {s}"))
        if request.json:
            reports[nm] = report
        else:
            b.render(report, output_console())
        if report["disagreements"]:
            code = 1
    if request.json:
        obj = reports[name] if name is not None else {"reports": reports}
        sys.stdout.write(json.dumps(jsonable(obj), sort_keys=True, allow_nan=False) + "\n")
        sys.stdout.flush()
    return code


__all__ = ["BenchRequest", "Benchmark", "GRID_KINDS", "run"]
