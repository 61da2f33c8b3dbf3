"""The core pattern language of the cross-language matrix (docs/matrix.md).

A small pattern language that every one of the five languages can be asked to express, so that the same
pattern on the same stream can be evaluated under five published semantics.  Its operators and policy
vocabulary follow RSEP-QL (Dell'Aglio, Dao-Tran, Calbimonte, Le Phuoc, Della Valle, "A Query Model to Capture
Event Pattern Matching in RDF Stream Processing Query Languages", EKAW 2016: event patterns built with SEQ, AND,
OR over atomic event patterns, plus selection policies) and the CEP literature's selection strategies (Grez,
Riveros, Ugarte, Vansummeren, CEL: skip-till-any-match, skip-till-next-match, strict contiguity, earliest/latest
match):

    query    := [SELECTION] pattern [WITHIN n]
    pattern  := a | a[x OP k]                  an event of type a (with a filter on its attribute x)
              | SEQ(p1, .., pn)                 p1, then p2, ..., then pn, each strictly after the previous
              | AND(p1, p2)                     both occur, in any order
              | OR(p1, p2)                      either occurs
              | NSEQ(a, c, b)                   a, then b, with no c strictly between them
              | PLUS(a)                         one or more a (Kleene+)
    SELECTION := ALL | NEXT | STRICT | EARLIEST | LATEST

A **core stream** is a sequence of point events ``type(x)``; event ``i`` (0-based) occurs at tick ``i``, so a
window in ticks is a window in positions.  A **core match** is the set of positions of the events a match uses
(a ``frozenset`` of ints), which every language's results can be projected to (CEL's complex events are such sets;
the others carry the positions as event attributes, see each language's translation).  The intended meaning of
each construct under ``ALL`` is in docs/matrix.md; the point of the matrix is to find where the five papers'
semantics give the same pattern a different meaning.

Errors: :func:`parse` raises :class:`ceplab.semantics.errors.ParseError` with line and column.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterator, Optional, Union

from lark import Lark, Token, Transformer
from lark.exceptions import LarkError, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from ceplab.semantics.errors import ParseError

#: The selection choices, in the core's syntax; ``ALL`` is the default (all matches, skip-till-any-match).
SELECTIONS = ("ALL", "NEXT", "STRICT", "EARLIEST", "LATEST")
#: Comparison operators of an atom's filter on ``x``.
CMPS = ("<", "<=", ">", ">=", "=", "!=")
#: The event types and the attribute values drawn by :func:`random_query` and :func:`random_stream`.
TYPES = ("a", "b", "c")
VALUES = (0, 1, 2, 3)

#: The constructs a matrix row can be about (:func:`constructs`).
CONSTRUCTS = ("atom", "filter", "seq", "and", "or", "nseq", "plus", "within",
              "sel:next", "sel:strict", "sel:earliest", "sel:latest")


# ------------------------------------------------------------------------------------------------ syntax
@dataclass(frozen=True)
class Atom:
    """An event of type ``type`` whose attribute ``x`` satisfies ``x op value`` (no filter when ``op`` is None)."""
    type: str
    op: Optional[str] = None
    value: Optional[int] = None

    def holds(self, event: "CoreEvent") -> bool:
        """Whether ``event`` matches this atom."""
        if event.type != self.type:
            return False
        if self.op is None:
            return True
        return _CMP[self.op](event.x, self.value)

    def __str__(self) -> str:
        return self.type if self.op is None else f"{self.type}[x{self.op}{self.value}]"


@dataclass(frozen=True)
class Seq:
    """``SEQ(p1, .., pn)``, n >= 2."""
    items: tuple["Pattern", ...]

    def __str__(self) -> str:
        return "SEQ(" + ", ".join(map(str, self.items)) + ")"


@dataclass(frozen=True)
class And:
    """``AND(p1, p2)``."""
    left: "Pattern"
    right: "Pattern"

    def __str__(self) -> str:
        return f"AND({self.left}, {self.right})"


@dataclass(frozen=True)
class Or:
    """``OR(p1, p2)``."""
    left: "Pattern"
    right: "Pattern"

    def __str__(self) -> str:
        return f"OR({self.left}, {self.right})"


@dataclass(frozen=True)
class NSeq:
    """``NSEQ(first, neg, last)``: ``first`` then ``last`` with no ``neg`` strictly between (negation between two
    events)."""
    first: Atom
    neg: Atom
    last: Atom

    def __str__(self) -> str:
        return f"NSEQ({self.first}, {self.neg}, {self.last})"


@dataclass(frozen=True)
class Plus:
    """``PLUS(a)``: one or more events matching ``atom`` (Kleene+)."""
    atom: Atom

    def __str__(self) -> str:
        return f"PLUS({self.atom})"


Pattern = Union[Atom, Seq, And, Or, NSeq, Plus]


@dataclass(frozen=True)
class CoreQuery:
    """``[selection] pattern [WITHIN window]``; ``window`` in ticks (= positions), None for no window."""
    pattern: Pattern
    selection: str = "ALL"
    window: Optional[int] = None

    def __str__(self) -> str:
        sel = "" if self.selection == "ALL" else f"{self.selection} "
        win = "" if self.window is None else f" WITHIN {self.window}"
        return f"{sel}{self.pattern}{win}"


@dataclass(frozen=True)
class CoreEvent:
    """A point event ``type(x)``; its position in the stream is also its time (ticks)."""
    type: str
    x: int

    def __str__(self) -> str:
        return f"{self.type}({self.x})"


#: A core match: the positions of the events used.
Match = frozenset


_CMP = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
        ">=": lambda a, b: a >= b, "=": lambda a, b: a == b, "!=": lambda a, b: a != b}


class _Build(Transformer):
    def atom(self, ch):
        if len(ch) == 1:
            return Atom(str(ch[0]))
        return Atom(str(ch[0]), str(ch[1]), int(ch[2]))

    def seq(self, ch):
        return Seq(tuple(ch))

    def and_(self, ch):
        return And(*ch)

    def or_(self, ch):
        return Or(*ch)

    def nseq(self, ch):
        return NSeq(*ch)

    def plus(self, ch):
        return Plus(ch[0])

    def within(self, ch):
        return ("within", int(ch[0]))

    def start(self, ch):
        sel, win = "ALL", None
        pat = None
        for c in ch:
            if isinstance(c, Token) and c.type == "SELECTION":
                sel = str(c)
            elif isinstance(c, tuple) and c and c[0] == "within":
                win = c[1]
            else:
                pat = c
        return CoreQuery(pat, sel, win)


@lru_cache(maxsize=1)
def _parser() -> Lark:
    grammar = (Path(__file__).with_name("core.lark")).read_text()
    return Lark(grammar, parser="lalr", lexer="contextual", start="start")


def parse(text: str, file: Optional[str] = None) -> CoreQuery:
    """Parse one core query (the module docstring's syntax).

    Raises:
        ParseError: a syntax error, with ``file``, line and column; a window below 1.
    """
    try:
        q = _Build().transform(_parser().parse(text))
    except UnexpectedEOF:
        lines = text.splitlines() or [""]
        raise ParseError("core pattern: unexpected end (an operator or a parenthesis is not closed)", file,
                         len(lines), len(lines[-1]) + 1) from None
    except UnexpectedInput as e:
        if isinstance(e, UnexpectedToken) and e.token.type == "$END":
            lines = text.splitlines() or [""]
            raise ParseError("core pattern: unexpected end (an operator or a parenthesis is not closed)", file,
                             len(lines), len(lines[-1]) + 1) from None
        raise ParseError(f"core pattern: unexpected input {_near(text, e)}", file, e.line, e.column) from None
    except LarkError as e:                                        # pragma: no cover - a grammar bug
        raise ParseError(f"core pattern: {e}", file, None, None) from None
    if q.window is not None and q.window < 1:
        raise ParseError(f"core pattern: WITHIN needs a window of at least 1 tick, got {q.window}", file, None, None)
    return q


def _near(text: str, e: UnexpectedInput) -> str:
    pos = getattr(e, "pos_in_stream", None)
    if pos is None or pos >= len(text):
        return "at the end"
    return repr(text[pos:pos + 12])


# ------------------------------------------------------------------------------------------------ constructs
def atoms(p: Pattern) -> Iterator[Atom]:
    """The atoms of ``p``, left to right (an NSEQ's negated atom included)."""
    if isinstance(p, Atom):
        yield p
    elif isinstance(p, Seq):
        for i in p.items:
            yield from atoms(i)
    elif isinstance(p, (And, Or)):
        yield from atoms(p.left)
        yield from atoms(p.right)
    elif isinstance(p, NSeq):
        yield p.first
        yield p.neg
        yield p.last
    elif isinstance(p, Plus):
        yield p.atom


def constructs(q: CoreQuery) -> frozenset[str]:
    """The constructs (:data:`CONSTRUCTS`) ``q`` uses."""
    out = {"atom"}

    def walk(p: Pattern) -> None:
        if isinstance(p, Atom):
            if p.op is not None:
                out.add("filter")
        elif isinstance(p, Seq):
            out.add("seq")
            for i in p.items:
                walk(i)
        elif isinstance(p, (And, Or)):
            out.add("and" if isinstance(p, And) else "or")
            walk(p.left)
            walk(p.right)
        elif isinstance(p, NSeq):
            out.add("nseq")
            for a in (p.first, p.neg, p.last):
                walk(a)
        elif isinstance(p, Plus):
            out.add("plus")
            walk(p.atom)

    walk(q.pattern)
    if q.window is not None:
        out.add("within")
    if q.selection != "ALL":
        out.add("sel:" + q.selection.lower())
    return frozenset(out)


def smaller_patterns(p: Pattern) -> Iterator[Pattern]:
    """Strictly simpler patterns than ``p``, simplest changes first: a filter dropped, an OR replaced by one of its
    operands, a SEQ item dropped (at least two stay), an operand simplified (used to shrink a matrix witness)."""
    if isinstance(p, Atom):
        if p.op is not None:
            yield Atom(p.type)
    elif isinstance(p, Or):
        yield p.left
        yield p.right
        yield from (Or(x, p.right) for x in smaller_patterns(p.left))
        yield from (Or(p.left, x) for x in smaller_patterns(p.right))
    elif isinstance(p, And):
        yield from (And(x, p.right) for x in smaller_patterns(p.left))
        yield from (And(p.left, x) for x in smaller_patterns(p.right))
    elif isinstance(p, Seq):
        if len(p.items) > 2:
            for i in range(len(p.items)):
                yield Seq(p.items[:i] + p.items[i + 1:])
        for i, item in enumerate(p.items):
            for x in smaller_patterns(item):
                yield Seq(p.items[:i] + (x,) + p.items[i + 1:])
    elif isinstance(p, NSeq):
        for i, a in enumerate((p.first, p.neg, p.last)):
            for x in smaller_patterns(a):
                parts = [p.first, p.neg, p.last]
                parts[i] = x
                yield NSeq(*parts)
    elif isinstance(p, Plus):
        for x in smaller_patterns(p.atom):
            yield Plus(x)


def smaller_queries(q: CoreQuery, keep: Optional[str] = None) -> Iterator[CoreQuery]:
    """:func:`smaller_patterns` of ``q``'s pattern, same selection and window, that still use construct ``keep``
    (:func:`constructs`) when given."""
    for p in smaller_patterns(q.pattern):
        c = CoreQuery(p, q.selection, q.window)
        if keep is None or keep in constructs(c):
            yield c


# ------------------------------------------------------------------------------------------------ random cases
def random_atom(rng: random.Random, p_filter: float = 0.3) -> Atom:
    """An atom over :data:`TYPES`, with a filter on ``x`` with probability ``p_filter``."""
    t = rng.choice(TYPES)
    if rng.random() < p_filter:
        return Atom(t, rng.choice(CMPS), rng.choice(VALUES))
    return Atom(t)


def random_pattern(rng: random.Random, construct: str, depth: int = 2) -> Pattern:
    """A random pattern whose top operator is ``construct`` (one of ``atom seq and or nseq plus``), with operands
    of depth < ``depth`` drawn from ``atom``/``seq``/``or``."""
    def operand(d: int) -> Pattern:
        if d <= 1 or rng.random() < 0.6:
            return random_atom(rng)
        return random_pattern(rng, rng.choice(("seq", "or")), d - 1)

    if construct in ("atom", "filter"):
        return random_atom(rng, 1.0 if construct == "filter" else 0.3)
    if construct == "seq":
        return Seq(tuple(operand(depth) for _ in range(rng.choice((2, 2, 3)))))
    if construct == "and":
        return And(operand(depth), operand(depth))
    if construct == "or":
        return Or(operand(depth), operand(depth))
    if construct == "nseq":
        return NSeq(random_atom(rng), random_atom(rng), random_atom(rng))
    if construct == "plus":
        return Plus(random_atom(rng))
    raise ValueError(f"unknown pattern construct {construct!r}")


def random_query(rng: random.Random, construct: str) -> CoreQuery:
    """A random core query exercising ``construct`` (:data:`CONSTRUCTS`): the pattern constructs as the top
    operator; ``within`` over a ``SEQ`` or ``NSEQ`` of atoms and ``sel:*`` over a ``SEQ`` of atoms and ORs of two
    atoms (one event either way), so that a difference found in their rows is due to the window or the selection,
    not to another operator."""
    if construct == "within":
        return CoreQuery(random_pattern(rng, rng.choice(("seq", "seq", "nseq")), depth=1), "ALL", rng.randint(1, 4))
    if construct.startswith("sel:"):
        items = tuple(Or(random_atom(rng), random_atom(rng)) if rng.random() < 0.2 else random_atom(rng)
                      for _ in range(rng.choice((2, 2, 3))))
        return CoreQuery(Seq(items), construct[4:].upper(), None)
    return CoreQuery(random_pattern(rng, construct))


def random_stream(rng: random.Random, length: int, types: tuple[str, ...] = TYPES) -> tuple[CoreEvent, ...]:
    """``length`` events with types from ``types`` and ``x`` from :data:`VALUES`."""
    return tuple(CoreEvent(rng.choice(types), rng.choice(VALUES)) for _ in range(length))


def stream_text(events: tuple[CoreEvent, ...]) -> str:
    """``a(1)@0 b(0)@1 ...``: a stream in the report's notation."""
    return " ".join(f"{e}@{i}" for i, e in enumerate(events))


def parse_stream(text: str) -> tuple[CoreEvent, ...]:
    """Inverse of :func:`stream_text` (times must be 0, 1, 2, ...).

    Raises:
        ParseError: a malformed item or a time out of order (the column names it).
    """
    out = []
    col = 1
    for item in text.split():
        try:
            ev, t = item.split("@")
            typ, rest = ev.split("(")
            x = int(rest.rstrip(")"))
            ok = int(t) == len(out) and typ.isidentifier() and typ.islower()
        except ValueError:
            ok = False
        if not ok:
            raise ParseError(f"core stream: expected TYPE(x)@{len(out)}, got {item!r}", None, 1, col)
        out.append(CoreEvent(typ, x))
        col += len(item) + 1
    return tuple(out)
