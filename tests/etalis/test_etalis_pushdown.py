"""Window push-down in the unrestricted ETALIS oracle (asp/etalis.py, docs/semantics/etalis.md#etalis-9.7).

Under a window ``(p).q`` the oracle joins the operands of the binary nodes below it through time buckets of width
``q+1`` and drops the pairs whose hull is longer than ``q``.  The answers must be exactly those of the plain
encoding (the window as a filter on the window node only, ``_pushdown=False``): random windowed programs and
streams under random switches, and hand-made cases at the bucket edges.  The ground size must grow linearly in
the stream at a fixed window (the point of the push-down; a count of ground atoms, not a timing).
"""
from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from ceplab.asp.etalis import compile_program, oracle
from ceplab.asp.oracle import Limits, OracleResult
from ceplab.semantics.errors import ModelError, ParseError, UnsupportedError
from ceplab.semantics.etalis import ast as A
from ceplab.semantics.etalis.options import Options
from ceplab.semantics.etalis.parser import parse
from ceplab.semantics.etalis.streams import StreamEvent
from ceplab.workbench.langs.etalis.generators import etalis_programs, etalis_streams

FAST = Limits(time_s=30, isolate=False)
SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def both(prog, evs, opts):
    """(pushed-down answer, plain answer); each a frozenset of results, or the class of the error raised."""
    out = []
    for push in (True, False):
        try:
            r = oracle(prog, evs, opts, FAST, _pushdown=push)
        except (ModelError, UnsupportedError) as e:
            out.append(type(e))
            continue
        assert isinstance(r, OracleResult), r
        out.append(r.results)
    return out


options = st.builds(Options, window=st.sampled_from(["at_most", "exactly"]),
                    during_result=st.sampled_from(["container", "contained"]),
                    proper_intervals_only=st.booleans(),
                    not_reading=st.sampled_from(["per_witness", "literal"]),
                    not_local_vars=st.sampled_from(["existential", "free"]))


@SETTINGS
@given(etalis_programs(p_rule_window=0.8), etalis_streams(0, 12), options, st.integers(0, 6))
def test_pushdown_same_answers(text, evs, opts, shift):
    """Random programs (windows inside patterns and as ``event_rule_window``), random streams with ties and
    interval-stamped events, every switch that changes the encoding of a window or a join: push-down on and off
    give the same answer (or the same error).  The stream is shifted by ``shift`` so that intervals straddle
    bucket boundaries in different ways."""
    try:
        prog = parse(text)
    except (ParseError, UnsupportedError):
        assume(False)
    evs = [StreamEvent(e.atom, e.start + shift, e.end + shift, e.position) for e in evs]
    pushed, plain = both(prog, evs, opts)
    assert pushed == plain


@pytest.mark.parametrize("op", ["seq", "and", "par", "equals", "meets", "during", "starts", "finishes"])
@pytest.mark.parametrize("window", ["at_most", "exactly"])
@pytest.mark.parametrize("q", [0, 1, 3])
def test_pushdown_bucket_edges(op, window, q):
    """Every operator under ``(.).q``, nested ``((.).q seq c).q+1``, and inside a windowed ``not``, on a dense
    stream of points and short intervals across several buckets of width q+1 (starts 0..11): the same answers with
    and without push-down."""
    rng = random.Random(f"{op}{window}{q}")
    raw = []
    for _ in range(30):
        s = rng.randint(0, 11)
        raw.append((rng.choice("abc"), s, s + rng.choice([0, 0, 1, 2])))
    raw.sort(key=lambda x: x[2])
    evs = [StreamEvent(A.EventAtom(n, ()), s, e, i) for i, (n, s, e) in enumerate(raw)]
    opts = Options(window=window)
    found = 0
    for text in (f"r <- (a {op} b).{q}.", f"r <- ((a {op} b).{q} seq c).{q + 1}.",
                 f"r <- (not(c).[a, b {op} a]).{q + 2}."):
        pushed, plain = both(parse(text), evs, opts)
        assert pushed == plain, text
        found += len(plain)
    if op in ("seq", "and") and q > 0:
        assert found > 0   # the case exercises the bucketed join


def _bench_stream(n: int) -> list[StreamEvent]:
    """The shape of the ETALIS bench's streams (``workbench/langs/etalis/bench.py``): event i at time i, its type
    drawn uniformly from a, b, c and four noise types, seeded."""
    rng = random.Random("ceplab-test-pushdown")
    types = ("a", "b", "c", "n1", "n2", "n3", "n4")
    return [StreamEvent(A.EventAtom(types[int(rng.random() * 7)], ()), i, i, i) for i in range(n)]


def test_pushdown_ground_size_linear():
    """``ie <- (a seq b).20. e <- (ie seq c).20.``: with push-down the ground size grows linearly in the stream
    (4x the events: at most 4.4x the atoms), while the plain encoding's, which grounds all pairs and filters
    afterwards, grows quadratically (at least 8x); both give the same answers."""
    prog = parse("ie <- (a seq b).20.\ne <- (ie seq c).20.")
    sizes = {}
    for n in (300, 1200):
        evs = _bench_stream(n)
        pushed = oracle(prog, evs, Options(), FAST)
        plain = oracle(prog, evs, Options(), FAST, _pushdown=False)
        assert isinstance(pushed, OracleResult) and isinstance(plain, OracleResult)
        assert pushed.results == plain.results and pushed.results
        sizes[n] = (pushed.stats.atoms, plain.stats.atoms)
    assert sizes[1200][0] <= 4.4 * sizes[300][0], sizes
    assert sizes[1200][1] >= 8 * sizes[300][1], sizes     # the plain encoding: quadratic
    assert sizes[1200][0] * 4 < sizes[1200][1], sizes


def test_pushdown_encoding_and_switch():
    """The windowed seq joins through near/2 buckets of width q+1; without push-down (internal switch) the join
    is the plain row of Figure 2; the container of a ``during`` with ``during_result=contained`` gets no bound
    (its interval is not inside the result's)."""
    prog = parse("r <- (a seq b).4.")
    on = compile_program(prog).text
    off = compile_program(prog, _pushdown=False).text
    assert "near(B1,B2)" in on and "B=S/5" in on and "E2-S1<=4" in on
    assert "near(" not in off and "hb(" not in off
    cont = compile_program(parse("r <- (a during (b seq c)).3."), Options(during_result="contained")).text
    # the container (b seq c) joins all pairs: its length is not bounded by the window
    assert "near(" not in cont and "E1-S1<=3" in cont
