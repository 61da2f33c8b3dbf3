"""Incremental CEL evaluators (paper sections 6-7; docs/semantics/cel.md#cel-5 and #cel-10.3).

``evaluator(query, options)`` compiles the query's formula to a CEA (Theorem 3, after the
Theorem 1/2 rewrites) and returns the evaluator for its selection strategy:

    ALL, STRICT      ceplab.engine.cel.evaluate.DetEvaluator (Algorithm 1 + 4, Algorithm 8), the
                     generated path (``Options.engine_path == "generated"``, default), or
                     ceplab.engine.cel.interpret.InterpretedEvaluator, the interpreted reference
                     reading of the same algorithm (``engine_path == "interpreted"``)
    NXT, LAST, MAX   ceplab.engine.cel.strategies (Algorithms 5, 6, 7); these never generate code,
                     so ``engine_path`` does not change them (their ``path`` says so)

A formula the automaton compiler refuses (``UnsupportedError`` from
:func:`ceplab.engine.cel.compile.compile_formula`: e.g. a filter inside an iteration that reads a variable
bound after it, a filter over both sides of an AND whose binding order is open) is evaluated by
:class:`ceplab.engine.cel.runs.RunEvaluator` (binding runs, outside Theorem 3's constant-time
guarantee; docs/semantics/cel.md#cel-10.4), every strategy included, so the engine evaluates every
strongly well-formed query the oracle evaluates.

A query with nested strategies (docs/semantics/cel.md#cel-G5; only under ``Options(nested_strategies="compositional")``,
a ``ParseError`` otherwise) is evaluated compositionally by :class:`ceplab.engine.cel.nested.NestedEvaluator`, or,
when that refuses it (a block under AND, an outer formula the compiler refuses), by binding runs with one
sub-evaluator per block.

Every evaluator has ``update(event)``, ``outputs()``, ``push(event) -> list``, ``close() -> list``,
``path`` and ``stats()``; results are sorted position tuples, each emitted once at its last event.
"""
from __future__ import annotations

from ceplab.semantics.cel.analysis import check_nested_strategies
from ceplab.semantics.cel.ast import Query, has_nested
from ceplab.semantics.cel.options import Options
from ceplab.semantics.errors import UnsupportedError

from ceplab.engine.cel.compile import compile_formula, compile_query

__all__ = ["compile_formula", "compile_query", "evaluator", "evaluator_for_cea"]


def evaluator_for_cea(cea, strategy: str = "ALL", options: Options = Options(),
                      within: int | None = None):
    """The evaluator of ``strategy`` over an already compiled CEA (see :func:`evaluator`).

    Args:
        cea: a :class:`ceplab.engine.cel.automaton.CEA`.
        strategy: ``"ALL"``, ``"STRICT"``, ``"NXT"``, ``"LAST"`` or ``"MAX"``.
        options: CEL options; ``options.engine_path`` picks the generated or the interpreted path
            for ALL/STRICT.
        within: ``w`` of ``WITHIN w`` or None.

    Raises:
        UnsupportedError: a negative or non-integer window, an unknown strategy.
        ValueError: an unknown ``options.engine_path``.
    """
    if within is not None and (not isinstance(within, int) or within < 0):
        raise UnsupportedError(f"WITHIN {within}: the window must be a non-negative integer")
    engine_path = options.engine_path
    if engine_path not in ("generated", "interpreted"):
        raise ValueError(f"unknown engine_path {engine_path!r}; allowed: generated, interpreted")
    if strategy in ("ALL", "STRICT"):
        if engine_path == "interpreted":
            from ceplab.engine.cel.interpret import InterpretedEvaluator
            return InterpretedEvaluator(cea, options, within, strict=(strategy == "STRICT"))
        from ceplab.engine.cel.evaluate import DetEvaluator
        return DetEvaluator(cea, options, within, strict=(strategy == "STRICT"))
    if strategy in ("NXT", "LAST", "MAX"):
        from ceplab.engine.cel.strategies import make_evaluator

        ev = make_evaluator(cea, strategy, options, within)
        ev.path = (f"{ev.path} [interpreted: {strategy} has no generated code, "
                   f"engine_path={engine_path} runs this same evaluator]")
        return ev
    raise UnsupportedError(f"selection strategy {strategy!r} is not supported by the engine")


def evaluator(query: Query, options: Options = Options()):
    """An incremental evaluator for ``query`` (DESIGN.md section 3).

    Raises:
        UnsupportedError: a construct the engine cannot evaluate (the message names it): an
            unknown strategy, a negative window. Formulas that the automaton compiler (or, for nested
            strategies, :class:`~ceplab.engine.cel.nested.NestedEvaluator`) refuses run on
            :class:`ceplab.engine.cel.runs.RunEvaluator` instead.
        ParseError: a nested strategy under ``options.nested_strategies == "reject"`` (the
            default), or one that is not closed (docs/semantics/cel.md#cel-G5).
    """
    check_nested_strategies(query, options)
    if has_nested(query.formula):
        from ceplab.engine.cel.nested import NestedEvaluator
        try:
            return NestedEvaluator(query, options, evaluator=evaluator)
        except UnsupportedError as e:       # a block under AND, an outer formula the compiler refuses
            from ceplab.engine.cel.runs import RunEvaluator
            return RunEvaluator(query, options, reason=str(e), evaluator=evaluator)
    try:
        cea = compile_query(query)
    except UnsupportedError as e:
        from ceplab.engine.cel.runs import RunEvaluator
        return RunEvaluator(query, options, reason=str(e))
    return evaluator_for_cea(cea, query.strategy, options, query.within)
