"""ceplab.workbench.compare: reports, per-position emission checks, --set parsing (tiny fakes, no clingo)."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Literal

import pytest

from ceplab.semantics.events import Stream
from ceplab.workbench.compare import OptionError, Report, compare, options_from_kv, position_problems
from ceplab.workbench.language import Language


@dataclass(frozen=True)
class Opts:
    mode: Literal["a", "b"] = "a"
    n: int = 1
    flag: bool = False


@dataclass(frozen=True)
class Res:
    results: frozenset
    stats: object = None


@dataclass(frozen=True)
class Und:
    reason: str
    stats: object = None


class ScriptedEvaluator:
    """Emits ``script[i]`` after the i-th push and ``script['close']`` at close."""

    path = "scripted"

    def __init__(self, script: dict) -> None:
        self.script = script
        self.i = 0

    def push(self, event):
        out = list(self.script.get(self.i, []))
        self.i += 1
        return out

    def close(self):
        return list(self.script.get("close", []))


def fake_lang(oracle_results, script, deferred=False, oracle_raises=None) -> Language:
    def oracle(q, s, o, limits):
        if oracle_raises:
            raise oracle_raises
        return Und("time limit 1 s") if oracle_results is None else Res(frozenset(oracle_results))

    return Language(name="fake", paper="-", parse=lambda t, f=None: t, parse_file=lambda p: p, render=str,
                    read_stream=lambda p: p, options=Opts, oracle=oracle,
                    evaluator=lambda q, o: ScriptedEvaluator(script), result_to_json=list,
                    result_from_json=tuple, stream_to_json=lambda s: [e.to_json() for e in s],
                    stream_from_json=lambda items, name: items, drop_events=lambda s, d: s,
                    event_row=lambda e: (e.time, e.type, e.attrs),
                    result_end=lambda r: r[-1], deferred=lambda q, o: deferred)


STREAM = Stream.of("ABCD")


def test_agree():
    lang = fake_lang({(0, 1), (1, 3)}, {1: [(0, 1)], 3: [(1, 3)]})
    rep = compare(lang, "q", STREAM, Opts(), limits=object())
    assert rep.agree and rep.verdict == "agree" and rep.exit_code == 0
    assert rep.oracle_count == rep.engine_count == 2
    j = rep.to_json()
    assert j["agree"] is True and j["oracle_only"] == [] and j["engine_only"] == []
    assert {"oracle_count", "engine_count", "oracle_seconds", "engine_seconds"} <= set(j)
    assert rep.engine_path == "scripted"


def test_disagree_sets():
    lang = fake_lang({(0, 1), (2, 3)}, {1: [(0, 1)], 2: [(0, 2)]})
    rep = compare(lang, "q", STREAM, Opts(), limits=object())
    assert rep.verdict == "disagree" and rep.exit_code == 1
    j = rep.to_json()
    assert j["oracle_only"] == [[2, 3]] and j["engine_only"] == [[0, 2]]


def test_undecided():
    lang = fake_lang(None, {1: [(0, 1)]})
    rep = compare(lang, "q", STREAM, Opts(), limits=object())
    assert rep.verdict == "undecided" and rep.exit_code == 3
    assert "time limit" in rep.undecided and rep.oracle_count is None and rep.engine_count == 1


def test_wrong_position_is_disagreement():
    lang = fake_lang({(0, 1)}, {2: [(0, 1)]})  # determined at 1, emitted at 2
    rep = compare(lang, "q", STREAM, Opts(), limits=object())
    assert rep.verdict == "disagree" and not rep.oracle_only and not rep.engine_only
    assert any("late at position 2" in p and "position 1" in p for p in rep.problems)

    early = compare(fake_lang({(0, 2)}, {1: [(0, 2)]}), "q", STREAM, Opts(), limits=object())
    assert any("before its last event" in p for p in early.problems)

    at_close = compare(fake_lang({(0, 2)}, {"close": [(0, 2)]}), "q", STREAM, Opts(),
                       limits=object())
    assert any("at close()" in p and "expected at position 2" in p for p in at_close.problems)


def test_duplicate_emission_is_disagreement():
    lang = fake_lang({(0, 1)}, {1: [(0, 1), (0, 1)]})
    rep = compare(lang, "q", STREAM, Opts(), limits=object())
    assert rep.verdict == "disagree"
    assert any("emitted 2 times" in p for p in rep.problems)
    lang2 = fake_lang({(0, 1)}, {1: [(0, 1)], 3: [(0, 1)]})
    rep2 = compare(lang2, "q", STREAM, Opts(), limits=object())
    assert any("emitted 2 times (at position 1, at position 3)" in p for p in rep2.problems)


def test_deferred_results_belong_at_close():
    ok = compare(fake_lang({(0, 1)}, {"close": [(0, 1)]}, deferred=True), "q", STREAM, Opts(),
                 limits=object())
    assert ok.agree
    bad = compare(fake_lang({(0, 1)}, {1: [(0, 1)]}, deferred=True), "q", STREAM, Opts(),
                  limits=object())
    assert bad.verdict == "disagree" and any("expected at close()" in p for p in bad.problems)


def test_engine_crash_is_a_problem():
    lang = fake_lang({(0, 1)}, {})
    lang = dataclasses.replace(lang, evaluator=lambda q, o: 1 / 0)
    rep = compare(lang, "q", STREAM, Opts(), limits=object())
    assert rep.verdict == "disagree" and any("ZeroDivisionError" in p for p in rep.problems)


def test_oracle_crash_is_a_problem():
    rep = compare(fake_lang(None, {}, oracle_raises=RuntimeError("boom")), "q", STREAM, Opts(),
                  limits=object())
    assert rep.verdict == "disagree" and any("boom" in p for p in rep.problems)


def test_position_problems_direct():
    lang = fake_lang(set(), {})
    assert position_problems(lang, [((0, 1), 1), ((2,), 2)], False) == []
    assert len(position_problems(lang, [((0, 1), 1), ((0, 1), 1)], False)) == 1


def test_options_from_kv():
    assert options_from_kv(Opts, []) == Opts()
    assert options_from_kv(Opts, ["mode=b", "n=3", "flag=true"]) == Opts("b", 3, True)
    with pytest.raises(OptionError, match="unknown switch 'nope'; known: mode, n, flag"):
        options_from_kv(Opts, ["nope=1"])
    with pytest.raises(OptionError, match="bad value 'c' for mode; allowed: a, b"):
        options_from_kv(Opts, ["mode=c"])
    with pytest.raises(OptionError, match="expected an integer"):
        options_from_kv(Opts, ["n=x"])
    with pytest.raises(OptionError, match="NAME=VALUE"):
        options_from_kv(Opts, ["mode"])
    assert str(OptionError("x", "--set")).startswith("--set: ")


def test_report_verdict_precedence():
    r = Report(agree=False, undecided="limit", problems=["result [1] emitted 2 times"])
    assert r.verdict == "disagree"


# ----------------------------------------------------------------------------- shrink
def test_drop_events_renumbers():
    from ceplab.workbench.shrink import drop_events

    s = drop_events(Stream.of(["A", ("B", {"v": 1}), "C", "D"]), [0, 2])
    assert [(e.type, e.time, e.position) for e in s] == [("B", 0, 0), ("D", 1, 1)]
    assert s[0].attrs == {"v": 1}
    from ceplab.semantics.events import Event

    timed = Stream([Event("A", 5, {}, 0), Event("B", 7, {}, 1), Event("C", 9, {}, 2)])
    t = drop_events(timed, [1])
    assert [(e.type, e.time, e.position) for e in t] == [("A", 5, 0), ("C", 9, 1)]
