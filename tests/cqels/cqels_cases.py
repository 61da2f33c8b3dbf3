"""Inputs of the pinned CQELS-CEP cases (docs/semantics/cqels.md#cqels-4): the fixtures ``D_sub`` and ``S_pt`` and
helpers to build stream elements and expected snapshots."""
from __future__ import annotations

from pathlib import Path

from rdflib import RDF, Graph, Literal, URIRef

from ceplab.semantics.cqels.parser import parse, parse_file
from ceplab.semantics.cqels.results import answer
from ceplab.semantics.cqels.streams import StaticData, check_elements
from ceplab.semantics.rdfstream import StreamElement

EX = "http://example.org/"
QUERIES = Path(__file__).with_name("queries")


def u(x: str) -> URIRef:
    return URIRef(EX + x)


def term(x):
    if type(x) is str:
        return RDF.type if x == "a" else u(x)
    return x


def query(name: str):
    return parse_file(QUERIES / name)


def q(text: str):
    return parse(f"PREFIX : <{EX}>\n" + text)


def stream(*items) -> list[StreamElement]:
    """``items``: ``(triples, t1[, t2][, stream])``; ``triples`` a list of ``(s, p, o)`` local names (or rdflib terms);
    the stream defaults to ``:s``.  Positions in the given order."""
    out = []
    for pos, it in enumerate(items):
        triples, t1 = it[0], it[1]
        t2 = it[2] if len(it) > 2 and isinstance(it[2], int) else t1
        name = it[-1] if type(it[-1]) is str else "s"
        g = Graph()
        for t in triples:
            g.add(tuple(term(x) for x in t))
        out.append(StreamElement(g, t1, t2, u(name), pos))
    return check_elements(out)


def static(*triples, versions=None) -> StaticData:
    if versions is not None:
        return StaticData([(since, [tuple(term(x) for x in t) for t in ts]) for since, ts in versions])
    return StaticData.constant([tuple(term(x) for x in t) for t in triples])


D_SUB_TRIPLES = []
for _c, _b, _e, _m, _d in [("conn1", "m", "b", "subway", "3m"), ("conn2", "b", "c", "subway", "2m"),
                           ("conn3", "h", "g", "subway", "3m"), ("conn4", "g", "c", "tram", "5m")]:
    D_SUB_TRIPLES += [(_c, "beg", _b), (_c, "end", _e), (_c, "means", _m), (_c, "dur", _d)]
D_SUB_TRIPLES += [("a1", "a", "subway"), ("d1", "a", "subway")]
D_SUB = static(*D_SUB_TRIPLES)


def s_pt(*extra):
    """``S_pt`` on ``:publicTransport`` plus extra items."""
    pt = "publicTransport"
    return stream(([("a1", "delayAt", "m")], 10, pt), ([("d1", "delayAt", "h")], 12, pt),
                  ([("d1", "delayAt", "h")], 14, pt), ([("a1", "delayAt", "m")], 16, pt), *extra)


def snaps(spec: dict, h: int) -> dict[int, frozenset]:
    """Expected snapshots for ``t`` in ``[0, h]``: ``spec`` maps an iterable of times to a list of ``(mapping,
    interval)``, mapping values being local names (or N-Triples strings starting with ``<`` or ``"``); an interval
    may be a function of ``t``."""
    out: dict[int, set] = {t: set() for t in range(h + 1)}
    for times, rows in spec.items():
        for t in times:
            for m, iv in rows:
                iv = iv(t) if callable(iv) else iv
                out[t].add(answer(t, {k: (v if v[0] in '<"' else f"<{EX}{v}>") for k, v in m.items()}, iv))
    return {t: frozenset(v) for t, v in out.items()}


__all__ = ["D_SUB", "EX", "Literal", "q", "query", "s_pt", "snaps", "static", "stream", "u"]
