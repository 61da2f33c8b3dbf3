"""A parsed CQELS-CEP query with its inputs beyond the stream: the static data ``D`` and the horizon ``H``
(docs/semantics/cqels.md#cqels-1.3, #cqels-3.8), as :class:`CqelsQuery`, the value the plugin's ``parse`` returns
and its ``oracle`` and ``evaluator`` receive.

Sources, later ones replacing earlier ones:

* comment lines in the query text (generated fuzz cases and their reproducers carry their inputs this way, and
  :func:`render_query` writes them back, so ``parse(render(q)) == q``)::

      # static <http://example.org/a> <http://example.org/p> <http://example.org/b> .
      # static@17 <http://example.org/a> <http://example.org/p> <http://example.org/c> .
      # static@30
      # until 26

  ``# static <s> <p> <o> .`` is one N-Triples triple of the version of ``D`` from time 0; ``# static@T <s> <p> <o>
  .`` one triple of the version from time ``T`` (each version is the whole of ``D`` from ``T`` until the next one);
  a bare ``# static@T`` declares a version from ``T`` that may be empty (``D`` is empty from ``T`` on).  ``# until
  H`` sets the horizon (an integer ``>= 0``; without it ``H`` is the default ``L + R``).  ``# static: stations``
  attaches the bundled stations-and-regions graph (:func:`ceplab.workbench.langs.cqels.data.static_data`; the
  real-data query files use it).  Other comment lines are ordinary comments;
* ``--static G.ttl`` (one version from 0) or ``--static G.trig`` (versions) and ``--until H`` of ``ceplab run|
  compare cqels`` (the language's ``Input``\\ s, :func:`with_static`, :func:`with_until`).

Normalisation: static data that is constant and empty is ``None`` (the contract's reading of ``static=None``), so
the two spellings of "no static data" compare equal.

The tick length (``Options.tick``, docs/semantics/cqels.md#cqels-G13) is a parser setting that is known only once the
switches are: :func:`resolve` parses the query text again with ``options.tick`` when it differs from the tick the
query was parsed with (rendered queries print ticks, so they mean the same under every tick).
"""
from __future__ import annotations

import dataclasses
import re
from typing import Any, Iterable, Optional

from ceplab.semantics.errors import ParseError

_IRI = r'<[^<>"{}|^`\\\x00-\x20]*>'
_TERM = (rf'(?:{_IRI}|_:[A-Za-z0-9_][A-Za-z0-9_.\-]*'
         rf'|"(?:[^"\\\n]|\\.)*"(?:@[A-Za-z]+(?:-[A-Za-z0-9]+)*|\^\^{_IRI})?)')
#: ``# static@T ...`` (group 1: T as written) or ``# static`` and a term (``<``, ``_:``, ``"``); group 2: the rest.
_STATIC_RE = re.compile(r'^[ \t]*#[ \t]*static(?:@(\S*)|(?=[ \t]+(?:<|_:|")))(.*)$', re.M)
_BUNDLED_RE = re.compile(r"^[ \t]*#[ \t]*static:[ \t]*(\S+)[ \t]*$", re.M)
_UNTIL_RE = re.compile(r"^[ \t]*#[ \t]*until[ \t]+(\S+)[ \t]*$", re.M)
_TRIPLE_RE = re.compile(rf"({_TERM})[ \t]+({_TERM})[ \t]+({_TERM})[ \t]*\.[ \t]*(?:#.*)?")


@dataclasses.dataclass(frozen=True)
class CqelsQuery:
    """A parsed query with its static data and horizon: what ``oracle`` and ``evaluator`` receive.

    Attributes:
        query: the :class:`ceplab.semantics.cqels.ast.Query`.
        static: a :class:`ceplab.semantics.cqels.streams.StaticData`, or None (no static data; a constant empty
            ``D`` is normalised to None).
        until: the horizon ``H`` (an integer ``>= 0``), or None for the default ``L + R``.
        tick: the tick length the text was parsed with (not part of equality).
        source: the query text it was parsed from, or None (not part of equality; :func:`resolve` re-parses it).

    Raises:
        ValueError: ``until`` that is not an integer ``>= 0``.
    """
    query: Any
    static: Any = None
    until: Optional[int] = None
    tick: str = dataclasses.field(default="1m", compare=False)
    source: Optional[str] = dataclasses.field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.until is not None and (isinstance(self.until, bool) or not isinstance(self.until, int)
                                       or self.until < 0):
            raise ValueError(f"until must be an integer >= 0, got {self.until!r}")
        st = self.static
        if st is not None and st.is_constant and not st.versions[0].triples:
            object.__setattr__(self, "static", None)

    def __str__(self) -> str:
        return render_query(self)


# ------------------------------------------------------------------------------------------------ comment lines
def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _parse_triple(body: str, file: Optional[str], line: int, column: int) -> tuple:
    from rdflib.term import BNode, Literal, URIRef

    from ceplab.semantics.cqels.ast import NUMERIC_TYPES, numeric_value
    from ceplab.semantics.rdfstream import parse_nt_term

    m = _TRIPLE_RE.fullmatch(body)
    if not m:
        raise ParseError("static line: expected one N-Triples triple '<s> <p> <o> .'", file or "<string>", line,
                         column)
    terms = []
    for k in (1, 2, 3):
        try:
            terms.append(parse_nt_term(m.group(k)))
        except ValueError as e:
            raise ParseError(f"static line: {e}", file or "<string>", line, column + m.start(k)) from None
    s, p, o = terms
    if not isinstance(s, (URIRef, BNode)) or not isinstance(p, URIRef):
        raise ParseError("static line: the subject is an IRI or a blank node and the predicate an IRI",
                         file or "<string>", line, column)
    if isinstance(o, Literal) and o.datatype in NUMERIC_TYPES and numeric_value(o) is None:
        raise ParseError(f"static line: ill-typed literal {m.group(3)} (not a lexical form of its numeric "
                         "datatype)", file or "<string>", line, column + m.start(3))
    return s, p, o


def inline_static(text: str, file: Optional[str] = None) -> Any:
    """The static data written in a query text (``# static ...`` lines, or ``# static: stations``), or None.

    Raises:
        ParseError: a line that is not one N-Triples triple, an ill-typed numeric literal, an unknown bundled
            graph, or both a bundled graph and inline triples (file and line named).
    """
    from ceplab.semantics.cqels.streams import StaticData

    bundled = list(_BUNDLED_RE.finditer(text))
    lines = list(_STATIC_RE.finditer(text))
    if bundled:
        m = bundled[0]
        line = _line_of(text, m.start())
        if len(bundled) > 1 or lines:
            raise ParseError("static data given twice: one '# static: NAME' line, or '# static <s> <p> <o> .' "
                             "lines, not both", file or "<string>", _line_of(text, (bundled[1] if len(bundled) > 1
                                                                                    else lines[0]).start()), 1)
        name = m.group(1)
        if name != "stations":
            raise ParseError(f"unknown bundled static graph {name!r} (known: stations)", file or "<string>", line,
                             m.start(1) - m.start() + 1)
        from ceplab.workbench.langs.cqels.data import static_data

        return static_data()
    if not lines:
        return None
    versions: dict[int, list] = {}
    for m in lines:
        line = _line_of(text, m.start())
        since = 0
        if m.group(1) is not None:
            if not re.fullmatch(r"[0-9]+", m.group(1)):
                raise ParseError(f"'# static@T': T is an integer >= 0, got {m.group(1)!r}", file or "<string>",
                                 line, m.start(1) - m.start() + 1)
            since = int(m.group(1))
        versions.setdefault(since, [])
        body = m.group(2).strip()
        if body:
            col = m.start(2) - m.start() + 1 + (len(m.group(2)) - len(m.group(2).lstrip()))
            versions[since].append(_parse_triple(body, file, line, col))
        elif m.group(1) is None:  # pragma: no cover - the lookahead needs a term
            raise ParseError("'# static' needs a triple", file or "<string>", line, 1)
    return StaticData(sorted(versions.items()))


def inline_until(text: str, file: Optional[str] = None) -> Optional[int]:
    """The horizon of a ``# until H`` line, or None.

    Raises:
        ParseError: ``H`` not an integer ``>= 0``, or two such lines.
    """
    ms = list(_UNTIL_RE.finditer(text))
    if not ms:
        return None
    if len(ms) > 1:
        raise ParseError("two '# until' lines", file or "<string>", _line_of(text, ms[1].start()), 1)
    m = ms[0]
    if not re.fullmatch(r"[0-9]+", m.group(1)):
        raise ParseError(f"'# until H' needs an integer >= 0, got {m.group(1)!r}", file or "<string>",
                         _line_of(text, m.start()), m.start(1) - m.start() + 1)
    return int(m.group(1))


def static_lines(static: Any) -> list[str]:
    """The comment lines of static data, versions in time order, triples sorted (deterministic)."""
    if static is None:
        return []
    from ceplab.semantics.rdfstream import nt_term

    out = []
    for k, v in enumerate(static.versions):
        tag = "# static" if v.since == 0 else f"# static@{v.since}"
        triples = sorted(" ".join(nt_term(x) for x in t) + " ." for t in v.triples)
        if not triples and k > 0:
            out.append(tag)
        out += [f"{tag} {t}" for t in triples]
    return out


def static_json(text: str) -> Optional[dict]:
    """``{"since": [N-Triples lines]}`` of a query text's inline static data (a reproducer's extra), or None."""
    static = inline_static(text)
    if static is None:
        return None
    from ceplab.semantics.rdfstream import nt_term

    return {str(v.since): sorted(" ".join(nt_term(x) for x in t) + " ." for t in v.triples)
            for v in static.versions}


def split_inputs(text: str) -> tuple[str, str]:
    """``(the static and until comment lines of text, the rest of the text)``."""
    head = []
    for rx in (_STATIC_RE, _BUNDLED_RE, _UNTIL_RE):
        head += [(m.start(), m.group(0).strip() + "\n") for m in rx.finditer(text)]
    body = text
    for rx in (_STATIC_RE, _BUNDLED_RE, _UNTIL_RE):
        body = rx.sub("", body)
    return "".join(h for _, h in sorted(head)), body


def render_inputs(static: Any, until: Optional[int]) -> str:
    """The comment lines that carry ``static`` and ``until``."""
    lines = static_lines(static)
    if until is not None:
        lines.append(f"# until {until}")
    return "".join(x + "\n" for x in lines)


def render_query(query: Any) -> str:
    """The concrete syntax of a :class:`CqelsQuery` (static data and horizon as comment lines) or of a bare AST."""
    from ceplab.semantics.cqels.parser import render as render_ast

    if isinstance(query, CqelsQuery):
        return render_inputs(query.static, query.until) + render_ast(query.query)
    return render_ast(query)


# ------------------------------------------------------------------------------------------------ parsing
def parse_query(text: str, file: Optional[str] = None, *, tick: Optional[str] = None) -> CqelsQuery:
    """A query text with its inline static data and horizon (module docstring).

    Raises:
        ParseError: with file, line and column (the query, a static line, an until line).
    """
    from ceplab.semantics.cqels.options import Options
    from ceplab.semantics.cqels.parser import parse as parse_ast

    tick = Options().tick if tick is None else tick
    q = parse_ast(text, file, tick=tick)
    return CqelsQuery(q, inline_static(text, file), inline_until(text, file), tick, text)


def resolve(query: Any, options: Any) -> CqelsQuery:
    """``query`` as a :class:`CqelsQuery` whose AST was parsed with ``options.tick`` (re-parsed from its source
    when it was parsed with another tick; a bare AST is wrapped as it is).

    Raises:
        ParseError: a duration of the query that is not a whole number of ticks of ``options.tick``.
    """
    if not isinstance(query, CqelsQuery):
        return CqelsQuery(query)
    tick = getattr(options, "tick", query.tick)
    if tick == query.tick or query.source is None:
        return query
    from ceplab.semantics.cqels.parser import parse as parse_ast

    return dataclasses.replace(query, query=parse_ast(query.source, None, tick=tick), tick=tick)


def with_static(query: CqelsQuery, path: Any) -> CqelsQuery:
    """``query`` with the static data read from ``path`` (``--static``: Turtle, or TriG for versions), replacing
    any inline static data.

    Raises:
        ceplab.semantics.errors.StreamError: an unreadable or malformed file (file, line and column).
    """
    from ceplab.semantics.cqels.streams import read_static

    if not isinstance(query, CqelsQuery):
        query = CqelsQuery(query)
    return dataclasses.replace(query, static=read_static(path))


def with_until(query: CqelsQuery, until: Any) -> CqelsQuery:
    """``query`` with the horizon ``until`` (``--until H``), replacing any ``# until`` line.

    Raises:
        ceplab.semantics.errors.InputError: ``until`` not an integer ``>= 0``.
    """
    from ceplab.semantics.errors import InputError

    if not isinstance(query, CqelsQuery):
        query = CqelsQuery(query)
    if isinstance(until, bool) or not isinstance(until, int) or until < 0:
        raise InputError(f"needs an integer >= 0, got {until!r}", "--until")
    return dataclasses.replace(query, until=until)


def unwrap(query: Any) -> tuple[Any, Any, Optional[int]]:
    """``(AST, static data or None, until or None)`` of a :class:`CqelsQuery` or a bare AST."""
    if isinstance(query, CqelsQuery):
        return query.query, query.static, query.until
    return query, None, None


__all__: Iterable[str] = ["CqelsQuery", "parse_query", "render_query", "resolve", "with_static", "with_until",
                          "unwrap", "inline_static", "inline_until", "static_lines", "static_json", "split_inputs",
                          "render_inputs"]
