"""Incremental SPAseq evaluator: the paper's automaton (Definition 17, Figs. 3-10) and run machinery
(Algorithms 1-2, section 7's optimisations) over the witness-based semantics of
docs/semantics/spaseq.md#spaseq-3.8 (Gillani, Zimmermann, Picard, Laforest, Semantic Web journal).

``evaluator(query, options, background)`` returns an :class:`ceplab.engine.spaseq.evaluate.Evaluator` with
``push(event) -> list[Match]``, ``close() -> list[Match]``, ``run(events)``, ``counters`` and ``automaton`` (the
networkx automaton in ``automaton.graph``).  Modules: :mod:`ceplab.engine.spaseq.gpm` (the GPM matcher: term
dictionary, per-event predicate index, compiled BGP joins, three-valued FILTERs with exact decimals, OPTIONAL,
UNION, GRAPH over precomputed background knowledge), :mod:`ceplab.engine.spaseq.automaton` (compilation),
:mod:`ceplab.engine.spaseq.evaluate` (runs, windows, strategies, emission).
"""
from __future__ import annotations

from typing import Optional

from ceplab.semantics.spaseq.ast import Query
from ceplab.semantics.spaseq.options import Options
from ceplab.semantics.spaseq.streams import Background

from ceplab.engine.spaseq.evaluate import Evaluator

__all__ = ["Evaluator", "evaluator"]


def evaluator(query: Query, options: Options = Options(), background: Optional[Background] = None) -> Evaluator:
    """The incremental evaluator of ``query`` under ``options`` (every semantic switch and every ``engine_*``
    option of :class:`ceplab.semantics.spaseq.options.Options` is honoured).

    Args:
        query: the SPAseq AST (``ceplab.semantics.spaseq.ast.Query``); WITHIN in ticks.
        options: semantic switches and engine optimisation options.
        background: the background dataset for ``GRAPH <g>`` patterns (None: empty).

    Raises:
        UnsupportedError: an AST the parser would have rejected (empty sequence, WITHIN < 1, a negated first
            element, adjacent ``!``/``?`` elements, only ``!``/``?`` elements, undefined or reused GPM names).
    """
    return Evaluator(query, options, background)
