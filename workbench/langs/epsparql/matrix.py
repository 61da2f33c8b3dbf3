"""EP-SPARQL's translation for the cross-language matrix (docs/matrix.md#epsparql).

Anicic, Fodor, Rudolph, Stojanovic, "EP-SPARQL: a unified language for event processing and stream reasoning",
WWW 2011 (docs/semantics/epsparql.md).  EP-SPARQL's results are solution mappings on intervals, so the
translation gives every core event its own subject IRI, which encodes the position, binds one variable per
event and SELECTs them; a result's mapping then names the positions the match used:

* the core event ``i`` = ``type(x)`` is the triple occurrence ``<ex:e{i}> <ex:{type}> x`` on ``[i, i]``
  (``ex:`` = ``http://example.org/``, ``x`` an ``xsd:integer``);
* the atom ``a[x OP k]`` is the group ``{ ?eN :a ?xN FILTER(?xN OP k) }`` (fresh ``?eN``, ``?xN`` per atom;
  no FILTER without a filter); the query is ``SELECT ?e0 .. ?ek WHERE { PATTERN }`` over the event variables of
  the positive atoms, and a row ``{eN: <ex:eI>, ..}`` projects to the positions ``{I, ..}`` of its bound
  ``?e`` variables (an unbound one, from the other side of a UNION, is absent from the row);
* ``SEQ(p1, .., pn)`` is ``{ P1 SEQ .. SEQ Pn }`` (``SeqJoin``, section 4.2: each operand ends strictly before
  the next starts, docs/semantics/epsparql.md#epsparql-A4);
* ``AND(p, q)`` is the juxtaposition ``{ P Q }``: a ``Join`` (section 4.2) of rows with no shared variable,
  i.e. both occur, in any order, on the hull of their intervals (the paper's BGP/Join = ETALIS AND,
  docs/semantics/epsparql.md#epsparql-9.4);
* ``OR(p, q)`` is ``{ P UNION Q }`` (``Union``, section 4.2); the branch not taken leaves its variables unbound,
  which the projection ignores, so no slot copying is needed (unlike ETALIS);
* ``NSEQ(a, c, b)`` is the paper's negation idiom through EQUALSOPTIONAL plus ``!BOUND`` (section 3, query (5);
  docs/semantics/epsparql.md#epsparql-E5, #epsparql-A12): ``{ { A SEQ B } EQUALSOPTIONAL { A SEQ C SEQ B }
  FILTER(!BOUND(?eC)) }`` where the optional copy reuses A's and B's variables (so it names the same two
  events) and must have the same interval ``[i, j]``; it is bound exactly when some ``c`` lies strictly between
  them, which is the core meaning (= ETALIS ``not(c).[a, b]``, docs/semantics/epsparql.md#epsparql-P6).  The
  group FILTER must filter after the operator (switch ``optional_filter = operand``, the default, set
  explicitly; under ``group`` the idiom never blocks, E5).  The OPTIONALSEQ idiom is *not* used: it blocks on a
  ``c`` at any time before ``b``, even before ``a`` (A12);
* ``WITHIN n`` is ``{ PATTERN FILTER(getDURATION() <= n) }`` at the top (section 3: EP-SPARQL has no window
  clause, windows are FILTERs on ``getDURATION()`` = end - start of the row's interval, which for point events
  is max - min of the positions used);
* not expressible: ``PLUS`` (the paper has no Kleene closure; iteration is only through recursive CONSTRUCT
  rules, queries (5)/(6), which derive aggregates, not the set of events a match used), and every selection
  but ``ALL`` (section 4.2 defines the set of all solutions; no selection strategies; ETALIS's consumption in
  section 5 is the implementation, not the semantics, docs/semantics/epsparql.md#epsparql-A18).

Results use the default switches otherwise (``output = set``: a row is a distinct mapping with its interval;
the mapping names every event used, so rows and core matches correspond one to one).
"""
from __future__ import annotations

from itertools import count
from typing import Any, Iterable, Sequence

from ceplab.workbench.matrix.core import And, Atom, CoreEvent, CoreQuery, NSeq, Or, Pattern, Plus, Seq
from ceplab.workbench.matrix.translate import NotExpressible

EX = "http://example.org/"
_XSD_INT = "http://www.w3.org/2001/XMLSchema#integer"
_EVENT_IRI = "<" + EX + "e"


class EpsparqlTranslation:
    """:class:`ceplab.workbench.matrix.translate.Translation` for EP-SPARQL (module docstring)."""

    def query(self, q: CoreQuery) -> tuple[str, dict[str, str]]:
        """Raises :class:`NotExpressible` for ``PLUS`` and every selection but ``ALL``."""
        if q.selection != "ALL":
            raise NotExpressible("sel:" + q.selection.lower(), "EP-SPARQL (WWW 2011, section 4.2) defines the set "
                                 "of all solutions and has no selection strategies (ETALIS's consumption in "
                                 "section 5 is the implementation, not the semantics)")
        names = count()
        body, selected, negation = self._pattern(q.pattern, names)
        if q.window is not None:
            body = f"{{ {body} FILTER(getDURATION() <= {q.window}) }}"
        text = f"PREFIX : <{EX}>\nSELECT {' '.join(selected)} WHERE {body}\n"
        return text, ({"optional_filter": "operand"} if negation else {})

    @staticmethod
    def _atom(a: Atom, n: int) -> str:
        flt = "" if a.op is None else f" FILTER(?x{n} {a.op} {a.value})"
        return f"{{ ?e{n} :{a.type} ?x{n}{flt} }}"

    def _pattern(self, p: Pattern, names) -> tuple[str, list[str], bool]:
        """``(group pattern, the selected event variables in order, whether it uses the negation idiom)``."""
        if isinstance(p, Atom):
            n = next(names)
            return self._atom(p, n), [f"?e{n}"], False
        if isinstance(p, Seq):
            parts = [self._pattern(i, names) for i in p.items]
            return ("{ " + " SEQ ".join(t for t, _, _ in parts) + " }", [v for _, vs, _ in parts for v in vs],
                    any(g for _, _, g in parts))
        if isinstance(p, (And, Or)):
            (lt, lv, lg), (rt, rv, rg) = self._pattern(p.left, names), self._pattern(p.right, names)
            op = " " if isinstance(p, And) else " UNION "
            return f"{{ {lt}{op}{rt} }}", lv + rv, lg or rg
        if isinstance(p, NSeq):
            f, c, b = next(names), next(names), next(names)
            fa, ca, ba = self._atom(p.first, f), self._atom(p.neg, c), self._atom(p.last, b)
            return (f"{{ {{ {fa} SEQ {ba} }} EQUALSOPTIONAL {{ {fa} SEQ {ca} SEQ {ba} }} FILTER(!BOUND(?e{c})) }}",
                    [f"?e{f}", f"?e{b}"], True)
        if isinstance(p, Plus):
            raise NotExpressible("plus", "EP-SPARQL (WWW 2011) has no Kleene closure: its only iteration is recursive "
                                 "CONSTRUCT rules (queries (5)/(6)), which derive aggregates, not the unbounded set "
                                 "of events a match used")
        raise TypeError(p)

    def stream(self, events: Sequence[CoreEvent]) -> Any:
        """Event ``i`` as ``<ex:e{i}> <ex:{type}> "x"^^xsd:integer`` on ``[i, i]``."""
        from ceplab.workbench import language
        return language.get("epsparql").stream_from_json(
            [{"s": f"<{EX}e{i}>", "p": f"<{EX}{e.type}>", "o": f'"{e.x}"^^<{_XSD_INT}>', "start": i, "end": i}
             for i, e in enumerate(events)])

    def project(self, results: Iterable[Any], events: Sequence[CoreEvent]) -> frozenset:
        """A row ``{eN: <ex:eI>, ..}`` -> ``{I, ..}`` (the bound event variables)."""
        out = set()
        for r in results:
            out.add(frozenset(int(t[len(_EVENT_IRI):-1]) for _, t in r.mapping if t.startswith(_EVENT_IRI)))
        return frozenset(out)
