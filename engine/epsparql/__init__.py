"""Incremental EP-SPARQL evaluator (docs/semantics/epsparql.md#epsparql-4, #epsparql-9.2): event-driven backward chaining on
binarized goal stores under the declarative set semantics (no consumption, docs/semantics/epsparql.md#epsparql-A18).

``evaluator(qs, options)`` returns an :class:`ceplab.engine.epsparql.evaluate.Evaluator` with ``push(occurrence) ->
list[Result]`` (the results of the ticks the occurrence closes), ``close() -> list[Result]``, ``run(occs)``,
``path`` and ``stats()``.  Results are :class:`ceplab.semantics.epsparql.results.Row` (SELECT queries) and
:class:`ceplab.semantics.epsparql.results.Derived` (occurrences added by CONSTRUCT rules); every result is emitted
exactly once, when the tick at which it ends closes.  ``evaluator(qs, options, background=Background(...))``
adds timeless background knowledge and RDFS entailment (docs/semantics/epsparql.md#epsparql-A14; see :mod:`ceplab.engine.epsparql.evaluate`).

ETALIS backend (:mod:`ceplab.engine.epsparql.etalis_backend`, paper section 5, docs/semantics/epsparql.md#epsparql-9.4): ``compile_to_etalis(qs)``
compiles the positive temporal core -- SELECT over BGP/Join (``and``), SEQ (``seq``), EQUALS (``equals``), UNION
(``or``) and FILTERs that an ETALIS ``where`` evaluates exactly (integer comparisons, IRI equality, BOUND, and
``getDURATION() < c`` / ``<= c`` as a window) -- into ETALIS rules, and ``EtalisBackedEvaluator`` runs them on the
ETALIS engine (unrestricted policy = minimal model = EP-SPARQL's set semantics).  The rest raises
``UnsupportedError`` and runs here, on the native EDBC evaluator of :mod:`ceplab.engine.epsparql.evaluate` (the same
goal-store architecture): the optional family (OPTIONAL, OPTIONALSEQ, EQUALSOPTIONAL) binds variables or not
and decides "no partner" non-monotonically, which ETALIS operators cannot express; three-valued filters on
strings, decimals or two variables, and the other time functions, need SPARQL's value ordering and the
instance's interval, which ETALIS conditions do not see; CONSTRUCT feeds derived triples back (Q-closure) and
RDFS entailment adds timeless background rows.
"""
from __future__ import annotations

from typing import Optional

from ceplab.semantics.epsparql import ast as A
from ceplab.semantics.epsparql.options import Options
from ceplab.semantics.epsparql.streams import Background

from ceplab.engine.epsparql.evaluate import Evaluator, NonStratifiedError, UnsupportedError

__all__ = ["EtalisBackedEvaluator", "Evaluator", "NonStratifiedError", "UnsupportedError", "compile_to_etalis",
           "evaluator"]


def __getattr__(name: str):
    """Lazy exports of the ETALIS backend (it imports the ETALIS engine, hence clingo, only when used)."""
    if name in ("EtalisBackedEvaluator", "compile_to_etalis"):
        from ceplab.engine.epsparql import etalis_backend

        return getattr(etalis_backend, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def evaluator(qs: A.QuerySet, options: Options = Options(), background: Optional[Background] = None) -> Evaluator:
    """The incremental evaluator of the query set ``qs`` under ``options`` (every switch of
    :class:`ceplab.semantics.epsparql.options.Options` is honoured; ``optional_filter`` through the parser's
    ``translate.apply_options`` when present).

    Raises:
        UnsupportedError: empty groups (A20), blank nodes in patterns, ``(e AS ?v)`` with ``?v`` in scope.
        ValueError: ill-formed time literals (A15).
    """
    if isinstance(qs, (A.Select, A.Construct)):
        qs = A.QuerySet((qs,))
    return Evaluator(qs, options, background)
