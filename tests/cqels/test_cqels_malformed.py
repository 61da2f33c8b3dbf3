"""Regression found by ``ceplab fuzz cqels --malformed``: in the JSON Lines stream reader an element's graph
``name`` overwrote the file name, so a bad element (e.g. a negative start) was reported under the graph's IRI
instead of the stream file (an error naming no input file)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from ceplab.workbench import cli

HERE = Path(__file__).resolve().parent
runner = CliRunner()


def test_bad_named_element_names_the_stream_file(tmp_path):
    q, s = tmp_path / "q.cq", tmp_path / "s.jsonl"
    shutil.copy(HERE / "queries" / "ex6_running.q", q)
    el = {"stream": "http://example.org/s", "start": -1, "end": -1, "name": "http://example.org/g1",
          "triples": [["<http://example.org/a>", "<http://example.org/p>", "<http://example.org/b>"]]}
    s.write_text(json.dumps(el) + "\n", encoding="utf-8")
    r = runner.invoke(cli.app, ["compare", "cqels", str(q), str(s), "--json"])
    assert r.exit_code == 2, (r.exit_code, r.output)
    assert r.output.startswith(f"{s}"), r.output
