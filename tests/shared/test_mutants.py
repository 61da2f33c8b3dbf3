"""ceplab.workbench.mutants: planted engine bugs run in a temporary copy of the engine package, never the oracle;
every declared mutant still applies to the engine it mutates; a check reports a finding on a mutant and none on
the original engine."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ceplab.workbench import language, mutants as M, spark
from ceplab.workbench.language import Mutant


def _in_tree(tree: Path, code: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True,
                       cwd=str(tree))    # not the checkout: its ceplab/ folder would come first
    return r.stdout.strip()


def test_tree_holds_a_mutated_engine_copy_and_the_real_rest(tmp_path):
    m = Mutant("answer", "test", "cel/__init__.py", '"""Incremental CEL', '"""planted: Incremental CEL',
               "a docstring change")
    tree = M.mutated_tree(m, tmp_path / "t")
    out = _in_tree(tree, "import ceplab.engine.cel as e, ceplab.asp as a, ceplab.semantics as s; "
                         "print(e.__file__); print(e.__doc__[:9]); print(a.__file__); print(s.__file__)")
    eng, doc, asp, sem = out.splitlines()
    assert eng.startswith(str(tree)) and doc == "planted: "
    import ceplab.asp
    import ceplab.engine
    assert Path(asp).resolve() == Path(ceplab.asp.__file__).resolve()          # the oracle is the real one
    assert Path(sem).resolve().parent.parent == Path(ceplab.engine.__file__).resolve().parent.parent
    import ceplab.engine.cel
    assert "planted" not in Path(ceplab.engine.cel.__file__).read_text()       # the installed engine is untouched


def test_a_mutant_that_does_not_apply_is_an_error(tmp_path):
    with pytest.raises(M.MutantError, match="occurs 0 times"):
        M.mutated_tree(Mutant("gone", "test", "cel/__init__.py", "no such text\n", "x", ""), tmp_path / "a")
    with pytest.raises(M.MutantError, match="not a file of the engine package"):
        M.mutated_tree(Mutant("oracle", "test", "../asp/oracle.py", "import", "x", ""), tmp_path / "b")


def test_every_declared_mutant_applies_exactly_once(tmp_path):
    """A mutant whose text no longer occurs exactly once would be a silent survivor: it must fail here."""
    declared = [L for L in language.languages() if L.mutants is not None]
    assert declared
    import ceplab.engine
    root = Path(ceplab.engine.__file__).resolve().parent
    for L in declared:
        ms = L.mutants()
        assert len({m.name for m in ms}) == len(ms), L.name
        for m in ms:
            assert (root / m.file).read_text().count(m.old) == 1, (L.name, m.name)
            assert m.old != m.new and m.description and m.kind, (L.name, m.name)


def test_verify_kills_a_window_mutant(tmp_path):
    """The check runs in a child process on the mutated tree (the original engine passes the same check in
    tests/cel/test_cli.py::test_verify_without_spark)."""
    L = language.get("cel")
    m = next(m for m in L.mutants() if m.name == "window-off-by-one")
    tree = M.mutated_tree(m, tmp_path / "tree")
    (tmp_path / "w").mkdir()
    run = M.run_check("verify", "cel", tree, tmp_path / "w")
    assert run is not None and run.outcome == "finding", run
    base = M.MutantReport("cel", None, [M.CheckRun("verify", "pass", 1.0)])
    s = M.summary([base, M.MutantReport("cel", m, [run])])
    assert s["mutants"] == 1 and s["killed"] == 1 and s["survivors"] == [] and s["kill_rate"] == 1.0
    assert s["by_check"]["verify"] == {"baseline": "pass", "judged": 1, "killed": 1}


def test_summary_does_not_count_kills_of_a_check_that_fails_on_the_original():
    m = Mutant("m", "k", "x.py", "a", "b", "d")
    base = M.MutantReport("x", None, [M.CheckRun("verify", "finding", 1.0)])
    mut = M.MutantReport("x", m, [M.CheckRun("verify", "finding", 1.0)])
    s = M.summary([base, mut])
    assert s["killed"] == 0 and s["survivors"] == ["m"] and s["by_check"]["verify"]["judged"] == 0


def test_spark_workers_see_the_callers_pythonpath_first():
    root = str(spark.PROJECT_ROOT)
    assert spark.worker_pythonpath("/tmp/tree").split(os.pathsep) == ["/tmp/tree", root]
    assert spark.worker_pythonpath("").split(os.pathsep) == [root]
    assert spark.worker_pythonpath(os.pathsep.join(["/a", root])) == os.pathsep.join(["/a", root])


def test_the_fuzz_checks_count_failures_without_shrinking_them(tmp_path):
    """A planted bug fails hundreds of fuzz cases; shrinking each (up to 30 s) would outlast the check's limit and
    report the mutant as hung, and the reproducers would be thrown away with the run's folder.  The command the
    bench runs must also be one the CLI accepts."""
    import typer.main

    from ceplab.workbench.cli import app

    group = typer.main.get_command(app)
    for check in ("fuzz", "long"):
        cmd = M._command(check, "cel", tmp_path, "local[1]", None)
        assert cmd[cmd.index("--max-reproducers") + 1] == "0", cmd
        args = cmd[cmd.index("fuzz") + 1:]
        ctx = group.get_command(None, "fuzz").make_context("fuzz", list(args))     # raises on an unknown option
        assert ctx.params["max_reproducers"] == 0 and ctx.params["lang"] == "cel"


def test_fuzz_shrink_budget_reaches_the_campaign(monkeypatch, tmp_path):
    """``ceplab fuzz --shrink-s S`` is the campaign's shrinking budget per failing case (default 30 s)."""
    from typer.testing import CliRunner

    from ceplab.workbench import cli

    seen = {}

    def fake_fuzz(langs, **kw):
        seen.update(kw)
        return []

    monkeypatch.setattr(cli, "_require_java", lambda: None)
    monkeypatch.setattr(spark, "fuzz", fake_fuzz)
    r = CliRunner().invoke(cli.app, ["fuzz", "cel", "--cases", "1", "--shrink-s", "0", "--out", str(tmp_path)])
    assert r.exit_code == 0, r.output
    assert seen["shrink_s"] == 0.0
    r = CliRunner().invoke(cli.app, ["fuzz", "cel", "--cases", "1", "--out", str(tmp_path)])
    assert r.exit_code == 0 and seen["shrink_s"] == 30.0
