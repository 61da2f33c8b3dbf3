import pytest
from hypothesis import given, strategies as st
from rdflib import XSD, BNode, Graph, Literal, URIRef

from ceplab.semantics.errors import StreamError
from ceplab.semantics.events import (Event, Stream, dumps_csv, dumps_jsonl, parse_csv, parse_jsonl, read_events_parquet,
                                     read_stream, write_events_parquet, write_stream)
from ceplab.semantics.rdfstream import (SCHEMA_VERSION, GraphEvent, StreamElement, by_stream, dumps_trig_elements,
                                        dumps_trig_graph_events, nt_term, parse_nt_term, parse_trig_elements,
                                        parse_trig_graph_events, read_elements, read_elements_parquet,
                                        read_graph_events, read_graph_events_parquet, write_elements,
                                        write_elements_parquet, write_graph_events, write_graph_events_parquet)


def test_jsonl_roundtrip():
    text = ('{"type": "A", "time": 1, "attrs": {"v": 1, "s": "x"}}\n'
            '{"type": "B", "time": 1}\n{"type": "C", "time": 4, "end": 6}\n')
    s = parse_jsonl(text, "s.jsonl")
    assert [e.type for e in s] == ["A", "B", "C"]
    assert [e.position for e in s] == [0, 1, 2]
    assert s[0].attrs == {"v": 1, "s": "x"} and s[2].end == 6 and s[1].end == 1
    assert parse_jsonl(dumps_jsonl(s.events)).events == s.events


def test_csv_roundtrip():
    s = Stream.of([("A", {"v": 1, "w": 2.5}), ("B", {"s": "hi"}), ("C", {})])
    back = parse_csv(dumps_csv(s.events))
    assert back.events == s.events


@pytest.mark.parametrize("text,msg,line,col", [
    ('{"type": "A", "time": 1}\n{"type": "A", "time": ', "malformed JSON", 2, 23),
    ('{"time": 1}', "no 'type'", 1, 1),
    ('{"type": "A"}', "no 'time'", 1, 1),
    ('{"type": "A", "time": 1.5}', "integer", 1, 1),
    ('{"type": "A", "time": true}', "integer", 1, 1),
    ('{"type": "A", "time": 3}\n{"type": "A", "time": 2}', "backwards", 2, 1),
    ('{"type": "A", "time": 3, "attrs": [1]}', "'attrs' must be a JSON object", 1, 1),
    ('[1,2]', "JSON object", 1, 1),
])
def test_jsonl_errors_name_file_line_column(text, msg, line, col):
    with pytest.raises(StreamError) as ei:
        parse_jsonl(text, "bad.jsonl")
    e = ei.value
    assert msg in e.message and (e.file, e.line, e.column) == ("bad.jsonl", line, col)
    assert str(e).startswith(f"bad.jsonl:{line}:{col}: ")


def test_csv_errors():
    with pytest.raises(StreamError, match="no 'time'"):
        parse_csv("type,v\nA,1\n", "x.csv")
    with pytest.raises(StreamError) as ei:
        parse_csv("type,time\nA,1\nB,x\n", "x.csv")
    assert (ei.value.line, ei.value.column) == (3, 2)


def test_read_stream_missing_file(tmp_path):
    with pytest.raises(StreamError, match="cannot read"):
        read_stream(tmp_path / "nope.jsonl")


def test_event_equality():
    assert Event("A", 1, {"v": 1}, 0) == Event("A", 1, {"v": 1}, 0)
    assert Event("A", 1, {"v": 1}, 0) != Event("A", 1, {"v": 2}, 0)


# ------------------------------------------------------------------------------------------------ flat Parquet
def test_flat_events_parquet_round_trip_and_schema_version(tmp_path):
    import pyarrow.parquet as pq

    s = parse_jsonl('{"type": "A", "time": 1, "attrs": {"v": 1, "f": 2.5, "b": true, "s": "x"}}\n'
                    '{"type": "B", "time": 3, "end": 7}\n', "s.jsonl")
    f = tmp_path / "s.parquet"
    write_stream(s, f)
    back = read_stream(f)
    assert back.events == s.events and isinstance(back[0].attrs["f"], float) and back[0].attrs["b"] is True
    meta = pq.read_schema(f).metadata
    assert meta[b"ceplab.schema"] == b"events" and meta[b"ceplab.schema_version"] == str(SCHEMA_VERSION).encode()
    assert pq.read_schema(f).names == ["position", "time", "end", "type", "attrs"]


def test_flat_events_parquet_errors(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    bad = tmp_path / "bad.parquet"
    write_events_parquet([Event("A", 5, {}, 0), Event("A", 2, {}, 1)], bad)
    with pytest.raises(StreamError, match="backwards") as ei:
        read_events_parquet(bad)
    assert (ei.value.file, ei.value.line) == (str(bad), 2)
    plain = tmp_path / "plain.parquet"
    pq.write_table(pa.table({"x": [1]}), plain)
    with pytest.raises(StreamError, match="not a ceplab events Parquet file"):
        read_stream(plain)
    t = pq.read_table(bad)
    pq.write_table(t.replace_schema_metadata({b"ceplab.schema": b"events", b"ceplab.schema_version": b"99"}), plain)
    with pytest.raises(StreamError, match="schema version '99'"):
        read_events_parquet(plain)
    junk = tmp_path / "junk.parquet"
    junk.write_text("not parquet")
    with pytest.raises(StreamError, match="cannot read Parquet") as ei:
        read_stream(junk)
    assert ei.value.file == str(junk)


# ------------------------------------------------------------------------------------------------ RDF streams
EX = "http://example.org/"


def u(x):
    return URIRef(EX + x)


STREAMSET = """@prefix ex: <http://example.org/> .
@prefix ceplab: <https://ceplab.org/ns#> .
ex:e2 { ex:bob ex:at ex:room1 . _:o ex:temp 21 }
ex:e1 { ex:ann ex:at ex:room2 }
ex:e3 { ex:bob ex:at ex:room2 }
ex:e2 ceplab:stream ex:S1 ; ceplab:start 5 .
ex:e1 ceplab:stream ex:S2 ; ceplab:start 3 ; ceplab:end 3 .
ex:e3 ceplab:stream ex:S1 ; ceplab:start 5 .
"""


def test_graph_events_from_a_streamset():
    evs = parse_trig_graph_events(STREAMSET, "s.trig")
    # ordered by time, ties by file order; positions are ranks in file order
    assert [(str(e.name)[len(EX):], e.time, str(e.stream)[len(EX):], e.position) for e in evs] == [
        ("e1", 3, "S2", 1), ("e2", 5, "S1", 0), ("e3", 5, "S1", 2)]
    assert (u("ann"), u("at"), u("room2")) in evs[0].graph and len(evs[1].graph) == 2
    assert isinstance(evs[1].graph, Graph)
    streams = by_stream(evs)
    assert list(streams) == [u("S2"), u("S1")] and [e.position for e in streams[u("S1")]] == [0, 2]


def test_graph_events_unnamed_streams_and_file_order_ties():
    text = STREAMSET.replace("ceplab:stream ex:S1 ;", "").replace("ceplab:stream ex:S2 ;", "")
    evs = parse_trig_graph_events(text)
    assert [e.stream for e in evs] == [None, None, None]
    assert by_stream(evs) == {None: evs}


def test_graph_event_equality_is_up_to_blank_node_renaming():
    a = GraphEvent([(BNode("x"), u("p"), Literal(1))], 4, u("S"), 0, u("g"))
    b = GraphEvent([(BNode("y"), u("p"), Literal(1))], 4, u("S"), 0, u("g"))
    assert a == b and a != GraphEvent([(BNode("y"), u("p"), Literal(2))], 4, u("S"), 0, u("g"))
    assert a != GraphEvent(a.graph, 5, u("S"), 0, u("g"))
    with pytest.raises(ValueError):
        GraphEvent([], 1.5)


def test_graph_events_round_trip_trig_and_parquet(tmp_path):
    evs = parse_trig_graph_events(STREAMSET, "s.trig")
    assert parse_trig_graph_events(dumps_trig_graph_events(evs)) == evs
    for name in ("s.trig", "s.parquet"):
        write_graph_events(evs, tmp_path / name)
        assert read_graph_events(tmp_path / name) == evs
    import pyarrow.parquet as pq
    meta = pq.read_schema(tmp_path / "s.parquet").metadata
    assert meta[b"ceplab.schema"] == b"graph_events" and meta[b"ceplab.schema_version"] == b"1"
    rows = pq.read_table(tmp_path / "s.parquet").to_pylist()
    assert len(rows) == 4 and rows[0]["graph"] == EX + "e1" and rows[0]["s"] == f"<{EX}ann>"
    # an event built in code with an empty graph and no name survives Parquet and TriG naming
    empty = [GraphEvent([], 1, None, 0)]
    write_graph_events_parquet(empty, tmp_path / "e.parquet")
    assert read_graph_events_parquet(tmp_path / "e.parquet") == empty


@pytest.mark.parametrize("edit,fragment,line,col", [
    (("ex:e2 ceplab:stream ex:S1 ; ceplab:start 5 .", "ex:e2 ceplab:stream ex:S1 ."), "no ceplab:start", 3, 1),
    (("ceplab:start 5 .\nex:e1", "ceplab:start 5.5 .\nex:e1"), "not an integer tick", 3, 1),
    (("ceplab:start 5 .\nex:e1", 'ceplab:start "5" .\nex:e1'), "not an integer tick", 3, 1),
    (("ceplab:start 3 ; ceplab:end 3", "ceplab:start 3 ; ceplab:end 4"), "one timestamp", 4, 1),
    (("ex:e2 ceplab:stream ex:S1 ;", "ex:e2"), "no ceplab:stream while others", 3, 1),
    (("ex:e3 ceplab:stream ex:S1", "ex:e3 ceplab:stream 7"), "not an IRI", 5, 1),
    (("ex:e3 ceplab:stream ex:S1 ;", "ex:e3 ceplab:stream ex:S1 , ex:S2 ;"), "2 ceplab:stream values", 5, 1),
    (("ex:e1 {", "_:e1 {"), "no named graph", 7, 1),
    (("ex:e1 ceplab:stream", "ex:x ex:y ex:z .\nex:e1 ceplab:stream"), "default graph may only hold", 7, 1),
    (("ex:e3 { ex:bob ex:at ex:room2 }", "ex:e3 { ex:bob ex:at ex:room2 ."), "TriG syntax error", 9, None),
    (("ex:e3 { ex:bob ex:at ex:room2 }", "ex:e3 { ex:bob ex:at }"), "TriG syntax error", 5, 21),
])
def test_graph_event_errors_name_file_line_column(edit, fragment, line, col):
    text = STREAMSET.replace(*edit)
    assert text != STREAMSET
    with pytest.raises(StreamError) as ei:
        parse_trig_graph_events(text, "s.trig")
    e = ei.value
    assert fragment in e.message, str(e)
    assert (e.file, e.line) == ("s.trig", line), str(e)
    if col is not None:
        assert e.column == col, str(e)


def test_graph_events_require_order_per_stream():
    # streams are checked each on its own: S2 at 3 after S1 at 5 is fine, S1 going back is not
    assert len(parse_trig_graph_events(STREAMSET, require_order=True)) == 3
    bad = STREAMSET.replace("ex:e3 ceplab:stream ex:S1 ; ceplab:start 5", "ex:e3 ceplab:stream ex:S1 ; ceplab:start 4")
    assert [e.position for e in parse_trig_graph_events(bad)] == [1, 2, 0]       # sorted by default
    with pytest.raises(StreamError, match="time goes backwards in stream") as ei:
        parse_trig_graph_events(bad, "s.trig", require_order=True)
    assert (ei.value.line, ei.value.column) == (5, 1)


def test_missing_trig_file(tmp_path):
    with pytest.raises(StreamError, match="cannot read") as ei:
        read_graph_events(tmp_path / "nope.trig")
    assert ei.value.file == str(tmp_path / "nope.trig")


INTERVALS = """@prefix ex: <http://example.org/> .
@prefix c: <https://ceplab.org/ns#> .
ex:g1 { ex:a ex:p 1 . ex:a ex:p "x\\ny"@en }
ex:g2 { ex:b ex:p 2 }
ex:g3 { ex:c ex:p 3 }
ex:g1 c:start 2 ; c:end 6 .
ex:g2 c:start 1 ; c:end 4 .
ex:g3 c:start 4 .
"""


def test_interval_elements_order_by_end_then_file_order():
    els = parse_trig_elements(INTERVALS, "i.trig")
    assert [(str(e.name)[len(EX):], e.start, e.end, e.position, e.is_point) for e in els] == [
        ("g2", 1, 4, 1, False), ("g3", 4, 4, 2, True), ("g1", 2, 6, 0, False)]
    assert not els[0].is_triple and len(els[2].content) == 2
    by_start = parse_trig_elements(INTERVALS, order="start")
    assert [str(e.name)[len(EX):] for e in by_start] == ["g2", "g1", "g3"]


def test_interval_elements_as_triples():
    els = parse_trig_elements(INTERVALS, unit="triple")
    assert [(e.content, e.start, e.end, e.position) for e in els] == [
        ((u("b"), u("p"), Literal(2)), 1, 4, 2),
        ((u("c"), u("p"), Literal(3)), 4, 4, 3),
        ((u("a"), u("p"), Literal("x\ny", lang="en")), 2, 6, 0),     # a graph's triples by N-Triples text
        ((u("a"), u("p"), Literal(1)), 2, 6, 1)]
    assert all(e.is_triple and e.triples() == [e.content] for e in els)


def test_interval_require_order_and_end_before_start():
    with pytest.raises(StreamError, match="time goes backwards") as ei:
        parse_trig_elements(INTERVALS, "i.trig", require_order=True)
    assert ei.value.line == 4          # ex:g2 ends at 4 after ex:g1 at 6
    with pytest.raises(StreamError, match="end 1 < start 2") as ei:
        parse_trig_elements(INTERVALS.replace("c:start 2 ; c:end 6", "c:start 2 ; c:end 1"), "i.trig")
    assert (ei.value.file, ei.value.line, ei.value.column) == ("i.trig", 3, 1)
    with pytest.raises(ValueError):
        StreamElement((u("a"), u("p"), u("o")), 3, 2)


def test_interval_seq_overrides_lexical_file_order():
    text = INTERVALS + "ex:g1 c:seq 2 . ex:g2 c:seq 0 . ex:g3 c:seq 1 .\n"
    assert [(str(e.name)[len(EX):], e.position) for e in parse_trig_elements(text)] == [
        ("g2", 0), ("g3", 1), ("g1", 2)]
    with pytest.raises(StreamError, match="no ceplab:seq while others"):
        parse_trig_elements(INTERVALS + "ex:g1 c:seq 2 .\n")


def test_triple_hook_sees_the_graph_location():
    def hook(t, file, line, col):
        if t[2] == Literal(3):
            raise StreamError("no threes", file, line, col)
        return t
    with pytest.raises(StreamError, match="no threes") as ei:
        parse_trig_elements(INTERVALS, "i.trig", unit="triple", triple_hook=hook)
    assert (ei.value.line, ei.value.column) == (5, 1)


@pytest.mark.parametrize("unit", ["graph", "triple"])
def test_interval_elements_round_trip_trig_and_parquet(tmp_path, unit):
    text = STREAMSET.replace("ceplab:start 3 ; ceplab:end 3", "ceplab:start 1 ; ceplab:end 9").replace("_:o", "ex:o")
    els = parse_trig_elements(text, "s.trig", unit=unit)
    assert {e.stream for e in els} == {u("S1"), u("S2")}
    assert parse_trig_elements(dumps_trig_elements(els), unit=unit) == els
    assert parse_trig_elements(dumps_trig_elements(els, seq=True), unit=unit) == els
    for name in ("s.trig", "s.parquet"):
        write_elements(els, tmp_path / name)
        assert read_elements(tmp_path / name, unit=unit) == els
    import pyarrow.parquet as pq
    meta = pq.read_schema(tmp_path / "s.parquet").metadata
    assert meta[b"ceplab.schema"] == b"elements" and meta[b"ceplab.unit"] == unit.encode()
    assert pq.read_schema(tmp_path / "s.parquet").names == [
        "element", "graph", "stream", "position", "start", "end", "s", "p", "o"]


def test_elements_parquet_rejects_bad_rows(tmp_path):
    import pyarrow.parquet as pq

    f = tmp_path / "e.parquet"
    write_elements_parquet([StreamElement((u("a"), u("p"), Literal("q \"x\"\n")), 1, 2)], f)
    t = pq.read_table(f)
    bad = t.set_column(t.column_names.index("end"), "end", [[0]]).replace_schema_metadata(t.schema.metadata)
    pq.write_table(bad, tmp_path / "b.parquet")
    with pytest.raises(StreamError, match="row 0: end 0 < start 1"):
        read_elements_parquet(tmp_path / "b.parquet")
    bad = t.set_column(t.column_names.index("o"), "o", [["not a term"]]).replace_schema_metadata(t.schema.metadata)
    pq.write_table(bad, tmp_path / "c.parquet")
    with pytest.raises(StreamError, match="bad N-Triples term"):
        read_elements_parquet(tmp_path / "c.parquet")
    with pytest.raises(StreamError, match="not a ceplab graph_events Parquet file"):
        read_graph_events_parquet(f)
    with pytest.raises(ValueError, match="mixing"):
        write_elements_parquet([StreamElement((u("a"), u("p"), u("o")), 1), StreamElement(Graph(), 1)], f)


_LITS = st.one_of(st.integers(-10**6, 10**6).map(Literal), st.text(max_size=12).map(Literal),
                  st.tuples(st.text(max_size=6), st.sampled_from(["en", "de-ch"])).map(lambda t: Literal(t[0], lang=t[1])),
                  st.sampled_from([Literal("1.50", datatype=XSD.decimal), Literal(True), u("o")]))


@given(st.lists(st.tuples(st.sampled_from([u("a"), u("b")]), _LITS, st.integers(0, 5), st.integers(0, 3)),
                max_size=6))
def test_terms_and_elements_round_trip(rows):
    for *_, lit, _, _ in [(None, r[1], None, None) for r in rows]:
        assert parse_nt_term(nt_term(lit)) == lit
    els = [StreamElement((s, u("p"), o), t, t + d, None, k) for k, (s, o, t, d) in enumerate(rows)]
    back = parse_trig_elements(dumps_trig_elements(els), unit="triple")
    ordered = sorted(els, key=lambda e: (e.end, e.position))
    assert [(e.content, e.start, e.end, e.position) for e in back] == [
        (e.content, e.start, e.end, e.position) for e in ordered]


def test_rdf_names_are_importable_from_events():
    from ceplab.semantics import events, rdfstream
    assert events.GraphEvent is rdfstream.GraphEvent and events.CEPLAB == URIRef("https://ceplab.org/ns#")
    with pytest.raises(AttributeError):
        events.nothing_here
