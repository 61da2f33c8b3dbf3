"""RDF streams: graph events and interval stream elements (DESIGN.md section 4).

Terms follow the W3C RDF Stream Processing (RSP) community group's RDF stream model: an *RDF stream* is
a sequence of timestamped RDF graphs; a *streamset* is one file holding several streams, each named by
an IRI. Two kinds of stream item are modelled here (times are integer ticks throughout):

* :class:`GraphEvent`: an RDF graph (rdflib :class:`~rdflib.Graph`) with one timestamp ``time`` and the
  IRI of the stream it came from (SPAseq, CQELS-CEP). A stream of graph events is ordered by ``time``,
  ties by file order.
* :class:`StreamElement`: a triple or a graph valid on the interval ``[start, end]`` (``start <= end``;
  a point when they are equal), with its stream IRI (EP-SPARQL's triple occurrences are one use). The
  language decides how intervals are ordered; the readers order by ``end``, ties by file order, as
  EP-SPARQL does (docs/semantics/epsparql.md#epsparql-A1), or by ``start`` on request (``order="start"``).

Every item has a ``position``: its 0-based rank in **file order** (the order in which the named graphs
first appear in the file; for ``unit="triple"`` a graph's triples follow each other in N-Triples text
order), and a ``name``: the IRI of its named graph in the file (None for items built in code). Lists
returned by the readers are sorted by ``(time, position)`` (graph events) or ``(end, position)``
(elements, default), so for a file already in time order ``items[i].position == i``. Positions count
across all streams of a streamset.

**TriG** (DESIGN.md section 4): one named graph per event or element, and in the default graph::

    @prefix ceplab: <https://ceplab.org/ns#> .
    <g1> { <s> <p> <o> . }
    <g1> ceplab:stream <S> ; ceplab:start 3 ; ceplab:end 5 .

``ceplab:end`` is optional (a point; graph events must not carry a different end), ``ceplab:stream``
is optional but then absent on every graph (the items' ``stream`` is None: one unnamed stream), and
``ceplab:seq n`` (optional, on all graphs or none) overrides the lexical file order: graphs are ranked
by ``seq``, ties by their place in the file. Graph names must be IRIs; the default graph may only hold
these annotations, about graph names. With ``require_order=True`` each stream's graphs must already
appear in time order in the file ("time goes backwards" otherwise); by default they are sorted.
File order is the order in which rdflib's parser gives each named graph its first triple (recorded by
the store, since rdflib's dataset does not keep it). rdflib renames blank nodes when it parses (labels
shared across graphs stay shared), so graph contents compare up to renaming, while triple elements
holding blank nodes do not come back equal from TriG (Parquet keeps the labels).

**Parquet** (pyarrow), one row per triple, terms in N-Triples form (:func:`nt_term`), graph and stream
names as plain IRI text, with ``ceplab.schema`` and ``ceplab.schema_version`` in the file metadata
(:data:`SCHEMA_VERSION`); see :func:`graph_events_schema` and :func:`elements_schema`. Flat events have
theirs in :mod:`ceplab.semantics.events`.

Errors: every reader raises :class:`ceplab.semantics.errors.StreamError` naming the file, and the line
and column where they can be known (TriG syntax errors: where rdflib stopped; annotation errors: the
graph's first block, else its first mention), never a traceback and never a silently wrong stream.
"""
from __future__ import annotations

import logging
import re
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterable, Iterator, Literal as Lit, Optional, Sequence, TypeVar
from urllib.parse import urljoin

from rdflib import Dataset, Graph, Namespace
from rdflib.compare import isomorphic
from rdflib.plugins.stores.memory import Memory
from rdflib.term import BNode, Literal, Node, URIRef
from rdflib.util import from_n3

from ceplab.semantics.errors import StreamError

#: The ceplab vocabulary: ``ceplab:stream``, ``ceplab:start``, ``ceplab:end``, ``ceplab:seq``.
CEPLAB = Namespace("https://ceplab.org/ns#")
#: The Parquet schema version these readers read and these writers write.
SCHEMA_VERSION = 1

Triple = tuple[Node, Node, Node]
#: ``triple_hook(triple, file, line, column) -> triple``: checks or rewrites each triple as it is read
#: (e.g. canonical literals); it raises StreamError with the location it is given to reject one.
TripleHook = Callable[[Triple, Optional[str], Optional[int], Optional[int]], Triple]

_ANNOTATIONS = (CEPLAB.stream, CEPLAB.start, CEPLAB.end, CEPLAB.seq)


def _check_tick(v: object, what: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise ValueError(f"{what} must be an integer number of ticks, got {v!r}")
    return v


def _same_graph(a: Graph, b: Graph) -> bool:
    if len(a) != len(b):
        return False
    if any(isinstance(x, BNode) for t in a for x in t) or any(isinstance(x, BNode) for t in b for x in t):
        return isomorphic(a, b)
    return set(a) == set(b)


def _as_graph(g: Graph | Iterable[Triple], name: Optional[URIRef]) -> Graph:
    if isinstance(g, Graph):
        return g
    out = Graph(identifier=name) if name is not None else Graph()
    for t in g:
        out.add(tuple(t))
    return out


class GraphEvent:
    """One timestamped RDF graph (an RSP stream item).

    Attributes:
        graph: the event's triples, an rdflib :class:`~rdflib.Graph` (an iterable of triples is copied
            into one).
        time: the timestamp in integer ticks.
        stream: the IRI of the stream it belongs to, or None when streams are not named.
        position: 0-based rank in file order (module docstring).
        name: the IRI of its named graph in the file, or None.

    Two graph events are equal when time, stream, position and name are, and their graphs have the
    same triples up to blank-node renaming.

    Raises:
        ValueError: ``time`` is not an int.
    """

    __slots__ = ("graph", "time", "stream", "position", "name")

    def __init__(self, graph: Graph | Iterable[Triple], time: int, stream: Optional[URIRef] = None,
                 position: int = 0, name: Optional[URIRef] = None) -> None:
        self.time = _check_tick(time, "time")
        self.graph = _as_graph(graph, name)
        self.stream = stream
        self.position = position
        self.name = name

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, GraphEvent) and self.time == other.time and self.stream == other.stream
                and self.position == other.position and self.name == other.name
                and _same_graph(self.graph, other.graph))

    def __hash__(self) -> int:
        return hash((self.time, self.stream, self.position))

    def __repr__(self) -> str:
        s = "" if self.stream is None else f", stream={str(self.stream)!r}"
        return f"GraphEvent({len(self.graph)} triples, t={self.time}{s}, pos={self.position})"


class StreamElement:
    """A triple or a graph valid on ``[start, end]`` (ticks; a point when ``start == end``).

    Attributes:
        content: a triple ``(s, p, o)`` of rdflib terms, or an rdflib :class:`~rdflib.Graph`.
        start, end: the interval in integer ticks, ``start <= end``.
        stream: the IRI of its stream, or None when streams are not named.
        position: 0-based rank in file order (module docstring).
        name: the IRI of the named graph it was read from, or None.

    Equal when interval, stream, position, name and content are (graphs up to blank-node renaming,
    triples exactly).

    Raises:
        ValueError: a non-int time, ``end < start``, or content that is neither a triple nor a graph.
    """

    __slots__ = ("content", "start", "end", "stream", "position", "name")

    def __init__(self, content: Triple | Graph, start: int, end: Optional[int] = None,
                 stream: Optional[URIRef] = None, position: int = 0, name: Optional[URIRef] = None) -> None:
        self.start = _check_tick(start, "start")
        self.end = self.start if end is None else _check_tick(end, "end")
        if self.end < self.start:
            raise ValueError(f"end {self.end} < start {self.start}")
        if isinstance(content, Graph):
            self.content = content
        elif isinstance(content, tuple) and len(content) == 3:
            self.content = tuple(content)
        else:
            raise ValueError(f"content must be a triple (s, p, o) or an rdflib Graph, got {type(content).__name__}")
        self.stream = stream
        self.position = position
        self.name = name

    @property
    def is_triple(self) -> bool:
        """True when the content is one triple, False when it is a graph."""
        return not isinstance(self.content, Graph)

    @property
    def is_point(self) -> bool:
        """True when ``start == end``."""
        return self.start == self.end

    def triples(self) -> list[Triple]:
        """The content as a list of triples (one for a triple element)."""
        return [self.content] if self.is_triple else list(self.content)

    def __eq__(self, other: object) -> bool:
        if not (isinstance(other, StreamElement) and self.start == other.start and self.end == other.end
                and self.stream == other.stream and self.position == other.position and self.name == other.name
                and self.is_triple == other.is_triple):
            return False
        return self.content == other.content if self.is_triple else _same_graph(self.content, other.content)

    def __hash__(self) -> int:
        return hash((self.start, self.end, self.stream, self.position))

    def __repr__(self) -> str:
        what = " ".join(t.n3() for t in self.content) if self.is_triple else f"{len(self.content)} triples"
        s = "" if self.stream is None else f", stream={str(self.stream)!r}"
        return f"StreamElement({what}, [{self.start}, {self.end}]{s}, pos={self.position})"


Item = TypeVar("Item", GraphEvent, StreamElement)


def by_stream(items: Iterable[Item]) -> dict[Optional[URIRef], list[Item]]:
    """Split a streamset into its streams: stream IRI (None = unnamed) -> its items, order kept."""
    out: dict[Optional[URIRef], list[Item]] = {}
    for it in items:
        out.setdefault(it.stream, []).append(it)
    return out


# ------------------------------------------------------------------------------------------ N-Triples terms
_ECHAR = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
_ECHAR_RE = re.compile(r'[\\"\n\r\t\b\f]')


def nt_term(t: Node) -> str:
    """The N-Triples form of an rdflib term: ``<iri>``, ``_:label``, ``"text"``, ``"text"@lang``,
    ``"text"^^<datatype>`` (strings on one line, escaped; the lexical form is kept as is)."""
    if isinstance(t, Literal):
        body = _ECHAR_RE.sub(lambda m: _ECHAR[m.group(0)], str(t))
        if t.language:
            return f'"{body}"@{t.language}'
        if t.datatype is not None and str(t.datatype) != "http://www.w3.org/2001/XMLSchema#string":
            return f'"{body}"^^<{t.datatype}>'
        return f'"{body}"'
    if isinstance(t, (URIRef, BNode)):
        return t.n3()
    raise ValueError(f"not an RDF term: {t!r}")


@contextmanager
def _quiet_rdflib() -> Iterator[None]:
    # rdflib logs a warning for ill-typed literals; the readers report what matters with a position.
    log = logging.getLogger("rdflib.term")
    old = log.level
    log.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        log.setLevel(old)


@lru_cache(maxsize=65536)
def parse_nt_term(text: str) -> Node:
    """The rdflib term of an N-Triples term (inverse of :func:`nt_term`).

    Raises:
        ValueError: ``text`` is not an IRI, blank node or literal in N-Triples form.
    """
    if not isinstance(text, str) or not (text.startswith("<") and text.endswith(">") or text.startswith("_:")
                                         or text.startswith('"')):
        raise ValueError(f"not an N-Triples term: {str(text)[:60]!r}")
    with _quiet_rdflib():
        try:
            t = from_n3(text)
        except Exception as e:  # noqa: BLE001 - rdflib raises assorted errors for bad escapes
            raise ValueError(f"not an N-Triples term: {text[:60]!r} ({e})") from None
    if not isinstance(t, (URIRef, BNode, Literal)):
        raise ValueError(f"not an N-Triples term: {text[:60]!r}")
    iri = t if isinstance(t, URIRef) else t.datatype if isinstance(t, Literal) else None
    if iri is not None:
        check_iri(str(iri))
    return t


#: Characters an IRI may not contain (N-Triples/Turtle ``IRIREF``): controls, space, ``<>"{}|^`\``.
_BAD_IRI_CHAR = re.compile(r'[\x00-\x20<>"{}|^`\\]')


def check_iri(text: str) -> str:
    """``text`` when it can be an IRI (written between ``<`` and ``>``, no ``<`` / ``>`` themselves).

    Raises:
        ValueError: ``text`` contains a character an ``IRIREF`` may not contain (rdflib would accept it and fail
            later, when writing the term).
    """
    m = _BAD_IRI_CHAR.search(text)
    if m:
        raise ValueError(f"not an IRI: {text[:60]!r} (character {m.group(0)!r} at {m.start() + 1})")
    return text


# ------------------------------------------------------------------------------------------ TriG: lexical scan
_TRIG_SCAN = re.compile(
    r'(?P<long>"""(?:[^"\\]|\\.|"(?!""))*"""|\'\'\'(?:[^\'\\]|\\.|\'(?!\'\'))*\'\'\')'
    r'|(?P<str>"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\')'
    r"|(?P<comment>\#[^\n]*)"
    r"|(?P<base>(?:@base|BASE)\s+<(?P<baseiri>[^<>\s]*)>)"
    r"|(?P<graph>(?:GRAPH\s+)?(?P<name><[^<>\s]*>|[A-Za-z_][\w.\-]*:[\w.\-]*|:[\w.\-]*)\s*\{)"
    r"|(?P<iri><[^<>\s]*>)"
    r"|[\w.:\-@^]+|\s+|.", re.S | re.I)
_PREFIX_DECL = re.compile(r"(?:@prefix|PREFIX)\s+([A-Za-z_][\w.\-]*)?:\s*<([^<>\s]*)>", re.I)


def _line_col(text: str, offset: int) -> tuple[int, int]:
    return text.count("\n", 0, offset) + 1, offset - (text.rfind("\n", 0, offset) + 1) + 1


class _Locator:
    """Where a graph name is in the TriG text: its first block ``name {``, else its first mention outside
    strings and comments (prefixed names and ``@base``-relative IRIs resolved)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.prefixes = {p or "": ns for p, ns in _PREFIX_DECL.findall(text)}
        self.blocks: dict[str, int] = {}
        self.mentions: dict[str, int] = {}
        base = ""
        for m in _TRIG_SCAN.finditer(text):
            if m.group("base") is not None:
                base = urljoin(base, m.group("baseiri"))
                continue
            if m.group("long") or m.group("str") or m.group("comment"):
                continue
            tok, at = (m.group("name"), m.start("name")) if m.group("graph") else (m.group(0), m.start())
            iri = self._resolve(tok, base)
            if iri is None:
                continue
            self.mentions.setdefault(iri, at)
            if m.group("graph"):
                self.blocks.setdefault(iri, at)

    def _resolve(self, tok: str, base: str) -> Optional[str]:
        if tok.startswith("<") and tok.endswith(">"):
            return urljoin(base, tok[1:-1]) if base else tok[1:-1]
        pre, colon, local = tok.partition(":")
        if colon and pre in self.prefixes and not tok.startswith("_:"):
            return self.prefixes[pre] + local
        return None

    def __call__(self, g: Node) -> tuple[Optional[int], Optional[int]]:
        at = self.blocks.get(str(g), self.mentions.get(str(g)))
        return (None, None) if at is None else _line_col(self.text, at)


class _OrderedStore(Memory):
    """rdflib's memory store, remembering the order in which graphs receive their first triple (rdflib
    does not keep it; file order is the tie-break between equal times)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.first_seen: dict[Node, int] = {}

    def add(self, triple, context, quoted: bool = False) -> None:  # noqa: ANN001 - rdflib's signature
        self.first_seen.setdefault(getattr(context, "identifier", context), len(self.first_seen))
        super().add(triple, context, quoted)


def _parse_dataset(text: str, file: Optional[str]) -> tuple[Dataset, dict[Node, int]]:
    store = _OrderedStore()
    ds = Dataset(store=store)
    try:
        with _quiet_rdflib():
            ds.parse(data=text, format="trig")
    except Exception as e:  # noqa: BLE001 - rdflib's parsers raise assorted exception types
        line = getattr(e, "lines", None)
        why, i, src = getattr(e, "_why", None), getattr(e, "_i", None), getattr(e, "_str", None)
        col = None
        if isinstance(i, int) and 0 <= i <= len(text) and isinstance(src, bytes):
            s = src.decode("utf-8", "replace")
            if s == text:
                line, col = _line_col(text, i)
                line -= 1
        if why:
            msg = f"Bad syntax ({why})"
        else:
            lines = str(e).strip().splitlines()
            msg = next((x for x in lines if "Bad syntax" in x), lines[0] if lines else type(e).__name__).strip()
        raise StreamError(f"TriG syntax error: {msg}", file, (line + 1) if isinstance(line, int) else None,
                          col) from None
    return ds, store.first_seen


def _first_line_with(text: str, needle: str) -> tuple[Optional[int], Optional[int]]:
    k = text.find(needle) if needle else -1
    return _line_col(text, k) if k >= 0 else (None, None)


def _serialisable(t: Node) -> bool:
    try:
        nt_term(t)
        iri = t if isinstance(t, URIRef) else t.datatype if isinstance(t, Literal) else None
        if iri is not None:         # rdflib writes a datatype IRI such as <.0"^^<http://...> without a check
            check_iri(str(iri))
    except Exception:  # noqa: BLE001 - rdflib raises a bare Exception for IRIs it cannot serialise
        return False
    return True


class _Graphs:
    """The named graphs of a TriG stream, their annotations checked (shared by both readers)."""

    def __init__(self, text: str, file: Optional[str]) -> None:
        self.file = file
        ds, first_seen = _parse_dataset(text, file)
        self.where = _Locator(text)
        default_id = ds.default_graph.identifier
        ann: dict[Node, dict[URIRef, list[Node]]] = {}
        graphs: dict[Node, list[Triple]] = {}
        for s, p, o, g in ds.quads((None, None, None, None)):
            gid = getattr(g, "identifier", g)
            for t in (s, p, o, gid):
                if t is not None and not _serialisable(t):
                    # rdflib's Turtle parser accepts IRIs with spaces, quotes or backslashes (e.g. from a broken
                    # @prefix); they have no N-Triples form, so no query can match them and no result print them
                    try:
                        line, col = self.where(gid if t is gid else s)
                    except Exception:  # noqa: BLE001 - the locator prints terms too
                        line, col = _first_line_with(text, str(t).split(":", 1)[0].split()[0])
                    what = (f"the datatype {str(t.datatype)[:60]!r} of literal {str(t)[:30]!r}"
                            if isinstance(t, Literal) and t.datatype is not None else repr(str(t)[:60]))
                    raise StreamError(f"{what} is not a valid IRI (spaces, quotes, backslashes or angle "
                                      "brackets are not allowed in IRIs)", file, line, col)
            if gid is None or gid == default_id or str(gid) == "urn:x-rdflib:default":
                if p not in _ANNOTATIONS:
                    line, col = self.where(s)
                    raise StreamError(f"default-graph triple {s.n3()} {p.n3()} {o.n3()}: the default graph may "
                                      "only hold ceplab:stream / ceplab:start / ceplab:end / ceplab:seq of the "
                                      "stream's named graphs", file, line, col)
                ann.setdefault(s, {}).setdefault(p, []).append(o)
            else:
                graphs.setdefault(gid, []).append((s, p, o))
        for s in ann:
            if s not in graphs:
                line, col = self.where(s)
                raise StreamError(f"{s.n3()} has ceplab: annotations but no named graph with triples", file,
                                  line, col)
        self.ann = ann
        self.order = sorted(graphs, key=lambda g: first_seen.get(g, len(first_seen)))
        self.graphs = graphs
        for g in self.order:
            if not isinstance(g, URIRef):
                line, col = self.where(g)
                raise StreamError("stream graphs must be named by IRIs (not blank nodes)", file, line, col)
        self._all_or_none(CEPLAB.seq, "give every graph a ceplab:seq or none")
        self._all_or_none(CEPLAB.stream, "name the stream of every graph or of none")
        self.stream = {g: self.one(g, CEPLAB.stream, False) for g in self.order}
        if any(s is not None and not isinstance(s, URIRef) for s in self.stream.values()):
            g = next(g for g in self.order if self.stream[g] is not None and not isinstance(self.stream[g], URIRef))
            line, col = self.where(g)
            raise StreamError(f"ceplab:stream of {g.n3()} is {self.stream[g].n3()}, not an IRI", file, line, col)
        seq = {g: self.tick(g, CEPLAB.seq, False) for g in self.order}
        if any(v is not None for v in seq.values()):
            rank = {g: k for k, g in enumerate(self.order)}
            self.order.sort(key=lambda g: (seq[g], rank[g]))

    def _all_or_none(self, pred: URIRef, hint: str) -> None:
        have = [g for g in self.order if self.ann.get(g, {}).get(pred)]
        if have and len(have) != len(self.order):
            g = next(g for g in self.order if not self.ann.get(g, {}).get(pred))
            line, col = self.where(g)
            name = "ceplab:" + str(pred)[len(str(CEPLAB)):]
            raise StreamError(f"graph {g.n3()} has no {name} while others have one: {hint}", self.file, line, col)

    def one(self, g: Node, pred: URIRef, required: bool) -> Optional[Node]:
        vals = self.ann.get(g, {}).get(pred, [])
        name = "ceplab:" + str(pred)[len(str(CEPLAB)):]
        if not vals:
            if required:
                line, col = self.where(g)
                raise StreamError(f"graph {g.n3()} has no {name} (write {g.n3()} ceplab:start 3 . in the default "
                                  "graph)", self.file, line, col)
            return None
        if len(vals) > 1:
            line, col = self.where(g)
            raise StreamError(f"graph {g.n3()} has {len(vals)} {name} values", self.file, line, col)
        return vals[0]

    def tick(self, g: Node, pred: URIRef, required: bool) -> Optional[int]:
        v = self.one(g, pred, required)
        if v is None:
            return None
        py = v.toPython() if isinstance(v, Literal) else None
        if isinstance(py, bool) or not isinstance(py, int):
            line, col = self.where(g)
            name = "ceplab:" + str(pred)[len(str(CEPLAB)):]
            raise StreamError(f"{name} of {g.n3()} is {v.n3()}, not an integer tick", self.file, line, col)
        return int(py)

    def interval(self, g: Node) -> tuple[int, int]:
        start = self.tick(g, CEPLAB.start, True)
        end = self.tick(g, CEPLAB.end, False)
        end = start if end is None else end
        if end < start:
            line, col = self.where(g)
            raise StreamError(f"graph {g.n3()}: end {end} < start {start} (intervals need start <= end)",
                              self.file, line, col)
        return start, end

    def triples(self, g: Node, hook: Optional[TripleHook]) -> list[Triple]:
        rows = self.graphs[g]
        if hook is not None:
            line, col = self.where(g)
            rows = [hook(t, self.file, line, col) for t in rows]
        return sorted(rows, key=lambda t: (t[0].n3(), t[1].n3(), t[2].n3()))

    def check_order(self, items: Sequence, key: Callable, what: str) -> None:
        """Each stream's items, in file order, must have non-decreasing ``key``."""
        last: dict[Optional[URIRef], tuple] = {}
        for it in sorted(items, key=lambda x: x.position):
            k = key(it)
            prev = last.get(it.stream)
            if prev is not None and k < prev[0]:
                line, col = self.where(it.name)
                in_s = "" if it.stream is None else f" in stream {it.stream.n3()}"
                raise StreamError(f"time goes backwards{in_s}: graph {it.name.n3()} {what} {k}, after graph "
                                  f"{prev[1].n3()} at {prev[0]} (order the file by time)", self.file, line, col)
            last[it.stream] = (k, it.name)


def parse_trig_graph_events(text: str, file: Optional[str] = None, *,
                            require_order: bool = False) -> list[GraphEvent]:
    """Read a TriG stream (or streamset) of graph events (module docstring).

    Args:
        text: the TriG document.
        file: its name, for error messages (None: ``<string>``).
        require_order: each stream's graphs must appear in non-decreasing time order in the file.

    Returns:
        the graph events sorted by ``(time, position)``; ``time`` is ``ceplab:start`` (integer ticks).

    Raises:
        StreamError: TriG syntax errors; a named graph without ``ceplab:start``; a non-integer, repeated or
            missing time; ``ceplab:end`` different from ``ceplab:start``; blank or unannotated graph
            names; stray default-graph triples; ``ceplab:stream``/``ceplab:seq`` on some graphs only or a
            non-IRI stream; with ``require_order``, time going backwards.
    """
    gs = _Graphs(text, file)
    events = []
    for pos, g in enumerate(gs.order):
        start, end = gs.interval(g)
        if end != start:
            line, col = gs.where(g)
            raise StreamError(f"graph {g.n3()} has ceplab:end {end} != ceplab:start {start}: a graph event has one "
                              "timestamp (read it as an interval stream instead)", file, line, col)
        events.append(GraphEvent(gs.triples(g, None), start, gs.stream[g], pos, g))
    if require_order:
        gs.check_order(events, lambda e: e.time, "has time")
    events.sort(key=lambda e: (e.time, e.position))
    return events


def parse_trig_elements(text: str, file: Optional[str] = None, *, unit: Lit["graph", "triple"] = "graph",
                        order: Lit["end", "start"] = "end", require_order: bool = False,
                        triple_hook: Optional[TripleHook] = None) -> list[StreamElement]:
    """Read a TriG stream (or streamset) of interval stream elements (module docstring).

    Args:
        text: the TriG document.
        file: its name, for error messages (None: ``<string>``).
        unit: ``"graph"``: one element per named graph (content a Graph); ``"triple"``: one element per
            triple (content ``(s, p, o)``), a graph's triples sharing its interval and stream, taken in
            N-Triples text order.
        order: sort by ``(end, position)`` (default, EP-SPARQL's arrival order) or ``(start, position)``.
        require_order: each stream's graphs must appear in non-decreasing ``order`` time in the file.
        triple_hook: applied to each triple as it is read (see :data:`TripleHook`), with the graph's
            location; its StreamErrors propagate.

    Returns:
        the elements, sorted as ``order`` says; times in integer ticks.

    Raises:
        StreamError: TriG syntax errors; a named graph without ``ceplab:start``; a non-integer or repeated
            time; ``end < start``; blank or unannotated graph names; stray default-graph triples;
            ``ceplab:stream``/``ceplab:seq`` on some graphs only or a non-IRI stream; with
            ``require_order``, time going backwards; whatever ``triple_hook`` raises.
    """
    if unit not in ("graph", "triple") or order not in ("end", "start"):
        raise ValueError(f"unit must be 'graph' or 'triple' and order 'end' or 'start', got {unit!r}, {order!r}")
    gs = _Graphs(text, file)
    out: list[StreamElement] = []
    for g in gs.order:
        start, end = gs.interval(g)
        rows = gs.triples(g, triple_hook)
        if unit == "triple":
            out.extend(StreamElement(t, start, end, gs.stream[g], len(out), g) for t in rows)
        else:
            out.append(StreamElement(_as_graph(rows, g), start, end, gs.stream[g], len(out), g))
    key = (lambda e: e.end) if order == "end" else (lambda e: e.start)
    if require_order:
        gs.check_order(out, key, "ends at" if order == "end" else "starts at")
    out.sort(key=lambda e: (key(e), e.position))
    return out


# ------------------------------------------------------------------------------------------ TriG writers
def _names(items: Sequence, prefix: str) -> list[URIRef]:
    """Each item's graph name: its own when set (items sharing a name share a graph), else a fresh
    ``<urn:ceplab:PREFIX:i>``."""
    used = {str(it.name) for it in items if it.name is not None}
    out, k = [], 0
    for it in items:
        if it.name is not None:
            out.append(it.name)
            continue
        while f"urn:ceplab:{prefix}:{k}" in used:
            k += 1
        used.add(f"urn:ceplab:{prefix}:{k}")
        out.append(URIRef(f"urn:ceplab:{prefix}:{k}"))
    return out


def _dump_graphs(groups: list[tuple[URIRef, list[Triple], Optional[URIRef], int, int, Optional[int]]]) -> str:
    out = [f"@prefix ceplab: <{CEPLAB}> ."]
    for name, triples, stream, start, end, seq in groups:
        g = nt_term(name)
        body = " ".join(f"{nt_term(s)} {nt_term(p)} {nt_term(o)} ." for s, p, o in
                        sorted(triples, key=lambda t: tuple(nt_term(x) for x in t)))
        out.append(f"{g} {{ {body} }}")
        ann = ([f"ceplab:stream {nt_term(stream)}"] if stream is not None else []) + [f"ceplab:start {start}"]
        if end != start:
            ann.append(f"ceplab:end {end}")
        if seq is not None:
            ann.append(f"ceplab:seq {seq}")
        out.append(f"{g} " + " ; ".join(ann) + " .")
    return "\n".join(out) + "\n"


def _group(items: Sequence, names: list[URIRef], interval: Callable, triples: Callable, seq: bool) -> str:
    order = sorted(range(len(items)), key=lambda k: items[k].position)
    groups: dict[URIRef, list] = {}
    for k in order:
        it, name = items[k], names[k]
        head = (it.stream,) + interval(it)
        if name in groups:
            if groups[name][2:5] != [it.stream, *interval(it)]:
                raise ValueError(f"items named {name.n3()} differ in stream or time: one graph cannot hold both")
            groups[name][1].extend(triples(it))
        else:
            groups[name] = [name, list(triples(it)), *head, None]
    rows = list(groups.values())
    if seq:
        for k, r in enumerate(rows):
            r[5] = k
    return _dump_graphs([tuple(r) for r in rows])


def dumps_trig_graph_events(events: Iterable[GraphEvent]) -> str:
    """A TriG stream of ``events`` in file order (by ``position``), one named graph each (the event's
    ``name``, else ``<urn:ceplab:event:i>``) with ``ceplab:stream`` (when set) and ``ceplab:start``;
    :func:`parse_trig_graph_events` reads it back equal when positions are ``0..n-1``.

    Raises:
        ValueError: two events with the same name but different stream or time.
    """
    evs = list(events)
    return _group(evs, _names(evs, "event"), lambda e: (e.time, e.time), lambda e: list(e.graph), False)


def dumps_trig_elements(elements: Iterable[StreamElement], *, seq: bool = False) -> str:
    """A TriG stream of ``elements`` in file order (by ``position``): one named graph per name (elements
    sharing a ``name`` - triples read with ``unit="triple"`` - are one graph again; unnamed elements get
    ``<urn:ceplab:element:i>``), with ``ceplab:stream`` (when set), ``ceplab:start``, ``ceplab:end`` (when
    not a point) and, with ``seq=True``, ``ceplab:seq`` = the graph's rank. :func:`parse_trig_elements`
    (with the same ``unit``) reads it back equal when positions are ``0..n-1``.

    Raises:
        ValueError: two elements with the same name but different stream or interval.
    """
    els = list(elements)
    return _group(els, _names(els, "element"), lambda e: (e.start, e.end), StreamElement.triples, seq)


# ------------------------------------------------------------------------------------------ Parquet
def _pa():
    import pyarrow as pa
    import pyarrow.parquet as pq
    return pa, pq


def _schema(kind: str) -> "object":
    pa, _ = _pa()
    common = [pa.field("element", pa.int64(), False), pa.field("graph", pa.string(), True),
              pa.field("stream", pa.string(), True), pa.field("position", pa.int64(), False)]
    times = ([pa.field("time", pa.int64(), False)] if kind == "graph_events"
             else [pa.field("start", pa.int64(), False), pa.field("end", pa.int64(), False)])
    terms = [pa.field(c, pa.string(), True) for c in ("s", "p", "o")]
    return pa.schema(common + times + terms)


def graph_events_schema():
    """The Parquet schema of graph events, one row per triple: ``element`` (index of the event in the
    written list; an event's rows are consecutive), ``graph`` (graph name IRI, null when unnamed),
    ``stream`` (IRI, null when unnamed), ``position``, ``time`` (ticks), ``s``, ``p``, ``o`` (N-Triples
    terms; all three null for the single row of an empty graph)."""
    return _schema("graph_events")


def elements_schema():
    """The Parquet schema of interval stream elements: as :func:`graph_events_schema` with ``start`` and
    ``end`` (ticks) for ``time``; the metadata key ``ceplab.unit`` says ``triple`` or ``graph``."""
    return _schema("elements")


def _meta(kind: str, **extra: str) -> dict[bytes, bytes]:
    m = {b"ceplab.schema": kind.encode(), b"ceplab.schema_version": str(SCHEMA_VERSION).encode()}
    m.update({f"ceplab.{k}".encode(): v.encode() for k, v in extra.items()})
    return m


def write_parquet_table(columns: dict[str, list], schema, kind: str, path: str | Path, **extra: str) -> None:
    """Write ``columns`` with ``schema`` and the ceplab metadata (``ceplab.schema`` = ``kind``,
    ``ceplab.schema_version``, ``ceplab.<extra key>``) to ``path`` (shared by every ceplab Parquet writer)."""
    pa, pq = _pa()
    table = pa.Table.from_pydict(columns, schema=schema.with_metadata(_meta(kind, **extra)))
    pq.write_table(table, str(path))


def read_parquet_table(path: str | Path, kind: str, schema) -> tuple[dict[str, list], dict[str, str]]:
    """Read a ceplab Parquet file: its columns as lists and its ``ceplab.*`` metadata (without the prefix).

    Raises:
        StreamError: the file cannot be read as Parquet, is not a ``kind`` file, has another schema
            version, or lacks a column of ``schema``.
    """
    pa, pq = _pa()
    try:
        table = pq.read_table(str(path))
    except (OSError, pa.ArrowException) as e:
        raise StreamError(f"cannot read Parquet stream: {e}", str(path)) from None
    meta = {k.decode()[len("ceplab."):]: v.decode() for k, v in (table.schema.metadata or {}).items()
            if k.startswith(b"ceplab.")}
    if meta.get("schema") != kind:
        raise StreamError(f"not a ceplab {kind} Parquet file (ceplab.schema is {meta.get('schema')!r})", str(path))
    if meta.get("schema_version") != str(SCHEMA_VERSION):
        raise StreamError(f"Parquet schema version {meta.get('schema_version')!r}; this ceplab reads version "
                          f"{SCHEMA_VERSION}", str(path))
    missing = [f.name for f in schema if f.name not in table.column_names]
    if missing:
        raise StreamError(f"Parquet stream lacks column(s) {', '.join(missing)}", str(path))
    return {f.name: table.column(f.name).to_pylist() for f in schema}, meta


def _rows(items: Sequence, times: Callable, triples: Callable) -> dict[str, list]:
    cols: dict[str, list] = {k: [] for k in ("element", "graph", "stream", "position", "s", "p", "o")}
    tcols: list[list] = []
    for k, it in enumerate(items):
        ts = sorted(triples(it), key=lambda t: tuple(nt_term(x) for x in t)) or [(None, None, None)]
        tv = times(it)
        while len(tcols) < len(tv):
            tcols.append([])
        for s, p, o in ts:
            cols["element"].append(k)
            cols["graph"].append(None if it.name is None else str(it.name))
            cols["stream"].append(None if it.stream is None else str(it.stream))
            cols["position"].append(it.position)
            for c, v in zip(tcols, tv):
                c.append(v)
            for c, t in (("s", s), ("p", p), ("o", o)):
                cols[c].append(None if t is None else nt_term(t))
    cols["_times"] = tcols
    return cols


def _groups(cols: dict[str, list], path: str | Path) -> Iterator[tuple[int, list[int]]]:
    """Row indices grouped by ``element``, in element order (rows of one element are consecutive)."""
    el = cols["element"]
    k = 0
    while k < len(el):
        j = k
        while j < len(el) and el[j] == el[k]:
            j += 1
        yield k, list(range(k, j))
        k = j


def _triples_of(cols: dict[str, list], rows: list[int], path: str | Path) -> list[Triple]:
    out = []
    for r in rows:
        s, p, o = cols["s"][r], cols["p"][r], cols["o"][r]
        if s is None and p is None and o is None:
            continue
        try:
            out.append((parse_nt_term(s), parse_nt_term(p), parse_nt_term(o)))
        except (ValueError, TypeError) as e:
            raise StreamError(f"row {r}: bad N-Triples term ({e})", str(path)) from None
    return out


def _iri(v: Optional[str]) -> Optional[URIRef]:
    return None if v is None else URIRef(v)


def write_graph_events_parquet(events: Iterable[GraphEvent], path: str | Path) -> None:
    """Write graph events as Parquet (:func:`graph_events_schema`), in the given order."""
    evs = list(events)
    cols = _rows(evs, lambda e: (e.time,), lambda e: list(e.graph))
    (cols["time"],) = cols.pop("_times") or ([],)
    write_parquet_table(cols, graph_events_schema(), "graph_events", path)


def read_graph_events_parquet(path: str | Path) -> list[GraphEvent]:
    """Read graph events written by :func:`write_graph_events_parquet` (same order).

    Raises:
        StreamError: not such a Parquet file, another schema version, a missing column, a bad term.
    """
    cols, _ = read_parquet_table(path, "graph_events", graph_events_schema())
    out = []
    for first, rows in _groups(cols, path):
        out.append(GraphEvent(_triples_of(cols, rows, path), cols["time"][first], _iri(cols["stream"][first]),
                              cols["position"][first], _iri(cols["graph"][first])))
    return out


def write_elements_parquet(elements: Iterable[StreamElement], path: str | Path) -> None:
    """Write interval stream elements as Parquet (:func:`elements_schema`), in the given order.

    Raises:
        ValueError: the list mixes triple and graph elements.
    """
    els = list(elements)
    kinds = {e.is_triple for e in els}
    if len(kinds) > 1:
        raise ValueError("cannot write a list mixing triple and graph elements")
    cols = _rows(els, lambda e: (e.start, e.end), StreamElement.triples)
    cols["start"], cols["end"] = cols.pop("_times") or ([], [])
    write_parquet_table(cols, elements_schema(), "elements", path,
                        unit="triple" if kinds == {True} else "graph")


def read_elements_parquet(path: str | Path) -> list[StreamElement]:
    """Read interval stream elements written by :func:`write_elements_parquet` (same order).

    Raises:
        StreamError: not such a Parquet file, another schema version, a missing column, a bad term,
            ``end < start``, or a triple element without exactly one triple.
    """
    cols, meta = read_parquet_table(path, "elements", elements_schema())
    unit = meta.get("unit", "graph")
    out = []
    for first, rows in _groups(cols, path):
        triples = _triples_of(cols, rows, path)
        if unit == "triple" and len(triples) != 1:
            raise StreamError(f"row {first}: a triple element with {len(triples)} triples", str(path))
        content = triples[0] if unit == "triple" else _as_graph(triples, _iri(cols["graph"][first]))
        try:
            out.append(StreamElement(content, cols["start"][first], cols["end"][first],
                                     _iri(cols["stream"][first]), cols["position"][first],
                                     _iri(cols["graph"][first])))
        except ValueError as e:
            raise StreamError(f"row {first}: {e}", str(path)) from None
    return out


# ------------------------------------------------------------------------------------------ files
def _read_text(path: str | Path) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise StreamError(f"cannot read stream: {e}", str(path)) from None


def read_graph_events(path: str | Path, *, require_order: bool = False) -> list[GraphEvent]:
    """Read graph events from ``.parquet`` (:func:`read_graph_events_parquet`) or TriG (any other suffix,
    :func:`parse_trig_graph_events`).

    Raises:
        StreamError: as those readers, or when the file cannot be read.
    """
    if Path(path).suffix.lower() == ".parquet":
        return read_graph_events_parquet(path)
    return parse_trig_graph_events(_read_text(path), str(path), require_order=require_order)


def write_graph_events(events: Iterable[GraphEvent], path: str | Path) -> None:
    """Write graph events as Parquet (``.parquet``) or TriG (any other suffix)."""
    if Path(path).suffix.lower() == ".parquet":
        write_graph_events_parquet(events, path)
    else:
        Path(path).write_text(dumps_trig_graph_events(events), encoding="utf-8")


def read_elements(path: str | Path, *, unit: Lit["graph", "triple"] = "graph", order: Lit["end", "start"] = "end",
                  require_order: bool = False) -> list[StreamElement]:
    """Read interval stream elements from ``.parquet`` (:func:`read_elements_parquet`; ``unit`` comes from
    the file, the stored order is kept) or TriG (any other suffix, :func:`parse_trig_elements`).

    Raises:
        StreamError: as those readers, or when the file cannot be read.
    """
    if Path(path).suffix.lower() == ".parquet":
        return read_elements_parquet(path)
    return parse_trig_elements(_read_text(path), str(path), unit=unit, order=order, require_order=require_order)


def write_elements(elements: Iterable[StreamElement], path: str | Path) -> None:
    """Write interval stream elements as Parquet (``.parquet``) or TriG (any other suffix)."""
    if Path(path).suffix.lower() == ".parquet":
        write_elements_parquet(elements, path)
    else:
        Path(path).write_text(dumps_trig_elements(elements), encoding="utf-8")


__all__ = [
    "CEPLAB", "SCHEMA_VERSION", "Triple", "TripleHook", "GraphEvent", "StreamElement", "by_stream", "nt_term",
    "parse_nt_term", "parse_trig_graph_events", "parse_trig_elements", "dumps_trig_graph_events",
    "dumps_trig_elements", "graph_events_schema", "elements_schema", "write_parquet_table",
    "read_parquet_table", "write_graph_events_parquet", "read_graph_events_parquet", "write_elements_parquet",
    "read_elements_parquet", "read_graph_events", "write_graph_events", "read_elements", "write_elements",
]
