"""Parser for EP-SPARQL query files (docs/semantics/epsparql.md#epsparql-2.1 to #epsparql-2.3), producing :mod:`ceplab.semantics.epsparql.ast` values.

A file holds PREFIX/BASE declarations followed by one or more SELECT and CONSTRUCT queries written **one after
another** (no separator; a query ends where the next ``SELECT``/``CONSTRUCT`` keyword begins).  Declarations
apply to the whole file and must precede the first query.  ``rdf:``, ``rdfs:``, ``xsd:`` and ``owl:`` are
predeclared (the paper writes ``xsd:duration`` without a declaration); every other prefix, including the
empty prefix ``:``, must be declared.  Bare names (``hasStockPrice`` as in docs/semantics/epsparql.md's shorthand) are not RDF
terms and are rejected with a message that says how to write them.

Grammar (``grammar.lark``; a delta against SPARQL 1.0/1.1, docs/semantics/epsparql.md#epsparql-2.2):

* ``SELECT [DISTINCT|REDUCED] (?v | (expr AS ?v) | * )`` -- DISTINCT/REDUCED are accepted and ignored (results
  are sets, A10).  The paper's unparenthesised forms are accepted where they are unambiguous (docs/semantics/epsparql.md#epsparql-A16):
  ``?count AS ?prevcount + 1`` (query (5): a variable on the left, a non-variable expression on the right,
  read *reversed* as ``(?prevcount + 1 AS ?count)``) and ``?sum / ?count AS ?average`` (query (6): the SPARQL
  1.1 order without parentheses).  ``?a AS ?b`` (a variable on both sides) is rejected: the two conventions
  disagree on which variable is bound (docs/semantics/epsparql.md#epsparql-A16).
* ``CONSTRUCT { template } WHERE ...`` or the manual's ``CONSTRUCT s p o . WHERE ...`` (no braces).
* ``WHERE`` is optional.  The WHERE clause is either a group or the paper's implicit outer group
  ``{A} SEQ {B} SEQ {C} FILTER(...)`` (docs/semantics/epsparql.md#epsparql-2.1): a chain followed by FILTERs, read as ``{ {A} SEQ {B} SEQ {C}
  FILTER(...) }``.
* Groups hold triples blocks (``;`` ``,`` ``a``), nested chains ``{A} op {B} op ...`` with op in ``UNION SEQ
  EQUALS OPTIONALSEQ EQUALSOPTIONAL``, ``OPTIONAL {..}``, ``FILTER`` and sub-selects ``{ SELECT ... }``.
  **All five chain operators have one precedence level and fold LEFT** (docs/semantics/epsparql.md#epsparql-A9): ``{A} SEQ {B} OPTIONALSEQ
  {C}`` is ``SeqRightJoin(SeqJoin(A, B), C)``; write braces to group otherwise.
* FILTER expressions: ``|| && ! < <= = != > >= + - * /``, unary minus, ``BOUND(?x)``, ``getDURATION()``,
  ``getSTARTTIME()``, ``getENDTIME()``, literals (integers, decimals, doubles, strings, booleans, typed
  literals such as ``"P30D"^^xsd:duration``), IRIs.  A minus sign written directly before a number is part of
  the number (``-5`` is the constant -5, SPARQL's NumericLiteralNegative); ``-(5)`` is ``Neg(5)``.

Translation (SPARQL 1.0 section 12.2, docs/semantics/epsparql.md#epsparql-2.3): a triples block is a ``BGP`` (adjacent blocks separated only by
FILTERs are one BGP, as in SPARQL 1.1), juxtaposition is ``Join`` folded left (``Join(Z, A) = A``), UNION
``Union_``, ``OPTIONAL`` -> ``LeftJoin(G, A, F)``, SEQ ``SeqJoin``, EQUALS ``EqJoin``, OPTIONALSEQ
``SeqRightJoin(optional=left, mandatory=right, F)``, EQUALSOPTIONAL ``EqLeftJoin(left, right, F)``.  ``F`` of an
optional operator is the conjunction of the FILTERs written in its optional operand's own group (A8): if the
translated operand is ``Filter(F, A2)`` it is replaced by ``A2`` and ``F`` moves into the operator.  All other
FILTERs of a group are conjoined (in order, folded left with ``And``) and wrap the whole group as ``Filter``.
SELECT expressions become ``Extend`` nodes over the WHERE pattern, in order (the variable must not be bound by
the pattern); ``SELECT *`` is ``projection=None``; a sub-select is ``Project(vars, ...)`` (``SELECT *`` in a
sub-select projects its visible variables in order of first appearance).

Blank nodes: in patterns they become fresh non-distinguished variables (paper footnote 4): ``_:b`` is the
variable named ``"_:b"`` (the same label is the same variable within a query), ``[]`` a fresh
``"_:anonN"``; :func:`is_bnode_var` recognises them, ``SELECT *`` should not show them.  In CONSTRUCT templates
blank nodes stay ``BNode`` (Skolemised by the evaluators, A13c).

Numeric constants are canonical (:func:`ceplab.semantics.epsparql.results.canonical_term`).  ``xsd:duration`` literals
with a year or month component are rejected (A15).  Empty groups and groups with only FILTERs are rejected
(A20).  Every error is a :class:`ceplab.semantics.errors.ParseError` with file, line and column.

:func:`render` prints a query set back as EP-SPARQL with explicit braces around every operator, so that
``parse(render(qs)) == qs``.
"""
from __future__ import annotations

import logging
import re
from functools import lru_cache
from pathlib import Path
from typing import Optional
from urllib.parse import urljoin

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError
from rdflib import RDF, RDFS, XSD, OWL
from rdflib.term import BNode, Literal, URIRef, Variable

from ceplab.semantics.epsparql import ast as A
from ceplab.semantics.epsparql.results import canonical_term
from ceplab.semantics.errors import ParseError

_GRAMMAR = (Path(__file__).with_name("grammar.lark")).read_text(encoding="utf-8")

#: Prefixes available without a declaration.
DEFAULT_PREFIXES: dict[str, str] = {"rdf": str(RDF), "rdfs": str(RDFS), "xsd": str(XSD), "owl": str(OWL)}
#: Name prefix of the variables that stand for blank nodes in patterns (footnote 4).
BNODE_VAR_PREFIX = "_:"

_OPS = {"UNION": A.Union_, "SEQ": A.SeqJoin, "EQUALS": A.EqJoin}
_TIMEFN = {"GETDURATION": "DURATION", "GETSTARTTIME": "STARTTIME", "GETENDTIME": "ENDTIME"}
_ESC = {"t": "\t", "n": "\n", "r": "\r", "b": "\b", "f": "\f", '"': '"', "'": "'", "\\": "\\"}


def _quiet_literal(body: str, datatype) -> Literal:
    """``Literal(body, datatype=datatype)`` without rdflib's logged traceback for ill-typed lexical forms (the
    parser reports those itself)."""
    log = logging.getLogger("rdflib.term")
    old = log.level
    log.setLevel(logging.CRITICAL)
    try:
        return Literal(body, datatype=datatype)
    finally:
        log.setLevel(old)


def is_bnode_var(v: Variable) -> bool:
    """True for the variables the parser made from blank nodes in patterns (non-distinguished, footnote 4)."""
    return str(v).startswith(BNODE_VAR_PREFIX)


@lru_cache(maxsize=1)
def _lark() -> Lark:
    return Lark(_GRAMMAR, parser="lalr", lexer="contextual", propagate_positions=True, start="start")


def _tp(tok) -> A.Pos:
    line = getattr(tok, "line", None)
    return (line, tok.column) if line is not None else None


def _mp(meta) -> A.Pos:
    if meta is None or getattr(meta, "empty", True):
        return None
    return (meta.line, meta.column)


def _unescape(body: str, pos: A.Pos) -> str:
    def rep(m: re.Match) -> str:
        s = m.group(0)
        if s[1] in "uU":
            return chr(int(s[2:], 16))
        if s[1] in _ESC:
            return _ESC[s[1]]
        raise ParseError(f"unknown escape sequence {s!r} in a string", None, *(pos or (None, None)))
    return re.sub(r"\\(u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)", rep, body)


def check_duration(lit: Literal) -> None:
    """Raise ValueError if ``lit`` (an xsd:duration) is malformed or has a year or month component (A15)."""
    from ceplab.semantics.epsparql.translate import duration_seconds
    duration_seconds(lit)


class _ToAst(Transformer):
    """Parse tree -> intermediate values -> AST.  Semantic errors raise ParseError without a file name."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text
        self.prefixes: dict[str, str] = {}
        self.declared: list[tuple[str, str]] = []
        self.base: Optional[str] = None
        self.seen_query = False
        self._bare_nums: set[int] = set()
        self._anon = 0

    # ---------------------------------------------------------------- helpers
    def _err(self, msg: str, pos: A.Pos) -> ParseError:
        return ParseError(msg, None, *(pos or (None, None)))

    def _fresh_anon(self) -> str:
        while True:
            self._anon += 1
            name = f"anon{self._anon}"
            if f"_:{name}" not in self.text:
                return name

    # ---------------------------------------------------------------- prologue
    def prefix_decl(self, items):
        kw, ns, iri = items
        if self.seen_query:
            raise self._err("PREFIX declarations must come before the first query (they apply to the whole "
                            "file)", _tp(kw))
        name = str(ns)[:-1]
        value = self._resolve(str(iri)[1:-1])
        self.prefixes[name] = value
        self.declared = [(p, v) for p, v in self.declared if p != name] + [(name, value)]
        return None

    def base_decl(self, items):
        kw, iri = items
        if self.seen_query:
            raise self._err("BASE must come before the first query", _tp(kw))
        self.base = self._resolve(str(iri)[1:-1])
        return None

    def _resolve(self, iri: str) -> str:
        if self.base and not re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", iri):
            return urljoin(self.base, iri)
        return iri

    # ---------------------------------------------------------------- terms
    def iri_ref(self, items):
        tok = items[0]
        return URIRef(self._resolve(_unescape(str(tok)[1:-1], _tp(tok))))

    def pname(self, items):
        tok = items[0]
        s = str(tok)
        pre, _, local = s.partition(":")
        ns = self.prefixes.get(pre, DEFAULT_PREFIXES.get(pre))
        if ns is None:
            raise self._err(f"unknown prefix {pre + ':'!r} in {s!r}: declare it first, e.g. "
                            f"PREFIX {pre}: <http://example.org/>", _tp(tok))
        return URIRef(ns + local)

    def var_term(self, items):
        tok = items[0]
        name = str(tok)[1:]
        return Variable(name)

    def rdf_type(self, items):
        return RDF.type

    def bnode(self, items):
        return ("bnode", str(items[0])[2:], _tp(items[0]))

    def anon(self, items):
        return ("bnode", self._fresh_anon(), None)

    def _literal(self, string_tok, extra) -> Literal:
        pos = _tp(string_tok)
        body = _unescape(str(string_tok)[1:-1], pos)
        if extra is None:
            return Literal(body)
        if isinstance(extra, Token) and extra.type == "LANGTAG":
            return Literal(body, lang=str(extra)[1:])
        lit = _quiet_literal(body, extra)
        return self._check_literal(lit, pos)

    def _check_literal(self, lit: Literal, pos: A.Pos) -> Literal:
        if lit.datatype in (XSD.duration, XSD.dayTimeDuration, XSD.yearMonthDuration):
            if lit.datatype == XSD.yearMonthDuration:
                raise self._err(f"{lit.n3()}: xsd:yearMonthDuration has no fixed length in ticks (docs/semantics/epsparql.md#epsparql-A15); "
                                "write an xsd:duration in days, e.g. \"P30D\"^^xsd:duration", pos)
            try:
                check_duration(lit)
            except ValueError as e:
                raise self._err(str(e), pos) from None
            return lit
        if lit.datatype in (XSD.double, XSD.float):
            raise self._err(f"{lit.n3()}: xsd:double/xsd:float are not supported: arithmetic is exact (integers and "
                            "decimals, docs/semantics/epsparql.md#epsparql-A11); write it as an xsd:decimal", pos)
        if lit.datatype == XSD.dateTime and getattr(lit, "ill_typed", False):
            raise self._err(f"malformed xsd:dateTime {lit.n3()} (expected e.g. \"2011-01-01T00:00:00Z\")", pos)
        try:
            return canonical_term(lit)
        except ValueError as e:
            raise self._err(str(e), pos) from None

    def rdf_literal(self, items):
        return self._literal(items[0], items[1] if len(items) > 1 else None)

    def _number(self, tok, negative=False) -> Literal:
        s = str(tok)
        if negative:
            s = "-" + s
        if re.search(r"[eE]", s):
            raise self._err(f"the double {s} is not supported: EP-SPARQL arithmetic here is exact (integers and "
                            "decimals, docs/semantics/epsparql.md#epsparql-A11); write it as a decimal", _tp(tok))
        dt = XSD.decimal if "." in s else XSD.integer
        return canonical_term(Literal(s, datatype=dt))

    def num(self, items):
        return self._number(items[-1])

    def neg_num(self, items):
        return self._number(items[-1], negative=True)

    def boolean(self, items):
        return Literal(str(items[0]) == "true", datatype=XSD.boolean)

    # ---------------------------------------------------------------- triples
    def object_list(self, items):
        return list(items)

    def property_list(self, items):
        out = []
        it = iter(items)
        for verb in it:
            objs = next(it)
            out.append((verb, objs))
        return out

    @v_args(meta=True)
    def triples_ss(self, meta, items):
        subj, plist = items
        return [(subj, v, o, _mp(meta)) for v, objs in plist for o in objs]

    def triples_block(self, items):
        return [t for block in items if block for t in block]

    # ---------------------------------------------------------------- expressions
    @v_args(meta=True)
    def evar(self, meta, items):
        return A.Var(Variable(str(items[0])[1:]), pos=_tp(items[0]))

    def econst(self, items):
        return A.Const(items[0])

    def estring(self, items):
        return A.Const(self._literal(items[0], items[1] if len(items) > 1 else None), pos=_tp(items[0]))

    def enum(self, items):
        c = A.Const(self._number(items[0]), pos=_tp(items[0]))
        self._bare_nums.add(id(c))
        return c

    def eboolean(self, items):
        return A.Const(Literal(str(items[0]) == "true", datatype=XSD.boolean), pos=_tp(items[0]))

    def paren(self, items):
        e = items[0]
        self._bare_nums.discard(id(e))
        return e

    def neg(self, items):
        op, e = items
        if id(e) in self._bare_nums and isinstance(e, A.Const):
            # SPARQL's NumericLiteralNegative: '-5' is the constant -5
            return A.Const(self._number(str(e.term), negative=True), pos=_tp(op))
        return A.Neg(e, pos=_tp(op))

    def uplus(self, items):
        return items[1]

    def not_(self, items):
        e = items[0]
        return A.Not(e, pos=getattr(e, "pos", None))

    def arith(self, items):
        l, op, r = items
        return A.Arith(str(op), l, r, pos=_tp(op))

    def cmp(self, items):
        l, op, r = items
        return A.Cmp(str(op), l, r, pos=_tp(op))

    def and_(self, items):
        l, r = items
        return A.And(l, r, pos=getattr(l, "pos", None))

    def or_(self, items):
        l, r = items
        return A.Or(l, r, pos=getattr(l, "pos", None))

    def bound(self, items):
        kw, v = items
        return A.Bound(Variable(str(v)[1:]), pos=_tp(kw))

    def timefn(self, items):
        kw = items[0]
        return A.TimeFn(_TIMEFN[str(kw).upper()], pos=_tp(kw))

    def builtin(self, items):
        return items[0]

    # ---------------------------------------------------------------- group patterns
    def filter(self, items):
        kw, e = items
        return ("filter", e, _tp(kw))

    def optional(self, items):
        kw, g = items
        return ("optional", g, _tp(kw))

    @v_args(meta=True)
    def group_body(self, meta, items):
        return items

    def group(self, items):
        lb, body = items
        return self._group(body, _tp(lb), explicit=True)

    def _group(self, elems, pos, explicit: bool):
        filters: list[A.Expr] = []
        g: Optional[A.Pattern] = None
        pending: list[A.TriplePattern] = []
        pending_pos: A.Pos = None

        def flush():
            nonlocal g, pending, pending_pos
            if pending:
                bgp = A.BGP(tuple(pending), pos=pending_pos)
                g = bgp if g is None else A.Join(g, bgp, pos=g.pos)
                pending, pending_pos = [], None

        for el in elems:
            if isinstance(el, list):               # a triples block
                if not el:
                    continue
                tps = [self._triple(*t) for t in el]
                if not pending:
                    pending_pos = tps[0].pos
                pending.extend(tps)
            elif isinstance(el, tuple) and el[0] == "filter":
                filters.append(el[1])
            elif isinstance(el, tuple) and el[0] == "optional":
                flush()
                _, a, opos = el
                if g is None:
                    raise self._err("OPTIONAL needs a mandatory pattern before it in the same group "
                                    "(an optional part alone has no interval; docs/semantics/epsparql.md#epsparql-A20)", opos)
                if isinstance(a, A.Filter):
                    g = A.LeftJoin(g, a.pattern, a.expr, pos=opos)
                else:
                    g = A.LeftJoin(g, a, None, pos=opos)
            else:                                   # a chain / nested group / sub-select
                flush()
                g = el if g is None else A.Join(g, el, pos=g.pos)
        flush()
        if g is None:
            if filters:
                raise self._err("this group has only FILTERs and no triple pattern, so it matches nothing and "
                                "getDURATION()/getSTARTTIME()/getENDTIME() have no interval (docs/semantics/epsparql.md#epsparql-A20)", pos)
            raise self._err("empty group pattern '{}': it matches no triple and has no interval (docs/semantics/epsparql.md#epsparql-A20)", pos)
        if filters:
            g = A.Filter(_conj(filters), g, pos=pos)
        return g

    def _triple(self, s, p, o, pos) -> A.TriplePattern:
        def term(t):
            if isinstance(t, tuple) and t[0] == "bnode":
                return Variable(BNODE_VAR_PREFIX + t[1])
            return t
        if isinstance(p, Literal) or (isinstance(p, tuple) and p[0] == "bnode"):
            raise self._err("a predicate must be an IRI or a variable", pos)
        if isinstance(s, Literal):
            raise self._err(f"a literal ({s.n3()}) cannot be the subject of a triple pattern", pos)
        return A.TriplePattern(term(s), term(p), term(o), pos=pos)

    def _template_triple(self, s, p, o, pos) -> A.TriplePattern:
        def term(t):
            if isinstance(t, tuple) and t[0] == "bnode":
                return BNode(t[1])
            return t
        if isinstance(s, Literal):
            raise self._err(f"a literal ({s.n3()}) cannot be the subject of a template triple", pos)
        if isinstance(p, Literal) or (isinstance(p, tuple) and p[0] == "bnode"):
            raise self._err("a template predicate must be an IRI or a variable", pos)
        return A.TriplePattern(term(s), term(p), term(o), pos=pos)

    def chain(self, items):
        acc = items[0]
        for i in range(1, len(items), 2):
            op, right = items[i], items[i + 1]
            word = str(op).upper()
            pos = _tp(op)
            if word in _OPS:
                acc = _OPS[word](acc, right, pos=pos)
            elif word == "OPTIONALSEQ":
                if isinstance(acc, A.Filter):
                    acc = A.SeqRightJoin(acc.pattern, right, acc.expr, pos=pos)
                else:
                    acc = A.SeqRightJoin(acc, right, None, pos=pos)
            elif word == "EQUALSOPTIONAL":
                if isinstance(right, A.Filter):
                    acc = A.EqLeftJoin(acc, right.pattern, right.expr, pos=pos)
                else:
                    acc = A.EqLeftJoin(acc, right, None, pos=pos)
            else:  # pragma: no cover - grammar
                raise self._err(f"unknown operator {word}", pos)
        return acc

    def where_clause(self, items):
        elems = [i for i in items if not (isinstance(i, Token))]
        chain = elems[0]
        if len(elems) == 1:
            return chain
        return self._group(elems, getattr(chain, "pos", None), explicit=False)

    # ---------------------------------------------------------------- projections and queries
    def proj_star(self, items):
        return None

    def proj_items(self, items):
        return items

    def proj_var(self, items):
        return ("var", Variable(str(items[0])[1:]), _tp(items[0]))

    def proj_paren(self, items):
        e, _as, v = items
        return ("expr", Variable(str(v)[1:]), e, _tp(_as))

    def proj_bare(self, items):
        left, _as, right = items
        pos = _tp(_as)
        if isinstance(left, A.Var) and isinstance(right, A.Var):
            raise self._err(f"ambiguous projection '?{left.var} AS ?{right.var}': SPARQL 1.1 writes "
                            f"(expr AS ?v) but the paper's query (5) writes ?v AS expr, so it is unclear which "
                            f"variable is bound (docs/semantics/epsparql.md#epsparql-A16); write (?{right.var} AS ?{left.var}) or "
                            f"(?{left.var} AS ?{right.var})", pos)
        if isinstance(left, A.Var):      # the paper's reversed ?v AS expr (query (5), docs/semantics/epsparql.md#epsparql-A16)
            return ("expr", left.var, right, pos)
        if isinstance(right, A.Var):     # expr AS ?v without parentheses (query (6))
            return ("expr", right.var, left, pos)
        raise self._err("'AS' needs a variable on one side: write (expr AS ?v)", pos)

    def select_mod(self, items):
        return None

    def _projection(self, proj, where, pos):
        if proj is None:
            return None, where
        names: list[Variable] = []
        for item in proj:
            if item[0] == "var":
                _, v, ipos = item
                if v in names:
                    raise self._err(f"?{v} is projected twice", ipos)
                names.append(v)
            else:
                _, v, e, ipos = item
                if v in names:
                    raise self._err(f"?{v} is projected twice", ipos)
                if v in A.pattern_vars(where):
                    raise self._err(f"(... AS ?{v}): ?{v} is already bound by the WHERE pattern; an expression "
                                    "must bind a new variable (SPARQL 1.1 Extend)", ipos)
                where = A.Extend(where, v, e, pos=ipos)
                names.append(v)
        return tuple(names), where

    def _select_parts(self, items):
        # items: SELECT, [select_mod -> None], projection (None for '*', else a list), where
        return items[0], items[-2], items[-1]

    def select_query(self, items):
        kw, proj, where = self._select_parts(items)
        self.seen_query = True
        names, where = self._projection(proj, where, _tp(kw))
        if names is None:        # SELECT *: the visible variables, without blank-node variables (SPARQL 18.2.1)
            names = tuple(v for v in _ordered_vars(where) if not is_bnode_var(v))
        return A.Select(names, where, pos=_tp(kw))

    def subselect(self, items):
        kw, proj, where = self._select_parts(items)
        names, where = self._projection(proj, where, _tp(kw))
        if names is None:
            names = tuple(v for v in _ordered_vars(where) if not is_bnode_var(v))
        return A.Project(names, where, pos=_tp(kw))

    def subgroup(self, items):
        return items[1]

    def _construct(self, kw, triples, where):
        self.seen_query = True
        if not triples:
            raise self._err("empty CONSTRUCT template: it would add nothing to the stream", _tp(kw))
        template = tuple(self._template_triple(*t) for t in triples)
        return A.Construct(template, where, pos=_tp(kw))

    def construct_braced(self, items):
        kw = items[0]
        triples = items[1] if len(items) == 3 else []
        return self._construct(kw, triples, items[-1])

    def construct_bare(self, items):
        kw, triples, where = items
        return self._construct(kw, triples, where)

    def start(self, items):
        return [i for i in items if i is not None]


def _conj(es: list[A.Expr]) -> A.Expr:
    out = es[0]
    for e in es[1:]:
        out = A.And(out, e, pos=out.pos)
    return out


def _ordered_vars(p: A.Pattern) -> list[Variable]:
    """The in-scope variables of ``p`` in order of first appearance (left to right)."""
    out: list[Variable] = []

    def add(v):
        if v not in out:
            out.append(v)

    def walk(q):
        if isinstance(q, A.BGP):
            for tp in q.triples:
                for t in (tp.s, tp.p, tp.o):
                    if isinstance(t, Variable):
                        add(t)
        elif isinstance(q, A.Project):
            for v in q.vars:
                add(v)
        elif isinstance(q, A.Extend):
            walk(q.pattern)
            add(q.var)
        else:
            for c in A.children(q):
                walk(c)
    walk(p)
    return out


# -------------------------------------------------------------------------------------------- error messages
#: Operators of the ETALIS implementation's EP-SPARQL parser that are not in the paper's language (docs/semantics/epsparql.md#epsparql-2.2).
ETALIS_OPS = frozenset({"AND", "PAR", "OR", "MEETS", "DURING", "STARTS", "FINISHES", "WITHIN", "DO", "CNOT",
                        "NOT", "SEQUENTIONAL", "STARSEQ", "ANDTHEN"})
#: SPARQL keywords outside the supported fragment.
UNSUPPORTED_SPARQL = frozenset({"ORDER", "LIMIT", "OFFSET", "GROUP", "HAVING", "GRAPH", "MINUS", "BIND",
                                "VALUES", "SERVICE", "ASK", "DESCRIBE", "FROM", "EXISTS", "NAMED", "IN",
                                "REGEX", "STR", "LANG", "DATATYPE", "ISIRI", "ISURI", "ISBLANK", "ISLITERAL",
                                "COUNT", "SUM", "AVG", "MIN", "MAX", "SAMPLE", "IF", "COALESCE"})


def _word_at(text: str, line: int, col: int) -> str:
    lines = text.split("\n")
    if not (1 <= line <= len(lines)):
        return ""
    rest = lines[line - 1][col - 1:]
    m = re.match(r"[A-Za-z_][A-Za-z0-9_\-]*:?|\S+", rest)
    return m.group(0) if m else ""


def _describe(e: UnexpectedInput, text: str, line: int, col: int) -> str:
    if isinstance(e, UnexpectedEOF) or (isinstance(e, UnexpectedToken) and e.token.type == "$END"):
        opened = text.count("{") - text.count("}")
        if opened > 0:
            return f"unexpected end of file: {opened} '{{' not closed"
        return "unexpected end of file (the query is incomplete: a WHERE pattern is missing?)"
    word = _word_at(text, line, col)
    up = word.upper()
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_\-]*", word):
        if up == "SEQUENTIONAL":
            return ("no operator 'Sequentional': the paper only mentions it as a hypothetical operator that would "
                    "break timewise monotonicity (docs/semantics/epsparql.md#epsparql-E7); supported: UNION, SEQ, EQUALS, OPTIONALSEQ, "
                    "EQUALSOPTIONAL, OPTIONAL")
        if up in ETALIS_OPS:
            return (f"unknown operator {word!r}: the ETALIS implementation accepts it between groups, but the "
                    "paper's EP-SPARQL has only UNION, SEQ, EQUALS, OPTIONALSEQ, EQUALSOPTIONAL and OPTIONAL "
                    "(docs/semantics/epsparql.md#epsparql-2.2)")
        if up in UNSUPPORTED_SPARQL:
            return (f"SPARQL keyword {word!r} is not supported (the EP-SPARQL fragment has SELECT, CONSTRUCT, "
                    "WHERE, OPTIONAL, UNION, FILTER, BOUND and the temporal operators; docs/semantics/epsparql.md#epsparql-2.2)")
        if up in ("SELECT", "CONSTRUCT", "WHERE", "FILTER", "OPTIONAL", "UNION", "SEQ", "EQUALS",
                  "OPTIONALSEQ", "EQUALSOPTIONAL", "PREFIX", "BASE", "AS"):
            return f"unexpected keyword {word!r} here"
        if word.startswith("get"):
            return (f"unknown function {word!r} (EP-SPARQL adds getDURATION(), getSTARTTIME(), getENDTIME(); "
                    "docs/semantics/epsparql.md#epsparql-2.1)")
        return (f"bare name {word!r} is not an RDF term: write a prefixed name (:{word}, after "
                f"PREFIX : <http://example.org/>) or an IRI <http://example.org/{word}>")
    if isinstance(e, UnexpectedToken) and e.token.type == "AS":
        return "unexpected 'AS': an expression in SELECT is written (expr AS ?v)"
    if word.startswith("{") and isinstance(e, UnexpectedToken):
        return "unexpected '{' (a group cannot follow here; put an operator such as SEQ between groups)"
    if word.startswith("}"):
        return "unexpected '}' (unbalanced braces, or a group ends in the middle of a triple)"
    if word.startswith("[") and not word.startswith("[]"):
        return "blank node property lists [ p o ] are not supported; use a blank node label _:b"
    shown = word[:20]
    return f"unexpected {shown!r}" if shown else "unexpected input"


def parse(text: str, file: Optional[str] = None) -> A.QuerySet:
    """Parse EP-SPARQL query text (module docstring) into a :class:`~ceplab.semantics.epsparql.ast.QuerySet`.

    Raises:
        ParseError: with file, line and column, for syntax errors and the well-formedness conditions above.
    """
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
    tr = _ToAst(text)
    try:
        items = tr.transform(tree)
    except VisitError as e:
        orig = e.orig_exc
        if isinstance(orig, ParseError):
            raise ParseError(orig.message, file, orig.line, orig.column) from None
        raise
    except ParseError as e:
        raise ParseError(e.message, file, e.line, e.column) from None
    queries = tuple(q for q in items if isinstance(q, (A.Select, A.Construct)))
    if not queries:
        raise ParseError("no query: the file has no SELECT or CONSTRUCT query", file, None, None)
    return A.QuerySet(queries, tuple(tr.declared))


def parse_file(path) -> A.QuerySet:
    """Parse the query file at ``path`` (errors name the file)."""
    p = Path(path)
    return parse(p.read_text(encoding="utf-8"), file=str(p))


# -------------------------------------------------------------------------------------------- printer
_PN_LOCAL = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*")


def _iri(u: URIRef, prefixes: tuple[tuple[str, str], ...], verb: bool = False) -> str:
    s = str(u)
    if verb and u == RDF.type:
        return "a"
    declared = {p for p, _ in prefixes}
    every = list(prefixes) + [(p, ns) for p, ns in DEFAULT_PREFIXES.items() if p not in declared]
    for p, ns in every:
        if s.startswith(ns) and _PN_LOCAL.fullmatch(s[len(ns):]):
            return f"{p}:{s[len(ns):]}"
    return f"<{s}>"


def _term(t, prefixes, verb: bool = False) -> str:
    if isinstance(t, Variable):
        if is_bnode_var(t):
            return f"_:{str(t)[len(BNODE_VAR_PREFIX):]}"
        return f"?{t}"
    if isinstance(t, BNode):
        return f"_:{t}"
    if isinstance(t, URIRef):
        return _iri(t, prefixes, verb)
    if isinstance(t, Literal):
        if t.datatype in (XSD.integer, XSD.decimal) and re.fullmatch(r"-?[0-9]+(\.[0-9]+)?", str(t)):
            return str(t)
        if t.datatype is not None and t.datatype != XSD.string:
            return '"' + _escape(str(t)) + '"^^' + _iri(t.datatype, prefixes)
        return t.n3()
    raise ValueError(f"cannot render term {t!r}")


def _triple_text(tp: A.TriplePattern, px) -> str:
    return f"{_term(tp.s, px)} {_term(tp.p, px, verb=True)} {_term(tp.o, px)}"


def _escape(s: str) -> str:
    return (s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
            .replace("\t", "\\t"))


def _expr(e: A.Expr, px) -> str:
    if isinstance(e, A.Var):
        return f"?{e.var}"
    if isinstance(e, A.Const):
        return _term(e.term, px)
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
    if isinstance(e, A.Neg):
        return f"-({_expr(e.expr, px)})"
    if isinstance(e, A.Bound):
        return f"BOUND(?{e.var})"
    if isinstance(e, A.TimeFn):
        return f"get{e.name}()"
    raise ValueError(f"cannot render expression {e!r}")


def _optional_operand(p: A.Pattern, f: Optional[A.Expr], px) -> str:
    if f is None:
        if isinstance(p, A.Filter):
            raise ValueError("an optional operand that is a Filter with F = None has no concrete syntax "
                             "(its FILTER would become the operator's F, docs/semantics/epsparql.md#epsparql-2.3)")
        return _pat(p, px)
    return "{ " + _pat(p, px) + f" FILTER {_expr_top(f, px)} }}"


def _expr_top(e, px) -> str:
    s = _expr(e, px)
    return s if s.startswith("(") else f"({s})"


def _peel(p: A.Pattern, names: tuple[Variable, ...]) -> tuple[A.Pattern, dict]:
    exts: dict[Variable, A.Expr] = {}
    while isinstance(p, A.Extend):
        if p.var not in names or p.var in exts:
            raise ValueError(f"Extend of ?{p.var} is not a projection expression: no concrete syntax")
        exts[p.var] = p.expr
        p = p.pattern
    # Extends must appear in projection order (innermost first)
    order = [v for v in names if v in exts]
    return p, {"exprs": exts, "order": order}


def _select_head(names, p, px) -> tuple[str, A.Pattern]:
    if names is None:
        if isinstance(p, A.Extend):
            raise ValueError("SELECT * cannot carry projection expressions")
        return "SELECT *", p
    inner, info = _peel(p, names)
    # check nesting order: the innermost Extend must be the first expression in projection order
    q = p
    seen = []
    while isinstance(q, A.Extend):
        seen.append(q.var)
        q = q.pattern
    if list(reversed(seen)) != info["order"]:
        raise ValueError("projection expressions are nested out of projection order")
    items = []
    for v in names:
        if v in info["exprs"]:
            items.append(f"({_expr(info['exprs'][v], px)} AS ?{v})")
        else:
            items.append(f"?{v}")
    if not items:
        raise ValueError("a SELECT must project at least one variable")
    return "SELECT " + " ".join(items), inner


def _pat(p: A.Pattern, px) -> str:
    """A pattern as one braced group whose translation is exactly ``p``."""
    if isinstance(p, A.BGP):
        return "{ " + " . ".join(_triple_text(tp, px) for tp in p.triples) + " }"
    if isinstance(p, A.Join):
        return "{ " + _pat(p.left, px) + " " + _pat(p.right, px) + " }"
    if isinstance(p, A.Union_):
        return "{ " + _pat(p.left, px) + " UNION " + _pat(p.right, px) + " }"
    if isinstance(p, A.SeqJoin):
        return "{ " + _pat(p.left, px) + " SEQ " + _pat(p.right, px) + " }"
    if isinstance(p, A.EqJoin):
        return "{ " + _pat(p.left, px) + " EQUALS " + _pat(p.right, px) + " }"
    if isinstance(p, A.LeftJoin):
        return "{ " + _pat(p.left, px) + " OPTIONAL " + _optional_operand(p.right, p.expr, px) + " }"
    if isinstance(p, A.SeqRightJoin):
        return ("{ " + _optional_operand(p.optional, p.expr, px) + " OPTIONALSEQ " + _pat(p.mandatory, px)
                + " }")
    if isinstance(p, A.EqLeftJoin):
        return "{ " + _pat(p.left, px) + " EQUALSOPTIONAL " + _optional_operand(p.right, p.expr, px) + " }"
    if isinstance(p, A.Filter):
        return "{ " + _pat(p.pattern, px) + f" FILTER {_expr_top(p.expr, px)} }}"
    if isinstance(p, A.Project):
        head, inner = _select_head(p.vars, p.pattern, px)
        return "{ " + head + " WHERE " + _pat(inner, px) + " }"
    if isinstance(p, A.Extend):
        raise ValueError("Extend has concrete syntax only at the root of a SELECT or sub-select")
    raise ValueError(f"cannot render pattern {p!r}")


def render_query(q: A.Query, prefixes: tuple[tuple[str, str], ...] = ()) -> str:
    """One query as EP-SPARQL text."""
    if isinstance(q, A.Select):
        head, inner = _select_head(q.projection, q.where, prefixes)
        return f"{head}\nWHERE {_pat(inner, prefixes)}"
    if isinstance(q, A.Construct):
        tmpl = " . ".join(_triple_text(tp, prefixes) for tp in q.template)
        return f"CONSTRUCT {{ {tmpl} }}\nWHERE {_pat(q.where, prefixes)}"
    raise ValueError(f"not a query: {q!r}")


def render(qs: A.QuerySet) -> str:
    """A query set as parseable EP-SPARQL with explicit braces around every operator (``parse(render(qs)) ==
    qs`` for every query set the parser can produce).

    Raises:
        ValueError: an AST with no concrete syntax (an ``Extend`` below the root, an optional operand that is a
            ``Filter`` while the operator's ``F`` is None, ...).
    """
    lines = [f"PREFIX {p}: <{ns}>" for p, ns in qs.prefixes]
    for q in qs.queries:
        lines.append(render_query(q, qs.prefixes))
    return "\n".join(lines) + "\n"
