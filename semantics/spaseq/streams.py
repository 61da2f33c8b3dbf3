"""SPAseq input: streamsets of RDF graph events and background knowledge (Definitions 1-3 and 15 of Gillani et
al.; docs/semantics/spaseq.md#spaseq-1).

* A **streamset** is one TriG file, one named graph per event, its stream and time in the default graph
  (``<g> ceplab:stream <S> ; ceplab:start 12 .``, :mod:`ceplab.semantics.rdfstream`).  Every event must name
  its stream (Definition 3: the streams of a streamset are named).  Definition 2 allows at most one graph per
  stream and timestamp: a second one is a :class:`StreamError` naming the graph (docs/semantics/spaseq.md#spaseq-A9).
  Both errors carry the line and column of the offending graph in the TriG text (its block ``<g> {``, else its
  first mention).
  Blank nodes are scoped to their event (docs/semantics/spaseq.md#spaseq-A15): label ``b`` of the event at position
  ``k`` becomes ``_:e{k}_{b}``, so no join matches a blank node across events.
  The result is a list of :class:`ceplab.semantics.rdfstream.GraphEvent`, sorted by ``(time, position)``.
* **Background knowledge** ``D`` (Definition 15) is a :class:`Background`: named graphs, read from a Turtle
  file (the one graph the query names with ``FROM <iri>``) or a TriG file (one named graph each).
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable, Mapping, Optional, Sequence, Union
from urllib.parse import urljoin

from rdflib import BNode, Dataset, Graph, URIRef
from rdflib.term import Node

from ceplab.semantics.errors import StreamError
from ceplab.semantics.rdfstream import GraphEvent, _quiet_rdflib, parse_trig_graph_events

Triple = tuple[Node, Node, Node]


class Background:
    """The background dataset ``D``: graph IRI -> its triples (Definition 15; ``D(g)`` is empty for a graph
    it does not hold).

    Args:
        graphs: ``{iri: iterable of (s, p, o) rdflib terms}``.
    """

    __slots__ = ("graphs",)

    def __init__(self, graphs: Mapping[URIRef, Iterable[Triple]] = ()) -> None:
        items = graphs.items() if isinstance(graphs, Mapping) else graphs
        self.graphs: dict[URIRef, frozenset[Triple]] = {URIRef(g): frozenset(ts) for g, ts in items}

    def graph(self, iri: URIRef) -> frozenset[Triple]:
        """``D(iri)``: the triples of graph ``iri`` (empty when absent)."""
        return self.graphs.get(URIRef(iri), frozenset())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Background) and self.graphs == other.graphs

    def __hash__(self) -> int:
        return hash(frozenset(self.graphs.items()))

    def __repr__(self) -> str:
        return "Background(" + ", ".join(f"{g}: {len(t)} triples" for g, t in self.graphs.items()) + ")"


def _scope_bnodes(ev: GraphEvent) -> GraphEvent:
    if not any(isinstance(t, BNode) for tr in ev.graph for t in tr):
        return ev

    def sc(t: Node) -> Node:
        return BNode(f"e{ev.position}_{t}") if isinstance(t, BNode) else t

    return GraphEvent([(sc(s), sc(p), sc(o)) for s, p, o in ev.graph], ev.time, ev.stream, ev.position, ev.name)


# TriG tokens, enough to find graph names: strings, comments and blank nodes (skipped), prefix and base
# declarations, IRIs and prefixed names (a graph block when '{' follows), anything else.
_TRIG_TOKENS = re.compile(
    r'(?P<skip>"""(?:[^"\\]|\\.|"(?!""))*"""|\'\'\'(?:[^\'\\]|\\.|\'(?!\'\'))*\'\'\''
    r'|"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|\#[^\n]*|_:[\w.\-]*)'
    r'|(?P<prefix>(?:@prefix|PREFIX)\s+(?P<pre>[A-Za-z][\w.\-]*)?:\s*<(?P<ns>[^<>\s]*)>)'
    r'|(?P<base>(?:@base|BASE)\s+<(?P<iri>[^<>\s]*)>)'
    r'|(?P<name><[^<>\s]*>|(?:[A-Za-z][\w.\-]*)?:[\w.\-]*)(?P<block>\s*\{)?'
    r'|[\w.@\-]+|\s+|.', re.S | re.I)


def graph_position(text: str, name: URIRef) -> tuple[Optional[int], Optional[int]]:
    """Where graph ``name`` is written in the TriG document ``text``: line and column (1-based) of its first
    block ``name {`` (also ``GRAPH name {``), else of its first mention outside strings and comments
    (prefixed names and relative IRIs resolved with the document's PREFIX/BASE declarations as they come);
    ``(None, None)`` when it does not occur."""
    prefixes: dict[str, str] = {}
    base = ""
    first: Optional[int] = None
    for m in _TRIG_TOKENS.finditer(text):
        if m.group("prefix"):
            prefixes[m.group("pre") or ""] = urljoin(base, m.group("ns")) if base else m.group("ns")
            continue
        if m.group("base"):
            base = urljoin(base, m.group("iri"))
            continue
        tok = m.group("name")
        if tok is None:
            continue
        if tok.startswith("<"):
            iri: Optional[str] = urljoin(base, tok[1:-1]) if base else tok[1:-1]
        else:
            pre, _, local = tok.partition(":")
            iri = prefixes[pre] + local.rstrip(".") if pre in prefixes else None
        if iri != str(name):
            continue
        if m.group("block"):
            first = m.start("name")
            break
        if first is None:
            first = m.start("name")
    if first is None:
        return None, None
    return text.count("\n", 0, first) + 1, first - (text.rfind("\n", 0, first) + 1) + 1


def check_streamset(events: Sequence[GraphEvent], file: Optional[str] = None,
                    text: Optional[str] = None) -> list[GraphEvent]:
    """Validate a streamset (every event on a named stream, one graph per (stream, time): Definitions 2-3) and
    scope its blank nodes to their events.

    Args:
        events: the graph events, in any order.
        file: the file name for error messages.
        text: the TriG text the events were read from, to locate the offending graph (:func:`graph_position`).

    Returns:
        the events sorted by ``(time, position)``.

    Raises:
        StreamError: an event without a stream, or two events of one stream with one timestamp (the second in
            ``(time, position)`` order is the offending one); with the graph's line and column when ``text``
            is given.
    """
    def where(ev: GraphEvent) -> tuple[Optional[int], Optional[int]]:
        return graph_position(text, ev.name) if text is not None and ev.name is not None else (None, None)

    seen: dict[tuple[URIRef, int], GraphEvent] = {}
    out = []
    for ev in sorted(events, key=lambda e: (e.time, e.position)):
        name = f"<{ev.name}>" if ev.name is not None else f"#{ev.position}"
        bad = invalid_term([ev.stream] if ev.stream is not None else [], ev.graph)
        if bad is not None:
            raise StreamError(f"graph {name} holds {bad}", file, *where(ev))
        if ev.stream is None:
            raise StreamError(f"graph {name} has no ceplab:stream: a SPAseq streamset names the stream of every "
                              "event (Definition 3)", file, *where(ev))
        key = (ev.stream, ev.time)
        if key in seen:
            other = seen[key]
            oname = other.name.n3() if other.name is not None else f"#{other.position}"
            raise StreamError(f"graphs {oname} and {name} are both on stream <{ev.stream}> at time {ev.time}: a "
                              "stream has at most one graph per timestamp (Definition 2)", file, *where(ev))
        seen[key] = ev
        out.append(_scope_bnodes(ev))
    return out


def invalid_term(terms: Iterable[Node], triples: Iterable[Triple] = ()) -> Optional[str]:
    """A description of the first term among ``terms`` and the terms of ``triples`` that has no N-Triples form
    (e.g. an IRI with a space, a quote or a backslash, which rdflib's Turtle parser accepts), or None.  Such a term
    can be neither matched by a query nor printed in a result, so the readers reject it."""
    from ceplab.semantics.rdfstream import nt_term

    for t in list(terms) + [x for tr in triples for x in tr]:
        try:
            nt_term(t)
        except Exception:  # noqa: BLE001 - rdflib raises a bare Exception for IRIs it cannot serialise
            return f"a term that is not a valid RDF term: {str(t)[:60]!r}"
    return None


def parse_streamset(text: str, file: Optional[str] = None) -> list[GraphEvent]:
    """A streamset from TriG text (module docstring).

    Raises:
        StreamError: TriG or annotation errors (:func:`ceplab.semantics.rdfstream.parse_trig_graph_events`), and
            those of :func:`check_streamset` (located in ``text``).
    """
    return check_streamset(parse_trig_graph_events(text, file), file, text)


def read_streamset(path: Union[str, Path]) -> list[GraphEvent]:
    """A streamset from a TriG file.

    Raises:
        StreamError: an unreadable file, or what :func:`parse_streamset` raises.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise StreamError(f"cannot read the stream: {getattr(e, 'strerror', None) or e}", str(p)) from None
    return parse_streamset(text, str(p))


def read_background(path: Union[str, Path], graphs: Sequence[URIRef]) -> Background:
    """Background knowledge for a query that names ``graphs`` with ``FROM <iri>``.

    A ``.trig`` file holds one named graph per background graph; any other file is read as Turtle (or the RDF
    format rdflib guesses from its suffix) and becomes the query's single ``FROM`` graph.

    Raises:
        StreamError: an unreadable or malformed file (file and line where rdflib reports it); a Turtle file for a
            query with no or several ``FROM`` graphs.
    """
    from rdflib.util import guess_format

    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise StreamError(f"cannot read the background file: {getattr(e, 'strerror', None) or e}", str(p)) from None
    fmt = guess_format(str(p)) or "turtle"
    try:
        if fmt == "trig":
            ds = Dataset()
            with _quiet_rdflib():        # ill-typed literals: rdflib would log a traceback on stderr
                ds.parse(data=text, format="trig")
            out = {URIRef(g.identifier): list(g) for g in ds.graphs() if isinstance(g.identifier, URIRef)
                   and len(g) and str(g.identifier) != "urn:x-rdflib:default"}
            bad = invalid_term(out, (tr for ts in out.values() for tr in ts))
            if bad is not None:
                raise StreamError(f"the background holds {bad}", str(p))
            return Background(out)
        g = Graph()
        with _quiet_rdflib():
            g.parse(data=text, format=fmt)
    except StreamError:
        raise
    except Exception as e:  # noqa: BLE001 - rdflib raises assorted errors
        lines = getattr(e, "lines", None)
        msg = str(e).strip().splitlines()
        short = next((x for x in msg if "Bad syntax" in x), msg[0] if msg else type(e).__name__)
        raise StreamError(f"syntax error: {short.strip()}", str(p),
                          (lines + 1) if isinstance(lines, int) else None) from None
    bad = invalid_term((), g)
    if bad is not None:
        raise StreamError(f"the background holds {bad}", str(p))
    if len(graphs) != 1:
        raise StreamError(f"a {fmt} background file is the query's one FROM graph, but the query names "
                          f"{len(graphs)} (use a TriG file with one named graph per FROM <iri>)", str(p))
    return Background({graphs[0]: list(g)})
