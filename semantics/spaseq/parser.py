"""Parser and printer for SPAseq queries (docs/semantics/spaseq.md#spaseq-2.2), producing
:mod:`ceplab.semantics.spaseq.ast` values.

A query file (Gillani et al., section 4.2, Query 1; Definition 4)::

    PREFIX : <http://example.org/>                 # PREFIX / BASE lines, optional
    SELECT ?p1 ?s                                  # or SELECT *
    WITHIN 60 MINUTES                              # SECOND(S) | MINUTE(S) | HOUR(S); 1 tick = 1 second
    FROM STREAM S1 :pw                             # one or more; the alias is used by DEFINE ... ON
    FROM STREAM S2 <http://example.org/wt>
    FROM <http://example.org/kb>                   # zero or more background graphs (GRAPH <iri> { })
    WHERE SEQ (A ; B+ , C!)
    {
      DEFINE GPM A ON S1 { ?h :price ?p1 }
      DEFINE GPM B ON S2 { ?w :wind ?s FILTER (?s >= 5) }
      DEFINE GPM C ON S1, S2 { ?h :price ?p2 FILTER (?p2 < ?p1) }
    }

Keywords are case-insensitive (except ``a``, ``true``, ``false``).  ``rdf:``, ``rdfs:``, ``xsd:`` and
``owl:`` are predeclared; every other prefix must be declared.  The grammar is ``grammar.lark`` (lark LALR).

SEQ elements are BOp expressions (a GPM name, ``(...)``, ``&`` conjunction, ``|`` disjunction; ``&`` binds
tighter than ``|``, both fold left) separated by the connectors ``,`` (strict contiguity), ``;``
(skip-till-next) and ``:`` (skip-till-any), each with at most one postfix modifier ``+`` (Kleene+), ``!``
(negation) or ``?`` (optional).  A modifier follows a name or a parenthesised expression: ``(A | B)+``.

GPM bodies are SPARQL 1.1 group graph patterns (triples blocks with ``;``, ``,`` and ``a``; ``FILTER``;
``OPTIONAL``; ``UNION``; nested groups; ``GRAPH <iri> { }``), translated as SPARQL 1.1 section 18.2.2.6
does: the elements of a group fold left with ``Join`` (``Join(Z, A) = A`` and ``Join(A, Z) = A`` for the empty
group ``Z = BGP(())``), adjacent triples blocks separated only by FILTERs form one ``BGP``, ``OPTIONAL {P}``
becomes ``LeftJoin(G, A, F)`` with ``F`` the conjunction of the FILTERs of ``P``'s own group (``None`` when it
has none), and the FILTERs of a group are conjoined (``And``, folded left, in text order) into one ``Filter``
over the whole group.  Literals keep their lexical form (as rdflib normalises it, like the stream readers):
``14.0`` is ``"14.0"^^xsd:decimal``, ``1.5E2`` an ``xsd:double``, ``-5`` before a number is part of the number.

Expressions are two-sorted (docs/semantics/spaseq.md#spaseq-2.2): *conditions* (``= != < <= > >=``, ``&&``,
``||``, ``!``, ``BOUND(?v)``) and *values* (variables, literals, IRIs, ``+``, ``-``, unary minus).  A FILTER
and the operands of ``&& || !`` are conditions; the operands of comparisons and arithmetic are values.

Rejected with a :class:`ceplab.semantics.errors.ParseError` carrying file, line and column of the culprit
(docs/semantics/spaseq.md#spaseq-2.2): every syntax error; ``*`` and ``/``; a FILTER (or an operand of
``&& || !``) that is not a condition, or a condition used as a value; unary ``+`` other than a number's sign;
blank nodes (``_:b``, ``[]``, ``[ p o ]``) in patterns; a literal subject or predicate; ``!`` on the first
element; two adjacent elements both with ``!`` or ``?``; a SEQ whose every element has ``!`` or ``?``; a GPM
name undefined, defined twice or used twice in SEQ; an ON alias not declared by FROM STREAM (or listed twice);
an alias or a FROM graph declared twice; no FROM STREAM; ``GRAPH <g>`` without ``FROM <g>``; ``WITHIN 0`` or a
non-integer window; a SELECT variable listed twice or not occurring in any GPM the SEQ uses; an unknown prefix;
a bad string escape; nesting deeper than :data:`MAX_DEPTH`.

:func:`render` prints a query back (full IRIs, N-Triples-style escaped literals) so that ``parse(render(q)) ==
q`` for every query :func:`parse` returns.
"""
from __future__ import annotations

import logging
import re
import warnings
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Iterator, Optional, Union
from urllib.parse import urljoin

from lark import Lark, Token, Transformer, Tree, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError
from rdflib import OWL, RDF, RDFS, XSD
from rdflib.term import Literal, URIRef, Variable

from ceplab.semantics.errors import ParseError
from ceplab.semantics.spaseq import ast as A

_GRAMMAR = Path(__file__).with_name("grammar.lark").read_text(encoding="utf-8")

#: Prefixes available without a declaration.
DEFAULT_PREFIXES: dict[str, str] = {"rdf": str(RDF), "rdfs": str(RDFS), "xsd": str(XSD), "owl": str(OWL)}
#: Ticks (seconds) per window unit.
UNITS: dict[str, int] = {"SECOND": 1, "MINUTE": 60, "HOUR": 3600}
#: The deepest parse tree accepted (nested groups, parentheses); deeper text is a ParseError, not a
#: RecursionError.
MAX_DEPTH = 200

_ESC = {"t": "\t", "n": "\n", "r": "\r", "b": "\b", "f": "\f", '"': '"', "'": "'", "\\": "\\"}
_CONDITIONS = (A.Cmp, A.And, A.Or, A.Not, A.Bound)
_VALUES = (A.Var, A.Const, A.Arith, A.Neg)
_BNODE = object()        # marker: a blank node in a pattern (rejected where the triple is built)


@lru_cache(maxsize=1)
def _lark() -> Lark:
    """The lark parser, built once per process."""
    return Lark(_GRAMMAR, parser="lalr", lexer="contextual", propagate_positions=True, start="start")


@contextmanager
def _quiet_rdflib() -> Iterator[None]:
    # rdflib logs a traceback (and warns) for ill-typed literals ("abc"^^xsd:integer), which are legal terms here
    log = logging.getLogger("rdflib.term")
    old = log.level
    log.setLevel(logging.CRITICAL)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        log.setLevel(old)


def _tp(tok) -> A.Pos:
    line = getattr(tok, "line", None)
    return (line, tok.column) if isinstance(line, int) and line > 0 else None


def _mp(meta) -> A.Pos:
    if meta is None or getattr(meta, "empty", True):
        return None
    return (meta.line, meta.column)


def _err(msg: str, pos: A.Pos) -> ParseError:
    return ParseError(msg, None, *(pos or (None, None)))


def _unescape(body: str, pos: A.Pos) -> str:
    def rep(m: re.Match) -> str:
        s = m.group(0)
        if s[1] in "uU" and len(s) == 2:
            raise _err(f"escape \\{s[1]} needs {4 if s[1] == 'u' else 8} hexadecimal digits", pos)
        if s[1] in "uU":
            cp = int(s[2:], 16)
            if cp > 0x10FFFF or 0xD800 <= cp <= 0xDFFF:
                raise _err(f"escape {s} is not a Unicode scalar value", pos)
            return chr(cp)
        if s[1] in _ESC:
            return _ESC[s[1]]
        raise _err(f"unknown escape sequence {s!r} in a string (known: \\t \\n \\r \\b \\f \\\" \\' \\\\ "
                   "\\uXXXX \\UXXXXXXXX)", pos)
    return re.sub(r"\\(u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)", rep, body, flags=re.S)


def _is_z(p: A.Pattern) -> bool:
    """The empty group ``Z`` (SPARQL 1.1 section 18.2.2.6)."""
    return isinstance(p, A.BGP) and not p.triples


def _conj(es: list[A.Expr]) -> A.Expr:
    out = es[0]
    for e in es[1:]:
        out = A.And(out, e, pos=out.pos)
    return out


def _describe_expr(e: A.Expr) -> str:
    if isinstance(e, A.Var):
        return f"the variable ?{e.var}"
    if isinstance(e, A.Const):
        return f"the constant {e.term.n3()}"
    if isinstance(e, A.Arith):
        return f"an arithmetic expression ('{e.op}')"
    if isinstance(e, A.Neg):
        return "a negated number (unary '-')"
    if isinstance(e, A.Cmp):
        return f"a comparison ('{e.op}')"
    if isinstance(e, A.Bound):
        return "BOUND(...)"
    return "a condition ('&&', '||', '!')"


@v_args(meta=True)
class _ToAst(Transformer):
    """Parse tree -> AST.  Errors are ParseErrors without a file name (:func:`parse` adds it)."""

    def __init__(self) -> None:
        super().__init__()
        self.prefixes: dict[str, str] = dict(DEFAULT_PREFIXES)
        self.base: Optional[str] = None
        # numbers written without parentheses: id -> (the Const, kept alive so that the id stays unique; its text)
        self.bare_numbers: dict[int, tuple[A.Const, str]] = {}
        self.graph_uses: list[tuple[URIRef, A.Pos]] = []

    # ---------------------------------------------------------------- prologue
    def prefix_decl(self, meta, items):
        _kw, ns, iri = items
        self.prefixes[str(ns)[:-1]] = self._resolve(str(iri)[1:-1])
        return None

    def base_decl(self, meta, items):
        _kw, iri = items
        self.base = self._resolve(str(iri)[1:-1])
        return None

    def _resolve(self, iri: str) -> str:
        if self.base and not re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", iri):
            return urljoin(self.base, iri)
        return iri

    # ---------------------------------------------------------------- terms: (term, pos)
    def iri_ref(self, meta, items):
        tok = items[0]
        return URIRef(self._resolve(str(tok)[1:-1])), _tp(tok)

    def pname(self, meta, items):
        tok = items[0]
        pre, _, local = str(tok).partition(":")
        ns = self.prefixes.get(pre)
        if ns is None:
            raise _err(f"unknown prefix '{pre}:' in {str(tok)!r}: declare it first, e.g. "
                       f"PREFIX {pre}: <http://example.org/>", _tp(tok))
        return URIRef(ns + local), _tp(tok)

    def var_term(self, meta, items):
        return Variable(str(items[0])[1:]), _tp(items[0])

    def rdf_type(self, meta, items):
        return RDF.type, _tp(items[0])

    def bnode(self, meta, items):
        return _BNODE, _tp(items[0])

    def anon(self, meta, items):
        return _BNODE, _mp(meta)

    def bnode_plist(self, meta, items):
        raise _err("blank node property lists [ p o ] are blank nodes, which SPAseq patterns do not allow "
                   "(docs/semantics/spaseq.md#spaseq-2.2): use a variable", _mp(meta))

    def _literal(self, string_tok, extra) -> Literal:
        pos = _tp(string_tok)
        body = _unescape(str(string_tok)[1:-1], pos)
        if extra is None:
            return Literal(body)
        if isinstance(extra, Token) and extra.type == "LANGTAG":
            return Literal(body, lang=str(extra)[1:])
        with _quiet_rdflib():
            return Literal(body, datatype=extra[0])

    def rdf_literal(self, meta, items):
        return self._literal(items[0], items[1] if len(items) > 1 else None), _tp(items[0])

    @staticmethod
    def _number(text: str) -> Literal:
        low = text.lower()
        dt = XSD.double if "e" in low else XSD.decimal if "." in text else XSD.integer
        with _quiet_rdflib():
            return Literal(text, datatype=dt)

    def num(self, meta, items):
        return self._number(str(items[0])), _tp(items[0])

    def neg_num(self, meta, items):
        return self._number("-" + str(items[1])), _tp(items[0])

    def pos_num(self, meta, items):
        return self._number("+" + str(items[1])), _tp(items[0])

    def boolean(self, meta, items):
        return Literal(str(items[0]), datatype=XSD.boolean), _tp(items[0])

    # ---------------------------------------------------------------- triples
    def object_list(self, meta, items):
        return list(items)

    def property_list(self, meta, items):
        return [(items[i], items[i + 1]) for i in range(0, len(items), 2)]

    def triples_ss(self, meta, items):
        subj, plist = items
        return [self._triple(subj, verb, obj) for verb, objs in plist for obj in objs]

    def triples_block(self, meta, items):
        return [t for block in items for t in block]

    def _triple(self, s, p, o) -> A.TriplePattern:
        for term, pos in (s, p, o):
            if term is _BNODE:
                raise _err("blank nodes are not allowed in SPAseq patterns (docs/semantics/spaseq.md#spaseq-2.2): "
                           "use a variable", pos)
        if isinstance(s[0], Literal):
            raise _err(f"a literal ({s[0].n3()}) cannot be the subject of a triple pattern", s[1])
        if isinstance(p[0], Literal):
            raise _err(f"a literal ({p[0].n3()}) cannot be the predicate of a triple pattern", p[1])
        return A.TriplePattern(s[0], p[0], o[0], pos=s[1])

    # ---------------------------------------------------------------- expressions
    def _value(self, e: A.Expr, where: str) -> A.Expr:
        if not isinstance(e, _VALUES):
            raise _err(f"{where} takes values (variables, literals, IRIs, '+', '-'), not "
                       f"{_describe_expr(e)} (docs/semantics/spaseq.md#spaseq-2.2)", e.pos)
        return e

    def _condition(self, e: A.Expr, where: str) -> A.Expr:
        if not isinstance(e, _CONDITIONS):
            raise _err(f"{where} must be a condition (a comparison, '&&', '||', '!' or BOUND), not "
                       f"{_describe_expr(e)} (docs/semantics/spaseq.md#spaseq-2.2)", e.pos)
        return e

    def evar(self, meta, items):
        return A.Var(Variable(str(items[0])[1:]), pos=_tp(items[0]))

    def econst(self, meta, items):
        term, pos = items[0]
        return A.Const(term, pos=pos)

    def estring(self, meta, items):
        return A.Const(self._literal(items[0], items[1] if len(items) > 1 else None), pos=_tp(items[0]))

    def enum(self, meta, items):
        c = A.Const(self._number(str(items[0])), pos=_tp(items[0]))
        self.bare_numbers[id(c)] = (c, str(items[0]))
        return c

    def _bare(self, e: A.Expr) -> Optional[str]:
        """The text of ``e`` if it is a number written without parentheses (consumed: asked once)."""
        hit = self.bare_numbers.pop(id(e), None)
        return hit[1] if hit is not None and hit[0] is e else None

    def eboolean(self, meta, items):
        return A.Const(Literal(str(items[0]), datatype=XSD.boolean), pos=_tp(items[0]))

    def bound(self, meta, items):
        kw, v = items
        return A.Bound(Variable(str(v)[1:]), pos=_tp(kw))

    def paren(self, meta, items):
        e = items[0]
        self._bare(e)
        return e

    def neg(self, meta, items):
        op, e = items
        raw = self._bare(e)
        if raw is not None:                     # SPARQL's NumericLiteralNegative: '-5' is the constant -5
            return A.Const(self._number("-" + raw), pos=_tp(op))
        return A.Neg(self._value(e, "unary '-'"), pos=_tp(op))

    def uplus(self, meta, items):
        op, e = items
        raw = self._bare(e)
        if raw is not None:                     # NumericLiteralPositive: '+5' is the constant +5
            return A.Const(self._number("+" + raw), pos=_tp(op))
        raise _err("unary '+' is only allowed as the sign of a number (write the expression without it)", _tp(op))

    def not_(self, meta, items):
        op, e = items
        return A.Not(self._condition(e, "the operand of '!'"), pos=_tp(op))

    def arith(self, meta, items):
        left, op, right = items
        return A.Arith(str(op), self._value(left, f"'{op}'"), self._value(right, f"'{op}'"), pos=_mp(meta))

    def mul(self, meta, items):
        _left, op, _right = items
        raise _err(f"'{op}' is not part of SPAseq's expressions here (only + and -; docs/semantics/spaseq.md#spaseq-2.2)",
                   _tp(op))

    def cmp(self, meta, items):
        left, op, right = items
        return A.Cmp(str(op), self._value(left, f"'{op}'"), self._value(right, f"'{op}'"), pos=_mp(meta))

    def and_(self, meta, items):
        left, _op, right = items
        return A.And(self._condition(left, "an operand of '&&'"), self._condition(right, "an operand of '&&'"),
                     pos=_mp(meta))

    def or_(self, meta, items):
        left, _op, right = items
        return A.Or(self._condition(left, "an operand of '||'"), self._condition(right, "an operand of '||'"),
                    pos=_mp(meta))

    # ---------------------------------------------------------------- group graph patterns
    def filter(self, meta, items):
        kw, e = items
        return ("filter", self._condition(e, "a FILTER"), _tp(kw))

    def optional(self, meta, items):
        kw, g = items
        return ("optional", g, _tp(kw))

    def graph(self, meta, items):
        kw, (iri, ipos), g = items
        self.graph_uses.append((iri, ipos))
        return A.Graph(iri, g, pos=_tp(kw))

    def union_or_group(self, meta, items):
        acc = items[0]
        for i in range(1, len(items), 2):
            acc = A.Union_(acc, items[i + 1], pos=_tp(items[i]))
        return acc

    def group(self, meta, items):
        lbrace, elems = items[0], items[1:]
        filters: list[A.Expr] = []
        g: Optional[A.Pattern] = None
        pending: list[A.TriplePattern] = []

        def join(a: A.Pattern) -> None:
            nonlocal g
            if g is None or _is_z(g):
                g = a
            elif not _is_z(a):
                g = A.Join(g, a, pos=g.pos)

        def flush() -> None:
            nonlocal pending
            if pending:
                join(A.BGP(tuple(pending), pos=pending[0].pos))
                pending = []

        for el in elems:
            if isinstance(el, list):                        # a triples block
                pending.extend(el)
            elif isinstance(el, tuple) and el[0] == "filter":
                filters.append(el[1])
            elif isinstance(el, tuple) and el[0] == "optional":
                flush()
                _, a, opos = el
                left = g if g is not None else A.BGP((), pos=_tp(lbrace))
                if isinstance(a, A.Filter):
                    g = A.LeftJoin(left, a.pattern, a.expr, pos=opos)
                else:
                    g = A.LeftJoin(left, a, None, pos=opos)
            else:                                           # a group, UNION or GRAPH
                flush()
                join(el)
        flush()
        if g is None:
            g = A.BGP((), pos=_tp(lbrace))
        if filters:
            g = A.Filter(_conj(filters), g, pos=_tp(lbrace))
        return g

    # ---------------------------------------------------------------- sequence expression
    def gpm_ref(self, meta, items):
        return A.GPMRef(str(items[0]), pos=_tp(items[0]))

    def conj(self, meta, items):
        left, _op, right = items
        return A.Conj(left, right, pos=_mp(meta))

    def disj(self, meta, items):
        left, _op, right = items
        return A.Disj(left, right, pos=_mp(meta))

    def element_plain(self, meta, items):
        return A.Element(items[0], None, None, pos=_mp(meta)), None

    def element_mod(self, meta, items):
        expr, mod = items
        return A.Element(expr, None, str(mod), pos=_mp(meta)), _tp(mod)

    def modifier(self, meta, items):
        return items[0]

    def connector(self, meta, items):
        return items[0]

    def seq(self, meta, items):
        # items: (element, modpos), connector, (element, modpos), ...
        out = [items[0]]
        for i in range(1, len(items), 2):
            el, mpos = items[i + 1]
            out.append((A.Element(el.expr, str(items[i]), el.modifier, pos=el.pos), mpos))
        return out

    # ---------------------------------------------------------------- declarations
    def proj_star(self, meta, items):
        return None

    def proj_vars(self, meta, items):
        return [(Variable(str(t)[1:]), _tp(t)) for t in items]

    def from_stream(self, meta, items):
        _from, _stream, alias, (iri, _ipos) = items
        return ("stream", str(alias), _tp(alias), iri)

    def from_graph(self, meta, items):
        _from, (iri, ipos) = items
        return ("graph", iri, ipos)

    def gpm_def(self, meta, items):
        kw, _gpm, name = items[0], items[1], items[2]
        aliases = [(str(t), _tp(t)) for t in items[4:-1]]
        return (str(name), _tp(name), aliases, items[-1], _tp(kw))

    def query(self, meta, items):
        select_kw, proj, _within, num, unit = items[:5]
        rest = items[5:]
        i = 0
        froms = []
        while isinstance(rest[i], tuple):
            froms.append(rest[i])
            i += 1
        where_kw, seq_kw, seq = rest[i], rest[i + 1], rest[i + 2]
        defs = rest[i + 3:]
        errors: list[tuple[tuple[int, int], str]] = []

        def bad(msg: str, pos: A.Pos) -> None:
            errors.append((pos or (0, 0), msg))

        # WITHIN n unit (docs/semantics/spaseq.md#spaseq-3.7)
        if not re.fullmatch(r"[0-9]+", str(num)):
            bad(f"the window WITHIN {num} must be a whole number of {str(unit).lower()}", _tp(num))
            n = 1
        else:
            n = int(str(num))
            if n < 1:
                bad("WITHIN 0: the window must be at least 1 tick long", _tp(num))
        window = n * UNITS[str(unit).upper().rstrip("S")]

        # FROM STREAM / FROM
        streams: list[tuple[str, URIRef]] = []
        alias_iri: dict[str, URIRef] = {}
        graphs: list[URIRef] = []
        for f in froms:
            if f[0] == "stream":
                _, alias, apos, iri = f
                if alias in alias_iri:
                    bad(f"stream alias {alias} is declared twice (FROM STREAM)", apos)
                elif iri in alias_iri.values():
                    bad(f"stream <{iri}> is declared twice (FROM STREAM)", apos)
                alias_iri.setdefault(alias, iri)
                streams.append((alias, iri))
            else:
                _, iri, ipos = f
                if iri in graphs:
                    bad(f"background graph <{iri}> is declared twice (FROM)", ipos)
                else:
                    graphs.append(iri)
        if not streams:
            bad("no FROM STREAM: a SPAseq query reads at least one named stream", _tp(where_kw))

        # DEFINE GPM name ON aliases { P }
        gpms: list[A.GPM] = []
        names: set[str] = set()
        for name, npos, aliases, pattern, dpos in defs:
            if name in names:
                bad(f"GPM {name} is defined twice", npos)
            names.add(name)
            iris: list[URIRef] = []
            seen: set[str] = set()
            for alias, apos in aliases:
                if alias not in alias_iri:
                    known = ", ".join(alias_iri) or "none"
                    bad(f"GPM {name} is ON {alias}, which no FROM STREAM declares (declared: {known})", apos)
                elif alias in seen:
                    bad(f"GPM {name} lists stream {alias} twice", apos)
                else:
                    iris.append(alias_iri[alias])
                seen.add(alias)
            gpms.append(A.GPM(name, tuple(iris), pattern, pos=dpos))
        for iri, ipos in self.graph_uses:
            if iri not in graphs:
                bad(f"GRAPH <{iri}> names no background graph: declare it with FROM <{iri}> "
                    "(docs/semantics/spaseq.md#spaseq-3.6)", ipos)

        # SEQ(...) (docs/semantics/spaseq.md#spaseq-2.2)
        used: set[str] = set()
        for el, _ in seq:
            for ref in _refs(el.expr):
                if ref.name not in names:
                    bad(f"SEQ uses GPM {ref.name}, which no DEFINE GPM defines", ref.pos)
                elif ref.name in used:
                    bad(f"GPM {ref.name} is used twice in SEQ (define a second GPM with another name)", ref.pos)
                used.add(ref.name)
        for j, (el, mpos) in enumerate(seq):
            if j == 0 and el.modifier == "!":
                bad("the first SEQ element cannot be negated ('!' needs an element before it)", mpos)
            if j > 0 and el.modifier in ("!", "?") and seq[j - 1][0].modifier in ("!", "?"):
                bad(f"two adjacent SEQ elements both with '!' or '?' ({seq[j - 1][0].modifier} then "
                    f"{el.modifier}): put a plain element between them", mpos)
        if all(el.modifier in ("!", "?") for el, _ in seq):
            bad("every SEQ element has '!' or '?': a sequence needs at least one element that selects an event",
                _tp(seq_kw))

        elements = tuple(el for el, _ in seq)
        q = A.Query(None, window, tuple(streams), tuple(graphs), elements, tuple(gpms), pos=_tp(select_kw))
        select = None
        if proj is not None:
            avail = set(A.query_vars(q)) if not errors else None
            sel: list[Variable] = []
            for v, vpos in proj:
                if v in sel:
                    bad(f"?{v} is selected twice", vpos)
                elif avail is not None and v not in avail:
                    bad(f"SELECT ?{v}: no GPM used by SEQ mentions ?{v}", vpos)
                sel.append(v)
            select = tuple(sel)
        if errors:
            pos, msg = min(errors, key=lambda e: e[0])
            raise _err(msg, None if pos == (0, 0) else pos)
        return A.Query(select, window, tuple(streams), tuple(graphs), elements, tuple(gpms), pos=_tp(select_kw))

    def start(self, meta, items):
        return items[-1]


def _refs(b: A.BOp) -> list[A.GPMRef]:
    if isinstance(b, A.GPMRef):
        return [b]
    return _refs(b.left) + _refs(b.right)


# -------------------------------------------------------------------------------------------- syntax errors
_SHOW = {
    "VAR": "a variable", "NAME": "a name", "IRIREF": "an IRI", "PNAME_LN": "a prefixed name",
    "PNAME_NS": "a prefixed name", "NUMBER": "a number", "STRING": "a string", "LANGTAG": "a language tag",
    "UNIT": "SECONDS, MINUTES or HOURS", "CMP": "a comparison", "BLANK_NODE_LABEL": "a blank node",
    "A": "'a'", "TRUE": "true", "FALSE": "false", "$END": "end of input",
}


def _show_terminal(name: str) -> str:
    if name in _SHOW:
        return _SHOW[name]
    try:
        t = _lark().get_terminal(name)
    except KeyError:
        return name
    if t.pattern.type == "str":
        return repr(t.pattern.value)
    return name          # a keyword terminal: its name is the keyword


def _expected(names) -> str:
    shown = sorted({_show_terminal(n) for n in names if not n.startswith("__") or _show_terminal(n) != n})
    if not shown:
        return ""
    if len(shown) > 10:
        shown = shown[:10] + ["..."]
    return "; expected " + (shown[0] if len(shown) == 1 else "one of " + ", ".join(shown))


def _word_at(text: str, line: int, col: int) -> str:
    lines = text.split("\n")
    if not (1 <= line <= len(lines)):
        return ""
    rest = lines[line - 1][col - 1:]
    m = re.match(r"[A-Za-z_][A-Za-z0-9_\-]*|\S", rest)
    return m.group(0) if m else ""


def _prev_char(text: str, line: int, col: int) -> str:
    lines = text.split("\n")
    before = "\n".join(lines[:line - 1] + [lines[line - 1][:col - 1]]) if 1 <= line <= len(lines) else ""
    before = before.rstrip()
    return before[-1:] if before else ""


def _describe(e: UnexpectedInput, text: str, line: int, col: int, at_eof: bool) -> str:
    expected = getattr(e, "expected", None) or getattr(e, "allowed", None) or set()
    exp = _expected(expected)
    if at_eof:
        opened = text.count("{") - text.count("}")
        more = f" ({opened} '{{' not closed)" if opened > 0 else ""
        return f"unexpected end of input{more}{exp}"
    word = _word_at(text, line, col)
    up = word.upper()
    if isinstance(e, UnexpectedToken) and e.token.type in ("PLUS", "BANG", "QMARK") and \
            expected & {"COMMA", "SEMI", "COLON", "RPAR"}:
        if _prev_char(text, line, col) in "+!?":
            return f"unexpected '{e.token}': a SEQ element has at most one modifier (+, ! or ?)"
        return (f"unexpected '{e.token}': a modifier follows a GPM name or a parenthesised expression; "
                f"write (A | B){e.token} or (A & B){e.token}")
    if up == "CONSTRUCT":
        return "CONSTRUCT queries are not supported: SPAseq's formal semantics covers SELECT only"
    if up == "PARTITION":
        return "PARTITION BY is not supported (an engine extension outside the paper's language)"
    if word.startswith("_:") or (word == "_" and text.split("\n")[line - 1][col:col + 1] == ":"):
        return "blank nodes are not allowed in SPAseq patterns (docs/semantics/spaseq.md#spaseq-2.2): use a variable"
    if up in ("BIND", "VALUES", "MINUS", "SERVICE", "EXISTS", "NOT", "REGEX", "STR", "LANG", "DATATYPE",
              "ISIRI", "ISURI", "ISBLANK", "ISLITERAL", "IF", "COALESCE", "IN", "ORDER", "LIMIT", "GROUP"):
        return (f"SPARQL keyword {word!r} is not supported in SPAseq GPMs (triples, FILTER, OPTIONAL, UNION, "
                f"GRAPH and BOUND are; docs/semantics/spaseq.md#spaseq-2.2){exp}")
    shown = word[:20] if word else text.split("\n")[line - 1][col - 1:col] if 1 <= line <= text.count("\n") + 1 else ""
    return f"unexpected {shown!r}{exp}" if shown else f"unexpected input{exp}"


def _depth_error(tree: Tree) -> Optional[ParseError]:
    stack = [(tree, 1)]
    while stack:
        node, d = stack.pop()
        if d > MAX_DEPTH:
            return _err(f"the query nests too deeply (more than {MAX_DEPTH} levels of groups, parentheses or "
                        "operators)", _mp(node.meta))
        stack.extend((c, d + 1) for c in node.children if isinstance(c, Tree))
    return None


def parse(text: str, file: Optional[str] = None) -> A.Query:
    """Parse one SPAseq query (module docstring) into an :class:`~ceplab.semantics.spaseq.ast.Query`.

    Args:
        text: the query text.
        file: its file name, for error messages (None: ``<string>``).

    Returns:
        the query; windows in ticks (seconds), GPM patterns in SPARQL algebra form, SEQ normalised to elements
        with connectors and modifiers (docs/semantics/spaseq.md#spaseq-2).

    Raises:
        ParseError: with file, line and column, for every syntax error and every restriction of the module
            docstring; never any other exception for a ``str`` argument.
    """
    m = re.search(r"[\ud800-\udfff]", text)
    if m:
        line = text.count("\n", 0, m.start()) + 1
        raise ParseError("the text holds a lone surrogate code point (not Unicode text)", file, line,
                         m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1)
    try:
        tree = _lark().parse(text)
    except UnexpectedInput as e:
        line = getattr(e, "line", None)
        col = getattr(e, "column", None)
        at_eof = isinstance(e, UnexpectedEOF) or (isinstance(e, UnexpectedToken) and e.token.type == "$END")
        if not isinstance(line, int) or line < 1 or at_eof:
            line = text.count("\n") + 1
            col = len(text.split("\n")[-1]) + 1
        raise ParseError(_describe(e, text, line, col, at_eof), file, line, col) from None
    deep = _depth_error(tree)
    if deep is not None:
        raise ParseError(deep.message, file, deep.line, deep.column)
    try:
        return _ToAst().transform(tree)
    except VisitError as e:
        orig = e.orig_exc
        if isinstance(orig, ParseError):
            raise ParseError(orig.message, file, orig.line, orig.column) from None
        raise


def parse_file(path: Union[str, Path]) -> A.Query:
    """Parse the query file at ``path`` (UTF-8, with or without a byte-order mark).

    Raises:
        ParseError: an unreadable file, or what :func:`parse` raises (naming the file).
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8-sig")         # a leading byte-order mark is not part of the query
    except (OSError, UnicodeDecodeError) as e:
        raise ParseError(f"cannot read the query: {getattr(e, 'strerror', None) or e}", str(p)) from None
    return parse(text, file=str(p))


# -------------------------------------------------------------------------------------------- printer
_ECHAR_OUT = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_VARNAME = re.compile(r"(?:[A-Za-z0-9_\u00B7]|[^\x00-\xBF])+")        # the grammar's VAR
_IRI_OK = re.compile(r'[^<>"{}|^`\\\x00-\x20]*')
_BARE_NUMBER = re.compile(r"[+-]?(([0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)[eE][+-]?[0-9]+|[0-9]*\.[0-9]+|[0-9]+)")


def _escape(s: str) -> str:
    """A string body in N-Triples style: ``\\ " \\n \\r \\t \\b \\f`` as ECHARs, every other character outside
    printable ASCII as ``\\uXXXX`` / ``\\UXXXXXXXX`` (the output is ASCII)."""
    out = []
    for ch in s:
        if ch in _ECHAR_OUT:
            out.append(_ECHAR_OUT[ch])
        elif " " <= ch <= "~":
            out.append(ch)
        elif ord(ch) <= 0xFFFF:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(f"\\U{ord(ch):08X}")
    return "".join(out)


def _r_iri(u: URIRef) -> str:
    s = str(u)
    if not _IRI_OK.fullmatch(s):
        raise ValueError(f"IRI {s!r} has characters an IRIREF cannot hold")
    return f"<{s}>"


def _r_term(t) -> str:
    if isinstance(t, Variable):
        if not _VARNAME.fullmatch(str(t)):
            raise ValueError(f"variable name {str(t)!r} cannot be written")
        return f"?{t}"
    if isinstance(t, URIRef):
        return _r_iri(t)
    if isinstance(t, Literal):
        lex = str(t)
        if t.datatype in (XSD.integer, XSD.decimal, XSD.double) and _BARE_NUMBER.fullmatch(lex) \
                and _ToAst._number(lex) == t:
            return lex
        if t.datatype == XSD.boolean and lex in ("true", "false"):
            return lex
        body = '"' + _escape(lex) + '"'
        if t.language:
            return f"{body}@{t.language}"
        if t.datatype is not None:
            return f"{body}^^{_r_iri(t.datatype)}"
        return body
    raise ValueError(f"cannot render term {t!r}")


def _r_expr(e: A.Expr) -> str:
    """An expression, every operator parenthesised."""
    if isinstance(e, A.Var):
        return _r_term(e.var)
    if isinstance(e, A.Const):
        return _r_term(e.term)
    if isinstance(e, (A.Arith, A.Cmp)):
        return f"({_r_expr(e.left)} {e.op} {_r_expr(e.right)})"
    if isinstance(e, A.And):
        return f"({_r_expr(e.left)} && {_r_expr(e.right)})"
    if isinstance(e, A.Or):
        return f"({_r_expr(e.left)} || {_r_expr(e.right)})"
    if isinstance(e, A.Not):
        return f"!{_r_expr(e.expr)}"
    if isinstance(e, A.Neg):
        return f"-({_r_expr(e.expr)})"
    if isinstance(e, A.Bound):
        return f"BOUND({_r_term(e.var)})"
    raise ValueError(f"cannot render expression {e!r}")


def _r_filter(e: A.Expr) -> str:
    s = _r_expr(e)
    return f"FILTER {s}" if isinstance(e, A.Bound) or s.startswith("(") else f"FILTER ({s})"


def _r_triple(tp: A.TriplePattern) -> str:
    p = "a" if tp.p == RDF.type else _r_term(tp.p)
    return f"{_r_term(tp.s)} {p} {_r_term(tp.o)} ."


def _r_body(p: A.Pattern) -> str:
    """The inside of a group whose translation is exactly ``p`` (section 18.2.2.6 in reverse)."""
    if isinstance(p, A.BGP):
        return " ".join(_r_triple(tp) for tp in p.triples)
    if isinstance(p, A.Filter):
        inner = f"{{ {_r_body(p.pattern)} }}" if isinstance(p.pattern, A.Filter) else _r_body(p.pattern)
        return f"{inner} {_r_filter(p.expr)}".strip()
    if isinstance(p, A.Join):
        if _is_z(p.left) or _is_z(p.right):
            raise ValueError("Join with the empty group has no concrete syntax (Join(Z, A) is A)")
        right = _r_body(p.right) if isinstance(p.right, (A.Union_, A.Graph)) else f"{{ {_r_body(p.right)} }}"
        return f"{_r_lead(p.left)} {right}"
    if isinstance(p, A.LeftJoin):
        lead = "" if _is_z(p.left) else _r_lead(p.left)
        if p.expr is None:
            if isinstance(p.right, A.Filter):
                raise ValueError("LeftJoin(G, Filter(F, A), true) has no concrete syntax (its FILTER would be the "
                                 "LeftJoin's expression)")
            opt = f"{{ {_r_body(p.right)} }}"
        else:
            right = f"{{ {_r_body(p.right)} }}" if isinstance(p.right, A.Filter) else _r_body(p.right)
            opt = f"{{ {right} {_r_filter(p.expr)} }}"
        return f"{lead} OPTIONAL {opt}".strip()
    if isinstance(p, A.Union_):
        return f"{{ {_r_body(p.left)} }} UNION {{ {_r_body(p.right)} }}"
    if isinstance(p, A.Graph):
        return f"GRAPH {_r_iri(p.iri)} {{ {_r_body(p.pattern)} }}"
    raise ValueError(f"cannot render pattern {p!r}")


def _r_lead(p: A.Pattern) -> str:
    """Group elements that fold to ``p`` and may be followed by more elements (no FILTER at this level)."""
    if isinstance(p, A.Filter):
        return f"{{ {_r_body(p)} }}"
    return _r_body(p)


def _r_bop(b: A.BOp, ctx: str = "|") -> str:
    if isinstance(b, A.GPMRef):
        if not _NAME.fullmatch(b.name):
            raise ValueError(f"GPM name {b.name!r} cannot be written")
        return b.name
    if isinstance(b, A.Disj):
        s = f"{_r_bop(b.left, '|')} | {_r_bop(b.right, '&')}"
        return s if ctx == "|" else f"({s})"
    if isinstance(b, A.Conj):
        s = f"{_r_bop(b.left, '&')} & {_r_bop(b.right, 'atom')}"
        return s if ctx in ("|", "&") else f"({s})"
    raise ValueError(f"cannot render BOp expression {b!r}")


def render(q: A.Query) -> str:
    """A query as SPAseq text (full IRIs, no PREFIX) with ``parse(render(q)) == q`` for every query that
    :func:`parse` returns.

    Raises:
        ValueError: an AST without concrete syntax (not produced by :func:`parse`: e.g. ``Join`` with an empty
            group, ``LeftJoin(G, Filter(..), None)``, names that are not identifiers).
    """
    lines = []
    sel = "*" if q.select is None else " ".join(_r_term(v) for v in q.select)
    lines.append(f"SELECT {sel}")
    lines.append(f"WITHIN {q.window} SECONDS")
    for alias, iri in q.streams:
        if not _NAME.fullmatch(alias):
            raise ValueError(f"stream alias {alias!r} cannot be written")
        lines.append(f"FROM STREAM {alias} {_r_iri(iri)}")
    for g in q.graphs:
        lines.append(f"FROM {_r_iri(g)}")
    parts = []
    for el in q.seq:
        e = _r_bop(el.expr, "atom" if el.modifier else "|") + (el.modifier or "")
        parts.append(e if el.connector is None else f"{el.connector} {e}")
    lines.append(f"WHERE SEQ ({' '.join(parts)})")
    lines.append("{")
    alias_of = {}
    for alias, iri in q.streams:
        alias_of.setdefault(iri, alias)
    for g in q.gpms:
        try:
            on = ", ".join(alias_of[s] for s in g.streams)
        except KeyError as e:
            raise ValueError(f"GPM {g.name} is on stream {e.args[0]} that the query does not declare") from None
        if not _NAME.fullmatch(g.name):
            raise ValueError(f"GPM name {g.name!r} cannot be written")
        lines.append(f"  DEFINE GPM {g.name} ON {on} {{ {_r_body(g.pattern)} }}")
    lines.append("}")
    return "\n".join(lines) + "\n"
