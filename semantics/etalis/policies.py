"""ETALIS-P: the normative definition of the event consumption policies (paper section 3.5 "Consumption
policies"; docs/semantics/etalis.md#etalis-3.12, #etalis-A10 to #etalis-A12, #etalis-9.6).

The paper says plainly that every policy other than *unrestricted* breaks the declarative property: which
instance a pattern uses depends on which instances were consumed before, on the arrival order (also among
simultaneous events) and on the order in which rules are evaluated.  So the policies are defined here
operationally, as a deterministic transition system with every order fixed.  Two independent implementations
follow this text: the step-indexed ASP specification (``asp/etalis_policy.lp``, ``asp/etalis_policy.py``, docs/semantics/etalis.md#etalis-9.6) and the incremental engine (``engine/etalis/policy.py``); the differential tests check that they agree.
``unrestricted`` is *not* defined here: it is the minimal model of Figure 2 (``asp/etalis.py``).

Policies (``Options.policy``), per binary node ``P <- L op R`` (docs/semantics/etalis.md#etalis-3.12 "precise definitions"):

* ``chronological``: among the stored partners that complete the pattern, take the one inserted
  **earliest**, fire once, delete it (FIFO; rule (26), ``assertz``).
* ``recent_lifo``: the same, taking the one inserted **last** (the paper's mechanism: rule (25), ``asserta``,
  with the consuming Algorithm 3.1); it yields ``E(2,6)`` on the running example (A11).
* ``recent``: the paper's narrative, Snoop's recent context: a store keeps only the **newest** instance per
  join key (a new one replaces the old one); a completing instance fires with it and deletes nothing; it
  yields ``E(3,6)`` on the running example.

1. Nodes.  Every event rule (after folding ``event_rule_window`` in as ``(body).w``) is binarized into one
   node per sub-pattern, exactly as the oracle does (docs/semantics/etalis.md#etalis-9.2).  Node ids are assigned in pre-order over the
   rules in program order; a node precedes its children; the children of a binary operator are ``left``,
   ``right``; those of ``not(p1).[p2,p3]`` are ``p2`` (start), ``p3`` (end), ``p1`` (negated); those of
   ``Start seq aggregate(F, Item, R[, N])`` are ``Start`` (start), ``Item`` (item); ``(p).q`` and
   ``p where c`` have one child.  ``V_n`` is the sorted tuple of the variables visible at ``n``
   (:func:`ceplab.semantics.etalis.analysis.visible_vars`).  ``q(n)`` is the smallest window length ``q`` of the
   ``(p).q`` nodes on the path from ``n`` (inclusive) to its rule's root, undefined if there is none.  The
   **join key** of a child ``c`` of a binary node is its values on the variables it shares with its sibling;
   for ``not``, of ``p2``/``p3`` on the variables they share with each other, of ``p1`` on the variables it
   shares with ``V`` of the ``not`` node; for an aggregate, of the start and the item on the variables they
   share (``R`` is new, so it is neither's).

2. State.  A stack of items; a **store** per node that is a child of a binary operator or of ``not``, or the
   start child of an aggregate (a list of stored instances ``(stamp, V, S, E)``; at an aggregate's start child
   **records** ``(stamp, V, S, E, st)`` that also carry an aggregate state, section 7b); the set of processed activations ``(n, V, S, E)``; the set of
   dispatched events ``(A, S, E)``; a step counter ``k`` (0, 1, ...).

3. Input order.  The input items are the stream events (ground atom ``A`` on ``[S,E]``, in stream order; ends
   must not decrease) and one item per time-point leaf ``n`` with value ``q`` (A19).  They are ordered by the key
   ``(E, 1, position)`` for a stream event and ``(q, 0, n)`` for a time point: a time point is processed just
   before the first stream event ending at or after it; the remaining ones at the end of the stream.

4. Steps.  While the stack is empty, push the next input item (stop when there is none).  Step ``k`` pops the
   top item, processes it, which yields an ordered list of child items ``c1..cm``, and pushes ``cm..c1`` so that
   ``c1`` is processed next (depth first: the Prolog call order of ETALIS's ``for_each`` dispatch, docs/semantics/etalis.md#etalis-3.3).
   ``k`` is the **stamp** of anything the step inserts into a store.

5. Processing an event item ``ev(A,S,E)`` (a stream event, or the head of a rule that fired): if ``(A,S,E)``
   was dispatched before, nothing happens (goals are unique, docs/semantics/etalis.md#etalis-3.2; this also ends recursion that creates
   nothing new).  Otherwise it is recorded; if its predicate is the head of some event rule it is a
   **result**; its children are ``act(n, V, S, E)`` for every event-atom leaf ``n`` whose pattern unifies with
   ``A`` (``V``: the bindings), in **dispatch order** (the ``for_each`` order of the implementation, docs/semantics/etalis.md#etalis-3.3,
   :func:`dispatch_order`): rules in program order; within a rule, by the post-order position (left operand,
   right operand, node) of the leaf's nearest ancestor that is a binary operator or ``not`` (ETALIS's
   binarizer emits the binary rules children first); under the same ancestor the operand that *completes*
   a pattern before the one that *starts* it: the right operand of a binary operator before its left one,
   and for ``not`` the end delimiter ``p3``, then the negated ``p1``, then the start ``p2`` (ETALIS's compiler
   emits the checking clause before the goal-inserting one, ``[SecondClause, FirstClause]`` in
   ``compiler.P``).  So ``e <- a seq a`` fires on consecutive ``a``'s under every policy, as in ETALIS.  An
   aggregate counts as a binary operator here, its item as the completing operand: the item before the start
   (ETALIS's compiler emits the updating clause before the goal-inserting one, as for ``seq``).  A leaf
   without such an ancestor comes after the others of its rule.  A time-point item of leaf ``n`` has the
   single child ``act(n, (), q, q)``.

6. Processing an activation ``act(n,V,S,E)``:

   a. pushed window (paper 3.11, technique 1): if ``q(n)`` is defined and ``E - S > q(n)`` it is dropped
      (always an at-most test: with ``window="exactly"`` only the window node itself tests ``= w``, since a
      sub-pattern of an exact-length result may be shorter);
   b. if ``(n,V,S,E)`` was processed before it is dropped; otherwise it is recorded;
   c. by the parent ``p`` of ``n``:

      * none (``n`` is the root of rule ``h <- body``): child ``ev(h[V], S, E)`` (none if an argument of the
        head is undefined, e.g. arithmetic on a non-integer);
      * ``(p').w``: child ``act(p, V, S, E)`` if ``E - S <= w`` (``window="exactly"``: ``= w``);
      * ``p' where c``: one child ``act(p, V', S, E)`` per distinct solution ``V'`` of ``c`` under ``V``, in
        increasing clingo order of ``V'`` as a tuple;
      * ``or``: child ``act(p, V restricted to V_p, S, E)``;
      * a binary operator, or ``not``: the join below;
      * an aggregate: section 7b.

7. Join at a binary ``p = L op R`` (op other than ``or``), ``x = (V,S,E)`` arriving on side ``l`` or ``r``
   at child ``n``, sibling ``o``.  The **candidates** are the instances ``y`` stored at ``o`` with the same
   join key such that, with ``(l, r) = (x, y)`` or ``(y, x)``, the relation of ``op`` holds (Figure 2 in
   hull + relation form, docs/semantics/etalis.md#etalis-2.6, with ``proper_intervals_only`` and the relation
   switches ``par_overlap``, ``starts_end``, ``during_bounds``, ``finishes_start``, #etalis-A23 to #etalis-A26: the
   relation of the unrestricted semantics, whichever side arrives), and, if ``q(p)`` is defined, the result
   interval ``H`` (hull; ``during``: ``during_result``) has ``end - start <= q(p)`` (pushed window).

   * ``chronological`` / ``recent_lifo``: if there are candidates, the one with the smallest / largest stamp
     is **removed** from the store of ``o`` and the only child is ``act(p, V_l + V_r, H)``.  Otherwise ``x``
     is inserted into the store of ``n`` (rule 8), except on the right of ``seq``, where no later
     instance can complete it.
   * ``recent``: ``x`` is inserted into the store of ``n`` (rule 8; again not on the right of ``seq``); then,
     if there is a candidate (at most one: a store holds one instance per join key), the only child is
     ``act(p, V_l + V_r, H)``; nothing is removed.

   ``not(p1).[p2,p3]`` (Algorithm 3.4 per witness, A7/A8): an instance of ``p1`` is always **appended** to the
   store of ``p1`` (every occurrence is remembered, as in Algorithm 3.4: never replaced, never consumed, no
   interval policy; so under ``recent`` an older blocker still blocks); one of ``p2`` is inserted as in rule 8; one of ``p3``, ``x``, is
   joined with the instances ``y`` stored at ``p2`` with the same join key, ``E_y < S_x``, ``E_x - S_y <=
   q(p)`` if defined, and **not blocked**: no stored ``p1`` instance with the same values on the shared
   variables starts after ``E_y`` and ends before ``S_x`` (with ``not_local_vars="free"`` and a variable
   local to ``p1`` nothing blocks, A6).  The selection, removal and the child ``act(p, V, S_y, E_x)`` are as
   for a binary operator; ``p3`` is never stored.

7b. Aggregates ``p = Start seq aggregate(F, Item, R[, N])`` (docs/semantics/etalis.md#etalis-4.4; the
   implementation's aggregate goals, ``compiler.P`` and ``storage.P``), start child ``s``, item child ``i``,
   join key as in section 1.  The **empty aggregate** ``R0`` is ``0`` for ``count`` and ``sum``; for ``min`` /
   ``max`` it is ``100000`` / ``-100000`` under ``aggregate_initial="sentinel"`` and undefined otherwise.  The
   **state** of a record is, without a count window, its running aggregate (``R0``, or ``none`` when ``R0`` is
   undefined), with a count window ``N`` the sequence of the values of the last ``N - 1`` items applied to it,
   oldest first (empty at the start).  Applying a value ``v`` to a state ``st`` gives a result and a new state:

   * no window: the result is ``st + 1`` (``count``), ``st + v`` (``sum``), ``min(st, v)`` / ``max(st, v)``
     (``v`` if ``st`` is ``none``); the new state is the result;
   * window ``N``: the result is ``F`` over the values of ``st``, ``v`` and, for ``min``/``max`` under
     ``aggregate_initial="sentinel"``, the sentinel (``count``: the number of values); the new
     state is ``st`` followed by ``v``, without its oldest value if that makes more than ``N - 1``.

   a. A start instance ``x = (V,S,E)`` (an activation of ``s``): the record ``(V,S,E,st0)``, ``st0`` the empty
      state, is inserted into the store of ``s`` by rule 8 (join key, ``prefer`` and the interval policy on
      ``(V,S,E)``): under ``recent`` it replaces the record of its key (Snoop's recent context: the newest
      initiator), under ``chronological`` / ``recent_lifo`` records accumulate.  Then, whether or not rule 8
      inserted it, its only child is ``act(p, V + {R: R0}, S, E)`` if ``R0`` is defined, else it has none.
   b. An item instance ``x = (V,S,E)`` (an activation of ``i``; items are never stored).  Its value ``v`` is ``1``
      for ``count``, else its value of the aggregated variable; if that is not an integer, ``x`` has no child
      and changes nothing (as in #etalis-4.4).  The **candidates** are the records ``y = (T, V_y, S_y, E_y, st)``
      stored at ``s`` with the same join key, ``E_y < S`` (the start ends before the item starts, as for ``seq``)
      and, if ``q(p)`` is defined, ``E - S_y <= q(p)``.  One is selected as a join selects its partner:
      ``chronological`` the smallest stamp, ``recent_lifo`` the largest, ``recent`` the only one (at most one per
      key).  If there is one, ``y``: applying ``v`` to ``st`` gives ``r`` and ``st'``; ``y`` is removed and the
      record ``(V_y, S_y, E_y, st')`` is inserted with the stamp ``k`` of this step, without rule 8's comparison
      (it becomes the newest record: the implementation's delete and re-insert of the aggregate goal); the only
      child is ``act(p, V_y + {R: r}, S_y, E)``.  Otherwise ``x`` has no child.

   A start is never consumed.  Under ``chronological`` an updated record goes to the back of the FIFO order, so
   the records of a key take the items in turn; under ``recent_lifo`` the newest record that is a candidate takes
   every item.  Items are applied one at a time in arrival order (section 3), so simultaneous items *do* see each
   other: unlike the unrestricted definition (#etalis-4.4), where an item ending at ``t`` never sees another
   item ending at ``t``.

8. Insertion of ``x = (V,S,E)`` into the store of ``n`` (stamp ``k``).  Let the **timestamp** of an instance be
   its end for ``recent``/``recent_lifo`` and its start for ``chronological``.  ``prefer(y, x)`` under
   ``interval_policy`` (docs/semantics/etalis.md#etalis-3.12 "On time intervals", rules (28)-(30), A12) holds when ``y`` and ``x`` have
   the same timestamp and: ``"longest"``: ``y`` is strictly longer; ``"shortest"``: ``y`` is strictly
   shorter; ``"max:VAR"`` / ``"min:VAR"``: ``y``'s value of ``VAR`` is strictly greater / smaller in clingo's
   order (only at nodes binding ``VAR``; elsewhere ``prefer`` is false); ``"off"``: never.

   An inserted instance gets the stamp ``k`` of the step that inserts it, also when it replaces ``y``: it
   becomes the newest instance of the store (it does not take ``y``'s place in the FIFO/LIFO order).

   * ``chronological`` / ``recent_lifo``: if ``interval_policy`` is not ``"off"`` and the store holds an
     instance ``y`` with the same join key and the same timestamp (at most one, by induction): if
     ``prefer(y, x)``, ``x`` is not inserted; otherwise ``y`` is removed and ``x`` inserted.  Else ``x`` is
     appended.  With ``goal_replacement="same_values"`` (A27; only without an ``interval_policy``) every stored
     instance of ``n`` with the same values ``V`` as ``x`` is removed first (the implementation's ``retractall``
     before ``asserta``/``assertz``), except when ``x`` is an aggregate record (7b).
   * ``recent``: if the store holds an instance ``y`` with the same join key (at most one): if
     ``prefer(y, x)``, ``x`` is not inserted; otherwise ``y`` is removed and ``x`` inserted.  Else ``x`` is
     inserted.

9. Results: the set of events ``(A,S,E)`` recorded in step 5 whose predicate is an event-rule head
   (multiplicity is not part of the answer, A17).  Consequences used as test properties: for programs without
   ``not`` and without aggregates every policy's answers are a subset of the unrestricted ones (a policy only
   drops joins; an aggregate record sees only the items it selected, and tied items see each other, 7b); under
   ``chronological`` and ``recent_lifo`` each stored instance completes at most one pattern (an aggregate
   record is updated, not consumed); ``recent`` never removes on a match.

Not defined (rejected with :class:`ValueError` by :class:`ceplab.semantics.etalis.options.Options`): a policy with
``not_reading="literal"`` (Figure 2's outer-interval reading has no operational counterpart), an
``interval_policy`` with ``unrestricted``.  Refused for every policy by
:func:`ceplab.semantics.etalis.binarize.check_aggregates` (:class:`~ceplab.semantics.errors.UnsupportedError`): an
aggregate with ``during_result="contained"``.
"""
from __future__ import annotations

POLICIES = ("unrestricted", "chronological", "recent", "recent_lifo")
"""Every value of ``Options.policy``; all but the first are defined by this module."""

OPERATIONAL = POLICIES[1:]
"""The consumption policies defined operationally (by ETALIS-P above)."""


def interval_option(interval_policy: str) -> tuple[str, str | None]:
    """Split ``Options.interval_policy`` into ``(kind, variable)``.

    Args:
        interval_policy: ``"off" | "longest" | "shortest" | "max:VAR" | "min:VAR"``.

    Returns:
        ``("off", None)``, ``("longest", None)``, ``("shortest", None)``, ``("max", "VAR")`` or
        ``("min", "VAR")``.
    """
    if ":" in interval_policy:
        kind, var = interval_policy.split(":", 1)
        return kind, var
    return interval_policy, None


def dispatch_order(program) -> dict[int, int]:
    """The dispatch order of ETALIS-P section 5: event-atom leaf node id -> rank (0 = dispatched first).

    Node ids are the pre-order ids of ETALIS-P section 1 (rules in program order; a node before its
    children; binary: left, right; ``not``: start, end, negated; aggregate: start, item; window/where: the child).

    Args:
        program: a :class:`ceplab.semantics.etalis.ast.Program`.

    Returns:
        ``{leaf_id: rank}`` for every :class:`~ceplab.semantics.etalis.ast.EventAtom` leaf of every event rule.
    """
    from ceplab.semantics.etalis import ast as A

    keys: dict[int, tuple] = {}
    counter = [0]

    def walk(p, rule: int, anc: tuple | None, post: list) -> None:
        """Assign the pre-order id of ``p``; ``anc`` = (ancestor node object, role) of the nearest binary/not
        ancestor; ``post`` collects binary/not nodes in post-order."""
        nid = counter[0]
        counter[0] += 1
        if isinstance(p, A.EventAtom):
            keys[nid] = (rule, anc)
        elif isinstance(p, (A.Window, A.Where)):
            walk(p.pattern, rule, anc, post)
        elif isinstance(p, A.Binary):
            me = object()
            walk(p.left, rule, (me, 1), post)
            walk(p.right, rule, (me, 0), post)
            post.append(me)
        elif isinstance(p, A.Aggregate):             # as seq: the item completes, the start starts
            me = object()
            walk(p.start, rule, (me, 1), post)
            walk(p.item, rule, (me, 0), post)
            post.append(me)
        elif isinstance(p, A.Not):
            me = object()
            walk(p.start, rule, (me, 2), post)
            walk(p.end, rule, (me, 0), post)
            walk(p.negated, rule, (me, 1), post)
            post.append(me)

    order: list[tuple] = []
    for i, r in enumerate(program.event_rules):
        post: list = []
        start = counter[0]
        walk(program.effective_body(r), i, None, post)
        pos = {id(m): j for j, m in enumerate(post)}
        for nid in range(start, counter[0]):
            if nid in keys:
                rule, anc = keys[nid]
                k = (rule, len(post), 0, nid) if anc is None else (rule, pos[id(anc[0])], anc[1], nid)
                order.append((k, nid))
    order.sort()
    return {nid: rank for rank, (_, nid) in enumerate(order)}


#: ETALIS's ``event_consumption_policy`` flag values -> ceplab's ``(policy, goal_replacement)``.  ETALIS's ``recent``
#: and ``chronological`` consume the goal they use and keep the newest goal per value tuple (``storage.P``:
#: ``retractall`` before ``asserta``/``assertz``: ``goal_replacement="same_values"``, A27); ``recent_2``/
#: ``chronological_2`` are plain LIFO/FIFO (see workbench/langs/etalis/peer.py).
ETALIS_POLICY_FLAGS: dict[str, tuple[str, str]] = {
    "unrestricted": ("unrestricted", "keep"), "chronological_2": ("chronological", "keep"),
    "recent_2": ("recent_lifo", "keep"), "recent": ("recent_lifo", "same_values"),
    "chronological": ("chronological", "same_values")}


def declared_policy(program) -> tuple[str, tuple[int, int] | None] | None:
    """The consumption policy a rule file sets for ETALIS, if any: ``(flag, (line, col))``.

    Recognised forms (the implementation's): the directive ``:- set_etalis_flag(event_consumption_policy, F).``
    and the configuration fact ``event_consumption_policy(F).``; the last one in the file wins.

    Args:
        program: a :class:`ceplab.semantics.etalis.ast.Program`.
    """
    from ceplab.semantics.etalis import ast as A

    found = None
    for d in program.directives:
        t = d.term
        if not isinstance(t, A.Compound):
            continue
        arg = None
        if t.functor == "set_etalis_flag" and len(t.args) == 2 and t.args[0] == A.Sym("event_consumption_policy"):
            arg = t.args[1]
        elif t.functor == "event_consumption_policy" and len(t.args) == 1:
            arg = t.args[0]
        if isinstance(arg, A.Sym):
            found = (arg.name, d.pos)
    return found
