"""CEL reference oracle: AST -> clingo program -> complex events (docs/semantics/cel.md#cel-10).

The fixed, commented part of the encoding is ``asp/cel.lp``; this module emits the query-specific
part (AST facts, one rule block per FILTER with its predicate truth table) and the stream facts,
then drives clingo through :mod:`ceplab.asp.oracle`:

* ``ALL`` and ``STRICT``: projected enumeration of ``in/1`` (STRICT adds the interval constraint).
* ``NXT`` / ``LAST``: per candidate end position e, assume ``in(e)`` and ``not ingt(e)``
  (``max C = e``) and optimise lexicographically (one priority level per position; opt-mode
  ``opt``: the last model of the exhausted search is the optimum).
* ``MAX``: subset-maximal ``in/1`` sets by clingo's domain heuristic (``--heuristic=Domain
  --enum-mode=domRec``) with projection, per end position (``max_scope="same_end"``) or once over
  all of ``[[phi]](S)`` (``"global"``).
* ``WITHIN n`` is a constraint on ``in/1`` grounded before the strategy part, i.e.
  ``SEL(phi WITHIN n)``.
* Nested strategies (EXTENSION, docs/semantics/cel.md#cel-G5, ``Options.nested_strategies="compositional"``; rejected
  with a ``ParseError`` under the default ``"reject"``): staged. Every nested ``SEL(psi)`` is
  closed, so its denotation ``SEL([[psi]](S))`` (per end position) does not depend on the outer
  valuation; it is computed first by this same oracle on the stand-alone query ``SEL(psi)``
  (recursively, innermost first; MAX compares per end position), and its complex events are
  given to the outer program as facts ``blkce(V,K)``/``blk(V,K,P)``, of which each instance of
  the node picks one (``asp/cel.lp``).

:func:`strategy_filter` is the literal Python transcription of the strategies (paper section 4,
docs/semantics/cel.md#cel-3.2) used as the arbiter in tests.
"""
from __future__ import annotations

import time
from functools import lru_cache
from itertools import product
from pathlib import Path
from typing import Iterable

import clingo

from ceplab.asp.oracle import (Limits, LimitExceeded, OracleResult, Solver, Stats, Undecided, asp_string,
                        isolated)
from dataclasses import replace as _replace

from ceplab.semantics.cel.analysis import (WellFormednessError, check_nested_strategies, check_well_formed,
                                    vdef_plus)
from ceplab.semantics.cel.ast import (STRATEGIES, And, Atom, FalseF, Filter, Formula, Or, PAnd, Plus, Pred,
                               Query, Sel, Seq, nested_sels, pred_vars)
from ceplab.semantics.cel.options import Options
from ceplab.semantics.cel.predicates import holds
from ceplab.semantics.events import Stream

ComplexEvent = tuple[int, ...]

LP_FILE = Path(__file__).with_name("cel.lp")


@lru_cache(maxsize=1)
def _fixed_program() -> str:
    return LP_FILE.read_text(encoding="utf-8")


# ------------------------------------------------------------------ strategies, literally
def le_next(c1: ComplexEvent, c2: ComplexEvent) -> bool:
    """``C1 <=next C2`` iff ``C1 = C2`` or ``min(C1 Δ C2) ∈ C2`` (paper section 4, docs/semantics/cel.md#cel-3.2)."""
    d = set(c1) ^ set(c2)
    return not d or min(d) in c2


def le_last(c1: ComplexEvent, c2: ComplexEvent) -> bool:
    """``C1 <=last C2`` iff ``C1 = C2`` or ``max(C1 Δ C2) ∈ C2`` (paper section 4, docs/semantics/cel.md#cel-3.2)."""
    d = set(c1) ^ set(c2)
    return not d or max(d) in c2


def strategy_filter(strategy: str, ces: Iterable[ComplexEvent],
                    options: Options = Options()) -> frozenset[ComplexEvent]:
    """Apply a selection strategy to a set of complex events (the reference post-filter).

    A literal transcription of paper section 4 as reconstructed in docs/semantics/cel.md#cel-3.2, with the
    candidates grouped by their last position ``max C``:

    * ``ALL``: every C.
    * ``STRICT``: C is an interval (every i with min C <= i <= max C is in C).
    * ``NXT``: ``C' <=next C`` for every C' with ``max C' = max C``.
    * ``LAST``: ``C' <=last C`` for every C' with ``max C' = max C``.
    * ``MAX``: no C' with ``C ⊊ C'`` among the CEs with ``max C' = max C``
      (``options.max_scope == "same_end"``, docs/semantics/cel.md#cel-G4) or among all of them (``"global"``).

    Args:
        strategy: one of ``ALL``, ``STRICT``, ``NXT``, ``LAST``, ``MAX``.
        ces: complex events as sorted tuples of positions (``[[phi]](S)``, possibly windowed).
        options: CEL options (``max_scope``).

    Returns:
        The selected complex events.

    Raises:
        ValueError: unknown strategy.
    """
    ces = frozenset(ces)
    if strategy == "ALL":
        return ces
    groups: dict[int, list[ComplexEvent]] = {}
    for c in ces:
        groups.setdefault(c[-1], []).append(c)
    if strategy == "STRICT":
        return frozenset(c for c in ces if len(c) == c[-1] - c[0] + 1)
    if strategy == "NXT":
        return frozenset(c for g in groups.values() for c in g if all(le_next(d, c) for d in g))
    if strategy == "LAST":
        return frozenset(c for g in groups.values() for c in g if all(le_last(d, c) for d in g))
    if strategy == "MAX":
        if options.max_scope == "global":
            sets = [(c, frozenset(c)) for c in ces]
            return frozenset(c for c, s in sets if not any(s < t for _, t in sets))
        if options.max_scope != "same_end":
            raise ValueError(f"unknown max_scope {options.max_scope!r}")
        out = []
        for g in groups.values():
            sets = [(c, frozenset(c)) for c in g]
            out.extend(c for c, s in sets if not any(s < t for _, t in sets))
        return frozenset(out)
    raise ValueError(f"unknown strategy {strategy!r}")


# ------------------------------------------------------------------ compilation
def _conjuncts(p: Pred) -> list[Pred]:
    if isinstance(p, PAnd):
        return _conjuncts(p.left) + _conjuncts(p.right)
    return [p]


class _Compiler:
    """Emits the query-specific facts and filter rules for one (formula, stream) pair."""

    def __init__(self, formula: Formula, stream: Stream, within: int | None, need: bool,
                 limits: Limits, lo: int, hi: int,
                 blocks: dict[Sel, frozenset[ComplexEvent]] | None = None) -> None:
        self.stream = stream
        self.blocks = blocks or {}
        self.positions = list(range(lo, hi + 1))
        self.within = within if (within is not None and within >= 0) else None
        self.need = need
        self.limits = limits
        self.lines: list[str] = []
        self.next_id = 0
        self.var_ids: dict[str, int] = {}
        self.by_type: dict[str, list[int]] = {}
        for i in self.positions:
            self.by_type.setdefault(stream[i].type, []).append(i)
        # candidate positions of every variable (types of the atoms defining it), docs/semantics/cel.md#cel-G6 tables
        self.var_cand: dict[str, list[int]] = {}
        for g in _atoms(formula):
            s = set(self.var_cand.get(g.var, ())) | set(self.by_type.get(g.rel, ()))
            self.var_cand[g.var] = sorted(s)
        self.atom_scopes: dict[tuple[int, int | None], int] = {}
        self.table_size = 0

    def vid(self, x: str) -> int:
        return self.var_ids.setdefault(x, len(self.var_ids))

    def new_id(self) -> int:
        self.next_id += 1
        return self.next_id - 1

    @staticmethod
    def ctx(chain: list[tuple[int, Formula]]) -> str:
        t = "r"
        for pid, _ in chain:
            t = f"it({pid},K{pid},{t})"
        return t

    @staticmethod
    def scope(x: str, chain: list[tuple[int, Formula]]) -> str:
        """Scope term of x at a node with this chain of enclosing iterations (docs/semantics/cel.md#cel-10.1)."""
        k = 0
        for i in range(len(chain) - 1, -1, -1):
            if x in vdef_plus(chain[i][1]):
                k = i + 1
                break
        return _Compiler.ctx(chain[:k])

    def compile(self, f: Formula, chain: list[tuple[int, Formula]]
                ) -> tuple[int, frozenset[int], float]:
        """Returns (representative node id, candidate positions, minimal |C|)."""
        if isinstance(f, Filter):
            rep, cand, mn = self.compile(f.body, chain)
            self.filter(f.pred, rep, chain)
            return rep, cand, mn
        v = self.new_id()
        if isinstance(f, Atom):
            x = self.vid(f.var)
            self.lines.append(f"atom({v},{asp_string(f.rel)},{x}).")
            key = (x, chain[-1][0] if chain else None)
            self.atom_scopes[key] = self.atom_scopes.get(key, 0) + 1
            return v, frozenset(self.by_type.get(f.rel, ())), 1
        if isinstance(f, FalseF):
            self.lines.append(f"falsef({v}).")
            return v, frozenset(), float("inf")
        if isinstance(f, Sel):
            # nested strategy (docs/semantics/cel.md#cel-G5): its selected CEs inside the positions given to the solver
            lo, hi = self.positions[0] if self.positions else 0, self.positions[-1] if \
                self.positions else -1
            ces = sorted(c for c in self.blocks[f] if lo <= c[0] and c[-1] <= hi)
            self.lines.append(f"sel({v}).")
            for k, c in enumerate(ces):
                self.lines.append(f"blkce({v},{k}).")
                self.lines.extend(f"blk({v},{k},{p})." for p in c)
            return (v, frozenset(p for c in ces for p in c),
                    min((len(c) for c in ces), default=float("inf")))
        if isinstance(f, Plus):
            body = f.body
            while isinstance(body, Plus):
                # (r+)+ = r+ exactly: the outer rounds rebind vdef+(r+) = {} and concatenations
                # of concatenations are concatenations (docs/semantics/cel.md#cel-7 item 13); dropping the outer
                # iteration removes witnesses that only differ in how rounds are grouped
                body = body.body
            c, cand, mn = self.compile(body, chain + [(v, body)])
            if not cand or mn == float("inf"):
                rounds = 1
            else:
                rounds = max(1, int(len(cand) // mn))
                if self.within is not None:
                    rounds = max(1, min(rounds, int((self.within + 1) // mn)))
            self.lines.append(f"plus({v},{c},{rounds}).")
            if rounds > 1:
                self.lines.append(f"lecap({c},{max(cand)}).")
            return v, cand, mn
        a, ca, ma = self.compile(f.left, chain)
        b, cb, mb = self.compile(f.right, chain)
        if isinstance(f, Or):
            self.lines.append(f"or({v},{a},{b}).")
            return v, ca | cb, min(ma, mb)
        if isinstance(f, Seq):
            self.lines.append(f"seq({v},{a},{b}).")
            if ca and cb:
                self.lines.append(f"lecap({b},{max(ca)}).")
            return v, ca | cb, ma + mb
        if isinstance(f, And):
            self.lines.append(f"and({v},{a},{b}).")
            return v, ca & cb, max(ma, mb)
        raise TypeError(f"unknown formula node {f!r}")

    def filter(self, pred: Pred, body: int, chain: list[tuple[int, Formula]]) -> None:
        """Rules for ``body FILTER pred`` in context ``chain`` (docs/semantics/cel.md#cel-10.1, truth tables G6)."""
        fid = self.new_id()
        ictx = self.ctx(chain)
        act = f"act({body},{ictx})"
        if self.need:
            for x in sorted(pred_vars(pred)):
                self.lines.append(f"need({self.vid(x)},{self.scope(x, chain)}) :- {act}.")
        for j, conj in enumerate(_conjuncts(pred)):
            xs = sorted(pred_vars(conj))
            if not xs:
                if not holds(conj, {}):
                    self.lines.append(f":- {act}.")
                continue
            cands = [self.positions if self.need else self.var_cand.get(x, []) for x in xs]
            size = 1
            for c in cands:
                size *= len(c)
            self.table_size += size
            if self.table_size > self.limits.max_ground_size:
                raise LimitExceeded(f"ground size limit {self.limits.max_ground_size} exceeded "
                                    f"(predicate tables of {self.table_size} tuples)")
            true_t, false_t = [], []
            for tup in product(*cands):
                if self.within is not None and not self.need and len(tup) > 1 \
                        and max(tup) - min(tup) > self.within:
                    continue  # positions of one C: the window rejects the tuple anyway
                env = {x: self.stream[p] for x, p in zip(xs, tup)}
                (true_t if holds(conj, env) else false_t).append(tup)
            vals = ", ".join(f"val({self.vid(x)},{self.scope(x, chain)},Q{i})"
                             for i, x in enumerate(xs))
            qs = ",".join(f"Q{i}" for i in range(len(xs)))
            if len(false_t) <= len(true_t) + 1:
                # negative table: the valuation must avoid every false tuple
                self.lines.extend(f"hn({fid},{j},{','.join(map(str, t))})." for t in false_t)
                if false_t:
                    self.lines.append(f":- {act}, {vals}, hn({fid},{j},{qs}).")
            else:
                self.lines.extend(f"h({fid},{j},{','.join(map(str, t))})." for t in true_t)
                self.lines.append(f"fok({fid},{j},{ictx}) :- {act}, {vals}, h({fid},{j},{qs}).")
                self.lines.append(f":- {act}, not fok({fid},{j},{ictx}).")


def _atoms(f: Formula) -> list[Atom]:
    out: list[Atom] = []
    stack = [f]
    while stack:
        g = stack.pop()
        if isinstance(g, Atom):
            out.append(g)
        elif isinstance(g, (Filter, Plus)):
            stack.append(g.body)
        elif isinstance(g, (Or, Seq, And)):
            stack.extend((g.left, g.right))
    return out


def is_strongly_well_formed(f: Formula) -> bool:
    """True if :func:`ceplab.semantics.cel.analysis.check_well_formed` accepts ``f`` (docs/semantics/cel.md#cel-G3)."""
    try:
        check_well_formed(f)
        return True
    except WellFormednessError:
        return False


def _outer(f: Formula) -> Formula:
    """``f`` with every nested strategy replaced by FALSE: the outer formula's own structure (a
    closed block binds no outer variable, like FALSE), for the outer well-formedness test."""
    if isinstance(f, Sel):
        return FalseF()
    if isinstance(f, Filter):
        return Filter(_outer(f.body), f.pred)
    if isinstance(f, Plus):
        return Plus(_outer(f.body))
    if isinstance(f, (Or, Seq, And)):
        return type(f)(_outer(f.left), _outer(f.right))
    return f


def compile_query(query: Query, stream: Stream, limits: Limits = Limits(),
                  lo: int = 0, hi: int | None = None,
                  blocks: dict[Sel, frozenset[ComplexEvent]] | None = None) -> tuple[str, bool]:
    """Query-specific ASP text (stream facts, AST facts, filter rules) for ``query`` on ``stream``.

    Args:
        query: a CEL query (any formula; the window is used to prune tables and round counts).
        stream: the finite stream prefix.
        limits: ``max_ground_size`` also bounds the predicate truth tables.
        lo, hi: only positions ``lo..hi`` (inclusive; default the whole stream) are given to the
            solver, keeping their global numbers. Used for windowed decomposition, which is exact
            only for strongly well-formed formulas (every valued variable lies in C).
        blocks: for every nested strategy node of the formula (docs/semantics/cel.md#cel-G5), its selected complex
            events ``SEL([[psi]](S))`` (see :func:`nested_results`); required if it has any.

    Returns:
        ``(text, need)``: the program text to add to ``asp/cel.lp`` and whether the ``need`` part
        (total valuation for formulas that are not strongly well-formed, docs/semantics/cel.md#cel-G2/#cel-G3) is required.

    Raises:
        LimitExceeded: the predicate truth tables alone exceed ``limits.max_ground_size``.
    """
    need = not is_strongly_well_formed(_outer(query.formula))
    hi = len(stream) - 1 if hi is None else hi
    comp = _Compiler(query.formula, stream, query.within, need, limits, lo, hi, blocks)
    head = [f"#const n={hi + 1}.", f"#const lo={lo}.", f"pos({lo}..{hi})." if hi >= lo else ""]
    head += [f"type({i},{asp_string(stream[i].type)})." for i in range(lo, hi + 1)]
    root, _, _ = comp.compile(query.formula, [])
    head.append(f"root({root}).")
    for (x, _), k in comp.atom_scopes.items():
        if k > 1:
            head.append(f"multi({x}).")
    return "\n".join(head + sorted(set(comp.lines), key=comp.lines.index)) + "\n", need


def _last_candidates(f: Formula, stream: Stream,
                     blocks: dict[Sel, frozenset[ComplexEvent]] | None = None) -> frozenset[int]:
    """Positions that can be ``max C`` for some C in [[f]](S): a static over-approximation."""
    if isinstance(f, Atom):
        return frozenset(i for i, e in enumerate(stream) if e.type == f.rel)
    if isinstance(f, Sel):
        return frozenset(c[-1] for c in (blocks or {}).get(f, ()))
    if isinstance(f, (Filter, Plus)):
        return _last_candidates(f.body, stream, blocks)
    if isinstance(f, Seq):
        return _last_candidates(f.right, stream, blocks)
    if isinstance(f, Or):
        return _last_candidates(f.left, stream, blocks) | _last_candidates(f.right, stream, blocks)
    if isinstance(f, And):
        return _last_candidates(f.left, stream, blocks) & _last_candidates(f.right, stream, blocks)
    return frozenset()


def nested_results(f: Formula, stream: Stream, options: Options, limits: Limits = Limits(),
                   deadline: float | None = None, stats: Stats | None = None
                   ) -> dict[Sel, frozenset[ComplexEvent]]:
    """``SEL([[psi]](S))`` for every nested strategy ``SEL(psi)`` of ``f`` (docs/semantics/cel.md#cel-G5).

    Each block is closed, so this is the oracle's result on the stand-alone query
    ``SEL(psi WITHIN n)``, with MAX compared per end position (``max_scope`` is for the top level).
    Blocks inside ``psi`` are handled by the recursive call.

    Raises:
        LimitExceeded: a limit was hit in a sub-call.
    """
    out: dict[Sel, frozenset[ComplexEvent]] = {}
    sub_opts = _replace(options, max_scope="same_end")
    for s in nested_sels(f):
        if s not in out:
            out[s] = _job(s.query(), stream, sub_opts, limits, deadline, stats).results
    return out


# ------------------------------------------------------------------ solving
_IN = "in"


def _ce_of(model) -> ComplexEvent:
    return tuple(sorted(s.arguments[0].number for s in model.symbols if s.name == _IN))


#: Windowed decomposition (WITHIN w, strongly well-formed formulas): the end positions are cut
#: into blocks of ``max(BLOCK_MIN, 3 * (w + 1))`` positions, each solved on its own sub-stream.
BLOCK_MIN = 64


def _blocks(query: Query, stream: Stream, need: bool, options: Options
            ) -> list[tuple[int, int, int, int]]:
    """``(a, b, lo, hi)``: CEs with ``max C`` in ``[a, b]`` are found on positions ``lo..hi``.

    With ``WITHIN w`` and a strongly well-formed formula every witness of C uses only positions of
    C (all valued variables are bound by atoms, docs/semantics/cel.md#cel-G3), and C lies in ``[max C - w, max C]``; a
    C' that could dominate C under global MAX lies in ``[max C - w, max C + w]``.
    """
    n = len(stream)
    w = query.within
    if w is None or need:
        return [(0, n - 1, 0, n - 1)]
    step = max(BLOCK_MIN, 3 * (w + 1))
    ahead = w if (query.strategy == "MAX" and options.max_scope == "global") else 0
    return [(a, min(a + step, n) - 1, max(0, a - w), min(n - 1, a + step - 1 + ahead))
            for a in range(0, n, step)]


def _num(name: str, k: int) -> clingo.Symbol:
    return clingo.Function(name, [clingo.Number(k)])


def _job(query: Query, stream: Stream, options: Options, limits: Limits,
         deadline: float | None = None, stats: Stats | None = None) -> OracleResult:
    stats = Stats() if stats is None else stats
    deadline = time.monotonic() + limits.time_s if deadline is None else deadline
    strat = query.strategy
    w = query.within
    if w is not None and w < 0:
        return OracleResult(frozenset(), stats)
    if strat in ("ALL", "STRICT"):
        args = ["0", "--project"]
    elif strat in ("NXT", "LAST"):
        args = ["--opt-mode=opt"]
    else:
        args = ["0", "--project", "--heuristic=Domain", "--enum-mode=domRec"]
    blocks = nested_results(query.formula, stream, options, limits, deadline, stats)
    need = not is_strongly_well_formed(_outer(query.formula))
    per_end = strat in ("NXT", "LAST") or (strat == "MAX" and options.max_scope == "same_end")
    last = _last_candidates(query.formula, stream, blocks)
    results: set[ComplexEvent] = set()
    for a, b, lo, hi in _blocks(query, stream, need, options):
        ends = sorted(e for e in last if a <= e <= b)
        if not ends:
            continue
        text, _ = compile_query(query, stream, limits, lo, hi, blocks)
        s = Solver(args, limits, deadline=deadline, stats=stats)
        s.add(_fixed_program())
        s.add(text)
        parts: list[tuple[str, tuple]] = [("base", ())]
        if need:
            parts.append(("need", ()))
        parts.append(("chains", ()))
        if w is not None:      # max C - min C <= n - 1 anyway: a larger w is the same bound (and fits clingo's int)
            parts.append(("within", (clingo.Number(min(w, len(stream))),)))
        part = {"STRICT": "strict", "NXT": "nxt", "LAST": "last", "MAX": "maxh"}.get(strat)
        if part:
            parts.append((part, ()))
        s.ground(parts)
        in_block = [(_num("ingt", b), False)] + ([(_num("ingt", a - 1), True)] if a > 0 else [])
        if strat in ("ALL", "STRICT"):
            results.update(_ce_of(m) for m in s.solve(in_block))
        elif not per_end:  # MAX, global scope: maximal CEs of the sub-stream, kept if they end here
            results.update(c for c in map(_ce_of, s.solve()) if c and a <= c[-1] <= b)
        else:
            for e in ends:
                assume = [(_num(_IN, e), True), (_num("ingt", e), False)]
                if w is not None and e - w - 1 >= lo:
                    # redundant with the window constraint, but shows the solver at once that no
                    # position before e - w is in C (keeps every call local to the window)
                    assume.append((_num("inle", e - w - 1), False))
                ms = s.solve(assume)
                if strat == "MAX":
                    results.update(_ce_of(m) for m in ms)
                elif ms:
                    results.add(_ce_of(ms[-1]))
    results.discard(())
    return OracleResult(frozenset(results), stats)


def oracle(query: Query, stream: Stream, options: Options = Options(),
           limits: Limits = Limits()) -> OracleResult | Undecided:
    """The CEL reference oracle: ``SEL(phi WITHIN n)`` on a finite stream, by clingo.

    Semantics: paper sections 3-4 as reconstructed in docs/semantics/cel.md#cel-3.1/#cel-3.2, over the finite prefix
    with valuations over its positions (G2); strongly well-formed formulas (G3) are exact, others
    get the finite-word semantics. Predicate truth comes only from
    :mod:`ceplab.semantics.cel.predicates` (G6).

    Args:
        query: a parsed CEL query (formula, strategy in ``ALL/STRICT/NXT/LAST/MAX``, ``within``).
        stream: the stream; positions are 0-based indices.
        options: CEL switches; ``max_scope`` selects the MAX comparison scope (G4),
            ``nested_strategies`` whether nested strategies are rejected or read compositionally
            (G5).
        limits: time and ground-size limits.

    Returns:
        ``OracleResult(results, stats)`` with ``results`` a frozenset of complex events (sorted
        tuples of positions), or :class:`ceplab.asp.oracle.Undecided` if a limit was hit.

    Raises:
        ValueError: unknown strategy, ``max_scope`` or ``nested_strategies``.
        ceplab.semantics.errors.ParseError: a nested strategy under ``nested_strategies="reject"``, or
            one that is not closed (docs/semantics/cel.md#cel-G5).
        ceplab.asp.oracle.OracleError: clingo failed unexpectedly (a bug).
    """
    if query.strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {query.strategy!r}")
    if options.max_scope not in ("same_end", "global"):
        raise ValueError(f"unknown max_scope {options.max_scope!r}")
    check_nested_strategies(query, options)
    if len(stream) == 0:
        return OracleResult(frozenset(), Stats())
    return isolated(_job, query, stream, options, limits, limits=limits)
