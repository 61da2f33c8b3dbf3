"""How SPAseq worked examples are written in ``papers-check/spaseq/*.json`` (:class:`ceplab.workbench.language.PaperFormat`;
the cases are run by :mod:`ceplab.workbench.papers`, oracle and engine both).

**Streams** (:func:`paper_stream`): a streamset file next to the case file (``.trig``, ``.jsonl``), or a list of
events in a compact notation, one string per event, ``"STREAM@TIME { TURTLE }"``::

    ["pw@1 { :h1 :price 25 }", "wt@3 { :w1 :wind 7 }", "main@2 { :eBay :volume 20.0e0 ; :price 16.0e0 }"]

``STREAM`` is a bare name (``pw`` = ``<http://example.org/pw>``) or an ``<iri>``; ``TURTLE`` is the event's graph
in Turtle with the prefixes ``:`` = ``http://example.org/``, ``xsd:``, ``rdf:`` and ``rdfs:`` declared (so ``25``
is an ``xsd:integer``, ``14.0`` an ``xsd:decimal``, ``14.0e0`` an ``xsd:double``).  Events are listed in file
order (their ``position``); the list becomes one TriG streamset read by
:func:`ceplab.semantics.spaseq.streams.parse_streamset` (Definitions 2-3 checked).

**Expected results** (:func:`paper_expected`): the canonical JSON form of :mod:`ceplab.semantics.spaseq.results`,
or the compact form ``{"w": 0, "ev": "pw@1 wt@3", "map": {"h": "h1", "p1": 25}}``: ``w`` the window index (default
0; ``null`` under ``window=anchored``), ``ev`` the selected events in witness order (``STREAM@TIME``, space
separated, or a list), ``map`` the projected row: JSON integers are ``xsd:integer`` literals, a bare name is an
``http://example.org/`` IRI, any other string a Turtle term (``"14.0e0"``, ``"\\"alice\\""``, ``"<iri>"``).
"""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from ceplab.semantics.errors import StreamError

#: The namespace bare names in the compact notation stand for (``pw`` = ``<http://example.org/pw>``).
EX = "http://example.org/"
_PREFIXES = (f"@prefix : <{EX}> .\n@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
             "@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .\n"
             "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n@prefix ceplab: <https://ceplab.org/ns#> .\n")
_EVENT = re.compile(r"^\s*(<[^<>\s]*>|[A-Za-z_][\w\-]*)@(-?\d+)\s*\{(.*)\}\s*$", re.S)
_BARE = re.compile(r"^[A-Za-z_][\w\-]*$")


def _stream_iri(tok: str) -> str:
    return tok[1:-1] if tok.startswith("<") else EX + tok


def parse_compact_stream(items: Any, file: str = "<string>") -> list:
    """A streamset from compact events ``"STREAM@TIME { TURTLE }"`` (module docstring).

    Raises:
        StreamError: an item that is not of that form, Turtle errors, or a Definition 2/3 violation; the message
            names the item (1-based, as the line) and what the streamset reader reported.
    """
    from ceplab.semantics.spaseq.streams import parse_streamset

    if isinstance(items, str):
        items = [items]
    if not isinstance(items, list) or not items:
        raise StreamError("a compact SPAseq stream is a non-empty list of 'STREAM@TIME { TURTLE }' strings", file)
    parts = [_PREFIXES]
    for i, it in enumerate(items):
        m = _EVENT.match(it) if isinstance(it, str) else None
        if m is None:
            raise StreamError(f"stream item {i + 1}: expected 'STREAM@TIME {{ TURTLE }}', got {it!r}", file, i + 1, 1)
        stream, t, body = m.groups()
        parts.append(f"<urn:ceplab:event:{i + 1}> {{ {body} }}\n<urn:ceplab:event:{i + 1}> ceplab:stream "
                     f"<{_stream_iri(stream)}> ; ceplab:start {int(t)} .\n")
    text = "".join(parts)
    try:
        return parse_streamset(text, file)
    except StreamError as e:
        line = getattr(e, "line", None)
        item = None
        if line is not None:                     # map the generated TriG line back to the item
            item = text.count("<urn:ceplab:event:", 0, _offset(text, line)) // 2 + 1
        raise StreamError(f"stream item {item}: {e.message}" if item else e.message, file, item, 1) from None


def _offset(text: str, line: int) -> int:
    pos = 0
    for _ in range(max(0, line - 1)):
        pos = text.find("\n", pos) + 1
    return pos


def paper_stream(value: Any, file: str) -> list:
    """A papers-check stream: a streamset file next to the case file (``.trig``, ``.jsonl``), or the compact
    notation of :func:`parse_compact_stream`.

    Raises:
        StreamError: unreadable or malformed.
    """
    from ceplab.workbench.langs.spaseq.streams import read_stream

    if isinstance(value, dict) and "events" in value:
        value = value["events"]
    if isinstance(value, str) and re.search(r"\.(trig|jsonl)$", value):
        return read_stream(Path(file).parent / value)
    return parse_compact_stream(value, file)


@lru_cache(maxsize=None)
def _turtle_term(tok: str) -> str:
    """The N-Triples form of one Turtle object term (with the compact notation's prefixes).

    Raises:
        ValueError: not one Turtle term.
    """
    from rdflib import Graph

    from ceplab.semantics.spaseq.results import term

    try:
        objs = list(Graph().parse(data=_PREFIXES + f":s :p {tok} .\n", format="turtle").objects())
    except Exception as e:  # noqa: BLE001 - rdflib raises several types
        raise ValueError(f"not a Turtle term: {tok!r} ({type(e).__name__})") from None
    if len(objs) != 1:
        raise ValueError(f"not one Turtle term: {tok!r}")
    return term(objs[0])


def compact_value(v: Any) -> str:
    """A compact mapping value as an N-Triples term (module docstring).

    Raises:
        ValueError: a value of another JSON type, or a string that is not one Turtle term.
    """
    if isinstance(v, bool) or not isinstance(v, (int, str)):
        raise ValueError(f"a mapping value is an integer or a string, got {v!r}")
    if isinstance(v, int):
        return f'"{v}"^^<http://www.w3.org/2001/XMLSchema#integer>'
    if _BARE.match(v) and v not in ("true", "false", "a"):
        return f"<{EX}{v}>"
    return _turtle_term(v)


def _event(tok: str) -> list:
    m = re.fullmatch(r"(<[^<>\s]*>|[A-Za-z_][\w\-]*)@(-?\d+)", tok.strip())
    if m is None:
        raise ValueError(f"a selected event is STREAM@TIME, got {tok!r}")
    return [_stream_iri(m.group(1)), int(m.group(2))]


def paper_expected(items: Any, file: str = "<string>") -> Any:
    """Expected results in the canonical JSON form of :func:`ceplab.semantics.spaseq.results.to_json`, from the
    canonical form or the compact one (module docstring); None stays None.

    Raises:
        ValueError: a malformed compact result.
    """
    if items is None:
        return None
    out = []
    for x in items:
        if isinstance(x, dict) and "ev" in x:
            evs = x["ev"].split() if isinstance(x["ev"], str) else list(x["ev"])
            events = [_event(e) for e in evs]
            if not events:
                raise ValueError(f"a result selects at least one event: {x!r}")
            out.append({"window": x.get("w", 0), "time": max(t for _, t in events), "events": events,
                        "mapping": {k: compact_value(v) for k, v in (x.get("map") or {}).items()}})
        else:
            out.append(x)
    return out
