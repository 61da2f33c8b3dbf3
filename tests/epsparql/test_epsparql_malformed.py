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


def test_jsonl_time_that_is_not_an_integer_is_a_located_stream_error(tmp_path):
    """Found by ``ceplab fuzz epsparql --malformed``: ``"start": 1e400`` (JSON's infinity) raised an uncaught
    OverflowError in ``int()`` (a traceback); a float was silently truncated."""
    q, s = tmp_path / "q.rq", tmp_path / "s.jsonl"
    q.write_text("SELECT ?x WHERE { ?x <http://e/p> ?y }\n", encoding="utf-8")
    ok = '{"s": "<http://e/a>", "p": "<http://e/p>", "o": "<http://e/b>", "start": 1}\n'
    for bad in ("1e400", "2.5", '"3"', "true"):
        s.write_text(ok + "\n" + ok.replace('"start": 1', f'"start": {bad}'), encoding="utf-8")
        r = runner.invoke(cli.app, ["compare", "epsparql", str(q), str(s), "--json"])
        assert r.exit_code == 2, (bad, r.exit_code, r.output)
        assert r.output.startswith(f"{s}:3:1: start and end are integer ticks"), r.output


def test_background_iri_with_a_space_is_a_located_error(tmp_path):
    """Found by ``ceplab fuzz epsparql --malformed``: rdflib's Turtle parser accepts ``<hrdfs: <http://...#label>``
    as an IRI and oracle and engine both failed writing it (a disagreement); the background reader refuses it."""
    q, s, g = tmp_path / "q.rq", tmp_path / "s.nt", tmp_path / "g.ttl"
    q.write_text("SELECT ?x WHERE { ?x <http://e/p> ?y }\n", encoding="utf-8")
    s.write_text("<http://e/a> <http://e/p> <http://e/b> 3 .\n", encoding="utf-8")
    g.write_text("<http://e/a> <http://e/q a> <http://e/b> .\n", encoding="utf-8")
    r = runner.invoke(cli.app, ["compare", "epsparql", str(q), str(s), "--background", str(g), "--json"])
    assert r.exit_code == 2, (r.exit_code, r.output)
    assert f"{g}: not an IRI" in r.output, r.output


def test_inline_background_iri_with_a_brace_is_a_parse_error(tmp_path):
    """Found by ``ceplab fuzz epsparql --malformed``: an inline ``# background graph:`` line with
    ``<http://example.or}g/r>`` parsed (rdflib's N-Triples parser accepts it) and oracle and engine both failed
    writing the term (a disagreement); it is a ParseError at its line."""
    q, s = tmp_path / "q.rq", tmp_path / "s.nt"
    q.write_text("# background graph: <http://e/a> <http://example.or}g/r> <http://e/b> .\n"
                 "SELECT ?x WHERE { ?x <http://e/p> ?y }\n", encoding="utf-8")
    s.write_text("<http://e/a> <http://e/p> <http://e/b> 3 .\n", encoding="utf-8")
    r = runner.invoke(cli.app, ["compare", "epsparql", str(q), str(s), "--json"])
    assert r.exit_code == 2, (r.exit_code, r.output)
    assert r.output.startswith(f"{q}:1:1: background graph line") and "not an IRI" in r.output, r.output


def test_a_huge_duration_bound_prunes_nothing(tmp_path):
    """``ceplab fuzz epsparql --malformed`` (seed 2, mutant 9,452): ``FILTER (getDURATION() < 10^400)`` was pushed
    into the grounding as time buckets of that width, computed in clingo's 32-bit integers: the oracle answered no
    row at all, the engine every row.  Such a bound prunes nothing and is not pushed; the filter still decides."""
    import json

    q, s = tmp_path / "q.rq", tmp_path / "s.nt"
    q.write_text("PREFIX : <http://e/>\nSELECT ?y WHERE { { ?s :p ?x } SEQ { ?s :q ?y } FILTER (getDURATION() < 1"
                 + "0" * 400 + ") }\n", encoding="utf-8")
    s.write_text("<http://e/a> <http://e/p> <http://e/b> 1 .\n<http://e/a> <http://e/q> <http://e/c> 5 .\n"
                 "<http://e/a> <http://e/q> <http://e/d> 9 .\n", encoding="utf-8")
    r = runner.invoke(cli.app, ["compare", "epsparql", str(q), str(s), "--json"])
    out = json.loads(r.output.strip().splitlines()[-1])
    assert r.exit_code == 0 and out["oracle_count"] == out["engine_count"] == 2, r.output
