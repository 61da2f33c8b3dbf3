"""Semantic switches of CEL (note cel.md section 9). Every field is honoured by oracle and engine."""
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
            only by marking transitions, note G14); the switch exists so that hand-built automata
            can be studied. The oracle implements the definition, so it is unaffected.
    """

    max_scope: Literal["same_end", "global"] = "same_end"
    nxt_output: Literal["marked", "top_ranked"] = "marked"
