"""Segmented oracle solving for CQELS-CEP (docs/semantics/cqels.md#cqels-3.9, ``Language.locality``): a query with
only ``RANGE``/``NOW`` windows is local in time, anchored at the evaluation time ``t``, with span ``max(T + d - 1)``
plus the longest element; ``ALL``, ``TRIPLES``, a query without event clauses and without ``--until``, and a stream
with blank nodes are refused.  The span is tight: a long element, or a slide that holds the window back, is lost
with span - 1.  The default horizon of a segment may be smaller than the whole stream's (a gap after its events),
the answer is still the whole stream's."""
from __future__ import annotations

import dataclasses
import json
import random

import pytest
from typer.testing import CliRunner

from ceplab.workbench import language
from ceplab.workbench.cli import app
from ceplab.workbench.compare import default_limits, run_oracle
from ceplab.workbench.langs.cqels.papers import parse_compact_stream
from ceplab.workbench.segments import TIME, segmented_oracle

L = language.get("cqels")
LIMITS = default_limits(time_s=30)


def _query(spec: str, extra: str = "", pattern: str = "?x :p :o") -> str:
    return (f"{extra}PREFIX : <http://example.org/>\nSELECT ?x\nFROM NAMED WINDOW :W ON :s [{spec}]\n"
            f"WHERE {{ WINDOW :W {{ {pattern} }} }}\n")


def _noise(ticks) -> list[str]:
    return [f"s@{t} {{ :n{t} :q :o }}" for t in ticks]


def _segmented_and_shrunk(q, stream, options=None, size=1):
    options = options or L.options()
    loc = L.locality(q, options, stream)
    assert loc is not None and loc.unit == TIME and loc.lookahead == 0
    whole, undecided, _, _ = run_oracle(L, q, stream, options, LIMITS)
    assert undecided is None and whole
    ans = segmented_oracle(L, q, stream, options, LIMITS, loc, size)
    short = segmented_oracle(L, q, stream, options, LIMITS, dataclasses.replace(loc, span=loc.span - 1), size)
    return loc, whole, ans, short


def test_a_long_element_widens_the_span():
    """An element on [0, 20] is in a RANGE 5 window up to t = 25: the segment owning t = 25 must reach back to its
    start, 25 ticks."""
    q = L.parse(_query("RANGE 5"))
    stream = parse_compact_stream(["s@[0,20] { :a :p :o }"] + _noise(range(1, 27)))
    loc, whole, ans, short = _segmented_and_shrunk(q, stream)
    assert ans.results == whole and short.results != whole
    assert loc.span == 25 and max(r.time for r in whole) == 25


@pytest.mark.parametrize("arrival", ["start", "end"])
def test_a_slide_holds_the_window_back(arrival):
    """RANGE 3 SLIDE 4: at t = 4k + 3 the window is [4k - 3, 4k], so the answer at t needs the element at t - 6."""
    q = L.parse(_query("RANGE 3 SLIDE 4"))
    stream = parse_compact_stream([f"s@{t} {{ :a{t} :p :o }}" for t in range(0, 30, 5)] + _noise(range(30)))
    loc, whole, ans, short = _segmented_and_shrunk(q, stream, L.options(arrival=arrival))
    assert ans.results == whole and short.results != whole
    assert loc.span == 6


def test_negation_now_windows_and_a_gap_past_a_segments_default_horizon():
    """NO_TAIL answers withdrawn by a later negative, a NOW window, and a gap of 40 ticks: the segment before the
    gap computes up to its own horizon L + R, the whole stream up to a later one; the answers are the same."""
    q = L.parse(_query("RANGE 4", pattern="SEQ({?x :p :o}, !{?x :n :o})"))
    items = [f"s@{t} {{ :a{t % 3} :{'n' if t % 4 == 3 else 'p'} :o }}" for t in range(12)]
    items += [f"s@{t} {{ :a{t % 3} :p :o }}" for t in range(52, 60)]
    stream = parse_compact_stream(items)
    for query in (q, L.parse(_query("NOW"))):
        loc = L.locality(query, L.options(), stream)
        whole, undecided, _, _ = run_oracle(L, query, stream, L.options(), LIMITS)
        assert undecided is None and whole
        for size in (1, 2, 5):
            assert segmented_oracle(L, query, stream, L.options(), LIMITS, loc, size).results == whole


@pytest.mark.parametrize("text,ok", [
    (_query("ALL"), False),
    (_query("TRIPLES 3"), False),
    ("PREFIX : <http://example.org/>\nSELECT ?x\nWHERE { ?x :p :o }\n# static <http://example.org/a> "
     "<http://example.org/p> <http://example.org/o> .\n", False),
    ("PREFIX : <http://example.org/>\nSELECT ?x\nWHERE { ?x :p :o }\n# static <http://example.org/a> "
     "<http://example.org/p> <http://example.org/o> .\n# until 30\n", True),
    (_query("RANGE 2"), True),
])
def test_what_is_refused(text, ok):
    stream = parse_compact_stream(_noise(range(20)) + ["s@20 { :a :p :o }"])
    q = L.parse(text)
    loc = L.locality(q, L.options(), stream)
    assert (loc is not None) == ok
    if ok:
        whole, undecided, _, _ = run_oracle(L, q, stream, L.options(), LIMITS)
        assert undecided is None and whole
        assert segmented_oracle(L, q, stream, L.options(), LIMITS, loc, 3).results == whole


def test_a_stream_with_blank_nodes_is_refused():
    q = L.parse(_query("RANGE 2"))
    assert L.locality(q, L.options(), parse_compact_stream(_noise(range(5)) + ["s@5 { _:b :p :o }"])) is None


def test_segmented_equals_whole_on_random_cases_with_answers():
    """Random cases of the generator (switches drawn) that are local and have answers, cut into segments of 1-3
    owned elements: the same answer, some answers derived by two segments."""
    rng = random.Random(5)
    cases = straddle = 0
    for _ in range(400):
        if cases == 10:
            break
        text, stream, options = L.random_case(rng, 30)
        q = L.parse(text)
        loc = L.locality(q, options, stream)
        if loc is None:
            continue
        whole, undecided, _, _ = run_oracle(L, q, stream, options, LIMITS)
        if undecided is not None or not whole:
            continue
        cases += 1
        ans = segmented_oracle(L, q, stream, options, LIMITS, loc, 1 + cases % 3)
        assert ans.undecided is None and ans.results == whole, text
        straddle += sum(r["results"] for r in ans.segments) > len(whole)
    assert cases == 10 and straddle >= 3


def test_cli_run_oracle_segments_and_refusal(tmp_path):
    text, stream, options = L.oracle_workload(200, 30, 0)
    (tmp_path / "q.cqels").write_text(text)
    (tmp_path / "s.jsonl").write_text("".join(json.dumps(x) + "\n" for x in L.stream_to_json(stream)))
    args = ["run", "cqels", str(tmp_path / "q.cqels"), str(tmp_path / "s.jsonl"), "--oracle", "--json"]
    whole = CliRunner().invoke(app, args)
    seg = CliRunner().invoke(app, args + ["--segments", "20"])
    assert whole.exit_code == 0 and seg.exit_code == 0, seg.output
    w, s = (json.loads(r.stdout.strip().splitlines()[-1]) for r in (whole, seg))
    assert s["results"] == w["results"] and s["count"] == w["count"] > 0
    (tmp_path / "all.cqels").write_text(text.replace("RANGE 30", "ALL"))
    files = [str(tmp_path / "all.cqels"), str(tmp_path / "s.jsonl")]
    for cmd in (["run", "cqels", *files, "--oracle", "--segments", "10"], ["check", "cqels", *files]):
        res = CliRunner().invoke(app, cmd)
        assert res.exit_code == 2 and "local" in res.output, res.output
