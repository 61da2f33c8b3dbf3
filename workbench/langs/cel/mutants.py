"""Planted bugs in the CEL engine for ``ceplab bench mutants cel`` (:class:`ceplab.workbench.language.Mutant`,
:mod:`ceplab.workbench.mutants`).  Each names the rule of docs/semantics/cel.md it breaks."""
from __future__ import annotations

from ceplab.workbench.language import Mutant

MUTANTS: tuple[Mutant, ...] = (
    Mutant("window-off-by-one", "window", "cel/evaluate.py",
           "            lo = j - self.within\n",
           "            lo = j - self.within + 1\n",
           "WITHIN w keeps complex events whose first position is >= j - w + 1 instead of >= j - w "
           "(docs/semantics/cel.md#cel-3: the time window |C| bound is inclusive)",
           "A AS a ; B AS b WITHIN 1 on A B"),
    Mutant("not-dropped", "filter", "cel/determinize.py",
           "            return SNot(self.pred_expr(p.arg))\n",
           "            return self.pred_expr(p.arg)\n",
           "NOT P in a filter is read as P",
           "A AS a FILTER NOT a.v < 1 on A(v=0)"),
)


def mutants() -> tuple[Mutant, ...]:
    """The CEL engine's mutants."""
    return MUTANTS
