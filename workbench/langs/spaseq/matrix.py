"""SPAseq's translation for the cross-language matrix (docs/matrix.md#spaseq).

Gillani, Zimmermann, Picard, Laforest, "A query language for semantic complex event processing: Syntax, semantics
and implementation", Semantic Web journal (docs/semantics/spaseq.md).  A SPAseq query is ``SEQ(Psi_1 c_2 Psi_2 ..)``
over graph pattern matching expressions (GPMs), each ``Psi_j`` a GPM or a conjunction ``&`` / disjunction ``|`` of
GPMs matched at *one* timestamp (Definitions 7-9), the connectors ``c_j`` being ``:`` (skip-till-any,
Definition 10), ``;`` (skip-till-next, Definition 11) or ``,`` (strict contiguity, Definition 12), an element may be
``Psi+`` (Kleene+, Definitions 13-14) or ``Psi!`` (negation, Appendix B; its content is lost, ceplab's
reconstruction is docs/semantics/spaseq.md#spaseq-A18), and ``WITHIN`` is mandatory.

Stream.  The core event ``i`` = ``type(x)`` is one graph on the single stream ``<http://example.org/s>`` at time
``i``::

    <http://example.org/e{i}> a <http://example.org/{type}> ; <http://example.org/x> x .   (x an xsd:integer)

A SPAseq result lists its selected events as ``(stream, time)`` in witness order, every Kleene iteration included
(docs/semantics/spaseq.md#spaseq-3.8), and the time of a core event is its position, so a result projects to the
set of its event times.  (The subject IRI ``e{i}`` also carries the position into the result's mapping.)

Query.  ``PREFIX : <http://example.org/> SELECT * WITHIN w SECONDS FROM STREAM S :s WHERE SEQ(..) { DEFINE GPM ..}``:

* an atom ``t[x OP k]`` is a fresh GPM ``Gn ON S { ?en a :t ; :x ?xn . FILTER(?xn OP k) }`` (no FILTER and no
  ``:x`` triple without a filter); GPMs share no variable, so relevance in context and standalone agree
  (docs/semantics/spaseq.md#spaseq-A4) and no join constrains a match;
* ``SEQ(p1, .., pn)`` is ``SEQ(E1 c E2 .. c En)``, nested SEQs flattened, with one connector ``c`` for the
  selection: ``ALL`` -> ``:``, ``NEXT`` -> ``;``, ``STRICT`` -> ``,``;
* ``OR(l, r)`` with operands built from atoms, OR and AND is the disjunction ``(L | R)`` (Definition 9), ``AND(l,
  r)`` likewise the conjunction ``(L & R)`` (Definition 8); both are one SEQ element, always parenthesised;
* ``PLUS(a)`` is the element ``Gn+``; ``NSEQ(a, c, b)`` is ``Ga c Gc! c Gb`` (switch ``negation = between``: no
  ``c`` strictly between the selected ``a`` and ``b``; the connector before ``Gb`` joins ``a`` and ``b``, so under
  ``NEXT`` the ``b`` is the next ``b`` after the ``a`` and under ``STRICT`` the two are adjacent and the negation
  holds vacuously), flattened into the enclosing SEQ like a nested SEQ;
* ``WITHIN n`` is ``WITHIN n SECONDS`` (1 tick = 1 second, spaseq-A21) with ``window = anchored`` (the last selected
  event at most ``n`` ticks after the first: Algorithm 2's run-anchored check, the core meaning; the default
  tumbling windows of Definition 16 would cut matches at window boundaries); a query without a window gets
  ``WITHIN 1000000 SECONDS`` (:data:`NO_WINDOW`), longer than any core stream the matrix draws.

Not expressible:

* ``EARLIEST``, ``LATEST``: SPAseq's selection is the three connectors of Definitions 10-12, none of which
  prefers an earliest or latest match;
* ``OR``/``AND`` with a sequence (``SEQ``, ``PLUS``, ``NSEQ``) as operand, at any depth (construct
  ``nested:<operand>-in-<or|and>``): Definitions 8-9 (and the grammar of Definition 4) combine GPMs matched at one
  timestamp, a sequence is never an operand of ``|`` or ``&``.  (``PLUS`` and ``NSEQ`` as items of a ``SEQ`` are
  expressible: they become SEQ elements.)

Differences to the core meaning (kept on purpose, the matrix exists to show them):

* ``AND(l, r)``: SPAseq's conjunction holds at *one* timestamp (Definition 8), and a stream has at most one graph
  per timestamp (Definition 2), so both conjuncts must match the *same* event (docs/semantics/spaseq.md#spaseq-A9):
  ``AND(a, b)`` over distinct types never matches, ``AND(a, a[x>1])`` gives singletons;
* ``PLUS`` as the first element: its iterations are linked by skip-till-next whatever the selection
  (docs/semantics/spaseq.md#spaseq-A2, ``kleene_iter = same``: "`;` for a first element"), so ``ALL PLUS(a)`` gives
  only runs of consecutive ``a`` events among the ``a`` events (no ``a`` skipped), and ``STRICT PLUS(a)`` does not
  require contiguity; after another element the iterations use the connector written before ``Psi+``;
* ``NEXT`` is SPAseq's skip-till-next, which keeps *per first event* its next relevant partner
  (docs/semantics/spaseq.md#spaseq-6.1); CEL's NXT keeps per last event the earliest partner.
"""
from __future__ import annotations

from itertools import count
from typing import Any, Iterable, Sequence

from ceplab.workbench.matrix.core import And, Atom, CoreEvent, CoreQuery, NSeq, Or, Pattern, Plus, Seq
from ceplab.workbench.matrix.translate import NotExpressible

#: The core selection -> the SPAseq connector between sequence elements (Definitions 10-12).
CONNECTOR = {"ALL": ":", "NEXT": ";", "STRICT": ","}
#: The window (ticks) of a core query without ``WITHIN``: SPAseq's WITHIN is mandatory.
NO_WINDOW = 1_000_000
EX = "http://example.org/"
STREAM = EX + "s"
_XSD_INT = "http://www.w3.org/2001/XMLSchema#integer"
_RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"


class SpaseqTranslation:
    """:class:`ceplab.workbench.matrix.translate.Translation` for SPAseq (module docstring)."""

    def query(self, q: CoreQuery) -> tuple[str, dict[str, str]]:
        """Raises :class:`NotExpressible` for ``EARLIEST``, ``LATEST`` and for ``OR``/``AND`` over a sequence."""
        if q.selection not in CONNECTOR:
            raise NotExpressible("sel:" + q.selection.lower(),
                                 "SPAseq's selection is its three connectors (skip-till-any, skip-till-next, strict "
                                 "contiguity; Definitions 10-12), none of which keeps only the earliest or the "
                                 "latest match")
        conn = CONNECTOR[q.selection]
        gpms: list[str] = []
        names = count()
        elements = self._elements(q.pattern, gpms, names)
        seq = elements[0] + "".join(f" {conn} {e}" for e in elements[1:])
        window = NO_WINDOW if q.window is None else q.window
        text = "\n".join([f"PREFIX : <{EX}>", "SELECT *", f"WITHIN {window} SECONDS", "FROM STREAM S :s",
                          f"WHERE SEQ ({seq})", "{", *gpms, "}"])
        return text, {"window": "anchored", "negation": "between"}

    # ------------------------------------------------------------------ patterns
    def _elements(self, p: Pattern, gpms: list[str], names) -> list[str]:
        """The SEQ elements of ``p`` (a nested SEQ is flattened)."""
        if isinstance(p, Seq):
            return [e for i in p.items for e in self._elements(i, gpms, names)]
        if isinstance(p, Plus):
            return [self._gpm(p.atom, gpms, names) + "+"]
        if isinstance(p, NSeq):
            return [self._gpm(p.first, gpms, names), self._gpm(p.neg, gpms, names) + "!",
                    self._gpm(p.last, gpms, names)]
        return [self._bop(p, gpms, names)]

    def _bop(self, p: Pattern, gpms: list[str], names, parent: str = "") -> str:
        """A BOp expression (Definitions 7-9): GPMs under ``|`` and ``&``."""
        if isinstance(p, Atom):
            return self._gpm(p, gpms, names)
        if isinstance(p, (Or, And)):
            op, name = ("|", "or") if isinstance(p, Or) else ("&", "and")
            body = f"{self._bop(p.left, gpms, names, parent=name)} {op} {self._bop(p.right, gpms, names, parent=name)}"
            return f"({body})"
        raise NotExpressible(f"nested:{type(p).__name__.lower()}-in-{parent}",
                             "SPAseq's conjunction and disjunction (Definitions 8-9, the grammar of Definition 4) "
                             "combine GPMs matched at one timestamp; a sequence (SEQ, Kleene+, negation) is never "
                             "an operand of '&' or '|'")

    @staticmethod
    def _gpm(a: Atom, gpms: list[str], names) -> str:
        n = next(names)
        if a.op is None:
            body = f"?e{n} a :{a.type}"
        else:
            body = f"?e{n} a :{a.type} ; :x ?x{n} . FILTER (?x{n} {a.op} {a.value})"
        gpms.append(f"  DEFINE GPM G{n} ON S {{ {body} }}")
        return f"G{n}"

    # ------------------------------------------------------------------ stream and results
    def stream(self, events: Sequence[CoreEvent]) -> Any:
        """Event ``i`` as one graph at time ``i`` on ``:s`` (module docstring)."""
        from ceplab.workbench import language
        return language.get("spaseq").stream_from_json(
            [{"stream": STREAM, "time": i,
              "triples": [[f"<{EX}e{i}>", f"<{_RDF_TYPE}>", f"<{EX}{e.type}>"],
                          [f"<{EX}e{i}>", f"<{EX}x>", f'"{e.x}"^^<{_XSD_INT}>']]}
             for i, e in enumerate(events)])

    def project(self, results: Iterable[Any], events: Sequence[CoreEvent]) -> frozenset:
        """A match's selected event times (every Kleene iteration included) are the core match."""
        return frozenset(frozenset(int(t) for _, t in r.events) for r in results)
