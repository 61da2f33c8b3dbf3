"""CQELS-CEP reference oracle: AST -> clingo program -> the snapshots ``[[Q, t]]`` for every ``t`` in ``[0, H]``
(docs/semantics/cqels.md#cqels-7).

The fixed, commented part of the encoding is ``asp/cqels.lp`` (windows, static versions and intervals, nSPARQL
axes and path operators, the three-valued FILTER tables, and the shapes of every generated rule).  This module

* emits the **facts** of one call: the horizon ``time(0..h)``, the switches ``opt(Switch, Value)``, the windows'
  parameters, the elements of the streams the query reads (interval, arrival time ``a(e)`` under
  ``Options.arrival``, file position, triples in canonical order, ranks and units in arrival order for
  ``TRIPLES``), the static versions with the time span each is active, the path expression nodes, and the
  numeric values of the literals as scaled integers (one exact scale per call);
* **generates** one predicate per AST node, with the rules of ``asp/cqels.lp``'s header: BGP leaves (per window,
  under ``Options.bgp_scope``), ``SEQ``, ``JOIN``, ``SEQ_WO`` (candidates with their witnesses, kills under
  ``Options.wo_bounds``), ``NO_HEAD``, ``NO_TAIL``, at the triple-pattern level (inside a window) and at the
  event-clause level (over windows), the static part per version, FILTER expressions, the final JOIN, the
  top-level filters and the projection;
* grounds and solves once through :mod:`ceplab.asp.oracle` (forked worker, hard time limit, ground-size limit),
  asserts exactly one answer set (the program is stratified; anything else is a :class:`ModelError`), and reads
  the ``ans/4`` atoms back as :class:`~ceplab.semantics.cqels.results.Answer`.

No Python function is called during grounding, and every RDF term enters the program as
``asp_string(nt_term(x))``.

Size and speed (``asp/cqels.lp``, "THE STRUCTURE"): every set is evaluated per time point, so the window and leaf
layers ground about ``n * w`` atoms (each element enters the snapshots it is visible in, generated as an interval
of t), and an operator grounds the compatible pairs of its inputs at each t.  Measured on one core (2,000 atomic
elements on one stream, one per tick, subjects and objects from 5 IRIs each, predicates ``:a :n :c``; ``RANGE 100``
and ``SEQ({?x :a ?y}, !{?x :n ?z}, {?x :c ?w})``; every t in ``[0, 2099]``; ``tests/cqels/test_oracle.py``,
``test_benchmark_2000_elements``): 1,212,591 ground atoms, all facts (as many ground rules), 56,748 answers;
2.2-2.4 s for the whole call (grounding 1.6-1.8 s, the rest mostly decoding the answers) on a two-core machine at
load 3.6, 3.8 s at load 6.  The ground size is exactly linear in ``n`` (25,000 elements:
15.1 million atoms, 700,472 answers, 46 s under that load; 30,000 did not finish within 60 s there).  The default
``Limits.max_ground_size`` (3 million rules + atoms) admits about 2,400 such elements.

Readings where docs/semantics/cqels.md#cqels-3 leaves a detail implicit (the engine reads them the same way):

* ``RANGE T SLIDE d``: visibility and clipping use ``u`` (``a(e) <= u``, ``r = min(t2, u)``); everything else at
  ``t`` uses ``t`` (NO_TAIL's ``d <= t``, the static interval ``[F, t]``, the answer's time).  ``ALL`` and
  ``TRIPLES`` clip the end to ``t``.
* ``TRIPLES n`` counts only the elements (units) of the window's own stream that have arrived by ``t``; under
  ``triples_unit = "triples"`` a BGP (either ``bgp_scope``) matches only kept triples.
* ``zero_length = "sparql"``: ``C`` (the pattern's IRI/literal ends) is added for every ``*`` and ``?`` node of the
  pattern, nested tests included, and in every static version, an empty ``D(t)`` included; likewise ``self::a``
  is ``{(a, a)}`` in every version, while ``self`` and ``self::[e]`` keep to ``voc(D(t))``.
* FILTER: an ``xsd:boolean`` constant in a boolean position is true iff its lexical form is ``true`` or ``1``; in a
  value position (an operand of ``=``) it is a term like any other.
* ``per_mapping``: the run of versions is over ``StaticData``'s normalised versions (equal consecutive versions are
  one).  Versions that start after the horizon are not encoded.

Limits of the encoding (:class:`UnsupportedError`, never a wrong answer): clingo integers are 32-bit, so times
``>= 2**30`` (element ends, ranges, slides, static change times, the horizon) and FILTER numbers whose scaled value
(times the number of operands of the largest sum in a filter) reaches ``2**31`` are rejected; the engine's answers
for such inputs are not claimed.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import lcm
from pathlib import Path
from typing import Iterable, Optional, Sequence, Union

from rdflib.term import Literal, URIRef, Variable

from ceplab.asp.oracle import Limits, OracleResult, Solver, Undecided, asp_string, isolated, py_symbol
from ceplab.semantics.cqels import ast as A
from ceplab.semantics.cqels.options import Options
from ceplab.semantics.cqels.results import Answer, default_until
from ceplab.semantics.cqels.streams import StaticData, arrival, arrival_order, element_triples
from ceplab.semantics.errors import ModelError, UnsupportedError
from ceplab.semantics.rdfstream import StreamElement, nt_term

LP_FILE = Path(__file__).with_name("cqels.lp")

#: Largest time point (element start/end, window range + slide, static change, horizon) the oracle encodes:
#: clingo's integers are 32-bit and the window rules add a range and a slide to an end point.
MAX_TIME = 2**30 - 1
#: Bound on the absolute value of a scaled FILTER number, times the operands of the largest sum.
MAX_NUM = 2**31 - 1


@lru_cache(maxsize=1)
def _fixed_program() -> str:
    return LP_FILE.read_text(encoding="utf-8")


# ------------------------------------------------------------------------------------------------ helpers
def _call(pred: str, *args: str) -> str:
    """``pred(a1,...,an)``, or ``pred`` for no arguments."""
    args = tuple(a for a in args if a != "")
    return f"{pred}({','.join(args)})" if args else pred


def _tuple(xs: Sequence[str]) -> str:
    """A clingo tuple term: ``()``, ``(X,)``, ``(X,Y)``."""
    if not xs:
        return "()"
    if len(xs) == 1:
        return f"({xs[0]},)"
    return "(" + ",".join(xs) + ")"


def _comment(text: str) -> str:
    """A one-line ASP comment (no line breaks, no block-comment markers)."""
    text = text.replace("\r", " ").replace("\n", " ").replace("%*", "% *").replace("*%", "* %")
    return "% " + text


def _sorted_vars(vs: Iterable[Variable]) -> tuple[Variable, ...]:
    return tuple(sorted(set(vs), key=str))


def _all_vars(q: A.Query) -> set[Variable]:
    out: set[Variable] = set(A.static_vars(q))
    for w in q.windows:
        items = w.pattern.items if isinstance(w.pattern, A.SeqTSP) else (w.pattern,)
        for it in items:
            out |= A.bgp_vars(it.item if isinstance(it, A.Neg) else it)
    for f in q.filters:
        out |= A.expr_vars(f)
    return out


def _expr_consts(e: A.Expr) -> list:
    if isinstance(e, A.Const):
        return [e.term]
    if isinstance(e, A.Var):
        return []
    if isinstance(e, (A.UMinus, A.Not)):
        return _expr_consts(e.expr)
    return _expr_consts(e.left) + _expr_consts(e.right)


def _sum_operands(e: A.Expr) -> int:
    """The largest number of value operands of one arithmetic tree in ``e`` (bounds the scaled sums)."""
    if isinstance(e, (A.Var, A.Const)):
        return 1
    if isinstance(e, A.UMinus):
        return _sum_operands(e.expr)
    if isinstance(e, A.Arith):
        return _sum_operands(e.left) + _sum_operands(e.right)
    if isinstance(e, A.Not):
        return _sum_operands(e.expr)
    return max(_sum_operands(e.left), _sum_operands(e.right))


def _query_filters(q: A.Query) -> list[A.Expr]:
    out = list(q.filters)
    for w in q.windows:
        items = w.pattern.items if isinstance(w.pattern, A.SeqTSP) else (w.pattern,)
        for it in items:
            out.extend((it.item if isinstance(it, A.Neg) else it).filters)
    return out


def _text(x: object) -> str:
    """A short rendering of a pattern term for generated comments."""
    if isinstance(x, Variable):
        return "?" + str(x)
    return nt_term(x)


@dataclass(frozen=True)
class _Node:
    """A generated set predicate ``pred(T, schema values..., A, B)``."""
    pred: str
    schema: tuple[Variable, ...]


# ------------------------------------------------------------------------------------------------ compilation
class _Compiler:
    """Generates the per-query rules of one oracle call (``asp/cqels.lp``, header)."""

    def __init__(self, query: A.Query, options: Options, scale: int) -> None:
        self.q = query
        self.o = options
        self.scale = scale
        self.out: list[str] = []
        self.count = 0
        self.var = {v: f"X{i}" for i, v in enumerate(sorted(_all_vars(query), key=str))}
        self.windex = {w.name: i for i, w in enumerate(query.windows)}
        self.leaves: dict[tuple, _Node] = {}
        self.wnodes: dict[URIRef, _Node] = {}
        self.path_lines: list[str] = []
        self.path_count = 0

    # -------------------------------------------------------------- plumbing
    def fresh(self, kind: str) -> str:
        self.count += 1
        return f"{kind}{self.count}"

    def emit(self, comment: str, *rules: str) -> None:
        self.out.append(_comment(comment))
        self.out.extend(rules)

    def term(self, x: object) -> str:
        if isinstance(x, Variable):
            return self.var[x]
        return asp_string(nt_term(x))

    def xs(self, schema: Sequence[Variable], keep: Optional[Iterable[Variable]] = None) -> list[str]:
        """The ASP variables of ``schema``; those not in ``keep`` anonymous (existential)."""
        keep = None if keep is None else set(keep)
        return [self.var[v] if keep is None or v in keep else "_" for v in schema]

    def atom(self, n: _Node, t: str, a: str, b: str, keep: Optional[Iterable[Variable]] = None) -> str:
        return _call(n.pred, t, *self.xs(n.schema, keep), a, b)

    def vars_text(self, schema: Sequence[Variable]) -> str:
        return ", ".join(f"{self.var[v]} = ?{v}" for v in schema) or "no variables"

    # -------------------------------------------------------------- leaves (docs/semantics/cqels.md#cqels-3.3 (16))
    def leaf(self, bgp: A.BGP, w: A.Window) -> _Node:
        key = (w.name, bgp)
        if key in self.leaves:
            return self.leaves[key]
        wi = self.windex[w.name]
        kept = isinstance(w.spec, A.TriplesWindow) and self.o.triples_unit == "triples"
        schema = _sorted_vars(A.bgp_vars(bgp))
        name = self.fresh("bgp")
        target = _Node(name + "_all" if bgp.filters else name, schema)
        desc = " . ".join(f"{_text(tp.s)} {_text(tp.p)} {_text(tp.o)}" for tp in bgp.triples)

        def match(tps: Sequence[A.TriplePattern], e: str = "E") -> list[str]:
            lits = []
            for i, tp in enumerate(tps):
                k = f"K{i}" if kept else "_"
                lits.append(f"triple({e},{k},{self.term(tp.s)},{self.term(tp.p)},{self.term(tp.o)})")
                if kept:
                    lits.append(f"kept({wi},{e},K{i},T)")
            return lits

        if self.o.bgp_scope == "element" or len(bgp.triples) == 1:
            self.emit(f"{name} = {{{desc}}} in window {wi} ({self.vars_text(schema)}): all triples in the graph of one "
                      "entry (docs/semantics/cqels.md#cqels-3.3 (16), #cqels-opt-bgp_scope)",
                      f"{self.atom(target, 'T', 'L', 'R')} :- "
                      + ", ".join([f"entry({wi},E,T,L,R)"] + match(bgp.triples)) + ".")
        else:
            parts = []
            for i, tp in enumerate(bgp.triples):
                sub = _Node(f"{name}_tp{i + 1}", _sorted_vars(A.bgp_vars(A.BGP((tp,)))))
                self.emit(f"{sub.pred}: triple pattern {i + 1} of {name} in any entry of window {wi} "
                          "(bgp_scope = join)",
                          f"{self.atom(sub, 'T', 'L', 'R')} :- "
                          + ", ".join([f"entry({wi},E,T,L,R)"] + match((tp,))) + ".")
                parts.append(sub)
            acc = parts[0]
            for i, p in enumerate(parts[1:]):
                last = i == len(parts) - 2
                acc = self.join(acc, p, target.pred if last else None,
                                f"the JOIN of the triple patterns of {name} (docs/semantics/cqels.md#cqels-G9)")
        node = _Node(name, schema)
        if bgp.filters:
            self.filtered(node, target, bgp.filters)
        self.leaves[key] = node
        return node

    # -------------------------------------------------------------- operators (docs/semantics/cqels.md#cqels-3.2)
    def seq(self, n1: _Node, n2: _Node) -> _Node:
        n = _Node(self.fresh("seq"), _sorted_vars(n1.schema + n2.schema))
        self.emit(f"{n.pred} = SEQ({n1.pred}, {n2.pred}): mu1 ~ mu2, b1 < a2, interval [a1, b2]",
                  f"{self.atom(n, 'T', 'A1', 'B2')} :- {self.atom(n1, 'T', 'A1', 'B1')}, "
                  f"{self.atom(n2, 'T', 'A2', 'B2')}, B1 < A2.")
        return n

    def join(self, n1: _Node, n2: _Node, pred: Optional[str] = None, why: str = "") -> _Node:
        n = _Node(pred or self.fresh("join"), _sorted_vars(n1.schema + n2.schema))
        self.emit(f"{n.pred} = JOIN({n1.pred}, {n2.pred}): mu1 ~ mu2, [max(a1,a2), min(b1,b2)] non-empty"
                  + (f"; {why}" if why else ""),
                  f"{self.atom(n, 'T', 'A', 'B')} :- {self.atom(n1, 'T', 'A1', 'B1')}, "
                  f"{self.atom(n2, 'T', 'A2', 'B2')}, "
                  "A = (A1+A2+|A1-A2|)/2, B = (B1+B2-|B1-B2|)/2, A <= B.")
        return n

    def seq_wo(self, n1: _Node, neg: _Node, n3: _Node) -> _Node:
        k = self.fresh("wo")
        schema = _sorted_vars(n1.schema + n3.schema)
        n, c = _Node(k, schema), _Node("c_" + k, schema)
        z = set(neg.schema) & set(schema)
        cand = _call(c.pred, "T", *self.xs(schema), "A1", "B1", "A3", "B3")
        kill = _call("k_" + k, "T", *self.xs(_sorted_vars(z)), "B1", "A3")
        cmp = "B1 <= C, D <= A3" if self.o.wo_bounds == "closed" else "B1 < C, D < A3"
        self.emit(f"{k} = SEQ_WO({n1.pred}, {neg.pred}, {n3.pred}): candidates with their witnesses b1, a3 "
                  "(docs/semantics/cqels.md#cqels-G6)",
                  f"{cand} :- {self.atom(n1, 'T', 'A1', 'B1')}, {self.atom(n3, 'T', 'A3', 'B3')}, B1 < A3.")
        self.emit(f"killed by a compatible negative within the gap, wo_bounds = {self.o.wo_bounds} "
                  "(docs/semantics/cqels.md#cqels-opt-wo_bounds)",
                  f"{kill} :- {_call(c.pred, 'T', *self.xs(schema), '_', 'B1', 'A3', '_')}, "
                  f"{self.atom(neg, 'T', 'C', 'D', z)}, {cmp}.")
        self.emit(f"{k}: some witness pair is not killed",
                  f"{self.atom(n, 'T', 'A1', 'B3')} :- {cand}, not {kill}.")
        return n

    def no_head(self, neg: _Node, o: _Node) -> _Node:
        k = self.fresh("nohead")
        n = _Node(k, o.schema)
        z = set(neg.schema) & set(o.schema)
        kill = _call("k_" + k, "T", *self.xs(_sorted_vars(z)), "A")
        self.emit(f"{k} = NO_HEAD({neg.pred}, {o.pred}): killed by a compatible negative with d < a",
                  f"{kill} :- {self.atom(o, 'T', 'A', '_', z)}, {self.atom(neg, 'T', 'C', 'D', z)}, D < A.",
                  f"{self.atom(n, 'T', 'A', 'B')} :- {self.atom(o, 'T', 'A', 'B')}, not {kill}.")
        return n

    def no_tail(self, o: _Node, neg: _Node) -> _Node:
        k = self.fresh("notail")
        n = _Node(k, o.schema)
        z = set(neg.schema) & set(o.schema)
        kill = _call("k_" + k, "T", *self.xs(_sorted_vars(z)), "B")
        self.emit(f"{k} = NO_TAIL({o.pred}, {neg.pred}, t): killed by a compatible negative with b < c and d <= t "
                  "(docs/semantics/cqels.md#cqels-G32)",
                  f"{kill} :- {self.atom(o, 'T', '_', 'B', z)}, {self.atom(neg, 'T', 'C', 'D', z)}, B < C, D <= T.",
                  f"{self.atom(n, 'T', 'A', 'B')} :- {self.atom(o, 'T', 'A', 'B')}, not {kill}.")
        return n

    def sequence(self, items: Sequence[tuple[_Node, bool]]) -> _Node:
        """SEQ(X1, ..., Xn) with at most one negated item (docs/semantics/cqels.md#cqels-3.3 (3)-(8), (10)-(15))."""
        negs = [i for i, (_, neg) in enumerate(items) if neg]
        nodes = [n for n, _ in items]
        if not negs:
            return self.positive(nodes)
        i = negs[0]
        if i == 0:
            return self.no_head(nodes[0], self.positive(nodes[1:]))
        if i == len(nodes) - 1:
            return self.no_tail(self.positive(nodes[:-1]), nodes[-1])
        return self.seq_wo(self.positive(nodes[:i]), nodes[i], self.positive(nodes[i + 1:]))

    def positive(self, nodes: Sequence[_Node]) -> _Node:
        """SEQ(X1, SEQ(X2, ..., Xn)), right-nested; SEQ(X) = X (docs/semantics/cqels.md#cqels-G8)."""
        if len(nodes) == 1:
            return nodes[0]
        return self.seq(nodes[0], self.positive(nodes[1:]))

    # -------------------------------------------------------------- windows and event clauses
    def window(self, name: URIRef) -> _Node:
        """[[w, t]] = [[pattern, t]]^w (docs/semantics/cqels.md#cqels-3.3 (9))."""
        if name in self.wnodes:
            return self.wnodes[name]
        w = self.q.window(name)
        p = w.pattern
        if isinstance(p, A.BGP):
            n = self.leaf(p, w)
        else:
            n = self.sequence([(self.leaf(it.item, w), True) if isinstance(it, A.Neg) else (self.leaf(it, w), False)
                               for it in p.items])
        self.wnodes[name] = n
        return n

    def event(self, ec: A.EC) -> _Node:
        if isinstance(ec, A.WinRef):
            return self.window(ec.name)
        return self.sequence([(self.window(it.item.name), True) if isinstance(it, A.Neg)
                              else (self.window(it.name), False) for it in ec.items])

    # -------------------------------------------------------------- static part and paths
    def path(self, e: A.Path, ends: Sequence[str]) -> int:
        """Facts for the path node ``e`` (one id per occurrence); ``ends`` = the pattern's constant ends."""
        self.path_count += 1
        p = self.path_count
        fact = self.path_lines.append
        if isinstance(e, A.Axis):
            fact(f"p_axis({p},{e.kind},{'inv' if e.inverse else 'fwd'}).")
        elif isinstance(e, A.AxisConst):
            fact(f"p_const({p},{e.kind},{'inv' if e.inverse else 'fwd'},{self.term(e.const)}).")
        elif isinstance(e, A.AxisNest):
            q = self.path(e.test, ends)
            fact(f"p_nest({p},{e.kind},{'inv' if e.inverse else 'fwd'},{q}).")
        elif isinstance(e, (A.PathSeq, A.PathAlt)):
            left, right = self.path(e.left, ends), self.path(e.right, ends)
            fact(f"p_{'seq' if isinstance(e, A.PathSeq) else 'alt'}({p},{left},{right}).")
        elif isinstance(e, (A.PathStar, A.PathPlus, A.PathOpt)):
            c = self.path(e.expr, ends)
            kind = {A.PathStar: "star", A.PathPlus: "plus", A.PathOpt: "opt"}[type(e)]
            fact(f"p_{kind}({p},{c}).")
            if kind != "plus":
                for x in ends:
                    fact(f"p_end({p},{x}).")
        else:
            raise TypeError(f"not a path: {e!r}")
        return p

    def static(self) -> _Node:
        """static(V, M): sol(P, D_V) (docs/semantics/cqels.md#cqels-3.5); the node stands for the set
        [[P, t]]_D = {<mu, [F, t]>}, F = slow(V, M, F) of the version V active at t."""
        schema = _sorted_vars(A.static_vars(self.q))
        lits = ["version(V,_,_)"]
        for sp in self.q.static:
            if isinstance(sp, A.TriplePattern):
                lits.append(f"d(V,{self.term(sp.s)},{self.term(sp.p)},{self.term(sp.o)})")
            else:
                ends = [self.term(x) for x in (sp.s, sp.o) if not isinstance(x, Variable)]
                root = self.path(sp.path, list(dict.fromkeys(ends)))
                lits.append(f"path({root},V,{self.term(sp.s)},{self.term(sp.o)})")
        m = _tuple(self.xs(schema))
        self.emit(f"static(V, M) = sol(P, D_V), M = ({self.vars_text(schema)})",
                  f"static(V,{m}) :- {', '.join(lits)}.")
        return _Node("static", schema)

    # -------------------------------------------------------------- FILTER (docs/semantics/cqels.md#cqels-3.6)
    def filtered(self, n: _Node, src: _Node, filters: Sequence[A.Expr]) -> None:
        x = self.xs(n.schema)
        fm = "fm_" + n.pred
        self.emit(f"{n.pred}: the mappings of {src.pred} on which every filter is true",
                  f"{_call(fm, *x)} :- {self.atom(src, '_', '_', '_')}.")
        heads = [self.expr(f, fm, x, boolean=True) for f in filters]
        self.out.append(f"{self.atom(n, 'T', 'A', 'B')} :- {self.atom(src, 'T', 'A', 'B')}, "
                        + ", ".join(_call(h, *x, "true") for h in heads) + ".")

    def value_const(self, c: Union[URIRef, Literal]) -> str:
        v = A.numeric_value(c)
        if v is not None:
            q = v * self.scale
            assert q.denominator == 1
            return f"(num,{q.numerator})"
        return f"(term,{asp_string(nt_term(c))})"

    def expr(self, e: A.Expr, fm: str, x: list[str], boolean: bool = False) -> str:
        """The predicate ``eJ(X, Value)`` of expression node ``e`` (shapes in asp/cqels.lp, FILTER)."""
        j = self.fresh("e")
        h = lambda v: _call(j, *x, v)  # noqa: E731
        dom = _call(fm, *x)
        if isinstance(e, A.Const) and boolean:
            val = "true" if str(e.term) in ("true", "1") else "false"
            self.emit(f"{j} = {nt_term(e.term)} (boolean)", f"{h(val)} :- {dom}.")
        elif isinstance(e, A.Const):
            self.emit(f"{j} = {nt_term(e.term)}", f"{h(self.value_const(e.term))} :- {dom}.")
        elif isinstance(e, A.Var):
            v = self.var[e.var]
            self.emit(f"{j} = ?{e.var}", f"{h('(num,Q)')} :- {dom}, num({v},Q).",
                      f"{h(f'(term,{v})')} :- {dom}, not num({v},_).")
        elif isinstance(e, A.UMinus):
            a = self.expr(e.expr, fm, x)
            self.emit(f"{j} = -{a}", f"{h('(num,-Q)')} :- {_call(a, *x, '(num,Q)')}.",
                      f"{h('(err,0)')} :- {_call(a, *x, '(K,_)')}, K != num.")
        elif isinstance(e, A.Arith):
            a, b = self.expr(e.left, fm, x), self.expr(e.right, fm, x)
            self.emit(f"{j} = {a} {e.op} {b}",
                      f"{h(f'(num,Q1{e.op}Q2)')} :- {_call(a, *x, '(num,Q1)')}, {_call(b, *x, '(num,Q2)')}.",
                      f"{h('(err,0)')} :- {_call(a, *x, '(K1,_)')}, {_call(b, *x, '(K2,_)')}, (K1,K2) != (num,num).")
        elif isinstance(e, A.Cmp):
            a, b = self.expr(e.left, fm, x), self.expr(e.right, fm, x)
            if e.op in ("=", "!="):
                yes, no = ("true", "false") if e.op == "=" else ("false", "true")
                self.emit(f"{j} = {a} {e.op} {b}",
                          f"{h(yes)} :- {_call(a, *x, '(K,Y)')}, {_call(b, *x, '(K,Y)')}, K != err.",
                          f"{h(no)} :- {_call(a, *x, '(K1,Y1)')}, {_call(b, *x, '(K2,Y2)')}, K1 != err, K2 != err, "
                          "(K1,Y1) != (K2,Y2).",
                          f"{h('err')} :- {_call(a, *x, '(err,_)')}, {_call(b, *x, '_')}.",
                          f"{h('err')} :- {_call(a, *x, '_')}, {_call(b, *x, '(err,_)')}.")
            else:
                neg = {"<": ">=", "<=": ">", ">": "<=", ">=": "<"}[e.op]
                self.emit(f"{j} = {a} {e.op} {b}",
                          f"{h('true')} :- {_call(a, *x, '(num,Q1)')}, {_call(b, *x, '(num,Q2)')}, Q1 {e.op} Q2.",
                          f"{h('false')} :- {_call(a, *x, '(num,Q1)')}, {_call(b, *x, '(num,Q2)')}, Q1 {neg} Q2.",
                          f"{h('err')} :- {_call(a, *x, '(K1,_)')}, {_call(b, *x, '(K2,_)')}, (K1,K2) != (num,num).")
        elif isinstance(e, (A.And, A.Or)):
            a, b = self.expr(e.left, fm, x, True), self.expr(e.right, fm, x, True)
            table = "and3" if isinstance(e, A.And) else "or3"
            self.emit(f"{j} = {a} {'&&' if table == 'and3' else '||'} {b}",
                      f"{h('V')} :- {_call(a, *x, 'V1')}, {_call(b, *x, 'V2')}, {table}(V1,V2,V).")
        elif isinstance(e, A.Not):
            a = self.expr(e.expr, fm, x, True)
            self.emit(f"{j} = !{a}", f"{h('V')} :- {_call(a, *x, 'V1')}, not3(V1,V).")
        else:
            raise TypeError(f"not an expression: {e!r}")
        return j

    # -------------------------------------------------------------- the query (docs/semantics/cqels.md#cqels-3.3 (1))
    def query(self) -> list[Variable]:
        q = self.q
        ec: Optional[_Node] = None
        for e in q.events:
            n = self.event(e)
            ec = n if ec is None else self.join(ec, n, why="event clauses (docs/semantics/cqels.md#cqels-3.3 (2))")
        schema = _sorted_vars(A.scope_vars(q))
        top = _Node("q", schema)
        src = _Node("q_all", schema) if q.filters else top
        if not q.static:
            # JOIN(ec, <{}, [0, t]>) = ec: the empty static part is the JOIN identity and [max(a, 0), min(b, t)] =
            # [a, b] (docs/semantics/cqels.md#cqels-3.5); no copy of ec is made
            assert ec is not None
            src = ec
            top = top if q.filters else ec
        if q.static:
            st = self.static()
            m = _tuple(self.xs(st.schema))
            if ec is not None:
                self.emit(f"{src.pred} = JOIN({ec.pred}, [[P, t]]_D): the static solutions of the version active at t "
                          "with the interval [F, t] (docs/semantics/cqels.md#cqels-3.5)",
                          f"{self.atom(src, 'T', 'A', 'B')} :- {self.atom(ec, 'T', 'A1', 'B1')}, active(T,V), "
                          f"static(V,{m}), slow(V,{m},F), A = (A1+F+|A1-F|)/2, B = (B1+T-|B1-T|)/2, A <= B.")
            else:
                self.emit(f"{src.pred} = JOIN(<{{}}, [0, t]>, [[P, t]]_D) = [[P, t]]_D: no event clause "
                          "(docs/semantics/cqels.md#cqels-G11)",
                          f"{self.atom(src, 'T', 'F', 'T')} :- active(T,V), static(V,{m}), slow(V,{m},F).")
        if q.filters:
            self.filtered(top, src, q.filters)
        proj = list(A.projection(q))
        self.emit("the answers: the projection on " + (", ".join("?" + str(v) for v in proj) or "no variable")
                  + " (docs/semantics/cqels.md#cqels-3.7)",
                  f"ans(T,A,B,{_tuple(self.xs(proj))}) :- {self.atom(top, 'T', 'A', 'B')}.")
        return proj


# ------------------------------------------------------------------------------------------------ facts
def _scale(query: A.Query, elements: Sequence[StreamElement], static: StaticData) -> tuple[int, dict[str, int]]:
    """The call's scale (lcm of the denominators of every numeric value it may compare) and the scaled value of
    every numeric literal of the input, by N-Triples string (only when the query has a FILTER)."""
    filters = _query_filters(query)
    if not filters:
        return 1, {}
    lits: dict[str, Fraction] = {}
    for e in elements:
        for t in e.triples():
            for x in t:
                v = A.numeric_value(x)
                if v is not None:
                    lits[nt_term(x)] = v
    for ver in static.versions:
        for t in ver.triples:
            for x in t:
                v = A.numeric_value(x)
                if v is not None:
                    lits[nt_term(x)] = v
    consts = [v for f in filters for c in _expr_consts(f) if (v := A.numeric_value(c)) is not None]
    scale = 1
    for v in list(lits.values()) + consts:
        scale = lcm(scale, v.denominator)
    width = max(_sum_operands(f) for f in filters)
    biggest = max([abs(v) * scale for v in list(lits.values()) + consts], default=0)
    if biggest * width > MAX_NUM:
        raise UnsupportedError(f"oracle: FILTER numbers need {biggest * width} (scaled by {scale}) beyond clingo's "
                               f"32-bit integers (at most {MAX_NUM}); docs/semantics/cqels.md#cqels-7")
    return scale, {k: int(v * scale) for k, v in lits.items()}


def _check_time(x: int, what: str) -> None:
    if x > MAX_TIME:
        raise UnsupportedError(f"oracle: {what} {x} is beyond the times clingo's 32-bit integers can carry here "
                               f"(at most {MAX_TIME}); docs/semantics/cqels.md#cqels-7")


def compile_program(query: A.Query, elements: Sequence[StreamElement], options: Options = Options(),
                    static: Optional[StaticData] = None, until: Optional[int] = None
                    ) -> tuple[str, list[Variable], int]:
    """The query-specific program text (facts and generated rules) to add to ``asp/cqels.lp``.

    Returns:
        ``(text, projection, H)``: the program, the projected variables in the order of ``ans/4``'s tuple, and the
        horizon.

    Raises:
        UnsupportedError: times or FILTER numbers beyond clingo's 32-bit integers (module docstring).
        ValueError: a negative ``until``, or two elements with the same position.
    """
    static = StaticData.constant(()) if static is None else static
    if until is None:
        h = default_until(query, elements, static.change_times)
    else:
        if isinstance(until, bool) or not isinstance(until, int) or until < 0:
            raise ValueError(f"until must be an integer >= 0, got {until!r}")
        h = until
    _check_time(h, "the horizon")
    streams = A.query_streams(query)
    mine = [e for e in elements if e.stream in streams]
    if len({e.position for e in mine}) != len(mine):
        raise ValueError("two elements with the same position: give each element a unique position "
                         "(streams.check_elements)")
    for e in mine:
        _check_time(e.end, "the element end")
    reach = max([w.spec.range + w.spec.slide for w in query.windows if isinstance(w.spec, A.RangeWindow)],
                default=0)
    _check_time(reach, "the window range plus slide")
    scale, nums = _scale(query, mine, static)

    facts = [f"#const h={h}.", "time(0..h)."]
    for name in ("wo_bounds", "bgp_scope", "static_interval", "arrival", "triples_unit", "now", "zero_length"):
        facts.append(f"opt({name},{getattr(options, name)}).")
    triples_streams: dict[URIRef, int] = {}
    for i, w in enumerate(query.windows):
        s = asp_string(nt_term(w.stream))
        facts.append(f"window({i},{s}).")
        sp = w.spec
        if isinstance(sp, A.RangeWindow):
            facts.append(f"range({i},{sp.range},{sp.slide}).")
        elif isinstance(sp, A.NowWindow):
            facts.append(f"now({i}).")
        elif isinstance(sp, A.AllWindow):
            facts.append(f"all({i}).")
        else:
            facts.append(f"triples({i},{sp.count}).")
            triples_streams[w.stream] = 1
    sname = {st: asp_string(nt_term(st)) for st in streams}
    for e in mine:
        facts.append(f"elem({e.position},{sname[e.stream]},{e.start},{e.end}). "
                     f"arrival({e.position},{arrival(e, options)}).")
        for k, (s, p, o) in enumerate(element_triples(e)):
            facts.append(f"triple({e.position},{k},{asp_string(nt_term(s))},{asp_string(nt_term(p))},"
                         f"{asp_string(nt_term(o))}).")
    for st in triples_streams:
        order = arrival_order([e for e in mine if e.stream == st], options)
        facts.append(f"nelems({sname[st]},{len(order)}).")
        facts.extend(f"rank({sname[st]},{e.position},{k})." for k, e in enumerate(order))
        if options.triples_unit == "triples":
            u = 0
            for e in order:
                for k in range(len(e.triples())):
                    facts.append(f"unit({sname[st]},{u},{e.position},{k}).")
                    u += 1
            facts.append(f"nunits({sname[st]},{u}).")
    vs = static.versions
    for i, v in enumerate(vs):
        if v.since > h:
            break
        last = min(vs[i + 1].since - 1, h) if i + 1 < len(vs) else h
        facts.append(f"version({i},{v.since},{last}).")
        for s, p, o in sorted(v.triples, key=lambda t: tuple(nt_term(x) for x in t)):
            facts.append(f"d({i},{asp_string(nt_term(s))},{asp_string(nt_term(p))},{asp_string(nt_term(o))}).")
    facts.extend(f"num({asp_string(k)},{v})." for k, v in sorted(nums.items()))

    comp = _Compiler(query, options, scale)
    proj = comp.query()
    text = "\n".join(["% ---------------- facts", *facts, "% ---------------- path nodes", *comp.path_lines,
                      "% ---------------- generated rules (" + "; ".join(
                          f"{comp.var[v]} = ?{v}" for v in sorted(comp.var, key=str)) + ")", *comp.out])
    return text + "\n", proj, h


# ------------------------------------------------------------------------------------------------ solving
def _decode(symbols: Iterable, names: Sequence[str]) -> frozenset[Answer]:
    # One str() per atom is the cheapest way through clingo's API; ans(T,A,B,M) has three integers first, and the
    # same projected mapping M recurs at many t, so each M is decoded from the symbol once.
    out = set()
    mappings: dict[str, tuple] = {}
    for s in symbols:
        text = str(s)
        if not text.startswith("ans("):
            continue
        t, a, b, rest = text[4:-1].split(",", 3)
        mapping = mappings.get(rest)
        if mapping is None:
            m = s.arguments[3]
            mapping = mappings[rest] = tuple(sorted(zip(names, (py_symbol(x) for x in m.arguments))))
        out.add(Answer(int(t), mapping, (int(a), int(b))))
    return frozenset(out)


def oracle(query: A.Query, elements: Sequence[StreamElement], options: Options = Options(),
           limits: Limits = Limits(), static: Optional[StaticData] = None,
           until: Optional[int] = None) -> Union[OracleResult, Undecided]:
    """The CQELS-CEP reference oracle: every answer ``<mu|V, [a, b]>`` of ``[[Q, t]]`` for every ``t`` in
    ``[0, H]``, by clingo (docs/semantics/cqels.md#cqels-7).

    Semantics: docs/semantics/cqels.md#cqels-3 exactly (windows #cqels-3.1, operators #cqels-3.2, evaluation
    #cqels-3.3, nSPARQL #cqels-3.4, static part #cqels-3.5, FILTER #cqels-3.6), under every switch of ``options``
    (``tick`` is the parser's only).

    Args:
        query: a parsed CQELS-CEP query (:func:`ceplab.semantics.cqels.parser.parse`).
        elements: the stream elements (graph or triple content, unique positions; elements of streams the query
            does not read only count for the default horizon).
        options: the semantic switches.
        limits: time and ground-size limits; exceeding them gives :class:`Undecided`.
        static: the static data ``D`` (None: the empty constant ``D``).
        until: the horizon ``H``; default :func:`ceplab.semantics.cqels.results.default_until`.

    Returns:
        ``OracleResult(frozenset[Answer], stats)``, or :class:`ceplab.asp.oracle.Undecided` if a limit was hit
        (never a partial result).

    Raises:
        UnsupportedError: times ``>= 2**30`` or FILTER numbers beyond clingo's 32-bit integers (module docstring).
        ModelError: the program does not have exactly one answer set (it is stratified: a bug if ever raised).
        ValueError: a negative ``until`` or duplicate element positions.
        ceplab.semantics.errors.OracleError: clingo failed unexpectedly (a bug).
    """
    text, proj, _ = compile_program(query, elements, options, static, until)
    names = [str(v) for v in proj]
    program = _fixed_program() + "\n" + text

    def job():
        s = Solver(["2"], limits)
        s.add(program)
        s.ground()
        models = s.solve()
        if len(models) != 1:
            return ("bad", len(models))
        return OracleResult(_decode(models[0].symbols, names), s.stats)

    out = isolated(job, limits=limits)
    if isinstance(out, tuple):
        raise ModelError(f"oracle: the CQELS-CEP program has {'no' if out[1] == 0 else 'more than one'} answer set; "
                         "it is stratified, so this is a bug in asp/cqels (docs/semantics/cqels.md#cqels-7)",
                         min(out[1], 2))
    return out
