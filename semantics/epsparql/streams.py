"""EP-SPARQL triple streams (note epsparql.md section 1; DESIGN.md section 4).

A stream is a list of :class:`Occurrence` ``(s, p, o, start, end, position)``: an RDF triple (rdflib terms,
numeric literals canonical, :func:`semantics.epsparql.results.canonical_term`) occurring on the interval
``[start, end]`` (integer ticks, ``start <= end``, note A2), in arrival order: ends non-decreasing (note A1),
ties in file order; ``position`` is the 0-based index in the file.  Duplicates (same triple, same interval) are
one occurrence (A19): readers keep the first.

Background knowledge (note A14) is a :class:`Background`: a static RDF graph and an RDFS ontology (Turtle),
timeless; schema triples (``rdfs:subClassOf``, ``rdfs:subPropertyOf``, ``rdfs:domain``, ``rdfs:range``) are not
allowed in the stream (A14 iv).

The readers (TriG with one named graph per occurrence and its interval in the default graph; the line format
``<s> <p> <o> T1 T2 .``) are defined below; errors are :class:`semantics.errors.StreamError` with file, line
and column.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, Optional

from rdflib import Graph
from rdflib.term import Node


class Occurrence(NamedTuple):
    """An RDF triple occurring on ``[start, end]`` (ticks); ``position``: index in the stream file."""
    s: Node
    p: Node
    o: Node
    start: int
    end: int
    position: int = 0


@dataclass(frozen=True)
class Background:
    """Timeless background knowledge (note A14): ``graph`` static triples, ``ontology`` RDFS schema triples.
    Either may be None."""
    graph: Optional[Graph] = None
    ontology: Optional[Graph] = None
