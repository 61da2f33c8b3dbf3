"""ceplab.workbench.langs.etalis.data: vega_datasets weather data as ETALIS streams; the bundled weather rule sets parse and
the incremental engine equals the clingo oracle (unrestricted, default Options) on each of them."""
from __future__ import annotations

import csv
import datetime as dt

import pytest

from ceplab.asp.etalis import oracle
from ceplab.asp.oracle import Limits, OracleResult
from ceplab.engine.etalis import evaluator
from ceplab.semantics.etalis import ast as A
from ceplab.semantics.etalis.options import Options
from ceplab.semantics.etalis.parser import parse
from ceplab.semantics.etalis.streams import StreamEvent, dumps_jsonl, dumps_stream, read_jsonl_events, read_stream_file
from ceplab.workbench.langs.cel import data as cel_data
from ceplab.workbench.langs.etalis import data as E

LIMITS = Limits(time_s=60)
CASES = E.real_cases()


def _raw_rows(name: str) -> list[dict]:
    """The dataset's CSV file, read with the csv module (independently of the loaders)."""
    from vega_datasets import local_data

    path = getattr(local_data, name.replace("-", "_")).filepath
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _raw_date(s: str) -> dt.date:
    return dt.datetime.strptime(s[:10], "%Y/%m/%d").date()


def _ordered_integer_points(evs: list[StreamEvent]) -> None:
    assert evs
    assert [e.position for e in evs] == list(range(len(evs)))
    for e in evs:
        assert type(e.start) is int and e.start == e.end
        assert all(isinstance(a, A.Sym) or (isinstance(a, A.Num) and type(a.value) is int) for a in e.atom.args)
    assert all(a.end <= b.end for a, b in zip(evs, evs[1:]))


def test_seattle_weather_days_match_the_dataset():
    rows = _raw_rows("seattle-weather")
    dates = sorted(_raw_date(r["date"]) for r in rows)
    n_days = (dates[-1] - dates[0]).days + 1
    assert len(set(dates)) == len(rows) == n_days          # one row per calendar day, no gaps
    evs = E.seattle_weather_events()
    _ordered_integer_points(evs)
    assert len(evs) == 4 * n_days
    assert sorted({e.start for e in evs}) == list(range(n_days))
    assert [e.atom.name for e in evs[:4]] == ["rain", "temp", "wind", "sky"]
    # scaling: tenths of mm / deg C / m/s, the kind as a symbol; spot-check every day against the CSV
    by_day: dict[int, dict] = {}
    for e in evs:
        by_day.setdefault(e.start, {})[e.atom.name] = e.atom.args
    for r in rows:
        d = (_raw_date(r["date"]) - dates[0]).days
        got = by_day[d]
        assert got["rain"] == (A.Num(round(float(r["precipitation"]) * 10)),)
        assert got["temp"] == (A.Num(round(float(r["temp_max"]) * 10)), A.Num(round(float(r["temp_min"]) * 10)))
        assert got["wind"] == (A.Num(round(float(r["wind"]) * 10)),)
        assert got["sky"] == (A.Sym(r["weather"]),)


@pytest.mark.parametrize("name,loc", [("sf-temps", "sf"), ("seattle-temps", "sea")])
def test_hourly_hours_match_the_dataset(name, loc):
    rows = _raw_rows(name)
    stamps = [dt.datetime.fromisoformat(r["date"].replace("/", "-")) for r in rows]
    first = min(stamps)
    ticks = sorted(int((s - first).total_seconds()) // 3600 for s in stamps)
    evs = E.hourly_temp_events((name,))
    _ordered_integer_points(evs)
    assert len(evs) == len(rows)
    assert [e.start for e in evs] == ticks
    assert evs[-1].start == int((max(stamps) - first).total_seconds()) // 3600
    assert {e.atom.args[0] for e in evs} == {A.Sym(loc)}
    temps = {int((s - first).total_seconds()) // 3600: round(float(r["temp"]) * 10) for s, r in zip(stamps, rows)}
    assert all(e.atom.args[1] == A.Num(temps[e.start]) for e in evs)


def test_hourly_merge_and_slices():
    both = E.hourly_temp_events(first="2010-07-01", last="2010-07-01")
    _ordered_integer_points(both)
    assert len(both) == 48
    assert [str(e.atom.args[0]) for e in both[:2]] == ["sf", "sea"] and both[0].start == both[1].start
    assert both[0].start == (dt.date(2010, 7, 1) - dt.date(2010, 1, 1)).days * 24
    days = E.seattle_weather_events("2012-03-01", "2012-03-02")
    assert len(days) == 8 and days[0].start == 60 and days[0].position == 0
    assert E.seattle_weather_events("2012-03-01", "2012-03-01") == days[:4]
    with pytest.raises(ValueError):
        E.hourly_temp_events(("nyc-temps",))


def test_streams_roundtrip():
    evs = E.seattle_weather_events("2012-01-01", "2012-01-10")
    assert read_jsonl_events(dumps_jsonl(evs)) == evs
    assert read_stream_file(dumps_stream(evs)) == evs
    hourly = E.hourly_temp_events(first="2010-03-14", last="2010-03-14")   # the DST day: 23 hours each
    assert len(hourly) == 46
    assert read_jsonl_events(dumps_jsonl(hourly)) == hourly


def test_cases_shape_and_slices():
    assert len(CASES) >= 5
    files = E.rule_files()
    assert [c[0].split("@")[0] for c in CASES] == [p.stem for p in files]
    cel = cel_data.real_cases()
    assert all(len(c) == len(cel[0]) == 3 and isinstance(c[0], str) and isinstance(c[1], str) for c in CASES)
    for (name, text, evs), p in zip(CASES, files):
        stream, first, last = E.stream_spec(text)
        assert name == f"{p.stem}@{stream}:{first}..{last}"
        _ordered_integer_points(evs)
        per_day = 1 if stream == "seattle-weather" else 24
        epoch = E.WEATHER_EPOCH if per_day == 1 else E.HOURLY_EPOCH.date()
        lo = (dt.date.fromisoformat(first) - epoch).days * per_day
        hi = ((dt.date.fromisoformat(last) - epoch).days + 1) * per_day
        assert lo <= evs[0].start and evs[-1].end < hi
        assert 100 <= len(evs) <= 2000, f"{name}: keep the slice small for the oracle"
    with pytest.raises(ValueError):
        E.stream_spec("a <- b.")
    with pytest.raises(ValueError):
        E.events_for_spec("nowhere", "2012-01-01", "2012-01-02")


def test_rule_sets_cover_the_paper_weather_rules():
    texts = {c[0].split("@")[0]: c[1] for c in CASES}
    progs = {k: parse(t, k) for k, t in texts.items()}

    def ops(prog):
        out = set()
        for r in prog.event_rules:
            for n in A.pattern_nodes(r.body):
                out.add(type(n).__name__ if not isinstance(n, A.Binary) else n.op.lower())
        return out

    assert "seq" in ops(progs["wind_increase"]) and "Window" in ops(progs["wind_increase"])
    assert "Not" in ops(progs["storm"])
    assert {"during", "Not"} <= ops(progs["storm_alarm"])
    assert {"and", "Where"} <= ops(progs["heat_index"])
    assert "meets" in ops(progs["rain_accumulation"])
    assert progs["worse_weather"].static_rules
    for k, t in texts.items():
        assert "% stream:" in t and "docs/semantics/etalis.md" in t, f"{k}: explain the rule and cite the paper rule"


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_engine_equals_oracle_on_real_data(case):
    name, text, evs = case
    prog = parse(text, name)
    res = oracle(prog, evs, Options(), LIMITS)
    assert isinstance(res, OracleResult), res
    got = evaluator(prog, Options()).run(evs)
    assert len(got) == len(set(got)), "duplicate emission"
    assert set(got) == set(res.results)
    used = {a.name for r in prog.event_rules for a in A.event_atoms(r.body) if a.name != r.head.name}
    top = {r.head.name for r in prog.event_rules} - used
    assert res.results, name
    # every rule set's final (top-level) events occur, and not by the thousand
    names = {a.split("(")[0] for a, _, _ in res.results}
    assert set(top) <= names, (name, top, names)
    assert len(res.results) < 2000


def test_heat_bands_are_half_open():
    """F = (TMax - 7W//10) * 9 // 5 + 320: TMax 40.6 C -> 1050 (danger), 40.5 C -> 1049 (extreme caution)."""
    prog = parse(next(c[1] for c in CASES if c[0].startswith("heat_index")))

    def ev(name, args, t, i):
        return StreamEvent(A.EventAtom(name, tuple(A.Num(a) for a in args)), t, t, i)

    evs = [ev("temp", (406, 200), 0, 0), ev("wind", (0,), 0, 1), ev("temp", (405, 200), 5, 2), ev("wind", (0,), 5, 3)]
    res = oracle(prog, evs, Options(), LIMITS)
    assert isinstance(res, OracleResult)
    heat = {r for r in res.results if r[0].startswith("heat")}
    assert heat == {("heat(danger,1050)", 0, 0), ("heat(extreme_caution,1049)", 5, 5)}
    assert set(evaluator(prog).run(evs)) == set(res.results)
