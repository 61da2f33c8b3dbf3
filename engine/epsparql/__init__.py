"""Incremental EP-SPARQL evaluator (note epsparql.md sections 4, 9.2): event-driven backward chaining on
binarized goal stores under the declarative set semantics (no consumption, note A18).

``evaluator(qs, options)`` returns an :class:`engine.epsparql.evaluate.Evaluator` with ``push(occurrence) ->
list[Result]`` (the results of the ticks the occurrence closes), ``close() -> list[Result]``, ``run(occs)``,
``path`` and ``stats()``.  Results are :class:`semantics.epsparql.results.Row` (SELECT queries) and
:class:`semantics.epsparql.results.Derived` (occurrences added by CONSTRUCT rules); every result is emitted
exactly once, when the tick at which it ends closes.  ``evaluator(qs, options, background=Background(...))``
adds timeless background knowledge and RDFS entailment (note A14; see :mod:`engine.epsparql.evaluate`).
"""
from __future__ import annotations

from typing import Optional

from semantics.epsparql import ast as A
from semantics.epsparql.options import Options
from semantics.epsparql.streams import Background

from engine.epsparql.evaluate import Evaluator, NonStratifiedError, UnsupportedError

__all__ = ["Evaluator", "NonStratifiedError", "UnsupportedError", "evaluator"]


def evaluator(qs: A.QuerySet, options: Options = Options(), background: Optional[Background] = None) -> Evaluator:
    """The incremental evaluator of the query set ``qs`` under ``options`` (every switch of
    :class:`semantics.epsparql.options.Options` is honoured; ``optional_filter`` through the parser's
    ``translate.apply_options`` when present).

    Raises:
        UnsupportedError: empty groups (A20), blank nodes in patterns, ``(e AS ?v)`` with ``?v`` in scope.
        ValueError: ill-formed time literals (A15).
    """
    if isinstance(qs, (A.Select, A.Construct)):
        qs = A.QuerySet((qs,))
    return Evaluator(qs, options, background)
