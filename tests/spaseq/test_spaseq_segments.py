"""Segmented oracle solving for SPAseq (docs/semantics/spaseq.md#spaseq-9.6, ``Language.locality``): every query is
local in time with span 0 and lookahead omega, anchored at the result's first selected event.  The claim is tight:
a result whose last event, or the event that blocks a negated last element, lies exactly omega after its first
event is found (or refused) only when the segment reaches that far, so the tests below fail with lookahead
omega - 1.  Random cases with results are cut into segments of 1-3 owned events; ``ceplab run --oracle --segments``
gives the whole-stream answer; a streamset with a blank node is refused (exit 2)."""
from __future__ import annotations

import dataclasses
import json
import random

import pytest
from typer.testing import CliRunner

from ceplab.workbench import language
from ceplab.workbench.cli import app
from ceplab.workbench.compare import default_limits, run_oracle
from ceplab.workbench.langs.spaseq.papers import parse_compact_stream
from ceplab.workbench.segments import TIME, segmented_oracle

L = language.get("spaseq")
W = 4

QUERY = """PREFIX : <http://example.org/>
SELECT *
WITHIN {w} SECONDS
FROM STREAM S <http://example.org/s>
WHERE SEQ ({seq})
{{
  DEFINE GPM A ON S {{ ?x :a ?v }}
  DEFINE GPM B ON S {{ ?y :b ?u }}
}}
"""


def _edge_stream(first: int, w: int = W) -> list:
    """An A at ``first``, noise at every tick up to ``first + w - 1``, a B at ``first + w`` (one event a tick, so a
    segment of one owned event owns one tick)."""
    items = [f"s@{first} {{ :e{first} :a 1 }}"]
    items += [f"s@{t} {{ :e{t} :n 0 }}" for t in range(first + 1, first + w)]
    items += [f"s@{first + w} {{ :e{first + w} :b 2 }}"]
    return parse_compact_stream(items)


# (window switch, origin, sequence, stream start): under tumbling_closed the match must start on a window start to
# reach omega ahead; anchored windows start at the match's first event
EDGES = [("tumbling_closed", 0, "A ; B", 0), ("tumbling_closed", 3, "A ; B", 3), ("anchored", 0, "A ; B", 5),
         ("tumbling_closed", 0, "A ; B!", 0), ("anchored", 0, "A : B!", 2)]


@pytest.mark.parametrize("window,origin,seq,first", EDGES)
def test_a_result_decided_omega_after_its_anchor_needs_the_whole_lookahead(window, origin, seq, first):
    q = L.parse(QUERY.format(w=W, seq=seq))
    stream = _edge_stream(first)
    options = L.options(window=window, origin=origin)
    loc = L.locality(q, options, stream)
    assert loc.unit == TIME
    limits = default_limits(time_s=30)
    whole, undecided, _, _ = run_oracle(L, q, stream, options, limits)
    assert undecided is None
    # 'A ; B' has its one match A..B; 'A ; B!' has none, since the B at the window's end blocks it
    assert len(whole) == (0 if seq.endswith("!") else 1)
    ans = segmented_oracle(L, q, stream, options, limits, loc, 1)
    assert len(ans.segments) == W + 1 and ans.results == whole
    # the claim is tight: one tick less and the segment owning the A stops one tick before the B
    short = segmented_oracle(L, q, stream, options, limits, dataclasses.replace(loc, lookahead=loc.lookahead - 1), 1)
    assert short.results != whole


def test_half_open_windows_and_boundary_events():
    """Half-open windows, and a closed window's boundary event in two windows (two results for one witness)."""
    q = L.parse(QUERY.format(w=W, seq="A ; B"))
    items = [f"s@{t} {{ :e{t} :{'a' if t % 3 == 0 else 'b'} {t} }}" for t in range(0, 4 * W + 1)]
    stream = parse_compact_stream(items)
    limits = default_limits(time_s=30)
    for window in ("tumbling_closed", "tumbling_halfopen", "anchored"):
        options = L.options(window=window)
        whole, undecided, _, _ = run_oracle(L, q, stream, options, limits)
        assert undecided is None and whole
        ans = segmented_oracle(L, q, stream, options, limits, L.locality(q, options, stream), 1)
        assert ans.results == whole, window
        assert sum(r["results"] for r in ans.segments) > len(whole)


def test_segmented_equals_whole_on_random_cases_with_results():
    """Random cases of the generator (every switch drawn) with a non-empty answer, cut into segments of 1-3 owned
    events: the same answer; some results lie across a border (derived by two segments, kept by one)."""
    rng = random.Random(7)
    limits = default_limits(time_s=30)
    cases = straddle = 0
    for _ in range(400):
        if cases == 12:
            break
        text, stream, options = L.random_case(rng, 30)
        q = L.parse(text)
        whole, undecided, _, _ = run_oracle(L, q, stream, options, limits)
        if undecided is not None or not whole:
            continue
        cases += 1
        loc = L.locality(q, options, stream)
        ans = segmented_oracle(L, q, stream, options, limits, loc, 1 + cases % 3)
        assert ans.undecided is None and ans.results == whole, text
        straddle += sum(r["results"] for r in ans.segments) > len(whole)
    assert cases == 12 and straddle >= 3


def test_cli_run_oracle_segments(tmp_path):
    text, stream, options = L.oracle_workload(120, 10, 3)
    (tmp_path / "q.spaseq").write_text(text)
    (tmp_path / "s.jsonl").write_text("".join(json.dumps(x) + "\n" for x in L.stream_to_json(stream)))
    args = ["run", "spaseq", str(tmp_path / "q.spaseq"), str(tmp_path / "s.jsonl"), "--oracle", "--json"]
    whole = CliRunner().invoke(app, args)
    seg = CliRunner().invoke(app, args + ["--segments", "15"])
    assert whole.exit_code == 0 and seg.exit_code == 0, seg.output
    w, s = (json.loads(r.stdout.strip().splitlines()[-1]) for r in (whole, seg))
    assert s["results"] == w["results"] and s["count"] == w["count"] > 0
    assert s["path"].startswith("clingo oracle, 8 segment(s)")


def test_a_stream_with_blank_nodes_is_refused(tmp_path):
    """The one refusal: blank nodes are labelled by position, and a segment re-read from JSON on a Spark executor
    would relabel them (docs/semantics/spaseq.md#spaseq-9.6)."""
    q = QUERY.format(w=W, seq="A ; B")
    items = [f"s@{t} {{ :e{t} :a {t} }}" for t in range(5)] + ["s@5 { _:x :b 1 }"]
    stream = parse_compact_stream(items)
    assert L.locality(L.parse(q), L.options(), stream) is None
    assert L.locality(L.parse(q), L.options(), stream[:-1]) is not None
    (tmp_path / "q.spaseq").write_text(q)
    (tmp_path / "s.jsonl").write_text("".join(json.dumps(x) + "\n" for x in L.stream_to_json(stream)))
    files = [str(tmp_path / "q.spaseq"), str(tmp_path / "s.jsonl")]
    ok = CliRunner().invoke(app, ["run", "spaseq", *files, "--oracle"])
    assert ok.exit_code == 0, ok.output
    for cmd in (["run", "spaseq", *files, "--oracle", "--segments", "2"], ["check", "spaseq", *files]):
        res = CliRunner().invoke(app, cmd)
        assert res.exit_code == 2 and "local" in res.output, res.output
