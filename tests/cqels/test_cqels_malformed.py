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


def test_iri_with_a_forbidden_character_is_a_located_stream_error(tmp_path):
    """Found by ``ceplab fuzz cqels --malformed``: ``parse_nt_term`` accepted ``<http://w|ww.example.org/p>``
    (rdflib makes a URIRef of it), and oracle and engine both failed later writing it ("does not look like a
    valid URI"), a disagreement; the reader now refuses it at its line."""
    q, s = tmp_path / "q.cq", tmp_path / "s.jsonl"
    shutil.copy(HERE / "queries" / "ex6_running.q", q)
    good = {"stream": "http://example.org/s", "start": 1, "end": 1,
            "triples": [["<http://example.org/a>", "<http://example.org/p>", "<http://example.org/b>"]]}
    bad = dict(good, triples=[["<http://example.org/a>", "<http://w|ww.example.org/p>", "<http://example.org/b>"]])
    s.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    r = runner.invoke(cli.app, ["compare", "cqels", str(q), str(s), "--json"])
    assert r.exit_code == 2, (r.exit_code, r.output)
    assert r.output.startswith(f"{s}:2:1:") and "not an IRI" in r.output, r.output


def test_parse_nt_term_refuses_forbidden_iri_characters():
    import pytest

    from ceplab.semantics.rdfstream import parse_nt_term

    for bad in ("<http://a b>", "<http://a|b>", "<http://a{b>", '"1"^^<http://a^b>'):
        with pytest.raises(ValueError, match="not an IRI"):
            parse_nt_term(bad)
    assert str(parse_nt_term("<http://a/b#c>")) == "http://a/b#c"


def test_trig_literal_with_a_broken_datatype_iri_is_a_located_stream_error(tmp_path):
    """Found by ``ceplab fuzz cqels --malformed``: ``"71.0"^^<.0"^^<http://www.w3.org/2001/XMLSchema#decimal>`` (a
    duplicated run of characters) parsed as a literal whose datatype IRI holds a quote; rdflib then logged a
    Python traceback on stderr ("Failed to convert Literal lexical form") while the comparison went on."""
    q, s = tmp_path / "q.cq", tmp_path / "s.trig"
    shutil.copy(HERE / "queries" / "ex6_running.q", q)
    s.write_text("@prefix ceplab: <https://ceplab.org/ns#> .\n"
                 "<http://example.org/g1> { <http://example.org/a> <http://example.org/p> "
                 '"71.0"^^<.0"^^<http://www.w3.org/2001/XMLSchema#decimal> . }\n'
                 "<http://example.org/g1> ceplab:stream <http://example.org/s> ; ceplab:start 1 .\n", encoding="utf-8")
    r = runner.invoke(cli.app, ["compare", "cqels", str(q), str(s), "--json"])
    assert r.exit_code == 2, (r.exit_code, r.output)
    assert "Traceback" not in r.output
    assert r.output.startswith(f"{s}:2:") and "datatype" in r.output and "not a valid IRI" in r.output, r.output
