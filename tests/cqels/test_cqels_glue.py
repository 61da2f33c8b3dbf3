"""The CQELS-CEP plugin glue without the oracle and the engine (workbench/langs/cqels): static data and horizon as
comment lines and inputs, the tick re-parse, streams and their JSON form, dropping elements, emission positions
(checked against a stand-in engine that implements the emission rule of docs/semantics/cqels.md#cqels-8), the
generators, the shrinking candidates and the bundled weather data."""
from __future__ import annotations

import collections
import json
import random

import pytest
from hypothesis import given, settings
from rdflib import Graph, URIRef
from rdflib.term import BNode

from ceplab.semantics.cqels import ast as A
from ceplab.semantics.cqels.options import SWITCHES, Options
from ceplab.semantics.cqels.results import answer, default_until
from ceplab.semantics.cqels.streams import StaticData, arrival, check_elements, parse_stream
from ceplab.semantics.errors import InputError, ParseError, StreamError
from ceplab.semantics.rdfstream import StreamElement, dumps_trig_elements
from ceplab.workbench.compare import position_problems, run_engine
from ceplab.workbench.langs.cqels import CLOCK, LANGUAGE as L, OrderedEvaluator, result_positions
from ceplab.workbench.langs.cqels import data as D
from ceplab.workbench.langs.cqels import generators as G
from ceplab.workbench.langs.cqels.query import CqelsQuery, resolve, static_json
from ceplab.workbench.langs.cqels.simplify import simplifications, size
from ceplab.workbench.langs.cqels.streams import dumps_jsonl

EX = "http://example.org/"
QUERY = (f"PREFIX : <{EX}>\nSELECT ?s\nFROM NAMED WINDOW :W ON :s1 [RANGE 1h]\n"
         "WHERE {\n  WINDOW :W { ?s :p ?o . }\n}\n")


def u(x: str) -> URIRef:
    return URIRef(EX + x)


def el(triples, start, end=None, stream="s1", pos=0) -> StreamElement:
    g = Graph()
    for t in triples:
        g.add(t)
    return StreamElement(g, start, end, u(stream), pos)


# ------------------------------------------------------------------------------------------------ query and inputs
def test_static_and_until_comment_lines_round_trip():
    head = (f"# static <{EX}a> <{EX}p> <{EX}b> .\n"
            f'# static <{EX}a> <{EX}label> "x y \\" z"@en .   # a trailing comment\n'
            f"# static@17 <{EX}a> <{EX}p> <{EX}c> .\n"
            "# static@30\n"
            "# until 26\n"
            "# static part: an ordinary comment\n")
    q = L.parse(head + QUERY, "q.q")
    assert isinstance(q, CqelsQuery) and q.until == 26
    assert [v.since for v in q.static.versions] == [0, 17, 30]
    assert q.static.at(17) == frozenset({(u("a"), u("p"), u("c"))}) and q.static.at(30) == frozenset()
    assert q.query.windows[0].spec == A.RangeWindow(60)
    text = L.render(q)
    assert text.startswith(f"# static <{EX}a> <{EX}label>") and "# static@30\n# until 26\n" in text
    assert L.parse(text) == q and L.parse(L.render(L.parse(text))) == q
    assert L.parse(QUERY).static is None and L.parse(QUERY).until is None
    assert L.parse("# static@0\n" + QUERY).static is None           # empty and constant: no static data
    extras = L.case_extras(head + QUERY)
    assert extras["until"] == 26 and extras["static"]["17"] == [f"<{EX}a> <{EX}p> <{EX}c> ."]
    assert L.case_extras(QUERY) == {"static": None, "until": None}
    b = L.parse(f"# static _:sb0 <{EX}p> _:sb1 .\n" + QUERY)             # blank nodes keep their labels
    assert b.static.at(0) == frozenset({(BNode("sb0"), u("p"), BNode("sb1"))}) and L.parse(L.render(b)) == b


@pytest.mark.parametrize("head,line,column,fragment", [
    ("# static <a> <b>\n", 1, 10, "one N-Triples triple"),
    (f'# static "x" <{EX}p> <{EX}o> .\n', 1, 10, None),
    (f'# static <{EX}s> "p" <{EX}o> .\n', 1, 10, "predicate an IRI"),
    (f'# static <{EX}s> <{EX}p> "1.5"^^<http://www.w3.org/2001/XMLSchema#integer> .\n', 1, 56, "ill-typed"),
    ("# x\n# static@-1\n", 2, 10, "integer >= 0"),
    ("# until 3\n# until 4\n", 2, 1, "two"),
    ("# until x\n", 1, 9, "integer >= 0"),
    ("# static: nowhere\n", 1, 11, "unknown bundled"),
    (f"# static: stations\n# static <{EX}s> <{EX}p> <{EX}o> .\n", 2, 1, "twice"),
])
def test_inline_input_errors_are_located(head, line, column, fragment):
    with pytest.raises(ParseError) as e:
        L.parse(head + QUERY, "q.q")
    assert (e.value.file, e.value.line, e.value.column) == ("q.q", line, column), str(e.value)
    if fragment:
        assert fragment in e.value.message


def test_static_and_until_inputs(tmp_path):
    assert [(i.name, i.kind) for i in L.inputs] == [("static", "path"), ("until", "int")]
    static, until = L.inputs
    ttl = tmp_path / "d.ttl"
    ttl.write_text(f"<{EX}a> <{EX}p> <{EX}b> .\n", encoding="utf-8")
    trig = tmp_path / "d.trig"
    trig.write_text(f"@prefix ceplab: <https://ceplab.org/ns#> .\n<urn:v0> {{ <{EX}a> <{EX}p> <{EX}b> . }}\n"
                    f"<urn:v0> ceplab:start 0 .\n<urn:v1> {{ <{EX}a> <{EX}p> <{EX}c> . }}\n<urn:v1> ceplab:start 5 .\n",
                    encoding="utf-8")
    q = L.parse(f"# static <{EX}x> <{EX}p> <{EX}y> .\n# until 3\n" + QUERY)
    q1 = static.apply(q, ttl)
    assert q1.static == StaticData.constant([(u("a"), u("p"), u("b"))]) and q1.until == 3     # replaces inline
    q2 = until.apply(static.apply(q, trig), 9)
    assert q2.static.change_times == (5,) and q2.until == 9 and q2.query == q.query
    assert L.parse(L.render(q2)) == q2
    empty = tmp_path / "e.ttl"
    empty.write_text("# nothing\n", encoding="utf-8")
    assert static.apply(q, empty).static is None
    with pytest.raises(InputError):
        until.apply(q, -1)
    bad = tmp_path / "b.ttl"
    bad.write_text(f"<{EX}a> <{EX}p> .\n", encoding="utf-8")
    with pytest.raises(StreamError) as e:
        static.apply(q, bad)
    assert e.value.file == str(bad) and e.value.line == 1
    with pytest.raises(ValueError):
        CqelsQuery(q.query, None, -2)


def test_tick_is_applied_by_parsing_again():
    q = L.parse(QUERY)
    assert q.query.windows[0].spec.range == 60
    assert resolve(q, Options()) is q
    assert resolve(q, Options(tick="1h")).query.windows[0].spec.range == 1
    assert resolve(q, Options(tick="1s")).query.windows[0].spec.range == 3600
    with pytest.raises(ParseError):
        resolve(q, Options(tick="7m"))
    r = L.parse(L.render(q))                     # rendered queries print ticks: the same under every tick
    assert resolve(r, Options(tick="1h")).query == q.query


# ------------------------------------------------------------------------------------------------ streams
TRIG = f"""@prefix ceplab: <https://ceplab.org/ns#> .
@prefix : <{EX}> .
<urn:e:0> {{ :a :p 1 . _:x :q :b . }}
<urn:e:0> ceplab:stream :s1 ; ceplab:start 4 ; ceplab:end 9 .
<urn:e:1> {{ :b :p :c . }}
<urn:e:1> ceplab:stream :s2 ; ceplab:start 2 .
<urn:e:2> {{ :c :r "x\\ty" . }}
<urn:e:2> ceplab:stream :s1 ; ceplab:start 4 ; ceplab:end 5 .
"""


def test_stream_files_and_json(tmp_path):
    f = tmp_path / "s.trig"
    f.write_text(TRIG, encoding="utf-8")
    s = L.read_stream(f)
    assert [(e.position, e.start, e.end) for e in s] == [(1, 2, 2), (0, 4, 9), (2, 4, 5)]
    j = L.stream_to_json(s)
    assert [x["start"] for x in j] == [4, 2, 4]                                  # position (file) order
    assert j[0] == {"stream": EX + "s1", "start": 4, "end": 9, "name": "urn:e:0",
                    "triples": [["<http://example.org/a>", "<http://example.org/p>",
                                 '"1"^^<http://www.w3.org/2001/XMLSchema#integer>'],
                                ["_:e0b0", "<http://example.org/q>", "<http://example.org/b>"]]}
    assert L.stream_from_json(json.loads(json.dumps(j)), "r") == s
    jl = tmp_path / "s.jsonl"
    jl.write_text(dumps_jsonl(s), encoding="utf-8")
    assert L.read_stream(jl) == s
    assert L.event_row(s[1]) == (4, EX + "s1", {"end": 9, "triples": j[0]["triples"]})
    jl.write_text(dumps_jsonl(s) + "\n" + '{"stream": "x", "start": 1, "triples": [["<a>", "<b>"]]}\n',
                  encoding="utf-8")
    with pytest.raises(StreamError) as e:
        L.read_stream(jl)
    assert (e.value.line, e.value.column) == (5, 1)
    jl.write_text('{"stream": "x", "start": 1,\n', encoding="utf-8")
    with pytest.raises(StreamError) as e:
        L.read_stream(jl)
    assert e.value.line == 1 and "malformed JSON" in e.value.message
    for bad in ([{"stream": EX + "s", "start": -1, "triples": []}], [{"start": 1, "triples": []}],
                [{"stream": EX + "s", "start": 3, "end": 2, "triples": []}], "x"):
        with pytest.raises(StreamError):
            L.stream_from_json(bad, "r")


def test_stream_json_round_trips_random_streams():
    for i in range(150):
        _, s, _ = G.random_case(random.Random(i), 8)
        back = L.stream_from_json(json.loads(json.dumps(L.stream_to_json(s))), "r")
        assert back == s


def test_drop_events_keeps_the_position_order():
    s = parse_stream(TRIG, "s.trig")                                    # positions 1, 0, 2 in list order
    d = L.drop_events(s, [0])                                           # drops the element at position 1
    assert [(e.position, e.start, e.end) for e in d] == [(0, 4, 9), (1, 4, 5)]
    assert {x for t in d[0].triples() for x in t if isinstance(x, BNode)} == {BNode("e0b0")}
    d = L.drop_events(s, [1])                                           # drops position 0: 1, 2 become 0, 1
    assert [(e.position, e.start) for e in d] == [(0, 2), (1, 4)]
    for i in range(60):
        _, s, _ = G.random_case(random.Random(i), 10)
        drop = set(random.Random(i).sample(range(len(s)), len(s) // 3)) if s else set()
        d = L.drop_events(s, drop)
        kept = [e for k, e in enumerate(s) if k not in drop]
        assert len(d) == len(kept) and [e.position for e in sorted(d, key=lambda e: e.position)] == list(range(len(d)))
        assert d == sorted(d, key=lambda e: (e.start, e.position))
        rank = {e.position: r for r, e in enumerate(sorted(kept, key=lambda e: e.position))}
        assert sorted((rank[e.position], e.start, e.end, e.stream) for e in kept) == \
            sorted((e.position, e.start, e.end, e.stream) for e in d)


def test_result_json_round_trip():
    a = answer(7, {"x": u("a"), "v": '"1"^^<http://www.w3.org/2001/XMLSchema#integer>'}, (2, 6))
    assert L.result_from_json(json.loads(json.dumps(L.result_to_json(a)))) == a


# ------------------------------------------------------------------------------------------------ emission positions
class RuleEngine:
    """A stand-in for engine/cqels that implements only the emission rule (docs/semantics/cqels.md#cqels-8): one
    answer per time point, returned by the first push with ``a(e) > t`` or by ``close()``; pushes out of arrival
    order raise, like the engine."""

    path = "emission-rule stand-in"

    def __init__(self, options: Options, until=None) -> None:
        self.options, self.until, self.frontier, self.last, self.pushed = options, until, 0, None, []

    def _emit(self, upto: int) -> list:
        out = [answer(t, {}, (0, t)) for t in range(self.frontier, upto + 1)]
        self.frontier = max(self.frontier, upto + 1)
        return out

    def push(self, e) -> list:
        a = arrival(e, self.options)
        if self.last is not None and a < self.last:
            raise ValueError("out of arrival order")
        self.last = a
        self.pushed.append(e)
        return self._emit(a - 1 if self.until is None else min(a - 1, self.until))

    def close(self) -> list:
        real = [e for e in self.pushed if e.stream != CLOCK]
        return self._emit(self.until if self.until is not None else max([e.end for e in real], default=0))


def _run(stream, options, until=None):
    inner = RuleEngine(options, until)
    lang = type("Lang", (), {"evaluator": staticmethod(lambda q, o: OrderedEvaluator(inner, o))})
    emissions, _, _ = run_engine(lang, None, stream, options)
    return inner, emissions


@pytest.mark.parametrize("arrival_reading", ["start", "end"])
def test_emission_positions_match_the_rule(arrival_reading):
    opts = Options(arrival=arrival_reading)
    for i in range(200):
        _, s, _ = G.random_case(random.Random(i), 12)
        until = None if i % 3 else random.Random(i).randint(0, 20)
        inner, emissions = _run(s, opts, until)
        real = [e for e in inner.pushed if e.stream != CLOCK]
        assert sorted(e.position for e in real) == sorted(e.position for e in s)       # every element, once
        arr = [arrival(e, opts) for e in inner.pushed]
        assert arr == sorted(arr)                                                      # arrival order
        results = {r for r, _ in emissions}
        assert {r.time for r in results} == set(range((until if until is not None else
                                                       max([e.end for e in s], default=0)) + 1))
        expected = result_positions(None, s, opts, None, results)
        assert position_problems(L, emissions, False, expected) == []
        if arrival_reading == "start":
            assert not [e for e in inner.pushed if e.stream == CLOCK]


def test_held_back_elements_and_clocks():
    s = check_elements([el([(u("a"), u("p"), u("b"))], 1, 6, pos=0), el([(u("a"), u("p"), u("c"))], 2, 3, pos=1),
                        el([(u("b"), u("p"), u("c"))], 5, 5, pos=2)])
    inner, emissions = _run(s, Options(arrival="end"))
    assert [(e.position, e.start, e.end, e.stream == CLOCK) for e in inner.pushed] == \
        [(-1, 1, 1, True), (-2, 2, 2, True), (1, 2, 3, False), (2, 5, 5, False), (0, 1, 6, False)]
    assert [(r.time, p) for r, p in emissions] == [(0, 0), (1, 1), (2, 2), (3, 2), (4, 2), (5, None), (6, None)]
    assert result_positions(None, s, Options(arrival="end"), None, [r for r, _ in emissions]) == \
        {r: p for r, p in emissions}
    ev = OrderedEvaluator(RuleEngine(Options(arrival="end")), Options(arrival="end"))
    ev.push(s[2])
    with pytest.raises(ValueError):
        ev.push(s[0])                                                   # starts before an earlier element


# ------------------------------------------------------------------------------------------------ generators
def _coverage(q: A.Query, c: collections.Counter) -> None:
    for w in q.windows:
        c[type(w.spec).__name__ + ("+slide" if isinstance(w.spec, A.RangeWindow) and w.spec.slide > 1 else "")] += 1
        items = w.pattern.items if isinstance(w.pattern, A.SeqTSP) else ()
        for k, it in enumerate(items):
            if isinstance(it, A.Neg):
                c["tsp-neg-" + ("head" if k == 0 else "tail" if k == len(items) - 1 else "middle")] += 1
        for b in ([w.pattern] if isinstance(w.pattern, A.BGP) else [x.item if isinstance(x, A.Neg) else x
                                                                     for x in items]):
            c["bgp-filter"] += bool(b.filters)
    for ec in q.events:
        if isinstance(ec, A.SeqEC):
            for k, it in enumerate(ec.items):
                if isinstance(it, A.Neg):
                    c["ec-neg-" + ("head" if k == 0 else "tail" if k == len(ec.items) - 1 else "middle")] += 1
    c["join-of-event-clauses"] += len(q.events) > 1
    c["static-only"] += not q.windows
    c["filter"] += bool(q.filters)
    for sp in q.static:
        if isinstance(sp, A.PathPattern):
            for x in A.path_nodes(sp.path):
                c["path-" + type(x).__name__ + ("-inverse" if getattr(x, "inverse", False) else "")] += 1
                if isinstance(x, A.AxisNest) and any(isinstance(y, A.AxisNest) for y in A.path_nodes(x.test)):
                    c["nested-test-in-test"] += 1


def test_generated_cases_parse_and_streams_are_valid():
    cover: collections.Counter = collections.Counter()
    switch_values = collections.defaultdict(set)
    for i in range(1000):
        text, s, opts = G.random_case(random.Random(i), 6)
        q = L.parse(text)
        assert L.parse(L.render(q)) == q
        assert s == check_elements(s) and s == sorted(s, key=lambda e: (e.start, e.position))
        assert len({e.position for e in s}) == len(s) and all(e.stream is not None for e in s)
        assert len(s) == 6 or 40 <= len(s) <= 200
        cover["long"] += len(s) > 6
        cover["interval"] += any(e.start < e.end for e in s)
        cover["tie"] += len({e.start for e in s}) < len(s)
        cover["unordered-file"] += [e.position for e in s] != sorted(e.position for e in s)
        cover["foreign-stream"] += any(e.stream == u(G.FOREIGN) for e in s)
        cover["static-change"] += q.static is not None and bool(q.static.change_times)
        cover["until"] += q.until is not None
        _coverage(q.query, cover)
        for name in SWITCHES:
            switch_values[name].add(getattr(opts, name))
    assert {k: set(v) for k, v in switch_values.items()} == {k: set(v) for k, v in SWITCHES.items()}
    for key in ("RangeWindow", "RangeWindow+slide", "NowWindow", "AllWindow", "TriplesWindow", "tsp-neg-head",
                "tsp-neg-middle", "tsp-neg-tail", "ec-neg-head", "ec-neg-middle", "ec-neg-tail", "bgp-filter",
                "join-of-event-clauses", "static-only", "filter", "path-Axis", "path-Axis-inverse", "path-AxisConst",
                "path-AxisConst-inverse", "path-AxisNest", "path-AxisNest-inverse", "nested-test-in-test",
                "path-PathSeq", "path-PathAlt", "path-PathStar", "path-PathPlus", "path-PathOpt", "long", "interval",
                "tie", "unordered-file", "foreign-stream", "static-change", "until"):
        assert cover[key] >= 5, (key, cover[key])
    assert 60 <= cover["long"] <= 150


def test_random_case_is_a_function_of_the_seed():
    a = L.random_case(random.Random("s1"), 8)
    b = L.random_case(random.Random("s1"), 8)
    assert a[0] == b[0] and a[1] == b[1] and a[2] == b[2]
    assert len({L.random_case(random.Random(i), 8)[0] for i in range(30)}) == 30


@settings(max_examples=40)
@given(G.cqels_cases(0, 8), G.cqels_options())
def test_hypothesis_cases_parse(case, options):
    text, s = case
    q = L.parse(text)
    assert L.parse(L.render(q)) == q and s == check_elements(s) and isinstance(options, Options)


def test_strategy_bundle():
    st = L.strategies()
    for strat in (st.queries(), st.streams(), st.options(), st.cases()):
        assert strat is not None
    assert st.render(L.parse(QUERY)) == L.render(L.parse(QUERY)) and st.render("x") == "x"


# ------------------------------------------------------------------------------------------------ simplifications
def test_simplifications_are_strictly_smaller_and_parse():
    n = 0
    for i in range(60):
        text, _, _ = G.random_case(random.Random(i), 4)
        q = L.parse(text)
        cands = list(L.simplify(text))
        assert len(cands) == len(set(cands)) and text not in cands
        for c in cands:
            qc = L.parse(c)
            assert size(qc) < size(q)
            n += 1
    assert n > 500
    text = (f"# static <{EX}a> <{EX}p> <{EX}b> .\n# static@4 <{EX}a> <{EX}p> <{EX}c> .\n# until 9\n"
            f"PREFIX : <{EX}>\nSELECT ?x\nFROM NAMED WINDOW :W ON :s1 [RANGE 4 SLIDE 2]\n"
            "FROM NAMED WINDOW :V ON :s2 [TRIPLES 3]\nWHERE {\n"
            "  WINDOW :W { SEQ({ ?x :p ?y . FILTER(?y > 1) }, !{ ?x :q ?z . }, { ?x :r ?w . }) }\n"
            "  WINDOW :V { ?x :p ?v . }\n  SEQ(:W, !:V)\n  ?x (:p/[^:q])* ?t .\n  FILTER(?x != :c && ?t != :d)\n}\n")
    cands = [L.parse(c) for c in simplifications(text)]
    assert all(c.until == 9 for c in cands)
    assert any(c.static is None and c.query == L.parse(text).query for c in cands)                # D dropped
    assert any(c.static is not None and c.static.is_constant for c in cands)                  # a version dropped
    assert any(len(c.query.windows) == 1 for c in cands) and any(not c.query.static for c in cands)
    assert any(c.query.windows and c.query.windows[0].spec == A.RangeWindow(4) for c in cands)
    assert any(c.query.events and isinstance(c.query.events[0], A.SeqEC)
               and not any(isinstance(it, A.Neg) for it in c.query.events[0].items) for c in cands)
    assert list(simplifications("not a query")) == []


# ------------------------------------------------------------------------------------------------ bundled data
def test_bundled_static_graph_and_streams():
    st = D.static_data()
    assert st.is_constant and len(st.at(0)) > 60
    w = D.W
    assert (w.SFO, w.locatedIn, w.SanFrancisco) in st.at(0) and (w.BayArea, w.partOf, w.California) in st.at(0)
    h = D.hourly_elements(("sf-temps", "seattle-temps"), "2010-03-13", "2010-03-15")
    assert h == sorted(h, key=lambda e: (e.start, e.position)) and h[0].start == 0 and h[-1].start == 71
    assert len(set(range(72)) - {e.start for e in h}) == 1 and len(h) == 2 * 71      # the DST hour
    assert {e.stream for e in h} == {w.sfTemps, w.seattleTemps}
    (e,) = [e for e in h if e.start == 13 and e.stream == w.sfTemps]
    assert {(p, o) for _, p, o in e.triples()} >= {(D.SOSA.madeBySensor, w.sfThermometer),
                                                    (D.SOSA.observedProperty, w.airTemperature)}
    d = D.weather_elements("2012-10-10", "2012-10-16")
    assert len(d) == 7 * 5 and d[-1].start == 6
    assert [o for e in d[:5] for _, p, o in e.triples() if p == D.SOSA.hasSimpleResult][-1] == w.drizzle
    trig = dumps_trig_elements(d)
    assert parse_stream(trig, "d.trig") == d
    with pytest.raises(ValueError):
        D.elements_for_spec("nowhere", "2010-01-01", "2010-01-02")


def test_real_cases_parse_with_the_stations_graph():
    cases = L.real_cases()
    assert len(cases) >= 3 and [c[:2] for c in cases] == [c[:2] for c in D.real_cases()]
    for name, text, stream in cases:
        q = L.parse(text, name)
        assert q.static == D.static_data() and stream and name.split("@")[1].split(":")[0] in D.STREAM_NAMES
        assert any(isinstance(it, A.Neg) for ec in q.query.events for it in getattr(ec, "items", ())) or \
            any(isinstance(it, A.Neg) for w in q.query.windows for it in getattr(w.pattern, "items", ()))
        assert q.query.static and A.query_paths(q.query)
        assert L.parse(L.render(q)) == q
        assert default_until(q.query, stream) < 2500                       # short slices: a small horizon
        assert {e.stream for e in stream} >= A.query_streams(q.query)


def test_language_record():
    assert L.name == "cqels" and L.options is Options and L.result_end is None and L.result_positions is not None
    assert L.random_case is not None and L.simplify is not None and L.strategies is not None
    assert static_json(QUERY) is None
