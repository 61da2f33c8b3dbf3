"""Background knowledge of a SPAseq query (Definition 15 of Gillani et al.: the static dataset ``D`` that
``GRAPH <kb> { ... }`` patterns read), attached to a parsed query as :class:`SpaseqQuery`.

Sources: the ``--background KB`` file of ``ceplab run|compare`` (:func:`with_background`: Turtle for the query's
one ``FROM`` graph, TriG with one named graph per ``FROM <iri>``), and comment lines in the query text,
``# background <graph-iri>: <s> <p> <o> .`` (:func:`background_comment`; generated fuzz cases and their
reproducers carry their background this way, and ``render`` writes it back).
"""
from __future__ import annotations

import dataclasses
import re
from typing import Any, Iterable, Optional

from ceplab.semantics.errors import ParseError

_INLINE_RE = re.compile(r"^[ \t]*#[ \t]*background[ \t]+<([^<>\s]*)>:[ \t]*(.*?)[ \t]*$", re.M)


@dataclasses.dataclass(frozen=True)
class SpaseqQuery:
    """A parsed query with its background dataset: what ``oracle`` and ``evaluator`` receive.

    Attributes:
        query: the :class:`ceplab.semantics.spaseq.ast.Query`.
        background: a :class:`ceplab.semantics.spaseq.streams.Background`, or None.
    """
    query: Any
    background: Any = None

    def __str__(self) -> str:
        return str(self.query)


def background_comment(graph: str, lines: Iterable[str]) -> str:
    """Comment lines carrying background triples (N-Triples lines) of the graph ``graph`` (an IRI)."""
    return "".join(f"# background <{graph}>: {line}\n" for line in lines)


def background_lines(text: str) -> dict[str, list[str]]:
    """The inline background of a query text as ``{graph IRI: [N-Triples lines]}``."""
    out: dict[str, list[str]] = {}
    for m in _INLINE_RE.finditer(text):
        out.setdefault(m.group(1), []).append(m.group(2))
    return out


def inline_background(text: str, file: Optional[str] = None) -> Any:
    """The :class:`ceplab.semantics.spaseq.streams.Background` written inline in a query text, or None.

    Raises:
        ParseError: a comment line that is not one N-Triples triple (file and line named).
    """
    from rdflib import Graph, URIRef

    from ceplab.semantics.rdfstream import _quiet_rdflib
    from ceplab.semantics.spaseq.streams import Background, invalid_term

    graphs: dict[URIRef, list] = {}
    for m in _INLINE_RE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        g = Graph()
        try:
            with _quiet_rdflib():    # an ill-typed literal: rdflib would log a traceback on stderr
                g.parse(data=m.group(2) + "\n", format="nt")
            if len(g) != 1:
                raise ValueError("expected exactly one triple")
        except Exception as e:  # noqa: BLE001 - rdflib raises several types
            msg = str(e).strip().splitlines()
            raise ParseError(f"background line: not one N-Triples triple ({msg[0] if msg else type(e).__name__})",
                             file or "<string>", line, 1) from None
        bad = invalid_term([URIRef(m.group(1))], g)
        if bad is not None:
            raise ParseError(f"background line: {bad}", file or "<string>", line, 1)
        graphs.setdefault(URIRef(m.group(1)), []).extend(g)
    return Background(graphs) if graphs else None


def attach(query: Any, text: str, file: Optional[str]) -> SpaseqQuery:
    """``query`` (an AST) with the background written inline in ``text``."""
    return SpaseqQuery(query, inline_background(text, file))


def with_background(query: SpaseqQuery, path: Any) -> SpaseqQuery:
    """``query`` with the background read from ``path`` (``--background``), replacing any inline one.

    Raises:
        ceplab.semantics.errors.StreamError: a file that cannot be read or parsed, or a Turtle file for a query
            with no or several ``FROM`` graphs.
    """
    from ceplab.semantics.spaseq.streams import read_background

    return SpaseqQuery(query.query, read_background(path, query.query.graphs))


def render_background(bg: Any) -> str:
    """The comment lines of a background (sorted, so that rendering is deterministic)."""
    if bg is None:
        return ""
    from ceplab.semantics.rdfstream import nt_term

    out = []
    for g in sorted(bg.graphs, key=str):
        lines = sorted(" ".join(nt_term(t) for t in tr) + " ." for tr in bg.graphs[g])
        out.append(background_comment(str(g), lines))
    return "".join(out)


def background_json(text: str) -> Any:
    """``{graph IRI: [N-Triples lines]}`` of a query text's inline background, or None."""
    return background_lines(text) or None


def split_background(text: str) -> tuple[str, str]:
    """``(the inline background comment lines, the rest of the text)``."""
    head = "".join(m.group(0).strip() + "\n" for m in _INLINE_RE.finditer(text))
    return head, _INLINE_RE.sub("", text)


def render_query(query: Any) -> str:
    """The concrete syntax of a :class:`SpaseqQuery` (background as comment lines) or of a bare AST."""
    from ceplab.semantics.spaseq.parser import render as render_ast

    if isinstance(query, SpaseqQuery):
        return render_background(query.background) + render_ast(query.query)
    return render_ast(query)
