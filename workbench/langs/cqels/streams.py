"""CQELS-CEP streams in the workbench: the files ``ceplab run|compare cqels`` read (TriG, and the JSON Lines form fuzz
reproducers write), the JSON form of reproducers, the Spark streams table row, and dropping elements when shrinking.
The stream model itself is :mod:`ceplab.semantics.cqels.streams` (docs/semantics/cqels.md#cqels-9).

Order: every stream this module returns is a list of :class:`~ceplab.semantics.rdfstream.StreamElement` sorted by
``(start, position)``, what :func:`ceplab.semantics.cqels.streams.check_elements` returns; the workbench pushes the
elements in this list order and the plugin's emission positions rely on it (see the plugin's module docstring).
``position`` is the element's rank in file order; the JSON form lists elements in position order, so that reading
it back gives the same positions' order (``TRIPLES n`` orders elements of equal arrival by position).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable, Sequence

from ceplab.semantics.errors import StreamError


def element_json(e: Any) -> dict:
    """One element as ``{"stream": IRI, "start": t1, "end": t2, "triples": [[s, p, o], ...]}`` (N-Triples terms,
    triples in canonical order), with ``"name": IRI`` when the element has a graph name (informative: error
    messages and TriG exports use it)."""
    from ceplab.semantics.cqels.streams import element_triples
    from ceplab.semantics.rdfstream import nt_term

    out = {"stream": str(e.stream), "start": int(e.start), "end": int(e.end),
           "triples": [[nt_term(x) for x in t] for t in element_triples(e)]}
    if e.name is not None:
        out["name"] = str(e.name)
    return out


def stream_to_json(stream: Iterable[Any]) -> list[dict]:
    """Stream elements as JSON objects (:func:`element_json`), in position (file) order."""
    return [element_json(e) for e in sorted(stream, key=lambda e: e.position)]


def stream_from_json(items: list[dict], name: str = "<reproducer>") -> list:
    """Inverse of :func:`stream_to_json`: positions in list order; checked and sorted like a TriG stream
    (:func:`ceplab.semantics.cqels.streams.check_elements`).

    Raises:
        StreamError: a malformed object (its 1-based index as the line), or what ``check_elements`` raises.
    """
    from rdflib import Graph, URIRef

    from ceplab.semantics.cqels.streams import check_elements
    from ceplab.semantics.rdfstream import StreamElement, check_iri, parse_nt_term

    if not isinstance(items, list):
        raise StreamError("expected a list of stream elements", name)
    elements = []
    for i, x in enumerate(items):
        try:
            if not isinstance(x, dict):
                raise TypeError("not an object")
            stream = x["stream"]
            if not isinstance(stream, str) or not stream:
                raise ValueError("stream is an IRI")
            check_iri(stream.strip("<>"))
            start = x["start"]
            end = x.get("end", start)
            for v in (start, end):
                if isinstance(v, bool) or not isinstance(v, int):
                    raise ValueError("start and end are integers")
            g = Graph()
            for tr in x["triples"]:
                if not isinstance(tr, list) or len(tr) != 3 or not all(isinstance(t, str) for t in tr):
                    raise ValueError("a triple is a list of three N-Triples terms")
                g.add(tuple(parse_nt_term(t) for t in tr))
            gname = x.get("name")        # the element's graph name (``name`` is the file's)
            if gname is not None and (not isinstance(gname, str) or not gname):
                raise ValueError("name is an IRI")
            if gname:
                check_iri(gname.strip("<>"))
            elements.append(StreamElement(g, start, end, URIRef(stream.strip("<>")), i,
                                          URIRef(gname.strip("<>")) if gname else None))
        except (KeyError, TypeError, ValueError) as e:
            raise StreamError(f"expected an object with stream, start, end, triples ({e})", name, i + 1, 1) from None
    return check_elements(elements, name)


def read_stream(path: Any) -> list:
    """A stream file: TriG (docs/semantics/cqels.md#cqels-9), or ``.jsonl`` (one :func:`element_json` object per
    line, as fuzz reproducers write them).

    Raises:
        StreamError: an unreadable or malformed file (file, line and column).
    """
    from ceplab.semantics.cqels.streams import read_stream as read_trig

    p = Path(path)
    if p.suffix.lower() != ".jsonl":
        return read_trig(p)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise StreamError(f"cannot read the stream: {getattr(e, 'strerror', None) or e}", str(p)) from None
    items = []
    lines = []
    for ln, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            items.append(json.loads(line))
        except json.JSONDecodeError as e:
            raise StreamError(f"malformed JSON: {e.msg}", str(p), ln, e.colno) from None
        lines.append(ln)
    try:
        return stream_from_json(items, str(p))
    except StreamError as e:
        if e.line is not None and 1 <= e.line <= len(lines) and e.column == 1:   # the object's index -> its line
            raise StreamError(e.message, str(p), lines[e.line - 1], 1) from None
        raise


def dumps_jsonl(stream: Iterable[Any]) -> str:
    """The ``.jsonl`` text of a stream (:func:`read_stream` reads it back)."""
    return "".join(json.dumps(x) + "\n" for x in stream_to_json(stream))


def event_row(e: Any) -> tuple[int, str, dict]:
    """``(start, stream IRI, {"end": t2, "triples": [[s, p, o], ...]})`` of an element for the Spark streams table."""
    j = element_json(e)
    return j["start"], j["stream"], {"end": j["end"], "triples": j["triples"]}


def offset_positions(stream: Sequence[Any], offset: int) -> list:
    """``stream`` with every position moved by ``offset`` (``Language.offset_positions``); blank nodes are
    relabelled for the new positions, as :func:`drop_events` does."""
    from ceplab.semantics.cqels.streams import check_elements
    from ceplab.semantics.rdfstream import StreamElement

    return check_elements([StreamElement(e.content, e.start, e.end, e.stream, e.position + offset, e.name)
                           for e in stream])


def drop_events(stream: Sequence[Any], drop: Iterable[int]) -> list:
    """``stream`` without the elements at the given list indices.  The kept elements are renumbered ``0..n-1`` in
    their old position order (so every ``(a(e), position)`` order is kept), blank nodes relabelled for the new
    positions, times kept; the result is sorted by ``(start, position)`` like every stream of the plugin."""
    from ceplab.semantics.cqels.streams import check_elements
    from ceplab.semantics.rdfstream import StreamElement

    d = set(drop)
    kept = sorted((e for i, e in enumerate(stream) if i not in d), key=lambda e: e.position)
    return check_elements([StreamElement(e.content, e.start, e.end, e.stream, i, e.name)
                           for i, e in enumerate(kept)])
