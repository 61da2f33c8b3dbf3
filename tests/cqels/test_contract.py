"""The CQELS-CEP contract modules besides the parser: Options and its switches (docs/semantics/cqels.md#cqels-6),
answers and their JSON form (#cqels-3.7), the default horizon (#cqels-3.8), stream elements and versioned static data
(#cqels-9), with located input errors."""
from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from rdflib import XSD, Literal, URIRef
from rdflib.term import BNode

from ceplab.semantics.cqels.ast import numeric_value
from ceplab.semantics.cqels.options import SWITCHES, Options, duration_ticks, profile
from ceplab.semantics.cqels.parser import parse_file
from ceplab.semantics.cqels.results import Answer, answer, default_until, from_json, snapshots, to_json
from ceplab.semantics.cqels.streams import (StaticData, arrival, arrival_order, check_elements, element_triples,
                                            parse_static, parse_stream, read_static, read_stream)
from ceplab.semantics.errors import StreamError
from ceplab.semantics.rdfstream import StreamElement

QUERIES = Path(__file__).with_name("queries")
EX = "http://example.org/"
HEAD = f"@prefix ceplab: <https://ceplab.org/ns#> .\n@prefix : <{EX}> .\n"


def u(x: str) -> URIRef:
    return URIRef(EX + x)


# ------------------------------------------------------------------------------------------------ options
def test_options_defaults_and_switches():
    o = Options()
    assert (o.wo_bounds, o.bgp_scope, o.static_interval, o.arrival, o.triples_unit, o.now, o.zero_length, o.tick) \
        == ("closed", "element", "global", "start", "elements", "valid", "nsparql", "1m")
    assert SWITCHES == {"wo_bounds": ("closed", "strict"), "bgp_scope": ("element", "join"),
                        "static_interval": ("global", "per_mapping", "unbounded"), "arrival": ("start", "end"),
                        "triples_unit": ("elements", "triples"), "now": ("valid", "arrived"),
                        "zero_length": ("nsparql", "sparql")}
    assert all(getattr(o, k) == vals[0] for k, vals in SWITCHES.items())
    assert profile("sase") == Options(wo_bounds="strict") and profile("default") == o
    for bad in (dict(wo_bounds="open"), dict(static_interval="local"), dict(tick="0s"), dict(tick="10"),
                dict(tick=5)):
        with pytest.raises(ValueError):
            Options(**bad)
    with pytest.raises(ValueError):
        profile("paper")
    assert duration_ticks("1d2h", "1h") == 26 and duration_ticks("1500ms", "500ms") == 3
    with pytest.raises(ValueError):
        duration_ticks("10x", "1m")


def test_numeric_values_are_exact():
    assert numeric_value(Literal("1.50", datatype=XSD.decimal)) == Fraction(3, 2)
    assert numeric_value(Literal("-7", datatype=XSD.byte)) == -7
    assert numeric_value(Literal("1e3", datatype=XSD.double)) is None
    assert numeric_value(Literal("abc", datatype=XSD.integer)) is None
    assert numeric_value(Literal("5")) is None and numeric_value(u("x")) is None


# ------------------------------------------------------------------------------------------------ answers
def test_answer_json_round_trip():
    a = answer(16, {"s": u("m"), "v": Literal('a"b\n')}, (10, 16))
    assert a == Answer(16, (("s", f"<{EX}m>"), ("v", '"a\\"b\\n"')), (10, 16))
    j = to_json(a)
    assert j == {"time": 16, "mapping": {"s": f"<{EX}m>", "v": '"a\\"b\\n"'}, "interval": [10, 16]}
    assert from_json(j) == a and (a.start, a.end) == (10, 16)
    for bad in ({"time": 3, "mapping": {}, "interval": [4, 5]}, {"time": 3, "mapping": {}},
                {"time": "3", "mapping": {}, "interval": [1, 2]}, {"time": 3, "mapping": {"x": 1}, "interval": [1, 2]},
                {"time": 3, "mapping": {}, "interval": [2, 1]}):
        with pytest.raises(ValueError):
            from_json(bad)
    snap = snapshots([a, answer(17, {}, (0, 17))], until=18)
    assert list(snap) == list(range(19)) and snap[16] == {a} and snap[0] == frozenset()
    with pytest.raises(ValueError):
        snapshots([a], until=15)


def test_default_horizon():
    q = parse_file(QUERIES / "ex6_running.q")
    els = [StreamElement((u("a1"), u("delayAt"), u("m")), t) for t in (10, 12, 14, 16)]
    assert default_until(q, els) == 26
    assert default_until(q, els, (30,)) == 40
    assert default_until(parse_file(QUERIES / "t03_path_plus.q")) == 0
    assert default_until(parse_file(QUERIES / "window_kinds.q"), [StreamElement((u("a"), u("b"), u("c")), 3, 9)]) \
        == 9 + 60 + 10 - 1


# ------------------------------------------------------------------------------------------------ streams
STREAM = HEAD + """
<urn:e:1> { :a1 :delayAt :m . }
<urn:e:1> ceplab:stream :pt ; ceplab:start 10 .
<urn:e:0> { :d1 :delayAt :h . _:x :p _:y . _:y :p :q . }
<urn:e:0> ceplab:stream :pt ; ceplab:start 12 ; ceplab:end 14 .
<urn:e:2> { :b :temp 20.50 . }
<urn:e:2> ceplab:stream :other ; ceplab:start 11 ; ceplab:end 11 .
"""


def test_stream_elements(tmp_path):
    els = parse_stream(STREAM, "s.trig")
    assert [(e.start, e.end, e.position, str(e.stream)) for e in els] == \
        [(10, 10, 0, EX + "pt"), (11, 11, 2, EX + "other"), (12, 14, 1, EX + "pt")]
    triples = element_triples(els[2])
    assert triples == sorted(triples, key=lambda t: tuple(x.n3() for x in t))
    assert {x for t in triples for x in t if isinstance(x, BNode)} == {BNode("e1b0"), BNode("e1b1")}
    assert parse_stream(STREAM, "s.trig") == els                 # blank-node labels are deterministic
    assert [arrival(e, Options(arrival="end")) for e in els] == [10, 11, 14]
    assert [e.position for e in arrival_order(els, Options(arrival="end"))] == [0, 2, 1]
    f = tmp_path / "s.trig"
    f.write_text(STREAM, encoding="utf-8")
    assert read_stream(f) == els


@pytest.mark.parametrize("text,line,fragment", [
    (HEAD + "<urn:e:1> { :a :b :c . }\n<urn:e:1> ceplab:start 1 .\n", 3, "no ceplab:stream"),
    (HEAD + "<urn:e:1> { :a :b :c . }\n<urn:e:1> ceplab:stream :s ; ceplab:start -1 .\n", 3, ">= 0"),
    (HEAD + '<urn:e:1> { :a :b "x"^^<http://www.w3.org/2001/XMLSchema#integer> . }\n'
            "<urn:e:1> ceplab:stream :s ; ceplab:start 1 .\n", 3, "ill-typed"),
    (HEAD + "<urn:e:1> { :a :b :c . }\n<urn:e:1> ceplab:stream :s ; ceplab:start 5 ; ceplab:end 4 .\n", 3,
     "end 4 < start 5"),
    (HEAD + "<urn:e:1> { :a :b }\n<urn:e:1> ceplab:stream :s ; ceplab:start 5 .\n", 3, "syntax"),
])
def test_stream_errors_are_located(text, line, fragment):
    with pytest.raises(StreamError) as e:
        parse_stream(text, "s.trig")
    assert e.value.file == "s.trig" and e.value.line == line and e.value.column is not None, str(e.value)
    assert fragment in e.value.message


def test_check_elements_built_in_code():
    g = [(BNode("z"), u("p"), u("o"))]
    (e,) = check_elements([StreamElement(tuple(g[0]), 3, 4, u("s"), 7)])
    assert element_triples(e) == [(BNode("e7b0"), u("p"), u("o"))] and (e.start, e.end) == (3, 4)
    with pytest.raises(StreamError):
        check_elements([StreamElement(g[0], 3, 4, u("s"), 1), StreamElement(g[0], 5, 5, u("s"), 1)])


# ------------------------------------------------------------------------------------------------ static data
def test_static_data_versions(tmp_path):
    a, b = (u("a"), u("p"), u("b")), (u("x"), u("p"), u("y"))
    d = StaticData([(17, [a, b]), (5, [a]), (9, [a])])
    assert [(v.since, len(v.triples)) for v in d.versions] == [(0, 0), (5, 1), (17, 2)]   # merged and padded
    assert d.at(4) == frozenset() and d.at(16) == {a} and d.since(16) == 5 and d.since(40) == 17
    assert d.change_times == (5, 17) and not d.is_constant
    assert StaticData.constant([a]).is_constant and StaticData.constant([a]).since(100) == 0
    with pytest.raises(ValueError):
        StaticData([(3, [a]), (3, [b])])
    with pytest.raises(ValueError):
        StaticData([(-1, [a])])
    ttl = f"@prefix : <{EX}> .\n:conn1 :beg :m ; :means :subway .\n_:n :p 1.50 .\n"
    s = parse_static(ttl, "d.ttl")
    assert s.is_constant and len(s.at(0)) == 3 and (BNode("sb0"), u("p"), Literal("1.50", datatype=XSD.decimal)) \
        in s.at(0)
    trig = HEAD + "<urn:v:0> { :a :p :b . }\n<urn:v:0> ceplab:start 0 .\n" \
                  "<urn:v:1> { :a :p :b . :x :p :y . }\n<urn:v:1> ceplab:start 17 .\n"
    f = tmp_path / "d.trig"
    f.write_text(trig, encoding="utf-8")
    s = read_static(f)
    assert s.change_times == (17,) and s.at(17) == {a, b} and s.at(16) == {a}


@pytest.mark.parametrize("text,fmt,line,fragment", [
    (f"@prefix : <{EX}> .\n:a :b .\n", "turtle", 2, "syntax"),
    (f'@prefix : <{EX}> .\n:a :b "q"^^<http://www.w3.org/2001/XMLSchema#decimal> .\n', "turtle", 2, "ill-typed"),
    (HEAD + "<urn:v:0> { :a :p :b . }\n<urn:v:0> ceplab:start 0 ; ceplab:end 3 .\n", "trig", 3, "ceplab:end"),
    (HEAD + "<urn:v:0> { :a :p :b . }\n<urn:v:0> ceplab:stream :s ; ceplab:start 0 .\n", "trig", 3,
     "ceplab:stream"),
    (HEAD + "<urn:v:0> { :a :p :b . }\n<urn:v:0> ceplab:start 2 .\n<urn:v:1> { :a :p :c . }\n"
            "<urn:v:1> ceplab:start 2 .\n", "trig", 5, "both start at 2"),
])
def test_static_errors_are_located(text, fmt, line, fragment):
    with pytest.raises(StreamError) as e:
        parse_static(text, "d", fmt)
    assert e.value.line == line and fragment in e.value.message, str(e.value)


# ------------------------------------------------------------------------------------------------ documentation
def test_every_cited_anchor_exists():
    """Every ``docs/semantics/cqels.md#cqels-...`` (and ``#cqels-...``) cited by the CQELS-CEP modules and tests is an
    anchor of docs/semantics/cqels.md."""
    import re

    root = Path(__file__).resolve().parents[2]
    doc = (root / "docs" / "semantics" / "cqels.md").read_text(encoding="utf-8")
    anchors = set(re.findall(r'<a id="([^"]+)"></a>', doc))
    files = [p for d in ("semantics/cqels", "asp", "engine/cqels", "tests/cqels", "papers-check/cqels", "docs/semantics")
             for p in (root / d).rglob("*") if p.is_file() and p.suffix in (".py", ".lp", ".lark", ".q", ".md")
             and ("cqels" in str(p.relative_to(root)))]
    cited = {(m.rstrip("."), p.name) for p in files for m in
             re.findall(r"#(cqels-[A-Za-z0-9][A-Za-z0-9_.\-]*)", p.read_text(encoding="utf-8"))}
    assert len(files) > 5 and cited
    missing = sorted((a, f) for a, f in cited if a not in anchors)
    assert not missing, missing
