"""Regression found by ``ceplab fuzz cqels --malformed`` (the same reader code in SPAseq): a JSON Lines stream
with an IRI holding a character IRIs may not contain (``|``, space, ``{``, ...) is a StreamError at its line, not
a failure of oracle and engine when they write the term."""
from __future__ import annotations

import json

import pytest

from ceplab.semantics.errors import StreamError
from ceplab.workbench.langs.spaseq.streams import stream_from_json


@pytest.mark.parametrize("where", ["stream", "triple"])
def test_bad_iri_is_a_stream_error(where):
    ev = {"stream": "http://example.org/s", "time": 1,
          "triples": [["<http://example.org/a>", "<http://example.org/p>", "<http://example.org/b>"]]}
    if where == "stream":
        ev["stream"] = "http://example.org/s|t"
    else:
        ev["triples"] = [["<http://example.org/a>", "<http://example .org/p>", "<http://example.org/b>"]]
    with pytest.raises(StreamError, match="not an IRI") as e:
        stream_from_json([json.loads(json.dumps(ev))], "s.jsonl")
    assert (e.value.file, e.value.line) == ("s.jsonl", 1)


def test_a_term_that_is_not_a_string_is_a_stream_error():
    """``ceplab fuzz spaseq --malformed`` (seed 2, 6 of 10,000 mutants): a token inserted into a JSON Lines triple
    made one of its terms a JSON number, and the N-Triples term parser raised AttributeError (a traceback)."""
    ev = {"stream": "http://example.org/s", "time": 1,
          "triples": [["<http://example.org/a>", "<http://example.org/p>", 1, '"1"']]}
    with pytest.raises(StreamError, match="not an N-Triples term") as e:
        stream_from_json([ev, ev], "s.jsonl")
    assert (e.value.file, e.value.line) == ("s.jsonl", 1)


def test_the_oracle_worker_does_not_log_what_the_caller_built():
    """(seed 2, mutant 9,992) a TriG literal whose lexical form rdflib cannot convert (``"7.1.0"^^xsd:decimal``): the
    reader builds it quietly, but unpickling the stream in the oracle worker rebuilt the literal and rdflib logged a
    warning with a Python traceback on stderr.  Run in a child process: pytest's own log capture would hide it."""
    import subprocess
    import sys

    code = """
from types import SimpleNamespace
from rdflib import Literal, XSD
from ceplab.asp.oracle import Limits
from ceplab.semantics.rdfstream import _quiet_rdflib
from ceplab.workbench import oracle_worker as W
def echo(query, stream, options, limits):
    return str(query)
with _quiet_rdflib():
    bad = Literal("7.1.0", datatype=XSD.decimal)
print(W.call(SimpleNamespace(oracle=echo), bad, [], None, Limits(time_s=10)))
"""
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and p.stdout.strip() == "7.1.0", p.stderr[-2000:]
    assert "Failed to convert" not in p.stderr and "Traceback" not in p.stderr, p.stderr[-2000:]


def test_an_infinite_time_stamp_is_a_stream_error():
    """Found by ``ceplab fuzz all --malformed`` (seed 6): a JSON Lines time of 1e400 is a float infinity, and
    ``int()`` raised ``OverflowError`` (a traceback) instead of a located stream error."""
    with pytest.raises(StreamError) as e:
        stream_from_json([{"stream": "http://s", "time": float("inf"), "triples": []}], "s.jsonl")
    assert (e.value.file, e.value.line) == ("s.jsonl", 1)


def test_an_ill_typed_literal_in_an_inline_background_logs_nothing(caplog):
    """Found by ``ceplab fuzz all --malformed`` (seed 6): ``"10.-1"^^xsd:decimal`` in a query's ``# background``
    line made rdflib log a traceback on stderr (the query itself is fine: the literal is kept ill-typed)."""
    from ceplab.workbench.langs.spaseq.background import inline_background

    bg = inline_background('# background <http://kb>: <http://s> <http://p> '
                           '"10.-1"^^<http://www.w3.org/2001/XMLSchema#decimal> .\n', "q.rq")
    assert bg is not None
    assert not [r for r in caplog.records if r.name.startswith("rdflib")], caplog.records
