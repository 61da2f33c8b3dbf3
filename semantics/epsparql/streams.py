"""EP-SPARQL triple streams (docs/semantics/epsparql.md#epsparql-1; DESIGN.md section 4).

A stream is a list of :class:`Occurrence` ``(s, p, o, start, end, position)``: an RDF triple (rdflib terms,
numeric literals canonical, :func:`ceplab.semantics.epsparql.results.canonical_term`) occurring on the interval
``[start, end]`` (integer ticks, ``start <= end``, docs/semantics/epsparql.md#epsparql-A2), in arrival order: ends non-decreasing (docs/semantics/epsparql.md#epsparql-A1),
ties in file order; ``position`` is the 0-based index in the file.  Duplicates (same triple, same interval) are
one occurrence (A19): readers keep the first.

Background knowledge (docs/semantics/epsparql.md#epsparql-A14) is a :class:`Background`: a static RDF graph and an RDFS ontology (Turtle),
timeless; schema triples (``rdfs:subClassOf``, ``rdfs:subPropertyOf``, ``rdfs:domain``, ``rdfs:range``) are not
allowed in the stream (A14 iv).

Readers and writers (errors are :class:`ceplab.semantics.errors.StreamError` with file, line and column):

* **Line format** (``.nt``, ``.txt``, ``.stream``; :func:`read_line_stream`, :func:`dumps_line_stream`): one
  occurrence per line, ``<s> <p> <o> T1 T2 .`` with N-Triples terms (``<iri>``, ``_:label``, ``"lit"``,
  ``"lit"@en``, ``"lit"^^<dt>``; bare integers/decimals/``true``/``false`` are accepted as objects), then the
  start and (optionally) the end tick; a missing ``T2`` means a point ``[T1, T1]``; the final ``.`` is optional.
  ``#`` starts a comment; blank lines are skipped.  Lines must already be in arrival order: ends
  non-decreasing, else "time goes backwards".
* **TriG** (``.trig``; :func:`read_trig_stream`, :func:`dumps_trig`): the interval stream elements of
  :mod:`ceplab.semantics.rdfstream` read with ``unit="triple"``: one named graph per occurrence (a graph with
  several triples is several occurrences with the same interval), and in the default graph its interval
  ``<g> ceplab:start 3 ; ceplab:end 5 .`` (``ceplab:`` = :data:`CEPLAB`; ``ceplab:end`` optional = point;
  ``ceplab:stream`` allowed, on every graph or none, naming one stream: EP-SPARQL reads one stream).  Occurrences are
  sorted by end; ties keep **file order** (the order in which graphs first receive triples, as rdflib parses
  them).  If the graphs carry ``ceplab:seq`` integers (all of them must then), ties are ordered by
  ``ceplab:seq`` instead (equal ``seq``: file order).  Triples of one graph are ordered by their N-Triples
  text.  Graph names must be IRIs; the default graph may only hold ``ceplab:stream``/``ceplab:start``/
  ``ceplab:end``/``ceplab:seq`` triples about graph names.  Errors about a graph name the line and column of
  its first block ``name {``.

Every reader canonicalises numeric literals (:func:`~ceplab.semantics.epsparql.results.canonical_term`), drops exact
duplicates (same triple, same interval: the first is kept, A19), rejects schema triples (A14 iv), ``end <
start`` (A2) and non-integer times, and numbers the kept occurrences ``position = 0, 1, ...`` in arrival order
(the index in the returned list).
"""
from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, NamedTuple, Optional

from rdflib import RDFS, XSD, Graph
from rdflib.term import BNode, Literal, Node, URIRef
from rdflib.util import from_n3

from ceplab.semantics.epsparql.results import canonical_term
from ceplab.semantics.errors import StreamError
from ceplab.semantics.rdfstream import (CEPLAB, StreamElement, _Locator, dumps_trig_elements, nt_term,
                                       parse_trig_elements)

__all__ = ["CEPLAB", "SCHEMA_PREDICATES", "Occurrence", "Background", "read_line_stream", "dumps_line_stream",
           "read_trig_stream", "dumps_trig", "read_stream", "read_background", "LINE_SUFFIXES"]
#: RDFS schema predicates: not allowed in a stream (docs/semantics/epsparql.md#epsparql-A14 iv); they belong to the ontology.
SCHEMA_PREDICATES = frozenset({RDFS.subClassOf, RDFS.subPropertyOf, RDFS.domain, RDFS.range})


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
    """Timeless background knowledge (docs/semantics/epsparql.md#epsparql-A14): ``graph`` static triples, ``ontology`` RDFS schema triples.
    Either may be None."""
    graph: Optional[Graph] = None
    ontology: Optional[Graph] = None


# -------------------------------------------------------------------------------------------- common checks
def _canon(t: Node, file, line, col) -> Node:
    if isinstance(t, Literal) and t.datatype in (XSD.double, XSD.float):
        raise StreamError(f"{t.n3()}: xsd:double/xsd:float are not supported: arithmetic is exact (integers and "
                          "decimals, docs/semantics/epsparql.md#epsparql-A11); write it as an xsd:decimal", file, line, col)
    try:
        return canonical_term(t)
    except ValueError as e:
        raise StreamError(str(e), file, line, col) from None


def _check_schema(p: Node, file, line, col) -> None:
    if p in SCHEMA_PREDICATES:
        short = "rdfs:" + str(p).rsplit("#", 1)[-1]
        raise StreamError(f"schema triple ({short}) in the stream: schema triples are timeless background "
                          "knowledge and belong in the ontology file, not in the stream (docs/semantics/epsparql.md#epsparql-A14 iv)",
                          file, line, col)


def _dedupe(occs: Iterable[Occurrence]) -> list[Occurrence]:
    seen: set = set()
    out: list[Occurrence] = []
    for o in occs:
        key = (o.s, o.p, o.o, o.start, o.end)
        if key in seen:
            continue
        seen.add(key)
        out.append(o._replace(position=len(out)))
    return out


# -------------------------------------------------------------------------------------------- line format
_IRI = r"<[^<>\"{}|^`\\\x00-\x20]*>"
_TERM = re.compile(
    _IRI + r"|_:[A-Za-z0-9_](?:[A-Za-z0-9_.\-]*[A-Za-z0-9_\-])?"
    r'|"(?:[^"\\\n]|\\.)*"(?:@[A-Za-z]+(?:-[A-Za-z0-9]+)*|\^\^' + _IRI + r")?"
    r"|[+-]?[0-9]+(?:\.[0-9]+)?(?![0-9A-Za-z_.])|[+-]?[0-9]*\.[0-9]+|true(?![\w])|false(?![\w])")
_REST = re.compile(r"\s*(?:(#.*)|([+-]?[0-9]+)(?![0-9eE]|\.[0-9])|(\.)(?!\S)|(\.)$|(\S+))")


def _term(text: str) -> Node:
    if text.startswith("<"):
        return URIRef(text[1:-1])
    if text.startswith("_:"):
        return BNode(text[2:])
    if text.startswith('"'):
        log = logging.getLogger("rdflib.term")
        old = log.level
        log.setLevel(logging.CRITICAL)   # ill-typed literals are reported by canonical_term, with a position
        try:
            return from_n3(text)
        finally:
            log.setLevel(old)
    if text in ("true", "false"):
        return Literal(text == "true", datatype=XSD.boolean)
    return Literal(text, datatype=XSD.decimal if "." in text else XSD.integer)


def read_line_stream(text: str, file: Optional[str] = None) -> list[Occurrence]:
    """Read the line format (module docstring) into occurrences in arrival order.

    Raises:
        StreamError: a bad term, missing/non-integer times, ``end < start``, ends decreasing, a schema triple,
            an ill-typed numeric literal (with file, line and column).
    """
    occs: list[Occurrence] = []
    last_end: Optional[int] = None
    seen_terms: dict[str, Node] = {}     # a term's text -> its canonical term (terms are immutable)
    for ln, raw in enumerate(text.split("\n"), start=1):
        line = raw.rstrip("\r")
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        pos = len(line) - len(line.lstrip())
        terms = []
        for what in ("subject", "predicate", "object"):
            while pos < len(line) and line[pos] in " \t":
                pos += 1
            m = _TERM.match(line, pos)
            if not m:
                bad = re.match(r"\S*", line[pos:]).group(0)
                raise StreamError(f"bad RDF term for the {what}: {bad[:40]!r} (expected <iri>, _:label or a "
                                  "literal in N-Triples syntax)" if bad else f"missing {what}",
                                  file, ln, pos + 1)
            text_t = m.group(0)
            t = seen_terms.get(text_t)
            if t is None:
                try:
                    t = _term(text_t)
                except Exception as e:  # noqa: BLE001 - rdflib raises various errors for bad escapes
                    raise StreamError(f"bad RDF term {text_t[:40]!r}: {e}", file, ln, pos + 1) from None
                t = seen_terms[text_t] = _canon(t, file, ln, pos + 1)
            terms.append((t, pos + 1))
            pos = m.end()
        (s, scol), (p, pcol), (o, _ocol) = terms
        if isinstance(s, Literal):
            raise StreamError("a literal cannot be the subject of a triple", file, ln, scol)
        if not isinstance(p, URIRef):
            raise StreamError("the predicate of a triple must be an IRI", file, ln, pcol)
        _check_schema(p, file, ln, pcol)
        times: list[tuple[int, int]] = []
        ended = False
        for m in _REST.finditer(line, pos):
            if m.end() == m.start():
                break
            comment, num, dot, dot_end, other = m.groups()
            col = (m.start(2) if num else m.start(5) if other else m.start()) + 1
            if comment is not None:
                break
            if ended and (num or other):
                raise StreamError(f"unexpected {(num or other)[:20]!r} after the final '.'", file, ln, col)
            if dot or dot_end:
                ended = True
                continue
            if other is not None:
                raise StreamError(f"time {other[:20]!r} is not an integer tick", file, ln, col)
            if len(times) == 2:
                raise StreamError(f"unexpected {num!r}: a line holds a triple and at most two times (start "
                                  "end)", file, ln, col)
            times.append((int(num), col))
        if not times:
            raise StreamError("missing time: write the start tick (and optionally the end tick) after the "
                              "triple, e.g. <s> <p> <o> 3 .", file, ln, len(line.rstrip()) + 1)
        start = times[0][0]
        end = times[1][0] if len(times) == 2 else start
        if end < start:
            raise StreamError(f"end {end} < start {start} (intervals need start <= end, docs/semantics/epsparql.md#epsparql-A2)",
                              file, ln, times[1][1])
        if last_end is not None and end < last_end:
            raise StreamError(f"time goes backwards: this occurrence ends at {end}, after one that ends at "
                              f"{last_end} (order the stream by end time, docs/semantics/epsparql.md#epsparql-A1)", file, ln, times[-1][1])
        last_end = end
        occs.append(Occurrence(s, p, o, start, end, len(occs)))
    return _dedupe(occs)


def _nt(t: Node) -> str:
    """N-Triples form of a term (strings always single-line with escapes, numbers canonical;
    :func:`ceplab.semantics.rdfstream.nt_term` of the canonical term)."""
    return nt_term(canonical_term(t) if isinstance(t, Literal) else t)


def dumps_line_stream(occs: Iterable[Occurrence]) -> str:
    """The line format of ``occs`` (in the given order); :func:`read_line_stream` reads it back."""
    out = []
    for o in occs:
        times = f"{o.start}" if o.start == o.end else f"{o.start} {o.end}"
        out.append(f"{_nt(o.s)} {_nt(o.p)} {_nt(o.o)} {times} .")
    return "\n".join(out) + ("\n" if out else "")


# -------------------------------------------------------------------------------------------- TriG
def _occurrence_triple(t, file, line, col):
    """The triple hook of :func:`read_trig_stream`: schema triples, literal subjects and doubles are
    rejected, numeric literals canonicalised (at the graph's location)."""
    s, p, o = t
    _check_schema(p, file, line, col)
    if isinstance(s, Literal):
        raise StreamError("a literal cannot be the subject of a triple", file, line, col)
    return (_canon(s, file, line, col), p, _canon(o, file, line, col))


def read_trig_stream(text: str, file: Optional[str] = None) -> list[Occurrence]:
    """Read a TriG stream (module docstring) into occurrences sorted by end, ties in file order.

    The generic interval reader :func:`ceplab.semantics.rdfstream.parse_trig_elements` does the work
    (``unit="triple"``, ``order="end"``); each element becomes an :class:`Occurrence`, then exact duplicates
    are dropped and positions renumbered.

    Raises:
        StreamError: TriG syntax errors (with the line rdflib reports), a graph without a ``ceplab:start``,
            non-integer or repeated times, ``end < start``, blank graph names, stray default-graph triples,
            schema triples, ill-typed numeric literals, graphs of more than one ``ceplab:stream``.
    """
    els = parse_trig_elements(text, file, unit="triple", order="end", triple_hook=_occurrence_triple)
    streams = {e.stream for e in els}
    if len(streams) > 1:
        other = min((e for e in els if e.stream != els[0].stream), key=lambda e: e.position)
        line, col = _Locator(text)(other.name)
        raise StreamError(f"graph {other.name.n3()} is in stream {other.stream.n3()}, another in "
                          f"{els[0].stream.n3()}: an EP-SPARQL stream file holds one stream", file, line, col)
    return _dedupe(Occurrence(*e.content, e.start, e.end, 0) for e in els)


def dumps_trig(occs: Iterable[Occurrence]) -> str:
    """A TriG stream with one graph ``<urn:ceplab:occ:i>`` per occurrence (in the given order), its interval and
    ``ceplab:seq i`` in the default graph (:func:`ceplab.semantics.rdfstream.dumps_trig_elements`);
    :func:`read_trig_stream` reads it back."""
    els = [StreamElement((canonical_term(o.s), o.p, canonical_term(o.o)), o.start, o.end, None, i,
                         URIRef(f"urn:ceplab:occ:{i}")) for i, o in enumerate(occs)]
    return dumps_trig_elements(els, seq=True)


# -------------------------------------------------------------------------------------------- files
LINE_SUFFIXES = (".nt", ".txt", ".stream")


def read_stream(path) -> list[Occurrence]:
    """Read a stream file, choosing the reader by suffix: ``.trig`` TriG, ``.nt``/``.txt``/``.stream`` the line
    format.

    Raises:
        StreamError: an unknown suffix, an unreadable file, or any reader error.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise StreamError(f"cannot read the stream: {e.strerror or e}", str(p)) from None
    suffix = p.suffix.lower()
    if suffix == ".trig":
        return read_trig_stream(text, str(p))
    if suffix in LINE_SUFFIXES:
        return read_line_stream(text, str(p))
    raise StreamError(f"unknown stream format {suffix or '(no suffix)'!r}: use .trig (one named graph per "
                      "occurrence) or .nt/.txt/.stream (lines '<s> <p> <o> T1 T2 .')", str(p))


def _read_graph(path) -> Graph:
    from rdflib.util import guess_format

    p = Path(path)
    g = Graph()
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise StreamError(f"cannot read the background file: {e.strerror or e}", str(p)) from None
    from ceplab.semantics.rdfstream import _quiet_rdflib

    try:
        with _quiet_rdflib():     # no "does not look like a valid URI" warnings: such IRIs are refused below
            g.parse(data=text, format=guess_format(str(p)) or "turtle")
    except Exception as e:  # noqa: BLE001
        lines = getattr(e, "lines", None)
        msg = str(e).strip().splitlines()
        short = next((x for x in msg if "Bad syntax" in x), msg[0] if msg else type(e).__name__)
        raise StreamError(f"syntax error: {short.strip()}", str(p),
                          (lines + 1) if isinstance(lines, int) else None) from None
    out = Graph()
    for prefix, ns in g.namespaces():
        out.bind(prefix, ns, override=False)
    from ceplab.semantics.rdfstream import check_iri

    for s, pr, o in g:
        try:
            for t in (s, pr, o):       # rdflib's Turtle parser accepts IRIs no writer can write back
                iri = t if isinstance(t, URIRef) else t.datatype if isinstance(t, Literal) else None
                if iri is not None:
                    check_iri(str(iri))
            out.add((s, pr, canonical_term(o)))
        except ValueError as e:
            raise StreamError(str(e), str(p)) from None
    return out


def read_background(graph_path=None, ontology_path=None) -> Background:
    """The static graph and the RDFS ontology (Turtle, or any format rdflib guesses from the suffix) as a
    :class:`Background`, numeric literals canonical.  Either path may be None.

    Raises:
        StreamError: a file that cannot be read or parsed.
    """
    return Background(graph=_read_graph(graph_path) if graph_path is not None else None,
                      ontology=_read_graph(ontology_path) if ontology_path is not None else None)
