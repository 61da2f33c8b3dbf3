"""CEL's translation for the cross-language matrix (docs/matrix.md#cel).

Grez, Riveros, Ugarte, Vansummeren, "A Formal Framework for Complex Event Recognition" (ICDT 2019 / TODS 2021;
docs/semantics/cel.md): a complex event is a set of positions, so results project to core matches as they are.

* ``a[x OP k]`` is ``a AS vN FILTER vN.x OP k`` (a fresh variable per atom);
* ``SEQ`` is ``;``, ``OR`` is ``OR``, ``PLUS(a)`` is ``(a AS vN ..)+``;
* ``WITHIN n`` is CEL's top-level ``WITHIN n`` (positions; core ticks are positions);
* selections: ``ALL`` -> ``ALL``, ``NEXT`` -> ``NXT`` (skip-till-next-match), ``STRICT`` -> ``STRICT`` (strict
  contiguity), ``LATEST`` -> ``LAST`` (the paper's last-match strategy, docs/semantics/cel.md);
* not expressible: ``AND`` (core-CEL has no conjunction; ceplab's ``AND`` extension, docs/semantics/cel.md#cel-G8,
  intersects complex-event sets, which is not "both occur"), ``NSEQ`` (core-CEL has no negation), ``EARLIEST``
  (no strategy prefers the earliest match).
"""
from __future__ import annotations

from itertools import count
from typing import Any, Iterable, Sequence

from ceplab.workbench.matrix.core import And, Atom, CoreEvent, CoreQuery, NSeq, Or, Pattern, Plus, Seq
from ceplab.workbench.matrix.translate import NotExpressible

_STRATEGY = {"ALL": "ALL", "NEXT": "NXT", "STRICT": "STRICT", "LATEST": "LAST"}


class CelTranslation:
    """:class:`ceplab.workbench.matrix.translate.Translation` for CEL (module docstring)."""

    def query(self, q: CoreQuery) -> tuple[str, dict[str, str]]:
        """Raises :class:`NotExpressible` for ``AND``, ``NSEQ`` and ``EARLIEST``."""
        if q.selection not in _STRATEGY:
            raise NotExpressible("sel:" + q.selection.lower(), "CEL's selection strategies (ALL, NXT, STRICT, LAST, "
                                 "MAX) have no earliest-match strategy")
        names = count()
        body = self._formula(q.pattern, names)
        within = "" if q.window is None else f" WITHIN {q.window}"
        return f"{_STRATEGY[q.selection]}({body}{within})", {}

    def _formula(self, p: Pattern, names) -> str:
        if isinstance(p, Atom):
            v = f"v{next(names)}"
            f = f"{p.type} AS {v}"
            return f if p.op is None else f"({f} FILTER {v}.x {p.op} {p.value})"
        if isinstance(p, Seq):
            return "(" + " ; ".join(self._formula(i, names) for i in p.items) + ")"
        if isinstance(p, Or):
            return f"({self._formula(p.left, names)} OR {self._formula(p.right, names)})"
        if isinstance(p, Plus):
            return f"({self._formula(p.atom, names)})+"
        if isinstance(p, And):
            raise NotExpressible("and", "core-CEL has no conjunction (ceplab's AND extension intersects complex-event "
                                 "sets, docs/semantics/cel.md#cel-G8, which is not 'both occur')")
        if isinstance(p, NSeq):
            raise NotExpressible("nseq", "core-CEL has no negation")
        raise TypeError(p)

    def stream(self, events: Sequence[CoreEvent]) -> Any:
        """Event ``i`` as ``{"type", "time": i, "attrs": {"x"}}``."""
        from ceplab.workbench import language
        return language.get("cel").stream_from_json(
            [{"type": e.type, "time": i, "attrs": {"x": e.x}} for i, e in enumerate(events)])

    def project(self, results: Iterable[Any], events: Sequence[CoreEvent]) -> frozenset:
        """A complex event (its sorted positions) is the core match."""
        return frozenset(frozenset(r) for r in results)
