"""EP-SPARQL reference oracle: query set + triple stream -> SELECT rows and derived occurrences.

The algebra of the paper's section 4.2 (Anicic, Fodor, Rudolph, Stojanovic, WWW 2011), exactly as
`docs/semantics/epsparql.md` section 3.3 prints it, with the switches of
:class:`ceplab.semantics.epsparql.options.Options` (docs/semantics/epsparql.md#epsparql-8).  The fixed, commented part of the encoding is
``asp/epsparql.lp``; this module emits the query-specific part.

Encoding (docs/semantics/epsparql.md#epsparql-9.1)
-------------------
* **Terms** are clingo strings of their canonical N-Triples form (:func:`ceplab.semantics.epsparql.results.n3`),
  always through :func:`ceplab.asp.oracle.asp_string`; ``unb`` (a constant, never a string) is "unbound".
* **Stream**: ``occ(S,P,O,Ta,Tw).`` per occurrence (a set: duplicates are one occurrence, A19); ``Ta <= Tw``
  is checked (A2).
* **Nodes**: every algebra node ``N`` gets ``s(N,V,Ta,Tw)`` rules, ``V`` the tuple of the node's variables
  sorted by name.  Variables that are certainly bound (:func:`ceplab.semantics.epsparql.ast.certain_vars`) simply
  unify across the operands; the others are merged with ``cmp(X,Y,Z)`` (docs/semantics/epsparql.md#epsparql-9.1).  Intervals combine with
  the hull ``min``/``max`` of the combination ``⋈`` (docs/semantics/epsparql.md#epsparql-3.2).  Per operator:

  ==============  ==========================================================================================
  BGP             per_pattern: one ``occ`` per triple pattern (the Join of its patterns, A3);
                  per_triple: one rule per partition of the patterns into "same instantiated triple"
                  blocks, one occurrence per block, distinct triples across blocks (E10)
  Join            compatible rows, hull
  Union           both sides, padded with ``unb``
  SeqJoin         ``W1 < A2`` (strict, A4)
  EqJoin          ``A1 = A2, W1 = W2`` (A5)
  LeftJoin        partners with ``W2 <= W1`` (optional_end=le) or ``W2 < W1`` (strict, as printed); ``F``
                  over the mandatory interval (lj_filter_interval=mandatory, as printed) or the hull; rows
                  with no partner passing ``F`` are kept padded (``not blk``)
  SeqRightJoin    ``Filter(F, SeqJoin(opt, mand))`` plus the mandatory rows with no compatible optional row
                  ending before they start and passing ``F``; in that blocking test ``F`` sees the combined
                  interval (srj_filter_interval=combined) or the mandatory row's (mandatory, as printed, E12)
  EqJoin/EqLeftJoin  same interval; EqLeftJoin blocks like LeftJoin
  Filter          ``tru(F)`` on the row's own interval
  Extend          the expression's value, or ``unb`` on an error (SPARQL 1.1 ``BIND``)
  Project         the sub-select's variables
  ==============  ==========================================================================================

* **Expressions** are evaluated three-valued in contexts ``ctx(K,r(V,Ta,Tw))`` (see ``epsparql.lp``): one value
  per row and node, truth values ``1``/``0``/``err``.  ``filter_errors=error_is_false`` turns an error into false
  where it arises (at a comparison or an effective boolean value), so ``!`` of it is true.
* **Exact numbers, two value layers** (docs/semantics/epsparql.md#epsparql-9.6).  Default
  (``epsparql_int.lp``): no @-function; every number is an integer ``value * 10**d`` with ``d`` the largest
  number of decimal digits of the call (:func:`value_table`, computed once before grounding), values are
  ``v(Category,Payload)`` terms with per-term facts ``tv/2`` (:func:`term_facts`), and the compiler proves
  that no value leaves 32 bits.  Fallback (``epsparql_exact.lp``, when the query set divides, BINDs a
  computed value, or could overflow): the value-level operators are clingo @-functions (:class:`_Functions`)
  on :class:`fractions.Fraction` (values: term strings, ``n(int|dec,"p/q")``, ``err``).  Both are exact:
  ``+ - *`` keep integers integral, ``/`` gives a decimal, division by zero is an error; comparisons between
  numerics compare exact values (``?p2 < ?p1 * 0.7`` with 60 and 100 compares 60 with 70 exactly, and
  "1628.75" is 6515/4).  A decimal that does not terminate (``1/3``) is exact inside a filter but cannot
  become a term: binding it with ``AS`` leaves the variable unbound.  ``xsd:double``/``xsd:float`` are
  rejected (:class:`ceplab.semantics.errors.UnsupportedError`).
* **Windows** (docs/semantics/epsparql.md#epsparql-9.5): a top-level conjunct ``getDURATION() < c`` of a
  FILTER (:func:`duration_bound`) is pushed into the joins below it as a necessary condition with time
  buckets; the FILTER still decides.
* **Time** functions give integer ticks; ``xsd:duration``/``xsd:dateTime`` *constants* in the query become
  numbers of ticks (A15: ``Options.tick_seconds`` seconds per tick, years/months and fractional ticks
  rejected; this module's own ``_duration_ticks``/``_datetime_ticks``, written independently of the
  engine's).  Stream literals of those types stay plain terms.
* **Comparisons** follow SPARQL's operator mapping: numerics by value; simple literals / xsd:string by
  lexical form (also ``<``); booleans by value; other terms only ``=``/``!=`` (same term: equal; an IRI or
  blank node against anything else: different; two different literals of other types: error); a numeric
  against a literal of another type: error (``=``/``!=`` against an IRI: different); ordering an
  incompatible pair: error.  ``BOUND`` never errs; an unbound variable elsewhere is an error.
* **CONSTRUCT** (docs/semantics/epsparql.md#epsparql-3.6, #epsparql-A13): per template triple, ``occ(S,P,O,Ta,Tw) :- s(Root,V,Ta,Tw), ...`` with the
  solution's interval; construct_unbound=drop_solution needs every template variable bound (the printed
  ``var(P_q) ⊆ dom mu``), drop_triple only the triple's own; literal subjects and non-IRI predicates give no
  triple (SPARQL 10.2).  Blank nodes are Skolemised per solution by
  :func:`ceplab.semantics.epsparql.skolem.skolem` (A13c, shared with the engine).  SELECT queries
  read the closure (``occ`` includes the derived occurrences).  With recursion through an optional
  operator the result is the **unique stable model**: clingo is asked for two models, and 0 or 2+ raise
  :class:`ceplab.semantics.errors.ModelError` naming the CONSTRUCT queries (``rules``) with non-monotone
  operators (A13d).  An infinite closure
  (arithmetic in templates, A13e) runs into :class:`ceplab.asp.oracle.Limits` and gives :class:`Undecided`.
* **Background knowledge and RDFS** (docs/semantics/epsparql.md#epsparql-A14, #epsparql-9.1), ``oracle(..., background=Background(graph, ontology))``:
  (i) the triples of the static graph G and the ontology O are ``stat(S,P,O).`` facts, closed in
  ``epsparql.lp`` under rdfs2 (domain), rdfs3 (range; resource objects only), rdfs5/rdfs7 (subPropertyOf),
  rdfs9/rdfs11 (subClassOf), no axiomatic triples.  Static triples are **timeless**: in a BGP each triple
  pattern (per_triple: each block) is matched either by a temporal occurrence ``eocc`` or by a static triple
  ``stat`` (one rule per choice), and the hull ``min``/``max`` ranges over the temporal matches only.
  (ii) Stream entailment: ``eocc`` is ``occ`` (input and CONSTRUCT-derived occurrences) closed under
  rdfs2/3/7/9 with the static schema; an entailed occurrence inherits the interval.  Entailed occurrences are
  not ``Derived`` results (only CONSTRUCT instantiations are).  (iii) A row with no temporal match carries the
  sentinel interval ``tl,tl`` (a constant: no interval).  Join: a timeless side joins and the other side's
  interval is kept (both timeless: timeless); Filter/Extend/Union/Project pass timeless rows on, the time
  functions being an *error* on them; the operands of SEQ, EQUALS, OPTIONAL, OPTIONALSEQ, EQUALSOPTIONAL drop
  timeless rows (guards ``A!=tl``: no result, no partner, no padded row), and so do SELECT results and
  CONSTRUCT solutions.  (iv) Schema triples (``rdfs:subClassOf/subPropertyOf/domain/range``) in the stream
  raise :class:`UnsupportedError`.  With ``background=None`` the program is exactly the plain one.
* ``Options.optional_filter`` is a parse-level switch (docs/semantics/epsparql.md#epsparql-A8, #epsparql-E5): ``ceplab.semantics.epsparql.translate.
  apply_options(qs, options)`` is applied first.

Results: ``Row(query_index, mapping, start, end, count)`` per projected SELECT row (index among the SELECT
queries, file order; ``count`` = number of full solutions of the query's WHERE projecting onto the row under
``output="bag"``, else None) and ``Derived(s,p,o,start,end)`` for every occurrence of the closure that is not an
input occurrence.
"""
from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from functools import lru_cache
from itertools import combinations, product
from pathlib import Path
from typing import Iterable, Optional, Sequence

import clingo
from rdflib import RDF, RDFS, XSD, BNode, Literal, URIRef
from rdflib.term import Node, Variable
from rdflib.util import from_n3

from ceplab.asp.oracle import (LimitExceeded, Limits, OracleResult, Solver, Undecided, asp_string, asp_unstring,
                        isolated)
from ceplab.semantics.epsparql import ast as A
from ceplab.semantics.epsparql.options import Options
from ceplab.semantics.epsparql.results import INTEGER_TYPES, Derived, Row, canonical_decimal, canonical_term, n3
from ceplab.semantics.epsparql.skolem import skolem
from ceplab.semantics.epsparql.streams import Background, Occurrence
from ceplab.semantics.epsparql.translate import apply_options
from ceplab.semantics.errors import ModelError, UnsupportedError

LP_FILE = Path(__file__).with_name("epsparql.lp")
#: the value layers (docs/semantics/epsparql.md#epsparql-9.6): scaled integers (default) and exact rationals (fallback)
LP_INT = Path(__file__).with_name("epsparql_int.lp")
LP_EXACT = Path(__file__).with_name("epsparql_exact.lp")


@lru_cache(maxsize=3)
def _sections(path: Path) -> tuple[tuple[tuple[str, ...], str], ...]:
    """The sections of an encoding file: ``(triggers, text)``; ``()`` = always (the part before the first marker and
    sections marked ``*``)."""
    out, trig, buf = [], (), []
    for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
        if line.startswith("%%section "):
            out.append((trig, "".join(buf)))
            words = tuple(line.split()[1:])
            trig, buf = (() if words == ("*",) else words), []
        else:
            buf.append(line)
    out.append((trig, "".join(buf)))
    return tuple(out)


def _fixed_program(exact: bool = True, text: Optional[str] = None) -> str:
    """``epsparql.lp`` plus the value layer: ``epsparql_exact.lp`` (``exact``) or ``epsparql_int.lp``; with the
    compiled query ``text`` only the sections whose predicates it mentions (all sections when None)."""
    parts = []
    for path in (LP_FILE, LP_EXACT if exact else LP_INT):
        for trig, body in _sections(path):
            if text is None or not trig or any(t in text for t in trig):
                parts.append(body)
    return "".join(parts)


# ------------------------------------------------------------------------------------------------ values
_BAD_NUMERIC = frozenset({XSD.double, XSD.float})
_DUR_RE = re.compile(r"^(-)?P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$")


def _duration_ticks(lit: Literal, tick_seconds: int) -> int:
    """An xsd:duration literal in ticks (A15): years/months rejected, a whole number of ticks required."""
    m = _DUR_RE.match(str(lit).strip())
    if not m or str(lit).strip() in ("P", "-P") or str(lit).strip().endswith("T"):
        raise UnsupportedError(f"oracle: malformed xsd:duration {lit.n3()}")
    sign, y, mo, d, h, mi, s = m.groups()
    if y or mo:
        raise UnsupportedError(f"oracle: duration {lit.n3()} has years or months, which have no fixed length in ticks "
                               "(docs/semantics/epsparql.md#epsparql-A15)")
    secs = Fraction(int(d or 0) * 86400 + int(h or 0) * 3600 + int(mi or 0) * 60) + Fraction(Decimal(s or "0"))
    ticks = secs / tick_seconds
    if ticks.denominator != 1:
        raise UnsupportedError(f"oracle: duration {lit.n3()} is not a whole number of ticks ({tick_seconds} s each)")
    return -int(ticks) if sign else int(ticks)


def _datetime_ticks(lit: Literal, tick_seconds: int) -> int:
    """An xsd:dateTime literal in ticks since the Unix epoch (A15); no time zone = UTC."""
    import datetime as _dt

    v = lit.toPython()
    if not isinstance(v, _dt.datetime):
        raise UnsupportedError(f"oracle: malformed xsd:dateTime {lit.n3()}")
    if v.tzinfo is None:
        v = v.replace(tzinfo=_dt.timezone.utc)
    delta = v - _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
    secs = Fraction(delta.days * 86400 + delta.seconds) + Fraction(delta.microseconds, 10**6)
    ticks = secs / tick_seconds
    if ticks.denominator != 1:
        raise UnsupportedError(f"oracle: dateTime {lit.n3()} is not a whole number of ticks ({tick_seconds} s each)")
    return int(ticks)


def _numeric(t: Node) -> Optional[tuple[str, Fraction]]:
    """``("int"|"dec", exact value)`` of a numeric literal, else None."""
    if isinstance(t, Literal) and t.datatype is not None:
        if t.datatype in INTEGER_TYPES:
            return "int", Fraction(int(str(t).strip()))
        if t.datatype == XSD.decimal:
            return "dec", Fraction(Decimal(str(t).strip()))
    return None


def _check_term(t: Node, where: str) -> None:
    if isinstance(t, Literal) and t.datatype in _BAD_NUMERIC:
        raise UnsupportedError(f"oracle: {where}: {t.n3()}: xsd:double/xsd:float are not supported by the exact oracle "
                               "(docs/semantics/epsparql.md#epsparql-A11: exact decimals only)")


def _stringish(t: Node) -> bool:
    return isinstance(t, Literal) and t.language is None and t.datatype in (None, XSD.string)


def _boolean(t: Node) -> Optional[bool]:
    if isinstance(t, Literal) and t.datatype == XSD.boolean:
        return str(t).strip() in ("true", "1")
    return None


ERR = clingo.Function("err")
UNB = clingo.Function("unb")
_TRUE = Literal(True)
_FALSE = Literal(False)


def _num_sym(kind: str, q: Fraction) -> clingo.Symbol:
    return clingo.Function("n", [clingo.Function(kind), clingo.String(str(q))])


class _Functions:
    """The clingo @-functions: SPARQL's value-level operators on exact rationals, used by the exact value layer
    (``epsparql_exact.lp``, the fallback of docs/semantics/epsparql.md#epsparql-9.6), and ``@skolem`` (both layers).

    Also enforces the call's deadline and ground-size limit while grounding (an infinite closure keeps
    creating new values here), raising :class:`LimitExceeded`.
    """

    def __init__(self, terms: dict[str, Node], limits: Limits, deadline: float) -> None:
        self.terms = terms
        self.limits = limits
        self.deadline = deadline
        self.calls = 0

    # ---- plumbing
    def _tick(self) -> None:
        self.calls += 1
        if self.calls % 256 == 0:
            if time.monotonic() > self.deadline:
                raise LimitExceeded(f"time limit of {self.limits.time_s:g} s exceeded (grounding)")
            if self.calls > self.limits.max_ground_size:
                raise LimitExceeded(f"ground size limit {self.limits.max_ground_size} exceeded (value "
                                    f"computations)")

    def _term(self, s: str) -> Node:
        t = self.terms.get(s)
        if t is None:
            t = from_n3(s)
            self.terms[s] = t
        return t

    def _intern(self, t: Node) -> clingo.Symbol:
        s = n3(t)
        self.terms.setdefault(s, t)
        return clingo.String(s)

    @staticmethod
    def _num(x: clingo.Symbol) -> Optional[tuple[str, Fraction]]:
        if x.type == clingo.SymbolType.Function and x.name == "n":
            return x.arguments[0].name, Fraction(x.arguments[1].string)
        return None

    # ---- values
    def value(self, x: clingo.Symbol) -> clingo.Symbol:
        """A bound variable's term -> its expression value (numbers become exact rationals)."""
        self._tick()
        num = _numeric(self._term(asp_unstring(x.string)))
        return _num_sym(*num) if num else x

    def ticks(self, n: clingo.Symbol) -> clingo.Symbol:
        return _num_sym("int", Fraction(n.number))

    def arith(self, op: clingo.Symbol, x: clingo.Symbol, y: clingo.Symbol) -> clingo.Symbol:
        self._tick()
        a, b = self._num(x), self._num(y)
        if a is None or b is None:
            return ERR
        o = op.string
        if o == "+":
            v = a[1] + b[1]
        elif o == "-":
            v = a[1] - b[1]
        elif o == "*":
            v = a[1] * b[1]
        elif o == "/":
            if b[1] == 0:
                return ERR
            return _num_sym("dec", a[1] / b[1])
        else:
            return ERR
        return _num_sym("int" if a[0] == b[0] == "int" else "dec", v)

    def neg(self, x: clingo.Symbol) -> clingo.Symbol:
        a = self._num(x)
        return ERR if a is None else _num_sym(a[0], -a[1])

    def boollit(self, b: clingo.Symbol) -> clingo.Symbol:
        if b.type != clingo.SymbolType.Number:
            return ERR
        return self._intern(_TRUE if b.number == 1 else _FALSE)

    def compare(self, op: clingo.Symbol, x: clingo.Symbol, y: clingo.Symbol) -> clingo.Symbol:
        self._tick()
        r = self._compare(op.string, x, y)
        return ERR if r is None else clingo.Number(1 if r else 0)

    def _compare(self, o: str, x: clingo.Symbol, y: clingo.Symbol) -> Optional[bool]:
        if x == ERR or y == ERR:
            return None
        a, b = self._num(x), self._num(y)
        if a is not None and b is not None:
            return _ORD[o](a[1], b[1])
        if a is not None or b is not None:
            other = self._term(asp_unstring((y if a is not None else x).string))
            if o in ("=", "!=") and not isinstance(other, Literal):
                return o == "!="
            return None
        tx, ty = self._term(asp_unstring(x.string)), self._term(asp_unstring(y.string))
        if _stringish(tx) and _stringish(ty):
            return _ORD[o](str(tx), str(ty))
        bx, by = _boolean(tx), _boolean(ty)
        if bx is not None and by is not None:
            return _ORD[o](bx, by)
        if o not in ("=", "!="):
            return None
        if x == y:
            eq = True
        elif isinstance(tx, Literal) and isinstance(ty, Literal):
            return None  # RDFterm-equal: two different literals of unknown types are a type error
        else:
            eq = False
        return eq if o == "=" else not eq

    def ebv(self, x: clingo.Symbol) -> clingo.Symbol:
        if x == ERR:
            return ERR
        a = self._num(x)
        if a is not None:
            return clingo.Number(1 if a[1] != 0 else 0)
        t = self._term(asp_unstring(x.string))
        b = _boolean(t)
        if b is not None:
            return clingo.Number(1 if b else 0)
        if _stringish(t):
            return clingo.Number(1 if str(t) else 0)
        return ERR

    def bind(self, x: clingo.Symbol) -> clingo.Symbol:
        """An expression value -> the term an ``AS`` variable gets, or ``unb`` (error / non-terminating)."""
        if x == ERR:
            return UNB
        a = self._num(x)
        if a is None:
            return x
        kind, q = a
        if kind == "int":
            return self._intern(Literal(str(q.numerator), datatype=XSD.integer))
        k = 0
        while (10 ** k) % q.denominator:
            k += 1
            if k > 64 * q.denominator.bit_length():
                return UNB  # not a terminating decimal (1/3): no xsd:decimal term has this value
        dec = Decimal(q.numerator * (10 ** k // q.denominator)).scaleb(-k)
        return self._intern(Literal(canonical_decimal(dec), datatype=XSD.decimal))

    def skolem(self, label: clingo.Symbol, names: clingo.Symbol, v: clingo.Symbol, a: clingo.Symbol,
               w: clingo.Symbol) -> clingo.Symbol:
        self._tick()
        items = [(asp_unstring(k.string), asp_unstring(x.string))
                 for k, x in zip(names.arguments, v.arguments) if x != UNB]
        return self._intern(skolem(asp_unstring(label.string), items, a.number, w.number))


_ORD = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
        ">=": lambda a, b: a >= b, "=": lambda a, b: a == b, "!=": lambda a, b: a != b}


class _Ctl:
    """``clingo.Control`` with the @-function context passed to every ``ground`` call (the shared
    :class:`ceplab.asp.oracle.Solver` grounds without a context)."""

    def __init__(self, ctl: clingo.Control, context: _Functions) -> None:
        self._ctl = ctl
        self._context = context

    def ground(self, parts, context=None):
        return self._ctl.ground(parts, context=self._context)

    def __getattr__(self, name):
        return getattr(self._ctl, name)


# ------------------------------------------------------------------------------------------------ integer values
#: clingo integers are 32-bit: every value of the integer layer stays within +-CAP (docs/semantics/epsparql.md#epsparql-9.6)
CAP = 2**31 - 1


class _NeedExact(Exception):
    """Raised while compiling for the integer value layer when a query set needs the exact one (division, a BIND of a
    computed value, a number that could leave 32 bits); :func:`_oracle` then compiles for ``epsparql_exact.lp``."""


@dataclass(frozen=True)
class ValueTable:
    """What the integer value layer (``asp/epsparql_int.lp``, docs/semantics/epsparql.md#epsparql-9.6) knows before
    grounding, computed once per oracle call from every term of the stream, the background and the query set.

    Attributes:
        d: decimal digits: every number is represented by its value times ``10**d`` (an exact integer).
        mag: the largest ``|value * 10**d|`` of a numeric term (0 if none).
        tmag: the largest ``|t|`` of a time in the stream (ticks); ``dmag``: the longest possible duration (ticks).
        ranks: lexical form -> rank, over the simple literals and xsd:strings (equal forms, equal rank).
    """

    d: int
    mag: int
    tmag: int
    dmag: int
    ranks: dict

    @property
    def scale(self) -> int:
        """``10**d``: the factor between a number and its integer."""
        return 10 ** self.d

    def number(self, q: Fraction) -> int:
        """``q * 10**d`` (exact: d covers every number of the call)."""
        v = q * self.scale
        assert v.denominator == 1, q
        return int(v)

    def value(self, t: Node, tick_seconds: int, constant: bool = False) -> str:
        """``v(Category,Payload)``: the value of term ``t`` (see ``epsparql_int.lp``); a query ``constant`` of type
        xsd:duration / xsd:dateTime is a number of ticks (A15)."""
        if constant and isinstance(t, Literal) and t.datatype == XSD.duration:
            return f"v(num,{_duration_ticks(t, tick_seconds) * self.scale})"
        if constant and isinstance(t, Literal) and t.datatype == XSD.dateTime:
            return f"v(num,{_datetime_ticks(t, tick_seconds) * self.scale})"
        num = _numeric_checked(t)
        if num:
            return f"v(num,{self.number(num[1])})"
        if isinstance(t, (URIRef, BNode)):
            return f"v(res,{asp_string(n3(t))})"
        if _stringish(t):
            return f"v(str,({self.ranks[str(t)]},{1 if str(t) else 0}))"
        b = _boolean(t)
        if b is not None:
            return f"v(bool,{1 if b else 0})"
        return f"v(lit,{asp_string(n3(t))})"


def _numeric_checked(t: Node) -> Optional[tuple[str, Fraction]]:
    try:
        return _numeric(t)
    except (ValueError, InvalidOperation):
        raise UnsupportedError(f"oracle: ill-typed numeric literal {t.n3()}") from None


def _digits(q: Fraction) -> int:
    k = 0
    while (10 ** k) % q.denominator:
        k += 1
    return k


def value_table(terms: Iterable[Node], times: Iterable[int], constants: Iterable[Fraction] = (),
                t0: int = 0) -> Optional[ValueTable]:
    """The :class:`ValueTable` of a call: ``terms`` every term of the stream, background and query set, ``times`` every
    start and end of the stream, ``constants`` the values of the query's numeric constants (including xsd:duration /
    xsd:dateTime in ticks).  None when a number cannot be a 32-bit scaled integer (then the exact layer is used)."""
    nums, strings = [], set()
    for t in terms:
        num = _numeric_checked(t)
        if num:
            nums.append(num[1])
        elif _stringish(t):
            strings.add(str(t))
    nums += list(constants)
    d = max((_digits(q) for q in nums), default=0)
    if d > 9:
        return None
    mag = max((abs(q) * 10 ** d for q in nums), default=0)
    ts = list(times)
    tmax = max(ts, default=t0)
    tmag = max((abs(t) for t in ts), default=0)
    if mag > CAP or tmag * 10 ** d > CAP:
        return None
    return ValueTable(d, int(mag), tmag, max(tmax - t0, 0), {s: i for i, s in enumerate(sorted(strings))})


def _query_terms(qs: A.QuerySet) -> tuple[list[Node], list[A.Const]]:
    """Every constant term of the query set's patterns and templates, and every constant of its expressions."""
    terms: list[Node] = []
    consts: list[A.Const] = []

    def ex(e) -> None:
        if e is None:
            return
        if isinstance(e, A.Const):
            consts.append(e)
        for f in ("left", "right", "expr"):
            sub = getattr(e, f, None)
            if sub is not None and not isinstance(sub, (str, Variable)):
                ex(sub)

    def pat(p) -> None:
        if isinstance(p, A.BGP):
            terms.extend(t for tp in p.triples for t in (tp.s, tp.p, tp.o) if not isinstance(t, Variable))
        ex(getattr(p, "expr", None))
        for c in A.children(p):
            pat(c)

    for q in qs.queries:
        pat(q.where)
        if isinstance(q, A.Construct):
            terms.extend(t for tp in q.template for t in (tp.s, tp.p, tp.o)
                         if not isinstance(t, (Variable, BNode)))
    return terms, consts


# ------------------------------------------------------------------------------------------------ compiler
def _tup(items: Sequence[str]) -> str:
    if not items:
        return "()"
    if len(items) == 1:
        return f"({items[0]},)"
    return "(" + ",".join(items) + ")"


def _min(a: str, b: str) -> str:
    return f"(({a}+{b}-|{a}-{b}|)/2)"


def _max(a: str, b: str) -> str:
    return f"(({a}+{b}+|{a}-{b}|)/2)"


def _vars(p: A.Pattern) -> list[Variable]:
    return sorted(A.pattern_vars(p), key=str)


def _partitions(items: list[int]) -> Iterable[list[list[int]]]:
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in _partitions(rest):
        yield [[first]] + part
        for i in range(len(part)):
            yield part[:i] + [[first] + part[i]] + part[i + 1:]


def _comment(s: str) -> str:
    return "".join(ch if 32 <= ord(ch) < 127 else " " for ch in s)


# ------------------------------------------------------------------------------------------------ window push-down
_MIRROR = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "=", "!=": "!="}


def _conjuncts(e: A.Expr) -> Iterable[A.Expr]:
    """The top-level conjuncts of ``e`` (``a && (b && c)`` -> a, b, c)."""
    if isinstance(e, A.And):
        yield from _conjuncts(e.left)
        yield from _conjuncts(e.right)
    else:
        yield e


def _const_number(e: A.Expr, tick_seconds: int) -> Optional[Fraction]:
    """The exact value of a numeric constant (integer, decimal, xsd:duration / xsd:dateTime in ticks, A15, or the
    negation of one), else None (then nothing is pushed down; the filter itself decides)."""
    sign = 1
    while isinstance(e, A.Neg):
        e, sign = e.expr, -sign
    if not isinstance(e, A.Const) or not isinstance(e.term, Literal):
        return None
    try:
        if e.term.datatype == XSD.duration:
            return sign * Fraction(_duration_ticks(e.term, tick_seconds))
        if e.term.datatype == XSD.dateTime:
            return sign * Fraction(_datetime_ticks(e.term, tick_seconds))
        num = _numeric(e.term)
    except (UnsupportedError, ValueError, InvalidOperation):
        return None
    return sign * num[1] if num else None


def duration_bound(e: Optional[A.Expr], tick_seconds: int) -> Optional[int]:
    """The largest integer ``D`` such that a row on which the filter ``e`` is *true* has ``getDURATION() <= D``, read
    off the top-level conjuncts ``getDURATION() < c``, ``<= c``, ``= c`` and their mirrored forms ``c > getDURATION()``
    ..., ``c`` a numeric or tick-scaled time constant; None when ``e`` states no such bound.

    Sound under both ``filter_errors`` readings (docs/semantics/epsparql.md#epsparql-A11): a conjunction is true only
    if every conjunct is true, and a conjunct that errs (a timeless row, A14 iii) is not true.  Used only to prune
    the grounding (docs/semantics/epsparql.md#epsparql-9.5); the filter itself is still evaluated on every row."""
    if e is None:
        return None
    best = None
    for c in _conjuncts(e):
        if not isinstance(c, A.Cmp):
            continue
        op, left, right = c.op, c.left, c.right
        if _is_duration(right) and not _is_duration(left):
            op, left, right = _MIRROR.get(op, op), right, left
        if not _is_duration(left):
            continue
        v = _const_number(right, tick_seconds)
        if v is None:
            continue
        if op == "<":
            d = math.ceil(v) - 1
        elif op in ("<=", "="):
            d = math.floor(v)
        else:
            continue
        best = d if best is None else min(best, d)
    return best


def _is_duration(e: A.Expr) -> bool:
    return isinstance(e, A.TimeFn) and e.name.upper() == "DURATION"


#: Duration bounds from this many ticks on are not pushed into the grounding (:meth:`_Compiler.bound`).
MAX_PUSHED_BOUND = 2**30


def _lo(d: Optional[int], e: Optional[int]) -> Optional[int]:
    """The tighter of two duration bounds (None: no bound)."""
    return e if d is None else d if e is None else min(d, e)


class _Compiler:
    def __init__(self, options: Options, background: bool = False, t0: int = 0, window: bool = True,
                 vt: Optional[ValueTable] = None) -> None:
        self.o = options
        self.vt = vt           # the integer value layer's table (9.6); None: the exact layer
        self.recursive = False  # CONSTRUCT rules feed the stream: no #min aggregates (they could sit in a cycle)
        self.window = window   # push duration bounds into the grounding (9.5); False: the legacy encoding
        self.t0 = t0           # the origin of the time buckets (9.5)
        self.buckets: set[tuple[int, int]] = set()
        self.bg = background   # A14: patterns match eocc (temporal) or stat (timeless, interval tl,tl)
        self.lines: list[str] = []
        self.n_node = 0
        self.n_expr = 0
        self.n_ctx = 0
        self.vidx: dict[Variable, int] = {}
        self.terms: dict[str, Node] = {}

    def emit(self, s: str) -> None:
        self.lines.append(s)

    def vi(self, v: Variable) -> int:
        return self.vidx.setdefault(v, len(self.vidx))

    def X(self, v: Variable) -> str:
        return f"X{self.vi(v)}"

    def temporal(self, *ts: str) -> list[str]:
        """Guards ``T!=tl`` (A14 iii: timeless rows are dropped at this operand) -- only with background."""
        return [f"{t}!=tl" for t in ts] if self.bg else []

    def const(self, t: Node, where: str) -> str:
        if isinstance(t, BNode):
            raise UnsupportedError(f"oracle: {where}: blank node {t.n3()} in a graph pattern (footnote 4: write a "
                                   "variable)")
        _check_term(t, where)
        s = n3(t)
        self.terms.setdefault(s, t)
        return asp_string(s)

    # ---- expressions
    def new_ctx(self, cvars: list[Variable]) -> int:
        k = self.n_ctx
        self.n_ctx += 1
        names = [f"C{i}" for i in range(len(cvars))]
        for i, c in enumerate(names):
            self.emit(f"cv({k},r({_tup(names)},A,W),{i},{c}) :- ctx({k},r({_tup(names)},A,W)).")
        return k

    def expr(self, e: A.Expr, k: int, cvars: list[Variable], want: str) -> int:
        """Emit expression node facts for ``e`` in context ``k``; returns the node id (a ``want`` = "val" or "bool"
        node, converted by ``ebv``/``tolit`` if needed)."""
        return self._expr(e, k, cvars, want)[0]

    def _expr(self, e: A.Expr, k: int, cvars: list[Variable], want: str) -> tuple[int, int, int]:
        """``(node id, scale, magnitude)``: with the integer layer (``self.vt``, docs/semantics/epsparql.md#epsparql-9.6)
        a numeric value of the node is an integer ``value * 10**scale`` of absolute value at most ``magnitude``; raises
        :class:`_NeedExact` where that cannot hold."""
        vt = self.vt
        i = self.n_expr
        self.n_expr += 1
        self.emit(f"enode({i},{k}).")
        kind = "val"
        scale, mag = (vt.d if vt else 0), 0
        if isinstance(e, A.Var):
            if e.var in cvars:
                self.emit(f"var({i},{cvars.index(e.var)}).")
                mag = vt.mag if vt else 0
            else:
                self.emit(f"novar({i}).")
        elif isinstance(e, A.Const):
            self.emit(f"const({i},{self.const_value(e.term)}).")
            if vt:
                v = _const_number(e, self.o.tick_seconds)
                mag = abs(v) * vt.scale if v is not None else 0
        elif isinstance(e, A.TimeFn):
            name = e.name.upper()
            if name not in ("DURATION", "STARTTIME", "ENDTIME"):
                raise UnsupportedError(f"oracle: unknown time function get{e.name}()")
            self.emit(f"tfn({i},{name.lower()}).")
            if vt:
                mag = (vt.dmag if name == "DURATION" else vt.tmag) * vt.scale
        elif isinstance(e, A.Arith):
            if e.op not in ("+", "-", "*", "/"):
                raise UnsupportedError(f"oracle: unknown arithmetic operator {e.op!r}")
            left, sl, ml = self._expr(e.left, k, cvars, "val")
            right, sr, mr = self._expr(e.right, k, cvars, "val")
            if not vt:
                self.emit(f"arith({i},{asp_string(e.op)},{left},{right}).")
            elif e.op == "/":
                raise _NeedExact("division")
            else:
                if e.op == "*":
                    scale, f, g, mag = sl + sr, 1, 1, ml * mr
                else:
                    scale = max(sl, sr)
                    f, g = 10 ** (scale - sl), 10 ** (scale - sr)
                    mag = ml * f + mr * g
                self.emit(f"arith({i},{asp_string(e.op)},{left},{right},{f},{g}).")
        elif isinstance(e, A.Neg):
            sub, scale, mag = self._expr(e.expr, k, cvars, "val")
            self.emit(f"neg({i},{sub}).")
        elif isinstance(e, A.Cmp):
            if e.op not in _ORD:
                raise UnsupportedError(f"oracle: unknown comparison {e.op!r}")
            left, sl, ml = self._expr(e.left, k, cvars, "val")
            right, sr, mr = self._expr(e.right, k, cvars, "val")
            if vt:
                s = max(sl, sr)
                f, g = 10 ** (s - sl), 10 ** (s - sr)
                mag = max(ml * f, mr * g)
                self.emit(f"compare({i},{asp_string(e.op)},{left},{right},{f},{g}).")
            else:
                self.emit(f"compare({i},{asp_string(e.op)},{left},{right}).")
            kind = "bool"
        elif isinstance(e, (A.And, A.Or)):
            left = self.expr(e.left, k, cvars, "bool")
            right = self.expr(e.right, k, cvars, "bool")
            self.emit(f"{'and' if isinstance(e, A.And) else 'or'}({i},{left},{right}).")
            kind = "bool"
        elif isinstance(e, A.Not):
            self.emit(f"not_({i},{self.expr(e.expr, k, cvars, 'bool')}).")
            kind = "bool"
        elif isinstance(e, A.Bound):
            if e.var in cvars:
                self.emit(f"bound({i},{cvars.index(e.var)}).")
            else:
                self.emit(f"boundnovar({i}).")
            kind = "bool"
        else:
            raise TypeError(e)
        if mag > CAP:
            raise _NeedExact("32-bit overflow")
        if want == kind:
            return i, scale, mag
        j = self.n_expr
        self.n_expr += 1
        self.emit(f"enode({j},{k}).")
        self.emit(f"{'ebv' if want == 'bool' else 'tolit'}({j},{i}).")
        return j, (vt.d if vt else 0), 0

    def const_value(self, t: Node) -> str:
        """The value of an expression constant: a ``v(...)`` term (integer layer) or as ``epsparql_exact.lp`` reads it."""
        if self.vt:
            _check_term(t, "constant")
            if not isinstance(t, Literal):
                self.const(t, "constant")
            return self.vt.value(t, self.o.tick_seconds, constant=True)
        if isinstance(t, Literal) and t.datatype == XSD.duration:
            return f'n(int,"{_duration_ticks(t, self.o.tick_seconds)}")'
        if isinstance(t, Literal) and t.datatype == XSD.dateTime:
            return f'n(int,"{_datetime_ticks(t, self.o.tick_seconds)}")'
        _check_term(t, "constant")
        try:
            num = _numeric(t)
        except (ValueError, InvalidOperation):
            raise UnsupportedError(f"oracle: ill-typed numeric literal {t.n3()}") from None
        if num:
            return f'n({num[0]},"{num[1]}")'
        return self.const(t, "constant")

    def filter_expr(self, e: A.Expr, cvars: list[Variable]) -> tuple[int, int]:
        k = self.new_ctx(cvars)
        return k, self.expr(e, k, cvars, "bool")

    # ---- patterns
    def node(self, p: A.Pattern, dmax: Optional[int] = None) -> tuple[int, list[Variable]]:
        """Compile pattern ``p`` into ``s(N,...)`` rules; returns ``(N, variables)``.

        ``dmax``: an inherited window (docs/semantics/epsparql.md#epsparql-9.5): every row of ``N`` longer than
        ``dmax`` ticks can only contribute to rows that an ancestor FILTER drops, so combining rules may skip them
        (never a timeless row, A14 iii).  None: no bound."""
        n = self.n_node
        self.n_node += 1
        vs = _vars(p)
        dmax = dmax if self.window else None
        self.emit(f"% node {n}: {type(p).__name__}" + (f" (window {dmax})" if dmax is not None else ""))
        if isinstance(p, A.BGP):
            self.bgp(n, p, vs, dmax)
        elif isinstance(p, (A.Join, A.SeqJoin, A.EqJoin)):
            # monotone operators: a combined row's interval contains each operand row's, so the window goes down
            l, lv = self.node(p.left, dmax)
            r, rv = self.node(p.right, dmax)
            L, R, out, cmps = self.merge(p.left, lv, p.right, rv)
            if isinstance(p, A.EqJoin):  # same interval: the partner is looked up by its interval (A5)
                body = [f"s({l},{_tup(L)},A,W)", f"s({r},{_tup(R)},A,W)"] + cmps + self.temporal("A")
                self.emit(f"s({n},{_tup(out)},A,W) :- {', '.join(body)}.")
                return n, vs
            seq = isinstance(p, A.SeqJoin)
            ta, tw = _min("A1", "A2"), _max("W1", "W2")
            right = self.partner(dmax, ("A1", "W1"), r, _tup(R), ("A2", "W2"), seq, l)
            body = [f"s({l},{_tup(L)},A1,W1)"] + right + cmps + self.temporal("A1", "A2")
            if seq:
                body.append("W1<A2")
            body += self.within(dmax, ta, tw)
            self.emit(f"s({n},{_tup(out)},{ta},{tw}) :- {', '.join(body)}.")
            if self.bg and not seq:  # a timeless side takes part in the join but not in the hull (A14 i, iii)
                lt, rt = f"s({l},{_tup(L)},tl,tl)", f"s({r},{_tup(R)},tl,tl)"
                tail = "".join(", " + c for c in cmps)
                self.emit(f"s({n},{_tup(out)},A1,W1) :- s({l},{_tup(L)},A1,W1), {rt}{tail}, A1!=tl"
                          + "".join(", " + x for x in self.within(dmax, "A1", "W1")) + ".")
                self.emit(f"s({n},{_tup(out)},A2,W2) :- {lt}, s({r},{_tup(R)},A2,W2){tail}, A2!=tl"
                          + "".join(", " + x for x in self.within(dmax, "A2", "W2")) + ".")
                self.emit(f"s({n},{_tup(out)},tl,tl) :- {lt}, {rt}{tail}.")
        elif isinstance(p, A.Union_):
            for side in (p.left, p.right):
                c, cv = self.node(side, dmax)
                pad = [self.X(v) if v in cv else "unb" for v in vs]
                self.emit(f"s({n},{_tup(pad)},A,W) :- s({c},{_tup([self.X(v) for v in cv])},A,W).")
        elif isinstance(p, (A.LeftJoin, A.SeqRightJoin, A.EqLeftJoin)):
            self.optional(n, p, vs, dmax)
        elif isinstance(p, A.Filter):
            # a top-level conjunct getDURATION() < c of this filter bounds every row it keeps (9.5)
            c, cv = self.node(p.pattern, _lo(dmax, self.bound(p.expr)))
            V = _tup([self.X(v) for v in cv])
            base, rest = [f"s({c},{V},A,W)"], p.expr
            if self.vt:  # simple top-level conjuncts as rule bodies (9.6)
                base, rest = self.simple_conjuncts(n, p.expr, cv, base)
            if rest is None:
                self.emit(f"s({n},{V},A,W) :- {', '.join(base)}.")
            else:
                k, e = self.filter_expr(rest, cv)
                self.emit(f"ctx({k},r({V},A,W)) :- {', '.join(base)}.")
                self.emit(f"s({n},{V},A,W) :- {', '.join(base)}, tru({e},r({V},A,W)).")
        elif isinstance(p, A.Extend):
            c, cv = self.node(p.pattern, dmax)
            if p.var in cv:
                raise UnsupportedError(f"oracle: ({p.var.n3()} AS ...) re-binds a variable already in scope")
            V = _tup([self.X(v) for v in cv])
            out = _tup([self.X(v) for v in vs])
            x = self.X(p.var)
            if isinstance(p.expr, A.Var) and p.expr.var in cv:  # BIND(?y AS ?x): the same term
                self.emit(f"s({n},{out},A,W) :- s({c},{V},A,W), {x}={self.X(p.expr.var)}.")
            elif self.vt:
                raise _NeedExact("BIND of a computed value: a new term, written by @bind")
            else:
                k, e = self.new_ctx(cv), None
                e = self.expr(p.expr, k, cv, "val")
                self.emit(f"ctx({k},r({V},A,W)) :- s({c},{V},A,W).")
                self.emit(f"s({n},{out},A,W) :- s({c},{V},A,W), val({e},r({V},A,W),Y), {x}=@bind(Y).")
            self.emit(f"term({x}) :- s({n},{out},A,W), {x}!=unb.")
        elif isinstance(p, A.Project):
            c, cv = self.node(p.pattern, dmax)
            self.emit(f"s({n},{_tup([self.X(v) for v in vs])},A,W) :- s({c},{_tup([self.X(v) for v in cv])},A,W).")
        else:
            raise TypeError(p)
        return n, vs

    def merge(self, lp: A.Pattern, lv: list[Variable], rp: A.Pattern, rv: list[Variable]):
        """Left/right tuples, output tuple and cmp literals for two operands (docs/semantics/epsparql.md#epsparql-3.2 compatibility)."""
        cl, cr = A.certain_vars(lp), A.certain_vars(rp)
        lnames: dict[Variable, str] = {}
        rnames: dict[Variable, str] = {}
        cmps = []
        for v in lv:
            lnames[v] = self.X(v)
        for v in rv:
            if v in lnames and not (v in cl and v in cr):
                i = self.vi(v)
                lnames[v], rnames[v] = f"L{i}", f"R{i}"
                cmps.append(f"cmp(L{i},R{i},X{i})")
            else:
                rnames[v] = self.X(v)
        out = sorted(set(lv) | set(rv), key=str)
        return [lnames[v] for v in lv], [rnames[v] for v in rv], [self.X(v) for v in out], cmps

    def optional(self, n: int, p, vs: list[Variable], dmax: Optional[int] = None) -> None:
        """LeftJoin / SeqRightJoin / EqLeftJoin (docs/semantics/epsparql.md#epsparql-3.3).  Windows (9.5): ``dmax``
        (inherited) bounds the joined rows and the mandatory operand, never the blockers; the bound ``dF`` of the
        operator's own F bounds the joined rows, and the blocking pairs and the optional operand where F sees the
        combined interval."""
        o = self.o
        dF = self.bound(p.expr)
        if isinstance(p, A.SeqRightJoin):
            mp, op_ = p.mandatory, p.optional
        else:
            mp, op_ = p.left, p.right
        if isinstance(p, A.SeqRightJoin):  # children compiled left to right: optional, then mandatory
            combined = o.srj_filter_interval == "combined"
            oc, ov = self.node(op_, dF if combined else None)
            m, mv = self.node(mp, dmax)
            # the combination is r' ⋈ r (optional first): its mapping and hull are symmetric
            Ot, Mt, out, cmps = self.merge(op_, ov, mp, mv)
            probe, pint, kind, pnode = f"s({oc},{_tup(Ot)},A1,W1)", ("A1", "W1"), True, oc
            idx, itup, iint = m, _tup(Mt), ("A2", "W2")
            rest = cmps + ["W1<A2"] + self.temporal("A1", "A2")
            ta, tw = _min("A1", "A2"), _max("W1", "W2")
            mkey = f"{_tup(Mt)},A2,W2"
            fint = ("TA", "TW") if combined else ("A2", "W2")
            joined_int = ("TA", "TW")
            dj, db = _lo(dmax, dF), (dF if combined else None)
        elif isinstance(p, A.LeftJoin):
            hull = o.lj_filter_interval == "hull"
            m, mv = self.node(mp, dmax)
            oc, ov = self.node(op_, dF if hull else None)
            Mt, Ot, out, cmps = self.merge(mp, mv, op_, ov)
            probe, pint, kind, pnode = f"s({m},{_tup(Mt)},A2,W2)", ("A2", "W2"), False, m
            idx, itup, iint = oc, _tup(Ot), ("A1", "W1")
            rest = cmps + self.temporal("A1", "A2") + ["W1<=W2" if o.optional_end == "le" else "W1<W2"]
            ta, tw = _min("A1", "A2"), _max("W1", "W2")
            fint = ("TA", "TW") if hull else ("A2", "W2")
            joined_int = fint
            mkey = f"{_tup(Mt)},A2,W2"
            dj, db = _lo(dmax, dF if hull else None), (dF if hull else None)
        else:  # EqLeftJoin: the partner has the same interval, looked up by it; both operands take every window
            m, mv = self.node(mp, dmax)
            oc, ov = self.node(op_, _lo(dmax, dF))
            Mt, Ot, out, cmps = self.merge(mp, mv, op_, ov)
            probe, pint, kind, pnode = f"s({m},{_tup(Mt)},A2,W2)", ("A2", "W2"), None, m
            idx, itup, iint = oc, _tup(Ot), ("A2", "W2")
            rest = cmps + self.temporal("A2")
            ta, tw = "A2", "W2"
            fint = joined_int = ("TA", "TW")
            mkey = f"{_tup(Mt)},A2,W2"
            dj = db = None
        out_t = _tup(out)

        def body(d: Optional[int]) -> str:
            if kind is None:
                partner = [f"s({idx},{itup},{iint[0]},{iint[1]})"]
            else:
                partner = self.partner(d, pint, idx, itup, iint, kind, pnode)
            return ", ".join([probe] + partner + rest + [f"TA={ta}", f"TW={tw}"] + self.within(d, "TA", "TW"))

        Bj, Bb = body(dj), body(db)
        if p.expr is None:
            self.emit(f"s({n},{out_t},TA,TW) :- {Bj}.")
            if self.window and not self.recursive and not cmps and kind is not None:
                # no F and only certainly-bound shared variables: a mandatory row is blocked iff the earliest end
                # of an optional row with its key is early enough -- linear, instead of every pair (9.5)
                key = _tup([self.X(v) for v in mv if v in ov])
                first = "W1<A2" if isinstance(p, A.SeqRightJoin) else rest[-1]
                guard = "".join(", " + g for g in self.temporal("A1"))
                self.emit(f"oend({n},{key},W1) :- s({oc},{_tup(Ot)},A1,W1){guard}.")
                self.emit(f"omin({n},K,M) :- oend({n},K,_), M = #min{{W : oend({n},K,W)}}.")
                guard = "".join(", " + g for g in self.temporal("A2"))
                self.emit(f"blk({n},{mkey}) :- s({m},{_tup(Mt)},A2,W2), omin({n},{key},W1), {first}{guard}.")
            else:
                self.emit(f"blk({n},{mkey}) :- {Bb}.")
        else:
            k, e = self.filter_expr(p.expr, vs)
            self.emit(f"ctx({k},r({out_t},{joined_int[0]},{joined_int[1]})) :- {Bj}.")
            if fint != joined_int or Bb != Bj:
                self.emit(f"ctx({k},r({out_t},{fint[0]},{fint[1]})) :- {Bb}.")
            self.emit(f"s({n},{out_t},TA,TW) :- {Bj}, tru({e},r({out_t},{joined_int[0]},{joined_int[1]})).")
            self.emit(f"blk({n},{mkey}) :- {Bb}, tru({e},r({out_t},{fint[0]},{fint[1]})).")
        Mx = _tup([self.X(v) for v in mv])
        pad = _tup([self.X(v) if v in mv else "unb" for v in vs])
        guard = "".join(", " + g for g in self.temporal("A2"))
        self.emit(f"s({n},{pad},A2,W2) :- s({m},{Mx},A2,W2), not blk({n},{Mx},A2,W2){guard}.")

    # ---- simple filter conjuncts (docs/semantics/epsparql.md#epsparql-9.6)
    def simple_conjuncts(self, n: int, e: A.Expr, cv: list[Variable],
                         base: list[str]) -> tuple[list[str], Optional[A.Expr]]:
        """A FILTER keeps a row iff every top-level conjunct is *true* (false and error both drop it, under either
        ``filter_errors``, A11).  Conjuncts of a simple form become rule bodies on the row itself instead of
        expression nodes: ``BOUND(?x)``, ``!BOUND(?x)``; an ordering ``< <= > >=`` between variables, numbers
        and time functions (true only between two numbers, two strings or two booleans: one alternative per
        category, on the ``tv`` values); ``= !=`` between numbers and time functions.  Returns the body of a row
        passing them (``fc(N,J,V,A,W)`` atoms for conjuncts with several alternatives) and the conjunction of the
        other conjuncts (None: none), which the general expression rules evaluate on those rows only."""
        V = _tup([self.X(v) for v in cv])
        body, rest = list(base), []
        for j, c in enumerate(_conjuncts(e)):
            alts = self.simple(c, cv)
            if alts is None:
                rest.append(c)
            elif len(alts) == 1:
                body += alts[0]
            else:  # several alternatives (also none: the conjunct is never true, so no row passes)
                for alt in alts:
                    self.emit(f"fc({n},{j},{V},A,W) :- {', '.join(base + alt)}.")
                body.append(f"fc({n},{j},{V},A,W)")
        out = None
        for c in rest:
            out = c if out is None else A.And(out, c)
        return body, out

    def simple(self, c: A.Expr, cv: list[Variable]) -> Optional[list[list[str]]]:
        """The alternatives (lists of body literals) of a simple conjunct ``c``, see :meth:`simple_conjuncts`; None
        if ``c`` is not simple.  Numbers are compared at the common scale ``10**d`` (the ``tv`` values)."""
        vt = self.vt
        if isinstance(c, A.Bound) or (isinstance(c, A.Not) and isinstance(c.expr, A.Bound)):
            neg = isinstance(c, A.Not)
            v = (c.expr if neg else c).var
            if v not in cv:
                return [] if not neg else [[]]
            return [[f"{self.X(v)}{'=' if neg else '!='}unb"]]
        if not isinstance(c, A.Cmp) or c.op not in _ORD:
            return None
        sides = []
        for i, x in enumerate((c.left, c.right)):
            if isinstance(x, A.Var) and x.var in cv:
                sides.append(("var", self.X(x.var)))
            elif isinstance(x, A.TimeFn) and x.name.upper() in ("DURATION", "STARTTIME", "ENDTIME"):
                t = {"DURATION": "(W-A)", "STARTTIME": "A", "ENDTIME": "W"}[x.name.upper()]
                sides.append(("num", f"{t}*{vt.scale}"))
            elif isinstance(x, A.Const) and (v := _const_number(x, self.o.tick_seconds)) is not None:
                if abs(v) * vt.scale > CAP or (v * vt.scale).denominator != 1:
                    return None
                sides.append(("num", str(int(v * vt.scale))))
            else:
                return None
        op = c.op
        guard = ["A!=tl"] if self.bg and any(isinstance(x, A.TimeFn) for x in (c.left, c.right)) else []
        if max(vt.dmag, vt.tmag) * vt.scale > CAP:
            return None
        if all(k == "num" for k, _ in sides):
            return [guard + [f"{sides[0][1]}{op}{sides[1][1]}"]]
        if c.op in ("=", "!="):
            return None   # identity and errors of other categories: the general rules
        cats = ("num",) if any(k == "num" for k, _ in sides) else ("num", "str", "bool")
        alts = []
        for cat in cats:
            lits, vals = list(guard), []
            for i, (k, x) in enumerate(sides):
                if k == "var":
                    lits.append(f"tv({x},v({cat},P{i}))")
                    vals.append(f"P{i}")
                else:
                    vals.append(x)
            alts.append(lits + [f"{vals[0]}{op}{vals[1]}"])
        return alts

    # ---- windows (docs/semantics/epsparql.md#epsparql-9.5)
    def bound(self, e: Optional[A.Expr]) -> Optional[int]:
        """:func:`duration_bound` of a filter expression (None with windows off, and for a bound of
        :data:`MAX_PUSHED_BOUND` ticks or more: the bucket arithmetic is clingo's 32-bit integers, and no duration
        of a stream the oracle accepts comes near it, so such a bound prunes nothing; the filter still decides)."""
        d = duration_bound(e, self.o.tick_seconds) if self.window else None
        return d if d is not None and d < MAX_PUSHED_BOUND else None

    def within(self, d: Optional[int], ta: str, tw: str) -> list[str]:
        """``[tw-ta<=d]``: the window itself (empty without one)."""
        return [] if d is None else [f"{tw}-{ta}<={d}"]

    def partner(self, d: Optional[int], probe: tuple[str, str], node: int, tup: str, iv: tuple[str, str],
                seq: bool, probe_node: int) -> list[str]:
        """Body literals matching a partner row ``s(node,tup,Ai,Wi)`` of a probe row of ``probe_node`` on
        ``probe = (Ap,Wp)`` (the probe atom comes first in the body).

        Without a window: the plain atom.  With window ``d``: only the time buckets ``(Ai - t0) / (d+1)`` in which a
        partner can lie whose combination with the probe lasts at most ``d`` ticks: ``Ai`` in ``[Wp+1, Ap+d]``
        after the probe (``seq``: SEQ, OPTIONALSEQ) or in ``[Wp-d, Ap+d]`` (hull: Join, OPTIONAL), at most 2 (3)
        buckets; the exact test is :meth:`within`.  The partner's rows are indexed once per node and width
        (``sb/6``); the buckets of each probe interval are atoms ``pb(w,Kind,Ap,Wp,B)`` (a function of the interval
        only, shared by all nodes), joined before ``sb`` so that clingo looks the partners up by bucket."""
        if d is None:
            return [f"s({node},{tup},{iv[0]},{iv[1]})"]
        w = max(d, 0) + 1
        kind = "seq" if seq else "hull"
        lo = f"W+1" if seq else f"W-({d})"
        hi = f"A+({d})"
        guard = ", A!=tl" if self.bg else ""
        if (node, w) not in self.buckets:
            self.buckets.add((node, w))
            self.emit(f"sb({node},{w},(A-({self.t0}))/{w},V,A,W) :- s({node},V,A,W){guard}.")
        if (probe_node, w, kind) not in self.buckets:
            self.buckets.add((probe_node, w, kind))
            self.emit(f"pb({w},{kind},A,W,({lo}-({self.t0}))/{w}..({hi}-({self.t0}))/{w}) :- s({probe_node},_,A,W){guard}.")
        return [f"pb({w},{kind},{probe[0]},{probe[1]},BK)", f"sb({node},{w},BK,{tup},{iv[0]},{iv[1]})"]

    def bgp(self, n: int, p: A.BGP, vs: list[Variable], dmax: Optional[int] = None) -> None:
        if not p.triples:
            raise UnsupportedError("oracle: empty basic graph pattern (docs/semantics/epsparql.md#epsparql-A20: min/max over nothing)")

        def pos(t: Node) -> str:
            return self.X(t) if isinstance(t, Variable) else self.const(t, "triple pattern")

        trip = [(pos(tp.s), pos(tp.p), pos(tp.o)) for tp in p.triples]
        head_v = _tup([self.X(v) for v in vs])
        if self.o.bgp_mode == "per_pattern" or len(trip) == 1:
            blocks = [[[i] for i in range(len(trip))]]
        else:
            blocks = list(_partitions(list(range(len(trip)))))
        for part in blocks:
            # A14 i: with background, each block is matched by a temporal occurrence (eocc: the stream and its
            # RDFS entailments) or by a timeless static triple (stat); the hull is over the temporal blocks only
            sources = list(product((True, False), repeat=len(part))) if self.bg else [(True,) * len(part)]
            for temporal in sources:
                body, reps = [], []
                for b, blk in enumerate(part):
                    first = trip[blk[0]]
                    pred = ("eocc" if self.bg else "occ") if temporal[b] else "stat"
                    tail = f",A{b},W{b}" if temporal[b] else ""
                    if len(blk) == 1:
                        body.append(f"{pred}({first[0]},{first[1]},{first[2]}{tail})")
                        reps.append(first)
                        continue
                    body.append(f"{pred}(S{b},P{b},O{b}{tail})")
                    reps.append((f"S{b}", f"P{b}", f"O{b}"))
                    for i in blk:  # every pattern of the block instantiates to the block's one occurrence
                        for sv, tv in zip(reps[-1], trip[i]):
                            body.append(f"{tv}={sv}")
                if self.o.bgp_mode == "per_triple":  # distinct blocks: distinct instantiated triples
                    for b1, b2 in combinations(range(len(part)), 2):
                        body.append(f"{_tup(list(reps[b1]))}!={_tup(list(reps[b2]))}")
                tb = [b for b in range(len(part)) if temporal[b]]
                if tb:
                    ta, tw = f"A{tb[0]}", f"W{tb[0]}"
                    for b in tb[1:]:
                        ta, tw = _min(ta, f"A{b}"), _max(tw, f"W{b}")
                    if len(tb) > 1:
                        body += self.within(dmax, ta, tw)
                else:
                    ta, tw = "tl", "tl"   # only static matches: a timeless row (A14 iii)
                self.emit(f"s({n},{head_v},{ta},{tw}) :- {', '.join(body)}.")

    # ---- queries
    def select(self, qi: int, q: A.Select) -> list[Variable]:
        root, rv = self.node(q.where)
        proj = list(q.projection) if q.projection is not None else rv
        proj = [v for v in dict.fromkeys(proj) if v in rv]
        Vp = _tup([self.X(v) for v in proj])
        V = _tup([self.X(v) for v in rv])
        self.emit(f"% SELECT {qi}")
        guard = "".join(", " + g for g in self.temporal("A"))  # A14 iii: a timeless row is no result
        self.emit(f"ans({qi},{Vp},A,W) :- s({root},{V},A,W){guard}.")
        if self.o.output == "bag":
            self.emit(f"mult({qi},{Vp},A,W,N) :- ans({qi},{Vp},A,W), N=#count{{{V}: s({root},{V},A,W)}}.")
        return proj

    def construct(self, q: A.Construct) -> None:
        root, rv = self.node(q.where)
        V = _tup([self.X(v) for v in rv])
        names = _tup([asp_string(str(v)) for v in rv])
        tvars = {t for tp in q.template for t in (tp.s, tp.p, tp.o) if isinstance(t, Variable)}
        if self.o.construct_unbound == "drop_solution" and not tvars <= set(rv):
            return  # some template variable is never bound: no solution contributes (docs/semantics/epsparql.md#epsparql-3.6)
        sol = [f"s({root},{V},A,W)"] + self.temporal("A")  # A14 iii: timeless solutions derive nothing
        # template blank nodes: one Skolem term per label and solution (A13c), a resource with itself as its value
        for lb in sorted({str(t) for tp in q.template for t in (tp.s, tp.p, tp.o) if isinstance(t, BNode)}):
            L = asp_string(lb)
            self.emit(f"sk({root},{L},{V},A,W,@skolem({L},{names},{V},A,W)) :- {', '.join(sol)}.")
            self.emit(f"isres(B) :- sk({root},{L},_,_,_,B).")
            self.emit(f"tv(B,v(res,B)) :- sk({root},{L},_,_,_,B).")
        for tp in q.template:
            body = list(sol)
            need = tvars if self.o.construct_unbound == "drop_solution" else \
                {t for t in (tp.s, tp.p, tp.o) if isinstance(t, Variable)}
            if not need <= set(rv):
                continue
            body += [f"{self.X(v)}!=unb" for v in sorted(need, key=str)]
            pos = []
            for t in (tp.s, tp.p, tp.o):
                if isinstance(t, Variable):
                    pos.append(self.X(t))
                elif isinstance(t, BNode):
                    b = f"B{len(body)}"
                    body.append(f"sk({root},{asp_string(str(t))},{V},A,W,{b})")
                    pos.append(b)
                else:
                    pos.append(self.const(t, "CONSTRUCT template"))
            # SPARQL 10.2: an instantiation with a literal subject or a non-IRI predicate is no triple
            if isinstance(tp.s, Variable):
                body.append(f"isres({pos[0]})")
            elif not isinstance(tp.s, (URIRef, BNode)):
                continue
            if isinstance(tp.p, Variable):
                body.append(f"isiri({pos[1]})")
            elif not isinstance(tp.p, URIRef):
                continue
            self.emit(f"occ({pos[0]},{pos[1]},{pos[2]},A,W) :- {', '.join(body)}.")


def _nonmonotone(p: A.Pattern) -> bool:
    if isinstance(p, (A.LeftJoin, A.SeqRightJoin, A.EqLeftJoin)):
        return True
    return any(_nonmonotone(c) for c in A.children(p))


def _query_name(i: int, q: A.Query) -> str:
    kind = "CONSTRUCT" if isinstance(q, A.Construct) else "SELECT"
    where = f" at line {q.pos[0]}" if q.pos else ""
    name = f" {q.name!r}" if q.name else ""
    return f"query {i + 1} ({kind}{name}{where})"


def compile_queryset(qs: A.QuerySet, options: Options = Options(),
                     background: bool = False, t0: int = 0, window: bool = True,
                     vt: Optional[ValueTable] = None) -> tuple[str, list[list[Variable]], dict]:
    """The query-specific ASP text, the projection of each SELECT, and the compile-time term table.
    ``background``: compile for timeless static triples and RDFS stream entailment (docs/semantics/epsparql.md#epsparql-A14).
    ``t0``: the origin of the time buckets (docs/semantics/epsparql.md#epsparql-9.5), best the earliest start: any
    integer is correct (clingo's truncating ``/`` is monotone), but buckets straddling t0 are twice as wide."""
    c = _Compiler(options, background, t0, window, vt)
    c.recursive = any(isinstance(q, A.Construct) for q in qs.queries)
    c.emit(f"errors({options.filter_errors}).")
    if any(isinstance(q, A.Construct) for q in qs.queries):
        c.emit("#show occ/5.")   # the derived occurrences are read back
    projections = []
    si = 0
    for i, q in enumerate(qs.queries):
        c.emit(f"% {_comment(_query_name(i, q))}")
        if isinstance(q, A.Construct):
            c.construct(q)
        elif isinstance(q, A.Select):
            projections.append(c.select(si, q))
            si += 1
        else:
            raise TypeError(q)
    return "\n".join(c.lines) + "\n", projections, c.terms


def stream_facts(stream: Iterable[Occurrence], terms: Optional[dict] = None) -> tuple[str, set]:
    """``occ(S,P,O,Ta,Tw).`` facts and the set of input occurrences ``(s, p, o, ta, tw)`` (canonical N-Triples)."""
    out, seen = [], set()
    known: dict[Node, tuple[str, str]] = {}   # term -> (N-Triples, clingo string): each term converted once

    def conv(t: Node, pos: int) -> tuple[str, str]:
        c = known.get(t)
        if c is None:
            _check_term(t, f"stream position {pos}")
            k = n3(t)
            c = known[t] = (k, asp_string(k))
            if terms is not None:
                terms.setdefault(k, t)
        return c

    for oc in stream:
        if not (isinstance(oc.start, int) and isinstance(oc.end, int)) or oc.start > oc.end:
            raise UnsupportedError(f"oracle: occurrence at position {oc.position}: interval [{oc.start},{oc.end}] "
                                   "is not "
                                   "a well-formed integer interval (docs/semantics/epsparql.md#epsparql-A2)")
        if not (-CAP - 1 <= oc.start and oc.end <= CAP):    # clingo would wrap the time around
            raise UnsupportedError(f"oracle: occurrence at position {oc.position}: interval [{oc.start},{oc.end}] is "
                                   f"outside clingo's 32-bit integers [{-CAP - 1}, {CAP}]")
        (s, sa), (p, pa), (o, oa) = conv(oc.s, oc.position), conv(oc.p, oc.position), conv(oc.o, oc.position)
        key = (s, p, o, int(oc.start), int(oc.end))
        if key in seen:
            continue
        seen.add(key)
        out.append(f"occ({sa},{pa},{oa},{key[3]},{key[4]}).")
    return "\n".join(out) + ("\n" if out else ""), seen


_RDFS_NAMES = {"type": RDF.type, "subClassOf": RDFS.subClassOf, "subPropertyOf": RDFS.subPropertyOf,
               "domain": RDFS.domain, "range": RDFS.range}
SCHEMA_PREDICATES = frozenset({RDFS.subClassOf, RDFS.subPropertyOf, RDFS.domain, RDFS.range})


def background_facts(background: Background, terms: Optional[dict] = None) -> str:
    """``stat(S,P,O).`` per triple of the static graph and the ontology (canonical terms; the RDFS closure is
    computed by ``epsparql.lp``), the ``rdfs/2`` names and the copy rule ``eocc :- occ`` (docs/semantics/epsparql.md#epsparql-A14)."""
    out = [f"rdfs({k},{asp_string(n3(v))})." for k, v in _RDFS_NAMES.items()]
    out.append("eocc(S,P,O,A,W) :- occ(S,P,O,A,W).")
    seen = set()
    for g in (background.graph, background.ontology):
        if g is None:
            continue
        for tr in g:
            try:
                tr = tuple(canonical_term(t) for t in tr)
            except ValueError as e:
                raise UnsupportedError(f"oracle: background: {e}") from None
            for t in tr:
                _check_term(t, "background")
            key = tuple(n3(t) for t in tr)
            if terms is not None:
                for t, k in zip(tr, key):
                    terms.setdefault(k, t)
            if key not in seen:
                seen.add(key)
                out.append(f"stat({','.join(asp_string(k) for k in key)}).")
    return "\n".join(out) + "\n"


def _value_table_of(qs: A.QuerySet, stream: Sequence[Occurrence], data_terms: Iterable[Node], options: Options,
                    t0: int) -> Optional[ValueTable]:
    """:func:`value_table` over the terms of the stream and the background (``data_terms``), the stream's times and
    the query set's constants."""
    qterms, consts = _query_terms(qs)
    cvals = [v for v in (_const_number(c, options.tick_seconds) for c in consts) if v is not None]
    terms = list(data_terms) + qterms + [c.term for c in consts]
    times = [t for oc in stream for t in (oc.start, oc.end)]
    return value_table(dict.fromkeys(terms), times, cvals, t0)


def term_facts(terms: dict, vt: Optional[ValueTable], tick_seconds: int) -> str:
    """Per term (canonical N-Triples -> rdflib term), computed once before grounding: ``isres(T).`` (IRI or blank
    node), ``isiri(T).``, and with the integer value layer ``tv(T,V).`` (its value, ``epsparql_int.lp``) and
    ``scale(10^d).`` (docs/semantics/epsparql.md#epsparql-9.6)."""
    out = []
    if vt is not None:
        out.append(f"scale({vt.scale}).")
    for k, t in terms.items():
        a = asp_string(k)
        if isinstance(t, (URIRef, BNode)):
            out.append(f"isres({a}).")
        if isinstance(t, URIRef):
            out.append(f"isiri({a}).")
        if vt is not None:
            out.append(f"tv({a},{vt.value(t, tick_seconds)}).")
    return "\n".join(out) + "\n"


def _apply_options(qs: A.QuerySet, options: Options) -> A.QuerySet:
    """The parse-level switch ``optional_filter`` (docs/semantics/epsparql.md#epsparql-A8):
    :func:`ceplab.semantics.epsparql.translate.apply_options`."""
    return apply_options(qs, options)


def _str(sym: clingo.Symbol) -> str:
    return asp_unstring(sym.string)


def oracle(qs: A.QuerySet, stream: Sequence[Occurrence], options: Options = Options(),
           limits: Limits = Limits(), background: Optional[Background] = None) -> OracleResult | Undecided:
    """The results of ``qs`` on ``stream`` (see the module docstring), with the timeless background knowledge
    ``background`` (docs/semantics/epsparql.md#epsparql-A14; None: no background, the plain semantics).

    Returns:
        ``OracleResult(frozenset of Row and Derived, stats)`` or :class:`Undecided`.

    Raises:
        UnsupportedError: a construct or term the oracle does not encode.
        ModelError: recursion through an optional operator without a unique stable model (A13d).
    """
    return _oracle(qs, stream, options, limits, background)


def _oracle(qs: A.QuerySet, stream: Sequence[Occurrence], options: Options = Options(),
            limits: Limits = Limits(), background: Optional[Background] = None,
            legacy: bool = False) -> OracleResult | Undecided:
    """:func:`oracle`; ``legacy=True`` runs the encoding as it was before docs/semantics/epsparql.md#epsparql-9.5 and
    #epsparql-9.6 (no pushed-down windows, every value through the exact @-functions).  Internal: only the
    test that both encodings answer alike (tests/epsparql/test_epsparql_encoding.py) uses it."""
    qs = _apply_options(qs, options)
    t0 = min((oc.start for oc in stream if isinstance(oc.start, int)), default=0)
    if background is not None:
        for oc in stream:
            if oc.p in SCHEMA_PREDICATES:
                raise UnsupportedError(f"oracle: occurrence at position {oc.position}: schema triple ({oc.p.n3()}) "
                                       "in the "
                                       "stream; schema triples are timeless background knowledge (docs/semantics/epsparql.md#epsparql-A14 iv)")
    bg_terms: dict = {}
    st_terms: dict = {}
    facts, inputs = stream_facts(stream, st_terms)
    if background is not None:
        facts += background_facts(background, bg_terms)
    # the integer value layer (docs/semantics/epsparql.md#epsparql-9.6) unless the query set needs exact rationals
    vt = None if legacy else _value_table_of(qs, stream, [*st_terms.values(), *bg_terms.values()], options, t0)
    text = None
    if vt is not None:
        try:
            text, projections, terms = compile_queryset(qs, options, background is not None, t0, True, vt)
        except _NeedExact:
            vt = None
    if vt is None:
        text, projections, terms = compile_queryset(qs, options, background is not None, t0, not legacy)
    for k, t in (*st_terms.items(), *bg_terms.items()):
        terms.setdefault(k, t)
    facts += term_facts(terms, vt, options.tick_seconds)
    program = _fixed_program(vt is None, text) + "\n" + text

    def job():
        s = Solver(["2"], limits)
        s.ctl = _Ctl(s.ctl, _Functions(dict(terms), limits, s.deadline))
        s.add(program)
        if facts:
            s.add(facts)
        s.ground()
        models = s.solve()
        if len(models) != 1:
            return ("bad", len(models), s.stats)
        rows: dict = {}
        counts: dict = {}
        decoded: dict = {}

        def dec(sym: clingo.Symbol) -> str:   # each term decoded once
            v = decoded.get(sym)
            if v is None:
                v = decoded[sym] = _str(sym)
            return v

        derived = set()
        for x in models[0].symbols:
            args = x.arguments
            if x.name == "occ":
                key = (dec(args[0]), dec(args[1]), dec(args[2]), args[3].number, args[4].number)
                if key not in inputs:
                    derived.add(Derived(*key))
            elif x.name in ("ans", "mult"):
                qi = args[0].number
                names = [str(v) for v in projections[qi]]
                mapping = tuple(sorted((nm, dec(val)) for nm, val in zip(names, args[1].arguments)
                                       if val != UNB))
                key = (qi, mapping, args[2].number, args[3].number)
                if x.name == "ans":
                    rows[key] = True
                else:
                    counts[key] = args[4].number
        bag = options.output == "bag"
        res = {Row(*k, counts[k] if bag else None) for k in rows}
        return OracleResult(frozenset(res | derived), s.stats)

    out = isolated(job, limits=limits)
    if isinstance(out, tuple):
        count = out[1]
        blamed = tuple(_query_name(i, q) for i, q in enumerate(qs.queries)
                       if isinstance(q, A.Construct) and (_nonmonotone(q.where) or _has_bound(q.where)))
        blamed = blamed or tuple(_query_name(i, q) for i, q in enumerate(qs.queries) if isinstance(q, A.Construct))
        what = "no stable model" if count == 0 else "more than one stable model"
        raise ModelError(f"oracle: the Q-closure of the CONSTRUCT rules has {what}: recursion through OPTIONAL/"
                         f"OPTIONALSEQ/EQUALSOPTIONAL/!BOUND is not stratified by time on this stream "
                         f"(docs/semantics/epsparql.md#epsparql-A13d) in {'; '.join(blamed)}", count, blamed)
    return out


def _has_bound(p: A.Pattern) -> bool:
    def ex(e) -> bool:
        if e is None:
            return False
        if isinstance(e, A.Bound):
            return True
        return any(ex(getattr(e, f, None)) for f in ("left", "right", "expr"))

    if isinstance(p, (A.Filter, A.LeftJoin, A.SeqRightJoin, A.EqLeftJoin, A.Extend)) and ex(p.expr):
        return True
    return any(_has_bound(c) for c in A.children(p))
