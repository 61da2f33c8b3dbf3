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


def test_window_gc_ring_is_bounded():
    """Found by ``ceplab fuzz cel --malformed``: ``WindowGC(w)`` allocated ``w + 2`` ring slots up front, so
    ``STRICT(... WITHIN 99999999999999999999999999999999999999)`` ran out of memory / time (a hang)."""
    from ceplab.engine.cel.ecs import RING_MAX, WindowGC

    assert WindowGC(10**38).size == RING_MAX + 2 and WindowGC(5).size == 7


@pytest.mark.parametrize("strategy", ["ALL", "STRICT", "NXT", "LAST", "MAX"])
def test_huge_within_every_strategy_agrees_quickly(tmp_path, strategy):
    q, s = tmp_path / "q.cel", tmp_path / "s.jsonl"
    q.write_text(f"{strategy}((A AS a) ; (B AS b) WITHIN 99999999999999999999999999999999999999)\n", encoding="utf-8")
    s.write_text("".join(f'{{"type": "{t}", "time": {i}, "attrs": {{}}}}\n' for i, t in enumerate("ABAB")),
                 encoding="utf-8")
    r = runner.invoke(cli.app, ["compare", "cel", str(q), str(s), "--json", "--engine-time", "5"])
    assert r.exit_code == 0, (r.exit_code, r.output)
    assert json.loads(r.stdout)["agree"] is True


def test_a_string_literal_broken_by_a_line_break_is_a_located_parse_error():
    """Found by ``ceplab fuzz all --malformed`` (seed 6): a newline inside a string literal made Python's literal
    evaluation raise ``SyntaxError`` inside lark's transformer, which reached the user as a traceback."""
    from ceplab.semantics.cel.parser import parse
    from ceplab.semantics.errors import ParseError

    with pytest.raises(ParseError) as e:
        parse('(UP AS b FILTER b.symbol = "A\nAPL" AND b.change > 15)', "q.cel")
    assert "bad string literal" in e.value.message and (e.value.file, e.value.line) == ("q.cel", 1)
