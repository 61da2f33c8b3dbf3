"""Regression found by ``ceplab fuzz cel --malformed``: ``WITHIN w`` with ``w`` beyond clingo's 32-bit integers
made the oracle raise OverflowError (a disagreement); a window of at least the stream's length bounds nothing, so
the oracle grounds it with ``min(w, len(stream))``, and oracle and engine agree."""
from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from ceplab.workbench import cli

runner = CliRunner()


@pytest.mark.parametrize("w", [4294967296, 18446744073709551616])
def test_huge_within_agrees(tmp_path, w):
    q, s = tmp_path / "q.cel", tmp_path / "s.jsonl"
    q.write_text(f"NXT((B AS y)+ WITHIN {w})\n", encoding="utf-8")
    s.write_text('{"type": "B", "time": 0, "attrs": {}}\n{"type": "B", "time": 1, "attrs": {}}\n', encoding="utf-8")
    r = runner.invoke(cli.app, ["compare", "cel", str(q), str(s), "--json"])
    assert r.exit_code == 0, (r.exit_code, r.output)
    out = json.loads(r.stdout)
    assert out["agree"] is True and out["oracle_count"] == 2, out
