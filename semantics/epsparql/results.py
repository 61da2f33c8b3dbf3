"""EP-SPARQL results: canonical, hashable, comparable between the oracle and the engine (DESIGN.md section 4).

A result is one of

* ``Row(query, mapping, start, end, count)``: a solution of the SELECT query with index ``query`` (0-based
  among the SELECT queries of the file, in file order), ``mapping`` the projected solution mapping as a sorted
  tuple of ``(variable name, canonical term)`` (unbound variables are absent), on the interval
  ``[start, end]`` (ticks).  ``count`` is ``None`` under ``Options.output="set"``; under ``"bag"`` it is the
  number of full solutions that project onto the row (docs/semantics/epsparql.md#epsparql-A10, #epsparql-E4).
* ``Derived(s, p, o, start, end)``: a triple occurrence the CONSTRUCT rules add to the stream (the Q-closure
  minus the input, docs/semantics/epsparql.md#epsparql-3.6), terms canonical.

Canonical terms are N-Triples strings (``term.n3()``) after :func:`canonical_term`: numeric literals
(``xsd:integer``, ``xsd:decimal`` and the derived integer types) are rewritten to the canonical lexical form of
their value (``"1628.750"^^xsd:decimal`` -> ``"1628.75"^^xsd:decimal``; ``"007"^^xsd:integer`` -> ``"7"...``),
so lexical variants of the same number are one term.  Readers apply it on ingest (docs/semantics/epsparql.md#epsparql-A19: duplicates are one
occurrence), so the oracle and the engine see the same terms.

JSON form (DESIGN.md section 4): ``{"mapping": {"x": "<http://a>"}, "start": 1, "end": 4}`` plus ``"query"`` and,
in bag mode, ``"count"``; a derived triple is ``{"triple": [s, p, o], "start": 1, "end": 4}``.
"""
from __future__ import annotations

from decimal import Decimal
from typing import NamedTuple, Optional, Union

from rdflib import XSD, Literal
from rdflib.term import Node

INTEGER_TYPES = frozenset({XSD.integer, XSD.int, XSD.long, XSD.short, XSD.byte, XSD.nonNegativeInteger,
                           XSD.positiveInteger, XSD.nonPositiveInteger, XSD.negativeInteger,
                           XSD.unsignedInt, XSD.unsignedLong, XSD.unsignedShort, XSD.unsignedByte})


class Row(NamedTuple):
    query: int
    mapping: tuple[tuple[str, str], ...]
    start: int
    end: int
    count: Optional[int] = None


class Derived(NamedTuple):
    s: str
    p: str
    o: str
    start: int
    end: int


Result = Union[Row, Derived]


def canonical_decimal(d: Decimal) -> str:
    """The canonical xsd:decimal lexical form: no exponent, no trailing zeros, at least one fractional digit
    (``Decimal("1628.750")`` -> ``"1628.75"``, ``Decimal(5)`` -> ``"5.0"``)."""
    t = format(d.normalize(), "f")
    if "." not in t:
        t += ".0"
    if t.startswith("-0") and set(t[1:]) <= {"0", "."}:
        t = t[1:]
    return t


def canonical_term(t: Node) -> Node:
    """``t`` with numeric literals in canonical lexical form (see the module docstring); other terms unchanged.

    Raises:
        ValueError: an ill-typed numeric literal (e.g. ``"abc"^^xsd:integer``).
    """
    if isinstance(t, Literal) and t.datatype is not None:
        if t.datatype in INTEGER_TYPES:
            try:
                v = int(str(t).strip())
            except ValueError:
                raise ValueError(f"ill-typed literal {t.n3()}: not an integer") from None
            return Literal(str(v), datatype=t.datatype)
        if t.datatype == XSD.decimal:
            try:
                v = Decimal(str(t).strip())
            except Exception:
                raise ValueError(f"ill-typed literal {t.n3()}: not a decimal") from None
            if not v.is_finite():
                raise ValueError(f"ill-typed literal {t.n3()}: not a decimal")
            return Literal(canonical_decimal(v), datatype=XSD.decimal)
    return t


def n3(t: Node) -> str:
    """The canonical N-Triples form of a term."""
    return canonical_term(t).n3()


def to_json(r: Result) -> dict:
    """The JSON form of a result (module docstring)."""
    if isinstance(r, Derived):
        return {"triple": [r.s, r.p, r.o], "start": r.start, "end": r.end}
    out = {"query": r.query, "mapping": dict(r.mapping), "start": r.start, "end": r.end}
    if r.count is not None:
        out["count"] = r.count
    return out


def from_json(j: dict) -> Result:
    """Inverse of :func:`to_json`."""
    if "triple" in j:
        s, p, o = j["triple"]
        return Derived(s, p, o, int(j["start"]), int(j["end"]))
    return Row(int(j.get("query", 0)), tuple(sorted(j["mapping"].items())), int(j["start"]), int(j["end"]),
               j.get("count"))


def end(r: Result) -> int:
    """The tick at which a result is determined (its end, docs/semantics/epsparql.md#epsparql-A1)."""
    return r.end
