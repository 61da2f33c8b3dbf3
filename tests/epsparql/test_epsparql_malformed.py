"""Regression found by ``ceplab fuzz epsparql --malformed``: a stream time beyond clingo's 32-bit integers wrapped
around in the oracle's facts (it answered with start 0: a disagreement); the oracle now refuses it (exit 2, naming
the occurrence)."""
from __future__ import annotations

from typer.testing import CliRunner

from ceplab.workbench import cli

runner = CliRunner()


def test_huge_time_is_refused_not_wrapped(tmp_path):
    q, s = tmp_path / "q.rq", tmp_path / "s.nt"
    q.write_text("SELECT ?x WHERE { ?x <http://e/p> ?y }\n", encoding="utf-8")
    s.write_text("<http://e/a> <http://e/p> <http://e/b> 3 .\n"
                 "<http://e/a> <http://e/p> <http://e/c> 9223372036854775808 .\n", encoding="utf-8")
    r = runner.invoke(cli.app, ["compare", "epsparql", str(q), str(s), "--json"])
    assert r.exit_code == 2, (r.exit_code, r.output)
    assert "Traceback" not in r.output
    assert "occurrence at position 1" in r.output and "32-bit" in r.output, r.output
