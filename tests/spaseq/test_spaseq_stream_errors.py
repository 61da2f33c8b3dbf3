"""SPAseq streamsets: the Definition 2 and Definition 3 errors name the offending graph with its line and column
(docs/semantics/spaseq.md#spaseq-1, #spaseq-A9)."""
from __future__ import annotations

import pytest
from rdflib import URIRef

from ceplab.semantics.errors import StreamError
from ceplab.semantics.spaseq.streams import graph_position, parse_streamset, read_streamset

EX = "http://example.org/"

STREAMSET = """@prefix ceplab: <https://ceplab.org/ns#> .
@prefix : <http://example.org/> .
# :g2 { } only in a comment
:g1 { :h1 :price 25 . }
:g2 { :h1 :note "a string that says :g2 { too" . }
<http://example.org/g3> { :h1 :price 27 . }
:g1 ceplab:stream :pw ; ceplab:start 1 .
:g2 ceplab:stream :pw ; ceplab:start 2 .
:g3 ceplab:stream :pw ; ceplab:start 2 .
"""


def test_duplicate_time_on_one_stream_is_located_at_the_second_graph():
    with pytest.raises(StreamError) as ei:
        parse_streamset(STREAMSET, "s.trig")
    e = ei.value
    assert (e.file, e.line, e.column) == ("s.trig", 6, 1)
    assert "<http://example.org/g2> and <http://example.org/g3>" in e.message
    assert "at most one graph per timestamp (Definition 2)" in e.message


def test_missing_stream_is_located_at_the_graph_block():
    text = STREAMSET.replace("ceplab:stream :pw ; ", "")
    with pytest.raises(StreamError) as ei:
        parse_streamset(text, "s.trig")
    e = ei.value
    assert (e.line, e.column) == (4, 1)
    assert "<http://example.org/g1> has no ceplab:stream" in e.message


def test_read_streamset_names_the_file_and_position(tmp_path):
    p = tmp_path / "dup.trig"
    p.write_text(STREAMSET, encoding="utf-8")
    with pytest.raises(StreamError) as ei:
        read_streamset(p)
    assert (ei.value.file, ei.value.line, ei.value.column) == (str(p), 6, 1)


def test_valid_streamset_still_reads():
    text = STREAMSET.replace(":g3 ceplab:stream :pw ; ceplab:start 2", ":g3 ceplab:stream :pw ; ceplab:start 3")
    evs = parse_streamset(text)
    assert [(str(e.name), e.time) for e in evs] == [(EX + "g1", 1), (EX + "g2", 2), (EX + "g3", 3)]


def test_graph_position_prefers_the_block_and_resolves_base_and_prefixes():
    text = ("BASE <http://example.org/>\n"
            "PREFIX e: <http://example.org/>\n"
            "<g9> ceplab:start 1 .\n"
            "  GRAPH e:g9 { <s> <p> <o> }\n"
            "<other> { }\n")
    assert graph_position(text, URIRef(EX + "g9")) == (4, 9)          # the block, not the earlier mention
    assert graph_position(text, URIRef(EX + "other")) == (5, 1)       # relative IRI resolved against BASE
    assert graph_position(text, URIRef(EX + "absent")) == (None, None)
    mention_only = "@prefix : <http://example.org/> .\n\n:g ceplab:start 1 .\n"
    assert graph_position(mention_only, URIRef(EX + "g")) == (3, 1)
    # blank node labels, strings and comments never count; a prefixed name's trailing '.' ends the triple
    tricky = ('@prefix : <http://example.org/> .\n_:g { } "x" . # :g {\n<a> <b> :g.\n')
    assert graph_position(tricky, URIRef(EX + "g")) == (3, 9)
