"""ETALIS reference oracle: rule base + event stream -> the unique minimal model (docs/semantics/etalis.md#etalis-2.4, #etalis-9.1 to #etalis-9.3).

The fixed, commented part of the encoding is ``asp/etalis.lp``; this module emits the query-specific part
(on the nodes of the shared front end :mod:`ceplab.semantics.etalis.binarize`, with the clingo term
representation of :mod:`ceplab.asp.etalis_terms`; source: Anicic et al. 2012, Semantic Web 3(4)):

* static facts and static Horn rules as ``sa/1`` rules (docs/semantics/etalis.md#etalis-1.2, #etalis-9.1);
* one rule block per pattern node (one node per sub-pattern, mirroring binarization, docs/semantics/etalis.md#etalis-9.2), the rows of
  Figure 2 (docs/semantics/etalis.md#etalis-2.5) in hull + relation form (docs/semantics/etalis.md#etalis-2.6), with the switches of
  :class:`ceplab.semantics.etalis.options.Options` (docs/semantics/etalis.md#etalis-8);
* one ``ev/3`` rule per event rule (``I_mu(pattern) ⊆ I_mu(atom)``, C2 with A1);
* under a window ``(p).q``, the bound ``q`` pushed down into the joins below it: bucketed joins of the pairs
  whose hull fits in ``q`` instead of all pairs filtered afterwards (docs/semantics/etalis.md#etalis-9.7);
* one ``out/3`` rule per derived predicate (the results);
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
from ceplab.asp.etalis_terms import TieResult, tie_groups  # noqa: F401 - part of this module's interface
from ceplab.asp.etalis_terms import AVERAGE, ClingoVars, atom, clingo_int, comment, decode_atom, dnf, tuple_text
from ceplab.asp.oracle import Limits, OracleResult, Solver, Undecided, asp_string, isolated
from ceplab.semantics.errors import ModelError, UnsupportedError
from ceplab.semantics.etalis import ast as A
from ceplab.semantics.etalis.analysis import check_termination_under, pattern_vars
from ceplab.semantics.etalis.binarize import Node, binarize, check_aggregates
from ceplab.semantics.etalis.options import AGGREGATE_SENTINELS, Options
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
    def __init__(self, prog: A.Program, options: Options, pushdown: bool = True) -> None:
        self.prog = prog
        self.o = options
        self.pushdown = pushdown
        self.lines: list[str] = []
        self.node_rule: dict[int, int] = {}
        self.not_rules: list[int] = []
        self.buckets: set[int] = set()

    def emit(self, s: str) -> None:
        self.lines.append(s)

    def compile(self) -> Compiled:
        check_termination_under(self.prog, self.o)   # A14 under the relation switches (A24-A26, A5)
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
            self.node(root, vs, None)
            head = atom(r.head.name, r.head.args, vs)
            self.emit(f"% rule {i}: {comment(str(r))}")
            self.emit(f"ev({head},S,E) :- h({root.id},{self.tup(root.names, vs)},S,E).")
        # the results: instances of the derived predicates (C1 and C2, docs/semantics/etalis.md#etalis-2.3)
        for name, arity in sorted(self.prog.derived_predicates()):
            a = "e(" + ",".join([asp_string(name)] + [f"X{i}" for i in range(arity)]) + ")"
            self.emit(f"out({a},S,E) :- ev({a},S,E).")
        return Compiled("\n".join(self.lines) + "\n", dict(self.node_rule), tuple(self.not_rules))

    def node(self, nd: Node, vs: ClingoVars, q: int | None) -> None:
        """Emit the rule block of node ``nd`` and of the nodes under it (docs/semantics/etalis.md#etalis-9.2).

        ``q`` is the window bound pushed down to ``nd`` (docs/semantics/etalis.md#etalis-9.7): the tightest window
        ``(p).w`` above ``nd`` in its rule such that every instance of ``nd`` that takes part in a result of the
        window lies inside that result's interval, or None (no window above, or push-down off)."""
        n, p = nd.id, nd.pattern
        self.node_rule[n] = nd.rule
        o = self.o
        if isinstance(p, A.Window):
            clingo_int(int(p.length), "the window length")
        if isinstance(p, A.Window) and self.pushdown:
            q = int(p.length) if q is None else min(q, int(p.length))
        for i, c in enumerate(nd.children):
            # hull property (docs/semantics/etalis.md#etalis-2.6): a result contains the intervals it is built from,
            # and a blocking instance of not(p1).[p2,p3] lies inside the gap; the one exception is the container
            # p2 of "p1 during p2" when the result is the contained p1 (during_result=contained, A5)
            contained = isinstance(p, A.Binary) and p.op == "during" and o.during_result == "contained" and i == 1
            self.node(c, vs, None if contained else q)
        V = self.tup(nd.names, vs)
        win = q is not None
        if isinstance(p, A.EventAtom):
            # under a window q, an instance longer than q can take part in no result (push-down, 9.7)
            self.emit(f"h({n},{V},S,E) :- ev({atom(p.name, p.args, vs)},S,E){f', E-S<={q}' if win else ''}.")
        elif isinstance(p, A.TimePoint):
            self.emit(f"h({n},(),{int(p.value)},{int(p.value)}).")
        elif isinstance(p, A.Window):
            (c,) = nd.children
            rel = "<=" if o.window == "at_most" else "="
            self.emit(f"h({n},{V},S,E) :- h({c.id},{self.tup(c.names, vs)},S,E), E-S{rel}{int(p.length)}.")
        elif isinstance(p, A.Where):
            (c,) = nd.children
            for alt in dnf(p.cond, vs, fractions=self.prog.has_average):
                self.emit(f"h({n},{V},S,E) :- h({c.id},{self.tup(c.names, vs)},S,E), {', '.join(alt)}.")
        elif isinstance(p, A.Binary):
            lc, rc = nd.children
            L = f"h({lc.id},{self.tup(lc.names, vs)},S1,E1)"
            R = f"h({rc.id},{self.tup(rc.names, vs)},S2,E2)"
            proper = ", S1<E1, S2<E2" if o.proper_intervals_only else ""
            hull = "S=(S1+S2-|S1-S2|)/2, E=(E1+E2+|E1-E2|)/2"  # <min(S1,S2), max(E1,E2)> (docs/semantics/etalis.md#etalis-2.6)
            op = p.op
            fit = ""
            if win and op in ("seq", "and", "par", "during") and not (op == "during" and o.during_result == "contained"):
                # window push-down (docs/semantics/etalis.md#etalis-9.7): a pair whose hull is longer than q takes
                # part in no result of the window above, and both operands of a pair whose hull fits start within q
                # of each other, so in the same or a neighbouring bucket of width q+1: join on near/2 buckets
                # instead of all pairs (same rows of Figure 2, relation and hull unchanged)
                L = self.bucketed(lc, vs, q, "B1", "S1", "E1")
                R = f"near(B1,B2), {self.bucketed(rc, vs, q, 'B2', 'S2', 'E2')}"
            any_start = op == "finishes" and o.finishes_start == "any"
            if win:
                fit = {"seq": ", E2-S1<={q}", "meets": ", E2-S1<={q}", "equals": ", E1-S1<={q}",
                       "starts": ", E2-S2<={q}", "finishes": ", E2-S2<={q}", "during": ", E2-S2<={q}",
                       "and": ", E-S<={q}", "par": ", E-S<={q}", "or": ""}[op].format(q=q)
                if op == "during" and o.during_result == "contained":
                    fit = f", E1-S1<={q}"
                if any_start:      # the result is the hull, which may start at S1 (A26)
                    fit = f", E-S<={q}"
            if op == "seq":        # e1 < s2 (before)
                self.emit(f"h({n},{V},S1,E2) :- {L}, {R}, E1<S2{fit}.")
            elif op == "and":      # any relation
                self.emit(f"h({n},{V},S,E) :- {L}, {R}, {hull}{fit}.")
            elif op == "par" and o.par_overlap == "positive":   # max(s1,s2) < min(e1,e2): positive overlap
                self.emit(f"h({n},{V},S,E) :- {L}, {R}, S1<E2, S2<E1, S1<E1, S2<E2, {hull}{fit}.")
            elif op == "par":      # starts_before_end (A23): the operand ending later starts before the other ends
                self.emit(f"h({n},{V},S,E) :- {L}, {R}, E1<=E2, S2<E1, {hull}{fit}.")
                self.emit(f"h({n},{V},S,E) :- {L}, {R}, E2<=E1, S1<E2, {hull}{fit}.")
            elif op == "or":       # union; range restricted (A6)
                self.emit(f"h({n},{V},S1,E1) :- {L}.")
                self.emit(f"h({n},{V},S2,E2) :- {R}.")
            elif op == "equals":
                self.emit(f"h({n},{V},S1,E1) :- {L}, {R}, S1=S2, E1=E2{proper}{fit}.")
            elif op == "meets":
                self.emit(f"h({n},{V},S1,E2) :- {L}, {R}, E1=S2{proper}{fit}.")
            elif op == "during":   # s2 < s1 < e1 < e2 (inclusive, A25: s2 <= s1, e1 <= e2); result: A5
                res = "S2,E2" if o.during_result == "container" else "S1,E1"
                rel = "S2<S1, S1<E1, E1<E2" if o.during_bounds == "strict" else f"S2<=S1, E1<=E2{proper}"
                self.emit(f"h({n},{V},{res}) :- {L}, {R}, {rel}{fit}.")
            elif op == "starts":   # s1 = s2, e1 < e2 (inclusive, A24: e1 <= e2); result = p2
                rel = "E1<E2" if o.starts_end == "strict" else "E1<=E2"
                self.emit(f"h({n},{V},S2,E2) :- {L}, {R}, S1=S2, {rel}{proper}{fit}.")
            elif op == "finishes" and not any_start:  # e1 = e2, s2 < s1; result = p2
                self.emit(f"h({n},{V},S2,E2) :- {L}, {R}, E1=E2, S2<S1{proper}{fit}.")
            elif op == "finishes":  # any start (A26): e1 = e2; result = the hull <min(s1,s2), e1>
                self.emit(f"h({n},{V},S,E) :- {L}, {R}, E1=E2, {hull}{proper}{fit}.")
            else:
                raise UnsupportedError(f"oracle: unknown operator {op}")
        elif isinstance(p, A.Not):
            self.not_node(nd, vs, q)
        elif isinstance(p, A.Aggregate):
            self.aggregate_node(nd, vs, q)
        else:
            raise TypeError(p)

    def tup(self, names: Sequence[str], vs: ClingoVars) -> str:
        return tuple_text([vs(x) for x in names])

    def bucketed(self, c: Node, vs: ClingoVars, q: int, b: str, s: str, e: str) -> str:
        """The body atom ``hb(c,V,B,S,E)``: an instance of child ``c`` with the bucket ``B = S/(q+1)`` of its
        start (emitting the ``hb`` rule of ``c`` once; each node has one parent, so one width)."""
        V = self.tup(c.names, vs)
        if c.id not in self.buckets:
            self.buckets.add(c.id)
            self.emit(f"hb({c.id},{V},B,S,E) :- h({c.id},{V},S,E), B=S/{q + 1}.")
        return f"hb({c.id},{V},{b},{s},{e})"

    def aggregate_node(self, nd: Node, vs: ClingoVars, q: int | None) -> None:
        """``start seq aggregate(F, item, R)`` (docs/semantics/etalis.md#etalis-4.4) with clingo's own aggregates:
        ``agg(N,VL,S1,E1,I,S2,E2,W)`` pairs a start instance with every later item instance ``I`` (value ``W``,
        joined on the shared variables), and each pair yields ``<S1,E2>`` with ``R`` = ``F`` over the items of that
        start ending before ``E2``, and ``I`` itself (the empty aggregate at the start; the template is in
        ``asp/etalis.lp``)."""
        n, p = nd.id, nd.pattern
        assert isinstance(p, A.Aggregate)
        lc, ic = nd.children
        VL = self.tup(lc.names, vs)
        I = self.tup(ic.names, vs)
        # the aggregated value: an integer (sum/min/max range over the items with an integer value; "X+0" is
        # undefined on anything else, which drops the pair); count counts every item instance (weight 1)
        if p.arg is None:
            W = "W=1"
        else:
            W = f"W={vs(p.arg.name)}+0"
        fit = f", E2-S1<={q}" if q is not None else ""
        self.emit(f"agg({n},{VL},S1,E1,{I},S2,E2,W) :- h({lc.id},{VL},S1,E1), h({ic.id},{I},S2,E2), E1<S2, {W}{fit}.")
        # the result tuple: the start's variables and R, in the node's (sorted) order
        out = [("R" if x == p.result.name else vs(x)) for x in nd.names]
        V = tuple_text(out)
        init = AGGREGATE_SENTINELS.get(p.func) if self.o.aggregate_initial == "sentinel" else None
        empty = {"count": 0, "sum": 0}.get(p.func, init)
        if empty is not None:      # the aggregation starts: the empty aggregate on the start's interval
            self.emit(f"h({n},{V},S1,E1) :- h({lc.id},{VL},S1,E1), R={empty}.")
        fn = {"count": "#count", "sum": "#sum", "avg": "#sum", "min": "#min", "max": "#max"}[p.func]
        elem = "AW,AI,AS,AE" if p.func != "count" else "AI,AS,AE"
        me = "W,I,S2,E2" if p.func != "count" else "I,S2,E2"
        if p.func == "avg":     # avg = #sum / #count of the same elements, in lowest terms (AVERAGE in etalis_terms)
            elem, me, fn = "AI,AS,AE", "I,S2,E2", "#count"
        extra = f"; {init},init" if init is not None and p.func in ("min", "max") else ""
        if p.count_window is None:
            inside = f"agg({n},{VL},S1,E1,AI,AS,AE,AW), AE<E2"
        else:
            # the count window (the last N items, j included): an earlier item is inside the window of the items
            # ending at E2 iff fewer than N-1 items of the start end strictly between it and E2
            inside = f"aggin({n},{VL},S1,E1,AI,AS,AE,AW,E2)"
            self.emit(f"{inside} :- agg({n},{VL},S1,E1,_,_,E2,_), agg({n},{VL},S1,E1,AI,AS,AE,AW), AE<E2, "
                      f"#count{{ BI,BS,BE : agg({n},{VL},S1,E1,BI,BS,BE,_), AE<BE, BE<E2 }} < {p.count_window - 1}.")
        if p.func != "avg":
            self.emit(f"h({n},{V},S1,E2) :- agg({n},{VL},S1,E1,I,S2,E2,W), "
                      f"R={fn}{{ {elem} : {inside} ; {me}{extra} }}.")
            return
        for alt in AVERAGE:
            self.emit(f"h({n},{V},S1,E2) :- agg({n},{VL},S1,E1,I,S2,E2,W), "
                      f"AVS=#sum{{ AW,AI,AS,AE : {inside} ; W,I,S2,E2 }}, "
                      f"AVC=#count{{ AI,AS,AE : {inside} ; I,S2,E2 }}, {alt.format(R='R')}.")

    def not_node(self, nd: Node, vs: ClingoVars, q: int | None) -> None:
        n, p = nd.id, nd.pattern
        if nd.rule not in self.not_rules:
            self.not_rules.append(nd.rule)
        a, b, c = nd.children
        V = self.tup(nd.names, vs)
        A2 = f"h({a.id},{self.tup(a.names, vs)},S,E2)"
        A3 = f"h({b.id},{self.tup(b.names, vs)},S3,E)"
        C = f"h({c.id},{self.tup(c.names, vs)},S1,E1)"
        fit = ""
        gap = f"gap({n},{V},S,E2,S3,E)"
        if q is not None:
            # window push-down (docs/semantics/etalis.md#etalis-9.7): the result is the hull <S,E> of the delimiters,
            # so only gaps with E-S <= q matter, and p3 (start S3 in (S, S+q]) lies in the bucket of S or the
            # next one; a blocking p1 lies strictly inside the gap, so its start is there too
            A2 = self.bucketed(a, vs, q, "B", "S", "E2")
            A3 = f"near(B,B3), {self.bucketed(b, vs, q, 'B3', 'S3', 'E')}"
            C = f"near(B,B1), {self.bucketed(c, vs, q, 'B1', 'S1', 'E1')}"
            fit = f", E-S<={q}"
            gap = f"gapb({n},{V},B,S,E2,S3,E)"
            self.emit(f"{gap} :- {A2}, {A3}, E2<S3{fit}.")
            self.emit(f"gap({n},{V},S,E2,S3,E) :- {gap}.")
        else:
            self.emit(f"gap({n},{V},S,E2,S3,E) :- {A2}, {A3}, E2<S3.")
        local = pattern_vars(p.negated) - set(nd.names)
        # "for every mu": some value of a local variable never occurs (A6)
        never = bool(local) and self.o.not_local_vars == "free"
        if self.o.not_reading == "per_witness":
            self.emit(f"notw({n}).")
            if not never:
                self.emit(f"blk({n},{V},E2,S3) :- {gap}, {C}, E2<S1, E1<S3.")
        else:
            self.emit(f"notl({n}).")
            if not never:
                self.emit(f"blkl({n},{V},S,E) :- {gap}, {C}, E2<S1, E1<S3.")


def compile_program(program: A.Program, options: Options = Options(), *, _pushdown: bool = True) -> Compiled:
    """The query-specific ASP part of ``program`` (see the module docstring).

    ``_pushdown=False`` (internal, for the tests that compare the two) leaves the windows as filters on the
    window node only, without pushing their bound down into the joins below (docs/semantics/etalis.md#etalis-9.7).

    Raises:
        UnsupportedError: a construct the oracle does not encode.
    """
    check_aggregates(program, options)
    return _Compiler(program, options, _pushdown).compile()


def stream_facts(events: Iterable[StreamEvent]) -> str:
    """``occ(e("name",args..),Start,End).`` for every stream event (set semantics, docs/semantics/etalis.md#etalis-2.2)."""
    vs = ClingoVars()
    return "".join(f"{_occ(ev, vs)}.\n" for ev in events)


# ------------------------------------------------------------------------------------------------ oracle
def _results(symbols: Iterable[clingo.Symbol]) -> set[Result]:
    """``(atom_text, start, end)`` of every shown ``out(A,S,E)`` (the results, ``asp/etalis.lp``).  Each symbol
    is read through its text (one call into clingo instead of one per argument; S and E are integers, so the last
    two commas split them off), and each distinct atom is decoded once (most results share a handful of atoms)."""
    out: set[Result] = set()
    atoms: dict[str, str] = {}
    for x in symbols:
        t = str(x)
        if not t.startswith("out("):
            continue
        a, s, e = t[4:-1].rsplit(",", 2)
        text = atoms.get(a)
        if text is None:
            text = atoms[a] = str(decode_atom(clingo.parse_term(a)))
        out.add((text, int(s), int(e)))
    return out


def _occ(ev: StreamEvent, vs: ClingoVars) -> str:
    if any(True for a in ev.atom.args for _ in A.term_vars(a)):
        raise UnsupportedError(f"oracle: stream event {ev.atom} is not ground")
    return (f"occ({atom(ev.atom.name, ev.atom.args, vs)},"
            f"{clingo_int(int(ev.start), f'stream event {ev.atom}: the time stamp')},"
            f"{clingo_int(int(ev.end), f'stream event {ev.atom}: the time stamp')})")


def oracle(program: A.Program, events: Sequence[StreamEvent], options: Options = Options(),
           limits: Limits = Limits(), *, include_input: bool = False, tie_positions: bool = False,
           _pushdown: bool = True) -> OracleResult | Undecided:
    """The unique minimal model of ``program`` under ``events`` (docs/semantics/etalis.md#etalis-2.4), as ETALIS results.

    With ``options.policy`` other than ``"unrestricted"`` the answer is that of the step-indexed specification
    of the consumption policy (:func:`ceplab.asp.etalis_policy.oracle`, ETALIS-P in :mod:`ceplab.semantics.etalis.policies`).

    Args:
        program: a parsed (and checked) :class:`ceplab.semantics.etalis.ast.Program`.
        events: stream events (:func:`ceplab.semantics.etalis.streams.read_events`).
        options: semantic switches (docs/semantics/etalis.md#etalis-8).
        limits: time and ground-size limits; exceeding them gives :class:`Undecided`.
        include_input: also return stream events of non-derived predicates.
        tie_positions: also compute where each result ending in a tie group is determined (a
            :class:`TieResult`; docs/semantics/etalis.md#etalis-9.7.3): the events of the tie groups become
            clingo externals, the one grounding is solved for the whole stream and then once per prefix that
            ends inside a tie group with results.
        _pushdown: internal, for the tests only: ``False`` compiles without the window push-down
            (:func:`compile_program`).

    Returns:
        ``OracleResult(frozenset of (atom_text, start, end), stats)`` (a :class:`TieResult` with
        ``tie_positions``) or :class:`Undecided`.

    Raises:
        UnsupportedError: the program or stream uses a construct the oracle cannot encode.
        ModelError: the program has no answer set or several (the rules with negation are named).
    """
    check_aggregates(program, options)
    if options.policy != "unrestricted":
        return etalis_policy.oracle(program, events, options, limits, include_input=include_input,
                                    tie_positions=tie_positions)
    comp = compile_program(program, options, _pushdown=_pushdown)
    groups = tie_groups(events) if tie_positions else []
    vs = ClingoVars()
    occs = [_occ(ev, vs) for ev in events]
    # an event of a tie group is an external atom, true in a prefix iff its first occurrence is in it
    first: dict[str, int] = {}
    for lo, hi in groups:
        for i in range(lo, hi):
            first.setdefault(occs[i], i)
    facts = "".join(f"{o}.\n" for o in occs if o not in first)
    facts += "".join(f"#external {o}.\n" for o in first)
    text = _fixed_program() + "\n" + comp.text

    def prefix(s: Solver, i: int | None) -> None:
        # the externals of the prefix events[:i+1] (all: None) true, the others false; the later events that
        # are facts cannot change a result ending at events[i].end (footnote 11, docs/semantics/etalis.md#etalis-2.4)
        for o, j in first.items():
            s.ctl.assign_external(clingo.parse_term(o), i is None or j <= i)

    def job():
        s = Solver(["2"], limits)
        s.add(text)
        if include_input:
            s.add("out(A,S,E) :- ev(A,S,E).")
        if facts:
            s.add(facts)
        s.ground()
        prefix(s, None)
        models = s.solve()
        if len(models) != 1:
            blocks = [frozenset(str(x) for x in m.symbols if x.name in ("blk", "blkl")) for m in models]
            diff = (blocks[0] ^ blocks[1]) if len(blocks) >= 2 else frozenset()
            nodes = set()
            for b in diff:
                nodes.add(int(clingo.parse_term(b).arguments[0].number))
            return ("bad", len(models), sorted(nodes), s.stats)
        results = frozenset(_results(models[0].symbols))
        if not tie_positions:
            return OracleResult(results, s.stats)
        placed: dict = {}
        for lo, hi in groups:
            t = int(events[lo].end)
            todo = {r for r in results if r[2] == t}
            for i in range(lo, hi - 1):
                if not todo:
                    break
                prefix(s, i)
                ms = s.solve()
                if len(ms) != 1:   # undecided for this group: left to the caller
                    todo = set()
                    break
                got = todo & _results(ms[0].symbols)
                placed.update((r, i) for r in got)
                todo -= got
            placed.update((r, hi - 1) for r in todo)
        return TieResult(results, s.stats, placed)

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
