"""The ETALIS rule front end: binarization of event rules into pattern nodes (docs/semantics/etalis.md#etalis-3.1, #etalis-9.2).

This is part of what an ETALIS program *means* to ceplab, shared by the reference oracles
(``asp/etalis.py``, ``asp/etalis_policy.py``) and the incremental engines (``engine/etalis/``); each side
computes on the nodes in its own way.  Source: Anicic, Rudolph, Fodor, Stojanovic, "Stream reasoning and
complex event processing in ETALIS", Semantic Web 3(4), 2012, section 3 ("binarization": every complex
pattern is split into binary sub-patterns, each one a goal that waits for its sibling).

Nodes (ETALIS-P section 1, :mod:`ceplab.semantics.etalis.policies`): every event rule, after folding
``event_rule_window`` in as ``(body).w`` (:meth:`~ceplab.semantics.etalis.ast.Program.effective_body`), is one
node per sub-pattern.  Ids are assigned in pre-order over the rules in program order; a node precedes its
children; the children of a binary operator are ``left``, ``right``; those of ``not(p1).[p2,p3]`` are ``start``
(p2), ``end`` (p3), ``negated`` (p1); those of ``start seq aggregate(F, item, R)`` are ``start``, ``item``;
``(p).q`` and ``p where c`` have one child (``only``).  ``names`` is the
sorted tuple of the variables visible at the node (:func:`~ceplab.semantics.etalis.analysis.visible_vars`);
``window`` is the smallest window length on the path from the node (inclusive) up to its rule's root.

The front end also rejects, for both sides alike, the two constructs ceplab gives no meaning to
(:class:`ceplab.semantics.errors.UnsupportedError`):

* an arithmetic term inside an event-atom pattern (bind a variable and compare in ``where``);
* a variable of the negated part of ``not(p1).[p2,p3]`` that is bound neither by the delimiters nor local to
  ``p1`` but also occurs elsewhere in the rule (docs/semantics/etalis.md#etalis-A6: the reading of such a variable is open).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from ceplab.semantics.errors import UnsupportedError
from ceplab.semantics.etalis import ast as A
from ceplab.semantics.etalis.analysis import pattern_vars, visible_vars

__all__ = ["Node", "binarize", "binarize_rule", "check_aggregates", "has_arith", "negation_clash", "vars_outside", "walk"]


@dataclass(eq=False)
class Node:
    """One binarized sub-pattern of an event rule.

    Attributes:
        id: pre-order id, unique over the whole program (ETALIS-P section 1).
        pattern: the sub-pattern (:data:`ceplab.semantics.etalis.ast.Pattern`).
        rule: index of the event rule in ``program.event_rules``.
        names: sorted names of the variables visible at the node (``V_n``, docs/semantics/etalis.md#etalis-9.2).
        role: ``"root"``, ``"only"`` (child of a window/where), ``"left"``, ``"right"``, ``"start"``, ``"end"``
            or ``"negated"`` (children of ``not``), ``"start"`` or ``"item"`` (children of an aggregate).
        window: ``q(n)``: the smallest window length on the path from the node (inclusive) to the root, or None.
        parent: the parent node (None at the root).
        children: the child nodes, in the order of ``role`` above.
    """
    id: int
    pattern: A.Pattern
    rule: int
    names: tuple[str, ...]
    role: str = "root"
    window: Optional[int] = None
    parent: Optional["Node"] = None
    children: list["Node"] = field(default_factory=list)

    @property
    def kind(self) -> str:
        """The operator of a binary node (``"seq"``, ``"and"``, ...), else the pattern class name
        (``"EventAtom"``, ``"TimePoint"``, ``"Window"``, ``"Where"``, ``"Not"``, ``"Aggregate"``)."""
        return self.pattern.op if isinstance(self.pattern, A.Binary) else type(self.pattern).__name__


def has_arith(t: A.Term) -> bool:
    """Whether term ``t`` (:data:`ceplab.semantics.etalis.ast.Term`) contains an arithmetic compound."""
    if isinstance(t, A.Compound):
        return t.is_arithmetic or any(has_arith(a) for a in t.args)
    if isinstance(t, A.List):
        return any(has_arith(a) for a in t.items)
    return False


def vars_outside(p: A.Pattern, skip: A.Pattern) -> set[str]:
    """Names of the variables of pattern ``p`` outside its subtree ``skip`` (compared by identity);
    ``_`` excluded."""
    if p is skip:
        return set()
    out: set[str] = set()
    if isinstance(p, A.EventAtom):
        out = {v.name for a in p.args for v in A.term_vars(a)}
    elif isinstance(p, A.Where):
        out = {v.name for v in A.cond_vars(p.cond)} | vars_outside(p.pattern, skip)
    elif isinstance(p, A.Window):
        out = vars_outside(p.pattern, skip)
    elif isinstance(p, A.Binary):
        out = vars_outside(p.left, skip) | vars_outside(p.right, skip)
    elif isinstance(p, A.Not):
        out = vars_outside(p.negated, skip) | vars_outside(p.start, skip) | vars_outside(p.end, skip)
    elif isinstance(p, A.Aggregate):
        out = vars_outside(p.start, skip) | vars_outside(p.item, skip) | {p.result.name}
        if p.arg is not None:
            out.add(p.arg.name)
    return out - {"_"}


def negation_clash(program: A.Program, rule: A.EventRule, p: A.Not) -> list[str]:
    """Sorted names of the variables of the negated part of ``p`` (a ``not`` node of ``rule``'s effective
    body) that are not visible at ``p`` (not bound by its delimiters) yet occur elsewhere in ``rule`` (head or
    body outside ``p.negated``): the variables the front end rejects (docs/semantics/etalis.md#etalis-A6)."""
    local = pattern_vars(p.negated) - visible_vars(p)
    outside = {v.name for a in rule.head.args for v in A.term_vars(a)}
    outside |= vars_outside(program.effective_body(rule), p.negated)
    return sorted(local & outside)


def binarize_rule(program: A.Program, index: int, first_id: int = 0) -> Node:
    """The node tree of event rule ``program.event_rules[index]`` with ids from ``first_id`` on.

    Raises:
        UnsupportedError: arithmetic inside an event-atom pattern, or a negated-part variable clash (module
            docstring).
        TypeError: an unknown pattern class.
    """
    rule = program.event_rules[index]
    counter = [first_id]

    def build(p: A.Pattern, parent: Optional[Node], role: str, q: Optional[int]) -> Node:
        if isinstance(p, A.Window):
            q = int(p.length) if q is None else min(q, int(p.length))
        n = Node(counter[0], p, index, tuple(sorted(visible_vars(p))), role, q, parent)
        counter[0] += 1
        if isinstance(p, A.EventAtom):
            for a in p.args:
                if has_arith(a):
                    raise UnsupportedError(
                        f"arithmetic term {a} inside the event pattern {p} is not supported by ceplab's ETALIS "
                        "evaluators (oracle and engine); bind a variable and compare in 'where'",
                        None, *(p.pos or (None, None)))
        elif isinstance(p, A.TimePoint):
            pass
        elif isinstance(p, (A.Window, A.Where)):
            n.children = [build(p.pattern, n, "only", q)]
        elif isinstance(p, A.Binary):
            left = build(p.left, n, "left", q)
            n.children = [left, build(p.right, n, "right", q)]
        elif isinstance(p, A.Aggregate):
            start = build(p.start, n, "start", q)
            n.children = [start, build(p.item, n, "item", q)]
        elif isinstance(p, A.Not):
            clash = negation_clash(program, rule, p)
            if clash:
                raise UnsupportedError(
                    f"variable {clash[0]} of the negated part of {p} also occurs outside the negation but not "
                    "in its delimiters; ceplab's ETALIS evaluators only support negated parts whose variables "
                    "are bound by the delimiters or local to the negation (docs/semantics/etalis.md#etalis-A6)",
                    None, *(rule.pos or (None, None)))
            a = build(p.start, n, "start", q)
            b = build(p.end, n, "end", q)
            n.children = [a, b, build(p.negated, n, "negated", q)]
        else:
            raise TypeError(p)
        return n

    return build(program.effective_body(rule), None, "root", None)


def binarize(program: A.Program) -> list[Node]:
    """The root node of every event rule of ``program`` (in program order), ids in pre-order over the
    whole program (ETALIS-P section 1).

    Args:
        program: a parsed, checked :class:`ceplab.semantics.etalis.ast.Program`.

    Returns:
        One :class:`Node` tree per event rule; the ids of rule ``i`` follow those of rule ``i-1``.

    Raises:
        UnsupportedError: see :func:`binarize_rule`.
    """
    roots: list[Node] = []
    next_id = 0
    for i in range(len(program.event_rules)):
        root = binarize_rule(program, i, next_id)
        roots.append(root)
        next_id += sum(1 for _ in walk(root))
    return roots


def check_aggregates(program: A.Program, options) -> None:
    """Refuse, for the oracles and the engines alike, the switch values under which ceplab gives aggregates
    (``start seq aggregate(F, item, R)``, docs/semantics/etalis.md#etalis-4.4) no meaning.  Aggregates are defined
    under every policy: ``unrestricted`` by #etalis-4.4, the consumption policies by ETALIS-P section 7b
    (:mod:`ceplab.semantics.etalis.policies`).

    Args:
        program: a parsed :class:`ceplab.semantics.etalis.ast.Program`.
        options: its :class:`ceplab.semantics.etalis.options.Options`.

    Raises:
        UnsupportedError: the program has an aggregate and ``options.during_result`` is ``"contained"`` (contained
            DURING instances end before the clock, so an item could arrive after the items that end later).
    """
    agg = next((n for r in program.event_rules for n in A.pattern_nodes(program.effective_body(r))
                if isinstance(n, A.Aggregate)), None)
    if agg is None:
        return
    if options.during_result == "contained":
        raise UnsupportedError(
            "aggregates with during_result='contained' are not supported (a contained DURING derives instances that "
            "end before the clock; docs/semantics/etalis.md#etalis-4.4)", None, *(agg.pos or (None, None)))


def walk(n: Node):
    """The nodes of the tree under ``n`` (inclusive), in pre-order (= ascending id)."""
    yield n
    for c in n.children:
        yield from walk(c)
