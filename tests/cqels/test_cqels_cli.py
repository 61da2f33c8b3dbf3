"""``ceplab run|compare cqels`` on the running example (docs/semantics/cqels.md#cqels-T1) and bad input: mutants of
the query, the stream and the static graph exit 0 or 2 with a message naming a file, never a traceback (issue 13,
"Bad input")."""
from __future__ import annotations

import json
import random
import shutil
import traceback
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ceplab.workbench import cli
from ceplab.workbench.malformed import mutate

HERE = Path(__file__).resolve().parent
runner = CliRunner()


@pytest.fixture()
def files(tmp_path):
    q, s, d = tmp_path / "q.cq", tmp_path / "s.trig", tmp_path / "d.ttl"
    shutil.copy(HERE / "queries" / "ex6_running.q", q)
    shutil.copy(HERE / "data" / "running.trig", s)
    shutil.copy(HERE / "data" / "d_sub.ttl", d)
    return q, s, d


def invoke(*args):
    return runner.invoke(cli.app, [str(a) for a in args])


def test_run_and_compare_running_example(files):
    q, s, d = files
    r = invoke("run", "cqels", q, s, "--static", d, "--engine", "--json")
    assert r.exit_code == 0, r.output
    res = json.loads(r.stdout)["results"]
    assert {x["time"] for x in res} == set(range(16, 21))
    assert {(x["mapping"]["s"], tuple(x["interval"])) for x in res} == {("<http://example.org/m>", (10, 16))}
    r = invoke("compare", "cqels", q, s, "--static", d, "--json")
    assert r.exit_code == 0 and json.loads(r.stdout)["agree"] is True, r.output


@pytest.mark.parametrize("target", ["query", "stream", "static"])
def test_mutants_exit_cleanly(files, target):
    """1,000 mutants of each input, a third each with characters or tokens deleted, inserted or duplicated."""
    q, s, d = files
    path = {"query": q, "stream": s, "static": d}[target]
    original = path.read_text(encoding="utf-8")
    rng = random.Random(target)
    codes: dict[int, int] = {}
    for i in range(1000):
        text = original
        for _ in range(rng.choice([1, 1, 2])):
            text = mutate(text, i % 3, bool(i % 2), rng)
        path.write_text(text, encoding="utf-8")
        r = invoke("run", "cqels", q, s, "--static", d, "--engine", "--json")
        tb = "".join(traceback.format_exception(*r.exc_info)) if r.exc_info and r.exit_code not in (0, 2) else ""
        assert r.exit_code in (0, 2), (i, r.exit_code, text, r.output[-500:], tb[-1500:])
        assert "Traceback" not in r.output, (text, r.output[-800:])
        if r.exit_code == 2:
            assert any(f.name in r.output for f in (q, s, d)) or "--until" in r.output, (text, r.output[-300:])
        codes[r.exit_code] = codes.get(r.exit_code, 0) + 1
    path.write_text(original, encoding="utf-8")
    assert codes.get(2, 0) > 100, codes
