"""Regressions found by ``ceplab fuzz etalis --malformed``: numbers beyond clingo's 32-bit integers wrapped around
silently in the oracle's program (a wrong answer, reported as a disagreement); the oracle now refuses them with a
located UnsupportedError (exit 2)."""
from __future__ import annotations

import pytest
from typer.testing import CliRunner

from ceplab.workbench import cli

runner = CliRunner()


@pytest.mark.parametrize("rules, event, what", [
    ("d(4294967296) <- a(_).\n", '{"type": "a", "args": [1], "time": 0}', "the number 4294967296"),
    ("d(1) <- a(_).\n", '{"type": "a", "args": [1], "time": 4294967296}', "the time stamp 4294967296"),
    ("d(X) <- (a(X) seq a(Y)).4294967296.\n", '{"type": "a", "args": [1], "time": 0}', "the window length"),
])
@pytest.mark.parametrize("sets", [[], ["--set", "policy=chronological"]])     # the two oracles
def test_numbers_beyond_clingo_are_refused_not_wrapped(tmp_path, rules, event, what, sets):
    q, s = tmp_path / "q.event", tmp_path / "s.jsonl"
    q.write_text(rules, encoding="utf-8")
    s.write_text(event + "\n", encoding="utf-8")
    r = runner.invoke(cli.app, ["compare", "etalis", str(q), str(s), "--json", *sets])
    assert r.exit_code == 2, (r.exit_code, r.output)
    assert "Traceback" not in r.output
    assert f"{q}:" in r.output and what in r.output and "32-bit" in r.output, r.output
