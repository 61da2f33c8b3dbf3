"""ETALIS consumption policies: the step-indexed ASP specification (ETALIS-P; docs/semantics/etalis.md#etalis-3.12, #etalis-A10 to #etalis-A12, #etalis-9.6).

The normative definition is ETALIS-P, the module docstring of :mod:`ceplab.semantics.etalis.policies` (cited as P1..P9
for its numbered sections).  This module and ``asp/etalis_policy.lp`` are one of its two independent
implementations (the other is the incremental engine ``engine/etalis/policy.py``); they are compared by
differential tests.  The encoding is an interpreter of the ETALIS-P transition system, step by step, as docs/semantics/etalis.md
(9.6) proposes: every arrival and every produced instance is processed at its own step ``k``, which is also the
stamp of anything the step stores; goal availability (the stores), the stack and the input position are fluents
indexed by ``k``.  It is *not* a declarative semantics (the paper: policies other than unrestricted lose it).

Split of the work:

* ``asp/etalis_policy.lp`` (fixed, commented): input order (P3), the stack discipline (P4), event dispatch and its
  deduplication (P5), activations: pushed window, deduplication (P6 a, b), candidate selection by policy and
  consumption (P7), insertion with ``interval_policy`` (P8), the frame axioms of stores and stack.
* this module (query-specific): node numbering (P1: the pre-order nodes of the shared front end
  :func:`ceplab.semantics.etalis.binarize.binarize`), one rule
  block per node (leaf unification, windows, where-alternatives, or-projection, the join candidates with the
  relations of Figure 2 in hull + relation form, the pushed window on the result, the NOT blocking check, the
  aggregate records and their updates (P7b), the rule heads), the stream facts, and the driver: ``#program base`` is grounded once, then for ``k = 0, 1, ...``
  until ``halt(k)`` is a fact two shots per step: ``#program pop(k)`` (which item the step processes, and the node
  ``owner(k,N)`` it concerns), then ``#program step(k)`` with the generated rules of that node only (gringo's
  cost per ground call grows with the rules it instantiates, docs/semantics/etalis.md#etalis-9.7).  Every shot is
  stratified (the fluents alternate between two predicate names by the parity of ``k``, see the .lp header), so
  gringo evaluates it to facts; the driver checks this and never searches.

Terms are those of :mod:`ceplab.asp.etalis_terms`, shared with ``asp/etalis.py`` (integers, strings via
:func:`ceplab.asp.oracle.asp_string`, ``q(..)``, ``c(..)``,
``l(..)``, ``e("name",..)``); where-conditions use its NNF/DNF compilation, static rules become ``sa/1`` rules.
Times are integer ticks.

Public API: :func:`oracle` (results, like :func:`ceplab.asp.etalis.oracle`) and :func:`trace` (the step-by-step run, for
debugging).
"""
from __future__ import annotations

import bisect
import re
import time
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Sequence

import clingo

from ceplab.asp.etalis_terms import AVERAGE, TieResult, ClingoVars, atom, clingo_int, comment, decode_atom, dnf, tie_groups, tuple_text
from ceplab.asp.oracle import Limits, LimitExceeded, OracleResult, Stats, Undecided, isolated
from ceplab.semantics.errors import OracleError, UnsupportedError
from ceplab.semantics.etalis import ast as A
from ceplab.semantics.etalis.analysis import check_termination_under, pattern_vars
from ceplab.semantics.etalis.binarize import Node, binarize, check_aggregates, walk as _walk
from ceplab.semantics.etalis.options import AGGREGATE_SENTINELS, Options
from ceplab.semantics.etalis.policies import dispatch_order, interval_option
from ceplab.semantics.etalis.streams import StreamEvent

LP_FILE = Path(__file__).with_name("etalis_policy.lp")

_PART = re.compile(r"^#program (\w+)\(k\)\.[ \t]*$", re.M)
_CUR = "\x00"  # placeholder for the store fluent in generated rules (asp_string never emits a raw NUL)


@lru_cache(maxsize=16)
def _fixed_parts(policy: str, ipol_on: bool, replace: bool = False) -> tuple[str, tuple[str, str], tuple[str, str]]:
    """(base part, pop part for even and odd k, step part for even and odd k) of the fixed program for ``policy``.

    The pop part is ``#program pop(k)``; the step part is ``#program step(k)`` (common to all policies),
    ``step_<policy>(k)`` and, when
    ``ipol_on`` (``interval_policy != "off"``), ``step_ipol(k)``, and with ``replace`` (``goal_replacement=
    "same_values"``, A27) ``step_replace(k)``; the other parts of the .lp file hold rules
    whose guard is false under ``policy``, so leaving them out changes nothing (docs/semantics/etalis.md#etalis-9.7).
    The fluent predicates are written ``cur_X`` (read at ``k``) and ``new_X`` (written at ``k+1``); even steps
    read ``f0_X`` and write ``f1_X``, odd steps the other way round (the .lp file has no user text, so the
    renaming is safe)."""
    text = LP_FILE.read_text(encoding="utf-8")
    pieces = _PART.split(text)
    base, parts = pieces[0], dict(zip(pieces[1::2], pieces[2::2]))
    want = ["step", f"step_{policy}"] + (["step_ipol"] if ipol_on else []) + (["step_replace"] if replace else [])
    step = "\n".join(parts[w] for w in want)
    return (_rename(base, 0), (_rename(parts["pop"], 0), _rename(parts["pop"], 1)),
            (_rename(step, 0), _rename(step, 1)))


def _rename(text: str, parity: int) -> str:
    cur, new = ("f0_", "f1_") if parity == 0 else ("f1_", "f0_")
    text = re.sub(r"\bcur_", cur, text)
    return re.sub(r"\bnew_", new, text)


# ------------------------------------------------------------------------------------------------ compilation
class _Named:
    """The rule's variable map, but every ``_`` becomes a fresh named variable ``W0, W1, ..``.

    Only for positive body literals (a leaf's event pattern), where the two mean the same.  gringo implements
    ``_`` by projecting the literal's predicate onto its other arguments, and in a multi-shot run that costs a pass
    over the predicate's atoms of all earlier steps at every step (docs/semantics/etalis.md#etalis-9.7)."""

    def __init__(self, vs: ClingoVars) -> None:
        self.vs = vs
        self.n = 0

    def __call__(self, name: str) -> str:
        if name != "_":
            return self.vs(name)
        self.n += 1
        return f"W{self.n - 1}"


_REL = {  # op -> (relation literals on l=(S1,E1), r=(S2,E2), result start, result end); hull = min/max
    "seq": (["E1<S2"], "S1", "E2"),
    "and": ([], "HULL", "HULL"),
    "par": (["S1<E2", "S2<E1", "S1<E1", "S2<E2"], "HULL", "HULL"),
    "equals": (["S1=S2", "E1=E2"], "S1", "E1"),
    "meets": (["E1=S2"], "S1", "E2"),
    "during": (["S2<S1", "S1<E1", "E1<E2"], "S2", "E2"),
    "starts": (["S1=S2", "E1<E2"], "S2", "E2"),
    "finishes": (["E1=E2", "S2<S1"], "S2", "E2"),
}
_PROPER = ("equals", "meets", "starts", "finishes")  # proper_intervals_only adds S1<E1, S2<E2 (A9)


def _relation(op: str, o: Options) -> list[tuple[list[str], str, str]]:
    """The alternatives of :data:`_REL` for ``op`` under the relation switches of ``o`` (one body per alternative):
    ``par_overlap="starts_before_end"`` (A23) is two alternatives, ``starts_end``, ``during_bounds`` (with
    ``proper_intervals_only``, then also for ``during``) and ``finishes_start`` (hull result) relax one test
    (docs/semantics/etalis.md#etalis-A23 to #etalis-A26)."""
    rels, rs, re_ = _REL[op]
    proper = ["S1<E1", "S2<E2"] if o.proper_intervals_only else []
    if op == "par" and o.par_overlap == "starts_before_end":
        return [(["E1<=E2", "S2<E1"], rs, re_), (["E2<=E1", "S1<E2"], rs, re_)]
    if op == "during" and o.during_bounds == "inclusive":
        return [(["S2<=S1", "E1<=E2"] + proper, rs, re_)]
    if op == "starts" and o.starts_end == "inclusive":
        return [(["S1=S2", "E1<=E2"] + proper, rs, re_)]
    if op == "finishes" and o.finishes_start == "any":
        return [(["E1=E2"] + proper, "HULL", "HULL")]
    return [(list(rels) + (proper if op in _PROPER else []), rs, re_)]


@dataclass
class Compiled:
    """The query-specific ASP text.

    Attributes:
        base: facts and static rules (``#program base``).
        pop: the generated rules of ``pop(k)``: ``owner(k,N) :- newev(k,<pattern>,S,E).`` per leaf ``N``.
        step: node id -> the generated step rules of that node (those that fire when an activation of the node is
            live, and for a leaf those that dispatch an event to it); :data:`_CUR` stands for the store fluent
            the step reads.
        nodes: number of pattern nodes.
    """
    base: str
    pop: str
    step: dict[int, str]
    nodes: int


class _Compiler:
    """One rule block per node (P1, P6 c, P7, P8); nodes and ids from
    :func:`ceplab.semantics.etalis.binarize.binarize`."""

    def __init__(self, prog: A.Program, options: Options) -> None:
        self.prog = prog
        self.o = options
        self.base: list[str] = []
        self.step: dict[int, list[str]] = {}  # node id -> its rules; _CUR stands for the store fluent read
        self.pop: list[str] = []
        self.owner = -1                      # the node whose rules emit() appends to
        self.next_id = 0
        self.kind, self.ivar = interval_option(options.interval_policy)
        self.drank = dispatch_order(prog)   # ETALIS-P 5: leaf id -> rank in the for_each order

    def compile(self) -> Compiled:
        o = self.o
        check_termination_under(self.prog, o)   # A14 under the relation switches (A24-A26, A5)
        self.base.append(f"policy({o.policy}).")
        if self.kind != "off":
            self.base.append("ipol_on.")
            self.base.append(f"ipol({self.kind if self.kind in ('longest', 'shortest') else 'attr'}).")
        for s in self.prog.static_rules:
            vs = ClingoVars()
            head = f"sa({atom(s.head.name, s.head.args, vs)})"
            if s.body is None:
                self.base.append(f"{head}.")
            else:
                for alt in dnf(s.body, vs):
                    self.base.append(f"{head} :- {', '.join(alt)}.")
        roots = binarize(self.prog)
        self.next_id = sum(1 for r in roots for _ in _walk(r))
        for i, (r, root) in enumerate(zip(self.prog.event_rules, roots)):
            self.rule = r
            self.vs = ClingoVars()
            self.owner = root.id
            self.emit(f"% rule {i}: {comment(str(r))}")
            self.emit_node(root)
        step = {n: "\n".join(rules) + "\n" for n, rules in self.step.items()}
        return Compiled("\n".join(self.base) + "\n", "\n".join(self.pop) + "\n", step, self.next_id)

    def V(self, names: Sequence[str]) -> str:
        return tuple_text([self.vs(x) for x in names])

    def emit(self, s: str) -> None:
        self.step.setdefault(self.owner, []).append(s)

    def emit_node(self, n: Node) -> None:
        p, vs = n.pattern, self.vs
        self.owner = n.id
        if n.window is not None:
            self.base.append(f"qwin({n.id},{n.window}).")
        if isinstance(p, A.EventAtom):
            self.base.append(f"drank({n.id},{self.drank[n.id]}).")
            pattern = atom(p.name, p.args, _Named(vs))
            self.pop.append(f"owner(k,{n.id}) :- newev(k,{pattern},S,E).")
            self.emit(f"ch(k,act({n.id},{self.V(n.names)},S,E)) :- newev(k,{pattern},S,E).")
        elif isinstance(p, A.TimePoint):
            self.base.append(f"tpleaf({n.id},{int(p.value)}).")
        self.emit_up(n)
        for c in n.children:
            self.emit_node(c)
        self.owner = n.id

    def live(self, n: Node, s: str = "S", e: str = "E") -> str:
        return f"live(k,{n.id},{self.V(n.names)},{s},{e})"

    def emit_up(self, n: Node) -> None:
        """P6 c: what a live activation of ``n`` produces, by its parent."""
        p = n.parent
        if p is None:  # rule root: the head event
            h = self.rule.head
            self.emit(f"ch(k,ev({atom(h.name, h.args, self.vs)},S,E)) :- {self.live(n)}.")
            return
        pat = p.pattern
        Vp = self.V(p.names)
        if isinstance(pat, A.Window):
            rel = "<=" if self.o.window == "at_most" else "="
            self.emit(f"ch(k,act({p.id},{Vp},S,E)) :- {self.live(n)}, E-S{rel}{clingo_int(int(pat.length), 'the window length')}.")
        elif isinstance(pat, A.Where):
            for alt in dnf(pat.cond, self.vs, fractions=self.prog.has_average):
                self.emit(f"ch(k,act({p.id},{Vp},S,E)) :- {self.live(n)}, {', '.join(alt)}.")
        elif isinstance(pat, A.Binary) and pat.op == "or":
            self.emit(f"ch(k,act({p.id},{Vp},S,E)) :- {self.live(n)}.")
        elif isinstance(pat, A.Binary):
            self.join(n, p)
        elif isinstance(pat, A.Not):
            self.not_join(n, p)
        elif isinstance(pat, A.Aggregate):
            self.aggregate(n, p)
        else:
            raise TypeError(pat)

    def key(self, n: Node, other: set[str]) -> str:
        return self.V(sorted(set(n.names) & other))

    def insert(self, n: Node, key: str, always: bool, state: str | None = None) -> None:
        """P7/P8: the insertion request of a live activation of ``n`` (and max:VAR / min:VAR preference); with
        ``state`` (an aggregate's start child, P7b) the stored value is the record ``(V,state)``."""
        cond = "" if always or self.o.policy == "recent" else ", not hascand(k)"
        V = self.V(n.names)
        self.emit(f"insreq(k,{n.id},{key},{V if state is None else f'({V},{state})'},S,E) :- {self.live(n)}{cond}.")
        if self.kind in ("max", "min") and self.ivar in n.names:
            vx = tuple_text([f"X_{i}" for i in range(len(n.names))])
            vy = tuple_text([f"Y_{i}" for i in range(len(n.names))])
            if state is not None:                     # a record: the preference reads the start's values
                vx, vy = f"({vx},XS)", f"({vy},YS)"
            i = n.names.index(self.ivar)
            cmp = ">" if self.kind == "max" else "<"
            self.emit(f"prefer(k) :- samets(k,T), {_CUR}(k,{n.id},T,K2,{vy},S2,E2), insreq(k,{n.id},K,{vx},S,E), "
                      f"Y_{i} {cmp} X_{i}.")

    def join(self, n: Node, p: Node) -> None:
        """P7 at a binary node ``p`` (not ``or``): candidates for ``n`` arriving, and its insertion."""
        op = p.pattern.op
        left, right = p.children
        o = right if n is left else left
        se_n, se_o = (("S1", "E1"), ("S2", "E2")) if n is left else (("S2", "E2"), ("S1", "E1"))
        for rels, rs, re_ in _relation(op, self.o):
            if op == "during" and self.o.during_result == "contained":
                rs, re_ = "S1", "E1"
            if rs == "HULL":
                rels += ["HS=(S1+S2-|S1-S2|)/2", "HE=(E1+E2+|E1-E2|)/2"]
            else:
                rels += [f"HS={rs}", f"HE={re_}"]
            if p.window is not None:
                rels.append(f"HE-HS<={p.window}")
            self.emit(f"cand(k,T,act({p.id},{self.V(p.names)},HS,HE)) :- {self.live(n, *se_n)}, "
                      f"{_CUR}(k,{o.id},T,K,{self.V(o.names)},{se_o[0]},{se_o[1]}), {', '.join(rels)}.")
        if not (op == "seq" and n is right):  # no later instance can complete the right of seq
            self.emit_insert_with_key(n, set(o.names))

    def emit_insert_with_key(self, n: Node, other: set[str], always: bool = False) -> None:
        self.insert(n, self.key(n, other), always)

    def not_join(self, n: Node, p: Node) -> None:
        """P7 ``not(p1).[p2,p3]`` per witness: p1 always inserted, p2 inserted, p3 joined (never stored)."""
        a, b, c = p.children
        if n is c:   # a blocker is appended: never replaced, never consumed, no interval policy
            self.emit(f"appreq(k,{n.id},{self.key(n, set(p.names))},{self.V(n.names)},S,E) :- {self.live(n)}.")
            return
        if n is a:
            self.emit_insert_with_key(n, set(b.names), always=True)
            return
        local = pattern_vars(p.pattern.negated) - set(p.names)
        never = bool(local) and self.o.not_local_vars == "free"
        V2 = self.V(a.names)
        st2 = f"{_CUR}(k,{a.id},T,K,{V2},Sy,Ey)"
        if not never:
            self.emit(f"blk(k,T) :- {self.live(n, 'Sx', 'Ex')}, {st2}, {_CUR}(k,{c.id},T1,K1,{self.V(c.names)},S1,E1), "
                      "Ey<S1, E1<Sx.")
        win = f", Ex-Sy<={p.window}" if p.window is not None else ""
        self.emit(f"cand(k,T,act({p.id},{self.V(p.names)},Sy,Ex)) :- {self.live(n, 'Sx', 'Ex')}, {st2}, Ey<Sx{win}, "
                  "not blk(k,T).")


    def aggregate(self, n: Node, p: Node) -> None:
        """P7b ``Start seq aggregate(F, Item, R[, N])``: a start is inserted as the record ``(V,St0)`` (rule 8) and
        yields the empty aggregate; an item yields one candidate per record it may update (``aggupd``: the
        record's key, its new value ``(V,St')``, its interval and the child), the policy selects one (P7), and the
        selected record is removed (``rm``) and re-inserted with stamp ``k`` (``updreq``, no rule 8 comparison).

        States: without a count window the running aggregate (an integer, or ``none`` for ``min``/``max`` of no
        item without the sentinel); with a count window ``N`` the tuple of ``N-1`` slots, oldest first, ``none``
        for an empty slot: an update drops the first slot and appends the item's value."""
        pat = p.pattern
        sc, ic = p.children
        if n is sc and self.o.goal_replacement != "keep":
            self.base.append(f"aggstart({sc.id}).")   # A27: aggregate records are never replaced
        func, last = pat.func, pat.count_window
        init = AGGREGATE_SENTINELS.get(func) if self.o.aggregate_initial == "sentinel" else None
        r0 = 0 if func in ("count", "sum") else init
        R = self.vs(pat.result.name)
        Vp = self.V(p.names)
        if n is sc:                                   # P7b a: a start
            if last is not None:
                st0 = tuple_text(["none"] * (last - 1))
            else:
                st0 = "none" if r0 is None else str(r0)
            self.insert(n, self.key(n, set(ic.names)), True, st0)
            if r0 is not None:
                self.emit(f"ch(k,act({p.id},{Vp},S,E)) :- {self.live(n)}, {R}={r0}.")
            return
        # P7b b: an item; W its value (an integer: "X+0" is undefined on anything else)
        value = "W=1" if pat.arg is None else f"W={self.vs(pat.arg.name)}+0"
        win = f", E-S1<={p.window}" if p.window is not None else ""
        avg = [a.format(R=R) for a in AVERAGE]       # R from AVS / AVC
        if last is None and func == "avg":            # the state: (sum, count), none before the first item
            st, new = "AST", "(AVS,AVC)"
            alts = ([f"AST=none, AVS=W, AVC=1, {a}" for a in avg]
                    + [f"AST=(APS,APC), AVS=APS+W, AVC=APC+1, {a}" for a in avg])
        elif last is None:
            st, new = "AS", R
            if func == "count":
                alts = [f"{R}=AS+1"]
            elif func == "sum":
                alts = [f"{R}=AS+W"]
            else:                                     # min/max of the state (none: of no item) and W
                sign = "-" if func == "min" else "+"
                alts = [f"AS=none, {R}=W", f"AS!=none, {R}=(AS+W{sign}|AS-W|)/2"]
        else:
            slots = [f"A{j}" for j in range(1, last)]
            st, new = tuple_text(slots), tuple_text((slots + ["W"])[1:])
            fn = "#sum" if func in ("count", "sum", "avg") else f"#{func}"
            elems = [f"A{j},{j} : A{j}!=none" for j in range(1, last)] + ["W,0"]
            if init is not None and func in ("min", "max"):
                elems.append(f"{init},init")
            if func == "avg":
                counted = [f"{j} : A{j}!=none" for j in range(1, last)] + ["0"]
                alts = [f"AVS={fn}{{ {' ; '.join(elems)} }}, AVC=#count{{ {' ; '.join(counted)} }}, {a}" for a in avg]
            else:
                alts = [f"{R}={fn}{{ {' ; '.join(elems)} }}"]
        rec = f"{_CUR}(k,{sc.id},T,K,({self.V(sc.names)},{st}),S1,E1)"
        upd = f"aggupd(k,T,K,({self.V(sc.names)},{new}),S1,E1,act({p.id},{Vp},S1,E))"
        for alt in alts:
            self.emit(f"{upd} :- {self.live(n)}, {value}, {rec}, E1<S{win}, {alt}.")
        self.emit("cand(k,T,X) :- aggupd(k,T,K,VS,S1,E1,X).")
        self.emit("rm(k,T) :- sel(k,T), aggupd(k,T,K,VS,S1,E1,X).")
        self.emit(f"updreq(k,{sc.id},K,VS,S1,E1) :- sel(k,T), aggupd(k,T,K,VS,S1,E1,X).")


def compile_policy(program: A.Program, options: Options) -> Compiled:
    """The query-specific ASP part of ``program`` under ``options.policy`` (see the module docstring).

    Raises:
        ValueError: ``options.policy`` is ``"unrestricted"`` (not defined by ETALIS-P: use :mod:`ceplab.asp.etalis`).
        UnsupportedError: a construct the encoding does not support (floats, ``/``, arithmetic inside event
            patterns, a negated part sharing a variable with the rule outside its delimiters, an aggregate with
            ``during_result="contained"``).
    """
    if options.policy == "unrestricted":
        raise ValueError("the unrestricted policy is the minimal model of asp/etalis.py, not ETALIS-P")
    check_aggregates(program, options)
    return _Compiler(program, options).compile()


def stream_facts(events: Sequence[StreamEvent]) -> str:
    """``occ(e("name",args..),Start,End,Pos).`` per stream event, ``Pos`` its 0-based index in ``events``.

    Raises:
        UnsupportedError: a non-ground event or a float argument.
        ValueError: the ends decrease (P3: the stream must be in arrival order).
    """
    vs = ClingoVars()
    out = []
    last = None
    for i, ev in enumerate(events):
        if any(True for a in ev.atom.args for _ in A.term_vars(a)):
            raise UnsupportedError(f"oracle: stream event {ev.atom} is not ground")
        if last is not None and ev.end < last:
            raise ValueError(f"stream event {i} ({ev}) ends before its predecessor: the policies need the "
                             "arrival order (non-decreasing ends, ETALIS-P 3)")
        last = ev.end
        out.append(f"occ({atom(ev.atom.name, ev.atom.args, vs)},"
                   f"{clingo_int(int(ev.start), f'stream event {ev.atom}: the time stamp')},"
                   f"{clingo_int(int(ev.end), f'stream event {ev.atom}: the time stamp')},{i}).")
    return "\n".join(out) + ("\n" if out else "")


# ------------------------------------------------------------------------------------------------ driver
@dataclass(frozen=True)
class Step:
    """One step of the transition system: ``k``, the popped item and its children (clingo text, in order)."""
    k: int
    item: str
    children: tuple[str, ...]


@dataclass(frozen=True)
class PolicyRun:
    """A complete run: ``results`` as in :func:`oracle`, the number of ``steps`` (P4), the ground ``atoms``,
    the per-step ``trace`` (only from :func:`trace`), clingo's statistics, and (when asked for) where the results
    ending in a tie group are determined (``ceplab.asp.etalis.TieResult``)."""
    results: frozenset
    steps: int
    atoms: int
    trace: tuple[Step, ...]
    stats: Stats
    tie_positions: dict = field(default_factory=dict)


def _default_max_steps(limits: Limits) -> int:
    # every step grounds at least 3 atoms (top/2, the next fluent, ...), so more steps than the ground-size
    # limit allows could never finish anyway
    return max(1, limits.max_ground_size // 3)


def _tie_positions(atoms: clingo.SymbolicAtoms, events: Sequence[StreamEvent], first: dict) -> dict:
    """For each result (``first``: result -> the step of its first dispatch) that ends at the end time of a tie
    group of ``events`` (several events ending at the same time): the index of the stream event whose processing
    dispatched it, clipped to the group.  The run on the prefix ``events[:i+1]`` is this run up to the end of
    input ``i`` (plus time points after it, which end later), so this is the first prefix that entails the result
    (docs/semantics/etalis.md#etalis-9.7.3)."""

    groups = {int(events[lo].end): (lo, hi) for lo, hi in tie_groups(events)}
    if not groups:
        return {}
    # input rank -> index of the stream event it is, or (a time point) of the first event after it (P3)
    tps = sorted((a.symbol.arguments[1].number, a.symbol.arguments[0].number)
                 for a in atoms.by_signature("tpleaf", 2))
    ends = [int(e.end) for e in events]
    keys = [((e, 1, i), i) for i, e in enumerate(ends)]
    keys += [((q, 0, n), sum(1 for e in ends if e < q)) for q, n in tps]
    item = [ix for _k, ix in sorted(keys)]
    pops = sorted((a.symbol.arguments[0].number, a.symbol.arguments[1].number) for a in atoms.by_signature("popin", 2))
    steps = [k for k, _r in pops]
    out = {}
    for r, k in first.items():
        g = groups.get(r[2])
        if g is None:
            continue
        j = bisect.bisect_right(steps, k) - 1
        ix = item[pops[j][1]] if j >= 0 else g[0]
        out[r] = min(max(ix, g[0]), g[1] - 1)
    return out


def _run(program: A.Program, events: Sequence[StreamEvent], options: Options, limits: Limits,
         include_input: bool, max_steps: int | None, want_trace: bool, want_ties: bool = False) -> PolicyRun:
    comp = compile_policy(program, options)
    facts = stream_facts(events)
    derived = program.derived_predicates()
    cap = _default_max_steps(limits) if max_steps is None else max_steps
    fbase, fpop, fstep = _fixed_parts(options.policy, interval_option(options.interval_policy)[0] != "off",
                                      options.goal_replacement != "keep")
    stats = Stats()
    deadline = time.monotonic() + limits.time_s
    messages: list[str] = []

    def log(code, msg):
        if len(messages) < 50:
            messages.append(msg)

    t0 = time.perf_counter()
    ctl = clingo.Control(["--warn=none"], logger=log, message_limit=100)
    try:
        ctl.add("base", [], fbase + "\n#program base.\n" + comp.base + facts)
        for par in (0, 1):
            ctl.add(f"pop{par}", ["k"], fpop[par] + "\n" + comp.pop)
            ctl.add(f"step{par}", ["k"], fstep[par])
            for n, rules in comp.step.items():
                ctl.add(f"n{n}_{par}", ["k"], rules.replace(_CUR, f"f{par}_store"))
    except RuntimeError as e:
        raise OracleError(f"oracle: clingo rejected the program: {e}; {' '.join(messages)}") from None
    ctl.ground([("base", [])])
    atoms = ctl.symbolic_atoms
    owned = sorted(comp.step)
    k = 0
    while True:
        if k >= cap:
            stats.ground_seconds = time.perf_counter() - t0
            raise LimitExceeded(f"step limit of {cap} steps exceeded", stats)
        par, kk = k % 2, clingo.Number(k)
        ctl.ground([(f"pop{par}", [kk])])
        if atoms[clingo.Function("halt", [kk])] is not None:
            break
        ctl.ground([(f"step{par}", [kk])] + [(f"n{n}_{par}", [kk]) for n in owned
                                              if atoms[clingo.Function("owner", [kk, clingo.Number(n)])] is not None])
        k += 1
        if k % 64 == 0:
            if time.monotonic() > deadline:
                stats.ground_seconds = time.perf_counter() - t0
                raise LimitExceeded(f"time limit of {limits.time_s:g} s exceeded (step {k})", stats)
            if len(ctl.symbolic_atoms) > limits.max_ground_size:
                stats.ground_seconds = time.perf_counter() - t0
                raise LimitExceeded(f"ground size limit {limits.max_ground_size} exceeded (step {k})", stats)
    stats.ground_seconds = time.perf_counter() - t0
    atoms = ctl.symbolic_atoms
    stats.atoms = len(atoms)
    open_atoms = [str(a.symbol) for a in atoms if not a.is_fact]
    if open_atoms:
        raise OracleError(f"oracle: step encoding not evaluated to facts (bug): {open_atoms[:5]}")
    bad = [str(a.symbol) for a in atoms.by_signature("bad", 2)]
    if bad:
        raise OracleError(f"oracle: ETALIS-P invariant violated (bug): {bad[:5]}")
    res = set()
    first: dict = {}
    for a in atoms.by_signature("disp", 4):
        kd, ev, s, e = a.symbol.arguments
        a_ = decode_atom(ev)
        if include_input or a_.key in derived:
            r = (str(a_), s.number, e.number)
            res.add(r)
            if want_ties and (r not in first or kd.number < first[r]):
                first[r] = kd.number
    ties = _tie_positions(atoms, events, first) if want_ties else {}
    steps = k + 1
    tr: tuple[Step, ...] = ()
    if want_trace:
        items = {a.symbol.arguments[0].number: str(a.symbol.arguments[1]) for a in atoms.by_signature("top", 2)}
        kids: dict[int, list[clingo.Symbol]] = {}
        for a in atoms.by_signature("ch", 2):
            kids.setdefault(a.symbol.arguments[0].number, []).append(a.symbol.arguments[1])
        tr = tuple(Step(j, items[j], tuple(str(x) for x in sorted(kids.get(j, []))))
                   for j in sorted(items))
    return PolicyRun(frozenset(res), steps, stats.atoms, tr, stats, ties)


def oracle(program: A.Program, events: Sequence[StreamEvent], options: Options, limits: Limits = Limits(), *,
           include_input: bool = False, max_steps: int | None = None, tie_positions: bool = False
           ) -> OracleResult | Undecided:
    """The results of ``program`` on ``events`` under the consumption policy ``options.policy`` (ETALIS-P).

    Args:
        program: a parsed (and checked) :class:`ceplab.semantics.etalis.ast.Program`.
        events: stream events in arrival order (non-decreasing ends; ties in sequence order, which is the
            ``position`` of ETALIS-P 3).  Times are integer ticks.
        options: ``policy`` (``"chronological" | "recent" | "recent_lifo"``), ``interval_policy``, ``window``,
            ``proper_intervals_only``, ``during_result``, ``not_local_vars``, ``aggregate_initial``, the relation
            switches ``par_overlap``, ``starts_end``, ``during_bounds``, ``finishes_start``; ``not_reading`` is per
            witness.
        limits: wall-clock time (whole call), ground size (atoms), memory; isolation in a forked worker.
        include_input: also return dispatched stream events of non-derived predicates.
        max_steps: step cap (P4 steps); default ``limits.max_ground_size // 3``.  More steps: Undecided.
        tie_positions: also return where each result ending in a tie group is determined (a
            ``ceplab.asp.etalis.TieResult``, docs/semantics/etalis.md#etalis-9.7.3), read off the same run.

    Returns:
        ``OracleResult(frozenset of (atom_text, start, end), stats)`` with ``atom_text`` as in
        :func:`ceplab.asp.etalis.oracle` (every dispatched event whose predicate heads an event rule), or
        :class:`Undecided` when the step cap, the time or the size limit is exceeded (never a partial result).

    Raises:
        ValueError: ``options.policy == "unrestricted"``, or the stream ends decrease.
        UnsupportedError: a construct the encoding does not support.
        OracleError: a bug (a shot not evaluated to facts, an "at most one" invariant of ETALIS-P violated).
    """
    compile_policy(program, options)  # raise compile errors in the caller's process
    stream_facts(events)

    def job() -> OracleResult:
        r = _run(program, events, options, limits, include_input, max_steps, False, tie_positions)
        r.stats.calls = 0
        if tie_positions:
            return TieResult(r.results, r.stats, r.tie_positions)
        return OracleResult(r.results, r.stats)

    return isolated(job, limits=limits)


def trace(program: A.Program, events: Sequence[StreamEvent], options: Options, limits: Limits = Limits(), *,
          include_input: bool = False, max_steps: int | None = None) -> PolicyRun | Undecided:
    """Like :func:`oracle`, but returns the whole run: results, number of steps, and per step the popped item
    and its children (``Step``), for debugging and for comparing runs step by step."""
    compile_policy(program, options)
    stream_facts(events)
    return isolated(_run, program, events, options, limits, include_input, max_steps, True, limits=limits)
