"""Parser for CEL queries (lark: LALR(1) first, Earley when LALR cannot), producing :mod:`ceplab.semantics.cel.ast`
values.

One grammar (``grammar.lark``), two lark parsers.  The grammar is unambiguous but not LALR(1): after ``FILTER P``
the token ``AND`` / ``OR`` may continue the predicate or join two formulas, and only a later token tells
(``A AS x FILTER x.v > 1 AND B AS y``).  The LALR(1) parser resolves that conflict by shifting (continuing the
predicate), so it accepts a subset of the language, and on that subset its tree is the grammar's unique parse
tree, the one Earley finds; on any input it rejects, the Earley parser (``ambiguity="explicit"``) parses or
reports the error.  The LALR parser is about ten times faster, and differential fuzzing parses a new query per
case (tests: both parsers give the same tree on thousands of generated queries).

Syntax (paper section 3, docs/semantics/cel.md#cel-2): ``R AS x``, ``phi FILTER P``, ``phi OR phi``,
``phi ; phi``, ``phi+``, parentheses, selection strategies ``STRICT(phi)``, ``NXT(phi)`` (also
``NEXT``), ``LAST(phi)``, ``MAX(phi)`` (``ALL``/``ANY`` = no strategy) around the whole formula, and
the project extensions ``phi WITHIN n`` (whole formula, or inside a strategy) and ``phi AND phi``.

Nested strategies (``A AS x ; NXT(B AS y)``, EXTENSION, docs/semantics/cel.md#cel-G5) are always parsed into
:class:`ceplab.semantics.cel.ast.Sel` nodes; whether they are accepted depends on
``Options.nested_strategies`` (``"reject"`` by default), checked by
:func:`ceplab.semantics.cel.analysis.check_nested_strategies` here (``options`` argument) and again by the
oracle and the engine with the options they are given. Their closedness (no outer variable inside,
no inner variable outside) is checked always. Predicates are boolean
combinations (AND, OR, NOT, parentheses, TRUE, FALSE) of ``x.a OP c`` and ``x.a OP y.b`` with OP in
``< <= = != >= >`` (``==`` and ``<>`` are accepted as ``=`` and ``!=``).

After parsing, :func:`parse` checks strong well-formedness (docs/semantics/cel.md#cel-G3) via
:func:`ceplab.semantics.cel.analysis.check_well_formed`.
"""
from __future__ import annotations

import ast as _pyast
from functools import lru_cache
from pathlib import Path

from lark import Lark, Token, Transformer, Tree, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from ceplab.semantics.cel import ast as A
from ceplab.semantics.errors import ParseError

_GRAMMAR = (Path(__file__).with_name("grammar.lark")).read_text(encoding="utf-8")
_OPMAP = {"==": "=", "<>": "!="}
_STRAT = {"NEXT": "NXT", "ANY": "ALL"}


@lru_cache(maxsize=1)
def _lark() -> Lark:
    """The Earley parser: every input of the grammar; its errors are the ones reported."""
    return Lark(_GRAMMAR, parser="earley", lexer="dynamic", propagate_positions=True,
                ambiguity="explicit")


@lru_cache(maxsize=1)
def _lalr() -> Lark:
    """The LALR(1) parser of the same grammar (shift/reduce conflicts on ``AND``/``OR`` after a predicate resolved
    by shifting; see the module docstring)."""
    return Lark(_GRAMMAR, parser="lalr", lexer="contextual", propagate_positions=True)


def parse_tree(text: str) -> "Tree":
    """The lark parse tree of ``text``: the LALR(1) parser's when it accepts ``text``, else the Earley parser's
    (which raises ``UnexpectedInput`` on a syntax error)."""
    try:
        return _lalr().parse(text)
    except UnexpectedInput:
        return _lark().parse(text)


class _ToAst(Transformer):
    def __init__(self) -> None:
        super().__init__()
        self.positions: dict[tuple[str, str], tuple[int, int]] = {}

    def _note(self, kind: str, tok: Token) -> None:
        self.positions.setdefault((kind, str(tok)), (tok.line, tok.column))

    @v_args(inline=True)
    def atom(self, rel, _as, var):
        self._note("def", var)
        return A.Atom(str(rel), str(var))

    @v_args(inline=True)
    def or_(self, l, _k, r):
        return A.Or(l, r)

    @v_args(inline=True)
    def and_(self, l, _k, r):
        return A.And(l, r)

    @v_args(inline=True)
    def seq(self, l, r):
        return A.Seq(l, r)

    @v_args(inline=True)
    def plus(self, b):
        return A.Plus(b)

    @v_args(inline=True)
    def filter(self, b, _k, p):
        return A.Filter(b, p)

    @v_args(inline=True)
    def por(self, l, _k, r):
        return A.POr(l, r)

    @v_args(inline=True)
    def pand(self, l, _k, r):
        return A.PAnd(l, r)

    @v_args(inline=True)
    def pnot(self, _k, a):
        return A.PNot(a)

    def ptrue(self, _):
        return A.PTrue()

    def pfalse(self, _):
        return A.PFalse()

    @v_args(inline=True)
    def ref(self, var, attr):
        self._note("use", var)
        return ("ref", str(var), str(attr), var)

    @v_args(inline=True)
    def num(self, tok):
        s = str(tok)
        return ("const", int(s) if s.lstrip("-").isdigit() else float(s), tok)

    @v_args(inline=True)
    def string(self, tok):
        try:
            return ("const", _pyast.literal_eval(str(tok)), tok)
        except (SyntaxError, ValueError) as e:   # e.g. a backslash before the closing quote
            raise ParseError(f"bad string literal {str(tok)[:40]}: {e.msg if isinstance(e, SyntaxError) else e}",
                             None, tok.line, tok.column) from None

    @v_args(inline=True)
    def cmp(self, l, op, r):
        o = _OPMAP.get(str(op), str(op))
        if l[0] == "ref" and r[0] == "ref":
            return A.Cmp2(l[1], l[2], o, r[1], r[2])
        if l[0] == "ref":
            return A.Cmp(l[1], l[2], o, r[1])
        if r[0] == "ref":
            return A.Cmp(r[1], r[2], A.FLIP[o], l[1])
        raise ParseError("a comparison needs at least one attribute reference x.attr",
                         None, l[2].line, l[2].column)

    @v_args(inline=True)
    def windowed(self, f, _k=None, n=None):
        return (f, None if n is None else int(str(n)))

    @v_args(inline=True)
    def sel(self, strat, f, _k=None, n=None):
        s = str(strat).upper()
        return A.Sel(_STRAT.get(s, s), f, None if n is None else int(str(n)),
                     at=(strat.line, strat.column))

    @v_args(inline=True)
    def start(self, w):
        f, within = w
        if within is None and isinstance(f, A.Sel):   # the strategy around the whole formula
            return A.Query(f.body, f.strategy, f.within)
        return A.Query(f, "ALL", within)


def _describe(e: UnexpectedInput, text: str) -> str:
    if isinstance(e, UnexpectedEOF):
        return "unexpected end of query"
    if isinstance(e, UnexpectedToken):
        tok = e.token
        if tok.type == "$END":
            return "unexpected end of query"
        val = str(tok)
        if tok.type == "STRATEGY":
            return (f"selection strategy {val} is allowed only around the whole formula "
                    "(nested strategies are not defined by the paper; docs/semantics/cel.md#cel-G5)")
        if tok.type == "WITHIN":
            return "WITHIN applies only to the whole formula (write it last, inside the strategy)"
        return f"unexpected {val!r}"
    if isinstance(e, UnexpectedCharacters):
        line = text.splitlines()[e.line - 1] if text.splitlines() else ""
        rest = line[e.column - 1:]
        word = rest.split()[0] if rest.split() else rest[:1]
        if word.upper().startswith(("STRICT", "NXT", "NEXT", "LAST", "MAX")):
            return (f"selection strategy {word.split('(')[0]} is allowed only around the whole "
                    "formula (docs/semantics/cel.md#cel-G5)")
        if word.upper().startswith("WITHIN"):
            return "WITHIN applies only to the whole formula (write it last, inside the strategy)"
        return f"unexpected {word!r}"
    return str(e)


def parse(text: str, file: str | None = None, check: bool = True, options=None) -> A.Query:
    """Parse CEL query text.

    Args:
        text: the query.
        file: file name for error messages (default ``"<string>"``).
        check: run the strong well-formedness check (docs/semantics/cel.md#cel-G3). Default True.
        options: :class:`ceplab.semantics.cel.options.Options` deciding whether nested strategies are
            accepted (``nested_strategies``); default ``Options()``, which rejects them.

    Returns:
        A :class:`ceplab.semantics.cel.ast.Query`.

    Raises:
        ParseError: with line and column: syntax errors, comparisons without attribute
            references, formulas that are not (strongly) well-formed (naming the variable), nested
            strategies under ``nested_strategies="reject"`` (naming the switch) and nested
            strategies that are not closed (naming the variable).
    """
    try:
        tree = parse_tree(text)
    except UnexpectedInput as e:
        line, col = getattr(e, "line", -1), getattr(e, "column", -1)
        if line is None or line < 1:  # end of input: point just after the last character
            lines = text.split("\n") or [""]
            line, col = len(lines), len(lines[-1]) + 1
        raise ParseError(_describe(e, text), file, line, col) from None
    if any(True for _ in tree.find_data("_ambig")):
        raise ParseError("ambiguous query; add parentheses", file, 1, 1)
    tr = _ToAst()
    try:
        q = tr.transform(tree)
    except ParseError as e:
        raise ParseError(e.message, file, e.line, e.column) from None
    except Exception as e:  # lark wraps transformer errors
        inner = getattr(e, "orig_exc", None)
        if isinstance(inner, ParseError):
            raise ParseError(inner.message, file, inner.line, inner.column) from None
        raise
    from ceplab.semantics.cel.analysis import (WellFormednessError, check_closed, check_nested_strategies,
                                        check_well_formed)
    from ceplab.semantics.cel.options import Options
    check_nested_strategies(q, Options() if options is None else options, file, closed=False)
    try:
        check_closed(q.formula)
        if check:
            check_well_formed(q.formula)
    except WellFormednessError as e:
        line, col = tr.positions.get(("use", e.var), tr.positions.get(("def", e.var), (1, 1)))
        raise ParseError(e.message, file, line, col) from None
    return q


def parse_file(path: str | Path, options=None) -> A.Query:
    """Read and parse a query file; errors name the file (``options`` as for :func:`parse`).

    Raises:
        ParseError: as :func:`parse`, or when the file cannot be read (no line/column).
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ParseError(f"cannot read query: {e}", str(path)) from None
    return parse(text, str(path), options=options)
