"""ETALIS reference oracle: rule base + event stream -> the unique minimal model (note etalis.md 2.4, 9.1-9.3).

The fixed, commented part of the encoding is ``asp/etalis.lp``; this module emits the query-specific part:

* static facts and static Horn rules as ``sa/1`` rules (note 1.2, 9.1);
* one rule block per pattern node (one node per sub-pattern, mirroring binarization, note 9.2), the rows of
  Figure 2 (note 2.5) in hull + relation form (note 2.6), with the switches of
  :class:`ceplab.semantics.etalis.options.Options` (note section 8);
* one ``ev/3`` rule per event rule (``I_mu(pattern) ⊆ I_mu(atom)``, C2 with A1);
* the stream as ``occ/3`` facts.

Where-conditions are compiled to clingo comparisons and integer arithmetic (``+ - * // rem mod ** ^ abs min
max``; ``//`` truncates toward zero as in SWI-Prolog and clingo). Conditions are put in negation normal form and
expanded into one rule per disjunct (the parser guarantees that every variable under ``\\+``/``;`` is bound
outside, so this is exact). Floats (in the program or the stream), ``/`` and other built-ins are rejected with
:class:`UnsupportedError`: scale real-valued data to integers (note 9.1).

Every name and string reaches clingo through :func:`ceplab.asp.oracle.asp_string`.

After solving, the program must have exactly one answer set (Theorem 2.1): 0 or 2+ raise :class:`ModelError`
naming the rules with negation (the only possible culprits).

Results: ``frozenset`` of ``(atom_text, start, end)`` with ``atom_text`` in the ETALIS form ``d(1,abc)``
(DESIGN.md section 4), for every instance in the minimal model whose predicate is the head of some event rule
(derived events; stream events of such a predicate are included, note 2.3 C1). ``include_input=True`` adds all
stream events.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from itertools import product
from pathlib import Path
from typing import Iterable, Sequence

import clingo

from ceplab.asp.oracle import (Limits, OracleResult, Solver, Undecided, asp_string, asp_unstring, isolated)
from ceplab.semantics.etalis import ast as A
from ceplab.semantics.etalis.analysis import pattern_vars, visible_vars
from ceplab.semantics.etalis.options import Options
from ceplab.semantics.etalis.streams import StreamEvent

LP_FILE = Path(__file__).with_name("etalis.lp")

Result = tuple[str, int, int]


@lru_cache(maxsize=1)
def _fixed_program() -> str:
    return LP_FILE.read_text(encoding="utf-8")


class UnsupportedError(ValueError):
    """The program or stream uses a construct the oracle does not encode (floats, ``/``, arithmetic inside
    event-atom patterns, a negated part sharing a variable with the rest of the rule outside its delimiters)."""


class ModelError(RuntimeError):
    """The encoded program has no answer set or more than one (Theorem 2.1 violated, note 2.4 / A2).

    Attributes:
        count: 0, or 2 (meaning: at least two).
        rules: the event rules (text) blamed: those with ``not(..).[..]`` whose blocking differs between the
            two models found (or every rule with negation when there is no model).
    """

    def __init__(self, msg: str, count: int, rules: tuple[str, ...]) -> None:
        super().__init__(msg)
        self.count = count
        self.rules = rules


# ------------------------------------------------------------------------------------------------ terms
_ARITH_BIN = {"+": "+", "-": "-", "*": "*", "//": "/", "rem": "\\", "**": "**", "^": "**"}
_CMP = {"<": "<", ">": ">", "=<": "<=", "<=": "<=", ">=": ">=", "=:=": "=", "=\\=": "!=", "==": "=",
        "\\==": "!=", "=": "=", "\\=": "!=", "!=": "!="}
_NEG = {"<": ">=", ">=": "<", ">": "<=", "<=": ">", "=": "!=", "!=": "="}


def _tuple(names: Sequence[str]) -> str:
    if not names:
        return "()"
    if len(names) == 1:
        return f"({names[0]},)"
    return "(" + ",".join(names) + ")"


class _Vars:
    """ETALIS variable names -> clingo variable names (``V0, V1, ..``; ``_`` stays anonymous)."""

    def __init__(self) -> None:
        self.m: dict[str, str] = {}

    def __call__(self, name: str) -> str:
        if name == "_":
            return "_"
        return self.m.setdefault(name, f"V{len(self.m)}")


def _term(t: A.Term, vs: _Vars) -> str:
    """A term as clingo text (see asp/etalis.lp for the representation); arithmetic is evaluated."""
    if isinstance(t, A.Var):
        return vs(t.name)
    if isinstance(t, A.Num):
        if isinstance(t.value, float):
            raise UnsupportedError(f"float {t.value!r}: the clingo oracle uses integer arithmetic only; scale "
                                   "real-valued data to integers (note etalis.md 9.1)")
        return f"({t.value})" if t.value < 0 else str(t.value)
    if isinstance(t, A.Sym):
        return asp_string(t.name)
    if isinstance(t, A.Str):
        return f"q({asp_string(t.value)})"
    if isinstance(t, A.List):
        return "l(" + ",".join(_term(i, vs) for i in t.items) + ")" if t.items else "l"
    if isinstance(t, A.Compound):
        if t.is_arithmetic:
            args = [_term(a, vs) for a in t.args]
            f = t.functor
            if len(args) == 2 and f in _ARITH_BIN:
                return f"({args[0]}{_ARITH_BIN[f]}{args[1]})"
            if len(args) == 2 and f == "mod":  # sign of the divisor (Prolog mod)
                a, b = args
                return f"((({a}\\{b})+{b})\\{b})"
            if len(args) == 1 and f == "-":
                return f"(-{args[0]})"
            if len(args) == 1 and f == "abs":
                return f"|{args[0]}|"
            if len(args) == 2 and f in ("min", "max"):
                a, b = args
                sign = "-" if f == "min" else "+"
                return f"(({a}+{b}{sign}|{a}-{b}|)/2)"
            raise UnsupportedError(f"arithmetic {t} is not supported by the clingo oracle (integer + - * // "
                                   "rem mod ** ^ abs min max only; '/' may produce floats)")
        return "c(" + ",".join([asp_string(t.functor)] + [_term(a, vs) for a in t.args]) + ")"
    raise TypeError(t)


def _atom(name: str, args: Iterable[A.Term], vs: _Vars) -> str:
    return "e(" + ",".join([asp_string(name)] + [_term(a, vs) for a in args]) + ")"


def _has_arith(t: A.Term) -> bool:
    if isinstance(t, A.Compound):
        return t.is_arithmetic or any(_has_arith(a) for a in t.args)
    if isinstance(t, A.List):
        return any(_has_arith(a) for a in t.items)
    return False


# ------------------------------------------------------------------------------------------------ conditions
def _dnf(c: A.Cond, vs: _Vars, neg: bool = False) -> list[list[str]]:
    """Negation normal form + disjunctive normal form of a condition: alternatives of clingo body literals."""
    if isinstance(c, A.CNot):
        return _dnf(c.cond, vs, not neg)
    if isinstance(c, (A.CAnd, A.COr)):
        parts = [_dnf(i, vs, neg) for i in c.items]
        if isinstance(c, A.CAnd) != neg:  # conjunction
            return [sum(combo, []) for combo in product(*parts)]
        return [alt for p in parts for alt in p]
    if isinstance(c, A.StaticAtom):
        lit = f"sa({_atom(c.name, c.args, vs)})"
        return [[f"not {lit}" if neg else lit]]
    if isinstance(c, A.Is):
        left, op, right = c.var, "=", c.expr
    elif isinstance(c, A.Cmp):
        left, op, right = c.left, _CMP[c.op], c.right
    else:
        raise TypeError(c)
    if neg:
        op = _NEG[op]
    if op == "=" and isinstance(right, A.Var) and not isinstance(left, A.Var):
        left, right = right, left  # clingo assigns the variable on the left
    return [[f"{_term(left, vs)}{op}{_term(right, vs)}"]]


# ------------------------------------------------------------------------------------------------ compiler
@dataclass
class Compiled:
    """The query-specific ASP text and the map node id -> index of its event rule."""
    text: str
    node_rule: dict[int, int] = field(default_factory=dict)
    not_rules: tuple[int, ...] = ()


class _Compiler:
    def __init__(self, prog: A.Program, options: Options) -> None:
        self.prog = prog
        self.o = options
        self.lines: list[str] = []
        self.next_id = 0
        self.node_rule: dict[int, int] = {}
        self.not_rules: list[int] = []
        self.rule_idx = -1
        self.rule_vars: list[A.Var] = []

    def emit(self, s: str) -> None:
        self.lines.append(s)

    def compile(self) -> Compiled:
        for s in self.prog.static_rules:
            vs = _Vars()
            head = f"sa({_atom(s.head.name, s.head.args, vs)})"
            if s.body is None:
                self.emit(f"{head}.")
            else:
                for alt in _dnf(s.body, vs):
                    self.emit(f"{head} :- {', '.join(alt)}.")
        for i, r in enumerate(self.prog.event_rules):
            self.rule_idx = i
            self.rule = r
            vs = _Vars()
            body = self.prog.effective_body(r)
            root, names = self.node(body, vs)
            head = _atom(r.head.name, r.head.args, vs)
            self.emit(f"% rule {i}: {_comment(str(r))}")
            self.emit(f"ev({head},S,E) :- h({root},{_tuple([vs(n) for n in names])},S,E).")
        return Compiled("\n".join(self.lines) + "\n", dict(self.node_rule), tuple(self.not_rules))

    def node(self, p: A.Pattern, vs: _Vars) -> tuple[int, list[str]]:
        """Emit the rule block of node ``p``; returns (node id, sorted ETALIS variable names of its tuple)."""
        n = self.next_id
        self.next_id += 1
        self.node_rule[n] = self.rule_idx
        names = sorted(visible_vars(p))
        V = _tuple([vs(x) for x in names])
        o = self.o
        if isinstance(p, A.EventAtom):
            for a in p.args:
                if _has_arith(a):
                    raise UnsupportedError(f"arithmetic term {a} inside the event pattern {p} is not supported "
                                           "by the clingo oracle; bind a variable and compare in 'where'")
            self.emit(f"h({n},{V},S,E) :- ev({_atom(p.name, p.args, vs)},S,E).")
        elif isinstance(p, A.TimePoint):
            self.emit(f"h({n},(),{int(p.value)},{int(p.value)}).")
        elif isinstance(p, A.Window):
            c, cn = self.node(p.pattern, vs)
            rel = "<=" if o.window == "at_most" else "="
            self.emit(f"h({n},{V},S,E) :- h({c},{self.tup(cn, vs)},S,E), E-S{rel}{int(p.length)}.")
        elif isinstance(p, A.Where):
            c, cn = self.node(p.pattern, vs)
            for alt in _dnf(p.cond, vs):
                self.emit(f"h({n},{V},S,E) :- h({c},{self.tup(cn, vs)},S,E), {', '.join(alt)}.")
        elif isinstance(p, A.Binary):
            l, ln = self.node(p.left, vs)
            r, rn = self.node(p.right, vs)
            L = f"h({l},{self.tup(ln, vs)},S1,E1)"
            R = f"h({r},{self.tup(rn, vs)},S2,E2)"
            proper = ", S1<E1, S2<E2" if o.proper_intervals_only else ""
            hull = "S=(S1+S2-|S1-S2|)/2, E=(E1+E2+|E1-E2|)/2"  # <min(S1,S2), max(E1,E2)> (note 2.6)
            op = p.op
            if op == "seq":        # e1 < s2 (before)
                self.emit(f"h({n},{V},S1,E2) :- {L}, {R}, E1<S2.")
            elif op == "and":      # any relation
                self.emit(f"h({n},{V},S,E) :- {L}, {R}, {hull}.")
            elif op == "par":      # max(s1,s2) < min(e1,e2): positive overlap
                self.emit(f"h({n},{V},S,E) :- {L}, {R}, S1<E2, S2<E1, S1<E1, S2<E2, {hull}.")
            elif op == "or":       # union; range restricted (A6)
                self.emit(f"h({n},{V},S1,E1) :- {L}.")
                self.emit(f"h({n},{V},S2,E2) :- {R}.")
            elif op == "equals":
                self.emit(f"h({n},{V},S1,E1) :- {L}, {R}, S1=S2, E1=E2{proper}.")
            elif op == "meets":
                self.emit(f"h({n},{V},S1,E2) :- {L}, {R}, E1=S2{proper}.")
            elif op == "during":   # s2 < s1 < e1 < e2; result: container (A5) or contained
                res = "S2,E2" if o.during_result == "container" else "S1,E1"
                self.emit(f"h({n},{V},{res}) :- {L}, {R}, S2<S1, S1<E1, E1<E2.")
            elif op == "starts":   # s1 = s2, e1 < e2; result = p2
                self.emit(f"h({n},{V},S2,E2) :- {L}, {R}, S1=S2, E1<E2{proper}.")
            elif op == "finishes":  # e1 = e2, s2 < s1; result = p2
                self.emit(f"h({n},{V},S2,E2) :- {L}, {R}, E1=E2, S2<S1{proper}.")
            else:
                raise UnsupportedError(f"unknown operator {op}")
        elif isinstance(p, A.Not):
            self.not_node(n, p, names, vs)
        else:
            raise TypeError(p)
        return n, names

    def tup(self, names: list[str], vs: _Vars) -> str:
        return _tuple([vs(x) for x in names])

    def not_node(self, n: int, p: A.Not, names: list[str], vs: _Vars) -> None:
        if self.rule_idx not in self.not_rules:
            self.not_rules.append(self.rule_idx)
        a, an = self.node(p.start, vs)
        b, bn = self.node(p.end, vs)
        V23 = set(names)
        local = pattern_vars(p.negated) - V23
        outside = {v.name for a_ in self.rule.head.args for v in A.term_vars(a_)}
        outside |= _vars_except(self.prog.effective_body(self.rule), p.negated)
        clash = sorted(local & outside)
        if clash:
            raise UnsupportedError(
                f"variable {clash[0]} of the negated part of {p} also occurs outside the negation but not in its "
                "delimiters; the oracle only supports negated parts whose variables are bound by the delimiters "
                "or local to the negation (note etalis.md A6)")
        V = _tuple([vs(x) for x in names])
        self.emit(f"gap({n},{V},S,E2,S3,E) :- h({a},{self.tup(an, vs)},S,E2), h({b},{self.tup(bn, vs)},S3,E), "
                  "E2<S3.")
        c, cn = self.node(p.negated, vs)
        if local and self.o.not_local_vars == "free":
            never = True  # "for every mu": some value of a local variable never occurs (A6)
        else:
            never = False
        C = f"h({c},{self.tup(cn, vs)},S1,E1)"
        if self.o.not_reading == "per_witness":
            self.emit(f"notw({n}).")
            if not never:
                self.emit(f"blk({n},{V},E2,S3) :- gap({n},{V},_,E2,S3,_), {C}, E2<S1, E1<S3.")
        else:
            self.emit(f"notl({n}).")
            if not never:
                self.emit(f"blkl({n},{V},S,E) :- gap({n},{V},S,E2,S3,E), {C}, E2<S1, E1<S3.")


def _vars_except(p: A.Pattern, skip: A.Pattern) -> set[str]:
    """Variables of ``p`` outside the subtree ``skip`` (by identity)."""
    if p is skip:
        return set()
    out: set[str] = set()
    if isinstance(p, A.EventAtom):
        out = {v.name for a in p.args for v in A.term_vars(a)}
    elif isinstance(p, A.Where):
        out = {v.name for v in A.cond_vars(p.cond)} | _vars_except(p.pattern, skip)
    elif isinstance(p, A.Window):
        out = _vars_except(p.pattern, skip)
    elif isinstance(p, A.Binary):
        out = _vars_except(p.left, skip) | _vars_except(p.right, skip)
    elif isinstance(p, A.Not):
        out = _vars_except(p.negated, skip) | _vars_except(p.start, skip) | _vars_except(p.end, skip)
    return out - {"_"}


def _comment(s: str) -> str:
    return "".join(ch if 32 <= ord(ch) < 127 else " " for ch in s)


def compile_program(program: A.Program, options: Options = Options()) -> Compiled:
    """The query-specific ASP part of ``program`` (see the module docstring).

    Raises:
        UnsupportedError: a construct the oracle does not encode.
    """
    return _Compiler(program, options).compile()


def stream_facts(events: Iterable[StreamEvent]) -> str:
    """``occ(e("name",args..),Start,End).`` for every stream event (set semantics, note 2.2)."""
    vs = _Vars()
    out = []
    for ev in events:
        if any(True for a in ev.atom.args for _ in A.term_vars(a)):
            raise UnsupportedError(f"stream event {ev.atom} is not ground")
        out.append(f"occ({_atom(ev.atom.name, ev.atom.args, vs)},{int(ev.start)},{int(ev.end)}).")
    return "\n".join(out) + ("\n" if out else "")


# ------------------------------------------------------------------------------------------------ decoding
def decode_term(sym: clingo.Symbol) -> A.Term:
    """Inverse of the term representation of asp/etalis.lp."""
    t = sym.type
    if t == clingo.SymbolType.Number:
        return A.Num(sym.number)
    if t == clingo.SymbolType.String:
        return A.Sym(asp_unstring(sym.string))
    if t == clingo.SymbolType.Function:
        args = sym.arguments
        if sym.name == "q" and len(args) == 1:
            return A.Str(asp_unstring(args[0].string))
        if sym.name == "l":
            return A.List(tuple(decode_term(a) for a in args))
        if sym.name == "c" and args:
            return A.Compound(asp_unstring(args[0].string), tuple(decode_term(a) for a in args[1:]))
    raise ValueError(f"unexpected term {sym} in the answer set")


def decode_atom(sym: clingo.Symbol) -> A.EventAtom:
    args = sym.arguments
    return A.EventAtom(asp_unstring(args[0].string), tuple(decode_term(a) for a in args[1:]))


# ------------------------------------------------------------------------------------------------ oracle
def oracle(program: A.Program, events: Sequence[StreamEvent], options: Options = Options(),
           limits: Limits = Limits(), *, include_input: bool = False) -> OracleResult | Undecided:
    """The unique minimal model of ``program`` under ``events`` (note 2.4), as ETALIS results.

    With ``options.policy`` other than ``"unrestricted"`` the answer is that of the step-indexed specification
    of the consumption policy (:func:`ceplab.asp.etalis_policy.oracle`, ETALIS-P in :mod:`ceplab.semantics.etalis.policies`).

    Args:
        program: a parsed (and checked) :class:`ceplab.semantics.etalis.ast.Program`.
        events: stream events (:func:`ceplab.semantics.etalis.streams.read_events`).
        options: semantic switches (note section 8).
        limits: time and ground-size limits; exceeding them gives :class:`Undecided`.
        include_input: also return stream events of non-derived predicates.

    Returns:
        ``OracleResult(frozenset of (atom_text, start, end), stats)`` or :class:`Undecided`.

    Raises:
        UnsupportedError: the program or stream uses a construct the oracle cannot encode.
        ModelError: the program has no answer set or several (the rules with negation are named).
    """
    if options.policy != "unrestricted":
        from ceplab.asp.etalis_policy import oracle as policy_oracle

        return policy_oracle(program, events, options, limits, include_input=include_input)
    comp = compile_program(program, options)
    facts = stream_facts(events)
    derived = program.derived_predicates()
    text = _fixed_program() + "\n" + comp.text

    def job():
        s = Solver(["2"], limits)
        s.add(text)
        if facts:
            s.add(facts)
        s.ground()
        models = s.solve()
        if len(models) != 1:
            blocks = [frozenset(str(x) for x in m.symbols if x.name in ("blk", "blkl")) for m in models]
            diff = (blocks[0] ^ blocks[1]) if len(blocks) >= 2 else frozenset()
            nodes = set()
            for b in diff:
                nodes.add(int(clingo.parse_term(b).arguments[0].number))
            return ("bad", len(models), sorted(nodes), s.stats)
        res = set()
        for x in models[0].symbols:
            if x.name != "ev":
                continue
            atom = decode_atom(x.arguments[0])
            if include_input or atom.key in derived:
                res.add((str(atom), x.arguments[1].number, x.arguments[2].number))
        return OracleResult(frozenset(res), s.stats)

    out = isolated(job, limits=limits)
    if isinstance(out, tuple):
        _, count, nodes, _stats = out
        rules = program.event_rules
        idx = sorted({comp.node_rule[k] for k in nodes}) or list(comp.not_rules)
        names = tuple(str(rules[i]) for i in idx)
        where = "; ".join(f"line {rules[i].pos[0] if rules[i].pos else '?'}: {rules[i]}" for i in idx)
        what = "no answer set" if count == 0 else "more than one answer set"
        raise ModelError(
            f"the ETALIS program has {what}, but the semantics has exactly one minimal model (Theorem 2.1, note "
            f"etalis.md 2.4/A2): the negation is not stratified by time"
            + (f" in rule(s) {where}" if where else "")
            + (" (during_result='contained' breaks the hull property the stratification relies on)"
               if options.during_result == "contained" else ""),
            count, names)
    return out
