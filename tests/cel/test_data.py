"""ceplab.workbench.langs.cel.data: real stock data converted to event streams; bundled queries parse."""
from __future__ import annotations

from ceplab.semantics.cel.parser import parse
from ceplab.semantics.events import parse_jsonl, dumps_jsonl
from ceplab.workbench.langs.cel import data


def test_eustock_stream_has_1860_days_of_four_indices():
    s = data.eustock_stream()
    assert len(s) == 4 * 1860
    assert len({e.attrs["day"] for e in s}) == 1860
    assert [e.position for e in s] == list(range(len(s)))
    assert all(a.time <= b.time for a, b in zip(s.events, s.events[1:]))
    day1 = s.events[4:8]
    assert [e.attrs["index"] for e in day1] == ["DAX", "SMI", "CAC", "FTSE"]
    dax0, dax1 = s[0], s[4]
    assert dax0.type == "FLAT" and dax0.attrs["change"] == 0.0
    # DAX 1628.75 -> 1613.63 is -0.93 %
    assert dax1.type == "DOWN" and dax1.attrs["change"] == -0.93 and dax1.time == 1
    for e in s:
        c = e.attrs["change"]
        assert e.type == ("UP" if c > 0 else "DOWN" if c < 0 else "FLAT")


def test_eustock_slices():
    s = data.eustock_stream(days=(10, 20), indices=("DAX",))
    assert len(s) == 10 and {e.attrs["index"] for e in s} == {"DAX"}
    assert s[0].time == 10 and s[0].position == 0
    full = data.eustock_stream()
    assert s[0].attrs == full[40].attrs  # change is against the previous day of the full series


def test_stocks_stream():
    s = data.stocks_stream()
    assert len(s) == 560
    assert {e.attrs["symbol"] for e in s} == set(data.STOCK_SYMBOLS)
    assert all(a.time <= b.time for a, b in zip(s.events, s.events[1:]))
    firsts = {}
    for e in s:
        firsts.setdefault(e.attrs["symbol"], e)
    assert all(e.type == "FLAT" for e in firsts.values())
    assert firsts["GOOG"].attrs["month"] == "2004-08"


def test_streams_roundtrip_jsonl():
    s = data.eustock_stream(days=(0, 30))
    back = parse_jsonl(dumps_jsonl(s), "x.jsonl")
    assert [(e.type, e.time, e.attrs) for e in back] == [(e.type, e.time, e.attrs) for e in s]


def test_queries_parse_and_cases_build():
    files = data.query_files()
    assert len(files) >= 5
    cases = data.real_cases()
    assert [c[0] for c in cases] == [p.stem for p in files]
    strategies = set()
    for name, text, stream in cases:
        q = parse(text, name)
        assert q.within is not None, f"{name} needs a WITHIN window"
        strategies.add(q.strategy)
        assert len(stream) > 0
    assert {"MAX", "LAST", "STRICT", "NXT"} <= strategies


def test_stream_spec():
    s = data.stream_for_spec("eustock days=0:5 indices=DAX,FTSE")
    assert len(s) == 10
    assert data.query_stream_spec("# stream: stocks symbols=AAPL\nA AS x") == "stocks symbols=AAPL"
