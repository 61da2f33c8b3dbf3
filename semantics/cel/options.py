"""Semantic switches of CEL (docs/semantics/cel.md#cel-9), plus one engine option.

Every semantic switch is honoured by oracle and engine. ``engine_path`` is an *engine option*, not a
semantic switch: it picks how the engine computes, never what; the oracle ignores it and results
must be identical under both values.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class Options:
    """Named switches for the CEL paper's ambiguities.

    Attributes:
        max_scope: G4, the comparison scope of ``MAX`` (paper section 4; its formula was lost).
            ``"same_end"`` (default): C is kept if no C' in [[phi]](S) with ``max C' = max C`` has
            ``C ⊊ C'``; this is what the paper's MAX automaton and algorithm compute, and it is
            streamable. ``"global"``: C is kept if no C' in [[phi]](S) at all has ``C ⊊ C'``; not
            streamable (a later event can dominate an earlier output), so the engine holds these
            results back until the end of the stream (``close()``).
        nxt_output: G13, how NXT/LAST pick the output among final states (paper section 7.3,
            Algorithms 5/6). ``"marked"`` (default): best run whose last transition is a marking
            one into a final state. ``"top_ranked"``: the paper's rule, the top-ranked final state.
            The two coincide on every automaton the compiler produces (final states are entered
            only by marking transitions, docs/semantics/cel.md#cel-G14); the switch exists so that hand-built automata
            can be studied. The oracle implements the definition, so it is unaffected.
        nested_strategies: G5, selection strategies below the top level (``A AS x ; NXT(psi)``;
            the paper defines ``SEL(phi)`` only relative to ``[[phi]](S)``). ``"reject"``
            (default): a nested strategy is an error (``ParseError`` naming this switch), raised
            by the parser and by every evaluation entry point. ``"compositional"``: docs/semantics/cel.md's
            compositional CEA reading. ``SEL(psi)`` (optionally ``SEL(psi WITHIN n)``) is *closed*:
            psi's filters may not mention variables defined outside it, and psi's variables are
            local (invisible outside; an outer FILTER may not mention them, an outer atom may
            reuse the name for a different variable). Its denotation does not depend on the
            valuation: ``C in [[SEL psi]](S, nu)`` iff ``C in SEL([[psi]](S))``, with the strategy
            applied per end position (MAX always compares CEs with the same ``max C``, whatever
            ``max_scope`` says: that switch governs the top-level MAX only). The outer operators
            then use these complex events like any other sub-formula's.
        engine_path: ENGINE OPTION (not a semantic switch; the oracle ignores it and the results
            are identical). How the engine runs ALL and STRICT (paper Algorithm 1 on the
            determinized CEA, Algorithms 4 and 8). ``"generated"`` (default): the fast path,
            :class:`ceplab.engine.cel.evaluate.DetEvaluator`, which caches step plans on
            meta-states and compiles them to Python code. ``"interpreted"``: the reference reading,
            :class:`ceplab.engine.cel.interpret.InterpretedEvaluator`, a plain loop over the same
            determinized automaton with the same ECS operations and no code generation. NXT, LAST
            and MAX never generate code, so both values run the same evaluator for them (its
            ``path`` says so). Select it on the command line with ``--set
            engine_path=interpreted``.
    """

    max_scope: Literal["same_end", "global"] = "same_end"
    nxt_output: Literal["marked", "top_ranked"] = "marked"
    nested_strategies: Literal["reject", "compositional"] = "reject"
    engine_path: Literal["generated", "interpreted"] = "generated"
