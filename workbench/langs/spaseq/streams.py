"""SPAseq streamsets in the workbench: the files ``ceplab run|compare spaseq`` read (TriG, and the JSON Lines
form fuzz reproducers write), the JSON form of reproducers, the Spark streams table row, and dropping events when
shrinking.  The stream model itself is :mod:`ceplab.semantics.spaseq.streams`.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable, Sequence

from ceplab.semantics.errors import StreamError


def stream_to_json(stream: Iterable[Any]) -> list[dict]:
    """Graph events as JSON objects ``{"stream": IRI text, "time": ticks, "triples": [[s, p, o], ...]}`` (terms in
    N-Triples form, triples sorted)."""
    from ceplab.semantics.rdfstream import nt_term

    return [{"stream": str(e.stream), "time": int(e.time),
             "triples": sorted([nt_term(s), nt_term(p), nt_term(o)] for s, p, o in e.graph)} for e in stream]


def stream_from_json(items: list[dict], name: str = "<reproducer>") -> list:
    """Inverse of :func:`stream_to_json` (positions in list order; checked like a TriG streamset).

    Raises:
        StreamError: a malformed object (its 1-based index as the line), or a Definition 2 violation.
    """
    from rdflib import URIRef

    from ceplab.semantics.rdfstream import GraphEvent, check_iri, parse_nt_term
    from ceplab.semantics.spaseq.streams import check_streamset

    events = []
    for i, x in enumerate(items):
        try:
            triples = [tuple(parse_nt_term(t) for t in tr) for tr in x["triples"]]
            if any(len(tr) != 3 for tr in triples):
                raise ValueError("a triple has three terms")
            events.append(GraphEvent(triples, int(x["time"]), URIRef(check_iri(str(x["stream"]))), i))
        except (KeyError, TypeError, ValueError, OverflowError) as e:   # OverflowError: a time of 1e400 (inf)
            raise StreamError(f"expected an object with stream, time, triples ({e})", name, i + 1, 1) from None
    return check_streamset(events, name)


def read_stream(path: Any) -> list:
    """A streamset file: ``.trig`` (docs/semantics/spaseq.md#spaseq-1), or ``.jsonl`` (one
    :func:`stream_to_json` object per line, as fuzz reproducers write them).

    Raises:
        StreamError: an unreadable or malformed file (file, line and column).
    """
    from ceplab.semantics.spaseq.streams import read_streamset

    p = Path(path)
    if p.suffix.lower() != ".jsonl":
        return read_streamset(p)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise StreamError(f"cannot read the stream: {getattr(e, 'strerror', None) or e}", str(p)) from None
    items = []
    for ln, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            items.append(json.loads(line))
        except json.JSONDecodeError as e:
            raise StreamError(f"malformed JSON: {e.msg}", str(p), ln, e.colno) from None
    return stream_from_json(items, str(p))


def event_row(e: Any) -> tuple[int, str, dict]:
    """``(time, stream IRI, {"triples": [[s, p, o], ...]})`` of a graph event for the Spark streams table."""
    (j,) = stream_to_json([e])
    return j["time"], j["stream"], {"triples": j["triples"]}


def offset_positions(stream: Sequence[Any], offset: int) -> list:
    """``stream`` with every position moved by ``offset`` (``Language.offset_positions``); blank nodes are scoped
    to the moved events again (:func:`ceplab.semantics.spaseq.streams.check_streamset`)."""
    from ceplab.semantics.rdfstream import GraphEvent
    from ceplab.semantics.spaseq.streams import check_streamset

    return check_streamset([GraphEvent(e.graph, e.time, e.stream, e.position + offset, e.name) for e in stream])


def drop_events(stream: Sequence[Any], drop: Iterable[int]) -> list:
    """``stream`` without the events at the given indices; positions renumbered, times kept."""
    from ceplab.semantics.rdfstream import GraphEvent

    d = set(drop)
    kept = [e for i, e in enumerate(stream) if i not in d]
    return [GraphEvent(e.graph, e.time, e.stream, i, e.name) for i, e in enumerate(kept)]
