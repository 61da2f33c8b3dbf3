"""Incremental CQELS-CEP evaluator (docs/semantics/cqels.md#cqels-8).

``evaluator(query, options, static, until=...)`` returns an :class:`~ceplab.engine.cqels.evaluate.Evaluator`:
``push(element) -> list[Answer]`` returns the snapshots ``[[Q, t]]`` of every time point ``t`` that the element's
arrival closes (``t < a(e)``, up to the horizon), ``close() -> list[Answer]`` the remaining ones up to the horizon
``H`` (docs/semantics/cqels.md#cqels-3.8); each call's list is sorted by ``results.sort_key``.  ``run`` pushes a
whole stream in arrival order.

The evaluator maintains window contents, leaf matches (computed once per element), partial and complete sequences
with their witnesses, negations with blocker counts, the JOIN of the event clauses and the static part (paths once
per version of ``D``) as time advances; see :mod:`ceplab.engine.cqels.evaluate`.  It implements the semantics of
docs/semantics/cqels.md#cqels-3 under every switch of :class:`ceplab.semantics.cqels.options.Options` and every
window kind.
"""
from __future__ import annotations

from typing import Iterable, Optional

from ceplab.semantics.cqels.ast import Query
from ceplab.semantics.cqels.options import Options
from ceplab.semantics.cqels.results import Answer
from ceplab.semantics.cqels.streams import StaticData, arrival_order
from ceplab.semantics.rdfstream import StreamElement

from ceplab.engine.cqels.evaluate import Evaluator

__all__ = ["Evaluator", "evaluator", "run"]


def evaluator(query: Query, options: Options = Options(), static: Optional[StaticData] = None, *,
              until: Optional[int] = None) -> Evaluator:
    """The incremental evaluator of ``query`` over static data ``static`` (None: empty) with horizon ``until``
    (None: ``L + R`` at ``close()``).

    Raises:
        ValueError: ``until`` not an integer ``>= 0``.
    """
    return Evaluator(query, options, static, until)


def run(query: Query, elements: Iterable[StreamElement], options: Options = Options(),
        static: Optional[StaticData] = None, until: Optional[int] = None) -> list[Answer]:
    """Every answer ``[[Q, t]]`` for ``t`` in ``[0, H]``: the elements pushed in ``arrival_order``, then ``close()``;
    the concatenation of what the calls return (sorted by ``results.sort_key``)."""
    ev = evaluator(query, options, static, until=until)
    out: list[Answer] = []
    for e in arrival_order(elements, options):
        out.extend(ev.push(e))
    out.extend(ev.close())
    return out
