"""Offline I/O-determinization of CEA and closure constructions (paper Proposition 1, Appendix
C.1; docs/semantics/cel.md#cel-5.4).

:func:`determinize` builds the explicit I/O-deterministic CEA of Proposition 1: its states are the
subsets of Q reachable from ``{q0}``; its labels are the satisfiable predicate *types* — the
conjunctions, over the distinct labels ``P_A`` of the automaton, of each label or its negation —
and ``(S, τ, m, δ(S, τ, m))`` is a transition for every type τ and mark m.  Every event satisfies
exactly one type, so for each stream and each complex event there is at most one run.  This is for
drawing and analysis (and to test I/O-determinism); the evaluator determinizes on the fly
(:mod:`ceplab.engine.cel.evaluate`), touching only the DFA states a stream actually reaches.

Also: :func:`is_io_deterministic`, :func:`union`, :func:`intersection`, :func:`complement`, and
:func:`runs` (the reference run semantics of a CEA, exponential, for tests).

Satisfiability of predicate conjunctions (sympy).  :class:`PredicateAlgebra` encodes the labels
as propositional formulas:

* **Event types.** One symbol ``type=R`` per relation name R used by the labels plus ``type=other``;
  exactly one is true (pairwise exclusion + at-least-one).
* **Comparisons with constants.** For every attribute ``a`` the constants compared with it are
  collected per kind (numbers, strings, booleans; docs/semantics/cel.md#cel-G6: a comparison between different kinds is
  false, and so is any comparison on a missing attribute).  Per kind with sorted distinct constants
  ``c0 < ... < c(k-1)`` the value space is cut into the ``2k+1`` *regions*
  ``(-inf,c0), {c0}, (c0,c1), ..., {c(k-1)}, (c(k-1),+inf)``; booleans have the regions
  ``{true}, {false}``; one more region ``a absent / another kind`` completes the partition.  One
  symbol per region, exactly one region per attribute.  Each atomic comparison ``x.a OP c`` is a
  symbol of its own, with the axiom ``cmp <-> OR(regions where it holds)``; the implications
  between comparisons on the same attribute (``v > 2 -> v >= 1``, ``v = 1 -> NOT v = 2``, ...)
  follow from these axioms.  The encoding is exact for numbers (open intervals of the reals are
  never empty) and booleans; for strings an open interval between two consecutive constants may be
  empty (``"a"`` .. ``"a\\x00"``), so satisfiability may be over-approximated there (harmless:
  an unsatisfiable type only adds transitions that never fire).
* **Comparisons of two attributes of the same event** (``x.a < x.b``) are opaque symbols
  (over-approximation, likewise harmless).  Labels that read registers (the binary-filter
  extension) are not unary predicates: :func:`determinize` raises UnsupportedError for them.

The satisfiable types are found by a depth-first search over the labels relevant to each event
type (a label with another ``rel`` is false), pruning unsatisfiable partial conjunctions.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Optional

from sympy import And as SAnd
from sympy import Not as SNot
from sympy import Or as SOr
from sympy import Symbol, false, true
from sympy.logic.inference import satisfiable

from ceplab.engine.cel.automaton import CEA, Label, Transition, guard
from ceplab.semantics.cel import ast as A
from ceplab.semantics.cel.predicates import compare
from ceplab.semantics.errors import UnsupportedError

__all__ = ["TypeLabel", "PredicateAlgebra", "determinize", "is_io_deterministic", "union",
           "intersection", "complement", "runs", "label_holds"]

_OTHER = "<other>"


@dataclass(frozen=True)
class TypeLabel(Label):
    """A label of a determinized CEA: a predicate type.

    ``rel``/``pred`` as in :class:`Label` (``pred`` is over ``var``); ``exclude``: event types the
    label does *not* match (used by the type ``type=other`` of events of none of the automaton's
    relation names, whose ``rel`` is None).  :func:`label_holds` and the evaluators honour
    ``exclude``; :func:`ceplab.engine.cel.automaton.guard` alone does not."""

    exclude: frozenset = field(default_factory=frozenset)

    def __str__(self) -> str:
        base = Label.__str__(self)
        if not self.exclude:
            return base
        ex = "type∉{" + ",".join(sorted(self.exclude)) + "}"
        return ex if base == "TRUE" else f"{ex} ∧ {base}"


def label_guard(label: Label, registers=None):
    """``f(event, regs) -> bool`` for any label, honouring :attr:`TypeLabel.exclude`."""
    g = guard(label, registers or {})
    ex = getattr(label, "exclude", None)
    if ex:
        return lambda e, r, g=g, ex=ex: e.type not in ex and g(e, r)
    return g


def label_holds(label: Label, event) -> bool:
    """Truth of a unary label on an event."""
    return bool(label_guard(label)(event, {}))


# ---------------------------------------------------------------- predicate algebra
def _kind(v) -> str:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "num"
    if isinstance(v, str):
        return "str"
    return "other"


class PredicateAlgebra:
    """Propositional encoding of unary labels (see module docstring) with a sympy SAT check.

    Args:
        labels: the labels whose predicates (and relation names) define the symbol universe.
    """

    def __init__(self, labels: Iterable[Label]) -> None:
        labels = list(labels)
        rels: set[str] = set()
        consts: dict[str, dict[str, set]] = {}
        for l in labels:
            if l.rel is not None:
                rels.add(l.rel)
            rels |= set(getattr(l, "exclude", ()) or ())
            for c in A.pred_atoms(l.pred):
                if isinstance(c, A.Cmp):
                    if l.var is not None and c.var != l.var:
                        raise UnsupportedError(
                            f"label {l} reads variable {c.var} from a register: not a unary "
                            "predicate, cannot be determinized offline")
                    consts.setdefault(c.attr, {}).setdefault(_kind(c.value), set()).add(c.value)
                elif isinstance(c, A.Cmp2):
                    if c.var != c.var2 or (l.var is not None and c.var != l.var):
                        raise UnsupportedError(
                            f"label {l} compares two variables ({c}): not a unary predicate, "
                            "cannot be determinized offline")
        self.rels = sorted(rels)
        self.type_sym = {r: Symbol(f"type={r}") for r in self.rels + [_OTHER]}
        axioms = [_exactly_one(list(self.type_sym.values()))]
        # attribute regions
        self.regions: dict[str, list[tuple[Symbol, str, object]]] = {}
        for attr, by_kind in sorted(consts.items()):
            regs: list[tuple[Symbol, str, object]] = []
            for kind in sorted(by_kind):
                vals = by_kind[kind]
                if kind == "bool":
                    for b in (True, False):
                        regs.append((Symbol(f"{attr}={b}"), "bool", b))
                elif kind in ("num", "str"):
                    srt = sorted(set(vals))
                    for p in range(2 * len(srt) + 1):
                        if p % 2:
                            desc = f"{attr}={srt[p // 2]!r}"
                        else:
                            lo_ = repr(srt[p // 2 - 1]) if p else "-inf"
                            hi_ = repr(srt[p // 2]) if p // 2 < len(srt) else "+inf"
                            desc = f"{attr}:{kind} in ({lo_}, {hi_})"
                        regs.append((Symbol(desc), kind, (p, tuple(srt))))
            regs.append((Symbol(f"{attr}:absent/other"), "other", None))
            self.regions[attr] = regs
            axioms.append(_exactly_one([s for s, _, _ in regs]))
        self.cmp_sym: dict[tuple, Symbol] = {}
        self._cmp_axioms: list = []
        self.axioms = SAnd(*axioms)
        self._cache: dict = {}

    # comparison symbols with their defining axiom
    def _cmp(self, c: A.Cmp):
        key = (c.attr, c.op, c.value, _kind(c.value))
        s = self.cmp_sym.get(key)
        if s is None:
            s = self.cmp_sym[key] = Symbol(f"[{c.attr} {c.op} {c.value!r}]")
            holds = [r for r, kind, data in self.regions[c.attr]
                     if _region_holds(kind, data, c.op, c.value)]
            self._cmp_axioms.append(SAnd(SOr(SNot(s), *holds), *[SOr(s, SNot(h)) for h in holds])
                                    if holds else SNot(s))
        return s

    def pred_expr(self, p: A.Pred):
        if isinstance(p, A.PTrue):
            return true
        if isinstance(p, A.PFalse):
            return false
        if isinstance(p, A.Cmp):
            return self._cmp(p)
        if isinstance(p, A.Cmp2):
            key = ("cmp2", p.attr, p.op, p.attr2)
            s = self.cmp_sym.get(key)
            if s is None:
                s = self.cmp_sym[key] = Symbol(f"[{p.attr} {p.op} .{p.attr2}]")
            return s
        if isinstance(p, A.PAnd):
            return SAnd(self.pred_expr(p.left), self.pred_expr(p.right))
        if isinstance(p, A.POr):
            return SOr(self.pred_expr(p.left), self.pred_expr(p.right))
        if isinstance(p, A.PNot):
            return SNot(self.pred_expr(p.arg))
        raise TypeError(p)

    def expr(self, label: Label):
        """The propositional formula of a label (type test, exclusions, predicate)."""
        parts = []
        if label.rel is not None:
            parts.append(self.type_sym.get(label.rel) or false)
        for r in getattr(label, "exclude", ()) or ():
            parts.append(SNot(self.type_sym[r]))
        parts.append(self.pred_expr(label.pred))
        return SAnd(*parts)

    def sat(self, expr) -> bool:
        """Is ``expr`` satisfiable together with the axioms?"""
        r = self._cache.get(expr)
        if r is None:
            r = self._cache[expr] = satisfiable(
                SAnd(self.axioms, *self._cmp_axioms, expr)) is not False
        return r

    def disjoint(self, l1: Label, l2: Label) -> bool:
        """True if no event satisfies both labels."""
        return not self.sat(SAnd(self.expr(l1), self.expr(l2)))


def _exactly_one(syms: list):
    if len(syms) == 1:
        return syms[0]
    return SAnd(SOr(*syms), *[SOr(SNot(a), SNot(b)) for i, a in enumerate(syms)
                              for b in syms[i + 1:]])


def _region_holds(kind: str, data, op: str, c) -> bool:
    ck = _kind(c)
    if kind != ck or kind == "other":
        return False
    if kind == "bool":
        return compare(data, op, c)
    p, srt = data
    if c not in srt:
        raise ValueError(f"constant {c!r} is not in the algebra's universe: build the "
                         "PredicateAlgebra from every label it will be asked about")
    return compare(p, op, 2 * srt.index(c) + 1)


def _rename_var(p: A.Pred, old: Optional[str], new: str) -> A.Pred:
    if old is None or old == new:
        return p
    from ceplab.engine.cel.compile import _rename
    return _rename(p, old, new)


def _pand(ps: list[A.Pred]) -> A.Pred:
    ps = [p for p in ps if not isinstance(p, A.PTrue)]
    if not ps:
        return A.PTrue()
    out = ps[0]
    for p in ps[1:]:
        out = A.PAnd(out, p)
    return out


# ---------------------------------------------------------------- types and determinization
def predicate_types(labels: list[Label], algebra: Optional[PredicateAlgebra] = None
                    ) -> list[tuple[TypeLabel, tuple[bool, ...]]]:
    """The satisfiable types over ``labels``: ``(type label, truth vector over labels)``."""
    alg = algebra or PredicateAlgebra(labels)
    rels = sorted({l.rel for l in labels if l.rel is not None} |
                  {r for l in labels for r in (getattr(l, "exclude", ()) or ())})
    out: list[tuple[TypeLabel, tuple[bool, ...]]] = []
    V = "_"
    for rel in rels + [None]:
        relevant = [i for i, l in enumerate(labels)
                    if (l.rel is None or l.rel == rel) and
                    (rel is None or rel not in (getattr(l, "exclude", ()) or ()))]
        if rel is None:
            base = SAnd(*[SNot(alg.type_sym[r]) for r in rels]) if rels else true
        else:
            base = alg.type_sym[rel]
        if not alg.sat(base):
            continue

        def dfs(k: int, expr, truth: dict[int, bool]) -> None:
            if k == len(relevant):
                vec = tuple(truth.get(i, False) for i in range(len(labels)))
                preds = []
                for i in relevant:
                    p = _rename_var(labels[i].pred, labels[i].var, V)
                    if isinstance(p, A.PTrue):
                        continue
                    preds.append(p if truth[i] else A.PNot(p))
                lab = TypeLabel(rel, _pand(preds), V,
                                exclude=frozenset(rels) if rel is None else frozenset())
                out.append((lab, vec))
                return
            i = relevant[k]
            e = alg.expr(labels[i])
            for val in (True, False):
                ne = SAnd(expr, e if val else SNot(e))
                if alg.sat(ne):
                    truth[i] = val
                    dfs(k + 1, ne, truth)
                    del truth[i]

        dfs(0, base, {})
    return out


def determinize(cea: CEA, complete: bool = False) -> CEA:
    """Proposition 1: an equivalent I/O-deterministic CEA (states = reachable subsets of Q).

    Args:
        cea: a unary CEA (no registers).
        complete: keep the empty subset as a (sink) state and every transition into it, so that
            every state has exactly one transition per (type, mark) — needed by :func:`complement`.

    Returns:
        A CEA with state 0 = ``{q0}`` and :class:`TypeLabel` labels; ``cea.subsets`` (an extra
        attribute) maps each state to its frozenset of original states.

    Raises:
        UnsupportedError: the automaton uses registers (binary filters).
    """
    if cea.registers:
        raise UnsupportedError("determinize: automata with registers (binary filters) have no "
                               "finite predicate types; use the on-the-fly evaluator")
    labels = cea.labels()
    alg = PredicateAlgebra(labels)
    types = predicate_types(labels, alg)
    lab_idx = {l: i for i, l in enumerate(labels)}
    out_t: dict[int, list[tuple[int, bool, int]]] = {}
    for t in cea.transitions:
        out_t.setdefault(t.src, []).append((lab_idx[t.label], t.mark, t.dst))
    start = frozenset((cea.initial,))
    ids = {start: 0}
    order = [start]
    trans: list[Transition] = []
    k = 0
    while k < len(order):
        S = order[k]
        k += 1
        for lab, vec in types:
            for m in (True, False):
                T = frozenset(dst for q in S for li, mk, dst in out_t.get(q, ())
                              if mk == m and vec[li])
                if not T and not complete:
                    continue
                if T not in ids:
                    ids[T] = len(order)
                    order.append(T)
                trans.append(Transition(ids[S], lab, m, ids[T]))
    finals = frozenset(i for S, i in ids.items() if S & cea.finals)
    d = CEA(len(order), 0, finals, trans)
    d.subsets = {i: S for S, i in ids.items()}  # type: ignore[attr-defined]
    return d


def is_io_deterministic(cea: CEA) -> bool:
    """One initial state (always true for :class:`CEA`) and, for any two transitions leaving the
    same state with the same mark, disjoint labels (checked with sympy)."""
    if cea.registers:
        raise UnsupportedError("is_io_deterministic: automata with registers are not unary")
    alg = PredicateAlgebra(cea.labels())
    by: dict[tuple[int, bool], list[Label]] = {}
    for t in cea.transitions:
        by.setdefault((t.src, t.mark), []).append(t.label)
    for labs in by.values():
        for i in range(len(labs)):
            for j in range(i + 1, len(labs)):
                if not alg.disjoint(labs[i], labs[j]):
                    return False
    return True


# ---------------------------------------------------------------- closure (Proposition 1)
def union(a: CEA, b: CEA) -> CEA:
    """``[[a ∪ b]] = [[a]] ∪ [[b]]``: disjoint union with a fresh initial state that copies the
    transitions leaving both initial states."""
    if a.registers or b.registers:
        raise UnsupportedError("union of automata with registers")
    off = 1 + a.n_states
    ts = [Transition(t.src + 1, t.label, t.mark, t.dst + 1) for t in a.transitions]
    ts += [Transition(t.src + off, t.label, t.mark, t.dst + off) for t in b.transitions]
    ts += [Transition(0, t.label, t.mark, t.dst + 1) for t in a.transitions if t.src == a.initial]
    ts += [Transition(0, t.label, t.mark, t.dst + off) for t in b.transitions
           if t.src == b.initial]
    fin = {q + 1 for q in a.finals} | {q + off for q in b.finals}
    return CEA(1 + a.n_states + b.n_states, 0, frozenset(fin), ts)


def intersection(a: CEA, b: CEA) -> CEA:
    """``[[a ∩ b]] = [[a]] ∩ [[b]]``: the product automaton; transitions pair equal marks and
    conjoin labels (the AND extension, docs/semantics/cel.md#cel-G8)."""
    if a.registers or b.registers:
        raise UnsupportedError("intersection of automata with registers")
    from ceplab.engine.cel.compile import _conj
    ids = {(a.initial, b.initial): 0}
    order = [(a.initial, b.initial)]
    ts: list[Transition] = []
    k = 0
    while k < len(order):
        p, q = order[k]
        k += 1
        for t1 in a.transitions:
            if t1.src != p:
                continue
            for t2 in b.transitions:
                if t2.src != q or t2.mark != t1.mark:
                    continue
                lab = _conj(t1.label, t2.label)
                if lab is None:
                    continue
                tgt = (t1.dst, t2.dst)
                if tgt not in ids:
                    ids[tgt] = len(order)
                    order.append(tgt)
                ts.append(Transition(ids[(p, q)], lab, t1.mark, ids[tgt]))
    fin = frozenset(i for (p, q), i in ids.items() if p in a.finals and q in b.finals)
    return CEA(len(order), 0, fin, ts)


def complement(cea: CEA) -> CEA:
    """Accepts at position n exactly the ``C ⊆ [0, n]`` with ``n ∈ C`` that ``cea`` does not
    (docs/semantics/cel.md#cel-5.4): complete determinization with the final states flipped."""
    d = determinize(cea, complete=True)
    d.finals = frozenset(i for i in range(d.n_states) if i not in d.finals)
    return d


# ---------------------------------------------------------------- reference run semantics
def runs(cea: CEA, events) -> Counter:
    """Count accepting runs per complex event over a finite stream (exponential; tests only).

    Returns ``Counter({C: number of accepting runs producing C})`` over all end positions; a run
    is accepting at n if it ends in F and its last transition marks (docs/semantics/cel.md#cel-5.1).  Unary automata
    only."""
    if cea.registers:
        raise UnsupportedError("runs: automata with registers")
    gs = {t.label: label_guard(t.label) for t in cea.transitions}
    res: Counter = Counter()
    # configurations: (state, marked positions tuple) -> number of runs
    cur: Counter = Counter({(cea.initial, ()): 1})
    for e in events:
        nxt: Counter = Counter()
        for (q, C), n in cur.items():
            for t in cea.transitions:
                if t.src != q or not gs[t.label](e, {}):
                    continue
                C2 = C + (e.position,) if t.mark else C
                nxt[(t.dst, C2)] += n
                if t.mark and t.dst in cea.finals:
                    res[C2] += n
        cur = nxt
    return res
