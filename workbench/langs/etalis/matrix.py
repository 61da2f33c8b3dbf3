"""ETALIS's translation for the cross-language matrix (docs/matrix.md#etalis).

Anicic, Rudolph, Fodor, Stojanovic, "Real-time complex event recognition and reasoning - a logic programming
approach", Applied Artificial Intelligence 26(1-2), 2012 (docs/semantics/etalis.md).  ETALIS's results are
ground atoms on intervals, so the translation carries each event's position as its last argument and the rule
head collects the positions the match used:

* the core event ``i`` = ``type(x)`` is the ETALIS event ``type(x, i)`` on ``[i, i]``;
* the pattern becomes one rule ``m([P1, .., Pk]) <- BODY.`` whose head lists the position variables of the
  events the match used; ``a[x OP k]`` is ``(a(Xn,Pn) where Xn OP k)``, ``SEQ`` is ``seq``, ``AND`` is ``and``
  (both occur, any order; Figure 2), ``NSEQ(a, c, b)`` is ``not(c(..)).[a(..), b(..)]``, ``OR`` is ``or``: an
  ETALIS ``or`` keeps only the variables both branches bind (docs/semantics/etalis.md#etalis-9.2), so each branch
  copies its positions into the same fresh slot variables (``where S0 = P3, S1 = P4``), the shorter branch
  repeating its last position (a repeated position leaves the match, a set, unchanged).  One rule, not one per
  alternative: under a consumption policy each rule would consume on its own;
* ``WITHIN n`` is the window ``(BODY).n`` (hull length at most ``n`` ticks, switch ``window = at_most``);
* selections: ``ALL`` -> policy ``unrestricted`` (the paper's Figure 2 semantics); ``EARLIEST`` -> ``chronological``,
  ``LATEST`` -> ``recent`` (the consumption policies of ETALIS-P section 7, docs/semantics/etalis.md#etalis-9.6);
* not expressible: ``PLUS`` (ETALIS's iteration, section 4.3, builds chains whose head cannot collect an unbounded
  set of positions), ``NEXT`` and ``STRICT`` (ETALIS has consumption policies, no selection strategies).
"""
from __future__ import annotations

import re
from itertools import count
from typing import Any, Iterable, Sequence

from ceplab.workbench.matrix.core import And, Atom, CoreEvent, CoreQuery, NSeq, Or, Pattern, Plus, Seq
from ceplab.workbench.matrix.translate import NotExpressible

_POLICY = {"ALL": "unrestricted", "EARLIEST": "chronological", "LATEST": "recent"}
_OP = {"<": "<", "<=": "=<", ">": ">", ">=": ">=", "=": "=:=", "!=": "=\\="}
_INTS = re.compile(r"-?\d+")


class EtalisTranslation:
    """:class:`ceplab.workbench.matrix.translate.Translation` for ETALIS (module docstring)."""

    def query(self, q: CoreQuery) -> tuple[str, dict[str, str]]:
        """Raises :class:`NotExpressible` for ``PLUS``, ``NEXT`` and ``STRICT``."""
        if q.selection not in _POLICY:
            raise NotExpressible("sel:" + q.selection.lower(), "ETALIS has consumption policies (unrestricted, "
                                 "chronological, recent), not selection strategies")
        names = count()
        body, positions = self._pattern(q.pattern, names)
        if q.window is not None:
            body = f"({body}).{q.window}"
        return f"m([{','.join(positions)}]) <- {body}.", {"policy": _POLICY[q.selection]}

    @staticmethod
    def _atom(a: Atom, names, bind: bool = True) -> tuple[str, list[str]]:
        n = next(names)
        pos = f"P{n}" if bind else "_"
        text = f"{a.type}(_,{pos})" if a.op is None else f"({a.type}(X{n},{pos}) where X{n} {_OP[a.op]} {a.value})"
        return text, [pos] if bind else []

    def _pattern(self, p: Pattern, names) -> tuple[str, list[str]]:
        """``(ETALIS pattern, its position variables in order)``."""
        if isinstance(p, Atom):
            return self._atom(p, names)
        if isinstance(p, Seq):
            parts = [self._pattern(i, names) for i in p.items]
            return "(" + " seq ".join(t for t, _ in parts) + ")", [v for _, vs in parts for v in vs]
        if isinstance(p, And):
            (lt, lv), (rt, rv) = self._pattern(p.left, names), self._pattern(p.right, names)
            return f"({lt} and {rt})", lv + rv
        if isinstance(p, Or):
            (lt, lv), (rt, rv) = self._pattern(p.left, names), self._pattern(p.right, names)
            slots = [f"S{next(names)}" for _ in range(max(len(lv), len(rv)))]

            def copy(t: str, vs: list[str]) -> str:
                eqs = ", ".join(f"{s} = {vs[min(i, len(vs) - 1)]}" for i, s in enumerate(slots))
                return f"({t} where {eqs})"
            return f"({copy(lt, lv)} or {copy(rt, rv)})", slots
        if isinstance(p, NSeq):
            (ft, fv), (nt, _), (lt, lv) = (self._atom(p.first, names), self._atom(p.neg, names, False),
                                           self._atom(p.last, names))
            return f"not({nt}).[{ft}, {lt}]", fv + lv
        if isinstance(p, Plus):
            raise NotExpressible("plus", "ETALIS's iteration (section 4.3) builds chains; a rule head cannot collect "
                                 "the unbounded set of positions a Kleene+ match uses")
        raise TypeError(p)

    def stream(self, events: Sequence[CoreEvent]) -> Any:
        """Event ``i`` as ``type(x, i)`` on ``[i, i]``."""
        from ceplab.workbench import language
        return language.get("etalis").stream_from_json(
            [{"type": e.type, "args": [e.x, i], "time": i} for i, e in enumerate(events)])

    def project(self, results: Iterable[Any], events: Sequence[CoreEvent]) -> frozenset:
        """``(m([P1,..]), start, end)`` -> ``{P1, ..}``."""
        return frozenset(frozenset(int(v) for v in _INTS.findall(r[0])) for r in results)
