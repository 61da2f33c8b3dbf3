"""ETALIS reference oracle: rule base + event stream -> the unique minimal model (docs/semantics/etalis.md#etalis-2.4, #etalis-9.1 to #etalis-9.3).

The fixed, commented part of the encoding is ``asp/etalis.lp``; this module emits the query-specific part
(on the nodes of the shared front end :mod:`ceplab.semantics.etalis.binarize`, with the clingo term
representation of :mod:`ceplab.asp.etalis_terms`; source: Anicic et al. 2012, Semantic Web 3(4)):

* static facts and static Horn rules as ``sa/1`` rules (docs/semantics/etalis.md#etalis-1.2, #etalis-9.1);
* one rule block per pattern node (one node per sub-pattern, mirroring binarization, docs/semantics/etalis.md#etalis-9.2), the rows of
  Figure 2 (docs/semantics/etalis.md#etalis-2.5) in hull + relation form (docs/semantics/etalis.md#etalis-2.6), with the switches of
  :class:`ceplab.semantics.etalis.options.Options` (docs/semantics/etalis.md#etalis-8);
* one ``ev/3`` rule per event rule (``I_mu(pattern) ⊆ I_mu(atom)``, C2 with A1);
* the stream as ``occ/3`` facts.

Where-conditions are compiled to clingo comparisons and integer arithmetic (``+ - * // rem mod ** ^ abs min
max``; ``//`` truncates toward zero as in SWI-Prolog and clingo). Conditions are put in negation normal form and
expanded into one rule per disjunct (the parser guarantees that every variable under ``\\+``/``;`` is bound
outside, so this is exact). Floats (in the program or the stream), ``/`` and other built-ins are rejected with
:class:`ceplab.semantics.errors.UnsupportedError`: scale real-valued data to integers (docs/semantics/etalis.md#etalis-9.1).

Every name and string reaches clingo through :func:`ceplab.asp.oracle.asp_string`.

After solving, the program must have exactly one answer set (Theorem 2.1): 0 or 2+ raise
:class:`ceplab.semantics.errors.ModelError`
naming the rules with negation (the only possible culprits).

Results: ``frozenset`` of ``(atom_text, start, end)`` with ``atom_text`` in the ETALIS form ``d(1,abc)``
(DESIGN.md section 4), for every instance in the minimal model whose predicate is the head of some event rule
(derived events; stream events of such a predicate are included, docs/semantics/etalis.md#etalis-2.3 C1). ``include_input=True`` adds all
stream events.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Sequence

import clingo

from ceplab.asp import etalis_policy
from ceplab.asp.etalis_terms import ClingoVars, atom, comment, decode_atom, dnf, tuple_text
from ceplab.asp.oracle import Limits, OracleResult, Solver, Undecided, isolated
from ceplab.semantics.errors import ModelError, UnsupportedError
from ceplab.semantics.etalis import ast as A
from ceplab.semantics.etalis.analysis import pattern_vars
from ceplab.semantics.etalis.binarize import Node, binarize
from ceplab.semantics.etalis.options import Options
from ceplab.semantics.etalis.streams import StreamEvent

LP_FILE = Path(__file__).with_name("etalis.lp")

Result = tuple[str, int, int]


@lru_cache(maxsize=1)
def _fixed_program() -> str:
    return LP_FILE.read_text(encoding="utf-8")


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
        self.node_rule: dict[int, int] = {}
        self.not_rules: list[int] = []

    def emit(self, s: str) -> None:
        self.lines.append(s)

    def compile(self) -> Compiled:
        for s in self.prog.static_rules:
            vs = ClingoVars()
            head = f"sa({atom(s.head.name, s.head.args, vs)})"
            if s.body is None:
                self.emit(f"{head}.")
            else:
                for alt in dnf(s.body, vs):
                    self.emit(f"{head} :- {', '.join(alt)}.")
        for i, (r, root) in enumerate(zip(self.prog.event_rules, binarize(self.prog))):
            vs = ClingoVars()
            self.node(root, vs)
            head = atom(r.head.name, r.head.args, vs)
            self.emit(f"% rule {i}: {comment(str(r))}")
            self.emit(f"ev({head},S,E) :- h({root.id},{self.tup(root.names, vs)},S,E).")
        return Compiled("\n".join(self.lines) + "\n", dict(self.node_rule), tuple(self.not_rules))

    def node(self, nd: Node, vs: ClingoVars) -> None:
        """Emit the rule block of node ``nd`` and of the nodes under it (docs/semantics/etalis.md#etalis-9.2)."""
        n, p = nd.id, nd.pattern
        self.node_rule[n] = nd.rule
        for c in nd.children:
            self.node(c, vs)
        V = self.tup(nd.names, vs)
        o = self.o
        if isinstance(p, A.EventAtom):
            self.emit(f"h({n},{V},S,E) :- ev({atom(p.name, p.args, vs)},S,E).")
        elif isinstance(p, A.TimePoint):
            self.emit(f"h({n},(),{int(p.value)},{int(p.value)}).")
        elif isinstance(p, A.Window):
            (c,) = nd.children
            rel = "<=" if o.window == "at_most" else "="
            self.emit(f"h({n},{V},S,E) :- h({c.id},{self.tup(c.names, vs)},S,E), E-S{rel}{int(p.length)}.")
        elif isinstance(p, A.Where):
            (c,) = nd.children
            for alt in dnf(p.cond, vs):
                self.emit(f"h({n},{V},S,E) :- h({c.id},{self.tup(c.names, vs)},S,E), {', '.join(alt)}.")
        elif isinstance(p, A.Binary):
            lc, rc = nd.children
            L = f"h({lc.id},{self.tup(lc.names, vs)},S1,E1)"
            R = f"h({rc.id},{self.tup(rc.names, vs)},S2,E2)"
            proper = ", S1<E1, S2<E2" if o.proper_intervals_only else ""
            hull = "S=(S1+S2-|S1-S2|)/2, E=(E1+E2+|E1-E2|)/2"  # <min(S1,S2), max(E1,E2)> (docs/semantics/etalis.md#etalis-2.6)
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
                raise UnsupportedError(f"oracle: unknown operator {op}")
        elif isinstance(p, A.Not):
            self.not_node(nd, vs)
        else:
            raise TypeError(p)

    def tup(self, names: Sequence[str], vs: ClingoVars) -> str:
        return tuple_text([vs(x) for x in names])

    def not_node(self, nd: Node, vs: ClingoVars) -> None:
        n, p = nd.id, nd.pattern
        if nd.rule not in self.not_rules:
            self.not_rules.append(nd.rule)
        a, b, c = nd.children
        V = self.tup(nd.names, vs)
        self.emit(f"gap({n},{V},S,E2,S3,E) :- h({a.id},{self.tup(a.names, vs)},S,E2), "
                  f"h({b.id},{self.tup(b.names, vs)},S3,E), E2<S3.")
        local = pattern_vars(p.negated) - set(nd.names)
        # "for every mu": some value of a local variable never occurs (A6)
        never = bool(local) and self.o.not_local_vars == "free"
        C = f"h({c.id},{self.tup(c.names, vs)},S1,E1)"
        if self.o.not_reading == "per_witness":
            self.emit(f"notw({n}).")
            if not never:
                self.emit(f"blk({n},{V},E2,S3) :- gap({n},{V},_,E2,S3,_), {C}, E2<S1, E1<S3.")
        else:
            self.emit(f"notl({n}).")
            if not never:
                self.emit(f"blkl({n},{V},S,E) :- gap({n},{V},S,E2,S3,E), {C}, E2<S1, E1<S3.")


def compile_program(program: A.Program, options: Options = Options()) -> Compiled:
    """The query-specific ASP part of ``program`` (see the module docstring).

    Raises:
        UnsupportedError: a construct the oracle does not encode.
    """
    return _Compiler(program, options).compile()


def stream_facts(events: Iterable[StreamEvent]) -> str:
    """``occ(e("name",args..),Start,End).`` for every stream event (set semantics, docs/semantics/etalis.md#etalis-2.2)."""
    vs = ClingoVars()
    out = []
    for ev in events:
        if any(True for a in ev.atom.args for _ in A.term_vars(a)):
            raise UnsupportedError(f"oracle: stream event {ev.atom} is not ground")
        out.append(f"occ({atom(ev.atom.name, ev.atom.args, vs)},{int(ev.start)},{int(ev.end)}).")
    return "\n".join(out) + ("\n" if out else "")


# ------------------------------------------------------------------------------------------------ oracle
def oracle(program: A.Program, events: Sequence[StreamEvent], options: Options = Options(),
           limits: Limits = Limits(), *, include_input: bool = False) -> OracleResult | Undecided:
    """The unique minimal model of ``program`` under ``events`` (docs/semantics/etalis.md#etalis-2.4), as ETALIS results.

    With ``options.policy`` other than ``"unrestricted"`` the answer is that of the step-indexed specification
    of the consumption policy (:func:`ceplab.asp.etalis_policy.oracle`, ETALIS-P in :mod:`ceplab.semantics.etalis.policies`).

    Args:
        program: a parsed (and checked) :class:`ceplab.semantics.etalis.ast.Program`.
        events: stream events (:func:`ceplab.semantics.etalis.streams.read_events`).
        options: semantic switches (docs/semantics/etalis.md#etalis-8).
        limits: time and ground-size limits; exceeding them gives :class:`Undecided`.
        include_input: also return stream events of non-derived predicates.

    Returns:
        ``OracleResult(frozenset of (atom_text, start, end), stats)`` or :class:`Undecided`.

    Raises:
        UnsupportedError: the program or stream uses a construct the oracle cannot encode.
        ModelError: the program has no answer set or several (the rules with negation are named).
    """
    if options.policy != "unrestricted":
        return etalis_policy.oracle(program, events, options, limits, include_input=include_input)
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
            a = decode_atom(x.arguments[0])
            if include_input or a.key in derived:
                res.add((str(a), x.arguments[1].number, x.arguments[2].number))
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
            f"oracle: the ETALIS program has {what}, but the semantics has exactly one minimal model (Theorem 2.1, "
            f"docs/semantics/etalis.md#etalis-2.4, #etalis-A2): the negation is not stratified by time"
            + (f" in rule(s) {where}" if where else "")
            + (" (during_result='contained' breaks the hull property the stratification relies on)"
               if options.during_result == "contained" else ""),
            count, names)
    return out
