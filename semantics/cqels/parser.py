"""Parser and printer for CQELS-CEP queries (docs/semantics/cqels.md#cqels-2.1 to #cqels-2.7), producing
:mod:`ceplab.semantics.cqels.ast` values.

A query file holds one query in the syntax of the paper's Examples 4 and 6 (RSP-QL style)::

    PREFIX : <http://example.org/>
    SELECT ?s
    FROM :transportationMap
    FROM NAMED WINDOW :W ON :publicTransport [RANGE 10m]
    WHERE {
      WINDOW :W { SEQ({?v :delayAt ?s}, {?v :delayAt ?s}, !{?v :arriveAt ?s}) }
      ?v rdf:type :subway .
      ?s (^:beg/[:means :subway]/:end)+ :c .
    }

* ``FROM NAMED WINDOW :W ON <stream> [window]`` declares a window; ``WINDOW :W { TSP }`` in ``WHERE`` gives its
  triple sequence pattern (docs/semantics/cqels.md#cqels-G22).  Windows: ``RANGE T``, ``RANGE T SLIDE d``, ``NOW``,
  ``ALL``, ``TRIPLES n``; ``T`` and ``d`` are bare integers (ticks) or durations (``10m``, ``1h30m``, ``250ms``; units
  ``d h m s ms ns``) converted with the ``tick`` argument (``Options.tick``; a duration that is not a whole number of
  ticks is an error, docs/semantics/cqels.md#cqels-G13).
* A TSP is a group of triple patterns with FILTERs, or ``SEQ({P1}, {P2}, ..., !{Pi}, ...)``: braces around every
  element, at most one ``!`` anywhere, at least one positive element; ``SEQ({P})`` is ``P``
  (docs/semantics/cqels.md#cqels-G8).  FILTERs inside an element's braces filter that element (they may only use its
  variables).
* ``SEQ(:W1, !:W2, :W3)`` in ``WHERE`` is an event clause over declared windows; a window block used by no such SEQ is
  an event clause on its own.  Every declared window has exactly one block.
* The other triple patterns of ``WHERE`` are the static pattern ``P``; their predicates may be SPARQL 1.1 property
  paths with the paper's nested tests and nSPARQL axes (docs/semantics/cqels.md#cqels-2.4): ``:p``, ``a``, ``^e``,
  ``e1/e2``, ``e1|e2``, ``e*``, ``e+``, ``e?``, ``(e)``, ``elt[e]``, ``[e]``, ``[e o]``, and the axes ``self``,
  ``next``, ``edge``, ``node`` with inverses ``next^-1`` (or ``next⁻¹``), ``axis::c`` (``c`` an IRI or a literal:
  ``next:::beg`` is ``next::`` followed by ``:beg``) and ``axis::[e]``.  Paths are desugared
  (:mod:`ceplab.semantics.cqels.ast`).
* ``FILTER(expr)`` with ``|| && ! = != < <= > >= + -``, unary minus, variables, IRIs, literals, ``true``/``false``
  (docs/semantics/cqels.md#cqels-2.6).  Expressions are type-checked: a FILTER and the operands of ``&& || !`` are
  boolean (comparisons, connectives, ``true``/``false``); comparisons and ``+ -`` take values.  Doubles, ``* /`` and
  function calls are not in the fragment.
* ``rdf:``, ``rdfs:``, ``xsd:`` and ``owl:`` are predeclared; every other prefix must be declared.  ``DISTINCT`` and
  ``REDUCED`` are accepted and change nothing (answers are sets).

Everything else (blank nodes, OPTIONAL, UNION, GRAPH, nested groups, CQELS' ``STREAM`` clause, ``TUMBLING``, variable
streams, negated property sets, paths inside a window, ...) is a :class:`ceplab.semantics.errors.ParseError` with
file, line and column (docs/semantics/cqels.md#cqels-2.7), as is every syntax error.

:func:`render` prints a query back so that ``parse(render(q)) == q``.
"""
from __future__ import annotations

import logging
import re
from functools import lru_cache
from pathlib import Path
from typing import Optional, Union
from urllib.parse import urljoin

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError
from rdflib import OWL, RDF, RDFS, XSD
from rdflib.term import Literal, URIRef, Variable

from ceplab.semantics.cqels import ast as A
from ceplab.semantics.cqels.options import Options, duration_ticks
from ceplab.semantics.errors import ParseError

_GRAMMAR = Path(__file__).with_name("grammar.lark").read_text(encoding="utf-8")

#: Prefixes available without a declaration.
DEFAULT_PREFIXES: dict[str, str] = {"rdf": str(RDF), "rdfs": str(RDFS), "xsd": str(XSD), "owl": str(OWL)}
_ESC = {"t": "\t", "n": "\n", "r": "\r", "b": "\b", "f": "\f", '"': '"', "'": "'", "\\": "\\"}


@lru_cache(maxsize=1)
def _lark() -> Lark:
    return Lark(_GRAMMAR, parser="lalr", lexer="contextual", propagate_positions=True, start="start")


def _tp(tok) -> A.Pos:
    line = getattr(tok, "line", None)
    return (line, tok.column) if line is not None else None


def _quiet_literal(body: str, **kw) -> Literal:
    log = logging.getLogger("rdflib.term")
    old = log.level
    log.setLevel(logging.CRITICAL)
    try:
        return Literal(body, **kw)
    finally:
        log.setLevel(old)


def _quiet_iri(text: str) -> URIRef:
    """``URIRef(text)`` without rdflib's logged warning for IRIs with spaces or quotes (written with ``\\u``
    escapes; they are terms like any other here)."""
    log = logging.getLogger("rdflib.term")
    old = log.level
    log.setLevel(logging.CRITICAL)
    try:
        return URIRef(text)
    finally:
        log.setLevel(old)


class _Err(Exception):
    """A semantic error found while building the AST: message and position (the file is added by :func:`parse`)."""

    def __init__(self, message: str, pos: A.Pos) -> None:
        super().__init__(message)
        self.message = message
        self.pos = pos


def _err(msg: str, pos: A.Pos) -> _Err:
    return _Err(msg, pos)


def _pos_of(x) -> A.Pos:
    return getattr(x, "pos", None)


def _is_value(e) -> bool:
    return isinstance(e, (A.Var, A.Const, A.UMinus, A.Arith))


# ------------------------------------------------------------------------------------------------ intermediate values
class _Triple:
    __slots__ = ("s", "verb", "o", "pos")

    def __init__(self, s, verb, o, pos) -> None:
        self.s, self.verb, self.o, self.pos = s, verb, o, pos


class _BNode:
    __slots__ = ("label", "pos")

    def __init__(self, label: str, pos: A.Pos) -> None:
        self.label, self.pos = label, pos


class _Item:
    """One element of a group body: kind in triples, window, seq, filter."""
    __slots__ = ("kind", "value", "pos", "extra")

    def __init__(self, kind: str, value, pos: A.Pos, extra=None) -> None:
        self.kind, self.value, self.pos, self.extra = kind, value, pos, extra


class _ToTree(Transformer):
    """Parse tree -> terms, paths, expressions and group items (the query is assembled by :class:`_Builder`)."""

    def __init__(self, text: str, tick: str) -> None:
        super().__init__()
        self.text = text
        self.tick = tick
        self.prefixes: dict[str, str] = {}
        self.declared: list[tuple[str, str]] = []
        self.base: Optional[str] = None

    # ---------------------------------------------------------------- prologue
    def prefix_decl(self, items):
        _, ns, iri = items
        name = str(ns)[:-1]
        value = self._resolve(self._unescape_iri(iri))
        self.prefixes[name] = value
        self.declared = [(p, v) for p, v in self.declared if p != name] + [(name, value)]
        return None

    def base_decl(self, items):
        self.base = self._resolve(self._unescape_iri(items[1]))
        return None

    def _resolve(self, iri: str) -> str:
        if self.base and not re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", iri):
            return urljoin(self.base, iri)
        return iri

    # ---------------------------------------------------------------- terms
    @staticmethod
    def _unescape_iri(tok) -> str:
        body = str(tok)[1:-1]
        return re.sub(r"\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})", lambda m: chr(int(m.group(1) or m.group(2), 16)),
                      body)

    def iri_ref(self, items):
        text = self._unescape_iri(items[0])
        if any(0xD800 <= ord(c) <= 0xDFFF for c in text):
            raise _err("an IRI escape denotes a surrogate code point, which is not a character", _tp(items[0]))
        return _quiet_iri(self._resolve(text))

    def pname(self, items):
        tok = items[0]
        s = str(tok)
        pre, _, local = s.partition(":")
        ns = self.prefixes.get(pre, DEFAULT_PREFIXES.get(pre))
        if ns is None:
            raise _err(f"unknown prefix {pre + ':'!r} in {s!r}: declare it first, e.g. PREFIX {pre}: "
                       "<http://example.org/>", _tp(tok))
        return _quiet_iri(ns + local)

    def var_term(self, items):
        return _VarAt(str(items[0])[1:], _tp(items[0]))

    var_verb = var_term

    def bnode(self, items):
        return _BNode(str(items[0]), _tp(items[0]))

    def _string(self, tok) -> str:
        pos = _tp(tok)

        def rep(m: re.Match) -> str:
            s = m.group(0)
            if s[1] in "uU":
                return chr(int(s[2:], 16))
            if s[1] in _ESC:
                return _ESC[s[1]]
            raise _err(f"unknown escape sequence {s!r} in a string", pos)
        body = str(tok)[1:-1]
        out = re.sub(r"\\(u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)", rep, body)
        if any(0xD800 <= ord(c) <= 0xDFFF for c in out):
            raise _err("a string escape denotes a surrogate code point, which is not a character", pos)
        return out

    def _literal(self, string_tok, extra) -> Literal:
        body = self._string(string_tok)
        if extra is None:
            return Literal(body)
        if isinstance(extra, Token) and extra.type == "LANGTAG":
            return Literal(body, lang=str(extra)[1:])
        lit = _quiet_literal(body, datatype=extra)
        if lit.datatype in A.NUMERIC_TYPES and A.numeric_value(lit) is None:
            raise _err(f"ill-typed literal {lit.n3()}: not a lexical form of its numeric datatype", _tp(string_tok))
        return lit

    def rdf_literal(self, items):
        return self._literal(items[0], items[1] if len(items) > 1 else None)

    @staticmethod
    def _number(tok) -> Literal:
        s = str(tok)
        if re.search(r"[eE]", s):
            return _quiet_literal(s, datatype=XSD.double)
        return _quiet_literal(s, datatype=XSD.decimal if "." in s else XSD.integer)

    def num(self, items):
        return self._number(items[0])

    def boolean(self, items):
        return Literal(str(items[0]) == "true", datatype=XSD.boolean)

    # ---------------------------------------------------------------- paths
    def piri(self, items):
        return A.AxisConst("next", False, items[0])

    def ptype(self, items):
        return A.AxisConst("next", False, RDF.type, pos=_tp(items[0]))

    def pinv(self, items):
        return A.inverse(items[1])

    def pmod(self, items):
        e, mod = items
        cls = {"*": A.PathStar, "+": A.PathPlus, "?": A.PathOpt}[str(mod)]
        return cls(e, pos=_tp(mod))

    def pseq(self, items):
        return A.PathSeq(items[0], items[2], pos=_tp(items[1]))

    def palt(self, items):
        return A.PathAlt(items[0], items[2], pos=_tp(items[1]))

    def test(self, items):
        if len(items) == 1:
            return items[0]
        e, c = items
        return A.PathSeq(e, A.AxisConst("self", False, c))

    def ptest(self, items):
        elt, lb, t = items
        return A.PathSeq(elt, A.AxisNest("self", False, t, pos=_tp(lb)), pos=_tp(lb))

    def pstandalone(self, items):
        lb, t = items
        return A.AxisNest("self", False, t, pos=_tp(lb))

    @staticmethod
    def _axis(tok) -> tuple[str, bool]:
        s = str(tok).rstrip(":")
        kind = re.match(r"[a-z]+", s).group(0)
        inv = s != kind
        if kind == "self" and inv:
            raise _err("self has no inverse in nSPARQL (self^-1 would be self): write self", _tp(tok))
        return kind, inv

    def paxis(self, items):
        kind, inv = self._axis(items[0])
        return A.Axis(kind, inv, pos=_tp(items[0]))

    def paxis_const(self, items):
        tok, c = items
        kind, inv = self._axis(tok)
        return A.AxisConst(kind, inv, c, pos=_tp(tok))

    def paxis_nest(self, items):
        tok, _, e = items
        kind, inv = self._axis(tok)
        return A.AxisNest(kind, inv, e, pos=_tp(tok))

    # ---------------------------------------------------------------- triples
    def object_list(self, items):
        return list(items)

    def property_list(self, items):
        out = []
        it = iter(items)
        for verb in it:
            out.append((verb, next(it)))
        return out

    @v_args(meta=True)
    def triples_ss(self, meta, items):
        subj, plist = items
        pos = (meta.line, meta.column) if not getattr(meta, "empty", True) else None
        return [_Triple(subj, verb, o, pos) for verb, objs in plist for o in objs]

    def triples_block(self, items):
        out = [t for block in items if block for t in block]
        return _Item("triples", out, out[0].pos if out else None)

    # ---------------------------------------------------------------- expressions
    def evar(self, items):
        return A.Var(Variable(str(items[0])[1:]), pos=_tp(items[0]))

    def econst(self, items):
        return A.Const(items[0])

    def estring(self, items):
        return A.Const(self._literal(items[0], items[1] if len(items) > 1 else None), pos=_tp(items[0]))

    def enum(self, items):
        lit = self._number(items[0])
        if lit.datatype == XSD.double:
            raise _err(f"the double {items[0]} is not in the FILTER fragment: arithmetic is exact (integers and "
                       "decimals, docs/semantics/cqels.md#cqels-3.6); write it as a decimal", _tp(items[0]))
        return A.Const(lit, pos=_tp(items[0]))

    def eboolean(self, items):
        return A.Const(Literal(str(items[0]) == "true", datatype=XSD.boolean), pos=_tp(items[0]))

    def paren(self, items):
        return items[0]

    @staticmethod
    def _need_bool(e, what: str, pos: A.Pos):
        if not A.is_boolean(e):
            raise _err(f"{what} needs a boolean expression (a comparison, &&, ||, ! or true/false), not a value",
                       _pos_of(e) or pos)
        return e

    @staticmethod
    def _need_value(e, what: str, pos: A.Pos):
        if not _is_value(e):
            raise _err(f"{what} takes values (variables, constants, + and -), not a boolean expression; "
                       "compare booleans with && || !", _pos_of(e) or pos)
        return e

    def not_(self, items):
        op, e = items
        return A.Not(self._need_bool(e, "'!'", _tp(op)), pos=_tp(op))

    def uminus(self, items):
        op, e = items
        return A.UMinus(self._need_value(e, "unary '-'", _tp(op)), pos=_tp(op))

    def uplus(self, items):
        op, e = items
        return self._need_value(e, "unary '+'", _tp(op))

    def arith(self, items):
        l, op, r = items
        return A.Arith(str(op), self._need_value(l, f"'{op}'", _tp(op)), self._need_value(r, f"'{op}'", _tp(op)),
                       pos=_tp(op))

    def cmp(self, items):
        l, op, r = items
        return A.Cmp(str(op), self._need_value(l, f"'{op}'", _tp(op)), self._need_value(r, f"'{op}'", _tp(op)),
                     pos=_tp(op))

    def and_(self, items):
        l, r = items
        return A.And(self._need_bool(l, "'&&'", None), self._need_bool(r, "'&&'", None), pos=_pos_of(l))

    def or_(self, items):
        l, r = items
        return A.Or(self._need_bool(l, "'||'", None), self._need_bool(r, "'||'", None), pos=_pos_of(l))

    def filter(self, items):
        kw, e = items
        return _Item("filter", self._need_bool(e, "FILTER", _tp(kw)), _tp(kw))

    # ---------------------------------------------------------------- groups
    def group_body(self, items):
        return [i for i in items if isinstance(i, _Item)]

    def group(self, items):
        lb, body = items
        return (body, _tp(lb))

    def window_block(self, items):
        kw, name, lb, body = items
        return _Item("window", name, _tp(kw), (body, _tp(lb)))

    def seq_group(self, items):
        neg = len(items) == 3
        lb, body = items[-2], items[-1]
        return ("group", neg, body, _tp(items[0]) if neg else _tp(lb))

    def seq_name(self, items):
        neg = len(items) == 2
        pos = _tp(items[0]) if neg else None
        return ("name", neg, items[-1], pos)

    def seq(self, items):
        kw = items[0]
        return _Item("seq", items[1:], _tp(kw))

    # ---------------------------------------------------------------- dataset and query
    def duration(self, items):
        tok = items[0]
        s = str(tok)
        if tok.type == "INTEGER":
            return int(s), tok
        try:
            return duration_ticks(s, self.tick), tok
        except ValueError as e:
            raise _err(f"{e} (the tick length is {self.tick}; docs/semantics/cqels.md#cqels-G13)", _tp(tok)) \
                from None

    def range_w(self, items):
        kw = items[0]
        rng, _ = items[1]
        slide = 1
        if len(items) > 2:
            slide, stok = items[3]
            if slide < 1:
                raise _err("SLIDE must be at least 1 tick", _tp(stok))
        return A.RangeWindow(rng, slide, pos=_tp(kw))

    def now_w(self, items):
        return A.NowWindow(pos=_tp(items[0]))

    def all_w(self, items):
        return A.AllWindow(pos=_tp(items[0]))

    def triples_w(self, items):
        kw, n = items
        if int(str(n)) < 1:
            raise _err("TRIPLES n needs n >= 1", _tp(n))
        return A.TriplesWindow(int(str(n)), pos=_tp(kw))

    def from_graph(self, items):
        return ("graph", items[1], _tp(items[0]))

    def from_window(self, items):
        kw, _named, _window, name, _on, stream, spec = items
        return ("window", name, stream, spec, _tp(kw))

    def proj_star(self, items):
        return ("star",)

    def proj_vars(self, items):
        return ("vars", [_VarAt(str(t)[1:], _tp(t)) for t in items])

    def select_mod(self, items):
        return ("mod",)

    def select_query(self, items):
        # items: SELECT, [("mod",)], ("star",) | ("vars", [...]), dataset tuples..., [WHERE token], group
        kw = items[0]
        proj = next(i for i in items[1:] if isinstance(i, tuple) and i[0] in ("star", "vars"))
        datasets = [i for i in items[1:] if isinstance(i, tuple) and i[0] in ("graph", "window")]
        return ("query", kw, None if proj[0] == "star" else proj[1], datasets, items[-1])

    def start(self, items):
        return [i for i in items if i is not None][-1]


class _VarAt:
    """A variable with the position where it is written (becomes an rdflib ``Variable``)."""
    __slots__ = ("name", "pos")

    def __init__(self, name: str, pos: A.Pos) -> None:
        self.name, self.pos = name, pos

    @property
    def var(self) -> Variable:
        return Variable(self.name)


# ------------------------------------------------------------------------------------------------ assembling the query
def _term(x, pos: A.Pos, what: str):
    if isinstance(x, _VarAt):
        return x.var
    if isinstance(x, _BNode):
        raise _err(f"blank node {x.label} in a {what}: blank nodes are not allowed in CQELS-CEP patterns "
                   "(docs/semantics/cqels.md#cqels-G17); use a variable", x.pos)
    return x




def _expr_var_pos(e) -> dict[Variable, A.Pos]:
    out: dict[Variable, A.Pos] = {}

    def walk(x):
        if isinstance(x, A.Var):
            out.setdefault(x.var, x.pos)
        elif isinstance(x, (A.UMinus, A.Not)):
            walk(x.expr)
        elif isinstance(x, (A.Arith, A.Cmp, A.And, A.Or)):
            walk(x.left)
            walk(x.right)
    walk(e)
    return out


class _Builder:
    """Checks what each context allows and builds the :class:`~ceplab.semantics.cqels.ast.Query`."""

    def __init__(self, prefixes: tuple[tuple[str, str], ...]) -> None:
        self.prefixes = prefixes

    # ---------------------------------------------------------------- pieces
    def stream_triple(self, t: _Triple) -> A.TriplePattern:
        if not isinstance(t.verb, _VarAt):
            v = t.verb
            if not (isinstance(v, A.AxisConst) and v.kind == "next" and not v.inverse and isinstance(v.const, URIRef)):
                raise _err("property paths are evaluated over the static data only (paper section 2.3): a WINDOW "
                           "pattern's predicate is an IRI or a variable; move the path pattern out of the WINDOW "
                           "block", _pos_of(v) or t.pos)
        return self.plain_triple(t, "stream pattern")

    def plain_triple(self, t: _Triple, what: str) -> A.TriplePattern:
        s = _term(t.s, t.pos, what)
        o = _term(t.o, t.pos, what)
        p = t.verb.var if isinstance(t.verb, _VarAt) else t.verb.const
        if isinstance(s, Literal):
            raise _err(f"a literal ({s.n3()}) cannot be the subject of a triple pattern (only of a path pattern)",
                       t.pos)
        return A.TriplePattern(s, p, o, pos=t.pos)

    def static_triple(self, t: _Triple) -> A.StaticPattern:
        v = t.verb
        if isinstance(v, _VarAt) or (isinstance(v, A.AxisConst) and v.kind == "next" and not v.inverse
                                     and isinstance(v.const, URIRef)):
            return self.plain_triple(t, "static pattern")
        s = _term(t.s, t.pos, "path pattern")
        o = _term(t.o, t.pos, "path pattern")
        return A.PathPattern(s, v, o, pos=t.pos)

    def bgp(self, items: list[_Item], pos: A.Pos, what: str) -> A.BGP:
        triples: list[_Triple] = []
        filters: list[_Item] = []
        for it in items:
            if it.kind == "triples":
                triples.extend(it.value)
            elif it.kind == "filter":
                filters.append(it)
            elif it.kind == "window":
                raise _err(f"a WINDOW block cannot appear inside {what}", it.pos)
            else:
                raise _err(f"SEQ cannot appear inside {what}: a SEQ element is a group of triple patterns "
                           "(one negation level per SEQ, paper section 3.2)", it.pos)
        if not triples:
            raise _err(f"{what} has no triple pattern: an event is matched by at least one triple pattern", pos)
        tps = tuple(self.stream_triple(t) for t in triples)
        bound = frozenset().union(*(frozenset(x for x in (tp.s, tp.p, tp.o) if isinstance(x, Variable))
                                    for tp in tps))
        for f in filters:
            for var, vpos in _expr_var_pos(f.value).items():
                if var not in bound:
                    raise _err(f"?{var} is not bound by the triple patterns of {what}: a FILTER inside braces may "
                               "only use that group's variables (put it directly in WHERE to compare across "
                               "elements, docs/semantics/cqels.md#cqels-3.6)", vpos or f.pos)
        return A.BGP(tps, tuple(f.value for f in filters), pos=tps[0].pos)

    def _negations(self, args: list[tuple]) -> None:
        negs = [a for a in args if a[1]]
        if len(negs) > 1:
            raise _err("SEQ has at most one negated element (paper section 3.2)", negs[1][3])
        if len(args) - len(negs) == 0:
            raise _err("SEQ needs at least one positive element: a negated element alone matches nothing "
                       "(docs/semantics/cqels.md#cqels-G8)", negs[0][3])

    def tsp(self, body: list[_Item], pos: A.Pos, name: URIRef) -> A.TSP:
        seqs = [it for it in body if it.kind == "seq"]
        if not seqs:
            return self.bgp(body, pos, f"the WINDOW block of <{name}>")
        if len(body) > 1:
            other = next(it for it in body if it is not seqs[0])
            raise _err("a WINDOW block holds one triple sequence pattern: either triple patterns (with FILTERs) or "
                       "a single SEQ(...); put FILTERs inside a SEQ element's braces or directly in WHERE", other.pos)
        seq = seqs[0]
        args = seq.value
        for a in args:
            if a[0] == "name":
                raise _err("SEQ over window names is an event clause: write it directly in WHERE; inside a WINDOW "
                           "block SEQ takes groups of triple patterns, SEQ({...}, !{...})", _pos_of(a[2]) or seq.pos)
        self._negations(args)
        items = []
        for kind, neg, body2, apos in args:
            b = self.bgp(body2, apos, "a SEQ element")
            items.append(A.Neg(b, pos=apos) if neg else b)
        if len(items) == 1:
            return items[0]
        return A.SeqTSP(tuple(items), pos=seq.pos)

    # ---------------------------------------------------------------- the query
    def query(self, q: tuple) -> A.Query:
        _, kw, proj, datasets, (body, gpos) = q
        graphs: list[URIRef] = []
        decl: dict[URIRef, tuple] = {}
        for d in datasets:
            if d[0] == "graph":
                graphs.append(d[1])
            else:
                _, name, stream, spec, dpos = d
                if name in decl:
                    raise _err(f"window <{name}> is declared twice", dpos)
                decl[name] = (stream, spec, dpos)
        blocks: dict[URIRef, tuple[A.TSP, A.Pos]] = {}
        order: list[tuple[str, object]] = []
        static: list[A.StaticPattern] = []
        static_triples: list[_Triple] = []
        filters: list[_Item] = []
        in_seq: set[URIRef] = set()
        for it in body:
            if it.kind == "triples":
                static_triples.extend(it.value)
                static.extend(self.static_triple(t) for t in it.value)
            elif it.kind == "filter":
                filters.append(it)
            elif it.kind == "window":
                name = it.value
                if name not in decl:
                    raise _err(f"WINDOW <{name}> is not declared: add FROM NAMED WINDOW <{name}> ON <stream> "
                               "[RANGE ...] before WHERE", it.pos)
                if name in blocks:
                    raise _err(f"window <{name}> has two WINDOW blocks: declare a second window on the same stream "
                               "for a second pattern", it.pos)
                wbody, wpos = it.extra
                blocks[name] = (self.tsp(wbody, wpos, name), it.pos)
                order.append(("block", name))
            else:  # seq
                args = it.value
                for a in args:
                    if a[0] == "group":
                        raise _err("SEQ over groups of triple patterns belongs inside a WINDOW block (the window "
                                   "decides which elements it sees); in WHERE, SEQ takes declared windows: "
                                   "SEQ(:W1, !:W2)", a[3] or it.pos)
                self._negations(args)
                refs = []
                for _, neg, name, apos in args:
                    if name not in decl:
                        raise _err(f"SEQ names window <{name}>, which is not declared with FROM NAMED WINDOW",
                                   apos or it.pos)
                    in_seq.add(name)
                    r = A.WinRef(name, pos=apos or it.pos)
                    refs.append(A.Neg(r, pos=apos) if neg else r)
                order.append(("seq", refs[0] if len(refs) == 1 else A.SeqEC(tuple(refs), pos=it.pos)))
        for name, (_, _, dpos) in decl.items():
            if name not in blocks:
                raise _err(f"window <{name}> is declared but has no WINDOW <{name}> {{ ... }} block in WHERE", dpos)
        events: list[A.EC] = []
        for kind, x in order:
            if kind == "block":
                if x not in in_seq:
                    events.append(A.WinRef(x, pos=blocks[x][1]))
            else:
                events.append(x)
        windows = tuple(A.Window(name, stream, spec, blocks[name][0], pos=dpos)
                        for name, (stream, spec, dpos) in decl.items())
        if not events and not static:
            raise _err("empty WHERE: a query needs a WINDOW block or a static triple pattern", gpos)
        # scope: SELECT and top-level FILTER variables must be bound by a positive pattern
        q0 = A.Query(None, tuple(graphs), windows, tuple(events), tuple(static), (), self.prefixes, pos=_tp(kw))
        scope = A.scope_vars(q0)
        for f in filters:
            for var, vpos in _expr_var_pos(f.value).items():
                if var not in scope:
                    raise _err(f"?{var} is not bound by any event clause or static pattern (variables of negated "
                               "elements are local to them, docs/semantics/cqels.md#cqels-G5)", vpos or f.pos)
        select = None
        if proj is not None:
            seen: list[Variable] = []
            for va in proj:
                if va.var in seen:
                    raise _err(f"?{va.name} is selected twice", va.pos)
                if va.var not in scope:
                    raise _err(f"?{va.name} is not bound by any event clause or static pattern (variables of negated "
                               "elements are local to them, docs/semantics/cqels.md#cqels-G5)", va.pos)
                seen.append(va.var)
            select = tuple(seen)
        return A.Query(select, tuple(graphs), windows, tuple(events), tuple(static),
                       tuple(f.value for f in filters), self.prefixes, pos=_tp(kw))


# ------------------------------------------------------------------------------------------------ error messages
#: SPARQL and CQELS-QL keywords outside CQELS-CEP, with what to write instead (docs/semantics/cqels.md#cqels-2.7).
UNSUPPORTED: dict[str, str] = {
    "OPTIONAL": "OPTIONAL is not part of CQELS-CEP (paper section 3: BGPs, SEQ and paths only)",
    "UNION": "UNION is not part of CQELS-CEP (OR is defined by the paper but never used, docs/semantics/cqels.md#cqels-G24)",
    "GRAPH": "GRAPH is not part of CQELS-CEP: the static data is one graph D (paper section 3.2)",
    "MINUS": "MINUS is not part of CQELS-CEP: negation is a '!' element of SEQ",
    "BIND": "BIND is not part of CQELS-CEP", "VALUES": "VALUES is not part of CQELS-CEP",
    "SERVICE": "SERVICE is not part of CQELS-CEP",
    "ORDER": "solution modifiers (ORDER BY, LIMIT, OFFSET, GROUP BY) are not part of CQELS-CEP: answers are sets",
    "LIMIT": "solution modifiers (ORDER BY, LIMIT, OFFSET, GROUP BY) are not part of CQELS-CEP: answers are sets",
    "OFFSET": "solution modifiers (ORDER BY, LIMIT, OFFSET, GROUP BY) are not part of CQELS-CEP: answers are sets",
    "GROUP": "solution modifiers (ORDER BY, LIMIT, OFFSET, GROUP BY) are not part of CQELS-CEP: answers are sets",
    "HAVING": "HAVING is not part of CQELS-CEP",
    "CONSTRUCT": "only SELECT queries are supported (the paper defines no output stream, "
                 "docs/semantics/cqels.md#cqels-G23)",
    "ASK": "only SELECT queries are supported", "DESCRIBE": "only SELECT queries are supported",
    "REGISTER": "write the query itself (SELECT ...), without REGISTER QUERY",
    "STREAM": "the CQELS-QL clause STREAM <s> [window] { ... } is written here as FROM NAMED WINDOW :W ON <s> "
              "[window] plus WINDOW :W { ... } in WHERE (the paper's syntax, docs/semantics/cqels.md#cqels-G22)",
    "TUMBLING": "TUMBLING is not part of the semantics: write RANGE T SLIDE T (docs/semantics/cqels.md#cqels-3.1)",
    "STEP": "write SLIDE d for the window's step (docs/semantics/cqels.md#cqels-3.1)",
    "EXISTS": "EXISTS is not part of the FILTER fragment (docs/semantics/cqels.md#cqels-2.6)",
    "NOT": "NOT EXISTS / NOT IN are not part of the FILTER fragment (docs/semantics/cqels.md#cqels-2.6)",
    "IN": "IN is not part of the FILTER fragment (docs/semantics/cqels.md#cqels-2.6)",
    "AS": "projection expressions (expr AS ?v) are not part of CQELS-CEP",
}
_FUNCTIONS = {"BOUND", "REGEX", "STR", "LANG", "LANGMATCHES", "DATATYPE", "ISIRI", "ISURI", "ISBLANK", "ISLITERAL",
              "ISNUMERIC", "SAMETERM", "CONTAINS", "STRSTARTS", "STRENDS", "STRLEN", "SUBSTR", "UCASE", "LCASE",
              "ABS", "ROUND", "CEIL", "FLOOR", "NOW", "YEAR", "IF", "COALESCE", "COUNT", "SUM", "AVG", "MIN", "MAX",
              "SAMPLE", "CONCAT", "GETDURATION", "GETSTARTTIME", "GETENDTIME", "TIMESTAMP"}
_KEYWORDS = {"SELECT", "WHERE", "FROM", "NAMED", "WINDOW", "ON", "RANGE", "SLIDE", "NOW", "ALL", "TRIPLES", "SEQ",
             "FILTER", "PREFIX", "BASE", "DISTINCT", "REDUCED"}


def _word_at(text: str, line: int, col: int) -> str:
    lines = text.split("\n")
    if not (1 <= line <= len(lines)):
        return ""
    rest = lines[line - 1][col - 1:]
    m = re.match(r"[A-Za-z_][A-Za-z0-9_\-]*(?=\s*\()|[A-Za-z_][A-Za-z0-9_\-]*:?|\S+", rest)
    return m.group(0) if m else ""


def _describe(e: UnexpectedInput, text: str, line: int, col: int) -> str:
    if isinstance(e, UnexpectedEOF) or (isinstance(e, UnexpectedToken) and e.token.type == "$END"):
        opened = text.count("{") - text.count("}")
        if opened > 0:
            return f"unexpected end of file: {opened} '{{' not closed"
        if "WHERE" not in text.upper() and "{" not in text:
            return "unexpected end of file: the query has no WHERE { ... } group"
        return "unexpected end of file (the query is incomplete)"
    word = _word_at(text, line, col)
    up = word.upper().rstrip(":")
    rest = text.split("\n")[line - 1][col - 1:] if 1 <= line <= text.count("\n") + 1 else ""
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_\-]*", word):
        if up in UNSUPPORTED and not (up == "NOW" or up == "IN" and not rest[len(word):].lstrip().startswith("(")):
            return UNSUPPORTED[up]
        if up in _FUNCTIONS and rest[len(word):].lstrip().startswith("("):
            return (f"function {word}(...) is not part of the FILTER fragment (comparisons, && || !, + -; "
                    "docs/semantics/cqels.md#cqels-2.6)")
        if up in _KEYWORDS:
            return f"unexpected keyword {word!r} here"
        if word in ("self", "next", "edge", "node"):
            return (f"the axis {word} is only allowed in a property path over the static data (write axis::c with c "
                    "an IRI or literal, e.g. next:::p for the prefixed name :p)")
        return (f"bare name {word!r} is not an RDF term: write a prefixed name (:{word}, after PREFIX : "
                f"<http://example.org/>) or an IRI <http://example.org/{word}>")
    if isinstance(e, UnexpectedToken):
        tt = e.token.type
        if tt == "VAR" and text[:e.token.start_pos].rstrip().upper().endswith("ON"):
            return "a window's stream must be an IRI: variable streams are not supported (docs/semantics/cqels.md#cqels-G22)"
        if tt in ("STAR", "SLASH") and _in_filter(text, e.token.start_pos):
            return "multiplication and division are not part of the FILTER fragment (exact + and - only, docs/semantics/cqels.md#cqels-2.6)"
        if tt == "BANG" and rest.startswith("!("):
            return "negated property sets !(...) have no nSPARQL counterpart and are not supported (docs/semantics/cqels.md#cqels-2.4)"
        if tt == "LBRACE":
            return ("unexpected '{': nested group patterns are not part of CQELS-CEP (a '{' opens WHERE, a WINDOW block "
                    "or a SEQ element)")
        if tt == "BLANK_NODE_LABEL" or word.startswith("[]"):
            return "blank nodes are not allowed in CQELS-CEP patterns (docs/semantics/cqels.md#cqels-G17); use a variable"
    head = _offset_head(text, line, col)
    before = head.rstrip()[-1:] if head.rstrip() else ""
    if before == "[" and word.startswith("]"):
        return "blank nodes ([]) are not allowed in CQELS-CEP patterns (docs/semantics/cqels.md#cqels-G17); use a variable"
    if before in ("(", ",", "!") and re.search(r"SEQ\s*\([^()]*$", head, re.I) and not word.startswith(("{", ")")):
        return ("SEQ elements are groups in braces inside a WINDOW block, SEQ({?x :p ?y}, !{?x :q ?y}), or declared "
                "window names in WHERE, SEQ(:W1, !:W2)")
    if word.startswith("(") and re.search(r"SELECT\s+((DISTINCT|REDUCED)\s+)?([?$]\w+\s+)*$", head, re.I):
        return "projection expressions (expr AS ?v) are not part of CQELS-CEP: select variables or *"
    if word.startswith("}") and before == "]":
        return ("a triple pattern lacks its object: '[...]' right after a predicate is a nested path test, and blank "
                "nodes [ p o ] are not allowed (docs/semantics/cqels.md#cqels-G17)")
    if word.startswith("}"):
        return "unexpected '}' (unbalanced braces, or a group ends in the middle of a triple)"
    if word.startswith("[]") or word.startswith("[") and isinstance(e, UnexpectedToken) and \
            e.token.type == "LBRACK":
        return ("unexpected '[': blank nodes ([] / [ p o ]) are not allowed (docs/semantics/cqels.md#cqels-G17); "
                "in a property path, '[...]' is a nested test")
    shown = word[:20]
    return f"unexpected {shown!r}" if shown else "unexpected input"


def _offset_head(text: str, line: int, col: int) -> str:
    """The text before 1-based ``(line, col)``."""
    lines = text.split("\n")
    return "\n".join(lines[:line - 1] + [lines[line - 1][:col - 1]]) if 1 <= line <= len(lines) else text


def _in_filter(text: str, offset: int) -> bool:
    head = text[:offset]
    k = head.upper().rfind("FILTER")
    return k >= 0 and head.count("(", k) > head.count(")", k)


def parse(text: str, file: Optional[str] = None, *, tick: str = Options().tick) -> A.Query:
    """Parse a CQELS-CEP query (module docstring) into a :class:`~ceplab.semantics.cqels.ast.Query`.

    Args:
        text: the query text.
        file: its file name, for error messages (None: ``<string>``).
        tick: the length of one tick (``Options.tick``), used to convert durations such as ``10m`` into ticks.

    Raises:
        ParseError: with file, line and column, for every syntax error and every construct outside CQELS-CEP
            (docs/semantics/cqels.md#cqels-2.7).
        ValueError: a malformed ``tick``.
    """
    Options(tick=tick)  # validates the tick
    try:
        tree = _lark().parse(text)
    except UnexpectedInput as e:
        line = getattr(e, "line", None)
        col = getattr(e, "column", None)
        at_eof = isinstance(e, UnexpectedEOF) or (isinstance(e, UnexpectedToken) and e.token.type == "$END")
        if line is None or line < 0 or at_eof:
            line = text.count("\n") + 1
            col = len(text.split("\n")[-1]) + 1
        raise ParseError(_describe(e, text, line, col), file, line, col) from None
    tr = _ToTree(text, tick)
    try:
        q = tr.transform(tree)
        return _Builder(tuple(tr.declared)).query(q)
    except VisitError as e:
        orig = e.orig_exc
        if isinstance(orig, _Err):
            raise ParseError(orig.message, file, *(orig.pos or (None, None))) from None
        if isinstance(orig, ValueError):  # an AST invariant the checks above missed: still the query's fault
            meta = getattr(e.obj, "meta", None)
            raise ParseError(str(orig), file, getattr(meta, "line", None), getattr(meta, "column", None)) from None
        raise
    except _Err as e:
        raise ParseError(e.message, file, *(e.pos or (None, None))) from None


def parse_file(path: Union[str, Path], *, tick: str = Options().tick) -> A.Query:
    """Parse the query file at ``path`` (errors name the file).

    Raises:
        ParseError: as :func:`parse`; an unreadable file (no line).
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ParseError(f"cannot read the query: {getattr(e, 'strerror', None) or e}", str(p)) from None
    return parse(text, str(p), tick=tick)


# ------------------------------------------------------------------------------------------------ printer
_PN_LOCAL = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*")
_IRI_BAD = re.compile(r'[<>"{}|^`\\\x00-\x20]')


def _iri(u: URIRef, prefixes: tuple[tuple[str, str], ...]) -> str:
    s = str(u)
    declared = {p for p, _ in prefixes}
    for p, ns in list(prefixes) + [(p, ns) for p, ns in DEFAULT_PREFIXES.items() if p not in declared]:
        if s.startswith(ns) and _PN_LOCAL.fullmatch(s[len(ns):]) and not s[len(ns):].startswith("_"):
            return f"{p}:{s[len(ns):]}"
    return _iri_ref(s)


def _iri_ref(s: str) -> str:
    """``<s>`` with the characters IRIREF forbids written as ``\\uXXXX`` (read back by the parser)."""
    return "<" + _IRI_BAD.sub(lambda m: "\\u%04X" % ord(m.group(0)), s) + ">"


def _escape(s: str) -> str:
    out = []
    for ch in s:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20 or ch in "\u2028\u2029\x85":
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return "".join(out)


def _literal(t: Literal, px, in_filter: bool = False) -> str:
    lex = str(t)
    if t.language:
        return f'"{_escape(lex)}"@{t.language}'
    if t.datatype == XSD.integer and re.fullmatch(r"[0-9]+" if in_filter else r"[+-]?[0-9]+", lex):
        return lex
    if t.datatype == XSD.decimal and re.fullmatch(r"[0-9]*\.[0-9]+" if in_filter else r"[+-]?[0-9]*\.[0-9]+", lex):
        return lex
    if t.datatype == XSD.boolean and lex in ("true", "false"):
        return lex
    if t.datatype is not None and t.datatype != XSD.string:
        return f'"{_escape(lex)}"^^{_iri(t.datatype, px)}'
    return f'"{_escape(lex)}"'


def _term_text(t, px, in_filter: bool = False) -> str:
    if isinstance(t, Variable):
        return f"?{t}"
    if isinstance(t, URIRef):
        return _iri(t, px)
    if isinstance(t, Literal):
        return _literal(t, px, in_filter)
    raise ValueError(f"cannot render term {t!r}")


def _axis_name(kind: str, inverse: bool) -> str:
    return kind + ("^-1" if inverse else "")


def _const_text(c, px) -> str:
    s = _term_text(c, px)
    if isinstance(c, Literal) and re.match(r"[+-]", s):  # a signed bare number: the test const grammar is unsigned
        return f'"{_escape(str(c))}"^^{_iri(c.datatype, px)}'
    return s


def _path(e: A.Path, px, prec: int = 0) -> str:
    """``e`` as path text; ``prec`` is the binding the context needs: 0 any, 1 seq operand, 2 seq right/alt right,
    3 primary (operand of a modifier)."""
    if isinstance(e, A.AxisConst):
        if e.kind == "next" and isinstance(e.const, URIRef):
            s = _iri(e.const, px)
            if e.inverse:
                s = "^" + s
                return s if prec < 3 else f"({s})"
            return s
        return f"{_axis_name(e.kind, e.inverse)}::{_const_text(e.const, px)}"
    if isinstance(e, A.Axis):
        return _axis_name(e.kind, e.inverse)
    if isinstance(e, A.AxisNest):
        return f"{_axis_name(e.kind, e.inverse)}::[{_path(e.test, px)}]"
    if isinstance(e, A.PathAlt):
        s = f"{_path(e.left, px, 0)}|{_path(e.right, px, 1)}"
        return s if prec == 0 else f"({s})"
    if isinstance(e, A.PathSeq):
        s = f"{_path(e.left, px, 1)}/{_path(e.right, px, 2)}"
        return s if prec <= 1 else f"({s})"
    if isinstance(e, (A.PathStar, A.PathPlus, A.PathOpt)):
        mod = {A.PathStar: "*", A.PathPlus: "+", A.PathOpt: "?"}[type(e)]
        s = f"{_path(e.expr, px, 3)}{mod}"
        return s if prec < 3 else f"({s})"
    raise ValueError(f"cannot render path {e!r}")


def _expr(e: A.Expr, px) -> str:
    if isinstance(e, A.Var):
        return f"?{e.var}"
    if isinstance(e, A.Const):
        return _term_text(e.term, px, in_filter=True)
    if isinstance(e, A.UMinus):
        return f"-({_expr(e.expr, px)})"
    if isinstance(e, A.Arith):
        return f"({_expr(e.left, px)} {e.op} {_expr(e.right, px)})"
    if isinstance(e, A.Cmp):
        return f"({_expr(e.left, px)} {e.op} {_expr(e.right, px)})"
    if isinstance(e, A.And):
        return f"({_expr(e.left, px)} && {_expr(e.right, px)})"
    if isinstance(e, A.Or):
        return f"({_expr(e.left, px)} || {_expr(e.right, px)})"
    if isinstance(e, A.Not):
        return f"!({_expr(e.expr, px)})"
    raise ValueError(f"cannot render expression {e!r}")


def _filter(e: A.Expr, px) -> str:
    return f"FILTER ({_expr(e, px)})"


def _tp_text(tp: A.TriplePattern, px) -> str:
    return f"{_term_text(tp.s, px)} {_term_text(tp.p, px)} {_term_text(tp.o, px)} ."


def _bgp(b: A.BGP, px) -> str:
    return " ".join([_tp_text(tp, px) for tp in b.triples] + [_filter(f, px) for f in b.filters])


def _tsp(p: A.TSP, px) -> str:
    if isinstance(p, A.BGP):
        return _bgp(p, px)
    if isinstance(p, A.SeqTSP):
        return "SEQ(" + ", ".join(("!" if isinstance(it, A.Neg) else "") + "{ " +
                                  _bgp(it.item if isinstance(it, A.Neg) else it, px) + " }" for it in p.items) + ")"
    raise ValueError(f"cannot render a triple sequence pattern {p!r}")


def _spec(s: A.WindowSpec) -> str:
    if isinstance(s, A.RangeWindow):
        return f"RANGE {s.range}" + (f" SLIDE {s.slide}" if s.slide != 1 else "")
    if isinstance(s, A.NowWindow):
        return "NOW"
    if isinstance(s, A.AllWindow):
        return "ALL"
    if isinstance(s, A.TriplesWindow):
        return f"TRIPLES {s.count}"
    raise ValueError(f"cannot render a window {s!r}")


def _static(sp: A.StaticPattern, px) -> str:
    if isinstance(sp, A.TriplePattern):
        return _tp_text(sp, px)
    p = sp.path
    if isinstance(p, A.AxisConst) and p.kind == "next" and not p.inverse and isinstance(p.const, URIRef):
        raise ValueError("a PathPattern whose path is a plain IRI has no concrete syntax (it parses as a "
                         "TriplePattern)")
    return f"{_term_text(sp.s, px)} {_path(p, px)} {_term_text(sp.o, px)} ."


def render(q: A.Query) -> str:
    """A query as CQELS-CEP text such that ``parse(render(q)) == q`` for every query the parser can produce (durations
    are printed in ticks, so the result does not depend on the tick length).

    Raises:
        ValueError: an AST with no concrete syntax (a window that is both its own event clause and an element of a
            SEQ, a window used twice as its own event clause, a PathPattern whose path is a plain IRI, ...).
    """
    px = q.prefixes
    lines = [f"PREFIX {p}: {_iri_ref(ns)}" for p, ns in px]
    lines.append("SELECT " + ("*" if q.select is None else " ".join(f"?{v}" for v in q.select)))
    lines += [f"FROM {_iri(g, px)}" for g in q.graphs]
    for w in q.windows:
        lines.append(f"FROM NAMED WINDOW {_iri(w.name, px)} ON {_iri(w.stream, px)} [{_spec(w.spec)}]")
    lines.append("WHERE {")
    standalone = [ec.name for ec in q.events if isinstance(ec, A.WinRef)]
    in_seq = {r.name for ec in q.events if isinstance(ec, A.SeqEC) for r in A.ec_windows(ec)}
    if len(set(standalone)) != len(standalone) or set(standalone) & in_seq:
        raise ValueError("no concrete syntax: a window is its own event clause twice, or both its own event clause "
                         "and an element of an event-clause SEQ")
    printed: set = set()

    def block(name: URIRef) -> None:
        if name not in printed:
            printed.add(name)
            lines.append(f"  WINDOW {_iri(name, px)} {{ {_tsp(q.window(name).pattern, px)} }}")

    for ec in q.events:
        if isinstance(ec, A.WinRef):
            block(ec.name)
        else:
            for r in A.ec_windows(ec):
                block(r.name)
            lines.append("  SEQ(" + ", ".join(("!" if isinstance(it, A.Neg) else "") +
                                              _iri((it.item if isinstance(it, A.Neg) else it).name, px)
                                              for it in ec.items) + ")")
    for sp in q.static:
        lines.append("  " + _static(sp, px))
    for f in q.filters:
        lines.append("  " + _filter(f, px))
    lines.append("}")
    return "\n".join(lines) + "\n"
