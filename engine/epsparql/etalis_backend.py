"""ETALIS backend of the EP-SPARQL engine: the ETALIS-expressible fragment of a query, compiled to an ETALIS
rule program and run event-at-a-time on the project's own ETALIS engine (:mod:`ceplab.engine.etalis.evaluate`).

Source: paper section 5 (EP-SPARQL queries are compiled into event-driven backward chaining rules of ETALIS;
SEQ -> ``seq``, EQUALS -> ``equals``, juxtaposition/BGP -> ``and``, UNION -> ``or``) and docs/semantics/epsparql.md#epsparql-9.4
(the positive temporal core is ETALIS's declarative semantics lifted to SPARQL mappings and interval triples;
the UNRESTRICTED policy of :class:`ceplab.semantics.etalis.options.Options`, the default, is the minimal model and so
matches EP-SPARQL's set semantics without consumption, docs/semantics/epsparql.md#epsparql-A18/#epsparql-E11).

**Encoding** (injective, decoded exactly).  The triple ``s p o`` occurring on ``[a, b]`` is the ETALIS event
``'<p>'(s', o')`` on ``[a, b]``, whose name is the N-Triples form of the predicate; when a query has a triple
pattern with a *variable* predicate the occurrence is also the event ``triple(s', p', o')`` (the paper's own
``triple/3`` encoding).  Terms, after :func:`ceplab.semantics.epsparql.results.canonical_term`:

* an ``xsd:integer`` literal is the integer ``Num(v)`` (so ``where`` can do integer arithmetic on it);
* an IRI or blank node is the string constant ``Str(n3)`` (``"<http://..>"``, ``"_:b0"``);
* any other literal is the atom ``Sym(n3)`` (``'"abc"@en'``, ``'"1.5"^^<..#decimal>'``), which never
  starts like the marker below;
* a variable left unbound by one branch of a UNION is the atom ``unbound`` (``X = unbound`` in a ``where``
  padding the branch, because ETALIS ``or`` keeps only the variables bound on both sides).

A SELECT query ``i`` becomes the rule ``q<i>(V_x, ..) <- body.`` with the projected variables (sorted by name)
as head arguments; each derived ``q<i>`` event on ``[a, b]`` decodes to one :class:`Row`.

**Fragment** (everything else raises :class:`ceplab.semantics.errors.UnsupportedError` naming the operator; it runs on
the native evaluator :mod:`ceplab.engine.epsparql.evaluate`):

* SELECT with ``*`` or plain variables; BGP (``and`` of its triple patterns, ``bgp_mode="per_pattern"``), Join
  (``and``), SEQ (``seq``), EQUALS (``equals``), UNION (``or``).  A variable shared by the two operands of a
  Join/SEQ/EQUALS must be bound on both sides in every row (not only on one side of a UNION): ETALIS joins
  on equality, SPARQL on compatibility.
* FILTER, three-valued (docs/semantics/epsparql.md#epsparql-A11) and exact: the filter is put in negation normal form; a literal is compiled
  to a condition that holds iff its SPARQL value is *true* (positive occurrence) or *false* (negated
  occurrence), so an error makes both false (Kleene logic: a row passes iff the whole filter is true).
  Literals: ``e1 op e2`` over integer expressions (variables, integer constants, ``+ - *``, unary minus; not
  two bare variables), ``?v = <iri>`` / ``!=``, ``BOUND(?v)``, ``&& || !``.  A variable bound to a
  non-number makes integer arithmetic undefined (the ETALIS engine's ``X + 0`` is then false in either
  polarity); "``?v`` is an IRI or blank node" (``?v = 1`` is *false* there, not an error) is ``V >= ""``
  in the ETALIS engine's clingo symbol order (strings ``Str`` sort after atoms ``Sym`` and numbers).
* Time: top-level conjuncts ``getDURATION() < c`` / ``<= c`` (integer or ``xsd:duration`` constant) become the
  ETALIS window ``(p).c'`` ("end - start <= c'", ``window="at_most"``).  ETALIS ``where`` cannot read an
  instance's interval, so ``getSTARTTIME()``, ``getENDTIME()`` and other duration comparisons are unsupported.
* Options: the defaults, except switches that cannot change this fragment's answers (the optional-operator
  switches, ``construct_unbound``, ``optional_filter``); ``tick_seconds`` is honoured for duration constants.
  No background knowledge / RDFS.

At run time a numeric literal that is not an ``xsd:integer`` (``xsd:decimal``, ``xsd:int``, ..) in the stream
raises :class:`UnsupportedError` when the plan compares values (its exact numeric value is not an integer
the ETALIS engine can compare); without value comparisons such literals are just constants.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Optional, Union

from rdflib import XSD, Literal
from rdflib.term import BNode, URIRef, Variable

from ceplab.semantics.epsparql import ast as A
from ceplab.semantics.epsparql.options import Options
from ceplab.semantics.epsparql.results import INTEGER_TYPES, Result, Row, canonical_term
from ceplab.semantics.epsparql.streams import Background, Occurrence
from ceplab.semantics.errors import UnsupportedError
from ceplab.semantics.etalis import ast as EA
from ceplab.semantics.etalis.streams import StreamEvent

__all__ = ["EtalisPlan", "EtalisBackedEvaluator", "compile_to_etalis", "encode_term", "decode_value",
           "UnsupportedError"]

_NATIVE = "; it runs on the native EP-SPARQL engine (ceplab.engine.epsparql.evaluator)"
UNBOUND = EA.Sym("unbound")
TRIPLE = "triple"
_TRUE = EA.Cmp("=:=", EA.Num(0), EA.Num(0))
_FALSE = EA.Cmp("=:=", EA.Num(0), EA.Num(1))
_ORD_OP = {"<": "<", "<=": "=<", ">": ">", ">=": ">="}
_NEG_OP = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "=": "!=", "!=": "="}
_FLIP_OP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "=", "!=": "!="}
_OPNAME = {A.LeftJoin: "OPTIONAL", A.SeqRightJoin: "OPTIONALSEQ", A.EqLeftJoin: "EQUALSOPTIONAL",
           A.Extend: "(expr AS ?var)", A.Project: "sub-SELECT"}
_BINARY = {A.Join: "and", A.SeqJoin: "seq", A.EqJoin: "equals"}


def _unsupported(what: str, node=None) -> UnsupportedError:
    pos = getattr(node, "pos", None)
    line, col = (pos if pos else (None, None))
    return UnsupportedError(f"{what} is outside the ETALIS fragment{_NATIVE}", None, line, col)


# ------------------------------------------------------------------------------------------------ terms
@lru_cache(maxsize=1 << 16)
def encode_term(t) -> EA.Term:
    """An RDF term as an ETALIS constant (module docstring): ``xsd:integer`` -> ``Num``, IRI/blank node ->
    ``Str(n3)``, other literal -> ``Sym(n3)``; canonical numeric forms first.  Injective.

    Raises:
        ValueError: an ill-typed numeric literal (as :func:`canonical_term`).
    """
    t = canonical_term(t)
    if isinstance(t, Literal):
        if t.datatype == XSD.integer:
            return EA.Num(int(str(t)))
        return EA.Sym(t.n3())
    if isinstance(t, (URIRef, BNode)):
        return EA.Str(t.n3())
    raise TypeError(f"not an RDF term: {t!r}")


def decode_value(v: EA.Term) -> Optional[str]:
    """Inverse of :func:`encode_term` on canonical N-Triples strings (``None`` for the ``unbound`` marker)."""
    if isinstance(v, EA.Num):
        return Literal(str(v.value), datatype=XSD.integer).n3()
    if isinstance(v, EA.Str):
        return v.value
    if isinstance(v, EA.Sym):
        return None if v == UNBOUND else v.name
    raise ValueError(f"not an encoded RDF term: {v}")


_TOK = re.compile(r"""\s*(?:(-?\d+)|'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"|([a-z][A-Za-z0-9_]*))\s*(,|\)|$)""",
                  re.S)
_UNESC = re.compile(r"\\(.)", re.S)


def _unescape(s: str) -> str:
    return _UNESC.sub(lambda m: "\n" if m.group(1) == "n" else m.group(1), s)


@lru_cache(maxsize=1 << 16)
def _parse_atom(text: str) -> tuple[str, tuple[EA.Term, ...]]:
    """``name(arg, ..)`` as printed by :class:`ceplab.semantics.etalis.ast.EventAtom` with constant arguments (ints,
    quoted/bare atoms, strings) -> ``(name, args)``."""
    i = text.find("(")
    if i < 0:
        return text, ()
    name, rest, pos, args = text[:i], text[i + 1:], 0, []
    while pos < len(rest):
        m = _TOK.match(rest, pos)
        if m is None:
            raise ValueError(f"cannot decode ETALIS result {text!r}")
        n, q, s, bare, _ = m.groups()
        if n is not None:
            args.append(EA.Num(int(n)))
        elif q is not None:
            args.append(EA.Sym(_unescape(q)))
        elif s is not None:
            args.append(EA.Str(_unescape(s)))
        else:
            args.append(EA.Sym(bare))
        pos = m.end()
    return name, tuple(args)


# ------------------------------------------------------------------------------------------------ plan
@dataclass(frozen=True)
class EtalisPlan:
    """The ETALIS program of an EP-SPARQL query set and the information to encode its input and decode its
    output.

    Attributes:
        program: one event rule ``q<i>(..) <- body.`` per SELECT query ``i`` (:mod:`ceplab.semantics.etalis.ast`).
        heads: per SELECT query, ``(head name, variable names aligned with the head arguments)``.
        predicates: the N-Triples forms of the constant predicates of the triple patterns (the event names
            that can match; occurrences of other predicates are not sent to ETALIS).
        needs_triple: some triple pattern has a variable predicate: occurrences are also sent as
            ``triple(s, p, o)``.
        compares_values: some FILTER compares values (numeric literals in the stream must be xsd:integer).
    """
    program: EA.Program
    heads: tuple[tuple[str, tuple[str, ...]], ...]
    predicates: frozenset
    needs_triple: bool
    compares_values: bool

    @property
    def text(self) -> str:
        """The program in ETALIS ``.event`` syntax (parses back with :func:`ceplab.semantics.etalis.parser.parse`)."""
        return str(self.program)


class _Compiler:
    def __init__(self, options: Options) -> None:
        self.o = options
        self.vars: dict[Variable, str] = {}
        self.preds: set[str] = set()
        self.needs_triple = False
        self.compares = False

    # -------------------------------------------------------------- terms
    def var(self, v: Variable) -> EA.Var:
        name = self.vars.get(v)
        if name is None:
            s = str(v)
            name = "V_" + s if re.fullmatch(r"[A-Za-z0-9_]+", s) else f"V{len(self.vars)}__"
            while name in self.vars.values():
                name += "_"
            self.vars[v] = name
        return EA.Var(name)

    def term(self, t, node) -> EA.Term:
        if isinstance(t, Variable):
            return self.var(t)
        if isinstance(t, BNode):
            raise _unsupported("a blank node in a triple pattern", node)
        return encode_term(t)

    # -------------------------------------------------------------- patterns
    def pattern(self, p: A.Pattern) -> EA.Pattern:
        """ETALIS pattern whose instances carry exactly ``pattern_vars(p)`` (unbound ones as ``unbound``)."""
        if isinstance(p, A.BGP):
            if not p.triples:
                raise _unsupported("an empty group pattern (docs/semantics/epsparql.md#epsparql-A20)", p)
            if len(p.triples) > 1 and self.o.bgp_mode != "per_pattern":
                raise _unsupported(f"bgp_mode={self.o.bgp_mode!r} (a BGP is not an ETALIS 'and' then)", p)
            rest = list(p.triples)              # connected patterns first, as the native engine does
            order = [rest.pop(0)]
            bound = set(A.pattern_vars(A.BGP((order[0],))))
            while rest:
                j = next((i for i, tp in enumerate(rest) if bound & A.pattern_vars(A.BGP((tp,)))), 0)
                order.append(rest.pop(j))
                bound |= A.pattern_vars(A.BGP((order[-1],)))
            acc = self.leaf(order[0])
            for tp in order[1:]:
                acc = EA.Binary("and", acc, self.leaf(tp))
            return acc
        if type(p) in _BINARY:
            shared = A.pattern_vars(p.left) & A.pattern_vars(p.right)
            unsafe = shared - (A.certain_vars(p.left) & A.certain_vars(p.right))
            if unsafe:
                raise _unsupported(f"{type(p).__name__} on the maybe-unbound shared variable(s) "
                                   f"{', '.join('?' + str(v) for v in sorted(unsafe))} (SPARQL compatibility "
                                   "is not ETALIS equality)", p)
            return EA.Binary(_BINARY[type(p)], self.pattern(p.left), self.pattern(p.right))
        if isinstance(p, A.Union_):
            vl, vr = A.pattern_vars(p.left), A.pattern_vars(p.right)
            return EA.Binary("or", self.pad(self.pattern(p.left), vr - vl),
                             self.pad(self.pattern(p.right), vl - vr))
        if isinstance(p, A.Filter):
            return self.filter(p)
        name = _OPNAME.get(type(p), type(p).__name__)
        raise _unsupported(name, p)

    def leaf(self, tp: A.TriplePattern) -> EA.EventAtom:
        s, o = self.term(tp.s, tp), self.term(tp.o, tp)
        if isinstance(tp.p, Variable):
            self.needs_triple = True
            return EA.EventAtom(TRIPLE, (s, self.var(tp.p), o))
        if not isinstance(tp.p, URIRef):
            raise _unsupported(f"the predicate {tp.p.n3()} (not an IRI)", tp)
        name = encode_term(tp.p).value
        self.preds.add(name)
        return EA.EventAtom(name, (s, o))

    def pad(self, p: EA.Pattern, missing: Iterable[Variable]) -> EA.Pattern:
        items = [EA.Cmp("=", self.var(v), UNBOUND) for v in sorted(missing)]
        if not items:
            return p
        return EA.Where(p, items[0] if len(items) == 1 else EA.CAnd(tuple(items)))

    # -------------------------------------------------------------- filters
    def filter(self, f: A.Filter) -> EA.Pattern:
        inner = self.pattern(f.pattern)
        allv, cert = A.pattern_vars(f.pattern), A.certain_vars(f.pattern)
        window: Optional[int] = None
        conds: list[EA.Cond] = []
        for e, pol in _conjuncts(f.expr, True):
            if _has_time(e):
                w = self.duration_bound(e, pol)
                window = w if window is None else min(window, w)
            else:
                conds.append(self.cond(e, pol, allv, cert))
        out = inner
        if window is not None:
            out = EA.Window(out, window) if window >= 0 else EA.Where(out, _FALSE)
        if conds:
            out = EA.Where(out, conds[0] if len(conds) == 1 else EA.CAnd(tuple(conds)))
        return out

    def duration_bound(self, e: A.Expr, pol: bool) -> int:
        """``getDURATION() < c`` / ``<= c`` (either side, possibly negated) -> the largest admitted duration."""
        if isinstance(e, A.Cmp):
            op, l, r = (e.op if pol else _NEG_OP[e.op]), e.left, e.right
            if isinstance(r, A.TimeFn) and not isinstance(l, A.TimeFn):
                op, l, r = _FLIP_OP[op], r, l
            if isinstance(l, A.TimeFn) and l.name.upper() == "DURATION" and isinstance(r, A.Const):
                c = self.ticks(r)
                if c is not None and op in ("<", "<="):
                    return c - 1 if op == "<" else c
        raise _unsupported("this time filter (ETALIS rules cannot read an instance's interval: only top-level "
                           "getDURATION() < c / <= c, as a window, are compiled)", e)

    def ticks(self, c: A.Const) -> Optional[int]:
        t = c.term
        if isinstance(t, Literal) and t.datatype in INTEGER_TYPES:
            return int(str(t).strip())
        if isinstance(t, Literal) and t.datatype == XSD.duration:
            from ceplab.semantics.epsparql.translate import duration_ticks

            return int(duration_ticks(t, self.o))
        return None

    def cond(self, e: A.Expr, pol: bool, allv: frozenset, cert: frozenset) -> EA.Cond:
        """A condition that holds iff the SPARQL value of ``e`` is ``pol`` (true/false; an error is neither)."""
        if isinstance(e, A.Not):
            return self.cond(e.expr, not pol, allv, cert)
        if isinstance(e, (A.And, A.Or)):
            both = isinstance(e, A.And) == pol
            items = (self.cond(e.left, pol, allv, cert), self.cond(e.right, pol, allv, cert))
            return EA.CAnd(items) if both else EA.COr(items)
        if isinstance(e, A.Bound):
            if e.var not in allv:
                return _FALSE if pol else _TRUE
            if e.var in cert:
                return _TRUE if pol else _FALSE
            return EA.Cmp("\\==" if pol else "==", self.var(e.var), UNBOUND)
        if isinstance(e, A.Cmp):
            if self.o.filter_errors != "three_valued":
                raise _unsupported(f"filter_errors={self.o.filter_errors!r}", e)
            return self.comparison(e, pol, allv, cert)
        raise _unsupported(f"the filter expression {type(e).__name__} (effective boolean value)", e)

    def comparison(self, e: A.Cmp, pol: bool, allv: frozenset, cert: frozenset) -> EA.Cond:
        l, r = e.left, e.right
        if any(v not in allv for v in A.expr_vars(e)):
            return _FALSE                       # an unbound variable: an error, neither true nor false
        lk, rk = self.kind(l), self.kind(r)
        if lk == "iri" or rk == "iri":
            if e.op not in ("=", "!="):
                return _FALSE                   # ordering an IRI: always an error
            eq_true = (e.op == "=") == pol      # we want the condition "l = r is eq_true"
            if lk == "iri" and rk == "iri":
                same = canonical_term(l.term) == canonical_term(r.term)
                return _TRUE if same == eq_true else _FALSE
            other = r if lk == "iri" else l
            iri = encode_term((l if lk == "iri" else r).term)
            if isinstance(other, A.Var):
                x = self.var(other.var)
                if eq_true:
                    return EA.Cmp("==", x, iri)
                c = EA.Cmp("\\==", x, iri)
                return c if other.var in cert else EA.CAnd((c, EA.Cmp("\\==", x, UNBOUND)))
            # an integer expression against an IRI: never equal; false iff the expression is defined
            return _FALSE if eq_true else self.defined(other)
        if isinstance(l, A.Var) and isinstance(r, A.Var):
            raise _unsupported("a comparison of two variables (strings and booleans compare too)", e)
        self.compares = True
        a, b = self.arith(l, True), self.arith(r, True)
        op = e.op if pol else _NEG_OP[e.op]
        if op in _ORD_OP:
            return EA.Cmp(_ORD_OP[op], a, b)
        if op == "=":
            return EA.Cmp("=:=", a, b)
        ne = EA.Cmp("=\\=", a, b)               # op "!=": a number that differs, or an IRI against a number
        bare = l if isinstance(l, A.Var) else (r if isinstance(r, A.Var) else None)
        if bare is None:
            return ne
        other = r if bare is l else l
        isres = EA.Cmp(">=", self.var(bare.var), EA.Str(""))
        d = self.defined(other)
        return EA.COr((ne, isres if d is _TRUE else EA.CAnd((isres, d))))

    def kind(self, e: A.Expr) -> str:
        if isinstance(e, A.Const):
            t = e.term
            if isinstance(t, URIRef):
                return "iri"
            if isinstance(t, Literal) and t.datatype in INTEGER_TYPES:
                return "int"
            raise _unsupported(f"the constant {t.n3()} in a FILTER (only integers and IRIs)", e)
        if isinstance(e, (A.Var, A.Neg)) or (isinstance(e, A.Arith) and e.op in "+-*"):
            return "int"
        if isinstance(e, A.Arith):
            raise _unsupported(f"the operator {e.op!r} in a FILTER (it can make a decimal)", e)
        raise _unsupported(f"{type(e).__name__} as a comparison operand", e)

    def arith(self, e: A.Expr, top: bool) -> EA.Term:
        """An integer expression; a bare variable at the top is ``X + 0`` so that a non-number is undefined."""
        if isinstance(e, A.Var):
            x = self.var(e.var)
            return EA.Compound("+", (x, EA.Num(0))) if top else x
        if isinstance(e, A.Const):
            if self.kind(e) != "int":
                raise _unsupported(f"the constant {e.term.n3()} in arithmetic", e)
            return EA.Num(int(str(e.term).strip()))
        if isinstance(e, A.Neg):
            return EA.Compound("-", (self.arith(e.expr, False),))
        if isinstance(e, A.Arith) and e.op in ("+", "-", "*"):
            return EA.Compound(e.op, (self.arith(e.left, False), self.arith(e.right, False)))
        self.kind(e)
        raise _unsupported(f"{type(e).__name__} in arithmetic", e)

    def defined(self, e: A.Expr) -> EA.Cond:
        if not A.expr_vars(e):
            return _TRUE
        a = self.arith(e, True)
        return EA.Cmp("=:=", a, a)


def _conjuncts(e: A.Expr, pol: bool) -> Iterable[tuple[A.Expr, bool]]:
    """Top-level conjuncts of ``e`` (polarity ``pol``) in negation normal form: ``And`` under true, ``Or``
    under false, ``Not`` flips."""
    if isinstance(e, A.Not):
        yield from _conjuncts(e.expr, not pol)
    elif isinstance(e, A.And) and pol or isinstance(e, A.Or) and not pol:
        yield from _conjuncts(e.left, pol)
        yield from _conjuncts(e.right, pol)
    else:
        yield e, pol


def _has_time(e: A.Expr) -> bool:
    if isinstance(e, A.TimeFn):
        return True
    if isinstance(e, (A.Var, A.Const, A.Bound)):
        return False
    if isinstance(e, (A.Neg, A.Not)):
        return _has_time(e.expr)
    return _has_time(e.left) or _has_time(e.right)


def _queryset(qs) -> A.QuerySet:
    if isinstance(qs, str):
        from ceplab.semantics.epsparql.parser import parse

        qs = parse(qs)
    if isinstance(qs, (A.Select, A.Construct)):
        qs = A.QuerySet((qs,))
    if not isinstance(qs, A.QuerySet):
        raise TypeError(f"expected a QuerySet, Select or query text, got {type(qs).__name__}")
    return qs


def compile_to_etalis(qs: Union[A.QuerySet, A.Select, str], options: Options = Options()) -> EtalisPlan:
    """Compile the SELECT queries of ``qs`` into one ETALIS program (paper section 5, docs/semantics/epsparql.md#epsparql-9.4).

    Args:
        qs: a :class:`ceplab.semantics.epsparql.ast.QuerySet`, a single :class:`~ceplab.semantics.epsparql.ast.Select`, or
            query text (parsed with :func:`ceplab.semantics.epsparql.parser.parse`).
        options: EP-SPARQL switches; see the module docstring for which values are accepted.

    Returns:
        :class:`EtalisPlan`.

    Raises:
        UnsupportedError (:mod:`ceplab.semantics.errors`): CONSTRUCT, OPTIONAL, OPTIONALSEQ, EQUALSOPTIONAL,
            sub-selects/``AS``, filters outside the fragment, ``output="bag"``, ``bgp_mode="per_triple"`` on a
            BGP of two or more patterns, ``filter_errors="error_is_false"`` with a comparison; the message
            names the construct and says it runs on the native engine.
    """
    qs = _queryset(qs)
    if not isinstance(options, Options):
        raise TypeError(f"options must be ceplab.semantics.epsparql.options.Options, got {type(options).__name__}")
    if options.output != "set":
        raise _unsupported(f"output={options.output!r} (multiplicities of full solutions)")
    if qs.constructs:
        raise _unsupported("CONSTRUCT (derived triples fed back into the stream)", qs.constructs[0])
    c = _Compiler(options)
    rules, heads = [], []
    for i, q in enumerate(qs.selects):
        body = c.pattern(q.where)
        pv = A.pattern_vars(q.where)
        proj = sorted(pv, key=str) if q.projection is None else sorted({v for v in q.projection if v in pv},
                                                                      key=str)
        name = f"q{i}"
        heads.append((name, tuple(str(v) for v in proj)))
        rules.append(EA.EventRule(EA.EventAtom(name, tuple(c.var(v) for v in proj)), body))
    return EtalisPlan(EA.Program(tuple(rules)), tuple(heads), frozenset(c.preds), c.needs_triple, c.compares)


# ------------------------------------------------------------------------------------------------ evaluator
_NUMERIC = INTEGER_TYPES | {XSD.decimal, XSD.double, XSD.float}


class EtalisBackedEvaluator:
    """The EP-SPARQL fragment of :func:`compile_to_etalis`, run event-at-a-time on the incremental ETALIS
    engine (:class:`ceplab.engine.etalis.evaluate.Evaluator`, UNRESTRICTED policy = minimal model).

    Same interface as :class:`ceplab.engine.epsparql.evaluate.Evaluator`: ``push(occurrence) -> list[Result]``,
    ``close()``, ``run(occurrences)``, ``path``, ``stats()``.  Rows are emitted as soon as they are determined:
    a row ending at ``T`` is returned by the ``push`` whose occurrence derives it (every instance derived while
    the clock is at ``T`` ends at ``T`` and is final), each exactly once.

    Args:
        qs: query set, a single SELECT, or query text.
        options: EP-SPARQL switches (module docstring).
        background: must be None (RDFS and background knowledge run on the native engine).

    Raises:
        UnsupportedError (:mod:`ceplab.semantics.errors`): the query is outside the fragment; at ``push``, a
            non-``xsd:integer`` numeric literal when the plan compares values.
        ValueError: an occurrence with ``end < start`` or out of order (ends must not decrease).
    """

    path = ("epsparql/etalis-backend: EP-SPARQL fragment compiled to ETALIS rules (paper section 5), run on "
            "ceplab.engine.etalis edbc-unrestricted, rows decoded from derived q<i> events")

    def __init__(self, qs, options: Options = Options(), background: Optional[Background] = None) -> None:
        if background is not None:
            raise _unsupported("background knowledge / RDFS entailment (docs/semantics/epsparql.md#epsparql-A14)")
        from ceplab.engine.etalis.evaluate import Evaluator as EtalisEvaluator

        self.plan = compile_to_etalis(qs, options)
        self.etalis = EtalisEvaluator(self.plan.program)
        self._heads = {name: (i, vs) for i, (name, vs) in enumerate(self.plan.heads)}
        self._preds = self.plan.predicates
        self.T: Optional[int] = None
        self.closed = False
        self.n_occ = 0
        self.n_events = 0
        self.n_results = 0

    def _events(self, occ: Occurrence, s: int, e: int) -> list[StreamEvent]:
        out = []
        p = encode_term(occ.p)
        name = p.value if isinstance(p, EA.Str) else None
        want = name in self._preds
        if not (want or self.plan.needs_triple):
            return out
        terms = (occ.s, occ.o) if not self.plan.needs_triple else (occ.s, occ.p, occ.o)
        if self.plan.compares_values:
            for t in terms:
                if isinstance(t, Literal) and t.datatype in _NUMERIC and t.datatype != XSD.integer:
                    raise _unsupported(f"the numeric literal {t.n3()} in the stream (the plan compares values "
                                       "and ETALIS arithmetic here is on xsd:integer only)")
        so = (encode_term(occ.s), encode_term(occ.o))
        if want:
            out.append(StreamEvent(EA.EventAtom(name, so), s, e, occ.position))
        if self.plan.needs_triple:
            out.append(StreamEvent(EA.EventAtom(TRIPLE, (so[0], p, so[1])), s, e, occ.position))
        return out

    def _decode(self, results) -> list[Result]:
        rows = []
        for text, s, e in results:
            name, args = _parse_atom(text)
            h = self._heads.get(name)
            if h is None:
                continue
            qi, vs = h
            mapping = tuple(sorted((v, t) for v, t in zip(vs, map(decode_value, args)) if t is not None))
            rows.append(Row(qi, mapping, s, e))
        self.n_results += len(rows)
        return rows

    def push(self, occ: Occurrence) -> list[Result]:
        """Consume the next occurrence; returns the rows it determines (they end at ``occ.end``)."""
        if self.closed:
            raise RuntimeError("evaluator is closed")
        s, e = int(occ.start), int(occ.end)
        if e < s:
            raise ValueError(f"occurrence {occ}: end {e} < start {s} (docs/semantics/epsparql.md#epsparql-A2)")
        if self.T is not None and e < self.T:
            raise ValueError(f"occurrence {occ} arrives out of order (end {e} < current tick {self.T}); "
                             "occurrences must arrive in non-decreasing end time (docs/semantics/epsparql.md#epsparql-A1)")
        self.T = e
        self.n_occ += 1
        out: list = []
        for ev in self._events(occ, s, e):
            self.n_events += 1
            out.extend(self.etalis.push(ev))
        return self._decode(out) if out else []

    def close(self) -> list[Result]:
        """End of stream (nothing is pending: every row was emitted by the push that determined it)."""
        if self.closed:
            return []
        self.closed = True
        return self._decode(self.etalis.close())

    def run(self, occs: Iterable[Occurrence]) -> list[Result]:
        res: list[Result] = []
        for occ in occs:
            res.extend(self.push(occ))
        res.extend(self.close())
        return res

    def stats(self) -> dict:
        st = self.etalis.stats()
        return {"occurrences": self.n_occ, "events": self.n_events, "results": self.n_results,
                "instances": st["instances"], "stored": st["stored"], "nodes": st["nodes"], "tick": self.T}
