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
