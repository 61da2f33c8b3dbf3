"""CQELS-CEP input: interval RDF streams and static data (paper section 2.2; docs/semantics/cqels.md#cqels-1,
#cqels-9).

* A **stream file** is a TriG streamset read with :func:`ceplab.semantics.rdfstream.parse_trig_elements`
  (``unit="graph"``): one named graph per stream element ``<g : [t1, t2]>``, its stream and interval in the default
  graph::

      <e1> { :a1 :delayAt :m . }
      <e1> ceplab:stream ex:publicTransport ; ceplab:start 10 .             # atomic event [10, 10]
      <e2> ceplab:stream ex:publicTransport ; ceplab:start 12 ; ceplab:end 14 .

  Every element must name its stream (queries read streams by IRI); times are integer ticks ``>= 0``
  (docs/semantics/cqels.md#cqels-G31); numeric literals must be well typed (their value is used by FILTER,
  docs/semantics/cqels.md#cqels-3.6).  Blank nodes are scoped to their element (docs/semantics/cqels.md#cqels-G17) and
  relabelled deterministically: the blank nodes of the element at position ``k`` become ``_:e{k}b0``, ``_:e{k}b1``, ...
  ordered by a structural signature, so the same file gives the same labels in every run.  The result is a list of
  :class:`~ceplab.semantics.rdfstream.StreamElement` (content: an rdflib Graph) sorted by ``(start, position)``;
  :func:`arrival_order` sorts it for ``Options.arrival = "end"``.
* **Static data** ``D`` (paper section 2.2: an instantaneous dataset ``D(t)``) is a :class:`StaticData`: versions
  ``(since, triples)``.  A Turtle file is one version from time 0 (a static ``D``).  A TriG file is a temporal graph:
  each named graph is the whole of ``D`` from its ``ceplab:start`` until the next version's start (no
  ``ceplab:end``, no ``ceplab:stream``); ``D(t)`` is empty before the first version.  Blank nodes are relabelled
  ``_:sb0``, ``_:sb1``, ... over the union of all versions (one blank node is one term in every version).

Errors are :class:`ceplab.semantics.errors.StreamError` with file, line and column where they can be known (TriG and
Turtle syntax errors: where rdflib stopped; annotation errors: the graph's first block; ill-typed literals: their first
occurrence in the text), never a traceback.
"""
from __future__ import annotations

import bisect
import hashlib
from pathlib import Path
from typing import Iterable, NamedTuple, Optional, Sequence, Union

from rdflib import Graph
from rdflib.term import BNode, Literal, Node, URIRef

from ceplab.semantics.cqels.ast import NUMERIC_TYPES, numeric_value
from ceplab.semantics.cqels.options import Options
from ceplab.semantics.errors import StreamError
from ceplab.semantics.rdfstream import (CEPLAB, StreamElement, _line_col, _Locator, _parse_dataset, nt_term,
                                       parse_trig_elements)

__all__ = ["CEPLAB", "Triple", "StaticVersion", "StaticData", "element_triples", "arrival", "arrival_order",
           "check_elements", "parse_stream", "read_stream", "parse_static", "read_static"]

Triple = tuple[Node, Node, Node]


# ------------------------------------------------------------------------------------------------ helpers
def triple_key(t: Triple) -> tuple[str, str, str]:
    """The canonical order of triples: their N-Triples terms, compared as strings."""
    return (nt_term(t[0]), nt_term(t[1]), nt_term(t[2]))


def element_triples(e: StreamElement) -> list[Triple]:
    """The triples of an element in canonical order (:func:`triple_key`): the order ``TRIPLES n`` counts the
    triples of one element in under ``Options.triples_unit = "triples"`` (docs/semantics/cqels.md#cqels-3.1)."""
    return sorted(e.triples(), key=triple_key)


def arrival(e: StreamElement, options: Options = Options()) -> int:
    """``a(e)``, the time at which element ``e`` becomes visible (``Options.arrival``,
    docs/semantics/cqels.md#cqels-G15): its start (default) or its end, in ticks."""
    return e.start if options.arrival == "start" else e.end


def arrival_order(elements: Iterable[StreamElement], options: Options = Options()) -> list[StreamElement]:
    """The elements sorted by ``(a(e), position)``: the order ``TRIPLES n`` counts them in and the order in which the
    engine must receive them (docs/semantics/cqels.md#cqels-8)."""
    return sorted(elements, key=lambda e: (arrival(e, options), e.position))


def _locate_literal(text: Optional[str], lit: Literal) -> tuple[Optional[int], Optional[int]]:
    if not text:
        return None, None
    for needle in (f'"{lit}"', f"'{lit}'", str(lit)):
        k = text.find(needle)
        if k >= 0:
            return _line_col(text, k)
    return None, None


def _check_literal(t: Node, file: Optional[str], text: Optional[str], where: str) -> None:
    if isinstance(t, Literal) and t.datatype in NUMERIC_TYPES and numeric_value(t) is None:
        line, col = _locate_literal(text, t)
        raise StreamError(f"{where}: ill-typed literal {nt_term(t)} (not a lexical form of its numeric datatype)",
                          file, line, col)


def _bnode_labels(triples: Sequence[Triple], prefix: str) -> dict[BNode, BNode]:
    """Deterministic labels for the blank nodes of ``triples``: colour refinement over the triples, then ``prefix``
    plus the rank of the final colour (ties: nodes the refinement cannot tell apart)."""
    bnodes = sorted({x for t in triples for x in t if isinstance(x, BNode)}, key=str)
    if not bnodes:
        return {}
    colour = {b: "" for b in bnodes}
    by_node: dict[BNode, list[Triple]] = {b: [] for b in bnodes}
    for t in triples:
        for x in set(t):
            if isinstance(x, BNode):
                by_node[x].append(t)
    classes = 1
    for _ in range(len(bnodes) + 1):
        def sig(x: Node, me: BNode) -> str:
            if x == me:
                return "@"
            return "b:" + colour[x] if isinstance(x, BNode) else nt_term(x)

        new = {b: hashlib.sha1((colour[b] + "|" + "|".join(sorted(" ".join(sig(x, b) for x in t)
                                                                      for t in by_node[b]))).encode()).hexdigest()
               for b in bnodes}
        n = len(set(new.values()))
        colour = new
        if n == classes:
            break
        classes = n
    ranked = sorted(bnodes, key=lambda b: colour[b])
    return {b: BNode(f"{prefix}{k}") for k, b in enumerate(ranked)}


def _relabel(triples: Iterable[Triple], labels: dict[BNode, BNode]) -> list[Triple]:
    if not labels:
        return list(triples)
    return [tuple(labels.get(x, x) if isinstance(x, BNode) else x for x in t) for t in triples]


# ------------------------------------------------------------------------------------------------ streams
def check_elements(elements: Iterable[StreamElement], file: Optional[str] = None, text: Optional[str] = None
                   ) -> list[StreamElement]:
    """Validate stream elements (read from a file or built in code) and scope their blank nodes (module docstring).

    Args:
        elements: the elements; a triple element (``content`` a triple) is turned into a one-triple graph element.
        file, text: the file name and text they were read from, for error locations (optional).

    Returns:
        new elements with graph content, blank nodes relabelled ``_:e{position}b{k}``, sorted by ``(start,
        position)``.

    Raises:
        StreamError: an element without a stream, a negative time, an ill-typed numeric literal, or two elements
            with the same position.
    """
    where = _Locator(text) if text else (lambda g: (None, None))
    out = []
    seen: set[int] = set()
    for e in elements:
        name = e.name.n3() if e.name is not None else f"#{e.position}"
        line, col = where(e.name) if e.name is not None else (None, None)
        if e.stream is None:
            raise StreamError(f"graph {name} has no ceplab:stream: a CQELS-CEP query reads streams by IRI, so every "
                              "element names its stream", file, line, col)
        if e.start < 0:
            raise StreamError(f"graph {name} starts at {e.start}: time points are integer ticks >= 0", file, line,
                              col)
        if e.position in seen:
            raise StreamError(f"two elements with position {e.position}", file, line, col)
        seen.add(e.position)
        triples = e.triples()
        for t in triples:
            for x in t:
                _check_literal(x, file, text, f"graph {name}")
        labels = _bnode_labels(triples, f"e{e.position}b")
        g = Graph(identifier=e.name) if e.name is not None else Graph()
        for t in _relabel(triples, labels):
            g.add(t)
        out.append(StreamElement(g, e.start, e.end, e.stream, e.position, e.name))
    out.sort(key=lambda x: (x.start, x.position))
    return out


def parse_stream(text: str, file: Optional[str] = None) -> list[StreamElement]:
    """A CQELS-CEP stream (streamset) from TriG text (module docstring).

    Args:
        text: the TriG document.
        file: its name, for error messages.

    Returns:
        the elements sorted by ``(start, position)``, intervals in integer ticks, blank nodes scoped.

    Raises:
        StreamError: TriG or annotation errors (:func:`ceplab.semantics.rdfstream.parse_trig_elements`) and those of
            :func:`check_elements`.
    """
    return check_elements(parse_trig_elements(text, file, unit="graph", order="start"), file, text)


def _read(path: Union[str, Path], what: str) -> str:
    p = Path(path)
    try:
        return p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise StreamError(f"cannot read the {what}: {getattr(e, 'strerror', None) or e}", str(p)) from None


def read_stream(path: Union[str, Path]) -> list[StreamElement]:
    """:func:`parse_stream` of a TriG file.

    Raises:
        StreamError: an unreadable file, or what :func:`parse_stream` raises.
    """
    return parse_stream(_read(path, "stream"), str(path))


# ------------------------------------------------------------------------------------------------ static data
class StaticVersion(NamedTuple):
    """The content ``triples`` of ``D`` from time ``since`` on (until the next version)."""
    since: int
    triples: frozenset[Triple]


class StaticData:
    """The static data ``D`` as a temporal RDF graph (paper section 2.2; docs/semantics/cqels.md#cqels-1.3).

    Args:
        versions: ``(since, triples)`` pairs, ``since`` an integer tick ``>= 0``, at most one per ``since``, in any
            order.

    Normalised on construction: sorted by ``since``; an empty version from 0 is added when the first starts later;
    consecutive versions with equal triples are merged (so ``since(t)`` is the start of the longest run of time
    points up to ``t`` on which ``D`` is unchanged, the ``tD`` of docs/semantics/cqels.md#cqels-3.5).

    Raises:
        ValueError: a non-integer or negative ``since``, or two versions with the same ``since``.
    """

    __slots__ = ("versions", "_starts")

    def __init__(self, versions: Iterable[tuple[int, Iterable[Triple]]] = ()) -> None:
        vs = []
        for since, triples in versions:
            if isinstance(since, bool) or not isinstance(since, int) or since < 0:
                raise ValueError(f"a static version starts at an integer tick >= 0, got {since!r}")
            vs.append(StaticVersion(since, frozenset(tuple(t) for t in triples)))
        vs.sort(key=lambda v: v.since)
        for a, b in zip(vs, vs[1:]):
            if a.since == b.since:
                raise ValueError(f"two static versions start at {a.since}")
        if not vs or vs[0].since > 0:
            vs.insert(0, StaticVersion(0, frozenset()))
        merged = [vs[0]]
        for v in vs[1:]:
            if v.triples != merged[-1].triples:
                merged.append(v)
        self.versions: tuple[StaticVersion, ...] = tuple(merged)
        self._starts = [v.since for v in self.versions]

    @classmethod
    def constant(cls, triples: Union[Graph, Iterable[Triple]] = ()) -> "StaticData":
        """A static ``D``: one version from time 0."""
        return cls([(0, list(triples))])

    def version_index(self, t: int) -> int:
        """The index in :attr:`versions` of the version active at ``t >= 0``."""
        return bisect.bisect_right(self._starts, t) - 1

    def at(self, t: int) -> frozenset[Triple]:
        """``D(t)``: the triples valid at time ``t >= 0``."""
        return self.versions[self.version_index(t)].triples

    def since(self, t: int) -> int:
        """``tD(t)``: the earliest time from which ``D`` is unchanged up to ``t`` (docs/semantics/cqels.md#cqels-3.5)."""
        return self.versions[self.version_index(t)].since

    @property
    def change_times(self) -> tuple[int, ...]:
        """The times ``> 0`` at which ``D`` changes (the starts of all versions but the first)."""
        return tuple(self._starts[1:])

    @property
    def is_constant(self) -> bool:
        """True when ``D`` never changes."""
        return len(self.versions) == 1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StaticData) and self.versions == other.versions

    def __hash__(self) -> int:
        return hash(self.versions)

    def __repr__(self) -> str:
        return "StaticData(" + ", ".join(f"{v.since}: {len(v.triples)} triples" for v in self.versions) + ")"


def _static_from_versions(raw: list[tuple[int, list[Triple]]], file: Optional[str], text: Optional[str]
                          ) -> StaticData:
    union = sorted({t for _, ts in raw for t in ts}, key=lambda t: tuple(str(x) for x in t))
    labels = _bnode_labels(union, "sb")
    for _, ts in raw:
        for t in ts:
            for x in t:
                _check_literal(x, file, text, "static data")
    return StaticData([(since, _relabel(ts, labels)) for since, ts in raw])


def parse_static(text: str, file: Optional[str] = None, fmt: str = "turtle") -> StaticData:
    """Static data from Turtle (``fmt="turtle"``: one version from 0) or TriG (``fmt="trig"``: one version per named
    graph, module docstring).

    Raises:
        StreamError: a syntax error (with line and column); in Turtle, a named graph; in TriG, a version with
            ``ceplab:end`` or ``ceplab:stream``, two versions with one start, a negative start, default-graph triples
            other than the annotations; an ill-typed numeric literal.
        ValueError: an unknown ``fmt``.
    """
    if fmt == "turtle":
        ds, _ = _parse_dataset(text, file)
        default_id = ds.default_graph.identifier
        triples = []
        for s, p, o, g in ds.quads((None, None, None, None)):
            gid = getattr(g, "identifier", g)
            if gid is not None and gid != default_id and str(gid) != "urn:x-rdflib:default":
                raise StreamError(f"named graph {gid.n3()} in Turtle static data: write a TriG file for static data "
                                  "that changes over time", file)
            for t in (s, p, o):
                try:
                    nt_term(t)
                except Exception:  # noqa: BLE001 - rdflib raises a bare Exception for IRIs it cannot serialise
                    raise StreamError(f"{str(t)[:60]!r} is not a valid IRI (spaces, quotes, backslashes, braces or "
                                      "angle brackets are not allowed in IRIs)", file) from None
            triples.append((s, p, o))
        return _static_from_versions([(0, triples)], file, text)
    if fmt != "trig":
        raise ValueError(f"fmt must be 'turtle' or 'trig', got {fmt!r}")
    where = _Locator(text)
    els = parse_trig_elements(text, file, unit="graph", order="start")
    raw: list[tuple[int, list[Triple]]] = []
    starts: dict[int, StreamElement] = {}
    for e in els:
        name = e.name.n3() if e.name is not None else f"#{e.position}"
        line, col = where(e.name) if e.name is not None else (None, None)
        if e.stream is not None:
            raise StreamError(f"static version {name} has a ceplab:stream: static data is not a stream", file, line,
                              col)
        if e.end != e.start:
            raise StreamError(f"static version {name} has a ceplab:end: a version lasts until the next one starts",
                              file, line, col)
        if e.start < 0:
            raise StreamError(f"static version {name} starts at {e.start}: time points are ticks >= 0", file, line,
                              col)
        if e.start in starts:
            other = starts[e.start]
            raise StreamError(f"static versions {other.name.n3() if other.name else '?'} and {name} both start at "
                              f"{e.start}", file, line, col)
        starts[e.start] = e
        raw.append((e.start, e.triples()))
    return _static_from_versions(raw, file, text)


def read_static(path: Union[str, Path]) -> StaticData:
    """Static data from a file: ``.trig`` is read as versions, anything else as Turtle (:func:`parse_static`).

    Raises:
        StreamError: an unreadable file, or what :func:`parse_static` raises.
    """
    fmt = "trig" if Path(path).suffix.lower() == ".trig" else "turtle"
    return parse_static(_read(path, "static data"), str(path), fmt)

