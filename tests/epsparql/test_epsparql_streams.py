"""EP-SPARQL stream readers and writers (semantics/epsparql/streams.py; docs/semantics/epsparql.md#epsparql-1, #epsparql-A1, #epsparql-A2, #epsparql-A14 iv, #epsparql-A19)."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, strategies as st
from rdflib import RDFS, XSD, Literal, URIRef

from ceplab.semantics.epsparql.streams import (CEPLAB, Background, Occurrence, dumps_line_stream, dumps_trig,
                                        read_background, read_line_stream, read_stream, read_trig_stream)
from ceplab.semantics.errors import StreamError

EX = "http://example.org/"


def u(x):
    return URIRef(EX + x)


def i(n):
    return Literal(str(n), datatype=XSD.integer)


# ------------------------------------------------------------------------------------------------ line format
E2_STREAM = """# E2 (docs/semantics/epsparql.md#epsparql-5)
<http://example.org/ACME> <http://example.org/downratedby> <http://example.org/Moodys> 2 .
<http://example.org/ACME> <http://example.org/hasStockPrice> 100 3 .
<http://example.org/IBM> <http://example.org/hasStockPrice> "80"^^<http://www.w3.org/2001/XMLSchema#integer> 4 4 .

<http://example.org/IBM> <http://example.org/downratedby> <http://example.org/SP> 5 .  # trailing comment
<http://example.org/ACME> <http://example.org/hasStockPrice> 40 6 .
<http://example.org/IBM> <http://example.org/hasStockPrice> 30 7
"""


def test_line_stream_reads_e2():
    occs = read_line_stream(E2_STREAM, "e2.nt")
    assert [(o.start, o.end, o.position) for o in occs] == [(t, t, k) for k, t in enumerate([2, 3, 4, 5, 6, 7])]
    assert occs[0] == Occurrence(u("ACME"), u("downratedby"), u("Moodys"), 2, 2, 0)
    assert occs[2].o == i(80) and occs[1].o == i(100)


def test_line_stream_intervals_literals_and_bnodes():
    occs = read_line_stream('<http://a> <http://p> "x \\"q\\""@en 1 3 .\n'
                            '_:b <http://p> 1.50 3 .\n'
                            '<http://a> <http://p> "7.0"^^<http://www.w3.org/2001/XMLSchema#decimal> 3 4.\n'
                            '<http://a> <http://p> true 5')
    assert (occs[0].start, occs[0].end) == (1, 3) and occs[0].o == Literal('x "q"', lang="en")
    assert str(occs[1].o) == "1.5" and str(occs[1].s) == "b"
    assert str(occs[2].o) == "7.0" and (occs[2].start, occs[2].end) == (3, 4)
    assert occs[3].o == Literal(True)


def test_line_stream_canonicalises_and_drops_duplicates():
    text = ('<http://a> <http://p> 007 1 .\n'
            '<http://a> <http://p> "7"^^<http://www.w3.org/2001/XMLSchema#integer> 1 1 .\n'   # duplicate of line 1
            '<http://a> <http://p> 7 2 .\n'                                                     # same triple, new time
            '<http://a> <http://p> 1.500 2 .\n'
            '<http://a> <http://p> 1.5 2 .\n')                                                  # duplicate
    occs = read_line_stream(text)
    assert [(str(o.o), o.start, o.position) for o in occs] == [("7", 1, 0), ("7", 2, 1), ("1.5", 2, 2)]


@pytest.mark.parametrize("text,line,col,fragment", [
    ("<http://a> <http://p> <http://o>", 1, 33, "missing time"),
    ("<http://a> <http://p> <http://o> 3.5 .", 1, 34, "not an integer"),
    ("<http://a> <http://p> <http://o> x", 1, 34, "not an integer"),
    ("<http://a> <http://p> <http://o> 5 3 .", 1, 36, "end 3 < start 5"),
    ("<http://a> <http://p> <http://o> 5 .\n<http://a> <http://p> <http://o> 3 .", 2, 34, "backwards"),
    ("<http://a> <http://p> <http://o> 1 5 .\n<http://a> <http://p> <http://o> 2 4 .", 2, 36, "backwards"),
    ("a <http://p> <http://o> 3 .", 1, 1, "bad RDF term for the subject"),
    ("<http://a> <http://p> <bad iri> 3 .", 1, 23, "bad RDF term for the object"),
    ('"lit" <http://p> <http://o> 3 .', 1, 1, "literal cannot be the subject"),
    ("<http://a> <http://www.w3.org/2000/01/rdf-schema#subClassOf> <http://o> 3 .", 1, 12, "schema triple"),
    ("<http://a> <http://www.w3.org/2000/01/rdf-schema#domain> <http://o> 3 .", 1, 12, "A14"),
    ('<http://a> <http://p> "x"^^<http://www.w3.org/2001/XMLSchema#integer> 3 .', 1, 23, "ill-typed"),
    ("<http://a> <http://p> <http://o> 1 2 3 .", 1, 38, "at most two times"),
])
def test_line_stream_errors(text, line, col, fragment):
    with pytest.raises(StreamError) as ei:
        read_line_stream("# header\n" + text, "s.nt")
    e = ei.value
    assert fragment in e.message, e.message
    assert (e.file, e.line, e.column) == ("s.nt", line + 1, col), str(e)


def test_points_equal_on_the_same_end_are_a_tick_not_backwards():
    occs = read_line_stream("<http://a> <http://p> 1 0 5 .\n<http://a> <http://p> 2 5 .\n<http://a> <http://p> 3 2 5 .")
    assert [o.end for o in occs] == [5, 5, 5]


# ------------------------------------------------------------------------------------------------ TriG
TRIG = """@prefix ex: <http://example.org/> .
@prefix ceplab: <https://ceplab.org/ns#> .
# ex:g0 { } is a comment, "ex:g9 { }" below is a string
ex:g3 { ex:a ex:p 1 }
GRAPH <http://example.org/g1> { ex:b ex:p "ex:g9 { }" . ex:a ex:q 0002 }
ex:g2 { ex:c ex:p 3 }
ex:g4 { ex:c ex:p 4 }
ex:g3 ceplab:start 2 .
ex:g1 ceplab:start 1 ; ceplab:end 2 .
ex:g2 ceplab:start 0 ; ceplab:end 2 .
ex:g4 ceplab:start "1"^^<http://www.w3.org/2001/XMLSchema#integer> .
"""


def test_trig_orders_by_end_then_file_order():
    occs = read_trig_stream(TRIG, "s.trig")
    got = [(str(o.s)[len(EX):], str(o.p)[len(EX):], str(o.o), o.start, o.end, o.position) for o in occs]
    assert got == [("c", "p", "4", 1, 1, 0),         # g4 ends first
                   ("a", "p", "1", 2, 2, 1),         # then the ties at 2 in file order: g3, g1, g2
                   ("a", "q", "2", 1, 2, 2),         # (triples of one graph by N-Triples text)
                   ("b", "p", "ex:g9 { }", 1, 2, 3),
                   ("c", "p", "3", 0, 2, 4)]


def test_trig_seq_overrides_lexical_order():
    text = TRIG + "ex:g3 ceplab:seq 3 . ex:g1 ceplab:seq 2 . ex:g2 ceplab:seq 1 . ex:g4 ceplab:seq 0 .\n"
    occs = read_trig_stream(text)
    assert [str(o.s)[len(EX):] + str(o.o) for o in occs] == ["c4", "c3", "a2", "bex:g9 { }", "a1"]


@pytest.mark.parametrize("edit,line,fragment", [
    (("ex:g2 ceplab:start 0 ;", "ex:g2 ceplab:start 3 ;"), 6, "end 2 < start 3"),
    (("ex:g3 ceplab:start 2 .", ""), 4, "no ceplab:start"),
    (("ex:g3 ceplab:start 2 .", 'ex:g3 ceplab:start 2.5 .'), 4, "not an integer tick"),
    (("ex:g3 ceplab:start 2 .", 'ex:g3 ceplab:start 2, 3 .'), 4, "2 ceplab:start values"),
    (("ex:a ex:p 1", "ex:a <http://www.w3.org/2000/01/rdf-schema#subPropertyOf> ex:q"), 4, "schema triple"),
    (("ex:g4 ceplab:start", "ex:g9 ceplab:start 1 . ex:g4 ceplab:start"), 11, "no named graph"),
    (("ex:c ex:p 4", 'ex:c ex:p "x"^^<http://www.w3.org/2001/XMLSchema#integer>'), 7, "ill-typed"),
    (("ex:g3 { ex:a ex:p 1 }", "ex:g3 { ex:a ex:p 1 "), None, "TriG syntax error"),
])
def test_trig_errors(edit, line, fragment):
    with pytest.raises(StreamError) as ei:
        read_trig_stream(TRIG.replace(*edit), "s.trig")
    e = ei.value
    assert fragment in e.message, e.message
    assert e.file == "s.trig"
    if line is not None:
        assert e.line == line, str(e)


def test_trig_default_graph_only_annotations_and_partial_seq():
    with pytest.raises(StreamError, match="default graph may only hold"):
        read_trig_stream(TRIG + "ex:a ex:b ex:c .\n")
    with pytest.raises(StreamError, match="ceplab:seq"):
        read_trig_stream(TRIG + "ex:g3 ceplab:seq 1 .\n")


def test_trig_canonicalises_and_drops_duplicates():
    text = """@prefix ex: <http://example.org/> . @prefix c: <https://ceplab.org/ns#> .
    ex:g1 { ex:a ex:p 1.50 } ex:g2 { ex:a ex:p 1.5 } ex:g3 { ex:a ex:p 1.5 }
    ex:g1 c:start 1 . ex:g2 c:start 1 . ex:g3 c:start 2 ."""
    occs = read_trig_stream(text)
    assert [(str(o.o), o.start, o.position) for o in occs] == [("1.5", 1, 0), ("1.5", 2, 1)]


def test_trig_stream_annotation_one_stream_only():
    named = TRIG + "".join(f"ex:g{k} ceplab:stream ex:S .\n" for k in (1, 2, 3, 4))
    assert read_trig_stream(named) == read_trig_stream(TRIG)
    with pytest.raises(StreamError) as ei:
        read_trig_stream(named.replace("ex:g2 ceplab:stream ex:S", "ex:g2 ceplab:stream ex:T"), "s.trig")
    assert "one stream" in ei.value.message and (ei.value.line, ei.value.column) == (6, 1)
    with pytest.raises(StreamError, match="ceplab:stream") as ei:
        read_trig_stream(TRIG + "ex:g3 ceplab:stream ex:S .\n", "s.trig")
    assert ei.value.line == 5          # ex:g1, the first graph in file order without a stream


def test_trig_syntax_error_has_line_and_column():
    with pytest.raises(StreamError) as ei:
        read_trig_stream(TRIG.replace("ex:g2 { ex:c ex:p 3 }", "ex:g2 { ex:c ex:p 3 ex:x }"), "s.trig")
    assert "TriG syntax error" in ei.value.message and ei.value.line == 6 and ei.value.column is not None


def test_ceplab_namespace():
    assert str(CEPLAB) == "https://ceplab.org/ns#" and CEPLAB.start == URIRef("https://ceplab.org/ns#start")


# ------------------------------------------------------------------------------------------------ writers
_TERMS = st.sampled_from([u("a"), u("b"), URIRef("http://x.org/y#z")])
_OBJS = st.one_of(_TERMS, st.integers(-5, 200).map(i), st.sampled_from([
    Literal("1.5", datatype=XSD.decimal), Literal('q "x"\n'), Literal("t", lang="en"), Literal(False)]))


@st.composite
def _streams(draw):
    n = draw(st.integers(0, 8))
    occs, end = [], 0
    for _ in range(n):
        end += draw(st.integers(0, 2))
        start = end - draw(st.sampled_from([0, 0, 0, 1, 3]))
        occs.append(Occurrence(draw(_TERMS), draw(_TERMS), draw(_OBJS), start, end, 0))
    seen, out = set(), []
    for o in occs:
        if (o.s, o.p, o.o, o.start, o.end) not in seen:
            seen.add((o.s, o.p, o.o, o.start, o.end))
            out.append(o._replace(position=len(out)))
    return out


@given(_streams())
def test_writers_round_trip(occs):
    assert read_line_stream(dumps_line_stream(occs)) == occs
    assert read_trig_stream(dumps_trig(occs)) == occs


# ------------------------------------------------------------------------------------------------ files
def test_read_stream_dispatches_on_suffix(tmp_path: Path):
    occs = read_line_stream(E2_STREAM)
    for name, text in (("s.nt", dumps_line_stream(occs)), ("s.txt", E2_STREAM), ("s.stream", E2_STREAM),
                       ("s.trig", dumps_trig(occs))):
        f = tmp_path / name
        f.write_text(text)
        assert read_stream(f) == occs
    bad = tmp_path / "s.json"
    bad.write_text("{}")
    with pytest.raises(StreamError, match="unknown stream format"):
        read_stream(bad)
    with pytest.raises(StreamError, match="cannot read"):
        read_stream(tmp_path / "missing.nt")
    broken = tmp_path / "b.nt"
    broken.write_text("<http://a> <http://p> <http://o> 2 .\n<http://a> <http://p> <http://o> 1 .\n")
    with pytest.raises(StreamError) as ei:
        read_stream(broken)
    assert ei.value.file == str(broken) and ei.value.line == 2


def test_read_background(tmp_path: Path):
    g = tmp_path / "static.ttl"
    g.write_text("@prefix ex: <http://example.org/> . ex:ACME ex:hasCEO ex:bob ; ex:size 010 .")
    o = tmp_path / "onto.ttl"
    o.write_text("@prefix ex: <http://example.org/> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
                 "ex:Rosaceae rdfs:subClassOf ex:Magnoliophyta . ex:Magnoliophyta rdfs:subClassOf ex:Tracheobionta .")
    bg = read_background(g, o)
    assert isinstance(bg, Background)
    assert (u("ACME"), u("size"), i(10)) in bg.graph and len(bg.graph) == 2
    assert (u("Rosaceae"), RDFS.subClassOf, u("Magnoliophyta")) in bg.ontology
    assert read_background() == Background(None, None)
    assert read_background(ontology_path=o).graph is None
    bad = tmp_path / "bad.ttl"
    bad.write_text("@prefix ex: <http://example.org/> .\nex:a ex:b .\n")
    with pytest.raises(StreamError) as ei:
        read_background(bad)
    assert ei.value.file == str(bad)


def test_doubles_are_rejected_with_position():
    text = '<http://a> <http://p> "1"^^<http://www.w3.org/2001/XMLSchema#integer> 1 .\n' \
           '<http://a> <http://p> "2.5"^^<http://www.w3.org/2001/XMLSchema#double> 2 .\n'
    with pytest.raises(StreamError, match="xsd:double") as ei:
        read_line_stream(text, "s.nt")
    assert ei.value.line == 2
