"""Planted semantic bugs in the engines, and which checks kill them (``ceplab bench mutants [LANG]``).

A *mutant* (:class:`ceplab.workbench.language.Mutant`, declared by each language plugin's ``mutants`` member) is a
one- or two-line change of an engine file: a window bound off by one, a selection-strategy rule skipped, a filter
flipped, equal timestamps handled the other way, a consumption policy's order swapped, garbage collection one tick
too eager, a switch's non-default branch ignored.  This is mutation analysis (DeMillo, Lipton and Sayward, "Hints on
test data selection", IEEE Computer 11(4), 1978) applied to the differential checks: a check *kills* a mutant when it
reports a finding on the mutated engine and none on the original one.

How a mutant runs (:func:`mutated_tree`): a temporary directory ``T`` receives a package ``ceplab`` whose
``semantics``, ``asp`` and ``workbench`` are symbolic links to the installed ones and whose ``engine`` is a copy
with the mutant applied (its ``old`` text must occur exactly once in its file: a mutant that no longer applies is
an error, never a silent survivor).  Every check then runs as a child process with ``T`` first on ``PYTHONPATH``,
so the oracles, generators, data and tests are the real ones and only the engine differs; the oracle is never
mutated.  Spark's Python workers inherit the variable, so campaigns see the mutant too.

Checks (:data:`CHECKS`), each a command with a wall-clock limit.  A check that overruns its limit is reported as
``hung`` (a finding of its own: the issue asks that no mutant make a campaign hang); the summary counts a hung
check as detecting the mutant (it did not pass), and the table shows it as ``hung``, not ``killed``:

* ``fuzz``: the default campaign, ``ceplab fuzz LANG --cases 600`` (length 6, seed 0, ``--max-reproducers 0``:
  the failing cases are counted, not shrunk); killed when it exits 1 (a disagreement or an engine limit).  The time to the first finding is the summed oracle and engine time of the
  cases up to the first one that is not ``agree``, in case order (``OUT/LANG/results.parquet``): the time one core
  needs to reach it;
* ``long``: ``ceplab fuzz LANG --cases 100 --length 60``: longer streams, so windows expire, runs are deleted and
  events are consumed over time;
* ``verify``: ``ceplab verify --lang LANG --cases 0``: the bundled real data and the paper cases;
* ``tests``: ``pytest tests/LANG -x`` (only in a source checkout, where the ``tests`` folder exists).

Each check runs first on the original engine (the *baseline*): a check that fails there cannot judge mutants, and
the report says so instead of counting kills.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

from ceplab.semantics.errors import InputError

#: The checks in the order they run, with their default wall-clock limits (seconds).
CHECKS: dict[str, float] = {"fuzz": 900.0, "long": 900.0, "verify": 900.0, "tests": 1800.0}


class MutantError(InputError):
    """A mutant that does not apply (its text does not occur exactly once, or its file is not an engine file)."""


def _package_dirs() -> dict[str, Path]:
    import ceplab
    import ceplab.asp
    import ceplab.engine
    import ceplab.semantics
    import ceplab.workbench

    return {"__init__": Path(ceplab.__file__).resolve(),
            **{name: Path(m.__file__).resolve().parent
               for name, m in (("semantics", ceplab.semantics), ("asp", ceplab.asp), ("engine", ceplab.engine),
                               ("workbench", ceplab.workbench))}}


def tests_dir() -> Path | None:
    """The source checkout's ``tests`` folder (next to the ``workbench`` folder), or None in an installed copy."""
    d = _package_dirs()["workbench"].parent / "tests"
    return d if (d / "conftest.py").is_file() else None


def mutated_tree(mutant: Any | None, into: Path) -> Path:
    """Build the package tree of one run in the folder ``into`` (module docstring) and return the folder to put
    first on ``PYTHONPATH``.  ``mutant`` None builds the original engine (the baseline).

    Raises:
        MutantError: the mutant's file is not inside the engine package, or its ``old`` text does not occur
            exactly once there.
    """
    dirs = _package_dirs()
    pkg = into / "ceplab"
    pkg.mkdir(parents=True)
    shutil.copy2(dirs["__init__"], pkg / "__init__.py")
    for name in ("semantics", "asp", "workbench"):
        (pkg / name).symlink_to(dirs[name], target_is_directory=True)
    shutil.copytree(dirs["engine"], pkg / "engine", ignore=shutil.ignore_patterns("__pycache__"))
    if mutant is not None:
        target = (pkg / "engine" / mutant.file).resolve()
        if not str(target).startswith(str((pkg / "engine").resolve()) + os.sep) or not target.is_file():
            raise MutantError(f"mutant {mutant.name!r}: {mutant.file!r} is not a file of the engine package")
        text = target.read_text()
        n = text.count(mutant.old)
        if n != 1:
            raise MutantError(f"mutant {mutant.name!r}: its text occurs {n} times in engine/{mutant.file} "
                              "(it must occur exactly once; the engine changed, update the mutant)")
        target.write_text(text.replace(mutant.old, mutant.new, 1))
    return into


@dataclass
class CheckRun:
    """One check on one engine (original or mutated).

    Attributes:
        check: the check's name (:data:`CHECKS`).
        outcome: ``pass`` (no finding), ``finding`` (the check reported a disagreement, an engine limit or a
            failing test), ``hung`` (overran ``limit_s``), ``error`` (it could not run: e.g. bad input, a crash
            before any case ran).
        seconds: wall-clock seconds of the check.
        first_finding_s: the fuzz checks' time to the first finding (module docstring), else None.
        detail: the last lines of the check's output, or its counts.
    """

    check: str
    outcome: str
    seconds: float
    first_finding_s: float | None = None
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"check": self.check, "outcome": self.outcome, "seconds": round(self.seconds, 3),
                "first_finding_s": None if self.first_finding_s is None else round(self.first_finding_s, 3),
                "detail": self.detail}


def _command(check: str, lang: str, out: Path, master: str, cases: int | None) -> list[str] | None:
    cli = [sys.executable, "-m", "ceplab.workbench.cli"]
    # no reproducers: they would be thrown away with the run's folder, and shrinking the hundreds of cases a
    # planted bug fails (up to 30 s each) would outlast the check's limit and report the mutant as hung
    if check == "fuzz":
        return cli + ["fuzz", lang, "--cases", str(cases or 600), "--length", "6", "--seed", "0",
                      "--master", master, "--out", str(out), "--json", "--max-reproducers", "0"]
    if check == "long":
        return cli + ["fuzz", lang, "--cases", str(max(1, (cases or 600) // 6)), "--length", "60", "--seed", "0",
                      "--master", master, "--out", str(out), "--json", "--max-reproducers", "0"]
    if check == "verify":
        return cli + ["verify", "--lang", lang, "--cases", "0", "--out", str(out), "--json"]
    if check == "tests":
        d = tests_dir()
        if d is None or not (d / lang).is_dir():
            return None
        return [sys.executable, "-m", "pytest", str(d / lang), "-x", "-q", "-p", "no:warnings", "-p",
                "no:cacheprovider"]
    raise ValueError(f"unknown check {check!r}; known: {', '.join(CHECKS)}")


def _first_finding_seconds(results: Path) -> float | None:
    """Summed oracle + engine seconds of the cases up to the first one that is not ``agree`` (case order)."""
    if not results.exists():
        return None
    import pyarrow.parquet as pq

    t = pq.read_table(results, columns=["case_id", "verdict", "oracle_seconds", "engine_seconds"]).to_pylist()
    total = 0.0
    for r in sorted(t, key=lambda r: r["case_id"]):
        total += (r["oracle_seconds"] or 0.0) + (r["engine_seconds"] or 0.0)
        if r["verdict"] != "agree":
            return total
    return None


def run_check(check: str, lang: str, tree: Path, work: Path, master: str = "local[1]",
              limit_s: float | None = None, cases: int | None = None) -> CheckRun | None:
    """Run ``check`` for ``lang`` in a child process with ``tree`` first on ``PYTHONPATH``; None when the check is
    not available here (``tests`` outside a source checkout).

    Args:
        check: a name of :data:`CHECKS`.
        lang: a registered language.
        tree: the folder :func:`mutated_tree` returned.
        work: a fresh folder for the check's outputs.
        master: the Spark master of the fuzz checks.
        limit_s: wall-clock limit (default: the check's in :data:`CHECKS`).
        cases: the fuzz campaign's case count (default 600; ``long`` runs a sixth of it).
    """
    cmd = _command(check, lang, work, master, cases)
    if cmd is None:
        return None
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tree), os.environ.get("PYTHONPATH", "")]).rstrip(
        os.pathsep), "PYTHONDONTWRITEBYTECODE": "1"}
    limit = CHECKS[check] if limit_s is None else limit_s
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, env=env, cwd=str(work), capture_output=True, text=True, timeout=limit,
                           start_new_session=True)
    except subprocess.TimeoutExpired:
        return CheckRun(check, "hung", time.perf_counter() - t0, detail=f"overran its {limit:.0f} s limit")
    secs = time.perf_counter() - t0
    tail = "\n".join((p.stdout + p.stderr).strip().splitlines()[-3:])
    if check in ("fuzz", "long"):
        first = _first_finding_seconds(work / lang / "results.parquet")
        if p.returncode in (0, 1):
            try:
                s = json.loads(p.stdout)
                tail = (f"{s['disagree']} disagree, {s['engine_limit']} engine limit, "
                        f"{s['engine_refusals']} refusals of {s['languages'][0]['cases']} cases")
            except (ValueError, KeyError, IndexError):
                pass
        outcome = {0: "pass", 1: "finding"}.get(p.returncode, "error")
        return CheckRun(check, outcome, secs, first if outcome == "finding" else None, tail)
    if check == "verify":
        return CheckRun(check, {0: "pass", 1: "finding"}.get(p.returncode, "error"), secs, detail=tail)
    # pytest: 0 all passed, 1 some failed; 2-5 interrupted, usage, internal error, nothing collected
    return CheckRun(check, {0: "pass", 1: "finding"}.get(p.returncode, "error"), secs, detail=tail)


@dataclass
class MutantReport:
    """The checks of one mutant (or of the baseline, ``mutant`` None) and their outcomes."""

    lang: str
    mutant: Any | None
    runs: list[CheckRun] = field(default_factory=list)
    error: str | None = None

    @property
    def name(self) -> str:
        return "(baseline)" if self.mutant is None else self.mutant.name

    def killed_by(self) -> list[str]:
        return [r.check for r in self.runs if r.outcome in ("finding", "hung")]

    def to_json(self) -> dict[str, Any]:
        m = self.mutant
        return {"lang": self.lang, "mutant": self.name, "kind": None if m is None else m.kind,
                "file": None if m is None else m.file, "description": None if m is None else m.description,
                "exposes": None if m is None else m.exposes, "error": self.error,
                "killed_by": self.killed_by(), "runs": [r.to_json() for r in self.runs]}


def run_mutants(lang: Any, mutants: Sequence[Any] | None = None, checks: Iterable[str] = ("fuzz", "long", "verify"),
                master: str = "local[1]", cases: int | None = None, limits: dict[str, float] | None = None,
                progress: Any = None) -> list[MutantReport]:
    """The baseline, then every mutant of ``lang``, through ``checks``.

    Args:
        lang: a :class:`ceplab.workbench.language.Language` with ``mutants``.
        mutants: the mutants to run (default: all the language declares).
        checks: names of :data:`CHECKS`, run in that order for every mutant.
        master: Spark master of the fuzz checks.
        cases: fuzz case count (default 600).
        limits: per-check wall-clock limits overriding :data:`CHECKS`.
        progress: a callable ``(text) -> None`` told what runs, or None.

    Returns:
        One :class:`MutantReport` per engine: the baseline first.

    Raises:
        ValueError: an unknown check; the language declares no mutants.
    """
    checks = list(checks)
    for c in checks:
        if c not in CHECKS:
            raise ValueError(f"unknown check {c!r}; known: {', '.join(CHECKS)}")
    if mutants is None:
        if lang.mutants is None:
            raise ValueError(f"language {lang.name!r} declares no mutants")
        mutants = lang.mutants()
    limits = {**CHECKS, **(limits or {})}
    out: list[MutantReport] = []
    for m in [None, *mutants]:
        rep = MutantReport(lang.name, m)
        with tempfile.TemporaryDirectory(prefix="ceplab-mutant-") as tmp:
            try:
                tree = mutated_tree(m, Path(tmp) / "tree")
            except MutantError as e:
                rep.error = str(e)
                out.append(rep)
                continue
            for c in checks:
                if progress:
                    progress(f"{lang.name} {rep.name}: {c}")
                work = Path(tmp) / c
                work.mkdir()
                r = run_check(c, lang.name, tree, work, master, limits[c], cases)
                if r is not None:
                    rep.runs.append(r)
        out.append(rep)
    return out


def summary(reports: Sequence[MutantReport]) -> dict[str, Any]:
    """Kill counts per check and overall, for the mutants whose baseline checks passed.

    Returns:
        ``{"mutants", "killed", "survivors": [names], "errors": [names], "by_check": {check: {"killed",
        "judged", "baseline"}}, "kill_rate"}``; a check whose baseline did not pass judges nothing.
    """
    base = next((r for r in reports if r.mutant is None), None)
    ok = {r.check for r in base.runs if r.outcome == "pass"} if base else set()
    muts = [r for r in reports if r.mutant is not None]
    valid = [r for r in muts if r.error is None]
    by_check: dict[str, dict[str, Any]] = {}
    for c in CHECKS:
        runs = [(r, x) for r in valid for x in r.runs if x.check == c]
        if not runs and not (base and any(x.check == c for x in base.runs)):
            continue
        bl = next((x.outcome for x in base.runs if x.check == c), None) if base else None
        by_check[c] = {"baseline": bl, "judged": len(runs) if c in ok else 0,
                       "killed": sum(1 for _r, x in runs if x.outcome in ("finding", "hung")) if c in ok else 0}
    killed = [r for r in valid if any(c in ok for c in r.killed_by())]
    return {"mutants": len(valid), "killed": len(killed),
            "survivors": [r.name for r in valid if r not in killed], "errors": [r.name for r in muts if r.error],
            "by_check": by_check, "kill_rate": round(len(killed) / len(valid), 3) if valid else None}


def render(reports: Sequence[MutantReport], console: Any) -> None:
    """Print the per-mutant table (check outcomes, time to the first fuzz finding) and the per-check kill rates."""
    from rich.table import Table

    if not reports:
        return
    lang = reports[0].lang
    checks = [c for c in CHECKS if any(x.check == c for r in reports for x in r.runs)]
    t = Table(title=f"ceplab bench mutants {lang}: which check kills each planted engine bug")
    for col in ("mutant", "kind", *checks, "first finding (s)"):
        t.add_column(col, justify="right" if col == "first finding (s)" else "left")
    for r in reports:
        if r.error:
            t.add_row(r.name, r.mutant.kind, *(["error"] * len(checks)), "-")
            continue
        cells = []
        for c in checks:
            x = next((x for x in r.runs if x.check == c), None)
            word = "-" if x is None else {"finding": "killed", "pass": "survived" if r.mutant else "pass",
                                           "hung": "hung", "error": "error"}[x.outcome]
            cells.append(word if x is None or r.mutant is None else f"{word} ({x.seconds:.0f} s)")
        first = [x.first_finding_s for x in r.runs if x.first_finding_s is not None]
        t.add_row(r.name, "-" if r.mutant is None else r.mutant.kind, *cells, f"{min(first):.2f}" if first else "-")
    console.print(t)
    s = summary(reports)
    rate = "-" if s["kill_rate"] is None else f"{100 * s['kill_rate']:.0f}%"
    console.print(f"{lang}: {s['killed']} of {s['mutants']} mutants killed ({rate}); by check: "
                  + ", ".join(f"{c} {v['killed']}/{v['judged']}" + ("" if v["baseline"] == "pass" else
                                                                     f" (baseline {v['baseline']}: not judged)")
                              for c, v in s["by_check"].items()), markup=False)
    for r in reports:
        if r.mutant is not None and r.error is None and r.name in s["survivors"]:
            console.print(f"  survivor {r.name}: {r.mutant.exposes or r.mutant.description}", markup=False)
        if r.error:
            console.print(f"  error {r.name}: {r.error}", markup=False)
