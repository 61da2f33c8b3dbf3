"""Incremental ETALIS evaluator: event-driven backward chaining (docs/semantics/etalis.md#etalis-3, #etalis-9.5).

``evaluator(program, options)`` binarizes every event rule into one goal store per sub-pattern (the nodes of the
shared front end :mod:`ceplab.semantics.etalis.binarize`, docs/semantics/etalis.md#etalis-9.2) and returns an
:class:`ceplab.engine.etalis.evaluate.Evaluator`
with ``update(event)``, ``outputs()``, ``push(event) -> list``, ``close() -> list``, ``path`` and ``stats()``.
Results are ``(atom_text, start, end)``, each emitted exactly once.  Only the UNRESTRICTED consumption policy
(= the declarative minimal model, Figure 2) is implemented.
"""
from __future__ import annotations

from ceplab.semantics.etalis import ast as A
from ceplab.semantics.etalis.binarize import check_aggregates
from ceplab.semantics.etalis.options import Options

from ceplab.engine.etalis.evaluate import Evaluator, UnsupportedError

__all__ = ["Evaluator", "UnsupportedError", "evaluator"]


def evaluator(program: A.Program, options: Options = Options()):
    """The incremental evaluator of ``program`` under ``options``.

    ``options.policy == "unrestricted"``: :class:`ceplab.engine.etalis.evaluate.Evaluator` (the minimal model);
    any other policy: :class:`ceplab.engine.etalis.policy.PolicyEvaluator` (ETALIS-P, :mod:`ceplab.semantics.etalis.policies`).

    Under ``unrestricted`` with ``during_result="contained"`` and a program with both ``during`` and ``not``, the
    results a late blocker may still invalidate are held and decided at ``close()`` (outside the incremental
    guarantee; docs/semantics/etalis.md#etalis-9.5.9).

    Raises:
        UnsupportedError: floats or ``/``, or a construct the front end rejects (arithmetic in event patterns, A6
            negation clashes, aggregates with a contained DURING).
        ModelError: (from ``close()``) the program has no unique answer set on the stream, as the oracle reports.
    """
    check_aggregates(program, options)     # the switch values aggregates have no meaning under (both sides)
    if options.policy != "unrestricted":
        from ceplab.engine.etalis.policy import PolicyEvaluator

        return PolicyEvaluator(program, options)
    return Evaluator(program, options)
