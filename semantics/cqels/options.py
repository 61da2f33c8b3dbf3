"""Semantic switches of CQELS-CEP (docs/semantics/cqels.md#cqels-6).

The paper (Dao-Tran and Le-Phuoc 2015) leaves several readings open; every one that changes answers is a field of
:class:`Options`, honoured by the clingo oracle (``asp/cqels.py``) and the incremental engine (``engine/cqels``).
The defaults are the readings of docs/semantics/cqels.md#cqels-3 (the reference semantics).  ``tick`` is not a
semantic switch: it only tells the parser how long one tick is (the evaluators see integer ticks).
"""
from __future__ import annotations

import re
import typing
from dataclasses import dataclass, fields, replace
from typing import Literal

#: Duration units of CQELS-QL (``Duration ::= (INTEGER ('d'|'h'|'m'|'s'|'ms'|'ns'))+``) in nanoseconds.
DURATION_UNITS_NS = {"d": 86_400 * 10**9, "h": 3_600 * 10**9, "m": 60 * 10**9, "s": 10**9, "ms": 10**6, "ns": 1}
_DURATION = re.compile(r"(?:[0-9]+(?:ms|ns|d|h|m|s))+")
_PART = re.compile(r"([0-9]+)(ms|ns|d|h|m|s)")


def duration_ns(text: str) -> int:
    """The length of a CQELS-QL duration in nanoseconds (``"10m"`` -> 600000000000, ``"1h30m"``, ``"250ms"``).

    Raises:
        ValueError: ``text`` is not a sequence of ``<integer><unit>`` parts with unit in ``d h m s ms ns``.
    """
    if not isinstance(text, str) or not _DURATION.fullmatch(text):
        raise ValueError(f"not a duration (write e.g. 10m, 1h30m, 250ms): {text!r}")
    return sum(int(n) * DURATION_UNITS_NS[u] for n, u in _PART.findall(text))


def duration_ticks(text: str, tick: str) -> int:
    """A duration as a whole number of ticks of length ``tick`` (docs/semantics/cqels.md#cqels-G13).

    Raises:
        ValueError: a malformed duration or tick, a zero tick, or a duration that is not a whole number of ticks.
    """
    d, k = duration_ns(text), duration_ns(tick)
    if k == 0:
        raise ValueError("the tick length must be positive")
    if d % k:
        raise ValueError(f"{text} is not a whole number of ticks of {tick}")
    return d // k


@dataclass(frozen=True)
class Options:
    """Named switches for CQELS-CEP's ambiguities (docs/semantics/cqels.md#cqels-6; each has an anchor
    ``cqels-opt-<field>``).

    Attributes:
        wo_bounds: G4, the relation between SEQ_WO's negative interval ``[t3, t4]`` and the gap ``[t2, t5]`` between
            the neighbouring positive results, whose glyph the paper's extraction lost ("[t3; t4] [t2; t5]", section
            4.2): ``"closed"`` (default: ``[t3, t4]`` within ``[t2, t5]``, ``t2 <= t3 and t4 <= t5``, the probable
            subset sign) or ``"strict"`` (``t2 < t3 and t4 < t5``: SASE's open interval ``(t_{i-1}, t_{i+1})``,
            section 2.4, invariant under clipping).
        bgp_scope: G9, what a BGP of several triple patterns matches in a window (paper (16): "mu(P) subset of g"
            for one element ``<g, [t1, t2]>``): ``"element"`` (default: all its triples in the graph of one
            element, the element's clipped interval) or ``"join"`` (each triple pattern in any element of the window,
            the JOIN of the triple patterns: intervals intersected).
        static_interval: G12, the interval of a static solution at ``t`` (paper (17), whose formula is lost; the
            prose: "assign the time label [t1; t] ... where D has not changed since t1"): ``"global"`` (default:
            ``[tD, t]``, ``tD`` the start of the longest run of time points up to ``t`` on which the whole static
            data is unchanged), ``"per_mapping"`` (``[t', t]``, ``t'`` the earliest time such that the mapping is a
            solution at every time point of ``[t', t]``) or ``"unbounded"`` (``[0, t]``).  An empty static part
            ``P`` is the JOIN identity ``<{}, [0, t]>`` under every value.
        arrival: G15, when an element ``<g, [t1, t2]>`` becomes visible (the paper treats the stream as known; an
            element re-fed from another query is only known at its end, footnote 3): ``"start"`` (default: from
            ``t1``) or ``"end"`` (from ``t2``; its interval is kept, clipped as usual).  The arrival time ``a(e)``
            also orders ``TRIPLES`` windows and is the order in which the engine receives elements.
        triples_unit: G14, what ``TRIPLES n`` counts (not defined by the paper for intervals):
            ``"elements"`` (default: the last ``n`` elements, an element being one event) or ``"triples"`` (the last
            ``n`` triples; an element of which only some triples are among them contributes only those).
        now: G14, which elements ``NOW`` keeps at ``t`` (CQELS: "only triples at the current timestamp"):
            ``"valid"`` (default: ``RANGE 0``, every element with ``t1 <= t <= t2`` that has arrived) or
            ``"arrived"`` (only the elements whose arrival time is ``t``); both clip to ``[t, t]``.
        zero_length: G25, the zero-length pairs of ``e*`` and ``e?`` (the paper claims nSPARQL's semantics in
            SPARQL 1.1 syntax): ``"nsparql"`` (default: ``(x, x)`` for every ``x`` in ``voc(D(t))``, predicates
            included) or ``"sparql"`` (SPARQL 1.1 section 18.4: ``(x, x)`` for every subject and object of
            ``D(t)`` and for the IRIs and literals written as the ends of the path pattern).  The explicit axis
            ``self`` ranges over ``voc(D(t))`` under both values.
        tick: G13, the length of one tick, a CQELS-QL duration (default ``"1m"``, the running example's minute).
            Used by the parser to convert ``RANGE 10m``/``SLIDE 30s`` into ticks (a duration that is not a whole
            number of ticks is a ParseError); bare integers are ticks.  The evaluators ignore it.
    """

    wo_bounds: Literal["closed", "strict"] = "closed"
    bgp_scope: Literal["element", "join"] = "element"
    static_interval: Literal["global", "per_mapping", "unbounded"] = "global"
    arrival: Literal["start", "end"] = "start"
    triples_unit: Literal["elements", "triples"] = "elements"
    now: Literal["valid", "arrived"] = "valid"
    zero_length: Literal["nsparql", "sparql"] = "nsparql"
    tick: str = "1m"

    def __post_init__(self) -> None:
        hints = typing.get_type_hints(type(self))
        for name, tp in hints.items():
            v = getattr(self, name)
            if typing.get_origin(tp) is Literal:
                allowed = typing.get_args(tp)
                if v not in allowed:
                    raise ValueError(f"Options.{name} must be one of {allowed}, got {v!r}")
        try:
            if duration_ns(self.tick) <= 0:
                raise ValueError("zero")
        except ValueError:
            raise ValueError(f"Options.tick must be a positive duration such as 1m, 1s or 100ms, got {self.tick!r}") \
                from None


#: Every semantic switch and its values, default first (``tick`` is not one): what the differential tests iterate.
SWITCHES: dict[str, tuple[str, ...]] = {
    f.name: typing.get_args(typing.get_type_hints(Options)[f.name]) for f in fields(Options)
    if typing.get_origin(typing.get_type_hints(Options)[f.name]) is Literal
}

SASE = Options(wo_bounds="strict")
"""The SASE-aligned reading (docs/semantics/cqels.md#cqels-G4): strict SEQ_WO bounds, like NO_HEAD and NO_TAIL and
SASE's open negation interval; every other switch at its default."""


def profile(name: str) -> Options:
    """A named switch profile: ``"default"`` (docs/semantics/cqels.md#cqels-3) or ``"sase"`` (:data:`SASE`).

    Raises:
        ValueError: an unknown profile name.
    """
    if name == "default":
        return Options()
    if name == "sase":
        return replace(SASE)
    raise ValueError(f"unknown CQELS-CEP profile {name!r}; known: default, sase")
