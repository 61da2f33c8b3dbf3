"""Parser for ETALIS rule files (``.event`` syntax of the implementation; docs/semantics/etalis.md#etalis-1.4, #etalis-1.6), producing
:mod:`ceplab.semantics.etalis.ast` values.

Accepted statements:
  * event rules ``head <- pattern.``, optionally labelled ``r1 'rule:' head <- pattern.`` or with properties
    ``r2([property(event_rule_window,3)]) 'rule:' head <- pattern.``;
  * ``event_rule_property(r1, event_rule_window, 1).`` (a property of the rule labelled ``r1``);
  * static rules ``h(X) :- b1, b2.`` and facts ``h(c).`` (docs/semantics/etalis.md#etalis-1.2);
  * directives ``:- goal.`` and ETALIS configuration facts (``print_trigger(a/1).`` ...), kept verbatim.

Patterns: event atoms, absolute time points, ``seq and par or equals meets during starts finishes`` (bare,
quoted ``'seq'``, lower/Capitalised/UPPER case), ``not(p1).[p2,p3]`` and ``(p2 seq p3) cnot p1``, ``where``
(comparisons, arithmetic, static predicates, ``\\+``, ``;``), windows ``(p).q``.  Precedence (tightest first,
all left-associative, docs/semantics/etalis.md#etalis-A13; the implementation's op/3 table): seq/equals/meets/during/starts/finishes,
cnot, and, par, or, where.  See ``grammar.lark``.

Aggregates: ``Start seq aggregate(F, Item, Result)`` with ``F`` one of ``count``, ``sum(X)``, ``avg(X)``,
``min(X)``, ``max(X)`` is an :class:`~ceplab.semantics.etalis.ast.Aggregate` (the paper's iterative aggregation,
docs/semantics/etalis.md#etalis-4.4); ``aggregate(..)`` anywhere else is an error.  A static goal
``P seq prolog(Goal)`` (the implementation's way to call a static predicate between pattern elements) is read as
``P where Goal`` (:func:`_goal_call`); ``prolog(..)`` anywhere else is an error.

Not supported (outside the paper's language, reported as unknown operators): ``fnot``, infix ``not``,
``within``, ``check``, ``do``, ``timestamp``, ``event_multiply``, ``forall_seq``, ``ntimes``, ``star_times``.
A functor the implementation reserves (``aggregate``, ``prolog``, :data:`RESERVED_FUNCTORS`: ``check(..)``, ...) is never read
as an ordinary event type: as an event atom or a rule head it is an error with its line and column.

Parsing: one statement at a time (:func:`split_statements`), with lark's LALR(1) parser of ``grammar.lark``
when it accepts the statement (about 99% of generated statements, ten times faster) and with the Earley
parser of the same grammar otherwise, which also gives every error message and ambiguity report
(:func:`parse_tree`; the tests compare the two trees on generated and bundled statements).  To make the
grammar LALR(1), a static atom in a condition is parsed as a term and checked afterwards (``c_term``: a name
or a compound, not an arithmetic expression), and the ``.`` of ``(P).q`` and ``not(P).[..]`` is its own
terminal, never the end of a statement.

After parsing, :func:`ceplab.semantics.etalis.analysis.check_program` checks safety and the termination condition
of docs/semantics/etalis.md#etalis-A14 (all errors are :class:`~ceplab.semantics.errors.ParseError` with line and column).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from lark import Lark, Token, Transformer
from lark.exceptions import UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError

from ceplab.semantics.errors import ParseError
from ceplab.semantics.etalis import ast as A

_GRAMMAR = (Path(__file__).with_name("grammar.lark")).read_text(encoding="utf-8")
_CMP_NORMAL = {"<=": "=<", "!=": "\\="}
#: Facts of these predicates configure the ETALIS system; they become Directives (no semantic effect).
CONFIG_PREDICATES = frozenset({"print_trigger", "external_trigger", "print_event", "persistent_event",
                               "set_etalis_flag", "db", "event_consumption_policy", "spy_point",
                               "logging_external", "out_trigger"})
#: Operators of the implementation that are outside the paper's language (docs/semantics/etalis.md#etalis-1.6).
UNSUPPORTED_OPS = ("fnot", "not", "within", "check", "do", "timestamp", "event_multiply", "forall_seq",
                   "ntimes", "star_times", "iff", "*", "#", "/\\", "\\/")
_UNESC = {"n": "\n", "t": "\t", "\\": "\\", "'": "'", '"': '"'}


@lru_cache(maxsize=1)
def _lark() -> Lark:
    """The Earley parser: every statement of the grammar; its errors and ambiguity reports are the ones given."""
    return Lark(_GRAMMAR, parser="earley", lexer="dynamic", propagate_positions=True,
                ambiguity="explicit", start="start")


@lru_cache(maxsize=1)
def _lalr() -> Lark:
    """The LALR(1) parser of the same grammar.  Its shift/reduce conflicts (a ``,`` after a ``where`` condition
    inside ``not(..).[..]``, ``[]`` followed by ``)`` at the start of a statement) are resolved by shifting, so it
    accepts a subset of the statements; on that subset its tree is the grammar's unique parse tree (the Earley
    parser's), and every statement it rejects goes to the Earley parser (module docstring)."""
    return Lark(_GRAMMAR, parser="lalr", lexer="contextual", propagate_positions=True, start="start")


def parse_tree(text: str) -> Any:
    """The lark parse tree of one statement (or several): LALR(1) when it accepts ``text``, else Earley (which
    raises ``UnexpectedInput`` on a syntax error)."""
    try:
        return _lalr().parse(text)
    except UnexpectedInput:
        return _lark().parse(text)


def _unquote(s: str) -> str:
    body = s[1:-1]
    return re.sub(r"\\(.)", lambda m: _UNESC.get(m.group(1), m.group(1)), body)


def _name(tok: Token) -> str:
    s = str(tok)
    return _unquote(s) if s.startswith("'") else s


def _p(tok) -> tuple[int, int] | None:
    line = getattr(tok, "line", None)
    if line is None:
        meta = getattr(tok, "meta", None)
        if meta is not None and not getattr(meta, "empty", True):
            return (meta.line, meta.column)
        return None
    return (line, tok.column)


def _num(s: str) -> A.Num:
    if re.fullmatch(r"-?[0-9]+", s):
        return A.Num(int(s))
    return A.Num(float(s))


def _tpos(t) -> tuple[int, int] | None:
    return getattr(t, "pos", None)


#: Functors the ETALIS implementation reserves for its own constructs: an event atom with one of these names would
#: never match any event, so it is an error (with the reason), never an ordinary event type.
RESERVED_FUNCTORS = {
    "check": "check(Goal) is the implementation's condition operator; write 'P where Goal' (the paper's where)",
    "not": "not(P) needs its delimiters: not(P).[P2,P3] (the paper's negation) or (P2 seq P3) cnot P",
    **{name: f"{name}(..) is an operator of the ETALIS implementation outside the paper's language (unsupported; "
             "docs/semantics/etalis.md#etalis-1.6)"
       for name in ("fnot", "do", "timestamp", "event_multiply", "forall_seq", "ntimes", "star_times", "cnot",
                    "within", "iff")},
}


@dataclass(frozen=True)
class _AggregateCall:
    """``aggregate(F, Item, Result)`` as parsed, before ``binop`` attaches it to the start event of its ``seq``."""
    func: str
    arg: A.Var | None
    item: A.EventAtom
    result: A.Var
    count_window: int | None
    pos: tuple[int, int] | None


def _aggregate_call(args: tuple, pos: tuple[int, int] | None) -> _AggregateCall:
    """Check the arguments of ``aggregate(F, Item, Result)`` (docs/semantics/etalis.md#etalis-4.4) and keep them."""
    where = pos or (1, 1)
    if len(args) not in (3, 4):
        raise ParseError(f"aggregate needs three arguments, aggregate(F, Item, Result) with F one of count, sum(X), "
                         f"avg(X), min(X), max(X), and optionally a count window N; got {len(args)}", None, *where)
    f, item, result = args[:3]
    window = None
    if len(args) == 4:
        n = args[3]
        if not (isinstance(n, A.Num) and isinstance(n.value, int) and n.value >= 1):
            raise ParseError(f"the count window of aggregate(F, Item, Result, N) must be an integer N >= 1 (the last N "
                             f"items); got {n}", None, *(getattr(n, "pos", None) or where))
        window = n.value
    if isinstance(f, A.Sym) and f.name == "count":
        func, arg = "count", None
    elif (isinstance(f, A.Compound) and f.functor in A.AGGREGATE_FUNCTIONS and f.functor != "count"
          and len(f.args) == 1 and isinstance(f.args[0], A.Var) and f.args[0].name != "_"):
        func, arg = f.functor, f.args[0]
    else:
        raise ParseError(f"the aggregate function must be count, sum(X), avg(X), min(X) or max(X) with X a variable of the "
                         f"item event; got {f}", None, *(getattr(f, "pos", None) or where))
    if isinstance(item, A.Sym):
        item = A.EventAtom(item.name, (), pos=where)
    elif isinstance(item, A.Compound) and not item.is_arithmetic:
        item = A.EventAtom(item.functor, item.args, pos=item.pos or where)
    else:
        raise ParseError(f"the aggregated item must be an event atom such as a(X); got {item}", None,
                         *(getattr(item, "pos", None) or where))
    if item.name in RESERVED_FUNCTORS or item.name in ("aggregate", "prolog"):
        raise ParseError(f"the aggregated item must be an event atom; {item.name!r} is reserved", None, *where)
    if not isinstance(result, A.Var) or result.name == "_":
        raise ParseError(f"the aggregate's result must be a new named variable; got {result}", None,
                         *(getattr(result, "pos", None) or where))
    return _AggregateCall(func, arg, item, result, window, pos)


@dataclass(frozen=True)
class _GoalCall:
    """``prolog(Goal)`` as parsed, before ``binop`` turns ``P seq prolog(Goal)`` into ``P where Goal``."""
    cond: A.Cond
    pos: tuple[int, int] | None


#: ETALIS's utility predicates (``src/utils.P``) a static goal may call, as ceplab's integer functions:
#: ``min(T1,T2,T3)`` binds ``T3`` to the smaller of two numbers, ``max/3`` to the greater.
GOAL_BUILTINS = ("min", "max")


def _builtin_cond(t: A.Compound) -> A.Cond | None:
    """A comparison or ``is`` written in prefix form (``'is'(X, E)``, ``'<'(X, Y)``, as the implementation's rule
    files sometimes do) as the condition it is, or None for any other compound."""
    if len(t.args) == 2 and t.functor == "is" and isinstance(t.args[0], A.Var):
        return A.Is(t.args[0], t.args[1], pos=t.pos)
    if len(t.args) == 2 and t.functor in A.CMP_OPS:
        return A.Cmp(_CMP_NORMAL.get(t.functor, t.functor), t.args[0], t.args[1], pos=t.pos)
    return None


def _goal_call(args: tuple, pos: tuple[int, int] | None) -> _GoalCall:
    """``prolog(Goal)``, a static goal between pattern elements (the implementation's form of the paper's
    ``where``, docs/semantics/etalis.md#etalis-4.4): ``Goal`` is a static atom ``p(t1..tn)`` of the rule base or one of
    :data:`GOAL_BUILTINS` (``min(X, Y, M)`` reads ``M is min(X, Y)``: integers only, as all of ceplab's arithmetic)."""
    where = pos or (1, 1)
    if len(args) != 1:
        raise ParseError(f"prolog(Goal) takes one goal, got {len(args)} arguments", None, *where)
    (g,) = args
    if isinstance(g, A.Sym):
        return _GoalCall(A.StaticAtom(g.name, (), pos=where), pos)
    if isinstance(g, A.Compound) and g.functor in GOAL_BUILTINS and len(g.args) == 3:
        x, y, m = g.args
        expr = A.Compound(g.functor, (x, y), pos=g.pos)
        if isinstance(m, A.Var) and m.name != "_":
            return _GoalCall(A.Is(m, expr, pos=g.pos or where), pos)
        return _GoalCall(A.Cmp("=:=", m, expr, pos=g.pos or where), pos)
    if isinstance(g, A.Compound) and not g.is_arithmetic:
        builtin = _builtin_cond(g)
        if builtin is not None:
            return _GoalCall(builtin, pos)
        return _GoalCall(A.StaticAtom(g.functor, g.args, pos=g.pos or where), pos)
    raise ParseError(f"prolog(Goal): the goal must be a static predicate p(..) of the rule base or min/3, max/3; got "
                     f"{g} (write comparisons and arithmetic in 'where')", None, *(getattr(g, "pos", None) or where))


def _no_aggregate(p: Any) -> Any:
    """``p``, unless it is an ``aggregate(..)`` or a ``prolog(..)`` outside the right operand of ``seq`` (an
    error)."""
    if isinstance(p, _GoalCall):
        raise ParseError("prolog(Goal) checks the pattern before it: write it as the right operand of seq, "
                         "'P seq prolog(Goal)' (read as 'P where Goal')", None, *(p.pos or (1, 1)))
    if isinstance(p, _AggregateCall):
        raise ParseError("aggregate(F, Item, Result) is started by the event before it: write it as the right "
                         "operand of seq, 'Start seq aggregate(F, Item, Result)' (docs/semantics/etalis.md#etalis-4.4)",
                         None, *(p.pos or (1, 1)))
    return p


class _ToAst(Transformer):
    """Tree -> AST.  Semantic errors found locally raise ParseError (without file)."""

    def __init__(self) -> None:
        super().__init__()
        self._arith: set[int] = set()   # ids of the arithmetic compounds built so far (kept alive in _keep)
        self._keep: list = []
        self._sympos: dict[int, tuple[int, int] | None] = {}

    # ---------------------------------------------------------------- terms
    def var(self, items):
        tok = items[0]
        return A.Var(str(tok), pos=_p(tok))

    def num(self, items):
        return _num(str(items[0]))

    def string(self, items):
        return A.Str(_unquote(str(items[0])))

    def sym(self, items):
        s = A.Sym(_name(items[0]))
        self._sympos[id(s)] = _p(items[0])     # a name used as a static atom keeps its position (c_term)
        self._keep.append(s)
        return s

    def list(self, items):
        return A.List(tuple(i for i in items if i is not None))

    def compound(self, items):
        return A.Compound(_name(items[0]), tuple(items[1:]), pos=_p(items[0]))

    def arith(self, items):
        left, op, right = items
        o = str(op)
        return self._mark(A.Compound(o, (left, right), pos=_tpos(left) or _p(op)))

    def negnum(self, items):
        return _num("-" + str(items[-1]))

    def neg(self, items):
        arg = items[-1]
        return self._mark(A.Compound("-", (arg,), pos=_tpos(arg)))

    def _mark(self, c: A.Compound) -> A.Compound:
        """Remember that ``c`` is an arithmetic expression (never a static atom, :meth:`c_term`)."""
        self._arith.add(id(c))
        self._keep.append(c)
        return c

    # ---------------------------------------------------------------- conditions
    def c_cmp(self, items):
        l, op, r = items
        o = _CMP_NORMAL.get(str(op), str(op))
        return A.Cmp(o, l, r, pos=_p(op))

    def c_is(self, items):
        v, _k, e = items
        return A.Is(A.Var(str(v), pos=_p(v)), e, pos=_p(v))

    def c_term(self, items):
        """A term used as a condition: a static atom (a name or a compound ``p(t1..tn)``, not an arithmetic
        expression)."""
        (t,) = items
        if isinstance(t, A.Sym):
            return A.StaticAtom(t.name, (), pos=self._sympos.get(id(t)))
        if isinstance(t, A.Compound) and id(t) not in self._arith:
            builtin = _builtin_cond(t)
            if builtin is not None:
                return builtin
            return A.StaticAtom(t.functor, t.args, pos=t.pos)
        raise ParseError(f"a condition must be a comparison, 'X is E', a static atom, '\\+ C', or a "
                         f"parenthesised condition; got the term {t}", None, *(_tpos(t) or (1, 1)))

    def c_not(self, items):
        return A.CNot(items[1], pos=_p(items[0]))

    def c_and(self, items):
        return A.CAnd(tuple(items))

    def c_or(self, items):
        return A.COr(tuple(items))

    # ---------------------------------------------------------------- patterns
    def event_atom(self, items):
        name, args, pos = _name(items[0]), tuple(items[1:]), _p(items[0])
        if name == "aggregate":
            return _aggregate_call(args, pos)
        if name == "prolog":
            return _goal_call(args, pos)
        if name in RESERVED_FUNCTORS:
            raise ParseError(RESERVED_FUNCTORS[name], None, *(pos or (1, 1)))
        return A.EventAtom(name, args, pos=pos)

    def time_point(self, items):
        return A.TimePoint(int(str(items[0])), pos=_p(items[0]))

    def binop(self, items):
        l, op, r = items
        word = str(op).strip("'").lower()
        if isinstance(r, _AggregateCall) and word == "seq" and not isinstance(l, (_AggregateCall, _GoalCall)):
            return A.Aggregate(l, r.func, r.arg, r.item, r.result, r.count_window, pos=r.pos)
        if isinstance(r, _GoalCall) and word == "seq" and not isinstance(l, (_AggregateCall, _GoalCall)):
            return A.Where(l, r.cond, pos=r.pos)
        return A.Binary(word, _no_aggregate(l), _no_aggregate(r), pos=_p(op))

    def cnot(self, items):
        l, op, r = (_no_aggregate(x) if i != 1 else x for i, x in enumerate(items))
        if not (isinstance(l, A.Binary) and l.op == "seq"):
            raise ParseError("'cnot' needs a sequence on its left: (p2 seq p3) cnot p1 "
                             "(it is the paper's not(p1).[p2,p3])", None, *_p(op))
        return A.Not(r, l.left, l.right, pos=_p(op))

    def where(self, items):
        p, kw, c = items
        p = _no_aggregate(p)
        return A.Where(p, c, pos=_p(kw))

    def window(self, items):
        p, q = items
        p = _no_aggregate(p)
        return A.Window(p, int(str(q)), pos=_p(q))

    def not_p(self, items):
        kw, neg, s, e = items
        neg, s, e = _no_aggregate(neg), _no_aggregate(s), _no_aggregate(e)
        return A.Not(neg, s, e, pos=_p(kw))

    # ---------------------------------------------------------------- statements
    def atom_head(self, items):
        return (items[0], tuple(items[1:]))

    def prop(self, items):
        return A.Property(_name(items[0]), items[1])

    def label_props(self, items):
        name = items[0]
        props = tuple(i for i in items[1:-1] if isinstance(i, A.Property))
        return (_name(name), props, _p(name))

    def label_plain(self, items):
        return (_name(items[0]), (), _p(items[0]))

    def event_rule(self, items):
        if len(items) == 4:
            (label, props, lpos), (htok, hargs), body, _end = items
        else:
            label, props, lpos = None, (), None
            (htok, hargs), body, _end = items
        head = A.EventAtom(_name(htok), hargs, pos=_p(htok))
        if head.name in ("aggregate", "prolog") or head.name in RESERVED_FUNCTORS:
            raise ParseError(f"{head.name!r} is reserved by ETALIS and cannot name a derived event (the head of a "
                             "rule)", None, *(head.pos or (1, 1)))
        return A.EventRule(head, _no_aggregate(body), label, props, pos=lpos or _p(htok))

    def static_rule(self, items):
        (htok, hargs), body, _end = items
        return A.StaticRule(A.StaticAtom(_name(htok), hargs, pos=_p(htok)), body, pos=_p(htok))

    def fact(self, items):
        (htok, hargs), _end = items
        name = _name(htok)
        pos = _p(htok)
        if name == "event_rule_property":
            if len(hargs) != 3 or not isinstance(hargs[0], A.Sym) or not isinstance(hargs[1], A.Sym):
                raise ParseError("event_rule_property needs (Label, PropertyName, Value) with atoms "
                                 "for Label and PropertyName", None, *pos)
            return A.RuleProperty(hargs[0].name, hargs[1].name, hargs[2], pos=pos)
        if name in CONFIG_PREDICATES:
            term = A.Compound(name, hargs) if hargs else A.Sym(name)
            return A.Directive(term, False, pos=pos)
        return A.StaticRule(A.StaticAtom(name, hargs, pos=pos), None, pos=pos)

    def directive(self, items):
        return A.Directive(items[0], True, pos=_tpos(items[0]))

    def start(self, items):
        return A.Program(tuple(items))


def _word_at(text: str, line: int, col: int) -> str:
    lines = text.split("\n")
    if not (1 <= line <= len(lines)):
        return ""
    rest = lines[line - 1][col - 1:]
    m = re.match(r"'[^']*'|[A-Za-z_][A-Za-z0-9_]*|\S+", rest)
    return m.group(0) if m else ""


def _describe(e: UnexpectedInput, text: str, line: int, col: int) -> str:
    if isinstance(e, UnexpectedEOF) or (isinstance(e, UnexpectedToken) and e.token.type == "$END"):
        return "unexpected end of file (is the final '.' missing?)"
    word = _word_at(text, line, col)
    bare = word.strip("'")
    if bare.lower() in UNSUPPORTED_OPS or word in UNSUPPORTED_OPS:
        return (f"unknown operator {word!r}: it belongs to the ETALIS implementation, not to the paper's "
                "language (supported: seq, and, par, or, equals, meets, during, starts, finishes, cnot, "
                "not(..).[..,..], where, (P).q; docs/semantics/etalis.md#etalis-1.6)")
    if re.fullmatch(r"'[^']*'|[a-z][A-Za-z0-9_]*", word):
        # a name where an operator or the end of the rule was expected
        prev = text.split("\n")[line - 1][:col - 1].rstrip()
        if prev and (prev[-1] in ")'" or prev[-1].isalnum() or prev[-1] == "_"):
            return (f"unknown operator {word!r} (supported: seq, and, par, or, equals, meets, during, "
                    "starts, finishes, cnot, where)")
    before = text.split("\n")[line - 1][:col - 1].rstrip() if 1 <= line <= len(text.split("\n")) else ""
    if word.startswith(".") or before.endswith(")."):
        return "unexpected '.' (a window is written (P).q with an integer q; a rule ends with '.' and a space)"
    return f"unexpected {word!r}" if word else "unexpected input"


def parse(text: str, file: str | None = None, check: bool = True) -> A.Program:
    """Parse an ETALIS rule file.

    Args:
        text: the file's text.
        file: file name for error messages (default ``"<string>"``).
        check: run :func:`ceplab.semantics.etalis.analysis.check_program` (safety, labels, termination). Default True.

    Returns:
        A :class:`ceplab.semantics.etalis.ast.Program`.

    Raises:
        ParseError: with line and column, for every syntax error, unknown operators, malformed ``cnot``,
            and the semantic checks of :mod:`ceplab.semantics.etalis.analysis`.
    """
    statements: list = []
    for line0, col0, chunk in split_statements(text):
        statements.extend(_parse_chunk(text, line0, col0, chunk, file).statements)
    prog = A.Program(tuple(statements))
    if check:
        from ceplab.semantics.etalis.analysis import check_program
        check_program(prog, file)
    return prog


def split_statements(text: str) -> list[tuple[int, int, str]]:
    """Split a file into statements ``(line, column, text)`` at a '.' followed by white space, '%' or the end,
    outside quotes and comments (Earley parsing is superlinear, so statements are parsed one by one).
    A trailing fragment without its final '.' is returned as the last chunk (and fails to parse there)."""
    out: list[tuple[int, int, str]] = []
    i, n = 0, len(text)
    start = None
    line, col = 1, 1
    sline = scol = 1

    def adv(k: int) -> None:
        nonlocal i, line, col
        for _ in range(k):
            if i < n and text[i] == "\n":
                line, col = line + 1, 1
            else:
                col += 1
            i += 1

    while i < n:
        c = text[i]
        if c == "%":
            j = text.find("\n", i)
            adv((n if j < 0 else j) - i)
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            adv((n if j < 0 else j + 2) - i)
            continue
        if c.isspace():
            adv(1)
            continue
        if start is None:
            start, sline, scol = i, line, col
        if c in "'\"":
            adv(1)
            while i < n and text[i] != c and text[i] != "\n":
                adv(2 if text[i] == "\\" else 1)
            adv(1)
            continue
        if c == "." and (i + 1 >= n or text[i + 1].isspace() or text[i + 1] == "%"):
            adv(1)
            out.append((sline, scol, text[start:i]))
            start = None
            continue
        adv(1)
    if start is not None:
        out.append((sline, scol, text[start:]))
    return out


def _parse_chunk(full: str, line0: int, col0: int, chunk: str, file: str | None) -> A.Program:
    text = chunk

    def shift(line: int, col: int) -> tuple[int, int]:
        return (line + line0 - 1, col + col0 - 1 if line == 1 else col)

    try:
        tree = parse_tree(text)
    except UnexpectedInput as e:
        line, col = getattr(e, "line", -1), getattr(e, "column", -1)
        if line is None or line < 1:
            lines = text.split("\n")
            while len(lines) > 1 and not lines[-1].strip():
                lines.pop()
            line, col = len(lines), len(lines[-1]) + 1
        msg = _describe(e, text, line, col)
        raise ParseError(msg, file, *shift(line, col)) from None
    for tok in tree.scan_values(lambda v: isinstance(v, Token)):
        if tok.line is not None:
            tok.line, tok.column = shift(tok.line, tok.column)
    for sub in tree.iter_subtrees():
        m = sub.meta
        if not getattr(m, "empty", True):
            m.line, m.column = shift(m.line, m.column)
    amb = next(iter(tree.find_data("_ambig")), None)
    if amb is not None:
        pos = _p(amb) or (line0, col0)
        raise ParseError("ambiguous input; add parentheses", file, *pos)
    try:
        return _ToAst().transform(tree)
    except VisitError as e:
        inner = e.orig_exc
        if isinstance(inner, ParseError):
            raise ParseError(inner.message, file, inner.line, inner.column) from None
        raise
    except ParseError as e:
        raise ParseError(e.message, file, e.line, e.column) from None


def parse_file(path: str | Path) -> A.Program:
    """Read and parse an ETALIS ``.event`` file; errors name the file.

    Raises:
        ParseError: as :func:`parse`, or when the file cannot be read (no line/column).
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ParseError(f"cannot read rule file: {e}", str(path)) from None
    return parse(text, str(path))


def parse_term(text: str, file: str | None = None) -> A.Term:
    """Parse a single term (used by the stream reader and tests): ``text`` is ``t`` without a final dot."""
    prog = parse(f":- {text}.", file, check=False)
    d = prog.statements[0] if len(prog.statements) == 1 else None
    if not isinstance(d, A.Directive):
        raise ParseError(f"not a term: {text!r}", file, 1, 1)
    return d.term
