"""Where a result ending in a tie group is determined (workbench/langs/etalis/__init__.py ``result_positions``,
docs/semantics/etalis.md#etalis-9.7.3): the positions the case's own oracle call computes (``tie_positions``: one
grounding solved per prefix for the unrestricted semantics, read off the run for a consumption policy) equal those
of the oracle run on every prefix, which is the definition."""
from __future__ import annotations

import random

import pytest

import ceplab.workbench.langs.etalis as plugin
from ceplab.asp.etalis import TieResult, oracle, tie_groups
from ceplab.asp.oracle import Limits
from ceplab.semantics.etalis import ast as A
from ceplab.semantics.etalis.options import Options
from ceplab.semantics.etalis.parser import parse
from ceplab.semantics.etalis.streams import StreamEvent

LIMITS = Limits(time_s=20)


def test_tie_groups():
    evs = [StreamEvent(A.EventAtom("a", ()), s, e, i) for i, (s, e) in enumerate([(0, 1), (1, 1), (2, 2), (0, 3),
                                                                                  (3, 3), (1, 3)])]
    assert tie_groups(evs) == [(0, 2), (3, 6)]


@pytest.mark.parametrize("policy", ["unrestricted", "chronological", "recent", "recent_lifo"])
def test_tie_positions_hand_case(policy):
    """``r <- a seq b`` on ``a@1 b@2 a@2 b@2 c@3``: r<1,2> is entailed by the prefix ending with the first b
    (index 1), whatever comes later at time 2; with a second rule ``s <- a seq c`` nothing ties at 3."""
    evs = [StreamEvent(A.EventAtom(n, ()), t, t, i) for i, (n, t) in enumerate([("a", 1), ("b", 2), ("a", 2),
                                                                                ("b", 2), ("c", 3)])]
    res = oracle(parse("r <- a seq b. s <- a seq c."), evs, Options(policy=policy), LIMITS, tie_positions=True)
    assert isinstance(res, TieResult)
    assert ("r", 1, 2) in res.results and res.tie_positions == {("r", 1, 2): 1}


def test_tie_positions_equal_prefix_oracles():
    """Random fuzz cases (the plugin's seeded generator: random programs, switches and policies, 12 events with
    many ties): result_positions read off the cached oracle call == result_positions by prefix oracle calls."""
    placed = 0
    for seed in range(40):
        text, stream, options = plugin._random_case(random.Random(seed), 12)
        try:
            q = plugin._parse(text)
            res = plugin._oracle(q, stream, options, LIMITS)
        except Exception:   # a program the oracle refuses (ModelError, ...): nothing to place
            continue
        if not hasattr(res, "results"):
            continue
        assert plugin._cached_ties(q, stream, options) is res.tie_positions
        placed += len(res.tie_positions)
        cached = plugin.result_positions(q, stream, options, LIMITS, res.results)
        plugin._LAST_TIES.clear()
        assert plugin._cached_ties(q, stream, options) is None
        by_prefix = plugin.result_positions(q, stream, options, LIMITS, res.results)
        assert cached == by_prefix, (seed, text, options)
    assert placed > 30


def test_tie_positions_come_back_from_the_oracle_worker(monkeypatch):
    """The workbench runs the oracle in its worker process (ceplab.workbench.oracle_worker); the tie positions of
    that one call reach result_positions through Language.oracle_done, so no prefix oracle runs here."""
    import ceplab.asp.etalis as AE
    from ceplab.workbench import language, oracle_worker
    from ceplab.workbench.compare import compare, default_limits

    L = language.get("etalis")
    q = L.parse("d <- a seq b.\ne <- a seq c.\n")
    s = L.stream_from_json([{"type": "a", "time": 1}, {"type": "b", "time": 2}, {"type": "c", "time": 2}], "s")
    oracle_worker.worker()                     # forked before the patch: its oracle is the real one
    calls = []
    real = AE.oracle
    monkeypatch.setattr(AE, "oracle", lambda *a, **k: calls.append(1) or real(*a, **k))
    rep = compare(L, q, s, L.options(), default_limits())
    assert rep.verdict == "agree" and rep.oracle_count == 2
    assert oracle_worker.enabled() and calls == []
