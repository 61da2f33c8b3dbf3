"""Timeless background knowledge of an EP-SPARQL query (Anicic et al., WWW 2011, section 4: a static graph and an
RDFS ontology), attached to a parsed query set as :class:`WithBackground`.

Three sources: ``--background``/``--ontology`` Turtle files (:func:`with_background`, the CLI's language inputs); a
``# background: eustock`` line (the bundled real-data queries, :func:`bundled_background`); and inline comment lines
``# background graph: <s> <p> <o> .`` / ``# background ontology: ...`` in the query text (:func:`inline_background`;
generated fuzz cases and their reproducers carry their background this way).
"""
from __future__ import annotations

import dataclasses
import re
from typing import Any, Iterable

from ceplab.semantics.errors import ParseError


def bundled_background(qs: Any, text: str) -> Any:
    """A query file with the comment line ``# background: eustock`` (the bundled real-data queries) is evaluated
    with the bundled index metadata and RDFS ontology (:func:`ceplab.workbench.langs.epsparql.data.background`)."""
    from ceplab.workbench.langs.epsparql import data as epsparql_data

    if epsparql_data.needs_background(text):
        return WithBackground(qs, epsparql_data.background())
    return qs


#: Inline background knowledge in a query text (generated fuzz cases and their reproducers): one N-Triples triple
#: per comment line, ``# background graph: <s> <p> <o> .`` (static graph) or ``# background ontology: ...``.
_INLINE_BACKGROUND_RE = re.compile(r"^[ \t]*#[ \t]*background[ \t]+(graph|ontology):[ \t]*(.*?)[ \t]*$", re.M)


def background_comment(graph: Iterable[str], ontology: Iterable[str]) -> str:
    """The comment lines carrying inline background knowledge (N-Triples lines of the static graph and the
    ontology); :func:`inline_background` reads them back."""
    return "".join(f"# background {kind}: {line}\n" for kind, lines in (("graph", graph), ("ontology", ontology))
                   for line in lines)


def background_lines(text: str) -> dict[str, list[str]]:
    """The inline background of a query text as ``{"graph": [N-Triples lines], "ontology": [...]}`` (JSON
    reproducers)."""
    out: dict[str, list[str]] = {"graph": [], "ontology": []}
    for m in _INLINE_BACKGROUND_RE.finditer(text):
        out[m.group(1)].append(m.group(2))
    return out


def split_background(text: str) -> tuple[str, str]:
    """``(the inline background comment lines, the rest of the text)``."""
    head = "".join(m.group(0).strip() + "\n" for m in _INLINE_BACKGROUND_RE.finditer(text))
    return head, _INLINE_BACKGROUND_RE.sub("", text)


def inline_background(text: str, file: str | None = None) -> Any:
    """The :class:`ceplab.semantics.epsparql.streams.Background` written inline in a query text
    (:func:`background_comment`), or None when there is none.

    Raises:
        ParseError: a line that is not one N-Triples triple (file and line named).
    """
    from rdflib import Graph, Literal, URIRef

    from ceplab.semantics.epsparql.results import canonical_term
    from ceplab.semantics.epsparql.streams import Background
    from ceplab.semantics.rdfstream import _quiet_rdflib, check_iri

    graphs: dict[str, Any] = {}
    for m in _INLINE_BACKGROUND_RE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        g = Graph()
        try:
            with _quiet_rdflib():
                g.parse(data=m.group(2) + "\n", format="nt")
            if len(g) != 1:
                raise ValueError("expected exactly one triple")
            (tr,) = list(g)
            for t in tr:            # rdflib's N-Triples parser accepts IRIs no writer can write back
                iri = t if isinstance(t, URIRef) else t.datatype if isinstance(t, Literal) else None
                if iri is not None:
                    check_iri(str(iri))
            tr = (tr[0], tr[1], canonical_term(tr[2]))
        except Exception as e:  # noqa: BLE001 - rdflib raises several types
            msg = str(e).strip().splitlines()
            raise ParseError(f"background {m.group(1)} line: not one N-Triples triple "
                             f"({msg[0] if msg else type(e).__name__})", file or "<string>", line, 1) from None
        graphs.setdefault(m.group(1), Graph()).add(tr)
    if not graphs:
        return None
    return Background(graph=graphs.get("graph"), ontology=graphs.get("ontology"))


def attach_inline(qs: Any, text: str, file: str | None) -> Any:
    bg = inline_background(text, file)
    if bg is None:
        return qs
    return WithBackground(qs.qs if isinstance(qs, WithBackground) else qs, bg)



def background_json(text: str) -> Any:
    """``{"graph": [...], "ontology": [...]}`` (N-Triples lines) of a query text's inline background, or None."""
    bl = background_lines(text)
    return bl if bl["graph"] or bl["ontology"] else None


@dataclasses.dataclass(frozen=True)
class WithBackground:
    """A query set together with its timeless background knowledge (docs/semantics/epsparql.md#epsparql-A14): what ``ceplab run/compare
    --background G.ttl --ontology O.ttl`` evaluate.  ``qs``: the parsed :class:`QuerySet`; ``background``: a
    :class:`ceplab.semantics.epsparql.streams.Background`."""
    qs: Any
    background: Any

    def __str__(self) -> str:
        return str(self.qs)


def with_background(query: Any, graph_path: Any = None, ontology_path: Any = None) -> Any:
    """``query`` with the static graph and RDFS ontology read from Turtle files (either may be None).

    Raises:
        ceplab.semantics.errors.StreamError: a file that cannot be read or parsed (file and line named).
    """
    from ceplab.semantics.epsparql.streams import read_background

    if graph_path is None and ontology_path is None:
        return query
    qs = query.qs if isinstance(query, WithBackground) else query
    return WithBackground(qs, read_background(graph_path, ontology_path))


def unwrap(query: Any) -> tuple[Any, Any]:
    if isinstance(query, WithBackground):
        return query.qs, query.background
    return query, None
