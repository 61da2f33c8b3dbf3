"""Segmented oracle solving (ceplab.workbench.segments): the plan partitions the anchors, and for every language
that declares a query local, the segmented answer equals the whole-stream answer on random streams, with
segments small enough that results are derived in the overlap of two segments (and kept once)."""
from __future__ import annotations

import random

import pytest

from ceplab.workbench import language
from ceplab.workbench.compare import default_limits, run_oracle
from ceplab.workbench.segments import POSITION, TIME, Locality, plan, segmented_oracle


def _loc(span: int, unit: str = TIME) -> Locality:
    return Locality(span=span, unit=unit, last=lambda r: r, shift=(lambda r, o: r + o) if unit == POSITION else None)


@pytest.mark.parametrize("coords,size", [([0, 1, 2, 3, 4, 5, 6], 2), ([0, 0, 0, 1, 1, 5, 5, 5, 9], 2),
                                         ([3, 3, 3], 1), ([], 4), ([0, 2, 4, 6, 8], 10)])
def test_plan_owned_ranges_partition_the_anchors(coords, size):
    segs = plan(coords, _loc(3), size)
    assert segs[0].lo is None and segs[-1].hi is None
    for a, b in zip(segs, segs[1:]):
        assert a.hi == b.lo and a.hi is not None
    for c in range(-2, 12):          # every anchor is owned by exactly one segment
        assert sum(s.owns(c) for s in segs) == 1
    for s in segs:                   # a group of equal coordinates is never split, the overlap is the span
        assert all(not s.owns(c) or s.first <= i < s.stop for i, c in enumerate(coords))
        assert all(s.first <= i < s.stop for i, c in enumerate(coords)
                   if (s.lo is None or c >= s.lo - 3) and (s.hi is None or c < s.hi))


def test_plan_rejects_unordered_streams_and_bad_sizes():
    with pytest.raises(ValueError, match="ordered by time"):
        plan([0, 2, 1], _loc(1), 1)
    with pytest.raises(ValueError, match="size"):
        plan([0, 1], _loc(1), 0)
    with pytest.raises(ValueError, match="shift"):
        Locality(span=1, unit=POSITION, last=lambda r: r)


LOCAL = [L.name for L in language.languages() if L.locality is not None]


def test_the_languages_that_scale_declare_locality():
    assert {"cel", "etalis", "epsparql", "spaseq", "cqels"} <= set(LOCAL)


@pytest.mark.parametrize("name", [n for n in LOCAL if language.get(n).oracle_workload is not None])
@pytest.mark.parametrize("seed,n,w,size", [(0, 200, 30, 12), (1, 300, 40, 20), (2, 200, 25, 8)])
def test_segmented_equals_whole_on_the_workload(name, seed, n, w, size):
    L = language.get(name)
    text, stream, options = L.oracle_workload(n, w, seed)
    q = L.parse(text)
    loc = L.locality(q, options, stream)
    assert loc is not None and loc.span <= w
    limits = default_limits(time_s=60)
    whole, undecided, _, _ = run_oracle(L, q, stream, options, limits)
    assert undecided is None and whole
    ans = segmented_oracle(L, q, stream, options, limits, loc, size)
    assert ans.undecided is None
    assert ans.results == whole
    assert len(ans.segments) >= 5
    # some results were derived by two segments (they lie in an overlap) and kept by one
    assert sum(r["results"] for r in ans.segments) > sum(r["kept"] for r in ans.segments) == len(whole)


@pytest.mark.parametrize("name", LOCAL)
def test_segmented_equals_whole_on_random_cases(name):
    """Random cases of the language's own generators (30 events) that it declares local (the first 5 of at most
    300 draws), cut into segments of 3 owned events: the same answer as the whole stream."""
    L = language.get(name)
    rng = random.Random(11)
    limits = default_limits(time_s=30)
    local = 0
    for _ in range(300):
        if local == 5:
            break
        text, stream, options = L.random_case(rng, 30)
        q = L.parse(text)
        loc = L.locality(q, options, stream)
        if loc is None:
            continue
        whole, undecided, _, _ = run_oracle(L, q, stream, options, limits)
        if undecided is not None:
            continue
        local += 1
        ans = segmented_oracle(L, q, stream, options, limits, loc, 3)
        assert ans.results == whole, text
    assert local >= 1
