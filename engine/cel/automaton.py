"""Complex event automata (paper section 6; docs/semantics/cel.md#cel-5.1).

A CEA is ``(Q, Delta, I, F)`` with ``Delta ⊆ Q x P1 x {•, ◦} x Q``: a transition reads one event
that satisfies its label and either marks it (• : the position joins the complex event) or skips it
(◦). A run is accepting when it ends in F **and its last transition marks**.

Project extension for binary filters (outside the paper's automata): a transition's label may
compare the current event with *registers*, the attribute values of earlier events stored by
``store`` when a variable's atom marks them. Runs then carry register contents; a CEA without
registers is exactly the paper's.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from ceplab.semantics.cel.ast import Cmp, Cmp2, PAnd, PFalse, PNot, POr, Pred, PTrue
from ceplab.semantics.cel.predicates import _MISSING, compare, holds_cmp


@dataclass(frozen=True)
class Label:
    """A transition label: a unary predicate on the current event, optionally with registers.

    Attributes:
        rel: the required event type, or None for TRUE (any event).
        pred: predicate over ``var`` (the current event) and register variables; ``PTrue()`` if
            the label is only a type test.
        var: the variable the current event is bound to (the atom's variable), or None.
    """

    rel: str | None = None
    pred: Pred = field(default_factory=PTrue)
    var: str | None = None

    @property
    def is_true(self) -> bool:
        return self.rel is None and isinstance(self.pred, PTrue)

    def register_refs(self) -> frozenset[tuple[str, str]]:
        """(variable, attribute) pairs this label reads from registers."""
        out: set[tuple[str, str]] = set()

        def walk(p: Pred) -> None:
            if isinstance(p, Cmp) and p.var != self.var:
                out.add((p.var, p.attr))
            elif isinstance(p, Cmp2):
                if p.var != self.var:
                    out.add((p.var, p.attr))
                if p.var2 != self.var:
                    out.add((p.var2, p.attr2))
            elif isinstance(p, (PAnd, POr)):
                walk(p.left)
                walk(p.right)
            elif isinstance(p, PNot):
                walk(p.arg)

        walk(self.pred)
        return frozenset(out)

    def __str__(self) -> str:
        parts = []
        if self.rel is not None:
            parts.append(f"type={self.rel}")
        if not isinstance(self.pred, PTrue):
            parts.append(str(self.pred))
        return " ∧ ".join(parts) if parts else "TRUE"


@dataclass(frozen=True)
class Transition:
    """``(src, label, mark, dst)``; ``mark`` True is • (mark), False is ◦ (skip).

    ``store``: EXTENSION for binary filters: when this marking transition fires, store the
    current event's attribute values needed later under this variable name.
    """

    src: int
    label: Label
    mark: bool
    dst: int
    store: str | None = None


@dataclass
class CEA:
    """A complex event automaton with a single initial state.

    Attributes:
        n_states: states are ``0 .. n_states-1``.
        initial: the initial state.
        finals: the accepting states.
        transitions: the transition relation.
        registers: EXTENSION: variable -> tuple of attribute names kept in its register, in a
            fixed order (empty for the paper's unary automata).
    """

    n_states: int
    initial: int
    finals: frozenset[int]
    transitions: list[Transition]
    registers: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def out(self, q: int) -> list[Transition]:
        """Transitions leaving ``q``."""
        return [t for t in self.transitions if t.src == q]

    def labels(self) -> list[Label]:
        """Distinct labels, in first-use order."""
        seen: dict[Label, None] = {}
        for t in self.transitions:
            seen.setdefault(t.label, None)
        return list(seen)

    def size(self) -> int:
        """``|A|``: states plus transitions."""
        return self.n_states + len(self.transitions)

    def to_networkx(self):
        """A ``networkx.MultiDiGraph``: nodes carry ``initial``/``final``; edges carry ``label``
        (str), ``mark`` ('•' or '◦') and ``store``."""
        import networkx as nx
        g = nx.MultiDiGraph()
        for q in range(self.n_states):
            g.add_node(q, initial=(q == self.initial), final=(q in self.finals))
        for t in self.transitions:
            g.add_edge(t.src, t.dst, label=str(t.label), mark="•" if t.mark else "◦", store=t.store)
        return g

    def draw(self, ax=None):
        """Draw the automaton with matplotlib (finals double-circled, initial in green)."""
        import matplotlib.pyplot as plt
        import networkx as nx
        g = self.to_networkx()
        if ax is None:
            _, ax = plt.subplots(figsize=(8, 5))
        try:
            pos = nx.kamada_kawai_layout(g)
        except Exception:
            pos = nx.spring_layout(g, seed=1)
        colors = ["#8fd18f" if q == self.initial else ("#f4c06a" if q in self.finals else "#cfd8e3")
                  for q in g.nodes]
        nx.draw_networkx_nodes(g, pos, ax=ax, node_color=colors, node_size=700,
                               linewidths=[3 if q in self.finals else 1 for q in g.nodes],
                               edgecolors="black")
        nx.draw_networkx_labels(g, pos, ax=ax)
        labels: dict[tuple[int, int], list[str]] = {}
        for u, v, d in g.edges(data=True):
            labels.setdefault((u, v), []).append(f"{d['label']} | {d['mark']}")
        nx.draw_networkx_edges(g, pos, ax=ax, connectionstyle="arc3,rad=0.15", arrows=True,
                               node_size=700)
        nx.draw_networkx_edge_labels(g, pos, ax=ax, edge_labels={k: "\n".join(v)
                                                                  for k, v in labels.items()},
                                     font_size=7, connectionstyle="arc3,rad=0.15")
        ax.set_axis_off()
        return ax


def guard(label: Label, registers: Mapping[str, tuple[str, ...]]) -> Callable[[Any, Mapping], bool]:
    """Compile a label to ``f(event, regs) -> bool``; ``regs`` maps a variable to the tuple of its
    stored attribute values (layout ``registers[var]``). Comparison semantics is
    :func:`ceplab.semantics.cel.predicates.compare` (docs/semantics/cel.md#cel-G6)."""
    cur = label.var

    def val(var: str, attr: str):
        if var == cur:
            return lambda e, r: e.attrs.get(attr, _MISSING)
        idx = registers[var].index(attr)
        return lambda e, r: r[var][idx] if var in r else _MISSING

    def comp(p: Pred):
        if isinstance(p, PTrue):
            return lambda e, r: True
        if isinstance(p, PFalse):
            return lambda e, r: False
        if isinstance(p, Cmp):
            if p.var == cur:
                return lambda e, r, p=p: holds_cmp(p, e)
            f = val(p.var, p.attr)
            return lambda e, r, f=f, p=p: compare(f(e, r), p.op, p.value)
        if isinstance(p, Cmp2):
            f1, f2 = val(p.var, p.attr), val(p.var2, p.attr2)
            return lambda e, r, f1=f1, f2=f2, op=p.op: compare(f1(e, r), op, f2(e, r))
        if isinstance(p, PAnd):
            a, b = comp(p.left), comp(p.right)
            return lambda e, r: a(e, r) and b(e, r)
        if isinstance(p, POr):
            a, b = comp(p.left), comp(p.right)
            return lambda e, r: a(e, r) or b(e, r)
        if isinstance(p, PNot):
            a = comp(p.arg)
            return lambda e, r: not a(e, r)
        raise TypeError(p)

    body = comp(label.pred)
    rel = label.rel
    if rel is None:
        return body
    return lambda e, r: e.type == rel and body(e, r)
