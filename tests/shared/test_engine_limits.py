"""The per-case engine limit (ceplab.workbench.limits): an engine that loops forever or allocates
without bound is stopped within its limit and reported as the verdict ``engine_limit`` by
``compare``, counted, shrunk and saved by a campaign (which always writes its summary); an engine
that refuses a query the oracle answers is an engine refusal, counted on its own.

A toy language registered in-process ("select": results are the positions of the events of the
query's type) with the campaign's injected faults ``loop``, ``hog`` and ``refuse``
(``spark.FAULTS``); no clingo, no Spark (the CLI run through Spark is in test_plugin.py).
"""
from __future__ import annotations

import json
import resource
import signal
import threading
import time
from dataclasses import dataclass

import pytest

from ceplab.semantics.errors import UnsupportedError
from ceplab.semantics.events import Stream, parse_jsonl
from ceplab.workbench import language
from ceplab.workbench.compare import compare, engine_refusal, run_engine
from ceplab.workbench.language import Language
from ceplab.workbench.limits import (EngineLimitExceeded, EngineLimits, call_limited,
                                     engine_limits, overhead)
from ceplab.workbench.shrink import drop_events
from ceplab.workbench.spark import (FuzzSummary, count_rows, faulty_language, finish_campaign,
                                    run_case)

NAME = "toylimit"
SLACK = 1.5        # seconds beyond a limit that a busy 2-core machine may need to stop an engine


@dataclass(frozen=True)
class Opts:
    """No switches."""


@dataclass(frozen=True)
class Res:
    results: frozenset
    stats: object = None


@dataclass(frozen=True)
class Und:
    reason: str
    stats: object = None


class Select:
    path = "toy select"

    def __init__(self, q):
        self.q = q

    def push(self, e):
        return [(e.position,)] if e.type == self.q else []

    def close(self):
        return []


def _random_case(rng, length):
    return "B", Stream.of([rng.choice("AB") for _ in range(length)]), Opts()


def toy(oracle_undecided: bool = False) -> Language:
    def oracle(q, s, o, limits):
        if oracle_undecided:
            return Und("time limit 1 s")
        return Res(frozenset((e.position,) for e in s if e.type == q))

    return Language(name=NAME, paper="-", parse=lambda t, f=None: t.strip(), parse_file=lambda p: p,
                    render=str, read_stream=lambda p: p, options=Opts, oracle=oracle,
                    evaluator=lambda q, o: Select(q), result_to_json=list, result_from_json=tuple,
                    stream_to_json=lambda s: [e.to_json() for e in s],
                    stream_from_json=lambda items, name: parse_jsonl(
                        "".join(json.dumps(x) + "\n" for x in items), name),
                    drop_events=drop_events, event_row=lambda e: (e.time, e.type, e.attrs),
                    result_end=lambda r: r[0], random_case=_random_case)


@pytest.fixture
def registered():
    language.add(toy())
    yield NAME
    language.remove(NAME)


STREAM = Stream.of("ABAB")
FAST = EngineLimits(time_s=1.0, memory_mb=256)


def _state():
    return (resource.getrlimit(resource.RLIMIT_AS), signal.getitimer(signal.ITIMER_REAL),
            signal.getsignal(signal.SIGALRM))


@pytest.mark.parametrize("isolate", [False, True], ids=["in-process", "forked"])
def test_a_looping_engine_is_stopped_at_its_time_limit(isolate):
    before = _state()
    lang = faulty_language(toy(), "loop")
    t0 = time.perf_counter()
    rep = compare(lang, "B", STREAM, Opts(), limits=object(),
                  engine_limits=EngineLimits(1.0, 256, isolate))
    took = time.perf_counter() - t0
    assert 1.0 <= took < 1.0 + SLACK
    assert rep.verdict == "engine_limit" and rep.exit_code == 5 and not rep.agree
    assert rep.engine_limit.startswith("time limit of 1 s exceeded")
    if not isolate:     # the in-process guard knows where the engine was
        assert "in push() of the event at index 1 (1 of 4 events done)" in rep.engine_limit
    assert rep.oracle_count == 2 and not rep.oracle_only and not rep.engine_only
    assert rep.to_json()["engine_limit"] == rep.engine_limit
    assert rep.summary().startswith("engine limit: time limit of 1 s exceeded")
    assert _state() == before           # timer, handler and address-space limit restored
    # and the engine works again right after
    assert compare(toy(), "B", STREAM, Opts(), limits=object(), engine_limits=FAST).agree


@pytest.mark.parametrize("isolate", [False, True], ids=["in-process", "forked"])
def test_a_hogging_engine_is_stopped_at_its_memory_limit(isolate):
    before = _state()
    lang = faulty_language(toy(), "hog")
    t0 = time.perf_counter()
    rep = compare(lang, "B", STREAM, Opts(), limits=object(),
                  engine_limits=EngineLimits(20.0, 256, isolate))
    assert time.perf_counter() - t0 < 10.0       # long before the time limit
    assert rep.verdict == "engine_limit"
    assert rep.engine_limit.startswith("memory limit of 256 MiB exceeded"), rep.engine_limit
    assert _state() == before


def test_an_engine_cannot_swallow_the_limit():
    class Stubborn(Select):
        def push(self, e):
            while True:
                try:
                    while True:
                        pass
                except Exception:   # an engine's broad handler does not catch the limit
                    pass

    lang = toy()
    lang = type(lang)(**{**lang.__dict__, "evaluator": lambda q, o: Stubborn(q)})
    t0 = time.perf_counter()
    with pytest.raises(EngineLimitExceeded) as ei:
        run_engine(lang, "B", STREAM, Opts(), EngineLimits(0.5, None))
    assert time.perf_counter() - t0 < 0.5 + SLACK
    assert ei.value.kind == "time" and ei.value.partial["pushed"] == 0


def test_off_the_main_thread_the_engine_runs_in_a_worker():
    out = {}

    def job():
        out["rep"] = compare(faulty_language(toy(), "loop"), "B", STREAM, Opts(), limits=object(),
                             engine_limits=FAST)
        out["ok"] = compare(toy(), "B", STREAM, Opts(), limits=object(), engine_limits=FAST)

    t = threading.Thread(target=job)
    t.start()
    t.join(20)
    assert out["rep"].verdict == "engine_limit" and out["ok"].agree


def test_limits_values_and_errors_from_a_worker():
    assert engine_limits(0, 0).unlimited and engine_limits(2, 64) == EngineLimits(2.0, 64)
    with pytest.raises(ValueError):
        EngineLimits(time_s=-1)
    assert call_limited(lambda: 41 + 1, limits=EngineLimits(isolate=True)) == 42

    def refuse():
        raise UnsupportedError("no such construct", "q.toy", 1, 3)

    with pytest.raises(UnsupportedError) as ei:      # rebuilt with its class and location
        call_limited(refuse, limits=EngineLimits(isolate=True))
    assert (ei.value.file, ei.value.line, ei.value.column) == ("q.toy", 1, 3)
    assert overhead(50) < 2000           # microseconds; in-process it is tens (see the report)


def test_an_engine_refusal_is_marked_as_the_engines():
    with pytest.raises(UnsupportedError) as ei:
        compare(faulty_language(toy(), "refuse"), "B", STREAM, Opts(), limits=object())
    assert engine_refusal(ei.value) is True
    with pytest.raises(UnsupportedError) as ei:      # the oracle gave no answer: not counted
        compare(faulty_language(toy(oracle_undecided=True), "refuse"), "B", STREAM, Opts(),
                limits=object())
    assert engine_refusal(ei.value) is False


def _campaign(tmp_path, fault, cases, engine_kw, shrink_s=20.0, max_reproducers=None):
    rows = [run_case(NAME, 0, 3, i, fault, engine_kw=engine_kw) for i in range(cases)]
    out = tmp_path / NAME
    out.mkdir()
    summ = FuzzSummary(lang=NAME, seed=0, length=3, out=str(out), engine_limits=engine_kw)
    count_rows(summ, rows)
    finish_campaign(summ, NAME, 0, 3, out, fault, None, shrink_s, engine_kw, max_reproducers=max_reproducers)
    return summ, json.loads((out / "summary.json").read_text())


def test_a_campaign_with_a_looping_engine_finishes_and_saves_shrunk_reproducers(registered, tmp_path):
    kw = {"time_s": 0.5, "memory_mb": 256}
    t0 = time.perf_counter()
    summ, written = _campaign(tmp_path, "loop", 3, kw)
    assert time.perf_counter() - t0 < 30
    loops = [r for r in summ.rows if "B" in "".join(e["type"] for e in r.get("stream", []))]
    assert summ.engine_limit == len(loops) >= 1 and summ.engine_limit + summ.agree == summ.cases
    assert written["complete"] is True and written["engine_limit"] == summ.engine_limit
    assert written["engine_limits"] == kw and len(written["reproducers"]) == summ.engine_limit
    for p in written["reproducers"]:
        assert p.endswith("-engine_limit.json")
        rep = json.loads(open(p).read())
        assert rep["verdict"] == "engine_limit" and rep["engine_limit"].startswith("time limit of 0.5 s")
        shrunk = rep["shrunk"]
        assert shrunk["verdict"] == "engine_limit"
        assert [e["type"] for e in shrunk["stream"]] == ["B"]     # the one event that loops
        assert "--engine-time 0.5 --engine-memory 256" in rep["replay"]


def test_a_campaign_counts_engine_refusals(registered, tmp_path):
    summ, written = _campaign(tmp_path, "refuse", 4, {"time_s": 1.0, "memory_mb": 256}, shrink_s=2)
    assert summ.engine_refusals == 4 and summ.undecided == 0 and summ.disagree == 0
    assert written["engine_refusals"] == 4
    ex = written["engine_refusal_examples"]
    assert len(ex) == 3 and ex[0]["case_id"] == 0 and "refuses every query" in ex[0]["refusal"]
    assert all(p.endswith("-engine_refusal.json") for p in written["reproducers"])


@pytest.mark.parametrize("most", [0, 1])
def test_a_campaign_shrinks_at_most_max_reproducers_failing_cases(registered, tmp_path, most):
    """``ceplab fuzz --max-reproducers N`` (``ceplab bench mutants`` passes 0): every failing case is counted, only
    the first N are shrunk and written."""
    summ, written = _campaign(tmp_path, "refuse", 3, {"time_s": 1.0, "memory_mb": 256}, shrink_s=2,
                              max_reproducers=most)
    assert summ.engine_refusals == written["engine_refusals"] == 3 and written["complete"] is True
    assert [p.rsplit("/", 1)[1] for p in written["reproducers"]] == ["case-00000-engine_refusal.json"][:most]
    assert len(list((tmp_path / NAME).glob("case-*.json"))) == most
