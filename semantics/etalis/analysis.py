"""Static checks on ETALIS programs (run by :func:`ceplab.semantics.etalis.parser.parse`); every failure is a
:class:`~ceplab.semantics.errors.ParseError` with the line and column of the culprit.

1. Labels and properties: labels are unique; ``event_rule_property/3`` names an existing label;
   ``event_rule_window`` is a non-negative integer number of ticks.
2. Static rules (docs/semantics/etalis.md#etalis-1.2): (i) head arguments are variables or constants; (ii) safety: every variable is
   bound by a body static atom (outside arithmetic) or by an assignment ``X is E`` / ``X = E`` whose right-hand
   side is bound; bodies are Horn (no ``\\+``, no ``;``).  Event and static predicates are disjoint (docs/semantics/etalis.md#etalis-1.1).
3. Event rules (docs/semantics/etalis.md#etalis-1.4, #etalis-A6): every head variable is bound by the pattern or its ``where`` (unsafe head
   variable otherwise); every variable of a ``where`` is bound by the pattern, by a positive static atom of the
   where, or by an assignment; variables under ``\\+``/``;`` must be bound outside them; a variable bound in only
   one branch of ``or`` must not be used outside that branch (range restriction, A6); variables local to the
   negated part of ``not`` are existential inside it and bind nothing.
4. Termination (docs/semantics/etalis.md#etalis-A14): "Reject, or bound, every recursive cycle that creates new values unless each
   trip round the cycle passes a strictly progressing operator (SEQ, or NOT's delimiters). Otherwise require a
   domain guard (N ≤ Nmax)."  Implemented on the rule dependency graph (networkx): a rule *creates values*
   when its head has a function term (arithmetic or constructor) or a head variable computed by an assignment;
   an edge body-atom -> head is *progressing* when an operator on the path from the rule's root to the atom
   makes the result interval strictly contain the atom's interval: either side of ``seq``, the delimiters of
   ``not``, and (same hull argument) the inner, left operand of ``during``/``starts``/``finishes``.  Edges from
   the negated part of ``not`` carry no values and are ignored.  A value-creating rule without a guard is
   rejected when one of its non-progressing edges lies on a cycle of non-progressing positive edges.  The
   parser checks this under the paper's relations; the oracles and engines check it again under their switches
   (:func:`check_termination_under`: ``during_bounds``, ``starts_end``, ``finishes_start`` other than ``strict``
   and ``during_result="contained"`` take the inner operand's progress away).
   A rule is *guarded* when its top-level ``where`` conjuncts bound every created value by numeric constants:
   for a head term ``V + c`` / ``V - c`` (c > 0) an upper / lower bound on V suffices (docs/semantics/etalis.md's ``N ≤ Nmax``),
   otherwise every variable of the created term needs both bounds (integer data, as in the clingo oracle).
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Iterator, Mapping, Optional

import networkx as nx

from ceplab.semantics.errors import ParseError, UnsupportedError
from ceplab.semantics.etalis import ast as A

Pos = Optional[tuple[int, int]]


def _err(msg: str, file: Optional[str], pos: Pos) -> ParseError:
    if pos is None:
        return ParseError(msg, file, None, None)
    return ParseError(msg, file, pos[0], pos[1])


def key_str(k: tuple[str, int]) -> str:
    return f"{A.quote_atom(k[0])}/{k[1]}"


# ------------------------------------------------------------------------------------------------ conditions
def _cond_bind(c: A.Cond, bound: set[str], file, *, allow_or_not: bool, where: str) -> set[str]:
    """Fixpoint of the bindings of a condition given ``bound``; checks that everything ends up bound.
    Returns the new bound set."""
    bound = set(bound)
    items = list(A.conjuncts(c))
    changed = True
    while changed:
        changed = False
        for it in items:
            new: set[str] = set()
            if isinstance(it, A.StaticAtom):
                new = {v.name for a in it.args for v in A.binding_vars(a)}
            elif isinstance(it, A.Is):
                if {v.name for v in A.term_vars(it.expr)} <= bound:
                    new = {it.var.name}
            elif isinstance(it, A.Cmp) and it.op == "=":
                lv = {v.name for v in A.term_vars(it.left)}
                rv = {v.name for v in A.term_vars(it.right)}
                if isinstance(it.left, A.Var) and rv <= bound:
                    new = {it.left.name}
                elif isinstance(it.right, A.Var) and lv <= bound:
                    new = {it.right.name}
            new = {n for n in new if n != "_"} - bound
            if new:
                bound |= new
                changed = True
    for it in items:
        if isinstance(it, (A.CNot, A.COr)):
            if not allow_or_not:
                raise _err("static rules are Horn clauses: no negation (\\+) or disjunction (;) in their "
                           "bodies (docs/semantics/etalis.md#etalis-1.2)", file, _cpos(it))
            for v in A.cond_vars(it):
                if v.name not in bound or v.name == "_":
                    raise _err(f"variable {v.name} under \\+ or ; must be bound outside it ({where})",
                               file, v.pos)
        else:
            for v in A.cond_vars(it):
                if v.name == "_" and not isinstance(it, A.StaticAtom):
                    raise _err(f"anonymous variable _ in a comparison ({where})", file, v.pos)
                if v.name not in bound and v.name != "_":
                    raise _err(f"variable {v.name} is not bound ({where}; docs/semantics/etalis.md#etalis-1.4: every "
                               "variable of a where must occur in the pattern, in a static atom of the where, "
                               "or be assigned with 'is'/'=' from bound variables)", file, v.pos)
    return bound


def _cpos(c: A.Cond) -> Pos:
    for n in A.cond_items(c):
        p = getattr(n, "pos", None)
        if p is not None:
            return p
        for v in A.cond_vars(n):
            if v.pos is not None:
                return v.pos
    return None


# ------------------------------------------------------------------------------------------------ patterns
def _pattern_var_occurrences(p: A.Pattern) -> Iterator[A.Var]:
    for n in A.pattern_nodes(p):
        if isinstance(n, A.EventAtom):
            for a in n.args:
                yield from A.term_vars(a)
        elif isinstance(n, A.Where):
            yield from A.cond_vars(n.cond)
        elif isinstance(n, A.Aggregate):
            if n.arg is not None:
                yield n.arg
            yield n.result


def _bound(p: A.Pattern, rule_counts: Counter, file) -> set[str]:
    """Variables bound by pattern ``p`` (docs/semantics/etalis.md#etalis-1.4 / #etalis-A6), checking where-safety and OR range restriction."""
    if isinstance(p, A.EventAtom):
        return {v.name for a in p.args for v in A.binding_vars(a)} - {"_"}
    if isinstance(p, A.TimePoint):
        return set()
    if isinstance(p, A.Window):
        return _bound(p.pattern, rule_counts, file)
    if isinstance(p, A.Where):
        inner = _bound(p.pattern, rule_counts, file)
        return _cond_bind(p.cond, inner, file, allow_or_not=True, where="in a where")
    if isinstance(p, A.Not):
        _bound(p.negated, Counter(), file)  # checks inside; binds nothing outside (A6)
        return _bound(p.start, rule_counts, file) | _bound(p.end, rule_counts, file)
    if isinstance(p, A.Aggregate):
        return _aggregate_bound(p, rule_counts, file)
    if isinstance(p, A.Binary):
        lb = _bound(p.left, rule_counts, file)
        rb = _bound(p.right, rule_counts, file)
        if p.op != "or":
            return lb | rb
        inside = Counter(v.name for v in _pattern_var_occurrences(p))
        for name in sorted(lb ^ rb):
            if rule_counts[name] > inside[name]:
                side = "left" if name in lb else "right"
                occ = next((v for v in _pattern_var_occurrences(p) if v.name == name), None)
                raise _err(f"variable {name} is bound only in the {side} branch of 'or' but used outside it "
                           "(every 'or' branch must bind the variables used above it; docs/semantics/etalis.md#etalis-A6)",
                           file, occ.pos if occ is not None and occ.pos else p.pos)
        return lb & rb
    raise TypeError(p)


def _aggregate_bound(p: A.Aggregate, rule_counts: Counter, file) -> set[str]:
    """Variables bound by ``start seq aggregate(F, item, R)``: those of ``start`` and ``R``
    (docs/semantics/etalis.md#etalis-4.4).  Checks that ``R`` is new, that the aggregated variable is bound by the
    item, and that the item's own variables (not shared with ``start``) are used nowhere else in the rule."""
    sb = _bound(p.start, rule_counts, file)
    ib = _bound(p.item, Counter(), file)
    r = p.result.name
    if r in pattern_vars(p.start) or r in pattern_vars(p.item):
        raise _err(f"the aggregate's result variable {r} must be new: it also occurs in the pattern it aggregates or "
                   "in its start event (docs/semantics/etalis.md#etalis-4.4)", file, p.result.pos or p.pos)
    if p.arg is not None and p.arg.name not in ib:
        raise _err(f"the aggregated variable {p.arg.name} of {p.func}({p.arg.name}) must be bound by the item event "
                   f"{p.item}", file, p.arg.pos or p.pos)
    inside = Counter(v.name for v in A.term_vars(A.List(p.item.args)))
    if p.arg is not None:
        inside[p.arg.name] += 1
    for name in sorted(ib - sb):
        if rule_counts[name] > inside[name]:
            raise _err(f"variable {name} is local to the aggregate over {p.item} (the aggregate ranges over its "
                       "values), so it cannot be used outside it; share it with the start event to join on it "
                       "(docs/semantics/etalis.md#etalis-4.4)", file, p.pos)
    return sb | {r}


def _rule_var_counts(r: A.EventRule) -> Counter:
    c = Counter(v.name for a in r.head.args for v in A.term_vars(a))
    c.update(v.name for v in _pattern_var_occurrences(r.body))
    return c


def check_event_rule_safety(r: A.EventRule, file=None) -> set[str]:
    """Check docs/semantics/etalis.md#etalis-1.4 / #etalis-A6 safety of one event rule; returns the variables bound by its body."""
    bound = _bound(r.body, _rule_var_counts(r), file)
    for a in r.head.args:
        for v in A.term_vars(a):
            if v.name == "_" or v.name not in bound:
                raise _err(f"unsafe head variable {v.name}: it is not bound by the pattern or its where "
                           "(docs/semantics/etalis.md#etalis-1.4: the pattern must contain every variable of the head)",
                           file, v.pos or r.head.pos)
    return bound


# ------------------------------------------------------------------------------------------------ termination
def _edges(p: A.Pattern, progress: bool = False, negated: bool = False, via: str = "",
           progressing: Mapping[str, tuple[bool, bool]] = A.PROGRESSING
           ) -> Iterator[tuple[A.EventAtom, bool, bool, str]]:
    """(atom, progressing, negated, operator-path) for every event atom occurrence of a pattern."""
    if isinstance(p, A.EventAtom):
        yield (p, progress, negated, via)
    elif isinstance(p, (A.Where, A.Window)):
        yield from _edges(p.pattern, progress, negated, via, progressing)
    elif isinstance(p, A.Not):
        yield from _edges(p.negated, progress, True, via + "not", progressing)
        yield from _edges(p.start, True, negated, via + "not-delimiter", progressing)
        yield from _edges(p.end, True, negated, via + "not-delimiter", progressing)
    elif isinstance(p, A.Aggregate):       # as 'start seq item': both operands progress
        yield from _edges(p.start, True, negated, via + "aggregate", progressing)
        yield from _edges(p.item, True, negated, via + "aggregate", progressing)
    elif isinstance(p, A.Binary):
        lp, rp = progressing.get(p.op, (False, False))
        yield from _edges(p.left, progress or lp, negated, p.op, progressing)
        yield from _edges(p.right, progress or rp, negated, p.op, progressing)


def progressing_under(options: Any) -> dict[str, tuple[bool, bool]]:
    """:data:`ceplab.semantics.etalis.ast.PROGRESSING` under the relation switches of ``options`` (an
    :class:`ceplab.semantics.etalis.options.Options`): the inner operand of ``during``, ``starts`` and
    ``finishes`` is strictly inside the result only under the paper's strict tests.  ``during_bounds``,
    ``starts_end`` or ``finishes_start`` other than ``"strict"`` admit a result equal to the inner operand
    (docs/semantics/etalis.md#etalis-A24 to #etalis-A26), and ``during_result="contained"`` makes the
    inner operand of ``during`` the result itself (#etalis-A5); then that operand does not progress."""
    out = dict(A.PROGRESSING)
    if getattr(options, "during_bounds", "strict") != "strict" or getattr(options, "during_result",
                                                                          "container") != "container":
        out.pop("during", None)
    if getattr(options, "starts_end", "strict") != "strict":
        out.pop("starts", None)
    if getattr(options, "finishes_start", "strict") != "strict":
        out.pop("finishes", None)
    return out


def check_termination_under(prog: A.Program, options: Any) -> None:
    """The termination check of docs/semantics/etalis.md#etalis-A14 (:func:`check_termination`, run by the parser
    under the paper's relations) again under the relation switches of ``options`` (:func:`progressing_under`);
    nothing to do when they keep every operator of :data:`ceplab.semantics.etalis.ast.PROGRESSING` progressing.

    Raises:
        UnsupportedError: a recursive rule that creates values on a cycle that progresses in time only under the
            paper's relations (the message is :func:`check_termination`'s, naming the switches).
    """
    prog_ops = progressing_under(options)
    if prog_ops == A.PROGRESSING:
        return
    try:
        check_termination(prog, None, prog_ops)
    except ParseError as e:
        sets = ", ".join(f"{k}={getattr(options, k)}" for k, d in _RELAXING if getattr(options, k, d) != d)
        raise UnsupportedError(f"{e.message}; under {sets} the inner operand of that operator is not strictly "
                               "inside the result, so it does not progress", None, e.line, e.column) from None


#: The switches :func:`progressing_under` reads, with their defaults.
_RELAXING = (("during_bounds", "strict"), ("during_result", "container"), ("starts_end", "strict"),
             ("finishes_start", "strict"))


def _top_conjuncts(p: A.Pattern) -> list[A.Cond]:
    out: list[A.Cond] = []
    while isinstance(p, (A.Where, A.Window)):
        if isinstance(p, A.Where):
            out.extend(A.conjuncts(p.cond))
        p = p.pattern
    return out


def _assignments(p: A.Pattern) -> dict[str, A.Term]:
    out: dict[str, A.Term] = {}
    for n in A.pattern_nodes(p):
        if isinstance(n, A.Where):
            for c in A.conjuncts(n.cond):
                if isinstance(c, A.Is):
                    out.setdefault(c.var.name, c.expr)
                elif isinstance(c, A.Cmp) and c.op == "=":
                    if isinstance(c.left, A.Var):
                        out.setdefault(c.left.name, c.right)
                    if isinstance(c.right, A.Var):
                        out.setdefault(c.right.name, c.left)
    return out


def created_values(r: A.EventRule) -> list[tuple[A.Term, A.Term]]:
    """The value-creating head arguments of a rule, each with the term that computes it
    (the argument itself, or the assignment's right-hand side for a computed head variable)."""
    pattern_bound: set[str] = set()
    for n in A.pattern_nodes(r.body):
        if isinstance(n, A.EventAtom):
            pattern_bound |= {v.name for a in n.args for v in A.binding_vars(a)}
        elif isinstance(n, A.Where):
            for c in A.conjuncts(n.cond):
                if isinstance(c, A.StaticAtom):
                    pattern_bound |= {v.name for a in c.args for v in A.binding_vars(a)}
    assigned = _assignments(r.body)
    out = []
    for a in r.head.args:
        if isinstance(a, (A.Compound, A.List)):
            out.append((a, a))
        else:
            for v in A.term_vars(a):
                if v.name not in pattern_bound and v.name in assigned:
                    rhs = assigned[v.name]
                    if isinstance(rhs, (A.Compound, A.List)):
                        out.append((v, rhs))
    return out


def _bounds(conjs: list[A.Cond]) -> tuple[set[str], set[str]]:
    """(variables with a numeric upper bound, variables with a numeric lower bound) among the conjuncts."""
    upper: set[str] = set()
    lower: set[str] = set()
    flip = {"<": ">", "=<": ">=", ">": "<", ">=": "=<"}
    for c in conjs:
        if not isinstance(c, A.Cmp):
            continue
        op, l, r = c.op, c.left, c.right
        if isinstance(l, A.Num) and isinstance(r, A.Var):
            op, l, r = flip.get(op, op), r, l
        if not (isinstance(l, A.Var) and isinstance(r, A.Num)):
            continue
        if op in ("<", "=<", "=:=", "==", "="):
            upper.add(l.name)
        if op in (">", ">=", "=:=", "==", "="):
            lower.add(l.name)
    return upper, lower


def is_guarded(r: A.EventRule) -> bool:
    """Whether every created value of ``r`` is bounded by its top-level where (see module docstring)."""
    upper, lower = _bounds(_top_conjuncts(r.body))
    for out, expr in created_values(r):
        if isinstance(out, A.Var) and out.name in upper and out.name in lower:
            continue
        if (isinstance(expr, A.Compound) and expr.functor in ("+", "-") and len(expr.args) == 2
                and isinstance(expr.args[0], A.Var) and isinstance(expr.args[1], A.Num)
                and expr.args[1].value > 0):
            need = upper if expr.functor == "+" else lower
            if expr.args[0].name in need or (isinstance(out, A.Var) and out.name in need):
                continue
        vs = {v.name for v in A.term_vars(expr)}
        if vs and all(v in upper and v in lower for v in vs):
            continue
        return False
    return True


def dependency_graph(prog: A.Program,
                     progressing: Mapping[str, tuple[bool, bool]] = A.PROGRESSING) -> nx.MultiDiGraph:
    """Rule dependency graph: nodes are event predicates ``(name, arity)``; one edge body-atom -> head per
    atom occurrence, with attributes ``rule`` (index in ``prog.event_rules``), ``progressing`` (by the operators
    of ``progressing``, default the paper's), ``negated``, ``op`` (the operator directly above the atom) and
    ``atom``."""
    g = nx.MultiDiGraph()
    for i, r in enumerate(prog.event_rules):
        g.add_node(r.head.key)
        for atom, prog_, neg, op in _edges(r.body, progressing=progressing):
            g.add_edge(atom.key, r.head.key, rule=i, progressing=prog_, negated=neg, op=op or "-",
                       atom=atom)
    return g


def recursive_predicates(prog: A.Program) -> set[tuple[str, int]]:
    """Event predicates on a cycle of the dependency graph."""
    g = dependency_graph(prog)
    out: set[tuple[str, int]] = set()
    for comp in nx.strongly_connected_components(g):
        if len(comp) > 1 or any(g.has_edge(n, n) for n in comp):
            out |= comp
    return out


def check_termination(prog: A.Program, file=None,
                      progressing: Mapping[str, tuple[bool, bool]] = A.PROGRESSING) -> None:
    """docs/semantics/etalis.md#etalis-A14 (see module docstring); raises ParseError explaining the offending cycle.
    ``progressing``: the operators whose operands progress (default the paper's, :func:`progressing_under`)."""
    rules = prog.event_rules
    g = dependency_graph(prog, progressing)
    flat = nx.DiGraph()
    flat.add_nodes_from(g.nodes)
    for u, v, d in g.edges(data=True):
        if not d["progressing"] and not d["negated"]:
            flat.add_edge(u, v, rule=d["rule"], op=d["op"])
    for i, r in enumerate(rules):
        created = created_values(r)
        if not created or is_guarded(r):
            continue
        for u, v, d in g.in_edges(r.head.key, data=True):
            if d["rule"] != i or d["progressing"] or d["negated"]:
                continue
            if not nx.has_path(flat, r.head.key, u):
                continue
            path = nx.shortest_path(flat, r.head.key, u)
            steps = []
            for a, b in zip(path, path[1:]):
                e = flat.edges[a, b]
                rr = rules[e["rule"]]
                steps.append(f"{key_str(a)} -> {key_str(b)} ('{e['op']}', rule at line "
                             f"{rr.pos[0] if rr.pos else '?'})")
            steps.append(f"{key_str(u)} -> {key_str(r.head.key)} ('{d['op']}', this rule)")
            term = created[0][0]
            raise _err(
                f"recursive rule can create unboundedly many values: head argument {term} is computed on "
                f"the cycle {'; '.join(steps)}, which passes no strictly progressing operator (seq, the "
                "delimiters of not(..).[..], or the inner operand of during/starts/finishes); make the cycle "
                "progress in time or add a domain guard such as 'where N =< 100' (docs/semantics/etalis.md#etalis-A14)",
                file, getattr(term, "pos", None) or r.head.pos or r.pos)


# ------------------------------------------------------------------------------------------------ program
def check_static_rule(s: A.StaticRule, file=None) -> None:
    for a in s.head.args:
        if not isinstance(a, (A.Var, A.Sym, A.Num, A.Str)):
            raise _err(f"static rule head argument {a} must be a variable or a constant (no function "
                       "terms in static heads; docs/semantics/etalis.md#etalis-1.2 (i))", file,
                       getattr(a, "pos", None) or s.head.pos)
    hv = [v for a in s.head.args for v in A.term_vars(a)]
    if s.body is None:
        if hv:
            raise _err(f"variable {hv[0].name} in a fact: facts must be ground (docs/semantics/etalis.md#etalis-1.2 (ii))",
                       file, hv[0].pos or s.pos)
        return
    bound = _cond_bind(s.body, set(), file, allow_or_not=False, where="in a static rule body")
    for v in hv:
        if v.name not in bound or v.name == "_":
            raise _err(f"unsafe variable {v.name} in a static rule head: it must occur in the body outside "
                       "any function application (docs/semantics/etalis.md#etalis-1.2 (ii))", file, v.pos or s.pos)


def check_program(prog: A.Program, file: Optional[str] = None) -> None:
    """Run every check of this module on ``prog`` (see the module docstring)."""
    labels: dict[str, A.EventRule] = {}
    for r in prog.event_rules:
        if r.label is not None:
            if r.label in labels:
                raise _err(f"duplicate rule label {r.label!r}", file, r.pos)
            labels[r.label] = r
        for p in r.properties:
            _check_property(p.name, p.value, file, r.pos)
    for s in prog.statements:
        if isinstance(s, A.RuleProperty):
            if s.label not in labels:
                raise _err(f"event_rule_property names an unknown rule label {s.label!r}", file, s.pos)
            _check_property(s.name, s.value, file, s.pos)
    static_heads = {s.head.key: s for s in prog.static_rules}
    for r in prog.event_rules:
        for atom in [r.head, *A.event_atoms(r.body)]:
            if atom.key in static_heads:
                raise _err(f"{key_str(atom.key)} is used as an event but defined by a static rule at line "
                           f"{static_heads[atom.key].pos[0] if static_heads[atom.key].pos else '?'} (event "
                           "and static predicates are disjoint; docs/semantics/etalis.md#etalis-1.1)", file, atom.pos or r.pos)
    for s in prog.static_rules:
        check_static_rule(s, file)
    check_static_defined(prog, file)
    for r in prog.event_rules:
        check_event_rule_safety(r, file)
    check_termination(prog, file)
    check_aggregate_strata(prog, file)


def _positive_atoms(c: A.Cond) -> Iterator[A.StaticAtom]:
    """The static atoms of ``c`` that occur positively (not under ``\\+``)."""
    if isinstance(c, A.StaticAtom):
        yield c
    elif isinstance(c, (A.CAnd, A.COr)):
        for i in c.items:
            yield from _positive_atoms(i)


def check_static_defined(prog: A.Program, file: Optional[str] = None) -> None:
    """A static atom that occurs positively in a ``where`` (or a ``prolog(Goal)``, read as one) or in a static rule
    body must name a predicate the rule base defines (a static fact or rule): otherwise the condition is never true
    and the pattern can never match, which is an error, not an empty answer (the implementation would call a Prolog
    predicate such as ``write/1``; user Prolog is outside the paper's language, docs/semantics/etalis.md#etalis-1.2).

    Raises:
        ParseError: naming the atom's line and column.
    """
    defined = {s.head.key for s in prog.static_rules}
    conds: list[A.Cond] = [s.body for s in prog.static_rules if s.body is not None]
    for r in prog.event_rules:
        conds.extend(n.cond for n in A.pattern_nodes(r.body) if isinstance(n, A.Where))
    for c in conds:
        for a in _positive_atoms(c):
            if a.key not in defined:
                raise _err(f"static predicate {key_str(a.key)} is not defined by a fact or static rule of the rule base, "
                           "so this condition is never true and the pattern can never match (Prolog predicates of "
                           "the implementation are outside the paper's language; docs/semantics/etalis.md#etalis-1.2)",
                           file, a.pos)


def check_aggregate_strata(prog: A.Program, file: Optional[str] = None) -> None:
    """No recursion through an aggregate (docs/semantics/etalis.md#etalis-4.4): the item event of
    ``start seq aggregate(F, item, R)`` must not depend on the rule's own head in the dependency graph, since the
    aggregate would then range over instances it derives itself (no unique minimal model; the oracle's clingo
    aggregates must be stratified).  The start event may be recursive (the paper's iterations are).

    Raises:
        ParseError: naming the aggregate's line and column.
    """
    g = None
    for r in prog.event_rules:
        for n in A.pattern_nodes(r.body):
            if not isinstance(n, A.Aggregate):
                continue
            if g is None:
                g = dependency_graph(prog)
            if n.item.key == r.head.key or nx.has_path(g, r.head.key, n.item.key):
                raise _err(f"recursion through an aggregate: the aggregated event {key_str(n.item.key)} depends on "
                           f"the rule's own head {key_str(r.head.key)}, so the aggregate would count instances it "
                           "derives itself (no unique minimal model; docs/semantics/etalis.md#etalis-4.4)",
                           file, n.pos or r.pos)


def _check_property(name: str, value: A.Term, file, pos: Pos) -> None:
    if name == "event_rule_window":
        if not (isinstance(value, A.Num) and isinstance(value.value, int) and value.value >= 0):
            raise _err(f"event_rule_window must be a non-negative integer number of ticks, got {value}",
                       file, pos)


# ---------------------------------------------------------------- variables shared by oracle and engine
def _cond_bound_vars(c: A.Cond) -> set[str]:
    """Variables a condition binds (outside \\+ and ;); the parser checked that all of them end up bound."""
    out: set[str] = set()
    for it in A.conjuncts(c):
        if isinstance(it, (A.StaticAtom, A.Is, A.Cmp)):
            out |= {v.name for v in A.cond_vars(it)}
    return out - {"_"}


def visible_vars(p: A.Pattern) -> set[str]:
    """Variables visible at pattern node ``p`` (docs/semantics/etalis.md#etalis-9.2 V_n): what the node's instances carry. OR keeps
    the variables bound on both sides; negation exposes only its delimiters' variables."""
    if isinstance(p, A.EventAtom):
        return {v.name for a in p.args for v in A.binding_vars(a)} - {"_"}
    if isinstance(p, A.TimePoint):
        return set()
    if isinstance(p, A.Window):
        return visible_vars(p.pattern)
    if isinstance(p, A.Where):
        return visible_vars(p.pattern) | _cond_bound_vars(p.cond)
    if isinstance(p, A.Not):
        return visible_vars(p.start) | visible_vars(p.end)
    if isinstance(p, A.Binary):
        lb, rb = visible_vars(p.left), visible_vars(p.right)
        return lb & rb if p.op == "or" else lb | rb
    if isinstance(p, A.Aggregate):
        return visible_vars(p.start) | {p.result.name}
    raise TypeError(p)


def pattern_vars(p: A.Pattern) -> set[str]:
    """Every variable mentioned in pattern ``p`` (event atom arguments and where-conditions)."""
    out: set[str] = set()
    for n in A.pattern_nodes(p):
        if isinstance(n, A.EventAtom):
            out |= {v.name for a in n.args for v in A.term_vars(a)}
        elif isinstance(n, A.Where):
            out |= {v.name for v in A.cond_vars(n.cond)}
        elif isinstance(n, A.Aggregate):
            out.add(n.result.name)
    return out - {"_"}
