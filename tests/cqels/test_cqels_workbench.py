"""The CQELS-CEP plugin end to end: the clingo oracle (asp/cqels) against the incremental engine (engine/cqels) through
the workbench's :func:`ceplab.workbench.compare.compare`, which also checks that every answer is emitted once, at
the position the plugin's ``result_positions`` gives (docs/semantics/cqels.md#cqels-8): generated cases under random
switches (hypothesis), every value of every switch, seeded long streams, ``arrival="end"`` with elements ending out of
start order, the bundled real-data cases, and the CLI inputs ``--static``/``--until``."""
from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from rdflib import Graph, URIRef

from ceplab.asp.oracle import Limits
from ceplab.semantics.cqels.options import SWITCHES, Options
from ceplab.semantics.cqels.streams import check_elements
from ceplab.semantics.rdfstream import StreamElement
from ceplab.workbench.compare import compare
from ceplab.workbench.langs.cqels import LANGUAGE as L
from ceplab.workbench.langs.cqels import generators as G

LIMITS = Limits(time_s=60, isolate=False)
EX = "http://example.org/"


def _agree(text: str, stream: list, options: Options) -> None:
    rep = compare(L, L.parse(text), stream, options, LIMITS)
    assert rep.verdict == "agree", (rep.summary(), rep.problems[:3], rep.oracle_only[:3], rep.engine_only[:3],
                                    text, L.stream_to_json(stream), options)


@settings(max_examples=120)
@given(G.cqels_cases(0, 10), G.cqels_options())
def test_oracle_and_engine_agree_on_generated_cases(case, options):
    text, stream = case
    _agree(text, stream, options)


@pytest.mark.parametrize("name,value", [(k, v) for k, vs in SWITCHES.items() for v in vs[1:]])
def test_every_switch_value(name, value):
    options = Options(**{name: value})
    for i in range(25):
        text, stream, _ = G.random_case(random.Random(f"{name}={value}:{i}"), 8)
        _agree(text, stream, options)


def test_seeded_long_streams():
    for seed in range(12):
        rng = random.Random(seed)
        text, stream, options = G.random_case(rng, 0, long=True)
        assert 40 <= len(stream) <= 200
        _agree(text, stream, options)
        _agree(text, stream, replace(options, arrival="end" if options.arrival == "start" else "start"))


def _el(triples, start, end, stream, pos):
    g = Graph()
    for t in triples:
        g.add(tuple(URIRef(EX + x) for x in t))
    return StreamElement(g, start, end, URIRef(EX + stream), pos)


def test_arrival_end_with_elements_ending_out_of_start_order():
    text = (f"PREFIX : <{EX}>\nSELECT *\nFROM NAMED WINDOW :W ON :s1 [RANGE 6]\n"
            "FROM NAMED WINDOW :L ON :s1 [TRIPLES 2]\nWHERE {\n"
            "  WINDOW :W { SEQ({ ?x :p ?y . }, !{ ?x :q ?z . }, { ?x :r ?w . }) }\n"
            "  WINDOW :L { ?x ?p ?o . }\n}\n")
    stream = check_elements([_el([("a", "p", "b")], 1, 9, "s1", 0), _el([("a", "q", "b")], 2, 3, "s1", 1),
                             _el([("a", "r", "c")], 4, 4, "s1", 2), _el([("a", "p", "c")], 4, 6, "s1", 3),
                             _el([("a", "r", "d")], 7, 7, "s1", 4), _el([("b", "p", "a")], 7, 8, "s9", 5)])
    for arrival in ("start", "end"):
        for wo in ("closed", "strict"):
            _agree(text, stream, Options(arrival=arrival, wo_bounds=wo))
            _agree(f"# until 5\n# static <{EX}a> <{EX}p> <{EX}b> .\n# static@5\n" + text, stream,
                   Options(arrival=arrival, wo_bounds=wo))


def test_real_cases_agree():
    cases = L.real_cases()
    assert cases
    for name, text, stream in cases:
        rep = compare(L, L.parse(text, name), stream, L.options(), LIMITS)
        assert rep.verdict == "agree" and rep.oracle_count, (name, rep.summary(), rep.problems[:3])


def test_cli_inputs_reach_both_sides(tmp_path):
    from ceplab.workbench.langs.cqels.query import with_static, with_until

    text = (f"PREFIX : <{EX}>\nSELECT *\nFROM NAMED WINDOW :W ON :s1 [RANGE 3]\n"
            "WHERE {\n  WINDOW :W { ?x :p ?y . }\n  ?x :q ?c .\n}\n")
    static = tmp_path / "d.trig"
    static.write_text(f"@prefix ceplab: <https://ceplab.org/ns#> .\n<urn:v0> {{ <{EX}a> <{EX}q> <{EX}c> . }}\n"
                      f"<urn:v0> ceplab:start 0 .\n<urn:v1> {{ <{EX}a> <{EX}q> <{EX}d> . }}\n"
                      "<urn:v1> ceplab:start 4 .\n", encoding="utf-8")
    stream = check_elements([_el([("a", "p", "b")], 2, 2, "s1", 0), _el([("a", "p", "c")], 5, 5, "s1", 1)])
    q = with_until(with_static(L.parse(text), static), 7)
    rep = compare(L, q, stream, Options(), LIMITS)
    assert rep.verdict == "agree" and max(r.time for r in rep.oracle_results) == 7
    assert {dict(r.mapping)["c"] for r in rep.oracle_results} == {f"<{EX}c>", f"<{EX}d>"}
