"""EP-SPARQL streams in the workbench: the files ``ceplab run|compare epsparql`` read (TriG, the line format,
and the JSON Lines form fuzz reproducers write), the JSON form of reproducers, the Spark streams table row, and
dropping occurrences when shrinking. The stream model itself is :mod:`ceplab.semantics.epsparql.streams`.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable, Sequence

from ceplab.semantics.errors import StreamError


def _nt(t: Any) -> str:
    from ceplab.semantics.epsparql.streams import _nt as nt

    return nt(t)


def stream_to_json(stream: Iterable[Any]) -> list[dict]:
    """Occurrences as JSON objects ``{"s", "p", "o" (N-Triples), "start", "end"}`` (reproducers)."""
    return [{"s": _nt(o.s), "p": _nt(o.p), "o": _nt(o.o), "start": int(o.start), "end": int(o.end)}
            for o in stream]


def stream_from_json(items: list[dict], name: str = "<reproducer>") -> list:
    """Inverse of :func:`stream_to_json` (through the line-format reader: checks, dedupe, positions)."""
    from ceplab.semantics.epsparql.streams import read_line_stream

    lines = []
    for i, x in enumerate(items):
        if not isinstance(x, dict) or not all(k in x for k in ("s", "p", "o", "start")):
            raise StreamError("expected an object with s, p, o, start (and end)", name, i + 1, 1)
        start, end = x["start"], x.get("end", x["start"])
        for v in (start, end):
            if isinstance(v, bool) or not isinstance(v, int):
                raise StreamError(f"start and end are integer ticks, got {v!r}", name, i + 1, 1)
        lines.append(f"{x['s']} {x['p']} {x['o']} {start} {end} .")
    return read_line_stream("\n".join(lines) + ("\n" if lines else ""), name)


def read_stream(path: Any) -> list:
    """A stream file: ``.trig``, the line format (``.nt``/``.txt``/``.stream``), or ``.jsonl`` (one
    :func:`stream_to_json` object per line, as fuzz reproducers write them)."""
    from ceplab.semantics.epsparql.streams import read_stream as rs

    p = Path(path)
    if p.suffix.lower() != ".jsonl":
        return rs(p)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise StreamError(f"cannot read the stream: {e.strerror or e}", str(p)) from None
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
        if e.file == str(p) and e.line is not None and 1 <= e.line <= len(lines) and e.column == 1:
            raise StreamError(e.message, str(p), lines[e.line - 1], 1) from None   # the object's index -> its line
        raise


def event_row(o: Any) -> tuple[int, str, dict]:
    """``(start, predicate, {"s", "o", "end"})`` of an occurrence for the Spark streams table."""
    return int(o.start), _nt(o.p), {"s": _nt(o.s), "o": _nt(o.o), "end": int(o.end)}


def offset_positions(stream: Sequence[Any], offset: int) -> list:
    """``stream`` with every position moved by ``offset`` (``Language.offset_positions``)."""
    return [o._replace(position=o.position + offset) for o in stream]


def drop_events(stream: Sequence[Any], drop: Iterable[int]) -> list:
    """``stream`` without the occurrences at the given indices; positions renumbered, times kept."""
    d = set(drop)
    kept = [o for i, o in enumerate(stream) if i not in d]
    return [o._replace(position=i) for i, o in enumerate(kept)]
