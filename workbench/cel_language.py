"""Registers CEL (Grez, Riveros, Ugarte, Bucchi, "Foundations of Complex Event Processing") as
``cel`` in :mod:`ceplab.workbench.languages`.

The record wires together the parser (:mod:`ceplab.semantics.cel.parser`), the switches
(:class:`ceplab.semantics.cel.options.Options`), the clingo oracle (:func:`ceplab.asp.cel.oracle`), the incremental
engine (:func:`ceplab.engine.cel.evaluator`), the canonical result form (:mod:`ceplab.semantics.cel.results`: a
complex event is the sorted tuple of its positions, emitted at its last position), the hypothesis
strategies and seeded generators (:mod:`ceplab.workbench.strategies`), the bundled real-data cases
(:func:`ceplab.workbench.data.real_cases`) and the paper's worked examples (``papers-check/cel``).

Heavy modules (clingo, the engine, hypothesis) are imported on first use.
"""
from __future__ import annotations

import random
from typing import Any

from ceplab.semantics.cel import results as R
from ceplab.semantics.cel.options import Options
from ceplab.semantics.events import read_stream
from ceplab.workbench.languages import Language, register


# The workbench parses before it knows the switches (``ceplab run --set ...``): nested strategies
# (note G5) are parsed here and accepted or rejected by the oracle and the engine, which check
# ``Options.nested_strategies`` themselves (a ParseError naming the switch, with line and column).
_PARSE_ALL = Options(nested_strategies="compositional")


def _parse(text: str, file: str | None = None) -> Any:
    from ceplab.semantics.cel.parser import parse

    return parse(text, file, options=_PARSE_ALL)


def _parse_file(path: Any) -> Any:
    from ceplab.semantics.cel.parser import parse_file

    return parse_file(path, options=_PARSE_ALL)


def _oracle(query: Any, stream: Any, options: Options, limits: Any) -> Any:
    from ceplab.asp.cel import oracle

    return oracle(query, stream, options, limits)


def _evaluator(query: Any, options: Options) -> Any:
    from ceplab.engine.cel import evaluator

    return evaluator(query, options)


def _deferred(query: Any, options: Options) -> bool:
    """MAX with ``max_scope=global`` is not streamable: the engine emits at ``close()``."""
    return getattr(query, "strategy", None) == "MAX" and options.max_scope == "global"


def _strategies() -> Any:
    from ceplab.workbench.strategies import CelStrategies

    return CelStrategies()


def _random_case(rng: random.Random, length: int) -> tuple[str, Any, Options]:
    """A seeded random case: the shared generator's (query, stream) plus random switches.

    A fraction :data:`P_NESTED` of the cases has one nested selection strategy
    (:func:`ceplab.workbench.strategies.random_nested_cel_case`) and runs under
    ``nested_strategies="compositional"``.  Rejection sampling keeps the case inside the engine's
    fragment: a query the engine refuses
    (``UnsupportedError``, e.g. a binary filter checked before its variables are bound) is redrawn
    from the same ``rng`` (at most 20 times), so the draw stays a function of the seed. Queries
    outside the fragment are the oracle's alone and are exercised by its own tests.
    """
    from ceplab.semantics.errors import UnsupportedError
    from ceplab.workbench.strategies import random_cel_case, random_nested_cel_case

    nested = rng.random() < P_NESTED
    base = Options(nested_strategies="compositional") if nested else Options()
    for _ in range(20):
        text, stream = random_nested_cel_case(rng, length) if nested else random_cel_case(rng, length)
        try:
            _evaluator(_parse(text), base)
        except UnsupportedError:
            continue
        break
    options = Options(max_scope="global" if rng.random() < 0.2 else "same_end",
                      nxt_output="top_ranked" if rng.random() < 0.2 else "marked",
                      nested_strategies=base.nested_strategies)
    return text, stream, options


#: Fraction of fuzz cases with a nested selection strategy (note G5, compositional reading).
P_NESTED = 0.15


def _real_cases() -> list:
    from ceplab.workbench.data import real_cases

    return real_cases()


def _paper_cases() -> list:
    from ceplab.workbench.papers import load_cases

    return load_cases("cel")


def _simplify(text: str, lang: Any = None) -> Any:
    from ceplab.workbench.shrink import cel_simplifications

    return cel_simplifications(text, lang)


def _parse_unchecked(text: str, file: str | None = None) -> Any:
    """Parse without the strong well-formedness check (oracle-only paper examples, note G3)."""
    from ceplab.semantics.cel.parser import parse

    return parse(text, file, check=False, options=_PARSE_ALL)


def _with_strategy(formula_text: str, strategy: str) -> str:
    """``STRATEGY(formula)``; ``ALL`` leaves the formula as it is."""
    return formula_text if strategy.upper() in ("ALL", "ANY") else f"{strategy}({formula_text})"


def _render(query: Any) -> str:
    return str(query)


def _factory() -> Language:
    return _LANG


_LANG = Language(
    name="cel",
    parse=_parse,
    parse_file=_parse_file,
    read_stream=read_stream,
    options=Options,
    oracle=_oracle,
    evaluator=_evaluator,
    result_to_json=R.to_json,
    result_end=R.end,
    strategies=_strategies,
    real_cases=_real_cases,
    paper_cases=_paper_cases,
    random_case=_random_case,
    extra={
        "deferred": _deferred,
        "simplify": _simplify,
        "render": _render,
        "parse_unchecked": _parse_unchecked,
        "with_strategy": _with_strategy,
        "result_from_json": R.from_json,
        "paper": "Grez, Riveros, Ugarte, Bucchi: Foundations of Complex Event Processing "
                 "(arXiv:1709.05369)",
    },
)

register("cel", _factory)
