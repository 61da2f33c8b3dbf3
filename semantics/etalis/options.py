"""Semantic switches of ETALIS (docs/semantics/etalis.md#etalis-8; ETALIS-D defaults of section 9.3).

Only switches the clingo oracle (``asp/etalis.py``) actually implements are listed here; every field changes
answers on some input (see ``tests/test_etalis_oracle.py``).
"""
from __future__ import annotations

from dataclasses import dataclass
import re
from typing import Literal


#: The implementation's initial values of ``min``/``max`` aggregates (``aggregate_initial="sentinel"``; ETALIS
#: ``compiler.P``, the ``aggregate_goal`` inserted by the start event).
AGGREGATE_SENTINELS = {"min": 100000, "max": -100000}


@dataclass(frozen=True)
class Options:
    """Named switches for the ETALIS paper's ambiguities.

    Attributes:
        not_reading: A7, how ``not(p1).[p2,p3]`` is computed (Figure 2, docs/semantics/etalis.md#etalis-2.5 and #etalis-A7).
            ``"per_witness"`` (default, ETALIS-D 9.3): ``<s2,e3>`` is derived iff *some* delimiter pair
            ``(p2<s2,e2>, p3<s3,e3>)`` with ``e2 < s3`` has no ``p1`` with ``e2 < start`` and ``end < s3``
            (Algorithm 3.4). ``"literal"``: Figure 2 verbatim, ``I(p2 SEQ p3) \\ I(p2 SEQ p1 SEQ p3)`` on outer
            intervals, so a blocked pair hides an unblocked pair with the same hull (docs/semantics/etalis.md#etalis-T6b).
        not_local_vars: A6, variables occurring only in the negated part ``p1``.
            ``"existential"`` (default, ETALIS-D; the implementation, docs/semantics/etalis.md#etalis-T6c): they are existentially
            quantified inside the negation, any instance of ``p1`` blocks. ``"free"``: the literal
            "for every mu" reading of Figure 2 over an infinite constant domain: some value of the local
            variable never occurs, so a negation with a local variable never blocks.
        during_result: A5, the interval of ``p1 DURING p2``. ``"container"`` (default, Figure 2 and the
            hull principle of docs/semantics/etalis.md#etalis-2.6): the interval of ``p2``. ``"contained"``: the interval of ``p1``, as
            Figure 1 draws it. (With ``"contained"`` the time-stratification of docs/semantics/etalis.md#etalis-2.4 can fail; the oracle
            then reports the missing/non-unique model.)
        proper_intervals_only: A9. ``False`` (default, Figure 2 as printed): points may take part in
            EQUALS, MEETS, STARTS, FINISHES (DURING and PAR exclude them anyway under their default readings;
            ``during_bounds="inclusive"`` admits them in DURING, ``par_overlap`` is not affected). ``True``: every
            operand of DURING, STARTS, FINISHES, EQUALS and MEETS must be a proper interval (``start < end``), as
            the operational checks (16)-(21) and Allen's algebra require.
        window: A4, the meaning of ``(p).q`` (and of ``event_rule_window``). ``"at_most"`` (default;
            Figure 1 settles it): ``end - start <= q``. ``"exactly"``: the companion's printed
            ``end - start = q``.
        policy: the event consumption policy (paper section 3 "consumption policies", docs/semantics/etalis.md#etalis-3.12, #etalis-A10 to #etalis-A12).
            ``"unrestricted"`` (default): nothing is consumed; the answers are the declarative minimal
            model (Figure 2), computed by the oracle ``asp/etalis.py``. ``"chronological"`` (FIFO,
            consuming), ``"recent"`` (the paper's narrative: Snoop's recent context, the newest
            initiator is kept and not consumed) and ``"recent_lifo"`` (the paper's mechanism: LIFO,
            consuming) are operational; their normative definition is the transition system
            ETALIS-P in :mod:`ceplab.semantics.etalis.policies`, specified a second time in ASP by
            ``asp/etalis_policy.lp`` (docs/semantics/etalis.md#etalis-9.6).
        par_overlap: A23, when ``p1 PAR p2`` holds (Figure 2: "as AND, if ``max(s1,s2) < min(e1,e2)``",
            docs/semantics/etalis.md#etalis-A23).  ``"positive"`` (default, the paper): the operands share a stretch
            of positive length, so a point is never PAR anything.  ``"starts_before_end"`` (the implementation:
            ``compiler.P``, ``event2tr_transformation`` for ``parf``, "concurrency without revision": the operand
            that completes second passes ``less(T3,T2)``, its start before the stored operand's end, and nothing
            else is tested): the operand that ends later (either one on equal ends) starts strictly before the
            other ends, i.e. additionally a point ``<t,t>`` is PAR an interval ``<s,e>`` with ``s < t <= e``.
            The result is the hull in both readings.
        starts_end: A24, the end test of ``p1 STARTS p2`` (Figure 2: ``s1 = s2, e1 < e2``,
            docs/semantics/etalis.md#etalis-A24).  ``"strict"`` (default, the paper and Allen's *starts*):
            ``e1 < e2``.  ``"inclusive"`` (the implementation: ``compiler.P``, ``event2tr_transformation`` for
            ``startsf``, tests only ``equal(T1,T3)``; the stored ``p1`` completed first, so ``e1 <= e2``):
            ``e1 <= e2``, so an interval starts itself.  Result ``<s2,e2>`` in both.
        during_bounds: A25, the test of ``p1 DURING p2`` (Figure 2: ``s2 < s1 < e1 < e2``,
            docs/semantics/etalis.md#etalis-A25).  ``"strict"`` (default, the paper and Allen's *during*).
            ``"inclusive"`` (the implementation: ``compiler.P``, ``event2tr_transformation`` for ``duringf``
            without justification: ``less_eq(T3,T1)``, ``less_eq(T2,T4)``, i.e. ``less_datime`` or
            ``equal_datime``): ``s2 <= s1`` and ``e1 <= e2``, points and equal intervals included.  The result
            is chosen by ``during_result`` in both.
        finishes_start: A26, the start test of ``p1 FINISHES p2`` (Figure 2: ``e1 = e2, s2 < s1``, result
            ``<s2,e1>``, docs/semantics/etalis.md#etalis-A26).  ``"strict"`` (default, the paper).  ``"any"`` (the
            implementation: ``compiler.P``, ``event2tr_transformation`` for ``finishesf``, tests only
            ``equal(T2,T4)``, in both arrival orders): ``e1 = e2`` and the starts are not compared; the result
            is the hull ``<min(s1,s2), e1>`` (the implementation returns the interval of the operand that
            completed first, which is the hull when the longer operand completes first).
        interval_policy: A12, the paper's policy options for instances with an interval (docs/semantics/etalis.md#etalis-3.12 "On
            time intervals"): among stored instances with the same join key and the same timestamp
            (same end for ``recent``/``recent_lifo``, same start for ``chronological``) keep only one:
            ``"off"`` (default: keep all; for ``recent`` the newest), ``"longest"`` (rule (28)),
            ``"shortest"`` (rule (29)), ``"max:VAR"`` / ``"min:VAR"`` (rule (30): the greater/smaller
            value of the rule variable ``VAR``; nodes that do not bind ``VAR`` keep all). Only with a
            policy other than ``unrestricted`` (the paper: "unrestricted stays as it is").
        aggregate_initial: the value of ``min``/``max`` aggregates before any item
            (``start seq aggregate(min(X), a(X), R)``, docs/semantics/etalis.md#etalis-4.4).  The paper's pattern (22)
            starts an iteration with the start event's own value, and ``aggregate/3`` has none: ``"none"`` (default)
            gives no result at the start event for ``min``/``max`` (the minimum of nothing is undefined) and
            aggregates the items only.  ``"sentinel"``: the implementation's initial goal values (``compiler.P``,
            ``aggregate_goal(.., min, 100000)`` and ``(.., max, -100000)``) take part as a value: the start fires
            ``R = 100000`` (``-100000``), and every later result is the minimum (maximum) of the sentinel and the
            items.  ``count`` and ``sum`` start at 0 under both.
        goal_replacement: A27, what storing a new goal does to the stored goals of the same node under the consuming
            policies ``chronological`` and ``recent_lifo`` (ETALIS-P 8).  ``"keep"`` (default; the paper's rules
            (25)/(26) only ``asserta``/``assertz``): every goal stays until it is consumed.  ``"same_values"``: the
            implementation's ``etr_insf`` under its flags ``recent`` and ``chronological`` (``storage.P``:
            ``retractall`` of the goals with the same occurred/awaited/target terms, then ``asserta``/``assertz``):
            the new goal replaces the stored goals of the node with the same values (other time stamps), so a node
            keeps the newest goal per value tuple.  With ``recent_lifo`` this is the implementation's default policy
            ``recent``, with ``chronological`` its ``chronological``.  Only with those two policies and no
            ``interval_policy``; aggregate records and the negated part of ``not`` are never replaced (ETALIS stores
            them as other goals, or appends every occurrence).
    """

    not_reading: Literal["per_witness", "literal"] = "per_witness"
    not_local_vars: Literal["existential", "free"] = "existential"
    during_result: Literal["container", "contained"] = "container"
    proper_intervals_only: bool = False
    window: Literal["at_most", "exactly"] = "at_most"
    policy: Literal["unrestricted", "chronological", "recent", "recent_lifo"] = "unrestricted"
    interval_policy: str = "off"
    par_overlap: Literal["positive", "starts_before_end"] = "positive"
    starts_end: Literal["strict", "inclusive"] = "strict"
    during_bounds: Literal["strict", "inclusive"] = "strict"
    finishes_start: Literal["strict", "any"] = "strict"
    aggregate_initial: Literal["none", "sentinel"] = "none"
    goal_replacement: Literal["keep", "same_values"] = "keep"

    def __post_init__(self) -> None:
        allowed = {"not_reading": ("per_witness", "literal"), "not_local_vars": ("existential", "free"),
                   "during_result": ("container", "contained"), "proper_intervals_only": (False, True),
                   "window": ("at_most", "exactly"),
                   "policy": ("unrestricted", "chronological", "recent", "recent_lifo"),
                   "par_overlap": ("positive", "starts_before_end"), "starts_end": ("strict", "inclusive"),
                   "during_bounds": ("strict", "inclusive"), "finishes_start": ("strict", "any"),
                   "aggregate_initial": ("none", "sentinel"), "goal_replacement": ("keep", "same_values")}
        for name, vals in allowed.items():
            v = getattr(self, name)
            if v not in vals or (name == "proper_intervals_only" and not isinstance(v, bool)):
                raise ValueError(f"Options.{name} must be one of {vals}, got {v!r}")
        ip = self.interval_policy
        if not isinstance(ip, str) or not (ip in ("off", "longest", "shortest")
                                           or re.fullmatch(r"(max|min):[A-Z_][A-Za-z0-9_]*", ip)):
            raise ValueError("Options.interval_policy must be 'off', 'longest', 'shortest', 'max:VAR' or "
                             f"'min:VAR' (VAR an ETALIS variable name), got {ip!r}")
        if ip != "off" and self.policy == "unrestricted":
            raise ValueError("Options.interval_policy applies to a consumption policy; the unrestricted policy "
                             "keeps every instance (docs/semantics/etalis.md#etalis-3.12)")
        if self.goal_replacement != "keep" and (self.policy not in ("chronological", "recent_lifo")
                                                 or ip != "off"):
            raise ValueError("Options.goal_replacement='same_values' is a variant of the consuming policies "
                             "chronological and recent_lifo without an interval_policy "
                             "(docs/semantics/etalis.md#etalis-A27)")
        if self.policy != "unrestricted" and self.not_reading != "per_witness":
            raise ValueError("Options.not_reading='literal' is a reading of Figure 2; the consumption policies "
                             "are defined on Algorithm 3.4, which is per witness (docs/semantics/etalis.md#etalis-A7, #etalis-A8)")


#: Named sets of switch values (``ceplab run etalis ... --profile NAME``): each maps an :class:`Options` field to
#: the value that selects one reading for all of them at once; ``--set`` given beside a profile wins.
#:
#: ``etalis-implementation``: what the real ETALIS (github.com/sspider/etalis, ``etalis/src``) does where it departs
#: from the paper's definitions (docs/semantics/etalis.md#etalis-A10, #etalis-A27: its default consumption policy
#: ``recent`` is ceplab's ``recent_lifo`` with ``goal_replacement="same_values"``; #etalis-A23 to #etalis-A26: the relations its ``compiler.P`` checks for PAR, STARTS,
#: DURING and FINISHES; papers-check/etalis/FINDINGS.md; #etalis-4.4: the initial values of its ``min``/``max``
#: aggregates).
PROFILES: dict[str, dict[str, object]] = {
    "etalis-implementation": {"policy": "recent_lifo", "goal_replacement": "same_values",
                              "par_overlap": "starts_before_end",
                              "starts_end": "inclusive", "during_bounds": "inclusive", "finishes_start": "any",
                              "aggregate_initial": "sentinel"},
}
