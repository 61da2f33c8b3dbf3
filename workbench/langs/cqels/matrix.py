"""CQELS-CEP's translation for the cross-language matrix (docs/matrix.md#cqels).

Dao-Tran, Le-Phuoc, "Towards Enriching CQELS with Complex Event Processing and Path Navigation", CEUR-WS
Vol-1447, 2015 (docs/semantics/cqels.md).  CQELS-CEP answers, at every evaluation time ``t`` in ``[0, H]``, a set
of mappings with intervals; the translation binds one variable per core atom to the subject IRI of the event it
matched, and a result projects to the positions those IRIs name.

Stream.  The core event ``i`` = ``type(x)`` is the RDF stream element ``<g : [i, i]>`` on the stream ``:s`` whose
graph is ``{ :e<i> :type :<type> . :e<i> :x "x"^^xsd:integer }`` (``:`` = ``http://example.org/``): one event, one
graph, as the paper's footnote 3 models events.

Query.  One ``SELECT`` of the event variables ``?e0 ?e1 ..`` (one per positive atom, in order):

* ``a`` is the basic graph pattern ``{?eN :type :a}``; ``a[x OP k]`` is ``{?eN :type :a . ?eN :x ?xN FILTER(?xN OP
  k)}`` (FILTER is ceplab's extension, docs/semantics/cqels.md#cqels-2.6; the BGP lies in one element's graph,
  paper (16));
* ``OR`` of atoms (at any depth) is one BGP ``{?eN :type ?tN . ?eN :x ?xN FILTER((?tN = :a && ..) || ..)}``: the
  paper defines an ``OR`` operator on mappings but no syntax or evaluation rule uses it (§4.2; UNION is not in
  the fragment, docs/semantics/cqels.md#cqels-G24), so a disjunction is written as a FILTER over one event; an
  ``OR`` with a composite operand is not expressible;
* ``SEQ`` is the triple sequence pattern ``SEQ({..}, {..}, ..)`` inside one window block (paper §3.2, (10)-(11);
  strict order, hull interval); nested ``SEQ`` and ``NSEQ`` items are flattened (SEQ is associative,
  docs/semantics/cqels.md#cqels-P1);
* ``NSEQ(a, c, b)`` is ``SEQ({a}, !{c}, {b})``, the paper's SEQ_WO (formula (12)), with the switch
  ``wo_bounds = strict`` so that the negative must lie strictly between ``a`` and ``b`` (the core's meaning; the
  default ``closed`` reading of the lost relation, docs/semantics/cqels.md#cqels-G4, also blocks on a negative at
  the time of ``a`` or ``b``, i.e. when the negated atom matches ``a`` or ``b`` itself).  A sequence with two
  negations (``SEQ(NSEQ(..), NSEQ(..))``) puts each item in a window of its own and sequences the windows with
  an event-clause ``SEQ(:W0, :W1, ..)`` (paper (3)-(4)), since a triple sequence pattern has at most one
  negated element;
* ``AND(p, q)`` is two event clauses, one window each, which the paper joins with its JOIN (formula (2)); JOIN
  *intersects* the intervals (docs/semantics/cqels.md#cqels-G10), so this is not the core's "both occur in any
  order": two atomic events join only when their times are equal (in the core: when both atoms match the same
  event), and ``AND(SEQ(a, b), c)`` needs ``c`` inside ``[a, b]``.  The natural translation is kept, so the
  matrix shows the difference.

Windows.  Every event clause needs a window.  Without ``WITHIN`` every window is CQELS-QL's ``[ALL]`` (every
arrived element, docs/semantics/cqels.md#cqels-3.1): it covers the whole stream at every ``t``, so a match is
answered from its last event's time on, and the unwindowed core meaning holds on any stream (``query`` does not
see the stream, so a ``RANGE len(events)`` is not available; ``ALL``'s horizon is the last event's time).
``WITHIN n`` is ``[RANGE n]`` (slide 1) on every window: a match of atomic events is answered exactly at
``t`` in ``[b, a + n]`` (docs/semantics/cqels.md#cqels-P5), which is non-empty iff its span ``b - a <= n``.

Results.  The same match is answered at every ``t`` it lies in the windows; :meth:`CqelsTranslation.project`
keeps the distinct sets of positions, so a match counts once (the interval and the evaluation time are dropped).

Not expressible: ``PLUS`` (Kleene closure over events is future work in the paper; ``+``/``*`` exist only in
static paths, docs/semantics/cqels.md#cqels-G29); selections other than ``ALL`` (the paper has no selection or
consumption policy: every combination of events is a match, docs/semantics/cqels.md#cqels-G28); ``OR`` over a
composite pattern and ``AND`` or ``PLUS`` nested inside ``SEQ``/``OR`` (the paper's SEQ items are BGPs or windows,
and its only conjunction joins whole event clauses, §3.2).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import count
from typing import Any, Iterable, Sequence

from ceplab.workbench.matrix.core import And, Atom, CoreEvent, CoreQuery, NSeq, Or, Pattern, Plus, Seq
from ceplab.workbench.matrix.translate import NotExpressible

EX = "http://example.org/"
XSD_INT = "http://www.w3.org/2001/XMLSchema#integer"
STREAM = f"<{EX}s>"
_POS = re.compile(r"^<http://example\.org/e(\d+)>$")

_PLUS = ("plus", "Kleene closure over events is future work in the paper ('+' and '*' exist only in "
                 "static nSPARQL paths, docs/semantics/cqels.md#cqels-G29)")
_SELECTION = ("the paper has no selection or consumption policy: every combination of events is a match "
              "(skip-till-any-match, docs/semantics/cqels.md#cqels-G28)")


@dataclass
class _Q:
    """The query under construction: event variables (SELECT), windows (name -> TSP text), event clauses."""
    names: Any = field(default_factory=count)
    select: list = field(default_factory=list)
    windows: list = field(default_factory=list)     # (name, block text)
    clauses: list = field(default_factory=list)     # event-clause SEQ texts over window names


class CqelsTranslation:
    """:class:`ceplab.workbench.matrix.translate.Translation` for CQELS-CEP (module docstring)."""

    def query(self, q: CoreQuery) -> tuple[str, dict[str, str]]:
        """Raises :class:`NotExpressible` for ``PLUS``, selections other than ``ALL``, and composite operands of
        ``OR`` or nested ``AND`` (module docstring)."""
        if q.selection != "ALL":
            raise NotExpressible("sel:" + q.selection.lower(), _SELECTION)
        b = _Q()
        self._clauses(q.pattern, b)
        spec = "ALL" if q.window is None else f"RANGE {q.window}"
        lines = [f"PREFIX : <{EX}>", "SELECT " + " ".join(b.select)]
        lines += [f"FROM NAMED WINDOW :{n} ON :s [{spec}]" for n, _ in b.windows]
        lines.append("WHERE {")
        lines += [f"  WINDOW :{n} {{ {body} }}" for n, body in b.windows]
        lines += [f"  {c}" for c in b.clauses]
        lines.append("}")
        return "\n".join(lines) + "\n", {"wo_bounds": "strict"}

    # -------------------------------------------------------------------------------- event clauses (JOIN)
    def _clauses(self, p: Pattern, b: _Q) -> None:
        """``p`` as one or more event clauses (an ``AND`` is the JOIN of its operands' clauses)."""
        if isinstance(p, And):
            self._clauses(p.left, b)
            self._clauses(p.right, b)
            return
        units = self._units(p, b)
        if sum(len(u) == 3 for u in units) <= 1:
            self._window(b, self._tsp([it for u in units for it in u]))
            return
        # two or more negations: a triple sequence pattern has at most one negated element (paper section 3.2), so
        # each unit gets a window of its own and the windows are sequenced by an event-clause SEQ (paper (3)-(4))
        names = [self._window(b, self._tsp(u)) for u in units]
        b.clauses.append("SEQ(" + ", ".join(":" + n for n in names) + ")")

    @staticmethod
    def _window(b: _Q, body: str) -> str:
        name = f"W{len(b.windows)}"
        b.windows.append((name, body))
        return name

    @staticmethod
    def _tsp(items: list) -> str:
        """A triple sequence pattern: one BGP, or ``SEQ(..)`` of BGPs with at most one negated."""
        if len(items) == 1:
            return items[0][1][1:-1]
        return "SEQ(" + ", ".join(("!" if neg else "") + bgp for neg, bgp in items) + ")"

    def _units(self, p: Pattern, b: _Q) -> list:
        """``p`` as a flat sequence of units, each a list of ``(negated, "{BGP}")``: one positive BGP, or the three
        BGPs of an ``NSEQ`` (nested SEQs flattened: SEQ is associative)."""
        if isinstance(p, Seq):
            return [u for i in p.items for u in self._units(i, b)]
        if isinstance(p, NSeq):
            return [[(False, self._bgp(p.first, b)), (True, self._bgp(p.neg, b, positive=False)),
                     (False, self._bgp(p.last, b))]]
        return [[(False, self._bgp(p, b))]]

    def _bgp(self, p: Pattern, b: _Q, positive: bool = True) -> str:
        """An atom or an ``OR`` of atoms as one BGP over one event (module docstring)."""
        if isinstance(p, Plus):
            raise NotExpressible(*_PLUS)
        if isinstance(p, And):
            raise NotExpressible("nested:and", "the paper's only conjunction is the JOIN of whole event clauses "
                                 "(formula (2)); a SEQ item or an OR operand is one BGP (section 3.2)")
        n = next(b.names)
        e = f"?e{n}"
        if positive:
            b.select.append(e)
        if isinstance(p, Atom):
            text = f"{{{e} :type :{p.type}" + ("" if p.op is None else f" . {e} :x ?x{n} FILTER({self._cmp(p, n)})")
            text += "}"
        elif isinstance(p, Or):
            alts = list(self._alternatives(p))
            cond = " || ".join(f"(?t{n} = :{a.type}" + ("" if a.op is None else f" && {self._cmp(a, n)}") + ")"
                               for a in alts)
            text = f"{{{e} :type ?t{n} . {e} :x ?x{n} FILTER({cond})}}"
        else:
            raise TypeError(p)
        return text

    def _alternatives(self, p: Pattern):
        if isinstance(p, Or):
            yield from self._alternatives(p.left)
            yield from self._alternatives(p.right)
        elif isinstance(p, Atom):
            yield p
        elif isinstance(p, Plus):
            raise NotExpressible(*_PLUS)
        else:
            raise NotExpressible("or", f"an OR operand that is a {type(p).__name__.upper()} pattern cannot be "
                                 "written: the paper defines OR on mappings but no syntax or evaluation rule uses it "
                                 "(section 4.2; no UNION, docs/semantics/cqels.md#cqels-G24), so only a FILTER "
                                 "over one event expresses a disjunction")

    @staticmethod
    def _cmp(a: Atom, n: int) -> str:
        return f"?x{n} {a.op} {a.value}"

    # -------------------------------------------------------------------------------- stream, results
    def stream(self, events: Sequence[CoreEvent]) -> Any:
        """Event ``i`` = ``type(x)`` as the element ``{:e<i> :type :<type> . :e<i> :x x}`` on ``[i, i]``."""
        from ceplab.workbench import language
        return language.get("cqels").stream_from_json(
            [{"stream": STREAM, "start": i, "end": i,
              "triples": [[f"<{EX}e{i}>", f"<{EX}type>", f"<{EX}{e.type}>"],
                          [f"<{EX}e{i}>", f"<{EX}x>", f'"{e.x}"^^<{XSD_INT}>']]}
             for i, e in enumerate(events)])

    def project(self, results: Iterable[Any], events: Sequence[CoreEvent]) -> frozenset:
        """An answer ``(t, mapping, interval)`` -> the positions its event variables name; distinct over all
        evaluation times."""
        out = set()
        for r in results:
            pos = set()
            for _, term in r.mapping:
                m = _POS.match(term)
                if m:
                    pos.add(int(m.group(1)))
            out.add(frozenset(pos))
        return frozenset(out)

