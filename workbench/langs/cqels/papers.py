"""How CQELS-CEP worked examples are written in ``papers-check/cqels/*.json``
(:class:`ceplab.workbench.language.PaperFormat`; the cases are run by :mod:`ceplab.workbench.papers`, oracle and engine
both, and compared with the stated answers over every time point ``t`` of ``[0, H]``).

**Queries** are query texts; each carries its static data ``D`` and its horizon ``H`` as comment lines
(:mod:`ceplab.workbench.langs.cqels.query`: ``# static <s> <p> <o> .``, ``# static@T <s> <p> <o> .``, ``# until H``),
so a case is self-contained.

**Streams** (:func:`paper_stream`): a stream file next to the case file (``.trig``, ``.jsonl``), or a list of
elements in a compact notation, one string per element ``<g : [t1, t2]>`` (docs/semantics/cqels.md#cqels-1.4),
``"STREAM@T { TURTLE }"`` for an atomic event ``[T, T]`` or ``"STREAM@[T1,T2] { TURTLE }"``::

    ["publicTransport@10 { :a1 :delayAt :m }", "s@[4,20] { :x :pn :o }", "s@3 { :a1 :delayAt :m ; :line :l1 }"]

``STREAM`` is a bare name (``s`` = ``<http://example.org/s>``) or an ``<iri>``; ``TURTLE`` is the element's graph
in Turtle with the prefixes ``:`` = ``http://example.org/``, ``rdf:``, ``rdfs:`` and ``xsd:`` declared (so ``25``
is an ``xsd:integer``).  The list order is the elements' file order (their ``position``); the list becomes one
TriG streamset read by :func:`ceplab.semantics.cqels.streams.parse_stream` (times ``>= 0``, well-typed numeric
literals, blank nodes scoped to their element), sorted by ``(start, position)`` like every stream of the plugin.

**Expected results** (:func:`paper_expected`): the canonical JSON form of :mod:`ceplab.semantics.cqels.results`
(``{"time": t, "mapping": {...}, "interval": [a, b]}``, one object per answer) or the compact form::

    {"t": "16..20", "map": {"s": "m"}, "iv": [10, 16]}

which stands for one answer ``<mu, [a, b]>`` in every snapshot ``[[Q, t]]`` for the listed ``t``: ``t`` is an
integer, an inclusive range ``"A..B"`` or a list of those; ``map`` is the projected mapping (a JSON integer is an
``xsd:integer`` literal, a bare name an ``http://example.org/`` IRI, any other string a Turtle term such as
``"rdf:type"``, ``"\\"lit\\""`` or ``"<iri>"``); ``iv`` is ``[a, b]``, each end an integer or an expression of the
evaluation time, ``"t"``, ``"t-5"``, ``"t+1"`` (e.g. ``[0, "t"]`` for a static solution ``[tD, t]`` with ``tD = 0``,
docs/semantics/cqels.md#cqels-3.5).  Answers are a set, so an answer written twice is one.
"""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from ceplab.semantics.errors import StreamError

#: The namespace bare names in the compact notation stand for (``s`` = ``<http://example.org/s>``).
EX = "http://example.org/"
_PREFIXES = (f"@prefix : <{EX}> .\n@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
             "@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .\n"
             "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n@prefix ceplab: <https://ceplab.org/ns#> .\n")
_ELEMENT = re.compile(r"^\s*(<[^<>\s]*>|[A-Za-z_][\w\-]*)@(?:(\d+)|\[\s*(\d+)\s*,\s*(\d+)\s*\])\s*\{(.*)\}\s*$",
                      re.S)
_BARE = re.compile(r"^[A-Za-z_][\w\-]*$")
_TIME_EXPR = re.compile(r"^t(?:\s*([+-])\s*(\d+))?$")
_RANGE = re.compile(r"^\s*(\d+)\s*\.\.\s*(\d+)\s*$")


def _stream_iri(tok: str) -> str:
    return tok[1:-1] if tok.startswith("<") else EX + tok


def parse_compact_stream(items: Any, file: str = "<string>") -> list:
    """Stream elements from compact items ``"STREAM@T { TURTLE }"`` / ``"STREAM@[T1,T2] { TURTLE }"`` (module
    docstring), sorted by ``(start, position)``.

    Args:
        items: a list of such strings (a single string is one element); an empty list is the empty stream.
        file: the case file, for error messages.

    Raises:
        StreamError: an item that is not of that form, an interval with ``T1 > T2``, or what the TriG stream reader
            reports (Turtle syntax, ill-typed numeric literals); the 1-based item number is the line.
    """
    from ceplab.semantics.cqels.streams import parse_stream

    if isinstance(items, str):
        items = [items]
    if not isinstance(items, list):
        raise StreamError("a compact CQELS-CEP stream is a list of 'STREAM@T { TURTLE }' or "
                          "'STREAM@[T1,T2] { TURTLE }' strings", file)
    if not items:
        return []
    parts = [_PREFIXES]
    for i, it in enumerate(items):
        m = _ELEMENT.match(it) if isinstance(it, str) else None
        if m is None:
            raise StreamError(f"stream item {i + 1}: expected 'STREAM@T {{ TURTLE }}' or 'STREAM@[T1,T2] "
                              f"{{ TURTLE }}', got {it!r}", file, i + 1, 1)
        stream, t, t1, t2, body = m.groups()
        start, end = (int(t), int(t)) if t is not None else (int(t1), int(t2))
        if start > end:
            raise StreamError(f"stream item {i + 1}: the interval [{start},{end}] ends before it starts", file,
                              i + 1, 1)
        name = f"<urn:ceplab:element:{i + 1}>"
        parts.append(f"{name} {{ {body} }}\n{name} ceplab:stream <{_stream_iri(stream)}> ; ceplab:start {start}"
                     + (f" ; ceplab:end {end}" if end != start else "") + " .\n")
    text = "".join(parts)
    try:
        return parse_stream(text, file)
    except StreamError as e:
        item = None
        if e.line is not None:                       # map the generated TriG line back to the item
            item = text.count("<urn:ceplab:element:", 0, _offset(text, e.line)) // 2 + 1
        raise StreamError(f"stream item {item}: {e.message}" if item else e.message, file, item, 1) from None


def _offset(text: str, line: int) -> int:
    pos = 0
    for _ in range(max(0, line - 1)):
        pos = text.find("\n", pos) + 1
    return pos


def paper_stream(value: Any, file: str) -> list:
    """A papers-check stream: a stream file next to the case file (``.trig``, ``.jsonl``), or the compact notation
    of :func:`parse_compact_stream`.

    Raises:
        StreamError: unreadable or malformed.
    """
    from ceplab.workbench.langs.cqels.streams import read_stream

    if isinstance(value, dict) and "elements" in value:
        value = value["elements"]
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

    from ceplab.semantics.rdfstream import nt_term

    try:
        objs = list(Graph().parse(data=_PREFIXES + f":s :p {tok} .\n", format="turtle").objects())
    except Exception as e:  # noqa: BLE001 - rdflib raises several types
        raise ValueError(f"not a Turtle term: {tok!r} ({type(e).__name__})") from None
    if len(objs) != 1:
        raise ValueError(f"not one Turtle term: {tok!r}")
    return nt_term(objs[0])


def compact_value(v: Any) -> str:
    """A compact mapping value as an N-Triples term (module docstring): an integer is an ``xsd:integer`` literal, a
    bare name an ``http://example.org/`` IRI, another string a Turtle term.

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


def _times(spec: Any) -> list[int]:
    """The time points of a compact ``t``: an integer, ``"A..B"`` (inclusive) or a list of those.

    Raises:
        ValueError: anything else, or a range ``A..B`` with ``A > B``.
    """
    if isinstance(spec, list):
        return [t for s in spec for t in _times(s)]
    if isinstance(spec, int) and not isinstance(spec, bool):
        return [spec]
    m = _RANGE.match(spec) if isinstance(spec, str) else None
    if m is None:
        raise ValueError(f"t is an integer, 'A..B' or a list of those, got {spec!r}")
    a, b = int(m.group(1)), int(m.group(2))
    if a > b:
        raise ValueError(f"empty range {spec!r}")
    return list(range(a, b + 1))


def _end(x: Any, t: int) -> int:
    """One end of a compact interval at evaluation time ``t``: an integer or ``"t"``, ``"t-K"``, ``"t+K"``.

    Raises:
        ValueError: anything else.
    """
    if isinstance(x, int) and not isinstance(x, bool):
        return x
    m = _TIME_EXPR.match(x.strip()) if isinstance(x, str) else None
    if m is None:
        raise ValueError(f"an interval end is an integer or 't', 't-K', 't+K', got {x!r}")
    k = int(m.group(2) or 0)
    return t - k if m.group(1) == "-" else t + k


def paper_expected(items: Any, file: str = "<string>") -> Any:
    """Expected answers in the canonical JSON form of :func:`ceplab.semantics.cqels.results.to_json`, from the
    canonical form or the compact one (module docstring); None stays None.  Duplicates are removed (answers are a
    set, docs/semantics/cqels.md#cqels-G16); the order is that of the items, then of ``t``.

    Raises:
        ValueError: a malformed compact answer, or an interval that breaks ``0 <= a <= b <= t``.
    """
    from ceplab.semantics.cqels.results import answer, to_json

    if items is None:
        return None
    if not isinstance(items, list):
        raise ValueError(f"expected results are a list, got {type(items).__name__}")
    out: list = []
    seen: set = set()
    for x in items:
        if isinstance(x, dict) and "t" in x:
            extra = set(x) - {"t", "map", "iv"}
            if extra:
                raise ValueError(f"unknown keys {sorted(extra)} in {x!r} (a compact answer has t, map, iv)")
            iv = x.get("iv")
            if not isinstance(iv, list) or len(iv) != 2:
                raise ValueError(f"iv is [a, b], got {iv!r}")
            mapping = {str(k): compact_value(v) for k, v in (x.get("map") or {}).items()}
            rows = [to_json(answer(t, mapping, (_end(iv[0], t), _end(iv[1], t)))) for t in _times(x["t"])]
        else:
            rows = [x]
        for r in rows:
            key = repr(r)
            if key not in seen:
                seen.add(key)
                out.append(r)
    return out


PROVENANCE_LEGEND = ("P = the answer the paper states (Examples 1, 8, 9: the snapshot at t = 16 and the detection at "
                     "14; the other snapshots derived as in docs/semantics/cqels.md#cqels-T1), D = derived in "
                     "docs/semantics/cqels.md#cqels-4 or papers-check/cqels/FINDINGS.md (a constructed case, a "
                     "switch, a counterexample)")

__all__ = ["EX", "parse_compact_stream", "paper_stream", "compact_value", "paper_expected", "PROVENANCE_LEGEND"]
