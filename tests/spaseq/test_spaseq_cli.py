"""``ceplab run|compare spaseq``: JSON shape, background files, and bad input: every mutant of a query, a stream
or a background file gives exit 0, 1 or 2 with a located message and never a traceback (issue 12, "Bad input")."""
from __future__ import annotations

import json
import random
import traceback
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ceplab.workbench import cli
from ceplab.workbench.malformed import mutate

HERE = Path(__file__).resolve().parent
runner = CliRunner()

QUERY = """PREFIX : <http://example.org/>
SELECT ?h ?p1 ?s ?o
WITHIN 10 SECONDS
FROM STREAM PW <http://example.org/pw>
FROM STREAM WT <http://example.org/wt>
FROM <http://example.org/kb>
WHERE SEQ(A ; B+)
{
  DEFINE GPM A ON PW { ?h :price ?p1 . GRAPH <http://example.org/kb> { ?h :owner ?o . } }
  DEFINE GPM B ON WT { ?w :wind ?s . FILTER (?s >= 5) }
}
"""
STREAM = """@prefix ceplab: <https://ceplab.org/ns#> .
@prefix : <http://example.org/> .
:g1 { :h1 :price 25 . }
:g1 ceplab:stream :pw ; ceplab:start 1 .
:g2 { :h2 :price 27 . }
:g2 ceplab:stream :pw ; ceplab:start 2 .
:g3 { :w1 :wind 7 . }
:g3 ceplab:stream :wt ; ceplab:start 3 .
:g4 { :w2 :wind 8 . }
:g4 ceplab:stream :wt ; ceplab:start 4 .
:g5 { :w3 :wind "2.5"^^<http://www.w3.org/2001/XMLSchema#decimal> . }
:g5 ceplab:stream :wt ; ceplab:start 5 .
"""
KB = """@prefix : <http://example.org/> .
:h1 :owner :alice .
:h2 :owner "B\\"ob\\\\ \\n é" .
"""


@pytest.fixture()
def files(tmp_path):
    q, s, kb = tmp_path / "q.spaseq", tmp_path / "s.trig", tmp_path / "kb.ttl"
    q.write_text(QUERY, encoding="utf-8")
    s.write_text(STREAM, encoding="utf-8")
    kb.write_text(KB, encoding="utf-8")
    return q, s, kb


def invoke(*args):
    return runner.invoke(cli.app, [str(a) for a in args])


def test_run_json_engine_and_oracle_with_background(files):
    q, s, kb = files
    out = {}
    for which in ("--engine", "--oracle"):
        r = invoke("run", "spaseq", q, s, "--background", kb, which, "--json")
        assert r.exit_code == 0, r.output
        out[which] = json.loads(r.stdout)["results"]
    assert out["--engine"] == out["--oracle"]
    owners = {x["mapping"]["o"] for x in out["--engine"]}
    assert owners == {"<http://example.org/alice>", '"B\\"ob\\\\ \\n é"'}      # quotes, backslash, newline, é
    first = out["--engine"][0]
    assert set(first) >= {"mapping", "events", "window"}
    assert all(isinstance(e[0], str) and isinstance(e[1], int) for e in first["events"])


def test_compare_agrees(files):
    q, s, kb = files
    r = invoke("compare", "spaseq", q, s, "--background", kb, "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["agree"] is True


@pytest.mark.parametrize("target", ["query", "stream", "background"])
def test_mutants_exit_cleanly(files, target):
    """1,000 mutants of the query, the stream or the background file, a third each with characters or tokens
    deleted, inserted or duplicated: exit 0 (evaluated) or 2 (bad input, naming the file), never a traceback."""
    q, s, kb = files
    path = {"query": q, "stream": s, "background": kb}[target]
    original = path.read_text(encoding="utf-8")
    rng = random.Random(target)
    codes: dict[int, int] = {}
    for i in range(1000):
        text = original
        for _ in range(rng.choice([1, 1, 2])):
            text = mutate(text, i % 3, bool(i % 2), rng)
        path.write_text(text, encoding="utf-8")
        r = invoke("run", "spaseq", q, s, "--background", kb, "--engine", "--json")
        tb = "".join(traceback.format_exception(*r.exc_info)) if r.exc_info and r.exit_code not in (0, 2) else ""
        assert r.exit_code in (0, 2), (i, r.exit_code, text, r.output[-500:], tb[-1500:])
        assert "Traceback" not in r.output, (text, r.output[-800:])
        if r.exit_code == 2:
            assert any(f.name in r.output for f in (q, s, kb)), (text, r.output[-300:])     # names a file
        codes[r.exit_code] = codes.get(r.exit_code, 0) + 1
    path.write_text(original, encoding="utf-8")
    assert codes.get(2, 0) > 100, codes        # many mutants are rejected, with a message
