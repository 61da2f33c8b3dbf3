"""SPAseq as a plugin: the registered language, its glue (background knowledge, streamsets as JSON, emission
positions, simplifications) and the differential test engine == oracle on generated cases under generated
switches (docs/semantics/spaseq.md#spaseq-3.8, #spaseq-9.5)."""
from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings

from ceplab.asp.oracle import Limits
from ceplab.semantics.errors import ParseError, StreamError
from ceplab.semantics.spaseq.options import Options
from ceplab.workbench import language
from ceplab.workbench.compare import compare
from ceplab.workbench.langs.spaseq import LANGUAGE as L
from ceplab.workbench.langs.spaseq import generators as G
from ceplab.workbench.langs.spaseq.background import SpaseqQuery

LIMITS = Limits(time_s=60.0, isolate=False)
Q = """PREFIX : <http://example.org/>
SELECT *
WITHIN 10 SECONDS
FROM STREAM S1 <http://example.org/s1>
FROM <http://example.org/kb>
WHERE SEQ(A ; B)
{
  DEFINE GPM A ON S1 { ?s :p ?x . GRAPH <http://example.org/kb> { ?s :owner ?o . } }
  DEFINE GPM B ON S1 { ?s :p ?y . FILTER (?y > ?x) }
}
"""


def test_registered_under_its_entry_point():
    assert language.get("spaseq") is L
    assert "spaseq" in language.names()


def test_inline_background_round_trips_through_render():
    from ceplab.workbench.langs.spaseq.background import background_comment

    text = background_comment(G.KB, ["<http://example.org/a> <http://example.org/owner> <http://example.org/al> ."]) + Q
    q = L.parse(text)
    assert isinstance(q, SpaseqQuery) and q.background is not None
    assert len(q.background.graph(G.KB)) == 1
    assert L.parse(L.render(q)) == q


def test_bad_background_line_is_located():
    with pytest.raises(ParseError) as e:
        L.parse("# background <http://example.org/kb>: <a> .\n" + Q, "q.spaseq")
    assert (e.value.file, e.value.line) == ("q.spaseq", 1)


def test_stream_json_round_trip_and_drop():
    from ceplab.workbench.generators import RandomChooser

    stream = G.gen_stream(RandomChooser(random.Random(3)), 8)
    back = L.stream_from_json(L.stream_to_json(stream))
    assert L.stream_to_json(back) == L.stream_to_json(stream)
    dropped = L.drop_events(stream, [0, 2])
    assert [e.position for e in dropped] == list(range(len(stream) - 2))
    assert [e.time for e in dropped] == [e.time for i, e in enumerate(stream) if i not in (0, 2)]


def test_stream_json_rejects_definition_2_violations():
    item = {"stream": "http://example.org/s1", "time": 1, "triples": [["<http://a>", "<http://p>", "<http://b>"]]}
    with pytest.raises(StreamError):
        L.stream_from_json([item, dict(item)])


def test_simplifications_are_parseable_and_smaller():
    from ceplab.workbench.langs.spaseq.simplify import simplifications

    cands = list(simplifications(Q))
    assert cands, "a two-element query has smaller variants"
    for c in cands:
        L.parse(c)


def _agree(text: str, stream: list, options: Options) -> None:
    rep = compare(L, L.parse(text), stream, options, LIMITS)
    assert rep.verdict == "agree", (rep.summary(), rep.problems[:3], [L.result_to_json(r) for r in rep.oracle_only[:3]],
                                    [L.result_to_json(r) for r in rep.engine_only[:3]], text, options)


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(case=G.spaseq_cases(0, 8), options=G.spaseq_options())
def test_engine_equals_oracle_on_generated_cases(case, options):
    text, stream = case
    _agree(text, stream, options)


@pytest.mark.parametrize("seed", range(6))
def test_engine_equals_oracle_on_long_streams(seed):
    """40-200 events with small windows: window expiry, run deletion and many overlapping windows."""
    text, stream, options = G.random_case(random.Random(seed), 6, long=True)
    _agree(text, stream, options)
