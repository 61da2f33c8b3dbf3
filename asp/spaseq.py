"""SPAseq reference oracle: a query (AST) and a streamset of RDF graph events -> the set of matches.

The reference semantics is the witness-based one of docs/semantics/spaseq.md#spaseq-3.8 (Gillani, Zimmermann,
Picard, Laforest, Semantic Web journal, Definitions 7-16, with the Appendix B extensions ``!`` and ``?``),
with the switches of :class:`ceplab.semantics.spaseq.options.Options` (docs/semantics/spaseq.md#spaseq-8).  The
fixed, commented part of the encoding is ``asp/spaseq.lp``; this module emits the facts and the small
query-specific part, grounds the program in stages and reads the one stable model back.

Encoding (docs/semantics/spaseq.md#spaseq-9)
------------------------------------------
* **Terms** are clingo strings of their N-Triples form (:func:`ceplab.semantics.spaseq.results.term`), always
  through :func:`ceplab.asp.oracle.asp_string`; ``unb`` is "unbound".  Per term: ``kind(X,K)`` (``num``
  numeric literal, ``str`` simple literal or xsd:string, ``lit`` other literal, ``res`` IRI or blank node),
  ``num(X,V)``, ``lex(X,S)``, ``ebv(X,B)``.
* **Numbers**: the numeric literals are xsd:integer and its derived types, xsd:decimal, xsd:double and
  xsd:float with a valid lexical form (XML whitespace stripped at both ends; derived integer types
  range-checked); the value is the EXACT decimal value of the lexical form (``"1.5E2"^^xsd:double`` = 150).
  An ill-typed numeric literal is a non-numeric literal (kind ``lit``).  All values are scaled by ONE
  ``10^k`` per call (k = the most fractional digits of any numeric value in the stream, the background
  and the query) and become integers ``num(X, V*10^k)``; :class:`UnsupportedError` if a scaled value
  times the number of leaves of the largest arithmetic expression could leave clingo's 32-bit range, and
  for the double/float special values ``INF``, ``-INF`` and ``NaN`` (they have no decimal value).
* **String order**: ``lex(X,S)`` holds the lexical form as a clingo string; clingo compares strings
  bytewise in UTF-8, which is code point order, and :func:`asp_string`'s doubling of backslashes keeps
  that order.  Lexical forms with NUL or lone surrogates (which :func:`asp_string` escapes otherwise)
  switch every ``lex`` value of the call to a zero-padded rank string with the same order.
* **Rows**: a mapping is ``r(V1,...,Vn)`` over :func:`ceplab.semantics.spaseq.ast.query_vars` (sorted by
  name).  GPM evaluation is correlated (docs/semantics/spaseq.md#spaseq-A3): a pattern is evaluated per
  context row R, variables bound in R are constants of ``R(P)`` everywhere (FILTER, OPTIONAL, UNION,
  GRAPH), and each solution is returned as the extended row ``R u mu'``.  Generated per query: one rule
  per BGP (``tr``/``kb`` atoms with ``cp`` compatibility checks), two or three rules per FILTER (the
  projection of the row onto the filter's variables, the "keep if true" rule, the variable leaves), one
  row-merge rule for AND/OPTIONAL.  A join with a conjunctive side that holds GRAPH evaluates that side per
  row of the other (its BGPs demanded with those rows as contexts), so background triple patterns are
  grounded only for the values the event side bound (docs/semantics/spaseq.md#spaseq-9.3).  Everything else (windows, the connectors with relevance and
  contiguity scopes, Kleene grouping and the iteration connector, negation in both readings including
  a last negated element, optional, first_match disjunction, three-valued FILTER logic, term
  comparison) is the fixed program.
* **Staging**: the program is locally stratified but recursive through the element index, which gringo
  cannot see; this module grounds the parts of ``asp/spaseq.lp`` one at a time in a fixed order (per
  element: ``open``, the expression tree bottom-up, ``body``), so that each part only negates atoms
  that earlier parts completed.  Every atom is then a fact after grounding, the ground program is the
  derived relations themselves, and candidates for the next element are only the events of the partial
  match's window (tumbling: the same window; anchored: ``T - F <= w``), never all pairs filtered
  afterwards.  Skip-till-next takes the first relevant time by a ``#min`` per partial match, and Kleene
  iterations the next one by a successor relation over the element's times.  A stream of at most
  :data:`SINGLE_SHOT_EVENTS` events is ground in one call instead (every part at once): gringo then leaves
  the atoms of the recursion open and clingo's search settles them.  It is the same logic program, so its
  unique stable model is the same; only the cost differs: the twenty-odd ground calls of a short stream cost
  twice as much as one call and a search, while on a long stream the unstaged grounding is several times
  larger (docs/semantics/spaseq.md#spaseq-9.4).
* **Model**: clingo is asked for two models; anything but exactly one raises :class:`ModelError`.

Results: one :class:`ceplab.semantics.spaseq.results.Match` per (witness, row of its final mapping set),
projected on :func:`ceplab.semantics.spaseq.ast.projection` (unbound variables left out); a result set.
"""
from __future__ import annotations

import re
import time
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from pathlib import Path
from typing import Optional, Sequence

import clingo
from rdflib import XSD, BNode, Literal, URIRef
from rdflib.term import Node, Variable

from ceplab.asp.oracle import (LimitExceeded, Limits, OracleResult, Solver, Undecided, asp_string, asp_unstring,
                               isolated)
from ceplab.semantics.errors import ModelError, OracleError, StreamError, UnsupportedError
from ceplab.semantics.rdfstream import GraphEvent
from ceplab.semantics.spaseq import ast as A
from ceplab.semantics.spaseq.options import Options
from ceplab.semantics.spaseq.results import Match, term as nt
from ceplab.semantics.spaseq.streams import Background

LP_FILE = Path(__file__).with_name("spaseq.lp")

#: clingo integers are 32-bit
INT_MAX = 2**31 - 1


@lru_cache(maxsize=1)
def _fixed_program() -> str:
    return LP_FILE.read_text(encoding="utf-8")


# ------------------------------------------------------------------------------------------------ terms
_INTEGER_TYPES: dict[URIRef, tuple[Optional[int], Optional[int]]] = {
    XSD.integer: (None, None), XSD.long: (-2**63, 2**63 - 1), XSD.int: (-2**31, 2**31 - 1),
    XSD.short: (-2**15, 2**15 - 1), XSD.byte: (-2**7, 2**7 - 1), XSD.nonNegativeInteger: (0, None),
    XSD.positiveInteger: (1, None), XSD.nonPositiveInteger: (None, 0), XSD.negativeInteger: (None, -1),
    XSD.unsignedLong: (0, 2**64 - 1), XSD.unsignedInt: (0, 2**32 - 1), XSD.unsignedShort: (0, 2**16 - 1),
    XSD.unsignedByte: (0, 2**8 - 1)}
_FLOAT_TYPES = frozenset({XSD.double, XSD.float})
_INT_RE = re.compile(r"[+-]?[0-9]+\Z")
_DEC_RE = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)\Z")
_FLOAT_RE = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?\Z")
_FLOAT_SPECIAL = frozenset({"inf", "infinity", "nan"})
_XML_WS = " \t\n\r"


def _is_numeric_type(t: Node) -> bool:
    return isinstance(t, Literal) and t.language is None and t.datatype is not None and (
        t.datatype in _INTEGER_TYPES or t.datatype == XSD.decimal or t.datatype in _FLOAT_TYPES)


def numeric_value(t: Node) -> Optional[Decimal]:
    """The exact value of a numeric literal (docs/semantics/spaseq.md#spaseq-A16), None for any other term.

    Numeric: xsd:integer and its derived types (range-checked), xsd:decimal, xsd:double, xsd:float, with a
    valid lexical form after stripping XML whitespace at both ends; the value is the exact decimal value of
    that form.  An ill-typed numeric literal is not numeric (None).

    Raises:
        UnsupportedError: a double/float ``INF``, ``-INF`` or ``NaN`` (no decimal value).
    """
    if not _is_numeric_type(t):
        return None
    lex = str(t).strip(_XML_WS)
    dt = t.datatype
    if dt in _INTEGER_TYPES:
        if not _INT_RE.match(lex):
            return None
        v = int(lex)
        lo, hi = _INTEGER_TYPES[dt]
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            return None
        return Decimal(v)
    if dt == XSD.decimal:
        return Decimal(lex) if _DEC_RE.match(lex) else None
    if lex.lstrip("+-").lower() in _FLOAT_SPECIAL:  # rdflib normalises "INF" to "inf"
        raise UnsupportedError(f"oracle: {nt(t)}: the special value {lex} has no exact decimal value "
                               "(docs/semantics/spaseq.md#spaseq-A16)")
    if not _FLOAT_RE.match(lex):
        return None
    try:
        return Decimal(lex)
    except InvalidOperation:  # pragma: no cover - the pattern admits only decimal syntax
        return None


def _kind(t: Node) -> str:
    if isinstance(t, (URIRef, BNode)):
        return "res"
    if numeric_value(t) is not None:
        return "num"
    if isinstance(t, Literal) and t.language is None and t.datatype in (None, XSD.string):
        return "str"
    return "lit"


def _ebv(t: Node, value: Optional[Decimal]) -> str:
    """SPARQL 1.1 section 17.2.2 effective boolean value: ``t``, ``f`` or ``e`` (error)."""
    if value is not None:
        return "t" if value != 0 else "f"
    if not isinstance(t, Literal):
        return "e"
    if t.datatype == XSD.boolean:
        lex = str(t).strip(_XML_WS)
        return "t" if lex in ("true", "1") else "f"  # an invalid boolean lexical form is false
    if _is_numeric_type(t):
        return "f"  # ill-typed numeric
    if t.datatype in (None, XSD.string):  # plain literals (with or without language tag) and xsd:string
        return "t" if len(str(t)) else "f"
    return "e"


def _frac_digits(v: Decimal) -> int:
    if v == 0:
        return 0
    return max(0, -v.normalize().as_tuple().exponent)


class _Terms:
    """The term facts of one call: every term once, numbers scaled by one ``10^k``."""

    def __init__(self) -> None:
        self.terms: dict[str, Node] = {}

    def add(self, t: Node) -> str:
        """Register ``t``; return its ASP constant (the string of its N-Triples form)."""
        s = nt(t)
        if s not in self.terms:
            self.terms[s] = t
        return asp_string(s)

    def facts(self, max_leaves: int) -> str:
        values = {s: numeric_value(t) for s, t in self.terms.items()}
        k = max((_frac_digits(v) for v in values.values() if v is not None), default=0)
        scale = Decimal(10) ** k
        out = []
        strs = {s: str(t) for s, t in self.terms.items() if _kind(t) == "str"}
        ranked = any(any(ord(ch) == 0 or 0xD800 <= ord(ch) <= 0xDFFF for ch in x) for x in strs.values())
        rank = {}
        if ranked:
            order = sorted(set(strs.values()))
            width = len(str(len(order)))
            rank = {x: str(i).zfill(width) for i, x in enumerate(order)}
        for s, t in self.terms.items():
            c = asp_string(s)
            v = values[s]
            kind = _kind(t)
            out.append(f"kind({c},{kind}).")
            if v is not None:
                scaled = v * scale
                if scaled != scaled.to_integral_value():  # pragma: no cover - k is the maximum
                    raise OracleError(f"oracle: scaling {s} by 10^{k} is not exact")
                n = int(scaled)
                if abs(n) * max_leaves > INT_MAX:
                    raise UnsupportedError(
                        f"oracle: the numeric literal {s} is {n} after scaling by 10^{k} (the most fractional "
                        f"digits of any number in this call); with arithmetic over up to {max_leaves} values "
                        "it could leave clingo's 32-bit integers (docs/semantics/spaseq.md#spaseq-9)")
                out.append(f"num({c},{n}).")
            if kind == "str":
                out.append(f"lex({c},{asp_string(rank[strs[s]] if ranked else strs[s])}).")
            out.append(f"ebv({c},{_ebv(t, v)}).")
        return "\n".join(out)


def _row(vals: Sequence[str]) -> str:
    return f"r({','.join(vals)})" if vals else "r"


def _key(vals: Sequence[str]) -> str:
    return f"k({','.join(vals)})" if vals else "k"


_CMP = {"<": "lt", "<=": "le", "=": "eq", "!=": "ne", ">=": "ge", ">": "gt"}
_CONN = {":": "sta", ";": "stn", ",": "sc"}
_MOD = {"+": "plus", "!": "neg", "?": "opt"}


# ------------------------------------------------------------------------------------------------ compiler
class _Compiler:
    """The query-specific facts, generated parts and grounding schedule of one call."""

    def __init__(self, query: A.Query, options: Options, terms: _Terms) -> None:
        self.q = query
        self.o = options
        self.terms = terms
        self.vars = A.query_vars(query)
        self.vidx = {v: i for i, v in enumerate(self.vars)}
        self.n = len(self.vars)
        self.facts: list[str] = []
        self.parts: list[str] = []            # generated program text, each with its #program header
        self.stages: list[list[tuple[str, list[int]]]] = []
        self.next_id = 0
        self.max_leaves = 1
        self.gpm_ids: dict[str, int] = {}
        self.used_streams: set[URIRef] = set()
        self.graphs: set[URIRef] = set()

    def new(self) -> int:
        self.next_id += 1
        return self.next_id

    # ---- sequence
    def compile(self) -> None:
        q = self.q
        if q.window < 1:
            raise UnsupportedError(f"oracle: WITHIN {q.window}: the window must be at least 1 tick")
        if not q.seq:
            raise UnsupportedError("oracle: an empty SEQ()")
        self._check_shape()
        m = len(q.seq)
        self.facts.append(f"nelem({m}).")
        for s in sorted(q.declared_streams, key=str):
            self.facts.append(f"declared({self.terms.add(s)}).")
        self.facts.append(f"emptyrow({_row(['unb'] * self.n)}).")
        merge_x = [f"X{i}" for i in range(self.n)]
        merge_y = [f"Y{i}" for i in range(self.n)]
        merge_z = [f"Z{i}" for i in range(self.n)]
        mrg = "".join(f", mrg(X{i},Y{i},Z{i})" for i in range(self.n))
        self.parts.append(f"#program pnode(n).\nmrow(n,R1,R2,{_row(merge_z)}) :- mdem(n,R1,R2), "
                          f"R1 = {_row(merge_x)}, R2 = {_row(merge_y)}{mrg}.\n")
        for j, el in enumerate(q.seq, start=1):
            self.facts.append(f"elem({j}).")
            if j > 1:
                self.facts.append(f"conn({j},{_CONN[el.connector]}).")
            if el.modifier is not None:
                self.facts.append(f"modi({j},{_MOD[el.modifier]}).")
            self.stages.append([("open", [j])])
            top, streams = self.bop(el.expr)
            self.facts.append(f"top({j},{top}).")
            for s in sorted(streams, key=str):
                self.facts.append(f"estr({j},{self.terms.add(s)}).")
            self.stages.append([("body", [j])])
        self.stages.append([("final", [m])])

    def _check_shape(self) -> None:
        """The parser-level restrictions the encoding relies on (docs/semantics/spaseq.md#spaseq-3.8)."""
        seq = self.q.seq
        for j, el in enumerate(seq):
            if (j == 0) != (el.connector is None) or (el.connector is not None and el.connector not in _CONN):
                raise UnsupportedError(f"oracle: element {j + 1}: connector {el.connector!r} (the first element "
                                       "has none, every other one of , ; :)")
            if el.modifier is not None and el.modifier not in _MOD:
                raise UnsupportedError(f"oracle: element {j + 1}: unknown modifier {el.modifier!r}")
        if seq[0].modifier == "!":
            raise UnsupportedError("oracle: the first element is negated")
        for a, b in zip(seq, seq[1:]):
            if a.modifier in ("!", "?") and b.modifier in ("!", "?"):
                raise UnsupportedError("oracle: two adjacent elements with ! or ?")
        if all(el.modifier in ("!", "?") for el in seq):
            raise UnsupportedError("oracle: every element of SEQ has ! or ?")
        names = [n for el in seq for n in A.bop_gpms(el.expr)]
        if len(names) != len(set(names)):
            raise UnsupportedError("oracle: a GPM is used twice in SEQ")

    def bop(self, b: A.BOp) -> tuple[int, set[URIRef]]:
        """Facts and stages of a BOp expression; returns its node id and its streams."""
        n = self.new()
        if isinstance(b, A.GPMRef):
            try:
                g = self.q.gpm(b.name)
            except KeyError:
                raise UnsupportedError(f"oracle: GPM {b.name} is not defined") from None
            gid = self.new()
            self.gpm_ids[b.name] = gid
            for s in g.streams:
                self.facts.append(f"on({gid},{self.terms.add(s)}).")
                self.used_streams.add(s)
            self.facts.append(f"leaf({n},{gid}).")
            self.stages.append([("bdem", [n])])
            root = self.pattern(g.pattern, gid, None)
            self.facts.append(f"gtop({gid},{root}).")
            self.stages.append([("leaf", [n])])
            return n, set(g.streams)
        if isinstance(b, A.Conj):
            self.stages.append([("bdem", [n])])
            a, sa = self.bop(b.left)
            self.stages.append([("conjmid", [n])])
            c, sc = self.bop(b.right)
            self.facts.append(f"conj({n},{a},{c}).")
            self.stages.append([("bop", [n])])
            return n, sa | sc
        if isinstance(b, A.Disj):
            self.stages.append([("bdem", [n])])
            a, sa = self.bop(b.left)
            c, sc = self.bop(b.right)
            self.facts.append(f"disj({n},{a},{c}).")
            self.stages.append([("disjpre", [n])])
            self.stages.append([("bop", [n])])
            return n, sa | sc
        raise UnsupportedError(f"oracle: not a BOp expression: {b!r}")

    # ---- graph patterns
    def pattern(self, p: A.Pattern, gid: int, graph: Optional[URIRef], dem: Optional[str] = None) -> int:
        """Facts, generated rules and stages of pattern ``p`` of GPM ``gid`` (post-order); returns its id.

        ``dem`` is the key of the (context row, event) pairs the pattern's BGPs are evaluated on: None for the
        GPM's own demand ``gd(gid,R,E)``, ``s(a)`` inside the background side of a sideways join whose event
        side is node ``a`` (:func:`_sideways`, docs/semantics/spaseq.md#spaseq-9.3)."""
        if isinstance(p, A.BGP):
            n = self.new()
            self.part(n, self.bgp_rule(n, p, gid, graph, dem)[0])
            self.stages.append([("pnode", [n]), (f"p{n}", [])])
            return n
        if isinstance(p, A.Graph):
            self.graphs.add(p.iri)
            c = self.pattern(p.pattern, gid, p.iri, dem)
            n = self.new()
            self.facts.append(f"pgraph({n},{c}).")
            self.stages.append([("pnode", [n])])
            return n
        if isinstance(p, A.Filter):
            fused = isinstance(p.pattern, A.BGP)
            c = None if fused else self.pattern(p.pattern, gid, graph, dem)
            n = self.new()
            x, leaves = self.expr_root(p.expr, n)
            keyidx = self.key_of(p.expr, leaves)
            zs = [f"Z{i}" for i in range(self.n)]
            key = _key([f"Z{i}" for i in keyidx])
            if fused:
                # Filter(expr, BGP) in one rule pair: the BGP's solutions are not kept on their own
                head, body = self.bgp_rule(n, p.pattern, gid, graph, dem)[1:]
                out = head[head.index(",E,") + 3:-1]
                rules = [f"fdem({n},{self.key_at(out, keyidx)}) :- {body}.",
                         f"{head} :- {body}, tv({x},{self.key_at(out, keyidx)},t)."]
            else:
                rules = [f"fdem({n},{key}) :- ps({c},_R,_E,{_row(zs)}).",
                         f"ps({n},R,E,{_row(zs)}) :- ps({c},R,E,{_row(zs)}), tv({x},{key},t)."]
            rules += self.leaf_rule(n, leaves, keyidx)
            if not fused:
                self.facts.append(f"pfilter({n},{c},{x}).")
            self.part(n, "\n".join(rules))
            self.stages.append([("pnode", [n]), (f"p{n}", [])])
            return n
        if isinstance(p, A.Join) and (_sideways(p.right) or _sideways(p.left)):
            # the background side is evaluated per row of the other side (docs/semantics/spaseq.md#spaseq-9.3)
            src, dst = (p.left, p.right) if _sideways(p.right) else (p.right, p.left)
            a = self.pattern(src, gid, graph, dem)
            self.stages.append([("pside", [a])])
            b = self.pattern(dst, gid, graph, f"s({a})")
            n = self.new()
            self.facts.append(f"pjside({n},{a},{b}).")
            self.stages.append([("pnode", [n])])
            return n
        if isinstance(p, (A.Join, A.Union_, A.LeftJoin)):
            a = self.pattern(p.left, gid, graph, dem)
            b = self.pattern(p.right, gid, graph, dem)
            n = self.new()
            if isinstance(p, A.Join):
                self.facts.append(f"pjoin({n},{a},{b}).")
                self.stages.append([("pnode", [n])])
            elif isinstance(p, A.Union_):
                self.facts.append(f"punion({n},{a},{b}).")
                self.stages.append([("pnode", [n])])
            else:
                self.facts.append(f"plj({n},{a},{b}).")
                if p.expr is not None:
                    self.facts.append(f"pljfilter({n}).")
                    x, leaves = self.expr_root(p.expr, n)
                    keyidx = self.key_of(p.expr, leaves)
                    zs = [f"Z{i}" for i in range(self.n)]
                    key = _key([f"Z{i}" for i in keyidx])
                    rules = [f"fdem({n},{key}) :- ljc({n},_R,_E,_R1,{_row(zs)}).",
                             f"ljok({n},R,E,R1,{_row(zs)}) :- ljc({n},R,E,R1,{_row(zs)}), tv({x},{key},t)."]
                    rules += self.leaf_rule(n, leaves, keyidx)
                    self.part(n, "\n".join(rules))
                    self.stages.append([("pnode", [n]), (f"p{n}", [])])
                else:
                    self.stages.append([("pnode", [n])])
                self.stages.append([("pcopy", [n])])
            return n
        raise UnsupportedError(f"oracle: not a graph pattern: {p!r}")

    def part(self, n: int, text: str) -> None:
        self.parts.append(f"#program p{n}.\n{text}\n")

    def pterm(self, t: Node, ys: dict[int, str]) -> str:
        if isinstance(t, Variable):
            i = self.vidx[t]
            ys[i] = f"Y{i}"
            return ys[i]
        if isinstance(t, BNode):
            raise UnsupportedError(f"oracle: blank node {nt(t)} in a query pattern")
        return self.terms.add(t)

    def bgp_rule(self, n: int, p: A.BGP, gid: int, graph: Optional[URIRef],
                 dem: Optional[str] = None) -> tuple[str, str, str]:
        """``ps(n,R,E,R2) :- gd(G,R,E), <triples>, <compatibility with the context>.`` (the rule, its head
        and its body); ``G`` is ``gid`` or the demand key ``dem`` (:meth:`pattern`)."""
        cs = [f"C{i}" for i in range(self.n)]
        ys: dict[int, str] = {}
        body = [f"gd({gid if dem is None else dem},{_row(cs)},E)"]
        for tp in p.triples:
            args = ",".join(self.pterm(x, ys) for x in (tp.s, tp.p, tp.o))
            body.append(f"tr(E,{args})" if graph is None else f"kb({self.terms.add(graph)},{args})")
        body += [f"cp(C{i},Y{i})" for i in sorted(ys)]
        head = f"ps({n},{_row(cs)},E,{_row([ys.get(i, f'C{i}') for i in range(self.n)])})"
        return f"{head} :- {', '.join(body)}.", head, ", ".join(body)

    def key_of(self, e: A.Expr, leaves: list[tuple[int, int]]) -> list[int]:
        """The row positions a filter expression reads (its key)."""
        return sorted({i for _, i in leaves} | {self.vidx[v] for v in A.expr_vars(e)})

    @staticmethod
    def key_at(row: str, keyidx: list[int]) -> str:
        """The key ``k(...)`` of the row term ``r(v0,...)`` (its values at ``keyidx``)."""
        vals = row[2:-1].split(",") if row != "r" else []
        return _key([vals[i] for i in keyidx])

    def leaf_rule(self, f: int, leaves: list[tuple[int, int]], keyidx: list[int]) -> list[str]:
        """``vraw(X1,K,Za;X2,K,Zb) :- fdem(f,K), K = k(...).``: the variable leaves of filter ``f``."""
        if not leaves:
            return []
        heads = ";".join(f"{x},K,Z{i}" for x, i in leaves)
        return [f"vraw({heads}) :- fdem({f},K), K = {_key([f'Z{i}' for i in keyidx])}."]

    # ---- expressions
    def expr_root(self, e: A.Expr, f: int) -> tuple[int, list[tuple[int, int]]]:
        leaves: list[tuple[int, int]] = []
        x = self.expr(e, f, True, leaves)
        return x, leaves

    def expr(self, e: A.Expr, f: int, cond: bool, leaves: list[tuple[int, int]]) -> int:
        """Facts of expression ``e`` of filter ``f``; a value used as a condition gets its EBV node."""
        value_kinds = (A.Var, A.Const, A.Arith, A.Neg)
        if cond and isinstance(e, value_kinds):
            v = self.expr(e, f, False, leaves)
            x = self.new()
            self.facts.append(f"xin({x},{f}). xebv({x},{v}).")
            return x
        if not cond and not isinstance(e, value_kinds):
            raise UnsupportedError(f"oracle: a condition used as a value in a FILTER: {e!r}")
        x = self.new()
        self.facts.append(f"xin({x},{f}).")
        if isinstance(e, A.Var):
            self.facts.append(f"xvar({x}).")
            leaves.append((x, self.vidx[e.var]))
        elif isinstance(e, A.Bound):
            self.facts.append(f"xbound({x}).")
            leaves.append((x, self.vidx[e.var]))
        elif isinstance(e, A.Const):
            if isinstance(e.term, BNode):
                raise UnsupportedError(f"oracle: blank node {nt(e.term)} in a FILTER")
            self.facts.append(f"xconst({x},{self.terms.add(e.term)}).")
        elif isinstance(e, (A.Arith, A.Neg)):
            self.max_leaves = max(self.max_leaves, _arith_leaves(e))
            if isinstance(e, A.Neg):
                self.facts.append(f"xneg({x},{self.expr(e.expr, f, False, leaves)}).")
            else:
                if e.op not in ("+", "-"):
                    raise UnsupportedError(f"oracle: arithmetic operator {e.op!r} (only + and -)")
                a = self.expr(e.left, f, False, leaves)
                b = self.expr(e.right, f, False, leaves)
                self.facts.append(f"xarith({x},{'add' if e.op == '+' else 'sub'},{a},{b}).")
        elif isinstance(e, A.Cmp):
            if e.op not in _CMP:
                raise UnsupportedError(f"oracle: comparison operator {e.op!r}")
            a = self.expr(e.left, f, False, leaves)
            b = self.expr(e.right, f, False, leaves)
            self.facts.append(f"xcmp({x},{_CMP[e.op]},{a},{b}).")
        elif isinstance(e, (A.And, A.Or)):
            a = self.expr(e.left, f, True, leaves)
            b = self.expr(e.right, f, True, leaves)
            self.facts.append(f"{'xand' if isinstance(e, A.And) else 'xor'}({x},{a},{b}).")
        elif isinstance(e, A.Not):
            self.facts.append(f"xnot({x},{self.expr(e.expr, f, True, leaves)}).")
        else:
            raise UnsupportedError(f"oracle: not an expression: {e!r}")
        return x


def _conjunctive(p: A.Pattern) -> bool:
    """Whether ``p`` is built from BGPs, Join and GRAPH only, with FILTERs that read only variables of their own
    BGPs: then every solution binds every variable of ``p``, and evaluating ``p`` in a context that binds more
    variables (``mu(P)``) selects exactly the solutions compatible with it."""
    if isinstance(p, A.BGP):
        return True
    if isinstance(p, A.Join):
        return _conjunctive(p.left) and _conjunctive(p.right)
    if isinstance(p, A.Graph):
        return _conjunctive(p.pattern)
    if isinstance(p, A.Filter):
        return _conjunctive(p.pattern) and A.expr_vars(p.expr) <= A.pattern_vars(p.pattern)
    return False


def _has_graph(p: A.Pattern) -> bool:
    if isinstance(p, A.Graph):
        return True
    if isinstance(p, (A.Join, A.Union_, A.LeftJoin)):
        return _has_graph(p.left) or _has_graph(p.right)
    if isinstance(p, A.Filter):
        return _has_graph(p.pattern)
    return False


def _sideways(p: A.Pattern) -> bool:
    """Whether ``p``, one side of a ``Join``, is evaluated per row of the other side (docs/semantics/spaseq.md#spaseq-9.3):
    a conjunctive pattern (:func:`_conjunctive`) that holds a GRAPH.  For such ``p``, ``[[R(Q)]] join [[R(p)]]`` is the
    union over the rows ``mu1`` of ``[[R(Q)]]`` of ``[[mu1(p)]]`` extended by ``mu1``, so the background triple patterns
    are grounded only for the values the event side bound, not for the whole background graph per event."""
    return _has_graph(p) and _conjunctive(p)


def _arith_leaves(e: A.Expr) -> int:
    if isinstance(e, A.Arith):
        return _arith_leaves(e.left) + _arith_leaves(e.right)
    if isinstance(e, A.Neg):
        return _arith_leaves(e.expr)
    return 1


def _switches(o: Options, query: A.Query) -> list[str]:
    return [f"omega({query.window}).", f"origin({o.origin}).", f"window({o.window}).",
            f"relevance({o.relevance}).", f"contiguity({o.contiguity}).", f"disjunction({o.disjunction}).",
            f"kleene_iter({o.kleene_iter}).", f"negation({o.negation})."]


# ------------------------------------------------------------------------------------------------ program
class Program:
    """The whole input of one oracle call: facts, generated parts and the grounding schedule.

    Attributes:
        text: the generated program text (facts in ``base``; ``#program pnode(n).`` and ``#program p<n>.``
            parts with the query-specific rules).
        stages: the ground calls after ``base``, in order; each a list of ``(part, integer params)``.
        events: the events given to the solver (time >= origin), indexed by their fact id.
        vars: the row vector (``ast.query_vars``); ``projection``: the SELECT variables.
    """

    def __init__(self, text: str, stages: list[list[tuple[str, list[int]]]], events: list[GraphEvent],
                 vars: tuple[Variable, ...], projection: tuple[Variable, ...]) -> None:
        self.text = text
        self.stages = stages
        self.events = events
        self.vars = vars
        self.projection = projection


def compile_program(query: A.Query, events: Sequence[GraphEvent], options: Options = Options(),
                    background: Optional[Background] = None) -> Program:
    """The facts and query-specific rules for ``query`` on ``events`` (module docstring).

    Args:
        query: the SPAseq query (``semantics/spaseq/ast.py``).
        events: graph events (any order; each with its stream IRI); those before ``options.origin`` are
            ignored (docs/semantics/spaseq.md#spaseq-A11).
        options: the semantic switches.
        background: the background dataset for ``GRAPH <g>`` (None: every ``D(g)`` is empty).

    Raises:
        UnsupportedError: a query shape the encoding does not take (the parser's restrictions), a blank
            node in a pattern, ``INF``/``NaN`` numbers, numbers too large for clingo after scaling, or times
            (plus origin and twice the window) beyond clingo's 32-bit integers.
        StreamError: an event without a stream.
    """
    terms = _Terms()
    comp = _Compiler(query, options, terms)
    comp.compile()
    evs = sorted((e for e in events if e.time >= options.origin), key=lambda e: (e.time, e.position))
    facts: list[str] = []
    times: list[int] = []
    for i, ev in enumerate(evs):
        if ev.stream is None:
            raise StreamError(f"event at time {ev.time} (position {ev.position}) has no stream: a SPAseq "
                              "streamset names the stream of every event (Definition 3)")
        facts.append(f"ev({i},{terms.add(ev.stream)},{ev.time}).")
        if not times or times[-1] != ev.time:
            times.append(ev.time)
        if ev.stream in comp.used_streams:
            for s, p, o in ev.graph:
                facts.append(f"tr({i},{terms.add(s)},{terms.add(p)},{terms.add(o)}).")
    if times and max(abs(times[0]), abs(times[-1])) + abs(options.origin) + 2 * query.window > INT_MAX:
        raise UnsupportedError(f"oracle: event times up to {max(abs(times[0]), abs(times[-1]))} ticks with origin "
                               f"{options.origin} and a window of {query.window} ticks leave clingo's 32-bit integers")
    facts += [f"tnext({a},{b})." for a, b in zip(times, times[1:])]
    if background is not None:
        for g in sorted(comp.graphs, key=str):
            gs = terms.add(g)
            for s, p, o in sorted(background.graph(g)):
                facts.append(f"kb({gs},{terms.add(s)},{terms.add(p)},{terms.add(o)}).")
    text = "\n".join(["#program base."] + _switches(options, query) + comp.facts + facts
                     + [terms.facts(comp.max_leaves)] + comp.parts) + "\n"
    return Program(text, comp.stages, evs, comp.vars, A.projection(query))


# ------------------------------------------------------------------------------------------------ solving
#: Streams of at most this many events are ground in one call, not in stages (module docstring: staging).
#: Measured on the fuzz generator's cases (6, 12 and 40 events): half the oracle time of the staged grounding,
#: the same answers; on the 200-event benchmark workload the unstaged grounding is 3.4 times larger and 9 times
#: slower.
SINGLE_SHOT_EVENTS = 48


def _ground_staged(s: Solver, stages: Sequence[Sequence[tuple[str, Sequence[int]]]], one_shot: bool = False
                   ) -> None:
    """Ground ``base`` and then each stage in its own ground call (module docstring: staging), checking the
    deadline and the number of atoms after each; then the driver's size accounting (one probe solve).  With
    ``one_shot`` every part is ground in a single call (the same program; clingo's search settles the atoms
    that the staging would have made facts)."""
    limits = s.limits
    calls = [[("base", [])]] + list(stages)
    if one_shot:
        calls = [[p for parts in calls for p in parts]]
    for parts in calls:
        if s.remaining() <= 0:
            raise LimitExceeded(f"time limit of {limits.time_s:g} s exceeded (grounding)", s.stats)
        t0 = time.perf_counter()
        try:
            s.ctl.ground([(p, [clingo.Number(a) for a in args]) for p, args in parts])
        except RuntimeError as e:
            if "bad_alloc" in str(e):
                raise LimitExceeded("memory exhausted while grounding", s.stats) from None
            raise OracleError(f"oracle: grounding failed: {e}; {' '.join(s.messages)}") from None
        finally:
            s.stats.ground_seconds += time.perf_counter() - t0
        n_atoms = len(s.ctl.symbolic_atoms)
        if n_atoms > limits.max_ground_size:
            s.stats.atoms = n_atoms
            raise LimitExceeded(f"ground size limit {limits.max_ground_size} exceeded ({n_atoms} atoms)",
                                s.stats)
    s.ground([])


def _events_of(inst: clingo.Symbol, out: list[int]) -> None:
    if inst.type == clingo.SymbolType.Number:
        out.append(inst.number)
        return
    for a in inst.arguments:
        _events_of(a, out)


def decode(program: Program, sym: clingo.Symbol) -> Match:
    """A ``res(W,Path,Row)`` atom -> :class:`Match` (the path lists its instances most recent first)."""
    w, path, row = sym.arguments
    insts = []
    while path.name == "c":
        insts.append(path.arguments[1])
        path = path.arguments[2]
    ids: list[int] = []
    for inst in reversed(insts):
        _events_of(inst, ids)
    events = tuple((str(program.events[i].stream), program.events[i].time) for i in ids)
    values = {v: row.arguments[i] for i, v in enumerate(program.vars)}
    mapping = []
    for v in program.projection:
        x = values.get(v)
        if x is not None and x.type == clingo.SymbolType.String:
            mapping.append((str(v), asp_unstring(x.string)))
    window = w.number if w.type == clingo.SymbolType.Number else None
    return Match(window, events, tuple(sorted(mapping)))


def oracle(query: A.Query, events: Sequence[GraphEvent], options: Options = Options(), limits: Limits = Limits(),
           background: Optional[Background] = None) -> OracleResult | Undecided:
    """The matches of ``query`` on the streamset ``events`` (see the module docstring).

    Semantics: docs/semantics/spaseq.md#spaseq-3.8 (witness-based; correlated GPM extension; connectors,
    Kleene+, negation, optional, conjunction, disjunction, windows) with the switches of ``options``
    (docs/semantics/spaseq.md#spaseq-8); FILTERs three-valued (docs/semantics/spaseq.md#spaseq-A16).

    Args:
        query: a SPAseq query (``ceplab.semantics.spaseq.ast.Query``), as the parser gives it.
        events: the streamset as ``GraphEvent`` s (each with ``stream``, integer ``time`` in ticks,
            ``position``, ``graph``); events before ``options.origin`` are ignored.
        options: the semantic switches; the ``engine_*`` options are ignored.
        limits: time and ground-size limits of the call.
        background: the background dataset ``D`` for ``GRAPH <g> {...}`` (Definition 15); None = empty.

    Returns:
        ``OracleResult(frozenset of Match, stats)``, or :class:`ceplab.asp.oracle.Undecided` if a limit was hit.

    Raises:
        UnsupportedError: see :func:`compile_program`.
        StreamError: an event without a stream.
        ModelError: the program does not have exactly one stable model (a bug: it is locally stratified).
        ceplab.semantics.errors.OracleError: clingo failed unexpectedly (a bug).
    """
    program = compile_program(query, events, options, background)

    def job():
        s = Solver(["2"], limits)
        s.add(_fixed_program())
        s.add(program.text)
        _ground_staged(s, program.stages, one_shot=len(program.events) <= SINGLE_SHOT_EVENTS)
        models = s.solve()
        if len(models) != 1:
            return ("bad", len(models))
        res = frozenset(decode(program, x) for x in models[0].symbols if x.name == "res")
        return OracleResult(res, s.stats)

    out = isolated(job, limits=limits)
    if isinstance(out, tuple):
        raise ModelError(f"oracle: the SPAseq program has {'no' if out[1] == 0 else 'more than one'} stable "
                         "model; it is locally stratified, so this is a bug (docs/semantics/spaseq.md#spaseq-9.1)",
                         out[1])
    return out
