"""Semantic switches of EP-SPARQL (docs/semantics/epsparql.md#epsparql-8).

Every ambiguity of the paper that changes answers is a field of :class:`Options`, honoured by the clingo oracle
(``asp/epsparql.py``) and the incremental engine (``engine/epsparql``).  The defaults are docs/semantics/epsparql.md's
recommended (repaired) readings; :data:`PAPER_LITERAL` sets every switch to the printed reading.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal


@dataclass(frozen=True)
class Options:
    """Named switches for EP-SPARQL's ambiguities.

    Attributes:
        optional_end: A6, plain ``OPTIONAL`` (``LeftJoin``): the optional row must end ``"le"`` (default: at
            or before the mandatory row's end, so that downward compatibility holds, E8) or ``"strict"``ly
            before it (the printed ``t'_omega < t_omega``).
        srj_filter_interval: A7, the interval ``F`` sees in ``OPTIONALSEQ``'s "no partner" half:
            ``"combined"`` (default: the interval the joined row would have, as in the joined half) or
            ``"mandatory"`` (the printed ``sigma_{t_alpha,t_omega}`` of the mandatory row, E12).
        lj_filter_interval: A7, the interval ``F`` sees in plain ``OPTIONAL``: ``"mandatory"`` (default, as
            printed, in both halves) or ``"hull"`` (the joined row's hull, in both halves).
        optional_filter: A8, where an optional operator's ``F`` comes from: ``"operand"`` (default: the
            FILTERs written inside the optional operand's group; all others filter the whole group after
            the operator) or ``"group"`` (a group-level FILTER directly over an optional operator is taken
            as that operator's ``F``, conjoined with the operand's, so the negation idiom of query (5)
            never blocks, E5).  Applied to the AST by :func:`ceplab.semantics.epsparql.translate.apply_options`.
        bgp_mode: A3, how a BGP chooses occurrences for two triple patterns that instantiate to the same
            triple: ``"per_pattern"`` (default: independently; a BGP is the Join of its triple patterns) or
            ``"per_triple"`` (one occurrence per distinct instantiated triple, E10).
        construct_unbound: A13b, a CONSTRUCT solution that leaves a template variable unbound:
            ``"drop_solution"`` (default, the printed ``var(P_q) ⊆ dom mu``: it contributes nothing) or
            ``"drop_triple"`` (SPARQL: only the template triples with an unbound variable are dropped).
        output: A10, ``"set"`` (default, the paper: rows are unique ``(mu|V, t_alpha, t_omega)``) or ``"bag"``
            (each projected row with the number of full rows projecting onto it, E4).
        filter_errors: A11, ``"three_valued"`` (default: SPARQL's error semantics, ``error && false = false``,
            ``error || true = true``, an error at the top drops the row) or ``"error_is_false"`` (every
            error-raising comparison is false where it occurs, so ``!`` of it is true).
        tick_seconds: A15, the length of one tick in seconds, for ``xsd:dateTime``/``xsd:duration`` literals
            (default 86400: one tick per day, as in the paper's examples, ``"P30D"`` = 30 ticks).  Durations
            with years or months are rejected (A15); a literal that is not a whole number of ticks is rejected.
    """

    optional_end: Literal["le", "strict"] = "le"
    srj_filter_interval: Literal["combined", "mandatory"] = "combined"
    lj_filter_interval: Literal["mandatory", "hull"] = "mandatory"
    optional_filter: Literal["operand", "group"] = "operand"
    bgp_mode: Literal["per_pattern", "per_triple"] = "per_pattern"
    construct_unbound: Literal["drop_solution", "drop_triple"] = "drop_solution"
    output: Literal["set", "bag"] = "set"
    filter_errors: Literal["three_valued", "error_is_false"] = "three_valued"
    tick_seconds: int = 86400

    def __post_init__(self) -> None:
        import typing

        hints = typing.get_type_hints(type(self))
        for name, tp in hints.items():
            v = getattr(self, name)
            if typing.get_origin(tp) is Literal:
                allowed = typing.get_args(tp)
                if v not in allowed:
                    raise ValueError(f"Options.{name} must be one of {allowed}, got {v!r}")
        if not isinstance(self.tick_seconds, int) or isinstance(self.tick_seconds, bool) or self.tick_seconds < 1:
            raise ValueError(f"Options.tick_seconds must be a positive integer, got {self.tick_seconds!r}")


PAPER_LITERAL = Options(optional_end="strict", srj_filter_interval="mandatory", lj_filter_interval="mandatory",
                        optional_filter="operand", bgp_mode="per_pattern", construct_unbound="drop_solution",
                        output="set", filter_errors="three_valued")
"""Every switch at the paper's printed reading (section 4.2 as printed): the regression profile of docs/semantics/epsparql.md#epsparql-8."""


def profile(name: str) -> Options:
    """A named switch profile: ``"default"`` (docs/semantics/epsparql.md's repaired readings) or ``"paper_literal"``.

    Raises:
        ValueError: an unknown profile name.
    """
    if name == "default":
        return Options()
    if name == "paper_literal":
        return replace(PAPER_LITERAL)
    raise ValueError(f"unknown EP-SPARQL profile {name!r}; known: default, paper_literal")
